/* Seam carving: tessera/carve.h's definitions checked by hand and by brute force, the
 * incremental update against full recomputation, batch-mode invariants, the seam-order map,
 * masks from images, the backend choice, bad input. */
#include "carve/plan.h"
#include "core/ctx.h"
#include "testlib.h"

#include <stdlib.h>
#include <string.h>

static tsr_ctx *ctx;

/* A 1-channel u8 grid from a w x h array of luma values. */
static void grid_from(tsr__carve_grid *g, int32_t w, int32_t h, const uint8_t *v)
{
    CHECK_OK(ctx, tsr__carve_grid_alloc(ctx, g, w, h, w, 1, TSR_U8, 1, 1, 1));
    memcpy(g->pix, v, (size_t)w * (size_t)h);
    memset(g->mask, 0, (size_t)w * (size_t)h);
    for (int32_t i = 0; i < w * h; i++)
        g->index[i] = (uint32_t)i;
    tsr__carve_luma_all(g, 1);
}

/* Hand-computed DP on given energies: M, back-pointers and the seam (strict <, leftmost). */
static void test_dp_by_hand(void)
{
    static const struct {
        uint16_t e[9];
        int32_t seam[3];
        tsr__carve_cost last[3];
    } cases[] = {
        /* diagonal: M = [1 2 3 | 4 2 4 | 4 5 3] */
        {{1, 2, 3, 3, 1, 2, 2, 3, 1}, {0, 1, 2}, {4, 5, 3}},
        /* all equal: the leftmost column */
        {{0, 0, 0, 0, 0, 0, 0, 0, 0}, {0, 0, 0}, {0, 0, 0}},
        /* ties: last row [2 2 2] ends at x=0, whose best predecessor is x=1 (5 > 1) */
        {{5, 1, 1, 1, 1, 1, 1, 1, 1}, {1, 0, 0}, {3, 3, 3}},
        /* centre beats an equal right: row 1 x=1 picks centre (1) over right (1) */
        {{9, 1, 1, 9, 0, 9, 9, 9, 0}, {1, 1, 2}, {10, 10, 1}},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        uint8_t v[9] = {0};
        tsr__carve_grid g;
        tsr__carve_dp d;
        grid_from(&g, 3, 3, v);
        CHECK_OK(ctx, tsr__carve_dp_alloc(ctx, &d, TSR_CARVE_BACKWARD, 3, 3));
        tsr__carve_dp_penalties(&d, &g);
        memcpy(d.energy, cases[c].e, sizeof cases[c].e);
        tsr__carve_dp_all(&g, &d, 1);
        int32_t xs[3];
        tsr__carve_cost key = tsr__carve_backtrack(&g, &d, xs);
        for (int y = 0; y < 3; y++)
            CHECK(xs[y] == cases[c].seam[y]);
        for (int x = 0; x < 3; x++)
            CHECK(d.cost[6 + x] == cases[c].last[x]);
        CHECK(key == cases[c].last[xs[2]]);
        tsr__carve_dp_free(ctx, &d);
        tsr__carve_grid_free(ctx, &g);
    }
}

