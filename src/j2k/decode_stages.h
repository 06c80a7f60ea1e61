/* The JPEG 2000 decoder's stages (not installed), over the codestream model of codestream.h.
 *
 * Stages, one per file, in the order a decode runs them:
 *   reader.h      bounded big-endian byte reads
 *   jp2.c         JP2/JPH boxes (T.800 Annex I, T.814 Annex D)
 *   icc.c         restricted ICC profiles of the colr box (jp2_colour.h)
 *   markers.c     main and tile-part headers (T.800 Annex A), validated
 *   t2.c          packet headers and code-block contributions (B.9, B.10; T.814 B.3)
 *   cblk_jobs.c   the code-block jobs of a tile: their order, threads and error collection
 *   t1_decode.c   Part 1 code-block decoding (Annex C, D; t1.h), body in t1_decode_hd.h
 *   fast_coder.c  the blocks of a stream whose main-header COM names tessera's
 *                 fast-nonstandard coder (fast_coder.h; tcp->fast_ns), instead of t1_decode.c
 *   ht_decode.c   HT code-block decoding (T.814 Clause 7), body in ht_decode_hd.h; its cleanup
 *                 pass also for AVX2 in ht_decode_avx2.c
 *   t1_cuda.cu    both decoders' bodies on a CUDA device, one thread per code-block (t1_cuda.h)
 *   dwt.c         inverse 5/3 and 9/7 wavelet transform (Annex F); its level passes in
 *                 dwt_level.h, also compiled for AVX2 by dwt_avx2.c and AVX-512 by dwt_avx512.c
 *   bands.c       the top resolutions rebuilt a group of code-block rows at a time
 *   mct.c         inverse RCT / ICT (Annex G)
 *   decode_tile.c one tile: dequantisation (Annex E), transforms, DC level shift and output; its
 *                 row pass in store_row.h, also compiled for AVX2 by store_avx2.c and AVX-512 by
 *                 store_avx512.c
 *   jp2_colour.c  JP2 colour specifications to sRGB: sYCC, e-sYCC, ICC (jp2_colour.h)
 *   pixels.c      interleaved 8- and 16-bit pixels (pixels_avx2.c: its RGB case for AVX2)
 *   xform_cuda.cu the inverse DWT and the output (colour transform, store, pixels) on the CUDA
 *                 device (xform_cuda.h), the same bits: the per-sample arithmetic of dwt_level.h,
 *                 mct.c, store_row.h and pixels.c is xform_hd.h's
 *   decode_tile_cuda.c one tile on CUDA: packets on the host, the blocks' segments staged and
 *                 decoded by t1_cuda.cu, then xform_cuda.cu, into the device image that
 *                 decode_cuda.cu keeps (decode_cuda.h: the context's buffers, uploads, downloads)
 *   decode.c      the public API: options, output layout, tiles in order
 *   pgx.c         PGX writer
 *   prefault.c    populating fresh output planes in one system call
 * Host-side parse and validation first; then independent code-blocks; then whole-array passes. */
#ifndef TSR_J2K_DECODE_STAGES_H
#define TSR_J2K_DECODE_STAGES_H

#include "j2k/codestream.h"
/* ---- JP2 boxes ---------------------------------------------------------------------------- */
typedef struct tsr__jp2_chan {
    uint16_t cmp; /* codestream component */
    uint8_t mtyp; /* 0 direct, 1 palette */
    uint8_t pcol; /* palette column */
} tsr__jp2_chan;

typedef struct tsr__jp2 {
    tsr_j2k_container container;
    size_t cs_off, cs_len;      /* the contiguous codestream inside the file */
    uint32_t width, height, nc; /* ihdr */
    uint8_t bpc;
    /* the first colr box (T.800 I.5.3.3): METH (0: none), EnumCS (METH 1) and the bytes after
     * METH, PREC, APPROX (the ICC profile of METH 2 and 3; inside the caller's data) */
    uint8_t colr_meth;
    uint32_t enumcs;
    const uint8_t *icc;
    size_t icc_len;
    /* pclr */
    uint32_t pal_ne, pal_npc;
    uint8_t pal_bits[256]; /* per column: precision-1 | 0x80 signed */
    int32_t *pal;          /* pal_ne * pal_npc entries, row-major by entry (ctx allocation) */
    /* cmap */
    uint32_t ncmap;
    tsr__jp2_chan cmap[256];
    /* cdef */
    uint32_t ncdef;
    uint16_t cdef_cn[256], cdef_typ[256], cdef_asoc[256];
} tsr__jp2;

