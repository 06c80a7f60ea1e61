/* Test-only Tier-1 ENCODERS (shared by tests/unit/test_j2k_t1.c and bench/bench_j2k_t1.c):
 * the MQ encoder of T.800 Annex C.2 and a small, slow EBCOT encoder (T.800 Annex D) written
 * independently of the decoder in src/j2k/t1_decode.c (explicit neighbour queries, no flag
 * words). Segments follow tsr__t1_segment_max_passes. Header-only, static functions. */
#ifndef TSR_TESTS_T1_TESTENC_H
#define TSR_TESTS_T1_TESTENC_H

#include "j2k/mqc.h"
#include "j2k/t1.h"

#include <stdint.h>
#include <string.h>

/* ---- MQ encoder (T.800 C.2) -------------------------------------------------------------------
 */
typedef struct mqe {
    uint32_t a, c, ct;
    uint8_t *bp, *start;
} mqe;

static void mqe_init(mqe *e, uint8_t *buf) /* buf[0] is a scratch byte before the output */
{
    e->start = buf + 1;
    e->bp = buf;
    *e->bp = 0;
    e->a = 0x8000;
    e->c = 0;
    e->ct = 12;
}

static void mqe_byteout(mqe *e)
{
    if (*e->bp == 0xFF) {
        e->bp++;
        *e->bp = (uint8_t)(e->c >> 20);
        e->c &= 0xFFFFF;
        e->ct = 7;
    } else if (e->c < 0x8000000) {
        e->bp++;
        *e->bp = (uint8_t)(e->c >> 19);
        e->c &= 0x7FFFF;
        e->ct = 8;
    } else {
        (*e->bp)++;
        if (*e->bp == 0xFF) {
            e->c &= 0x7FFFFFF;
            e->bp++;
            *e->bp = (uint8_t)(e->c >> 20);
            e->c &= 0xFFFFF;
            e->ct = 7;
        } else {
            e->bp++;
            *e->bp = (uint8_t)(e->c >> 19);
            e->c &= 0x7FFFF;
            e->ct = 8;
        }
    }
}

static void mqe_renorm(mqe *e)
{
    do {
        e->a <<= 1;
        e->c <<= 1;
        e->ct--;
        if (e->ct == 0)
            mqe_byteout(e);
    } while (!(e->a & 0x8000));
}

static void mqe_encode(mqe *e, uint8_t *cx, int d)
{
    const tsr__mqc_state *st = &tsr__mqc_states[*cx];
    uint32_t qe = st->qe;
    if (d == (*cx & 1)) { /* CODEMPS */
        e->a -= qe;
        if (!(e->a & 0x8000)) {
            if (e->a < qe)
                e->a = qe;
            else
                e->c += qe;
            *cx = st->nmps;
            mqe_renorm(e);
        } else {
            e->c += qe;
        }
    } else { /* CODELPS */
        e->a -= qe;
        if (e->a < qe)
            e->c += qe;
        else
            e->a = qe;
        *cx = st->nlps;
        mqe_renorm(e);
    }
}

/* FLUSH (T.800 C.2.9); returns the segment length. */
static uint32_t mqe_flush(mqe *e)
{
    uint32_t tempc = e->c + e->a;
    e->c |= 0xFFFF;
    if (e->c >= tempc)
        e->c -= 0x8000;
    e->c <<= e->ct;
    mqe_byteout(e);
    e->c <<= e->ct;
    mqe_byteout(e);
    if (*e->bp != 0xFF)
        e->bp++;
    return (uint32_t)(e->bp - e->start);
}

/* ---- EBCOT encoder (T.800 Annex D), slow and independent of the decoder ------------------------
 */
enum { MAXA = 4096, MAXSEG = 256 };

typedef struct ebenc {
    int w, h, orient, style, K;
    const int32_t *coef; /* signed magnitudes in the coded domain (|v| < 2^K) */
    uint8_t sig[MAXA], vis[MAXA], ref[MAXA], neg[MAXA];
    int sig_pass[MAXA];
    uint8_t cx[19];
    /* output */
    uint8_t *buf; /* big buffer for all segments */
    size_t used;
    tsr__t1_seg segs[MAXSEG];
    int nsegs;
    /* current segment coder */
    int raw;
    mqe mq;
    uint8_t *segstart;
    uint32_t rcur, rnb, rcap;
    size_t rlen;
} ebenc;

static void enc_reset_cx(ebenc *e)
{
    memset(e->cx, 0, sizeof e->cx);
    e->cx[0] = TSR__MQC_CX(4, 0);
    e->cx[17] = TSR__MQC_CX(3, 0);
    e->cx[18] = TSR__MQC_CX(46, 0);
}

