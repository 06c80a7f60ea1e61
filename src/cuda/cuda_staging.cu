/* Chunked staging of host rows through page-locked memory (cuda_internal.cuh): the context's
 * threads copy a chunk while the copy engine moves the one before it; through a buffer of the
 * image's size (tsr__cuda_stage_*) or a small ring of slots (tsr__cuda_ring_*). */
#include "core/copy_rows.h"
#include "cuda/cuda_internal.cuh"

#include <string.h>

/* Chunks of at least 8 MiB, at most TSR__STAGE_CHUNKS of them: a smaller chunk's copy runs on
 * fewer threads (tsr__copy_rows gives each 512 KB) and costs more than the overlap with the DMA
 * saves (bench/notes/resize.md has the measurements). */
static size_t chunk_rows(size_t row, size_t rows)
{
    const size_t min_bytes = (size_t)8 << 20;
    size_t by_count = (rows + TSR__STAGE_CHUNKS - 1) / TSR__STAGE_CHUNKS;
    size_t by_bytes = row ? (min_bytes + row - 1) / row : rows;
    size_t n = by_count > by_bytes ? by_count : by_bytes;
    return n ? n : 1;
}

tsr_status tsr__cuda_stage_upload(tsr_ctx *ctx, void *dev, void *pin, const void *host,
                                  size_t hstride, size_t row, size_t rows, cudaStream_t stream)
{
    const size_t step = chunk_rows(row, rows);
    for (size_t y = 0; y < rows; y += step) {
        const size_t n = rows - y < step ? rows - y : step;
        unsigned char *p = (unsigned char *)pin + y * row;
        tsr__copy_rows(ctx, p, row, (const unsigned char *)host + y * hstride, hstride, row, n);
        TSR_CUDA_TRY(ctx, cudaMemcpyAsync((unsigned char *)dev + y * row, p, n * row,
                                          cudaMemcpyHostToDevice, stream));
    }
    return TSR_OK;
}

tsr_status tsr__cuda_stage_download(tsr_ctx *ctx, tsr__cuda_staging *s, void *host, size_t hstride,
                                    void *pin, const void *dev, size_t row, size_t rows,
                                    cudaStream_t stream)
{
    const size_t step = chunk_rows(row, rows);
    const int chunks = rows ? (int)((rows + step - 1) / step) : 0;
    while (s->nevents < chunks) {
        TSR_CUDA_TRY(ctx, cudaEventCreateWithFlags(&s->done[s->nevents], cudaEventDisableTiming));
        s->nevents++;
    }
    s->pending = 0;
    for (int c = 0; c < chunks; c++) {
        const size_t y = (size_t)c * step, n = rows - y < step ? rows - y : step;
        TSR_CUDA_TRY(ctx, cudaMemcpyAsync((unsigned char *)pin + y * row,
                                          (const unsigned char *)dev + y * row, n * row,
                                          cudaMemcpyDeviceToHost, stream));
        TSR_CUDA_TRY(ctx, cudaEventRecord(s->done[c], stream));
        s->pending = c + 1;
    }
    s->chunk_rows = step, s->rows = rows, s->row = row, s->hstride = hstride;
    s->host = host, s->pin = (const unsigned char *)pin;
    return TSR_OK;
}

tsr_status tsr__cuda_stage_finish(tsr_ctx *ctx, tsr__cuda_staging *s)
{
    const int chunks = s->pending;
    s->pending = 0;
    for (int c = 0; c < chunks; c++) {
        const size_t y = (size_t)c * s->chunk_rows;
        const size_t n = s->rows - y < s->chunk_rows ? s->rows - y : s->chunk_rows;
        TSR_CUDA_TRY(ctx, cudaEventSynchronize(s->done[c]));
        tsr__copy_rows(ctx, (unsigned char *)s->host + y * s->hstride, s->hstride,
                       s->pin + y * s->row, s->row, s->row, n);
    }
    return TSR_OK;
}

tsr_status tsr__cuda_stage_discard(tsr_ctx *ctx, tsr__cuda_staging *s)
{
    const int chunks = s->pending;
    s->pending = 0;
    for (int c = 0; c < chunks; c++)
        TSR_CUDA_TRY(ctx, cudaEventSynchronize(s->done[c]));
    return TSR_OK;
}

void tsr__cuda_staging_free(tsr__cuda_staging *s)
{
    for (int c = 0; c < s->nevents; c++)
        cudaEventDestroy(s->done[c]);
    memset(s, 0, sizeof *s);
}

