/* The CUDA backend's device handle, as seen from C. Built from cuda_device.cu when CUDA is
 * compiled in, from cuda_none.c otherwise (every call then reports "not built with CUDA"). */
#ifndef TSR_CUDA_DEVICE_H
#define TSR_CUDA_DEVICE_H

#include "tessera/core.h"

#ifdef __cplusplus
extern "C" {
#endif

struct tsr__cuda;

/* Number of usable CUDA devices; 0 when the build has no CUDA or the driver finds none. */
int tsr__cuda_device_count(void);
/* Why the CUDA backend cannot be used here (one line), for error messages. */
const char *tsr__cuda_unavailable_reason(void);
/* Opens device `device` on `stream` (a cudaStream_t, or NULL to create one). */
tsr_status tsr__cuda_open(tsr_ctx *ctx, int device, void *stream, struct tsr__cuda **out);
/* Makes the handle's device current on the calling thread (a handle opened on another thread). */
tsr_status tsr__cuda_use(struct tsr__cuda *cuda);
/* Synchronizes and frees everything the handle owns; NULL is a no-op. */
void tsr__cuda_close(struct tsr__cuda *cuda);
const char *tsr__cuda_device_name(const struct tsr__cuda *cuda);
/* For tests: from now on the context's kernels dispatch as on a GPU of compute capability at
 * most `arch` (major * 10 + minor), so a newer GPU runs the portable paths. No-op without an
 * open CUDA device or for an arch at or above the device's. */
void tsr__cuda_cap_arch(tsr_ctx *ctx, int arch);

#ifdef __cplusplus
}
#endif
#endif
