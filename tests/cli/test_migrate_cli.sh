#!/usr/bin/env bash
# End-to-end tests of `tessera migrate`: help and man page, usage errors (exit 2, one line),
# bad inputs (exit 1, one line, no output), then on a 3 km Marmousi-II window: model two shots,
# inspect them, migrate them to a sidecar, a PNG and SEG-Y, check the image holds the water
# bottom at its depth; SIGTERM mid-run leaves nothing; viking_small.segy migrates with water
# velocity. The reference image and cpu modelling do not depend on --threads; --checkpoint runs
# stopped (--max-shots, SIGTERM, SIGKILL) resume to the uninterrupted image, bit for bit.
tests=${TSR_TESTS:?TSR_TESTS must name the tests folder}
. "$tests/cli/lib.sh"
data=${TSR_DATA:-}
one_line() { [ "$(grep -v -c 'using CPU' "$tmp/err.txt")" -eq 1 ] && ok || bad "one error line: $*"; }

expect 0 "$tool" migrate --help
for opt in method fmin fmax imaging f0 png shots receivers t dt reflectivity taper checkpoint max-shots backend threads json quiet; do
  grep -q -- "--$opt" "$tmp/out.txt" && ok || bad "migrate --help documents --$opt"
done
grep -q "tessera migrate image" "$tmp/out.txt" && ok || bad "help has examples"
expect 0 "$tool" help --man migrate
grep -q '^\.TH TESSERA-migrate' "$tmp/out.txt" && ok || bad "man page header"
expect 0 "$tool" help
grep -q "migrate" "$tmp/out.txt" && ok || bad "help lists migrate"

# A tiny constant-velocity model (20 x 10 cells of 10 m) made here.
$py -c "import struct,sys; sys.stdout.buffer.write(struct.pack('<f',2000.0)*200)" >"$tmp/c.f32"
printf '{"file": "c.f32", "nx": 20, "nz": 10, "dx": 10, "dz": 10, "ox": 0, "oz": 0}\n' >"$tmp/c.json"

# Usage errors: exit 2, one line, no output.
expect 2 "$tool" migrate; one_line no sub-command
expect 2 "$tool" migrate fly a b; one_line unknown sub-command
expect 2 "$tool" migrate image "$tmp/s.sgy" "$tmp/c.json"; one_line missing OUT
expect 2 "$tool" migrate model "$tmp/c.json" "$tmp/s.sgy"; one_line no --shots
for v in 1:2 a:1:2 0:10:0 0:10:1.5 0:10:x; do
  expect 2 "$tool" migrate model "$tmp/c.json" "$tmp/s.sgy" --shots "$v"; one_line "--shots $v"
done
expect 2 "$tool" migrate model "$tmp/c.json" "$tmp/s.json" --shots 50:10:2; one_line not SEG-Y
expect 2 "$tool" migrate model "$tmp/c.json" "$tmp/s.sgy" --shots 50:10:2 --t abc; one_line --t
expect 2 "$tool" migrate image "$tmp/s.sgy" "$tmp/c.json" "$tmp/i.json" --method gazdag; one_line --method
expect 2 "$tool" migrate image "$tmp/s.sgy" "$tmp/c.json" "$tmp/i.json" --imaging max; one_line --imaging
expect 2 "$tool" migrate image "$tmp/s.sgy" "$tmp/c.json" "$tmp/i.json" --fmax -3; one_line --fmax
expect 2 "$tool" migrate image "$tmp/s.sgy" "$tmp/c.json" "$tmp/i.json" --max-shots 2; one_line --max-shots without --checkpoint
expect 2 "$tool" migrate image "$tmp/s.sgy" "$tmp/c.json" "$tmp/i.json" --checkpoint "$tmp/ck" --max-shots 0; one_line --max-shots 0
[ ! -e "$tmp/ck" ] && ok || bad "usage error made the checkpoint folder"
[ ! -e "$tmp/s.sgy" ] && [ ! -e "$tmp/i.json" ] && ok || bad "usage error left an output file"

