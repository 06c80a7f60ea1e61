/* bench_migrate: tsr_migrate_image (method explicit, cross imaging) on the reference (1 thread),
 * cpu (OpenMP, every core) and cuda backends in one run, on the same synthetic 2D survey: a
 * Marmousi-sized grid (737 x 750 at 12.5 m, a layered velocity 1500..4500 m/s with a slow lens),
 * split-spread shots of 737 receivers (one per column), nt samples of 4 ms holding three
 * hyperbolic events (the data's content does not change the work).
 *
 * Per backend: the whole call's host time over its shots (the plan, the FFTs, the extrapolation,
 * the image combination) and so seconds per shot; ratios to cuda. For cuda also the device time
 * of one shot's depth loop (CUDA events, tsr__migrate_cuda_loop_ms), per depth step, the HBM
 * bytes a step must move (read and write S and R of every frequency: 32 bytes per frequency and
 * point, plus the slowness and taper rows) and the fraction of the copy floor that reaches: the
 * floor is a 1 GiB cudaMemcpy device to device timed with events in the same run (bytes read
 * plus written over its time).
 *
 * Also the host's share of the cuda backend's batches: the surface spectra of TSR__MIG_BATCH
 * shots (tsr__mig_spectra_shots) on 1 thread and on every core, median ms per shot of 7 repeats.
 * A backend given 0 shots is skipped.
 *
 * --3d (off by default: the CPU backends take minutes on it): a 3D survey, an N x N x N grid
 * (--3d-n, default 200) at 10 m with v(z) and a slow spherical lens, receivers on every second
 * node in x and y, fmax 25 Hz (--fmax sets it too) and 500 samples of 4 ms (--3d-nt). Per shot, end
 * to end: cuda
 * (--3d-shots-cuda, default 3, after a one-shot warm-up), cpu on every core (one shot on a
 * K^3 grid, --3d-cpu-n, default N) and the reference (one shot on M^3, --3d-ref-n, default N):
 * by default all three on the same N^3 grid, measured, not projected (e.g. --3d-n 64 for a
 * quick common size; a negative K or M skips that backend); a K or M other than N gives times
 * projected to N^3 by the cube of the size ratio (points x depths;
 * the band, nt and the per-point work are the same; the projection slightly overstates them, as the
 * plan's coefficient design, a fixed cost, scales with it too); shots per hour; the hours for
 * 10,000 shots on 1, 8 and 64 GPUs from cuda's time per shot (shots are independent: linear). Then
 * the depth step on one cuda shot of an S x S slice (--3d-step, default 400) and 16 depths: device
 * time per step, its HBM bytes (extrap3_cuda.cu: 752 bytes per point and frequency, both
 * wavefields, two Chebyshev terms per launch) and the fraction of the copy floor (the issue asks
 * >= 0.7), and the one-term-per-launch kernel's bytes (1244) at the copy rate over the measured
 * time (above 1: faster than the old kernel could have been).
 *
 * The 2D cuda step also prints its FP32 operations and shared-memory bytes per step
 * (bench/notes/migrate.md derives both from extrap_cuda.cu) and their fractions of the device's
 * FP32 rate (SMs x FP32 lanes x clock, fused multiply-add off: one operation per lane and clock)
 * and shared-memory bandwidth (SMs x 128 bytes x clock): the 2D step is bound by shared memory,
 * not HBM.
 *
 * usage: bench_migrate [--fmax HZ] [--nt N] [--shots-ref N] [--shots-cpu N] [--shots-cuda N]
 *                      [--3d] [--3d-n N] [--3d-shots-cuda N] [--3d-cpu-n K] [--3d-ref-n M]
 *                      [--3d-step S] [--3d-nt N] [--json FILE] */
#include "harness.h"

#include "migrate/migrate_backends.h"
#include "tessera/tessera.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef TSR_HAVE_CUDA
#include <cuda_runtime.h>
#endif

enum { NX = 737, NZ = 750 };
#define DX 12.5

static void die(tsr_ctx *ctx, const char *what)
{
    fprintf(stderr, "bench_migrate: %s: %s\n", what, ctx ? tsr_ctx_last_error(ctx) : "");
    exit(1);
}

