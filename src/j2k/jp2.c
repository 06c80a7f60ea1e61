/* JP2 (T.800 Annex I) and JPH (T.814 Annex D) file formats: the box structure around the
 * codestream. Read: signature, ftyp, jp2h (ihdr, colr, pclr, cmap, cdef; res and others skipped)
 * and the first jp2c. Every box length is checked against its parent. */
#include "j2k/decode_stages.h"
#include "j2k/reader.h"

#include <string.h>

#define BOX(a, b, c, d) (((uint32_t)(a) << 24) | ((uint32_t)(b) << 16) | ((uint32_t)(c) << 8) | (d))

static const uint32_t T_JP = BOX('j', 'P', ' ', ' ');
static const uint32_t T_FTYP = BOX('f', 't', 'y', 'p');
static const uint32_t T_JP2H = BOX('j', 'p', '2', 'h');
static const uint32_t T_IHDR = BOX('i', 'h', 'd', 'r');
static const uint32_t T_COLR = BOX('c', 'o', 'l', 'r');
static const uint32_t T_PCLR = BOX('p', 'c', 'l', 'r');
static const uint32_t T_CMAP = BOX('c', 'm', 'a', 'p');
static const uint32_t T_CDEF = BOX('c', 'd', 'e', 'f');
static const uint32_t T_JP2C = BOX('j', 'p', '2', 'c');

typedef struct box {
    uint32_t type;
    size_t off;       /* of the box header */
    size_t data, len; /* contents */
} box;

/* Reads the box header at pos within [pos, end). */
static tsr_status next_box(tsr_ctx *ctx, const uint8_t *d, size_t pos, size_t end, box *b)
{
    if (end - pos < 8)
        return tsr__fail(ctx, TSR_ERR_CORRUPT, "JP2: box header cut short (at byte %zu)", pos);
    uint64_t lbox = tsr__rd32(d + pos);
    b->type = tsr__rd32(d + pos + 4);
    b->off = pos;
    size_t hdr = 8;
    if (lbox == 1) {
        if (end - pos < 16)
            return tsr__fail(ctx, TSR_ERR_CORRUPT, "JP2: box header cut short (at byte %zu)", pos);
        lbox = tsr__rd64(d + pos + 8);
        hdr = 16;
        if (lbox < 16)
            return tsr__fail(ctx, TSR_ERR_CORRUPT, "JP2: box length %llu (at byte %zu)",
                             (unsigned long long)lbox, pos);
    } else if (lbox == 0) {
        lbox = end - pos;
    } else if (lbox < 8) {
        return tsr__fail(ctx, TSR_ERR_CORRUPT, "JP2: box length %llu (at byte %zu)",
                         (unsigned long long)lbox, pos);
    }
    if (lbox > end - pos)
        return tsr__fail(ctx, TSR_ERR_CORRUPT,
                         "JP2: box '%c%c%c%c' of %llu bytes exceeds the file (at byte %zu)",
                         (b->type >> 24) & 0x7f ? (int)((b->type >> 24) & 0x7f) : '?',
                         (b->type >> 16) & 0x7f ? (int)((b->type >> 16) & 0x7f) : '?',
                         (b->type >> 8) & 0x7f ? (int)((b->type >> 8) & 0x7f) : '?',
                         b->type & 0x7f ? (int)(b->type & 0x7f) : '?', (unsigned long long)lbox,
                         pos);
    b->data = pos + hdr;
    b->len = (size_t)lbox - hdr;
    return TSR_OK;
}

