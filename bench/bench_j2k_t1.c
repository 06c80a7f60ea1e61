/* Tier-1 micro-benchmark: decodes Part-1 code-blocks many times and prints ns per coefficient.
 *
 * The blocks are encoded here with the library's Part 1 encoder (src/j2k/t1_encode.h) from
 * synthetic wavelet-like coefficients: a Laplacian magnitude distribution (as in the high-pass
 * sub-bands of natural images) with scale `b`, so "lossless 8-bit HL" is b = 4 with all passes,
 * "lossy" keeps only the passes of the upper planes. Rotates among several blocks so the timing
 * is not one block in L1. Times are thread CPU time (CLOCK_THREAD_CPUTIME_ID).
 *
 * With --pgm FILE (8-bit binary PGM) it also decodes the code-blocks of that image: a 5-level
 * reversible 5/3 DWT (T.800 F.3.8 lifting, symmetric extension), every sub-band cut into 64x64
 * code-blocks, each encoded losslessly with all passes; the time of decoding all of them once is
 * reported per image sample, to be compared with `opj_decompress -threads 1` on the same image
 * compressed losslessly (opj_compress defaults: 5 levels, 64x64 blocks).
 *
 *   bench_j2k_t1 [--json FILE] [--repeats N] [--pgm FILE] */
#include "j2k/t1_encode.h"
#include "harness.h"
#include "j2k/t1.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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
    tsr__t1_seg segs[NBLK][TSR__T1_MAX_SEGS];
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

/* thread CPU time: the dev machines are shared, wall time would count other processes */
static double cpu_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec * 1e-3;
}

static int bench_fn(void *user, int iter, double *us)
{
    (void)iter;
    bset *s = user;
    double t0 = cpu_us();
    for (int r = 0; r < s->decodes_per_iter; r++)
        for (int i = 0; i < NBLK; i++)
            if (tsr__t1_decode(&s->blk[i], s->ws, s->wss, s->out, BW, NULL) < 0)
                return 1;
    *us = cpu_us() - t0;
    return 0;
}

/* ---- real-image code-blocks --------------------------------------------------------------- */
static int32_t *read_pgm(const char *path, int *w, int *h)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    int maxv;
    if (fscanf(f, "P5 %d %d %d", w, h, &maxv) != 3 || maxv > 255 || *w <= 0 || *h <= 0) {
        fclose(f);
        return NULL;
    }
    fgetc(f);
    size_t n = (size_t)*w * *h;
    uint8_t *b = malloc(n);
    int32_t *img = malloc(n * sizeof *img);
    if (fread(b, 1, n, f) != n) {
        fclose(f);
        free(b);
        free(img);
        return NULL;
    }
    fclose(f);
    for (size_t i = 0; i < n; i++)
        img[i] = (int32_t)b[i] - 128; /* DC level shift */
    free(b);
    return img;
}

/* one 1-D reversible 5/3 lifting step on n samples at x[0], x[s], ... (deinterleaved into tmp) */
static void dwt53_1d(int32_t *x, int n, ptrdiff_t s, int32_t *tmp)
{
    if (n < 2)
        return;
    int nl = (n + 1) / 2, nh = n / 2;
    for (int i = 0; i < n; i++)
        tmp[i] = x[i * s];
#define X(i) tmp[(i) < 0 ? -(i) : (i) >= n ? 2 * (n - 1) - (i) : (i)]
    int32_t *hp = malloc(sizeof(int32_t) * (size_t)nh), *lp = malloc(sizeof(int32_t) * (size_t)nl);
    for (int i = 0; i < nh; i++)
        hp[i] = X(2 * i + 1) - ((X(2 * i) + X(2 * i + 2)) >> 1);
    for (int i = 0; i < nl; i++) {
        int32_t dl = i > 0 ? hp[i - 1] : hp[0], dr = i < nh ? hp[i] : hp[nh - 1];
        lp[i] = X(2 * i) + ((dl + dr + 2) >> 2);
    }
#undef X
    for (int i = 0; i < nl; i++)
        x[i * s] = lp[i];
    for (int i = 0; i < nh; i++)
        x[(nl + i) * s] = hp[i];
    free(hp);
    free(lp);
}

