#!/usr/bin/env bash
# End-to-end tests of `tessera carve`: help, bad input (clear one-line error, non-zero exit, no
# output file), shrink/enlarge/masks/object removal/overlay/map on the bundled sample, and the
# same bytes from the reference and the cpu backends.
tests=${TSR_TESTS:?TSR_TESTS must name the tests folder}
. "$tests/cli/lib.sh"
# One error line (the note that auto falls back to the CPU is not an error).
one_line() { [ "$(grep -v -c 'using CPU' "$tmp/err.txt")" -eq 1 ] && ok || bad "one error line: $*"; }
sample=$tests/data/sample.png
# A small copy keeps the reference quick.
"$tool" resize "$sample" "$tmp/s.png" --size 96x72 --quiet || { echo "cannot make the input" >&2; exit 1; }
s=$tmp/s.png

expect 0 "$tool" carve --help
for opt in width height size energy mode batch-seams order keep drop seams save-map map backend threads json quiet; do
  grep -q -- "--$opt" "$tmp/out.txt" && ok || bad "carve --help documents --$opt"
done
expect 0 "$tool" help --man carve
grep -q '^\.TH TESSERA-carve' "$tmp/out.txt" && ok || bad "man page header"
expect 0 "$tool" help
grep -q "carve" "$tmp/out.txt" && ok || bad "help lists carve"

# Usage errors: exit 2, one line, no output.
expect 2 "$tool" carve "$s" "$tmp/a.png"; one_line
expect 2 "$tool" carve "$s" --width 10
for v in 0 -3 abc 65536 99999999999 1.5; do
  expect 2 "$tool" carve "$s" "$tmp/a.png" --width "$v"; one_line "--width $v"
done
for v in 0x10 10x0 10 x 0x 70000x5; do
  expect 2 "$tool" carve "$s" "$tmp/a.png" --size "$v"
done
expect 2 "$tool" carve "$s" "$tmp/a.png" --size 10x10 --width 5
expect 2 "$tool" carve "$s" "$tmp/a.png" --width 10 --energy sobel
expect 2 "$tool" carve "$s" "$tmp/a.png" --width 10 --mode fast
expect 2 "$tool" carve "$s" "$tmp/a.png" --width 10 --order random
expect 2 "$tool" carve "$s" "$tmp/a.png" --width 10 --batch-seams 0
expect 2 "$tool" carve "$s" "$tmp/a.png" --map "$tmp/m.png"
expect 2 "$tool" carve "$s" "$tmp/a.png" --width 10 --bogus
[ ! -e "$tmp/a.png" ] && ok || bad "usage error left an output file"

# Runtime errors: exit 1, one line, no output (nor overlay).
expect 1 "$tool" carve "$tmp/missing.png" "$tmp/b.png" --width 10; one_line missing
echo "not an image" >"$tmp/text.png"
expect 1 "$tool" carve "$tmp/text.png" "$tmp/b.png" --width 10; one_line text
"$tool" resize "$sample" "$tmp/mask_small.png" --size 50x50 --quiet
expect 1 "$tool" carve "$s" "$tmp/b.png" --width 50 --keep "$tmp/mask_small.png" --seams "$tmp/b_seams.png"; one_line mask size
grep -q "keep mask" "$tmp/err.txt" && ok || bad "mask size error names the keep mask"
"$tool" resize "$sample" "$tmp/col.png" --size 1x20 --quiet
expect 1 "$tool" carve "$tmp/col.png" "$tmp/b.png" --save-map "$tmp/b_map.png" --width 1; one_line one column map
expect 1 "$tool" carve "$tmp/col.png" "$tmp/b.png" --drop "$tmp/col.png"; one_line one column object
expect 1 "$tool" carve "$s" "$tmp/nodir/b.png" --width 50 --quiet
# carve has no OpenCL path: asked for, it fails (no OpenCL device: the context fails) instead
# of running another backend.
expect 1 "$tool" carve "$s" "$tmp/b.png" --width 50 --backend opencl; one_line opencl
[ ! -e "$tmp/b.png" ] && [ ! -e "$tmp/b_seams.png" ] && [ ! -e "$tmp/b_map.png" ] && ok || bad "failed run left an output file"

