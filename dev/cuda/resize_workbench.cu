/* Resize kernel workbench (CUDA): the story of OpenCV-exact linear resize on a GPU, one variant
 * per step, each checked against the library's own CPU reference (tsr_resize with
 * TSR_BACKEND_REFERENCE) and then timed side by side.
 *
 *   1 copy        a 16-byte-per-thread copy of the same bytes: the bandwidth reference
 *   2 texture     hardware bilinear filtering (cudaFilterModeLinear): fast, NOT exact; its
 *                 maximum difference from the reference is reported instead of a pass
 *   3 exact       one thread per output element, OpenCV's fixed-point formulas (resize.cl)
 *   4 exact x4    4 consecutive output elements per thread, one 4-byte store
 *   5 tiled       2D tiles: horizontal pass of the tile's source rows into shared memory,
 *                 then the vertical pass from shared memory (one element per thread)
 *   6 library     tsr_resize on device images (the shipped kernel k_sep_u8: 256-element x
 *                 <=16-row tiles, 256 threads, horizontal results in a few KB of shared memory,
 *                 4 elements per thread in the vertical pass); includes the call's host work
 *   0             (printed first per case) host time of building the plan, part of every call
 * Then DRAM bandwidth by read:write mix at 1 GiB (mix_bandwidth), the floors of an upscale's
 * traffic (empty launch, stores alone, a 2x expand without arithmetic) and the breakdown of
 * every library kernel (breakdown below).
 *
 * Cases: 3-channel u8 linear, those of bench_resize that take the separable linear path
 * (1080p->720p, 1080p->4K, 4K->8K; the exact halvings take OpenCV's area path instead).
 * Then u8 3-channel cubic (cubic_variants): the library's kernel beside the cw_cubic variants of
 * resize_workbench_cubic.cuh on the breakdown's five cases, floor us, us, PASS/FAIL and x floor
 * per variant in one table; `resize_workbench_cuda [repeats] cubic` runs the copy probe and that
 * table alone. Exit status 1 when a cubic variant is not bit-exact.
 * Inputs rotate among copies totalling > 4x the L2. Times: CUDA events, median of repeats.
 * Build: with the library (dev/CMakeLists.txt), --fmad=false like the library. */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <algorithm>
#include <vector>

#include "resize/resize.cl"
extern "C" {
#include "resize/plan.h"
#include "resize/resize_gpu.h"
#include "tessera/tessera.h"
tsr_status tsr__resize_cuda(tsr_ctx *ctx, const tsr__resize_plan *plan, const tsr_image *src,
                            tsr_image *dst);
}
#include "resize/resize_cuda.h"
#include "resize_workbench_cubic.cuh"

/* The launch shapes of a variant number n, as bits: 1 k_lin2_u8 at 4 elements per thread, 2
 * k_lin2_u8 off (k_stile_u8 takes its plans), 4 k_up2_u8 off, 8 k_lin2_u8 tiles for 4x more
 * blocks, 1024 for 2x fewer, 256 / 512 k_areaw_u8 with 2x more / fewer threads, 2048 k_dn32_u8
 * off, 4096 k_walk_u8 off (k_stile_u8 takes u8 cubic,
 * k_generic lanczos4); 0 is the library's shapes. */
static tsr__resize_cuda_tuning tuning_of(int n)
{
    tsr__resize_cuda_tuning t = {8, 512, 262144, 0, 0, 0, 0};
    t.lin2_ept = n & 1 ? 4 : 8;
    t.no_lin2 = (n & 2) != 0;
    t.no_up2 = (n & 4) != 0;
    t.lin2_blocks = n & 8 ? 2048 : n & 1024 ? 256 : 512;
    t.area_threads = n & 256 ? 524288 : n & 512 ? 131072 : 262144;
    t.no_dn32 = (n & 2048) != 0;
    t.no_walk = (n & 4096) != 0;
    return t;
}

#define CK(call)                                                                                   \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e_ != cudaSuccess) {                                                                   \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

/* 1: copy */
__global__ void v1_copy(const int4 *__restrict__ a, int4 *__restrict__ b, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        b[i] = a[i];
}

/* Floors of an upscale's memory traffic (no resize arithmetic): 16-byte stores only, and a 2x
 * "expand" with the traffic shape of a 2x upscale (each 16 source bytes of row y read once,
 * 32 bytes written to each of rows 2y and 2y+1 by one lane's two 16-byte stores, so each warp
 * store covers every other 16 bytes of its span; floor_expand2c makes them contiguous). */
__global__ void floor_write(int4 *__restrict__ b, size_t n, int v)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        b[i] = make_int4(v, v ^ (int)i, v + (int)i, ~v);
}

__global__ void floor_expand2(const int4 *__restrict__ a, int4 *__restrict__ b, int srow16,
                              int rows)
{
    const size_t n = (size_t)srow16 * rows;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        const int y = (int)(i / srow16), x = (int)(i - (size_t)y * srow16);
        const int4 v = a[i];
        int4 *d = b + (size_t)2 * y * 2 * srow16 + 2 * x;
        d[0] = v, d[1] = make_int4(v.y, v.x, v.w, v.z);
        d += 2 * srow16;
        d[0] = make_int4(v.z, v.w, v.x, v.y), d[1] = make_int4(v.w, v.z, v.y, v.x);
    }
}

/* The same traffic with every warp store contiguous (lane i writes 16 bytes at 16i of the
 * warp's 512-byte run): what a 2x upscale could reach if it staged its output in shared memory. */
__global__ void floor_expand2c(const int4 *__restrict__ a, int4 *__restrict__ b, int srow16,
                               int rows)
{
    const size_t n = (size_t)srow16 * rows;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        const int y = (int)(i / srow16), x = (int)(i - (size_t)y * srow16);
        const int4 v = a[i];
        /* chunks x0 .. x0+31 of a row fill output chunks 2*x0 .. 2*x0+63; a row's last
         * partial group keeps the pairwise layout */
        const int lane = x & 31, x0 = x - lane, full = x0 + 32 <= srow16;
        const int o0 = full ? 2 * x0 + lane : 2 * x, o1 = full ? o0 + 32 : o0 + 1;
        int4 *d = b + (size_t)2 * y * 2 * srow16;
        d[o0] = v, d[o1] = make_int4(v.y, v.x, v.w, v.z);
        d += 2 * srow16;
        d[o0] = make_int4(v.z, v.w, v.x, v.y), d[o1] = make_int4(v.w, v.z, v.y, v.x);
    }
}

