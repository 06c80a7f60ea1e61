/* Carve workbench: where the CUDA exact path's time goes, per kernel and inside the DP.
 *
 * For 1920x1080, 3840x2160 and 7680x4320 (luma of the GPU test's pattern), opens a device pass
 * through the library (tsr__carve_cuda_open: upload, first DP), then runs the library's
 * own kernels (carve_cuda_kernels.cuh) for 50 seams in the library's order with CUDA events
 * around every launch: milliseconds per seam of select, remove and dp. One DP (seam
 * 10) is traced (the kernel's global-timer stamps per item): time from the launch's first item
 * start to each band's last store, and the mean stage / wait / rows / store times of an
 * item, so the DP's critical path per band can be read off. Every size runs twice: without a
 * mask (the DP's 32-bit keys) and with an empty mask plane (64-bit keys, the same seams). At
 * 1080p the seams are checked
 * against the CPU reference pass (tsr__carve_remove_seams, TSR_BACKEND_REFERENCE): exit 1 on a
 * difference. Batch mode: one pass of the adaptive K (tsr__carve_batch_k) for 50 seams and for a
 * quarter of the width, after the library's open (first DP with the pair bits), its kernels
 * (carve_cuda_batch_kernels.cuh's batch_launch) timed one by one with events, BATCH_REPEATS times
 * (the pass reads only what its DP wrote, so a repeat does the same work), and the trace's time
 * per image row; for 65..256 seams also the trace's other warp form (s = 2 a lane), and the
 * pass's DP with pair bits, timed alone and traced. Last, the barrier probe (barrier_probe below):
 * what a block-wide barrier per row costs with global accesses in flight, the question the
 * incremental DP's measurement left (bench/notes/carve.md). usage: carve_workbench_cuda [--small]
 * (--small: 1080p only). */
#include "cuda/cuda_internal.cuh"

extern "C" {
#include "carve/carve_cuda.h"
#include "carve/plan.h"
}

#include "carve/carve_cuda_kernels.cuh"
#include "carve/carve_cuda_batch_kernels.cuh"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <algorithm>
#include <vector>

#define CK(call)                                                                                   \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e_ != cudaSuccess) {                                                                   \
            fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_));  \
            exit(2);                                                                               \
        }                                                                                          \
    } while (0)

static const int SEAMS = 50, TRACED = 10, BATCH_REPEATS = 5;

static void fill(tsr__carve_grid *g)
{
    uint32_t s = 12345;
    for (int32_t y = 0; y < g->h; y++)
        for (int32_t x = 0; x < g->w; x++) {
            s = s * 1664525u + 1013904223u;
            g->luma[(size_t)y * (size_t)g->pitch + (size_t)x] =
                (uint8_t)((x * 7 + y * 3) % 256 / 2 + (s >> 28));
        }
}

/* Prints the DP trace of one launch of `items` items at width w. */
static void report_trace(const std::vector<uint64_t> &tr, const tsr__cc_planes &P, int32_t w)
{
    const int32_t ns = tsr__cc_strips(w), nb = (int32_t)tsr__cc_dp_items(&P, w) / ns; /* slots */
    uint64_t t0 = ~0ull;
    for (int32_t i = 0; i < nb * ns; i++)
        t0 = std::min(t0, tr[(size_t)i * 5]);
    double stage = 0, wait = 0, rows = 0, rel = 0;
    std::vector<double> band_end(nb, 0.0);
    int started_early = 0;
    for (int32_t i = 0; i < nb * ns; i++) {
        const uint64_t *t = &tr[(size_t)i * 5];
        stage += (double)(t[1] - t[0]);
        wait += (double)(t[2] - t[1]);
        rows += (double)(t[3] - t[2]);
        rel += (double)(t[4] - t[3]);
        started_early += t[0] - t0 < 2000;
        band_end[i / ns] = std::max(band_end[i / ns], (double)(t[4] - t0));
    }
    const double n = (double)(nb * ns);
    printf("  dp trace (%d items, %d started within 2 us): per item stage %.2f us, wait %.2f us, "
           "rows %.2f us, stores %.2f us\n",
           nb * ns, started_early, stage / n / 1e3, wait / n / 1e3, rows / n / 1e3, rel / n / 1e3);
    printf("  band ends (us from the first start):");
    for (int32_t b = 0; b < nb; b += (nb > 12 ? nb / 12 : 1))
        printf(" b%d=%.1f", b, band_end[b] / 1e3);
    printf(" last=%.1f; per band %.2f us\n", band_end[nb - 1] / 1e3,
           (band_end[nb - 1] - band_end[0]) / 1e3 / (nb > 1 ? nb - 1 : 1));
}

