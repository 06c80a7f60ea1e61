/* SEG-Y in and out through segyio (Equinor's C library, Debian libsegyio-dev): shot gathers for
 * migration and modelling, and grids (one trace per column). Byte locations follow SEG-Y rev 1
 * (SEG Technical Standards Committee, 2002): binary header 3217 interval (us), 3221 samples,
 * 3225 format, 3501 revision; trace header 71 coordinate scalar, 73/77 source x/y, 81/85 group
 * x/y, 109 delay recording time (ms), 115 samples, 117 interval. */
#include "core/checked.h"
#include "core/ctx.h"
#include "io/atomic_file.h"
#include "tessera/migrate.h"

#include <errno.h>
#include <math.h>
#include <segyio/segy.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

enum { TSR__SEGY_HEADERS = SEGY_TEXT_HEADER_SIZE + SEGY_BINARY_HEADER_SIZE };

/* SEG-Y rev 2 format codes: whether the code exists, and whether segyio converts it. */
static int format_exists(int f)
{
    return (f >= 1 && f <= 12 && f != 7) || f == 15 || f == 16;
}

static int format_supported(int f)
{
    return f == SEGY_IBM_FLOAT_4_BYTE || f == SEGY_SIGNED_INTEGER_4_BYTE ||
           f == SEGY_SIGNED_SHORT_2_BYTE || f == SEGY_IEEE_FLOAT_4_BYTE ||
           f == SEGY_SIGNED_CHAR_1_BYTE;
}

static const char *format_name(int f)
{
    switch (f) {
    case 1: return "4-byte IBM float";
    case 2: return "4-byte integer";
    case 3: return "2-byte integer";
    case 4: return "4-byte fixed point with gain";
    case 5: return "4-byte IEEE float";
    case 6: return "8-byte IEEE float";
    case 8: return "1-byte integer";
    case 9: return "8-byte integer";
    case 10: return "4-byte unsigned integer";
    case 11: return "2-byte unsigned integer";
    case 12: return "8-byte unsigned integer";
    case 15: return "3-byte unsigned integer";
    case 16: return "1-byte unsigned integer";
    default: return "unknown";
    }
}

static int32_t field(const char *header, int at, int bin)
{
    int32_t v = 0;
    if ((bin ? segy_get_bfield(header, at, &v) : segy_get_field(header, at, &v)) != SEGY_OK)
        return 0;
    return v;
}

/* SEG-Y rev 1 coordinate scalar: positive multiplies, negative divides, 0 means 1. */
static double scaled(int32_t v, int32_t scalar)
{
    return scalar > 0 ? (double)v * scalar : scalar < 0 ? (double)v / -(double)scalar : (double)v;
}

typedef struct trace_key {
    double sx, sy, gx, gy;
    int64_t index;
} trace_key;

static int key_order(const void *a, const void *b)
{
    const trace_key *p = a, *q = b;
    if (p->sx != q->sx)
        return p->sx < q->sx ? -1 : 1;
    if (p->sy != q->sy)
        return p->sy < q->sy ? -1 : 1;
    return p->index < q->index ? -1 : p->index > q->index;
}

/* Samples of format f, converted to native order by segy_to_native, as floats. */
static void to_float(int f, const void *raw, float *out, int32_t n)
{
    for (int32_t i = 0; i < n; i++) {
        switch (f) {
        case SEGY_SIGNED_INTEGER_4_BYTE: {
            int32_t v;
            memcpy(&v, (const char *)raw + 4 * (size_t)i, 4);
            out[i] = (float)v;
            break;
        }
        case SEGY_SIGNED_SHORT_2_BYTE: {
            int16_t v;
            memcpy(&v, (const char *)raw + 2 * (size_t)i, 2);
            out[i] = (float)v;
            break;
        }
        case SEGY_SIGNED_CHAR_1_BYTE: out[i] = (float)((const int8_t *)raw)[i]; break;
        default: memcpy(&out[i], (const char *)raw + 4 * (size_t)i, 4); break;
        }
    }
}

/* Reading state, closed by read_close. */
typedef struct segy_reader {
    segy_file *fp;
    trace_key *keys;
    void *raw;
} segy_reader;

