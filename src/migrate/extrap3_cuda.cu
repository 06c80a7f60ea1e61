/* The migrate CUDA backend's 3D explicit path (extrap_cuda.cuh): depth slices of C = nx ny
 * points, x fastest, one shot at a time (migrate.c runs 3D shots one by one; one 3D shot already
 * makes tiles x frequencies blocks, e.g. 650 x 200 for 400 x 400 points and 200 frequencies, far
 * above a wave of the device, so several shots per launch would gain nothing).
 *
 * The step. A depth step applies X = 1 + xscale D2x + xscale_y D2y fifteen times (T_1 .. T_15;
 * the adjoint's Clenshaw recurrence likewise), each application reading the neighbours within 4
 * points in x and y. The 2D kernel keeps a row's whole recurrence in shared memory with a halo of
 * 4 per application (64 per side); a 3D tile would need that halo in x and y (a 32 x 8 core in a
 * 160 x 136 tile), so here a launch makes one or two terms over the slices of all the chunk's
 * frequencies, grid (x tiles * y tiles, frequencies of the chunk): term 1 alone (k3_term, which
 * also images), then terms 2 and 3, 4 and 5, ..., 14 and 15 (k3_pair), an odd last term alone
 * (k3_term; none with 16 terms).
 *
 * k3_term: blocks of BX x BY = 32 x 8 threads, one per core point. A block loads its tile of
 * T_{n-1} with a 4-point halo in x and y, TW x TH = 40 x 16, into shared memory (load_windows:
 * warp-row runs of 32 or 8 contiguous samples, each sample one 8-byte cp.async straight into
 * shared memory, zero-filled outside the slice), then each thread (thread (x, y) at core point
 * (x, y)) evaluates tsr__mig_x3_point on the tile, the CPU's function on the CPU's values (0 + a
 * is a: the zeros outside stand for the terms the CPU skips), reads T_{n-2} and the running sum
 * at its point and writes T_n and the sum. Tile shape: 32 x 8 makes every warp's own reads and
 * writes one contiguous row of 32 samples (256 bytes, two full 128-byte lines) at a halo cost of
 * 640 / 256 = 2.5 tile loads per point, mostly L2 hits (the halo is the neighbouring blocks'
 * core, read at the same time).
 *
 * k3_pair<NF, ROWS>: blocks of BX x ROWS = 32 x 32 threads (ROWS = PAIR_ROWS). A block loads
 * T_{n-1} over its core with an 8-point halo, PW x PH = 48 x 48 (load_windows, 2.25 samples a
 * thread), makes T_n = 2 X T_{n-1} - T_{n-2} over the core with a 4-point halo, MW x MH = 40 x 40
 * (1.56 points a thread, T_{n-2} read at each), in shared memory: at a point inside the slice
 * exactly k3_term's T_n there (the same tile values within 4 points, the same operations), at a
 * point outside 0, as k3_term's tile of T_n holds there; then each thread makes T_{n+1} = 2 X T_n -
 * T_{n-1} at its core point from that tile and adds c_n T_n and c_{n+1} T_{n+1} to the sum in that
 * order, the CPU's. So a pair's results are k3_term's twice, bit for bit, whatever the core's
 * shape. The price: 1.56 + 1 stencils per point for two terms instead of 2, and a fourth term slice
 * per field, as neighbouring blocks read T_{n-1} and T_{n-2} around this block's core while it
 * writes T_n and T_{n+1} (term_at's ring). Core shape: 32 x 32 shares the halo's rows among twice
 * the points of 32 x 16 (whose T_n took 1.88 a point), at 32 registers (launch bounds of 2 blocks
 * an SM, no spills) and 68.6 KB of dynamic shared memory for two fields (T_{n-1}'s rows padded to
 * PS = 56 samples against bank conflicts): 2 blocks of 1,024 threads per SM on sm_80 and sm_90
 * (full occupancy), 1 on sm_86/89 (1,536 threads and 100 KB an SM: the 1,024 threads that 2 blocks
 * of 32 x 16 had there). Windows and the middle term are visited in warp-row runs (for_window),
 * which keeps the 8-byte shared accesses conflict-free.
 *
 * Arithmetic: extrap_hd.h's per point in the reference's order (tsr__mig_x3_point, the coefficient
 * lookup and interpolation per point from the plan's table, tsr__mig_cheb_next, tsr__cf_madd,
 * tsr__mig_clenshaw_at; the build turns fused multiply-add off), so every wavefield sample is the
 * reference's float. Imaging is fused into each depth's first term (which reads S and R at every
 * point anyway): Re(conj(S) R) and |S|^2 added in double with atomicAdd; only the order of the
 * double sums over frequencies differs from the reference.
 *
 * HBM bytes per point and frequency of a migration depth step (both wavefields), counting each
 * sample once (the halo from L2): term 1 reads T_0 and writes T_1 and the sum (24 per field), the
 * slowness (4) and the image and illumination's doubles (32: read and write); the pairs (2, 3)
 * .. (12, 13) read T_{n-1}, T_{n-2} and the sum and write T_n, T_{n+1} and the sum (48 per field)
 * and the slowness (4); the last pair (14, 15) writes only the sum (32 per field + 4). Total
 * 84 + 6 x 100 + 68 = 752 bytes (one term per launch: 1244), against 32 for the 2D kernel, which
 * keeps its terms in shared memory (bench/notes/migrate.md derives both).
 *
 * Device memory (device_chunks.h's tsr__mig3_device_bytes, per shot): the plan's table, w dz,
 * slowness (4 nz C) and taper (4 C); migration: the image and illumination (16 nz C) and, per
 * frequency in flight, S and R each as 5 slices (T_0, which is also the fourth term slice; three
 * more term slices; the sum, which becomes the next depth's field: 80 C); modelling: the
 * reflectivity (4 nz C) and per frequency the source field at every depth (8 nz C: the adjoint
 * needs them upward) plus q and four term slices, two of them the Clenshaw terms (40 C).
 * Frequencies go through in chunks sized from the device's free memory, planned once per plan (all
 * of the backend's device buffers are freed first, so that the free memory is what the plan may
 * use); a model that does not fit with one frequency per chunk is refused (TSR_ERR_LIMIT, with the
 * bytes). The environment variable TSR_MIGRATE_CUDA_CHUNK (tests only) caps the frequencies per
 * chunk, to exercise chunking on small models. The timer (tsr__migrate_cuda_loop_ms) runs from
 * after the first chunk's uploads to the last kernel: with several chunks it includes the later
 * chunks' copies (and, modelling, each chunk's download). */
