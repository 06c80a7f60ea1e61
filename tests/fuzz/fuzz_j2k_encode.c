/* libFuzzer target: the JPEG 2000 encoder (tsr_j2k_encode) with options, rate-control targets
 * and a small image all taken from the input, every stream it makes decoded back. The contract
 * is in fuzz_j2k_encode_body.h. Seeds: corpus/j2k_encode/. */
#include "fuzz_j2k_encode_body.h"

#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (tsr_fuzz_j2k_encode_one(data, size))
        abort();
    return 0;
}
