/* Progression orders (T.800 B.12) and progression order changes (A.6.6, POC).
 *
 * LRCP and RLCP are plain nested loops. For the position-driven orders (RPCL, PCRL, CPRL) the
 * standard walks every reference-grid point (y, x) of the tile and visits a precinct at the first
 * point that falls on its top-left corner: a multiple of YRsiz * 2^(PPy + NL - r) (resp. X), or
 * the tile's own corner for a first precinct that is cut by the tile edge (B.12.1.3). We compute
 * that point for each precinct once and sort, which visits the same sequence without walking
 * the grid (and without the step-size shortcuts that mis-order odd subsamplings).
 * A packet already emitted (by an earlier POC progression) is skipped. */
#include "j2k/codestream.h"

#include <stdlib.h>
#include <string.h>

typedef struct pi_entry {
    uint32_t y, x;
    uint16_t c;
    uint8_t r;
    uint32_t p;
} pi_entry;

/* Orders entries by the named fields in turn, then by precinct index (each progression's nesting,
 * T.800 B.12). */
#define PI_BY(f)                                                                                   \
    if (u->f != v->f)                                                                              \
    return u->f < v->f ? -1 : 1
#define PI_LAST return u->p < v->p ? -1 : u->p > v->p

static int cmp_pcrl(const void *a, const void *b)
{
    const pi_entry *u = a, *v = b;
    PI_BY(y);
    PI_BY(x);
    PI_BY(c);
    PI_BY(r);
    PI_LAST;
}
static int cmp_rpcl(const void *a, const void *b)
{
    const pi_entry *u = a, *v = b;
    PI_BY(r);
    PI_BY(y);
    PI_BY(x);
    PI_BY(c);
    PI_LAST;
}
static int cmp_cprl(const void *a, const void *b)
{
    const pi_entry *u = a, *v = b;
    PI_BY(c);
    PI_BY(y);
    PI_BY(x);
    PI_BY(r);
    PI_LAST;
}
#undef PI_BY
#undef PI_LAST

/* The reference-grid point at which the standard's loop reaches precinct (i, j) of res. */
static void prec_point(const tsr__j2k_tile *t, const tsr__j2k_cs *cs, uint32_t c, uint32_t r,
                       uint32_t i, uint32_t j, uint32_t *x, uint32_t *y)
{
    const tsr__j2k_tilecomp *tc = &t->comps[c];
    const tsr__j2k_res *res = &tc->res[r];
    uint32_t level = tc->numres - 1 - r;
    uint64_t xr = (uint64_t)(res->px0 + i) << res->ppx;
    uint64_t yr = (uint64_t)(res->py0 + j) << res->ppy;
    if (xr < res->x0)
        *x = t->x0;
    else {
        uint64_t v = (xr << level) * cs->comps[c].dx;
        *x = v > t->x0 ? (uint32_t)(v < UINT32_MAX ? v : UINT32_MAX) : t->x0;
    }
    if (yr < res->y0)
        *y = t->y0;
    else {
        uint64_t v = (yr << level) * cs->comps[c].dy;
        *y = v > t->y0 ? (uint32_t)(v < UINT32_MAX ? v : UINT32_MAX) : t->y0;
    }
}

