/* tessera migrate: 2D and 3D shot-profile depth migration in the frequency domain, and one-way
 * Born modelling with the adjoint of the same extrapolator.
 *
 * Each shot's traces are Fourier transformed along time; for every frequency w a source wavefield
 * (an impulse at the source position, or a zero-phase Ricker wavelet) and the receiver wavefield
 * (the recorded traces) are extrapolated down the model one depth step at a time, and the image at
 * each depth is sum over w and shots of Re(conj(S) R) ("cross"), or that sum divided by the
 * source illumination sum |S|^2 ("normalized"). Extrapolators:
 *   explicit     (default) G = sum_n c_n T_n(X), a Chebyshev series in a normalised horizontal
 *                second-derivative operator X, approximating exp(i kz dz),
 *                kz = sqrt(w^2/v^2 - kx^2); the coefficients depend on w dz / v only and are
 *                looked up per grid point, so the velocity may vary laterally (Soubaras 1996;
 *                GPU Gems 3, ch. 38). src/migrate/design.c documents the coefficient design.
 *   phase-shift  Gazdag's phase shift: exact for v(z); a laterally varying model is migrated
 *                with the mean slowness of each depth.
 *   pspi         phase shift plus interpolation (Gazdag and Sguazzero 1984): each depth step
 *                phase-shifts with up to 8 reference slownesses spanning the depth's range and
 *                interpolates the results linearly in slowness at each x.
 *
 * Grids are C-order (nx, nz) float32 arrays, z the fast axis: sample (ix, iz) is
 * data[ix * nz + iz] at x = ox + ix dx, z = oz + iz dz (metres). Sources and receivers sit at the
 * top of the grid (z = oz), at the grid column nearest their x; positions outside the model are
 * an error naming the shot and the trace.
 *
 * 3D: a grid with ny >= 2 is C-order (ny, nx, nz), z fastest: sample (iy, ix, iz) is
 * data[(iy * nx + ix) * nz + iz] at y = oy + iy dy. Sources and receivers sit on the top surface
 * at the grid node nearest their (x, y) (receiver y from shot.gy, or sy for every receiver when
 * gy is NULL). The explicit operator's X is then 1 + xscale (D2x / dx^2 + D2y / dy^2) dx^2, the
 * same radius-4 filter along x and along y (Laplacian synthesis, a cross stencil), with its own
 * coefficient table (design.c: the sum of the two 1D symbols stands for |k|^2 dx^2); phase shift
 * and PSPI transform each depth slice with a 2D FFT over (x, y). 3D runs on every backend that
 * runs the method: the explicit one on cuda too (auto takes it where a device is present, as in
 * 2D), phase shift and PSPI on the CPU backends.
 *
 * 3D memory: with C = nx ny surface points, F frequencies, P = nxfft nyfft (the padded FFT
 * slice, about (1.5 nx + 8) (1.5 ny + 8)) and T threads, a migration holds, in bytes,
 *   per thread   56 C (wavefield slices, Chebyshev scratch, table lookups) + 24 P (FFT buffers)
 *                + 16 nz C (the thread's image and illumination in double),
 *   shared       16 F C (one shot's source and receiver spectra) + 28 nz C (slowness, the
 *                shot's image and illumination in double, the sum)
 * besides the caller's velocity and image (4 nz C each); modelling holds 8 nz C per thread
 * instead of the 16 nz C (the source field at every depth) and 8 nz C shared (slowness and
 * reflectivity). T is the context's thread count on the cpu backend (at most F), 1 on the
 * reference backend, 0 on cuda, whose host side adds 32 nz C (two page-locked copies of the
 * shot's image and illumination) when migrating; its device holds 4 nz C (slowness) + 16 nz C
 * (the image and illumination) + 80 C per frequency in flight when migrating, 8 nz C
 * (slowness, reflectivity) + 8 (nz + 5) C per frequency when modelling, the frequencies going
 * through in chunks sized to the device's free memory (TSR_ERR_LIMIT, naming the bytes, when
 * even one frequency at a time does not fit). Example: 400 x 400 x 400 points, 200 frequencies, 16
 * threads: 16 x 1.0 GB + 0.5 GB + 1.8 GB, about 19 GB. tsr_migrate_image, tsr_migrate_image_add and
 * tsr_migrate_model refuse a 3D run whose total exceeds the machine's physical memory
 * (TSR_ERR_LIMIT, naming the bytes needed, per thread and shared) before allocating its spectra;
 * each allocation is also held to the context's max_memory as every allocation is. */
