/* JPEG 2000 encoding (tsr_j2k_encode, j2k.h): Part 1 codestreams of one or more tiles and one or
 * more quality layers. Tile by tile, the image's channels become components (DC level shift,
 * G.1), the first three go through the RCT (G.2; lossless) or the ICT (G.3; lossy) when there are
 * three or more, each component through the forward 5/3 or 9/7 DWT (fdwt.c), lossy coefficients
 * through deadzone scalar quantisation (E.1, steps from quantise.c); the code-blocks of every
 * tile are coded in parallel (t1_encode.c); with rates, PSNR targets or layers they are truncated
 * by PCRD-opt (rate.c) over all tiles, one slope threshold per layer; then each tile's packets
 * (t2_encode.c) in its tile-parts (tile_parts.c) and the marker segments (markers_write.c) make
 * the codestream, optionally in JP2 boxes. On the CUDA backend (an explicit choice, or auto
 * for a device image: tsr__j2k_choose) the samples, colour transform, DWT and code-blocks run on
 * the device (encode_cuda.h) by the CPU's own arithmetic, and rate control, packets and markers
 * on the host as for the CPU: the same bytes. The context's progress callback hears of each
 * stage's end ("j2k encode", 1..4 of 4: the samples and transforms (on CUDA: the image on the
 * device), the code-blocks, rate control and the packets, the codestream written) and may stop
 * the encode there (TSR_ERR_INTERRUPTED).
 *
 * Lossy steps: opt->quant_step times the sample range, over each sub-band's synthesis norm, so
 * that every coefficient's quantisation error weighs the same in the image.
 * Reversible: no quantisation; each sub-band's exponent is the components' precision plus
 * the band's gain (0 LL, 1 HL/LH, 2 HH; E.1.1.1), one QCD for every component, and the guard
 * bits are as many as the largest coefficient needs (at least 2; the RCT's chroma differences
 * need one bit more than the precision, which the second guard bit holds). */
#include "core/checked.h"
#include "io/atomic_file.h"
#include "j2k/encode_cuda.h"
#include "core/simd_switch.h"
#include "core/target.h"
#include "core/thread_num.h"
#include "j2k/decode_stages.h"
#include "j2k/encode_stages.h"
#include "j2k/fast_coder.h"
#include "j2k/fxform_hd.h"
#include "j2k/ht_bits.h"
#include "j2k/ht_encode.h"
#include "j2k/t1_encode.h"
#include "tessera/io.h"

#include <math.h>
#include <string.h>
#include <strings.h>

void tsr_j2k_encode_options_init(tsr_j2k_encode_options *opt)
{
    memset(opt, 0, sizeof *opt);
    opt->lossless = 1;
    opt->quant_step = 1.0f / 256;
    opt->levels = -1;
    opt->cblk_width = 64;
    opt->cblk_height = 64;
    opt->order = TSR_J2K_LRCP;
    opt->container = TSR_J2K_CODESTREAM;
}

void tsr_j2k_free(tsr_ctx *ctx, void *data)
{
    if (ctx)
        tsr__free(ctx, data);
}

static int is_pow2(uint32_t v)
{
    return v && !(v & (v - 1));
}

/* One code-block to code: where its coefficients are and what came out. */
typedef struct job {
    const int32_t *src; /* the block's first coefficient in its tile-component (int32, or
                           float with delta > 0) */
    float delta;        /* irreversible: the sub-band's quantisation step; 0: reversible */
    double weight;      /* rate control: image-domain squared error of one coefficient step
                           squared (one unit when reversible) */
    double dist0;       /* rate control: the estimated image-domain squared error of the
                           block with none of its passes kept (tsr__j2k_rate_control) */
    size_t hull_off;    /* rate control: its hull points in its thread's arena */
    uint32_t nhull;
    size_t sets_off; /* HT rate control: its candidates (tsr__j2k_ht_set) in that arena */
    uint32_t nsets;
    size_t stride;
    uint32_t w, h;
    uint8_t orient;
    uint8_t K;     /* coded bit-planes */
    uint32_t comp; /* component */
    uint32_t si;   /* step-size index of its sub-band */
    int thread;    /* whose arena holds its bytes */
    size_t off;    /* where, in that arena */
    uint32_t len;  /* bytes */
    uint16_t passes;
} job;

/* A thread's output bytes and its Tier-1 state. */
typedef struct arena {
    tsr__j2k_bytes bytes;
    tsr__j2k_bytes hulls; /* rate control: tsr__j2k_rd_point arrays */
    tsr__j2k_bytes sets;  /* HT rate control: tsr__j2k_ht_set arrays */
    tsr__j2k_bytes raw;   /* HT rate control to a size: planes as coded, round by round */
    tsr__t1_enc *enc;
    int32_t *coef; /* TSR__T1_MAX_AREA */
    float *mag;    /* HT rate control, irreversible: |c| / delta, TSR__T1_MAX_AREA */
    uint8_t *buf;  /* buf_cap: the most any block's coder needs */
} arena;

/* Keeps the truncation points' hull of a block for rate control (rate.c): rate and dist per
 * point as tsr__j2k_rd_hull reads them. */
static void keep_hull(job *jb, arena *a, const uint32_t *rate, const double *dist, uint32_t np)
{
    tsr__j2k_rd_point hull[TSR__T1_MAX_PASSES];
    jb->nhull = tsr__j2k_rd_hull(rate, dist, np, jb->weight, hull);
    jb->hull_off = a->hulls.len;
    tsr__j2k_bytes_put(&a->hulls, hull, jb->nhull * sizeof *hull);
}

/* Block jb's coefficients into dst (jb->w apart) by deadzone scalar quantisation (E.1):
 * sign(c) floor(|c| / delta), tsr__j2k_quantise1's steps taken unconditionally and the width
 * in a local (dst could alias jb's fields), so that the loop vectorises. Returns the OR of the
 * magnitudes. */
static uint32_t quantise_block(const job *jb, int32_t *dst)
{
    const float inv = 1.0f / jb->delta;
    const uint32_t w = jb->w;
    uint32_t mor = 0;
    for (uint32_t y = 0; y < jb->h; y++) {
        const float *src = (const float *)(const void *)(jb->src + (size_t)y * jb->stride);
        int32_t *d = dst + (size_t)y * w;
        for (uint32_t x = 0; x < w; x++) {
            const float m = fabsf(src[x]) * inv;
            const int ok = m < (float)(1 << 30);
            const int32_t i = (int32_t)(ok ? m : 0.0f);
            const int32_t v = ok ? i : (1 << 30) - 1;
            mor |= (uint32_t)v;
            d[x] = src[x] < 0 ? -v : v;
        }
    }
    return mor;
}

/* Asks for block jb's samples in the cache while another block is coded: its rows lie a
 * tile-component row apart, each in its own pages, which the hardware's prefetchers do not
 * follow (the coder of a block otherwise waits on its rows one after another). */
static void prefetch_block(const job *jb)
{
    for (uint32_t y = 0; y < jb->h; y++) {
        const char *row = (const char *)(jb->src + (size_t)y * jb->stride);
        for (size_t b = 0; b < (size_t)jb->w * sizeof *jb->src; b += 64)
            __builtin_prefetch(row + b);
    }
}

/* The bit-planes of block jb's coefficients (tsr__t1_bitplanes of what load_block loads),
 * read from its tile-component without storing them: the OR of quantise_block's magnitudes,
 * or of the reversible coefficients' own. */
static int block_bitplanes(const job *jb)
{
    uint32_t mor = 0;
    if (jb->delta > 0) {
        const float inv = 1.0f / jb->delta;
        for (uint32_t y = 0; y < jb->h; y++) {
            const float *src = (const float *)(const void *)(jb->src + (size_t)y * jb->stride);
            for (uint32_t x = 0; x < jb->w; x++) {
                const float m = fabsf(src[x]) * inv;
                mor |= m < (float)(1 << 30) ? (uint32_t)(int32_t)m : (1u << 30) - 1;
            }
        }
    } else {
        for (uint32_t y = 0; y < jb->h; y++) {
            const int32_t *src = jb->src + (size_t)y * jb->stride;
            for (uint32_t x = 0; x < jb->w; x++)
                mor |= ((uint32_t)src[x] ^ (uint32_t)(src[x] >> 31)) - (uint32_t)(src[x] >> 31);
        }
    }
    return mor ? 32 - __builtin_clz(mor) : 0;
}

/* quantise_block's coefficients, with each one's magnitude in steps in mag (tsr__j2k_quantise1's
 * q, as the device computes them): HT rate control's load, once per plane it codes. */
static void quantise_block_mag(const job *jb, int32_t *dst, float *mag)
{
    const float inv = 1.0f / jb->delta;
    const uint32_t w = jb->w;
    for (uint32_t y = 0; y < jb->h; y++) {
        const float *src = (const float *)(const void *)(jb->src + (size_t)y * jb->stride);
        int32_t *d = dst + (size_t)y * w;
        float *q = mag + (size_t)y * w;
        for (uint32_t x = 0; x < w; x++)
            d[x] = tsr__j2k_quantise1(src[x], inv, &q[x]);
    }
}

/* Block jb's coefficients into a->coef (and, with track and ht, their magnitudes in steps into
 * a->mag). Returns, with track and not ht, the squared error, in steps, that every pass
 * leaves: |c| / delta against the decoder's reconstruction, the middle of the magnitude's step
 * (E.1.1.2, r = 1/2), or 0 for a zero magnitude; none when reversible. */