# Runtime errors: exit 1, one line, no output.
expect 0 "$tool" migrate model "$tmp/c.json" "$tmp/s.sgy" --shots 50:100:2 --t 0.3 --quiet
expect 1 "$tool" migrate image "$tmp/missing.sgy" "$tmp/c.json" "$tmp/i.json"; one_line missing SEG-Y
echo "not a SEG-Y file" >"$tmp/text.sgy"
expect 1 "$tool" migrate info "$tmp/text.sgy"; one_line text as SEG-Y
printf '{"file": "c.f32", "nx": 20, "nz": 11, "dx": 10, "dz": 10}\n' >"$tmp/wrong.json"
expect 1 "$tool" migrate image "$tmp/s.sgy" "$tmp/wrong.json" "$tmp/i.json"; one_line size mismatch
$py -c "import struct,sys; sys.stdout.buffer.write(struct.pack('<f',2000.0)*57+struct.pack('<f',float('nan'))+struct.pack('<f',2000.0)*142)" >"$tmp/nan.f32"
printf '{"file": "nan.f32", "nx": 20, "nz": 10, "dx": 10, "dz": 10}\n' >"$tmp/nan.json"
expect 1 "$tool" migrate image "$tmp/s.sgy" "$tmp/nan.json" "$tmp/i.json"; one_line NaN velocity
grep -q "velocity" "$tmp/err.txt" && ok || bad "NaN error names the velocity"
expect 1 "$tool" migrate model "$tmp/c.json" "$tmp/far.sgy" --shots 50:100:2 --receivers 0:30:10 --t 0.3; one_line receivers outside
grep -q "shot 1" "$tmp/err.txt" && grep -q "trace 8" "$tmp/err.txt" && ok || bad "outside error names shot and trace"
# --backend cuda: an error where the build or the machine has no CUDA device, a run where it has
if "$tool" --version | grep -q "cuda"; then
  expect 0 "$tool" migrate image "$tmp/s.sgy" "$tmp/c.json" "$tmp/cuda.json" --backend cuda --quiet
else
  expect 1 "$tool" migrate image "$tmp/s.sgy" "$tmp/c.json" "$tmp/i.json" --backend cuda; one_line cuda
fi
expect 1 "$tool" migrate image "$tmp/s.sgy" "$tmp/c.json" "$tmp/nodir/i.json" --quiet
[ ! -e "$tmp/i.json" ] && [ ! -e "$tmp/i.f32" ] && [ ! -e "$tmp/far.sgy" ] && ok || bad "failed run left an output file"
[ -z "$(ls -A "$tmp" | grep '\.tmp-')" ] && ok || bad "temporary files left"

# A given reflectivity grid: one that matches the model, and one that does not.
$py -c "import struct,sys; sys.stdout.buffer.write(b''.join(struct.pack('<f',0.1 if i % 10 == 6 else 0.0) for i in range(200)))" >"$tmp/r.f32"
printf '{"file": "r.f32", "nx": 20, "nz": 10, "dx": 10, "dz": 10}\n' >"$tmp/r.json"
expect 0 "$tool" migrate model "$tmp/c.json" "$tmp/rs.sgy" --shots 50:100:2 --t 0.3 --reflectivity "$tmp/r.json" --quiet
[ -s "$tmp/rs.sgy" ] && ok || bad "modelled from a reflectivity grid"
expect 1 "$tool" migrate model "$tmp/c.json" "$tmp/rw.sgy" --shots 50:100:2 --t 0.3 --reflectivity "$tmp/wrong.json"; one_line reflectivity size
[ ! -e "$tmp/rw.sgy" ] && ok || bad "a failed model left its output"

