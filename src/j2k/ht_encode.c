/* HT cleanup-pass encoder (T.814 7.1-7.3; contract in ht_encode.h): the CxtVLC encoding
 * tables, built once, and ht_encode_hd.h's encoder (shared with the device) over them. */
#include "j2k/ht_encode.h"

#include "core/simd_switch.h"
#include "j2k/ht_bits.h"
#include "j2k/ht_cxtvlc.h"
#include "j2k/ht_encode_hd.h"

#include <pthread.h>
#include <string.h>

/* ---- CxtVLC encoding table --------------------------------------------------------------
 * [table][c * 16 + rho][emb]: for u_off = 0 (emb 0 only, index 16) or u_off = 1 with emb the
 * samples whose exponent equals the quad's bound: the codeword (bits 0-6), its length (8-11) and
 * its eps_k (12-15), the row minimising length - |eps_k| among those whose eps_1 equals emb on
 * eps_k (every eps_k sample saves one MagSgn bit); 0 where no row fits. */
static uint16_t g_cw[2][8 * 16][17];
static pthread_once_t g_once = PTHREAD_ONCE_INIT;

static int popcount4(uint32_t v)
{
    return (int)(v & 1) + (int)((v >> 1) & 1) + (int)((v >> 2) & 1) + (int)((v >> 3) & 1);
}

static void build_table(int t, const uint8_t (*rows)[7], size_t n)
{
    int best[8 * 16][17];
    for (int i = 0; i < 8 * 16; i++)
        for (int e = 0; e < 17; e++)
            best[i][e] = 1 << 20;
    for (size_t r = 0; r < n; r++) {
        const uint32_t c = rows[r][0], rho = rows[r][1], uoff = rows[r][2], ek = rows[r][3],
                       e1 = rows[r][4], cw = rows[r][5], lw = rows[r][6];
        const int i = (int)(c * 16 + rho);
        const uint16_t word = (uint16_t)(cw | lw << 8 | ek << 12);
        if (!uoff) {
            g_cw[t][i][16] = word;
            continue;
        }
        for (uint32_t emb = 0; emb < 16; emb++) {
            if ((emb & ~rho) || (emb & ek) != e1)
                continue;
            const int cost = (int)lw - popcount4(ek);
            if (cost < best[i][emb]) {
                best[i][emb] = cost;
                g_cw[t][i][emb] = word;
            }
        }
    }
}

/* U-VLC codes (tsr__ht_uvlc) of u = 0 (none) .. 63, for the CPU's encoder below. */
static uvlc_code g_uvlc[64];

static void build_tables(void)
{
    build_table(0, tsr__ht_cxtvlc_table_0, sizeof tsr__ht_cxtvlc_table_0 / 7);
    build_table(1, tsr__ht_cxtvlc_table_1, sizeof tsr__ht_cxtvlc_table_1 / 7);
    for (uint32_t u = 1; u < 64; u++)
        g_uvlc[u] = tsr__ht_uvlc(u);
}

const uint16_t (*tsr__ht_cw_tables(void))[8 * 16][17]
{
    pthread_once(&g_once, build_tables);
    return (const uint16_t(*)[8 * 16][17]) g_cw;
}

size_t tsr__ht_encode_bound(uint32_t w, uint32_t h)
{
    const size_t q = (size_t)((w + 1) / 2) * ((h + 1) / 2);
    /* MagSgn: 4 samples x 32 bits a quad, 8/7 for stuffing; MEL and VLC at most 4079 */
    return q * 4 * 32 / 7 + 16 + 4096;
}

/* ---- The CPU's cleanup encoder -------------------------------------------------------------
 * The same segment as ht_encode_hd.h's tsr__ht_encode_cleanup, byte for byte (test_j2k_ht_encode
 * compares the two), with the work arranged for a CPU: the three writers keep their bits in a
 * 64-bit accumulator and store whole bytes lazily (four at a time where no byte of the four can
 * be a stuffed one), the VLC bytes go straight into their final, reversed order, the context
 * and exponent-bound inputs from the row above are gathered once per row, and a quad's VLC
 * codeword and its pair's U-VLC bits are each one write. The device keeps the header's coder. */

