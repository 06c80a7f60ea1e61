/* Tier-1 on the host: the workspace size and tsr__t1_decode, whose body
 * (t1_decode_hd.h, with the HT decoder of ht_decode.c) is shared with the device decoder. */
#include "j2k/t1.h"
#include "j2k/t1_internal.h"

#define TSR__T1_HT_DECODE tsr__ht_decode
#include "j2k/t1_decode_hd.h"

size_t tsr__t1_workspace_size(void)
{
    return sizeof(tsr__t1_ws) + 64;
}
int tsr__t1_decode(const tsr__t1_block *blk, void *ws, size_t ws_size, int32_t *out, size_t stride,
                   unsigned *warnings)
{
    return t1_decode_block(blk, ws, ws_size, out, stride, warnings);
}
