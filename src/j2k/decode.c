/* The JPEG 2000 decoder's public API and its orchestration, tile by tile:
 *   parse (jp2.c, markers.c) -> geometry (tcd.c) -> packets (t2.c, pi.c) -> code-blocks (t1.h,
 *   in parallel) with dequantisation (T.800 E.1) -> inverse DWT (dwt.c) -> inverse MCT (mct.c)
 *   -> DC level shift, rounding, clamping into the caller's planes -> JP2 palette and channels.
 * This file: the API, the stream, the outputs' layout and the course of a decode over its
 * tiles; one tile's work, from its packets to its output, is decode_tile.c (decode_int.h). */
#include "j2k/decode_cuda.h"
#include "j2k/decode_int.h"
#include "j2k/fast_coder.h"
#include "j2k/t1.h"
#include "core/backend.h"
#include "io/atomic_file.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

void tsr_j2k_decode_options_init(tsr_j2k_decode_options *opt)
{
    memset(opt, 0, sizeof *opt);
    opt->apply_palette = 1;
}

typedef tsr__j2k_stream stream;
typedef tsr__j2k_out_chan out_chan;
typedef tsr__j2k_layout layout;
typedef tsr__j2k_dec dec;

static tsr_status make_layout(tsr_ctx *ctx, const stream *s, const tsr_j2k_decode_options *opt,
                              layout *L);
static void layout_free(tsr_ctx *ctx, layout *L);

/* ---- opening a stream ---------------------------------------------------------------------- */

static tsr_status open_stream(tsr_ctx *ctx, const void *data, size_t len, int main_only, stream *s)
{
    memset(s, 0, sizeof *s);
    if (!data && len)
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT, "NULL data");
    tsr_status st = tsr__jp2_read(ctx, data, len, &s->jp2, &s->warn);
    if (st)
        return st;
    st = tsr__j2k_parse(ctx, (const uint8_t *)data + s->jp2.cs_off, s->jp2.cs_len, s->jp2.cs_off,
                        main_only, &s->cs, &s->warn);
    if (st)
        return st;
    if (s->jp2.pal_ne) {
        for (uint32_t i = 0; i < s->jp2.ncmap; i++)
            if (s->jp2.cmap[i].cmp >= s->cs.ncomps ||
                (s->jp2.cmap[i].mtyp == 1 && s->jp2.cmap[i].pcol >= s->jp2.pal_npc))
                return tsr__fail(ctx, TSR_ERR_CORRUPT,
                                 "JP2: cmap entry %u refers to component %u / column %u, which "
                                 "do not exist",
                                 i, s->jp2.cmap[i].cmp, s->jp2.cmap[i].pcol);
    }
    return TSR_OK;
}

static void close_stream(tsr_ctx *ctx, stream *s)
{
    tsr__j2k_cs_free(ctx, &s->cs);
    tsr__jp2_free(ctx, &s->jp2);
}

tsr_status tsr_j2k_read_header(tsr_ctx *ctx, const void *data, size_t len, tsr_j2k_info *info,
                               tsr_j2k_component *comps, uint32_t max_comps)
{
    tsr_status st = tsr__enter(ctx);
    if (st)
        return st;
    if (!info)
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT, "tsr_j2k_read_header: NULL info");
    memset(info, 0, sizeof *info);
    stream s;
    st = open_stream(ctx, data, len, 1, &s);
    if (st) {
        close_stream(ctx, &s);
        return st;
    }
    const tsr__j2k_cs *cs = &s.cs;
    const tsr__j2k_tccp *t0 = &cs->deflt.tccps[0];
    info->container = s.jp2.container;
    info->rsiz = cs->rsiz;
    info->is_ht = cs->is_ht || (cs->rsiz & 0x4000);
    info->nonstandard = cs->fast_ns;
    info->x0 = cs->x0;
    info->y0 = cs->y0;
    info->x1 = cs->x1;
    info->y1 = cs->y1;
    info->width = cs->x1 - cs->x0;
    info->height = cs->y1 - cs->y0;
    info->tile_x0 = cs->tx0;
    info->tile_y0 = cs->ty0;
    info->tile_width = cs->tw;
    info->tile_height = cs->th;
    info->tiles_x = cs->ntx;
    info->tiles_y = cs->nty;
    info->num_components = cs->ncomps;
    info->progression = (tsr_j2k_progression)cs->deflt.prg;
    info->layers = cs->deflt.numlayers;
    info->levels = t0->numres - 1u;
    info->cblk_width = 1u << t0->xcb;
    info->cblk_height = 1u << t0->ycb;
    info->cblk_style = t0->cblksty;
    info->reversible = t0->qmfbid == 1;
    info->mct = cs->deflt.mct;
    info->sop = (cs->deflt.csty & 2) != 0;
    info->eph = (cs->deflt.csty & 4) != 0;
    info->precincts = t0->csty & 1;
    info->colourspace = s.jp2.enumcs;
    info->palette_entries = s.jp2.pal_ne;
    info->palette_columns = s.jp2.pal_npc;
    info->colour_method = s.jp2.colr_meth;
    {
        /* the channels of a default decode; where its layout fails, the decode will say why */
        tsr_j2k_decode_options o;
        tsr_j2k_decode_options_init(&o);
        layout L;
        info->output_channels = make_layout(ctx, &s, &o, &L) == TSR_OK ? L.nout
                                : s.jp2.pal_ne                         ? s.jp2.ncmap
                                                                       : cs->ncomps;
        layout_free(ctx, &L);
    }
    for (uint32_t c = 0; comps && c < cs->ncomps && c < max_comps; c++) {
        const tsr__j2k_comp *cp = &cs->comps[c];
        comps[c].dx = cp->dx;
        comps[c].dy = cp->dy;
        comps[c].precision = cp->prec;
        comps[c].is_signed = cp->sgnd;
        comps[c].x0 = tsr__ceildiv(cs->x0, cp->dx);
        comps[c].y0 = tsr__ceildiv(cs->y0, cp->dy);
        comps[c].width = tsr__ceildiv(cs->x1, cp->dx) - comps[c].x0;
        comps[c].height = tsr__ceildiv(cs->y1, cp->dy) - comps[c].y0;
    }
    close_stream(ctx, &s);
    return TSR_OK;
}

/* ---- layout -------------------------------------------------------------------------------- */

static void layout_free(tsr_ctx *ctx, layout *L)
{
    tsr__free(ctx, L->ch);
    tsr__free(ctx, L->mask);
    memset(L, 0, sizeof *L);
}

static void out_plane(const stream *s, const layout *L, uint32_t i, tsr_j2k_plane *p);

