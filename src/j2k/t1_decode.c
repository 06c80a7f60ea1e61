/* Part-1 EBCOT code-block decoder (T.800 Annex D) and the segment rule of t1.h. */
#include "j2k/t1.h"

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
