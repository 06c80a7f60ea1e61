/* One frequency of one shot through every depth (extrap.h): the depth loop of migration and of
 * its adjoint, modelling, over either extrapolator.
 *
 * Sign convention: time transforms use exp(-i w t) (FFTW's forward), so a downgoing wave is
 * exp(i (w t - kz z)): the source steps down with exp(-i kz dz) (the conjugate operator) and the
 * receiver wavefield, upgoing waves followed back in time, with exp(+i kz dz). The step from depth
 * row iz to iz + 1 uses row iz's slowness. */
#include "migrate/extrap.h"

#include "core/checked.h"

#include <string.h>

tsr_status tsr__mig_work_alloc(tsr_ctx *ctx, const tsr__migrate_plan *plan, int model,
                               tsr__mig_work *work)
{
    memset(work, 0, sizeof *work);
    const size_t nx = (size_t)plan->ncols; /* a row, or a 3D depth slice */
    tsr__cf **rows[] = {&work->s, &work->r, &work->w0, &work->w1, &work->w2, &work->acc};
    tsr_status st = TSR_OK;
    for (size_t i = 0; i < sizeof rows / sizeof rows[0] && !st; i++)
        st = tsr__alloc(ctx, sizeof(tsr__cf) * nx, (void **)rows[i]);
    if (!st)
        st = tsr__alloc(ctx, sizeof(int32_t) * nx, (void **)&work->j);
    if (!st)
        st = tsr__alloc(ctx, sizeof(float) * nx, (void **)&work->a);
    tsr__cf **ffts[] = {&work->fft, &work->fft2, &work->fft3};
    for (int i = 0; i < 3 && !st; i++)
        st = tsr__alloc(ctx, sizeof(tsr__cf) * (size_t)plan->nxfft * (size_t)plan->nyfft,
                        (void **)ffts[i]);
    if (!st && model) {
        size_t n;
        if (!tsr__size_mul3(nx, (size_t)plan->nz, sizeof(tsr__cf), &n))
            st = tsr__fail(ctx, TSR_ERR_OVERFLOW, "migrate: modelling scratch overflows");
        else
            st = tsr__alloc(ctx, n, (void **)&work->sdepth);
    }
    if (st)
        tsr__mig_work_free(ctx, work);
    return st;
}

void tsr__mig_work_free(tsr_ctx *ctx, tsr__mig_work *work)
{
    void *p[] = {work->s, work->r, work->w0,  work->w1,   work->w2,   work->acc,
                 work->j, work->a, work->fft, work->fft2, work->fft3, work->sdepth};
    for (size_t i = 0; i < sizeof p / sizeof p[0]; i++)
        tsr__free(ctx, p[i]);
    memset(work, 0, sizeof *work);
}

static tsr__mig_step step_of(const tsr__migrate_plan *plan)
{
    tsr__mig_step st;
    st.nx = plan->nx;
    st.terms = TSR__MIG_TERMS;
    st.ntable = plan->ntable;
    memcpy(st.d2, plan->d2, sizeof st.d2);
    st.xscale = plan->xscale;
    st.inv_dp = (float)(1.0 / plan->table_dp);
    st.table = plan->table;
    st.ny = plan->ny;
    st.xscale_y = plan->xscale_y;
    return st;
}

/* u one step down from row iz: the receiver's operator, or its conjugate (the source's). */
static void step_down(const tsr__migrate_plan *plan, const tsr__mig_step *es,
                      const tsr__mig_fft *fft, int32_t iz, double w, tsr__cf *u, int conj,
                      tsr__mig_work *wk)
{
    if (plan->method == TSR_MIGRATE_PHASE_SHIFT) {
        tsr__mig_phase_row(plan, fft, iz, w, u, conj ? -1 : 1, 0, wk->fft);
        return;
    }
    if (plan->method == TSR_MIGRATE_PSPI) {
        tsr__mig_pspi_row(plan, fft, iz, w, u, conj ? -1 : 1, 0, wk->fft, wk->fft2, wk->fft3);
        return;
    }
    tsr__mig_lookup_row(es, plan->slow + (size_t)iz * plan->ncols, (float)(w * plan->dz), wk->j,
                        wk->a);
    tsr__mig_explicit_row(es, u, wk->j, wk->a, plan->taper, conj, wk->w0, wk->w1, wk->w2, wk->acc);
}

