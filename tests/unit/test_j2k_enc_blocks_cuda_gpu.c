/* The CUDA encoder's tile stages (j2k/encode_cuda.h) block by block against the CPU's coders, so
 * that a stream difference in test_j2k_encode_cuda_gpu can be traced to its code-block and
 * field: random RGB(A) tiles (8 and 16 bits, odd sizes, 1-5 levels, blocks of 64x64, 32x16,
 * 1024x4, 4x1024 and 128x32) through tsr__j2k_enc_cuda_transform and tsr__j2k_enc_cuda_blocks
 * on a device image, against the host's samples and DWT (tsr__j2k_level_shift1,
 * tsr__mct_*_forward, tsr__fdwt53/97), the quantisation (tsr__j2k_quantise1) and the block
 * coders (tsr__ht_encode_block, tsr__j2k_ht_candidates, tsr__t1_encode_block) for HT and
 * Part 1, reversible and irreversible, with and without rate control. Every block's K, length,
 * bytes, truncation points (sets, rates, distortions bit for bit) and error must be equal; the
 * first difference is printed with its component, sub-band, block and field, every block of a
 * case checked (the first few differences printed, then their count). An HT cleanup segment
 * that differs is also decoded by the CPU's decoder, which says whether the device coded the
 * host's coefficients (a coder difference) or others (the device's DWT or quantisation). Skips
 * (77) without a CUDA device; TSR_TEST_QUICK: the small tiles only. */
#include "testlib.h"

#include "cuda/cuda_device.h"
#include "j2k/encode_cuda.h"
#include "j2k/encode_stages.h"
#include "j2k/fxform_hd.h"
#include "j2k/ht_encode.h"
#include "j2k/t1.h"
#include "j2k/t1_encode.h"

#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int quick;

/* The host's coefficients of tile t of the interleaved image px (w x h, nc channels, prec bits)
 * into planes[c] (w x h each), as encode.c's transform_tile computes them. */
static void host_coefficients(tsr__j2k_tile *t, const uint8_t *px, int w, int h, int nc, int wide,
                              int rev, int32_t **planes)
{
    const uint32_t prec = wide ? 16 : 8;
    const size_t n = (size_t)w * h;
    for (int c = 0; c < nc; c++)
        for (size_t i = 0; i < n; i++) {
            const uint32_t v =
                wide ? ((const uint16_t *)(const void *)px)[i * nc + c] : px[i * nc + c];
            int32_t s = tsr__j2k_level_shift1(v, prec);
            if (!rev) {
                const float f = (float)s;
                memcpy(&s, &f, sizeof s);
            }
            planes[c][i] = s;
        }
    if (nc >= 3 && rev)
        tsr__mct_rct_forward(planes[0], planes[1], planes[2], n);
    else if (nc >= 3)
        tsr__mct_ict_forward((float *)(void *)planes[0], (float *)(void *)planes[1],
                             (float *)(void *)planes[2], n);
    const size_t line = (size_t)(w > h ? w : h);
    int32_t *tmp = malloc(line * sizeof *tmp);
    for (int c = 0; c < nc && tmp; c++) {
        tsr__j2k_tilecomp *tc = &t->comps[c];
        tc->data = planes[c];
        tc->stride = (size_t)w;
        if (rev)
            tsr__fdwt53(tc, tmp, line, 1);
        else
            tsr__fdwt97(tc, (float *)(void *)tmp, line, 1);
        tc->data = NULL;
    }
    free(tmp);
}

/* What the device's HT cleanup segment seg (len bytes) of the w x h block coef (K bit-planes)
 * holds, by the CPU's decoder (reversible, base plane 0: the magnitudes exactly): whether it
 * decodes, and to the host's coefficients or to others (the first that differs). Prints the host's
 * segment cpu (clen bytes) and the device's in hex after it. */
