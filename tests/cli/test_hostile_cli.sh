#!/usr/bin/env bash
# What a new user and a crafted input find (bounded work, ids that stay JSON, output paths and
# formats): `layout check` of a coordinate-free graph prints a bounded report and counts every
# violation exactly (against a brute-force count in Python); edge-list ids are written as JSON
# strings unless they are canonical integers, and a checkpoint made of them resumes; outputs are
# checked before any work; the output's extension chooses the format; special outputs (standard
# output, devices, FIFOs, symlinks) are written through, modes kept, output = input refused.
data=${TSR_DATA:-../shared/data}
. "${TSR_TESTS:?TSR_TESTS must name the tests folder}/cli/lib.sh"
# Work inside the temporary folder, so that a tool that writes '-' or other relative names as
# files leaves them there.
data=$(cd "$data" 2>/dev/null && pwd || echo "$data")
TSR_TESTS=$(cd "$TSR_TESTS" && pwd)
tool=$(realpath "$tool")
cd "$tmp" || exit 1

# --- layout check of a graph without coordinates: every node on (0, 0) --------------------------
awk 'BEGIN{for(i=0;i<10000;i++)print i,(i*7919+1)%300000}' >"$tmp/e10k.txt"
timeout 20 "$tool" layout check "$tmp/e10k.txt" >"$tmp/out.txt" 2>"$tmp/err.txt"
[ $? -eq 1 ] && ok || bad "coordinate-free check: exit 1 (invalid) within 20 s"
[ "$(wc -c <"$tmp/out.txt")" -lt 4000 ] && ok || bad "coordinate-free check: bounded report ($(wc -c <"$tmp/out.txt") bytes)"
# 19666 nodes on one point: 19665 coincident pairs and, on each of the 10000 edges, 19664 nodes.
grep -q "INVALID: 196,659,665 violations" "$tmp/out.txt" && ok || bad "coordinate-free: total count"
grep -q "^  and 196,659,645 more" "$tmp/out.txt" && ok || bad "coordinate-free: 'and N more' line"
[ "$(grep -c '^  coincident-nodes' "$tmp/out.txt")" -eq 20 ] && ok || bad "coordinate-free: 20 listed"
timeout 20 "$tool" layout check "$tmp/e10k.txt" --json --max-violations 5 >"$tmp/out.txt" 2>"$tmp/err.txt"
$py -c "
import json,sys; j=json.load(open('$tmp/out.txt'))
sys.exit(0 if j['violation_count']==196659665 and j['violations_listed']==5 and len(j['violations'])==5 and j['C']==0 else 1)" && ok || bad "coordinate-free --json: count and truncated list"
expect 2 "$tool" layout check "$tmp/e10k.txt" --max-violations -1
expect 2 "$tool" layout optimize "$tmp/e10k.txt" "$tmp/o.json" --max-violations 3

# Exact counts where nodes share vertical lines and points (the binary-searched ranges) and lie on
# diagonal and horizontal edges (the scanned ones): every violation listed, against brute force.
$py - "$tmp/grid.json" "$tmp/grid.expect" <<'P'
import json, sys
s = 7
def rnd(n):
    global s
    s = (s * 1103515245 + 12345) % (1 << 31)
    return s % n
nodes = [{"id": i, "x": rnd(4), "y": rnd(6)} for i in range(60)]
edges = [(rnd(60), rnd(60)) for _ in range(120)]
P = [(n["x"], n["y"]) for n in nodes]
def on(p, a, b):
    cr = (b[0]-a[0])*(p[1]-a[1]) - (b[1]-a[1])*(p[0]-a[0])
    return cr == 0 and min(a[0],b[0]) <= p[0] <= max(a[0],b[0]) and min(a[1],b[1]) <= p[1] <= max(a[1],b[1])
pairs = []
for e, (u, v) in enumerate(edges):
    if u != v:
        pairs += [(w, e) for w in range(60) if w not in (u, v) and on(P[w], P[u], P[v])]
