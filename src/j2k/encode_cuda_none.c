/* The encoder's device side (encode_cuda.h) in a build without CUDA. */
#include "j2k/encode_cuda.h"

tsr_status tsr__j2k_enc_cuda_begin(tsr_ctx *ctx, const tsr_image *img, uint32_t x0, uint32_t y0)
{
    (void)img, (void)x0, (void)y0;
    return tsr__fail(ctx, TSR_ERR_NO_BACKEND, "j2k encode on CUDA: not built with CUDA");
}

tsr_status tsr__j2k_enc_cuda_transform(tsr_ctx *ctx, tsr__j2k_tile *t, uint32_t prec, int mct,
                                       int rev)
{
    (void)t, (void)prec, (void)mct, (void)rev;
    return tsr__fail(ctx, TSR_ERR_NO_BACKEND, "j2k encode on CUDA: not built with CUDA");
}

tsr_status tsr__j2k_enc_cuda_blocks(tsr_ctx *ctx, const tsr__j2k_tile *t,
                                    tsr__j2k_enc_cuda_block *blocks, uint32_t n, int ht, int fast,
                                    int track, tsr__j2k_bytes *out)
{
    (void)t, (void)blocks, (void)n, (void)ht, (void)fast, (void)track, (void)out;
    return tsr__fail(ctx, TSR_ERR_NO_BACKEND, "j2k encode on CUDA: not built with CUDA");
}