/* The name of a colr EnumCS that is not converted (T.800 Table I.10, T.801 Table M.25). */
static const char *enumcs_name(uint32_t e)
{
    switch (e) {
    case 0: return "bi-level";
    case 1: return "YCbCr(1)";
    case 3: return "YCbCr(2)";
    case 4: return "YCbCr(3)";
    case 9: return "PhotoYCC";
    case 11: return "CMY";
    case 12: return "CMYK";
    case 13: return "YCCK";
    case 14: return "CIELab";
    case 15: return "bi-level(2)";
    case 19: return "CIEJab";
    case 20: return "e-sRGB";
    case 21: return "ROMM-RGB";
    case 22: return "YPbPr(1125/60)";
    case 23: return "YPbPr(1250/50)";
    default: return "unknown";
    }
}

/* The colour conversion of a rendered JP2 image, after the palette and the channel order,
 * from the first colr box (T.800 I.5.3.3): sYCC or e-sYCC (L->sycc), a restricted ICC
 * profile (L->icc; a monochrome one turns channel 0 into three), else the samples as decoded,
 * with a warning when the colour space is not sRGB or greyscale. */
static tsr_status choose_colour(tsr_ctx *ctx, const stream *s, layout *L)
{
    tsr__j2k_warn *warn = (tsr__j2k_warn *)&s->warn;
    const tsr__jp2 *j = &s->jp2;
    if (j->colr_meth == 0 || (j->colr_meth == 1 && (j->enumcs == 16 || j->enumcs == 17)))
        return TSR_OK;
    if (j->colr_meth == 1 && (j->enumcs == 18 || j->enumcs == 24)) {
        const char *name = j->enumcs == 18 ? "sYCC" : "e-sYCC";
        if (L->palette || L->nout < 3) {
            tsr__j2k_warnf(warn,
                           "JP2 %s image with a palette or fewer than 3 channels: output as "
                           "decoded",
                           name);
            return TSR_OK;
        }
        const tsr__j2k_comp *c0 = &s->cs.comps[L->ch[0].comp], *c1 = &s->cs.comps[L->ch[1].comp],
                            *c2 = &s->cs.comps[L->ch[2].comp];
        L->sycc = !c0->sgnd && c0->prec == c1->prec && c0->prec == c2->prec && c0->dx <= c1->dx &&
                  c0->dx <= c2->dx && c0->dy <= c1->dy && c0->dy <= c2->dy;
        if (!L->sycc)
            tsr__j2k_warnf(warn,
                           "JP2 %s components of unequal precision, a signed Y or a Y coarser "
                           "than its chroma: output as decoded",
                           name);
        return TSR_OK;
    }
    if (j->colr_meth == 1) {
        tsr__j2k_warnf(
            warn, "JP2 colour space %s (EnumCS %u) is not converted to sRGB: output as decoded",
            enumcs_name(j->enumcs), j->enumcs);
        return TSR_OK;
    }
    if (j->colr_meth != 2 && j->colr_meth != 3) {
        tsr__j2k_warnf(warn,
                       "JP2 colour specification method %u is not supported: output as decoded",
                       j->colr_meth);
        return TSR_OK;
    }
    const char *why;
    tsr__icc_verdict v = tsr__icc_parse(j->icc, j->icc_len, &L->prof, &why);
    if (v != TSR__ICC_OK) {
        tsr__j2k_warnf(warn, "JP2 ICC profile not applied (%s%s): output as decoded",
                       v == TSR__ICC_MALFORMED ? "malformed: " : "", why);
        return TSR_OK;
    }
    const uint32_t n = L->prof.channels;
    int fits = L->nout >= n;
    tsr_j2k_plane p0, pk;
    if (fits)
        out_plane(s, L, 0, &p0);
    for (uint32_t k = 0; fits && k < n; k++) {
        out_plane(s, L, k, &pk);
        fits = !pk.is_signed && pk.precision <= 16 && pk.precision == p0.precision &&
               pk.width == p0.width && pk.height == p0.height && pk.x0 == p0.x0 && pk.y0 == p0.y0;
    }
    if (!fits) {
        tsr__j2k_warnf(warn,
                       "JP2 ICC profile not applied: its %u colour channel%s not present, "
                       "signed, deeper than 16 bits or of unequal size or precision: output as "
                       "decoded",
                       n, n == 1 ? " is" : "s are");
        return TSR_OK;
    }
    L->icc = 1;
    if (n == 1) {
        /* monochrome to sRGB: channel 0 three times, then the others (alpha) */
        out_chan *ch;
        tsr_status st = tsr__alloc(ctx, (L->nout + 2) * sizeof *ch, (void **)&ch);
        if (st)
            return st;
        ch[0] = ch[1] = ch[2] = L->ch[0];
        memcpy(ch + 3, L->ch + 1, (L->nout - 1) * sizeof *ch);
        tsr__free(ctx, L->ch);
        L->ch = ch;
        L->nout += 2;
    }
    return TSR_OK;
}