static tsr_status read_jp2h(tsr_ctx *ctx, const uint8_t *d, const box *h, tsr__jp2 *j,
                            tsr__j2k_warn *warn)
{
    size_t pos = h->data, end = h->data + h->len;
    int have_ihdr = 0;
    while (pos < end) {
        box b = {0};
        tsr_status st = next_box(ctx, d, pos, end, &b);
        if (st)
            return st;
        const uint8_t *p = d + b.data;
        if (b.type == T_IHDR) {
            if (b.len != 14)
                return tsr__fail(ctx, TSR_ERR_CORRUPT, "JP2: ihdr box of %zu bytes (at byte %zu)",
                                 b.len, b.off);
            j->height = tsr__rd32(p);
            j->width = tsr__rd32(p + 4);
            j->nc = tsr__rd16(p + 8);
            j->bpc = p[10];
            if (p[11] != 7)
                return tsr__fail(ctx, TSR_ERR_UNSUPPORTED,
                                 "JP2: compression type %u (7 = JPEG 2000 expected, at byte %zu)",
                                 p[11], b.off);
            have_ihdr = 1;
        } else if (b.type == T_COLR) {
            if (b.len < 3)
                return tsr__fail(ctx, TSR_ERR_CORRUPT, "JP2: colr box too short (at byte %zu)",
                                 b.off);
            /* T.800 I.5.3.3: a reader uses the first colour specification only */
            if (p[0] == 1 && b.len < 7)
                return tsr__fail(ctx, TSR_ERR_CORRUPT,
                                 "JP2: colr box too short for its EnumCS (at byte %zu)", b.off);
            if (j->colr_meth == 0) {
                j->colr_meth = p[0];
                if (p[0] == 1)
                    j->enumcs = tsr__rd32(p + 3);
                j->icc = p + 3;
                j->icc_len = b.len - 3;
            }
        } else if (b.type == T_PCLR) {
            if (b.len < 3)
                return tsr__fail(ctx, TSR_ERR_CORRUPT, "JP2: pclr box too short (at byte %zu)",
                                 b.off);
            uint32_t ne = tsr__rd16(p), npc = p[2];
            if (ne == 0 || ne > 1024 || npc == 0)
                return tsr__fail(ctx, TSR_ERR_CORRUPT,
                                 "JP2: palette with %u entries and %u columns (at byte %zu)", ne,
                                 npc, b.off);
            if (b.len < 3 + (size_t)npc)
                return tsr__fail(ctx, TSR_ERR_CORRUPT, "JP2: pclr box too short (at byte %zu)",
                                 b.off);
            size_t row = 0;
            for (uint32_t k = 0; k < npc; k++) {
                j->pal_bits[k] = p[3 + k];
                if ((p[3 + k] & 0x7f) + 1u > 32)
                    return tsr__fail(ctx, TSR_ERR_UNSUPPORTED,
                                     "JP2: palette column of %u bits (at byte %zu)",
                                     (p[3 + k] & 0x7f) + 1u, b.off);
                row += ((p[3 + k] & 0x7f) + 8u) / 8u;
            }
            if (b.len < 3 + npc + row * ne)
                return tsr__fail(ctx, TSR_ERR_CORRUPT,
                                 "JP2: pclr box holds fewer than its %u entries (at byte %zu)", ne,
                                 b.off);
            tsr__free(ctx, j->pal);
            j->pal = NULL;
            st = tsr__alloc(ctx, (size_t)ne * npc * sizeof(int32_t), (void **)&j->pal);
            if (st)
                return st;
            const uint8_t *q = p + 3 + npc;
            for (uint32_t e = 0; e < ne; e++)
                for (uint32_t k = 0; k < npc; k++) {
                    uint32_t bits = (j->pal_bits[k] & 0x7f) + 1u, nb = (bits + 7) / 8;
                    uint64_t v = 0;
                    for (uint32_t i = 0; i < nb; i++)
                        v = (v << 8) | *q++;
                    /* the entry is its low B + 1 bits (I.5.3.4): bits above them in the last
                     * byte, which a writer leaves 0, are dropped, so entries stay in range */
                    v &= ((uint64_t)1 << bits) - 1;
                    int64_t sv = (int64_t)v;
                    if ((j->pal_bits[k] & 0x80) && bits < 64 && (v >> (bits - 1)) & 1)
                        sv = (int64_t)v - ((int64_t)1 << bits);
                    j->pal[(size_t)e * npc + k] = (int32_t)sv;
                }
            j->pal_ne = ne;
            j->pal_npc = npc;
        } else if (b.type == T_CMAP) {
            if (b.len % 4 || b.len / 4 > 256)
                return tsr__fail(ctx, TSR_ERR_CORRUPT, "JP2: cmap box of %zu bytes (at byte %zu)",
                                 b.len, b.off);
            j->ncmap = (uint32_t)(b.len / 4);
            for (uint32_t i = 0; i < j->ncmap; i++) {
                j->cmap[i].cmp = (uint16_t)tsr__rd16(p + 4 * i);
                j->cmap[i].mtyp = p[4 * i + 2];
                j->cmap[i].pcol = p[4 * i + 3];
                if (j->cmap[i].mtyp > 1)
                    return tsr__fail(ctx, TSR_ERR_CORRUPT,
                                     "JP2: cmap mapping type %u (at byte %zu)", j->cmap[i].mtyp,
                                     b.off);
            }
        } else if (b.type == T_CDEF) {
            if (b.len < 2)
                return tsr__fail(ctx, TSR_ERR_CORRUPT, "JP2: cdef box too short (at byte %zu)",
                                 b.off);
            uint32_t n = tsr__rd16(p);
            if (n > 256 || b.len != 2 + 6 * (size_t)n)
                return tsr__fail(ctx, TSR_ERR_CORRUPT,
                                 "JP2: cdef box length does not match %u entries (at byte %zu)", n,
                                 b.off);
            j->ncdef = n;
            for (uint32_t i = 0; i < n; i++) {
                j->cdef_cn[i] = (uint16_t)tsr__rd16(p + 2 + 6 * i);
                j->cdef_typ[i] = (uint16_t)tsr__rd16(p + 4 + 6 * i);
                j->cdef_asoc[i] = (uint16_t)tsr__rd16(p + 6 + 6 * i);
            }
        }
        pos = b.data + b.len;
    }
    if (!have_ihdr)
        tsr__j2k_warnf(warn, "JP2: jp2h box without ihdr");
    if (j->pal_ne && !j->ncmap)
        return tsr__fail(ctx, TSR_ERR_CORRUPT, "JP2: palette without a component mapping (cmap)");
    return TSR_OK;
}

