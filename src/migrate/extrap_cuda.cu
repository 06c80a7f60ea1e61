/* The CUDA backend of migration (migrate_backends.h), method explicit: the plan's tables and the
 * surface spectra of up to TSR__MIG_BATCH shots go to the device once, the wavefields of every
 * frequency stay there through all depth steps, and the shots' images and illuminations come
 * back once, in two calls (queue, then wait and add) so that migrate.c makes the next batch's
 * spectra on the host meanwhile. One shot's (x tiles x frequencies) blocks are under one wave of
 * the device (2 x 80 on 132 SMs for the benchmark's 737 x 80), so migration runs several shots per
 * launch.
 *
 * One launch per depth step covers every frequency of every shot of the call: a grid of
 * (x tiles, frequencies, shots) blocks of
 * TILE threads, thread t owning point x = tile * CORE - HALO + t of the extended tile. A block
 * loads its tile with a halo of HALO = 4 (the filter radius) per application of X on each side
 * into shared memory and runs the whole Chebyshev (or Clenshaw) recurrence there: each
 * application of X shortens the valid part by 4 per side, so after all of them exactly the
 * CORE = TILE - 2 HALO middle points are right, and only those are written (tiles overlap by
 * 2 HALO; the rest of the work is the halo's price). Outside the row u = 0, as on the CPU.
 *
 * Every point's arithmetic is extrap_hd.h's, the CPU's (the build turns off fused multiply-add):
 * a field after any number of steps is the reference's float for float, up to the sign of zero
 * (X's sums at the row's ends add +0 where the CPU skips a term). The image of a depth is fused
 * into its step: Re(conj(S) R) and |S|^2 of each (frequency, point) added in double with
 * atomicAdd, so only the order of the double sums over frequencies differs from the reference.
 *
 * Device memory (owned by this backend, kept on the context and reused): the plan's table,
 * slowness, taper and per-frequency w dz, uploaded when the plan changes (plan ids); two
 * ping-pong pairs of nfreq * nx fields per shot; each shot's nz * nx image and illumination in
 * double; for modelling the source field at every depth, nfreq * nz * nx samples (refused with
 * the size when the device lacks it). Host: two page-locked buffers of a batch's images and
 * illuminations, taking turns, so that migrate.c reads one batch's while the next one's
 * kernels run.
 *
 * This file is 2D (rows of nx); a plan with ny >= 2 (3D, depth slices of nx ny) goes to
 * extrap3_cuda.cu from the two entry points below (the plan's tables and the images' way back
 * are shared). */
#include "migrate/extrap_cuda.cuh"

extern "C" {
#include "core/checked.h"
}

#include <string.h>

enum {
    TILE = 512,                /* threads per block, points per extended tile */
    HALO = 4 * TSR__MIG_TERMS, /* 4 per application of X: the adjoint applies X terms times */
    CORE = TILE - 2 * HALO,    /* points a block writes */
    MAX_FREQ_BLOCKS = 65535    /* gridDim.y; blocks loop over further frequencies */
};

/* This thread's point and whether it lies in the row (in) and in the block's core (mine). */
struct point {
    int32_t t, x;
    bool in, mine;
};

__device__ static point point_of(int32_t nx)
{
    point p;
    p.t = (int32_t)threadIdx.x;
    p.x = (int32_t)blockIdx.x * CORE - HALO + p.t;
    p.in = p.x >= 0 && p.x < nx;
    p.mine = p.in && p.t >= HALO && p.t < TILE - HALO;
    return p;
}

/* (X u)(x) from the shared row u; 0 outside the row and at the tile's outer 4 points (which lie
 * in the part of the tile already invalid). */
__device__ static tsr__cf x_of(const tsr__mig_step &st, const tsr__cf *u, const point &p)
{
    if (!p.in || p.t < 4 || p.t >= TILE - 4)
        return tsr__cf_make(0.0f, 0.0f);
    return tsr__mig_x_interior(u, p.t, st.d2, st.xscale);
}