static tsr_status make_layout(tsr_ctx *ctx, const stream *s, const tsr_j2k_decode_options *opt,
                              layout *L)
{
    const tsr__j2k_cs *cs = &s->cs;
    memset(L, 0, sizeof *L);
    L->reduce = opt->reduce;
    for (uint32_t c = 0; c < cs->ncomps; c++) {
        if (cs->comps[c].prec > 31)
            return tsr__fail(ctx, TSR_ERR_UNSUPPORTED,
                             "component %u has %u-bit samples; at most 31 are supported", c,
                             cs->comps[c].prec);
        if (opt->reduce >= cs->deflt.tccps[c].numres)
            return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT,
                             "cannot reduce by %u levels: component %u has %u decomposition "
                             "levels",
                             opt->reduce, c, cs->deflt.tccps[c].numres - 1u);
    }
    /* Region. */
    uint32_t w = cs->x1 - cs->x0, h = cs->y1 - cs->y0;
    if ((opt->region_w == 0) != (opt->region_h == 0))
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT,
                         "region: width and height must both be "
                         "given");
    if (opt->region_w) {
        if (opt->region_x >= w || opt->region_y >= h)
            return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT,
                             "region origin (%u,%u) is outside the %ux%u image", opt->region_x,
                             opt->region_y, w, h);
        L->win.x0 = cs->x0 + opt->region_x;
        L->win.y0 = cs->y0 + opt->region_y;
        L->win.x1 = opt->region_w > w - opt->region_x ? cs->x1 : L->win.x0 + opt->region_w;
        L->win.y1 = opt->region_h > h - opt->region_y ? cs->y1 : L->win.y0 + opt->region_h;
    } else {
        L->win.x0 = cs->x0;
        L->win.y0 = cs->y0;
        L->win.x1 = cs->x1;
        L->win.y1 = cs->y1;
    }
    tsr_status st = tsr__alloc(ctx, cs->ncomps, (void **)&L->mask);
    if (st)
        return st;
    memset(L->mask, 0, cs->ncomps);
    L->palette = opt->apply_palette && s->jp2.pal_ne && !opt->components;
    uint32_t nout;
    if (opt->components) {
        if (opt->num_components == 0 || opt->num_components > cs->ncomps)
            return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT, "components: %u given, %u exist",
                             opt->num_components, cs->ncomps);
        nout = opt->num_components;
    } else {
        nout = L->palette ? s->jp2.ncmap : cs->ncomps;
    }
    if ((st = tsr__alloc(ctx, nout * sizeof *L->ch, (void **)&L->ch)))
        return st;
    L->nout = nout;
    for (uint32_t i = 0; i < nout; i++) {
        if (opt->components) {
            uint32_t c = opt->components[i];
            if (c >= cs->ncomps)
                return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT,
                                 "components: %u does not exist (the image has %u)", c, cs->ncomps);
            if (L->mask[c])
                return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT, "components: %u given twice", c);
            L->ch[i].comp = c;
            L->ch[i].pcol = -1;
        } else if (L->palette) {
            L->ch[i].comp = s->jp2.cmap[i].cmp;
            L->ch[i].pcol = s->jp2.cmap[i].mtyp == 1 ? s->jp2.cmap[i].pcol : -1;
        } else {
            L->ch[i].comp = i;
            L->ch[i].pcol = -1;
        }
        L->mask[L->ch[i].comp] = 1;
    }
    /* Channel definitions (cdef): colour channels in association order, then the others. */
    if (opt->apply_palette && !opt->components && s->jp2.ncdef == nout) {
        out_chan tmp[256];
        uint32_t key[256];
        int ok = nout <= 256;
        for (uint32_t i = 0; ok && i < nout; i++) {
            key[i] = 0xFFFFFFFFu;
            for (uint32_t k = 0; k < s->jp2.ncdef; k++)
                if (s->jp2.cdef_cn[k] == i) {
                    uint32_t a = s->jp2.cdef_asoc[k];
                    key[i] = (s->jp2.cdef_typ[k] == 0 && a >= 1 && a != 0xFFFF)
                                 ? a
                                 : 0x10000u + (s->jp2.cdef_typ[k] << 8) + i;
                }
            tmp[i] = L->ch[i];
        }
        if (ok) {
            /* stable selection by key */
            uint8_t used[256] = {0};
            for (uint32_t o = 0; o < nout; o++) {
                uint32_t best = UINT32_MAX;
                for (uint32_t i = 0; i < nout; i++)
                    if (!used[i] && (best == UINT32_MAX || key[i] < key[best]))
                        best = i;
                used[best] = 1;
                L->ch[o] = tmp[best];
            }
        }
    }
    if (opt->apply_palette && !opt->components)
        return choose_colour(ctx, s, L);
    return TSR_OK;
}

/* Whether the outputs are made from decoded planes (palette, colour conversion) rather than
 * decoded into directly. */
static int converted(const layout *L)
{
    return L->palette || L->sycc || L->icc;
}

/* Plane geometry of component c for a layout. */
static void comp_plane(const tsr__j2k_cs *cs, const layout *L, uint32_t c, tsr_j2k_plane *p)
{
    const tsr__j2k_comp *cp = &cs->comps[c];
    p->x0 = tsr__ceildivpow2(tsr__ceildiv(L->win.x0, cp->dx), L->reduce);
    p->y0 = tsr__ceildivpow2(tsr__ceildiv(L->win.y0, cp->dy), L->reduce);
    uint32_t x1 = tsr__ceildivpow2(tsr__ceildiv(L->win.x1, cp->dx), L->reduce);
    uint32_t y1 = tsr__ceildivpow2(tsr__ceildiv(L->win.y1, cp->dy), L->reduce);
    p->width = x1 - p->x0;
    p->height = y1 - p->y0;
    p->dx = cp->dx;
    p->dy = cp->dy;
    p->precision = cp->prec;
    p->is_signed = cp->sgnd;
    p->component = c;
    p->data = NULL;
    p->stride = p->width;
}

/* Geometry of output plane i (palette columns have their own depth; sYCC outputs sit on
 * component 0's grid). */
static void out_plane(const stream *s, const layout *L, uint32_t i, tsr_j2k_plane *p)
{
    comp_plane(&s->cs, L, L->sycc && i < 3 ? L->ch[0].comp : L->ch[i].comp, p);
    if (L->sycc && i < 3)
        p->component = L->ch[i].comp;
    if (L->ch[i].pcol >= 0) {
        uint8_t b = s->jp2.pal_bits[L->ch[i].pcol];
        p->precision = (b & 0x7fu) + 1u;
        p->is_signed = (b & 0x80) != 0;
    }
}

static void describe(const stream *s, const layout *L, tsr_j2k_plane *planes, uint32_t n)
{
    for (uint32_t i = 0; i < n && i < L->nout; i++)
        out_plane(s, L, i, &planes[i]);
}

static tsr_status check_options(tsr_ctx *ctx, const tsr_j2k_decode_options *opt)
{
    if (opt->reduce > 32)
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT, "reduce %u (at most 32)", opt->reduce);
    if (opt->threads < 0)
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT, "threads %d", opt->threads);
    return TSR_OK;
}

/* opt, or the defaults written into *dflt when opt is NULL (every entry point accepts NULL). */
static const tsr_j2k_decode_options *options_or_default(const tsr_j2k_decode_options *opt,
                                                        tsr_j2k_decode_options *dflt)
{
    if (opt)
        return opt;
    tsr_j2k_decode_options_init(dflt);
    return dflt;
}

tsr_status tsr_j2k_decode_layout(tsr_ctx *ctx, const void *data, size_t len,
                                 const tsr_j2k_decode_options *opt, tsr_j2k_plane *planes,
                                 uint32_t *num_planes)
{
    tsr_status st = tsr__enter(ctx);
    if (st)
        return st;
    if ((st = tsr__j2k_choose(ctx, "j2k decode", 1, 0, NULL)))
        return st;
    tsr_j2k_decode_options dflt;
    opt = options_or_default(opt, &dflt);
    if (!num_planes)
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT, "NULL num_planes");
    if ((st = check_options(ctx, opt)))
        return st;
    stream s;
    layout L;
    memset(&L, 0, sizeof L);
    st = open_stream(ctx, data, len, 1, &s);
    if (!st)
        st = make_layout(ctx, &s, opt, &L);
    if (!st) {
        if (planes)
            describe(&s, &L, planes, *num_planes);
        *num_planes = L.nout;
    }
    layout_free(ctx, &L);
    close_stream(ctx, &s);
    return st;
}

