/* Tier 2: packets (T.800 B.9, B.10; T.814 B.3 for HT code-blocks).
 *
 * For each packet in progression order: the optional SOP marker, the packet header (zero-length
 * flag; per code-block inclusion by tag tree or one bit, zero bit-planes by tag tree, the number
 * of new coding passes, the Lblock increment and one length per codeword segment piece), the
 * optional EPH marker, then the bodies. Headers come from the tile data or, with PPM/PPT, from
 * the packed headers. Each code-block contribution becomes a chunk (code-block, segment number,
 * passes, bytes); the segment rule is the one t1.h states (tsr__t1_segment_max_passes).
 * A stream that ends inside a packet keeps what came before it (and the part of the body that is
 * there) and stops with a warning. */
#include "j2k/decode_stages.h"
#include "j2k/reader.h"
#include "j2k/t1.h"

#include <stdio.h>
#include <string.h>

typedef struct piece {
    uint32_t gidx;
    uint16_t segno, passes;
    uint32_t len;
} piece;

typedef struct t2_state {
    tsr_ctx *ctx;
    const tsr__j2k_cs *cs;
    const tsr__j2k_tcp *tcp;
    tsr__j2k_tile *t;
    const uint8_t *body;
    size_t body_len, pos;
    const uint8_t *hdr;
    size_t hdr_len, hpos;
    uint32_t layers;
    size_t body_base;
    tsr__j2k_t2 *out;
    tsr__j2k_warn *warn;
    tsr_status err;
    piece *pieces; /* scratch for one packet */
    size_t npieces, pcap;
} t2_state;

static tsr_status push_piece(t2_state *s, uint32_t gidx, uint32_t segno, uint32_t passes,
                             uint32_t len)
{
    if (s->npieces == s->pcap) {
        size_t ncap = s->pcap ? s->pcap * 2 : 256;
        piece *np;
        tsr_status st = tsr__alloc(s->ctx, ncap * sizeof *np, (void **)&np);
        if (st)
            return s->err = st;
        if (s->npieces)
            memcpy(np, s->pieces, s->npieces * sizeof *np);
        tsr__free(s->ctx, s->pieces);
        s->pieces = np;
        s->pcap = ncap;
    }
    piece *p = &s->pieces[s->npieces++];
    p->gidx = gidx;
    p->segno = (uint16_t)segno;
    p->passes = (uint16_t)passes;
    p->len = len;
    return TSR_OK;
}

static tsr_status push_chunk(t2_state *s, const piece *p, const uint8_t *ptr, uint32_t len)
{
    tsr__j2k_t2 *o = s->out;
    if (o->nchunks == o->cap) {
        uint32_t ncap = o->cap ? o->cap * 2 : 1024;
        if (ncap < o->cap)
            return tsr__fail(s->ctx, TSR_ERR_LIMIT, "too many code-block contributions");
        tsr__j2k_chunk *nc;
        tsr_status st = tsr__alloc(s->ctx, (size_t)ncap * sizeof *nc, (void **)&nc);
        if (st)
            return st;
        if (o->nchunks)
            memcpy(nc, o->chunks, o->nchunks * sizeof *nc);
        tsr__free(s->ctx, o->chunks);
        o->chunks = nc;
        o->cap = ncap;
    }
    tsr__j2k_chunk *c = &o->chunks[o->nchunks++];
    c->cblk = p->gidx;
    c->segno = p->segno;
    c->passes = p->passes;
    c->len = len;
    c->ptr = ptr;
    return TSR_OK;
}

/* Number of coding passes (B.10.6, Table B.4). */
static uint32_t read_npasses(tsr__bio *b)
{
    if (!tsr__bio_bit(b))
        return 1;
    if (!tsr__bio_bit(b))
        return 2;
    uint32_t n = tsr__bio_read(b, 2);
    if (n != 3)
        return 3 + n;
    n = tsr__bio_read(b, 5);
    if (n != 31)
        return 6 + n;
    return 37 + tsr__bio_read(b, 7);
}

enum { CB_CONTINUE = 0, CB_STOP = 1, CB_ERROR = 2 };

static int corrupt(t2_state *s, uint32_t l, uint32_t c, uint32_t r, uint32_t p, const char *what)
{
    /* Where: the file offset of the packet's data when the tile is one tile-part (else the
     * offset inside the tile's concatenated data), or of its packed header. */
    char where[96];
    if (s->hdr)
        snprintf(where, sizeof where, "packed header offset %zu", s->hpos);
    else if (s->body_base != SIZE_MAX)
        snprintf(where, sizeof where, "at byte %zu", s->body_base + s->pos);
    else
        snprintf(where, sizeof where, "tile data offset %zu", s->pos);
    s->err = tsr__fail(s->ctx, TSR_ERR_CORRUPT,
                       "tile %u, packet (layer %u, component %u, resolution %u, precinct %u): %s "
                       "(%s)",
                       s->t->index, l, c, r, p, what, where);
    return CB_ERROR;
}

