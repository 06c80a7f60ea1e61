/* Exact 2x linear upscale of u8 images (both axes), the per-thread body of resize_cuda.cu's
 * k_up2_u8, written once as a __host__ __device__ function so that a CPU test
 * (tests/unit/test_resize_up2_logic.c) runs the kernel's own code for every thread without a GPU.
 * Compiled as C11 (host) and as CUDA C++ (nvcc).
 *
 * When it applies: plan.c sets plan.up2 only after checking, entry by entry, that the plan's
 * tables are OpenCV's for dst = 2 x src on both axes:
 *   x: XOFS/XCOEF of output column d: d = 0 -> (0; 2048, 0); d = 2w-1 -> (w-1; 2048, 0);
 *      other even d = 2k -> (k-1; 512, 1536); other odd d = 2k+1 -> (k; 1536, 512);
 *   y: YOFS/YCOEF of output row d: d = 2k -> (k-1; 512, 1536); d = 2k+1 -> (k; 1536, 512)
 *      (rows clamped into [0, h-1], as every separable plan's rows are).
 * The arithmetic is then plan.h's separable u8 formula with these numbers:
 *   horizontal x = (c0*s0 + c1*s1) >> 4 = 32*u exactly, with u = s[k-1] + 3*s[k] (even columns),
 *   3*s[k] + s[k+1] (odd), 4*s[0] and 4*s[w-1] at the two border columns, which is what clamping
 *   the pixel index into [0, w-1] gives; u <= 1020;
 *   vertical (b*x) >> 16 = (b*u) >> 11: floor(u/4) for b = 512, floor(3u/4) for b = 1536, so
 *   output row 2m   = (floor(u[m-1]/4) + floor(3u[m]/4) + 2) >> 2,
 *   output row 2m-1 = (floor(3u[m-1]/4) + floor(u[m]/4) + 2) >> 2   (source rows clamped);
 *   every value lies in [0, 255] (no clamp needed).
 * So a thread computes floor(u/4) and floor(3u/4) once per source row and column and emits two
 * output rows from the previous and the current source row.
 *
 * Two elements per 32-bit operation, results scaled by 64 (ncu: the kernel was bound by its
 * integer pipe; run 15 measured ~11 instructions per output byte for the scalar form, runs 16-26
 * ~5.5 for a form with a final shift per sum; this one needs neither that shift nor a mask on
 * the 3u term): values live in 16-bit lanes of a word ("lane word"; lo lane = element e, hi lane =
 * element e + 2). Each source word is split once per row into two lane words (its even and its
 * odd bytes); a lane word of any two source bytes is then one byte permutation. Per lane word:
 *   u = X + 3Y                                   lanes <= 1020, no carry between lanes;
 *   q1 = (u << 4) & 0x3fc03fc0 = 64*floor(u/4)   lanes <= 16320;
 *   q3 = 48*u = 64*floor(3u/4) + 16*(3u mod 4)   lanes <= 48960, left unmasked (the last term is
 *                                                < 64: a fraction below the scaled integer);
 *   sum = q3' + q1 + 128 (and q1' + q3 + 128) = 64*S + f, S = floor(3u'/4) + floor(u/4) + 2,
 *   f <= 48: lanes <= 48960 + 16320 + 128 = 65408 < 2^16 (no carry into the hi lane), bits 6-15
 *   of a lane hold S exactly (S <= 1022, f < 64 cannot carry into bit 6), so byte 1 of the lane,
 *   bits 8-15, is S >> 2, the output. The final permutation takes bytes 1 and 3 of the lane words
 *   of elements e, e+2 and e+1, e+3.
 * A row's state per lane word is mk = u & 0x03fc03fc (q1 = 16*mk) and q3c = q3 + 128 (one
 * multiply-add), so each sum is one multiply-add: 16*mk + q3c' and 16*mk' + q3c; five integer
 * operations per lane word besides the permutations. */
#ifndef TSR_RESIZE_UP2_H
#define TSR_RESIZE_UP2_H

#include "resize/resize_thread_io.h"

/* Source pixels per thread (8 output pixels) and the most channels. */
enum { TSR__UP2_PX = 4, TSR__UP2_CNMAX = TSR__RT_CNMAX };

