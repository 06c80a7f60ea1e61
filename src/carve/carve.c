/* tsr_carve and friends: validation, the plan of passes (which direction, how many seams, in
 * which order), and the bridge between caller images and the working grid (plan.h). */
#include "carve/plan.h"

#include "carve/carve_cuda.h"
#include "core/backend.h"
#include "core/checked.h"
#include "core/ctx.h"
#include "core/names.h"

#include <string.h>

static const char *const energy_names[] = {"backward", "forward"};
static const char *const mode_names[] = {"exact", "batch"};
static const char *const order_names[] = {"width-first", "height-first", "optimal"};

const char *tsr_carve_energy_name(tsr_carve_energy e)
{
    return tsr__name_of(energy_names, TSR__NAMES_COUNT(energy_names), (int)e, "unknown");
}
const char *tsr_carve_mode_name(tsr_carve_mode m)
{
    return tsr__name_of(mode_names, TSR__NAMES_COUNT(mode_names), (int)m, "unknown");
}
const char *tsr_carve_order_name(tsr_carve_order o)
{
    return tsr__name_of(order_names, TSR__NAMES_COUNT(order_names), (int)o, "unknown");
}
tsr_status tsr_carve_energy_parse(const char *name, tsr_carve_energy *out)
{
    int v;
    tsr_status st = tsr__name_parse(energy_names, TSR__NAMES_COUNT(energy_names), name, &v);
    if (st == TSR_OK)
        *out = (tsr_carve_energy)v;
    return st;
}
tsr_status tsr_carve_mode_parse(const char *name, tsr_carve_mode *out)
{
    int v;
    tsr_status st = tsr__name_parse(mode_names, TSR__NAMES_COUNT(mode_names), name, &v);
    if (st == TSR_OK)
        *out = (tsr_carve_mode)v;
    return st;
}
tsr_status tsr_carve_order_parse(const char *name, tsr_carve_order *out)
{
    int v;
    tsr_status st = tsr__name_parse(order_names, TSR__NAMES_COUNT(order_names), name, &v);
    if (st == TSR_OK)
        *out = (tsr_carve_order)v;
    return st;
}

void tsr_carve_options_init(tsr_carve_options *opt)
{
    memset(opt, 0, sizeof *opt);
}

int32_t tsr_carve_overlay_channels(int32_t channels)
{
    return channels == 2 || channels == 4 ? 4 : 3;
}

static tsr_status check_host_image(tsr_ctx *ctx, const tsr_image *img, const char *what)
{
    tsr_status st = tsr_image_check(ctx, img);
    if (st != TSR_OK)
        return st;
    if (img->memory != TSR_MEMORY_HOST)
        return tsr__fail(ctx, TSR_ERR_UNSUPPORTED, "carve: the %s must be in host memory", what);
    return TSR_OK;
}

static tsr_status check_mask(tsr_ctx *ctx, const tsr_image *src, const tsr_image *m,
                             const char *what)
{
    if (!m)
        return TSR_OK;
    tsr_status st = check_host_image(ctx, m, what);
    if (st != TSR_OK)
        return st;
    if (m->depth != TSR_U8 || m->channels != 1)
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT,
                         "carve: the %s must be 8-bit with one channel", what);
    if (m->width != src->width || m->height != src->height)
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT,
                         "carve: the %s is %dx%d but the image is %dx%d", what, (int)m->width,
                         (int)m->height, (int)src->width, (int)src->height);
    return TSR_OK;
}

