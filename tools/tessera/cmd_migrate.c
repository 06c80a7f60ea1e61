/* tessera migrate: shot-profile depth migration (`image`), one-way Born modelling of shots
 * (`model`) and SEG-Y inspection (`info`). */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"
#include "migrate_mpi.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const cli_option migrate_options[] = {
    {"method", CLI_VALUE, "NAME",
     "image, model: explicit (default: a 16-term Chebyshev series of the horizontal Laplacian, "
     "laterally varying velocity) or phase-shift (Gazdag; exact for v(z), the mean slowness of "
     "each depth otherwise) or pspi (phase shift plus interpolation between up to 8 reference "
     "velocities per depth)."},
    {"fmin", CLI_VALUE, "HZ",
     "image, model: lowest frequency used (default: the first non-zero frequency)."},
    {"fmax", CLI_VALUE, "HZ",
     "image, model: highest frequency used (default: vmin / (2 max(dx, dz)), the highest the "
     "grid carries unaliased, at most the Nyquist frequency; 3D models: vmin / (3 max(dx, dy, "
     "dz)), where the explicit 3D operator stays accurate to 60 degrees; modelling also stops at "
     "3 f0)."},
    {"imaging", CLI_VALUE, "NAME",
     "image: cross (default: sum of Re(conj(S) R) over frequencies and shots) or normalized "
     "(each shot's image divided by its source illumination plus 1e-3 of its largest value)."},
    {"f0", CLI_VALUE, "HZ",
     "model: peak frequency of the Ricker wavelet (default 15). image: migrate with that "
     "zero-phase Ricker as the source (default: an impulse)."},
    {"png", CLI_VALUE, "PICTURE.png",
     "image: also draw the section, one pixel per sample, grey, clipped symmetrically at the "
     "99th percentile of |image|. A 3D image draws its inline section (x across, depth down) at "
     "the middle y node, iy = ny / 2 (the line the default 3D shots lie on)."},
    {"shots", CLI_VALUE, "X0:DX:N",
     "model: N sources from x = X0 metres, DX apart, at the top of the model (required)."},
    {"shots-y", CLI_VALUE, "Y0:DY:M",
     "model, 3D models only: the sources' y, M lines from Y0 metres DY apart; the shots are the "
     "N x M grid of --shots and these, x fastest (default: one line at the model's middle y "
     "node, oy + (ny / 2) dy). Example: --shots 100:200:3 --shots-y 150:100:2 fires 6 shots."},
    {"receivers", CLI_VALUE, "X0:DX:N",
     "model: N receivers from X0, DX apart, the same for every shot (default: one per grid "
     "column). 3D: the x of a receiver grid whose y --receivers-y gives."},
    {"receivers-y", CLI_VALUE, "Y0:DY:M",
     "model, 3D models only: receivers on M lines from Y0 metres DY apart, the same for every "
     "shot: --receivers x --receivers-y receivers in all, x fastest (default: every y node of the "
     "model, so that without either option every shot records on every surface node). Example: "
     "--receivers 0:20:51 --receivers-y 0:20:51."},
    {"t", CLI_VALUE, "SECONDS", "model: trace length (default 2)."},
    {"dt", CLI_VALUE, "SECONDS",
     "model: sample interval (default 0.004). Traces start ceil(1/f0) ms before the source fires "
     "(delay recording time < 0), so the wavelet is whole."},
    {"reflectivity", CLI_VALUE, "GRID.json",
     "model: the reflectivity to model from, on the model's grid (default: the velocity's "
     "vertical contrasts (v2 - v1) / (v2 + v1))."},
    {"taper", CLI_VALUE, "N",
     "image, model: absorbing columns at each side of the model (default 20, at most nx / 4)."},
    {"checkpoint", CLI_VALUE, "DIR",
     "image: keep the partial image and the shots done in the folder DIR (made when missing), "
     "replaced atomically after every shot (every batch on cuda); started again with the same "
     "arguments, a killed run resumes there and gives the image an uninterrupted run gives (bit "
     "for bit on the reference backend and with --threads 1 on cpu; elsewhere within the "
     "rounding by which two whole runs may differ). A folder from other shots, model, options "
     "or backend is refused. The finished checkpoint stays: running again only writes OUT."},
    {"max-shots", CLI_VALUE, "N",
     "image, with --checkpoint: migrate at most N more shots this run, then stop (exit 0, OUT "
     "not written, a note says how many are done) so that a later run continues."},
    CLI_OPTION_BACKEND("auto (default: cuda for --method explicit, 2D or 3D, where a CUDA "
                       "GPU is present, since every depth step does thousands of operations per "
                       "byte of wavefield in 2D and streams each depth slice through memory 15 "
                       "times in 3D; the cpu backend for phase-shift and pspi and without a "
                       "GPU), cuda (--method explicit: the wavefields of a shot's frequencies on "
                       "the GPU, in 3D in chunks of frequencies sized to its memory), "
                       "cpu (OpenMP over frequencies) or reference (single-threaded, the image "
                       "summed in double)"),
    CLI_OPTION_THREADS,
    {"json", CLI_FLAG, NULL,
     "Print a JSON summary on stdout (info: the headers; image, model: grid, shots, backend, "
     "time; image also ranks and reduce_ms, the milliseconds rank 0 spent adding the other "
     "ranks' images, 0 on one process)."},
    CLI_OPTION_QUIET,
    {0}};

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

