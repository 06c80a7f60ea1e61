#!/usr/bin/env bash
# End-to-end tests of `tessera migrate` on a 3D model (a sidecar with ny, dy, oy): --help and the
# man page document the 3D options; --shots-y / --receivers-y on a 2D model and malformed ones are
# usage errors (exit 2, one line); a source outside the model in y is a runtime error naming the
# shot; a tiny 3D survey (16 x 12 x 14 cells, a reflector at 80 m) is modelled, inspected (y
# ranges) and migrated to a sidecar, SEG-Y (one trace per (x, y) column) and the PNG of the middle
# inline, each --json reporting ny; the image's peak under the source lies at the reflector; a
# --checkpoint run resumes to the uninterrupted image bit for bit; --backend cuda runs 3D where a
# device is present (else refuses cuda in one line).
tests=${TSR_TESTS:?TSR_TESTS must name the tests folder}
. "$tests/cli/lib.sh"
one_line() { [ "$(grep -v -c 'using CPU' "$tmp/err.txt")" -eq 1 ] && ok || bad "one error line: $*"; }

expect 0 "$tool" migrate --help
for opt in shots-y receivers-y; do
  grep -q -- "--$opt" "$tmp/out.txt" && ok || bad "migrate --help documents --$opt"
done
grep -q "3D" "$tmp/out.txt" && grep -q "middle y" "$tmp/out.txt" && ok || bad "help explains 3D and its PNG"
expect 0 "$tool" help --man migrate
grep -q "shots.-y" "$tmp/out.txt" && ok || bad "man page documents --shots-y"

# The 3D model: ny 12, nx 16, nz 14 of 10 m; 2000 m/s above 80 m, 2500 below.
$py -c "
import struct, sys
out = b''.join(struct.pack('<f', 2000.0 if iz < 8 else 2500.0) for c in range(12 * 16) for iz in range(14))
sys.stdout.buffer.write(out)" >"$tmp/v3.f32"
printf '{"file": "v3.f32", "nx": 16, "ny": 12, "nz": 14, "dx": 10, "dy": 10, "dz": 10, "ox": 0, "oy": 0, "oz": 0}\n' >"$tmp/v3.json"
printf '{"file": "v3.f32", "nx": 16, "nz": 168, "dx": 10, "dz": 10}\n' >"$tmp/v2.json"

# Usage and runtime errors.
expect 2 "$tool" migrate model "$tmp/v2.json" "$tmp/x.sgy" --shots 50:10:2 --shots-y 0:10:2; one_line --shots-y on 2D
grep -q "3D model" "$tmp/err.txt" && ok || bad "--shots-y on 2D says it needs a 3D model"
expect 2 "$tool" migrate model "$tmp/v2.json" "$tmp/x.sgy" --shots 50:10:2 --receivers-y 0:10:2; one_line --receivers-y on 2D
for v in 1:2 a:1:2 0:10:0; do
  expect 2 "$tool" migrate model "$tmp/v3.json" "$tmp/x.sgy" --shots 50:10:2 --shots-y "$v"; one_line "--shots-y $v"
done
expect 1 "$tool" migrate model "$tmp/v3.json" "$tmp/x.sgy" --shots 80:0:1 --shots-y 500:0:1 --t 0.3; one_line source outside in y
grep -q "shot 1" "$tmp/err.txt" && grep -q "y 0 .. 110" "$tmp/err.txt" && ok || bad "outside error names the shot and the y range"
[ ! -e "$tmp/x.sgy" ] && ok || bad "failed run left an output"

# Model 2 shots on the middle line (y = 60 m by default) recorded on every surface node.
expect 0 "$tool" migrate model "$tmp/v3.json" "$tmp/s3.sgy" --shots 70:20:2 --t 0.4 --f0 15 --json
$py -m json.tool "$tmp/out.txt" >/dev/null 2>&1 && ok || bad "model json is valid"
grep -q '"ny": 12, "dy": 10, "oy": 0' "$tmp/out.txt" && grep -q '"shots": 2, "receivers": 192' "$tmp/out.txt" && ok || bad "model json reports ny, shots and receivers"
expect 0 "$tool" migrate info "$tmp/s3.sgy"
grep -q "source y 60 .. 60 m, receiver y 0 .. 110 m" "$tmp/out.txt" && ok || bad "info prints the y ranges"
expect 0 "$tool" migrate info "$tmp/s3.sgy" --json
grep -q '"sy": \[60, 60\], "gy": \[0, 110\]' "$tmp/out.txt" && ok || bad "info json has sy and gy"
# A receiver patch and two shot lines: 2 x 2 shots, 4 x 3 receivers.
expect 0 "$tool" migrate model "$tmp/v3.json" "$tmp/p3.sgy" --shots 50:40:2 --shots-y 30:50:2 --receivers 30:20:4 --receivers-y 40:10:3 --t 0.3 --json
grep -q '"shots": 4, "receivers": 12' "$tmp/out.txt" && ok || bad "model grid of shots and receivers"
expect 0 "$tool" migrate info "$tmp/p3.sgy"
grep -q "4 shots, source x 50 .. 90 m" "$tmp/out.txt" && grep -q "source y 30 .. 80 m, receiver y 40 .. 60 m" "$tmp/out.txt" && ok || bad "info of the patch survey"

