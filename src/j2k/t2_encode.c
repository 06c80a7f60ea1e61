/* Tier 2 encoding: the packets of a tile (T.800 B.9, B.10) over its quality layers. For each
 * packet in progression order (pi.c): the header (zero-length flag; per code-block of each
 * sub-band of the precinct, inclusion (a tag tree until the block's first inclusion, then one
 * bit), at the first inclusion the zero bit-planes by tag tree, the number of new coding passes
 * (Table B.4), the Lblock increment and the length of the new bytes (B.10.7.1; one codeword
 * segment per block, or an HT set's cleanup and refinement segments, T.814 B.3), then the bodies
 * of the code-blocks it includes: the headers are written, the bodies referenced where the codes
 * hold them (tsr__j2k_piece records). With Scod's bits, an SOP marker segment before each
 * packet (A.8.1) and an EPH marker after each header (A.8.2), empty packets included. */
#include "core/thread_num.h"
#include "j2k/encode_stages.h"

#include <string.h>

/* A packet of the tile, in progression order: its indices, its precinct's number in the tile
 * (every component's resolutions' precincts in turn), and once coded, where its header and
 * its bodies' piece records lie in the buffers of the worker that coded it. */
typedef struct t2e_packet {
    uint32_t l, c, r, p;
    uint32_t prec;
    uint32_t worker;
    size_t head_at, head_len; /* in the worker's headers */
    size_t piece_at, npieces; /* in the worker's piece records */
    size_t counted;           /* the bodies' bytes */
} t2e_packet;

/* One worker's output: packet headers back to back, and the bodies' piece records. */
typedef struct t2e_worker {
    tsr__j2k_bytes heads, pieces;
} t2e_worker;

typedef struct t2e_state {
    tsr__j2k_tile *t;
    const tsr__j2k_cblk_code *codes;
    const tsr__j2k_cut *cuts;
    uint32_t L; /* cuts per block */
} t2e_state;

/* Block g's cut after layer l; before layer 0, nothing. */
static tsr__j2k_cut cut_after(const t2e_state *s, size_t g, int64_t l)
{
    if (l < 0)
        return (tsr__j2k_cut){0, 0};
    return s->cuts[g * s->L + (size_t)l];
}

/* The HT set that block g's cut sends (tsr__j2k_cblk_code), NULL for a segment prefix. */
static const tsr__j2k_ht_set *ht_set(const tsr__j2k_cblk_code *codes, size_t g, tsr__j2k_cut cut)
{
    return codes[g].sets && cut.passes ? &codes[g].sets[cut.passes - 1] : NULL;
}

/* Block g's zero bit-planes when its first cut is `cut`. */
static uint32_t zero_bp(const tsr__j2k_cblk_code *codes, size_t g, tsr__j2k_cut cut)
{
    const tsr__j2k_ht_set *hs = ht_set(codes, g, cut);
    return hs ? codes[g].zero_bp - hs->plane : codes[g].zero_bp;
}

/* The number of coding passes, Table B.4. */
static void put_npasses(tsr__biow *w, uint32_t n)
{
    if (n == 1)
        tsr__biow_bit(w, 0);
    else if (n == 2)
        tsr__biow_bits(w, 2, 2);
    else if (n <= 5)
        tsr__biow_bits(w, (3u << 2) | (n - 3), 4);
    else if (n <= 36)
        tsr__biow_bits(w, (15u << 5) | (n - 6), 9);
    else
        tsr__biow_bits(w, (511u << 7) | (n - 37), 16);
}

static uint32_t bit_length(uint32_t v)
{
    return v ? 32u - (uint32_t)__builtin_clz(v) : 0;
}

/* Codes packet k's header (B.10; without SOP and EPH) into w->heads and its bodies' piece
 * records into w->pieces, updating its precinct's tag trees and its blocks' Lblock: a
 * precinct's packets must be coded in progression order, different precincts' in any. */
