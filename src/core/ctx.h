/* The context's insides, shared by the library's own files (not installed). */
#ifndef TSR_CORE_CTX_H
#define TSR_CORE_CTX_H

#include "tessera/core.h"

#include <stdarg.h>

struct tsr__cuda; /* src/cuda/cuda_device.h */

/* State an operation keeps in the context between calls (a cache, say). The operation sets
 * destroy when it first stores state; tsr_ctx_destroy calls it. */
typedef struct tsr__ctx_slot {
    void *state;
    void (*destroy)(tsr_ctx *ctx, void *state);
} tsr__ctx_slot;

enum { TSR__SLOT_RESIZE = 0, TSR__SLOT_COUNT };
struct tsr__opencl; /* src/opencl/opencl_device.h */

struct tsr_ctx {
    tsr_ctx_options opt;
    tsr_backend backend; /* resolved: never TSR_BACKEND_AUTO */
    int threads;         /* resolved CPU thread count, >= 1 */
    int failed;          /* a fatal device error happened: every later call returns BAD_STATE */
    struct tsr__cuda *cuda;
    struct tsr__opencl *opencl;
    tsr__ctx_slot slots[TSR__SLOT_COUNT];
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

/* Reports progress through the context's callback; TSR_ERR_INTERRUPTED when it asks to stop. */
tsr_status tsr__progress(tsr_ctx *ctx, const char *stage, double done, double total);

#endif