groups = {}
for i, p in enumerate(P):
    groups.setdefault(p, []).append(i)
coincident = sum(len(g) - 1 for g in groups.values())
loops = sum(u == v for u, v in edges)
keys = {}
for u, v in edges:
    k = (min(u, v), max(u, v)); keys[k] = keys.get(k, 0) + 1
dups = sum(c - 1 for c in keys.values())
json.dump({"nodes": nodes, "edges": [{"source": u, "target": v} for u, v in edges], "width": 10, "height": 10}, open(sys.argv[1], "w"))
open(sys.argv[2], "w").write("%d %d\n" % (coincident + len(pairs) + loops + dups, len(pairs)) + "".join("%d %d\n" % p for p in sorted(pairs)))
P
"$tool" layout check "$tmp/grid.json" --json --max-violations all >"$tmp/out.txt"
$py -c "
import json,sys; j=json.load(open('$tmp/out.txt'))
pairs=sorted((int(v['nodes'][0]), v['edges'][0]) for v in j['violations'] if v['kind']=='node-on-edge')
got='%d %d\n' % (j['violation_count'], len(pairs)) + ''.join('%d %d\n' % p for p in pairs)
sys.exit(0 if got==open('$tmp/grid.expect').read() and len(j['violations'])==j['violation_count'] else 1)" && ok || bad "grid drawing: violations as brute force counts them"
# a cap cuts the list, never the count
"$tool" layout check "$tmp/grid.json" --json --max-violations 3 >"$tmp/out.txt"
$py -c "
import json,sys; j=json.load(open('$tmp/out.txt'))
sys.exit(0 if j['violation_count']==int(open('$tmp/grid.expect').read().split()[0]) and len(j['violations'])==3 else 1)" && ok || bad "grid drawing: capped list, full count"

# --- edge-list names in written JSON --------------------------------------------------------------
printf 'a b\nb c\nc a\n01 +2\n0x10 -0\n7 -3\n"q" a\\b\n' >"$tmp/ids.txt"
expect 0 "$tool" layout optimize "$tmp/ids.txt" "$tmp/ids.json" --moves 200 --quiet
$py -c "
import json,sys; j=json.load(open('$tmp/ids.json'))
ids=[n['id'] for n in j['nodes']]
sys.exit(0 if ids==['a','b','c','01','+2','0x10','-0',7,-3,'\"q\"','a\\\\b'] and j['edges'][0]=={'source':'a','target':'b'} else 1)" && ok || bad "edge-list ids: JSON strings unless canonical integers"
expect 0 "$tool" layout optimize "$tmp/ids.txt" "$tmp/ids2.json" --moves 200 --checkpoint "$tmp/ids.json"
grep -q "resuming from checkpoint" "$tmp/err.txt" && ok || bad "checkpoint of string ids resumes"
expect 0 "$tool" layout check "$tmp/ids.json"

# GraphML output: names escaped as XML, read back as the same names
printf 'a&b <c>\n<c> "d"\n"d" a&b\n' >"$tmp/xml.txt"
expect 0 "$tool" layout optimize "$tmp/xml.txt" "$tmp/xml.graphml" --moves 50 --quiet
"$tool" layout optimize "$tmp/xml.graphml" "$tmp/xml.json" --moves 50 --quiet && ok || bad "GraphML output reads back"
$py -c "
import json,sys; j=json.load(open('$tmp/xml.json'))
sys.exit(0 if [n['id'] for n in j['nodes']]==['a&b','<c>','\"d\"'] else 1)" && ok || bad "GraphML output: names escaped and read back"

