/* PNG encoding (ISO 15948): IHDR, IDAT, IEND, with zlib's deflate, in parallel.
 *
 * Each row is filtered with the filter type (None, Sub, Up, Average, Paeth: 9.2) whose output has
 * the least sum of absolute values taken as signed bytes (the adaptive heuristic of ISO 15948
 * 12.8 and libpng); at level 0 rows are stored unfiltered. The zlib stream (RFC 1950) is cut
 * at row boundaries into segments of TSR__PNG_SEG_ROWS(rowbytes) rows: each segment is deflated
 * on its own, primed with the 32 KiB of filtered data before it as a preset dictionary
 * (deflateSetDictionary), and ends with a sync flush (the last with Z_FINISH), so that the raw
 * deflate outputs concatenate into one valid stream; the Adler-32s of the segments are combined
 * (adler32_combine). Segments are therefore independent and compress in parallel (the whole-image
 * call, on the context's threads), and the bytes depend on neither the thread count nor whether
 * the image came whole or row by row. One IDAT chunk per segment. 16-bit samples are written
 * big-endian (7.1). */
#include "io/codecs.h"

#include "core/checked.h"
#include "core/ctx.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

enum { TSR__PNG_SEG_BYTES = 1 << 20, TSR__PNG_DICT = 32768 };

/* Rows per segment for filtered rows of 1 + rowbytes bytes: about a MiB, at least one row. */
static int32_t seg_rows(size_t rowbytes)
{
    size_t r = TSR__PNG_SEG_BYTES / (rowbytes + 1);
    return r < 1 ? 1 : r > (size_t)INT32_MAX ? INT32_MAX : (int32_t)r;
}

static void put_be32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24), p[1] = (uint8_t)(v >> 16), p[2] = (uint8_t)(v >> 8),
    p[3] = (uint8_t)v;
}

/* One chunk (5.3): length, type, data, CRC of type and data. */
static tsr_status write_chunk(tsr_ctx *ctx, tsr__atomic_file *af, const char type[4],
                              const uint8_t *data, size_t len)
{
    if (len > 0x7fffffffu)
        return tsr__fail(ctx, TSR_ERR_OVERFLOW, "PNG: a chunk of %zu bytes is too long", len);
    uint8_t head[8], tail[4];
    put_be32(head, (uint32_t)len);
    memcpy(head + 4, type, 4);
    uLong crc = crc32(crc32(0L, Z_NULL, 0), head + 4, 4);
    for (size_t done = 0; done < len;) { /* crc32 takes uInt lengths */
        uInt n = len - done > 0x40000000u ? 0x40000000u : (uInt)(len - done);
        crc = crc32(crc, data + done, n);
        done += n;
    }
    put_be32(tail, (uint32_t)crc);
    tsr_status st = tsr__atomic_write(ctx, af, head, 8);
    if (st == TSR_OK && len)
        st = tsr__atomic_write(ctx, af, data, len);
    return st == TSR_OK ? tsr__atomic_write(ctx, af, tail, 4) : st;
}

