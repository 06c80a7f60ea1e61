/* One tile of a JPEG 2000 decode (decode_int.h's tsr__j2k_decode_tile): its packets (t2.c),
 * its code-blocks (t1.h, in parallel) with dequantisation, the inverse DWT (dwt.c, or in
 * groups of rows through bands.c), the inverse MCT and the output into planes, an image, or
 * the rows of tsr_j2k_decode_rows. decode.c runs the tiles.
 *
 * Integration with Tier 1 (t1.h): per code-block this file passes
 * the clipped size, the sub-band orientation, the style byte (0x40 set for HT code-blocks and
 * clear for Part-1 ones in mixed mode), the zero bit-planes and Mb = G + exp - 1 and the RGN
 * shift, and the codeword segments, each one contiguous (pieces from several layers are copied
 * together into a per-thread buffer). t1 writes integers (reversible) or values with one
 * fractional bit (irreversible, multiplied here by delta_b / 2) straight into the
 * tile-component's array.
 *
 * On t1.h's segment rule (section 2): for an HT block
 * whose cleanup has not been seen, the rule's "avail - (avail - 1) % 3" assumes the segment
 * starts at a pass index that is a multiple of 3. Placeholder passes included in earlier layers
 * need not come in threes (the HTJ2K conformance streams ds0_ht_04/05/06, ds1_ht_03 have such
 * blocks), so t2.c computes the cleanup segment as avail - (first + avail - 1) % 3 (T.814 B.3:
 * the cleanup pass is pass 3k counted over all layers) and calls the rule only once the cleanup
 * is known. The segments handed to t1 then satisfy its own reading: the last nonzero-length
 * cleanup segment ends at pass 3k. */
#include "j2k/decode_int.h"
#include "j2k/t1.h"
#include "j2k/t1_internal.h"

#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

typedef tsr__j2k_stream stream;
typedef tsr__j2k_layout layout;
typedef tsr__j2k_dec dec;

/* Output of one decoded tile-component (tsr__j2k_store_plan, decode_stages.h); the row pass is in
 * store_row.h, compiled here, for AVX2 in store_avx2.c and for AVX-512 in store_avx512.c, and
 * chosen by tsr__ht_simd()'s level. */
typedef tsr__j2k_store_plan store_plan;

#define STORE_ROW tsr__j2k_store_row_base
#define STORE_SCOPE
#include "j2k/store_row.h"

/* decode_int.h; the plan's source is tc->data (p->data is not used). */
tsr__j2k_store_plan tsr__j2k_store_plan_make(const tsr__j2k_tilecomp *tc, const tsr__j2k_comp *cp,
                                             int is_float, const tsr_j2k_plane *p)
{
    const tsr__j2k_res *top = &tc->res[tc->dec_res - 1];
    store_plan s;
    static void (*const rows[3])(const store_plan *, int64_t, int32_t *) = {
        tsr__j2k_store_row_base, tsr__j2k_store_row_avx2, tsr__j2k_store_row_avx512};
    s.row = rows[tsr__ht_simd()];
    s.src = tc->data;
    s.src_stride = tc->stride;
    s.p = p;
    s.is_float = is_float;
    s.src_x0 = top->x0;
    s.src_y0 = top->y0;
    s.x0 = top->x0 > p->x0 ? top->x0 : p->x0;
    s.y0 = top->y0 > p->y0 ? top->y0 : p->y0;
    s.x1 = top->x1 < (uint64_t)p->x0 + p->width ? top->x1 : (int64_t)p->x0 + p->width;
    s.y1 = top->y1 < (uint64_t)p->y0 + p->height ? top->y1 : (int64_t)p->y0 + p->height;
    if (cp->sgnd) {
        s.lo = -((int64_t)1 << (cp->prec - 1));
        s.hi = ((int64_t)1 << (cp->prec - 1)) - 1;
        s.shift = 0;
    } else {
        s.lo = 0;
        s.hi = ((int64_t)1 << cp->prec) - 1;
        s.shift = (int64_t)1 << (cp->prec - 1);
    }
    return s;
}

/* Row y's decoded samples of a plan, from column x0 of the tile-component's top resolution. */
static inline int32_t *src_row(const store_plan *s, int64_t y, int64_t x0)
{
    return s->src + (size_t)(y - s->src_y0) * s->src_stride + (size_t)(x0 - s->src_x0);
}

/* Whether codestream component c is an output of the decode (a plane with samples, or an image
 * channel). */
static int is_output(const dec *d, uint32_t c)
{
    if (!d->img)
        return d->dst[c].data != NULL;
    for (uint32_t i = 0; i < d->pix.n; i++)
        if (d->img_comp[i] == c)
            return 1;
    return 0;
}

/* Where row y (absolute, the top resolution) of an image output starts in the image memory
 * (d->img->data; NULL when y is not an image row), the image's channels being comps[]. */
