/* The CUDA toolbox shared by every domain's .cu files: the device handle's insides, error
 * checking on every runtime call and launch (with and without a clean-up label), device and
 * page-locked buffers that an operation owns and reuses across calls, and event timers. */
#ifndef TSR_CUDA_INTERNAL_CUH
#define TSR_CUDA_INTERNAL_CUH

#include <cuda_runtime.h>

extern "C" {
#include "core/ctx.h"
#include "cuda/cuda_device.h"
}

struct tsr__cuda {
    int device;
    cudaStream_t stream;
    int own_stream;
    cudaDeviceProp prop;
    /* The compute capability (major * 10 + minor) that kernel dispatch may assume: the device's,
     * or lower after tsr__cuda_cap_arch (tests run the portable paths on a newer GPU so). */
    int arch;
    char name[128];
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

/* As TSR_CUDA_TRY, for functions with a clean-up: on failure sets `st` to the mapped status and
 * jumps to `label`. */
#define TSR_CUDA_TRY_GOTO(ctx, st, label, call)                                                    \
    do {                                                                                           \
        cudaError_t tsr__e = (call);                                                               \
        if (tsr__e != cudaSuccess) {                                                               \
            (st) = tsr__cuda_error((ctx), tsr__e, #call, __FILE__, __LINE__);                      \
            goto label;                                                                            \
        }                                                                                          \
    } while (0)

/* A buffer in device memory (device) or page-locked host memory (host) that one operation owns
 * and reuses across calls: it grows, never shrinks, and keeps its contents only while it does
 * not grow. tag is the owner's note of what it holds (e.g. the id of the plan whose tables were
 * uploaded); a reallocation resets it to 0. A zeroed struct is an empty buffer. */
typedef struct tsr__cuda_buffer {
    void *ptr;
    size_t size;
    uint64_t tag;
} tsr__cuda_buffer;

/* At least `size` bytes in b (device memory). Growing first waits for the context's stream,
 * which may still use the old allocation. */
tsr_status tsr__cuda_buffer_reserve(tsr_ctx *ctx, tsr__cuda_buffer *b, size_t size);
/* As tsr__cuda_buffer_reserve, in page-locked host memory. */
tsr_status tsr__cuda_host_buffer_reserve(tsr_ctx *ctx, tsr__cuda_buffer *b, size_t size);
/* Frees b (device or host as it was reserved) and zeroes it; an empty buffer is a no-op. */
void tsr__cuda_buffer_free(tsr__cuda_buffer *b);
void tsr__cuda_host_buffer_free(tsr__cuda_buffer *b);

/* Host rows moved through page-locked staging in chunks, so that the context threads' copy of
 * one chunk (tsr__copy_rows) overlaps the DMA of the chunk before it. Rows are packed (row bytes
 * apart) in the staging and device buffers and `hstride` apart in host memory. */
enum { TSR__STAGE_CHUNKS = 8 };
/* A download in flight: its chunks' completion events (created on first use, kept) and where
 * they go. A zeroed struct is empty. */
typedef struct tsr__cuda_staging {
    cudaEvent_t done[TSR__STAGE_CHUNKS];
    int nevents; /* events created */
    int pending; /* chunks queued and not yet copied out */
    size_t chunk_rows, rows, row, hstride;
    void *host;
    const unsigned char *pin;
} tsr__cuda_staging;

/* Copies `rows` rows from host into pin and queues each chunk's upload from pin to dev on
 * stream as soon as it is staged. pin must stay untouched until the stream has passed. */
tsr_status tsr__cuda_stage_upload(tsr_ctx *ctx, void *dev, void *pin, const void *host,
                                  size_t hstride, size_t row, size_t rows, cudaStream_t stream);
/* Queues the download of `rows` rows from dev into pin on stream, an event after each chunk,
 * and notes host as their destination; tsr__cuda_stage_finish completes it. */
tsr_status tsr__cuda_stage_download(tsr_ctx *ctx, tsr__cuda_staging *s, void *host, size_t hstride,
                                    void *pin, const void *dev, size_t row, size_t rows,
                                    cudaStream_t stream);
/* Waits for each chunk of the pending download in turn and copies it to its host rows while
 * the later chunks are still in flight. A no-op without a pending download. */
tsr_status tsr__cuda_stage_finish(tsr_ctx *ctx, tsr__cuda_staging *s);
/* Waits for the pending download's chunks without copying them anywhere (a result that is
 * not wanted after all; the staging may then be reused). A no-op without a pending download. */
tsr_status tsr__cuda_stage_discard(tsr_ctx *ctx, tsr__cuda_staging *s);
/* Destroys the events (after the stream that used them has finished). */
void tsr__cuda_staging_free(tsr__cuda_staging *s);

/* Host rows moved through a small ring of page-locked memory (TSR__RING_SLOTS slots of at least
 * TSR__RING_SLOT_BYTES, or of one row when a row is larger), for one-off calls whose images are
 * too large to pin whole: pinning costs about 0.65 ms per MB on an H200 host, a pageable copy
 * runs at 7-10 GB/s and faults fresh destination pages in on one thread. The context's threads
 * copy a slot while the copy engine moves the one before it. The ring is kept by its owner and
 * reused; a zeroed ring is empty. */
enum { TSR__RING_SLOTS = 2, TSR__RING_SLOT_BYTES = 4 << 20 };
typedef struct tsr__cuda_ring {
    tsr__cuda_buffer pin; /* TSR__RING_SLOTS x slot bytes */
    size_t slot;
    cudaEvent_t done[TSR__RING_SLOTS];
    int nevents;
} tsr__cuda_ring;

/* rows rows of `row` bytes from host (hstride apart) to dev (dstride apart), through the ring;
 * returns when the last chunk is queued (the ring's slots are then still in use by the stream
 * until it passes them). */
tsr_status tsr__cuda_ring_upload(tsr_ctx *ctx, tsr__cuda_ring *r, void *dev, size_t dstride,
                                 const void *host, size_t hstride, size_t row, size_t rows,
                                 cudaStream_t stream);
/* rows rows of `row` bytes from dev (dstride apart) to host (hstride apart), through the ring,
 * on stream after the work already queued there; returns when they are in host memory. */
tsr_status tsr__cuda_ring_download(tsr_ctx *ctx, tsr__cuda_ring *r, void *host, size_t hstride,
                                   const void *dev, size_t dstride, size_t row, size_t rows,
                                   cudaStream_t stream);
/* Frees the ring (after the stream that used it has passed its slots). */
void tsr__cuda_ring_free(tsr__cuda_ring *r);

/* Device time between two points of one stream: create, record start and stop, read. */
typedef struct tsr__cuda_timer {
    cudaEvent_t start, stop;
} tsr__cuda_timer;

tsr_status tsr__cuda_timer_create(tsr_ctx *ctx, tsr__cuda_timer *t);
/* Frees the events; a zeroed timer is a no-op. */
void tsr__cuda_timer_destroy(tsr__cuda_timer *t);
/* Milliseconds from start to stop, after both have completed (waits for stop). */
tsr_status tsr__cuda_timer_ms(tsr_ctx *ctx, const tsr__cuda_timer *t, double *ms);

#endif
