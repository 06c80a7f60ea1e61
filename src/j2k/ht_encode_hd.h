/* The HT cleanup-pass encoder (T.814 7.1-7.3; contract in ht_encode.h), written once for the
 * CPU (ht_encode.c) and the device (encode_cuda.cu): integer arithmetic only. The three
 * bit-streams are written as ht_bits.h reads them: MagSgn forward from byte 0, little-endian
 * bit order, 7 bits after a 0xFF byte; MEL forward after it, most significant bit first, 7 bits
 * after a 0xFF byte; VLC backward from byte Lcup - 2 (its high nibble first), little-endian bit
 * order, 7 bits in a byte whose low 7 bits are all 1 after a byte above 0x8F. Quads, contexts,
 * exponent bounds and the U-VLC pairing follow ht_cleanup.h step by step. */
#ifndef TSR_J2K_HT_ENCODE_HD_H
#define TSR_J2K_HT_ENCODE_HD_H

#include "core/hd.h"
#include "j2k/ht_write.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* The last partial byte filled with 1 bits (what a decoder reads past the end); no 0xFF at
 * the end (the decoder supplies one), so that MEL's first byte never follows a 0xFF. */
TSR_HD void tsr__ht_ms_end(fwd_wr *w)
{
    if (w->nb) {
        const uint32_t t = w->tmp | (((1u << (w->room - w->nb)) - 1) << w->nb);
        if (t != 0xFF)
            fwd_byte(w, t);
    } else if (w->len && w->p[w->len - 1] == 0xFF) {
        w->len--;
    }
}

typedef struct {
    uint8_t *p;
    size_t len, cap;
    uint32_t tmp, room; /* bits still free in tmp */
    int over;
    int k, run; /* MEL state (T.814 7.3.3): exponent index, zeros in the current run */
} mel_wr;

TSR_HD void tsr__ht_mel_bit(mel_wr *w, uint32_t b)
{
    w->tmp = (w->tmp << 1) | b;
    if (--w->room == 0) {
        if (w->len < w->cap)
            w->p[w->len++] = (uint8_t)w->tmp;
        else
            w->over = 1;
        w->room = w->tmp == 0xFF ? 7 : 8;
        w->tmp = 0;
    }
}

/* E[k], the bits of a cut-short run's length in MEL state k (T.814 Table 2). */
TSR_HD uint32_t tsr__ht_mel_exp(int k)
{
    const uint8_t mel_e[13] = {0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 4, 5};
    return mel_e[k];
}

/* n zero symbols (T.814 7.3.3): each run of 2^E[k] of them completes as a 1 bit. */
TSR_HD void tsr__ht_mel_zeros(mel_wr *w, uint32_t n)
{
    while (n) {
        const uint32_t need = (1u << tsr__ht_mel_exp(w->k)) - (uint32_t)w->run;
        if (n < need) {
            w->run += (int)n;
            return;
        }
        n -= need;
        tsr__ht_mel_bit(w, 1); /* a complete run: 1 */
        w->run = 0;
        w->k = w->k < 12 ? w->k + 1 : 12;
    }
}

/* A one symbol: the run it cuts short, as 0 and the run's length in E[k] bits. */
TSR_HD void tsr__ht_mel_one(mel_wr *w)
{
    const int e = (int)tsr__ht_mel_exp(w->k);
    tsr__ht_mel_bit(w, 0);
    for (int i = e - 1; i >= 0; i--)
        tsr__ht_mel_bit(w, (uint32_t)(w->run >> i) & 1);
    w->run = 0;
    w->k = w->k > 0 ? w->k - 1 : 0;
}

TSR_HD void tsr__ht_mel_sym(mel_wr *w, int s)
{
    if (s)
        tsr__ht_mel_one(w);
    else
        tsr__ht_mel_zeros(w, 1);
}

/* A pending run as a complete one (the decoder stops within it), the last byte padded with 0;
 * a final 0xFF gets a 0 byte after it, so that no VLC byte above 0x8F follows a 0xFF. */
TSR_HD void tsr__ht_mel_end(mel_wr *w)
{
    if (w->run)
        tsr__ht_mel_bit(w, 1);
    const uint32_t full = w->len && w->p[w->len - 1] == 0xFF ? 7 : 8;
    if (w->room != full) {
        for (uint32_t n = w->room; n; n--)
            tsr__ht_mel_bit(w, 0);
    } else if (full == 7) {
        if (w->len < w->cap)
            w->p[w->len++] = 0;
        else
            w->over = 1;
    }
}