__global__ void floor_empty() {}

/* The same stores with the streaming (evict-first) cache hint. */
__global__ void floor_write_cs(int4 *__restrict__ b, size_t n, int v)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        __stcs(b + i, make_int4(v, v ^ (int)i, v + (int)i, ~v));
}

/* Reads only: each thread folds its 16-byte loads into one word, written once (4 bytes per
 * thread, nothing next to the reads). */
__global__ void floor_read(const int4 *__restrict__ a, size_t n, int *__restrict__ sink)
{
    int acc = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        const int4 v = a[i];
        acc ^= v.x ^ v.y ^ v.z ^ v.w;
    }
    sink[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

/* 2: texture (uchar4 texels, normalized float reads, linear filter) */
__global__ void v2_texture(cudaTextureObject_t tex, uchar *dst, int dw, int dh, int dstride,
                           float sx, float sy)
{
    int dx = blockIdx.x * blockDim.x + threadIdx.x, dy = blockIdx.y;
    if (dx >= dw)
        return;
    float4 v = tex2D<float4>(tex, (dx + 0.5f) * sx, (dy + 0.5f) * sy);
    uchar *d = dst + (size_t)dy * dstride + dx * 3;
    d[0] = (uchar)__float2int_rn(v.x * 255.f);
    d[1] = (uchar)__float2int_rn(v.y * 255.f);
    d[2] = (uchar)__float2int_rn(v.z * 255.f);
}

__global__ void pack4(const uchar *s, uchar4 *d, int w, int h)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
    if (x < w)
        d[(size_t)y * w + x] =
            make_uchar4(s[((size_t)y * w + x) * 3], s[((size_t)y * w + x) * 3 + 1],
                        s[((size_t)y * w + x) * 3 + 2], 255);
}

/* 3: exact, one element per thread */
__global__ void v3_exact(const uchar *src, uchar *dst, const uchar *tab, rk_params p)
{
    int e = blockIdx.x * blockDim.x + threadIdx.x, dy = blockIdx.y;
    if (e < p.dw * p.cn)
        rk_separable(src, dst, tab, p, dy, e);
}

/* 4: exact, 4 elements per thread, one 4-byte store */
__global__ void v4_exact4(const uchar *src, uchar *dst, const uchar *tab, rk_params p)
{
    int e = 4 * (blockIdx.x * blockDim.x + threadIdx.x), dy = blockIdx.y, n = p.dw * p.cn;
    if (e >= n)
        return;
    const int *yofs = rk_ti(tab, p, RK_YOFS);
    const short *b = (const short *)(tab + p.off[RK_YCOEF]) + dy * 2;
    int r0 = rk_clampi(yofs[dy], 0, p.sh - 1), r1 = rk_clampi(yofs[dy] + 1, 0, p.sh - 1);
    uint packed = 0;
    for (int i = 0; i < 4 && e + i < n; i++) {
        int dx = (e + i) / p.cn, c = (e + i) - dx * p.cn;
        int h0 = rk_h_u8(src, tab, p, r0, dx, c), h1 = rk_h_u8(src, tab, p, r1, dx, c);
        int v = (((b[0] * (h0 >> 4)) >> 16) + ((b[1] * (h1 >> 4)) >> 16) + 2) >> 2;
        packed |= (uint)rk_sat(v, 1) << (8 * i);
    }
    uchar *d = dst + (size_t)dy * p.dstride + e;
    if (e + 4 <= n)
        *(uint *)d = packed;
    else
        for (int i = 0; e + i < n; i++)
            d[i] = (uchar)(packed >> (8 * i));
}

/* 5: 2D tiles of 256 elements x TH rows; horizontal results of the tile's rows in shared memory */
enum { T5_W = 256, T5_H = 8, T5_MAXR = 24 };
__global__ void v5_tiled(const uchar *src, uchar *dst, const uchar *tab, rk_params p)
{
    __shared__ int hs[T5_MAXR][T5_W];
    int e = blockIdx.x * T5_W + threadIdx.x, n = p.dw * p.cn;
    int dy0 = blockIdx.y * T5_H, dy1 = min(dy0 + T5_H, p.dh);
    const int *yofs = rk_ti(tab, p, RK_YOFS);
    int rlo = rk_clampi(yofs[dy0], 0, p.sh - 1), rhi = rk_clampi(yofs[dy1 - 1] + 1, 0, p.sh - 1);
    int ec = min(e, n - 1), dx = ec / p.cn, c = ec - dx * p.cn;
    for (int r = rlo; r <= rhi && r - rlo < T5_MAXR; r++)
        hs[r - rlo][threadIdx.x] = rk_h_u8(src, tab, p, r, dx, c);
    __syncthreads();
    if (e >= n)
        return;
    for (int dy = dy0; dy < dy1; dy++) {
        const short *b = (const short *)(tab + p.off[RK_YCOEF]) + dy * 2;
        int h0 = hs[rk_clampi(yofs[dy], 0, p.sh - 1) - rlo][threadIdx.x];
        int h1 = hs[rk_clampi(yofs[dy] + 1, 0, p.sh - 1) - rlo][threadIdx.x];
        int v = (((b[0] * (h0 >> 4)) >> 16) + ((b[1] * (h1 >> 4)) >> 16) + 2) >> 2;
        dst[(size_t)dy * p.dstride + e] = (uchar)rk_sat(v, 1);
    }
}

struct wcase {
    const char *name;
    int sw, sh, dw, dh;
};

static double median(std::vector<double> v, double *lo, double *hi)
{
    std::sort(v.begin(), v.end());
    *lo = v.front(), *hi = v.back();
    return v[v.size() / 2];
}

/* Times launch(i) for i = 0 .. repeats+2 with CUDA events on `stream`; the median of all but
 * the first 3 in us, their range in *lo, *hi when given. */
template <class F>
static double time_launch(cudaStream_t stream, int repeats, F launch, double *lo = NULL,
                          double *hi = NULL)
{
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    std::vector<double> t;
    for (int i = 0; i < repeats + 3; i++) {
        CK(cudaEventRecord(e0, stream));
        launch(i);
        CK(cudaEventRecord(e1, stream));
        CK(cudaEventSynchronize(e1));
        float ms;
        CK(cudaEventElapsedTime(&ms, e0, e1));
        if (i >= 3)
            t.push_back(ms * 1e3);
    }
    CK(cudaGetLastError());
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    double l, h, med = median(t, &l, &h);
    if (lo)
        *lo = l, *hi = h;
    return med;
}

