/* The CUDA carve kernels' logic on the CPU, no GPU needed: a host emulation of carve_cuda.cu's
 * launchers (device buffers as host arrays, the ones a launch must write before anything reads
 * them poisoned, columns past the width poisoned, shared memory poisoned per block) that runs
 * the kernels' own per-thread bodies (src/carve's *_kernel_hd.h) for every thread of every
 * block of every launch, in launch order. Blocks of a launch run in a shuffled order, and
 * within a block every phase between two barriers with its threads in descending order (so a
 * read that depends on another thread's write in the same phase shows); a warp's rows run in
 * lockstep with the shuffles reading the registers as they were before the row; the DP items
 * run in a random order among those whose predecessors (as the kernel names them) are done, so
 * a missing dependency shows. It is driven by the library's own device-pass loop
 * (tsr__carve_remove_seams_dev: polling, stop, fetch, host gather) and compared with the
 * reference pass (tsr__carve_remove_seams, TSR_BACKEND_REFERENCE) on random grids: 1 to 3
 * columns, tall and thin, wide and short, many strips and bands, both energies, keep and drop
 * masks (the DP's 64-bit keys; 32-bit without a mask: carve_emu_dp.h runs both), object
 * removal, exact and batch mode (adaptive and fixed K: batch.c), every plane,
 * record, marks, report sums. The batch kernels' staging (cp.async rows, shared positions) is
 * kernel code, not emulated: test_carve_cuda_gpu covers it. */
#include "testlib.h"

#include "carve/batch_kernel_hd.h"
#include "carve/pass_device.h"
#include "carve/plan.h"
#include "core/ctx.h"

#include <stdlib.h>
#include <string.h>

/* ---- the emulated device ---- */
typedef struct emu {
    tsr__cc_planes P;
    tsr__cc_state state;
    int32_t w0, count, kmax;
    uint32_t gen; /* of the last DP launch */
    tsr_rng rng;
    int64_t launches;
    size_t cells, bcells; /* pitch * h, bands * pitch */
} emu;

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        abort();
    return p;
}

static void poison(void *p, size_t n)
{
    memset(p, 0xA5, n);
}

/* Block order of a launch: shuffled. */
static int32_t *block_order(emu *e, int32_t n)
{
    int32_t *o = xmalloc((size_t)n * sizeof *o);
    for (int32_t i = 0; i < n; i++)
        o[i] = i;
    for (int32_t i = n - 1; i > 0; i--) {
        int32_t j = tsr_rng_range(&e->rng, 0, i), t = o[i];
        o[i] = o[j];
        o[j] = t;
    }
    return o;
}

/* One DP item of each key type (run_item64/32, item_ready64/32). */
#define EMU_KB 64
#include "carve_emu_dp.h"
#define EMU_KB 32
#include "carve_emu_dp.h"

/* A DP launch: tickets are taken in order, but the items run in a random order among those
 * whose polls would succeed (every key they load carries this launch's tag); everything the
 * launch writes is poisoned first (the keys with the previous launch's tag, as stale keys on the
 * device), so a missing store shows (as a deadlock: abort) and so does a read of a wrong one. */
static int64_t dp_keys[2]; /* DP launches run with 32-bit keys, with 64-bit keys */
static int64_t traces[2];  /* batch traces run in the block form, in the warp form */
static int64_t joins;      /* batch passes whose halves had more than one segment */

static void launch_dp(emu *e, int32_t w, uint32_t gen)
{
    const tsr__cc_planes *P = &e->P;
    e->launches++;
    if (P->state->stop)
        return;
    dp_keys[P->hand64 != NULL]++;
    for (size_t i = 0; i < e->bcells; i++)
        if (P->hand64)
            P->hand64[i] = (0xA5A5A5A5A5A5A5A5ull & TSR__CC_KEY_MASK64) |
                           (uint64_t)((gen - 1) & 31) << TSR__CC_TAG_SHIFT64;
        else
            P->hand32[i] = (0xA5A5A5A5u & TSR__CC_KEY_MASK32) | (uint32_t)((gen - 1) & 31)
                                                                    << TSR__CC_TAG_SHIFT32;
    poison(P->entry, e->bcells * 2);
    poison(P->back, e->cells / 4);
    if (P->pair)
        poison(P->pair, e->cells / 2);
    const uint32_t items = tsr__cc_dp_items(P, w);
    P->tickets[gen - 1] += items;
    uint32_t *todo = xmalloc(items * sizeof *todo), *ready = xmalloc(items * sizeof *ready);
    uint32_t left = items;
    for (uint32_t t = 0; t < items; t++)
        todo[t] = t;
    while (left > 0) {
        uint32_t nr = 0;
        for (uint32_t i = 0; i < left; i++) {
            tsr__cc_item it;
            tsr__cc_planes V = *P; /* the item's view (its segment in batch mode) */
            if (!tsr__cc_item_of(&V, w, todo[i], &it) || /* an empty ticket: done at once */
                (P->hand64 ? item_ready64(&V, w, &it, gen) : item_ready32(&V, w, &it, gen)))
                ready[nr++] = i;
        }
        if (nr == 0) {
            fprintf(stderr, "emu: DP deadlock\n");
            abort();
        }
        const uint32_t pick = ready[tsr_rng_range(&e->rng, 0, (int)nr - 1)];
        if (P->hand64)
            run_item64(P, w, todo[pick], gen);
        else
            run_item32(P, w, todo[pick], gen);
        todo[pick] = todo[--left];
    }
    free(todo);
    free(ready);
}