static tsr_status check_source(tsr_ctx *ctx, const tsr_image *src, const tsr_carve_options *opt)
{
    tsr_status st = check_host_image(ctx, src, "input image");
    if (st != TSR_OK)
        return st;
    if (src->depth != TSR_U8 && src->depth != TSR_U16)
        return tsr__fail(ctx, TSR_ERR_UNSUPPORTED, "carve: only 8- and 16-bit images");
    if (src->width > TSR_CARVE_MAX_SIDE || src->height > TSR_CARVE_MAX_SIDE)
        return tsr__fail(ctx, TSR_ERR_LIMIT,
                         "carve: %dx%d input exceeds the largest side of %d pixels",
                         (int)src->width, (int)src->height, TSR_CARVE_MAX_SIDE);
    if (opt) {
        if ((unsigned)opt->energy > TSR_CARVE_FORWARD || (unsigned)opt->mode > TSR_CARVE_BATCH ||
            (unsigned)opt->order > TSR_CARVE_OPTIMAL)
            return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT, "carve: unknown option value");
        if (opt->width < 0 || opt->height < 0 || opt->batch_seams < 0)
            return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT, "carve: negative size");
        if ((st = check_mask(ctx, src, opt->keep, "keep mask")) != TSR_OK ||
            (st = check_mask(ctx, src, opt->drop, "drop mask")) != TSR_OK)
            return st;
    }
    return TSR_OK;
}

tsr_status tsr_carve_size(tsr_ctx *ctx, const tsr_image *src, const tsr_carve_options *opt,
                          int32_t *width, int32_t *height)
{
    tsr_status st = tsr__enter(ctx);
    if (st != TSR_OK)
        return st;
    if (!width || !height)
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT, "carve: NULL size output");
    if ((st = check_source(ctx, src, opt)) != TSR_OK)
        return st;
    int32_t w = opt && opt->width ? opt->width : src->width;
    int32_t h = opt && opt->height ? opt->height : src->height;
    if (w > TSR_CARVE_MAX_SIDE || h > TSR_CARVE_MAX_SIDE)
        return tsr__fail(ctx, TSR_ERR_LIMIT, "carve: target %dx%d exceeds the largest side of %d",
                         (int)w, (int)h, TSR_CARVE_MAX_SIDE);
    int32_t mw = w > src->width ? w : src->width, mh = h > src->height ? h : src->height;
    if ((uint64_t)mw * (uint64_t)mh > ctx->opt.max_image_pixels)
        return tsr__fail(ctx, TSR_ERR_LIMIT,
                         "carve: carving %dx%d to %dx%d passes through more than %llu pixels",
                         (int)src->width, (int)src->height, (int)w, (int)h,
                         (unsigned long long)ctx->opt.max_image_pixels);
    *width = w;
    *height = h;
    return TSR_OK;
}

tsr_status tsr_carve_mask_from_image(tsr_ctx *ctx, const tsr_image *img, tsr_image *mask)
{
    tsr_status st = tsr__enter(ctx);
    if (st != TSR_OK)
        return st;
    if ((st = check_host_image(ctx, img, "mask source")) != TSR_OK ||
        (st = check_host_image(ctx, mask, "mask")) != TSR_OK)
        return st;
    if (img->depth != TSR_U8 && img->depth != TSR_U16)
        return tsr__fail(ctx, TSR_ERR_UNSUPPORTED, "carve: a mask source must be 8- or 16-bit");
    if (mask->depth != TSR_U8 || mask->channels != 1 || mask->width != img->width ||
        mask->height != img->height)
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT,
                         "carve: the mask must be 8-bit with one channel, %dx%d", (int)img->width,
                         (int)img->height);
    const int32_t cn = img->channels, colour = cn >= 3 ? 3 : 1;
    for (int32_t y = 0; y < img->height; y++) {
        const uint8_t *s = (const uint8_t *)img->data + (size_t)y * img->stride;
        uint8_t *d = (uint8_t *)mask->data + (size_t)y * mask->stride;
        for (int32_t x = 0; x < img->width; x++) {
            int on = 0;
            for (int32_t c = 0; c < colour; c++)
                on |= img->depth == TSR_U8 ? s[(size_t)x * cn + c] != 0
                                           : ((const uint16_t *)s)[(size_t)x * cn + c] != 0;
            d[x] = (uint8_t)(on ? 255 : 0);
        }
    }
    return TSR_OK;
}

