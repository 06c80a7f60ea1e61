/* The fast-nonstandard block coder (tessera's private format, NOT JPEG 2000; the CLI's
 * `j2k encode --mode fast-nonstandard`): a bit-plane coder whose work within a bit-plane is
 * parallel over the stripes of a code-block, after the GPU codec study this mode is named
 * after (contexts from 8-neighbour masks through tables, stripes in parallel, segments found
 * by prefix sums). The per-block code is fast_coder_hd.h's, written for the host and a device.
 *
 * Format "fast-nonstandard v1" of one code-block (w x h coefficients, orientation orient, K
 * coded bit-planes; K = Mb - zero bit-planes as the packet header says, one coding pass, one
 * codeword segment holding all the block's bytes, len of them):
 *   - S = ceil(h / 8) stripes of 8 rows (the last one shorter); stripe s is rows 8s..8s+7.
 *   - Header: the lengths L_0 .. L_{S-2} of the first S - 1 stripe segments as LEB128
 *     varints (7 bits a byte, least significant group first, bit 7 set on every byte but a
 *     number's last; at most 3 bytes, so L < 2^21). Then the S segments back to back; L_{S-1}
 *     is what is left of len. Segment s starts at the header's end plus L_0 + .. + L_{s-1}
 *     (a prefix sum: a device's threads find their segments at once).
 *   - Segment s is one binary range-coder stream (the carry-propagating coder LZMA uses: 32-bit
 *     range, probabilities of 15 bits, starting at fast_coder_hd.h's per-context table, adapting
 *     by 2^-r of the distance with r = min(3 + n / 8, 5) after n decisions of the context,
 *     kept in [31, 32737],
 *     the decoder's code register loaded from the segment's first 4 bytes, big-endian, 0 bytes
 *     read past the segment's end; the encoder leaves out the always-zero first byte, ends
 *     with the fewest bytes that pin the final interval and drops trailing zero bytes).
 *     It holds, for p = K - 1 down to 0, column x = 0 .. w - 1, rows y of the stripe top to
 *     bottom, the decisions of coefficient (x, y) at plane p, with contexts from the
 *     significance of its neighbours: those coded before it in this plane and this stripe
 *     (W; N, NW, SW when inside the stripe) as they stand now (magnitude >> p not 0), all
 *     others as they stood after plane p + 1 (magnitude >> (p + 1) not 0), so that nothing
 *     depends on another stripe's plane p:
 *       not significant: its bit p with zero-coding context zc(orient, mask) (mask: which of
 *         its 8 neighbours in the block are significant; the context is T.800 Table D.1's
 *         label from the counts), and when that bit is 1 its sign (1 negative) XOR the
 *         sign-context's flip bit, in sign context sc (Table D.3 from the 4 direct
 *         neighbours' significance and signs): 9 + 5 contexts;
 *       significant: its bit p in refinement context 14 + (magnitude >> (p + 1) == 1 ?
 *         (mask != 0) : 2).
 *     Each stripe's 17 probabilities start afresh in its segment.
 * No decision of plane p depends on another stripe's plane p, so the stripes of a plane are
 * independent: a decoder runs them in parallel with one barrier per plane (a stripe's plane p
 * reads its neighbour stripes' planes above p); the encoder, knowing every plane, runs the
 * stripes independently from start to end. Against EBCOT (T.800 Annex D) this gives up the three
 * passes per plane, the contexts that see the current plane's earlier decisions, run-length mode
 * and truncation points (the block is all or nothing: rate control cannot cut it; the encoder
 * refuses rates and targets in this mode). Fully decoded, the coefficients are the standard
 * coder's. The stripe height, the in-stripe contexts and the contexts' start are measured choices
 * (bench/notes/j2k.md): against the standard coder, losslessly 4-row stripes made files
 * 3-7% larger, 8-row ones 0-3%, 16-row ones -1 to +0.3%; at a coarse step (--qstep 0.064)
 * 13-23%, 5-10% and 1-2%; each height has half the parallelism of the one before. */
#ifndef TSR_J2K_FAST_CODER_H
#define TSR_J2K_FAST_CODER_H

#include "j2k/t1.h"

#include <stddef.h>
#include <stdint.h>

/* The COM marker segment's text (registration 1, Latin) that marks a codestream whose
 * code-blocks are in this format; the decoder recognises a main-header COM starting with
 * TSR__FNS_MARK_PREFIX. */
#define TSR__FNS_MARK_PREFIX "tessera fast-nonstandard v1"
#define TSR__FNS_MARK TSR__FNS_MARK_PREFIX ": NOT a JPEG 2000 stream (decode with tessera)"

/* Bytes of output that always suffice for a w x h block of K bit-planes. */
size_t tsr__fns_encode_bound(uint32_t w, uint32_t h, uint32_t K);
/* Codes a w x h block (1..1024 each, w * h <= 4096) of coefficients coef (row-major, stride
 * w, sign and magnitude meaning, |v| < 2^K, 1 <= K <= 31) of orientation orient (TSR__T1_LL
 * ..) into buf (cap bytes, tsr__fns_encode_bound); returns its bytes, -1 when the sizes are
 * out of range or cap is too small. */
long tsr__fns_encode_block(const int32_t *coef, uint32_t w, uint32_t h, uint32_t orient, uint32_t K,
                           uint8_t *buf, size_t cap);
/* Decodes a block in this format as tsr__t1_decode does a standard one (t1.h: its block,
 * output and return codes): blk->npasses 0 (nothing) or 1 in one segment, K = mb - zero_bp;
 * roi_shift must be 0 (TSR__T1_UNSUPPORTED). Stripe lengths beyond the segment, over-long
 * varints or more passes are TSR__T1_CORRUPT (output zeroed); segment data cannot be
 * checked (a range coder decodes any bytes), so damaged bytes decode to other coefficients.
 * ws: tsr__fns_workspace_size() bytes, any alignment. */
size_t tsr__fns_workspace_size(void);
int tsr__fns_decode(const tsr__t1_block *blk, void *ws, size_t ws_size, int32_t *out,
                    size_t stride);

#endif
