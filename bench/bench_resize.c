/* bench_resize: tsr_resize on the CPU, CUDA and OpenCL backends, and NPP's nppiResize where the
 * build has NPP, on the same random (never zero) 3-channel u8 images, side by side.
 *
 * Cases 4K->1080p, 1080p->720p, 1080p->4K, 8K->4K, 4K->8K (and, only when --cases names them,
 * 1918x1080-2x, 3838x2160-2x and 1917x1080-2:3); interpolations linear, nearest, cubic, area,
 * lanczos4 (NPP's column for lanczos4 is its own Lanczos filter, NPPI_INTER_LANCZOS: a peer's
 * time for the same mode, not the same image). GPU
 * columns time device-resident images with CUDA events on a stream the benchmark owns (the library
 * queues its work there and returns), so they show kernel time plus launch; the "e2e" column is the
 * same call on host images (upload, kernel, download), "batch e2e" one tsr_resize_batch over the
 * rotation sets of host images (per image), and "h2h floor" the same bytes copied by
 * cudaMemcpy from and to those pageable host buffers (issue 23's floor for host calls). Inputs
 * rotate among enough copies to exceed the L2 several times. Bytes counted are the bytes a kernel
 * must touch: the source rows (and 32-byte sectors within them) that any tap reads, plus the
 * output. The copy bandwidth is measured in the same run with a 1 GiB device-to-device copy.
 *
 * usage: bench_resize [--json FILE] [--repeats N] [--warmup N] [--threads N]
 *                     [--cases LIST] [--interps LIST] [--no-cpu] [--no-opencl]
 *   LIST is comma-separated: cases by name (4k-1080p,...), interps by tsr_interp_name. */
#include "harness.h"
#include "tessera/tessera.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef TSR_HAVE_CUDA
#include <cuda_runtime.h>
#ifdef TSR_BENCH_NPP
#include <nppi_geometry_transforms.h>
#endif
#endif

typedef struct bcase {
    const char *name;
    int sw, sh, dw, dh;
    int extra; /* run only when --cases names it */
} bcase;

/* The five cases, and exact 2x and 2:3 resizes whose rows are not word-aligned (3-channel
 * widths that are not a multiple of 4), which k_up2_u8 and k_dn32_u8 would read byte by byte. */
static const bcase cases[] = {
    {"4k-1080p", 3840, 2160, 1920, 1080, 0},     {"1080p-720p", 1920, 1080, 1280, 720, 0},
    {"1080p-4k", 1920, 1080, 3840, 2160, 0},     {"8k-4k", 7680, 4320, 3840, 2160, 0},
    {"4k-8k", 3840, 2160, 7680, 4320, 0},        {"1918x1080-2x", 1918, 1080, 3836, 2160, 1},
    {"3838x2160-2x", 3838, 2160, 7676, 4320, 1}, {"1917x1080-2:3", 1917, 1080, 1278, 720, 1},
};
static const tsr_interp interps[] = {TSR_INTERP_LINEAR, TSR_INTERP_NEAREST, TSR_INTERP_CUBIC,
                                     TSR_INTERP_AREA, TSR_INTERP_LANCZOS4};
enum { CN = 3 };

static int in_list(const char *list, const char *name)
{
    if (!list)
        return 1;
    size_t n = strlen(name);
    for (const char *p = list; *p;) {
        const char *e = strchr(p, ',');
        size_t l = e ? (size_t)(e - p) : strlen(p);
        if (l == n && strncmp(p, name, n) == 0)
            return 1;
        p += l + (e ? 1 : 0);
    }
    return 0;
}

/* Source rows and 32-byte sectors a kernel must read, from cv::resize's tap positions (counting
 * only; the answer itself comes from the library). */
