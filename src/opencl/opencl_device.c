/* The OpenCL backend's device handle: device choice (GPUs first, then other devices, so PoCL's CPU
 * device serves where there is no GPU), context, one in-order queue, programs built from embedded
 * sources, cached kernels, scratch buffers and error mapping. */
#include "opencl/opencl_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *tsr__opencl_error_name(cl_int err)
{
    switch (err) {
#define E(x)                                                                                       \
    case x: return #x;
        E(CL_SUCCESS)
        E(CL_DEVICE_NOT_FOUND)
        E(CL_DEVICE_NOT_AVAILABLE)
        E(CL_COMPILER_NOT_AVAILABLE)
        E(CL_MEM_OBJECT_ALLOCATION_FAILURE)
        E(CL_OUT_OF_RESOURCES)
        E(CL_OUT_OF_HOST_MEMORY)
        E(CL_PROFILING_INFO_NOT_AVAILABLE)
        E(CL_MEM_COPY_OVERLAP)
        E(CL_IMAGE_FORMAT_MISMATCH)
        E(CL_IMAGE_FORMAT_NOT_SUPPORTED)
        E(CL_BUILD_PROGRAM_FAILURE)
        E(CL_MAP_FAILURE)
        E(CL_MISALIGNED_SUB_BUFFER_OFFSET)
        E(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
        E(CL_INVALID_VALUE)
        E(CL_INVALID_DEVICE_TYPE)
        E(CL_INVALID_PLATFORM)
        E(CL_INVALID_DEVICE)
        E(CL_INVALID_CONTEXT)
        E(CL_INVALID_QUEUE_PROPERTIES)
        E(CL_INVALID_COMMAND_QUEUE)
        E(CL_INVALID_HOST_PTR)
        E(CL_INVALID_MEM_OBJECT)
        E(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR)
        E(CL_INVALID_IMAGE_SIZE)
        E(CL_INVALID_SAMPLER)
        E(CL_INVALID_BINARY)
        E(CL_INVALID_BUILD_OPTIONS)
        E(CL_INVALID_PROGRAM)
        E(CL_INVALID_PROGRAM_EXECUTABLE)
        E(CL_INVALID_KERNEL_NAME)
        E(CL_INVALID_KERNEL_DEFINITION)
        E(CL_INVALID_KERNEL)
        E(CL_INVALID_ARG_INDEX)
        E(CL_INVALID_ARG_VALUE)
        E(CL_INVALID_ARG_SIZE)
        E(CL_INVALID_KERNEL_ARGS)
        E(CL_INVALID_WORK_DIMENSION)
        E(CL_INVALID_WORK_GROUP_SIZE)
        E(CL_INVALID_WORK_ITEM_SIZE)
        E(CL_INVALID_GLOBAL_OFFSET)
        E(CL_INVALID_EVENT_WAIT_LIST)
        E(CL_INVALID_EVENT)
        E(CL_INVALID_OPERATION)
        E(CL_INVALID_BUFFER_SIZE)
        E(CL_INVALID_GLOBAL_WORK_SIZE)
        E(CL_INVALID_PROPERTY)
#undef E
    case -1001: return "CL_PLATFORM_NOT_FOUND_KHR";
    default: return "unknown OpenCL error";
    }
}

tsr_status tsr__opencl_error(tsr_ctx *ctx, cl_int err, const char *what, const char *file, int line)
{
    if (err == CL_MEM_OBJECT_ALLOCATION_FAILURE || err == CL_INVALID_BUFFER_SIZE)
        return tsr__fail(ctx, TSR_ERR_DEVICE_OUT_OF_MEMORY,
                         "out of OpenCL device memory: %s (%s at %s:%d)",
                         tsr__opencl_error_name(err), what, file, line);
    if (err == CL_OUT_OF_HOST_MEMORY)
        return tsr__fail(ctx, TSR_ERR_OUT_OF_MEMORY, "out of host memory in OpenCL (%s at %s:%d)",
                         what, file, line);
    if (err == CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST || err == CL_OUT_OF_RESOURCES)
        tsr__poison(ctx); /* a kernel faulted or the device is gone: the queue is unusable */
    return tsr__fail(ctx, TSR_ERR_DEVICE, "OpenCL error %s (%d) (%s at %s:%d)",
                     tsr__opencl_error_name(err), (int)err, what, file, line);
}

/* Walks the devices in the backend's order: every platform's GPUs, then every platform's other
 * devices. Returns the count; when index is in range, fills *platform and *device. */
static int enumerate(int index, cl_platform_id *platform, cl_device_id *device)
{
    cl_uint np = 0;
    if (clGetPlatformIDs(0, NULL, &np) != CL_SUCCESS || np == 0)
        return 0;
    if (np > 16)
        np = 16;
    cl_platform_id plats[16];
    if (clGetPlatformIDs(np, plats, NULL) != CL_SUCCESS)
        return 0;
    int count = 0;
    for (int pass = 0; pass < 2; pass++) {
        for (cl_uint p = 0; p < np; p++) {
            cl_uint nd = 0;
            cl_device_id devs[32];
            if (clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, 32, devs, &nd) != CL_SUCCESS)
                continue;
            if (nd > 32)
                nd = 32;
            for (cl_uint d = 0; d < nd; d++) {
                cl_device_type t = 0;
                cl_bool avail = CL_FALSE, comp = CL_FALSE;
                if (clGetDeviceInfo(devs[d], CL_DEVICE_TYPE, sizeof t, &t, NULL) != CL_SUCCESS)
                    continue;
                clGetDeviceInfo(devs[d], CL_DEVICE_AVAILABLE, sizeof avail, &avail, NULL);
                clGetDeviceInfo(devs[d], CL_DEVICE_COMPILER_AVAILABLE, sizeof comp, &comp, NULL);
                if (!avail || !comp)
                    continue;
                int is_gpu = (t & CL_DEVICE_TYPE_GPU) != 0;
                if ((pass == 0) != is_gpu)
                    continue;
                if (count == index && platform && device) {
                    *platform = plats[p];
                    *device = devs[d];
                }
                count++;
            }
        }
    }
    return count;
}

