/* The layout readers' fuzz contract, shared by the libFuzzer target and its replay test: parsing
 * any bytes (contest JSON, GraphML, DOT, CSV or an edge list, recognised by content) returns; a
 * failure has a status other than TSR_OK and a non-empty message; a success gives a drawing whose
 * counts, canvas and edge endpoints are in range, every coordinate inside [0, 2^30] when the
 * input had coordinates, and on which the validity check and the reference crossing count run
 * (the count only up to 2,000 edges, to keep single inputs cheap), in fuzz_ctx.h's context.
 * Returns 0, or 1 when the contract was broken (the caller aborts or counts). */
#ifndef TSR_FUZZ_LAYOUT_BODY_H
#define TSR_FUZZ_LAYOUT_BODY_H

#include "fuzz_ctx.h"

static int tsr_fuzz_layout_one(const uint8_t *data, size_t size)
{
    tsr_ctx *ctx = tsr_fuzz_ctx();
    if (!ctx)
        return 1;
    tsr_layout *l = NULL;
    int bad = 0;
    tsr_status st = tsr_layout_parse(ctx, (const char *)data, size, "fuzz", &l);
    if (st != TSR_OK) {
        bad = !tsr_ctx_last_error(ctx)[0] || l != NULL;
    } else if (!l || l->num_nodes < 0 || l->num_edges < 0 || l->width < 0 || l->height < 0 ||
               l->width > TSR_LAYOUT_MAX_CANVAS || l->height > TSR_LAYOUT_MAX_CANVAS) {
        bad = 1;
    } else {
        for (int32_t e = 0; e < l->num_edges; e++)
            if (l->edge_u[e] < 0 || l->edge_u[e] >= l->num_nodes || l->edge_v[e] < 0 ||
                l->edge_v[e] >= l->num_nodes)
                bad = 1;
        for (int32_t v = 0; v < l->num_nodes && l->has_coordinates; v++)
            if (l->x[v] < 0 || l->y[v] < 0 || l->x[v] > TSR_LAYOUT_MAX_CANVAS ||
                l->y[v] > TSR_LAYOUT_MAX_CANVAS)
                bad = 1;
        size_t count = 0;
        if (!bad && l->has_coordinates && tsr_layout_check(ctx, l, NULL, 0, &count) != TSR_OK)
            bad = 1;
        tsr_layout_score score;
        if (!bad && l->has_coordinates && l->num_edges <= 2000 &&
            tsr_layout_evaluate(ctx, l, &score, NULL) != TSR_OK)
            bad = 1;
    }
    tsr_layout_free(ctx, l);
    tsr_ctx_destroy(ctx);
    return bad;
}

#endif
