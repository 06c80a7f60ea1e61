/* The HT cleanup-pass encoder with a warp per code-block: the same segment, byte for byte, as
 * ht_encode_hd.h's tsr__ht_encode_cleanup (the CPU's, and the exact reference of
 * test_j2k_enc_blocks_cuda_gpu), from the same per-quad helpers.
 *
 * A row of quads goes through the warp 32 quads at a time, a quad a lane: its samples, rho and
 * exponents (tsr__ht_quad_load); its context and the exponent bound from its left neighbour's
 * rho (a shuffle) and the row above's (in shared memory); its CxtVLC word and MagSgn bits
 * (tsr__ht_quad_code); a pair's U-VLC code on its odd lane (or on a lone quad's). Each stream's
 * bits are then placed by a prefix sum over the lanes:
 *   - MagSgn and VLC into a shared staging area of raw bits (the lanes OR their fields in), from
 *     which complete bytes are cut with the bit-stuffing rules of ht_write.h: every lane assumes
 *     that no earlier byte of the 32 is stuffed, and the bytes up to the first one that changes
 *     the next byte's width (MagSgn: a 0xFF; VLC: a 7-bit 0x7F after a byte above 0x8F) are
 *     kept, the rest cut again from there. MagSgn's bytes go straight to buf; VLC's to scratch,
 *     reversed into place at the end;
 *   - MEL symbols (at most 48 a chunk) as a 64-bit mask for lane 0, which runs the adaptive
 *     run-length coder (runs of zeros counted, not walked) into scratch.
 * The bits a chunk leaves (fewer than a byte) start the next chunk's staging. */
#ifndef TSR_J2K_HT_ENCODE_WARP_CUH
#define TSR_J2K_HT_ENCODE_WARP_CUH

#include "j2k/ht_encode_hd.h"

#include <stdint.h>

enum {
    HTW_MS_WORDS = 128,    /* MagSgn staging: 7 bits left + 32 lanes x 124 bits, and a spare word */
    HTW_VLC_WORDS = 40,    /* VLC staging: 7 + 32 x 31 bits and spares */
    HTW_ROW = 1024 / 2 + 2 /* a row's quads and the borders */
};

/* A warp's shared memory. above: per quad of the row above (at q + 1; entries 0 and qw + 1 the
 * borders, 0) its rho (bits 0-3), its bottom-left (4-8) and bottom-right (9-13) exponents; rows
 * alternate between the two. */
struct tsr__ht_warp_smem {
    uint32_t ms[HTW_MS_WORDS];
    uint32_t vlc[HTW_VLC_WORDS];
    uint16_t above[2][HTW_ROW];
};

#define HTW_FULL 0xFFFFFFFFu

/* Exclusive prefix sum of v over the warp; *total gets the sum. */
__device__ __forceinline__ uint32_t htw_scan(uint32_t v, uint32_t lane, uint32_t *total)
{
    uint32_t s = v;
#pragma unroll
    for (uint32_t d = 1; d < 32; d <<= 1) {
        const uint32_t t = __shfl_up_sync(HTW_FULL, s, d);
        if (lane >= d)
            s += t;
    }
    *total = __shfl_sync(HTW_FULL, s, 31);
    return s - v;
}

/* n <= 8 raw bits from bit pos (st[pos / 32 + 1] must exist). */
__device__ __forceinline__ uint32_t htw_bits(const uint32_t *st, uint32_t pos, uint32_t n)
{
    const uint64_t v = st[pos >> 5] | (uint64_t)st[(pos >> 5) + 1] << 32;
    return (uint32_t)(v >> (pos & 31)) & ((1u << n) - 1);
}

/* The n <= 32 bits v (no higher ones set) at bit pos of the staging st. */
__device__ __forceinline__ void htw_put(uint32_t *st, uint32_t pos, uint32_t v, uint32_t n)
{
    if (!n)
        return;
    const uint32_t w = pos >> 5, b = pos & 31;
    atomicOr(&st[w], v << b);
    if (b + n > 32)
        atomicOr(&st[w + 1], v >> (32 - b));
}

/* The staging's bits from pos to avail (fewer than 8) moved to its start, the rest zeroed;
 * returns their count, the staging's new fill. */
__device__ __forceinline__ uint32_t htw_keep(uint32_t *st, uint32_t words, uint32_t pos,
                                             uint32_t avail, uint32_t lane)
{
    const uint32_t n = avail - pos, keep = n ? htw_bits(st, pos, n) : 0;
    const uint32_t used = (avail >> 5) + 2 < words ? (avail >> 5) + 2 : words;
    __syncwarp();
    for (uint32_t i = lane; i < used; i += 32)
        st[i] = i ? 0 : keep;
    __syncwarp();
    return n;
}

