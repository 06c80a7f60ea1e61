/* Region decoding is exact: for conformance codestreams (Part 1 and HTJ2K, reversible and not,
 * tiled, subsampled), decoding a region (which decodes only the code-blocks it needs) gives the
 * same samples as the full decode cropped to it, at full and reduced resolution, with one thread
 * and with several. Skips (77) without ../shared/data. */
#include "testlib.h"

#include <stdlib.h>
#include <string.h>

int main(void)
{
    const char *root = tsr_test_data("j2k");
    if (!root) {
        printf("SKIP: ../shared/data/j2k is absent\n");
        return TSR_TEST_SKIP;
    }
    char base[2048];
    snprintf(base, sizeof base, "%s", root);
    static const char *streams[] = {
        "conformance/p0_03.j2k",   "conformance/p0_04.j2k",        "conformance/p0_06.j2k",
        "conformance/p0_10.j2k",   "conformance/p1_02.j2k",        "conformance/p1_05.j2k",
        "conformance/b2_mono.j2c", "conformance/a6_mono_colr.j2c", "conformance/file9.jp2",
        "htj2k/ds0_ht_04_b11.j2k", "htj2k/ds0_hm_06_b11.j2k",      "htj2k/ds1_ht_05_b11.j2k",
        "htj2k/hifi_ht1_02.j2k"};
    tsr_rng rng;
    tsr_rng_seed(&rng, 77);
    tsr_ctx *ctx;
    if (tsr_ctx_create(NULL, &ctx) != TSR_OK)
        return 1;
    int tested = 0;
    for (size_t si = 0; si < sizeof streams / sizeof streams[0]; si++) {
        char path[2200];
        snprintf(path, sizeof path, "%s/%s", base, streams[si]);
        size_t len;
        uint8_t *data = tsr_test_read_file(path, &len);
        if (!data)
            continue;
        tsr_j2k_info info;
        CHECK_OK(ctx, tsr_j2k_read_header(ctx, data, len, &info, NULL, 0));
        for (uint32_t reduce = 0; reduce <= 1 && reduce <= info.levels; reduce++) {
            tsr_j2k_decode_options o;
            tsr_j2k_decode_options_init(&o);
            o.reduce = reduce;
            tsr_j2k_plane *full = NULL;
            uint32_t nf = 0;
            CHECK_OK(ctx, tsr_j2k_decode_alloc(ctx, data, len, &o, &full, &nf, NULL));
            for (int k = 0; k < 3 && full; k++) {
                o.region_x = (uint32_t)tsr_rng_range(&rng, 0, (int)info.width - 1);
                o.region_y = (uint32_t)tsr_rng_range(&rng, 0, (int)info.height - 1);
                o.region_w = (uint32_t)tsr_rng_range(&rng, 1, (int)(info.width - o.region_x));
                o.region_h = (uint32_t)tsr_rng_range(&rng, 1, (int)(info.height - o.region_y));
                o.threads = k == 0 ? 1 : 0;
                tsr_j2k_plane *reg = NULL;
                uint32_t nr = 0;
                CHECK_OK(ctx, tsr_j2k_decode_alloc(ctx, data, len, &o, &reg, &nr, NULL));
                CHECK(nr == nf);
                int same = reg != NULL;
                for (uint32_t c = 0; reg && c < nr && c < nf; c++) {
                    const tsr_j2k_plane *a = &full[c], *b = &reg[c];
                    if (b->x0 < a->x0 || b->y0 < a->y0 || b->x0 + b->width > a->x0 + a->width ||
                        b->y0 + b->height > a->y0 + a->height) {
                        same = 0;
                        continue;
                    }
                    for (uint32_t y = 0; y < b->height; y++)
                        if (memcmp(b->data + (size_t)y * b->stride,
                                   a->data + (size_t)(y + b->y0 - a->y0) * a->stride +
                                       (b->x0 - a->x0),
                                   b->width * sizeof(int32_t)) != 0)
                            same = 0;
                }
                if (!same)
                    fprintf(stderr, "%s reduce %u region %u,%u %ux%u differs from the crop\n",
                            streams[si], reduce, o.region_x, o.region_y, o.region_w, o.region_h);
                CHECK(same);
                tsr_j2k_planes_free(ctx, reg, nr);
                tested++;
            }
            tsr_j2k_planes_free(ctx, full, nf);
            o.region_w = o.region_h = 0;
        }
        free(data);
    }
    printf("%d regions compared with their crops\n", tested);
    tsr_ctx_destroy(ctx);
    return tsr_test_finish("test_j2k_region");
}
