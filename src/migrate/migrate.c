/* tsr_migrate_image and tsr_migrate_model: argument checks, the plan, the surface spectra of each
 * shot, and the only choice of backend in the domain (pick_backend). */
#include "migrate/migrate_backends.h"

#include "core/backend.h"

#include "core/checked.h"
#include "core/names.h"
#include "cuda/cuda_device.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const char *const tsr__method_names[] = {"explicit", "phase-shift", "pspi"};
static const char *const tsr__imaging_names[] = {"cross", "normalized"};

const char *tsr_migrate_method_name(tsr_migrate_method method)
{
    return tsr__name_of(tsr__method_names, TSR__NAMES_COUNT(tsr__method_names), (int)method, "?");
}

tsr_status tsr_migrate_method_parse(const char *name, tsr_migrate_method *out)
{
    int v;
    tsr_status st =
        tsr__name_parse(tsr__method_names, TSR__NAMES_COUNT(tsr__method_names), name, &v);
    if (st == TSR_OK && out)
        *out = (tsr_migrate_method)v;
    return out ? st : TSR_ERR_INVALID_ARGUMENT;
}

const char *tsr_migrate_imaging_name(tsr_migrate_imaging imaging)
{
    return tsr__name_of(tsr__imaging_names, TSR__NAMES_COUNT(tsr__imaging_names), (int)imaging,
                        "?");
}

tsr_status tsr_migrate_imaging_parse(const char *name, tsr_migrate_imaging *out)
{
    int v;
    tsr_status st =
        tsr__name_parse(tsr__imaging_names, TSR__NAMES_COUNT(tsr__imaging_names), name, &v);
    if (st == TSR_OK && out)
        *out = (tsr_migrate_imaging)v;
    return out ? st : TSR_ERR_INVALID_ARGUMENT;
}

void tsr_migrate_options_init(tsr_migrate_options *opt)
{
    if (!opt)
        return;
    memset(opt, 0, sizeof *opt);
    opt->method = TSR_MIGRATE_EXPLICIT;
    opt->imaging = TSR_MIGRATE_CROSS;
    opt->epsilon = 1e-3;
    opt->taper = 20;
}

/* The backends, cuda first; an entry without functions (cuda in a build without CUDA) is not
 * offered. */
static const tsr__migrate_backend *const tsr__migrate_backends[] = {
    &tsr__migrate_backend_cuda, &tsr__migrate_backend_cpu, &tsr__migrate_backend_reference};
enum { TSR__MIGRATE_NBACKENDS = sizeof tsr__migrate_backends / sizeof tsr__migrate_backends[0] };

/* The backends that run `method`: every entry with functions, cuda for explicit only (2D rows
 * and 3D slices alike). */
static unsigned offered_for(tsr_migrate_method method)
{
    unsigned offered = 0;
    for (int i = 0; i < TSR__MIGRATE_NBACKENDS; i++) {
        const tsr__migrate_backend *b = tsr__migrate_backends[i];
        if (b->model_shot && (b->id != TSR_BACKEND_CUDA || method == TSR_MIGRATE_EXPLICIT))
            offered |= TSR__BACKEND_BIT(b->id);
    }
    return offered;
}

static const tsr__migrate_backend *entry_of(tsr_backend id)
{
    for (int i = 0; i < TSR__MIGRATE_NBACKENDS; i++)
        if (tsr__migrate_backends[i]->id == id && tsr__migrate_backends[i]->model_shot)
            return tsr__migrate_backends[i];
    return NULL;
}

/* Auto's rule, 2D and 3D alike: cuda for the explicit method where the build has it and a
 * device opens (every depth step of every frequency does thousands of operations per byte of
 * wavefield in 2D, and streams each slice through memory 15 times in 3D, both of which a GPU runs
 * far faster than the cores), the cpu backend otherwise. */
static tsr_backend auto_pick(tsr_migrate_method method)
{
    return offered_for(method) & TSR__BACKEND_BIT(TSR_BACKEND_CUDA) ? TSR_BACKEND_CUDA
                                                                    : TSR_BACKEND_CPU;
}

