/* The CPU parallel resize against the single-threaded reference, byte for byte, on fresh random
 * inputs: every interpolation, u8/u16/f32, 1-4 channels, upscale, downscale, non-integer,
 * one axis, 1-pixel results, exact 2x and 3x, size-given and scale-given forms, padded strides.
 * Outputs are poisoned before each run. Also the argument checks and their statuses. */
#include "testlib.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static const tsr_depth depths[] = {TSR_U8, TSR_U16, TSR_F32};

/* A random image with a random row padding; f32 samples in [-0.5, 1.5). */
static tsr_image make_image(tsr_rng *r, int w, int h, int cn, tsr_depth d)
{
    size_t row = (size_t)w * cn * tsr_depth_size(d);
    tsr_image img = {w, h, cn, d, row + (size_t)tsr_rng_range(r, 0, 3) * 4, NULL, TSR_MEMORY_HOST};
    img.data = malloc(img.stride * (size_t)h);
    tsr_rng_fill(r, img.data, img.stride * (size_t)h);
    if (d == TSR_F32)
        for (int y = 0; y < h; y++) {
            float *p = (float *)((char *)img.data + (size_t)y * img.stride);
            for (int i = 0; i < w * cn; i++)
                p[i] = (float)(tsr_rng_next(r) >> 40) / (float)(1 << 24) * 2.f - 0.5f;
        }
    return img;
}

static int same_rows(const tsr_image *a, const tsr_image *b)
{
    size_t row = (size_t)a->width * a->channels * tsr_depth_size(a->depth);
    for (int y = 0; y < a->height; y++)
        if (memcmp((char *)a->data + (size_t)y * a->stride, (char *)b->data + (size_t)y * b->stride,
                   row) != 0)
            return 0;
    return 1;
}

static int cases_run, cases_bad;

/* Resizes src with both contexts (dst size ow x oh, or from fx/fy when nonzero) and compares. */
static void one(tsr_ctx *ref, tsr_ctx *cpu, tsr_rng *r, const tsr_image *src, int ow, int oh,
                double fx, double fy, tsr_interp interp)
{
    tsr_resize_options opt;
    tsr_resize_options_init(&opt);
    opt.interp = interp;
    if (fx > 0) {
        opt.scale_x = fx;
        opt.scale_y = fy;
        CHECK_STATUS(tsr_resize_size(src->width, src->height, fx, fy, &ow, &oh), TSR_OK);
    }
    tsr_image a = make_image(r, ow, oh, src->channels, src->depth);
    tsr_image b = make_image(r, ow, oh, src->channels, src->depth);
    memset(a.data, 0xA5, a.stride * (size_t)oh);
    memset(b.data, 0x5A, b.stride * (size_t)oh);
    CHECK_OK(ref, tsr_resize(ref, src, &a, &opt));
    CHECK_OK(cpu, tsr_resize(cpu, src, &b, &opt));
    cases_run++;
    if (!same_rows(&a, &b)) {
        cases_bad++;
        tsr_test_checks++;
        tsr_test_failures++;
        fprintf(stderr, "mismatch: %s depth %d cn %d %dx%d -> %dx%d (fx %g fy %g)\n",
                tsr_interp_name(interp), (int)src->depth, (int)src->channels, (int)src->width,
                (int)src->height, ow, oh, fx, fy);
    }
    free(a.data);
    free(b.data);
}

static void random_cases(tsr_ctx *ref, tsr_ctx *cpu, tsr_rng *r)
{
    for (int i = 0; i < 360; i++) {
        tsr_interp interp = (tsr_interp)(i % 6);
        tsr_depth d = depths[(i / 6) % 3];
        int cn = tsr_rng_range(r, 1, 4);
        int w = tsr_rng_range(r, 1, 90), h = tsr_rng_range(r, 1, 70);
        int kind = tsr_rng_range(r, 0, 6);
        int ow = tsr_rng_range(r, 1, 130), oh = tsr_rng_range(r, 1, 100);
        double fx = 0, fy = 0;
        switch (kind) {
        case 0: break; /* random sizes */
        case 1:
            w = 2 * tsr_rng_range(r, 1, 40) + tsr_rng_range(r, 0, 1); /* 2x, maybe odd */
            h = 2 * tsr_rng_range(r, 1, 30);
            ow = (w + 1) / 2 - (w % 4 == 1); /* OpenCV's rounding of w/2 (half to even) */
            oh = h / 2;
            break;
        case 2:
            fx = fy = 1.0 / 3;
            w = 3 * tsr_rng_range(r, 1, 30);
            h = 3 * tsr_rng_range(r, 1, 20);
            break;
        case 3:
            fx = 0.1 + (double)tsr_rng_range(r, 0, 280) / 100;
            fy = 0.1 + (double)tsr_rng_range(r, 0, 280) / 100;
            break;
        case 4: ow = w; break; /* one axis */
        case 5:
            ow = tsr_rng_range(r, 1, 2);
            oh = tsr_rng_range(r, 1, 2);
            break;
        default:
            ow = w * 3;
            oh = h * 2;
            break; /* integer upscale */
        }
        if (fx > 0 && (lround(w * fx) < 1 || lround(h * fy) < 1))
            fx = fy = 0;
        tsr_image src = make_image(r, w, h, cn, d);
        one(ref, cpu, r, &src, ow, oh, fx, fy, interp);
        free(src.data);
    }
}

