/* Tier-1: decoding of one JPEG 2000 code-block (T.800 Annex C/D, Part-1 EBCOT with the MQ coder;
 * T.814 HTJ2K block decoder). Pure function of its inputs: no allocation, no printing, no global
 * state; one workspace per thread. Implemented in t1_decode_hd.h (Part 1, the checks and the
 * segments), mqc.h (MQ decoder) and ht_decode_hd.h (HT), one source compiled for the host
 * (t1_decode.c, ht_decode.c) and for CUDA devices (t1_cuda.h).
 *
 * ---------------------------------------------------------------------------------------------
 * 1. What the caller (Tier-2 / packet parser) provides for one code-block: tsr__t1_block
 * ---------------------------------------------------------------------------------------------
 * w, h       code-block size in coefficients after clipping to the sub-band: 1..1024 each and
 *            w*h <= 4096 (T.800 A.6.1: xcb, ycb <= 10, xcb + ycb <= 12; T.814 the same).
 *            w == 0 or h == 0 is accepted and does nothing.
 * orient     sub-band: TSR__T1_LL, TSR__T1_HL (horizontally high-pass), TSR__T1_LH, TSR__T1_HH.
 *            (selects the significance context table of T.800 Table D.1)
 * style      the code-block style byte exactly as in SPcod/SPcoc (TSR__T1_STYLE_*):
 *              0x01 bypass (selective arithmetic coding bypass)   0x02 reset contexts each pass
 *              0x04 termall (terminate each pass)                   0x08 vertically causal
 *              0x10 predictable termination (tolerated)             0x20 segmentation symbols
 *              0x40 HT block coder (T.814)                          0x80 HT mixed (T.814)
 *            Mixed mode (0x40|0x80): whether a code-block is HT or Part-1 is decided by the packet
 *            parser (T.814 B.3: from the placeholder/length rule). The caller passes 0x40 set for
 *            an HT code-block and 0x40 CLEAR for a Part-1 code-block; 0x80 is ignored here.
 *            For HT code-blocks only 0x08 (vertically causal: SigProp contexts) is used; the other
 *            Part-1 bits are ignored.
 * zero_bp    P: the number of missing MSBs ("zero bit-planes") decoded from the packet header
 *            tag tree (counted against Mb + roi_shift, as the packet header codes it).
 * mb         Mb = G + exp_b - 1 (T.800 E.1): magnitude bit-planes of the sub-band, G guard bits,
 *            exp_b the exponent from QCD/QCC (for reversible: the exponent field as well).
 * roi_shift  s from RGN (maxshift), 0 when none. THE DECODER UNDOES MAXSHIFT (see 3.); the caller
 *            must not.
 * reversible 1 for the 5/3 reversible path (selects the reconstruction rule in 3.), else 0.
 * npasses    total number of coding passes included for this code-block over all layers
 *            decoded (incl. HT placeholder passes). Must equal the sum of segs[i].npasses.
 * segs, nsegs the codeword segments in order (tsr__t1_seg: data, len, npasses). A segment is the
 *            byte range between two terminations (T.800 D.4 / Table D.9, see 2.). A segment that
 *            spans several packets (layers) must be given as ONE contiguous byte range (the caller
 *            concatenates the pieces into its own buffer). Bytes are only read in [data, data+len);
 *            the MQ decoder supplies 0xFF bytes past the end (T.800 C.3.4), raw segments 0xFF.
 *            A segment may be given with fewer passes than the rule allows (the last one, or a
 *            truncated stream); len may be 0.
 * Limits: mb + roi_shift <= 31 and mb <= 30, else TSR__T1_UNSUPPORTED. P > mb + roi_shift is
 * TSR__T1_CORRUPT. More passes than bit-planes: the excess passes are ignored (TSR__T1_WARN).
 * nsegs <= TSR__T1_MAX_SEGS.
 *
 * Coding passes are numbered from 0 = the first cleanup pass (of bit-plane K-1, where
 * K = mb + roi_shift - P), then 1 = SigProp, 2 = MagRef, 3 = cleanup of plane K-2, ...:
 *   pass 0: cleanup of plane K-1; pass 3j+1 / 3j+2 / 3j+3: SigProp / MagRef / cleanup of
 *   plane K-2-j.
 * For HT the same numbering holds (each HT set is cleanup + SigProp + MagRef of one plane).
 *
 * ---------------------------------------------------------------------------------------------
 * 2. THE SEGMENT RULE (how passes are split into codeword segments) -- tsr__t1_segment_max_passes
 * ---------------------------------------------------------------------------------------------
 * Packet parsing (T.800 B.10.7): a code-block's new passes in a packet are distributed over
 * segments; the currently open segment (the last one, if it holds fewer passes than its maximum)
 * is filled first, then new segments are started. For each segment that receives n >= 1 passes
 * in this packet one length is read with Lblock + floor(log2(n)) bits (B.10.7.2).
 *   tsr__t1_segment_max_passes(style, first, avail, ht_cleanup_seen)
 * returns the maximum number of passes of the segment that begins with pass index `first`:
 *   Part 1 (style & 0x40 clear):
 *     termall (0x04) set: 1 (every pass is its own segment, with or without bypass).
 *     bypass (0x01) only: first < 10: 10 - first (passes 0..9 are one MQ segment; the first
 *       four bit-planes), then alternating: a raw segment of SigProp+MagRef (2 passes,
 *       (first-10)%3 == 0) and an MQ segment of one cleanup pass ((first-10)%3 == 2).
 *       (A segment never begins at (first-10)%3 == 1; 1 is returned for it.)
 *     otherwise: TSR__T1_MAX_PASSES (one segment for the whole code-block).
 *   HT (style & 0x40 set; T.814 B.3):
 *     !ht_cleanup_seen (no cleanup segment with nonzero length yet; then first % 3 == 0):
 *       avail - (avail - 1) % 3, where avail = the number of passes of this code-block in the
 *       packet from `first` on: the cleanup segment holds the leading placeholder passes and
 *       the HT cleanup pass; the remaining (avail-1)%3 passes (SigProp [, MagRef]) go to a
 *       refinement segment. If that cleanup segment's length is read as 0, all `avail` passes
 *       are placeholder passes instead (one zero-length segment) and ht_cleanup_seen stays 0
 *       (the extra length bits T.814 reads in that case are the parser's business).
 *     ht_cleanup_seen: first % 3 == 0: 1 (cleanup of a further HT set), == 1: 2 (SigProp +
 *       MagRef), == 2: 1.
 * The decoder derives raw/MQ per segment by the same rule (tsr__t1_pass_is_raw); for HT it uses
 * the LAST HT set whose cleanup segment has len > 0: leading zero-length segments are
 * placeholders, so that set's cleanup is pass 3k and it codes plane K-1-k; its refinement
 * segment (the next segment, up to 2 passes) holds SigProp and MagRef of plane K-1-k, with
 * Lcup = the cleanup segment length (Scup, Lcup - Scup split read from its last two bytes,
 * T.814 7.2) and Lref = the refinement segment length.
 *
 * ---------------------------------------------------------------------------------------------
 * 3. Output
 * ---------------------------------------------------------------------------------------------
 * out[y * stride + x], int32, two's complement, x < w, y < h; every one of the w*h values is
 * written (zero where nothing was decoded, also on CORRUPT). Let q be the decoded magnitude as
 * an integer in units of the sub-band's quantisation step (bit b of q = bit-plane b, b = 0 is the
 * least significant of the Mb planes), after undoing ROI maxshift (a coefficient whose decoded
 * magnitude is >= 2^s is an ROI coefficient and is shifted right by s; the others are kept).
 * Let p = the lowest bit-plane (in q's scale) that was decoded for that coefficient (0 when all
 * planes down to the LSB were decoded; for an ROI coefficient p = max(p_coded - s, 0)).
 *   reversible == 1: out = sign * (q + (p > 0 && q != 0 ? 2^(p-1) : 0))
 *       i.e. integers, the r = 1/2 reconstruction only when not all planes were decoded;
 *       fully decoded blocks give exactly the encoder's integer coefficients.
 *   reversible == 0: out = sign * (2q + (q != 0 ? 2^p : 0))
 *       i.e. ONE fractional bit: the value in quantisation steps is out / 2, with r = 1/2 at
 *       the lowest decoded plane (also when all planes were decoded). The caller multiplies by
 *       delta_b / 2.
 * (A "decoded plane" is counted per coefficient: a coefficient's magnitude bit at plane b is
 * known after the cleanup or SigProp pass that made it significant at b, or the MagRef pass of
 * plane b, and the passes of a plane are included in order, so p is the plane of the last pass
 * included for it; T.800 E.1.1.2.)
 *
 * ---------------------------------------------------------------------------------------------
 * 4. Workspace, return codes
 * ---------------------------------------------------------------------------------------------
 * tsr__t1_workspace_size() bytes (any alignment; the decoder aligns inside) are needed for any
 * code-block within the limits; the caller keeps one per thread and passes it to every call.
 * Returns TSR__T1_OK, TSR__T1_WARN (decoded, output usable, but the data was inconsistent:
 * segmentation symbol mismatch, a segment ran out of bytes, excess passes ignored, an HT
 * segment shorter than it claims...; *warnings gets TSR__T1_W_* bits when non-NULL),
 * TSR__T1_CORRUPT (undecodable: e.g. P > Mb + s, HT Scup/Lcup impossible; output zeroed or
 * partial), TSR__T1_UNSUPPORTED, TSR__T1_EINVAL (caller error: size limits, workspace too
 * small, npasses != sum of segments). Garbage data never makes the decoder read or write out
 * of bounds or loop without bound. */