/* Reads the segment lengths of one code-block's new passes (B.10.7; T.814 B.3). */
static int read_lengths(t2_state *s, tsr__bio *b, tsr__j2k_cblk *cb, uint32_t gidx, unsigned style,
                        uint32_t newpasses, uint32_t l, uint32_t c, uint32_t r, uint32_t p)
{
    uint32_t remaining = newpasses;
    if (cb->is_ht && !cb->ht_seen) {
        /* Leading placeholder passes and the HT cleanup pass share one length; the passes
         * after the cleanup (pass 3k, counted over all layers) form the refinement segment.
         * segp < 1: no cleanup pass can be among these passes (all placeholders). */
        uint32_t avail = remaining;
        uint32_t href = (cb->npasses + avail - 1) % 3;
        uint32_t segp = avail > href ? avail - href : avail;
        uint32_t bits = cb->lblock + tsr__floorlog2(segp);
        if (bits > 32)
            return corrupt(s, l, c, r, p, "segment length needs more than 32 bits");
        uint32_t len = tsr__bio_read(b, bits);
        int mixed = (style & TSR__T1_STYLE_HT_MIXED) && !cb->ht_decided;
        if (avail <= href && len != 0 && !mixed) {
            tsr__j2k_warnf(s->warn, "tile %u: HT length for passes without a cleanup pass",
                           s->t->index);
            len = 0;
        }
        if (len != 0 && mixed &&
            (avail <= href || !(cb->lblock > 3 && len > 1 && (len >> (bits - 1)) == 0))) {
            /* Mixed mode: a Part-1 code-block (its first length has more bits). */
            uint32_t extra = tsr__floorlog2(avail) - tsr__floorlog2(segp);
            if (bits + extra > 32)
                return corrupt(s, l, c, r, p, "segment length needs more than 32 bits");
            len = (len << extra) | tsr__bio_read(b, extra);
            cb->is_ht = 0;
            cb->ht_decided = 1;
            cb->nsegs++;
            cb->seg_passes = (uint16_t)avail;
            cb->seg_max = (uint16_t)tsr__t1_segment_max_passes(style & 0x3f, cb->npasses, avail, 0);
            cb->seg_open = cb->seg_passes < cb->seg_max;
            cb->npasses = (uint16_t)(cb->npasses + avail);
            if (push_piece(s, gidx, cb->nsegs - 1u, avail, len))
                return CB_ERROR;
            return CB_CONTINUE;
        }
        if (len == 0) {
            /* Placeholder passes: the length has as many bits as for `avail` passes. */
            uint32_t extra = tsr__floorlog2(avail) - tsr__floorlog2(segp);
            uint32_t v = tsr__bio_read(b, extra);
            if (v != 0) {
                if (mixed) {
                    cb->is_ht = 0;
                    cb->ht_decided = 1;
                    cb->nsegs++;
                    cb->seg_passes = (uint16_t)avail;
                    cb->seg_max =
                        (uint16_t)tsr__t1_segment_max_passes(style & 0x3f, cb->npasses, avail, 0);
                    cb->seg_open = cb->seg_passes < cb->seg_max;
                    cb->npasses = (uint16_t)(cb->npasses + avail);
                    if (push_piece(s, gidx, cb->nsegs - 1u, avail, v))
                        return CB_ERROR;
                    return CB_CONTINUE;
                }
                tsr__j2k_warnf(s->warn, "tile %u: invalid HT placeholder length", s->t->index);
            }
            cb->nsegs++;
            cb->seg_open = 0;
            cb->npasses = (uint16_t)(cb->npasses + avail);
            if (push_piece(s, gidx, cb->nsegs - 1u, avail, 0))
                return CB_ERROR;
            return CB_CONTINUE;
        }
        cb->ht_seen = 1;
        cb->ht_decided = 1;
        cb->nsegs++;
        cb->seg_open = 0;
        cb->npasses = (uint16_t)(cb->npasses + segp);
        if (push_piece(s, gidx, cb->nsegs - 1u, segp, len))
            return CB_ERROR;
        remaining -= segp;
    }
    unsigned st = cb->is_ht ? (style | TSR__T1_STYLE_HT) : (style & 0x3f);
    while (remaining > 0) {
        if (!cb->seg_open) {
            cb->nsegs++;
            cb->seg_passes = 0;
            cb->seg_max =
                (uint16_t)tsr__t1_segment_max_passes(st, cb->npasses, remaining, cb->ht_seen);
            if (cb->seg_max == 0)
                cb->seg_max = 1;
            cb->seg_open = 1;
        }
        uint32_t take = cb->seg_max - cb->seg_passes;
        if (take > remaining)
            take = remaining;
        uint32_t bits = cb->lblock + tsr__floorlog2(take);
        if (bits > 32)
            return corrupt(s, l, c, r, p, "segment length needs more than 32 bits");
        uint32_t len = tsr__bio_read(b, bits);
        if (push_piece(s, gidx, cb->nsegs - 1u, take, len))
            return CB_ERROR;
        cb->seg_passes = (uint16_t)(cb->seg_passes + take);
        cb->npasses = (uint16_t)(cb->npasses + take);
        remaining -= take;
        if (cb->seg_passes >= cb->seg_max)
            cb->seg_open = 0;
    }
    return CB_CONTINUE;
}

