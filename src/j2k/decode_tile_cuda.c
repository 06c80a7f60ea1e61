/* One tile of a JPEG 2000 decode on CUDA (decode_int.h's tsr__j2k_decode_tile_cuda): its packets
 * read on the host as on the CPU (tsr__j2k_tile_open), its code-blocks' segments gathered into
 * page-locked staging (tsr__j2k_jobs_block, the CPU's own gathering), the blocks decoded on the
 * device into the tile's coefficients (t1_cuda.h), the inverse DWT of each tile-component, the
 * colour transform and the output pixels into the decode's device image (xform_cuda.h). The
 * same values as the CPU path at every stage; the errors and warnings are the CPU's, counted
 * from the blocks' status words, which nothing waits for before the transforms are queued: they
 * are collected when their slot of buffers comes round again or at the decode's end
 * (tsr__j2k_cuda_frame_end). */
#include "j2k/decode_cuda.h"
#include "j2k/decode_int.h"
#include "j2k/t1.h"
#include "j2k/xform_cuda.h"

#include <string.h>

/* The tile-components' coefficients side by side in one device buffer: tc->data points into it
 * (device addresses, which the host only offsets), each part on whole 64-byte lines. */
static size_t coef_layout(const tsr__j2k_tile *t, int32_t *base)
{
    size_t at = 0;
    for (uint32_t c = 0; c < t->ncomps; c++) {
        tsr__j2k_tilecomp *tc = &t->comps[c];
        if (tc->skip)
            continue;
        if (base) {
            tc->data = base + at;
            tc->stride = tc->data_w;
            tc->external = 1;
        }
        at += tsr__j2k_line_words(tc->data_w * tc->data_h);
    }
    return at;
}

/* The code-blocks of the tile queued for decoding on the device from `slot`'s buffers; blocks
 * found corrupt on the host counted in J as tsr__j2k_jobs_run counts them, the device's counted
 * into f once their status words are back. */
static tsr_status decode_blocks(tsr_ctx *ctx, const tsr__j2k_open_tile *o, tsr__j2k_jobs *J,
                                const tsr__j2k_cuda_tile *g, uint32_t slot, size_t data_bytes,
                                uint32_t nsegs_max, tsr__j2k_cuda_frame *f)
{
    size_t at = 0;
    uint32_t nsegs = 0;
    for (size_t j = 0; j < J->njobs; j++) {
        tsr__t1_block blk;
        int32_t *out;
        size_t stride;
        float scale;
        const int got = tsr__j2k_jobs_block(J, &o->tcp, &o->t, &o->t2, j, g->data + at, 1, J->segs,
                                            &blk, &out, &stride, &scale);
        tsr__t1_dev_job *dj = &g->jobs[j];
        memset(dj, 0, sizeof *dj);
        dj->out = (uint64_t)(out - g->coef);
        dj->stride = (uint32_t)stride;
        dj->w = (uint16_t)blk.w;
        dj->h = (uint16_t)blk.h;
        dj->reversible = blk.reversible;
        dj->scale = scale;
        dj->seg0 = nsegs;
        if (got) {
            dj->zero = 1;
            if (got < 0)
                tsr__j2k_jobs_count(J, TSR__T1_CORRUPT);
            continue;
        }
        if (nsegs + blk.nsegs > nsegs_max)
            return tsr__fail(ctx, TSR_ERR_INTERNAL, "tile %u: more segments than counted",
                             o->t.index);
        dj->nsegs = (uint16_t)blk.nsegs;
        dj->npasses = (uint16_t)blk.npasses;
        dj->orient = blk.orient;
        dj->style = blk.style;
        dj->zero_bp = blk.zero_bp;
        dj->mb = blk.mb;
        dj->roi_shift = blk.roi_shift;
        for (uint32_t k = 0; k < blk.nsegs; k++, nsegs++) {
            g->segs[nsegs].off = (uint64_t)(blk.segs[k].data - g->data);
            g->segs[nsegs].len = blk.segs[k].len;
            g->segs[nsegs].npasses = blk.segs[k].npasses;
            at += blk.segs[k].len;
        }
    }
    if (at > data_bytes)
        return tsr__fail(ctx, TSR_ERR_INTERNAL, "tile %u: more code-block bytes than counted",
                         o->t.index);
    f->tiles[slot].tile = o->t.index;
    f->tiles[slot].njobs = (uint32_t)J->njobs;
    f->tiles[slot].warn_pos = f->warn->count - f->added;
    f->tiles[slot].ncorrupt = J->ncorrupt;
    return tsr__j2k_cuda_blocks(ctx, slot, (uint32_t)J->njobs, nsegs, f);
}

