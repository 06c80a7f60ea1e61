/* The reference backend: one thread, frequency after frequency, the image summed in double. */
#include "migrate/extrap.h"
#include "migrate/migrate_backends.h"

static tsr_status ref_image_shot(tsr_ctx *ctx, const tsr__migrate_plan *plan,
                                 const tsr__mig_fft *fft, const tsr__cf *src, const tsr__cf *rec,
                                 double *image, double *illum, const tsr__mig_progress *progress)
{
    tsr__mig_work work;
    tsr_status st = tsr__mig_work_alloc(ctx, plan, 0, &work);
    if (st)
        return st;
    for (int32_t f = 0; f < plan->nfreq && !st; f++) {
        tsr__mig_image_freq(plan, fft, f, src + (size_t)f * plan->ncols,
                            rec + (size_t)f * plan->ncols, &work, image, illum);
        st = tsr__mig_report(ctx, progress, f + 1);
    }
    tsr__mig_work_free(ctx, &work);
    return st;
}

static tsr_status ref_model_shot(tsr_ctx *ctx, const tsr__migrate_plan *plan,
                                 const tsr__mig_fft *fft, const tsr__cf *src, const float *refl,
                                 tsr__cf *rec, const tsr__mig_progress *progress)
{
    tsr__mig_work work;
    tsr_status st = tsr__mig_work_alloc(ctx, plan, 1, &work);
    if (st)
        return st;
    for (int32_t f = 0; f < plan->nfreq && !st; f++) {
        tsr__mig_model_freq(plan, fft, f, src + (size_t)f * plan->ncols, refl, &work,
                            rec + (size_t)f * plan->ncols);
        st = tsr__mig_report(ctx, progress, f + 1);
    }
    tsr__mig_work_free(ctx, &work);
    return st;
}

const tsr__migrate_backend tsr__migrate_backend_reference = {TSR_BACKEND_REFERENCE, ref_image_shot,
                                                             ref_model_shot, NULL, NULL};
