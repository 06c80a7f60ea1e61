/* Marker segments an encode writes (T.800 Annex A): SOC, SIZ (A.5.1), COD (A.6.1), QCD (A.6.4),
 * TLM (A.7.1), SOT (A.4.2), PLT (A.7.3), SOD, EOC; and the JP2 boxes around a codestream (Annex
 * I.5): signature, file type, header (image header, colour specification, channel definition for
 * alpha) and the contiguous codestream box. */
#include "j2k/encode_stages.h"

uint32_t tsr__j2k_tlm_entry_size(uint32_t ntiles)
{
    return ntiles <= 255 ? 5 : 6;
}

uint32_t tsr__j2k_tlm_per_segment(uint32_t ntiles)
{
    return (65535 - 4) / tsr__j2k_tlm_entry_size(ntiles);
}

void tsr__j2k_write_main_header(const tsr__j2k_cs *cs, const tsr__j2k_tcp *tcp, uint32_t ntp,
                                size_t *tlm_at, tsr__j2k_bytes *out)
{
    const tsr__j2k_tccp *tccp = &tcp->tccps[0];
    tsr__j2k_bytes_u16(out, 0xFF4F); /* SOC */
    /* SIZ */
    tsr__j2k_bytes_u16(out, 0xFF51);
    tsr__j2k_bytes_u16(out, 38 + 3 * cs->ncomps);
    tsr__j2k_bytes_u16(out, cs->rsiz);
    tsr__j2k_bytes_u32(out, cs->x1);
    tsr__j2k_bytes_u32(out, cs->y1);
    tsr__j2k_bytes_u32(out, cs->x0);
    tsr__j2k_bytes_u32(out, cs->y0);
    tsr__j2k_bytes_u32(out, cs->tw);
    tsr__j2k_bytes_u32(out, cs->th);
    tsr__j2k_bytes_u32(out, cs->tx0);
    tsr__j2k_bytes_u32(out, cs->ty0);
    tsr__j2k_bytes_u16(out, cs->ncomps);
    for (uint32_t c = 0; c < cs->ncomps; c++) {
        tsr__j2k_bytes_u8(out, (uint32_t)(cs->comps[c].prec - 1) | (cs->comps[c].sgnd ? 0x80 : 0));
        tsr__j2k_bytes_u8(out, cs->comps[c].dx);
        tsr__j2k_bytes_u8(out, cs->comps[c].dy);
    }
    if (cs->rsiz & 0x4000) { /* CAP (T.814 A.3): Pcap bit 15 (Part 15), then Ccap15 */
        uint32_t mb = 0;
        for (uint32_t i = 0; i < tccp->nsteps; i++)
            mb = tccp->steps[i].expn > mb ? tccp->steps[i].expn : mb;
        mb += tccp->numgbits - 1u;
        /* MAGB (Table A.4): 0 for B <= 8, B - 8 up to 27, then 19 + ceil((B - 27) / 4) */
        const uint32_t magb = mb <= 8 ? 0 : mb <= 27 ? mb - 8 : 19 + (mb - 27 + 3) / 4;
        tsr__j2k_bytes_u16(out, 0xFF50);
        tsr__j2k_bytes_u16(out, 8);
        tsr__j2k_bytes_u32(out, 1u << (32 - 15));
        /* HTONLY (bits 15-14 zero), one HT set, no ROI, HTIRV (bit 5) for the 9/7 */
        tsr__j2k_bytes_u16(out, (tccp->qmfbid ? 0u : 0x20u) | magb);
    }
    /* COD: Scod, SGcod (progression, layers, MCT), SPcod (levels, code-block size and style,
     * transform, then with Scod bit 0 each resolution's precinct size, PPx low nibble) */
    const int prec = tccp->csty & 1;
    tsr__j2k_bytes_u16(out, 0xFF52);
    tsr__j2k_bytes_u16(out, 12 + (prec ? tccp->numres : 0u));
    tsr__j2k_bytes_u8(out, tcp->csty | (uint32_t)prec);
    tsr__j2k_bytes_u8(out, tcp->prg);
    tsr__j2k_bytes_u16(out, tcp->numlayers);
    tsr__j2k_bytes_u8(out, tcp->mct);
    tsr__j2k_bytes_u8(out, tccp->numres - 1u);
    tsr__j2k_bytes_u8(out, tccp->xcb - 2u);
    tsr__j2k_bytes_u8(out, tccp->ycb - 2u);
    tsr__j2k_bytes_u8(out, tccp->cblksty);
    tsr__j2k_bytes_u8(out, tccp->qmfbid);
    for (uint32_t r = 0; prec && r < tccp->numres; r++)
        tsr__j2k_bytes_u8(out, tccp->prcw[r] | ((uint32_t)tccp->prch[r] << 4));
    /* QCD (A.6.4): without quantisation (reversible) one exponent byte per sub-band (Table
     * A.29), scalar expounded two bytes of exponent and mantissa (Table A.30) */
    const int scalar = tccp->qntsty == 2;
    tsr__j2k_bytes_u16(out, 0xFF5C);
    tsr__j2k_bytes_u16(out, 3 + (scalar ? 2u : 1u) * tccp->nsteps);
    tsr__j2k_bytes_u8(out, ((uint32_t)tccp->numgbits << 5) | tccp->qntsty);
    for (uint32_t i = 0; i < tccp->nsteps; i++) {
        if (scalar)
            tsr__j2k_bytes_u16(out, ((uint32_t)tccp->steps[i].expn << 11) | tccp->steps[i].mant);
        else
            tsr__j2k_bytes_u8(out, (uint32_t)tccp->steps[i].expn << 3);
    }
    if (tlm_at) { /* TLM (A.7.1): Ztlm, Stlm (ST 1: 8-bit Ttlm, 2: 16-bit; SP 1: 32-bit
                     Ptlm), entries as tsr__j2k_tiles_write fills them */
        const uint32_t esize = tsr__j2k_tlm_entry_size(cs->ntiles);
        const uint32_t per = tsr__j2k_tlm_per_segment(cs->ntiles);
        *tlm_at = out->len;
        for (uint32_t z = 0, left = ntp; left > 0; z++) {
            const uint32_t k = left < per ? left : per;
            tsr__j2k_bytes_u16(out, 0xFF55);
            tsr__j2k_bytes_u16(out, 4 + k * esize);
            tsr__j2k_bytes_u8(out, z);
            tsr__j2k_bytes_u8(out, esize == 5 ? 0x50 : 0x60);
            for (uint32_t i = 0; i < k * esize; i++)
                tsr__j2k_bytes_u8(out, 0);
            left -= k;
        }
    }
}

