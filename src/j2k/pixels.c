/* Interleaved 8- or 16-bit pixels from decoded sample rows (tsr_j2k_decode_image, j2k.h). A
 * sample v of a component of precision p goes to the full output range: (v + off) * maxval /
 * (2^p - 1), rounded to nearest (halves up), where off = 2^(p - 1) for signed components and 0
 * otherwise, maxval 255 or 65535. When every precision equals the output's (8 or 16), that is
 * v + off, which the packing loops do without the division. */
#include "j2k/decode_stages.h"
#include "j2k/t1_internal.h"
#include "j2k/xform_hd.h"

void tsr__j2k_pixels_init(tsr__j2k_pixels *pk, const tsr_j2k_plane *p, uint32_t n, int wide)
{
    const uint64_t maxval = wide ? 65535 : 255;
    pk->n = n;
    pk->wide = wide;
    pk->exact = 1;
    for (uint32_t c = 0; c < 4; c++) {
        pk->off[c] = 0;
        pk->num[c] = pk->den[c] = 1;
    }
    for (uint32_t c = 0; c < n; c++) {
        pk->off[c] = p[c].is_signed ? (int32_t)1 << (p[c].precision - 1) : 0;
        pk->num[c] = maxval;
        pk->den[c] = ((uint64_t)1 << p[c].precision) - 1;
        if (pk->num[c] != pk->den[c])
            pk->exact = 0;
    }
}

/* The exact case with n and wide constants after inlining. The rows and offsets are copied
 * into locals first: byte stores may alias anything the caller's arrays hold, so reading
 * through s and off would reload them for every sample. */
static inline __attribute__((always_inline)) void pack_exact(const int32_t *const s[4],
                                                             const int32_t off[4], uint32_t n,
                                                             int wide, uint32_t k, void *out)
{
    uint8_t *restrict o8 = out;
    uint16_t *restrict o16 = out;
    const int32_t *restrict r[4] = {s[0], s[1], s[2], s[3]};
    const int32_t o[4] = {off[0], off[1], off[2], off[3]};
    for (uint32_t x = 0; x < k; x++)
        for (uint32_t c = 0; c < n; c++) {
            if (wide)
                o16[(size_t)x * n + c] = (uint16_t)(r[c][x] + o[c]);
            else
                o8[(size_t)x * n + c] = (uint8_t)(r[c][x] + o[c]);
        }
}

void tsr__j2k_pixels_row(const tsr__j2k_pixels *pk, const int32_t *const s[4], uint32_t k,
                         void *out)
{
    if (pk->exact) {
        switch (pk->n * 2 + (uint32_t)pk->wide) {
        case 2: pack_exact(s, pk->off, 1, 0, k, out); return;
        case 3: pack_exact(s, pk->off, 1, 1, k, out); return;
        case 4: pack_exact(s, pk->off, 2, 0, k, out); return;
        case 5: pack_exact(s, pk->off, 2, 1, k, out); return;
        case 6: {
            /* 8-bit RGB: 16-pixel groups with byte shuffles where the AVX2 builds run */
            const uint32_t x = tsr__ht_simd() ? tsr__j2k_pack3_avx2(s, pk->off, k, out) : 0;
            const int32_t *const rest[4] = {s[0] + x, s[1] + x, s[2] + x, NULL};
            pack_exact(rest, pk->off, 3, 0, k - x, (uint8_t *)out + (size_t)x * 3);
            return;
        }
        case 7: pack_exact(s, pk->off, 3, 1, k, out); return;
        case 8: pack_exact(s, pk->off, 4, 0, k, out); return;
        default: pack_exact(s, pk->off, 4, 1, k, out); return;
        }
    }
    for (uint32_t x = 0; x < k; x++)
        for (uint32_t c = 0; c < pk->n; c++) {
            const uint32_t v = tsr__pixel_scale1(s[c][x], pk->off[c], pk->num[c], pk->den[c]);
            if (pk->wide)
                ((uint16_t *)out)[(size_t)x * pk->n + c] = (uint16_t)v;
            else
                ((uint8_t *)out)[(size_t)x * pk->n + c] = (uint8_t)v;
        }
}
