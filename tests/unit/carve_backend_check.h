/* Shared by the carve backend tests (test_carve_backends.c: CPU parallel; test_carve_cuda_gpu.c:
 * CUDA): random images and masks, and the comparison of one configuration on the reference
 * context `ref` and the context under test `other`, byte for byte (output, seam overlay, report),
 * with the tested outputs poisoned first; the configuration sweeps (random shapes, a real image,
 * seam-order maps). The including test creates both contexts. */
#ifndef TSR_CARVE_BACKEND_CHECK_H
#define TSR_CARVE_BACKEND_CHECK_H

#include "testlib.h"

#include <stdlib.h>
#include <string.h>

static tsr_ctx *ref, *other; /* the reference and the backend under test */

static void fill_image(tsr_rng *r, tsr_image *img, int kind)
{
    const int cn = img->channels, w = img->width, h = img->height;
    const int top = img->depth == TSR_U8 ? 255 : 65535;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            for (int c = 0; c < cn; c++) {
                int v;
                switch (kind % 3) {
                case 0: v = tsr_rng_range(r, 0, top); break;
                case 1: /* few levels: many equal keys, the tie-break decides */
                    v = tsr_rng_range(r, 0, 1) * (top / 3);
                    break;
                default:
                    v = ((x * 7 + y * 3 + c * 50) % 256) * (top / 255) + tsr_rng_range(r, 0, 2);
                    break;
                }
                v = v > top ? top : v;
                size_t o = (size_t)y * img->stride;
                if (img->depth == TSR_U8)
                    ((uint8_t *)img->data)[o + (size_t)(x * cn + c)] = (uint8_t)v;
                else
                    ((uint16_t *)((uint8_t *)img->data + o))[x * cn + c] = (uint16_t)v;
            }
}

static void fill_mask(tsr_rng *r, tsr_image *m, int density)
{
    memset(m->data, 0, (size_t)m->width * (size_t)m->height);
    /* a rectangle plus scattered pixels */
    int x0 = tsr_rng_range(r, 0, m->width - 1), y0 = tsr_rng_range(r, 0, m->height - 1);
    int x1 = tsr_rng_range(r, x0, m->width - 1), y1 = tsr_rng_range(r, y0, m->height - 1);
    for (int y = y0; y <= y1; y++)
        for (int x = x0; x <= x1; x++)
            ((uint8_t *)m->data)[y * m->width + x] = 1;
    for (int i = 0; i < m->width * m->height; i++)
        if (tsr_rng_range(r, 0, 99) < density)
            ((uint8_t *)m->data)[i] = 255;
}

/* A case: a random w x h image of cn channels and depth (fill_image's kind), then a keep and a
 * drop mask of its size (fill_mask's densities); free_case releases all three. */
static void make_case(tsr_rng *r, int w, int h, int cn, tsr_depth depth, int kind, int keep_density,
                      int drop_density, tsr_image *src, tsr_image *keep, tsr_image *drop)
{
    CHECK_OK(ref, tsr_image_alloc(ref, src, w, h, cn, depth));
    fill_image(r, src, kind);
    CHECK_OK(ref, tsr_image_alloc(ref, keep, w, h, 1, TSR_U8));
    CHECK_OK(ref, tsr_image_alloc(ref, drop, w, h, 1, TSR_U8));
    fill_mask(r, keep, keep_density);
    fill_mask(r, drop, drop_density);
}

static void free_case(tsr_image *src, tsr_image *keep, tsr_image *drop)
{
    tsr_image_free(ref, keep);
    tsr_image_free(ref, drop);
    tsr_image_free(ref, src);
}

static int same_image(const tsr_image *a, const tsr_image *b)
{
    size_t row = (size_t)a->width * (size_t)a->channels * tsr_depth_size(a->depth);
    for (int y = 0; y < a->height; y++)
        if (memcmp((uint8_t *)a->data + (size_t)y * a->stride,
                   (uint8_t *)b->data + (size_t)y * b->stride, row))
            return 0;
    return 1;
}

static int cases, mismatches;
/* Set by a test before the sweeps: a small subset (for runs under compute-sanitizer). */
static int quick;

