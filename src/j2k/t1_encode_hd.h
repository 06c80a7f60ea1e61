/* The Part 1 code-block encoder (t1_encode.h), written once for the host (t1_encode.c) and the
 * device (encode_cuda.cu) with t1_hd.h's qualifiers: T.800 D.3 passes, the contexts of Tables
 * D.1-D.3 looked up from per-coefficient masks of significant neighbours (kept as coefficients
 * become significant, with D.3.1's vertically causal rule), run-length coding in the cleanup
 * pass (D.3.4) and segment ends by the decoder's segment rule; with track each pass's
 * truncation point and the squared error it removes, IEEE double operations in a fixed order.
 * t1_encode_block is tsr__t1_encode_block's body. */
#ifndef TSR_J2K_T1_ENCODE_HD_H
#define TSR_J2K_T1_ENCODE_HD_H

#include "j2k/t1_encode.h"
#include "j2k/t1_hd.h"

#include <string.h>

TSR__T1_FN void reset_cx(tsr__t1_enc *e)
{
    memset(e->cx, 0, sizeof e->cx);
    e->cx[0] = TSR__MQC_CX(4, 0);   /* zero coding, all neighbours insignificant (Table D.7) */
    e->cx[17] = TSR__MQC_CX(3, 0);  /* run length */
    e->cx[18] = TSR__MQC_CX(46, 0); /* uniform */
}

TSR__T1_FN int mag_of(const tsr__t1_enc *e, int i)
{
    return (int)e->mag[i];
}

enum { NB_W = 1, NB_E = 2, NB_N = 4, NB_S = 8, NB_NW = 16, NB_NE = 32, NB_SW = 64, NB_SE = 128 };

/* Zero-coding context (Table D.1) for neighbour counts H, V, D. */
TSR__T1_FN int zc_of(int orient, int H, int V, int D)
{
    if (orient == TSR__T1_HH) {
        const int hh[4][3] = {{0, 1, 2}, {3, 4, 5}, {6, 7, 7}, {8, 8, 8}};
        int hv = H + V > 2 ? 2 : H + V;
        return hh[D > 3 ? 3 : D][hv];
    }
    int P = orient == TSR__T1_HL ? V : H, S = orient == TSR__T1_HL ? H : V;
    if (P == 2)
        return 8;
    if (P == 1)
        return S ? 7 : D ? 6 : 5;
    if (S)
        return S == 2 ? 4 : 3;
    return D >= 2 ? 2 : D;
}

TSR__T1_FN void make_luts(tsr__t1_enc *e)
{
    for (int m = 0; m < 256; m++) {
        const int H = !!(m & NB_W) + !!(m & NB_E), V = !!(m & NB_N) + !!(m & NB_S);
        const int D = !!(m & NB_NW) + !!(m & NB_NE) + !!(m & NB_SW) + !!(m & NB_SE);
        for (int o = 0; o < 4; o++)
            e->zc_lut[o][m] = (uint8_t)zc_of(o, H, V, D);
        /* low nibble: W, E, N, S significant; high nibble: the same ones negative */
        const int c[4] = {(m & 1) ? ((m & 16) ? -1 : 1) : 0, (m & 2) ? ((m & 32) ? -1 : 1) : 0,
                          (m & 4) ? ((m & 64) ? -1 : 1) : 0, (m & 8) ? ((m & 128) ? -1 : 1) : 0};
        int hc = c[0] + c[1], vc = c[2] + c[3];
        hc = hc > 1 ? 1 : hc < -1 ? -1 : hc;
        vc = vc > 1 ? 1 : vc < -1 ? -1 : vc;
        const int ctx[3][3] = {{13, 12, 11}, {10, 9, 10}, {11, 12, 13}}; /* Table D.3 */
        const int xo[3][3] = {{0, 0, 0}, {0, 0, 1}, {1, 1, 1}};
        e->sc_lut[m] = (uint8_t)ctx[1 - hc][1 - vc];
        e->xr_lut[m] = (uint8_t)xo[1 - hc][1 - vc];
    }
    e->luts_ready = 1;
}

TSR__T1_FN int any_neighbour(const tsr__t1_enc *e, int x, int y)
{
    return e->nb[y * e->w + x] != 0;
}