static double bytes_touched(const bcase *c, tsr_interp ip)
{
    double sx = (double)c->sw / c->dw, sy = (double)c->sh / c->dh;
    char *rows = (char *)calloc((size_t)c->sh, 1);
    char *cols = (char *)calloc((size_t)c->sw, 1);
    int radius_lo = 0, radius_hi = 0;
    switch (ip) {
    case TSR_INTERP_NEAREST: break;
    case TSR_INTERP_LINEAR:
    case TSR_INTERP_LINEAR_EXACT: radius_hi = 1; break;
    case TSR_INTERP_CUBIC: radius_lo = 1, radius_hi = 2; break;
    case TSR_INTERP_LANCZOS4: radius_lo = 3, radius_hi = 4; break;
    case TSR_INTERP_AREA: break;
    }
    for (int pass = 0; pass < 2; pass++) {
        int dn = pass ? c->dh : c->dw, sn = pass ? c->sh : c->sw;
        double s = pass ? sy : sx;
        char *mark = pass ? rows : cols;
        for (int d = 0; d < dn; d++) {
            int lo, hi;
            if (ip == TSR_INTERP_NEAREST) {
                lo = hi = (int)floor(d * s);
            } else if (ip == TSR_INTERP_AREA && s > 1) {
                lo = (int)floor(d * s);
                hi = (int)ceil((d + 1) * s) - 1;
            } else {
                int f = (int)floor((d + 0.5) * s - 0.5);
                lo = f - radius_lo;
                hi = f + (ip == TSR_INTERP_AREA ? 1 : radius_hi);
            }
            for (int k = lo; k <= hi; k++)
                mark[k < 0 ? 0 : k >= sn ? sn - 1 : k] = 1;
        }
    }
    double nrows = 0, nsect = 0;
    for (int y = 0; y < c->sh; y++)
        nrows += rows[y];
    size_t row_bytes = (size_t)c->sw * CN;
    size_t nsec_row = (row_bytes + 31) / 32;
    for (size_t s = 0; s < nsec_row; s++) {
        int any = 0;
        for (size_t b = s * 32; b < (s + 1) * 32 && b < row_bytes; b++)
            any |= cols[b / CN];
        nsect += any;
    }
    free(rows);
    free(cols);
    double read = nrows * fmin(nsect * 32.0, (double)row_bytes);
    return read + (double)c->dw * c->dh * CN;
}

typedef struct runner {
    tsr_ctx *ctx;
    tsr_image *src; /* rotation sets */
    tsr_image *dst;
    int nsets;
    tsr_resize_options opt;
#ifdef TSR_HAVE_CUDA
    cudaStream_t stream;
    cudaEvent_t ev[2];
    int events;
#endif
} runner;

static int run_tsr(void *user, int iter, double *us)
{
    runner *r = (runner *)user;
    int k = iter % r->nsets;
#ifdef TSR_HAVE_CUDA
    if (r->events)
        cudaEventRecord(r->ev[0], r->stream);
#endif
    tsr_status st = tsr_resize(r->ctx, &r->src[k], &r->dst[k], &r->opt);
    if (st != TSR_OK) {
        fprintf(stderr, "tsr_resize: %s\n", tsr_ctx_last_error(r->ctx));
        return 1;
    }
#ifdef TSR_HAVE_CUDA
    if (r->events) {
        float ms = 0;
        cudaEventRecord(r->ev[1], r->stream);
        if (cudaEventSynchronize(r->ev[1]) != cudaSuccess ||
            cudaEventElapsedTime(&ms, r->ev[0], r->ev[1]) != cudaSuccess)
            return 2;
        *us = ms * 1000.0;
    }
#else
    (void)us; /* the harness times the call with the host clock */
#endif
    return 0;
}

/* One tsr_resize_batch over every rotation set (host images): *us is the time per image. */
static int run_tsr_batch(void *user, int iter, double *us)
{
    runner *r = (runner *)user;
    (void)iter;
    double t0 = tsr_bench_now_us();
    if (tsr_resize_batch(r->ctx, r->src, r->dst, (size_t)r->nsets, &r->opt, NULL) != TSR_OK) {
        fprintf(stderr, "tsr_resize_batch: %s\n", tsr_ctx_last_error(r->ctx));
        return 1;
    }
    *us = (tsr_bench_now_us() - t0) / r->nsets;
    return 0;
}

#if defined(TSR_HAVE_CUDA) && defined(TSR_BENCH_NPP)
typedef struct npp_runner {
    runner *r;
    NppStreamContext nctx;
    int interp;
} npp_runner;