/* select's argmin_warp: 32 lanes in lockstep, each step's shuffle reading the values as they
 * were before it (a lane past the warp's end reads its own). */
static void argmin_warp(uint64_t *v, int32_t *x)
{
    for (int32_t off = TSR__CC_LANES / 2; off > 0; off >>= 1) {
        uint64_t pv[TSR__CC_LANES];
        int32_t px[TSR__CC_LANES];
        memcpy(pv, v, sizeof pv);
        memcpy(px, x, sizeof px);
        for (int32_t lane = TSR__CC_LANES - 1; lane >= 0; lane--) {
            const int32_t src = lane + off < TSR__CC_LANES ? lane + off : lane;
            tsr__cc_argmin_combine(&v[lane], &x[lane], pv[src], px[src]);
        }
    }
}

static void launch_select(emu *e, int32_t w)
{
    const tsr__cc_planes *P = &e->P;
    enum { WARPS = TSR__CC_SEL_THREADS / TSR__CC_LANES };
    uint64_t sv[TSR__CC_SEL_THREADS], wv[WARPS];
    int32_t sx[TSR__CC_SEL_THREADS], wx[WARPS];
    static int32_t exits[TSR__CC_MAX_BANDS];
    static uint16_t win[TSR__CC_HOP_G][TSR__CC_HOP_W], hv[TSR__CC_SEL_THREADS][TSR__CC_HOP_G];
    e->launches++;
    if (P->state->stop)
        return;
    poison(exits, sizeof exits);
    for (int32_t t = TSR__CC_SEL_THREADS - 1; t >= 0; t--)
        tsr__cc_argmin_partial(P, w, t, TSR__CC_SEL_THREADS, &sv[t], &sx[t]);
    for (int32_t wp = WARPS - 1; wp >= 0; wp--) {
        argmin_warp(sv + wp * TSR__CC_LANES, sx + wp * TSR__CC_LANES);
        wv[wp] = sv[wp * TSR__CC_LANES];
        wx[wp] = sx[wp * TSR__CC_LANES];
    }
    argmin_warp(wv, wx);
    const int32_t xe = wx[0];
    if (!tsr__cc_select_begin(P))
        return;
    /* the hops by groups: every thread's loads, then its stores, then thread 0's walk */
    const int32_t nb = tsr__cc_bands(P->h);
    for (int32_t b0 = nb - 1, x0 = xe; b0 >= 1; b0 -= TSR__CC_HOP_G) {
        poison(win, sizeof win);
        poison(hv, sizeof hv);
        for (int32_t t = TSR__CC_SEL_THREADS - 1; t >= 0; t--)
            tsr__cc_hop_load(P, w, b0, x0, t, hv[t]);
        for (int32_t t = TSR__CC_SEL_THREADS - 1; t >= 0; t--)
            tsr__cc_hop_store(w, b0, x0, t, hv[t], win);
        x0 = tsr__cc_hop_walk((const uint16_t(*)[TSR__CC_HOP_W])win, b0, x0, exits);
    }
    /* every band expanded by one warp: lanes load their row's words, lane 0 walks, every lane
     * stores its row (rows past the image's last are never stored: their path entries stay
     * poisoned) */
    int32_t sd = 0;
    for (int32_t b = nb - 1; b >= 0; b--) {
        const int32_t y0 = b * TSR__CC_BAND;
        const int32_t last = (P->h - y0 < TSR__CC_BAND ? P->h - y0 : TSR__CC_BAND) - 1;
        const int32_t x = b == nb - 1 ? xe : exits[b];
        const int32_t word0 = tsr__cc_expand_word0(x);
        uint32_t ew[TSR__CC_BAND][TSR__CC_EXP_WORDS];
        int32_t xr[TSR__CC_BAND];
        poison(ew, sizeof ew);
        poison(xr, sizeof xr);
        for (int32_t lane = TSR__CC_LANES - 1; lane >= 0; lane--)
            tsr__cc_expand_load(P, b, word0, lane, ew[lane]);
        tsr__cc_expand_walk((const uint32_t(*)[TSR__CC_EXP_WORDS])ew, word0, last, x, xr);
        for (int32_t lane = TSR__CC_LANES - 1; lane >= 0; lane--)
            sd += tsr__cc_expand_store(P, b, lane, xr[lane]);
    }
    tsr__cc_select_finish(P, xe, sd);
}