static int packet(void *user, uint32_t l, uint32_t c, uint32_t r, uint32_t p)
{
    t2_state *s = user;
    const tsr__j2k_tcp *tcp = s->tcp;
    tsr__j2k_tilecomp *tc = &s->t->comps[c];
    tsr__j2k_res *res = &tc->res[r];
    unsigned style = tcp->tccps[c].cblksty;
    uint32_t roishift = tcp->tccps[c].roishift;

    /* SOP (A.8.1): in the tile data even when headers are packed elsewhere. */
    if (tcp->csty & 2) {
        if (s->pos + 6 <= s->body_len && s->body[s->pos] == 0xFF && s->body[s->pos + 1] == 0x91) {
            if (tsr__rd16(s->body + s->pos + 2) != 4)
                tsr__j2k_warnf(s->warn, "tile %u: SOP with length %u", s->t->index,
                               tsr__rd16(s->body + s->pos + 2));
            s->pos += 6;
        } /* SOP is optional per packet (A.6.1: "may be used") */
    }
    const uint8_t *hsrc;
    size_t hlen;
    size_t *hpos;
    if (s->hdr) {
        hsrc = s->hdr;
        hlen = s->hdr_len;
        hpos = &s->hpos;
    } else {
        hsrc = s->body;
        hlen = s->body_len;
        hpos = &s->pos;
    }
    if (*hpos >= hlen) {
        tsr__j2k_warnf(s->warn,
                       "tile %u: data ends before packet (layer %u, component %u, "
                       "resolution %u, precinct %u)",
                       s->t->index, l, c, r, p);
        s->warn->truncated = 1;
        return CB_STOP;
    }
    tsr__bio b;
    tsr__bio_init(&b, hsrc + *hpos, hlen - *hpos);
    s->npieces = 0;
    uint32_t present = tsr__bio_bit(&b);
    if (present) {
        for (uint32_t bi = 0; bi < res->nbands; bi++) {
            tsr__j2k_band *band = &res->bands[bi];
            tsr__j2k_prec *pr = &band->precs[p];
            uint32_t n = pr->cw * pr->ch;
            for (uint32_t i = 0; i < n; i++) {
                tsr__j2k_cblk *cb = &band->cblks[pr->cblk0 + i];
                uint32_t gidx = band->cblk_base + pr->cblk0 + i;
                uint32_t inc;
                if (!cb->included)
                    inc = (uint32_t)tsr__tgt_decode(&b, &pr->incl, i, (int32_t)l + 1);
                else
                    inc = tsr__bio_bit(&b);
                if (b.overrun)
                    goto truncated;
                if (!inc)
                    continue;
                if (!cb->included) {
                    /* More zero bit-planes than the band has only leave nothing to decode
                     * (HT encoders emit that for empty blocks); t1 decides. */
                    int32_t cap = 74;
                    int32_t zb = tsr__tgt_decode_value(&b, &pr->imsb, i, cap);
                    (void)roishift;
                    if (b.overrun)
                        goto truncated;
                    if (zb > cap)
                        return corrupt(s, l, c, r, p, "zero bit-planes exceed 74");
                    cb->zero_bp = (uint8_t)zb;
                    cb->included = 1;
                    cb->is_ht = (style & TSR__T1_STYLE_HT) ? 1 : 0;
                }
                uint32_t np = read_npasses(&b);
                uint32_t inc_l = 0;
                while (tsr__bio_bit(&b)) {
                    if (++inc_l > 32 || b.overrun)
                        break;
                }
                if (b.overrun)
                    goto truncated;
                cb->lblock = (uint8_t)(cb->lblock + inc_l);
                if (cb->lblock > 32)
                    return corrupt(s, l, c, r, p, "Lblock exceeds 32 bits");
                if (cb->npasses + np > TSR__T1_MAX_PASSES)
                    return corrupt(s, l, c, r, p, "a code-block has more than 255 coding passes");
                int rc = read_lengths(s, &b, cb, gidx, style, np, l, c, r, p);
                if (rc)
                    return s->err ? CB_ERROR : rc;
                if (b.overrun)
                    goto truncated;
            }
        }
    }
    tsr__bio_align(&b);
    if (b.overrun)
        goto truncated;
    *hpos += tsr__bio_bytes(&b);
    /* EPH (A.8.2) */
    if (tcp->csty & 4) {
        if (*hpos + 2 <= hlen && hsrc[*hpos] == 0xFF && hsrc[*hpos + 1] == 0x92)
            *hpos += 2;
        else
            tsr__j2k_warnf(s->warn, "tile %u: expected EPH after a packet header", s->t->index);
    }
    /* Bodies. */
    for (size_t i = 0; i < s->npieces; i++) {
        piece *pc = &s->pieces[i];
        size_t left = s->body_len - s->pos;
        uint32_t len = pc->len;
        int cut = 0;
        if (len > left) {
            len = (uint32_t)left;
            cut = 1;
        }
        tsr__j2k_cblk *cb = s->t->cblk_ptr[pc->gidx];
        if (cb->need && l < s->layers) {
            tsr_status st = push_chunk(s, pc, s->body + s->pos, len);
            if (st) {
                s->err = st;
                return CB_ERROR;
            }
        }
        s->pos += len;
        if (cut) {
            tsr__j2k_warnf(s->warn,
                           "tile %u: code-block data cut short in packet (layer %u, component "
                           "%u, resolution %u, precinct %u)",
                           s->t->index, l, c, r, p);
            s->warn->truncated = 1;
            return CB_STOP;
        }
    }
    return CB_CONTINUE;

truncated:
    tsr__j2k_warnf(s->warn,
                   "tile %u: packet header (layer %u, component %u, resolution %u, "
                   "precinct %u) runs past the data",
                   s->t->index, l, c, r, p);
    s->warn->truncated = 1;
    return CB_STOP;
}

