/* Migrate workbench (CUDA): the "lab" knobs of GPU Gems 3 ch. 38 (tile shape, read path, halo,
 * residency) on the library's 3D explicit depth step: one field's step (tsr__mig_explicit_row on
 * an nx x ny slice, 16 Chebyshev terms, so 15 applications of the radius-4 cross X, one launch
 * each, as extrap3_cuda.cu's k3_term) for F frequencies at once, complex float fields.
 *
 *   0 copy        a 16-byte-per-thread copy kernel: the bandwidth floor of the table's "of copy"
 *   1 global      one thread per point reads its cross (17 samples) straight from global
 *                 memory (tsr__mig_x3_point on the slice itself): no shared tile, the halo and
 *                 the neighbours' reads left to L1 / L2
 *   2 tile 32x8   the library's scheme: a 32 x 8 core in a 40 x 16 shared tile, 32 x 8 threads,
 *                 one load sweep of the tile (2.5 samples a thread), one point a thread
 *   3 tile 48x32  the chapter's: a 48 x 32 tile (a 40 x 24 core) with 48 x 8 threads; the load
 *                 mapping gives each thread 4 rows of one column (coalesced 48-sample rows), the
 *                 compute mapping sweeps the core's 960 points (2.5 a thread): two mappings
 *   4 read-only   variant 1 with every sample read through the read-only data (texture) path,
 *                 __ldg, in one 8-byte load, into a 9 x 9 cross window in registers
 *   5 no halo     variant 2 with the halo loaded as zeros: each tile ignores its neighbours'
 *                 points. Its error against the correct step is the table's last column (max
 *                 and RMS relative to the reference's max and RMS, after 1 and after NSTEPS
 *                 steps): the chapter's point that the halo is necessary
 *   6 per-step copies  variant 2 with the field copied from the host before and the result
 *                 back after every step (cudaMemcpy, page-locked host memory: the best case),
 *                 against the library's resident fields (variant 2's time)
 *   7 global, 8-byte loads  variant 4's window with plain loads: variant 1 reads tsr__cf (4-byte
 *                 aligned) as two 4-byte loads (as the library's tile loads do), 4 and 7 as one
 *                 8-byte load, so 1 against 7 is the load width and 7 against 4 the path
 *   8 two terms per launch  the library's k3_pair with one field: term 1 as variant 2, then
 *                 terms (2, 3), (4, 5), .. (14, 15) one launch each, 32 x 16 threads: T_{n-1}
 *                 loaded over the core with an 8-point halo (48 x 32, 8-byte loads), T_n made in
 *                 shared memory over the core with a 4-point halo (40 x 24; 0 outside the slice),
 *                 then T_{n+1} at the core; four term slices in a ring (tsr__mwb_pair_step_bytes:
 *                 380 bytes per point and frequency instead of 640; its GB/s and "of copy" count
 *                 its own bytes, so compare its ms with variant 2's)
 * Index arithmetic: migrate_tiles_hd.h (tested on the CPU by tests/unit/test_migrate_tiles.c);
 * per-point arithmetic: extrap_hd.h, as the library's kernels, built with --fmad=false, so every
 * correct variant must equal the CPU reference step computed here (tsr__mig_explicit_row per
 * frequency) bit for bit, as test_migrate3d_cuda_gpu requires of the library's 3D traces; a
 * difference is FAIL and exit 1. Outputs are poisoned (NaN) before each run.
 *
 * Bytes per step: tsr__mwb_step_bytes (640 per point and frequency: each sample once; the halo's
 * re-reads counted as cache hits), so GB/s is effective bandwidth. Times: CUDA events around one
 * whole step (15 launches), median of 21 steps (3 in --small), each from the same input (restored
 * outside the timing). The coefficient table, slowness, taper and w dz are random but shaped as a
 * plan's (|sum c_n| < 1: the steps stay bounded). The CPU reference takes ~10 s at full size.
 * usage: migrate_workbench_cuda [--small] (--small: a 72 x 56 slice, 4 frequencies, 3 repeats,
 * 3 steps: the smoke test; exit 77 without a device). */