void tsr__j2k_write_sot(uint32_t tile, uint32_t psot, uint32_t tpsot, uint32_t tnsot,
                        tsr__j2k_bytes *out)
{
    tsr__j2k_bytes_u16(out, 0xFF90); /* SOT: Lsot, Isot, Psot, TPsot, TNsot */
    tsr__j2k_bytes_u16(out, 10);
    tsr__j2k_bytes_u16(out, tile);
    tsr__j2k_bytes_u32(out, psot);
    tsr__j2k_bytes_u8(out, tpsot);
    tsr__j2k_bytes_u8(out, tnsot);
}

/* The bytes of one packet length in Iplt: 7 bits a byte, most significant first. */
static uint32_t iplt_bytes(uint32_t len)
{
    uint32_t n = 1;
    while (len >>= 7)
        n++;
    return n;
}

/* A PLT segment (Lplt <= 65535) holds at most this many bytes of Iplt; a length is never split
 * between two segments. */
#define PLT_MAX_IPLT (65535u - 3u)

size_t tsr__j2k_plt_size(const tsr__j2k_packet *pk, size_t n)
{
    size_t total = 0, segs = 0;
    uint32_t in_seg = PLT_MAX_IPLT; /* no segment open */
    for (size_t i = 0; i < n; i++) {
        const uint32_t b = iplt_bytes(pk[i].len);
        if (in_seg + b > PLT_MAX_IPLT) {
            segs++;
            total += 5; /* marker, Lplt, Zplt */
            in_seg = 0;
        }
        in_seg += b;
        total += b;
    }
    return segs > 256 ? 0 : total;
}