/* Whether thread t reads its source rows as aligned words (`al`, host-checked: rows start
 * 4-byte aligned): its words from byte 4*t*cn - 4 lie inside the row, but for two that
 * tsr__up2_fetch makes from their neighbours instead: the first word of thread 0 (pixel -1,
 * clamped to pixel 0) and the last word of the thread that ends the row (4t + 4 = w: pixel w,
 * clamped to w - 1). So with w a multiple of 4, every thread of a row reads words, and a
 * warp at the image's edge is as fast as the others (the kernel's time is its slowest
 * warp's: a warp of byte-wise and word-wise lanes made the whole kernel up to 1.7x slower,
 * bench/notes/resize.md, session o). */
TSR__RT_FN int tsr__up2_fast(int32_t w, int cn, int32_t t, int al)
{
    const int nw = (4 + 5 * cn + 3) / 4;
    return al && ((int64_t)4 * t * cn - 4 + 4 * nw <= (int64_t)w * cn || 4 * t + 4 == w);
}

/* The thread's source bytes of one row as little-endian words wd[0..6): byte 4 - cn + i of wd
 * is pixel 4t-1 + i/cn, channel i%cn (i < 6*cn). `fast` (tsr__up2_fast): the aligned words from
 * byte 4*t*cn - 4 of the row, the first one (t = 0) and the last one (4t + 4 = w) made by
 * shifting their neighbour (its cn bytes next to the missing pixel are that pixel's clamped
 * copy); otherwise the bytes one by one with the pixel index clamped into [0, w-1] (unaligned
 * images and the last thread of rows whose width is not a multiple of 4). */
TSR__RT_FN void tsr__up2_fetch(const uint8_t *TSR__RT_RESTRICT row, int32_t w, int cn, int32_t t,
                               int fast, uint32_t *wd)
{
    const int nw = (4 + 5 * cn + 3) / 4; /* words: the last one is word cn + 1 */
    if (fast) {
        const int first = t == 0, last = 4 * t + 4 == w;
        TSR__RT_UNROLL
        for (int k = 0; k < 6; k++)
            if (k < nw && !(first && k == 0) && !(last && k == nw - 1))
                wd[k] = tsr__rt_ld32(row + 4 * t * cn - 4 + 4 * k);
        if (first) /* bytes 4-cn..3 = pixel 0 = bytes 0..cn-1 of word 1 */
            wd[0] = wd[1] << (8 * (4 - cn));
        if (last) /* bytes 0..cn-1 of the last word = pixel w-1 = the top cn bytes of the one before
                   */
            wd[nw - 1] = wd[nw - 2] >> (8 * (4 - cn));
        return;
    }
    TSR__RT_UNROLL
    for (int k = 0; k < 6; k++)
        wd[k] = 0;
    TSR__RT_UNROLL
    for (int i = 0; i < 6 * TSR__UP2_CNMAX; i++) {
        if (i < 6 * cn) {
            int32_t x = 4 * t - 1 + i / cn;
            x = x < 0 ? 0 : x > w - 1 ? w - 1 : x;
            const int o = i + 4 - cn;
            wd[o / 4] |= (uint32_t)row[x * cn + i % cn] << (8 * (o % 4));
        }
    }
}

/* __byte_perm: byte n of the result is byte (s >> 4n) & 7 of the pair (x, y), x first. */
TSR__RT_FN uint32_t tsr__up2_perm(uint32_t x, uint32_t y, uint32_t s)
{
#ifdef __CUDA_ARCH__
    return __byte_perm(x, y, s);
#else
    const uint64_t xy = (uint64_t)x | (uint64_t)y << 32;
    uint32_t r = 0;
    for (int n = 0; n < 4; n++)
        r |= (uint32_t)((xy >> (8 * ((s >> (4 * n)) & 7))) & 255u) << (8 * n);
    return r;
#endif
}

/* The lane word (lo = source byte a, hi = source byte b; i = pixel 4t-1 + i/cn, channel i%cn)
 * from the row's split words: ev[k] holds bytes 0 and 2 of word k in its lanes, od[k] bytes 1
 * and 3. One permutation, none when both bytes already sit in one split word's lanes. */