/* The coefficient table position of this point at depth row iz, frequency f. */
__device__ static void lookup_of(const dev_plan &dp, const point &p, int32_t iz, int32_t f,
                                 int32_t *j, float *a)
{
    *j = 0;
    *a = 0.0f;
    if (p.in)
        tsr__mig_lookup(dp.wdz[f] * dp.slow[(size_t)iz * dp.st.nx + p.x], dp.st.inv_dp,
                        dp.st.ntable, j, a);
}

/* u[k] <- taper * G u[k] for NF fields of this block's tile (conj[k] as tsr__mig_explicit_row),
 * through sh (2 NF shared rows). The recurrence is tsr__mig_explicit_row's per point:
 * T_{n+1} overwrites T_{n-1} in place (each thread reads T_{n-1} at its own point only), one
 * barrier per term. Every thread of the block calls it. */
template <int NF>
__device__ static void explicit_step(const dev_plan &dp, const point &p, int32_t j, float a,
                                     const int (&conj)[NF], tsr__cf (&u)[NF], tsr__cf (*sh)[TILE])
{
    const tsr__mig_step &st = dp.st;
    tsr__cf acc[NF];
    tsr__cf *prev[NF], *cur[NF];
    for (int k = 0; k < NF; k++) {
        prev[k] = sh[2 * k];
        cur[k] = sh[2 * k + 1];
        prev[k][p.t] = u[k];
        acc[k] = tsr__cf_mul(tsr__mig_coef(st.table, st.terms, j, a, 0), u[k], conj[k]);
    }
    __syncthreads();
    for (int k = 0; k < NF; k++) {
        tsr__cf x = x_of(st, prev[k], p);
        cur[k][p.t] = x;
        acc[k] = tsr__cf_madd(acc[k], tsr__mig_coef(st.table, st.terms, j, a, 1), x, conj[k]);
    }
    __syncthreads();
    for (int32_t n = 2; n < st.terms; n++) {
        for (int k = 0; k < NF; k++) {
            tsr__cf x = x_of(st, cur[k], p);
            tsr__cf t = p.in ? tsr__mig_cheb_next(x, prev[k][p.t]) : tsr__cf_make(0.0f, 0.0f);
            prev[k][p.t] = t;
            acc[k] = tsr__cf_madd(acc[k], tsr__mig_coef(st.table, st.terms, j, a, n), t, conj[k]);
        }
        __syncthreads();
        for (int k = 0; k < NF; k++) {
            tsr__cf *old = prev[k];
            prev[k] = cur[k];
            cur[k] = old;
        }
    }
    const float taper = p.in ? dp.taper[p.x] : 0.0f;
    for (int k = 0; k < NF; k++)
        u[k] = tsr__cf_scale(taper, acc[k]);
}

/* Migration at depth row iz, every frequency of shot blockIdx.z: adds the imaging terms of
 * (S, R) at iz into image and illum (rows of nx), then, above the last row, steps S (conj) and
 * R one row down into s_out, r_out. Fields: nfreq rows of nx per shot, `slab` apart; images
 * nz rows of nx per shot, `cells` apart. */
