/* Restricted ICC profiles (T.800 I.5.3.3, method 2): the header and the tags of a monochrome
 * (grayTRC) or three-component matrix/TRC input profile (ICC.1:2004 clauses 7 and 8.3), read
 * with every offset and length checked against the profile, and the matrix to linear sRGB
 * (jp2_colour.h). */
#include "j2k/jp2_colour.h"
#include "j2k/reader.h"

#include <math.h>
#include <string.h>

#define SIG(a, b, c, d) (((uint32_t)(a) << 24) | ((uint32_t)(b) << 16) | ((uint32_t)(c) << 8) | (d))

/* An s15Fixed16Number (ICC.1 5.1.3). */
static double s15f16(const uint8_t *p)
{
    return (double)(int32_t)tsr__rd32(p) / 65536.0;
}

/* The first tag `sig` of the tag table: 1 and its bytes in *data, *len, or 0 when the profile
 * has no such tag. The caller checked that the table and every tag lie inside the profile. */
static int find_tag(const uint8_t *prof, uint32_t ntags, uint32_t sig, const uint8_t **data,
                    size_t *len)
{
    for (uint32_t i = 0; i < ntags; i++) {
        const uint8_t *e = prof + 132 + 12 * (size_t)i;
        if (tsr__rd32(e) == sig) {
            *data = prof + tsr__rd32(e + 4);
            *len = tsr__rd32(e + 8);
            return 1;
        }
    }
    return 0;
}

/* A 'curv' or 'para' tag into *c; NULL, or why it cannot be read. */
static const char *read_curve(const uint8_t *t, size_t len, tsr__icc_curve *c)
{
    memset(c, 0, sizeof *c);
    if (len < 12)
        return "a TRC tag is truncated";
    uint32_t type = tsr__rd32(t);
    if (type == SIG('c', 'u', 'r', 'v')) {
        uint32_t n = tsr__rd32(t + 8);
        if (n > (len - 12) / 2)
            return "a curv tag holds fewer entries than it declares";
        if (n == 0) {
            c->kind = TSR__ICC_GAMMA;
            c->p[0] = 1.0;
        } else if (n == 1) {
            c->kind = TSR__ICC_GAMMA;
            c->p[0] = tsr__rd16(t + 12) / 256.0; /* u8Fixed8Number */
        } else {
            c->kind = TSR__ICC_TABLE;
            c->n = n;
            c->table = t + 12;
        }
        return NULL;
    }
    if (type == SIG('p', 'a', 'r', 'a')) {
        static const uint32_t nparams[5] = {1, 3, 4, 5, 7};
        uint32_t fn = tsr__rd16(t + 8);
        if (fn > 4)
            return "a para tag of an unknown function type";
        if (len < 12 + 4 * (size_t)nparams[fn])
            return "a para tag holds fewer parameters than its function needs";
        c->kind = TSR__ICC_PARA;
        c->fn = fn;
        for (uint32_t k = 0; k < nparams[fn]; k++)
            c->p[k] = s15f16(t + 12 + 4 * k);
        return NULL;
    }
    return "a TRC tag is neither curv nor para";
}

double tsr__icc_curve_eval(const tsr__icc_curve *c, double x)
{
    x = x < 0 ? 0 : x > 1 ? 1 : x;
    double y;
    const double *p = c->p;
    switch (c->kind) {
    case TSR__ICC_GAMMA: y = pow(x, p[0]); break;
    case TSR__ICC_TABLE: {
        double pos = x * (c->n - 1);
        uint32_t i = (uint32_t)pos;
        if (i >= c->n - 1)
            i = c->n - 2;
        double f = pos - i;
        double a = tsr__rd16(c->table + 2 * (size_t)i), b = tsr__rd16(c->table + 2 * (size_t)i + 2);
        y = (a + (b - a) * f) / 65535.0;
        break;
    }
    default: {
        /* ICC.1:2004 Table 65: the power branch applies where a x + b >= 0 (types 1, 2) or
         * x >= d (types 3, 4); a negative base gives 0 rather than NaN. */
        double base = p[1] * x + p[2];
        double pw = base > 0 ? pow(base, p[0]) : 0;
        switch (c->fn) {
        case 0: y = pow(x, p[0]); break;
        case 1: y = base >= 0 ? pw : 0; break;
        case 2: y = base >= 0 ? pw + p[3] : p[3]; break;
        case 3: y = x >= p[4] ? pw : p[3] * x; break;
        default: y = x >= p[4] ? pw + p[5] : p[3] * x + p[6]; break;
        }
    }
    }
    return y > 0 ? (y < 1 ? y : 1) : 0; /* NaN to 0 */
}