/* Zero-coding context (Table D.1). */
TSR__T1_FN int zc_context(const tsr__t1_enc *e, int x, int y)
{
    return e->zc_lut[e->orient][e->nb[y * e->w + x]];
}

/* Sign-coding context and XOR bit (Tables D.2, D.3). */
TSR__T1_FN void sc_context(const tsr__t1_enc *e, int x, int y, int *cx, int *xr)
{
    const int i = y * e->w + x;
    const int m = (e->nb[i] & 15) | (e->nbneg[i] << 4);
    *cx = e->sc_lut[m];
    *xr = e->xr_lut[m];
}

/* Coefficient (x, y) became significant: its neighbours' masks learn it. A neighbour in the
 * stripe above does not see it with vertically causal contexts (D.3.1: the next stripe's
 * samples count as insignificant). */
TSR__T1_FN void tell_neighbours(tsr__t1_enc *e, int x, int y, int negative)
{
    const int w = e->w, h = e->h, i = y * w + x;
    const int up = y > 0 && !((e->style & TSR__T1_STYLE_VCAUSAL) && y % 4 == 0);
    e->stripe_live[y >> 2] = 1; /* its own stripe: i is significant */
    if (x > 0) {
        e->nb[i - 1] |= NB_E;
        e->nbneg[i - 1] |= (uint8_t)(negative ? 2 : 0);
    }
    if (x + 1 < w) {
        e->nb[i + 1] |= NB_W;
        e->nbneg[i + 1] |= (uint8_t)(negative ? 1 : 0);
    }
    if (up) {
        e->stripe_live[(y - 1) >> 2] = 1;
        e->nb[i - w] |= NB_S;
        e->nbneg[i - w] |= (uint8_t)(negative ? 8 : 0);
        if (x > 0)
            e->nb[i - w - 1] |= NB_SE;
        if (x + 1 < w)
            e->nb[i - w + 1] |= NB_SW;
    }
    if (y + 1 < h) {
        e->stripe_live[(y + 1) >> 2] = 1;
        e->nb[i + w] |= NB_N;
        e->nbneg[i + w] |= (uint8_t)(negative ? 4 : 0);
        if (x > 0)
            e->nb[i + w - 1] |= NB_NE;
        if (x + 1 < w)
            e->nb[i + w + 1] |= NB_NW;
    }
}

TSR__T1_AI void put_bit(tsr__t1_enc *e, int cx, int bit)
{
    if (!e->raw) {
        tsr__mqe_encode(&e->mq, &e->cx[cx], bit);
        return;
    }
    /* raw segment (D.6): bits as they come, a 0 stuffed after each 0xFF byte */
    e->rcur = e->rcur << 1 | (uint32_t)bit;
    if (++e->rnb == e->rcap) {
        if (e->segstart + e->rlen < e->buf + e->cap)
            e->segstart[e->rlen++] = (uint8_t)e->rcur;
        else
            e->overflow = 1;
        e->rcap = e->rcur == 0xFF ? 7 : 8;
        e->rcur = 0;
        e->rnb = 0;
    }
}

TSR__T1_FN void start_segment(tsr__t1_enc *e, int raw)
{
    e->raw = raw;
    if (e->used + 2 > e->cap) { /* the output is unusable from here: flagged */
        e->overflow = 1;
        e->used = 0;
    }
    if (raw) {
        e->segstart = e->buf + e->used;
        e->rcur = 0;
        e->rnb = 0;
        e->rcap = 8;
        e->rlen = 0;
    } else {
        tsr__mqe_init(&e->mq, e->buf + e->used, e->cap - e->used);
        e->segstart = e->mq.start;
    }
}