/* U-VLC prefix (first bit in bit 0) and suffix of a residual u >= 1 (T.814 Table 3); ext gets
 * the 4-bit extension when the suffix is 28..31 (*next 4), else 0 bits. */
typedef struct {
    uint32_t pfx, npfx, sfx, nsfx, ext, next;
} uvlc_code;

TSR_HD uvlc_code tsr__ht_uvlc(uint32_t u)
{
    uvlc_code c = {0, 0, 0, 0, 0, 0};
    if (u == 1) {
        c.pfx = 1;
        c.npfx = 1;
    } else if (u == 2) {
        c.pfx = 2;
        c.npfx = 2;
    } else if (u <= 4) {
        c.pfx = 4;
        c.npfx = 3;
        c.sfx = u - 3;
        c.nsfx = 1;
    } else {
        const uint32_t r = u - 5;
        c.npfx = 3;
        c.nsfx = 5;
        if (r < 28) {
            c.sfx = r;
        } else {
            c.sfx = 28 + (r - 28) % 4;
            c.ext = (r - 28) / 4;
            c.next = 4;
        }
    }
    return c;
}

TSR_HD uint32_t tsr__ht_exponent(uint32_t mu) /* bits of 2 mu - 1; 0 for mu = 0 */
{
#ifdef __CUDA_ARCH__
    return mu ? 32u - (uint32_t)__clz(2 * mu - 1) : 0;
#else
    return mu ? 32u - (uint32_t)__builtin_clz(2 * mu - 1) : 0;
#endif
}

/* The context of a quad (7.3.5), as ht_cleanup.h forms it, from the significance patterns (bit
 * n for sample n: TL, BL, TR, BR) of the quad on its left and, below the first row, of the row
 * above's quads left of, above and right of it (0 outside the block). */
TSR_HD uint32_t tsr__ht_enc_context(int initial, uint32_t left, uint32_t a0, uint32_t a1,
                                    uint32_t a2)
{
    if (initial)
        return (left & 1) | ((left >> 1) & 7);
    return (((a0 >> 3) | (a1 >> 1)) & 1) | (((a1 >> 1) | (a2 << 1)) & 4) |
           (((left >> 1) | (left >> 2)) & 2);
}

/* A quad as the cleanup pass codes it. */
typedef struct {
    uint32_t rho;      /* significance pattern, bit n for sample n (TL, BL, TR, BR) */
    uint32_t e[4];     /* the samples' exponents (7.3.7), 0 where insignificant */
    uint32_t emax;     /* their maximum */
    uint32_t x[4];     /* each significant sample's 2 (mu - 1) + sign (7.3.8) */
    uint32_t uq;       /* u_q, the exponent bound's excess (0 without a significant sample) */
    uint32_t cw;       /* its CxtVLC word (bits 0-6, length 8-11, eps_k 12-15); 0 if none fits */
    uint32_t mbits[4]; /* each sample's MagSgn bits: U - eps_k where significant, else 0 */
} tsr__ht_quad;

/* The quad of samples v (TL, BL, TR, BR; 0 outside the block) at base plane shift: rho, the
 * exponents and the MagSgn values. */
TSR_HD void tsr__ht_quad_load(tsr__ht_quad *q, const int32_t v[4], uint32_t shift)
{
    q->rho = 0;
    q->emax = 0;
    TSR_HD_UNROLL
    for (uint32_t n = 0; n < 4; n++) {
        const uint32_t mu = (v[n] < 0 ? (uint32_t)-v[n] : (uint32_t)v[n]) >> shift;
        q->e[n] = tsr__ht_exponent(mu);
        q->x[n] = mu ? 2 * (mu - 1) + (v[n] < 0) : 0;
        q->rho |= (uint32_t)(mu != 0) << n;
        q->emax = q->e[n] > q->emax ? q->e[n] : q->emax;
    }
}

/* The quad's coding in context c: the exponent bound (7.3.7; ea is the largest exponent of the
 * row above's bottom samples from the column left of the quad to the one right of it, unused on
 * the initial row), u_q, the CxtVLC word from cwt (the row pair's table) and the MagSgn bits. */