static uint8_t *image_row(const dec *d, const store_plan *plan, const uint32_t *comps, int64_t y)
{
    const store_plan *s0 = &plan[comps[0]];
    if (y < s0->y0 || y >= s0->y1)
        return NULL;
    return (uint8_t *)d->img->data + (size_t)(y - s0->p->y0) * d->img->stride;
}

/* Row y (absolute, the top resolution) of a decoded tile: the inverse colour transform
 * (G.2 / G.3) of components 0..2 over rgb_w samples when rgb_w > 0 (their plans' sources), then
 * the output of the n components comps[], each through its plan: into its plane, or, for an
 * image (whose channels are then comps[0..n), of one geometry), in place followed by the
 * image row's pixels into out (the image row of y: image_row(), or a row of the chunk of
 * streamed rows). The row is done while it is in cache. */
static void output_row(const dec *d, const store_plan *plan, const uint32_t *comps, uint32_t n,
                       size_t rgb_w, int rev, int64_t y, uint8_t *out)
{
    if (rgb_w) {
        int32_t *r0 = src_row(&plan[0], y, plan[0].src_x0);
        int32_t *r1 = src_row(&plan[1], y, plan[1].src_x0);
        int32_t *r2 = src_row(&plan[2], y, plan[2].src_x0);
        if (rev)
            tsr__mct_rct_inverse(r0, r1, r2, rgb_w);
        else
            tsr__mct_ict_inverse((float *)r0, (float *)r1, (float *)r2, rgb_w);
    }
    for (uint32_t i = 0; i < n; i++) {
        const store_plan *s = &plan[comps[i]];
        if (y < s->y0 || y >= s->y1 || s->x1 <= s->x0)
            continue;
        const tsr_j2k_plane *p = s->p;
        s->row(s, y,
               d->img ? src_row(s, y, s->x0)
                      : p->data + (size_t)(y - p->y0) * p->stride + (size_t)(s->x0 - p->x0));
    }
    const store_plan *s0 = d->img ? &plan[comps[0]] : NULL;
    if (s0 && y >= s0->y0 && y < s0->y1 && s0->x1 > s0->x0) {
        const int32_t *px[4] = {NULL, NULL, NULL, NULL};
        for (uint32_t i = 0; i < n; i++)
            px[i] = src_row(&plan[comps[i]], y, s0->x0);
        const size_t pixel = (size_t)n * (d->pix.wide ? 2 : 1);
        tsr__j2k_pixels_row(&d->pix, px, (uint32_t)(s0->x1 - s0->x0),
                            out + (size_t)(s0->x0 - s0->p->x0) * pixel);
    }
}

/* Rows [ya, yb) through output_row(), with `threads` threads. */
static void output_rows(const dec *d, const store_plan *plan, const uint32_t *comps, uint32_t n,
                        size_t rgb_w, int rev, int64_t ya, int64_t yb, int threads)
{
    (void)threads;
#pragma omp parallel for schedule(static) num_threads(threads) if (threads > 1 && yb - ya > 32)
    for (int64_t y = ya; y < yb; y++)
        output_row(d, plan, comps, n, rgb_w, rev, y, d->img ? image_row(d, plan, comps, y) : NULL);
}

/* Whether the colour transform of a tile cannot be done: 1 components 0..2 of different sizes,
 * 2 mixed reversible and irreversible ones, 0 it can. */
static int mct_mismatch(const tsr__j2k_tile *t, const tsr__j2k_tcp *tcp)
{
    const tsr__j2k_tilecomp *a = &t->comps[0], *b = &t->comps[1], *c = &t->comps[2];
    if (a->data_w != b->data_w || a->data_w != c->data_w || a->data_h != b->data_h ||
        a->data_h != c->data_h)
        return 1;
    const int rev0 = tcp->tccps[0].qmfbid == 1;
    if (rev0 != (tcp->tccps[1].qmfbid == 1) || rev0 != (tcp->tccps[2].qmfbid == 1))
        return 2;
    return 0;
}

/* Whether every decoded tile-component has resolution dec_res - 1 - lv and the one below it,
 * with that resolution non-empty and of one geometry across them. */
static int same_level(const tsr__j2k_tile *t, uint32_t lv)
{
    const tsr__j2k_res *first = NULL;
    for (uint32_t c = 0; c < t->ncomps; c++) {
        const tsr__j2k_tilecomp *tc = &t->comps[c];
        if (tc->skip)
            continue;
        if (tc->dec_res < lv + 2)
            return 0;
        const tsr__j2k_res *r = &tc->res[tc->dec_res - 1 - lv];
        if (r->x1 <= r->x0 || r->y1 <= r->y0)
            return 0;
        if (first &&
            (r->x0 != first->x0 || r->y0 != first->y0 || r->x1 != first->x1 || r->y1 != first->y1))
            return 0;
        first = r;
    }
    return first != NULL;
}

