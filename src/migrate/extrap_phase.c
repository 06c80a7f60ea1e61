/* Phase-shift steps: Gazdag's (J. Gazdag, "Wave equation migration with the phase-shift method",
 * Geophysics 43, 1978): exact for a velocity that depends on depth only. 2D transforms a row of
 * nx samples padded to nxfft; 3D a depth slice of ny rows of nx padded to nyfft rows of nxfft
 * (one 2D transform over (x, y), fft->x_fwd and x_bwd). */
#include "migrate/extrap.h"

#include <math.h>
#include <string.h>

/* Points of the padded transform. */
static int32_t padded(const tsr__migrate_plan *plan)
{
    return plan->nxfft * plan->nyfft;
}

/* buf (padded) = u (ncols) at the origin corner, zeros elsewhere. */
static void pad_in(const tsr__migrate_plan *plan, const tsr__cf *u, tsr__cf *buf)
{
    const int32_t nx = plan->nx, nf = plan->nxfft;
    for (int32_t iy = 0; iy < plan->ny; iy++) {
        memcpy(buf + (size_t)iy * nf, u + (size_t)iy * nx, sizeof(tsr__cf) * (size_t)nx);
        memset(buf + (size_t)iy * nf + nx, 0, sizeof(tsr__cf) * (size_t)(nf - nx));
    }
    memset(buf + (size_t)plan->ny * nf, 0,
           sizeof(tsr__cf) * (size_t)(plan->nyfft - plan->ny) * (size_t)nf);
}

/* Index in the padded buffer of column c (c = iy * nx + ix). */
static size_t padded_at(const tsr__migrate_plan *plan, int32_t c)
{
    return plan->ny > 1 ? (size_t)(c / plan->nx) * (size_t)plan->nxfft + (size_t)(c % plan->nx)
                        : (size_t)c;
}

/* Wavenumber of transform bin m of n points spaced d apart. */
static double wavenumber(int32_t m, int32_t n, double d)
{
    const double pi = 3.14159265358979323846;
    return 2.0 * pi * (double)(m <= n / 2 ? m : m - n) / ((double)n * d);
}

/* out = in times the phase-shift multiplier of slowness s over dz (with the 1/n of the inverse
 * transform); in and out may be the same array. 3D: kz^2 = w^2 s^2 - kx^2 - ky^2. */
static void shift_spectrum(const tsr__migrate_plan *plan, double w, double s, int sign,
                           const tsr__cf *in, tsr__cf *out)
{
    const int32_t n = plan->nxfft, n_all = padded(plan);
    const double kw = w * s, dz = plan->dz;
    for (int32_t my = 0; my < plan->nyfft; my++) {
        const double ky = plan->ny > 1 ? wavenumber(my, plan->nyfft, plan->dy) : 0.0;
        for (int32_t m = 0; m < n; m++) {
            const size_t at = (size_t)my * n + m;
            double kx = wavenumber(m, n, plan->dx);
            double kz2 = kw * kw - kx * kx, re, im;
            if (plan->ny > 1)
                kz2 -= ky * ky;
            if (kz2 >= 0) {
                double ph = sign * sqrt(kz2) * dz;
                re = cos(ph) / n_all;
                im = sin(ph) / n_all;
            } else {
                re = exp(-sqrt(-kz2) * dz) / n_all;
                im = 0;
            }
            out[at] = tsr__cf_mul(tsr__cf_make((float)re, (float)im), in[at], 0);
        }
    }
}

