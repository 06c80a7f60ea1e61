/* tsr__backend_choose: explicit requests checked against what a domain offers, auto resolved
 * by the domain's rule, devices opened on first use. */
#include "core/backend.h"

#include "core/device_opening.h"
#include "cuda/cuda_device.h"
#include "opencl/opencl_device.h"

#include <stdio.h>
#include <string.h>

/* Opens the device of `b` unless it is open; 0 when it cannot be used (the context's message
 * and failed state are left as they were). */
static int open_device(tsr_ctx *ctx, tsr_backend b)
{
    if (b == TSR_BACKEND_CUDA && ctx->opening)
        tsr__device_opening_adopt(ctx); /* tsr_ctx_prepare's; when it failed, try once more */
    if ((b == TSR_BACKEND_CUDA && ctx->cuda) || (b == TSR_BACKEND_OPENCL && ctx->opencl))
        return 1;
    char message[sizeof ctx->message];
    memcpy(message, ctx->message, sizeof message);
    tsr_status st = TSR_ERR_NO_BACKEND;
    if (b == TSR_BACKEND_CUDA && tsr__cuda_device_count() > 0) {
        st = tsr__cuda_open(ctx, ctx->opt.device, ctx->opt.cuda_stream, &ctx->cuda);
        if (st != TSR_OK) {
            tsr__cuda_close(ctx->cuda);
            ctx->cuda = NULL;
        }
    } else if (b == TSR_BACKEND_OPENCL && tsr__opencl_device_count() > 0) {
        st = tsr__opencl_open(ctx, ctx->opt.device, &ctx->opencl);
        if (st != TSR_OK) {
            tsr__opencl_close(ctx->opencl);
            ctx->opencl = NULL;
        }
    }
    ctx->failed = 0; /* a device that fails to open leaves the context usable on the CPU */
    memcpy(ctx->message, message, sizeof message);
    return st == TSR_OK;
}

static void name_backend_list(unsigned set, char *out, size_t size)
{
    out[0] = '\0';
    size_t n = 0;
    for (int b = TSR_BACKEND_CPU; b <= TSR_BACKEND_OPENCL; b++)
        if (set & TSR__BACKEND_BIT(b))
            n += (size_t)snprintf(out + n, n < size ? size - n : 0, "%s%s", n ? ", " : "",
                                  tsr_backend_name((tsr_backend)b));
}

tsr_status tsr__backend_choose(tsr_ctx *ctx, const char *op, unsigned offered,
                               tsr_backend auto_pick, const char *auto_reason, tsr_backend *out)
{
    tsr_backend want = ctx->opt.backend;
    if (want != TSR_BACKEND_AUTO) {
        if (!(offered & TSR__BACKEND_BIT(want))) {
            char list[64];
            name_backend_list(offered, list, sizeof list);
            return tsr__fail(ctx, TSR_ERR_NO_BACKEND, "%s has no %s backend (it runs on: %s)", op,
                             tsr_backend_name(want), list);
        }
        tsr__ctx_set_backend(ctx, want, "asked for");
        *out = want;
        return TSR_OK;
    }
    tsr_backend pick = auto_pick;
    const char *why = auto_reason;
    if ((pick == TSR_BACKEND_CUDA || pick == TSR_BACKEND_OPENCL) && !open_device(ctx, pick)) {
        why = pick == TSR_BACKEND_CUDA ? "no usable CUDA device" : "no usable OpenCL device";
        pick = TSR_BACKEND_CPU;
    }
    if (!(offered & TSR__BACKEND_BIT(pick)))
        return tsr__fail(ctx, TSR_ERR_INTERNAL, "%s: auto chose %s, which it does not offer", op,
                         tsr_backend_name(pick));
    tsr__ctx_set_backend(ctx, pick, why);
    *out = pick;
    return TSR_OK;
}
