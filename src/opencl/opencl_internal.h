/* The OpenCL backend's device handle, as seen from the library's *_opencl.c files: the handle's
 * insides, error mapping on every call, programs built once from embedded sources, cached
 * kernels, and grow-only device scratch buffers (mirrors src/cuda/cuda_internal.cuh). */
#ifndef TSR_OPENCL_INTERNAL_H
#define TSR_OPENCL_INTERNAL_H

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>

#include "core/ctx.h"
#include "opencl/opencl_device.h"

enum { TSR__CL_SLOTS = 8, TSR__CL_PROGRAMS = 8, TSR__CL_KERNELS = 64 };

struct tsr__opencl {
    cl_platform_id platform;
    cl_device_id device;
    cl_context context;
    cl_command_queue queue; /* in-order */
    cl_device_type type;
    char name[224]; /* device (127), platform (63) and the decoration: never truncated */
    struct {
        const char *key; /* static string naming the program (its source's name) */
        cl_program program;
    } programs[TSR__CL_PROGRAMS];
    struct {
        cl_program program;
        char name[64];
        cl_kernel kernel;
    } kernels[TSR__CL_KERNELS];
    cl_mem scratch[TSR__CL_SLOTS];
    size_t scratch_size[TSR__CL_SLOTS];
};

/* OpenCL error name ("CL_OUT_OF_RESOURCES"); never NULL. */
const char *tsr__opencl_error_name(cl_int err);
/* Turns an OpenCL error into a status and a message naming the call site; device-lost style
 * errors poison the context. */
tsr_status tsr__opencl_error(tsr_ctx *ctx, cl_int err, const char *what, const char *file,
                             int line);

/* Evaluates a call returning cl_int; on failure returns the mapped status. */
#define TSR_CL_TRY(ctx, call)                                                                      \
    do {                                                                                           \
        cl_int tsr__e = (call);                                                                    \
        if (tsr__e != CL_SUCCESS)                                                                  \
            return tsr__opencl_error((ctx), tsr__e, #call, __FILE__, __LINE__);                    \
    } while (0)

/* The program `key` (a static string) built from `source` with `options`, built on first use and
 * cached for the handle's lifetime. A build failure returns TSR_ERR_DEVICE with the head of the
 * build log in the message. */
tsr_status tsr__opencl_program(tsr_ctx *ctx, const char *key, const char *source,
                               const char *options, cl_program *out);
/* Kernel `name` of program `key` (built as above when needed), created once and cached. Kernels
 * are shared state: set their arguments and enqueue them without interleaving other users of the
 * same context (a context is not thread-safe). */
tsr_status tsr__opencl_kernel(tsr_ctx *ctx, const char *key, const char *source,
                              const char *options, const char *name, cl_kernel *out);
/* Device buffer `slot` of at least `size` bytes (contents undefined; read-write). */
tsr_status tsr__opencl_scratch(tsr_ctx *ctx, int slot, size_t size, cl_mem *out);

#endif
