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

static void put(tsr__mqe *e, uint32_t byte)
{
    if (e->bp + 1 >= e->end) {
        e->overflow = 1;
        return;
    }
    e->bp++;
    *e->bp = (uint8_t)byte;
}

/* BYTEOUT (C.2.7, Figure C.9): after a 0xFF only 7 bits go out (bit stuffing); a carry into
 * the previous byte propagates once. */
static void byteout(tsr__mqe *e)
{
    if (*e->bp == 0xFF) {
        put(e, e->c >> 20);
        e->c &= 0xFFFFF;
        e->ct = 7;
    } else if (e->c < 0x8000000) {
        put(e, e->c >> 19);
        e->c &= 0x7FFFF;
        e->ct = 8;
    } else {
        (*e->bp)++;
        if (*e->bp == 0xFF) {
            e->c &= 0x7FFFFFF;
            put(e, e->c >> 20);
            e->c &= 0xFFFFF;
            e->ct = 7;
        } else {
            put(e, e->c >> 19);
            e->c &= 0x7FFFF;
            e->ct = 8;
        }
    }
}

static void renorm(tsr__mqe *e)
{
    do {
        e->a <<= 1;
        e->c <<= 1;
        e->ct--;
        if (e->ct == 0)
            byteout(e);
    } while (!(e->a & 0x8000));
}

void tsr__mqe_encode(tsr__mqe *e, uint8_t *cx, int d)
{
    const tsr__mqc_state *st = &tsr__mqc_states[*cx];
    const uint32_t qe = st->qe;
    e->a -= qe;
    if (d == (*cx & 1)) { /* CODEMPS (C.2.5) */
        if (!(e->a & 0x8000)) {
            if (e->a < qe)
                e->a = qe;
            else
                e->c += qe;
            *cx = st->nmps;
            renorm(e);
        } else {
            e->c += qe;
        }
    } else { /* CODELPS (C.2.4), with the conditional exchange */
        if (e->a < qe)
            e->c += qe;
        else
            e->a = qe;
        *cx = st->nlps;
        renorm(e);
    }
}

uint32_t tsr__mqe_flush(tsr__mqe *e)
{
    /* SETBITS (C.2.9, Figure C.11) */
    uint32_t tempc = e->c + e->a;
    e->c |= 0xFFFF;
    if (e->c >= tempc)
        e->c -= 0x8000;
    e->c <<= e->ct;
    byteout(e);
    e->c <<= e->ct;
    byteout(e);
    if (*e->bp != 0xFF)
        e->bp++; /* past the last byte: at most end */
    return (uint32_t)(e->bp - e->start);
}
