/* HTJ2K cleanup-pass encoding of one code-block (Rec. ITU-T T.814 | ISO/IEC 15444-15, 7.3):
 * the inverse of ht_decode.c's cleanup pass. One HT set with its cleanup pass only, coding every
 * magnitude bit down to plane 0, which is a complete HT code-block: T2 signals it as one coding
 * pass of one segment, with zero bit-planes P = Mb - 1 (the decoder's cleanup plane is then
 * p0 = Mb - P - 1 = 0), for any Mb with |v| < 2^(Mb - 1).
 *
 * The CxtVLC encoding table is the inverse of the standard's rows in ht_cxtvlc.h, built on the
 * first call (thread-safe). */
#ifndef TSR_J2K_HT_ENCODE_H
#define TSR_J2K_HT_ENCODE_H

#include <stddef.h>
#include <stdint.h>

/* Bytes of output that always suffice for a block of w x h coefficients (|v| < 2^30). */
size_t tsr__ht_encode_bound(uint32_t w, uint32_t h);

/* Encodes the cleanup segment of the w x h block (w, h >= 1, w * h <= 4096, w <= 1024) of
 * coefficients coef (row-major, sign and magnitude as int32, |v| < 2^30) into buf (cap bytes,
 * at least tsr__ht_encode_bound). Returns its length Lcup (>= 2), 0 when every coefficient is 0
 * (the block has no passes), or -1 when the block is outside the limits above or its MEL and
 * VLC bytes exceed the 4079 that Scup can express. */
long tsr__ht_encode_block(const int32_t *coef, uint32_t w, uint32_t h, uint8_t *buf, size_t cap);

#endif
