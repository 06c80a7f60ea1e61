#!/usr/bin/env bash
# End-to-end tests of `tessera resize`: help, exit codes, bad input leaving no output, single and
# batch runs, --json, and the output against OpenCV on a real image when /usr/bin/python3 has cv2.
tests=${TSR_TESTS:?TSR_TESTS must name the tests folder}
. "$tests/cli/lib.sh"
sample=$tests/data/sample.png

expect 0 "$tool" --version
grep -q "^tessera " "$tmp/out.txt" && ok || bad "--version output"
expect 0 "$tool" help
grep -q "resize" "$tmp/out.txt" && ok || bad "help lists resize"
expect 0 "$tool" resize --help
for opt in size scale interp backend threads quality json quiet; do
  grep -q -- "--$opt" "$tmp/out.txt" && ok || bad "resize --help documents --$opt"
done
grep -q "Examples:" "$tmp/out.txt" && ok || bad "resize --help has examples"
expect 0 "$tool" help --man resize
grep -q '^\.TH TESSERA-resize' "$tmp/out.txt" && ok || bad "man page header"
expect 2 "$tool"
expect 2 "$tool" frobnicate
expect 2 "$tool" resize "$sample" "$tmp/a.png" --size 10x10 --bogus
expect 2 "$tool" resize "$sample" "$tmp/a.png"
expect 2 "$tool" resize "$sample" "$tmp/a.png" --size 10x10 --scale 2
for s in 0x10 10x0 -5x5 10 x 0x x0 x-1 99999999999x2 1.5x2; do
  expect 2 "$tool" resize "$sample" "$tmp/a.png" --size "$s"
done
for s in 0 -1 nan inf 1,0 1, abc; do
  expect 2 "$tool" resize "$sample" "$tmp/a.png" --scale "$s"
done
expect 2 "$tool" resize "$sample" "$tmp/a.png" --size 10x10 --interp bicubic
expect 2 "$tool" resize "$sample" "$tmp/a.png" --size 10x10 --backend gpu
[ ! -e "$tmp/a.png" ] && ok || bad "usage error left an output file"

# Runtime failures: one line on stderr, exit 1, no output file.
expect 1 "$tool" resize "$tmp/missing.png" "$tmp/b.png" --size 10x10 --quiet
[ "$(wc -l <"$tmp/err.txt")" -eq 1 ] && ok || bad "missing input: one error line"
[ "$(grep -o missing.png "$tmp/err.txt" | wc -l)" -eq 1 ] && ok || bad "error names the file once"
head -c 300 "$sample" >"$tmp/truncated.png"
expect 1 "$tool" resize "$tmp/truncated.png" "$tmp/b.png" --size 10x10
echo "not an image" >"$tmp/text.png"
expect 1 "$tool" resize "$tmp/text.png" "$tmp/b.png" --size 10x10
expect 1 "$tool" resize "$sample" "$tmp/b.png" --size 200000x200000 --quiet
expect 1 "$tool" resize "$sample" "$tmp/nodir/b.png" --size 10x10 --quiet
[ ! -e "$tmp/b.png" ] && ok || bad "failed run left an output file"
[ -z "$(ls "$tmp" | grep -v -E '^(out|err)\.txt$|^(truncated|text)\.png$')" ] && ok || bad "temporary files left: $(ls "$tmp")"
if ! TSR_BACKEND=cpu "$tool" --version | grep -q cuda; then
  expect 1 "$tool" resize "$sample" "$tmp/b.png" --size 10x10 --backend cuda
  grep -qi "cuda" "$tmp/err.txt" && ok || bad "--backend cuda without a GPU names CUDA"
fi

# Single image, every interpolation, --json.
for interp in nearest linear cubic area lanczos4 linear-exact; do
  expect 0 "$tool" resize "$sample" "$tmp/r_$interp.png" --size 77x51 --interp "$interp" --json --quiet
  grep -q '"output_size": \[77, 51\]' "$tmp/out.txt" && ok || bad "json output size ($interp)"
  python3 -m json.tool "$tmp/out.txt" >/dev/null 2>&1 && ok || bad "json is valid ($interp)"
done
expect 0 "$tool" resize "$sample" "$tmp/s.ppm" --scale 0.5,1.5 --json --quiet
grep -q '"output_size": \[80, 180\]' "$tmp/out.txt" && ok || bad "--scale 0.5,1.5 output size"
head -c 2 "$tmp/s.ppm" | grep -q P6 && ok || bad "ppm written for .ppm"
cp "$sample" "$tmp/noext"
expect 0 "$tool" resize "$tmp/noext" "$tmp/out_noext" --size 20x20 --quiet
head -c 4 "$tmp/out_noext" | grep -q PNG && ok || bad "output without extension keeps the input format"

# Batch into a folder (created), with the same bytes as single runs.
cp "$sample" "$tmp/one.png"; cp "$sample" "$tmp/two.png"
expect 0 "$tool" resize "$tmp/one.png" "$tmp/two.png" "$tmp/batch" --size 77x51 --interp cubic --quiet
cmp -s "$tmp/batch/one.png" "$tmp/r_cubic.png" && ok || bad "batch output equals single output"
[ -f "$tmp/batch/two.png" ] && ok || bad "batch wrote every input"
expect 2 "$tool" resize "$tmp/one.png" "$tmp/batch/one.png" "$tmp/batch2" --size 5x5

# The output against OpenCV itself (Debian's python3-opencv, 4.6: the definition), when present.
# setUseOptimized(False): OpenCV 5's SIMD cubic loops round differently from its scalar code and
# from 4.6 (bench/results/resize-h200-2026-11-29.md); 4.6 gives the same pixels either way.
if "$py" -c "import cv2, numpy" 2>/dev/null; then
  for interp in linear cubic area; do
    "$py" - "$sample" "$tmp/r_$interp.png" "$interp" <<'PY' && ok || bad "CLI output differs from cv2.resize ($interp)"
import sys, cv2, numpy as np
cv2.setUseOptimized(False)
src = cv2.imread(sys.argv[1], cv2.IMREAD_UNCHANGED)
got = cv2.imread(sys.argv[2], cv2.IMREAD_UNCHANGED)
flag = {"linear": cv2.INTER_LINEAR, "cubic": cv2.INTER_CUBIC, "area": cv2.INTER_AREA}[sys.argv[3]]
want = cv2.resize(src, (77, 51), interpolation=flag)
sys.exit(0 if got is not None and got.shape == want.shape and np.array_equal(got, want) else 1)
PY
  done
else
  echo "note: $py has no cv2; skipping the OpenCV comparison" >&2
fi

finish test_resize_cli