# --- outputs are checked before any work (a path that cannot be written fails at once) ------------
src=${TSR_TESTS}/data/sample.png
printf 'a b\nb c\nc a\nc d\n' >"$tmp/g.txt"
quick() { # quick CODE SECONDS CMD...: exits CODE within SECONDS
  local want=$1 limit=$2; shift 2
  timeout "$limit" "$@" >"$tmp/out.txt" 2>"$tmp/err.txt"
  local got=$?
  [ "$got" -eq "$want" ] && ok || bad "exit $got (want $want within ${limit}s): $*"
}
mkdir "$tmp/w"
quick 1 5 "$tool" layout optimize "$tmp/g.txt" "$tmp/nope/o.json" --time 30 --quiet
grep -q "nope/o.json: folder '.*nope': No such file" "$tmp/err.txt" && ok || bad "missing folder: message"
quick 1 5 "$tool" layout optimize "$tmp/g.txt" "$tmp/w/o.json" --time 30 --svg "$tmp/nope/o.svg" --quiet
quick 1 5 "$tool" layout optimize "$tmp/g.txt" "$tmp/w/o.json" --time 30 --checkpoint "$tmp/nope/c.json" --quiet
quick 1 5 "$tool" layout optimize "$tmp/g.txt" "$tmp/w" --time 30 --quiet
quick 1 5 "$tool" layout render "$tmp/g.txt" "$tmp/nope/r.svg"
quick 1 5 "$tool" resize "$src" "$tmp/nope/r.png" --size 8x8 --quiet
quick 1 5 "$tool" carve "$src" "$tmp/w/c.png" --width 100 --seams "$tmp/nope/s.png" --quiet
quick 1 5 "$tool" carve "$src" "$tmp/w/c.png" --width 100 --save-map "$tmp/nope/m.png" --quiet
if [ "$(id -u)" -ne 0 ]; then
  mkdir "$tmp/ro"; chmod 555 "$tmp/ro"
  quick 1 5 "$tool" layout optimize "$tmp/g.txt" "$tmp/ro/o.json" --time 30 --quiet
  quick 1 5 "$tool" resize "$src" "$tmp/ro/r.png" --size 8x8 --quiet
  cp "$src" "$tmp/w/ro.png"; chmod 444 "$tmp/w/ro.png"
  quick 1 5 "$tool" resize "$src" "$tmp/w/ro.png" --size 8x8 --quiet
  cmp -s "$src" "$tmp/w/ro.png" && ok || bad "read-only output replaced"
  chmod 755 "$tmp/ro"
else
  echo "note: running as root; the read-only folder and file cases are skipped" >&2
fi
[ -z "$(ls -A "$tmp/w")" ] && ok || bad "failed checks left files: $(ls -A "$tmp/w")"

# --- the output's extension chooses the format; one tessera cannot write is a usage error -----------
for ext in gif heic xcf; do
  expect 2 "$tool" resize "$src" "$tmp/w/r.$ext" --size 8x8 --quiet
  grep -q "cannot write .$ext files here (it writes .png, .jpg" "$tmp/err.txt" && ok || bad ".$ext: message names it and the formats"
