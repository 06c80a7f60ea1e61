/* The state word of a device seam-removal pass: written by the pass's kernels
 * (seam_kernel_hd.h, batch_kernel_hd.h), read back by the host loop (pass_device.c). */
#ifndef TSR_CARVE_PASS_STATE_H
#define TSR_CARVE_PASS_STATE_H

#include <stdint.h>

typedef struct tsr__cc_state {
    int32_t stop;        /* 1: no further seam (object removal finished) */
    int32_t removed;     /* seams removed so far in this pass */
    int64_t drops;       /* drop pixels left (object removal) */
    uint64_t energy_sum; /* sum of the removed seams' energy parts */
} tsr__cc_state;

#endif
