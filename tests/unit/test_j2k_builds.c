/* The decoder's builds of the same C code (tsr__ht_simd()'s levels: 0 the baseline, 1 AVX2, 2
 * AVX-512) against each other, bit for bit: the 2D inverse DWT (dwt_level.h, through dwt.c's
 * choice) on random tile-components of every size class, and the output row pass
 * (store_row.h) on random plans with special floats. Every build this CPU runs is compared with
 * the baseline; the ones it lacks are named and skipped. */
#include "testlib.h"

#include "j2k/decode_stages.h"
#include "j2k/t1_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const NAMES[3] = {"baseline", "AVX2", "AVX-512"};

/* The 2D inverse DWT of a random tile-component (5/3 on integers, 9/7 on float bits) through
 * each build: the same bits as the baseline's, and the samples between each row's end and the
 * stride (random poison) untouched. Buffers at random offsets from 64-byte alignment. */
static void test_dwt_builds(tsr_rng *rng, int top)
{
    int bad[3] = {0, 0, 0};
    for (int rep = 0; rep < 300; rep++) {
        tsr__j2k_tilecomp tc;
        memset(&tc, 0, sizeof tc);
        tc.x0 = (uint32_t)tsr_rng_range(rng, 0, 40);
        tc.y0 = (uint32_t)tsr_rng_range(rng, 0, 40);
        const int big = rep % 10 == 0; /* a few past one 64-column strip and many rows */
        tc.x1 = tc.x0 + (uint32_t)tsr_rng_range(rng, 1, big ? 700 : 150);
        tc.y1 = tc.y0 + (uint32_t)tsr_rng_range(rng, 1, big ? 300 : 150);
        tc.numres = tc.dec_res = (uint32_t)tsr_rng_range(rng, 1, 7);
        for (uint32_t r = 0; r < tc.numres; r++) {
            const uint32_t sh = tc.numres - 1 - r, d = 1u << sh;
            tc.res[r].x0 = (tc.x0 + d - 1) >> sh;
            tc.res[r].y0 = (tc.y0 + d - 1) >> sh;
            tc.res[r].x1 = (tc.x1 + d - 1) >> sh;
            tc.res[r].y1 = (tc.y1 + d - 1) >> sh;
        }
        tc.data_w = tc.x1 - tc.x0;
        tc.data_h = tc.y1 - tc.y0;
        tc.stride = tc.data_w + (size_t)tsr_rng_range(rng, 0, 9);
        const int rev = rep & 1, threads = 1 + ((rep >> 1) & 1);
        const size_t n = tc.stride * tc.data_h, per = tsr__dwt_scratch_per_thread(&tc);
        const size_t off = (size_t)tsr_rng_range(rng, 0, 15); /* words past 64-byte alignment */
        int32_t *src = malloc(n * sizeof *src), *want = malloc(n * sizeof *want);
        int32_t *buf = malloc((n + 16) * sizeof *buf);
        int32_t *scratch = malloc(per * 2 * sizeof *scratch);
        if (!src || !want || !buf || !scratch) {
            CHECK(0);
            free(src);
            free(want);
            free(buf);
            free(scratch);
            return;
        }
        int32_t *got = (int32_t *)(((uintptr_t)buf + 63) & ~(uintptr_t)63);
        got = got + off <= buf + 16 ? got + off : got + off - 16;
        for (size_t i = 0; i < n; i++) {
            const int32_t v = tsr_rng_range(rng, -5000, 5000);
            if (rev || (size_t)(i % tc.stride) >= tc.data_w) {
                src[i] = rev ? v : (int32_t)tsr_rng_next(rng);
            } else {
                const float f = (float)v * 0.37f;
                memcpy(&src[i], &f, sizeof f);
            }
        }
        for (int level = 0; level <= top; level++) {
            int32_t *x = level ? got : want;
            memcpy(x, src, n * sizeof *x);
            tsr__ht_set_simd(level);
            tc.data = x;
            if (rev)
                tsr__dwt53_inverse2(&tc, tc.dec_res, scratch, threads);
            else
                tsr__dwt97_inverse2(&tc, tc.dec_res, scratch, threads);
            if (level && memcmp(want, got, n * sizeof *x))
                bad[level]++;
            for (size_t y = 0; y < tc.data_h; y++)
                for (size_t c = tc.data_w; c < tc.stride; c++)
                    if (x[y * tc.stride + c] != src[y * tc.stride + c])
                        bad[level]++;
        }
        free(src);
        free(want);
        free(buf);
        free(scratch);
    }
    for (int level = 0; level <= top; level++)
        if (bad[level])
            fprintf(stderr, "test_j2k_builds: the DWT's %s build differs in %d cases\n",
                    NAMES[level], bad[level]);
    CHECK(!bad[0] && !bad[1] && !bad[2]);
}