tsr_status tsr__pi_iterate(tsr_ctx *ctx, const tsr__j2k_cs *cs, const tsr__j2k_tcp *tcp,
                           const tsr__j2k_tile *t, tsr__pi_fn fn, void *user, int *stopped,
                           uint64_t work_limit)
{
    uint64_t work = 0;
    *stopped = 0;
    uint32_t nc = t->ncomps;
    /* Per (c, r): the index of its first precinct in the emitted-layer table. */
    size_t nprec = 0;
    uint32_t maxres = 0;
    for (uint32_t c = 0; c < nc; c++) {
        if (t->comps[c].numres > maxres)
            maxres = t->comps[c].numres;
        for (uint32_t r = 0; r < t->comps[c].numres; r++)
            nprec += (size_t)t->comps[c].res[r].pw * t->comps[c].res[r].ph;
    }
    size_t *base = NULL;
    uint16_t *done = NULL;
    pi_entry *ents = NULL;
    tsr_status st;
    size_t bytes;
    if (!tsr__size_mul3(nc, TSR__J2K_MAX_RES, sizeof *base, &bytes))
        return TSR_ERR_OVERFLOW;
    if ((st = tsr__alloc(ctx, bytes, (void **)&base)))
        return st;
    if ((st = tsr__alloc(ctx, (nprec ? nprec : 1) * sizeof *done, (void **)&done)))
        goto out;
    memset(done, 0, (nprec ? nprec : 1) * sizeof *done);
    {
        size_t at = 0;
        for (uint32_t c = 0; c < nc; c++)
            for (uint32_t r = 0; r < TSR__J2K_MAX_RES; r++) {
                base[(size_t)c * TSR__J2K_MAX_RES + r] = at;
                if (r < t->comps[c].numres)
                    at += (size_t)t->comps[c].res[r].pw * t->comps[c].res[r].ph;
            }
    }
    tsr__j2k_poc whole = {0, maxres, 0, nc, tcp->numlayers, tcp->prg};
    const tsr__j2k_poc *pocs = tcp->npoc ? tcp->pocs : &whole;
    uint32_t npoc = tcp->npoc ? tcp->npoc : 1;
    if (nprec && (st = tsr__alloc(ctx, nprec * sizeof *ents, (void **)&ents)))
        goto out;
    st = TSR_OK;

#define EMIT(L, C, R, P)                                                                           \
    do {                                                                                           \
        uint16_t *d_ = &done[base[(size_t)(C)*TSR__J2K_MAX_RES + (R)] + (P)];                      \
        if (work_limit && ++work > work_limit) {                                                   \
            *stopped = TSR__PI_TOO_LONG;                                                           \
            goto out;                                                                              \
        }                                                                                          \
        if (*d_ == (L)) {                                                                          \
            (*d_)++;                                                                               \
            int rc_ = fn(user, (L), (C), (R), (P));                                                \
            if (rc_) {                                                                             \
                *stopped = rc_;                                                                    \
                goto out;                                                                          \
            }                                                                                      \
        }                                                                                          \
    } while (0)

    for (uint32_t k = 0; k < npoc; k++) {
        const tsr__j2k_poc *e = &pocs[k];
        uint32_t re = e->re < maxres ? e->re : maxres;
        uint32_t ce = e->ce < nc ? e->ce : nc;
        uint32_t lye = e->lye < tcp->numlayers ? e->lye : tcp->numlayers;
        switch (e->prg) {
        case TSR_J2K_LRCP:
            for (uint32_t l = 0; l < lye; l++)
                for (uint32_t r = e->rs; r < re; r++)
                    for (uint32_t c = e->cs; c < ce; c++) {
                        if (r >= t->comps[c].numres)
                            continue;
                        const tsr__j2k_res *res = &t->comps[c].res[r];
                        for (uint32_t p = 0; p < res->pw * res->ph; p++)
                            EMIT(l, c, r, p);
                    }
            break;
        case TSR_J2K_RLCP:
            for (uint32_t r = e->rs; r < re; r++)
                for (uint32_t l = 0; l < lye; l++)
                    for (uint32_t c = e->cs; c < ce; c++) {
                        if (r >= t->comps[c].numres)
                            continue;
                        const tsr__j2k_res *res = &t->comps[c].res[r];
                        for (uint32_t p = 0; p < res->pw * res->ph; p++)
                            EMIT(l, c, r, p);
                    }
            break;
        default: {
            size_t n = 0;
            for (uint32_t c = e->cs; c < ce; c++)
                for (uint32_t r = e->rs; r < re && r < t->comps[c].numres; r++) {
                    const tsr__j2k_res *res = &t->comps[c].res[r];
                    for (uint32_t j = 0; j < res->ph; j++)
                        for (uint32_t i = 0; i < res->pw; i++) {
                            pi_entry *en = &ents[n++];
                            prec_point(t, cs, c, r, i, j, &en->x, &en->y);
                            en->c = (uint16_t)c;
                            en->r = (uint8_t)r;
                            en->p = j * res->pw + i;
                        }
                }
            if (work_limit && (work += 16 * (uint64_t)n) > work_limit) {
                *stopped = TSR__PI_TOO_LONG;
                goto out;
            }
            if (n == 0) /* no precinct in range (and ents may be NULL: qsort wants non-NULL) */
                break;
            qsort(ents, n, sizeof *ents,
                  e->prg == TSR_J2K_RPCL   ? cmp_rpcl
                  : e->prg == TSR_J2K_PCRL ? cmp_pcrl
                                           : cmp_cprl);
            for (size_t i = 0; i < n; i++)
                for (uint32_t l = 0; l < lye; l++)
                    EMIT(l, ents[i].c, ents[i].r, ents[i].p);
            break;
        }
        }
    }
#undef EMIT
    st = TSR_OK;
out:
    tsr__free(ctx, base);
    tsr__free(ctx, done);
    tsr__free(ctx, ents);
    return st;
}