static void launch_remove(emu *e, int32_t w)
{
    const tsr__cc_planes *P = &e->P;
    tsr__cc_cell r[TSR__CC_THREADS];
    e->launches++;
    if (P->state->stop)
        return;
    int32_t *order = block_order(e, P->h);
    for (int32_t b = 0; b < P->h; b++) {
        const int32_t y = order[b], xs = P->xs[y];
        /* thread 0's record belongs to the first phase, before any write */
        tsr__cc_remove_record(P, y);
        for (int32_t c = xs; c < w - 1; c += TSR__CC_THREADS * TSR__CC_RM_E) {
            for (int32_t t = TSR__CC_THREADS - 1; t >= 0; t--)
                tsr__cc_remove_read(P, w, y, c, t, &r[t]);
            for (int32_t t = TSR__CC_THREADS - 1; t >= 0; t--)
                tsr__cc_remove_write(P, y, c, t, &r[t]);
        }
    }
    free(order);
}

/* Opens on host grids only (pass_device.c's tsr__carve_remove_seams_dev passes no device
 * pixels). */
static tsr_status emu_open(tsr_ctx *ctx, const tsr__carve_grid *g,
                           const tsr__carve_dev_pixels *pixels, tsr_carve_energy kind,
                           const uint64_t pen[4], int32_t count, int32_t kmax, int until,
                           int64_t drops, void **out)
{
    (void)ctx;
    CHECK(pixels == NULL);
    emu *e = xmalloc(sizeof *e);
    memset(e, 0, sizeof *e);
    tsr_rng_seed(&e->rng, 7 + (uint64_t)g->w * 31 + (uint64_t)g->h);
    const int32_t w = g->w, h = g->h, pitch = tsr__cc_pitch(w);
    const size_t cells = (size_t)pitch * (size_t)h;
    e->w0 = w;
    e->count = count;
    e->cells = cells;
    e->bcells = (size_t)tsr__cc_hand_bands(h, kmax > 0) * (size_t)pitch;
    tsr__cc_planes *P = &e->P;
    P->pitch = pitch;
    P->h = h;
    P->forward = kind == TSR_CARVE_FORWARD;
    P->until = until != 0;
    for (int i = 0; i < 4; i++)
        P->pen[i] = pen[i];
    P->luma = xmalloc(cells);
    P->mask = g->mask ? xmalloc(cells) : NULL;
    P->orig = xmalloc(cells * 2);
    if (P->mask) /* the DP's key type (carve_cuda.cu's open) */
        P->hand64 = xmalloc(e->bcells * 8);
    else
        P->hand32 = xmalloc(e->bcells * 4);
    P->entry = xmalloc(e->bcells * 2);
    P->back = xmalloc(cells / 4);
    P->tickets = xmalloc((size_t)count * 4);
    memset(P->tickets, 0, (size_t)count * 4);
    P->xs = xmalloc((size_t)h * 4);
    P->rec = xmalloc((size_t)count * (size_t)h * 2);
    P->state = &e->state;
    if (kmax > 0) { /* batch mode's planes */
        e->kmax = kmax;
        P->pair = xmalloc(cells / 2);
        P->cols = xmalloc((size_t)h * (size_t)kmax * 4);
        P->luma2 = xmalloc(cells);
        P->mask2 = P->mask ? xmalloc(cells) : NULL;
        P->orig2 = xmalloc(cells * 2);
    }
    /* planes past the width stay poisoned: nothing may use them (the DP's staging reads whole
       words of luma and gets garbage energies only for cells no valid cell reads) */
    poison(P->luma, cells);
    if (P->mask)
        poison(P->mask, cells);
    poison(P->orig, cells * 2);
    poison(P->xs, (size_t)h * 4);
    poison(P->rec, (size_t)count * (size_t)h * 2);
    for (int32_t y = 0; y < h; y++) {
        memcpy(P->luma + (size_t)y * (size_t)pitch, g->luma + (size_t)y * (size_t)g->pitch,
               (size_t)w);
        if (P->mask)
            memcpy(P->mask + (size_t)y * (size_t)pitch, g->mask + (size_t)y * (size_t)g->pitch,
                   (size_t)w);
    }
    e->state.drops = drops;
    /* orig_init: one thread per cell, no dependencies */
    for (int32_t y = 0; y < h; y++)
        for (int32_t x = 0; x < w; x++)
            P->orig[(size_t)y * (size_t)pitch + (size_t)x] = (uint16_t)x;
    e->gen = 1;
    launch_dp(e, w, 1);
    *out = e;
    return TSR_OK;
}

static tsr_status emu_seams(tsr_ctx *ctx, void *dev, int32_t first, int32_t n)
{
    emu *e = dev;
    if (first < 0 || n < 0 || first + n > e->count)
        return tsr__fail(ctx, TSR_ERR_INTERNAL, "emu: seams %d..%d of %d", (int)first,
                         (int)(first + n), (int)e->count);
    for (int32_t k = first; k < first + n; k++) {
        const int32_t w = e->w0 - k;
        launch_select(e, w);
        launch_remove(e, w);
        if (k + 1 < e->count)
            launch_dp(e, w - 1, (uint32_t)k + 2);
    }
    return TSR_OK;
}

/* topk: one block of TOPK_THREADS (carve_cuda_batch_kernels.cuh): the radix digits (histogram,
 * the picking warp's lanes with the sums of the bins below theirs), then the two block scans. */
