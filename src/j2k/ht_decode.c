/* HTJ2K block decoder (T.814) -- NOT IMPLEMENTED YET.
 *
 * Status: the interface is final (t1.h: style bit 0x40 selects this path; section 2 gives the
 * segment rule for HT: placeholder passes + cleanup segment (Lcup, with Scup in its last two
 * bytes), then the SigProp/MagRef segment (Lref)); the decoder answers TSR__T1_UNSUPPORTED with
 * the output zeroed, which the caller reports as an unsupported feature.
 *
 * Missing: the cleanup pass (MEL decoder, the forward VLC stream with the CxtVLC tables for the
 * initial and non-initial quad rows, U-VLC, the backward MagSgn stream), the HT SigProp and
 * MagRef passes (T.814 7.3-7.5). The CxtVLC tables must be generated from the standard's Annex C
 * text, which was not available to this session (public decoders' table files may not be
 * copied). Output must follow t1.h, 3. via tsr__t1_recon (one fractional bit, lowest set bit =
 * half step of the lowest decoded plane). */
#include "j2k/t1_internal.h"

int tsr__ht_decode(const tsr__t1_block *blk, tsr__t1_ws *ws, int32_t *out, size_t stride,
                   unsigned *warnings)
{
    (void)ws;
    if (warnings)
        *warnings = 0;
    tsr__t1_zero_out(blk, out, stride);
    return TSR__T1_UNSUPPORTED;
}