/* Band rows per group for resolution dec_res - 1 - lv of a banded tile (lv 0: the top, 1: the
 * one below): at least 32, a multiple of every code-block height there; the lifting reach: 4
 * rows where a component is irreversible, else 2. */
static void bands_geometry(const tsr__j2k_tile *t, const tsr__j2k_tcp *tcp, uint32_t lv,
                           uint32_t *G, uint32_t *M)
{
    *G = 32;
    *M = 2;
    for (uint32_t c = 0; c < t->ncomps; c++) {
        const tsr__j2k_tilecomp *tc = &t->comps[c];
        if (tc->skip)
            continue;
        for (uint32_t b = 0; b < 3; b++) {
            const uint32_t h = 1u << tc->res[tc->dec_res - 1 - lv].bands[b].ycb;
            if (h > *G)
                *G = h;
        }
        if (tcp->tccps[c].qmfbid != 1)
            *M = 4;
    }
}

/* Where the top resolution goes in bands (bands.c): image output, every decoded
 * tile-component with at least one level and the same (non-empty) top resolution, and a
 * colour transform that can be done (else the whole-tile path reports it in its turn). */
static int can_band(const dec *d, const tsr__j2k_tile *t, const tsr__j2k_tcp *tcp, int bad_rgb)
{
    if (!d->img || bad_rgb || !same_level(t, 0))
        return 0;
    /* bands pay where the tile is taller than their window (2 G + 4 M rows a component); a
     * shorter one is smaller whole (a 24-row image 32800 wide: 85 MB of bands, 9 MB whole) */
    uint32_t G, M;
    bands_geometry(t, tcp, 0, &G, &M);
    for (uint32_t c = 0; c < t->ncomps; c++) {
        const tsr__j2k_tilecomp *tc = &t->comps[c];
        if (!tc->skip && tc->res[tc->dec_res - 1].y1 - tc->res[tc->dec_res - 1].y0 < 2 * G + 4 * M)
            return 0;
    }
    return 1;
}

/* Groups of a banded tile (the same for every component). */
static uint32_t bands_groups(const tsr__j2k_tile *t, const tsr__j2k_bands *bands)
{
    for (uint32_t c = 0; c < t->ncomps; c++)
        if (!t->comps[c].skip)
            return bands[c].g_last - bands[c].g_first + 1;
    return 0;
}

/* Whether every decoded component of a banded tile is an image channel whose top resolution is
 * the whole image (its plane): then the tile's output rows are the image's rows. */
static int top_is_image(const dec *d, const tsr__j2k_tile *t)
{
    for (uint32_t c = 0; c < t->ncomps; c++) {
        const tsr__j2k_tilecomp *tc = &t->comps[c];
        if (tc->skip)
            continue;
        const tsr__j2k_res *top = &tc->res[tc->dec_res - 1];
        const tsr_j2k_plane *p = &d->dst[c];
        if (!is_output(d, c) || top->x0 != p->x0 || top->y0 != p->y0 ||
            top->x1 - top->x0 != p->width || top->y1 - top->y0 != p->height)
            return 0;
    }
    return 1;
}

/* Whether the resolution below the top of a banded tile can live in the output image's own
 * memory, and then its row length in bytes (*lrow; the decoded components' rows side by side).
 * Its rows are read only by the window fill (bands.c), and group k's fill has copied every low
 * row of the positions before T (its span's end) before the group's output rows, which end at
 * T - M at most (M >= 2), are written. With the image's row i at i S bytes (the image equal to
 * the top resolution of the one tile: image row i is position y0 + i) and low row q at q lrow,
 * lrow >= 2 S: the rows not yet copied are q >= ceil((y0 + T) / 2) - ceil(y0 / 2) >= (T - 1) / 2,
 * at bytes >= (T - 1) S, beyond every image row written so far (< (T - M) S). The last group
 * writes the rest after its fill has copied every low row. So where, in addition, the low rows
 * fit in the image's bytes, no image row overwrites a low row still to be read. In practice: 8-bit
 * tight images of even width and height (then lrow = 2 S and the low rows fill the image). The
 * caller's image is fully written by the output rows in any case. */
static int low_in_image(const dec *d, const tsr__j2k_tile *t, size_t *lrow)
{
    const tsr_image *img = d->img;
    if (!img || !img->data || d->pix.wide || ((uintptr_t)img->data & 3) || img->height < 1 ||
        !top_is_image(d, t))
        return 0;
    const size_t S = img->stride,
                 bytes = S * (size_t)(img->height - 1) + (size_t)img->width * d->pix.n;
    size_t row = 0, rows = 0;
    uint32_t n = 0;
    for (uint32_t c = 0; c < t->ncomps; c++) {
        const tsr__j2k_tilecomp *tc = &t->comps[c];
        if (tc->skip)
            continue;
        const tsr__j2k_res *low = &tc->res[tc->dec_res - 2];
        row += (size_t)4 * (low->x1 - low->x0);
        rows = low->y1 - low->y0;
        n++;
    }
    if (n != d->pix.n || row < 2 * S || rows > bytes / row)
        return 0;
    *lrow = row;
    return 1;
}

