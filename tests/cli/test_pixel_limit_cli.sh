#!/usr/bin/env bash
# The image-size limit of the commands that read images (--max-pixels, default 2^28 pixels):
# a tiny codestream or PNG that claims a huge image fails at its header with exit status 1, one
# line naming the size, the limit and the option, and no output file; `--max-pixels 0` decodes a
# 17000x17000 empty codestream (a 102-byte "decompression bomb") within bounded time and memory.
. "${TSR_TESTS:?TSR_TESTS must name the tests folder}/cli/lib.sh"

# bomb W H [COMPONENTS [BITS]]: a valid codestream of one tile whose every packet is empty (no
# code-block has data), so every sample is the DC level 2^(BITS-1); about 100 bytes.
bomb() {
  $py - "$@" <<'P'
import struct, sys
w, h = int(sys.argv[1]), int(sys.argv[2])
nc = int(sys.argv[3]) if len(sys.argv) > 3 else 1
bits = int(sys.argv[4]) if len(sys.argv) > 4 else 8
levels = 5
def seg(m, b): return struct.pack('>HH', m, len(b) + 2) + b
siz = struct.pack('>HIIIIIIIIH', 0, w, h, 0, 0, w, h, 0, 0, nc) + bytes([bits - 1, 1, 1]) * nc
cod = bytes([0, 0, 0, 1, 0, levels, 4, 4, 0, 1])               # LRCP, 1 layer, 5/3, 64x64
qcd = bytes([0x40]) + bytes([(bits + 2) << 3]) * (3 * levels + 1)
body = bytes((levels + 1) * nc)                                # empty packets
sot = struct.pack('>HIBB', 0, 12 + 2 + len(body), 0, 1)
sys.stdout.buffer.write(b'\xff\x4f' + seg(0xff51, siz) + seg(0xff52, cod) + seg(0xff5c, qcd) +
                        seg(0xff90, sot) + b'\xff\x93' + body + b'\xff\xd9')
P
}
# big_png W H: a PNG header of a W x H gray image followed by one row of data.
big_png() {
  $py - "$1" "$2" <<'P'
import struct, sys, zlib
w, h = int(sys.argv[1]), int(sys.argv[2])
def chunk(t, d): return struct.pack('>I', len(d)) + t + d + struct.pack('>I', zlib.crc32(t + d))
sys.stdout.buffer.write(b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', w, h, 8, 0, 0, 0, 0)) +
                        chunk(b'IDAT', zlib.compress(bytes(w + 1))) + chunk(b'IEND', b''))
P
}
# refused NAME SIZE CMD...: exit 1, one line on stderr naming SIZE, the default limit and the
# option, and nothing left in $tmp/out/.
refused() {
  local name=$1 size=$2; shift 2
  rm -rf "$tmp/out"; mkdir "$tmp/out"
  "$@" >"$tmp/out.txt" 2>"$tmp/err.txt"
  local rc=$?
  [ $rc -eq 1 ] && ok || bad "$name: exit $rc (want 1)"
  [ "$(wc -l <"$tmp/err.txt")" -eq 1 ] && ok || bad "$name: not one line: $(cat "$tmp/err.txt")"
  grep -q "image of $size exceeds the limit of 268435456 pixels.*; --max-pixels N raises it" \
    "$tmp/err.txt" && ok || bad "$name: message '$(cat "$tmp/err.txt")'"
  [ -z "$(ls -A "$tmp/out")" ] && ok || bad "$name: left $(ls -A "$tmp/out")"
}