static void explain_ht(const uint8_t *seg, uint32_t len, const uint8_t *cpu, long clen,
                       const int32_t *coef, uint32_t w, uint32_t h, int K)
{
    static int32_t dec[4096];
    static void *ws;
    static size_t wss;
    if (!ws) {
        wss = tsr__t1_workspace_size();
        ws = malloc(wss);
        if (!ws)
            return;
    }
    tsr__t1_seg sg = {seg, len, 1};
    tsr__t1_block blk = {.w = w,
                         .h = h,
                         .orient = 0,
                         .style = TSR__T1_STYLE_HT,
                         .zero_bp = (uint8_t)K,
                         .mb = (uint8_t)(K + 1),
                         .roi_shift = 0,
                         .reversible = 1,
                         .npasses = 1,
                         .nsegs = 1,
                         .segs = &sg};
    memset(ws, 0xA5, wss);
    unsigned warn = 0;
    const int rc = tsr__t1_decode(&blk, ws, wss, dec, w, &warn);
    uint32_t ndiff = 0, first = 0;
    for (uint32_t i = 0; i < w * h; i++)
        if (dec[i] != coef[i] && !ndiff++)
            first = i;
    if (rc != TSR__T1_OK)
        printf("  the device's segment does not decode on the cpu (rc %d, warnings %u)\n", rc,
               warn);
    else if (ndiff)
        printf("  the device's segment decodes to other coefficients: %u of %u differ, the first "
               "at (%u, %u): host %d, device %d (its input or its coder)\n",
               ndiff, w * h, first % w, first / w, coef[first], dec[first]);
    else
        printf("  the device's segment decodes to the host's coefficients (a coder difference "
               "that still decodes)\n");
    printf("  cpu  ");
    for (long i = 0; i < clen; i++)
        printf("%02x", cpu[i]);
    printf("\n  cuda ");
    for (uint32_t i = 0; i < len; i++)
        printf("%02x", seg[i]);
    printf("\n");
}