static int paeth(int a, int b, int c)
{
    int p = a + b - c, pa = abs(p - a), pb = abs(p - b), pc = abs(p - c);
    return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

/* Filter `type` of row cur (prev: the row above, all zero for the first row) into d[0 .. n-1];
 * returns the sum of |d| as signed bytes, or stops early (returning a larger sum) once it passes
 * `stop`. */
static uint64_t apply_filter(int type, const uint8_t *cur, const uint8_t *prev, size_t n,
                             size_t bpp, uint8_t *d, uint64_t stop)
{
    uint64_t sum = 0;
    for (size_t i0 = 0; i0 < n; i0 += 4096) {
        const size_t i1 = n - i0 < 4096 ? n : i0 + 4096;
        size_t i = i0;
        switch (type) {
        case 0: memcpy(d + i0, cur + i0, i1 - i0); break;
        case 1:
            for (; i < i1 && i < bpp; i++)
                d[i] = cur[i];
            for (; i < i1; i++)
                d[i] = (uint8_t)(cur[i] - cur[i - bpp]);
            break;
        case 2:
            for (; i < i1; i++)
                d[i] = (uint8_t)(cur[i] - prev[i]);
            break;
        case 3:
            for (; i < i1 && i < bpp; i++)
                d[i] = (uint8_t)(cur[i] - (prev[i] >> 1));
            for (; i < i1; i++)
                d[i] = (uint8_t)(cur[i] - ((cur[i - bpp] + prev[i]) >> 1));
            break;
        default:
            for (; i < i1 && i < bpp; i++)
                d[i] = (uint8_t)(cur[i] - prev[i]); /* Paeth(0, b, 0) = b */
            for (; i < i1; i++)
                d[i] = (uint8_t)(cur[i] - paeth(cur[i - bpp], prev[i], prev[i - bpp]));
            break;
        }
        for (i = i0; i < i1; i++)
            sum += d[i] < 128 ? d[i] : 256u - d[i];
        if (sum > stop)
            return sum;
    }
    return sum;
}

/* Filters raw row `cur` (prev: the raw row above, or `zero` for the first row) into out[0] (the
 * type) and out[1 .. n]; bpp bytes a pixel; scratch: n bytes. The type of least sum wins, the
 * lowest type on ties. */
static void filter_row(const uint8_t *cur, const uint8_t *prev, size_t n, size_t bpp, int adaptive,
                       uint8_t *out, uint8_t *scratch)
{
    out[0] = 0;
    uint64_t best = apply_filter(0, cur, prev, n, bpp, out + 1, UINT64_MAX);
    if (!adaptive)
        return;
    for (int type = 1; type < 5; type++) {
        uint64_t sum = apply_filter(type, cur, prev, n, bpp, scratch, best);
        if (sum < best) {
            best = sum;
            memcpy(out + 1, scratch, n);
            out[0] = (uint8_t)type;
        }
    }
}

/* A row of img as it is stored in the file (16-bit samples big-endian) into raw. */
static void raw_row(const tsr_image *img, const void *row, size_t rowbytes, uint8_t *raw)
{
    if (img->depth != TSR_U16) {
        memcpy(raw, row, rowbytes);
        return;
    }
    const uint16_t *s = row;
    for (size_t i = 0; i < rowbytes / 2; i++)
        raw[2 * i] = (uint8_t)(s[i] >> 8), raw[2 * i + 1] = (uint8_t)s[i];
}

/* Deflates one segment: `data` (len bytes of filtered rows) after `dict` (dict_len bytes, 0 for
 * the first segment), a sync flush unless last. *out: a malloc'd buffer of *out_len bytes. */
static int deflate_segment(int level, const uint8_t *dict, size_t dict_len, const uint8_t *data,
                           size_t len, int last, uint8_t **out, size_t *out_len)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    *out = NULL;
    if (deflateInit2(&z, level, Z_DEFLATED, -15, 8, Z_FILTERED) != Z_OK)
        return 0;
    size_t cap = deflateBound(&z, (uLong)len) + 64;
    uint8_t *buf = malloc(cap);
    int ok = buf != NULL;
    if (ok && dict_len)
        ok = deflateSetDictionary(&z, dict, (uInt)dict_len) == Z_OK;
    z.next_in = (Bytef *)data;
    z.avail_in = (uInt)len;
    z.next_out = buf;
    z.avail_out = (uInt)cap;
    if (ok) {
        int r = deflate(&z, last ? Z_FINISH : Z_SYNC_FLUSH);
        ok = last ? r == Z_STREAM_END : r == Z_OK && z.avail_in == 0;
    }
    *out_len = cap - z.avail_out;
    deflateEnd(&z);
    if (!ok) {
        free(buf);
        return 0;
    }
    *out = buf;
    return 1;
}

struct tsr__png_enc {
    tsr_ctx *ctx;
    tsr__atomic_file *af;
    tsr_image img; /* geometry only */
    int level;
    size_t rowbytes, bpp;
    int32_t rows_per_seg, y;       /* rows written so far */
    uint8_t *raw, *prev, *scratch; /* rowbytes each; prev: the row above (zero above row 0) */
    uint8_t *seg;                  /* TSR__PNG_DICT of dictionary, then a segment's rows */
    size_t dict_len, seg_len;
    uLong adler;
    int started; /* the zlib header was written */
};