/* Runs one configuration on both backends and compares everything. */
static void compare(const tsr_image *src, tsr_carve_options *o, const char *what)
{
    int32_t w, h;
    tsr_image a, b, oa, ob;
    tsr_carve_report ra, rb;
    CHECK_OK(ref, tsr_carve_size(ref, src, o, &w, &h));
    CHECK_OK(ref, tsr_image_alloc(ref, &a, w, h, src->channels, src->depth));
    CHECK_OK(other, tsr_image_alloc(other, &b, w, h, src->channels, src->depth));
    int32_t oc = tsr_carve_overlay_channels(src->channels);
    CHECK_OK(ref, tsr_image_alloc(ref, &oa, src->width, src->height, oc, src->depth));
    CHECK_OK(other, tsr_image_alloc(other, &ob, src->width, src->height, oc, src->depth));
    o->seams = &oa;
    o->report = &ra;
    CHECK_OK(ref, tsr_carve(ref, src, &a, o));
    o->seams = &ob;
    o->report = &rb;
    memset(b.data, 0xCD, (size_t)b.stride * (size_t)b.height);
    memset(ob.data, 0xCD, (size_t)ob.stride * (size_t)ob.height);
    memset(&rb, 0xCD, sizeof rb);
    CHECK_OK(other, tsr_carve(other, src, &b, o));
    o->seams = NULL;
    o->report = NULL;
    cases++;
    /* the report byte for byte, but for the device time (0 on the CPU backends) */
    CHECK(rb.device_ms >= 0 && ra.device_ms == 0);
    rb.device_ms = ra.device_ms;
    int ok = same_image(&a, &b) && same_image(&oa, &ob) && memcmp(&ra, &rb, sizeof ra) == 0;
    if (!ok) {
        mismatches++;
        if (mismatches < 40)
            fprintf(stderr,
                    "mismatch: %s: %dx%d c%d d%d -> %dx%d energy %s mode %s order %s keep %d "
                    "drop %d\n",
                    what, (int)src->width, (int)src->height, (int)src->channels, (int)src->depth,
                    (int)w, (int)h, tsr_carve_energy_name(o->energy), tsr_carve_mode_name(o->mode),
                    tsr_carve_order_name(o->order), o->keep != NULL, o->drop != NULL);
    }
    CHECK(ok);
    tsr_image_free(ref, &a);
    tsr_image_free(other, &b);
    tsr_image_free(ref, &oa);
    tsr_image_free(other, &ob);
}

static void random_cases(tsr_rng *r)
{
    static const int shapes[][2] = {{1, 1},   {1, 7},   {2, 1},    {2, 9},    {3, 3},
                                    {3, 64},  {3, 500}, {9, 400},  {500, 2},  {700, 3},
                                    {64, 48}, {97, 61}, {130, 17}, {17, 130}, {200, 150}};
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
        for (int t = 0; t < 8; t++) {
            const int w = shapes[s][0], h = shapes[s][1];
            /* quick: two shapes (two bands; three strips), both energies, a keep mask */
            if (quick && ((s != 10 && s != 12) || (t != 1 && t != 2)))
                continue;
            tsr_image src, keep, drop;
            make_case(r, w, h, 1 + (t + (int)s) % 4, (t & 3) == 3 ? TSR_U16 : TSR_U8, t + (int)s, 2,
                      2, &src, &keep, &drop);
            tsr_carve_options o;
            tsr_carve_options_init(&o);
            o.energy = t & 1 ? TSR_CARVE_FORWARD : TSR_CARVE_BACKWARD;
            o.mode = t == 6 ? TSR_CARVE_BATCH : TSR_CARVE_EXACT;
            o.batch_seams = t == 6 && (s & 1) ? 3 : 0;
            o.order = (tsr_carve_order)((t / 2) % 2);
            if (t & 2) {
                o.keep = &keep;
                if (t & 4)
                    o.drop = &drop;
            }
            /* Widths: shrink hard, shrink a little, enlarge (several rounds), keep. */
            int ws[4] = {w > 1 ? 1 + w / 3 : 1, w > 1 ? w - 1 : 1, 2 * w + 1, w};
            int hs[4] = {h > 1 ? 1 + h / 4 : 1, h, h + 1 + h / 3, h > 1 ? h - 1 : 1};
            for (int k = 0; k < 4; k++) {
                o.width = ws[(k + t) % 4];
                o.height = hs[k];
                if ((int64_t)o.width * o.height > 400000 || (o.width > 300 && o.height > 300))
                    continue;
                compare(&src, &o, "random");
            }
            /* Object removal (drop mask, no size). */
            tsr_carve_options_init(&o);
            o.drop = &drop;
            o.energy = t & 1 ? TSR_CARVE_FORWARD : TSR_CARVE_BACKWARD;
            if (w > 1 && h > 1 && w * h <= (quick ? 2000 : 20000))
                compare(&src, &o, "object removal");
            /* Optimal order on small images: both energies, with and without masks. */
            if (!quick && w >= 3 && h >= 3 && w * h <= 4000) {
                tsr_carve_options_init(&o);
                o.order = TSR_CARVE_OPTIMAL;
                o.energy = t & 1 ? TSR_CARVE_FORWARD : TSR_CARVE_BACKWARD;
                o.keep = t & 2 ? &keep : NULL;
                o.drop = t & 4 ? &drop : NULL;
                o.width = w - 2 - (t % 3);
                o.height = h - 1 - (t % 2);
                if (o.width >= 1 && o.height >= 1)
                    compare(&src, &o, "optimal order");
            }
            free_case(&src, &keep, &drop);
        }
}

