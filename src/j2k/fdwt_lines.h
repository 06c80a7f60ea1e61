/* The forward DWT's line kernels (fdwt.c) as a template, included once by fdwt.c (the baseline
 * build) and once by fdwt_avx2.c (the same C compiled for AVX2: 8 lanes instead of 4, no FMA,
 * so the same integers and floats bit for bit). The includer defines FDWT_FN(name) (the
 * function's name in its build) and FDWT_SCOPE (its linkage). No include guard: one instance
 * per file.
 *   row53:   a row x of n >= 2 samples from an even position, 5/3 lifting and deinterleaving
 *            fused: from a copy in t (n samples) straight into dst (x itself or n samples
 *            apart from it), low half first (the integers of
 *            tsr__dwt53_forward_line, whose high-pass samples the update reads, then F.4.2's
 *            DEINTERLEAVE);
 *   strip53: tsr__dwt53_forward_line on every column of n rows of cols samples;
 *   row97:   a row x of n >= 2 samples from an even position, deinterleaved into t (n
 *            samples), tsr__dwt97_forward_line's steps on the halves (the same operations in
 *            the same order per sample) and the scaling written into dst (x itself or n samples
 *            apart from it), low half first;
 *   strip97: tsr__dwt97_forward_line on every column of n rows of cols samples. */

FDWT_SCOPE void FDWT_FN(row53)(int32_t *dst, const int32_t *x, uint32_t n, int32_t *t)
{
    memcpy(t, x, (size_t)n * sizeof *t);
    const uint32_t nl = (n + 1) / 2, nh = n / 2;
    int32_t *lo = dst, *hi = dst + nl;
    for (uint32_t i = 0; i + 1 < nh; i++)
        hi[i] = tsr__fdwt53_predict(t[2 * i + 1], t[2 * i], t[2 * i + 2]);
    /* the last high-pass sample: after an even n's end the symmetric extension's t[n - 2] */
    hi[nh - 1] =
        tsr__fdwt53_predict(t[2 * nh - 1], t[2 * nh - 2], 2 * nh < n ? t[2 * nh] : t[n - 2]);
    lo[0] = tsr__fdwt53_update(t[0], hi[0], hi[0]);
    for (uint32_t i = 1; i < nh; i++)
        lo[i] = tsr__fdwt53_update(t[2 * i], hi[i - 1], hi[i]);
    if (nl > nh) /* odd n: the last sample is low-pass, both neighbours the last high-pass one */
        lo[nh] = tsr__fdwt53_update(t[2 * nh], hi[nh - 1], hi[nh - 1]);
}

FDWT_SCOPE void FDWT_FN(strip53)(void *rows, uint32_t n, uint32_t i0, uint32_t cols)
{
    int32_t *t = rows;
    const uint32_t cas = i0 & 1;
    if (n == 1) {
        if (cas)
            for (uint32_t j = 0; j < cols; j++)
                t[j] *= 2;
        return;
    }
    if (n == 0)
        return;
    for (uint32_t i = 1 - cas; i < n; i += 2) {
        const int32_t *a = t + (size_t)(i > 0 ? i - 1 : 1) * cols;
        const int32_t *b = t + (size_t)(i + 1 < n ? i + 1 : n - 2) * cols;
        int32_t *d = t + (size_t)i * cols;
        for (uint32_t j = 0; j < cols; j++)
            d[j] = tsr__fdwt53_predict(d[j], a[j], b[j]);
    }
    for (uint32_t i = cas; i < n; i += 2) {
        const int32_t *a = t + (size_t)(i > 0 ? i - 1 : 1) * cols;
        const int32_t *b = t + (size_t)(i + 1 < n ? i + 1 : n - 2) * cols;
        int32_t *d = t + (size_t)i * cols;
        for (uint32_t j = 0; j < cols; j++)
            d[j] = tsr__fdwt53_update(d[j], a[j], b[j]);
    }
}

