/* Replays every kept fuzz input of every fuzz target through that target's contract: the
 * crashers the fuzzers found (tests/fuzz/crashers/<target>/) and the seeds and minimised corpus
 * (tests/fuzz/corpus/<target>/) of image_decode (fuzz_image_body.h), j2k_decode
 * (fuzz_j2k_body.h), j2k_encode (fuzz_j2k_encode_body.h), layout_parse (fuzz_layout_body.h) and
 * migrate_read (fuzz_migrate_body.h). Each
 * input must keep its contract: return, failing cleanly with a message or giving a result in range.
 * Run under ASan/UBSan (TSR_SANITIZE=ON) this is the regression test for every fuzz find. The
 * folders are found through TSR_TESTS (the tests/ source folder); without it the test skips. */
#define _POSIX_C_SOURCE 200809L /* mkdtemp (fuzz_migrate_body.h) */
#include "testlib.h"

#include "../fuzz/fuzz_image_body.h"
#include "../fuzz/fuzz_j2k_body.h"
#include "../fuzz/fuzz_j2k_encode_body.h"
#include "../fuzz/fuzz_layout_body.h"
#include "../fuzz/fuzz_migrate_body.h"

#include <stdlib.h>

int main(void)
{
    if (!getenv("TSR_TESTS")) {
        printf("SKIP: TSR_TESTS is not set\n");
        return TSR_TEST_SKIP;
    }
    const struct {
        const char *target;
        int (*one)(const uint8_t *data, size_t size);
    } targets[] = {{"image_decode", tsr_fuzz_image_one},
                   {"j2k_decode", tsr_fuzz_j2k_one},
                   {"j2k_encode", tsr_fuzz_j2k_encode_one},
                   {"layout_parse", tsr_fuzz_layout_one},
                   {"migrate_read", tsr_fuzz_migrate_one}};
    for (size_t i = 0; i < sizeof targets / sizeof targets[0]; i++) {
        char crashers[256], corpus[256];
        snprintf(crashers, sizeof crashers, "fuzz/crashers/%s", targets[i].target);
        snprintf(corpus, sizeof corpus, "fuzz/corpus/%s", targets[i].target);
        const int n = tsr_test_replay_dir(crashers, targets[i].one) +
                      tsr_test_replay_dir(corpus, targets[i].one);
        CHECK(n > 0);
        printf("%s: replayed %d inputs\n", targets[i].target, n);
    }
    return tsr_test_finish("test_fuzz_replay");
}
