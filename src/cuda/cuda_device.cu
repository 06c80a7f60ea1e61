/* The CUDA backend's device handle: device choice, stream, scratch and error mapping. */
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

extern "C" void tsr__cuda_close(struct tsr__cuda *c)
{
    if (!c)
        return;
    cudaSetDevice(c->device);
    if (c->stream)
        cudaStreamSynchronize(c->stream);
    for (int i = 0; i < TSR__CUDA_SLOTS; i++) {
        if (c->scratch[i])
            cudaFree(c->scratch[i]);
        if (c->pinned[i])
            cudaFreeHost(c->pinned[i]);
    }
    if (c->own_stream && c->stream)
        cudaStreamDestroy(c->stream);
    cudaGetLastError();
    free(c);
}

extern "C" const char *tsr__cuda_device_name(const struct tsr__cuda *c)
{
    return c ? c->name : "none";
}

tsr_status tsr__cuda_scratch(tsr_ctx *ctx, int slot, size_t size, void **out)
{
    struct tsr__cuda *c = ctx->cuda;
    if (c->scratch_size[slot] < size) {
        if (c->scratch[slot]) {
            TSR_CUDA_TRY(ctx, cudaStreamSynchronize(c->stream));
            TSR_CUDA_TRY(ctx, cudaFree(c->scratch[slot]));
            c->scratch[slot] = NULL;
            c->scratch_size[slot] = 0;
        }
        c->scratch_tag[slot] = 0;
        TSR_CUDA_TRY(ctx, cudaMalloc(&c->scratch[slot], size));
        c->scratch_size[slot] = size;
    }
    *out = c->scratch[slot];
    return TSR_OK;
}

tsr_status tsr__cuda_pinned(tsr_ctx *ctx, int slot, size_t size, void **out)
{
    struct tsr__cuda *c = ctx->cuda;
    if (c->pinned_size[slot] < size) {
        if (c->pinned[slot]) {
            TSR_CUDA_TRY(ctx, cudaStreamSynchronize(c->stream));
            TSR_CUDA_TRY(ctx, cudaFreeHost(c->pinned[slot]));
            c->pinned[slot] = NULL;
            c->pinned_size[slot] = 0;
        }
        TSR_CUDA_TRY(ctx, cudaMallocHost(&c->pinned[slot], size));
        c->pinned_size[slot] = size;
    }
    *out = c->pinned[slot];
    return TSR_OK;
}
