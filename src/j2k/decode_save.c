/* A decode straight into an image file (tsr_j2k_decode_save, j2k.h): PNG/PNM rows streamed into
 * the file as the decode finishes them where it can, else a whole image saved afterwards; PGX
 * from int32 planes. Every output is written atomically (io/atomic_file.h, io/row_writer.h). */
#include "core/ctx.h"
#include "io/row_writer.h"
#include "tessera/io.h"
#include "tessera/j2k.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

static int ends_with(const char *s, const char *suf)
{
    size_t a = strlen(s), b = strlen(suf);
    return a >= b && strcasecmp(s + a - b, suf) == 0;
}

/* The failure for decoded planes that make no PNG/PNM image (tsr_j2k_decode_image_layout said
 * so; `why` is its message): the first reason found. */
static tsr_status no_image(tsr_ctx *ctx, const tsr_j2k_plane *p, uint32_t n, const char *why)
{
    if (n < 1 || n > 4)
        return tsr__fail(ctx, TSR_ERR_UNSUPPORTED,
                         "%u components cannot be written as PNG/PNM; use a .pgx output", n);
    uint32_t maxprec = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (p[i].width != p[0].width || p[i].height != p[0].height)
            return tsr__fail(ctx, TSR_ERR_UNSUPPORTED,
                             "components have different sizes (subsampling); use a .pgx output");
        if (p[i].precision > maxprec)
            maxprec = p[i].precision;
    }
    if (maxprec > 16)
        return tsr__fail(ctx, TSR_ERR_UNSUPPORTED,
                         "%u-bit samples cannot be written as PNG/PNM; use a .pgx output", maxprec);
    if (p[0].width == 0 || p[0].height == 0)
        return tsr__fail(ctx, TSR_ERR_UNSUPPORTED, "the decoded image is empty");
    return tsr__fail(ctx, TSR_ERR_UNSUPPORTED, "%s", why);
}

typedef struct sink_state {
    tsr_ctx *ctx;
    tsr__row_writer *rw;
    uint32_t height;
} sink_state;

/* tsr_j2k_decode_rows' sink: the rows into the file; stops the decode when that fails (the
 * writer keeps the message) or when the context's progress callback asks to stop. */
static int write_rows(void *user, const void *rows, size_t stride, uint32_t y, uint32_t count)
{
    sink_state *s = user;
    if (tsr__row_writer_rows(s->rw, rows, stride, count) != TSR_OK)
        return 1;
    return tsr__progress(s->ctx, "write", (double)y + count, s->height) != TSR_OK;
}

tsr_status tsr_j2k_decode_save(tsr_ctx *ctx, const void *data, size_t len,
                               const tsr_j2k_decode_options *opt, const char *path,
                               tsr_j2k_save_result *result)
{
    tsr_status st = tsr__enter(ctx);
    if (st)
        return st;
    tsr_j2k_save_result res;
    memset(&res, 0, sizeof res);
    if (result)
        *result = res;
    if (!data || !path)
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT, "j2k decode: no input or no output path");
    const int pgx = ends_with(path, ".pgx");
    if (!pgx && tsr_format_from_name(path) != TSR_FORMAT_PNG &&
        tsr_format_from_name(path) != TSR_FORMAT_PNM) {
        res.output_failed = 1;
        st = tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT,
                       "output '%s': use a .pgx, .png, .pgm, .ppm or .pnm name", path);
        goto out;
    }
    tsr_j2k_plane *planes = NULL;
    uint32_t n = 0;
    tsr_image img = {0};
    /* PNG/PNM: the 8- or 16-bit image's rows straight into the file where the decode makes an
     * image (else, where the writer refuses the file, into an image that is saved afterwards,
     * which reports the same refusal after the decode as before); PGX, and images the library
     * cannot make, through the int32 planes (the latter for the messages of no_image, after
     * any decoding error). */
    char why[256] = "";
    int direct = !pgx, streamed = 0;
    tsr__row_writer rw;
    if (direct) {
        st = tsr_j2k_decode_image_layout(ctx, data, len, opt, &img);
        if (st) {
            snprintf(why, sizeof why, "%s", tsr_ctx_last_error(ctx));
            direct = 0;
        } else if (tsr__row_writer_open(ctx, path, &img, &rw) == TSR_OK) {
            streamed = 1;
            sink_state ss = {ctx, &rw, (uint32_t)img.height};
            st = tsr_j2k_decode_rows(ctx, data, len, opt, write_rows, &ss, &res.decode);
        } else if ((st = tsr_image_alloc(ctx, &img, img.width, img.height, img.channels,
                                         img.depth))) {
            goto out;
        } else {
            st = tsr_j2k_decode_image(ctx, data, len, opt, &img, &res.decode);
        }
    }
    if (!direct)
        st = tsr_j2k_decode_alloc(ctx, data, len, opt, &planes, &n, &res.decode);
    if (st && streamed) {
        /* no file: a failed write names the output, anything else the input */
        tsr__row_writer_abort(&rw);
        if (rw.status) {
            res.output_failed = 1;
            st = tsr__fail(ctx, rw.status, "%s", rw.message);
        }
        goto out;
    }
    if (st) {
        tsr_image_free(ctx, &img);
        goto out;
    }
    res.planes = n;
    res.width = n ? planes[0].width : 0;
    res.height = n ? planes[0].height : 0;
    if (direct) {
        res.planes = (uint32_t)img.channels;
        res.width = (uint32_t)img.width;
        res.height = (uint32_t)img.height;
        st = streamed ? tsr__row_writer_close(&rw) : tsr_image_save(ctx, path, &img, NULL);
        res.output_failed = st != TSR_OK;
    } else if (pgx) {
        st = tsr_j2k_save_pgx(ctx, path, planes, n);
        res.output_failed = st != TSR_OK;
    } else {
        st = no_image(ctx, planes, n, why);
    }
    tsr_image_free(ctx, &img);
    tsr_j2k_planes_free(ctx, planes, n);
out:
    if (result)
        *result = res;
    return st;
}
