/* Tier 2 encoding: the packets of a tile (T.800 B.9, B.10) over its quality layers. For each
 * packet in progression order (pi.c): the header (zero-length flag; per code-block of each
 * sub-band of the precinct, inclusion (a tag tree until the block's first inclusion, then one
 * bit), at the first inclusion the zero bit-planes by tag tree, the number of new coding passes
 * (Table B.4), the Lblock increment and the length of the new bytes (B.10.7.1; one codeword
 * segment per block, or an HT set's cleanup and refinement segments, T.814 B.3), then the bodies
 * of the code-blocks it includes: the headers are written, the bodies referenced where the codes
 * hold them (tsr__j2k_piece records). With Scod's bits, an SOP marker segment before each
 * packet (A.8.1) and an EPH marker after each header (A.8.2), empty packets included. */
#include "j2k/encode_stages.h"

typedef struct t2e_state {
    tsr__j2k_tile *t;
    const tsr__j2k_cblk_code *codes;
    const tsr__j2k_cut *cuts;
    uint32_t L; /* cuts per block */
    tsr__j2k_bytes *out;
    uint8_t csty;            /* Scod: 2 SOP, 4 EPH */
    uint32_t nsop;           /* packets written so far in the tile */
    tsr__j2k_bytes *packets; /* NULL, or a tsr__j2k_packet per packet */
    size_t *bodies;          /* the bodies' bytes, counted */
    tsr__j2k_bytes *pieces;  /* NULL, or the tsr__j2k_piece records of the packets */
} t2e_state;

static void piece(t2e_state *s, const uint8_t *src, size_t len)
{
    if (s->pieces) {
        const tsr__j2k_piece pc = {src, len};
        tsr__j2k_bytes_put(s->pieces, &pc, sizeof pc);
    }
}

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