static void launch_topk(emu *e, int32_t w, int32_t k)
{
    const tsr__cc_planes *P = &e->P;
    enum { T = TSR__CC_TOPK_THREADS };
    static int32_t a[T], b[T];
    static uint32_t cnt[T], eqb[T];
    e->launches++;
    poison(P->cols + (size_t)(P->h / 2 > 0 ? P->h / 2 - 1 : 0) * (size_t)k,
           (size_t)(P->h / 2 > 0 ? 2 : 1) * (size_t)k * 4);
    for (int32_t t = T - 1; t >= 0; t--)
        tsr__cc_topk_range(w, t, T, &a[t], &b[t]);
    uint64_t any = 0, *keys = xmalloc((size_t)w * sizeof *keys); /* the threads' key caches */
    for (int32_t x = 0; x < w; x++)
        any |= keys[x] = tsr__cc_meet_key(P, x);
    uint64_t prefix = 0;
    uint32_t need = (uint32_t)k;
    for (int32_t s = tsr__cc_topk_first_shift(any); s >= 0; s -= 8) {
        uint32_t hist[256];
        memset(hist, 0, sizeof hist);
        for (int32_t t = T - 1; t >= 0; t--)
            for (int32_t x = a[t]; x < b[t]; x++) {
                const int32_t d = tsr__cc_topk_digit(keys[x], prefix, s);
                if (d >= 0)
                    hist[d]++;
            }
        uint32_t before = 0;
        int found = 0;
        uint64_t np = 0;
        uint32_t nn = 0;
        for (int32_t lane = 0; lane < 32; lane++) {
            int32_t digit;
            uint32_t left;
            if (tsr__cc_topk_pick(hist, lane, before, need, &digit, &left)) {
                found++;
                np = prefix | (uint64_t)digit << s;
                nn = left;
            }
            for (int32_t i = 0; i < 8; i++)
                before += hist[lane * 8 + i];
        }
        if (found != 1) {
            fprintf(stderr, "emu: topk digit picked by %d lanes\n", found);
            abort();
        }
        prefix = np;
        need = nn;
    }
    uint32_t run = 0;
    for (int32_t t = 0; t < T; t++) {
        eqb[t] = run;
        run += (uint32_t)tsr__cc_topk_emit(P, k, keys + a[t], a[t], b[t], prefix, need, 0, 0, -1);
    }
    for (int32_t t = T - 1; t >= 0; t--)
        cnt[t] =
            (uint32_t)tsr__cc_topk_emit(P, k, keys + a[t], a[t], b[t], prefix, need, eqb[t], 0, 0);
    run = 0;
    for (int32_t t = 0; t < T; t++) {
        const uint32_t n = cnt[t];
        cnt[t] = run;
        run += n;
    }
    if (run != (uint32_t)k) {
        fprintf(stderr, "emu: topk selected %u of %d\n", run, (int)k);
        abort();
    }
    for (int32_t t = T - 1; t >= 0; t--)
        tsr__cc_topk_emit(P, k, keys + a[t], a[t], b[t], prefix, need, eqb[t], (int32_t)cnt[t], 1);
    free(keys);
}

/* trace, the warp form (k <= 256), one half (its view V): every lane's row step from the
 * lanes' columns of row y, its neighbours across lanes (and warps) as the shuffles and the edge
 * exchange give them, the lanes in descending order. */
static void trace_warp(const tsr__cc_planes *V, int32_t w, int32_t k, int32_t s, int32_t warps)
{
    const int32_t rw = V->pitch / 4, lanes = TSR__CC_LANES * warps;
    int32_t x[8 * TSR__CC_LANES][2], nx[8 * TSR__CC_LANES][2];
    for (int32_t g = 0; g < lanes; g++)
        for (int32_t i = 0; i < s; i++) {
            const int32_t j = g * s + i;
            x[g][i] = j < k ? tsr__cc_cols_row(V, k, V->h - 1)[j] : 0;
        }
    for (int32_t y = V->h - 1; y >= 1; y--) {
        const uint16_t *row = V->pair + (size_t)y * (size_t)rw;
        for (int32_t g = lanes - 1; g >= 0; g--) {
            /* the block's first and last lanes read their own values (unused: seam 0 has no
               left neighbour, seam k - 1 no right one) */
            const int32_t xl = x[g > 0 ? g - 1 : 0][s - 1];
            const int32_t xr = x[g < lanes - 1 ? g + 1 : g][0];
            tsr__cc_trace_lane(w, k, g, s, x[g], xl, xr, row, nx[g]);
        }
        for (int32_t g = 0; g < lanes; g++)
            for (int32_t i = 0; i < s; i++) {
                const int32_t j = g * s + i;
                if (j < k)
                    tsr__cc_cols_row(V, k, y - 1)[j] = nx[g][i];
                x[g][i] = nx[g][i];
            }
    }
}

/* trace: one block per half (the bottom one first), each in the warp form where it applies,
 * else one barrier per row (the seams of a row in descending order). Every row but the halves'
 * last ones (rows m-1 and m, topk's) is poisoned first. */
