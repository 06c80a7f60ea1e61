/* The CPU's HT cleanup encoder (ht_encode.c's contract for tsr__ht_encode_cleanup, the same
 * segment byte for byte) as a template, included once by ht_encode.c (the baseline build, with
 * the scalar row preparation) and once by ht_encode_avx2.c (built for AVX2, BMI1/2 and LZCNT,
 * with the AVX2 preparation: variable shifts and masks in one instruction each). The includer
 * defines HT_ENC_FN(name) (the function's name in its build), HT_ENC_SCOPE (its linkage) and
 * HT_ENC_PREP(r0, r1, qw, shift, row) (tsr__ht_enc_prep's contract for quads 0 .. qw - 1), and
 * includes ht_encode.h and ht_encode_hd.h first. No include guard: one instance per file.
 *
 * HT_ENC_FN(cleanup)(coef, stride, w, h, shift, buf, cap, tables, uvlc, mor):
 * tsr__ht_encode_cleanup's contract with tables = tsr__ht_cw_tables() and uvlc ht_encode.c's
 * packed U-VLC codes, the scratch its own; *mor gets the OR of the magnitudes >> shift. */

/* The same segment as ht_encode_hd.h's tsr__ht_encode_cleanup, byte for byte (test_j2k_ht_encode
 * compares the two), with the work arranged for a CPU: the MagSgn and VLC writers are
 * ht_write_cpu.h's (64-bit accumulators, whole bytes stored lazily, the VLC bytes straight in
 * their final, reversed order), MEL's below; the context and exponent-bound inputs from the
 * row above are gathered once per row, and a quad's VLC codeword and its pair's U-VLC bits are
 * each one write. The device keeps the header's coder. */

#include "j2k/ht_write_cpu.h"

/* MEL (T.814 7.3.3, as tsr__ht_mel_*): bits from the most significant down, 7 after 0xFF. */
typedef struct {
    uint8_t *p, *end;
    uint32_t tmp, room;
    int k, run;
    int over;
} mel_acc;

static const uint8_t g_mel_e[13] = {0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 4, 5};

static inline void mel_put_bit(mel_acc *w, uint32_t b)
{
    w->tmp = (w->tmp << 1) | b;
    if (--w->room == 0) {
        if (w->p < w->end)
            *w->p++ = (uint8_t)w->tmp;
        else
            w->over = 1;
        w->room = w->tmp == 0xFF ? 7 : 8;
        w->tmp = 0;
    }
}

static inline void mel_put(mel_acc *w, uint32_t s)
{
    const int e = g_mel_e[w->k];
    if (!s) {
        if (++w->run == 1 << e) {
            mel_put_bit(w, 1);
            w->run = 0;
            w->k += w->k < 12;
        }
        return;
    }
    mel_put_bit(w, 0);
    for (int i = e - 1; i >= 0; i--)
        mel_put_bit(w, (uint32_t)(w->run >> i) & 1);
    w->run = 0;
    w->k -= w->k > 0;
}

static inline void mel_finish(mel_acc *w, const uint8_t *start)
{
    if (w->run)
        mel_put_bit(w, 1);
    const uint32_t full = w->p > start && w->p[-1] == 0xFF ? 7 : 8;
    if (w->room != full) {
        for (uint32_t n = w->room; n; n--)
            mel_put_bit(w, 0);
    } else if (full == 7) {
        if (w->p < w->end)
            *w->p++ = 0;
        else
            w->over = 1;
    }
}

/* Spread of a 4-bit pattern to bytes: 1 (ones) or 0xFF (ffs) in byte n for bit n. */
static const uint32_t g_ones[16] = {
    0x00000000, 0x00000001, 0x00000100, 0x00000101, 0x00010000, 0x00010001, 0x00010100, 0x00010101,
    0x01000000, 0x01000001, 0x01000100, 0x01000101, 0x01010000, 0x01010001, 0x01010100, 0x01010101};

/* Quad q of row in context c with ea the exponent bound's input from the row above
 * (tsr__ht_quad_code): its MEL symbol, CxtVLC word and MagSgn bits written; returns u_q. *bad
 * is set when no codeword fits (the standard's tables leave no such case). */
