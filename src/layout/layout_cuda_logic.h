/* The per-thread bodies of the CUDA layout kernels (layout_cuda.cu), written once as
 * __host__ __device__ functions so that a CPU test (tests/unit/test_layout_device_logic.c) runs
 * exactly the kernels' code, phase by phase for every thread of every block, and compares it with
 * the CPU evaluators without a GPU. Compiled as C11 (host) and as CUDA C++ (nvcc): no C++-only or
 * C-only constructs. On the host the atomics are plain read-modify-writes (the emulation runs the
 * threads of a phase one after another, which gives the same integer results as any order of
 * atomic operations on the device: sums, counts, and sets of claimed edges and listed cells).
 *
 * Evaluation of a proposal p = (node v, new point): one block per proposal, T threads, phases
 * separated by __syncthreads (the emulation runs each phase for all threads before the next):
 *   0. spatial only: the block's counters cleared (cells listed, overflow, scan, window counts).
 *   1. star: v's incident edges I(v) (edge, other endpoint and its coordinates) into the block's
 *      star arrays (shared memory), their change accumulators zeroed, the invalid flag cleared.
 *      Spatial: I(v) claimed in the proposal's stamp row and counted in the window (below), and
 *      the proposal's cells rastered on the device (new point, old and new segments of each arm,
 *      slots reserved atomically); more than the block's cell capacity sets overflow.
 *   2. visit: every edge f (dense, or spatial after an overflow) or every candidate f listed in
 *      the cells and claimed through the stamp row (spatial), not incident to v:
 *      d(f) = sum over arms e of cross(new e, f) - cross(old e, f), added to arm e's accumulator
 *      (atomically) and, with c(f), to the thread's accumulator (new count c(f) + d(f)); sets the
 *      invalid flag when the new point lies on f. Spatial: a claimed f whose base count lies in
 *      the top `w` levels [K - w + 1, K] of the base is counted there (qcount).
 *   3. each incident edge e with its new count c(e) + acc(e). Spatial: the unclaimed edges keep
 *      their counts, so their maximum and its multiplicity come from the base histogram: the
 *      highest level L of the window with hist[L] - qcount[K - L] > 0 (thread 0); when the window
 *      holds none and levels below it exist, every unclaimed edge is added (scan, exact, rare).
 *   4. block reduction of the thread accumulators: (K, n_K) of the new counts and the changes of
 *      Phi = sum c^2 and of sum c (= 2 C) -- exact integers, merged in any order.
 * Edges are read through an edge-coordinate array (both end points of edge f in 16 bytes) kept
 * beside the node coordinates. Commit (dense, one block) is the same evaluation with the new
 * counts written to c (and the histogram moved), then the node's point written to x, y and to its
 * incident edges' entries of the edge-coordinate array. The full evaluator recounts
 * every edge of every proposal's drawing (count_edge with the overlay) and reduces those rows with
 * the same accumulator.
 *
 * Geometry: the exact int64 orientation, crossing and point-on-segment tests of geometry_hd.h,
 * the CPU stages' own. */
#ifndef TSR_LAYOUT_CUDA_LOGIC_H
#define TSR_LAYOUT_CUDA_LOGIC_H

#include "core/hd.h"
#include "layout/geometry_hd.h"

#include <stdint.h>

/* ATOMIC_ADD returns the old value; SET_FLAG sets *p to 1 (many threads may: no plain racing
 * store on the device). */
#if defined(__CUDA_ARCH__)
#define TSR__LCD_ATOMIC_ADD(p, d) atomicAdd((p), (d))
#define TSR__LCD_ATOMIC_EXCH(p, v) atomicExch((p), (v))
#define TSR__LCD_SET_FLAG(p) atomicOr((p), 1)
#else
TSR_HD int tsr__lcd_add_host(int *p, int d)
{
    int old = *p;
    *p += d;
    return old;
}
TSR_HD unsigned tsr__lcd_exch_host(unsigned *p, unsigned v)
{
    unsigned old = *p;
    *p = v;
    return old;
}
#define TSR__LCD_ATOMIC_ADD(p, d) tsr__lcd_add_host((p), (d))
#define TSR__LCD_ATOMIC_EXCH(p, v) tsr__lcd_exch_host((p), (v))
#define TSR__LCD_SET_FLAG(p) (*(p) |= 1)
#endif