/* Finds the codestream: a raw codestream (SOC first) or a JP2/JPH file. */
tsr_status tsr__jp2_read(tsr_ctx *ctx, const uint8_t *data, size_t len, tsr__jp2 *jp2,
                         tsr__j2k_warn *warn);
void tsr__jp2_free(tsr_ctx *ctx, tsr__jp2 *jp2);

/* ---- codestream parsing (markers.c) ------------------------------------------------------ */
tsr_status tsr__j2k_parse(tsr_ctx *ctx, const uint8_t *data, size_t len, size_t base, int main_only,
                          tsr__j2k_cs *cs, tsr__j2k_warn *warn);
void tsr__j2k_cs_free(tsr_ctx *ctx, tsr__j2k_cs *cs);
/* Fills tcp (tccps allocated by the caller for cs->ncomps) with the main-header defaults overlaid
 * by tile `tile`'s tile-part header markers; ppt/ppt_len receive the concatenated PPT data
 * (allocated, NULL when none). */
tsr_status tsr__j2k_tile_params(tsr_ctx *ctx, tsr__j2k_cs *cs, uint32_t tile, tsr__j2k_tcp *tcp,
                                uint8_t **ppt, size_t *ppt_len);
tsr_status tsr__j2k_tcp_copy(tsr_ctx *ctx, const tsr__j2k_cs *cs, tsr__j2k_tcp *dst,
                             const tsr__j2k_tcp *src);
void tsr__j2k_tcp_free(tsr_ctx *ctx, tsr__j2k_tcp *tcp);

/* ---- packet-header bits and tag-tree decoding (tgt.c) ------------------------------------ */
/* Packet-header bit reader with bit stuffing (B.10.1). */
typedef struct tsr__bio {
    const uint8_t *p, *start, *end;
    uint32_t buf;
    int ct;
    int overrun; /* read past the end */
} tsr__bio;

static inline void tsr__bio_init(tsr__bio *b, const uint8_t *p, size_t len)
{
    b->p = b->start = p;
    b->end = p + len;
    b->buf = 0;
    b->ct = 0;
    b->overrun = 0;
}
static inline uint32_t tsr__bio_bit(tsr__bio *b)
{
    if (b->ct == 0) {
        b->buf = (b->buf << 8) & 0xffff;
        b->ct = b->buf == 0xff00 ? 7 : 8;
        if (b->p < b->end)
            b->buf |= *b->p++;
        else
            b->overrun = 1;
    }
    b->ct--;
    return (b->buf >> b->ct) & 1;
}
static inline uint32_t tsr__bio_read(tsr__bio *b, uint32_t n)
{
    uint32_t v = 0;
    for (uint32_t i = 0; i < n; i++)
        v = (v << 1) | tsr__bio_bit(b);
    return v;
}
/* Ends a packet header: skips the stuffed byte after a final 0xFF. */
static inline void tsr__bio_align(tsr__bio *b)
{
    if ((b->buf & 0xff) == 0xff) {
        b->buf = (b->buf << 8) & 0xffff;
        if (b->p < b->end)
            b->p++;
        else
            b->overrun = 1;
    }
    b->ct = 0;
}
static inline size_t tsr__bio_bytes(const tsr__bio *b)
{
    return (size_t)(b->p - b->start);
}

/* Decodes the value of leaf `leaf` against threshold: returns 1 when value < threshold
 * (B.10.2). Values are capped at `cap` (a corrupt stream cannot loop forever). */
int tsr__tgt_decode(tsr__bio *b, tsr__tgt *t, uint32_t leaf, int32_t threshold);
/* Decodes the full value of a leaf (reads until known), capped at cap; returns the value. */
int32_t tsr__tgt_decode_value(tsr__bio *b, tsr__tgt *t, uint32_t leaf, int32_t cap);

