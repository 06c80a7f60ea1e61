/* tessera JPEG 2000: decoding of ITU-T T.800 (Part 1) and T.814 (Part 15, HTJ2K) codestreams and
 * of JP2/JPH files; lossless Part 1 encoding (tsr_j2k_encode, at the end).
 *
 * Two calls: tsr_j2k_read_header() reads the main header (and the JP2 boxes) and describes the
 * image; tsr_j2k_decode() decodes into planar buffers that the caller owns. The caller first asks
 * for the output geometry with tsr_j2k_decode_layout() (which honours the options: reduced
 * resolution, region, components, palette expansion), allocates each plane's samples, then
 * decodes. tsr_j2k_decode_alloc() does all three, allocating through the context (free with
 * tsr_j2k_planes_free()). tsr_j2k_decode_image() decodes into an interleaved 8- or 16-bit
 * image instead (below).
 *
 * Samples are int32_t, one plane per output component, row-major, `stride` samples apart; values
 * are the reconstructed image samples (DC level shift applied, clamped to the component's
 * precision and signedness). */
#ifndef TESSERA_J2K_H
#define TESSERA_J2K_H

#include "tessera/core.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum tsr_j2k_container {
    TSR_J2K_CODESTREAM = 0, /* raw codestream (.j2k, .j2c, .jhc) */
    TSR_J2K_JP2 = 1,        /* JP2 file format (T.800 Annex I) */
    TSR_J2K_JPH = 2         /* JPH file format (T.814 Annex D) */
} tsr_j2k_container;

typedef enum tsr_j2k_progression {
    TSR_J2K_LRCP = 0,
    TSR_J2K_RLCP = 1,
    TSR_J2K_RPCL = 2,
    TSR_J2K_PCRL = 3,
    TSR_J2K_CPRL = 4
} tsr_j2k_progression;

/* One codestream component as the SIZ marker declares it. */
typedef struct tsr_j2k_component {
    uint32_t x0, y0;        /* first sample on the component's grid: ceil(XOsiz/XRsiz) */
    uint32_t width, height; /* samples */
    uint8_t dx, dy;         /* subsampling XRsiz, YRsiz (1..255) */
    uint8_t precision;      /* bits per sample, 1..38 */
    uint8_t is_signed;
} tsr_j2k_component;

/* Main-header parameters (the first tile's coding style where tiles may differ). */
typedef struct tsr_j2k_info {
    tsr_j2k_container container;
    uint16_t rsiz;             /* capabilities (Rsiz); bit 14: HTJ2K */
    int is_ht;                 /* the codestream uses HT code-blocks (CAP or COD) */
    int nonstandard;           /* 1: NOT a JPEG 2000 stream: its main header's COM marks
                                  tessera's fast-nonstandard block coder (tsr_j2k_encode's
                                  mode), which only tessera decodes */
    uint32_t x0, y0, x1, y1;   /* image area on the reference grid */
    uint32_t width, height;    /* x1-x0, y1-y0 */
    uint32_t tile_x0, tile_y0; /* tile grid origin (XTOsiz, YTOsiz) */
    uint32_t tile_width, tile_height;
    uint32_t tiles_x, tiles_y;
    uint32_t num_components;
    tsr_j2k_progression progression;
    uint32_t layers;
    uint32_t levels; /* decomposition levels (component 0) */
    uint32_t cblk_width, cblk_height;
    uint32_t cblk_style; /* SPcod code-block style bits */
    int reversible;      /* 5/3 (1) or 9/7 (0) for component 0 */
    int mct;             /* multiple component transform used */
    int sop, eph;        /* packets carry SOP markers / EPH markers */
    int precincts;       /* precinct sizes are given (else maximal) */
    /* JP2/JPH boxes (zero for codestreams). */
    uint32_t colourspace;     /* the first colr box's EnumCS (16 sRGB, 17 greyscale, 18 sYCC,
                               * 24 e-sYCC, ...); 0 when it holds an ICC profile or is absent */
    uint32_t palette_entries; /* pclr NE; 0 when there is no palette */
    uint32_t palette_columns; /* pclr NPC */
    uint32_t output_channels; /* channels of a default decode: after palette expansion, cmap
                               * and colour conversion (a monochrome ICC profile gives RGB) */
    uint32_t colour_method;   /* the first colr box's METH: 1 enumerated, 2 restricted ICC,
                               * 3 any ICC, 4 vendor; 0 without a colr box */
} tsr_j2k_info;

