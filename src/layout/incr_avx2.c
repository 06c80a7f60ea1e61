/* The candidate visit of tsr__incr_propose (incr_cpu.c) for AVX2 machines: four candidate edges
 * at a time in 64-bit lanes (visit4), or eight in 32-bit lanes (visit8) where the canvas is small
 * (inc->small: sides <= 32767), their end points loaded from the evaluator's copy (eax, eay, ebx,
 * eby). Per candidate block the sides of the candidate's line for the new and the old point and
 * the point-on-edge test; per arm of the moving node's star, without branches, the orientations
 * of incr_cpu.c's visit in all lanes. Every orientation compares two signed products of
 * coordinate differences, exactly as tsr__orient: in visit4 32 x 32 -> 64-bit products
 * (|difference| <= 2^30, _mm256_mul_epi32); in visit8 32-bit products (|difference| <= 32767, so
 * each product and hence their comparison lies within +-2^30: _mm256_mullo_epi32 is exact);
 * orientations are never multiplied together. visit8 is visit4 at twice the lanes, line for line.
 * The scalar visit's box filter and shared end test are left out: they only skip pairs whose result
 * is "no change" (a proper crossing lies in both boxes; an arm ending at an end of f has
 * orient(a,b,w) = 0), and here skipping would cost a branch per arm. The changes are then added
 * candidate by candidate, arm by arm, as the scalar visit adds them, so the touched list, the
 * deltas and every score are the scalar visit's. Built for x86-64 with GCC or clang; elsewhere
 * stubs that incr_cpu.c never calls (tsr__incr_cpu_avx2() is 0). */
#include "core/target.h"
#include "layout/geometry_hd.h"
#include "layout/layout_internal.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
/* compiled for the baseline instruction set: it runs before anything else here */
int tsr__incr_cpu_avx2(void)
{
    return __builtin_cpu_supports("avx2") ? 1 : 0;
}

TSR__TARGET_BEGIN("avx2")
#include <immintrin.h>

/* One arm's values in star_values (TSR__ARM_VALUES each), broadcast per candidate block: its far
 * end w's point, and w minus the new and the old point. */
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

/* Four int32 from p, sign-extended into 64-bit lanes. */
static inline __m256i load4(const int32_t *p)
{
    return _mm256_cvtepi32_epi64(_mm_loadu_si128((const __m128i *)p));
}

/* 32-bit lanes: where x1 * y2 - y1 * x2 is positive, negative (|x|, |y| <= 32767). */
static inline sides cross8(__m256i x1, __m256i y2, __m256i y1, __m256i x2)
{
    const __m256i l = _mm256_mullo_epi32(x1, y2), r = _mm256_mullo_epi32(y1, x2);
    return (sides){_mm256_cmpgt_epi32(l, r), _mm256_cmpgt_epi32(r, l)};
}

static inline int lanes8(__m256i m)
{
    return _mm256_movemask_ps(_mm256_castsi256_ps(m));
}

/* The changes found by a visit (bit j of arm_now[k] / arm_was[k]: candidate f[j] crosses arm k
 * after / before the move) in the scalar visit's order: candidate by candidate (the lanes in
 * `any`, the ones that change), then arm by arm. */
static void add_changes(tsr__incr *inc, const int32_t *f, int any)
{
    const int32_t nstar = inc->nstar;
    for (; any; any &= any - 1) {
        const int j = __builtin_ctz((unsigned)any);
        for (int32_t k = 0; k < nstar; k++) {
            const int d = (inc->arm_now[k] >> j & 1) - (inc->arm_was[k] >> j & 1);
            if (d) {
                tsr__incr_touch(inc, f[j], d);
                tsr__incr_touch(inc, inc->star[k].e, d);
            }
        }
    }
}

/* Whether the new point lies on one of the candidates f[j] for the lanes j in `on` (those whose
 * line holds the point). */
static int on_any(const tsr__incr *inc, const int32_t *f, int on, int32_t px, int32_t py)
{
    for (; on; on &= on - 1) {
        const int32_t e = f[__builtin_ctz((unsigned)on)];
        if (tsr__point_on_segment(px, py, inc->eax[e], inc->eay[e], inc->ebx[e], inc->eby[e]))
            return 1;
    }
    return 0;
}

/* The moving node v, its old and new points, and the box of its star before and after the move,
 * broadcast in the lanes of the visit (64-bit for visit4, 32-bit for visit8). */
typedef struct move {
    int32_t px, py;
    __m256i v, pxs, pys, oxs, oys, x0, y0, x1, y1;
} move;

/* The body of visit4 and visit8, written once for both lane widths: SUB, GT, EQ are the lanes'
 * subtraction, signed greater-than and equality, CROSS the sides of two products, LANES the
 * lane mask, BCAST an arm value broadcast, and the move's vectors are in the same lanes. For
 * candidates f[j] (lanes in `live`) with end points (ax,ay) (node eu) and (bx,by) (node ev):
 * incr_cpu.c's visit; 0 when the new point lies on one of them. */
