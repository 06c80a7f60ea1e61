/* The CUDA backend in a build without CUDA: present, never available. */
#include "cuda/cuda_device.h"

int tsr__cuda_device_count(void)
{
    return 0;
}

const char *tsr__cuda_unavailable_reason(void)
{
    return "this build of tessera has no CUDA backend (nvcc was not found at build time)";
}

tsr_status tsr__cuda_open(tsr_ctx *ctx, int device, void *stream, struct tsr__cuda **out)
{
    (void)ctx;
    (void)device;
    (void)stream;
    *out = 0;
    return TSR_ERR_NO_BACKEND;
}

tsr_status tsr__cuda_use(struct tsr__cuda *cuda)
{
    (void)cuda;
    return TSR_ERR_NO_BACKEND;
}

void tsr__cuda_close(struct tsr__cuda *cuda)
{
    (void)cuda;
}

const char *tsr__cuda_device_name(const struct tsr__cuda *cuda)
{
    (void)cuda;
    return "none";
}

void tsr__cuda_cap_arch(tsr_ctx *ctx, int arch)
{
    (void)ctx;
    (void)arch;
}
