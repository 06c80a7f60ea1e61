/* JP2 colour specifications rendered as sRGB (j2k/jp2_colour.h, T.800 Annex I) on crafted
 * inputs: small images encoded losslessly by tessera, wrapped here in hand-made JP2 boxes
 * (ihdr, colr, pclr, cmap, cdef) and hand-made ICC profiles.
 * - sYCC / e-sYCC: known values (neutral, a saturated red, clamping, 10 bits, signed chroma),
 *   subsampled chroma replicated from the grid cell that holds each luma sample, and e-sYCC
 *   (EnumCS 24) through the decoder.
 * - restricted ICC: the parsed matrix of a profile with sRGB's colorants is the identity; a
 *   profile describing sRGB itself (para sRGB curves) leaves every 8-bit value unchanged; a
 *   linear-light profile (curv with no entries, or a 2-entry table) and a monochrome gamma 1.8
 *   profile give the known values of IEC 61966-2-1's encoding (computed once in double and
 *   written here); a monochrome profile makes RGB.
 * - palette + cdef: a 2-column palette (grey, alpha) under a monochrome profile makes R, G, B,
 *   alpha; a 3-column palette in reversed cdef order.
 * - malformed and unrestricted profiles: parse verdicts with reasons; decoding gives the samples
 *   as decoded and a warning.
 * - hostile boxes (truncated colr, pclr, cmap; cmap past the palette or the components): a
 *   TSR_ERR_CORRUPT with a message naming the box. */
#include "j2k/jp2_colour.h"
#include "testlib.h"

#include <stdlib.h>
#include <string.h>

/* ---- byte builders ------------------------------------------------------------------------ */

typedef struct buf {
    uint8_t b[1 << 15];
    size_t n;
} buf;

static void put8(buf *o, uint32_t v)
{
    o->b[o->n++] = (uint8_t)v;
}
static void put16(buf *o, uint32_t v)
{
    put8(o, v >> 8);
    put8(o, v);
}
static void put32(buf *o, uint32_t v)
{
    put16(o, v >> 16);
    put16(o, v);
}
static void putn(buf *o, const void *p, size_t n)
{
    memcpy(o->b + o->n, p, n);
    o->n += n;
}
static void putsig(buf *o, const char *s)
{
    putn(o, s, 4);
}
static void box(buf *o, const char *type, const buf *body)
{
    put32(o, (uint32_t)(8 + body->n));
    putsig(o, type);
    putn(o, body->b, body->n);
}

static void colr_enum(buf *h, uint32_t enumcs)
{
    buf c = {.n = 0};
    put8(&c, 1);
    put8(&c, 0);
    put8(&c, 0);
    put32(&c, enumcs);
    box(h, "colr", &c);
}

static void colr_icc(buf *h, uint32_t meth, const buf *prof)
{
    buf c = {.n = 0};
    put8(&c, meth);
    put8(&c, 0);
    put8(&c, 0);
    putn(&c, prof->b, prof->n);
    box(h, "colr", &c);
}

/* A JP2 file around the codestream cs: signature, ftyp, jp2h (ihdr for nc components of prec
 * bits, then the boxes in extra), jp2c. */
static void jp2_file(buf *o, const uint8_t *cs, size_t cs_len, uint32_t w, uint32_t h, uint32_t nc,
                     uint32_t prec, const buf *extra)
{
    static const uint8_t sig[12] = {0, 0, 0, 12, 'j', 'P', ' ', ' ', 0x0D, 0x0A, 0x87, 0x0A};
    o->n = 0;
    putn(o, sig, 12);
    buf f = {.n = 0};
    putsig(&f, "jp2 ");
    put32(&f, 0);
    putsig(&f, "jp2 ");
    box(o, "ftyp", &f);
    buf hdr = {.n = 0}, ih = {.n = 0};
    put32(&ih, h);
    put32(&ih, w);
    put16(&ih, nc);
    put8(&ih, prec - 1);
    put8(&ih, 7);
    put8(&ih, 0);
    put8(&ih, 0);
    box(&hdr, "ihdr", &ih);
    putn(&hdr, extra->b, extra->n);
    box(o, "jp2h", &hdr);
    put32(o, (uint32_t)(8 + cs_len));
    putsig(o, "jp2c");
    putn(o, cs, cs_len);
}

/* An ICC profile: the header (v2.1, display class, space, PCS) and the tags given. */
typedef struct tag {
    const char *sig;
    buf data;
} tag;