static void launch_trace(emu *e, int32_t w, int32_t k)
{
    const tsr__cc_planes *P = &e->P;
    const int32_t rw = P->pitch / 4, m = P->h / 2;
    int32_t s = 0, warps = 0;
    const int warp_form = tsr__cc_trace_warp_form(P->pitch, k, &s, &warps);
    e->launches++;
    if (m > 1)
        poison(P->cols, (size_t)(m - 1) * (size_t)k * 4);
    poison(P->cols + (size_t)(m + 1) * (size_t)k, (size_t)(P->h - m - 1) * (size_t)k * 4);
    for (int bottom = 1; bottom >= 0; bottom--) {
        tsr__cc_planes V = *P;
        tsr__cc_half(&V, bottom, k);
        if (V.h < 1)
            continue;
        traces[warp_form]++;
        if (warp_form) {
            trace_warp(&V, w, k, s, warps);
            continue;
        }
        for (int32_t y = V.h - 1; y >= 1; y--) {
            const int32_t *cur = tsr__cc_cols_row(&V, k, y);
            for (int32_t j = k - 1; j >= 0; j--) {
                const int32_t x = cur[j];
                tsr__cc_cols_row(&V, k, y - 1)[j] = tsr__cc_batch_step(
                    w, x, j > 0, j > 0 ? cur[j - 1] : 0, j < k - 1, j < k - 1 ? cur[j + 1] : 0,
                    tsr__cc_batch_nib(V.pair + (size_t)y * (size_t)rw, x));
            }
        }
    }
}

static tsr_status emu_batch(tsr_ctx *ctx, void *dev, int32_t w, int32_t k, int32_t removed,
                            int more)
{
    emu *e = dev;
    tsr__cc_planes *P = &e->P;
    if (!P->pair || k < 1 || k > e->kmax || k > w - 1 || removed + k > e->count)
        return tsr__fail(ctx, TSR_ERR_INTERNAL, "emu: batch pass of %d at %d", (int)k, (int)w);
    launch_topk(e, w, k);
    /* join: one thread per 4 columns of a segment's first row, in a shuffled order */
    const int32_t nj = tsr__cc_joins(P->h) * ((w + 3) / 4);
    if (nj > 0) {
        e->launches++;
        int32_t *jorder = block_order(e, nj);
        for (int32_t i = 0; i < nj; i++)
            tsr__cc_join(P, w, jorder[i]);
        free(jorder);
        joins++;
    }
    launch_trace(e, w, k);
    /* sum: one thread per removed pixel, in a shuffled order */
    e->launches++;
    const int32_t n = P->h * k;
    int32_t *order = block_order(e, n);
    for (int32_t i = 0; i < n; i++) {
        int32_t drop;
        e->state.energy_sum +=
            tsr__cc_batch_pixel(P, w, k, removed, order[i] / k, order[i] % k, &drop);
        e->state.drops -= drop;
    }
    free(order);
    if (!more) /* no gather after the last pass (carve_cuda.cu) */
        return TSR_OK;
    /* gather: rows shuffled, the destination planes poisoned first */
    e->launches++;
    poison(P->luma2, e->cells);
    poison(P->orig2, e->cells * 2);
    if (P->mask)
        poison(P->mask2, e->cells);
    order = block_order(e, P->h);
    for (int32_t b = 0; b < P->h; b++) {
        const int32_t y = order[b];
        const int32_t *c = P->cols + (size_t)y * (size_t)k;
        for (int32_t x0 = (w - k - 1) / TSR__CC_GATHER_E * TSR__CC_GATHER_E; x0 >= 0;
             x0 -= TSR__CC_GATHER_E) {
            const int32_t n = w - k - x0 < TSR__CC_GATHER_E ? w - k - x0 : TSR__CC_GATHER_E;
            int32_t xs[TSR__CC_GATHER_E];
            tsr__cc_gather_srcs(c, k, x0, n, xs);
            for (int32_t i = 0; i < n; i++)
                tsr__cc_gather_cell(P, y, x0 + i, xs[i]);
        }
    }
    free(order);
    uint8_t *l = P->luma, *m = P->mask;
    uint16_t *o = P->orig;
    P->luma = P->luma2;
    P->luma2 = l;
    P->mask = P->mask2;
    P->mask2 = m;
    P->orig = P->orig2;
    P->orig2 = o;
    launch_dp(e, w - k, ++e->gen);
    return TSR_OK;
}

static tsr_status emu_state(tsr_ctx *ctx, void *dev, tsr__cc_state *st)
{
    (void)ctx;
    *st = ((emu *)dev)->state;
    return TSR_OK;
}

static tsr_status emu_fetch(tsr_ctx *ctx, void *dev, int32_t removed, uint16_t *rec)
{
    emu *e = dev;
    if (removed < 0 || removed > e->count)
        return tsr__fail(ctx, TSR_ERR_INTERNAL, "emu: fetch %d", (int)removed);
    memcpy(rec, e->P.rec, (size_t)removed * (size_t)e->P.h * 2);
    return TSR_OK;
}

static void emu_close(tsr_ctx *ctx, void *dev)
{
    (void)ctx;
    emu *e = dev;
    if (!e)
        return;
    void *planes[] = {e->P.luma,  e->P.mask, e->P.orig,    e->P.hand64, e->P.hand32,
                      e->P.entry, e->P.back, e->P.tickets, e->P.xs,     e->P.rec,
                      e->P.pair,  e->P.cols, e->P.luma2,   e->P.mask2,  e->P.orig2};
    for (size_t i = 0; i < sizeof planes / sizeof planes[0]; i++)
        free(planes[i]);
    free(e);
}