static void read_close(tsr_ctx *ctx, segy_reader *r)
{
    if (r->fp)
        segy_close(r->fp);
    tsr__free(ctx, r->keys);
    tsr__free(ctx, r->raw);
}

/* Headers: format, byte order, samples, interval, trace count. */
static tsr_status read_headers(tsr_ctx *ctx, const char *path, segy_reader *r,
                               tsr_migrate_segy_info *info, long *trace0, int *bsize)
{
    struct stat sb;
    if (stat(path, &sb) != 0)
        return tsr__fail(ctx, TSR_ERR_IO, "cannot open '%s': %s", path, strerror(errno));
    if (!S_ISREG(sb.st_mode))
        return tsr__fail(ctx, TSR_ERR_IO, "'%s' is not a regular file", path);
    long long size = (long long)sb.st_size;
    if (size < TSR__SEGY_HEADERS)
        return tsr__fail(ctx, TSR_ERR_CORRUPT,
                         "'%s' holds %lld bytes, fewer than SEG-Y's 3600 bytes of headers", path,
                         size);
    if (!(r->fp = segy_open(path, "rb")))
        return tsr__fail(ctx, TSR_ERR_IO, "cannot open '%s': %s", path, strerror(errno));
    char bin[SEGY_BINARY_HEADER_SIZE];
    if (segy_binheader(r->fp, bin) != SEGY_OK)
        return tsr__fail(ctx, TSR_ERR_CORRUPT, "'%s': cannot read the binary header", path);
    int fmt = segy_format(bin), lsb = 0;
    if (!format_exists(fmt)) {
        int swapped = ((fmt & 0xff) << 8) | ((fmt >> 8) & 0xff);
        if (!format_exists(swapped))
            return tsr__fail(ctx, TSR_ERR_CORRUPT,
                             "'%s': sample format code %d (binary header bytes 3225-3226) is no "
                             "SEG-Y format in either byte order: not a SEG-Y file?",
                             path, fmt);
        fmt = swapped;
        lsb = 1;
    }
    if (!format_supported(fmt))
        return tsr__fail(ctx, TSR_ERR_UNSUPPORTED,
                         "'%s': sample format %d (%s) is not supported (read: 1 IBM float, 2 "
                         "int32, 3 int16, 5 IEEE float, 8 int8)",
                         path, fmt, format_name(fmt));
    if (segy_set_format(r->fp, fmt | (lsb ? SEGY_LSB : SEGY_MSB)) != SEGY_OK ||
        segy_binheader(r->fp, bin) != SEGY_OK)
        return tsr__fail(ctx, TSR_ERR_CORRUPT, "'%s': cannot read the binary header", path);
    *trace0 = segy_trace0(bin);
    if (*trace0 < TSR__SEGY_HEADERS || (long long)*trace0 > size)
        return tsr__fail(ctx, TSR_ERR_CORRUPT,
                         "'%s': the binary header's extended text header count (bytes "
                         "3505-3506) puts the first trace at byte %ld, outside the file (%lld "
                         "bytes)",
                         path, *trace0, size);
    char th[SEGY_TRACE_HEADER_SIZE];
    int have_th = size - *trace0 >= SEGY_TRACE_HEADER_SIZE &&
                  segy_traceheader(r->fp, 0, th, *trace0, 0) == SEGY_OK;
    int32_t ns = segy_samples(bin), th_ns = have_th ? field(th, SEGY_TR_SAMPLE_COUNT, 0) : 0;
    if (ns <= 0)
        ns = th_ns;
    if (ns <= 0)
        return tsr__fail(ctx, TSR_ERR_CORRUPT,
                         "'%s': neither the binary header (bytes 3221-3222) nor the first trace "
                         "header gives a sample count",
                         path);
    if (size == *trace0)
        return tsr__fail(ctx, TSR_ERR_CORRUPT, "'%s' holds no traces (headers only)", path);
    int elem = segy_trsize(fmt, 1);
    long long room = size - *trace0 - SEGY_TRACE_HEADER_SIZE;
    if (elem <= 0 || room < 0 || (long long)ns * elem > room)
        return tsr__fail(ctx, TSR_ERR_CORRUPT,
                         "'%s': %d samples per trace (%d bytes each) do not fit in the file's "
                         "%lld bytes of traces: truncated, or an absurd sample count",
                         path, (int)ns, elem, size - *trace0);
    *bsize = segy_trsize(fmt, ns);
    int traces = 0;
    int rc = segy_traces(r->fp, &traces, *trace0, *bsize);
    int32_t revision = field(bin, SEGY_BIN_SEGY_REVISION, 1);
    int major = revision >= 256 ? revision >> 8 : revision;
    if (rc == SEGY_TRACE_SIZE_MISMATCH)
        return tsr__fail(ctx, TSR_ERR_CORRUPT,
                         "'%s': the %lld bytes after the headers are not a whole number of "
                         "traces of %d samples (%d bytes each): truncated, or a wrong sample "
                         "count%s",
                         path, size - *trace0, (int)ns, *bsize + SEGY_TRACE_HEADER_SIZE,
                         major >= 2 ? ", or SEG-Y rev 2 trace header extensions (not read)" : "");
    if (rc != SEGY_OK || traces <= 0)
        return tsr__fail(ctx, TSR_ERR_CORRUPT, "'%s' holds no traces", path);
    double dt = field(bin, SEGY_BIN_INTERVAL, 1) * 1e-6;
    if (!(dt > 0) && have_th)
        dt = field(th, SEGY_TR_SAMPLE_INTER, 0) * 1e-6;
    if (!(dt > 0))
        return tsr__fail(ctx, TSR_ERR_CORRUPT,
                         "'%s': neither the binary header (bytes 3217-3218) nor the first trace "
                         "header gives a positive sample interval",
                         path);
    memset(info, 0, sizeof *info);
    info->format = fmt;
    info->little_endian = lsb;
    info->revision = revision;
    info->samples = ns;
    info->trace_header_samples = th_ns;
    info->dt = dt;
    info->traces = traces;
    return TSR_OK;
}