static void make_model(float *vel)
{
    for (int ix = 0; ix < NX; ix++)
        for (int iz = 0; iz < NZ; iz++) {
            double z = iz * DX, x = ix * DX;
            double v = 1500 + 0.35 * z + 600 * (z > 2500 + 300 * sin(x / 1500)) +
                       500 * (z > 5500 - 0.1 * x);
            double dxl = x - 4600, dzl = z - 4000;
            if (dxl * dxl + dzl * dzl < 900.0 * 900.0)
                v -= 700;
            vel[(size_t)ix * NZ + iz] = (float)(v > 4500 ? 4500 : v);
        }
}

static void make_shots(tsr_ctx *ctx, tsr_migrate_gather *g, int nshots, int nt)
{
    if (tsr_migrate_gather_alloc(ctx, g, nshots, NX, nt, 0.004, 0))
        die(ctx, "gather");
    for (int s = 0; s < nshots; s++) {
        tsr_migrate_shot *sh = &g->shots[s];
        sh->sx = DX * (NX - 1) * (s + 1) / (nshots + 1);
        for (int r = 0; r < NX; r++) {
            sh->gx[r] = r * DX;
            float *tr = sh->traces + (size_t)r * nt;
            memset(tr, 0, sizeof(float) * (size_t)nt);
            double off = sh->gx[r] - sh->sx;
            for (int e = 0; e < 3; e++) {
                double t0 = 0.6 + 0.7 * e, v = 1800 + 400 * e;
                int k = (int)lround(sqrt(t0 * t0 + off * off / (v * v)) / 0.004);
                if (k < nt)
                    tr[k] += 1.0f;
            }
        }
    }
}

/* Seconds of one tsr_migrate_image call over g on backend b. */
static double time_backend(tsr_backend b, int threads, const tsr_migrate_grid *v,
                           const tsr_migrate_gather *g, const tsr_migrate_options *opt, float *img,
                           double *loop_ms)
{
    tsr_ctx_options o;
    tsr_ctx_options_init(&o);
    o.backend = b;
    o.threads = threads;
    tsr_ctx *ctx;
    if (tsr_ctx_create(&o, &ctx) != TSR_OK)
        die(ctx, "context");
    tsr_migrate_grid out = {NX, NZ, 1, 1, 0, 0, img, 0, 0, 0}; /* ny 0: 2D */
    double t = tsr_bench_now_us();
    if (tsr_migrate_image(ctx, v, g, opt, &out))
        die(ctx, "migrate");
    t = (tsr_bench_now_us() - t) * 1e-6;
    *loop_ms = tsr__migrate_cuda_loop_ms(ctx);
    tsr_ctx_destroy(ctx);
    return t;
}

/* The copy floor: bytes read plus written per second of a 1 GiB device-to-device copy (best of
 * 5, after a warm-up); 0 without CUDA. */
static double copy_floor(void)
{
#ifdef TSR_HAVE_CUDA
    const size_t n = (size_t)1 << 30;
    void *a = NULL, *b = NULL;
    cudaEvent_t e0, e1;
    if (cudaMalloc(&a, n) || cudaMalloc(&b, n) || cudaEventCreate(&e0) || cudaEventCreate(&e1))
        return 0;
    cudaMemset(a, 1, n);
    float best = 1e30f;
    for (int i = 0; i < 6; i++) {
        cudaEventRecord(e0, 0);
        cudaMemcpyAsync(b, a, n, cudaMemcpyDeviceToDevice, 0);
        cudaEventRecord(e1, 0);
        cudaEventSynchronize(e1);
        float ms;
        cudaEventElapsedTime(&ms, e0, e1);
        if (i > 0 && ms < best)
            best = ms;
    }
    cudaFree(a);
    cudaFree(b);
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    return 2.0 * (double)n / (best * 1e-3);
#else
    return 0;
#endif
}

/* The device's FP32 operations per second (SMs x FP32 lanes x clock: fused multiply-add off, one
 * operation per lane and clock) and shared-memory bytes per second (SMs x 128 bytes x clock);
 * 0 without a device. */
