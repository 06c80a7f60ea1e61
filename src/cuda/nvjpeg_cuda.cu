/* GPU JPEG decoding through NVIDIA nvJPEG (nvjpeg.h), bound at run time.
 *
 * nvJPEG's C API is declared below from its documentation (docs.nvidia.com/cuda/nvjpeg, "nvJPEG
 * Type Declarations" and "nvJPEG API Reference"), only the subset called here, with the
 * documented enumerator values; handles are opaque pointers. libnvjpeg is opened with dlopen on
 * a context's first decode and its functions found with dlsym, so a build of tessera neither
 * needs nvJPEG's headers nor links it, and runs where it is absent (the decode then reports
 * TSR_ERR_NO_BACKEND).
 *
 * Two nvJPEG handles per context: the hardware backend (the JPEG engines of A100/H100-class
 * GPUs; nvjpegCreateEx fails where the device has none) decodes the files that
 * nvjpegDecodeBatchedSupported accepts (baseline, single scan), a batch per output format with
 * nvjpegDecodeBatched so that the engines work on several images at once; the default backend
 * (GPU-hybrid: Huffman decoding on the host, the rest on the GPU) decodes the others
 * (progressive files, subsamplings the engines lack) one by one with nvjpegDecode. */
#include "cuda/cuda_internal.cuh"

extern "C" {
#include "cuda/nvjpeg.h"
}

#include <dlfcn.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>

/* ---- the documented nvJPEG API subset ---- */

typedef int nvj_status; /* nvjpegStatus_t */
enum {
    NVJ_STATUS_SUCCESS = 0,
    NVJ_STATUS_BAD_JPEG = 3,
    NVJ_STATUS_JPEG_NOT_SUPPORTED = 4,
    NVJ_STATUS_ALLOCATOR_FAILURE = 5,
    NVJ_STATUS_IMPLEMENTATION_NOT_SUPPORTED = 9,
    NVJ_STATUS_INCOMPLETE_BITSTREAM = 10
};
enum { NVJ_BACKEND_DEFAULT = 0, NVJ_BACKEND_HARDWARE = 3 }; /* nvjpegBackend_t */
enum { NVJ_OUTPUT_Y = 2, NVJ_OUTPUT_RGBI = 5 };             /* nvjpegOutputFormat_t */
enum { NVJ_MAX_COMPONENT = 4 };

typedef struct nvj_handle_opaque *nvj_handle; /* nvjpegHandle_t */
typedef struct nvj_state_opaque *nvj_state;   /* nvjpegJpegState_t */
typedef struct nvj_stream_opaque *nvj_stream; /* nvjpegJpegStream_t */
typedef struct nvj_image {                    /* nvjpegImage_t */
    unsigned char *channel[NVJ_MAX_COMPONENT];
    size_t pitch[NVJ_MAX_COMPONENT];
} nvj_image;

extern "C" {
typedef nvj_status (*nvj_create_ex_fn)(int backend, void *dev_allocator, void *pinned_allocator,
                                       unsigned int flags, nvj_handle *handle);
typedef nvj_status (*nvj_destroy_fn)(nvj_handle handle);
typedef nvj_status (*nvj_state_create_fn)(nvj_handle handle, nvj_state *state);
typedef nvj_status (*nvj_state_destroy_fn)(nvj_state state);
typedef nvj_status (*nvj_get_image_info_fn)(nvj_handle handle, const unsigned char *data,
                                            size_t length, int *components, int *subsampling,
                                            int *widths, int *heights);
typedef nvj_status (*nvj_decode_fn)(nvj_handle handle, nvj_state state, const unsigned char *data,
                                    size_t length, int output_format, nvj_image *destination,
                                    cudaStream_t stream);
typedef nvj_status (*nvj_batched_init_fn)(nvj_handle handle, nvj_state state, int batch_size,
                                          int max_cpu_threads, int output_format);
typedef nvj_status (*nvj_batched_fn)(nvj_handle handle, nvj_state state,
                                     const unsigned char *const *data, const size_t *lengths,
                                     nvj_image *destinations, cudaStream_t stream);
typedef nvj_status (*nvj_stream_create_fn)(nvj_handle handle, nvj_stream *jpeg_stream);
typedef nvj_status (*nvj_stream_destroy_fn)(nvj_stream jpeg_stream);
typedef nvj_status (*nvj_stream_parse_fn)(nvj_handle handle, const unsigned char *data,
                                          size_t length, int save_metadata, int save_stream,
                                          nvj_stream jpeg_stream);
typedef nvj_status (*nvj_batched_supported_fn)(nvj_handle handle, nvj_stream jpeg_stream,
                                               int *is_supported);
}

