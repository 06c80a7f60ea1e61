/* The candidate visit of tsr__incr_propose (incr_cpu.c) for AVX2 machines: four candidate edges
 * at a time in 64-bit lanes, their end points loaded from the evaluator's copy (eax, eay, ebx,
 * eby). Per candidate block the sides of the candidate's line for the new and the old point and
 * the point-on-edge test; per arm of the moving node's star, without branches, the orientations
 * of incr_cpu.c's visit in all four lanes. Every orientation compares two signed 32 x 32 -> 64-bit
 * products of coordinate differences (|difference| <= 2^30, _mm256_mul_epi32), exactly as
 * tsr__orient; orientations are never multiplied together. The scalar visit's box filter and
 * shared end test are left out: they only skip pairs whose result is "no change" (a proper
 * crossing lies in both boxes; an arm ending at an end of f has orient(a,b,w) = 0), and here
 * skipping would cost a branch per arm. The changes are then added candidate by candidate, arm by
 * arm, as the scalar visit adds them, so the touched list, the deltas and every score are the
 * scalar visit's. Built for x86-64 with GCC or clang; elsewhere stubs that incr_cpu.c never calls
 * (tsr__incr_cpu_avx2() is 0). */
#include "core/target.h"
#include "layout/geometry.h"
#include "layout/layout_internal.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
/* compiled for the baseline instruction set: it runs before anything else here */
int tsr__incr_cpu_avx2(void)
{
    return __builtin_cpu_supports("avx2") ? 1 : 0;
}

TSR__TARGET_BEGIN("avx2")
#include <immintrin.h>

/* One arm's values in star64 (TSR__ARM64 int64 each), broadcast per candidate block: its far end
 * w's point, and w minus the new and the old point. */
enum { A_WX, A_WY, A_DPX, A_DPY, A_DOX, A_DOY };

/* Lanes where x1 * y2 - y1 * x2 is positive, negative (low 32 bits of each lane, signed). */
typedef struct sides {
    __m256i pos, neg;
} sides;

static inline sides cross(__m256i x1, __m256i y2, __m256i y1, __m256i x2)
{
    const __m256i l = _mm256_mul_epi32(x1, y2), r = _mm256_mul_epi32(y1, x2);
    return (sides){_mm256_cmpgt_epi64(l, r), _mm256_cmpgt_epi64(r, l)};
}

static inline int lanes(__m256i m)
{
    return _mm256_movemask_pd(_mm256_castsi256_pd(m));
}

static inline __m256i bcast(const int64_t *p)
{
    return _mm256_set1_epi64x(*p);
}

/* The moving node v, its old and new points, and the box of its star before and after the move,
 * broadcast. */
typedef struct move {
    int32_t px, py;
    __m256i v, px4, py4, ox4, oy4, x0, y0, x1, y1;
} move;

/* Visits the candidates f[0..3] (lanes in `live`) with end points (ax,ay) (node eu) and (bx,by)
 * (node ev): incr_cpu.c's visit for four edges. Returns 0 when the new point lies on one. */