/* MagSgn's complete bytes of the staging (avail bits) into buf at *len (fwd_wr's packing: 7 bits
 * after a 0xFF; *ff: the last byte written is 0xFF); bytes at cap and beyond set *over. */
__device__ __forceinline__ uint32_t htw_ms_bytes(uint32_t *st, uint32_t avail, uint32_t lane,
                                                 uint32_t *ff, uint32_t *len, uint8_t *buf,
                                                 size_t cap, uint32_t *over)
{
    uint32_t s = 0;
    for (;;) {
        const uint32_t r0 = *ff ? 7 : 8, si = lane ? s + r0 + 8 * (lane - 1) : s,
                       room = lane ? 8 : r0;
        const int full = si + room <= avail;
        const uint32_t fullm = __ballot_sync(HTW_FULL, full);
        if (!fullm)
            break;
        const uint32_t b = full ? htw_bits(st, si, room) : 0,
                       ffm = __ballot_sync(HTW_FULL, b == 0xFF);
        const uint32_t keep = ffm ? fullm & ((2u << (__ffs(ffm) - 1)) - 1) : fullm,
                       nk = __popc(keep);
        if ((keep >> lane) & 1) {
            if (*len + lane < cap)
                buf[*len + lane] = (uint8_t)b;
            else
                *over = 1;
        }
        *ff = __shfl_sync(HTW_FULL, b, nk - 1) == 0xFF;
        s = __shfl_sync(HTW_FULL, si + room, nk - 1);
        *len += nk;
    }
    return htw_keep(st, HTW_MS_WORDS, s, avail, lane);
}

/* VLC's complete bytes of the staging (avail bits) into out at *len, in the order bwd_wr writes
 * them (a byte whose low 7 bits are 1 after one above 0x8F holds 7 bits; *last: the byte before);
 * bytes at 4096 and beyond set *over. */
__device__ __forceinline__ uint32_t htw_vlc_bytes(uint32_t *st, uint32_t avail, uint32_t lane,
                                                  uint32_t *last, uint32_t *len, uint8_t *out,
                                                  uint32_t *over)
{
    uint32_t s = 0;
    for (;;) {
        const uint32_t si = s + 8 * lane;
        const int full = si + 8 <= avail;
        const uint32_t fullm = __ballot_sync(HTW_FULL, full);
        if (!fullm)
            break;
        uint32_t b = full ? htw_bits(st, si, 8) : 0, prev = __shfl_up_sync(HTW_FULL, b, 1);
        prev = lane ? prev : *last;
        const int seven = full && prev > 0x8F && (b & 0x7F) == 0x7F;
        const uint32_t sm = __ballot_sync(HTW_FULL, seven);
        const uint32_t keep = sm ? fullm & ((2u << (__ffs(sm) - 1)) - 1) : fullm, nk = __popc(keep);
        const int stuffed = sm && lane == (uint32_t)__ffs(sm) - 1;
        b = stuffed ? 0x7F : b;
        if ((keep >> lane) & 1) {
            if (*len + lane < 4096)
                out[*len + lane] = (uint8_t)b;
            else
                *over = 1;
        }
        *last = __shfl_sync(HTW_FULL, b, nk - 1);
        s = __shfl_sync(HTW_FULL, si + (stuffed ? 7 : 8), nk - 1);
        *len += nk;
    }
    return htw_keep(st, HTW_VLC_WORDS, s, avail, lane);
}

/* n <= 64 MEL symbols, symbol i bit i of syms (lane 0's coder). */
__device__ __forceinline__ void htw_mel_syms(mel_wr *mel, uint64_t syms, uint32_t n)
{
    for (uint32_t i = 0; i < n;) {
        const uint64_t rest = syms >> i; /* i < n <= 64 */
        uint32_t z = rest ? (uint32_t)__ffsll((long long)rest) - 1 : n - i;
        z = z < n - i ? z : n - i;
        tsr__ht_mel_zeros(mel, z);
        i += z;
        if (i < n) {
            tsr__ht_mel_one(mel);
            i++;
        }
    }
}

/* tsr__ht_encode_cleanup's contract, by the whole warp (every lane calls it with the same
 * arguments and gets the result): melb and vlcb are global scratch (4096 bytes each), sm the
 * warp's shared memory. */