__global__ static void __launch_bounds__(TILE)
    k_image_step(dev_plan dp, int32_t iz, size_t slab, size_t cells,
                 const tsr__cf *__restrict__ s_in, const tsr__cf *__restrict__ r_in,
                 tsr__cf *__restrict__ s_out, tsr__cf *__restrict__ r_out,
                 double *__restrict__ image, double *__restrict__ illum)
{
    __shared__ tsr__cf sh[4][TILE];
    const int32_t nx = dp.st.nx;
    const point p = point_of(nx);
    const size_t shot = blockIdx.z;
    s_in += shot * slab;
    r_in += shot * slab;
    s_out += shot * slab;
    r_out += shot * slab;
    image += shot * cells;
    illum += shot * cells;
    const int conj[2] = {1, 0};
    for (int32_t f = (int32_t)blockIdx.y; f < dp.nfreq; f += (int32_t)gridDim.y) {
        const size_t o = (size_t)f * nx + (size_t)p.x;
        tsr__cf u[2] = {tsr__cf_make(0.0f, 0.0f), tsr__cf_make(0.0f, 0.0f)};
        if (p.in) {
            u[0] = s_in[o];
            u[1] = r_in[o];
        }
        if (p.mine) {
            atomicAdd(&image[(size_t)iz * nx + p.x], (double)tsr__mig_cross(u[0], u[1]));
            atomicAdd(&illum[(size_t)iz * nx + p.x], (double)tsr__mig_power(u[0]));
        }
        if (iz + 1 >= dp.nz)
            continue; /* the deepest row: image only (uniform over the block) */
        int32_t j;
        float a;
        lookup_of(dp, p, iz, f, &j, &a);
        explicit_step<2>(dp, p, j, a, conj, u, sh);
        if (p.mine) {
            s_out[o] = u[0];
            r_out[o] = u[1];
        }
        __syncthreads(); /* the next frequency rewrites sh */
    }
}

/* Modelling's source: the field at depth row iz + 1 from row iz, every frequency (slabs of
 * nfreq rows of nx, one per depth). */
__global__ static void __launch_bounds__(TILE)
    k_source_step(dev_plan dp, int32_t iz, const tsr__cf *__restrict__ s_in,
                  tsr__cf *__restrict__ s_out)
{
    __shared__ tsr__cf sh[2][TILE];
    const int32_t nx = dp.st.nx;
    const point p = point_of(nx);
    const int conj[1] = {1};
    for (int32_t f = (int32_t)blockIdx.y; f < dp.nfreq; f += (int32_t)gridDim.y) {
        const size_t o = (size_t)f * nx + (size_t)p.x;
        tsr__cf u[1] = {p.in ? s_in[o] : tsr__cf_make(0.0f, 0.0f)};
        int32_t j;
        float a;
        lookup_of(dp, p, iz, f, &j, &a);
        explicit_step<1>(dp, p, j, a, conj, u, sh);
        if (p.mine)
            s_out[o] = u[0];
        __syncthreads();
    }
}

/* Modelling's adjoint at depth row iz: q <- G^H (taper q) (tsr__mig_explicit_adjoint_row's
 * Clenshaw recurrence per point with conj 0, so conj' = 1; b_k overwriting b_{k+2} in place)
 * above the deepest row, then
 * the secondary source refl * S at iz added (tsr__mig_scatter_at). */
__global__ static void __launch_bounds__(TILE)
    k_model_step(dev_plan dp, int32_t iz, const tsr__cf *__restrict__ q_in,
                 const tsr__cf *__restrict__ s_iz, const float *__restrict__ refl,
                 tsr__cf *__restrict__ q_out)
{
    __shared__ tsr__cf sh[2][TILE];
    const tsr__mig_step &st = dp.st;
    const int32_t nx = st.nx;
    const point p = point_of(nx);
    const int deepest = iz + 1 >= dp.nz;
    for (int32_t f = (int32_t)blockIdx.y; f < dp.nfreq; f += (int32_t)gridDim.y) {
        const size_t o = (size_t)f * nx + (size_t)p.x;
        tsr__cf q = tsr__cf_make(0.0f, 0.0f);
        if (!deepest) {
            int32_t j;
            float a;
            lookup_of(dp, p, iz, f, &j, &a);
            const tsr__cf u = p.in ? tsr__cf_scale(dp.taper[p.x], q_in[o]) : q;
            tsr__cf *b1 = sh[0], *b2 = sh[1];
            b1[p.t] = q;
            b2[p.t] = q;
            __syncthreads();
            for (int32_t k = st.terms - 1; k >= 1; k--) {
                tsr__cf x = x_of(st, b1, p);
                tsr__cf b =
                    p.in ? tsr__mig_clenshaw_at(st.table, st.terms, j, a, k, u, x, b2[p.t], 1)
                         : tsr__cf_make(0.0f, 0.0f);
                b2[p.t] = b;
                __syncthreads();
                tsr__cf *t = b1;
                b1 = b2;
                b2 = t;
            }
            q = tsr__mig_clenshaw_at(st.table, st.terms, j, a, 0, u, x_of(st, b1, p), b2[p.t], 1);
            __syncthreads(); /* the next frequency rewrites sh */
        }
        if (p.mine)
            q_out[o] = tsr__mig_scatter_at(q, refl[(size_t)iz * nx + p.x], s_iz[o], deepest);
    }
}