/* Edge f's end points from the edge-coordinate array (ax, ay, bx, by per edge, edge_u's end
 * first; 16-byte aligned): one 16-byte load on the device. */
#if defined(__CUDA_ARCH__)
#define TSR__LCD_EDGE_XY(ec, f, ax, ay, bx, by)                                                    \
    do {                                                                                           \
        const int4 q_ = reinterpret_cast<const int4 *>(ec)[f];                                     \
        ax = q_.x, ay = q_.y, bx = q_.z, by = q_.w;                                                \
    } while (0)
#else
#define TSR__LCD_EDGE_XY(ec, f, ax, ay, bx, by)                                                    \
    do {                                                                                           \
        const int32_t *q_ = (ec) + 4 * (size_t)(f);                                                \
        ax = q_[0], ay = q_[1], bx = q_[2], by = q_[3];                                            \
    } while (0)
#endif

/* c(e) against all m edges in the drawing x, y with node mv drawn at (mx, my) instead (mv = -1:
 * the drawing as it is). count_kernel's and full_rows_kernel's thread body. */
TSR_HD int32_t tsr__lcd_count_edge(int32_t e, const int32_t *x, const int32_t *y, const int32_t *eu,
                                   const int32_t *ev, int32_t m, int32_t mv, int32_t mx, int32_t my)
{
    int32_t a = eu[e], b = ev[e];
    int32_t ax = a == mv ? mx : x[a], ay = a == mv ? my : y[a];
    int32_t bx = b == mv ? mx : x[b], by = b == mv ? my : y[b], c = 0;
    for (int32_t f = 0; f < m; f++) {
        int32_t u = eu[f], v = ev[f];
        if (u == a || u == b || v == a || v == b)
            continue;
        c += tsr__segments_cross(ax, ay, bx, by, u == mv ? mx : x[u], u == mv ? my : y[u],
                                 v == mv ? mx : x[v], v == mv ? my : y[v]);
    }
    return c;
}

/* ---- the objective's change, accumulated per thread and merged per block ---- */
typedef struct tsr__lcd_acc {
    int64_t dphi, dsum; /* sum of nc^2 - c^2 and of nc - c over the edges added */
    int64_t dx;         /* sum of ex(nc) - ex(c), ex(c) = max(0, c - t)^2: the annealer's phase-2
                         * excess over its target t */
    int32_t k, nk;      /* max new count and how many edges have it (0, 0 when none) */
    int32_t t;          /* the excess target (the same in every accumulator of a launch) */
} tsr__lcd_acc;

/* One proposal's result as the kernels write it: K and n_K of the new counts, the changes of Phi,
 * of 2C and of the excess over the launch's target, and whether the new point lies on an edge not
 * incident to the node. `seq` is the
 * launch's sequence number, written last (after a system-scope fence), so that the host can tell
 * a complete result in mapped memory without synchronising the stream. */
typedef struct tsr__lcd_out {
    int64_t dphi, dsum, dx;
    int32_t k, nk, invalid;
    int32_t path; /* spatial: 0 candidates, 1 dense after a cell overflow, 2 candidates + scan */
    uint32_t seq;
} tsr__lcd_out;

/* Launch shapes, shared with the CPU emulation so it runs the same thread strides. */
enum {
    /* per proposal block; measured on the H200 (bench/results/layout-eval-h200-2026-11-29.md):
     * dense 512 beats 256 by 1.0-1.5x; spatial on an untangled drawing 256 beats 512
     * by 1.3-2.6x (its blocks list a few hundred candidates: more threads idle) */
    TSR__LCD_DENSE_THREADS = 512,
    TSR__LCD_EVAL_THREADS = 256,    /* spatial and the full evaluator's reduction */
    TSR__LCD_COMMIT_THREADS = 1024, /* the commit's single block */
    TSR__LCD_FULL_THREADS = 256,    /* full recount rows: edges per block */
    TSR__LCD_PER_PROP_CELLS = 4096, /* spatial: cells one proposal may list (more: dense) */
    TSR__LCD_WINDOW = 32            /* spatial: top levels of the base counted per proposal */
};