#include <cuda_runtime.h>

#include "migrate_tiles_hd.h"

#include <math.h>
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

enum { TERMS = 16, NTABLE = 64, NSTEPS = 10, COPY_THREADS = 512 };

static const float d2_filter[5] = {-205.0f / 72.0f, 8.0f / 5.0f, -1.0f / 5.0f, 8.0f / 315.0f,
                                   -1.0f / 560.0f};

/* What every kernel reads besides the fields (device pointers; st.table the device's). */
struct wb_dev {
    tsr__mig_step st;
    const float *slow, *taper, *wdz;
};

/* Term n at slice point c of frequency blockIdx.y (base: its slice), x = (X T_{n-1})(c). The taper
 * is read by the last term only (the byte count's). */
__device__ static void term_at_point(const wb_dev &d, int32_t n, int conj, size_t base, size_t c,
                                     tsr__cf x, tsr__cf own, tsr__cf *out, tsr__cf *sum)
{
    int32_t j;
    float a;
    tsr__mig_lookup(d.wdz[blockIdx.y] * d.slow[c], d.st.inv_dp, d.st.ntable, &j, &a);
    const float t = n + 1 == d.st.terms ? d.taper[c] : 1.0f;
    tsr__mwb_term_point(&d.st, n, conj, j, a, t, x, own, out, out, sum, base + c);
}

/* Variants 2, 3, 5: a CW x CH core per block of TX x TY threads (grid: tiles, frequencies). */
template <int CW, int CH, int TX, int TY, int HALO>
__global__ static void __launch_bounds__(TX *TY)
    k_tile_term(wb_dev d, int32_t n, int conj, const tsr__cf *__restrict__ prev1, tsr__cf *out,
                tsr__cf *sum)
{
    __shared__ tsr__cf tile[(CW + 2 * TSR__MWB_R) * (CH + 2 * TSR__MWB_R)];
    const tsr__mwb_tile t = tsr__mwb_tile_make(CW, CH, HALO);
    const int32_t nx = d.st.nx, ny = d.st.ny, tid = (int32_t)(threadIdx.y * TX + threadIdx.x);
    const size_t base = (size_t)blockIdx.y * (size_t)nx * (size_t)ny;
    int32_t x0, y0, cx, cy, ix, iy;
    tsr__mwb_origin(&t, nx, (int32_t)blockIdx.x, &x0, &y0);
    for (int32_t k = tid; k < t.tw * t.th; k += TX * TY)
        tile[k] = tsr__mwb_load(&t, prev1 + base, nx, ny, x0, y0, k);
    __syncthreads();
    for (int32_t k = tid; k < CW * CH; k += TX * TY)
        if (tsr__mwb_item(&t, nx, ny, x0, y0, k, &cx, &cy, &ix, &iy))
            term_at_point(d, n, conj, base, (size_t)iy * (size_t)nx + (size_t)ix,
                          tsr__mwb_x_tile(&t, tile, cx, cy, &d.st), tsr__mwb_own(&t, tile, cx, cy),
                          out, sum);
}

/* Variants 1 (READ 0), 4 (READ 1) and 7 (READ 2): one thread per point, blocks of 32 x 8
 * points. 1 runs the CPU's tsr__mig_x3_point on the slice (two 4-byte loads per sample), 4 and 7
 * gather the cross in 8-byte loads, 4 through the read-only path (__ldg), 7 as plain loads: 1
 * against 7 is the load width, 7 against 4 the path. prev1 is not __restrict__, so that plain
 * loads stay plain (a const __restrict__ pointer lets the compiler take the read-only path). */