#include "migrate/extrap_cuda.cuh"

extern "C" {
#include "core/checked.h"
#include "migrate/device_chunks.h"
}

#include <stdlib.h>

enum {
    BX = 32,              /* core points of a block along x */
    BY = 8,               /* and along y (one-term kernels) */
    RADIUS = 4,           /* the filter's: the tile's halo */
    TW = BX + 2 * RADIUS, /* tile width */
    TH = BY + 2 * RADIUS, /* tile height */
    THREADS = BX * BY,
    POINT_THREADS = 256, /* per-point kernels */
    /* k3_pair<NF, ROWS>: a BX x ROWS core, T_{n-1} with a halo of 2 RADIUS (PW x (ROWS + 16)),
     * T_n over the core with a halo of RADIUS (MW x (ROWS + 8)) */
    PAIR_ROWS = 32, /* the core height (32 x 16 measured 0.3% slower, bench/notes/migrate.md) */
    PW = BX + 4 * RADIUS,
    PS = PW + 8, /* its rows' stride in shared memory: 8 mod 16 samples, so that the middle
                    term's tasks of 8 columns and 4 rows read it without bank conflicts */
    MW = BX + 2 * RADIUS
};

/* k3_pair's blocks per SM for its launch bounds: the SM's threads over the block's, 2,048 (full
 * occupancy at 32 registers: 4 blocks of 16 rows, 2 of 32), 1,536 on sm_86, sm_87, sm_89 (3 and
 * 1). */
#if defined(__CUDA_ARCH__) && (__CUDA_ARCH__ == 860 || __CUDA_ARCH__ == 870 || __CUDA_ARCH__ == 890)
#define PAIR_SM_THREADS 1536
#else
#define PAIR_SM_THREADS 2048
#endif
#define PAIR_MIN_BLOCKS(rows) (PAIR_SM_THREADS / (BX * (rows)))

/* This thread's core point in blocks of BX x by core points: (ix, iy) in the slice, its column
 * c = iy nx + ix, whether it lies in the slice, and the block's first core point (x0, y0). */
struct point3 {
    int32_t x0, y0, ix, iy;
    size_t c;
    bool in;
};

__device__ static point3 point3_of(int32_t nx, int32_t ny, int32_t by)
{
    const int32_t tiles_x = (nx + BX - 1) / BX;
    point3 p;
    p.x0 = (int32_t)(blockIdx.x % (unsigned)tiles_x) * BX;
    p.y0 = (int32_t)(blockIdx.x / (unsigned)tiles_x) * by;
    p.ix = p.x0 + (int32_t)threadIdx.x;
    p.iy = p.y0 + (int32_t)threadIdx.y;
    p.in = p.ix < nx && p.iy < ny;
    p.c = (size_t)p.iy * (size_t)nx + (size_t)p.ix;
    return p;
}

/* Sample c of u in one 8-byte load (u's slices start at cudaMalloc'd, 8-byte aligned addresses
 * plus whole samples), and the store likewise. */
__device__ static tsr__cf load_cf(const tsr__cf *__restrict__ u, size_t c)
{
    const float2 v = reinterpret_cast<const float2 *>(u)[c];
    return tsr__cf_make(v.x, v.y);
}

__device__ static void store_cf(tsr__cf *u, size_t c, tsr__cf v)
{
    reinterpret_cast<float2 *>(u)[c] = make_float2(v.re, v.im);
}

/* Every point (col, row) of a W x H window, x fastest, visited once by the block's warps (blocks
 * are BX = 32 threads wide, so warp w is threadIdx.y, of WARPS): a row's first 32 points are one
 * warp's task, its last E = W - 32 points, of 32 / E consecutive rows together, another's; warp
 * w takes tasks w, w + WARPS, ... So a warp's samples are one run of 32 (or runs of E) in a row:
 * 8-byte accesses to the window without bank conflicts, and coalesced ones to the slice. */