static void icc_profile(buf *o, const char *space, const char *pcs, const tag *tags, int n)
{
    o->n = 0;
    put32(o, 0); /* size, below */
    put32(o, 0);
    put32(o, 0x02100000);
    putsig(o, "mntr");
    putsig(o, space);
    putsig(o, pcs);
    while (o->n < 36)
        put8(o, 0);
    putsig(o, "acsp");
    while (o->n < 128)
        put8(o, 0);
    put32(o, (uint32_t)n);
    size_t off = 132 + 12 * (size_t)n;
    for (int i = 0; i < n; i++) {
        putsig(o, tags[i].sig);
        put32(o, (uint32_t)off);
        put32(o, (uint32_t)tags[i].data.n);
        off += (tags[i].data.n + 3) & ~(size_t)3;
    }
    for (int i = 0; i < n; i++) {
        putn(o, tags[i].data.b, tags[i].data.n);
        while (o->n % 4)
            put8(o, 0);
    }
    o->b[0] = (uint8_t)(o->n >> 24);
    o->b[1] = (uint8_t)(o->n >> 16);
    o->b[2] = (uint8_t)(o->n >> 8);
    o->b[3] = (uint8_t)o->n;
}

static void xyz_tag(buf *t, int32_t x, int32_t y, int32_t z)
{
    t->n = 0;
    putsig(t, "XYZ ");
    put32(t, 0);
    put32(t, (uint32_t)x);
    put32(t, (uint32_t)y);
    put32(t, (uint32_t)z);
}

/* curv with n entries (0: identity, 1: u8Fixed8 gamma, else a table) */
static void curv_tag(buf *t, uint32_t n, const uint16_t *v)
{
    t->n = 0;
    putsig(t, "curv");
    put32(t, 0);
    put32(t, n);
    for (uint32_t i = 0; i < n; i++)
        put16(t, v[i]);
}

/* para of type 3 with sRGB's parameters (s15Fixed16 of 2.4, 1/1.055, 0.055/1.055, 1/12.92,
 * 0.04045) */
static void para_srgb_tag(buf *t)
{
    static const int32_t p[5] = {157286, 62119, 3417, 5072, 2651};
    t->n = 0;
    putsig(t, "para");
    put32(t, 0);
    put16(t, 3);
    put16(t, 0);
    for (int i = 0; i < 5; i++)
        put32(t, (uint32_t)p[i]);
}

/* An RGB matrix/TRC profile with sRGB's D50 colorants (the Bradford-adapted primaries, as
 * s15Fixed16) and the TRC trc for all three channels. */
static void rgb_profile(buf *o, const buf *trc)
{
    static const int32_t col[3][3] = {
        {28576, 14581, 912}, {25239, 46983, 6361}, {9375, 3972, 46787}};
    tag t[6] = {{"rXYZ", {.n = 0}}, {"gXYZ", {.n = 0}}, {"bXYZ", {.n = 0}},
                {"rTRC", *trc},     {"gTRC", *trc},     {"bTRC", *trc}};
    for (int k = 0; k < 3; k++)
        xyz_tag(&t[k].data, col[k][0], col[k][1], col[k][2]);
    icc_profile(o, "RGB ", "XYZ ", t, 6);
}

static void gray_profile(buf *o, uint16_t gamma_u8f8)
{
    tag t[1] = {{"kTRC", {.n = 0}}};
    curv_tag(&t[0].data, 1, &gamma_u8f8);
    icc_profile(o, "GRAY", "XYZ ", t, 1);
}

/* ---- images and decoding ------------------------------------------------------------------ */

/* A lossless codestream of a w x h image of nc 8-bit channels, sample (x, y, c) = f[...]. */
static uint8_t *encode(tsr_ctx *ctx, uint32_t w, uint32_t h, uint32_t nc, const uint8_t *f,
                       size_t *len)
{
    tsr_image img;
    uint8_t *cs = NULL;
    if (tsr_image_alloc(ctx, &img, (int32_t)w, (int32_t)h, (int32_t)nc, TSR_U8) != TSR_OK)
        return NULL;
    for (uint32_t y = 0; y < h; y++)
        memcpy((uint8_t *)img.data + y * img.stride, f + (size_t)y * w * nc, (size_t)w * nc);
    CHECK_OK(ctx, tsr_j2k_encode(ctx, &img, NULL, &cs, len));
    tsr_image_free(ctx, &img);
    return cs;
}

typedef struct decoded {
    tsr_status st;
    tsr_j2k_plane *p;
    uint32_t n;
    tsr_j2k_result res;
} decoded;