tsr_status tsr__j2k_choose(tsr_ctx *ctx, const char *op, int cuda, int device, tsr_backend *out)
{
    tsr_backend b;
    const unsigned offered = TSR__BACKEND_BIT(TSR_BACKEND_CPU) |
                             TSR__BACKEND_BIT(TSR_BACKEND_REFERENCE) |
                             (cuda ? TSR__BACKEND_BIT(TSR_BACKEND_CUDA) : 0u);
    const int on_device = cuda && device;
    tsr_status st =
        tsr__backend_choose(ctx, op, offered, on_device ? TSR_BACKEND_CUDA : TSR_BACKEND_CPU,
                            on_device ? "a device image stays on the device"
                            : cuda    ? "host images: the CPU codec on the host's cores"
                                      : "JPEG 2000 decoding into planes runs on the CPU",
                            &b);
    if (!st && out)
        *out = b;
    return st;
}

/* The threads a decode with these options uses (opt may be NULL: the context's count). */
static int decode_threads(const tsr_ctx *ctx, const tsr_j2k_decode_options *opt)
{
    int threads = opt && opt->threads ? opt->threads : ctx->threads;
#ifndef _OPENMP
    threads = 1;
#endif
    if (threads < 1 || ctx->backend == TSR_BACKEND_REFERENCE)
        threads = 1;
    return threads;
}

/* Fills img with the pixels of zero samples: what a tile without data leaves in a plane. */
static void fill_zero_pixels(tsr_image *img, const tsr__j2k_pixels *pix, int threads)
{
    enum { PIECE = 1024 };
    static const int32_t zero[PIECE];
    const int32_t *const z[4] = {zero, zero, zero, zero};
    const size_t pixel = (size_t)pix->n * (pix->wide ? 2 : 1);
    (void)threads;
#pragma omp parallel for schedule(static) num_threads(threads) if (threads > 1 && img->height > 64)
    for (int32_t y = 0; y < img->height; y++)
        for (int32_t x = 0; x < img->width; x += PIECE) {
            const uint32_t k = img->width - x < PIECE ? (uint32_t)(img->width - x) : PIECE;
            tsr__j2k_pixels_row(pix, z, k,
                                (uint8_t *)img->data + (size_t)y * img->stride + (size_t)x * pixel);
        }
}

/* The zero pixels of tiles without data in img: on the host, or on CUDA made on the host and
 * copied into the decode's device image (tsr__j2k_cuda_begin has set it up). */
static tsr_status zero_pixels(tsr_ctx *ctx, tsr_image *img, const tsr__j2k_pixels *pix, int cuda,
                              int threads)
{
    if (img->memory == TSR_MEMORY_HOST) {
        fill_zero_pixels(img, pix, threads);
        return cuda ? tsr__j2k_cuda_upload_image(ctx, img) : TSR_OK;
    }
    tsr_image host;
    tsr_status st = tsr_image_alloc(ctx, &host, img->width, img->height, img->channels, img->depth);
    if (st)
        return st;
    fill_zero_pixels(&host, pix, threads);
    st = tsr__j2k_cuda_upload_image(ctx, &host);
    tsr_image_free(ctx, &host);
    return st;
}

/* Hands a whole image to a row sink (tsr_j2k_decode_rows), in one call. */
static tsr_status give_image(tsr_ctx *ctx, const tsr_image *img, tsr_j2k_row_sink sink, void *user)
{
    if (sink(user, img->data, img->stride, 0, (uint32_t)img->height))
        return tsr__fail(ctx, TSR_ERR_INTERRUPTED, "j2k decode: stopped by the row sink");
    return TSR_OK;
}

/* tsr_j2k_decode(), or with img != NULL the direct case of tsr_j2k_decode_image(): planes are
 * then the layout's (data NULL) and the samples go to img as pix describes; with a sink (that
 * of tsr_j2k_decode_rows) img is a descriptor without data, and the rows go to the sink. With
 * later (a batch's frame, tsr_j2k_decode_images) a decode on CUDA that has queued every tile
 * returns TSR_OK with later->deferred set: its end (the status words, a host image's download
 * and *result) is the caller's, from later (tsr__j2k_cuda_frame_end). */