static int run_npp(void *user, int iter, double *us)
{
    npp_runner *n = (npp_runner *)user;
    runner *r = n->r;
    int k = iter % r->nsets;
    const tsr_image *s = &r->src[k], *d = &r->dst[k];
    NppiSize ssz = {s->width, s->height}, dsz = {d->width, d->height};
    NppiRect sroi = {0, 0, s->width, s->height}, droi = {0, 0, d->width, d->height};
    cudaEventRecord(r->ev[0], r->stream);
    NppStatus st =
        nppiResize_8u_C3R_Ctx((const Npp8u *)s->data, (int)s->stride, ssz, sroi, (Npp8u *)d->data,
                              (int)d->stride, dsz, droi, n->interp, n->nctx);
    cudaEventRecord(r->ev[1], r->stream);
    if (st != NPP_SUCCESS) {
        fprintf(stderr, "nppiResize_8u_C3R_Ctx returned %d\n", (int)st);
        return 3;
    }
    float ms = 0;
    if (cudaEventSynchronize(r->ev[1]) != cudaSuccess ||
        cudaEventElapsedTime(&ms, r->ev[0], r->ev[1]) != cudaSuccess)
        return 2;
    *us = ms * 1000.0;
    return 0;
}
#endif

static int alloc_host_sets(tsr_ctx *ctx, tsr_image *imgs, int n, int w, int h, int fill)
{
    for (int i = 0; i < n; i++) {
        if (tsr_image_alloc(ctx, &imgs[i], w, h, CN, TSR_U8) != TSR_OK)
            return 1;
        if (fill)
            tsr_bench_fill_random(imgs[i].data, (size_t)w * h * CN, 1000u + (unsigned)i);
        else
            memset(imgs[i].data, 0x5a, (size_t)w * h * CN);
    }
    return 0;
}

static void free_host_sets(tsr_ctx *ctx, tsr_image *imgs, int n)
{
    for (int i = 0; i < n; i++)
        tsr_image_free(ctx, &imgs[i]);
}

#ifdef TSR_HAVE_CUDA
/* The host-to-host floor of a call: the same bytes the call moves, the source image up and the
 * destination down, copied by plain cudaMemcpy from and to the same pageable host buffers (host
 * clock, as the e2e column). src/dst: the host sets; dsrc/ddst: device images of their size. */
typedef struct copy_runner {
    const tsr_image *src, *dst, *dsrc, *ddst;
    int nsets;
} copy_runner;

static int run_h2h_copy(void *user, int iter, double *us)
{
    copy_runner *r = (copy_runner *)user;
    int k = iter % r->nsets;
    (void)us;
    size_t sb = r->src[k].stride * (size_t)r->src[k].height;
    size_t db = r->dst[k].stride * (size_t)r->dst[k].height;
    if (cudaMemcpy(r->dsrc[k].data, r->src[k].data, sb, cudaMemcpyHostToDevice) != cudaSuccess ||
        cudaMemcpy(r->dst[k].data, r->ddst[k].data, db, cudaMemcpyDeviceToHost) != cudaSuccess)
        return 2;
    return 0;
}

static int alloc_dev_sets(const tsr_image *host, tsr_image *dev, int n)
{
    for (int i = 0; i < n; i++) {
        dev[i] = host[i];
        dev[i].memory = TSR_MEMORY_CUDA;
        size_t bytes = host[i].stride * (size_t)host[i].height;
        if (cudaMalloc(&dev[i].data, bytes) != cudaSuccess)
            return 1;
        if (cudaMemcpy(dev[i].data, host[i].data, bytes, cudaMemcpyHostToDevice) != cudaSuccess)
            return 1;
    }
    return 0;
}

static void free_dev_sets(tsr_image *dev, int n)
{
    for (int i = 0; i < n; i++)
        if (dev[i].data)
            cudaFree(dev[i].data);
}