/* Reads the main header. comps (may be NULL) receives up to max_comps component descriptions;
 * info->num_components says how many there are. Errors name the problem and byte offset.
 * Limits: the image area may not exceed the context's max_image_pixels, and all components
 * together may not hold more than 4 x max_image_pixels samples (TSR_ERR_LIMIT). Part 2
 * marker segments that only describe are skipped with a warning; those that change the
 * samples (DCO, VMS, NLT, arbitrary kernels, array MCT) give TSR_ERR_UNSUPPORTED. */
tsr_status tsr_j2k_read_header(tsr_ctx *ctx, const void *data, size_t len, tsr_j2k_info *info,
                               tsr_j2k_component *comps, uint32_t max_comps);

typedef struct tsr_j2k_decode_options {
    uint32_t reduce; /* discard this many resolution levels (default 0) */
    uint32_t layers; /* decode only the first L quality layers (0 = all) */
    /* Region on the reference grid, relative to the image origin (x0, y0); w = h = 0: all. */
    uint32_t region_x, region_y, region_w, region_h;
    /* Codestream components to decode, in this order; NULL = all. With a colour transform
     * (RCT/ICT) components 0-2 are decoded together, so a subset still gets transformed
     * values. A subset is output as is: no JP2 palette or channel definitions. */
    const uint32_t *components;
    uint32_t num_components;
    int threads; /* 0: the context's thread count (tiles, code-blocks, DWT rows) */
    /* JP2 rendering (default 1): pclr/cmap expansion, cdef channel order and the colour
     * conversion to sRGB of sYCC, e-sYCC and restricted (monochrome or matrix/TRC) ICC
     * profiles; other colour specifications are output as decoded with a warning. 0: the
     * codestream's components as decoded. */
    int apply_palette;
} tsr_j2k_decode_options;

void tsr_j2k_decode_options_init(tsr_j2k_decode_options *opt);

/* One output plane. Filled in by tsr_j2k_decode_layout(); `data` and `stride` are the caller's. */
typedef struct tsr_j2k_plane {
    uint32_t x0, y0;        /* position of the first sample on the plane's own (reduced) grid */
    uint32_t width, height; /* samples */
    uint32_t dx, dy;        /* subsampling relative to the reference grid at full resolution */
    uint32_t precision;     /* bits per sample (1..31) */
    int is_signed;
    uint32_t component; /* codestream component it comes from */
    int32_t *data;      /* caller-owned, height rows of stride samples */
    size_t stride;      /* samples from one row to the next, >= width */
} tsr_j2k_plane;

/* What a decode met on the way: the stream decoded, but not necessarily all of it. */
typedef struct tsr_j2k_result {
    int truncated;     /* the codestream ended early; what was there is decoded */
    uint32_t warnings; /* number of warnings */
    char warning[256]; /* the first warning, "" when none */
} tsr_j2k_result;

/* The output planes for these options. With planes == NULL only *num_planes is set; otherwise
 * up to *num_planes planes are described (data = NULL, stride = width). */
tsr_status tsr_j2k_decode_layout(tsr_ctx *ctx, const void *data, size_t len,
                                 const tsr_j2k_decode_options *opt, tsr_j2k_plane *planes,
                                 uint32_t *num_planes);

/* Decodes into planes described by tsr_j2k_decode_layout() whose data the caller allocated.
 * opt may be NULL (defaults); result may be NULL. */
tsr_status tsr_j2k_decode(tsr_ctx *ctx, const void *data, size_t len,
                          const tsr_j2k_decode_options *opt, tsr_j2k_plane *planes,
                          uint32_t num_planes, tsr_j2k_result *result);

/* Layout, allocation (through the context) and decoding in one call. *planes receives an array
 * of *num_planes planes; free it with tsr_j2k_planes_free(). */
tsr_status tsr_j2k_decode_alloc(tsr_ctx *ctx, const void *data, size_t len,
                                const tsr_j2k_decode_options *opt, tsr_j2k_plane **planes,
                                uint32_t *num_planes, tsr_j2k_result *result);
void tsr_j2k_planes_free(tsr_ctx *ctx, tsr_j2k_plane *planes, uint32_t num_planes);