static tsr_status decode_core(tsr_ctx *ctx, const void *data, size_t len,
                              const tsr_j2k_decode_options *opt, tsr_j2k_plane *planes,
                              uint32_t num_planes, tsr_image *img, const tsr__j2k_pixels *pix,
                              tsr_j2k_row_sink sink, void *user, tsr_j2k_result *result,
                              tsr__j2k_cuda_frame *later)
{
    tsr_status st = tsr__enter(ctx);
    if (st)
        return st;
    tsr_j2k_decode_options dflt;
    opt = options_or_default(opt, &dflt);
    if (result)
        memset(result, 0, sizeof *result);
    if ((st = check_options(ctx, opt)))
        return st;
    tsr_backend backend;
    if ((st = tsr__j2k_choose(ctx, img ? "j2k decode" : "j2k decode into planes", img != NULL,
                              img && img->memory == TSR_MEMORY_CUDA, &backend)))
        return st;
    const int cuda = backend == TSR_BACKEND_CUDA;
    tsr__j2k_cuda_image dimg;
    stream s;
    layout L;
    dec d;
    memset(&L, 0, sizeof L);
    memset(&d, 0, sizeof d);
    tsr_j2k_plane *tmp = NULL; /* palette case: decoded components */
    st = open_stream(ctx, data, len, 0, &s);
    if (st)
        goto out;
    if ((st = make_layout(ctx, &s, opt, &L)))
        goto out;
    if (cuda && s.cs.fast_ns) {
        st = tsr__fail(ctx, TSR_ERR_UNSUPPORTED,
                       "j2k decode: a fast-nonstandard stream (not JPEG 2000) decodes on the "
                       "CPU only so far");
        goto out;
    }
    if (!planes || num_planes != L.nout) {
        st = tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT, "%u planes given, the layout has %u",
                       num_planes, L.nout);
        goto out;
    }
    {
        for (uint32_t i = 0; i < num_planes; i++) {
            tsr_j2k_plane g;
            out_plane(&s, &L, i, &g);
            if (planes[i].width != g.width || planes[i].height != g.height ||
                planes[i].x0 != g.x0 || planes[i].y0 != g.y0 ||
                (!img && !planes[i].data && g.width && g.height) || planes[i].stride < g.width) {
                st = tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT,
                               "plane %u does not match the layout (%ux%u at %u,%u) or has no "
                               "data",
                               i, g.width, g.height, g.x0, g.y0);
                goto out;
            }
        }
    }
    d.ctx = ctx;
    d.s = &s;
    d.L = &L;
    d.layers = opt->layers ? opt->layers : 0xFFFFu;
    d.threads = decode_threads(ctx, opt);
    if (img) {
        if (converted(&L) || num_planes != pix->n) {
            st = tsr__fail(ctx, TSR_ERR_INTERNAL, "image output of a palette or colour conversion");
            goto out;
        }
        d.img = img;
        d.pix = *pix;
        for (uint32_t i = 0; i < num_planes; i++)
            d.img_comp[i] = L.ch[i].comp;
        d.sink = sink;
        d.user = user;
    }
    size_t pbytes;
    if (!tsr__size_mul(s.cs.ncomps, sizeof *d.dst, &pbytes)) {
        st = TSR_ERR_OVERFLOW;
        goto out;
    }
    if ((st = tsr__alloc(ctx, pbytes, (void **)&d.dst)))
        goto out;
    memset(d.dst, 0, pbytes);
    if (converted(&L)) {
        /* Decode the mapped components into temporary planes, then expand / convert. */
        if ((st = tsr__alloc(ctx, pbytes, (void **)&tmp)))
            goto out;
        memset(tmp, 0, pbytes);
        for (uint32_t c = 0; c < s.cs.ncomps; c++) {
            if (!L.mask[c])
                continue;
            comp_plane(&s.cs, &L, c, &tmp[c]);
            size_t b;
            if (!tsr__size_mul3(tmp[c].width ? tmp[c].width : 1, tmp[c].height ? tmp[c].height : 1,
                                sizeof(int32_t), &b)) {
                st = TSR_ERR_OVERFLOW;
                goto out;
            }
            if ((st = tsr__alloc(ctx, b, (void **)&tmp[c].data)))
                goto out;
            memset(tmp[c].data, 0, b);
            d.dst[c] = tmp[c];
        }
    } else {
        for (uint32_t i = 0; i < num_planes; i++)
            d.dst[L.ch[i].comp] = planes[i];
    }
    d.ws_size = tsr__t1_workspace_size();
    if (s.cs.fast_ns && tsr__fns_workspace_size() > d.ws_size)
        d.ws_size = tsr__fns_workspace_size();
    if (!cuda) {
        size_t b;
        if (!tsr__size_mul(d.ws_size, (size_t)d.threads, &b)) {
            st = TSR_ERR_OVERFLOW;
            goto out;
        }
        if ((st = tsr__alloc(ctx, b ? b : 1, &d.t1_ws)))
            goto out;
    }
    /* The tiles to decode (those meeting the window and holding data). Each writes every
     * sample of the planes inside it (each code-block job writes every coefficient, the output pass
     * every sample), so the planes are cleared only where a tile without data leaves a hole. */
    uint32_t *todo = NULL, ntodo = 0;
    int hole = 0;
    if ((st = tsr__alloc(ctx, (size_t)s.cs.ntiles * sizeof *todo, (void **)&todo)))
        goto out;
    for (uint32_t tile = 0; tile < s.cs.ntiles; tile++) {
        uint32_t p = tile % s.cs.ntx, q = tile / s.cs.ntx;
        uint64_t tx0 = (uint64_t)s.cs.tx0 + (uint64_t)p * s.cs.tw;
        uint64_t ty0 = (uint64_t)s.cs.ty0 + (uint64_t)q * s.cs.th;
        if (tx0 + s.cs.tw <= L.win.x0 || tx0 >= L.win.x1 || ty0 + s.cs.th <= L.win.y0 ||
            ty0 >= L.win.y1)
            continue;
        if (s.cs.tile_first[tile] == UINT32_MAX) {
            hole = 1;
            /* A tile with no data stays zero. Say so unless it holds no samples at all (a tile
             * thinner than a subsampled component's grid step). */
            uint32_t ax0 = tx0 > s.cs.x0 ? (uint32_t)tx0 : s.cs.x0;
            uint32_t ay0 = ty0 > s.cs.y0 ? (uint32_t)ty0 : s.cs.y0;
            uint32_t ax1 = tx0 + s.cs.tw < s.cs.x1 ? (uint32_t)(tx0 + s.cs.tw) : s.cs.x1;
            uint32_t ay1 = ty0 + s.cs.th < s.cs.y1 ? (uint32_t)(ty0 + s.cs.th) : s.cs.y1;
            int empty = 1;
            for (uint32_t c = 0; c < s.cs.ncomps && empty; c++) {
                const tsr__j2k_comp *cp = &s.cs.comps[c];
                if (tsr__ceildiv(ax1, cp->dx) > tsr__ceildiv(ax0, cp->dx) &&
                    tsr__ceildiv(ay1, cp->dy) > tsr__ceildiv(ay0, cp->dy))
                    empty = 0;
            }
            if (!empty) {
                tsr__j2k_warnf(&s.warn, "tile %u has no tile-parts: left at zero", tile);
                s.warn.truncated = 1;
            }
            continue;
        }
        todo[ntodo++] = tile;
    }
    /* rows are streamed only from a single banded tile on the CPU (tsr__j2k_decode_tile
     * decides) */
    if (sink && (cuda || ntodo != 1 || hole) && (st = tsr__j2k_own_image(&d, d.threads))) {
        tsr__free(ctx, todo);
        goto out;
    }
    if (cuda && (st = tsr__j2k_cuda_begin(ctx, img, later ? later->slot : 0, &dimg))) {
        tsr__free(ctx, todo);
        goto out;
    }
    if (hole && img && (st = zero_pixels(ctx, img, &d.pix, cuda, d.threads))) {
        tsr__free(ctx, todo);
        goto out;
    }
    for (uint32_t c = 0; hole && c < s.cs.ncomps; c++) {
        if (!d.dst[c].data)
            continue;
        /* zeroed in parallel: the first touch of a fresh allocation is page faults */
        int64_t h = d.dst[c].height;
#pragma omp parallel for schedule(static) num_threads(d.threads) if (d.threads > 1 && h > 64)
        for (int64_t y = 0; y < h; y++)
            memset(d.dst[c].data + (size_t)y * d.dst[c].stride, 0,
                   d.dst[c].width * sizeof(int32_t));
    }
    if (cuda) {
        /* tile after tile on the device's stream; the host reads the next tile's packets while
         * the device decodes the one before */
        tsr__j2k_cuda_frame own, *f = later ? later : &own;
        const uint32_t slot = later ? later->slot : 0;
        memset(f, 0, sizeof *f);
        f->slot = slot;
        f->warn = &s.warn;
        st = TSR_OK;
        for (uint32_t i = 0; i < ntodo && !st; i++) {
            st = tsr__j2k_decode_tile_cuda(&d, todo[i], &dimg, f);
            if (!st)
                st = tsr__progress(ctx, "j2k decode", i + 1, ntodo);
        }
        if (!st && later) {
            if (img->memory == TSR_MEMORY_HOST) {
                f->download = 1;
                st = tsr__j2k_cuda_download(ctx, img, slot);
            }
            if (!st) {
                f->kept = s.warn;
                f->warn = &f->kept;
                f->deferred = 1;
                tsr__free(ctx, todo);
                goto out;
            }
        }
        st = tsr__j2k_cuda_frame_end(ctx, f, st);
        if (!st && !later)
            st = tsr__j2k_cuda_end(ctx, img);
        if (st)
            tsr__j2k_cuda_quiesce(ctx);
    } else if (d.threads > 1 && ntodo >= 2 * (uint32_t)d.threads) {
        /* Many tiles: one tile per thread at a time (tiles write disjoint parts of the planes;
         * warnings are serialised; the first error stops the others at their next tile). */
        tsr_status first = TSR_OK;
        uint32_t ndone = 0;
#pragma omp parallel for schedule(dynamic, 1) num_threads(d.threads)
        for (uint32_t i = 0; i < ntodo; i++) {
            tsr_status f;
#pragma omp atomic read
            f = first;
            if (f)
                continue;
            int tid = 0;
#ifdef _OPENMP
            tid = omp_get_thread_num();
#endif
            tsr_status r =
                tsr__j2k_decode_tile(&d, todo[i], 1, (char *)d.t1_ws + (size_t)tid * d.ws_size);
#pragma omp critical(tsr_j2k_tiles)
            {
                if (r && !first)
                    first = r;
                if (!r && !first && tsr__progress(ctx, "j2k decode", ++ndone, ntodo))
                    first = TSR_ERR_INTERRUPTED;
            }
        }
        st = first;
    } else {
        st = TSR_OK;
        for (uint32_t i = 0; i < ntodo && !st; i++) {
            st = tsr__j2k_decode_tile(&d, todo[i], d.threads, d.t1_ws);
            if (!st)
                st = tsr__progress(ctx, "j2k decode", i + 1, ntodo);
        }
    }
    tsr__free(ctx, todo);
    if (st)
        goto out;
    if (d.own_img && (st = give_image(ctx, img, sink, user)))
        goto out;
    if (L.sycc) {
        const tsr_j2k_plane ycc[3] = {tmp[L.ch[0].comp], tmp[L.ch[1].comp], tmp[L.ch[2].comp]};
        tsr__jp2_sycc_to_rgb(ycc, planes, d.threads);
    }
    if (converted(&L)) {
        for (uint32_t i = L.sycc ? 3 : 0; i < num_planes; i++) {
            const tsr_j2k_plane *src = &tmp[L.ch[i].comp];
            int32_t pc = L.ch[i].pcol;
            for (uint32_t y = 0; y < planes[i].height; y++) {
                const int32_t *a = src->data + (size_t)y * src->stride;
                int32_t *b = planes[i].data + (size_t)y * planes[i].stride;
                for (uint32_t x = 0; x < planes[i].width; x++) {
                    if (pc < 0) {
                        b[x] = a[x];
                    } else {
                        int32_t k = a[x];
                        if (k < 0)
                            k = 0;
                        if ((uint32_t)k >= s.jp2.pal_ne)
                            k = (int32_t)s.jp2.pal_ne - 1;
                        b[x] = s.jp2.pal[(size_t)k * s.jp2.pal_npc + (uint32_t)pc];
                    }
                }
            }
        }
    }
    if (L.icc && (st = tsr__jp2_icc_to_srgb(ctx, &L.prof, planes, planes[0].precision, d.threads)))
        goto out;
    if (result) {
        result->truncated = s.warn.truncated;
        result->warnings = s.warn.count;
        snprintf(result->warning, sizeof result->warning, "%s", s.warn.first);
    }
    st = TSR_OK;