#ifndef TESSERA_MIGRATE_H
#define TESSERA_MIGRATE_H

#include "tessera/core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A 2D or 3D grid: a velocity model (m/s), a reflectivity or an image. */
typedef struct tsr_migrate_grid {
    int32_t nx, nz; /* >= 1 */
    double dx, dz;  /* > 0, metres */
    double ox, oz;  /* position of sample (0, 0), metres */
    float *data;    /* nx * nz samples, data[ix * nz + iz]; 3D: ny * nx * nz,
                       data[(iy * nx + ix) * nz + iz] */
    /* 0 or 1: a 2D grid (dy and oy ignored; a zero-initialised grid is 2D). >= 2: a 3D grid of ny
     * inlines y = oy + iy dy, dy > 0. */
    int32_t ny;
    double dy, oy;
} tsr_migrate_grid;

/* One shot: a source and the traces its receivers recorded. */
typedef struct tsr_migrate_shot {
    double sx, sy;   /* source position, metres (sy is carried, 2D migration ignores it) */
    int32_t ntraces; /* >= 1 */
    double *gx;      /* ntraces receiver x positions, metres */
    float *traces;   /* ntraces * nt samples, trace after trace */
    double *gy;      /* ntraces receiver y positions (3D; 2D ignores them), or NULL: every
                        receiver at y = sy */
} tsr_migrate_shot;

/* Shots sharing one time axis: sample j of every trace is at time t0 + j dt seconds after the
 * source fired (t0 < 0 when recording started before it). */
typedef struct tsr_migrate_gather {
    int32_t nt;     /* samples per trace, >= 2 */
    double dt;      /* seconds, > 0 */
    double t0;      /* seconds */
    int32_t nshots; /* >= 1 */
    tsr_migrate_shot *shots;
} tsr_migrate_gather;

typedef enum tsr_migrate_method {
    TSR_MIGRATE_EXPLICIT = 0, /* Chebyshev series of the horizontal Laplacian (default) */
    TSR_MIGRATE_PHASE_SHIFT,  /* Gazdag phase shift */
    TSR_MIGRATE_PSPI          /* phase shift plus interpolation between reference velocities */
} tsr_migrate_method;

typedef enum tsr_migrate_imaging {
    TSR_MIGRATE_CROSS = 0, /* sum Re(conj(S) R) (default) */
    TSR_MIGRATE_NORMALIZED /* per shot, sum Re(conj(S) R) / (sum |S|^2 + epsilon) */
} tsr_migrate_imaging;

/* "explicit", "phase-shift", "pspi". */
const char *tsr_migrate_method_name(tsr_migrate_method method);
tsr_status tsr_migrate_method_parse(const char *name, tsr_migrate_method *out);
/* "cross", "normalized". */
const char *tsr_migrate_imaging_name(tsr_migrate_imaging imaging);
tsr_status tsr_migrate_imaging_parse(const char *name, tsr_migrate_imaging *out);

typedef struct tsr_migrate_options {
    tsr_migrate_method method;   /* default TSR_MIGRATE_EXPLICIT */
    tsr_migrate_imaging imaging; /* default TSR_MIGRATE_CROSS (migration only) */
    /* Frequency band in Hz. fmin 0 (default): the lowest non-zero frequency of the transform.
     * fmax 0 (default): the highest frequency the grid carries without spatial aliasing,
     * vmin / (2 max(dx, dz)), no higher than the time Nyquist; 3D: vmin / (3 max(dx, dy, dz))
     * (design.c says why); modelling also stops at 3 f0. */
    double fmin, fmax;
    /* Peak frequency in Hz of the zero-phase Ricker source wavelet. Migration: 0 (default) means
     * an impulse source. Modelling: required (> 0). */
    double f0;
    /* Normalized imaging: epsilon = this fraction of the shot's largest illumination
     * (default 1e-3). */
    double epsilon;
    /* Absorbing boundary: columns at each side of the grid where the wavefields are damped after
     * every depth step (default 20; at most nx / 4). */
    int32_t taper;
} tsr_migrate_options;