static double load_block(const job *jb, arena *a, int track, int ht)
{
    double floor_err = 0;
    if (jb->delta > 0 && !track) {
        quantise_block(jb, a->coef);
    } else if (jb->delta > 0 && ht) {
        quantise_block_mag(jb, a->coef, a->mag);
    } else if (jb->delta > 0) {
        const float inv = 1.0f / jb->delta;
        for (uint32_t y = 0; y < jb->h; y++) {
            const float *src = (const float *)(const void *)(jb->src + (size_t)y * jb->stride);
            int32_t *dst = a->coef + (size_t)y * jb->w;
            for (uint32_t x = 0; x < jb->w; x++) {
                float q;
                dst[x] = tsr__j2k_quantise1(src[x], inv, &q);
                const int32_t m = dst[x] < 0 ? -dst[x] : dst[x];
                const double e = m ? (double)q - m - 0.5 : (double)q;
                floor_err += e * e;
            }
        }
    } else {
        for (uint32_t y = 0; y < jb->h; y++)
            memcpy(a->coef + (size_t)y * jb->w, jb->src + (size_t)y * jb->stride,
                   jb->w * sizeof *a->coef);
    }
    return floor_err;
}

/* Keeps the len bytes in a->buf as block jb's one pass (an HT cleanup or a fast-nonstandard
 * block) in its arena. */
static void keep_ht_block(job *jb, arena *a, uint32_t len, tsr_status *fail)
{
    jb->passes = 1;
    jb->len = len;
    jb->off = a->bytes.len;
    tsr__j2k_bytes_put(&a->bytes, a->buf, len);
    if (a->bytes.st)
        __atomic_store_n(fail, a->bytes.st, __ATOMIC_RELAXED);
}

/* Codes one block: Part 1 passes (t1_encode.c); with ht and not track its HT cleanup pass
 * down to plane 0 (ht_encode.c), one pass of one segment; with ht and track its HT
 * truncation candidates (ht_rd.c), which its hull points index; with fast (never with ht or
 * track) the fast-nonstandard coder (fast_coder.h), one pass of one segment. An HT block
 * without track gets its K from the coder, and a reversible one is coded where it lies in its
 * tile-component. */
static void code_block(job *jb, arena *a, size_t buf_cap, int track, int ht, int fast,
                       tsr_status *fail)
{
    jb->nsets = 0;
    jb->dist0 = 0;
    if (ht && !track) { /* the coder finds K; reversible straight from the tile-component */
        const int32_t *c = jb->src;
        size_t stride = jb->stride;
        jb->K = 0;
        jb->passes = 0;
        jb->len = 0;
        if (jb->delta > 0) {
            if (!quantise_block(jb, a->coef))
                return; /* nothing to code */
            c = a->coef;
            stride = jb->w;
        }
        uint32_t K = 0;
        const long len = tsr__ht_encode_block_in(c, stride, jb->w, jb->h, a->buf, buf_cap, &K);
        jb->K = (uint8_t)K;
        if (len < 0 || (len == 0) != (K == 0)) {
            __atomic_store_n(fail, TSR_ERR_INTERNAL, __ATOMIC_RELAXED);
            return;
        }
        if (len > 0)
            keep_ht_block(jb, a, (uint32_t)len, fail);
        return;
    }
    const size_t n = (size_t)jb->w * jb->h;
    const double floor_err = load_block(jb, a, track, ht);
    const int K = tsr__t1_bitplanes(a->coef, n);
    jb->K = (uint8_t)K;
    jb->passes = 0;
    jb->len = 0;
    jb->nsets = 0;
    jb->dist0 = floor_err * jb->weight;
    if (K == 0)
        return;
    if (ht && track) {
        tsr__j2k_ht_set sets[TSR__J2K_HT_MAX_SETS];
        uint32_t rate[TSR__J2K_HT_MAX_SETS];
        double dist[TSR__J2K_HT_MAX_SETS], err0 = 0;
        jb->off = a->bytes.len;
        const uint32_t ns =
            tsr__j2k_ht_candidates(a->coef, jb->delta > 0 ? a->mag : NULL, jb->w, jb->h,
                                   (uint32_t)K, a->buf, &a->bytes, sets, rate, dist, &err0);
        if (!ns) {
            __atomic_store_n(fail, a->bytes.st ? a->bytes.st : TSR_ERR_INTERNAL, __ATOMIC_RELAXED);
            return;
        }
        jb->dist0 = err0 * jb->weight;
        jb->passes = (uint16_t)ns; /* the last candidate: plane 0, everything */
        jb->len = sets[ns - 1].lcup;
        jb->nsets = ns;
        jb->sets_off = a->sets.len;
        tsr__j2k_bytes_put(&a->sets, sets, ns * sizeof *sets);
        keep_hull(jb, a, rate, dist, ns);
        if (a->sets.st || a->hulls.st)
            __atomic_store_n(fail, a->sets.st ? a->sets.st : a->hulls.st, __ATOMIC_RELAXED);
        return;
    }
    if (ht || fast) {
        const long len = fast ? tsr__fns_encode_block(a->coef, jb->w, jb->h, jb->orient,
                                                      (uint32_t)K, a->buf, buf_cap)
                              : tsr__ht_encode_block(a->coef, jb->w, jb->h, a->buf, buf_cap);
        if (len <= 0) {
            __atomic_store_n(fail, TSR_ERR_INTERNAL, __ATOMIC_RELAXED);
            return;
        }
        keep_ht_block(jb, a, (uint32_t)len, fail);
        return;
    }
    tsr__t1_enc *e = a->enc;
    e->w = (int)jb->w;
    e->h = (int)jb->h;
    e->orient = jb->orient;
    e->style = 0;
    e->K = K;
    e->coef = a->coef;
    e->buf = a->buf;
    e->cap = buf_cap;
    e->track = track;
    e->exact = jb->delta == 0;
    const int np = tsr__t1_encode_block(e);
    if (e->overflow || e->nsegs != 1) {
        __atomic_store_n(fail, TSR_ERR_INTERNAL, __ATOMIC_RELAXED);
        return;
    }
    jb->passes = (uint16_t)np;
    jb->len = e->segs[0].len;
    jb->off = a->bytes.len;
    tsr__j2k_bytes_put(&a->bytes, e->segs[0].data, e->segs[0].len);
    if (track) {
        for (int p = 0; p < np; p++) /* what the passes remove comes on top of their floor */
            jb->dist0 += e->pass_dist[p] * jb->weight;
        keep_hull(jb, a, e->pass_rate, e->pass_dist, (uint32_t)np);
    }
    if (a->bytes.st || a->hulls.st)
        __atomic_store_n(fail, a->bytes.st ? a->bytes.st : a->hulls.st, __ATOMIC_RELAXED);
}

/* HT rate control to a size (tsr__j2k_ht_reveal_planes): a block's candidates so far. */
typedef struct ht_open {
    tsr__j2k_ht_set sets[TSR__J2K_HT_MAX_SETS];
    uint32_t rate[TSR__J2K_HT_MAX_SETS];
    double dist[TSR__J2K_HT_MAX_SETS];
    double prev;     /* the error of its last set (with nothing coded, before the first) */
    size_t len;      /* its planes' bytes */
    uint32_t ns;     /* its sets (from the device: every plane's, revealed a plane at a time) */
    uint32_t planes; /* its planes coded (revealed) */
    int thread[30];  /* coded here: plane i's plen[i] bytes are at off[i] in ar[thread[i]].raw */
    size_t off[30];
    uint32_t plen[30];
} ht_open;

typedef struct reveal_state {
    job *jobs;
    size_t njobs;
    arena *ar;
    ht_open *open;
    int dev; /* the device coded every plane (code_blocks_cuda): only revealed here */
} reveal_state;

/* tsr__j2k_ht_reveal for block j: its next plane coded on thread tid, or revealed; block next's
 * samples asked for in the cache meanwhile. */
static uint32_t reveal_block(void *user, size_t j, size_t next, int tid, const uint32_t **rate,
                             const double **dist)
{
    const reveal_state *r = user;
    job *jb = &r->jobs[j];
    ht_open *o = &r->open[j];
    *rate = o->rate;
    *dist = o->dist;
    const uint32_t p = jb->K - 1u - o->planes++;
    if (r->dev) { /* the sets of the planes down to p */
        uint32_t n = 0;
        while (n < o->ns && o->sets[n].plane >= p)
            n++;
        return n;
    }
    arena *a = &r->ar[tid];
    if (next < r->njobs)
        prefetch_block(&r->jobs[next]);
    load_block(jb, a, 1, 1);
    const float *mag = jb->delta > 0 ? a->mag : NULL;
    if (o->planes == 1) {
        o->prev = tsr__j2k_ht_err0(a->coef, mag, jb->w, jb->h);
        jb->dist0 = o->prev * jb->weight;
    }
    const size_t at = a->raw.len, before = o->len;
    if (!tsr__j2k_ht_candidates_plane(a->coef, mag, jb->w, jb->h, p, a->buf, &a->raw, o->sets,
                                      &o->ns, o->rate, o->dist, &o->prev, &o->len))
        return 0;
    o->thread[o->planes - 1] = tid;
    o->off[o->planes - 1] = at;
    o->plen[o->planes - 1] = (uint32_t)(o->len - before);
    return o->ns;
}

/* Block jb's candidates once the reveal stopped at ns of them, kept in arena a as code_block
 * keeps them: its planes' bytes one after another (coded here: copied from where the rounds
 * left them in ar's raw bytes), its sets and its hull. Returns 0 when a's writes failed. */
static int finish_open(job *jb, arena *a, const arena *ar, const ht_open *o, uint32_t ns, int dev)
{
    if (!dev) {
        jb->off = a->bytes.len;
        for (uint32_t i = 0; i < o->planes; i++)
            tsr__j2k_bytes_put(&a->bytes, ar[o->thread[i]].raw.p + o->off[i], o->plen[i]);
    }
    jb->passes = (uint16_t)ns; /* the last candidate: the lowest plane coded, everything */
    jb->len = o->sets[ns - 1].lcup;
    jb->nsets = ns;
    jb->sets_off = a->sets.len;
    tsr__j2k_bytes_put(&a->sets, o->sets, ns * sizeof *o->sets);
    keep_hull(jb, a, o->rate, o->dist, ns);
    return !a->bytes.st && !a->sets.st && !a->hulls.st;
}

