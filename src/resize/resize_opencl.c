/* OpenCL backend of tsr_resize: executes a plan (plan.h) with resize.cl's kernels, which share
 * their per-element arithmetic with the CUDA backend and follow resize_ref.c bit for bit.
 * Host images only: the source and the tables are uploaded to grow-only scratch buffers, one
 * kernel runs over the output, the result is read back; the queue is in order, so the final
 * blocking read completes everything. */
#include "opencl/opencl_internal.h"
#include "resize/resize_backends.h"
#include "resize/resize_gpu.h"
#include "resize_cl.h"

#include <stdio.h>

enum { SLOT_SRC = 0, SLOT_DST = 1, SLOT_TAB = 2 };

/* Correctly rounded division is part of the contract (area's sum / count): required. */
static const char *const build_options = "-cl-fp32-correctly-rounded-divide-sqrt";

static tsr_status check_device(tsr_ctx *ctx)
{
    cl_device_fp_config fp = 0;
    TSR_CL_TRY(ctx, clGetDeviceInfo(ctx->opencl->device, CL_DEVICE_SINGLE_FP_CONFIG, sizeof fp, &fp,
                                    NULL));
    if (!(fp & CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT))
        return tsr__fail(ctx, TSR_ERR_UNSUPPORTED,
                         "OpenCL device %s lacks correctly rounded float division, which exact "
                         "resize needs",
                         ctx->opencl->name);
    return TSR_OK;
}

tsr_status tsr__resize_opencl(tsr_ctx *ctx, const tsr__resize_plan *plan, const tsr_image *src,
                              tsr_image *dst)
{
    if (src->memory != TSR_MEMORY_HOST || dst->memory != TSR_MEMORY_HOST)
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT,
                         "the OpenCL backend takes host images only (got a CUDA device image)");
    struct tsr__opencl *cl = ctx->opencl;
    if (!cl)
        return tsr__fail(ctx, TSR_ERR_NO_BACKEND, "OpenCL backend not open on this context");
    tsr_status st = check_device(ctx);
    if (st != TSR_OK)
        return st;

    size_t es = (size_t)plan->depth;
    size_t srow = (size_t)plan->src_w * plan->cn * es, drow = (size_t)plan->dst_w * plan->cn * es;
    size_t sbytes = srow * (size_t)plan->src_h, dbytes = drow * (size_t)plan->dst_h;
    if (srow / es / plan->cn != (size_t)plan->src_w || sbytes / srow != (size_t)plan->src_h ||
        dbytes / drow != (size_t)plan->dst_h)
        return tsr__fail(ctx, TSR_ERR_OVERFLOW, "image size overflows");
    rk_params p;
    size_t tbytes = tsr__resize_gpu_params(plan, srow, drow, &p);
    if (!tbytes)
        return tsr__fail(ctx, TSR_ERR_LIMIT,
                         "image row or plan tables too large for the OpenCL "
                         "kernels (over 2 GiB)");

    cl_kernel k;
    st = tsr__opencl_kernel(ctx, "resize.cl", resize_cl_source, build_options, "tsr_resize_generic",
                            &k);
    if (st != TSR_OK)
        return st;
    cl_mem ds, dd, dt;
    if ((st = tsr__opencl_scratch(ctx, SLOT_SRC, sbytes, &ds)) != TSR_OK ||
        (st = tsr__opencl_scratch(ctx, SLOT_DST, dbytes, &dd)) != TSR_OK ||
        (st = tsr__opencl_scratch(ctx, SLOT_TAB, tbytes, &dt)) != TSR_OK)
        return st;

    cl_command_queue q = cl->queue;
    size_t origin[3] = {0, 0, 0};
    size_t sregion[3] = {srow, (size_t)plan->src_h, 1};
    TSR_CL_TRY(ctx, clEnqueueWriteBufferRect(q, ds, CL_FALSE, origin, origin, sregion, srow, 0,
                                             src->stride, 0, src->data, 0, NULL, NULL));
    for (int t = 0; t < TSR__RT_COUNT; t++) {
        size_t n = 0;
        const void *tp = tsr__resize_plan_table(plan, (tsr__resize_table)t, &n);
        if (n)
            TSR_CL_TRY(
                ctx, clEnqueueWriteBuffer(q, dt, CL_FALSE, (size_t)p.off[t], n, tp, 0, NULL, NULL));
    }
    TSR_CL_TRY(ctx, clSetKernelArg(k, 0, sizeof(cl_mem), &ds));
    TSR_CL_TRY(ctx, clSetKernelArg(k, 1, sizeof(cl_mem), &dd));
    TSR_CL_TRY(ctx, clSetKernelArg(k, 2, sizeof(cl_mem), &dt));
    TSR_CL_TRY(ctx, clSetKernelArg(k, 3, sizeof p, &p));
    size_t elems = (size_t)plan->dst_w * plan->cn;
    size_t local[2] = {64, 4};
    size_t global[2] = {(elems + 63) / 64 * 64, ((size_t)plan->dst_h + 3) / 4 * 4};
    TSR_CL_TRY(ctx, clEnqueueNDRangeKernel(q, k, 2, NULL, global, local, 0, NULL, NULL));
    size_t dregion[3] = {drow, (size_t)plan->dst_h, 1};
    TSR_CL_TRY(ctx, clEnqueueReadBufferRect(q, dd, CL_TRUE, origin, origin, dregion, drow, 0,
                                            dst->stride, 0, dst->data, 0, NULL, NULL));
    return TSR_OK;
}