/* Decoding into an interleaved 8- or 16-bit image (tsr_image, core.h) instead of int32 planes:
 * the samples the planes would hold, converted pixel by pixel. It applies to decodes whose
 * output planes (tsr_j2k_decode_layout with the same options) are 1 to 4 planes of one non-empty
 * size, each of at most 16 bits; the image then has one channel per plane in the planes' order,
 * depth TSR_U8 when every precision is at most 8 and TSR_U16 otherwise. A sample v of a plane of
 * precision p becomes (v + o) * M / (2^p - 1) rounded to nearest (halves up), where o = 2^(p-1)
 * for signed planes and 0 otherwise and M = 255 or 65535; so 8-bit planes into 8 bits and
 * 16-bit planes into 16 bits are v + o exactly.
 *
 * tsr_j2k_decode_image_layout() describes that image in *desc (width, height, channels, depth,
 * tight stride, data NULL, host memory), or returns TSR_ERR_UNSUPPORTED with a message when the
 * decode makes no such image (then use the planes). tsr_j2k_decode_image() decodes into `out`,
 * a host image of exactly that size, channel count and depth with any valid stride (e.g. from
 * tsr_image_alloc on the descriptor's values); it fails the same way where the layout does.
 * Decodes whose outputs are on one sampling grid without a JP2 palette or sYCC conversion write
 * the image from each tile's rows as they are finished, without int32 output planes; the others
 * decode into planes internally and convert them. */
tsr_status tsr_j2k_decode_image_layout(tsr_ctx *ctx, const void *data, size_t len,
                                       const tsr_j2k_decode_options *opt, tsr_image *desc);
tsr_status tsr_j2k_decode_image(tsr_ctx *ctx, const void *data, size_t len,
                                const tsr_j2k_decode_options *opt, tsr_image *out,
                                tsr_j2k_result *result);

/* Many codestreams into many images: one tsr_j2k_decode_image() per item, with the same
 * options, in item order, each item's image exactly what that call would make (bit for bit, the
 * same warnings and errors). On the CUDA backend the items are pipelined: the host reads item
 * i + 1's packets and stages its code-blocks while the device decodes item i, and a host image's
 * download of item i overlaps item i + 1's kernels (two sets of page-locked staging and device
 * buffers, a second stream for the downloads; the context keeps them for the next call). On the
 * CPU the items are decoded one after the other, each with the options' threads. opt may be NULL
 * (defaults).
 *
 * Each item gives data, len and image (as tsr_j2k_decode_image's out: a host image, or on CUDA
 * a device image, of the item's decode layout, e.g. from tsr_j2k_decode_image_layout()) and
 * receives status, result and, on failure, the message in error. A failed item (a corrupt or
 * unsupported stream, an image that does not match) does not stop the others; its image's
 * contents are then unspecified and must not be used (a host image decoded on CUDA receives
 * no decoded pixels: its download is dropped; a device image may hold the kernels' output). The
 * call returns TSR_OK when every item decoded; otherwise TSR_ERR_INTERRUPTED when the context's
 * progress callback (asked after each item, stage "j2k decode images", and per tile as in single
 * decodes) stopped the batch, the items not started getting that status, or else the first failed
 * item's status, the context's message naming that item. A context poisoned on the way (a device
 * fault) fails the remaining items with TSR_ERR_BAD_STATE. When the call returns, every device
 * image has been written (the context's stream is idle). */
typedef struct tsr_j2k_decode_item {
    const void *data; /* in: the file (raw codestream or JP2/JPH) */
    size_t len;
    tsr_image image;       /* in: the output image; its pixels are written */
    tsr_status status;     /* out */
    tsr_j2k_result result; /* out: what the decode met (on success) */
    char error[256];       /* out: the message of a failed item, "" otherwise */
} tsr_j2k_decode_item;
tsr_status tsr_j2k_decode_images(tsr_ctx *ctx, const tsr_j2k_decode_options *opt,
                                 tsr_j2k_decode_item *items, uint32_t count);

