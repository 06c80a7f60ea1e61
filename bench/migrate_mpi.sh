#!/usr/bin/env bash
# `tessera migrate image` on one process vs under mpirun: wall time (median of REPEATS runs, and
# the spread) and rank 0's reduce_ms (--json), for the CLI test's survey (4 shots on a 40 x 20
# model) and, with the shared data, 8 Marmousi-II shots. Prints a Markdown table with the
# machine, the load average and the command.
# Usage: bench/migrate_mpi.sh TESSERA [REPEATS] [BACKEND...]   (default 5 repeats; reference cpu)
set -euo pipefail
tool=$(realpath "${1:?usage: bench/migrate_mpi.sh TESSERA [REPEATS] [BACKEND...]}")
repeats=${2:-5}
shift $(($# < 2 ? $# : 2))
backends=${*:-reference cpu}
data=${TSR_DATA:-$(dirname "$0")/../../shared/data}
py=/usr/bin/python3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mpi() { mpirun --oversubscribe --allow-run-as-root -np "$@"; }

$py -c "
import struct, sys
v = [2000.0 if iz < 12 else 2600.0 for ix in range(40) for iz in range(20)]
sys.stdout.buffer.write(struct.pack('<%df' % len(v), *v))" >"$tmp/v.f32"
printf '{"file": "v.f32", "nx": 40, "nz": 20, "dx": 10, "dz": 10, "ox": 0, "oz": 0}\n' >"$tmp/v.json"
"$tool" migrate model "$tmp/v.json" "$tmp/test.sgy" --shots 20:90:4 --t 0.4 --quiet
surveys="test"
marm=$data/seismic/derived/marmousi2_denise_20m_vp
if [ -e "$marm.json" ]; then
  "$tool" migrate model "$marm.json" "$tmp/marm.sgy" --shots 2000:1000:8 --t 1.2 --f0 6 --quiet
  surveys="test marm"
fi

# run LABEL CMD...: REPEATS runs; prints "median spread reduce_ms" (seconds, seconds, ms).
run() {
  local times=() reduce=0
  for _ in $(seq "$repeats"); do
    local t0 t1
    t0=$(date +%s.%N)
    "$@" >"$tmp/out.json" 2>/dev/null
    t1=$(date +%s.%N)
    times+=("$(echo "$t1 - $t0" | bc)")
    reduce=$($py -c "import json; print(json.load(open('$tmp/out.json'))['reduce_ms'])")
  done
  $py -c "
import statistics, sys
t = sorted(map(float, sys.argv[2:]))
print('%.3f | %.3f | %s' % (statistics.median(t), t[-1] - t[0], sys.argv[1]))" "$reduce" "${times[@]}"
}

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "command: bench/migrate_mpi.sh $tool $repeats $backends ($(mpirun --version | head -1))"
echo
echo "| survey | backend | processes | median s | spread s | reduce_ms |"
echo "|---|---|---|---|---|---|"
for s in $surveys; do
  model=$tmp/v.json
  [ "$s" = marm ] && model=$marm"_smooth.json"
  extra=()
  [ "$s" = marm ] && extra=(--fmax 18)
  for b in $backends; do
    args=(migrate image "$tmp/$s.sgy" "$model" "$tmp/img.json" --backend "$b" --json "${extra[@]}")
    echo "| $s | $b | 1 (no mpirun) | $(run "$tool" "${args[@]}") |"
    echo "| $s | $b | mpirun -np 1 | $(run mpi 1 "$tool" "${args[@]}") |"
    echo "| $s | $b | mpirun -np 2 | $(run mpi 2 "$tool" "${args[@]}") |"
  done
done
echo
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
