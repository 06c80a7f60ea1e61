/* A resolution of a tile-component (the top one, or the one below it) reconstructed in bands of
 * rows (decode_stages.h describes the window; decode.c runs the groups).
 *
 * Geometry: the resolution's rows are positions P in [y0, y0 + rh) (absolute). Even P is
 * low-pass row P / 2 (the resolution below, from bb->low, then the HL band), odd P high-pass
 * row (P - 1) / 2 (the LH and HH bands); in both cases the band row is floor(P / 2), so group g
 * (band rows [g G, g G + G)) holds the positions [2 g G, 2 g G + 2 G).
 *
 * Schedule: after group k (g = g_first + k) the positions before 2 (g + 1) G are decoded, i.e.
 * rows [0, T) relative to y0 (T = rh after the last group). The group completes rows [a, b)
 * with b = T - M (rh after the last group; b = a when T - M <= a), reconstructed in the window
 * [w0, w1) = [a - M (0 at least), T). Group k's own rows [T_prev, T) lie inside it, and the rows
 * before them ([w0, T_prev), at most 2 M) were decoded in the previous window and are kept
 * (carry) before that window is transformed.
 *
 * Exactness: the last level's vertical lifting (F.3.8) moves information one row per step: 2
 * steps for 5/3, 4 for 9/7 (the K scaling is per sample). A window [w0, w1) lifted on its own,
 * with the symmetric extension at its ends, therefore computes the same operations on the same
 * operands as the whole column for every row at least M = steps rows from an end of the window
 * that is not an end of the column; those are the only rows taken from it. */
#include "j2k/decode_stages.h"

#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

static uint32_t ngroups(const tsr__j2k_res *r, uint32_t G)
{
    return ((r->y1 - 1) / 2) / G - (r->y0 / 2) / G + 1;
}

size_t tsr__j2k_bands_size(const tsr__j2k_tilecomp *tc, uint32_t ri, uint32_t G, uint32_t M)
{
    const tsr__j2k_res *r = &tc->res[ri];
    return tsr__j2k_line_words((size_t)5 * ngroups(r, G)) +
           tsr__j2k_line_words((size_t)(2 * G + 4 * M) * (r->x1 - r->x0));
}

int tsr__j2k_bands_init(tsr__j2k_bands *bb, const tsr__j2k_tilecomp *tc, uint32_t ri, uint32_t G,
                        uint32_t M, int32_t *mem)
{
    const tsr__j2k_res *r = &tc->res[ri], *low = &tc->res[ri - 1];
    bb->r = ri;
    bb->low = tc->data;
    bb->low_stride = tc->stride;
    bb->low_y0 = low->y0;
    bb->low_cap = 0;
    bb->G = G;
    bb->M = M;
    bb->y0 = r->y0;
    bb->rh = r->y1 - r->y0;
    bb->rw = r->x1 - r->x0;
    bb->snx = low->x1 - low->x0;
    bb->g_first = (r->y0 / 2) / G;
    bb->g_last = ((r->y1 - 1) / 2) / G;
    bb->win_cap = 2 * G + 2 * M;
    bb->span = (uint32_t *)mem;
    bb->lift = bb->span + (size_t)4 * ngroups(r, G);
    mem += tsr__j2k_line_words((size_t)5 * ngroups(r, G));
    bb->win = mem;
    bb->carry = mem + (size_t)bb->win_cap * bb->rw;
    uint32_t a = 0;
    for (uint32_t g = bb->g_first; g <= bb->g_last; g++) {
        uint32_t *s = bb->span + (size_t)4 * (g - bb->g_first);
        const uint64_t end = (uint64_t)2 * (g + 1) * G; /* positions before it are decoded */
        const uint32_t t =
            g == bb->g_last || end >= (uint64_t)bb->y0 + bb->rh ? bb->rh : (uint32_t)(end - bb->y0);
        bb->lift[g - bb->g_first] = 0;
        s[0] = a;
        s[1] = t == bb->rh ? bb->rh : t > a + M ? t - M : a;
        s[2] = a > M ? a - M : 0;
        s[3] = t;
        a = s[1];
        /* the window, and what the next window keeps from it (carry: 2 M rows) */
        if (s[3] - s[2] > bb->win_cap || (g < bb->g_last && s[3] - (a > M ? a - M : 0) > 2 * M))
            return -1;
    }
    return 0;
}

/* Window row of position p (absolute) in group k's window. */
static size_t win_row(const tsr__j2k_bands *bb, uint32_t k, uint32_t p)
{
    const uint32_t p0 = bb->y0 + bb->span[4 * k + 2], p1 = bb->y0 + bb->span[4 * k + 3];
    if ((p & 1) == 0)
        return p / 2 - (p0 + 1) / 2;
    const uint32_t nlow = (p1 + 1) / 2 - (p0 + 1) / 2;
    return nlow + p / 2 - p0 / 2;
}

