/* The context every fuzz contract runs in (the libFuzzer targets and the replay test alike): the
 * single-threaded reference backend, at most 1<<22 pixels per image and 64 MB per allocation, so
 * that single inputs stay cheap. NULL when it cannot be created. */
#ifndef TSR_FUZZ_CTX_H
#define TSR_FUZZ_CTX_H

#include "tessera/tessera.h"

static tsr_ctx *tsr_fuzz_ctx(void)
{
    tsr_ctx_options opt;
    tsr_ctx_options_init(&opt);
    opt.backend = TSR_BACKEND_REFERENCE;
    opt.max_image_pixels = (uint64_t)1 << 22;
    opt.max_memory = (uint64_t)64 << 20;
    tsr_ctx *ctx = NULL;
    return tsr_ctx_create(&opt, &ctx) == TSR_OK ? ctx : NULL;
}

#endif