/* Backward energy by hand on a 4x3 image, and the two seams the public API removes. */
static void test_energy_by_hand(void)
{
    static const uint8_t v[12] = {10, 10, 90, 90, 10, 10, 90, 90, 10, 10, 90, 90};
    tsr__carve_grid g;
    tsr__carve_dp d;
    grid_from(&g, 4, 3, v);
    CHECK_OK(ctx, tsr__carve_dp_alloc(ctx, &d, TSR_CARVE_BACKWARD, 4, 3));
    tsr__carve_energy_all(&g, &d, 1);
    static const uint16_t want[4] = {0, 80, 80, 0};
    for (int y = 0; y < 3; y++)
        for (int x = 0; x < 4; x++)
            CHECK(d.energy[y * 4 + x] == want[x]);
    tsr__carve_dp_free(ctx, &d);
    tsr__carve_grid_free(ctx, &g);

    /* Columns: first seam at x=0 (energies 0 80 80 0, leftmost), then on 10 90 90 the energies
     * are 80 80 0: x=2. Result 10 90. Same bytes on both CPU backends. */
    tsr_image src = {4, 3, 1, TSR_U8, 4, (void *)v, TSR_MEMORY_HOST}, dst;
    CHECK_OK(ctx, tsr_image_alloc(ctx, &dst, 2, 3, 1, TSR_U8));
    CHECK_OK(ctx, tsr_carve(ctx, &src, &dst, NULL));
    for (int y = 0; y < 3; y++) {
        CHECK(((uint8_t *)dst.data)[y * 2] == 10);
        CHECK(((uint8_t *)dst.data)[y * 2 + 1] == 90);
    }
    /* The vertical gradient case with a luma from RGB: Y = (77R + 150G + 29B + 128) >> 8. */
    uint8_t rgb[3] = {200, 100, 50};
    tsr__carve_grid c;
    CHECK_OK(ctx, tsr__carve_grid_alloc(ctx, &c, 1, 1, 1, 3, TSR_U8, 1, 0, 0));
    memcpy(c.pix, rgb, 3);
    tsr__carve_luma_all(&c, 1);
    CHECK(c.luma[0] == (77 * 200 + 150 * 100 + 29 * 50 + 128) >> 8);
    tsr__carve_grid_free(ctx, &c);
    uint16_t rgb16[3] = {0xC8FF, 0x6401, 0x3280};
    CHECK_OK(ctx, tsr__carve_grid_alloc(ctx, &c, 1, 1, 1, 3, TSR_U16, 1, 0, 0));
    memcpy(c.pix, rgb16, 6);
    tsr__carve_luma_all(&c, 1);
    CHECK(c.luma[0] == (77 * 200 + 150 * 100 + 29 * 50 + 128) >> 8);
    tsr__carve_grid_free(ctx, &c);
    tsr_image_free(ctx, &dst);
}

static int iabs(int a)
{
    return a < 0 ? -a : a;
}

/* The key of a seam path by the definitions, computed independently of dp_cpu.c. */
static tsr__carve_cost path_key(const uint8_t *Y, const uint8_t *mask, int w, int h, int fwd,
                                int has_keep, int has_drop, const int *xs)
{
#define L(yy, xx) Y[(yy)*w + ((xx) < 0 ? 0 : (xx) >= w ? w - 1 : (xx))]
    tsr__carve_cost k = 0;
    for (int y = 0; y < h; y++) {
        int x = xs[y];
        int m = mask ? mask[y * w + x] : 0;
        if (has_keep && (m & 1))
            k += TSR__CARVE_KEEP_A;
        if (has_drop && !(m & 2))
            k += TSR__CARVE_DROP_B;
        if (!fwd) {
            int yu = y > 0 ? y - 1 : 0, yd = y < h - 1 ? y + 1 : h - 1;
            k += (tsr__carve_cost)(iabs(L(y, x + 1) - L(y, x - 1)) +
                                   iabs(Y[yd * w + x] - Y[yu * w + x]));
        } else {
            int cu = iabs(L(y, x + 1) - L(y, x - 1));
            k += (tsr__carve_cost)cu;
            if (y > 0 && xs[y - 1] == x - 1)
                k += (tsr__carve_cost)iabs(Y[(y - 1) * w + x] - L(y, x - 1));
            if (y > 0 && xs[y - 1] == x + 1)
                k += (tsr__carve_cost)iabs(Y[(y - 1) * w + x] - L(y, x + 1));
        }
    }
    return k;
#undef L
}

/* Whether path p (h rows) moves at most one column per row and, when cut > 0, crosses from row
 * cut - 1 to row cut straight. */
static int connected(const int *p, int h, int cut)
{
    int ok = cut <= 0 || p[cut] == p[cut - 1];
    for (int y = 1; y < h; y++)
        ok &= iabs(p[y] - p[y - 1]) <= 1;
    return ok;
}

/* Steps p[0..h) to the next of the w^h column tuples; 0 after the last (p back at all zeros). */
static int next_path(int *p, int w, int h)
{
    int y = 0;
    while (y < h && ++p[y] == w)
        p[y++] = 0;
    return y < h;
}