/* The spatial block's shared counters (phase 0 clears them). */
typedef struct tsr__lcd_spatial_shared {
    int ncell, overflow, scan;
    int qcount[TSR__LCD_WINDOW]; /* claimed edges per level K - j of the base */
} tsr__lcd_spatial_shared;

/* The score after a proposal from its result and the base's Phi and C (K, n_K are absolute). */
TSR_HD void tsr__lcd_out_score(const tsr__lcd_out *o, int64_t base_phi, int64_t base_c, int64_t *K,
                               int64_t *n_K, int64_t *Phi, int64_t *C)
{
    *K = o->k;
    *n_K = o->nk;
    *Phi = base_phi + o->dphi;
    *C = base_c + o->dsum / 2;
}

/* An empty accumulator for excess target t (INT32_MAX: no excess, counts are below it). */
TSR_HD void tsr__lcd_acc_init(tsr__lcd_acc *a, int32_t t)
{
    a->dphi = 0;
    a->dsum = 0;
    a->dx = 0;
    a->k = 0;
    a->nk = 0;
    a->t = t;
}

/* max(0, c - t)^2 */
TSR_HD int64_t tsr__lcd_excess(int32_t c, int32_t t)
{
    const int64_t d = (int64_t)c - t;
    return d > 0 ? d * d : 0;
}

/* Edge with old count c and new count nc. A zero count enters (K, n_K) like any other, so an
 * all-zero drawing gives K = 0, n_K = m as tsr__score_from_counts does. */
TSR_HD void tsr__lcd_acc_add(tsr__lcd_acc *a, int32_t c, int32_t nc)
{
    a->dphi += (int64_t)nc * nc - (int64_t)c * c;
    a->dsum += (int64_t)nc - c;
    if (nc != c)
        a->dx += tsr__lcd_excess(nc, a->t) - tsr__lcd_excess(c, a->t);
    if (nc > a->k) {
        a->k = nc;
        a->nk = 1;
    } else if (nc == a->k) {
        a->nk++;
    }
}

/* a = a merged with b (associative and commutative). */
TSR_HD void tsr__lcd_acc_merge(tsr__lcd_acc *a, const tsr__lcd_acc *b)
{
    a->dphi += b->dphi;
    a->dsum += b->dsum;
    a->dx += b->dx;
    if (b->k > a->k) {
        a->k = b->k;
        a->nk = b->nk;
    } else if (b->k == a->k) {
        a->nk += b->nk;
    }
}

/* The moving node's star in block-shared memory: arm i is incident edge e[i] whose other
 * endpoint w[i] is at (wx[i], wy[i]) and whose base count is c0[i]; acc[i] collects the change of
 * c(e[i]). TSR__LCD_STAR_ARRAYS int32 arrays of the graph's maximum degree. */
enum { TSR__LCD_STAR_ARRAYS = 6 };
typedef struct tsr__lcd_star {
    int32_t *e, *w, *wx, *wy, *c0, *acc;
    int32_t deg;
} tsr__lcd_star;

/* Counts a claimed edge of base count c in the window of the top w levels below kbase. */
TSR_HD void tsr__lcd_window_count(int32_t c, int32_t kbase, int32_t w, int *qcount)
{
    if (c > kbase - w)
        TSR__LCD_ATOMIC_ADD(&qcount[kbase - c], 1);
}

