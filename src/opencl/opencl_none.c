/* The OpenCL backend in a build without OpenCL: present, never available. */
#include "opencl/opencl_device.h"

int tsr__opencl_device_count(void)
{
    return 0;
}

const char *tsr__opencl_unavailable_reason(void)
{
    return "this build of tessera has no OpenCL backend (OpenCL headers were not found at build "
           "time)";
}

tsr_status tsr__opencl_open(tsr_ctx *ctx, int index, struct tsr__opencl **out)
{
    (void)ctx;
    (void)index;
    *out = 0;
    return TSR_ERR_NO_BACKEND;
}

void tsr__opencl_close(struct tsr__opencl *cl)
{
    (void)cl;
}

const char *tsr__opencl_device_name(const struct tsr__opencl *cl)
{
    (void)cl;
    return "none";
}