/* Brute force over every connected path of small images: the DP's seam has the least key. */
static void test_brute_force(tsr_rng *r)
{
    for (int t = 0; t < 300; t++) {
        int w = tsr_rng_range(r, 1, 5), h = tsr_rng_range(r, 1, 5);
        int fwd = t & 1, masks = (t >> 1) & 3, range = t % 3 == 0 ? 2 : 256;
        uint8_t Y[25], M[25];
        for (int i = 0; i < w * h; i++) {
            Y[i] = (uint8_t)tsr_rng_range(r, 0, range - 1);
            M[i] = (uint8_t)(masks ? tsr_rng_range(r, 0, 3) & (masks | (masks == 3 ? 3 : 0)) : 0);
        }
        tsr__carve_grid g;
        tsr__carve_dp d;
        grid_from(&g, w, h, Y);
        memcpy(g.mask, M, (size_t)(w * h));
        g.has_keep = (masks & 1) != 0;
        g.has_drop = (masks & 2) != 0;
        CHECK_OK(ctx,
                 tsr__carve_dp_alloc(ctx, &d, fwd ? TSR_CARVE_FORWARD : TSR_CARVE_BACKWARD, w, h));
        tsr__carve_dp_penalties(&d, &g);
        tsr__carve_energy_all(&g, &d, 1);
        tsr__carve_dp_all(&g, &d, 1);
        int32_t xs[5];
        tsr__carve_cost key = tsr__carve_backtrack(&g, &d, xs);
        int seam[5];
        for (int y = 0; y < h; y++)
            seam[y] = xs[y];
        for (int y = 1; y < h; y++)
            CHECK(iabs(seam[y] - seam[y - 1]) <= 1);
        CHECK(path_key(Y, M, w, h, fwd, g.has_keep, g.has_drop, seam) == key);
        /* Every path: none has a smaller key. */
        int p[5] = {0}, best_ok = 1;
        do
            if (connected(p, h, 0) && path_key(Y, M, w, h, fwd, g.has_keep, g.has_drop, p) < key)
                best_ok = 0;
        while (next_path(p, w, h));
        CHECK(best_ok);
        tsr__carve_dp_free(ctx, &d);
        tsr__carve_grid_free(ctx, &g);
    }
}

/* Random luma with structure: smooth ramps, blocks, noise, or two levels (many ties). */
static void random_luma(tsr_rng *r, uint8_t *Y, int w, int h, int kind)
{
    int ax = tsr_rng_range(r, -3, 3), ay = tsr_rng_range(r, -3, 3);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            int v;
            switch (kind % 4) {
            case 0: v = tsr_rng_range(r, 0, 255); break;
            case 1: v = tsr_rng_range(r, 0, 1) * 7; break;
            case 2: v = 128 + ax * x + ay * y + tsr_rng_range(r, -4, 4); break;
            default: v = ((x / 5 + y / 7) & 1) * 200 + tsr_rng_range(r, 0, 3); break;
            }
            Y[y * w + x] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
        }
}

/* After every removal the incremental update equals a full recomputation, array for array. */
static void test_incremental(tsr_rng *r)
{
    static const int shapes[][2] = {{2, 9}, {3, 40}, {7, 7}, {40, 3}, {64, 48}, {23, 90}, {300, 4}};
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
        for (int kind = 0; kind < 8; kind++) {
            int w = shapes[s][0], h = shapes[s][1];
            tsr_carve_energy en = kind & 1 ? TSR_CARVE_FORWARD : TSR_CARVE_BACKWARD;
            uint8_t *Y = malloc((size_t)(w * h));
            random_luma(r, Y, w, h, kind / 2);
            tsr__carve_grid g, f;
            tsr__carve_dp d, e;
            grid_from(&g, w, h, Y);
            if (kind & 4) {
                g.has_keep = g.has_drop = 1;
                for (int i = 0; i < w * h; i++)
                    g.mask[i] = (uint8_t)(tsr_rng_range(r, 0, 9) == 0 ? tsr_rng_range(r, 1, 3) : 0);
            }
            CHECK_OK(ctx, tsr__carve_dp_alloc(ctx, &d, en, w, h));
            CHECK_OK(ctx, tsr__carve_dp_alloc(ctx, &e, en, w, h));
            tsr__carve_dp_penalties(&d, &g);
            tsr__carve_dp_penalties(&e, &g);
            tsr__carve_energy_all(&g, &d, 2);
            tsr__carve_dp_all(&g, &d, 2);
            int32_t *xs = malloc(sizeof *xs * (size_t)h);
            int bad = 0;
            for (int k = 0; k < w - 1 && !bad; k++) {
                tsr__carve_backtrack(&g, &d, xs);
                tsr__carve_remove(&g, &d, xs, NULL, 2);
                tsr__carve_update_after_removal(&g, &d, xs, 2);
                /* Full recomputation on a copy of the narrower grid. */
                CHECK_OK(ctx, tsr__carve_grid_copy(ctx, &g, &f, w));
                tsr__carve_energy_all(&f, &e, 1);
                tsr__carve_dp_all(&f, &e, 1);
                for (int y = 0; y < h; y++)
                    for (int x = 0; x < g.w; x++) {
                        size_t i = (size_t)y * (size_t)w + (size_t)x;
                        if ((en == TSR_CARVE_BACKWARD && d.energy[i] != e.energy[i]) ||
                            d.cost[i] != e.cost[i] || d.back[i] != e.back[i])
                            bad = 1;
                    }
                tsr__carve_grid_free(ctx, &f);
            }
            if (bad)
                fprintf(stderr, "incremental update differs: %dx%d kind %d\n", w, h, kind);
            CHECK(!bad);
            free(xs);
            free(Y);
            tsr__carve_dp_free(ctx, &d);
            tsr__carve_dp_free(ctx, &e);
            tsr__carve_grid_free(ctx, &g);
        }
}

