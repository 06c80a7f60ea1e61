/* Seam carving: the CPU parallel backend (incremental energy and DP, OpenMP) against the
 * single-threaded reference, byte for byte, on random images of many shapes (1 to 3 columns,
 * tall and thin, wide and short), u8 and u16, 1 to 4 channels, both energies, shrink and
 * enlarge in both directions, every order, with and without masks, exact and batch; the seam
 * overlay and the report must agree too; seam-order maps. A real image from ../shared/data when
 * present. The cases are in carve_backend_check.h, shared with the CUDA test. */
#include "carve_backend_check.h"

int main(void)
{
    tsr_ctx_options co;
    tsr_ctx_options_init(&co);
    co.backend = TSR_BACKEND_REFERENCE;
    if (tsr_ctx_create(&co, &ref) != TSR_OK)
        return 1;
    co.backend = TSR_BACKEND_CPU;
    co.threads = 2;
    if (tsr_ctx_create(&co, &other) != TSR_OK)
        return 1;
    tsr_rng r;
    tsr_rng_seed(&r, 44);
    random_cases(&r);
    real_image();
    maps(&r);
    fprintf(stderr, "%d cases, %d mismatches\n", cases, mismatches);
    tsr_ctx_destroy(ref);
    tsr_ctx_destroy(other);
    return tsr_test_finish("test_carve_backends");
}