/* The mean milliseconds of launch(r), r = 0 .. repeats - 1, each timed alone by events ev[0..1]
 * on stream s. */
template <typename Launch>
static double mean_ms(cudaStream_t s, cudaEvent_t *ev, int repeats, Launch launch)
{
    double sum = 0;
    for (int r = 0; r < repeats; r++) {
        CK(cudaEventRecord(ev[0], s));
        launch(r);
        CK(cudaEventRecord(ev[1], s));
        CK(cudaEventSynchronize(ev[1]));
        CK(cudaGetLastError());
        float f;
        CK(cudaEventElapsedTime(&f, ev[0], ev[1]));
        sum += f;
    }
    return repeats > 0 ? sum / repeats : 0;
}

/* Batch mode: per-kernel times of the first pass of n seams (see the file comment). */
static int batch_size(tsr_ctx *ctx, const tsr__carve_grid *g, int32_t n)
{
    const uint64_t pen[4] = {0, 0, 0, 0};
    const int32_t k = tsr__carve_batch_k(g->w, n, 0);
    tsr__carve_cuda *c = NULL;
    if (tsr__carve_cuda_open_batch(ctx, g, TSR_CARVE_BACKWARD, pen, n, k, 0, 0, &c) != TSR_OK) {
        fprintf(stderr, "open_batch: %s\n", tsr_ctx_last_error(ctx));
        return 2;
    }
    CK(trace_setup());
    cudaStream_t s = ctx->cuda->stream;
    cudaEvent_t ev[5];
    for (int i = 0; i < 5; i++)
        CK(cudaEventCreate(&ev[i]));
    double ms[4] = {0, 0, 0, 0};
    /* the trace's rows: the bottom half's (the longer of the two traced side by side) */
    const double trows = g->h - g->h / 2 > 1 ? g->h - g->h / 2 - 1 : 1;
    for (int r = 0; r < BATCH_REPEATS; r++) {
        batch_launch(c->P, g->w, k, 0, 1, ctx->cuda->arch >= 90, s, ev);
        CK(cudaEventSynchronize(ev[4]));
        CK(cudaGetLastError());
        for (int i = 0; i < 4; i++) {
            float f;
            CK(cudaEventElapsedTime(&f, ev[i], ev[i + 1]));
            ms[i] += f / BATCH_REPEATS;
        }
    }
    /* the warp trace's other form for 65..256 seams, s = 2 on 2 or 4 warps (the library runs
       s = 1 on 4 or 8): the same pass, timed alone */
    if (k > 64 && k <= 256 && tsr__cc_trace_stage_bytes(c->P.pitch) <= TSR__CC_TRACE_SMEM) {
        void (*f)(tsr__cc_planes, int32_t, int32_t) =
            k <= 128 ? trace_warp_kernel<2, 2, 1> : trace_warp_kernel<2, 4, 1>;
        const size_t smem = (size_t)tsr__cc_trace_stage_bytes(c->P.pitch);
        CK(cudaFuncSetAttribute((const void *)f, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                (int)smem));
        const double alt = mean_ms(s, ev, BATCH_REPEATS, [&](int) {
            f<<<2, k <= 128 ? 64 : 128, smem, s>>>(c->P, g->w, k);
        });
        printf("  the trace at s = 2 on %d warps instead: %.4f ms (%.3f us per row)\n",
               k <= 128 ? 2 : 4, alt, alt * 1e3 / trows);
    }
    /* the pass's DP (pair bits stored): generations 2, 3, ... at the same width */
    const double dp = mean_ms(s, ev, std::min(BATCH_REPEATS, (int)n - 1),
                              [&](int r) { dp_launch(c->P, g->w, (uint32_t)(r + 2), NULL, s); });
    /* one more, traced (its stamps as for exact mode's DP) */
    const size_t ntr = (size_t)tsr__cc_dp_items(&c->P, g->w) * 5;
    uint64_t *dtrace;
    CK(cudaMalloc((void **)&dtrace, ntr * sizeof(uint64_t)));
    dp_launch(c->P, g->w, (uint32_t)BATCH_REPEATS + 2, dtrace, s);
    CK(cudaStreamSynchronize(s));
    std::vector<uint64_t> tr(ntr);
    CK(cudaMemcpy(tr.data(), dtrace, ntr * sizeof(uint64_t), cudaMemcpyDeviceToHost));
    cudaFree(dtrace);
    report_trace(tr, c->P, g->w);
    printf("  batch pass of %d seams, K = %d (ms): topk %.4f, trace %.4f (%.3f us per row), "
           "sum %.4f, gather %.4f, total %.4f; the DP with pair bits %.4f\n",
           (int)n, (int)k, ms[0], ms[1], ms[1] * 1e3 / trows, ms[2], ms[3],
           ms[0] + ms[1] + ms[2] + ms[3], dp);
    for (int i = 0; i < 5; i++)
        cudaEventDestroy(ev[i]);
    tsr__carve_cuda_close(ctx, c);
    return 0;
}