/* The image of tsr_j2k_decode_image() handed over in row order instead of stored: sink gets
 * rows [y, y + count) (count >= 1) at `rows`, `stride` bytes apart, each row packed exactly as
 * that image would hold it (channels interleaved, u8 or u16 in native byte order; the
 * descriptor from tsr_j2k_decode_image_layout() gives width, channels and depth). The pointer
 * is valid during the call only. Calls come one at a time, in order of y, from the calling
 * thread or one of the decode's threads, and on success every row 0 .. height - 1 has been
 * given exactly once. A sink that returns non-zero stops the decode: no further call comes and
 * the decode returns TSR_ERR_INTERRUPTED. On any failure the rows already given are a partial
 * image and should be discarded (what the sink does with them is its own business).
 * Memory: where the image is one tile with data whose top decoded resolution is the whole
 * image, with at least one wavelet level left after opt->reduce, every decoded component an
 * output channel on one grid, no palette or sYCC, the rows go to the sink as the top level's
 * groups of code-block rows complete them, and neither the image nor the resolution below the
 * top is held whole (with two levels left, that resolution is rebuilt in groups of rows too and
 * only the one below it, 1/16 of the samples, is whole; with one, the resolution below is).
 * Otherwise (several tiles, a tile without data, a region smaller than the image, no level
 * left, a component subset of a colour-transformed image, a palette, sYCC, subsampled outputs)
 * the decode fills an image of its own and then hands its rows over in one call. */
typedef int (*tsr_j2k_row_sink)(void *user, const void *rows, size_t stride, uint32_t y,
                                uint32_t count);
tsr_status tsr_j2k_decode_rows(tsr_ctx *ctx, const void *data, size_t len,
                               const tsr_j2k_decode_options *opt, tsr_j2k_row_sink sink, void *user,
                               tsr_j2k_result *result);

/* Writes planes as PGX (the conformance format): one plane to `path`; several to path with
 * "_0", "_1", ... inserted before the extension. Each file is written atomically. */
tsr_status tsr_j2k_save_pgx(tsr_ctx *ctx, const char *path, const tsr_j2k_plane *planes,
                            uint32_t num_planes);

/* What tsr_j2k_decode_save() did. */
typedef struct tsr_j2k_save_result {
    tsr_j2k_result decode;  /* what the decode met */
    uint32_t planes;        /* PNG/PNM: the image's channels; PGX: the planes written */
    uint32_t width, height; /* the image's, or the first plane's */
    int output_failed;      /* the failure concerns the output file (writing it, its name),
                               not the input; the message names the file */
} tsr_j2k_save_result;

/* Decodes into a file whose name gives the format: .pgx (tsr_j2k_save_pgx's files, each plane at
 * its own size and depth) or .png, .pgm, .ppm, .pnm (tsr_j2k_decode_image()'s 8- or 16-bit
 * image; where the decode makes no such image, TSR_ERR_UNSUPPORTED with the reason and a hint
 * to use .pgx). PNG/PNM rows go into the file as tsr_j2k_decode_rows() hands them over, where
 * the file can be written row by row. The output appears atomically: on any failure (also an
 * interruption through the context's progress callback, which is asked between rows) no file
 * is left. result may be NULL. */
tsr_status tsr_j2k_decode_save(tsr_ctx *ctx, const void *data, size_t len,
                               const tsr_j2k_decode_options *opt, const char *path,
                               tsr_j2k_save_result *result);

/* ---- encoding ------------------------------------------------------------------------------
 * tsr_j2k_encode() writes a Part 1 codestream (T.800) of an 8- or 16-bit host image of 1 to 4
 * channels (gray, gray+alpha, RGB, RGBA): one component per channel at the image's precision,
 * unsigned, one tile or a grid of tiles, one or more quality layers, maximal or given precincts,
 * code-block style 0. Lossless
 * coding is the reversible colour transform (RCT) on the first three components when there are
 * three or more, and the reversible 5/3 wavelet; every conforming decoder reconstructs the input
 * exactly. Lossy coding is the ICT and the 9/7 wavelet with one quantisation step per sub-band;
 * with rates (or PSNR targets), PCRD-opt rate control truncates the code-blocks' passes to fit
 * them, one layer per rate (or target). Memory: about 4 bytes per sample of the image for the
 * transformed components, the coded bytes (at most about the size of the image), with rates or
 * layers a few hundred bytes per code-block of truncation points and 8 per code-block and layer,
 * per tile about 8 KB per component of geometry (tiny tiles of a large image add up: 1x1 tiles
 * of a 200x130 RGB image take 0.6 GB) and 12 bytes per packet, and per thread about 1 MB of
 * block coder state and wavelet scratch: the larger of 64 bytes per sample of the longest tile
 * side and 121 rows of 4-byte samples of the tile's width (the finest level's bands, 40 rows of
 * 3 components, and a row: 3.7 MB at 7680 wide). */