/* ---- packets (t2.c) ----------------------------------------------------------------------- */
typedef struct tsr__j2k_chunk {
    uint32_t cblk; /* global code-block index */
    uint16_t segno;
    uint16_t passes;
    uint32_t len;
    const uint8_t *ptr;
} tsr__j2k_chunk;

typedef struct tsr__j2k_t2 {
    uint32_t nchunks, cap;
    tsr__j2k_chunk *chunks;
} tsr__j2k_t2;

/* Reads every packet of tile t (its tile-parts concatenated in body; packet headers in hdr when
 * PPM/PPT are used, else NULL) up to `layers` layers, recording code-block contributions. */
tsr_status tsr__t2_decode(tsr_ctx *ctx, const tsr__j2k_cs *cs, const tsr__j2k_tcp *tcp,
                          tsr__j2k_tile *t, const uint8_t *body, size_t body_len,
                          const uint8_t *hdr, size_t hdr_len, uint32_t layers, size_t body_base,
                          tsr__j2k_t2 *out, tsr__j2k_warn *warn);
void tsr__t2_free(tsr_ctx *ctx, tsr__j2k_t2 *t2);

/* ---- wavelet, colour (dwt.c, mct.c) ------------------------------------------------------- */
/* Inverse 5/3 / 9/7 of a tile-component in place, resolutions 1 .. nres-1 (res[] geometry).
 * scratch: threads * tsr__dwt_scratch_per_thread(tc) int32 elements. */
size_t tsr__dwt_scratch_per_thread(const tsr__j2k_tilecomp *tc);
void tsr__dwt53_inverse2(tsr__j2k_tilecomp *tc, uint32_t nres, int32_t *scratch, int threads);
void tsr__dwt97_inverse2(tsr__j2k_tilecomp *tc, uint32_t nres, int32_t *scratch, int threads);
/* One level of the inverse DWT (dwt_level.h, the baseline or the AVX2 build as tsr__ht_simd()
 * says): rows [0, rh) of data, `stride` apart, hold a resolution of rw x rh samples whose first
 * sample is at (x0, y0), deinterleaved: each row its snx low samples then the high ones, the
 * sny low rows first, then the high rows. On return they hold the interleaved reconstruction.
 * scratch: threads x per_thread words, per_thread >= max(rw, rh) * 64 + 64. */
void tsr__dwt_level(int32_t *data, size_t stride, uint32_t rw, uint32_t rh, uint32_t snx,
                    uint32_t sny, uint32_t x0, uint32_t y0, int rev, int32_t *scratch,
                    size_t per_thread, int threads);
/* The level's two steps on their own (the same build choice): its horizontal pass on one row
 * (tmp: rw words), and its vertical pass on the columns [TSR__DWT_STRIP s, TSR__DWT_STRIP
 * (s + 1)) of rw (tmp: rh * TSR__DWT_STRIP words), once every row is through the first. */
#define TSR__DWT_STRIP 64
void tsr__dwt_hrow(int32_t *row, uint32_t rw, uint32_t snx, uint32_t x0, int rev, int32_t *tmp);
void tsr__dwt_vstrip(int32_t *data, size_t stride, uint32_t rw, uint32_t rh, uint32_t sny,
                     uint32_t y0, int rev, uint32_t s, int32_t *tmp);
/* 1-D inverses on an interleaved line x[0..n) whose first sample is at absolute position i0
 * (even: low-pass first). Exposed for unit tests. */
void tsr__dwt53_line(int32_t *x, uint32_t n, uint32_t i0);
void tsr__dwt97_line(float *x, uint32_t n, uint32_t i0);

void tsr__mct_rct_inverse(int32_t *c0, int32_t *c1, int32_t *c2, size_t n);
void tsr__mct_ict_inverse(float *c0, float *c1, float *c2, size_t n);

/* Output of one decoded tile-component (decode.c): the rows and columns of the tile-component
 * inside the plane ([x0, x1) x [y0, y1), empty when x1 <= x0 or y1 <= y0), DC level shift,
 * rounding, clamping to [lo, hi]. The decoded samples of row y (absolute, top resolution) start
 * at src + (y - src_y0) * src_stride, column src_x0 first. row(s, y, dst) writes row y's samples
 * [x0, x1) to dst[0 .. x1 - x0) (dst may be the source itself: element by element in place);
 * the baseline build (decode_tile.c), the AVX2 one (store_avx2.c; a stub off x86-64 that is
 * never chosen there) or the AVX-512 one (store_avx512.c), chosen by tsr__ht_simd()'s level; all
 * write the same values. */
