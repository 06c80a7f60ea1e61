/* The 3D device working set and its frequency chunks (device_chunks.h). */
#include "migrate/device_chunks.h"

#include <math.h>

tsr__mig3_bytes tsr__mig3_device_bytes(double ncols, int32_t nz, int32_t nfreq, int32_t ntable,
                                       int32_t terms, int model)
{
    const double c = ncols, z = (double)nz, sample = 8.0; /* a complex float */
    tsr__mig3_bytes b;
    /* table rows of `terms` samples, a float w dz per frequency, float slowness and taper */
    b.plan = sample * (double)ntable * (double)terms + 4.0 * (double)nfreq + 4.0 * z * c + 4.0 * c;
    if (model) {
        b.fixed = 4.0 * z * c;               /* float reflectivity */
        b.per_freq = sample * c * (z + 5.0); /* the source at every depth, q, four term slices */
    } else {
        b.fixed = 16.0 * z * c;              /* double image and illumination */
        b.per_freq = 2.0 * 5.0 * sample * c; /* S and R: the field, three term slices, the sum */
    }
    return b;
}

tsr_status tsr__mig3_chunks(tsr_ctx *ctx, const tsr__mig3_bytes *b, double free_bytes,
                            int32_t nfreq, int32_t cap, int32_t *chunk, int32_t *count)
{
    const double usable = free_bytes - (64.0 * 1048576.0 + free_bytes / 32.0);
    const double one = b->plan + b->fixed + b->per_freq;
    if (nfreq < 1)
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT, "migrate: no frequencies to chunk");
    if (!(one <= usable))
        return tsr__fail(ctx, TSR_ERR_LIMIT,
                         "migrate: a 3D shot on the cuda backend needs %.0f bytes (%.4g GiB) of "
                         "device memory with one frequency at a time (%.0f for the plan's "
                         "tables, %.0f for the image or reflectivity, %.0f per frequency); %.0f "
                         "bytes (%.4g GiB) are usable: use a smaller grid or --backend cpu",
                         one, one / 1073741824.0, b->plan, b->fixed, b->per_freq,
                         usable > 0 ? usable : 0.0, (usable > 0 ? usable : 0.0) / 1073741824.0);
    double most = floor((usable - b->plan - b->fixed) / b->per_freq);
    if (most > nfreq)
        most = nfreq;
    if (most > TSR__MIG3_MAX_CHUNK)
        most = TSR__MIG3_MAX_CHUNK;
    if (cap > 0 && most > cap)
        most = cap;
    const int32_t m = (int32_t)most, n = (nfreq + m - 1) / m;
    *count = n;
    *chunk = (nfreq + n - 1) / n;
    return TSR_OK;
}