template <int READ>
__global__ static void __launch_bounds__(256)
    k_point_term(wb_dev d, int32_t n, int conj, const tsr__cf *prev1, tsr__cf *out, tsr__cf *sum)
{
    const tsr__mwb_tile t = tsr__mwb_tile_make(32, 8, 1);
    const int32_t nx = d.st.nx, ny = d.st.ny;
    const size_t base = (size_t)blockIdx.y * (size_t)nx * (size_t)ny;
    int32_t x0, y0, cx, cy, ix, iy;
    tsr__mwb_origin(&t, nx, (int32_t)blockIdx.x, &x0, &y0);
    if (!tsr__mwb_item(&t, nx, ny, x0, y0, (int32_t)(threadIdx.y * 32 + threadIdx.x), &cx, &cy, &ix,
                       &iy))
        return;
    const tsr__cf *u = prev1 + base;
    const size_t c = (size_t)iy * (size_t)nx + (size_t)ix;
    const tsr__cf zero = tsr__cf_make(0.0f, 0.0f);
    if (READ)
        term_at_point(d, n, conj, base, c, tsr__mwb_x_cross(u, nx, ny, ix, iy, &d.st, READ == 1),
                      n == 1 ? tsr__mwb_read(u + c, READ == 1) : zero, out, sum);
    else
        term_at_point(d, n, conj, base, c, tsr__mwb_x_global(u, nx, ny, ix, iy, &d.st),
                      n == 1 ? u[c] : zero, out, sum);
}

/* k_pair_term's (as the library's k3_pair) blocks per SM for its launch bounds: 4 of 512 threads
 * (2,048 threads, full occupancy at 32 registers); 3 where an SM holds 1,536 threads (sm_86, sm_87,
 * sm_89). */
#if defined(__CUDA_ARCH__) && (__CUDA_ARCH__ == 860 || __CUDA_ARCH__ == 870 || __CUDA_ARCH__ == 890)
#define PAIR_MIN_BLOCKS 3
#else
#define PAIR_MIN_BLOCKS 4
#endif

/* Variant 8: terms n and n + 1 (the library's k3_pair, one field; grid: 32 x 16 cores,
 * frequencies). T_n at a point inside the slice is the one-term kernels' T_n there (the same tile
 * values within 4 points, the same operations), 0 outside, as their tiles hold. */
enum { PCW = 32, PCH = 16, PW = PCW + 4 * TSR__MWB_R, PH = PCH + 4 * TSR__MWB_R };
enum { MW = PCW + 2 * TSR__MWB_R, MH = PCH + 2 * TSR__MWB_R };

__global__ static void __launch_bounds__(PCW *PCH, PAIR_MIN_BLOCKS)
    k_pair_term(wb_dev d, int32_t n, int conj, const tsr__cf *prev1, const tsr__cf *prev2,
                tsr__cf *out, tsr__cf *out1, tsr__cf *sum)
{
    __shared__ __align__(16) tsr__cf prev[PW * PH];
    __shared__ __align__(16) tsr__cf mid[MW * MH];
    const tsr__mwb_tile t = tsr__mwb_tile_make(PCW, PCH, 1);
    const int32_t nx = d.st.nx, ny = d.st.ny, tid = (int32_t)(threadIdx.y * PCW + threadIdx.x);
    const size_t base = (size_t)blockIdx.y * (size_t)nx * (size_t)ny;
    const tsr__cf zero = tsr__cf_make(0.0f, 0.0f);
    int32_t x0, y0;
    tsr__mwb_origin(&t, nx, (int32_t)blockIdx.x, &x0, &y0);
    for (int32_t k = tid; k < PW * PH; k += PCW * PCH) {
        const int32_t x = x0 - 2 * TSR__MWB_R + k % PW, y = y0 - 2 * TSR__MWB_R + k / PW;
        prev[k] = x >= 0 && x < nx && y >= 0 && y < ny
                      ? tsr__mwb_read(prev1 + base + (size_t)y * (size_t)nx + (size_t)x, 0)
                      : zero;
    }
    __syncthreads();
    for (int32_t m = tid; m < MW * MH; m += PCW * PCH) {
        const int32_t mx = m % MW, my = m / MW, x = x0 - TSR__MWB_R + mx, y = y0 - TSR__MWB_R + my;
        mid[m] = x >= 0 && x < nx && y >= 0 && y < ny
                     ? tsr__mig_cheb_next(
                           tsr__mig_x3_point(prev, mx + TSR__MWB_R, my + TSR__MWB_R, PW, PH,
                                             d.st.d2, d.st.xscale, d.st.xscale_y, 1),
                           tsr__mwb_read(prev2 + base + (size_t)y * (size_t)nx + (size_t)x, 0))
                     : zero;
    }
    __syncthreads();
    const int32_t cx = (int32_t)threadIdx.x, cy = (int32_t)threadIdx.y, ix = x0 + cx, iy = y0 + cy;
    if (ix >= nx || iy >= ny)
        return;
    const size_t c = (size_t)iy * (size_t)nx + (size_t)ix, o = base + c;
    int32_t j;
    float a;
    tsr__mig_lookup(d.wdz[blockIdx.y] * d.slow[c], d.st.inv_dp, d.st.ntable, &j, &a);
    const tsr__cf tn = mid[(cy + TSR__MWB_R) * MW + cx + TSR__MWB_R];
    const tsr__cf x = tsr__mig_x3_point(mid, cx + TSR__MWB_R, cy + TSR__MWB_R, MW, MH, d.st.d2,
                                        d.st.xscale, d.st.xscale_y, 1);
    const tsr__cf tn1 =
        tsr__mig_cheb_next(x, prev[(cy + 2 * TSR__MWB_R) * PW + cx + 2 * TSR__MWB_R]);
    tsr__cf s = tsr__cf_madd(tsr__mwb_read(sum + o, 0),
                             tsr__mig_coef(d.st.table, d.st.terms, j, a, n), tn, conj);
    s = tsr__cf_madd(s, tsr__mig_coef(d.st.table, d.st.terms, j, a, n + 1), tn1, conj);
    if (n + 2 == d.st.terms) {
        sum[o] = tsr__cf_scale(d.taper[c], s);
    } else {
        out[o] = tn;
        out1[o] = tn1;
        sum[o] = s;
    }
}