TSR__RT_FN uint32_t tsr__up2_pair(const uint32_t *ev, const uint32_t *od, int cn, int a, int b)
{
    const int oa = a + 4 - cn, ob = b + 4 - cn; /* offsets in the fetched word stream */
    const uint32_t wa = oa % 2 ? od[oa / 4] : ev[oa / 4], wb = ob % 2 ? od[ob / 4] : ev[ob / 4];
    const int la = (oa % 4) / 2, lb = (ob % 4) / 2;
    if (oa / 4 == ob / 4 && oa % 2 == ob % 2 && la == 0 && lb == 1)
        return wa;
    return tsr__up2_perm(wa, wb,
                         (uint32_t)(2 * la) | (uint32_t)(2 * la + 1) << 4 |
                             (uint32_t)(4 + 2 * lb) << 8 | (uint32_t)(5 + 2 * lb) << 12);
}

/* Source bytes X and Y of output element e = j*cn + c (output pixel 8t + j, channel c), whose
 * u = X + 3Y: even j = 2k: X = pixel k, Y = k + 1; odd j: X = pixel k + 2, Y = k + 1. */
TSR__RT_FN int tsr__up2_x(int cn, int e)
{
    const int j = e / cn, c = e % cn;
    return (j % 2 ? j / 2 + 2 : j / 2) * cn + c;
}

TSR__RT_FN int tsr__up2_y(int cn, int e)
{
    return (e / cn / 2 + 1) * cn + e % cn;
}

/* u = X + 3Y of the lane word of elements e (lo) and e + 2 (hi), from the row's split words. */
TSR__RT_FN uint32_t tsr__up2_u2(const uint32_t *ev, const uint32_t *od, int cn, int e)
{
    return tsr__up2_pair(ev, od, cn, tsr__up2_x(cn, e), tsr__up2_x(cn, e + 2)) +
           3u * tsr__up2_pair(ev, od, cn, tsr__up2_y(cn, e), tsr__up2_y(cn, e + 2));
}

/* The state of lane word l of one source row (elements e = 4(l/2) + l%2, lo lane, and e + 2):
 * mk = u & 0x03fc03fc = 4*floor(u/4) per lane (so 16*mk = q1 above) and q3c = 48u + 0x00800080
 * (q3 plus the rounding constant of the sums). */
TSR__RT_FN void tsr__up2_q(const uint32_t *ev, const uint32_t *od, int cn, int l, uint32_t *mk,
                           uint32_t *q3c)
{
    const uint32_t u = tsr__up2_u2(ev, od, cn, 4 * (l / 2) + l % 2);
    *mk = u & 0x03fc03fcu;
    *q3c = 48u * u + 0x00800080u;
}

/* Splits one row's fetched words wd into ev (bytes 0 and 2 of each word in its lanes) and od
 * (bytes 1 and 3). */
TSR__RT_FN void tsr__up2_split(const uint32_t *wd, int cn, uint32_t *ev, uint32_t *od)
{
    TSR__RT_UNROLL
    for (int k = 0; k < 6; k++)
        if (k < (4 + 5 * cn + 3) / 4) { /* the words tsr__up2_fetch filled */
            ev[k] = tsr__up2_perm(wd[k], 0, 0x4240);
            od[k] = tsr__up2_perm(wd[k], 0, 0x4341);
        }
}

/* The state mk, q3c of every lane word of the row whose fetched words are wd. */
TSR__RT_FN void tsr__up2_state(const uint32_t *wd, int cn, uint32_t *mk, uint32_t *q3c)
{
    uint32_t ev[6], od[6];
    tsr__up2_split(wd, cn, ev, od);
    TSR__RT_UNROLL
    for (int l = 0; l < 4 * TSR__UP2_CNMAX; l++)
        if (l < 4 * cn)
            tsr__up2_q(ev, od, cn, l, &mk[l], &q3c[l]);
}

/* One thread's walk down its tile (tsr__up2_thread): the images, the thread's column block t,
 * its source rows m0 .. last and how it may access memory. */
typedef struct {
    const uint8_t *TSR__RT_RESTRICT src;
    uint8_t *TSR__RT_RESTRICT dst;
    int32_t sstride, dstride, w, h, cn, t, m0, last;
    int fast;        /* tsr__up2_fast: aligned word loads */
    int al_dst;      /* output rows start 8-byte aligned (host-checked) */
    uint32_t *stage; /* CUDA: the warp's 128*cn words of shared memory (two rows' stages) */
} tsr__up2_walk;

/* How a walk loads and stores (a constant at each call of tsr__up2_run, so that each mode's
 * loop holds only its own paths and registers). */
