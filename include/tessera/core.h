/* tessera core: status codes, the context, image descriptors.
 *
 * Every public function returns a tsr_status. A failing call leaves a one-line message in its
 * context (tsr_ctx_last_error). The library never prints, never exits, and never allocates a
 * caller's output: the caller asks for the size, allocates (or calls tsr_image_alloc), and passes
 * the buffer in. */
#ifndef TESSERA_CORE_H
#define TESSERA_CORE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TSR_VERSION_MAJOR 0
#define TSR_VERSION_MINOR 1
#define TSR_VERSION_PATCH 0
#define TSR_VERSION_STRING "0.1.0"

/* The status list: one X-macro, from which the enum, the names and the messages are generated. */
#define TSR_STATUS_LIST(X)                                                                         \
    X(TSR_OK, "success")                                                                           \
    X(TSR_ERR_INVALID_ARGUMENT, "invalid argument")                                                \
    X(TSR_ERR_OUT_OF_MEMORY, "out of host memory")                                                 \
    X(TSR_ERR_DEVICE_OUT_OF_MEMORY, "out of device memory")                                        \
    X(TSR_ERR_OVERFLOW, "size arithmetic overflows")                                               \
    X(TSR_ERR_LIMIT, "a configured limit is exceeded")                                             \
    X(TSR_ERR_UNSUPPORTED, "unsupported feature")                                                  \
    X(TSR_ERR_IO, "input/output error")                                                            \
    X(TSR_ERR_CORRUPT, "malformed or truncated input")                                             \
    X(TSR_ERR_NO_BACKEND, "requested backend is not available")                                    \
    X(TSR_ERR_DEVICE, "device runtime error")                                                      \
    X(TSR_ERR_BAD_STATE, "context is in a failed state")                                           \
    X(TSR_ERR_INTERRUPTED, "interrupted")                                                          \
    X(TSR_ERR_INTERNAL, "internal error")

typedef enum tsr_status {
#define TSR__STATUS_ENUM(name, msg) name,
    TSR_STATUS_LIST(TSR__STATUS_ENUM)
#undef TSR__STATUS_ENUM
        TSR_STATUS_COUNT
} tsr_status;

/* Short human-readable text for a status; never NULL. */
const char *tsr_strerror(tsr_status status);
/* The enumerator's name ("TSR_ERR_CORRUPT"); never NULL. */
const char *tsr_status_name(tsr_status status);
/* "0.1.0" */
const char *tsr_version(void);

typedef enum tsr_backend {
    TSR_BACKEND_AUTO = 0,  /* per operation, the faster path for where its data are: each
                              operation's documentation gives its rule (device images stay on
                              the device; host data go to the CPU unless the GPU wins end to end)
                              and tsr_ctx_backend_reason says which rule applied */
    TSR_BACKEND_CPU,       /* CPU parallel (OpenMP) */
    TSR_BACKEND_REFERENCE, /* single-threaded CPU reference: defines the answer */
    TSR_BACKEND_CUDA,
    TSR_BACKEND_OPENCL
} tsr_backend;

/* "auto", "cpu", "reference", "cuda", "opencl". */
const char *tsr_backend_name(tsr_backend backend);
/* Parses a backend name; TSR_ERR_INVALID_ARGUMENT for an unknown one. */
tsr_status tsr_backend_parse(const char *name, tsr_backend *out);
/* Whether this build has the backend and a usable device for it right now (1) or not (0). */
int tsr_backend_available(tsr_backend backend);
/* The devices the backend can open now (tsr_ctx_options.device takes 0 .. count - 1): CUDA
 * devices, OpenCL devices; 0 where the build or the machine has none, and for the host backends
 * (auto, cpu, reference), which have no device ordinal. */
int tsr_backend_device_count(tsr_backend backend);

/* Allocation hooks; all three or none. align is a power of two <= 256. */
typedef struct tsr_allocator {
    void *(*alloc)(void *user, size_t size, size_t align);
    void (*free)(void *user, void *ptr);
    void *user;
} tsr_allocator;

/* Progress callback for long work: done out of total units; return nonzero to cancel
 * (the operation then returns TSR_ERR_INTERRUPTED). */
typedef int (*tsr_progress_fn)(void *user, const char *stage, double done, double total);

