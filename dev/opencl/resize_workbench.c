/* Resize kernel workbench (OpenCL): the story of OpenCV-exact linear resize with OpenCL, one
 * variant per step, each checked against the library's own CPU reference (tsr_resize on a
 * TSR_BACKEND_REFERENCE context) and then timed side by side. The OpenCL twin of
 * dev/cuda/resize_workbench.cu; the kernels are in resize_workbench.cl, built after the
 * library's src/resize/resize.cl in one program so the exact variants call its arithmetic.
 *
 *   1 copy         16 bytes per work item over a large buffer: the bandwidth reference
 *   2 sampler      image2d_t (RGBA u8, 3-channel images are no CL format) read through a sampler
 *                  with CLK_FILTER_LINEAR: fast, NOT exact; its maximum difference from the
 *                  reference and the fraction of differing samples are reported instead of a pass
 *   3 exact 1/wi   one output element per work item (resize.cl's rk_element, as the library's
 *                  tsr_resize_generic kernel), plan tables uploaded as one buffer
 *   4 exact 4px/wi 4 output pixels (12 bytes) per work item, one 8+4-byte vector store
 *   5 tiled 2D     a work-group computes a 256-element x 8-row tile: horizontal pass of the
 *                  tile's source rows into local memory, barrier, vertical pass from local memory
 *   6 library      tsr_resize on a TSR_BACKEND_OPENCL context with host images: the shipped path
 *                  as an application sees it (upload + kernel + readback), host clock
 *
 * Cases (u8, 3 channels, linear): 4K->1080p, 1080p->720p, 1080p->4K, 8K->4K, 4K->8K; the exact
 * halvings take OpenCV's area path (plan.h AREA_FAST 2x2), the others the separable one.
 * --small divides every size by 8 (and adds an odd-sized case for the tails) so the whole run
 * takes seconds on PoCL's CPU device; it is the CTest smoke test.
 *
 * Checks: fresh pseudo-random non-zero inputs per case; the output is poisoned (two different
 * bytes, two runs) before a variant's check so unwritten elements show; compared byte for byte.
 * Times: kernel events of a CL_QUEUE_PROFILING_ENABLE queue (start to end), warm-up then
 * repeats, median and min-max; inputs and outputs rotate among several buffer sets that
 * together exceed the device cache several times when memory allows. GB/s counts source bytes
 * read plus output bytes written once each.
 *
 * Usage: resize_workbench_opencl [--small] [--repeats N] [--device I]
 * Exit: 0 all exact variants pass, 1 a failure, 77 no OpenCL device (CTest: skipped). */
#include "harness.h"
#include "opencl/opencl_internal.h"
#include "resize/plan.h"
#include "resize/resize_gpu.h"
#include "resize_cl.h" /* resize_cl_source: the library's kernels (src/resize/resize.cl) */
#include "resize_workbench_cl.h" /* resize_workbench_cl_source: this workbench's kernels */
#include "tessera/tessera.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CK(call)                                                                                   \
    do {                                                                                           \
        cl_int e_ = (call);                                                                        \
        if (e_ != CL_SUCCESS) {                                                                    \
            fprintf(stderr, "%s:%d: %s: %s (%d)\n", __FILE__, __LINE__, #call,                     \
                    tsr__opencl_error_name(e_), (int)e_);                                          \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)
/* For calls that return the object and report the error through their last argument. */
#define CKE(err) CK(err)

typedef struct wb_case {
    const char *name;
    int sw, sh, dw, dh;
} wb_case;

static const wb_case full_cases[] = {{"4k-1080p", 3840, 2160, 1920, 1080},
                                     {"1080p-720p", 1920, 1080, 1280, 720},
                                     {"1080p-4k", 1920, 1080, 3840, 2160},
                                     {"8k-4k", 7680, 4320, 3840, 2160},
                                     {"4k-8k", 3840, 2160, 7680, 4320}};
static const wb_case small_cases[] = {
    {"4k-1080p/8", 480, 270, 240, 135}, {"1080p-720p/8", 240, 135, 160, 90},
    {"1080p-4k/8", 240, 135, 480, 270}, {"8k-4k/8", 960, 540, 480, 270},
    {"4k-8k/8", 480, 270, 960, 540},    {"odd 241x137-173x99", 241, 137, 173, 99}};

static const char *const variant_names[] = {"",
                                            "copy",
                                            "sampler (hw bilinear)",
                                            "exact 1 elem/wi",
                                            "exact 4 px/wi",
                                            "tiled 2D (local mem)",
                                            "library call (host in/out)"};

enum { WARMUP = 3, MAX_SETS = 12, TILE_W = 256, TILE_H = 8 };

/* Everything one timed variant needs; run_variant enqueues iteration `iter` on set iter % nsets. */
typedef struct wb_state {
    cl_command_queue q;
    cl_kernel k;
    int variant;
    int nsets;
    cl_mem *src, *dst, *img;
    cl_mem tab;
    rk_params p;
    size_t global[2], local[2];
    float sx, sy;
    /* variant 6 */
    tsr_ctx *lib;
    const wb_case *c;
    unsigned char *hsrc, *hdst;
    size_t sbytes, dbytes;
    /* variant 1 */
    cl_mem ca, cb;
    cl_ulong n16;
} wb_state;

static double event_us(cl_event ev)
{
    cl_ulong t0 = 0, t1 = 0;
    CK(clWaitForEvents(1, &ev));
    CK(clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof t0, &t0, NULL));
    CK(clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof t1, &t1, NULL));
    CK(clReleaseEvent(ev));
    return (double)(t1 - t0) * 1e-3;
}

