/* Tiles and tile-parts of an encode (T.800 A.4, B.3, A.7.1, A.7.3): each tile's packets
 * (t2_encode.c) cut into tile-parts by layer, resolution or component as they come in the
 * progression order (a new tile-part wherever the chosen index changes, as opj_compress -TP
 * does), each tile-part's header (SOT, the PLT segments listing its packets' lengths, SOD), and
 * the TLM entries of the main header. Every tile has a packet (its highest resolution is
 * never empty), so every tile has a tile-part. */
#include "j2k/encode_stages.h"

#include <string.h>

/* The index that splits tile-parts: a packet starts a new one where it differs. */
static uint32_t split_key(char split, uint32_t l, uint32_t c, uint32_t r)
{
    return split == 'L' ? l : split == 'R' ? r : split == 'C' ? c : 0;
}

typedef struct counter {
    char split;
    uint32_t n, key;
} counter;

static int count_packet(void *user, uint32_t l, uint32_t c, uint32_t r, uint32_t p)
{
    (void)p;
    counter *k = user;
    const uint32_t key = split_key(k->split, l, c, r);
    if (k->n == 0 || key != k->key)
        k->n++;
    k->key = key;
    return 0;
}

tsr_status tsr__j2k_tile_parts_count(tsr_ctx *ctx, tsr__j2k_enc_tiles *E)
{
    E->ntp_total = 0;
    for (uint32_t k = 0; k < E->cs->ntiles; k++) {
        counter cnt = {E->split, 0, 0};
        int stopped = 0;
        tsr_status st =
            tsr__pi_iterate(ctx, E->cs, E->tcp, &E->tiles[k], count_packet, &cnt, &stopped, 0);
        if (st)
            return st;
        if (cnt.n > 255)
            return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT,
                             "j2k encode: tile %u would have %u tile-parts split by %s; at most "
                             "255 (T.800 A.4.2): split by another index or use fewer layers",
                             k, cnt.n,
                             E->split == 'L'   ? "layer"
                             : E->split == 'R' ? "resolution"
                                               : "component");
        E->ntp[k] = cnt.n; /* >= 1: a tile's highest resolution is never empty */
        E->ntp_total += E->ntp[k];
    }
    return TSR_OK;
}

/* The packets pk[i .. *end - 1] that make the tile-part starting at packet i. */
static size_t tile_part_end(const tsr__j2k_enc_tiles *E, const tsr__j2k_packet *pk, size_t n,
                            size_t i)
{
    size_t end = i + 1;
    while (end < n && split_key(E->split, pk[end].l, pk[end].c, pk[end].r) ==
                          split_key(E->split, pk[i].l, pk[i].c, pk[i].r))
        end++;
    return end;
}

/* Tile k's packet records and their number. */
static const tsr__j2k_packet *packets_of(const tsr__j2k_enc_tiles *E, uint32_t k, size_t *n)
{
    *n = E->pkts_at[k + 1] - E->pkts_at[k];
    return (const tsr__j2k_packet *)(const void *)E->pkts.p + E->pkts_at[k];
}

tsr_status tsr__j2k_tiles_encode(tsr_ctx *ctx, tsr__j2k_enc_tiles *E,
                                 const tsr__j2k_cblk_code *codes, const tsr__j2k_cut *cuts,
                                 uint32_t nlayers, int measure, size_t *bytes)
{
    size_t total = 0, coded = 0;
    E->body.len = 0;
    E->pieces.len = 0;
    E->pkts.len = 0;
    E->body_at[0] = E->pkts_at[0] = 0;
    const size_t ncodes = E->first[E->cs->ntiles];
    for (size_t j = 0; j < ncodes; j++) /* the headers' most: a sixteenth of the codes' bytes */
        coded += cuts[j * E->tcp->numlayers + nlayers - 1].bytes;
    if (tsr__j2k_bytes_reserve(&E->body, coded / 16 + 4096))
        return E->body.st;
    for (uint32_t k = 0; k < E->cs->ntiles; k++) {
        size_t counted = 0;
        tsr_status st = tsr__t2_encode(ctx, E->cs, E->tcp, &E->tiles[k], codes + E->first[k],
                                       cuts + E->first[k] * E->tcp->numlayers, nlayers, E->threads,
                                       &E->body, &E->pkts, &counted, measure ? NULL : &E->pieces);
        if (st)
            return st;
        E->body_at[k + 1] = E->body.len;
        E->pkts_at[k + 1] = E->pkts.len / sizeof(tsr__j2k_packet);
        size_t n;
        const tsr__j2k_packet *pk = packets_of(E, k, &n);
        total += E->body_at[k + 1] - E->body_at[k] + counted;
        for (size_t i = 0; i < n;) {
            const size_t end = tile_part_end(E, pk, n, i);
            total += 14; /* SOT, SOD */
            if (E->plt) {
                const size_t plt = tsr__j2k_plt_size(pk + i, end - i);
                if (!plt)
                    return tsr__fail(ctx, TSR_ERR_LIMIT,
                                     "j2k encode: tile %u: a tile-part has too many packets for "
                                     "the 256 PLT marker segments its header may hold",
                                     k);
                total += plt;
            }
            i = end;
        }
    }
    *bytes = E->bytes = total;
    return TSR_OK;
}

