/* libFuzzer target: the layout readers (tsr_layout_parse: contest JSON, GraphML, DOT, CSV, edge
 * list) on arbitrary bytes, then the validity check and the crossing count of what parsed. The
 * contract is in fuzz_layout_body.h. Seeds: tests/fuzz/corpus/layout_parse/. */
#include "fuzz_layout_body.h"

#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (tsr_fuzz_layout_one(data, size))
        abort();
    return 0;
}
