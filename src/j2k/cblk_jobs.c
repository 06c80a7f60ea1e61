/* The code-blocks of a tile as jobs (decode.c runs them): contributions gathered per block,
 * decoded by t1 (t1.h), dequantised (irreversible: E.1.1.2), in parallel. Jobs are ordered by a
 * key (0 for all, or the band-row group of a block of a resolution decoded in bands, bands.c)
 * so that a caller can run them group by group. */
#include "j2k/decode_stages.h"
#include "j2k/fast_coder.h"
#include "j2k/t1.h"
#include "j2k/t1_internal.h"

#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

struct tsr__j2k_job {
    uint32_t gidx;
    uint16_t comp;
    uint8_t empty; /* no contribution: its coefficients are zeroed */
    const tsr__j2k_band *band;
    int32_t *out; /* the block's first coefficient */
    size_t stride;
};

void tsr__j2k_jobs_free(tsr_ctx *ctx, tsr__j2k_jobs *J)
{
    tsr__free(ctx, J->first);
    tsr__free(ctx, J->order);
    tsr__free(ctx, J->jobs);
    tsr__free(ctx, J->key_first);
    tsr__free(ctx, J->buf);
    tsr__free(ctx, J->segs);
    memset(J, 0, sizeof *J);
}

/* Where code-block cb of band `band` (resolution r of component c) goes and its key. */
static void place(const tsr__j2k_tile *t, const tsr__j2k_bands *bands, const tsr__j2k_bands *below,
                  uint32_t c, uint32_t r, const tsr__j2k_band *band, const tsr__j2k_cblk *cb,
                  int32_t **out, size_t *stride, uint32_t *key)
{
    const tsr__j2k_tilecomp *tc = &t->comps[c];
    const tsr__j2k_bands *bb = bands ? &bands[c] : NULL;
    uint32_t key0 = 1;
    if (bb && below && r == below[c].r) {
        key0 += bb->g_last - bb->g_first + 1u; /* after the top's groups */
        bb = &below[c];
    }
    if (bb && r == bb->r) {
        *out = tsr__j2k_bands_at(bb, band->orient - 1u, cb->y0) + (cb->x0 - band->x0);
        *stride = bb->rw;
        *key = cb->y0 / bb->G - bb->g_first + key0;
        return;
    }
    /* the deinterleaved layout of resolution r */
    size_t xoff = cb->x0 - band->x0, yoff = cb->y0 - band->y0;
    if (r > 0) {
        const tsr__j2k_res *low = &tc->res[r - 1];
        if (band->orient & 1)
            xoff += low->x1 - low->x0;
        if (band->orient & 2)
            yoff += low->y1 - low->y0;
    }
    *out = tc->data + yoff * tc->stride + xoff;
    *stride = tc->stride;
    *key = 0;
}