static int visit4(tsr__incr *inc, const move *mv, const int32_t f[4], int live, __m256i eu,
                  __m256i ev, __m256i ax, __m256i ay, __m256i bx, __m256i by)
{
    /* candidates incident to v are recounted elsewhere; a proper crossing lies in both
     * segments' boxes, so none changes for a candidate whose box misses the star's (coordinates
     * are in [0, 2^30]: 32-bit min/max give the 64-bit lanes') */
    __m256i skip = _mm256_or_si256(_mm256_cmpeq_epi64(eu, mv->v), _mm256_cmpeq_epi64(ev, mv->v));
    skip = _mm256_or_si256(skip, _mm256_cmpgt_epi64(mv->x0, _mm256_max_epi32(ax, bx)));
    skip = _mm256_or_si256(skip, _mm256_cmpgt_epi64(_mm256_min_epi32(ax, bx), mv->x1));
    skip = _mm256_or_si256(skip, _mm256_cmpgt_epi64(mv->y0, _mm256_max_epi32(ay, by)));
    skip = _mm256_or_si256(skip, _mm256_cmpgt_epi64(_mm256_min_epi32(ay, by), mv->y1));
    const int act = live & ~lanes(skip);
    if (!act)
        return 1;
    const __m256i dbx = _mm256_sub_epi64(bx, ax), dby = _mm256_sub_epi64(by, ay);
    const __m256i apx = _mm256_sub_epi64(ax, mv->px4), apy = _mm256_sub_epi64(ay, mv->py4);
    const __m256i bpx = _mm256_sub_epi64(bx, mv->px4), bpy = _mm256_sub_epi64(by, mv->py4);
    const __m256i aox = _mm256_sub_epi64(ax, mv->ox4), aoy = _mm256_sub_epi64(ay, mv->oy4);
    const __m256i box = _mm256_sub_epi64(bx, mv->ox4), boy = _mm256_sub_epi64(by, mv->oy4);
    /* orient(a,b,p) = dbx (py - ay) - dby (px - ax) = dby apx - dbx apy */
    const sides sp = cross(dby, apx, dbx, apy), so = cross(dby, aox, dbx, aoy);
    int on = act & ~lanes(_mm256_or_si256(sp.pos, sp.neg));
    for (; on; on &= on - 1) {
        const int32_t e = f[__builtin_ctz((unsigned)on)];
        if (tsr__point_on_segment(mv->px, mv->py, (int32_t)inc->eax[e], (int32_t)inc->eay[e],
                                  (int32_t)inc->ebx[e], (int32_t)inc->eby[e]))
            return 0;
    }
    /* locals: the byte stores below would otherwise make every inc field reload */
    const int32_t nstar = inc->nstar;
    const int64_t *const star64 = inc->star64;
    uint8_t *const arm_now = inc->arm_now, *const arm_was = inc->arm_was;
    int any = 0;
    for (int32_t k = 0; k < nstar; k++) {
        const int64_t *s = star64 + (size_t)k * TSR__ARM64;
        const sides sw = cross(dbx, _mm256_sub_epi64(bcast(s + A_WY), ay), dby,
                               _mm256_sub_epi64(bcast(s + A_WX), ax));
        /* w strictly on the other side of f's line than the new (old) point; none when w is an
         * end of f (sw = 0) */
        const __m256i opp_p =
            _mm256_or_si256(_mm256_and_si256(sp.pos, sw.neg), _mm256_and_si256(sp.neg, sw.pos));
        const __m256i opp_o =
            _mm256_or_si256(_mm256_and_si256(so.pos, sw.neg), _mm256_and_si256(so.neg, sw.pos));
        /* a and b strictly on opposite sides of the arm's line, after and before the move:
         * orient(p,w,a) = (wx - px)(ay - py) - (wy - py)(ax - px) */
        const __m256i dpx = bcast(s + A_DPX), dpy = bcast(s + A_DPY);
        const __m256i dox = bcast(s + A_DOX), doy = bcast(s + A_DOY);
        const sides pa = cross(dpx, apy, dpy, apx), pb = cross(dpx, bpy, dpy, bpx);
        const sides oa = cross(dox, aoy, doy, aox), ob = cross(dox, boy, doy, box);
        const __m256i now =
            _mm256_and_si256(opp_p, _mm256_or_si256(_mm256_and_si256(pa.pos, pb.neg),
                                                    _mm256_and_si256(pa.neg, pb.pos)));
        const __m256i was =
            _mm256_and_si256(opp_o, _mm256_or_si256(_mm256_and_si256(oa.pos, ob.neg),
                                                    _mm256_and_si256(oa.neg, ob.pos)));
        const int n = act & lanes(now), o = act & lanes(was);
        arm_now[k] = (uint8_t)n;
        arm_was[k] = (uint8_t)o;
        any |= n ^ o;
    }
    /* the changes in the scalar visit's order: candidate by candidate, then arm by arm */
    for (; any; any &= any - 1) {
        const int j = __builtin_ctz((unsigned)any);
        for (int32_t k = 0; k < nstar; k++) {
            const int d = (arm_now[k] >> j & 1) - (arm_was[k] >> j & 1);
            if (d) {
                tsr__incr_touch(inc, f[j], d);
                tsr__incr_touch(inc, inc->star[k].e, d);
            }
        }
    }
    return 1;
}

