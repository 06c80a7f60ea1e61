/* MQ arithmetic encoder (T.800 Annex C.2), internal to the Tier-1 encoder; the probability
 * state table and the context bytes are the decoder's (mqc.h). Registers follow the standard's
 * software conventions (C.2: C, A, CT, BP). Output goes to [start, end): a byte that would land
 * at or past end is dropped and sets `overflow` (the caller sizes the buffer by
 * tsr__t1_encode_bound, so this is a guard, not an expected outcome). */
#ifndef TSR_J2K_MQC_ENCODE_H
#define TSR_J2K_MQC_ENCODE_H

#include "j2k/mqc.h"

#include <stddef.h>
#include <stdint.h>

typedef struct tsr__mqe {
    uint32_t a, c, ct;
    uint8_t *bp;    /* the byte last written (B); start - 1 before the first */
    uint8_t *start; /* the first byte of the segment */
    uint8_t *end;
    int overflow;
} tsr__mqe;

/* INITENC (C.2.8) on buf[0, cap): buf[0] is a scratch byte before the segment, which starts at
 * buf + 1 (cap >= 2). */
void tsr__mqe_init(tsr__mqe *e, uint8_t *buf, size_t cap);
/* ENCODE (C.2.2) of decision d in the context byte *cx (updated). */
void tsr__mqe_encode(tsr__mqe *e, uint8_t *cx, int d);
/* FLUSH (C.2.9); returns the segment's length in bytes from e->start (a final 0xFF is not
 * part of it). */
uint32_t tsr__mqe_flush(tsr__mqe *e);

#endif