typedef struct tsr__j2k_store_plan {
    void (*row)(const struct tsr__j2k_store_plan *s, int64_t y, int32_t *dst);
    int32_t *src;
    size_t src_stride;
    const tsr_j2k_plane *p;
    int64_t x0, y0, x1, y1, src_x0, src_y0, lo, hi, shift;
    int is_float;
} tsr__j2k_store_plan;
void tsr__j2k_store_row_base(const tsr__j2k_store_plan *s, int64_t y, int32_t *dst);
void tsr__j2k_store_row_avx2(const tsr__j2k_store_plan *s, int64_t y, int32_t *dst);
void tsr__j2k_store_row_avx512(const tsr__j2k_store_plan *s, int64_t y, int32_t *dst);

/* Interleaved 8- or 16-bit pixels from stored rows (pixels.c): n channels (1..4) of the given
 * planes' precision and signedness, each scaled to the full output range (tsr_j2k_decode_image
 * in j2k.h states the rule). */
typedef struct tsr__j2k_pixels {
    uint32_t n;
    int wide;  /* 16-bit output */
    int exact; /* every precision equals the output's: an offset only */
    int32_t off[4];
    uint64_t num[4], den[4];
} tsr__j2k_pixels;
void tsr__j2k_pixels_init(tsr__j2k_pixels *pk, const tsr_j2k_plane *p, uint32_t n, int wide);
/* Pixels [0, k) into out from s[c][0 .. k), the stored samples of channel c. */
void tsr__j2k_pixels_row(const tsr__j2k_pixels *pk, const int32_t *const s[4], uint32_t k,
                         void *out);
/* Its 3-channel 8-bit exact case for AVX2 (pixels_avx2.c): the pixels [0, x) of a row, x the
 * largest multiple of 16 <= k, returned; the same bytes as pixels.c's loop. */
uint32_t tsr__j2k_pack3_avx2(const int32_t *const s[3], const int32_t off[3], uint32_t k,
                             uint8_t *out);

/* ---- code-block jobs (cblk_jobs.c) ----------------------------------------------------------- */
typedef struct tsr__j2k_bands tsr__j2k_bands;
struct tsr__j2k_job;
struct tsr__t1_seg;
struct tsr__t1_block;
/* The code-blocks of a tile's decoded resolutions and requested components, in order of their
 * key: 0, or for a block of the top resolution of a component decoded in bands, 1 + its
 * group's index from the first, and for one of the resolution below when that is in bands
 * too, 1 + the top's groups + its group's index. Each job writes every coefficient of its
 * block (zeros without contributions). */
typedef struct tsr__j2k_jobs {
    uint32_t *first, *order; /* the t2 chunks by code-block, layer order kept */
    struct tsr__j2k_job *jobs;
    size_t njobs;
    size_t *key_first; /* jobs of key k: [key_first[k], key_first[k + 1]) */
    uint32_t nkeys;
    uint8_t *buf; /* per thread: a block's segments copied together (maxlen + 8 bytes) */
    size_t maxlen;
    struct tsr__t1_seg *segs; /* per thread: TSR__T1_MAX_SEGS */
    tsr_status fatal;         /* a block the decoder could not handle (later jobs still run) */
    uint32_t nwarn_blocks, ncorrupt;
} tsr__j2k_jobs;
/* bands: per component (all decoded in bands) or NULL; below: the bands of the resolution
 * below the top, per component, or NULL; nkeys: keys in use (1 without). */
tsr_status tsr__j2k_jobs_make(tsr_ctx *ctx, const tsr__j2k_tile *t, const tsr__j2k_t2 *t2,
                              const tsr__j2k_bands *bands, const tsr__j2k_bands *below,
                              uint32_t nkeys, int threads, tsr__j2k_jobs *J);
/* Decodes and dequantises the jobs of one key with `threads` threads and their t1 workspaces
 * (ws: threads x ws_size bytes). */