/* HT rate control to a size: the blocks' candidates plane by plane while the search could take
 * them (tsr__j2k_ht_reveal_planes against budget bytes), coded here on threads threads (dev 0:
 * their coefficients' planes first counted), or revealed from what the device coded (dev 1,
 * code_blocks_cuda into open), then kept as code_block keeps a block's candidates. */
static tsr_status code_blocks_revealed(tsr_ctx *ctx, job *jobs, size_t njobs, arena *ar,
                                       int threads, ht_open *open, int dev, double budget)
{
    if (!dev) {
#ifdef _OPENMP
#pragma omp parallel for num_threads(threads) schedule(dynamic, 4) if (threads > 1)
#endif
        for (size_t j = 0; j < njobs; j++) {
            job *jb = &jobs[j];
            if (j + 1 < njobs)
                prefetch_block(&jobs[j + 1]);
            jb->K = (uint8_t)block_bitplanes(jb);
            jb->passes = 0;
            jb->len = 0;
            jb->nsets = 0;
            jb->dist0 = 0;
            open[j].ns = 0;
            open[j].planes = 0;
            open[j].len = 0;
        }
    }
    uint8_t *K = NULL;
    double *weight = NULL;
    uint32_t *nsets = NULL;
    const size_t nalloc = njobs ? njobs : 1;
    tsr_status st;
    if ((st = tsr__alloc(ctx, nalloc, (void **)&K)) ||
        (st = tsr__alloc(ctx, nalloc * sizeof *weight, (void **)&weight)) ||
        (st = tsr__alloc(ctx, nalloc * sizeof *nsets, (void **)&nsets)))
        goto out;
    for (size_t j = 0; j < njobs; j++) {
        K[j] = jobs[j].K;
        weight[j] = jobs[j].weight;
    }
    reveal_state rs = {jobs, njobs, ar, open, dev};
    if ((st = tsr__j2k_ht_reveal_planes(ctx, njobs, K, weight, budget, dev ? 1 : threads,
                                        reveal_block, &rs, nsets))) {
        for (int i = 0; i < (dev ? 1 : threads); i++)
            st = ar[i].raw.st ? ar[i].raw.st : st;
        if (st == TSR_ERR_INTERNAL)
            st = tsr__fail(ctx, st, "j2k encode: a code-block's coded data overflowed");
        goto out;
    }
    int failed = 0;
#ifdef _OPENMP
#pragma omp parallel for num_threads(threads) schedule(dynamic, 4) if (threads > 1 && !dev)
#endif
    for (size_t j = 0; j < njobs; j++) {
        const int tid = tsr__thread_num();
        if (!jobs[j].K)
            continue;
        if (!dev)
            jobs[j].thread = tid;
        if (!finish_open(&jobs[j], &ar[jobs[j].thread], ar, &open[j], nsets[j], dev))
            __atomic_store_n(&failed, 1, __ATOMIC_RELAXED);
    }
    for (int i = 0; failed && i < (dev ? 1 : threads); i++) {
        const arena *a = &ar[i];
        st = a->bytes.st ? a->bytes.st : a->sets.st ? a->sets.st : a->hulls.st ? a->hulls.st : st;
    }
    for (int i = 0; i < (dev ? 1 : threads); i++) { /* the rounds' bytes, copied */
        tsr__j2k_bytes_free(&ar[i].raw);
        tsr__j2k_bytes_init(&ar[i].raw, ctx);
    }
out:
    tsr__free(ctx, K);
    tsr__free(ctx, weight);
    tsr__free(ctx, nsets);
    return st;
}

/* The code-blocks on the device (encode_cuda.h), tile after tile: the tile's samples and
 * transforms there, then its blocks (HT: cleanup passes or, with track, truncation candidates;
 * Part 1: their passes); each job gets what code_block gives it, its bytes, candidates and
 * hull in arena a (thread 0's). */
static tsr_status code_blocks_cuda(tsr_ctx *ctx, tsr__j2k_enc_tiles *E, const size_t *first,
                                   job *jobs, uint32_t prec, int mct, int rev, int ht, int fast,
                                   int track, arena *a, ht_open *open)
{
    const uint32_t ntiles = E->cs->ntiles;
    size_t most = 1;
    for (uint32_t k = 0; k < ntiles; k++)
        most = first[k + 1] - first[k] > most ? first[k + 1] - first[k] : most;
    tsr__j2k_enc_cuda_block *blocks;
    tsr_status st = tsr__alloc(ctx, most * sizeof *blocks, (void **)&blocks);
    for (uint32_t k = 0; k < ntiles && !st; k++) {
        tsr__j2k_tile *t = &E->tiles[k];
        const uint32_t n = (uint32_t)(first[k + 1] - first[k]);
        job *jb = jobs + first[k];
        if ((st = tsr__j2k_enc_cuda_transform(ctx, t, prec, mct, rev)))
            break;
        for (uint32_t j = 0; j < n; j++) {
            tsr__j2k_enc_cuda_block *b = &blocks[j];
            b->at = (size_t)(jb[j].src - t->comps[jb[j].comp].data);
            b->comp = jb[j].comp;
            b->w = jb[j].w;
            b->h = jb[j].h;
            b->orient = jb[j].orient;
            b->delta = jb[j].delta;
        }
        if ((st = tsr__j2k_enc_cuda_blocks(ctx, t, blocks, n, ht, fast, track, &a->bytes)))
            break;
        for (uint32_t j = 0; j < n; j++) {
            const tsr__j2k_enc_cuda_block *b = &blocks[j];
            job *o = &jb[j];
            o->thread = 0;
            o->K = b->K;
            o->off = b->off;
            o->dist0 = ht ? 0 : b->err0 * o->weight; /* code_block's floor (Part 1) */
            o->nsets = 0;
            o->passes = 0;
            o->len = b->len;
            if (!b->K)
                continue;
            if ((ht && !track) || fast) {
                o->passes = 1;
            } else if (ht && open) { /* every plane's candidates, revealed later */
                o->dist0 = b->err0 * o->weight;
                ht_open *h = &open[first[k] + j];
                h->ns = b->np;
                h->planes = 0;
                memcpy(h->sets, b->sets, b->np * sizeof *b->sets);
                memcpy(h->rate, b->rate, b->np * sizeof *b->rate);
                memcpy(h->dist, b->dist, b->np * sizeof *b->dist);
            } else if (ht) { /* code_block's HT rate-control path: the last candidate is all */
                o->dist0 = b->err0 * o->weight;
                o->passes = (uint16_t)b->np;
                o->len = b->sets[b->np - 1].lcup;
                o->nsets = b->np;
                o->sets_off = a->sets.len;
                tsr__j2k_bytes_put(&a->sets, b->sets, b->np * sizeof *b->sets);
                keep_hull(o, a, b->rate, b->dist, b->np);
            } else {
                o->passes = (uint16_t)(3 * b->K - 2);
                if (track) { /* what the passes remove comes on top of their floor */
                    for (uint32_t p = 0; p < b->np; p++)
                        o->dist0 += b->dist[p] * o->weight;
                    keep_hull(o, a, b->rate, b->dist, b->np);
                }
            }
        }
        if (!st && (a->sets.st || a->hulls.st))
            st = a->sets.st ? a->sets.st : a->hulls.st;
    }
    tsr__free(ctx, blocks);
    return st;
}

/* The first of v[0 .. n-1] that is not above 0, below hi and above the one before; n when
 * every one is. */
static uint32_t first_out_of_order(const double *v, uint32_t n, double hi)
{
    for (uint32_t l = 0; l < n; l++)
        if (!(v[l] > 0) || !(v[l] < hi) || (l && !(v[l] > v[l - 1])))
            return l;
    return n;
}

/* The tiles' size on the reference grid (SIZ XTsiz, YTsiz): o's, or the span from the tile
 * origin to the image's end where o gives none or a larger one. o's offsets are checked
 * (x0 + width fits 32 bits, tile_x0 <= x0). */
static void tile_size(const tsr_image *img, const tsr_j2k_encode_options *o, uint32_t *tw,
                      uint32_t *th)
{
    const uint32_t sw = o->x0 + (uint32_t)img->width - o->tile_x0,
                   sh = o->y0 + (uint32_t)img->height - o->tile_y0;
    *tw = o->tile_width && o->tile_width < sw ? o->tile_width : sw;
    *th = o->tile_height && o->tile_height < sh ? o->tile_height : sh;
}

/* The checks of the image and the options for the chosen backend (a device image needs
 * CUDA); fills the derived values (layer_bpp: one target per layer, TSR_J2K_MAX_LAYERS
 * entries). */