tsr_backend tsr_migrate_backend(const tsr_ctx *ctx)
{
    if (!ctx)
        return TSR_BACKEND_AUTO;
    if (ctx->opt.backend == TSR_BACKEND_AUTO)
        return auto_pick(TSR_MIGRATE_EXPLICIT) == TSR_BACKEND_CUDA &&
                       (ctx->cuda || tsr__cuda_device_count() > 0)
                   ? TSR_BACKEND_CUDA
                   : TSR_BACKEND_CPU;
    const tsr__migrate_backend *b = entry_of(ctx->backend);
    return b ? b->id : TSR_BACKEND_AUTO;
}

/* The one choice of backend (core/backend.h), for the run's method and dimension (is3d: the
 * velocity has ny >= 2; the choice is the same for both, only auto's reason differs). */
static tsr_status pick_backend(tsr_ctx *ctx, tsr_migrate_method method, int is3d,
                               const tsr__migrate_backend **out)
{
    char op[48];
    snprintf(op, sizeof op, "migrate --method %s", tsr_migrate_method_name(method));
    const tsr_backend pick = auto_pick(method);
    tsr_backend b;
    tsr_status st = tsr__backend_choose(
        ctx, op, offered_for(method), pick,
        pick == TSR_BACKEND_CUDA
            ? (is3d ? "3D explicit migration streams every depth slice through memory 15 times "
                      "a step: the GPU's bandwidth is far above the CPU's"
                    : "explicit migration does thousands of operations per byte: the GPU is far "
                      "faster")
        : method == TSR_MIGRATE_EXPLICIT ? "this build has no CUDA backend"
                                         : "only the explicit method has a CUDA backend",
        &b);
    if (st != TSR_OK)
        return st;
    *out = entry_of(b);
    return TSR_OK;
}

tsr_status tsr__migrate_backend_pick(tsr_ctx *ctx, tsr_migrate_method method, int is3d,
                                     tsr_backend *out)
{
    const tsr__migrate_backend *b;
    tsr_status st = pick_backend(ctx, method, is3d, &b);
    if (!st)
        *out = b->id;
    return st;
}

/* Shapes and finiteness of a gather; samples are checked only when `samples`. */
static tsr_status check_gather(tsr_ctx *ctx, const tsr_migrate_gather *g, int samples)
{
    if (!g || g->nshots < 1 || !g->shots)
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT, "migrate: no shots");
    for (int32_t s = 0; s < g->nshots; s++) {
        const tsr_migrate_shot *sh = &g->shots[s];
        if (sh->ntraces < 1 || !sh->gx || !sh->traces)
            return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT, "migrate: shot %d has no traces",
                             (int)s + 1);
        if (!samples)
            continue;
        size_t n = (size_t)sh->ntraces * (size_t)g->nt;
        for (size_t i = 0; i < n; i++)
            if (!isfinite(sh->traces[i]))
                return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT,
                                 "migrate: shot %d, trace %d, sample %d is not a finite number",
                                 (int)s + 1, (int)(i / (size_t)g->nt) + 1,
                                 (int)(i % (size_t)g->nt) + 1);
    }
    return TSR_OK;
}

/* Everything a run holds; freed by run_free. */
typedef struct tsr__mig_run {
    tsr__migrate_plan plan;
    tsr__mig_fft fft;
    int have_plan, have_fft;
    /* Spectra rows of `sets` x `batch` shots: set j, shot k at (j * batch + k) * nfreq * nx. */
    tsr__cf *src, *rec;
    int32_t batch;
    tsr__mig_columns cols;
    int threads;                     /* for the spectra: the context's, at most batch */
    tsr__mig_trace_scratch *scratch; /* one per thread */
    double *shot_image, *shot_illum;
    float *refl;
} tsr__mig_run;

