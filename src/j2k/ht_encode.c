/* HT cleanup-pass encoder (T.814 7.1-7.3; contract in ht_encode.h): the CxtVLC encoding
 * tables, built once, and ht_encode_hd.h's encoder (shared with the device) over them. */
#include "j2k/ht_encode.h"

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

static void build_tables(void)
{
    build_table(0, tsr__ht_cxtvlc_table_0, sizeof tsr__ht_cxtvlc_table_0 / 7);
    build_table(1, tsr__ht_cxtvlc_table_1, sizeof tsr__ht_cxtvlc_table_1 / 7);
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

long tsr__ht_encode_block(const int32_t *coef, uint32_t w, uint32_t h, uint8_t *buf, size_t cap)
{
    if (!w || !h || w > 1024 || (size_t)w * h > 4096 || cap < tsr__ht_encode_bound(w, h))
        return -1;
    uint8_t melb[4096], vlcb[4096];
    return tsr__ht_encode_cleanup(coef, w, w, h, 0, buf, cap, tsr__ht_cw_tables(), melb, vlcb);
}