tsr_status tsr_migrate_segy_read(tsr_ctx *ctx, const char *path, tsr_migrate_gather *out,
                                 tsr_migrate_segy_info *info_out)
{
    tsr_status st = tsr__enter(ctx);
    if (st)
        return st;
    if (!path || !out)
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT, "segy: no path or gather");
    memset(out, 0, sizeof *out);
    segy_reader r = {0};
    tsr_migrate_segy_info info;
    long trace0 = 0;
    int bsize = 0;
    if ((st = read_headers(ctx, path, &r, &info, &trace0, &bsize))) {
        read_close(ctx, &r);
        return st;
    }
    const int64_t n = info.traces;
    const int32_t ns = info.samples;
    if ((st = tsr__alloc(ctx, sizeof(trace_key) * (size_t)n, (void **)&r.keys)) ||
        (st = tsr__alloc(ctx, (size_t)bsize + 16, &r.raw))) {
        read_close(ctx, &r);
        return st;
    }
    double t0 = 0;
    for (int64_t i = 0; i < n; i++) {
        char th[SEGY_TRACE_HEADER_SIZE];
        if (segy_traceheader(r.fp, (int)i, th, trace0, bsize) != SEGY_OK) {
            read_close(ctx, &r);
            return tsr__fail(ctx, TSR_ERR_CORRUPT, "'%s': cannot read trace header %lld", path,
                             (long long)i + 1);
        }
        int32_t sc = field(th, SEGY_TR_SOURCE_GROUP_SCALAR, 0);
        r.keys[i].sx = scaled(field(th, SEGY_TR_SOURCE_X, 0), sc);
        r.keys[i].sy = scaled(field(th, SEGY_TR_SOURCE_Y, 0), sc);
        r.keys[i].gx = scaled(field(th, SEGY_TR_GROUP_X, 0), sc);
        r.keys[i].gy = scaled(field(th, SEGY_TR_GROUP_Y, 0), sc);
        r.keys[i].index = i;
        if (i == 0)
            t0 = field(th, SEGY_TR_DELAY_REC_TIME, 0) * 1e-3;
    }
    qsort(r.keys, (size_t)n, sizeof *r.keys, key_order);
    int32_t nshots = 0;
    for (int64_t i = 0; i < n; i++)
        if (i == 0 || r.keys[i].sx != r.keys[i - 1].sx || r.keys[i].sy != r.keys[i - 1].sy)
            nshots++;
    size_t samples = 0;
    tsr_migrate_gather g = {ns, info.dt, t0, nshots, NULL};
    double *gx = NULL;
    float *traces = NULL;
    if (!tsr__size_mul((size_t)n, (size_t)ns, &samples) ||
        !tsr__size_mul(samples, sizeof(float), &samples))
        st = tsr__fail(ctx, TSR_ERR_OVERFLOW, "'%s': %lld traces of %d samples overflow", path,
                       (long long)n, (int)ns);
    if (!st)
        st = tsr__alloc(ctx, sizeof(tsr_migrate_shot) * (size_t)nshots, (void **)&g.shots);
    if (!st) /* gx then gy, one block (tsr_migrate_gather_free frees gx) */
        st = tsr__alloc(ctx, sizeof(double) * 2 * (size_t)n, (void **)&gx);
    if (!st)
        st = tsr__alloc(ctx, samples, (void **)&traces);
    int32_t s = -1;
    for (int64_t i = 0; i < n && !st; i++) {
        if (i == 0 || r.keys[i].sx != r.keys[i - 1].sx || r.keys[i].sy != r.keys[i - 1].sy) {
            s++;
            g.shots[s].sx = r.keys[i].sx;
            g.shots[s].sy = r.keys[i].sy;
            g.shots[s].ntraces = 0;
            g.shots[s].gx = gx + i;
            g.shots[s].gy = gx + n + i;
            g.shots[s].traces = traces + (size_t)i * (size_t)ns;
        }
        g.shots[s].gx[g.shots[s].ntraces] = r.keys[i].gx;
        g.shots[s].gy[g.shots[s].ntraces] = r.keys[i].gy;
        float *dst = g.shots[s].traces + (size_t)g.shots[s].ntraces * (size_t)ns;
        g.shots[s].ntraces++;
        if (segy_readtrace(r.fp, (int)r.keys[i].index, r.raw, trace0, bsize) != SEGY_OK ||
            segy_to_native(info.format, ns, r.raw) != SEGY_OK)
            st = tsr__fail(ctx, TSR_ERR_CORRUPT, "'%s': cannot read trace %lld", path,
                           (long long)r.keys[i].index + 1);
        else
            to_float(info.format, r.raw, dst, ns);
    }
    if (!st) {
        info.shots = nshots;
        info.sx_min = info.gx_min = info.sy_min = info.gy_min = INFINITY;
        info.sx_max = info.gx_max = info.sy_max = info.gy_max = -INFINITY;
        for (int64_t i = 0; i < n; i++) {
            info.sx_min = fmin(info.sx_min, r.keys[i].sx);
            info.sx_max = fmax(info.sx_max, r.keys[i].sx);
            info.gx_min = fmin(info.gx_min, r.keys[i].gx);
            info.gx_max = fmax(info.gx_max, r.keys[i].gx);
            info.sy_min = fmin(info.sy_min, r.keys[i].sy);
            info.sy_max = fmax(info.sy_max, r.keys[i].sy);
            info.gy_min = fmin(info.gy_min, r.keys[i].gy);
            info.gy_max = fmax(info.gy_max, r.keys[i].gy);
        }
    }
    read_close(ctx, &r);
    if (st) {
        tsr__free(ctx, g.shots);
        tsr__free(ctx, gx);
        tsr__free(ctx, traces);
        return st;
    }
    *out = g;
    if (info_out)
        *info_out = info;
    return TSR_OK;
}

