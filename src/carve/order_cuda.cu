/* The optimal order's transport map on the GPU: order.c's definition, bit for bit, filled by
 * anti-diagonals. Cell (i, j) needs image(i-1, j) and image(i, j-1), both on diagonal i+j-1, so
 * the cells of a diagonal are independent. Every image of a diagonal lives on the device in both
 * orientations (luma, and the mask when the grid has one: the normal one for vertical seams, the
 * transposed one for horizontal seams), in slot j mod S (S = min(r, c) + 1, the most cells a
 * diagonal has), one set of slots for diagonal d and one for d - 1. Per diagonal d, four
 * launches:
 *   tm_dp_kernel       one block per seam needed from diagonal d-1: the vertical seam of each
 *                      image in the normal orientation (for the cell to its right), the
 *                      horizontal one in the transposed orientation (for the cell below): the
 *                      DP of dp_cpu.c (keys with the mask terms, leftmost of equal candidates)
 *                      row by row in shared memory, choice codes to a plane, then seam_cpu.c's
 *                      leftmost minimum of the last row;
 *   tm_trace_kernel    one warp per cell of diagonal d: T(i, j) and 'h' / 'v' exactly as order.c
 *                      decides them, and the chosen seam traced back through its codes (the warp
 *                      loads 32 rows of codes around the seam, one lane walks them);
 *   tm_cut_kernel      the cell's image without that seam, in the seam's orientation (blocks of
 *                      rows, a warp a row);
 *   tm_transpose_kernel  that image into the other orientation.
 * No host round trip but the progress report once a diagonal. Then the choices are fetched and
 * walked back from (r, c) on the host (tsr__carve_order_walk), and the path's seams, kept per
 * cell, are applied in order to a plane of positions on the device (tm_apply_kernel, one
 * launch a move), which tells the host which input pixel each output pixel is. */
#include "cuda/cuda_internal.cuh"

extern "C" {
#include "carve/carve_cuda.h"
}
#include "carve/dp_hd.h"

#include <cuda_pipeline.h>
#include <string.h>

namespace
{

enum {
    TM_THREADS = 512,     /* DP blocks */
    TM_RING = 4,          /* rows of luma (and mask) a DP block keeps in shared memory */
    TM_AHEAD = 2,         /* rows staged ahead of the one computed (TM_AHEAD + 2 <= TM_RING;
                             5 of 8 measured no faster than 2 of 4: the row is not waiting on
                             its loads) */
    TM_WALK = 32,         /* code rows a warp loads per step of the trace */
    TM_CUT_THREADS = 256, /* removal blocks: a warp a row */
    TM_CUT_ROWS = 64,     /* rows per removal block */
    TM_TILE = 32,         /* transpose tile */
    TM_TILE_ROWS = 8      /* transpose block: 32 x 8 threads */
};

/* Where diagonal d's images, codes and seams live (device pointers, set once). */
struct tm_params {
    int32_t w0, h0, r, c, slots; /* input size, seams, slots per diagonal */
    int32_t pitch[2];            /* [orientation]: row pitch, a multiple of 16 bytes */
    size_t plane;                /* bytes of one image in either orientation */
    uint8_t *luma[2];            /* [orientation]: 2 * slots planes (diagonal parity, slot) */
    uint8_t *mask[2];            /* the same for the mask, or NULL */
    int8_t *codes;               /* [orientation][slot] planes of -1/0/+1 */
    uint16_t *seam;              /* [cell (i, j)]: the column of its removed seam, per row */
    int32_t side;                /* max(w0, h0): the seams' stride */
    uint64_t *key;               /* [orientation][slot]: the seam's key */
    int32_t *col;                /* [orientation][slot]: its last-row column */
    uint64_t *t;                 /* [parity][slot]: T of the slot's image */
    char *choice; /* (r + 1) x (c + 1): 'h' or 'v' (cell (0, 0): 'v', for its transpose) */
    uint64_t pen[4];
    int forward;
};

/* One image in one orientation: o = 0 normal (w0 - j wide, h0 - i high), o = 1 transposed
 * (h0 - i wide, w0 - j high); rows 16-byte aligned. */
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
    v.pitch = p.pitch[o];
    return v;
}