template <int W, int H, int WARPS, class F> __device__ static void for_window(F f)
{
    constexpr int E = W - BX, ROWS = BX / E, TASKS = H + H / ROWS;
    static_assert(E > 0 && BX % E == 0 && H % ROWS == 0, "window rows of 32 + a divisor of 32");
    const int lane = (int)threadIdx.x, warp = (int)threadIdx.y;
#pragma unroll
    for (int r = 0; r < (TASKS + WARPS - 1) / WARPS; r++) {
        const int task = warp + r * WARPS;
        if (task < H)
            f(lane, task);
        else if (task < TASKS)
            f(BX + lane % E, (task - H) * ROWS + lane / E);
    }
}

/* Shared sample *dst <- global sample *src when in, else +0.0f in both floats (src then not
 * read, but a valid address). sm_80 and up: cp.async of 8 bytes, zero-filled to 8 when in is
 * false (src-size 0), so the sample goes to shared memory without a register; complete only after
 * wait_copies. Below: a load and a store. Either way the tile holds src's bytes or zero bytes. */
__device__ static void copy_cf(tsr__cf *dst, const tsr__cf *src, bool in)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    const unsigned d = (unsigned)__cvta_generic_to_shared(dst);
    asm volatile("cp.async.ca.shared.global [%0], [%1], 8, %2;\n" ::"r"(d), "l"(src),
                 "r"(in ? 8 : 0)
                 : "memory");
#else
    *dst = in ? load_cf(src, 0) : tsr__cf_make(0.0f, 0.0f);
#endif
}

/* Wait for this thread's copy_cf copies (a barrier then makes them the block's). */
__device__ static void wait_copies()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.wait_all;\n" ::: "memory");
#endif
}

/* The W x H windows of NF slices u[k] (chunk base included) with their first point at (x0, y0)
 * (which may lie outside the slice), 0 outside the slice, into tile[k] in rows of S >= W samples,
 * by copy_cf. Every thread of the block calls it; the caller synchronises. */
template <int W, int H, int S, int WARPS, int NF>
__device__ static void load_windows(const tsr__cf *const (&u)[NF], int32_t nx, int32_t ny,
                                    int32_t x0, int32_t y0, tsr__cf (&tile)[NF][S * H])
{
    for_window<W, H, WARPS>([&](int col, int row) {
        const int32_t x = x0 + col, y = y0 + row;
        const bool in = (uint32_t)x < (uint32_t)nx && (uint32_t)y < (uint32_t)ny;
        const size_t c = in ? (size_t)y * (size_t)nx + (size_t)x : 0;
        for (int k = 0; k < NF; k++)
            copy_cf(&tile[k][row * S + col], u[k] + c, in);
    });
    wait_copies();
}

/* The block's tiles of NF slices (TH rows of TW, the core at (RADIUS, RADIUS)), 0 outside. */
template <int NF>
__device__ static void load_tiles(const tsr__cf *const (&u)[NF], int32_t nx, int32_t ny,
                                  const point3 &p, tsr__cf (&tile)[NF][TW * TH])
{
    load_windows<TW, TH, TW, BY, NF>(u, nx, ny, p.x0 - RADIUS, p.y0 - RADIUS, tile);
}

/* (X u) at this thread's point from the tile of u. */
__device__ static tsr__cf x3_of(const tsr__mig_step &st, const tsr__cf *tile)
{
    return tsr__mig_x3_point(tile, (int32_t)threadIdx.x + RADIUS, (int32_t)threadIdx.y + RADIUS, TW,
                             TH, st.d2, st.xscale, st.xscale_y, 1);
}

/* This thread's own sample of the tile. */
__device__ static tsr__cf own_of(const tsr__cf *tile)
{
    return tile[(threadIdx.y + RADIUS) * TW + threadIdx.x + RADIUS];
}

/* The coefficient table position of column c at depth iz, frequency f (tsr__mig_lookup_row's). */
__device__ static void lookup3(const dev_plan &dp, int32_t iz, int32_t f, size_t c, size_t cols,
                               int32_t *j, float *a)
{
    tsr__mig_lookup(dp.wdz[f] * dp.slow[(size_t)iz * cols + c], dp.st.inv_dp, dp.st.ntable, j, a);
}

/* One Chebyshev term's slices for NF fields (chunk bases; frequency k of the chunk at k C). */
template <int NF> struct term_slices {
    const tsr__cf *prev1[NF]; /* T_{n-1}, read with the halo (n = 1: T_0, the depth's field) */
    const tsr__cf *prev2[NF]; /* T_{n-2} at the point (n >= 2) */
    tsr__cf *out[NF];         /* T_n (may be prev2: each point reads and writes only its own) */
    tsr__cf *sum[NF];         /* the running sum; after the last term taper times it */
    int conj[NF];
};

/* Term n (1 .. terms - 1) of tsr__mig_explicit_row at depth iz for every frequency of the chunk
 * starting at f0: T_n = X T_0 (n = 1) or 2 X T_{n-1} - T_{n-2}, sum = c_0 T_0 + c_1 T_1 (n = 1)
 * or sum + c_n T_n; the last term writes taper * sum and not T_n. IMAGE (NF = 2, S then R): term
 * 1 also adds Re(conj(S) R) and |S|^2 of depth iz into image and illum (C per depth). */
