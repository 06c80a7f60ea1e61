/* The JPEG 2000 encoder's stages (not installed), over the codestream model of codestream.h.
 *
 * Stages, one per file, in the order an encode runs them:
 *   encode.c        the public API: options, the image into tiles' components, DC level
 *                   shift (G.1), code-blocks in parallel, the codestream and the file
 *   mct.c           forward RCT and ICT (G.2, G.3)
 *   fdwt.c          forward 5/3 and 9/7 wavelet transforms (F.4), the inverses of dwt.c's
 *   quantise.c      sub-band step sizes (E.1) from the synthesis filters' norms
 *   t1_encode.c     Part 1 code-block encoding (Annex D; t1_encode.h), MQ coder in
 *                   mqc_encode.h
 *   ht_encode.c     HTJ2K code-block encoding: the cleanup pass (T.814 7.3; ht_encode.h),
 *                   instead of t1_encode.c with the HT option
 *   ht_refine_encode.c  its SigProp and MagRef passes (T.814 7.4, 7.5; ht_encode.h)
 *   ht_rd.c         an HT code-block's truncation candidates for rate control
 *   fast_coder.c    with mode fast-nonstandard, tessera's private stripe-parallel block coder
 *                   (fast_coder.h; NOT JPEG 2000, a main-header COM says so) instead of
 *                   t1_encode.c
 * The arithmetic of those stages lives in headers compiled for the CPU and the device too
 * (fxform_hd.h, ht_encode_hd.h, ht_rd_hd.h, t1_encode_hd.h); the CUDA backend's stages are
 * fxform_cuda.cu (samples, DWT) and encode_cuda.cu (its buffers and the block coders). Then:
 *   rate.c          PCRD-opt: truncation points' convex hulls, one slope threshold per layer
 *                   (to a size or to an estimated distortion)
 *   tgt_encode.c    tag-tree encoding (B.10.2)
 *   t2_encode.c     packets: headers (B.10) and bodies, in the progression order (pi.c)
 *   tile_parts.c    each tile's packets into tile-parts (A.4), their SOT/PLT/SOD, TLM entries
 *   markers_write.c main and tile-part headers (Annex A) and the JP2 boxes (Annex I)
 *   bytes.c         growable output bytes */
#ifndef TSR_J2K_ENCODE_STAGES_H
#define TSR_J2K_ENCODE_STAGES_H

#include "j2k/codestream.h"

/* ---- output bytes (bytes.c) ----------------------------------------------------------------
 * A buffer grown through the context's allocator. The first failure sticks in `st` (with the
 * context's message) and makes every later write a no-op, so a writer checks once at the end. */
typedef struct tsr__j2k_bytes {
    tsr_ctx *ctx;
    uint8_t *p;
    size_t len, cap;
    tsr_status st;
} tsr__j2k_bytes;

void tsr__j2k_bytes_init(tsr__j2k_bytes *b, tsr_ctx *ctx);
void tsr__j2k_bytes_free(tsr__j2k_bytes *b);
/* Room for `more` bytes after len; 0 on success. */
int tsr__j2k_bytes_reserve(tsr__j2k_bytes *b, size_t more);
void tsr__j2k_bytes_put(tsr__j2k_bytes *b, const void *data, size_t n);
/* One byte: in place while there is room (packet headers write a byte at a time). */
static inline void tsr__j2k_bytes_u8(tsr__j2k_bytes *b, uint32_t v)
{
    if (b->len < b->cap && !b->st) {
        b->p[b->len++] = (uint8_t)v;
        return;
    }
    const uint8_t c = (uint8_t)v;
    tsr__j2k_bytes_put(b, &c, 1);
}
void tsr__j2k_bytes_u16(tsr__j2k_bytes *b, uint32_t v); /* big-endian */
void tsr__j2k_bytes_u32(tsr__j2k_bytes *b, uint32_t v); /* big-endian */
/* Overwrites 4 bytes at off (< len - 3) with v, big-endian. */
void tsr__j2k_bytes_set32(tsr__j2k_bytes *b, size_t off, uint32_t v);

/* ---- packet-header bit writer (B.10.1) -----------------------------------------------------
 * Bits most significant first; after a 0xFF byte the next byte carries 7 bits (its MSB 0). The
 * inverse of decode_stages.h's tsr__bio reader, tsr__bio_align included. */
