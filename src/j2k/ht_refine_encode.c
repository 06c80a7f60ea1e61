/* HT refinement passes encoding (T.814 7.4, 7.5; contract in ht_encode.h): the bound, and the
 * CPU's encoder, which gives ht_rd_hd.h's tsr__ht_encode_refine_hd's bytes (the device's and
 * the reference; test_j2k_ht_encode compares the two) with the work arranged in bit masks.
 *
 * A stripe's column (its 4 rows, bit r for row y0 + r) is a nibble of each of: significance at
 * p, bit p - 1 of the magnitude, sign. With the rows above (significant at p or made so by
 * SigProp in the stripe before) and below (at p) it makes a 6-bit word E, and (E | E >> 1 |
 * E >> 2) & 0xF marks the rows that column neighbours. A sample is coded when it is
 * insignificant and its own or an adjacent column neighbours it, or the sample above it in its
 * column was coded and is made significant (a carry down the column, at most 3 steps): the
 * column's left neighbour has its new significances already, its right one not yet, as in the
 * reference's scan. A 4-column group's coded bits and then its signs go out in one write,
 * MagRef's bits of the group into a second writer in the same scan; a stripe with nothing
 * significant in it or next to it is skipped. The writers are ht_write_cpu.h's; cap at least
 * the bound leaves them nothing to check. */
#include "j2k/ht_encode.h"

#include "j2k/ht_write_cpu.h"

#include <string.h>

size_t tsr__ht_refine_bound(uint32_t w, uint32_t h)
{
    /* SigProp: at most 2 bits a sample, MagRef 1; 8/7 for stuffing, a padded byte each */
    return (size_t)w * h * 3 / 7 + 8;
}

/* Columns of all stripes of a block within the limits: w * ceil(h / 4) <= (4096 + 3 * 1024) / 4
 * (w <= 1024, w * h <= 4096). */
enum { RF_COLS = (4096 + 3 * 1024) / 4 };

/* MagRef's bytes: at most one bit a sample, 7 bits a byte, and the partial last byte. */
enum { RF_MR_CAP = 4096 / 7 + 8 };

/* The bits of v (bits 0-3) where m has ones, packed from bit 0 (bits 0-3), and m's count of ones
 * (bits 4-6): g_pack4[m << 4 | v]. */
#define PK_BIT(m, v, i)                                                                            \
    (((v) >> (i) & (m) >> (i)&1) << (((m)&1) * ((i) > 0) + ((m) >> 1 & 1) * ((i) > 1) +            \
                                     ((m) >> 2 & 1) * ((i) > 2)))
#define PK(m, v)                                                                                   \
    (PK_BIT(m, v, 0) | PK_BIT(m, v, 1) | PK_BIT(m, v, 2) | PK_BIT(m, v, 3) |                       \
     (((m)&1) + ((m) >> 1 & 1) + ((m) >> 2 & 1) + ((m) >> 3 & 1)) << 4)
#define PK4(m, v) PK(m, v), PK(m, v + 1), PK(m, v + 2), PK(m, v + 3)
#define PK16(m) PK4(m, 0), PK4(m, 4), PK4(m, 8), PK4(m, 12)
#define PK64(m) PK16(m), PK16(m + 1), PK16(m + 2), PK16(m + 3)
static const uint8_t g_pack4[256] = {PK64(0), PK64(4), PK64(8), PK64(12)};

/* A row of zeros: the rows of the last stripe past h. */
static const int32_t g_zero_row[1024];

/* Sample v's significance at p (bit 0), bit p - 1 (bit 4) and sign (bit 8). */
static inline uint32_t rf_bits(int32_t v, uint32_t p)
{
    const uint32_t neg = (uint32_t)v >> 31, a = ((uint32_t)v ^ (0u - neg)) + neg;
    return (uint32_t)(a >> p != 0) | (a >> (p - 1) & 1) << 4 | neg << 8;
}

/* Column x of stripe s at col[s * w + x]: significance at p (bits 0-3), bit p - 1 (4-7) and
 * sign (8-11) of its rows, 0 for rows past h. */
static void rf_columns(const int32_t *coef, uint32_t w, uint32_t h, uint32_t p, uint32_t *col)
{
    for (uint32_t y0 = 0; y0 < h; y0 += 4) {
        const int32_t *r[4];
        for (uint32_t i = 0; i < 4; i++)
            r[i] = y0 + i < h ? coef + (size_t)(y0 + i) * w : g_zero_row;
        uint32_t *c = col + (size_t)(y0 / 4) * w;
        for (uint32_t x = 0; x < w; x++)
            c[x] = rf_bits(r[0][x], p) | rf_bits(r[1][x], p) << 1 | rf_bits(r[2][x], p) << 2 |
                   rf_bits(r[3][x], p) << 3;
    }
}

/* The rows (bits 0-3) that a column of 6-bit word e (rows y0 - 1 .. y0 + 4) neighbours. */
static inline uint32_t rf_near(uint32_t e)
{
    return (e | e >> 1 | e >> 2) & 0xF;
}

/* Column x's 6-bit word: above[x] (row y0 - 1), c[x]'s significance, nx[x]'s row 0 (y0 + 4). */
static inline uint32_t rf_word(const uint32_t *c, const uint32_t *nx, const uint8_t *above,
                               uint32_t x)
{
    return above[x] | (c[x] & 0xFu) << 1 | (nx[x] & 1u) << 5;
}