/* The working grid of src: pixels, luma, masks, and (for the overlay) each pixel's position. */
static tsr_status make_grid(tsr_ctx *ctx, const tsr_image *src, const tsr_carve_options *opt,
                            int with_index, int threads, tsr__carve_grid *g)
{
    const tsr_image *keep = opt ? opt->keep : NULL, *drop = opt ? opt->drop : NULL;
    tsr_status st = tsr__carve_grid_alloc(ctx, g, src->width, src->height, src->width,
                                          src->channels, src->depth, 1, keep || drop, with_index);
    if (st != TSR_OK)
        return st;
    g->has_keep = keep != NULL;
    g->has_drop = drop != NULL;
    const size_t row = (size_t)src->width * g->px;
    for (int32_t y = 0; y < src->height; y++) {
        const size_t o = (size_t)y * (size_t)g->pitch;
        memcpy(g->pix + o * g->px, (const uint8_t *)src->data + (size_t)y * src->stride, row);
        if (g->mask) {
            const uint8_t *k = keep ? (const uint8_t *)keep->data + (size_t)y * keep->stride : NULL;
            const uint8_t *d = drop ? (const uint8_t *)drop->data + (size_t)y * drop->stride : NULL;
            for (int32_t x = 0; x < src->width; x++)
                g->mask[o + (size_t)x] = (uint8_t)((k && k[x] ? TSR__CARVE_KEEP : 0) |
                                                   (d && d[x] ? TSR__CARVE_DROP : 0));
        }
        if (g->index)
            for (int32_t x = 0; x < src->width; x++)
                g->index[o + (size_t)x] = (uint32_t)((size_t)y * (size_t)src->width + (size_t)x);
    }
    tsr__carve_luma_all(g, threads);
    return TSR_OK;
}

/* Images from this many pixels carve on CUDA under TSR_BACKEND_AUTO, smaller ones on the CPU.
 * The threshold is to be measured (the image size at which the GPU's seam passes, with the
 * device's start-up and the copies, first beat the CPU backend end to end); 1 megapixel is the
 * stated value until then. */
#define TSR__CARVE_CUDA_MIN_PIXELS 1000000u

/* Whether auto carves a w x h image on CUDA. */
static int carve_large(int64_t w, int64_t h)
{
    return (uint64_t)w * (uint64_t)h >= TSR__CARVE_CUDA_MIN_PIXELS;
}

tsr_status tsr_carve_prepare(tsr_ctx *ctx, int32_t width, int32_t height)
{
    tsr_status st = tsr__enter(ctx);
    if (st != TSR_OK || width < 1 || height < 1 || !carve_large(width, height))
        return st;
    return tsr_ctx_prepare(ctx, TSR_BACKEND_CUDA);
}

/* The backend of a carve of src: the one choice of the call, made here and passed down in the
 * pass settings (tsr__carve_pass.backend). Offered: reference, cpu, cuda (OpenCL has no carve
 * path: asking for it is TSR_ERR_NO_BACKEND). */
static tsr_status tsr__carve_choose(tsr_ctx *ctx, const char *op, const tsr_image *src,
                                    tsr_backend *out)
{
    const unsigned offered = TSR__BACKEND_BIT(TSR_BACKEND_REFERENCE) |
                             TSR__BACKEND_BIT(TSR_BACKEND_CPU) | TSR__BACKEND_BIT(TSR_BACKEND_CUDA);
    const int large = carve_large(src->width, src->height);
    return tsr__backend_choose(ctx, op, offered, large ? TSR_BACKEND_CUDA : TSR_BACKEND_CPU,
                               large ? "large image: the GPU's seam passes are faster end to end"
                                     : "small image: the CPU is faster end to end than a CUDA "
                                       "start-up and the copies",
                               out);
}

/* The pass settings every removal of this call shares, on backend b. */
static void make_pass(tsr_ctx *ctx, const tsr_carve_options *opt, tsr_backend b, tsr__carve_pass *p)
{
    memset(p, 0, sizeof *p);
    p->backend = b;
    p->threads = ctx->threads;
    if (opt) {
        p->energy = opt->energy;
        p->mode = opt->mode;
        p->batch_seams = opt->batch_seams;
    }
}

typedef struct carve_job {
    tsr_ctx *ctx;
    tsr__carve_grid g;
    tsr__carve_pass proto;
    uint8_t *marks;
    tsr_carve_report rep;
} carve_job;

