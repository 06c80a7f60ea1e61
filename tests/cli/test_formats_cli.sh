#!/usr/bin/env bash
# End-to-end tests of the image formats resize and carve read and write (TIFF, WebP, BMP, PAM,
# PBM, PFM, JPEG 2000 besides PNG/JPEG/PNM), what an output format cannot hold converted with a
# note, truncated and lying files, and the size options (--size Wx / xH, --width/--height,
# carve --scale).
tests=${TSR_TESTS:?TSR_TESTS must name the tests folder}
. "$tests/cli/lib.sh"
sample=$tests/data/sample.png # 160x120 RGB
magic() { head -c "$2" "$1" | od -An -tx1 | tr -d ' \n'; }

# --- every format out and back in; the lossless ones give the same pixels (the same PNG bytes)
expect 0 "$tool" resize "$sample" "$tmp/ref.png" --size 37x23 --quiet
declare -A sig=([tif]=49492a00 [tiff]=49492a00 [webp]=52494646 [bmp]=424d [pam]=5037 [pfm]=5046
                [jp2]=0000000c6a502020 [j2k]=ff4fff51 [j2c]=ff4fff51)
for ext in tif tiff webp bmp pam pfm jp2 j2k j2c; do
  expect 0 "$tool" resize "$sample" "$tmp/r.$ext" --size 37x23 --quiet
  want=${sig[$ext]}
  [ "$(magic "$tmp/r.$ext" $((${#want} / 2)))" = "$want" ] && ok || bad ".$ext: not written as its format"
  expect 0 "$tool" resize "$tmp/r.$ext" "$tmp/back.$ext.png" --scale 1 --interp nearest --quiet
  [ "$ext" = pfm ] && continue # float: compared below
  cmp -s "$tmp/ref.png" "$tmp/back.$ext.png" && ok || bad ".$ext: not the same pixels back"
done
# 8-bit into PFM is v / 255 (a note says so); back into 8 bits (BMP), round(f * 255) = v
expect 0 "$tool" resize "$sample" "$tmp/n.pfm" --size 37x23
grep -q "n.pfm: pfm holds no 8-bit RGB: writing float RGB (1.0 is white)" "$tmp/err.txt" && ok \
  || bad "no note for 8-bit into PFM"
expect 0 "$tool" resize "$tmp/ref.png" "$tmp/ref.bmp" --scale 1 --interp nearest --quiet
expect 0 "$tool" resize "$tmp/r.pfm" "$tmp/pfm8.bmp" --scale 1 --interp nearest
grep -q "bmp holds no float RGB: writing 8-bit RGB (values clamped to 0..1 and scaled)" \
  "$tmp/err.txt" && ok || bad "no note for float into BMP"
cmp -s "$tmp/ref.bmp" "$tmp/pfm8.bmp" && ok || bad "8 bits through PFM: not the same pixels"
# a float image resized stays float
expect 0 "$tool" resize "$tmp/r.pfm" "$tmp/half.pfm" --scale 0.5 --json
grep -q '"depth": "f32"' "$tmp/out.txt" && ok || bad "PFM is resized in float"
expect 0 "$tool" resize "$tmp/r.pfm" "$tmp/f.tif" --scale 1 --interp nearest --quiet
expect 0 "$tool" resize "$tmp/f.tif" "$tmp/f.pfm" --scale 1 --interp nearest --quiet
cmp -s "$tmp/r.pfm" "$tmp/f.pfm" && ok || bad "float TIFF carries the PFM's floats"
# WebP: lossless by default, lossy with --quality (smaller, and not the same pixels)
expect 0 "$tool" resize "$sample" "$tmp/q.webp" --size 37x23 --quality 40 --quiet
[ "$(stat -c %s "$tmp/q.webp")" -lt "$(stat -c %s "$tmp/r.webp")" ] && ok || bad "lossy WebP not smaller"
# carve reads and writes them too
expect 0 "$tool" carve "$tmp/r.tif" "$tmp/c.webp" --width 30 --quiet
expect 0 "$tool" carve "$tmp/r.jp2" "$tmp/c.bmp" --width 30 --json
grep -q '"output_size": \[30, 23\]' "$tmp/out.txt" && ok || bad "carve from JP2 to BMP"
# PBM bitmaps in
printf 'P4\n9 2\n\xff\x80\x00\x00' >"$tmp/b.pbm"
expect 0 "$tool" resize "$tmp/b.pbm" "$tmp/b.pgm" --scale 1 --interp nearest --quiet
[ "$(tail -c 18 "$tmp/b.pgm" | od -An -tu1 | tr -s ' \n' ' ')" = " 0 0 0 0 0 0 0 0 0 255 255 255 255 255 255 255 255 255 " ] \
  && ok || bad "P4 pixels"

