/* Row-wise PNG and PNM output through the encoders' row steps (row_writer.h, codecs.h). */
#include "io/row_writer.h"

#include "io/codecs.h"
#include "tessera/io.h"

#include <stdio.h>
#include <string.h>

/* Records the first failure with its message (path-prefixed as tsr_image_save does) and
 * returns it. */
static tsr_status failed(tsr__row_writer *w, tsr_status st)
{
    if (w->status == TSR_OK) {
        st = tsr__image_prefix_path(w->ctx, st, w->af.path);
        w->status = st;
        snprintf(w->message, sizeof w->message, "%s", tsr_ctx_last_error(w->ctx));
    }
    return w->status;
}

tsr_status tsr__row_writer_open(tsr_ctx *ctx, const char *path, const tsr_image *desc,
                                tsr__row_writer *w)
{
    memset(w, 0, sizeof *w);
    w->ctx = ctx;
    tsr_save_options o;
    tsr_save_options_init(&o);
    w->format = path ? tsr_format_from_name(path) : TSR_FORMAT_UNKNOWN;
    if (w->format != TSR_FORMAT_PNG && w->format != TSR_FORMAT_PNM)
        return tsr__fail(ctx, TSR_ERR_UNSUPPORTED, "%s: only PNG and PNM are written row by row",
                         path ? path : "(null)");
    w->desc = *desc;
    w->desc.data = (void *)desc; /* a placeholder address for the check, never read */
    tsr_status st = tsr_image_check(ctx, &w->desc);
    if (st == TSR_OK)
        st = tsr__image_check_savable(ctx, w->format, &w->desc);
    w->desc.data = NULL;
    if (st != TSR_OK)
        return tsr__image_prefix_path(ctx, st, path);
    if ((st = tsr_file_type_check_channels(ctx, path, tsr_file_type_of(path), desc->channels)) !=
        TSR_OK)
        return st;
    if ((st = tsr__atomic_open(ctx, path, &w->af)) != TSR_OK)
        return st; /* the message names the path */
    if (w->format == TSR_FORMAT_PNG)
        st = tsr__png_encode_begin(ctx, &w->desc, o.png_compression, &w->af, &w->png);
    else
        st = tsr__pnm_encode_header(ctx, &w->desc, &w->af);
    if (st != TSR_OK) {
        st = tsr__image_prefix_path(ctx, st, path);
        tsr__atomic_abort(ctx, &w->af);
        return st;
    }
    return TSR_OK;
}

tsr_status tsr__row_writer_rows(tsr__row_writer *w, const void *rows, size_t stride, uint32_t count)
{
    if (w->status != TSR_OK)
        return tsr__fail(w->ctx, w->status, "%s", w->message);
    if (count > (uint32_t)w->desc.height - w->rows)
        return failed(w, tsr__fail(w->ctx, TSR_ERR_INVALID_ARGUMENT, "%u rows given after %u of %d",
                                   count, w->rows, (int)w->desc.height));
    tsr_status st = w->png ? tsr__png_encode_rows(w->png, rows, stride, count)
                           : tsr__pnm_encode_rows(w->ctx, &w->desc, rows, stride, count, &w->af);
    if (st != TSR_OK)
        return failed(w, st);
    w->rows += count;
    return TSR_OK;
}

tsr_status tsr__row_writer_close(tsr__row_writer *w)
{
    tsr_status st = w->status;
    if (st == TSR_OK && w->rows != (uint32_t)w->desc.height)
        st = failed(w, tsr__fail(w->ctx, TSR_ERR_INVALID_ARGUMENT, "%u of %d rows written", w->rows,
                                 (int)w->desc.height));
    if (st == TSR_OK && w->png && (st = tsr__png_encode_end(w->png)) != TSR_OK)
        st = failed(w, st);
    if (st != TSR_OK) {
        tsr__row_writer_abort(w);
        return tsr__fail(w->ctx, st, "%s", w->message);
    }
    tsr__png_encode_free(w->png);
    w->png = NULL;
    return tsr__atomic_commit(w->ctx, &w->af); /* aborts by itself on failure; names the path */
}

void tsr__row_writer_abort(tsr__row_writer *w)
{
    tsr__png_encode_free(w->png);
    w->png = NULL;
    tsr__atomic_abort(w->ctx, &w->af);
}
