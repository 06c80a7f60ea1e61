/* Tile, tile-component, resolution, sub-band, precinct and code-block geometry (T.800 B.3-B.7),
 * and the per-band quantisation parameters (E.1). All coordinates are on the reference grid's
 * integer lattice; 64-bit intermediates keep the shifts and sums exact. */
#include "j2k/codestream.h"

#include <string.h>

static uint32_t u32min(uint64_t a, uint64_t b)
{
    return (uint32_t)(a < b ? a : b);
}

/* ceil((a - off) / 2^e) for a band origin; 0 when a <= off (B-15). */
static uint32_t band_coord(uint32_t a, uint64_t off, uint32_t e)
{
    if ((uint64_t)a <= off)
        return 0;
    uint64_t v = (uint64_t)a - off;
    return (uint32_t)((v + ((uint64_t)1 << e) - 1) >> e);
}

/* Step size index of band b of resolution r (E.1: LL, then HL, LH, HH per level from the
 * coarsest). */
static uint32_t step_index(uint32_t r, uint32_t orient)
{
    return r == 0 ? 0 : 3 * (r - 1) + orient;
}

void tsr__tcd_free(tsr_ctx *ctx, tsr__j2k_tile *t)
{
    if (t->comps)
        for (uint32_t c = 0; c < t->ncomps; c++)
            if (!t->comps[c].external)
                tsr__free(ctx, t->comps[c].data);
    tsr__free(ctx, t->comps);
    tsr__free(ctx, t->mem);
    tsr__free(ctx, t->cblk_ptr);
    tsr__free(ctx, t->cblk_orient);
    memset(t, 0, sizeof *t);
}

/* The part of `band` that precinct (px, py) of `res` covers, precincts being 2^bppx x 2^bppy in
 * the band's coordinates: [*x0, *x1) x [*y0, *y1), empty when x1 <= x0 or y1 <= y0. */
static void tsr__prec_in_band(const tsr__j2k_res *res, const tsr__j2k_band *band, uint32_t px,
                              uint32_t py, uint32_t bppx, uint32_t bppy, uint64_t *x0, uint64_t *y0,
                              uint64_t *x1, uint64_t *y1)
{
    const uint64_t px0 = (uint64_t)(res->px0 + px) << bppx, py0 = (uint64_t)(res->py0 + py) << bppy;
    const uint64_t px1 = px0 + ((uint64_t)1 << bppx), py1 = py0 + ((uint64_t)1 << bppy);
    *x0 = px0 > band->x0 ? px0 : band->x0;
    *y0 = py0 > band->y0 ? py0 : band->y0;
    *x1 = px1 < band->x1 ? px1 : band->x1;
    *y1 = py1 < band->y1 ? py1 : band->y1;
}