static const tsr__carve_dev_ops emu_ops = {emu_open,  emu_seams, emu_batch, emu_state,
                                           emu_fetch, NULL,      emu_close};

/* ---- the comparison ---- */
static tsr_ctx *ctx;
static int cases, mismatches;

/* fill kinds beside the three random ones: a zero-energy diagonal three pixels wide (column
 * 20 + y, or w - 21 - y) in random pixels of 128..255, so that seams move one column per row:
 * R columns per band, the most a band's entry columns allow */
enum { FILL_DIAG_RIGHT = 1000, FILL_DIAG_LEFT = 1001 };

static void fill(tsr_rng *r, tsr__carve_grid *g, int kind, int keep_density, int drop_rect)
{
    const int32_t w = g->w, h = g->h;
    for (int32_t y = 0; y < h; y++)
        for (int32_t x = 0; x < w; x++) {
            const size_t o = (size_t)y * (size_t)g->pitch + (size_t)x;
            const int32_t d = kind == FILL_DIAG_RIGHT ? x - 20 - y : x - (w - 21 - y);
            for (size_t b = 0; b < g->px; b++) {
                int v;
                switch (kind >= FILL_DIAG_RIGHT ? 3 : kind % 3) {
                case 0: v = tsr_rng_range(r, 0, 255); break;
                case 1: /* few levels: many equal keys, the tie-break decides */
                    v = tsr_rng_range(r, 0, 1) * 85;
                    break;
                case 2:
                    v = (x * 7 + y * 3 + (int)b * 50) % 256 + tsr_rng_range(r, 0, 2);
                    v = v > 255 ? 255 : v;
                    break;
                default: v = d >= -1 && d <= 1 ? 0 : tsr_rng_range(r, 128, 255); break;
                }
                g->pix[o * g->px + b] = (uint8_t)v;
            }
            if (g->index)
                g->index[o] = (uint32_t)((size_t)y * (size_t)w + (size_t)x);
            if (g->mask)
                g->mask[o] = 0;
        }
    if (g->mask) {
        if (g->has_keep)
            for (int32_t y = 0; y < h; y++)
                for (int32_t x = 0; x < w; x++)
                    if (tsr_rng_range(r, 0, 99) < keep_density)
                        g->mask[(size_t)y * (size_t)g->pitch + (size_t)x] |= TSR__CARVE_KEEP;
        if (g->has_drop && drop_rect) {
            int x0 = tsr_rng_range(r, 0, w - 1), y0 = tsr_rng_range(r, 0, h - 1);
            int x1 = tsr_rng_range(r, x0, x0 + 3 < w - 1 ? x0 + 3 : w - 1);
            int y1 = tsr_rng_range(r, y0, h - 1);
            for (int y = y0; y <= y1; y++)
                for (int x = x0; x <= x1; x++)
                    g->mask[(size_t)y * (size_t)g->pitch + (size_t)x] |= TSR__CARVE_DROP;
            for (int i = 0; i < w * h / 50; i++)
                g->mask[(size_t)tsr_rng_range(r, 0, h - 1) * (size_t)g->pitch +
                        (size_t)tsr_rng_range(r, 0, w - 1)] |= TSR__CARVE_DROP;
        }
    }
    tsr__carve_luma_all(g, 1);
}

static int same_grid(const tsr__carve_grid *a, const tsr__carve_grid *b)
{
    if (a->w != b->w || a->h != b->h)
        return 0;
    for (int32_t y = 0; y < a->h; y++) {
        const size_t oa = (size_t)y * (size_t)a->pitch, ob = (size_t)y * (size_t)b->pitch;
        const size_t n = (size_t)a->w;
        if (memcmp(a->pix + oa * a->px, b->pix + ob * b->px, n * a->px) ||
            memcmp(a->luma + oa, b->luma + ob, n) ||
            (a->mask && memcmp(a->mask + oa, b->mask + ob, n)) ||
            (a->index && memcmp(a->index + oa, b->index + ob, n * 4)))
            return 0;
    }
    return 1;
}

