/* HT block encoder (ht_encode.c, ht_refine_encode.c, ht_rd.c): blocks of random coefficients
 * of every size class (1x1 .. 64x64, 1024x4, 4x1024, odd sizes), sparse to dense, small to 2^29
 * magnitudes, coded and decoded by tsr__t1_decode into poisoned output and workspace, with the
 * scalar and the AVX2 cleanup decoders, without warnings:
 *  - one HT cleanup pass down to plane 0 (zero bit-planes Mb - 1): the coefficients exactly;
 *  - at every base plane p, the cleanup alone, with the SigProp pass of plane p - 1 and with
 *    its MagRef pass too (zero bit-planes Mb - 1 - p, 1 to 3 passes in a cleanup and a
 *    refinement segment): every sample as t1.h section 3 predicts from the bits those passes
 *    code (the SigProp neighbourhood computed here independently of the encoder), reversible
 *    and irreversible;
 *  - tsr__j2k_ht_candidates: each candidate decoded, its squared error against real-valued
 *    magnitudes (irreversible) or the integers (reversible) equal to what the candidate
 *    list claims (to rounding), the last candidate lossless.
 *  - the CPU's cleanup encoder (tsr__ht_encode_block) at each of its build levels against
 *    ht_encode_hd.h's, the device's: the same bytes (or the same refusal);
 *  - the CPU's refinement encoder (tsr__ht_encode_refine) against ht_rd_hd.h's, the device's:
 *    every base plane 1 .. K + 1, SigProp alone and with MagRef, newsig and sp_len given or
 *    NULL, on the random blocks, on runs of 1 bits (stuffed bytes, a segment ending in 0xFF)
 *    and on 1x4096 (taller than T1 allows): the same return, the same buffer (poisoned alike,
 *    all cap bytes compared), SigProp length and new significances; caps below a segment's
 *    length refused by both.
 * The all-zero block codes nothing; blocks outside the limits are refused. */
#include "j2k/encode_stages.h"
#include "j2k/ht_encode.h"
#include "j2k/ht_encode_hd.h"
#include "j2k/ht_rd_hd.h"
#include "j2k/t1.h"
#include "j2k/t1_encode.h"
#include "j2k/t1_internal.h"
#include "testlib.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int32_t g_coef[4096], g_out[4096];
static uint8_t *g_buf;
static void *g_ws;
static size_t g_wss;

static void gen(tsr_rng *rng, uint32_t n, int K)
{
    const int kind = tsr_rng_range(rng, 0, 3);
    for (uint32_t i = 0; i < n; i++) {
        int32_t v = 0;
        const int r = tsr_rng_range(rng, 0, 99);
        const int keep = kind == 0 ? r < 3 : kind == 1 ? r < 30 : kind == 2 ? 1 : r < 70;
        if (keep) {
            const int bits = kind == 2 ? tsr_rng_range(rng, 0, K) : K;
            v = bits ? (int32_t)(tsr_rng_next(rng) & ((1ull << bits) - 1)) : 0;
            if (tsr_rng_range(rng, 0, 1))
                v = -v;
        }
        g_coef[i] = v;
    }
}

static int one(uint32_t w, uint32_t h, int K, int rev)
{
    const size_t cap = tsr__ht_encode_bound(w, h);
    const long len = tsr__ht_encode_block(g_coef, w, h, g_buf, cap);
    int any = 0;
    for (uint32_t i = 0; i < w * h; i++)
        any |= g_coef[i] != 0;
    if (!any)
        return len == 0;
    if (len < 2)
        return 0;
    const int mb = K + 1;
    tsr__t1_seg seg = {.data = g_buf, .len = (uint32_t)len, .npasses = 1};
    tsr__t1_block blk = {.w = w,
                         .h = h,
                         .orient = 0,
                         .style = TSR__T1_STYLE_HT,
                         .zero_bp = (uint8_t)(mb - 1),
                         .mb = (uint8_t)mb,
                         .roi_shift = 0,
                         .reversible = (uint8_t)rev,
                         .npasses = 1,
                         .nsegs = 1,
                         .segs = &seg};
    for (int simd = 0; simd < 2; simd++) {
        tsr__ht_set_simd(simd);
        memset(g_ws, 0xA5, g_wss);
        for (uint32_t i = 0; i < w * h; i++)
            g_out[i] = 0x55555555;
        unsigned warn = 0;
        const int rc = tsr__t1_decode(&blk, g_ws, g_wss, g_out, w, &warn);
        if (rc != TSR__T1_OK) {
            fprintf(stderr, "%ux%u K %d simd %d: decode rc %d warn %u\n", w, h, K, simd, rc, warn);
            return 0;
        }
        for (uint32_t i = 0; i < w * h; i++) {
            const int32_t m = g_coef[i] < 0 ? -g_coef[i] : g_coef[i];
            /* reversible: the integer; irreversible: 2 mu + 1 half steps (the bin's middle) */
            const int32_t want = rev ? g_coef[i]
                                 : m ? (g_coef[i] < 0 ? -(2 * m + 1) : 2 * m + 1)
                                     : 0;
            if (g_out[i] != want) {
                fprintf(stderr, "%ux%u K %d simd %d: sample %u is %d, not %d\n", w, h, K, simd, i,
                        g_out[i], want);
                return 0;
            }
        }
    }
    return 1;
}