static void device_rates(double *fp32, double *shared)
{
    *fp32 = *shared = 0;
#ifdef TSR_HAVE_CUDA
    int dev = 0, sms = 0, khz = 0, major = 0, minor = 0;
    if (cudaGetDevice(&dev) || cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) ||
        cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, dev) ||
        cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) ||
        cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev))
        return;
    const double lanes = major == 8 && minor == 0 ? 64 : 128; /* sm_80: 64 FP32 lanes per SM */
    *fp32 = sms * lanes * khz * 1e3;
    *shared = sms * 128.0 * khz * 1e3;
#endif
}

/* 2D: the cuda step's (extrap_cuda.cu) FP32 operations and shared-memory bytes per step for nfreq
 * frequencies of a row of nx (bench/notes/migrate.md): per launched thread and field, 13 (term
 * 0) + 45 (term 1) + 49 per further term + 2 (the taper) operations and 8 + 80 + 88 per further
 * term bytes; blocks of 512 threads per 512 - 8 terms core points; 7 imaging operations a
 * point. */
static void step2_work(int nx, int nfreq, double *ops, double *shared_bytes)
{
    const int core = 512 - 8 * TSR__MIG_TERMS, tiles = (nx + core - 1) / core;
    const double threads = 512.0 * tiles * nfreq, further = TSR__MIG_TERMS - 2;
    *ops = threads * 2.0 * (13 + 45 + 49 * further + 2) + 7.0 * nx * nfreq;
    *shared_bytes = threads * 2.0 * (8 + 80 + 88 * further);
}

/* The host's share of a batch: the surface spectra of TSR__MIG_BATCH shots
 * (tsr__mig_spectra_shots, as tsr_migrate_image makes them) on `threads` threads. */
typedef struct spectra_job {
    tsr__migrate_plan plan;
    tsr__mig_fft fft;
    tsr__mig_columns cols;
    tsr__mig_trace_scratch *scratch;
    tsr_migrate_gather g;
    tsr__cf *src, *rec;
    int threads;
} spectra_job;

static int spectra_once(void *user, int iter, double *us)
{
    (void)iter;
    (void)us;
    spectra_job *j = user;
    tsr__mig_spectra_shots(&j->plan, &j->fft, &j->g, 0, j->g.nshots, &j->cols, j->threads,
                           j->scratch, j->src, j->rec);
    return 0;
}

/* Median ms per shot of the batch's spectra on 1 thread and on the host context's threads. */
static void time_spectra(tsr_ctx *host, const tsr_migrate_grid *v, const tsr_migrate_options *opt,
                         int nt, int threads, double ms[2])
{
    spectra_job j;
    memset(&j, 0, sizeof j);
    make_shots(host, &j.g, TSR__MIG_BATCH, nt);
    if (tsr__migrate_plan_build(host, &j.plan, v, &j.g, opt, 0) ||
        tsr__mig_fft_create(host, &j.plan, &j.fft) ||
        tsr__mig_columns_make(host, &j.plan, &j.g, &j.cols) ||
        tsr__mig_scratch_alloc(host, &j.plan, threads, &j.scratch))
        die(host, "spectra plan");
    const size_t rows = (size_t)TSR__MIG_BATCH * (size_t)j.plan.nfreq * NX;
    j.src = malloc(sizeof(tsr__cf) * rows);
    j.rec = malloc(sizeof(tsr__cf) * rows);
    if (!j.src || !j.rec)
        die(NULL, "out of memory");
    for (int k = 0; k < 2; k++) {
        j.threads = k ? threads : 1;
        tsr_bench_stats st;
        if (tsr_bench_measure(spectra_once, &j, 1, 7, &st))
            die(host, "spectra");
        ms[k] = 1e-3 * st.median_us / TSR__MIG_BATCH;
    }
    free(j.src);
    free(j.rec);
    tsr__free(host, j.scratch);
    tsr__mig_columns_free(host, &j.cols);
    tsr__mig_fft_destroy(&j.fft);
    tsr__migrate_plan_free(host, &j.plan);
    tsr_migrate_gather_free(host, &j.g);
}

/* 3D: the HBM bytes of one depth step per point and frequency (extrap3_cuda.cu's count), and
 * those of the one-term-per-launch kernel it replaced. */
