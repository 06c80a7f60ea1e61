/* The device Tier-1 decoder (t1_cuda.h) against the CPU's tsr__t1_decode: many code-blocks made
 * with the CPU encoders (t1_encode.h Part 1 in styles 0, bypass, termall, reset, vcausal, segsym
 * and combinations, truncated after every few passes; ht_encode.h HT cleanup-only), in sizes
 * 1x1 .. 1024x4, reversible and irreversible, ROI shifts, magnitudes of 1 to 29 bits, plus
 * segments cut short, random garbage bytes (Part 1 and HT), a zero job and a rejected job
 * (EINVAL). Every block is decoded on the CPU (tsr__t1_decode and cblk_jobs.c's scaling) and on
 * the device into a coefficient buffer poisoned with 0x7f bytes; coefficients (rows with padding
 * between them, which must stay poisoned) and status words must be bit-identical. The segments'
 * bytes are packed back to back in one device buffer with nothing after the last one, so
 * compute-sanitizer sees a read past any segment that ends the buffer. Run twice: with the
 * default thread count and with fewer threads than blocks (each thread's workspace reused).
 * Skips (77) where there is no CUDA device; TSR_TEST_QUICK=1 (compute-sanitizer): fewer blocks. */
#include "testlib.h"

#include "cuda/cuda_device.h"
#include "j2k/ht_encode.h"
#include "j2k/t1.h"
#include "j2k/t1_cuda.h"
#include "j2k/t1_encode.h"

#include <cuda_runtime.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_JOBS = 1 << 16, MAX_DEVSEGS = 1 << 18 };
#define DATA_CAP ((size_t)64 << 20)
#define COEF_CAP ((size_t)48 << 20) /* elements */

/* The batch being built: the device's inputs (host copies) and the CPU's answer. */
static tsr__t1_dev_job g_jobs[MAX_JOBS];
static uint32_t g_ref_status[MAX_JOBS];
static tsr__t1_dev_seg g_segs[MAX_DEVSEGS];
static uint8_t *g_data;
static int32_t *g_ref;
static uint32_t g_njobs, g_nsegs;
static size_t g_ndata, g_ncoef;
static void *g_ws;
static size_t g_wss;
static tsr_rng g_rng;

/* Appends blk (its segments' bytes copied into the batch's data) as a job whose rows are
 * stride >= w apart, and decodes it on the CPU into the reference. Returns 0 when the batch is
 * full. */
static int add_block(const tsr__t1_block *blk, uint32_t stride, float scale)
{
    size_t bytes = 0;
    for (uint32_t i = 0; i < blk->nsegs; i++)
        bytes += blk->segs[i].len;
    const size_t area = (size_t)blk->h * stride;
    if (g_njobs >= MAX_JOBS || g_nsegs + blk->nsegs > MAX_DEVSEGS || g_ndata + bytes > DATA_CAP ||
        g_ncoef + area + 64 > COEF_CAP)
        return 0;
    tsr__t1_seg segs[TSR__T1_MAX_SEGS];
    tsr__t1_dev_job *J = &g_jobs[g_njobs];
    memset(J, 0, sizeof *J);
    J->out = g_ncoef;
    J->stride = stride;
    J->seg0 = g_nsegs;
    J->w = (uint16_t)blk->w;
    J->h = (uint16_t)blk->h;
    J->nsegs = (uint16_t)blk->nsegs;
    J->npasses = (uint16_t)blk->npasses;
    J->orient = blk->orient;
    J->style = blk->style;
    J->zero_bp = blk->zero_bp;
    J->mb = blk->mb;
    J->roi_shift = blk->roi_shift;
    J->reversible = blk->reversible;
    J->scale = scale;
    for (uint32_t i = 0; i < blk->nsegs; i++) {
        const tsr__t1_seg *s = &blk->segs[i];
        if (s->len)
            memcpy(g_data + g_ndata, s->data, s->len);
        g_segs[g_nsegs + i].off = g_ndata;
        g_segs[g_nsegs + i].len = s->len;
        g_segs[g_nsegs + i].npasses = s->npasses;
        segs[i].data = g_data + g_ndata;
        segs[i].len = s->len;
        segs[i].npasses = s->npasses;
        g_ndata += s->len;
    }
    tsr__t1_block b = *blk;
    b.segs = segs;
    int32_t *out = g_ref + g_ncoef;
    unsigned warn = 0;
    const int rc = tsr__t1_decode(&b, g_ws, g_wss, out, stride, &warn);
    if (rc != TSR__T1_EINVAL && !blk->reversible)
        for (uint32_t y = 0; y < blk->h; y++) {
            int32_t *row = out + (size_t)y * stride;
            for (uint32_t x = 0; x < blk->w; x++) {
                const float f = (float)row[x] * scale;
                memcpy(&row[x], &f, sizeof f);
            }
        }
    g_ref_status[g_njobs] = warn << 8 | (uint8_t)rc;
    g_nsegs += blk->nsegs;
    g_ncoef += area + (size_t)tsr_rng_range(&g_rng, 0, 64); /* a gap the device must not touch */
    g_njobs++;
    return 1;
}

