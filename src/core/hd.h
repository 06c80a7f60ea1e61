/* Qualifiers for arithmetic written once for the CPU and the GPU. A `<stage>_hd.h` header of
 * TSR_HD functions compiles as static inline C in the CPU files and as __host__ __device__
 * functions in the CUDA files, so both backends run the same expressions (and tests on the host
 * run the device's thread bodies). TSR_HD_UNROLL asks the device compiler to unroll the loop that
 * follows; TSR_HD_RESTRICT is C's restrict in either language. */
#ifndef TSR_CORE_HD_H
#define TSR_CORE_HD_H

#ifdef __CUDACC__
#define TSR_HD static __host__ __device__ __forceinline__
#define TSR_HD_UNROLL _Pragma("unroll")
#define TSR_HD_RESTRICT __restrict__
#else
#define TSR_HD static inline
#define TSR_HD_UNROLL
#define TSR_HD_RESTRICT restrict
#endif

#endif