#define TSR_J2K_MAX_LAYERS 64         /* quality layers an encode writes at most */
#define TSR_J2K_MAX_PRECINCT_SIZES 33 /* one per resolution, 32 levels + 1 */

/* How an encode splits each tile into tile-parts: one (default), or a new tile-part wherever
 * the packet's resolution, layer or component differs from the one before it in the
 * progression order. */
typedef enum tsr_j2k_tile_parts {
    TSR_J2K_TP_NONE = 0,
    TSR_J2K_TP_RESOLUTION,
    TSR_J2K_TP_LAYER,
    TSR_J2K_TP_COMPONENT
} tsr_j2k_tile_parts;
enum { TSR_J2K_MODE_STANDARD = 0, TSR_J2K_MODE_FAST_NONSTANDARD = 1 };
typedef struct tsr_j2k_encode_options {
    int lossless;     /* 1 (default): RCT + 5/3, reversible; 0: ICT + 9/7 with
                         scalar quantisation (quant_step) */
    float quant_step; /* lossy: the quantisation step relative to the sample range
                         (2^precision), 0 < q <= 1 (default 1/256); each sub-band's
                         step is this over its synthesis norm (kdu_compress Qstep) */
    /* Rate control: rates[0 .. num_rates - 1] (num_rates 0, the default: none) are bits per
     * pixel of the whole file (all components together), increasing, one quality layer each.
     * PCRD-opt keeps each code-block's passes that are worth their bytes, so that the file up
     * to the end of layer l is as large as it can be without exceeding rates[l] * width *
     * height / 8 bytes (one slope threshold per layer; each layer holds at least what the one
     * before held). A rate beyond what quant_step gives yields the quant_step file. Lossless:
     * the rates' layers come first, then one more layer with everything that is left
     * (kdu_compress Creversible=yes -rate -,R1,..; opj_compress -r ..,1). kdu_compress -rate
     * R1,R2,..; opj_compress -r takes compression ratios, decreasing. */
    uint32_t num_rates;
    double rates[TSR_J2K_MAX_LAYERS];
    /* Quality targets instead of rates (giving both is TSR_ERR_INVALID_ARGUMENT):
     * psnrs[0 .. num_psnrs - 1] are PSNRs in dB of the decoded image, above 0 and increasing,
     * one quality layer each. The PSNR is over all components' samples together:
     * 10 log10((2^p - 1)^2 / MSE), p the precision, MSE the mean over every sample of every
     * component. Layer l (l = 0..num_psnrs - 1) keeps, by one slope threshold, the fewest
     * passes (the smallest layer) whose estimated MSE is at most (2^p - 1)^2 / 10^(psnrs[l] /
     * 10); each layer holds at least what the one before held. The estimate: each
     * coefficient's squared error in quantisation steps, left by the passes kept (the
     * magnitude bits not kept, reconstructed at the middle of their interval, as a decoder
     * does) plus the exact error of the step itself, times its sub-band's image-domain weight
     * (step times synthesis norm, squared, and the colour transform's energy), summed and averaged
     * over the samples, plus 1/12 for the decoder's rounding of its output to integers. It is an
     * expectation: the decoded PSNR differs from it by the wavelet's cross terms and the
     * fraction of each coefficient below its step that the estimate takes as one half
     * (measured: within 0.25 dB at 0.3 bits per pixel and more, up to 1 dB below under 0.25
     * where whole bands are dropped), and clamping to the sample range only raises it. With
     * lossless the integer rounding of the reversible transforms is left out too (measured
     * 1.0-1.6 dB below at 45 dB, 2.3 at 50). A target beyond what quant_step gives yields that
     * layer with every pass that lowers the estimate (about the quant_step file; result->psnr_short
     * says so). Lossless: the targets' layers come first, then one more with everything left (as
     * with rates). opj_compress -q DB,DB,.. (its PSNR layers); kdu_compress has no PSNR target
     * (-slope sets the threshold). */
    uint32_t num_psnrs;
    double psnrs[TSR_J2K_MAX_LAYERS];
    /* Quality layers, at most TSR_J2K_MAX_LAYERS (0, the default: one per rate, plus the
     * lossless one, or 1). With one lossy rate R and layers N > 1: N layers at R / 2^(N-1-l)
     * (l = 0..N-1), doubling up to R. Without a rate: N layers, the last holding every pass
     * (lossless when lossless, the quant_step file otherwise), layer l about 1 / 2^(N-1-l) of
     * that file's size. Otherwise 0 or the number the rates make. kdu_compress Clayers (its
     * own spacing rule differs); opj_compress has no count of its own (one -r per layer). */
    uint32_t layers;
    int levels;                  /* wavelet decomposition levels 0..32; -1 (default): 5, or
                                    floor(log2(smaller side)) where that is less */
    uint32_t cblk_width;         /* code-block size: powers of two 4..1024, at most 4096 */
    uint32_t cblk_height;        /* samples (default 64x64) */
    tsr_j2k_progression order;   /* packet order (default LRCP) */
    tsr_j2k_container container; /* TSR_J2K_CODESTREAM (default), TSR_J2K_JP2 (boxes: ihdr,
                                    colr sRGB or greyscale, cdef for alpha) or TSR_J2K_JPH
                                    (the same boxes, brand 'jph '; needs ht) */
    int threads;                 /* 0: the context's thread count (code-blocks in parallel) */
    /* ht: HTJ2K block coding (T.814 | ISO/IEC 15444-15; COD code-block style 0x40, a CAP
     * marker segment, Rsiz bit 14): every code-block is one HT set. Lossless or at the
     * quantisation step, a cleanup pass down to plane 0. With one rate or one PSNR target,
     * PCRD-opt as above over each code-block's HT sets at every base bit-plane p (the cleanup
     * pass of the magnitudes above p, then with the SigProp pass of plane p - 1, then with its
     * MagRef pass too), each coded for real, its error the decoder's reconstruction's exactly;
     * the block sends the one chosen (zero bit-planes and pass count make the decoder's cleanup
     * plane p). One quality layer only: several rates or targets, layers > 1, and a rate or
     * target with lossless (its extra lossless layer) are TSR_ERR_UNSUPPORTED. Default 0 (Part
     * 1). container TSR_J2K_JPH (boxes as JP2's, brand 'jph ') needs it. The CLI's default
     * order with --ht is RPCL. */
    int ht;
    /* mode: TSR_J2K_MODE_STANDARD (default) or TSR_J2K_MODE_FAST_NONSTANDARD: code-blocks in
     * tessera's private fast-nonstandard format (src/j2k/fast_coder.h: a bit-plane coder run
     * over each block's 8-row stripes in parallel, a range coder per stripe), the rest of the
     * codestream standard, a main-header COM marker segment saying the file is NOT a JPEG 2000
     * stream; only tessera decodes it (other decoders decode garbage or fail). Lossless or at
     * quant_step; its blocks have no truncation points, so rates, PSNR targets, layers > 1
     * and ht are TSR_ERR_UNSUPPORTED. On the cuda backend a warp codes a block, a lane a
     * stripe (the same bytes); its streams decode on the CPU only. */
    int mode;
    /* Resynchronisation markers (T.800 A.8): sop, an SOP marker segment before every packet
     * (Nsop counts the tile's packets from 0, modulo 65536); eph, an EPH marker after every
     * packet header. Default 0 (neither). opj_compress -SOP / -EPH; kdu_compress
     * Cuse_sop=yes / Cuse_eph=yes. */
    int sop, eph;
    /* tlm: TLM marker segments in the main header giving every tile-part's tile and length
     * (A.7.1), for readers that seek to tiles. Default 0. opj_compress -TLM; kdu_compress
     * ORGgen_tlm=1. */
    int tlm;
    /* Tiles (T.800 B.3): the reference grid cut into tiles of tile_width x tile_height
     * samples from the tile origin (tile_x0, tile_y0), the first and last column and row
     * smaller where the image starts and ends; each tile transformed, quantised and coded on
     * its own, rate control over all of them together (one slope threshold per layer). 0 x 0
     * (default): one tile; at most 65535 tiles. Every tile has the same decomposition levels
     * (one COD); a tile smaller than 2^levels is valid and has resolutions without samples;
     * the default levels are at most floor(log2) of the smaller side of the tile or image.
     * opj_compress -t W,H; kdu_compress Stiles={H,W}. */
    uint32_t tile_width, tile_height;
    /* Offsets on the reference grid (T.800 B.2, B.3): the image's top-left sample at (x0, y0)
     * (SIZ XOsiz, YOsiz) and the tile grid from (tile_x0, tile_y0) (XTOsiz, YTOsiz), with
     * tile_x0 <= x0 < tile_x0 + the tile width (and the same down), x0 + width and y0 + height
     * at most 2^32 - 1. They move the tile, precinct and code-block boundaries and the
     * wavelet's phase (a sample at an odd position is high-pass), not the samples: a decoder
     * gives back the same width x height image. Default 0 (all four). opj_compress -d X0,Y0
     * and -T TX0,TY0; kdu_compress Sorigin={Y0,X0} and Stile_origin={TY0,TX0}. */
    uint32_t x0, y0, tile_x0, tile_y0;
    /* Precinct sizes (B.6), per resolution from the highest down, the last repeated for the
     * lower ones; powers of two, 2^15 at most, and at least 2 for every resolution but the
     * lowest. 0 sizes (default): maximal precincts (2^15). Code-blocks are clipped to
     * precincts. opj_compress -c [W,H],[W,H]... (which halves its last size for each lower
     * resolution instead); kdu_compress Cprecincts. */
    uint32_t num_precincts;
    uint32_t precinct_width[TSR_J2K_MAX_PRECINCT_SIZES],
        precinct_height[TSR_J2K_MAX_PRECINCT_SIZES];
    /* plt: PLT marker segments in each tile-part header listing the length of each of its
     * packets (A.7.3; SOP marker segments included), counted by rate control. Default 0.
     * opj_compress -PLT; kdu_compress ORGgen_plt=yes. */
    int plt;
    /* Tile-parts per tile (A.4.2): tsr_j2k_tile_parts (default one); at most 255 per tile.
     * opj_compress -TP R|L|C; kdu_compress ORGtparts=R|L|C. */
    tsr_j2k_tile_parts tile_parts;
    /* tsr_j2k_encode_save only: fsync the file before its rename and its folder after, so that
     * it survives a power loss (default 0: the rename alone never leaves a partial file; the
     * flush cost 0.3-13 ms a file on the development machine, bench/results/
     * j2k-encode-bench-cpu-2026-12-02.md). */
    int sync;
    struct tsr_j2k_encode_result *result; /* NULL (default), or receives what rate control
                                             estimated */
} tsr_j2k_encode_options;