static int is_segy_name(const char *path)
{
    return ends_with(path, ".sgy") || ends_with(path, ".segy") || ends_with(path, ".SGY") ||
           ends_with(path, ".SEGY");
}

/* "X0:DX:N": X0 and DX finite, N in 1 .. 100000. */
static int parse_line(const char *s, double *x0, double *dx, int32_t *n)
{
    char buf[256];
    if (!s || strlen(s) >= sizeof buf)
        return 0;
    strcpy(buf, s);
    char *a = buf, *b = strchr(a, ':'), *c = b ? strchr(b + 1, ':') : NULL;
    if (!b || !c)
        return 0;
    *b++ = 0;
    *c++ = 0;
    long long v;
    if (!cli_parse_double(a, -1e9, 1e9, x0) || !cli_parse_double(b, -1e9, 1e9, dx) ||
        !cli_parse_int(c, 1, 100000, &v))
        return 0;
    *n = (int32_t)v;
    return 1;
}

static int parse_common(const cli_command *cmd, const cli_args *args, tsr_migrate_options *opt)
{
    const char *v;
    if ((v = cli_get(cmd, args, "method")) && tsr_migrate_method_parse(v, &opt->method)) {
        cli_error(cmd, "unknown --method '%s' (explicit, phase-shift, pspi)", v);
        return TSR_EXIT_USAGE;
    }
    if ((v = cli_get(cmd, args, "imaging")) && tsr_migrate_imaging_parse(v, &opt->imaging)) {
        cli_error(cmd, "unknown --imaging '%s' (cross, normalized)", v);
        return TSR_EXIT_USAGE;
    }
    struct {
        const char *name;
        double *out;
    } nums[] = {{"fmin", &opt->fmin}, {"fmax", &opt->fmax}, {"f0", &opt->f0}};
    for (int i = 0; i < 3; i++)
        if ((v = cli_get(cmd, args, nums[i].name)) && !cli_parse_double(v, 0, 1e6, nums[i].out)) {
            cli_error(cmd, "--%s wants a frequency in Hz from 0 to 1e6, not '%s'", nums[i].name, v);
            return TSR_EXIT_USAGE;
        }
    if ((v = cli_get(cmd, args, "taper"))) {
        long long t;
        if (!cli_parse_int(v, 0, 100000, &t)) {
            cli_error(cmd, "--taper wants a column count from 0 to 100000, not '%s'", v);
            return TSR_EXIT_USAGE;
        }
        opt->taper = (int32_t)t;
    }
    return 0;
}

/* The grid's geometry: the 2D keys, then ny (1 for a 2D grid), and dy and oy in 3D only. */
static void json_grid(const tsr_migrate_grid *g)
{
    printf("\"grid\": {\"nx\": %d, \"nz\": %d, \"dx\": %.17g, \"dz\": %.17g, \"ox\": %.17g, "
           "\"oz\": %.17g, \"ny\": %d",
           (int)g->nx, (int)g->nz, g->dx, g->dz, g->ox, g->oz, g->ny > 1 ? (int)g->ny : 1);
    if (g->ny > 1)
        printf(", \"dy\": %.17g, \"oy\": %.17g", g->dy, g->oy);
    printf("}");
}

static int cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return x < y ? -1 : x > y;
}

/* The section as a grey PNG: x across, depth down, symmetric clip at the 99th percentile (of
 * the section drawn). A 3D grid: the inline at the middle y node, iy = ny / 2. */