/* Device-to-device copy bandwidth, bytes read plus written, in GB/s (1e9). */
static double copy_bandwidth(cudaStream_t s, tsr_bench_stats *st)
{
    size_t n = (size_t)1 << 30;
    void *a = NULL, *b = NULL;
    if (cudaMalloc(&a, n) != cudaSuccess || cudaMalloc(&b, n) != cudaSuccess)
        return 0;
    cudaMemsetAsync(a, 1, n, s);
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    double samples[20];
    for (int i = 0; i < 23; i++) {
        cudaEventRecord(e0, s);
        cudaMemcpyAsync(b, a, n, cudaMemcpyDeviceToDevice, s);
        cudaEventRecord(e1, s);
        cudaEventSynchronize(e1);
        float ms = 0;
        cudaEventElapsedTime(&ms, e0, e1);
        if (i >= 3)
            samples[i - 3] = ms * 1000.0;
    }
    tsr_bench_stats_of(samples, 20, st);
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    cudaFree(a);
    cudaFree(b);
    return 2.0 * n / (st->median_us * 1e3);
}
#endif

static tsr_ctx *make_ctx(tsr_backend b, int threads, void *stream)
{
    tsr_ctx_options o;
    tsr_ctx_options_init(&o);
    o.backend = b;
    o.threads = threads;
    o.cuda_stream = stream;
    tsr_ctx *c = NULL;
    if (tsr_ctx_create(&o, &c) != TSR_OK) {
        fprintf(stderr, "note: backend %s unavailable: %s\n", tsr_backend_name(b),
                c ? tsr_ctx_last_error(c) : "");
        tsr_ctx_destroy(c);
        return NULL;
    }
    return c;
}

static const char *us_cell(const tsr_bench_stats *s, int ok)
{
    if (!ok)
        return "-";
    return tsr_bench_fmt("%.1f", s->median_us);
}

static const char *spread_cell(const tsr_bench_stats *s, int ok)
{
    if (!ok)
        return "-";
    return tsr_bench_fmt("%.1f-%.1f", s->min_us, s->max_us);
}

int main(int argc, char **argv)
{
    const char *json = NULL, *case_list = NULL, *interp_list = NULL;
    int repeats = 50, warmup = 5, threads = 0, do_cpu = 1, do_ocl = 1; /* warmup: GPU columns */
#ifndef TSR_HAVE_CUDA
    (void)warmup;
#endif
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--json") && v)
            json = v, i++;
        else if (!strcmp(a, "--repeats") && v)
            repeats = atoi(v), i++;
        else if (!strcmp(a, "--warmup") && v)
            warmup = atoi(v), i++;
        else if (!strcmp(a, "--threads") && v)
            threads = atoi(v), i++;
        else if (!strcmp(a, "--cases") && v)
            case_list = v, i++;
        else if (!strcmp(a, "--interps") && v)
            interp_list = v, i++;
        else if (!strcmp(a, "--no-cpu"))
            do_cpu = 0;
        else if (!strcmp(a, "--no-opencl"))
            do_ocl = 0;
        else {
            fprintf(stderr,
                    "usage: %s [--json FILE] [--repeats N] [--warmup N] [--threads N] "
                    "[--cases LIST] [--interps LIST] [--no-cpu] [--no-opencl]\n",
                    argv[0]);
            return 2;
        }
    }

    tsr_ctx *cpu = do_cpu ? make_ctx(TSR_BACKEND_CPU, threads, NULL) : NULL;
    tsr_ctx *ocl = do_ocl && tsr_backend_available(TSR_BACKEND_OPENCL)
                       ? make_ctx(TSR_BACKEND_OPENCL, 0, NULL)
                       : NULL;
    tsr_ctx *cuda = NULL, *cuda_e2e = NULL;
    tsr_ctx *host = make_ctx(TSR_BACKEND_REFERENCE, 1, NULL); /* allocations only */
    double copy_gbs = 0, latency_us = 0;
    char gpu_desc[256] = "none", driver[64] = "-";
    tsr_bench_stats copy_st = {0};