done
expect 2 "$tool" carve "$src" "$tmp/w/c.gif" --width 100 --quiet
expect 2 "$tool" layout optimize "$tmp/g.txt" "$tmp/w/o.svg" --moves 10 --quiet
expect 2 "$tool" layout optimize "$tmp/g.txt" "$tmp/w/o.json" --svg "$tmp/w/o.png" --moves 10 --quiet
expect 2 "$tool" layout render "$tmp/g.txt" "$tmp/w/r.gif"
[ -z "$(ls -A "$tmp/w")" ] && ok || bad "refused formats left files: $(ls -A "$tmp/w")"
magic() { head -c "$2" "$1" | od -An -tx1 | tr -d ' \n'; }
expect 0 "$tool" resize "$src" "$tmp/w/r.PNG" --size 8x8 --quiet
[ "$(magic "$tmp/w/r.PNG" 4)" = 89504e47 ] && ok || bad ".PNG is PNG"
expect 0 "$tool" resize "$src" "$tmp/w/r.jpeg" --size 8x8 --quiet
[ "$(magic "$tmp/w/r.jpeg" 3)" = ffd8ff ] && ok || bad ".jpeg is JPEG"
expect 0 "$tool" resize "$src" "$tmp/w/r.ppm" --size 8x8 --quiet
[ "$(head -c 2 "$tmp/w/r.ppm")" = P6 ] && ok || bad ".ppm is P6"
expect 0 "$tool" resize "$src" "$tmp/w/r.pnm" --size 8x8 --quiet
[ "$(head -c 2 "$tmp/w/r.pnm")" = P6 ] && ok || bad ".pnm of colour is P6"
expect 0 "$tool" resize "$src" "$tmp/w/noext" --size 8x8 --quiet
[ "$(magic "$tmp/w/noext" 4)" = 89504e47 ] && ok || bad "no extension: the input's format"
expect 1 "$tool" resize "$src" "$tmp/w/c.pgm" --size 8x8 --quiet
grep -q "PGM holds gray images" "$tmp/err.txt" && ok || bad "colour into .pgm: message"
[ ! -e "$tmp/w/c.pgm" ] && ok || bad "colour into .pgm wrote a file"
{ printf 'P5\n4 4\n255\n'; head -c 16 /dev/zero; } >"$tmp/gray.pgm"
expect 0 "$tool" resize "$tmp/gray.pgm" "$tmp/w/g.pnm" --size 2x2 --quiet
[ "$(head -c 2 "$tmp/w/g.pnm")" = P5 ] && ok || bad ".pnm of gray is P5"
expect 1 "$tool" resize "$tmp/gray.pgm" "$tmp/w/g.ppm" --size 2x2 --quiet
expect 0 "$tool" layout optimize "$tmp/g.txt" "$tmp/w/o.graphml" --moves 100 --quiet
grep -q '<graphml' "$tmp/w/o.graphml" && ok || bad ".graphml is GraphML"
"$tool" layout check "$tmp/w/o.graphml" >"$tmp/out.txt" 2>"$tmp/err.txt"
grep -q "4 nodes, 4 edges" "$tmp/out.txt" && ok || bad ".graphml reads back"
expect 0 "$tool" layout render "$tmp/g.txt" "$tmp/w/picture"
grep -q '<svg' "$tmp/w/picture" && ok || bad "render without an extension: SVG"

# --- special outputs: standard output, devices, FIFOs, symlinks, modes; output = input -------------
rm -rf "$tmp/w"; mkdir "$tmp/w"
# As root, a tool that renames over its output would replace the system's /dev/null and
# /dev/stdout: root runs use /dev/fd/1 (in /proc, where a rename fails) and a device node of
# their own instead.
if [ "$(id -u)" -eq 0 ]; then
  so=/dev/fd/1; mknod "$tmp/null" c 1 3; null=$tmp/null
else
  so=/dev/stdout; null=/dev/null