/* Removes (delta < 0) or inserts (delta > 0) |delta| seams, vertical or horizontal. */
static tsr_status carve_side(carve_job *j, int horiz, int32_t delta, int until_drop_gone,
                             int32_t *done)
{
    tsr_status st = TSR_OK;
    tsr__carve_grid t, *g = &j->g;
    if (delta == 0 && !until_drop_gone)
        return TSR_OK;
    if (horiz) {
        if ((st = tsr__carve_grid_transpose(j->ctx, &j->g, &t)) != TSR_OK)
            return st;
        g = &t;
    }
    tsr__carve_pass p = j->proto;
    p.marks = j->marks;
    p.until_drop_gone = until_drop_gone;
    if (delta < 0 || until_drop_gone) {
        st = tsr__carve_remove_seams(j->ctx, g, -delta, &p);
        j->rep.removed_energy += p.energy_sum;
        *(horiz ? &j->rep.removed_horizontal : &j->rep.removed_vertical) += p.removed;
        if (done)
            *done = p.removed;
    } else {
        st = tsr__carve_insert_seams(j->ctx, g, delta, &p, j->marks);
        if (st == TSR_OK)
            *(horiz ? &j->rep.inserted_horizontal : &j->rep.inserted_vertical) += delta;
    }
    j->rep.dp_passes += p.dp_passes;
    j->rep.device_ms += p.device_ms;
    if (horiz) {
        if (st == TSR_OK) {
            tsr__carve_grid back;
            if ((st = tsr__carve_grid_transpose(j->ctx, &t, &back)) == TSR_OK) {
                tsr__carve_grid_free(j->ctx, &j->g);
                j->g = back;
            }
        }
        tsr__carve_grid_free(j->ctx, &t);
    }
    return st;
}

/* Object removal: seams through the drop mask until none of it is left, in the direction
 * that crosses the mask's bounding box the short way (vertical seams when it is no wider than
 * tall), then as many seams inserted back. */
static tsr_status remove_object(carve_job *j, const tsr_image *drop)
{
    int32_t x0 = drop->width, x1 = -1, y0 = drop->height, y1 = -1;
    for (int32_t y = 0; y < drop->height; y++) {
        const uint8_t *r = (const uint8_t *)drop->data + (size_t)y * drop->stride;
        for (int32_t x = 0; x < drop->width; x++)
            if (r[x]) {
                x0 = x < x0 ? x : x0;
                x1 = x > x1 ? x : x1;
                y0 = y < y0 ? y : y0;
                y1 = y > y1 ? y : y1;
            }
    }
    if (x1 < 0)
        return TSR_OK; /* nothing to remove */
    const int horiz = (y1 - y0) < (x1 - x0);
    if ((horiz ? j->g.h : j->g.w) < 2)
        return tsr__fail(j->ctx, TSR_ERR_INVALID_ARGUMENT,
                         "carve: cannot remove an object from an image of one %s",
                         horiz ? "row" : "column");
    int32_t n = 0;
    tsr_status st = carve_side(j, horiz, 0, 1, &n);
    if (st != TSR_OK)
        return st;
    /* The object is gone: what is left of the drop mask no longer steers the insertion. */
    j->g.has_drop = 0;
    for (int32_t y = 0; y < j->g.h; y++)
        for (int32_t x = 0; x < j->g.w; x++)
            j->g.mask[(size_t)y * (size_t)j->g.pitch + (size_t)x] &= (uint8_t)~TSR__CARVE_DROP;
    return carve_side(j, horiz, n, 0, NULL);
}

/* Removes r horizontal and c vertical seams in the order of least total energy: on the CUDA
 * backend map and removals on the device where they fit there, else the host's map and then its
 * moves, run by run. */