/* The key of a batch seam by batch.c's definition, computed independently of it: the top half
 * (rows 0 .. m-1) and the bottom half upside down, each keyed by path_key as an image of its
 * own (m = h / 2; the seam crosses the cut straight). */
static tsr__carve_cost halves_key(const uint8_t *Y, const uint8_t *M, int w, int h, int fwd,
                                  int has_keep, int has_drop, const int *xs)
{
    const int m = h / 2, hb = h - m;
    uint8_t fy[64], fm[64];
    int fx[8];
    for (int r = 0; r < hb; r++) {
        memcpy(fy + r * w, Y + (h - 1 - r) * w, (size_t)w);
        memcpy(fm + r * w, M + (h - 1 - r) * w, (size_t)w);
        fx[r] = xs[h - 1 - r];
    }
    return (m > 0 ? path_key(Y, M, w, m, fwd, has_keep, has_drop, xs) : 0) +
           path_key(fy, fm, w, hb, fwd, has_keep, has_drop, fx);
}

/* Batch seams: K per row, distinct and increasing, each connected, all in range; and K = 1 by
 * brute force on small images: no connected path crossing the cut straight has a smaller key
 * by the halves' definition. */
static void test_batch_invariants(tsr_rng *r)
{
    for (int t = 0; t < 160; t++) {
        const int small = t >= 60;
        int w = small ? tsr_rng_range(r, 2, 6) : tsr_rng_range(r, 2, 120);
        int h = small ? tsr_rng_range(r, 1, 6) : tsr_rng_range(r, 1, 60);
        int k = tsr_rng_range(r, 1, w - 1), fwd = t & 1, masks = (t >> 1) & 3;
        uint8_t *Y = malloc((size_t)(w * h)), *M = malloc((size_t)(w * h));
        random_luma(r, Y, w, h, t);
        for (int i = 0; i < w * h; i++)
            M[i] = (uint8_t)(small && masks ? tsr_rng_range(r, 0, 3) & masks : 0);
        tsr__carve_grid g, flip;
        tsr__carve_dp d;
        grid_from(&g, w, h, Y);
        memcpy(g.mask, M, (size_t)(w * h));
        g.has_keep = small && (masks & 1) != 0;
        g.has_drop = small && (masks & 2) != 0;
        CHECK_OK(ctx, tsr__carve_grid_alloc(ctx, &flip, w, h - h / 2, w, 1, TSR_U8, 0, 1, 0));
        CHECK_OK(ctx,
                 tsr__carve_dp_alloc(ctx, &d, fwd ? TSR_CARVE_FORWARD : TSR_CARVE_BACKWARD, w, h));
        tsr__carve_dp_penalties(&d, &g);
        int32_t *cols = malloc(sizeof *cols * (size_t)(h * k)),
                *heap = malloc(sizeof *heap * (size_t)k);
        tsr__carve_batch_select(&g, &d, &flip, k, cols, heap, 1);
        int ok = 1;
        for (int y = 0; y < h; y++)
            for (int j = 0; j < k; j++) {
                int c = cols[y * k + j];
                ok &= c >= 0 && c < w;
                if (j > 0)
                    ok &= c > cols[y * k + j - 1];
                if (y > 0)
                    ok &= iabs(c - cols[(y - 1) * k + j]) <= 1;
                if (y == h / 2 && y > 0)
                    ok &= c == cols[(y - 1) * k + j];
            }
        CHECK(ok);
        if (small) {
            tsr__carve_batch_select(&g, &d, &flip, 1, cols, heap, 1);
            int seam[6], p[6] = {0}, best_ok = 1;
            for (int y = 0; y < h; y++)
                seam[y] = cols[y];
            const tsr__carve_cost key = halves_key(Y, M, w, h, fwd, g.has_keep, g.has_drop, seam);
            do
                if (connected(p, h, h / 2) &&
                    halves_key(Y, M, w, h, fwd, g.has_keep, g.has_drop, p) < key)
                    best_ok = 0;
            while (next_path(p, w, h));
            if (!best_ok)
                fprintf(stderr,
                        "batch k=1 %dx%d fwd %d masks %d: a straight-crossing path has a "
                        "smaller key\n",
                        w, h, fwd, masks);
            CHECK(best_ok);
        }
        free(cols);
        free(heap);
        free(Y);
        free(M);
        tsr__carve_dp_free(ctx, &d);
        tsr__carve_grid_free(ctx, &flip);
        tsr__carve_grid_free(ctx, &g);
    }
    CHECK(tsr__carve_batch_k(7680, 1000, 0) == 120);
    CHECK(tsr__carve_batch_k(100, 1000, 0) == 1);
    CHECK(tsr__carve_batch_k(7680, 5, 0) == 5);
    CHECK(tsr__carve_batch_k(10, 100, 50) == 9);
}

