/* The decoder's state shared by decode.c (the API: the stream, the layout of the outputs, the
 * course of a decode) and decode_tile.c (one tile: packets, code-blocks, transforms, output);
 * private to those two files, which name the types stream, layout and dec. */
#ifndef TSR_J2K_DECODE_INT_H
#define TSR_J2K_DECODE_INT_H

#include "j2k/decode_cuda.h"
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

/* A tile opened for decoding: its coding parameters, geometry (tcd.c; no sample memory yet) and
 * packets (t2.c), whose contributions point into the stream or into the owned buffers here. */
typedef struct tsr__j2k_open_tile {
    tsr__j2k_tcp tcp;
    tsr__j2k_tile t;
    tsr__j2k_t2 t2;
    uint8_t *ppt, *body_cat, *hdr_cat;
    int rgb; /* a colour transform over components 0..2, which are then decoded */
} tsr__j2k_open_tile;
/* Opens tile `tile` of the decode; on failure nothing is left to close. */
tsr_status tsr__j2k_tile_open(tsr__j2k_dec *d, uint32_t tile, tsr__j2k_open_tile *o);
void tsr__j2k_tile_close(tsr_ctx *ctx, tsr__j2k_open_tile *o);
/* TSR_ERR_CORRUPT, with the tile named, when its colour transform cannot be done (components
 * 0..2 of different sizes, or mixed reversible and irreversible ones). */
tsr_status tsr__j2k_mct_check(tsr_ctx *ctx, const tsr__j2k_open_tile *o, uint32_t tile);
/* The output plan of a decoded tile-component into plane p's geometry (decode_tile.c). */
tsr__j2k_store_plan tsr__j2k_store_plan_make(const tsr__j2k_tilecomp *tc, const tsr__j2k_comp *cp,
                                             int is_float, const tsr_j2k_plane *p);

/* Decodes one tile with `threads` threads (code-block, DWT and output passes) and the Tier-1
 * workspaces at ws (threads of them). */
tsr_status tsr__j2k_decode_tile(tsr__j2k_dec *d, uint32_t tile, int threads, void *ws);
/* A decode on CUDA whose code-blocks' status words are still on their way back
 * (decode_tile_cuda.c): the device decodes tiles, and the frames of a batch, while the host
 * reads the next one's packets; each tile's blocks are counted once their status words are
 * collected, and reported as the CPU decoder reports them in tile order: the first tile with
 * a fatal block fails the decode with the CPU's message (whatever failed after it), and the
 * blocks' warnings count where the CPU counts them (the first warning is the CPU's). */
typedef struct tsr__j2k_cuda_frame {
    tsr__j2k_warn *warn; /* the decode's warnings: its stream's while it runs, then `kept` */
    tsr__j2k_warn kept;
    uint32_t added;      /* block warnings counted so far */
    tsr_status fatal;    /* the first fatal block's status, in tile order */
    uint32_t fatal_tile; /* its tile */
    struct {             /* the tile in each slot (decode_cuda.h) */
        uint32_t tile, njobs;
        uint32_t warn_pos; /* warnings before its blocks' in the CPU's order, less `added` */
        uint32_t ncorrupt; /* blocks found corrupt on the host (too many segments) */
    } tiles[TSR__J2K_CUDA_SLOTS];
    /* a batch's frame (tsr_j2k_decode_images): its device image slot, and whether the decode
     * returned with its end still to come (tsr__j2k_cuda_frame_end, then the download) */
    uint32_t slot;
    int deferred;
    int download; /* a host image's download was queued (tsr__j2k_cuda_download) */
} tsr__j2k_cuda_frame;

/* The same on CUDA (decode_tile_cuda.c) into the decode's device image, for image outputs of
 * decodes without palette or colour conversion: the tile's blocks, transforms and output are
 * queued; its status words go to f. */
tsr_status tsr__j2k_decode_tile_cuda(tsr__j2k_dec *d, uint32_t tile, const tsr__j2k_cuda_image *img,
                                     tsr__j2k_cuda_frame *f);
/* Collects f's status words still out and returns the decode's verdict: the first fatal
 * block's error, else st (the status the host side reached; a CUDA error while waiting wins
 * over both). */
tsr_status tsr__j2k_cuda_frame_end(tsr_ctx *ctx, tsr__j2k_cuda_frame *f, tsr_status st);
/* Row output (d->sink): an image of the decode's own for the rows to go to, when they cannot
 * be streamed (populated now, like a caller's image in tsr_j2k_decode_image). */
tsr_status tsr__j2k_own_image(tsr__j2k_dec *d, int threads);

#endif
