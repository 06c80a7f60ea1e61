/* The migrate CUDA backend in a build without CUDA: an entry without functions, which migrate.c
 * skips (so a request for cuda is TSR_ERR_NO_BACKEND and auto stays on the CPU). */
#include "migrate/migrate_backends.h"

const tsr__migrate_backend tsr__migrate_backend_cuda = {TSR_BACKEND_CUDA, NULL, NULL, NULL, NULL};

double tsr__migrate_cuda_loop_ms(const tsr_ctx *ctx)
{
    (void)ctx;
    return -1.0;
}
