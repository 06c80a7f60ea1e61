/* Full crossing counts on the CPU: the single-threaded reference (pairs e < f, the definition in
 * layout.h) and the OpenMP version (each edge against the edges whose bounding boxes meet its
 * own, found in a list sorted by left x: every pair is tested twice, no atomics, same numbers).
 * tsr_layout_evaluate (layout_api.c) runs them on the backend it chose. */
#include "layout/geometry_hd.h"
#include "layout/layout_internal.h"

#include "core/checked.h"

#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

/* Whether edges e and f cross (exact; pairs sharing an endpoint never do). */
static inline int edges_cross(const tsr_layout *l, int32_t e, int32_t f)
{
    int32_t a = l->edge_u[e], b = l->edge_v[e], c = l->edge_u[f], d = l->edge_v[f];
    if (a == c || a == d || b == c || b == d)
        return 0;
    return tsr__segments_cross(l->x[a], l->y[a], l->x[b], l->y[b], l->x[c], l->y[c], l->x[d],
                               l->y[d]);
}

void tsr__count_reference(const tsr_layout *l, int32_t *counts)
{
    int32_t m = l->num_edges;
    memset(counts, 0, (size_t)m * sizeof *counts);
    for (int32_t e = 0; e < m; e++)
        for (int32_t f = e + 1; f < m; f++)
            if (edges_cross(l, e, f)) {
                counts[e]++;
                counts[f]++;
            }
}

/* An edge's bounding box (closed), listed in increasing lox. */
typedef struct edge_box {
    int32_t lox, hix, loy, hiy, e;
} edge_box;

static int key_less(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* First index i in [0, m) with box[i].lox >= v (m when none). */
static int32_t first_lox_at_least(const edge_box *box, int32_t m, int64_t v)
{
    int32_t lo = 0, hi = m;
    while (lo < hi) {
        int32_t mid = lo + (hi - lo) / 2;
        if (box[mid].lox < v)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Edges per chunk of the parallel count: the unit a thread takes, and the calling thread's
 * interval between polls of the watch (a chunk tests at most CHUNK x m pairs). */
enum { CHUNK = 64 };

/* Counts box[i].e's crossings for i in [i0, i1). */
static void count_chunk(const tsr_layout *l, const edge_box *box, int32_t m, int64_t width,
                        int32_t i0, int32_t i1, int32_t *counts)
{
    for (int32_t i = i0; i < i1; i++) {
        const edge_box b = box[i];
        int32_t c = 0;
        int32_t end = first_lox_at_least(box, m, (int64_t)b.hix + 1);
        for (int32_t j = first_lox_at_least(box, m, (int64_t)b.lox - width); j < end; j++)
            if (box[j].hix >= b.lox && box[j].loy <= b.hiy && box[j].hiy >= b.loy)
                c += edges_cross(l, b.e, box[j].e);
        counts[b.e] = c;
    }
}

tsr_status tsr__count_watched(tsr_ctx *ctx, const tsr_layout *l, int32_t *counts, int threads,
                              tsr__watch *watch)
{
    int32_t m = l->num_edges;
    uint64_t *key = NULL;
    edge_box *box = NULL;
    if (tsr__watch_poll(watch) != TSR__STOP_NONE)
        return TSR_ERR_INTERRUPTED;
    tsr_status st;
    if ((st = tsr__alloc(ctx, (size_t)(m ? m : 1) * sizeof *key, (void **)&key)) != TSR_OK ||
        (st = tsr__alloc(ctx, (size_t)(m ? m : 1) * sizeof *box, (void **)&box)) != TSR_OK)
        goto done;
    int64_t width = 0; /* widest box: a box meeting e's x range starts at most this far left */
    for (int32_t e = 0; e < m; e++) {
        int32_t xa = l->x[l->edge_u[e]], xb = l->x[l->edge_v[e]];
        int32_t lox = xa < xb ? xa : xb, hix = xa < xb ? xb : xa;
        key[e] = (uint64_t)lox << 32 | (uint32_t)e;
        if (hix - lox > width)
            width = hix - lox;
    }
    qsort(key, (size_t)m, sizeof *key, key_less);
    for (int32_t i = 0; i < m; i++) {
        int32_t e = (int32_t)(uint32_t)key[i];
        int32_t xa = l->x[l->edge_u[e]], xb = l->x[l->edge_v[e]];
        int32_t ya = l->y[l->edge_u[e]], yb = l->y[l->edge_v[e]];
        box[i] = (edge_box){xa < xb ? xa : xb, xa < xb ? xb : xa, ya < yb ? ya : yb,
                            ya < yb ? yb : ya, e};
    }
    /* Chunks are taken in order from `next` by whichever thread is free; the calling thread
     * (the team's thread 0) polls the watch after each of its chunks and raises `stopped`, after
     * which no thread takes another. */
    int64_t next = 0; /* 64-bit: each thread takes one chunk past m */
    int stopped = 0;
#ifdef _OPENMP
    if (threads <= 0)
        threads = omp_get_max_threads();
#pragma omp parallel num_threads(threads)
#else
    (void)threads;
#endif
    {
        for (;;) {
            int64_t i0;
            int halt;
#ifdef _OPENMP
#pragma omp atomic capture
#endif
            {
                i0 = next;
                next += CHUNK;
            }
#ifdef _OPENMP
#pragma omp atomic read
#endif
            halt = stopped;
            if (i0 >= m || halt)
                break;
            count_chunk(l, box, m, width, (int32_t)i0, (int32_t)(m - i0 < CHUNK ? m : i0 + CHUNK),
                        counts);
#ifdef _OPENMP
            if (omp_get_thread_num() != 0)
                continue;
#endif
            if (tsr__watch_poll(watch) != TSR__STOP_NONE) {
#ifdef _OPENMP
#pragma omp atomic write
#endif
                stopped = 1;
            }
        }
    }
    if (stopped)
        st = TSR_ERR_INTERRUPTED;
done:
    tsr__free(ctx, key);
    tsr__free(ctx, box);
    return st;
}

tsr_status tsr__count_parallel(tsr_ctx *ctx, const tsr_layout *l, int32_t *counts, int threads)
{
    return tsr__count_watched(ctx, l, counts, threads, NULL);
}

void tsr__score_from_counts(const int32_t *counts, int32_t m, tsr_layout_score *s)
{
    memset(s, 0, sizeof *s);
    int64_t sum = 0;
    for (int32_t e = 0; e < m; e++) {
        int64_t c = counts[e];
        if (c > s->K) {
            s->K = c;
            s->n_K = 0;
        }
        if (c == s->K)
            s->n_K++;
        s->Phi += c * c;
        sum += c;
    }
    s->C = sum / 2;
}
