#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* scandir, alphasort */
#endif
#include "testlib.h"

#include <dirent.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int tsr_test_failures;
int tsr_test_checks;

tsr_ctx *tsr_test_reference_ctx(void)
{
    tsr_ctx_options opt;
    tsr_ctx_options_init(&opt);
    opt.backend = TSR_BACKEND_REFERENCE;
    tsr_ctx *ctx = NULL;
    if (tsr_ctx_create(&opt, &ctx) != TSR_OK) {
        fprintf(stderr, "cannot create a reference context: %s\n", tsr_ctx_last_error(ctx));
        exit(1);
    }
    return ctx;
}

tsr_ctx *tsr_test_ctx(tsr_backend b)
{
    tsr_ctx_options opt;
    tsr_ctx_options_init(&opt);
    opt.backend = b;
    tsr_ctx *ctx = NULL;
    if (tsr_ctx_create(&opt, &ctx) != TSR_OK) {
        tsr_ctx_destroy(ctx);
        return NULL;
    }
    return ctx;
}

void tsr_test_poison_nan(float *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        p[i] = NAN;
}

int tsr_test_finish(const char *name)
{
    int passed = tsr_test_checks - tsr_test_failures;
    printf("%s: %d passed, %d failed\n", name, passed, tsr_test_failures);
    return tsr_test_failures ? 1 : 0;
}

void tsr_rng_seed(tsr_rng *r, uint64_t default_seed)
{
    const char *env = getenv("TSR_SEED");
    r->s = env ? strtoull(env, NULL, 0) : default_seed;
    fprintf(stderr, "seed %llu (set TSR_SEED to repeat)\n", (unsigned long long)r->s);
}

uint64_t tsr_rng_next(tsr_rng *r)
{
    uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

int tsr_rng_range(tsr_rng *r, int lo, int hi)
{
    return lo + (int)(tsr_rng_next(r) % (uint64_t)(hi - lo + 1));
}

void tsr_rng_fill(tsr_rng *r, void *buf, size_t n)
{
    unsigned char *p = buf;
    while (n >= 8) {
        uint64_t v = tsr_rng_next(r);
        memcpy(p, &v, 8);
        p += 8;
        n -= 8;
    }
    if (n) {
        uint64_t v = tsr_rng_next(r);
        memcpy(p, &v, n);
    }
}

int tsr_test_quick(void)
{
    const char *q = getenv("TSR_TEST_QUICK");
    return q && *q && *q != '0';
}

const char *tsr_test_data(const char *relative)
{
    static char path[4096];
    const char *root = getenv("TSR_DATA");
    if (!root)
        root = "../shared/data";
    snprintf(path, sizeof path, "%s/%s", root, relative);
    if (access(path, R_OK) != 0) {
        fprintf(stderr, "note: %s not found (shared data absent); skipping what needs it\n", path);
        return NULL;
    }
    return path;
}

unsigned char *tsr_test_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    unsigned char *buf = NULL;
    long n = -1;
    if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0) {
        buf = malloc(n > 0 ? (size_t)n : 1);
        if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
            free(buf);
            buf = NULL;
        }
    }
    fclose(f);
    *len = buf ? (size_t)n : 0;
    return buf;
}

static int replay_entry(const struct dirent *e)
{
    return e->d_name[0] != '.' && strcmp(e->d_name, "README.md") != 0;
}

int tsr_test_replay_dir(const char *sub, int (*one)(const uint8_t *data, size_t size))
{
    const char *tests = getenv("TSR_TESTS");
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/%s", tests ? tests : ".", sub);
    struct dirent **names = NULL;
    const int n = scandir(dir, &names, replay_entry, alphasort); /* sorted: failures reproduce */
    if (n < 0) {
        fprintf(stderr, "note: %s absent\n", dir);
        return 0;
    }
    for (int i = 0; i < n; i++) {
        char path[8192];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]->d_name);
        free(names[i]);
        size_t got = 0;
        unsigned char *b = tsr_test_read_file(path, &got);
        CHECK(b != NULL);
        if (b && one(b, got)) {
            fprintf(stderr, "contract broken by %s\n", path);
            CHECK(0);
        }
        free(b);
    }
    free(names);
    return n;
}
