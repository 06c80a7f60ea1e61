#!/usr/bin/env bash
# `tessera resize ... --jpeg-decoder nvjpeg`: the option's usage errors everywhere; where a GPU
# and libnvjpeg are present (else exit 77 after those), a batch of JPEG and PNG inputs with a
# truncated JPEG among them: the bad one reported once and the others written (exit 1), --json
# naming the decoder of each image, and every thumbnail of a JPEG within 30 dB PSNR of the
# libjpeg-turbo run's (the bound of tests/unit/test_nvjpeg_cuda_gpu.c for subsampled files).
tests=${TSR_TESTS:?TSR_TESTS must name the tests folder}
. "$tests/cli/lib.sh"
sample=$tests/data/sample.png
py=${TSR_PYTHON:-/usr/bin/python3}

expect 2 "$tool" resize "$sample" "$tmp/x.png" --size 8x --jpeg-decoder turbo
grep -q "unknown --jpeg-decoder 'turbo'" "$tmp/err.txt" && ok || bad "unknown decoder message"
expect 2 "$tool" resize "$sample" "$tmp/x.png" --size 8x --jpeg-decoder nvjpeg --backend cpu
grep -q "backend cuda or auto" "$tmp/err.txt" && ok || bad "--backend cpu with nvjpeg message"
"$tool" resize --help | grep -q "jpeg-decoder" && ok || bad "--help names --jpeg-decoder"

mkdir "$tmp/in"
for size in 640x480 333x251 200x150; do
  "$tool" resize "$sample" "$tmp/in/s$size.jpg" --size "$size" --interp cubic --quiet ||
    { echo "cannot make the inputs" >&2; exit 1; }
done
"$tool" resize "$sample" "$tmp/in/p.png" --size 300x --quiet || exit 1
head -c 900 "$tmp/in/s640x480.jpg" >"$tmp/in/cut.jpg"

if ! "$tool" resize "$tmp/in/s200x150.jpg" "$tmp/probe.png" --size 8x --jpeg-decoder nvjpeg \
    --backend cuda --quiet 2>"$tmp/probe.txt"; then
  echo "no GPU or no nvJPEG here: $(head -1 "$tmp/probe.txt"); skipped after $pass checks"
  [ "$fail" -eq 0 ] && exit 77
  finish test_nvjpeg_cli
fi

inputs=("$tmp/in/s640x480.jpg" "$tmp/in/cut.jpg" "$tmp/in/p.png" "$tmp/in/s333x251.jpg"
  "$tmp/in/s200x150.jpg")
for decoder in libjpeg-turbo nvjpeg; do
  mkdir "$tmp/$decoder"
  expect 1 "$tool" resize "${inputs[@]}" "$tmp/$decoder/" --width 120 --interp area \
    --backend cuda --jpeg-decoder "$decoder" --json
  [ "$(grep -c 'cut.jpg' "$tmp/err.txt")" -eq 1 ] && ok || bad "truncated input reported once ($decoder)"
  for f in s640x480.jpg p.png s333x251.jpg s200x150.jpg; do
    [ -f "$tmp/$decoder/$f" ] && ok || bad "$f not written ($decoder)"
  done
  grep -q "\"jpeg_decoder\": \"$decoder\"" "$tmp/out.txt" && ok || bad "--json jpeg_decoder ($decoder)"
  cp "$tmp/out.txt" "$tmp/$decoder.json"
done
[ "$(grep -c '"decoder": "nvjpeg"' "$tmp/nvjpeg.json")" -eq 3 ] && ok || bad "3 JPEGs decoded by nvJPEG"
grep -q '"input": "[^"]*p.png"[^}]*"decoder": "cpu"' "$tmp/nvjpeg.json" && ok || bad "the PNG decoded on the host"
# JPEG outputs (q 95) of the two decoders: PSNR >= 30 dB
for f in s640x480.jpg s333x251.jpg s200x150.jpg; do
  "$py" - "$tmp/libjpeg-turbo/$f" "$tmp/nvjpeg/$f" <<'PY' && ok || bad "$f: nvJPEG's thumbnail too far from libjpeg-turbo's"
import sys, cv2, numpy as np
a, b = (cv2.imread(p, cv2.IMREAD_UNCHANGED).astype(np.float64) for p in sys.argv[1:3])
mse = ((a - b) ** 2).mean()
psnr = 10 * np.log10(255 ** 2 / mse) if mse else float("inf")
print("%s: max diff %d, PSNR %.2f dB" % (sys.argv[2].rsplit("/", 1)[1], np.abs(a - b).max(), psnr))
sys.exit(0 if a.shape == b.shape and psnr >= 30 else 1)
PY
done
finish test_nvjpeg_cli