static inline __attribute__((always_inline)) uint32_t
code_quad(const tsr__ht_enc_row *row, uint32_t q, int initial, uint32_t c, uint32_t ea,
          const uint16_t (*cwt)[17], mel_acc *mel, vlc_acc *vlc, ms_acc *ms, uint32_t *bad)
{
    const uint32_t r = row->rho[q];
    if (c == 0)
        mel_put(mel, r != 0);
    if (!r) {
        const uint32_t cw = cwt[c * 16][16];
        *bad |= c && !cw;
        vlc_put(vlc, cw & 0x7F, (cw >> 8) & 0xF);
        return 0;
    }
    const uint32_t emax = row->emax[q];
    uint32_t k = 1;
    if (!initial && (r & (r - 1)))
        k = ea > 2 ? ea - 1 : 1;
    const uint32_t U = emax > k ? emax : k, uq = U - k, Ub = U * 0x01010101u;
    uint32_t cw;
    if (uq) { /* emb: the samples whose exponent is U, from the bytes of e equal to it */
        const uint32_t y = row->e[q] ^ Ub, z = ~(y + 0x7F7F7F7Fu) & 0x80808080u;
        cw = cwt[c * 16 + r][(((z >> 7) * 0x204081u) >> 21) & 0xF];
    } else {
        cw = cwt[c * 16 + r][16];
    }
    *bad |= !cw;
    vlc_put(vlc, cw & 0x7F, (cw >> 8) & 0xF);
    /* MagSgn (7.3.8): sample n's U - eps_k low bits, in byte n of m (0 where insignificant) */
    const uint32_t m = (Ub - g_ones[(cw >> 12) & 0xF]) & (g_ones[r] * 0xFF),
                   mt = (m * 0x01010101u) >> 24;
    const uint32_t *x = row->x + 4 * q;
    if (ms->nb + mt <= 64) { /* all four, then the whole bytes */
        for (uint32_t n = 0; n < 4; n++) {
            /* nb reaches 64 only before samples of 0 bits: their nothing shifted by 0 */
            const uint32_t mn = (m >> 8 * n) & 0xFF;
            ms->acc |= ((uint64_t)x[n] & ((1ull << mn) - 1)) << (ms->nb & 63);
            ms->nb += mn;
        }
        if (ms->nb >= 32)
            ms_flush(ms);
    } else {
        for (uint32_t n = 0; n < 4; n++)
            ms_put(ms, x[n], (m >> 8 * n) & 0xFF);
    }
    return uq;
}

/* The U-VLC bits of a pair (tsr__ht_pair_uvlc's codes, in 7.3.4's order: both prefixes, both
 * suffixes, both extensions) into the VLC stream, and the initial row pair's MEL symbol. */
static inline __attribute__((always_inline)) void code_pair_uvlc(int initial, uint32_t uq0,
                                                                 uint32_t uq1, const uint32_t *uvlc,
                                                                 mel_acc *mel, vlc_acc *vlc)
{
    uint32_t a = uvlc[uq0], b = uvlc[uq1];
    if (initial && uq0 && uq1) {
        if (uq0 > 2 && uq1 > 2) {
            mel_put(mel, 1);
            a = uvlc[uq0 - 2];
            b = uvlc[uq1 - 2];
        } else {
            mel_put(mel, 0);
            if (uq0 > 2)
                b = (uq1 - 1) | 1u << 3; /* uq1 is 1 or 2: a prefix of one bit */
        }
    }
    /* the fields of tsr__ht_uvlc_packed: prefix 0-2, its length 3-4, suffix 5-9, its length
     * 10-12, extension 13-16, its length 17-19 */
    const uint32_t na = (a >> 3) & 3, nb = (b >> 3) & 3, sa = (a >> 10) & 7, sb = (b >> 10) & 7;
    uint32_t bits = (a & 7) | (b & 7) << na, n = na + nb;
    bits |= ((a >> 5) & 31) << n;
    n += sa;
    bits |= ((b >> 5) & 31) << n;
    n += sb;
    bits |= ((a >> 13) & 15) << n;
    n += (a >> 17) & 7;
    bits |= ((b >> 13) & 15) << n;
    n += (b >> 17) & 7;
    vlc_put(vlc, bits, n);
}