void tsr__migcu_release(tsr_ctx *ctx, mig_cuda_state *s)
{
    if (ctx->cuda)
        cudaStreamSynchronize(ctx->cuda->stream);
    tsr__cuda_buffer *dev[] = {&s->table,    &s->slow,     &s->taper,    &s->wdz,
                               &s->field[0], &s->field[1], &s->field[2], &s->field[3],
                               &s->image,    &s->refl,     &s->sdepth,   &s->work3};
    for (size_t i = 0; i < sizeof dev / sizeof dev[0]; i++)
        tsr__cuda_buffer_free(dev[i]);
}

static void mig_cuda_state_destroy(tsr_ctx *ctx, void *state)
{
    mig_cuda_state *s = (mig_cuda_state *)state;
    tsr__migcu_release(ctx, s);
    tsr__cuda_host_buffer_free(&s->pin[0]);
    tsr__cuda_host_buffer_free(&s->pin[1]);
    if (s->have_timer)
        tsr__cuda_timer_destroy(&s->timer);
    tsr__free(ctx, s);
}

static const tsr__ctx_state_kind mig_cuda_kind = {"migrate CUDA buffers", mig_cuda_state_destroy};

tsr_status tsr__migcu_state(tsr_ctx *ctx, mig_cuda_state **out)
{
    tsr_status st = tsr__ctx_state_get(ctx, &mig_cuda_kind, sizeof **out, (void **)out);
    if (st)
        return st;
    if (!(*out)->have_timer) {
        if ((st = tsr__cuda_timer_create(ctx, &(*out)->timer)))
            return st;
        (*out)->have_timer = 1;
        (*out)->loop_ms = -1;
    }
    return TSR_OK;
}

tsr_status tsr__migcu_upload(tsr_ctx *ctx, tsr__cuda_buffer *b, const void *host, size_t n)
{
    tsr_status st = tsr__cuda_buffer_reserve(ctx, b, n);
    if (st)
        return st;
    TSR_CUDA_TRY(ctx, cudaMemcpyAsync(b->ptr, host, n, cudaMemcpyHostToDevice, ctx->cuda->stream));
    return TSR_OK;
}

/* The plan's tables on the device (uploaded unless they are this plan's already) and the
 * kernels' view of them. */
