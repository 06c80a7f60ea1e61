/* What the CPU resize's paths share (resize_cpu.c and its resize_cpu_*.c path files, not
 * installed): a parallel call over stripes of output rows (cpu_job, tsr__rcpu_run_rows), the
 * row macros, the saturating stores, and TSR__HOT, which compiles a hot loop twice (AVX2 and
 * baseline, chosen at load time by target_clones). Every path's arithmetic is resize_ref.c's:
 * no contraction (-ffp-contract=off), no reassociation. */
#ifndef TSR_RESIZE_CPU_JOB_H
#define TSR_RESIZE_CPU_JOB_H

#include "resize/resize_backends.h"
#include "resize/resize_cpu_pool.h"
#include "resize/resize_cpu_simd.h"

#include "core/checked.h"

#include <math.h>
#include <string.h>

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) &&                             \
    !defined(__SANITIZE_ADDRESS__)
#define TSR__HOT __attribute__((target_clones("avx2", "default")))
#else
#define TSR__HOT
#endif

#define ROW(img, y) ((char *)(img)->data + (size_t)(y) * (img)->stride)
#define CROW(img, y) ((const char *)(img)->data + (size_t)(y) * (img)->stride)

static inline int clampi(int v, int lo, int hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

/* One parallel call over the output rows: what every path's stripe function needs. */
typedef struct cpu_job {
    const tsr__resize_plan *p;
    const tsr_image *src;
    tsr_image *dst;
    int simd;         /* the AVX2 loops run */
    const void *tabs; /* the path's tables */
    int stripes;
    size_t per; /* scratch bytes per thread */
    char *scratch;
} cpu_job;

/* Rows [*y0, *y1) of stripe s. */
static inline void job_rows(const cpu_job *j, int s, int *y0, int *y1)
{
    *y0 = (int)((long long)j->p->dst_h * s / j->stripes);
    *y1 = (int)((long long)j->p->dst_h * (s + 1) / j->stripes);
}

/* Thread `slot`'s scratch. */
static inline void *job_scratch(const cpu_job *j, int slot)
{
    return j->scratch + j->per * (size_t)slot;
}

/* Runs fn over j's output rows on ctx->threads threads with `per` bytes of scratch each
 * (resize_cpu.c). Stripes of at least 16 rows, 1 to 8 per thread: enough for a thread that
 * starts late to leave its share to the others, few enough that the rows cached again at each
 * stripe's start stay cheap. */
tsr_status tsr__rcpu_run_rows(tsr_ctx *ctx, cpu_job *j, size_t per, tsr__rcpu_fn fn);

static inline uint8_t sat_u8f(float v)
{
    return (uint8_t)(v <= 0.f ? 0 : v >= 255.f ? 255 : lrintf(v));
}
static inline uint16_t sat_u16f(float v)
{
    return (uint16_t)(v <= 0.f ? 0 : v >= 65535.f ? 65535 : lrintf(v));
}
static inline uint8_t sat_u8i(int v)
{
    return (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
}

/* The paths (one file each). */
tsr_status tsr__rcpu_separable(tsr_ctx *ctx, const tsr__resize_plan *p, const tsr_image *src,
                               tsr_image *dst);
tsr_status tsr__rcpu_area_fast(tsr_ctx *ctx, const tsr__resize_plan *p, const tsr_image *src,
                               tsr_image *dst);
tsr_status tsr__rcpu_area(tsr_ctx *ctx, const tsr__resize_plan *p, const tsr_image *src,
                          tsr_image *dst);
tsr_status tsr__rcpu_linear_exact(tsr_ctx *ctx, const tsr__resize_plan *p, const tsr_image *src,
                                  tsr_image *dst);

#endif