enum {
    TSR__UP2_EDGE,     /* byte-wise loads and stores where needed (tsr__up2_fetch, store8px) */
    TSR__UP2_INTERIOR, /* aligned word loads, whole 8-byte stores (host) */
    TSR__UP2_WARP      /* CUDA: aligned word loads, every lane of the warp interior: the rows
                          stored through shared memory as contiguous 8-byte words per warp */
};

/* Stores walk k's packed output words wd[2*cn] of the output row at offset o (modes EDGE and
 * INTERIOR). */
TSR__RT_FN void tsr__up2_store(const tsr__up2_walk *k, int mode, int64_t o, const uint32_t *wd)
{
    if (mode == TSR__UP2_INTERIOR)
        tsr__rt_store8px_words(k->dst + o + (int64_t)TSR__RT_PX * k->t * k->cn, k->cn, wd);
    else
        tsr__rt_store8px(k->dst + o, 2 * k->w, k->cn, k->t, k->al_dst, wd);
}

/* Source row m of walk k: its words are in wd; fetches the next row's words into wd (unless m
 * is the last row), computes the row's state into mk, q3c and stores the output rows it makes
 * with the previous row's state mkp, q3cp. *so: offset of the row fetched last; dodd: offset
 * of output row 2m-1 (offsets, not pointers: 8 registers fewer with nvcc 13). mode: as above. */
TSR__RT_FN void tsr__up2_step(const tsr__up2_walk *k, int mode, int32_t m, int64_t *so,
                              int64_t dodd, uint32_t *wd, const uint32_t *mkp, const uint32_t *q3cp,
                              uint32_t *mk, uint32_t *q3c)
{
    const int cn = k->cn;
    uint32_t ev[6], od[6], odd[2 * TSR__UP2_CNMAX], even[2 * TSR__UP2_CNMAX];
    tsr__up2_split(wd, cn, ev, od);
    if (m < k->last) { /* the next row, in flight while this one is computed */
        if (m + 1 < k->h)
            *so += k->sstride;
        tsr__up2_fetch(k->src + *so, k->w, cn, k->t, mode != TSR__UP2_EDGE || k->fast, wd);
    }
    /* output word i of both rows from lane words 2i and 2i+1 (elements 4i, 4i+2 and 4i+1,
     * 4i+3): byte 1 of each lane of the sums (16*mk + q3c' and 16*mk' + q3c) */
    TSR__RT_UNROLL
    for (int i = 0; i < 2 * TSR__UP2_CNMAX; i++)
        if (i < 2 * cn) {
            tsr__up2_q(ev, od, cn, 2 * i, &mk[2 * i], &q3c[2 * i]);
            tsr__up2_q(ev, od, cn, 2 * i + 1, &mk[2 * i + 1], &q3c[2 * i + 1]);
            odd[i] = tsr__up2_perm(16u * mk[2 * i] + q3cp[2 * i],
                                   16u * mk[2 * i + 1] + q3cp[2 * i + 1], 0x7351);
            even[i] = tsr__up2_perm(16u * mkp[2 * i] + q3c[2 * i],
                                    16u * mkp[2 * i + 1] + q3c[2 * i + 1], 0x7351);
#ifdef __CUDA_ARCH__
            if (mode == TSR__UP2_WARP && i % 2) { /* staged as made: no registers held */
                tsr__rt_stage8(k->stage, cn, i / 2, odd[i - 1], odd[i]);
                tsr__rt_stage8(k->stage + 64 * cn, cn, i / 2, even[i - 1], even[i]);
            }
#endif
        }
#ifdef __CUDA_ARCH__
    if (mode == TSR__UP2_WARP) {
        const int64_t o = dodd + (int64_t)TSR__RT_PX * (k->t & ~31) * cn; /* the warp's lane 0 */
        __syncwarp();
        if (m > k->m0)
            tsr__rt_flush8(k->dst + o, cn, k->stage);
        if (m < k->last)
            tsr__rt_flush8(k->dst + o + k->dstride, cn, k->stage + 64 * cn);
        __syncwarp();
        return;
    }
#endif
    /* each row's words back to back: issued interleaved with the arithmetic (one 8-byte word of
     * each row as soon as it was made), the stores doubled the L2 write sectors and the time
     * (run o1) */
    if (m > k->m0)
        tsr__up2_store(k, mode, dodd, odd);
    if (m < k->last)
        tsr__up2_store(k, mode, dodd + k->dstride, even);
}

