/* Codestream syntax: main header, tile-part headers and the tile-part index (T.800 Annex A;
 * T.814 A for CAP and the HT code-block style). Every field is validated before use; errors name
 * the marker and the byte offset in the file. */
#include "j2k/decode_stages.h"
#include "j2k/fast_coder.h"
#include "j2k/reader.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

enum {
    M_SOC = 0xFF4F,
    M_CAP = 0xFF50,
    M_SIZ = 0xFF51,
    M_COD = 0xFF52,
    M_COC = 0xFF53,
    M_TLM = 0xFF55,
    M_PLM = 0xFF57,
    M_PLT = 0xFF58,
    M_CPF = 0xFF59,
    M_QCD = 0xFF5C,
    M_QCC = 0xFF5D,
    M_RGN = 0xFF5E,
    M_POC = 0xFF5F,
    M_PPM = 0xFF60,
    M_PPT = 0xFF61,
    M_CRG = 0xFF63,
    M_COM = 0xFF64,
    M_SOT = 0xFF90,
    M_SOP = 0xFF91,
    M_EPH = 0xFF92,
    M_SOD = 0xFF93,
    M_EOC = 0xFFD9
};

/* A warning counted into w; its message becomes w->first when pos (the warnings before it) is
 * 0, or with pos UINT32_MAX when it is the first counted. */
static void warn_va(tsr__j2k_warn *w, uint32_t pos, const char *fmt, va_list ap)
{
    if (!w)
        return;
        /* tiles may be decoded in parallel */
#pragma omp critical(tsr_j2k_warn)
    {
        if (w->count++ == 0 || pos == 0)
            vsnprintf(w->first, sizeof w->first, fmt, ap);
    }
}

void tsr__j2k_warnf(tsr__j2k_warn *w, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    warn_va(w, UINT32_MAX, fmt, ap);
    va_end(ap);
}

void tsr__j2k_warn_at(tsr__j2k_warn *w, uint32_t pos, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    warn_va(w, pos, fmt, ap);
    va_end(ap);
}

static const char *marker_name(uint32_t m)
{
    switch (m) {
    case M_CAP: return "CAP";
    case M_SIZ: return "SIZ";
    case M_COD: return "COD";
    case M_COC: return "COC";
    case M_TLM: return "TLM";
    case M_PLM: return "PLM";
    case M_PLT: return "PLT";
    case M_CPF: return "CPF";
    case M_QCD: return "QCD";
    case M_QCC: return "QCC";
    case M_RGN: return "RGN";
    case M_POC: return "POC";
    case M_PPM: return "PPM";
    case M_PPT: return "PPT";
    case M_CRG: return "CRG";
    case M_COM: return "COM";
    case M_SOT: return "SOT";
    case M_SOD: return "SOD";
    case M_EOC: return "EOC";
    default: return "marker";
    }
}

/* Part 2 (T.801) marker segments: 0xFF70..0xFF7F. */
static int is_part2(uint32_t m)
{
    return m >= 0xFF70 && m <= 0xFF7F;
}

#define FAIL(st, off, ...) tsr__j2k_fail_at(ctx, cs, st, off, __VA_ARGS__)