tsr_status tsr_migrate_gather_alloc(tsr_ctx *ctx, tsr_migrate_gather *gather, int32_t nshots,
                                    int32_t ntraces, int32_t nt, double dt, double t0)
{
    tsr_status st = tsr__enter(ctx);
    if (st)
        return st;
    if (!gather || nshots < 1 || ntraces < 1 || nt < 1)
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT,
                         "gather: %d shots of %d traces of %d samples is no gather", (int)nshots,
                         (int)ntraces, (int)nt);
    memset(gather, 0, sizeof *gather);
    size_t traces, samples;
    if (!tsr__size_mul((size_t)nshots, (size_t)ntraces, &traces) ||
        !tsr__size_mul3(traces, (size_t)nt, sizeof(float), &samples))
        return tsr__fail(ctx, TSR_ERR_OVERFLOW, "gather: size overflows");
    tsr_migrate_gather g = {nt, dt, t0, nshots, NULL};
    double *gx = NULL;
    float *data = NULL;
    if ((st = tsr__alloc(ctx, sizeof(tsr_migrate_shot) * (size_t)nshots, (void **)&g.shots)) ||
        (st = tsr__alloc(ctx, sizeof(double) * 2 * traces, (void **)&gx)) ||
        (st = tsr__alloc(ctx, samples, (void **)&data))) {
        tsr__free(ctx, g.shots);
        tsr__free(ctx, gx);
        return st;
    }
    memset(gx, 0, sizeof(double) * 2 * traces); /* gx, then gy */
    memset(data, 0, samples);
    for (int32_t s = 0; s < nshots; s++) {
        memset(&g.shots[s], 0, sizeof g.shots[s]);
        g.shots[s].ntraces = ntraces;
        g.shots[s].gx = gx + (size_t)s * ntraces;
        g.shots[s].gy = gx + traces + (size_t)s * ntraces;
        g.shots[s].traces = data + (size_t)s * ntraces * nt;
    }
    *gather = g;
    return TSR_OK;
}

