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

/* The packed U-VLC codes of u = 0 (none) .. 63 for the CPU's coder (ht_encode_cpu.h), from
 * tsr__ht_uvlc: prefix bits 0-2, its length 3-4, suffix 5-9, its length 10-12, extension
 * 13-16, its length 17-19. */
static uint32_t g_uvlc[64];

static void build_tables(void)
{
    build_table(0, tsr__ht_cxtvlc_table_0, sizeof tsr__ht_cxtvlc_table_0 / 7);
    build_table(1, tsr__ht_cxtvlc_table_1, sizeof tsr__ht_cxtvlc_table_1 / 7);
    for (uint32_t u = 1; u < 64; u++) {
        const uvlc_code k = tsr__ht_uvlc(u);
        g_uvlc[u] = k.pfx | k.npfx << 3 | k.sfx << 5 | k.nsfx << 10 | k.ext << 13 | k.next << 17;
    }
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
            row->mor |= mu;
            e4 |= e << 8 * n;
            r |= (uint32_t)(mu != 0) << n;
            emax = e > emax ? e : emax;
        }
        row->e[q] = e4;
        row->emax[q] = (uint8_t)emax;
        row->rho[q] = (uint8_t)r;
    }
}

#define HT_ENC_FN(name) name##_base
#define HT_ENC_SCOPE static
#define HT_ENC_PREP(r0, r1, qw, shift, row) tsr__ht_enc_prep(r0, r1, 0, qw, shift, row)
#include "j2k/ht_encode_cpu.h"

/* The CPU coder's build (ht_decode.c's levels: 1 or 2 runs the AVX2 one). */
static tsr__simd_switch g_simd = TSR__SIMD_SWITCH(tsr__ht_cpu_level, 1);

void tsr__ht_enc_set_simd(int level)
{
    tsr__simd_set(&g_simd, level);
}

/* The CPU coder's cleanup segment at base plane p, *mor the OR of the magnitudes >> p; the
 * limits are the callers' to check. */
static long cleanup_cpu(const int32_t *coef, size_t stride, uint32_t w, uint32_t h, uint32_t p,
                        uint8_t *buf, size_t cap, uint32_t *mor)
{
    pthread_once(&g_once, build_tables);
    const uint16_t(*tables)[8 * 16][17] = (const uint16_t(*)[8 * 16][17]) g_cw;
    *mor = 0;
    return tsr__simd_on(&g_simd)
               ? tsr__ht_enc_cleanup_avx2(coef, stride, w, h, p, buf, cap, tables, g_uvlc, mor)
               : cleanup_base(coef, stride, w, h, p, buf, cap, tables, g_uvlc, mor);
}

static int in_limits(uint32_t w, uint32_t h, size_t stride, size_t cap)
{
    return w && h && w <= 1024 && (size_t)w * h <= 4096 && stride >= w &&
           cap >= tsr__ht_encode_bound(w, h);
}

long tsr__ht_encode_block_in(const int32_t *coef, size_t stride, uint32_t w, uint32_t h,
                             uint8_t *buf, size_t cap, uint32_t *planes)
{
    if (!in_limits(w, h, stride, cap))
        return -1;
    uint32_t mor;
    const long len = cleanup_cpu(coef, stride, w, h, 0, buf, cap, &mor);
    *planes = mor ? 32u - (uint32_t)__builtin_clz(mor) : 0;
    return len;
}

long tsr__ht_encode_plane(const int32_t *coef, size_t stride, uint32_t w, uint32_t h, uint32_t p,
                          uint8_t *buf, size_t cap)
{
    if (!in_limits(w, h, stride, cap) || p > 29)
        return -1;
    uint32_t mor;
    return cleanup_cpu(coef, stride, w, h, p, buf, cap, &mor);
}

long tsr__ht_encode_block(const int32_t *coef, uint32_t w, uint32_t h, uint8_t *buf, size_t cap)
{
    uint32_t planes;
    return tsr__ht_encode_block_in(coef, w, w, h, buf, cap, &planes);
}
