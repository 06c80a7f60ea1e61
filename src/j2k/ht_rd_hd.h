/* An HT code-block's refinement passes and truncation candidates, written once for the CPU
 * (ht_rd.c) and the device (encode_cuda.cu): integer arithmetic and IEEE double additions and
 * multiplications in a fixed order (no contraction in either build), so both give the same
 * bytes and the same distortions.
 *
 * Refinement (T.814 7.4, 7.5; contract in ht_encode.h): SigProp and MagRef of plane p - 1 after
 * a cleanup pass at p, in ht_decode.c's scan orders, written as its sigprop() and magref() read
 * them: the device's coder and the reference of the CPU's (ht_refine_encode.c, bit masks for
 * the same bytes; test_j2k_ht_encode compares the two). SigProp (7.1.5): forward, little-endian
 * bits, 7 bits after a 0xFF byte, the last byte padded with 0 (the reader's fill). MagRef (7.1.6):
 * from the segment's end backward, little-endian bits, 7 bits in a byte whose low 7 bits are all 1
 * after one above 0x8F (the reader starts as after 0xFF), the last byte padded with 0.
 *
 * Candidates (contract in encode_stages.h, tsr__j2k_ht_candidates, which ht_rd.c assembles from
 * these parts): every base plane's HT set coded for real (tsr__j2k_ht_plane_hd, one plane at a
 * time and independent of the others), its error from the reconstruction rules of t1.h section
 * 3 applied to the samples each pass codes; then the sets in order (tsr__j2k_ht_sets_hd). */
#ifndef TSR_J2K_HT_RD_HD_H
#define TSR_J2K_HT_RD_HD_H

#include "core/hd.h"
#include "j2k/ht_encode_hd.h"
#include "j2k/ht_write.h"

#ifdef __cplusplus
extern "C" {
#endif
#include "j2k/encode_stages.h"
#ifdef __cplusplus
}
#endif

#include <math.h>
#include <stddef.h>
#include <stdint.h>

enum { TSR__HT_RF_SIG = 1, TSR__HT_RF_NEW = 2 }; /* significant at p; made significant by SigProp */

/* Scratch of the refinement encoder's flags: a border of one zero sample, at most 3 x 4098
 * (w = 1). */
#define TSR__HT_REFINE_FLAGS (3 * 4098)

/* tsr__ht_encode_refine of coef with rows stride apart, fl: TSR__HT_REFINE_FLAGS bytes of
 * scratch; the limits (ht_encode.h's, p 1..30, cap) are the caller's to check. */