/* One block's CPU result against the device's; 0 on a difference, noted unless quiet. */
static int check_block(const char *what, uint32_t j, const tsr__j2k_enc_cuda_block *b,
                       const int32_t *plane, uint32_t stride, int ht, int track,
                       const tsr__j2k_bytes *out, tsr_ctx *ctx, int quiet)
{
    static int32_t coef[4096];
    static float mag[4096];
    static uint8_t buf[1 << 20];
    static tsr__t1_enc enc; /* zeroed once, reused (t1_encode.h) */
    const float inv = b->delta > 0 ? 1.0f / b->delta : 0.0f;
    double floor_err = 0;
    for (uint32_t y = 0; y < b->h; y++)
        for (uint32_t x = 0; x < b->w; x++) {
            const int32_t v = plane[b->at + (size_t)y * stride + x];
            const size_t i = (size_t)y * b->w + x;
            if (b->delta > 0) {
                float f, q;
                memcpy(&f, &v, sizeof f);
                coef[i] = tsr__j2k_quantise1(f, inv, &q);
                mag[i] = q;
                const int32_t m = coef[i] < 0 ? -coef[i] : coef[i];
                const double e = m ? (double)q - m - 0.5 : (double)q;
                floor_err += e * e;
            } else {
                coef[i] = v;
            }
        }
    const int K = tsr__t1_bitplanes(coef, (size_t)b->w * b->h);
    const uint8_t *got = out->p + b->off;
#define NOTE(...) (quiet ? (void)0 : (void)printf(__VA_ARGS__))
#define DIFF(field, fmt, cpu, cuda)                                                                \
    do {                                                                                           \
        if (!quiet)                                                                                \
            printf("FAIL %s: block %u (%ux%u, orient %u, comp %u at %zu): %s cpu " fmt             \
                   " cuda " fmt "\n",                                                              \
                   what, j, b->w, b->h, b->orient, b->comp, b->at, field, cpu, cuda);              \
        return 0;                                                                                  \
    } while (0)
    if (K != b->K)
        DIFF("K", "%d", K, (int)b->K);
    if (K == 0) {
        if (b->len)
            DIFF("length of an empty block", "%u", 0u, b->len);
        return 1;
    }
    if (ht && !track) {
        const long len = tsr__ht_encode_block(coef, b->w, b->h, buf, sizeof buf);
        int same = len == (long)b->len;
        for (long i = 0; same && i < len; i++)
            same = buf[i] == got[i];
        if (same)
            return 1;
        if (!quiet)
            explain_ht(got, b->len, buf, len, coef, b->w, b->h, K);
        if (len != (long)b->len)
            DIFF("cleanup length", "%ld", len, (long)b->len);
        for (long i = 0; i < len; i++)
            if (buf[i] != got[i])
                DIFF("cleanup byte", "0x%02x", buf[i], got[i]);
        return 1;
    }
    if (ht) {
        static uint8_t scratch[TSR__J2K_HT_RD_SCRATCH];
        tsr__j2k_ht_set sets[TSR__J2K_HT_MAX_SETS];
        uint32_t rate[TSR__J2K_HT_MAX_SETS];
        double dist[TSR__J2K_HT_MAX_SETS], err0 = 0;
        tsr__j2k_bytes ref;
        tsr__j2k_bytes_init(&ref, ctx);
        const uint32_t ns =
            tsr__j2k_ht_candidates(coef, b->delta > 0 ? mag : NULL, b->w, b->h, (uint32_t)K,
                                   scratch, &ref, sets, rate, dist, &err0);
        int ok = 1;
        if (ns != b->np)
            NOTE("FAIL %s: block %u: %u candidates on the cpu, %u on cuda\n", what, j, ns, b->np),
                ok = 0;
        else if (ref.len != b->len)
            NOTE("FAIL %s: block %u: candidates' bytes cpu %zu cuda %u\n", what, j, ref.len,
                 b->len),
                ok = 0;
        for (size_t i = 0; ok && i < ref.len; i++)
            if (ref.p[i] != got[i])
                NOTE("FAIL %s: block %u: candidates' byte %zu cpu 0x%02x cuda 0x%02x\n", what, j, i,
                     ref.p[i], got[i]),
                    ok = 0;
        for (uint32_t k = 0; ok && k < ns; k++) {
            const tsr__j2k_ht_set *a = &sets[k], *d = &b->sets[k];
            if (a->off != d->off || a->ref != d->ref || a->lcup != d->lcup || a->lref != d->lref ||
                a->plane != d->plane || a->npasses != d->npasses || rate[k] != b->rate[k] ||
                memcmp(&dist[k], &b->dist[k], sizeof dist[k]))
                NOTE("FAIL %s: block %u: candidate %u differs (cpu plane %u passes %u lcup %u "
                     "lref %u rate %u dist %.17g; cuda %u %u %u %u %u %.17g)\n",
                     what, j, k, a->plane, a->npasses, a->lcup, a->lref, rate[k], dist[k], d->plane,
                     d->npasses, d->lcup, d->lref, b->rate[k], b->dist[k]),
                    ok = 0;
        }
        if (ok && memcmp(&err0, &b->err0, sizeof err0))
            NOTE("FAIL %s: block %u: err0 cpu %.17g cuda %.17g\n", what, j, err0, b->err0), ok = 0;
        tsr__j2k_bytes_free(&ref);
        return ok;
    }
    enc.w = (int)b->w;
    enc.h = (int)b->h;
    enc.orient = (int)b->orient;
    enc.style = 0;
    enc.K = K;
    enc.coef = coef;
    enc.buf = buf;
    enc.cap = sizeof buf;
    enc.track = track;
    enc.exact = b->delta == 0;
    const int np = tsr__t1_encode_block(&enc);
    if (enc.overflow || enc.nsegs != 1)
        DIFF("cpu coder", "%d", enc.nsegs, 1);
    if (enc.segs[0].len != b->len)
        DIFF("segment length", "%u", enc.segs[0].len, b->len);
    for (uint32_t i = 0; i < b->len; i++)
        if (enc.segs[0].data[i] != got[i])
            DIFF("segment byte", "0x%02x", enc.segs[0].data[i], got[i]);
    if (!track)
        return 1;
    if ((uint32_t)np != b->np)
        DIFF("passes", "%d", np, (int)b->np);
    for (int p = 0; p < np; p++)
        if (enc.pass_rate[p] != b->rate[p] ||
            memcmp(&enc.pass_dist[p], &b->dist[p], sizeof(double)))
            DIFF("a pass's rate or distortion", "%.17g", enc.pass_dist[p], b->dist[p]);
    if (b->delta > 0 && memcmp(&floor_err, &b->err0, sizeof floor_err))
        DIFF("floor error", "%.17g", floor_err, b->err0);
    return 1;
#undef DIFF
#undef NOTE
}