# The tiny model end to end: info, image to a sidecar and to SEG-Y, reference backend.
expect 0 "$tool" migrate info "$tmp/s.sgy" --json
grep -q '"shots": 2' "$tmp/out.txt" && grep -q '"traces_per_shot": \[20, 20\]' "$tmp/out.txt" && ok || bad "info json"
$py -m json.tool "$tmp/out.txt" >/dev/null 2>&1 && ok || bad "info json is valid"
expect 0 "$tool" migrate image "$tmp/s.sgy" "$tmp/c.json" "$tmp/i.json" --backend reference --json
grep -q '"backend": "reference"' "$tmp/out.txt" && ok || bad "json names the backend"
[ -s "$tmp/i.json" ] && [ "$(stat -c %s "$tmp/i.f32")" -eq 800 ] && ok || bad "sidecar image written"
expect 0 "$tool" migrate image "$tmp/s.sgy" "$tmp/c.json" "$tmp/i.sgy" --method phase-shift --quiet
expect 0 "$tool" migrate image "$tmp/s.sgy" "$tmp/c.json" "$tmp/p.json" --method pspi --json
grep -q '"method": "pspi"' "$tmp/out.txt" && ok || bad "pspi runs"
# What must not depend on --threads: the reference image (the spectra are made on the threads,
# one shot per thread), and modelling on the cpu backend (frequencies are not summed).
expect 0 "$tool" migrate image "$tmp/s.sgy" "$tmp/c.json" "$tmp/t1.json" --backend reference --threads 1 --quiet
expect 0 "$tool" migrate image "$tmp/s.sgy" "$tmp/c.json" "$tmp/t2.json" --backend reference --threads 2 --quiet
cmp -s "$tmp/t1.f32" "$tmp/t2.f32" && ok || bad "reference image depends on --threads"
expect 0 "$tool" migrate model "$tmp/c.json" "$tmp/m1.sgy" --shots 50:100:2 --t 0.3 --backend cpu --threads 1 --quiet
expect 0 "$tool" migrate model "$tmp/c.json" "$tmp/m2.sgy" --shots 50:100:2 --t 0.3 --backend cpu --threads 2 --quiet
cmp -s "$tmp/m1.sgy" "$tmp/m2.sgy" && ok || bad "cpu modelling depends on --threads"
# --checkpoint: six shots migrated 2 + 3 (other --threads) + the rest give the uninterrupted
# image bit for bit (reference backend; cpu with one thread); a finished checkpoint only writes
# OUT; a checkpoint of other options, model or shots is refused, a damaged one too, with OUT
# not written.
expect 0 "$tool" migrate model "$tmp/c.json" "$tmp/s6.sgy" --shots 10:35:6 --t 0.3 --quiet
for b in "reference 2" "cpu 1"; do
  set -- $b
  rm -rf "$tmp/ck" "$tmp/ck.json" "$tmp/ck.f32"
  expect 0 "$tool" migrate image "$tmp/s6.sgy" "$tmp/c.json" "$tmp/whole.json" --backend $1 --threads $2 --quiet
  expect 0 "$tool" migrate image "$tmp/s6.sgy" "$tmp/c.json" "$tmp/ck.json" --backend $1 --threads $2 --checkpoint "$tmp/ck" --max-shots 2
  grep -q "2 of 6 shots" "$tmp/err.txt" && [ ! -e "$tmp/ck.json" ] && ok || bad "$1: --max-shots 2 stops after 2 shots, OUT not written"
  expect 0 "$tool" migrate image "$tmp/s6.sgy" "$tmp/c.json" "$tmp/ck.json" --backend $1 --threads 1 --checkpoint "$tmp/ck" --max-shots 3 --json
  grep -q '"resumed_at": 2, "shots_done": 5, "complete": false' "$tmp/out.txt" && ok || bad "$1: resumed at 2, stopped at 5"
  expect 0 "$tool" migrate image "$tmp/s6.sgy" "$tmp/c.json" "$tmp/ck.json" --backend $1 --threads $2 --checkpoint "$tmp/ck" --json
  grep -q '"resumed_at": 5, "shots_done": 6, "complete": true' "$tmp/out.txt" && ok || bad "$1: resumed at 5, complete"
  cmp -s "$tmp/whole.f32" "$tmp/ck.f32" && ok || bad "$1: the resumed image differs from the uninterrupted one"
  [ "$(ls "$tmp/ck")" = "$(printf 'manifest.json\nsum-6.f64')" ] && ok || bad "$1: checkpoint folder holds $(ls "$tmp/ck")"