tsr_status tsr__j2k_jobs_make(tsr_ctx *ctx, const tsr__j2k_tile *t, const tsr__j2k_t2 *t2,
                              const tsr__j2k_bands *bands, const tsr__j2k_bands *below,
                              uint32_t nkeys, int threads, tsr__j2k_jobs *J)
{
    tsr_status st;
    memset(J, 0, sizeof *J);
    uint32_t *keys = NULL;
    size_t nb = (size_t)t->ncblks + 1;
    if ((st = tsr__alloc(ctx, nb * sizeof *J->first, (void **)&J->first)))
        goto out;
    memset(J->first, 0, nb * sizeof *J->first);
    if ((st = tsr__alloc(ctx, (t2->nchunks ? t2->nchunks : 1) * sizeof *J->order,
                         (void **)&J->order)))
        goto out;
    /* Counting sort of the chunks by code-block, stable (layer order kept). */
    for (uint32_t i = 0; i < t2->nchunks; i++)
        J->first[t2->chunks[i].cblk + 1]++;
    for (size_t i = 1; i < nb; i++)
        J->first[i] += J->first[i - 1];
    {
        uint32_t *fill;
        if ((st = tsr__alloc(ctx, nb * sizeof *fill, (void **)&fill)))
            goto out;
        memcpy(fill, J->first, nb * sizeof *fill);
        for (uint32_t i = 0; i < t2->nchunks; i++)
            J->order[fill[t2->chunks[i].cblk]++] = i;
        tsr__free(ctx, fill);
    }
    /* Jobs: the code-blocks in decoded resolutions of requested components. Those without
     * contributions are zeroed, so that every coefficient is written (no buffer is cleared
     * beforehand). Then sorted by key, stable. */
    size_t njobs = 0, maxlen = 1;
    struct tsr__j2k_job *unsorted = NULL;
    if ((st = tsr__alloc(ctx, nb * sizeof *unsorted, (void **)&unsorted)))
        goto out;
    if ((st = tsr__alloc(ctx, nb * sizeof *keys, (void **)&keys))) {
        tsr__free(ctx, unsorted);
        goto out;
    }
    for (uint32_t c = 0; c < t->ncomps; c++) {
        const tsr__j2k_tilecomp *tc = &t->comps[c];
        if (tc->skip)
            continue;
        for (uint32_t r = 0; r < tc->dec_res; r++)
            for (uint32_t b = 0; b < tc->res[r].nbands; b++) {
                const tsr__j2k_band *band = &tc->res[r].bands[b];
                for (uint32_t i = 0; i < band->ncblks; i++) {
                    uint32_t g = band->cblk_base + i;
                    size_t len = 0;
                    for (uint32_t k = J->first[g]; k < J->first[g + 1]; k++)
                        len += t2->chunks[J->order[k]].len;
                    if (len > maxlen)
                        maxlen = len;
                    struct tsr__j2k_job *jb = &unsorted[njobs];
                    jb->gidx = g;
                    jb->comp = (uint16_t)c;
                    jb->band = band;
                    jb->empty = J->first[g + 1] == J->first[g];
                    place(t, bands, below, c, r, band, t->cblk_ptr[g], &jb->out, &jb->stride,
                          &keys[njobs]);
                    njobs++;
                }
            }
    }
    st = tsr__alloc(ctx, (njobs ? njobs : 1) * sizeof *J->jobs, (void **)&J->jobs);
    if (!st)
        st = tsr__alloc(ctx, ((size_t)nkeys + 1) * sizeof *J->key_first, (void **)&J->key_first);
    if (!st) {
        memset(J->key_first, 0, ((size_t)nkeys + 1) * sizeof *J->key_first);
        for (size_t j = 0; j < njobs; j++)
            J->key_first[keys[j] + 1]++;
        for (uint32_t k = 1; k <= nkeys; k++)
            J->key_first[k] += J->key_first[k - 1];
        size_t *fill = NULL;
        st = tsr__alloc(ctx, ((size_t)nkeys + 1) * sizeof *fill, (void **)&fill);
        if (!st) {
            memcpy(fill, J->key_first, ((size_t)nkeys + 1) * sizeof *fill);
            for (size_t j = 0; j < njobs; j++)
                J->jobs[fill[keys[j]]++] = unsorted[j];
            tsr__free(ctx, fill);
        }
    }
    tsr__free(ctx, unsorted);
    if (st)
        goto out;
    J->njobs = njobs;
    J->nkeys = nkeys;
    J->maxlen = maxlen;
    if ((st = tsr__alloc(ctx, (size_t)threads * (maxlen + 8), (void **)&J->buf)))
        goto out;
    if ((st = tsr__alloc(ctx, (size_t)threads * TSR__T1_MAX_SEGS * sizeof *J->segs,
                         (void **)&J->segs)))
        goto out;
out:
    tsr__free(ctx, keys);
    if (st)
        tsr__j2k_jobs_free(ctx, J);
    return st;
}