TSR_HD void tsr__ht_quad_code(tsr__ht_quad *q, int initial, uint32_t c, uint32_t ea,
                              const uint16_t (*cwt)[17])
{
    const uint32_t r = q->rho;
    uint32_t k = 1;
    if (!initial && (r & (r - 1)))
        k = ea > 2 ? ea - 1 : 1;
    const uint32_t U = q->emax > k ? q->emax : k;
    q->uq = r ? U - k : 0;
    if (q->uq) {
        uint32_t emb = 0;
        TSR_HD_UNROLL
        for (uint32_t n = 0; n < 4; n++)
            emb |= (uint32_t)(q->e[n] == U) << n;
        q->cw = cwt[c * 16 + r][emb];
    } else {
        q->cw = cwt[c * 16 + r][16];
    }
    TSR_HD_UNROLL
    for (uint32_t n = 0; n < 4; n++)
        q->mbits[n] = (r >> n) & 1 ? U - ((q->cw >> (12 + n)) & 1) : 0;
}

/* The U-VLC codes a and b (7.3.6) of a quad pair with u_q uq0 and uq1 (uq1 0 for a lone quad at
 * a row's end), at least one of them significant. Returns the MEL symbol that an initial row
 * pair with both u_q above 0 sends first (0 or 1), else -1. */
TSR_HD int tsr__ht_pair_uvlc(int initial, uint32_t uq0, uint32_t uq1, uvlc_code *a, uvlc_code *b)
{
    const uvlc_code none = {0, 0, 0, 0, 0, 0};
    *a = none;
    *b = none;
    if (uq0 && uq1 && initial) {
        if (uq0 > 2 && uq1 > 2) {
            *a = tsr__ht_uvlc(uq0 - 2);
            *b = tsr__ht_uvlc(uq1 - 2);
            return 1;
        }
        *a = tsr__ht_uvlc(uq0);
        if (uq0 > 2) {
            b->pfx = uq1 - 1; /* uq1 is 1 or 2: one bit */
            b->npfx = 1;
        } else {
            *b = tsr__ht_uvlc(uq1);
        }
        return 0;
    }
    if (uq0)
        *a = tsr__ht_uvlc(uq0);
    if (uq1)
        *b = tsr__ht_uvlc(uq1);
    return -1;
}

/* The cleanup segment of the w x h block coef (rows stride apart; ht_encode.h's limits, which
 * the caller checks: tsr__ht_encode_block's contract) at base plane shift (ht_encode.h: it codes
 * each coefficient's magnitude >> shift with its sign) into buf (cap bytes, at least
 * tsr__ht_encode_bound), with the CxtVLC encoding tables (ht_encode.c's tsr__ht_cw_tables) and
 * 4096 bytes each of MEL and VLC scratch. Returns Lcup, 0 for a block of zeros, -1 when the
 * segment does not fit Scup or buf. */