fi
"$tool" resize "$src" "$so" --size 8x8 --quiet >"$tmp/w/so.png" && ok || bad "$so"
[ "$(magic "$tmp/w/so.png" 4)" = 89504e47 ] && ok || bad "$so got the PNG"
"$tool" resize - - --size 8x8 --quiet <"$src" >"$tmp/w/dash.png" && ok || bad "- to -"
cmp -s "$tmp/w/so.png" "$tmp/w/dash.png" && ok || bad "'-' in and out: same bytes"
"$tool" resize "$src" - --size 8x8 --quiet | head -c 4 | od -An -tx1 | grep -q "89 50 4e 47" && ok || bad "- to a pipe"
expect 0 "$tool" resize "$src" "$null" --size 8x8 --quiet
[ -c "$null" ] && ok || bad "$null is no longer a device"
mkfifo "$tmp/w/fifo.png"
cat "$tmp/w/fifo.png" >"$tmp/w/from_fifo" &
expect 0 "$tool" resize "$src" "$tmp/w/fifo.png" --size 8x8 --quiet
wait
[ -p "$tmp/w/fifo.png" ] && cmp -s "$tmp/w/from_fifo" "$tmp/w/so.png" && ok || bad "FIFO written through"
rm -f "$tmp/w/fifo.png"
ln -s target.png "$tmp/w/link.png"
expect 0 "$tool" resize "$src" "$tmp/w/link.png" --size 8x8 --quiet
[ -L "$tmp/w/link.png" ] && cmp -s "$tmp/w/target.png" "$tmp/w/so.png" && ok || bad "dangling symlink: its target written, the link kept"
expect 0 "$tool" resize "$src" "$tmp/w/link.png" --size 9x9 --quiet
[ -L "$tmp/w/link.png" ] && ok || bad "symlink replaced by a file"
cp "$tmp/w/so.png" "$tmp/w/mode.png"; chmod 640 "$tmp/w/mode.png"
expect 0 "$tool" resize "$src" "$tmp/w/mode.png" --size 9x9 --quiet
[ "$(stat -c %a "$tmp/w/mode.png")" = 640 ] && ok || bad "mode of a replaced file kept ($(stat -c %a "$tmp/w/mode.png"))"
cp "$src" "$tmp/w/self.png"
expect 2 "$tool" resize "$tmp/w/self.png" "$tmp/w/self.png" --size 8x8 --quiet
grep -q "is the input" "$tmp/err.txt" && ok || bad "output = input: message"
cmp -s "$src" "$tmp/w/self.png" && ok || bad "output = input: input untouched"
expect 2 "$tool" resize "$tmp/w/self.png" "$tmp/w/../w/self.png" --size 8x8 --quiet
expect 0 "$tool" resize "$tmp/w/self.png" "$tmp/w/self.png" --size 8x8 --quiet --overwrite
cmp -s "$tmp/w/self.png" "$tmp/w/so.png" && ok || bad "--overwrite replaces the input"
expect 2 "$tool" carve "$src" "$tmp/w/c.png" --width 100 --seams "$tmp/w/c.png" --quiet
cp "$tmp/ids.json" "$tmp/w/in.json"
expect 2 "$tool" layout optimize "$tmp/w/in.json" "$tmp/w/o.json" --checkpoint "$tmp/w/in.json" --moves 10 --quiet
expect 2 "$tool" layout optimize "$tmp/w/in.json" "$tmp/w/in.json" --moves 10 --quiet
expect 2 "$tool" layout optimize "$tmp/w/in.json" "$tmp/w/o.json" --checkpoint - --moves 10 --quiet
# OUT "-": one JSON document, however often the search saves
"$tool" layout optimize "$tmp/g.txt" - --time 1.5 --save-interval 0.1 --quiet >"$tmp/w/o.json" && ok || bad "optimize to -"
$py -c "import json; json.load(open('$tmp/w/o.json'))" && ok || bad "optimize to -: one JSON document"
"$tool" layout check - <"$tmp/w/o.json" >/dev/null && ok || bad "layout check reads -"

# --- batch resize: every good file written, each bad one reported, exit 1 at the end -------------
mkdir -p "$tmp/bin"
cp "$src" "$tmp/bin/a.png"; head -c 300 "$src" >"$tmp/bin/b.png"; cp "$src" "$tmp/bin/c.png"
echo hello >"$tmp/bin/d.png"; cp "$src" "$tmp/bin/e.png"
expect 1 "$tool" resize "$tmp/bin/a.png" "$tmp/bin/b.png" "$tmp/bin/c.png" "$tmp/bin/d.png" "$tmp/bin/e.png" "$tmp/bout" --size 8x8 --quiet
[ "$(ls "$tmp/bout" | tr '\n' ' ')" = "a.png c.png e.png " ] && ok || bad "batch: the good files written ($(ls "$tmp/bout" | tr '\n' ' '))"
[ "$(grep -c 'b.png' "$tmp/err.txt")" -eq 1 ] && [ "$(grep -c 'd.png' "$tmp/err.txt")" -eq 1 ] && ok || bad "batch: one line per bad file"
grep -q "2 of 5 images failed" "$tmp/err.txt" && ok || bad "batch: summary"
expect 1 "$tool" resize "$tmp/bin/a.png" "$tmp/bin/b.png" "$tmp/bout2" --size 8x8 --json
$py -c "import json,sys; j=json.load(open('$tmp/out.txt')); sys.exit(0 if j['failed']==1 and len(j['images'])==1 and not j['ok'] else 1)" && ok || bad "batch --json: failed count"

