/* The JPEG 2000 decoder's public API and its orchestration, tile by tile:
 *   parse (jp2.c, markers.c) -> geometry (tcd.c) -> packets (t2.c, pi.c) -> code-blocks (t1.h,
 *   in parallel) with dequantisation (T.800 E.1) -> inverse DWT (dwt.c) -> inverse MCT (mct.c)
 *   -> DC level shift, rounding, clamping into the caller's planes -> JP2 palette and channels.
 *
 * Integration with Tier 1 (t1.h, written by another engineer): per code-block this file passes
 * the clipped size, the sub-band orientation, the style byte (0x40 set for HT code-blocks and
 * clear for Part-1 ones in mixed mode), the zero bit-planes and Mb = G + exp - 1 and the RGN
 * shift, and the codeword segments, each one contiguous (pieces from several layers are copied
 * together into a per-thread buffer). t1 writes integers (reversible) or values with one
 * fractional bit (irreversible, multiplied here by delta_b / 2) straight into the
 * tile-component's array.
 *
 * One note on t1.h's segment rule (section 2), no change needed to its code: for an HT block
 * whose cleanup has not been seen, the rule's "avail - (avail - 1) % 3" assumes the segment
 * starts at a pass index that is a multiple of 3. Placeholder passes included in earlier layers
 * need not come in threes (the HTJ2K conformance streams ds0_ht_04/05/06, ds1_ht_03 have such
 * blocks), so t2.c computes the cleanup segment as avail - (first + avail - 1) % 3 (T.814 B.3:
 * the cleanup pass is pass 3k counted over all layers) and calls the rule only once the cleanup
 * is known. The segments handed to t1 then satisfy its own reading: the last nonzero-length
 * cleanup segment ends at pass 3k. */
#include "j2k/j2k_int.h"
#include "j2k/t1.h"
#include "j2k/t1_internal.h"
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

/* ---- opening a stream ---------------------------------------------------------------------- */

typedef struct stream {
    tsr__jp2 jp2;
    tsr__j2k_cs cs;
    tsr__j2k_warn warn;
} stream;

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
    info->output_channels = s.jp2.pal_ne ? s.jp2.ncmap : cs->ncomps;
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

typedef struct out_chan {
    uint32_t comp; /* codestream component */
    int32_t pcol;  /* palette column, -1 for direct */
} out_chan;

typedef struct layout {
    uint32_t nout;
    out_chan *ch;        /* nout */
    uint8_t *mask;       /* ncomps: decode this component */
    tsr__j2k_window win; /* reference grid, absolute */
    uint32_t reduce;
    int palette;
    int sycc; /* JP2 sYCC: components 0-2 converted to sRGB on component 0's grid */
} layout;

