/* Which path the resize plan takes for the shapes that plan.c rewrites (OpenCV's own routing is
 * checked by the oracle tests against cv2.resize): u8 2-tap tables that only copy a source pixel
 * become nearest plans with the same offsets (INTER_AREA upscales by integer factors, linear
 * downscales by odd integer factors), and nothing else does. The outputs of those plans are
 * compared with OpenCV by tests/oracle/test_resize_opencv.py ("up" and "int" cases). */
#include "testlib.h"

#include "resize/plan.h"
#include "tessera/tessera.h"

static tsr_ctx *ctx;

static tsr__resize_path path_of(int sw, int sh, int dw, int dh, tsr_depth depth, tsr_interp interp)
{
    tsr__resize_plan pl;
    CHECK_OK(ctx, tsr__resize_plan_build(ctx, &pl, sw, sh, dw, dh, 3, depth, interp,
                                         (double)dw / sw, (double)dh / sh));
    const tsr__resize_path p = pl.path;
    if (p == TSR__RESIZE_NEAREST) /* the coefficient tables are dropped with the rewrite */
        CHECK(!pl.table_bytes[TSR__RT_XCOEF] && !pl.table_bytes[TSR__RT_YCOEF]);
    tsr__resize_plan_free(ctx, &pl);
    return p;
}

int main(void)
{
    ctx = tsr_test_reference_ctx();
    /* rewritten: area upscales by integer factors, linear downscales by odd integer factors */
    CHECK(path_of(40, 30, 80, 60, TSR_U8, TSR_INTERP_AREA) == TSR__RESIZE_NEAREST);
    CHECK(path_of(40, 30, 120, 90, TSR_U8, TSR_INTERP_AREA) == TSR__RESIZE_NEAREST);
    CHECK(path_of(40, 30, 160, 60, TSR_U8, TSR_INTERP_AREA) == TSR__RESIZE_NEAREST);
    CHECK(path_of(1920, 1080, 3840, 2160, TSR_U8, TSR_INTERP_AREA) == TSR__RESIZE_NEAREST);
    CHECK(path_of(90, 60, 30, 20, TSR_U8, TSR_INTERP_LINEAR) == TSR__RESIZE_NEAREST);
    CHECK(path_of(3840, 2160, 1280, 720, TSR_U8, TSR_INTERP_LINEAR) == TSR__RESIZE_NEAREST);
    /* not rewritten: fractional upscales, even factors, other depths and interpolations */
    CHECK(path_of(40, 30, 100, 75, TSR_U8, TSR_INTERP_AREA) == TSR__RESIZE_SEPARABLE);
    CHECK(path_of(40, 30, 80, 60, TSR_U16, TSR_INTERP_AREA) == TSR__RESIZE_SEPARABLE);
    CHECK(path_of(40, 30, 80, 60, TSR_F32, TSR_INTERP_AREA) == TSR__RESIZE_SEPARABLE);
    CHECK(path_of(40, 30, 80, 60, TSR_U8, TSR_INTERP_LINEAR) == TSR__RESIZE_SEPARABLE);
    CHECK(path_of(40, 30, 80, 60, TSR_U8, TSR_INTERP_CUBIC) == TSR__RESIZE_SEPARABLE);
    CHECK(path_of(120, 80, 30, 20, TSR_U8, TSR_INTERP_LINEAR) == TSR__RESIZE_SEPARABLE);
    CHECK(path_of(90, 60, 30, 60, TSR_U8, TSR_INTERP_LINEAR) == TSR__RESIZE_NEAREST);
    CHECK(path_of(90, 60, 30, 40, TSR_U8, TSR_INTERP_LINEAR) == TSR__RESIZE_SEPARABLE);
    tsr_ctx_destroy(ctx);
    return tsr_test_finish("test_resize_plan");
}