/* One 9/7 lifting step on a row held deinterleaved, d[k] += c (s[k + o] + s[k + o + 1]) for
 * k < nd with s's nonexistent ends mirrored (F.4.8.2's extension): the low samples d (o = -1,
 * s the ns = nh high ones) or the high ones (o = 0, s the nl low ones). The sums of
 * lift97_forward, in the same order per sample. */
static void FDWT_FN(lift97_half)(float *restrict d, uint32_t nd, const float *restrict s,
                                 uint32_t ns, int o, float c)
{
    uint32_t k = 0;
    if (o < 0) { /* low sample 0: both neighbours high sample 0 */
        d[0] = tsr__fdwt97_lift(d[0], c, s[0], s[0]);
        k = 1;
    }
    const uint32_t inner = (uint32_t)((int)ns - 1 - o) < nd ? (uint32_t)((int)ns - 1 - o) : nd;
    for (; k < inner; k++)
        d[k] = tsr__fdwt97_lift(d[k], c, s[(int)k + o], s[(int)k + o + 1]);
    for (; k < nd; k++) /* past s's end: both neighbours its last sample */
        d[k] = tsr__fdwt97_lift(d[k], c, s[ns - 1], s[ns - 1]);
}

FDWT_SCOPE void FDWT_FN(row97)(float *dst, const float *x, uint32_t n, float *t)
{
    const uint32_t nl = (n + 1) / 2, nh = n / 2;
    float *e = t, *h = t + nl;
    for (uint32_t k = 0; k < nh; k++) {
        e[k] = x[2 * k];
        h[k] = x[2 * k + 1];
    }
    if (nl > nh)
        e[nh] = x[n - 1];
    FDWT_FN(lift97_half)(h, nh, e, nl, 0, TSR__DWT97_ALPHA);
    FDWT_FN(lift97_half)(e, nl, h, nh, -1, TSR__DWT97_BETA);
    FDWT_FN(lift97_half)(h, nh, e, nl, 0, TSR__DWT97_GAMMA);
    FDWT_FN(lift97_half)(e, nl, h, nh, -1, TSR__DWT97_DELTA);
    for (uint32_t k = 0; k < nl; k++)
        dst[k] = e[k] * TSR__DWT97_INVK;
    for (uint32_t k = 0; k < nh; k++)
        dst[nl + k] = h[k] * TSR__DWT97_KAPPA;
}

/* lift97_forward on every column of n rows of cols samples. */
static void FDWT_FN(lift97_strip)(float *t, uint32_t n, uint32_t start, uint32_t cols, float c)
{
    for (uint32_t i = start; i < n; i += 2) {
        const float *a = t + (size_t)(i > 0 ? i - 1 : 1) * cols;
        const float *b = t + (size_t)(i + 1 < n ? i + 1 : n - 2) * cols;
        float *d = t + (size_t)i * cols;
        for (uint32_t j = 0; j < cols; j++)
            d[j] = tsr__fdwt97_lift(d[j], c, a[j], b[j]);
    }
}

FDWT_SCOPE void FDWT_FN(strip97)(void *rows, uint32_t n, uint32_t i0, uint32_t cols)
{
    float *t = rows;
    const uint32_t cas = i0 & 1;
    if (n == 1) {
        if (cas)
            for (uint32_t j = 0; j < cols; j++)
                t[j] *= 2.0f;
        return;
    }
    if (n == 0)
        return;
    FDWT_FN(lift97_strip)(t, n, 1 - cas, cols, TSR__DWT97_ALPHA);
    FDWT_FN(lift97_strip)(t, n, cas, cols, TSR__DWT97_BETA);
    FDWT_FN(lift97_strip)(t, n, 1 - cas, cols, TSR__DWT97_GAMMA);
    FDWT_FN(lift97_strip)(t, n, cas, cols, TSR__DWT97_DELTA);
    for (uint32_t i = 0; i < n; i++) {
        const float k = ((i & 1) == cas) ? TSR__DWT97_INVK : TSR__DWT97_KAPPA;
        float *d = t + (size_t)i * cols;
        for (uint32_t j = 0; j < cols; j++)
            d[j] *= k;
    }
}
