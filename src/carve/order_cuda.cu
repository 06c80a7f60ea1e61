/* The optimal order's transport map on the GPU: order.c's definition, bit for bit, filled by
 * anti-diagonals. Cell (i, j) needs image(i-1, j) and image(i, j-1), both on diagonal i+j-1, so
 * the cells of a diagonal are independent. Every image of a diagonal lives on the device in both
 * orientations (luma, and the mask when the grid has one: the normal one for vertical seams, the
 * transposed one for horizontal seams), in slot j mod S (S = min(r, c) + 1, the most cells a
 * diagonal has), one set of slots for diagonal d and one for d - 1. Per diagonal d, three
 * launches:
 *   tm_dp_kernel       one block per seam needed from diagonal d-1: the vertical seam of each
 *                      image in the normal orientation (for the cell to its right), the
 *                      horizontal one in the transposed orientation (for the cell below): the
 *                      DP of dp_cpu.c (keys with the mask terms, leftmost of equal candidates)
 *                      row by row in shared memory, choice codes to a plane, then seam_cpu.c's
 *                      leftmost minimum of the last row;
 *   tm_remove_kernel   one block per cell of diagonal d: T(i, j) and 'h' / 'v' exactly as order.c
 *                      decides them, the chosen seam traced back through its codes (one warp
 *                      loads 32 rows of codes around the seam, one lane walks them), and the
 *                      image without it written in that seam's orientation;
 *   tm_transpose_kernel  that image into the other orientation.
 * No host round trip but the progress report once a diagonal; at the end the choices are
 * fetched and walked back from (r, c) on the host. */
#include "cuda/cuda_internal.cuh"

extern "C" {
#include "carve/carve_cuda.h"
}

#include <string.h>