/* Phase 0 (spatial), thread t of nt: clears the block's counters. */
TSR_HD void tsr__lcd_spatial_begin_thread(int32_t t, int32_t nt, tsr__lcd_spatial_shared *sh)
{
    for (int32_t j = t; j < TSR__LCD_WINDOW; j += nt)
        sh->qcount[j] = 0;
    if (t == 0) {
        sh->ncell = 0;
        sh->overflow = 0;
        sh->scan = 0;
    }
}

/* Phase 1, thread t of nt: fills arms t, t + nt, ... of v's star from the edge-coordinate array
 * (the other end's point and the base count are loaded beside the edge's ends, not after them),
 * zeroes their accumulators; with a stamp row st (spatial), claims the incident edges for
 * generation gen and counts them in the window of sh (kbase, w). Thread 0 clears *invalid.
 * v's incident edges are adj_edges[off .. off + s->deg). */
TSR_HD void tsr__lcd_star_thread(int32_t t, int32_t nt, int32_t v, const int32_t *ec,
                                 const int32_t *eu, const int32_t *ev, int32_t off,
                                 const int32_t *adj_edges, const int32_t *c, tsr__lcd_star *s,
                                 unsigned *st, unsigned gen, int32_t kbase, int32_t w,
                                 tsr__lcd_spatial_shared *sh, int *invalid)
{
    for (int32_t i = t; i < s->deg; i += nt) {
        const int32_t e = adj_edges[off + i], a = eu[e], b = ev[e], ce = c[e];
        int32_t ax, ay, bx, by;
        TSR__LCD_EDGE_XY(ec, e, ax, ay, bx, by);
        s->e[i] = e;
        s->w[i] = a == v ? b : a;
        s->wx[i] = a == v ? bx : ax;
        s->wy[i] = a == v ? by : ay;
        s->c0[i] = ce;
        s->acc[i] = 0;
        if (st) {
            st[e] = gen;
            tsr__lcd_window_count(ce, kbase, w, sh->qcount);
        }
    }
    if (t == 0)
        *invalid = 0;
}

/* One edge's data for phase 2, loaded apart from its use so that a kernel can issue the loads of
 * its first edge before the star is ready. */
typedef struct tsr__lcd_edge {
    int32_t f, fa, fb, ax, ay, bx, by, c;
} tsr__lcd_edge;

TSR_HD void tsr__lcd_edge_load(int32_t f, const int32_t *ec, const int32_t *eu, const int32_t *ev,
                               const int32_t *c, tsr__lcd_edge *d)
{
    d->f = f;
    d->fa = eu[f];
    d->fb = ev[f];
    TSR__LCD_EDGE_XY(ec, f, d->ax, d->ay, d->bx, d->by);
    d->c = c[f];
}

/* Whether edge d is incident to v (its change comes from the arms, not from phase 2). */
TSR_HD int tsr__lcd_incident(const tsr__lcd_edge *d, int32_t v)
{
    return d->fa == v || d->fb == v;
}

/* Phase 2 for one edge d->f not incident to v (loaded by tsr__lcd_edge_load), moving v from
 * (ox,oy) to (px,py), against the arms i0..i1-1 of the star: returns the change of f's count
 * from those arms and adds each arm's change to the arm's accumulator; sets *invalid (and
 * returns 0) when (px,py) lies on f. (q,w) crosses f = ab exactly when q and w lie strictly on
 * opposite sides of ab and a, b strictly on opposite sides of qw, so the sides of ab are computed
 * once per point. */
