/* The truncation candidates of an HT code-block (contract in encode_stages.h): every base plane's
 * HT set coded for real (ht_encode.h), its error from the reconstruction rules of t1.h section 3
 * applied to the samples each pass codes. */
#include "j2k/encode_stages.h"
#include "j2k/ht_encode.h"

#include <math.h>

/* The decoder's magnitude, in steps, of a sample whose known bits are Q (its bits below plane p
 * unknown, Q != 0): the middle of what is left (r = 1/2), which for reversible coefficients is
 * rounded down to an integer, exact when p = 0. half[p] = 2^(p - 1). */
static double recon(uint32_t Q, uint32_t p, int rev, const double *half)
{
    return (double)Q + (rev && p == 0 ? 0.0 : half[p]);
}

static void add_set(tsr__j2k_ht_set *sets, uint32_t *n, uint32_t *rate, double *dist, double *prev,
                    double err, tsr__j2k_ht_set set)
{
    sets[*n] = set;
    rate[*n] = set.lcup + set.lref;
    dist[*n] = *prev - err;
    *prev = err;
    (*n)++;
}

uint32_t tsr__j2k_ht_candidates(const int32_t *coef, const float *mag, uint32_t w, uint32_t h,
                                uint32_t K, int32_t *tmp, uint8_t *buf, tsr__j2k_bytes *out,
                                tsr__j2k_ht_set *sets, uint32_t *rate, double *dist, double *err0)
{
    const size_t n = (size_t)w * h, ccap = tsr__ht_encode_bound(w, h),
                 rcap = tsr__ht_refine_bound(w, h), base = out->len;
    const int rev = mag == NULL;
    uint8_t newsig[4096];
    double half[31];
    for (int p = 0; p < 31; p++)
        half[p] = ldexp(1.0, p - 1);
    double e0 = 0;
    for (size_t i = 0; i < n; i++) {
        const double a = rev ? fabs((double)coef[i]) : (double)mag[i];
        e0 += a * a;
    }
    *err0 = e0;
    double prev = e0;
    uint32_t ns = 0;
    if (K < 1 || K > 30)
        return 0;
    for (uint32_t p = K; p-- > 0;) {
        for (size_t i = 0; i < n; i++) {
            const uint32_t m = coef[i] < 0 ? (uint32_t)-coef[i] : (uint32_t)coef[i];
            tmp[i] = coef[i] < 0 ? -(int32_t)(m >> p) : (int32_t)(m >> p);
        }
        const long lcup = tsr__ht_encode_block(tmp, w, h, buf, ccap);
        if (lcup <= 0)
            return 0;
        long lmr = 0;
        size_t lsp = 0; /* SigProp alone: the first lsp bytes of SigProp and MagRef's segment */
        if (p > 0 &&
            (lmr = tsr__ht_encode_refine(coef, w, h, p, 1, buf + lcup, rcap, newsig, &lsp)) < 0)
            return 0;
        /* the errors after the cleanup, SigProp and MagRef passes */
        double ec = 0, es = 0, em = 0;
        for (size_t i = 0; i < n; i++) {
            const uint32_t q = coef[i] < 0 ? (uint32_t)-coef[i] : (uint32_t)coef[i];
            const double a = rev ? (double)q : (double)mag[i];
            const uint32_t mu = q >> p;
            const double rc = mu ? recon(mu << p, p, rev, half) : 0.0, dc = (a - rc) * (a - rc);
            ec += dc;
            if (p == 0)
                continue;
            if (mu) {
                const double rm = recon((q >> (p - 1)) << (p - 1), p - 1, rev, half);
                es += dc;
                em += (a - rm) * (a - rm);
            } else if (newsig[i]) {
                const double rs = recon(1u << (p - 1), p - 1, rev, half), ds = (a - rs) * (a - rs);
                es += ds;
                em += ds;
            } else {
                es += dc;
                em += dc;
            }
        }
        /* the cleanup segment, then SigProp and MagRef's: SigProp's alone is its prefix */
        const uint32_t at = (uint32_t)(out->len - base), ref = at + (uint32_t)lcup;
        tsr__j2k_bytes_put(out, buf, (size_t)(lcup + lmr));
        add_set(sets, &ns, rate, dist, &prev, ec,
                (tsr__j2k_ht_set){at, ref, (uint32_t)lcup, 0, (uint8_t)p, 1});
        if (lsp > 0)
            add_set(sets, &ns, rate, dist, &prev, es,
                    (tsr__j2k_ht_set){at, ref, (uint32_t)lcup, (uint32_t)lsp, (uint8_t)p, 2});
        if (lmr > 0)
            add_set(sets, &ns, rate, dist, &prev, em,
                    (tsr__j2k_ht_set){at, ref, (uint32_t)lcup, (uint32_t)lmr, (uint8_t)p, 3});
    }
    return out->st ? 0 : ns;
}