#define TSR__VISIT_BODY(SUB, GT, EQ, CROSS, LANES, BCAST)                                          \
    do {                                                                                           \
        /* candidates incident to v are recounted elsewhere; a proper crossing lies in both        \
         * segments' boxes, so none changes for a candidate whose box misses the star's            \
         * (coordinates are in [0, 2^30]: 32-bit min/max serve the 64-bit lanes too) */            \
        __m256i skip = _mm256_or_si256(EQ(eu, mv->v), EQ(ev, mv->v));                              \
        skip = _mm256_or_si256(skip, GT(mv->x0, _mm256_max_epi32(ax, bx)));                        \
        skip = _mm256_or_si256(skip, GT(_mm256_min_epi32(ax, bx), mv->x1));                        \
        skip = _mm256_or_si256(skip, GT(mv->y0, _mm256_max_epi32(ay, by)));                        \
        skip = _mm256_or_si256(skip, GT(_mm256_min_epi32(ay, by), mv->y1));                        \
        const int act = live & ~LANES(skip);                                                       \
        if (!act)                                                                                  \
            return 1;                                                                              \
        const __m256i dbx = SUB(bx, ax), dby = SUB(by, ay);                                        \
        const __m256i apx = SUB(ax, mv->pxs), apy = SUB(ay, mv->pys);                              \
        const __m256i bpx = SUB(bx, mv->pxs), bpy = SUB(by, mv->pys);                              \
        const __m256i aox = SUB(ax, mv->oxs), aoy = SUB(ay, mv->oys);                              \
        const __m256i box = SUB(bx, mv->oxs), boy = SUB(by, mv->oys);                              \
        /* orient(a,b,p) = dbx (py - ay) - dby (px - ax) = dby apx - dbx apy */                    \
        const sides sp = CROSS(dby, apx, dbx, apy), so = CROSS(dby, aox, dbx, aoy);                \
        if (on_any(inc, f, act & ~LANES(_mm256_or_si256(sp.pos, sp.neg)), mv->px, mv->py))         \
            return 0;                                                                              \
        /* locals: the byte stores below would otherwise make every inc field reload */            \
        const int32_t nstar = inc->nstar;                                                          \
        const int32_t *const star_values = inc->star_values;                                       \
        uint8_t *const arm_now = inc->arm_now, *const arm_was = inc->arm_was;                      \
        int any = 0;                                                                               \
        for (int32_t k = 0; k < nstar; k++) {                                                      \
            const int32_t *s = star_values + (size_t)k * TSR__ARM_VALUES;                          \
            const sides sw = CROSS(dbx, SUB(BCAST(s[A_WY]), ay), dby, SUB(BCAST(s[A_WX]), ax));    \
            /* w strictly on the other side of f's line than the new (old) point; none when w is   \
             * an end of f (sw = 0) */                                                             \
            const __m256i opp_p = _mm256_or_si256(_mm256_and_si256(sp.pos, sw.neg),                \
                                                  _mm256_and_si256(sp.neg, sw.pos));               \
            const __m256i opp_o = _mm256_or_si256(_mm256_and_si256(so.pos, sw.neg),                \
                                                  _mm256_and_si256(so.neg, sw.pos));               \
            /* a and b strictly on opposite sides of the arm's line, after and before the move:    \
             * orient(p,w,a) = (wx - px)(ay - py) - (wy - py)(ax - px) */                          \
            const __m256i dpx = BCAST(s[A_DPX]), dpy = BCAST(s[A_DPY]);                            \
            const __m256i dox = BCAST(s[A_DOX]), doy = BCAST(s[A_DOY]);                            \
            const sides pa = CROSS(dpx, apy, dpy, apx), pb = CROSS(dpx, bpy, dpy, bpx);            \
            const sides oa = CROSS(dox, aoy, doy, aox), ob = CROSS(dox, boy, doy, box);            \
            const __m256i now =                                                                    \
                _mm256_and_si256(opp_p, _mm256_or_si256(_mm256_and_si256(pa.pos, pb.neg),          \
                                                        _mm256_and_si256(pa.neg, pb.pos)));        \
            const __m256i was =                                                                    \
                _mm256_and_si256(opp_o, _mm256_or_si256(_mm256_and_si256(oa.pos, ob.neg),          \
                                                        _mm256_and_si256(oa.neg, ob.pos)));        \
            const int n = act & LANES(now), o = act & LANES(was);                                  \
            arm_now[k] = (uint8_t)n;                                                               \
            arm_was[k] = (uint8_t)o;                                                               \
            any |= n ^ o;                                                                          \
        }                                                                                          \
        add_changes(inc, f, any);                                                                  \
        return 1;                                                                                  \
    } while (0)

/* Four candidates f[0..3] in 64-bit lanes. */
static int visit4(tsr__incr *inc, const move *mv, const int32_t f[4], int live, __m256i eu,
                  __m256i ev, __m256i ax, __m256i ay, __m256i bx, __m256i by)
{
    TSR__VISIT_BODY(_mm256_sub_epi64, _mm256_cmpgt_epi64, _mm256_cmpeq_epi64, cross, lanes,
                    _mm256_set1_epi64x);
}