TSR_HD int32_t tsr__lcd_edge_change(const tsr__lcd_edge *d, int32_t ox, int32_t oy, int32_t px,
                                    int32_t py, const tsr__lcd_star *s, int32_t i0, int32_t i1,
                                    int *invalid)
{
    const int32_t fa = d->fa, fb = d->fb, ax = d->ax, ay = d->ay, bx = d->bx, by = d->by;
    int sp = tsr__orient(ax, ay, bx, by, px, py);
    if (sp == 0 && tsr__point_on_segment(px, py, ax, ay, bx, by)) {
        TSR__LCD_SET_FLAG(invalid);
        return 0;
    }
    int so = tsr__orient(ax, ay, bx, by, ox, oy);
    int32_t df = 0;
    for (int32_t i = i0; i < i1; i++) {
        int32_t w = s->w[i];
        if (w == fa || w == fb)
            continue;
        int32_t wx = s->wx[i], wy = s->wy[i];
        int sw = tsr__orient(ax, ay, bx, by, wx, wy);
        if (sw == 0)
            continue;
        int now = 0, was = 0;
        if (sp == -sw) {
            int o1 = tsr__orient(px, py, wx, wy, ax, ay);
            int o2 = tsr__orient(px, py, wx, wy, bx, by);
            now = o1 != 0 && o2 != 0 && o1 != o2;
        }
        if (so == -sw) {
            int o1 = tsr__orient(ox, oy, wx, wy, ax, ay);
            int o2 = tsr__orient(ox, oy, wx, wy, bx, by);
            was = o1 != 0 && o2 != 0 && o1 != o2;
        }
        if (now != was) {
            df += now - was;
            TSR__LCD_ATOMIC_ADD(&s->acc[i], now - was);
        }
    }
    return df;
}

/* Phase 2 for one edge d->f against the whole star: returns at once for f incident to v; else
 * adds f's new count to *a (tsr__lcd_edge_change) and, with hist (commit), writes the new count
 * to c[f] (only this thread touches c[f]) and moves f in the histogram. A proposal whose point
 * lies on an edge is invalid: its other results are not used. */
TSR_HD void tsr__lcd_visit_edge(const tsr__lcd_edge *d, int32_t v, int32_t ox, int32_t oy,
                                int32_t px, int32_t py, int32_t *c, const tsr__lcd_star *s,
                                tsr__lcd_acc *a, int *invalid, int32_t *hist)
{
    if (tsr__lcd_incident(d, v))
        return;
    const int32_t f = d->f, df = tsr__lcd_edge_change(d, ox, oy, px, py, s, 0, s->deg, invalid);
    const int32_t old = d->c;
    tsr__lcd_acc_add(a, old, old + df);
    if (hist && df) {
        c[f] = old + df;
        TSR__LCD_ATOMIC_ADD(&hist[old], -1);
        TSR__LCD_ATOMIC_ADD(&hist[old + df], 1);
    }
}

/* Phase 2 for edge f: its loads, then tsr__lcd_visit_edge. */
TSR_HD void tsr__lcd_visit(int32_t f, int32_t v, int32_t ox, int32_t oy, int32_t px, int32_t py,
                           const int32_t *ec, const int32_t *eu, const int32_t *ev, int32_t *c,
                           const tsr__lcd_star *s, tsr__lcd_acc *a, int *invalid, int32_t *hist)
{
    tsr__lcd_edge d;
    tsr__lcd_edge_load(f, ec, eu, ev, c, &d);
    tsr__lcd_visit_edge(&d, v, ox, oy, px, py, c, s, a, invalid, hist);
}

/* Phase 2, dense: thread t of nt visits edges t, t + nt, ...; `first`, when not NULL, is edge t
 * loaded before phase 1 (t < m). The visit is written once (each inlined copy adds kilobytes
 * to the kernel: bench/notes/layout.md, "Kernel size"), the next edge loaded after it. */
TSR_HD void tsr__lcd_dense_thread(int32_t t, int32_t nt, int32_t m, int32_t v, int32_t ox,
                                  int32_t oy, int32_t px, int32_t py, const int32_t *ec,
                                  const int32_t *eu, const int32_t *ev, int32_t *c,
                                  const tsr__lcd_star *s, const tsr__lcd_edge *first,
                                  tsr__lcd_acc *a, int *invalid, int32_t *hist)
{
    tsr__lcd_edge d;
    if (first)
        d = *first;
    else if (t < m)
        tsr__lcd_edge_load(t, ec, eu, ev, c, &d);
    for (int32_t f = t; f < m;) {
        tsr__lcd_visit_edge(&d, v, ox, oy, px, py, c, s, a, invalid, hist);
        f += nt;
        if (f < m)
            tsr__lcd_edge_load(f, ec, eu, ev, c, &d);
    }
}