/* Decodes one HT set of g_coef's block (cleanup segment cup, refinement segment ref of refp
 * passes) at base plane p with Mb = mb into g_out, by both cleanup decoders (the same
 * output asked of both); 0 on a decoder error or warning. */
/* tsr__ht_encode_block of g_coef at every build level gives tsr__ht_encode_cleanup's bytes. */
static int same_as_device(uint32_t w, uint32_t h)
{
    static uint8_t ref[sizeof g_coef * 2 + 8192], melb[4096], vlcb[4096];
    const size_t cap = tsr__ht_encode_bound(w, h);
    const long want =
        tsr__ht_encode_cleanup(g_coef, w, w, h, 0, ref, cap, tsr__ht_cw_tables(), melb, vlcb);
    int ok = 1;
    for (int level = 0; level <= 1; level++) {
        tsr__ht_enc_set_simd(level);
        const long len = tsr__ht_encode_block(g_coef, w, h, g_buf, cap);
        if (len != want || (len > 0 && memcmp(g_buf, ref, (size_t)len) != 0)) {
            fprintf(stderr, "%ux%u level %d: %ld bytes, the device's coder %ld%s\n", w, h, level,
                    len, want, len == want ? " (other bytes)" : "");
            ok = 0;
        }
        /* the same block amid other coefficients, rows w + 5 apart: the same bytes, and K */
        static int32_t wide[4096 + 5 * 4096];
        const size_t stride = (size_t)w + 5;
        for (size_t i = 0; i < stride * h; i++)
            wide[i] = (int32_t)(i * 2654435761u) >> 3;
        for (uint32_t y = 0; y < h; y++)
            memcpy(wide + y * stride, g_coef + (size_t)y * w, w * sizeof *g_coef);
        uint32_t planes = 99;
        const long lin = tsr__ht_encode_block_in(wide, stride, w, h, g_buf, cap, &planes);
        if (lin != want || (lin > 0 && memcmp(g_buf, ref, (size_t)lin) != 0) ||
            (int)planes != tsr__t1_bitplanes(g_coef, (size_t)w * h)) {
            fprintf(stderr, "%ux%u level %d, stride %zu: %ld bytes (%ld), %u planes (%d)\n", w, h,
                    level, stride, lin, want, planes, tsr__t1_bitplanes(g_coef, (size_t)w * h));
            ok = 0;
        }
    }
    tsr__ht_enc_set_simd(-1);
    return ok;
}

/* tsr__ht_encode_refine of g_coef's block (K planes) against ht_rd_hd.h's
 * tsr__ht_encode_refine_hd (the device's coder, the reference) at every base plane p from 1 to
 * K + 1, SigProp alone and with MagRef, with and without newsig and sp_len: the same return,
 * the same cap bytes of the buffer and w * h of newsig (both poisoned alike first, so a byte
 * one writes and the other does not shows), the same *sp_len; and caps below the segment's
 * length refused by both. */
