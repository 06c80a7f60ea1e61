/* The one rule by which an operation chooses its backend. Each domain's API file calls
 * tsr__backend_choose once per operation and dispatches on the result; no other file of the
 * domain chooses. */
#ifndef TSR_CORE_BACKEND_H
#define TSR_CORE_BACKEND_H

#include "core/ctx.h"

/* A set of backends: the bits (1u << backend). */
#define TSR__BACKEND_BIT(b) (1u << (unsigned)(b))

/* The backend an operation runs on, from the backends the domain offers (a set) and the
 * context's request (tsr_ctx_options.backend):
 * - an explicit request outside `offered` fails with TSR_ERR_NO_BACKEND, naming `op`; a device
 *   backend asked for was opened when the context was made (which fails where there is none);
 * - TSR_BACKEND_AUTO takes `auto_pick`, the domain's rule for these data, with `auto_reason`
 *   saying why ("device images stay on the device"); a pick of CUDA or OpenCL opens the device
 *   here, on first use (the only place a CUDA context starts under auto), and where it cannot
 *   be used the operation runs on the CPU and the reason says so.
 * Records the choice and its reason for tsr_ctx_backend / tsr_ctx_backend_reason. */
tsr_status tsr__backend_choose(tsr_ctx *ctx, const char *op, unsigned offered,
                               tsr_backend auto_pick, const char *auto_reason, tsr_backend *out);

#endif
