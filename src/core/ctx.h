/* The context's insides, shared by the library's own files (not installed). */
#ifndef TSR_CORE_CTX_H
#define TSR_CORE_CTX_H

#include "tessera/core.h"

#include <stdarg.h>

struct tsr__cuda;           /* src/cuda/cuda_device.h */
struct tsr__device_opening; /* core/device_opening.h */

/* A kind of state an operation keeps in the context between calls (a plan cache, device buffers):
 * the operation defines one static kind and finds its state by the kind's address, so the core
 * knows no operation by name. tsr_ctx_destroy calls destroy on each state, most recent first,
 * before it closes the devices (a state may still free device memory). */
typedef struct tsr__ctx_state_kind {
    const char *name;
    void (*destroy)(tsr_ctx *ctx, void *state);
} tsr__ctx_state_kind;

enum { TSR__CTX_STATES = 8 }; /* kinds of state one context can hold */
struct tsr__opencl;           /* src/opencl/opencl_device.h */

struct tsr_ctx {
    tsr_ctx_options opt;
    tsr_backend backend;        /* of the last operation (core/backend.h); never AUTO */
    const char *backend_reason; /* why it was chosen (a static string) */
    int threads;                /* resolved CPU thread count, >= 1 */
    int failed; /* a fatal device error happened: every later call returns BAD_STATE */
    struct tsr__cuda *cuda;
    struct tsr__device_opening *opening; /* tsr_ctx_prepare's, until adopted (backend.c) or
                                            closed (tsr_ctx_destroy) */
    struct tsr__opencl *opencl;
    /* tsr_image_probe: while probe is set, a decoder's size check (tsr__image_check_pixels)
       notes the size in probe_width/height, sets probed and stops the decode */
    int probe, probed;
    uint64_t probe_width, probe_height;
    struct {
        const tsr__ctx_state_kind *kind;
        void *state;
    } states[TSR__CTX_STATES];
    char device_name[128];
    char message[512];
};

/* Records a failure: formats the message into ctx (prefixed by nothing; one line) and returns
 * status so callers can `return tsr__fail(...)`. ctx may be NULL (then only status returns). */
tsr_status tsr__fail(tsr_ctx *ctx, tsr_status status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
tsr_status tsr__vfail(tsr_ctx *ctx, tsr_status status, const char *fmt, va_list ap);
/* Marks the context failed after an unrecoverable device error (see struct comment). */
void tsr__poison(tsr_ctx *ctx);
/* Called at the top of every public operation: TSR_ERR_BAD_STATE for a poisoned context,
 * TSR_ERR_INVALID_ARGUMENT for NULL; otherwise clears the last message and returns TSR_OK. */
tsr_status tsr__enter(tsr_ctx *ctx);

/* Host allocation through the context's allocator and limits. Sizes are checked by the caller
 * with checked.h. tsr__alloc fails with a message (TSR_ERR_OUT_OF_MEMORY or TSR_ERR_LIMIT). */
tsr_status tsr__alloc(tsr_ctx *ctx, size_t size, void **out);
void tsr__free(tsr_ctx *ctx, void *ptr);

/* Records the backend an operation runs on and why (core/backend.h calls it). */
void tsr__ctx_set_backend(tsr_ctx *ctx, tsr_backend backend, const char *reason);

/* The context's state of `kind`; NULL when none was stored. */
void *tsr__ctx_state(const tsr_ctx *ctx, const tsr__ctx_state_kind *kind);
/* Records the backend an operation runs on and why (core/backend.h calls it). */
void tsr__ctx_set_backend(tsr_ctx *ctx, tsr_backend backend, const char *reason);

/* The context's state of `kind`, made on first use as `size` zeroed bytes (fails with a message
 * on allocation failure). The context owns it from then on: kind->destroy receives it. */
tsr_status tsr__ctx_state_get(tsr_ctx *ctx, const tsr__ctx_state_kind *kind, size_t size,
                              void **out);

/* Reports progress through the context's callback; TSR_ERR_INTERRUPTED when it asks to stop. */
tsr_status tsr__progress(tsr_ctx *ctx, const char *stage, double done, double total);

#endif
