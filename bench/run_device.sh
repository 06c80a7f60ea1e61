#!/usr/bin/env bash
# One call on the lent GPU machine: build (Release, sm_90), run the whole test suite (gpu label
# included), compute-sanitizer over the CUDA resize test, the oracle test against the machine's
# OpenCV, the resize workbench and the resize benchmark (with OpenCV from Python), writing logs,
# tables and JSON under $OUT. The machine's image is not Debian: the build dependencies travel as
# Debian packages in .devdeps/ (see bench/notes/resize.md) and are unpacked under /tmp, never /.
#
# Run from a clean export of a commit (the working tree may hold others' unfinished files):
#   git archive HEAD | tar -x -C .devsrc; then on the machine:
#   TSR_DEVDEPS=$PWD/.devdeps bash .devsrc/bench/run_device.sh [steps]   (carry .devsrc, .devdeps)
# usage: bench/run_device.sh [steps...]   steps: info build test sanitize ncu oracle workbench bench carve thumbs
#        (default: all, in that order). Each step's log is $OUT/<step>.log; a summary goes last.
#        env: TSR_CTEST_REGEX (test step: only tests matching it), TSR_SAN_FILTER (sanitize step:
#        only CUDA tests whose name contains it), TSR_BENCH_ARGS (extra bench_resize.py
#        arguments; bench_resize's own go after "--", e.g. "--interps linear -- --no-opencl"). The workbench log ends with the SASS
#        instruction counts of the library's resize kernels (cuobjdump), when cuobjdump exists.
set -u
OUT=${OUT:-/tmp/tsr-out}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${TSR_BUILD:-/tmp/tsr-build}
PREFIX=/tmp/tsr-deps
mkdir -p "$OUT"
steps=("$@")
[ ${#steps[@]} -eq 0 ] && steps=(info build test sanitize oracle workbench bench)
summary=()
note() { summary+=("$1"); echo "== $1"; }

# Build dependencies: unpack the carried .debs into a prefix (only when the system lacks them).
DEPS=${TSR_DEVDEPS:-$ROOT/.devdeps}
if [ -d "$DEPS" ] && [ ! -f /usr/include/png.h -o ! -f /usr/include/CL/cl.h ]; then
    mkdir -p $PREFIX
    for f in "$DEPS"/*.deb; do dpkg -x "$f" $PREFIX; done
    # ocl-icd's dev symlink points to the runtime library in the same prefix
    export CMAKE_PREFIX_PATH=$PREFIX/usr
    export CMAKE_LIBRARY_PATH=$PREFIX/usr/lib/x86_64-linux-gnu
    export CMAKE_INCLUDE_PATH=$PREFIX/usr/include
    export LD_LIBRARY_PATH=$PREFIX/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
fi
# OpenCL: the NVIDIA driver's ICD. The lent image registers only PoCL's in /etc/OpenCL/vendors,
# so the GPU is invisible to OpenCL unless we name the driver's library ourselves; PoCL stays
# available beside it (the library orders GPUs first).
lib=$(ls /usr/local/nvidia/lib64/libnvidia-opencl.so.1 /usr/lib/x86_64-linux-gnu/libnvidia-opencl.so.1 \
      /usr/local/nvidia/lib/libnvidia-opencl.so.1 2>/dev/null | head -1)
if [ -n "$lib" ] && ! grep -qs nvidia /etc/OpenCL/vendors/*.icd; then
    mkdir -p /tmp/tsr-icd && echo "$lib" >/tmp/tsr-icd/nvidia.icd
    cp /etc/OpenCL/vendors/*.icd /tmp/tsr-icd/ 2>/dev/null || true
    export OCL_ICD_VENDORS=/tmp/tsr-icd
fi
PY=$(command -v python3)
export PYTHONUNBUFFERED=1

for step in "${steps[@]}"; do
    log="$OUT/$step.log"
    case $step in
    info)
        {
            date -u; uname -a; nvidia-smi; nvcc --version; cmake --version | head -1
            $PY -c 'import cv2, numpy; print("cv2", cv2.__version__, "numpy", numpy.__version__)'
            dpkg -l 2>/dev/null | grep -E "libpng|libjpeg|zlib1g|ocl-icd|opencl" || true
            ls /usr/local/cuda/lib64 2>/dev/null | grep -i npp || echo "no NPP in /usr/local/cuda/lib64"
            ls /etc/OpenCL/vendors 2>/dev/null; echo "OCL_ICD_VENDORS=${OCL_ICD_VENDORS:-}"
            which compute-sanitizer ncu || true
        } >"$log" 2>&1
        note "info: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null)"
        ;;
    build)
        rm -rf "$BUILD"
        { cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DTSR_CUDA_ARCHS=90 \
              -DTSR_PYTHON="$PY" && cmake --build "$BUILD" -j 16; } >"$log" 2>&1
        note "build: rc=$? ($(grep -E 'CUDA backend|NPP' "$log" | tr '\n' ' '))"
        ;;
    test)
        (cd "$BUILD" && timeout 300 ctest --output-on-failure -j 8 --timeout 280 -LE oracle \
            ${TSR_CTEST_REGEX:+-R "$TSR_CTEST_REGEX"}) >"$log" 2>&1
        note "ctest: rc=$? $(grep -E 'tests passed|tests failed' "$log")"
        grep -E "\*\*\*|Failed|Not Run|Skipped" "$log" | head -20
        ;;
    sanitize)
        # memcheck over every CUDA test (reduced sweeps), racecheck over those with shared memory
        rc_all=0
        for t in "$BUILD"/tests/test_*${TSR_SAN_FILTER:-}*cuda*_gpu; do
            n=$(basename "$t")
            TSR_TEST_QUICK=1 timeout 240 compute-sanitizer --tool memcheck --leak-check full --error-exitcode 9 "$t" >>"$log" 2>&1
            rc=$?; note "memcheck $n: rc=$rc $(grep -E 'ERROR SUMMARY' "$log" | tail -1)"
            # the carve DP's warps poll other blocks' results, which racecheck's serialisation
            # does not let progress: that kernel is left out (memcheck covers it)
            ex=; [ "$n" = test_carve_cuda_gpu ] && ex="--kernel-name-exclude kns=dp_kernel"
            TSR_TEST_QUICK=1 timeout 120 compute-sanitizer --tool racecheck $ex --error-exitcode 9 "$t" >"$OUT/racecheck.log" 2>&1
            rc=$?; note "racecheck $n: rc=$rc $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY' "$OUT/racecheck.log" | tail -1)"
            cat "$OUT/racecheck.log" >>"$log"; rm -f "$OUT/racecheck.log"
        done
        ;;
    ncu)
        # stall reasons and occupancy of the resize kernels on the cases named by TSR_NCU_CASES
        # (bench_resize --cases syntax), one profiled launch per kernel name
        command -v ncu >/dev/null || { note "ncu: not installed"; continue; }
        timeout 300 ncu --clock-control none --launch-skip 3 --launch-count 2 -k "regex:${TSR_NCU_KERNELS:-k_}" \
            --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats \
            --section MemoryWorkloadAnalysis --section SchedulerStats \
            "$BUILD/bench/bench_resize" --cases "${TSR_NCU_CASES:-1080p-4k}" --interps linear --no-cpu \
            --no-opencl --repeats 2 --warmup 1 >"$log" 2>&1
        note "ncu: rc=$?"
        ;;
    thumbs)
        # a batch on the CUDA backend writes the CPU backend's bytes, then bench_thumbs.py over
        # TSR_THUMBS_COUNT (default 200) camera JPEGs made from desert_mesa_4611x8192.jpg
        # (TSR_THUMBS_SOURCE, default the carried shared/data); peers missing here are skipped
        src=${TSR_THUMBS_SOURCE:-$ROOT/../shared/data/images/desert_mesa_4611x8192.jpg}
        T=$BUILD/tools/tessera/tessera; d=/tmp/tsr-thumbs-check; rm -rf $d; mkdir -p $d/in
        for i in $(seq 1 40); do
            $T resize "$src" $d/in/c$i.jpg --size $((1000 + i * 37))x --interp cubic --quiet
        done
        for b in cpu cuda; do
            $T resize $d/in/*.jpg $d/$b --size 256x --interp area --backend $b --quiet >>"$log" 2>&1
        done
        diff -r $d/cpu $d/cuda >>"$log" 2>&1
        note "thumbs: cuda batch == cpu batch: rc=$? ($(ls $d/cuda | wc -l) files)"
        timeout 500 $PY "$ROOT/bench/bench_thumbs.py" "$T" --count "${TSR_THUMBS_COUNT:-200}" \
            --threads "$(nproc)" --python "$PY" --source "$src" --md "$OUT/thumbs.md" >>"$log" 2>&1
        note "thumbs bench: rc=$?"; tail -8 "$OUT/thumbs.md"
        ;;
    carve)
        # bench_carve.py on the CUDA and CPU backends (images from shared/data/images when carried)
        timeout 400 $PY "$ROOT/bench/bench_carve.py" "$BUILD/tools/tessera/tessera" --backends cuda,cpu \
            --threads 16 --sizes "${TSR_CARVE_SIZES:-1920x1080,3840x2160,7680x4320}" --images \
            "${TSR_CARVE_IMAGES:-desert_mesa_4611x8192.jpg}" --json "$OUT/bench_carve.json" >"$log" 2>&1
        note "carve bench: rc=$?"; tail -8 "$log"
        ;;
    oracle)
        TSR_LIBRARY="$BUILD/src/libtessera.so" TSR_TOOL="$BUILD/tools/tessera/tessera" \
            timeout 240 $PY "$ROOT/tests/oracle/test_resize_opencv.py" --backend reference,cuda,opencl >"$log" 2>&1
        note "oracle (OpenCV $($PY -c 'import cv2; print(cv2.__version__)'), --backend cuda): rc=$? $(tail -1 "$log")"
        ;;
    workbench)
        { timeout 120 "$BUILD/dev/resize_workbench_cuda"; [ -x "$BUILD/dev/resize_workbench_opencl" ] && timeout 120 "$BUILD/dev/resize_workbench_opencl"; } >"$log" 2>&1
        rc=$?; cat "$log"
        note "workbench: rc=$rc"
        o=$(find "$BUILD" -name 'resize_cuda.cu.o' | head -1)
        if command -v cuobjdump >/dev/null && [ -n "$o" ]; then
            cuobjdump --dump-sass "$o" >/tmp/tsr-sass.txt 2>&1
            echo "== SASS of $o: per kernel, count of wide/narrow memory instructions" >>"$log"
            awk '/Function :/ {f=$3} /STG|LDG|LDS|STS/ {for (i=1;i<=NF;i++) if ($i ~ /^(STG|LDG|LDS|STS)/) c[f" "$i]++}
                 END {for (k in c) print k, c[k]}' /tmp/tsr-sass.txt | sort >>"$log"
        fi
        ;;
    bench)
        timeout 300 $PY "$ROOT/bench/bench_resize.py" --bench "$BUILD/bench/bench_resize" --threads 16 \
            --json "$OUT/bench_resize.json" ${TSR_BENCH_ARGS:-} >"$log" 2>&1
        note "bench: rc=$?"; sed -n '/^bench_resize:/,$p' "$log" | grep -v "^done "
        ;;
    esac
done
echo
for s in "${summary[@]}"; do echo "$s"; done
