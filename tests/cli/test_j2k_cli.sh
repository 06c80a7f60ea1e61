#!/usr/bin/env bash
# End-to-end tests of `tessera j2k`: help, info (text and JSON), decode to PGX/PNG/PNM, options,
# and the must-reject list: malformed inputs, each with the message it must give (naming the
# problem and, for codestream faults, the byte offset), exit status 1 and no output file.
# A truncated stream decodes what it has, with a warning. Several inputs or a folder into an
# output folder (a failing file reported, the others written). Skips (77) without
# ../shared/data.
set -u
data=${TSR_DATA:-../shared/data}
src=$data/j2k/conformance/p0_01.j2k
if [ ! -r "$src" ]; then echo "SKIP: $src absent"; exit 77; fi
. "${TSR_TESTS:?TSR_TESTS must name the tests folder}/cli/lib.sh"
# patch IN OUT OFFSET HEXBYTES: copy with bytes replaced.
patch() {
  python3 - "$1" "$2" "$3" "$4" <<'EOF'
import sys
b = bytearray(open(sys.argv[1], 'rb').read())
off = int(sys.argv[3]); v = bytes.fromhex(sys.argv[4])
b[off:off + len(v)] = v
open(sys.argv[2], 'wb').write(b)
EOF
}
# reject NAME FILE MESSAGE [OPTIONS...]: decode must fail with MESSAGE and leave no output.
reject() {
  local name=$1 file=$2 msg=$3; shift 3
  rm -f "$tmp/o.pgx"
  "$tool" j2k decode "$file" "$tmp/o.pgx" "$@" >"$tmp/out.txt" 2>"$tmp/err.txt"
  local rc=$?
  if [ $rc -ne 1 ]; then bad "$name: exit $rc (want 1)"; cat "$tmp/err.txt" >&2; return; fi
  if ! grep -q -- "$msg" "$tmp/err.txt"; then
    bad "$name: message '$(cat "$tmp/err.txt")' lacks '$msg'"; return
  fi
  if ls "$tmp"/o*.pgx >/dev/null 2>&1; then bad "$name: left an output file"; return; fi
  ok
}

expect 0 "$tool" j2k --help
for opt in reduce region layers components threads json psnr rate format; do
  grep -q -- "--$opt" "$tmp/out.txt" && ok || bad "j2k --help documents --$opt"
done
expect 0 "$tool" help --man j2k
expect 2 "$tool" j2k
expect 2 "$tool" j2k frobnicate x
expect 2 "$tool" j2k decode "$src"
expect 2 "$tool" j2k decode "$src" "$tmp/x.pgx" --reduce x
expect 2 "$tool" j2k decode "$src" "$tmp/x.pgx" --region 1,2,3
expect 2 "$tool" j2k decode "$src" "$tmp/x.bmp"
# options of another sub-command are refused, naming where they belong
expect 2 "$tool" j2k decode "$src" "$tmp/x.png" --rate 1
grep -q -- "--rate does not apply to j2k decode (it is an option of j2k encode)" "$tmp/err.txt" && ok || bad "decode --rate: $(cat "$tmp/err.txt")"
expect 2 "$tool" j2k info "$src" --reduce 1
grep -q -- "--reduce does not apply to j2k info" "$tmp/err.txt" && ok || bad "info --reduce: $(cat "$tmp/err.txt")"
[ ! -e "$tmp/x.png" ] && ok || bad "a refused decode left its output"

# info
expect 0 "$tool" j2k info "$src"
grep -q "128x128" "$tmp/out.txt" && ok || bad "info shows the size"
expect 0 "$tool" j2k info "$src" --json
python3 -c "import json,sys; d=json.load(open('$tmp/out.txt')); assert d['width']==128 and d['levels']==3 and d['progression']=='RLCP'" && ok || bad "info --json"

# decode: PGX, PNG, PGM, options
expect 0 "$tool" j2k decode "$src" "$tmp/a.pgx"
[ -s "$tmp/a.pgx" ] && head -c 20 "$tmp/a.pgx" | grep -q "PG ML + 8 128 128" && ok || bad "PGX output"
expect 0 "$tool" j2k decode "$src" "$tmp/a.png"
[ -s "$tmp/a.png" ] && ok || bad "PNG output"
expect 0 "$tool" j2k decode "$src" "$tmp/a.pgm" --reduce 2 --json
head -c 11 "$tmp/a.pgm" | grep -q "32 32" && ok || bad "--reduce 2 gives 32x32"
expect 0 "$tool" j2k decode "$src" "$tmp/r.pgx" --region 10,20,30,40 --threads 2
head -c 20 "$tmp/r.pgx" | grep -q " 30 40" && ok || bad "--region gives 30x40"
expect 0 "$tool" j2k decode "$data/j2k/conformance/p0_10.j2k" "$tmp/c.pgx" --components 2,0
[ -s "$tmp/c_0.pgx" ] && [ -s "$tmp/c_1.pgx" ] && [ ! -e "$tmp/c_2.pgx" ] && ok || bad "--components"
expect 1 "$tool" j2k decode "$src" "$tmp/z.pgx" --components 5
expect 1 "$tool" j2k decode "$src" "$tmp/z.pgx" --reduce 4
[ ! -e "$tmp/z.pgx" ] && ok || bad "failed decode left an output"

# must-reject list
printf 'not a jpeg 2000 file at all' > "$tmp/text.j2k"
reject "not J2K" "$tmp/text.j2k" "not a JPEG 2000 file"
: > "$tmp/empty.j2k"
reject "empty" "$tmp/empty.j2k" "not a JPEG 2000 file"
head -c 2 "$src" > "$tmp/soc.j2k"
reject "SOC only" "$tmp/soc.j2k" "ends inside the main header (at byte 2)"
head -c 30 "$src" > "$tmp/cut_siz.j2k"
reject "cut in SIZ" "$tmp/cut_siz.j2k" "exceeds the data (at byte 2)"
patch "$src" "$tmp/zero.j2k" 8 00000000
reject "zero width" "$tmp/zero.j2k" "SIZ: empty image area"
patch "$src" "$tmp/huge.j2k" 8 7fffffff7fffffff
reject "absurd size" "$tmp/huge.j2k" "exceeds the limit"
patch "$src" "$tmp/csiz.j2k" 40 0000
reject "no components" "$tmp/csiz.j2k" "SIZ: 0 components"
patch "$src" "$tmp/sub.j2k" 43 00
reject "zero subsampling" "$tmp/sub.j2k" "zero subsampling"
patch "$src" "$tmp/prec.j2k" 42 40
reject "precision 65" "$tmp/prec.j2k" "precision 65"
patch "$src" "$tmp/levels.j2k" 69 28
reject "40 levels" "$tmp/levels.j2k" "40 decomposition levels"
patch "$src" "$tmp/cblk.j2k" 70 0909
reject "code-block 2^11" "$tmp/cblk.j2k" "code-block size"
patch "$src" "$tmp/prog.j2k" 65 07
reject "progression 7" "$tmp/prog.j2k" "progression order 7"
patch "$src" "$tmp/layers.j2k" 66 0000
reject "zero layers" "$tmp/layers.j2k" "zero quality layers"
patch "$src" "$tmp/wavelet.j2k" 73 02
reject "Part 2 kernel" "$tmp/wavelet.j2k" "not supported"
patch "$src" "$tmp/mct.j2k" 68 02
reject "Part 2 MCT" "$tmp/mct.j2k" "Part 2"
patch "$src" "$tmp/qcd.j2k" 49 43
reject "quantisation style 3" "$tmp/qcd.j2k" "quantisation style 3"
patch "$src" "$tmp/lcod.j2k" 62 ffff
reject "COD length" "$tmp/lcod.j2k" "exceeds the data (at byte 60)"
patch "$src" "$tmp/sot.j2k" 78 0005
reject "tile index" "$tmp/sot.j2k" "SOT: tile 5 of 1 (at byte 74)"
patch "$src" "$tmp/psot.j2k" 80 00000003
reject "Psot 3" "$tmp/psot.j2k" "tile-part length 3"
patch "$src" "$tmp/marker.j2k" 60 1234
reject "not a marker" "$tmp/marker.j2k" "expected a marker, found 0x1234 (at byte 60)"
printf '\x00\x00\x00\x0cjP  \r\n\x87\n\x00\x00\x10\x00ftyp' > "$tmp/box.jp2"
reject "JP2 box length" "$tmp/box.jp2" "exceeds the file"
printf '\x00\x00\x00\x0cjP  \r\n\x87\n\x00\x00\x00\x08free' > "$tmp/nocs.jp2"
reject "JP2 without codestream" "$tmp/nocs.jp2" "no contiguous codestream"