/* Waits for the status words of the tile in `slot` (a tile of f) and counts them into f: the
 * first fatal one's error kept, the warnings counted at their place in the CPU's order. */
static tsr_status collect(tsr_ctx *ctx, uint32_t slot, tsr__j2k_cuda_frame *f)
{
    const uint32_t *status;
    const tsr__t1_dev_job *jobs;
    tsr_status st = tsr__j2k_cuda_slot_wait(ctx, slot, &status, &jobs);
    if (st)
        return st;
    /* the tile's counts as tsr__j2k_jobs_run makes them (tsr__j2k_jobs_report reads only them) */
    tsr__j2k_jobs J;
    memset(&J, 0, sizeof J);
    J.ncorrupt = f->tiles[slot].ncorrupt;
    for (uint32_t j = 0; j < f->tiles[slot].njobs; j++)
        if (!jobs[j].zero)
            tsr__j2k_jobs_count(&J, (int)(int8_t)(status[j] & 0xff));
    if (f->fatal)
        return TSR_OK; /* an earlier tile has failed the decode */
    if (J.fatal) {
        f->fatal = J.fatal;
        f->fatal_tile = f->tiles[slot].tile;
        return TSR_OK;
    }
    const uint32_t before = f->warn->count;
    st = tsr__j2k_jobs_report(ctx, &J, f->tiles[slot].tile, f->warn,
                              f->tiles[slot].warn_pos + f->added);
    f->added += f->warn->count - before;
    return st;
}

/* decode_int.h */
tsr_status tsr__j2k_cuda_frame_end(tsr_ctx *ctx, tsr__j2k_cuda_frame *f, tsr_status st)
{
    /* every slot of f is released, also after a failure (f may not outlive this call) */
    tsr_status failed = TSR_OK;
    for (uint32_t k = 0; k < TSR__J2K_CUDA_SLOTS; k++) {
        void *owner;
        const uint32_t slot = tsr__j2k_cuda_slot_peek(ctx, k, &owner);
        if (owner != f)
            continue;
        const tsr_status c = collect(ctx, slot, f);
        failed = failed ? failed : c;
    }
    if (failed)
        return failed;
    if (f->fatal) {
        tsr__j2k_jobs J;
        memset(&J, 0, sizeof J);
        J.fatal = f->fatal;
        return tsr__j2k_jobs_report(ctx, &J, f->fatal_tile, NULL, 0);
    }
    return st;
}

/* The colour transform and the pixels of the tile's region into the device image. */
static tsr_status output(tsr__j2k_dec *d, const tsr__j2k_open_tile *o,
                         const tsr__j2k_cuda_image *img)
{
    const tsr__j2k_tile *t = &o->t;
    tsr__j2k_dev_output out;
    memset(&out, 0, sizeof out);
    out.nchan = d->pix.n;
    out.wide = d->pix.wide;
    out.exact = d->pix.exact;
    for (uint32_t i = 0; i < d->pix.n; i++) {
        const uint32_t c = d->img_comp[i];
        const tsr__j2k_store_plan p = tsr__j2k_store_plan_make(
            &t->comps[c], &d->s->cs.comps[c], o->tcp.tccps[c].qmfbid != 1, &d->dst[c]);
        if (i == 0) {
            if (p.x1 <= p.x0 || p.y1 <= p.y0)
                return TSR_OK; /* the tile has no pixels of the image */
            out.x0 = p.x0;
            out.y0 = p.y0;
            out.x1 = p.x1;
            out.y1 = p.y1;
            out.dst_x0 = p.p->x0;
            out.dst_y0 = p.p->y0;
        }
        tsr__j2k_dev_chan *ch = &out.chan[i];
        ch->src = p.src;
        ch->src_stride = p.src_stride;
        ch->src_x0 = p.src_x0;
        ch->src_y0 = p.src_y0;
        ch->lo = p.lo;
        ch->hi = p.hi;
        ch->shift = p.shift;
        ch->is_float = p.is_float;
        ch->off = d->pix.off[i];
        ch->num = d->pix.num[i];
        ch->den = d->pix.den[i];
        ch->comp = c;
    }
    if (o->rgb) {
        out.mct = o->tcp.tccps[0].qmfbid == 1 ? 1 : 2;
        for (uint32_t c = 0; c < 3; c++) {
            out.mct_src[c] = t->comps[c].data;
            out.mct_stride[c] = t->comps[c].stride;
        }
    }
    out.dst = img->data;
    out.dst_stride = img->stride;
    return tsr__j2k_output_cuda(d->ctx, &out);
}

