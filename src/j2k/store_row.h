/* The output row pass of a decoded tile-component (decode.c describes the plan), written once
 * and compiled twice: by decode.c for the baseline instruction set and by store_avx2.c for AVX2.
 * STORE_ROW names the function, STORE_SCOPE its linkage. Both builds run the same C operations
 * in the same order (integer clamps; float compares, one add and one subtract, never fused), so
 * their outputs are identical bit for bit; only the compiler's vector width differs. */
#if !defined(STORE_ROW) || !defined(STORE_SCOPE)
#error "define STORE_ROW and STORE_SCOPE (static or nothing) before including store_row.h"
#endif
#include "j2k/decode_stages.h"
#include "j2k/xform_hd.h"

/* Writes row y of the plan (absolute coordinates) to dst (nothing outside [y0, y1) or when
 * empty); dst may be the row's own samples (each is read before it is written). */
STORE_SCOPE void STORE_ROW(const tsr__j2k_store_plan *s, int64_t y, int32_t *dst)
{
    if (y < s->y0 || y >= s->y1 || s->x1 <= s->x0)
        return;
    const int64_t lo = s->lo, hi = s->hi, shift = s->shift;
    const int32_t *src = s->src + (size_t)(y - s->src_y0) * s->src_stride + (s->x0 - s->src_x0);
    int64_t n = s->x1 - s->x0;
    if (s->is_float && tsr__store_float_is_near(lo, hi)) {
        /* float clamps and the 1.5 * 2^23 rounding (xform_hd.h): vectorisable */
        const float *f = (const float *)src;
        const float flo = (float)(lo - shift), fhi = (float)(hi - shift);
        const int32_t sh = (int32_t)shift;
        for (int64_t i = 0; i < n; i++)
            dst[i] = tsr__store_float_near1(f[i], flo, fhi, sh);
    } else if (s->is_float) {
        const float *f = (const float *)src;
        for (int64_t i = 0; i < n; i++)
            dst[i] = tsr__store_float_far1(f[i], lo, hi, shift);
    } else {
        /* clamp to [lo, hi] - shift, then shift: the same as clamping the shifted value, all
         * in int32 (lo - shift and hi - shift are within +-2^30), vectorisable */
        const int32_t clo = (int32_t)(lo - shift), chi = (int32_t)(hi - shift);
        const int32_t sh = (int32_t)shift;
        for (int64_t i = 0; i < n; i++)
            dst[i] = tsr__store_int1(src[i], clo, chi, sh);
    }
}
