/* The per-thread bodies of the CUDA layout kernels (layout_cuda.cu), written once as
 * __host__ __device__ functions so that a CPU test (tests/unit/test_layout_device_logic.c) runs
 * exactly the kernels' code over every (proposal, edge) pair and compares it with the CPU
 * evaluators without a GPU. Compiled as C11 (host) and as CUDA C++ (nvcc): no C++-only or
 * C-only constructs. On the host the atomics are plain read-modify-writes (the emulation runs
 * the threads of a launch one after another, which gives the same integer sums as any order of
 * atomic additions on the device).
 *
 * Geometry: the exact int64 orientation of geometry.h, repeated here (geometry.h is host-only);
 * the CPU test checks the two agree. */
#ifndef TSR_LAYOUT_CUDA_LOGIC_H
#define TSR_LAYOUT_CUDA_LOGIC_H

#include <stdint.h>

#ifdef __CUDACC__
#define TSR__LCD_FN static __host__ __device__ __forceinline__
#else
#define TSR__LCD_FN static inline
#endif

#if defined(__CUDA_ARCH__)
#define TSR__LCD_ATOMIC_ADD(p, d) atomicAdd((p), (d))
#define TSR__LCD_ATOMIC_EXCH(p, v) atomicExch((p), (v))
#else
#define TSR__LCD_ATOMIC_ADD(p, d) (*(p) += (d))
TSR__LCD_FN unsigned tsr__lcd_exch_host(unsigned *p, unsigned v)
{
    unsigned old = *p;
    *p = v;
    return old;
}
#define TSR__LCD_ATOMIC_EXCH(p, v) tsr__lcd_exch_host((p), (v))
#endif

/* Sign of (b - a) x (c - a). Differences of coordinates in [0, 2^30] fit in 31 bits. */
TSR__LCD_FN int tsr__lcd_orient(int32_t ax, int32_t ay, int32_t bx, int32_t by, int32_t cx,
                                int32_t cy)
{
    int64_t l = (int64_t)(bx - ax) * (int64_t)(cy - ay);
    int64_t r = (int64_t)(by - ay) * (int64_t)(cx - ax);
    return (l > r) - (l < r);
}

/* Proper crossing of ab and cd (the caller excludes shared endpoints by node index). */
TSR__LCD_FN int tsr__lcd_cross(int32_t ax, int32_t ay, int32_t bx, int32_t by, int32_t cx,
                               int32_t cy, int32_t dx, int32_t dy)
{
    int o1 = tsr__lcd_orient(ax, ay, bx, by, cx, cy), o2 = tsr__lcd_orient(ax, ay, bx, by, dx, dy);
    if (o1 == 0 || o2 == 0 || o1 == o2)
        return 0;
    int o3 = tsr__lcd_orient(cx, cy, dx, dy, ax, ay), o4 = tsr__lcd_orient(cx, cy, dx, dy, bx, by);
    return o3 != 0 && o4 != 0 && o3 != o4;
}

/* Point p on the closed segment ab. */
TSR__LCD_FN int tsr__lcd_on_segment(int32_t px, int32_t py, int32_t ax, int32_t ay, int32_t bx,
                                    int32_t by)
{
    if (tsr__lcd_orient(ax, ay, bx, by, px, py) != 0)
        return 0;
    int32_t lox = ax < bx ? ax : bx, hix = ax < bx ? bx : ax;
    int32_t loy = ay < by ? ay : by, hiy = ay < by ? by : ay;
    return px >= lox && px <= hix && py >= loy && py <= hiy;
}

/* count_kernel, thread e: c(e) against all m edges. */
TSR__LCD_FN int32_t tsr__lcd_count_edge(int32_t e, const int32_t *x, const int32_t *y,
                                        const int32_t *eu, const int32_t *ev, int32_t m)
{
    int32_t a = eu[e], b = ev[e], ax = x[a], ay = y[a], bx = x[b], by = y[b], c = 0;
    for (int32_t f = 0; f < m; f++) {
        int32_t u = eu[f], v = ev[f];
        if (u == a || u == b || v == a || v == b)
            continue;
        c += tsr__lcd_cross(ax, ay, bx, by, x[u], y[u], x[v], y[v]);
    }
    return c;
}

