#!/usr/bin/env bash
# `mpirun -np N tessera migrate image`: the ranks split the shots and rank 0 writes the image,
# which must equal the one-process image within the bound that the summation order gives
# (below), on the reference backend and on cpu with --threads 1 (where a shot's image is
# deterministic). Also: --json's "ranks" and "reduce_ms", errors exit non-zero on every rank
# with one rank-prefixed line and no output, --checkpoint and the other sub-commands refused.
# Skips (77) without mpirun or in a tessera built without MPI.
#
# The bound. One process sums the shots' double images J_0 .. J_{n-1} left to right; N ranks
# sum contiguous ranges, then rank 0 adds the range sums in rank order. Both are orderings of
# one n-term double sum, each within (n - 1) u sum_k |J_k| of the exact sum (u = 2^-53, to first
# order), so they differ by at most 2 (n - 1) u sum_k |J_k| per sample; rounding each to float
# adds at most half a float ulp each, one ulp of the larger in all. sum_k |J_k| is taken from
# each shot migrated alone (a float image, so scaled by 1 + 2^-20 to cover its rounding).
tests=${TSR_TESTS:?TSR_TESTS must name the tests folder}
. "$tests/cli/lib.sh"
if ! command -v mpirun >/dev/null 2>&1; then
  echo "test_migrate_mpi_cli: mpirun is not installed (Debian: openmpi-bin); skipping"
  exit 77