void tsr_migrate_gather_free(tsr_ctx *ctx, tsr_migrate_gather *gather)
{
    if (!ctx || !gather)
        return;
    if (gather->shots && gather->nshots > 0) {
        tsr__free(ctx, gather->shots[0].gx);
        tsr__free(ctx, gather->shots[0].traces);
    }
    tsr__free(ctx, gather->shots);
    memset(gather, 0, sizeof *gather);
}

/* One output trace: its header fields and samples. */
typedef struct trace_out {
    double sx, gx, cdpx, sy, gy, cdpy;
    int32_t record, channel;
    int32_t inline_no, crossline_no; /* 3D images: bytes 189 and 193 (0: not written) */
    const float *samples;
} trace_out;

typedef void (*trace_fn)(const void *user, int64_t i, trace_out *t);

static int fits_cm(double x)
{
    return isfinite(x) && fabs(x * 100.0) < 2147483647.0;
}

/* Writes a SEG-Y rev 1 file of ntraces traces of ns IEEE float samples, atomically. */
static tsr_status write_segy(tsr_ctx *ctx, const char *path, int32_t ns, int32_t interval,
                             int32_t delay_ms, int64_t ntraces, const char *what, trace_fn get,
                             const void *user)
{
    if (ns < 1 || ns > 65535 || interval < 1 || interval > 32767 || delay_ms < -32768 ||
        delay_ms > 32767 || ntraces < 1 || ntraces > INT32_MAX)
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT,
                         "segy: %s do not fit SEG-Y's 16-bit header fields (%d samples, interval "
                         "%d, delay %d ms, %lld traces)",
                         what, (int)ns, (int)interval, (int)delay_ms, (long long)ntraces);
    tsr__atomic_file af;
    tsr_status st = tsr__atomic_open(ctx, path, &af);
    if (st)
        return st;
    segy_file *fp = segy_open(af.temp_path, "r+b");
    float *buf = NULL;
    if (!fp) {
        tsr__atomic_abort(ctx, &af);
        return tsr__fail(ctx, TSR_ERR_IO, "cannot write '%s': %s", path, strerror(errno));
    }
    char text[SEGY_TEXT_HEADER_SIZE + 1], bin[SEGY_BINARY_HEADER_SIZE];
    memset(text, ' ', SEGY_TEXT_HEADER_SIZE);
    text[SEGY_TEXT_HEADER_SIZE] = 0;
    char line[81];
    for (int l = 0; l < 40; l++) {
        int n = snprintf(line, sizeof line, "C%2d %s", l + 1,
                         l == 0    ? "tessera migrate"
                         : l == 1  ? what
                         : l == 2  ? "IEEE float samples, positions in centimetres (scalar -100)"
                         : l == 38 ? "SEG-Y REV1"
                         : l == 39 ? "END TEXTUAL HEADER"
                                   : "");
        memcpy(text + 80 * l, line, (size_t)(n < 80 ? n : 80));
    }
    memset(bin, 0, sizeof bin);
    int rc = segy_set_bfield(bin, SEGY_BIN_INTERVAL, interval) |
             segy_set_bfield(bin, SEGY_BIN_SAMPLES, ns) |
             segy_set_bfield(bin, SEGY_BIN_FORMAT, SEGY_IEEE_FLOAT_4_BYTE) |
             segy_set_bfield(bin, SEGY_BIN_SEGY_REVISION, 0x0100) |
             segy_set_bfield(bin, SEGY_BIN_TRACE_FLAG, 1);
    rc |= segy_write_textheader(fp, 0, text) | segy_write_binheader(fp, bin) |
          segy_set_format(fp, SEGY_IEEE_FLOAT_4_BYTE | SEGY_MSB);
    const int bsize = segy_trsize(SEGY_IEEE_FLOAT_4_BYTE, ns);
    if (rc == SEGY_OK)
        st = tsr__alloc(ctx, (size_t)bsize, (void **)&buf);
    for (int64_t i = 0; i < ntraces && rc == SEGY_OK && !st; i++) {
        trace_out t;
        get(user, i, &t);
        if (!fits_cm(t.sx) || !fits_cm(t.gx) || !fits_cm(t.cdpx) || !fits_cm(t.sy) ||
            !fits_cm(t.gy) || !fits_cm(t.cdpy)) {
            st = tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT,
                           "segy: trace %lld's positions do not fit SEG-Y's 32-bit fields in "
                           "centimetres",
                           (long long)i + 1);
            break;
        }
        char th[SEGY_TRACE_HEADER_SIZE];
        memset(th, 0, sizeof th);
        double off = t.gx - t.sx;
        rc |= segy_set_field(th, SEGY_TR_SEQ_LINE, (int32_t)(i + 1)) |
              segy_set_field(th, SEGY_TR_SEQ_FILE, (int32_t)(i + 1)) |
              segy_set_field(th, SEGY_TR_FIELD_RECORD, t.record) |
              segy_set_field(th, SEGY_TR_NUMBER_ORIG_FIELD, t.channel) |
              segy_set_field(th, SEGY_TR_TRACE_ID, 1) |
              segy_set_field(th, SEGY_TR_OFFSET, (int32_t)lround(off)) |
              segy_set_field(th, SEGY_TR_SOURCE_GROUP_SCALAR, -100) |
              segy_set_field(th, SEGY_TR_SOURCE_X, (int32_t)lround(t.sx * 100.0)) |
              segy_set_field(th, SEGY_TR_GROUP_X, (int32_t)lround(t.gx * 100.0)) |
              segy_set_field(th, SEGY_TR_COORD_UNITS, 1) |
              segy_set_field(th, SEGY_TR_DELAY_REC_TIME, delay_ms) |
              segy_set_field(th, SEGY_TR_SAMPLE_COUNT, ns) |
              segy_set_field(th, SEGY_TR_SAMPLE_INTER, interval) |
              segy_set_field(th, SEGY_TR_CDP_X, (int32_t)lround(t.cdpx * 100.0)) |
              segy_set_field(th, SEGY_TR_SOURCE_Y, (int32_t)lround(t.sy * 100.0)) |
              segy_set_field(th, SEGY_TR_GROUP_Y, (int32_t)lround(t.gy * 100.0)) |
              segy_set_field(th, SEGY_TR_CDP_Y, (int32_t)lround(t.cdpy * 100.0)) |
              segy_set_field(th, SEGY_TR_INLINE, t.inline_no) |
              segy_set_field(th, SEGY_TR_CROSSLINE, t.crossline_no);
        memcpy(buf, t.samples, sizeof(float) * (size_t)ns);
        rc |= segy_from_native(SEGY_IEEE_FLOAT_4_BYTE, ns, buf);
        rc |= segy_write_traceheader(fp, (int)i, th, TSR__SEGY_HEADERS, bsize);
        rc |= segy_writetrace(fp, (int)i, buf, TSR__SEGY_HEADERS, bsize);
    }
    tsr__free(ctx, buf);
    int closed = segy_close(fp);
    if (!st && (rc != SEGY_OK || closed != SEGY_OK))
        st = tsr__fail(ctx, TSR_ERR_IO, "cannot write '%s' (segyio error %d)", path,
                       rc ? rc : closed);
    if (st) {
        tsr__atomic_abort(ctx, &af);
        return st;
    }
    return tsr__atomic_commit(ctx, &af);
}