#define BYTES3_PER_POINT 752.0
#define BYTES3_ONE_TERM 1244.0

/* An n x n x nz model at 10 m: v(z) = 1500 + 0.5 z with a lens of 700 m/s slower, radius n / 5
 * nodes, at the middle. */
static float *make_model3(int n, int nz)
{
    float *vel = malloc(sizeof(float) * (size_t)n * n * nz);
    if (!vel)
        die(NULL, "out of memory");
    const double c = n / 2.0, r = n / 5.0;
    for (int iy = 0; iy < n; iy++)
        for (int ix = 0; ix < n; ix++)
            for (int iz = 0; iz < nz; iz++) {
                double d2 = (ix - c) * (ix - c) + (iy - c) * (iy - c) + (iz - c) * (iz - c);
                double v = 1500 + 0.5 * 10.0 * iz - (d2 < r * r ? 700 : 0);
                vel[((size_t)iy * n + ix) * nz + iz] = (float)(v < 1200 ? 1200 : v);
            }
    return vel;
}

/* nshots shots along the diagonal, receivers on every second node of the n x n surface, one
 * event (a flat reflector's hyperbola) per trace. */
static void make_shots3(tsr_ctx *ctx, tsr_migrate_gather *g, int n, int nshots, int nt)
{
    const int m = (n + 1) / 2;
    if (tsr_migrate_gather_alloc(ctx, g, nshots, m * m, nt, 0.004, 0))
        die(ctx, "gather");
    for (int s = 0; s < nshots; s++) {
        tsr_migrate_shot *sh = &g->shots[s];
        sh->sx = sh->sy = 10.0 * (n - 1) * (s + 1) / (nshots + 1);
        for (int k = 0; k < m * m; k++) {
            sh->gx[k] = 20.0 * (k % m);
            sh->gy[k] = 20.0 * (k / m);
            double ox = sh->gx[k] - sh->sx, oy = sh->gy[k] - sh->sy, t0 = 0.5;
            int j = (int)lround(sqrt(t0 * t0 + (ox * ox + oy * oy) / (2000.0 * 2000.0)) / 0.004);
            if (j < nt)
                sh->traces[(size_t)k * nt + j] = 1.0f;
        }
    }
}

/* Seconds per shot of tsr_migrate_image on an n x n x nz model with backend b (threads 0: the
 * context's), nshots shots; *loop_ms: cuda's device loop of the last shot; *nfreq: the band. */
static double time3(tsr_backend b, int threads, int n, int nz, int nshots, int nt, double fmax,
                    double *loop_ms, int *nfreq)
{
    float *vel = make_model3(n, nz), *img = malloc(sizeof(float) * (size_t)n * n * nz);
    if (!img)
        die(NULL, "out of memory");
    tsr_ctx_options o;
    tsr_ctx_options_init(&o);
    o.backend = b;
    o.threads = threads;
    tsr_ctx *ctx;
    if (tsr_ctx_create(&o, &ctx) != TSR_OK)
        die(ctx, "context");
    tsr_migrate_gather g;
    make_shots3(ctx, &g, n, nshots, nt);
    tsr_migrate_grid v = {n, nz, 10, 10, 0, 0, vel, n, 10, 0};
    tsr_migrate_grid out = {n, nz, 1, 1, 0, 0, img, n, 1, 0};
    tsr_migrate_options opt;
    tsr_migrate_options_init(&opt);
    opt.fmax = fmax;
    if (nfreq) {
        tsr__migrate_plan plan;
        if (tsr__migrate_plan_build(ctx, &plan, &v, &g, &opt, 0))
            die(ctx, "plan");
        *nfreq = plan.nfreq;
        tsr__migrate_plan_free(ctx, &plan);
    }
    double t = tsr_bench_now_us();
    if (tsr_migrate_image(ctx, &v, &g, &opt, &out))
        die(ctx, "migrate 3D");
    t = (tsr_bench_now_us() - t) * 1e-6 / nshots;
    *loop_ms = tsr__migrate_cuda_loop_ms(ctx);
    tsr_migrate_gather_free(ctx, &g);
    tsr_ctx_destroy(ctx);
    free(vel);
    free(img);
    return t;
}