void tsr__j2k_jobs_run(tsr__j2k_jobs *J, const tsr__j2k_tcp *tcp, const tsr__j2k_tile *t,
                       const tsr__j2k_t2 *t2, uint32_t key, int threads, void *ws, size_t ws_size);
/* The same as a worksharing loop of the calling OpenMP team (every thread of the innermost
 * parallel region calls it, or one thread outside any), without a barrier at its end: the
 * workspaces are the team threads'. */
void tsr__j2k_jobs_run_team(tsr__j2k_jobs *J, const tsr__j2k_tcp *tcp, const tsr__j2k_tile *t,
                            const tsr__j2k_t2 *t2, uint32_t key, void *ws, size_t ws_size);
/* The error of a fatal block, else TSR_OK after the warnings of the blocks that failed. */
tsr_status tsr__j2k_jobs_finish(tsr_ctx *ctx, const tsr__j2k_jobs *J, const tsr__j2k_tile *t,
                                tsr__j2k_warn *warn);
/* The same from J's counts alone (its other fields unused) for tile `tile`, the warnings
 * counted at position pos (tsr__j2k_warn_at; UINT32_MAX: appended). */
tsr_status tsr__j2k_jobs_report(tsr_ctx *ctx, const tsr__j2k_jobs *J, uint32_t tile,
                                tsr__j2k_warn *warn, uint32_t pos);
void tsr__j2k_jobs_free(tsr_ctx *ctx, tsr__j2k_jobs *J);
/* Job j's code-block for tsr__t1_decode: *blk (its size and reversibility always; the rest when
 * the block has contributions), its segments in segs[0 .. blk->nsegs) (TSR__T1_MAX_SEGS room),
 * pieces from several layers copied together into buf (room: the block's contributed bytes),
 * as is a block's only piece when copy_single (else that is read where it lies in the stream),
 * where its coefficients go (*out, *stride) and the irreversible scaling of its values
 * (*scale, delta_b / 2). Returns 0, 1 for a block without contributions (its coefficients are
 * zeros), -1 for one whose segments exceed TSR__T1_MAX_SEGS (zeros, counted as corrupt). */
int tsr__j2k_jobs_block(const tsr__j2k_jobs *J, const tsr__j2k_tcp *tcp, const tsr__j2k_tile *t,
                        const tsr__j2k_t2 *t2, size_t j, uint8_t *buf, int copy_single,
                        struct tsr__t1_seg *segs, struct tsr__t1_block *blk, int32_t **out,
                        size_t *stride, float *scale);
/* Counts a block's tsr__t1_decode return code into J (warnings, corrupt blocks, the first fatal
 * error); safe from several threads. */
void tsr__j2k_jobs_count(tsr__j2k_jobs *J, int rc);

/* ---- a resolution in bands of code-block rows (bands.c) ------------------------------------
 * Resolution r's HL, LH and HH code-blocks (r: the top decoded one, or the one below it when
 * that is banded too) are decoded a group of G band rows at a time (G a multiple of their
 * code-block height, so each block lies in one group) straight into a window of rows of
 * resolution r; the rows of resolution r - 1 (its low rows) come from `low`: the whole
 * resolution (tc->data, tc->stride apart), or a ring of low_cap rows that a banded resolution
 * r - 1 fills as it completes them. After group k its window is completed (rows shared with
 * the previous window, the low rows) and the rows the group completes are reconstructed
 * there. */
struct tsr__j2k_bands {
    uint32_t r;               /* the resolution */
    int32_t *low;             /* resolution r - 1: row q (absolute) at (q - low_y0) or, with */
    size_t low_stride;        /* low_cap, ((q - low_y0) mod low_cap) low_stride samples */
    uint32_t low_y0, low_cap; /* from low */
    uint32_t G;               /* band rows per group */
    uint32_t g_first, g_last; /* groups (absolute band row / G) the resolution spans */
    uint32_t M;               /* lifting reach in rows: 2 (5/3) or 4 (9/7) */
    uint32_t y0, rh, rw, snx; /* the resolution: first row, rows, columns, low columns */
    /* per group k (from g_first): rows [a, b) it completes and its window [w0, w1), relative
     * to y0; rows [0, a) are done before it */
    uint32_t *span;   /* 4 per group: a, b, w0, w1 */
    uint32_t *lift;   /* per group: 1 once its window has a non-zero row (tsr__j2k_bands_dwt) */
    int32_t *win;     /* the window: up to win_cap rows of rw samples, deinterleaved: the low
                         rows (even positions) first, each low columns first (tsr__dwt_level) */
    int32_t *carry;   /* up to 2 M rows of rw: the next window's rows from this one, as decoded */
    uint32_t win_cap; /* 2 G + 2 M */
};
/* Memory (in int32 units) bands for resolution r >= 1 of tile-component tc need (G, M): a
 * whole number of 64-byte lines, the window starting on one (given mem on one), so that the
 * DWT's 16-lane loads and stores of the window's rows do not straddle cache lines. */