# Part 2 markers: one that only describes (CBD, 0xFF78) is skipped with a warning; one that
# changes the samples (DCO, 0xFF70) is refused as unsupported.
python3 - "$src" "$tmp/cbd.j2k" "$tmp/dco.j2k" <<'EOF'
import sys
b = open(sys.argv[1], 'rb').read()
open(sys.argv[2], 'wb').write(b[:45] + bytes.fromhex('ff780005000107') + b[45:])
open(sys.argv[3], 'wb').write(b[:45] + bytes.fromhex('ff7000050000') + b[45:])
EOF
expect 0 "$tool" j2k decode "$tmp/cbd.j2k" "$tmp/cbd.pgx"
grep -q "Part 2 marker 0xff78 at byte 45 ignored" "$tmp/err.txt" && ok || bad "CBD warning: $(cat "$tmp/err.txt")"
cmp -s "$tmp/cbd.pgx" "$tmp/a.pgx" && ok || bad "CBD stream decodes like the original"
reject "Part 2 DCO" "$tmp/dco.j2k" "Part 2 marker 0xff70 changes the decoded samples"

# a truncated stream decodes what it has, with a warning
big=$data/j2k/conformance/p1_02.j2k
head -c 20000 "$big" > "$tmp/trunc.j2k"
expect 0 "$tool" j2k decode "$tmp/trunc.j2k" "$tmp/t.pgx"
grep -q "warning: .*truncated\|warning: .*runs past\|warning: .*cut short" "$tmp/err.txt" && ok || bad "truncation warning: $(cat "$tmp/err.txt")"
[ -s "$tmp/t_0.pgx" ] && ok || bad "truncated stream gave no output"

# so does a truncated JP2 file (its codestream box claims more than is left)
head -c 30000 "$data/j2k/conformance/file1.jp2" > "$tmp/trunc.jp2"
expect 0 "$tool" j2k decode "$tmp/trunc.jp2" "$tmp/tj.pgx"
grep -q "warning: JP2: codestream box of .* (truncated)" "$tmp/err.txt" && ok || bad "JP2 truncation warning"
[ -s "$tmp/tj_0.pgx" ] && ok || bad "truncated JP2 gave no output"

# JP2 colour (T.800 I.5.3): a restricted ICC profile is rendered as sRGB (file8's monochrome one
# gives three channels); a profile that is not applied is a warning on stderr, the samples as
# decoded; hostile colour boxes are refused
corpus=$TSR_TESTS/fuzz/corpus/j2k_decode
expect 0 "$tool" j2k info "$data/j2k/conformance/file8.jp2" --json
grep -q '"colour_method": 2, "palette_entries": 0, "output_channels": 3' "$tmp/out.txt" && ok || bad "file8 info: $(cat "$tmp/out.txt")"
expect 0 "$tool" j2k decode "$data/j2k/conformance/file8.jp2" "$tmp/f8.ppm"
[ "$(head -c 2 "$tmp/f8.ppm")" = P6 ] && ok || bad "file8 is not rendered as RGB"
grep -v " backend (" "$tmp/err.txt" | grep -q . && bad "file8 warns: $(cat "$tmp/err.txt")" || ok
grep -q "tessera j2k: cpu backend (CPU" "$tmp/err.txt" && ok || bad "decode names its backend on stderr: $(cat "$tmp/err.txt")"
expect 0 "$tool" j2k decode "$corpus/seed_colr_icc_lut.jp2" "$tmp/lut.png"
grep -q "warning: JP2 ICC profile not applied (it has LUT-based transforms (A2B0)): output as decoded" "$tmp/err.txt" && ok || bad "unapplied ICC warning: $(cat "$tmp/err.txt")"
reject "cmap past the palette" "$corpus/seed_colr_cmap_past_palette.jp2" "cmap entry 0 refers to component 0 / column 5"
reject "colr cut short" "$corpus/seed_colr_colr_enum_short.jp2" "colr box too short for its EnumCS"
reject "pclr cut short" "$corpus/seed_colr_pclr_truncated.jp2" "pclr box holds fewer than its 4 entries"

# a JPH file (T.814 Annex D): an HT codestream in JP2-style boxes with the 'jph ' brand
ht=$data/j2k/htj2k/ds0_ht_01_b11.j2k
if [ -r "$ht" ]; then
  python3 - "$ht" "$tmp/x.jph" <<'EOF'
import struct, sys
cs = open(sys.argv[1], 'rb').read()
def box(t, d): return struct.pack('>I', 8 + len(d)) + t + d
w, h = struct.unpack('>II', cs[8:16])
ihdr = box(b'ihdr', struct.pack('>IIHBBBB', h, w, 1, 7, 7, 0, 0))
colr = box(b'colr', bytes([1, 0, 0]) + struct.pack('>I', 17))
out = box(b'jP  ', b'\r\n\x87\n') + box(b'ftyp', b'jph \x00\x00\x00\x00jph ') + \
      box(b'jp2h', ihdr + colr) + box(b'jp2c', cs)
open(sys.argv[2], 'wb').write(out)
EOF
  expect 0 "$tool" j2k info "$tmp/x.jph" --json
  grep -q '"container": "jph"' "$tmp/out.txt" && grep -q '"ht": true' "$tmp/out.txt" && ok || bad "JPH info: $(cat "$tmp/out.txt")"
  expect 0 "$tool" j2k decode "$tmp/x.jph" "$tmp/jph.pgx"
  expect 0 "$tool" j2k decode "$ht" "$tmp/jphcs.pgx"
  cmp -s "$tmp/jph.pgx" "$tmp/jphcs.pgx" && ok || bad "JPH decodes like its codestream"
fi

