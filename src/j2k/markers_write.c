/* Marker segments an encode writes (T.800 Annex A): SOC, SIZ (A.5.1), COD (A.6.1), QCD (A.6.4),
 * TLM (A.7.1), SOT (A.4.2), SOD, EOC; and the JP2 boxes around a codestream (Annex I.5): signature,
 * file type, header (image header, colour specification, channel definition for alpha) and the
 * contiguous codestream box. */
#include "j2k/encode_stages.h"

void tsr__j2k_write_main_header(const tsr__j2k_cs *cs, const tsr__j2k_tcp *tcp, size_t *tlm_at,
                                tsr__j2k_bytes *out)
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
    /* COD: Scod, SGcod (progression, layers, MCT), SPcod (levels, code-block size and style,
     * transform); maximal precincts */
    tsr__j2k_bytes_u16(out, 0xFF52);
    tsr__j2k_bytes_u16(out, 12);
    tsr__j2k_bytes_u8(out, tcp->csty);
    tsr__j2k_bytes_u8(out, tcp->prg);
    tsr__j2k_bytes_u16(out, tcp->numlayers);
    tsr__j2k_bytes_u8(out, tcp->mct);
    tsr__j2k_bytes_u8(out, tccp->numres - 1u);
    tsr__j2k_bytes_u8(out, tccp->xcb - 2u);
    tsr__j2k_bytes_u8(out, tccp->ycb - 2u);
    tsr__j2k_bytes_u8(out, tccp->cblksty);
    tsr__j2k_bytes_u8(out, tccp->qmfbid);
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
    if (tlm_at) { /* TLM: Ztlm 0, Stlm ST = 1 (8-bit Ttlm), SP = 1 (32-bit Ptlm); one tile-part */
        tsr__j2k_bytes_u16(out, 0xFF55);
        tsr__j2k_bytes_u16(out, 9);
        tsr__j2k_bytes_u8(out, 0);
        tsr__j2k_bytes_u8(out, 0x50);
        tsr__j2k_bytes_u8(out, 0);
        *tlm_at = out->len;
        tsr__j2k_bytes_u32(out, 0); /* Ptlm: tsr__j2k_patch_tlm */
    }
}

void tsr__j2k_write_tile_header(uint32_t tile, size_t body_len, tsr__j2k_bytes *out)
{
    tsr__j2k_bytes_u16(out, 0xFF90); /* SOT: Lsot, Isot, Psot, TPsot, TNsot */
    tsr__j2k_bytes_u16(out, 10);
    tsr__j2k_bytes_u16(out, tile);
    tsr__j2k_bytes_u32(out, (uint32_t)(12 + 2 + body_len));
    tsr__j2k_bytes_u8(out, 0);
    tsr__j2k_bytes_u8(out, 1);
    tsr__j2k_bytes_u16(out, 0xFF93); /* SOD */
}

static void box_header(tsr__j2k_bytes *out, uint32_t len, const char type[4])
{
    tsr__j2k_bytes_u32(out, len);
    tsr__j2k_bytes_put(out, type, 4);
}

void tsr__jp2_write_boxes(const tsr__j2k_cs *cs, int has_alpha, size_t cs_len, tsr__j2k_bytes *out)
{
    static const uint8_t sig[12] = {0, 0, 0, 12, 'j', 'P', ' ', ' ', 0x0D, 0x0A, 0x87, 0x0A};
    tsr__j2k_bytes_put(out, sig, sizeof sig);
    box_header(out, 20, "ftyp"); /* brand, minor version, one compatible brand */
    tsr__j2k_bytes_put(out, "jp2 ", 4);
    tsr__j2k_bytes_u32(out, 0);
    tsr__j2k_bytes_put(out, "jp2 ", 4);
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

void tsr__j2k_patch_tlm(tsr__j2k_bytes *head, size_t tlm_at, size_t body_len)
{
    const uint32_t psot = (uint32_t)(12 + 2 + body_len); /* as the SOT's Psot */
    if (head->st || tlm_at + 4 > head->len)
        return;
    for (int k = 0; k < 4; k++)
        head->p[tlm_at + (size_t)k] = (uint8_t)(psot >> (24 - 8 * k));
}