typedef struct imgblocks {
    int n;
    tsr__t1_block *blk;
    tsr__t1_seg *segs;
    uint8_t **bufs;
    void *ws;
    size_t wss;
    int32_t *out;
    size_t bytes;
} imgblocks;

static int img_fn(void *user, int iter, double *us)
{
    (void)iter;
    imgblocks *ib = user;
    double t0 = cpu_us();
    for (int i = 0; i < ib->n; i++)
        if (tsr__t1_decode(&ib->blk[i], ib->ws, ib->wss, ib->out, 64, NULL) < 0)
            return 1;
    *us = cpu_us() - t0;
    return 0;
}

static int bench_image(const char *path, int repeats, tsr_bench_table *t)
{
    int w, h;
    int32_t *img = read_pgm(path, &w, &h);
    if (!img)
        return 1;
    int32_t *tmp = malloc(sizeof(int32_t) * (size_t)(w > h ? w : h));
    int lw = w, lh = h;
    for (int lev = 0; lev < 5; lev++) {
        for (int y = 0; y < lh; y++)
            dwt53_1d(img + (size_t)y * w, lw, 1, tmp);
        for (int x = 0; x < lw; x++)
            dwt53_1d(img + x, lh, w, tmp);
        lw = (lw + 1) / 2;
        lh = (lh + 1) / 2;
    }
    free(tmp);
    /* cut the whole (Mallat-arranged) array into 64x64 blocks that never straddle sub-bands */
    int maxblk = (w / 64 + 8) * (h / 64 + 8) * 2 + 64;
    imgblocks ib = {0};
    ib.blk = calloc((size_t)maxblk, sizeof *ib.blk);
    ib.segs = calloc((size_t)maxblk, sizeof *ib.segs);
    ib.bufs = calloc((size_t)maxblk, sizeof *ib.bufs);
    ib.wss = tsr__t1_workspace_size();
    ib.ws = malloc(ib.wss);
    ib.out = malloc(64 * 64 * sizeof(int32_t));
    static tsr__t1_enc E;
    static int32_t coef[64 * 64];
    /* sub-band rectangles: level l (1..5) HL, LH, HH, then LL5 */
    int bx0[16], by0[16], bw_[16], bh_[16], bo[16], nb = 0;
    int cw = w, ch = h;
    for (int l = 1; l <= 5; l++) {
        int nw = (cw + 1) / 2, nh = (ch + 1) / 2;
        int r[3][5] = {
            {nw, 0, cw - nw, nh, 1}, {0, nh, nw, ch - nh, 2}, {nw, nh, cw - nw, ch - nh, 3}};
        for (int k = 0; k < 3; k++) {
            bx0[nb] = r[k][0];
            by0[nb] = r[k][1];
            bw_[nb] = r[k][2];
            bh_[nb] = r[k][3];
            bo[nb++] = r[k][4];
        }
        cw = nw;
        ch = nh;
    }
    bx0[nb] = 0;
    by0[nb] = 0;
    bw_[nb] = cw;
    bh_[nb] = ch;
    bo[nb++] = 0;
    for (int b = 0; b < nb; b++)
        for (int y0 = 0; y0 < bh_[b]; y0 += 64)
            for (int x0 = 0; x0 < bw_[b]; x0 += 64) {
                if (ib.n >= maxblk)
                    break;
                int cbw = bw_[b] - x0 < 64 ? bw_[b] - x0 : 64;
                int cbh = bh_[b] - y0 < 64 ? bh_[b] - y0 : 64;
                uint32_t maxm = 0;
                for (int y = 0; y < cbh; y++)
                    for (int x = 0; x < cbw; x++) {
                        int32_t v = img[(size_t)(by0[b] + y0 + y) * w + bx0[b] + x0 + x];
                        coef[y * cbw + x] = v;
                        uint32_t m = (uint32_t)(v < 0 ? -v : v);
                        if (m > maxm)
                            maxm = m;
                    }
                int K = maxm ? 32 - __builtin_clz(maxm) : 0;
                E.w = cbw;
                E.h = cbh;
                E.orient = bo[b];
                E.style = 0;
                E.K = K;
                E.coef = coef;
                uint8_t *buf = malloc(1 << 16);
                E.buf = buf;
                E.cap = 1 << 16;
                int np = tsr__t1_encode_block(&E);
                ib.bufs[ib.n] = buf;
                ib.segs[ib.n] = E.nsegs ? E.segs[0] : (tsr__t1_seg){buf, 0, 0};
                ib.bytes += E.nsegs ? E.segs[0].len : 0;
                ib.blk[ib.n] = (tsr__t1_block){.w = (uint32_t)cbw,
                                               .h = (uint32_t)cbh,
                                               .orient = (uint8_t)bo[b],
                                               .mb = (uint8_t)K,
                                               .reversible = 1,
                                               .npasses = (uint32_t)np,
                                               .nsegs = np ? 1 : 0,
                                               .segs = &ib.segs[ib.n]};
                ib.n++;
            }
    free(img);
    tsr_bench_stats st;
    int rc = tsr_bench_measure(img_fn, &ib, 2, repeats, &st);
    if (!rc) {
        double ns = st.median_us * 1000.0 / ((double)w * h);
        const char *row[] = {tsr_bench_fmt("image %dx%d lossless (%d blocks)", w, h, ib.n),
                             tsr_bench_fmt("%.2f", ib.bytes * 8.0 / ((double)w * h)),
                             "all",
                             tsr_bench_fmt("%.2f", ns),
                             tsr_bench_fmt("%.1f", 1000.0 / ns),
                             tsr_bench_fmt("%.1f", 100.0 * (st.max_us - st.min_us) / st.median_us)};
        tsr_bench_table_row(t, row);
    }
    for (int i = 0; i < ib.n; i++)
        free(ib.bufs[i]);
    free(ib.blk);
    free(ib.segs);
    free(ib.bufs);
    free(ib.ws);
    free(ib.out);
    return rc;
}

