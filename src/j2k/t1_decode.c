/* Tier-1 on the host: the segment rule of t1.h, the workspace size and tsr__t1_decode, whose body
 * (t1_decode_hd.h, with the HT decoder of ht_decode.c) is shared with the device decoder. */
#include "j2k/t1.h"
#include "j2k/t1_internal.h"

#define TSR__T1_HT_DECODE tsr__ht_decode
#include "j2k/t1_decode_hd.h"

uint32_t tsr__t1_segment_max_passes(unsigned style, uint32_t first, uint32_t avail,
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

size_t tsr__t1_workspace_size(void)
{
    return sizeof(tsr__t1_ws) + 64;
}
int tsr__t1_decode(const tsr__t1_block *blk, void *ws, size_t ws_size, int32_t *out, size_t stride,
                   unsigned *warnings)
{
    return t1_decode_block(blk, ws, ws_size, out, stride, warnings);
}