static tsr_status carve_optimal(carve_job *j, int32_t r, int32_t c)
{
    if (j->proto.backend == TSR_BACKEND_CUDA && tsr__carve_cuda_order_fits(j->ctx, &j->g, r, c)) {
        uint64_t energy = 0;
        double ms = 0;
        tsr_status st =
            tsr__carve_optimal_device(j->ctx, &j->g, r, c, &j->proto, j->marks, &energy, &ms);
        if (st == TSR_OK) {
            j->rep.removed_energy += energy;
            j->rep.removed_vertical += c;
            j->rep.removed_horizontal += r;
            j->rep.dp_passes += (int64_t)r + c;
            j->rep.device_ms += ms;
        }
        return st;
    }
    char *moves;
    void *mem;
    tsr_status st = tsr__alloc(j->ctx, (size_t)r + (size_t)c, &mem);
    if (st != TSR_OK)
        return st;
    moves = mem;
    if ((st = tsr__carve_optimal_order(j->ctx, &j->g, r, c, &j->proto, moves)) == TSR_OK) {
        for (int32_t i = 0, n = r + c; i < n && st == TSR_OK;) {
            int32_t k = i;
            while (k < n && moves[k] == moves[i])
                k++;
            st = carve_side(j, moves[i] == 'h', -(k - i), 0, NULL);
            i = k;
        }
    }
    tsr__free(j->ctx, moves);
    return st;
}

/* Paints the overlay: the input, RGB(A), with every marked pixel red. */
static void paint_overlay(const tsr_image *src, const uint8_t *marks, tsr_image *ov)
{
    const int32_t cn = src->channels, oc = ov->channels;
    const int alpha = cn == 2 || cn == 4;
    for (int32_t y = 0; y < src->height; y++) {
        const uint8_t *s = (const uint8_t *)src->data + (size_t)y * src->stride;
        uint8_t *d = (uint8_t *)ov->data + (size_t)y * ov->stride;
        const uint8_t *m = marks + (size_t)y * (size_t)src->width;
        for (int32_t x = 0; x < src->width; x++) {
            uint32_t v[4], top = src->depth == TSR_U8 ? 255u : 65535u;
            for (int32_t c = 0; c < cn; c++)
                v[c] = src->depth == TSR_U8 ? s[(size_t)x * cn + c]
                                            : ((const uint16_t *)s)[(size_t)x * cn + c];
            uint32_t o[4];
            if (m[x]) {
                o[0] = top;
                o[1] = o[2] = 0;
            } else if (cn <= 2) {
                o[0] = o[1] = o[2] = v[0];
            } else {
                o[0] = v[0];
                o[1] = v[1];
                o[2] = v[2];
            }
            o[3] = alpha ? v[cn - 1] : top;
            if (m[x])
                o[3] = top;
            for (int32_t c = 0; c < oc; c++) {
                if (src->depth == TSR_U8)
                    d[(size_t)x * oc + c] = (uint8_t)o[c];
                else
                    ((uint16_t *)d)[(size_t)x * oc + c] = (uint16_t)o[c];
            }
        }
    }
}

/* A CUDA carve that removes vertical seams only, without masks or an overlay: on the device from
 * one upload to one download (carve_cuda_resident.cu), the same seams as the grid's path. */
static tsr_status carve_resident(carve_job *j, const tsr_image *src, tsr_image *dst,
                                 tsr_carve_report *report)
{
    tsr__carve_pass p = j->proto;
    tsr_status st = tsr__carve_remove_resident_cuda(j->ctx, src, dst, &p);
    if (st == TSR_OK && report) {
        memset(report, 0, sizeof *report);
        report->removed_vertical = p.removed;
        report->dp_passes = p.dp_passes;
        report->removed_energy = p.energy_sum;
        report->device_ms = p.device_ms;
    }
    return st;
}