void tsr_migrate_options_init(tsr_migrate_options *opt);

/* The backend tsr_migrate_image and tsr_migrate_model run on with this context for the explicit
 * method, 2D or 3D: auto gives cuda where a CUDA device is present (and the build has the
 * backend), else cpu; reference, cpu and cuda as asked; TSR_BACKEND_AUTO when the context's
 * backend has no migration path (the calls then fail with TSR_ERR_NO_BACKEND). Phase shift and
 * PSPI run on the CPU backends only: auto takes cpu for them, and a context asking for cuda gets
 * TSR_ERR_NO_BACKEND.
 * tsr_ctx_backend says what a call ran on. */
tsr_backend tsr_migrate_backend(const tsr_ctx *ctx);

/* Migrates every shot of `shots` through `velocity` (finite, positive m/s) into `image`, which
 * the caller allocates with the velocity's nx, nz and ny (its other fields are set to the
 * velocity's geometry). Backends: reference (single thread, image summed in double), cpu
 * (OpenMP over frequencies) and cuda (explicit only, 2D and 3D; the fields on the device);
 * auto as tsr_migrate_backend says. Progress: stage "migrate", frequencies done of nshots
 * * nfreq, reported as each frequency finishes (a cancelled call returns TSR_ERR_INTERRUPTED within
 * a frequency). */
tsr_status tsr_migrate_image(tsr_ctx *ctx, const tsr_migrate_grid *velocity,
                             const tsr_migrate_gather *shots, const tsr_migrate_options *opt,
                             tsr_migrate_grid *image);

/* Migration in parts, for runs that keep their progress (checkpoints) or split a survey:
 * tsr_migrate_image(v, shots, opt, image) is, bit for bit, `sum` (nx * nz doubles, depth rows:
 * sum[iz * nx + ix]; 3D: nx * ny * nz, depth slices: sum[(iz * ny + iy) * nx + ix]) zeroed, then
 * tsr_migrate_image_add over consecutive ranges of shots that cover 0 .. nshots - 1 in order (one
 * call or several, on the same gather, velocity and options), then tsr_migrate_image_from_sum. Each
 * shot's image is added into sum in shot order, so a split changes no bit wherever the backend's
 * image of one shot is deterministic (reference; cpu with one thread); elsewhere (cpu with several
 * threads, cuda: the double sums over frequencies in the order the threads finish) two runs may
 * differ in the last bits of the doubles, a split run no more than two whole runs do. */

/* Called by tsr_migrate_image_add after the images of its shots first .. shots_done - 1 are in
 * sum (after every shot, or every batch of shots a backend migrates at once); non-zero stops the
 * call with TSR_ERR_INTERRUPTED, sum then holding exactly those shots (and what it held
 * before). It may call tsr_migrate_checkpoint_save on the same context. */
typedef int (*tsr_migrate_added_fn)(void *user, int32_t shots_done, const double *sum);

/* Adds the images of shots first .. first + count - 1 of `shots` into sum (as tsr_migrate_image
 * migrates them; the gather's other shots are checked but not migrated), calling added (may be
 * NULL) as each batch lands. Progress as tsr_migrate_image's, from first * nfreq. On failure
 * sum holds the shots that `added` was told of and none after them; without a callback, an
 * unknown part of the range (discard sum). */
tsr_status tsr_migrate_image_add(tsr_ctx *ctx, const tsr_migrate_grid *velocity,
                                 const tsr_migrate_gather *shots, const tsr_migrate_options *opt,
                                 int32_t first, int32_t count, double *sum,
                                 tsr_migrate_added_fn added, void *user);
/* image (the velocity's nx, nz and ny, allocated by the caller) = sum rounded to float; the
 * image's geometry is set to the velocity's. */
tsr_status tsr_migrate_image_from_sum(tsr_ctx *ctx, const tsr_migrate_grid *velocity,
                                      const double *sum, tsr_migrate_grid *image);

