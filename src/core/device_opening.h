/* tsr_ctx_prepare's opening of the CUDA device on a thread of its own (device_opening.c). The
 * thread works on a scratch context of its own: the caller's context gets the device only when
 * it adopts the result, on the caller's thread, so nothing else ever sees a half-open device. */
#ifndef TSR_CORE_DEVICE_OPENING_H
#define TSR_CORE_DEVICE_OPENING_H

#include "tessera/core.h"

struct tsr__device_opening;

/* Starts opening ctx's CUDA device (ctx->opt.device, ctx->opt.cuda_stream) unless an opening
 * is under way or the device is open; TSR_OK, or TSR_ERR_OUT_OF_MEMORY when no thread could be
 * started (nothing then runs). */
tsr_status tsr__device_opening_start(tsr_ctx *ctx);
/* Waits for the opening and gives its device to ctx (ctx->cuda); 1 when ctx now has a device,
 * 0 when the opening failed or none was started. The failure's message is not kept: the
 * operation that wanted the device falls back as if it had opened it itself and failed. */
int tsr__device_opening_adopt(tsr_ctx *ctx);

#endif