/* A random irreversible step (delta / 2), positive, of many magnitudes. */
static float rand_scale(void)
{
    return (float)(tsr_rng_range(&g_rng, 1, 1 << 20)) / (float)(1 << tsr_rng_range(&g_rng, 4, 30));
}

static void gen_coefs(int32_t *c, int n, int K, int roi)
{
    const int kind = tsr_rng_range(&g_rng, 0, 3);
    for (int i = 0; i < n; i++) {
        int32_t v = 0;
        const int zero_pct = kind == 0 ? 90 : kind == 1 ? 50 : kind == 2 ? 10 : 99;
        if (tsr_rng_range(&g_rng, 0, 99) >= zero_pct) {
            const int top = roi ? (roi < K - roi ? roi : K - roi) : K;
            const int bits = tsr_rng_range(&g_rng, 1, top);
            v = (int32_t)(tsr_rng_next(&g_rng) & ((1ull << bits) - 1));
            if (!v)
                v = 1;
            if (roi && tsr_rng_range(&g_rng, 0, 1)) {
                v = (int32_t)((uint32_t)v << roi);
                if ((uint32_t)v >= (1u << K))
                    v = 1 << roi;
            }
            if (tsr_rng_range(&g_rng, 0, 1))
                v = -v;
        }
        c[i] = v;
    }
}

static const int g_sizes[][2] = {{1, 1}, {4, 4}, {17, 3}, {64, 64}, {1024, 4}, {32, 128}};
enum { NSIZES = sizeof g_sizes / sizeof g_sizes[0] };

/* Part 1 blocks: every style of interest, every size, several truncation points, and some with
 * their last segment cut short. */
static void part1_blocks(int quick)
{
    static const int styles[] = {0,
                                 TSR__T1_STYLE_BYPASS,
                                 TSR__T1_STYLE_TERMALL,
                                 TSR__T1_STYLE_RESET,
                                 TSR__T1_STYLE_VCAUSAL,
                                 TSR__T1_STYLE_SEGSYM,
                                 TSR__T1_STYLE_BYPASS | TSR__T1_STYLE_TERMALL,
                                 TSR__T1_STYLE_BYPASS | TSR__T1_STYLE_VCAUSAL |
                                     TSR__T1_STYLE_SEGSYM,
                                 0x3f};
    static int32_t coef[TSR__T1_MAX_AREA];
    static uint8_t buf[1 << 20];
    static tsr__t1_enc E;
    const int reps = quick ? 1 : 3;
    for (size_t st = 0; st < sizeof styles / sizeof styles[0]; st++)
        for (int si = 0; si < NSIZES; si++)
            for (int rep = 0; rep < reps; rep++) {
                tsr__t1_enc *e = &E;
                e->w = g_sizes[si][0];
                e->h = g_sizes[si][1];
                e->orient = tsr_rng_range(&g_rng, 0, 3);
                e->style = styles[st];
                const int roi = tsr_rng_range(&g_rng, 0, 4) == 0 ? tsr_rng_range(&g_rng, 1, 6) : 0;
                e->K = tsr_rng_range(&g_rng, roi ? roi + 1 : 1, roi ? roi + 10 : 29);
                const int zbp = tsr_rng_range(&g_rng, 0, 2);
                const int mb = e->K + zbp - roi;
                if (mb > 30 || mb < 0)
                    continue;
                gen_coefs(coef, e->w * e->h, e->K, roi);
                e->coef = coef;
                e->buf = buf;
                e->cap = sizeof buf;
                e->track = 0;
                const int np = tsr__t1_encode_block(e);
                if (np < 0 || e->overflow)
                    continue;
                const int rev = tsr_rng_range(&g_rng, 0, 1);
                const float scale = rand_scale();
                const uint32_t stride = (uint32_t)e->w + (uint32_t)tsr_rng_range(&g_rng, 0, 5);
                const int step = 1 + np / (quick ? 2 : 5);
                for (int n = 0; n <= np; n = n == np ? np + 1 : (n + step > np ? np : n + step))
                    for (int cut = 0; cut < 2; cut++) {
                        tsr__t1_seg segs[TSR__T1_MAX_SEGS];
                        uint32_t ns = 0, left = (uint32_t)n;
                        for (int s = 0; s < e->nsegs && left > 0; s++) {
                            segs[ns] = e->segs[s];
                            if (segs[ns].npasses > left)
                                segs[ns].npasses = left;
                            left -= segs[ns].npasses;
                            ns++;
                        }
                        if (cut) { /* the last segment truncated (a stream cut short) */
                            if (!ns || !segs[ns - 1].len)
                                continue;
                            segs[ns - 1].len =
                                (uint32_t)tsr_rng_range(&g_rng, 0, (int)segs[ns - 1].len - 1);
                        }
                        tsr__t1_block blk = {.w = (uint32_t)e->w,
                                             .h = (uint32_t)e->h,
                                             .orient = (uint8_t)e->orient,
                                             .style = (uint8_t)e->style,
                                             .zero_bp = (uint8_t)zbp,
                                             .mb = (uint8_t)mb,
                                             .roi_shift = (uint8_t)roi,
                                             .reversible = (uint8_t)rev,
                                             .npasses = (uint32_t)n,
                                             .nsegs = ns,
                                             .segs = segs};
                        add_block(&blk, stride, scale);
                    }
            }
}