static void run_free(tsr_ctx *ctx, tsr__mig_run *run)
{
    if (run->have_fft)
        tsr__mig_fft_destroy(&run->fft);
    if (run->have_plan)
        tsr__migrate_plan_free(ctx, &run->plan);
    tsr__mig_columns_free(ctx, &run->cols);
    void *p[] = {run->src, run->rec, run->scratch, run->shot_image, run->shot_illum, run->refl};
    for (size_t i = 0; i < sizeof p / sizeof p[0]; i++)
        tsr__free(ctx, p[i]);
}

/* The bytes a 3D run holds (migrate.h's formula): `threads` workspaces and images, one shot's
 * spectra per batch and set, the plan's slowness and the shot's images; refused
 * (TSR_ERR_LIMIT, naming them) above the machine's physical memory. */
static tsr_status check_memory(tsr_ctx *ctx, const tsr__migrate_plan *plan,
                               const tsr__migrate_backend *backend, int model, int32_t batch,
                               int32_t sets)
{
    const double c = (double)plan->ncols, nz = (double)plan->nz, f = (double)plan->nfreq;
    const double p = (double)plan->nxfft * (double)plan->nyfft;
    /* the reference backend runs one thread, the cpu one at most one per frequency, cuda none
     * (its host side: two page-locked double images and illuminations, 32 nz C, when migrating) */
    double threads = ctx->threads < 1 ? 1 : ctx->threads;
    if (backend->id == TSR_BACKEND_REFERENCE)
        threads = 1;
    else if (backend->id == TSR_BACKEND_CUDA)
        threads = 0;
    else if (threads > f)
        threads = f;
    const double per_thread = 56.0 * c + 24.0 * p + (model ? 8.0 : 16.0) * nz * c;
    const double pinned = backend->id == TSR_BACKEND_CUDA && !model ? 32.0 * nz * c : 0.0;
    const double shared = 16.0 * f * c * batch * sets + (model ? 8.0 : 28.0) * nz * c + pinned;
    const double need = threads * per_thread + shared;
    const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    const double have = pages > 0 && page > 0 ? (double)pages * (double)page : INFINITY;
    if (need > have)
        return tsr__fail(ctx, TSR_ERR_LIMIT,
                         "migrate: a 3D %s of %d x %d x %d points and %d frequencies needs %.4g "
                         "GiB (%.0f bytes: %d threads of %.4g GiB and %.4g GiB shared), more than "
                         "this machine's %.4g GiB: use fewer threads (--threads), a smaller grid "
                         "or a narrower band (--fmax)",
                         model ? "modelling" : "migration", (int)plan->nx, (int)plan->ny,
                         (int)plan->nz, (int)plan->nfreq, need / 1073741824.0, need, (int)threads,
                         per_thread / 1073741824.0, shared / 1073741824.0, have / 1073741824.0);
    return TSR_OK;
}

/* Plan (a 3D one checked against the memory `backend` needs), FFT plans, every shot's grid
 * columns (each position checked), spectra rows for `sets` sets of `batch` shots and one trace
 * scratch per thread. */
static tsr_status run_open(tsr_ctx *ctx, tsr__mig_run *run, const tsr__migrate_backend *backend,
                           const tsr_migrate_grid *velocity, const tsr_migrate_gather *g,
                           const tsr_migrate_options *opt, int model, int32_t batch, int32_t sets)
{
    memset(run, 0, sizeof *run);
    tsr_status st = tsr__migrate_plan_build(ctx, &run->plan, velocity, g, opt, model);
    if (st)
        return st;
    run->have_plan = 1;
    if (run->plan.ny > 1 && (st = check_memory(ctx, &run->plan, backend, model, batch, sets)))
        return st;
    if ((st = tsr__mig_columns_make(ctx, &run->plan, g, &run->cols)))
        return st;
    size_t rows;
    if (!tsr__size_mul3((size_t)run->plan.nfreq, (size_t)run->plan.ncols, sizeof(tsr__cf), &rows) ||
        !tsr__size_mul3(rows, (size_t)batch, (size_t)sets, &rows))
        return tsr__fail(ctx, TSR_ERR_OVERFLOW, "migrate: spectra overflow");
    run->batch = batch;
    run->threads = ctx->threads < 1 ? 1 : ctx->threads > batch ? batch : ctx->threads;
    if ((st = tsr__alloc(ctx, rows, (void **)&run->src)) ||
        (st = tsr__alloc(ctx, rows, (void **)&run->rec)) ||
        (st = tsr__mig_scratch_alloc(ctx, &run->plan, run->threads, &run->scratch)))
        return st;
    if ((st = tsr__mig_fft_create(ctx, &run->plan, &run->fft)))
        return st;
    run->have_fft = 1;
    return TSR_OK;
}