/* Whether the resolution below the top of a banded tile goes in bands too (its rows then pass
 * through a ring to the top's windows, and only the resolution below it is whole): where the
 * rows are streamed (no image memory to keep that resolution in, low_in_image), every decoded
 * component has that resolution and the one below it, of one geometry. */
static int below_in_bands(const dec *d, const tsr__j2k_tile *t)
{
    return d->img && !d->img->data && same_level(t, 1);
}

/* The memory of a banded tile in one block (*mem, prefaulted): per decoded component its
 * bands (*bands, one per component), those of the resolution below when that is in bands too
 * (*below, else NULL) with the ring its rows pass through (*ring), and the whole resolution
 * below the last one in bands (its tc->data), unless that is in the output image
 * (low_in_image). */
static tsr_status bands_alloc(dec *d, tsr__j2k_tile *t, const tsr__j2k_tcp *tcp, int threads,
                              tsr__j2k_bands **bands, tsr__j2k_bands **below, int32_t **mem,
                              int32_t **ring)
{
    tsr_ctx *ctx = d->ctx;
    uint32_t G, M, G1 = 0;
    bands_geometry(t, tcp, 0, &G, &M);
    const uint32_t lv = below_in_bands(d, t) ? 2 : 1; /* levels in bands */
    if (lv == 2)
        bands_geometry(t, tcp, 1, &G1, &M);
    size_t lrow = 0;
    const int in_image = lv == 1 && low_in_image(d, t, &lrow);
    size_t total = 0, n = 0;
    for (uint32_t c = 0; c < t->ncomps; c++) {
        const tsr__j2k_tilecomp *tc = &t->comps[c];
        if (tc->skip)
            continue;
        const tsr__j2k_res *low = &tc->res[tc->dec_res - 1 - lv];
        size_t m = tsr__j2k_bands_size(tc, tc->dec_res - 1, G, M);
        if (lv == 2)
            m += tsr__j2k_bands_size(tc, tc->dec_res - 2, G1, M);
        if ((!in_image &&
             !tsr__size_mul((size_t)(low->x1 - low->x0), (size_t)(low->y1 - low->y0), &n)) ||
            n > SIZE_MAX - 15 - m || total > SIZE_MAX - 15 - n - m)
            return tsr__fail(ctx, TSR_ERR_OVERFLOW, "tile %u is too large", t->index);
        total += tsr__j2k_line_words(n) + m; /* each part on whole 64-byte lines */
    }
    size_t bytes;
    tsr_status st;
    if (!tsr__size_mul(total ? total : 1, sizeof(int32_t), &bytes))
        return tsr__fail(ctx, TSR_ERR_OVERFLOW, "tile %u is too large", t->index);
    if ((st = tsr__alloc(ctx, (size_t)t->ncomps * lv * sizeof **bands, (void **)bands)))
        return st;
    memset(*bands, 0, (size_t)t->ncomps * lv * sizeof **bands);
    *below = lv == 2 ? *bands + t->ncomps : NULL;
    if ((st = tsr__alloc(ctx, bytes, (void **)mem)))
        return st;
    if (bytes >= ((size_t)1 << 20))
        tsr__j2k_prefault(*mem, bytes, threads); /* fresh memory: populate it now */
    int32_t *at = *mem, *img_at = in_image ? (int32_t *)d->img->data : NULL;
    uint32_t c0 = t->ncomps, ndec = 0;
    for (uint32_t c = 0; c < t->ncomps; c++) {
        tsr__j2k_tilecomp *tc = &t->comps[c];
        if (tc->skip)
            continue;
        c0 = c0 < c ? c0 : c;
        ndec++;
        const tsr__j2k_res *low = &tc->res[tc->dec_res - 1 - lv];
        tc->external = 1; /* freed with the block, or the image's */
        if (in_image) {
            tc->data = img_at;
            tc->stride = lrow / 4;
            img_at += low->x1 - low->x0;
        } else {
            tc->data = at;
            tc->stride = low->x1 - low->x0;
            at += tsr__j2k_line_words(tc->stride * (size_t)(low->y1 - low->y0));
        }
        for (uint32_t l = 0; l < lv; l++) {
            const uint32_t r = tc->dec_res - 1 - l, g = l ? G1 : G;
            if (tsr__j2k_bands_init(&(*bands)[c + l * t->ncomps], tc, r, g, M, at))
                return tsr__fail(ctx, TSR_ERR_INTERNAL, "tile %u: band window overflows", t->index);
            at += tsr__j2k_bands_size(tc, r, g, M);
        }
    }
    if (lv == 1)
        return TSR_OK;
    /* the ring: per component cap rows of the resolution below the top */
    const uint32_t cap = tsr__j2k_bands_ring_rows(&(*bands)[c0], &(*below)[c0]),
                   rw1 = (*below)[c0].rw;
    if (!tsr__size_mul3((size_t)cap * ndec, rw1, sizeof(int32_t), &bytes))
        return tsr__fail(ctx, TSR_ERR_OVERFLOW, "tile %u is too large", t->index);
    if ((st = tsr__alloc(ctx, bytes, (void **)ring)))
        return st;
    if (bytes >= ((size_t)1 << 20))
        tsr__j2k_prefault(*ring, bytes, threads);
    at = *ring;
    for (uint32_t c = 0; c < t->ncomps; c++) {
        if (t->comps[c].skip)
            continue;
        tsr__j2k_bands *top = &(*bands)[c];
        top->low = at;
        top->low_stride = rw1;
        top->low_cap = cap;
        at += (size_t)cap * rw1;
    }
    return TSR_OK;
}

