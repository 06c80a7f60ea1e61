/* The OpenCL backend's device handle, as seen from the rest of the library. Built from
 * opencl_device.c when OpenCL headers and the ICD loader are found, from opencl_none.c otherwise.
 */
#ifndef TSR_OPENCL_DEVICE_H
#define TSR_OPENCL_DEVICE_H

#include "tessera/core.h"

struct tsr__opencl;

/* Number of OpenCL devices over all platforms (GPUs first, then others: PoCL's CPU device
 * counts, so the backend is testable without a GPU); 0 without OpenCL. */
int tsr__opencl_device_count(void);
const char *tsr__opencl_unavailable_reason(void);
/* Opens device `index` in the order above, with one in-order command queue. */
tsr_status tsr__opencl_open(tsr_ctx *ctx, int index, struct tsr__opencl **out);
void tsr__opencl_close(struct tsr__opencl *cl);
const char *tsr__opencl_device_name(const struct tsr__opencl *cl);

#endif