/* Trace i of a gather: shots in order, their traces in order. */
typedef struct gather_walk {
    const tsr_migrate_gather *g;
    int32_t shot, trace;
} gather_walk;

static void gather_trace(const void *user, int64_t i, trace_out *t)
{
    gather_walk *w = (gather_walk *)user;
    (void)i;
    const tsr_migrate_shot *s = &w->g->shots[w->shot];
    t->sx = s->sx;
    t->gx = s->gx[w->trace];
    t->cdpx = 0.5 * (t->sx + t->gx);
    t->sy = s->sy;
    t->gy = s->gy ? s->gy[w->trace] : s->sy;
    t->cdpy = 0.5 * (t->sy + t->gy);
    t->inline_no = t->crossline_no = 0;
    t->record = w->shot + 1;
    t->channel = w->trace + 1;
    t->samples = s->traces + (size_t)w->trace * (size_t)w->g->nt;
    if (++w->trace == s->ntraces) {
        w->trace = 0;
        w->shot++;
    }
}

tsr_status tsr_migrate_segy_write(tsr_ctx *ctx, const char *path, const tsr_migrate_gather *gather)
{
    tsr_status st = tsr__enter(ctx);
    if (st)
        return st;
    if (!path || !gather || gather->nshots < 1 || !gather->shots)
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT, "segy: no gather to write");
    int64_t n = 0;
    for (int32_t s = 0; s < gather->nshots; s++) {
        if (gather->shots[s].ntraces < 1 || !gather->shots[s].gx || !gather->shots[s].traces)
            return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT, "segy: shot %d has no traces",
                             (int)s + 1);
        n += gather->shots[s].ntraces;
    }
    double us = gather->dt * 1e6, ms = gather->t0 * 1e3;
    if (!(fabs(us - nearbyint(us)) < 1e-6 * us) || !(fabs(ms - nearbyint(ms)) < 1e-6))
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT,
                         "segy: dt = %g s and t0 = %g s must be whole micro- and milliseconds",
                         gather->dt, gather->t0);
    gather_walk w = {gather, 0, 0};
    return write_segy(ctx, path, gather->nt, (int32_t)nearbyint(us), (int32_t)nearbyint(ms), n,
                      "shot gathers", gather_trace, &w);
}