/* One run of the variant (tsr_bench_fn): device variants time themselves with their event. */
static int run_variant(void *user, int iter, double *us)
{
    wb_state *s = (wb_state *)user;
    int set = iter % s->nsets;
    cl_event ev;
    switch (s->variant) {
    case 1:
        CK(clSetKernelArg(s->k, 0, sizeof(cl_mem), &s->ca));
        CK(clSetKernelArg(s->k, 1, sizeof(cl_mem), &s->cb));
        CK(clSetKernelArg(s->k, 2, sizeof s->n16, &s->n16));
        break;
    case 2: {
        int dw = s->p.dw, dh = s->p.dh, ds = s->p.dstride;
        CK(clSetKernelArg(s->k, 0, sizeof(cl_mem), &s->img[set]));
        CK(clSetKernelArg(s->k, 1, sizeof(cl_mem), &s->dst[set]));
        CK(clSetKernelArg(s->k, 2, sizeof dw, &dw));
        CK(clSetKernelArg(s->k, 3, sizeof dh, &dh));
        CK(clSetKernelArg(s->k, 4, sizeof ds, &ds));
        CK(clSetKernelArg(s->k, 5, sizeof s->sx, &s->sx));
        CK(clSetKernelArg(s->k, 6, sizeof s->sy, &s->sy));
        break;
    }
    case 3:
    case 4:
    case 5:
        CK(clSetKernelArg(s->k, 0, sizeof(cl_mem), &s->src[set]));
        CK(clSetKernelArg(s->k, 1, sizeof(cl_mem), &s->dst[set]));
        CK(clSetKernelArg(s->k, 2, sizeof(cl_mem), &s->tab));
        CK(clSetKernelArg(s->k, 3, sizeof s->p, &s->p));
        break;
    case 6: {
        const wb_case *c = s->c;
        tsr_image a = {
            c->sw, c->sh, 3, TSR_U8, (size_t)c->sw * 3, s->hsrc + set * s->sbytes, TSR_MEMORY_HOST};
        tsr_image b = {
            c->dw, c->dh, 3, TSR_U8, (size_t)c->dw * 3, s->hdst + set * s->dbytes, TSR_MEMORY_HOST};
        tsr_resize_options ro;
        tsr_resize_options_init(&ro);
        if (tsr_resize(s->lib, &a, &b, &ro) != TSR_OK) {
            fprintf(stderr, "library: %s\n", tsr_ctx_last_error(s->lib));
            return 1;
        }
        return 0; /* host clock (the harness times the call) */
    }
    }
    CK(clEnqueueNDRangeKernel(s->q, s->k, s->variant == 1 ? 1 : 2, NULL, s->global, s->local, 0,
                              NULL, &ev));
    *us = event_us(ev);
    return 0;
}

static size_t round_up(size_t v, size_t m)
{
    return (v + m - 1) / m * m;
}