/* Walk k from row m0 - 1 (clamped) to row last in the given mode. The walk
 * alternates two state arrays (a and b) so that no state is copied between rows. */
TSR__RT_FN void tsr__up2_run(const tsr__up2_walk *k, int mode)
{
    enum { NL = 4 * TSR__UP2_CNMAX }; /* lane words per row: 2 per output word */
    uint32_t mka[NL], q3a[NL], mkb[NL], q3b[NL], wd[6];
    const int fast = mode != TSR__UP2_EDGE || k->fast;
    const int32_t m0 = k->m0;
    tsr__up2_fetch(k->src + (int64_t)(m0 > 0 ? m0 - 1 : 0) * k->sstride, k->w, k->cn, k->t, fast,
                   wd);
    tsr__up2_state(wd, k->cn, mka, q3a);
    int64_t so = (int64_t)m0 * k->sstride, dodd = ((int64_t)2 * m0 - 1) * k->dstride;
    const int64_t dstep = 2 * (int64_t)k->dstride;
    tsr__up2_fetch(k->src + so, k->w, k->cn, k->t, fast, wd);
    for (int32_t m = m0;; dodd += dstep) {
        tsr__up2_step(k, mode, m, &so, dodd, wd, mka, q3a, mkb, q3b);
        if (++m > k->last)
            break;
        dodd += dstep;
        tsr__up2_step(k, mode, m, &so, dodd, wd, mkb, q3b, mka, q3a);
        if (++m > k->last)
            break;
    }
}

/* Whether thread t's loads are aligned words and its stores whole 8-byte words. */
TSR__RT_FN int tsr__up2_interior(int32_t w, int cn, int32_t t, int al_src, int al_dst)
{
    return tsr__up2_fast(w, cn, t, al_src) && tsr__rt_store8px_whole(2 * w, t, al_dst);
}

/* Thread t (output pixels 8t .. 8t+7) of the tile of source rows [m0, m0 + th): output rows
 * 2*m0 .. 2*(m0 + th) - 1 of a w x h -> 2w x 2h resize (rows past 2h are skipped). Source row
 * m (m0 <= m <= last = min(m0 + th, h)) with the row before it makes output rows 2m-1 (not for
 * m = m0: the tile above owns it) and 2m (not for m = last); source rows are clamped into
 * [0, h-1]. al_src: rows start 4-byte aligned; al_dst: 8-byte aligned (host-checked). stage
 * (CUDA, else NULL): the warp's 128*cn words of shared memory; the threads t of a warp are then
 * 32 consecutive ones from a multiple of 32, all of which call this function. */
TSR__RT_FN void tsr__up2_thread(const uint8_t *TSR__RT_RESTRICT src, int32_t sstride,
                                uint8_t *TSR__RT_RESTRICT dst, int32_t dstride, int32_t w,
                                int32_t h, int cn, int32_t t, int32_t m0, int32_t th, int al_src,
                                int al_dst, uint32_t *stage)
{
    const int32_t last = m0 + th < h ? m0 + th : h;
    const int fast = tsr__up2_fast(w, cn, t, al_src);
    const tsr__up2_walk k = {src, dst, sstride, dstride, w,      h,    cn,
                             t,   m0,  last,    fast,    al_dst, stage};
#ifdef __CUDA_ARCH__
    /* the warp's lanes are interior from its first to its last (an interval of t), uniformly;
     * a warp with a lane that is not (the last one of rows whose width is not a multiple of 4)
     * takes the edge path as a whole: one loop fewer in the kernel than a choice per lane, and
     * the edge loop's registers are the most of the three */
    const int32_t t0 = t & ~31;
    if (stage && 4 * (t0 + 31) < w && tsr__up2_interior(w, cn, t0, al_src, al_dst) &&
        tsr__up2_interior(w, cn, t0 + 31, al_src, al_dst))
        tsr__up2_run(&k, TSR__UP2_WARP);
    else
        tsr__up2_run(&k, TSR__UP2_EDGE);
#else
    tsr__up2_run(&k,
                 tsr__up2_interior(w, cn, t, al_src, al_dst) ? TSR__UP2_INTERIOR : TSR__UP2_EDGE);
#endif
}

#endif