/* A random sample for the output row pass: integers over the whole int32 range or near the
 * clamp bounds; floats with ties, NaN, infinities, huge and tiny values (as bits). */
static int32_t store_sample(tsr_rng *rng, int is_float, int64_t hi)
{
    const int k = tsr_rng_range(rng, 0, 9);
    if (!is_float) {
        if (k < 3)
            return (int32_t)tsr_rng_next(rng);
        return (int32_t)(tsr_rng_range(rng, -3, 3) + (k < 6 ? 0 : hi) +
                         (int64_t)tsr_rng_range(rng, -100000, 100000) * (k & 1));
    }
    static const float special[] = {0.5f,   -0.5f,  1.5f,       -2.5f,  1e10f,
                                    -1e10f, 4.1e9f, 8388607.5f, 1e-40f, -0.0f};
    float f;
    if (k == 0) {
        const uint32_t bits = (uint32_t)tsr_rng_next(rng); /* any pattern: NaN, inf, denormal */
        memcpy(&f, &bits, sizeof f);
    } else if (k == 1) {
        f = special[tsr_rng_range(rng, 0, 9)];
    } else {
        f = (float)tsr_rng_range(rng, -2000000, 2000000) / 1000.0f * (float)(hi + 1) / 1000.0f;
        if (k == 2)
            f = (float)(int32_t)f + 0.5f; /* a tie */
    }
    int32_t v;
    memcpy(&v, &f, sizeof v);
    return v;
}

/* The output row pass of random plans through each build: the same plane samples as the
 * baseline's, rows and columns outside the plan untouched (every plane starts from the same
 * poison). */