HT_ENC_SCOPE long HT_ENC_FN(cleanup)(const int32_t *coef, size_t stride, uint32_t w, uint32_t h,
                                     uint32_t shift, uint8_t *buf, size_t cap,
                                     const uint16_t (*tables)[8 * 16][17], const uint32_t *uvlc,
                                     uint32_t *mor)
{
    const uint32_t qw = (w + 1) / 2, qh = (h + 1) / 2;
    uint8_t melb[4096], vlcb[8192]; /* VLC: at most 19 bits a quad, 2048 quads */
    ms_acc ms = {buf, 0, 0, 0};
    vlc_acc vlc = {vlcb + sizeof vlcb, 0xF, 4, 0xFF};
    mel_acc mel = {melb, melb + sizeof melb, 0, 8, 0, 0, 0};
    /* the row above's and this row's: rho of quad q at [q + 1], the exponent of the bottom
     * sample of column x at [x + 1], borders 0; per quad of this row: the context bits and the
     * exponent bound's input from the row above */
    uint8_t rho_s[2][1024 / 2 + 2], eb_s[2][1024 + 2], ca[1024 / 2], ea[1024 / 2];
    int32_t pad[2][1024];
    tsr__ht_enc_row row;
    row.mor = 0;
    uint32_t all = 0; /* the magnitudes' OR */
    memset(rho_s, 0, sizeof rho_s);
    memset(eb_s, 0, sizeof eb_s);
    uint32_t any = 0, bad = 0;
    for (uint32_t qy = 0; qy < qh; qy++) {
        const int initial = qy == 0;
        const uint16_t(*cwt)[17] = tables[initial ? 0 : 1];
        const uint8_t *rho_a = rho_s[(qy + 1) & 1], *eb_a = eb_s[(qy + 1) & 1];
        uint8_t *rho_c = rho_s[qy & 1], *eb_c = eb_s[qy & 1];
        const int32_t *r0 = coef + (size_t)(2 * qy) * stride, *r1 = r0 + stride;
        if ((w & 1) || 2 * qy + 1 >= h) { /* the row pair padded to whole quads with 0 */
            for (uint32_t x = 0; x < 2 * qw; x++) {
                pad[0][x] = x < w ? r0[x] : 0;
                pad[1][x] = x < w && 2 * qy + 1 < h ? r1[x] : 0;
            }
            r0 = pad[0];
            r1 = pad[1];
        }
        if (!initial)
            for (uint32_t q = 0; q < qw; q++) {
                ca[q] = (uint8_t)((((rho_a[q] >> 3) | (rho_a[q + 1] >> 1)) & 1) |
                                  (((rho_a[q + 1] >> 1) | (rho_a[q + 2] << 1)) & 4));
                uint32_t m = eb_a[2 * q] > eb_a[2 * q + 1] ? eb_a[2 * q] : eb_a[2 * q + 1];
                m = eb_a[2 * q + 2] > m ? eb_a[2 * q + 2] : m;
                ea[q] = (uint8_t)(eb_a[2 * q + 3] > m ? eb_a[2 * q + 3] : m);
            }
        HT_ENC_PREP(r0, r1, qw, shift, &row);
        all |= row.mor;
        uint32_t left = 0; /* the pattern of the quad on the left */
        for (uint32_t qx = 0; qx < qw; qx += 2) {
            uint32_t c = initial ? (left & 1) | ((left >> 1) & 7)
                                 : ca[qx] | (((left >> 1) | (left >> 2)) & 2);
            const uint32_t uq0 =
                code_quad(&row, qx, initial, c, initial ? 0 : ea[qx], cwt, &mel, &vlc, &ms, &bad);
            const uint32_t rho0 = row.rho[qx];
            uint32_t rho1 = 0, uq1 = 0;
            rho_c[qx + 1] = (uint8_t)rho0;
            eb_c[2 * qx + 1] = (uint8_t)(row.e[qx] >> 8);
            eb_c[2 * qx + 2] = (uint8_t)(row.e[qx] >> 24);
            left = rho0;
            if (qx + 1 < qw) {
                c = initial ? (left & 1) | ((left >> 1) & 7)
                            : ca[qx + 1] | (((left >> 1) | (left >> 2)) & 2);
                uq1 = code_quad(&row, qx + 1, initial, c, initial ? 0 : ea[qx + 1], cwt, &mel, &vlc,
                                &ms, &bad);
                rho1 = row.rho[qx + 1];
                rho_c[qx + 2] = (uint8_t)rho1;
                eb_c[2 * qx + 3] = (uint8_t)(row.e[qx + 1] >> 8);
                eb_c[2 * qx + 4] = (uint8_t)(row.e[qx + 1] >> 24);
                left = rho1;
            }
            if (rho0 | rho1) {
                any = 1;
                code_pair_uvlc(initial, uq0, uq1, uvlc, &mel, &vlc);
            }
        }
    }
    *mor = all;
    if (!any)
        return 0;
    if (bad)
        return -1;
    ms_finish(&ms, buf);
    mel_finish(&mel, melb);
    vlc_finish(&vlc);
    const size_t ms_len = (size_t)(ms.p - buf), mel_len = (size_t)(mel.p - melb),
                 vlc_len = (size_t)(vlcb + sizeof vlcb - vlc.p), scup = mel_len + vlc_len + 1;
    if (mel.over || ms_len > cap - 4096 || scup > 4079 || ms_len + scup > cap)
        return -1;
    uint8_t *d = buf + ms_len;
    memcpy(d, melb, mel_len);
    d += mel_len;
    memcpy(d, vlc.p, vlc_len);
    d[vlc_len - 1] = (uint8_t)((d[vlc_len - 1] & 0xF0) | (scup & 0xF));
    d[vlc_len] = (uint8_t)(scup >> 4);
    return (long)(ms_len + scup);
}