/* Changes against edge f of moving node v from (ox,oy) to (px,py), one proposal: for every
 * e in I(v) not sharing an endpoint with f, d = cross(new e, f) - cross(old e, f) is added to
 * delta[e] and to delta[f] (atomically: f is owned by this thread but e is shared by all the
 * proposal's threads). f incident to v is skipped (recounted through the other threads' e side).
 * Sets *invalid when (px,py) lies on f. delta must be zeroed before the launch. */
TSR__LCD_FN void tsr__lcd_visit(int32_t f, int32_t v, int32_t ox, int32_t oy, int32_t px,
                                int32_t py, const int32_t *x, const int32_t *y, const int32_t *eu,
                                const int32_t *ev, const int32_t *adj_off,
                                const int32_t *adj_edges, int32_t *delta, unsigned char *invalid)
{
    int32_t a = eu[f], b = ev[f];
    if (a == v || b == v)
        return;
    int32_t ax = x[a], ay = y[a], bx = x[b], by = y[b];
    if (tsr__lcd_on_segment(px, py, ax, ay, bx, by)) {
        *invalid = 1;
        return;
    }
    int32_t df = 0;
    for (int32_t k = adj_off[v]; k < adj_off[v + 1]; k++) {
        int32_t e = adj_edges[k], w = eu[e] == v ? ev[e] : eu[e];
        if (w == a || w == b)
            continue;
        int32_t wx = x[w], wy = y[w];
        int32_t d = tsr__lcd_cross(px, py, wx, wy, ax, ay, bx, by) -
                    tsr__lcd_cross(ox, oy, wx, wy, ax, ay, bx, by);
        if (d) {
            df += d;
            TSR__LCD_ATOMIC_ADD(&delta[e], d);
        }
    }
    if (df)
        TSR__LCD_ATOMIC_ADD(&delta[f], df);
}

/* dense_delta_kernel, thread (p = blockIdx.y, f = blockIdx.x * blockDim.x + threadIdx.x) with
 * f < m: proposal p's node pnode[p] overlaid at (ppx[p], ppy[p]) on the base x, y; output rows of
 * m entries per proposal. */
TSR__LCD_FN void tsr__lcd_dense_thread(int32_t p, int32_t f, const int32_t *x, const int32_t *y,
                                       const int32_t *eu, const int32_t *ev, int32_t m,
                                       const int32_t *adj_off, const int32_t *adj_edges,
                                       const int32_t *pnode, const int32_t *ppx,
                                       const int32_t *ppy, int32_t *delta,
                                       unsigned char *invalid)
{
    int32_t v = pnode[p];
    tsr__lcd_visit(f, v, x[v], y[v], ppx[p], ppy[p], x, y, eu, ev, adj_off, adj_edges,
                   delta + (size_t)p * (size_t)m, invalid + p);
}

/* spatial_delta_kernel, thread tid of nthreads in proposal p's block: the candidates are the
 * items of p's cells (CSR cell_off/cells over proposals, grid_items cap per cell); each is
 * claimed once per proposal by exchanging its stamp with gen. */
TSR__LCD_FN void tsr__lcd_spatial_thread(
    int32_t p, int32_t tid, int32_t nthreads, const int32_t *x, const int32_t *y,
    const int32_t *eu, const int32_t *ev, int32_t m, const int32_t *adj_off,
    const int32_t *adj_edges, const int32_t *pnode, const int32_t *ppx, const int32_t *ppy,
    const int32_t *cell_off, const int32_t *cells, const int32_t *grid_count,
    const int32_t *grid_items, int32_t cap, unsigned *stamp, unsigned gen, int32_t *delta,
    unsigned char *invalid)
{
    int32_t v = pnode[p];
    int32_t ox = x[v], oy = y[v], px = ppx[p], py = ppy[p];
    unsigned *st = stamp + (size_t)p * (size_t)m;
    int32_t *dp = delta + (size_t)p * (size_t)m;
    for (int32_t c = cell_off[p]; c < cell_off[p + 1]; c++) {
        int32_t cell = cells[c], n = grid_count[cell];
        for (int32_t k = tid; k < n; k += nthreads) {
            int32_t f = grid_items[(size_t)cell * (size_t)cap + (size_t)k];
            if (TSR__LCD_ATOMIC_EXCH(&st[f], gen) == gen)
                continue; /* already visited for this proposal */
            tsr__lcd_visit(f, v, ox, oy, px, py, x, y, eu, ev, adj_off, adj_edges, dp, invalid + p);
        }
    }
}

