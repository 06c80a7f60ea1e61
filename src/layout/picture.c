/* The description of a drawing's picture (picture.h): crossing counts, drawing order, looks. */
#include "layout/picture.h"

#include "core/checked.h"

#include <string.h>

tsr_status tsr__picture_make(tsr_ctx *ctx, const tsr_layout *l, tsr__picture *p)
{
    memset(p, 0, sizeof *p);
    p->layout = l;
    size_t m = (size_t)l->num_edges, bytes;
    if (!tsr__size_mul(m ? m : 1, sizeof(int32_t), &bytes))
        return tsr__fail(ctx, TSR_ERR_OVERFLOW, "layout: too many edges");
    tsr_status st;
    if ((st = tsr__alloc(ctx, bytes, (void **)&p->counts)) != TSR_OK ||
        (st = tsr__alloc(ctx, bytes, (void **)&p->order)) != TSR_OK ||
        (st = tsr__count_parallel(
             ctx, l, p->counts, tsr_ctx_backend(ctx) == TSR_BACKEND_REFERENCE ? 1 : 0)) != TSR_OK) {
        tsr__picture_free(ctx, p);
        return st;
    }
    tsr__score_from_counts(p->counts, l->num_edges, &p->score);
    /* counting sort by count: edges of equal count keep their input order */
    size_t hb;
    int32_t *start;
    if (!tsr__size_mul((size_t)p->score.K + 2, sizeof(int32_t), &hb)) {
        tsr__picture_free(ctx, p);
        return tsr__fail(ctx, TSR_ERR_OVERFLOW, "layout: count overflow");
    }
    if ((st = tsr__alloc(ctx, hb, (void **)&start)) != TSR_OK) {
        tsr__picture_free(ctx, p);
        return st;
    }
    memset(start, 0, hb);
    for (size_t e = 0; e < m; e++)
        start[p->counts[e] + 1]++;
    for (int64_t c = 0; c <= p->score.K; c++)
        start[c + 1] += start[c];
    for (size_t e = 0; e < m; e++)
        p->order[start[p->counts[e]]++] = (int32_t)e;
    tsr__free(ctx, start);
    tsr__picture_geometry(l, p);
    return TSR_OK;
}

void tsr__picture_geometry(const tsr_layout *l, tsr__picture *p)
{
    p->width = l->width > 0 ? l->width : 1;
    p->height = l->height > 0 ? l->height : 1;
    p->unit = (p->width > p->height ? p->width : p->height) / 800.0;
    p->margin = 10 * p->unit;
}

void tsr__picture_free(tsr_ctx *ctx, tsr__picture *p)
{
    tsr__free(ctx, p->counts);
    tsr__free(ctx, p->order);
    p->counts = p->order = NULL;
}

tsr__edge_look tsr__picture_edge(const tsr__picture *p, int32_t e)
{
    tsr__edge_look look;
    const int64_t K = p->score.K, c = p->counts[e];
    if (K > 0 && c == K) {
        look.r = 0xdd;
        look.g = look.b = 0;
        look.width = 2.5;
        look.most = 1;
        return look;
    }
    double f = K > 0 ? (double)c / (double)K : 0;
    int g = 190 - (int)(150 * f);
    look.r = (uint8_t)(g + (int)(60 * f));
    look.g = look.b = (uint8_t)g;
    look.width = 0.6 + f;
    look.most = 0;
    return look;
}
