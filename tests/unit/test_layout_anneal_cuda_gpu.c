/* The annealer on the CUDA backend against the CPU backend: the same drawings at a fixed move
 * budget, through the internal entry (batch walk with the CUDA dense evaluator, statistics
 * printed) on layout_anneal_check.h's cases and two contest instances, and through the public
 * tsr_layout_optimize (the --backend cuda dispatch) on one of them with four chains, every one
 * on the GPU (four evaluators on their own streams at once) and only the first. TSR_TEST_QUICK=1
 * (for compute-sanitizer) runs the public entry only, at a quarter of its budget. Skips (77)
 * without a CUDA device. */
#include "testlib.h"

#include "layout_anneal_check.h"

/* Built only in CUDA builds (tests/CMakeLists.txt: *_cuda* names). */

int main(void)
{
    if (!tsr_backend_available(TSR_BACKEND_CUDA)) {
        fprintf(stderr, "test_layout_anneal_cuda_gpu: no CUDA device; skipping\n");
        return TSR_TEST_SKIP;
    }
    tsr_ctx_options o;
    tsr_ctx_options_init(&o);
    o.backend = TSR_BACKEND_CUDA;
    tsr_ctx *cuda, *cpu;
    if (tsr_ctx_create(&o, &cuda) != TSR_OK)
        return 1;
    o.backend = TSR_BACKEND_CPU;
    if (tsr_ctx_create(&o, &cpu) != TSR_OK)
        return 1;
    const int quick = tsr_test_quick();
    static const int contest[] = {3, 6};
    if (!quick)
        lac_run_all(cpu, cuda, TSR__BATCH_CUDA, contest, 2, 12000);
    /* the public entry on the CUDA backend takes the batch walk: same drawing as on the CPU */
    const char *path = tsr_test_data("graphs/gd2025-contest/Automatic-5.json");
    if (path) {
        tsr_layout_optimize_options opt;
        tsr_layout_optimize_options_init(&opt);
        opt.time_limit = 0;
        opt.max_moves = quick ? 2000 : 8000;
        opt.seed = 5;
        opt.chains = 4;
        tsr_layout *a;
        tsr_layout_optimize_result ra;
        CHECK_OK(cpu, tsr_layout_read(cpu, path, &a));
        CHECK_OK(cpu, tsr_layout_optimize(cpu, a, &opt, &ra));
        for (int gpu_chains = 0; gpu_chains <= 1; gpu_chains++) {
            tsr_layout *b;
            tsr_layout_optimize_result rb;
            opt.gpu_chains = gpu_chains;
            CHECK_OK(cuda, tsr_layout_read(cuda, path, &b));
            CHECK_OK(cuda, tsr_layout_optimize(cuda, b, &opt, &rb));
            size_t n = (size_t)a->num_nodes;
            CHECK(memcmp(a->x, b->x, n * 4) == 0 && memcmp(a->y, b->y, n * 4) == 0);
            CHECK(tsr_layout_score_compare(&ra.best, &rb.best) == 0 && ra.moves == rb.moves &&
                  ra.best_chain == rb.best_chain);
            printf("public entry, A5, 4 chains, gpu_chains %d: K %lld, %llu moves: cpu %.2f s, "
                   "cuda %.2f s\n",
                   gpu_chains, (long long)rb.best.K, (unsigned long long)rb.moves, ra.seconds,
                   rb.seconds);
            tsr_layout_free(cuda, b);
        }
        tsr_layout_free(cpu, a);
    }
    tsr_ctx_destroy(cpu);
    tsr_ctx_destroy(cuda);
    return tsr_test_finish("layout_anneal_cuda_gpu");
}