/* Host side of the spatial launch: floor(a / b) for b > 0, and the conservative cell raster of
 * grid_cpu.c (every cell holding a point of the segment) appended to cells[*ncell..cap).
 * Returns 0 when cap would be exceeded. Cell index = column * gy + row. */
TSR__LCD_FN int64_t tsr__lcd_floor_div(int64_t a, int64_t b)
{
    int64_t q = a / b;
    return (a % b != 0 && a < 0) ? q - 1 : q;
}

TSR__LCD_FN int tsr__lcd_add_cells(int32_t cell, int32_t gx, int32_t gy, int32_t ax, int32_t ay,
                                   int32_t bx, int32_t by, int32_t *cells, int *ncell, int cap)
{
    if (ax > bx || (ax == bx && ay > by)) {
        int32_t t = ax;
        ax = bx;
        bx = t;
        t = ay;
        ay = by;
        by = t;
    }
    int64_t s = cell, c0 = ax / s, c1 = bx / s;
    if (c1 >= gx)
        c1 = gx - 1;
    for (int64_t c = c0; c <= c1; c++) {
        int64_t ylo, yhi;
        if (ax == bx) {
            ylo = ay < by ? ay : by;
            yhi = ay < by ? by : ay;
        } else {
            int64_t xl = c * s > ax ? c * s : ax, xr = (c + 1) * s < bx ? (c + 1) * s : bx;
            int64_t dx = (int64_t)bx - ax, dy = (int64_t)by - ay;
            int64_t nl = dy * (xl - ax), nr = dy * (xr - ax);
            int64_t fl = ay + tsr__lcd_floor_div(nl, dx), cl = ay - tsr__lcd_floor_div(-nl, dx);
            int64_t fr = ay + tsr__lcd_floor_div(nr, dx), cr = ay - tsr__lcd_floor_div(-nr, dx);
            ylo = fl < fr ? fl : fr;
            yhi = cl > cr ? cl : cr;
        }
        int64_t r0 = ylo / s, r1 = yhi / s;
        if (r0 < 0)
            r0 = 0;
        if (r1 >= gy)
            r1 = gy - 1;
        for (int64_t r = r0; r <= r1; r++) {
            if (*ncell >= cap)
                return 0;
            cells[(*ncell)++] = (int32_t)(c * gy + r);
        }
    }
    return 1;
}

/* The cell list of one proposal (v to px,py) on drawing x, y: the new point, then each incident
 * edge's old and new segment. Returns 0 when it exceeds cap. */
TSR__LCD_FN int tsr__lcd_proposal_cells(int32_t cell, int32_t gx, int32_t gy, const int32_t *x,
                                        const int32_t *y, const int32_t *eu, const int32_t *ev,
                                        const int32_t *adj_off, const int32_t *adj_edges,
                                        int32_t v, int32_t px, int32_t py, int32_t *cells,
                                        int *ncell, int cap)
{
    if (!tsr__lcd_add_cells(cell, gx, gy, px, py, px, py, cells, ncell, cap))
        return 0;
    for (int32_t k = adj_off[v]; k < adj_off[v + 1]; k++) {
        int32_t e = adj_edges[k], w = eu[e] == v ? ev[e] : eu[e];
        if (!tsr__lcd_add_cells(cell, gx, gy, x[v], y[v], x[w], y[w], cells, ncell, cap) ||
            !tsr__lcd_add_cells(cell, gx, gy, px, py, x[w], y[w], cells, ncell, cap))
            return 0;
    }
    return 1;
}

#endif