static void code_packet(const t2e_state *s, t2e_packet *k, t2e_worker *w)
{
    const uint32_t l = k->l;
    tsr__j2k_res *res = &s->t->comps[k->c].res[k->r];
    k->head_at = w->heads.len;
    k->piece_at = w->pieces.len / sizeof(tsr__j2k_piece);
    tsr__biow bw;
    tsr__biow_init(&bw, &w->heads);
    /* the packet is empty exactly when none of its code-blocks gains a pass in this layer */
    int present = 0;
    for (uint32_t bi = 0; bi < res->nbands && !present; bi++) {
        const tsr__j2k_band *band = &res->bands[bi];
        const tsr__j2k_prec *pr = &band->precs[k->p];
        for (uint32_t i = 0; i < pr->cw * pr->ch && !present; i++) {
            const size_t g = band->cblk_base + pr->cblk0 + i;
            present = cut_after(s, g, l).passes > cut_after(s, g, (int64_t)l - 1).passes;
        }
    }
    tsr__biow_bit(&bw, (uint32_t)present);
    for (uint32_t bi = 0; bi < res->nbands && present; bi++) {
        tsr__j2k_band *band = &res->bands[bi];
        tsr__j2k_prec *pr = &band->precs[k->p];
        const uint32_t n = pr->cw * pr->ch;
        for (uint32_t i = 0; i < n; i++) {
            tsr__j2k_cblk *cb = &band->cblks[pr->cblk0 + i];
            const size_t g = band->cblk_base + pr->cblk0 + i;
            const tsr__j2k_cut was = cut_after(s, g, (int64_t)l - 1), now = cut_after(s, g, l);
            const uint32_t passes = (uint32_t)(now.passes - was.passes);
            const uint32_t bytes = now.bytes - was.bytes;
            if (was.passes == 0) { /* not included yet: the inclusion tag tree */
                tsr__tgt_encode(&bw, &pr->incl, i, (int32_t)l + 1);
                if (!passes)
                    continue;
                tsr__tgt_encode(&bw, &pr->imsb, i, (int32_t)zero_bp(s->codes, g, now) + 1);
            } else {
                tsr__biow_bit(&bw, passes > 0);
                if (!passes)
                    continue;
            }
            /* the segments' passes and lengths: one segment, or an HT set's cleanup and
             * refinement segments (T.814 B.3: the cleanup pass alone, then the rest) */
            uint32_t np[2] = {passes, 0}, len[2] = {bytes, 0};
            const tsr__j2k_ht_set *hs = ht_set(s->codes, g, now);
            if (hs) {
                np[0] = 1;
                np[1] = hs->npasses - 1u;
                len[0] = hs->lcup;
                len[1] = hs->lref;
            }
            put_npasses(&bw, np[0] + np[1]);
            /* Lblock grows (a comma code, B.10.7.1) until each segment's length fits in
             * Lblock + floor(log2(its passes)) bits */
            uint32_t inc = 0;
            for (int q = 0; q < 2; q++) {
                const uint32_t have = cb->lblock + (np[q] ? tsr__floorlog2(np[q]) : 0),
                               need = np[q] ? bit_length(len[q]) : 0;
                if (need > have + inc)
                    inc = need - have;
            }
            for (uint32_t q = 0; q < inc; q++)
                tsr__biow_bit(&bw, 1);
            tsr__biow_bit(&bw, 0);
            cb->lblock = (uint8_t)(cb->lblock + inc);
            for (int q = 0; q < 2 && np[q]; q++)
                tsr__biow_bits(&bw, len[q], cb->lblock + tsr__floorlog2(np[q]));
        }
    }
    tsr__biow_flush(&bw);
    k->head_len = w->heads.len - k->head_at;
    size_t counted = 0; /* the bodies' bytes, laid out by pieces */
    for (uint32_t bi = 0; bi < res->nbands && present; bi++) {
        const tsr__j2k_band *band = &res->bands[bi];
        const tsr__j2k_prec *pr = &band->precs[k->p];
        for (uint32_t i = 0; i < pr->cw * pr->ch; i++) {
            const size_t g = band->cblk_base + pr->cblk0 + i;
            const tsr__j2k_cut was = cut_after(s, g, (int64_t)l - 1), now = cut_after(s, g, l);
            const tsr__j2k_ht_set *hs = ht_set(s->codes, g, now);
            tsr__j2k_piece pc[2] = {{NULL, 0}, {NULL, 0}};
            if (hs && was.passes == 0) {
                pc[0] = (tsr__j2k_piece){s->codes[g].data + hs->off, hs->lcup};
                pc[1] = (tsr__j2k_piece){s->codes[g].data + hs->ref, hs->lref};
            } else if (!hs && now.bytes > was.bytes) {
                pc[0] = (tsr__j2k_piece){s->codes[g].data + was.bytes, now.bytes - was.bytes};
            } else {
                continue;
            }
            counted += pc[0].len + pc[1].len;
            tsr__j2k_bytes_put(&w->pieces, pc, (pc[1].src ? 2 : 1) * sizeof pc[0]);
        }
    }
    k->npieces = w->pieces.len / sizeof(tsr__j2k_piece) - k->piece_at;
    k->counted = counted;
}

