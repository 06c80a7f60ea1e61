/* libFuzzer target: tsr_image_decode (PNG, JPEG, PNM) on arbitrary bytes. The contract is in
 * fuzz_image_body.h. */
#include "fuzz_image_body.h"

#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (tsr_fuzz_image_one(data, size))
        abort();
    return 0;
}