int tsr__opencl_device_count(void)
{
    return enumerate(-1, NULL, NULL);
}

const char *tsr__opencl_unavailable_reason(void)
{
    cl_uint np = 0;
    cl_int e = clGetPlatformIDs(0, NULL, &np);
    if (e != CL_SUCCESS || np == 0)
        return "no OpenCL platform is installed (no ICD found; install an OpenCL driver such as "
               "pocl-opencl-icd)";
    return "no usable OpenCL device is available (no device with a compiler)";
}

tsr_status tsr__opencl_open(tsr_ctx *ctx, int index, struct tsr__opencl **out)
{
    *out = NULL;
    cl_platform_id plat = NULL;
    cl_device_id dev = NULL;
    int n = enumerate(index, &plat, &dev);
    if (index < 0 || index >= n)
        return tsr__fail(ctx, TSR_ERR_NO_BACKEND, "OpenCL device %d requested, %d present", index,
                         n);
    struct tsr__opencl *c = (struct tsr__opencl *)calloc(1, sizeof *c);
    if (!c)
        return tsr__fail(ctx, TSR_ERR_OUT_OF_MEMORY, "out of memory");
    c->platform = plat;
    c->device = dev;
    ctx->opencl = c; /* closed by the caller on failure */
    *out = c;
    cl_int err = CL_SUCCESS;
    cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)plat, 0};
    c->context = clCreateContext(props, 1, &dev, NULL, NULL, &err);
    if (err != CL_SUCCESS)
        return tsr__opencl_error(ctx, err, "clCreateContext", __FILE__, __LINE__);
    c->queue = clCreateCommandQueue(c->context, dev, 0, &err);
    if (err != CL_SUCCESS)
        return tsr__opencl_error(ctx, err, "clCreateCommandQueue", __FILE__, __LINE__);
    char dname[128] = "", pname[64] = "";
    clGetDeviceInfo(dev, CL_DEVICE_NAME, sizeof dname - 1, dname, NULL);
    clGetPlatformInfo(plat, CL_PLATFORM_NAME, sizeof pname - 1, pname, NULL);
    clGetDeviceInfo(dev, CL_DEVICE_TYPE, sizeof c->type, &c->type, NULL);
    snprintf(c->name, sizeof c->name, "%s (OpenCL, %s, %s)", dname, pname,
             (c->type & CL_DEVICE_TYPE_GPU) ? "GPU" : "CPU/other");
    return TSR_OK;
}

void tsr__opencl_close(struct tsr__opencl *c)
{
    if (!c)
        return;
    if (c->queue)
        clFinish(c->queue);
    for (int i = 0; i < TSR__CL_KERNELS; i++)
        if (c->kernels[i].kernel)
            clReleaseKernel(c->kernels[i].kernel);
    for (int i = 0; i < TSR__CL_PROGRAMS; i++)
        if (c->programs[i].program)
            clReleaseProgram(c->programs[i].program);
    for (int i = 0; i < TSR__CL_SLOTS; i++)
        if (c->scratch[i])
            clReleaseMemObject(c->scratch[i]);
    if (c->queue)
        clReleaseCommandQueue(c->queue);
    if (c->context)
        clReleaseContext(c->context);
    free(c);
}