done
rm -f "$tmp/ck.json" "$tmp/ck.f32"
expect 0 "$tool" migrate image "$tmp/s6.sgy" "$tmp/c.json" "$tmp/ck.json" --backend cpu --threads 2 --checkpoint "$tmp/ck" --json
grep -q '"resumed_at": 6' "$tmp/out.txt" && cmp -s "$tmp/whole.f32" "$tmp/ck.f32" && ok || bad "a finished checkpoint writes OUT"
rm -f "$tmp/ck.json" "$tmp/ck.f32"
expect 1 "$tool" migrate image "$tmp/s6.sgy" "$tmp/c.json" "$tmp/ck.json" --backend cpu --fmax 30 --checkpoint "$tmp/ck"; one_line other fmax
grep -q "options.fmax" "$tmp/err.txt" && ok || bad "the refusal names fmax"
expect 1 "$tool" migrate image "$tmp/s6.sgy" "$tmp/c.json" "$tmp/ck.json" --backend reference --checkpoint "$tmp/ck"; one_line other backend
grep -q "options.backend" "$tmp/err.txt" && ok || bad "the refusal names the backend"
expect 1 "$tool" migrate image "$tmp/s.sgy" "$tmp/c.json" "$tmp/ck.json" --backend cpu --checkpoint "$tmp/ck"; one_line other shots
grep -q "shots.count" "$tmp/err.txt" && ok || bad "the refusal names the shots"
$py -c "import struct,sys; sys.stdout.buffer.write(struct.pack('<f',2100.0)*200)" >"$tmp/c2.f32"
printf '{"file": "c2.f32", "nx": 20, "nz": 10, "dx": 10, "dz": 10, "ox": 0, "oz": 0}\n' >"$tmp/c2.json"
expect 1 "$tool" migrate image "$tmp/s6.sgy" "$tmp/c2.json" "$tmp/ck.json" --backend cpu --checkpoint "$tmp/ck"; one_line other model
grep -q "velocity.hash" "$tmp/err.txt" && ok || bad "the refusal names the velocity"
printf 'x' | dd of="$tmp/ck/sum-6.f64" bs=1 seek=100 conv=notrunc 2>/dev/null
expect 1 "$tool" migrate image "$tmp/s6.sgy" "$tmp/c.json" "$tmp/ck.json" --backend cpu --checkpoint "$tmp/ck"; one_line damaged sum
grep -q "damaged" "$tmp/err.txt" && ok || bad "a damaged sum is named"
[ ! -e "$tmp/ck.json" ] && [ ! -e "$tmp/ck.f32" ] && ok || bad "a refused checkpoint wrote OUT"
expect 0 "$tool" migrate info "$tmp/i.sgy" --json
grep -q '"samples": 10' "$tmp/out.txt" && grep -q '"traces": 20' "$tmp/out.txt" && ok || bad "SEG-Y image: 20 traces of 10 depths"

if [ -z "$data" ] || [ ! -d "$data/seismic/derived" ]; then
  echo "note: no ../shared/data: the Marmousi and Viking runs are skipped" >&2
  finish test_migrate_cli
fi

# A 3 km window (150 x 174 cells of 20 m) of Marmousi-II: shots modelled in the true model and
# migrated in the smooth one.
d=$data/seismic/derived
for m in vp vp_smooth; do
  head -c $((150 * 174 * 4)) "$d/marmousi2_denise_20m_$m.f32" >"$tmp/w_$m.f32"
  printf '{"file": "w_%s.f32", "nx": 150, "nz": 174, "dx": 20, "dz": 20, "ox": 0, "oz": 0}\n' "$m" >"$tmp/w_$m.json"