template <int NF, bool IMAGE>
__global__ static void __launch_bounds__(THREADS)
    k3_term(dev_plan dp, int32_t iz, int32_t f0, int32_t n, term_slices<NF> t,
            double *__restrict__ image, double *__restrict__ illum)
{
    static_assert(!IMAGE || NF == 2, "imaging takes S and R");
    __shared__ __align__(16) tsr__cf tile[NF][TW * TH];
    const tsr__mig_step &st = dp.st;
    const size_t cols = (size_t)st.nx * (size_t)st.ny, base = (size_t)blockIdx.y * cols;
    const point3 p = point3_of(st.nx, st.ny, BY);
    const tsr__cf *prev1[NF];
    for (int k = 0; k < NF; k++)
        prev1[k] = t.prev1[k] + base;
    load_tiles<NF>(prev1, st.nx, st.ny, p, tile);
    __syncthreads();
    if (!p.in)
        return;
    const size_t o = base + p.c;
    int32_t j;
    float a;
    lookup3(dp, iz, f0 + (int32_t)blockIdx.y, p.c, cols, &j, &a);
    const bool last = n + 1 == st.terms;
    /* the same coefficients for every field (conj applies in the products) */
    const tsr__cf c0 = tsr__mig_coef(st.table, st.terms, j, a, n == 1 ? 0 : n),
                  c1 = n == 1 ? tsr__mig_coef(st.table, st.terms, j, a, 1) : c0;
    for (int k = 0; k < NF; k++) {
        const tsr__cf x = x3_of(st, tile[k]);
        tsr__cf tn, sum;
        if (n == 1) {
            tn = x;
            sum = tsr__cf_mul(c0, own_of(tile[k]), t.conj[k]);
            sum = tsr__cf_madd(sum, c1, x, t.conj[k]);
        } else {
            tn = tsr__mig_cheb_next(x, load_cf(t.prev2[k], o));
            sum = tsr__cf_madd(load_cf(t.sum[k], o), c0, tn, t.conj[k]);
        }
        if (!last)
            store_cf(t.out[k], o, tn);
        store_cf(t.sum[k], o, last ? tsr__cf_scale(dp.taper[p.c], sum) : sum);
    }
    if (IMAGE && n == 1) {
        const tsr__cf s = own_of(tile[0]), r = own_of(tile[NF - 1]);
        atomicAdd(&image[(size_t)iz * cols + p.c], (double)tsr__mig_cross(s, r));
        atomicAdd(&illum[(size_t)iz * cols + p.c], (double)tsr__mig_power(s));
    }
}

/* Two consecutive terms' slices for NF fields (chunk bases, as term_slices). */
template <int NF> struct pair_slices {
    const tsr__cf *prev1[NF]; /* T_{n-1}, read with a halo of 2 RADIUS */
    const tsr__cf *prev2[NF]; /* T_{n-2}, read over the core with a halo of RADIUS */
    tsr__cf *out[NF];         /* T_n (not prev1 or prev2: other blocks read those at this core) */
    tsr__cf *out1[NF];        /* T_{n+1} (likewise) */
    tsr__cf *sum[NF];
    int conj[NF];
};

/* k3_pair's shared memory, dynamic (above a static allocation's 48 KB for two fields of 32
 * rows): T_{n-1}'s tiles, then T_n's, 16-byte aligned. */
extern __shared__ __align__(16) unsigned char pair_shared[];

/* The bytes of pair_shared for NF fields and cores of ROWS rows. */
template <int NF, int ROWS> __host__ __device__ static constexpr size_t pair_shared_bytes()
{
    return sizeof(tsr__cf) * NF * ((size_t)PS * (ROWS + 4 * RADIUS) + MW * (ROWS + 2 * RADIUS));
}

/* Terms n and n + 1 (2 <= n, n + 1 <= terms - 1) of tsr__mig_explicit_row at depth iz for every
 * frequency of the chunk, a BX x ROWS core per block of as many threads (pair_shared_bytes of
 * dynamic shared memory): the block loads T_{n-1} over the core with a halo of 8 (0 outside the
 * slice), makes T_n = 2 X T_{n-1} - T_{n-2} in shared memory over the core with a halo of 4 (the
 * same operations at every point as k3_term's term n there; 0 at points outside the slice, as
 * k3_term's tile holds there), then at the core T_{n+1} = 2 X T_n - T_{n-1}, sum + c_n T_n +
 * c_{n+1} T_{n+1} (in that order, as the CPU's), and writes T_n, T_{n+1} and the sum; when n + 1
 * is the last term, taper * sum only. ROWS changes which block makes a point, not how. */