typedef struct tsr__biow {
    tsr__j2k_bytes *out;
    uint32_t buf;
    int ct;
} tsr__biow;

static inline void tsr__biow_init(tsr__biow *w, tsr__j2k_bytes *out)
{
    w->out = out;
    w->buf = 0;
    w->ct = 8;
}
static inline void tsr__biow_byteout(tsr__biow *w)
{
    w->buf = (w->buf << 8) & 0xffff;
    w->ct = w->buf == 0xff00 ? 7 : 8;
    tsr__j2k_bytes_u8(w->out, w->buf >> 8);
}
static inline void tsr__biow_bit(tsr__biow *w, uint32_t bit)
{
    if (w->ct == 0)
        tsr__biow_byteout(w);
    w->ct--;
    w->buf |= (bit & 1u) << w->ct;
}
static inline void tsr__biow_bits(tsr__biow *w, uint32_t v, uint32_t n)
{
    while (n--)
        tsr__biow_bit(w, (v >> n) & 1u);
}
/* Ends a packet header: the last partial byte, and a 0 byte after a final 0xFF. */
static inline void tsr__biow_flush(tsr__biow *w)
{
    tsr__biow_byteout(w);
    if (w->ct == 7)
        tsr__biow_byteout(w);
}

/* ---- tag trees (tgt_encode.c) --------------------------------------------------------------- */
/* Sets leaf `leaf`'s value; every ancestor keeps the minimum of its leaves (the tree starts
 * from tsr__tgt_reset's "infinite" values). */
void tsr__tgt_set_value(tsr__tgt *t, uint32_t leaf, int32_t value);
/* Writes what a decoder needs to tell whether leaf's value is below threshold (B.10.2); the
 * tree keeps what earlier calls wrote, as the decoder's does. A threshold above the value
 * writes the whole value. */
void tsr__tgt_encode(tsr__biow *w, tsr__tgt *t, uint32_t leaf, int32_t threshold);

/* ---- transforms (mct.c, fdwt.c) ------------------------------------------------------------ */
/* Forward RCT (G.2) in place: (R, G, B) -> (Y, Cb, Cr) = (floor((R + 2G + B) / 4), B - G,
 * R - G). */
void tsr__mct_rct_forward(int32_t *c0, int32_t *c1, int32_t *c2, size_t n);
/* Forward 5/3 of a line (F.4.8.2 lifting, symmetric extension), interleaved in place; x[0] at
 * absolute position i0 (even: a low-pass sample). */
void tsr__dwt53_forward_line(int32_t *x, uint32_t n, uint32_t i0);
/* Forward 5/3 of a tile-component: tc->data holds its samples at full resolution (tc->stride
 * apart); on return resolution r's sub-bands lie as the decoder's inverse (dwt.c) reads them:
 * each level's rows of its low samples first, then its high samples, low rows first. Lines
 * run on `threads` threads; tmp: threads x per_thread words, per_thread >= max(width,
 * height); the columns go in strips of min(TSR__FDWT_STRIP, per_thread / height) (the same
 * result for any per_thread: TSR__FDWT_STRIP x max(width, height) is the fastest). */
enum { TSR__FDWT_STRIP = 16 };
/* fdwt.c's line kernels compiled for AVX2 (fdwt_avx2.c; contracts in fdwt_lines.h). */
void tsr__fdwt_row53_avx2(int32_t *dst, const int32_t *x, uint32_t n, int32_t *t);
void tsr__fdwt_strip53_avx2(void *rows, uint32_t n, uint32_t i0, uint32_t cols);
void tsr__fdwt_row97_avx2(float *dst, const float *x, uint32_t n, float *t);
void tsr__fdwt_strip97_avx2(void *rows, uint32_t n, uint32_t i0, uint32_t cols);
void tsr__fdwt53(tsr__j2k_tilecomp *tc, int32_t *tmp, size_t per_thread, int threads);

/* Forward ICT (G.3) in place, float: (R, G, B) -> (Y, Cb, Cr) with the standard's
 * coefficients. */
