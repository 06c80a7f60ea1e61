/* The picture of a drawing (picture.h) as pixels: tsr_layout_render_size and tsr_layout_render.
 * Anti-aliased by coverage: a pixel at distance d from a stroke's centre line (or a dot's centre)
 * takes the stroke's colour with weight clamp(w/2 + 1/2 - d, 0, 1), w the stroke width in
 * pixels, blended over what lies beneath in drawing order. A stroke is visited along its major
 * axis, one pixel column (or row) at a time, so its cost is its length times its width. */
#include "layout/picture.h"

#include <math.h>
#include <string.h>

/* The frame [-margin, W + margin] x [-margin, H + margin] mapped onto the image. */
typedef struct frame {
    double scale, margin;
    int32_t width, height;
    uint8_t *data;
    size_t stride;
} frame;

static void frame_size(const tsr__picture *p, int32_t longest, int32_t *w, int32_t *h)
{
    double fw = p->width + 2 * p->margin, fh = p->height + 2 * p->margin;
    double scale = longest / (fw > fh ? fw : fh);
    *w = (int32_t)fmax(1, floor(fw * scale + 0.5));
    *h = (int32_t)fmax(1, floor(fh * scale + 0.5));
}

static void blend(const frame *f, int32_t x, int32_t y, uint8_t r, uint8_t g, uint8_t b, double a)
{
    if (x < 0 || y < 0 || x >= f->width || y >= f->height || !(a > 0))
        return;
    if (a > 1)
        a = 1;
    uint8_t *q = f->data + (size_t)y * f->stride + (size_t)x * 3;
    /* between the two colours, so in 0..255: + 0.5 rounds to nearest */
    q[0] = (uint8_t)(q[0] + (r - q[0]) * a + 0.5);
    q[1] = (uint8_t)(q[1] + (g - q[1]) * a + 0.5);
    q[2] = (uint8_t)(q[2] + (b - q[2]) * a + 0.5);
}

/* Distance from (px, py) to the segment (x0, y0)-(x1, y1). */
static double segment_distance(double px, double py, double x0, double y0, double x1, double y1)
{
    double dx = x1 - x0, dy = y1 - y0, len2 = dx * dx + dy * dy;
    double t = len2 > 0 ? ((px - x0) * dx + (py - y0) * dy) / len2 : 0;
    t = t < 0 ? 0 : t > 1 ? 1 : t;
    double ex = x0 + t * dx - px, ey = y0 + t * dy - py;
    return sqrt(ex * ex + ey * ey);
}

/* A stroke of width w pixels between two points in pixel coordinates (pixel (i, j) covers
 * [i, i+1) x [j, j+1)). */
static void stroke(const frame *f, double x0, double y0, double x1, double y1, double w, uint8_t r,
                   uint8_t g, uint8_t b)
{
    const double half = w / 2, reach = half + 1;
    const int steep = fabs(y1 - y0) > fabs(x1 - x0);
    /* along: the major axis; across: the minor one (swapped for steep strokes) */
    double a0 = steep ? y0 : x0, a1 = steep ? y1 : x1, c0 = steep ? x0 : y0, c1 = steep ? x1 : y1;
    if (a0 > a1) {
        double t = a0;
        a0 = a1, a1 = t;
        t = c0, c0 = c1, c1 = t;
    }
    const int32_t limit_a = steep ? f->height : f->width, limit_c = steep ? f->width : f->height;
    const double slope = a1 > a0 ? (c1 - c0) / (a1 - a0) : 0;
    const double across = reach * sqrt(1 + slope * slope);
    int32_t i_lo = (int32_t)fmax(0, floor(a0 - reach)),
            i_hi = (int32_t)fmin(limit_a - 1, ceil(a1 + reach));
    for (int32_t i = i_lo; i <= i_hi; i++) {
        double a = i + 0.5, t = a < a0 ? a0 : a > a1 ? a1 : a;
        double c = c0 + (t - a0) * slope;
        int32_t j_lo = (int32_t)fmax(0, floor(c - across)),
                j_hi = (int32_t)fmin(limit_c - 1, ceil(c + across));
        for (int32_t j = j_lo; j <= j_hi; j++) {
            double d = steep ? segment_distance(j + 0.5, a, x0, y0, x1, y1)
                             : segment_distance(a, j + 0.5, x0, y0, x1, y1);
            double cover = half + 0.5 - d;
            if (steep)
                blend(f, j, i, r, g, b, cover);
            else
                blend(f, i, j, r, g, b, cover);
        }
    }
}