# PNM/PNG output goes through a temporary file: an HT stream that fails leaves no file (nor a
# temporary one) and one error line naming the byte; a truncated one still gives the whole
# image, with a warning
if [ -r "$ht" ]; then
  mkdir "$tmp/rows"
  head -c 60 "$ht" > "$tmp/rows/cut.j2k"
  for ext in ppm png; do
    expect 1 "$tool" j2k decode "$tmp/rows/cut.j2k" "$tmp/rows/cut.$ext"
    [ "$(ls -A "$tmp/rows")" = "cut.j2k" ] && ok || bad "a failed $ext decode left files: $(ls -A "$tmp/rows")"
    [ "$(wc -l < "$tmp/err.txt")" -eq 1 ] && grep -q "at byte" "$tmp/err.txt" && ok || bad "one error line: $(cat "$tmp/err.txt")"
  done
  # a write that fails part-way (the file size limit) stops the decode and leaves nothing
  for ext in pgm png; do
    (trap '' XFSZ; ulimit -f 1; "$tool" j2k decode "$ht" "$tmp/rows/big.$ext" >"$tmp/out.txt" 2>"$tmp/err.txt")
    rc=$?
    [ $rc -eq 1 ] && grep -q "cannot write" "$tmp/err.txt" && ok || bad "failed $ext write: exit $rc, $(cat "$tmp/err.txt")"
    [ "$(ls -A "$tmp/rows")" = "cut.j2k" ] && ok || bad "a failed $ext write left files: $(ls -A "$tmp/rows")"
  done
  head -c $(( $(wc -c < "$ht") * 2 / 3 )) "$ht" > "$tmp/rows/part.j2k"
  expect 0 "$tool" j2k decode "$tmp/rows/part.j2k" "$tmp/rows/part.pgm" --threads 2
  grep -q "warning" "$tmp/err.txt" && ok || bad "truncated HT stream: no warning"
  python3 - "$tmp/rows/part.pgm" <<'EOF' && ok || bad "truncated HT stream: the image is not whole"
import re, sys
b = open(sys.argv[1], 'rb').read()
m = re.match(rb'(P[56])\s+(\d+)\s+(\d+)\s+(\d+)\s', b)
n = int(m[2]) * int(m[3]) * (3 if m[1] == b'P6' else 1) * (1 if int(m[4]) < 256 else 2)
sys.exit(0 if len(b) - m.end() == n else 1)
EOF
fi

# PNM output against the PGX planes of the same decode, through the documented mapping
# (v + 2^(p-1) for signed samples, then v * maxval / (2^p - 1) rounded): 8-bit RGB as stored,
# 4-bit signed gray and 12-bit RGB rescaled, 16-bit RGB (the path with its own image buffer);
# at 1 thread (rows packed tight over plane 0) and 2 threads (each row at its plane row).
for case in "p0_04.j2k ppm 1" "p0_04.j2k ppm 2" "p0_03.j2k pgm 1" "p0_03.j2k pgm 2" \
            "hifi_ht1_02.j2k ppm 1" "hifi_ht1_02.j2k ppm 2" "file7.jp2 ppm 1" "file7.jp2 ppm 2" \
            "p0_04.j2k pgm 1 --components 1" "p0_04.j2k pgm 2 --components 1"; do
  set -- $case
  f=$data/j2k/conformance/$1; [ -r "$f" ] || f=$data/j2k/htj2k/$1
  [ -r "$f" ] || continue
  ext=$2; threads=$3; shift 3
  rm -f "$tmp"/pn*.pgx "$tmp/pn.$ext"
  expect 0 "$tool" j2k decode "$f" "$tmp/pn.$ext" --threads $threads "$@"
  expect 0 "$tool" j2k decode "$f" "$tmp/pn.pgx" "$@"
  python3 - "$tmp/pn.$ext" "$tmp" <<'EOF' && ok || bad "PNM output of $case differs from its PGX planes"
import glob, sys
def pgx(path):
    b = open(path, 'rb').read(); nl = b.index(b'\n')
    _, _, sg, p, w, h = b[:nl].split(); p, w, h = int(p), int(w), int(h)
    n = 1 if p <= 8 else 2 if p <= 16 else 4
    v = [int.from_bytes(b[nl + 1 + i * n:nl + 1 + (i + 1) * n], 'big', signed=sg == b'-') for i in range(w * h)]
    return p, sg == b'-', w, h, v