typedef struct tsr_ctx_options {
    tsr_backend backend;       /* default TSR_BACKEND_AUTO */
    int device;                /* CUDA device ordinal or OpenCL device index; default 0 */
    int threads;               /* CPU threads; 0 = all available */
    void *cuda_stream;         /* cudaStream_t to run on; NULL = the context creates its own */
    tsr_allocator allocator;   /* host allocations; zeroed = malloc/free */
    uint64_t max_image_pixels; /* largest image (width*height) decoded or allocated, checked
                                  from the file's header before any allocation for its pixels
                                  (TSR_ERR_LIMIT); 0 = 1<<32; UINT64_MAX: no limit */
    uint64_t max_memory;       /* largest single host allocation in bytes; 0 = no limit */
    tsr_progress_fn progress;
    void *progress_user;
} tsr_ctx_options;

typedef struct tsr_ctx tsr_ctx;

/* Fills *opt with the defaults above. */
void tsr_ctx_options_init(tsr_ctx_options *opt);
/* Creates a context. opt may be NULL (defaults). A context asking for CUDA or OpenCL where the
 * build or the machine has none fails with TSR_ERR_NO_BACKEND, and an operation asked to run on
 * a backend it does not have fails so too; TSR_BACKEND_AUTO never does, and opens a device only
 * when an operation first chooses it.
 * On failure *out is NULL, except when a context could be made to carry the message: then
 * *out is set and tsr_ctx_last_error() explains; the caller still destroys it. */
tsr_status tsr_ctx_create(const tsr_ctx_options *opt, tsr_ctx **out);
/* Starts opening `backend`'s device on a thread of its own, so that the caller can overlap the
 * device's start-up (a CUDA context takes a few hundred milliseconds) with work of its own, such
 * as decoding the image it is about to pass. The operation that next picks that device under
 * TSR_BACKEND_AUTO waits for the opening and runs on it; which backend an operation picks does
 * not change (a device prepared and not picked is closed by tsr_ctx_destroy). Only
 * TSR_BACKEND_CUDA on a context created with TSR_BACKEND_AUTO starts anything; otherwise it
 * returns TSR_OK and does nothing (an explicit backend opened its device at creation). As every
 * call, not to be made while another thread uses the context. */
tsr_status tsr_ctx_prepare(tsr_ctx *ctx, tsr_backend backend);
void tsr_ctx_destroy(tsr_ctx *ctx);
/* The message of the last failing call on this context ("" when none). Valid until the next call.
 */
const char *tsr_ctx_last_error(const tsr_ctx *ctx);
/* The backend the last operation on this context ran on (the one asked for, or what
 * TSR_BACKEND_AUTO chose for its data; before any operation: the one asked for, CPU under auto). */
tsr_backend tsr_ctx_backend(const tsr_ctx *ctx);
/* Why tsr_ctx_backend was chosen, one line ("asked for", "device images stay on the device", ...).
 */
const char *tsr_ctx_backend_reason(const tsr_ctx *ctx);
/* One line naming the device of tsr_ctx_backend ("NVIDIA H200 (sm_90)", "CPU, 2 threads", ...). */
const char *tsr_ctx_device_name(const tsr_ctx *ctx);
/* The CPU threads the context's CPU operations run on (>= 1): tsr_ctx_options.threads, or for 0
 * every thread OpenMP offers; 1 in a build without OpenMP, whatever was asked. */
int tsr_ctx_threads(const tsr_ctx *ctx);

typedef enum tsr_depth { TSR_U8 = 1, TSR_U16 = 2, TSR_F32 = 4 } tsr_depth;
typedef enum tsr_memory { TSR_MEMORY_HOST = 0, TSR_MEMORY_CUDA = 1 } tsr_memory;

/* An image: rows of width*channels samples of one depth; rows stride bytes apart. */
typedef struct tsr_image {
    int32_t width, height; /* >= 1 */
    int32_t channels;      /* 1 gray, 2 gray+alpha, 3 RGB, 4 RGBA */
    tsr_depth depth;
    size_t stride; /* bytes from one row to the next, >= width*channels*depth and a
                      multiple of the sample size (as is the data address) */
    void *data;
    tsr_memory memory;
} tsr_image;

/* Bytes per sample of a depth (1, 2, 4); 0 for an invalid value. */
size_t tsr_depth_size(tsr_depth depth);
/* Checks the descriptor (sizes, channels, depth, stride, data non-NULL, limits). */
tsr_status tsr_image_check(tsr_ctx *ctx, const tsr_image *img);
/* Allocates a tightly packed host image through the context's allocator. */
tsr_status tsr_image_alloc(tsr_ctx *ctx, tsr_image *img, int32_t width, int32_t height,
                           int32_t channels, tsr_depth depth);
/* Frees an image from tsr_image_alloc and zeroes the descriptor; NULL data is a no-op. */
void tsr_image_free(tsr_ctx *ctx, tsr_image *img);

#ifdef __cplusplus
}
#endif
#endif