TSR_HD long tsr__ht_encode_refine_hd(const int32_t *coef, size_t stride, uint32_t w, uint32_t h,
                                     uint32_t p, int magref, uint8_t *buf, size_t cap,
                                     uint8_t *newsig, size_t *sp_len, uint8_t *fl)
{
    const size_t S = w + 2;
    memset(fl, 0, S * (h + 2));
    uint8_t *f0 = fl + S + 1;
    uint32_t sig_stripes[4096 / 4 / 32]; /* bit s: stripe s (rows 4s to 4s + 3) has SIG samples */
    memset(sig_stripes, 0, sizeof sig_stripes);
    for (uint32_t y = 0; y < h; y++) {
        uint32_t any = 0;
        for (uint32_t x = 0; x < w; x++) {
            const int32_t v = coef[(size_t)y * stride + x];
            const uint32_t m = (v < 0 ? (uint32_t)-v : (uint32_t)v) >> p;
            f0[y * S + x] = m ? TSR__HT_RF_SIG : 0;
            any |= m;
        }
        if (any)
            sig_stripes[y / 128] |= 1u << (y / 4 % 32);
    }
    if (newsig)
        memset(newsig, 0, (size_t)w * h);
    const uint32_t b = p - 1;

    fwd_wr sp = {buf, 0, cap, 0, 0, 8, 0};
    /* per column of the stripe and its border columns: the significance of the rows y0 - 1 to
     * y1 (the stripe and its border rows) as the pass goes; a 4 x 4 group with none of it in
     * its columns x0 - 1 to x1 has no sample with a significant neighbour, so codes no bit */
    uint8_t near[1024 + 2];
    for (uint32_t y0 = 0; y0 < h; y0 += 4) {
        const uint32_t y1 = y0 + 4 < h ? y0 + 4 : h;
        for (uint32_t x = 0; x < w + 2; x++) {
            const uint8_t *f = fl + (size_t)y0 * S + x; /* row y0 - 1, column x - 1 */
            uint8_t o = 0;
            for (uint32_t n = 0; n < y1 - y0 + 2; n++, f += S)
                o |= *f;
            near[x] = o;
        }
        for (uint32_t x0 = 0; x0 < w; x0 += 4) {
            const uint32_t x1 = x0 + 4 < w ? x0 + 4 : w;
            uint8_t live = 0;
            for (uint32_t x = x0; x < x1 + 2; x++)
                live |= near[x];
            if (!live)
                continue;
            for (uint32_t x = x0; x < x1; x++)
                for (uint32_t y = y0; y < y1; y++) {
                    uint8_t *f = f0 + y * S + x;
                    if (*f & TSR__HT_RF_SIG)
                        continue;
                    const uint32_t nb = f[-(ptrdiff_t)S - 1] | f[-(ptrdiff_t)S] |
                                        f[-(ptrdiff_t)S + 1] | f[-1] | f[1] | f[S - 1] | f[S] |
                                        f[S + 1];
                    if (!nb)
                        continue;
                    const int32_t v = coef[(size_t)y * stride + x];
                    const uint32_t bit = ((v < 0 ? (uint32_t)-v : (uint32_t)v) >> b) & 1;
                    fwd_put(&sp, bit, 1);
                    if (bit) {
                        *f |= TSR__HT_RF_NEW;
                        near[x + 1] |= TSR__HT_RF_NEW; /* SigProp's own, for the groups after */
                        if (newsig)
                            newsig[(size_t)y * w + x] = 1;
                    }
                }
            for (uint32_t x = x0; x < x1; x++)
                for (uint32_t y = y0; y < y1; y++)
                    if (f0[y * S + x] & TSR__HT_RF_NEW)
                        fwd_put(&sp, coef[(size_t)y * stride + x] < 0, 1);
        }
    }
    if (sp.nb)
        fwd_byte(&sp, sp.tmp);
    size_t len = sp.len;
    if (sp_len)
        *sp_len = sp.len;
    if (magref) {
        /* MagRef's bytes are written after SigProp's in the order made, then reversed */
        bwd_wr mr = {buf + len, 0, cap - len, 0, 0, 0xFF, 0};
        for (uint32_t y0 = 0; y0 < h; y0 += 4) {
            const uint32_t y1 = y0 + 4 < h ? y0 + 4 : h;
            if (!(sig_stripes[y0 / 128] >> (y0 / 4 % 32) & 1))
                continue; /* no sample to refine */
            for (uint32_t x = 0; x < w; x++)
                for (uint32_t y = y0; y < y1; y++)
                    if (f0[y * S + x] & TSR__HT_RF_SIG) {
                        const int32_t v = coef[(size_t)y * stride + x];
                        bwd_put(&mr, ((v < 0 ? (uint32_t)-v : (uint32_t)v) >> b) & 1, 1);
                    }
        }
        bwd_end(&mr);
        if (mr.over)
            return -1;
        for (size_t i = 0; i < mr.len / 2; i++) {
            const uint8_t t = mr.p[i];
            mr.p[i] = mr.p[mr.len - 1 - i];
            mr.p[mr.len - 1 - i] = t;
        }
        len += mr.len;
    }
    return sp.over ? -1 : (long)len;
}

/* The decoder's magnitude, in steps, of a sample whose known bits are Q (its bits below plane p
 * unknown, Q != 0): the middle of what is left (r = 1/2), which for reversible coefficients is
 * rounded down to an integer, exact when p = 0. half[p] = 2^(p - 1). */
TSR_HD double tsr__ht_recon(uint32_t Q, uint32_t p, int rev, const double *half)
{
    return (double)Q + (rev && p == 0 ? 0.0 : half[p]);
}

TSR_HD void tsr__ht_add_set(tsr__j2k_ht_set *sets, uint32_t *n, uint32_t *rate, double *dist,
                            double *prev, double err, tsr__j2k_ht_set set)
{
    sets[*n] = set;
    rate[*n] = set.lcup + set.lref;
    dist[*n] = *prev - err;
    *prev = err;
    (*n)++;
}

/* The halves of tsr__ht_recon: half[p] = 2^(p - 1), p = 0 .. 30. */
TSR_HD void tsr__ht_halves(double *half)
{
    half[0] = 0.5;
    for (int p = 1; p < 31; p++)
        half[p] = 2 * half[p - 1]; /* exact: ldexp(1.0, p - 1) */
}

