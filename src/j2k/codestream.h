/* The JPEG 2000 codestream model (T.800 Annex A, B), shared by the encoder and the decoder (not
 * installed): coding parameters as the marker segments carry them (SIZ, COD/COC, QCD/QCC, POC),
 * the tile-part index of a codestream, and the geometry of tiles, tile-components,
 * resolutions, sub-bands, precincts and code-blocks with their tag trees.
 *
 *   tcd.c  the geometry (B.5-B.7) and per-band quantisation parameters (E.1)
 *   tgt.c  tag trees (B.10.2)
 *   pi.c   progression orders and POC (B.12)
 * The decoder's stages are declared in decode_stages.h. */
#ifndef TSR_J2K_CODESTREAM_H
#define TSR_J2K_CODESTREAM_H

#include "core/checked.h"
#include "core/ctx.h"
#include "tessera/j2k.h"

#include <stddef.h>
#include <stdint.h>
#define TSR__J2K_MAX_RES 33   /* 32 decomposition levels + 1 */
#define TSR__J2K_MAX_BANDS 97 /* 3 * 32 + 1 step sizes */
#define TSR__J2K_MAX_COMPS 16384

/* The backend of a JPEG 2000 operation `op` (core/backend.h): the CPU and the reference, and
 * CUDA too where `cuda` (decodes into an interleaved image, encodes); auto takes CUDA for an
 * image in device memory (`device`), else the CPU (host images: not yet measured faster on the
 * device than the CPU codec, with a CUDA start-up and the copies). Called at the top of every
 * public decode and encode entry point (decode.c, encode.c); *out (may be NULL) receives the
 * choice. */
tsr_status tsr__j2k_choose(tsr_ctx *ctx, const char *op, int cuda, int device, tsr_backend *out);

/* Warnings collected during a decode (the library never prints). */
typedef struct tsr__j2k_warn {
    uint32_t count;
    int truncated;
    char first[256];
} tsr__j2k_warn;

