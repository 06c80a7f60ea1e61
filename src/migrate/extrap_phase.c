/* Phase-shift steps: Gazdag's (J. Gazdag, "Wave equation migration with the phase-shift method",
 * Geophysics 43, 1978): exact for a velocity that depends on depth only. */
#include "migrate/extrap.h"

#include <math.h>
#include <string.h>

/* out = in times the phase-shift multiplier of slowness s over dz (with the 1/n of the inverse
 * transform); in and out may be the same array. */
static void shift_spectrum(const tsr__migrate_plan *plan, double w, double s, int sign,
                           const tsr__cf *in, tsr__cf *out)
{
    const int32_t n = plan->nxfft;
    const double pi = 3.14159265358979323846, kw = w * s, dz = plan->dz;
    for (int32_t m = 0; m < n; m++) {
        double kx = 2.0 * pi * (double)(m <= n / 2 ? m : m - n) / ((double)n * plan->dx);
        double kz2 = kw * kw - kx * kx, re, im;
        if (kz2 >= 0) {
            double ph = sign * sqrt(kz2) * dz;
            re = cos(ph) / n;
            im = sin(ph) / n;
        } else {
            re = exp(-sqrt(-kz2) * dz) / n;
            im = 0;
        }
        out[m] = tsr__cf_mul(tsr__cf_make((float)re, (float)im), in[m], 0);
    }
}

void tsr__mig_phase_row(const tsr__migrate_plan *plan, const tsr__mig_fft *fft, int32_t iz,
                        double w, tsr__cf *u, int sign, int adjoint, tsr__cf *buf)
{
    const int32_t nx = plan->nx, n = plan->nxfft;
    if (adjoint) {
        for (int32_t i = 0; i < nx; i++)
            u[i] = tsr__cf_make(plan->taper[i] * u[i].re, plan->taper[i] * u[i].im);
        sign = -sign;
    }
    memcpy(buf, u, sizeof(tsr__cf) * (size_t)nx);
    memset(buf + nx, 0, sizeof(tsr__cf) * (size_t)(n - nx));
    fftwf_execute_dft(fft->x_fwd, (fftwf_complex *)buf, (fftwf_complex *)buf);
    shift_spectrum(plan, w, plan->slow_ref[iz], sign, buf, buf);
    fftwf_execute_dft(fft->x_bwd, (fftwf_complex *)buf, (fftwf_complex *)buf);
    if (adjoint) {
        memcpy(u, buf, sizeof(tsr__cf) * (size_t)nx);
        return;
    }
    for (int32_t i = 0; i < nx; i++)
        u[i] = tsr__cf_make(plan->taper[i] * buf[i].re, plan->taper[i] * buf[i].im);
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
    const int32_t nx = plan->nx, n = plan->nxfft, count = plan->pspi_count[iz];
    const double *refs = plan->pspi_slow + (size_t)iz * TSR__MIG_PSPI_REFS;
    const float *slow = plan->slow + (size_t)iz * nx;
    if (!adjoint) {
        memcpy(buf, u, sizeof(tsr__cf) * (size_t)nx);
        memset(buf + nx, 0, sizeof(tsr__cf) * (size_t)(n - nx));
        fftwf_execute_dft(fft->x_fwd, (fftwf_complex *)buf, (fftwf_complex *)buf);
        for (int32_t i = 0; i < nx; i++)
            u[i] = tsr__cf_make(0.0f, 0.0f);
        for (int32_t j = 0; j < count; j++) {
            shift_spectrum(plan, w, refs[j], sign, buf, b2);
            fftwf_execute_dft(fft->x_bwd, (fftwf_complex *)b2, (fftwf_complex *)b2);
            for (int32_t i = 0; i < nx; i++) {
                float a = ref_weight(refs, count, j, slow[i]);
                u[i] = tsr__cf_make(u[i].re + a * b2[i].re, u[i].im + a * b2[i].im);
            }
        }
        for (int32_t i = 0; i < nx; i++)
            u[i] = tsr__cf_make(plan->taper[i] * u[i].re, plan->taper[i] * u[i].im);
        return;
    }
    memset(b3, 0, sizeof(tsr__cf) * (size_t)n);
    for (int32_t j = 0; j < count; j++) {
        for (int32_t i = 0; i < nx; i++) {
            float a = ref_weight(refs, count, j, slow[i]) * plan->taper[i];
            buf[i] = tsr__cf_make(a * u[i].re, a * u[i].im);
        }
        memset(buf + nx, 0, sizeof(tsr__cf) * (size_t)(n - nx));
        fftwf_execute_dft(fft->x_fwd, (fftwf_complex *)buf, (fftwf_complex *)buf);
        shift_spectrum(plan, w, refs[j], -sign, buf, b2);
        for (int32_t m = 0; m < n; m++)
            b3[m] = tsr__cf_make(b3[m].re + b2[m].re, b3[m].im + b2[m].im);
    }
    fftwf_execute_dft(fft->x_bwd, (fftwf_complex *)b3, (fftwf_complex *)b3);
    memcpy(u, b3, sizeof(tsr__cf) * (size_t)nx);
}
