/* Replays every kept fuzz input through tsr_image_decode: the crashers the fuzzer found
 * (tests/fuzz/crashers/image_decode/) and the seed and minimised corpus
 * (tests/fuzz/corpus/image_decode/). Each must return: TSR_OK with an image that checks, or a
 * clean error with a non-empty message. Run under ASan/UBSan (TSR_SANITIZE=ON) this is the
 * regression test for every fuzz find. The folders are found through TSR_TESTS (the tests/
 * source folder); without it the test skips. Set TSR_REPLAY_VERBOSE=1 to print each result. */
#define _POSIX_C_SOURCE 200809L /* strdup, dirent */
#include "testlib.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>

static int verbose;
static int replayed;

static unsigned char *read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 4096, n = 0;
    unsigned char *buf = malloc(cap);
    for (;;) {
        if (!buf)
            break;
        if (n == cap) {
            unsigned char *b = realloc(buf, cap * 2);
            if (!b) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = b;
            cap *= 2;
        }
        size_t got = fread(buf + n, 1, cap - n, f);
        if (got == 0)
            break;
        n += got;
    }
    fclose(f);
    *len = n;
    return buf;
}

static void replay_one(const char *path)
{
    size_t len = 0;
    unsigned char *data = read_all(path, &len);
    CHECK(data != NULL);
    if (!data)
        return;
    tsr_ctx_options opt;
    tsr_ctx_options_init(&opt);
    opt.backend = TSR_BACKEND_REFERENCE;
    opt.max_image_pixels = (uint64_t)1 << 22; /* the fuzzer's limits */
    opt.max_memory = (uint64_t)64 << 20;
    tsr_ctx *ctx = NULL;
    CHECK_STATUS(tsr_ctx_create(&opt, &ctx), TSR_OK);
    tsr_image img;
    tsr_format format;
    tsr_status st = tsr_image_decode(ctx, data, len, &img, &format);
    if (st == TSR_OK) {
        CHECK_OK(ctx, tsr_image_check(ctx, &img));
        if (verbose)
            printf("%s: OK %s %dx%dx%d depth %d\n", path, tsr_format_name(format), (int)img.width,
                   (int)img.height, (int)img.channels, (int)img.depth);
        tsr_image_free(ctx, &img);
    } else {
        const char *msg = tsr_ctx_last_error(ctx);
        CHECK(msg && msg[0]);
        CHECK(st != TSR_ERR_INTERNAL);
        if (verbose)
            printf("%s: %s: %s\n", path, tsr_status_name(st), msg);
    }
    tsr_ctx_destroy(ctx);
    free(data);
    replayed++;
}

static int replay_folder(const char *root, const char *sub)
{
    char folder[4096];
    snprintf(folder, sizeof folder, "%s/%s", root, sub);
    DIR *d = opendir(folder);
    if (!d) {
        fprintf(stderr, "note: %s absent\n", folder);
        return 0;
    }
    /* sorted order, so that a failure reproduces the same way */
    char **names = NULL;
    size_t count = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.' || strcmp(e->d_name, "README.md") == 0)
            continue;
        char **grown = realloc(names, (count + 1) * sizeof *names);
        if (!grown)
            break;
        names = grown;
        names[count++] = strdup(e->d_name);
    }
    closedir(d);
    for (size_t i = 0; i + 1 < count; i++)
        for (size_t j = i + 1; j < count; j++)
            if (strcmp(names[i], names[j]) > 0) {
                char *t = names[i];
                names[i] = names[j];
                names[j] = t;
            }
    for (size_t i = 0; i < count; i++) {
        char path[8192];
        snprintf(path, sizeof path, "%s/%s", folder, names[i]);
        replay_one(path);
        free(names[i]);
    }
    free(names);
    return 1;
}

int main(void)
{
    const char *root = getenv("TSR_TESTS");
    const char *v = getenv("TSR_REPLAY_VERBOSE");
    verbose = v && *v && *v != '0';
    if (!root) {
        fprintf(stderr, "TSR_TESTS is not set: nothing to replay\n");
        return TSR_TEST_SKIP;
    }
    int found = replay_folder(root, "fuzz/crashers/image_decode");
    found += replay_folder(root, "fuzz/corpus/image_decode");
    if (!found)
        return TSR_TEST_SKIP;
    printf("replayed %d inputs\n", replayed);
    return tsr_test_finish("test_fuzz_replay");
}