/* Dense launches of a small graph (m <= DENSE_THREADS: one edge per thread) split each
 * proposal's star over `parts` blocks of a thread-block cluster, so that a proposal's arm visits
 * run on `parts` SMs (the visit of one edge against every arm is a long dependent chain per
 * thread, and a block of 512 threads keeps its SM's issue slots busy: bench/notes/layout.md,
 * "Arms over a cluster"). Block rank r visits the arms tsr__lcd_part_arms gives it; rank 0 adds
 * the ranks' changes of every edge and the arms' changes (distributed shared memory), then
 * reduces as a one-block proposal does. Parts per proposal: the largest power of two up to
 * MAX_PARTS that keeps nprop x parts blocks within the device's SMs. */
enum { TSR__LCD_MAX_PARTS = 8 };

TSR_HD int32_t tsr__lcd_dense_parts(int32_t m, int32_t nprop, int32_t sms)
{
    int32_t q = TSR__LCD_MAX_PARTS;
    if (m > TSR__LCD_DENSE_THREADS)
        return 1;
    while (q > 1 && (int64_t)nprop * q > sms)
        q /= 2;
    return q;
}

/* Arms of part r of `parts` for a star of degree deg: i0..i1-1 (consecutive runs of
 * ceil(deg / parts); the last parts may be empty). */
TSR_HD void tsr__lcd_part_arms(int32_t deg, int32_t parts, int32_t r, int32_t *i0, int32_t *i1)
{
    const int32_t per = (deg + parts - 1) / parts, lo = r * per;
    *i0 = lo < deg ? lo : deg;
    *i1 = lo + per < deg ? lo + per : deg;
}

/* The part whose arms hold arm i (deg > 0). */
TSR_HD int32_t tsr__lcd_arm_part(int32_t deg, int32_t parts, int32_t i)
{
    return i / ((deg + parts - 1) / parts);
}

/* Phase 2 of a part, thread t < m (edge t, loaded before the star into *d): the change of edge
 * t's count from the part's arms i0..i1-1 (0 for an edge incident to v). */
TSR_HD int32_t tsr__lcd_part_thread(const tsr__lcd_edge *d, int32_t v, int32_t ox, int32_t oy,
                                    int32_t px, int32_t py, const tsr__lcd_star *s, int32_t i0,
                                    int32_t i1, int *invalid)
{
    return tsr__lcd_incident(d, v) ? 0
                                   : tsr__lcd_edge_change(d, ox, oy, px, py, s, i0, i1, invalid);
}

/* Rank 0, thread t < m, once the parts' changes of edge t are summed into df: adds the edge's
 * new count to *a. */
TSR_HD void tsr__lcd_part_sum_thread(const tsr__lcd_edge *d, int32_t v, int32_t df, tsr__lcd_acc *a)
{
    if (!tsr__lcd_incident(d, v))
        tsr__lcd_acc_add(a, d->c, d->c + df);
}

/* Phase 2, spatial (no overflow): thread t of nt visits the items of the proposal's cells
 * cells[0..ncell) (grid_items, grid_count entries each, cap per cell), each edge claimed once per
 * proposal by exchanging its stamp with gen and counted in the window. */
TSR_HD void tsr__lcd_spatial_thread(int32_t t, int32_t nt, int32_t v, int32_t ox, int32_t oy,
                                    int32_t px, int32_t py, const int32_t *ec, const int32_t *eu,
                                    const int32_t *ev, int32_t *c, const int32_t *cells,
                                    int32_t ncell, const int32_t *grid_count,
                                    const int32_t *grid_items, int32_t cap, unsigned *st,
                                    unsigned gen, int32_t kbase, int32_t w,
                                    tsr__lcd_spatial_shared *sh, const tsr__lcd_star *s,
                                    tsr__lcd_acc *a, int *invalid)
{
    for (int32_t k = 0; k < ncell; k++) {
        int32_t cell = cells[k], n = grid_count[cell];
        for (int32_t j = t; j < n; j += nt) {
            int32_t f = grid_items[(size_t)cell * (size_t)cap + (size_t)j];
            if (TSR__LCD_ATOMIC_EXCH(&st[f], gen) == gen)
                continue; /* claimed before for this proposal */
            tsr__lcd_window_count(c[f], kbase, w, sh->qcount);
            tsr__lcd_visit(f, v, ox, oy, px, py, ec, eu, ev, c, s, a, invalid, 0);
        }
    }
}