void tsr__mct_ict_forward(float *c0, float *c1, float *c2, size_t n);
/* Forward 9/7 (F.4.8.2) of a line, interleaved in place: the decoder's inverse lifting steps
 * run backwards in float (alpha, beta, gamma, delta, then 1/K and K scaling). */
void tsr__dwt97_forward_line(float *x, uint32_t n, uint32_t i0);
/* Forward 9/7 of a tile-component whose tc->data holds floats; the layout, threads and tmp as
 * tsr__fdwt53's. The encoder runs tsr__fdwt_fused; these two whole-plane forms are the
 * references that its test and the device's transform are compared with. */
void tsr__fdwt97(tsr__j2k_tilecomp *tc, float *tmp, size_t per_thread, int threads);

/* Rows [y, y + n) of up to TSR__FDWT_FUSED_COMPS tile-components of one size (counted from
 * their first row) into rows[c], n rows of their width one after another: the samples the
 * forward DWT starts from (int32 for 5/3, float bits for 9/7). */
enum { TSR__FDWT_FUSED_COMPS = 3 };
typedef void (*tsr__fdwt_load_fn)(void *user, uint32_t y, uint32_t n, void *const *rows);
/* tsr__fdwt53 (rev) or tsr__fdwt97 of ncomp (<= TSR__FDWT_FUSED_COMPS) tile-components of one
 * size whose samples load gives (tcs[c]->stride their width), the finest level fused with the
 * load: bands of rows loaded into tmp with the lifting's reach above and below, their columns
 * and then each band row analysed there and written once into its place; then the coarser
 * levels as tsr__fdwt53/97. The same values bit for bit as loading every sample and calling
 * tsr__fdwt53/97, at any thread count; with one resolution, the samples as loaded. tmp:
 * threads x per_thread words, per_thread >= tsr__fdwt_fused_words(width, ncomp) and as
 * tsr__fdwt53's. */
size_t tsr__fdwt_fused_words(uint32_t w, uint32_t ncomp);
void tsr__fdwt_fused(tsr__j2k_tilecomp *const *tcs, uint32_t ncomp, int rev, tsr__fdwt_load_fn load,
                     void *user, void *tmp, size_t per_thread, int threads);

/* ---- quantisation (quantise.c) ---------------------------------------------------------- */
/* The L2 norm of the synthesis basis function of a sub-band (orient 0 LL .. 3 HH) at
 * decomposition level `level` (1 the finest; LL: the coarsest level of the transform), of the
 * 9/7 as the decoder's inverse (tsr__dwt97_line) reconstructs it, or of the 5/3's linear part
 * (reversible): the factor by which a unit error in one of its coefficients grows in the image
 * (its square: the MSE weight). The table holds the 1-D norms up to TSR__DWT_NORM_LEVELS;
 * deeper levels extrapolate the last growth factor. */
#define TSR__DWT_NORM_LEVELS 10
#define TSR__DWT_NORM_BASE 32
typedef struct tsr__dwt_norms {
    double lo[TSR__DWT_NORM_LEVELS + 1], hi[TSR__DWT_NORM_LEVELS + 1]; /* 1-D, per level */
} tsr__dwt_norms;
tsr_status tsr__dwt_norms_init(tsr_ctx *ctx, int reversible, tsr__dwt_norms *nt);
double tsr__dwt_norm(const tsr__dwt_norms *nt, uint32_t orient, uint32_t level);
/* Step size for a sub-band as exponent and mantissa (E.1.1.1: delta = 2^(R - e) (1 + m / 2^11),
 * R = range_bits the band's nominal dynamic range): the representable step nearest below
 * `delta` (> 0); 0 when it is out of the representable range. */
int tsr__j2k_step_encode(double delta, uint32_t range_bits, tsr__j2k_step *out);

/* ---- rate control (rate.c) ------------------------------------------------------------------ */
typedef struct tsr__j2k_rd_point {
    uint16_t passes; /* passes kept */
    uint32_t bytes;  /* their bytes */
    double dist;     /* weighted distortion they remove */
    double slope;    /* distortion removed per byte since the previous hull point */
} tsr__j2k_rd_point;
/* The lower convex hull of a block's truncation points (rate[p], sum of weight * dist[0..p]
 * after pass p), slopes strictly decreasing; hull holds up to np points. Returns its size. */
