/* The migrate backends: each migrates (one shot, or several at once) or models one shot of a plan
 * (plan.h) from surface spectra made by spectra.c. migrate.c checks the arguments, builds the plan
 * and the spectra, picks the backend (its only dispatch) and combines the shots.
 *
 * A device backend is one more entry of the same shape: extrap_cuda.cu defines
 * tsr__migrate_backend_cuda (the plan's tables and the spectra copied to the device, the step
 * from extrap_hd.h in a kernel, the same per-shot results), extrap_cuda_none.c the same entry
 * with NULL functions for builds without CUDA (src/CMakeLists.txt picks one of the two), and
 * migrate.c lists it in its table, skipping entries without functions. */
#ifndef TSR_MIGRATE_BACKENDS_H
#define TSR_MIGRATE_BACKENDS_H

#include "migrate/spectra.h"

/* Progress of a run in frequencies: a backend reports base + (frequencies of this shot done)
 * out of total through tsr__mig_report, from one thread, and stops when it fails. */
typedef struct tsr__mig_progress {
    const char *stage;
    double base, total;
} tsr__mig_progress;

static inline tsr_status tsr__mig_report(tsr_ctx *ctx, const tsr__mig_progress *p, int32_t done)
{
    return tsr__progress(ctx, p->stage, p->base + done, p->total);
}

/* The most shots a backend's image_start takes at once, and the shots whose spectra migrate.c
 * computes at once (one shot per thread). */
#define TSR__MIG_BATCH 8

typedef struct tsr__migrate_backend {
    tsr_backend id;
    /* One shot's image: adds sum over frequencies of Re(conj(S) R) into image and |S|^2 into
     * illum (nz * nx depth rows, zeroed by the caller). src and rec: nfreq * nx spectra. */
    tsr_status (*image_shot)(tsr_ctx *ctx, const tsr__migrate_plan *plan, const tsr__mig_fft *fft,
                             const tsr__cf *src, const tsr__cf *rec, double *image, double *illum,
                             const tsr__mig_progress *progress);
    /* One shot's modelled receiver spectra rec (nfreq * nx) from src and the reflectivity refl
     * (nz * nx depth rows). */
    tsr_status (*model_shot)(tsr_ctx *ctx, const tsr__migrate_plan *plan, const tsr__mig_fft *fft,
                             const tsr__cf *src, const float *refl, tsr__cf *rec,
                             const tsr__mig_progress *progress);
    /* Several shots' images in two calls, for a backend whose one shot leaves the hardware idle
     * and which works asynchronously (NULL: migrate.c calls image_shot shot by shot).
     * image_start queues the images of count shots, 1..TSR__MIG_BATCH, shot k's spectra at
     * src, rec + k * nfreq * nx, and returns while they run; image_finish waits for them and
     * points *image and *illum at shot 0's image and illumination (shot k's + k * nz * nx), the
     * values image_shot adds, in the backend's memory: they stay valid through the next
     * image_start, until the next image_finish. The caller may compute on the host in between;
     * it leaves src and rec untouched until image_finish has returned, and calls image_finish
     * once after each successful image_start before the next image_start (after a failure it
     * may skip it: the queued work then only delays the context's next device work).
     * image_finish's progress counts the frequencies of all count shots. */
    tsr_status (*image_start)(tsr_ctx *ctx, const tsr__migrate_plan *plan, int32_t count,
                              const tsr__cf *src, const tsr__cf *rec);
    tsr_status (*image_finish)(tsr_ctx *ctx, const tsr__migrate_plan *plan, int32_t count,
                               const double **image, const double **illum,
                               const tsr__mig_progress *progress);
} tsr__migrate_backend;

/* The backend tsr_migrate_image takes for `method` on ctx and a 2D (is3d 0) or 3D model (the
 * choice of core/backend.h, as the migration itself makes it); fails as the migration would. */
tsr_status tsr__migrate_backend_pick(tsr_ctx *ctx, tsr_migrate_method method, int is3d,
                                     tsr_backend *out);

/* Single thread, frequencies in order, the image summed in double (extrap_ref.c): defines the
 * answer. */
extern const tsr__migrate_backend tsr__migrate_backend_reference;
/* OpenMP over frequencies, ctx->threads threads, each summing its frequencies in double into its
 * own image; the threads' images are added in thread order (extrap_cpu.c). Modelling gives the
 * reference's bits; the image differs from it by the order of the double sums only. */
extern const tsr__migrate_backend tsr__migrate_backend_cpu;
/* Method explicit on the context's CUDA device, every frequency of up to TSR__MIG_BATCH shots at
 * once in 2D (extrap_cuda.cu), one shot's frequencies in chunks that fit the device in 3D
 * (extrap3_cuda.cu); NULL functions in a build without CUDA (extrap_cuda_none.c). The same
 * contract as the cpu backend: modelling gives the reference's values, the image differs from
 * it by the order of the double sums only. */
extern const tsr__migrate_backend tsr__migrate_backend_cuda;
/* Device milliseconds per shot of the cuda backend's last depth loop on this context (all its
 * kernels, without the copies, over the shots it migrated or modelled at once), from CUDA
 * events; -1 before any (benchmarks read it). */
double tsr__migrate_cuda_loop_ms(const tsr_ctx *ctx);

#endif