/* The map: a permutation per row; retargeting from it equals carving to that width. */
static void test_map(tsr_rng *r)
{
    const int w = 37, h = 23;
    tsr_image src, map, a, b;
    CHECK_OK(ctx, tsr_image_alloc(ctx, &src, w, h, 3, TSR_U8));
    uint8_t *Y = malloc((size_t)(w * h));
    random_luma(r, Y, w, h, 2);
    for (int i = 0; i < w * h; i++)
        for (int c = 0; c < 3; c++)
            ((uint8_t *)src.data)[i * 3 + c] = (uint8_t)(Y[i] + tsr_rng_range(r, 0, 9) * c);
    CHECK_OK(ctx, tsr_image_alloc(ctx, &map, w, h, 1, TSR_U16));
    for (int fwd = 0; fwd < 2; fwd++) {
        tsr_carve_options o;
        tsr_carve_options_init(&o);
        o.energy = fwd ? TSR_CARVE_FORWARD : TSR_CARVE_BACKWARD;
        CHECK_OK(ctx, tsr_carve_map(ctx, &src, &o, &map));
        int perm = 1;
        for (int y = 0; y < h; y++) {
            int seen[64] = {0};
            const uint16_t *m = (const uint16_t *)((uint8_t *)map.data + (size_t)y * map.stride);
            for (int x = 0; x < w; x++)
                seen[m[x] == 65535 ? w - 1 : m[x]]++;
            for (int x = 0; x < w; x++)
                perm &= seen[x] == 1;
        }
        CHECK(perm);
        for (int tw = 1; tw <= w; tw += 6) {
            CHECK_OK(ctx, tsr_image_alloc(ctx, &a, tw, h, 3, TSR_U8));
            CHECK_OK(ctx, tsr_image_alloc(ctx, &b, tw, h, 3, TSR_U8));
            CHECK_OK(ctx, tsr_carve_retarget(ctx, &src, &map, &a));
            o.width = tw;
            CHECK_OK(ctx, tsr_carve(ctx, &src, &b, &o));
            o.width = 0;
            CHECK(memcmp(a.data, b.data, (size_t)(tw * h * 3)) == 0);
            tsr_image_free(ctx, &a);
            tsr_image_free(ctx, &b);
        }
    }
    /* A map made down to width 30 cannot retarget to 20. */
    tsr_carve_options o;
    tsr_carve_options_init(&o);
    o.width = 30;
    CHECK_OK(ctx, tsr_carve_map(ctx, &src, &o, &map));
    CHECK_OK(ctx, tsr_image_alloc(ctx, &a, 20, h, 3, TSR_U8));
    CHECK_STATUS(tsr_carve_retarget(ctx, &src, &map, &a), TSR_ERR_INVALID_ARGUMENT);
    tsr_image_free(ctx, &a);
    CHECK_OK(ctx, tsr_image_alloc(ctx, &a, 31, h, 3, TSR_U8));
    CHECK_OK(ctx, tsr_carve_retarget(ctx, &src, &map, &a));
    tsr_image_free(ctx, &a);
    free(Y);
    tsr_image_free(ctx, &map);
    tsr_image_free(ctx, &src);
}