static int same_refine_as_device(uint32_t w, uint32_t h, int K)
{
    static uint8_t fl[TSR__HT_REFINE_FLAGS], want[4096], want_ns[4096], got_ns[4096];
    const size_t cap = tsr__ht_refine_bound(w, h), n = (size_t)w * h;
    for (uint32_t p = 1; p <= (uint32_t)K + 1 && p <= 30; p++)
        for (int v = 0; v < 4; v++) {
            const int magref = v & 1, out = v >> 1; /* out: newsig and sp_len asked for */
            memset(want, 0xC5, cap);
            memset(g_buf, 0xC5, cap);
            memset(want_ns, 0x3A, n);
            memset(got_ns, 0x3A, n);
            size_t want_sp = 99999, got_sp = 99999;
            const long lw = tsr__ht_encode_refine_hd(g_coef, w, w, h, p, magref, want, cap,
                                                     out ? want_ns : NULL, &want_sp, fl);
            const long lg = tsr__ht_encode_refine(g_coef, w, h, p, magref, g_buf, cap,
                                                  out ? got_ns : NULL, out ? &got_sp : NULL);
            if (lg != lw || lw < 0 || memcmp(g_buf, want, cap) || memcmp(got_ns, want_ns, n) ||
                (out && got_sp != want_sp)) {
                fprintf(stderr,
                        "%ux%u K %d p %u magref %d out %d: refine %ld bytes (SigProp %zu), the "
                        "device's %ld (%zu)%s\n",
                        w, h, K, p, magref, out, lg, got_sp, lw, want_sp,
                        lg == lw ? ": other bytes or significances" : "");
                return 0;
            }
            for (long c = lw - 1; magref && out && c >= 0 && c >= lw - 3; c--)
                if (tsr__ht_encode_refine_hd(g_coef, w, w, h, p, 1, want, (size_t)c, NULL, &want_sp,
                                             fl) != -1 ||
                    tsr__ht_encode_refine(g_coef, w, h, p, 1, g_buf, (size_t)c, NULL, NULL) != -1) {
                    fprintf(stderr, "%ux%u p %u: cap %ld below %ld bytes not refused\n", w, h, p, c,
                            lw);
                    return 0;
                }
        }
    return 1;
}

static int decode_set(uint32_t w, uint32_t h, int mb, int rev, uint32_t p, const uint8_t *cup,
                      uint32_t lcup, const uint8_t *ref, uint32_t lref, uint32_t refp)
{
    tsr__t1_seg segs[2] = {{cup, lcup, 1}, {ref, lref, refp}};
    tsr__t1_block blk = {.w = w,
                         .h = h,
                         .orient = 0,
                         .style = TSR__T1_STYLE_HT,
                         .zero_bp = (uint8_t)(mb - 1 - (int)p),
                         .mb = (uint8_t)mb,
                         .roi_shift = 0,
                         .reversible = (uint8_t)rev,
                         .npasses = 1 + refp,
                         .nsegs = refp ? 2 : 1,
                         .segs = segs};
    static int32_t first[4096];
    for (int simd = 0; simd < 2; simd++) {
        tsr__ht_set_simd(simd);
        memset(g_ws, 0xA5, g_wss);
        for (uint32_t i = 0; i < w * h; i++)
            g_out[i] = 0x55555555;
        unsigned warn = 0;
        const int rc = tsr__t1_decode(&blk, g_ws, g_wss, g_out, w, &warn);
        if (rc != TSR__T1_OK) {
            fprintf(stderr, "%ux%u p %u refp %u simd %d: decode rc %d warn %u\n", w, h, p, refp,
                    simd, rc, warn);
            return 0;
        }
        if (simd == 0)
            memcpy(first, g_out, w * h * sizeof *g_out);
        else if (memcmp(first, g_out, w * h * sizeof *g_out)) {
            fprintf(stderr, "%ux%u p %u: scalar and AVX2 decoders differ\n", w, h, p);
            return 0;
        }
    }
    return 1;
}

static uint32_t mag_of(int32_t v)
{
    return v < 0 ? (uint32_t)-v : (uint32_t)v;
}

/* The decoder's output (t1.h section 3) for a magnitude with known bits Q (!= 0) down to plane
 * lp: reversible the integer with r = 1/2 below plane 0, irreversible half steps. */
static int32_t predict(uint32_t Q, uint32_t lp, int neg, int rev)
{
    const uint32_t m = rev ? Q + (lp ? 1u << (lp - 1) : 0) : 2 * Q + (1u << lp);
    return neg ? -(int32_t)m : (int32_t)m;
}

/* Every base plane p of g_coef's block (K planes), each with 1, 2 and 3 passes: the decoded
 * samples as predicted. SigProp's coded samples follow 7.4's rule, computed here. */