tsr_status tsr_carve(tsr_ctx *ctx, const tsr_image *src, tsr_image *dst,
                     const tsr_carve_options *opt)
{
    tsr_status st = tsr__enter(ctx);
    if (st != TSR_OK)
        return st;
    tsr_carve_options dflt;
    if (!opt) {
        if (!dst)
            return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT, "carve: output image is NULL");
        tsr_carve_options_init(&dflt);
        dflt.width = dst->width;
        dflt.height = dst->height;
        opt = &dflt;
    }
    int32_t tw, th;
    if ((st = tsr_carve_size(ctx, src, opt, &tw, &th)) != TSR_OK)
        return st;
    if ((st = check_host_image(ctx, dst, "output image")) != TSR_OK)
        return st;
    if (dst->width != tw || dst->height != th || dst->channels != src->channels ||
        dst->depth != src->depth)
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT,
                         "carve: the output must be %dx%d with the input's channels and depth",
                         (int)tw, (int)th);
    const int object = opt->drop && !opt->width && !opt->height;
    if (!object && ((tw < src->width && src->width < 2) || (th < src->height && src->height < 2)))
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT, "carve: cannot shrink a single pixel line");
    tsr_image *ov = opt->seams;
    if (ov) {
        if ((st = check_host_image(ctx, ov, "seam overlay")) != TSR_OK)
            return st;
        if (ov->width != src->width || ov->height != src->height || ov->depth != src->depth ||
            ov->channels != tsr_carve_overlay_channels(src->channels))
            return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT,
                             "carve: the seam overlay must be %dx%d with %d channels and the "
                             "input's depth",
                             (int)src->width, (int)src->height,
                             (int)tsr_carve_overlay_channels(src->channels));
    }

    tsr_backend b;
    if ((st = tsr__carve_choose(ctx, "carve", src, &b)) != TSR_OK)
        return st;
    carve_job j;
    memset(&j, 0, sizeof j);
    j.ctx = ctx;
    make_pass(ctx, opt, b, &j.proto);
    if (b == TSR_BACKEND_CUDA && !ov && !opt->keep && !opt->drop && th == src->height &&
        tw < src->width)
        return carve_resident(&j, src, dst, opt->report);
    if (ov) {
        size_t n = (size_t)src->width * (size_t)src->height;
        void *mem;
        if ((st = tsr__alloc(ctx, n, &mem)) != TSR_OK)
            return st;
        j.marks = mem;
        memset(j.marks, 0, n);
    }
    if ((st = make_grid(ctx, src, opt, ov != NULL, j.proto.threads, &j.g)) != TSR_OK)
        goto done;
    const int32_t dv = tw - src->width, dh = th - src->height;
    if (object) {
        st = remove_object(&j, opt->drop);
    } else if (opt->order == TSR_CARVE_OPTIMAL && dv < 0 && dh < 0) {
        st = carve_optimal(&j, -dh, -dv);
    } else {
        int height_first = opt->order == TSR_CARVE_HEIGHT_FIRST ||
                           (opt->order == TSR_CARVE_OPTIMAL && dh < 0 && dv >= 0);
        if ((st = carve_side(&j, height_first, height_first ? dh : dv, 0, NULL)) == TSR_OK)
            st = carve_side(&j, !height_first, height_first ? dv : dh, 0, NULL);
    }
    if (st != TSR_OK)
        goto done;
    if (j.g.w != tw || j.g.h != th) {
        st = tsr__fail(ctx, TSR_ERR_INTERNAL, "carve: ended at %dx%d instead of %dx%d", (int)j.g.w,
                       (int)j.g.h, (int)tw, (int)th);
        goto done;
    }
    for (int32_t y = 0; y < th; y++)
        memcpy((uint8_t *)dst->data + (size_t)y * dst->stride,
               j.g.pix + (size_t)y * (size_t)j.g.pitch * j.g.px, (size_t)tw * j.g.px);
    if (ov)
        paint_overlay(src, j.marks, ov);
    if (opt->report)
        *opt->report = j.rep;
done:
    tsr__carve_grid_free(ctx, &j.g);
    tsr__free(ctx, j.marks);
    return st;
}