/* The output of a whole decoded tile (planes or image) through output_rows(). */
static void output_tile(const dec *d, const tsr__j2k_tile *t, const store_plan *plans,
                        uint32_t *outs, uint32_t nout, int rgb, int rev, int threads)
{
    const int64_t y0 = t->comps[0].res[t->comps[0].dec_res - 1].y0;
    if (d->img) {
        /* one pass over the rows of all channels (of one geometry) */
        const store_plan *p0 = &plans[outs[0]];
        output_rows(d, plans, outs, nout, rgb ? t->comps[0].data_w : 0, rev, rgb ? y0 : p0->y0,
                    rgb ? y0 + (int64_t)t->comps[0].data_h : p0->y1, threads);
        return;
    }
    /* components 0..2 with their colour transform, then the others one by one */
    uint32_t k = 0;
    if (rgb) {
        while (k < nout && outs[k] < 3)
            k++;
        output_rows(d, plans, outs, k, t->comps[0].data_w, rev, y0,
                    y0 + (int64_t)t->comps[0].data_h, threads);
    }
    for (; k < nout; k++)
        output_rows(d, plans, outs + k, 1, 0, 0, plans[outs[k]].y0, plans[outs[k]].y1, threads);
}

/* Rows [ya, yb) of a banded tile's group through output_row() by the calling team (a
 * worksharing loop with its barrier): into the image, or, while rows are streamed, in chunks of
 * d->chunk_rows packed into d->chunk, each handed to the sink by one thread once packed (the
 * next chunk waits for it, so the rows go out in order). Returns d->stopped (the same in every
 * thread: it is written in the single construct, read after its barrier). */
static int group_rows(dec *d, const store_plan *plans, const uint32_t *outs, uint32_t nout,
                      size_t rgb_w, int rev, int64_t ya, int64_t yb)
{
    if (d->img->data) {
#pragma omp for schedule(static)
        for (int64_t y = ya; y < yb; y++)
            output_row(d, plans, outs, nout, rgb_w, rev, y, image_row(d, plans, outs, y));
        return 0;
    }
    const size_t S = d->img->stride;
    const int64_t y0 = plans[outs[0]].p->y0; /* the image's first row (top_is_image) */
    for (int64_t c0 = ya; c0 < yb && !d->stopped; c0 += d->chunk_rows) {
        const int64_t c1 = yb - c0 < d->chunk_rows ? yb : c0 + d->chunk_rows;
#pragma omp for schedule(static)
        for (int64_t y = c0; y < c1; y++)
            output_row(d, plans, outs, nout, rgb_w, rev, y, d->chunk + (size_t)(y - c0) * S);
#pragma omp single
        d->stopped = d->sink(d->user, d->chunk, S, (uint32_t)(c0 - y0), (uint32_t)(c1 - c0)) != 0;
    }
    return d->stopped;
}

/* The top resolution of a banded tile, group by group: its code-blocks (jobs of key 1 + the
 * group), the rows they complete in each component's window, their colour transform and
 * output (group_rows); then the jobs' warnings, or the error of a block that could not be
 * decoded, or TSR_ERR_INTERRUPTED when the row sink stopped the decode. Where the resolution
 * below is in bands too (below), its groups due before a top group (tsr__j2k_bands_due) run first,
 * in the same steps, their completed rows passed up into the ring the top's windows read. One
 * parallel region for the whole tile: each group's steps are worksharing loops of its team,
 * separated by their barriers (the code-blocks and the window fill share one). */