int32_t *tsr__j2k_bands_at(const tsr__j2k_bands *bb, uint32_t b, uint32_t y)
{
    const uint32_t k = y / bb->G - bb->g_first;
    const uint32_t p = 2 * y + (b == 0 ? 0 : 1); /* HL: low rows, LH and HH: high rows */
    return bb->win + win_row(bb, k, p) * bb->rw + (b == 1 ? 0 : bb->snx);
}

/* The calling OpenMP thread's part of a scratch buffer of `per_thread` words per thread. */
static int32_t *thread_scratch(int32_t *scratch, size_t per_thread)
{
    int tid = 0;
#ifdef _OPENMP
    tid = omp_get_thread_num();
#endif
    return scratch + (size_t)tid * per_thread;
}

/* The first decoded component's bands (every decoded component has the same schedule). */
static const tsr__j2k_bands *first_bands(const tsr__j2k_bands *bands, const tsr__j2k_tile *t)
{
    uint32_t c = 0;
    while (t->comps[c].skip)
        c++;
    return &bands[c];
}

/* Low row q (absolute) of bb's resolution. */
static int32_t *low_row(const tsr__j2k_bands *bb, uint32_t q)
{
    const uint32_t i = q - bb->low_y0;
    return bb->low + (size_t)(bb->low_cap ? i % bb->low_cap : i) * bb->low_stride;
}

/* Item i of a loop over group k's rows (positions p0 .. p0 + n) of every component, component by
 * component: sets *c and *p, and returns the row's place in the component's window (row width
 * rw), or NULL when the component is not decoded. */
static int32_t *group_row(const tsr__j2k_bands *bands, const tsr__j2k_tile *t, uint32_t k,
                          uint32_t rw, uint32_t p0, uint32_t n, size_t i, uint32_t *c, uint32_t *p)
{
    *c = (uint32_t)(i / n);
    *p = p0 + (uint32_t)(i % n);
    if (t->comps[*c].skip)
        return NULL;
    const tsr__j2k_bands *bb = &bands[*c];
    return bb->win + win_row(bb, k, *p) * rw;
}

void tsr__j2k_bands_fill(const tsr__j2k_bands *bands, const tsr__j2k_tile *t, uint32_t k)
{
    const tsr__j2k_bands *b0 = first_bands(bands, t);
    const uint32_t *s = b0->span + (size_t)4 * k, rw = b0->rw;
    const uint32_t p0 = b0->y0 + s[2], n = s[3] - s[2];
    const uint32_t prev = b0->y0 + (k ? b0->span[4 * (k - 1) + 3] : s[2]);
    const size_t total = (size_t)t->ncomps * n;
    /* rows kept from the previous window (positions [p0, prev)), then the low halves of the
     * group's own low rows */
#pragma omp for schedule(static)
    for (size_t i = 0; i < total; i++) {
        uint32_t c, p;
        int32_t *row = group_row(bands, t, k, rw, p0, n, i, &c, &p);
        if (!row)
            continue;
        const tsr__j2k_bands *bb = &bands[c];
        if (p < prev)
            memcpy(row, bb->carry + (size_t)(p - p0) * rw, (size_t)rw * sizeof *row);
        else if ((p & 1) == 0)
            memcpy(row, low_row(bb, p / 2), (size_t)bb->snx * sizeof *row);
    }
}

/* Whether the n samples at p are all zero (their bits: +0.0 for the 9/7's floats). In chunks,
 * so that the OR vectorises and a non-zero row stops early. */
static int row_is_zero(const int32_t *p, uint32_t n)
{
    for (uint32_t x = 0; x < n; x += 64) {
        const uint32_t e = n - x < 64 ? n : x + 64;
        int32_t any = 0;
        for (uint32_t i = x; i < e; i++)
            any |= p[i];
        if (any)
            return 0;
    }
    return 1;
}

/* Zero in, zero out: the lifting steps of both wavelets (F.3.8: the 5/3's integer steps round
 * 0 to 0; the 9/7's x - c (a + b) and scalings keep +0.0) leave all-zero samples zero, so rows
 * that are all zero are not lifted, nor the columns of a window whose rows all are (empty
 * code-blocks, as in a small codestream that claims a large image): their work is one scan. */
