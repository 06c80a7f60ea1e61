/* Qualifiers of the Tier-1 decoder, whose one source (t1_decode_hd.h, ht_decode_hd.h and the
 * headers they include) compiles as host C (t1_decode.c, ht_decode.c, ht_decode_avx2.c) and as
 * CUDA device code (t1_cuda.cu):
 *   TSR__T1_FN   a function of the decoder: static in C, static __device__ under nvcc;
 *   TSR__T1_INL  the same, declared inline;
 *   TSR__T1_AI   the same, always inlined (bit readers, per-sample steps);
 *   TSR__T1_LUT  a constant look-up table: static const in C, static __device__ const under nvcc
 *                (global memory, read through the read-only cache);
 *   TSR__T1_CLZ, TSR__T1_CTZ (x != 0) and TSR__T1_BSWAP64: the bit builtins of either compiler.
 * Under nvcc the decoder exists in device code only (its tables are __device__ objects); the .cu
 * file's host code only launches it. Small pure helpers shared with host callers (t1.h,
 * t1_internal.h) use core/hd.h's TSR_HD instead. */
#ifndef TSR_J2K_T1_HD_H
#define TSR_J2K_T1_HD_H

#ifdef __CUDACC__
#define TSR__T1_FN static __device__
#define TSR__T1_INL static __device__ inline
#define TSR__T1_AI static __device__ __forceinline__
#define TSR__T1_LUT static __device__ const
#else
#define TSR__T1_FN static
#define TSR__T1_INL static inline
#define TSR__T1_AI static inline __attribute__((always_inline))
#define TSR__T1_LUT static const
#endif

#ifdef __CUDA_ARCH__
#define TSR__T1_CLZ(x) ((unsigned)__clz((int)(x)))
#define TSR__T1_CTZ(x) ((unsigned)__ffs((int)(x)) - 1u)
#define TSR__T1_BSWAP64(x) tsr__t1_bswap64(x)
/* the 8 bytes of x in reverse order (__byte_perm 0x0123 reverses a word's 4) */
static __device__ __forceinline__ unsigned long long tsr__t1_bswap64(unsigned long long x)
{
    return (unsigned long long)__byte_perm((unsigned)(x >> 32), 0, 0x0123) |
           (unsigned long long)__byte_perm((unsigned)x, 0, 0x0123) << 32;
}
#else
#define TSR__T1_CLZ(x) ((unsigned)__builtin_clz(x))
#define TSR__T1_CTZ(x) ((unsigned)__builtin_ctz(x))
#define TSR__T1_BSWAP64(x) __builtin_bswap64(x)
#endif

#endif