static tsr_status save_png(tsr_ctx *ctx, const char *path, const tsr_migrate_grid *g)
{
    size_t n = (size_t)g->nx * (size_t)g->nz;
    const float *section = g->data + (g->ny > 1 ? (size_t)(g->ny / 2) * n : 0);
    float *mag = malloc(sizeof(float) * n);
    if (!mag)
        return TSR_ERR_OUT_OF_MEMORY;
    for (size_t i = 0; i < n; i++)
        mag[i] = fabsf(section[i]);
    qsort(mag, n, sizeof *mag, cmp_float);
    float clip = mag[(size_t)(0.99 * (double)(n - 1))];
    free(mag);
    if (!(clip > 0))
        clip = 1;
    tsr_image img;
    tsr_status st = tsr_image_alloc(ctx, &img, g->nx, g->nz, 1, TSR_U8);
    if (st)
        return st;
    for (int32_t iz = 0; iz < g->nz; iz++) {
        uint8_t *row = (uint8_t *)img.data + (size_t)iz * img.stride;
        for (int32_t ix = 0; ix < g->nx; ix++) {
            float v = section[(size_t)ix * g->nz + iz] / clip;
            v = v < -1 ? -1 : v > 1 ? 1 : v;
            row[ix] = (uint8_t)lrintf(127.5f + 127.5f * v);
        }
    }
    tsr_save_options so;
    tsr_save_options_init(&so);
    so.format = TSR_FORMAT_PNG;
    st = tsr_image_save(ctx, path, &img, &so);
    tsr_image_free(ctx, &img);
    return st;
}

static int run_info(const cli_command *cmd, const cli_args *args, tsr_ctx *ctx)
{
    const char *in = args->positional[1];
    tsr_migrate_gather g;
    tsr_migrate_segy_info info;
    tsr_status st = tsr_migrate_segy_read(ctx, in, &g, &info);
    if (st)
        return cli_fail(cmd, ctx, st, in);
    if (cli_get(cmd, args, "json")) {
        printf("{\"file\": ");
        cli_json_string(stdout, in);
        printf(", \"format\": %d, \"byte_order\": \"%s\", \"revision\": %d, \"samples\": %d, "
               "\"trace_header_samples\": %d, \"dt\": %.9g, \"t0\": %.9g, \"traces\": %lld, "
               "\"shots\": %d, \"sx\": [%.17g, %.17g], \"gx\": [%.17g, %.17g], "
               "\"sy\": [%.17g, %.17g], \"gy\": [%.17g, %.17g], \"traces_per_shot\": [",
               (int)info.format, info.little_endian ? "little" : "big", (int)info.revision,
               (int)info.samples, (int)info.trace_header_samples, info.dt, g.t0,
               (long long)info.traces, (int)info.shots, info.sx_min, info.sx_max, info.gx_min,
               info.gx_max, info.sy_min, info.sy_max, info.gy_min, info.gy_max);
        for (int32_t s = 0; s < g.nshots; s++)
            printf("%s%d", s ? ", " : "", (int)g.shots[s].ntraces);
        printf("]}\n");
    } else {
        printf("%s: SEG-Y format %d (%s-endian), revision %d\n", in, (int)info.format,
               info.little_endian ? "little" : "big", (int)info.revision);
        printf("  %lld traces of %d samples, dt %g s, first sample at %g s", (long long)info.traces,
               (int)info.samples, info.dt, g.t0);
        if (info.trace_header_samples != info.samples)
            printf(" (trace headers say %d samples; the binary header's count is used)",
                   (int)info.trace_header_samples);
        printf("\n  %d shot%s, source x %g .. %g m, receiver x %g .. %g m\n", (int)info.shots,
               info.shots == 1 ? "" : "s", info.sx_min, info.sx_max, info.gx_min, info.gx_max);
        printf("  source y %g .. %g m, receiver y %g .. %g m\n", info.sy_min, info.sy_max,
               info.gy_min, info.gy_max);
        for (int32_t s = 0; s < g.nshots && s < 20; s++)
            printf("  shot %d: source x %g m, y %g m, %d traces\n", (int)s + 1, g.shots[s].sx,
                   g.shots[s].sy, (int)g.shots[s].ntraces);
        if (g.nshots > 20)
            printf("  ... %d more shots\n", (int)g.nshots - 20);
    }
    tsr_migrate_gather_free(ctx, &g);
    return 0;
}

/* tsr_migrate_image_add's callback with --checkpoint: saves; a failed save stops the run with
 * its message kept here (the run's own failure would replace the context's). */
typedef struct checkpointing {
    tsr_ctx *ctx;
    tsr_migrate_checkpoint *cp;
    char error[1024];
} checkpointing;