static int run_case(tsr_ctx *ctx, tsr_rng *rng, int w, int h, int nc, int wide, int ht, int rev,
                    int track, uint32_t levels, uint32_t cbw, uint32_t cbh)
{
    char what[160];
    snprintf(what, sizeof what, "%s %s%s, %dx%d x %d of %d bits, %u levels, blocks %ux%u",
             ht ? "HT" : "Part 1", rev ? "reversible" : "irreversible", track ? " with rates" : "",
             w, h, nc, wide ? 16 : 8, levels, cbw, cbh);
    const uint32_t prec = wide ? 16 : 8;
    tsr__j2k_comp comps[4];
    tsr__j2k_tccp tccps[4];
    memset(comps, 0, sizeof comps);
    memset(tccps, 0, sizeof tccps);
    for (int c = 0; c < nc; c++) {
        comps[c].dx = comps[c].dy = 1;
        comps[c].prec = (uint8_t)prec;
        tsr__j2k_tccp *tc = &tccps[c];
        tc->numres = (uint8_t)(levels + 1);
        tc->xcb = (uint8_t)tsr__floorlog2(cbw);
        tc->ycb = (uint8_t)tsr__floorlog2(cbh);
        memset(tc->prcw, 15, sizeof tc->prcw);
        memset(tc->prch, 15, sizeof tc->prch);
        tc->qmfbid = (uint8_t)rev;
        tc->qntsty = rev ? 0 : 2;
        tc->numgbits = 2;
        tc->nsteps = (uint8_t)(3 * levels + 1);
        tc->cblksty = ht ? 0x40 : 0;
        for (uint32_t i = 0; i < tc->nsteps; i++) { /* 9/7: steps of 1/8 (E.1.1.1) */
            const uint32_t orient = i == 0 ? 0 : 1 + (i - 1) % 3;
            const uint32_t gain = orient == 0 ? 0 : orient == 3 ? 2 : 1;
            tc->steps[i].expn = (uint16_t)(prec + gain + (rev ? 0 : 3));
        }
    }
    tsr__j2k_cs cs;
    memset(&cs, 0, sizeof cs);
    cs.x1 = cs.tw = (uint32_t)w;
    cs.y1 = cs.th = (uint32_t)h;
    cs.ntx = cs.nty = cs.ntiles = 1;
    cs.ncomps = (uint32_t)nc;
    cs.comps = comps;
    cs.rsiz = ht ? 0x4000 : 0;
    tsr__j2k_tcp tcp;
    memset(&tcp, 0, sizeof tcp);
    tcp.numlayers = 1;
    tcp.mct = nc >= 3;
    tcp.tccps = tccps;
    const tsr__j2k_window win = {0, 0, (uint32_t)w, (uint32_t)h};
    tsr__j2k_tile t;
    if (tsr__tcd_init(ctx, &cs, &tcp, 0, 0, NULL, &win, &t) != TSR_OK) {
        printf("FAIL %s: tsr__tcd_init: %s\n", what, tsr_ctx_last_error(ctx));
        return 0;
    }
    const size_t pixel = (size_t)nc * (wide ? 2 : 1), bytes = pixel * w * h;
    uint8_t *px = malloc(bytes);
    int32_t *planes[4] = {NULL, NULL, NULL, NULL};
    void *dpx = NULL;
    int ok = px != NULL && cudaMalloc(&dpx, bytes) == cudaSuccess;
    for (int c = 0; c < nc && ok; c++)
        ok = (planes[c] = malloc((size_t)w * h * sizeof(int32_t))) != NULL;
    tsr__j2k_enc_cuda_block *blocks = ok ? calloc(t.ncblks, sizeof *blocks) : NULL;
    ok = ok && blocks;
    tsr__j2k_bytes out;
    tsr__j2k_bytes_init(&out, ctx);
    if (ok) {
        for (int y = 0; y < h; y++) /* smooth content and noise, every plane coded */
            for (int x = 0; x < w * nc; x++) {
                const uint32_t v = (uint32_t)(x * 5 + y * 3) + (uint32_t)tsr_rng_range(rng, 0, 60);
                if (wide)
                    ((uint16_t *)(void *)px)[(size_t)y * w * nc + x] = (uint16_t)(v * 233);
                else
                    px[(size_t)y * w * nc + x] = (uint8_t)v;
            }
        host_coefficients(&t, px, w, h, nc, wide, rev, planes);
        ok = cudaMemcpy(dpx, px, bytes, cudaMemcpyHostToDevice) == cudaSuccess;
    }
    uint32_t n = 0;
    for (int c = 0; ok && c < nc; c++) { /* the blocks, as encode.c's list_jobs lays them */
        const tsr__j2k_tilecomp *tc = &t.comps[c];
        for (uint32_t r = 0; r < tc->numres; r++)
            for (uint32_t bi = 0; bi < tc->res[r].nbands; bi++) {
                const tsr__j2k_band *band = &tc->res[r].bands[bi];
                size_t bx = 0, by = 0;
                if (r > 0) {
                    if (band->orient & 1)
                        bx = tc->res[r - 1].x1 - tc->res[r - 1].x0;
                    if (band->orient & 2)
                        by = tc->res[r - 1].y1 - tc->res[r - 1].y0;
                }
                for (uint32_t k = 0; k < band->ncblks; k++) {
                    const tsr__j2k_cblk *cb = &band->cblks[k];
                    tsr__j2k_enc_cuda_block *b = &blocks[n++];
                    b->at = (by + cb->y0 - band->y0) * (size_t)w + bx + cb->x0 - band->x0;
                    b->comp = (uint32_t)c;
                    b->w = cb->x1 - cb->x0;
                    b->h = cb->y1 - cb->y0;
                    b->orient = band->orient;
                    b->delta = rev ? 0.0f : band->delta;
                }
            }
    }
    if (ok) {
        tsr_image dimg;
        memset(&dimg, 0, sizeof dimg);
        dimg.data = dpx;
        dimg.width = w;
        dimg.height = h;
        dimg.channels = nc;
        dimg.depth = wide ? TSR_U16 : TSR_U8;
        dimg.stride = pixel * w;
        dimg.memory = TSR_MEMORY_CUDA;
        tsr_status st = tsr__j2k_enc_cuda_begin(ctx, &dimg, 0, 0);
        if (!st)
            st = tsr__j2k_enc_cuda_transform(ctx, &t, prec, nc >= 3, rev);
        if (!st)
            st = tsr__j2k_enc_cuda_blocks(ctx, &t, blocks, n, ht, 0, track, &out);
        if (st != TSR_OK) {
            printf("FAIL %s: the device stages: %s\n", what, tsr_ctx_last_error(ctx));
            ok = 0;
        }
    }
    uint32_t nbad = 0; /* every block checked, the first 4 differences printed */
    for (uint32_t j = 0; ok && j < n; j++)
        nbad += !check_block(what, j, &blocks[j], planes[blocks[j].comp], (uint32_t)w, ht, track,
                             &out, ctx, nbad >= 4);
    if (ok && nbad)
        printf("FAIL %s: %u of %u blocks differ\n", what, nbad, n);
    ok = ok && !nbad;
    if (ok)
        printf("ok %s: %u blocks\n", what, n);
    tsr__j2k_bytes_free(&out);
    free(blocks);
    for (int c = 0; c < 4; c++)
        free(planes[c]);
    free(px);
    cudaFree(dpx);
    tsr__tcd_free(ctx, &t);
    return ok;
}