/* Writes v (the bytes' count) big-endian at off in head. */
static void set_be(tsr__j2k_bytes *head, size_t off, uint32_t v, uint32_t nbytes)
{
    if (head->st || off + nbytes > head->len)
        return;
    for (uint32_t b = 0; b < nbytes; b++)
        head->p[off + b] = (uint8_t)(v >> (8 * (nbytes - 1 - b)));
}

/* A code-block body's place in the output: len bytes from src to out->p + dst. */
typedef struct body_copy {
    size_t dst;
    const uint8_t *src;
    size_t len;
} body_copy;

void tsr__j2k_tiles_write(const tsr__j2k_enc_tiles *E, tsr__j2k_bytes *head, size_t tlm_at,
                          tsr__j2k_bytes *out)
{
    const uint32_t esize = tsr__j2k_tlm_entry_size(E->cs->ntiles);
    const uint32_t per = tsr__j2k_tlm_per_segment(E->cs->ntiles);
    uint32_t entry = 0;
    const tsr__j2k_piece *pc = (const tsr__j2k_piece *)(const void *)E->pieces.p,
                         *pc_end = pc + E->pieces.len / sizeof *pc;
    size_t at = 0; /* the next header byte */
    /* the markers and headers in order, the bodies' places noted and copied after, in
     * parallel: out holds the tiles' E->bytes from here on, so it does not move */
    body_copy *copies = NULL;
    size_t ncopies = 0, copied = 0;
    if (tsr__j2k_bytes_reserve(out, E->bytes) ||
        (out->st =
             tsr__alloc(out->ctx, (size_t)(pc_end - pc + 1) * sizeof *copies, (void **)&copies)))
        return;
    for (uint32_t k = 0; k < E->cs->ntiles; k++) {
        size_t n;
        const tsr__j2k_packet *pk = packets_of(E, k, &n);
        for (size_t i = 0, tp = 0; i < n; tp++) {
            const size_t end = tile_part_end(E, pk, n, i);
            size_t len = 0;
            for (size_t j = i; j < end; j++)
                len += pk[j].len;
            const size_t plt = E->plt ? tsr__j2k_plt_size(pk + i, end - i) : 0;
            const uint32_t psot = (uint32_t)(12 + plt + 2 + len);
            tsr__j2k_write_sot(k, psot, (uint32_t)tp, E->ntp[k], out);
            if (E->plt)
                tsr__j2k_write_plt(pk + i, end - i, out);
            tsr__j2k_bytes_u16(out, 0xFF93);                         /* SOD */
            for (size_t left = len; left && pc < pc_end; pc++) {     /* its packets' pieces */
                const size_t take = pc->len < left ? pc->len : left; /* == pc->len */
                if (pc->src && !out->st) {
                    copies[ncopies++] = (body_copy){out->len, pc->src, take};
                    out->len += take;
                    copied += take;
                } else if (!pc->src) {
                    tsr__j2k_bytes_put(out, E->body.p + at, take);
                    at += take;
                }
                left -= take;
            }
            if (tlm_at) { /* entry `entry`: Ttlm then Ptlm, after its segment's 6 bytes */
                const size_t off = tlm_at + (size_t)(entry / per) * (6 + (size_t)per * esize) + 6 +
                                   (size_t)(entry % per) * esize;
                set_be(head, off, k, esize - 4);
                set_be(head, off + esize - 4, psot, 4);
            }
            entry++;
            i = end;
        }
    }
    /* the bodies: the first touch of most of out's pages, on the encode's threads (a single
     * thread faults them in at a fraction of the copy rate) */
    const int threads = E->threads > 1 && copied >= ((size_t)1 << 20) ? E->threads : 1;
    if (!out->st) {
#ifdef _OPENMP
#pragma omp parallel for num_threads(threads) schedule(static) if (threads > 1)
#endif
        for (size_t i = 0; i < ncopies; i++)
            memcpy(out->p + copies[i].dst, copies[i].src, copies[i].len);
    }
    tsr__free(out->ctx, copies);
}
