/* Lifting on a window of a line in shared memory, for the device's inverse (xform_cuda.cu) and
 * forward (fxform_cuda.cu) wavelet transforms: the window's positions mirrored into the line
 * (whole-sample symmetric extension, F.3.7 and F.4.8.1), where an interleaved position lies in
 * the deinterleaved layout, and one lifting step over the window's positions of one parity.
 *
 * A window of W samples lifted with mirrored ends gives exact values in [k, W - k) after k
 * steps: each step reads one neighbour either side, and mirroring keeps the extension
 * symmetric through every step (a mirrored position has its original's parity and mirrored
 * neighbours, so it gets the same operands: a + b is commutative in IEEE arithmetic too). */
#ifndef TSR_J2K_DWT_WINDOW_CUH
#define TSR_J2K_DWT_WINDOW_CUH

#include <stdint.h>

/* Position g of a line of n >= 2 samples mirrored into [0, n) (whole-sample symmetric
 * extension, period 2 (n - 1), parity kept). */
__device__ static inline int64_t tsr__dwt_mirror(int64_t g, int64_t n)
{
    if (g >= 0 && g < n)
        return g;
    const int64_t p = 2 * (n - 1);
    int64_t m = g % p;
    m = m < 0 ? m + p : m;
    return m >= n ? p - m : m;
}

/* Where interleaved position i (0 <= i < n, low-pass where i's parity is cas) of a line lies in
 * its deinterleaved layout: the low samples first (sn of them), then the high ones; element
 * i >> 1 of either half. */
__device__ static inline int64_t tsr__dwt_deinterleaved(int64_t i, uint32_t cas, int64_t sn)
{
    return ((uint32_t)i & 1) == cas ? i >> 1 : sn + (i >> 1);
}

/* One lifting step over the window positions t of parity LOW (low-pass: t + q even) in
 * [a, W - a), f(t) each, by nth threads (this one tid), then a barrier. */
template <bool LOW, typename F>
__device__ static inline void tsr__dwt_step(int W, int a, uint32_t q, int tid, int nth, F f)
{
    const int first = a + (int)(((uint32_t)a + q + (LOW ? 0u : 1u)) & 1u);
    for (int t = first + 2 * tid; t < W - a; t += 2 * nth)
        f(t);
    __syncthreads();
}

#endif