/* The spectra of shots s0 .. s0 + n - 1 (n <= batch) into spectra set `set`. */
static void batch_spectra(tsr__mig_run *run, const tsr_migrate_gather *g, int32_t s0, int32_t n,
                          int32_t set)
{
    const size_t o =
        (size_t)set * (size_t)run->batch * (size_t)run->plan.nfreq * (size_t)run->plan.ncols;
    tsr__mig_spectra_shots(&run->plan, &run->fft, g, s0, n, &run->cols, run->threads, run->scratch,
                           run->src + o, run->rec + o);
}

/* nx * nz * count elements of `size` bytes. */
static tsr_status alloc_cells(tsr_ctx *ctx, const tsr__migrate_plan *plan, size_t size,
                              int32_t count, void **out)
{
    size_t n;
    if (!tsr__size_mul3((size_t)plan->ncols, (size_t)plan->nz, size, &n) ||
        !tsr__size_mul(n, (size_t)count, &n))
        return tsr__fail(ctx, TSR_ERR_OVERFLOW, "migrate: image size overflows");
    return tsr__alloc(ctx, n, out);
}

/* Adds one shot's image to the total: as is (cross), or divided by its illumination plus
 * epsilon times the shot's largest illumination (normalized). */
static void add_shot(const tsr__migrate_plan *plan, double *total, const double *image,
                     const double *illum)
{
    const size_t cells = (size_t)plan->ncols * (size_t)plan->nz;
    if (plan->imaging == TSR_MIGRATE_CROSS) {
        for (size_t i = 0; i < cells; i++)
            total[i] += image[i];
        return;
    }
    double most = 0;
    for (size_t i = 0; i < cells; i++)
        most = illum[i] > most ? illum[i] : most;
    double eps = plan->epsilon * most;
    if (!(eps > 0))
        eps = 1e-30;
    for (size_t i = 0; i < cells; i++)
        total[i] += image[i] / (illum[i] + eps);
}

/* Checks of tsr_migrate_image_add's arguments besides the gather's. */
static tsr_status check_add(tsr_ctx *ctx, const tsr_migrate_grid *velocity,
                            const tsr_migrate_gather *shots, int32_t first, int32_t count,
                            const double *sum)
{
    if (!velocity || !sum)
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT, "migrate: no velocity model or sum");
    if (first < 0 || count < 0 || first > shots->nshots || count > shots->nshots - first)
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT,
                         "migrate: shots %d .. %d are not shots of a gather of %d", (int)first + 1,
                         (int)first + (int)count, (int)shots->nshots);
    return TSR_OK;
}

/* Tells `added` (may be NULL) that shots up to `done` are in sum; its refusal is
 * TSR_ERR_INTERRUPTED. */
static tsr_status notify(tsr_ctx *ctx, tsr_migrate_added_fn added, void *user, int32_t done,
                         const double *sum)
{
    if (added && added(user, done, sum))
        return tsr__fail(ctx, TSR_ERR_INTERRUPTED, "migrate: stopped after shot %d", (int)done);
    return TSR_OK;
}

/* The shots of the batch from s0 (at most batch, none past end). */
static int32_t batch_at(int32_t s0, int32_t end, int32_t batch)
{
    return end - s0 < batch ? end - s0 : batch;
}

/* Shots first .. first + count - 1 into sum, one shot at a time (the spectra made a batch at a
 * time), for a backend with image_shot. */