tsr_status tsr__tcd_init(tsr_ctx *ctx, const tsr__j2k_cs *cs, const tsr__j2k_tcp *tcp,
                         uint32_t tile, uint32_t reduce, const uint8_t *comp_mask,
                         const tsr__j2k_window *win, tsr__j2k_tile *t)
{
    memset(t, 0, sizeof *t);
    t->index = tile;
    uint32_t p = tile % cs->ntx, q = tile / cs->ntx;
    uint64_t tx0 = (uint64_t)cs->tx0 + (uint64_t)p * cs->tw,
             ty0 = (uint64_t)cs->ty0 + (uint64_t)q * cs->th;
    t->x0 = (uint32_t)(tx0 > cs->x0 ? tx0 : cs->x0);
    t->y0 = (uint32_t)(ty0 > cs->y0 ? ty0 : cs->y0);
    t->x1 = u32min(tx0 + cs->tw, cs->x1);
    t->y1 = u32min(ty0 + cs->th, cs->y1);
    t->ncomps = cs->ncomps;
    tsr_status st = tsr__alloc(ctx, cs->ncomps * sizeof *t->comps, (void **)&t->comps);
    if (st)
        return st;
    memset(t->comps, 0, cs->ncomps * sizeof *t->comps);

    /* Pass 1: geometry of resolutions and bands, counts of precincts, code-blocks, tree nodes. */
    size_t nprec = 0, ncblk = 0, nnodes = 0;
    for (uint32_t c = 0; c < cs->ncomps; c++) {
        tsr__j2k_tilecomp *tc = &t->comps[c];
        const tsr__j2k_tccp *tccp = &tcp->tccps[c];
        const tsr__j2k_comp *cp = &cs->comps[c];
        tc->x0 = tsr__ceildiv(t->x0, cp->dx);
        tc->y0 = tsr__ceildiv(t->y0, cp->dy);
        tc->x1 = tsr__ceildiv(t->x1, cp->dx);
        tc->y1 = tsr__ceildiv(t->y1, cp->dy);
        tc->numres = tccp->numres;
        tc->skip = comp_mask && !comp_mask[c];
        if (reduce >= tc->numres)
            return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT,
                             "cannot reduce by %u levels: tile %u component %u has %u "
                             "decomposition levels",
                             reduce, tile, c, tc->numres - 1);
        tc->dec_res = tc->numres - reduce;
        for (uint32_t r = 0; r < tc->numres; r++) {
            tsr__j2k_res *res = &tc->res[r];
            uint32_t level = tc->numres - 1 - r;
            res->x0 = tsr__ceildivpow2(tc->x0, level);
            res->y0 = tsr__ceildivpow2(tc->y0, level);
            res->x1 = tsr__ceildivpow2(tc->x1, level);
            res->y1 = tsr__ceildivpow2(tc->y1, level);
            res->ppx = tccp->prcw[r];
            res->ppy = tccp->prch[r];
            res->px0 = res->x0 >> res->ppx;
            res->py0 = res->y0 >> res->ppy;
            res->pw = res->x1 > res->x0 ? tsr__ceildivpow2(res->x1, res->ppx) - res->px0 : 0;
            res->ph = res->y1 > res->y0 ? tsr__ceildivpow2(res->y1, res->ppy) - res->py0 : 0;
            res->nbands = r == 0 ? 1 : 3;
            uint32_t bppx = r == 0 ? res->ppx : res->ppx - 1;
            uint32_t bppy = r == 0 ? res->ppy : res->ppy - 1;
            size_t npr = (size_t)res->pw * res->ph;
            for (uint32_t b = 0; b < res->nbands; b++) {
                tsr__j2k_band *band = &res->bands[b];
                band->orient = (uint8_t)(r == 0 ? 0 : b + 1);
                if (r == 0) {
                    band->x0 = res->x0;
                    band->y0 = res->y0;
                    band->x1 = res->x1;
                    band->y1 = res->y1;
                } else {
                    uint32_t nb = tc->numres - r;
                    uint64_t half = (uint64_t)1 << (nb - 1);
                    uint64_t xo = (band->orient & 1) ? half : 0;
                    uint64_t yo = (band->orient & 2) ? half : 0;
                    band->x0 = band_coord(tc->x0, xo, nb);
                    band->y0 = band_coord(tc->y0, yo, nb);
                    band->x1 = band_coord(tc->x1, xo, nb);
                    band->y1 = band_coord(tc->y1, yo, nb);
                }
                band->xcb = tccp->xcb < bppx ? tccp->xcb : bppx;
                band->ycb = tccp->ycb < bppy ? tccp->ycb : bppy;
                /* Quantisation (E.1): exponent and mantissa of this band. */
                uint32_t si = step_index(r, band->orient);
                uint32_t expn, mant;
                if (tccp->qntsty == 1) {
                    uint32_t nb = r == 0 ? tc->numres - 1 : tc->numres - r;
                    int32_t e =
                        (int32_t)tccp->steps[0].expn - (int32_t)(tc->numres - 1) + (int32_t)nb;
                    if (e < 0)
                        return tsr__fail(ctx, TSR_ERR_CORRUPT,
                                         "tile %u component %u: derived quantisation exponent "
                                         "%d is negative",
                                         tile, c, e);
                    expn = (uint32_t)e;
                    mant = tccp->steps[0].mant;
                } else {
                    if (si >= tccp->nsteps)
                        return tsr__fail(ctx, TSR_ERR_CORRUPT,
                                         "tile %u component %u: QCD/QCC gives %u step sizes, %u "
                                         "sub-bands need them",
                                         tile, c, tccp->nsteps, 3 * (tc->numres - 1) + 1);
                    expn = tccp->steps[si].expn;
                    mant = tccp->steps[si].mant;
                }
                uint32_t mb = tccp->numgbits + expn;
                band->mb = mb ? mb - 1 : 0;
                if (band->mb > 30 || band->mb + tccp->roishift > 31) {
                    if (band->x1 > band->x0 && band->y1 > band->y0)
                        return tsr__fail(ctx, TSR_ERR_UNSUPPORTED,
                                         "tile %u component %u: %u magnitude bit-planes (+ ROI "
                                         "shift %u) in a sub-band; 1..30 supported",
                                         tile, c, band->mb, tccp->roishift);
                }
                {
                    uint32_t gain = band->orient == 0 ? 0 : band->orient == 3 ? 2 : 1;
                    int32_t e = (int32_t)cp->prec + (int32_t)gain - (int32_t)expn;
                    double d = 1.0 + mant / 2048.0;
                    double s = 1.0;
                    for (int32_t i = 0; i < (e > 0 ? e : -e); i++)
                        s *= 2.0;
                    band->delta = (float)(e >= 0 ? d * s : d / s);
                }
                /* Count precincts' code-blocks. */
                for (uint32_t py = 0; py < res->ph; py++) {
                    for (uint32_t px = 0; px < res->pw; px++) {
                        uint64_t x0, y0, x1, y1;
                        tsr__prec_in_band(res, band, px, py, bppx, bppy, &x0, &y0, &x1, &y1);
                        size_t cw = 0, ch = 0;
                        if (x1 > x0 && y1 > y0) {
                            cw = (size_t)(((x1 + ((uint64_t)1 << band->xcb) - 1) >> band->xcb) -
                                          (x0 >> band->xcb));
                            ch = (size_t)(((y1 + ((uint64_t)1 << band->ycb) - 1) >> band->ycb) -
                                          (y0 >> band->ycb));
                        }
                        ncblk += cw * ch;
                        nnodes += 2 * tsr__tgt_size((uint32_t)cw, (uint32_t)ch);
                        if (ncblk > UINT32_MAX / 2)
                            return tsr__fail(ctx, TSR_ERR_LIMIT, "tile %u has too many code-blocks",
                                             tile);
                    }
                }
                nprec += npr;
            }
        }
    }
    /* One block for precincts, code-blocks and tag-tree nodes. */
    size_t b_prec, b_cblk, b_nodes, total;
    if (!tsr__size_mul(nprec, sizeof(tsr__j2k_prec), &b_prec) ||
        !tsr__size_mul(ncblk, sizeof(tsr__j2k_cblk), &b_cblk) ||
        !tsr__size_mul(nnodes, sizeof(tsr__tgt_node), &b_nodes) ||
        !tsr__size_add(b_prec, b_cblk, &total) || !tsr__size_add(total, b_nodes, &total) ||
        !tsr__size_add(total, 64, &total))
        return tsr__fail(ctx, TSR_ERR_OVERFLOW, "tile %u: code-block arrays overflow", tile);
    if ((st = tsr__alloc(ctx, total, &t->mem)))
        return st;
    memset(t->mem, 0, total);
    size_t ncb_alloc = ncblk ? ncblk : 1;
    if ((st = tsr__alloc(ctx, ncb_alloc * sizeof *t->cblk_ptr, (void **)&t->cblk_ptr)) ||
        (st = tsr__alloc(ctx, ncb_alloc, (void **)&t->cblk_orient)))
        return st;
    tsr__j2k_prec *prec_at = (tsr__j2k_prec *)t->mem;
    tsr__j2k_cblk *cblk_at = (tsr__j2k_cblk *)((char *)t->mem + b_prec);
    tsr__tgt_node *node_at = (tsr__tgt_node *)((char *)t->mem + b_prec + b_cblk);
    uint32_t gidx = 0;

    /* Pass 2: fill precincts and code-blocks; mark those the window needs. */
    for (uint32_t c = 0; c < cs->ncomps; c++) {
        tsr__j2k_tilecomp *tc = &t->comps[c];
        const tsr__j2k_comp *cp = &cs->comps[c];
        /* The window in this tile-component's coordinates (full resolution). */
        uint32_t wx0 = tsr__ceildiv(win->x0, cp->dx), wy0 = tsr__ceildiv(win->y0, cp->dy);
        uint32_t wx1 = tsr__ceildiv(win->x1, cp->dx), wy1 = tsr__ceildiv(win->y1, cp->dy);
        for (uint32_t r = 0; r < tc->numres; r++) {
            tsr__j2k_res *res = &tc->res[r];
            uint32_t bppx = r == 0 ? res->ppx : res->ppx - 1;
            uint32_t bppy = r == 0 ? res->ppy : res->ppy - 1;
            uint32_t nb = r == 0 ? tc->numres - 1 : tc->numres - r;
            for (uint32_t b = 0; b < res->nbands; b++) {
                tsr__j2k_band *band = &res->bands[b];
                band->precs = prec_at;
                prec_at += (size_t)res->pw * res->ph;
                band->cblks = cblk_at;
                band->cblk_base = gidx;
                /* Needed band area: the window scaled to this level, widened by the synthesis
                 * filters' reach (a generous 8 samples covers 9/7 over all coarser levels). */
                int64_t nx0 = ((int64_t)wx0 >> nb) - 8, ny0 = ((int64_t)wy0 >> nb) - 8;
                int64_t nx1 = (int64_t)(((uint64_t)wx1 + ((uint64_t)1 << nb) - 1) >> nb) + 8;
                int64_t ny1 = (int64_t)(((uint64_t)wy1 + ((uint64_t)1 << nb) - 1) >> nb) + 8;
                int band_needed = !tc->skip && r < tc->dec_res;
                uint32_t nc = 0;
                for (uint32_t py = 0; py < res->ph; py++) {
                    for (uint32_t px = 0; px < res->pw; px++) {
                        tsr__j2k_prec *pr = &band->precs[(size_t)py * res->pw + px];
                        uint64_t x0, y0, x1, y1;
                        tsr__prec_in_band(res, band, px, py, bppx, bppy, &x0, &y0, &x1, &y1);
                        pr->cw = pr->ch = 0;
                        pr->cblk0 = nc;
                        uint64_t cx0 = 0, cy0 = 0;
                        if (x1 > x0 && y1 > y0) {
                            cx0 = x0 >> band->xcb;
                            cy0 = y0 >> band->ycb;
                            pr->cw =
                                (uint32_t)(((x1 + ((uint64_t)1 << band->xcb) - 1) >> band->xcb) -
                                           cx0);
                            pr->ch =
                                (uint32_t)(((y1 + ((uint64_t)1 << band->ycb) - 1) >> band->ycb) -
                                           cy0);
                        }
                        size_t tn = tsr__tgt_size(pr->cw, pr->ch);
                        tsr__tgt_init(&pr->incl, pr->cw, pr->ch, node_at);
                        node_at += tn;
                        tsr__tgt_init(&pr->imsb, pr->cw, pr->ch, node_at);
                        node_at += tn;
                        for (uint32_t j = 0; j < pr->ch; j++) {
                            for (uint32_t i = 0; i < pr->cw; i++) {
                                tsr__j2k_cblk *cb = &band->cblks[nc];
                                uint64_t bx0 = (cx0 + i) << band->xcb, by0 = (cy0 + j) << band->ycb;
                                uint64_t bx1 = bx0 + ((uint64_t)1 << band->xcb);
                                uint64_t by1 = by0 + ((uint64_t)1 << band->ycb);
                                cb->x0 = (uint32_t)(bx0 > x0 ? bx0 : x0);
                                cb->y0 = (uint32_t)(by0 > y0 ? by0 : y0);
                                cb->x1 = (uint32_t)(bx1 < x1 ? bx1 : x1);
                                cb->y1 = (uint32_t)(by1 < y1 ? by1 : y1);
                                cb->lblock = 3;
                                cb->need = band_needed && (int64_t)cb->x1 > nx0 &&
                                           (int64_t)cb->x0 < nx1 && (int64_t)cb->y1 > ny0 &&
                                           (int64_t)cb->y0 < ny1;
                                t->cblk_ptr[gidx] = cb;
                                t->cblk_orient[gidx] = band->orient;
                                gidx++;
                                nc++;
                            }
                        }
                    }
                }
                band->ncblks = nc;
                cblk_at += nc;
            }
        }
        /* Size of the decoded resolution; the caller provides the samples. */
        if (!tc->skip) {
            const tsr__j2k_res *top = &tc->res[tc->dec_res - 1];
            tc->data_w = top->x1 - top->x0;
            tc->data_h = top->y1 - top->y0;
            tc->stride = tc->data_w;
        }
    }
    t->ncblks = gidx;
    return TSR_OK;
}