template <int NF, int ROWS>
__global__ static void __launch_bounds__((BX * ROWS), PAIR_MIN_BLOCKS(ROWS))
    k3_pair(dev_plan dp, int32_t iz, int32_t f0, int32_t n, pair_slices<NF> t)
{
    constexpr int PH = ROWS + 4 * RADIUS, MH = ROWS + 2 * RADIUS;
    tsr__cf(&prev)[NF][PS * PH] = *reinterpret_cast<tsr__cf(*)[NF][PS * PH]>(pair_shared);
    tsr__cf(&mid)[NF][MW * MH] =
        *reinterpret_cast<tsr__cf(*)[NF][MW * MH]>(pair_shared + sizeof prev);
    static_assert(sizeof prev % 16 == 0 &&
                      sizeof prev + sizeof mid == pair_shared_bytes<NF, ROWS>(),
                  "pair_shared's layout");
    const tsr__mig_step &st = dp.st;
    const int32_t nx = st.nx, ny = st.ny;
    const size_t cols = (size_t)nx * (size_t)ny, base = (size_t)blockIdx.y * cols;
    const point3 p = point3_of(nx, ny, ROWS);
    const tsr__cf *prev1[NF];
    for (int k = 0; k < NF; k++)
        prev1[k] = t.prev1[k] + base;
    load_windows<PW, PH, PS, ROWS, NF>(prev1, nx, ny, p.x0 - 2 * RADIUS, p.y0 - 2 * RADIUS, prev);
    __syncthreads();
    for_window<MW, MH, ROWS>([&](int mx, int my) {
        const int32_t x = p.x0 - RADIUS + mx, y = p.y0 - RADIUS + my;
        const bool in = (uint32_t)x < (uint32_t)nx && (uint32_t)y < (uint32_t)ny;
        const size_t c = base + (size_t)y * (size_t)nx + (size_t)x;
        for (int k = 0; k < NF; k++)
            mid[k][my * MW + mx] =
                in ? tsr__mig_cheb_next(tsr__mig_x3_point(prev[k], mx + RADIUS, my + RADIUS, PS, PH,
                                                          st.d2, st.xscale, st.xscale_y, 1),
                                        load_cf(t.prev2[k], c))
                   : tsr__cf_make(0.0f, 0.0f);
    });
    __syncthreads();
    if (!p.in)
        return;
    const size_t o = base + p.c;
    int32_t j;
    float a;
    lookup3(dp, iz, f0 + (int32_t)blockIdx.y, p.c, cols, &j, &a);
    const bool last = n + 2 == st.terms;
    const int32_t tx = (int32_t)threadIdx.x, ty = (int32_t)threadIdx.y;
    /* the same coefficients for every field (conj applies in the products) */
    const tsr__cf cn = tsr__mig_coef(st.table, st.terms, j, a, n),
                  cn1 = tsr__mig_coef(st.table, st.terms, j, a, n + 1);
    for (int k = 0; k < NF; k++) {
        const tsr__cf tn = mid[k][(ty + RADIUS) * MW + tx + RADIUS];
        const tsr__cf x = tsr__mig_x3_point(mid[k], tx + RADIUS, ty + RADIUS, MW, MH, st.d2,
                                            st.xscale, st.xscale_y, 1);
        const tsr__cf tn1 =
            tsr__mig_cheb_next(x, prev[k][(ty + 2 * RADIUS) * PS + tx + 2 * RADIUS]);
        tsr__cf sum = tsr__cf_madd(load_cf(t.sum[k], o), cn, tn, t.conj[k]);
        sum = tsr__cf_madd(sum, cn1, tn1, t.conj[k]);
        if (last) {
            store_cf(t.sum[k], o, tsr__cf_scale(dp.taper[p.c], sum));
        } else {
            store_cf(t.out[k], o, tn);
            store_cf(t.out1[k], o, tn1);
            store_cf(t.sum[k], o, sum);
        }
    }
}

/* Per point of the chunk's slices (grid: point blocks, frequencies): the deepest depth's imaging
 * terms (s, r given), or modelling's deepest q = refl S there (image NULL: q in r's place). */
__global__ static void __launch_bounds__(POINT_THREADS)
    k3_deepest(size_t cols, int32_t iz, const tsr__cf *__restrict__ s, tsr__cf *r,
               const float *__restrict__ refl, double *__restrict__ image,
               double *__restrict__ illum)
{
    const size_t c = (size_t)blockIdx.x * POINT_THREADS + threadIdx.x;
    if (c >= cols)
        return;
    const size_t o = (size_t)blockIdx.y * cols + c;
    if (image) {
        atomicAdd(&image[(size_t)iz * cols + c], (double)tsr__mig_cross(s[o], r[o]));
        atomicAdd(&illum[(size_t)iz * cols + c], (double)tsr__mig_power(s[o]));
    } else {
        r[o] = tsr__mig_scatter_at(tsr__cf_make(0.0f, 0.0f), refl[(size_t)iz * cols + c], s[o], 1);
    }
}

/* Clenshaw term k (terms - 1 .. 0) of tsr__mig_explicit_adjoint_row (conj 0, so conj' = 1) at
 * depth iz above the deepest, every frequency of the chunk: u = taper q, b_k = conj'(c_k) u +
 * 2 X b_{k+1} - b_{k+2} written over b_{k+2} (bn may be b2); zero1 / zero2: b_{k+1} / b_{k+2}
 * are 0 and not read (the first two terms, as the CPU's zeroed rows). k = 0: q <- (its result)
 * + refl S at iz (tsr__mig_scatter_at), in place. One launch per term: the modelling adjoint is
 * not paired as the forward step is (k3_pair). */
