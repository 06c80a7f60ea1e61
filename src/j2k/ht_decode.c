/* HTJ2K block decoder (T.814). */
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
