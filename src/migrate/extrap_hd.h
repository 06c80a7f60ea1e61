/* The explicit extrapolator's arithmetic, written once for every backend: TSR_HD functions
 * (core/hd.h) of one grid point (a device kernel runs one per thread) and the row loops the CPU
 * backends run over them. Complex samples are {re, im} float pairs (the layout of fftwf_complex
 * and of CUDA's float2).
 *
 * One depth step of the explicit operator on a row u of nx samples (one frequency):
 *   X u = u + xscale * D2 u, D2 the radius-4 second-derivative filter with u = 0 outside the row
 *   (so X is a symmetric matrix), xscale = 2 / lambda_max, which maps D2's spectrum onto [-1, 1];
 *   T_0 u = u, T_1 u = X u, T_{n+1} u = 2 X T_n u - T_{n-1} u (Chebyshev recurrence);
 *   (G u)(i) = sum_n c_n(p_i) (T_n u)(i), p_i = w dz s_i, c_n linear in p between table rows.
 * The adjoint G^H u = sum_n T_n (conj(c_n) u) runs Clenshaw's recurrence.
 *
 * 3D (a depth slice of ny rows of nx, x fastest): X u = u + xscale D2x u + xscale_y D2y u, the
 * same filter along x and along y (Laplacian synthesis: a radius-4 cross), xscale =
 * 2 / (lambda_max (1 + rho)), xscale_y = rho xscale, rho = dx^2 / dy^2, so that X's spectrum is
 * again [-1, 1]; everything else is the 2D step over the slice's nx ny points. */
#ifndef TSR_MIGRATE_EXTRAP_HD_H
#define TSR_MIGRATE_EXTRAP_HD_H

#include "core/hd.h"

#include <stdint.h>

typedef struct tsr__cf {
    float re, im;
} tsr__cf;

TSR_HD tsr__cf tsr__cf_make(float re, float im)
{
    tsr__cf r;
    r.re = re;
    r.im = im;
    return r;
}

/* c * t, or conj(c) * t when conj. */
TSR_HD tsr__cf tsr__cf_mul(tsr__cf c, tsr__cf t, int conj)
{
    float ci = conj ? -c.im : c.im;
    return tsr__cf_make(c.re * t.re - ci * t.im, c.re * t.im + ci * t.re);
}

/* (X u)(i), u = 0 outside [0, nx). The neighbour pairs are summed first, then weighted, in the
 * same order on every backend. */
TSR_HD tsr__cf tsr__mig_x_at(const tsr__cf *u, int32_t i, int32_t nx, const float d2[5],
                             float xscale)
{
    float ar = d2[0] * u[i].re, ai = d2[0] * u[i].im;
    for (int32_t m = 1; m <= 4; m++) {
        float lr = 0.0f, li = 0.0f;
        if (i - m >= 0) {
            lr += u[i - m].re;
            li += u[i - m].im;
        }
        if (i + m < nx) {
            lr += u[i + m].re;
            li += u[i + m].im;
        }
        ar += d2[m] * lr;
        ai += d2[m] * li;
    }
    return tsr__cf_make(u[i].re + xscale * ar, u[i].im + xscale * ai);
}

/* (X u)(i) for 4 <= i < nx - 4: the same operations as tsr__mig_x_at (0 + a + b is a + b
 * exactly), without the edge tests. */
TSR_HD tsr__cf tsr__mig_x_interior(const tsr__cf *u, int32_t i, const float d2[5], float xscale)
{
    float ar = d2[0] * u[i].re, ai = d2[0] * u[i].im;
    for (int32_t m = 1; m <= 4; m++) {
        ar += d2[m] * (u[i - m].re + u[i + m].re);
        ai += d2[m] * (u[i - m].im + u[i + m].im);
    }
    return tsr__cf_make(u[i].re + xscale * ar, u[i].im + xscale * ai);
}

