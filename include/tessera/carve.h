/* tessera carve: content-aware resizing by seam carving (Avidan and Shamir 2007), exact.
 *
 * The definition every backend reproduces bit for bit:
 *   luma    Y = (77*R + 150*G + 29*B + 128) >> 8 (gray: Y = the sample); 16-bit images use the
 *           top 8 bits of each sample; alpha is carried, never used.
 *   energy  backward: e = |Y(x+1,y)-Y(x-1,y)| + |Y(x,y+1)-Y(x,y-1)|, indices clamped;
 *           forward (Rubinstein et al. 2008): CU, CL, CR transition costs, integer.
 *   DP      M(y,x) = cost + min over the existing candidates x-1, x, x+1 of row y-1, compared
 *           left, centre, right with strict <; the seam ends at the leftmost minimum of the last
 *           row and follows the chosen predecessors back up.
 *   masks   seams are ranked by kept pixels crossed (fewest first), then drop pixels crossed
 *           (most first), then energy; implemented as one 64-bit key per cell, its mask
 *           terms above every seam's energy.
 *   rows    horizontal seams are vertical seams of the transposed image.
 * Costs are unsigned 64-bit. Every side (input, output, intermediate) is at most
 * TSR_CARVE_MAX_SIDE pixels, which keeps the largest key below 2^59; larger sizes are rejected
 * with TSR_ERR_LIMIT.
 *
 * Enlargement by k seams: the k seams removal would take are found on a copy, then each seam
 * pixel p(x) gets a new pixel right of it, (p(x) + p(x+1) + 1) >> 1 per channel (p(x+1) clamped
 * to the row), at most max(1, floor(width/2)) seams per round. Inserted pixels copy the seam
 * pixel's mask bits. */
#ifndef TESSERA_CARVE_H
#define TESSERA_CARVE_H

#include "tessera/core.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TSR_CARVE_MAX_SIDE 65535

typedef enum tsr_carve_energy {
    TSR_CARVE_BACKWARD = 0, /* gradient magnitude of the current image (default) */
    TSR_CARVE_FORWARD       /* energy inserted by the removal (Rubinstein et al. 2008) */
} tsr_carve_energy;

typedef enum tsr_carve_mode {
    TSR_CARVE_EXACT = 0, /* one seam per DP pass: the exact definition (default) */
    TSR_CARVE_BATCH      /* K disjoint connected seams per pass, the top and bottom halves
                            carved towards the middle row independently, their DPs restarting
                            every ~1024 rows (approximate, fast) */
} tsr_carve_mode;

typedef enum tsr_carve_order {
    TSR_CARVE_WIDTH_FIRST = 0, /* all vertical seams, then all horizontal (default) */
    TSR_CARVE_HEIGHT_FIRST,    /* all horizontal seams, then all vertical */
    TSR_CARVE_OPTIMAL          /* when both sides shrink: the order of least total removed energy
                                  (Avidan and Shamir's transport map); otherwise the shrinking side first */
} tsr_carve_order;

/* "backward", "forward" / "exact", "batch" / "width-first", "height-first", "optimal". */
const char *tsr_carve_energy_name(tsr_carve_energy e);
const char *tsr_carve_mode_name(tsr_carve_mode m);
const char *tsr_carve_order_name(tsr_carve_order o);
tsr_status tsr_carve_energy_parse(const char *name, tsr_carve_energy *out);
tsr_status tsr_carve_mode_parse(const char *name, tsr_carve_mode *out);
tsr_status tsr_carve_order_parse(const char *name, tsr_carve_order *out);

/* What a carve did (filled when tsr_carve_options.report is set). */
typedef struct tsr_carve_report {
    int32_t removed_vertical, removed_horizontal;   /* seams removed (object removal included) */
    int32_t inserted_vertical, inserted_horizontal; /* seams inserted */
    int64_t dp_passes;                              /* dynamic-programming passes over the image */
    uint64_t removed_energy; /* sum over removed seams of the seam's energy (the energy part of
                                its DP cost: backward e, or forward M), for quality reports */
    double device_ms;        /* CUDA backend: GPU time of the seam passes, from each pass's
                                first DP to its last seam (CUDA events; uploads, downloads and
                                the host's image work excluded), and of the optimal order's
                                transport map and removals; 0 on the CPU backends */
} tsr_carve_report;