/* Phase 3a (spatial, no overflow), thread 0 only: the unclaimed edges' top level from the base
 * histogram and the window counts, merged into *a; sets sh->scan when it lies below the window
 * (then every thread runs tsr__lcd_unclaimed_thread after a barrier). */
TSR_HD void tsr__lcd_window_top(const int32_t *hist, int32_t kbase, int32_t w,
                                tsr__lcd_spatial_shared *sh, tsr__lcd_acc *a)
{
    for (int32_t j = 0; j < w && kbase - j >= 0; j++) {
        int32_t u = hist[kbase - j] - sh->qcount[j];
        if (u > 0) {
            tsr__lcd_acc top;
            tsr__lcd_acc_init(&top, a->t);
            top.k = kbase - j;
            top.nk = u;
            tsr__lcd_acc_merge(a, &top);
            return;
        }
    }
    sh->scan = kbase - w >= 0;
}

/* Phase 3b (spatial, scan), thread t of nt: adds the unclaimed edges with unchanged counts. */
TSR_HD void tsr__lcd_unclaimed_thread(int32_t t, int32_t nt, int32_t m, const int32_t *c,
                                      const unsigned *st, unsigned gen, tsr__lcd_acc *a)
{
    for (int32_t f = t; f < m; f += nt)
        if (st[f] != gen)
            tsr__lcd_acc_add(a, c[f], c[f]);
}

/* Phase 3: thread t of nt adds the incident edges' new counts (and writes them, moving the
 * histogram, with hist: commit). */
TSR_HD void tsr__lcd_incident_thread(int32_t t, int32_t nt, int32_t *c, const tsr__lcd_star *s,
                                     tsr__lcd_acc *a, int32_t *hist)
{
    for (int32_t i = t; i < s->deg; i += nt) {
        int32_t e = s->e[i], old = s->c0[i];
        tsr__lcd_acc_add(a, old, old + s->acc[i]);
        if (hist && s->acc[i]) {
            c[e] = old + s->acc[i];
            TSR__LCD_ATOMIC_ADD(&hist[old], -1);
            TSR__LCD_ATOMIC_ADD(&hist[old + s->acc[i]], 1);
        }
    }
}

/* Commit, after the last read of the coordinates (a barrier): thread t of nt moves v's end of
 * the incident edges t, t + nt, ... in the edge-coordinate array; thread 0 moves v itself. */
TSR_HD void tsr__lcd_commit_point_thread(int32_t t, int32_t nt, int32_t v, int32_t px, int32_t py,
                                         const int32_t *eu, const tsr__lcd_star *s, int32_t *ec,
                                         int32_t *x, int32_t *y)
{
    for (int32_t i = t; i < s->deg; i += nt) {
        int32_t e = s->e[i], k = eu[e] == v ? 0 : 2;
        ec[4 * (size_t)e + k] = px;
        ec[4 * (size_t)e + k + 1] = py;
    }
    if (t == 0) {
        x[v] = px;
        y[v] = py;
    }
}

/* The edge-coordinate array of a drawing (create): ec[4e..4e+3] = edge e's end points. */
TSR_HD void tsr__lcd_edge_coords(int32_t m, const int32_t *x, const int32_t *y, const int32_t *eu,
                                 const int32_t *ev, int32_t *ec)
{
    for (int32_t e = 0; e < m; e++) {
        ec[4 * (size_t)e] = x[eu[e]];
        ec[4 * (size_t)e + 1] = y[eu[e]];
        ec[4 * (size_t)e + 2] = x[ev[e]];
        ec[4 * (size_t)e + 3] = y[ev[e]];
    }
}

