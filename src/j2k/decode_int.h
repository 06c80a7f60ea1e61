/* The decoder's state shared by decode.c (the API: the stream, the layout of the outputs, the
 * course of a decode) and decode_tile.c (one tile: packets, code-blocks, transforms, output);
 * private to those two files, which name the types stream, layout and dec. */
#ifndef TSR_J2K_DECODE_INT_H
#define TSR_J2K_DECODE_INT_H

#include "j2k/decode_stages.h"
#include "j2k/jp2_colour.h"

/* An opened codestream (raw or in a JP2 box) and its warnings. */
typedef struct tsr__j2k_stream {
    tsr__jp2 jp2;
    tsr__j2k_cs cs;
    tsr__j2k_warn warn;
} tsr__j2k_stream;

/* The outputs of a decode: which components, on which grid, through a palette or a colour
 * conversion to sRGB. */
typedef struct tsr__j2k_out_chan {
    uint32_t comp; /* codestream component */
    int32_t pcol;  /* palette column, -1 for direct */
} tsr__j2k_out_chan;

typedef struct tsr__j2k_layout {
    uint32_t nout;
    tsr__j2k_out_chan *ch; /* nout */
    uint8_t *mask;         /* ncomps: decode this component */
    tsr__j2k_window win;   /* reference grid, absolute */
    uint32_t reduce;
    int palette;
    int sycc;      /* JP2 sYCC / e-sYCC: channels 0-2 converted to sRGB on channel 0's grid */
    int icc;       /* JP2 restricted ICC profile: channels 0-2 converted to sRGB in place (a
                    * monochrome profile's channel 0 is repeated as channels 0-2 first) */
    tsr__icc prof; /* the profile (icc) */
} tsr__j2k_layout;

/* One decode in progress (tsr_j2k_decode, _image, _rows). */
typedef struct tsr__j2k_dec {
    tsr_ctx *ctx;
    tsr__j2k_stream *s;
    const tsr__j2k_layout *L;
    tsr_j2k_plane *dst;   /* per codestream component: its plane (data NULL: none, or an image) */
    tsr_image *img;       /* tsr_j2k_decode_image: the output, else NULL */
    tsr__j2k_pixels pix;  /* the image's pixels (img) */
    uint32_t img_comp[4]; /* the image's channels: their codestream components (img) */
    /* tsr_j2k_decode_rows: the sink; img->data is NULL while the rows are streamed (a banded
     * tile that is the image packs them into chunk, chunk_rows rows of img->stride bytes), else
     * it is an image of the decode's own (own_img), handed to the sink at the end */
    tsr_j2k_row_sink sink;
    void *user;
    uint8_t *chunk;
    uint32_t chunk_rows;
    int own_img;
    int stopped; /* the sink asked to stop */
    uint32_t layers;
    int threads;
    void *t1_ws; /* threads * ws_size */
    size_t ws_size;
} tsr__j2k_dec;

/* Decodes one tile with `threads` threads (code-block, DWT and output passes) and the Tier-1
 * workspaces at ws (threads of them). */
tsr_status tsr__j2k_decode_tile(tsr__j2k_dec *d, uint32_t tile, int threads, void *ws);
/* Row output (d->sink): an image of the decode's own for the rows to go to, when they cannot
 * be streamed (populated now, like a caller's image in tsr_j2k_decode_image). */
tsr_status tsr__j2k_own_image(tsr__j2k_dec *d, int threads);

#endif