/* The tile's packets in progression order, for tsr__pi_iterate. */
typedef struct t2e_list {
    const size_t *prec_base; /* [c * TSR__J2K_MAX_RES + r]: the number of (c, r)'s first precinct */
    tsr__j2k_bytes *pkts;    /* t2e_packet records */
} t2e_list;

static int list_packet(void *user, uint32_t l, uint32_t c, uint32_t r, uint32_t p)
{
    t2e_list *a = user;
    const t2e_packet k = {l, c, r, p, (uint32_t)(a->prec_base[c * TSR__J2K_MAX_RES + r] + p), 0, 0,
                          0, 0, 0, 0};
    tsr__j2k_bytes_put(a->pkts, &k, sizeof k);
    return a->pkts->st != TSR_OK;
}

/* The tag trees' leaves for the first nlayers layers: the first layer that includes each block
 * (nlayers: none of those written; a tag tree coded up to threshold l + 1 tells only min(value,
 * l + 1), so the bytes of layer l do not depend on later ones) and its zero bit-planes; Lblock
 * from 3 (B.10.7.1). Each call starts from scratch, so T2 may be repeated (rate control). */
static void reset_precincts(const t2e_state *s, uint32_t nlayers)
{
    for (uint32_t c = 0; c < s->t->ncomps; c++) {
        tsr__j2k_tilecomp *tc = &s->t->comps[c];
        for (uint32_t r = 0; r < tc->numres; r++) {
            tsr__j2k_res *res = &tc->res[r];
            for (uint32_t bi = 0; bi < res->nbands; bi++) {
                tsr__j2k_band *band = &res->bands[bi];
                for (uint32_t q = 0; q < res->pw * res->ph; q++) {
                    tsr__j2k_prec *pr = &band->precs[q];
                    tsr__tgt_reset(&pr->incl);
                    tsr__tgt_reset(&pr->imsb);
                    for (uint32_t i = 0; i < pr->cw * pr->ch; i++) {
                        tsr__j2k_cblk *cb = &band->cblks[pr->cblk0 + i];
                        cb->lblock = 3;
                        const size_t g = band->cblk_base + pr->cblk0 + i;
                        uint32_t first = 0;
                        while (first < nlayers && !cut_after(s, g, first).passes)
                            first++;
                        tsr__tgt_set_value(&pr->incl, i, (int32_t)first);
                        tsr__tgt_set_value(&pr->imsb, i,
                                           zero_bp(s->codes, g,
                                                   first < nlayers ? cut_after(s, g, first)
                                                                   : (tsr__j2k_cut){0, 0}));
                    }
                }
            }
        }
    }
}