/* HT cleanup-only blocks (T.814 with P = Mb - 1), whole and with the segment cut or a byte
 * flipped. */
static void ht_blocks(int quick)
{
    static int32_t coef[TSR__T1_MAX_AREA];
    static uint8_t buf[1 << 20];
    const int reps = quick ? 2 : 8;
    for (int si = 0; si < NSIZES; si++)
        for (int rep = 0; rep < reps; rep++) {
            const uint32_t w = (uint32_t)g_sizes[si][0], h = (uint32_t)g_sizes[si][1];
            const int K = tsr_rng_range(&g_rng, 1, 29);
            gen_coefs(coef, (int)(w * h), K, 0);
            const long len = tsr__ht_encode_block(coef, w, h, buf, sizeof buf);
            if (len < 2)
                continue;
            const int mb = K + 1, rev = tsr_rng_range(&g_rng, 0, 1);
            const float scale = rand_scale();
            for (int variant = 0; variant < 3; variant++) {
                static uint8_t copy[1 << 20];
                memcpy(copy, buf, (size_t)len);
                tsr__t1_seg seg = {.data = copy, .len = (uint32_t)len, .npasses = 1};
                if (variant == 1)
                    seg.len = (uint32_t)tsr_rng_range(&g_rng, 0, (int)len - 1);
                if (variant == 2)
                    copy[tsr_rng_range(&g_rng, 0, (int)len - 1)] ^=
                        (uint8_t)tsr_rng_range(&g_rng, 1, 255);
                tsr__t1_block blk = {
                    .w = w,
                    .h = h,
                    .orient = (uint8_t)tsr_rng_range(&g_rng, 0, 3),
                    .style = (uint8_t)(TSR__T1_STYLE_HT | (tsr_rng_range(&g_rng, 0, 1) ? 0x08 : 0)),
                    .zero_bp = (uint8_t)(mb - 1),
                    .mb = (uint8_t)mb,
                    .roi_shift = 0,
                    .reversible = (uint8_t)rev,
                    .npasses = 1,
                    .nsegs = 1,
                    .segs = &seg};
                add_block(&blk, w + (uint32_t)tsr_rng_range(&g_rng, 0, 3), scale);
            }
        }
}

/* Random bytes as Part-1 and HT segments, with random pass counts, planes and ROI shifts
 * (the rejections included: P > Mb + s, Mb > 30). */
