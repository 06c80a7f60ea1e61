/* Every stream a whole-decoder j2k test runs over: the conformance and HTJ2K streams of
 * ../shared/data/j2k and, when TSR_TESTS names the tests folder, the j2k fuzz corpus and its
 * kept crashers (text files such as README.md and COPYRIGHT are skipped), each read into memory
 * with its main header. */
#ifndef TSR_TEST_J2K_STREAM_WALK_H
#define TSR_TEST_J2K_STREAM_WALK_H

#include "tessera/j2k.h"
#include "testlib.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef void (*j2k_stream_fn)(const char *path, const uint8_t *data, size_t len,
                              const tsr_j2k_info *info, void *user);

/* Calls fn for each stream whose main header reads (on ctx); returns 0 (and calls nothing) when
 * the shared data is absent, so the caller can skip. */
static int j2k_walk_streams(tsr_ctx *ctx, j2k_stream_fn fn, void *user)
{
    const char *root = tsr_test_data("j2k");
    if (!root)
        return 0;
    const char *tests = getenv("TSR_TESTS");
    const struct {
        const char *base, *sub;
    } dirs[] = {{root, "conformance"},
                {root, "htj2k"},
                {tests, "fuzz/corpus/j2k_decode"},
                {tests, "fuzz/crashers/j2k_decode"}};
    for (size_t k = 0; k < sizeof dirs / sizeof dirs[0]; k++) {
        if (!dirs[k].base)
            continue;
        char dir[2200];
        snprintf(dir, sizeof dir, "%s/%s", dirs[k].base, dirs[k].sub);
        DIR *d = opendir(dir);
        if (!d)
            continue;
        struct dirent *e;
        while ((e = readdir(d))) {
            const char *dot = strrchr(e->d_name, '.');
            if (e->d_name[0] == '.' || (dot && (!strcmp(dot, ".md") || !strcmp(dot, ".txt"))) ||
                !strcmp(e->d_name, "COPYRIGHT"))
                continue;
            char path[4400];
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            size_t len;
            uint8_t *data = tsr_test_read_file(path, &len);
            tsr_j2k_info info;
            if (data && tsr_j2k_read_header(ctx, data, len, &info, NULL, 0) == TSR_OK)
                fn(path, data, len, &info, user);
            free(data);
        }
        closedir(d);
    }
    return 1;
}

#endif