# --- 16-bit and alpha into JPEG (and other 8-bit formats): converted with one note -----------
{ printf 'P7\nWIDTH 8\nHEIGHT 6\nDEPTH 4\nMAXVAL 65535\nTUPLTYPE RGB_ALPHA\nENDHDR\n'
  head -c 384 /dev/urandom; } >"$tmp/rgba16.pam"
expect 0 "$tool" resize "$tmp/rgba16.pam" "$tmp/j.jpg" --scale 1
[ "$(grep -c "j.jpg: jpeg holds no 16-bit RGBA: writing 8-bit RGB (alpha dropped)" "$tmp/err.txt")" -eq 1 ] \
  && ok || bad "16-bit RGBA into JPEG: one note"
[ "$(magic "$tmp/j.jpg" 3)" = ffd8ff ] && ok || bad "converted JPEG written"
expect 0 "$tool" resize "$tmp/rgba16.pam" "$tmp/j2.jpg" --scale 1 --quiet
[ ! -s "$tmp/err.txt" ] && ok || bad "--quiet keeps the note off stderr"
expect 0 "$tool" resize "$tmp/rgba16.pam" "$tmp/w.webp" --scale 1 --json
grep -q '"channels": 4' "$tmp/out.txt" && ok || bad "RGBA kept in WebP"
expect 0 "$tool" carve "$tmp/rgba16.pam" "$tmp/cj.jpg" --width 6 --quiet

# --- truncated and lying files: one line, exit 1, no output ----------------------------------
# (JPEG 2000 streams cut after the main header decode what is there with a warning, as
# `tessera j2k decode` does: a cut codestream is a lower-quality image, not a broken one.)
for ext in jp2 j2k; do
  n=$(stat -c %s "$tmp/r.$ext")
  head -c $((n / 2)) "$tmp/r.$ext" >"$tmp/half.$ext"
  expect 0 "$tool" resize "$tmp/half.$ext" "$tmp/h.png" --scale 1
  grep -q "half.$ext: warning: .*truncated" "$tmp/err.txt" && ok || bad "half .$ext: no warning"
done
for ext in tif webp bmp pam pfm jp2 j2k; do
  n=$(stat -c %s "$tmp/r.$ext")
  [ $ext = jp2 ] || [ $ext = j2k ] && n=100 # within the main header
  head -c $((n / 2)) "$tmp/r.$ext" >"$tmp/cut.$ext"
  for cmd in resize carve; do
    opt=--scale; [ $cmd = carve ] && opt=--width
    expect 1 "$tool" $cmd "$tmp/cut.$ext" "$tmp/o.png" $opt 1 --quiet
    [ "$(wc -l <"$tmp/err.txt")" -eq 1 ] && ok || bad "$cmd cut .$ext: one error line"
    grep -q "cut.$ext" "$tmp/err.txt" && ok || bad "$cmd cut .$ext: names the file"
    [ ! -e "$tmp/o.png" ] && ok || bad "$cmd cut .$ext left an output"
  done