void tsr__j2k_write_plt(const tsr__j2k_packet *pk, size_t n, tsr__j2k_bytes *out)
{
    size_t i = 0;
    for (uint32_t z = 0; i < n; z++) {
        size_t end = i;
        uint32_t bytes = 0;
        while (end < n && bytes + iplt_bytes(pk[end].len) <= PLT_MAX_IPLT)
            bytes += iplt_bytes(pk[end++].len);
        tsr__j2k_bytes_u16(out, 0xFF58);
        tsr__j2k_bytes_u16(out, 3 + bytes);
        tsr__j2k_bytes_u8(out, z);
        for (; i < end; i++) {
            const uint32_t len = pk[i].len;
            for (uint32_t k = iplt_bytes(len); k-- > 0;)
                tsr__j2k_bytes_u8(out, ((len >> (7 * k)) & 0x7F) | (k ? 0x80u : 0u));
        }
    }
}

static void box_header(tsr__j2k_bytes *out, uint32_t len, const char type[4])
{
    tsr__j2k_bytes_u32(out, len);
    tsr__j2k_bytes_put(out, type, 4);
}

void tsr__jp2_write_boxes(const tsr__j2k_cs *cs, int has_alpha, int jph, size_t cs_len,
                          tsr__j2k_bytes *out)
{
    static const uint8_t sig[12] = {0, 0, 0, 12, 'j', 'P', ' ', ' ', 0x0D, 0x0A, 0x87, 0x0A};
    const char *brand = jph ? "jph " : "jp2 ";
    tsr__j2k_bytes_put(out, sig, sizeof sig);
    box_header(out, 20, "ftyp"); /* brand, minor version, one compatible brand */
    tsr__j2k_bytes_put(out, brand, 4);
    tsr__j2k_bytes_u32(out, 0);
    tsr__j2k_bytes_put(out, brand, 4);
    const uint32_t nc = cs->ncomps, ndef = has_alpha ? nc : 0;
    const uint32_t ihdr = 22, colr = 15, cdef = ndef ? 10 + 6 * ndef : 0;
    box_header(out, 8 + ihdr + colr + cdef, "jp2h");
    box_header(out, ihdr, "ihdr"); /* height, width, components, BPC, C = 7, UnkC, IPR */
    tsr__j2k_bytes_u32(out, cs->y1 - cs->y0);
    tsr__j2k_bytes_u32(out, cs->x1 - cs->x0);
    tsr__j2k_bytes_u16(out, nc);
    tsr__j2k_bytes_u8(out, (uint32_t)(cs->comps[0].prec - 1) | (cs->comps[0].sgnd ? 0x80 : 0));
    tsr__j2k_bytes_u8(out, 7);
    tsr__j2k_bytes_u8(out, 0);
    tsr__j2k_bytes_u8(out, 0);
    box_header(out, colr, "colr"); /* enumerated: sRGB (16) or greyscale (17) */
    tsr__j2k_bytes_u8(out, 1);
    tsr__j2k_bytes_u8(out, 0);
    tsr__j2k_bytes_u8(out, 0);
    tsr__j2k_bytes_u32(out, nc >= 3 ? 16 : 17);
    if (ndef) { /* colour channels associated with colours 1.., the last one opacity */
        box_header(out, cdef, "cdef");
        tsr__j2k_bytes_u16(out, ndef);
        for (uint32_t i = 0; i < ndef; i++) {
            const int alpha = i == ndef - 1;
            tsr__j2k_bytes_u16(out, i);
            tsr__j2k_bytes_u16(out, alpha ? 1 : 0);
            tsr__j2k_bytes_u16(out, alpha ? 0 : i + 1);
        }
    }
    /* a length of 0: the box runs to the end of the file (I.4), where 32 bits do not hold it */
    box_header(out, cs_len > UINT32_MAX - 8 ? 0 : (uint32_t)(8 + cs_len), "jp2c");
}