TSR_HD long tsr__ht_encode_cleanup(const int32_t *coef, size_t stride, uint32_t w, uint32_t h,
                                   uint32_t shift, uint8_t *buf, size_t cap,
                                   const uint16_t (*tables)[8 * 16][17], uint8_t *melb,
                                   uint8_t *vlcb)
{
    const uint32_t qw = (w + 1) / 2, qh = (h + 1) / 2;
    uint32_t any = 0; /* a significant sample seen: without one, buf is not written */
    fwd_wr ms = {buf, 0, cap - 4096, 0, 0, 8, 0};
    mel_wr mel = {melb, 0, 4096, 0, 8, 0, 0, 0};
    bwd_wr vlc = {vlcb, 0, 4096, 0xF, 4, 0xFF, 0};
    /* per quad of the row above and this row: rho; per column: the exponent of the row above's
     * bottom sample (borders of 0) */
    uint8_t rho_a[1024 / 2 + 2], rho_c[1024 / 2 + 2];
    uint8_t e_above[1024 + 2], e_cur[1024 + 2];
    const size_t nrho = qw + 2, ne = 2 * qw + 2; /* the entries a row of quads reads or writes */
    memset(rho_a, 0, nrho);
    memset(rho_c, 0, nrho);
    memset(e_above, 0, ne);
    memset(e_cur, 0, ne);

    for (uint32_t qy = 0; qy < qh; qy++) {
        const int initial = qy == 0;
        const uint16_t(*cwt)[17] = tables[initial ? 0 : 1];
        uint32_t left = 0; /* the pattern of the quad on the left */
        for (uint32_t qx = 0; qx < qw; qx += 2) {
            const uint32_t nq = qx + 1 < qw ? 2 : 1;
            tsr__ht_quad quad[2];
            uint32_t live = 0;
            const int inner = 2 * qx + 4 <= w && 2 * qy + 2 <= h; /* all 8 samples inside */
            const int32_t *c0 = coef + (size_t)(2 * qy) * stride + 2 * qx;
            for (uint32_t i = 0; i < 2; i++) {
                int32_t v[4];
                for (uint32_t n = 0; n < 4; n++) { /* TL, BL, TR, BR */
                    const uint32_t xx = 2 * (qx + i) + (n >> 1), yy = 2 * qy + (n & 1);
                    v[n] = inner              ? c0[(n & 1) * stride + 2 * i + (n >> 1)]
                           : xx < w && yy < h ? coef[(size_t)yy * stride + xx]
                                              : 0;
                }
                tsr__ht_quad_load(&quad[i], v, shift);
                live |= quad[i].rho;
            }
            any |= live;
            if (!live) { /* two quads of zeros: their CxtVLC words or MEL zeros, nothing else */
                for (uint32_t i = 0; i < nq; i++) {
                    const uint32_t c = tsr__ht_enc_context(initial, left, rho_a[qx + i],
                                                           rho_a[qx + i + 1], rho_a[qx + i + 2]);
                    if (c == 0) {
                        tsr__ht_mel_sym(&mel, 0);
                    } else {
                        const uint16_t cw = cwt[c * 16][16];
                        if (!cw)
                            return -1; /* cannot happen, as below */
                        bwd_put(&vlc, cw & 0x7F, (cw >> 8) & 0xF);
                    }
                    left = 0;
                }
                continue;
            }
            for (uint32_t i = 0; i < nq; i++) {
                tsr__ht_quad *q = &quad[i];
                const uint32_t X = 2 * (qx + i), r = q->rho;
                e_cur[X + 1] = (uint8_t)q->e[1];
                e_cur[X + 2] = (uint8_t)q->e[3];
                const uint32_t c = tsr__ht_enc_context(initial, left, rho_a[qx + i],
                                                       rho_a[qx + i + 1], rho_a[qx + i + 2]);
                uint32_t ea = e_above[X];
                for (uint32_t j = 1; j < 4; j++)
                    ea = e_above[X + j] > ea ? e_above[X + j] : ea;
                tsr__ht_quad_code(q, initial, c, ea, cwt);
                if (c == 0)
                    tsr__ht_mel_sym(&mel, r != 0);
                if (c != 0 || r != 0) {
                    if (!q->cw)
                        return -1; /* cannot happen: the standard's tables cover every case */
                    bwd_put(&vlc, q->cw & 0x7F, (q->cw >> 8) & 0xF);
                }
                rho_c[qx + i + 1] = (uint8_t)r;
                left = r;
            }
            const uint32_t rho1 = nq == 2 ? quad[1].rho : 0, uq1 = nq == 2 ? quad[1].uq : 0;
            if (quad[0].rho | rho1) { /* U-VLC of the pair: prefixes, suffixes, extensions */
                uvlc_code a, b;
                const int sym = tsr__ht_pair_uvlc(initial, quad[0].uq, uq1, &a, &b);
                if (sym >= 0)
                    tsr__ht_mel_sym(&mel, sym);
                bwd_put(&vlc, a.pfx, a.npfx);
                bwd_put(&vlc, b.pfx, b.npfx);
                bwd_put(&vlc, a.sfx, a.nsfx);
                bwd_put(&vlc, b.sfx, b.nsfx);
                bwd_put(&vlc, a.ext, a.next);
                bwd_put(&vlc, b.ext, b.next);
            }
            /* MagSgn (7.3.8): each significant sample's low U - eps_k bits of 2 (mu - 1) + s */
            for (uint32_t i = 0; i < nq; i++)
                for (uint32_t n = 0; n < 4; n++)
                    if (quad[i].mbits[n])
                        fwd_put(&ms, quad[i].x[n], quad[i].mbits[n]);
        }
        memcpy(rho_a, rho_c, nrho);
        memset(rho_c, 0, nrho);
        memcpy(e_above, e_cur, ne);
        memset(e_cur, 0, ne);
    }
    if (!any)
        return 0;
    tsr__ht_ms_end(&ms);
    tsr__ht_mel_end(&mel);
    bwd_end(&vlc);
    if (ms.over || mel.over || vlc.over)
        return -1;
    const size_t scup = mel.len + vlc.len + 1;
    if (scup > 4079 || ms.len + scup > cap)
        return -1;
    uint8_t *d = buf + ms.len;
    memcpy(d, melb, mel.len);
    d += mel.len;
    for (size_t i = 0; i < vlc.len; i++)
        d[vlc.len - 1 - i] = vlcb[i];
    d[vlc.len - 1] = (uint8_t)((d[vlc.len - 1] & 0xF0) | (scup & 0xF));
    d[vlc.len] = (uint8_t)(scup >> 4);
    return (long)(ms.len + scup);
}

#endif