namespace
{

enum {
    TM_THREADS = 512, /* DP and removal blocks */
    TM_WALK = 32,     /* code rows a warp loads per step of the trace */
    TM_TILE = 32,     /* transpose tile */
    TM_TILE_ROWS = 8  /* transpose block: 32 x 8 threads */
};

/* Where diagonal d's images, codes and seams live (device pointers, set once). */
struct tm_params {
    int32_t w0, h0, r, c, slots; /* input size, seams, slots per diagonal */
    size_t plane;                /* w0 * h0 bytes: one image in one orientation */
    uint8_t *luma[2];            /* [orientation]: 2 * slots planes (diagonal parity, slot) */
    uint8_t *mask[2];            /* the same for the mask, or NULL */
    int8_t *codes;               /* [orientation][slot] planes of -1/0/+1 */
    uint64_t *key;               /* [orientation][slot]: the seam's key */
    int32_t *col;                /* [orientation][slot]: its last-row column */
    uint64_t *t;                 /* [parity][slot]: T of the slot's image */
    char *choice;                /* (r + 1) x (c + 1): 'h' or 'v' (row 0, column 0: unset) */
    uint64_t pen[4];
    int forward;
};

/* One image in one orientation: o = 0 normal (w0 - j wide, h0 - i high, pitch w0), o = 1
 * transposed (h0 - i wide, w0 - j high, pitch h0). */
struct tm_view {
    uint8_t *luma, *mask;
    int32_t w, h, pitch;
};

__device__ __forceinline__ tm_view view_of(const tm_params &p, int par, int32_t i, int32_t j, int o)
{
    const size_t s = (size_t)par * (size_t)p.slots + (size_t)(j % p.slots);
    tm_view v;
    v.luma = p.luma[o] + s * p.plane;
    v.mask = p.mask[o] ? p.mask[o] + s * p.plane : NULL;
    v.w = o ? p.h0 - i : p.w0 - j;
    v.h = o ? p.w0 - j : p.h0 - i;
    v.pitch = o ? p.h0 : p.w0;
    return v;
}

__device__ __forceinline__ uint64_t absdiff(int a, int b)
{
    return (uint64_t)(a > b ? a - b : b - a);
}

/* dp_cpu.c's cell (x, y) from the previous row's keys pm (NULL on row 0): its key and code. */
__device__ __forceinline__ uint64_t dp_cell(const tm_params &p, const tm_view &v, int32_t x,
                                            int32_t y, const uint64_t *pm, int8_t *code)
{
    const uint8_t *row = v.luma + (size_t)y * v.pitch;
    const int32_t xl = x > 0 ? x - 1 : 0, xr = x < v.w - 1 ? x + 1 : v.w - 1;
    const int l = row[xl], r = row[xr];
    uint64_t k = v.mask ? p.pen[v.mask[(size_t)y * v.pitch + x]] : 0;
    int8_t b = 0;
    if (!p.forward) {
        const uint8_t *up = v.luma + (size_t)(y > 0 ? y - 1 : y) * v.pitch;
        const uint8_t *dn = v.luma + (size_t)(y < v.h - 1 ? y + 1 : y) * v.pitch;
        k += absdiff(r, l) + absdiff(dn[x], up[x]);
        if (pm) {
            uint64_t best = pm[x];
            if (x > 0) {
                best = pm[x - 1];
                b = -1;
                if (pm[x] < best) {
                    best = pm[x];
                    b = 0;
                }
            }
            if (x < v.w - 1 && pm[x + 1] < best) {
                best = pm[x + 1];
                b = 1;
            }
            k += best;
        }
    } else {
        const uint64_t cu = absdiff(r, l);
        if (pm) {
            const int u = v.luma[(size_t)(y - 1) * v.pitch + x];
            uint64_t best = pm[x] + cu;
            if (x > 0) {
                best = pm[x - 1] + cu + absdiff(u, l);
                b = -1;
                if (pm[x] + cu < best) {
                    best = pm[x] + cu;
                    b = 0;
                }
            }
            if (x < v.w - 1) {
                const uint64_t cr = pm[x + 1] + cu + absdiff(u, r);
                if (cr < best) {
                    best = cr;
                    b = 1;
                }
            }
            k += best;
        } else {
            k += cu;
        }
    }
    *code = b;
    return k;
}

/* (key, column) pairs: the smaller key, the leftmost among equal keys. */
__device__ __forceinline__ void argmin_take(uint64_t *k, int32_t *x, uint64_t k2, int32_t x2)
{
    if (k2 < *k || (k2 == *k && x2 < *x)) {
        *k = k2;
        *x = x2;
    }
}

/* Block b of diagonal d: the seam of image (d-1-j, j), j = the diagonal's first + b / 2, in
 * orientation b & 1, when a cell of diagonal d needs it. Dynamic shared memory: two rows of
 * keys (2 x the widest row). */
__global__ void __launch_bounds__(TM_THREADS)
    tm_dp_kernel(const __grid_constant__ tm_params p, int32_t d)
{
    extern __shared__ uint64_t rows[];
    __shared__ uint64_t wk[TM_THREADS / 32];
    __shared__ int32_t wx[TM_THREADS / 32];
    const int32_t j = max(0, d - 1 - p.r) + (int32_t)blockIdx.x / 2, i = d - 1 - j;
    const int o = (int)(blockIdx.x & 1);
    if (o == 0 ? j + 1 > p.c : i + 1 > p.r)
        return; /* no cell of diagonal d takes this seam */
    const tm_view v = view_of(p, (d - 1) & 1, i, j, o);
    const size_t slot = (size_t)o * (size_t)p.slots + (size_t)(j % p.slots);
    int8_t *codes = p.codes + slot * p.plane;
    uint64_t *pm = rows, *cur = rows + v.w;
    const int32_t t = (int32_t)threadIdx.x;
    for (int32_t y = 0; y < v.h; y++) {
        for (int32_t x = t; x < v.w; x += TM_THREADS) {
            int8_t b;
            cur[x] = dp_cell(p, v, x, y, y > 0 ? pm : NULL, &b);
            codes[(size_t)y * v.pitch + x] = b;
        }
        __syncthreads();
        uint64_t *s = pm;
        pm = cur;
        cur = s;
    }
    /* pm: the last row */
    uint64_t k = ~(uint64_t)0;
    int32_t x = 0x7fffffff;
    for (int32_t c = t; c < v.w; c += TM_THREADS)
        argmin_take(&k, &x, pm[c], c);
    for (int off = 16; off > 0; off >>= 1)
        argmin_take(&k, &x, __shfl_down_sync(0xffffffffu, k, off),
                    __shfl_down_sync(0xffffffffu, x, off));
    if ((t & 31) == 0) {
        wk[t >> 5] = k;
        wx[t >> 5] = x;
    }
    __syncthreads();
    if (t == 0) {
        for (int w = 1; w < TM_THREADS / 32; w++)
            argmin_take(&k, &x, wk[w], wx[w]);
        p.key[slot] = k;
        p.col[slot] = x;
    }
}

/* Block b: cell (d - j, j), j = the diagonal's first + b. Dynamic shared memory: the seam's
 * columns (one int32 per row of the longer side). */
__global__ void __launch_bounds__(TM_THREADS)
    tm_remove_kernel(const __grid_constant__ tm_params p, int32_t d)
{
    extern __shared__ int32_t xs[];
    __shared__ int8_t win[TM_WALK][2 * TM_WALK];
    __shared__ int s_o;
    const int32_t j = max(0, d - p.r) + (int32_t)blockIdx.x, i = d - j;
    const int32_t t = (int32_t)threadIdx.x;
    const int prev = (d - 1) & 1, par = d & 1;
    if (t == 0) {
        /* order.c: ta through the horizontal seam of image(i-1, j), tb through the vertical
           seam of image(i, j-1); ties take the vertical one */
        const uint64_t none = ~(uint64_t)0;
        const size_t sh = (size_t)p.slots + (size_t)(j % p.slots);
        const size_t sv = (size_t)((j + p.slots - 1) % p.slots);
        const uint64_t ta = i > 0 ? p.t[(size_t)prev * p.slots + (size_t)(j % p.slots)] +
                                        (p.key[sh] & (TSR__CARVE_DROP_B - 1))
                                  : none;
        const uint64_t tb =
            j > 0 ? p.t[(size_t)prev * p.slots + sv] + (p.key[sv] & (TSR__CARVE_DROP_B - 1)) : none;
        const int h = ta < tb;
        p.t[(size_t)par * p.slots + (size_t)(j % p.slots)] = h ? ta : tb;
        p.choice[(size_t)i * (size_t)(p.c + 1) + (size_t)j] = h ? 'h' : 'v';
        s_o = h;
    }
    __syncthreads();
    const int o = s_o;
    /* the source: image(i-1, j) transposed, or image(i, j-1) normal */
    const tm_view src = o ? view_of(p, prev, i - 1, j, 1) : view_of(p, prev, i, j - 1, 0);
    const size_t slot =
        o ? (size_t)p.slots + (size_t)(j % p.slots) : (size_t)((j + p.slots - 1) % p.slots);
    const int8_t *codes = p.codes + slot * p.plane;
    /* the trace, warp 0: rows y, y-1, ..., y-31 of the codes around the seam's column into
       win (lane l loads columns x - 32 + 2l, + 1 of each), then lane 0 walks them */
    if (t < 32) {
        int32_t x = p.col[slot];
        for (int32_t y = src.h - 1; y >= 0; y -= TM_WALK) {
            const int32_t n = y + 1 < TM_WALK ? y + 1 : TM_WALK;
            for (int32_t k = 0; k < n; k++)
                for (int32_t q = 0; q < 2; q++) {
                    const int32_t cx = x - TM_WALK + 2 * t + q;
                    win[k][2 * t + q] =
                        cx >= 0 && cx < src.w ? codes[(size_t)(y - k) * src.pitch + cx] : 0;
                }
            __syncwarp();
            if (t == 0) {
                int32_t wx = x;
                for (int32_t k = 0; k < n; k++) {
                    xs[y - k] = wx;
                    wx += win[k][wx - x + TM_WALK];
                }
                x = wx;
            }
            x = __shfl_sync(0xffffffffu, x, 0);
            __syncwarp();
        }
    }
    __syncthreads();
    /* the image without the seam, in the seam's orientation */
    const tm_view dst = o ? view_of(p, par, i, j, 1) : view_of(p, par, i, j, 0);
    for (int32_t y = t >> 5; y < src.h; y += TM_THREADS / 32) {
        const int32_t cut = xs[y];
        const size_t rs = (size_t)y * src.pitch;
        for (int32_t x = t & 31; x < dst.w; x += 32) {
            const int32_t from = x + (x >= cut);
            dst.luma[rs + x] = src.luma[rs + from];
            if (dst.mask)
                dst.mask[rs + x] = src.mask[rs + from];
        }
    }
}

/* Block (b, cell): tile b of cell (d - j, j)'s image, from the orientation its seam was removed
 * in into the other one. */
__global__ void __launch_bounds__(TM_TILE *TM_TILE_ROWS)
    tm_transpose_kernel(const __grid_constant__ tm_params p, int32_t d)
{
    __shared__ uint8_t tile[2][TM_TILE][TM_TILE + 1];
    const int32_t j = max(0, d - p.r) + (int32_t)blockIdx.y, i = d - j;
    const int o = p.choice[(size_t)i * (size_t)(p.c + 1) + (size_t)j] == 'h';
    const tm_view s = view_of(p, d & 1, i, j, o), t = view_of(p, d & 1, i, j, !o);
    const int32_t tx = (s.w + TM_TILE - 1) / TM_TILE;
    const int32_t bx = (int32_t)blockIdx.x % tx, by = (int32_t)blockIdx.x / tx;
    if (by * TM_TILE >= s.h)
        return;
    const int32_t x = bx * TM_TILE + (int32_t)threadIdx.x;
    for (int32_t k = (int32_t)threadIdx.y; k < TM_TILE; k += TM_TILE_ROWS) {
        const int32_t y = by * TM_TILE + k;
        if (x < s.w && y < s.h) {
            tile[0][k][threadIdx.x] = s.luma[(size_t)y * s.pitch + x];
            if (s.mask)
                tile[1][k][threadIdx.x] = s.mask[(size_t)y * s.pitch + x];
        }
    }
    __syncthreads();
    const int32_t ox = by * TM_TILE + (int32_t)threadIdx.x; /* a source row */
    for (int32_t k = (int32_t)threadIdx.y; k < TM_TILE; k += TM_TILE_ROWS) {
        const int32_t oy = bx * TM_TILE + k; /* a source column */
        if (ox < s.h && oy < s.w) {
            t.luma[(size_t)oy * t.pitch + ox] = tile[0][threadIdx.x][k];
            if (t.mask)
                t.mask[(size_t)oy * t.pitch + ox] = tile[1][threadIdx.x][k];
        }
    }
}

/* tm_dp_kernel's dynamic shared memory: two rows of keys of the widest row. */
size_t keys_bytes(int32_t side)
{
    return 2 * (size_t)side * sizeof(uint64_t);
}

/* tm_remove_kernel's: one seam column per row of the longest side. */
size_t seam_bytes(int32_t side)
{
    return (size_t)side * sizeof(int32_t);
}

struct tm_buffers {
    void *p[7];
};

void free_all(tm_buffers *b)
{
    for (int k = 0; k < 7; k++)
        if (b->p[k])
            cudaFree(b->p[k]);
}

} // namespace