#ifndef TSR_J2K_T1_H
#define TSR_J2K_T1_H

#include "core/hd.h"

#include <stddef.h>
#include <stdint.h>

enum { TSR__T1_LL = 0, TSR__T1_HL = 1, TSR__T1_LH = 2, TSR__T1_HH = 3 };

enum {
    TSR__T1_STYLE_BYPASS = 0x01,
    TSR__T1_STYLE_RESET = 0x02,
    TSR__T1_STYLE_TERMALL = 0x04,
    TSR__T1_STYLE_VCAUSAL = 0x08,
    TSR__T1_STYLE_PTERM = 0x10,
    TSR__T1_STYLE_SEGSYM = 0x20,
    TSR__T1_STYLE_HT = 0x40,
    TSR__T1_STYLE_HT_MIXED = 0x80
};

#define TSR__T1_MAX_W 1024u
#define TSR__T1_MAX_H 1024u
#define TSR__T1_MAX_AREA 4096u
#define TSR__T1_MAX_PASSES 255u /* "unbounded" answer of the segment rule; also the pass limit */
#define TSR__T1_MAX_SEGS 256u

enum {
    TSR__T1_OK = 0,
    TSR__T1_WARN = 1,
    TSR__T1_CORRUPT = -1,
    TSR__T1_UNSUPPORTED = -2,
    TSR__T1_EINVAL = -3
};