/* dp_cpu.c's cell x of a row from the previous row's keys pm (NULL on row 0): its key and code.
 * row, up, dn: the luma of the row, the one above and the one below (clamped: the row itself at
 * the image's edge); mrow: the row's mask or NULL. */
__device__ __forceinline__ uint64_t dp_cell(const tm_params &p, int32_t w, int32_t x,
                                            const uint8_t *row, const uint8_t *up,
                                            const uint8_t *dn, const uint8_t *mrow,
                                            const uint64_t *pm, int8_t *code)
{
    const int l = row[x > 0 ? x - 1 : 0], r = row[x < w - 1 ? x + 1 : w - 1];
    uint64_t k = mrow ? p.pen[mrow[x]] : 0;
    *code = 0;
    if (!p.forward) /* energy_hd.h's backward energy, then the least predecessor */
        k += tsr__carve_energy_of(l, r, up[x], dn[x]) +
             (pm ? tsr__carve_dp_best(pm, x, w, code) : 0);
    else
        k +=
            pm ? tsr__carve_dp_best_forward(pm, x, w, l, r, up[x], code) : tsr__carve_absdiff(r, l);
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

/* Row y of v's luma (and mask) into slot y % TM_RING of the rings, by asynchronous 16-byte
 * copies (the rows' pitch is a multiple of 16 and the copies stay within it); one commit group,
 * empty for rows past the image (so that every row counts one group). */
__device__ __forceinline__ void stage_row(const tm_view &v, int32_t y, uint8_t *lring,
                                          uint8_t *mring)
{
    const size_t src = (size_t)y * (size_t)v.pitch;
    const size_t dst = (size_t)(y % TM_RING) * (size_t)v.pitch;
    for (int32_t k = (int32_t)threadIdx.x * 16; y < v.h && k < v.w; k += TM_THREADS * 16) {
        __pipeline_memcpy_async(lring + dst + k, v.luma + src + k, 16);
        if (v.mask)
            __pipeline_memcpy_async(mring + dst + k, v.mask + src + k, 16);
    }
    __pipeline_commit();
}

/* Block b of diagonal d: the seam of image (d-1-j, j), j = the diagonal's first + b / 2, in
 * orientation b & 1, when a cell of diagonal d needs it. Dynamic shared memory (dp_smem): two
 * rows of keys, then rings of TM_RING luma rows (and mask rows), row y + TM_AHEAD staged while
 * row y is computed, so a row's copies have TM_AHEAD - 2 rows of time to land. */
__global__ void __launch_bounds__(TM_THREADS)
    tm_dp_kernel(const __grid_constant__ tm_params p, int32_t d, int32_t side)
{
    extern __shared__ __align__(16) uint8_t smem[];
    __shared__ uint64_t wk[TM_THREADS / 32];
    __shared__ int32_t wx[TM_THREADS / 32];
    const int32_t j = max(0, d - 1 - p.r) + (int32_t)blockIdx.x / 2, i = d - 1 - j;
    const int o = (int)(blockIdx.x & 1);
    if (o == 0 ? j + 1 > p.c : i + 1 > p.r)
        return; /* no cell of diagonal d takes this seam */
    const tm_view v = view_of(p, (d - 1) & 1, i, j, o);
    const size_t slot = (size_t)o * (size_t)p.slots + (size_t)(j % p.slots);
    int8_t *codes = p.codes + slot * p.plane;
    uint64_t *pm = (uint64_t *)smem, *cur = pm + v.w;
    uint8_t *lring = smem + 2 * (size_t)side * sizeof(uint64_t);
    uint8_t *mring = lring + TM_RING * (size_t)max(p.pitch[0], p.pitch[1]);
    const int32_t t = (int32_t)threadIdx.x;
    for (int32_t y = 0; y < TM_AHEAD; y++)
        stage_row(v, y, lring, mring);
    __pipeline_wait_prior(TM_AHEAD - 2); /* rows 0 and 1 landed */
    __syncthreads();
    for (int32_t y = 0; y < v.h; y++) {
        stage_row(v, y + TM_AHEAD, lring, mring);
        const uint8_t *row = lring + (size_t)(y % TM_RING) * v.pitch;
        const uint8_t *up = lring + (size_t)((y > 0 ? y - 1 : y) % TM_RING) * v.pitch;
        const uint8_t *dn = lring + (size_t)((y < v.h - 1 ? y + 1 : y) % TM_RING) * v.pitch;
        const uint8_t *mrow = v.mask ? mring + (size_t)(y % TM_RING) * v.pitch : NULL;
        for (int32_t x = t; x < v.w; x += TM_THREADS) {
            int8_t b;
            cur[x] = dp_cell(p, v.w, x, row, up, dn, mrow, y > 0 ? pm : NULL, &b);
            codes[(size_t)y * v.pitch + x] = b;
        }
        __pipeline_wait_prior(TM_AHEAD - 2); /* rows up to y + 2: the next row's three */
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

/* Warp b: cell (d - j, j), j = the diagonal's first + b: T(i, j) and the choice as order.c
 * makes them, then the chosen seam's columns into p.seam (rows y, y-1, ..., y-31 of the codes
 * around the seam's column into win, lane l loading columns x - 32 + 2l and + 1, then lane 0
 * walks them). */
__global__ void __launch_bounds__(32)
    tm_trace_kernel(const __grid_constant__ tm_params p, int32_t d)
{
    __shared__ int8_t win[TM_WALK][2 * TM_WALK];
    const int32_t j = max(0, d - p.r) + (int32_t)blockIdx.x, i = d - j;
    const int32_t t = (int32_t)threadIdx.x;
    const int prev = (d - 1) & 1, par = d & 1;
    /* ta through the horizontal seam of image(i-1, j), tb through the vertical seam of
       image(i, j-1); ties take the vertical one */
    const uint64_t none = ~(uint64_t)0;
    const size_t sh = (size_t)p.slots + (size_t)(j % p.slots);
    const size_t sv = (size_t)((j + p.slots - 1) % p.slots);
    const uint64_t ta = i > 0 ? p.t[(size_t)prev * p.slots + (size_t)(j % p.slots)] +
                                    (p.key[sh] & (TSR__CARVE_DROP_B - 1))
                              : none;
    const uint64_t tb =
        j > 0 ? p.t[(size_t)prev * p.slots + sv] + (p.key[sv] & (TSR__CARVE_DROP_B - 1)) : none;
    const int o = ta < tb;
    if (t == 0) {
        p.t[(size_t)par * p.slots + (size_t)(j % p.slots)] = o ? ta : tb;
        p.choice[(size_t)i * (size_t)(p.c + 1) + (size_t)j] = o ? 'h' : 'v';
    }
    /* the seam: of image(i-1, j) transposed, or of image(i, j-1) normal */
    const tm_view src = o ? view_of(p, prev, i - 1, j, 1) : view_of(p, prev, i, j - 1, 0);
    const size_t slot = o ? sh : sv;
    const int8_t *codes = p.codes + slot * p.plane;
    uint16_t *xs = p.seam + ((size_t)i * (size_t)(p.c + 1) + (size_t)j) * (size_t)p.side;
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
                xs[y - k] = (uint16_t)wx;
                wx += win[k][wx - x + TM_WALK];
            }
            x = wx;
        }
        x = __shfl_sync(0xffffffffu, x, 0);
        __syncwarp(); /* lane 0's reads of win before the next rows overwrite it */
    }
}