/* The ring's slots for rows of `row` bytes (allocated or grown here) and the rows a slot holds. */
static tsr_status ring_reserve(tsr_ctx *ctx, tsr__cuda_ring *r, size_t row, size_t *slot_rows)
{
    const size_t slot = row > (size_t)TSR__RING_SLOT_BYTES ? row : (size_t)TSR__RING_SLOT_BYTES;
    tsr_status st = tsr__cuda_host_buffer_reserve(ctx, &r->pin, slot * TSR__RING_SLOTS);
    if (st != TSR_OK)
        return st;
    r->slot = slot;
    while (r->nevents < TSR__RING_SLOTS) {
        TSR_CUDA_TRY(ctx, cudaEventCreateWithFlags(&r->done[r->nevents], cudaEventDisableTiming));
        r->nevents++;
    }
    *slot_rows = row ? slot / row : 1;
    return TSR_OK;
}

tsr_status tsr__cuda_ring_upload(tsr_ctx *ctx, tsr__cuda_ring *r, void *dev, size_t dstride,
                                 const void *host, size_t hstride, size_t row, size_t rows,
                                 cudaStream_t stream)
{
    size_t step;
    tsr_status st = ring_reserve(ctx, r, row, &step);
    if (st != TSR_OK)
        return st;
    for (size_t y = 0, k = 0; y < rows; y += step, k++) {
        const size_t n = rows - y < step ? rows - y : step;
        unsigned char *slot = (unsigned char *)r->pin.ptr + (k % TSR__RING_SLOTS) * r->slot;
        /* the slot's previous copy (of this call or an earlier one) has left it; an event never
           recorded is complete */
        TSR_CUDA_TRY(ctx, cudaEventSynchronize(r->done[k % TSR__RING_SLOTS]));
        tsr__copy_rows(ctx, slot, row, (const unsigned char *)host + y * hstride, hstride, row, n);
        TSR_CUDA_TRY(ctx, cudaMemcpy2DAsync((unsigned char *)dev + y * dstride, dstride, slot, row,
                                            row, n, cudaMemcpyHostToDevice, stream));
        TSR_CUDA_TRY(ctx, cudaEventRecord(r->done[k % TSR__RING_SLOTS], stream));
    }
    return TSR_OK;
}

tsr_status tsr__cuda_ring_download(tsr_ctx *ctx, tsr__cuda_ring *r, void *host, size_t hstride,
                                   const void *dev, size_t dstride, size_t row, size_t rows,
                                   cudaStream_t stream)
{
    size_t step;
    tsr_status st = ring_reserve(ctx, r, row, &step);
    if (st != TSR_OK)
        return st;
    const size_t chunks = rows ? (rows + step - 1) / step : 0;
    /* chunk k goes into slot k % SLOTS; it is queued once chunk k - SLOTS has been copied out */
    for (size_t k = 0; k < chunks + TSR__RING_SLOTS; k++) {
        if (k >= TSR__RING_SLOTS && k - TSR__RING_SLOTS < chunks) {
            const size_t j = k - TSR__RING_SLOTS, y = j * step;
            const size_t n = rows - y < step ? rows - y : step;
            TSR_CUDA_TRY(ctx, cudaEventSynchronize(r->done[j % TSR__RING_SLOTS]));
            tsr__copy_rows(ctx, (unsigned char *)host + y * hstride, hstride,
                           (const unsigned char *)r->pin.ptr + (j % TSR__RING_SLOTS) * r->slot, row,
                           row, n);
        }
        if (k < chunks) {
            const size_t y = k * step, n = rows - y < step ? rows - y : step;
            unsigned char *slot = (unsigned char *)r->pin.ptr + (k % TSR__RING_SLOTS) * r->slot;
            TSR_CUDA_TRY(ctx, cudaMemcpy2DAsync(slot, row, (const unsigned char *)dev + y * dstride,
                                                dstride, row, n, cudaMemcpyDeviceToHost, stream));
            TSR_CUDA_TRY(ctx, cudaEventRecord(r->done[k % TSR__RING_SLOTS], stream));
        }
    }
    return TSR_OK;
}

void tsr__cuda_ring_free(tsr__cuda_ring *r)
{
    for (int i = 0; i < r->nevents; i++)
        cudaEventDestroy(r->done[i]);
    tsr__cuda_host_buffer_free(&r->pin);
    memset(r, 0, sizeof *r);
}
