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
/* One thread's scratch of tsr__mig_shot_spectra: buf holds plan->nfft floats, spec
 * plan->nfft / 2 + 1 complex samples. */
typedef struct tsr__mig_trace_scratch {
    float *buf;
    tsr__cf *spec;
} tsr__mig_trace_scratch;

/* rec (nfreq * nx, overwritten) = sum over traces, in trace order, of the trace's spectrum at its
 * column, D(w) = sum_j d_j exp(-i w (t0 + j dt)). Touches nothing but rec and the scratch, so
 * calls with distinct rec and scratch may run on different threads at once. */
void tsr__mig_shot_spectra(const tsr__migrate_plan *plan, const tsr__mig_fft *fft,
                           const tsr_migrate_shot *shot, const int32_t *gcol,
                           const tsr__mig_trace_scratch *scratch, tsr__cf *rec);
/* The grid columns of every shot of a gather: shot s's source at scol[s], its receivers at
 * gcol[gofs[s] + i]. */
typedef struct tsr__mig_columns {
    int32_t *gcol, *scol;
    size_t *gofs;
} tsr__mig_columns;

/* Every shot's columns (tsr__mig_shot_columns: each position checked); on failure nothing is
 * left to free. _free frees and zeroes them (also after a failed _make). */
tsr_status tsr__mig_columns_make(tsr_ctx *ctx, const tsr__migrate_plan *plan,
                                 const tsr_migrate_gather *g, tsr__mig_columns *cols);
void tsr__mig_columns_free(tsr_ctx *ctx, tsr__mig_columns *cols);

/* `threads` trace scratches in one allocation (*out; free with tsr__free). */
tsr_status tsr__mig_scratch_alloc(tsr_ctx *ctx, const tsr__migrate_plan *plan, int threads,
                                  tsr__mig_trace_scratch **out);

/* The spectra of shots s0 .. s0 + n - 1 of g: shot s0 + k's source rows (tsr__mig_source_rows)
 * at src + k * nfreq * nx and receiver rows (tsr__mig_shot_spectra) at rec + k * nfreq * nx, on
 * `threads` OpenMP threads, one shot per thread at a time, thread t using scratch[t] (threads
 * entries). Each shot's rows are one call's, so they do not depend on `threads`. */
void tsr__mig_spectra_shots(const tsr__migrate_plan *plan, const tsr__mig_fft *fft,
                            const tsr_migrate_gather *g, int32_t s0, int32_t n,
                            const tsr__mig_columns *cols, int threads,
                            const tsr__mig_trace_scratch *scratch, tsr__cf *src, tsr__cf *rec);
/* The shot's traces from receiver spectra on the grid: d_j = (1/nfft) sum over +-w of
 * D(w) exp(i w (t0 + j dt)), D(-w) = conj(D(w)). */
tsr_status tsr__mig_shot_traces(tsr_ctx *ctx, const tsr__migrate_plan *plan,
                                const tsr__mig_fft *fft, const tsr__cf *rec, const int32_t *gcol,
                                tsr_migrate_shot *shot);
/* src (nfreq * nx, overwritten) = the wavelet at column scol, 0 elsewhere. */
void tsr__mig_source_rows(const tsr__migrate_plan *plan, int32_t scol, tsr__cf *src);

#endif
