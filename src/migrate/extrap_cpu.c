/* The CPU backend: OpenMP over frequencies (extrap_freq.c per frequency). */
#include "migrate/extrap.h"
#include "migrate/migrate_backends.h"

#include "core/checked.h"

#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

static int threads_for(const tsr_ctx *ctx, const tsr__migrate_plan *plan)
{
    int t = ctx->threads < 1 ? 1 : ctx->threads;
    return t > plan->nfreq ? plan->nfreq : t;
}

static tsr_status cpu_image_shot(tsr_ctx *ctx, const tsr__migrate_plan *plan,
                                 const tsr__mig_fft *fft, const tsr__cf *src, const tsr__cf *rec,
                                 double *image, double *illum)
{
    const int threads = threads_for(ctx, plan);
    const size_t cells = (size_t)plan->nx * (size_t)plan->nz;
    size_t bytes;
    if (!tsr__size_mul3(cells, 2 * (size_t)threads, sizeof(double), &bytes))
        return tsr__fail(ctx, TSR_ERR_OVERFLOW, "migrate: per-thread images overflow");
    double *acc;
    tsr__mig_work *work;
    tsr_status st = tsr__alloc(ctx, bytes, (void **)&acc);
    if (st)
        return st;
    if ((st = tsr__alloc(ctx, sizeof(tsr__mig_work) * (size_t)threads, (void **)&work))) {
        tsr__free(ctx, acc);
        return st;
    }
    memset(acc, 0, bytes);
    int made = 0;
    for (; made < threads && !st; made++)
        st = tsr__mig_work_alloc(ctx, plan, 0, &work[made]);
    if (st)
        made--;
    if (!st) {
#pragma omp parallel num_threads(threads)
        {
#ifdef _OPENMP
            int t = omp_get_thread_num();
#else
            int t = 0;
#endif
            double *im = acc + (size_t)t * 2 * cells, *il = im + cells;
#pragma omp for schedule(dynamic, 1)
            for (int32_t f = 0; f < plan->nfreq; f++)
                tsr__mig_image_freq(plan, fft, f, src + (size_t)f * plan->nx,
                                    rec + (size_t)f * plan->nx, &work[t], im, il);
        }
        for (int t = 0; t < threads; t++) {
            const double *im = acc + (size_t)t * 2 * cells, *il = im + cells;
            for (size_t i = 0; i < cells; i++) {
                image[i] += im[i];
                illum[i] += il[i];
            }
        }
    }
    for (int t = 0; t < made; t++)
        tsr__mig_work_free(ctx, &work[t]);
    tsr__free(ctx, work);
    tsr__free(ctx, acc);
    return st;
}

static tsr_status cpu_model_shot(tsr_ctx *ctx, const tsr__migrate_plan *plan,
                                 const tsr__mig_fft *fft, const tsr__cf *src, const float *refl,
                                 tsr__cf *rec)
{
    const int threads = threads_for(ctx, plan);
    tsr__mig_work *work;
    tsr_status st = tsr__alloc(ctx, sizeof(tsr__mig_work) * (size_t)threads, (void **)&work);
    if (st)
        return st;
    int made = 0;
    for (; made < threads && !st; made++)
        st = tsr__mig_work_alloc(ctx, plan, 1, &work[made]);
    if (st)
        made--;
    if (!st) {
#pragma omp parallel num_threads(threads)
        {
#ifdef _OPENMP
            int t = omp_get_thread_num();
#else
            int t = 0;
#endif
#pragma omp for schedule(dynamic, 1)
            for (int32_t f = 0; f < plan->nfreq; f++)
                tsr__mig_model_freq(plan, fft, f, src + (size_t)f * plan->nx, refl, &work[t],
                                    rec + (size_t)f * plan->nx);
        }
    }
    for (int t = 0; t < made; t++)
        tsr__mig_work_free(ctx, &work[t]);
    tsr__free(ctx, work);
    return st;
}

const tsr__migrate_backend tsr__migrate_backend_cpu = {TSR_BACKEND_CPU, cpu_image_shot,
                                                       cpu_model_shot};