size_t tsr__j2k_bands_size(const tsr__j2k_tilecomp *tc, uint32_t r, uint32_t G, uint32_t M);
/* n int32 words rounded up to whole 64-byte lines (n < SIZE_MAX - 15). */
static inline size_t tsr__j2k_line_words(size_t n)
{
    return (n + 15) & ~(size_t)15;
}
/* Sets up bb for resolution r in mem (tsr__j2k_bands_size units), its low rows from tc->data
 * (the caller may point them at a ring afterwards); 0, or -1 when a window or a carry would
 * exceed its room (not expected: the schedule bounds both). */
int tsr__j2k_bands_init(tsr__j2k_bands *bb, const tsr__j2k_tilecomp *tc, uint32_t r, uint32_t G,
                        uint32_t M, int32_t *mem);
/* Where band b's (0 HL, 1 LH, 2 HH) row y (absolute band coordinates) goes in its group's
 * window (rows rw samples apart). */
int32_t *tsr__j2k_bands_at(const tsr__j2k_bands *bb, uint32_t b, uint32_t y);
/* Group k of every decoded component of tile t (bands: one per component, the same schedule)
 * in two steps, each a worksharing loop of the calling OpenMP team (called by every thread of
 * the innermost parallel region, or by one thread outside any), with the barrier at its end:
 * fill completes the windows (rows kept from the previous window, the resolution below; it
 * writes no row a code-block of the group writes), dwt (once the group's code-blocks are
 * decoded) keeps what the next window needs and reconstructs the windows with the last
 * level's inverse DWT when the group completes rows. Rows at least M from a window end that
 * is not the resolution's end are exact (the lifting there reads only rows inside the
 * window). scratch: a team thread's part is per_thread words (tsr__dwt_level's bound). */
void tsr__j2k_bands_fill(const tsr__j2k_bands *bands, const tsr__j2k_tile *t, uint32_t k);
void tsr__j2k_bands_dwt(const tsr__j2k_bands *bands, const tsr__j2k_tile *t,
                        const tsr__j2k_tcp *tcp, uint32_t k, int32_t *scratch, size_t per_thread);
/* After tsr__j2k_bands_dwt of group k: the rows the group completes, copied into the low rows
 * (a ring) of `up`, the bands of the resolution above (a worksharing loop with its barrier). */
void tsr__j2k_bands_pass_up(const tsr__j2k_bands *bands, const tsr__j2k_bands *up,
                            const tsr__j2k_tile *t, uint32_t k);
/* Two resolutions in bands (top: the top's bands, below: the resolution below it, whose
 * completed rows reach the top's windows through a ring; one component's, every component
 * has the same schedule): whether group g below must run before top group k (it exists and
 * the groups before it leave low rows that top group k reads undone), run in that order for
 * each k; and the rows the ring must hold so that no row is written over before the last top
 * group that reads it. */
int tsr__j2k_bands_due(const tsr__j2k_bands *top, const tsr__j2k_bands *below, uint32_t k,
                       uint32_t g);
uint32_t tsr__j2k_bands_ring_rows(const tsr__j2k_bands *top, const tsr__j2k_bands *below);

/* Asks the system to back [p, p + n) with memory now, in one call per thread on `threads`
 * disjoint pieces (1: one call on the calling thread), instead of one page fault per page at
 * first touch (prefault.c). A hint: contents are unchanged and it does nothing where
 * unsupported. */
void tsr__j2k_prefault(void *p, size_t n, int threads);

#endif