static decoded decode(tsr_ctx *ctx, const buf *file)
{
    decoded d;
    memset(&d, 0, sizeof d);
    d.st = tsr_j2k_decode_alloc(ctx, file->b, file->n, NULL, &d.p, &d.n, &d.res);
    return d;
}

static int32_t at(const decoded *d, uint32_t c, uint32_t x, uint32_t y)
{
    return d->p[c].data[(size_t)y * d->p[c].stride + x];
}

/* ---- sYCC ---------------------------------------------------------------------------------- */

static tsr_j2k_plane plane(int32_t *data, uint32_t w, uint32_t h, uint32_t x0, uint32_t dx,
                           uint32_t prec, int sgnd)
{
    tsr_j2k_plane p;
    memset(&p, 0, sizeof p);
    p.x0 = x0;
    p.width = w;
    p.height = h;
    p.dx = dx;
    p.dy = 1;
    p.precision = prec;
    p.is_signed = sgnd;
    p.data = data;
    p.stride = w;
    return p;
}

/* One sample of Y, Cb, Cr to R, G, B. */
static void sycc1(int32_t y, int32_t cb, int32_t cr, uint32_t prec, int sgnd, int32_t rgb[3])
{
    int32_t yv = y, u = cb, v = cr;
    tsr_j2k_plane src[3] = {plane(&yv, 1, 1, 0, 1, prec, 0), plane(&u, 1, 1, 0, 1, prec, sgnd),
                            plane(&v, 1, 1, 0, 1, prec, sgnd)};
    tsr_j2k_plane dst[3] = {plane(&rgb[0], 1, 1, 0, 1, prec, 0),
                            plane(&rgb[1], 1, 1, 0, 1, prec, 0),
                            plane(&rgb[2], 1, 1, 0, 1, prec, 0)};
    tsr__jp2_sycc_to_rgb(src, dst, 1);
}

static void test_sycc_values(void)
{
    int32_t o[3];
    sycc1(128, 128, 128, 8, 0, o); /* neutral */
    CHECK(o[0] == 128 && o[1] == 128 && o[2] == 128);
    /* sRGB red (255, 0, 0) as sYCC: R = 76 + 1.402 * 127 = 254.05, G = 76 + 0.344136 * 43 -
     * 0.714136 * 127 = 0.10, B = 76 - 1.772 * 43 = -0.20 */
    sycc1(76, 85, 255, 8, 0, o);
    CHECK(o[0] == 254 && o[1] == 0 && o[2] == 0);
    sycc1(255, 128, 255, 8, 0, o); /* R = 433 clamps, B = 255 */
    CHECK(o[0] == 255 && o[2] == 255);
    sycc1(0, 128, 0, 8, 0, o); /* R = -179.5 clamps to 0, G = 0 + 91.4 */
    CHECK(o[0] == 0 && o[1] == 91 && o[2] == 0);
    sycc1(512, 512, 512, 10, 0, o); /* 10-bit neutral: offset 512 */
    CHECK(o[0] == 512 && o[1] == 512 && o[2] == 512);
    /* signed chroma (e-sYCC): no offset; Cr = 10: R = 100 + 14.02 */
    sycc1(100, 0, 10, 8, 1, o);
    CHECK(o[0] == 114 && o[1] == 93 && o[2] == 100);

    /* Chroma subsampled 2:1 horizontally, luma from reference-grid x = 1 (odd): luma x = 1..4
     * lies in the chroma cells 0, 1, 1, 2; the chroma plane starts at cell 1 (ceil(1 / 2)), so
     * the first luma sample takes the nearest present one (cell 1). Cr 138 then 148. */
    int32_t y[4] = {100, 100, 100, 100}, cb[2] = {128, 128}, cr[2] = {138, 148}, rgb[3][4];
    tsr_j2k_plane src[3] = {plane(y, 4, 1, 1, 1, 8, 0), plane(cb, 2, 1, 1, 2, 8, 0),
                            plane(cr, 2, 1, 1, 2, 8, 0)};
    tsr_j2k_plane dst[3] = {plane(rgb[0], 4, 1, 1, 1, 8, 0), plane(rgb[1], 4, 1, 1, 1, 8, 0),
                            plane(rgb[2], 4, 1, 1, 1, 8, 0)};
    tsr__jp2_sycc_to_rgb(src, dst, 1);
    CHECK(rgb[0][0] == 114 && rgb[0][1] == 114 && rgb[0][2] == 114 && rgb[0][3] == 128);
}