__global__ static void __launch_bounds__(THREADS)
    k3_clenshaw(dev_plan dp, int32_t iz, int32_t f0, int32_t k, const tsr__cf *__restrict__ b1,
                const tsr__cf *b2, tsr__cf *bn, tsr__cf *q, const tsr__cf *__restrict__ s_iz,
                const float *__restrict__ refl, int zero1, int zero2)
{
    __shared__ __align__(16) tsr__cf tile[1][TW * TH];
    const tsr__mig_step &st = dp.st;
    const size_t cols = (size_t)st.nx * (size_t)st.ny, base = (size_t)blockIdx.y * cols;
    const point3 p = point3_of(st.nx, st.ny, BY);
    if (!zero1) { /* uniform over the grid */
        const tsr__cf *b1s[1] = {b1 + base};
        load_tiles<1>(b1s, st.nx, st.ny, p, tile);
        __syncthreads();
    }
    if (!p.in)
        return;
    const size_t o = base + p.c;
    int32_t j;
    float a;
    lookup3(dp, iz, f0 + (int32_t)blockIdx.y, p.c, cols, &j, &a);
    const tsr__cf zero = tsr__cf_make(0.0f, 0.0f);
    const tsr__cf u = tsr__cf_scale(dp.taper[p.c], q[o]);
    const tsr__cf x = zero1 ? zero : x3_of(st, tile[0]);
    const tsr__cf b =
        tsr__mig_clenshaw_at(st.table, st.terms, j, a, k, u, x, zero2 ? zero : b2[o], 1);
    if (k > 0)
        bn[o] = b;
    else
        q[o] = tsr__mig_scatter_at(b, refl[(size_t)iz * cols + p.c], s_iz[o], 0);
}

/* T_n's slice of a field: T_0 in u, T_n (n >= 1) in ring[(n - 1) % 4], so that a launch of
 * terms n and n + 1 writes neither of the slices it reads (T_{n-1}, T_{n-2}); ring[3] may be u
 * (T_4 then overwrites T_0, which only the launch of terms 2 and 3 reads). */
static tsr__cf *term_at(int32_t n, tsr__cf *u, tsr__cf *const ring[4])
{
    return n == 0 ? u : ring[(n - 1) % 4];
}

static dim3 tile_grid(const tsr__migrate_plan *plan, int32_t nf, int32_t by)
{
    const unsigned tx = (unsigned)((plan->nx + BX - 1) / BX),
                   ty = (unsigned)((plan->ny + by - 1) / by);
    return dim3(tx * ty, (unsigned)nf);
}

static dim3 point_grid(const tsr__migrate_plan *plan, int32_t nf)
{
    return dim3((unsigned)(((size_t)plan->ncols + POINT_THREADS - 1) / POINT_THREADS),
                (unsigned)nf);
}

/* Lets k3_pair<NF, ROWS> take its dynamic shared memory (above 48 KB, an opt-in per kernel);
 * before its launches (once per shot). */
template <int NF, int ROWS> static tsr_status pair_allow(tsr_ctx *ctx)
{
    TSR_CUDA_TRY(ctx, cudaFuncSetAttribute(k3_pair<NF, ROWS>,
                                           cudaFuncAttributeMaxDynamicSharedMemorySize,
                                           (int)pair_shared_bytes<NF, ROWS>()));
    return TSR_OK;
}

/* Launches k3_pair<NF, ROWS> for terms n, n + 1 over the chunk's nf frequencies. */
template <int NF, int ROWS>
static tsr_status pair_launch(tsr_ctx *ctx, const tsr__migrate_plan *plan, const dev_plan *dp,
                              int32_t iz, int32_t f0, int32_t nf, int32_t n,
                              const pair_slices<NF> &t)
{
    k3_pair<NF, ROWS><<<tile_grid(plan, nf, ROWS), dim3(BX, ROWS), pair_shared_bytes<NF, ROWS>(),
                        ctx->cuda->stream>>>(*dp, iz, f0, n, t);
    TSR_CUDA_CHECK_LAUNCH(ctx, "k3_pair");
    return TSR_OK;
}

/* One explicit depth step at iz of NF fields (field k: T_0 in u[k], T_n in ring[k] as term_at
 * says, the result in sum[k]) for the chunk's nf frequencies from f0: term 1 alone (k3_term, with
 * the imaging fused as it says), then terms two at a time (k3_pair, pair_allow'd), a last odd one
 * alone. */
template <int NF, bool IMAGE>
static tsr_status step3(tsr_ctx *ctx, const tsr__migrate_plan *plan, const dev_plan *dp, int32_t iz,
                        int32_t f0, int32_t nf, tsr__cf *const (&u)[NF],
                        tsr__cf *const (&ring)[NF][4], tsr__cf *const (&sum)[NF],
                        const int (&conj)[NF], double *image, double *illum)
{
    cudaStream_t stream = ctx->cuda->stream;
    for (int32_t n = 1; n < TSR__MIG_TERMS;) {
        if (n == 1 || n + 1 == TSR__MIG_TERMS) {
            term_slices<NF> t;
            for (int k = 0; k < NF; k++) {
                t.prev1[k] = term_at(n - 1, u[k], ring[k]);
                t.prev2[k] = n >= 2 ? term_at(n - 2, u[k], ring[k]) : NULL;
                t.out[k] = term_at(n, u[k], ring[k]);
                t.sum[k] = sum[k];
                t.conj[k] = conj[k];
            }
            k3_term<NF, IMAGE><<<tile_grid(plan, nf, BY), dim3(BX, BY), 0, stream>>>(
                *dp, iz, f0, n, t, image, illum);
            TSR_CUDA_CHECK_LAUNCH(ctx, "k3_term");
            n++;
        } else {
            pair_slices<NF> t;
            for (int k = 0; k < NF; k++) {
                t.prev1[k] = term_at(n - 1, u[k], ring[k]);
                t.prev2[k] = term_at(n - 2, u[k], ring[k]);
                t.out[k] = term_at(n, u[k], ring[k]);
                t.out1[k] = term_at(n + 1, u[k], ring[k]);
                t.sum[k] = sum[k];
                t.conj[k] = conj[k];
            }
            const tsr_status st = pair_launch<NF, PAIR_ROWS>(ctx, plan, dp, iz, f0, nf, n, t);
            if (st)
                return st;
            n += 2;
        }
    }
    return TSR_OK;
}