/* batch: -1 exact mode, 0 batch mode with the adaptive K, > 0 batch mode with that K. */
static void one_case(tsr_rng *r, int32_t w, int32_t h, int channels, int kind,
                     tsr_carve_energy energy, int keep, int drop, int until, int32_t count,
                     int32_t batch)
{
    tsr__carve_grid a, b;
    const int with_mask = keep || drop;
    CHECK_OK(ctx, tsr__carve_grid_alloc(ctx, &a, w, h, w + 3, channels, TSR_U8, 1, with_mask, 1));
    a.has_keep = keep;
    a.has_drop = drop;
    fill(r, &a, kind, 3 + kind % 5, 1);
    CHECK_OK(ctx, tsr__carve_grid_copy(ctx, &a, &b, w + 1));
    if (until)
        count = w - 1;
    const size_t recn = (size_t)(count > 0 ? count : 1) * (size_t)h;
    uint32_t *reca = xmalloc(recn * 4), *recb = xmalloc(recn * 4);
    uint8_t *marka = xmalloc((size_t)w * (size_t)h), *markb = xmalloc((size_t)w * (size_t)h);
    memset(reca, 0x11, recn * 4);
    memset(recb, 0x11, recn * 4);
    memset(marka, 0, (size_t)w * (size_t)h);
    memset(markb, 0, (size_t)w * (size_t)h);
    tsr__carve_pass pa, pb;
    memset(&pa, 0, sizeof pa);
    pa.backend = TSR_BACKEND_REFERENCE;
    pa.energy = energy;
    pa.mode = batch < 0 ? TSR_CARVE_EXACT : TSR_CARVE_BATCH;
    pa.batch_seams = batch > 0 ? batch : 0;
    pa.threads = 1;
    pa.until_drop_gone = until;
    pa.record = reca;
    pa.marks = marka;
    pb = pa;
    pb.backend = TSR_BACKEND_CUDA;
    pb.threads = 4; /* the host gather's rows in parallel from 1 M pixels */
    pb.record = recb;
    pb.marks = markb;
    CHECK_OK(ctx, tsr__carve_remove_seams(ctx, &a, until ? 0 : count, &pa));
    CHECK_OK(ctx, tsr__carve_remove_seams_dev(ctx, &b, count, &pb, &emu_ops));
    cases++;
    const int ok = same_grid(&a, &b) && pa.removed == pb.removed && pa.dp_passes == pb.dp_passes &&
                   pa.energy_sum == pb.energy_sum &&
                   memcmp(reca, recb, (size_t)pa.removed * (size_t)h * 4) == 0 &&
                   memcmp(marka, markb, (size_t)w * (size_t)h) == 0;
    if (!ok) {
        mismatches++;
        if (mismatches < 20)
            fprintf(stderr,
                    "mismatch: %dx%d c%d kind %d %s keep %d drop %d until %d count %d batch %d: "
                    "removed %d/%d energy %llu/%llu\n",
                    (int)w, (int)h, channels, kind, tsr_carve_energy_name(energy), keep, drop,
                    until, (int)count, (int)batch, (int)pa.removed, (int)pb.removed,
                    (unsigned long long)pa.energy_sum, (unsigned long long)pb.energy_sum);
    }
    CHECK(ok);
    free(reca);
    free(recb);
    free(marka);
    free(markb);
    tsr__carve_grid_free(ctx, &a);
    tsr__carve_grid_free(ctx, &b);
}

/* The host gather by itself: a 10 x 2 luma grid, rows 0..9 and 10..19, two removed columns a
 * row given in seam order (unsorted within a row): the survivors in order and the width; then
 * rows whose removed columns repeat or leave the row: -1, the width unchanged. */
static void gather_cases(void)
{
    tsr__carve_grid g;
    CHECK_OK(ctx, tsr__carve_grid_alloc(ctx, &g, 10, 2, 10, 1, TSR_U8, 0, 0, 0));
    for (int i = 0; i < 20; i++)
        g.luma[i] = (uint8_t)i;
    tsr__carve_pass p;
    memset(&p, 0, sizeof p);
    p.threads = 1;
    int32_t scratch[64];
    CHECK(tsr__carve_apply_slice(2, 10) <= sizeof scratch / sizeof scratch[0]);
    const uint16_t rec[4] = {7, 0, 2, 9}; /* seam 0: rows 7, 0; seam 1: rows 2, 9 */
    CHECK(tsr__carve_apply_seams(&g, 2, rec, scratch, &p) == 0);
    CHECK(g.w == 8);
    static const uint8_t want[2][8] = {{0, 1, 3, 4, 5, 6, 8, 9}, {11, 12, 13, 14, 15, 16, 17, 18}};
    for (int y = 0; y < 2; y++)
        CHECK(memcmp(g.luma + (size_t)y * 10, want[y], 8) == 0);
    const uint16_t twice[4] = {3, 1, 3, 5}; /* row 0 loses column 3 twice */
    CHECK(tsr__carve_apply_seams(&g, 2, twice, scratch, &p) == -1 && g.w == 8);
    const uint16_t outside[4] = {1, 8, 2, 3}; /* row 1's column 8 is past the width */
    CHECK(tsr__carve_apply_seams(&g, 2, outside, scratch, &p) == -1 && g.w == 8);
    tsr__carve_grid_free(ctx, &g);
}