static const uint8_t zlib_header[4][2] = {{0x78, 0x01}, {0x78, 0x5e}, {0x78, 0x9c}, {0x78, 0xda}};

/* The zlib header (FLEVEL as RFC 1950 2.2 describes zlib's levels) and the trailer. */
static const uint8_t *header_for(int level)
{
    return zlib_header[level <= 1 ? 0 : level <= 5 ? 1 : level == 6 ? 2 : 3];
}

/* IDAT of one deflated segment: the zlib header before the first, the Adler-32 after the last. */
static tsr_status write_idat(tsr_ctx *ctx, tsr__atomic_file *af, int level, const uint8_t *z,
                             size_t zlen, int first, int last, uLong adler)
{
    size_t len = zlen + (first ? 2 : 0) + (last ? 4 : 0);
    uint8_t *chunk;
    tsr_status st = tsr__alloc(ctx, len ? len : 1, (void **)&chunk);
    if (st != TSR_OK)
        return st;
    size_t o = 0;
    if (first)
        memcpy(chunk, header_for(level), 2), o = 2;
    memcpy(chunk + o, z, zlen);
    if (last)
        put_be32(chunk + o + zlen, (uint32_t)adler);
    st = write_chunk(ctx, af, "IDAT", chunk, len);
    tsr__free(ctx, chunk);
    return st;
}

static tsr_status write_header(tsr_ctx *ctx, const tsr_image *img, tsr__atomic_file *af)
{
    static const uint8_t color_types[5] = {0, 0, 4, 2, 6}; /* gray, gray+alpha, RGB, RGBA */
    static const uint8_t signature[8] = {137, 80, 78, 71, 13, 10, 26, 10};
    uint8_t ihdr[13];
    put_be32(ihdr, (uint32_t)img->width);
    put_be32(ihdr + 4, (uint32_t)img->height);
    ihdr[8] = img->depth == TSR_U16 ? 16 : 8;
    ihdr[9] = color_types[img->channels];
    ihdr[10] = ihdr[11] = ihdr[12] = 0; /* deflate, adaptive filtering, no interlace */
    tsr_status st = tsr__atomic_write(ctx, af, signature, sizeof signature);
    return st == TSR_OK ? write_chunk(ctx, af, "IHDR", ihdr, sizeof ihdr) : st;
}

tsr_status tsr__png_encode_begin(tsr_ctx *ctx, const tsr_image *img, int level,
                                 tsr__atomic_file *af, tsr__png_enc **out)
{
    *out = NULL;
    size_t bpp = (size_t)img->channels * tsr_depth_size(img->depth), rowbytes, segbytes;
    if (!tsr__size_mul((size_t)img->width, bpp, &rowbytes))
        return tsr__fail(ctx, TSR_ERR_OVERFLOW, "PNG: rows of %d pixels overflow", (int)img->width);
    const int32_t rps = seg_rows(rowbytes);
    if (rowbytes > 0x7fffffffu || !tsr__size_mul((size_t)rps, rowbytes + 1, &segbytes) ||
        !tsr__size_add(segbytes, TSR__PNG_DICT, &segbytes))
        return tsr__fail(ctx, TSR_ERR_OVERFLOW, "PNG: rows of %d pixels overflow", (int)img->width);
    tsr__png_enc *e;
    tsr_status st = tsr__alloc(ctx, sizeof *e, (void **)&e);
    if (st != TSR_OK)
        return st;
    memset(e, 0, sizeof *e);
    e->ctx = ctx, e->af = af, e->img = *img, e->level = level, e->bpp = bpp;
    e->rowbytes = rowbytes, e->rows_per_seg = rps, e->adler = adler32(0L, Z_NULL, 0);
    if ((st = tsr__alloc(ctx, rowbytes, (void **)&e->raw)) != TSR_OK ||
        (st = tsr__alloc(ctx, rowbytes, (void **)&e->prev)) != TSR_OK ||
        (st = tsr__alloc(ctx, rowbytes, (void **)&e->scratch)) != TSR_OK ||
        (st = tsr__alloc(ctx, segbytes, (void **)&e->seg)) != TSR_OK ||
        (st = write_header(ctx, img, af)) != TSR_OK) {
        tsr__png_encode_free(e);
        return st;
    }
    memset(e->prev, 0, rowbytes);
    *out = e;
    return TSR_OK;
}