/* The frequencies per chunk for this plan and kind of run: planned when either changed, after
 * freeing every device buffer of the backend (the plan's tables are then uploaded again), from
 * the device's free memory. */
static tsr_status chunk_of(tsr_ctx *ctx, const tsr__migrate_plan *plan, mig_cuda_state *s,
                           int model, int32_t *chunk)
{
    if (s->chunk_plan != plan->id || s->chunk_model != model || s->chunk < 1) {
        s->chunk_plan = 0;
        tsr__migcu_release(ctx, s);
        size_t free_b = 0, total_b = 0;
        TSR_CUDA_TRY(ctx, cudaMemGetInfo(&free_b, &total_b));
        const char *cap = getenv("TSR_MIGRATE_CUDA_CHUNK");
        const tsr__mig3_bytes b = tsr__mig3_device_bytes((double)plan->ncols, plan->nz, plan->nfreq,
                                                         plan->ntable, TSR__MIG_TERMS, model);
        int32_t count;
        tsr_status st = tsr__mig3_chunks(ctx, &b, (double)free_b, plan->nfreq, cap ? atoi(cap) : 0,
                                         &s->chunk, &count);
        if (st)
            return st;
        s->chunk_plan = plan->id;
        s->chunk_model = model;
    }
    *chunk = s->chunk;
    return TSR_OK;
}

tsr_status tsr__migcu3_image_start(tsr_ctx *ctx, const tsr__migrate_plan *plan, int32_t count,
                                   const tsr__cf *src, const tsr__cf *rec)
{
    mig_cuda_state *s;
    dev_plan dp;
    int32_t chunk;
    tsr_status st;
    if ((st = tsr__migcu_state(ctx, &s)) || (st = chunk_of(ctx, plan, s, 0, &chunk)) ||
        (st = tsr__migcu_shot_begin(ctx, plan, &s, &dp)) || (st = pair_allow<2, PAIR_ROWS>(ctx)))
        return st;
    if (count != 1)
        return tsr__fail(ctx, TSR_ERR_INTERNAL, "migrate: 3D on cuda takes one shot per call");
    cudaStream_t stream = ctx->cuda->stream;
    const size_t cols = (size_t)plan->ncols, cells = cols * (size_t)plan->nz;
    const size_t slab = (size_t)chunk * cols, image_bytes = 2 * cells * sizeof(double);
    if ((st = tsr__cuda_buffer_reserve(ctx, &s->work3, 10 * slab * sizeof(tsr__cf))) ||
        (st = tsr__cuda_buffer_reserve(ctx, &s->image, image_bytes)) ||
        (st = tsr__cuda_host_buffer_reserve(ctx, &s->pin[s->pin_last ^ 1], image_bytes)))
        return st;
    TSR_CUDA_TRY(ctx, cudaMemsetAsync(s->image.ptr, 0, image_bytes, stream));
    double *dimage = (double *)s->image.ptr, *dillum = dimage + cells;
    tsr__cf *w = (tsr__cf *)s->work3.ptr;
    for (int32_t f0 = 0; f0 < plan->nfreq; f0 += chunk) {
        const int32_t nf = plan->nfreq - f0 < chunk ? plan->nfreq - f0 : chunk;
        /* field k (S, R): slices u, three term slices and the sum at w + (5 k + 0 .. 4) slab (u
         * the ring's fourth); the sum becomes the next depth's u, and the old u the next sum */
        tsr__cf *u[2] = {w, w + 5 * slab}, *sum[2] = {w + 4 * slab, w + 9 * slab};
        const size_t bytes = sizeof(tsr__cf) * (size_t)nf * cols;
        TSR_CUDA_TRY(ctx, cudaMemcpyAsync(u[0], src + (size_t)f0 * cols, bytes,
                                          cudaMemcpyHostToDevice, stream));
        TSR_CUDA_TRY(ctx, cudaMemcpyAsync(u[1], rec + (size_t)f0 * cols, bytes,
                                          cudaMemcpyHostToDevice, stream));
        if (f0 == 0) /* the loop's time: after the first chunk's uploads */
            TSR_CUDA_TRY(ctx, cudaEventRecord(s->timer.start, stream));
        const int conj[2] = {1, 0};
        for (int32_t iz = 0; iz + 1 < plan->nz; iz++) {
            tsr__cf *const cu[2] = {u[0], u[1]}, *const cs[2] = {sum[0], sum[1]};
            tsr__cf *const ring[2][4] = {{w + slab, w + 2 * slab, w + 3 * slab, u[0]},
                                         {w + 6 * slab, w + 7 * slab, w + 8 * slab, u[1]}};
            if ((st = step3<2, true>(ctx, plan, &dp, iz, f0, nf, cu, ring, cs, conj, dimage,
                                     dillum)))
                return st;
            for (int k = 0; k < 2; k++) {
                tsr__cf *t = u[k];
                u[k] = sum[k];
                sum[k] = t;
            }
        }
        k3_deepest<<<point_grid(plan, nf), POINT_THREADS, 0, stream>>>(cols, plan->nz - 1, u[0],
                                                                       u[1], NULL, dimage, dillum);
        TSR_CUDA_CHECK_LAUNCH(ctx, "k3_deepest");
    }
    TSR_CUDA_TRY(ctx, cudaEventRecord(s->timer.stop, stream));
    s->pin_last ^= 1;
    TSR_CUDA_TRY(ctx, cudaMemcpyAsync(s->pin[s->pin_last].ptr, s->image.ptr, image_bytes,
                                      cudaMemcpyDeviceToHost, stream));
    return TSR_OK;
}