uint32_t tsr__j2k_rd_hull(const uint32_t *rate, const double *dist, uint32_t np, double weight,
                          tsr__j2k_rd_point *hull);
/* How many of the n hull points have a slope of at least lambda (the block keeps
 * hull[k - 1].passes passes, none when k = 0). */
uint32_t tsr__j2k_rd_pick(const tsr__j2k_rd_point *hull, uint32_t n, double lambda);

/* ---- HT truncation candidates (ht_rd.c) -----------------------------------------------------
 * One HT set (ht_encode.h): the cleanup pass at base plane `plane` and, with npasses 2 or 3,
 * the SigProp [and MagRef] passes of plane - 1. */
typedef struct tsr__j2k_ht_set {
    uint32_t off;    /* where its cleanup segment starts, relative to the block's first one */
    uint32_t ref;    /* where its refinement segment starts, likewise */
    uint32_t lcup;   /* its cleanup segment's bytes */
    uint32_t lref;   /* its refinement segment's bytes (0 when npasses is 1) */
    uint8_t plane;   /* p */
    uint8_t npasses; /* 1 cleanup, 2 and SigProp, 3 and MagRef */
} tsr__j2k_ht_set;
/* Most candidates of a block: 3 per plane but plane 0's 1, 31 planes. */
#define TSR__J2K_HT_MAX_SETS 91
/* Codes the truncation candidates of an HT code-block of w x h quantised coefficients coef
 * (row-major, sign-magnitude meaning, K >= 1 bit-planes, K <= 30), best last: for p = K - 1
 * down to 0, the cleanup at p, then (p >= 1) with SigProp of plane p - 1, then with its MagRef
 * too; a set whose refinement segment would be empty is left out. Appends their bytes to out
 * (each plane's cleanup segment, then its refinement segment of both passes, whose prefix is
 * SigProp's alone) and fills sets, rate (each set's bytes, lcup + lref) and dist (the
 * squared error, in quantisation steps squared, that each set's reconstruction removes against
 * the set before it; the first against nothing coded, whose error is *err0). The error is the
 * decoder's reconstruction (t1.h section 3, r = 1/2) against mag, the coefficients' magnitudes
 * in steps (irreversible: |c| / delta, of which coef is the floor), or, with mag NULL
 * (reversible), against |coef| exactly. buf: TSR__J2K_HT_RD_SCRATCH bytes of scratch. Returns
 * the number of sets (<= TSR__J2K_HT_MAX_SETS), 0 when a coder fails (cannot happen within
 * ht_encode.h's limits) or out's writes failed (out->st). Here the CPU's coders code the planes
 * (tsr__ht_encode_plane, tsr__ht_encode_refine) and the errors are summed in ht_rd_hd.h's lane
 * order: the same sets, bytes and errors as ht_rd_hd.h's, which the device runs. */
#define TSR__J2K_HT_RD_SCRATCH (3 * 4096 + 3 * 4098)
uint32_t tsr__j2k_ht_candidates(const int32_t *coef, const float *mag, uint32_t w, uint32_t h,
                                uint32_t K, uint8_t *buf, tsr__j2k_bytes *out,
                                tsr__j2k_ht_set *sets, uint32_t *rate, double *dist, double *err0);
/* The error of such a block with nothing coded (tsr__j2k_ht_candidates' *err0). */
double tsr__j2k_ht_err0(const int32_t *coef, const float *mag, uint32_t w, uint32_t h);
/* tsr__j2k_ht_candidates a plane at a time: base plane p's sets after the *ns of the planes
 * above (*prev: the error of the last of them, or *err0 before the first; *len: their bytes),
 * its bytes appended to out; *ns, *prev and *len advanced. Returns 0 as
 * tsr__j2k_ht_candidates does. */
int tsr__j2k_ht_candidates_plane(const int32_t *coef, const float *mag, uint32_t w, uint32_t h,
                                 uint32_t p, uint8_t *buf, tsr__j2k_bytes *out,
                                 tsr__j2k_ht_set *sets, uint32_t *ns, uint32_t *rate, double *dist,
                                 double *prev, size_t *len);

/* ---- packets (t2_encode.c) ----------------------------------------------------------------- */
/* A code-block's coded data: one codeword segment (code-block style 0) holding all its
 * passes. */