static tsr_status check_input(tsr_ctx *ctx, const tsr_image *img, const tsr_j2k_encode_options *o,
                              tsr_backend backend, uint32_t *levels, uint32_t *xcb, uint32_t *ycb,
                              uint32_t *nlayers, double *layer_bpp)
{
    tsr_status st = tsr_image_check(ctx, img);
    if (st)
        return st;
    if (img->memory != TSR_MEMORY_HOST && backend != TSR_BACKEND_CUDA)
        return tsr__fail(ctx, TSR_ERR_UNSUPPORTED,
                         "j2k encode on %s: the image is in device memory; encode it with the "
                         "cuda backend (or auto)",
                         tsr_backend_name(backend));
    if (img->depth != TSR_U8 && img->depth != TSR_U16)
        return tsr__fail(ctx, TSR_ERR_UNSUPPORTED,
                         "j2k encode: 8- or 16-bit samples only (this image has float samples)");
    if (img->channels < 1 || img->channels > 4)
        return tsr__fail(ctx, TSR_ERR_UNSUPPORTED, "j2k encode: 1 to 4 channels, not %d",
                         img->channels);
    if (o->num_rates > TSR_J2K_MAX_LAYERS || o->num_psnrs > TSR_J2K_MAX_LAYERS ||
        o->layers > TSR_J2K_MAX_LAYERS)
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT,
                         "j2k encode: %u rates, %u PSNR targets and %u layers; at most %d "
                         "quality layers",
                         o->num_rates, o->num_psnrs, o->layers, TSR_J2K_MAX_LAYERS);
    if (o->num_rates && o->num_psnrs)
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT,
                         "j2k encode: rates and PSNR targets exclude each other; give one kind");
    uint32_t l;
    if ((l = first_out_of_order(o->psnrs, o->num_psnrs, 1000)) < o->num_psnrs)
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT,
                         "j2k encode: PSNR target %g dB (layer %u); targets are above 0 and "
                         "increase from layer to layer",
                         o->psnrs[l], l + 1);
    if ((l = first_out_of_order(o->rates, o->num_rates, 1e6)) < o->num_rates)
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT,
                         "j2k encode: rate %g bits per pixel (layer %u); rates are above 0 "
                         "and increase from layer to layer",
                         o->rates[l], l + 1);
    /* the layers' targets: bits per pixel, or HUGE_VAL for a complete layer (every pass); 0
     * for a layer sized as a fraction of the complete file (no rates); -1 for a PSNR target
     * (opt->psnrs[l]) */
    if (o->num_psnrs) {
        const uint32_t given = o->num_psnrs + (o->lossless ? 1u : 0u);
        if (o->layers && o->layers != given)
            return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT,
                             "j2k encode: %u layers for %u PSNR targets%s; give one target per "
                             "layer",
                             o->layers, o->num_psnrs, o->lossless ? " and a lossless layer" : "");
        *nlayers = given;
        for (uint32_t l = 0; l < *nlayers; l++)
            layer_bpp[l] = l < o->num_psnrs ? -1 : HUGE_VAL;
    } else {
        const uint32_t given = o->num_rates + (o->lossless && o->num_rates ? 1u : 0u);
        if (o->num_rates > 1 || (o->lossless && o->num_rates)) {
            if (o->layers && o->layers != given)
                return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT,
                                 "j2k encode: %u layers for %u rates%s; give one rate per layer "
                                 "(or one rate, which layers are spaced up to)",
                                 o->layers, o->num_rates,
                                 o->lossless ? " and a lossless layer" : "");
            *nlayers = given;
        } else {
            *nlayers = o->layers ? o->layers : 1;
        }
        for (uint32_t l = 0; l < *nlayers; l++) {
            const uint32_t below = *nlayers - 1 - l; /* layers above this one */
            if (o->num_rates == 1 && !o->lossless)
                layer_bpp[l] = ldexp(o->rates[0], -(int)below);
            else if (o->num_rates)
                layer_bpp[l] = l < o->num_rates ? o->rates[l] : HUGE_VAL;
            else
                layer_bpp[l] = below ? 0 : HUGE_VAL;
        }
    }
    if (!o->lossless && !(o->quant_step > 0 && o->quant_step <= 1))
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT,
                         "j2k encode: quantisation step %g; it is relative to the sample range: "
                         "0 < step <= 1",
                         (double)o->quant_step);
    if (o->container != TSR_J2K_CODESTREAM && o->container != TSR_J2K_JP2 &&
        o->container != TSR_J2K_JPH)
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT, "j2k encode: unknown container %d",
                         (int)o->container);
    if (o->container == TSR_J2K_JPH && !o->ht)
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT,
                         "j2k encode: a JPH file holds an HT codestream: ask for HT coding");
    if (o->ht && *nlayers > 1)
        return tsr__fail(ctx, TSR_ERR_UNSUPPORTED,
                         "j2k encode: HT coding makes one quality layer (one HT set per "
                         "code-block; later sets in later layers are what OpenJPEG and OpenJPH "
                         "do not decode): give one rate or one PSNR target, without --lossless "
                         "and --layers");
    if (o->mode != TSR_J2K_MODE_STANDARD && o->mode != TSR_J2K_MODE_FAST_NONSTANDARD)
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT, "j2k encode: unknown mode %d", o->mode);
    if (o->mode == TSR_J2K_MODE_FAST_NONSTANDARD &&
        (o->ht || *nlayers > 1 || layer_bpp[0] != HUGE_VAL))
        return tsr__fail(ctx, TSR_ERR_UNSUPPORTED,
                         "j2k encode: the fast-nonstandard mode codes each code-block whole (no "
                         "truncation points): lossless or at a quantisation step, one layer, "
                         "without HT, rates or PSNR targets");
    if ((unsigned)o->order > TSR_J2K_CPRL)
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT, "j2k encode: unknown progression order %d",
                         (int)o->order);
    if (!is_pow2(o->cblk_width) || !is_pow2(o->cblk_height) || o->cblk_width < 4 ||
        o->cblk_height < 4 || o->cblk_width > 1024 || o->cblk_height > 1024 ||
        (uint64_t)o->cblk_width * o->cblk_height > 4096)
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT,
                         "j2k encode: code-blocks of %ux%u; sides are powers of two from 4 to "
                         "1024 with at most 4096 samples (T.800 A.6.1)",
                         o->cblk_width, o->cblk_height);
    if (o->levels < -1 || o->levels > 32)
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT,
                         "j2k encode: %d decomposition levels; 0 to 32 (T.800 A.6.1)", o->levels);
    if ((o->tile_width == 0) != (o->tile_height == 0))
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT,
                         "j2k encode: tiles of %ux%u; give both sides (or 0x0: one tile)",
                         o->tile_width, o->tile_height);
    if ((uint64_t)o->x0 + (uint32_t)img->width > UINT32_MAX ||
        (uint64_t)o->y0 + (uint32_t)img->height > UINT32_MAX)
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT,
                         "j2k encode: a %dx%d image at (%u,%u) ends beyond the reference grid's "
                         "2^32 - 1 (T.800 B.2)",
                         img->width, img->height, o->x0, o->y0);
    if (o->tile_x0 > o->x0 || o->tile_y0 > o->y0)
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT,
                         "j2k encode: the tile origin (%u,%u) is right of or below the image's "
                         "(%u,%u); it is at or before it on both axes (T.800 B.3)",
                         o->tile_x0, o->tile_y0, o->x0, o->y0);
    uint32_t tw, th;
    tile_size(img, o, &tw, &th);
    if ((uint64_t)o->tile_x0 + tw <= o->x0 || (uint64_t)o->tile_y0 + th <= o->y0)
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT,
                         "j2k encode: tiles of %ux%u from (%u,%u) leave the first tile without "
                         "image samples at (%u,%u); the first tile reaches into the image "
                         "(T.800 B.3)",
                         tw, th, o->tile_x0, o->tile_y0, o->x0, o->y0);
    if ((uint64_t)tsr__ceildiv(o->x0 + (uint32_t)img->width - o->tile_x0, tw) *
            tsr__ceildiv(o->y0 + (uint32_t)img->height - o->tile_y0, th) >
        65535)
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT,
                         "j2k encode: tiles of %ux%u make more than 65535 tiles of this %dx%d "
                         "image (T.800 A.4.2); use larger tiles",
                         tw, th, img->width, img->height);
    if (o->num_precincts > TSR_J2K_MAX_PRECINCT_SIZES)
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT,
                         "j2k encode: %u precinct sizes; at most one per resolution (%d)",
                         o->num_precincts, TSR_J2K_MAX_PRECINCT_SIZES);
    for (uint32_t i = 0; i < o->num_precincts; i++)
        if (!is_pow2(o->precinct_width[i]) || !is_pow2(o->precinct_height[i]) ||
            o->precinct_width[i] > 32768 || o->precinct_height[i] > 32768)
            return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT,
                             "j2k encode: precincts of %ux%u; sides are powers of two up to "
                             "32768 (T.800 A.6.1)",
                             o->precinct_width[i], o->precinct_height[i]);
    if ((unsigned)o->tile_parts > TSR_J2K_TP_COMPONENT)
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT, "j2k encode: unknown tile-part split %d",
                         (int)o->tile_parts);
    if (o->levels >= 0) {
        *levels = (uint32_t)o->levels;
    } else { /* the sides of a whole tile, or of the image where it is smaller */
        const uint32_t sw = tw < (uint32_t)img->width ? tw : (uint32_t)img->width,
                       sh = th < (uint32_t)img->height ? th : (uint32_t)img->height;
        uint32_t fit = tsr__floorlog2(sw < sh ? sw : sh);
        *levels = fit < 5 ? fit : 5;
    }
    /* precincts of 1 sample across or down hold no sub-band samples (B.6: a resolution above
     * the lowest halves them): resolutions but the lowest need sides of 2 at least */
    for (uint32_t i = 0; i < o->num_precincts && i < *levels; i++)
        if (o->precinct_width[i] < 2 || o->precinct_height[i] < 2)
            return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT,
                             "j2k encode: precincts of %ux%u for resolution %u; only the lowest "
                             "resolution may have sides of 1 (T.800 A.6.1)",
                             o->precinct_width[i], o->precinct_height[i], *levels - i);
    if (o->num_precincts && o->num_precincts <= *levels &&
        (o->precinct_width[o->num_precincts - 1] < 2 ||
         o->precinct_height[o->num_precincts - 1] < 2))
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT,
                         "j2k encode: precincts of %ux%u repeated for the lower resolutions; "
                         "only the lowest may have sides of 1 (T.800 A.6.1)",
                         o->precinct_width[o->num_precincts - 1],
                         o->precinct_height[o->num_precincts - 1]);
    *xcb = tsr__floorlog2(o->cblk_width);
    *ycb = tsr__floorlog2(o->cblk_height);
    return TSR_OK;
}