/* Rows long enough for the vector loops (several groups, then a tail that is not a multiple of
 * their widths): the benchmark's ratios (2x, 1.5x and 3x down, 2x up, near 1) and random sizes,
 * mostly u8, every channel count. */
static void wide_cases(tsr_ctx *ref, tsr_ctx *cpu, tsr_rng *r)
{
    static const int num[] = {1, 2, 3, 1, 2, 0}, den[] = {2, 3, 1, 3, 1, 0};
    for (int i = 0; i < 240; i++) {
        tsr_interp interp = (tsr_interp)(i % 6);
        tsr_depth d = i % 5 == 4 ? depths[1 + (i / 5) % 2] : TSR_U8;
        int cn = 1 + (i / 6) % 4;
        int w = tsr_rng_range(r, 40, 400), h = tsr_rng_range(r, 4, 24);
        int f = (i / 24) % 6, ow, oh;
        if (num[f]) {
            ow = (int)lround((double)w * num[f] / den[f]);
            oh = (int)lround((double)h * num[f] / den[f]);
        } else {
            ow = tsr_rng_range(r, 1, 500);
            oh = tsr_rng_range(r, 1, 30);
        }
        if (f == 0 && i % 3 == 0) { /* exact 2x: the area fast paths */
            w &= ~1;
            h &= ~1;
            ow = w / 2;
            oh = h / 2;
        }
        tsr_image src = make_image(r, w, h, cn, d);
        one(ref, cpu, r, &src, ow < 1 ? 1 : ow, oh < 1 ? 1 : oh, 0, 0, interp);
        free(src.data);
    }
}

/* Several application threads resizing at once, each with its own cpu context: the contexts
 * share the backend's worker pool (a call that finds it taken runs alone), so every result must
 * still be the reference's. */
typedef struct concurrent_arg {
    const tsr_image *src, *want;
    tsr_interp interp;
    int bad; /* failed calls and mismatching results */
} concurrent_arg;

static void *concurrent_worker(void *arg)
{
    concurrent_arg *a = arg;
    tsr_ctx_options o;
    tsr_ctx *ctx = NULL;
    tsr_ctx_options_init(&o);
    o.backend = TSR_BACKEND_CPU;
    o.threads = 2;
    if (tsr_ctx_create(&o, &ctx) != TSR_OK) {
        a->bad++;
        return NULL;
    }
    tsr_resize_options opt;
    tsr_resize_options_init(&opt);
    opt.interp = a->interp;
    tsr_image out = *a->want;
    out.data = malloc(out.stride * (size_t)out.height);
    for (int i = 0; i < 30; i++) {
        memset(out.data, 0xA5, out.stride * (size_t)out.height);
        if (tsr_resize(ctx, a->src, &out, &opt) != TSR_OK || !same_rows(&out, a->want))
            a->bad++;
    }
    free(out.data);
    tsr_ctx_destroy(ctx);
    return NULL;
}

static void concurrent_calls(tsr_ctx *ref, tsr_rng *r)
{
    enum { N = 4 };
    static const tsr_interp interps[N] = {TSR_INTERP_LINEAR, TSR_INTERP_CUBIC, TSR_INTERP_AREA,
                                          TSR_INTERP_NEAREST};
    tsr_image src = make_image(r, 301, 203, 3, TSR_U8), want[N];
    concurrent_arg args[N];
    pthread_t th[N];
    tsr_resize_options opt;
    tsr_resize_options_init(&opt);
    for (int i = 0; i < N; i++) {
        want[i] = make_image(r, 211 + 40 * i, 97 + 30 * i, 3, TSR_U8);
        opt.interp = interps[i];
        CHECK_OK(ref, tsr_resize(ref, &src, &want[i], &opt));
        args[i] = (concurrent_arg){&src, &want[i], interps[i], 0};
    }
    for (int i = 0; i < N; i++)
        CHECK(pthread_create(&th[i], NULL, concurrent_worker, &args[i]) == 0);
    for (int i = 0; i < N; i++) {
        pthread_join(th[i], NULL);
        CHECK(args[i].bad == 0);
        free(want[i].data);
    }
    free(src.data);
}