#ifdef TSR_HAVE_CUDA
    cudaStream_t stream = NULL;
    if (tsr_backend_available(TSR_BACKEND_CUDA)) {
        cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
        cuda = make_ctx(TSR_BACKEND_CUDA, 0, stream);
        cuda_e2e = make_ctx(TSR_BACKEND_CUDA, 0, NULL);
    }
    if (cuda) {
        snprintf(gpu_desc, sizeof gpu_desc, "%s", tsr_ctx_device_name(cuda));
        int dv = 0, rv = 0;
        cudaDriverGetVersion(&dv);
        cudaRuntimeGetVersion(&rv);
        snprintf(driver, sizeof driver, "CUDA driver API %d.%d, runtime %d.%d", dv / 1000,
                 (dv % 1000) / 10, rv / 1000, (rv % 1000) / 10);
        copy_gbs = copy_bandwidth(stream, &copy_st);
        /* Launch latency of the library: an 8x8 -> 4x4 device resize, timed like the cases. */
        tsr_image hs[1], hd[1], ds[1], dd[1];
        if (!alloc_host_sets(host, hs, 1, 8, 8, 1) && !alloc_host_sets(host, hd, 1, 4, 4, 0) &&
            !alloc_dev_sets(hs, ds, 1) && !alloc_dev_sets(hd, dd, 1)) {
            runner r = {0};
            r.ctx = cuda, r.src = ds, r.dst = dd, r.nsets = 1, r.stream = stream, r.events = 1;
            cudaEventCreate(&r.ev[0]);
            cudaEventCreate(&r.ev[1]);
            tsr_resize_options_init(&r.opt);
            tsr_bench_stats st;
            if (!tsr_bench_measure(run_tsr, &r, 20, 200, &st))
                latency_us = st.median_us;
            cudaEventDestroy(r.ev[0]);
            cudaEventDestroy(r.ev[1]);
        }
        free_dev_sets(ds, 1);
        free_dev_sets(dd, 1);
        free_host_sets(host, hs, 1);
        free_host_sets(host, hd, 1);
    }
#endif
    printf("bench_resize: 3-channel u8, random non-zero data\n");
    printf("host: %s\n", tsr_bench_host_description());
    printf("gpu: %s; %s\n", gpu_desc, driver);
    if (ocl)
        printf("opencl: %s\n", tsr_ctx_device_name(ocl));
    if (cpu)
        printf("cpu backend: %s\n", tsr_ctx_device_name(cpu));
    printf(
        "device copy bandwidth (1 GiB D2D, read+write): %.0f GB/s (median of %d, %.1f-%.1f us)\n",
        copy_gbs, copy_st.repeats, copy_st.min_us, copy_st.max_us);
    printf("library launch latency (8x8->4x4 on device, events): %.1f us\n", latency_us);
#ifdef TSR_BENCH_NPP
    printf("NPP: nppiResize_8u_C3R_Ctx\n");
#else
    printf("NPP: not in this build\n");
