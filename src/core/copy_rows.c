/* tsr__copy_rows (copy_rows.h): contiguous runs of rows split over the context's threads. */
#include "core/copy_rows.h"

#include <string.h>

enum { TSR__COPY_SERIAL_BYTES = 1 << 20, TSR__COPY_PART_BYTES = 1 << 19 };

void tsr__copy_rows(const tsr_ctx *ctx, void *dst, size_t dstride, const void *src, size_t sstride,
                    size_t row_bytes, size_t rows)
{
    const size_t total = row_bytes * rows;
    int parts = total < TSR__COPY_SERIAL_BYTES ? 1 : (int)(total / TSR__COPY_PART_BYTES);
    if (parts > ctx->threads)
        parts = ctx->threads;
    if (parts > (int)rows)
        parts = (int)rows;
    if (parts <= 1) {
        if (dstride == row_bytes && sstride == row_bytes) {
            memcpy(dst, src, total);
            return;
        }
        for (size_t y = 0; y < rows; y++)
            memcpy((unsigned char *)dst + y * dstride, (const unsigned char *)src + y * sstride,
                   row_bytes);
        return;
    }
#pragma omp parallel for num_threads(parts) schedule(static)
    for (int p = 0; p < parts; p++) {
        const size_t y0 = rows * (size_t)p / (size_t)parts,
                     y1 = rows * (size_t)(p + 1) / (size_t)parts;
        for (size_t y = y0; y < y1; y++)
            memcpy((unsigned char *)dst + y * dstride, (const unsigned char *)src + y * sstride,
                   row_bytes);
    }
}
