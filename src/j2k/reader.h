/* Bounded big-endian byte reads. The caller checks the length first (every marker segment is
 * validated against its declared length, and that against the bytes present); these helpers
 * only read. */
#ifndef TSR_J2K_READER_H
#define TSR_J2K_READER_H

#include <stddef.h>
#include <stdint.h>

static inline uint32_t tsr__rd8(const uint8_t *p)
{
    return p[0];
}
static inline uint32_t tsr__rd16(const uint8_t *p)
{
    return ((uint32_t)p[0] << 8) | p[1];
}
static inline uint32_t tsr__rd32(const uint8_t *p)
{
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}
static inline uint64_t tsr__rd64(const uint8_t *p)
{
    return ((uint64_t)tsr__rd32(p) << 32) | tsr__rd32(p + 4);
}

/* A cursor over [p, end) that refuses to read past end: every read checks `need` first. */
typedef struct tsr__rd {
    const uint8_t *p, *end;
} tsr__rd;

static inline int tsr__rd_has(const tsr__rd *r, size_t need)
{
    return (size_t)(r->end - r->p) >= need;
}

#endif