static tsr_status plan_on_device(tsr_ctx *ctx, mig_cuda_state *s, const tsr__migrate_plan *plan,
                                 dev_plan *dp)
{
    /* ncols: a 2D row's nx, a 3D slice's nx ny */
    const size_t nx = (size_t)plan->ncols, nz = (size_t)plan->nz, nf = (size_t)plan->nfreq;
    if (s->table.tag != plan->id || s->slow.tag != plan->id || s->taper.tag != plan->id ||
        s->wdz.tag != plan->id) {
        float *wdz;
        tsr_status st = tsr__alloc(ctx, sizeof(float) * nf, (void **)&wdz);
        if (st)
            return st;
        for (size_t f = 0; f < nf; f++)
            wdz[f] = (float)(plan->omega[f] * plan->dz); /* as extrap_freq.c's step_down */
        st = tsr__migcu_upload(ctx, &s->wdz, wdz, sizeof(float) * nf);
        tsr__free(ctx, wdz);
        if (st ||
            (st = tsr__migcu_upload(ctx, &s->table, plan->table,
                                    sizeof(tsr__cf) * (size_t)plan->ntable * TSR__MIG_TERMS)) ||
            (st = tsr__migcu_upload(ctx, &s->slow, plan->slow, sizeof(float) * nx * nz)) ||
            (st = tsr__migcu_upload(ctx, &s->taper, plan->taper, sizeof(float) * nx)))
            return st;
        s->table.tag = s->slow.tag = s->taper.tag = s->wdz.tag = plan->id;
    }
    dp->st.nx = plan->nx;
    dp->st.terms = TSR__MIG_TERMS;
    dp->st.ntable = plan->ntable;
    memcpy(dp->st.d2, plan->d2, sizeof dp->st.d2);
    dp->st.xscale = plan->xscale;
    dp->st.inv_dp = (float)(1.0 / plan->table_dp); /* as extrap_freq.c's step_of */
    dp->st.table = (const tsr__cf *)s->table.ptr;
    dp->st.ny = plan->ny;
    dp->st.xscale_y = plan->xscale_y;
    dp->slow = (const float *)s->slow.ptr;
    dp->taper = (const float *)s->taper.ptr;
    dp->wdz = (const float *)s->wdz.ptr;
    dp->nz = plan->nz;
    dp->nfreq = plan->nfreq;
    return TSR_OK;
}

/* Only explicit has a device step; migrate.c never brings other methods here. */
static tsr_status check_method(tsr_ctx *ctx, const tsr__migrate_plan *plan)
{
    if (plan->method == TSR_MIGRATE_EXPLICIT)
        return TSR_OK;
    return tsr__fail(ctx, TSR_ERR_NO_BACKEND, "migrate: method %s has no cuda backend",
                     tsr_migrate_method_name(plan->method));
}

/* (x tiles, frequencies, shots) */
static dim3 grid_of(const tsr__migrate_plan *plan, int32_t shots)
{
    int32_t tiles = (plan->nx + CORE - 1) / CORE;
    int32_t fb = plan->nfreq < MAX_FREQ_BLOCKS ? plan->nfreq : MAX_FREQ_BLOCKS;
    return dim3((unsigned)tiles, (unsigned)fb, (unsigned)shots);
}

/* Two field rows sets (nfreq * nx each) reserved in field[first], field[first + 1]. */
static tsr_status fields(tsr_ctx *ctx, mig_cuda_state *s, int first, int count, size_t bytes)
{
    tsr_status st = TSR_OK;
    for (int k = first; k < first + count && !st; k++)
        st = tsr__cuda_buffer_reserve(ctx, &s->field[k], bytes);
    return st;
}

tsr_status tsr__migcu_shot_begin(tsr_ctx *ctx, const tsr__migrate_plan *plan, mig_cuda_state **s,
                                 dev_plan *dp)
{
    tsr_status st;
    if ((st = check_method(ctx, plan)) || (st = tsr__migcu_state(ctx, s)))
        return st;
    return plan_on_device(ctx, *s, plan, dp);
}

/* Queues the uploads, the depth loop and the images' way back into the page-locked buffer on
 * the context's stream, and returns while they run. src and rec (pageable) are read by the
 * queued copies; the caller leaves them untouched until cuda_image_finish (the backend
 * contract), whether or not the runtime staged them before returning. */