void tsr__j2k_bands_dwt(const tsr__j2k_bands *bands, const tsr__j2k_tile *t,
                        const tsr__j2k_tcp *tcp, uint32_t k, int32_t *scratch, size_t per_thread)
{
    const tsr__j2k_bands *b0 = first_bands(bands, t);
    const uint32_t *s = b0->span + (size_t)4 * k, rw = b0->rw;
    const uint32_t p0 = b0->y0 + s[2], p1 = b0->y0 + s[3], n = p1 - p0;
    const uint32_t q0 = b0->g_first + k < b0->g_last ? b0->y0 + s[4 + 2] : p1;
    const int lift = s[1] > s[0];
    /* per row: what the next window keeps from it (as decoded), then the horizontal lifting */
    const size_t total = (size_t)t->ncomps * n;
#pragma omp for schedule(static)
    for (size_t i = 0; i < total; i++) {
        uint32_t c, p;
        int32_t *row = group_row(bands, t, k, rw, p0, n, i, &c, &p);
        if (!row)
            continue;
        const tsr__j2k_tilecomp *tc = &t->comps[c];
        const tsr__j2k_bands *bb = &bands[c];
        if (p >= q0)
            memcpy(bb->carry + (size_t)(p - q0) * rw, row, (size_t)rw * sizeof *row);
        if (!lift || row_is_zero(row, rw))
            continue;
#pragma omp atomic write
        bb->lift[k] = 1;
        tsr__dwt_hrow(row, rw, bb->snx, tc->res[bb->r].x0, tcp->tccps[c].qmfbid == 1,
                      thread_scratch(scratch, per_thread));
    }
    if (!lift)
        return;
    /* the columns, in strips */
    const uint32_t nstrips = (rw + TSR__DWT_STRIP - 1) / TSR__DWT_STRIP,
                   sny = (p1 + 1) / 2 - (p0 + 1) / 2;
    const size_t vtotal = (size_t)t->ncomps * nstrips;
#pragma omp for schedule(static)
    for (size_t i = 0; i < vtotal; i++) {
        const uint32_t c = (uint32_t)(i / nstrips);
        if (t->comps[c].skip || !bands[c].lift[k])
            continue;
        tsr__dwt_vstrip(bands[c].win, rw, rw, n, sny, p0, tcp->tccps[c].qmfbid == 1,
                        (uint32_t)(i % nstrips), thread_scratch(scratch, per_thread));
    }
}

void tsr__j2k_bands_pass_up(const tsr__j2k_bands *bands, const tsr__j2k_bands *up,
                            const tsr__j2k_tile *t, uint32_t k)
{
    const tsr__j2k_bands *b0 = first_bands(bands, t);
    const uint32_t *s = b0->span + (size_t)4 * k, rw = b0->rw, n = s[1] - s[0];
    const size_t total = (size_t)t->ncomps * n;
    /* after the DWT, window row i is position y0 + w0 + i */
#pragma omp for schedule(static)
    for (size_t i = 0; i < total; i++) {
        const uint32_t c = (uint32_t)(i / n), rel = s[0] + (uint32_t)(i % n);
        if (t->comps[c].skip)
            continue;
        memcpy(low_row(&up[c], b0->y0 + rel), bands[c].win + (size_t)(rel - s[2]) * rw,
               (size_t)rw * sizeof(int32_t));
    }
}

/* The rows of the resolution below the top (from its first) that the top's group k reads: low
 * rows [*q0, *q1) (its window's even positions). */
static void low_rows_of(const tsr__j2k_bands *top, uint32_t k, uint32_t *q0, uint32_t *q1)
{
    const uint32_t *s = top->span + (size_t)4 * k;
    *q0 = (top->y0 + s[2] + 1) / 2 - top->low_y0;
    *q1 = (top->y0 + s[3] + 1) / 2 - top->low_y0;
}

int tsr__j2k_bands_due(const tsr__j2k_bands *top, const tsr__j2k_bands *below, uint32_t k,
                       uint32_t g)
{
    uint32_t q0, q1;
    low_rows_of(top, k, &q0, &q1);
    return g <= below->g_last - below->g_first && (g ? below->span[4 * (g - 1) + 1] : 0) < q1;
}

uint32_t tsr__j2k_bands_ring_rows(const tsr__j2k_bands *top, const tsr__j2k_bands *below)
{
    /* the schedule run ahead: after the groups below that are due before top group k, rows
     * [0, done) are written; the oldest row group k reads is q0, and every row written later
     * takes the place of one cap rows before it */
    const uint32_t ntop = top->g_last - top->g_first + 1;
    uint32_t g = 0, done = 0, cap = 1;
    for (uint32_t k = 0; k < ntop; k++) {
        while (tsr__j2k_bands_due(top, below, k, g))
            done = below->span[4 * g++ + 1];
        uint32_t q0, q1;
        low_rows_of(top, k, &q0, &q1);
        if (done > q0 && done - q0 > cap)
            cap = done - q0;
    }
    return cap;
}