/* The names tried in turn: the CUDA 13 toolkit's soname, then an unversioned link. */
static const char *const nvj_names[] = {"libnvjpeg.so.13", "libnvjpeg.so"};

/* ---- the context's nvJPEG state ---- */

struct nvj {
    void *lib;
    nvj_create_ex_fn create_ex;
    nvj_destroy_fn destroy;
    nvj_state_create_fn state_create;
    nvj_state_destroy_fn state_destroy;
    nvj_get_image_info_fn get_image_info;
    nvj_decode_fn decode;
    nvj_batched_init_fn batched_init;
    nvj_batched_fn batched;
    nvj_stream_create_fn stream_create;
    nvj_stream_destroy_fn stream_destroy;
    nvj_stream_parse_fn stream_parse;
    nvj_batched_supported_fn batched_supported;
    nvj_handle def, hw; /* default backend; hardware backend (NULL: none here) */
    nvj_state def_state, hw_state;
    nvj_stream parsed;       /* for nvjpegDecodeBatchedSupported (hardware handle) */
    int hw_batch, hw_format; /* the hardware state's last batched initialisation (0: none) */
};

static void nvj_release(nvj *n)
{
    if (n->parsed)
        n->stream_destroy(n->parsed);
    if (n->hw_state)
        n->state_destroy(n->hw_state);
    if (n->def_state)
        n->state_destroy(n->def_state);
    if (n->hw)
        n->destroy(n->hw);
    if (n->def)
        n->destroy(n->def);
    if (n->lib)
        dlclose(n->lib);
    memset(n, 0, sizeof *n);
}

static void nvj_state_free(tsr_ctx *ctx, void *state)
{
    if (ctx->cuda)
        cudaStreamSynchronize(ctx->cuda->stream);
    nvj_release((nvj *)state);
    tsr__free(ctx, state);
}

static const tsr__ctx_state_kind nvj_kind = {"nvJPEG decoder", nvj_state_free};

static void *nvj_open_lib(const char **tried_error)
{
    *tried_error = "";
    for (size_t k = 0; k < sizeof nvj_names / sizeof nvj_names[0]; k++) {
        void *lib = dlopen(nvj_names[k], RTLD_NOW | RTLD_LOCAL);
        if (lib)
            return lib;
        if (k == 0) {
            const char *e = dlerror();
            *tried_error = e ? e : "";
        }
    }
    return NULL;
}

static tsr_status nvj_fail(tsr_ctx *ctx, nvj_status s, const char *what, size_t index)
{
    tsr_status st =
        s == NVJ_STATUS_BAD_JPEG || s == NVJ_STATUS_INCOMPLETE_BITSTREAM ? TSR_ERR_CORRUPT
        : s == NVJ_STATUS_JPEG_NOT_SUPPORTED || s == NVJ_STATUS_IMPLEMENTATION_NOT_SUPPORTED
            ? TSR_ERR_UNSUPPORTED
        : s == NVJ_STATUS_ALLOCATOR_FAILURE ? TSR_ERR_DEVICE_OUT_OF_MEMORY
                                            : TSR_ERR_DEVICE;
    return tsr__fail(ctx, st, "nvJPEG: image %zu: %s failed (nvjpegStatus_t %d%s)", index, what,
                     (int)s,
                     st == TSR_ERR_CORRUPT       ? ": malformed or truncated JPEG"
                     : st == TSR_ERR_UNSUPPORTED ? ": a JPEG layout nvJPEG does not decode"
                                                 : "");
}

