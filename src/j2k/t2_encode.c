/* Tier 2 encoding: the packets of a tile (T.800 B.9, B.10) with one quality layer. For each
 * packet in progression order (pi.c): the header (zero-length flag; per code-block of each
 * sub-band of the precinct, inclusion by tag tree, zero bit-planes by tag tree, the number of
 * coding passes (Table B.4), the Lblock increment and one length per codeword segment), then
 * the bodies of the code-blocks it includes. No SOP or EPH markers. */
#include "j2k/encode_stages.h"

typedef struct t2e_state {
    tsr__j2k_tile *t;
    const tsr__j2k_cblk_code *codes;
    tsr__j2k_bytes *out;
} t2e_state;

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
    tsr__biow w;
    tsr__biow_init(&w, s->out);
    /* Layer 0 carries every pass of every coded block: the packet is empty exactly when none of
     * its code-blocks is coded (and later layers would be empty). */
    int present = 0;
    for (uint32_t bi = 0; bi < res->nbands && !present; bi++) {
        const tsr__j2k_band *band = &res->bands[bi];
        const tsr__j2k_prec *pr = &band->precs[p];
        for (uint32_t i = 0; i < pr->cw * pr->ch && !present; i++)
            present = s->codes[band->cblk_base + pr->cblk0 + i].npasses > 0;
    }
    present = present && l == 0;
    tsr__biow_bit(&w, (uint32_t)present);
    if (present) {
        for (uint32_t bi = 0; bi < res->nbands; bi++) {
            tsr__j2k_band *band = &res->bands[bi];
            tsr__j2k_prec *pr = &band->precs[p];
            const uint32_t n = pr->cw * pr->ch;
            for (uint32_t i = 0; i < n; i++) {
                tsr__j2k_cblk *cb = &band->cblks[pr->cblk0 + i];
                const tsr__j2k_cblk_code *code = &s->codes[band->cblk_base + pr->cblk0 + i];
                tsr__tgt_encode(&w, &pr->incl, i, (int32_t)l + 1);
                if (!code->npasses)
                    continue;
                tsr__tgt_encode(&w, &pr->imsb, i, (int32_t)code->zero_bp + 1);
                cb->included = 1;
                put_npasses(&w, code->npasses);
                /* Lblock grows (a comma code, B.10.7.1) until every segment's length fits in
                 * Lblock + floor(log2(its passes)) bits */
                uint32_t inc = 0;
                for (uint32_t k = 0; k < code->nsegs; k++) {
                    uint32_t have = cb->lblock + tsr__floorlog2(code->seg_passes[k]);
                    uint32_t need = bit_length(code->seg_len[k]);
                    if (need > have && need - have > inc)
                        inc = need - have;
                }
                for (uint32_t k = 0; k < inc; k++)
                    tsr__biow_bit(&w, 1);
                tsr__biow_bit(&w, 0);
                cb->lblock = (uint8_t)(cb->lblock + inc);
                for (uint32_t k = 0; k < code->nsegs; k++)
                    tsr__biow_bits(&w, code->seg_len[k],
                                   cb->lblock + tsr__floorlog2(code->seg_passes[k]));
            }
        }
    }
    tsr__biow_flush(&w);
    if (present)
        for (uint32_t bi = 0; bi < res->nbands; bi++) {
            const tsr__j2k_band *band = &res->bands[bi];
            const tsr__j2k_prec *pr = &band->precs[p];
            for (uint32_t i = 0; i < pr->cw * pr->ch; i++) {
                const tsr__j2k_cblk_code *code = &s->codes[band->cblk_base + pr->cblk0 + i];
                if (code->npasses)
                    tsr__j2k_bytes_put(s->out, code->data, code->len);
            }
        }
    return s->out->st != TSR_OK;
}

tsr_status tsr__t2_encode(tsr_ctx *ctx, const tsr__j2k_cs *cs, const tsr__j2k_tcp *tcp,
                          tsr__j2k_tile *t, const tsr__j2k_cblk_code *codes, tsr__j2k_bytes *out)
{
    /* the tag trees' leaves: the first layer of each block (0; 1 for "not in layer 0") and its
     * zero bit-planes; each call starts from scratch, so it may be repeated (rate control) */
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
                        cb->included = 0; /* a fresh run: Lblock from 3 (B.10.7.1) */
                        cb->lblock = 3;
                        const tsr__j2k_cblk_code *code = &codes[band->cblk_base + pr->cblk0 + i];
                        tsr__tgt_set_value(&pr->incl, i, code->npasses ? 0 : 1);
                        tsr__tgt_set_value(&pr->imsb, i, code->zero_bp);
                    }
                }
            }
        }
    }
    t2e_state s = {t, codes, out};
    int stopped = 0;
    tsr_status st = tsr__pi_iterate(ctx, cs, tcp, t, packet, &s, &stopped, 0);
    if (st)
        return st;
    return out->st;
}
