/* Memory access shared by the thread bodies of resize_up2.h and resize_dn32.h, which are
 * compiled as C11 (host, for the CPU tests that run them) and as CUDA C++ (the kernels): the
 * qualifiers, a 32-bit load, the store of one thread's 8 output pixels of one row, and (CUDA
 * only) a warp's stores of such rows through shared memory as contiguous words. */
#ifndef TSR_RESIZE_THREAD_IO_H
#define TSR_RESIZE_THREAD_IO_H

#include <stdint.h>
#include <string.h>

#ifdef __CUDACC__
#define TSR__RT_FN static __host__ __device__ __forceinline__
#define TSR__RT_UNROLL _Pragma("unroll")
#define TSR__RT_RESTRICT __restrict__
#else
#define TSR__RT_FN static inline
#define TSR__RT_UNROLL
#define TSR__RT_RESTRICT restrict
#endif

/* The most channels, and the output pixels a thread stores per row. */
enum { TSR__RT_CNMAX = 4, TSR__RT_PX = 8 };

/* Aligned 32-bit load (memcpy on the host: no aliasing assumptions there). */
TSR__RT_FN uint32_t tsr__rt_ld32(const uint8_t *p)
{
#ifdef __CUDA_ARCH__
    return *(const uint32_t *)p;
#else
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
#endif
}

/* Whether thread t's 8 pixels of a dw-pixel row lie inside it and may be stored as 8-byte
 * words (al: host-checked, the rows start 8-byte aligned). */
TSR__RT_FN int tsr__rt_store8px_whole(int32_t dw, int32_t t, int al)
{
    return al && TSR__RT_PX * t + TSR__RT_PX <= dw;
}

/* Stores 8*cn bytes (packed little-endian in wd[2*cn]) at the 8-byte aligned address d. */
TSR__RT_FN void tsr__rt_store8px_words(uint8_t *TSR__RT_RESTRICT d, int cn, const uint32_t *wd)
{
    TSR__RT_UNROLL
    for (int k = 0; k < TSR__RT_CNMAX; k++)
        if (k < cn) {
            const uint64_t v = (uint64_t)wd[2 * k] | (uint64_t)wd[2 * k + 1] << 32;
#ifdef __CUDA_ARCH__
            *(uint64_t *)(d + 8 * k) = v;
#else
            memcpy(d + 8 * k, &v, 8);
#endif
        }
}

#ifdef __CUDA_ARCH__
/* Warp-contiguous stores of rows whose lanes own 8*cn bytes each (lane l's at d0 + 8*cn*l):
 * each lane puts its 8-byte words into the row's stage (64*cn words of shared memory) with
 * tsr__rt_stage8; after a __syncwarp, tsr__rt_flush8 stores the warp's 256*cn bytes so that
 * each warp store writes 256 contiguous bytes (whole 32-byte sectors), where lane-strided
 * 8-byte stores leave the L2 partial sectors to merge (bench/notes/resize.md, session o); a
 * second __syncwarp before the stage is refilled. */
__device__ __forceinline__ void tsr__rt_stage8(uint32_t *stage, int cn, int k, uint32_t lo,
                                               uint32_t hi)
{
    ((uint2 *)stage)[(threadIdx.x & 31) * cn + k] = make_uint2(lo, hi);
}

__device__ __forceinline__ void tsr__rt_flush8(uint8_t *d0, int cn, const uint32_t *stage)
{
    const int l = threadIdx.x & 31;
#pragma unroll
    for (int k = 0; k < TSR__RT_CNMAX; k++)
        if (k < cn)
            *(uint2 *)(d0 + 8 * (32 * k + l)) = ((const uint2 *)stage)[32 * k + l];
}
#endif

/* Stores thread t's 8*cn bytes of one output row (packed little-endian in wd[2*cn]) at drow
 * (dw pixels): 8-byte stores when tsr__rt_store8px_whole, else the bytes that lie in the row.
 * (16-byte stores where the rows allow were measured no faster: bench/notes/resize.md, run 26.) */
TSR__RT_FN void tsr__rt_store8px(uint8_t *TSR__RT_RESTRICT drow, int32_t dw, int cn, int32_t t,
                                 int al, const uint32_t *wd)
{
    uint8_t *d = drow + (int64_t)TSR__RT_PX * t * cn;
    if (tsr__rt_store8px_whole(dw, t, al))
        tsr__rt_store8px_words(d, cn, wd);
    else
        for (int i = 0; i < TSR__RT_PX * cn && TSR__RT_PX * t + i / cn < dw; i++)
            d[i] = (uint8_t)(wd[i / 4] >> (8 * (i % 4)));
}

#endif