/* out = X u over the whole row (out and u distinct). */
TSR_HD void tsr__mig_x_row(const tsr__cf *u, tsr__cf *out, int32_t nx, const float d2[5],
                           float xscale)
{
    int32_t lo = nx < 4 ? nx : 4, hi = nx - 4 > lo ? nx - 4 : lo;
    for (int32_t i = 0; i < lo; i++)
        out[i] = tsr__mig_x_at(u, i, nx, d2, xscale);
    for (int32_t i = lo; i < hi; i++)
        out[i] = tsr__mig_x_interior(u, i, d2, xscale);
    for (int32_t i = hi; i < nx; i++)
        out[i] = tsr__mig_x_at(u, i, nx, d2, xscale);
}

/* (X u)(ix, iy) of a slice (ny rows of nx, x fastest), u = 0 outside: each pair of neighbours
 * at distance m along x (and along y) summed as left + right, a neighbour outside the slice as
 * +0 (so a kernel on a tile padded with zeros performs the same operations, signed zeros
 * included), the pairs weighted and summed in m order, then u + xscale (x part) + xscale_y
 * (y part). interior: 4 <= ix < nx - 4 and 4 <= iy < ny - 4, or u a tile holding 0 outside the
 * slice: no edge tests. */
TSR_HD tsr__cf tsr__mig_x3_point(const tsr__cf *u, int32_t ix, int32_t iy, int32_t nx, int32_t ny,
                                 const float d2[5], float xscale, float xscale_y, int interior)
{
    const int64_t i = (int64_t)iy * nx + ix;
    const tsr__cf zero = tsr__cf_make(0.0f, 0.0f);
    float xr = d2[0] * u[i].re, xi = d2[0] * u[i].im;
    float yr = xr, yi = xi;
    for (int32_t m = 1; m <= 4; m++) {
        const int64_t my = (int64_t)m * nx;
        const tsr__cf l = interior || ix - m >= 0 ? u[i - m] : zero;
        const tsr__cf r = interior || ix + m < nx ? u[i + m] : zero;
        const tsr__cf d = interior || iy - m >= 0 ? u[i - my] : zero;
        const tsr__cf t = interior || iy + m < ny ? u[i + my] : zero;
        xr += d2[m] * (l.re + r.re);
        xi += d2[m] * (l.im + r.im);
        yr += d2[m] * (d.re + t.re);
        yi += d2[m] * (d.im + t.im);
    }
    return tsr__cf_make(u[i].re + xscale * xr + xscale_y * yr,
                        u[i].im + xscale * xi + xscale_y * yi);
}

/* out = X u over a whole slice (out and u distinct). */
TSR_HD void tsr__mig_x3_slice(const tsr__cf *u, tsr__cf *out, int32_t nx, int32_t ny,
                              const float d2[5], float xscale, float xscale_y)
{
    for (int32_t iy = 0; iy < ny; iy++) {
        const int inner_row = iy >= 4 && iy < ny - 4;
        tsr__cf *o = out + (int64_t)iy * nx;
        for (int32_t ix = 0; ix < nx; ix++)
            o[ix] = tsr__mig_x3_point(u, ix, iy, nx, ny, d2, xscale, xscale_y,
                                      inner_row && ix >= 4 && ix < nx - 4);
    }
}

/* Table position of p = w dz s: row j and weight a of row j + 1, clamped to the table. */
TSR_HD void tsr__mig_lookup(float p, float inv_dp, int32_t ntable, int32_t *j, float *a)
{
    float f = p * inv_dp;
    if (!(f > 0.0f))
        f = 0.0f;
    int32_t r = (int32_t)f;
    if (r >= ntable - 1) {
        *j = ntable - 2;
        *a = 1.0f;
        return;
    }
    *j = r;
    *a = f - (float)r;
}

/* c_n at table position (j, a): rows j and j + 1 mixed linearly. A mix of two polynomials each
 * bounded by 1 on [-1, 1] is bounded by 1 too, so the interpolation keeps the step stable. */
