/* The encoder's forward DWT with its finest level fused with the samples' load (tsr__fdwt_fused,
 * fdwt.c) against loading every sample and then tsr__fdwt53 / tsr__fdwt97 on one thread, bit for
 * bit: random samples (5/3: integers of up to 18 bits, what 16-bit samples through the RCT reach;
 * 9/7: floats with fractions, as the ICT leaves them) of 1 and 3 tile-components of odd and even
 * sizes (1x1, 1xN, Nx1, 17x3, heights around the fused bands' 32 rows and their 4-row reach, 4097
 * x 3, several bands), at even and odd origins (a tile past the first), 0..5 levels, on 1 and 3
 * threads (bands split between them), the geometry from tsr__tcd_init (the encoder's). The
 * planes are poisoned first, with a poisoned row after the last, so that an unwritten sample or
 * one written past the plane shows. TSR_TEST_QUICK: fewer sizes. */
#include "testlib.h"

#include "j2k/encode_stages.h"
#include "j2k_tilecomp.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define POISON 0x7f7f7f7f

/* What the test's loader copies rows from: ncomp planes of w x h samples. */
typedef struct source {
    const int32_t *planes[TSR__FDWT_FUSED_COMPS];
    uint32_t ncomp, w;
} source;

static void load_rows(void *user, uint32_t y, uint32_t n, void *const *rows)
{
    const source *s = user;
    for (uint32_t c = 0; c < s->ncomp; c++)
        memcpy(rows[c], s->planes[c] + (size_t)y * s->w, (size_t)n * s->w * sizeof(int32_t));
}

/* One case; returns 0 on a mismatch (or failure). */
static int fused_case(tsr_ctx *ctx, tsr_rng *rng, uint32_t x0, uint32_t y0, uint32_t w, uint32_t h,
                      uint32_t levels, int rev, uint32_t ncomp, int threads)
{
    tsr__j2k_tilecomp geo;
    if (!j2k_test_geometry(ctx, x0, y0, w, h, levels, rev, &geo))
        return 0;
    geo.stride = w;
    const size_t n = (size_t)w * h, room = n + w; /* a poisoned row after the last */
    const size_t side = w > h ? w : h, fused = tsr__fdwt_fused_words(w, ncomp);
    const size_t per_thread = fused > TSR__FDWT_STRIP * side ? fused : TSR__FDWT_STRIP * side;
    int32_t *src[TSR__FDWT_FUSED_COMPS] = {0}, *want[TSR__FDWT_FUSED_COMPS] = {0},
            *got[TSR__FDWT_FUSED_COMPS] = {0};
    int32_t *tmp = malloc((size_t)threads * per_thread * sizeof *tmp);
    int ok = tmp != NULL;
    for (uint32_t c = 0; c < ncomp; c++) {
        src[c] = malloc(n * sizeof(int32_t));
        want[c] = malloc(room * sizeof(int32_t));
        got[c] = malloc(room * sizeof(int32_t));
        ok = ok && src[c] && want[c] && got[c];
    }
    tsr__j2k_tilecomp tcs[TSR__FDWT_FUSED_COMPS], *ptcs[TSR__FDWT_FUSED_COMPS];
    for (uint32_t c = 0; ok && c < ncomp; c++) {
        for (size_t i = 0; i < n; i++) {
            if (rev) {
                src[c][i] = tsr_rng_range(rng, -131072, 131071);
            } else {
                const float f = (float)tsr_rng_range(rng, -(1 << 24), 1 << 24) / 128.0f;
                memcpy(&src[c][i], &f, sizeof f);
            }
        }
        memcpy(want[c], src[c], n * sizeof(int32_t));
        for (size_t i = n; i < room; i++)
            want[c][i] = POISON;
        for (size_t i = 0; i < room; i++)
            got[c][i] = POISON;
        tsr__j2k_tilecomp tc = geo;
        tc.data = want[c];
        if (rev)
            tsr__fdwt53(&tc, tmp, per_thread, 1);
        else
            tsr__fdwt97(&tc, (float *)(void *)tmp, per_thread, 1);
        tcs[c] = geo;
        tcs[c].data = got[c];
        ptcs[c] = &tcs[c];
    }
    if (ok) {
        source s = {{src[0], src[1], src[2]}, ncomp, w};
        tsr__fdwt_fused(ptcs, ncomp, rev, load_rows, &s, tmp, per_thread, threads);
        for (uint32_t c = 0; c < ncomp; c++) {
            size_t i = 0;
            while (i < room && want[c][i] == got[c][i])
                i++;
            if (i < room) {
                fprintf(stderr,
                        "fused %s DWT %ux%u at (%u,%u), %u levels, %u comps, %d threads: comp %u "
                        "sample %zu differs\n",
                        rev ? "5/3" : "9/7", w, h, x0, y0, levels, ncomp, threads, c, i);
                ok = 0;
            }
        }
    }
    for (uint32_t c = 0; c < ncomp; c++) {
        free(src[c]);
        free(want[c]);
        free(got[c]);
    }
    free(tmp);
    return ok;
}

int main(void)
{
    tsr_rng rng;
    tsr_rng_seed(&rng, 2026);
    tsr_ctx *ctx;
    if (tsr_ctx_create(NULL, &ctx) != TSR_OK)
        return 1;
    static const uint32_t sizes[][2] = {{1, 1},     {1, 77},   {77, 1},    {17, 3},   {3, 17},
                                        {8, 31},    {9, 32},   {10, 33},   {11, 36},  {12, 37},
                                        {13, 40},   {14, 41},  {64, 64},   {65, 69},  {30, 100},
                                        {129, 130}, {4097, 3}, {200, 517}, {517, 200}};
    const size_t nsizes = tsr_test_quick() ? 10 : sizeof sizes / sizeof sizes[0];
    static const uint32_t origins[][2] = {{0, 0}, {1, 1}, {2, 3}, {1000, 37}};
    for (size_t s = 0; s < nsizes; s++)
        for (size_t o = 0; o < sizeof origins / sizeof origins[0]; o++)
            for (uint32_t levels = 0; levels <= 5; levels++)
                for (int rev = 0; rev <= 1; rev++)
                    for (uint32_t ncomp = 1; ncomp <= 3; ncomp += 2)
                        for (int threads = 1; threads <= 3; threads += 2)
                            CHECK(fused_case(ctx, &rng, origins[o][0], origins[o][1], sizes[s][0],
                                             sizes[s][1], levels, rev, ncomp, threads));
    tsr_ctx_destroy(ctx);
    return tsr_test_finish("test_j2k_fdwt_fused");
}