int main(void)
{
    tsr_ctx_options co;
    tsr_ctx_options_init(&co);
    co.backend = TSR_BACKEND_REFERENCE;
    if (tsr_ctx_create(&co, &ctx) != TSR_OK)
        return 1;
    CHECK(sizeof(tsr__carve_cost) == sizeof(uint64_t));
    CHECK(TSR__CC_DROP_B == TSR__CARVE_DROP_B);
    CHECK(TSR__CC_KEEP_BIT == TSR__CARVE_KEEP && TSR__CC_DROP_BIT == TSR__CARVE_DROP);
    gather_cases();
    tsr_rng r;
    tsr_rng_seed(&r, 4);
    /* Shapes: 1-3 columns, tall and thin, wide and short, many strips (S = 64) and bands
     * (R = 32) with partial last ones. */
    static const int shapes[][2] = {{1, 5},    {2, 1},     {2, 9},     {3, 3},     {3, 77},
                                    {9, 130},  {40, 2},    {64, 33},   {97, 61},   {257, 31},
                                    {300, 65}, {520, 12},  {700, 3},   {130, 100}, {33, 200},
                                    {513, 97}, {1100, 40}, {290, 290}, {3, 9000}};
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
        for (int t = 0; t < 8; t++) {
            const int32_t w = shapes[s][0], h = shapes[s][1];
            const tsr_carve_energy e = t & 1 ? TSR_CARVE_FORWARD : TSR_CARVE_BACKWARD;
            const int keep = (t & 2) != 0, drop = (t & 4) != 0;
            const int kind = t / 2 + (int)s;
            /* seams: a few (several polls when possible), and all the way to one column on the
             * small ones */
            int32_t few = w - 1 < 40 ? w - 1 : 40;
            if (w > 1 && (int64_t)w * h <= 20000)
                one_case(&r, w, h, 1 + t % 4, kind, e, keep, drop, 0, w - 1, -1);
            else if (w > 1 && t < 2) /* half the width of the large ones */
                one_case(&r, w, h, 1 + t % 4, kind, e, keep, drop, 0, w / 2, -1);
            if (few > 0)
                one_case(&r, w, h, 1 + (t + 1) % 4, kind + 1, e, keep, drop, 0, few, -1);
            if (drop && w > 1 && (int64_t)w * h <= 40000)
                one_case(&r, w, h, 3, kind, e, keep, 1, 1, 0, -1);
            /* batch mode: the adaptive K down to one column, fixed K (neighbours close
             * together: the narrowed steps), object removal */
            if (w > 1 && (int64_t)w * h <= 40000)
                one_case(&r, w, h, 1 + t % 4, kind + 2, e, keep, drop, 0, w - 1, 0);
            else if (w > 1)
                one_case(&r, w, h, 1 + t % 4, kind + 2, e, keep, drop, 0, w / 3, 0);
            if (w > 2)
                one_case(&r, w, h, 2, kind + 3, e, keep, drop, 0, w - 1 < 200 ? w - 1 : 200,
                         1 + (t * 7 + (int)s) % (w - 1 < 60 ? w - 1 : 60));
            if (drop && w > 1 && (int64_t)w * h <= 40000)
                one_case(&r, w, h, 3, kind, e, keep, 1, 1, 0, t % 3 == 0 ? 0 : 1 + t % 5);
        }
    /* seams along diagonals (R columns per band, 10 full bands), both ways, both energies, both
     * key types */
    for (int t = 0; t < 8; t++)
        one_case(&r, 380, 10 * TSR__CC_BAND, 1 + t % 3, t & 1 ? FILL_DIAG_LEFT : FILL_DIAG_RIGHT,
                 t & 2 ? TSR_CARVE_FORWARD : TSR_CARVE_BACKWARD, (t & 4) != 0, 0, 0, 12, -1);
    /* batch passes of 33 to 300 seams: the warp trace with 2, 4 and 8 seams a lane, and the
     * block trace past 256 */
    static const int32_t wide_k[] = {33, 100, 129, 256, 300};
    for (int i = 0; i < 5; i++)
        one_case(&r, 1100, 40, 3, i, i & 1 ? TSR_CARVE_FORWARD : TSR_CARVE_BACKWARD, i == 2, 0, 0,
                 2 * wide_k[i], wide_k[i]);
    /* over a million pixels: the host gather in parallel */
    one_case(&r, 1100, 1000, 3, 0, TSR_CARVE_BACKWARD, 0, 0, 0, 3, -1);
    one_case(&r, 1100, 1000, 3, 0, TSR_CARVE_FORWARD, 0, 0, 0, 40, 0);
    /* batch mode's interior items (tsr__cc_stage_energy_interior): many bands and strips */
    one_case(&r, 700, 600, 3, 1, TSR_CARVE_BACKWARD, 0, 0, 0, 40, 0);
    /* halves of more than one segment (tsr__carve_batch_seg; the joins): both energies, a mask, K =
     * 1 */
    one_case(&r, 100, 2200, 1, 0, TSR_CARVE_BACKWARD, 0, 0, 0, 12, 4);
    one_case(&r, 100, 2200, 1, 1, TSR_CARVE_FORWARD, 1, 1, 0, 12, 3);
    one_case(&r, 70, 2300, 1, 2, TSR_CARVE_FORWARD, 0, 0, 0, 5, 1);
    fprintf(stderr,
            "%d cases, %d mismatches; DP launches: %lld with 32-bit keys, %lld with 64-bit; "
            "batch traces: %lld block, %lld warp; batch passes with joins: %lld\n",
            cases, mismatches, (long long)dp_keys[0], (long long)dp_keys[1], (long long)traces[0],
            (long long)traces[1], (long long)joins);
    CHECK(dp_keys[0] > 0 && dp_keys[1] > 0);
    CHECK(traces[0] > 0 && traces[1] > 0);
    CHECK(joins > 0);
    tsr_ctx_destroy(ctx);
    return tsr_test_finish("test_carve_device_logic");
}
