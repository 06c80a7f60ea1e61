/* Tier-1 on a CUDA device (t1_cuda.h): t1_decode_hd.h and ht_decode_hd.h compiled as device code,
 * one thread per code-block, threads striding over the jobs.
 *
 * Each thread owns a slot of global memory, kept by the context between calls: the tsr__t1_seg
 * table of its current block (the segments' offsets turned into pointers into data) followed by
 * its tsr__t1_ws (64-byte aligned, so the decoder's alignment check passes with the exact
 * size). The decoder's per-pass state lives in registers and a small stack; its sample arrays
 * in the slot. HT blocks use the scalar cleanup pass, the host's reference. */
#include "cuda/cuda_internal.cuh"

extern "C" {
#include "j2k/t1_cuda.h"
}

#define TSR__HT_CLEANUP cleanup
#include "j2k/ht_decode_hd.h"
#define TSR__T1_HT_DECODE ht_decode_block
#include "j2k/t1_decode_hd.h"

enum {
    TPB = 32, /* threads per CUDA block: one warp, so that a frame's few thousand code-blocks
                 spread over every SM (at 128, the 9 k blocks of a 4K frame filled 70 of 132) */
    DEFAULT_THREADS = 132 * 128, /* threads (code-blocks in flight) when the caller leaves it to
                                    us: one each for a 4K frame's; 124 KB of workspace a thread */
    SEG_BYTES = TSR__T1_MAX_SEGS * sizeof(tsr__t1_seg),
    WS_BYTES = sizeof(tsr__t1_ws),
    SLOT_BYTES = (SEG_BYTES + WS_BYTES + 63) / 64 * 64
};
static_assert(SEG_BYTES % 64 == 0, "the workspace must start 64-byte aligned in its slot");

/* (TPB, 1), a minimum of one resident block per SM: ptxas then gives the kernel the registers it
 * needs (no spills); with TPB alone it could stop below that and spill. */
__global__ void __launch_bounds__(TPB, 1)
    k_t1_decode(const tsr__t1_dev_job *__restrict__ jobs, const tsr__t1_dev_seg *__restrict__ segs,
                uint32_t njobs, uint32_t nthreads, const uint8_t *__restrict__ data,
                int32_t *__restrict__ coef, uint32_t *__restrict__ status,
                unsigned char *__restrict__ slots)
{
    const uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= nthreads)
        return;
    unsigned char *slot = slots + (size_t)t * SLOT_BYTES;
    tsr__t1_seg *sg = (tsr__t1_seg *)slot;
    for (uint32_t j = t; j < njobs; j += nthreads) {
        const tsr__t1_dev_job J = jobs[j];
        int32_t *out = coef + J.out;
        if (J.zero) {
            for (uint32_t y = 0; y < J.h; y++)
                for (uint32_t x = 0; x < J.w; x++)
                    out[(size_t)y * J.stride + x] = 0;
            status[j] = 0;
            continue;
        }
        /* more than TSR__T1_MAX_SEGS: the decoder's check rejects the block before any read */
        const uint32_t ns = J.nsegs <= TSR__T1_MAX_SEGS ? J.nsegs : 0;
        for (uint32_t i = 0; i < ns; i++) {
            const tsr__t1_dev_seg s = segs[J.seg0 + i];
            sg[i].data = data + s.off;
            sg[i].len = s.len;
            sg[i].npasses = s.npasses;
        }
        tsr__t1_block b;
        b.w = J.w;
        b.h = J.h;
        b.orient = J.orient;
        b.style = J.style;
        b.zero_bp = J.zero_bp;
        b.mb = J.mb;
        b.roi_shift = J.roi_shift;
        b.reversible = J.reversible;
        b.npasses = J.npasses;
        b.nsegs = J.nsegs;
        b.segs = sg;
        unsigned warn = 0;
        const int rc = t1_decode_block(&b, slot + SEG_BYTES, WS_BYTES, out, J.stride, &warn);
        if (rc != TSR__T1_EINVAL && !J.reversible) /* cblk_jobs.c's scaling */
            for (uint32_t y = 0; y < J.h; y++) {
                int32_t *row = out + (size_t)y * J.stride;
                for (uint32_t x = 0; x < J.w; x++)
                    row[x] = __float_as_int((float)row[x] * J.scale);
            }
        status[j] = warn << 8 | (uint8_t)rc;
    }
}

/* The context's slots (tsr__cuda_buffer; grown, never shrunk). */
struct t1_cuda_state {
    tsr__cuda_buffer slots;
};

static void t1_cuda_state_destroy(tsr_ctx *ctx, void *state)
{
    t1_cuda_state *s = (t1_cuda_state *)state;
    if (ctx->cuda)
        cudaStreamSynchronize(ctx->cuda->stream);
    tsr__cuda_buffer_free(&s->slots);
    tsr__free(ctx, s);
}

static const tsr__ctx_state_kind t1_cuda_kind = {"j2k tier-1 CUDA workspaces",
                                                 t1_cuda_state_destroy};

extern "C" tsr_status tsr__t1_decode_cuda(tsr_ctx *ctx, const tsr__t1_dev_job *jobs,
                                          const tsr__t1_dev_seg *segs, uint32_t njobs,
                                          const uint8_t *data, int32_t *coef, uint32_t *status,
                                          uint32_t max_threads)
{
    if (!ctx->cuda)
        return tsr__fail(ctx, TSR_ERR_NO_BACKEND, "j2k: tier-1: the context has no CUDA device");
    if (njobs == 0)
        return TSR_OK;
    uint32_t threads = max_threads ? max_threads : (uint32_t)DEFAULT_THREADS;
    threads = threads < njobs ? threads : njobs;
    const uint32_t blocks = (threads + TPB - 1) / TPB;
    t1_cuda_state *s;
    tsr_status st = tsr__ctx_state_get(ctx, &t1_cuda_kind, sizeof *s, (void **)&s);
    if (st != TSR_OK)
        return st;
    if ((st = tsr__cuda_buffer_reserve(ctx, &s->slots, (size_t)threads * SLOT_BYTES)))
        return st;
    k_t1_decode<<<blocks, TPB, 0, ctx->cuda->stream>>>(jobs, segs, njobs, threads, data, coef,
                                                       status, (unsigned char *)s->slots.ptr);
    TSR_CUDA_CHECK_LAUNCH(ctx, "k_t1_decode");
    return TSR_OK;
}