/* The context's nvJPEG state, loading the library and creating the handles on first use. */
static tsr_status nvj_get(tsr_ctx *ctx, nvj **out)
{
    nvj *n;
    tsr_status st = tsr__ctx_state_get(ctx, &nvj_kind, sizeof *n, (void **)&n);
    if (st != TSR_OK)
        return st;
    if (n->def) {
        *out = n;
        return TSR_OK;
    }
    const char *why;
    if (!(n->lib = nvj_open_lib(&why)))
        return tsr__fail(ctx, TSR_ERR_NO_BACKEND, "nvJPEG not found (%s): %s", nvj_names[0], why);
    struct {
        void **slot;
        const char *name;
    } syms[] = {
        {(void **)&n->create_ex, "nvjpegCreateEx"},
        {(void **)&n->destroy, "nvjpegDestroy"},
        {(void **)&n->state_create, "nvjpegJpegStateCreate"},
        {(void **)&n->state_destroy, "nvjpegJpegStateDestroy"},
        {(void **)&n->get_image_info, "nvjpegGetImageInfo"},
        {(void **)&n->decode, "nvjpegDecode"},
        {(void **)&n->batched_init, "nvjpegDecodeBatchedInitialize"},
        {(void **)&n->batched, "nvjpegDecodeBatched"},
        {(void **)&n->stream_create, "nvjpegJpegStreamCreate"},
        {(void **)&n->stream_destroy, "nvjpegJpegStreamDestroy"},
        {(void **)&n->stream_parse, "nvjpegJpegStreamParse"},
        {(void **)&n->batched_supported, "nvjpegDecodeBatchedSupported"},
    };
    for (size_t k = 0; k < sizeof syms / sizeof syms[0]; k++)
        if (!(*syms[k].slot = dlsym(n->lib, syms[k].name))) {
            nvj_release(n);
            return tsr__fail(ctx, TSR_ERR_NO_BACKEND, "nvJPEG: the library has no %s",
                             syms[k].name);
        }
    if ((st = tsr__cuda_use(ctx->cuda)) != TSR_OK) {
        nvj_release(n);
        return st;
    }
    /* handles are created into locals: a failed create leaves nothing to destroy */
    nvj_handle h = NULL;
    nvj_state hs = NULL;
    nvj_stream ps = NULL;
    nvj_status s = n->create_ex(NVJ_BACKEND_DEFAULT, NULL, NULL, 0, &h);
    if (s == NVJ_STATUS_SUCCESS) {
        n->def = h;
        if ((s = n->state_create(n->def, &hs)) == NVJ_STATUS_SUCCESS)
            n->def_state = hs;
    }
    if (s != NVJ_STATUS_SUCCESS) {
        nvj_release(n);
        return tsr__fail(ctx, TSR_ERR_DEVICE,
                         "nvJPEG: creating the default decoder failed (nvjpegStatus_t %d)", (int)s);
    }
    /* No hardware decoder on this device (nvjpegCreateEx refuses the backend): every file goes
     * to the default backend. */
    h = NULL, hs = NULL;
    if (n->create_ex(NVJ_BACKEND_HARDWARE, NULL, NULL, 0, &h) == NVJ_STATUS_SUCCESS) {
        nvj_status made = n->state_create(h, &hs);
        s = made == NVJ_STATUS_SUCCESS ? n->stream_create(h, &ps) : made;
        if (s == NVJ_STATUS_SUCCESS) {
            n->hw = h, n->hw_state = hs, n->parsed = ps;
        } else {
            if (made == NVJ_STATUS_SUCCESS)
                n->state_destroy(hs);
            n->destroy(h);
        }
    }
    *out = n;
    return TSR_OK;
}