int main(int argc, char **argv)
{
    const char *pgm = NULL;
    const char *json = NULL;
    int repeats = 15;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--json") && i + 1 < argc)
            json = argv[++i];
        else if (!strcmp(argv[i], "--repeats") && i + 1 < argc)
            repeats = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--pgm") && i + 1 < argc)
            pgm = argv[++i];
    }
    static const bcase cases[] = {
        {"lossless b=4 (8-bit HL-like)", 0, 4.0, 0, 1},
        {"lossless b=30 (12-bit-like)", 0, 30.0, 0, 1},
        {"lossless b=4 bypass", 0x01, 4.0, 0, 1},
        {"lossless b=4 termall+reset+segsym", 0x26, 4.0, 0, 1},
        {"lossy b=30 top planes", 0, 30.0, 3, 0},
        {"lossless b=1 (sparse)", 0, 1.0, 0, 1},
    };
    static tsr__t1_enc E;
    static int32_t coef[BW * BH];
    static const char *hdr[] = {"case",    "coded bits/coef", "passes",
                                "ns/coef", "Mcoef/s",         "spread %"};
    tsr_bench_table *t =
        tsr_bench_table_new("Tier-1 Part-1 decode, 64x64 blocks, 1 thread", 6, hdr);
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
            E.cap = 1 << 20;
            int np = tsr__t1_encode_block(&E);
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
            S->blk[i] = (tsr__t1_block){.w = BW,
                                        .h = BH,
                                        .orient = 1,
                                        .style = (uint8_t)bc->style,
                                        .zero_bp = 0,
                                        .mb = (uint8_t)K,
                                        .reversible = (uint8_t)bc->reversible,
                                        .npasses = (uint32_t)keep,
                                        .nsegs = (uint32_t)ns,
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
    if (pgm && bench_image(pgm, repeats, t))
        fprintf(stderr, "cannot read or decode %s\n", pgm);
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
