/* The device side of a JPEG 2000 encode on CUDA (encode_cuda.cu; encode_cuda_none.c in a build
 * without CUDA), for encode.c: the image on the device (a device image as it is; a host image
 * uploaded into a device buffer the context keeps), each tile's samples, colour transform and
 * forward DWT there (fxform_cuda.h), the code-blocks coded there too (HT and Part 1, the CPU's
 * coders), their segments (and rate control's truncation points) downloaded. Everything runs on the
 * context's CUDA stream (the caller has chosen the CUDA backend); one encode at a time per context.
 */
#ifndef TSR_J2K_ENCODE_CUDA_H
#define TSR_J2K_ENCODE_CUDA_H

#include "j2k/encode_stages.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Starts an encode of img (8- or 16-bit samples, 1..4 channels, host or device memory), its
 * top-left sample at (x0, y0) on the reference grid: a host image is copied to the device. */
tsr_status tsr__j2k_enc_cuda_begin(tsr_ctx *ctx, const tsr_image *img, uint32_t x0, uint32_t y0);

/* Tile t of the image given to tsr__j2k_enc_cuda_begin through the samples, with mct the RCT
 * (rev) or ICT, and the 5/3 (rev) or 9/7 DWT on the device, as encode.c's transform_tile does
 * (samples of prec bits); the coefficients stay there for tsr__j2k_enc_cuda_blocks (until the
 * next tile's transform). */
tsr_status tsr__j2k_enc_cuda_transform(tsr_ctx *ctx, tsr__j2k_tile *t, uint32_t prec, int mct,
                                       int rev);

/* One code-block of the last tile transformed, for tsr__j2k_enc_cuda_blocks. */
typedef struct tsr__j2k_enc_cuda_block {
    size_t at;       /* in: its first coefficient's place in its tile-component (tc->data + at) */
    uint32_t comp;   /* in: its tile-component */
    uint32_t w, h;   /* in: its size (ht_encode.h's and t1_encode.h's limits) */
    uint32_t orient; /* in: its sub-band's orientation (0 LL .. 3 HH) */
    float delta;     /* in: irreversible: its sub-band's step (deadzone quantisation first,
                        fxform_hd.h's tsr__j2k_quantise1 with 1 / delta); 0: reversible */
    uint8_t K;       /* out: its bit-planes (tsr__t1_bitplanes of the quantised block) */
    uint32_t len;    /* out: its bytes: HT's cleanup segment (tsr__ht_encode_block) or with track
                        all its candidates' (tsr__j2k_ht_candidates); Part 1's one segment
                        (tsr__t1_encode_block, style 0); 0 when K = 0 */
    size_t off;      /* out: where they start in out */
    /* out, with track (in memory the context keeps until the next call): np truncation points,
     * HT's candidates (sets: offsets relative to off) or Part 1's passes, their rate and dist
     * (tsr__j2k_ht_candidates', or tsr__t1_enc's pass_rate and pass_dist); err0: HT's *err0,
     * or Part 1's error that every pass leaves (encode.c's code_block's floor_err) */
    uint32_t np;
    const tsr__j2k_ht_set *sets;
    const uint32_t *rate;
    const double *dist;
    double err0;
} tsr__j2k_enc_cuda_block;

/* Codes the n code-blocks on the device by the CPU's coders: with ht (ht_encode_hd.h,
 * ht_rd_hd.h) each one's cleanup pass down to plane 0, or with track (rate control) its
 * truncation candidates; with fast (never with ht or track) the fast-nonstandard coder
 * (fast_coder_hd.h: a warp a block, a lane a stripe), one segment; else Part 1's passes
 * (t1_encode_hd.h, style 0), with track their truncation points. Their bytes are appended to
 * out, each block's outputs filled. TSR_ERR_INTERNAL when a block's coder fails (as encode.c's
 * code_block reports it). */
tsr_status tsr__j2k_enc_cuda_blocks(tsr_ctx *ctx, const tsr__j2k_tile *t,
                                    tsr__j2k_enc_cuda_block *blocks, uint32_t n, int ht, int fast,
                                    int track, tsr__j2k_bytes *out);

#ifdef __cplusplus
}
#endif
#endif
