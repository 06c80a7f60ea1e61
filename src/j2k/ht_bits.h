/* HT cleanup building blocks shared by ht_decode_hd.h (host and device) and ht_decode_avx2.c
 * (host, compiled for AVX2): the bounded bit readers of T.814 7.1.2-7.1.4 and the MEL symbol
 * decoder (ht_decode_hd.h's header states their contracts), the block raster (layout described
 * there too), a quad's pattern and its exponent predictor. Only for inclusion by those two files.
 */
#ifndef TSR_J2K_HT_BITS_H
#define TSR_J2K_HT_BITS_H

#include "j2k/t1_hd.h"
#include "j2k/t1_internal.h"
#include "j2k/ht_vlc_lut.h"

#include <stdint.h>
#include <string.h>

/* ---- HT cleanup segment bytes (T.814 7.1.1, procedure modDcup) ---------------------------- */
TSR__T1_INL uint32_t mod_dcup(const uint8_t *d, uint32_t lcup, uint32_t pos)
{
    if (pos == lcup - 1)
        return 0xFF;
    if (pos == lcup - 2)
        return d[pos] | 0x0Fu;
    return d[pos];
}

/* The bit readers below are always inlined into the pass that owns them, so that their fields
 * live in registers; each keeps a 64-bit accumulator whose bit 0 is the next bit.
 * Byte tests on 8 bytes at once: a zero byte of u is one where the test holds. */
TSR__T1_AI int any_zero_byte64(uint64_t u)
{
    return ((u - 0x0101010101010101ull) & ~u & 0x8080808080808080ull) != 0;
}

TSR__T1_AI uint64_t load_le64(const uint8_t *p)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
#else
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
#endif
}

/* ---- MagSgn: forward from byte 0 for Pcup bytes, little-endian bit order (7.1.2) ----------- */
typedef struct {
    const uint8_t *d;
    uint32_t pos, pcup;
    uint32_t last;
    uint32_t nb;
    uint64_t acc;
    uint64_t fill; /* bits appended beyond the one synthesized 0xFF byte */
} ms_rd;

TSR__T1_AI void ms_init(ms_rd *r, const uint8_t *d, uint32_t pcup)
{
    r->d = d;
    r->pos = 0;
    r->pcup = pcup;
    r->last = 0;
    r->nb = 0;
    r->acc = 0;
    r->fill = 0;
}

/* Tops the accumulator up to >= 56 bits from an 8-byte load when those 8 bytes are inside the
 * segment and none of them (nor the byte before) is 0xFF, i.e. none is shortened to 7 bits, the
 * usual case; else leaves it to ms_slow. No test of nb: taking 0 bytes is harmless. */
TSR__T1_AI void ms_top_up(ms_rd *r)
{
    if (r->pos <= r->pcup && r->pcup - r->pos >= 8 && r->last != 0xFF) {
        const uint64_t t = load_le64(r->d + r->pos);
        if (!any_zero_byte64(~t)) {
            const uint32_t k = (63 - r->nb) >> 3; /* 0..7 bytes */
            r->acc |= (t & ((1ull << 8 * k) - 1)) << r->nb;
            r->nb += 8 * k;
            r->pos += k;
            r->last = 0; /* only ever compared with 0xFF, and none of the 8 was */
        }
    }
}

/* Byte by byte (stuffing, the segment's end, the fill after it) to > 56 bits. */
TSR__T1_AI void ms_slow(ms_rd *r)
{
    while (r->nb <= 56) {
        uint32_t bits = r->last == 0xFF ? 7 : 8, t;
        if (r->pos < r->pcup) {
            t = r->d[r->pos++];
        } else {
            t = 0xFF;
            if (r->pos > r->pcup)
                r->fill += bits;
            else
                r->pos++;
        }
        r->last = t;
        r->acc |= (uint64_t)(t & ((1u << bits) - 1)) << r->nb;
        r->nb += bits;
    }
}

/* at least n <= 56 bits in the accumulator */
TSR__T1_AI void ms_need(ms_rd *r, uint32_t n)
{
    if (r->nb < n) {
        ms_top_up(r);
        if (r->nb < n)
            ms_slow(r);
    }
}

/* n <= 31 bits (0 reads nothing), first bit in bit 0 */
TSR__T1_AI uint32_t ms_get(ms_rd *r, uint32_t n)
{
    if (r->nb < n)
        ms_need(r, n);
    uint32_t v = (uint32_t)(r->acc & (((uint64_t)1 << n) - 1));
    r->acc >>= n;
    r->nb -= n;
    return v;
}