static int mag_of(const ebenc *e, int i)
{
    int32_t v = e->coef[i];
    return v < 0 ? -v : v;
}

/* neighbour (x+dx, y+dy) of (x, y) significant, with the vertically causal rule */
static int nsig(const ebenc *e, int x, int y, int dx, int dy)
{
    int nx = x + dx, ny = y + dy;
    if (nx < 0 || ny < 0 || nx >= e->w || ny >= e->h)
        return 0;
    if ((e->style & 0x08) && dy > 0 && ny / 4 != y / 4)
        return 0;
    return e->sig[ny * e->w + nx];
}

/* -1 / 0 / +1 contribution of a direct neighbour to the sign context */
static int nsgn(const ebenc *e, int x, int y, int dx, int dy)
{
    if (!nsig(e, x, y, dx, dy))
        return 0;
    return e->neg[(y + dy) * e->w + x + dx] ? -1 : 1;
}

static int enc_zc(const ebenc *e, int x, int y)
{
    int H = nsig(e, x, y, -1, 0) + nsig(e, x, y, 1, 0);
    int V = nsig(e, x, y, 0, -1) + nsig(e, x, y, 0, 1);
    int D =
        nsig(e, x, y, -1, -1) + nsig(e, x, y, 1, -1) + nsig(e, x, y, -1, 1) + nsig(e, x, y, 1, 1);
    /* Table D.1 as rows of (primary, secondary, diagonal) conditions */
    if (e->orient == 3) {
        static const int hh[4][3] = {{0, 1, 2}, {3, 4, 5}, {6, 7, 7}, {8, 8, 8}};
        int hv = H + V > 2 ? 2 : H + V;
        return hh[D > 3 ? 3 : D][hv];
    }
    int P = e->orient == 1 ? V : H, S = e->orient == 1 ? H : V;
    if (P == 2)
        return 8;
    if (P == 1)
        return S ? 7 : D ? 6 : 5;
    if (S)
        return S == 2 ? 4 : 3;
    return D >= 2 ? 2 : D;
}

static void enc_sc(const ebenc *e, int x, int y, int *cx, int *xr)
{
    int hc = nsgn(e, x, y, -1, 0) + nsgn(e, x, y, 1, 0);
    int vc = nsgn(e, x, y, 0, -1) + nsgn(e, x, y, 0, 1);
    hc = hc > 1 ? 1 : hc < -1 ? -1 : hc;
    vc = vc > 1 ? 1 : vc < -1 ? -1 : vc;
    /* Table D.3 */
    static const int ctx[3][3] = {{13, 12, 11}, {10, 9, 10}, {11, 12, 13}}; /* [1-hc][1-vc] */
    static const int xo[3][3] = {{0, 0, 0}, {0, 0, 1}, {1, 1, 1}};
    *cx = ctx[1 - hc][1 - vc];
    *xr = xo[1 - hc][1 - vc];
}

static void enc_bit(ebenc *e, int cx, int bit)
{
    if (e->raw) {
        e->rcur = e->rcur << 1 | (uint32_t)bit;
        if (++e->rnb == e->rcap) {
            e->segstart[e->rlen++] = (uint8_t)e->rcur;
            e->rcap = e->rcur == 0xFF ? 7 : 8;
            e->rcur = 0;
            e->rnb = 0;
        }
    } else {
        mqe_encode(&e->mq, &e->cx[cx], bit);
    }
}

static void enc_start_seg(ebenc *e, int raw)
{
    e->raw = raw;
    if (raw) {
        e->segstart = e->buf + e->used;
        e->rcur = 0;
        e->rnb = 0;
        e->rcap = 8;
        e->rlen = 0;
    } else {
        mqe_init(&e->mq, e->buf + e->used);
        e->segstart = e->mq.start;
    }
}

static void enc_end_seg(ebenc *e, int npasses)
{
    uint32_t len;
    if (e->raw) {
        if (e->rnb)
            e->segstart[e->rlen++] = (uint8_t)(e->rcur << (e->rcap - e->rnb));
        len = (uint32_t)e->rlen;
    } else {
        len = mqe_flush(&e->mq);
    }
    e->segs[e->nsegs].data = e->segstart;
    e->segs[e->nsegs].len = len;
    e->segs[e->nsegs].npasses = (uint32_t)npasses;
    e->nsegs++;
    e->used = (size_t)(e->segstart - e->buf) + len + 2;
}

static void enc_sign(ebenc *e, int x, int y, int i)
{
    int cx, xr;
    enc_sc(e, x, y, &cx, &xr);
    if (e->raw) /* raw passes carry the sign bit itself (D.6) */
        xr = 0;
    enc_bit(e, cx, (e->coef[i] < 0) ^ xr);
}

