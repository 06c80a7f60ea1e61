/* The context: backend policy, device, allocators, limits and the last error message. */
#include "core/ctx.h"

#include "core/names.h"
#include "core/device_opening.h"
#include "cuda/cuda_device.h"
#include "opencl/opencl_device.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

static const char *const backend_names[] = {"auto", "cpu", "reference", "cuda", "opencl"};

const char *tsr_backend_name(tsr_backend backend)
{
    return tsr__name_of(backend_names, TSR__NAMES_COUNT(backend_names), (int)backend, "unknown");
}

tsr_status tsr_backend_parse(const char *name, tsr_backend *out)
{
    int v;
    tsr_status st = tsr__name_parse(backend_names, TSR__NAMES_COUNT(backend_names), name, &v);
    if (st == TSR_OK)
        *out = (tsr_backend)v;
    return st;
}

int tsr_backend_available(tsr_backend backend)
{
    switch (backend) {
    case TSR_BACKEND_AUTO:
    case TSR_BACKEND_CPU:
    case TSR_BACKEND_REFERENCE: return 1;
    case TSR_BACKEND_CUDA: return tsr__cuda_device_count() > 0;
    case TSR_BACKEND_OPENCL: return tsr__opencl_device_count() > 0;
    }
    return 0;
}

int tsr_backend_device_count(tsr_backend backend)
{
    switch (backend) {
    case TSR_BACKEND_CUDA: return tsr__cuda_device_count();
    case TSR_BACKEND_OPENCL: return tsr__opencl_device_count();
    default: return 0;
    }
}

void tsr_ctx_options_init(tsr_ctx_options *opt)
{
    memset(opt, 0, sizeof *opt);
    opt->backend = TSR_BACKEND_AUTO;
}

tsr_status tsr__vfail(tsr_ctx *ctx, tsr_status status, const char *fmt, va_list ap)
{
    if (ctx)
        vsnprintf(ctx->message, sizeof ctx->message, fmt, ap);
    return status;
}

tsr_status tsr__fail(tsr_ctx *ctx, tsr_status status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    tsr__vfail(ctx, status, fmt, ap);
    va_end(ap);
    return status;
}

void tsr__poison(tsr_ctx *ctx)
{
    if (ctx)
        ctx->failed = 1;
}

tsr_status tsr__enter(tsr_ctx *ctx)
{
    if (!ctx)
        return TSR_ERR_INVALID_ARGUMENT;
    if (ctx->failed)
        return TSR_ERR_BAD_STATE; /* keep the message of the error that poisoned it */
    ctx->message[0] = '\0';
    return TSR_OK;
}

static void *default_alloc(void *user, size_t size, size_t align)
{
    (void)user;
    void *p = NULL;
    if (align < sizeof(void *))
        align = sizeof(void *);
    if (posix_memalign(&p, align, size ? size : 1) != 0)
        return NULL;
    return p;
}

static void default_free(void *user, void *ptr)
{
    (void)user;
    free(ptr);
}

tsr_status tsr__alloc(tsr_ctx *ctx, size_t size, void **out)
{
    *out = NULL;
    if (ctx->opt.max_memory && size > ctx->opt.max_memory)
        return tsr__fail(ctx, TSR_ERR_LIMIT,
                         "allocation of %zu bytes exceeds the memory limit of %llu bytes", size,
                         (unsigned long long)ctx->opt.max_memory);
    void *p = ctx->opt.allocator.alloc(ctx->opt.allocator.user, size, 64);
    if (!p)
        return tsr__fail(ctx, TSR_ERR_OUT_OF_MEMORY, "out of memory allocating %zu bytes", size);
    *out = p;
    return TSR_OK;
}

void tsr__free(tsr_ctx *ctx, void *ptr)
{
    if (ptr)
        ctx->opt.allocator.free(ctx->opt.allocator.user, ptr);
}

tsr_status tsr__progress(tsr_ctx *ctx, const char *stage, double done, double total)
{
    if (ctx->opt.progress && ctx->opt.progress(ctx->opt.progress_user, stage, done, total))
        return tsr__fail(ctx, TSR_ERR_INTERRUPTED, "%s: cancelled", stage);
    return TSR_OK;
}

void *tsr__ctx_state(const tsr_ctx *ctx, const tsr__ctx_state_kind *kind)
{
    for (int i = 0; i < TSR__CTX_STATES; i++)
        if (ctx->states[i].kind == kind)
            return ctx->states[i].state;
    return NULL;
}

tsr_status tsr__ctx_state_get(tsr_ctx *ctx, const tsr__ctx_state_kind *kind, size_t size,
                              void **out)
{
    *out = tsr__ctx_state(ctx, kind);
    if (*out)
        return TSR_OK;
    int i = 0;
    while (i < TSR__CTX_STATES && ctx->states[i].kind)
        i++;
    if (i == TSR__CTX_STATES)
        return tsr__fail(ctx, TSR_ERR_INTERNAL, "context: no room for the %s state", kind->name);
    tsr_status st = tsr__alloc(ctx, size, out);
    if (st != TSR_OK)
        return st;
    memset(*out, 0, size);
    ctx->states[i].kind = kind;
    ctx->states[i].state = *out;
    return TSR_OK;
}

