#!/usr/bin/env bash
# The demo behind `make demo`: resizes the sample images with several interpolations into out/.
# Uses ../shared/data/images when present, else the small image bundled in tests/data.
set -euo pipefail
tool=${1:-build/tools/tessera/tessera}
data=../shared/data/images
if [ -d "$data" ]; then
  inputs=("$data"/*.png "$data"/*.jpg)
else
  echo "note: $data not found; using the bundled sample image" >&2
  inputs=(tests/data/sample.png)
fi
mkdir -p out/resize
"$tool" --version
for img in "${inputs[@]}"; do
  name=$(basename "${img%.*}")
  "$tool" resize "$img" "out/resize/${name}_w640_linear.png" --size 640x$(( 640 * 3 / 4 )) --quiet
  "$tool" resize "$img" "out/resize/${name}_x0.25_area.png" --scale 0.25 --interp area --quiet
  "$tool" resize "$img" "out/resize/${name}_x1.5_lanczos4.jpg" --scale 1.5 --interp lanczos4 --quiet
done
# Many images in one batch call, into a folder:
"$tool" resize "${inputs[@]}" out/resize/thumbs --size 256x256 --interp cubic --json > out/resize/thumbs.json
echo "demo: wrote $(find out/resize -type f | wc -l) files under out/resize (thumbs.json describes the batch)"

# The other commands, briefly: seam carving, a graph-drawing check, JPEG 2000 encode and decode
# (.jp2 at 1 bpp, .jph HTJ2K lossless, each back to PNG),
# and a Marmousi-II section modelled and migrated.
mkdir -p out/carve out/layout out/j2k out/migrate
"$tool" carve tests/data/sample.png out/carve/sample_w110.png --width 110 --seams out/carve/sample_seams.png --quiet
graphs=../shared/data/graphs/gd2025-examples
if [ -d "$graphs" ]; then
  "$tool" layout check "$graphs/70-nodes.json" --json > out/layout/70-nodes-check.json || true
  "$tool" layout render "$graphs/70-nodes.json" out/layout/70-nodes.svg
fi
j2k=../shared/data/j2k/conformance/p1_01.j2k
[ -f "$j2k" ] && "$tool" j2k decode "$j2k" out/j2k/p1_01.pgx
"$tool" j2k encode tests/data/sample.png out/j2k/sample.jp2 --rate 1 --quiet
"$tool" j2k decode out/j2k/sample.jp2 out/j2k/sample_back.png --quiet
"$tool" j2k encode tests/data/sample.png out/j2k/sample.jph --ht --lossless --quiet
"$tool" j2k decode out/j2k/sample.jph out/j2k/sample_ht_back.png --quiet
models=../shared/data/seismic/derived
if [ -d "$models" ]; then
  "$tool" migrate model "$models/marmousi2_denise_20m_vp.json" out/migrate/shots.sgy \
    --shots 500:1400:7 --t 2.4 --f0 8 --quiet
  "$tool" migrate image out/migrate/shots.sgy "$models/marmousi2_denise_20m_vp_smooth.json" \
    out/migrate/image.json --png out/migrate/image.png --fmax 20 --quiet
fi
echo "demo: carve, layout, j2k and migrate outputs under out/carve, out/layout, out/j2k, out/migrate"