static int one_size(tsr_ctx *ctx, int32_t W, int32_t H, int check, int masked)
{
    tsr__carve_grid g;
    if (tsr__carve_grid_alloc(ctx, &g, W, H, W, 1, TSR_U8, 0, masked, 1) != TSR_OK)
        return 2;
    fill(&g);
    if (masked) /* a mask plane without keep or drop bits: the same seams, 64-bit keys */
        memset(g.mask, 0, (size_t)W * (size_t)H);
    for (int32_t y = 0; y < H; y++)
        for (int32_t x = 0; x < W; x++)
            g.index[(size_t)y * (size_t)W + (size_t)x] = (uint32_t)(y * W + x);
    const uint64_t pen[4] = {0, 0, 0, 0};
    tsr__carve_cuda *c = NULL;
    if (tsr__carve_cuda_open(ctx, &g, TSR_CARVE_BACKWARD, pen, SEAMS, 0, 0, &c) != TSR_OK) {
        fprintf(stderr, "open: %s\n", tsr_ctx_last_error(ctx));
        return 2;
    }
    cudaStream_t s = ctx->cuda->stream;
    const tsr__cc_planes P = c->P;
    const int32_t nb = tsr__cc_bands(H);
    uint64_t *dtrace;
    const size_t ntr = (size_t)nb * (size_t)tsr__cc_strips(W) * 5;
    CK(cudaMalloc((void **)&dtrace, ntr * sizeof(uint64_t)));
    cudaEvent_t ev[4];
    for (int i = 0; i < 4; i++)
        CK(cudaEventCreate(&ev[i]));
    double ms[3] = {0, 0, 0};
    std::vector<uint64_t> tr(ntr);
    for (int32_t k = 0; k < SEAMS; k++) {
        const int32_t w = W - k;
        CK(cudaEventRecord(ev[0], s));
        select_kernel<<<1, TSR__CC_SEL_THREADS, 0, s>>>(P, w);
        CK(cudaEventRecord(ev[1], s));
        remove_kernel<<<(unsigned)H, TSR__CC_THREADS, 0, s>>>(P, w);
        CK(cudaEventRecord(ev[2], s));
        if (k + 1 < SEAMS)
            dp_launch(P, w - 1, (uint32_t)k + 2, k == TRACED ? dtrace : NULL, s);
        CK(cudaEventRecord(ev[3], s));
        CK(cudaEventSynchronize(ev[3]));
        CK(cudaGetLastError());
        for (int i = 0; i < 3; i++) {
            float f;
            CK(cudaEventElapsedTime(&f, ev[i], ev[i + 1]));
            ms[i] += f;
        }
        if (k == TRACED) {
            CK(cudaMemcpy(tr.data(), dtrace, ntr * sizeof(uint64_t), cudaMemcpyDeviceToHost));
            printf("%dx%d, %s:\n", W, H, masked ? "64-bit keys (empty mask)" : "32-bit keys");
            report_trace(tr, P, w - 1);
        }
    }
    printf("  ms/seam: select %.4f, remove %.4f, dp %.4f, sum %.4f\n", ms[0] / SEAMS, ms[1] / SEAMS,
           ms[2] / (SEAMS - 1), (ms[0] + ms[1] + ms[2]) / SEAMS);
    int rc = 0;
    if (check) {
        tsr__cc_state st;
        std::vector<uint16_t> rec((size_t)SEAMS * H);
        if (tsr__carve_cuda_state(ctx, c, &st) != TSR_OK ||
            tsr__carve_cuda_fetch(ctx, c, st.removed, rec.data()) != TSR_OK)
            return 2;
        tsr__carve_pass p;
        memset(&p, 0, sizeof p);
        p.backend = TSR_BACKEND_REFERENCE;
        p.energy = TSR_CARVE_BACKWARD;
        p.mode = TSR_CARVE_EXACT;
        p.threads = 1;
        std::vector<uint32_t> want((size_t)SEAMS * H);
        p.record = want.data();
        if (tsr__carve_remove_seams(ctx, &g, SEAMS, &p) != TSR_OK)
            return 2;
        size_t bad = st.removed == SEAMS ? 0 : 1;
        for (size_t i = 0; i < want.size(); i++)
            bad += want[i] != (uint32_t)(i % (size_t)H) * (uint32_t)W + rec[i];
        printf("  check against the reference: %s (%zu differences)\n", bad ? "FAIL" : "ok", bad);
        rc = bad != 0;
    }
    for (int i = 0; i < 4; i++)
        cudaEventDestroy(ev[i]);
    cudaFree(dtrace);
    tsr__carve_cuda_close(ctx, c);
    if (!masked) {
        rc |= batch_size(ctx, &g, SEAMS);
        rc |= batch_size(ctx, &g, g.w / 4);
    }
    tsr__carve_grid_free(ctx, &g);
    return rc;
}