typedef struct tsr__j2k_cblk_code {
    const uint8_t *data; /* the segment */
    uint32_t len;        /* its bytes */
    uint16_t npasses;    /* its passes (0: nothing coded) */
    uint8_t zero_bp;     /* Mb - coded bit-planes; with sets: Mb - 1 */
    /* An HT code-block coded at several truncation candidates (nsets of them; NULL: the
     * segment above): a cut with passes = i >= 1 sends the one HT set sets[i - 1], whose
     * segments lie at data + sets[i - 1].off and .ref, with zero bit-planes zero_bp -
     * sets[i - 1].plane;
     * only one layer may include such a block (its first cut is its last). npasses and len
     * are those of sets[nsets - 1]'s index and bytes. */
    const tsr__j2k_ht_set *sets;
    uint32_t nsets;
} tsr__j2k_cblk_code;

/* What a code-block has contributed once layers 0..l are written: its first `passes` passes,
 * in the first `bytes` bytes of its segment. Over the layers both are non-decreasing; a block
 * is first included in the first layer whose cut has passes > 0. */
typedef struct tsr__j2k_cut {
    uint16_t passes;
    uint32_t bytes;
} tsr__j2k_cut;

/* One packet as tsr__t2_encode wrote it: its bytes (SOP marker segment, header, EPH and body)
 * and which layer, component and resolution it belongs to. */
typedef struct tsr__j2k_packet {
    uint32_t len;
    uint16_t l;
    uint16_t c;
    uint8_t r;
} tsr__j2k_packet;

/* A run of a tile's packet bytes: len bytes at src (a code-block's), or, with src NULL, the
 * next len bytes of the packets' headers (tsr__t2_encode's out: SOP, header, EPH). */
typedef struct tsr__j2k_piece {
    const uint8_t *src;
    size_t len;
} tsr__j2k_piece;

/* Encodes the packets of layers 0 .. nlayers - 1 (<= tcp->numlayers) of tile t in tcp's
 * progression order: codes[g] is the code of the tile's code-block g (t->cblk_ptr numbering),
 * cuts[g * tcp->numlayers + l] its cut after layer l. The packets of a layer prefix do not
 * depend on the cuts of later layers. Their headers (with SOP and EPH) are appended to out, the
 * code-blocks' bytes added to *bodies and not copied: with pieces (may be NULL: a
 * measurement), the tsr__j2k_piece records that lay the packets out, in order, are appended to
 * it. With packets (may be NULL), one tsr__j2k_packet per packet is appended to it, in
 * order. The precincts' headers are coded on up to `threads` threads (a precinct's packets in
 * order on one), then laid out in order: the same bytes at any count. */
tsr_status tsr__t2_encode(tsr_ctx *ctx, const tsr__j2k_cs *cs, const tsr__j2k_tcp *tcp,
                          tsr__j2k_tile *t, const tsr__j2k_cblk_code *codes,
                          const tsr__j2k_cut *cuts, uint32_t nlayers, int threads,
                          tsr__j2k_bytes *out, tsr__j2k_bytes *packets, size_t *bodies,
                          tsr__j2k_bytes *pieces);

/* ---- tiles and tile-parts (tile_parts.c) ---------------------------------------------------
 * The tiles of one encode (T.800 B.3) and how their packets are laid out: every tile's
 * packets in one body, split into tile-parts where the packet's layer, resolution or
 * component (split 'L', 'R', 'C'; 0: one tile-part per tile) differs from the one before it
 * (opj_compress -TP), each tile-part SOT, optionally PLT (A.7.3) listing its packets'
 * lengths, SOD and its packets; tiles in index order, a tile's tile-parts together. */