static int planes(uint32_t w, uint32_t h, int K, int rev)
{
    const int mb = K + 1;
    static int32_t sh[4096];
    static uint8_t sig[4096], nw[4096];
    uint8_t *ref = g_buf + tsr__ht_encode_bound(w, h);
    for (int p = K - 1; p >= 0; p--) {
        int any = 0;
        for (uint32_t i = 0; i < w * h; i++) {
            const uint32_t m = mag_of(g_coef[i]) >> p;
            sh[i] = g_coef[i] < 0 ? -(int32_t)m : (int32_t)m;
            sig[i] = m != 0;
            any |= m != 0;
        }
        const long lcup = tsr__ht_encode_block(sh, w, h, g_buf, tsr__ht_encode_bound(w, h));
        if (!any)
            continue; /* nothing at this plane (K is an upper bound): no set to decode */
        if (lcup < 2)
            return 0;
        /* SigProp's newly significant samples (7.4): stripes of 4 rows, columns in groups of
         * 4, a sample insignificant at p with a neighbour significant at p or made
         * significant earlier in this scan */
        memset(nw, 0, w * h);
        if (p > 0)
            for (uint32_t y0 = 0; y0 < h; y0 += 4)
                for (uint32_t x0 = 0; x0 < w; x0 += 4)
                    for (uint32_t x = x0; x < x0 + 4 && x < w; x++)
                        for (uint32_t y = y0; y < y0 + 4 && y < h; y++) {
                            const size_t i = (size_t)y * w + x;
                            if (sig[i])
                                continue;
                            int nb = 0;
                            for (int dy = -1; dy <= 1; dy++)
                                for (int dx = -1; dx <= 1; dx++) {
                                    const int64_t xx = (int64_t)x + dx, yy = (int64_t)y + dy;
                                    if ((dx || dy) && xx >= 0 && yy >= 0 && xx < w && yy < h)
                                        nb |= sig[yy * w + xx] | nw[yy * w + xx];
                                }
                            nw[i] = nb && ((mag_of(g_coef[i]) >> (p - 1)) & 1);
                        }
        size_t sp_alone = 0; /* SigProp's segment by itself (refp 1), against *sp_len (2) */
        static uint8_t sp_bytes[4096];
        for (uint32_t refp = 0; refp <= (p > 0 ? 2u : 0u); refp++) {
            long lref = 0;
            static uint8_t enc_nw[4096];
            if (refp) {
                size_t sp_len = 99999;
                lref = tsr__ht_encode_refine(g_coef, w, h, (uint32_t)p, refp == 2, ref,
                                             tsr__ht_refine_bound(w, h), enc_nw, &sp_len);
                if (lref < 0 || memcmp(enc_nw, nw, w * h) ||
                    (refp == 1 && sp_len != (size_t)lref) ||
                    (refp == 2 && (sp_len != sp_alone || memcmp(ref, sp_bytes, sp_len)))) {
                    fprintf(stderr,
                            "%ux%u p %d: refine rc %ld, its significance or SigProp's bytes "
                            "differ\n",
                            w, h, p, lref);
                    return 0;
                }
                if (refp == 1) {
                    sp_alone = sp_len;
                    memcpy(sp_bytes, ref, sp_len);
                }
            }
            if (!decode_set(w, h, mb, rev, (uint32_t)p, g_buf, (uint32_t)lcup, ref, (uint32_t)lref,
                            lref ? refp : 0))
                return 0;
            for (uint32_t i = 0; i < w * h; i++) {
                const uint32_t q = mag_of(g_coef[i]);
                const int neg = g_coef[i] < 0;
                int32_t want = 0;
                if (sig[i] && refp == 2 && lref)
                    want = predict((q >> (p - 1)) << (p - 1), (uint32_t)p - 1, neg, rev);
                else if (sig[i])
                    want = predict((q >> p) << p, (uint32_t)p, neg, rev);
                else if (nw[i] && lref)
                    want = predict(1u << (p - 1), (uint32_t)p - 1, neg, rev);
                if (g_out[i] != want) {
                    fprintf(stderr, "%ux%u K %d p %d refp %u rev %d: sample %u is %d, not %d\n", w,
                            h, K, p, refp, rev, i, g_out[i], want);
                    return 0;
                }
            }
        }
    }
    return 1;
}