/* decode_stages.h */
int tsr__j2k_jobs_block(const tsr__j2k_jobs *J, const tsr__j2k_tcp *tcp, const tsr__j2k_tile *t,
                        const tsr__j2k_t2 *t2, size_t j, uint8_t *buf, int copy_single,
                        tsr__t1_seg *segs, tsr__t1_block *blk, int32_t **out, size_t *stride,
                        float *scale)
{
    const struct tsr__j2k_job *jb = &J->jobs[j];
    const tsr__j2k_cblk *cb = t->cblk_ptr[jb->gidx];
    const tsr__j2k_tccp *tccp = &tcp->tccps[jb->comp];
    const tsr__j2k_band *band = jb->band;
    *out = jb->out;
    *stride = jb->stride;
    *scale = band->delta * 0.5f; /* E.1.1.2: value = (q + r) * delta; t1 gives 2(q + r) */
    memset(blk, 0, sizeof *blk);
    blk->w = cb->x1 - cb->x0;
    blk->h = cb->y1 - cb->y0;
    blk->reversible = tccp->qmfbid == 1;
    if (jb->empty)
        return 1;
    /* A block's only chunk is read where it is unless copy_single (t1.h reads a segment only
     * inside [data, data + len)). */
    const int single = !copy_single && J->first[jb->gidx + 1] - J->first[jb->gidx] == 1;
    uint32_t nsegs = 0, npasses = 0;
    size_t at = 0;
    for (uint32_t k = J->first[jb->gidx]; k < J->first[jb->gidx + 1]; k++) {
        const tsr__j2k_chunk *ch = &t2->chunks[J->order[k]];
        if (ch->segno >= TSR__T1_MAX_SEGS)
            return -1;
        while (nsegs <= ch->segno) {
            segs[nsegs].data = buf + at;
            segs[nsegs].len = 0;
            segs[nsegs].npasses = 0;
            nsegs++;
        }
        if (single) {
            segs[ch->segno].data = ch->ptr;
        } else {
            memcpy(buf + at, ch->ptr, ch->len);
            at += ch->len;
        }
        segs[ch->segno].len += ch->len;
        segs[ch->segno].npasses += ch->passes;
        npasses += ch->passes;
    }
    blk->orient = band->orient;
    blk->style = (uint8_t)(cb->is_ht ? (tccp->cblksty | TSR__T1_STYLE_HT) : (tccp->cblksty & 0x3f));
    blk->zero_bp = cb->zero_bp;
    blk->mb = (uint8_t)band->mb;
    blk->roi_shift = tccp->roishift;
    blk->npasses = npasses;
    blk->nsegs = nsegs;
    blk->segs = segs;
    return 0;
}

/* decode_stages.h */
void tsr__j2k_jobs_count(tsr__j2k_jobs *J, int rc)
{
    if (rc == TSR__T1_WARN) {
#pragma omp atomic
        J->nwarn_blocks++;
    } else if (rc == TSR__T1_CORRUPT) {
#pragma omp atomic
        J->ncorrupt++;
    } else if (rc != TSR__T1_OK) {
#pragma omp critical(tsr_j2k_fatal)
        if (!J->fatal)
            J->fatal = rc == TSR__T1_UNSUPPORTED ? TSR_ERR_UNSUPPORTED : TSR_ERR_INTERNAL;
    }
}

/* Job j on the calling OpenMP thread (its buffers and t1 workspace); counts and the fatal
 * error go to J. */