out:
    if (tmp) {
        for (uint32_t c = 0; c < s.cs.ncomps; c++)
            tsr__free(ctx, tmp[c].data);
        tsr__free(ctx, tmp);
    }
    if (d.own_img) {
        tsr__free(ctx, img->data);
        img->data = NULL;
    }
    tsr__free(ctx, d.chunk);
    tsr__free(ctx, d.dst);
    tsr__free(ctx, d.t1_ws);
    layout_free(ctx, &L);
    close_stream(ctx, &s);
    return st;
}

tsr_status tsr_j2k_decode(tsr_ctx *ctx, const void *data, size_t len,
                          const tsr_j2k_decode_options *opt, tsr_j2k_plane *planes,
                          uint32_t num_planes, tsr_j2k_result *result)
{
    return decode_core(ctx, data, len, opt, planes, num_planes, NULL, NULL, NULL, NULL, result,
                       NULL);
}

tsr_status tsr_j2k_decode_alloc(tsr_ctx *ctx, const void *data, size_t len,
                                const tsr_j2k_decode_options *opt, tsr_j2k_plane **planes,
                                uint32_t *num_planes, tsr_j2k_result *result)
{
    if (!planes || !num_planes)
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT, "NULL output");
    *planes = NULL;
    *num_planes = 0;
    uint32_t n = 0;
    tsr_status st = tsr_j2k_decode_layout(ctx, data, len, opt, NULL, &n);
    if (st)
        return st;
    tsr_j2k_plane *p;
    if ((st = tsr__alloc(ctx, (n ? n : 1) * sizeof *p, (void **)&p)))
        return st;
    memset(p, 0, (n ? n : 1) * sizeof *p);
    st = tsr_j2k_decode_layout(ctx, data, len, opt, p, &n);
    const int threads = decode_threads(ctx, opt);
    for (uint32_t i = 0; !st && i < n; i++) {
        size_t b;
        if (!tsr__size_mul3(p[i].width ? p[i].width : 1, p[i].height ? p[i].height : 1,
                            sizeof(int32_t), &b)) {
            st = tsr__fail(ctx, TSR_ERR_OVERFLOW, "plane %u is too large", i);
            break;
        }
        st = tsr__alloc(ctx, b, (void **)&p[i].data);
        p[i].stride = p[i].width;
        if (!st)
            tsr__j2k_prefault(p[i].data, b, threads); /* fresh memory: populate it now */
    }
    if (!st)
        st = tsr_j2k_decode(ctx, data, len, opt, p, n, result);
    if (st) {
        tsr_status keep = st;
        char msg[sizeof ctx->message];
        memcpy(msg, ctx->message, sizeof msg);
        tsr_j2k_planes_free(ctx, p, n);
        memcpy(ctx->message, msg, sizeof msg);
        return keep;
    }
    *planes = p;
    *num_planes = n;
    return TSR_OK;
}

