/* Replays every kept JPEG 2000 fuzz input (tests/fuzz/crashers/j2k_decode/ and
 * tests/fuzz/corpus/j2k_decode/) through the fuzz contract of fuzz_j2k_body.h: each must return,
 * cleanly failing with a message or decoding to in-range samples. Under ASan/UBSan
 * (TSR_SANITIZE=ON) this is the regression test for every fuzz find. Skips without TSR_TESTS. */
#define _POSIX_C_SOURCE 200809L
#include "testlib.h"

#include "../fuzz/fuzz_j2k_body.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>

static int replayed;

static void replay_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.' || strcmp(e->d_name, "README.md") == 0)
            continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        size_t got = 0;
        uint8_t *b = tsr_test_read_file(path, &got);
        CHECK(b != NULL);
        if (b) {
            int bad = tsr_fuzz_j2k_one(b, got);
            if (bad)
                fprintf(stderr, "contract broken by %s\n", path);
            CHECK(!bad);
            replayed++;
        }
        free(b);
    }
    closedir(d);
}

int main(void)
{
    const char *tests = getenv("TSR_TESTS");
    if (!tests) {
        printf("SKIP: TSR_TESTS is not set\n");
        return TSR_TEST_SKIP;
    }
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/fuzz/crashers/j2k_decode", tests);
    replay_dir(dir);
    snprintf(dir, sizeof dir, "%s/fuzz/corpus/j2k_decode", tests);
    replay_dir(dir);
    printf("replayed %d inputs\n", replayed);
    return tsr_test_finish("test_j2k_fuzz_replay");
}