/* warning bits */
enum {
    TSR__T1_W_SEGSYM = 1u << 0,    /* segmentation symbol was not 1010 */
    TSR__T1_W_TRUNCATED = 1u << 1, /* a segment was exhausted (decoder ran on 0xFF fill) */
    TSR__T1_W_PASSES = 1u << 2,    /* more passes than bit-planes; extra ignored */
    TSR__T1_W_HT = 1u << 3         /* HT data inconsistent (MEL/VLC/MagSgn overrun, bad U) */
};

typedef struct tsr__t1_seg {
    const uint8_t *data;
    uint32_t len;
    uint32_t npasses;
} tsr__t1_seg;

typedef struct tsr__t1_block {
    uint32_t w, h;
    uint8_t orient;
    uint8_t style;
    uint8_t zero_bp;
    uint8_t mb;
    uint8_t roi_shift;
    uint8_t reversible;
    uint32_t npasses;
    uint32_t nsegs;
    const tsr__t1_seg *segs;
} tsr__t1_block;

/* Maximum passes of the segment beginning with pass `first` (section 2). >= 1. (TSR_HD: the
 * device's Part 1 encoder follows it too.) */
TSR_HD uint32_t tsr__t1_segment_max_passes(unsigned style, uint32_t first, uint32_t avail,
                                           int ht_cleanup_seen)
{
    if (style & TSR__T1_STYLE_HT) {
        if (!ht_cleanup_seen) {
            if (avail == 0)
                return 1;
            return avail - (avail - 1) % 3;
        }
        switch (first % 3) {
        case 0: return 1;
        case 1: return 2;
        default: return 1;
        }
    }
    if (style & TSR__T1_STYLE_TERMALL)
        return 1;
    if (style & TSR__T1_STYLE_BYPASS) {
        if (first < 10)
            return 10 - first;
        return (first - 10) % 3 == 0 ? 2 : 1;
    }
    return TSR__T1_MAX_PASSES;
}

/* Part 1: 1 when pass `pass` is coded raw (bypass and pass >= 10 and a SigProp/MagRef pass). */
TSR_HD int tsr__t1_pass_is_raw(unsigned style, uint32_t pass)
{
    return (style & TSR__T1_STYLE_BYPASS) && !(style & TSR__T1_STYLE_HT) && pass >= 10 &&
           (pass - 10) % 3 != 2;
}

size_t tsr__t1_workspace_size(void);

/* Decodes one code-block into out (stride in int32 elements, >= w). Every return but
 * TSR__T1_EINVAL has written all w x h samples (decoded, or zero where the block could not be
 * decoded); decode.c relies on it, as its planes are not cleared beforehand. */
int tsr__t1_decode(const tsr__t1_block *blk, void *ws, size_t ws_size, int32_t *out, size_t stride,
                   unsigned *warnings);

#endif