/* What the hardware gives an upscale's traffic without any arithmetic: an empty launch, 16-byte
 * stores alone, and floor_expand2c / floor_expand2 (contiguous / lane-strided stores) at the
 * byte counts of the 2x upscales (3-channel u8), each over buffers rotated beyond 4x the L2. */
static void upscale_floors(cudaStream_t stream, int repeats, double copy_gbs)
{
    printf("\nupscale floors (no arithmetic; events, median)\n| probe | MB moved | us | GB/s | "
           "of copy |\n|---|---|---|---|---|\n");
    printf("| empty kernel launch | 0 | %.1f | - | - |\n",
           time_launch(stream, repeats, [&](int) { floor_empty<<<1, 32, 0, stream>>>(); }));
    const struct {
        const char *name;
        int sw, sh;
    } ups[] = {{"1080p-4k", 1920, 1080}, {"4k-8k", 3840, 2160}};
    for (const auto &u : ups) {
        const int srow16 = u.sw * 3 / 16;
        const size_t sb = (size_t)srow16 * 16 * u.sh, db = 4 * sb;
        const int sets = (int)std::max<size_t>(2, ((size_t)400 << 20) / (sb + db) + 1);
        int4 *a, *b;
        CK(cudaMalloc(&a, sb * sets));
        CK(cudaMalloc(&b, db * sets));
        CK(cudaMemset(a, 0x5a, sb * sets));
        const int grid = 132 * 16;
        double tw = time_launch(stream, repeats, [&](int k) {
            floor_write<<<grid, 256, 0, stream>>>(b + (size_t)(k % sets) * (db / 16), db / 16, k);
        });
        double te = time_launch(stream, repeats, [&](int k) {
            floor_expand2<<<grid, 256, 0, stream>>>(a + (size_t)(k % sets) * (sb / 16),
                                                    b + (size_t)(k % sets) * (db / 16), srow16,
                                                    u.sh);
        });
        double tc = time_launch(stream, repeats, [&](int k) {
            floor_expand2c<<<grid, 256, 0, stream>>>(a + (size_t)(k % sets) * (sb / 16),
                                                     b + (size_t)(k % sets) * (db / 16), srow16,
                                                     u.sh);
        });
        printf("| %s: 2x expand, contiguous warp stores | %.1f | %.1f | %.0f | %.2f |\n", u.name,
               (sb + db) / 1e6, tc, (sb + db) / (tc * 1e3), (sb + db) / (tc * 1e3) / copy_gbs);
        printf("| %s: 16-byte stores of the output | %.1f | %.1f | %.0f | %.2f |\n", u.name,
               db / 1e6, tw, db / (tw * 1e3), db / (tw * 1e3) / copy_gbs);
        printf("| %s: 2x expand, lane-strided stores (16 bytes, 32 apart) | %.1f | %.1f | %.0f | "
               "%.2f |\n",
               u.name, (sb + db) / 1e6, te, (sb + db) / (te * 1e3),
               (sb + db) / (te * 1e3) / copy_gbs);
        cudaFree(a);
        cudaFree(b);
    }
}

/* DRAM bandwidth by read:write mix at a size where the ramp does not count (1 GiB written or
 * read): reads only, writes only (plain and streaming stores, and cudaMemsetAsync), the 1:1 copy
 * of main(), and the 1:4 mix of a 2x upscale (floor_expand2c, 256 MiB read, 1 GiB written).
 * It answers whether the upscales' write-heavy traffic can move at the copy bandwidth that the
 * floors assume. */
static void mix_bandwidth(cudaStream_t stream, int repeats, double copy_gbs, int sms)
{
    const size_t out = (size_t)1 << 30, in = out / 4;
    const int grid = sms * 16;
    int4 *a, *b;
    int *sink;
    CK(cudaMalloc(&a, out));
    CK(cudaMalloc(&b, out));
    CK(cudaMalloc(&sink, (size_t)grid * 256 * sizeof(int)));
    CK(cudaMemset(a, 0x5a, out));
    const int srow16 = 3840 * 3 / 16, rows = (int)(in / ((size_t)srow16 * 16));
    const size_t mixed = (size_t)srow16 * 16 * rows * 5; /* bytes read + written */
    const struct {
        const char *name;
        size_t bytes;
        double us;
    } r[] = {
        {"reads only (1 GiB)", out,
         time_launch(stream, repeats,
                     [&](int) { floor_read<<<grid, 256, 0, stream>>>(a, out / 16, sink); })},
        {"writes only, plain stores (1 GiB)", out,
         time_launch(stream, repeats,
                     [&](int k) { floor_write<<<grid, 256, 0, stream>>>(b, out / 16, k); })},
        {"writes only, streaming stores (1 GiB)", out,
         time_launch(stream, repeats,
                     [&](int k) { floor_write_cs<<<grid, 256, 0, stream>>>(b, out / 16, k); })},
        {"writes only, cudaMemsetAsync (1 GiB)", out,
         time_launch(stream, repeats,
                     [&](int k) { CK(cudaMemsetAsync(b, k & 0xff, out, stream)); })},
        {"1:4 read:write, 2x expand (1.25 GiB)", mixed,
         time_launch(stream, repeats,
                     [&](int) { floor_expand2c<<<grid, 256, 0, stream>>>(a, b, srow16, rows); })},
    };
    printf("\nDRAM bandwidth by read:write mix (events, median; copy 1:1 above: %.0f GB/s)\n"
           "| traffic | MB | us | GB/s | of copy |\n|---|---|---|---|---|\n",
           copy_gbs);
    for (const auto &x : r)
        printf("| %s | %.0f | %.1f | %.0f | %.2f |\n", x.name, x.bytes / 1e6, x.us,
               x.bytes / (x.us * 1e3), x.bytes / (x.us * 1e3) / copy_gbs);
    cudaFree(a);
    cudaFree(b);
    cudaFree(sink);
}