static void layout_free(tsr_ctx *ctx, layout *L)
{
    tsr__free(ctx, L->ch);
    tsr__free(ctx, L->mask);
    memset(L, 0, sizeof *L);
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
    /* sYCC (colr EnumCS 18, IEC 61966-2-1 Amd 1): Y, Cb, Cr to R, G, B on the luma grid. */
    if (opt->apply_palette && !opt->components && !L->palette && s->jp2.enumcs == 18 && nout >= 3 &&
        L->ch[0].pcol < 0) {
        const tsr__j2k_comp *c0 = &cs->comps[L->ch[0].comp], *c1 = &cs->comps[L->ch[1].comp],
                            *c2 = &cs->comps[L->ch[2].comp];
        L->sycc = !c0->sgnd && !c1->sgnd && !c2->sgnd && c0->prec == c1->prec &&
                  c0->prec == c2->prec && c0->dx <= c1->dx && c0->dx <= c2->dx &&
                  c0->dy <= c1->dy && c0->dy <= c2->dy;
        if (!L->sycc)
            tsr__j2k_warnf((tsr__j2k_warn *)&s->warn,
                           "JP2 sYCC components of unequal precision or signedness: output as "
                           "decoded");
    }
    return TSR_OK;
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

/* sYCC to sRGB (IEC 61966-2-1 Amd 1, full range): chroma offset 2^(p-1), the nearest chroma
 * sample (replication on the component grids), R = Y + 1.402 Cr, G = Y - 0.344136 Cb -
 * 0.714136 Cr, B = Y + 1.772 Cb in float, rounded to nearest, clamped. (The JP2 conformance
 * references file2/file3 match this within 1; OpenJPEG's variant truncates instead.) */
static void sycc_to_rgb(const tsr__j2k_cs *cs, const layout *L, const tsr_j2k_plane *src,
                        tsr_j2k_plane *dst, int threads)
{
    uint32_t k0 = L->ch[0].comp, k1 = L->ch[1].comp, k2 = L->ch[2].comp;
    const tsr_j2k_plane *y = &src[k0], *u = &src[k1], *v = &src[k2];
    int32_t half = (int32_t)1 << (cs->comps[k0].prec - 1);
    int32_t maxv = (int32_t)(((int64_t)1 << cs->comps[k0].prec) - 1);
    uint32_t r1 = cs->comps[k1].dx / cs->comps[k0].dx, r2 = cs->comps[k2].dx / cs->comps[k0].dx;
    uint32_t q1 = cs->comps[k1].dy / cs->comps[k0].dy, q2 = cs->comps[k2].dy / cs->comps[k0].dy;
    (void)threads;
    int64_t h = y->height;
#pragma omp parallel for schedule(static) num_threads(threads) if (threads > 1 && h > 64)
    for (int64_t yy = 0; yy < h; yy++) {
        uint32_t Y = y->y0 + (uint32_t)yy;
        int64_t uy = (int64_t)(Y / (q1 ? q1 : 1)) - u->y0;
        int64_t vy = (int64_t)(Y / (q2 ? q2 : 1)) - v->y0;
        uy = uy < 0 ? 0 : uy >= u->height ? (int64_t)u->height - 1 : uy;
        vy = vy < 0 ? 0 : vy >= v->height ? (int64_t)v->height - 1 : vy;
        const int32_t *ly = y->data + (size_t)yy * y->stride;
        const int32_t *lu = u->height && u->width ? u->data + (size_t)uy * u->stride : NULL;
        const int32_t *lv = v->height && v->width ? v->data + (size_t)vy * v->stride : NULL;
        int32_t *o[3];
        for (int c = 0; c < 3; c++)
            o[c] = dst[c].data + (size_t)yy * dst[c].stride;
        for (uint32_t x = 0; x < y->width; x++) {
            uint32_t X = y->x0 + x;
            int64_t ux = (int64_t)(X / (r1 ? r1 : 1)) - u->x0;
            int64_t vx = (int64_t)(X / (r2 ? r2 : 1)) - v->x0;
            ux = ux < 0 ? 0 : ux >= u->width ? (int64_t)u->width - 1 : ux;
            vx = vx < 0 ? 0 : vx >= v->width ? (int64_t)v->width - 1 : vx;
            float fy = (float)ly[x];
            float cb = lu ? (float)(lu[ux] - half) : 0.0f, cr = lv ? (float)(lv[vx] - half) : 0.0f;
            float rgb[3] = {fy + 1.402f * cr, fy - 0.344136f * cb - 0.714136f * cr,
                            fy + 1.772f * cb};
            for (int c = 0; c < 3; c++) {
                long q = lrintf(rgb[c]);
                o[c][x] = (int32_t)(q < 0 ? 0 : q > maxv ? maxv : q);
            }
        }
    }
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

/* ---- tile decoding ------------------------------------------------------------------------- */

typedef struct dec {
    tsr_ctx *ctx;
    stream *s;
    const layout *L;
    tsr_j2k_plane *dst;   /* per codestream component: its plane (data NULL: none, or an image) */
    tsr_image *img;       /* tsr_j2k_decode_image: the output, else NULL */
    tsr__j2k_pixels pix;  /* the image's pixels (img) */
    uint32_t img_comp[4]; /* the image's channels: their codestream components (img) */
    /* tsr_j2k_decode_rows: the sink; img->data is NULL while the rows are streamed (a banded
     * tile that is the image packs them into chunk, chunk_rows rows of img->stride bytes), else
     * it is an image of the decode's own (own_img), handed to the sink at the end */
    tsr_j2k_row_sink sink;
    void *user;
    uint8_t *chunk;
    uint32_t chunk_rows;
    int own_img;
    int stopped; /* the sink asked to stop */
    uint32_t layers;
    int threads;
    void *t1_ws; /* threads * ws_size */
    size_t ws_size;
} dec;

/* Output of one decoded tile-component (tsr__j2k_store_plan, j2k_int.h); the row pass is in
 * store_row.h, compiled here and, for AVX2, in store_avx2.c. */
typedef tsr__j2k_store_plan store_plan;

#define STORE_ROW tsr__j2k_store_row_base
#define STORE_SCOPE
#include "j2k/store_row.h"

/* The plan of a tile-component whose decoded samples are at tc->data, into plane p's geometry
 * (p->data is not used). */
static store_plan store_plan_make(const tsr__j2k_tilecomp *tc, const tsr__j2k_comp *cp,
                                  int is_float, const tsr_j2k_plane *p)
{
    const tsr__j2k_res *top = &tc->res[tc->dec_res - 1];
    store_plan s;
    s.row = tsr__ht_simd() ? tsr__j2k_store_row_avx2 : tsr__j2k_store_row_base;
    s.src = tc->data;
    s.src_stride = tc->stride;
    s.p = p;
    s.is_float = is_float;
    s.src_x0 = top->x0;
    s.src_y0 = top->y0;
    s.x0 = top->x0 > p->x0 ? top->x0 : p->x0;
    s.y0 = top->y0 > p->y0 ? top->y0 : p->y0;
    s.x1 = top->x1 < (uint64_t)p->x0 + p->width ? top->x1 : (int64_t)p->x0 + p->width;
    s.y1 = top->y1 < (uint64_t)p->y0 + p->height ? top->y1 : (int64_t)p->y0 + p->height;
    if (cp->sgnd) {
        s.lo = -((int64_t)1 << (cp->prec - 1));
        s.hi = ((int64_t)1 << (cp->prec - 1)) - 1;
        s.shift = 0;
    } else {
        s.lo = 0;
        s.hi = ((int64_t)1 << cp->prec) - 1;
        s.shift = (int64_t)1 << (cp->prec - 1);
    }
    return s;
}

/* Row y's decoded samples of a plan, from column x0 of the tile-component's top resolution. */
static inline int32_t *src_row(const store_plan *s, int64_t y, int64_t x0)
{
    return s->src + (size_t)(y - s->src_y0) * s->src_stride + (size_t)(x0 - s->src_x0);
}

/* Whether codestream component c is an output of the decode (a plane with samples, or an image
 * channel). */
static int is_output(const dec *d, uint32_t c)
{
    if (!d->img)
        return d->dst[c].data != NULL;
    for (uint32_t i = 0; i < d->pix.n; i++)
        if (d->img_comp[i] == c)
            return 1;
    return 0;
}

/* Where row y (absolute, the top resolution) of an image output starts in the image memory
 * (d->img->data; NULL when y is not an image row), the image's channels being comps[]. */
static uint8_t *image_row(const dec *d, const store_plan *plan, const uint32_t *comps, int64_t y)
{
    const store_plan *s0 = &plan[comps[0]];
    if (y < s0->y0 || y >= s0->y1)
        return NULL;
    return (uint8_t *)d->img->data + (size_t)(y - s0->p->y0) * d->img->stride;
}

/* Row y (absolute, the top resolution) of a decoded tile: the inverse colour transform
 * (G.2 / G.3) of components 0..2 over rgb_w samples when rgb_w > 0 (their plans' sources), then
 * the output of the n components comps[], each through its plan: into its plane, or, for an
 * image (whose channels are then comps[0..n), of one geometry), in place followed by the
 * image row's pixels into out (the image row of y: image_row(), or a row of the chunk of
 * streamed rows). The row is done while it is in cache. */
static void output_row(const dec *d, const store_plan *plan, const uint32_t *comps, uint32_t n,
                       size_t rgb_w, int rev, int64_t y, uint8_t *out)
{
    if (rgb_w) {
        int32_t *r0 = src_row(&plan[0], y, plan[0].src_x0);
        int32_t *r1 = src_row(&plan[1], y, plan[1].src_x0);
        int32_t *r2 = src_row(&plan[2], y, plan[2].src_x0);
        if (rev)
            tsr__mct_rct_inverse(r0, r1, r2, rgb_w);
        else
            tsr__mct_ict_inverse((float *)r0, (float *)r1, (float *)r2, rgb_w);
    }
    for (uint32_t i = 0; i < n; i++) {
        const store_plan *s = &plan[comps[i]];
        if (y < s->y0 || y >= s->y1 || s->x1 <= s->x0)
            continue;
        const tsr_j2k_plane *p = s->p;
        s->row(s, y,
               d->img ? src_row(s, y, s->x0)
                      : p->data + (size_t)(y - p->y0) * p->stride + (size_t)(s->x0 - p->x0));
    }
    const store_plan *s0 = d->img ? &plan[comps[0]] : NULL;
    if (s0 && y >= s0->y0 && y < s0->y1 && s0->x1 > s0->x0) {
        const int32_t *px[4] = {NULL, NULL, NULL, NULL};
        for (uint32_t i = 0; i < n; i++)
            px[i] = src_row(&plan[comps[i]], y, s0->x0);
        const size_t pixel = (size_t)n * (d->pix.wide ? 2 : 1);
        tsr__j2k_pixels_row(&d->pix, px, (uint32_t)(s0->x1 - s0->x0),
                            out + (size_t)(s0->x0 - s0->p->x0) * pixel);
    }
}

/* Rows [ya, yb) through output_row(), with `threads` threads. */
static void output_rows(const dec *d, const store_plan *plan, const uint32_t *comps, uint32_t n,
                        size_t rgb_w, int rev, int64_t ya, int64_t yb, int threads)
{
    (void)threads;
#pragma omp parallel for schedule(static) num_threads(threads) if (threads > 1 && yb - ya > 32)
    for (int64_t y = ya; y < yb; y++)
        output_row(d, plan, comps, n, rgb_w, rev, y, d->img ? image_row(d, plan, comps, y) : NULL);
}

/* Whether the colour transform of a tile cannot be done: 1 components 0..2 of different sizes,
 * 2 mixed reversible and irreversible ones, 0 it can. */
static int mct_mismatch(const tsr__j2k_tile *t, const tsr__j2k_tcp *tcp)
{
    const tsr__j2k_tilecomp *a = &t->comps[0], *b = &t->comps[1], *c = &t->comps[2];
    if (a->data_w != b->data_w || a->data_w != c->data_w || a->data_h != b->data_h ||
        a->data_h != c->data_h)
        return 1;
    const int rev0 = tcp->tccps[0].qmfbid == 1;
    if (rev0 != (tcp->tccps[1].qmfbid == 1) || rev0 != (tcp->tccps[2].qmfbid == 1))
        return 2;
    return 0;
}

/* Whether every decoded tile-component has resolution dec_res - 1 - lv and the one below it,
 * with that resolution non-empty and of one geometry across them. */
static int same_level(const tsr__j2k_tile *t, uint32_t lv)
{
    const tsr__j2k_res *first = NULL;
    for (uint32_t c = 0; c < t->ncomps; c++) {
        const tsr__j2k_tilecomp *tc = &t->comps[c];
        if (tc->skip)
            continue;
        if (tc->dec_res < lv + 2)
            return 0;
        const tsr__j2k_res *r = &tc->res[tc->dec_res - 1 - lv];
        if (r->x1 <= r->x0 || r->y1 <= r->y0)
            return 0;
        if (first &&
            (r->x0 != first->x0 || r->y0 != first->y0 || r->x1 != first->x1 || r->y1 != first->y1))
            return 0;
        first = r;
    }
    return first != NULL;
}

/* Where the top resolution goes in bands (bands.c): image output, every decoded
 * tile-component with at least one level and the same (non-empty) top resolution, and a
 * colour transform that can be done (else the whole-tile path reports it in its turn). */
static int can_band(const dec *d, const tsr__j2k_tile *t, int bad_rgb)
{
    return d->img && !bad_rgb && same_level(t, 0);
}

/* Band rows per group for resolution dec_res - 1 - lv of a banded tile (lv 0: the top, 1: the
 * one below): at least 32, a multiple of every code-block height there; the lifting reach: 4
 * rows where a component is irreversible, else 2. */
static void bands_geometry(const tsr__j2k_tile *t, const tsr__j2k_tcp *tcp, uint32_t lv,
                           uint32_t *G, uint32_t *M)
{
    *G = 32;
    *M = 2;
    for (uint32_t c = 0; c < t->ncomps; c++) {
        const tsr__j2k_tilecomp *tc = &t->comps[c];
        if (tc->skip)
            continue;
        for (uint32_t b = 0; b < 3; b++) {
            const uint32_t h = 1u << tc->res[tc->dec_res - 1 - lv].bands[b].ycb;
            if (h > *G)
                *G = h;
        }
        if (tcp->tccps[c].qmfbid != 1)
            *M = 4;
    }
}

/* Groups of a banded tile (the same for every component). */
static uint32_t bands_groups(const tsr__j2k_tile *t, const tsr__j2k_bands *bands)
{
    for (uint32_t c = 0; c < t->ncomps; c++)
        if (!t->comps[c].skip)
            return bands[c].g_last - bands[c].g_first + 1;
    return 0;
}

/* Whether every decoded component of a banded tile is an image channel whose top resolution is
 * the whole image (its plane): then the tile's output rows are the image's rows. */
static int top_is_image(const dec *d, const tsr__j2k_tile *t)
{
    for (uint32_t c = 0; c < t->ncomps; c++) {
        const tsr__j2k_tilecomp *tc = &t->comps[c];
        if (tc->skip)
            continue;
        const tsr__j2k_res *top = &tc->res[tc->dec_res - 1];
        const tsr_j2k_plane *p = &d->dst[c];
        if (!is_output(d, c) || top->x0 != p->x0 || top->y0 != p->y0 ||
            top->x1 - top->x0 != p->width || top->y1 - top->y0 != p->height)
            return 0;
    }
    return 1;
}

/* Whether the resolution below the top of a banded tile can live in the output image's own
 * memory, and then its row length in bytes (*lrow; the decoded components' rows side by side).
 * Its rows are read only by the window fill (bands.c), and group k's fill has copied every low
 * row of the positions before T (its span's end) before the group's output rows, which end at
 * T - M at most (M >= 2), are written. With the image's row i at i S bytes (the image equal to
 * the top resolution of the one tile: image row i is position y0 + i) and low row q at q lrow,
 * lrow >= 2 S: the rows not yet copied are q >= ceil((y0 + T) / 2) - ceil(y0 / 2) >= (T - 1) / 2,
 * at bytes >= (T - 1) S, beyond every image row written so far (< (T - M) S). The last group
 * writes the rest after its fill has copied every low row. So where, in addition, the low rows
 * fit in the image's bytes, no image row overwrites a low row still to be read. In practice: 8-bit
 * tight images of even width and height (then lrow = 2 S and the low rows fill the image). The
 * caller's image is fully written by the output rows in any case. */
static int low_in_image(const dec *d, const tsr__j2k_tile *t, size_t *lrow)
{
    const tsr_image *img = d->img;
    if (!img || !img->data || d->pix.wide || ((uintptr_t)img->data & 3) || img->height < 1 ||
        !top_is_image(d, t))
        return 0;
    const size_t S = img->stride,
                 bytes = S * (size_t)(img->height - 1) + (size_t)img->width * d->pix.n;
    size_t row = 0, rows = 0;
    uint32_t n = 0;
    for (uint32_t c = 0; c < t->ncomps; c++) {
        const tsr__j2k_tilecomp *tc = &t->comps[c];
        if (tc->skip)
            continue;
        const tsr__j2k_res *low = &tc->res[tc->dec_res - 2];
        row += (size_t)4 * (low->x1 - low->x0);
        rows = low->y1 - low->y0;
        n++;
    }
    if (n != d->pix.n || row < 2 * S || rows > bytes / row)
        return 0;
    *lrow = row;
    return 1;
}

/* Whether the resolution below the top of a banded tile goes in bands too (its rows then pass
 * through a ring to the top's windows, and only the resolution below it is whole): where the
 * rows are streamed (no image memory to keep that resolution in, low_in_image), every decoded
 * component has that resolution and the one below it, of one geometry. */
static int below_in_bands(const dec *d, const tsr__j2k_tile *t)
{
    return d->img && !d->img->data && same_level(t, 1);
}

/* The memory of a banded tile in one block (*mem, prefaulted): per decoded component its
 * bands (*bands, one per component), those of the resolution below when that is in bands too
 * (*below, else NULL) with the ring its rows pass through (*ring), and the whole resolution
 * below the last one in bands (its tc->data), unless that is in the output image
 * (low_in_image). */
static tsr_status bands_alloc(dec *d, tsr__j2k_tile *t, const tsr__j2k_tcp *tcp, int threads,
                              tsr__j2k_bands **bands, tsr__j2k_bands **below, int32_t **mem,
                              int32_t **ring)
{
    tsr_ctx *ctx = d->ctx;
    uint32_t G, M, G1 = 0;
    bands_geometry(t, tcp, 0, &G, &M);
    const uint32_t lv = below_in_bands(d, t) ? 2 : 1; /* levels in bands */
    if (lv == 2)
        bands_geometry(t, tcp, 1, &G1, &M);
    size_t lrow = 0;
    const int in_image = lv == 1 && low_in_image(d, t, &lrow);
    size_t total = 0, n = 0;
    for (uint32_t c = 0; c < t->ncomps; c++) {
        const tsr__j2k_tilecomp *tc = &t->comps[c];
        if (tc->skip)
            continue;
        const tsr__j2k_res *low = &tc->res[tc->dec_res - 1 - lv];
        size_t m = tsr__j2k_bands_size(tc, tc->dec_res - 1, G, M);
        if (lv == 2)
            m += tsr__j2k_bands_size(tc, tc->dec_res - 2, G1, M);
        if ((!in_image &&
             !tsr__size_mul((size_t)(low->x1 - low->x0), (size_t)(low->y1 - low->y0), &n)) ||
            n > SIZE_MAX - m || total > SIZE_MAX - n - m)
            return tsr__fail(ctx, TSR_ERR_OVERFLOW, "tile %u is too large", t->index);
        total += n + m;
    }
    size_t bytes;
    tsr_status st;
    if (!tsr__size_mul(total ? total : 1, sizeof(int32_t), &bytes))
        return tsr__fail(ctx, TSR_ERR_OVERFLOW, "tile %u is too large", t->index);
    if ((st = tsr__alloc(ctx, (size_t)t->ncomps * lv * sizeof **bands, (void **)bands)))
        return st;
    memset(*bands, 0, (size_t)t->ncomps * lv * sizeof **bands);
    *below = lv == 2 ? *bands + t->ncomps : NULL;
    if ((st = tsr__alloc(ctx, bytes, (void **)mem)))
        return st;
    if (bytes >= ((size_t)1 << 20))
        tsr__j2k_prefault(*mem, bytes, threads); /* fresh memory: populate it now */
    int32_t *at = *mem, *img_at = in_image ? (int32_t *)d->img->data : NULL;
    uint32_t c0 = t->ncomps, ndec = 0;
    for (uint32_t c = 0; c < t->ncomps; c++) {
        tsr__j2k_tilecomp *tc = &t->comps[c];
        if (tc->skip)
            continue;
        c0 = c0 < c ? c0 : c;
        ndec++;
        const tsr__j2k_res *low = &tc->res[tc->dec_res - 1 - lv];
        tc->external = 1; /* freed with the block, or the image's */
        if (in_image) {
            tc->data = img_at;
            tc->stride = lrow / 4;
            img_at += low->x1 - low->x0;
        } else {
            tc->data = at;
            tc->stride = low->x1 - low->x0;
            at += tc->stride * (size_t)(low->y1 - low->y0);
        }
        for (uint32_t l = 0; l < lv; l++) {
            const uint32_t r = tc->dec_res - 1 - l, g = l ? G1 : G;
            if (tsr__j2k_bands_init(&(*bands)[c + l * t->ncomps], tc, r, g, M, at))
                return tsr__fail(ctx, TSR_ERR_INTERNAL, "tile %u: band window overflows", t->index);
            at += tsr__j2k_bands_size(tc, r, g, M);
        }
    }
    if (lv == 1)
        return TSR_OK;
    /* the ring: per component cap rows of the resolution below the top */
    const uint32_t cap = tsr__j2k_bands_ring_rows(&(*bands)[c0], &(*below)[c0]),
                   rw1 = (*below)[c0].rw;
    if (!tsr__size_mul3((size_t)cap * ndec, rw1, sizeof(int32_t), &bytes))
        return tsr__fail(ctx, TSR_ERR_OVERFLOW, "tile %u is too large", t->index);
    if ((st = tsr__alloc(ctx, bytes, (void **)ring)))
        return st;
    if (bytes >= ((size_t)1 << 20))
        tsr__j2k_prefault(*ring, bytes, threads);
    at = *ring;
    for (uint32_t c = 0; c < t->ncomps; c++) {
        if (t->comps[c].skip)
            continue;
        tsr__j2k_bands *top = &(*bands)[c];
        top->low = at;
        top->low_stride = rw1;
        top->low_cap = cap;
        at += (size_t)cap * rw1;
    }
    return TSR_OK;
}

/* The output of a whole decoded tile (planes or image) through output_rows(). */
static void output_tile(const dec *d, const tsr__j2k_tile *t, const store_plan *plans,
                        uint32_t *outs, uint32_t nout, int rgb, int rev, int threads)
{
    const int64_t y0 = t->comps[0].res[t->comps[0].dec_res - 1].y0;
    if (d->img) {
        /* one pass over the rows of all channels (of one geometry) */
        const store_plan *p0 = &plans[outs[0]];
        output_rows(d, plans, outs, nout, rgb ? t->comps[0].data_w : 0, rev, rgb ? y0 : p0->y0,
                    rgb ? y0 + (int64_t)t->comps[0].data_h : p0->y1, threads);
        return;
    }
    /* components 0..2 with their colour transform, then the others one by one */
    uint32_t k = 0;
    if (rgb) {
        while (k < nout && outs[k] < 3)
            k++;
        output_rows(d, plans, outs, k, t->comps[0].data_w, rev, y0,
                    y0 + (int64_t)t->comps[0].data_h, threads);
    }
    for (; k < nout; k++)
        output_rows(d, plans, outs + k, 1, 0, 0, plans[outs[k]].y0, plans[outs[k]].y1, threads);
}

/* Rows [ya, yb) of a banded tile's group through output_row() by the calling team (a
 * worksharing loop with its barrier): into the image, or, while rows are streamed, in chunks of
 * d->chunk_rows packed into d->chunk, each handed to the sink by one thread once packed (the
 * next chunk waits for it, so the rows go out in order). Returns d->stopped (the same in every
 * thread: it is written in the single construct, read after its barrier). */
static int group_rows(dec *d, const store_plan *plans, const uint32_t *outs, uint32_t nout,
                      size_t rgb_w, int rev, int64_t ya, int64_t yb)
{
    if (d->img->data) {
#pragma omp for schedule(static)
        for (int64_t y = ya; y < yb; y++)
            output_row(d, plans, outs, nout, rgb_w, rev, y, image_row(d, plans, outs, y));
        return 0;
    }
    const size_t S = d->img->stride;
    const int64_t y0 = plans[outs[0]].p->y0; /* the image's first row (top_is_image) */
    for (int64_t c0 = ya; c0 < yb && !d->stopped; c0 += d->chunk_rows) {
        const int64_t c1 = yb - c0 < d->chunk_rows ? yb : c0 + d->chunk_rows;
#pragma omp for schedule(static)
        for (int64_t y = c0; y < c1; y++)
            output_row(d, plans, outs, nout, rgb_w, rev, y, d->chunk + (size_t)(y - c0) * S);
#pragma omp single
        d->stopped = d->sink(d->user, d->chunk, S, (uint32_t)(c0 - y0), (uint32_t)(c1 - c0)) != 0;
    }
    return d->stopped;
}

/* The top resolution of a banded tile, group by group: its code-blocks (jobs of key 1 + the
 * group), the rows they complete in each component's window, their colour transform and
 * output (group_rows); then the jobs' warnings, or the error of a block that could not be
 * decoded, or TSR_ERR_INTERRUPTED when the row sink stopped the decode. Where the resolution
 * below is in bands too (below), its groups due before a top group (tsr__j2k_bands_due) run first,
 * in the same steps, their completed rows passed up into the ring the top's windows read. One
 * parallel region for the whole tile: each group's steps are worksharing loops of its team,
 * separated by their barriers (the code-blocks and the window fill share one). */
static tsr_status output_bands(dec *d, const tsr__j2k_tcp *tcp, const tsr__j2k_tile *t,
                               const tsr__j2k_t2 *t2, tsr__j2k_jobs *J, const tsr__j2k_bands *bands,
                               const tsr__j2k_bands *below, store_plan *plans, const uint32_t *outs,
                               uint32_t nout, int rgb, int32_t *scratch, size_t per, int threads,
                               void *ws)
{
    uint32_t c0 = 0;
    while (t->comps[c0].skip)
        c0++;
    const tsr__j2k_res *top = &t->comps[c0].res[t->comps[c0].dec_res - 1];
    const tsr__j2k_bands *b0 = &bands[c0];
    const uint32_t ngroups = b0->g_last - b0->g_first + 1;
    const int rev = tcp->tccps[0].qmfbid == 1;
    (void)threads;
#pragma omp parallel num_threads(threads) if (threads > 1)
    for (uint32_t k = 0, g = 0, failed = 0; k < ngroups; k++) {
        /* J->fatal is written only by the jobs and read after the barrier that ends them (and
         * before the next barrier), so every thread leaves at the same group */
        while (below && tsr__j2k_bands_due(b0, &below[c0], k, g)) {
            tsr__j2k_jobs_run_team(J, tcp, t, t2, ngroups + 1 + g, ws, d->ws_size);
            tsr__j2k_bands_fill(below, t, g);
            if ((failed = J->fatal != TSR_OK))
                break;
            tsr__j2k_bands_dwt(below, t, tcp, g, scratch, per);
            tsr__j2k_bands_pass_up(below, bands, t, g++);
        }
        if (failed)
            break;
        tsr__j2k_jobs_run_team(J, tcp, t, t2, k + 1, ws, d->ws_size);
        tsr__j2k_bands_fill(bands, t, k);
        if (J->fatal)
            break;
#pragma omp single nowait
        for (uint32_t c = 0; c < t->ncomps; c++) {
            if (t->comps[c].skip)
                continue;
            plans[c].src = bands[c].win;
            plans[c].src_stride = b0->rw;
            plans[c].src_x0 = top->x0;
            plans[c].src_y0 = (int64_t)top->y0 + b0->span[4 * k + 2];
        }
        tsr__j2k_bands_dwt(bands, t, tcp, k, scratch, per);
        const int64_t ya = (int64_t)top->y0 + b0->span[4 * k],
                      yb = (int64_t)top->y0 + b0->span[4 * k + 1];
        if (group_rows(d, plans, outs, nout, rgb ? b0->rw : 0, rev, ya, yb))
            break;
    }
    tsr_status st = tsr__j2k_jobs_finish(d->ctx, J, t, &d->s->warn);
    if (!st && d->stopped)
        st = tsr__fail(d->ctx, TSR_ERR_INTERRUPTED, "j2k decode: stopped by the row sink");
    return st;
}

/* Row output (d->sink): an image of the decode's own for the rows to go to, when they cannot
 * be streamed (populated now, like a caller's image in tsr_j2k_decode_image). */
static tsr_status own_image(dec *d, int threads)
{
    tsr_image *img = d->img;
    const size_t bytes = img->stride * (size_t)img->height; /* tsr_image_check bounds it */
    tsr_status st = tsr__alloc(d->ctx, bytes, &img->data);
    if (st)
        return st;
    d->own_img = 1;
    tsr__j2k_prefault(img->data, bytes, threads);
    return TSR_OK;
}

/* Streamed rows: the chunk the output rows are packed into before each sink call, about
 * 256 KB (the rows are still in the L2 cache when the sink writes them), at least 8 rows per
 * thread, at most the image. */
static tsr_status chunk_alloc(dec *d, int threads)
{
    const size_t S = d->img->stride, h = (size_t)d->img->height;
    size_t rows = ((size_t)256 << 10) / S;
    if (rows < (size_t)8 * threads)
        rows = (size_t)8 * threads;
    d->chunk_rows = (uint32_t)(rows < h ? rows : h);
    return tsr__alloc(d->ctx, (size_t)d->chunk_rows * S, (void **)&d->chunk);
}

/* Decodes one tile with `threads` threads (code-block, DWT and output passes) and the Tier-1
 * workspaces at ws (threads of them). */
static tsr_status decode_tile(dec *d, uint32_t tile, int threads, void *ws)
{
    tsr_ctx *ctx = d->ctx;
    tsr__j2k_cs *cs = &d->s->cs;
    const layout *L = d->L;
    tsr__j2k_tcp tcp;
    tsr__j2k_tile t;
    tsr__j2k_t2 t2;
    uint8_t *ppt = NULL, *body_cat = NULL, *hdr_cat = NULL;
    size_t ppt_len = 0;
    int32_t *scratch = NULL;
    store_plan *plans = NULL;
    uint32_t *outs = NULL;
    tsr__j2k_bands *bands = NULL;       /* per component (banded) */
    tsr__j2k_bands *below = NULL;       /* per component, the resolution below the top (in bands) */
    int32_t *bmem = NULL, *ring = NULL; /* their memory */
    tsr__j2k_jobs jobs;
    memset(&jobs, 0, sizeof jobs);
    memset(&tcp, 0, sizeof tcp);
    memset(&t, 0, sizeof t);
    memset(&t2, 0, sizeof t2);
    tsr_status st = tsr__j2k_tile_params(ctx, cs, tile, &tcp, &ppt, &ppt_len);
    if (st)
        goto out;
    /* With a colour transform, components 0..2 are decoded together. */
    uint8_t *mask = L->mask;
    int mct = tcp.mct && cs->ncomps >= 3;
    uint8_t *mask_copy = NULL;
    if (mct && (mask[0] || mask[1] || mask[2]) && !(mask[0] && mask[1] && mask[2])) {
        if ((st = tsr__alloc(ctx, cs->ncomps, (void **)&mask_copy)))
            goto out;
        memcpy(mask_copy, mask, cs->ncomps);
        mask_copy[0] = mask_copy[1] = mask_copy[2] = 1;
        mask = mask_copy;
    }
    st = tsr__tcd_init(ctx, cs, &tcp, tile, L->reduce, mask, &L->win, &t);
    tsr__free(ctx, mask_copy);
    if (st)
        goto out;
    /* Samples: for the top resolution in bands (image output, bands.c) the resolution below
     * (or, with that one in bands too, the one below it: bands_alloc) and the band buffers;
     * else in place in the destination plane when the tile-component lies inside it (tiles
     * are disjoint), else a buffer of its own. Every coefficient is written by its code-block
     * job. */
    const int rgb = mct && !t.comps[0].skip;
    const int banded = can_band(d, &t, rgb && mct_mismatch(&t, &tcp));
    if (d->sink && !d->img->data) {
        /* rows for a sink: streamed where the tile is the image, else into an image first */
        st = banded && top_is_image(d, &t) ? chunk_alloc(d, threads) : own_image(d, threads);
        if (st)
            goto out;
    }
    if (banded && (st = bands_alloc(d, &t, &tcp, threads, &bands, &below, &bmem, &ring)))
        goto out;
    for (uint32_t c = 0; c < t.ncomps && !banded; c++) {
        tsr__j2k_tilecomp *tc = &t.comps[c];
        if (tc->skip)
            continue;
        const tsr__j2k_res *top = &tc->res[tc->dec_res - 1];
        const tsr_j2k_plane *p = &d->dst[c];
        if (p->data && top->x0 >= p->x0 && top->y0 >= p->y0 &&
            (uint64_t)top->x1 <= (uint64_t)p->x0 + p->width &&
            (uint64_t)top->y1 <= (uint64_t)p->y0 + p->height) {
            tc->data = p->data + (size_t)(top->y0 - p->y0) * p->stride + (top->x0 - p->x0);
            tc->stride = p->stride;
            tc->external = 1;
            continue;
        }
        size_t bytes;
        if (!tsr__size_mul3(tc->data_w ? tc->data_w : 1, tc->data_h ? tc->data_h : 1,
                            sizeof(int32_t), &bytes)) {
            st = tsr__fail(ctx, TSR_ERR_OVERFLOW, "tile %u component %u is too large", tile, c);
            goto out;
        }
        if ((st = tsr__alloc(ctx, bytes, (void **)&tc->data)))
            goto out;
        if (bytes >= ((size_t)1 << 20))
            tsr__j2k_prefault(tc->data, bytes, threads); /* fresh memory: populate it now */
        tc->stride = tc->data_w;
    }
    /* The tile's data: its tile-parts' bodies (and packed headers) in order. */
    const uint8_t *body, *hdr = NULL;
    size_t body_len = 0, hdr_len = 0;
    uint32_t ntp = 0;
    for (uint32_t i = cs->tile_first[tile]; i != UINT32_MAX; i = cs->tps[i].next) {
        ntp++;
        body_len += cs->tps[i].body_len;
        hdr_len += cs->tps[i].ppm_len;
    }
    uint32_t f = cs->tile_first[tile];
    if (ntp == 1) {
        body = cs->data + cs->tps[f].body_off;
        if (cs->ppm) {
            hdr = cs->ppm + cs->tps[f].ppm_off;
            hdr_len = cs->tps[f].ppm_len;
        }
    } else {
        if ((st = tsr__alloc(ctx, body_len ? body_len : 1, (void **)&body_cat)))
            goto out;
        size_t at = 0, hat = 0;
        if (cs->ppm && (st = tsr__alloc(ctx, hdr_len ? hdr_len : 1, (void **)&hdr_cat)))
            goto out;
        for (uint32_t i = f; i != UINT32_MAX; i = cs->tps[i].next) {
            memcpy(body_cat + at, cs->data + cs->tps[i].body_off, cs->tps[i].body_len);
            at += cs->tps[i].body_len;
            if (cs->ppm) {
                memcpy(hdr_cat + hat, cs->ppm + cs->tps[i].ppm_off, cs->tps[i].ppm_len);
                hat += cs->tps[i].ppm_len;
            }
        }
        body = body_cat;
        hdr = hdr_cat;
    }
    if (ppt) {
        hdr = ppt;
        hdr_len = ppt_len;
    }
    if (cs->ppm && !hdr)
        hdr = (const uint8_t *)"";
    st = tsr__t2_decode(ctx, cs, &tcp, &t, body, body_len, hdr, hdr_len, d->layers,
                        ntp == 1 ? cs->base + cs->tps[f].body_off : SIZE_MAX, &t2, &d->s->warn);
    if (st)
        goto out;
    /* Code-blocks (all, or those below the resolutions in bands), then the inverse DWT (all
     * levels, or those below the resolutions in bands). */
    if ((st = tsr__j2k_jobs_make(
             ctx, &t, &t2, banded ? bands : NULL, below,
             banded ? bands_groups(&t, bands) + (below ? bands_groups(&t, below) : 0) + 1 : 1,
             threads, &jobs)))
        goto out;
    tsr__j2k_jobs_run(&jobs, &tcp, &t, &t2, 0, threads, ws, d->ws_size);
    if (!banded || jobs.fatal) {
        if ((st = tsr__j2k_jobs_finish(ctx, &jobs, &t, &d->s->warn)))
            goto out;
    }
    size_t per = 0;
    for (uint32_t c = 0; c < t.ncomps; c++)
        if (!t.comps[c].skip && tsr__dwt_scratch_per_thread(&t.comps[c]) > per)
            per = tsr__dwt_scratch_per_thread(&t.comps[c]);
    size_t sbytes;
    if (!tsr__size_mul3(per ? per : 1, (size_t)threads, sizeof(int32_t), &sbytes)) {
        st = tsr__fail(ctx, TSR_ERR_OVERFLOW, "tile %u: DWT scratch overflows", tile);
        goto out;
    }
    if ((st = tsr__alloc(ctx, sbytes, (void **)&scratch)))
        goto out;
    for (uint32_t c = 0; c < t.ncomps; c++) {
        tsr__j2k_tilecomp *tc = &t.comps[c];
        if (tc->skip)
            continue;
        const uint32_t nres = tc->dec_res - (below ? 2 : banded ? 1 : 0);
        if (tcp.tccps[c].qmfbid == 1)
            tsr__dwt53_inverse2(tc, nres, scratch, threads);
        else
            tsr__dwt97_inverse2(tc, nres, scratch, threads);
    }
    /* Inverse colour transform (G.2 / G.3) and output. */
    const int bad_rgb = rgb ? mct_mismatch(&t, &tcp) : 0;
    if (bad_rgb) {
        st = tsr__fail(ctx, TSR_ERR_CORRUPT,
                       bad_rgb == 1 ? "tile %u: colour transform over components of different "
                                      "sizes"
                                    : "tile %u: colour transform over mixed "
                                      "reversible/irreversible components",
                       tile);
        goto out;
    }
    if ((st = tsr__alloc(ctx, (size_t)t.ncomps * (sizeof *plans + sizeof *outs), (void **)&plans)))
        goto out;
    outs = (uint32_t *)(plans + t.ncomps);
    uint32_t nout = 0;
    for (uint32_t c = 0; c < t.ncomps; c++)
        if (!t.comps[c].skip) {
            plans[c] =
                store_plan_make(&t.comps[c], &cs->comps[c], tcp.tccps[c].qmfbid != 1, &d->dst[c]);
            if (is_output(d, c))
                outs[nout++] = c;
        }
    if (d->img) /* the image's channels in channel order */
        for (nout = 0; nout < d->pix.n; nout++)
            outs[nout] = d->img_comp[nout];
    const int rev = tcp.tccps[0].qmfbid == 1;
    if (banded)
        st = output_bands(d, &tcp, &t, &t2, &jobs, bands, below, plans, outs, nout, rgb, scratch,
                          per, threads, ws);
    else
        output_tile(d, &t, plans, outs, nout, rgb, rev, threads);
out:
    tsr__j2k_jobs_free(ctx, &jobs);
    tsr__free(ctx, bands);
    tsr__free(ctx, bmem);
    tsr__free(ctx, ring);
    tsr__free(ctx, plans);
    tsr__free(ctx, scratch);
    tsr__free(ctx, ppt);
    tsr__free(ctx, body_cat);
    tsr__free(ctx, hdr_cat);
    tsr__t2_free(ctx, &t2);
    tsr__tcd_free(ctx, &t);
    tsr__j2k_tcp_free(ctx, &tcp);
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

/* Hands a whole image to a row sink (tsr_j2k_decode_rows), in one call. */
static tsr_status give_image(tsr_ctx *ctx, const tsr_image *img, tsr_j2k_row_sink sink, void *user)
{
    if (sink(user, img->data, img->stride, 0, (uint32_t)img->height))
        return tsr__fail(ctx, TSR_ERR_INTERRUPTED, "j2k decode: stopped by the row sink");
    return TSR_OK;
}

/* tsr_j2k_decode(), or with img != NULL the direct case of tsr_j2k_decode_image(): planes are
 * then the layout's (data NULL) and the samples go to img as pix describes; with a sink (that
 * of tsr_j2k_decode_rows) img is a descriptor without data, and the rows go to the sink. */
static tsr_status decode_core(tsr_ctx *ctx, const void *data, size_t len,
                              const tsr_j2k_decode_options *opt, tsr_j2k_plane *planes,
                              uint32_t num_planes, tsr_image *img, const tsr__j2k_pixels *pix,
                              tsr_j2k_row_sink sink, void *user, tsr_j2k_result *result)
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
        if (L.palette || L.sycc || num_planes != pix->n) {
            st = tsr__fail(ctx, TSR_ERR_INTERNAL, "image output of a palette or sYCC image");
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
    if (L.palette || L.sycc) {
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
    {
        size_t b;
        if (!tsr__size_mul(d.ws_size, (size_t)d.threads, &b)) {
            st = TSR_ERR_OVERFLOW;
            goto out;
        }
        if ((st = tsr__alloc(ctx, b ? b : 1, &d.t1_ws)))
            goto out;
    }
    /* The tiles to decode (those meeting the window and holding data). Each writes every
     * sample of the planes inside it (tier1() writes every coefficient, the output pass every
     * sample), so the planes are cleared only where a tile without data leaves a hole. */
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
    /* rows are streamed only from a single banded tile (decode_tile decides) */
    if (sink && (ntodo != 1 || hole) && (st = own_image(&d, d.threads))) {
        tsr__free(ctx, todo);
        goto out;
    }
    if (hole && img)
        fill_zero_pixels(img, &d.pix, d.threads);
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
    if (d.threads > 1 && ntodo >= 2 * (uint32_t)d.threads) {
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
            tsr_status r = decode_tile(&d, todo[i], 1, (char *)d.t1_ws + (size_t)tid * d.ws_size);
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
            st = decode_tile(&d, todo[i], d.threads, d.t1_ws);
            if (!st)
                st = tsr__progress(ctx, "j2k decode", i + 1, ntodo);
        }
    }
    tsr__free(ctx, todo);
    if (st)
        goto out;
    if (d.own_img && (st = give_image(ctx, img, sink, user)))
        goto out;
    if (L.sycc)
        sycc_to_rgb(&s.cs, &L, tmp, planes, d.threads);
    if (L.palette || L.sycc) {
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
    return decode_core(ctx, data, len, opt, planes, num_planes, NULL, NULL, NULL, NULL, result);
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
        *direct = !L.palette && !L.sycc;
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

tsr_status tsr_j2k_decode_image(tsr_ctx *ctx, const void *data, size_t len,
                                const tsr_j2k_decode_options *opt, tsr_image *out,
                                tsr_j2k_result *result)
{
    tsr_status st = tsr__enter(ctx);
    if (st)
        return st;
    if (!out)
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT, "NULL output image");
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
        out->depth != want.depth || out->memory != TSR_MEMORY_HOST)
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT,
                         "the output image does not match the decode's (%dx%d, %d channels of "
                         "%s, host memory)",
                         (int)want.width, (int)want.height, (int)want.channels,
                         want.depth == TSR_U8 ? "8 bits" : "16 bits");
    tsr__j2k_pixels pix;
    tsr__j2k_pixels_init(&pix, p, n, want.depth == TSR_U16);
    const int threads = decode_threads(ctx, opt);
    tsr__j2k_prefault(out->data, out->stride * (size_t)(out->height - 1) + want.stride, threads);
    if (direct)
        return decode_core(ctx, data, len, opt, p, n, out, &pix, NULL, NULL, result);
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

tsr_status tsr_j2k_decode_rows(tsr_ctx *ctx, const void *data, size_t len,
                               const tsr_j2k_decode_options *opt, tsr_j2k_row_sink sink, void *user,
                               tsr_j2k_result *result)
{
    tsr_status st = tsr__enter(ctx);
    if (st)
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
        return decode_core(ctx, data, len, opt, p, n, &img, &pix, sink, user, result);
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