/* One stripe's scan (rows y0 .. y0 + n - 1, columns c, the next stripe's nx: zeros after the
 * last): SigProp into sp (newsig, when not NULL, marked), MagRef into mr when not NULL; above[x]
 * (bit 0) holds row y0 - 1's significance, SigProp's included, and gets row y0 + 3's (returns
 * whether one of them is 1). A 4-column
 * group's bits go out in one write to each: SigProp's (at most 16) followed by their signs (as
 * many), MagRef's (at most 16). */
static uint32_t rf_stripe(const uint32_t *c, const uint32_t *nx, uint32_t w, uint32_t y0,
                          uint32_t n, uint8_t *above, ms_acc *sp, vlc_acc *mr, uint8_t *newsig)
{
    const uint32_t valid = (1u << n) - 1;
    uint32_t e = rf_word(c, nx, above, 0), left = 0, here = rf_near(e), below = 0;
    for (uint32_t x0 = 0; x0 < w; x0 += 4) {
        const uint32_t x1 = x0 + 4 < w ? x0 + 4 : w;
        uint32_t code = 0, ncode = 0, signs = 0, nsigns = 0, ref = 0, nref = 0;
        for (uint32_t x = x0; x < x1; x++) {
            const uint32_t er = x + 1 < w ? rf_word(c, nx, above, x + 1) : 0, right = rf_near(er);
            const uint32_t sig = c[x] & 0xF, mag = c[x] >> 4 & 0xF, cand = ~sig & valid;
            uint32_t t = (left | here | right) & cand, fresh = 0;
            if (t) {
                const uint32_t carry = cand & mag; /* coded and made significant: codes the next */
                t |= cand & (t & carry) << 1;
                t |= cand & (t & carry) << 1;
                t |= cand & (t & carry) << 1;
                const uint32_t k = g_pack4[t << 4 | mag];
                code |= (k & 0xF) << ncode;
                ncode += k >> 4;
                fresh = t & mag;
                if (fresh) {
                    const uint32_t k_sign = g_pack4[fresh << 4 | (c[x] >> 8 & 0xF)];
                    signs |= (k_sign & 0xF) << nsigns;
                    nsigns += k_sign >> 4;
                    for (uint32_t f = fresh; newsig && f; f &= f - 1)
                        newsig[(size_t)(y0 + (uint32_t)__builtin_ctz(f)) * w + x] = 1;
                }
            }
            const uint32_t k_ref = g_pack4[sig << 4 | mag];
            ref |= (k_ref & 0xF) << nref;
            nref += k_ref >> 4;
            left = rf_near(e | fresh << 1);
            here = right;
            e = er;
            above[x] = (uint8_t)((sig | fresh) >> 3 & 1);
            below |= above[x];
        }
        if (ncode)
            ms_put(sp, code | signs << ncode, ncode + nsigns);
        if (mr && nref)
            vlc_put(mr, ref, nref);
    }
    return below;
}

/* Whether any of stripe c's w columns has a significant sample. */
static uint32_t rf_any(const uint32_t *c, uint32_t w)
{
    uint32_t o = 0;
    for (uint32_t x = 0; x < w; x++)
        o |= c[x];
    return o & 0xF;
}

long tsr__ht_encode_refine(const int32_t *coef, uint32_t w, uint32_t h, uint32_t p, int magref,
                           uint8_t *buf, size_t cap, uint8_t *newsig, size_t *sp_len)
{
    if (!w || !h || w > 1024 || (size_t)w * h > 4096 || p == 0 || p > 30 ||
        cap < tsr__ht_refine_bound(w, h))
        return -1;
    uint32_t col[RF_COLS + 1024]; /* and a stripe of zeros after the last */
    uint8_t above[1024], mrb[RF_MR_CAP];
    const uint32_t stripes = (h + 3) / 4;
    rf_columns(coef, w, h, p, col);
    memset(col + (size_t)stripes * w, 0, w * sizeof *col);
    memset(above, 0, w);
    if (newsig)
        memset(newsig, 0, (size_t)w * h);
    ms_acc sp = {buf, 0, 0, 0};
    vlc_acc mr = {mrb + sizeof mrb, 0, 0, 0xFF};
    /* a stripe with nothing significant in it, the row above or the stripe below codes nothing
     * and leaves above all 0 */
    uint32_t any_above = 0, any_here = rf_any(col, w);
    for (uint32_t s = 0; s < stripes; s++) {
        const uint32_t *c = col + (size_t)s * w;
        const uint32_t any_next = rf_any(c + w, w);
        if (any_above | any_here | any_next)
            any_above = rf_stripe(c, c + w, w, 4 * s, s + 1 < stripes ? 4 : h - 4 * s, above, &sp,
                                  magref ? &mr : NULL, newsig);
        any_here = any_next;
    }
    ms_finish_pad0(&sp);
    const size_t lsp = (size_t)(sp.p - buf);
    if (sp_len)
        *sp_len = lsp;
    if (!magref)
        return (long)lsp;
    vlc_finish(&mr);
    const size_t lmr = (size_t)(mrb + sizeof mrb - mr.p);
    memcpy(buf + lsp, mr.p, lmr);
    return (long)(lsp + lmr);
}
