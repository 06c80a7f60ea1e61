/* The explicit operator's coefficient design, one table row at a time.
 *
 * For p = w dz / v and r = dz / dx the ideal one-step operator is, at horizontal wavenumber
 * k = kx dx in [0, pi],
 *   E(k) = exp(i sqrt(p^2 - r^2 k^2))    where r k <= p (propagating),
 *   E(k) = exp(-sqrt(r^2 k^2 - p^2))     beyond (evanescent: decays).
 * The operator applied is G = sum_{n<N} c_n T_n(X) with X = 1 - (2 / lambda_max) lambda(k), where
 * lambda(k) = -D2's symbol (the radius-4 filter, monotonic on [0, pi]), so G is a polynomial in X
 * and its response at k is sum c_n T_n(X(k)). Because the target is written in k through the
 * filter's own symbol, the filter's error at high k is part of the fit, not left over.
 *
 * Design (weighted least squares with a damping constraint, Soubaras 1996 in spirit):
 *  1. Fit points: NFIT wavenumbers uniform in [0, pi]. Weight 1 on the accurate band, propagation
 *     angles up to TSR__MIG_ANGLE_DEG (sin(theta) = r k / p); weight 0 for steeper propagating
 *     waves (only the constraint below applies there); on the evanescent side the target is the
 *     decay exp(-sqrt(r^2 k^2 - p^2)) itself, with weight EVANESCENT_WEIGHT where the decay
 *     exponent exceeds EVANESCENT_GAP and TRANSITION_WEIGHT just past the critical angle. The
 *     small transition weight makes evanescent waves decay instead of leaving them a free phase:
 *     without it they leak through many steps and the impulse response at 45-55 degrees lands
 *     one to two cells short; with it the band error grows from 0.8% to 2.4% at 60 degrees.
 *  2. Solve the normal equations (Cholesky, real and imaginary parts share the matrix).
 *  3. Evaluate |G| on NCHECK points uniform in X over [-1, 1] and NCHECK uniform in k (dense
 *     near X = +-1, where a small p puts the whole band); while some exceed 1, add the
 *     PER_ITER worst as constraint points with target G / |G| * (1 - 1e-3) and weight
 *     CONSTRAINT_WEIGHT, and solve again (at most ITERS times).
 *  4. Scale c so that max |G| on NFINAL points uniform in X (and the NCHECK in k) is at most
 *     1 - MARGIN. Between two
 *     points |G| exceeds its value at the nearer one by at most max|G''| h^2 / 8 <= 8e-6 (Markov:
 *     |T_15''| <= 15^2 (15^2 - 1) / 3, h = 2 / 32000), and storing c in float moves G by about
 *     1e-7: the margin covers both.
 * With N = 16 terms the error |G - E| stays below 2.4% up to 60 degrees and 1.2% up to 45
 * degrees for every p up to pi and dz <= dx, the largest p of the default band (fmax = vmin / (2
 * max(dx, dz)) gives p <= pi dz / max(dx, dz)); beyond, the fit loosens but |G| <= 1 still holds
 * (test_migrate_plan measures both).
 *
 * 3D (Laplacian synthesis): X = 1 - 2 (lambda(kx dx) + rho lambda(ky dy)) / (lambda_max (1 + rho))
 * with rho = dx^2 / dy^2 (extrap_hd.h). X depends on the two wavenumbers through the sum of the
 * two 1D symbols only, and that sum stands for |k|^2 dx^2: exactly so where the filter is exact,
 * but at high wavenumbers lambda(k) < k^2 by an amount that depends on the azimuth (at |k| dx =
 * 2.2 the sum is 0.94 |k|^2 dx^2 along an axis and 0.994 along the diagonal), so no one
 * polynomial in X fits every azimuth there. The fit therefore runs over NAZIMUTH azimuths phi =
 * 0, 15, .., 90 degrees at once, on each q = |k| dx from 0 to where kx dx or ky dy reaches pi,
 * each point at its own X (from both symbols) with the target of steps 1-4 written in |k|
 * (E = exp(i sqrt(p^2 - r^2 q^2)) and its decay): least squares shares the anisotropy out between
 * the azimuths. The stability steps 3-4 check and scale over X as in 2D, so |G| <= 1 over the
 * whole spectrum of the slice. X's propagating band is also narrower than in 2D (the same |k|
 * moves X half as far when dy = dx), so the 16 terms fit it less tightly: within the default 3D
 * band (plan.c: fmax = vmin / (3 max(dx, dy, dz)), p <= 2 pi / 3 for dz = dx) the measured error
 * |G - E| is at most 0.018 up to 45 degrees and 0.037 up to 60, the same along an axis and along
 * the diagonal (test_migrate_3d); at the 2D band's p = pi the axes and diagonals drift apart (0.2
 * at 60 degrees), which is why the 3D default band stops lower. */
#include "migrate/plan.h"

#include <math.h>
#include <string.h>

enum { NFIT = 401, NCHECK = 1001, NFINAL = 32001, ITERS = 30, PER_ITER = 20 };
#define EVANESCENT_WEIGHT 0.05
#define EVANESCENT_GAP 1.0
#define TRANSITION_WEIGHT 0.002
#define CONSTRAINT_WEIGHT 9.0
#define MARGIN 2e-5

