/* Part 1 code-block encoder (t1_encode.h): t1_encode_hd.h's encoder, shared with the device,
 * its bound and the bit-plane count. */
#include "j2k/t1_encode.h"

#include "j2k/t1_encode_hd.h"

int tsr__t1_bitplanes(const int32_t *coef, size_t n)
{
    uint32_t m = 0;
    for (size_t i = 0; i < n; i++)
        m |= ((uint32_t)coef[i] ^ (uint32_t)(coef[i] >> 31)) - (uint32_t)(coef[i] >> 31);
    return m ? 32 - __builtin_clz(m) : 0;
}

size_t tsr__t1_encode_bound(uint32_t area, int K)
{
    /* at most three decisions per coefficient and bit-plane (D.3: a run symbol or a zero-coding
     * decision, a sign, four segmentation symbols per plane), each renormalising at most 15
     * times (Qe >= 1: A >= 1 after an LPS), so 45 bits; plus each segment's flush and room */
    const size_t planes = K > 0 ? (size_t)K : 0;
    return (size_t)area * planes * 6 + planes * 16 + 3 * planes * 8 + 64;
}

int tsr__t1_encode_block(tsr__t1_enc *e)
{
    return t1_encode_block(e);
}