/* decode_int.h */
tsr_status tsr__j2k_decode_tile_cuda(tsr__j2k_dec *d, uint32_t tile, const tsr__j2k_cuda_image *img,
                                     tsr__j2k_cuda_frame *f)
{
    tsr_ctx *ctx = d->ctx;
    tsr__j2k_jobs jobs;
    memset(&jobs, 0, sizeof jobs);
    tsr__j2k_open_tile o;
    tsr_status st = tsr__j2k_tile_open(d, tile, &o);
    if (st)
        return st;
    if ((st = tsr__j2k_mct_check(ctx, &o, tile)))
        goto out;
    /* staging sizes: every contributed byte once; a block's segments, the empty ones its
     * segment numbers skip included, are at most the sum of its chunks' (segno + 1); jobs are at
     * most the tile's code-blocks */
    size_t data_bytes = 0;
    for (uint32_t i = 0; i < o.t2.nchunks; i++)
        data_bytes += o.t2.chunks[i].len;
    uint64_t nsegs_max = 0;
    for (uint32_t i = 0; i < o.t2.nchunks; i++)
        nsegs_max += (uint64_t)o.t2.chunks[i].segno + 1;
    if (nsegs_max > UINT32_MAX) {
        st = tsr__fail(ctx, TSR_ERR_UNSUPPORTED, "tile %u: too many code-block segments", tile);
        goto out;
    }
    /* the slot's earlier tile (of this decode or of a batch's previous frame) counted first */
    uint32_t slot;
    void *owner;
    if ((st = tsr__j2k_cuda_slot_next(ctx, &slot, &owner)) ||
        (owner && (st = collect(ctx, slot, (tsr__j2k_cuda_frame *)owner))))
        goto out;
    /* the device coefficients first: the jobs' output addresses are made from tc->data */
    tsr__j2k_cuda_tile g;
    if ((st = tsr__j2k_cuda_tile_buffers(ctx, slot, coef_layout(&o.t, NULL), data_bytes, o.t.ncblks,
                                         (uint32_t)nsegs_max, &g)))
        goto out;
    coef_layout(&o.t, g.coef);
    if ((st = tsr__j2k_jobs_make(ctx, &o.t, &o.t2, NULL, NULL, 1, 1, &jobs)))
        goto out;
    if ((st = decode_blocks(ctx, &o, &jobs, &g, slot, data_bytes, (uint32_t)nsegs_max, f)))
        goto out;
    /* the transforms follow the blocks on the stream at once */
    for (uint32_t c = 0; c < o.t.ncomps; c++) {
        const tsr__j2k_tilecomp *tc = &o.t.comps[c];
        if (!tc->skip && (st = tsr__j2k_idwt_cuda(ctx, tc->data, tc->stride, tc->res, tc->dec_res,
                                                  o.tcp.tccps[c].qmfbid == 1)))
            goto out;
    }
    st = output(d, &o, img);
out:
    tsr__j2k_jobs_free(ctx, &jobs);
    tsr__j2k_tile_close(ctx, &o);
    return st;
}
