/* The HT cleanup pass (T.814 7.3) as a template, included once by ht_decode_hd.h (scalar, the
 * reference) and once by ht_decode_avx2.c: the includer defines quad_values() (one quad's MagSgn
 * values, contract in ht_decode_hd.h), HT_PAIR_VALUES (the bounds and values of the two quads of a
 * pair, one of them possibly empty, i.e. zeroed: returns 1, or 0 before anything is read or set,
 * to leave the pair to the quad-by-quad loop; a pair of empty quads never reaches it) and
 * HT_CLEANUP_DEF (the function's linkage and name). Both instances compute the same words bit for
 * bit. No include guard: one instance per file. */

/* Returns TSR__T1_OK or TSR__T1_CORRUPT; *warn gets TSR__T1_W_HT for inconsistent data.
 * Writes every sample of the padded quad raster. */
HT_CLEANUP_DEF(ht_blk *b, const uint8_t *d, uint32_t lcup, uint32_t kc, unsigned *warn)
{
    if (lcup < 2)
        return TSR__T1_CORRUPT;
    const uint32_t scup = 16u * d[lcup - 1] + (d[lcup - 2] & 0x0Fu);
    if (scup < 2 || scup > lcup || scup > 4079)
        return TSR__T1_CORRUPT;
    const uint32_t pcup = lcup - scup;
    ms_rd ms;
    mel_rd mel;
    vlc_rd vlc;
    ms_init(&ms, d, pcup);
    mel_init(&mel, d, pcup, lcup);
    vlc_init(&vlc, d, pcup, lcup);

    const uint32_t S = b->S, qw = b->qw;
    const uint32_t mu_lim = kc >= 32 ? 0xFFFFFFFFu : (1u << kc) - 1; /* kc <= 31 */
    uint8_t *ra = b->rho_a, *rc = b->rho_b;                          /* above, current */
    memset(ra, 0, qw + 2);
    memset(rc, 0, qw + 2);
    uint8_t ca[TSR__T1_MAX_W / 2]; /* context bits from the row above, quad qx at [qx] */
    if (qw > TSR__T1_MAX_W / 2)
        return TSR__T1_CORRUPT; /* outside t1.h's limits */
    unsigned wr = 0;
    for (uint32_t qy = 0; qy < b->qh; qy++) {
        const int initial = qy == 0;
        const uint16_t *lut = tsr__ht_vlc_lut[initial ? 0 : 1];
        uint32_t *v0 = b->v + (size_t)(2 * qy) * S; /* rows 2qy and 2qy + 1 */
        uint32_t *v1 = v0 + S;
        const uint32_t *vp = v0 - S; /* row 2qy - 1 (zero when initial) */
        const uint32_t keep_row = 2 * qy + 1 < b->h ? 0xF0 : 0x50;     /* rho bits (quad_pattern) */
        const uint32_t keep_end = keep_row & (b->w & 1 ? 0x30 : 0xF0); /* the last quad's */
        /* the part of each quad's significance context (7.3.5) that comes from the three
         * quads above (context bits 0 and 2), for the whole row at once */
        if (!initial)
            for (uint32_t qx = 0; qx < qw; qx++)
                ca[qx] = (uint8_t)((((ra[qx] >> 7) | (ra[qx + 1] >> 5)) & 1) |
                                   (((ra[qx + 1] >> 5) | (ra[qx + 2] >> 3)) & 4));
        uint32_t rl = 0; /* the pattern of the quad left of the pair */
        for (uint32_t qx = 0; qx < qw; qx += 2) {
            const int pair = qx + 1 < qw;
            uint32_t c0, c1;
            /* significance contexts (7.3.5): the left quad's part and the part from above */
            vlc_need(&vlc, 38); /* two CxtVLC codewords (7 bits each), the U-VLCs (24) */
            if (initial)
                c0 = ((rl >> 4) & 1) | ((rl >> 5) & 7); /* rho bit 0 or 1, bit 2, bit 3 */
            else
                c0 = ca[qx] | (((rl >> 5) | (rl >> 6)) & 2);
            const uint32_t keep0 = pair ? keep_row : keep_end;
            const uint32_t q0 = quad_pattern(c0, lut, &mel, &vlc, keep0, &wr);
            rc[qx + 1] = (uint8_t)q0; /* rho in bits 4-7 */
            uint32_t q1 = 0;
            if (pair) {
                if (initial)
                    c1 = ((q0 >> 4) & 1) | ((q0 >> 5) & 7);
                else
                    c1 = ca[qx + 1] | (((q0 >> 5) | (q0 >> 6)) & 2);
                const uint32_t keep1 = qx + 2 < qw ? keep_row : keep_end;
                q1 = quad_pattern(c1, lut, &mel, &vlc, keep1, &wr);
                rc[qx + 2] = (uint8_t)q1;
            }
            rl = q1;
            if (!((q0 | q1) & 0xF0)) { /* nothing significant: no U-VLC, no MagSgn bits */
                memset(v0 + 2 * qx, 0, 4 * sizeof *v0); /* (the border column past an odd */
                memset(v1 + 2 * qx, 0, 4 * sizeof *v1); /* last quad stays 0) */
                continue;
            }
            /* unsigned residuals (7.3.6), interleaved as in 7.3.4: both prefixes and both
             * suffix lengths from one table entry, then both suffixes, both extensions */
            const uint32_t uo0 = (q0 >> 3) & 1, uo1 = (q1 >> 3) & 1;
            uint32_t mode = uo0 | uo1 << 1, add = 0;
            if (__builtin_expect(initial, 0) && mode == 3) {
                if (mel_sym(&mel))
                    add = 2; /* Formula (4) for both */
                else
                    mode = 4; /* Formula (3) */
            }
            const uint32_t ue = tsr__ht_uvlc_lut[mode * 64 + (vlc.acc & 63)];
            const uint32_t l0 = (ue >> 9) & 7;
            const uint64_t sfx = vlc.acc >> ((ue >> 6) & 7);
            const uint32_t s0 = (uint32_t)sfx & ((1u << l0) - 1);
            const uint32_t s1 = (uint32_t)(sfx >> l0) & ((1u << ((ue >> 12) & 7)) - 1);
            vlc_take(&vlc, ue >> 16);
            uint32_t u0 = add + (ue & 7) + s0, u1 = add + ((ue >> 3) & 7) + s1;
            if (((s0 + 4) | (s1 + 4)) & 32) { /* extensions (a suffix 28-31 of prefix 5) */
                u0 += 4 * vlc_take(&vlc, s0 >= 28 ? 4 : 0);
                u1 += 4 * vlc_take(&vlc, s1 >= 28 ? 4 : 0);
            }
            /* exponent bounds (7.3.7) and MagSgn values (7.3.8): the pair at once where the
             * includer can, else quad by quad */
            if (pair && HT_PAIR_VALUES(q0, q1, u0, u1, vp + 2 * qx, &ms, kc, mu_lim, v0 + 2 * qx,
                                       v1 + 2 * qx, &wr))
                continue;
            for (uint32_t i = 0; i <= (uint32_t)pair; i++) {
                const uint32_t q = i ? q1 : q0, x = qx + i;
                uint32_t *a = v0 + 2 * x, *bl = v1 + 2 * x;
                if (!(q & 0xF0)) {
                    a[0] = a[1] = bl[0] = bl[1] = 0;
                    continue;
                }
                const uint32_t U = quad_bound(q, vp + 2 * x, i ? u1 : u0);
                if (U > 31) {
                    *warn |= wr;
                    return TSR__T1_CORRUPT;
                }
                if (U > kc)
                    wr |= TSR__T1_W_HT;
                quad_values(q, U, &ms, kc, mu_lim, a, bl, &wr);
            }
        }
        uint8_t *t = ra;
        ra = rc;
        rc = t;
        rc[0] = 0;
    }
    if (vlc.fill > vlc.nb || ms.fill > ms.nb)
        wr |= TSR__T1_W_HT; /* a stream was read beyond its bytes */
    *warn |= wr;
    return TSR__T1_OK;
}
