/* The background opening of the CUDA device (device_opening.h). */
#define _POSIX_C_SOURCE 200809L
#include "core/device_opening.h"

#include "core/ctx.h"
#include "cuda/cuda_device.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

struct tsr__device_opening {
    pthread_t thread;
    tsr_ctx scratch; /* the thread's own context: its messages and its ->cuda */
    tsr_status status;
};

static void *open_device(void *arg)
{
    struct tsr__device_opening *o = arg;
    tsr_ctx *c = &o->scratch;
    o->status = tsr__cuda_device_count() > 0
                    ? tsr__cuda_open(c, c->opt.device, c->opt.cuda_stream, &c->cuda)
                    : TSR_ERR_NO_BACKEND;
    if (o->status != TSR_OK) {
        tsr__cuda_close(c->cuda);
        c->cuda = NULL;
    }
    return NULL;
}

tsr_status tsr__device_opening_start(tsr_ctx *ctx)
{
    if (ctx->opening || ctx->cuda)
        return TSR_OK;
    struct tsr__device_opening *o = calloc(1, sizeof *o);
    if (!o)
        return tsr__fail(ctx, TSR_ERR_OUT_OF_MEMORY, "out of memory");
    o->scratch.opt = ctx->opt;
    o->scratch.threads = ctx->threads;
    if (pthread_create(&o->thread, NULL, open_device, o) != 0) {
        free(o);
        return tsr__fail(ctx, TSR_ERR_OUT_OF_MEMORY, "cannot start a thread to open the device");
    }
    ctx->opening = o;
    return TSR_OK;
}

int tsr__device_opening_adopt(tsr_ctx *ctx)
{
    struct tsr__device_opening *o = ctx->opening;
    if (!o)
        return 0;
    pthread_join(o->thread, NULL);
    ctx->opening = NULL;
    int ok = o->status == TSR_OK && tsr__cuda_use(o->scratch.cuda) == TSR_OK;
    if (ok)
        ctx->cuda = o->scratch.cuda;
    else
        tsr__cuda_close(o->scratch.cuda);
    free(o);
    return ok;
}