/* e-sYCC (EnumCS 24) through the decoder: a neutral and a red pixel. */
static void test_esycc_decode(tsr_ctx *ctx)
{
    const uint8_t px[2 * 3] = {128, 128, 128, 76, 85, 255};
    size_t len;
    uint8_t *cs = encode(ctx, 2, 1, 3, px, &len);
    if (!cs)
        return;
    buf extra = {.n = 0};
    static buf file;
    colr_enum(&extra, 24);
    jp2_file(&file, cs, len, 2, 1, 3, 8, &extra);
    decoded d = decode(ctx, &file);
    CHECK_OK(ctx, d.st);
    if (!d.st && d.n == 3) {
        CHECK(at(&d, 0, 0, 0) == 128 && at(&d, 1, 0, 0) == 128 && at(&d, 2, 0, 0) == 128);
        CHECK(at(&d, 0, 1, 0) == 254 && at(&d, 1, 1, 0) == 0 && at(&d, 2, 1, 0) == 0);
        CHECK(d.res.warnings == 0);
    }
    tsr_j2k_planes_free(ctx, d.p, d.n);
    tsr_j2k_free(ctx, cs);
}

/* ---- restricted ICC ------------------------------------------------------------------------ */

static void test_icc_parse(void)
{
    buf prof, trc;
    para_srgb_tag(&trc);
    rgb_profile(&prof, &trc);
    tsr__icc icc;
    const char *why;
    CHECK(tsr__icc_parse(prof.b, prof.n, &icc, &why) == TSR__ICC_OK);
    CHECK(icc.channels == 3 && icc.trc[0].kind == TSR__ICC_PARA && icc.trc[0].fn == 3);
    /* sRGB's own colorants: the matrix to sRGB is the identity to s15Fixed16's precision (the
     * quantised colorants leave off-diagonal terms below 2e-4) */
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            double e = icc.to_srgb[i][j] - (i == j);
            CHECK(e < 1e-3 && e > -1e-3);
        }
    /* the para curve is sRGB's decoding: 0.5 -> 0.21404 */
    double v = tsr__icc_curve_eval(&icc.trc[0], 0.5);
    CHECK(v > 0.2140 && v < 0.2141);
    /* a table curve interpolates linearly */
    uint16_t tab[3] = {0, 1000, 65535};
    buf t;
    curv_tag(&t, 3, tab);
    rgb_profile(&prof, &t);
    CHECK(tsr__icc_parse(prof.b, prof.n, &icc, &why) == TSR__ICC_OK);
    v = tsr__icc_curve_eval(&icc.trc[1], 0.25);
    CHECK(icc.trc[1].kind == TSR__ICC_TABLE && v > 499.9 / 65535 && v < 500.1 / 65535);
    gray_profile(&prof, 461);
    CHECK(tsr__icc_parse(prof.b, prof.n, &icc, &why) == TSR__ICC_OK);
    CHECK(icc.channels == 1 && icc.trc[0].kind == TSR__ICC_GAMMA);
    CHECK(icc.trc[0].p[0] > 1.8007 && icc.trc[0].p[0] < 1.8008);
}

/* Each malformed or unrestricted profile gets its verdict and a reason, and never a read past
 * its end (the ASan build checks that). */