/* tsr__j2k_ht_candidates on g_coef (from real magnitudes mag, or reversible): each candidate
 * decoded; its error as claimed. */
static int candidates(tsr_ctx *ctx, uint32_t w, uint32_t h, int K, int rev, const float *mag)
{
    static uint8_t scratch[32768];
    tsr__j2k_ht_set sets[TSR__J2K_HT_MAX_SETS];
    uint32_t rate[TSR__J2K_HT_MAX_SETS];
    double dist[TSR__J2K_HT_MAX_SETS], err0 = -1;
    tsr__j2k_bytes out;
    tsr__j2k_bytes_init(&out, ctx);
    const uint32_t ns = tsr__j2k_ht_candidates(g_coef, rev ? NULL : mag, w, h, (uint32_t)K, scratch,
                                               &out, sets, rate, dist, &err0);
    int ok = ns >= 1 && ns <= 3u * (uint32_t)K - 2;
    double err = err0;
    for (uint32_t c = 0; c < ns && ok; c++) {
        const tsr__j2k_ht_set *st = &sets[c];
        ok = rate[c] == st->lcup + st->lref && st->npasses >= 1 && st->npasses <= 3 &&
             (st->npasses == 1) == (st->lref == 0) && st->off + st->lcup <= out.len &&
             st->ref + st->lref <= out.len && (c == 0 || st->plane <= sets[c - 1].plane) &&
             decode_set(w, h, K + 1, rev, st->plane, out.p + st->off, st->lcup, out.p + st->ref,
                        st->lref, st->npasses - 1u);
        if (!ok) {
            fprintf(stderr, "%ux%u: candidate %u of %u malformed or undecodable\n", w, h, c, ns);
            break;
        }
        double e = 0;
        for (uint32_t i = 0; i < w * h; i++) {
            const double a = rev ? fabs((double)g_coef[i]) : (double)mag[i],
                         r = fabs((double)g_out[i]) / (rev ? 1.0 : 2.0);
            e += (a - r) * (a - r);
        }
        err -= dist[c];
        if (fabs(e - err) > 1e-6 * (err0 + 1)) {
            fprintf(stderr,
                    "%ux%u K %d rev %d candidate %u (p %u, %u passes): error %g, claimed %g\n", w,
                    h, K, rev, c, st->plane, st->npasses, e, err);
            ok = 0;
        }
    }
    if (ok && ns) { /* the last one: plane 0 (exact when reversible) */
        ok = sets[ns - 1].plane == 0 && (!rev || err < 1e-9);
        if (!ok)
            fprintf(stderr, "%ux%u: last candidate not lossless\n", w, h);
    }
    tsr__j2k_bytes_free(&out);
    return ok;
}