static tsr_status image_add_shots(tsr_ctx *ctx, const tsr__migrate_backend *backend,
                                  tsr__mig_run *run, const tsr_migrate_gather *shots, int32_t first,
                                  int32_t end, double *sum, tsr_migrate_added_fn added, void *user)
{
    const tsr__migrate_plan *plan = &run->plan;
    const size_t cells = (size_t)plan->ncols * (size_t)plan->nz;
    const size_t slab = (size_t)plan->nfreq * (size_t)plan->ncols;
    tsr_status st = TSR_OK;
    for (int32_t s0 = first; s0 < end && !st; s0 += run->batch) {
        const int32_t n = batch_at(s0, end, run->batch);
        batch_spectra(run, shots, s0, n, 0);
        for (int32_t k = 0; k < n && !st; k++) {
            tsr__mig_progress progress = {"migrate", (double)(s0 + k) * plan->nfreq,
                                          (double)shots->nshots * plan->nfreq};
            memset(run->shot_image, 0, sizeof(double) * cells);
            memset(run->shot_illum, 0, sizeof(double) * cells);
            st = backend->image_shot(ctx, plan, &run->fft, run->src + (size_t)k * slab,
                                     run->rec + (size_t)k * slab, run->shot_image, run->shot_illum,
                                     &progress);
            if (!st) {
                add_shot(plan, sum, run->shot_image, run->shot_illum);
                st = notify(ctx, added, user, s0 + k + 1, sum);
            }
        }
    }
    return st;
}

/* The same for a backend with image_start: batches, each batch's spectra made (in the other of
 * the two spectra sets) while the device migrates the batch before, and the batch before added
 * into sum (from the backend's buffers) while the device migrates the next one. */
static tsr_status image_add_batches(tsr_ctx *ctx, const tsr__migrate_backend *backend,
                                    tsr__mig_run *run, const tsr_migrate_gather *shots,
                                    int32_t first, int32_t end, double *sum,
                                    tsr_migrate_added_fn added, void *user)
{
    const tsr__migrate_plan *plan = &run->plan;
    const size_t cells = (size_t)plan->ncols * (size_t)plan->nz;
    const size_t set_rows = (size_t)run->batch * (size_t)plan->nfreq * (size_t)plan->ncols;
    if (first >= end)
        return TSR_OK;
    batch_spectra(run, shots, first, batch_at(first, end, run->batch), 0);
    tsr_status st =
        backend->image_start(ctx, plan, batch_at(first, end, run->batch), run->src, run->rec);
    for (int32_t s0 = first, set = 0; s0 < end && !st; s0 += run->batch, set ^= 1) {
        const int32_t n = batch_at(s0, end, run->batch), s1 = s0 + n;
        const int32_t next = batch_at(s1, end, run->batch);
        if (next > 0)
            batch_spectra(run, shots, s1, next, set ^ 1);
        tsr__mig_progress progress = {"migrate", (double)s0 * plan->nfreq,
                                      (double)shots->nshots * plan->nfreq};
        const double *image, *illum;
        if ((st = backend->image_finish(ctx, plan, n, &image, &illum, &progress)))
            break;
        tsr_status started = TSR_OK;
        if (next > 0)
            started = backend->image_start(ctx, plan, next, run->src + (size_t)(set ^ 1) * set_rows,
                                           run->rec + (size_t)(set ^ 1) * set_rows);
        for (int32_t k = 0; k < n; k++)
            add_shot(plan, sum, image + (size_t)k * cells, illum + (size_t)k * cells);
        st = notify(ctx, added, user, s1, sum);
        if (!st)
            st = started;
    }
    return st;
}