static void test_icc_bad(void)
{
    buf good, trc, p;
    para_srgb_tag(&trc);
    rgb_profile(&good, &trc);
    tsr__icc icc;
    const char *why = NULL;
    struct {
        const char *what;
        size_t at; /* byte to overwrite (32 bits), or SIZE_MAX */
        uint32_t value;
        size_t len; /* bytes given */
        tsr__icc_verdict want;
    } cases[] = {
        {"short", SIZE_MAX, 0, 100, TSR__ICC_MALFORMED},
        {"size past the end", 0, 100000, 0, TSR__ICC_MALFORMED},
        {"size below a header", 0, 64, 0, TSR__ICC_MALFORMED},
        {"no acsp", 36, 0x41424344, 0, TSR__ICC_MALFORMED},
        {"huge tag count", 128, 0x10000000, 0, TSR__ICC_MALFORMED},
        {"tag offset past the end", 132 + 4, 0xFFFFFFF0u, 0, TSR__ICC_MALFORMED},
        {"tag length past the end", 132 + 8, 0x7FFFFFFF, 0, TSR__ICC_MALFORMED},
        {"truncated profile", SIZE_MAX, 0, 150, TSR__ICC_MALFORMED},
        {"Lab PCS", 20, 0x4C616220, 0, TSR__ICC_UNRESTRICTED},
        {"CMYK", 16, 0x434D594B, 0, TSR__ICC_UNRESTRICTED},
        {"device link", 12, 0x6C696E6B, 0, TSR__ICC_UNRESTRICTED},
        {"no bTRC", 132 + 12 * 5, 0x41414141, 0, TSR__ICC_UNRESTRICTED},
        {"A2B0 present", 132 + 12 * 4, 0x41324230, 0, TSR__ICC_UNRESTRICTED},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        p = good;
        size_t n = cases[i].len ? cases[i].len : p.n;
        if (cases[i].at != SIZE_MAX) {
            p.b[cases[i].at] = (uint8_t)(cases[i].value >> 24);
            p.b[cases[i].at + 1] = (uint8_t)(cases[i].value >> 16);
            p.b[cases[i].at + 2] = (uint8_t)(cases[i].value >> 8);
            p.b[cases[i].at + 3] = (uint8_t)cases[i].value;
        }
        /* a copy of exactly n bytes, so that a read past them is a heap overflow */
        uint8_t *copy = malloc(n);
        memcpy(copy, p.b, n);
        why = NULL;
        tsr__icc_verdict v = tsr__icc_parse(copy, n, &icc, &why);
        if (v != cases[i].want || !why || !why[0])
            fprintf(stderr, "icc case '%s': verdict %d (want %d), why %s\n", cases[i].what, v,
                    cases[i].want, why ? why : "(none)");
        CHECK(v == cases[i].want && why && why[0]);
        free(copy);
    }
    /* a curv tag claiming more entries than it holds, a para of function type 7 */
    buf t;
    curv_tag(&t, 1, (const uint16_t[]){256});
    t.b[11] = 200; /* 200 entries in a 14-byte tag */
    rgb_profile(&p, &t);
    CHECK(tsr__icc_parse(p.b, p.n, &icc, &why) == TSR__ICC_MALFORMED);
    para_srgb_tag(&t);
    t.b[9] = 7;
    rgb_profile(&p, &t);
    CHECK(tsr__icc_parse(p.b, p.n, &icc, &why) == TSR__ICC_MALFORMED);
    t.n = 10; /* a para tag cut short */
    rgb_profile(&p, &t);
    CHECK(tsr__icc_parse(p.b, p.n, &icc, &why) == TSR__ICC_MALFORMED);
}

/* RGB through a profile: every 8-bit value v as (v, v, v) and as (v, 0, 0). */
static void ramp_through(tsr_ctx *ctx, const buf *prof, uint32_t meth, decoded *d, uint8_t **cs)
{
    static uint8_t px[2 * 256 * 3];
    for (int v = 0; v < 256; v++) {
        px[3 * v] = px[3 * v + 1] = px[3 * v + 2] = (uint8_t)v;
        px[768 + 3 * v] = (uint8_t)v;
        px[768 + 3 * v + 1] = px[768 + 3 * v + 2] = 0;
    }
    size_t len;
    *cs = encode(ctx, 256, 2, 3, px, &len);
    memset(d, 0, sizeof *d);
    d->st = TSR_ERR_INTERNAL;
    if (!*cs)
        return;
    buf extra = {.n = 0};
    static buf file;
    colr_icc(&extra, meth, prof);
    jp2_file(&file, *cs, len, 256, 2, 3, 8, &extra);
    *d = decode(ctx, &file);
}