/* Block (b, cell): rows [b TM_CUT_ROWS, (b + 1) TM_CUT_ROWS) of cell (d - j, j)'s image: the
 * source image without the seam tm_trace_kernel traced, in the seam's orientation; a warp a
 * row, four bytes a lane (rows are 16-byte aligned; the padding past the width is written too). */
__global__ void __launch_bounds__(TM_CUT_THREADS)
    tm_cut_kernel(const __grid_constant__ tm_params p, int32_t d)
{
    const int32_t j = max(0, d - p.r) + (int32_t)blockIdx.y, i = d - j;
    const int o = p.choice[(size_t)i * (size_t)(p.c + 1) + (size_t)j] == 'h';
    const tm_view src =
        o ? view_of(p, (d - 1) & 1, i - 1, j, 1) : view_of(p, (d - 1) & 1, i, j - 1, 0);
    const tm_view dst = view_of(p, d & 1, i, j, o);
    const uint16_t *xs = p.seam + ((size_t)i * (size_t)(p.c + 1) + (size_t)j) * (size_t)p.side;
    const int32_t lane = (int32_t)threadIdx.x & 31;
    const int32_t y1 = min(src.h, ((int32_t)blockIdx.x + 1) * TM_CUT_ROWS);
    for (int32_t y = (int32_t)blockIdx.x * TM_CUT_ROWS + ((int32_t)threadIdx.x >> 5); y < y1;
         y += TM_CUT_THREADS / 32) {
        const int32_t cut = xs[y];
        const size_t rs = (size_t)y * src.pitch;
        for (int32_t x = 4 * lane; x < dst.w; x += 128) {
            uint32_t l = 0, m = 0;
            for (int32_t q = 0; q < 4; q++) {
                const int32_t from = min(x + q + (x + q >= cut), src.w - 1);
                l |= (uint32_t)src.luma[rs + from] << (8 * q);
                if (src.mask)
                    m |= (uint32_t)src.mask[rs + from] << (8 * q);
            }
            *(uint32_t *)(dst.luma + rs + x) = l;
            if (dst.mask)
                *(uint32_t *)(dst.mask + rs + x) = m;
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

/* One move of the path applied to the positions (w0 pitch) of an image of w x h: a vertical
 * seam (cols[y] per row) or a horizontal one (rows[x] per column) removed, in into out. */
__global__ void tm_apply_kernel(const uint32_t *__restrict__ in, uint32_t *__restrict__ out,
                                int32_t w0, int32_t w, int32_t h, const uint16_t *seam, int horiz)
{
    const int32_t x = (int32_t)(blockIdx.x * blockDim.x + threadIdx.x), y = (int32_t)blockIdx.y;
    if (horiz ? (x >= w || y >= h - 1) : (x >= w - 1 || y >= h))
        return;
    const int32_t sy = horiz ? y + (y >= seam[x]) : y, sx = horiz ? x : x + (x >= seam[y]);
    out[(size_t)y * (size_t)w0 + (size_t)x] = in[(size_t)sy * (size_t)w0 + (size_t)sx];
}

/* The identity positions y * w0 + x of a w0 x h0 image. */
__global__ void tm_identity_kernel(uint32_t *pos, int32_t w0, int32_t h0)
{
    const int32_t x = (int32_t)(blockIdx.x * blockDim.x + threadIdx.x), y = (int32_t)blockIdx.y;
    if (x < w0 && y < h0)
        pos[(size_t)y * (size_t)w0 + (size_t)x] = (uint32_t)((size_t)y * (size_t)w0 + (size_t)x);
}

/* A row pitch: n bytes rounded up to 16 (stage_row's copies). */
int32_t pitch_of(int32_t n)
{
    return (n + 15) & ~15;
}

/* Bytes of one image of w x h in either orientation. */
size_t plane_bytes(int32_t w, int32_t h)
{
    const size_t n = (size_t)pitch_of(w) * (size_t)h, t = (size_t)pitch_of(h) * (size_t)w;
    return n > t ? n : t;
}

/* tm_dp_kernel's dynamic shared memory for a w x h input: two rows of keys of the longest
 * side, TM_RING luma rows (and as many mask rows) of the widest pitch. */
size_t dp_smem(int32_t w, int32_t h, int mask)
{
    const int32_t side = w > h ? w : h, pitch = pitch_of(side);
    return 2 * (size_t)side * sizeof(uint64_t) + (size_t)TM_RING * (mask ? 2 : 1) * (size_t)pitch;
}

enum { TM_BUFFERS = 9 };

void free_all(void **b)
{
    for (int k = 0; k < TM_BUFFERS; k++)
        if (b[k])
            cudaFree(b[k]);
}

} // namespace

extern "C" int tsr__carve_cuda_order_fits(tsr_ctx *ctx, const tsr__carve_grid *g, int32_t r,
                                          int32_t c)
{
    if (!ctx->cuda || r < 0 || c < 0 || r >= g->h || c >= g->w)
        return 0;
    const int32_t side = g->w > g->h ? g->w : g->h;
    const size_t smem = (size_t)ctx->cuda->prop.sharedMemPerBlockOptin;
    if (dp_smem(g->w, g->h, g->mask != NULL) > smem)
        return 0;
    /* both orientations of 2 x slots images (and masks), the slots' code planes, the cells'
       choices and seams, two planes of positions */
    const size_t slots = (size_t)(r < c ? r : c) + 1, plane = plane_bytes(g->w, g->h);
    const size_t cells = (size_t)(r + 1) * (size_t)(c + 1);
    const size_t need = plane * slots * (2 * 2 * (g->mask ? 2 : 1) + 2) +
                        cells * (1 + (size_t)side * sizeof(uint16_t)) +
                        plane * 2 * sizeof(uint32_t);
    size_t free_b = 0, total = 0;
    return cudaMemGetInfo(&free_b, &total) == cudaSuccess && need < free_b / 10 * 8;
}

extern "C" tsr_status tsr__carve_cuda_optimal(tsr_ctx *ctx, const tsr__carve_grid *g, int32_t r,
                                              int32_t c, tsr_carve_energy kind,
                                              const uint64_t pen[4], uint32_t *keep,
                                              uint64_t *energy, double *ms)
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
    p.pitch[0] = pitch_of(w0);
    p.pitch[1] = pitch_of(h0);
    p.plane = plane_bytes(w0, h0);
    p.forward = kind == TSR_CARVE_FORWARD;
    for (int k = 0; k < 4; k++)
        p.pen[k] = pen[k];
    p.side = side;
    const size_t images = 2 * (size_t)p.slots * p.plane, cells = (size_t)(r + 1) * (size_t)(c + 1);
    const size_t per_slot = 2 * (size_t)p.slots;
    void *q[TM_BUFFERS];
    const size_t sizes[TM_BUFFERS] = {2 * images,
                                      g->mask ? 2 * images : 0,
                                      per_slot * p.plane,
                                      per_slot * sizeof(uint64_t),
                                      per_slot * sizeof(int32_t),
                                      per_slot * sizeof(uint64_t),
                                      cells,
                                      cells * (size_t)side * sizeof(uint16_t),
                                      2 * (size_t)w0 * (size_t)h0 * sizeof(uint32_t)};
    tsr__cuda_timer timer = {NULL, NULL};
    char *moves = NULL, *choice = NULL;
    tsr_status st = TSR_OK;
    uint32_t *pos[2];
    memset(q, 0, sizeof q);
    for (int k = 0; k < TM_BUFFERS; k++)
        if (sizes[k])
            TSR_CUDA_TRY_GOTO(ctx, st, done, cudaMalloc(&q[k], sizes[k]));
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
    p.seam = (uint16_t *)q[7];
    pos[0] = (uint32_t *)q[8];
    pos[1] = pos[0] + (size_t)w0 * (size_t)h0;
    TSR_CUDA_TRY_GOTO(ctx, st, done,
                      cudaFuncSetAttribute(tm_dp_kernel,
                                           cudaFuncAttributeMaxDynamicSharedMemorySize,
                                           (int)dp_smem(w0, h0, g->mask != NULL)));
    if ((st = tsr__cuda_timer_create(ctx, &timer)) != TSR_OK)
        goto done;
    /* diagonal 0: the input, normal orientation, then its transpose; T(0, 0) = 0 */
    TSR_CUDA_TRY_GOTO(ctx, st, done,
                      cudaMemcpy2DAsync(p.luma[0], (size_t)p.pitch[0], g->luma, (size_t)g->pitch,
                                        (size_t)w0, (size_t)h0, cudaMemcpyHostToDevice, s));
    if (p.mask[0])
        TSR_CUDA_TRY_GOTO(ctx, st, done,
                          cudaMemcpy2DAsync(p.mask[0], (size_t)p.pitch[0], g->mask,
                                            (size_t)g->pitch, (size_t)w0, (size_t)h0,
                                            cudaMemcpyHostToDevice, s));
    TSR_CUDA_TRY_GOTO(ctx, st, done, cudaEventRecord(timer.start, s));
    TSR_CUDA_TRY_GOTO(ctx, st, done, cudaMemsetAsync(p.t, 0, sizeof(uint64_t), s));
    /* cell (0, 0) "removed a vertical seam": its transpose goes normal -> transposed */
    TSR_CUDA_TRY_GOTO(ctx, st, done, cudaMemsetAsync(p.choice, 'v', 1, s));
    {
        const unsigned tiles =
            (unsigned)(((w0 + TM_TILE - 1) / TM_TILE) * ((h0 + TM_TILE - 1) / TM_TILE));
        const dim3 tb(TM_TILE, TM_TILE_ROWS);
        const unsigned cut_blocks = (unsigned)((side + TM_CUT_ROWS - 1) / TM_CUT_ROWS);
        tm_transpose_kernel<<<dim3(tiles, 1), tb, 0, s>>>(p, 0);
        TSR_CUDA_TRY_GOTO(ctx, st, done, cudaGetLastError());
        for (int32_t d = 1; d <= r + c && st == TSR_OK; d++) {
            const int32_t lo = d - r > 0 ? d - r : 0, hi = d < c ? d : c;
            const int32_t plo = d - 1 - r > 0 ? d - 1 - r : 0, phi = d - 1 < c ? d - 1 : c;
            tm_dp_kernel<<<(unsigned)(2 * (phi - plo + 1)), TM_THREADS,
                           dp_smem(w0, h0, g->mask != NULL), s>>>(p, d, side);
            TSR_CUDA_TRY_GOTO(ctx, st, done, cudaGetLastError());
            tm_trace_kernel<<<(unsigned)(hi - lo + 1), 32, 0, s>>>(p, d);
            TSR_CUDA_TRY_GOTO(ctx, st, done, cudaGetLastError());
            tm_cut_kernel<<<dim3(cut_blocks, (unsigned)(hi - lo + 1)), TM_CUT_THREADS, 0, s>>>(p,
                                                                                               d);
            TSR_CUDA_TRY_GOTO(ctx, st, done, cudaGetLastError());
            tm_transpose_kernel<<<dim3(tiles, (unsigned)(hi - lo + 1)), tb, 0, s>>>(p, d);
            TSR_CUDA_TRY_GOTO(ctx, st, done, cudaGetLastError());
            TSR_CUDA_TRY_GOTO(ctx, st, done, cudaStreamSynchronize(s));
            st = tsr__progress(ctx, "carve: transport map", d, r + c);
        }
    }
    if (st != TSR_OK)
        goto done;
    /* the path, and its seams applied to the positions; T(r, c) */
    if ((st = tsr__alloc(ctx, cells + (size_t)r + (size_t)c, (void **)&choice)) != TSR_OK)
        goto done;
    moves = choice + cells;
    TSR_CUDA_TRY_GOTO(ctx, st, done, cudaMemcpy(choice, p.choice, cells, cudaMemcpyDeviceToHost));
    TSR_CUDA_TRY_GOTO(
        ctx, st, done,
        cudaMemcpy(energy, p.t + (size_t)((r + c) & 1) * (size_t)p.slots + (size_t)(c % p.slots),
                   sizeof *energy, cudaMemcpyDeviceToHost));
    tsr__carve_order_walk(choice, r, c, moves);
    tm_identity_kernel<<<dim3((unsigned)(w0 + 255) / 256, (unsigned)h0), 256, 0, s>>>(pos[0], w0,
                                                                                      h0);
    TSR_CUDA_TRY_GOTO(ctx, st, done, cudaGetLastError());
    for (int32_t k = 0, i = 0, j = 0; k < r + c; k++) {
        const int horiz = moves[k] == 'h';
        const int32_t w = w0 - j, h = h0 - i; /* before the move */
        i += horiz;
        j += !horiz;
        const uint16_t *seam = p.seam + ((size_t)i * (size_t)(c + 1) + (size_t)j) * (size_t)side;
        tm_apply_kernel<<<dim3((unsigned)(w + 255) / 256, (unsigned)h), 256, 0, s>>>(
            pos[k & 1], pos[!(k & 1)], w0, w, h, seam, horiz);
        TSR_CUDA_TRY_GOTO(ctx, st, done, cudaGetLastError());
    }
    TSR_CUDA_TRY_GOTO(ctx, st, done, cudaEventRecord(timer.stop, s));
    TSR_CUDA_TRY_GOTO(ctx, st, done,
                      cudaMemcpy2DAsync(keep, (size_t)(w0 - c) * sizeof(uint32_t), pos[(r + c) & 1],
                                        (size_t)w0 * sizeof(uint32_t),
                                        (size_t)(w0 - c) * sizeof(uint32_t), (size_t)(h0 - r),
                                        cudaMemcpyDeviceToHost, s));
    TSR_CUDA_TRY_GOTO(ctx, st, done, cudaStreamSynchronize(s));
    st = tsr__cuda_timer_ms(ctx, &timer, ms);
done:
    tsr__free(ctx, choice);
    tsr__cuda_timer_destroy(&timer);
    free_all(q);
    return st;
}