void tsr_j2k_planes_free(tsr_ctx *ctx, tsr_j2k_plane *planes, uint32_t num_planes)
{
    if (!planes)
        return;
    for (uint32_t i = 0; i < num_planes; i++)
        tsr__free(ctx, planes[i].data);
    tsr__free(ctx, planes);
}

/* ---- interleaved image output -------------------------------------------------------------- */

/* The image that n output planes make (1..4 planes of one non-empty size, at most 16 bits
 * each): *desc's size, channels and depth, tight stride, no data; else TSR_ERR_UNSUPPORTED
 * naming why. */
static tsr_status image_shape(tsr_ctx *ctx, const tsr_j2k_plane *p, uint32_t n, tsr_image *desc)
{
    if (n < 1 || n > 4)
        return tsr__fail(ctx, TSR_ERR_UNSUPPORTED,
                         "%u output components: an interleaved image holds 1 to 4", n);
    uint32_t maxprec = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (p[i].width != p[0].width || p[i].height != p[0].height)
            return tsr__fail(ctx, TSR_ERR_UNSUPPORTED,
                             "output components of different sizes (subsampling) make no "
                             "interleaved image");
        if (p[i].precision > maxprec)
            maxprec = p[i].precision;
    }
    if (maxprec > 16)
        return tsr__fail(ctx, TSR_ERR_UNSUPPORTED,
                         "%u-bit samples: an interleaved image holds at most 16 bits", maxprec);
    if (p[0].width == 0 || p[0].height == 0)
        return tsr__fail(ctx, TSR_ERR_UNSUPPORTED, "the decoded image is empty");
    if (p[0].width > INT32_MAX || p[0].height > INT32_MAX)
        return tsr__fail(ctx, TSR_ERR_LIMIT, "the decoded image (%ux%u) is too large", p[0].width,
                         p[0].height);
    memset(desc, 0, sizeof *desc);
    desc->width = (int32_t)p[0].width;
    desc->height = (int32_t)p[0].height;
    desc->channels = (int32_t)n;
    desc->depth = maxprec > 8 ? TSR_U16 : TSR_U8;
    desc->stride = (size_t)p[0].width * n * (maxprec > 8 ? 2 : 1);
    desc->memory = TSR_MEMORY_HOST;
    return TSR_OK;
}

/* The output planes (up to 4, into p; *n all of them) and the image for these options;
 * *direct: the tiles can write the image themselves (no palette, no sYCC, every output
 * component on one sampling grid), else it is made from decoded planes. */
static tsr_status image_layout(tsr_ctx *ctx, const void *data, size_t len,
                               const tsr_j2k_decode_options *opt, tsr_j2k_plane p[4], uint32_t *n,
                               tsr_image *desc, int *direct)
{
    stream s;
    layout L;
    memset(&L, 0, sizeof L);
    tsr_status st = check_options(ctx, opt);
    if (!st)
        st = open_stream(ctx, data, len, 1, &s);
    else
        memset(&s, 0, sizeof s);
    if (!st)
        st = make_layout(ctx, &s, opt, &L);
    if (!st) {
        *n = L.nout;
        describe(&s, &L, p, 4);
        st = image_shape(ctx, p, L.nout, desc);
    }
    if (!st) {
        *direct = !converted(&L);
        for (uint32_t i = 1; i < L.nout; i++) {
            const tsr__j2k_comp *a = &s.cs.comps[L.ch[0].comp], *b = &s.cs.comps[L.ch[i].comp];
            if (a->dx != b->dx || a->dy != b->dy)
                *direct = 0;
        }
    }
    layout_free(ctx, &L);
    close_stream(ctx, &s);
    return st;
}

tsr_status tsr_j2k_decode_image_layout(tsr_ctx *ctx, const void *data, size_t len,
                                       const tsr_j2k_decode_options *opt, tsr_image *desc)
{
    tsr_status st = tsr__enter(ctx);
    if (st)
        return st;
    if (!desc)
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT, "NULL image descriptor");
    tsr_j2k_decode_options dflt;
    opt = options_or_default(opt, &dflt);
    tsr_j2k_plane p[4];
    uint32_t n;
    int direct;
    return image_layout(ctx, data, len, opt, p, &n, desc, &direct);
}

/* tsr_j2k_decode_image(); later as decode_core's (NULL: a single decode). */
static tsr_status decode_image(tsr_ctx *ctx, const void *data, size_t len,
                               const tsr_j2k_decode_options *opt, tsr_image *out,
                               tsr_j2k_result *result, tsr__j2k_cuda_frame *later)
{
    tsr_status st = tsr__enter(ctx);
    if (st)
        return st;
    if (!out)
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT, "NULL output image");
    tsr_backend backend;
    if ((st = tsr__j2k_choose(ctx, "j2k decode", 1, out->memory == TSR_MEMORY_CUDA, &backend)))
        return st;
    const tsr_memory memory = backend == TSR_BACKEND_CUDA ? out->memory : TSR_MEMORY_HOST;
    tsr_j2k_decode_options dflt;
    opt = options_or_default(opt, &dflt);
    tsr_j2k_plane p[4];
    uint32_t n;
    int direct;
    tsr_image want;
    if ((st = image_layout(ctx, data, len, opt, p, &n, &want, &direct)))
        return st;
    if ((st = tsr_image_check(ctx, out)))
        return st;
    if (out->width != want.width || out->height != want.height || out->channels != want.channels ||
        out->depth != want.depth || out->memory != memory)
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT,
                         "the output image does not match the decode's (%dx%d, %d channels of "
                         "%s, %s memory)",
                         (int)want.width, (int)want.height, (int)want.channels,
                         want.depth == TSR_U8 ? "8 bits" : "16 bits",
                         memory == TSR_MEMORY_CUDA ? "device or host" : "host");
    if (backend == TSR_BACKEND_CUDA && !direct)
        return tsr__fail(ctx, TSR_ERR_UNSUPPORTED,
                         "j2k decode on cuda: JP2 palettes, sYCC or ICC colour conversion and "
                         "components on different sampling grids are decoded on the CPU only "
                         "(backend cpu or auto)");
    tsr__j2k_pixels pix;
    tsr__j2k_pixels_init(&pix, p, n, want.depth == TSR_U16);
    const int threads = decode_threads(ctx, opt);
    if (out->memory == TSR_MEMORY_HOST)
        tsr__j2k_prefault(out->data, out->stride * (size_t)(out->height - 1) + want.stride,
                          threads);
    if (direct)
        return decode_core(ctx, data, len, opt, p, n, out, &pix, NULL, NULL, result, later);
    /* Through the planes: decode, then pixels row by row. */
    tsr_j2k_plane *pl;
    uint32_t np;
    if ((st = tsr_j2k_decode_alloc(ctx, data, len, opt, &pl, &np, result)))
        return st;
    (void)threads;
