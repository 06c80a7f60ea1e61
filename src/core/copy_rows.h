/* Copying the rows of an image between buffers on the context's threads: the host side of
 * staging through page-locked memory, where one thread's memcpy (about 10 GB/s) is slower than
 * the PCIe copy it feeds. */
#ifndef TSR_CORE_COPY_ROWS_H
#define TSR_CORE_COPY_ROWS_H

#include "core/ctx.h"

#ifdef __cplusplus
extern "C" {
#endif

/* rows rows of row_bytes bytes from src (sstride apart) to dst (dstride apart); the buffers do
 * not overlap. Below about a MiB in all it copies on the calling thread. */
void tsr__copy_rows(const tsr_ctx *ctx, void *dst, size_t dstride, const void *src, size_t sstride,
                    size_t row_bytes, size_t rows);

#ifdef __cplusplus
}
#endif
#endif
