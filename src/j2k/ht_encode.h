/* HTJ2K block encoding (Rec. ITU-T T.814 | ISO/IEC 15444-15, clause 7): the inverse of
 * ht_decode.c. One HT set per code-block: a cleanup pass (7.3; ht_encode.c) coding the
 * magnitudes >> p of some base plane p, optionally followed by the refinement segment of
 * plane p - 1 (SigProp 7.4, MagRef 7.5; ht_refine_encode.c). T2 signals such a set as
 * 1 + (SigProp) + (MagRef) coding passes with zero bit-planes P = Mb - 1 - p (the decoder's
 * cleanup plane is then p0 = Mb - P - 1 = p, t1.h section 2), for any Mb with
 * |v| < 2^(Mb - 1): the cleanup segment first, the refinement segment as the second segment.
 * Coefficients are int32 in sign-magnitude meaning (negative values are negative), |v| < 2^30,
 * blocks w x h with w, h >= 1, w <= 1024, w * h <= 4096, row-major; the code-block style has no
 * vertically causal contexts.
 *
 * The CxtVLC encoding table is the inverse of the standard's rows in ht_cxtvlc.h, built on the
 * first call (thread-safe). */
#ifndef TSR_J2K_HT_ENCODE_H
#define TSR_J2K_HT_ENCODE_H

#include <stddef.h>
#include <stdint.h>

/* Bytes of output that always suffice for a cleanup segment of a w x h block (|v| < 2^30). */
size_t tsr__ht_encode_bound(uint32_t w, uint32_t h);

/* Encodes the cleanup segment of the block coef (every magnitude bit down to plane 0; for a
 * base plane p pass the coefficients sign * (|v| >> p)) into buf (cap bytes, at least
 * tsr__ht_encode_bound). Returns its length Lcup (>= 2), 0 when every coefficient is 0 (the
 * block has no passes), or -1 when the block is outside the limits above or its MEL and VLC
 * bytes exceed the 4079 that Scup can express. */
long tsr__ht_encode_block(const int32_t *coef, uint32_t w, uint32_t h, uint8_t *buf, size_t cap);

/* tsr__ht_encode_block of the block whose rows lie stride >= w samples apart, with *planes the
 * bit-planes of its largest magnitude (tsr__t1_bitplanes; 0 for a block of zeros), set when the
 * block is within the limits. */
long tsr__ht_encode_block_in(const int32_t *coef, size_t stride, uint32_t w, uint32_t h,
                             uint8_t *buf, size_t cap, uint32_t *planes);

/* The cleanup segment of the block coef (rows stride >= w samples apart) at base plane p
 * (0 .. 29; the magnitudes >> p), the same bytes as ht_encode_hd.h's tsr__ht_encode_cleanup:
 * tsr__ht_encode_block's returns (0 when every magnitude >> p is 0). */
long tsr__ht_encode_plane(const int32_t *coef, size_t stride, uint32_t w, uint32_t h, uint32_t p,
                          uint8_t *buf, size_t cap);

/* The CxtVLC encoding tables of ht_encode_hd.h's encoder (built on the first call,
 * thread-safe): [table][c * 16 + rho][emb], table 0 for the initial row pair. */
const uint16_t (*tsr__ht_cw_tables(void))[8 * 16][17];

/* Bytes that always suffice for a refinement segment of a w x h block. */
size_t tsr__ht_refine_bound(uint32_t w, uint32_t h);

/* Encodes the refinement segment of the HT set whose cleanup pass codes coef at base plane p
 * (>= 1): the SigProp pass of plane p - 1 (7.4: the samples insignificant at p with a
 * significant neighbour, or one made significant earlier in this pass, get their bit p - 1 and,
 * when it is 1, their sign), and with magref also its MagRef pass (7.5: bit p - 1 of every
 * sample significant at p), SigProp's bytes forward from buf[0], MagRef's backward from the
 * segment's last byte. *sp_len (may be NULL) gets SigProp's bytes: buf[0 .. *sp_len) is the
 * refinement segment of SigProp alone. With newsig (w * h bytes, may be NULL), newsig[i] is set
 * to 1 for the samples that SigProp makes significant and 0 elsewhere. Returns Lref (0 when
 * neither pass has a bit to code), or -1 when the block is outside the limits, p is 0 or cap is
 * below tsr__ht_refine_bound. */
long tsr__ht_encode_refine(const int32_t *coef, uint32_t w, uint32_t h, uint32_t p, int magref,
                           uint8_t *buf, size_t cap, uint8_t *newsig, size_t *sp_len);

/* A row pair of quads as the CPU's cleanup encoder (ht_encode.c) reads them: per quad q, the
 * exponents (7.3.7) of its samples TL, BL, TR, BR in bytes 0-3 of e[q], their maximum emax[q],
 * its significance pattern rho[q] (bit n for sample n) and each sample's 2 (mu - 1) + sign in
 * x[4 q + n] (0 where mu is 0), mu the magnitude >> the base plane; mor accumulates the OR
 * of the mu. */
typedef struct tsr__ht_enc_row {
    uint32_t mor; /* the preparation ORs every magnitude it sees into it */
    uint32_t e[512];
    uint8_t emax[512], rho[512];
    uint32_t x[2048];
} tsr__ht_enc_row;

/* Quads q0 .. qw - 1 of the row pair r0, r1 (columns 0 .. 2 qw - 1 of each readable, |v| <
 * 2^30) at base plane shift into row. */
void tsr__ht_enc_prep(const int32_t *r0, const int32_t *r1, uint32_t q0, uint32_t qw,
                      uint32_t shift, tsr__ht_enc_row *row);
/* The same for every quad, compiled for AVX2 (ht_encode_avx2.c): the same row. Only where
 * tsr__ht_cpu_level() is at least 1. */
void tsr__ht_enc_prep_avx2(const int32_t *r0, const int32_t *r1, uint32_t qw, uint32_t shift,
                           tsr__ht_enc_row *row);
/* The CPU's cleanup coder (ht_encode_cpu.h) built for AVX2, BMI1/2 and LZCNT
 * (ht_encode_avx2.c): tsr__ht_encode_cleanup's contract with tables = tsr__ht_cw_tables() and
 * uvlc the packed U-VLC codes of ht_encode.c, *mor the OR of the magnitudes >> shift. Only where
 * tsr__ht_cpu_level() is at least 1. */
long tsr__ht_enc_cleanup_avx2(const int32_t *coef, size_t stride, uint32_t w, uint32_t h,
                              uint32_t shift, uint8_t *buf, size_t cap,
                              const uint16_t (*tables)[8 * 16][17], const uint32_t *uvlc,
                              uint32_t *mor);
/* Tests: the level of builds tsr__ht_encode_block runs (simd_switch.h; 0 the portable one). */
void tsr__ht_enc_set_simd(int level);

#endif