static tsr_status cuda_image_start(tsr_ctx *ctx, const tsr__migrate_plan *plan, int32_t count,
                                   const tsr__cf *src, const tsr__cf *rec)
{
    mig_cuda_state *s;
    dev_plan dp;
    tsr_status st;
    if (plan->ny > 1)
        return tsr__migcu3_image_start(ctx, plan, count, src, rec);
    if ((st = tsr__migcu_shot_begin(ctx, plan, &s, &dp)))
        return st;
    cudaStream_t stream = ctx->cuda->stream;
    const size_t n = (size_t)count, cells = (size_t)plan->nx * (size_t)plan->nz;
    const size_t slab = (size_t)plan->nfreq * (size_t)plan->nx, rows = sizeof(tsr__cf) * slab * n;
    const size_t image_bytes = 2 * n * cells * sizeof(double); /* every image, then every illum */
    if ((st = fields(ctx, s, 0, 4, rows)) ||
        (st = tsr__cuda_buffer_reserve(ctx, &s->image, image_bytes)) ||
        (st = tsr__cuda_host_buffer_reserve(ctx, &s->pin[s->pin_last ^ 1], image_bytes)))
        return st;
    TSR_CUDA_TRY(ctx, cudaMemcpyAsync(s->field[0].ptr, src, rows, cudaMemcpyHostToDevice, stream));
    TSR_CUDA_TRY(ctx, cudaMemcpyAsync(s->field[1].ptr, rec, rows, cudaMemcpyHostToDevice, stream));
    TSR_CUDA_TRY(ctx, cudaMemsetAsync(s->image.ptr, 0, image_bytes, stream));
    double *dimage = (double *)s->image.ptr, *dillum = dimage + n * cells;
    TSR_CUDA_TRY(ctx, cudaEventRecord(s->timer.start, stream));
    int cur = 0; /* S, R in field[cur], field[cur + 1]; the next rows in the other pair */
    for (int32_t iz = 0; iz < plan->nz; iz++) {
        const tsr__cf *si = (const tsr__cf *)s->field[cur].ptr,
                      *ri = (const tsr__cf *)s->field[cur + 1].ptr;
        tsr__cf *so = (tsr__cf *)s->field[2 - cur].ptr, *ro = (tsr__cf *)s->field[3 - cur].ptr;
        k_image_step<<<grid_of(plan, count), TILE, 0, stream>>>(dp, iz, slab, cells, si, ri, so, ro,
                                                                dimage, dillum);
        TSR_CUDA_CHECK_LAUNCH(ctx, "k_image_step");
        cur = 2 - cur;
    }
    TSR_CUDA_TRY(ctx, cudaEventRecord(s->timer.stop, stream));
    s->pin_last ^= 1;
    TSR_CUDA_TRY(ctx, cudaMemcpyAsync(s->pin[s->pin_last].ptr, s->image.ptr, image_bytes,
                                      cudaMemcpyDeviceToHost, stream));
    return TSR_OK;
}

/* Waits for the last cuda_image_start's work; its images and illuminations are in the
 * page-locked buffer it copied into, which the next start leaves alone (the buffers take turns). */
static tsr_status cuda_image_finish(tsr_ctx *ctx, const tsr__migrate_plan *plan, int32_t count,
                                    const double **image, const double **illum,
                                    const tsr__mig_progress *progress)
{
    mig_cuda_state *s;
    tsr_status st;
    if ((st = tsr__migcu_state(ctx, &s)))
        return st;
    TSR_CUDA_TRY(ctx, cudaStreamSynchronize(ctx->cuda->stream));
    if ((st = tsr__cuda_timer_ms(ctx, &s->timer, &s->loop_ms)))
        return st;
    s->loop_ms /= (double)count;
    *image = (const double *)s->pin[s->pin_last].ptr;
    *illum = *image + (size_t)count * (size_t)plan->ncols * (size_t)plan->nz;
    return tsr__mig_report(ctx, progress, count * plan->nfreq);
}