/* ---- MEL: forward from byte Pcup, big-endian bit order (7.1.3), symbols (7.3.3) ------------ */
typedef struct {
    const uint8_t *d;
    uint32_t pos, lcup;
    uint32_t tmp;
    int bits;
    int k, run, one;
} mel_rd;

TSR__T1_AI void mel_init(mel_rd *m, const uint8_t *d, uint32_t pcup, uint32_t lcup)
{
    m->d = d;
    m->pos = pcup;
    m->lcup = lcup;
    m->tmp = 0;
    m->bits = 0;
    m->k = 0;
    m->run = 0;
    m->one = 0;
}

TSR__T1_AI uint32_t mel_bit(mel_rd *m)
{
    if (m->bits == 0) {
        m->bits = m->tmp == 0xFF ? 7 : 8;
        if (m->pos < m->lcup)
            m->tmp = mod_dcup(m->d, m->lcup, m->pos++);
        else
            m->tmp = 0xFF;
    }
    m->bits--;
    return (m->tmp >> m->bits) & 1;
}

TSR__T1_AI int mel_sym(mel_rd *m)
{
    static const uint8_t mel_e[13] = {0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 4, 5}; /* Table 2 */
    if (m->run == 0 && m->one == 0) {
        int e = mel_e[m->k];
        if (mel_bit(m)) {
            m->run = 1 << e;
            m->k = m->k < 12 ? m->k + 1 : 12;
        } else {
            m->run = 0;
            while (e-- > 0)
                m->run = 2 * m->run + (int)mel_bit(m);
            m->k = m->k > 0 ? m->k - 1 : 0;
            m->one = 1;
        }
    }
    if (m->run > 0) {
        m->run--;
        return 0;
    }
    m->one = 0;
    return 1;
}

/* ---- VLC: backward from byte Lcup-3 (after the 12 bits of Scup), little-endian (7.1.4) ------ */
typedef struct {
    const uint8_t *d;
    int64_t pos;
    uint32_t pcup, lcup;
    uint32_t last;
    uint32_t nb;
    uint64_t acc;
    uint64_t fill; /* zero bits appended before byte Pcup */
} vlc_rd;

TSR__T1_AI void vlc_init(vlc_rd *r, const uint8_t *d, uint32_t pcup, uint32_t lcup)
{
    r->d = d;
    r->pcup = pcup;
    r->lcup = lcup;
    r->pos = (int64_t)lcup - 3;
    r->last = mod_dcup(d, lcup, lcup - 2);
    uint32_t t = r->last >> 4;
    uint32_t bits = (t & 7) < 7 ? 4 : 3;
    r->acc = t & ((1u << bits) - 1);
    r->nb = bits;
    r->fill = 0;
}

/* Tops the accumulator up to >= 56 bits from the 8 bytes pos, pos-1, .., pos-7 (all below
 * Lcup-2, so modDcup leaves them alone) when they are inside the segment and none has its low 7
 * bits all 1, the only bytes that can be shortened to 7 bits; else leaves it to vlc_slow. */
TSR__T1_AI void vlc_top_up(vlc_rd *r)
{
    if (r->pos >= (int64_t)r->pcup + 7) {
        const uint64_t t = TSR__T1_BSWAP64(load_le64(r->d + r->pos - 7));
        if (!any_zero_byte64(~(t | 0x8080808080808080ull))) {
            const uint32_t k = (63 - r->nb) >> 3; /* 0..7 bytes */
            r->acc |= (t & ((1ull << 8 * k) - 1)) << r->nb;
            r->nb += 8 * k;
            r->pos -= k;
            r->last = k ? (uint32_t)(t >> ((8 * k - 8) & 63)) & 0xFF : r->last;
        }
    }
}

/* Byte by byte (stuffing, the segment's start, the zeros before it) to > 56 bits. */
TSR__T1_AI void vlc_slow(vlc_rd *r)
{
    while (r->nb <= 56) {
        uint32_t t = 0, bits = 8;
        if (r->pos >= (int64_t)r->pcup) {
            t = mod_dcup(r->d, r->lcup, (uint32_t)r->pos);
            r->pos--;
            if (r->last > 0x8F && (t & 0x7F) == 0x7F)
                bits = 7;
        } else {
            r->fill += 8;
        }
        r->last = t;
        r->acc |= (uint64_t)(t & ((1u << bits) - 1)) << r->nb;
        r->nb += bits;
    }
}

/* at least n <= 56 bits in the accumulator */
TSR__T1_AI void vlc_need(vlc_rd *r, uint32_t n)
{
    if (r->nb < n) {
        vlc_top_up(r);
        if (r->nb < n)
            vlc_slow(r);
    }
}