static void enc_make_sig(ebenc *e, int i, int pass)
{
    e->sig[i] = 1;
    e->neg[i] = e->coef[i] < 0;
    e->sig_pass[i] = pass;
}

static void enc_pass(ebenc *e, int pass, int type, int p)
{
    int w = e->w, h = e->h;
    for (int y0 = 0; y0 < h; y0 += 4)
        for (int x = 0; x < w; x++) {
            int ye = y0 + 4 < h ? y0 + 4 : h, y = y0;
            if (type == 2 && ye - y0 == 4) {
                int all = 1;
                for (int k = 0; k < 4; k++) {
                    int i = (y0 + k) * w + x;
                    /* the run needs every neighbour insignificant: zc 0 means that */
                    if (e->sig[i] || e->vis[i] || enc_zc(e, x, y0 + k) != 0)
                        all = 0;
                }
                if (all) {
                    int r = -1;
                    for (int k = 0; k < 4 && r < 0; k++)
                        if ((mag_of(e, (y0 + k) * w + x) >> p) & 1)
                            r = k;
                    enc_bit(e, 17, r >= 0);
                    if (r < 0)
                        continue;
                    enc_bit(e, 18, r >> 1);
                    enc_bit(e, 18, r & 1);
                    int i = (y0 + r) * w + x;
                    enc_sign(e, x, y0 + r, i);
                    enc_make_sig(e, i, pass);
                    y = y0 + r + 1;
                }
            }
            for (; y < ye; y++) {
                int i = y * w + x, bit = (mag_of(e, i) >> p) & 1;
                if (type == 0) {
                    if (e->sig[i])
                        continue;
                    int any = 0;
                    for (int dy = -1; dy <= 1; dy++)
                        for (int dx = -1; dx <= 1; dx++)
                            if (dx || dy)
                                any |= nsig(e, x, y, dx, dy);
                    if (!any)
                        continue;
                    enc_bit(e, enc_zc(e, x, y), bit);
                    if (bit) {
                        enc_sign(e, x, y, i);
                        enc_make_sig(e, i, pass);
                    }
                    e->vis[i] = 1;
                } else if (type == 1) {
                    if (!e->sig[i] || e->vis[i])
                        continue;
                    int cx = 16;
                    if (!e->ref[i]) {
                        int any = 0;
                        for (int dy = -1; dy <= 1; dy++)
                            for (int dx = -1; dx <= 1; dx++)
                                if (dx || dy)
                                    any |= nsig(e, x, y, dx, dy);
                        cx = any ? 15 : 14;
                    }
                    enc_bit(e, cx, bit);
                    e->ref[i] = 1;
                } else {
                    if (e->sig[i] || e->vis[i])
                        continue;
                    enc_bit(e, enc_zc(e, x, y), bit);
                    if (bit) {
                        enc_sign(e, x, y, i);
                        enc_make_sig(e, i, pass);
                    }
                }
            }
        }
    if (type == 2) {
        memset(e->vis, 0, sizeof e->vis);
        if (e->style & 0x20) {
            enc_bit(e, 18, 1);
            enc_bit(e, 18, 0);
            enc_bit(e, 18, 1);
            enc_bit(e, 18, 0);
        }
    }
}

static int ref_is_raw(int style, int pass)
{
    int type = pass == 0 ? 2 : (pass - 1) % 3;
    return (style & 1) && pass >= 10 && type != 2;
}

/* Encodes all 3K-2 passes; segments per the segment rule. Returns the number of passes. */
static int enc_block(ebenc *e)
{
    memset(e->sig, 0, sizeof e->sig);
    memset(e->vis, 0, sizeof e->vis);
    memset(e->ref, 0, sizeof e->ref);
    memset(e->neg, 0, sizeof e->neg);
    for (int i = 0; i < MAXA; i++)
        e->sig_pass[i] = 1 << 30;
    enc_reset_cx(e);
    e->nsegs = 0;
    e->used = 0;
    int np = e->K ? 3 * e->K - 2 : 0;
    int seg_first = 0, seg_max = 0;
    for (int pass = 0; pass < np; pass++) {
        if (pass == seg_first) {
            seg_max = (int)tsr__t1_segment_max_passes((unsigned)e->style, (uint32_t)pass,
                                                      (uint32_t)(np - pass), 0);
            enc_start_seg(e, ref_is_raw(e->style, pass));
        }
        int type = pass == 0 ? 2 : (pass - 1) % 3;
        int p = e->K - 1 - (pass + 2) / 3;
        enc_pass(e, pass, type, p);
        if (e->style & 0x02)
            enc_reset_cx(e);
        if (pass + 1 == np || pass + 1 - seg_first == seg_max) {
            enc_end_seg(e, pass + 1 - seg_first);
            seg_first = pass + 1;
        }
    }
    return np;
}

#endif