static int save_checkpoint(void *user, int32_t shots_done, const double *sum)
{
    checkpointing *c = user;
    if (tsr_migrate_checkpoint_save(c->ctx, c->cp, shots_done, sum) == TSR_OK)
        return 0;
    snprintf(c->error, sizeof c->error, "%s", tsr_ctx_last_error(c->ctx));
    return 1;
}

/* Migrates g into img through the checkpoint folder dir, at most max_shots more shots (0: all):
 * *first is where this run started, *done where it stopped. Returns 0 or the exit code after
 * printing one line. */
static int image_checkpointed(const cli_command *cmd, tsr_ctx *ctx, const char *dir,
                              int32_t max_shots, const char *in, const char *model,
                              const tsr_migrate_grid *v, const tsr_migrate_gather *g,
                              const tsr_migrate_options *opt, tsr_migrate_grid *img, int32_t *first,
                              int32_t *done)
{
    double *sum = malloc(sizeof(double) * tsr_migrate_grid_cells(v));
    if (!sum)
        return cli_fail(cmd, ctx, TSR_ERR_OUT_OF_MEMORY, NULL);
    checkpointing c = {ctx, NULL, ""};
    int rc = 0;
    tsr_status st = tsr_migrate_checkpoint_open(ctx, dir, v, g, opt, in, model, &c.cp, first, sum);
    if (st) {
        rc = cli_fail(cmd, ctx, st, dir);
        goto done;
    }
    int32_t count = g->nshots - *first;
    if (max_shots > 0 && count > max_shots)
        count = max_shots;
    st = tsr_migrate_image_add(ctx, v, g, opt, *first, count, sum, save_checkpoint, &c);
    if (st && c.error[0]) {
        cli_error(cmd, "%s", c.error);
        rc = TSR_EXIT_FAILURE;
        goto done;
    }
    if (st) {
        rc = cli_fail(cmd, ctx, st, in);
        goto done;
    }
    *done = *first + count;
    if (*done == g->nshots && (st = tsr_migrate_image_from_sum(ctx, v, sum, img)))
        rc = cli_fail(cmd, ctx, st, NULL);
done:
    tsr_migrate_checkpoint_close(ctx, c.cp);
    free(sum);
    return rc;
}

/* Every rank of an MPI run: its share of the shots (migrate_mpi_image), then on rank 0 the total
 * into img. Returns 0 or the agreed exit status. */
static int image_ranks(const cli_command *cmd, migrate_mpi *mpi, tsr_ctx *ctx, const char *in,
                       const tsr_migrate_grid *v, const tsr_migrate_gather *g,
                       const tsr_migrate_options *opt, tsr_migrate_grid *img, double *reduce_ms)
{
    double *sum = malloc(sizeof(double) * tsr_migrate_grid_cells(v));
    int rc = sum ? 0 : cli_fail(cmd, ctx, TSR_ERR_OUT_OF_MEMORY, NULL);
    if (!(rc = migrate_mpi_agree(cmd, mpi, rc)))
        rc = migrate_mpi_image(cmd, mpi, ctx, in, v, g, opt, sum, reduce_ms);
    tsr_status st;
    if (!rc && mpi->rank == 0 && (st = tsr_migrate_image_from_sum(ctx, v, sum, img)))
        rc = cli_fail(cmd, ctx, st, NULL);
    free(sum);
    return rc;
}