names = sorted(glob.glob(sys.argv[2] + '/pn_*.pgx')) or [sys.argv[2] + '/pn.pgx']
planes = [pgx(x) for x in names]
b = open(sys.argv[1], 'rb').read()
parts = b.split(maxsplit=4); w, h, mx, raster = int(parts[1]), int(parts[2]), int(parts[3]), parts[4]
assert (w, h) == planes[0][2:4] and mx == (255 if max(q[0] for q in planes) <= 8 else 65535)
n, bps = len(planes), 1 if mx == 255 else 2
exp = bytearray()
for i in range(w * h):
    for p, sg, _, _, v in planes:
        s = v[i] + (1 << (p - 1) if sg else 0)
        exp += ((s * mx + ((1 << p) - 1) // 2) // ((1 << p) - 1)).to_bytes(bps, 'big')
sys.exit(0 if raster == bytes(exp) else 1)
EOF
done

# encode: lossless round trips through tessera's decoder (and opj_decompress where present),
# every progression order, options reflected in the header, JSON, and the must-reject list
# (exit 2 for a bad command line, 1 for bad input, never an output file).
"$tool" j2k --help > "$tmp/help.txt"
for opt in lossless levels cblk order; do
  grep -q -- "--$opt" "$tmp/help.txt" && ok || bad "j2k --help documents --$opt"
done
grep -q "opj_compress" "$tmp/help.txt" && ok || bad "j2k --help maps options to opj_compress"
"$py" - "$tmp" <<'EOF'
import sys, numpy as np, cv2
t = sys.argv[1]
rng = np.random.default_rng(7)
cv2.imwrite(t + "/e_rgba.png", rng.integers(0, 256, size=(37, 53, 4), dtype=np.uint8))
cv2.imwrite(t + "/e_g16.png", rng.integers(0, 65536, size=(19, 23), dtype=np.uint16))
ramp = (np.arange(61 * 45).reshape(61, 45) % 251).astype(np.uint8)
cv2.imwrite(t + "/e_rgb.ppm", np.dstack([ramp, ramp[::-1], ramp // 2]))
EOF
same() { # same A B: the two images hold the same samples
  "$py" -c "import sys,cv2,numpy as np; a=cv2.imread(sys.argv[1],-1); b=cv2.imread(sys.argv[2],-1); sys.exit(0 if a is not None and b is not None and a.shape==b.shape and a.dtype==b.dtype and np.array_equal(a,b) else 1)" "$1" "$2"
}
expect 0 "$tool" j2k encode "$tmp/e_rgba.png" "$tmp/e.jp2" --json
python3 -c "import json,os; d=json.load(open('$tmp/out.txt')); assert d['bytes']==os.path.getsize('$tmp/e.jp2') and d['components']==4 and d['lossless']" && ok || bad "encode --json"
# auto keeps host images on the CPU ("host images ..."); under TSR_BACKEND=cpu (CI's second pass) the reason is "asked for"
python3 -c "import json; d=json.load(open('$tmp/out.txt')); assert d['backend']=='cpu' and ('host images' in d['backend_reason'] or d['backend_reason']=='asked for')" && ok || bad "encode --json backend: $(cat "$tmp/out.txt")"
# --backend cuda: the CPU's bytes where a GPU is present, else a clear error (exit 1)
for opts in "" "--ht" "--ht --rate 2" "--rate 2"; do
  "$tool" j2k encode "$tmp/e_rgba.png" "$tmp/cu_cpu.j2k" $opts --backend cpu 2>/dev/null
  if "$tool" j2k encode "$tmp/e_rgba.png" "$tmp/cu_gpu.j2k" $opts --backend cuda --json >"$tmp/out.txt" 2>"$tmp/err.txt"; then
    cmp -s "$tmp/cu_cpu.j2k" "$tmp/cu_gpu.j2k" && ok || bad "encode $opts --backend cuda: not the CPU's bytes"
    grep -q '"backend": "cuda"' "$tmp/out.txt" && ok || bad "encode --backend cuda --json: $(cat "$tmp/out.txt")"
  else
    rc=$?
    [ $rc -eq 1 ] && grep -qi "cuda" "$tmp/err.txt" && ok || bad "encode $opts --backend cuda without a GPU: exit $rc, '$(cat "$tmp/err.txt")'"
    [ ! -e "$tmp/cu_gpu.j2k" ] && ok || bad "encode --backend cuda failed but left its output"
  fi
done
expect 0 "$tool" j2k decode "$tmp/e.jp2" "$tmp/e_back.png"
same "$tmp/e_rgba.png" "$tmp/e_back.png" && ok || bad "RGBA .jp2 round trip"
expect 0 "$tool" j2k encode "$tmp/e_g16.png" "$tmp/g16.j2c" --levels 2 --cblk 4x4
expect 0 "$tool" j2k decode "$tmp/g16.j2c" "$tmp/g16_back.png"
same "$tmp/e_g16.png" "$tmp/g16_back.png" && ok || bad "16-bit gray .j2c round trip"
for order in LRCP RLCP RPCL PCRL CPRL; do
  expect 0 "$tool" j2k encode "$tmp/e_rgb.ppm" "$tmp/o.j2k" --order $order --levels 3 --cblk 32x16
  expect 0 "$tool" j2k info "$tmp/o.j2k" --json
  python3 -c "import json; d=json.load(open('$tmp/out.txt')); assert d['progression']=='$order' and d['levels']==3 and d['code_block']==[32,16] and d['transform']=='5/3' and d['mct']" && ok || bad "encode --order $order: header"
  expect 0 "$tool" j2k decode "$tmp/o.j2k" "$tmp/o.ppm"
  same "$tmp/e_rgb.ppm" "$tmp/o.ppm" && ok || bad "encode --order $order: round trip"
  if command -v opj_decompress >/dev/null; then
    opj_decompress -i "$tmp/o.j2k" -o "$tmp/o_opj.ppm" >/dev/null 2>&1 && same "$tmp/e_rgb.ppm" "$tmp/o_opj.ppm" && ok || bad "encode --order $order: opj_decompress"
  fi
done
# --sop, --eph and --tlm: the header says so, the stream decodes losslessly (also through
# opj_decompress, which reads the TLM)
expect 0 "$tool" j2k encode "$tmp/e_rgb.ppm" "$tmp/m.j2k" --sop --eph --tlm --layers 3
expect 0 "$tool" j2k info "$tmp/m.j2k" --json
python3 -c "import json; d=json.load(open('$tmp/out.txt')); assert d['sop'] and d['eph'] and d['layers']==3" && ok || bad "encode --sop --eph: header"
expect 0 "$tool" j2k decode "$tmp/m.j2k" "$tmp/m.ppm"
same "$tmp/e_rgb.ppm" "$tmp/m.ppm" && ok || bad "encode --sop --eph: round trip"
if command -v opj_decompress >/dev/null; then
  opj_decompress -i "$tmp/m.j2k" -o "$tmp/m_opj.ppm" >/dev/null 2>&1 && same "$tmp/e_rgb.ppm" "$tmp/m_opj.ppm" && ok || bad "encode --sop --eph: opj_decompress"
fi
printf 'P5\n1 1\n255\n\x7f' > "$tmp/one.pgm"
expect 0 "$tool" j2k encode "$tmp/one.pgm" "$tmp/one.j2k"
expect 0 "$tool" j2k decode "$tmp/one.j2k" "$tmp/one_back.pgm"
cmp -s "$tmp/one.pgm" "$tmp/one_back.pgm" && ok || bad "1x1 round trip"
# --sync (fsync before the rename) writes the same file
expect 0 "$tool" j2k encode "$tmp/e_rgb.ppm" "$tmp/sync.jp2" --rate 1 --sync
expect 0 "$tool" j2k encode "$tmp/e_rgb.ppm" "$tmp/nosync.jp2" --rate 1
cmp -s "$tmp/sync.jp2" "$tmp/nosync.jp2" && ok || bad "encode --sync: not the same file"
# --mode fast-nonstandard: tessera's own block coder; --json says the mode, info and decode say
# the file is not JPEG 2000 (a standard file is not flagged), lossless round trips exact,
# lossy decodes equal the standard coder's at the same --qstep; rates and --ht refused
grep -q -- "--mode" <("$tool" j2k --help) && ok || bad "j2k --help documents --mode"
for f in e_rgb.ppm e_g16.png e_rgba.png; do
  expect 0 "$tool" j2k encode "$tmp/$f" "$tmp/fast.j2k" --mode fast-nonstandard --cblk 32x16 --json
  python3 -c "import json; d=json.load(open('$tmp/out.txt')); assert d['mode']=='fast-nonstandard'" && ok || bad "encode --mode --json: $(cat "$tmp/out.txt")"
  expect 0 "$tool" j2k info "$tmp/fast.j2k"
  grep -q "NOT a JPEG 2000 stream" "$tmp/out.txt" && ok || bad "info of a fast-nonstandard file: $(cat "$tmp/out.txt")"
  expect 0 "$tool" j2k decode "$tmp/fast.j2k" "$tmp/fast_back.png"
  grep -q "NOT a JPEG 2000 stream" "$tmp/err.txt" && ok || bad "decode of a fast-nonstandard file says so: $(cat "$tmp/err.txt")"
  same "$tmp/$f" "$tmp/fast_back.png" && ok || bad "fast-nonstandard round trip of $f"
done
expect 0 "$tool" j2k info "$tmp/fast.j2k" --json
python3 -c "import json; d=json.load(open('$tmp/out.txt')); assert d['nonstandard'] is True" && ok || bad "info --json nonstandard"
expect 0 "$tool" j2k info "$tmp/o.j2k" --json
python3 -c "import json; d=json.load(open('$tmp/out.txt')); assert d['nonstandard'] is False" && ok || bad "info --json of a standard file: nonstandard false"
expect 0 "$tool" j2k encode "$tmp/e_rgb.ppm" "$tmp/fq.jp2" --mode fast-nonstandard --qstep 0.03
expect 0 "$tool" j2k encode "$tmp/e_rgb.ppm" "$tmp/sq.jp2" --qstep 0.03
expect 0 "$tool" j2k decode "$tmp/fq.jp2" "$tmp/fq.ppm" --json
python3 -c "import json; d=json.load(open('$tmp/out.txt')); assert d['nonstandard'] is True" && ok || bad "decode --json nonstandard"
expect 0 "$tool" j2k decode "$tmp/sq.jp2" "$tmp/sq.ppm"
same "$tmp/fq.ppm" "$tmp/sq.ppm" && ok || bad "fast-nonstandard lossy: not the standard coder's pixels"
mkdir -p "$tmp/fastdir" && cp "$tmp/fast.j2k" "$tmp/fastdir/f.j2k" && cp "$tmp/o.j2k" "$tmp/fastdir/s.j2k"
expect 0 "$tool" j2k decode "$tmp/fastdir" "$tmp/fastdir_out"
[ "$(grep -c "NOT a JPEG 2000 stream" "$tmp/err.txt")" = 1 ] && grep -q "f.j2k is NOT" "$tmp/err.txt" && ok || bad "folder decode notes the one fast-nonstandard file: $(cat "$tmp/err.txt")"
expect 1 "$tool" j2k encode "$tmp/e_rgb.ppm" "$tmp/fr.j2k" --mode fast-nonstandard --rate 1
grep -q "no truncation points" "$tmp/err.txt" && [ ! -e "$tmp/fr.j2k" ] && ok || bad "fast-nonstandard --rate: $(cat "$tmp/err.txt")"
expect 1 "$tool" j2k encode "$tmp/e_rgb.ppm" "$tmp/fr.j2k" --mode fast-nonstandard --ht
expect 2 "$tool" j2k encode "$tmp/e_rgb.ppm" "$tmp/fr.j2k" --mode quick
# reject_encode CODE NAME MESSAGE ARGS...: encode must exit CODE with MESSAGE and leave no output
reject_encode() {
  local code=$1 name=$2 msg=$3; shift 3
  rm -rf "$tmp/enc_out"; mkdir "$tmp/enc_out"
  "$tool" j2k encode "$@" >"$tmp/out.txt" 2>"$tmp/err.txt"
  local rc=$?
  if [ $rc -ne "$code" ]; then bad "encode $name: exit $rc (want $code)"; return; fi
  grep -q -- "$msg" "$tmp/err.txt" && ok || bad "encode $name: message '$(cat "$tmp/err.txt")' lacks '$msg'"
  [ -z "$(ls -A "$tmp/enc_out")" ] && ok || bad "encode $name: left $(ls -A "$tmp/enc_out")"
}
reject_encode 2 "33 levels" "--levels wants" "$tmp/one.pgm" "$tmp/enc_out/x.j2k" --levels 33
reject_encode 2 "3x3 blocks" "--cblk wants" "$tmp/one.pgm" "$tmp/enc_out/x.j2k" --cblk 3x3
reject_encode 2 "128x64 blocks" "--cblk wants" "$tmp/one.pgm" "$tmp/enc_out/x.j2k" --cblk 128x64
reject_encode 2 "bad order" "--order wants" "$tmp/one.pgm" "$tmp/enc_out/x.j2k" --order XYZ
reject_encode 2 "bad extension" "use a .j2k" "$tmp/one.pgm" "$tmp/enc_out/x.bmp"
reject_encode 2 "no output" "encode wants IN OUT" "$tmp/one.pgm"
reject_encode 1 "missing input" "cannot open" "$tmp/nothere.png" "$tmp/enc_out/x.j2k"
printf 'this is no png' > "$tmp/fake.png"
reject_encode 1 "corrupt input" "fake.png" "$tmp/fake.png" "$tmp/enc_out/x.jp2"
head -c 200 "$tmp/e_rgba.png" > "$tmp/cut.png"
reject_encode 1 "truncated input" "cut.png" "$tmp/cut.png" "$tmp/enc_out/x.jp2"

# lossy: --qstep gives ICT + 9/7 (header says so), smaller files for larger steps
expect 0 "$tool" j2k encode "$tmp/e_rgb.ppm" "$tmp/l1.j2k" --qstep 0.002 --json
python3 -c "import json; d=json.load(open('$tmp/out.txt')); assert d['lossless'] is False" && ok || bad "encode --qstep --json"
expect 0 "$tool" j2k encode "$tmp/e_rgb.ppm" "$tmp/l2.j2k" --qstep 0.05
[ "$(stat -c %s "$tmp/l2.j2k")" -lt "$(stat -c %s "$tmp/l1.j2k")" ] && ok || bad "a larger --qstep makes a smaller file"
expect 0 "$tool" j2k info "$tmp/l2.j2k" --json
python3 -c "import json; d=json.load(open('$tmp/out.txt')); assert d['transform']=='9/7' and d['mct']" && ok || bad "--qstep header"
expect 0 "$tool" j2k decode "$tmp/l2.j2k" "$tmp/l2.ppm"
reject_encode 2 "qstep and lossless" "exclude each other" "$tmp/one.pgm" "$tmp/enc_out/x.j2k" --qstep 0.1 --lossless
reject_encode 2 "qstep 0" "--qstep wants" "$tmp/one.pgm" "$tmp/enc_out/x.j2k" --qstep 0
reject_encode 2 "qstep 2" "--qstep wants" "$tmp/one.pgm" "$tmp/enc_out/x.j2k" --qstep 2

# rate control: --rate BPP gives a file of at most BPP * w * h / 8 bytes, within 1% of it
"$py" - "$tmp" <<'EOF'
import sys, numpy as np, cv2
yy, xx = np.mgrid[0:160, 0:200]
v = 128 + 60 * np.sin(xx * 0.07) * np.cos(yy * 0.05) + 30 * (xx > 90) + np.random.default_rng(3).normal(0, 4, (160, 200))
cv2.imwrite(sys.argv[1] + "/photo.ppm", np.dstack([v, v * 0.8, 255 - v]).clip(0, 255).astype(np.uint8))
EOF
expect 0 "$tool" j2k encode "$tmp/photo.ppm" "$tmp/r.jp2" --rate 1 --json
python3 -c "import json,os; d=json.load(open('$tmp/out.txt')); n=os.path.getsize('$tmp/r.jp2'); t=200*160/8; assert d['bytes']==n and 0.99*t <= n <= t, (n, t)" && ok || bad "--rate 1: size within 1% below the target"
expect 0 "$tool" j2k decode "$tmp/r.jp2" "$tmp/r.ppm"
# quality layers: one per rate, the file within 1% below the last; --layers N lossless, exact
expect 0 "$tool" j2k encode "$tmp/photo.ppm" "$tmp/q.j2k" --rate 0.25,0.5,1 --order RPCL
n=$(stat -c %s "$tmp/q.j2k"); [ "$n" -le 4000 ] && [ "$n" -ge 3960 ] && ok || bad "--rate 0.25,0.5,1: $n bytes for 4000"
expect 0 "$tool" j2k info "$tmp/q.j2k" --json
python3 -c "import json; d=json.load(open('$tmp/out.txt')); assert d['layers']==3" && ok || bad "--rate 0.25,0.5,1: 3 layers"
expect 0 "$tool" j2k decode "$tmp/q.j2k" "$tmp/q1.ppm" --layers 1
expect 0 "$tool" j2k encode "$tmp/photo.ppm" "$tmp/ql.jp2" --lossless --layers 4
expect 0 "$tool" j2k decode "$tmp/ql.jp2" "$tmp/ql.ppm"
"$py" -c "import cv2,numpy as np; a=cv2.imread('$tmp/photo.ppm'); b=cv2.imread('$tmp/ql.ppm'); assert a is not None and np.array_equal(a,b)" && ok || bad "--lossless --layers 4: not exact"
expect 0 "$tool" j2k info "$tmp/ql.jp2" --json
python3 -c "import json; d=json.load(open('$tmp/out.txt')); assert d['layers']==4 and d['transform']=='5/3'" && ok || bad "--lossless --layers 4: header"
reject_encode 2 "decreasing rates" "increasing" "$tmp/one.pgm" "$tmp/enc_out/x.j2k" --rate 1,0.5
reject_encode 2 "layers 0" "--layers wants" "$tmp/one.pgm" "$tmp/enc_out/x.j2k" --layers 0
reject_encode 1 "2 layers for 3 rates" "2 layers for 3 rates" "$tmp/one.pgm" "$tmp/enc_out/x.j2k" --rate 1,2,3 --layers 2
reject_encode 2 "rate 0" "--rate wants" "$tmp/one.pgm" "$tmp/enc_out/x.j2k" --rate 0
# PSNR targets: --psnr 30,38 makes two layers, each decoding to its target less the estimate's
# allowance (test_j2k_psnr.c: 1 dB under 0.25 bits per pixel, as layer 1 here at 0.06; 0.25 dB
# above, as layer 2 at 1.3), with an estimate per layer in --json; a target beyond
# the step gives a note; --psnr with --rate, decreasing or 0 refused
expect 0 "$tool" j2k encode "$tmp/photo.ppm" "$tmp/p.j2k" --psnr 30,38 --json
python3 -c "import json; d=json.load(open('$tmp/out.txt')); e=d['psnr_estimate']; assert len(e)==2 and e[0]>=30 and e[1]>=38, e" && ok || bad "--psnr 30,38: estimates"
expect 0 "$tool" j2k decode "$tmp/p.j2k" "$tmp/p1.ppm" --layers 1
expect 0 "$tool" j2k decode "$tmp/p.j2k" "$tmp/p2.ppm"
"$py" -c "
import cv2, numpy as np
a = cv2.imread('$tmp/photo.ppm').astype(float)
for f, t, tol in (('p1', 30, 1.0), ('p2', 38, 0.25)):
    p = 10 * np.log10(255**2 / ((a - cv2.imread('$tmp/' + f + '.ppm').astype(float))**2).mean())
    assert p >= t - tol, (f, p, t)" && ok || bad "--psnr 30,38: decoded layers below their targets"
expect 0 "$tool" j2k encode "$tmp/photo.ppm" "$tmp/p3.j2k" --psnr 90
grep -q "note: --psnr 90 is beyond" "$tmp/err.txt" && ok || bad "--psnr 90: no note"
reject_encode 2 "psnr with rate" "exclude each other" "$tmp/one.pgm" "$tmp/enc_out/x.j2k" --rate 1 --psnr 30
reject_encode 2 "decreasing psnr" "--psnr wants" "$tmp/one.pgm" "$tmp/enc_out/x.j2k" --psnr 40,30
reject_encode 2 "psnr 0" "--psnr wants" "$tmp/one.pgm" "$tmp/enc_out/x.j2k" --psnr 0

# --tiles, --precincts, --plt, --tile-parts: lossless round trips through tessera and
# opj_decompress (and grk_decompress, which reads TLM and PLT to find tiles and packets), the
# header's tile grid and precinct flag, a tiled --rate file within 1% below its target, and bad
# values refused (exit 2)
grep -q -- "--tiles" "$tmp/help.txt" && grep -q -- "--precincts" "$tmp/help.txt" && grep -q -- "--plt" "$tmp/help.txt" && grep -q -- "--tile-parts" "$tmp/help.txt" && ok || bad "j2k --help documents --tiles, --precincts, --plt, --tile-parts"
grep -q -- "opj_compress -t W,H" "$tmp/help.txt" && grep -q -- "opj_compress -c" "$tmp/help.txt" && grep -q -- "opj_compress -PLT" "$tmp/help.txt" && grep -q -- "opj_compress -TP" "$tmp/help.txt" && ok || bad "j2k --help maps the tile options to opj_compress"
printf 'P6\n17 3\n255\n' > "$tmp/t17.ppm"; head -c 153 /dev/urandom >> "$tmp/t17.ppm"
while read -r in opts; do
  expect 0 "$tool" j2k encode "$tmp/$in" "$tmp/t.j2k" $opts
  expect 0 "$tool" j2k decode "$tmp/t.j2k" "$tmp/t.ppm"
  same "$tmp/$in" "$tmp/t.ppm" && ok || bad "encode $in $opts: round trip"
  for dec in opj_decompress grk_decompress; do
    if command -v $dec >/dev/null; then
      rm -f "$tmp/t_ext.ppm"
      $dec -i "$tmp/t.j2k" -o "$tmp/t_ext.ppm" >/dev/null 2>&1 && same "$tmp/$in" "$tmp/t_ext.ppm" && ok || bad "encode $in $opts: $dec"
    fi
  done
done <<EOT
e_rgb.ppm --tiles 16x16
e_rgb.ppm --tiles 1x1 --tlm
e_rgb.ppm --tiles 100x100
t17.ppm --tiles 8x2 --plt --tlm
e_rgb.ppm --tiles 32x16 --levels 6 --order RPCL --tile-parts R --plt --tlm --sop --eph
e_rgb.ppm --precincts 32x32,16x16,8x8 --order LRCP --plt
e_rgb.ppm --precincts 16x16 --order RLCP --sop --eph
e_rgb.ppm --precincts 32x16,8x8 --order RPCL --tiles 40x40 --tile-parts C --tlm
e_rgb.ppm --precincts 64x64,4x4 --order PCRL --cblk 8x8 --layers 2 --plt
e_rgb.ppm --precincts 16x16,2x2 --order CPRL --tile-parts C --plt --tlm --sop
e_rgb.ppm --tiles 32x32 --layers 3 --tile-parts L --tlm --plt --eph
EOT
expect 0 "$tool" j2k encode "$tmp/e_rgb.ppm" "$tmp/t.j2k" --tiles 16x32 --precincts 8x8
expect 0 "$tool" j2k info "$tmp/t.j2k" --json
python3 -c "import json; d=json.load(open('$tmp/out.txt')); assert d['tile_width']==16 and d['tile_height']==32 and d['tiles']==[3,2] and d['precincts'], d" && ok || bad "encode --tiles --precincts: header"
expect 0 "$tool" j2k encode "$tmp/photo.ppm" "$tmp/rt.j2k" --rate 1 --tiles 64x64 --plt --tlm --tile-parts R --order RPCL
n=$(stat -c %s "$tmp/rt.j2k"); [ "$n" -le 4000 ] && [ "$n" -ge 3960 ] && ok || bad "--rate 1 --tiles 64x64: $n bytes for 4000"
expect 0 "$tool" j2k encode "$tmp/photo.ppm" "$tmp/rt.j2k" --rate 0.1 --tiles 8x8
grep -q "note: --rate 0.1 is below what the markers" "$tmp/err.txt" && ok || bad "--rate 0.1 with 8x8 tiles: no note"
# --origin, --tile-origin: lossless round trips through tessera and opj_decompress (grk_decompress
# 10.0.5 decodes image offsets wrongly, its own streams' too: tests/oracle/test_j2k_encode_tiles.py)
while read -r opts; do
  expect 0 "$tool" j2k encode "$tmp/e_rgb.ppm" "$tmp/t.j2k" $opts
  expect 0 "$tool" j2k decode "$tmp/t.j2k" "$tmp/t.ppm"
  same "$tmp/e_rgb.ppm" "$tmp/t.ppm" && ok || bad "encode $opts: round trip"
  if command -v opj_decompress >/dev/null; then
    rm -f "$tmp/t_ext.ppm"
    opj_decompress -i "$tmp/t.j2k" -o "$tmp/t_ext.ppm" >/dev/null 2>&1 && same "$tmp/e_rgb.ppm" "$tmp/t_ext.ppm" && ok || bad "encode $opts: opj_decompress"
  fi
done <<EOT
--origin 1001,37
--origin 3,5 --tiles 16x16 --tile-origin 0,0 --order RPCL
--origin 13,2 --tiles 7x5 --tile-origin 10,0 --ht
EOT
expect 0 "$tool" j2k encode "$tmp/e_rgb.ppm" "$tmp/t.j2k" --origin 3,5 --tiles 16x16 --tile-origin 1,2
expect 0 "$tool" j2k info "$tmp/t.j2k" --json
python3 -c "import json; d=json.load(open('$tmp/out.txt')); assert (d['x0'], d['y0'], d['tile_x0'], d['tile_y0'], d['tile_width']) == (3, 5, 1, 2, 16), d" && ok || bad "encode --origin --tile-origin: header"
reject_encode 2 "origin 5" "--origin wants" "$tmp/one.pgm" "$tmp/enc_out/x.j2k" --origin 5
reject_encode 2 "tile origin -1,0" "--tile-origin wants" "$tmp/one.pgm" "$tmp/enc_out/x.j2k" --tile-origin -1,0
reject_encode 1 "tile origin right of the image" "tile origin (6,0) is right of" "$tmp/one.pgm" "$tmp/enc_out/x.j2k" --origin 5,5 --tile-origin 6,0
reject_encode 2 "tiles 0x8" "--tiles wants" "$tmp/one.pgm" "$tmp/enc_out/x.j2k" --tiles 0x8
reject_encode 2 "tiles 8" "--tiles wants" "$tmp/one.pgm" "$tmp/enc_out/x.j2k" --tiles 8
reject_encode 2 "precincts 24x32" "--precincts wants" "$tmp/one.pgm" "$tmp/enc_out/x.j2k" --precincts 24x32
reject_encode 2 "precincts 65536x2" "--precincts wants" "$tmp/one.pgm" "$tmp/enc_out/x.j2k" --precincts 65536x2
reject_encode 2 "precincts 32x32," "--precincts wants" "$tmp/one.pgm" "$tmp/enc_out/x.j2k" --precincts 32x32,
reject_encode 2 "tile-parts X" "--tile-parts wants" "$tmp/one.pgm" "$tmp/enc_out/x.j2k" --tile-parts X
# --ht: HTJ2K (header: HT style, RPCL by default, Rsiz bit 14 and a CAP segment); lossless round
# trips through tessera and ojph_expand (the HT reference); .jph has the 'jph ' brand and implies
# --ht; one rate or one PSNR target with HT (below); several, layers, or a rate with --lossless
# (a second, lossless layer) refused, leaving no output
expect 0 "$tool" j2k encode "$tmp/e_rgb.ppm" "$tmp/h.j2k" --ht --json
python3 -c "import json; d=json.load(open('$tmp/out.txt')); assert d['ht'] and d['order']=='RPCL', d" && ok || bad "encode --ht --json"
expect 0 "$tool" j2k info "$tmp/h.j2k" --json
python3 -c "import json; d=json.load(open('$tmp/out.txt')); assert d['progression']=='RPCL' and d['code_block_style']&0x40 and d['rsiz']&0x4000, d" && ok || bad "encode --ht: header"
python3 -c "import sys; b=open(sys.argv[1],'rb').read(); sys.exit(0 if b.find(bytes.fromhex('ff50000800020000')) > 0 else 1)" "$tmp/h.j2k" && ok || bad "encode --ht: CAP with Pcap bit 15"
expect 0 "$tool" j2k decode "$tmp/h.j2k" "$tmp/h.ppm"
same "$tmp/e_rgb.ppm" "$tmp/h.ppm" && ok || bad "encode --ht: round trip"
expect 0 "$tool" j2k encode "$tmp/e_g16.png" "$tmp/h16.jph" --cblk 1024x4 --order LRCP --tiles 8x8 --precincts 8x8
python3 -c "import sys; b=open(sys.argv[1],'rb').read(); sys.exit(0 if b[20:24]==b'jph ' and b[28:32]==b'jph ' else 1)" "$tmp/h16.jph" && ok || bad ".jph: ftyp brand"
expect 0 "$tool" j2k info "$tmp/h16.jph" --json
python3 -c "import json; d=json.load(open('$tmp/out.txt')); assert d['progression']=='LRCP' and d['code_block_style']&0x40, d" && ok || bad ".jph implies --ht, --order kept"
expect 0 "$tool" j2k decode "$tmp/h16.jph" "$tmp/h16.png"
same "$tmp/e_g16.png" "$tmp/h16.png" && ok || bad ".jph 16-bit round trip"
if command -v ojph_expand >/dev/null; then
  ojph_expand -i "$tmp/h.j2k" -o "$tmp/h_ojph.ppm" >/dev/null 2>&1 && same "$tmp/e_rgb.ppm" "$tmp/h_ojph.ppm" && ok || bad "encode --ht: ojph_expand"
  ojph_expand -i "$tmp/h16.jph" -o "$tmp/h16_ojph.pgm" >/dev/null 2>&1 && same "$tmp/e_g16.png" "$tmp/h16_ojph.pgm" && ok || bad ".jph: ojph_expand"
else
  echo "note: ojph_expand absent; HT streams checked by tessera only" >&2
fi
# --ht --rate: at most the target and within 1% of it, the PSNR rising with the rate, HT
# (code-block style) and one layer, decoded by ojph_expand to tessera's samples within 1 (its
# 9/7 is its own float arithmetic); .jph counts its boxes. --ht --psnr 38: the decoded PSNR at
# least 38 less the estimate's allowance (0.25 dB, as for Part 1 above) and at most 1 dB above
for r in 0.5 1 2; do
  expect 0 "$tool" j2k encode "$tmp/photo.ppm" "$tmp/hr$r.jph" --rate $r --json
  python3 -c "import json,os; d=json.load(open('$tmp/out.txt')); n=os.path.getsize('$tmp/hr$r.jph'); t=200*160*$r/8; assert d['ht'] and d['bytes']==n and 0.99*t <= n <= t, (n, t)" && ok || bad "--ht --rate $r: size within 1% below the target"
  expect 0 "$tool" j2k decode "$tmp/hr$r.jph" "$tmp/hr$r.ppm"
done
expect 0 "$tool" j2k info "$tmp/hr1.jph" --json
python3 -c "import json; d=json.load(open('$tmp/out.txt')); assert d['layers']==1 and d['code_block_style']&0x40 and d['transform']=='9/7', d" && ok || bad "--ht --rate: header"
"$py" -c "
import cv2, numpy as np
a = cv2.imread('$tmp/photo.ppm').astype(float)
p = [10 * np.log10(255**2 / ((a - cv2.imread('$tmp/hr%s.ppm' % r).astype(float))**2).mean()) for r in ('0.5', '1', '2')]
assert p[0] < p[1] < p[2], p" && ok || bad "--ht --rate 0.5,1,2: PSNR not rising"
if command -v ojph_expand >/dev/null; then
  ojph_expand -i "$tmp/hr1.jph" -o "$tmp/hr1_ojph.ppm" >/dev/null 2>&1 && "$py" -c "
import cv2, numpy as np
a = cv2.imread('$tmp/hr1.ppm').astype(int); b = cv2.imread('$tmp/hr1_ojph.ppm').astype(int)
assert a.shape == b.shape and np.abs(a - b).max() <= 1" && ok || bad "--ht --rate 1: ojph_expand"
fi
expect 0 "$tool" j2k encode "$tmp/photo.ppm" "$tmp/hp.j2k" --ht --psnr 38 --json
python3 -c "import json; d=json.load(open('$tmp/out.txt')); e=d['psnr_estimate']; assert d['ht'] and len(e)==1 and e[0]>=38, e" && ok || bad "--ht --psnr 38: estimate"
expect 0 "$tool" j2k decode "$tmp/hp.j2k" "$tmp/hp.ppm"
"$py" -c "
import cv2, numpy as np
a = cv2.imread('$tmp/photo.ppm').astype(float)
p = 10 * np.log10(255**2 / ((a - cv2.imread('$tmp/hp.ppm').astype(float))**2).mean())
assert 38 - 0.25 <= p <= 39, p" && ok || bad "--ht --psnr 38: decoded PSNR off the target"
reject_encode 1 "--ht --rate 1,2" "one quality layer" "$tmp/e_rgb.ppm" "$tmp/enc_out/x.j2k" --ht --rate 1,2
reject_encode 1 "--ht --psnr 30,40" "one quality layer" "$tmp/e_rgb.ppm" "$tmp/enc_out/x.j2k" --ht --psnr 30,40
reject_encode 1 "--ht --rate --lossless" "one quality layer" "$tmp/e_rgb.ppm" "$tmp/enc_out/x.j2k" --ht --rate 1 --lossless
reject_encode 1 "--ht --layers" "one quality layer" "$tmp/e_rgb.ppm" "$tmp/enc_out/x.jph" --layers 2
reject_encode 1 "precincts 1x1 above the lowest resolution" "only the lowest" "$tmp/e_rgb.ppm" "$tmp/enc_out/x.j2k" --precincts 1x1
reject_encode 1 "300 tile-parts" "at most 255" "$tmp/e_rgb.ppm" "$tmp/enc_out/x.j2k" --layers 60 --tile-parts C

# decode with several inputs / a folder: FOLDER/NAME.EXT for each, the same bytes as single
# decodes; a corrupt file in the middle is reported (one line naming it) and the others are
# written, exit 1 at the end; names that collide are refused before any work.
mkdir -p "$tmp/seq"
cp "$data/j2k/conformance/p0_01.j2k" "$data/j2k/conformance/p0_03.j2k" "$data/j2k/htj2k/ds0_ht_01_b11.j2k" "$tmp/seq/"
head -c 100 "$data/j2k/conformance/p0_04.j2k" > "$tmp/seq/broken.j2k"
for f in p0_01 p0_03 ds0_ht_01_b11; do
  expect 0 "$tool" j2k decode "$tmp/seq/$f.j2k" "$tmp/single_$f.pnm"
done
expect 1 "$tool" j2k decode "$tmp/seq" "$tmp/seq_out" --format pnm
grep -q "broken.j2k: .*exceeds the data" "$tmp/err.txt" && ok || bad "folder mode names the failing file: $(cat "$tmp/err.txt")"
grep -q "1 of 4 files failed (the others are written)" "$tmp/err.txt" && ok || bad "folder mode counts the failure: $(cat "$tmp/err.txt")"
[ ! -e "$tmp/seq_out/broken.pnm" ] && ok || bad "folder mode wrote the failing file's output"
for f in p0_01 p0_03 ds0_ht_01_b11; do
  cmp -s "$tmp/seq_out/$f.pnm" "$tmp/single_$f.pnm" && ok || bad "folder mode: $f.pnm differs from a single decode"
done
expect 0 "$tool" j2k decode "$tmp/seq/p0_01.j2k" "$tmp/seq/ds0_ht_01_b11.j2k" "$tmp/seq_png" --json
[ -s "$tmp/seq_png/p0_01.png" ] && [ -s "$tmp/seq_png/ds0_ht_01_b11.png" ] && ok || bad "several inputs into a folder (png)"
python3 -c "import json; d=json.load(open('$tmp/out.txt')); assert d['inputs']==2 and d['failed']==0 and d['ok']" && ok || bad "folder mode --json"
cp "$tmp/seq/p0_01.j2k" "$tmp/p0_01.j2c"
expect 2 "$tool" j2k decode "$tmp/seq/p0_01.j2k" "$tmp/p0_01.j2c" "$tmp/seq_dup"
expect 2 "$tool" j2k decode "$tmp/seq" "$tmp/seq_bad" --format bmp
# on a CUDA device the folder goes through the batch call: the same bytes again
if "$tool" j2k decode "$tmp/seq/p0_01.j2k" "$tmp/cuda_probe.pnm" --backend cuda >/dev/null 2>&1; then
  expect 1 "$tool" j2k decode "$tmp/seq" "$tmp/seq_cuda" --format pnm --backend cuda
  grep -q "broken.j2k: " "$tmp/err.txt" && ok || bad "cuda folder mode names the failing file"
  for f in p0_01 p0_03 ds0_ht_01_b11; do
    cmp -s "$tmp/seq_cuda/$f.pnm" "$tmp/single_$f.pnm" && ok || bad "cuda folder mode: $f.pnm differs"
  done
else
  echo "note: no CUDA device; skipping the folder decode on cuda" >&2
fi

# SIGTERM during a streamed decode (rows go to a temporary file as they are decoded): exit 130,
# no output and no temporary file. A 4000x4000 noise image, lossless: seconds at 1 thread.
if command -v opj_compress >/dev/null; then
  { printf 'P5\n4000 4000\n255\n'; head -c 16000000 /dev/urandom; } > "$tmp/noise.pgm"
  opj_compress -i "$tmp/noise.pgm" -o "$tmp/noise.j2k" >/dev/null 2>&1
  expect_stopped "$tool" j2k decode "$tmp/noise.j2k" "$tmp/stop/n.pgm" --threads 1
else
  echo "note: opj_compress absent; skipping the SIGTERM test" >&2
fi

finish test_j2k_cli
