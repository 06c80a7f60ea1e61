/* The CPU backend: OpenMP over frequencies (extrap_freq.c per frequency). */
#include "migrate/extrap.h"
#include "migrate/migrate_backends.h"

#include "core/checked.h"
#include "core/thread_num.h"

#include <string.h>

static int threads_for(const tsr_ctx *ctx, const tsr__migrate_plan *plan)
{
    int t = ctx->threads < 1 ? 1 : ctx->threads;
    return t > plan->nfreq ? plan->nfreq : t;
}

/* Frequencies finished by all threads, and a stop flag: thread 0 reports the count after each of
 * its frequencies (the context's progress callback runs on one thread only) and raises the flag
 * when the report fails (cancelled); the other threads then skip their remaining frequencies. */
typedef struct freq_count {
    int32_t done;
    int stop;
    tsr_status status; /* written by thread 0 only */
} freq_count;

static void freq_finished(tsr_ctx *ctx, const tsr__mig_progress *progress, freq_count *c, int t)
{
    int32_t d = __atomic_add_fetch(&c->done, 1, __ATOMIC_RELAXED);
    if (t != 0)
        return;
    tsr_status st = tsr__mig_report(ctx, progress, d);
    if (st) {
        c->status = st;
        __atomic_store_n(&c->stop, 1, __ATOMIC_RELAXED);
    }
}

static int freq_stopped(freq_count *c)
{
    return __atomic_load_n(&c->stop, __ATOMIC_RELAXED);
}

/* One workspace per thread (model as tsr__mig_work_alloc takes it); *made is how many were
 * allocated, all of them on success, and the caller frees those. */
static tsr_status works_alloc(tsr_ctx *ctx, const tsr__migrate_plan *plan, int model, int threads,
                              tsr__mig_work *work, int *made)
{
    tsr_status st = TSR_OK;
    int n = 0;
    for (; n < threads && !st; n++)
        st = tsr__mig_work_alloc(ctx, plan, model, &work[n]);
    if (st)
        n--;
    *made = n;
    return st;
}

static tsr_status cpu_image_shot(tsr_ctx *ctx, const tsr__migrate_plan *plan,
                                 const tsr__mig_fft *fft, const tsr__cf *src, const tsr__cf *rec,
                                 double *image, double *illum, const tsr__mig_progress *progress)
{
    const int threads = threads_for(ctx, plan);
    const size_t cells = (size_t)plan->ncols * (size_t)plan->nz;
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
    int made;
    st = works_alloc(ctx, plan, 0, threads, work, &made);
    freq_count count = {0, 0, TSR_OK};
    if (!st) {
#pragma omp parallel num_threads(threads)
        {
            int t = tsr__thread_num();
            double *im = acc + (size_t)t * 2 * cells, *il = im + cells;
#pragma omp for schedule(dynamic, 1)
            for (int32_t f = 0; f < plan->nfreq; f++) {
                if (freq_stopped(&count))
                    continue;
                tsr__mig_image_freq(plan, fft, f, src + (size_t)f * plan->ncols,
                                    rec + (size_t)f * plan->ncols, &work[t], im, il);
                freq_finished(ctx, progress, &count, t);
            }
        }
        st = count.status;
        if (!st) /* the last frequencies may have finished on other threads */
            st = tsr__mig_report(ctx, progress, count.done);
    }
    if (!st) {
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
                                 tsr__cf *rec, const tsr__mig_progress *progress)
{
    const int threads = threads_for(ctx, plan);
    tsr__mig_work *work;
    tsr_status st = tsr__alloc(ctx, sizeof(tsr__mig_work) * (size_t)threads, (void **)&work);
    if (st)
        return st;
    int made;
    st = works_alloc(ctx, plan, 1, threads, work, &made);
    freq_count count = {0, 0, TSR_OK};
    if (!st) {
#pragma omp parallel num_threads(threads)
        {
            int t = tsr__thread_num();
#pragma omp for schedule(dynamic, 1)
            for (int32_t f = 0; f < plan->nfreq; f++) {
                if (freq_stopped(&count))
                    continue;
                tsr__mig_model_freq(plan, fft, f, src + (size_t)f * plan->ncols, refl, &work[t],
                                    rec + (size_t)f * plan->ncols);
                freq_finished(ctx, progress, &count, t);
            }
        }
        st = count.status;
        if (!st) /* the last frequencies may have finished on other threads */
            st = tsr__mig_report(ctx, progress, count.done);
    }
    for (int t = 0; t < made; t++)
        tsr__mig_work_free(ctx, &work[t]);
    tsr__free(ctx, work);
    return st;
}

const tsr__migrate_backend tsr__migrate_backend_cpu = {TSR_BACKEND_CPU, cpu_image_shot,
                                                       cpu_model_shot, NULL, NULL};