tsr_status tsr_carve_map(tsr_ctx *ctx, const tsr_image *src, const tsr_carve_options *opt,
                         tsr_image *map)
{
    tsr_status st = tsr__enter(ctx);
    if (st != TSR_OK)
        return st;
    if ((st = check_source(ctx, src, opt)) != TSR_OK ||
        (st = check_host_image(ctx, map, "seam-order map")) != TSR_OK)
        return st;
    if (map->width != src->width || map->height != src->height || map->depth != TSR_U16 ||
        map->channels != 1)
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT,
                         "carve: the seam-order map must be 16-bit, one channel, %dx%d",
                         (int)src->width, (int)src->height);
    if (src->width < 2)
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT,
                         "carve: a 1-column image has no seam to order");
    const int32_t wmin = opt && opt->width > 0 && opt->width < src->width ? opt->width : 1;
    const int32_t n = src->width - wmin, h = src->height;
    tsr_backend b;
    if ((st = tsr__carve_choose(ctx, "carve map", src, &b)) != TSR_OK)
        return st;
    tsr__carve_grid g;
    tsr__carve_pass p;
    make_pass(ctx, opt, b, &p);
    p.mode = TSR_CARVE_EXACT;
    uint32_t *rec = NULL;
    size_t bytes;
    void *mem;
    if (!tsr__size_mul3((size_t)n, (size_t)h, sizeof *rec, &bytes))
        return tsr__fail(ctx, TSR_ERR_OVERFLOW, "carve: seam-order map overflows");
    if ((st = tsr__alloc(ctx, bytes, &mem)) != TSR_OK)
        return st;
    rec = mem;
    if ((st = make_grid(ctx, src, opt, 1, p.threads, &g)) != TSR_OK)
        goto done;
    for (int32_t y = 0; y < h; y++)
        for (int32_t x = 0; x < g.w; x++)
            g.index[(size_t)y * (size_t)g.pitch + (size_t)x] = (uint32_t)x;
    p.record = rec;
    if ((st = tsr__carve_remove_seams(ctx, &g, n, &p)) != TSR_OK)
        goto done;
    for (int32_t y = 0; y < h; y++) {
        uint16_t *row = (uint16_t *)((uint8_t *)map->data + (size_t)y * map->stride);
        for (int32_t x = 0; x < src->width; x++)
            row[x] = 65535;
        for (int32_t s = 0; s < n; s++)
            row[rec[(size_t)s * (size_t)h + (size_t)y]] = (uint16_t)s;
    }
done:
    tsr__carve_grid_free(ctx, &g);
    tsr__free(ctx, rec);
    return st;
}

tsr_status tsr_carve_retarget(tsr_ctx *ctx, const tsr_image *src, const tsr_image *map,
                              tsr_image *dst)
{
    tsr_status st = tsr__enter(ctx);
    if (st != TSR_OK)
        return st;
    if ((st = check_source(ctx, src, NULL)) != TSR_OK ||
        (st = check_host_image(ctx, map, "seam-order map")) != TSR_OK ||
        (st = check_host_image(ctx, dst, "output image")) != TSR_OK)
        return st;
    if (map->width != src->width || map->height != src->height || map->depth != TSR_U16 ||
        map->channels != 1)
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT,
                         "carve: the seam-order map is not a 16-bit gray %dx%d image",
                         (int)src->width, (int)src->height);
    if (dst->height != src->height || dst->width > src->width || dst->channels != src->channels ||
        dst->depth != src->depth)
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT,
                         "carve: a map retargets to a width of at most %d at height %d",
                         (int)src->width, (int)src->height);
    const uint32_t threshold = (uint32_t)(src->width - dst->width);
    const size_t px = (size_t)src->channels * tsr_depth_size(src->depth);
    for (int32_t y = 0; y < src->height; y++) {
        const uint16_t *m =
            (const uint16_t *)((const uint8_t *)map->data + (size_t)y * map->stride);
        const uint8_t *s = (const uint8_t *)src->data + (size_t)y * src->stride;
        uint8_t *d = (uint8_t *)dst->data + (size_t)y * dst->stride;
        int32_t o = 0;
        for (int32_t x = 0; x < src->width; x++)
            if (m[x] >= threshold) {
                if (o == dst->width) {
                    o++;
                    break;
                }
                memcpy(d + (size_t)o * px, s + (size_t)x * px, px);
                o++;
            }
        if (o != dst->width)
            return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT,
                             "carve: the seam-order map does not retarget row %d to width %d "
                             "(made for another image, or for wider targets only)",
                             (int)y, (int)dst->width);
    }
    return TSR_OK;
}