/* Where the time of one tsr_resize call goes, per case and interpolation (library kernels):
 *   A  host: building the plan (tsr__resize_plan_build), part of every tsr_resize call
 *   B  tsr__resize_cuda with a prebuilt plan: table upload + launch (events)
 *   C  the kernel alone (tsr__resize_cuda_launch, tables already on the device) (events)
 *   V=n   as C in the launch shapes of variant n (tuning_of lists its bits),
 *         one column per value of the environment variable TSR_WB_VARIANTS (comma-separated;
 *         default "12,6": k_up2_u8 off with short k_lin2_u8 tiles, and k_stile_u8 for k_lin2_u8)
 * The breakdown's images have TSR_WB_CN channels (1-4, default 3).
 * B and C outputs are checked against the reference backend (poisoned output first). */
static void breakdown(tsr_ctx *ref, tsr_ctx *lib, cudaStream_t stream, int repeats, double copy_gbs,
                      size_t l2)
{
    struct bcase {
        const char *name;
        int sw, sh, dw, dh;
    } cases[] = {{"4k-1080p", 3840, 2160, 1920, 1080},
                 {"1080p-720p", 1920, 1080, 1280, 720},
                 {"1080p-4k", 1920, 1080, 3840, 2160},
                 {"8k-4k", 7680, 4320, 3840, 2160},
                 {"4k-8k", 3840, 2160, 7680, 4320}};
    const tsr_interp interps[] = {TSR_INTERP_LINEAR, TSR_INTERP_NEAREST, TSR_INTERP_CUBIC,
                                  TSR_INTERP_AREA, TSR_INTERP_LANCZOS4};
    const char *inames[] = {"linear", "nearest", "cubic", "area", "lanczos4"};
    const char *cv = getenv("TSR_WB_CN");
    const int cn = cv && atoi(cv) >= 1 && atoi(cv) <= 4 ? atoi(cv) : 3;
    std::vector<int> knobs;
    const char *kv = getenv("TSR_WB_VARIANTS");
    for (const char *q = kv ? kv : "12,6"; *q;) {
        knobs.push_back(atoi(q));
        while (*q && *q != ',')
            q++;
        q += *q == ',';
    }
    printf("\nbreakdown of the library call (u8 %d-channel; A host plan build, B call without "
           "plan build, C kernel alone, V=n kernel in variant n's shapes; GB/s and of-copy from C "
           "over "
           "source+output bytes)\n| case | interp | path | A plan us | B upload+kernel us | "
           "C kernel us | C spread | C GB/s | C of copy |",
           cn);
    for (int k : knobs)
        printf(" V=%d us |", k);
    printf(" exact |\n|---|---|---|---|---|---|---|---|---|");
    for (size_t k = 0; k < knobs.size(); k++)
        printf("---|");
    printf("---|\n");
    for (const bcase &c : cases) {
        size_t srow = (size_t)c.sw * cn, drow = (size_t)c.dw * cn;
        size_t sbytes = srow * c.sh, dbytes = drow * c.dh;
        int nsets = (int)std::min<size_t>(8, std::max<size_t>(2, 4 * l2 / (sbytes + dbytes) + 1));
        std::vector<uchar> hsrc(sbytes * nsets), want(dbytes), got(dbytes);
        unsigned long long st = 777;
        for (size_t i = 0; i < hsrc.size(); i++) {
            st = st * 6364136223846793005ull + 1442695040888963407ull;
            hsrc[i] = (uchar)((st >> 33) % 255 + 1);
        }
        uchar *dsrc, *ddst;
        CK(cudaMalloc(&dsrc, sbytes * nsets));
        CK(cudaMalloc(&ddst, dbytes * nsets));
        CK(cudaMemcpy(dsrc, hsrc.data(), sbytes * nsets, cudaMemcpyHostToDevice));
        for (int ii = 0; ii < (int)(sizeof interps / sizeof interps[0]); ii++) {
            tsr_image is = {c.sw, c.sh, cn, TSR_U8, srow, hsrc.data(), TSR_MEMORY_HOST};
            tsr_image iw = {c.dw, c.dh, cn, TSR_U8, drow, want.data(), TSR_MEMORY_HOST};
            tsr_resize_options ro;
            tsr_resize_options_init(&ro);
            ro.interp = interps[ii];
            if (tsr_resize(ref, &is, &iw, &ro) != TSR_OK)
                exit(1);
            std::vector<double> ta;
            tsr__resize_plan plan;
            for (int i = 0; i < repeats; i++) {
                timespec a, b;
                clock_gettime(CLOCK_MONOTONIC, &a);
                if (tsr__resize_plan_build(ref, &plan, c.sw, c.sh, c.dw, c.dh, cn, TSR_U8,
                                           interps[ii], (double)c.dw / c.sw,
                                           (double)c.dh / c.sh) != TSR_OK)
                    exit(1);
                clock_gettime(CLOCK_MONOTONIC, &b);
                ta.push_back((b.tv_sec - a.tv_sec) * 1e6 + (b.tv_nsec - a.tv_nsec) * 1e-3);
                if (i + 1 < repeats)
                    tsr__resize_plan_free(ref, &plan);
            }
            rk_params p;
            size_t tb = tsr__resize_gpu_params(&plan, srow, drow, &p);
            std::vector<uchar> htab(tb);
            for (int t = 0; t < TSR__RT_COUNT; t++)
                if (plan.table_bytes[t])
                    memcpy(htab.data() + p.off[t], plan.table[t], plan.table_bytes[t]);
            uchar *dtab;
            CK(cudaMalloc(&dtab, tb));
            CK(cudaMemcpy(dtab, htab.data(), tb, cudaMemcpyHostToDevice));
            const int nv = 2 + (int)knobs.size();
            std::vector<double> tmed(nv), tlo(nv), thi(nv);
            int bad = 0;
            for (int v = 0; v < nv; v++) {
                auto run = [&](int k) {
                    const uchar *S = dsrc + (size_t)(k % nsets) * sbytes;
                    uchar *D = ddst + (size_t)(k % nsets) * dbytes;
                    tsr_status r;
                    if (v == 0) {
                        tsr_image a = {c.sw, c.sh, cn, TSR_U8, srow, (void *)S, TSR_MEMORY_CUDA};
                        tsr_image b = {c.dw, c.dh, cn, TSR_U8, drow, D, TSR_MEMORY_CUDA};
                        r = tsr__resize_cuda(lib, &plan, &a, &b);
                    } else {
                        const tsr__resize_cuda_tuning tu = tuning_of(v >= 2 ? knobs[v - 2] : 0);
                        r = tsr__resize_cuda_launch(lib, &plan, S, srow, D, drow, dtab, stream,
                                                    &tu);
                    }
                    if (r != TSR_OK) {
                        fprintf(stderr, "library: %s\n", tsr_ctx_last_error(lib));
                        exit(1);
                    }
                };
                CK(cudaMemset(ddst, 0xa5, dbytes));
                run(0);
                CK(cudaStreamSynchronize(stream));
                CK(cudaMemcpy(got.data(), ddst, dbytes, cudaMemcpyDeviceToHost));
                bad += memcmp(got.data(), want.data(), dbytes) != 0;
                tmed[v] = time_launch(stream, repeats, run, &tlo[v], &thi[v]);
            }
            double alo, ahi, amed = median(ta, &alo, &ahi);
            double bytes = (double)sbytes + dbytes;
            printf("| %s | %s | %s | %.1f | %.1f | %.1f | %.1f-%.1f | %.0f | %.2f |", c.name,
                   inames[ii], tsr__resize_path_name(plan.path), amed, tmed[0], tmed[1], tlo[1],
                   thi[1], bytes / (tmed[1] * 1e3), bytes / (tmed[1] * 1e3) / copy_gbs);
            for (int v = 2; v < nv; v++)
                printf(" %.1f |", tmed[v]);
            printf(" %s |\n", bad ? "FAIL" : "yes");
            fflush(stdout);
            cudaFree(dtab);
            tsr__resize_plan_free(ref, &plan);
        }
        cudaFree(dsrc);
        cudaFree(ddst);
    }
}