static int run_image(const cli_command *cmd, const cli_args *args, tsr_ctx *ctx,
                     const tsr_migrate_options *opt, int quiet, migrate_mpi *mpi)
{
    const char *in = args->positional[1], *model = args->positional[2], *out = args->positional[3],
               *png = cli_get(cmd, args, "png"), *dir = cli_get(cmd, args, "checkpoint"),
               *max = cli_get(cmd, args, "max-shots");
    long long max_shots = 0;
    if (max && (!cli_parse_int(max, 1, INT32_MAX, &max_shots) || !dir)) {
        cli_error(cmd,
                  "--max-shots wants a shot count of at least 1 and --checkpoint DIR, not "
                  "'%s'%s",
                  max, dir ? "" : " alone");
        return TSR_EXIT_USAGE;
    }
    if (dir && mpi->size > 1) {
        cli_error(cmd,
                  "--checkpoint keeps one process's partial image: run it without mpirun or "
                  "with -np 1, not on %d ranks",
                  mpi->size);
        return TSR_EXIT_USAGE;
    }
    tsr_migrate_gather g = {0};
    tsr_migrate_grid v = {0}, img = {0};
    tsr_status st;
    int rc = 0;
    int32_t first = 0, done = 0;
    if ((st = tsr_migrate_segy_read(ctx, in, &g, NULL)))
        return cli_fail(cmd, ctx, st, in);
    done = g.nshots;
    if ((st = tsr_migrate_grid_load(ctx, model, &v))) {
        rc = cli_fail(cmd, ctx, st, model);
        goto done;
    }
    if ((st = tsr_migrate_grid_alloc_like(ctx, &img, &v))) {
        rc = cli_fail(cmd, ctx, st, NULL);
        goto done;
    }
    double t0 = cli_now(), reduce_ms = 0;
    if (mpi->size > 1) {
        if ((rc = image_ranks(cmd, mpi, ctx, in, &v, &g, opt, &img, &reduce_ms)))
            goto done;
    } else if (dir) {
        if ((rc = image_checkpointed(cmd, ctx, dir, (int32_t)max_shots, in, model, &v, &g, opt,
                                     &img, &first, &done)))
            goto done;
    } else if ((st = tsr_migrate_image(ctx, &v, &g, opt, &img))) {
        rc = cli_fail(cmd, ctx, st, in);
        goto done;
    }
    double seconds = cli_now() - t0;
    if (mpi->rank > 0) /* rank 0 writes the image and reports */
        goto done;
    const int complete = done == g.nshots;
    if (!complete && !quiet)
        fprintf(stderr,
                "tessera migrate: %d of %d shots are in the checkpoint '%s'; run again to "
                "continue (%s not written)\n",
                (int)done, (int)g.nshots, dir, out);
    if (complete) {
        st = is_segy_name(out) ? tsr_migrate_grid_save_segy(ctx, out, &img)
                               : tsr_migrate_grid_save(ctx, out, &img, "image amplitude");
        if (st) {
            rc = cli_fail(cmd, ctx, st, out);
            goto done;
        }
        if (png && (st = save_png(ctx, png, &img))) {
            rc = cli_fail(cmd, ctx, st, png);
            goto done;
        }
    }
    if (cli_get(cmd, args, "json")) {
        long long traces = 0;
        for (int32_t s = 0; s < g.nshots; s++)
            traces += g.shots[s].ntraces;
        printf("{\"command\": \"migrate image\", \"input\": ");
        cli_json_string(stdout, in);
        printf(", \"model\": ");
        cli_json_string(stdout, model);
        printf(", \"output\": ");
        cli_json_string(stdout, out);
        printf(", \"method\": \"%s\", \"imaging\": \"%s\", \"backend\": \"%s\", ",
               tsr_migrate_method_name(opt->method), tsr_migrate_imaging_name(opt->imaging),
               tsr_backend_name(tsr_ctx_backend(ctx)));
        json_grid(&img);
        printf(", \"shots\": %d, \"traces\": %lld, \"samples\": %d, \"dt\": %.9g, "
               "\"seconds\": %.6f, \"ranks\": %d, \"reduce_ms\": %.3f",
               (int)g.nshots, traces, (int)g.nt, g.dt, seconds, mpi->size, reduce_ms);
        if (dir) {
            printf(", \"checkpoint\": ");
            cli_json_string(stdout, dir);
            printf(", \"resumed_at\": %d, \"shots_done\": %d, \"complete\": %s", (int)first,
                   (int)done, complete ? "true" : "false");
        }
        printf("}\n");
    }
done:
    tsr_migrate_gather_free(ctx, &g);
    tsr_migrate_grid_free(ctx, &v);
    tsr_migrate_grid_free(ctx, &img);
    return rc;
}

/* Positions of model's shots and receivers: x lines and, in 3D, y lines (count 1 in 2D). */
typedef struct survey {
    double x0, dx, y0, dy;
    int32_t nx, ny;
} survey;

/* One of --shots/--receivers with its -y sibling on the model vel; def_* are the defaults of
 * the x line (have_x 0) and of the y line. Returns 0 or prints and returns the usage status. */
static int parse_survey(const cli_command *cmd, const char *name, const char *xs, const char *ys,
                        const tsr_migrate_grid *vel, double def_x0, double def_dx, int32_t def_nx,
                        double def_y0, double def_dy, int32_t def_ny, survey *out)
{
    *out = (survey){def_x0, def_dx, def_y0, def_dy, def_nx, def_ny};
    if (xs && !parse_line(xs, &out->x0, &out->dx, &out->nx)) {
        cli_error(cmd, "--%s wants X0:DX:N, not '%s'", name, xs);
        return TSR_EXIT_USAGE;
    }
    if (ys && vel->ny < 2) {
        cli_error(cmd, "--%s-y needs a 3D model (ny >= 2); this model is 2D", name);
        return TSR_EXIT_USAGE;
    }
    if (ys && !parse_line(ys, &out->y0, &out->dy, &out->ny)) {
        cli_error(cmd, "--%s-y wants Y0:DY:M, not '%s'", name, ys);
        return TSR_EXIT_USAGE;
    }
    if ((int64_t)out->nx * out->ny > 10000000) {
        cli_error(cmd, "--%s and --%s-y make %lld positions, more than 10000000", name, name,
                  (long long)out->nx * out->ny);
        return TSR_EXIT_USAGE;
    }
    return 0;
}