__device__ long tsr__ht_encode_cleanup_warp(const int32_t *__restrict__ coef, size_t stride,
                                            uint32_t w, uint32_t h, uint32_t shift,
                                            uint8_t *__restrict__ buf, size_t cap,
                                            const uint16_t (*__restrict__ tables)[8 * 16][17],
                                            uint8_t *melb, uint8_t *vlcb, tsr__ht_warp_smem *sm)
{
    const uint32_t lane = threadIdx.x & 31, qw = (w + 1) / 2, qh = (h + 1) / 2;
    for (uint32_t i = lane; i < HTW_MS_WORDS; i += 32)
        sm->ms[i] = 0;
    for (uint32_t i = lane; i < HTW_VLC_WORDS; i += 32)
        sm->vlc[i] = i ? 0 : 0xF; /* bwd_wr's first four bits: Scup's low nibble, later */
    if (lane < 2) {
        sm->above[lane][0] = 0;
        sm->above[lane][qw + 1] = 0;
    }
    __syncwarp();
    uint32_t ms_fill = 0, ms_len = 0, ms_ff = 0, vlc_fill = 4, vlc_len = 0, vlc_last = 0xFF;
    uint32_t any = 0, bad = 0, over = 0;
    mel_wr mel = {melb, 0, 4096, 0, 8, 0, 0, 0}; /* lane 0's */
    const size_t ms_cap = cap - 4096;
    for (uint32_t qy = 0; qy < qh; qy++) {
        const int initial = qy == 0;
        const uint16_t(*cwt)[17] = tables[initial ? 0 : 1];
        const uint16_t *A = sm->above[(qy & 1) ^ 1];
        uint16_t *C = sm->above[qy & 1];
        uint32_t carry = 0; /* rho of the quad left of the chunk */
        for (uint32_t qx0 = 0; qx0 < qw; qx0 += 32) {
            const uint32_t qx = qx0 + lane, x0 = 2 * qx, y0 = 2 * qy;
            const int valid = qx < qw;
            int32_t v[4] = {0, 0, 0, 0}; /* TL, BL, TR, BR */
            if (valid) {
                const int32_t *c0 = coef + (size_t)y0 * stride + x0;
                const int down = y0 + 1 < h, right = x0 + 1 < w;
                v[0] = c0[0];
                v[1] = down ? c0[stride] : 0;
                v[2] = right ? c0[1] : 0;
                v[3] = down && right ? c0[stride + 1] : 0;
            }
            tsr__ht_quad q;
            tsr__ht_quad_load(&q, v, shift);
            any |= q.rho;
            uint32_t left = __shfl_up_sync(HTW_FULL, q.rho, 1);
            left = lane ? left : carry;
            carry = __shfl_sync(HTW_FULL, q.rho, 31);
            uint32_t a0 = 0, a1 = 0, a2 = 0;
            if (valid && !initial) {
                a0 = A[qx];
                a1 = A[qx + 1];
                a2 = A[qx + 2];
            }
            const uint32_t c = tsr__ht_enc_context(initial, left, a0 & 0xF, a1 & 0xF, a2 & 0xF);
            uint32_t ea = a0 >> 9, t;
            ea = (t = (a1 >> 4) & 31) > ea ? t : ea;
            ea = (t = a1 >> 9) > ea ? t : ea;
            ea = (t = (a2 >> 4) & 31) > ea ? t : ea;
            tsr__ht_quad_code(&q, initial, c, ea, cwt);
            if (valid)
                C[qx + 1] = (uint16_t)(q.rho | q.e[1] << 4 | q.e[3] << 9);
            /* the quad's MEL symbol and CxtVLC word; the pair's U-VLC on its last lane */
            uint32_t nmel = 0, mels = 0, vn = 0;
            uint64_t vb = 0;
            if (valid && c == 0) {
                mels = q.rho != 0;
                nmel = 1;
            }
            if (valid && (c != 0 || q.rho != 0)) {
                bad |= !q.cw;
                vb = q.cw & 0x7F;
                vn = (q.cw >> 8) & 0xF;
            }
            const uint32_t rho_o = __shfl_xor_sync(HTW_FULL, q.rho, 1),
                           uq_o = __shfl_xor_sync(HTW_FULL, q.uq, 1);
            const int lone = !(lane & 1) && qx + 1 >= qw;
            if (valid && ((lane & 1) || lone)) {
                const uint32_t r0 = lone ? q.rho : rho_o, r1 = lone ? 0 : q.rho,
                               u0 = lone ? q.uq : uq_o, u1 = lone ? 0 : q.uq;
                if (r0 | r1) {
                    uvlc_code a, b;
                    const int sym = tsr__ht_pair_uvlc(initial, u0, u1, &a, &b);
                    if (sym >= 0)
                        mels |= (uint32_t)sym << nmel++;
                    const uint32_t f[6][2] = {{a.pfx, a.npfx}, {b.pfx, b.npfx}, {a.sfx, a.nsfx},
                                              {b.sfx, b.nsfx}, {a.ext, a.next}, {b.ext, b.next}};
#pragma unroll
                    for (int i = 0; i < 6; i++) {
                        vb |= (uint64_t)f[i][0] << vn;
                        vn += f[i][1];
                    }
                }
            }
            /* MEL */
            uint32_t mtot;
            const uint32_t moff = htw_scan(nmel, lane, &mtot);
            const uint64_t mine = (uint64_t)mels << moff;
            const uint64_t syms = __reduce_or_sync(HTW_FULL, (uint32_t)mine) |
                                  (uint64_t)__reduce_or_sync(HTW_FULL, (uint32_t)(mine >> 32))
                                      << 32;
            if (lane == 0 && mtot)
                htw_mel_syms(&mel, syms, mtot);
            /* VLC and MagSgn into the staging */
            uint32_t vtot, mn = 0, stot;
            const uint32_t voff = htw_scan(vn, lane, &vtot);
            htw_put(sm->vlc, vlc_fill + voff, (uint32_t)vb, vn);
#pragma unroll
            for (int n = 0; n < 4; n++)
                mn += q.mbits[n];
            uint32_t pos = ms_fill + htw_scan(mn, lane, &stot);
#pragma unroll
            for (int n = 0; n < 4; n++) {
                const uint32_t nb = q.mbits[n];
                htw_put(sm->ms, pos, q.x[n] & (nb < 32 ? (1u << nb) - 1 : ~0u), nb);
                pos += nb;
            }
            __syncwarp();
            ms_fill =
                htw_ms_bytes(sm->ms, ms_fill + stot, lane, &ms_ff, &ms_len, buf, ms_cap, &over);
            vlc_fill =
                htw_vlc_bytes(sm->vlc, vlc_fill + vtot, lane, &vlc_last, &vlc_len, vlcb, &over);
        }
    }
    if (__any_sync(HTW_FULL, bad))
        return -1;
    if (!__any_sync(HTW_FULL, any))
        return 0;
    /* the streams' ends: tsr__ht_ms_end, tsr__ht_mel_end, bwd_end */
    if (lane == 0) {
        if (ms_fill) {
            const uint32_t room = ms_ff ? 7 : 8,
                           t = sm->ms[0] | (((1u << (room - ms_fill)) - 1) << ms_fill);
            if (t != 0xFF) {
                if (ms_len < ms_cap)
                    buf[ms_len++] = (uint8_t)t;
                else
                    over = 1;
            }
        } else if (ms_len && ms_ff) {
            ms_len--;
        }
        tsr__ht_mel_end(&mel);
        over |= (uint32_t)mel.over;
        if (vlc_fill) {
            if (vlc_len < 4096)
                vlcb[vlc_len++] = (uint8_t)sm->vlc[0];
            else
                over = 1;
        }
    }
    ms_len = __shfl_sync(HTW_FULL, ms_len, 0);
    vlc_len = __shfl_sync(HTW_FULL, vlc_len, 0);
    const uint32_t mel_len = __shfl_sync(HTW_FULL, (uint32_t)mel.len, 0);
    if (__any_sync(HTW_FULL, over))
        return -1;
    const size_t scup = (size_t)mel_len + vlc_len + 1;
    if (scup > 4079 || ms_len + scup > cap)
        return -1;
    __syncwarp(); /* lane 0's MEL and VLC bytes visible to the warp */
    uint8_t *d = buf + ms_len;
    for (uint32_t i = lane; i < mel_len; i += 32)
        d[i] = melb[i];
    d += mel_len;
    for (uint32_t i = lane; i < vlc_len; i += 32)
        d[vlc_len - 1 - i] = i ? vlcb[i] : (uint8_t)((vlcb[0] & 0xF0) | (scup & 0xF));
    if (lane == 0)
        d[vlc_len] = (uint8_t)(scup >> 4);
    return (long)(ms_len + scup);
}

#undef HTW_FULL

#endif