# Migrate: sidecar + PNG, SEG-Y.
expect 0 "$tool" migrate image "$tmp/s3.sgy" "$tmp/v3.json" "$tmp/i3.json" --png "$tmp/i3.png" --json --backend auto
$py -m json.tool "$tmp/out.txt" >/dev/null 2>&1 && ok || bad "image json is valid"
# auto: cuda where a CUDA device is usable (3D explicit runs there), else cpu
grep -q '"ny": 12, "dy": 10, "oy": 0' "$tmp/out.txt" && grep -Eq '"backend": "(cpu|cuda)"' "$tmp/out.txt" && ok || bad "image json reports ny and the backend"
grep -q '"ny": 12' "$tmp/i3.json" && [ "$(stat -c %s "$tmp/i3.f32")" -eq $((16 * 12 * 14 * 4)) ] && ok || bad "3D image sidecar"
$py - "$tmp/i3.f32" "$tmp/i3.png" <<'PY' && ok || bad "image peak at the reflector; PNG of the middle inline"
import sys, struct
import numpy as np, cv2
img = np.fromfile(sys.argv[1], '<f4').reshape(12, 16, 14)
col = img[5:8, 5:11, :].sum(axis=(0, 1))
peak = int(np.argmax(col[2:])) + 2
png = cv2.imread(sys.argv[2], cv2.IMREAD_UNCHANGED)
sys.exit(0 if abs(peak * 10 - 80) <= 20 and png is not None and png.shape == (14, 16) else 1)
PY
expect 0 "$tool" migrate image "$tmp/s3.sgy" "$tmp/v3.json" "$tmp/i3.sgy" --method phase-shift --quiet
[ "$(stat -c %s "$tmp/i3.sgy")" -eq $((3600 + 16 * 12 * (240 + 14 * 4))) ] && ok || bad "3D SEG-Y image: one trace per (x, y)"
expect 0 "$tool" migrate info "$tmp/i3.sgy"
grep -q "192 traces of 14 samples" "$tmp/out.txt" && ok || bad "3D SEG-Y image reads back"
expect 0 "$tool" migrate image "$tmp/s3.sgy" "$tmp/v3.json" "$tmp/ip.json" --method pspi --quiet
[ -s "$tmp/ip.f32" ] && ok || bad "3D PSPI"

# Checkpoint: one shot, then the rest, equals the whole run on the reference backend.
expect 0 "$tool" migrate image "$tmp/s3.sgy" "$tmp/v3.json" "$tmp/r3.json" --backend reference --quiet
expect 0 "$tool" migrate image "$tmp/s3.sgy" "$tmp/v3.json" "$tmp/c3.json" --backend reference --checkpoint "$tmp/ck3" --max-shots 1 --quiet
[ ! -e "$tmp/c3.json" ] && ok || bad "stopped run wrote OUT"
expect 0 "$tool" migrate image "$tmp/s3.sgy" "$tmp/v3.json" "$tmp/c3.json" --backend reference --checkpoint "$tmp/ck3" --json
grep -q '"resumed_at": 1, "shots_done": 2' "$tmp/out.txt" && ok || bad "resumed after shot 1"
cmp -s "$tmp/r3.f32" "$tmp/c3.f32" && ok || bad "resumed 3D image equals the whole run"

# --backend cuda: 3D explicit runs on the GPU where there is one (the image equals the
# reference's within the order of the double sums: test_migrate3d_cuda_gpu checks the values);
# without a device or a CUDA build, cuda itself is refused in one line and nothing is written.
"$tool" migrate image "$tmp/s3.sgy" "$tmp/v3.json" "$tmp/g3.json" --backend cuda --json \
  >"$tmp/out.txt" 2>"$tmp/err.txt"
case $? in
0) { [ -e "$tmp/g3.json" ] && grep -q '"backend": "cuda"' "$tmp/out.txt"; } && ok ||
     bad "cuda 3D run wrote OUT and reports cuda" ;;
1) one_line cuda 3D
   [ ! -e "$tmp/g3.json" ] && ok || bad "refused run left an output" ;;
*) bad "cuda 3D run: exit other than 0 or 1"; cat "$tmp/err.txt" >&2 ;;
esac
finish test_migrate3d_cli
