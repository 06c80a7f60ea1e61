/* The CUDA backend's device handle and toolbox: device choice, stream, error mapping, owned
 * buffers and timers (cuda_internal.cuh). */
#include "cuda/cuda_internal.cuh"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern "C" int tsr__cuda_device_count(void)
{
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
        cudaGetLastError(); /* clear: "no driver" is not an error for callers */
        return 0;
    }
    return n;
}

extern "C" const char *tsr__cuda_unavailable_reason(void)
{
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess) {
        static char why[200];
        snprintf(why, sizeof why, "no CUDA device is available (%s)", cudaGetErrorString(e));
        cudaGetLastError();
        return why;
    }
    return "no CUDA device is available";
}

static int is_sticky(cudaError_t e)
{
    switch (e) {
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchFailure:
    case cudaErrorHardwareStackError:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorAssert:
    case cudaErrorLaunchTimeout: return 1;
    default: return 0;
    }
}

tsr_status tsr__cuda_error(tsr_ctx *ctx, cudaError_t err, const char *what, const char *file,
                           int line)
{
    cudaGetLastError();
    if (err == cudaErrorMemoryAllocation)
        return tsr__fail(ctx, TSR_ERR_DEVICE_OUT_OF_MEMORY, "out of device memory (%s at %s:%d)",
                         what, file, line);
    if (is_sticky(err))
        tsr__poison(ctx);
    return tsr__fail(ctx, TSR_ERR_DEVICE, "CUDA error %s: %s (%s at %s:%d)", cudaGetErrorName(err),
                     cudaGetErrorString(err), what, file, line);
}

extern "C" tsr_status tsr__cuda_open(tsr_ctx *ctx, int device, void *stream, struct tsr__cuda **out)
{
    *out = NULL;
    int n = tsr__cuda_device_count();
    if (device >= n)
        return tsr__fail(ctx, TSR_ERR_NO_BACKEND, "CUDA device %d requested, %d present", device,
                         n);
    struct tsr__cuda *c = (struct tsr__cuda *)calloc(1, sizeof *c);
    if (!c)
        return tsr__fail(ctx, TSR_ERR_OUT_OF_MEMORY, "out of memory");
    c->device = device;
    ctx->cuda = c; /* so TSR_CUDA_TRY below can refer to it; closed by the caller on failure */
    *out = c;
    TSR_CUDA_TRY(ctx, cudaSetDevice(device));
    TSR_CUDA_TRY(ctx, cudaGetDeviceProperties(&c->prop, device));
    c->arch = c->prop.major * 10 + c->prop.minor;
    if (stream) {
        c->stream = (cudaStream_t)stream;
    } else {
        TSR_CUDA_TRY(ctx, cudaStreamCreateWithFlags(&c->stream, cudaStreamNonBlocking));
        c->own_stream = 1;
    }
    snprintf(c->name, sizeof c->name, "%s (sm_%d%d, %d SMs)", c->prop.name, c->prop.major,
             c->prop.minor, c->prop.multiProcessorCount);
    return TSR_OK;
}

extern "C" tsr_status tsr__cuda_use(struct tsr__cuda *c)
{
    return c && cudaSetDevice(c->device) == cudaSuccess ? TSR_OK : TSR_ERR_DEVICE;
}

extern "C" void tsr__cuda_close(struct tsr__cuda *c)
{
    if (!c)
        return;
    cudaSetDevice(c->device);
    if (c->stream)
        cudaStreamSynchronize(c->stream);
    if (c->own_stream && c->stream)
        cudaStreamDestroy(c->stream);
    cudaGetLastError();
    free(c);
}

extern "C" const char *tsr__cuda_device_name(const struct tsr__cuda *c)
{
    return c ? c->name : "none";
}

static void release(tsr__cuda_buffer *b, int host)
{
    if (b->ptr)
        host ? cudaFreeHost(b->ptr) : cudaFree(b->ptr);
    b->ptr = NULL;
    b->size = 0;
    b->tag = 0;
}

static tsr_status reserve(tsr_ctx *ctx, tsr__cuda_buffer *b, size_t size, int host)
{
    if (b->size >= size && b->ptr)
        return TSR_OK;
    if (b->ptr) {
        TSR_CUDA_TRY(ctx, cudaStreamSynchronize(ctx->cuda->stream));
        release(b, host);
    }
    b->tag = 0;
    if (host)
        TSR_CUDA_TRY(ctx, cudaMallocHost(&b->ptr, size ? size : 1));
    else
        TSR_CUDA_TRY(ctx, cudaMalloc(&b->ptr, size ? size : 1));
    b->size = size;
    return TSR_OK;
}

tsr_status tsr__cuda_buffer_reserve(tsr_ctx *ctx, tsr__cuda_buffer *b, size_t size)
{
    return reserve(ctx, b, size, 0);
}

tsr_status tsr__cuda_host_buffer_reserve(tsr_ctx *ctx, tsr__cuda_buffer *b, size_t size)
{
    return reserve(ctx, b, size, 1);
}

void tsr__cuda_buffer_free(tsr__cuda_buffer *b)
{
    release(b, 0);
}

void tsr__cuda_host_buffer_free(tsr__cuda_buffer *b)
{
    release(b, 1);
}

tsr_status tsr__cuda_timer_create(tsr_ctx *ctx, tsr__cuda_timer *t)
{
    t->start = t->stop = NULL;
    cudaError_t e = cudaEventCreate(&t->start);
    if (e == cudaSuccess)
        e = cudaEventCreate(&t->stop);
    if (e != cudaSuccess) {
        tsr__cuda_timer_destroy(t);
        return tsr__cuda_error(ctx, e, "cudaEventCreate", __FILE__, __LINE__);
    }
    return TSR_OK;
}

void tsr__cuda_timer_destroy(tsr__cuda_timer *t)
{
    if (t->start)
        cudaEventDestroy(t->start);
    if (t->stop)
        cudaEventDestroy(t->stop);
    t->start = t->stop = NULL;
}

tsr_status tsr__cuda_timer_ms(tsr_ctx *ctx, const tsr__cuda_timer *t, double *ms)
{
    float f = 0;
    TSR_CUDA_TRY(ctx, cudaEventSynchronize(t->stop));
    TSR_CUDA_TRY(ctx, cudaEventElapsedTime(&f, t->start, t->stop));
    *ms = f;
    return TSR_OK;
}

extern "C" void tsr__cuda_cap_arch(tsr_ctx *ctx, int arch)
{
    if (ctx && ctx->cuda && arch < ctx->cuda->arch)
        ctx->cuda->arch = arch;
}