tsr_status tsr__jp2_read(tsr_ctx *ctx, const uint8_t *data, size_t len, tsr__jp2 *j,
                         tsr__j2k_warn *warn)
{
    memset(j, 0, sizeof *j);
    if (len >= 2 && data[0] == 0xFF && data[1] == 0x4F) {
        j->container = TSR_J2K_CODESTREAM;
        j->cs_off = 0;
        j->cs_len = len;
        return TSR_OK;
    }
    static const uint8_t sig[12] = {0, 0, 0, 12, 'j', 'P', ' ', ' ', 0x0D, 0x0A, 0x87, 0x0A};
    if (len < 12 || memcmp(data, sig, 12) != 0)
        return tsr__fail(ctx, TSR_ERR_CORRUPT,
                         "not a JPEG 2000 file: neither a codestream (FF4F) nor a JP2 signature "
                         "box at byte 0");
    j->container = TSR_J2K_JP2;
    size_t pos = 12;
    int have_ftyp = 0, have_jp2h = 0;
    while (pos < len) {
        box b = {0};
        /* A truncated file: the codestream box claims more than is left. Decode what is there
         * (the codestream parser warns about the missing end). */
        if (len - pos >= 8 && tsr__rd32(data + pos + 4) == T_JP2C) {
            uint64_t lbox = tsr__rd32(data + pos);
            size_t hdr = 8;
            if (lbox == 1 && len - pos >= 16) {
                lbox = tsr__rd64(data + pos + 8);
                hdr = 16;
            }
            if (lbox > len - pos) {
                tsr__j2k_warnf(warn, "JP2: codestream box of %llu bytes, %zu present (truncated)",
                               (unsigned long long)lbox, len - pos);
                warn->truncated = 1;
                j->cs_off = pos + hdr;
                j->cs_len = len - pos - hdr;
                return TSR_OK;
            }
        }
        tsr_status st = next_box(ctx, data, pos, len, &b);
        if (st)
            return st;
        if (b.type == T_FTYP) {
            if (b.len < 8)
                return tsr__fail(ctx, TSR_ERR_CORRUPT, "JP2: ftyp box too short (at byte %zu)",
                                 b.off);
            uint32_t br = tsr__rd32(data + b.data);
            if (br == BOX('j', 'p', 'h', ' '))
                j->container = TSR_J2K_JPH;
            have_ftyp = 1;
        } else if (b.type == T_JP2H) {
            if ((st = read_jp2h(ctx, data, &b, j, warn)))
                return st;
            have_jp2h = 1;
        } else if (b.type == T_JP2C) {
            j->cs_off = b.data;
            j->cs_len = b.len;
            if (!have_ftyp)
                tsr__j2k_warnf(warn, "JP2: no ftyp box before the codestream");
            if (!have_jp2h)
                tsr__j2k_warnf(warn, "JP2: no jp2h box before the codestream");
            return TSR_OK;
        } else if (b.type == T_JP) {
            return tsr__fail(ctx, TSR_ERR_CORRUPT, "JP2: second signature box (at byte %zu)",
                             b.off);
        }
        pos = b.data + b.len;
    }
    return tsr__fail(ctx, TSR_ERR_CORRUPT, "JP2: no contiguous codestream (jp2c) box");
}

void tsr__jp2_free(tsr_ctx *ctx, tsr__jp2 *j)
{
    tsr__free(ctx, j->pal);
    j->pal = NULL;
}