static void test_icc_rgb(tsr_ctx *ctx)
{
    buf prof, trc;
    decoded d;
    uint8_t *cs;
    /* sRGB described as an ICC profile: every value comes back unchanged (the quantised
     * colorants move the results by at most 0.06 of a step, IEC 61966-2-1 in double) */
    para_srgb_tag(&trc);
    rgb_profile(&prof, &trc);
    ramp_through(ctx, &prof, 2, &d, &cs);
    CHECK_OK(ctx, d.st);
    int same = d.st == TSR_OK && d.n == 3;
    for (int v = 0; same && v < 256; v++)
        for (uint32_t c = 0; c < 3; c++)
            same = same && at(&d, c, (uint32_t)v, 0) == v &&
                   at(&d, c, (uint32_t)v, 1) == (c == 0 ? v : 0);
    CHECK(same);
    CHECK(d.res.warnings == 0);
    tsr_j2k_planes_free(ctx, d.p, d.n);
    tsr_j2k_free(ctx, cs);

    /* linear light (curv without entries; method 3, any ICC, with a restricted profile):
     * known sRGB encodings of v / 255 (grey: 1 -> 13, 64 -> 137, 128 -> 188, 200 -> 229, 255 ->
     * 255; red alone 64 -> 137, green and blue 0) */
    curv_tag(&trc, 0, NULL);
    rgb_profile(&prof, &trc);
    ramp_through(ctx, &prof, 3, &d, &cs);
    CHECK_OK(ctx, d.st);
    if (d.st == TSR_OK && d.n == 3) {
        static const int32_t in[6] = {0, 1, 64, 128, 200, 255},
                             want[6] = {0, 13, 137, 188, 229, 255};
        for (int i = 0; i < 6; i++)
            for (uint32_t c = 0; c < 3; c++)
                CHECK(at(&d, c, (uint32_t)in[i], 0) == want[i]);
        CHECK(at(&d, 0, 64, 1) == 137 && at(&d, 1, 64, 1) == 0 && at(&d, 2, 64, 1) == 0);
    }
    tsr_j2k_planes_free(ctx, d.p, d.n);
    tsr_j2k_free(ctx, cs);
    /* the same curve as a 2-entry table */
    curv_tag(&trc, 2, (const uint16_t[]){0, 65535});
    rgb_profile(&prof, &trc);
    ramp_through(ctx, &prof, 2, &d, &cs);
    CHECK_OK(ctx, d.st);
    CHECK(d.st == TSR_OK && d.n == 3 && at(&d, 1, 128, 0) == 188 && at(&d, 2, 1, 0) == 13);
    tsr_j2k_planes_free(ctx, d.p, d.n);
    tsr_j2k_free(ctx, cs);
}

/* Monochrome gamma 1.8 (u8Fixed8 461/256) to sRGB, three equal channels: 0 -> 0, 1 -> 0, 64
 * -> 81, 128 -> 146, 200 -> 210, 255 -> 255. */
static void test_icc_gray(tsr_ctx *ctx)
{
    static const uint8_t in[6] = {0, 1, 64, 128, 200, 255};
    static const int32_t want[6] = {0, 0, 81, 146, 210, 255};
    size_t len;
    uint8_t *cs = encode(ctx, 6, 1, 1, in, &len);
    if (!cs)
        return;
    buf prof, extra = {.n = 0};
    static buf file;
    gray_profile(&prof, 461);
    colr_icc(&extra, 2, &prof);
    jp2_file(&file, cs, len, 6, 1, 1, 8, &extra);
    decoded d = decode(ctx, &file);
    CHECK_OK(ctx, d.st);
    CHECK(d.n == 3);
    for (int i = 0; d.st == TSR_OK && d.n == 3 && i < 6; i++)
        for (uint32_t c = 0; c < 3; c++)
            CHECK(at(&d, c, (uint32_t)i, 0) == want[i]);
    tsr_j2k_planes_free(ctx, d.p, d.n);
    /* header and image entry agree: 3 channels */
    tsr_j2k_info info;
    CHECK_OK(ctx, tsr_j2k_read_header(ctx, file.b, file.n, &info, NULL, 0));
    CHECK(info.output_channels == 3 && info.colour_method == 2 && info.colourspace == 0);
    tsr_image img;
    CHECK_OK(ctx, tsr_j2k_decode_image_layout(ctx, file.b, file.n, NULL, &img));
    CHECK(img.channels == 3);
    /* raw components: the codestream's single component, as decoded */
    tsr_j2k_decode_options o;
    tsr_j2k_decode_options_init(&o);
    o.apply_palette = 0;
    memset(&d, 0, sizeof d);
    CHECK_OK(ctx, tsr_j2k_decode_alloc(ctx, file.b, file.n, &o, &d.p, &d.n, NULL));
    CHECK(d.n == 1 && at(&d, 0, 2, 0) == 64);
    tsr_j2k_planes_free(ctx, d.p, d.n);
    tsr_j2k_free(ctx, cs);
}