/* Deflates and writes the segment held in e->seg, then keeps its last 32 KiB as the next
 * dictionary. */
static tsr_status flush_segment(tsr__png_enc *e, int last)
{
    uint8_t *z;
    size_t zlen;
    const uint8_t *data = e->seg + TSR__PNG_DICT;
    if (!deflate_segment(e->level, data - e->dict_len, e->dict_len, data, e->seg_len, last, &z,
                         &zlen))
        return tsr__fail(e->ctx, TSR_ERR_OUT_OF_MEMORY, "PNG: deflate failed (out of memory?)");
    e->adler = adler32_combine(e->adler, adler32(adler32(0L, Z_NULL, 0), data, (uInt)e->seg_len),
                               (z_off_t)e->seg_len);
    tsr_status st = write_idat(e->ctx, e->af, e->level, z, zlen, !e->started, last, e->adler);
    free(z);
    e->started = 1;
    size_t keep = e->seg_len < TSR__PNG_DICT ? e->seg_len : TSR__PNG_DICT;
    size_t from_old = TSR__PNG_DICT - keep < e->dict_len ? TSR__PNG_DICT - keep : e->dict_len;
    memmove(e->seg + TSR__PNG_DICT - keep - from_old, data - from_old, from_old);
    memmove(e->seg + TSR__PNG_DICT - keep, data + e->seg_len - keep, keep);
    e->dict_len = keep + from_old;
    e->seg_len = 0;
    return st;
}

tsr_status tsr__png_encode_rows(tsr__png_enc *e, const void *rows, size_t stride, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        if (e->y >= e->img.height)
            return tsr__fail(e->ctx, TSR_ERR_INTERNAL, "PNG: more rows than the image has");
        raw_row(&e->img, (const uint8_t *)rows + i * stride, e->rowbytes, e->raw);
        filter_row(e->raw, e->prev, e->rowbytes, e->bpp, e->level > 0,
                   e->seg + TSR__PNG_DICT + e->seg_len, e->scratch);
        e->seg_len += e->rowbytes + 1;
        uint8_t *t = e->prev;
        e->prev = e->raw, e->raw = t;
        e->y++;
        if (e->y % e->rows_per_seg == 0 || e->y == e->img.height) {
            tsr_status st = flush_segment(e, e->y == e->img.height);
            if (st != TSR_OK)
                return st;
        }
    }
    return TSR_OK;
}

tsr_status tsr__png_encode_end(tsr__png_enc *e)
{
    if (e->y != e->img.height)
        return tsr__fail(e->ctx, TSR_ERR_INTERNAL, "PNG: %d of %d rows given", (int)e->y,
                         (int)e->img.height);
    return write_chunk(e->ctx, e->af, "IEND", NULL, 0);
}

void tsr__png_encode_free(tsr__png_enc *e)
{
    if (!e)
        return;
    tsr_ctx *ctx = e->ctx;
    tsr__free(ctx, e->raw);
    tsr__free(ctx, e->prev);
    tsr__free(ctx, e->scratch);
    tsr__free(ctx, e->seg);
    tsr__free(ctx, e);
}

/* The whole image: rows filtered and segments deflated on the context's threads, then written
 * in order. The same bytes as tsr__png_encode_rows over all rows. */