/* A block's squared errors (with nothing coded, and after each pass of a base plane) are summed
 * in TSR__J2K_HT_ERR_LANES partial sums, sample k (row-major in the block) into sum k % lanes
 * in the order of k, then the partial sums in order: a warp's lanes on the device, a loop on the
 * CPU, the same additions. */
#define TSR__J2K_HT_ERR_LANES 32

/* Partial sum `lane` of the squared error of a block with nothing coded: its magnitudes'
 * squares (mag NULL: reversible, |coef|). */
TSR_HD double tsr__j2k_ht_err0_hd(const int32_t *coef, const float *mag, size_t stride, uint32_t w,
                                  uint32_t h, uint32_t lane)
{
    double e0 = 0;
    for (uint32_t k = lane; k < w * h; k += TSR__J2K_HT_ERR_LANES) {
        const size_t i = (size_t)(k / w) * stride + k % w;
        const double a = mag ? (double)mag[i] : fabs((double)coef[i]);
        e0 += a * a;
    }
    return e0;
}

/* What one base plane p of a block's candidates gives (tsr__j2k_ht_plane_hd). */
typedef struct tsr__j2k_ht_plane {
    int32_t lcup;      /* cleanup bytes; 0: a coder failed */
    int32_t lmr;       /* SigProp and MagRef's bytes (0 at p = 0) */
    uint32_t lsp;      /* SigProp's alone: the first lsp of them */
    double ec, es, em; /* the block's squared error after the cleanup, SigProp, MagRef passes */
} tsr__j2k_ht_plane;

/* Partial sum `lane` of the errors (e: cleanup, SigProp, MagRef) of base plane p's passes over
 * coef and mag (NULL: reversible), newsig as tsr__ht_encode_refine leaves it (unread at p 0). */
TSR_HD void tsr__j2k_ht_plane_errors_hd(const int32_t *coef, const float *mag, size_t stride,
                                        uint32_t w, uint32_t h, uint32_t p, const uint8_t *newsig,
                                        uint32_t lane, double e[3])
{
    const int rev = mag == NULL;
    double half[31];
    tsr__ht_halves(half);
    double ec = 0, es = 0, em = 0;
    for (uint32_t k = lane; k < w * h; k += TSR__J2K_HT_ERR_LANES) {
        const size_t i = (size_t)(k / w) * stride + k % w;
        const uint32_t q = coef[i] < 0 ? (uint32_t)-coef[i] : (uint32_t)coef[i];
        const double a = rev ? (double)q : (double)mag[i];
        const uint32_t mu = q >> p;
        const double rc = mu ? tsr__ht_recon(mu << p, p, rev, half) : 0.0, dc = (a - rc) * (a - rc);
        ec += dc;
        if (p == 0)
            continue;
        if (mu) {
            const double rm = tsr__ht_recon((q >> (p - 1)) << (p - 1), p - 1, rev, half);
            es += dc;
            em += (a - rm) * (a - rm);
        } else if (newsig[k]) {
            const double rs = tsr__ht_recon(1u << (p - 1), p - 1, rev, half),
                         ds = (a - rs) * (a - rs);
            es += ds;
            em += ds;
        } else {
            es += dc;
            em += dc;
        }
    }
    e[0] = ec;
    e[1] = es;
    e[2] = em;
}

/* Base plane p's refinement segment (after its cleanup segment of lcup bytes, > 0, at buf) into
 * buf + lcup (rcap bytes) with scratch as tsr__j2k_ht_plane_hd's (newsig filled): r's lengths;
 * r->lcup 0 when the coder fails. */
TSR_HD void tsr__j2k_ht_plane_refine_hd(const int32_t *coef, size_t stride, uint32_t w, uint32_t h,
                                        uint32_t p, long lcup, size_t rcap, uint8_t *scratch,
                                        uint8_t *buf, tsr__j2k_ht_plane *r)
{
    long lmr = 0;
    size_t lsp = 0; /* SigProp alone: the first lsp bytes of SigProp and MagRef's segment */
    r->lcup = 0;
    r->lmr = 0;
    r->lsp = 0;
    if (p > 0 && (lmr = tsr__ht_encode_refine_hd(coef, stride, w, h, p, 1, buf + lcup, rcap,
                                                 scratch + 2 * 4096, &lsp, scratch + 3 * 4096)) < 0)
        return;
    r->lcup = (int32_t)lcup;
    r->lmr = (int32_t)lmr;
    r->lsp = (uint32_t)lsp;
}

