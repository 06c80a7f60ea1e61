/* The time axis and the surface (spectra.c): FFTW plans, grid columns of sources and receivers,
 * traces to receiver spectra on the grid and back, the source row. Shared by every backend (a
 * device backend takes the spectra these make). Spectra are nfreq rows of nx samples:
 * row f, column ix at [f * nx + ix], frequency plan->omega[f]. */
#ifndef TSR_MIGRATE_SPECTRA_H
#define TSR_MIGRATE_SPECTRA_H

#include "migrate/plan.h"

#include <fftw3.h>

/* FFTW plans for the plan's sizes (FFTW_ESTIMATE | FFTW_UNALIGNED, so any buffer of the right
 * length may be passed to the new-array execute functions, from any thread). */
typedef struct tsr__mig_fft {
    fftwf_plan t_fwd; /* nfft real -> nfft / 2 + 1 complex */
    fftwf_plan t_bwd; /* nfft / 2 + 1 complex -> nfft real */
    fftwf_plan x_fwd; /* nxfft complex, in place, forward (exp(-i k x)) */
    fftwf_plan x_bwd; /* nxfft complex, in place, backward */
} tsr__mig_fft;

/* Creates and destroys the plans (FFTW's planner is not thread-safe: both hold a lock). */
tsr_status tsr__mig_fft_create(tsr_ctx *ctx, const tsr__migrate_plan *plan, tsr__mig_fft *fft);
void tsr__mig_fft_destroy(tsr__mig_fft *fft);

/* The grid column nearest each position of shot number `index` (0-based; messages count from
 * 1). A source or receiver more than half a cell outside the model, or not finite, is
 * TSR_ERR_INVALID_ARGUMENT naming the shot and the trace. gcol has shot->ntraces entries. */
tsr_status tsr__mig_shot_columns(tsr_ctx *ctx, const tsr__migrate_plan *plan,
                                 const tsr_migrate_shot *shot, int32_t index, int32_t *scol,
                                 int32_t *gcol);
/* rec (nfreq * nx, overwritten) = sum over traces of the trace's spectrum at its column,
 * D(w) = sum_j d_j exp(-i w (t0 + j dt)). */
tsr_status tsr__mig_shot_spectra(tsr_ctx *ctx, const tsr__migrate_plan *plan,
                                 const tsr__mig_fft *fft, const tsr_migrate_shot *shot,
                                 const int32_t *gcol, tsr__cf *rec);
/* The shot's traces from receiver spectra on the grid: d_j = (1/nfft) sum over +-w of
 * D(w) exp(i w (t0 + j dt)), D(-w) = conj(D(w)). */
tsr_status tsr__mig_shot_traces(tsr_ctx *ctx, const tsr__migrate_plan *plan,
                                const tsr__mig_fft *fft, const tsr__cf *rec, const int32_t *gcol,
                                tsr_migrate_shot *shot);
/* src (nfreq * nx, overwritten) = the wavelet at column scol, 0 elsewhere. */
void tsr__mig_source_rows(const tsr__migrate_plan *plan, int32_t scol, tsr__cf *src);

#endif