#pragma omp parallel for schedule(static) num_threads(threads) if (threads > 1 && out->height > 64)
    for (int32_t y = 0; y < out->height; y++) {
        const int32_t *row[4] = {NULL, NULL, NULL, NULL};
        for (uint32_t c = 0; c < np && c < 4; c++)
            row[c] = pl[c].data + (size_t)y * pl[c].stride;
        tsr__j2k_pixels_row(&pix, row, (uint32_t)out->width,
                            (uint8_t *)out->data + (size_t)y * out->stride);
    }
    tsr_j2k_planes_free(ctx, pl, np);
    return TSR_OK;
}

tsr_status tsr_j2k_decode_image(tsr_ctx *ctx, const void *data, size_t len,
                                const tsr_j2k_decode_options *opt, tsr_image *out,
                                tsr_j2k_result *result)
{
    return decode_image(ctx, data, len, opt, out, result, NULL);
}

/* A batch item's outcome: its status, and on failure the context's message. */
static void item_done(tsr_ctx *ctx, tsr_j2k_decode_item *it, tsr_status st)
{
    it->status = st;
    if (st)
        snprintf(it->error, sizeof it->error, "%s", tsr_ctx_last_error(ctx));
}

/* The end of a batch frame whose decode returned deferred (decode_core's later): the verdict
 * from its status words, its host image's download kept or discarded, its result. */
static tsr_status frame_finish(tsr_ctx *ctx, tsr__j2k_cuda_frame *f, tsr_j2k_decode_item *it)
{
    tsr_status st = tsr__j2k_cuda_frame_end(ctx, f, TSR_OK);
    if (f->download) {
        const tsr_status d = tsr__j2k_cuda_download_finish(ctx, f->slot, st == TSR_OK);
        st = st ? st : d;
    }
    f->deferred = f->download = 0;
    if (!st) {
        it->result.truncated = f->kept.truncated;
        it->result.warnings = f->kept.count;
        snprintf(it->result.warning, sizeof it->result.warning, "%s", f->kept.first);
    }
    return st;
}

tsr_status tsr_j2k_decode_images(tsr_ctx *ctx, const tsr_j2k_decode_options *opt,
                                 tsr_j2k_decode_item *items, uint32_t count)
{
    tsr_status st = tsr__enter(ctx);
    if (st)
        return st;
    if (count && !items)
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT, "NULL items");
    for (uint32_t i = 0; i < count; i++) {
        items[i].status = TSR_ERR_INTERRUPTED;
        items[i].error[0] = '\0';
        memset(&items[i].result, 0, sizeof items[i].result);
    }
    /* item i's decode queued on the device (frames[i % 2]) while item i - 1's comes back */
    tsr__j2k_cuda_frame frames[TSR__J2K_CUDA_SLOTS];
    memset(frames, 0, sizeof frames);
    int on_cuda = 0, interrupted = 0;
    uint32_t done = 0;
    for (uint32_t i = 0; i <= count; i++) {
        if (i < count && !interrupted) {
            tsr__j2k_cuda_frame *f = &frames[i % TSR__J2K_CUDA_SLOTS];
            f->slot = i % TSR__J2K_CUDA_SLOTS;
            f->deferred = f->download = 0;
            tsr_j2k_decode_item *it = &items[i];
            st = decode_image(ctx, it->data, it->len, opt, &it->image, &it->result, f);
            on_cuda |= f->deferred;
            if (!f->deferred) {
                item_done(ctx, it, st);
                if (f->download) /* queued (in part) before the decode failed */
                    tsr__j2k_cuda_download_finish(ctx, f->slot, 0);
                interrupted |= st == TSR_ERR_INTERRUPTED ||
                               tsr__progress(ctx, "j2k decode images", ++done, count) != TSR_OK;
            }
        }
        tsr__j2k_cuda_frame *prev = i ? &frames[(i - 1) % TSR__J2K_CUDA_SLOTS] : NULL;
        if (prev && prev->deferred) {
            item_done(ctx, &items[i - 1], frame_finish(ctx, prev, &items[i - 1]));
            interrupted |= items[i - 1].status == TSR_ERR_INTERRUPTED ||
                           tsr__progress(ctx, "j2k decode images", ++done, count) != TSR_OK;
        }
    }
    if (on_cuda && (st = tsr__j2k_cuda_sync(ctx)))
        return st;
    for (uint32_t i = 0; i < count; i++)
        if (items[i].status == TSR_ERR_INTERRUPTED && !items[i].error[0])
            snprintf(items[i].error, sizeof items[i].error,
                     "j2k decode images: interrupted before this item");
    if (interrupted)
        return tsr__fail(ctx, TSR_ERR_INTERRUPTED,
                         "j2k decode images: interrupted after %u of %u items", done, count);
    for (uint32_t i = 0; i < count; i++)
        if (items[i].status)
            return tsr__fail(ctx, items[i].status, "item %u: %s", i, items[i].error);
    return TSR_OK;
}

tsr_status tsr_j2k_decode_rows(tsr_ctx *ctx, const void *data, size_t len,
                               const tsr_j2k_decode_options *opt, tsr_j2k_row_sink sink, void *user,
                               tsr_j2k_result *result)
{
    tsr_status st = tsr__enter(ctx);
    if (st)
        return st;
    if ((st = tsr__j2k_choose(ctx, "j2k decode", 1, 0, NULL)))
        return st;
    if (!sink)
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT, "NULL row sink");
    tsr_j2k_decode_options dflt;
    opt = options_or_default(opt, &dflt);
    tsr_j2k_plane p[4];
    uint32_t n;
    int direct;
    tsr_image img;
    if ((st = image_layout(ctx, data, len, opt, p, &n, &img, &direct)))
        return st;
    if (direct) {
        tsr__j2k_pixels pix;
        tsr__j2k_pixels_init(&pix, p, n, img.depth == TSR_U16);
        return decode_core(ctx, data, len, opt, p, n, &img, &pix, sink, user, result, NULL);
    }
    /* palette, sYCC or several grids: the image first */
    if ((st = tsr_image_alloc(ctx, &img, img.width, img.height, img.channels, img.depth)))
        return st;
    st = tsr_j2k_decode_image(ctx, data, len, opt, &img, result);
    if (!st)
        st = give_image(ctx, &img, sink, user);
    tsr_image_free(ctx, &img);
    return st;
}