static int packet(void *user, uint32_t l, uint32_t c, uint32_t r, uint32_t p)
{
    t2e_state *s = user;
    tsr__j2k_res *res = &s->t->comps[c].res[r];
    const size_t start = s->out->len;
    if (s->csty & 2) { /* SOP: marker, Lsop = 4, Nsop */
        tsr__j2k_bytes_u16(s->out, 0xFF91);
        tsr__j2k_bytes_u16(s->out, 4);
        tsr__j2k_bytes_u16(s->out, s->nsop & 0xFFFF);
    }
    s->nsop++;
    tsr__biow w;
    tsr__biow_init(&w, s->out);
    /* the packet is empty exactly when none of its code-blocks gains a pass in this layer */
    int present = 0;
    for (uint32_t bi = 0; bi < res->nbands && !present; bi++) {
        const tsr__j2k_band *band = &res->bands[bi];
        const tsr__j2k_prec *pr = &band->precs[p];
        for (uint32_t i = 0; i < pr->cw * pr->ch && !present; i++) {
            const size_t g = band->cblk_base + pr->cblk0 + i;
            present = cut_after(s, g, l).passes > cut_after(s, g, (int64_t)l - 1).passes;
        }
    }
    tsr__biow_bit(&w, (uint32_t)present);
    for (uint32_t bi = 0; bi < res->nbands && present; bi++) {
        tsr__j2k_band *band = &res->bands[bi];
        tsr__j2k_prec *pr = &band->precs[p];
        const uint32_t n = pr->cw * pr->ch;
        for (uint32_t i = 0; i < n; i++) {
            tsr__j2k_cblk *cb = &band->cblks[pr->cblk0 + i];
            const size_t g = band->cblk_base + pr->cblk0 + i;
            const tsr__j2k_cut was = cut_after(s, g, (int64_t)l - 1), now = cut_after(s, g, l);
            const uint32_t passes = (uint32_t)(now.passes - was.passes);
            const uint32_t bytes = now.bytes - was.bytes;
            if (was.passes == 0) { /* not included yet: the inclusion tag tree */
                tsr__tgt_encode(&w, &pr->incl, i, (int32_t)l + 1);
                if (!passes)
                    continue;
                tsr__tgt_encode(&w, &pr->imsb, i, (int32_t)zero_bp(s->codes, g, now) + 1);
            } else {
                tsr__biow_bit(&w, passes > 0);
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
            put_npasses(&w, np[0] + np[1]);
            /* Lblock grows (a comma code, B.10.7.1) until each segment's length fits in
             * Lblock + floor(log2(its passes)) bits */
            uint32_t inc = 0;
            for (int k = 0; k < 2; k++) {
                const uint32_t have = cb->lblock + (np[k] ? tsr__floorlog2(np[k]) : 0),
                               need = np[k] ? bit_length(len[k]) : 0;
                if (need > have + inc)
                    inc = need - have;
            }
            for (uint32_t k = 0; k < inc; k++)
                tsr__biow_bit(&w, 1);
            tsr__biow_bit(&w, 0);
            cb->lblock = (uint8_t)(cb->lblock + inc);
            for (int k = 0; k < 2 && np[k]; k++)
                tsr__biow_bits(&w, len[k], cb->lblock + tsr__floorlog2(np[k]));
        }
    }
    tsr__biow_flush(&w);
    if (s->csty & 4)
        tsr__j2k_bytes_u16(s->out, 0xFF92); /* EPH */
    piece(s, NULL, s->out->len - start);
    size_t counted = 0; /* the bodies' bytes, laid out by pieces */
    for (uint32_t bi = 0; bi < res->nbands && present; bi++) {
        const tsr__j2k_band *band = &res->bands[bi];
        const tsr__j2k_prec *pr = &band->precs[p];
        for (uint32_t i = 0; i < pr->cw * pr->ch; i++) {
            const size_t g = band->cblk_base + pr->cblk0 + i;
            const tsr__j2k_cut was = cut_after(s, g, (int64_t)l - 1), now = cut_after(s, g, l);
            const tsr__j2k_ht_set *hs = ht_set(s->codes, g, now);
            if (hs && was.passes == 0) {
                counted += (size_t)hs->lcup + hs->lref;
                piece(s, s->codes[g].data + hs->off, hs->lcup);
                piece(s, s->codes[g].data + hs->ref, hs->lref);
            } else if (!hs && now.bytes > was.bytes) {
                counted += now.bytes - was.bytes;
                piece(s, s->codes[g].data + was.bytes, now.bytes - was.bytes);
            }
        }
    }
    *s->bodies += counted;
    if (s->packets) {
        const tsr__j2k_packet pk = {(uint32_t)(s->out->len - start + counted), (uint16_t)l,
                                    (uint16_t)c, (uint8_t)r};
        tsr__j2k_bytes_put(s->packets, &pk, sizeof pk);
        if (s->packets->st)
            return 1;
    }
    return s->out->st != TSR_OK || (s->pieces && s->pieces->st != TSR_OK);
}

tsr_status tsr__t2_encode(tsr_ctx *ctx, const tsr__j2k_cs *cs, const tsr__j2k_tcp *tcp,
                          tsr__j2k_tile *t, const tsr__j2k_cblk_code *codes,
                          const tsr__j2k_cut *cuts, uint32_t nlayers, tsr__j2k_bytes *out,
                          tsr__j2k_bytes *packets, size_t *bodies, tsr__j2k_bytes *pieces)
{
    /* the tag trees' leaves: the first layer that includes each block (nlayers: none of those
     * written; a tag tree coded up to threshold l + 1 tells only min(value, l + 1), so the
     * bytes of layer l do not depend on later ones) and its zero bit-planes; each call starts
     * from scratch, so it may be repeated (rate control) */
    for (uint32_t c = 0; c < t->ncomps; c++) {
        tsr__j2k_tilecomp *tc = &t->comps[c];
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
                        cb->lblock = 3; /* a fresh run: Lblock from 3 (B.10.7.1) */
                        const size_t g = band->cblk_base + pr->cblk0 + i;
                        uint32_t first = 0;
                        while (first < nlayers && !cuts[g * tcp->numlayers + first].passes)
                            first++;
                        tsr__tgt_set_value(&pr->incl, i, (int32_t)first);
                        tsr__tgt_set_value(&pr->imsb, i,
                                           zero_bp(codes, g,
                                                   first < nlayers
                                                       ? cuts[g * tcp->numlayers + first]
                                                       : (tsr__j2k_cut){0, 0}));
                    }
                }
            }
        }
    }
    t2e_state s = {t, codes, cuts, tcp->numlayers, out, tcp->csty, 0, packets, bodies, pieces};
    tsr__j2k_tcp prefix = *tcp; /* the progression over the first nlayers layers */
    prefix.numlayers = (uint16_t)nlayers;
    int stopped = 0;
    tsr_status st = tsr__pi_iterate(ctx, cs, &prefix, t, packet, &s, &stopped, 0);
    if (st)
        return st;
    if (packets && packets->st)
        return packets->st;
    if (pieces && pieces->st)
        return pieces->st;
    return out->st;
}