static void garbage_blocks(int quick)
{
    static uint8_t bytes[1 << 16];
    const int count = quick ? 60 : 600;
    for (int i = 0; i < count; i++) {
        const int si = tsr_rng_range(&g_rng, 0, NSIZES - 1);
        const int ht = tsr_rng_range(&g_rng, 0, 1);
        tsr__t1_seg segs[8];
        const uint32_t ns = (uint32_t)tsr_rng_range(&g_rng, 1, 8);
        uint32_t np = 0;
        size_t used = 0;
        for (uint32_t s = 0; s < ns; s++) {
            const uint32_t len = (uint32_t)tsr_rng_range(&g_rng, 0, 2000);
            tsr_rng_fill(&g_rng, bytes + used, len);
            segs[s].data = bytes + used;
            segs[s].len = len;
            segs[s].npasses = (uint32_t)tsr_rng_range(&g_rng, 0, 12);
            np += segs[s].npasses;
            used += len;
        }
        const int mb = tsr_rng_range(&g_rng, 0, 31);
        tsr__t1_block blk = {
            .w = (uint32_t)g_sizes[si][0],
            .h = (uint32_t)g_sizes[si][1],
            .orient = (uint8_t)tsr_rng_range(&g_rng, 0, 3),
            .style = (uint8_t)(tsr_rng_range(&g_rng, 0, 0x3f) | (ht ? TSR__T1_STYLE_HT : 0)),
            .zero_bp = (uint8_t)tsr_rng_range(&g_rng, 0, mb + 1),
            .mb = (uint8_t)mb,
            .roi_shift = (uint8_t)(tsr_rng_range(&g_rng, 0, 3) ? 0 : tsr_rng_range(&g_rng, 1, 5)),
            .reversible = (uint8_t)tsr_rng_range(&g_rng, 0, 1),
            .npasses = np,
            .nsegs = ns,
            .segs = segs};
        add_block(&blk, blk.w + (uint32_t)tsr_rng_range(&g_rng, 0, 2), rand_scale());
    }
}

/* A zero job (all zeros, status 0) and one the decoder rejects (npasses != the segments' sum:
 * EINVAL, nothing written, the poison stays). */
static void special_jobs(void)
{
    tsr__t1_block blk = {.w = 17, .h = 3, .mb = 8, .npasses = 0, .nsegs = 0, .segs = NULL};
    const uint32_t j = g_njobs;
    add_block(&blk, 20, 1.0f);
    g_jobs[j].zero = 1;
    for (uint32_t y = 0; y < 3; y++)
        memset(g_ref + g_jobs[j].out + (size_t)y * 20, 0, 17 * sizeof(int32_t));
    g_ref_status[j] = 0;
    static const uint8_t some[4] = {1, 2, 3, 4};
    tsr__t1_seg seg = {.data = some, .len = 4, .npasses = 2};
    tsr__t1_block bad = {.w = 4, .h = 4, .mb = 8, .npasses = 3, .nsegs = 1, .segs = &seg};
    add_block(&bad, 4, 0.5f);
}