/* The image's row y of the reference grid from tile t's first column: the image's top-left
 * sample at (ox, oy). */
static const uint8_t *tile_row(const tsr_image *img, uint32_t ox, uint32_t oy,
                               const tsr__j2k_tile *t, uint32_t y)
{
    return (const uint8_t *)img->data + (size_t)(y - oy) * img->stride +
           (size_t)(t->x0 - ox) * (uint32_t)img->channels * (img->depth == TSR_U8 ? 1 : 2);
}

/* What a tile's row loaders (tsr__fdwt_load_fn) read: the image, its top-left sample at
 * (ox, oy) on the reference grid, the tile, the samples' precision, the channel
 * (load_channel_rows) and whether the transforms are reversible. */
typedef struct row_source {
    const tsr_image *img;
    uint32_t ox, oy, prec, ch;
    const tsr__j2k_tile *t;
    int rev;
} row_source;

/* tsr__fdwt_load_fn: the tile's rows of channel ch with the DC level shift (G.1), as floats
 * when irreversible. */
static void load_channel_rows(void *user, uint32_t y, uint32_t n, void *const *rows)
{
    const row_source *s = user;
    const uint32_t w = s->t->x1 - s->t->x0, nc = (uint32_t)s->img->channels, ch = s->ch;
    for (uint32_t i = 0; i < n; i++) {
        const uint8_t *row = tile_row(s->img, s->ox, s->oy, s->t, s->t->y0 + y + i);
        int32_t *d = (int32_t *)rows[0] + (size_t)i * w;
        if (s->img->depth == TSR_U8)
            for (uint32_t x = 0; x < w; x++)
                d[x] = tsr__j2k_level_shift1(row[(size_t)x * nc + ch], s->prec);
        else
            for (uint32_t x = 0; x < w; x++)
                d[x] = tsr__j2k_level_shift1(
                    ((const uint16_t *)(const void *)row)[(size_t)x * nc + ch], s->prec);
        if (!s->rev)
            for (uint32_t x = 0; x < w; x++) {
                const float f = (float)d[x];
                memcpy(&d[x], &f, sizeof f);
            }
    }
}

/* One row of load_mct_rows: w pixels of nc interleaved 8-bit (wide 0) or 16-bit samples from
 * src into d0-d2. Inlined per combination of rev and wide, so that each loop has no tests. */
static inline __attribute__((always_inline)) void mct_row(const void *src, uint32_t w, uint32_t nc,
                                                          uint32_t prec, int rev, int wide,
                                                          int32_t *d0, int32_t *d1, int32_t *d2)
{
    const uint8_t *p8 = src;
    const uint16_t *p16 = src;
    for (uint32_t x = 0; x < w; x++) {
        const size_t at = (size_t)x * nc;
        const int32_t r = tsr__j2k_level_shift1(wide ? p16[at] : p8[at], prec),
                      g = tsr__j2k_level_shift1(wide ? p16[at + 1] : p8[at + 1], prec),
                      b = tsr__j2k_level_shift1(wide ? p16[at + 2] : p8[at + 2], prec);
        if (rev) {
            int32_t yuv[3];
            tsr__rct_forward1(r, g, b, yuv);
            d0[x] = yuv[0];
            d1[x] = yuv[1];
            d2[x] = yuv[2];
        } else {
            float yuv[3];
            tsr__ict_forward1((float)r, (float)g, (float)b, yuv);
            memcpy(&d0[x], &yuv[0], sizeof(float));
            memcpy(&d1[x], &yuv[1], sizeof(float));
            memcpy(&d2[x], &yuv[2], sizeof(float));
        }
    }
}

/* load_mct_rows' work, inlined into a baseline and an AVX2 build of it (the same values: no
 * FMA, the project's -ffp-contract=off). */
static inline __attribute__((always_inline)) void mct_rows(void *user, uint32_t y, uint32_t n,
                                                           void *const *rows)
{
    const row_source *s = user;
    const uint32_t w = s->t->x1 - s->t->x0, nc = (uint32_t)s->img->channels, prec = s->prec;
    const int wide = s->img->depth != TSR_U8, rev = s->rev;
    for (uint32_t i = 0; i < n; i++) {
        const void *src = tile_row(s->img, s->ox, s->oy, s->t, s->t->y0 + y + i);
        const size_t at = (size_t)i * w;
        int32_t *d0 = (int32_t *)rows[0] + at, *d1 = (int32_t *)rows[1] + at,
                *d2 = (int32_t *)rows[2] + at;
        if (rev && !wide)
            mct_row(src, w, nc, prec, 1, 0, d0, d1, d2);
        else if (rev)
            mct_row(src, w, nc, prec, 1, 1, d0, d1, d2);
        else if (!wide)
            mct_row(src, w, nc, prec, 0, 0, d0, d1, d2);
        else
            mct_row(src, w, nc, prec, 0, 1, d0, d1, d2);
    }
}

static void mct_rows_base(void *user, uint32_t y, uint32_t n, void *const *rows)
{
    mct_rows(user, y, n, rows);
}

#if TSR__X86_TARGETS
TSR__TARGET_BEGIN("avx2")
static void mct_rows_avx2(void *user, uint32_t y, uint32_t n, void *const *rows)
{
    mct_rows(user, y, n, rows);
}
TSR__TARGET_END
#endif

/* tsr__fdwt_load_fn: the tile's rows of channels 0-2 into three tile-components' rows through
 * the DC level shift and the colour transform: reversible the RCT (G.2) in int32, else the
 * samples as floats through the ICT (G.3): the values of load_channel_rows followed by
 * tsr__mct_rct_forward / tsr__mct_ict_forward; AVX2's build where the processor has it. */
static void load_mct_rows(void *user, uint32_t y, uint32_t n, void *const *rows)
{
#if TSR__X86_TARGETS
    static tsr__simd_switch sw = TSR__SIMD_SWITCH(tsr__ht_cpu_level, 1);
    if (tsr__simd_on(&sw)) {
        mct_rows_avx2(user, y, n, rows);
        return;
    }
#endif
    mct_rows_base(user, y, n, rows);
}

/* Room for tile t's samples in its tile-components (tc->data, rows their width apart), mapped
 * at once (tsr__j2k_prefault, by `threads`) rather than a page fault at a time; threads 0: not
 * mapped (planes that are never written). */
static tsr_status alloc_tile(tsr_ctx *ctx, tsr__j2k_tile *t, int threads)
{
    const size_t n = (size_t)(t->x1 - t->x0) * (t->y1 - t->y0);
    for (uint32_t c = 0; c < t->ncomps; c++) {
        tsr_status st = tsr__alloc(ctx, n * sizeof(int32_t), (void **)&t->comps[c].data);
        if (st)
            return st;
        t->comps[c].stride = t->x1 - t->x0;
        if (threads > 0)
            tsr__j2k_prefault(t->comps[c].data, n * sizeof(int32_t), threads);
    }
    return TSR_OK;
}

/* Tile t's samples (the image at (ox, oy)) into its tile-components (alloc_tile), through the
 * colour transform (mct: channels 0-2 together) and the forward DWT, each group's finest level
 * fused with the load (tsr__fdwt_fused): reversible (rev) in int32, irreversible in float.
 * tmp: threads x line words, line as tsr__fdwt_fused asks for the tile's width (and
 * TSR__FDWT_STRIP times its longest side: fdwt.c's fastest). Allocates nothing. */
static void transform_tile(const tsr_image *img, uint32_t ox, uint32_t oy, tsr__j2k_tile *t,
                           uint32_t prec, int mct, int rev, int32_t *tmp, size_t line, int threads)
{
    row_source s = {img, ox, oy, prec, 0, t, rev};
    if (mct) {
        tsr__j2k_tilecomp *const tcs[3] = {&t->comps[0], &t->comps[1], &t->comps[2]};
        tsr__fdwt_fused(tcs, 3, rev, load_mct_rows, &s, tmp, line, threads);
    }
    for (uint32_t c = mct ? 3 : 0; c < t->ncomps; c++) {
        tsr__j2k_tilecomp *const tc = &t->comps[c];
        s.ch = c;
        tsr__fdwt_fused(&tc, 1, rev, load_channel_rows, &s, tmp, line, threads);
    }
}

/* Tile t's code-blocks as jobs[0 .. t->ncblks - 1], in the tile's numbering: where each one's
 * coefficients lie in its tile-component after transform_tile, and (track) its rate-control
 * weight. */
