/* Replays every kept fuzz input through tsr_image_decode: the crashers the fuzzer found
 * (tests/fuzz/crashers/image_decode/) and the seed and minimised corpus
 * (tests/fuzz/corpus/image_decode/). Each must return: TSR_OK with an image that checks, or a
 * clean error (not an internal one) with a non-empty message. Run under ASan/UBSan
 * (TSR_SANITIZE=ON) this is the regression test for every fuzz find. The folders are found
 * through TSR_TESTS (the tests/ source folder); without it the test skips. Set
 * TSR_REPLAY_VERBOSE=1 to print each result. */
#include "testlib.h"

#include <stdlib.h>

static int verbose;

/* The image readers' contract for one input (fuzz_image_decode.c's, with the fuzzer's limits):
 * 0 when kept, 1 when broken. */
static int image_one(const uint8_t *data, size_t len)
{
    tsr_ctx_options opt;
    tsr_ctx_options_init(&opt);
    opt.backend = TSR_BACKEND_REFERENCE;
    opt.max_image_pixels = (uint64_t)1 << 22;
    opt.max_memory = (uint64_t)64 << 20;
    tsr_ctx *ctx = NULL;
    if (tsr_ctx_create(&opt, &ctx) != TSR_OK)
        return 1;
    tsr_image img;
    tsr_format format;
    int bad = 0;
    tsr_status st = tsr_image_decode(ctx, data, len, &img, &format);
    if (st == TSR_OK) {
        bad = tsr_image_check(ctx, &img) != TSR_OK;
        if (verbose)
            printf("OK %s %dx%dx%d depth %d\n", tsr_format_name(format), (int)img.width,
                   (int)img.height, (int)img.channels, (int)img.depth);
        tsr_image_free(ctx, &img);
    } else {
        const char *msg = tsr_ctx_last_error(ctx);
        bad = !msg || !msg[0] || st == TSR_ERR_INTERNAL;
        if (verbose)
            printf("%s: %s\n", tsr_status_name(st), msg);
    }
    tsr_ctx_destroy(ctx);
    return bad;
}

int main(void)
{
    const char *v = getenv("TSR_REPLAY_VERBOSE");
    verbose = v && *v && *v != '0';
    if (!getenv("TSR_TESTS")) {
        fprintf(stderr, "TSR_TESTS is not set: nothing to replay\n");
        return TSR_TEST_SKIP;
    }
    const int replayed = tsr_test_replay_dir("fuzz/crashers/image_decode", image_one) +
                         tsr_test_replay_dir("fuzz/corpus/image_decode", image_one);
    if (!replayed)
        return TSR_TEST_SKIP;
    printf("replayed %d inputs\n", replayed);
    return tsr_test_finish("test_fuzz_replay");
}