tsr_status tsr__migcu3_model_shot(tsr_ctx *ctx, const tsr__migrate_plan *plan, const tsr__cf *src,
                                  const float *refl, tsr__cf *rec,
                                  const tsr__mig_progress *progress)
{
    mig_cuda_state *s;
    dev_plan dp;
    int32_t chunk;
    tsr_status st;
    if ((st = tsr__migcu_state(ctx, &s)) || (st = chunk_of(ctx, plan, s, 1, &chunk)) ||
        (st = tsr__migcu_shot_begin(ctx, plan, &s, &dp)) || (st = pair_allow<1, PAIR_ROWS>(ctx)))
        return st;
    cudaStream_t stream = ctx->cuda->stream;
    const size_t cols = (size_t)plan->ncols, nz = (size_t)plan->nz;
    const size_t slab = (size_t)chunk * cols; /* a depth's slices of the chunk */
    if ((st = tsr__cuda_buffer_reserve(ctx, &s->sdepth, nz * slab * sizeof(tsr__cf))) ||
        (st = tsr__cuda_buffer_reserve(ctx, &s->work3, 5 * slab * sizeof(tsr__cf))) ||
        (st = tsr__migcu_upload(ctx, &s->refl, refl, sizeof(float) * nz * cols)))
        return st;
    tsr__cf *sd = (tsr__cf *)s->sdepth.ptr, *w = (tsr__cf *)s->work3.ptr;
    tsr__cf *q = w, *ta = w + slab,
            *tb = w + 2 * slab, *const ring[1][4] = {{ta, tb, w + 3 * slab, w + 4 * slab}};
    const float *drefl = (const float *)s->refl.ptr;
    for (int32_t f0 = 0; f0 < plan->nfreq; f0 += chunk) {
        const int32_t nf = plan->nfreq - f0 < chunk ? plan->nfreq - f0 : chunk;
        const size_t bytes = sizeof(tsr__cf) * (size_t)nf * cols;
        TSR_CUDA_TRY(ctx, cudaMemcpyAsync(sd, src + (size_t)f0 * cols, bytes,
                                          cudaMemcpyHostToDevice, stream));
        if (f0 == 0)
            TSR_CUDA_TRY(ctx, cudaEventRecord(s->timer.start, stream));
        /* the source down: depth iz + 1's slices are the sum of the step from iz's; T_0 stays */
        const int conj[1] = {1};
        for (size_t iz = 0; iz + 1 < nz; iz++) {
            tsr__cf *const u[1] = {sd + iz * slab}, *const sm[1] = {sd + (iz + 1) * slab};
            if ((st = step3<1, false>(ctx, plan, &dp, (int32_t)iz, f0, nf, u, ring, sm, conj, NULL,
                                      NULL)))
                return st;
        }
        /* q up: q = refl S at the deepest depth, then b_k of parity k in (ta, tb) */
        k3_deepest<<<point_grid(plan, nf), POINT_THREADS, 0, stream>>>(
            cols, (int32_t)nz - 1, sd + (nz - 1) * slab, q, drefl, NULL, NULL);
        TSR_CUDA_CHECK_LAUNCH(ctx, "k3_deepest");
        const dim3 grid = tile_grid(plan, nf, BY), block(BX, BY);
        for (int32_t iz = (int32_t)nz - 2; iz >= 0; iz--) {
            for (int32_t k = TSR__MIG_TERMS - 1; k >= 0; k--) {
                tsr__cf *b1 = (k + 1) % 2 ? tb : ta, *b2 = k % 2 ? tb : ta;
                k3_clenshaw<<<grid, block, 0, stream>>>(
                    dp, iz, f0, k, b1, b2, b2, q, sd + (size_t)iz * slab, drefl,
                    k == TSR__MIG_TERMS - 1, k >= TSR__MIG_TERMS - 2);
                TSR_CUDA_CHECK_LAUNCH(ctx, "k3_clenshaw");
            }
        }
        TSR_CUDA_TRY(ctx, cudaMemcpyAsync(rec + (size_t)f0 * cols, q, bytes, cudaMemcpyDeviceToHost,
                                          stream));
    }
    TSR_CUDA_TRY(ctx, cudaEventRecord(s->timer.stop, stream));
    TSR_CUDA_TRY(ctx, cudaStreamSynchronize(stream));
    if ((st = tsr__cuda_timer_ms(ctx, &s->timer, &s->loop_ms)))
        return st;
    return tsr__mig_report(ctx, progress, plan->nfreq);
}