static void list_jobs(const tsr__j2k_tile *t, int rev, int mct, int track,
                      const tsr__dwt_norms *norms, job *jobs)
{
    for (uint32_t c = 0; c < t->ncomps; c++) {
        const tsr__j2k_tilecomp *tc = &t->comps[c];
        for (uint32_t r = 0; r < tc->numres; r++) {
            const tsr__j2k_res *res = &tc->res[r];
            for (uint32_t b = 0; b < res->nbands; b++) {
                const tsr__j2k_band *band = &res->bands[b];
                size_t bx = 0, by = 0; /* the band's origin in the deinterleaved layout */
                if (r > 0) {
                    const tsr__j2k_res *low = &tc->res[r - 1];
                    if (band->orient & 1)
                        bx = low->x1 - low->x0;
                    if (band->orient & 2)
                        by = low->y1 - low->y0;
                }
                for (uint32_t k = 0; k < band->ncblks; k++) {
                    const tsr__j2k_cblk *cb = &band->cblks[k];
                    job *jb = &jobs[band->cblk_base + k];
                    jb->src =
                        tc->data + (by + cb->y0 - band->y0) * tc->stride + bx + cb->x0 - band->x0;
                    jb->stride = tc->stride;
                    jb->w = cb->x1 - cb->x0;
                    jb->h = cb->y1 - cb->y0;
                    jb->orient = band->orient;
                    jb->delta = rev ? 0.0f : band->delta;
                    if (track) { /* the inverse colour transform spreads a component's error
                                    over R, G, B by its column's energy (G.2, G.3) */
                        static const double ict[3] = {3.0, 0.34413 * 0.34413 + 1.772 * 1.772,
                                                      1.402 * 1.402 + 0.71414 * 0.71414};
                        static const double rct[3] = {3.0, 11.0 / 16, 11.0 / 16};
                        const double n = tsr__dwt_norm(norms, band->orient,
                                                       r == 0 ? tc->numres - 1 : tc->numres - r);
                        const double dn = (rev ? 1.0 : (double)band->delta) * n;
                        jb->weight = dn * dn * (mct && c < 3 ? (rev ? rct : ict)[c] : 1.0);
                    }
                    jb->comp = c;
                    jb->si = r == 0 ? 0 : 3 * (r - 1) + band->orient;
                }
            }
        }
    }
}

/* Rate control (tsr__j2k_rate_control) of the coded jobs over E's tiles, with the main header
 * head written and the complete file's tiles taking `complete` bytes: each layer's byte
 * budget or PSNR target from layer_bpp (check_input) and opt, cuts filled, E left holding
 * every layer's packets, opt->result filled when asked. */
static tsr_status rate_control(tsr_ctx *ctx, tsr__j2k_enc_tiles *E,
                               const tsr_j2k_encode_options *opt, const tsr__j2k_bytes *head,
                               const job *jobs, const arena *ar, const tsr__j2k_cblk_code *codes,
                               size_t njobs, const double *layer_bpp, size_t complete, int rev,
                               uint32_t prec, tsr__j2k_cut *cuts)
{
    const tsr__j2k_cs *cs = E->cs;
    const uint32_t nlayers = E->tcp->numlayers, nc = cs->ncomps;
    const double w = cs->x1 - cs->x0, h = cs->y1 - cs->y0; /* the image, not the grid */
    tsr__j2k_bytes boxes;
    tsr__j2k_bytes_init(&boxes, ctx);
    if (opt->container != TSR_J2K_CODESTREAM)
        tsr__jp2_write_boxes(cs, nc == 2 || nc == 4, opt->container == TSR_J2K_JPH, 0, &boxes);
    const double fixed = (double)(head->len + boxes.len + 2), whole = fixed + (double)complete;
    tsr__j2k_bytes_free(&boxes);
    /* Byte budgets at least 0 (a negative one marks a PSNR target). PSNR targets as
     * image-domain squared error over all samples, less the decoder's rounding to integers
     * (1/12 per sample in expectation), which the estimate adds back */
    const double maxv = ldexp(1.0, (int)prec) - 1, samples = w * h * nc;
    double budget[TSR_J2K_MAX_LAYERS], target[TSR_J2K_MAX_LAYERS], dist[TSR_J2K_MAX_LAYERS];
    size_t bytes[TSR_J2K_MAX_LAYERS];
    for (uint32_t l = 0; l < nlayers; l++) {
        budget[l] = layer_bpp[l] == HUGE_VAL ? HUGE_VAL
                    : layer_bpp[l] < 0       ? -1
                    : layer_bpp[l] > 0       ? fmax(0, layer_bpp[l] * w * h / 8.0 - fixed)
                                       : fmax(0, ldexp(whole, -(int)(nlayers - 1 - l)) - fixed);
        const double mse = layer_bpp[l] < 0 ? maxv * maxv / pow(10.0, opt->psnrs[l] / 10) : 0;
        target[l] = mse > 1.0 / 12 ? (mse - 1.0 / 12) * samples : 0;
    }
    const tsr__j2k_rd_point **hulls = NULL;
    uint32_t *nhull = NULL;
    double *dist0 = NULL;
    tsr_status st;
    if (!(st = tsr__alloc(ctx, (njobs ? njobs : 1) * sizeof *hulls, (void **)&hulls)) &&
        !(st = tsr__alloc(ctx, (njobs ? njobs : 1) * sizeof *nhull, (void **)&nhull)) &&
        !(st = tsr__alloc(ctx, (njobs ? njobs : 1) * sizeof *dist0, (void **)&dist0))) {
        for (size_t j = 0; j < njobs; j++) {
            /* a block without passes has no hull (its hull_off is not set) */
            hulls[j] = jobs[j].passes
                           ? (const tsr__j2k_rd_point *)(const void *)(ar[jobs[j].thread].hulls.p +
                                                                       jobs[j].hull_off)
                           : NULL;
            nhull[j] = jobs[j].passes ? jobs[j].nhull : 0;
            dist0[j] = jobs[j].dist0;
        }
        st = tsr__j2k_rate_control(ctx, E, hulls, nhull, dist0, njobs, codes, budget, target, cuts,
                                   dist, bytes);
    }
    tsr__free(ctx, hulls);
    tsr__free(ctx, nhull);
    tsr__free(ctx, dist0);
    if (!st && opt->result) {
        tsr_j2k_encode_result *res = opt->result;
        res->layers = nlayers;
        for (uint32_t l = 0; l < nlayers; l++) {
            res->psnr[l] = rev && budget[l] == HUGE_VAL
                               ? INFINITY
                               : 10 * log10(maxv * maxv / (dist[l] / samples + 1.0 / 12));
            if (!res->psnr_short && budget[l] < 0 && dist[l] > target[l])
                res->psnr_short = l + 1;
            if (!res->rate_short && layer_bpp[l] > 0 && layer_bpp[l] != HUGE_VAL &&
                (double)bytes[l] > budget[l])
                res->rate_short = l + 1;
        }
    }
    return st;
}