static tsr_status cuda_model_shot(tsr_ctx *ctx, const tsr__migrate_plan *plan,
                                  const tsr__mig_fft *fft, const tsr__cf *src, const float *refl,
                                  tsr__cf *rec, const tsr__mig_progress *progress)
{
    (void)fft;
    mig_cuda_state *s;
    dev_plan dp;
    tsr_status st;
    if (plan->ny > 1)
        return tsr__migcu3_model_shot(ctx, plan, src, refl, rec, progress);
    if ((st = tsr__migcu_shot_begin(ctx, plan, &s, &dp)))
        return st;
    cudaStream_t stream = ctx->cuda->stream;
    const size_t nz = (size_t)plan->nz, cells = (size_t)plan->nx * nz;
    const size_t rows = sizeof(tsr__cf) * (size_t)plan->nfreq * (size_t)plan->nx;
    size_t depth_bytes;
    if (!tsr__size_mul3(rows, nz, 1, &depth_bytes))
        return tsr__fail(ctx, TSR_ERR_OVERFLOW, "migrate model: the source fields overflow");
    if (s->sdepth.size < depth_bytes) {
        size_t free_b = 0, total_b = 0;
        TSR_CUDA_TRY(ctx, cudaMemGetInfo(&free_b, &total_b));
        if (depth_bytes > free_b + s->sdepth.size)
            return tsr__fail(ctx, TSR_ERR_OUT_OF_MEMORY,
                             "migrate model: the cuda backend needs %.2f GiB of device memory for "
                             "the source field at every depth (%d frequencies x %d x %d); %.2f "
                             "GiB are free",
                             (double)depth_bytes / 1073741824.0, (int)plan->nfreq, (int)plan->nx,
                             (int)plan->nz, (double)free_b / 1073741824.0);
    }
    if ((st = tsr__cuda_buffer_reserve(ctx, &s->sdepth, depth_bytes)) ||
        (st = fields(ctx, s, 0, 2, rows)) ||
        (st = tsr__migcu_upload(ctx, &s->refl, refl, sizeof(float) * cells)))
        return st;
    tsr__cf *sd = (tsr__cf *)s->sdepth.ptr;
    const size_t slab = (size_t)plan->nfreq * (size_t)plan->nx;
    TSR_CUDA_TRY(ctx, cudaMemcpyAsync(sd, src, rows, cudaMemcpyHostToDevice, stream));
    TSR_CUDA_TRY(ctx, cudaEventRecord(s->timer.start, stream));
    for (int32_t iz = 0; iz + 1 < plan->nz; iz++) {
        k_source_step<<<grid_of(plan, 1), TILE, 0, stream>>>(dp, iz, sd + (size_t)iz * slab,
                                                             sd + (size_t)(iz + 1) * slab);
        TSR_CUDA_CHECK_LAUNCH(ctx, "k_source_step");
    }
    int cur = 0;
    for (int32_t iz = plan->nz - 1; iz >= 0; iz--) {
        k_model_step<<<grid_of(plan, 1), TILE, 0, stream>>>(
            dp, iz, (const tsr__cf *)s->field[cur].ptr, sd + (size_t)iz * slab,
            (const float *)s->refl.ptr, (tsr__cf *)s->field[1 - cur].ptr);
        TSR_CUDA_CHECK_LAUNCH(ctx, "k_model_step");
        cur = 1 - cur;
    }
    TSR_CUDA_TRY(ctx, cudaEventRecord(s->timer.stop, stream));
    TSR_CUDA_TRY(ctx,
                 cudaMemcpyAsync(rec, s->field[cur].ptr, rows, cudaMemcpyDeviceToHost, stream));
    TSR_CUDA_TRY(ctx, cudaStreamSynchronize(stream));
    if ((st = tsr__cuda_timer_ms(ctx, &s->timer, &s->loop_ms)))
        return st;
    return tsr__mig_report(ctx, progress, plan->nfreq);
}

double tsr__migrate_cuda_loop_ms(const tsr_ctx *ctx)
{
    const mig_cuda_state *s = (const mig_cuda_state *)tsr__ctx_state(ctx, &mig_cuda_kind);
    return s ? s->loop_ms : -1.0;
}

const tsr__migrate_backend tsr__migrate_backend_cuda = {TSR_BACKEND_CUDA, NULL, cuda_model_shot,
                                                        cuda_image_start, cuda_image_finish};
