#!/usr/bin/env bash
# One call on the lent GPU machine for the migrate CUDA backend: build (Release, sm_90), the
# migrate tests, bench_migrate, compute-sanitizer memcheck and racecheck over the GPU test (quick
# subset). Logs under $OUT. Carry .devdeps and .devrun (FFTW and segyio as Debian packages).
# usage, from the repository root on the machine: bash bench/run_migrate_device.sh
set -u
# TSR_DEPS: the deps.sh to source (default .devrun/deps.sh beside this tree)
source "${TSR_DEPS:-.devrun/deps.sh}"
B=/tmp/b; S=$(date +%s)
t() { echo "== $1 at $(( $(date +%s) - S )) s"; }
{ nvidia-smi -L; nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem --format=csv; nproc; } > $OUT/info.log 2>&1
t configure > $OUT/build.log
cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DTSR_CUDA_ARCHS=90 -DTSR_ENABLE_OPENCL=OFF >> $OUT/build.log 2>&1
t build >> $OUT/build.log
ninja -C $B -j16 test_migrate_cuda_gpu test_migrate_backends test_migrate_image test_migrate_adjoint test_migrate_plan test_migrate_io bench_migrate tessera_cli >> $OUT/build.log 2>&1 || { echo BUILD FAILED; tail -40 $OUT/build.log; exit 1; }
cuobjdump --dump-resource-usage $B/src/CMakeFiles/tessera_objects.dir/migrate/extrap_cuda.cu.o >> $OUT/info.log 2>&1
t test
(cd $B && timeout 200 ctest -R migrate --output-on-failure > $OUT/test.log 2>&1); echo "ctest rc $?"; grep -E "tests passed|Failed|Passed|Skipped" $OUT/test.log | tail -12
$B/tests/test_migrate_cuda_gpu > $OUT/gpu_test.log 2>&1; echo "gpu test rc $?"; cat $OUT/gpu_test.log | tail -25
t bench
timeout 200 $B/bench/bench_migrate --nt 500 --shots-ref 1 --shots-cpu 2 --shots-cuda 32 --json $OUT/bench.json > $OUT/bench.log 2>&1; echo "bench rc $?"; cat $OUT/bench.log
t sanitize
export TSR_TEST_QUICK=1
timeout 120 compute-sanitizer --tool memcheck --leak-check full --error-exitcode 9 $B/tests/test_migrate_cuda_gpu > $OUT/sanitize.log 2>&1; echo "memcheck rc $?"
timeout 100 compute-sanitizer --tool racecheck --racecheck-report all --error-exitcode 9 $B/tests/test_migrate_cuda_gpu >> $OUT/sanitize.log 2>&1; echo "racecheck rc $?"
grep -E "ERROR SUMMARY|RACECHECK SUMMARY|Hazard|failures|checks" $OUT/sanitize.log | head
t done