/* Eight candidates f[0..7] in 32-bit lanes (inc->small). */
static int visit8(tsr__incr *inc, const move *mv, const int32_t f[8], int live, __m256i eu,
                  __m256i ev, __m256i ax, __m256i ay, __m256i bx, __m256i by)
{
    TSR__VISIT_BODY(_mm256_sub_epi32, _mm256_cmpgt_epi32, _mm256_cmpeq_epi32, cross8, lanes8,
                    _mm256_set1_epi32);
}
#undef TSR__VISIT_BODY

/* The lanes of visit4 (64-bit, from int32 sign-extended) and visit8 (32-bit): W int32 loaded
 * from p, and gathered from p at the indices ix (IX: the block's W candidate indices f). */
static inline __m128i ix4(const int32_t *f)
{
    return _mm_loadu_si128((const __m128i *)f);
}

static inline __m256i gather4(const int32_t *p, __m128i ix)
{
    return _mm256_cvtepi32_epi64(_mm_i32gather_epi32(p, ix, 4));
}

static inline __m256i load8(const int32_t *p)
{
    return _mm256_loadu_si256((const __m256i *)p);
}

static inline __m256i ix8(const int32_t *f)
{
    return _mm256_loadu_si256((const __m256i *)f);
}

static inline __m256i gather8(const int32_t *p, __m256i ix)
{
    return _mm256_i32gather_epi32(p, ix, 4);
}

/* The candidates cand[0..n) (cand NULL: every edge) in blocks of W through VISIT: every edge's
 * full blocks loaded (LOAD), candidate lists and the last block gathered (IX, IXT, GATHER),
 * lanes past n repeating the block's first. Returns 0 when the new point lies on a candidate. */
#define TSR__VISIT_ALL(W, VISIT, LOAD, IXT, IX, GATHER)                                            \
    do {                                                                                           \
        const tsr_layout *l = inc->l;                                                              \
        for (int32_t i = 0; i < n; i += W) {                                                       \
            int32_t f[W];                                                                          \
            for (int j = 0; j < W; j++)                                                            \
                f[j] = cand ? cand[i + j < n ? i + j : i] : i + j < n ? i + j : i;                 \
            const int full = n - i >= W, live = full ? (1 << W) - 1 : (1 << (n - i)) - 1;          \
            int ok;                                                                                \
            if (!cand && full) {                                                                   \
                ok = VISIT(inc, mv, f, live, LOAD(l->edge_u + i), LOAD(l->edge_v + i),             \
                           LOAD(inc->eax + i), LOAD(inc->eay + i), LOAD(inc->ebx + i),             \
                           LOAD(inc->eby + i));                                                    \
            } else {                                                                               \
                const IXT ix = IX(f);                                                              \
                ok = VISIT(inc, mv, f, live, GATHER(l->edge_u, ix), GATHER(l->edge_v, ix),         \
                           GATHER(inc->eax, ix), GATHER(inc->eay, ix), GATHER(inc->ebx, ix),       \
                           GATHER(inc->eby, ix));                                                  \
            }                                                                                      \
            if (!ok)                                                                               \
                return 0;                                                                          \
        }                                                                                          \
        return 1;                                                                                  \
    } while (0)

static int visit_all4(tsr__incr *inc, const move *mv, const int32_t *cand, int32_t n)
{
    TSR__VISIT_ALL(4, visit4, load4, __m128i, ix4, gather4);
}

static int visit_all8(tsr__incr *inc, const move *mv, const int32_t *cand, int32_t n)
{
    TSR__VISIT_ALL(8, visit8, load8, __m256i, ix8, gather8);
}
#undef TSR__VISIT_ALL

/* A value broadcast into the lanes of visit4 (wide) or visit8. */
static inline __m256i lanes_of(int wide, int32_t x)
{
    return wide ? _mm256_set1_epi64x(x) : _mm256_set1_epi32(x);
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
        int32_t *s = inc->star_values + (size_t)k * TSR__ARM_VALUES;
        s[A_WX] = a->x;
        s[A_WY] = a->y;
        s[A_DPX] = a->x - px; /* coordinates in [0, 2^30]: no overflow */
        s[A_DPY] = a->y - py;
        s[A_DOX] = a->x - ox;
        s[A_DOY] = a->y - oy;
    }
    const int wide = !inc->small;
    const move mv = {px,
                     py,
                     lanes_of(wide, v),
                     lanes_of(wide, px),
                     lanes_of(wide, py),
                     lanes_of(wide, ox),
                     lanes_of(wide, oy),
                     lanes_of(wide, x0),
                     lanes_of(wide, y0),
                     lanes_of(wide, x1),
                     lanes_of(wide, y1)};
    return wide ? visit_all4(inc, &mv, cand, n) : visit_all8(inc, &mv, cand, n);
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