static void mat_mul(const double a[3][3], const double b[3][3], double out[3][3])
{
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            out[i][j] = a[i][0] * b[0][j] + a[i][1] * b[1][j] + a[i][2] * b[2][j];
}

static void mat_inv(const double m[3][3], double out[3][3])
{
    double det = m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) -
                 m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0]) +
                 m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            /* cofactor of m[j][i] */
            int r0 = (j + 1) % 3, r1 = (j + 2) % 3, c0 = (i + 1) % 3, c1 = (i + 2) % 3;
            out[i][j] = (m[r0][c0] * m[r1][c1] - m[r0][c1] * m[r1][c0]) / det;
        }
}

/* XYZ (D50, the ICC PCS) to linear sRGB: the inverse of the sRGB primaries' matrix (IEC
 * 61966-2-1: R 0.64,0.33 G 0.30,0.60 B 0.15,0.06, white D65 0.3127,0.3290) adapted from D65
 * to the PCS white D50 (0.9642, 1, 0.8249) by the Bradford transform (ICC.1:2004 Annex E), as
 * littleCMS builds its sRGB profile. */
static void xyz_d50_to_srgb(double out[3][3])
{
    static const double xy[4][2] = {{0.64, 0.33}, {0.30, 0.60}, {0.15, 0.06}, {0.3127, 0.3290}};
    static const double bradford[3][3] = {
        {0.8951, 0.2664, -0.1614}, {-0.7502, 1.7135, 0.0367}, {0.0389, -0.0685, 1.0296}};
    static const double d50[3] = {0.9642, 1.0, 0.8249};
    double prim[3][3], w[3], s[3], inv[3][3];
    for (int k = 0; k < 3; k++) {
        prim[0][k] = xy[k][0] / xy[k][1];
        prim[1][k] = 1.0;
        prim[2][k] = (1 - xy[k][0] - xy[k][1]) / xy[k][1];
    }
    w[0] = xy[3][0] / xy[3][1];
    w[1] = 1.0;
    w[2] = (1 - xy[3][0] - xy[3][1]) / xy[3][1];
    mat_inv(prim, inv);
    for (int k = 0; k < 3; k++)
        s[k] = inv[k][0] * w[0] + inv[k][1] * w[1] + inv[k][2] * w[2];
    double rgb_d65[3][3]; /* linear sRGB to XYZ D65 */
    for (int i = 0; i < 3; i++)
        for (int k = 0; k < 3; k++)
            rgb_d65[i][k] = prim[i][k] * s[k];
    /* Bradford: cone responses of both whites, scaled, and back */
    double cw[3], cd[3], scale[3][3] = {{0}}, binv[3][3], t[3][3], adapt[3][3], rgb_d50[3][3];
    for (int i = 0; i < 3; i++) {
        cw[i] = bradford[i][0] * w[0] + bradford[i][1] * w[1] + bradford[i][2] * w[2];
        cd[i] = bradford[i][0] * d50[0] + bradford[i][1] * d50[1] + bradford[i][2] * d50[2];
        scale[i][i] = cd[i] / cw[i];
    }
    mat_inv(bradford, binv);
    mat_mul(scale, bradford, t);
    mat_mul(binv, t, adapt);
    mat_mul(adapt, rgb_d65, rgb_d50);
    mat_inv(rgb_d50, out);
}

/* An 'XYZ ' tag's first value into v. */
static const char *read_xyz(const uint8_t *t, size_t len, double v[3])
{
    if (len < 20 || tsr__rd32(t) != SIG('X', 'Y', 'Z', ' '))
        return "a colorant tag is no XYZ value";
    for (int k = 0; k < 3; k++)
        v[k] = s15f16(t + 8 + 4 * k);
    return NULL;
}