# Shrink, enlarge, both energies, orders, batch: sizes in the JSON and the files.
expect 0 "$tool" carve "$s" "$tmp/w.png" --width 70 --json
grep -q '"output_size": \[70, 72\]' "$tmp/out.txt" && ok || bad "json output size"
grep -q '"removed": \[26, 0\]' "$tmp/out.txt" && ok || bad "json seams removed"
"$py" -m json.tool "$tmp/out.txt" >/dev/null 2>&1 && ok || bad "json is valid"
expect 0 "$tool" carve "$s" "$tmp/e.png" --size 150x80 --energy forward --json
grep -q '"inserted": \[54, 8\]' "$tmp/out.txt" && ok || bad "json seams inserted"
expect 0 "$tool" carve "$s" "$tmp/o.png" --size 90x66 --order optimal --quiet
expect 0 "$tool" carve "$s" "$tmp/h.png" --size 80x60 --order height-first --mode batch --quiet
file "$tmp/h.png" | grep -q "80 x 60" && ok || bad "batch output size"
expect 0 "$tool" carve "$s" "$tmp/j.jpg" --height 50 --quality 80 --quiet
head -c 3 "$tmp/j.jpg" | od -An -tx1 | grep -q "ff d8 ff" && ok || bad "jpeg written for .jpg"

# Reference and cpu backends give the same bytes (ppm: no encoder differences).
for args in "--width 60" "--size 120x60 --energy forward" "--size 80x90 --order optimal"; do
  expect 0 "$tool" carve "$s" "$tmp/r.ppm" $args --backend reference --quiet
  expect 0 "$tool" carve "$s" "$tmp/c.ppm" $args --backend cpu --quiet
  cmp -s "$tmp/r.ppm" "$tmp/c.ppm" && ok || bad "reference and cpu differ: $args"
done

# Masks, object removal and the overlay.
"$py" - "$tmp" <<'PY' || bad "cannot write masks"
import sys, zlib, struct
def png(path, w, h, rows):
    raw = b"".join(b"\0" + bytes(r) for r in rows)
    chunk = lambda t, d: struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d))
    open(path, "wb").write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 0, 0, 0, 0))
                           + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))
t = sys.argv[1]
png(t + "/drop.png", 96, 72, [[255 if 40 <= x < 46 and 20 <= y < 50 else 0 for x in range(96)] for y in range(72)])
png(t + "/keep.png", 96, 72, [[255 if 10 <= x < 30 else 0 for x in range(96)] for y in range(72)])
PY
expect 0 "$tool" carve "$s" "$tmp/obj.png" --drop "$tmp/drop.png" --seams "$tmp/obj_seams.png" --json
grep -q '"output_size": \[96, 72\]' "$tmp/out.txt" && ok || bad "object removal keeps the size"
grep -q '"removed": \[6, 0\], "inserted": \[6, 0\]' "$tmp/out.txt" && ok || bad "object removal: 6 seams out, 6 in"
[ -s "$tmp/obj_seams.png" ] && ok || bad "overlay written"
expect 0 "$tool" carve "$s" "$tmp/k.png" --width 60 --keep "$tmp/keep.png" --quiet

# The map: save, then retarget; retargeting equals carving to that width.
expect 0 "$tool" carve "$s" "$tmp/m1.ppm" --width 64 --save-map "$tmp/map.png" --quiet
file "$tmp/map.png" | grep -q "16-bit grayscale" && ok || bad "map is a 16-bit gray PNG"
expect 0 "$tool" carve "$s" "$tmp/m2.ppm" --map "$tmp/map.png" --width 64 --json
cmp -s "$tmp/m1.ppm" "$tmp/m2.ppm" && ok || bad "map retarget equals carving"
expect 0 "$tool" carve "$s" "$tmp/m3.ppm" --map "$tmp/map.png" --width 5 --quiet
expect 1 "$tool" carve "$tmp/w.png" "$tmp/m4.ppm" --map "$tmp/map.png" --width 50; one_line map mismatch
[ ! -e "$tmp/m4.ppm" ] && ok || bad "map mismatch left an output"

# SIGTERM during a long carve: exit 130, nothing written (a 1200x1200 noise image, reference
# backend: seconds of work).
{ printf 'P5\n1200 1200\n255\n'; head -c 1440000 /dev/urandom; } > "$tmp/noise.pgm"
expect_stopped "$tool" carve "$tmp/noise.pgm" "$tmp/stop/n.png" --width 400 --backend reference \
  --seams "$tmp/stop/n_seams.png"

finish test_carve_cli