int tsr__nvjpeg_available(void)
{
    const char *why;
    void *lib = nvj_open_lib(&why);
    if (lib)
        dlclose(lib);
    return lib != NULL;
}

/* The image out as nvJPEG's destination (interleaved: one plane). */
static nvj_image nvj_dest(const tsr_image *out)
{
    nvj_image d;
    memset(&d, 0, sizeof d);
    d.channel[0] = (unsigned char *)out->data;
    d.pitch[0] = out->stride;
    return d;
}

/* Checks file i against out[i] from its header; 0 or the failure. */
static tsr_status nvj_check(tsr_ctx *ctx, nvj *n, const void *data, size_t len,
                            const tsr_image *out, size_t i)
{
    int comps = 0, sub = 0, w[NVJ_MAX_COMPONENT] = {0}, h[NVJ_MAX_COMPONENT] = {0};
    nvj_status s = n->get_image_info(n->def, (const unsigned char *)data, len, &comps, &sub, w, h);
    if (s != NVJ_STATUS_SUCCESS)
        return nvj_fail(ctx, s, "nvjpegGetImageInfo", i);
    if (comps != 1 && comps != 3)
        return tsr__fail(ctx, TSR_ERR_UNSUPPORTED,
                         "nvJPEG: image %zu: %d components are not supported (gray and "
                         "RGB/YCbCr are)",
                         i, comps);
    if (out->memory != TSR_MEMORY_CUDA || out->depth != TSR_U8 || !out->data ||
        out->width != w[0] || out->height != h[0] || out->channels != comps ||
        out->stride < (size_t)w[0] * (size_t)comps)
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT,
                         "nvJPEG: image %zu: the destination is not a %dx%d u8 device image of "
                         "%d channels",
                         i, w[0], h[0], comps);
    return TSR_OK;
}

/* Whether the hardware backend decodes file i. */
static int nvj_hw_takes(nvj *n, const void *data, size_t len)
{
    int unsupported = 1;
    return n->hw &&
           n->stream_parse(n->hw, (const unsigned char *)data, len, 0, 0, n->parsed) ==
               NVJ_STATUS_SUCCESS &&
           n->batched_supported(n->hw, n->parsed, &unsupported) == NVJ_STATUS_SUCCESS &&
           unsupported == 0;
}

/* Decodes images idx[0..m) of one output format on the hardware backend in one batch; 0 when
 * it ran, or nvJPEG's status (the images are then decoded one by one instead). */
static nvj_status nvj_hw_batch(tsr_ctx *ctx, nvj *n, const void *const *data, const size_t *len,
                               const tsr_image *out, const size_t *idx, size_t m, int format,
                               const unsigned char **bits, size_t *lens, nvj_image *dest)
{
    for (size_t k = 0; k < m; k++) {
        bits[k] = (const unsigned char *)data[idx[k]];
        lens[k] = len[idx[k]];
        dest[k] = nvj_dest(&out[idx[k]]);
    }
    nvj_status s = NVJ_STATUS_SUCCESS;
    if (n->hw_batch != (int)m || n->hw_format != format) {
        n->hw_batch = 0;
        if ((s = n->batched_init(n->hw, n->hw_state, (int)m, 1, format)) != NVJ_STATUS_SUCCESS)
            return s;
        n->hw_batch = (int)m, n->hw_format = format;
    }
    if ((s = n->batched(n->hw, n->hw_state, bits, lens, dest, ctx->cuda->stream)) !=
        NVJ_STATUS_SUCCESS)
        n->hw_batch = 0; /* initialise again before the next batch, as nvJPEG asks */
    return s;
}