/* Uploads the batch, decodes it on the device with max_threads, compares with the CPU. */
static void run_device(tsr_ctx *ctx, uint32_t max_threads)
{
    void *djobs = NULL, *dsegs = NULL, *ddata = NULL, *dcoef = NULL, *dstat = NULL;
    const size_t cbytes = g_ncoef * sizeof(int32_t);
    int ok = cudaMalloc(&djobs, g_njobs * sizeof *g_jobs) == cudaSuccess &&
             cudaMalloc(&dsegs, (g_nsegs ? g_nsegs : 1) * sizeof *g_segs) == cudaSuccess &&
             cudaMalloc(&ddata, g_ndata ? g_ndata : 1) == cudaSuccess &&
             cudaMalloc(&dcoef, cbytes) == cudaSuccess &&
             cudaMalloc(&dstat, g_njobs * sizeof(uint32_t)) == cudaSuccess;
    CHECK(ok);
    int32_t *got = malloc(cbytes);
    uint32_t *gst = malloc(g_njobs * sizeof(uint32_t));
    CHECK(got && gst);
    if (ok && got && gst) {
        ok = cudaMemcpy(djobs, g_jobs, g_njobs * sizeof *g_jobs, cudaMemcpyHostToDevice) ==
                 cudaSuccess &&
             cudaMemcpy(dsegs, g_segs, g_nsegs * sizeof *g_segs, cudaMemcpyHostToDevice) ==
                 cudaSuccess &&
             cudaMemcpy(ddata, g_data, g_ndata, cudaMemcpyHostToDevice) == cudaSuccess &&
             cudaMemset(dcoef, 0x7f, cbytes) == cudaSuccess &&
             cudaMemset(dstat, 0xAB, g_njobs * sizeof(uint32_t)) == cudaSuccess &&
             cudaDeviceSynchronize() == cudaSuccess;
        CHECK(ok);
        CHECK_OK(ctx,
                 tsr__t1_decode_cuda(ctx, djobs, dsegs, g_njobs, ddata, dcoef, dstat, max_threads));
        CHECK(cudaDeviceSynchronize() == cudaSuccess);
        CHECK(cudaMemcpy(got, dcoef, cbytes, cudaMemcpyDeviceToHost) == cudaSuccess);
        CHECK(cudaMemcpy(gst, dstat, g_njobs * sizeof(uint32_t), cudaMemcpyDeviceToHost) ==
              cudaSuccess);
        uint32_t bad_status = 0, bad_coef = 0, counts[6] = {0};
        for (uint32_t j = 0; j < g_njobs; j++) {
            const tsr__t1_dev_job *J = &g_jobs[j];
            const int rc = (int8_t)(g_ref_status[j] & 0xff);
            counts[rc == TSR__T1_OK            ? 0
                   : rc == TSR__T1_WARN        ? 1
                   : rc == TSR__T1_CORRUPT     ? 2
                   : rc == TSR__T1_UNSUPPORTED ? 3
                   : rc == TSR__T1_EINVAL      ? 4
                                               : 5]++;
            if (gst[j] != g_ref_status[j] && bad_status++ < 5)
                fprintf(stderr, "job %u (%ux%u style 0x%x): status 0x%x, CPU 0x%x\n", j, J->w, J->h,
                        J->style, gst[j], g_ref_status[j]);
            const size_t end = j + 1 < g_njobs ? g_jobs[j + 1].out : g_ncoef;
            if (memcmp(got + J->out, g_ref + J->out, (end - J->out) * sizeof(int32_t)) &&
                bad_coef++ < 5)
                fprintf(stderr, "job %u (%ux%u style 0x%x rev %u): coefficients differ\n", j, J->w,
                        J->h, J->style, J->reversible);
        }
        CHECK(bad_status == 0);
        CHECK(bad_coef == 0);
        printf("max_threads %u: %u jobs (%u OK, %u WARN, %u CORRUPT, %u UNSUPPORTED, %u EINVAL), "
               "%u segments, %zu bytes: %u status and %u block mismatches\n",
               max_threads, g_njobs, counts[0], counts[1], counts[2], counts[3], counts[4], g_nsegs,
               g_ndata, bad_status, bad_coef);
        CHECK(counts[5] == 0);
    }
    free(got);
    free(gst);
    cudaFree(djobs);
    cudaFree(dsegs);
    cudaFree(ddata);
    cudaFree(dcoef);
    cudaFree(dstat);
}

int main(void)
{
    if (tsr__cuda_device_count() < 1) {
        printf("test_j2k_t1_cuda_gpu: no CUDA device; skipping\n");
        return TSR_TEST_SKIP;
    }
    const int quick = tsr_test_quick();
    tsr_rng_seed(&g_rng, 2000);
    tsr_ctx_options o;
    tsr_ctx_options_init(&o);
    o.backend = TSR_BACKEND_CUDA;
    tsr_ctx *ctx = NULL;
    CHECK(tsr_ctx_create(&o, &ctx) == TSR_OK);
    g_wss = tsr__t1_workspace_size();
    g_ws = malloc(g_wss);
    g_data = malloc(DATA_CAP);
    g_ref = malloc(COEF_CAP * sizeof(int32_t));
    CHECK(ctx && g_ws && g_data && g_ref);
    if (ctx && g_ws && g_data && g_ref) {
        memset(g_ref, 0x7f, COEF_CAP * sizeof(int32_t));
        special_jobs();
        part1_blocks(quick);
        ht_blocks(quick);
        garbage_blocks(quick);
        CHECK(g_njobs > 100 && g_njobs < MAX_JOBS);
        run_device(ctx, 0);
        run_device(ctx, 100); /* fewer threads than jobs: workspaces reused, grid-stride */
    }
    free(g_ws);
    free(g_data);
    free(g_ref);
    tsr_ctx_destroy(ctx);
    return tsr_test_finish("test_j2k_t1_cuda_gpu");
}