TSR_HD tsr__cf tsr__mig_coef(const tsr__cf *table, int32_t terms, int32_t j, float a, int32_t n)
{
    tsr__cf c0 = table[(int64_t)j * terms + n], c1 = table[(int64_t)(j + 1) * terms + n];
    float b = 1.0f - a;
    return tsr__cf_make(b * c0.re + a * c1.re, b * c0.im + a * c1.im);
}

/* acc + c * t (conj as in tsr__cf_mul) */
TSR_HD tsr__cf tsr__cf_madd(tsr__cf acc, tsr__cf c, tsr__cf t, int conj)
{
    tsr__cf m = tsr__cf_mul(c, t, conj);
    return tsr__cf_make(acc.re + m.re, acc.im + m.im);
}

/* One Chebyshev recurrence term at a point: T_{n+1} = 2 (X T_n) - T_{n-1}, x = (X T_n)(i). */
TSR_HD tsr__cf tsr__mig_cheb_next(tsr__cf x, tsr__cf prev)
{
    return tsr__cf_make(2.0f * x.re - prev.re, 2.0f * x.im - prev.im);
}

/* One Clenshaw term at a point: conj'(c_k) u + 2 x - b2 for k >= 1, conj'(c_0) u + x - b2 for
 * k = 0 (the last), x = (X b_{k+1})(i), b2 = b_{k+2}(i); cj is conj'. */
TSR_HD tsr__cf tsr__mig_clenshaw_at(const tsr__cf *table, int32_t terms, int32_t j, float a,
                                    int32_t k, tsr__cf u, tsr__cf x, tsr__cf b2, int cj)
{
    tsr__cf v = tsr__cf_mul(tsr__mig_coef(table, terms, j, a, k), u, cj);
    if (k == 0)
        return tsr__cf_make(v.re + x.re - b2.re, v.im + x.im - b2.im);
    return tsr__cf_make(v.re + 2.0f * x.re - b2.re, v.im + 2.0f * x.im - b2.im);
}

/* s u for a real s (the taper's damping). */
TSR_HD tsr__cf tsr__cf_scale(float s, tsr__cf u)
{
    return tsr__cf_make(s * u.re, s * u.im);
}

/* Everything one explicit step needs besides the rows. */
typedef struct tsr__mig_step {
    int32_t nx, terms, ntable;
    float d2[5];
    float xscale;
    float inv_dp;
    const tsr__cf *table;
    int32_t ny;     /* 0 or 1: 2D rows of nx; >= 2: slices of ny rows of nx */
    float xscale_y; /* 3D: the weight of D2y */
} tsr__mig_step;

/* Points of one row or slice. */
TSR_HD int32_t tsr__mig_points(const tsr__mig_step *st)
{
    return st->ny > 1 ? st->nx * st->ny : st->nx;
}

/* out = X u over a row (2D) or a slice (3D). */
TSR_HD void tsr__mig_x_apply(const tsr__mig_step *st, const tsr__cf *u, tsr__cf *out)
{
    if (st->ny > 1)
        tsr__mig_x3_slice(u, out, st->nx, st->ny, st->d2, st->xscale, st->xscale_y);
    else
        tsr__mig_x_row(u, out, st->nx, st->d2, st->xscale);
}

/* Row position lookups for one depth and frequency: p_i = w dz s_i. */
TSR_HD void tsr__mig_lookup_row(const tsr__mig_step *st, const float *slow, float wdz, int32_t *j,
                                float *a)
{
    const int32_t n = tsr__mig_points(st);
    for (int32_t i = 0; i < n; i++)
        tsr__mig_lookup(wdz * slow[i], st->inv_dp, st->ntable, &j[i], &a[i]);
}

/* u <- taper * G u (conj: conj(c_n), the source's downgoing step) over a row or a slice
 * (tsr__mig_points). w0, w1, w2 and acc are scratch of as many samples. */