__global__ static void k_copy(const float4 *__restrict__ a, float4 *__restrict__ b, size_t n)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        b[i] = a[i];
}

enum {
    V_GLOBAL = 1,
    V_TILE32,
    V_TILE48,
    V_READ_ONLY,
    V_NO_HALO,
    V_COPIES,
    V_WIDE,
    V_PAIR,
    NVARIANTS
};

static const char *variant_name[NVARIANTS] = {"copy kernel",
                                              "global reads",
                                              "tile 32x8 + halo (library until k3_pair)",
                                              "tile 48x32, 48x8 threads",
                                              "read-only path (__ldg)",
                                              "tile 32x8, no halo",
                                              "tile 32x8 + per-step copies",
                                              "global, 8-byte loads",
                                              "two terms per launch (library)"};

/* The fields of a run: T_0 / even terms (u), odd terms, the sum (the step's result); variant 8's
 * ring of term slices is {odd, t2, t3, u} (T_n, n >= 1, in slot (n - 1) % 4). */
struct fields {
    tsr__cf *u, *odd, *sum, *t2, *t3;
};

static_assert(TERMS % 2 == 0, "variant 8 pairs terms 2 .. TERMS - 1");

/* Variant 8's step: term 1 as variant 2, then the pairs. */
static void step_pairs(const wb_dev &d, int32_t nf, int conj, const fields &f, cudaStream_t s)
{
    const int32_t nx = d.st.nx, ny = d.st.ny;
    tsr__cf *const ring[4] = {f.odd, f.t2, f.t3, f.u};
    const tsr__mwb_tile t32 = tsr__mwb_tile_make(32, 8, 1), tp = tsr__mwb_tile_make(PCW, PCH, 1);
    const dim3 g32((unsigned)tsr__mwb_blocks(&t32, nx, ny), (unsigned)nf),
        gp((unsigned)tsr__mwb_blocks(&tp, nx, ny), (unsigned)nf);
    k_tile_term<32, 8, 32, 8, 1><<<g32, dim3(32, 8), 0, s>>>(d, 1, conj, f.u, ring[0], f.sum);
    CK(cudaGetLastError());
    for (int32_t n = 2; n < TERMS; n += 2) {
        const tsr__cf *prev2 = n == 2 ? f.u : ring[(n - 3) % 4];
        k_pair_term<<<gp, dim3(PCW, PCH), 0, s>>>(d, n, conj, ring[(n - 2) % 4], prev2,
                                                  ring[(n - 1) % 4], ring[n % 4], f.sum);
        CK(cudaGetLastError());
    }
}