/* n <= nb bits (0 reads nothing) */
TSR__T1_AI uint32_t vlc_take(vlc_rd *r, uint32_t n)
{
    uint32_t v = (uint32_t)(r->acc & (((uint64_t)1 << n) - 1));
    r->acc >>= n;
    r->nb -= n;
    return v;
}

/* ---- HT cleanup pass (7.3) ------------------------------------------------------------------ */
typedef struct {
    uint32_t w, h, qw, qh, S; /* S: raster stride, 2 QW + 2 */
    uint32_t *v;              /* origin: sample (0, 0); 2 mu + sign, 0 = not significant */
    uint16_t *fl;             /* refinement passes only: HF_* flags, same raster */
    uint8_t *rho_a, *rho_b;   /* QW + 2 entries each, quad qx at [qx + 1] */
} ht_blk;

/* One quad's significance pattern and EMB bits from its context (7.3.5), after reading its MEL
 * symbol (context 0) and CxtVLC codeword: the table entry itself (ht_vlc_lut.h: bits 0-2 the
 * codeword length, then u_off << 3 | rho << 4 | e_k << 8 | e_1 << 12), 0 for a MEL symbol 0.
 * `keep` (bits 4-7) masks padding samples (T.814 7.2); a significant one is dropped, with its
 * EMB bits, and a warning. */
TSR__T1_AI uint32_t quad_pattern(uint32_t c, const uint16_t *lut, mel_rd *mel, vlc_rd *vlc,
                                 uint32_t keep, unsigned *warn)
{
    if (c == 0 && mel_sym(mel) == 0)
        return 0;
    uint32_t e = lut[c * 128 + (vlc->acc & 127)];
    vlc_take(vlc, e & 7);
    if (e & 0xF0 & ~keep) {
        *warn |= TSR__T1_W_HT;
        const uint32_t r = e & keep; /* the table has e_1 within e_k within rho */
        e = (e & 0xF) | r | (e & r << 4) | (e & r << 8);
    }
    return e;
}

/* The MagSgn fields x = 2 (mu - 1) + sign of a quad's four samples with mu clamped to mu_lim
 * (T.814 7.3.8 leaves larger values undefined; they only come from inconsistent data). */
TSR__T1_AI void clamp_mu(uint32_t x[4], uint32_t mu_lim, unsigned *warn)
{
    for (uint32_t j = 0; j < 4; j++)
        if ((x[j] >> 1) >= mu_lim) {
            x[j] = ((mu_lim - 1) << 1) | (x[j] & 1);
            *warn |= TSR__T1_W_HT;
        }
}

/* kappa (7.3.7) for a non-initial quad with more than one significant sample: from the largest
 * magnitude of the four samples above (p[-1] .. p[2] of the row above), E = its exponent. */
TSR__T1_AI uint32_t quad_kappa(const uint32_t *p)
{
    uint32_t m = p[-1] > p[0] ? p[-1] : p[0];
    m = m > p[1] ? m : p[1];
    m = m > p[2] ? m : p[2];
    m >>= 1; /* mu */
    /* max(E - 1, 1) with E = bits(2 mu - 1) (Table 1) is bits(mu - 1) for mu >= 2, and 1 for
     * mu <= 1: bits of (mu - (mu != 0)) | 1, without a branch */
    return 32u - TSR__T1_CLZ((m - (m != 0)) | 1);
}

/* U (7.3.7) of a nonempty quad with pattern q and unsigned residual u; p as for quad_kappa (row
 * -1 is zero: kappa 1 for the initial row). */
TSR__T1_AI uint32_t quad_bound(uint32_t q, const uint32_t *p, uint32_t u)
{
    const uint32_t r = (q >> 4) & 0xF, kq = quad_kappa(p);
    return ((r & (r - 1)) ? kq : 1) + u;
}

#ifndef __CUDACC__
/* The cleanup pass compiled for AVX2 (ht_decode_avx2.c, ht_cleanup.h's contract), and the
 * decoder's builds this CPU runs (tsr__ht_simd's levels): 2 with AVX2, BMI2 and AVX-512 F, BW,
 * DQ and VL, 1 with AVX2 and BMI2 (this pass), 0 on other CPUs and compilers, where the first is
 * never called. */
int tsr__ht_cleanup_avx2(ht_blk *b, const uint8_t *d, uint32_t lcup, uint32_t kc, unsigned *warn);
int tsr__ht_cpu_level(void);
#endif

#endif
