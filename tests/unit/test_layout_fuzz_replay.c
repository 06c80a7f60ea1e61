/* Replays every kept layout fuzz input (tests/fuzz/crashers/layout_parse/ and
 * tests/fuzz/corpus/layout_parse/) through the fuzz contract of fuzz_layout_body.h: each must
 * return, failing cleanly with a message or giving an in-range drawing that the check and the
 * crossing count accept. Under ASan/UBSan (TSR_SANITIZE=ON) this is the regression test for every
 * fuzz find. Skips without TSR_TESTS. */
#include "testlib.h"

#include "../fuzz/fuzz_layout_body.h"

#include <stdlib.h>

int main(void)
{
    if (!getenv("TSR_TESTS")) {
        printf("SKIP: TSR_TESTS is not set\n");
        return TSR_TEST_SKIP;
    }
    const int replayed = tsr_test_replay_dir("fuzz/crashers/layout_parse", tsr_fuzz_layout_one) +
                         tsr_test_replay_dir("fuzz/corpus/layout_parse", tsr_fuzz_layout_one);
    CHECK(replayed > 0);
    printf("replayed %d inputs\n", replayed);
    return tsr_test_finish("test_layout_fuzz_replay");
}