# --- progress: once a second on a terminal only; a log gets notes and the final line -------------
ex=$data/graphs/gd2025-examples
if [ -f "$ex/70-nodes.json" ]; then
  expect 0 "$tool" layout optimize "$ex/70-nodes.json" "$tmp/p70.json" --time 2.5 --backend cpu
  [ "$(grep -c 'moves/s' "$tmp/err.txt")" -eq 0 ] && ok || bad "progress lines in a log: $(grep -c 'moves/s' "$tmp/err.txt")"
  [ "$(grep -c -- '->' "$tmp/err.txt")" -eq 1 ] && ok || bad "final line missing"
  if command -v script >/dev/null; then
    script -qc "'$tool' layout optimize '$ex/70-nodes.json' '$tmp/p70.json' --time 2.5 --backend cpu" /dev/null >"$tmp/tty.txt"
    grep -q 'best K=.*moves/s  [0-9]*s left' "$tmp/tty.txt" && ok || bad "progress on a terminal"
  fi
else
  echo "note: $ex absent; skipping the progress test" >&2
fi

# --- messages say what is wrong -------------------------------------------------------------------
expect 1 "$tool" resize "$src" "$tmp/m.png" --scale 0.0001 --quiet
grep -q -- "--scale 0.0001,0.0001 makes no output size from 160x120" "$tmp/err.txt" && ok || bad "tiny --scale: message"
expect 1 "$tool" resize "$src" "$tmp/m.png" --scale 1e9 --quiet
grep -q -- "makes no output size" "$tmp/err.txt" && ok || bad "huge --scale: message"
expect 1 "$tool" resize "$src" "$tmp/m.png" --size 100000x100000 --quiet
grep -q "the 100000x100000 output: " "$tmp/err.txt" && ok || bad "huge --size: names the output"
expect 2 "$tool" resize "$src" "$tmp/m.png" --size 8x8 --quality 50 --quiet
grep -q -- "--quality applies to JPEG (.jpg, .jpeg) and WebP" "$tmp/err.txt" && ok || bad "--quality for PNG: message"
expect 2 "$tool" carve "$src" "$tmp/m.png" --width 100 --quality 50 --quiet
expect 0 "$tool" resize "$src" "$tmp/m.jpg" --size 8x8 --quality 50 --quiet
mkdir -p "$tmp/afolder"
for c in "resize $tmp/afolder $tmp/m.png --size 8x8" "carve $tmp/afolder $tmp/m.png --width 8" "layout check $tmp/afolder"; do
  expect 1 "$tool" $c --quiet
  grep -q "afolder: is a folder, not a" "$tmp/err.txt" && ok || bad "folder as input ($c): $(cat "$tmp/err.txt")"
done

# --- headers that claim more than their data can hold -------------------------------------------
# A PNG of 2^28 x 1 RGBA16 pixels (the pixel limit) over a few kB of IDAT: refused at its header
# (deflate inflates at most 1032:1), not after libpng clears a 2 GB row.
$py - "$tmp/row.png" <<'P'
import struct, sys, zlib
def chunk(t, d): return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d))
ihdr = struct.pack(">IIBBBBB", 1 << 28, 1, 16, 6, 0, 0, 0)
open(sys.argv[1], "wb").write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(bytes(4000)))
                              + chunk(b"IEND", b""))