tsr_status tsr__t2_decode(tsr_ctx *ctx, const tsr__j2k_cs *cs, const tsr__j2k_tcp *tcp,
                          tsr__j2k_tile *t, const uint8_t *body, size_t body_len,
                          const uint8_t *hdr, size_t hdr_len, uint32_t layers, size_t body_base,
                          tsr__j2k_t2 *out, tsr__j2k_warn *warn)
{
    t2_state s;
    memset(&s, 0, sizeof s);
    s.ctx = ctx;
    s.cs = cs;
    s.tcp = tcp;
    s.t = t;
    s.body = body;
    s.body_len = body_len;
    s.hdr = hdr;
    s.hdr_len = hdr_len;
    s.layers = layers;
    s.body_base = body_base;
    s.out = out;
    s.warn = warn;
    int stopped = 0;
    /* Every packet costs at least one byte of header (or the data runs out and the walk stops),
     * so a walk that visits far more packets than there are bytes is a hostile POC list. */
    uint64_t limit = 10000000u + 64u * ((uint64_t)body_len + hdr_len);
    tsr_status st = tsr__pi_iterate(ctx, cs, tcp, t, packet, &s, &stopped, limit);
    tsr__free(ctx, s.pieces);
    if (st)
        return st;
    if (stopped == CB_ERROR)
        return s.err ? s.err : TSR_ERR_CORRUPT;
    if (stopped == TSR__PI_TOO_LONG) {
        tsr__j2k_warnf(warn,
                       "tile %u: progression visits far more packets than the data holds; "
                       "stopped",
                       t->index);
        warn->truncated = 1;
        return TSR_OK;
    }
    /* Every packet read: the tile's data should be used up exactly. */
    if (!stopped && s.pos < body_len)
        tsr__j2k_warnf(warn, "tile %u: %zu bytes after its last packet ignored", t->index,
                       body_len - s.pos);
    if (!stopped && hdr && s.hpos < hdr_len)
        tsr__j2k_warnf(warn, "tile %u: %zu bytes of packed packet headers unused", t->index,
                       hdr_len - s.hpos);
    return TSR_OK;
}

void tsr__t2_free(tsr_ctx *ctx, tsr__j2k_t2 *t2)
{
    tsr__free(ctx, t2->chunks);
    memset(t2, 0, sizeof *t2);
}