void tsr__mig_phase_row(const tsr__migrate_plan *plan, const tsr__mig_fft *fft, int32_t iz,
                        double w, tsr__cf *u, int sign, int adjoint, tsr__cf *buf)
{
    const int32_t nc = plan->ncols;
    if (adjoint) {
        for (int32_t i = 0; i < nc; i++)
            u[i] = tsr__cf_make(plan->taper[i] * u[i].re, plan->taper[i] * u[i].im);
        sign = -sign;
    }
    pad_in(plan, u, buf);
    fftwf_execute_dft(fft->x_fwd, (fftwf_complex *)buf, (fftwf_complex *)buf);
    shift_spectrum(plan, w, plan->slow_ref[iz], sign, buf, buf);
    fftwf_execute_dft(fft->x_bwd, (fftwf_complex *)buf, (fftwf_complex *)buf);
    for (int32_t i = 0; i < nc; i++) {
        const tsr__cf b = buf[padded_at(plan, i)];
        u[i] = adjoint ? b : tsr__cf_make(plan->taper[i] * b.re, plan->taper[i] * b.im);
    }
}

/* Interpolation weight of reference j at slowness s (refs increasing, count >= 1). */
static float ref_weight(const double *refs, int32_t count, int32_t j, double s)
{
    if (count == 1)
        return 1.0f;
    if (s <= refs[0])
        return j == 0 ? 1.0f : 0.0f;
    if (s >= refs[count - 1])
        return j == count - 1 ? 1.0f : 0.0f;
    if (j > 0 && s >= refs[j - 1] && s <= refs[j])
        return (float)((s - refs[j - 1]) / (refs[j] - refs[j - 1]));
    if (j + 1 < count && s >= refs[j] && s < refs[j + 1])
        return (float)((refs[j + 1] - s) / (refs[j + 1] - refs[j]));
    return 0.0f;
}

void tsr__mig_pspi_row(const tsr__migrate_plan *plan, const tsr__mig_fft *fft, int32_t iz, double w,
                       tsr__cf *u, int sign, int adjoint, tsr__cf *buf, tsr__cf *b2, tsr__cf *b3)
{
    const int32_t nc = plan->ncols, n = padded(plan), count = plan->pspi_count[iz];
    const double *refs = plan->pspi_slow + (size_t)iz * TSR__MIG_PSPI_REFS;
    const float *slow = plan->slow + (size_t)iz * nc;
    if (!adjoint) {
        pad_in(plan, u, buf);
        fftwf_execute_dft(fft->x_fwd, (fftwf_complex *)buf, (fftwf_complex *)buf);
        for (int32_t i = 0; i < nc; i++)
            u[i] = tsr__cf_make(0.0f, 0.0f);
        for (int32_t j = 0; j < count; j++) {
            shift_spectrum(plan, w, refs[j], sign, buf, b2);
            fftwf_execute_dft(fft->x_bwd, (fftwf_complex *)b2, (fftwf_complex *)b2);
            for (int32_t i = 0; i < nc; i++) {
                float a = ref_weight(refs, count, j, slow[i]);
                const tsr__cf b = b2[padded_at(plan, i)];
                u[i] = tsr__cf_make(u[i].re + a * b.re, u[i].im + a * b.im);
            }
        }
        for (int32_t i = 0; i < nc; i++)
            u[i] = tsr__cf_make(plan->taper[i] * u[i].re, plan->taper[i] * u[i].im);
        return;
    }
    memset(b3, 0, sizeof(tsr__cf) * (size_t)n);
    for (int32_t j = 0; j < count; j++) {
        memset(buf, 0, sizeof(tsr__cf) * (size_t)n);
        for (int32_t i = 0; i < nc; i++) {
            float a = ref_weight(refs, count, j, slow[i]) * plan->taper[i];
            buf[padded_at(plan, i)] = tsr__cf_make(a * u[i].re, a * u[i].im);
        }
        fftwf_execute_dft(fft->x_fwd, (fftwf_complex *)buf, (fftwf_complex *)buf);
        shift_spectrum(plan, w, refs[j], -sign, buf, b2);
        for (int32_t m = 0; m < n; m++)
            b3[m] = tsr__cf_make(b3[m].re + b2[m].re, b3[m].im + b2[m].im);
    }
    fftwf_execute_dft(fft->x_bwd, (fftwf_complex *)b3, (fftwf_complex *)b3);
    for (int32_t i = 0; i < nc; i++)
        u[i] = b3[padded_at(plan, i)];
}