/* One depth step of variant v on the device: 15 launches (variant 8: 8), the result in f.sum. */
static void step(int v, const wb_dev &d, int32_t nf, int conj, const fields &f, cudaStream_t s)
{
    if (v == V_PAIR) {
        step_pairs(d, nf, conj, f, s);
        return;
    }
    const int32_t nx = d.st.nx, ny = d.st.ny;
    const tsr__mwb_tile t32 = tsr__mwb_tile_make(32, 8, 1), t48 = tsr__mwb_tile_make(40, 24, 1);
    const dim3 g32((unsigned)tsr__mwb_blocks(&t32, nx, ny), (unsigned)nf),
        g48((unsigned)tsr__mwb_blocks(&t48, nx, ny), (unsigned)nf);
    for (int32_t n = 1; n < TERMS; n++) {
        const tsr__cf *prev1 = tsr__mwb_term_at(n - 1, f.u, f.odd);
        tsr__cf *out = tsr__mwb_term_at(n, f.u, f.odd);
        switch (v) {
        case V_GLOBAL:
            k_point_term<0><<<g32, dim3(32, 8), 0, s>>>(d, n, conj, prev1, out, f.sum);
            break;
        case V_READ_ONLY:
            k_point_term<1><<<g32, dim3(32, 8), 0, s>>>(d, n, conj, prev1, out, f.sum);
            break;
        case V_WIDE:
            k_point_term<2><<<g32, dim3(32, 8), 0, s>>>(d, n, conj, prev1, out, f.sum);
            break;
        case V_TILE48:
            k_tile_term<40, 24, 48, 8, 1>
                <<<g48, dim3(48, 8), 0, s>>>(d, n, conj, prev1, out, f.sum);
            break;
        case V_NO_HALO:
            k_tile_term<32, 8, 32, 8, 0><<<g32, dim3(32, 8), 0, s>>>(d, n, conj, prev1, out, f.sum);
            break;
        default: /* V_TILE32, V_COPIES */
            k_tile_term<32, 8, 32, 8, 1><<<g32, dim3(32, 8), 0, s>>>(d, n, conj, prev1, out, f.sum);
            break;
        }
        CK(cudaGetLastError());
    }
}

static double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

static float uniform(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return (float)((double)(*s >> 11) / 9007199254740992.0) * 2.0f - 1.0f;
}

/* Errors of got against want: max |d| / max |want| and rms(d) / rms(want); whether equal. */
struct errors {
    double max_rel, rms_rel;
    bool exact;
};

static errors compare(const std::vector<tsr__cf> &got, const std::vector<tsr__cf> &want)
{
    double dmax = 0, wmax = 0, d2 = 0, w2 = 0;
    for (size_t i = 0; i < want.size(); i++) {
        const double dr = (double)got[i].re - want[i].re, di = (double)got[i].im - want[i].im;
        const double d = sqrt(dr * dr + di * di),
                     w = sqrt((double)want[i].re * want[i].re + (double)want[i].im * want[i].im);
        dmax = std::max(dmax, d != d ? INFINITY : d); /* NaN (unwritten): infinite */
        wmax = std::max(wmax, w);
        d2 += d * d;
        w2 += w * w;
    }
    errors e;
    e.max_rel = wmax > 0 ? dmax / wmax : dmax;
    e.rms_rel = w2 > 0 ? sqrt(d2 / w2) : sqrt(d2);
    e.exact = memcmp(got.data(), want.data(), want.size() * sizeof(tsr__cf)) == 0;
    return e;
}

