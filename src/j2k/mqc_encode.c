/* MQ arithmetic encoder (T.800 C.2): CODEMPS/CODELPS, RENORME, BYTEOUT with bit stuffing and
 * FLUSH, as the standard's flow charts give them (C.2.4-C.2.9). */
#include "j2k/mqc_encode.h"

#include <stddef.h>

void tsr__mqe_init(tsr__mqe *e, uint8_t *buf, size_t cap)
{
    e->start = buf + 1;
    e->bp = buf;
    e->end = buf + cap;
    *e->bp = 0;
    e->a = 0x8000;
    e->c = 0;
    e->ct = 12;
    e->overflow = 0;
}

uint32_t tsr__mqe_flush(tsr__mqe *e)
{
    /* SETBITS (C.2.9, Figure C.11) */
    uint32_t tempc = e->c + e->a;
    e->c |= 0xFFFF;
    if (e->c >= tempc)
        e->c -= 0x8000;
    e->c <<= e->ct;
    tsr__mqe_byteout(e);
    e->c <<= e->ct;
    tsr__mqe_byteout(e);
    if (*e->bp != 0xFF)
        e->bp++; /* past the last byte: at most end */
    return (uint32_t)(e->bp - e->start);
}