/* A checkpoint folder: the sum of the shots done so far, for runs that may be killed and started
 * again. tsr_migrate_checkpoint_open with the run's velocity, shots and options, then
 * tsr_migrate_image_add from the shots it reports done, saving from the callback; the resumed
 * run's sum is then the uninterrupted run's, under tsr_migrate_image_add's contract (bit for bit
 * where a shot's image is deterministic). The folder holds manifest.json (what the sum is of:
 * the grid's geometry, the shots' time axis and count, hashes of the velocity samples and of
 * every shot's positions and samples, the options that change the image (method, imaging, fmin,
 * fmax, f0, epsilon, taper) and the backend; the inputs' names for people; the shots done; the
 * sum file's name, size and hash) and that sum file, raw little-endian float64 in sum's layout.
 * Files are replaced atomically, the manifest last, so a kill at any moment leaves a whole
 * checkpoint. The thread count is not part of it. */
typedef struct tsr_migrate_checkpoint tsr_migrate_checkpoint;

/* Opens (making it when missing) the folder dir for this run. A folder without a checkpoint
 * gives *shots_done = 0 and sum (nx * nz doubles) zeroed; a checkpoint of this run gives its
 * shots_done and sum; one of other inputs, options or backend is TSR_ERR_INVALID_ARGUMENT naming
 * the first difference, a damaged one TSR_ERR_CORRUPT (nothing on disk changes in either case).
 * shots_name and model_name (may be NULL) are recorded. Close with
 * tsr_migrate_checkpoint_close. */
tsr_status tsr_migrate_checkpoint_open(tsr_ctx *ctx, const char *dir,
                                       const tsr_migrate_grid *velocity,
                                       const tsr_migrate_gather *shots,
                                       const tsr_migrate_options *opt, const char *shots_name,
                                       const char *model_name, tsr_migrate_checkpoint **out,
                                       int32_t *shots_done, double *sum);
/* Records that sum holds shots 0 .. shots_done - 1: the sum file, then the manifest naming it
 * (the previous sum file is removed after). May be called from tsr_migrate_image_add's callback
 * on the same context; a failure leaves the previous checkpoint. */
tsr_status tsr_migrate_checkpoint_save(tsr_ctx *ctx, tsr_migrate_checkpoint *cp, int32_t shots_done,
                                       const double *sum);
void tsr_migrate_checkpoint_close(tsr_ctx *ctx, tsr_migrate_checkpoint *cp);

/* One-way Born modelling, the adjoint of tsr_migrate_image's cross imaging with the same source:
 * fills the traces of `shots` (positions, nt, dt and t0 set by the caller, traces allocated)
 * from `reflectivity` (same nx, nz and ny as the velocity), or when it is NULL from the velocity's
 * vertical contrasts r(ix, iz) = (v(iz) - v(iz-1)) / (v(iz) + v(iz-1)). opt->f0 > 0 is the
 * Ricker wavelet's peak frequency; a gather whose t0 is -k/f0 (k >= 1) gets causal traces. */
tsr_status tsr_migrate_model(tsr_ctx *ctx, const tsr_migrate_grid *velocity,
                             const tsr_migrate_grid *reflectivity, const tsr_migrate_options *opt,
                             tsr_migrate_gather *shots);

/* Grids in files: a JSON sidecar (keys file, nx, nz, dx, dz, ox, oz, and ny, dy, oy in 3D; others
 * ignored) naming a raw little-endian float32 file (relative to the JSON's folder) of exactly
 * nx * nz samples (ny * nx * nz in 3D). ny absent or 1: a 2D grid; ny >= 2 needs dy > 0 (oy
 * defaults to 0). _save writes ny, dy, oy for a 3D grid only.
 * _load allocates grid->data through the context (free with tsr_migrate_grid_free). */
tsr_status tsr_migrate_grid_load(tsr_ctx *ctx, const char *json_path, tsr_migrate_grid *grid);
/* Writes OUT.json's samples to the file named by replacing its .json extension with .f32
 * (appending .f32 when it has none), then the sidecar; each file appears only when complete.
 * units (may be NULL) is recorded in the sidecar. */
tsr_status tsr_migrate_grid_save(tsr_ctx *ctx, const char *json_path, const tsr_migrate_grid *grid,
                                 const char *units);