tsr_status tsr_j2k_encode(tsr_ctx *ctx, const tsr_image *img, const tsr_j2k_encode_options *opt,
                          uint8_t **data, size_t *len)
{
    tsr_status st = tsr__enter(ctx);
    if (st)
        return st;
    if (!img || !data || !len)
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT, "j2k encode: NULL argument");
    tsr_backend backend;
    if ((st = tsr__j2k_choose(ctx, "j2k encode", 1, img->memory == TSR_MEMORY_CUDA, &backend)))
        return st;
    *data = NULL;
    *len = 0;
    tsr_j2k_encode_options defaults;
    if (!opt) {
        tsr_j2k_encode_options_init(&defaults);
        opt = &defaults;
    }
    if (opt->result)
        memset(opt->result, 0, sizeof *opt->result);
    uint32_t levels = 0, xcb = 0, ycb = 0, nlayers = 1;
    double layer_bpp[TSR_J2K_MAX_LAYERS];
    if ((st = check_input(ctx, img, opt, backend, &levels, &xcb, &ycb, &nlayers, layer_bpp)))
        return st;
    /* truncation points and their hulls are needed where a layer is not every pass */
    const int track = nlayers > 1 || layer_bpp[0] != HUGE_VAL;
    const uint32_t nc = (uint32_t)img->channels, w = (uint32_t)img->width,
                   h = (uint32_t)img->height;
    const uint32_t prec = img->depth == TSR_U8 ? 8 : 16;
    const int mct = nc >= 3, rev = opt->lossless != 0;
    const int fast = opt->mode == TSR_J2K_MODE_FAST_NONSTANDARD;
    tsr__dwt_norms norms;
    if ((!rev || track) && (st = tsr__dwt_norms_init(ctx, rev, &norms)))
        return st;
    const double qabs = (double)opt->quant_step * (double)(1u << prec);
    int threads = opt->threads > 0 ? opt->threads : ctx->threads;
    if (ctx->backend == TSR_BACKEND_REFERENCE || threads < 1)
        threads = 1;

    /* The codestream model: the image at (x0, y0), tiles from (tile_x0, tile_y0), nlayers
     * layers, the image's components unsubsampled. */
    tsr__j2k_comp comps[4];
    tsr__j2k_tccp tccps[4];
    tsr__j2k_cs cs;
    tsr__j2k_tcp tcp;
    memset(&cs, 0, sizeof cs);
    memset(&tcp, 0, sizeof tcp);
    memset(comps, 0, sizeof comps);
    memset(tccps, 0, sizeof tccps);
    cs.x0 = opt->x0;
    cs.y0 = opt->y0;
    cs.x1 = opt->x0 + w;
    cs.y1 = opt->y0 + h;
    cs.tx0 = opt->tile_x0;
    cs.ty0 = opt->tile_y0;
    tile_size(img, opt, &cs.tw, &cs.th);
    cs.ntx = tsr__ceildiv(cs.x1 - cs.tx0, cs.tw);
    cs.nty = tsr__ceildiv(cs.y1 - cs.ty0, cs.th);
    cs.ntiles = cs.ntx * cs.nty;
    cs.ncomps = nc;
    cs.comps = comps;
    for (uint32_t c = 0; c < nc; c++) {
        comps[c].dx = comps[c].dy = 1;
        comps[c].prec = (uint8_t)prec;
        tsr__j2k_tccp *tc = &tccps[c];
        tc->numres = (uint8_t)(levels + 1);
        tc->xcb = (uint8_t)xcb;
        tc->ycb = (uint8_t)ycb;
        tc->qmfbid = (uint8_t)rev;
        tc->qntsty = rev ? 0 : 2;
        tc->numgbits = 2;
        tc->nsteps = (uint8_t)(3 * levels + 1);
        tc->csty = opt->num_precincts ? 1 : 0;   /* Scod bit 0: precinct sizes in COD */
        for (uint32_t r = 0; r <= levels; r++) { /* the sizes from the highest resolution
                                                    down, the last repeated */
            const uint32_t i =
                levels - r < opt->num_precincts ? levels - r : opt->num_precincts - 1;
            tc->prcw[r] =
                (uint8_t)(opt->num_precincts ? tsr__floorlog2(opt->precinct_width[i]) : 15);
            tc->prch[r] =
                (uint8_t)(opt->num_precincts ? tsr__floorlog2(opt->precinct_height[i]) : 15);
        }
        for (uint32_t i = 0; i < tc->nsteps; i++) {
            uint32_t orient = i == 0 ? 0 : 1 + (i - 1) % 3;
            uint32_t gain = orient == 0 ? 0 : orient == 3 ? 2 : 1;
            if (rev) {
                tc->steps[i].expn = (uint16_t)(prec + gain);
                continue;
            }
            /* equal image-domain error per coefficient: the step over the band's synthesis
             * norm (level 1 the finest) */
            uint32_t level = i == 0 ? levels : levels - (i - 1) / 3;
            double delta = qabs / tsr__dwt_norm(&norms, orient, level);
            if (!tsr__j2k_step_encode(delta, prec + gain, &tc->steps[i]))
                return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT,
                                 "j2k encode: quantisation step %g is outside what QCD can "
                                 "express for this image",
                                 (double)opt->quant_step);
        }
    }
    for (uint32_t c = 0; c < nc; c++)
        tccps[c].cblksty = opt->ht ? 0x40 : 0; /* T.814 A.2: HT code-blocks only */
    cs.rsiz = opt->ht ? 0x4000 : 0;            /* T.814 A.1: Part 15 capabilities (CAP) */
    tcp.prg = (uint8_t)opt->order;
    tcp.numlayers = (uint16_t)nlayers;
    tcp.mct = (uint8_t)mct;
    tcp.csty = (uint8_t)((opt->sop ? 2 : 0) | (opt->eph ? 4 : 0)); /* Scod (Table A.13) */
    tcp.tccps = tccps;

    tsr__j2k_enc_tiles E;
    memset(&E, 0, sizeof E);
    tsr__j2k_bytes_init(&E.body, ctx);
    tsr__j2k_bytes_init(&E.pkts, ctx);
    tsr__j2k_bytes_init(&E.pieces, ctx);
    E.cs = &cs;
    E.tcp = &tcp;
    E.split = opt->tile_parts == TSR_J2K_TP_RESOLUTION  ? 'R'
              : opt->tile_parts == TSR_J2K_TP_LAYER     ? 'L'
              : opt->tile_parts == TSR_J2K_TP_COMPONENT ? 'C'
                                                        : 0;
    E.plt = opt->plt != 0;
    E.threads = threads;
    const uint32_t ntiles = cs.ntiles;
    job *jobs = NULL;
    arena *ar = NULL;
    ht_open *open = NULL;
    tsr__j2k_cblk_code *codes = NULL;
    tsr__j2k_cut *cuts = NULL;
    int32_t *tmp = NULL;
    size_t *first = NULL;
    tsr__j2k_bytes out, head;
    tsr__j2k_bytes_init(&out, ctx);
    tsr__j2k_bytes_init(&head, ctx);
    if ((st = tsr__alloc(ctx, ntiles * sizeof *E.tiles, (void **)&E.tiles)))
        goto done;
    memset(E.tiles, 0, ntiles * sizeof *E.tiles);
    if ((st = tsr__alloc(ctx, (ntiles + 1) * sizeof *E.body_at, (void **)&E.body_at)) ||
        (st = tsr__alloc(ctx, (ntiles + 1) * sizeof *E.pkts_at, (void **)&E.pkts_at)))
        goto done;
    if ((st = tsr__alloc(ctx, ntiles * sizeof *E.ntp, (void **)&E.ntp)) ||
        (st = tsr__alloc(ctx, (ntiles + 1) * sizeof *first, (void **)&first)))
        goto done;
    E.first = first;
    const tsr__j2k_window win = {cs.x0, cs.y0, cs.x1, cs.y1};
    first[0] = 0;
    for (uint32_t k = 0; k < ntiles; k++) {
        if ((st = tsr__tcd_init(ctx, &cs, &tcp, k, 0, NULL, &win, &E.tiles[k])))
            goto done;
        first[k + 1] = first[k] + E.tiles[k].ncblks;
    }
    if ((st = tsr__j2k_tile_parts_count(ctx, &E)))
        goto done;
    if (opt->tlm && E.ntp_total > 256 * tsr__j2k_tlm_per_segment(ntiles)) {
        st = tsr__fail(ctx, TSR_ERR_LIMIT,
                       "j2k encode: %u tile-parts are more than 256 TLM marker segments list",
                       E.ntp_total);
        goto done;
    }

    /* Each tile's samples, colour transform, wavelet transform. */
    size_t side = 1; /* the longest tile side: a tile is at most the image */
    for (uint32_t k = 0; k < ntiles; k++) {
        const uint32_t tw = E.tiles[k].x1 - E.tiles[k].x0, th = E.tiles[k].y1 - E.tiles[k].y0;
        side = tw > side ? tw : side;
        side = th > side ? th : side;
    }
    const size_t fused = tsr__fdwt_fused_words((uint32_t)side, 3),
                 line = fused > TSR__FDWT_STRIP * side ? fused : TSR__FDWT_STRIP * side;
    if ((st = tsr__alloc(ctx, (size_t)threads * line * sizeof *tmp, (void **)&tmp)))
        goto done;
    /* CUDA: the image goes to the device here; each tile is transformed and its blocks coded
     * there at the block-coding stage (code_blocks_cuda); the host's planes only lay the
     * blocks out (never touched: not prefaulted) */
    const int dev_t1 = backend == TSR_BACKEND_CUDA;
    for (uint32_t k = 0; k < ntiles; k++)
        if ((st = alloc_tile(ctx, &E.tiles[k], dev_t1 ? 0 : threads)))
            goto done;
    if (dev_t1) {
        if ((st = tsr__j2k_enc_cuda_begin(ctx, img, cs.x0, cs.y0)))
            goto done;
    } else if (ntiles == 1) { /* its lines in parallel */
        transform_tile(img, cs.x0, cs.y0, &E.tiles[0], prec, mct, rev, tmp, line, threads);
    } else { /* tiles in parallel, each on one thread: the same samples at any count */
#ifdef _OPENMP
#pragma omp parallel for num_threads(threads) schedule(dynamic, 1) if (threads > 1)
#endif
        for (uint32_t k = 0; k < ntiles; k++) {
            const int tid = tsr__thread_num();
            transform_tile(img, cs.x0, cs.y0, &E.tiles[k], prec, mct, rev, tmp + (size_t)tid * line,
                           line, 1);
        }
    }

    if ((st = tsr__progress(ctx, "j2k encode", 1, 4)))
        goto done;

    /* The code-blocks as jobs, tile by tile in each tile's numbering. */
    const size_t njobs = first[ntiles];
    if ((st = tsr__alloc(ctx, (njobs ? njobs : 1) * sizeof *jobs, (void **)&jobs)) ||
        (st = tsr__alloc(ctx, (njobs ? njobs : 1) * sizeof *codes, (void **)&codes)))
        goto done;
    memset(codes, 0, (njobs ? njobs : 1) * sizeof *codes);
    for (uint32_t k = 0; k < ntiles; k++)
        list_jobs(&E.tiles[k], rev, mct, track, &norms, jobs + first[k]);

    /* Tier 1, in parallel: each thread its state and its arena of coded bytes. */
    if ((size_t)threads > njobs)
        threads = njobs ? (int)njobs : 1;
    const size_t t1_cap = tsr__t1_encode_bound(TSR__T1_MAX_AREA, 31),
                 ht_cap = tsr__ht_encode_bound(64, 64) + /* 1024 quads: every block's most */
                          tsr__ht_refine_bound(64, 64);
    size_t buf_cap = t1_cap > ht_cap ? t1_cap : ht_cap;
    buf_cap = buf_cap > TSR__J2K_HT_RD_SCRATCH ? buf_cap : TSR__J2K_HT_RD_SCRATCH;
    const size_t fns_cap = tsr__fns_encode_bound(4, TSR__T1_MAX_H, 31); /* the most stripes */
    buf_cap = buf_cap > fns_cap ? buf_cap : fns_cap;
    if ((st = tsr__alloc(ctx, (size_t)threads * sizeof *ar, (void **)&ar)))
        goto done;
    memset(ar, 0, (size_t)threads * sizeof *ar);
    for (int i = 0; i < threads; i++) {
        tsr__j2k_bytes_init(&ar[i].bytes, ctx);
        tsr__j2k_bytes_init(&ar[i].hulls, ctx);
        tsr__j2k_bytes_init(&ar[i].sets, ctx);
        tsr__j2k_bytes_init(&ar[i].raw, ctx);
        if ((st = tsr__alloc(ctx, sizeof *ar[i].enc, (void **)&ar[i].enc)) ||
            (st = tsr__alloc(ctx, TSR__T1_MAX_AREA * sizeof *ar[i].coef, (void **)&ar[i].coef)) ||
            (opt->ht && track &&
             (st = tsr__alloc(ctx, TSR__T1_MAX_AREA * sizeof *ar[i].mag, (void **)&ar[i].mag))) ||
            (st = tsr__alloc(ctx, buf_cap, (void **)&ar[i].buf)))
            goto done;
        memset(ar[i].enc, 0, sizeof *ar[i].enc); /* tsr__t1_enc starts zeroed */
    }
    /* HT rate control to sizes (every layer's): the candidates coded from each block's top
     * plane down while the search could take them, the last layer's bytes the budget */
    double reveal = opt->ht && track ? 0 : HUGE_VAL;
    for (uint32_t l = 0; l < nlayers && reveal < HUGE_VAL; l++)
        reveal = layer_bpp[l] > 0 && layer_bpp[l] != HUGE_VAL
                     ? fmax(reveal, layer_bpp[l] * (double)w * h / 8.0)
                     : HUGE_VAL;
    if (reveal < HUGE_VAL &&
        (st = tsr__alloc(ctx, (njobs ? njobs : 1) * sizeof *open, (void **)&open)))
        goto done;
    tsr_status fail = TSR_OK;
    if (dev_t1 && (st = code_blocks_cuda(ctx, &E, first, jobs, prec, mct, rev, opt->ht, fast, track,
                                         &ar[0], open)))
        goto done;
    if (open && (st = code_blocks_revealed(ctx, jobs, njobs, ar, threads, open, dev_t1, reveal)))
        goto done;
    const size_t cpu_jobs = dev_t1 || open ? 0 : njobs; /* the blocks coded here */
