/* The 3D device working set and its frequency chunks (src/migrate/device_chunks.c), on the CPU:
 *  - the bytes of migrate.h's formula for a 400 x 400 x 400 model with 200 frequencies;
 *  - for random sizes and free memory: the chunks cover the band (count x chunk >= nfreq, one
 *    chunk fewer would not), a chunk fits the usable memory (free less 64 MiB + free / 32), the
 *    count is the least any fitting chunk size gives, and the cap (a test's forced chunk) and
 *    the grid limit of 65535 hold;
 *  - a model that does not fit with one frequency is TSR_ERR_LIMIT, its message naming the
 *    bytes needed. */
#include "migrate/device_chunks.h"
#include "testlib.h"

#include <math.h>
#include <string.h>

static double usable_of(double free_b)
{
    return free_b - (64.0 * 1048576.0 + free_b / 32.0);
}

static void formula(void)
{
    const double c = 400.0 * 400.0, nz = 400;
    tsr__mig3_bytes m = tsr__mig3_device_bytes(c, 400, 200, 100, 16, 0);
    tsr__mig3_bytes d = tsr__mig3_device_bytes(c, 400, 200, 100, 16, 1);
    CHECK(m.per_freq == 80.0 * c && m.fixed == 16.0 * nz * c);
    CHECK(d.per_freq == 8.0 * c * (nz + 5) && d.fixed == 4.0 * nz * c);
    CHECK(m.plan == 8.0 * 100 * 16 + 4.0 * 200 + 4.0 * nz * c + 4.0 * c);
    printf("400^3, 200 frequencies: migration %.3g GB + %.3g GB per frequency, modelling %.3g GB "
           "+ %.3g GB per frequency\n",
           (m.plan + m.fixed) * 1e-9, m.per_freq * 1e-9, (d.plan + d.fixed) * 1e-9,
           d.per_freq * 1e-9);
    /* 100 GB free: migration in one chunk; modelling (103 GB of source fields) in two */
    int32_t chunk, count;
    CHECK_OK(NULL, tsr__mig3_chunks(NULL, &m, 100e9, 200, 0, &chunk, &count));
    CHECK(count == 1 && chunk == 200);
    CHECK_OK(NULL, tsr__mig3_chunks(NULL, &d, 100e9, 200, 0, &chunk, &count));
    printf("modelling on 100 GB free: %d chunks of %d\n", (int)count, (int)chunk);
    CHECK(count == 2 && chunk == 100);
}

static void random_plans(void)
{
    tsr_rng r;
    tsr_rng_seed(&r, 77);
    int limits = 0;
    for (int trial = 0; trial < 20000; trial++) {
        const double c = (double)tsr_rng_range(&r, 1, 2000) * tsr_rng_range(&r, 1, 2000);
        const int32_t nz = tsr_rng_range(&r, 1, 1000), nfreq = tsr_rng_range(&r, 1, 100000);
        const int model = tsr_rng_range(&r, 0, 1);
        const int32_t cap = tsr_rng_range(&r, 0, 3) ? 0 : tsr_rng_range(&r, 1, 50);
        const double free_b = ldexp((double)tsr_rng_range(&r, 1, 1 << 20), 18);
        tsr__mig3_bytes b = tsr__mig3_device_bytes(c, nz, nfreq, 64, 16, model);
        int32_t chunk = -1, count = -1;
        tsr_status st = tsr__mig3_chunks(NULL, &b, free_b, nfreq, cap, &chunk, &count);
        const double usable = usable_of(free_b);
        if (st) {
            CHECK(st == TSR_ERR_LIMIT);
            CHECK(b.plan + b.fixed + b.per_freq > usable);
            limits++;
            continue;
        }
        /* the largest fitting size, by the definition */
        double most = floor((usable - b.plan - b.fixed) / b.per_freq);
        most = fmin(most, fmin((double)nfreq, 65535.0));
        if (cap)
            most = fmin(most, cap);
        const int32_t least = (int32_t)((nfreq + most - 1) / most);
        int ok = chunk >= 1 && chunk <= most && chunk <= 65535 && (!cap || chunk <= cap) &&
                 (double)count * chunk >= nfreq && (double)(count - 1) * chunk < nfreq &&
                 count == least && b.plan + b.fixed + (double)chunk * b.per_freq <= usable;
        CHECK(ok);
        if (!ok) {
            printf("trial %d: C %.0f nz %d nfreq %d model %d cap %d free %.0f: chunk %d count "
                   "%d (largest fit %.0f)\n",
                   trial, c, (int)nz, (int)nfreq, model, (int)cap, free_b, (int)chunk, (int)count,
                   most);
            break;
        }
    }
    printf("random plans: %d of 20000 refused (TSR_ERR_LIMIT)\n", limits);
    CHECK(limits > 0 && limits < 20000);
}

static void refusal(void)
{
    tsr_ctx *ctx = NULL;
    CHECK(tsr_ctx_create(NULL, &ctx) == TSR_OK);
    if (!ctx)
        return;
    /* 2000 x 2000 x 2000 modelling: 64 GB per frequency */
    tsr__mig3_bytes b = tsr__mig3_device_bytes(4e6, 2000, 300, 64, 16, 1);
    int32_t chunk, count;
    CHECK_STATUS(tsr__mig3_chunks(ctx, &b, 40e9, 300, 0, &chunk, &count), TSR_ERR_LIMIT);
    const char *msg = tsr_ctx_last_error(ctx);
    printf("refusal: %s\n", msg);
    char need[64];
    snprintf(need, sizeof need, "needs %.0f bytes", b.plan + b.fixed + b.per_freq);
    CHECK(strstr(msg, need) != NULL);
    CHECK(strstr(msg, "--backend cpu") != NULL);
    CHECK_STATUS(tsr__mig3_chunks(ctx, &b, 40e9, 0, 0, &chunk, &count), TSR_ERR_INVALID_ARGUMENT);
    tsr_ctx_destroy(ctx);
}

int main(void)
{
    formula();
    random_plans();
    refusal();
    return tsr_test_finish("test_migrate_chunks");
}