tsr_status tsr_migrate_image_add(tsr_ctx *ctx, const tsr_migrate_grid *velocity,
                                 const tsr_migrate_gather *shots, const tsr_migrate_options *opt,
                                 int32_t first, int32_t count, double *sum,
                                 tsr_migrate_added_fn added, void *user)
{
    tsr_status st = tsr__enter(ctx);
    if (st)
        return st;
    tsr_migrate_options defaults;
    if (!opt) {
        tsr_migrate_options_init(&defaults);
        opt = &defaults;
    }
    if (!velocity)
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT, "migrate: no velocity model");
    const tsr__migrate_backend *backend;
    const int is3d = velocity->ny > 1;
    if ((st = pick_backend(ctx, opt->method, is3d, &backend)) ||
        (st = check_gather(ctx, shots, 1)) ||
        (st = check_add(ctx, velocity, shots, first, count, sum)))
        return st;
    const int async = backend->image_start != NULL;
    /* 3D: one shot's spectra at a time (a 3D shot's spectra are large; the batch only lets
     * several shots' spectra be made at once, and does not change them) */
    const int32_t batch = is3d ? 1 : TSR__MIG_BATCH;
    tsr__mig_run run;
    if ((st = run_open(ctx, &run, backend, velocity, shots, opt, 0, batch, async ? 2 : 1)) ||
        (!async &&
         ((st = alloc_cells(ctx, &run.plan, sizeof(double), 1, (void **)&run.shot_image)) ||
          (st = alloc_cells(ctx, &run.plan, sizeof(double), 1, (void **)&run.shot_illum))))) {
        run_free(ctx, &run);
        return st;
    }
    st = async
             ? image_add_batches(ctx, backend, &run, shots, first, first + count, sum, added, user)
             : image_add_shots(ctx, backend, &run, shots, first, first + count, sum, added, user);
    run_free(ctx, &run);
    return st;
}

/* Whether grid g has the velocity's nx, nz and ny (a failure names both). */
static tsr_status check_same_shape(tsr_ctx *ctx, const char *what, const tsr_migrate_grid *g,
                                   const tsr_migrate_grid *v)
{
    if (g->nx == v->nx && g->nz == v->nz && tsr__mig_grid_ny(g) == tsr__mig_grid_ny(v))
        return TSR_OK;
    if (v->ny > 1 || g->ny > 1)
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT,
                         "migrate: the %s is %d x %d x %d (nx, ny, nz), the velocity model %d x "
                         "%d x %d",
                         what, (int)g->nx, (int)tsr__mig_grid_ny(g), (int)g->nz, (int)v->nx,
                         (int)tsr__mig_grid_ny(v), (int)v->nz);
    return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT,
                     "migrate: the %s is %d x %d, the velocity model %d x %d", what, (int)g->nx,
                     (int)g->nz, (int)v->nx, (int)v->nz);
}

tsr_status tsr_migrate_image_from_sum(tsr_ctx *ctx, const tsr_migrate_grid *velocity,
                                      const double *sum, tsr_migrate_grid *image)
{
    tsr_status st = tsr__enter(ctx);
    if (st)
        return st;
    if (!velocity || !sum || !image || !image->data)
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT, "migrate: no velocity model, sum or image");
    if ((st = check_same_shape(ctx, "image", image, velocity)))
        return st;
    image->dx = velocity->dx;
    image->dz = velocity->dz;
    image->ox = velocity->ox;
    image->oz = velocity->oz;
    image->ny = velocity->ny;
    image->dy = velocity->dy;
    image->oy = velocity->oy;
    /* column c = iy * nx + ix: the grid's (c, iz) from the sum's depth slice iz */
    const int64_t ncols = (int64_t)image->nx * tsr__mig_grid_ny(image), nz = image->nz;
    for (int64_t iz = 0; iz < nz; iz++)
        for (int64_t c = 0; c < ncols; c++)
            image->data[c * nz + iz] = (float)sum[iz * ncols + c];
    return TSR_OK;
}

