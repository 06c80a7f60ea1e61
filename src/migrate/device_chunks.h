/* How a device backend splits a 3D shot's frequencies into chunks that fit its memory: the
 * working set of migrate's CUDA 3D path (extrap3_cuda.cu states where each term comes from) and
 * the chunk arithmetic, plain C so that the CPU tests check it. */
#ifndef TSR_MIGRATE_DEVICE_CHUNKS_H
#define TSR_MIGRATE_DEVICE_CHUNKS_H

#include "core/ctx.h"

/* Device bytes of one 3D shot: `plan` (coefficient table, w dz per frequency, slowness, taper),
 * `fixed` (migration: the image and illumination in double; modelling: the reflectivity) and
 * `per_freq`, for each frequency of a chunk (migration: 3 slices each of S and R; modelling: the
 * source at every depth plus 3 slices). Doubles: no overflow for any grid. */
typedef struct tsr__mig3_bytes {
    double plan, fixed, per_freq;
} tsr__mig3_bytes;

tsr__mig3_bytes tsr__mig3_device_bytes(double ncols, int32_t nz, int32_t nfreq, int32_t ntable,
                                       int32_t terms, int model);

/* The most frequencies per chunk (a CUDA grid dimension). */
enum { TSR__MIG3_MAX_CHUNK = 65535 };

/* Frequencies per chunk for nfreq frequencies when free_bytes of device memory are free: the
 * usable part is free_bytes less a margin of 64 MiB + free_bytes / 32 (the runtime's own
 * allocations, fragmentation); the largest chunk with plan + fixed + chunk per_freq within it,
 * at most cap (cap > 0: a test's forced small chunk), TSR__MIG3_MAX_CHUNK and nfreq; then the
 * frequencies are spread evenly over the chunks that needs (*count chunks of at most *chunk,
 * the last possibly smaller). A model that does not fit with one frequency per chunk is
 * TSR_ERR_LIMIT, the message naming the bytes needed and the bytes usable. */
tsr_status tsr__mig3_chunks(tsr_ctx *ctx, const tsr__mig3_bytes *b, double free_bytes,
                            int32_t nfreq, int32_t cap, int32_t *chunk, int32_t *count);

#endif