/* A real photo, cropped so the reference stays quick. */
static void real_image(void)
{
    const char *path = tsr_test_data("images/chelsea.png");
    if (!path)
        return;
    tsr_image full, src;
    if (tsr_image_load(ref, path, &full, NULL) != TSR_OK) {
        fprintf(stderr, "cannot load %s: %s\n", path, tsr_ctx_last_error(ref));
        CHECK(0);
        return;
    }
    int w = full.width < 240 ? full.width : 240, h = full.height < 160 ? full.height : 160;
    src = full;
    src.width = w;
    src.height = h;
    tsr_carve_options o;
    for (int e = 0; e < 2; e++) {
        tsr_carve_options_init(&o);
        o.energy = (tsr_carve_energy)e;
        o.width = w - 60;
        o.height = h - 20;
        compare(&src, &o, "chelsea shrink");
        o.width = w + 50;
        o.height = h;
        compare(&src, &o, "chelsea enlarge");
        o.width = w - 80;
        o.mode = TSR_CARVE_BATCH;
        compare(&src, &o, "chelsea batch");
    }
    tsr_image_free(ref, &full);
}

/* Seam-order maps (every removal recorded) on both backends. */
static void maps(tsr_rng *r)
{
    static const int shapes[][2] = {{2, 5}, {40, 33}, {300, 70}};
    for (size_t s = 0; s < (quick ? 2 : sizeof shapes / sizeof shapes[0]); s++)
        for (int e = 0; e < 2; e++) {
            tsr_image src, ma, mb;
            CHECK_OK(ref, tsr_image_alloc(ref, &src, shapes[s][0], shapes[s][1], 3, TSR_U8));
            fill_image(r, &src, (int)s + e);
            CHECK_OK(ref, tsr_image_alloc(ref, &ma, src.width, src.height, 1, TSR_U16));
            CHECK_OK(ref, tsr_image_alloc(ref, &mb, src.width, src.height, 1, TSR_U16));
            memset(mb.data, 0xCD, (size_t)mb.stride * (size_t)mb.height);
            tsr_carve_options o;
            tsr_carve_options_init(&o);
            o.energy = (tsr_carve_energy)e;
            o.width = s == 2 ? 200 : 0;
            CHECK_OK(ref, tsr_carve_map(ref, &src, &o, &ma));
            CHECK_OK(other, tsr_carve_map(other, &src, &o, &mb));
            cases++;
            if (!same_image(&ma, &mb)) {
                mismatches++;
                fprintf(stderr, "mismatch: seam-order map %dx%d energy %d\n", (int)src.width,
                        (int)src.height, e);
                CHECK(0);
            }
            tsr_image_free(ref, &src);
            tsr_image_free(ref, &ma);
            tsr_image_free(ref, &mb);
        }
}

#endif