done
printf 'BM\0\0\0\0\0\0\0\0\x36\0\0\0\x28\0\0\0\xff\xff\xff\x7f\xff\xff\xff\x7f\1\0\x18\0\0\0\0\0' >"$tmp/huge.bmp"
head -c 20 /dev/zero >>"$tmp/huge.bmp"
expect 1 "$tool" resize "$tmp/huge.bmp" "$tmp/o.png" --scale 1 --quiet
grep -q "BMP: image of 2147483647x2147483647 exceeds the limit" "$tmp/err.txt" && ok || bad "huge BMP: message"
printf 'P7\nWIDTH 3\nHEIGHT 3\nDEPTH 9\nMAXVAL 255\nENDHDR\n' >"$tmp/d9.pam"
expect 1 "$tool" resize "$tmp/d9.pam" "$tmp/o.png" --scale 1 --quiet
grep -q "PAM: depth 9" "$tmp/err.txt" && ok || bad "PAM depth 9: message"
[ ! -e "$tmp/o.png" ] && ok || bad "lying headers left an output"

# --- size options --------------------------------------------------------------------------
# 160x120: width 50 -> height round(120 * 50 / 160) = round(37.5) = 38 (halves up)
size_of() { grep -o '"output_size": \[[0-9]*, [0-9]*\]' "$tmp/out.txt" | grep -o '[0-9]*, [0-9]*'; }
expect 0 "$tool" resize "$sample" "$tmp/s1.png" --size 50x --json
[ "$(size_of)" = "50, 38" ] && ok || bad "--size 50x: $(size_of)"
expect 0 "$tool" resize "$sample" "$tmp/s2.png" --size x45 --json
[ "$(size_of)" = "60, 45" ] && ok || bad "--size x45: $(size_of)"
expect 0 "$tool" resize "$sample" "$tmp/s3.png" --width 50 --json
cmp -s "$tmp/s1.png" "$tmp/s3.png" && ok || bad "--width 50 is --size 50x"
expect 0 "$tool" resize "$sample" "$tmp/s4.png" --height 45 --quiet
cmp -s "$tmp/s2.png" "$tmp/s4.png" && ok || bad "--height 45 is --size x45"
expect 0 "$tool" resize "$sample" "$tmp/s5.png" --width 20 --height 10 --json
[ "$(size_of)" = "20, 10" ] && ok || bad "--width with --height: $(size_of)"
expect 0 "$tool" resize "$sample" "$tmp/s6.png" --size 1x --json
[ "$(size_of)" = "1, 1" ] && ok || bad "--size 1x: at least 1: $(size_of)"
expect 2 "$tool" resize "$sample" "$tmp/s7.png" --size 50x --width 50
expect 2 "$tool" resize "$sample" "$tmp/s7.png" --width 0
expect 2 "$tool" resize "$sample" "$tmp/s7.png" --height x
expect 1 "$tool" resize "$sample" "$tmp/s7.png" --size x2147483647 --quiet
grep -q "exceeds 2^31 - 1" "$tmp/err.txt" && ok || bad "aspect side too large: message"
expect 0 "$tool" carve "$sample" "$tmp/c1.png" --scale 0.9 --json
[ "$(size_of)" = "144, 108" ] && ok || bad "carve --scale 0.9: $(size_of)"
expect 0 "$tool" carve "$sample" "$tmp/c2.png" --scale 0.75,1 --json
[ "$(size_of)" = "120, 120" ] && ok || bad "carve --scale 0.75,1: $(size_of)"
expect 0 "$tool" carve "$sample" "$tmp/c3.png" --size 150x --json
[ "$(size_of)" = "150, 113" ] && ok || bad "carve --size 150x: $(size_of)"
expect 2 "$tool" carve "$sample" "$tmp/c4.png" --scale 0.5 --width 10
expect 2 "$tool" carve "$sample" "$tmp/c4.png" --scale 0
expect 2 "$tool" carve "$sample" "$tmp/c4.png" --scale 1e-6 --quiet
[ ! -e "$tmp/c4.png" ] && ok || bad "refused carve left an output"
for cmd in resize carve; do
  "$tool" $cmd --help >"$tmp/out.txt"
  for word in .tif .webp .bmp .pam .pfm .jp2; do
    grep -q -- "$word" "$tmp/out.txt" && ok || bad "$cmd --help lists $word"
  done
done
"$tool" resize --help | grep -q -- "--width W" && ok || bad "resize --help documents --width"
"$tool" carve --help | grep -q -- "--scale F" && ok || bad "carve --help documents --scale"
finish test_formats_cli