tsr_status tsr__nvjpeg_decode(tsr_ctx *ctx, const void *const *data, const size_t *len,
                              tsr_image *out, size_t count, size_t *done, size_t *on_hardware)
{
    *done = 0;
    if (on_hardware)
        *on_hardware = 0;
    if (!ctx->cuda)
        return tsr__fail(ctx, TSR_ERR_NO_BACKEND, "nvJPEG: needs an open CUDA device");
    if (count == 0)
        return TSR_OK;
    if (count > INT32_MAX)
        return tsr__fail(ctx, TSR_ERR_LIMIT, "nvJPEG: %zu images in one call", count);
    nvj *n;
    tsr_status st = nvj_get(ctx, &n);
    if (st != TSR_OK)
        return st;
    /* scratch, per file: nvJPEG's destination, the indices of one hardware batch (idx) and of
     * the files for the default backend (rest), the batch's bitstreams and lengths, and whether
     * the hardware takes the file; kept until the stream has passed the decodes */
    size_t bytes;
    void *scratch = NULL;
    const size_t per =
        2 * sizeof(size_t) + sizeof(unsigned char *) + sizeof(size_t) + sizeof(nvj_image) + 1;
    if (count > SIZE_MAX / per)
        return tsr__fail(ctx, TSR_ERR_OVERFLOW, "nvJPEG: %zu images overflow", count);
    bytes = count * per;
    if ((st = tsr__alloc(ctx, bytes, &scratch)) != TSR_OK)
        return st;
    nvj_image *dest = (nvj_image *)scratch;
    size_t *idx = (size_t *)(dest + count), *rest = idx + count, *lens = rest + count;
    const unsigned char **bits = (const unsigned char **)(lens + count);
    unsigned char *hw_ok = (unsigned char *)(bits + count);

    size_t good = 0; /* files before the first that fails its check */
    tsr_status first_st = TSR_OK;
    for (; good < count; good++) {
        if ((first_st = nvj_check(ctx, n, data[good], len[good], &out[good], good)) != TSR_OK)
            break;
        hw_ok[good] = (unsigned char)nvj_hw_takes(n, data[good], len[good]);
    }
    size_t fail_at = good; /* the first image not decoded */
    char first_msg[sizeof ctx->message];
    snprintf(first_msg, sizeof first_msg, "%s", ctx->message);

    size_t nrest = 0;
    for (int gray = 0; gray < 2; gray++) {
        const int format = gray ? NVJ_OUTPUT_Y : NVJ_OUTPUT_RGBI;
        size_t m = 0;
        for (size_t i = 0; i < good; i++)
            if ((out[i].channels == 1) == gray && hw_ok[i])
                idx[m++] = i;
        if (!m)
            continue;
        if (nvj_hw_batch(ctx, n, data, len, out, idx, m, format, bits, lens, dest) !=
            NVJ_STATUS_SUCCESS)
            for (size_t k = 0; k < m; k++) /* the hybrid backend decodes them, or says why not */
                rest[nrest++] = idx[k];
        else if (on_hardware)
            *on_hardware += m;
    }
    for (size_t i = 0; i < good; i++)
        if (!hw_ok[i])
            rest[nrest++] = i;
    for (size_t k = 0; k < nrest; k++) {
        size_t i = rest[k];
        if (i >= fail_at)
            continue;
        nvj_image d = nvj_dest(&out[i]);
        nvj_status s =
            n->decode(n->def, n->def_state, (const unsigned char *)data[i], len[i],
                      out[i].channels == 1 ? NVJ_OUTPUT_Y : NVJ_OUTPUT_RGBI, &d, ctx->cuda->stream);
        if (s != NVJ_STATUS_SUCCESS) {
            first_st = nvj_fail(ctx, s, "nvjpegDecode", i);
            snprintf(first_msg, sizeof first_msg, "%s", ctx->message);
            fail_at = i;
        }
    }
    cudaError_t e = cudaStreamSynchronize(ctx->cuda->stream);
    tsr__free(ctx, scratch);
    if (e != cudaSuccess)
        return tsr__cuda_error(ctx, e, "cudaStreamSynchronize after nvJPEG", __FILE__, __LINE__);
    *done = fail_at;
    if (fail_at < count)
        return tsr__fail(ctx, first_st, "%s", first_msg);
    return TSR_OK;
}