static tsr_status output_bands(dec *d, const tsr__j2k_tcp *tcp, const tsr__j2k_tile *t,
                               const tsr__j2k_t2 *t2, tsr__j2k_jobs *J, const tsr__j2k_bands *bands,
                               const tsr__j2k_bands *below, store_plan *plans, const uint32_t *outs,
                               uint32_t nout, int rgb, int32_t *scratch, size_t per, int threads,
                               void *ws)
{
    uint32_t c0 = 0;
    while (t->comps[c0].skip)
        c0++;
    const tsr__j2k_res *top = &t->comps[c0].res[t->comps[c0].dec_res - 1];
    const tsr__j2k_bands *b0 = &bands[c0];
    const uint32_t ngroups = b0->g_last - b0->g_first + 1;
    const int rev = tcp->tccps[0].qmfbid == 1;
    (void)threads;
#pragma omp parallel num_threads(threads) if (threads > 1)
    for (uint32_t k = 0, g = 0, failed = 0; k < ngroups; k++) {
        /* J->fatal is written only by the jobs and read after the barrier that ends them (and
         * before the next barrier), so every thread leaves at the same group */
        while (below && tsr__j2k_bands_due(b0, &below[c0], k, g)) {
            tsr__j2k_jobs_run_team(J, tcp, t, t2, ngroups + 1 + g, ws, d->ws_size);
            tsr__j2k_bands_fill(below, t, g);
            if ((failed = J->fatal != TSR_OK))
                break;
            tsr__j2k_bands_dwt(below, t, tcp, g, scratch, per);
            tsr__j2k_bands_pass_up(below, bands, t, g++);
        }
        if (failed)
            break;
        tsr__j2k_jobs_run_team(J, tcp, t, t2, k + 1, ws, d->ws_size);
        tsr__j2k_bands_fill(bands, t, k);
        if (J->fatal)
            break;
#pragma omp single nowait
        for (uint32_t c = 0; c < t->ncomps; c++) {
            if (t->comps[c].skip)
                continue;
            plans[c].src = bands[c].win;
            plans[c].src_stride = b0->rw;
            plans[c].src_x0 = top->x0;
            plans[c].src_y0 = (int64_t)top->y0 + b0->span[4 * k + 2];
        }
        tsr__j2k_bands_dwt(bands, t, tcp, k, scratch, per);
        const int64_t ya = (int64_t)top->y0 + b0->span[4 * k],
                      yb = (int64_t)top->y0 + b0->span[4 * k + 1];
        if (group_rows(d, plans, outs, nout, rgb ? b0->rw : 0, rev, ya, yb))
            break;
    }
    tsr_status st = tsr__j2k_jobs_finish(d->ctx, J, t, &d->s->warn);
    if (!st && d->stopped)
        st = tsr__fail(d->ctx, TSR_ERR_INTERRUPTED, "j2k decode: stopped by the row sink");
    return st;
}

/* decode_int.h */
tsr_status tsr__j2k_own_image(dec *d, int threads)
{
    tsr_image *img = d->img;
    const size_t bytes = img->stride * (size_t)img->height; /* tsr_image_check bounds it */
    tsr_status st = tsr__alloc(d->ctx, bytes, &img->data);
    if (st)
        return st;
    d->own_img = 1;
    tsr__j2k_prefault(img->data, bytes, threads);
    return TSR_OK;
}

/* Streamed rows: the chunk the output rows are packed into before each sink call, about
 * 256 KB (the rows are still in the L2 cache when the sink writes them), at least 8 rows per
 * thread, at most the image. */
static tsr_status chunk_alloc(dec *d, int threads)
{
    const size_t S = d->img->stride, h = (size_t)d->img->height;
    size_t rows = ((size_t)256 << 10) / S;
    if (rows < (size_t)8 * threads)
        rows = (size_t)8 * threads;
    d->chunk_rows = (uint32_t)(rows < h ? rows : h);
    return tsr__alloc(d->ctx, (size_t)d->chunk_rows * S, (void **)&d->chunk);
}

/* decode_int.h */
void tsr__j2k_tile_close(tsr_ctx *ctx, tsr__j2k_open_tile *o)
{
    tsr__free(ctx, o->ppt);
    tsr__free(ctx, o->body_cat);
    tsr__free(ctx, o->hdr_cat);
    tsr__t2_free(ctx, &o->t2);
    tsr__tcd_free(ctx, &o->t);
    tsr__j2k_tcp_free(ctx, &o->tcp);
    memset(o, 0, sizeof *o);
}