bomb 60000 60000 >"$tmp/b60k.j2k"
bomb 65535 65535 3 16 >"$tmp/b65k.j2k"
[ "$(wc -c <"$tmp/b60k.j2k")" -lt 200 ] && ok || bad "the bomb is not small"
refused "j2k decode 60000^2" 60000x60000 "$tool" j2k decode "$tmp/b60k.j2k" "$tmp/out/o.png"
refused "j2k decode 65535^2 16-bit RGB" 65535x65535 "$tool" j2k decode "$tmp/b65k.j2k" "$tmp/out/o.pgx"
big_png 20000 20000 >"$tmp/big.png"
refused "resize" 20000x20000 "$tool" resize "$tmp/big.png" "$tmp/out/r.png" --scale 0.1
refused "carve" 20000x20000 "$tool" carve "$tmp/big.png" "$tmp/out/c.png" --width 100
refused "j2k encode" 20000x20000 "$tool" j2k encode "$tmp/big.png" "$tmp/out/e.j2k"
# With the limit lifted the PNG is refused for what its data can hold (deflate inflates at
# most 1032:1, so 42 bytes of IDAT cannot be 20000 rows).
expect 1 "$tool" resize "$tmp/big.png" "$tmp/r.png" --scale 0.1 --max-pixels 0
grep -q "IDAT cannot hold a 20000x20000 image" "$tmp/err.txt" && ok || bad "resize --max-pixels 0: $(cat "$tmp/err.txt")"

# The limit is exact: 64x64 = 4096 pixels.
bomb 64 64 >"$tmp/s.j2k"
expect 0 "$tool" j2k decode "$tmp/s.j2k" "$tmp/s.pgm" --max-pixels 4096
expect 1 "$tool" j2k decode "$tmp/s.j2k" "$tmp/s.pgm" --max-pixels 4095
grep -q "image of 64x64 exceeds the limit of 4095 pixels" "$tmp/err.txt" && ok || bad "4095: $(cat "$tmp/err.txt")"
for v in -1 abc 1e9 ""; do expect 2 "$tool" j2k decode "$tmp/s.j2k" "$tmp/s.pgm" --max-pixels "$v"; done
# info reads the header only: no limit unless asked for.
expect 0 "$tool" j2k info "$tmp/b60k.j2k"
grep -q "60000x60000" "$tmp/out.txt" && ok || bad "info: $(cat "$tmp/out.txt")"
expect 1 "$tool" j2k info "$tmp/b60k.j2k" --max-pixels 1000000

# --max-pixels 0 on a 17000x17000 bomb (289 Mpx, over the default): exit 0 within 60 s at one
# thread and under 256 MB peak RSS (measured: 5.0 s wall and 105 MB on the 2-core machine under
# a load of 7; the image itself would be 289 MB: the rows are streamed into the PNG), a PNG of
# that size, and every sample 128 (a region of it decoded to PGM).
bomb 17000 17000 >"$tmp/b17k.j2k"
$py - "$tool" "$tmp/b17k.j2k" "$tmp/b17k.png" <<'P' && ok || bad "17000^2 with --max-pixels 0"
import resource, struct, subprocess, sys, time
t = time.time()
rc = subprocess.call([sys.argv[1], 'j2k', 'decode', sys.argv[2], sys.argv[3], '--max-pixels', '0',
                      '--threads', '1'], timeout=60)
dt = time.time() - t
rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
w, h = struct.unpack('>II', open(sys.argv[3], 'rb').read()[16:24])
print(f'17000^2 bomb: exit {rc}, {dt:.1f} s, {rss:.0f} MB peak RSS, PNG {w}x{h}', file=sys.stderr)
sys.exit(0 if rc == 0 and dt < 60 and rss < 256 and (w, h) == (17000, 17000) else 1)
P
expect 0 "$tool" j2k decode "$tmp/b17k.j2k" "$tmp/corner.pgm" --max-pixels 0 --region 16900,16950,100,50
$py -c "
import sys; b = open('$tmp/corner.pgm', 'rb').read()
sys.exit(0 if b.startswith(b'P5\n100 50\n255\n') and set(b[-5000:]) == {128} and len(b) == 5000 + 14 else 1)" \
  && ok || bad "the bomb's samples are not all 128"

finish test_pixel_limit_cli
