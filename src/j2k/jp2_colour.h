/* JP2 colour specifications (T.800 I.5.3.3 colr) rendered as sRGB: the restricted ICC profiles
 * (icc.c) and the conversions of decoded planes (jp2_colour.c).
 *
 * Converted: EnumCS 18 sYCC and 24 e-sYCC (IEC 61966-2-1 Amd 1), and ICC profiles (method 2,
 * and method 3 when the profile is of the same kind) that are monochrome (grayTRC) or
 * three-component matrix/TRC input profiles (ICC.1:2004 8.3): their samples become sRGB
 * samples of the same precision, a monochrome one three equal channels. Everything else
 * (other EnumCS values, LUT-based or malformed profiles, vendor methods) is output as decoded
 * with a warning. */
#ifndef TSR_J2K_JP2_COLOUR_H
#define TSR_J2K_JP2_COLOUR_H

#include "tessera/j2k.h"

#include <stddef.h>
#include <stdint.h>

/* ---- restricted ICC profiles (icc.c) ------------------------------------------------------ */

/* A tone reproduction curve (ICC curveType 'curv' or parametricCurveType 'para'): device value
 * in [0, 1] to linear PCS value in [0, 1]. */
typedef enum tsr__icc_curve_kind {
    TSR__ICC_GAMMA, /* y = x^g (curv with 0 entries: g = 1; with 1 entry: u8Fixed8 g) */
    TSR__ICC_TABLE, /* curv with n >= 2 entries: piecewise linear through n equally spaced uint16 */
    TSR__ICC_PARA   /* para function type 0..4, parameters g a b c d e f (ICC.1:2004 10.15) */
} tsr__icc_curve_kind;

typedef struct tsr__icc_curve {
    tsr__icc_curve_kind kind;
    uint32_t fn;          /* TSR__ICC_PARA: function type 0..4 */
    double p[7];          /* g, a, b, c, d, e, f (TSR__ICC_GAMMA: p[0] = g) */
    uint32_t n;           /* TSR__ICC_TABLE: entries */
    const uint8_t *table; /* TSR__ICC_TABLE: n big-endian uint16, inside the profile's bytes */
} tsr__icc_curve;

/* A restricted profile, ready to apply: the curves take device values to linear values, and
 * to_srgb takes those (one for monochrome, three for RGB) to linear sRGB (D65), through the
 * profile's D50 PCS and the Bradford-adapted sRGB matrix. */
typedef struct tsr__icc {
    uint32_t channels;     /* 1 monochrome, 3 RGB */
    tsr__icc_curve trc[3]; /* channels of them */
    double to_srgb[3][3];  /* [sRGB channel][device channel]; columns < channels used */
} tsr__icc;

typedef enum tsr__icc_verdict {
    TSR__ICC_OK,           /* a restricted profile: *icc is filled in */
    TSR__ICC_UNRESTRICTED, /* a well-formed profile of another kind (LUT-based, Lab PCS, CMYK...) */
    TSR__ICC_MALFORMED     /* the bytes are no valid profile (truncated, tags out of bounds...) */
} tsr__icc_verdict;

/* Reads the ICC profile prof[0..len) (every field bounds-checked; never reads outside it).
 * TSR__ICC_OK fills *icc, whose tables point into prof; otherwise *why names the reason in a
 * static string. */
tsr__icc_verdict tsr__icc_parse(const uint8_t *prof, size_t len, tsr__icc *icc, const char **why);

/* The curve at x in [0, 1] (x outside is clamped); the result is clamped to [0, 1]. */
double tsr__icc_curve_eval(const tsr__icc_curve *c, double x);

/* ---- conversions of decoded planes (jp2_colour.c) ----------------------------------------- */

/* sYCC / e-sYCC to sRGB (IEC 61966-2-1 Amd 1, full range): src[0..2] are Y, Cb, Cr (Y unsigned,
 * all of one precision; chroma offset 2^(p-1) when unsigned, none when signed), each on its
 * own sampling grid (dx, dy, x0, y0); dst[0..2] (R, G, B) on Y's grid. Each output sample takes
 * the chroma sample whose grid cell holds it (replication, as OpenJPEG's sycc422/sycc420 and
 * for any ratio of sampling steps); where that sample lies before the image (an image starting
 * at an odd position), the first one present (OpenJPEG uses neutral chroma there).
 * R = Y + 1.402 Cr, G = Y - 0.344136 Cb - 0.714136 Cr, B = Y + 1.772 Cb in float, rounded to
 * nearest, clamped to [0, 2^p - 1]. */
void tsr__jp2_sycc_to_rgb(const tsr_j2k_plane src[3], tsr_j2k_plane dst[3], int threads);

/* Applies a restricted profile to planes p[0..2] in place (unsigned, one size, precision
 * prec <= 16); a monochrome profile reads p[0] and writes the same value to all three. Each
 * sample: curve (a table of 2^prec entries), matrix, clamp to [0, 1], sRGB encoding
 * (IEC 61966-2-1), times 2^prec - 1, rounded to nearest. In double precision throughout: the
 * result is the exactly rounded value of that formula except where it lies within 1e-6 of a
 * half step (libm pow is within an ulp, the sums within 1e-15 relative).
 * TSR_ERR_OUT_OF_MEMORY when the tables cannot be allocated. */
tsr_status tsr__jp2_icc_to_srgb(tsr_ctx *ctx, const tsr__icc *icc, tsr_j2k_plane p[3],
                                uint32_t prec, int threads);

#endif