typedef struct tsr__j2k_enc_tiles {
    const tsr__j2k_cs *cs;
    const tsr__j2k_tcp *tcp;
    tsr__j2k_tile *tiles;  /* cs->ntiles */
    const size_t *first;   /* cs->ntiles + 1: tile k's code-blocks are first[k] .. first[k + 1]
                              - 1 of the encode's numbering (codes, cuts) */
    tsr__j2k_bytes body;   /* every tile's packets' headers, tile after tile */
    tsr__j2k_bytes pieces; /* the tsr__j2k_piece records of every tile's packets */
    tsr__j2k_bytes pkts;   /* their tsr__j2k_packet records */
    size_t *body_at;       /* cs->ntiles + 1: tile k's headers are body[body_at[k] ..
                              body_at[k + 1]) */
    size_t *pkts_at;       /* cs->ntiles + 1: its records, likewise in records */
    uint32_t *ntp;         /* cs->ntiles: each tile's tile-parts (tsr__j2k_tile_parts_count) */
    uint32_t ntp_total;    /* all of them */
    char split;            /* 0, 'L', 'R' or 'C' */
    int plt;               /* PLT marker segments in the tile-part headers */
    size_t bytes;          /* what the tiles of the last tsr__j2k_tiles_encode take */
    int threads;           /* for each tile's packet headers (tsr__t2_encode) */
} tsr__j2k_enc_tiles;

/* Counts each tile's tile-parts into E->ntp and E->ntp_total (they follow from the
 * progression alone, not from the cuts); TSR_ERR_INVALID_ARGUMENT when a tile would need more
 * than 255 (TNsot, A.4.2). */
tsr_status tsr__j2k_tile_parts_count(tsr_ctx *ctx, tsr__j2k_enc_tiles *E);
/* Encodes every tile's packets of layers 0 .. nlayers - 1 (tsr__t2_encode; headers, pieces and
 * records emptied first) and sets *bytes and E->bytes to what the tiles take in the
 * codestream: their packets and every tile-part's SOT, PLT and SOD. measure: no pieces (rate
 * control's trials; E is then not for tsr__j2k_tiles_write). The code-blocks' bytes are
 * copied once, by tsr__j2k_tiles_write, from where the codes hold them. */
tsr_status tsr__j2k_tiles_encode(tsr_ctx *ctx, tsr__j2k_enc_tiles *E,
                                 const tsr__j2k_cblk_code *codes, const tsr__j2k_cut *cuts,
                                 uint32_t nlayers, int measure, size_t *bytes);
/* Appends the tile-parts of the packets tsr__j2k_tiles_encode wrote last (E->bytes of them;
 * the code-blocks' bodies copied on E->threads threads when they are a megabyte or more); with
 * tlm_at (from tsr__j2k_write_main_header), fills the main header's TLM entries in head, which
 * may be out itself (tlm_at then counted from out's start). */
void tsr__j2k_tiles_write(const tsr__j2k_enc_tiles *E, tsr__j2k_bytes *head, size_t tlm_at,
                          tsr__j2k_bytes *out);

/* Rate control over tcp->numlayers quality layers of E's tiles together: budget[l] is the
 * bytes the tiles may take in the codestream once layers 0..l are written (their packets and
 * tile-part headers, tsr__j2k_tiles_encode; increasing; HUGE_VAL: every pass of every block,
 * for a last layer that must be complete, lossless included; negative: the layer's target is
 * target[l] instead, an estimated distortion). Block j (the encode's numbering over all
 * tiles) has the estimated distortion dist0[j] (none of its passes kept) less
 * hulls[j][k - 1].dist when it keeps k hull points (hulls[j], nhull[j] points, 0 when not
 * coded). Layer by layer, each block's cut is the longest prefix of its hull whose slopes are
 * at least the layer's threshold (one for the whole image), and never shorter than its cut
 * after the layer before. For a size, the threshold is the smallest whose tiles fit
 * (regula falsi from a bracket that the blocks' bytes alone give), then the bytes left go to the
 * steepest next hull points; where not even the previous layers' cuts fit, those. For a distortion,
 * the threshold is the largest whose total distortion is at most target[l], then hull points
 * steepest first until it is met; every pass where it cannot be. Fills cuts (n x numlayers, as
 * tsr__t2_encode reads them), dist[l] (the estimated distortion after layer l) and bytes[l] (what
 * the tiles take with layers 0..l: above budget[l] where even the tile-part headers, empty packets
 * and the cuts of the layers before do not fit), and leaves every layer's packets in E
 * (tsr__j2k_tiles_encode). */
tsr_status tsr__j2k_rate_control(tsr_ctx *ctx, tsr__j2k_enc_tiles *E,
                                 const tsr__j2k_rd_point *const *hulls, const uint32_t *nhull,
                                 const double *dist0, size_t n, const tsr__j2k_cblk_code *codes,
                                 const double *budget, const double *target, tsr__j2k_cut *cuts,
                                 double *dist, size_t *bytes);