/* What an encode with rates or psnrs (or layers) estimated, when opt->result points here:
 * layers is the file's number of quality layers (0 when no rate control ran: every pass in one
 * layer), psnr[l] the estimated PSNR of the image decoded from layers 0..l (the estimate of
 * psnrs; INFINITY for a lossless layer), psnr_short the number of the first psnrs target
 * (1-based) that even every pass does not reach (0: all reached), rate_short the number of the
 * first rates target (1-based) that the file up to that layer exceeds because the markers and
 * empty packets (tile-part headers, PLT, SOP, one packet per precinct) with the layers before
 * take more than it (0: all met). */
typedef struct tsr_j2k_encode_result {
    uint32_t layers;
    double psnr[TSR_J2K_MAX_LAYERS];
    uint32_t psnr_short;
    uint32_t rate_short;
} tsr_j2k_encode_result;
void tsr_j2k_encode_options_init(tsr_j2k_encode_options *opt);

/* Encodes img; *data receives the file's bytes (allocated through the context: free with
 * tsr_j2k_free), *len their number. opt may be NULL (defaults). The output does not depend on
 * the thread count. */
tsr_status tsr_j2k_encode(tsr_ctx *ctx, const tsr_image *img, const tsr_j2k_encode_options *opt,
                          uint8_t **data, size_t *len);
void tsr_j2k_free(tsr_ctx *ctx, void *data);
/* Encodes img into the file at path, whose name gives the container: .j2k or .j2c a raw
 * codestream, .jp2 JP2 boxes, .jph JPH boxes (needs opt->ht; opt->container is ignored). The file
 * appears atomically: on any failure no file is left and an existing one is untouched. bytes (may
 * be NULL) receives the file's size. */
tsr_status tsr_j2k_encode_save(tsr_ctx *ctx, const tsr_image *img,
                               const tsr_j2k_encode_options *opt, const char *path, size_t *bytes);

#ifdef __cplusplus
}
#endif
#endif