#define N TSR__MIG_TERMS

double tsr__migrate_filter_symbol(const float d2[5], double k)
{
    double s = d2[0];
    for (int m = 1; m <= 4; m++)
        s += 2.0 * d2[m] * cos(m * k);
    return -s;
}

static void cheb_basis(double x, double t[N])
{
    t[0] = 1.0;
    t[1] = x;
    for (int n = 2; n < N; n++)
        t[n] = 2.0 * x * t[n - 1] - t[n - 2];
}

/* Adds weight * t t^T to the normal matrix and weight * t * target to the right-hand sides. */
static void accumulate(double a[N][N], double bre[N], double bim[N], const double t[N],
                       double weight, double tre, double tim)
{
    for (int i = 0; i < N; i++) {
        for (int j = 0; j < N; j++)
            a[i][j] += weight * t[i] * t[j];
        bre[i] += weight * t[i] * tre;
        bim[i] += weight * t[i] * tim;
    }
}

/* Solves a x = b for the symmetric positive definite a (Cholesky; a small ridge keeps it
 * definite), for both right-hand sides. Returns 0 when the matrix is not definite. */
static int solve(const double a_in[N][N], const double bre[N], const double bim[N], double xre[N],
                 double xim[N])
{
    double l[N][N];
    memset(l, 0, sizeof l);
    double ridge = 0;
    for (int i = 0; i < N; i++)
        ridge += a_in[i][i];
    ridge *= 1e-13;
    for (int i = 0; i < N; i++)
        for (int j = 0; j <= i; j++) {
            double s = a_in[i][j] + (i == j ? ridge : 0.0);
            for (int k = 0; k < j; k++)
                s -= l[i][k] * l[j][k];
            if (i == j) {
                if (!(s > 0))
                    return 0;
                l[i][i] = sqrt(s);
            } else {
                l[i][j] = s / l[j][j];
            }
        }
    for (int pass = 0; pass < 2; pass++) {
        const double *b = pass ? bim : bre;
        double *x = pass ? xim : xre, y[N];
        for (int i = 0; i < N; i++) {
            double s = b[i];
            for (int k = 0; k < i; k++)
                s -= l[i][k] * y[k];
            y[i] = s / l[i][i];
        }
        for (int i = N - 1; i >= 0; i--) {
            double s = y[i];
            for (int k = i + 1; k < N; k++)
                s -= l[k][i] * x[k];
            x[i] = s / l[i][i];
        }
    }
    return 1;
}

/* The fit's wavenumbers: 2D kx dx over [0, pi] with X from the filter's symbol; 3D (rho > 0)
 * NAZIMUTH azimuths phi from 0 to 90 degrees, on each q = |k| dx from 0 to where kx dx or ky dy
 * reaches pi, X from both symbols (kx = |k| cos(phi), ky = |k| sin(phi)). */
enum { NAZIMUTH = 7 };

typedef struct axis {
    const float *d2;
    double lmax, rho;
} axis;

/* Fit points of the design: NFIT, or NFIT per azimuth in 3D. */
static int fit_count(const axis *ax)
{
    return ax->rho > 0 ? NAZIMUTH * NFIT : NFIT;
}

/* Point i of n per azimuth (i < n: along x): its wavenumber k (kx dx, or |k| dx in 3D) and X. */
static void fit_point(const axis *ax, int i, int n, double *k, double *x)
{
    const double pi = 3.14159265358979323846;
    if (!(ax->rho > 0)) {
        *k = pi * i / (n - 1);
        *x = 1.0 - 2.0 * tsr__migrate_filter_symbol(ax->d2, *k) / ax->lmax;
        return;
    }
    const double phi = 0.5 * pi * (i / n) / (NAZIMUTH - 1), c = cos(phi), s = sin(phi);
    const double sr = sqrt(ax->rho); /* dx / dy: ky dy = |k| dx sin(phi) / sr */
    double qmax = c > 1e-12 ? pi / c : INFINITY;
    if (s > 1e-12 && pi * sr / s < qmax)
        qmax = pi * sr / s;
    const double q = qmax * (i % n) / (n - 1);
    *k = q;
    *x = 1.0 - 2.0 *
                   (tsr__migrate_filter_symbol(ax->d2, q * c) +
                    ax->rho * tsr__migrate_filter_symbol(ax->d2, q * s / sr)) /
                   (ax->lmax * (1.0 + ax->rho));
}

/* Check point q of 2 n: the first n uniform in X, the next n uniform in k (along x). */
static double check_point(const axis *ax, int q, int n)
{
    if (q < n)
        return -1.0 + 2.0 * q / (n - 1);
    double k, x;
    fit_point(ax, q - n, n, &k, &x);
    return x;
}

static double response_abs(const double cre[N], const double cim[N], double x, double *gre,
                           double *gim)
{
    double t[N], re = 0, im = 0;
    cheb_basis(x, t);
    for (int n = 0; n < N; n++) {
        re += cre[n] * t[n];
        im += cim[n] * t[n];
    }
    *gre = re;
    *gim = im;
    return hypot(re, im);
}

