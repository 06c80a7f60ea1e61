/* A small test harness: checks that count failures and keep going, a deterministic RNG, and
 * helpers every test shares. A test's main returns tsr_test_finish(): 0 when every check held,
 * 1 otherwise; TSR_TEST_SKIP (77) when it cannot run here (no device, no data). */
#ifndef TSR_TESTLIB_H
#define TSR_TESTLIB_H

#include "tessera/tessera.h"

#include <stdint.h>
#include <stdio.h>

#define TSR_TEST_SKIP 77

extern int tsr_test_failures;
extern int tsr_test_checks;

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        tsr_test_checks++;                                                                         \
        if (!(cond)) {                                                                             \
            tsr_test_failures++;                                                                   \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);               \
        }                                                                                          \
    } while (0)

/* Checks a status; prints the context's message on failure. */
#define CHECK_OK(ctx, expr)                                                                        \
    do {                                                                                           \
        tsr_status tsr__s = (expr);                                                                \
        tsr_test_checks++;                                                                         \
        if (tsr__s != TSR_OK) {                                                                    \
            tsr_test_failures++;                                                                   \
            fprintf(stderr, "%s:%d: %s returned %s: %s\n", __FILE__, __LINE__, #expr,              \
                    tsr_status_name(tsr__s), tsr_ctx_last_error(ctx));                             \
        }                                                                                          \
    } while (0)

#define CHECK_STATUS(expr, want)                                                                   \
    do {                                                                                           \
        tsr_status tsr__s = (expr);                                                                \
        tsr_test_checks++;                                                                         \
        if (tsr__s != (want)) {                                                                    \
            tsr_test_failures++;                                                                   \
            fprintf(stderr, "%s:%d: %s returned %s, expected %s\n", __FILE__, __LINE__, #expr,     \
                    tsr_status_name(tsr__s), tsr_status_name(want));                               \
        }                                                                                          \
    } while (0)

/* A context on the reference backend with default options; exits the test (status 1) with a
 * message when it cannot be created. */
tsr_ctx *tsr_test_reference_ctx(void);
/* A context on backend b with default options, or NULL (nothing to destroy) when it cannot be
 * created (a device backend without a device). */
tsr_ctx *tsr_test_ctx(tsr_backend b);
/* p[0 .. n) = NaN: outputs poisoned before a call, so unwritten elements show. */
void tsr_test_poison_nan(float *p, size_t n);

/* Prints a summary line ("N passed, M failed") and returns the exit code. */
int tsr_test_finish(const char *name);

/* splitmix64: deterministic, seeded from TSR_SEED (env) or the given default, printed once. */
typedef struct tsr_rng {
    uint64_t s;
} tsr_rng;
void tsr_rng_seed(tsr_rng *r, uint64_t default_seed);
uint64_t tsr_rng_next(tsr_rng *r);
/* Uniform integer in [lo, hi]. */
int tsr_rng_range(tsr_rng *r, int lo, int hi);
/* Fills n bytes with random data. */
void tsr_rng_fill(tsr_rng *r, void *buf, size_t n);

/* The whole file at path in a malloc'd buffer (free it), its size in *len; NULL when it cannot
 * be opened or read. */
unsigned char *tsr_test_read_file(const char *path, size_t *len);

/* Runs one(bytes, size) on every file of the folder TSR_TESTS/<sub> in name order (kept fuzz
 * inputs; README.md and dot files skipped), CHECKing that it returns 0 and naming the file that
 * broke it. Returns the number of files replayed (0, with a note, when the folder is absent). */
int tsr_test_replay_dir(const char *sub, int (*one)(const uint8_t *data, size_t size));

/* Path of a file under ../shared/data (TSR_DATA), or NULL (with a note) when absent. */
const char *tsr_test_data(const char *relative);

/* Nonzero when TSR_TEST_QUICK is set to something other than empty or "0": GPU tests then run a
 * reduced set, so that compute-sanitizer finishes. */
int tsr_test_quick(void);

#endif