/* decode_int.h */
tsr_status tsr__j2k_tile_open(dec *d, uint32_t tile, tsr__j2k_open_tile *o)
{
    tsr_ctx *ctx = d->ctx;
    tsr__j2k_cs *cs = &d->s->cs;
    const layout *L = d->L;
    memset(o, 0, sizeof *o);
    size_t ppt_len = 0;
    tsr_status st = tsr__j2k_tile_params(ctx, cs, tile, &o->tcp, &o->ppt, &ppt_len);
    if (st)
        goto out;
    /* With a colour transform, components 0..2 are decoded together. */
    uint8_t *mask = L->mask;
    const int mct = o->tcp.mct && cs->ncomps >= 3;
    uint8_t *mask_copy = NULL;
    if (mct && (mask[0] || mask[1] || mask[2]) && !(mask[0] && mask[1] && mask[2])) {
        if ((st = tsr__alloc(ctx, cs->ncomps, (void **)&mask_copy)))
            goto out;
        memcpy(mask_copy, mask, cs->ncomps);
        mask_copy[0] = mask_copy[1] = mask_copy[2] = 1;
        mask = mask_copy;
    }
    st = tsr__tcd_init(ctx, cs, &o->tcp, tile, L->reduce, mask, &L->win, &o->t);
    tsr__free(ctx, mask_copy);
    if (st)
        goto out;
    o->rgb = mct && !o->t.comps[0].skip;
    /* The tile's data: its tile-parts' bodies (and packed headers) in order. */
    const uint8_t *body, *hdr = NULL;
    size_t body_len = 0, hdr_len = 0;
    uint32_t ntp = 0;
    for (uint32_t i = cs->tile_first[tile]; i != UINT32_MAX; i = cs->tps[i].next) {
        ntp++;
        body_len += cs->tps[i].body_len;
        hdr_len += cs->tps[i].ppm_len;
    }
    uint32_t f = cs->tile_first[tile];
    if (ntp == 1) {
        body = cs->data + cs->tps[f].body_off;
        if (cs->ppm) {
            hdr = cs->ppm + cs->tps[f].ppm_off;
            hdr_len = cs->tps[f].ppm_len;
        }
    } else {
        if ((st = tsr__alloc(ctx, body_len ? body_len : 1, (void **)&o->body_cat)))
            goto out;
        size_t at = 0, hat = 0;
        if (cs->ppm && (st = tsr__alloc(ctx, hdr_len ? hdr_len : 1, (void **)&o->hdr_cat)))
            goto out;
        for (uint32_t i = f; i != UINT32_MAX; i = cs->tps[i].next) {
            memcpy(o->body_cat + at, cs->data + cs->tps[i].body_off, cs->tps[i].body_len);
            at += cs->tps[i].body_len;
            if (cs->ppm) {
                memcpy(o->hdr_cat + hat, cs->ppm + cs->tps[i].ppm_off, cs->tps[i].ppm_len);
                hat += cs->tps[i].ppm_len;
            }
        }
        body = o->body_cat;
        hdr = o->hdr_cat;
    }
    if (o->ppt) {
        hdr = o->ppt;
        hdr_len = ppt_len;
    }
    if (cs->ppm && !hdr)
        hdr = (const uint8_t *)"";
    st = tsr__t2_decode(ctx, cs, &o->tcp, &o->t, body, body_len, hdr, hdr_len, d->layers,
                        ntp == 1 ? cs->base + cs->tps[f].body_off : SIZE_MAX, &o->t2, &d->s->warn);
out:
    if (st)
        tsr__j2k_tile_close(ctx, o);
    return st;
}

/* decode_int.h */
tsr_status tsr__j2k_mct_check(tsr_ctx *ctx, const tsr__j2k_open_tile *o, uint32_t tile)
{
    const int bad_rgb = o->rgb ? mct_mismatch(&o->t, &o->tcp) : 0;
    if (!bad_rgb)
        return TSR_OK;
    return tsr__fail(ctx, TSR_ERR_CORRUPT,
                     bad_rgb == 1 ? "tile %u: colour transform over components of different "
                                    "sizes"
                                  : "tile %u: colour transform over mixed "
                                    "reversible/irreversible components",
                     tile);
}