static void test_store_builds(tsr_rng *rng, int top)
{
    static void (*const row[3])(const tsr__j2k_store_plan *, int64_t, int32_t *) = {
        tsr__j2k_store_row_base, tsr__j2k_store_row_avx2, tsr__j2k_store_row_avx512};
    int bad[3] = {0, 0, 0};
    for (int rep = 0; rep < 400; rep++) {
        tsr__j2k_tilecomp tc;
        memset(&tc, 0, sizeof tc);
        tsr_j2k_plane pa;
        memset(&pa, 0, sizeof pa);
        tsr__j2k_store_plan s;
        memset(&s, 0, sizeof s);
        const uint32_t prec =
            (uint32_t)(rep % 5 == 0 ? tsr_rng_range(rng, 1, 31) : tsr_rng_range(rng, 1, 16));
        const int sgnd = tsr_rng_range(rng, 0, 1);
        s.is_float = rep & 1;
        s.lo = sgnd ? -((int64_t)1 << (prec - 1)) : 0;
        s.hi = sgnd ? ((int64_t)1 << (prec - 1)) - 1 : ((int64_t)1 << prec) - 1;
        s.shift = sgnd ? 0 : (int64_t)1 << (prec - 1);
        s.src_x0 = tsr_rng_range(rng, 0, 40);
        s.src_y0 = tsr_rng_range(rng, 0, 40);
        tc.data_w = (uint32_t)tsr_rng_range(rng, 1, rep % 10 == 0 ? 600 : 70);
        tc.data_h = (uint32_t)tsr_rng_range(rng, 1, 12);
        tc.stride = tc.data_w + (size_t)tsr_rng_range(rng, 0, 5);
        pa.x0 = (uint32_t)(s.src_x0 + tsr_rng_range(rng, -3, 3) + 3);
        pa.y0 = (uint32_t)(s.src_y0 + tsr_rng_range(rng, -2, 2) + 2);
        s.src_x0 += 3;
        s.src_y0 += 2;
        pa.width = (uint32_t)tsr_rng_range(rng, 1, (int)tc.data_w + 6);
        pa.height = (uint32_t)tsr_rng_range(rng, 1, (int)tc.data_h + 4);
        pa.stride = pa.width + (size_t)tsr_rng_range(rng, 0, 5);
        s.x0 = s.src_x0 > pa.x0 ? s.src_x0 : pa.x0;
        s.y0 = s.src_y0 > pa.y0 ? s.src_y0 : pa.y0;
        s.x1 = s.src_x0 + tc.data_w < (int64_t)pa.x0 + pa.width ? s.src_x0 + tc.data_w
                                                                : (int64_t)pa.x0 + pa.width;
        s.y1 = s.src_y0 + tc.data_h < (int64_t)pa.y0 + pa.height ? s.src_y0 + tc.data_h
                                                                 : (int64_t)pa.y0 + pa.height;
        const size_t nt = tc.stride * tc.data_h, np = pa.stride * pa.height;
        tc.data = malloc(nt * sizeof *tc.data);
        int32_t *poison = malloc(np * sizeof *poison), *out[3] = {NULL, NULL, NULL};
        for (int level = 0; level <= top; level++)
            out[level] = malloc(np * sizeof *out[level]);
        if (!tc.data || !poison || !out[0] || (top >= 1 && !out[1]) || (top >= 2 && !out[2])) {
            CHECK(0);
            free(tc.data);
            free(poison);
            for (int level = 0; level < 3; level++)
                free(out[level]);
            return;
        }
        for (size_t i = 0; i < nt; i++)
            tc.data[i] = store_sample(rng, s.is_float, s.hi);
        for (size_t i = 0; i < np; i++)
            poison[i] = (int32_t)tsr_rng_next(rng);
        pa.data = poison;
        s.src = tc.data;
        s.src_stride = tc.stride;
        for (int level = 0; level <= top; level++) {
            memcpy(out[level], poison, np * sizeof *poison);
            for (int64_t y = s.src_y0 - 2; y < s.src_y0 + (int64_t)tc.data_h + 2; y++) {
                /* the destination of column x0 of row y; rows outside the plan get NULL, which
                 * the row pass must not touch */
                const int in = y >= s.y0 && y < s.y1;
                const size_t at = in ? (size_t)(y - pa.y0) * pa.stride + (size_t)(s.x0 - pa.x0) : 0;
                row[level](&s, y, in ? out[level] + at : NULL);
            }
            if (level && memcmp(out[0], out[level], np * sizeof *poison))
                bad[level]++;
        }
        free(tc.data);
        free(poison);
        for (int level = 0; level < 3; level++)
            free(out[level]);
    }
    for (int level = 1; level <= top; level++)
        if (bad[level])
            fprintf(stderr, "test_j2k_builds: the output rows' %s build differs in %d cases\n",
                    NAMES[level], bad[level]);
    CHECK(!bad[1] && !bad[2]);
}

int main(void)
{
    tsr_rng rng;
    tsr_rng_seed(&rng, 2026);
    tsr__ht_set_simd(2);
    const int top = tsr__ht_simd(); /* the highest build this CPU runs */
    for (int level = top + 1; level <= 2; level++)
        printf("test_j2k_builds: this CPU lacks %s: its builds are not compared\n",
               level == 1 ? "AVX2 + BMI2" : "AVX-512 F/BW/DQ/VL");
    test_dwt_builds(&rng, top);
    test_store_builds(&rng, top);
    tsr__ht_set_simd(top);
    return tsr_test_finish("test_j2k_builds");
}