typedef struct tsr_carve_options {
    int32_t width, height; /* target size; 0 keeps that side (default 0, 0). With a drop mask
                              and both 0: object removal, then the original size is restored */
    tsr_carve_energy energy;
    tsr_carve_mode mode;
    tsr_carve_order order;
    int32_t batch_seams;      /* batch mode: seams per DP pass; 0 (default) = adaptive:
                                 K = max(1, floor(current_width / 64)), at most the seams left */
    const tsr_image *keep;    /* optional u8 1-channel mask of the input's size: nonzero = keep */
    const tsr_image *drop;    /* optional u8 1-channel mask of the input's size: nonzero = remove */
    tsr_image *seams;         /* optional overlay output: the input's size and depth, RGB (RGBA when
                                 the input has alpha; see tsr_carve_overlay_channels), the input
                                 with every removed or inserted seam pixel painted red */
    tsr_carve_report *report; /* optional */
} tsr_carve_options;

void tsr_carve_options_init(tsr_carve_options *opt);

/* The output size tsr_carve will produce for src under opt (no work is done). Fails with
 * TSR_ERR_INVALID_ARGUMENT / TSR_ERR_LIMIT for targets that are not allowed. */
tsr_status tsr_carve_size(tsr_ctx *ctx, const tsr_image *src, const tsr_carve_options *opt,
                          int32_t *width, int32_t *height);
/* Where a carve of a width x height image would run on a device under this context's
 * TSR_BACKEND_AUTO (images from 1 megapixel go to CUDA when a device is present), starts opening
 * that device now (tsr_ctx_prepare), so that its start-up overlaps the caller's decoding of the
 * image (tsr_image_probe gives the size first). Otherwise, and on contexts with an explicit
 * backend, it does nothing. Optional: tsr_carve opens the device itself. */
tsr_status tsr_carve_prepare(tsr_ctx *ctx, int32_t width, int32_t height);
/* Channels of the seam overlay for an input of `channels` channels: 3, or 4 with alpha. */
int32_t tsr_carve_overlay_channels(int32_t channels);

/* A keep or drop mask from an image of the input's size (a drawing over it, a segmentation):
 * mask (u8, one channel, img's size, host memory, allocated by the caller) is 255 where any
 * colour sample of img is nonzero (gray: the sample; RGB(A): R, G or B; alpha is ignored), else
 * 0. img: u8 or u16, 1-4 channels, host memory. */
tsr_status tsr_carve_mask_from_image(tsr_ctx *ctx, const tsr_image *img, tsr_image *mask);

/* Carves src (u8 or u16, 1-4 channels, host memory) into dst, which the caller allocated with
 * the size from tsr_carve_size and src's channels and depth. opt may be NULL (then dst's size
 * is the target). Every backend gives the same bytes as TSR_BACKEND_REFERENCE. */
tsr_status tsr_carve(tsr_ctx *ctx, const tsr_image *src, tsr_image *dst,
                     const tsr_carve_options *opt);

/* The seam-order map of src: a u16 1-channel image of src's size whose value at a pixel is the
 * index (0, 1, ...) of the vertical seam that removes it when src is carved narrower one seam
 * at a time under opt's energy and masks, down to opt->width when that is below src's width,
 * else down to one column; pixels that survive hold 65535. Each row holds every index exactly
 * once. Needs src width <= 65535. opt->height, mode, order and seams are ignored. */
tsr_status tsr_carve_map(tsr_ctx *ctx, const tsr_image *src, const tsr_carve_options *opt,
                         tsr_image *map);
/* Retargets src to dst->width (dst->height == src height) with a map from tsr_carve_map:
 * keeps the pixels whose value is >= src width - dst width, in order. TSR_ERR_INVALID_ARGUMENT
 * when the map does not match src or does not reach that width. */
tsr_status tsr_carve_retarget(tsr_ctx *ctx, const tsr_image *src, const tsr_image *map,
                              tsr_image *dst);

#ifdef __cplusplus
}
#endif
#endif
