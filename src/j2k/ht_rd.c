/* The truncation candidates of an HT code-block (contract in encode_stages.h) on the CPU: the
 * planes coded one after another straight into the output bytes (all of a block's at once, or a
 * plane at a time for HT rate control to a size) by the CPU's coders (tsr__ht_encode_plane,
 * tsr__ht_encode_refine), their errors summed as ht_rd_hd.h's lanes sum them, and the sets
 * assembled by ht_rd_hd.h's parts, which the device shares: the same bytes, errors and sets. */
#include "j2k/encode_stages.h"
#include "j2k/ht_encode.h"
#include "j2k/ht_rd_hd.h"

#include "core/simd_switch.h"
#include "core/target.h"
#include "j2k/ht_bits.h"

#include <string.h>

_Static_assert(TSR__J2K_HT_RD_SCRATCH == 3 * 4096 + TSR__HT_REFINE_FLAGS,
               "the candidates' scratch: MEL, VLC, new significances, refinement flags");

/* Sample k of a block is added to partial sum k % lanes in the order of k, then the partial
 * sums in order (ht_rd_hd.h): here a row of lanes at a time, which the compiler vectorises
 * across the lanes without changing any sum's order. */
enum { LANES = TSR__J2K_HT_ERR_LANES };

double tsr__j2k_ht_err0(const int32_t *coef, const float *mag, uint32_t w, uint32_t h)
{
    double s[LANES] = {0};
    const uint32_t n = w * h;
    for (uint32_t k0 = 0; k0 < n; k0 += LANES) {
        const uint32_t m = n - k0 < LANES ? n - k0 : LANES;
        for (uint32_t l = 0; l < m; l++) {
            const double a = mag ? (double)mag[k0 + l] : fabs((double)coef[k0 + l]);
            s[l] += a * a;
        }
    }
    double e0 = 0;
    for (uint32_t l = 0; l < LANES; l++)
        e0 += s[l];
    return e0;
}

/* One row of lanes, samples coef[l] (magnitudes mag[l] when irreversible, rev 0), base plane p
 * (refine: p >= 1, with the SigProp and MagRef sums; else the cleanup's alone), r the
 * reconstruction offsets plane_errors gives: tsr__j2k_ht_plane_errors_hd's terms added to the
 * partial sums, the selects between terms computed (vectorised: ht_rd.c's flags). */
static inline __attribute__((always_inline)) void
lane_errors(const int32_t *restrict coef, const float *restrict mag, const uint8_t *restrict newsig,
            uint32_t p, int rev, int refine, const double *r, double *restrict sc,
            double *restrict ss, double *restrict sm)
{
    const double hc = r[0], hm = r[1], rs = r[2];
    for (uint32_t l = 0; l < LANES; l++) { /* |coef| < 2^30: the integers as int32_t */
        const int32_t q = coef[l] < 0 ? -coef[l] : coef[l], mu = q >> p;
        const double a = rev ? (double)q : (double)mag[l];
        const double rt = (double)(mu << p) + hc, rc = mu ? rt : 0.0, dc = (a - rc) * (a - rc);
        sc[l] += dc;
        if (!refine)
            continue;
        const double rm = (double)((q >> (p - 1)) << (p - 1)) + hm, dm = (a - rm) * (a - rm);
        const double ds = (a - rs) * (a - rs), dn = newsig[l] ? ds : dc;
        ss[l] += mu ? dc : dn;
        sm[l] += mu ? dm : dn;
    }
}

typedef void lanes_fn(const int32_t *coef, const float *mag, const uint8_t *newsig, uint32_t p,
                      const double *r, double *sc, double *ss, double *sm);
/* lane_errors specialised: rev and refine constants (the selects between terms vectorised
 * without branches), for the baseline and, picked at run time, for AVX2 (four doubles a
 * vector; no FMA, the project's -ffp-contract=off: the same sums). */
#define LANES_FN(name, rev, refine)                                                                \
    static __attribute__((noinline)) void name(const int32_t *coef, const float *mag,              \
                                               const uint8_t *newsig, uint32_t p, const double *r, \
                                               double *sc, double *ss, double *sm)                 \
    {                                                                                              \
        lane_errors(coef, mag, newsig, p, rev, refine, r, sc, ss, sm);                             \
    }
