/* Scalar quantisation parameters for irreversible coding (T.800 E.1): the synthesis norms of
 * the 9/7 sub-bands, measured on the decoder's own inverse transform (and those of the 5/3,
 * which rate control weighs reversible coefficients by), and the encoding of a step size as
 * exponent and mantissa. */
#include "j2k/decode_stages.h"
#include "j2k/encode_stages.h"

#include <math.h>
#include <string.h>

/* The inverse 5/3 (F.3.8.2, F.4) of an interleaved line of even length n >= 4 starting at an
 * even position, in float without the rounding of the reversible integer steps: the
 * filter's linear part, whose norms the integer transform's errors follow. */
static void dwt53_line_float(float *x, uint32_t n, uint32_t i0)
{
    (void)i0;
    for (uint32_t i = 0; i < n; i += 2) /* even samples: x[-1] mirrors to x[1] */
        x[i] -= ((i ? x[i - 1] : x[i + 1]) + x[i + 1]) * 0.25f;
    for (uint32_t i = 1; i < n; i += 2) /* odd samples: x[n] mirrors to x[n - 2] */
        x[i] += (x[i - 1] + (i + 1 < n ? x[i + 1] : x[i - 1])) * 0.5f;
}

/* The 1-D synthesis norm of a low-pass (high = 0) or high-pass (high = 1) coefficient at level
 * `level` (1..TSR__DWT_NORM_LEVELS): an impulse in the middle of that band, reconstructed
 * level by level through the inverse line transform `line`; the square root of its energy.
 * x, t: 2 n floats. */
static double norm1(void (*line)(float *, uint32_t, uint32_t), int high, uint32_t level, float *x,
                    float *t)
{
    const uint32_t n = TSR__DWT_NORM_BASE << level;
    uint32_t m = n >> level; /* coefficients per band at this level */
    memset(t, 0, (size_t)2 * m * sizeof *t);
    t[(high ? m : 0) + m / 2] = 1.0f; /* low band [0, m), high band [m, 2m) */
    for (uint32_t lev = level; lev >= 1; lev--) {
        const uint32_t len = 2 * m;
        for (uint32_t i = 0; i < m; i++) {
            x[2 * i] = t[i];
            x[2 * i + 1] = t[m + i];
        }
        line(x, len, 0);
        /* the reconstruction is the next level's low band; its high band is zero */
        memcpy(t, x, len * sizeof *t);
        memset(t + len, 0, len * sizeof *t);
        m = len;
    }
    double e = 0;
    for (uint32_t i = 0; i < n; i++)
        e += (double)x[i] * x[i];
    return sqrt(e);
}

tsr_status tsr__dwt_norms_init(tsr_ctx *ctx, int reversible, tsr__dwt_norms *nt)
{
    const size_t n = (size_t)TSR__DWT_NORM_BASE << TSR__DWT_NORM_LEVELS;
    float *buf;
    tsr_status st = tsr__alloc(ctx, 4 * n * sizeof *buf, (void **)&buf);
    if (st)
        return st;
    void (*line)(float *, uint32_t, uint32_t) = reversible ? dwt53_line_float : tsr__dwt97_line;
    nt->lo[0] = nt->hi[0] = 1.0;
    for (uint32_t l = 1; l <= TSR__DWT_NORM_LEVELS; l++) {
        nt->lo[l] = norm1(line, 0, l, buf, buf + 2 * n);
        nt->hi[l] = norm1(line, 1, l, buf, buf + 2 * n);
    }
    tsr__free(ctx, buf);
    return TSR_OK;
}

double tsr__dwt_norm(const tsr__dwt_norms *nt, uint32_t orient, uint32_t level)
{
    if (level == 0)
        return 1.0;
    /* beyond the table each level multiplies the low-pass norm by the same factor */
    const uint32_t L = TSR__DWT_NORM_LEVELS;
    double grow = 1.0;
    uint32_t l = level;
    if (l > L) {
        grow = pow(nt->lo[L] / nt->lo[L - 1], (double)(l - L));
        l = L;
    }
    const double lo = nt->lo[l] * grow, hi = nt->hi[l] * grow;
    /* orient 0 LL: low x low; 1 HL: high horizontally; 2 LH: high vertically; 3 HH */
    return orient == 0 ? lo * lo : orient == 3 ? hi * hi : lo * hi;
}

int tsr__j2k_step_encode(double delta, uint32_t range_bits, tsr__j2k_step *out)
{
    if (!(delta > 0) || !isfinite(delta))
        return 0;
    int f = (int)floor(log2(delta));
    double m = (delta / ldexp(1.0, f) - 1.0) * 2048.0;
    long mant = lround(m);
    if (mant >= 2048) {
        mant = 0;
        f++;
    }
    const int e = (int)range_bits - f;
    if (e < 0 || e > 31)
        return 0;
    out->expn = (uint16_t)e;
    out->mant = (uint16_t)mant;
    return 1;
}