fi
# Under ASan, LeakSanitizer reports OpenMPI's own allocations at exit (libmpi and the components
# it loads and unloads, which it cannot name): leak checking is off for the ranks, memory errors
# are still caught, and tessera's own leaks are checked by the plain-run migrate tests.
mpirun_env() { ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" mpirun "$@"; }
mpi() { mpirun_env --oversubscribe --allow-run-as-root -np "$@"; }

expect 0 "$tool" migrate --help
grep -q "mpirun -np" "$tmp/out.txt" && grep -q "reduce_ms" "$tmp/out.txt" && ! grep -q "Not yet.*MPI" "$tmp/out.txt" && ok || bad "--help documents mpirun runs"

# A 400 m x 200 m model with a velocity step at 120 m, and 4 shots modelled on it.
$py -c "
import struct, sys
v = [2000.0 if iz < 12 else 2600.0 for ix in range(40) for iz in range(20)]
sys.stdout.buffer.write(struct.pack('<%df' % len(v), *v))" >"$tmp/v.f32"
printf '{"file": "v.f32", "nx": 40, "nz": 20, "dx": 10, "dz": 10, "ox": 0, "oz": 0}\n' >"$tmp/v.json"
n=4
expect 0 "$tool" migrate model "$tmp/v.json" "$tmp/s.sgy" --shots 20:90:$n --t 0.4 --quiet
for k in $(seq 0 $((n - 1))); do
  expect 0 "$tool" migrate model "$tmp/v.json" "$tmp/s$k.sgy" --shots $((20 + 90 * k)):90:1 --t 0.4 --quiet
done

expect 0 mpi 2 "$tool" migrate image "$tmp/s.sgy" "$tmp/v.json" "$tmp/probe.json" --backend reference --json
if grep -q '"ranks": 1' "$tmp/out.txt"; then
  echo "test_migrate_mpi_cli: this tessera was built without MPI (no libopenmpi-dev); skipping"
  exit 77
fi
[ "$(grep -c '"command"' "$tmp/out.txt")" -eq 1 ] && ok || bad "--json printed by rank 0 only"
grep -q '"ranks": 2' "$tmp/out.txt" && grep -Eq '"reduce_ms": [0-9.]+' "$tmp/out.txt" && ok || bad "--json ranks and reduce_ms: $(cat "$tmp/out.txt")"
$py -m json.tool "$tmp/out.txt" >/dev/null 2>&1 && ok || bad "--json is valid"

# within BOUND_ONE BOUND_N SHOT... : checks the bound of the header sample by sample.
within() {
  $py - "$@" <<'PY'
import sys, numpy as np
a = np.fromfile(sys.argv[1], '<f4').astype(np.float64)
b = np.fromfile(sys.argv[2], '<f4').astype(np.float64)
shots = [np.fromfile(p, '<f4').astype(np.float64) for p in sys.argv[3:]]
n = len(shots)
assert a.size == b.size == shots[0].size and np.abs(a).max() > 0, "empty or mismatched images"
spread = sum(np.abs(s) for s in shots) * (1 + 2.0 ** -20)
ulp = np.spacing(np.maximum(np.abs(a), np.abs(b)).astype(np.float32)).astype(np.float64)
bound = 2 * (n - 1) * 2.0 ** -53 * spread + ulp
over = np.abs(a - b) > bound
if over.any():
    i = int(np.argmax(np.abs(a - b) - bound))
    sys.exit("%d samples beyond the bound; worst %d: %r vs %r (bound %g)" % (over.sum(), i, a[i], b[i], bound[i]))
print("%d of %d samples differ, all within the bound" % ((a != b).sum(), a.size))
PY
}

for b in "reference 2" "cpu 1"; do
  set -- $b
  rm -f "$tmp"/one.* "$tmp"/r*.json "$tmp"/r*.f32
  expect 0 "$tool" migrate image "$tmp/s.sgy" "$tmp/v.json" "$tmp/one.json" --backend $1 --threads $2 --quiet
  for k in $(seq 0 $((n - 1))); do
    expect 0 "$tool" migrate image "$tmp/s$k.sgy" "$tmp/v.json" "$tmp/j$k.json" --backend $1 --threads $2 --quiet
  done
  [ $1 = reference ] && nps="2 3" || nps=2
  for np in $nps; do
    rm -rf "$tmp/out"; mkdir "$tmp/out"
    expect 0 mpi $np "$tool" migrate image "$tmp/s.sgy" "$tmp/v.json" "$tmp/out/r.json" --backend $1 --threads $2 --png "$tmp/out/r.png"
    [ "$(ls "$tmp/out")" = "$(printf 'r.f32\nr.json\nr.png')" ] && ok || bad "$1 -np $np: the outputs are $(ls "$tmp/out")"
    msg=$(within "$tmp/one.f32" "$tmp/out/r.f32" $(for k in $(seq 0 $((n - 1))); do echo "$tmp/j$k.f32"; done) 2>&1) \
      && ok || bad "$1 -np $np: the image differs from one process's: $msg"
    echo "$1 -np $np: $msg"
    cmp -s "$tmp/one.json" <(sed 's/"r\.f32"/"one.f32"/' "$tmp/out/r.json") && ok || bad "$1 -np $np: sidecar differs"
  done
done
# Deterministic: two 2-rank runs give the same bits (the first is the --json probe's).
expect 0 mpi 2 "$tool" migrate image "$tmp/s.sgy" "$tmp/v.json" "$tmp/again.json" --backend reference --quiet
cmp -s "$tmp/probe.f32" "$tmp/again.f32" && ok || bad "two 2-rank reference runs differ"
# More ranks than shots: the ranks without shots add nothing.
expect 0 mpi 5 "$tool" migrate image "$tmp/s.sgy" "$tmp/v.json" "$tmp/five.json" --backend cpu --threads 1 --quiet
msg=$(within "$tmp/one.f32" "$tmp/five.f32" $(for k in $(seq 0 $((n - 1))); do echo "$tmp/j$k.f32"; done) 2>&1) && ok || bad "-np 5: $msg"

# Errors: every rank exits non-zero, one line names the rank, nothing is written.
rm -rf "$tmp/out"; mkdir "$tmp/out"
rank_lines() { [ "$(grep -c 'tessera migrate: rank [0-9]* of 2: ' "$tmp/err.txt")" -eq 1 ] && grep -q "$1" "$tmp/err.txt" && ok || bad "one rank-prefixed line with '$1': $(cat "$tmp/err.txt")"; }
expect 1 mpi 2 "$tool" migrate image "$tmp/missing.sgy" "$tmp/v.json" "$tmp/out/e.json"; rank_lines missing.sgy
expect 1 mpi 2 "$tool" migrate image "$tmp/s.sgy" "$tmp/v.json" "$tmp/nodir/e.json"; rank_lines nodir
# One rank alone failing (Open MPI's MPMD form gives rank 1 other arguments): before the
# migration (its shots file is missing) and inside it (its model holds a NaN).
expect 1 mpirun_env --oversubscribe --allow-run-as-root -np 1 "$tool" migrate image "$tmp/s.sgy" "$tmp/v.json" "$tmp/out/e.json" \
  : -np 1 "$tool" migrate image "$tmp/missing.sgy" "$tmp/v.json" "$tmp/out/e.json"; rank_lines "rank 1 of 2: .*missing.sgy"
$py -c "
import struct, sys
v = [2000.0] * 800; v[333] = float('nan')
sys.stdout.buffer.write(struct.pack('<800f', *v))" >"$tmp/nan.f32"
printf '{"file": "nan.f32", "nx": 40, "nz": 20, "dx": 10, "dz": 10, "ox": 0, "oz": 0}\n' >"$tmp/nan.json"
expect 1 mpirun_env --oversubscribe --allow-run-as-root -np 1 "$tool" migrate image "$tmp/s.sgy" "$tmp/v.json" "$tmp/out/e.json" \
  : -np 1 "$tool" migrate image "$tmp/s.sgy" "$tmp/nan.json" "$tmp/out/e.json"; rank_lines "rank 1 of 2: .*velocity"
expect 2 mpi 2 "$tool" migrate image "$tmp/s.sgy" "$tmp/v.json" "$tmp/out/e.json" --checkpoint "$tmp/out/ck"; rank_lines "checkpoint"
expect 2 mpi 2 "$tool" migrate model "$tmp/v.json" "$tmp/out/m.sgy" --shots 20:45:2; rank_lines "one process"
[ -z "$(ls -A "$tmp/out")" ] && ok || bad "a failed run left $(ls -A "$tmp/out")"
finish test_migrate_mpi_cli
