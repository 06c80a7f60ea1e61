/* The CPU resize's linear-exact path (OpenCV's INTER_LINEAR_EXACT): fixed-point horizontal rows
 * (raw, with the plan's fractional bits) and a vertical step with one rounding. */
#include "resize/resize_cpu_job.h"

/* Horizontal fixed-point row (raw, frac_bits fractional bits; fits in uint32 for u8 and u16). */
static void exact_hrow(const tsr__resize_plan *p, const tsr_image *src, int y, uint32_t *h)
{
    const int cn = p->cn, f = p->frac_bits, w = p->dst_w;
    const int32_t *xo = p->table[TSR__RT_XOFS];
    const uint32_t *xc = p->table[TSR__RT_XCOEF];
    const char *row = CROW(src, y);
    for (int dx = 0; dx < w; dx++)
        for (int c = 0; c < cn; c++) {
            uint32_t v;
            if (dx < p->xmin || dx >= p->xmax) {
                const int e = (dx < p->xmin ? 0 : p->src_w - 1) * cn + c;
                v = (uint32_t)(p->depth == TSR_U8 ? ((const uint8_t *)row)[e]
                                                  : ((const uint16_t *)row)[e])
                    << f;
            } else {
                const int e = xo[dx] * cn + c;
                uint32_t a =
                    p->depth == TSR_U8 ? ((const uint8_t *)row)[e] : ((const uint16_t *)row)[e];
                uint32_t b = p->depth == TSR_U8 ? ((const uint8_t *)row)[e + cn]
                                                : ((const uint16_t *)row)[e + cn];
                v = xc[2 * dx] * a + xc[2 * dx + 1] * b;
            }
            h[dx * cn + c] = v;
        }
}

/* One stripe of linear-exact; scratch: the two horizontal rows in use. */
static void exact_stripe(void *arg, int stripe, int slot)
{
    const cpu_job *job = arg;
    const tsr__resize_plan *p = job->p;
    const tsr_image *src = job->src;
    tsr_image *dst = job->dst;
    const int width = p->dst_w * p->cn, f = p->frac_bits;
    const int32_t *yo = p->table[TSR__RT_YOFS];
    const uint32_t *yc = p->table[TSR__RT_YCOEF];
    uint32_t *h[2] = {job_scratch(job, slot), NULL};
    h[1] = h[0] + width;
    int held[2] = {-1, -1}, y0, y1;
    job_rows(job, stripe, &y0, &y1);
    for (int dy = y0; dy < y1; dy++) {
        char *d = ROW(dst, dy);
        if (dy < p->ymin || dy >= p->ymax) {
            const int y = dy < p->ymin ? 0 : p->src_h - 1;
            if (held[0] != y) {
                exact_hrow(p, src, y, h[0]);
                held[0] = y;
            }
            for (int e = 0; e < width; e++) {
                uint64_t v = ((uint64_t)h[0][e] + (1u << (f - 1))) >> f;
                if (p->depth == TSR_U8)
                    ((uint8_t *)d)[e] = (uint8_t)(v > 255 ? 255 : v);
                else
                    ((uint16_t *)d)[e] = (uint16_t)(v > 65535 ? 65535 : v);
            }
            continue;
        }
        const int y = yo[dy];
        /* keep whichever of the two held rows is still needed */
        if (held[1] == y || held[0] == y + 1) {
            uint32_t *tp = h[0];
            h[0] = h[1];
            h[1] = tp;
            int ti = held[0];
            held[0] = held[1];
            held[1] = ti;
        }
        if (held[0] != y) {
            exact_hrow(p, src, y, h[0]);
            held[0] = y;
        }
        if (held[1] != y + 1) {
            exact_hrow(p, src, y + 1, h[1]);
            held[1] = y + 1;
        }
        const uint64_t c0 = yc[2 * dy], c1 = yc[2 * dy + 1], half = 1ull << (2 * f - 1);
        if (p->depth == TSR_U8) {
            for (int e = 0; e < width; e++) {
                uint64_t v = (c0 * h[0][e] + c1 * h[1][e] + half) >> 16;
                ((uint8_t *)d)[e] = (uint8_t)(v > 255 ? 255 : v);
            }
        } else {
            for (int e = 0; e < width; e++) {
                uint64_t v = (c0 * h[0][e] + c1 * h[1][e] + half) >> 32;
                ((uint16_t *)d)[e] = (uint16_t)(v > 65535 ? 65535 : v);
            }
        }
    }
}

tsr_status tsr__rcpu_linear_exact(tsr_ctx *ctx, const tsr__resize_plan *p, const tsr_image *src,
                                  tsr_image *dst)
{
    cpu_job job = {p, src, dst, 0, NULL, 0, 0, NULL};
    size_t per;
    if (!tsr__size_mul3((size_t)p->dst_w * p->cn, 2, sizeof(uint32_t), &per))
        return tsr__fail(ctx, TSR_ERR_OVERFLOW, "resize: row buffers overflow");
    return tsr__rcpu_run_rows(ctx, &job, per, exact_stripe);
}