static cl_mem make_buffer(cl_context cx, size_t bytes)
{
    cl_int err = CL_SUCCESS;
    cl_mem m = clCreateBuffer(cx, CL_MEM_READ_WRITE, bytes ? bytes : 1, NULL, &err);
    CKE(err);
    return m;
}

static void usage(void)
{
    fprintf(stderr, "usage: resize_workbench_opencl [--small] [--repeats N] [--device I]\n"
                    "  --small    sizes / 8 and an odd-sized case (seconds on PoCL)\n"
                    "  --repeats  timed repeats per variant (default 30, 5 with --small)\n"
                    "  --device   OpenCL device index in the library's order (GPUs first)\n");
}

int main(int argc, char **argv)
{
    int small = 0, repeats = -1, device = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--small"))
            small = 1;
        else if (!strcmp(argv[i], "--repeats") && i + 1 < argc)
            repeats = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--device") && i + 1 < argc)
            device = atoi(argv[++i]);
        else {
            usage();
            return 2;
        }
    }
    if (repeats < 1)
        repeats = small ? 5 : 30;
    if (tsr__opencl_device_count() == 0) {
        printf("resize workbench (OpenCL): skipped: %s\n", tsr__opencl_unavailable_reason());
        return 77;
    }

    tsr_ctx_options o;
    tsr_ctx_options_init(&o);
    o.backend = TSR_BACKEND_REFERENCE;
    tsr_ctx *ref = NULL, *lib = NULL;
    if (tsr_ctx_create(&o, &ref) != TSR_OK) {
        fprintf(stderr, "reference context: %s\n", ref ? tsr_ctx_last_error(ref) : "failed");
        return 1;
    }
    o.backend = TSR_BACKEND_OPENCL;
    o.device = device;
    if (tsr_ctx_create(&o, &lib) != TSR_OK) {
        fprintf(stderr, "OpenCL context: %s\n", lib ? tsr_ctx_last_error(lib) : "failed");
        return 1;
    }

    /* The library's device and context; the workbench adds its own profiling queue. */
    cl_device_id dev = lib->opencl->device;
    cl_context cx = lib->opencl->context;
    cl_int err = CL_SUCCESS;
    cl_command_queue q = clCreateCommandQueue(cx, dev, CL_QUEUE_PROFILING_ENABLE, &err);
    CKE(err);
    char dname[256] = "", dver[128] = "", drv[128] = "", pname[128] = "";
    cl_platform_id plat = lib->opencl->platform;
    cl_ulong gmem = 0, maxalloc = 0, gcache = 0;
    cl_uint cus = 0;
    cl_bool images = CL_FALSE;
    size_t img_w = 0, img_h = 0;
    cl_device_fp_config fp = 0;
    CK(clGetDeviceInfo(dev, CL_DEVICE_NAME, sizeof dname - 1, dname, NULL));
    CK(clGetDeviceInfo(dev, CL_DEVICE_VERSION, sizeof dver - 1, dver, NULL));
    CK(clGetDeviceInfo(dev, CL_DRIVER_VERSION, sizeof drv - 1, drv, NULL));
    CK(clGetPlatformInfo(plat, CL_PLATFORM_NAME, sizeof pname - 1, pname, NULL));
    CK(clGetDeviceInfo(dev, CL_DEVICE_GLOBAL_MEM_SIZE, sizeof gmem, &gmem, NULL));
    CK(clGetDeviceInfo(dev, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof maxalloc, &maxalloc, NULL));
    CK(clGetDeviceInfo(dev, CL_DEVICE_GLOBAL_MEM_CACHE_SIZE, sizeof gcache, &gcache, NULL));
    CK(clGetDeviceInfo(dev, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof cus, &cus, NULL));
    CK(clGetDeviceInfo(dev, CL_DEVICE_IMAGE_SUPPORT, sizeof images, &images, NULL));
    if (images) {
        CK(clGetDeviceInfo(dev, CL_DEVICE_IMAGE2D_MAX_WIDTH, sizeof img_w, &img_w, NULL));
        CK(clGetDeviceInfo(dev, CL_DEVICE_IMAGE2D_MAX_HEIGHT, sizeof img_h, &img_h, NULL));
    }
    CK(clGetDeviceInfo(dev, CL_DEVICE_SINGLE_FP_CONFIG, sizeof fp, &fp, NULL));
    /* The cache the rotation must defeat: what the device reports, but at least 64 MiB (some
     * drivers report a per-unit L1 here; an H200's L2 is 50 MB). */
    size_t cache = gcache > ((size_t)64 << 20) ? (size_t)gcache : (size_t)64 << 20;
    printf("resize workbench (OpenCL): %s (%s), %s, driver %s, %u compute units, %.1f GiB, "
           "reported cache %.1f MiB; u8 3-channel linear%s\n",
           dname, pname, dver, drv, cus, gmem / 1073741824.0, gcache / 1048576.0,
           small ? "; --small sizes" : "");

    /* One program: the library's resize.cl, then the workbench's kernels. */
    const char *srcs[2] = {resize_cl_source, resize_workbench_cl_source};
    cl_program prog = clCreateProgramWithSource(cx, 2, srcs, NULL, &err);
    CKE(err);
    const char *opts =
        (fp & CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT) ? "-cl-fp32-correctly-rounded-divide-sqrt" : "";
    err = clBuildProgram(prog, 1, &dev, opts, NULL, NULL);
    if (err != CL_SUCCESS) {
        static char log[16384];
        clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, sizeof log - 1, log, NULL);
        fprintf(stderr, "program build failed (%s):\n%s\n", tsr__opencl_error_name(err), log);
        return 1;
    }
    cl_kernel kern[6] = {0};
    const char *knames[6] = {"", "wb_copy", "wb_sampler", "wb_exact1", "wb_exact4px", "wb_tiled"};
    for (int v = 1; v <= 5; v++) {
        kern[v] = clCreateKernel(prog, knames[v], &err);
        CKE(err);
    }

    /* 1: copy bandwidth */
    double copy_gbs;
    {
        size_t bytes = small ? (size_t)64 << 20 : (size_t)1 << 30;
        while (bytes > maxalloc || 2 * bytes > gmem / 2)
            bytes /= 2;
        wb_state s = {0};
        s.q = q, s.k = kern[1], s.variant = 1, s.nsets = 1;
        s.ca = make_buffer(cx, bytes), s.cb = make_buffer(cx, bytes);
        unsigned char one = 1;
        CK(clEnqueueFillBuffer(q, s.ca, &one, 1, 0, bytes, 0, NULL, NULL));
        s.n16 = bytes / 16;
        s.global[0] = round_up(bytes / 16, 256), s.local[0] = 256;
        tsr_bench_stats st;
        if (tsr_bench_measure(run_variant, &s, WARMUP, repeats, &st))
            return 1;
        copy_gbs = 2.0 * bytes / (st.median_us * 1e3);
        printf("1 copy kernel: %zu MiB in %.1f us (%.1f-%.1f): %.1f GB/s read+write\n", bytes >> 20,
               st.median_us, st.min_us, st.max_us, copy_gbs);
        clReleaseMemObject(s.ca);
        clReleaseMemObject(s.cb);
    }

    printf("\n| case | path | sets | variant | exact | us (median) | spread | GB/s | of copy |\n"
           "|---|---|---|---|---|---|---|---|---|\n");
    int failures = 0;
    const wb_case *cases = small ? small_cases : full_cases;
    int ncases = small ? (int)(sizeof small_cases / sizeof *small_cases)
                       : (int)(sizeof full_cases / sizeof *full_cases);
    for (int ci = 0; ci < ncases; ci++) {
        const wb_case *c = &cases[ci];
        const int cn = 3;
        size_t srow = (size_t)c->sw * cn, drow = (size_t)c->dw * cn;
        size_t sbytes = srow * c->sh, dbytes = drow * c->dh;
        size_t ibytes = (size_t)c->sw * 4 * c->sh; /* RGBA image of a source */
        int nsets = tsr_bench_rotation(sbytes + dbytes, cache, MAX_SETS);
        while (nsets > 1 && (double)nsets * (2.0 * sbytes + 2.0 * dbytes + ibytes) > gmem / 2.0)
            nsets--; /* device sets and their copies on the host must fit */
        unsigned char *hsrc = (unsigned char *)malloc(sbytes * nsets);
        unsigned char *hdst = (unsigned char *)malloc(dbytes * nsets);
        unsigned char *want = (unsigned char *)malloc(dbytes);
        unsigned char *got = (unsigned char *)malloc(dbytes);
        if (!hsrc || !hdst || !want || !got) {
            fprintf(stderr, "out of host memory\n");
            return 1;
        }
        tsr_bench_fill_random(hsrc, sbytes * nsets, 0x5eed0000ull + (unsigned long long)ci);

        /* the answer for set 0, from the library's reference backend */
        tsr_image is = {c->sw, c->sh, cn, TSR_U8, srow, hsrc, TSR_MEMORY_HOST};
        tsr_image iw = {c->dw, c->dh, cn, TSR_U8, drow, want, TSR_MEMORY_HOST};
        tsr_resize_options ro;
        tsr_resize_options_init(&ro);
        if (tsr_resize(ref, &is, &iw, &ro) != TSR_OK) {
            fprintf(stderr, "reference: %s\n", tsr_ctx_last_error(ref));
            return 1;
        }
        /* the plan as tsr_resize builds it (size given: fx = dw/sw, fy = dh/sh) */
        tsr__resize_plan plan;
        if (tsr__resize_plan_build(ref, &plan, c->sw, c->sh, c->dw, c->dh, cn, TSR_U8,
                                   TSR_INTERP_LINEAR, (double)c->dw / c->sw,
                                   (double)c->dh / c->sh) != TSR_OK) {
            fprintf(stderr, "plan: %s\n", tsr_ctx_last_error(ref));
            return 1;
        }
        wb_state s = {0};
        s.q = q, s.nsets = nsets, s.lib = lib, s.c = c;
        s.hsrc = hsrc, s.hdst = hdst, s.sbytes = sbytes, s.dbytes = dbytes;
        size_t tb = tsr__resize_gpu_params(&plan, srow, drow, &s.p);
        if (!tb) {
            fprintf(stderr, "%s: too large for the kernels\n", c->name);
            return 1;
        }
        /* plan tables as one buffer, each table at its offset (resize_gpu.h layout) */
        s.tab = make_buffer(cx, tb);
        for (int t = 0; t < TSR__RT_COUNT; t++)
            if (plan.table_bytes[t])
                CK(clEnqueueWriteBuffer(q, s.tab, CL_FALSE, (size_t)s.p.off[t], plan.table_bytes[t],
                                        plan.table[t], 0, NULL, NULL));
        s.src = (cl_mem *)calloc((size_t)nsets, sizeof(cl_mem));
        s.dst = (cl_mem *)calloc((size_t)nsets, sizeof(cl_mem));
        s.img = (cl_mem *)calloc((size_t)nsets, sizeof(cl_mem));
        int have_img = images && (size_t)c->sw <= img_w && (size_t)c->sh <= img_h;
        unsigned char *rgba = have_img ? (unsigned char *)malloc(ibytes) : NULL;
        for (int k = 0; k < nsets; k++) {
            s.src[k] = make_buffer(cx, sbytes);
            s.dst[k] = make_buffer(cx, dbytes);
            CK(clEnqueueWriteBuffer(q, s.src[k], CL_TRUE, 0, sbytes, hsrc + k * sbytes, 0, NULL,
                                    NULL));
            if (have_img && rgba) {
                for (size_t i = 0; i < (size_t)c->sw * c->sh; i++) {
                    memcpy(rgba + 4 * i, hsrc + k * sbytes + 3 * i, 3);
                    rgba[4 * i + 3] = 255;
                }
                cl_image_format f = {CL_RGBA, CL_UNORM_INT8};
                cl_image_desc d;
                memset(&d, 0, sizeof d);
                d.image_type = CL_MEM_OBJECT_IMAGE2D;
                d.image_width = (size_t)c->sw, d.image_height = (size_t)c->sh;
                s.img[k] = clCreateImage(cx, CL_MEM_READ_ONLY, &f, &d, NULL, &err);
                CKE(err);
                size_t origin[3] = {0, 0, 0}, region[3] = {(size_t)c->sw, (size_t)c->sh, 1};
                CK(clEnqueueWriteImage(q, s.img[k], CL_TRUE, origin, region, (size_t)c->sw * 4, 0,
                                       rgba, 0, NULL, NULL));
            }
        }
        free(rgba);
        s.sx = (float)c->sw / c->dw, s.sy = (float)c->sh / c->dh;
        double bytes = (double)sbytes + dbytes;
        size_t n = (size_t)c->dw * cn;

        for (int v = 2; v <= 6; v++) {
            s.variant = v;
            s.k = kern[v < 6 ? v : 0];
            switch (v) {
            case 2:
                s.global[0] = round_up((size_t)c->dw, 64), s.global[1] = round_up((size_t)c->dh, 4);
                s.local[0] = 64, s.local[1] = 4;
                break;
            case 3:
                s.global[0] = round_up(n, 64), s.global[1] = round_up((size_t)c->dh, 4);
                s.local[0] = 64, s.local[1] = 4;
                break;
            case 4:
                s.global[0] = round_up(((size_t)c->dw + 3) / 4, 64);
                s.global[1] = round_up((size_t)c->dh, 4);
                s.local[0] = 64, s.local[1] = 4;
                break;
            case 5:
                s.global[0] = round_up(n, TILE_W);
                s.global[1] = ((size_t)c->dh + TILE_H - 1) / TILE_H;
                s.local[0] = TILE_W, s.local[1] = 1;
                break;
            }
            char exact[96];
            if (v == 2 && !have_img) {
                printf("| %s | %s | %d | %d %s | n/a (no image support for %dx%d) | - | - | - | "
                       "- |\n",
                       c->name, tsr__resize_path_name(plan.path), nsets, v, variant_names[v], c->sw,
                       c->sh);
                continue;
            }
            /* check on set 0: output poisoned with two different bytes in turn */
            int maxdiff = 0;
            size_t ndiff = 0;
            const unsigned char poison[2] = {0xa5, 0x5a};
            for (int pi = 0; pi < 2; pi++) {
                if (v == 6) {
                    memset(hdst, poison[pi], dbytes);
                } else {
                    CK(clEnqueueFillBuffer(q, s.dst[0], &poison[pi], 1, 0, dbytes, 0, NULL, NULL));
                }
                double us;
                if (run_variant(&s, 0, &us))
                    return 1;
                if (v == 6)
                    memcpy(got, hdst, dbytes);
                else
                    CK(clEnqueueReadBuffer(q, s.dst[0], CL_TRUE, 0, dbytes, got, 0, NULL, NULL));
                for (size_t i = 0; i < dbytes; i++) {
                    int d = abs((int)got[i] - (int)want[i]);
                    if (d > maxdiff)
                        maxdiff = d;
                    ndiff += d != 0 && pi == 0;
                }
            }
            if (v == 2) {
                snprintf(exact, sizeof exact, "no: max diff %d, %.2f%% differ", maxdiff,
                         100.0 * ndiff / dbytes);
            } else if (maxdiff) {
                snprintf(exact, sizeof exact, "FAIL (max diff %d)", maxdiff);
                failures++;
            } else {
                snprintf(exact, sizeof exact, "PASS");
            }
            tsr_bench_stats st;
            if (tsr_bench_measure(run_variant, &s, WARMUP, repeats, &st))
                return 1;
            double gbs = bytes / (st.median_us * 1e3);
            printf("| %s | %s | %d | %d %s | %s | %.1f | %.1f-%.1f | %.1f | %.2f |\n", c->name,
                   tsr__resize_path_name(plan.path), nsets, v, variant_names[v], exact,
                   st.median_us, st.min_us, st.max_us, gbs, gbs / copy_gbs);
            fflush(stdout);
        }
        for (int k = 0; k < nsets; k++) {
            clReleaseMemObject(s.src[k]);
            clReleaseMemObject(s.dst[k]);
            if (s.img[k])
                clReleaseMemObject(s.img[k]);
        }
        clReleaseMemObject(s.tab);
        free(s.src), free(s.dst), free(s.img);
        free(hsrc), free(hdst), free(want), free(got);
        tsr__resize_plan_free(ref, &plan);
    }
    printf("\nGB/s: (source + output bytes) / median time; of copy: that over variant 1's GB/s. "
           "Variant 6 includes the host<->device transfers of a host-image call.\n");
    if (failures)
        printf("%d exact variant run(s) FAILED\n", failures);
    for (int v = 1; v <= 5; v++)
        clReleaseKernel(kern[v]);
    clReleaseProgram(prog);
    clReleaseCommandQueue(q);
    tsr_ctx_destroy(lib);
    tsr_ctx_destroy(ref);
    return failures ? 1 : 0;
}
