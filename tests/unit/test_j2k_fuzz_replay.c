/* Replays every kept JPEG 2000 fuzz input (tests/fuzz/crashers/j2k_decode/ and
 * tests/fuzz/corpus/j2k_decode/) through the fuzz contract of fuzz_j2k_body.h: each must return,
 * cleanly failing with a message or decoding to in-range samples. Under ASan/UBSan
 * (TSR_SANITIZE=ON) this is the regression test for every fuzz find. Skips without TSR_TESTS. */
#include "testlib.h"

#include "../fuzz/fuzz_j2k_body.h"

#include <stdlib.h>

int main(void)
{
    if (!getenv("TSR_TESTS")) {
        printf("SKIP: TSR_TESTS is not set\n");
        return TSR_TEST_SKIP;
    }
    const int replayed = tsr_test_replay_dir("fuzz/crashers/j2k_decode", tsr_fuzz_j2k_one) +
                         tsr_test_replay_dir("fuzz/corpus/j2k_decode", tsr_fuzz_j2k_one);
    CHECK(replayed > 0);
    printf("replayed %d inputs\n", replayed);
    return tsr_test_finish("test_j2k_fuzz_replay");
}