/* Barrier probe: one block of PROBE_T threads walks PROBE_ROWS rows; per row a thread adds the
 * value it loaded PROBE_AHEAD rows earlier, does what the mode says, puts its sum into shared
 * memory, synchronises and adds its warp neighbour's entry (a dependent shared read across the
 * synchronisation). Modes: 0 nothing else, block barrier; 1 a global load (a 280 MB plane: DRAM)
 * for row y + AHEAD into a register, block barrier; 2 the same load through the read-only path;
 * 3 a global store per row, block barrier; 4 a global atomic XOR per row (result unused), block
 * barrier; 5 the loads of mode 1 with __syncwarp instead of the block barrier; 6 nothing, with
 * __syncwarp. If mode 1 costs about a DRAM round trip per row more than mode 0 while mode 5
 * does not, the block barrier waits for the loads in flight (the incremental DP's ~1.1 us per
 * row). */
enum { PROBE_T = 1024, PROBE_ROWS = 4320, PROBE_AHEAD = 4, PROBE_PITCH = 8192, PROBE_MODES = 7 };

template <int Mode>
__global__ void __launch_bounds__(PROBE_T) barrier_probe(const uint64_t *plane, uint64_t *out)
{
    __shared__ uint64_t sh[PROBE_T];
    const int t = (int)threadIdx.x;
    uint64_t slot[PROBE_AHEAD], sum = 0;
#pragma unroll
    for (int j = 0; j < PROBE_AHEAD; j++)
        slot[j] = plane[(int64_t)j * PROBE_PITCH + t];
    for (int y0 = 0; y0 < PROBE_ROWS; y0 += PROBE_AHEAD) {
#pragma unroll
        for (int j = 0; j < PROBE_AHEAD; j++) {
            const int64_t y = y0 + j, ahead = (y + PROBE_AHEAD) * PROBE_PITCH + t;
            sum += slot[j];
            if (Mode == 1 || Mode == 5)
                slot[j] = plane[ahead];
            if (Mode == 2)
                slot[j] = __ldg(plane + ahead);
            if (Mode == 3)
                out[y * PROBE_T + t] = sum;
            if (Mode == 4)
                atomicXor((unsigned *)(out + y * PROBE_T + t), (unsigned)sum);
            sh[t] = sum;
            if (Mode >= 5)
                __syncwarp();
            else
                __syncthreads();
            sum += sh[t ^ 1];
            if (Mode >= 5)
                __syncwarp();
            else
                __syncthreads();
        }
    }
    out[(int64_t)PROBE_ROWS * PROBE_T + t] = sum;
}

