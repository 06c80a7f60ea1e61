/* tsr_j2k_decode_images on the CPU backend (j2k_batch_check.h): each item equal to a single
 * tsr_j2k_decode_image (status, message, warnings, bytes), a truncated header, garbled streams
 * and a mismatched image in the middle failing as their single decodes do while the others
 * decode; the call's status is the first failed item's; an empty batch, NULL items, and a
 * progress callback that stops the batch after two items (the rest TSR_ERR_INTERRUPTED, their
 * images untouched). The shared streams are skipped without ../shared/data. */
#define _POSIX_C_SOURCE 200809L
#include "j2k_batch_check.h"

static int stop_after_two(void *user, const char *stage, double done, double total)
{
    (void)total;
    int *calls = user;
    if (strcmp(stage, "j2k decode images"))
        return 0;
    ++*calls;
    return done >= 2;
}

int main(void)
{
    tsr_ctx_options co;
    tsr_ctx_options_init(&co);
    co.backend = TSR_BACKEND_CPU;
    co.threads = 1; /* tiles in order: the first warning is deterministic (with several threads
                       many tiles are decoded in parallel and warn in any order) */
    tsr_ctx *a = NULL, *b = NULL;
    CHECK(tsr_ctx_create(&co, &a) == TSR_OK);
    CHECK(tsr_ctx_create(&co, &b) == TSR_OK);
    if (!a || !b)
        return 1;
    tsr_rng rng;
    tsr_rng_seed(&rng, 2026);
    j2k_batch_list l;
    memset(&l, 0, sizeof l);
    j2k_batch_make_list(&l, a, &rng, 6);
    const int decoded = j2k_batch_check(a, b, &l, NULL, 1);
    printf("%u items, %d decoded as their single decodes\n", l.n, decoded);
    CHECK(decoded >= 6);

    CHECK(tsr_j2k_decode_images(a, NULL, NULL, 0) == TSR_OK);
    CHECK(tsr_j2k_decode_images(a, NULL, NULL, 3) == TSR_ERR_INVALID_ARGUMENT);

    /* stopped by the progress callback after two items */
    int calls = 0;
    co.progress = stop_after_two;
    co.progress_user = &calls;
    tsr_ctx *c = NULL;
    CHECK(tsr_ctx_create(&co, &c) == TSR_OK);
    tsr_j2k_decode_item items[4];
    memset(items, 0, sizeof items);
    uint8_t *pix[4] = {NULL, NULL, NULL, NULL};
    for (int i = 0; i < 4 && c; i++) {
        items[i].data = l.s[0].data;
        items[i].len = l.s[0].len;
        CHECK(tsr_j2k_decode_image_layout(c, l.s[0].data, l.s[0].len, NULL, &items[i].image) ==
              TSR_OK);
        const size_t bytes = items[i].image.stride * (size_t)items[i].image.height;
        pix[i] = malloc(bytes);
        CHECK(pix[i] != NULL);
        if (pix[i])
            memset(pix[i], 0x77, bytes);
        items[i].image.data = pix[i];
    }
    if (c) {
        CHECK(tsr_j2k_decode_images(c, NULL, items, 4) == TSR_ERR_INTERRUPTED);
        CHECK(calls == 2);
        CHECK(items[0].status == TSR_OK && items[1].status == TSR_OK);
        CHECK(items[2].status == TSR_ERR_INTERRUPTED && items[3].status == TSR_ERR_INTERRUPTED);
        CHECK(items[2].error[0] != '\0');
        CHECK(pix[3] && pix[3][0] == 0x77 && pix[0] && memcmp(pix[0], pix[1], 64) == 0);
    }
    for (int i = 0; i < 4; i++)
        free(pix[i]);
    tsr_ctx_destroy(c);
    j2k_batch_free(&l);
    tsr_ctx_destroy(b);
    tsr_ctx_destroy(a);
    return tsr_test_finish("test_j2k_batch");
}
