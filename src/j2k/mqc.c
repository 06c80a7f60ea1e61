/* MQ decoder: the probability state table (T.800 Table C.2) and INITDEC. */
#include "j2k/mqc.h"

/* T.800 Table C.2: index, Qe, NMPS, NLPS, SWITCH for the 47 states. */
/* clang-format off */
#define TSR__MQC_TABLE(X)                                                                          \
    X(0, 0x5601, 1, 1, 1) X(1, 0x3401, 2, 6, 0) X(2, 0x1801, 3, 9, 0) X(3, 0x0AC1, 4, 12, 0)         \
    X(4, 0x0521, 5, 29, 0) X(5, 0x0221, 38, 33, 0) X(6, 0x5601, 7, 6, 1) X(7, 0x5401, 8, 14, 0)     \
    X(8, 0x4801, 9, 14, 0) X(9, 0x3801, 10, 14, 0) X(10, 0x3001, 11, 17, 0)                         \
    X(11, 0x2401, 12, 18, 0) X(12, 0x1C01, 13, 20, 0) X(13, 0x1601, 29, 21, 0)                      \
    X(14, 0x5601, 15, 14, 1) X(15, 0x5401, 16, 14, 0) X(16, 0x5101, 17, 15, 0)                      \
    X(17, 0x4801, 18, 16, 0) X(18, 0x3801, 19, 17, 0) X(19, 0x3401, 20, 18, 0)                      \
    X(20, 0x3001, 21, 19, 0) X(21, 0x2801, 22, 19, 0) X(22, 0x2401, 23, 20, 0)                      \
    X(23, 0x2201, 24, 21, 0) X(24, 0x1C01, 25, 22, 0) X(25, 0x1801, 26, 23, 0)                      \
    X(26, 0x1601, 27, 24, 0) X(27, 0x1401, 28, 25, 0) X(28, 0x1201, 29, 26, 0)                      \
    X(29, 0x1101, 30, 27, 0) X(30, 0x0AC1, 31, 28, 0) X(31, 0x09C1, 32, 29, 0)                      \
    X(32, 0x08A1, 33, 30, 0) X(33, 0x0521, 34, 31, 0) X(34, 0x0441, 35, 32, 0)                      \
    X(35, 0x02A1, 36, 33, 0) X(36, 0x0221, 37, 34, 0) X(37, 0x0141, 38, 35, 0)                      \
    X(38, 0x0111, 39, 36, 0) X(39, 0x0085, 40, 37, 0) X(40, 0x0049, 41, 38, 0)                      \
    X(41, 0x0025, 42, 39, 0) X(42, 0x0015, 43, 40, 0) X(43, 0x0009, 44, 41, 0)                      \
    X(44, 0x0005, 45, 42, 0) X(45, 0x0001, 45, 43, 0) X(46, 0x5601, 46, 46, 0)
/* clang-format on */

/* Two context bytes per state: MPS 0 and MPS 1. */
#define TSR__MQC_ENTRY(i, q, nm, nl, sw)                                                           \
    {q, (uint8_t)((nm)*2 + 0), (uint8_t)((nl)*2 + (0 ^ (sw)))},                                    \
        {q, (uint8_t)((nm)*2 + 1), (uint8_t)((nl)*2 + (1 ^ (sw)))},

const tsr__mqc_state tsr__mqc_states[94] = {TSR__MQC_TABLE(TSR__MQC_ENTRY)};

void tsr__mqd_init(tsr__mqd *d, const uint8_t *data, uint32_t len)
{
    static const uint8_t none = 0xFF;
    if (!data) {
        data = &none;
        len = 0;
    }
    const uint8_t *bp = data, *end = data + len;
    uint32_t c = (uint32_t)(len ? data[0] : 0xFF) << 16, ct;
    if (!len)
        bp = end; /* nothing to read: B is the virtual 0xFF at the end */
    TSR__MQD_BYTEIN(c, ct, bp, end);
    c <<= 7;
    ct -= 7;
    d->c = c;
    d->ct = ct;
    d->a = 0x8000;
    d->bp = bp;
    d->end = end;
}