tsr__icc_verdict tsr__icc_parse(const uint8_t *prof, size_t len, tsr__icc *icc, const char **why)
{
    memset(icc, 0, sizeof *icc);
    *why = NULL;
    if (len < 132) {
        *why = "shorter than an ICC header and tag count (132 bytes)";
        return TSR__ICC_MALFORMED;
    }
    size_t size = tsr__rd32(prof);
    if (size < 132 || size > len) {
        *why = size > len ? "its size field exceeds the bytes present"
                          : "its size field is smaller than a header";
        return TSR__ICC_MALFORMED;
    }
    if (tsr__rd32(prof + 36) != SIG('a', 'c', 's', 'p')) {
        *why = "no 'acsp' signature";
        return TSR__ICC_MALFORMED;
    }
    uint32_t ntags = tsr__rd32(prof + 128);
    if (ntags > (size - 132) / 12) {
        *why = "its tag table extends past the profile";
        return TSR__ICC_MALFORMED;
    }
    uint32_t cls = tsr__rd32(prof + 12), space = tsr__rd32(prof + 16), pcs = tsr__rd32(prof + 20);
    /* every tag must lie inside the profile, also those not read here */
    for (uint32_t i = 0; i < ntags; i++) {
        const uint8_t *e = prof + 132 + 12 * (size_t)i;
        uint32_t off = tsr__rd32(e + 4), n = tsr__rd32(e + 8);
        if (off > size || n > size - off) {
            *why = "a tag lies outside the profile";
            return TSR__ICC_MALFORMED;
        }
    }
    const uint8_t *t;
    size_t tl;
    if (cls == SIG('l', 'i', 'n', 'k') || cls == SIG('a', 'b', 's', 't') ||
        cls == SIG('n', 'm', 'c', 'l')) {
        *why = "a device-link, abstract or named-colour profile";
        return TSR__ICC_UNRESTRICTED;
    }
    if (pcs != SIG('X', 'Y', 'Z', ' ')) {
        *why = "its connection space is not XYZ";
        return TSR__ICC_UNRESTRICTED;
    }
    if (find_tag(prof, ntags, SIG('A', '2', 'B', '0'), &t, &tl)) {
        *why = "it has LUT-based transforms (A2B0)";
        return TSR__ICC_UNRESTRICTED;
    }
    static const double d50[3] = {0.9642, 1.0, 0.8249};
    double to_srgb[3][3];
    xyz_d50_to_srgb(to_srgb);
    if (space == SIG('G', 'R', 'A', 'Y')) {
        if (!find_tag(prof, ntags, SIG('k', 'T', 'R', 'C'), &t, &tl)) {
            *why = "a monochrome profile without a grayTRC tag";
            return TSR__ICC_UNRESTRICTED;
        }
        if ((*why = read_curve(t, tl, &icc->trc[0])))
            return TSR__ICC_MALFORMED;
        /* the curve gives the luminance Y of the PCS white D50 (ICC.1:2004 F.2) */
        for (int i = 0; i < 3; i++)
            icc->to_srgb[i][0] =
                to_srgb[i][0] * d50[0] + to_srgb[i][1] * d50[1] + to_srgb[i][2] * d50[2];
        icc->channels = 1;
        return TSR__ICC_OK;
    }
    if (space != SIG('R', 'G', 'B', ' ')) {
        *why = "its colour space is neither monochrome nor RGB";
        return TSR__ICC_UNRESTRICTED;
    }
    static const uint32_t trc[3] = {SIG('r', 'T', 'R', 'C'), SIG('g', 'T', 'R', 'C'),
                                    SIG('b', 'T', 'R', 'C')};
    static const uint32_t col[3] = {SIG('r', 'X', 'Y', 'Z'), SIG('g', 'X', 'Y', 'Z'),
                                    SIG('b', 'X', 'Y', 'Z')};
    double m[3][3]; /* linear device RGB to XYZ D50: the colorants are its columns */
    for (int k = 0; k < 3; k++) {
        double v[3];
        const uint8_t *c;
        size_t cl;
        if (!find_tag(prof, ntags, trc[k], &t, &tl) || !find_tag(prof, ntags, col[k], &c, &cl)) {
            *why = "an RGB profile without its three TRC and colorant tags";
            return TSR__ICC_UNRESTRICTED;
        }
        if ((*why = read_xyz(c, cl, v)))
            return TSR__ICC_MALFORMED;
        for (int i = 0; i < 3; i++)
            m[i][k] = v[i];
        if ((*why = read_curve(t, tl, &icc->trc[k])))
            return TSR__ICC_MALFORMED;
    }
    mat_mul(to_srgb, m, icc->to_srgb);
    icc->channels = 3;
    return TSR__ICC_OK;
}