template <int Mode>
static float probe_once(const uint64_t *plane, uint64_t *out, cudaEvent_t e0, cudaEvent_t e1)
{
    CK(cudaEventRecord(e0));
    barrier_probe<Mode><<<1, PROBE_T>>>(plane, out);
    CK(cudaEventRecord(e1));
    CK(cudaEventSynchronize(e1));
    CK(cudaGetLastError());
    float ms;
    CK(cudaEventElapsedTime(&ms, e0, e1));
    return ms;
}

static void barrier_probe_report()
{
    uint64_t *plane, *out;
    const size_t n = (size_t)(PROBE_ROWS + PROBE_AHEAD) * PROBE_PITCH;
    CK(cudaMalloc((void **)&plane, n * sizeof(uint64_t)));
    CK(cudaMemset(plane, 1, n * sizeof(uint64_t)));
    CK(cudaMalloc((void **)&out, (size_t)(PROBE_ROWS + 1) * PROBE_T * sizeof(uint64_t)));
    CK(cudaMemset(out, 0, (size_t)(PROBE_ROWS + 1) * PROBE_T * sizeof(uint64_t)));
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    static const char *names[PROBE_MODES] = {
        "block barrier",   "+ load 4 rows ahead", "+ __ldg 4 rows ahead",
        "+ store per row", "+ atomicXor per row", "__syncwarp + load 4 rows ahead",
        "__syncwarp"};
    printf("barrier probe (1 block of %d threads, %d rows, two synchronisations per row; "
           "best of 3, ns per row):\n",
           PROBE_T, PROBE_ROWS);
    for (int m = 0; m < PROBE_MODES; m++) {
        float best = 1e30f;
        for (int r = 0; r < 3; r++) {
            float ms = 0;
            switch (m) {
            case 0: ms = probe_once<0>(plane, out, e0, e1); break;
            case 1: ms = probe_once<1>(plane, out, e0, e1); break;
            case 2: ms = probe_once<2>(plane, out, e0, e1); break;
            case 3: ms = probe_once<3>(plane, out, e0, e1); break;
            case 4: ms = probe_once<4>(plane, out, e0, e1); break;
            case 5: ms = probe_once<5>(plane, out, e0, e1); break;
            default: ms = probe_once<6>(plane, out, e0, e1); break;
            }
            best = std::min(best, ms);
        }
        printf("  mode %d %-32s %8.1f\n", m, names[m], best * 1e6 / PROBE_ROWS);
    }
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    cudaFree(plane);
    cudaFree(out);
}

int main(int argc, char **argv)
{
    const int small = argc > 1 && strcmp(argv[1], "--small") == 0;
    tsr_ctx_options o;
    tsr_ctx_options_init(&o);
    o.backend = TSR_BACKEND_CUDA;
    tsr_ctx *ctx;
    if (tsr_ctx_create(&o, &ctx) != TSR_OK) {
        printf("no CUDA device: skipped\n");
        return 77;
    }
    int rc = one_size(ctx, 1920, 1080, 1, 0) | one_size(ctx, 1920, 1080, 1, 1);
    if (!small) {
        rc |= one_size(ctx, 3840, 2160, 0, 0) | one_size(ctx, 3840, 2160, 0, 1);
        rc |= one_size(ctx, 7680, 4320, 0, 0) | one_size(ctx, 7680, 4320, 0, 1);
    }
    barrier_probe_report();
    tsr_ctx_destroy(ctx);
    return rc;
}
