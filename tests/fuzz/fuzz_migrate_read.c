/* libFuzzer target: the migrate readers (SEG-Y shots through segyio, grid sidecar and its float
 * file) on arbitrary bytes. The contract is in fuzz_migrate_body.h. Seeds:
 * tests/fuzz/corpus/migrate_read/ (make_corpus.py). */
#include "fuzz_migrate_body.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (tsr_fuzz_migrate_one(data, size))
        abort();
    return 0;
}