typedef struct bench3_opts {
    int n, shots_cuda, cpu_n, ref_n, step_n, nt;
    double fmax;
} bench3_opts;

/* The 3D tables (usage above); returns how many it appended to tables. */
static int bench3(const bench3_opts *b, int have_cuda, tsr_bench_table **tables)
{
    int ntables = 0, nfreq = 0, nfreq_ref = 0;
    double ignored, loop_ms = -1, per_shot[3] = {0, 0, 0}; /* reference, cpu (projected), cuda */
    printf("3D survey: %d^3 grid at 10 m, receivers on every second node, %d samples, fmax %.1f "
           "Hz\n",
           b->n, b->nt, b->fmax);
    if (have_cuda && b->shots_cuda > 0) {
        time3(TSR_BACKEND_CUDA, 0, b->n, b->n, 1, b->nt, b->fmax, &ignored, NULL); /* warm-up */
        per_shot[2] =
            time3(TSR_BACKEND_CUDA, 0, b->n, b->n, b->shots_cuda, b->nt, b->fmax, &loop_ms, &nfreq);
        printf("3D cuda: %.3f s per shot (%d shots)\n", per_shot[2], b->shots_cuda);
    }
    static const char *const names[3] = {"reference", "cpu", "cuda"};
    const int sizes[2] = {b->ref_n ? b->ref_n : b->n, b->cpu_n ? b->cpu_n : b->n}; /* < 0: skip */
    int projected[2] = {0, 0};
    for (int k = 0; k < 2; k++) {
        if (sizes[k] < 1)
            continue;
        const double t = time3(k ? TSR_BACKEND_CPU : TSR_BACKEND_REFERENCE, k ? 0 : 1, sizes[k],
                               sizes[k], 1, b->nt, b->fmax, &ignored, &nfreq_ref);
        const double scale = pow((double)b->n / sizes[k], 3.0);
        per_shot[k] = t * scale;
        projected[k] = sizes[k] != b->n;
        if (projected[k])
            printf("3D %s: %.3f s for one shot on %d^3 (%d frequencies), x %.4g: %.1f s "
                   "projected\n",
                   names[k], t, sizes[k], nfreq_ref, scale, per_shot[k]);
        else
            printf("3D %s: %.3f s for one shot on %d^3 (%d frequencies), measured\n", names[k], t,
                   sizes[k], nfreq_ref);
    }
    printf("3D frequencies per shot: %d\n", nfreq ? nfreq : nfreq_ref);
    const char *h[] = {"backend", "s/shot", "shots/hour", "ref/this", "cpu/this"};
    char title[128];
    snprintf(title, sizeof title, "3D tsr_migrate_image, explicit, cross, %d^3%s", b->n,
             projected[0] || projected[1] ? "" : ", every backend measured at this size");
    tsr_bench_table *t = tsr_bench_table_new(title, 5, h);
    for (int k = 0; k < 3; k++) {
        if (!(per_shot[k] > 0))
            continue;
        const char *row[] = {
            tsr_bench_fmt("%s%s", names[k], k < 2 && projected[k] ? " (projected)" : ""),
            tsr_bench_fmt("%.3f", per_shot[k]), tsr_bench_fmt("%.1f", 3600.0 / per_shot[k]),
            per_shot[0] > 0 ? tsr_bench_fmt("%.1f", per_shot[0] / per_shot[k]) : "-",
            per_shot[1] > 0 ? tsr_bench_fmt("%.2f", per_shot[1] / per_shot[k]) : "-"};
        tsr_bench_table_row(t, row);
    }
    tsr_bench_table_print(t, stdout);
    tables[ntables++] = t;
    if (per_shot[2] > 0) {
        const char *hh[] = {"GPUs", "hours for 10,000 shots"};
        tsr_bench_table *p = tsr_bench_table_new("3D projection from cuda's s/shot", 2, hh);
        static const int gpus[3] = {1, 8, 64};
        for (int k = 0; k < 3; k++) {
            const char *row[] = {tsr_bench_fmt("%d", gpus[k]),
                                 tsr_bench_fmt("%.2f", 1e4 * per_shot[2] / gpus[k] / 3600.0)};
            tsr_bench_table_row(p, row);
        }
        tsr_bench_table_print(p, stdout);
        tables[ntables++] = p;
    }
    if (have_cuda && b->step_n > 0) {
        enum { NZ = 16 };
        int nf = 0;
        double lm = -1;
        time3(TSR_BACKEND_CUDA, 0, b->step_n, NZ, 1, b->nt, b->fmax, &ignored, NULL);
        time3(TSR_BACKEND_CUDA, 0, b->step_n, NZ, 1, b->nt, b->fmax, &lm, &nf);
        const double floor_bps = copy_floor();
        /* the loop: NZ - 1 steps and the deepest depth's imaging (16 bytes a point and
         * frequency read, 32 of image read and written, counted as part of the last step) */
        const double points = (double)b->step_n * b->step_n * nf;
        const double bytes = BYTES3_PER_POINT * points;
        const double step_s = 1e-3 * lm / (NZ - 1);
        const char *hh[] = {"quantity", "value"};
        char st[96];
        snprintf(st, sizeof st, "3D cuda depth step, %d x %d slice, %d frequencies", b->step_n,
                 b->step_n, nf);
        tsr_bench_table *c = tsr_bench_table_new(st, 2, hh);
        const char *rows[][2] = {
            {"copy floor (GB/s)", tsr_bench_fmt("%.0f", floor_bps * 1e-9)},
            {"depth loop (ms)", tsr_bench_fmt("%.3f", lm)},
            {"per depth step (ms)", tsr_bench_fmt("%.3f", 1e3 * step_s)},
            {"HBM bytes per step (MB)", tsr_bench_fmt("%.1f", bytes * 1e-6)},
            {"step floor at copy rate (ms)", tsr_bench_fmt("%.3f", 1e3 * bytes / floor_bps)},
            {"achieved (GB/s)", tsr_bench_fmt("%.0f", bytes / step_s * 1e-9)},
            {"fraction of copy floor", tsr_bench_fmt("%.3f", bytes / step_s / floor_bps)},
            {"one-term kernel's floor (ms)",
             tsr_bench_fmt("%.3f", 1e3 * BYTES3_ONE_TERM * points / floor_bps)},
            {"one-term floor / this step",
             tsr_bench_fmt("%.3f", BYTES3_ONE_TERM * points / step_s / floor_bps)}};
        for (size_t k = 0; k < sizeof rows / sizeof rows[0]; k++)
            tsr_bench_table_row(c, rows[k]);
        tsr_bench_table_print(c, stdout);
        tables[ntables++] = c;
    }
    return ntables;
}