int main(void)
{
    if (tsr__cuda_device_count() < 1) {
        printf("test_j2k_enc_blocks_cuda_gpu: no CUDA device; skipping\n");
        return TSR_TEST_SKIP;
    }
    quick = tsr_test_quick();
    tsr_ctx_options opt;
    tsr_ctx_options_init(&opt);
    opt.backend = TSR_BACKEND_CUDA;
    tsr_ctx *ctx = NULL;
    CHECK(tsr_ctx_create(&opt, &ctx) == TSR_OK);
    if (!ctx)
        return tsr_test_finish("test_j2k_enc_blocks_cuda_gpu");
    tsr_rng rng;
    tsr_rng_seed(&rng, 2627);
    static const int sizes[][7] = {/* w, h, channels, 16-bit, levels, block width, height */
                                   {61, 37, 3, 0, 3, 64, 64},
                                   {17, 3, 1, 1, 1, 32, 16},
                                   {130, 71, 4, 1, 5, 32, 16},
                                   {515, 263, 3, 0, 5, 64, 64},
                                   /* the warp coder's rows of many chunks and of one lane */
                                   {2100, 24, 3, 0, 1, 1024, 4},
                                   {37, 1500, 1, 1, 2, 4, 1024},
                                   {300, 200, 3, 1, 4, 128, 32}};
    int bad = 0, cases = 0;
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        if (quick && sizes[s][0] * sizes[s][1] > 100000)
            continue;
        for (int ht = 0; ht < 2; ht++)
            for (int rev = 0; rev < 2; rev++)
                for (int track = 0; track < 2; track++) {
                    cases++;
                    if (!run_case(ctx, &rng, sizes[s][0], sizes[s][1], sizes[s][2], sizes[s][3], ht,
                                  rev, track, (uint32_t)sizes[s][4], (uint32_t)sizes[s][5],
                                  (uint32_t)sizes[s][6]))
                        bad++;
                }
    }
    printf("test_j2k_enc_blocks_cuda_gpu: %d cases, %d differ\n", cases, bad);
    CHECK(bad == 0);
    tsr_ctx_destroy(ctx);
    return tsr_test_finish("test_j2k_enc_blocks_cuda_gpu");
}