int tsr__incr_visit_avx2(tsr__incr *inc, const int32_t *cand, int32_t n, int32_t v, int32_t ox,
                         int32_t oy, int32_t px, int32_t py)
{
    int32_t x0 = ox < px ? ox : px, x1 = ox < px ? px : ox;
    int32_t y0 = oy < py ? oy : py, y1 = oy < py ? py : oy;
    for (int32_t k = 0; k < inc->nstar; k++) {
        const tsr__star_arm *a = &inc->star[k];
        x0 = a->x0 < x0 ? a->x0 : x0;
        y0 = a->y0 < y0 ? a->y0 : y0;
        x1 = a->x1 > x1 ? a->x1 : x1;
        y1 = a->y1 > y1 ? a->y1 : y1;
        int64_t *s = inc->star64 + (size_t)k * TSR__ARM64;
        s[A_WX] = a->x;
        s[A_WY] = a->y;
        s[A_DPX] = (int64_t)a->x - px;
        s[A_DPY] = (int64_t)a->y - py;
        s[A_DOX] = (int64_t)a->x - ox;
        s[A_DOY] = (int64_t)a->y - oy;
    }
    const move mv = {px,
                     py,
                     _mm256_set1_epi64x(v),
                     _mm256_set1_epi64x(px),
                     _mm256_set1_epi64x(py),
                     _mm256_set1_epi64x(ox),
                     _mm256_set1_epi64x(oy),
                     _mm256_set1_epi64x(x0),
                     _mm256_set1_epi64x(y0),
                     _mm256_set1_epi64x(x1),
                     _mm256_set1_epi64x(y1)};
    const tsr_layout *l = inc->l;
    const long long *eax = (const long long *)inc->eax, *eay = (const long long *)inc->eay,
                    *ebx = (const long long *)inc->ebx, *eby = (const long long *)inc->eby;
    int32_t i = 0;
    if (!cand)
        for (; i + 4 <= n; i += 4) {
            const int32_t f[4] = {i, i + 1, i + 2, i + 3};
            const __m256i eu =
                _mm256_cvtepi32_epi64(_mm_loadu_si128((const __m128i *)(l->edge_u + i)));
            const __m256i ev =
                _mm256_cvtepi32_epi64(_mm_loadu_si128((const __m128i *)(l->edge_v + i)));
            if (!visit4(inc, &mv, f, 15, eu, ev, _mm256_loadu_si256((const __m256i *)(eax + i)),
                        _mm256_loadu_si256((const __m256i *)(eay + i)),
                        _mm256_loadu_si256((const __m256i *)(ebx + i)),
                        _mm256_loadu_si256((const __m256i *)(eby + i))))
                return 0;
        }
    /* candidate lists and the dense tail: gathered; lanes past n repeat the block's first */
    for (; i < n; i += 4) {
        int32_t f[4];
        for (int j = 0; j < 4; j++)
            f[j] = cand ? cand[i + j < n ? i + j : i] : i + j < n ? i + j : i;
        const int live = n - i >= 4 ? 15 : (1 << (n - i)) - 1;
        const __m128i ix = _mm_loadu_si128((const __m128i *)f);
        if (!visit4(inc, &mv, f, live, _mm256_cvtepi32_epi64(_mm_i32gather_epi32(l->edge_u, ix, 4)),
                    _mm256_cvtepi32_epi64(_mm_i32gather_epi32(l->edge_v, ix, 4)),
                    _mm256_i32gather_epi64(eax, ix, 8), _mm256_i32gather_epi64(eay, ix, 8),
                    _mm256_i32gather_epi64(ebx, ix, 8), _mm256_i32gather_epi64(eby, ix, 8)))
            return 0;
    }
    return 1;
}
TSR__TARGET_END
#else
int tsr__incr_cpu_avx2(void)
{
    return 0;
}

int tsr__incr_visit_avx2(tsr__incr *inc, const int32_t *cand, int32_t n, int32_t v, int32_t ox,
                         int32_t oy, int32_t px, int32_t py)
{
    (void)inc;
    (void)cand;
    (void)n;
    (void)v;
    (void)ox;
    (void)oy;
    (void)px;
    (void)py;
    return 1;
}
#endif
