/* Tier-2 consistency on every conformance codestream (Part 1 and HTJ2K): each tile's packets,
 * read in progression order with the code-block segment rules (including HT placeholder passes
 * and mixed HT/Part-1 blocks), must use the tile's data exactly: no packet may run past it, no
 * byte may be left after the last packet, EPH markers must sit where the headers end, and no
 * warning may arise. This checks packet parsing independently of the block decoders (the HT one
 * in particular). Skips (77) without ../shared/data. */
#define _POSIX_C_SOURCE 200809L
#include "testlib.h"

#include "j2k/decode_stages.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>

static int check_stream(tsr_ctx *ctx, const char *path, const char *name)
{
    size_t len;
    uint8_t *b = tsr_test_read_file(path, &len);
    if (!b)
        return 0;
    tsr__j2k_warn w;
    memset(&w, 0, sizeof w);
    tsr__j2k_cs cs;
    int ok = tsr__j2k_parse(ctx, b, len, 0, 0, &cs, &w) == TSR_OK;
    unsigned long chunks = 0;
    for (uint32_t t = 0; ok && t < cs.ntiles; t++) {
        if (cs.tile_first[t] == UINT32_MAX)
            continue;
        tsr__j2k_tcp tcp;
        uint8_t *ppt = NULL, *body = NULL, *hdr = NULL;
        size_t pl = 0, bl = 0, hl = 0;
        tsr__j2k_tile tile;
        memset(&tile, 0, sizeof tile);
        tsr__j2k_t2 t2;
        memset(&t2, 0, sizeof t2);
        tsr__j2k_window win = {cs.x0, cs.y0, cs.x1, cs.y1};
        ok = tsr__j2k_tile_params(ctx, &cs, t, &tcp, &ppt, &pl) == TSR_OK &&
             tsr__tcd_init(ctx, &cs, &tcp, t, 0, NULL, &win, &tile) == TSR_OK;
        if (ok) {
            for (uint32_t i = cs.tile_first[t]; i != UINT32_MAX; i = cs.tps[i].next) {
                bl += cs.tps[i].body_len;
                hl += cs.tps[i].ppm_len;
            }
            body = malloc(bl + 1);
            hdr = malloc(hl + 1);
            size_t at = 0, hat = 0;
            for (uint32_t i = cs.tile_first[t]; i != UINT32_MAX; i = cs.tps[i].next) {
                memcpy(body + at, cs.data + cs.tps[i].body_off, cs.tps[i].body_len);
                at += cs.tps[i].body_len;
                if (cs.ppm) {
                    memcpy(hdr + hat, cs.ppm + cs.tps[i].ppm_off, cs.tps[i].ppm_len);
                    hat += cs.tps[i].ppm_len;
                }
            }
            const uint8_t *h = ppt ? ppt : cs.ppm ? hdr : NULL;
            size_t hn = ppt ? pl : hl;
            ok = tsr__t2_decode(ctx, &cs, &tcp, &tile, body, bl, h, hn, 0xFFFF, 0, &t2, &w) ==
                 TSR_OK;
            chunks += t2.nchunks;
        }
        tsr__t2_free(ctx, &t2);
        tsr__tcd_free(ctx, &tile);
        tsr__j2k_tcp_free(ctx, &tcp);
        tsr__free(ctx, ppt);
        free(body);
        free(hdr);
    }
    /* "no EOC" is the copy's business, not the packets' */
    int clean = ok && (w.count == 0 || (w.count == 1 && strstr(w.first, "no EOC")));
    printf("%-4s %-22s %lu contributions%s%s%s\n", clean ? "ok" : "BAD", name, chunks,
           ok ? "" : ": ", ok ? "" : tsr_ctx_last_error(ctx), w.count ? "" : "");
    if (w.count)
        printf("     %u warning(s), first: %s\n", w.count, w.first);
    if (ok)
        tsr__j2k_cs_free(ctx, &cs);
    free(b);
    return clean;
}

int main(void)
{
    const char *root = tsr_test_data("j2k");
    if (!root) {
        printf("SKIP: ../shared/data/j2k is absent\n");
        return TSR_TEST_SKIP;
    }
    char base[2048];
    snprintf(base, sizeof base, "%s", root);
    tsr_ctx *ctx;
    tsr_ctx_options o;
    tsr_ctx_options_init(&o);
    o.backend = TSR_BACKEND_REFERENCE;
    if (tsr_ctx_create(&o, &ctx) != TSR_OK)
        return 1;
    const char *dirs[] = {"conformance", "htj2k"};
    int n = 0;
    for (int k = 0; k < 2; k++) {
        char dir[2100];
        snprintf(dir, sizeof dir, "%s/%s", base, dirs[k]);
        DIR *d = opendir(dir);
        if (!d)
            continue;
        struct dirent *e;
        while ((e = readdir(d))) {
            size_t l = strlen(e->d_name);
            if (l < 5 || (strcmp(e->d_name + l - 4, ".j2k") && strcmp(e->d_name + l - 4, ".j2c")))
                continue;
            char path[4300];
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            CHECK(check_stream(ctx, path, e->d_name));
            n++;
        }
        closedir(d);
    }
    printf("%d codestreams\n", n);
    CHECK(n > 0);
    tsr_ctx_destroy(ctx);
    return tsr_test_finish("test_j2k_t2_streams");
}