tsr_status tsr_migrate_image(tsr_ctx *ctx, const tsr_migrate_grid *velocity,
                             const tsr_migrate_gather *shots, const tsr_migrate_options *opt,
                             tsr_migrate_grid *image)
{
    tsr_status st = tsr__enter(ctx);
    if (st)
        return st;
    if (!velocity || !image || !image->data)
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT, "migrate: no velocity model or image");
    if ((st = check_same_shape(ctx, "image", image, velocity)))
        return st;
    double *sum;
    size_t bytes, cells = tsr_migrate_grid_cells(velocity);
    if (!cells || !tsr__size_mul(cells, sizeof(double), &bytes))
        return tsr__fail(ctx, TSR_ERR_OVERFLOW, "migrate: image size overflows");
    if ((st = tsr__alloc(ctx, bytes, (void **)&sum)))
        return st;
    memset(sum, 0, bytes);
    if (!(st = tsr_migrate_image_add(ctx, velocity, shots, opt, 0, shots ? shots->nshots : 0, sum,
                                     NULL, NULL)))
        st = tsr_migrate_image_from_sum(ctx, velocity, sum, image);
    tsr__free(ctx, sum);
    return st;
}

tsr_status tsr_migrate_model(tsr_ctx *ctx, const tsr_migrate_grid *velocity,
                             const tsr_migrate_grid *reflectivity, const tsr_migrate_options *opt,
                             tsr_migrate_gather *shots)
{
    tsr_status st = tsr__enter(ctx);
    if (st)
        return st;
    if (!velocity || !velocity->data)
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT, "migrate: no velocity model");
    if (reflectivity && !reflectivity->data)
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT, "migrate: the reflectivity has no data");
    if (reflectivity && (st = check_same_shape(ctx, "reflectivity grid", reflectivity, velocity)))
        return st;
    tsr_migrate_options defaults;
    if (!opt) {
        tsr_migrate_options_init(&defaults);
        opt = &defaults;
    }
    const tsr__migrate_backend *backend;
    if ((st = pick_backend(ctx, opt->method, velocity->ny > 1, &backend)) ||
        (st = check_gather(ctx, shots, 0)))
        return st;
    tsr__mig_run run;
    if ((st = run_open(ctx, &run, backend, velocity, shots, opt, 1, 1, 1)) ||
        (st = alloc_cells(ctx, &run.plan, sizeof(float), 1, (void **)&run.refl))) {
        run_free(ctx, &run);
        return st;
    }
    const tsr__migrate_plan *plan = &run.plan;
    /* column c = iy * nx + ix (3D; c = ix in 2D) */
    const int64_t nx = plan->ncols, nz = plan->nz;
    for (int64_t iz = 0; iz < nz; iz++)
        for (int64_t ix = 0; ix < nx; ix++) {
            float r;
            if (reflectivity) {
                r = reflectivity->data[ix * nz + iz];
                if (!isfinite(r)) {
                    st = plan->ny > 1
                             ? tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT,
                                         "migrate: reflectivity at column %lld, inline %lld, "
                                         "sample %lld is not finite",
                                         (long long)(ix % plan->nx), (long long)(ix / plan->nx),
                                         (long long)iz)
                             : tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT,
                                         "migrate: reflectivity at column %lld, sample %lld is not "
                                         "finite",
                                         (long long)ix, (long long)iz);
                    run_free(ctx, &run);
                    return st;
                }
            } else if (iz == 0) {
                r = 0.0f;
            } else {
                float v0 = velocity->data[ix * nz + iz - 1], v1 = velocity->data[ix * nz + iz];
                r = (v1 - v0) / (v1 + v0);
            }
            run.refl[iz * nx + ix] = r;
        }
    for (int32_t s = 0; s < shots->nshots && !st; s++) {
        tsr_migrate_shot *shot = &shots->shots[s];
        tsr__mig_source_rows(plan, run.cols.scol[s], run.src);
        tsr__mig_progress progress = {"migrate model", (double)s * plan->nfreq,
                                      (double)shots->nshots * plan->nfreq};
        if ((st = backend->model_shot(ctx, plan, &run.fft, run.src, run.refl, run.rec, &progress)))
            break;
        st = tsr__mig_shot_traces(ctx, plan, &run.fft, run.rec, run.cols.gcol + run.cols.gofs[s],
                                  shot);
    }
    run_free(ctx, &run);
    return st;
}