static void bad_arguments(tsr_ctx *cpu, tsr_rng *r)
{
    tsr_image src = make_image(r, 8, 8, 3, TSR_U8), dst = make_image(r, 4, 4, 3, TSR_U8);
    tsr_resize_options opt;
    tsr_resize_options_init(&opt);
    CHECK(opt.interp == TSR_INTERP_LINEAR && opt.scale_x == 0 && opt.scale_y == 0);
    CHECK_OK(cpu, tsr_resize(cpu, &src, &dst, NULL));
    CHECK_STATUS(tsr_resize(NULL, &src, &dst, &opt), TSR_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(tsr_resize(cpu, NULL, &dst, &opt), TSR_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(tsr_resize(cpu, &src, NULL, &opt), TSR_ERR_INVALID_ARGUMENT);

    tsr_image t = dst;
    t.channels = 4;
    t.stride = 64;
    CHECK_STATUS(tsr_resize(cpu, &src, &t, &opt), TSR_ERR_INVALID_ARGUMENT);
    t = dst;
    t.depth = TSR_U16;
    t.width = 2;
    CHECK_STATUS(tsr_resize(cpu, &src, &t, &opt), TSR_ERR_INVALID_ARGUMENT);
    t = dst;
    t.width = 0;
    CHECK_STATUS(tsr_resize(cpu, &src, &t, &opt), TSR_ERR_INVALID_ARGUMENT);
    t = dst;
    t.data = (char *)src.data + 8; /* overlaps the source */
    CHECK_STATUS(tsr_resize(cpu, &src, &t, &opt), TSR_ERR_INVALID_ARGUMENT);
    t = dst;
    t.memory = TSR_MEMORY_CUDA;
    CHECK_STATUS(tsr_resize(cpu, &src, &t, &opt), TSR_ERR_INVALID_ARGUMENT);

    opt.interp = (tsr_interp)42;
    CHECK_STATUS(tsr_resize(cpu, &src, &dst, &opt), TSR_ERR_INVALID_ARGUMENT);
    tsr_resize_options_init(&opt);
    opt.scale_x = 0.3; /* 8*0.3 = 2.4 -> 2, not the destination's 4 */
    opt.scale_y = 0.3;
    CHECK_STATUS(tsr_resize(cpu, &src, &dst, &opt), TSR_ERR_INVALID_ARGUMENT);
    CHECK(strstr(tsr_ctx_last_error(cpu), "2x2") != NULL);
    opt.scale_x = -1;
    CHECK_STATUS(tsr_resize(cpu, &src, &dst, &opt), TSR_ERR_INVALID_ARGUMENT);
    opt.scale_x = NAN;
    CHECK_STATUS(tsr_resize(cpu, &src, &dst, &opt), TSR_ERR_INVALID_ARGUMENT);
    opt.scale_x = 0.5;
    opt.scale_y = 0.5;
    CHECK_OK(cpu, tsr_resize(cpu, &src, &dst, &opt));

    int32_t w = 0, h = 0;
    CHECK_STATUS(tsr_resize_size(5, 7, 0.5, 0.5, &w, &h), TSR_OK);
    CHECK(w == 2 && h == 4); /* 2.5 -> 2 and 3.5 -> 4: half to even */
    CHECK_STATUS(tsr_resize_size(5, 7, 0.05, 1, &w, &h), TSR_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(tsr_resize_size(5, 7, 1e12, 1, &w, &h), TSR_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(tsr_resize_size(0, 7, 1, 1, &w, &h), TSR_ERR_INVALID_ARGUMENT);

    tsr_interp ip;
    for (int i = 0; i < 6; i++) {
        CHECK_STATUS(tsr_interp_parse(tsr_interp_name((tsr_interp)i), &ip), TSR_OK);
        CHECK(ip == (tsr_interp)i);
    }
    CHECK_STATUS(tsr_interp_parse("bilinear", &ip), TSR_ERR_INVALID_ARGUMENT);

    size_t done = 99;
    tsr_image srcs[2] = {src, src}, dsts[2] = {dst, dst};
    dsts[1].channels = 1;
    CHECK_STATUS(tsr_resize_batch(cpu, srcs, dsts, 2, NULL, &done), TSR_ERR_INVALID_ARGUMENT);
    CHECK(done == 1);
    dsts[1] = dst;
    CHECK_OK(cpu, tsr_resize_batch(cpu, srcs, dsts, 2, NULL, &done));
    CHECK(done == 2);
    free(src.data);
    free(dst.data);
}

int main(void)
{
    tsr_rng r;
    tsr_rng_seed(&r, 0x5e512e);
    tsr_ctx_options o;
    tsr_ctx *ref = NULL, *cpu = NULL;
    tsr_ctx_options_init(&o);
    o.backend = TSR_BACKEND_REFERENCE;
    CHECK_OK(ref, tsr_ctx_create(&o, &ref));
    o.backend = TSR_BACKEND_CPU;
    o.threads = 3; /* more stripes than the CI machine has cores */
    CHECK_OK(cpu, tsr_ctx_create(&o, &cpu));
    if (!ref || !cpu)
        return tsr_test_finish("resize_cpu");
    random_cases(ref, cpu, &r);
    wide_cases(ref, cpu, &r);
    printf("%d random cases, %d mismatching\n", cases_run, cases_bad);
    concurrent_calls(ref, &r);
    bad_arguments(cpu, &r);
    tsr_ctx_destroy(ref);
    tsr_ctx_destroy(cpu);
    return tsr_test_finish("resize_cpu");
}