P
expect 1 timeout 10 "$tool" resize "$tmp/row.png" "$tmp/row_out.png" --size 8x8 --quiet
grep -q "bytes of IDAT cannot hold a 268435456x1 image" "$tmp/err.txt" && ok || bad "PNG row lie: $(cat "$tmp/err.txt")"
# A 16384-square TIFF in one Deflate strip decodes into the image itself: one copy of its 256 MB.
$py - "$tmp/big.tif" <<'P'
import struct, sys, zlib
strip = zlib.compress(bytes(16384 * 16384), 9)
tags = [(256, 4, 16384), (257, 4, 16384), (258, 3, 8), (259, 3, 8), (262, 3, 1), (273, 4, 8 + 2 + 9 * 12 + 4),
        (277, 3, 1), (278, 4, 16384), (279, 4, len(strip))]
ifd = struct.pack("<H", len(tags)) + b"".join(struct.pack("<HHIHH" if t == 3 else "<HHII", g, t, 1, v, *([0] if t == 3 else []))
                                             for g, t, v in tags) + struct.pack("<I", 0)
open(sys.argv[1], "wb").write(b"II*\0" + struct.pack("<I", 8) + ifd + strip)
P
peak=$($py -c "
import os, subprocess, sys
p = subprocess.Popen(sys.argv[1:], stderr=subprocess.DEVNULL)
_, status, ru = os.wait4(p.pid, 0)
print(ru.ru_maxrss // 1024 if os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0 else -1)" \
  "$tool" resize "$tmp/big.tif" "$tmp/big.png" --size 8x8 --quiet)
[ "$peak" -gt 0 ] && [ "$peak" -lt 400 ] && ok || bad "TIFF strip of 256 MB: peak $peak MB (want one copy, < 400)"

# --- graph texts the readers refuse in one line ----------------------------------------------------
# A DOT token of 16 MB (cgraph's scanner is quadratic in a token's length) is refused at once.
$py -c "import sys; sys.stdout.write('graph G {\n a -- b;\n a [label=\"' + 'x' * 16000000 + '\"];\n}\n')" >"$tmp/long.dot"
expect 1 timeout 10 "$tool" layout check "$tmp/long.dot" --quiet
grep -q "long.dot:3: a DOT word, string or comment of more than 262144 bytes" "$tmp/err.txt" && ok || bad "long DOT token: $(cat "$tmp/err.txt")"
[ "$(wc -l <"$tmp/err.txt")" -eq 1 ] && ok || bad "long DOT token: one line"
# Ids that are not UTF-8, or hold a newline, would make invalid JSON and multi-line messages.
printf 'a b\nb \351t\351\n' >"$tmp/latin1.txt"
expect 1 "$tool" layout optimize "$tmp/latin1.txt" "$tmp/latin1.json" --moves 100 --quiet
grep -q "latin1.txt:2: node id is not UTF-8 text without control characters (byte 0 of it)" "$tmp/err.txt" && ok || bad "Latin-1 id: $(cat "$tmp/err.txt")"
[ ! -e "$tmp/latin1.json" ] && ok || bad "Latin-1 id: output written"
printf '{"nodes": [{"id": "a\\nb"}, {"id": "a\\nb"}], "edges": []}' >"$tmp/newline.json"
expect 1 "$tool" layout check "$tmp/newline.json" --quiet
[ "$(wc -l <"$tmp/err.txt")" -eq 1 ] && grep -q "not UTF-8 text without control" "$tmp/err.txt" && ok || bad "id with a newline: $(cat "$tmp/err.txt")"
printf 'a b\nb \303\251t\303\251\n' >"$tmp/utf8.txt"
expect 0 "$tool" layout optimize "$tmp/utf8.txt" "$tmp/utf8.json" --moves 100 --quiet
$py -c "import json,sys; j=json.load(open(sys.argv[1], encoding='utf-8')); sys.exit(0 if any(n['id'] == '\u00e9t\u00e9' for n in j['nodes']) else 1)" "$tmp/utf8.json" && ok || bad "UTF-8 id kept"

finish test_hostile_cli