/* Which of their base planes HT code-blocks code for rate control to a size: every block's
 * planes from its top (K[j] - 1) down, a plane of every open block a round (reveal(user, j,
 * next, thread, &rate, &dist) codes block j's next plane on that OpenMP thread and gives its
 * candidates so far, rate and dist as tsr__j2k_rd_hull reads them, and their count, 0 when it
 * failed; next is the block after j in the round, a hint for prefetching, n after the last), until
 * the block's planes are all coded or its hull's last slope is below a quarter of a floor: a
 * threshold at or below the one at which the candidates coded so far would fill budget bytes. The
 * final threshold, found by tsr__j2k_rate_control with every packet's header counted against a
 * smaller budget, is at least that floor, and the candidates below a hull's slopes are a plane
 * further down (a factor of about 4 in slope), so the planes left uncoded are ones the search would
 * not take (but for hulls that turn convex again lower down). Fills nsets[j] with block j's
 * candidates when it stopped (0 when K[j] is 0); the result does not depend on threads.
 * TSR_ERR_INTERNAL when a reveal failed. */
typedef uint32_t (*tsr__j2k_ht_reveal)(void *user, size_t j, size_t next, int thread,
                                       const uint32_t **rate, const double **dist);
tsr_status tsr__j2k_ht_reveal_planes(tsr_ctx *ctx, size_t n, const uint8_t *K, const double *weight,
                                     double budget, int threads, tsr__j2k_ht_reveal reveal,
                                     void *user, uint32_t *nsets);

/* ---- markers and boxes (markers_write.c) --------------------------------------------------- */
/* SOC, SIZ, CAP (when cs->rsiz has the Part 15 bit 14: Pcap with Part 15, Ccap15 for HT
 * code-blocks only, one HT set, the transform of tccps[0] and the magnitude bound from its
 * Mb), COD and QCD for a codestream of cs's image and tcp's coding parameters (every
 * component coded as tccps[0] says: its precinct sizes when its csty bit 0 is set;
 * tcp->tccps[0].steps holds the 3 L + 1 exponents); with tlm_at, TLM marker segments with
 * room for ntp tile-parts' entries, whose values tsr__j2k_tiles_write fills in (the header's
 * size does not depend on them): *tlm_at is where the first segment starts. */
void tsr__j2k_write_main_header(const tsr__j2k_cs *cs, const tsr__j2k_tcp *tcp, uint32_t ntp,
                                size_t *tlm_at, tsr__j2k_bytes *out);
/* The bytes TLM entries take: Ttlm 8 bits when there are at most 255 tiles, 16 otherwise;
 * Ptlm 32 bits. */
uint32_t tsr__j2k_tlm_entry_size(uint32_t ntiles);
/* Entries one TLM marker segment holds at most. */
uint32_t tsr__j2k_tlm_per_segment(uint32_t ntiles);
/* SOT of tile-part tpsot of tnsot of tile `tile` with its Psot (psot: the tile-part's bytes
 * from SOT to its last packet's end). */
void tsr__j2k_write_sot(uint32_t tile, uint32_t psot, uint32_t tpsot, uint32_t tnsot,
                        tsr__j2k_bytes *out);
/* The bytes of the PLT marker segments that list n packet lengths (A.7.3: 7 bits a byte,
 * segments of at most 65535 bytes, at most 256 of them), and writing them. 0 from the size
 * when 256 segments do not hold them. */
size_t tsr__j2k_plt_size(const tsr__j2k_packet *pk, size_t n);
void tsr__j2k_write_plt(const tsr__j2k_packet *pk, size_t n, tsr__j2k_bytes *out);
/* The JP2 signature, file type and header boxes (ihdr, colr; cdef for an alpha channel) for a
 * codestream of cs's image, then the contiguous codestream box's header for cs_len bytes; with
 * jph, the JPH file format's (T.814 Annex D): brand and compatibility 'jph '. */
void tsr__jp2_write_boxes(const tsr__j2k_cs *cs, int has_alpha, int jph, size_t cs_len,
                          tsr__j2k_bytes *out);

#endif