/* Object removal, enlargement sizes, overlay, report, and the rejections. */
static void test_api(tsr_rng *r)
{
    const int w = 40, h = 30;
    tsr_image src, drop, keep, dst, ov, bad;
    CHECK_OK(ctx, tsr_image_alloc(ctx, &src, w, h, 4, TSR_U8));
    tsr_rng_fill(r, src.data, (size_t)(w * h * 4));
    CHECK_OK(ctx, tsr_image_alloc(ctx, &drop, w, h, 1, TSR_U8));
    CHECK_OK(ctx, tsr_image_alloc(ctx, &keep, w, h, 1, TSR_U8));
    memset(drop.data, 0, (size_t)(w * h));
    memset(keep.data, 0, (size_t)(w * h));
    for (int y = 10; y < 20; y++)
        for (int x = 12; x < 15; x++)
            ((uint8_t *)drop.data)[y * w + x] = 255;
    for (int y = 0; y < h; y++)
        ((uint8_t *)keep.data)[y * w + 30] = 1;
    tsr_carve_options o;
    tsr_carve_report rep;
    tsr_carve_options_init(&o);
    o.drop = &drop;
    o.keep = &keep;
    o.report = &rep;
    int32_t ow, oh;
    CHECK_OK(ctx, tsr_carve_size(ctx, &src, &o, &ow, &oh));
    CHECK(ow == w && oh == h);
    CHECK_OK(ctx, tsr_image_alloc(ctx, &dst, w, h, 4, TSR_U8));
    CHECK_OK(ctx, tsr_image_alloc(ctx, &ov, w, h, tsr_carve_overlay_channels(4), TSR_U8));
    o.seams = &ov;
    CHECK_OK(ctx, tsr_carve(ctx, &src, &dst, &o));
    CHECK(rep.removed_vertical == 3 && rep.inserted_vertical == 3);
    int red = 0, keep_red = 0;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            const uint8_t *p = (uint8_t *)ov.data + (size_t)y * ov.stride + (size_t)x * 4;
            int is_red = p[0] == 255 && p[1] == 0 && p[2] == 0 && p[3] == 255;
            red += is_red;
            keep_red += is_red && x == 30;
        }
    CHECK(red >= 3 * h);
    CHECK(keep_red == 0);
    tsr_image_free(ctx, &dst);

    /* Enlarge both sides past 50%: several rounds. */
    tsr_carve_options_init(&o);
    o.width = 2 * w + 3;
    o.height = h + 1;
    o.report = &rep;
    CHECK_OK(ctx, tsr_image_alloc(ctx, &dst, 2 * w + 3, h + 1, 4, TSR_U8));
    CHECK_OK(ctx, tsr_carve(ctx, &src, &dst, &o));
    CHECK(rep.inserted_vertical == w + 3 && rep.inserted_horizontal == 1);
    tsr_image_free(ctx, &dst);

    /* Rejections. */
    tsr_carve_options_init(&o);
    o.width = TSR_CARVE_MAX_SIDE + 1;
    CHECK_STATUS(tsr_carve_size(ctx, &src, &o, &ow, &oh), TSR_ERR_LIMIT);
    o.width = -1;
    CHECK_STATUS(tsr_carve_size(ctx, &src, &o, &ow, &oh), TSR_ERR_INVALID_ARGUMENT);
    CHECK_OK(ctx, tsr_image_alloc(ctx, &bad, w - 1, h, 1, TSR_U8));
    tsr_carve_options_init(&o);
    o.keep = &bad;
    CHECK_STATUS(tsr_carve_size(ctx, &src, &o, &ow, &oh), TSR_ERR_INVALID_ARGUMENT);
    CHECK(strstr(tsr_ctx_last_error(ctx), "keep mask") != NULL);
    tsr_image_free(ctx, &bad);
    CHECK_OK(ctx, tsr_image_alloc(ctx, &bad, 1, 5, 3, TSR_U8));
    memset(bad.data, 1, 15);
    CHECK_OK(ctx, tsr_image_alloc(ctx, &dst, 1, 4, 3, TSR_U8));
    CHECK_OK(ctx, tsr_carve(ctx, &bad, &dst, NULL)); /* one column, fewer rows: fine */
    tsr_image_free(ctx, &dst);
    CHECK_OK(ctx, tsr_image_alloc(ctx, &dst, 1, 5, 3, TSR_U8));
    tsr_image map;
    CHECK_OK(ctx, tsr_image_alloc(ctx, &map, 1, 5, 1, TSR_U16));
    CHECK_STATUS(tsr_carve_map(ctx, &bad, NULL, &map), TSR_ERR_INVALID_ARGUMENT);
    tsr_image_free(ctx, &map);
    tsr_image_free(ctx, &dst);
    tsr_image_free(ctx, &bad);
    CHECK_OK(ctx, tsr_image_alloc(ctx, &dst, w, h, 3, TSR_U8)); /* wrong channels */
    CHECK_STATUS(tsr_carve(ctx, &src, &dst, NULL), TSR_ERR_INVALID_ARGUMENT);
    tsr_image_free(ctx, &dst);
    tsr_image f32;
    CHECK_OK(ctx, tsr_image_alloc(ctx, &f32, 4, 4, 1, TSR_F32));
    CHECK_STATUS(tsr_carve_size(ctx, &f32, NULL, &ow, &oh), TSR_ERR_UNSUPPORTED);
    tsr_image_free(ctx, &f32);

    tsr_image_free(ctx, &ov);
    tsr_image_free(ctx, &keep);
    tsr_image_free(ctx, &drop);
    tsr_image_free(ctx, &src);
}