tsr_status tsr__migrate_design(tsr_ctx *ctx, const float d2[5], double r, double p, tsr__cf *c,
                               double *band_error)
{
    return tsr__migrate_design3(ctx, d2, r, 0.0, p, c, band_error);
}

tsr_status tsr__migrate_design3(tsr_ctx *ctx, const float d2[5], double r, double rho, double p,
                                tsr__cf *c, double *band_error)
{
    const double pi = 3.14159265358979323846;
    const double lmax = tsr__migrate_filter_symbol(d2, pi);
    const double sin_max = sin(TSR__MIG_ANGLE_DEG * pi / 180.0);
    if (!(lmax > 0) || !(r > 0) || !(p >= 0) || !isfinite(p) || !(rho >= 0) || !isfinite(rho))
        return tsr__fail(ctx, TSR_ERR_INTERNAL, "migrate: bad coefficient design input");
    const axis ax = {d2, lmax, rho};
    double a[N][N], bre[N], bim[N], t[N];
    memset(a, 0, sizeof a);
    memset(bre, 0, sizeof bre);
    memset(bim, 0, sizeof bim);
    for (int f = 0; f < fit_count(&ax); f++) {
        double k, x;
        fit_point(&ax, f, NFIT, &k, &x);
        double kz2 = p * p - r * r * k * k;
        double w = 0, tre = 0, tim = 0;
        if (kz2 >= 0 && r * k <= sin_max * p) {
            w = 1.0;
            tre = cos(sqrt(kz2));
            tim = sin(sqrt(kz2));
        } else if (kz2 < 0) {
            w = sqrt(-kz2) > EVANESCENT_GAP ? EVANESCENT_WEIGHT : TRANSITION_WEIGHT;
            tre = exp(-sqrt(-kz2));
        }
        if (w > 0) {
            cheb_basis(x, t);
            accumulate(a, bre, bim, t, w, tre, tim);
        }
    }
    double cre[N], cim[N];
    for (int it = 0;; it++) {
        if (!solve(a, bre, bim, cre, cim))
            return tsr__fail(ctx, TSR_ERR_INTERNAL,
                             "migrate: coefficient design is singular at w dz / v = %g", p);
        if (it == ITERS)
            break;
        /* the PER_ITER largest |G| > 1 on the check grid */
        double worst_x[PER_ITER], worst_m[PER_ITER];
        int nworst = 0;
        for (int q = 0; q < 2 * NCHECK; q++) {
            double x = check_point(&ax, q, NCHECK), gre, gim;
            double m = response_abs(cre, cim, x, &gre, &gim);
            if (!(m > 1.0))
                continue;
            int at;
            if (nworst < PER_ITER)
                at = nworst++;
            else if (m > worst_m[PER_ITER - 1])
                at = PER_ITER - 1;
            else
                continue;
            worst_x[at] = x;
            worst_m[at] = m;
            for (int s = at; s > 0 && worst_m[s] > worst_m[s - 1]; s--) {
                double tx = worst_x[s], tm = worst_m[s];
                worst_x[s] = worst_x[s - 1];
                worst_m[s] = worst_m[s - 1];
                worst_x[s - 1] = tx;
                worst_m[s - 1] = tm;
            }
        }
        if (nworst == 0)
            break;
        for (int s = 0; s < nworst; s++) {
            double gre, gim;
            double m = response_abs(cre, cim, worst_x[s], &gre, &gim);
            cheb_basis(worst_x[s], t);
            accumulate(a, bre, bim, t, CONSTRAINT_WEIGHT, gre / m * (1 - 1e-3),
                       gim / m * (1 - 1e-3));
        }
    }
    double mmax = 0;
    for (int q = 0; q < NFINAL + NCHECK; q++) {
        double x = q < NFINAL ? -1.0 + 2.0 * q / (NFINAL - 1)
                              : check_point(&ax, q - NFINAL + NCHECK, NCHECK);
        double gre, gim, m = response_abs(cre, cim, x, &gre, &gim);
        if (m > mmax)
            mmax = m;
    }
    double scale = mmax > 1.0 - MARGIN ? (1.0 - MARGIN) / mmax : 1.0;
    for (int n = 0; n < N; n++) {
        c[n].re = (float)(cre[n] * scale);
        c[n].im = (float)(cim[n] * scale);
        cre[n] = c[n].re;
        cim[n] = c[n].im;
    }
    if (band_error) {
        double err = 0;
        for (int f = 0; f < fit_count(&ax); f++) {
            double k, x, gre, gim;
            fit_point(&ax, f, NFIT, &k, &x);
            double kz2 = p * p - r * r * k * k;
            if (!(kz2 >= 0 && r * k <= sin_max * p))
                continue;
            response_abs(cre, cim, x, &gre, &gim);
            double e = hypot(gre - cos(sqrt(kz2)), gim - sin(sqrt(kz2)));
            if (e > err)
                err = e;
        }
        *band_error = err;
    }
    return TSR_OK;
}