extern "C" int tsr__carve_cuda_order_fits(tsr_ctx *ctx, const tsr__carve_grid *g, int32_t r,
                                          int32_t c)
{
    if (!ctx->cuda || r < 0 || c < 0 || r >= g->h || c >= g->w)
        return 0;
    const int32_t side = g->w > g->h ? g->w : g->h;
    const size_t smem = (size_t)ctx->cuda->prop.sharedMemPerBlockOptin;
    if (keys_bytes(side) > smem || seam_bytes(side) + sizeof(int8_t) * 2 * TM_WALK * TM_WALK > smem)
        return 0;
    /* both orientations of 2 x slots images (and masks), the slots' code planes, the choices */
    const size_t slots = (size_t)(r < c ? r : c) + 1, plane = (size_t)g->w * (size_t)g->h;
    const size_t need =
        plane * slots * (2 * 2 * (g->mask ? 2 : 1) + 2) + (size_t)(r + 1) * (size_t)(c + 1);
    size_t free_b = 0, total = 0;
    return cudaMemGetInfo(&free_b, &total) == cudaSuccess && need < free_b / 10 * 8;
}

extern "C" tsr_status tsr__carve_cuda_optimal_order(tsr_ctx *ctx, const tsr__carve_grid *g,
                                                    int32_t r, int32_t c, tsr_carve_energy kind,
                                                    const uint64_t pen[4], char *moves)
{
    cudaStream_t s = ctx->cuda->stream;
    const int32_t w0 = g->w, h0 = g->h, side = w0 > h0 ? w0 : h0;
    tm_params p;
    memset(&p, 0, sizeof p);
    p.w0 = w0;
    p.h0 = h0;
    p.r = r;
    p.c = c;
    p.slots = (r < c ? r : c) + 1;
    p.plane = (size_t)w0 * (size_t)h0;
    p.forward = kind == TSR_CARVE_FORWARD;
    for (int k = 0; k < 4; k++)
        p.pen[k] = pen[k];
    const size_t images = 2 * (size_t)p.slots * p.plane, cells = (size_t)(r + 1) * (size_t)(c + 1);
    tm_buffers b;
    memset(&b, 0, sizeof b);
    cudaError_t e = cudaSuccess;
    void **q = b.p;
    size_t sizes[7] = {2 * images,
                       g->mask ? 2 * images : 0,
                       2 * (size_t)p.slots * p.plane,
                       2 * (size_t)p.slots * sizeof(uint64_t),
                       2 * (size_t)p.slots * sizeof(int32_t),
                       2 * (size_t)p.slots * sizeof(uint64_t),
                       cells};
    for (int k = 0; k < 7 && e == cudaSuccess; k++)
        if (sizes[k])
            e = cudaMalloc(&q[k], sizes[k]);
    if (e != cudaSuccess) {
        free_all(&b);
        return tsr__cuda_error(ctx, e, "cudaMalloc (transport map)", __FILE__, __LINE__);
    }
    p.luma[0] = (uint8_t *)q[0];
    p.luma[1] = p.luma[0] + images;
    if (q[1]) {
        p.mask[0] = (uint8_t *)q[1];
        p.mask[1] = p.mask[0] + images;
    }
    p.codes = (int8_t *)q[2];
    p.key = (uint64_t *)q[3];
    p.col = (int32_t *)q[4];
    p.t = (uint64_t *)q[5];
    p.choice = (char *)q[6];
    tsr_status st = TSR_OK;
#define TM_TRY(call)                                                                               \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e_ != cudaSuccess) {                                                                   \
            st = tsr__cuda_error(ctx, e_, #call, __FILE__, __LINE__);                              \
            goto done;                                                                             \
        }                                                                                          \
    } while (0)
    TM_TRY(cudaFuncSetAttribute(tm_dp_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                (int)keys_bytes(side)));
    TM_TRY(cudaFuncSetAttribute(tm_remove_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                (int)seam_bytes(side)));
    /* diagonal 0: the input, normal orientation, then its transpose; T(0, 0) = 0 */
    TM_TRY(cudaMemcpy2DAsync(p.luma[0], (size_t)w0, g->luma, (size_t)g->pitch, (size_t)w0,
                             (size_t)h0, cudaMemcpyHostToDevice, s));
    if (p.mask[0])
        TM_TRY(cudaMemcpy2DAsync(p.mask[0], (size_t)w0, g->mask, (size_t)g->pitch, (size_t)w0,
                                 (size_t)h0, cudaMemcpyHostToDevice, s));
    TM_TRY(cudaMemsetAsync(p.t, 0, sizeof(uint64_t), s));
    /* cell (0, 0) "removed a vertical seam": its transpose goes normal -> transposed */
    TM_TRY(cudaMemsetAsync(p.choice, 'v', 1, s));
    {
        const unsigned tiles =
            (unsigned)(((w0 + TM_TILE - 1) / TM_TILE) * ((h0 + TM_TILE - 1) / TM_TILE));
        const dim3 tb(TM_TILE, TM_TILE_ROWS);
        tm_transpose_kernel<<<dim3(tiles, 1), tb, 0, s>>>(p, 0);
        TM_TRY(cudaGetLastError());
        for (int32_t d = 1; d <= r + c && st == TSR_OK; d++) {
            const int32_t lo = d - r > 0 ? d - r : 0, hi = d < c ? d : c;
            const int32_t plo = d - 1 - r > 0 ? d - 1 - r : 0, phi = d - 1 < c ? d - 1 : c;
            tm_dp_kernel<<<(unsigned)(2 * (phi - plo + 1)), TM_THREADS, keys_bytes(side), s>>>(p,
                                                                                               d);
            TM_TRY(cudaGetLastError());
            tm_remove_kernel<<<(unsigned)(hi - lo + 1), TM_THREADS, seam_bytes(side), s>>>(p, d);
            TM_TRY(cudaGetLastError());
            tm_transpose_kernel<<<dim3(tiles, (unsigned)(hi - lo + 1)), tb, 0, s>>>(p, d);
            TM_TRY(cudaGetLastError());
            TM_TRY(cudaStreamSynchronize(s));
            st = tsr__progress(ctx, "carve: transport map", d, r + c);
        }
    }
    if (st == TSR_OK) {
        char *choice;
        if ((st = tsr__alloc(ctx, cells, (void **)&choice)) != TSR_OK)
            goto done;
        e = cudaMemcpy(choice, p.choice, cells, cudaMemcpyDeviceToHost);
        if (e != cudaSuccess) {
            tsr__free(ctx, choice);
            st = tsr__cuda_error(ctx, e, "cudaMemcpy (transport map choices)", __FILE__, __LINE__);
            goto done;
        }
        tsr__carve_order_walk(choice, r, c, moves);
        tsr__free(ctx, choice);
    }
#undef TM_TRY
done:
    free_all(&b);
    return st;
}