/* A device backend asked for explicitly is opened now, so that a context asking for a GPU
 * where there is none fails at once; under auto nothing is opened until an operation picks a
 * device (core/backend.c), and the context starts out on the CPU. */
static tsr_status open_backend(tsr_ctx *ctx)
{
    tsr_backend want = ctx->opt.backend;
    if (want == TSR_BACKEND_AUTO) {
        ctx->backend = TSR_BACKEND_CPU;
        ctx->backend_reason = "auto: no operation has run yet";
        return TSR_OK;
    }
    ctx->backend = want;
    ctx->backend_reason = "asked for";
    if (want == TSR_BACKEND_CUDA) {
        if (tsr__cuda_device_count() <= 0)
            return tsr__fail(ctx, TSR_ERR_NO_BACKEND, "%s", tsr__cuda_unavailable_reason());
        return tsr__cuda_open(ctx, ctx->opt.device, ctx->opt.cuda_stream, &ctx->cuda);
    }
    if (want == TSR_BACKEND_OPENCL) {
        if (tsr__opencl_device_count() <= 0)
            return tsr__fail(ctx, TSR_ERR_NO_BACKEND, "%s", tsr__opencl_unavailable_reason());
        return tsr__opencl_open(ctx, ctx->opt.device, &ctx->opencl);
    }
    return TSR_OK;
}

void tsr__ctx_set_backend(tsr_ctx *ctx, tsr_backend backend, const char *reason)
{
    ctx->backend = backend;
    ctx->backend_reason = reason;
    switch (backend) {
    case TSR_BACKEND_CUDA:
        snprintf(ctx->device_name, sizeof ctx->device_name, "%s", tsr__cuda_device_name(ctx->cuda));
        break;
    case TSR_BACKEND_OPENCL:
        snprintf(ctx->device_name, sizeof ctx->device_name, "%s",
                 tsr__opencl_device_name(ctx->opencl));
        break;
    case TSR_BACKEND_REFERENCE:
        snprintf(ctx->device_name, sizeof ctx->device_name, "CPU reference, 1 thread");
        break;
    default:
        snprintf(ctx->device_name, sizeof ctx->device_name, "CPU, %d thread%s", ctx->threads,
                 ctx->threads == 1 ? "" : "s");
        break;
    }
}

tsr_status tsr_ctx_create(const tsr_ctx_options *opt, tsr_ctx **out)
{
    if (!out)
        return TSR_ERR_INVALID_ARGUMENT;
    *out = NULL;
    tsr_ctx_options o;
    if (opt)
        o = *opt;
    else
        tsr_ctx_options_init(&o);
    if ((unsigned)o.backend > TSR_BACKEND_OPENCL || o.threads < 0 || o.device < 0)
        return TSR_ERR_INVALID_ARGUMENT;
    int custom = (o.allocator.alloc != NULL) + (o.allocator.free != NULL);
    if (custom == 1)
        return TSR_ERR_INVALID_ARGUMENT;
    if (!custom) {
        o.allocator.alloc = default_alloc;
        o.allocator.free = default_free;
    }
    if (!o.max_image_pixels)
        o.max_image_pixels = (uint64_t)1 << 32;

    tsr_ctx *ctx = o.allocator.alloc(o.allocator.user, sizeof *ctx, 64);
    if (!ctx)
        return TSR_ERR_OUT_OF_MEMORY;
    memset(ctx, 0, sizeof *ctx);
    ctx->opt = o;
#ifdef _OPENMP
    ctx->threads = o.threads ? o.threads : omp_get_max_threads();
#else
    ctx->threads = 1;
#endif
    tsr_status st = open_backend(ctx);
    if (st != TSR_OK) {
        *out = ctx; /* carries the message; the caller destroys it */
        return st;
    }
    tsr__ctx_set_backend(ctx, ctx->backend, ctx->backend_reason);
    *out = ctx;
    return TSR_OK;
}

tsr_status tsr_ctx_prepare(tsr_ctx *ctx, tsr_backend backend)
{
    tsr_status st = tsr__enter(ctx);
    if (st != TSR_OK || backend != TSR_BACKEND_CUDA || ctx->opt.backend != TSR_BACKEND_AUTO)
        return st;
    return tsr__device_opening_start(ctx);
}

void tsr_ctx_destroy(tsr_ctx *ctx)
{
    if (!ctx)
        return;
    for (int i = TSR__CTX_STATES - 1; i >= 0; i--)
        if (ctx->states[i].kind && ctx->states[i].kind->destroy)
            ctx->states[i].kind->destroy(ctx, ctx->states[i].state);
    tsr__device_opening_adopt(ctx);
    tsr__cuda_close(ctx->cuda);
    tsr__opencl_close(ctx->opencl);
    ctx->opt.allocator.free(ctx->opt.allocator.user, ctx);
}

const char *tsr_ctx_last_error(const tsr_ctx *ctx)
{
    return ctx ? ctx->message : "no context";
}

tsr_backend tsr_ctx_backend(const tsr_ctx *ctx)
{
    return ctx->backend;
}

const char *tsr_ctx_backend_reason(const tsr_ctx *ctx)
{
    return ctx->backend_reason;
}

const char *tsr_ctx_device_name(const tsr_ctx *ctx)
{
    return ctx->device_name;
}

int tsr_ctx_threads(const tsr_ctx *ctx)
{
    return ctx->threads;
}