/* Base plane p's HT set of coef and mag (as tsr__j2k_ht_candidates_hd's) coded into buf (at
 * least ccap + rcap bytes: the cleanup segment, then SigProp and MagRef's) with scratch of
 * TSR__J2K_HT_RD_SCRATCH bytes (MEL, VLC, new significances, refinement flags), and the errors
 * after each of its passes. Planes are independent of each other: the device codes them in
 * parallel (a warp a plane: the cleanup by ht_encode_warp.cuh, the refinement by one lane, the
 * errors' partial sums by lanes), the CPU one after another. */
TSR_HD void tsr__j2k_ht_plane_hd(const int32_t *coef, const float *mag, size_t stride, uint32_t w,
                                 uint32_t h, uint32_t p, size_t ccap, size_t rcap,
                                 const uint16_t (*tables)[8 * 16][17], uint8_t *scratch,
                                 uint8_t *buf, tsr__j2k_ht_plane *r)
{
    r->lcup = 0;
    r->lmr = 0;
    r->lsp = 0;
    const long lcup =
        tsr__ht_encode_cleanup(coef, stride, w, h, p, buf, ccap, tables, scratch, scratch + 4096);
    if (lcup <= 0)
        return;
    tsr__j2k_ht_plane_refine_hd(coef, stride, w, h, p, lcup, rcap, scratch, buf, r);
    if (r->lcup <= 0)
        return;
    double ec = 0, es = 0, em = 0;
    for (uint32_t lane = 0; lane < TSR__J2K_HT_ERR_LANES; lane++) {
        double e[3];
        tsr__j2k_ht_plane_errors_hd(coef, mag, stride, w, h, p, scratch + 2 * 4096, lane, e);
        ec += e[0];
        es += e[1];
        em += e[2];
    }
    r->ec = ec;
    r->es = es;
    r->em = em;
}

/* The candidates of one more plane, pl (base plane p), after *ns sets: its bytes at *len (its
 * cleanup segment, then its refinement segment), *len advanced past them, *prev the error of
 * the set before (e0 with nothing coded) and then of its last. Returns 0 when its coder failed. */
TSR_HD int tsr__j2k_ht_sets_add_hd(const tsr__j2k_ht_plane *r, uint32_t p, tsr__j2k_ht_set *sets,
                                   uint32_t *ns, uint32_t *rate, double *dist, double *prev,
                                   size_t *len)
{
    if (r->lcup <= 0)
        return 0;
    /* the cleanup segment, then SigProp and MagRef's: SigProp's alone is its prefix */
    const uint32_t at = (uint32_t)*len, ref = at + (uint32_t)r->lcup;
    *len += (size_t)r->lcup + (size_t)r->lmr;
    tsr__j2k_ht_set set = {at, ref, (uint32_t)r->lcup, 0, (uint8_t)p, 1};
    tsr__ht_add_set(sets, ns, rate, dist, prev, r->ec, set);
    if (r->lsp > 0) {
        set.lref = r->lsp;
        set.npasses = 2;
        tsr__ht_add_set(sets, ns, rate, dist, prev, r->es, set);
    }
    if (r->lmr > 0) {
        set.lref = (uint32_t)r->lmr;
        set.npasses = 3;
        tsr__ht_add_set(sets, ns, rate, dist, prev, r->em, set);
    }
    return 1;
}

/* The candidates (encode_stages.h's order) from the K planes' results pl[i] of base plane
 * K - 1 - i, whose bytes lie one plane after another, and the error e0 with nothing coded:
 * sets, rate and dist filled, *used the bytes of all planes. Returns the number of sets, 0 when
 * a plane's coder failed. */
TSR_HD uint32_t tsr__j2k_ht_sets_hd(const tsr__j2k_ht_plane *pl, uint32_t K, double e0,
                                    tsr__j2k_ht_set *sets, uint32_t *rate, double *dist,
                                    size_t *used)
{
    double prev = e0;
    uint32_t ns = 0;
    size_t len = 0;
    *used = 0;
    for (uint32_t i = 0; i < K; i++)
        if (!tsr__j2k_ht_sets_add_hd(&pl[i], K - 1 - i, sets, &ns, rate, dist, &prev, &len))
            return 0;
    *used = len;
    return ns;
}

#endif