TSR_HD void tsr__mig_explicit_row(const tsr__mig_step *st, tsr__cf *u, const int32_t *j,
                                  const float *a, const float *taper, int conj, tsr__cf *w0,
                                  tsr__cf *w1, tsr__cf *w2, tsr__cf *acc)
{
    const int32_t np = tsr__mig_points(st);
    tsr__mig_x_apply(st, u, w0);
    for (int32_t i = 0; i < np; i++) {
        acc[i] = tsr__cf_mul(tsr__mig_coef(st->table, st->terms, j[i], a[i], 0), u[i], conj);
        acc[i] =
            tsr__cf_madd(acc[i], tsr__mig_coef(st->table, st->terms, j[i], a[i], 1), w0[i], conj);
    }
    tsr__cf *prev = u, *cur = w0, *next = w1;
    for (int32_t n = 2; n < st->terms; n++) {
        tsr__mig_x_apply(st, cur, next);
        for (int32_t i = 0; i < np; i++) {
            tsr__cf t = tsr__mig_cheb_next(next[i], prev[i]);
            next[i] = t;
            acc[i] =
                tsr__cf_madd(acc[i], tsr__mig_coef(st->table, st->terms, j[i], a[i], n), t, conj);
        }
        tsr__cf *old = prev; /* u (T_0) is read only until T_2 is made */
        prev = cur;
        cur = next;
        next = old == u ? w2 : old;
    }
    for (int32_t i = 0; i < np; i++)
        u[i] = tsr__cf_scale(taper[i], acc[i]);
}

/* u <- G^H (taper * u), the adjoint of tsr__mig_explicit_row with the same conj: Clenshaw's
 * recurrence b_k = conj'(c_k) u + 2 X b_{k+1} - b_{k+2}, result conj'(c_0) u + X b_1 - b_2, with
 * conj' the opposite of conj. */
TSR_HD void tsr__mig_explicit_adjoint_row(const tsr__mig_step *st, tsr__cf *u, const int32_t *j,
                                          const float *a, const float *taper, int conj, tsr__cf *b1,
                                          tsr__cf *b2, tsr__cf *bn)
{
    const int32_t np = tsr__mig_points(st);
    const int cj = !conj;
    for (int32_t i = 0; i < np; i++) {
        u[i] = tsr__cf_scale(taper[i], u[i]);
        b1[i] = tsr__cf_make(0.0f, 0.0f);
        b2[i] = b1[i];
    }
    for (int32_t k = st->terms - 1; k >= 1; k--) {
        tsr__mig_x_apply(st, b1, bn);
        for (int32_t i = 0; i < np; i++)
            bn[i] =
                tsr__mig_clenshaw_at(st->table, st->terms, j[i], a[i], k, u[i], bn[i], b2[i], cj);
        tsr__cf *t = b2;
        b2 = b1;
        b1 = bn;
        bn = t;
    }
    tsr__mig_x_apply(st, b1, bn);
    for (int32_t i = 0; i < np; i++)
        u[i] = tsr__mig_clenshaw_at(st->table, st->terms, j[i], a[i], 0, u[i], bn[i], b2[i], cj);
}

/* The imaging terms of one point, in float: Re(conj(s) r) and |s|^2. */
TSR_HD float tsr__mig_cross(tsr__cf s, tsr__cf r)
{
    return s.re * r.re + s.im * r.im;
}

TSR_HD float tsr__mig_power(tsr__cf s)
{
    return s.re * s.re + s.im * s.im;
}

/* Cross-correlation imaging of one point: image += Re(conj(s) r), illum += |s|^2. */
TSR_HD void tsr__mig_image_at(tsr__cf s, tsr__cf r, double *image, double *illum)
{
    *image += (double)tsr__mig_cross(s, r);
    *illum += (double)tsr__mig_power(s);
}

/* Modelling's secondary source at a point: q + refl s below the deepest row, refl s there. */
TSR_HD tsr__cf tsr__mig_scatter_at(tsr__cf q, float refl, tsr__cf s, int deepest)
{
    tsr__cf add = tsr__cf_scale(refl, s);
    return deepest ? add : tsr__cf_make(q.re + add.re, q.im + add.im);
}

#endif