const char *tsr__opencl_device_name(const struct tsr__opencl *c)
{
    return c ? c->name : "none";
}

tsr_status tsr__opencl_program(tsr_ctx *ctx, const char *key, const char *source,
                               const char *options, cl_program *out)
{
    struct tsr__opencl *c = ctx->opencl;
    int free_slot = -1;
    for (int i = 0; i < TSR__CL_PROGRAMS; i++) {
        if (c->programs[i].key && strcmp(c->programs[i].key, key) == 0) {
            *out = c->programs[i].program;
            return TSR_OK;
        }
        if (!c->programs[i].key && free_slot < 0)
            free_slot = i;
    }
    if (free_slot < 0)
        return tsr__fail(ctx, TSR_ERR_INTERNAL, "OpenCL program cache full building %s", key);
    cl_int err = CL_SUCCESS;
    size_t len = strlen(source);
    cl_program p = clCreateProgramWithSource(c->context, 1, &source, &len, &err);
    if (err != CL_SUCCESS)
        return tsr__opencl_error(ctx, err, "clCreateProgramWithSource", __FILE__, __LINE__);
    err = clBuildProgram(p, 1, &c->device, options ? options : "", NULL, NULL);
    if (err != CL_SUCCESS) {
        char log[400] = "";
        size_t got = 0;
        clGetProgramBuildInfo(p, c->device, CL_PROGRAM_BUILD_LOG, sizeof log - 1, log, &got);
        log[sizeof log - 1] = 0;
        for (char *s = log; *s; s++)
            if (*s == '\n' || *s == '\r')
                *s = ' ';
        clReleaseProgram(p);
        return tsr__fail(ctx, TSR_ERR_DEVICE, "OpenCL program %s failed to build (%s): %s", key,
                         tsr__opencl_error_name(err), log[0] ? log : "(no build log)");
    }
    c->programs[free_slot].key = key;
    c->programs[free_slot].program = p;
    *out = p;
    return TSR_OK;
}

tsr_status tsr__opencl_kernel(tsr_ctx *ctx, const char *key, const char *source,
                              const char *options, const char *name, cl_kernel *out)
{
    struct tsr__opencl *c = ctx->opencl;
    cl_program p;
    tsr_status st = tsr__opencl_program(ctx, key, source, options, &p);
    if (st != TSR_OK)
        return st;
    int free_slot = -1;
    for (int i = 0; i < TSR__CL_KERNELS; i++) {
        if (c->kernels[i].kernel && c->kernels[i].program == p &&
            strcmp(c->kernels[i].name, name) == 0) {
            *out = c->kernels[i].kernel;
            return TSR_OK;
        }
        if (!c->kernels[i].kernel && free_slot < 0)
            free_slot = i;
    }
    if (free_slot < 0 || strlen(name) >= sizeof c->kernels[0].name)
        return tsr__fail(ctx, TSR_ERR_INTERNAL, "OpenCL kernel cache full creating %s", name);
    cl_int err = CL_SUCCESS;
    cl_kernel k = clCreateKernel(p, name, &err);
    if (err != CL_SUCCESS)
        return tsr__fail(ctx, TSR_ERR_DEVICE, "OpenCL clCreateKernel(%s) failed: %s", name,
                         tsr__opencl_error_name(err));
    c->kernels[free_slot].program = p;
    snprintf(c->kernels[free_slot].name, sizeof c->kernels[0].name, "%s", name);
    c->kernels[free_slot].kernel = k;
    *out = k;
    return TSR_OK;
}

tsr_status tsr__opencl_scratch(tsr_ctx *ctx, int slot, size_t size, cl_mem *out)
{
    struct tsr__opencl *c = ctx->opencl;
    if (slot < 0 || slot >= TSR__CL_SLOTS)
        return tsr__fail(ctx, TSR_ERR_INTERNAL, "OpenCL scratch slot %d out of range", slot);
    if (size == 0)
        size = 1;
    if (c->scratch_size[slot] < size) {
        if (c->scratch[slot]) {
            TSR_CL_TRY(ctx, clFinish(c->queue));
            clReleaseMemObject(c->scratch[slot]);
            c->scratch[slot] = NULL;
            c->scratch_size[slot] = 0;
        }
        cl_int err = CL_SUCCESS;
        cl_mem m = clCreateBuffer(c->context, CL_MEM_READ_WRITE, size, NULL, &err);
        if (err != CL_SUCCESS)
            return tsr__opencl_error(ctx, err, "clCreateBuffer", __FILE__, __LINE__);
        c->scratch[slot] = m;
        c->scratch_size[slot] = size;
    }
    *out = c->scratch[slot];
    return TSR_OK;
}
