/* Tier-1 micro-benchmark: decodes Part-1 code-blocks many times and prints ns per coefficient.
 *
 * The blocks are encoded here with the test-only encoder (tests/unit/t1_testenc.h) from
 * synthetic wavelet-like coefficients: a Laplacian magnitude distribution (as in the high-pass
 * sub-bands of natural images) with scale `b`, so "lossless 8-bit HL" is b = 4 with all passes,
 * "lossy" keeps only the passes of the upper planes. Rotates among several blocks so the timing
 * is not one block in L1.
 *
 *   bench_j2k_t1 [--json FILE] [--repeats N] */
#include "../tests/unit/t1_testenc.h"
#include "harness.h"
#include "j2k/t1.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { NBLK = 16, BW = 64, BH = 64 };

typedef struct bcase {
    const char *name;
    int style;
    double scale; /* Laplacian scale of the magnitudes */
    int drop_planes;
    int reversible;
} bcase;

typedef struct bset {
    uint8_t *buf[NBLK];
    tsr__t1_seg segs[NBLK][MAXSEG];
    tsr__t1_block blk[NBLK];
    void *ws;
    size_t wss;
    int32_t out[BW * BH];
    int decodes_per_iter;
} bset;

static uint64_t rs = 0x9E3779B97F4A7C15ull;
static double urand(void)
{
    rs ^= rs << 13;
    rs ^= rs >> 7;
    rs ^= rs << 17;
    return ((rs >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}

static int bench_fn(void *user, int iter, double *us)
{
    (void)iter;
    (void)us;
    bset *s = user;
    for (int r = 0; r < s->decodes_per_iter; r++)
        for (int i = 0; i < NBLK; i++)
            if (tsr__t1_decode(&s->blk[i], s->ws, s->wss, s->out, BW, NULL) < 0)
                return 1;
    return 0;
}

int main(int argc, char **argv)
{
    const char *json = NULL;
    int repeats = 15;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--json") && i + 1 < argc)
            json = argv[++i];
        else if (!strcmp(argv[i], "--repeats") && i + 1 < argc)
            repeats = atoi(argv[++i]);
    }
    static const bcase cases[] = {
        {"lossless b=4 (8-bit HL-like)", 0, 4.0, 0, 1},
        {"lossless b=30 (12-bit-like)", 0, 30.0, 0, 1},
        {"lossless b=4 bypass", 0x01, 4.0, 0, 1},
        {"lossless b=4 termall+reset+segsym", 0x26, 4.0, 0, 1},
        {"lossy b=30 top planes", 0, 30.0, 3, 0},
        {"lossless b=1 (sparse)", 0, 1.0, 0, 1},
    };
    static ebenc E;
    static int32_t coef[BW * BH];
    static const char *hdr[] = {"case", "coded bits/coef", "passes", "ns/coef", "Mcoef/s",
                                "spread %"};
    tsr_bench_table *t = tsr_bench_table_new("Tier-1 Part-1 decode, 64x64 blocks, 1 thread", 6,
                                             hdr);
    bset *S = calloc(1, sizeof *S);
    S->wss = tsr__t1_workspace_size();
    S->ws = malloc(S->wss);
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        const bcase *bc = &cases[c];
        size_t bytes = 0;
        int passes = 0;
        for (int i = 0; i < NBLK; i++) {
            uint32_t maxm = 0;
            for (int k = 0; k < BW * BH; k++) {
                double u = urand();
                int32_t m = (int32_t)floor(-bc->scale * log(u));
                coef[k] = urand() < 0.5 ? -m : m;
                if ((uint32_t)m > maxm)
                    maxm = (uint32_t)m;
            }
            int K = maxm ? 32 - __builtin_clz(maxm) : 1;
            E.w = BW;
            E.h = BH;
            E.orient = 1;
            E.style = bc->style;
            E.K = K;
            E.coef = coef;
            if (!S->buf[i])
                S->buf[i] = malloc(1 << 20);
            E.buf = S->buf[i];
            int np = enc_block(&E);
            int keep = np - 3 * bc->drop_planes;
            if (keep < 1)
                keep = 1;
            int left = keep, ns = 0;
            for (int s = 0; s < E.nsegs && left > 0; s++) {
                S->segs[i][ns] = E.segs[s];
                if ((int)S->segs[i][ns].npasses > left)
                    S->segs[i][ns].npasses = (uint32_t)left;
                left -= (int)S->segs[i][ns].npasses;
                bytes += S->segs[i][ns].len;
                ns++;
            }
            S->blk[i] = (tsr__t1_block){.w = BW, .h = BH, .orient = 1,
                                        .style = (uint8_t)bc->style, .zero_bp = 0,
                                        .mb = (uint8_t)K, .reversible = (uint8_t)bc->reversible,
                                        .npasses = (uint32_t)keep, .nsegs = (uint32_t)ns,
                                        .segs = S->segs[i]};
            passes += keep;
        }
        S->decodes_per_iter = 4;
        tsr_bench_stats st;
        if (tsr_bench_measure(bench_fn, S, 3, repeats, &st)) {
            fprintf(stderr, "decode failed\n");
            return 1;
        }
        double ncoef = (double)S->decodes_per_iter * NBLK * BW * BH;
        double ns_per = st.median_us * 1000.0 / ncoef;
        const char *row[] = {bc->name,
                             tsr_bench_fmt("%.2f", bytes * 8.0 / ((double)NBLK * BW * BH)),
                             tsr_bench_fmt("%d", passes / NBLK),
                             tsr_bench_fmt("%.2f", ns_per),
                             tsr_bench_fmt("%.1f", 1000.0 / ns_per),
                             tsr_bench_fmt("%.1f", 100.0 * (st.max_us - st.min_us) / st.median_us)};
        tsr_bench_table_row(t, row);
    }
    printf("%s\n", tsr_bench_host_description());
    tsr_bench_table_print(t, stdout);
    if (json) {
        const char *meta[] = {"host", tsr_bench_host_description(), NULL};
        tsr_bench_json_write(json, "bench_j2k_t1", meta, &t, 1);
    }
    tsr_bench_table_free(t);
    for (int i = 0; i < NBLK; i++)
        free(S->buf[i]);
    free(S->ws);
    free(S);
    return 0;
}