#ifdef _OPENMP
#pragma omp parallel for num_threads(threads) schedule(dynamic, 4) if (threads > 1)
#endif
    for (size_t j = 0; j < cpu_jobs; j++) {
        const int tid = tsr__thread_num();
        jobs[j].thread = tid;
        if (j + 1 < cpu_jobs)
            prefetch_block(&jobs[j + 1]);
        if (__atomic_load_n(&fail, __ATOMIC_RELAXED) == TSR_OK)
            code_block(&jobs[j], &ar[tid], buf_cap, track, opt->ht, fast, &fail);
    }
    if (fail) {
        st = fail == TSR_ERR_INTERNAL
                 ? tsr__fail(ctx, fail, "j2k encode: a code-block's coded data overflowed")
                 : fail;
        goto done;
    }

    if ((st = tsr__progress(ctx, "j2k encode", 2, 4)))
        goto done;

    /* Guard bits for the largest coefficient, then each block's zero bit-planes: Mb >= K, and
     * for HT Mb > K (the exponent bound of a magnitude of K bits is up to K + 1, which the
     * decoder expects within Mb); an HT block's one cleanup pass codes down to plane 0, which
     * it signals by P = Mb - 1 (ht_encode.h), and a candidate HT set at base plane p by
     * P = Mb - 1 - p (tsr__j2k_cblk_code). */
    uint32_t G = 2;
    const uint32_t kx = opt->ht ? 2 : 1;
    for (size_t j = 0; j < njobs; j++) {
        const uint32_t expn = tccps[jobs[j].comp].steps[jobs[j].si].expn;
        if (jobs[j].K + kx > expn + G)
            G = jobs[j].K + kx - expn;
    }
    if (G > 7) {
        st = tsr__fail(ctx, TSR_ERR_INTERNAL, "j2k encode: coefficients need %u guard bits", G);
        goto done;
    }
    for (uint32_t c = 0; c < nc; c++)
        tccps[c].numgbits = (uint8_t)G;
    for (size_t j = 0; j < njobs; j++) {
        const job *jb = &jobs[j];
        const uint32_t mb = G + tccps[jb->comp].steps[jb->si].expn - 1;
        tsr__j2k_cblk_code *code = &codes[j];
        code->npasses = jb->passes;
        code->zero_bp = (uint8_t)(opt->ht ? mb - 1 : mb - jb->K);
        if (!jb->passes)
            continue;
        code->data = ar[jb->thread].bytes.p + jb->off;
        code->len = jb->len;
        if (jb->nsets) {
            code->sets =
                (const tsr__j2k_ht_set *)(const void *)(ar[jb->thread].sets.p + jb->sets_off);
            code->nsets = jb->nsets;
        }
    }

    /* The codestream: main header, the tiles' tile-parts, EOC; in JP2 boxes when asked (the
     * boxes first: the codestream's length is known by then). With rates, the tiles get the
     * bytes of layer l's target that the main header, boxes and EOC leave; with PSNR targets,
     * the passes whose estimated error meets it; without either, layer l (below the last)
     * about 2^-(N-1-l) of the complete file. */
    size_t tlm_at = 0, tiles_len = 0;
    tsr__j2k_write_main_header(&cs, &tcp, E.ntp_total, opt->tlm ? &tlm_at : NULL, &head);
    if (fast) { /* COM (A.9.2), Latin text: what a reader of the header is told */
        tsr__j2k_bytes_u16(&head, 0xFF64);
        tsr__j2k_bytes_u16(&head, (uint32_t)(4 + sizeof TSR__FNS_MARK - 1));
        tsr__j2k_bytes_u16(&head, 1);
        tsr__j2k_bytes_put(&head, TSR__FNS_MARK, sizeof TSR__FNS_MARK - 1);
    }
    if ((st = tsr__alloc(ctx, (njobs ? njobs : 1) * nlayers * sizeof *cuts, (void **)&cuts)))
        goto done;
    for (size_t j = 0; j < njobs; j++) /* every pass in every layer: the complete file */
        for (uint32_t l = 0; l < nlayers; l++)
            cuts[j * nlayers + l] = (tsr__j2k_cut){codes[j].npasses, codes[j].len};
    if ((st = tsr__j2k_tiles_encode(ctx, &E, codes, cuts, track ? 1 : nlayers, track, &tiles_len)))
        goto done;
    if (track && (st = rate_control(ctx, &E, opt, &head, jobs, ar, codes, njobs, layer_bpp,
                                    tiles_len, rev, prec, cuts)))
        goto done;
    if ((st = tsr__progress(ctx, "j2k encode", 3, 4)))
        goto done;
    /* the tile-parts straight after the header in out, reserved at once (one copy of the
     * bodies), the header's TLM entries filled there */
    const size_t cs_len = head.len + E.bytes + 2;
    if (opt->container != TSR_J2K_CODESTREAM)
        tsr__jp2_write_boxes(&cs, nc == 2 || nc == 4, opt->container == TSR_J2K_JPH, cs_len, &out);
    const size_t head_at = out.len;
    tsr__j2k_bytes_reserve(&out, cs_len);
    tsr__j2k_bytes_put(&out, head.p, head.len);
    tsr__j2k_tiles_write(&E, &out, opt->tlm ? head_at + tlm_at : 0, &out);
    tsr__j2k_bytes_u16(&out, 0xFFD9); /* EOC */
    if ((st = head.st ? head.st : out.st))
        goto done;
    if (out.len != head_at + cs_len) {
        st = tsr__fail(ctx, TSR_ERR_INTERNAL, "j2k encode: the codestream took %zu bytes, not %zu",
                       out.len - head_at, cs_len);
        goto done;
    }
    if ((st = tsr__progress(ctx, "j2k encode", 4, 4)))
        goto done;
    *data = out.p;
    *len = out.len;
    out.p = NULL;

done:
    tsr__j2k_bytes_free(&out);
    tsr__j2k_bytes_free(&head);
    if (ar)
        for (int i = 0; i < threads; i++) {
            tsr__j2k_bytes_free(&ar[i].bytes);
            tsr__j2k_bytes_free(&ar[i].hulls);
            tsr__j2k_bytes_free(&ar[i].sets);
            tsr__j2k_bytes_free(&ar[i].raw);
            tsr__free(ctx, ar[i].enc);
            tsr__free(ctx, ar[i].coef);
            tsr__free(ctx, ar[i].mag);
            tsr__free(ctx, ar[i].buf);
        }
    tsr__free(ctx, ar);
    tsr__free(ctx, open);
    tsr__free(ctx, jobs);
    tsr__free(ctx, codes);
    tsr__free(ctx, cuts);
    tsr__free(ctx, tmp);
    tsr__free(ctx, first);
    tsr__free(ctx, E.ntp);
    tsr__j2k_bytes_free(&E.body);
    tsr__j2k_bytes_free(&E.pkts);
    tsr__j2k_bytes_free(&E.pieces);
    tsr__free(ctx, E.body_at);
    tsr__free(ctx, E.pkts_at);
    for (uint32_t k = 0; E.tiles && k < ntiles; k++)
        tsr__tcd_free(ctx, &E.tiles[k]);
    tsr__free(ctx, E.tiles);
    return st;
}

static int ends_with(const char *s, const char *suf)
{
    size_t a = strlen(s), b = strlen(suf);
    return a >= b && strcasecmp(s + a - b, suf) == 0;
}

tsr_status tsr_j2k_encode_save(tsr_ctx *ctx, const tsr_image *img,
                               const tsr_j2k_encode_options *opt, const char *path, size_t *bytes)
{
    tsr_status st = tsr__enter(ctx);
    if (st)
        return st;
    if (bytes)
        *bytes = 0;
    if (!path)
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT, "j2k encode: no output path");
    tsr_j2k_encode_options o;
    if (opt)
        o = *opt;
    else
        tsr_j2k_encode_options_init(&o);
    if (ends_with(path, ".jp2"))
        o.container = TSR_J2K_JP2;
    else if (ends_with(path, ".jph"))
        o.container = TSR_J2K_JPH;
    else if (ends_with(path, ".j2k") || ends_with(path, ".j2c"))
        o.container = TSR_J2K_CODESTREAM;
    else
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT,
                         "output '%s': use a .j2k, .j2c (codestream), .jp2 or .jph name", path);
    uint8_t *data;
    size_t len;
    if ((st = tsr_j2k_encode(ctx, img, &o, &data, &len)))
        return st;
    tsr__atomic_file af;
    if (!(st = tsr__atomic_open(ctx, path, &af))) {
        af.sync = o.sync;
        if ((st = tsr__atomic_write(ctx, &af, data, len)))
            tsr__atomic_abort(ctx, &af);
        else
            st = tsr__atomic_commit(ctx, &af);
    }
    tsr__free(ctx, data);
    if (!st && bytes)
        *bytes = len;
    return st;
}