static int run_model(const cli_command *cmd, const cli_args *args, tsr_ctx *ctx,
                     tsr_migrate_options *opt)
{
    const char *model = args->positional[1], *out = args->positional[2];
    const char *shots = cli_get(cmd, args, "shots"),
               *refl_path = cli_get(cmd, args, "reflectivity");
    double t = 2.0, dt = 0.004;
    if (!shots) {
        cli_error(cmd, "model needs --shots X0:DX:N (metres, metres, a count from 1 to 100000)");
        return TSR_EXIT_USAGE;
    }
    const char *v;
    if ((v = cli_get(cmd, args, "t")) && !cli_parse_double(v, 1e-3, 1e4, &t)) {
        cli_error(cmd, "--t wants seconds from 0.001 to 10000, not '%s'", v);
        return TSR_EXIT_USAGE;
    }
    if ((v = cli_get(cmd, args, "dt")) && !cli_parse_double(v, 1e-6, 1, &dt)) {
        cli_error(cmd, "--dt wants seconds from 1e-6 to 1, not '%s'", v);
        return TSR_EXIT_USAGE;
    }
    if (opt->f0 == 0)
        opt->f0 = 15;
    double nt = floor(t / dt + 0.5) + 1;
    if (nt < 2 || nt > 65535) {
        cli_error(cmd, "--t %g s of --dt %g s gives %.0f samples; SEG-Y holds 2 to 65535", t, dt,
                  nt);
        return TSR_EXIT_USAGE;
    }
    if (!is_segy_name(out)) {
        cli_error(cmd, "model writes SEG-Y: OUT must end in .sgy or .segy, not '%s'", out);
        return TSR_EXIT_USAGE;
    }
    tsr_migrate_grid vel = {0}, refl = {0};
    tsr_migrate_gather g = {0};
    tsr_status st;
    int rc = 0;
    if ((st = tsr_migrate_grid_load(ctx, model, &vel)))
        return cli_fail(cmd, ctx, st, model);
    /* defaults: 3D shots on the middle y node's line, receivers on every surface node */
    const int is3d = vel.ny > 1;
    const int32_t ny = is3d ? vel.ny : 1;
    survey sv, rv;
    if ((rc = parse_survey(cmd, "shots", shots, cli_get(cmd, args, "shots-y"), &vel, 0, 0, 0,
                           is3d ? vel.oy + (double)(vel.ny / 2) * vel.dy : 0, 0, 1, &sv)) ||
        (rc = parse_survey(cmd, "receivers", cli_get(cmd, args, "receivers"),
                           cli_get(cmd, args, "receivers-y"), &vel, vel.ox, vel.dx, vel.nx,
                           is3d ? vel.oy : 0, is3d ? vel.dy : 0, ny, &rv)))
        goto done;
    if (refl_path && (st = tsr_migrate_grid_load(ctx, refl_path, &refl))) {
        rc = cli_fail(cmd, ctx, st, refl_path);
        goto done;
    }
    const int32_t ns = sv.nx * sv.ny, nr = rv.nx * rv.ny;
    double t0 = -ceil(1000.0 / opt->f0) / 1000.0; /* whole ms, at least 1 / f0 */
    if ((st = tsr_migrate_gather_alloc(ctx, &g, ns, nr, (int32_t)nt, dt, t0))) {
        rc = cli_fail(cmd, ctx, st, NULL);
        goto done;
    }
    for (int32_t s = 0; s < ns; s++) {
        g.shots[s].sx = sv.x0 + (s % sv.nx) * sv.dx;
        g.shots[s].sy = is3d ? sv.y0 + (s / sv.nx) * sv.dy : 0;
        for (int32_t r = 0; r < nr; r++) {
            g.shots[s].gx[r] = rv.x0 + (r % rv.nx) * rv.dx;
            g.shots[s].gy[r] = is3d ? rv.y0 + (r / rv.nx) * rv.dy : 0;
        }
    }
    double c0 = cli_now();
    if ((st = tsr_migrate_model(ctx, &vel, refl_path ? &refl : NULL, opt, &g))) {
        rc = cli_fail(cmd, ctx, st, model);
        goto done;
    }
    double seconds = cli_now() - c0;
    if ((st = tsr_migrate_segy_write(ctx, out, &g))) {
        rc = cli_fail(cmd, ctx, st, out);
        goto done;
    }
    if (cli_get(cmd, args, "json")) {
        printf("{\"command\": \"migrate model\", \"model\": ");
        cli_json_string(stdout, model);
        printf(", \"output\": ");
        cli_json_string(stdout, out);
        printf(", \"method\": \"%s\", \"backend\": \"%s\", ", tsr_migrate_method_name(opt->method),
               tsr_backend_name(tsr_ctx_backend(ctx)));
        json_grid(&vel);
        printf(", \"shots\": %d, \"receivers\": %d, \"samples\": %d, \"dt\": %.9g, \"t0\": %.9g, "
               "\"f0\": %.9g, \"seconds\": %.6f}\n",
               (int)ns, (int)nr, (int)g.nt, dt, t0, opt->f0, seconds);
    }
done:
    tsr_migrate_gather_free(ctx, &g);
    tsr_migrate_grid_free(ctx, &vel);
    tsr_migrate_grid_free(ctx, &refl);
    return rc;
}