done
expect 0 "$tool" migrate model "$tmp/w_vp.json" "$tmp/m.sgy" --shots 900:1200:2 --t 1.3 --f0 12 --json
grep -q '"shots": 2, "receivers": 150' "$tmp/out.txt" && ok || bad "model json"
expect 0 "$tool" migrate info "$tmp/m.sgy"
grep -q "2 shots, source x 900 .. 2100 m" "$tmp/out.txt" && ok || bad "info of the modelled shots"
expect 0 "$tool" migrate image "$tmp/m.sgy" "$tmp/w_vp_smooth.json" "$tmp/img.json" --png "$tmp/img.png" --fmax 24 --json
$py -m json.tool "$tmp/out.txt" >/dev/null 2>&1 && ok || bad "image json is valid"
grep -q '"grid": {"nx": 150, "nz": 174' "$tmp/out.txt" && grep -q '"shots": 2' "$tmp/out.txt" && ok || bad "image json grid and shots"
[ -s "$tmp/img.png" ] && ok || bad "png written"
# The water bottom (the first contrast under the sources, at 460 m in this window) is where the
# image is strongest in the top kilometre below the sources.
wb=$($py - "$tmp" <<'EOF'
import json, sys, numpy as np
t = sys.argv[1]
meta = json.load(open(t + "/img.json"))
img = np.fromfile(t + "/" + meta["file"], "<f4").reshape(meta["nx"], meta["nz"])
v = np.fromfile(t + "/w_vp.f32", "<f4").reshape(150, 174)
cols = slice(40, 110)
bottom = int(np.argmax(np.diff(v[cols], axis=1).mean(axis=0) > 50)) + 1
peak = int(np.argmax(np.abs(img[cols, :50]).mean(axis=0)))
print(bottom, peak)
EOF
)
read -r bottom peak <<<"$wb"
[ -n "$peak" ] && [ $((peak - bottom)) -le 1 ] && [ $((bottom - peak)) -le 1 ] && ok || bad "water bottom at sample $bottom, image peak at $peak"
expect 0 "$tool" migrate image "$tmp/m.sgy" "$tmp/w_vp_smooth.json" "$tmp/img.sgy" --method phase-shift --imaging normalized --fmax 20 --quiet
[ -s "$tmp/img.sgy" ] && ok || bad "SEG-Y image written"

# SIGTERM mid-run: exit 130, nothing written.
expect_stopped "$tool" migrate image "$tmp/m.sgy" "$tmp/w_vp_smooth.json" "$tmp/stop/i.json" --png "$tmp/stop/i.png" --threads 1

# A checkpointed run stopped by SIGTERM (exit 130) and one killed by SIGKILL, each once its
# first checkpoint is on disk, resume and give the uninterrupted image bit for bit (cpu, one
# thread).
expect 0 "$tool" migrate model "$tmp/w_vp.json" "$tmp/m4.sgy" --shots 600:600:4 --t 1.3 --f0 12 --quiet
expect 0 "$tool" migrate image "$tmp/m4.sgy" "$tmp/w_vp_smooth.json" "$tmp/m4.json" --fmax 16 --backend cpu --threads 1 --quiet
for sig in TERM KILL; do
  rm -rf "$tmp/ck4"
  "$tool" migrate image "$tmp/m4.sgy" "$tmp/w_vp_smooth.json" "$tmp/r4.json" --fmax 16 --backend cpu --threads 1 --checkpoint "$tmp/ck4" --quiet >"$tmp/out.txt" 2>"$tmp/err.txt" &
  pid=$!
  for _ in $(seq 600); do [ -e "$tmp/ck4/manifest.json" ] && break; sleep 0.05; done
  kill -$sig $pid 2>/dev/null
  { wait $pid; } 2>/dev/null
  got=$?
  if [ -e "$tmp/r4.json" ]; then
    echo "note: the SIG$sig run finished before the signal; resume checked from its end" >&2
  else
    [ "$got" -eq $([ $sig = TERM ] && echo 130 || echo 137) ] && ok || bad "exit $got after SIG$sig"
  fi
  expect 0 "$tool" migrate image "$tmp/m4.sgy" "$tmp/w_vp_smooth.json" "$tmp/r4.json" --fmax 16 --backend cpu --threads 1 --checkpoint "$tmp/ck4" --json
  grep -q '"shots_done": 4, "complete": true' "$tmp/out.txt" && ok || bad "resumed after SIG$sig"
  cmp -s "$tmp/m4.f32" "$tmp/r4.f32" && ok || bad "the image resumed after SIG$sig differs"
  rm -f "$tmp/r4.json" "$tmp/r4.f32"
done

# Viking Graben field shots in water velocity (positions 0 .. 3312 m).
$py -c "import struct,sys; sys.stdout.buffer.write(struct.pack('<f',1500.0)*(140*40))" >"$tmp/water.f32"
printf '{"file": "water.f32", "nx": 140, "nz": 40, "dx": 25, "dz": 25}\n' >"$tmp/water.json"
expect 0 "$tool" migrate image "$data/seismic/shots/viking_small.segy" "$tmp/water.json" "$tmp/viking.json" --fmax 12 --json
grep -q '"shots": 4, "traces": 480, "samples": 600' "$tmp/out.txt" && ok || bad "viking json"
finish test_migrate_cli
