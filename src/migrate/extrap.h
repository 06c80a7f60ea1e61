/* One frequency of one shot through every depth (extrap_freq.c), the phase-shift step
 * (extrap_phase.c) and the scratch rows they use. The CPU backends call these per frequency;
 * the explicit step's arithmetic itself is extrap_hd.h. */
#ifndef TSR_MIGRATE_EXTRAP_H
#define TSR_MIGRATE_EXTRAP_H

#include "migrate/spectra.h"

/* Scratch for one frequency at a time (one per thread). */
typedef struct tsr__mig_work {
    tsr__cf *s, *r;              /* source and receiver rows, nx */
    tsr__cf *w0, *w1, *w2, *acc; /* explicit step scratch, nx each */
    int32_t *j;                  /* coefficient table rows, nx */
    float *a;                    /* and weights, nx */
    tsr__cf *fft, *fft2, *fft3;  /* phase shift, PSPI: nxfft each */
    tsr__cf *sdepth;             /* modelling: the source field at every depth, nz * nx */
} tsr__mig_work;

tsr_status tsr__mig_work_alloc(tsr_ctx *ctx, const tsr__migrate_plan *plan, int model,
                               tsr__mig_work *work);
void tsr__mig_work_free(tsr_ctx *ctx, tsr__mig_work *work);

/* Migrates frequency f: src and rec are that frequency's surface rows (nx); adds
 * Re(conj(S) R) and |S|^2 at every depth into image and illum (nz * nx, depth rows). */
void tsr__mig_image_freq(const tsr__migrate_plan *plan, const tsr__mig_fft *fft, int32_t f,
                         const tsr__cf *src, const tsr__cf *rec, tsr__mig_work *work, double *image,
                         double *illum);
/* Models frequency f: the adjoint of tsr__mig_image_freq's cross image for the source row src,
 * applied to the reflectivity refl (nz * nx, depth rows); writes the surface row rec (nx). */
void tsr__mig_model_freq(const tsr__migrate_plan *plan, const tsr__mig_fft *fft, int32_t f,
                         const tsr__cf *src, const float *refl, tsr__mig_work *work, tsr__cf *rec);

/* One phase-shift step of u (nx) across the layer below depth row iz, through buf (nxfft):
 * multiplies by exp(i sign kz dz) (propagating) or exp(-|kz| dz) (evanescent) in kx with
 * kz^2 = w^2 s_ref(iz)^2 - kx^2, then damps by the taper; adjoint applies the taper first and the
 * conjugate multiplier (pass the forward's sign). */
void tsr__mig_phase_row(const tsr__migrate_plan *plan, const tsr__mig_fft *fft, int32_t iz,
                        double w, tsr__cf *u, int sign, int adjoint, tsr__cf *buf);

/* One PSPI step (Gazdag and Sguazzero, "Migration of seismic data by phase shift plus
 * interpolation", Geophysics 49, 1984): u's spectrum phase-shifted with each reference slowness
 * of row iz, each result weighted at every x by the linear interpolation weight of the local
 * slowness between its two bracketing references (clamped outside them), summed, then damped by
 * the taper. adjoint: its exact adjoint (taper, weights, conjugate shifts summed in kx, one
 * inverse transform). buf, b2, b3: nxfft each. */
void tsr__mig_pspi_row(const tsr__migrate_plan *plan, const tsr__mig_fft *fft, int32_t iz, double w,
                       tsr__cf *u, int sign, int adjoint, tsr__cf *buf, tsr__cf *b2, tsr__cf *b3);

#endif