int main(void)
{
    tsr_rng rng;
    tsr_rng_seed(&rng, 0x4854454E43ull);
    g_wss = tsr__t1_workspace_size();
    g_ws = malloc(g_wss);
    g_buf = malloc(tsr__ht_encode_bound(1024, 4) + tsr__ht_refine_bound(1024, 4));
    if (!g_ws || !g_buf)
        return 1;
    static const uint32_t sizes[][2] = {
        {1, 1},    {1, 2},   {2, 1},   {3, 3},   {4, 4},   {5, 7},    {17, 3},   {8, 8},
        {16, 16},  {32, 32}, {64, 64}, {33, 64}, {64, 63}, {1024, 4}, {4, 1024}, {257, 5},
        {1023, 3}, {2, 64},  {1, 37},  {37, 1},  {3, 17},  {16, 256}, {1, 1024}, {1024, 1}};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (int t = 0; t < 24; t++) {
            const uint32_t w = sizes[s][0], h = sizes[s][1];
            if ((size_t)w * h > 4096)
                continue;
            const int K = t < 4    ? 1
                          : t < 16 ? tsr_rng_range(&rng, 1, 18)
                                   : tsr_rng_range(&rng, 1, 29);
            gen(&rng, w * h, K);
            CHECK(same_as_device(w, h));
            CHECK(same_refine_as_device(w, h, K));
            CHECK(one(w, h, K, t & 1));
            if (K <= 16 && t % 3 == 0)
                CHECK(planes(w, h, K, t & 1));
        }
    for (int t = 0; t < 3000; t++) { /* the CPU's coder on random shapes and magnitudes */
        const uint32_t w = (uint32_t)tsr_rng_range(&rng, 1, t % 4 ? 64 : 1024);
        const uint32_t h =
            (uint32_t)tsr_rng_range(&rng, 1, (int)(4096 / w < 64 || t % 4 == 0 ? 4096 / w : 64));
        const int K = tsr_rng_range(&rng, 1, t % 8 ? 14 : 29);
        gen(&rng, w * h, K);
        CHECK(same_as_device(w, h));
        if (t % 8 == 0)
            CHECK(same_refine_as_device(w, h, K));
    }
    /* runs of 1 bits, where the writers stuff (0xFF, low 7 bits all 1) and a segment may end
     * in a full 0xFF: magnitudes 2^K - 1 (MagRef's bits all 1 below K), or all -2^(K - 1) but
     * one 2^K (at p = K, SigProp's bits and signs all 1), one 0 more each pass */
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (int t = 0; t < 8; t++) {
            const uint32_t w = sizes[s][0], h = sizes[s][1], n = w * h;
            const int K = tsr_rng_range(&rng, 1, 29);
            for (uint32_t i = 0; i < n; i++)
                g_coef[i] = t & 1 ? -(int32_t)(1u << (K - 1)) : (int32_t)((1u << K) - 1);
            g_coef[(uint32_t)tsr_rng_range(&rng, 0, (int)n - 1)] = (int32_t)(1u << K);
            for (int z = 0; z < t / 2; z++)
                g_coef[(uint32_t)tsr_rng_range(&rng, 0, (int)n - 1)] = 0;
            CHECK(same_refine_as_device(w, h, K));
        }
    for (int t = 0; t < 8; t++) { /* the refinement coder's tallest block (taller than T1's) */
        const int K = tsr_rng_range(&rng, 1, 29);
        gen(&rng, 4096, K);
        CHECK(same_refine_as_device(1, 4096, K));
    }
    /* candidates: real magnitudes m + frac (irreversible) or the integers (reversible) */
    tsr_ctx *ctx = NULL;
    CHECK(tsr_ctx_create(NULL, &ctx) == TSR_OK);
    static float mag[4096];
    for (size_t s = 0; ctx && s < sizeof sizes / sizeof sizes[0]; s++)
        for (int t = 0; t < 6; t++) {
            const uint32_t w = sizes[s][0], h = sizes[s][1];
            if ((size_t)w * h > 4096)
                continue;
            const int K = tsr_rng_range(&rng, 1, 12);
            int any = 0;
            do {
                gen(&rng, w * h, K);
                for (uint32_t i = 0; i < w * h; i++)
                    any |= g_coef[i] != 0;
            } while (!any);
            int Kr = 0; /* the planes actually used */
            for (uint32_t i = 0; i < w * h; i++)
                while (mag_of(g_coef[i]) >> Kr)
                    Kr++;
            for (uint32_t i = 0; i < w * h; i++)
                mag[i] = (float)mag_of(g_coef[i]) + (float)tsr_rng_range(&rng, 0, 999) / 1000.0f;
            CHECK(candidates(ctx, w, h, Kr, t & 1, mag));
        }
    tsr_ctx_destroy(ctx);
    memset(g_coef, 0, sizeof g_coef);
    CHECK(tsr__ht_encode_block(g_coef, 64, 64, g_buf, tsr__ht_encode_bound(64, 64)) == 0);
    CHECK(tsr__ht_encode_block(g_coef, 2048, 2, g_buf, tsr__ht_encode_bound(2048, 2)) == -1);
    CHECK(tsr__ht_encode_refine(g_coef, 64, 64, 1, 1, g_buf, tsr__ht_refine_bound(64, 64), NULL,
                                NULL) == 0); /* nothing significant: no bits */
    CHECK(tsr__ht_encode_refine(g_coef, 64, 64, 0, 1, g_buf, tsr__ht_refine_bound(64, 64), NULL,
                                NULL) == -1);
    CHECK(tsr__ht_encode_refine(g_coef, 64, 64, 1, 1, g_buf, tsr__ht_refine_bound(64, 64) - 1, NULL,
                                NULL) == -1);
    CHECK(tsr__ht_encode_refine(g_coef, 2048, 2, 1, 1, g_buf, tsr__ht_refine_bound(2048, 2), NULL,
                                NULL) == -1);
    free(g_ws);
    free(g_buf);
    return tsr_test_finish("test_j2k_ht_encode");
}