/* Profiles not applied: the samples as decoded and a warning naming why. */
static void test_icc_not_applied(tsr_ctx *ctx)
{
    buf prof, trc;
    decoded d;
    uint8_t *cs;
    para_srgb_tag(&trc);
    rgb_profile(&prof, &trc);
    prof.b[132 + 4] = 0xFF; /* rXYZ's offset past the end: malformed */
    ramp_through(ctx, &prof, 2, &d, &cs);
    CHECK_OK(ctx, d.st);
    CHECK(d.res.warnings >= 1 && strstr(d.res.warning, "ICC profile not applied") &&
          strstr(d.res.warning, "malformed"));
    CHECK(d.n == 3 && at(&d, 0, 77, 0) == 77 && at(&d, 1, 77, 1) == 0);
    tsr_j2k_planes_free(ctx, d.p, d.n);
    tsr_j2k_free(ctx, cs);
    rgb_profile(&prof, &trc);
    memcpy(prof.b + 132 + 12 * 3, "A2B0", 4); /* a LUT-based (full) profile */
    ramp_through(ctx, &prof, 3, &d, &cs);
    CHECK_OK(ctx, d.st);
    CHECK(d.res.warnings >= 1 && strstr(d.res.warning, "not applied") &&
          strstr(d.res.warning, "A2B0"));
    CHECK(d.n == 3 && at(&d, 2, 200, 0) == 200);
    tsr_j2k_planes_free(ctx, d.p, d.n);
    tsr_j2k_free(ctx, cs);
    /* an enumerated space that is not converted */
    const uint8_t px[3] = {10, 20, 30};
    size_t len;
    cs = encode(ctx, 1, 1, 3, px, &len);
    buf extra = {.n = 0};
    static buf file;
    colr_enum(&extra, 21);
    jp2_file(&file, cs, len, 1, 1, 3, 8, &extra);
    d = decode(ctx, &file);
    CHECK_OK(ctx, d.st);
    CHECK(d.res.warnings >= 1 && strstr(d.res.warning, "ROMM-RGB"));
    CHECK(d.n == 3 && at(&d, 1, 0, 0) == 20);
    tsr_j2k_planes_free(ctx, d.p, d.n);
    tsr_j2k_free(ctx, cs);
}

/* ---- palette, cmap, cdef -------------------------------------------------------------------- */

static void pclr(buf *h, uint32_t ne, uint32_t npc, const uint8_t *entries)
{
    buf p = {.n = 0};
    put16(&p, ne);
    put8(&p, npc);
    for (uint32_t k = 0; k < npc; k++)
        put8(&p, 7);
    putn(&p, entries, (size_t)ne * npc);
    box(h, "pclr", &p);
}

static void cmap_palette(buf *h, uint32_t ncol)
{
    buf m = {.n = 0};
    for (uint32_t k = 0; k < ncol; k++) {
        put16(&m, 0);
        put8(&m, 1);
        put8(&m, k);
    }
    box(h, "cmap", &m);
}

static void cdef(buf *h, uint32_t n, const uint16_t (*e)[3])
{
    buf c = {.n = 0};
    put16(&c, n);
    for (uint32_t i = 0; i < n; i++)
        for (int k = 0; k < 3; k++)
            put16(&c, e[i][k]);
    box(h, "cdef", &c);
}

static void test_palette(tsr_ctx *ctx)
{
    const uint8_t idx[4] = {0, 1, 2, 3};
    size_t len;
    uint8_t *cs = encode(ctx, 4, 1, 1, idx, &len);
    if (!cs)
        return;
    static buf file;
    /* grey + alpha palette under a monochrome linear-light profile: R = G = B = the sRGB
     * encoding of grey / 255 (64 -> 137, 128 -> 188), alpha as in the palette */
    {
        const uint8_t ent[4 * 2] = {0, 255, 64, 200, 128, 100, 255, 0};
        const uint16_t def[2][3] = {{0, 0, 1}, {1, 1, 0}};
        buf prof, extra = {.n = 0};
        tag t[1] = {{"kTRC", {.n = 0}}};
        curv_tag(&t[0].data, 0, NULL);
        icc_profile(&prof, "GRAY", "XYZ ", t, 1);
        pclr(&extra, 4, 2, ent);
        cmap_palette(&extra, 2);
        cdef(&extra, 2, def);
        colr_icc(&extra, 2, &prof);
        jp2_file(&file, cs, len, 4, 1, 1, 8, &extra);
        decoded d = decode(ctx, &file);
        CHECK_OK(ctx, d.st);
        CHECK(d.n == 4);
        if (d.st == TSR_OK && d.n == 4) {
            static const int32_t grey[4] = {0, 137, 188, 255}, alpha[4] = {255, 200, 100, 0};
            for (uint32_t x = 0; x < 4; x++) {
                CHECK(at(&d, 0, x, 0) == grey[x] && at(&d, 1, x, 0) == grey[x] &&
                      at(&d, 2, x, 0) == grey[x]);
                CHECK(at(&d, 3, x, 0) == alpha[x]);
            }
        }
        tsr_j2k_planes_free(ctx, d.p, d.n);
    }
    /* an RGB palette whose channel definitions reverse it (channel 0 is blue) */
    {
        const uint8_t ent[4 * 3] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
        const uint16_t def[3][3] = {{0, 0, 3}, {1, 0, 2}, {2, 0, 1}};
        buf extra = {.n = 0};
        pclr(&extra, 4, 3, ent);
        cmap_palette(&extra, 3);
        cdef(&extra, 3, def);
        colr_enum(&extra, 16);
        jp2_file(&file, cs, len, 4, 1, 1, 8, &extra);
        decoded d = decode(ctx, &file);
        CHECK_OK(ctx, d.st);
        CHECK(d.st == TSR_OK && d.n == 3 && at(&d, 0, 2, 0) == 9 && at(&d, 1, 2, 0) == 8 &&
              at(&d, 2, 2, 0) == 7);
        tsr_j2k_planes_free(ctx, d.p, d.n);
    }
    tsr_j2k_free(ctx, cs);
}