tsr_status tsr__t2_encode(tsr_ctx *ctx, const tsr__j2k_cs *cs, const tsr__j2k_tcp *tcp,
                          tsr__j2k_tile *t, const tsr__j2k_cblk_code *codes,
                          const tsr__j2k_cut *cuts, uint32_t nlayers, int threads,
                          tsr__j2k_bytes *out, tsr__j2k_bytes *packets, size_t *bodies,
                          tsr__j2k_bytes *pieces)
{
    const t2e_state s = {t, codes, cuts, tcp->numlayers};
    reset_precincts(&s, nlayers);
    /* the packets in progression order, then grouped by precinct (counting sort, stable) */
    size_t prec_base[4 * TSR__J2K_MAX_RES], nprec = 0;
    if (t->ncomps > 4)
        return tsr__fail(ctx, TSR_ERR_INTERNAL, "j2k encode: T2 of %u components", t->ncomps);
    for (uint32_t c = 0; c < t->ncomps; c++)
        for (uint32_t r = 0; r < t->comps[c].numres; r++) {
            prec_base[c * TSR__J2K_MAX_RES + r] = nprec;
            nprec += (size_t)t->comps[c].res[r].pw * t->comps[c].res[r].ph;
        }
    tsr__j2k_bytes list;
    tsr__j2k_bytes_init(&list, ctx);
    t2e_list a = {prec_base, &list};
    tsr__j2k_tcp prefix = *tcp; /* the progression over the first nlayers layers */
    prefix.numlayers = (uint16_t)nlayers;
    int stopped = 0;
    tsr_status st = tsr__pi_iterate(ctx, cs, &prefix, t, list_packet, &a, &stopped, 0);
    if (!st)
        st = list.st;
    t2e_packet *pk = (t2e_packet *)(void *)list.p;
    const size_t npk = list.len / sizeof *pk;
    size_t *at = NULL, *order = NULL;
    t2e_worker *w = NULL;
    if (threads < 1)
        threads = 1;
    if ((size_t)threads > nprec)
        threads = nprec ? (int)nprec : 1;
    if (!st && ((st = tsr__alloc(ctx, (nprec + 1) * sizeof *at, (void **)&at)) ||
                (st = tsr__alloc(ctx, (npk ? npk : 1) * sizeof *order, (void **)&order)) ||
                (st = tsr__alloc(ctx, (size_t)threads * sizeof *w, (void **)&w))))
        goto done;
    if (st)
        goto done;
    memset(at, 0, (nprec + 1) * sizeof *at);
    for (size_t i = 0; i < npk; i++)
        at[pk[i].prec + 1]++;
    for (size_t q = 0; q < nprec; q++)
        at[q + 1] += at[q];
    for (size_t i = 0; i < npk; i++)
        order[at[pk[i].prec]++] = i;
    for (size_t q = nprec; q > 0; q--) /* back to each precinct's first packet */
        at[q] = at[q - 1];
    at[0] = 0;
    for (int i = 0; i < threads; i++) {
        tsr__j2k_bytes_init(&w[i].heads, ctx);
        tsr__j2k_bytes_init(&w[i].pieces, ctx);
    }
    /* each precinct's packets on one worker, in their order; precincts in parallel */
#ifdef _OPENMP
#pragma omp parallel for num_threads(threads) schedule(dynamic, 1) if (threads > 1)
#endif
    for (size_t q = 0; q < nprec; q++) {
        const int tid = tsr__thread_num();
        for (size_t i = at[q]; i < at[q + 1]; i++) {
            pk[order[i]].worker = (uint32_t)tid;
            code_packet(&s, &pk[order[i]], &w[tid]);
        }
    }
    for (int i = 0; i < threads && !st; i++)
        st = w[i].heads.st ? w[i].heads.st : w[i].pieces.st;
    /* the packets in progression order: SOP, header, EPH (with Scod's bits), then the bodies */
    for (size_t i = 0; i < npk && !st; i++) {
        const t2e_packet *k = &pk[i];
        const t2e_worker *wk = &w[k->worker];
        const size_t start = out->len;
        if (tcp->csty & 2) { /* SOP: marker, Lsop = 4, Nsop */
            tsr__j2k_bytes_u16(out, 0xFF91);
            tsr__j2k_bytes_u16(out, 4);
            tsr__j2k_bytes_u16(out, (uint32_t)(i & 0xFFFF));
        }
        tsr__j2k_bytes_put(out, wk->heads.p + k->head_at, k->head_len);
        if (tcp->csty & 4)
            tsr__j2k_bytes_u16(out, 0xFF92); /* EPH */
        if (pieces) {
            const tsr__j2k_piece head = {NULL, out->len - start};
            tsr__j2k_bytes_put(pieces, &head, sizeof head);
            if (k->npieces) /* a worker with no pieces has no buffer */
                tsr__j2k_bytes_put(pieces, wk->pieces.p + k->piece_at * sizeof head,
                                   k->npieces * sizeof head);
        }
        *bodies += k->counted;
        if (packets) {
            const tsr__j2k_packet rec = {(uint32_t)(out->len - start + k->counted), (uint16_t)k->l,
                                         (uint16_t)k->c, (uint8_t)k->r};
            tsr__j2k_bytes_put(packets, &rec, sizeof rec);
        }
        st = out->st ? out->st : packets && packets->st ? packets->st : pieces ? pieces->st : 0;
    }
done:
    if (w)
        for (int i = 0; i < threads; i++) {
            tsr__j2k_bytes_free(&w[i].heads);
            tsr__j2k_bytes_free(&w[i].pieces);
        }
    tsr__free(ctx, w);
    tsr__free(ctx, order);
    tsr__free(ctx, at);
    tsr__j2k_bytes_free(&list);
    return st;
}