#define LANES_FNS(suffix)                                                                          \
    LANES_FN(lanes_irr0##suffix, 0, 0)                                                             \
    LANES_FN(lanes_rev0##suffix, 1, 0)                                                             \
    LANES_FN(lanes_irr##suffix, 0, 1)                                                              \
    LANES_FN(lanes_rev##suffix, 1, 1)                                                              \
    static lanes_fn *const g_lanes##suffix[2][2] = {{lanes_irr0##suffix, lanes_rev0##suffix},      \
                                                    {lanes_irr##suffix, lanes_rev##suffix}};
LANES_FNS()
#if TSR__X86_TARGETS
TSR__TARGET_BEGIN("avx2")
LANES_FNS(_avx2)
TSR__TARGET_END
#endif
#undef LANES_FNS
#undef LANES_FN

/* The lane sums' function for [refine][rev]: AVX2's where the processor has it (the HT coders'
 * switch, tsr__ht_cpu_level). */
static lanes_fn *lanes_for(int refine, int rev)
{
#if TSR__X86_TARGETS
    static tsr__simd_switch sw = TSR__SIMD_SWITCH(tsr__ht_cpu_level, 1);
    if (tsr__simd_on(&sw))
        return g_lanes_avx2[refine][rev];
#endif
    return g_lanes[refine][rev];
}

/* tsr__j2k_ht_plane_errors_hd's sums over every lane, in its order: e[0..2] the block's squared
 * error after base plane p's cleanup, SigProp and MagRef passes (those two 0 at p 0, where
 * newsig is unread). The last row of lanes is padded with zero samples, whose terms are +0: the
 * sums unchanged. */
static void plane_errors(const int32_t *coef, const float *mag, uint32_t w, uint32_t h, uint32_t p,
                         const uint8_t *newsig, double e[3])
{
    const int rev = mag == NULL;
    const uint32_t n = w * h;
    double half[31];
    tsr__ht_halves(half);
    /* tsr__ht_recon's offsets: the cleanup's at p, MagRef's at p - 1, SigProp's new sample's */
    double r[3] = {rev && p == 0 ? 0.0 : half[p], 0, 0};
    if (p > 0) {
        r[1] = rev && p == 1 ? 0.0 : half[p - 1];
        r[2] = (double)(1u << (p - 1)) + r[1];
    }
    lanes_fn *const fn = lanes_for(p > 0, rev);
    double sc[LANES] = {0}, ss[LANES] = {0}, sm[LANES] = {0};
    int32_t tc[LANES] = {0};
    float tm[LANES] = {0};
    uint8_t tn[LANES] = {0};
    for (uint32_t k = 0; k < n; k += LANES) {
        const int32_t *c = coef + k;
        const float *m = rev ? NULL : mag + k;
        const uint8_t *ns = p ? newsig + k : NULL;
        if (n - k < LANES) { /* the last row, padded */
            memcpy(tc, c, (n - k) * sizeof *tc);
            c = tc;
            if (ns) {
                memcpy(tn, ns, n - k);
                ns = tn;
            }
            if (m) {
                memcpy(tm, m, (n - k) * sizeof *tm);
                m = tm;
            }
        }
        fn(c, m, ns, p, r, sc, ss, sm);
    }
    e[0] = e[1] = e[2] = 0;
    for (uint32_t l = 0; l < LANES; l++) {
        e[0] += sc[l];
        e[1] += ss[l];
        e[2] += sm[l];
    }
}

uint32_t tsr__j2k_ht_candidates(const int32_t *coef, const float *mag, uint32_t w, uint32_t h,
                                uint32_t K, uint8_t *buf, tsr__j2k_bytes *out,
                                tsr__j2k_ht_set *sets, uint32_t *rate, double *dist, double *err0)
{
    if (!w || !h || w > 1024 || (size_t)w * h > 4096)
        return 0;
    *err0 = tsr__j2k_ht_err0(coef, mag, w, h);
    if (K < 1 || K > 30)
        return 0;
    uint32_t ns = 0;
    double prev = *err0;
    size_t len = 0;
    for (uint32_t i = 0; i < K; i++)
        if (!tsr__j2k_ht_candidates_plane(coef, mag, w, h, K - 1 - i, buf, out, sets, &ns, rate,
                                          dist, &prev, &len))
            return 0;
    return ns;
}

int tsr__j2k_ht_candidates_plane(const int32_t *coef, const float *mag, uint32_t w, uint32_t h,
                                 uint32_t p, uint8_t *buf, tsr__j2k_bytes *out,
                                 tsr__j2k_ht_set *sets, uint32_t *ns, uint32_t *rate, double *dist,
                                 double *prev, size_t *len)
{
    const size_t ccap = tsr__ht_encode_bound(w, h), rcap = tsr__ht_refine_bound(w, h);
    if (!w || !h || w > 1024 || (size_t)w * h > 4096 || p > 29 ||
        tsr__j2k_bytes_reserve(out, ccap + rcap))
        return 0;
    uint8_t *seg = out->p + out->len;
    tsr__j2k_ht_plane pl = {0};
    const long lcup = tsr__ht_encode_plane(coef, w, w, h, p, seg, ccap);
    size_t lsp = 0;
    long lmr = 0; /* buf: SigProp's new significances */
    if (lcup <= 0 ||
        (p > 0 && (lmr = tsr__ht_encode_refine(coef, w, h, p, 1, seg + lcup, rcap, buf, &lsp)) < 0))
        return 0;
    pl.lcup = (int32_t)lcup;
    pl.lmr = (int32_t)lmr;
    pl.lsp = (uint32_t)lsp;
    double e[3];
    plane_errors(coef, mag, w, h, p, buf, e);
    pl.ec = e[0];
    pl.es = e[1];
    pl.em = e[2];
    const size_t before = *len;
    if (!tsr__j2k_ht_sets_add_hd(&pl, p, sets, ns, rate, dist, prev, len))
        return 0;
    out->len += *len - before;
    return 1;
}