/* Full evaluator's reduction, thread t of nt of proposal (v to px,py): edges t, t + nt, ... with
 * new counts from row (the recount of the moved drawing); sets *invalid when the point lies on an
 * edge not incident to v. */
TSR_HD void tsr__lcd_full_reduce_thread(int32_t t, int32_t nt, int32_t m, int32_t v, int32_t px,
                                        int32_t py, const int32_t *x, const int32_t *y,
                                        const int32_t *eu, const int32_t *ev, const int32_t *c,
                                        const int32_t *row, tsr__lcd_acc *a, int *invalid)
{
    for (int32_t f = t; f < m; f += nt) {
        int32_t fa = eu[f], fb = ev[f];
        if (fa != v && fb != v && tsr__point_on_segment(px, py, x[fa], y[fa], x[fb], y[fb]))
            TSR__LCD_SET_FLAG(invalid);
        tsr__lcd_acc_add(a, c[f], row[f]);
    }
}

/* The cells of segment ab (geometry_hd.h's column walk) appended to cells[0..cap) through the
 * shared counter *ncell (slots reserved atomically, so any threads may append at once); returns 0
 * when a slot would lie beyond cap (the list is then incomplete: the caller must not use it).
 * Cell index = column * gy + row. */
TSR_HD int tsr__lcd_add_cells(int32_t cell, int32_t gx, int32_t gy, int32_t ax, int32_t ay,
                              int32_t bx, int32_t by, int32_t *cells, int *ncell, int cap)
{
    tsr__column_walk w;
    tsr__column_walk_begin(&w, cell, ax, ay, bx, by);
    tsr__column_walk_columns(&w, w.ax / cell, w.bx / cell, gx - 1);
    int64_t c, ylo, yhi;
    while (tsr__column_walk_next(&w, &c, &ylo, &yhi)) {
        int64_t r0 = ylo / cell, r1 = yhi / cell;
        if (r1 >= gy)
            r1 = gy - 1;
        for (int64_t r = r0; r <= r1; r++) {
            int k = TSR__LCD_ATOMIC_ADD(ncell, 1);
            if (k >= cap)
                return 0;
            cells[k] = (int32_t)(c * gy + r);
        }
    }
    return 1;
}

/* Phase 1 (spatial), thread t of nt: the cells of proposal v to (px,py) on drawing x, y -- the
 * new point (thread 0), then each arm's old and new segment (arms t, t + nt, ...) -- into
 * cells[0..cap) through sh->ncell; sets sh->overflow when they do not fit. */
TSR_HD void tsr__lcd_raster_thread(int32_t t, int32_t nt, int32_t cell, int32_t gx, int32_t gy,
                                   const int32_t *x, const int32_t *y, const int32_t *eu,
                                   const int32_t *ev, const int32_t *adj_off,
                                   const int32_t *adj_edges, int32_t v, int32_t px, int32_t py,
                                   int32_t *cells, int cap, tsr__lcd_spatial_shared *sh)
{
    if (t == 0 && !tsr__lcd_add_cells(cell, gx, gy, px, py, px, py, cells, &sh->ncell, cap))
        TSR__LCD_SET_FLAG(&sh->overflow);
    for (int32_t k = adj_off[v] + t; k < adj_off[v + 1]; k += nt) {
        int32_t e = adj_edges[k], o = eu[e] == v ? ev[e] : eu[e];
        if (!tsr__lcd_add_cells(cell, gx, gy, x[v], y[v], x[o], y[o], cells, &sh->ncell, cap) ||
            !tsr__lcd_add_cells(cell, gx, gy, px, py, x[o], y[o], cells, &sh->ncell, cap))
            TSR__LCD_SET_FLAG(&sh->overflow);
    }
}

#endif
