/* PGX, the conformance format of T.803: a text header "PG ML +|- depth width height\n" then
 * the samples big-endian ("ML"), 1, 2 or 4 bytes each for depths up to 8, 16, 32. */
#include "io/atomic_file.h"
#include "j2k/decode_stages.h"

#include <stdio.h>
#include <string.h>

static tsr_status save_one(tsr_ctx *ctx, const char *path, const tsr_j2k_plane *p)
{
    if (p->precision < 1 || p->precision > 31 || (p->width && !p->data))
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT, "PGX: plane with %u-bit samples",
                         p->precision);
    tsr__atomic_file af;
    tsr_status st = tsr__atomic_open(ctx, path, &af);
    if (st)
        return st;
    char head[96];
    int n = snprintf(head, sizeof head, "PG ML %c %u %u %u\n", p->is_signed ? '-' : '+',
                     p->precision, p->width, p->height);
    st = tsr__atomic_write(ctx, &af, head, (size_t)n);
    /* Rows are converted into a buffer of about 1 MB and written a buffer at a time. */
    unsigned bps = p->precision <= 8 ? 1 : p->precision <= 16 ? 2 : 4;
    size_t row = (size_t)p->width * bps;
    size_t rows = row ? ((size_t)1 << 20) / row : 0;
    rows = rows < 1 ? 1 : rows > p->height ? p->height : rows;
    uint8_t *buf = NULL;
    if (!st && row && p->height)
        st = tsr__alloc(ctx, rows * row, (void **)&buf);
    for (size_t y = 0; !st && buf && y < p->height; y += rows) {
        size_t k = p->height - y < rows ? p->height - y : rows;
        for (size_t i = 0; i < k; i++) {
            const int32_t *s = p->data + (y + i) * p->stride;
            uint8_t *b = buf + i * row;
            for (uint32_t x = 0; x < p->width; x++) {
                uint32_t v = (uint32_t)s[x];
                if (bps == 1) {
                    b[x] = (uint8_t)v;
                } else if (bps == 2) {
                    b[2 * x] = (uint8_t)(v >> 8);
                    b[2 * x + 1] = (uint8_t)v;
                } else {
                    b[4 * x] = (uint8_t)(v >> 24);
                    b[4 * x + 1] = (uint8_t)(v >> 16);
                    b[4 * x + 2] = (uint8_t)(v >> 8);
                    b[4 * x + 3] = (uint8_t)v;
                }
            }
        }
        st = tsr__atomic_write(ctx, &af, buf, k * row);
    }
    tsr__free(ctx, buf);
    if (st) {
        tsr__atomic_abort(ctx, &af);
        return st;
    }
    return tsr__atomic_commit(ctx, &af);
}

tsr_status tsr_j2k_save_pgx(tsr_ctx *ctx, const char *path, const tsr_j2k_plane *planes,
                            uint32_t num_planes)
{
    tsr_status st = tsr__enter(ctx);
    if (st)
        return st;
    if (!path || !planes || num_planes == 0)
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT, "PGX: nothing to write");
    if (num_planes == 1)
        return save_one(ctx, path, &planes[0]);
    const char *dot = strrchr(path, '.');
    const char *slash = strrchr(path, '/');
    if (dot && slash && dot < slash)
        dot = NULL;
    size_t stem = dot ? (size_t)(dot - path) : strlen(path);
    for (uint32_t i = 0; i < num_planes; i++) {
        char name[4096];
        int n = snprintf(name, sizeof name, "%.*s_%u%s", (int)stem, path, i, dot ? dot : "");
        if (n < 0 || (size_t)n >= sizeof name)
            return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT, "PGX: output name too long");
        if ((st = save_one(ctx, name, &planes[i])))
            return st;
    }
    return TSR_OK;
}