TSR__T1_FN void end_segment(tsr__t1_enc *e, int npasses)
{
    uint32_t len;
    if (e->raw) {
        if (e->rnb) {
            if (e->segstart + e->rlen < e->buf + e->cap)
                e->segstart[e->rlen++] = (uint8_t)(e->rcur << (e->rcap - e->rnb));
            else
                e->overflow = 1;
        }
        len = (uint32_t)e->rlen;
    } else {
        len = tsr__mqe_flush(&e->mq);
        e->overflow |= e->mq.overflow;
    }
    if (e->nsegs >= (int)TSR__T1_MAX_SEGS) {
        e->overflow = 1;
        return;
    }
    e->segs[e->nsegs].data = e->segstart;
    e->segs[e->nsegs].len = len;
    e->segs[e->nsegs].npasses = (uint32_t)npasses;
    e->nsegs++;
    /* two bytes of room after a segment: the MQ encoder's scratch byte of the next one */
    e->used = (size_t)(e->segstart - e->buf) + len + 2;
}

TSR__T1_FN void code_sign(tsr__t1_enc *e, int x, int y, int i)
{
    int cx, xr;
    sc_context(e, x, y, &cx, &xr);
    if (e->raw) /* raw passes carry the sign bit itself (D.6) */
        xr = 0;
    put_bit(e, cx, (e->coef[i] < 0) ^ xr);
}

/* The decoder's reconstruction, in steps, of magnitude mag known down to plane p (r = 1/2). */
TSR__T1_FN double recon(int mag, int p)
{
    return (double)((mag >> p) << p) + 0.5 * (double)(1 << p);
}

/* The squared error removed when coefficient i's magnitude becomes known down to plane p
 * (from plane p + 1, or from nothing when it just became significant). */
TSR__T1_FN void track_error(tsr__t1_enc *e, int i, int p, int first)
{
    if (!e->track)
        return;
    const int mag = mag_of(e, i);
    const double t = e->exact ? mag : mag + 0.5, before = first ? t : t - recon(mag, p + 1),
                 after = e->exact && p == 0 ? 0 : t - recon(mag, p);
    e->dist += before * before - after * after;
}

TSR__T1_AI void make_significant(tsr__t1_enc *e, int i, int pass, int p)
{
    e->sig[i] = 1;
    e->neg[i] = e->coef[i] < 0;
    e->sig_pass[i] = pass;
    tell_neighbours(e, i % e->w, i / e->w, e->neg[i]);
    track_error(e, i, p, 1);
}

/* One pass of bit-plane p: type 0 significance propagation (D.3.1), 1 magnitude refinement
 * (D.3.3), 2 cleanup (D.3.4), over stripes of four rows, column by column. Inlined where type
 * is a constant (code_pass_of): one loop per pass type, without the type tests inside. */
TSR__T1_AI void code_pass(tsr__t1_enc *e, int pass, int type, int p)
{
    const int w = e->w, h = e->h;
    for (int y0 = 0; y0 < h; y0 += 4) {
        /* nothing significant in or next to the stripe: neither pass codes anything there */
        if (type != 2 && !e->stripe_live[y0 >> 2])
            continue;
        for (int x = 0; x < w; x++) {
            int ye = y0 + 4 < h ? y0 + 4 : h, y = y0;
            if (type == 2 && ye - y0 == 4) {
                /* run mode needs every neighbour insignificant: context 0 (Table D.1) is an
                 * empty neighbour mask in every orientation */
                int any = 0;
                for (int k = 0; k < 4; k++) {
                    int i = (y0 + k) * w + x;
                    any |= e->sig[i] | e->vis[i] | e->nb[i];
                }
                if (!any) {
                    int r = -1;
                    for (int k = 0; k < 4 && r < 0; k++)
                        if ((mag_of(e, (y0 + k) * w + x) >> p) & 1)
                            r = k;
                    put_bit(e, 17, r >= 0);
                    if (r < 0)
                        continue;
                    put_bit(e, 18, r >> 1);
                    put_bit(e, 18, r & 1);
                    int i = (y0 + r) * w + x;
                    code_sign(e, x, y0 + r, i);
                    make_significant(e, i, pass, p);
                    y = y0 + r + 1;
                }
            }
            for (; y < ye; y++) {
                int i = y * w + x, bit = (mag_of(e, i) >> p) & 1;
                if (type == 0) {
                    if (e->sig[i] || !any_neighbour(e, x, y))
                        continue;
                    put_bit(e, zc_context(e, x, y), bit);
                    if (bit) {
                        code_sign(e, x, y, i);
                        make_significant(e, i, pass, p);
                    }
                    e->vis[i] = 1;
                } else if (type == 1) {
                    if (!e->sig[i] || e->vis[i])
                        continue;
                    int cx = 16;
                    if (!e->ref[i])
                        cx = any_neighbour(e, x, y) ? 15 : 14;
                    put_bit(e, cx, bit);
                    e->ref[i] = 1;
                    track_error(e, i, p, 0);
                } else {
                    if (e->sig[i] || e->vis[i])
                        continue;
                    put_bit(e, zc_context(e, x, y), bit);
                    if (bit) {
                        code_sign(e, x, y, i);
                        make_significant(e, i, pass, p);
                    }
                }
            }
        }
    }
    if (type == 2) {
        memset(e->vis, 0, (size_t)w * (size_t)h);
        if (e->style & TSR__T1_STYLE_SEGSYM) { /* 1010 in the uniform context (D.5) */
            put_bit(e, 18, 1);
            put_bit(e, 18, 0);
            put_bit(e, 18, 1);
            put_bit(e, 18, 0);
        }
    }
}