static void run_job(tsr__j2k_jobs *J, const tsr__j2k_tcp *tcp, const tsr__j2k_tile *t,
                    const tsr__j2k_t2 *t2, size_t j, void *ws, size_t ws_size)
{
    int tid = 0;
#ifdef _OPENMP
    tid = omp_get_thread_num();
#endif
    tsr__t1_block blk;
    int32_t *out;
    size_t stride;
    float scale;
    const int got =
        tsr__j2k_jobs_block(J, tcp, t, t2, j, J->buf + (size_t)tid * (J->maxlen + 8), 0,
                            J->segs + (size_t)tid * TSR__T1_MAX_SEGS, &blk, &out, &stride, &scale);
    if (got) {
        for (uint32_t y = 0; y < blk.h; y++)
            memset(out + (size_t)y * stride, 0, blk.w * sizeof *out);
        if (got < 0)
            tsr__j2k_jobs_count(J, TSR__T1_CORRUPT);
        return;
    }
    /* The block's output rows are far apart (a tile-component row each); fetching their
     * cache lines for writing now lets the decoder's stores, which come at its end, hit
     * the cache instead of stalling on each line. */
    for (uint32_t y = 0; y < blk.h; y++)
        for (uint32_t x = 0; x < blk.w; x += 64 / sizeof *out)
            __builtin_prefetch(out + (size_t)y * stride + x, 1, 3);
    unsigned wbits = 0;
    void *tws = (char *)ws + (size_t)tid * ws_size;
    tsr__j2k_jobs_count(J, tcp->fast_ns ? tsr__fns_decode(&blk, tws, ws_size, out, stride)
                                        : tsr__t1_decode(&blk, tws, ws_size, out, stride, &wbits));
    if (!blk.reversible) {
        for (uint32_t y = 0; y < blk.h; y++) {
            int32_t *row = out + (size_t)y * stride;
            float *f = (float *)row;
            for (uint32_t x = 0; x < blk.w; x++)
                f[x] = (float)row[x] * scale;
        }
    }
}

void tsr__j2k_jobs_run(tsr__j2k_jobs *J, const tsr__j2k_tcp *tcp, const tsr__j2k_tile *t,
                       const tsr__j2k_t2 *t2, uint32_t key, int threads, void *ws, size_t ws_size)
{
    const size_t j0 = J->key_first[key], j1 = J->key_first[key + 1];
    (void)threads;
#pragma omp parallel for schedule(dynamic, 4) num_threads(threads) if (threads > 1 && j1 - j0 > 8)
    for (size_t j = j0; j < j1; j++)
        run_job(J, tcp, t, t2, j, ws, ws_size);
}

void tsr__j2k_jobs_run_team(tsr__j2k_jobs *J, const tsr__j2k_tcp *tcp, const tsr__j2k_tile *t,
                            const tsr__j2k_t2 *t2, uint32_t key, void *ws, size_t ws_size)
{
    const size_t j0 = J->key_first[key], j1 = J->key_first[key + 1];
#pragma omp for schedule(dynamic, 4) nowait
    for (size_t j = j0; j < j1; j++)
        run_job(J, tcp, t, t2, j, ws, ws_size);
}

tsr_status tsr__j2k_jobs_report(tsr_ctx *ctx, const tsr__j2k_jobs *J, uint32_t tile,
                                tsr__j2k_warn *warn, uint32_t pos)
{
    if (J->fatal)
        return tsr__fail(ctx, J->fatal,
                         J->fatal == TSR_ERR_UNSUPPORTED
                             ? "tile %u: a code-block uses an unsupported feature"
                             : "tile %u: the code-block decoder rejected its input",
                         tile);
    if (J->nwarn_blocks)
        tsr__j2k_warn_at(warn, pos, "tile %u: %u code-blocks had inconsistent data", tile,
                         J->nwarn_blocks);
    if (J->ncorrupt)
        tsr__j2k_warn_at(warn, pos == UINT32_MAX || !J->nwarn_blocks ? pos : pos + 1,
                         "tile %u: %u code-blocks could not be decoded", tile, J->ncorrupt);
    return TSR_OK;
}

tsr_status tsr__j2k_jobs_finish(tsr_ctx *ctx, const tsr__j2k_jobs *J, const tsr__j2k_tile *t,
                                tsr__j2k_warn *warn)
{
    return tsr__j2k_jobs_report(ctx, J, t->index, warn, UINT32_MAX);
}