/* The host tables of cw_cubic (resize_workbench_cubic.cuh) from a u8 cubic plan: per output
 * column the window start and folded coefficients (the clamped taps' coefficients summed per
 * window pixel, as k_walk_u8 folds them on the device), per output row the first tap row and
 * the coefficients in the three forms the kernel uses. */
static void cw_tables(const tsr__resize_plan *pl, std::vector<cw_col> &cols,
                      std::vector<cw_row> &rows)
{
    const int *xofs = (const int *)pl->table[TSR__RT_XOFS];
    const int *yofs = (const int *)pl->table[TSR__RT_YOFS];
    const short *xc = (const short *)pl->table[TSR__RT_XCOEF];
    const short *yc = (const short *)pl->table[TSR__RT_YCOEF];
    const int sw = pl->src_w;
    cols.assign(pl->dst_w, cw_col());
    for (int dx = 0; dx < pl->dst_w; dx++) {
        const int sx = xofs[dx], hi = sw > 4 ? sw - 4 : 0;
        const int s0 = std::min(std::max(sx - 1, 0), hi);
        int fm[4] = {0, 0, 0, 0};
        for (int k = 0; k < 4; k++)
            fm[std::min(std::max(sx - 1 + k, 0), sw - 1) - s0] += xc[dx * 4 + k];
        cols[dx].s0 = s0;
        cols[dx].f01 = (uint)(ushort)fm[0] | (uint)fm[1] << 16;
        cols[dx].f23 = (uint)(ushort)fm[2] | (uint)fm[3] << 16;
    }
    rows.assign(pl->dst_h, cw_row());
    for (int dy = 0; dy < pl->dst_h; dy++) {
        cw_row &r = rows[dy];
        const short *b = yc + (size_t)dy * 4;
        r.top = yofs[dy] - 1;
        r.b = make_int4(b[0], b[1], b[2], b[3]);
        r.bf = make_float4(b[0] / 4194304.f, b[1] / 4194304.f, b[2] / 4194304.f,
                           b[3] / 4194304.f); /* exact: a power of 2 */
        r.cb = make_float4(-3.f * b[0], -3.f * b[1], -3.f * b[2], -3.f * b[3]); /* exact */
    }
}

/* cw_cubic's launch shape for tiles of tp output pixels: the tallest tile (th <= CW_THMAX rows)
 * whose staged quads fit in CW_SMEM bytes while the grid keeps >= 8 blocks per SM; 0 when even
 * one row does not fit or YOFS decreases (never with OpenCV's tables). */
enum { CW_SMEM = 40 * 1024 };
static int cw_geometry(const tsr__resize_plan *pl, int tp, int sms, int *th_out, size_t *smem,
                       dim3 *grid)
{
    const int *yofs = (const int *)pl->table[TSR__RT_YOFS];
    const int gx = (pl->dst_w + tp - 1) / tp, sh = pl->src_h;
    for (int dy = 1; dy < pl->dst_h; dy++)
        if (yofs[dy] < yofs[dy - 1])
            return 0;
    int nq = 0;
    for (int b = 0; b < gx; b++) {
        const int p0 = b * tp, p1 = std::min(p0 + tp, pl->dst_w) - 1;
        const int sb =
            (int)((size_t)std::min(std::max(((const int *)pl->table[TSR__RT_XOFS])[p0] - 1, 0),
                                   std::max(pl->src_w - 4, 0)) *
                  3) &
            ~3;
        const int sx1 = ((const int *)pl->table[TSR__RT_XOFS])[p1];
        const int s1 = std::min(std::max(sx1 - 1, 0), std::max(pl->src_w - 4, 0));
        nq = std::max(nq, ((s1 * 3 + 3 - sb) + 3) & ~3);
    }
    for (int th = CW_THMAX; th >= 1; th /= 2) {
        const int gy = (pl->dst_h + th - 1) / th;
        int nr = 0;
        for (int b = 0; b < gy; b++) {
            const int d0 = b * th, d1 = std::min(d0 + th, pl->dst_h);
            const int lo = std::min(std::max(yofs[d0] - 1, 0), sh - 1);
            nr = std::max(nr, std::min(std::max(yofs[d1 - 1] + 2, 0), sh - 1) - lo + 1);
        }
        const size_t bytes = (size_t)nr * nq * 4;
        if (bytes <= CW_SMEM && gy <= 65535 && (th == 1 || (size_t)gx * gy >= (size_t)sms * 8)) {
            *th_out = th, *smem = bytes, *grid = dim3(gx, gy);
            return 1;
        }
    }
    return 0;
}

/* u8 3-channel cubic: the library's kernel (tsr__resize_cuda_launch in the library's shapes)
 * and the cw_cubic variants, each checked against the reference backend (output poisoned
 * first) and timed in the same run; floor = source + output bytes at the copy rate. Returns the
 * number of inexact runs. */
