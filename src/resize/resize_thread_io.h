/* Memory access shared by the thread bodies of resize_up2.h and resize_dn32.h, which are
 * compiled as C11 (host, for the CPU tests that run them) and as CUDA C++ (the kernels): the
 * qualifiers, a 32-bit load, and the store of one thread's 8 output pixels of one row. */
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

/* Store alignments the host finds for the destination (rows and base). */
enum { TSR__RT_BYTES = 0, TSR__RT_AL8 = 1, TSR__RT_AL16 = 2 };

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

/* Stores words w[0..n) (n = 2 or 4) at p as one aligned 8- or 16-byte store. */
TSR__RT_FN void tsr__rt_st(uint8_t *p, const uint32_t *w, int n)
{
#ifdef __CUDA_ARCH__
    if (n == 4)
        *(uint4 *)p = make_uint4(w[0], w[1], w[2], w[3]);
    else
        *(uint2 *)p = make_uint2(w[0], w[1]);
#else
    memcpy(p, w, 4 * (size_t)n);
#endif
}

/* Stores thread t's 8*cn bytes of one output row (packed little-endian in wd[2*cn]) at drow
 * (dw pixels). When all 8 pixels lie in the row: with `al` TSR__RT_AL16 the widest aligned stores
 * (16 bytes; for 3 channels 16 + 8 bytes on even threads, 8 + 16 on odd ones, as 24t is), with
 * TSR__RT_AL8 8-byte stores; otherwise (unaligned rows, or the row's last pixels) the bytes that
 * lie in the row. */
TSR__RT_FN void tsr__rt_store8px(uint8_t *TSR__RT_RESTRICT drow, int32_t dw, int cn, int32_t t,
                                 int al, const uint32_t *wd)
{
    uint8_t *d = drow + (int64_t)TSR__RT_PX * t * cn;
    if (al != TSR__RT_BYTES && TSR__RT_PX * t + TSR__RT_PX <= dw) {
        if (al == TSR__RT_AL16 && cn == 3) { /* constant word indices: wd stays in registers */
            if (t % 2 == 0) {
                tsr__rt_st(d, wd, 4);
                tsr__rt_st(d + 16, wd + 4, 2);
            } else {
                tsr__rt_st(d, wd, 2);
                tsr__rt_st(d + 8, wd + 2, 4);
            }
            return;
        }
        if (al == TSR__RT_AL16 && cn % 2 == 0) {
            TSR__RT_UNROLL
            for (int k = 0; k < 2 * TSR__RT_CNMAX; k += 4)
                if (k < 2 * cn)
                    tsr__rt_st(d + 4 * k, wd + k, 4);
            return;
        }
        TSR__RT_UNROLL
        for (int k = 0; k < 2 * TSR__RT_CNMAX; k += 2)
            if (k < 2 * cn)
                tsr__rt_st(d + 4 * k, wd + k, 2);
    } else {
        for (int i = 0; i < TSR__RT_PX * cn && TSR__RT_PX * t + i / cn < dw; i++)
            d[i] = (uint8_t)(wd[i / 4] >> (8 * (i % 4)));
    }
}

#endif