/* The sub-commands on one process or, `image` under mpirun, on every rank. */
static int run_sub(const cli_command *cmd, int argc, char **argv, migrate_mpi *mpi)
{
    cli_args args;
    int rc = cli_parse(cmd, argc, argv, &args);
    if (rc)
        return rc < 0 ? TSR_EXIT_OK : rc;
    if (args.npositional < 1) {
        cli_error(cmd, "missing sub-command: image, model or info (see --help)");
        return TSR_EXIT_USAGE;
    }
    const char *sub = args.positional[0];
    static const struct {
        const char *name;
        int positional;
        const char *usage;
    } subs[] = {{"image", 4, "image wants SHOTS.sgy MODEL.json OUT"},
                {"model", 3, "model wants MODEL.json OUT.sgy"},
                {"info", 2, "info wants one SEG-Y file"}};
    int which = -1;
    for (int i = 0; i < 3; i++)
        if (strcmp(sub, subs[i].name) == 0)
            which = i;
    if (which < 0) {
        cli_error(cmd, "unknown sub-command '%s' (image, model or info)", sub);
        return TSR_EXIT_USAGE;
    }
    if (args.npositional != subs[which].positional) {
        cli_error(cmd, "%s", subs[which].usage);
        return TSR_EXIT_USAGE;
    }
    if (which != 0 && mpi->size > 1) {
        cli_error(cmd, "%s runs on one process; only image splits across %d MPI ranks", sub,
                  mpi->size);
        return TSR_EXIT_USAGE;
    }
    tsr_migrate_options opt;
    tsr_migrate_options_init(&opt);
    if ((rc = parse_common(cmd, &args, &opt)))
        return rc;
    /* One GPU per rank of a machine, where it has GPUs and the backend may take one (counting
     * them starts the CUDA runtime, which host-only runs do not need). */
    const char *backend = cli_get(cmd, &args, "backend");
    tsr_backend asked = TSR_BACKEND_AUTO;
    if (!backend)
        backend = getenv("TSR_BACKEND");
    if (backend)
        tsr_backend_parse(backend, &asked); /* an unknown name fails in cli_open_context */
    int ngpu = mpi->size > 1 && (asked == TSR_BACKEND_AUTO || asked == TSR_BACKEND_CUDA)
                   ? tsr_backend_device_count(TSR_BACKEND_CUDA)
                   : 0;
    int quiet = cli_get(cmd, &args, "quiet") || cli_get(cmd, &args, "json") || mpi->rank > 0;
    tsr_ctx *ctx;
    if ((rc = cli_open_device_context(cmd, &args, quiet || which == 2,
                                      ngpu ? mpi->local_rank % ngpu : 0, &ctx)))
        return rc;
    cli_stop_catch();
    rc = which == 0   ? run_image(cmd, &args, ctx, &opt, quiet, mpi)
         : which == 1 ? run_model(cmd, &args, ctx, &opt)
                      : run_info(cmd, &args, ctx);
    cli_stop_release();
    tsr_ctx_destroy(ctx);
    return rc;
}

static int run_migrate(const cli_command *cmd, int argc, char **argv)
{
    migrate_mpi mpi;
    int rc = migrate_mpi_start(cmd, &mpi);
    if (!rc)
        rc = run_sub(cmd, argc, argv, &mpi);
    return migrate_mpi_stop(cmd, &mpi, rc);
}