static int cubic_variants(tsr_ctx *ref, tsr_ctx *lib, cudaStream_t stream, int repeats,
                          double copy_gbs, size_t l2, int sms)
{
    const struct {
        const char *name;
        int sw, sh, dw, dh;
    } cases[] = {{"4k-1080p", 3840, 2160, 1920, 1080},
                 {"1080p-720p", 1920, 1080, 1280, 720},
                 {"1080p-4k", 1920, 1080, 3840, 2160},
                 {"8k-4k", 7680, 4320, 3840, 2160},
                 {"4k-8k", 3840, 2160, 7680, 4320}};
    const int cn = 3;
    const char *vname[] = {"library", "cw 4px x 64 thr", "cw 4px x 32 thr",
                           "cw 4px x 64 thr s16x2 clamp"};
    enum { NV = 4 };
    printf("\nu8 3-channel cubic: library kernel against cw_cubic variants (kernel alone, events, "
           "median us; exact = bit for bit against the reference backend)\n| case | floor us |");
    for (int v = 0; v < NV; v++)
        printf(" %s us | exact | x floor |", vname[v]);
    printf(" cw shapes (th, smem KB) |\n|---|---|");
    for (int v = 0; v < NV; v++)
        printf("---|---|---|");
    printf("---|\n");
    int fails = 0;
    for (const auto &c : cases) {
        const size_t srow = (size_t)c.sw * cn, drow = (size_t)c.dw * cn;
        const size_t sbytes = srow * c.sh, dbytes = drow * c.dh;
        const int nsets =
            (int)std::min<size_t>(8, std::max<size_t>(2, 4 * l2 / (sbytes + dbytes) + 1));
        std::vector<uchar> hsrc(sbytes * nsets), want(dbytes), got(dbytes);
        unsigned long long st = 4242;
        for (size_t i = 0; i < hsrc.size(); i++) {
            st = st * 6364136223846793005ull + 1442695040888963407ull;
            /* every value, extremes often: 0 and 255 runs drive the sums to their bounds */
            const unsigned r = (unsigned)(st >> 33);
            hsrc[i] = (uchar)((r & 0x300) == 0 ? ((r >> 10) & 1) * 255 : r & 0xff);
        }
        tsr_image is = {c.sw, c.sh, cn, TSR_U8, srow, hsrc.data(), TSR_MEMORY_HOST};
        tsr_image iw = {c.dw, c.dh, cn, TSR_U8, drow, want.data(), TSR_MEMORY_HOST};
        tsr_resize_options ro;
        tsr_resize_options_init(&ro);
        ro.interp = TSR_INTERP_CUBIC;
        tsr__resize_plan plan;
        if (tsr_resize(ref, &is, &iw, &ro) != TSR_OK ||
            tsr__resize_plan_build(ref, &plan, c.sw, c.sh, c.dw, c.dh, cn, TSR_U8, TSR_INTERP_CUBIC,
                                   (double)c.dw / c.sw, (double)c.dh / c.sh) != TSR_OK ||
            plan.path != TSR__RESIZE_SEPARABLE || plan.ksize != 4)
            exit(1);
        rk_params p;
        const size_t tb = tsr__resize_gpu_params(&plan, srow, drow, &p);
        std::vector<uchar> htab(tb);
        for (int t = 0; t < TSR__RT_COUNT; t++)
            if (plan.table_bytes[t])
                memcpy(htab.data() + p.off[t], plan.table[t], plan.table_bytes[t]);
        std::vector<cw_col> hcols;
        std::vector<cw_row> hrows;
        cw_tables(&plan, hcols, hrows);
        uchar *dsrc, *ddst, *dtab;
        cw_col *dcols;
        cw_row *drows;
        CK(cudaMalloc(&dsrc, sbytes * nsets));
        CK(cudaMalloc(&ddst, dbytes * nsets));
        CK(cudaMalloc(&dtab, tb));
        CK(cudaMalloc(&dcols, hcols.size() * sizeof(cw_col)));
        CK(cudaMalloc(&drows, hrows.size() * sizeof(cw_row)));
        CK(cudaMemcpy(dsrc, hsrc.data(), sbytes * nsets, cudaMemcpyHostToDevice));
        CK(cudaMemcpy(dtab, htab.data(), tb, cudaMemcpyHostToDevice));
        CK(cudaMemcpy(dcols, hcols.data(), hcols.size() * sizeof(cw_col), cudaMemcpyHostToDevice));
        CK(cudaMemcpy(drows, hrows.data(), hrows.size() * sizeof(cw_row), cudaMemcpyHostToDevice));
        const double floor_us = (double)(sbytes + dbytes) / (copy_gbs * 1e3);
        printf("| %s | %.1f |", c.name, floor_us);
        char shapes[128] = "";
        for (int v = 0; v < NV; v++) {
            const int nt = v == 2 ? 32 : 64, tp = 4 * nt;
            int th = 0;
            size_t smem = 0;
            dim3 grid;
            if (v > 0 && !cw_geometry(&plan, tp, sms, &th, &smem, &grid)) {
                printf(" - | - | - |");
                continue;
            }
            if (v > 0) {
                const size_t k = strlen(shapes);
                snprintf(shapes + k, sizeof shapes - k, "%s%d, %.1f", k ? "; " : "", th,
                         smem / 1024.0);
            }
            auto run = [&](int k) {
                const uchar *S = dsrc + (size_t)(k % nsets) * sbytes;
                uchar *D = ddst + (size_t)(k % nsets) * dbytes;
                const int al4 = (((size_t)S | srow) & 3) == 0, vst = (((size_t)D | drow) & 3) == 0;
                if (v == 0) {
                    if (tsr__resize_cuda_launch(lib, &plan, S, srow, D, drow, dtab, stream, NULL) !=
                        TSR_OK) {
                        fprintf(stderr, "library: %s\n", tsr_ctx_last_error(lib));
                        exit(1);
                    }
                } else if (v == 1) {
                    cw_cubic<4, 64, 0><<<grid, 64, smem, stream>>>(S, D, dcols, drows, c.sw, c.sh,
                                                                   c.dw, c.dh, (int)srow, (int)drow,
                                                                   plan.vec_end, th, al4, vst);
                } else if (v == 2) {
                    cw_cubic<4, 32, 0><<<grid, 32, smem, stream>>>(S, D, dcols, drows, c.sw, c.sh,
                                                                   c.dw, c.dh, (int)srow, (int)drow,
                                                                   plan.vec_end, th, al4, vst);
                } else {
                    cw_cubic<4, 64, 1><<<grid, 64, smem, stream>>>(S, D, dcols, drows, c.sw, c.sh,
                                                                   c.dw, c.dh, (int)srow, (int)drow,
                                                                   plan.vec_end, th, al4, vst);
                }
            };
            CK(cudaMemset(ddst, 0xa5, dbytes));
            run(0);
            CK(cudaGetLastError());
            CK(cudaStreamSynchronize(stream));
            CK(cudaMemcpy(got.data(), ddst, dbytes, cudaMemcpyDeviceToHost));
            size_t ndiff = 0;
            for (size_t i = 0; i < dbytes; i++)
                ndiff += got[i] != want[i];
            fails += ndiff != 0;
            const double us = time_launch(stream, repeats, run);
            char ex[48];
            snprintf(ex, sizeof ex, ndiff ? "FAIL (%zu bytes)" : "PASS", ndiff);
            printf(" %.1f | %s | %.2f |", us, ex, us / floor_us);
        }
        printf(" %s |\n", shapes);
        fflush(stdout);
        cudaFree(dsrc);
        cudaFree(ddst);
        cudaFree(dtab);
        cudaFree(dcols);
        cudaFree(drows);
        tsr__resize_plan_free(ref, &plan);
    }
    printf("cubic variants: %s\n", fails ? "FAIL" : "all exact");
    return fails;
}