/* decode_int.h */
tsr_status tsr__j2k_decode_tile(dec *d, uint32_t tile, int threads, void *ws)
{
    tsr_ctx *ctx = d->ctx;
    const tsr__j2k_cs *cs = &d->s->cs;
    int32_t *scratch = NULL;
    store_plan *plans = NULL;
    uint32_t *outs = NULL;
    tsr__j2k_bands *bands = NULL;       /* per component (banded) */
    tsr__j2k_bands *below = NULL;       /* per component, the resolution below the top (in bands) */
    int32_t *bmem = NULL, *ring = NULL; /* their memory */
    tsr__j2k_jobs jobs;
    memset(&jobs, 0, sizeof jobs);
    tsr__j2k_open_tile o;
    tsr_status st = tsr__j2k_tile_open(d, tile, &o);
    if (st)
        return st;
    const tsr__j2k_tcp *const tcp = &o.tcp;
    tsr__j2k_tile *const t = &o.t;
    const int rgb = o.rgb;
    /* Samples: for the top resolution in bands (image output, bands.c) the resolution below
     * (or, with that one in bands too, the one below it: bands_alloc) and the band buffers;
     * else in place in the destination plane when the tile-component lies inside it (tiles
     * are disjoint), else a buffer of its own. Every coefficient is written by its code-block
     * job. */
    const int banded = can_band(d, t, tcp, rgb && mct_mismatch(t, tcp));
    if (d->sink && !d->img->data) {
        /* rows for a sink: streamed where the tile is the image, else into an image first */
        st =
            banded && top_is_image(d, t) ? chunk_alloc(d, threads) : tsr__j2k_own_image(d, threads);
        if (st)
            goto out;
    }
    if (banded && (st = bands_alloc(d, t, tcp, threads, &bands, &below, &bmem, &ring)))
        goto out;
    for (uint32_t c = 0; c < t->ncomps && !banded; c++) {
        tsr__j2k_tilecomp *tc = &t->comps[c];
        if (tc->skip)
            continue;
        const tsr__j2k_res *top = &tc->res[tc->dec_res - 1];
        const tsr_j2k_plane *p = &d->dst[c];
        if (p->data && top->x0 >= p->x0 && top->y0 >= p->y0 &&
            (uint64_t)top->x1 <= (uint64_t)p->x0 + p->width &&
            (uint64_t)top->y1 <= (uint64_t)p->y0 + p->height) {
            tc->data = p->data + (size_t)(top->y0 - p->y0) * p->stride + (top->x0 - p->x0);
            tc->stride = p->stride;
            tc->external = 1;
            continue;
        }
        size_t bytes;
        if (!tsr__size_mul3(tc->data_w ? tc->data_w : 1, tc->data_h ? tc->data_h : 1,
                            sizeof(int32_t), &bytes)) {
            st = tsr__fail(ctx, TSR_ERR_OVERFLOW, "tile %u component %u is too large", tile, c);
            goto out;
        }
        if ((st = tsr__alloc(ctx, bytes, (void **)&tc->data)))
            goto out;
        if (bytes >= ((size_t)1 << 20))
            tsr__j2k_prefault(tc->data, bytes, threads); /* fresh memory: populate it now */
        tc->stride = tc->data_w;
    }
    /* Code-blocks (all, or those below the resolutions in bands), then the inverse DWT (all
     * levels, or those below the resolutions in bands). */
    if ((st = tsr__j2k_jobs_make(
             ctx, t, &o.t2, banded ? bands : NULL, below,
             banded ? bands_groups(t, bands) + (below ? bands_groups(t, below) : 0) + 1 : 1,
             threads, &jobs)))
        goto out;
    tsr__j2k_jobs_run(&jobs, tcp, t, &o.t2, 0, threads, ws, d->ws_size);
    if (!banded || jobs.fatal) {
        if ((st = tsr__j2k_jobs_finish(ctx, &jobs, t, &d->s->warn)))
            goto out;
    }
    size_t per = 0;
    for (uint32_t c = 0; c < t->ncomps; c++)
        if (!t->comps[c].skip && tsr__dwt_scratch_per_thread(&t->comps[c]) > per)
            per = tsr__dwt_scratch_per_thread(&t->comps[c]);
    size_t sbytes;
    if (!tsr__size_mul3(per ? per : 1, (size_t)threads, sizeof(int32_t), &sbytes)) {
        st = tsr__fail(ctx, TSR_ERR_OVERFLOW, "tile %u: DWT scratch overflows", tile);
        goto out;
    }
    if ((st = tsr__alloc(ctx, sbytes, (void **)&scratch)))
        goto out;
    for (uint32_t c = 0; c < t->ncomps; c++) {
        tsr__j2k_tilecomp *tc = &t->comps[c];
        if (tc->skip)
            continue;
        const uint32_t nres = tc->dec_res - (below ? 2 : banded ? 1 : 0);
        if (tcp->tccps[c].qmfbid == 1)
            tsr__dwt53_inverse2(tc, nres, scratch, threads);
        else
            tsr__dwt97_inverse2(tc, nres, scratch, threads);
    }
    /* Inverse colour transform (G.2 / G.3) and output. */
    if ((st = tsr__j2k_mct_check(ctx, &o, tile)))
        goto out;
    if ((st = tsr__alloc(ctx, (size_t)t->ncomps * (sizeof *plans + sizeof *outs), (void **)&plans)))
        goto out;
    outs = (uint32_t *)(plans + t->ncomps);
    uint32_t nout = 0;
    for (uint32_t c = 0; c < t->ncomps; c++)
        if (!t->comps[c].skip) {
            plans[c] = tsr__j2k_store_plan_make(&t->comps[c], &cs->comps[c],
                                                tcp->tccps[c].qmfbid != 1, &d->dst[c]);
            if (is_output(d, c))
                outs[nout++] = c;
        }
    if (d->img) /* the image's channels in channel order */
        for (nout = 0; nout < d->pix.n; nout++)
            outs[nout] = d->img_comp[nout];
    const int rev = tcp->tccps[0].qmfbid == 1;
    if (banded)
        st = output_bands(d, tcp, t, &o.t2, &jobs, bands, below, plans, outs, nout, rgb, scratch,
                          per, threads, ws);
    else
        output_tile(d, t, plans, outs, nout, rgb, rev, threads);
out:
    tsr__j2k_jobs_free(ctx, &jobs);
    tsr__free(ctx, bands);
    tsr__free(ctx, bmem);
    tsr__free(ctx, ring);
    tsr__free(ctx, plans);
    tsr__free(ctx, scratch);
    tsr__j2k_tile_close(ctx, &o);
    return st;
}