/* Allocates a zeroed nx * nz grid with the given geometry (checked). */
tsr_status tsr_migrate_grid_alloc(tsr_ctx *ctx, tsr_migrate_grid *grid, int32_t nx, int32_t nz,
                                  double dx, double dz, double ox, double oz);
/* Allocates a zeroed grid of another's geometry, 2D or 3D: ny, nx, nz, spacings and origins. */
tsr_status tsr_migrate_grid_alloc_like(tsr_ctx *ctx, tsr_migrate_grid *grid,
                                       const tsr_migrate_grid *like);
/* Allocates a zeroed 3D grid (ny >= 2, dy > 0). */
tsr_status tsr_migrate_grid_alloc3d(tsr_ctx *ctx, tsr_migrate_grid *grid, int32_t nx, int32_t ny,
                                    int32_t nz, double dx, double dy, double dz, double ox,
                                    double oy, double oz);
void tsr_migrate_grid_free(tsr_ctx *ctx, tsr_migrate_grid *grid);
/* Samples of a grid: nx * nz, nx * ny * nz in 3D (0 for NULL or when the product overflows). */
size_t tsr_migrate_grid_cells(const tsr_migrate_grid *grid);

/* What a SEG-Y file's headers say. */
typedef struct tsr_migrate_segy_info {
    int32_t format; /* binary header sample format code (1 IBM, 2 int32, 3 int16, 5 IEEE,
                       8 int8) */
    int32_t little_endian;
    int32_t revision; /* binary header bytes 3501-3502 */
    int32_t samples;  /* samples per trace used (binary header; trace 1's when it says 0) */
    int32_t trace_header_samples; /* what trace 1's header says (may disagree) */
    double dt;                    /* seconds */
    int64_t traces;
    int32_t shots;
    double sx_min, sx_max, gx_min, gx_max; /* metres */
    double sy_min, sy_max, gy_min, gy_max; /* metres */
} tsr_migrate_segy_info;

/* Reads a SEG-Y file through segyio: sample count and interval from the binary header (trace 1's
 * header only where the binary header gives none), positions from trace header bytes 73/77/81/85
 * (sx, sy, gx, gy: every shot gets gy) scaled by bytes 71-72, t0 from bytes 109-110 (delay
 * recording time, ms), traces grouped into shots by source position (shots in increasing sx, then
 * sy; traces in file order). IBM and IEEE floats and 1-, 2- and 4-byte integers, either byte order.
 * Allocates out's arrays (free with tsr_migrate_gather_free); info may be NULL. */
tsr_status tsr_migrate_segy_read(tsr_ctx *ctx, const char *path, tsr_migrate_gather *out,
                                 tsr_migrate_segy_info *info);
/* Writes the gather as SEG-Y rev 1, big-endian IEEE floats, positions in centimetres
 * (scalar -100): sx, sy, gx, gy at bytes 73/77/81/85 (gy = sy where the shot has no gy), CDP x
 * and y (the midpoint) at 181/185, one field record number per shot. The file appears only when
 * complete. */
tsr_status tsr_migrate_segy_write(tsr_ctx *ctx, const char *path, const tsr_migrate_gather *gather);
/* Writes a grid as SEG-Y: one trace per x column, nz depth samples; the sample interval field
 * holds dz in millimetres and bytes 181-184 (CDP x) the column's x in centimetres. A 3D grid:
 * one trace per (x, y) column, x fastest (inline after inline), CDP y (bytes 185-188) the
 * column's y in centimetres, inline number iy + 1 at 189 and crossline number ix + 1 at 193. */
tsr_status tsr_migrate_grid_save_segy(tsr_ctx *ctx, const char *path, const tsr_migrate_grid *grid);
/* Allocates nshots shots of ntraces zeroed traces of nt samples each (positions 0: sx, sy, gx
 * and gy, which is allocated with gx). */
tsr_status tsr_migrate_gather_alloc(tsr_ctx *ctx, tsr_migrate_gather *gather, int32_t nshots,
                                    int32_t ntraces, int32_t nt, double dt, double t0);
/* Frees a gather from tsr_migrate_gather_alloc or tsr_migrate_segy_read; zeroes it. */
void tsr_migrate_gather_free(tsr_ctx *ctx, tsr_migrate_gather *gather);

#ifdef __cplusplus
}
#endif
#endif