#endif

    static const char *const hdr[] = {
        "case",        "interp",       "MB touched", "floor us",         "cpu us",
        "cuda us",     "cuda spread",  "cuda GB/s",  "of copy bw",       "vs floor",
        "cuda e2e us", "h2h floor us", "e2e/h2h",    "batch e2e us/img", "batch/h2h",
        "opencl us",   "npp us",       "npp/cuda",   "cpu/cuda"};
    tsr_bench_table *t = tsr_bench_table_new(
        "tsr_resize, 3-channel u8 (median us; GPU columns device-resident, CUDA events)",
        (int)(sizeof hdr / sizeof hdr[0]), hdr);

    for (size_t ci = 0; ci < sizeof cases / sizeof cases[0]; ci++) {
        const bcase *c = &cases[ci];
        if ((c->extra && !case_list) || !in_list(case_list, c->name))
            continue;
        size_t sbytes = (size_t)c->sw * c->sh * CN, dbytes = (size_t)c->dw * c->dh * CN;
        int nsets = tsr_bench_rotation(sbytes + dbytes, (size_t)50 << 20, 12);
        tsr_image hs[12], hd[12];
        memset(hs, 0, sizeof hs);
        memset(hd, 0, sizeof hd);
        if (alloc_host_sets(host, hs, nsets, c->sw, c->sh, 1) ||
            alloc_host_sets(host, hd, nsets, c->dw, c->dh, 0)) {
            fprintf(stderr, "out of host memory\n");
            return 1;
        }
#ifdef TSR_HAVE_CUDA
        tsr_image ds[12], dd[12];
        memset(ds, 0, sizeof ds);
        memset(dd, 0, sizeof dd);
        int have_dev = cuda && !alloc_dev_sets(hs, ds, nsets) && !alloc_dev_sets(hd, dd, nsets);
#endif
        for (size_t ii = 0; ii < sizeof interps / sizeof interps[0]; ii++) {
            tsr_interp ip = interps[ii];
            if (!in_list(interp_list, tsr_interp_name(ip)))
                continue;
            double bytes = bytes_touched(c, ip);
            tsr_bench_stats s_cpu = {0}, s_cuda = {0}, s_e2e = {0}, s_h2h = {0}, s_bat = {0},
                            s_ocl = {0}, s_npp = {0};
            int ok_cpu = 0, ok_cuda = 0, ok_e2e = 0, ok_h2h = 0, ok_bat = 0, ok_ocl = 0, ok_npp = 0;
            runner r;
            memset(&r, 0, sizeof r);
            tsr_resize_options_init(&r.opt);
            r.opt.interp = ip;
            r.nsets = nsets;
            if (cpu) {
                r.ctx = cpu, r.src = hs, r.dst = hd;
                ok_cpu = !tsr_bench_measure(run_tsr, &r, 1, repeats < 10 ? repeats : 10, &s_cpu);
            }
            if (ocl) {
                r.ctx = ocl, r.src = hs, r.dst = hd;
                ok_ocl = !tsr_bench_measure(run_tsr, &r, 2, repeats < 20 ? repeats : 20, &s_ocl);
            }
#ifdef TSR_HAVE_CUDA
            if (have_dev) {
                r.ctx = cuda, r.src = ds, r.dst = dd, r.stream = stream, r.events = 1;
                cudaEventCreate(&r.ev[0]);
                cudaEventCreate(&r.ev[1]);
                ok_cuda = !tsr_bench_measure(run_tsr, &r, warmup, repeats, &s_cuda);
#ifdef TSR_BENCH_NPP
                npp_runner n;
                memset(&n, 0, sizeof n);
                n.r = &r;
                n.interp = ip == TSR_INTERP_NEAREST    ? NPPI_INTER_NN
                           : ip == TSR_INTERP_CUBIC    ? NPPI_INTER_CUBIC
                           : ip == TSR_INTERP_LANCZOS4 ? NPPI_INTER_LANCZOS
                           : ip == TSR_INTERP_AREA
                               ? (c->dw < c->sw ? NPPI_INTER_SUPER : NPPI_INTER_LINEAR)
                               : NPPI_INTER_LINEAR;
                n.nctx.hStream = stream;
                cudaGetDevice(&n.nctx.nCudaDeviceId);
                int dev = n.nctx.nCudaDeviceId, v = 0;
                cudaDeviceGetAttribute(&n.nctx.nMultiProcessorCount, cudaDevAttrMultiProcessorCount,
                                       dev);
                cudaDeviceGetAttribute(&n.nctx.nMaxThreadsPerMultiProcessor,
                                       cudaDevAttrMaxThreadsPerMultiProcessor, dev);
                cudaDeviceGetAttribute(&n.nctx.nMaxThreadsPerBlock, cudaDevAttrMaxThreadsPerBlock,
                                       dev);
                cudaDeviceGetAttribute(&v, cudaDevAttrMaxSharedMemoryPerBlock, dev);
                n.nctx.nSharedMemPerBlock = (size_t)v;
                cudaDeviceGetAttribute(&n.nctx.nCudaDevAttrComputeCapabilityMajor,
                                       cudaDevAttrComputeCapabilityMajor, dev);
                cudaDeviceGetAttribute(&n.nctx.nCudaDevAttrComputeCapabilityMinor,
                                       cudaDevAttrComputeCapabilityMinor, dev);
                cudaStreamGetFlags(stream, &n.nctx.nStreamFlags);
                ok_npp = !tsr_bench_measure(run_npp, &n, warmup, repeats, &s_npp);
#endif
                cudaEventDestroy(r.ev[0]);
                cudaEventDestroy(r.ev[1]);
                r.events = 0;
            }
            if (cuda_e2e) {
                r.ctx = cuda_e2e, r.src = hs, r.dst = hd;
                ok_e2e = !tsr_bench_measure(run_tsr, &r, 2, repeats < 20 ? repeats : 20, &s_e2e);
                ok_bat =
                    !tsr_bench_measure(run_tsr_batch, &r, 1, repeats < 10 ? repeats : 10, &s_bat);
            }
            if (have_dev) {
                copy_runner cr = {hs, hd, ds, dd, nsets};
                ok_h2h =
                    !tsr_bench_measure(run_h2h_copy, &cr, 2, repeats < 20 ? repeats : 20, &s_h2h);
            }
#endif
            double floor_us = copy_gbs > 0 ? bytes / (copy_gbs * 1e3) + latency_us : 0;
            double gbs = ok_cuda ? bytes / (s_cuda.median_us * 1e3) : 0;
            const char *row[] = {
                c->name,
                tsr_interp_name(ip),
                tsr_bench_fmt("%.1f", bytes / 1e6),
                copy_gbs > 0 ? tsr_bench_fmt("%.1f", floor_us) : "-",
                us_cell(&s_cpu, ok_cpu),
                us_cell(&s_cuda, ok_cuda),
                spread_cell(&s_cuda, ok_cuda),
                ok_cuda ? tsr_bench_fmt("%.0f", gbs) : "-",
                ok_cuda && copy_gbs > 0 ? tsr_bench_fmt("%.2f", gbs / copy_gbs) : "-",
                ok_cuda && floor_us > 0 ? tsr_bench_fmt("%.2f", s_cuda.median_us / floor_us) : "-",
                us_cell(&s_e2e, ok_e2e),
                us_cell(&s_h2h, ok_h2h),
                ok_e2e && ok_h2h ? tsr_bench_fmt("%.2f", s_e2e.median_us / s_h2h.median_us) : "-",
                us_cell(&s_bat, ok_bat),
                ok_bat && ok_h2h ? tsr_bench_fmt("%.2f", s_bat.median_us / s_h2h.median_us) : "-",
                us_cell(&s_ocl, ok_ocl),
                us_cell(&s_npp, ok_npp),
                ok_cuda && ok_npp ? tsr_bench_fmt("%.2f", s_npp.median_us / s_cuda.median_us) : "-",
                ok_cuda && ok_cpu ? tsr_bench_fmt("%.1f", s_cpu.median_us / s_cuda.median_us) : "-",
            };
            tsr_bench_table_row(t, row);
            fprintf(stderr, "done %s %s\n", c->name, tsr_interp_name(ip));
        }
#ifdef TSR_HAVE_CUDA
        if (cuda) {
            free_dev_sets(ds, nsets);
            free_dev_sets(dd, nsets);
        }
#endif
        free_host_sets(host, hs, nsets);
        free_host_sets(host, hd, nsets);
    }
    tsr_bench_table_print(t, stdout);
    printf("floor = bytes touched / copy bandwidth + library launch latency; vs floor = cuda us / "
           "floor us; npp/cuda > 1 means tessera is faster\n");
    printf("h2h floor = the call's bytes (source up, destination down) copied by cudaMemcpy from "
           "and to the same pageable host buffers; e2e/h2h = cuda e2e us / h2h floor us\n");
    printf("batch e2e = one tsr_resize_batch over the case's rotation sets (host images), per "
           "image; batch/h2h = that / h2h floor us\n");
    if (json) {
        const char *meta[] = {"host",
                              tsr_bench_host_description(),
                              "gpu",
                              gpu_desc,
                              "driver",
                              driver,
                              "copy_GBps",
                              tsr_bench_fmt("%.1f", copy_gbs),
                              "launch_latency_us",
                              tsr_bench_fmt("%.2f", latency_us),
                              "opencl",
                              ocl ? tsr_ctx_device_name(ocl) : "none",
                              NULL};
        if (tsr_bench_json_write(json, "bench_resize", meta, &t, 1))
            fprintf(stderr, "could not write %s\n", json);
    }
    tsr_bench_table_free(t);
    tsr_ctx_destroy(cpu);
    tsr_ctx_destroy(ocl);
    tsr_ctx_destroy(cuda);
    tsr_ctx_destroy(cuda_e2e);
    tsr_ctx_destroy(host);
#ifdef TSR_HAVE_CUDA
    if (stream)
        cudaStreamDestroy(stream);
#endif
    return 0;
}