int main(int argc, char **argv)
{
    double fmax = 20;
    int nt = 750, shots[3] = {1, 2, 16}; /* reference, cpu, cuda */
    const char *json = NULL;
    int do3d = 0;
    bench3_opts b3 = {200, 3, 0, 0, 400, 500, 25}; /* cpu_n, ref_n 0: n */
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *n = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--3d")) {
            do3d = 1;
            continue;
        }
        if (!n) {
            fprintf(stderr, "bench_migrate: %s needs a value\n", a);
            return 2;
        }
        if (!strcmp(a, "--fmax"))
            fmax = b3.fmax = atof(n);
        else if (!strcmp(a, "--nt"))
            nt = atoi(n);
        else if (!strcmp(a, "--shots-ref"))
            shots[0] = atoi(n);
        else if (!strcmp(a, "--shots-cpu"))
            shots[1] = atoi(n);
        else if (!strcmp(a, "--shots-cuda"))
            shots[2] = atoi(n);
        else if (!strcmp(a, "--json"))
            json = n;
        else if (!strcmp(a, "--3d-n"))
            b3.n = atoi(n);
        else if (!strcmp(a, "--3d-shots-cuda"))
            b3.shots_cuda = atoi(n);
        else if (!strcmp(a, "--3d-cpu-n"))
            b3.cpu_n = atoi(n);
        else if (!strcmp(a, "--3d-ref-n"))
            b3.ref_n = atoi(n);
        else if (!strcmp(a, "--3d-step"))
            b3.step_n = atoi(n);
        else if (!strcmp(a, "--3d-nt"))
            b3.nt = atoi(n);
        else {
            fprintf(stderr, "bench_migrate: unknown option %s\n", a);
            return 2;
        }
        i++;
    }
    float *vel = malloc(sizeof(float) * NX * NZ);
    float *img[3];
    for (int k = 0; k < 3; k++)
        img[k] = malloc(sizeof(float) * NX * NZ);
    if (!vel || !img[0] || !img[1] || !img[2])
        die(NULL, "out of memory");
    make_model(vel);
    tsr_ctx *host;
    if (tsr_ctx_create(NULL, &host) != TSR_OK)
        die(NULL, "context");
    tsr_migrate_grid v = {NX, NZ, DX, DX, 0, 0, vel, 0, 0, 0}; /* ny 0: 2D */
    tsr_migrate_options opt;
    tsr_migrate_options_init(&opt);
    opt.fmax = fmax;
    printf("host: %s\n", tsr_bench_host_description());
    printf("survey: %d x %d grid at %.1f m, %d samples of 4 ms, fmax %.1f Hz\n", NX, NZ, DX, nt,
           fmax);

    static const char *const names[3] = {"reference", "cpu", "cuda"};
    static const tsr_backend ids[3] = {TSR_BACKEND_REFERENCE, TSR_BACKEND_CPU, TSR_BACKEND_CUDA};
    const int have_cuda = copy_floor() > 0;
    double per_shot[3] = {0, 0, 0}, loop_ms = -1;
    for (int k = 0; k < 3; k++) {
        if ((k == 2 && !have_cuda) || shots[k] < 1)
            continue;
        tsr_migrate_gather g;
        make_shots(host, &g, shots[k], nt);
        if (k == 2) { /* warm-up: the CUDA context and the first allocation */
            double ignored;
            tsr_migrate_gather w = g;
            w.nshots = 1;
            time_backend(ids[k], 0, &v, &w, &opt, img[k], &ignored);
        }
        double lm;
        double t = time_backend(ids[k], k == 0 ? 1 : 0, &v, &g, &opt, img[k], &lm);
        per_shot[k] = t / shots[k];
        if (k == 2)
            loop_ms = lm;
        printf("%s: %d shot(s) in %.3f s\n", names[k], shots[k], t);
        tsr_migrate_gather_free(host, &g);
    }

    /* The band's frequency count, from the plan tsr_migrate_image builds. */
    tsr_migrate_gather g1;
    make_shots(host, &g1, 1, nt);
    tsr__migrate_plan plan;
    if (tsr__migrate_plan_build(host, &plan, &v, &g1, &opt, 0))
        die(host, "plan");
    const int nfreq = plan.nfreq;
    tsr__migrate_plan_free(host, &plan);
    tsr_migrate_gather_free(host, &g1);
    printf("frequencies per shot: %d\n", nfreq);
    const char *headers[] = {"backend", "shots", "s/shot", "ref/this", "cpu/this"};
    tsr_bench_table *t = tsr_bench_table_new("tsr_migrate_image, explicit, cross", 5, headers);
    for (int k = 0; k < 3; k++) {
        if (!(per_shot[k] > 0))
            continue;
        const char *row[] = {names[k], tsr_bench_fmt("%d", shots[k]),
                             tsr_bench_fmt("%.4f", per_shot[k]),
                             tsr_bench_fmt("%.1f", per_shot[0] / per_shot[k]),
                             tsr_bench_fmt("%.1f", per_shot[1] / per_shot[k])};
        tsr_bench_table_row(t, row);
    }
    tsr_bench_table_print(t, stdout);
    tsr_bench_table *tables[8] = {t};
    int ntables = 1;
    {
        const int threads = host->threads;
        double ms[2];
        time_spectra(host, &v, &opt, nt, threads, ms);
        const char *hs[] = {"threads", "ms/shot", "1 thread/this"};
        char title[96];
        snprintf(title, sizeof title, "host spectra, batches of %d shots of %d traces",
                 TSR__MIG_BATCH, NX);
        tsr_bench_table *h = tsr_bench_table_new(title, 3, hs);
        const char *r1[] = {"1", tsr_bench_fmt("%.2f", ms[0]), "1.0"};
        const char *r2[] = {tsr_bench_fmt("%d", threads), tsr_bench_fmt("%.2f", ms[1]),
                            tsr_bench_fmt("%.1f", ms[0] / ms[1])};
        tsr_bench_table_row(h, r1);
        tsr_bench_table_row(h, r2);
        tables[ntables++] = h;
        tsr_bench_table_print(h, stdout);
    }
    if (have_cuda && loop_ms > 0) {
        double floor_bps = copy_floor();
        const double step_s = 1e-3 * loop_ms / NZ;
        const double bytes = 32.0 * nfreq * NX + 8.0 * NX;
        const char *h2[] = {"quantity", "value"};
        tsr_bench_table *c = tsr_bench_table_new("cuda depth step", 2, h2);
        const char *r1[] = {"copy floor (GB/s)", tsr_bench_fmt("%.0f", floor_bps * 1e-9)};
        const char *r2[] = {"depth loop per shot (ms)", tsr_bench_fmt("%.3f", loop_ms)};
        const char *r3[] = {"per depth step (us)", tsr_bench_fmt("%.2f", 1e6 * step_s)};
        const char *r4[] = {"HBM bytes per step (MB)", tsr_bench_fmt("%.3f", bytes * 1e-6)};
        const char *r5[] = {"step floor at copy rate (us)",
                            tsr_bench_fmt("%.2f", 1e6 * bytes / floor_bps)};
        const char *r6[] = {"achieved (GB/s)", tsr_bench_fmt("%.0f", bytes / step_s * 1e-9)};
        const char *r7[] = {"fraction of copy floor",
                            tsr_bench_fmt("%.3f", bytes / step_s / floor_bps)};
        const char *r8[] = {"frequency-points per second (G)",
                            tsr_bench_fmt("%.2f", (double)nfreq * NX / step_s * 1e-9)};
        tsr_bench_table_row(c, r1);
        tsr_bench_table_row(c, r2);
        tsr_bench_table_row(c, r3);
        tsr_bench_table_row(c, r4);
        tsr_bench_table_row(c, r5);
        tsr_bench_table_row(c, r6);
        tsr_bench_table_row(c, r7);
        tsr_bench_table_row(c, r8);
        double fp32, shared, ops, sbytes;
        device_rates(&fp32, &shared);
        step2_work(NX, nfreq, &ops, &sbytes);
        const char *r9[] = {"FP32 operations per step (M)", tsr_bench_fmt("%.1f", ops * 1e-6)};
        const char *r10[] = {"FP32 rate (TFLOP/s)", tsr_bench_fmt("%.2f", ops / step_s * 1e-12)};
        const char *r11[] = {"fraction of FP32 peak",
                             tsr_bench_fmt("%.3f", fp32 > 0 ? ops / step_s / fp32 : 0.0)};
        const char *r12[] = {"shared-memory bytes per step (MB)",
                             tsr_bench_fmt("%.1f", sbytes * 1e-6)};
        const char *r13[] = {"fraction of shared-memory bandwidth",
                             tsr_bench_fmt("%.3f", shared > 0 ? sbytes / step_s / shared : 0.0)};
        tsr_bench_table_row(c, r9);
        tsr_bench_table_row(c, r10);
        tsr_bench_table_row(c, r11);
        tsr_bench_table_row(c, r12);
        tsr_bench_table_row(c, r13);
        tables[ntables++] = c;
        tsr_bench_table_print(c, stdout);
    }
    if (do3d)
        ntables += bench3(&b3, have_cuda, tables + ntables);
    if (json) {
        const char *meta[] = {"host", tsr_bench_host_description(), NULL};
        if (tsr_bench_json_write(json, "bench_migrate", meta, tables, ntables))
            fprintf(stderr, "bench_migrate: could not write %s\n", json);
    }
    for (int k = 0; k < ntables; k++)
        tsr_bench_table_free(tables[k]);
    tsr_ctx_destroy(host);
    free(vel);
    for (int k = 0; k < 3; k++)
        free(img[k]);
    return 0;
}