TSR__T1_FN void code_pass_of(tsr__t1_enc *e, int pass, int type, int p)
{
    if (type == 0)
        code_pass(e, pass, 0, p);
    else if (type == 1)
        code_pass(e, pass, 1, p);
    else
        code_pass(e, pass, 2, p);
}

TSR__T1_FN int t1_encode_block(tsr__t1_enc *e)
{
    const size_t n = (size_t)e->w * (size_t)e->h;
    memset(e->sig, 0, n);
    memset(e->vis, 0, n);
    memset(e->ref, 0, n);
    memset(e->neg, 0, n);
    memset(e->nb, 0, n);
    memset(e->nbneg, 0, n);
    memset(e->stripe_live, 0, sizeof e->stripe_live);
    for (size_t i = 0; i < n; i++) {
        e->sig_pass[i] = 1 << 30;
        e->mag[i] = (uint32_t)(e->coef[i] < 0 ? -(int64_t)e->coef[i] : e->coef[i]);
    }
    if (!e->luts_ready)
        make_luts(e);
    reset_cx(e);
    e->nsegs = 0;
    e->used = 0;
    e->overflow = 0;
    const int np = e->K ? 3 * e->K - 2 : 0;
    int seg_first = 0, seg_max = 0;
    for (int pass = 0; pass < np; pass++) {
        if (pass == seg_first) {
            seg_max = (int)tsr__t1_segment_max_passes((unsigned)e->style, (uint32_t)pass,
                                                      (uint32_t)(np - pass), 0);
            start_segment(e, tsr__t1_pass_is_raw((unsigned)e->style, (uint32_t)pass));
        }
        const int type = pass == 0 ? 2 : (pass - 1) % 3;
        const int p = e->K - 1 - (pass + 2) / 3;
        e->dist = 0;
        code_pass_of(e, pass, type, p);
        if (e->track) {
            /* a truncation after this pass: the bytes out so far and the three that still hold
             * C register's bits (T.800 C.2: at most 27 bits are pending) */
            e->pass_dist[pass] = e->dist;
            e->pass_rate[pass] = (uint32_t)(e->mq.bp - e->mq.start) + 3;
        }
        if (e->style & TSR__T1_STYLE_RESET)
            reset_cx(e);
        if (pass + 1 == np || pass + 1 - seg_first == seg_max) {
            end_segment(e, pass + 1 - seg_first);
            seg_first = pass + 1;
        }
    }
    if (e->track && e->nsegs == 1) {
        /* rates within the flushed segment, never ending on 0xFF (a decoder would read it as
         * the first half of a marker) */
        const uint32_t total = e->segs[0].len;
        for (int pass = 0; pass < np; pass++) {
            uint32_t r = pass + 1 == np || e->pass_rate[pass] > total ? total : e->pass_rate[pass];
            if (r > 1 && r < total && e->segs[0].data[r - 1] == 0xFF)
                r--;
            if (pass > 0 && r < e->pass_rate[pass - 1])
                r = e->pass_rate[pass - 1];
            e->pass_rate[pass] = r;
        }
    }
    return np;
}

#endif