/* ---- hostile boxes -------------------------------------------------------------------------- */

static void test_hostile(tsr_ctx *ctx)
{
    const uint8_t idx[4] = {0, 1, 2, 3};
    size_t len;
    uint8_t *cs = encode(ctx, 4, 1, 1, idx, &len);
    if (!cs)
        return;
    static const uint8_t ent[4 * 2] = {0, 1, 2, 3, 4, 5, 6, 7};
    struct {
        const char *what, *box; /* the box the message must name */
        int kind;
    } cases[] = {
        {"colr of 2 bytes", "colr", 0},
        {"colr METH 1 without its EnumCS", "colr", 1},
        {"pclr header cut short", "pclr", 2},
        {"pclr with fewer entries than NE", "pclr", 3},
        {"cmap of 6 bytes", "cmap", 4},
        {"cmap column past the palette", "cmap", 5},
        {"cmap component past the codestream's", "cmap", 6},
        {"cmap mapping type 2", "cmap", 7},
        {"palette without cmap", "cmap", 8},
    };
    static buf file;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        buf extra = {.n = 0}, b = {.n = 0};
        switch (cases[i].kind) {
        case 0:
            put16(&b, 0x0100);
            box(&extra, "colr", &b);
            break;
        case 1:
            put8(&b, 1);
            put16(&b, 0);
            put16(&b, 16);
            box(&extra, "colr", &b);
            break;
        case 2:
            put16(&b, 4);
            box(&extra, "pclr", &b);
            break;
        case 3:
            put16(&b, 4);
            put8(&b, 2);
            put16(&b, 0x0707);
            putn(&b, ent, 5);
            box(&extra, "pclr", &b);
            break;
        default:
            pclr(&extra, 4, 2, ent);
            if (cases[i].kind == 4) {
                put32(&b, 1);
                put16(&b, 0);
                box(&extra, "cmap", &b);
            } else if (cases[i].kind != 8) {
                put16(&b, cases[i].kind == 6 ? 3 : 0);
                put8(&b, cases[i].kind == 7 ? 2 : 1);
                put8(&b, cases[i].kind == 5 ? 2 : 0);
                box(&extra, "cmap", &b);
            }
        }
        colr_enum(&extra, 16);
        jp2_file(&file, cs, len, 4, 1, 1, 8, &extra);
        decoded d = decode(ctx, &file);
        const char *msg = tsr_ctx_last_error(ctx);
        int ok = d.st == TSR_ERR_CORRUPT && strstr(msg, cases[i].box);
        if (!ok)
            fprintf(stderr, "hostile '%s': %s: %s\n", cases[i].what, tsr_status_name(d.st), msg);
        CHECK(ok);
        tsr_j2k_planes_free(ctx, d.p, d.n);
    }
    tsr_j2k_free(ctx, cs);
}

int main(void)
{
    tsr_ctx *ctx = tsr_test_reference_ctx();
    test_sycc_values();
    test_esycc_decode(ctx);
    test_icc_parse();
    test_icc_bad();
    test_icc_rgb(ctx);
    test_icc_gray(ctx);
    test_icc_not_applied(ctx);
    test_palette(ctx);
    test_hostile(ctx);
    tsr_ctx_destroy(ctx);
    return tsr_test_finish("j2k_colour");
}