tsr_status tsr__png_encode(tsr_ctx *ctx, const tsr_image *img, int level, tsr__atomic_file *af)
{
    const size_t bpp = (size_t)img->channels * tsr_depth_size(img->depth);
    size_t rowbytes, total;
    if (!tsr__size_mul((size_t)img->width, bpp, &rowbytes) || rowbytes > 0x7fffffffu ||
        !tsr__size_mul(rowbytes + 1, (size_t)img->height, &total))
        return tsr__fail(ctx, TSR_ERR_OVERFLOW, "PNG: %dx%d overflows", (int)img->width,
                         (int)img->height);
    const int32_t h = img->height, rps = seg_rows(rowbytes), nseg = (h + rps - 1) / rps;
    uint8_t *filtered, **zs;
    size_t *zlen;
    uLong *adlers;
    tsr_status st = tsr__alloc(ctx, total, (void **)&filtered);
    if (st != TSR_OK)
        return st;
    if ((st = tsr__alloc(ctx, (size_t)nseg * (sizeof *zs + sizeof *zlen + sizeof *adlers),
                         (void **)&zs)) != TSR_OK) {
        tsr__free(ctx, filtered);
        return st;
    }
    zlen = (size_t *)(zs + nseg);
    adlers = (uLong *)(zlen + nseg);
    memset(zs, 0, (size_t)nseg * sizeof *zs);
    int failed = 0;
    const size_t seg_bytes = (size_t)rps * (rowbytes + 1);
#pragma omp parallel num_threads(ctx->threads) reduction(| : failed)
    {
        uint8_t *raw = malloc(2 * rowbytes), *scratch = malloc(rowbytes);
        failed |= !raw || !scratch;
#pragma omp for schedule(dynamic)
        for (int32_t s = 0; s < nseg;
             s++) { /* filter segment s's rows (each needs the row above) */
            if (!raw || !scratch)
                continue;
            uint8_t *cur = raw, *prev = raw + rowbytes;
            const int32_t y0 = s * rps, y1 = y0 + rps < h ? y0 + rps : h;
            if (y0 > 0)
                raw_row(img, (const uint8_t *)img->data + (size_t)(y0 - 1) * img->stride, rowbytes,
                        prev);
            else
                memset(prev, 0, rowbytes);
            for (int32_t y = y0; y < y1; y++) {
                raw_row(img, (const uint8_t *)img->data + (size_t)y * img->stride, rowbytes, cur);
                filter_row(cur, prev, rowbytes, bpp, level > 0,
                           filtered + (size_t)y * (rowbytes + 1), scratch);
                uint8_t *t = prev;
                prev = cur, cur = t;
            }
        }
#pragma omp for schedule(dynamic)
        for (int32_t s = 0; s < nseg; s++) {
            const size_t off = (size_t)s * seg_bytes;
            const size_t len = s == nseg - 1 ? total - off : seg_bytes;
            const size_t dict = off < TSR__PNG_DICT ? off : TSR__PNG_DICT;
            if (!deflate_segment(level, filtered + off - dict, dict, filtered + off, len,
                                 s == nseg - 1, &zs[s], &zlen[s]))
                failed = 1;
            else
                adlers[s] = adler32(adler32(0L, Z_NULL, 0), filtered + off, (uInt)len);
        }
        free(raw);
        free(scratch);
    }
    if (failed)
        st = tsr__fail(ctx, TSR_ERR_OUT_OF_MEMORY, "PNG: deflate failed (out of memory?)");
    if (st == TSR_OK)
        st = write_header(ctx, img, af);
    uLong adler = adler32(0L, Z_NULL, 0);
    for (int32_t s = 0; s < nseg && st == TSR_OK; s++) {
        const size_t len = s == nseg - 1 ? total - (size_t)s * seg_bytes : seg_bytes;
        adler = adler32_combine(adler, adlers[s], (z_off_t)len);
        st = write_idat(ctx, af, level, zs[s], zlen[s], s == 0, s == nseg - 1, adler);
    }
    if (st == TSR_OK)
        st = write_chunk(ctx, af, "IEND", NULL, 0);
    for (int32_t s = 0; s < nseg; s++)
        free(zs[s]);
    tsr__free(ctx, zs);
    tsr__free(ctx, filtered);
    return st;
}