int main(int argc, char **argv)
{
    const int small = argc > 1 && strcmp(argv[1], "--small") == 0;
    int ndev = 0;
    if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev < 1) {
        printf("no CUDA device: skipped\n");
        return 77;
    }
    const int32_t nx = small ? 72 : 400, ny = small ? 56 : 400, nf = small ? 4 : 100;
    const int repeats = small ? 3 : 21, nsteps = small ? 3 : NSTEPS, conj = 1;
    const size_t cols = (size_t)nx * (size_t)ny, np = cols * (size_t)nf;
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    cudaStream_t s;
    CK(cudaStreamCreate(&s));
    cudaEvent_t ev[2];
    CK(cudaEventCreate(&ev[0]));
    CK(cudaEventCreate(&ev[1]));
    printf("migrate workbench (CUDA): %s, %d SMs, L2 %d MB; one field's 3D explicit depth step, "
           "%d x %d points x %d frequencies, %d terms\n",
           prop.name, prop.multiProcessorCount, prop.l2CacheSize >> 20, nx, ny, nf, TERMS);

    /* 0: the copy kernel's bandwidth (read + write) */
    double copy_gbs, copy_ms, copy_lo, copy_hi, copy_bytes;
    {
        const size_t bytes = small ? (size_t)64 << 20 : (size_t)1 << 30;
        float4 *a, *b;
        CK(cudaMalloc(&a, bytes));
        CK(cudaMalloc(&b, bytes));
        CK(cudaMemset(a, 0, bytes));
        std::vector<double> ms;
        for (int r = 0; r < repeats; r++) {
            CK(cudaEventRecord(ev[0], s));
            k_copy<<<prop.multiProcessorCount * 8, COPY_THREADS, 0, s>>>(a, b, bytes / 16);
            CK(cudaEventRecord(ev[1], s));
            CK(cudaEventSynchronize(ev[1]));
            CK(cudaGetLastError());
            float f;
            CK(cudaEventElapsedTime(&f, ev[0], ev[1]));
            ms.push_back(f);
        }
        copy_ms = median(ms);
        copy_lo = *std::min_element(ms.begin(), ms.end());
        copy_hi = *std::max_element(ms.begin(), ms.end());
        copy_bytes = 2.0 * (double)bytes;
        copy_gbs = copy_bytes / (copy_ms * 1e6);
        printf("copy kernel: %zu MiB in %.3f ms: %.0f GB/s read + write\n", bytes >> 20, median(ms),
               copy_gbs);
        cudaFree(a);
        cudaFree(b);
    }

    /* the step's inputs: a plan-shaped table, slowness, taper, w dz; the field */
    uint64_t seed = 38;
    std::vector<tsr__cf> table((size_t)NTABLE * TERMS), u0(np);
    for (tsr__cf &c : table)
        c = tsr__cf_make(0.6f / TERMS * uniform(&seed), 0.6f / TERMS * uniform(&seed));
    std::vector<float> slow(cols), taper(cols), wdz(nf);
    for (size_t c = 0; c < cols; c++) {
        slow[c] = 0.75f + 0.25f * uniform(&seed);
        taper[c] = 0.9f + 0.1f * uniform(&seed);
    }
    for (int32_t f = 0; f < nf; f++)
        wdz[f] = (float)(f + 1) / (float)nf;
    for (tsr__cf &c : u0)
        c = tsr__cf_make(uniform(&seed), uniform(&seed));
    double lmax = -d2_filter[0]; /* -(D2's symbol at pi) */
    for (int m = 1; m <= 4; m++)
        lmax -= 2.0 * d2_filter[m] * (m % 2 ? -1.0 : 1.0);
    tsr__mig_step st;
    memset(&st, 0, sizeof st);
    st.nx = nx;
    st.ny = ny;
    st.terms = TERMS;
    st.ntable = NTABLE;
    memcpy(st.d2, d2_filter, sizeof st.d2);
    st.xscale = (float)(2.0 / (lmax * 2.0)); /* rho = dx^2 / dy^2 = 1 */
    st.xscale_y = st.xscale;
    st.inv_dp = (float)(NTABLE - 2);
    st.table = table.data();

    /* the CPU reference: NSTEPS steps per frequency; after 1 and after nsteps kept */
    std::vector<tsr__cf> ref1(np), refn(u0);
    {
        std::vector<tsr__cf> w((size_t)4 * cols);
        std::vector<int32_t> j(cols);
        std::vector<float> a(cols);
        for (int32_t f = 0; f < nf; f++) {
            tsr__mig_lookup_row(&st, slow.data(), wdz[f], j.data(), a.data());
            tsr__cf *u = refn.data() + (size_t)f * cols;
            for (int k = 0; k < nsteps; k++) {
                tsr__mig_explicit_row(&st, u, j.data(), a.data(), taper.data(), conj, w.data(),
                                      w.data() + cols, w.data() + 2 * cols, w.data() + 3 * cols);
                if (k == 0)
                    memcpy(ref1.data() + (size_t)f * cols, u, cols * sizeof(tsr__cf));
            }
        }
    }

    /* device copies */
    wb_dev d;
    d.st = st;
    tsr__cf *dtable, *dinput;
    float *dslow, *dtaper, *dwdz;
    fields fl;
    const size_t fbytes = np * sizeof(tsr__cf);
    CK(cudaMalloc(&dtable, table.size() * sizeof(tsr__cf)));
    CK(cudaMalloc(&dslow, cols * sizeof(float)));
    CK(cudaMalloc(&dtaper, cols * sizeof(float)));
    CK(cudaMalloc(&dwdz, (size_t)nf * sizeof(float)));
    CK(cudaMalloc(&dinput, fbytes));
    CK(cudaMalloc(&fl.u, fbytes));
    CK(cudaMalloc(&fl.odd, fbytes));
    CK(cudaMalloc(&fl.sum, fbytes));
    CK(cudaMalloc(&fl.t2, fbytes));
    CK(cudaMalloc(&fl.t3, fbytes));
    CK(cudaMemcpy(dtable, table.data(), table.size() * sizeof(tsr__cf), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dslow, slow.data(), cols * sizeof(float), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dtaper, taper.data(), cols * sizeof(float), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dwdz, wdz.data(), (size_t)nf * sizeof(float), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dinput, u0.data(), fbytes, cudaMemcpyHostToDevice));
    d.st.table = dtable;
    d.slow = dslow;
    d.taper = dtaper;
    d.wdz = dwdz;
    tsr__cf *pinned_in, *pinned_out; /* variant 6's host side */
    CK(cudaMallocHost(&pinned_in, fbytes));
    CK(cudaMallocHost(&pinned_out, fbytes));
    memcpy(pinned_in, u0.data(), fbytes);

    const double step_bytes = tsr__mwb_step_bytes(TERMS) * (double)np;
    printf(
        "bytes per step: %.0f per point and frequency, %.3f GB; floor at the copy rate %.3f ms\n",
        tsr__mwb_step_bytes(TERMS), step_bytes / 1e9, step_bytes / (copy_gbs * 1e6));
    printf("two terms per launch (variant 8): %.0f bytes per point and frequency, floor %.3f ms\n",
           tsr__mwb_pair_step_bytes(TERMS),
           tsr__mwb_pair_step_bytes(TERMS) * (double)np / (copy_gbs * 1e6));
    printf("\n| variant | ms / step (median) | spread | GB / step | GB/s | of copy | check | "
           "after %d steps |\n|---|---|---|---|---|---|---|---|\n",
           nsteps);
    printf("| 0 %s | %.3f | %.3f-%.3f | %.3f | %.0f | 1.00 | - | - |\n", variant_name[0], copy_ms,
           copy_lo, copy_hi, copy_bytes / 1e9, copy_gbs);
    int rc = 0;
    std::vector<tsr__cf> got(np);
    for (int v = 1; v < NVARIANTS; v++) {
        std::vector<double> ms;
        for (int r = 0; r < repeats; r++) {
            CK(cudaMemcpyAsync(fl.u, dinput, fbytes, cudaMemcpyDeviceToDevice, s));
            CK(cudaMemsetAsync(fl.odd, 0xff, fbytes, s)); /* NaN */
            CK(cudaMemsetAsync(fl.sum, 0xff, fbytes, s));
            CK(cudaMemsetAsync(fl.t2, 0xff, fbytes, s));
            CK(cudaMemsetAsync(fl.t3, 0xff, fbytes, s));
            CK(cudaEventRecord(ev[0], s));
            if (v == V_COPIES)
                CK(cudaMemcpyAsync(fl.u, pinned_in, fbytes, cudaMemcpyHostToDevice, s));
            step(v, d, nf, conj, fl, s);
            if (v == V_COPIES)
                CK(cudaMemcpyAsync(pinned_out, fl.sum, fbytes, cudaMemcpyDeviceToHost, s));
            CK(cudaEventRecord(ev[1], s));
            CK(cudaEventSynchronize(ev[1]));
            float f;
            CK(cudaEventElapsedTime(&f, ev[0], ev[1]));
            ms.push_back(f);
        }
        CK(cudaMemcpy(got.data(), fl.sum, fbytes, cudaMemcpyDeviceToHost));
        const errors e1 = compare(got, ref1);
        /* nsteps steps from the input (the result of each the next one's field) */
        CK(cudaMemcpy(fl.u, dinput, fbytes, cudaMemcpyDeviceToDevice));
        for (int k = 0; k < nsteps; k++) {
            CK(cudaMemset(fl.odd, 0xff, fbytes));
            CK(cudaMemset(fl.sum, 0xff, fbytes));
            CK(cudaMemset(fl.t2, 0xff, fbytes));
            CK(cudaMemset(fl.t3, 0xff, fbytes));
            step(v, d, nf, conj, fl, s);
            std::swap(fl.u, fl.sum);
        }
        CK(cudaStreamSynchronize(s));
        CK(cudaMemcpy(got.data(), fl.u, fbytes, cudaMemcpyDeviceToHost));
        const errors en = compare(got, refn);
        const double med = median(ms), lo = *std::min_element(ms.begin(), ms.end()),
                     hi = *std::max_element(ms.begin(), ms.end());
        const double vbytes =
            v == V_PAIR ? tsr__mwb_pair_step_bytes(TERMS) * (double)np : step_bytes;
        const double gbs = vbytes / (med * 1e6);
        char check[96], after[96];
        if (v == V_NO_HALO) { /* wrong by design: its error is the measurement */
            snprintf(check, sizeof check, "max %.2e, rms %.2e", e1.max_rel, e1.rms_rel);
            snprintf(after, sizeof after, "max %.2e, rms %.2e", en.max_rel, en.rms_rel);
        } else {
            snprintf(check, sizeof check, e1.exact ? "exact" : "FAIL (max %.2e)", e1.max_rel);
            snprintf(after, sizeof after, en.exact ? "exact" : "FAIL (max %.2e)", en.max_rel);
            rc |= !e1.exact || !en.exact;
        }
        printf("| %d %s | %.3f | %.3f-%.3f | %.3f | %.0f | %.2f | %s | %s |\n", v, variant_name[v],
               med, lo, hi, vbytes / 1e9, gbs, gbs / copy_gbs, check, after);
        if (v == V_COPIES)
            printf("  (+ %.3f GB over PCIe per step: %.1f GB/s; the GB/s column counts HBM bytes "
                   "only)\n",
                   2.0 * (double)fbytes / 1e9, 2.0 * (double)fbytes / (med * 1e6));
    }
    cudaFreeHost(pinned_in);
    cudaFreeHost(pinned_out);
    cudaFree(dtable);
    cudaFree(dslow);
    cudaFree(dtaper);
    cudaFree(dwdz);
    cudaFree(dinput);
    cudaFree(fl.u);
    cudaFree(fl.odd);
    cudaFree(fl.sum);
    cudaFree(fl.t2);
    cudaFree(fl.t3);
    cudaEventDestroy(ev[0]);
    cudaEventDestroy(ev[1]);
    cudaStreamDestroy(s);
    printf("%s\n", rc ? "FAIL: a correct variant differs from the CPU reference" : "ok");
    return rc;
}