/* The adjoint of the receiver's step_down (conj 0) from row iz. */
static void step_adjoint(const tsr__migrate_plan *plan, const tsr__mig_step *es,
                         const tsr__mig_fft *fft, int32_t iz, double w, tsr__cf *u,
                         tsr__mig_work *wk)
{
    if (plan->method == TSR_MIGRATE_PHASE_SHIFT) {
        tsr__mig_phase_row(plan, fft, iz, w, u, 1, 1, wk->fft);
        return;
    }
    if (plan->method == TSR_MIGRATE_PSPI) {
        tsr__mig_pspi_row(plan, fft, iz, w, u, 1, 1, wk->fft, wk->fft2, wk->fft3);
        return;
    }
    tsr__mig_lookup_row(es, plan->slow + (size_t)iz * plan->ncols, (float)(w * plan->dz), wk->j,
                        wk->a);
    tsr__mig_explicit_adjoint_row(es, u, wk->j, wk->a, plan->taper, 0, wk->w0, wk->w1, wk->w2);
}

void tsr__mig_image_freq(const tsr__migrate_plan *plan, const tsr__mig_fft *fft, int32_t f,
                         const tsr__cf *src, const tsr__cf *rec, tsr__mig_work *work, double *image,
                         double *illum)
{
    const int32_t nx = plan->ncols;
    const double w = plan->omega[f];
    const tsr__mig_step es = step_of(plan);
    memcpy(work->s, src, sizeof(tsr__cf) * (size_t)nx);
    memcpy(work->r, rec, sizeof(tsr__cf) * (size_t)nx);
    for (int32_t iz = 0; iz < plan->nz; iz++) {
        double *im = image + (size_t)iz * nx, *il = illum + (size_t)iz * nx;
        for (int32_t i = 0; i < nx; i++)
            tsr__mig_image_at(work->s[i], work->r[i], &im[i], &il[i]);
        if (iz + 1 < plan->nz) {
            step_down(plan, &es, fft, iz, w, work->s, 1, work);
            step_down(plan, &es, fft, iz, w, work->r, 0, work);
        }
    }
}

void tsr__mig_model_freq(const tsr__migrate_plan *plan, const tsr__mig_fft *fft, int32_t f,
                         const tsr__cf *src, const float *refl, tsr__mig_work *work, tsr__cf *rec)
{
    const int32_t nx = plan->ncols, nz = plan->nz;
    const double w = plan->omega[f];
    const tsr__mig_step es = step_of(plan);
    memcpy(work->s, src, sizeof(tsr__cf) * (size_t)nx);
    for (int32_t iz = 0; iz < nz; iz++) {
        memcpy(work->sdepth + (size_t)iz * nx, work->s, sizeof(tsr__cf) * (size_t)nx);
        if (iz + 1 < nz)
            step_down(plan, &es, fft, iz, w, work->s, 1, work);
    }
    /* q(nz-1) = r S; q(iz) = step(iz)^H q(iz+1) + r S at iz; the surface row is q(0) */
    tsr__cf *q = work->r;
    for (int32_t iz = nz - 1; iz >= 0; iz--) {
        const tsr__cf *s = work->sdepth + (size_t)iz * nx;
        const float *r = refl + (size_t)iz * nx;
        if (iz + 1 < nz)
            step_adjoint(plan, &es, fft, iz, w, q, work);
        for (int32_t i = 0; i < nx; i++)
            q[i] = tsr__mig_scatter_at(q[i], r[i], s[i], iz + 1 == nz);
    }
    memcpy(rec, q, sizeof(tsr__cf) * (size_t)nx);
}
