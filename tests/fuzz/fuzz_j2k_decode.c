/* libFuzzer target: the JPEG 2000 decoder (tsr_j2k_read_header, tsr_j2k_decode_alloc at full
 * and at reduced resolution / one layer / a region) on arbitrary bytes. The contract is in
 * fuzz_j2k_body.h. Seeds: the conformance streams (make_j2k_corpus.sh). */
#include "fuzz_j2k_body.h"

#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (tsr_fuzz_j2k_one(data, size))
        abort();
    return 0;
}
