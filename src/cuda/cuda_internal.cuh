/* Shared CUDA helpers for the library's .cu files: the device handle's insides, error checking
 * on every runtime call and launch, and grow-only scratch buffers reused across calls. */
#ifndef TSR_CUDA_INTERNAL_CUH
#define TSR_CUDA_INTERNAL_CUH

#include <cuda_runtime.h>

extern "C" {
#include "core/ctx.h"
#include "cuda/cuda_device.h"
}

/* Scratch slots: each operation names the slots it uses; a slot only grows. */
enum { TSR__CUDA_SLOTS = 8 };

struct tsr__cuda {
    int device;
    cudaStream_t stream;
    int own_stream;
    cudaDeviceProp prop;
    char name[128];
    void *scratch[TSR__CUDA_SLOTS];
    size_t scratch_size[TSR__CUDA_SLOTS];
    /* What a slot holds, as its user describes it (e.g. a resize plan id whose tables were
     * uploaded there); 0 = unknown. Reset to 0 whenever the slot is reallocated. */
    uint64_t scratch_tag[TSR__CUDA_SLOTS];
    void *pinned[TSR__CUDA_SLOTS]; /* page-locked host staging, same slot numbering */
    size_t pinned_size[TSR__CUDA_SLOTS];
};

/* Turns a CUDA error into a status and a message naming the call site; poisons the context for
 * errors that leave the device unusable (sticky errors). */
tsr_status tsr__cuda_error(tsr_ctx *ctx, cudaError_t err, const char *what, const char *file,
                           int line);

/* Evaluates a runtime call; on failure returns the mapped status from the enclosing function. */
#define TSR_CUDA_TRY(ctx, call)                                                                    \
    do {                                                                                           \
        cudaError_t tsr__e = (call);                                                               \
        if (tsr__e != cudaSuccess)                                                                 \
            return tsr__cuda_error((ctx), tsr__e, #call, __FILE__, __LINE__);                      \
    } while (0)

/* After every launch: the launch error, and in debug builds (TSR_DEBUG_SYNC) a synchronize so a
 * fault is reported against the kernel that caused it. */
#ifdef TSR_DEBUG_SYNC
#define TSR_CUDA_CHECK_LAUNCH(ctx, name)                                                           \
    do {                                                                                           \
        TSR_CUDA_TRY(ctx, cudaGetLastError());                                                     \
        TSR_CUDA_TRY(ctx, cudaStreamSynchronize((ctx)->cuda->stream));                             \
    } while (0)
#else
#define TSR_CUDA_CHECK_LAUNCH(ctx, name) TSR_CUDA_TRY(ctx, cudaGetLastError())
#endif

/* Device scratch buffer `slot` of at least `size` bytes (contents undefined unless its
 * scratch_tag, which a reallocation resets to 0, says otherwise). */
tsr_status tsr__cuda_scratch(tsr_ctx *ctx, int slot, size_t size, void **out);
/* Page-locked host buffer `slot` of at least `size` bytes (contents undefined). */
tsr_status tsr__cuda_pinned(tsr_ctx *ctx, int slot, size_t size, void **out);

#endif
