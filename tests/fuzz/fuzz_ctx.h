/* The context every fuzz contract runs in (the libFuzzer targets and the replay test alike): the
 * single-threaded reference backend, at most max_pixels pixels per image and 64 MB per
 * allocation, so that single inputs stay cheap. NULL when it cannot be created. */
#ifndef TSR_FUZZ_CTX_H
#define TSR_FUZZ_CTX_H

#include "tessera/tessera.h"

static tsr_ctx *tsr_fuzz_ctx_pixels(uint64_t max_pixels)
{
    tsr_ctx_options opt;
    tsr_ctx_options_init(&opt);
    opt.backend = TSR_BACKEND_REFERENCE;
    opt.max_image_pixels = max_pixels;
    opt.max_memory = (uint64_t)64 << 20;
    tsr_ctx *ctx = NULL;
    return tsr_ctx_create(&opt, &ctx) == TSR_OK ? ctx : NULL;
}

/* 1<<22 pixels: the image readers and the others. */
static tsr_ctx *tsr_fuzz_ctx(void)
{
    return tsr_fuzz_ctx_pixels((uint64_t)1 << 22);
}

#endif