void tsr__j2k_warnf(tsr__j2k_warn *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The same for a warning counted late that a decode in order would have counted when pos
 * warnings were counted (the CUDA decoder's code-block warnings, known once their tile's status
 * words are back): it is the first when pos is 0; UINT32_MAX is tsr__j2k_warnf. */
void tsr__j2k_warn_at(tsr__j2k_warn *w, uint32_t pos, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* ---- coding parameters -------------------------------------------------------------------- */
typedef struct tsr__j2k_step {
    uint16_t expn, mant;
} tsr__j2k_step;

/* Tile-component coding parameters: COD/COC (SPcod) and QCD/QCC, RGN. */
typedef struct tsr__j2k_tccp {
    uint8_t csty;     /* Scoc bit 0: precinct sizes given */
    uint8_t numres;   /* decomposition levels + 1 */
    uint8_t xcb, ycb; /* code-block size exponents */
    uint8_t cblksty;
    uint8_t qmfbid; /* 1: 5/3 reversible, 0: 9/7 irreversible */
    uint8_t prcw[TSR__J2K_MAX_RES], prch[TSR__J2K_MAX_RES];
    uint8_t qntsty; /* 0 none, 1 scalar derived, 2 scalar expounded */
    uint8_t numgbits;
    uint8_t nsteps;
    uint8_t roishift;
    uint8_t cod_level, qcd_level; /* marker precedence (A.6): 1 main COD .. 4 tile COC */
    tsr__j2k_step steps[TSR__J2K_MAX_BANDS];
} tsr__j2k_tccp;

typedef struct tsr__j2k_poc {
    uint32_t rs, re, cs, ce, lye;
    uint8_t prg;
} tsr__j2k_poc;

/* Tile coding parameters. */
typedef struct tsr__j2k_tcp {
    uint8_t csty; /* Scod: bit 1 SOP, bit 2 EPH (bit 0 per component in tccp) */
    uint8_t prg;
    uint16_t numlayers;
    uint8_t mct;
    uint8_t fast_ns; /* code-blocks in tessera's fast-nonstandard format (fast_coder.h) */
    uint32_t npoc, poc_cap;
    tsr__j2k_poc *pocs;   /* ctx allocation */
    tsr__j2k_tccp *tccps; /* ncomps, ctx allocation */
} tsr__j2k_tcp;

typedef struct tsr__j2k_comp {
    uint8_t dx, dy, prec, sgnd;
} tsr__j2k_comp;

typedef struct tsr__j2k_tilepart {
    uint32_t tile;
    uint32_t tpsot;
    size_t sot_off;          /* offset of the SOT marker */
    size_t hdr_off, hdr_end; /* marker segments between SOT and SOD */
    size_t body_off, body_len;
    uint32_t next;           /* next tile-part of the same tile, UINT32_MAX at the end */
    size_t ppm_off, ppm_len; /* this tile-part's packet headers inside cs->ppm (PPM) */
} tsr__j2k_tilepart;

typedef struct tsr__j2k_cs {
    const uint8_t *data; /* the codestream */
    size_t len;
    size_t base; /* offset of the codestream in the file (for messages) */
    uint16_t rsiz;
    uint32_t x0, y0, x1, y1, tx0, ty0, tw, th, ntx, nty, ntiles;
    uint32_t ncomps;
    tsr__j2k_comp *comps;
    tsr__j2k_tcp deflt; /* main-header defaults */
    int has_cod, has_qcd;
    int is_ht;   /* HT code-blocks (CAP or a code-block style) */
    int fast_ns; /* a main-header COM says: tessera's fast-nonstandard code-blocks, not
                    JPEG 2000 (fast_coder.h) */
    uint32_t ntp, tp_cap;
    tsr__j2k_tilepart *tps;
    uint32_t *tile_first; /* ntiles, UINT32_MAX when absent */
    uint32_t *tile_last;
    uint8_t *ppm; /* concatenated Ippm (ctx allocation), NULL when no PPM */
    size_t ppm_len;
    int eoc_seen;
    tsr__j2k_warn *warn;
} tsr__j2k_cs;

/* Parses the main header (SOC .. first SOT) and indexes every tile-part. Validates every field. */

static inline uint32_t tsr__ceildiv(uint32_t a, uint32_t b)
{
    return (uint32_t)(((uint64_t)a + b - 1) / b);
}
static inline uint32_t tsr__ceildivpow2(uint32_t a, uint32_t e)
{
    return (uint32_t)(((uint64_t)a + ((uint64_t)1 << e) - 1) >> e);
}
static inline uint32_t tsr__floorlog2(uint32_t v)
{
    return v ? 31u - (uint32_t)__builtin_clz(v) : 0;
}

/* ---- tag trees (tgt.c) -------------------------------------------------------------------- */
typedef struct tsr__tgt_node {
    int32_t parent; /* index, -1 for the root */
    int32_t value;
    int32_t low;
    uint8_t known;
} tsr__tgt_node;

typedef struct tsr__tgt {
    uint32_t w, h, nnodes;
    tsr__tgt_node *nodes; /* leaves first (row-major), then each coarser level */
} tsr__tgt;

/* Number of nodes of a tag tree over w x h leaves. */
size_t tsr__tgt_size(uint32_t w, uint32_t h);
/* Builds the tree over caller storage of tsr__tgt_size(w, h) nodes, reset. */
void tsr__tgt_init(tsr__tgt *t, uint32_t w, uint32_t h, tsr__tgt_node *storage);
void tsr__tgt_reset(tsr__tgt *t);
/* Ancestors of a leaf that tsr__tgt_path follows at most (a tree over 32-bit dimensions has
 * at most 33 levels). */
#define TSR__TGT_MAX_DEPTH 64
/* The nodes from leaf up to its root into path (path[0] = leaf); returns their count. Coding a
 * leaf (B.10.2) visits them from the root down, path[count - 1] first. */
int tsr__tgt_path(const tsr__tgt *t, uint32_t leaf, int32_t path[TSR__TGT_MAX_DEPTH + 1]);
/* B.10.2: a node's lower bound is at least its parent's (low); returns the node's bound. */
static inline int32_t tsr__tgt_raise_low(tsr__tgt_node *node, int32_t low)
{
    if (low > node->low)
        node->low = low;
    return node->low;
}

/* ---- geometry (tcd.c) --------------------------------------------------------------------- */
typedef struct tsr__j2k_cblk {
    uint32_t x0, y0, x1, y1; /* band coordinates */
    /* Tier-2 state */
    uint8_t included;
    uint8_t zero_bp;
    uint8_t lblock;
    uint8_t is_ht;      /* HT code-block (mixed mode decides at first contribution) */
    uint8_t ht_seen;    /* an HT cleanup segment with nonzero length was seen */
    uint8_t ht_decided; /* mixed mode: HT or Part 1 decided */
    uint8_t seg_open;   /* the last segment can take more passes */
    uint8_t need;       /* inside the decoded region */
    uint16_t npasses;
    uint16_t nsegs;
    uint16_t seg_passes, seg_max; /* the last segment's passes and maximum */
    uint32_t nchunks;
    uint32_t data_len;
} tsr__j2k_cblk;

typedef struct tsr__j2k_prec {
    uint32_t cw, ch; /* code-blocks across and down */
    uint32_t cblk0;  /* index of the first code-block in the band's array */
    tsr__tgt incl, imsb;
} tsr__j2k_prec;

typedef struct tsr__j2k_band {
    uint8_t orient; /* 0 LL, 1 HL, 2 LH, 3 HH */
    uint32_t x0, y0, x1, y1;
    uint32_t xcb, ycb; /* code-block size exponents in this band */
    uint32_t mb;       /* magnitude bit-planes Mb = G + exp - 1 */
    float delta;       /* quantisation step (irreversible) */
    uint32_t ncblks;
    tsr__j2k_cblk *cblks; /* precinct by precinct, each raster order */
    tsr__j2k_prec *precs; /* res pw*ph */
    uint32_t cblk_base;   /* index of cblks[0] in the tile's global code-block numbering */
} tsr__j2k_band;

typedef struct tsr__j2k_res {
    uint32_t x0, y0, x1, y1;
    uint32_t ppx, ppy; /* precinct size exponents */
    uint32_t pw, ph;   /* precincts across and down */
    uint32_t px0, py0; /* floor(x0 / 2^ppx): index of the first precinct column / row */
    uint32_t nbands;
    tsr__j2k_band bands[3];
} tsr__j2k_res;

typedef struct tsr__j2k_tilecomp {
    uint32_t x0, y0, x1, y1;
    uint32_t numres;  /* resolutions coded */
    uint32_t dec_res; /* resolutions decoded (numres - reduce, >= 1) */
    tsr__j2k_res res[TSR__J2K_MAX_RES];
    int32_t *data;         /* data_h rows of data_w samples, stride apart (int32 or float bits) */
    size_t data_w, data_h; /* dimensions of the decoded resolution */
    size_t stride;         /* samples between rows */
    int external;          /* data belongs to someone else (the caller's plane): not freed */
    int skip;              /* not requested */
} tsr__j2k_tilecomp;

typedef struct tsr__j2k_tile {
    uint32_t index;
    uint32_t x0, y0, x1, y1;
    uint32_t ncomps;
    tsr__j2k_tilecomp *comps;
    uint32_t ncblks;          /* all code-blocks of the tile */
    tsr__j2k_cblk **cblk_ptr; /* global index -> code-block */
    uint8_t *cblk_orient;
    void *mem; /* one block holding bands' arrays */
} tsr__j2k_tile;

/* Region of interest for decoding, in each component's reference-grid coordinates. */
typedef struct tsr__j2k_window {
    uint32_t x0, y0, x1, y1; /* reference grid, absolute */
} tsr__j2k_window;

tsr_status tsr__tcd_init(tsr_ctx *ctx, const tsr__j2k_cs *cs, const tsr__j2k_tcp *tcp,
                         uint32_t tile, uint32_t reduce, const uint8_t *comp_mask,
                         const tsr__j2k_window *win, tsr__j2k_tile *t);
void tsr__tcd_free(tsr_ctx *ctx, tsr__j2k_tile *t);

/* ---- progression (pi.c) ------------------------------------------------------------------- */
/* Calls fn(user, layer, comp, res, precinct) for every packet of the tile in codestream order
 * (B.12, with POC). Stops early when fn returns nonzero (that value is returned). */
typedef int (*tsr__pi_fn)(void *user, uint32_t l, uint32_t c, uint32_t r, uint32_t p);
/* work_limit (0: none) bounds the loop iterations, emitted or skipped: a POC list can make the
 * loops visit far more packets than the data could ever hold; past it *stopped is
 * TSR__PI_TOO_LONG. */
#define TSR__PI_TOO_LONG 1000
tsr_status tsr__pi_iterate(tsr_ctx *ctx, const tsr__j2k_cs *cs, const tsr__j2k_tcp *tcp,
                           const tsr__j2k_tile *t, tsr__pi_fn fn, void *user, int *stopped,
                           uint64_t work_limit);

#endif