/* Sets row y of img (any depth) from v: samples in order. */
static void set_row(tsr_image *img, int32_t y, const uint16_t *v)
{
    uint8_t *row = (uint8_t *)img->data + (size_t)y * img->stride;
    for (int32_t i = 0; i < img->width * img->channels; i++) {
        if (img->depth == TSR_U8)
            row[i] = (uint8_t)v[i];
        else
            ((uint16_t *)row)[i] = v[i];
    }
}

/* tsr_carve_mask_from_image: any nonzero colour sample gives 255, alpha never counts; the mask
 * is poisoned before each call. */
static void test_mask_from_image(void)
{
    static const struct {
        int32_t w, h, cn;
        tsr_depth depth;
        uint16_t v[16];
        uint8_t want[6];
    } cases[] = {
        /* gray + alpha: the gray sample decides */
        {3, 2, 2, TSR_U8, {0, 255, 7, 0, 0, 0, 1, 1, 0, 9, 200, 0}, {0, 255, 0, 255, 0, 255}},
        /* RGBA u16: R, G or B; a sample of 256 (low byte 0) counts */
        {2,
         2,
         4,
         TSR_U16,
         {0, 0, 0, 65535, 0, 0, 1, 0, 0, 256, 0, 0, 0, 0, 0, 0},
         {0, 255, 255, 0}},
        /* RGB */
        {2, 1, 3, TSR_U8, {0, 0, 0, 0, 0, 5}, {0, 255}},
        /* gray */
        {3, 1, 1, TSR_U16, {0, 65535, 2}, {0, 255, 255}},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        tsr_image img, m;
        const int32_t w = cases[c].w, h = cases[c].h, cn = cases[c].cn;
        CHECK_OK(ctx, tsr_image_alloc(ctx, &img, w, h, cn, cases[c].depth));
        for (int32_t y = 0; y < h; y++)
            set_row(&img, y, cases[c].v + (size_t)y * (size_t)(w * cn));
        CHECK_OK(ctx, tsr_image_alloc(ctx, &m, w, h, 1, TSR_U8));
        for (int32_t y = 0; y < h; y++)
            memset((uint8_t *)m.data + (size_t)y * m.stride, 0x5A, (size_t)w);
        CHECK_OK(ctx, tsr_carve_mask_from_image(ctx, &img, &m));
        for (int32_t y = 0; y < h; y++)
            for (int32_t x = 0; x < w; x++)
                CHECK(((const uint8_t *)m.data)[(size_t)y * m.stride + (size_t)x] ==
                      cases[c].want[y * w + x]);
        tsr_image_free(ctx, &m);
        tsr_image_free(ctx, &img);
    }
    tsr_image img, m;
    CHECK_OK(ctx, tsr_image_alloc(ctx, &img, 4, 3, 3, TSR_U8));
    CHECK_OK(ctx, tsr_image_alloc(ctx, &m, 4, 3, 2, TSR_U8)); /* two channels */
    CHECK_STATUS(tsr_carve_mask_from_image(ctx, &img, &m), TSR_ERR_INVALID_ARGUMENT);
    tsr_image_free(ctx, &m);
    CHECK_OK(ctx, tsr_image_alloc(ctx, &m, 4, 2, 1, TSR_U8)); /* another size */
    CHECK_STATUS(tsr_carve_mask_from_image(ctx, &img, &m), TSR_ERR_INVALID_ARGUMENT);
    tsr_image_free(ctx, &m);
    tsr_image_free(ctx, &img);
    CHECK_OK(ctx, tsr_image_alloc(ctx, &img, 4, 3, 1, TSR_F32));
    CHECK_OK(ctx, tsr_image_alloc(ctx, &m, 4, 3, 1, TSR_U8));
    CHECK_STATUS(tsr_carve_mask_from_image(ctx, &img, &m), TSR_ERR_UNSUPPORTED);
    tsr_image_free(ctx, &m);
    tsr_image_free(ctx, &img);
}