/* MagSgn (fwd_wr's packing): bits from bit 0 up, a byte after a 0xFF holds 7 bits. */
typedef struct {
    uint8_t *p;   /* the next byte */
    uint64_t acc; /* nb bits not yet stored, the first in bit 0 */
    uint32_t nb;
    uint32_t ff; /* the last byte stored was 0xFF */
} ms_acc;

/* Stores bytes while 32 or more bits are waiting. */
static inline void ms_flush(ms_acc *w)
{
    while (w->nb >= 32) {
        const uint32_t t = (uint32_t)w->acc, x = ~t & 0xFFFFFFu;
        if (!w->ff && !((x - 0x010101u) & ~x & 0x808080u)) { /* bytes 0-2 not 0xFF: 4 x 8 bits */
            memcpy(w->p, &t, 4);
            w->p += 4;
            w->acc >>= 32;
            w->nb -= 32;
            w->ff = t >> 24 == 0xFF;
            continue;
        }
        const uint32_t n = w->ff ? 7 : 8, b = t & ((1u << n) - 1);
        *w->p++ = (uint8_t)b;
        w->acc >>= n;
        w->nb -= n;
        w->ff = b == 0xFF;
    }
}

/* The low n bits of v (n <= 32) after the waiting ones (fewer than 32 wait). */
static inline void ms_put(ms_acc *w, uint32_t v, uint32_t n)
{
    w->acc |= ((uint64_t)v & ((1ull << n) - 1)) << w->nb;
    w->nb += n;
    if (w->nb >= 32)
        ms_flush(w);
}

/* tsr__ht_ms_end after the waiting bits' whole bytes. */
static inline void ms_finish(ms_acc *w, const uint8_t *start)
{
    for (;;) {
        const uint32_t n = w->ff ? 7 : 8;
        if (w->nb < n)
            break;
        const uint32_t b = (uint32_t)w->acc & ((1u << n) - 1);
        *w->p++ = (uint8_t)b;
        w->acc >>= n;
        w->nb -= n;
        w->ff = b == 0xFF;
    }
    if (w->nb) {
        const uint32_t room = w->ff ? 7 : 8,
                       t = (uint32_t)w->acc | (((1u << (room - w->nb)) - 1) << w->nb);
        if (t != 0xFF)
            *w->p++ = (uint8_t)t;
    } else if (w->p > start && w->p[-1] == 0xFF) {
        w->p--;
    }
}

/* VLC (bwd_wr's packing): bits from bit 0 up; a byte whose low 7 bits are all 1 after a byte
 * above 0x8F holds 7 bits. The bytes are stored downwards from the end, so that they lie in
 * the segment's order. */
typedef struct {
    uint8_t *p; /* the last byte stored; the next goes below it */
    uint64_t acc;
    uint32_t nb;
    uint32_t last; /* the last byte stored */
} vlc_acc;

static inline void vlc_flush(vlc_acc *w)
{
    while (w->nb >= 32) {
        const uint32_t t = (uint32_t)w->acc, x = ~t & 0x7F7F7F7Fu;
        if (!((x - 0x01010101u) & ~x & 0x80808080u)) { /* no byte's low 7 bits all 1 */
            const uint32_t r = __builtin_bswap32(t);
            w->p -= 4;
            memcpy(w->p, &r, 4);
            w->acc >>= 32;
            w->nb -= 32;
            w->last = t >> 24;
            continue;
        }
        const uint32_t n = w->last > 0x8F && (t & 0x7F) == 0x7F ? 7 : 8, b = t & ((1u << n) - 1);
        *--w->p = (uint8_t)b;
        w->acc >>= n;
        w->nb -= n;
        w->last = b;
    }
}

static inline void vlc_put(vlc_acc *w, uint32_t v, uint32_t n) /* v < 2^n, n <= 32 */
{
    w->acc |= (uint64_t)v << w->nb;
    w->nb += n;
    if (w->nb >= 32)
        vlc_flush(w);
}