static void dot(const frame *f, double cx, double cy, double radius, uint8_t r, uint8_t g,
                uint8_t b)
{
    int32_t x_lo = (int32_t)floor(cx - radius - 1), x_hi = (int32_t)ceil(cx + radius + 1);
    int32_t y_lo = (int32_t)floor(cy - radius - 1), y_hi = (int32_t)ceil(cy + radius + 1);
    for (int32_t y = y_lo < 0 ? 0 : y_lo; y <= y_hi && y < f->height; y++)
        for (int32_t x = x_lo < 0 ? 0 : x_lo; x <= x_hi && x < f->width; x++)
            blend(f, x, y, r, g, b, radius + 0.5 - hypot(x + 0.5 - cx, y + 0.5 - cy));
}

static tsr_status check_layout(tsr_ctx *ctx, const tsr_layout *l)
{
    if (!l)
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT, "layout: NULL drawing to render");
    return TSR_OK;
}

tsr_status tsr_layout_render_size(tsr_ctx *ctx, const tsr_layout *l, int32_t longest,
                                  int32_t *width, int32_t *height)
{
    tsr_status st = tsr__enter(ctx);
    if (st != TSR_OK || (st = check_layout(ctx, l)) != TSR_OK)
        return st;
    if (longest < 1 || longest > TSR_LAYOUT_MAX_PICTURE || !width || !height)
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT,
                         "layout: a picture's longer side is 1 to %d pixels, not %d",
                         TSR_LAYOUT_MAX_PICTURE, (int)longest);
    tsr__picture p;
    tsr__picture_geometry(l, &p);
    frame_size(&p, longest, width, height);
    return TSR_OK;
}

tsr_status tsr_layout_render(tsr_ctx *ctx, const tsr_layout *l, tsr_image *out)
{
    tsr_status st = tsr__enter(ctx);
    if (st != TSR_OK || (st = check_layout(ctx, l)) != TSR_OK)
        return st;
    if (!out || (st = tsr_image_check(ctx, out)) != TSR_OK)
        return out ? st
                   : tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT, "layout: no image to render into");
    if (out->channels != 3 || out->depth != TSR_U8 || out->memory != TSR_MEMORY_HOST)
        return tsr__fail(ctx, TSR_ERR_UNSUPPORTED,
                         "layout: pictures are rendered into 8-bit RGB host images");
    tsr__picture pic;
    if ((st = tsr__picture_make(ctx, l, &pic)) != TSR_OK)
        return st;
    double fw = pic.width + 2 * pic.margin, fh = pic.height + 2 * pic.margin;
    double sx = out->width / fw, sy = out->height / fh;
    frame f = {sx < sy ? sx : sy, pic.margin, out->width, out->height, out->data, out->stride};
    for (int32_t y = 0; y < out->height; y++)
        memset(f.data + (size_t)y * f.stride, 0xff, (size_t)out->width * 3);
#define PX(v) (((v) + f.margin) * f.scale)
    /* the canvas's border, light grey, one unit wide */
    const double W = pic.width, H = pic.height, u = pic.unit * f.scale;
    stroke(&f, PX(0), PX(0), PX(W), PX(0), u, 0xdd, 0xdd, 0xdd);
    stroke(&f, PX(W), PX(0), PX(W), PX(H), u, 0xdd, 0xdd, 0xdd);
    stroke(&f, PX(W), PX(H), PX(0), PX(H), u, 0xdd, 0xdd, 0xdd);
    stroke(&f, PX(0), PX(H), PX(0), PX(0), u, 0xdd, 0xdd, 0xdd);
    for (int32_t i = 0; i < l->num_edges; i++) {
        int32_t e = pic.order[i], a = l->edge_u[e], b = l->edge_v[e];
        tsr__edge_look look = tsr__picture_edge(&pic, e);
        stroke(&f, PX(l->x[a]), PX(l->y[a]), PX(l->x[b]), PX(l->y[b]), look.width * u, look.r,
               look.g, look.b);
    }
    for (int32_t v = 0; v < l->num_nodes; v++)
        dot(&f, PX(l->x[v]), PX(l->y[v]), TSR__PICTURE_NODE_RADIUS * u, TSR__PICTURE_NODE_RGB);
#undef PX
    tsr__picture_free(ctx, &pic);
    return TSR_OK;
}