/* Carves one seam off a w x h random gray image on c; returns the status. */
static tsr_status carve_one(tsr_ctx *c, tsr_rng *r, int32_t w, int32_t h)
{
    tsr_image src, dst;
    CHECK_OK(c, tsr_image_alloc(c, &src, w, h, 1, TSR_U8));
    for (int32_t y = 0; y < h; y++)
        tsr_rng_fill(r, (uint8_t *)src.data + (size_t)y * src.stride, (size_t)w);
    CHECK_OK(c, tsr_image_alloc(c, &dst, w - 1, h, 1, TSR_U8));
    tsr_status st = tsr_carve(c, &src, &dst, NULL);
    tsr_image_free(c, &dst);
    tsr_image_free(c, &src);
    return st;
}

/* The backend choice: under auto an image below a megapixel carves on the CPU, one of a
 * megapixel on CUDA where a device is usable (else on the CPU, saying so); an explicit OpenCL
 * request is TSR_ERR_NO_BACKEND (carve has no OpenCL path), where a context can ask for it. */
static void test_backend_choice(tsr_rng *r)
{
    tsr_ctx_options co;
    tsr_ctx_options_init(&co);
    co.backend = TSR_BACKEND_AUTO;
    tsr_ctx *a;
    CHECK_OK(ctx, tsr_ctx_create(&co, &a));
    CHECK_OK(a, carve_one(a, r, 1000, 999));
    CHECK(tsr_ctx_backend(a) == TSR_BACKEND_CPU);
    CHECK(strstr(tsr_ctx_backend_reason(a), "small image") != NULL);
    CHECK_OK(a, carve_one(a, r, 1000, 1000));
    if (tsr_ctx_backend(a) == TSR_BACKEND_CUDA)
        CHECK(strstr(tsr_ctx_backend_reason(a), "large image") != NULL);
    else
        CHECK(tsr_ctx_backend(a) == TSR_BACKEND_CPU &&
              strstr(tsr_ctx_backend_reason(a), "no usable CUDA device") != NULL);
    if (!tsr_backend_available(TSR_BACKEND_CUDA))
        CHECK(tsr_ctx_backend(a) == TSR_BACKEND_CPU);
    const tsr_backend large = tsr_ctx_backend(a);
    tsr_ctx_destroy(a);
    /* tsr_carve_prepare changes no choice: a small image still carves on the CPU, a large one
       where it did without; a prepared device left unused is closed by destroy */
    CHECK_OK(ctx, tsr_ctx_create(&co, &a));
    CHECK_OK(a, tsr_carve_prepare(a, 1000, 1000));
    CHECK_OK(a, carve_one(a, r, 1000, 999));
    CHECK(tsr_ctx_backend(a) == TSR_BACKEND_CPU);
    CHECK_OK(a, carve_one(a, r, 1000, 1000));
    CHECK(tsr_ctx_backend(a) == large);
    tsr_ctx_destroy(a);
    CHECK_OK(ctx, tsr_ctx_create(&co, &a));
    CHECK_OK(a, tsr_carve_prepare(a, 4000, 3000));
    tsr_ctx_destroy(a);
    CHECK_OK(ctx, tsr_carve_prepare(ctx, 4000, 3000)); /* an explicit CPU context: nothing */
    co.backend = TSR_BACKEND_OPENCL;
    if (!tsr_backend_available(TSR_BACKEND_OPENCL) || tsr_ctx_create(&co, &a) != TSR_OK) {
        fprintf(stderr, "test_carve: no OpenCL device, the OpenCL request is not checked\n");
        return;
    }
    CHECK_STATUS(carve_one(a, r, 20, 10), TSR_ERR_NO_BACKEND);
    tsr_ctx_destroy(a);
}

int main(void)
{
    tsr_ctx_options co;
    tsr_ctx_options_init(&co);
    co.backend = TSR_BACKEND_CPU;
    if (tsr_ctx_create(&co, &ctx) != TSR_OK)
        return 1;
    tsr_rng r;
    tsr_rng_seed(&r, 4);
    test_dp_by_hand();
    test_energy_by_hand();
    test_brute_force(&r);
    test_incremental(&r);
    test_batch_invariants(&r);
    test_map(&r);
    test_api(&r);
    test_mask_from_image();
    test_backend_choice(&r);
    tsr_ctx_destroy(ctx);
    return tsr_test_finish("test_carve");
}