/* Trace i of a grid: column i (3D: i = iy * nx + ix, x fastest). */
static void grid_trace(const void *user, int64_t i, trace_out *t)
{
    const tsr_migrate_grid *g = user;
    const int64_t ix = g->ny > 1 ? i % g->nx : i, iy = g->ny > 1 ? i / g->nx : 0;
    t->sx = t->gx = t->cdpx = g->ox + (double)ix * g->dx;
    t->sy = t->gy = t->cdpy = g->ny > 1 ? g->oy + (double)iy * g->dy : 0.0;
    t->inline_no = g->ny > 1 ? (int32_t)(iy + 1) : 0;
    t->crossline_no = g->ny > 1 ? (int32_t)(ix + 1) : 0;
    t->record = 1;
    t->channel = (int32_t)(i + 1);
    t->samples = g->data + (size_t)i * (size_t)g->nz;
}

tsr_status tsr_migrate_grid_save_segy(tsr_ctx *ctx, const char *path, const tsr_migrate_grid *grid)
{
    tsr_status st = tsr__enter(ctx);
    if (st)
        return st;
    if (!path || !grid || !grid->data || grid->nx < 1 || grid->nz < 1)
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT, "segy: no grid to write");
    double mm = grid->dz * 1e3;
    if (!(mm >= 1 && mm <= 32767) || fabs(mm - nearbyint(mm)) > 1e-6 * mm)
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT,
                         "segy: dz = %g m is not a whole number of millimetres from 1 to 32767",
                         grid->dz);
    if (grid->ny > 1)
        return write_segy(ctx, path, grid->nz, (int32_t)nearbyint(mm), 0,
                          (int64_t)grid->nx * grid->ny,
                          "3D depth image: one trace per (x, y), x fastest, inline 189, xline 193",
                          grid_trace, grid);
    return write_segy(ctx, path, grid->nz, (int32_t)nearbyint(mm), 0, grid->nx,
                      "depth image: one trace per x, samples dz apart (interval in mm)", grid_trace,
                      grid);
}
