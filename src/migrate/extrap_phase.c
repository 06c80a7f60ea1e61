/* Gazdag's phase-shift step (J. Gazdag, "Wave equation migration with the phase-shift method",
 * Geophysics 43, 1978): exact for a velocity that depends on depth only. */
#include "migrate/extrap.h"

#include <math.h>
#include <string.h>

void tsr__mig_phase_row(const tsr__migrate_plan *plan, const tsr__mig_fft *fft, int32_t iz,
                        double w, tsr__cf *u, int sign, int adjoint, tsr__cf *buf)
{
    const int32_t nx = plan->nx, n = plan->nxfft;
    const double pi = 3.14159265358979323846;
    if (adjoint) {
        for (int32_t i = 0; i < nx; i++)
            u[i] = tsr__cf_make(plan->taper[i] * u[i].re, plan->taper[i] * u[i].im);
        sign = -sign;
    }
    memcpy(buf, u, sizeof(tsr__cf) * (size_t)nx);
    memset(buf + nx, 0, sizeof(tsr__cf) * (size_t)(n - nx));
    fftwf_execute_dft(fft->x_fwd, (fftwf_complex *)buf, (fftwf_complex *)buf);
    const double kw = w * plan->slow_ref[iz], dz = plan->dz;
    for (int32_t m = 0; m < n; m++) {
        double kx = 2.0 * pi * (double)(m <= n / 2 ? m : m - n) / ((double)n * plan->dx);
        double kz2 = kw * kw - kx * kx;
        double re, im;
        if (kz2 >= 0) {
            double ph = sign * sqrt(kz2) * dz;
            re = cos(ph) / n;
            im = sin(ph) / n;
        } else {
            re = exp(-sqrt(-kz2) * dz) / n;
            im = 0;
        }
        buf[m] = tsr__cf_mul(tsr__cf_make((float)re, (float)im), buf[m], 0);
    }
    fftwf_execute_dft(fft->x_bwd, (fftwf_complex *)buf, (fftwf_complex *)buf);
    if (adjoint) {
        memcpy(u, buf, sizeof(tsr__cf) * (size_t)nx);
        return;
    }
    for (int32_t i = 0; i < nx; i++)
        u[i] = tsr__cf_make(plan->taper[i] * buf[i].re, plan->taper[i] * buf[i].im);
}