/* The waiting bits' whole bytes, then bwd_end's partial byte. */
static inline void vlc_finish(vlc_acc *w)
{
    for (;;) {
        const uint32_t t = (uint32_t)w->acc;
        uint32_t n = 8;
        if (w->last > 0x8F && w->nb >= 7 && (t & 0x7F) == 0x7F)
            n = 7;
        else if (w->nb < 8)
            break;
        const uint32_t b = t & ((1u << n) - 1);
        *--w->p = (uint8_t)b;
        w->acc >>= n;
        w->nb -= n;
        w->last = b;
    }
    if (w->nb)
        *--w->p = (uint8_t)w->acc;
}

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

void tsr__ht_enc_prep(const int32_t *r0, const int32_t *r1, uint32_t q0, uint32_t qw,
                      uint32_t shift, tsr__ht_enc_row *row)
{
    for (uint32_t q = q0; q < qw; q++) {
        uint32_t e4 = 0, r = 0, emax = 0;
        for (uint32_t n = 0; n < 4; n++) {
            const int32_t v = (n & 1 ? r1 : r0)[2 * q + (n >> 1)];
            const uint32_t mu = (v < 0 ? 0u - (uint32_t)v : (uint32_t)v) >> shift;
            const uint32_t e = mu ? 32u - (uint32_t)__builtin_clz(2 * mu - 1) : 0;
            row->x[4 * q + n] = mu ? 2 * (mu - 1) + (v < 0) : 0;
            e4 |= e << 8 * n;
            r |= (uint32_t)(mu != 0) << n;
            emax = e > emax ? e : emax;
        }
        row->e[q] = e4;
        row->emax[q] = (uint8_t)emax;
        row->rho[q] = (uint8_t)r;
    }
}

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
            const uint32_t mn = (m >> 8 * n) & 0xFF;
            ms->acc |= ((uint64_t)x[n] & ((1ull << mn) - 1)) << ms->nb;
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
static inline __attribute__((always_inline)) void
code_pair_uvlc(int initial, uint32_t uq0, uint32_t uq1, mel_acc *mel, vlc_acc *vlc)
{
    uvlc_code a = g_uvlc[uq0], b = g_uvlc[uq1];
    if (initial && uq0 && uq1) {
        if (uq0 > 2 && uq1 > 2) {
            mel_put(mel, 1);
            a = g_uvlc[uq0 - 2];
            b = g_uvlc[uq1 - 2];
        } else {
            mel_put(mel, 0);
            if (uq0 > 2) {
                b = g_uvlc[0];
                b.pfx = uq1 - 1; /* uq1 is 1 or 2: one bit */
                b.npfx = 1;
            }
        }
    }
    uint32_t bits = a.pfx | b.pfx << a.npfx, n = a.npfx + b.npfx;
    bits |= a.sfx << n;
    n += a.nsfx;
    bits |= b.sfx << n;
    n += b.nsfx;
    bits |= a.ext << n;
    n += a.next;
    bits |= b.ext << n;
    n += b.next;
    vlc_put(vlc, bits, n);
}

/* The row preparation's build (ht_decode.c's levels: 1 or 2 runs the AVX2 one). */
static tsr__simd_switch g_simd = TSR__SIMD_SWITCH(tsr__ht_cpu_level, 1);

void tsr__ht_enc_set_simd(int level)
{
    tsr__simd_set(&g_simd, level);
}

/* tsr__ht_encode_cleanup's contract, the scratch its own. */
static long encode_cleanup_cpu(const int32_t *coef, size_t stride, uint32_t w, uint32_t h,
                               uint32_t shift, uint8_t *buf, size_t cap)
{
    const uint16_t(*tables)[8 * 16][17] = tsr__ht_cw_tables();
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
        if (tsr__simd_on(&g_simd))
            tsr__ht_enc_prep_avx2(r0, r1, qw, shift, &row);
        else
            tsr__ht_enc_prep(r0, r1, 0, qw, shift, &row);
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
                code_pair_uvlc(initial, uq0, uq1, &mel, &vlc);
            }
        }
    }
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

long tsr__ht_encode_block(const int32_t *coef, uint32_t w, uint32_t h, uint8_t *buf, size_t cap)
{
    if (!w || !h || w > 1024 || (size_t)w * h > 4096 || cap < tsr__ht_encode_bound(w, h))
        return -1;
    return encode_cleanup_cpu(coef, w, w, h, 0, buf, cap);
}