int main(int argc, char **argv)
{
    int repeats = argc > 1 ? atoi(argv[1]) : 30;
    const wcase cases[] = {{"1080p-720p", 1920, 1080, 1280, 720},
                           {"1080p-4k", 1920, 1080, 3840, 2160},
                           {"4k-8k", 3840, 2160, 7680, 4320}};
    const int cn = 3;
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    cudaStream_t stream;
    CK(cudaStreamCreate(&stream));
    printf("resize workbench (CUDA): %s, %d SMs, L2 %d MB; u8 3-channel linear\n", prop.name,
           prop.multiProcessorCount, prop.l2CacheSize >> 20);

    /* 1: copy bandwidth, 1 GiB */
    double copy_gbs;
    {
        size_t bytes = (size_t)1 << 30;
        int4 *a, *b;
        CK(cudaMalloc(&a, bytes));
        CK(cudaMalloc(&b, bytes));
        CK(cudaMemset(a, 1, bytes));
        double lo, hi,
            med = time_launch(
                stream, repeats,
                [&](int) {
                    v1_copy<<<prop.multiProcessorCount * 8, 512, 0, stream>>>(a, b, bytes / 16);
                },
                &lo, &hi);
        copy_gbs = 2.0 * bytes / (med * 1e3);
        printf("1 copy kernel: 1 GiB in %.1f us (%.1f-%.1f): %.0f GB/s read+write\n", med, lo, hi,
               copy_gbs);
        cudaFree(a);
        cudaFree(b);
    }

    const int only_cubic = argc > 2 && !strcmp(argv[2], "cubic");
    if (!only_cubic) {
        mix_bandwidth(stream, repeats, copy_gbs, prop.multiProcessorCount);
        upscale_floors(stream, repeats, copy_gbs);
    }

    tsr_ctx_options o;
    tsr_ctx_options_init(&o);
    o.backend = TSR_BACKEND_REFERENCE;
    tsr_ctx *ref;
    if (tsr_ctx_create(&o, &ref) != TSR_OK)
        return 1;
    o.backend = TSR_BACKEND_CUDA;
    o.cuda_stream = stream;
    tsr_ctx *lib;
    if (tsr_ctx_create(&o, &lib) != TSR_OK) {
        fprintf(stderr, "no CUDA backend: %s\n", tsr_ctx_last_error(lib));
        return 1;
    }
    if (only_cubic) {
        const int fails = cubic_variants(ref, lib, stream, repeats, copy_gbs,
                                         (size_t)prop.l2CacheSize, prop.multiProcessorCount);
        tsr_ctx_destroy(lib);
        tsr_ctx_destroy(ref);
        return fails ? 1 : 0;
    }

    printf("\n| case | variant | exact | us (median) | spread | GB/s | of copy |\n"
           "|---|---|---|---|---|---|---|\n");
    for (const wcase &c : cases) {
        size_t srow = (size_t)c.sw * cn, drow = (size_t)c.dw * cn;
        size_t sbytes = srow * c.sh, dbytes = drow * c.dh;
        int nsets = (int)std::min<size_t>(
            12, std::max<size_t>(2, (4 * (size_t)prop.l2CacheSize) / (sbytes + dbytes) + 1));
        std::vector<uchar> hsrc(sbytes * nsets), want(dbytes), got(dbytes);
        unsigned long long s = 12345;
        for (size_t i = 0; i < hsrc.size(); i++) {
            s = s * 6364136223846793005ull + 1442695040888963407ull;
            hsrc[i] = (uchar)((s >> 33) % 255 + 1); /* never zero */
        }
        /* the answer for set 0, from the library's reference backend */
        tsr_image is = {c.sw, c.sh, cn, TSR_U8, srow, hsrc.data(), TSR_MEMORY_HOST};
        tsr_image iw = {c.dw, c.dh, cn, TSR_U8, drow, want.data(), TSR_MEMORY_HOST};
        tsr_resize_options ro;
        tsr_resize_options_init(&ro);
        if (tsr_resize(ref, &is, &iw, &ro) != TSR_OK)
            return 1;
        tsr__resize_plan plan;
        if (tsr__resize_plan_build(ref, &plan, c.sw, c.sh, c.dw, c.dh, cn, TSR_U8,
                                   TSR_INTERP_LINEAR, (double)c.dw / c.sw,
                                   (double)c.dh / c.sh) != TSR_OK ||
            plan.path != TSR__RESIZE_SEPARABLE)
            return 1;
        {
            /* host cost inside every library call: building the plan (tables) */
            std::vector<double> hb;
            for (int i = 0; i < 30; i++) {
                tsr__resize_plan q;
                timespec a, b;
                clock_gettime(CLOCK_MONOTONIC, &a);
                if (tsr__resize_plan_build(ref, &q, c.sw, c.sh, c.dw, c.dh, cn, TSR_U8,
                                           TSR_INTERP_LINEAR, (double)c.dw / c.sw,
                                           (double)c.dh / c.sh) != TSR_OK)
                    return 1;
                clock_gettime(CLOCK_MONOTONIC, &b);
                hb.push_back((b.tv_sec - a.tv_sec) * 1e6 + (b.tv_nsec - a.tv_nsec) * 1e-3);
                tsr__resize_plan_free(ref, &q);
            }
            double lo, hi, med = median(hb, &lo, &hi);
            printf("| %s | 0 host plan build (in every call) | - | %.1f | %.1f-%.1f | - | - |\n",
                   c.name, med, lo, hi);
        }
        rk_params p;
        size_t tb = tsr__resize_gpu_params(&plan, srow, drow, &p);
        std::vector<uchar> htab(tb);
        for (int t = 0; t < TSR__RT_COUNT; t++)
            if (plan.table_bytes[t])
                memcpy(htab.data() + p.off[t], plan.table[t], plan.table_bytes[t]);
        uchar *dsrc, *ddst, *dtab;
        CK(cudaMalloc(&dsrc, sbytes * nsets));
        CK(cudaMalloc(&ddst, dbytes * nsets));
        CK(cudaMalloc(&dtab, tb));
        CK(cudaMemcpy(dsrc, hsrc.data(), sbytes * nsets, cudaMemcpyHostToDevice));
        CK(cudaMemcpy(dtab, htab.data(), tb, cudaMemcpyHostToDevice));
        double bytes = (double)sbytes + dbytes;

        /* texture setup (set 0 only: the texture variant is about the arithmetic) */
        uchar4 *s4;
        size_t p4;
        CK(cudaMallocPitch(&s4, &p4, (size_t)c.sw * 4, c.sh));
        {
            uchar4 *tmp;
            CK(cudaMalloc(&tmp, (size_t)c.sw * c.sh * 4));
            pack4<<<dim3((c.sw + 255) / 256, c.sh), 256>>>(dsrc, tmp, c.sw, c.sh);
            CK(cudaMemcpy2D(s4, p4, tmp, (size_t)c.sw * 4, (size_t)c.sw * 4, c.sh,
                            cudaMemcpyDeviceToDevice));
            cudaFree(tmp);
        }
        cudaResourceDesc rd = {};
        rd.resType = cudaResourceTypePitch2D;
        rd.res.pitch2D.devPtr = s4;
        rd.res.pitch2D.desc = cudaCreateChannelDesc<uchar4>();
        rd.res.pitch2D.width = c.sw;
        rd.res.pitch2D.height = c.sh;
        rd.res.pitch2D.pitchInBytes = p4;
        cudaTextureDesc td = {};
        td.addressMode[0] = td.addressMode[1] = cudaAddressModeClamp;
        td.filterMode = cudaFilterModeLinear;
        td.readMode = cudaReadModeNormalizedFloat;
        cudaTextureObject_t tex;
        CK(cudaCreateTextureObject(&tex, &rd, &td, NULL));

        int n = c.dw * cn;
        for (int v = 2; v <= 6; v++) {
            auto launch = [&](int k) {
                const uchar *S = dsrc + (size_t)(k % nsets) * sbytes;
                uchar *D = ddst + (size_t)(k % nsets) * dbytes;
                switch (v) {
                case 2:
                    v2_texture<<<dim3((c.dw + 127) / 128, c.dh), 128, 0, stream>>>(
                        tex, D, c.dw, c.dh, (int)drow, (float)c.sw / c.dw, (float)c.sh / c.dh);
                    break;
                case 3:
                    v3_exact<<<dim3((n + 127) / 128, c.dh), 128, 0, stream>>>(S, D, dtab, p);
                    break;
                case 4:
                    v4_exact4<<<dim3((n / 4 + 128) / 128, c.dh), 128, 0, stream>>>(S, D, dtab, p);
                    break;
                case 5:
                    v5_tiled<<<dim3((n + T5_W - 1) / T5_W, (c.dh + T5_H - 1) / T5_H), T5_W, 0,
                               stream>>>(S, D, dtab, p);
                    break;
                case 6: {
                    tsr_image a = {c.sw, c.sh, cn, TSR_U8, srow, (void *)S, TSR_MEMORY_CUDA};
                    tsr_image b = {c.dw, c.dh, cn, TSR_U8, drow, D, TSR_MEMORY_CUDA};
                    if (tsr_resize(lib, &a, &b, &ro) != TSR_OK) {
                        fprintf(stderr, "library: %s\n", tsr_ctx_last_error(lib));
                        exit(1);
                    }
                    break;
                }
                }
            };
            /* check: set 0 (texture reads set 0 whatever k), output poisoned first */
            CK(cudaMemset(ddst, 0xa5, dbytes));
            launch(0);
            CK(cudaGetLastError());
            CK(cudaStreamSynchronize(stream));
            CK(cudaMemcpy(got.data(), ddst, dbytes, cudaMemcpyDeviceToHost));
            int maxdiff = 0;
            size_t ndiff = 0;
            for (size_t i = 0; i < dbytes; i++) {
                int d = abs((int)got[i] - (int)want[i]);
                maxdiff = std::max(maxdiff, d);
                ndiff += d != 0;
            }
            char exact[64];
            if (v == 2)
                snprintf(exact, sizeof exact, "no: max diff %d, %.1f%% differ", maxdiff,
                         100.0 * ndiff / dbytes);
            else
                snprintf(exact, sizeof exact, maxdiff ? "FAIL (max diff %d)" : "yes", maxdiff);
            double lo, hi, med = time_launch(stream, repeats, launch, &lo, &hi);
            static const char *names[] = {"",
                                          "copy",
                                          "texture (hw bilinear)",
                                          "exact 1/thread",
                                          "exact 4/thread",
                                          "tiled 2D (smem)",
                                          "library"};
            printf("| %s | %d %s | %s | %.1f | %.1f-%.1f | %.0f | %.2f |\n", c.name, v, names[v],
                   exact, med, lo, hi, bytes / (med * 1e3), bytes / (med * 1e3) / copy_gbs);
            fflush(stdout);
        }
        cudaDestroyTextureObject(tex);
        cudaFree(s4);
        cudaFree(dsrc);
        cudaFree(ddst);
        cudaFree(dtab);
        tsr__resize_plan_free(ref, &plan);
    }
    breakdown(ref, lib, stream, repeats, copy_gbs, (size_t)prop.l2CacheSize);
    const int fails = cubic_variants(ref, lib, stream, repeats, copy_gbs, (size_t)prop.l2CacheSize,
                                     prop.multiProcessorCount);
    tsr_ctx_destroy(lib);
    tsr_ctx_destroy(ref);
    return fails ? 1 : 0;
}