const cli_command cli_cmd_migrate = {
    "migrate",
    "seismic shot-profile depth migration (explicit, phase-shift, PSPI), modelling, SEG-Y info",
    "image SHOTS.sgy MODEL.json OUT [--method explicit|phase-shift|pspi] [--fmin HZ]\n"
    "                       [--fmax HZ] [--imaging cross|normalized] [--f0 HZ] [--png "
    "PICTURE.png]\n"
    "                       [--backend auto|cpu|cuda|reference] [--threads N]\n"
    "                       [--checkpoint DIR [--max-shots N]] [--json]\n"
    "       tessera migrate model MODEL.json OUT.sgy --shots X0:DX:N [--receivers X0:DX:N]\n"
    "                       [--shots-y Y0:DY:M] [--receivers-y Y0:DY:M] (3D models)\n"
    "                       [--t SECONDS] [--dt SECONDS] [--f0 HZ] [--reflectivity GRID.json]\n"
    "       tessera migrate info FILE.sgy [--json]",
    "image: 2D and 3D prestack shot-profile depth migration in the frequency domain. Each shot's "
    "traces "
    "are transformed along time (FFTW); for every frequency the source wavefield (an impulse at "
    "the source, or a Ricker wavelet with --f0) and the receiver wavefield (the traces) are "
    "extrapolated down the model one depth step at a time, and the image is the sum over "
    "frequencies and shots of Re(conj(S) R). SHOTS is SEG-Y (any byte order; IBM or IEEE floats "
    "or integers) read through segyio: sample count and interval from the binary header, "
    "source and receiver x and y from trace header bytes 73, 81, 77 and 85 scaled by bytes "
    "71-72, traces grouped into shots by source position (x, y). MODEL is a grid sidecar: a JSON "
    "file (file, nx, nz, dx, dz, ox, oz) naming raw little-endian float32 velocities in m/s, C "
    "order (nx, nz), z fast; a 3D model adds ny (>= 2), dy and oy and is C order (ny, nx, nz). "
    "The image is computed on the model's grid; OUT ending in .sgy or .segy gets SEG-Y (one "
    "trace per x; 3D: one per (x, y) column, x fastest, CDP x and y at bytes 181 and 185, inline "
    "and crossline numbers at 189 and 193), anything else a sidecar (OUT and OUT with .json "
    "replaced by .f32). Sources and receivers sit on the top surface at the nearest grid node "
    "(x, or (x, y) in 3D); one outside the model is an error naming the shot and trace. 3D runs "
    "all three methods on the cpu and reference backends and --method explicit on cuda too "
    "(auto takes it where a GPU is present); a 3D run whose working set exceeds the machine's "
    "memory, or the GPU's with one frequency at a time, is refused with the bytes it needs. "
    "model: one-way Born "
    "modelling, the adjoint of the same extrapolator, writes synthetic shots as SEG-Y. info: "
    "prints what a SEG-Y file's headers say and how its traces group into shots. Outputs appear "
    "only when complete. Under mpirun -np N (a build with MPI), image splits the shots into "
    "contiguous ranges across the ranks, one GPU per rank where there are GPUs; rank 0 adds the "
    "ranks' double images in rank order and alone writes OUT, --png and --json (with \"ranks\" "
    "and \"reduce_ms\"). The image equals one process's to the rounding of the reordered double "
    "sum; an error on any rank ends every rank with one message naming the rank and no output; "
    "--checkpoint, model and info run on one process. Not yet: 3D, phase-shift and PSPI on the "
    "GPU.",
    migrate_options,
    "  tessera migrate model vel.json shots.sgy --shots 1000:500:3 --t 1.5 --f0 15\n"
    "  tessera migrate info shots.sgy\n"
    "  tessera migrate image shots.sgy vel.json image.json --png image.png --json\n"
    "  tessera migrate image shots.sgy vel.json image.sgy --method phase-shift --fmax 40\n"
    "  tessera migrate image shots.sgy vel.json image.json --backend cuda --json\n"
    "  tessera migrate image shots.sgy vel.json image.json --checkpoint image.ckpt\n"
    "  mpirun -np 4 tessera migrate image shots.sgy vel.json image.json --json\n"
    "  tessera migrate model vel3d.json shots3d.sgy --shots 200:200:2 --shots-y 200:0:1 --t 0.6\n"
    "  tessera migrate image shots3d.sgy vel3d.json image3d.sgy --png inline.png --json",
    run_migrate};