static tsr_status tsr__j2k_fail_at(tsr_ctx *ctx, const tsr__j2k_cs *cs, tsr_status st, size_t off,
                                   const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static tsr_status tsr__j2k_fail_at(tsr_ctx *ctx, const tsr__j2k_cs *cs, tsr_status st, size_t off,
                                   const char *fmt, ...)
{
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return tsr__fail(ctx, st, "%s (at byte %zu)", msg, cs->base + off);
}

/* ---- per-marker parsers: p points after Lxxx, n = Lxxx - 2 bytes, off = marker offset ------ */

static tsr_status read_siz(tsr_ctx *ctx, tsr__j2k_cs *cs, const uint8_t *p, size_t n, size_t off)
{
    if (n < 36)
        return FAIL(TSR_ERR_CORRUPT, off, "SIZ marker segment too short (%zu bytes)", n + 2);
    cs->rsiz = (uint16_t)tsr__rd16(p);
    cs->x1 = tsr__rd32(p + 2);
    cs->y1 = tsr__rd32(p + 6);
    cs->x0 = tsr__rd32(p + 10);
    cs->y0 = tsr__rd32(p + 14);
    cs->tw = tsr__rd32(p + 18);
    cs->th = tsr__rd32(p + 22);
    cs->tx0 = tsr__rd32(p + 26);
    cs->ty0 = tsr__rd32(p + 30);
    uint32_t nc = tsr__rd16(p + 34);
    if (cs->x0 >= cs->x1 || cs->y0 >= cs->y1)
        return FAIL(TSR_ERR_CORRUPT, off, "SIZ: empty image area (%u,%u)-(%u,%u)", cs->x0, cs->y0,
                    cs->x1, cs->y1);
    if (cs->tw == 0 || cs->th == 0)
        return FAIL(TSR_ERR_CORRUPT, off, "SIZ: zero tile size");
    if (cs->tx0 > cs->x0 || cs->ty0 > cs->y0)
        return FAIL(TSR_ERR_CORRUPT, off, "SIZ: tile origin (%u,%u) beyond image origin (%u,%u)",
                    cs->tx0, cs->ty0, cs->x0, cs->y0);
    if ((uint64_t)cs->tx0 + cs->tw <= cs->x0 || (uint64_t)cs->ty0 + cs->th <= cs->y0)
        return FAIL(TSR_ERR_CORRUPT, off, "SIZ: first tile does not meet the image area");
    if (nc == 0 || nc > TSR__J2K_MAX_COMPS)
        return FAIL(TSR_ERR_CORRUPT, off, "SIZ: %u components (1..16384 allowed)", nc);
    if (n != 36 + 3 * (size_t)nc)
        return FAIL(TSR_ERR_CORRUPT, off, "SIZ: length %zu does not match %u components", n + 2,
                    nc);
    uint64_t area = (uint64_t)(cs->x1 - cs->x0) * (cs->y1 - cs->y0);
    const uint64_t maxpix = ctx->opt.max_image_pixels; /* tsr_ctx_create: never 0 */
    if (area > maxpix)
        return FAIL(TSR_ERR_LIMIT, off, "SIZ: image of %ux%u exceeds the limit of %llu pixels",
                    cs->x1 - cs->x0, cs->y1 - cs->y0, (unsigned long long)maxpix);
    uint64_t ntx = ((uint64_t)cs->x1 - cs->tx0 + cs->tw - 1) / cs->tw;
    uint64_t nty = ((uint64_t)cs->y1 - cs->ty0 + cs->th - 1) / cs->th;
    if (ntx * nty > 65535)
        return FAIL(TSR_ERR_CORRUPT, off, "SIZ: %llu tiles (at most 65535)",
                    (unsigned long long)(ntx * nty));
    cs->ntx = (uint32_t)ntx;
    cs->nty = (uint32_t)nty;
    cs->ntiles = cs->ntx * cs->nty;
    cs->ncomps = nc;
    size_t bytes;
    if (!tsr__size_mul(nc, sizeof *cs->comps, &bytes))
        return TSR_ERR_OVERFLOW;
    tsr_status st = tsr__alloc(ctx, bytes, (void **)&cs->comps);
    if (st)
        return st;
    for (uint32_t i = 0; i < nc; i++) {
        const uint8_t *q = p + 36 + 3 * i;
        uint32_t ssiz = q[0];
        cs->comps[i].prec = (uint8_t)((ssiz & 0x7f) + 1);
        cs->comps[i].sgnd = (uint8_t)(ssiz >> 7);
        cs->comps[i].dx = q[1];
        cs->comps[i].dy = q[2];
        if (cs->comps[i].prec > 38)
            return FAIL(TSR_ERR_CORRUPT, off, "SIZ: component %u precision %u (1..38 allowed)", i,
                        cs->comps[i].prec);
        if (cs->comps[i].dx == 0 || cs->comps[i].dy == 0)
            return FAIL(TSR_ERR_CORRUPT, off, "SIZ: component %u has zero subsampling", i);
    }
    /* Memory is bounded by the declared image: all components together may hold at most four
     * times the pixel limit in samples (RGBA at the limit). */
    uint64_t samples = 0;
    for (uint32_t i = 0; i < nc; i++) {
        const tsr__j2k_comp *cp = &cs->comps[i];
        uint64_t w = tsr__ceildiv(cs->x1, cp->dx) - tsr__ceildiv(cs->x0, cp->dx);
        uint64_t h = tsr__ceildiv(cs->y1, cp->dy) - tsr__ceildiv(cs->y0, cp->dy);
        samples += w * h;
    }
    if (maxpix <= UINT64_MAX / 4 && samples > 4 * maxpix)
        return FAIL(TSR_ERR_LIMIT, off,
                    "SIZ: %u components hold %llu samples, over four times the limit of %llu "
                    "pixels",
                    nc, (unsigned long long)samples, (unsigned long long)maxpix);
    return TSR_OK;
}

static tsr_status tcp_alloc(tsr_ctx *ctx, const tsr__j2k_cs *cs, tsr__j2k_tcp *tcp)
{
    size_t bytes;
    if (!tsr__size_mul(cs->ncomps, sizeof *tcp->tccps, &bytes))
        return TSR_ERR_OVERFLOW;
    tsr_status st = tsr__alloc(ctx, bytes, (void **)&tcp->tccps);
    if (st)
        return st;
    memset(tcp->tccps, 0, bytes);
    return TSR_OK;
}

void tsr__j2k_tcp_free(tsr_ctx *ctx, tsr__j2k_tcp *tcp)
{
    tsr__free(ctx, tcp->tccps);
    tsr__free(ctx, tcp->pocs);
    memset(tcp, 0, sizeof *tcp);
}

tsr_status tsr__j2k_tcp_copy(tsr_ctx *ctx, const tsr__j2k_cs *cs, tsr__j2k_tcp *dst,
                             const tsr__j2k_tcp *src)
{
    memset(dst, 0, sizeof *dst);
    *dst = *src;
    dst->tccps = NULL;
    dst->pocs = NULL;
    dst->poc_cap = 0;
    dst->npoc = 0;
    tsr_status st = tcp_alloc(ctx, cs, dst);
    if (st)
        return st;
    memcpy(dst->tccps, src->tccps, cs->ncomps * sizeof *dst->tccps);
    if (src->npoc) {
        st = tsr__alloc(ctx, src->npoc * sizeof *dst->pocs, (void **)&dst->pocs);
        if (st)
            return st;
        memcpy(dst->pocs, src->pocs, src->npoc * sizeof *dst->pocs);
        dst->npoc = dst->poc_cap = src->npoc;
    }
    return TSR_OK;
}

/* SPcod / SPcoc: decomposition levels, code-block size and style, transform, precincts. */
static tsr_status read_spcod(tsr_ctx *ctx, tsr__j2k_cs *cs, const uint8_t *p, size_t n,
                             int precincts, size_t off, const char *name, tsr__j2k_tccp *t)
{
    if (n < 5)
        return FAIL(TSR_ERR_CORRUPT, off, "%s: too short", name);
    uint32_t levels = p[0], xcb = p[1] + 2u, ycb = p[2] + 2u, sty = p[3], tr = p[4];
    if (levels > 32)
        return FAIL(TSR_ERR_CORRUPT, off, "%s: %u decomposition levels (at most 32)", name, levels);
    if (xcb > 10 || ycb > 10 || xcb + ycb > 12)
        return FAIL(TSR_ERR_CORRUPT, off, "%s: code-block size 2^%u x 2^%u is not allowed", name,
                    xcb, ycb);
    if ((sty & 0x80) && !(sty & 0x40))
        return FAIL(TSR_ERR_CORRUPT, off, "%s: code-block style 0x%02x (mixed HT without HT)", name,
                    sty);
    if (tr > 1)
        return FAIL(TSR_ERR_UNSUPPORTED, off,
                    "%s: wavelet transform %u (Part 2 arbitrary kernels) is not supported", name,
                    tr);
    size_t need = 5 + (precincts ? levels + 1 : 0);
    if (n < need)
        return FAIL(TSR_ERR_CORRUPT, off, "%s: too short for %u precinct sizes", name, levels + 1);
    t->numres = (uint8_t)(levels + 1);
    t->xcb = (uint8_t)xcb;
    t->ycb = (uint8_t)ycb;
    t->cblksty = (uint8_t)sty;
    t->qmfbid = (uint8_t)tr;
    t->csty = (uint8_t)(precincts ? 1 : 0);
    for (uint32_t r = 0; r <= levels; r++) {
        if (precincts) {
            uint32_t v = p[5 + r];
            t->prcw[r] = (uint8_t)(v & 15);
            t->prch[r] = (uint8_t)(v >> 4);
            if (r > 0 && (t->prcw[r] == 0 || t->prch[r] == 0))
                return FAIL(TSR_ERR_CORRUPT, off,
                            "%s: precinct size 2^%u x 2^%u at resolution %u (only resolution 0 "
                            "may use 1)",
                            name, t->prcw[r], t->prch[r], r);
        } else {
            t->prcw[r] = 15;
            t->prch[r] = 15;
        }
    }
    if (sty & 0x40)
        cs->is_ht = 1;
    return TSR_OK;
}

/* The component index that opens COC, QCC and RGN (1 byte, or 2 when Csiz > 256), checked
 * against Csiz; *used receives its size. The caller has checked the segment is long enough. */
static tsr_status read_comp(tsr_ctx *ctx, const tsr__j2k_cs *cs, const uint8_t *p, size_t off,
                            const char *marker, uint32_t *c, size_t *used)
{
    *used = cs->ncomps < 257 ? 1 : 2;
    *c = cs->ncomps < 257 ? p[0] : tsr__rd16(p);
    if (*c >= cs->ncomps)
        return FAIL(TSR_ERR_CORRUPT, off, "%s: component %u of %u", marker, *c, cs->ncomps);
    return TSR_OK;
}

static tsr_status read_cod(tsr_ctx *ctx, tsr__j2k_cs *cs, tsr__j2k_tcp *tcp, const uint8_t *p,
                           size_t n, size_t off, int level)
{
    if (n < 10)
        return FAIL(TSR_ERR_CORRUPT, off, "COD marker segment too short");
    uint32_t scod = p[0], prg = p[1], layers = tsr__rd16(p + 2), mct = p[4];
    if (scod & ~7u)
        return FAIL(TSR_ERR_CORRUPT, off, "COD: coding style 0x%02x has unknown bits", scod);
    if (prg > 4)
        return FAIL(TSR_ERR_CORRUPT, off, "COD: progression order %u (0..4 allowed)", prg);
    if (layers == 0)
        return FAIL(TSR_ERR_CORRUPT, off, "COD: zero quality layers");
    if (mct > 1)
        return FAIL(TSR_ERR_UNSUPPORTED, off,
                    "COD: multiple component transform %u (Part 2) is not supported", mct);
    tsr__j2k_tccp tmp;
    memset(&tmp, 0, sizeof tmp);
    tsr_status st = read_spcod(ctx, cs, p + 5, n - 5, scod & 1, off, "COD", &tmp);
    if (st)
        return st;
    tcp->csty = (uint8_t)scod;
    tcp->prg = (uint8_t)prg;
    tcp->numlayers = (uint16_t)layers;
    tcp->mct = (uint8_t)mct;
    for (uint32_t c = 0; c < cs->ncomps; c++) {
        tsr__j2k_tccp *t = &tcp->tccps[c];
        if (t->cod_level > level)
            continue;
        t->csty = tmp.csty;
        t->numres = tmp.numres;
        t->xcb = tmp.xcb;
        t->ycb = tmp.ycb;
        t->cblksty = tmp.cblksty;
        t->qmfbid = tmp.qmfbid;
        memcpy(t->prcw, tmp.prcw, sizeof t->prcw);
        memcpy(t->prch, tmp.prch, sizeof t->prch);
        t->cod_level = (uint8_t)level;
    }
    return TSR_OK;
}

static tsr_status read_coc(tsr_ctx *ctx, tsr__j2k_cs *cs, tsr__j2k_tcp *tcp, const uint8_t *p,
                           size_t n, size_t off, int level)
{
    size_t used;
    if (n < (cs->ncomps < 257 ? 2u : 3u))
        return FAIL(TSR_ERR_CORRUPT, off, "COC marker segment too short");
    uint32_t c;
    tsr_status st = read_comp(ctx, cs, p, off, "COC", &c, &used);
    if (st != TSR_OK)
        return st;
    uint32_t scoc = p[used];
    if (scoc & ~1u)
        return FAIL(TSR_ERR_CORRUPT, off, "COC: coding style 0x%02x has unknown bits", scoc);
    tsr__j2k_tccp *t = &tcp->tccps[c];
    tsr__j2k_tccp tmp = *t;
    st = read_spcod(ctx, cs, p + used + 1, n - used - 1, scoc & 1, off, "COC", &tmp);
    if (st)
        return st;
    tmp.cod_level = (uint8_t)level;
    *t = tmp;
    return TSR_OK;
}

static tsr_status read_sqcd(tsr_ctx *ctx, tsr__j2k_cs *cs, const uint8_t *p, size_t n, size_t off,
                            const char *name, tsr__j2k_tccp *t)
{
    if (n < 1)
        return FAIL(TSR_ERR_CORRUPT, off, "%s: too short", name);
    uint32_t s = p[0], sty = s & 31;
    size_t cnt;
    if (sty == 0)
        cnt = n - 1;
    else if (sty == 1)
        cnt = n >= 3 ? 1 : 0;
    else if (sty == 2)
        cnt = (n - 1) / 2;
    else
        return FAIL(TSR_ERR_CORRUPT, off, "%s: quantisation style %u (0..2 allowed)", name, sty);
    if (cnt == 0)
        return FAIL(TSR_ERR_CORRUPT, off, "%s: no step sizes", name);
    if (cnt > TSR__J2K_MAX_BANDS)
        return FAIL(TSR_ERR_CORRUPT, off, "%s: %zu step sizes (at most 97)", name, cnt);
    if ((sty == 2 && (n - 1) % 2) || (sty == 1 && n != 3))
        return FAIL(TSR_ERR_CORRUPT, off, "%s: length %zu does not match its step sizes", name,
                    n + 2);
    t->qntsty = (uint8_t)sty;
    t->numgbits = (uint8_t)(s >> 5);
    t->nsteps = (uint8_t)cnt;
    for (size_t i = 0; i < cnt; i++) {
        if (sty == 0) {
            t->steps[i].expn = (uint16_t)(p[1 + i] >> 3);
            t->steps[i].mant = 0;
        } else {
            uint32_t v = tsr__rd16(p + 1 + 2 * i);
            t->steps[i].expn = (uint16_t)(v >> 11);
            t->steps[i].mant = (uint16_t)(v & 0x7ff);
        }
    }
    return TSR_OK;
}

static tsr_status read_qcd(tsr_ctx *ctx, tsr__j2k_cs *cs, tsr__j2k_tcp *tcp, const uint8_t *p,
                           size_t n, size_t off, int level)
{
    tsr__j2k_tccp tmp;
    memset(&tmp, 0, sizeof tmp);
    tsr_status st = read_sqcd(ctx, cs, p, n, off, "QCD", &tmp);
    if (st)
        return st;
    for (uint32_t c = 0; c < cs->ncomps; c++) {
        tsr__j2k_tccp *t = &tcp->tccps[c];
        if (t->qcd_level > level)
            continue;
        t->qntsty = tmp.qntsty;
        t->numgbits = tmp.numgbits;
        t->nsteps = tmp.nsteps;
        memcpy(t->steps, tmp.steps, sizeof t->steps);
        t->qcd_level = (uint8_t)level;
    }
    return TSR_OK;
}

static tsr_status read_qcc(tsr_ctx *ctx, tsr__j2k_cs *cs, tsr__j2k_tcp *tcp, const uint8_t *p,
                           size_t n, size_t off, int level)
{
    size_t used;
    if (n < (cs->ncomps < 257 ? 2u : 3u))
        return FAIL(TSR_ERR_CORRUPT, off, "QCC marker segment too short");
    uint32_t c;
    tsr_status st = read_comp(ctx, cs, p, off, "QCC", &c, &used);
    if (st != TSR_OK)
        return st;
    tsr__j2k_tccp *t = &tcp->tccps[c];
    tsr__j2k_tccp tmp = *t;
    st = read_sqcd(ctx, cs, p + used, n - used, off, "QCC", &tmp);
    if (st)
        return st;
    tmp.qcd_level = (uint8_t)level;
    *t = tmp;
    return TSR_OK;
}

static tsr_status read_rgn(tsr_ctx *ctx, tsr__j2k_cs *cs, tsr__j2k_tcp *tcp, const uint8_t *p,
                           size_t n, size_t off)
{
    size_t used;
    if (n != (cs->ncomps < 257 ? 3u : 4u))
        return FAIL(TSR_ERR_CORRUPT, off, "RGN marker segment has length %zu", n + 2);
    uint32_t c;
    tsr_status st = read_comp(ctx, cs, p, off, "RGN", &c, &used);
    if (st != TSR_OK)
        return st;
    if (p[used] != 0)
        return FAIL(TSR_ERR_UNSUPPORTED, off, "RGN: ROI style %u (only maxshift, 0)", p[used]);
    tcp->tccps[c].roishift = p[used + 1];
    return TSR_OK;
}

static tsr_status read_poc(tsr_ctx *ctx, tsr__j2k_cs *cs, tsr__j2k_tcp *tcp, const uint8_t *p,
                           size_t n, size_t off)
{
    size_t esz = cs->ncomps < 257 ? 7 : 9;
    if (n == 0 || n % esz)
        return FAIL(TSR_ERR_CORRUPT, off, "POC: length %zu is not a whole number of entries",
                    n + 2);
    size_t cnt = n / esz;
    size_t total = tcp->npoc + cnt;
    if (total > tcp->poc_cap) {
        tsr__j2k_poc *np;
        size_t bytes;
        if (!tsr__size_mul(total, sizeof *np, &bytes))
            return TSR_ERR_OVERFLOW;
        tsr_status st = tsr__alloc(ctx, bytes, (void **)&np);
        if (st)
            return st;
        if (tcp->npoc)
            memcpy(np, tcp->pocs, tcp->npoc * sizeof *np);
        tsr__free(ctx, tcp->pocs);
        tcp->pocs = np;
        tcp->poc_cap = (uint32_t)total;
    }
    for (size_t i = 0; i < cnt; i++) {
        const uint8_t *q = p + i * esz;
        tsr__j2k_poc *e = &tcp->pocs[tcp->npoc + i];
        size_t k = 0;
        e->rs = q[k++];
        if (esz == 7) {
            e->cs = q[k++];
        } else {
            e->cs = tsr__rd16(q + k);
            k += 2;
        }
        e->lye = tsr__rd16(q + k);
        k += 2;
        e->re = q[k++];
        if (esz == 7) {
            e->ce = q[k++];
            if (e->ce == 0)
                e->ce = 256;
        } else {
            e->ce = tsr__rd16(q + k);
            k += 2;
            if (e->ce == 0)
                e->ce = 16384;
        }
        e->prg = q[k];
        if (e->prg > 4)
            return FAIL(TSR_ERR_CORRUPT, off, "POC: progression order %u (0..4 allowed)", e->prg);
        if (e->rs >= e->re || e->cs >= e->ce || e->re > TSR__J2K_MAX_RES)
            return FAIL(TSR_ERR_CORRUPT, off,
                        "POC: empty or invalid range (resolutions %u..%u, components %u..%u)",
                        e->rs, e->re, e->cs, e->ce);
    }
    tcp->npoc = (uint32_t)total;
    return TSR_OK;
}

/* Grows the tile-part index. */
static tsr_status add_tilepart(tsr_ctx *ctx, tsr__j2k_cs *cs, tsr__j2k_tilepart **out)
{
    if (cs->ntp == cs->tp_cap) {
        uint32_t ncap = cs->tp_cap ? cs->tp_cap * 2 : 16;
        tsr__j2k_tilepart *n;
        tsr_status st = tsr__alloc(ctx, (size_t)ncap * sizeof *n, (void **)&n);
        if (st)
            return st;
        if (cs->ntp)
            memcpy(n, cs->tps, cs->ntp * sizeof *n);
        tsr__free(ctx, cs->tps);
        cs->tps = n;
        cs->tp_cap = ncap;
    }
    *out = &cs->tps[cs->ntp++];
    memset(*out, 0, sizeof **out);
    return TSR_OK;
}

/* PPM: Zppm ordered pieces, concatenated. */
typedef struct ppm_piece {
    uint32_t z;
    size_t off, len;
} ppm_piece;

tsr_status tsr__j2k_parse(tsr_ctx *ctx, const uint8_t *data, size_t len, size_t base, int main_only,
                          tsr__j2k_cs *cs, tsr__j2k_warn *warn)
{
    memset(cs, 0, sizeof *cs);
    cs->data = data;
    cs->len = len;
    cs->base = base;
    cs->warn = warn;
    if (len < 2 || tsr__rd16(data) != M_SOC)
        return FAIL(TSR_ERR_CORRUPT, 0, "not a JPEG 2000 codestream: no SOC marker");
    size_t pos = 2;
    int have_siz = 0;
    tsr_status st = TSR_OK;
    ppm_piece pieces[256];
    uint32_t npieces = 0;
    int seen_z[256];
    memset(seen_z, 0, sizeof seen_z);

    /* Main header. */
    for (;;) {
        if (pos + 2 > len)
            return FAIL(TSR_ERR_CORRUPT, pos, "codestream ends inside the main header");
        uint32_t m = tsr__rd16(data + pos);
        if (m == M_SOT)
            break;
        if (m == M_EOC)
            return FAIL(TSR_ERR_CORRUPT, pos, "EOC before any tile-part");
        if ((m >> 8) != 0xFF || m < 0xFF30)
            return FAIL(TSR_ERR_CORRUPT, pos, "expected a marker, found 0x%04x", m);
        if (m <= 0xFF3F) { /* A.1: 0xFF30..0xFF3F are markers without segments */
            pos += 2;
            continue;
        }
        if (pos + 4 > len)
            return FAIL(TSR_ERR_CORRUPT, pos, "codestream ends inside a marker segment");
        size_t L = tsr__rd16(data + pos + 2);
        if (L < 2 || pos + 2 + L > len)
            return FAIL(TSR_ERR_CORRUPT, pos, "%s marker segment length %zu exceeds the data",
                        marker_name(m), L);
        const uint8_t *p = data + pos + 4;
        size_t n = L - 2;
        if (!have_siz && m != M_SIZ)
            return FAIL(TSR_ERR_CORRUPT, pos, "SIZ must follow SOC, found 0x%04x", m);
        switch (m) {
        case M_SIZ:
            if (have_siz)
                return FAIL(TSR_ERR_CORRUPT, pos, "second SIZ marker");
            st = read_siz(ctx, cs, p, n, pos);
            if (!st)
                st = tcp_alloc(ctx, cs, &cs->deflt);
            have_siz = 1;
            break;
        case M_COD:
            st = read_cod(ctx, cs, &cs->deflt, p, n, pos, 1);
            cs->has_cod = 1;
            break;
        case M_COC: st = read_coc(ctx, cs, &cs->deflt, p, n, pos, 2); break;
        case M_QCD:
            st = read_qcd(ctx, cs, &cs->deflt, p, n, pos, 1);
            cs->has_qcd = 1;
            break;
        case M_QCC: st = read_qcc(ctx, cs, &cs->deflt, p, n, pos, 2); break;
        case M_RGN: st = read_rgn(ctx, cs, &cs->deflt, p, n, pos); break;
        case M_POC: st = read_poc(ctx, cs, &cs->deflt, p, n, pos); break;
        case M_PPM:
            if (n < 1)
                return FAIL(TSR_ERR_CORRUPT, pos, "PPM marker segment too short");
            if (seen_z[p[0]])
                return FAIL(TSR_ERR_CORRUPT, pos, "PPM: Zppm %u repeated", p[0]);
            seen_z[p[0]] = 1;
            pieces[npieces].z = p[0];
            pieces[npieces].off = pos + 5;
            pieces[npieces].len = n - 1;
            npieces++;
            break;
        case M_CAP:
            if (n < 4)
                return FAIL(TSR_ERR_CORRUPT, pos, "CAP marker segment too short");
            if (tsr__rd32(p) & (1u << (32 - 15)))
                cs->is_ht = 1;
            break;
        case M_COM: /* Latin text naming tessera's private block format (fast_coder.h) */
            if (n >= 2 + sizeof TSR__FNS_MARK_PREFIX - 1 && tsr__rd16(p) == 1 &&
                memcmp(p + 2, TSR__FNS_MARK_PREFIX, sizeof TSR__FNS_MARK_PREFIX - 1) == 0)
                cs->fast_ns = 1;
            break;
        case M_TLM:
        case M_PLM:
        case M_CRG:
        case M_CPF: break; /* informative or index only: the decoder does not need them */
        case M_PLT:
        case M_PPT:
        case M_SOD:
        case M_SOP:
        case M_EPH:
            return FAIL(TSR_ERR_CORRUPT, pos, "%s marker in the main header", marker_name(m));
        default:
            if (is_part2(m)) {
                uint32_t code = m & 0xff;
                /* DCO (0x70), VMS (0x71) and NLT (0x76) change the samples: refuse. The others
                 * (DFS, ADS, MCT, MCC, MCO, CBD, ATK) only matter when COD/COC reference them,
                 * which is refused there. */
                if (code == 0x70 || code == 0x71 || (code == 0x76 && n >= 1 && p[n - 1] != 0))
                    return FAIL(TSR_ERR_UNSUPPORTED, pos,
                                "Part 2 marker 0x%04x changes the decoded samples; not supported",
                                m);
                tsr__j2k_warnf(warn, "Part 2 marker 0x%04x at byte %zu ignored", m, base + pos);
            } else {
                tsr__j2k_warnf(warn, "unknown marker 0x%04x at byte %zu skipped", m, base + pos);
            }
            break;
        }
        if (st)
            return st;
        pos += 2 + L;
    }
    if (!cs->has_cod)
        return FAIL(TSR_ERR_CORRUPT, pos, "main header has no COD marker");
    if (!cs->has_qcd)
        return FAIL(TSR_ERR_CORRUPT, pos, "main header has no QCD marker");
    for (uint32_t c = 0; c < cs->ncomps; c++)
        if (cs->deflt.tccps[c].roishift > 0 && cs->deflt.tccps[c].roishift + 0u > 37u)
            return FAIL(TSR_ERR_UNSUPPORTED, pos, "RGN: ROI shift %u too large",
                        cs->deflt.tccps[c].roishift);
    /* MCT needs three components with the same subsampling (A.6.1; G.2). */
    if (cs->deflt.mct && cs->ncomps < 3)
        return FAIL(TSR_ERR_CORRUPT, pos, "COD: colour transform with %u components", cs->ncomps);
    if (npieces) {
        /* Concatenate in Zppm order. */
        size_t total = 0;
        for (uint32_t i = 0; i < npieces; i++)
            total += pieces[i].len;
        st = tsr__alloc(ctx, total ? total : 1, (void **)&cs->ppm);
        if (st)
            return st;
        size_t at = 0;
        for (uint32_t z = 0; z < 256; z++)
            for (uint32_t i = 0; i < npieces; i++)
                if (pieces[i].z == z) {
                    memcpy(cs->ppm + at, data + pieces[i].off, pieces[i].len);
                    at += pieces[i].len;
                }
        cs->ppm_len = total;
    }
    size_t bytes;
    if (!tsr__size_mul(cs->ntiles, sizeof(uint32_t), &bytes))
        return TSR_ERR_OVERFLOW;
    if ((st = tsr__alloc(ctx, bytes, (void **)&cs->tile_first)) ||
        (st = tsr__alloc(ctx, bytes, (void **)&cs->tile_last)))
        return st;
    memset(cs->tile_first, 0xff, bytes);
    memset(cs->tile_last, 0xff, bytes);
    if (main_only)
        return TSR_OK;

    /* Tile-parts. */
    size_t ppm_at = 0;
    while (pos < len) {
        if (pos + 2 > len) {
            tsr__j2k_warnf(warn, "codestream ends with a stray byte at %zu", base + pos);
            break;
        }
        uint32_t m = tsr__rd16(data + pos);
        if (m == M_EOC) {
            cs->eoc_seen = 1;
            break;
        }
        if (m != M_SOT) {
            if (cs->ntp == 0)
                return FAIL(TSR_ERR_CORRUPT, pos, "expected SOT, found 0x%04x", m);
            tsr__j2k_warnf(warn, "expected SOT or EOC at byte %zu, found 0x%04x: rest ignored",
                           base + pos, m);
            warn->truncated = 1;
            break;
        }
        if (pos + 12 > len) {
            tsr__j2k_warnf(warn, "codestream truncated inside SOT at byte %zu", base + pos);
            warn->truncated = 1;
            break;
        }
        if (tsr__rd16(data + pos + 2) != 10)
            return FAIL(TSR_ERR_CORRUPT, pos, "SOT: length %u (10 expected)",
                        tsr__rd16(data + pos + 2));
        uint32_t isot = tsr__rd16(data + pos + 4);
        uint32_t psot = tsr__rd32(data + pos + 6);
        uint32_t tpsot = data[pos + 10];
        if (isot >= cs->ntiles)
            return FAIL(TSR_ERR_CORRUPT, pos, "SOT: tile %u of %u", isot, cs->ntiles);
        if (psot != 0 && psot < 14)
            return FAIL(TSR_ERR_CORRUPT, pos, "SOT: tile-part length %u is too small", psot);
        size_t tp_end;
        int cut = 0;
        if (psot == 0) {
            tp_end = len;
            /* up to EOC: the last two bytes when they are EOC */
            if (len >= pos + 14 && tsr__rd16(data + len - 2) == M_EOC)
                tp_end = len - 2;
        } else if ((uint64_t)pos + psot > len) {
            tp_end = len;
            cut = 1;
        } else {
            tp_end = pos + psot;
        }
        /* Tile-part header markers up to SOD. */
        size_t q = pos + 12, hdr_off = q;
        int sod = 0;
        while (q + 2 <= tp_end) {
            uint32_t mm = tsr__rd16(data + q);
            if (mm == M_SOD) {
                sod = 1;
                break;
            }
            if ((mm >> 8) != 0xFF || mm < 0xFF30)
                return FAIL(TSR_ERR_CORRUPT, q, "tile-part header: expected a marker, found 0x%04x",
                            mm);
            if (mm <= 0xFF3F) {
                q += 2;
                continue;
            }
            if (q + 4 > tp_end)
                break;
            size_t L = tsr__rd16(data + q + 2);
            if (L < 2 || q + 2 + L > tp_end)
                return FAIL(TSR_ERR_CORRUPT, q,
                            "%s marker segment length %zu exceeds its tile-part", marker_name(mm),
                            L);
            switch (mm) {
            case M_COD:
            case M_COC:
            case M_QCD:
            case M_QCC:
            case M_RGN:
                if (tpsot != 0)
                    return FAIL(TSR_ERR_CORRUPT, q,
                                "%s in tile-part %u (only the first tile-part may have it)",
                                marker_name(mm), tpsot);
                break;
            case M_POC:
            case M_PPT:
            case M_PLT:
            case M_COM: break;
            case M_SIZ:
            case M_PPM:
            case M_TLM:
            case M_PLM:
            case M_CAP:
            case M_CRG:
            case M_SOT:
            case M_EOC:
                return FAIL(TSR_ERR_CORRUPT, q, "%s marker in a tile-part header", marker_name(mm));
            default:
                if (is_part2(mm)) {
                    uint32_t code = mm & 0xff;
                    if (code == 0x70 || code == 0x71 || code == 0x76)
                        return FAIL(TSR_ERR_UNSUPPORTED, q,
                                    "Part 2 marker 0x%04x in a tile header is not supported", mm);
                }
                tsr__j2k_warnf(warn, "marker 0x%04x at byte %zu skipped", mm, base + q);
                break;
            }
            q += 2 + L;
        }
        if (!sod) {
            if (cut || psot == 0) {
                tsr__j2k_warnf(warn, "codestream truncated in tile-part header at byte %zu",
                               base + pos);
                warn->truncated = 1;
                break;
            }
            return FAIL(TSR_ERR_CORRUPT, q, "tile-part header without SOD");
        }
        tsr__j2k_tilepart *tp;
        if ((st = add_tilepart(ctx, cs, &tp)))
            return st;
        tp->tile = isot;
        tp->tpsot = tpsot;
        tp->sot_off = pos;
        tp->hdr_off = hdr_off;
        tp->hdr_end = q;
        tp->body_off = q + 2;
        tp->body_len = tp_end - (q + 2);
        tp->next = UINT32_MAX;
        uint32_t idx = cs->ntp - 1;
        if (cs->tile_first[isot] == UINT32_MAX) {
            cs->tile_first[isot] = idx;
            if (tpsot != 0)
                tsr__j2k_warnf(warn, "tile %u starts with tile-part %u", isot, tpsot);
        } else {
            uint32_t last = cs->tile_last[isot];
            if (cs->tps[last].tpsot + 1 != tpsot)
                tsr__j2k_warnf(warn, "tile %u: tile-part %u follows %u", isot, tpsot,
                               cs->tps[last].tpsot);
            cs->tps[last].next = idx;
        }
        cs->tile_last[isot] = idx;
        if (cs->ppm) {
            if (ppm_at + 4 > cs->ppm_len) {
                tsr__j2k_warnf(warn, "PPM has no packet headers for the tile-part at byte %zu",
                               base + pos);
                tp->ppm_off = cs->ppm_len;
                tp->ppm_len = 0;
            } else {
                uint32_t nppm = tsr__rd32(cs->ppm + ppm_at);
                ppm_at += 4;
                if (nppm > cs->ppm_len - ppm_at) {
                    tsr__j2k_warnf(warn, "PPM: Nppm %u exceeds the data", nppm);
                    nppm = (uint32_t)(cs->ppm_len - ppm_at);
                }
                tp->ppm_off = ppm_at;
                tp->ppm_len = nppm;
                ppm_at += nppm;
            }
        }
        if (cut) {
            tsr__j2k_warnf(warn,
                           "codestream truncated: tile-part at byte %zu declares %u bytes, "
                           "%zu present",
                           base + pos, psot, len - pos);
            warn->truncated = 1;
            break;
        }
        pos = tp_end;
        if (psot == 0) {
            if (tp_end + 2 <= len && tsr__rd16(data + tp_end) == M_EOC)
                cs->eoc_seen = 1;
            break;
        }
    }
    if (!cs->eoc_seen && !warn->truncated) {
        tsr__j2k_warnf(warn, "codestream has no EOC marker (truncated?)");
        warn->truncated = 1;
    }
    if (cs->ntp == 0)
        return FAIL(TSR_ERR_CORRUPT, pos, "codestream has no tile-parts");
    return TSR_OK;
}

void tsr__j2k_cs_free(tsr_ctx *ctx, tsr__j2k_cs *cs)
{
    tsr__free(ctx, cs->comps);
    tsr__j2k_tcp_free(ctx, &cs->deflt);
    tsr__free(ctx, cs->tps);
    tsr__free(ctx, cs->tile_first);
    tsr__free(ctx, cs->tile_last);
    tsr__free(ctx, cs->ppm);
    memset(cs, 0, sizeof *cs);
}

tsr_status tsr__j2k_tile_params(tsr_ctx *ctx, tsr__j2k_cs *cs, uint32_t tile, tsr__j2k_tcp *tcp,
                                uint8_t **ppt, size_t *ppt_len)
{
    *ppt = NULL;
    *ppt_len = 0;
    tsr_status st = tsr__j2k_tcp_copy(ctx, cs, tcp, &cs->deflt);
    if (st)
        return st;
    tcp->fast_ns = (uint8_t)cs->fast_ns;
    int tile_poc = 0;
    ppm_piece pieces[256];
    uint32_t npieces = 0;
    int seen_z[256];
    memset(seen_z, 0, sizeof seen_z);
    size_t ppt_total = 0;
    for (uint32_t i = cs->tile_first[tile]; i != UINT32_MAX; i = cs->tps[i].next) {
        const tsr__j2k_tilepart *tp = &cs->tps[i];
        size_t q = tp->hdr_off;
        while (q < tp->hdr_end) {
            uint32_t m = tsr__rd16(cs->data + q);
            if (m >= 0xFF30 && m <= 0xFF3F) {
                q += 2;
                continue;
            }
            size_t L = tsr__rd16(cs->data + q + 2);
            const uint8_t *p = cs->data + q + 4;
            size_t n = L - 2;
            switch (m) {
            case M_COD: st = read_cod(ctx, cs, tcp, p, n, q, 3); break;
            case M_COC: st = read_coc(ctx, cs, tcp, p, n, q, 4); break;
            case M_QCD: st = read_qcd(ctx, cs, tcp, p, n, q, 3); break;
            case M_QCC: st = read_qcc(ctx, cs, tcp, p, n, q, 4); break;
            case M_RGN: st = read_rgn(ctx, cs, tcp, p, n, q); break;
            case M_POC:
                if (!tile_poc) {
                    tcp->npoc = 0; /* a tile's POC replaces the main header's */
                    tile_poc = 1;
                }
                st = read_poc(ctx, cs, tcp, p, n, q);
                break;
            case M_PPT:
                if (cs->ppm)
                    return FAIL(TSR_ERR_CORRUPT, q, "PPT and PPM in one codestream");
                if (n < 1)
                    return FAIL(TSR_ERR_CORRUPT, q, "PPT marker segment too short");
                if (seen_z[p[0]] || npieces == 256)
                    return FAIL(TSR_ERR_CORRUPT, q, "PPT: Zppt %u repeated", p[0]);
                seen_z[p[0]] = 1;
                pieces[npieces].z = p[0];
                pieces[npieces].off = q + 5;
                pieces[npieces].len = n - 1;
                ppt_total += n - 1;
                npieces++;
                break;
            default: break;
            }
            if (st)
                return st;
            q += 2 + L;
        }
    }
    if (tcp->mct && cs->ncomps < 3)
        return FAIL(TSR_ERR_CORRUPT, cs->tps[cs->tile_first[tile]].sot_off,
                    "tile %u: colour transform with %u components", tile, cs->ncomps);
    if (npieces) {
        st = tsr__alloc(ctx, ppt_total ? ppt_total : 1, (void **)ppt);
        if (st)
            return st;
        size_t at = 0;
        for (uint32_t z = 0; z < 256; z++)
            for (uint32_t i = 0; i < npieces; i++)
                if (pieces[i].z == z) {
                    memcpy(*ppt + at, cs->data + pieces[i].off, pieces[i].len);
                    at += pieces[i].len;
                }
        *ppt_len = ppt_total;
    }
    return TSR_OK;
}
