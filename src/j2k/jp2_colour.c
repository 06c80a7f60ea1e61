/* JP2 colour conversions of decoded planes to sRGB: sYCC / e-sYCC and restricted ICC profiles
 * (contracts in jp2_colour.h). */
#include "j2k/jp2_colour.h"
#include "core/ctx.h"

#include <math.h>

void tsr__jp2_sycc_to_rgb(const tsr_j2k_plane src[3], tsr_j2k_plane dst[3], int threads)
{
    const tsr_j2k_plane *y = &src[0], *u = &src[1], *v = &src[2];
    const int32_t half = (int32_t)1 << (y->precision - 1);
    const int32_t maxv = (int32_t)(((int64_t)1 << y->precision) - 1);
    const int32_t off_u = u->is_signed ? 0 : half, off_v = v->is_signed ? 0 : half;
    (void)threads;
    int64_t h = y->height;
#pragma omp parallel for schedule(static) num_threads(threads) if (threads > 1 && h > 64)
    for (int64_t yy = 0; yy < h; yy++) {
        /* the chroma row whose grid cell holds this luma row, clamped to the plane */
        const uint64_t Y = (uint64_t)(y->y0 + (uint32_t)yy) * y->dy;
        int64_t uy = (int64_t)(Y / u->dy) - u->y0, vy = (int64_t)(Y / v->dy) - v->y0;
        uy = uy < 0 ? 0 : uy >= u->height ? (int64_t)u->height - 1 : uy;
        vy = vy < 0 ? 0 : vy >= v->height ? (int64_t)v->height - 1 : vy;
        const int32_t *ly = y->data + (size_t)yy * y->stride;
        const int32_t *lu = u->height && u->width ? u->data + (size_t)uy * u->stride : NULL;
        const int32_t *lv = v->height && v->width ? v->data + (size_t)vy * v->stride : NULL;
        int32_t *o[3];
        for (int c = 0; c < 3; c++)
            o[c] = dst[c].data + (size_t)yy * dst[c].stride;
        for (uint32_t x = 0; x < y->width; x++) {
            const uint64_t X = (uint64_t)(y->x0 + x) * y->dx;
            int64_t ux = (int64_t)(X / u->dx) - u->x0, vx = (int64_t)(X / v->dx) - v->x0;
            ux = ux < 0 ? 0 : ux >= u->width ? (int64_t)u->width - 1 : ux;
            vx = vx < 0 ? 0 : vx >= v->width ? (int64_t)v->width - 1 : vx;
            float fy = (float)ly[x];
            float cb = lu ? (float)(lu[ux] - off_u) : 0.0f;
            float cr = lv ? (float)(lv[vx] - off_v) : 0.0f;
            float rgb[3] = {fy + 1.402f * cr, fy - 0.344136f * cb - 0.714136f * cr,
                            fy + 1.772f * cb};
            for (int c = 0; c < 3; c++) {
                long q = lrintf(rgb[c]);
                o[c][x] = (int32_t)(q < 0 ? 0 : q > maxv ? maxv : q);
            }
        }
    }
}

/* Linear sRGB in [0, 1] to its encoded value (IEC 61966-2-1 5.2). */
static double srgb_encode(double l)
{
    return l <= 0.0031308 ? 12.92 * l : 1.055 * pow(l, 1 / 2.4) - 0.055;
}

tsr_status tsr__jp2_icc_to_srgb(tsr_ctx *ctx, const tsr__icc *icc, tsr_j2k_plane p[3],
                                uint32_t prec, int threads)
{
    const uint32_t n = (uint32_t)1 << prec, nch = icc->channels;
    const double maxv = (double)(n - 1);
    double *lut; /* nch tables of n: the curve at each device value */
    tsr_status st = tsr__alloc(ctx, (size_t)nch * n * sizeof *lut, (void **)&lut);
    if (st)
        return st;
    for (uint32_t c = 0; c < nch; c++)
        for (uint32_t v = 0; v < n; v++)
            lut[(size_t)c * n + v] = tsr__icc_curve_eval(&icc->trc[c], v / maxv);
    (void)threads;
    int64_t h = p[0].height;
#pragma omp parallel for schedule(static) num_threads(threads) if (threads > 1 && h > 64)
    for (int64_t y = 0; y < h; y++) {
        int32_t *row[3];
        for (int c = 0; c < 3; c++)
            row[c] = p[c].data + (size_t)y * p[c].stride;
        for (uint32_t x = 0; x < p[0].width; x++) {
            double lin[3];
            for (uint32_t c = 0; c < nch; c++) {
                int32_t v = row[c][x];
                v = v < 0 ? 0 : (uint32_t)v >= n ? (int32_t)(n - 1) : v;
                lin[c] = lut[(size_t)c * n + (uint32_t)v];
            }
            for (int o = 0; o < 3; o++) {
                double l = 0;
                for (uint32_t c = 0; c < nch; c++)
                    l += icc->to_srgb[o][c] * lin[c];
                l = l > 0 ? (l < 1 ? l : 1) : 0;
                row[o][x] = (int32_t)floor(srgb_encode(l) * maxv + 0.5);
            }
        }
    }
    tsr__free(ctx, lut);
    return TSR_OK;
}
