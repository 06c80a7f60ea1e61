#!/usr/bin/env bash
# End-to-end tests of `tessera layout`: help, sub-commands, exit codes, bad input leaving no
# output, check against EXPECTED.md figures, optimize (valid output, determinism with --moves,
# checkpoint resume, SIGTERM keeps the best drawing), --chains (one chain draws what the
# one-chain optimizer of d81c02f drew, byte for byte; N chains are deterministic too), render.
data=${TSR_DATA:-../shared/data}
. "${TSR_TESTS:?TSR_TESTS must name the tests folder}/cli/lib.sh"

expect 0 "$tool" help
grep -q "layout" "$tmp/out.txt" && ok || bad "help lists layout"
expect 0 "$tool" layout --help
for opt in json time moves seed init svg checkpoint chains gpu-chains sync-every backend quiet; do
  grep -q -- "--$opt" "$tmp/out.txt" && ok || bad "layout --help documents --$opt"
done
expect 0 "$tool" help --man layout
grep -q '^\.TH TESSERA-layout' "$tmp/out.txt" && ok || bad "man page header"
expect 2 "$tool" layout
expect 2 "$tool" layout frobnicate x
expect 2 "$tool" layout check
expect 2 "$tool" layout optimize only-one.json
expect 2 "$tool" layout check a.json --time 5
expect 2 "$tool" layout optimize a.json - --json # both on standard output

# A small valid drawing: a 4-cycle with both diagonals (one crossing).
cat >"$tmp/k4.json" <<'J'
{"nodes":[{"id":"a","x":0,"y":0},{"id":"b","x":10,"y":0},{"id":"c","x":10,"y":10},{"id":"d","x":0,"y":10}],
 "edges":[{"source":"a","target":"b"},{"source":"b","target":"c"},{"source":"c","target":"d"},
          {"source":"d","target":"a"},{"source":"a","target":"c"},{"source":"b","target":"d"}],
 "width":10,"height":10}
J
expect 0 "$tool" layout check "$tmp/k4.json"
grep -q "K=1 n_K=2 Phi=2 C=1" "$tmp/out.txt" && ok || bad "k4 score"
expect 0 "$tool" layout check "$tmp/k4.json" --json
"$py" -c "import json,sys; j=json.load(open('$tmp/out.txt')); sys.exit(0 if j['valid'] and j['K']==1 and j['C']==1 else 1)" && ok || bad "check --json"

# Other input formats: the same drawing as DOT (pos) and GraphML (x/y data) scores the same; a
# CSV edge list with a header has no coordinates; a malformed DOT or CSV file is a one-line
# error naming the place, exit 1.
cat >"$tmp/k4.dot" <<'J'
graph k4 {
  a [pos="0,0"]; b [pos="10,0"]; c [pos="10,10"]; d [pos="0,10"];
  a -- b -- c -- d -- a; a -- c; b -- d
}
J
expect 0 "$tool" layout check "$tmp/k4.dot"
grep -q "4 nodes, 6 edges" "$tmp/out.txt" && grep -q "K=1 n_K=2 Phi=2 C=1" "$tmp/out.txt" && ok || bad "DOT k4 score"
expect 0 "$tool" layout optimize "$tmp/k4.dot" "$tmp/k4.graphml" --moves 10 --quiet
expect 0 "$tool" layout check "$tmp/k4.graphml"
grep -q "K=[01] " "$tmp/out.txt" && ok || bad "GraphML x/y read back"
printf 'source,target\na,b\nb,c\nc,a\n' >"$tmp/t.csv"
expect 1 "$tool" layout check "$tmp/t.csv" # every node at (0, 0): not a valid drawing
grep -q "3 nodes, 3 edges" "$tmp/out.txt" && ok || bad "CSV edge list"
printf 'graph {\n  a -- \n}\n' >"$tmp/bad.dot"
expect 1 "$tool" layout check "$tmp/bad.dot"
[ "$(wc -l <"$tmp/err.txt")" -eq 1 ] && grep -q "bad.dot:3: DOT syntax error" "$tmp/err.txt" && ok || bad "DOT error: $(cat "$tmp/err.txt")"
printf 'a,b\n"c,d\n' >"$tmp/bad.csv"
expect 1 "$tool" layout check "$tmp/bad.csv"
[ "$(wc -l <"$tmp/err.txt")" -eq 1 ] && grep -q "bad.csv:2:1: unterminated quoted field" "$tmp/err.txt" && ok || bad "CSV error: $(cat "$tmp/err.txt")"

for opt in "--time 0" "--time x" "--seed -1" "--init bogus" "--moves 0" "--phase1 2" "--phase1 0.3,2" "--phase1 0.3," "--phase1 ,0.3" "--chains 0" "--chains x" "--chains 1025" "--gpu-chains -1" "--gpu-chains x" "--gpu-chains 1025" "--sync-every 1" "--sync-every 0.001" "--sync-every x"; do
  expect 2 "$tool" layout optimize "$tmp/k4.json" "$tmp/o.json" $opt
done
[ ! -e "$tmp/o.json" ] && ok || bad "usage error left an output"

# Bad input: one clear error naming the place, exit 1, no output file.
printf '{"nodes":[{"id":0,"x":1.5,"y":0}],"edges":[]}' >"$tmp/frac.json"
printf '{"nodes":[{"id":0,"x":1,"y":0}],\n"edges":[{"source":0,"target":5}]}' >"$tmp/unknown.json"
printf '{"nodes":[{"id":0,"x":1,"y":0}' >"$tmp/trunc.json"
printf '{"nodes":[{"id":0,"x":0,"y":0},{"id":1,"x":1,"y":0},{"id":2,"x":0,"y":1}],"edges":[],"width":0,"height":1}' >"$tmp/small.json"
for f in frac unknown trunc small missing; do
  expect 1 "$tool" layout optimize "$tmp/$f.json" "$tmp/o-$f.json" --time 1 --backend cpu
  [ ! -e "$tmp/o-$f.json" ] && ok || bad "$f: output file left behind"
  grep -q "$f.json" "$tmp/err.txt" && ok || bad "$f: error names the file"
  [ "$(wc -l <"$tmp/err.txt")" -eq 1 ] && ok || bad "$f: one error line"
done
grep -q "unknown.json:2:10: edge 0 names unknown node id '5'" <("$tool" layout check "$tmp/unknown.json" 2>&1) && ok || bad "unknown id message"

# Optimize: valid output, better score, determinism with --moves, SVG.
expect 0 "$tool" layout optimize "$tmp/k4.json" "$tmp/o1.json" --moves 3000 --seed 3 --svg "$tmp/o1.svg" --quiet
expect 0 "$tool" layout check "$tmp/o1.json"
grep -q "K=0" "$tmp/out.txt" && ok || bad "k4 becomes planar"
grep -q "<svg" "$tmp/o1.svg" && ok || bad "svg written"
expect 0 "$tool" layout optimize "$tmp/k4.json" "$tmp/o2.json" --moves 3000 --seed 3 --quiet
cmp -s "$tmp/o1.json" "$tmp/o2.json" && ok || bad "same seed, same drawing"

# --chains 1 is the one-chain optimizer: the sha256 of its output is the one d81c02f (before
# --chains) wrote for the same command, on a generated graph (40 nodes, 100 edges, 50x50).
"$py" - >"$tmp/g40.json" <<'P'
import json
s = 12345
def nxt():
    global s
    s = (s * 6364136223846793005 + 1442695040888963407) % (1 << 64)
    return s >> 33
pts = set(); nodes = []
while len(nodes) < 40:
    p = (nxt() % 51, nxt() % 51)
    if p not in pts:
        pts.add(p); nodes.append({"id": len(nodes), "x": p[0], "y": p[1]})
edges = set()
while len(edges) < 100:
    u, v = nxt() % 40, nxt() % 40
    if u != v and (v, u) not in edges:
        edges.add((u, v))
print(json.dumps({"nodes": nodes, "edges": [{"source": u, "target": v} for u, v in sorted(edges)],
                  "width": 50, "height": 50}))
P
# same_as_before FILE SHA256: FILE is byte for byte what d81c02f wrote
same_as_before() {
  [ "$(sha256sum "$1" | cut -d' ' -f1)" = "$2" ] && ok || bad "$1: not the one-chain drawing of d81c02f"
}
expect 0 "$tool" layout optimize "$tmp/g40.json" "$tmp/g1.json" --moves 20000 --seed 4 --chains 1 --backend cpu --quiet
same_as_before "$tmp/g1.json" 1128a62024df33cb9c8a39afd58ef3b15e619545f62147964ab7703fdca4e760
# N chains: the same drawing twice, valid, with the score the run reports as its best
expect 0 "$tool" layout optimize "$tmp/g40.json" "$tmp/g3a.json" --moves 20000 --seed 4 --chains 3 --backend cpu --svg "$tmp/g3.svg"
best=$(sed -n 's/.* -> \(K=[0-9]* n_K=[0-9]* Phi=[0-9]* C=[0-9]*\) .*best of 3 chains.*/\1/p' "$tmp/err.txt")
[ -n "$best" ] && ok || bad "3 chains: final line names the best score and the chains"
expect 0 "$tool" layout optimize "$tmp/g40.json" "$tmp/g3b.json" --moves 20000 --seed 4 --chains 3 --backend cpu --quiet
cmp -s "$tmp/g3a.json" "$tmp/g3b.json" && ok || bad "3 chains, same seed: same drawing"
expect 0 "$tool" layout check "$tmp/g3a.json"
grep -q "score: $best\$" "$tmp/out.txt" && ok || bad "saved drawing has the best chain's score ($best)"
grep -q "<svg" "$tmp/g3.svg" && ok || bad "3 chains: svg written"
# with sync points ("go with the winners"): deterministic as well
expect 0 "$tool" layout optimize "$tmp/g40.json" "$tmp/g3s.json" --moves 20000 --seed 4 --chains 3 --sync-every 0.15 --backend cpu --quiet
expect 0 "$tool" layout optimize "$tmp/g40.json" "$tmp/g3t.json" --moves 20000 --seed 4 --chains 3 --sync-every 0.15 --backend cpu --quiet
cmp -s "$tmp/g3s.json" "$tmp/g3t.json" && ok || bad "3 chains with syncs: same drawing"
expect 0 "$tool" layout check "$tmp/g3s.json"
# chain 0 of N is the one-chain walk: N chains never end worse than one
k1=$("$tool" layout check "$tmp/g1.json" --json | "$py" -c "import json,sys; print(json.load(sys.stdin)['K'])")
k3=$("$tool" layout check "$tmp/g3a.json" --json | "$py" -c "import json,sys; print(json.load(sys.stdin)['K'])")
[ "$k3" -le "$k1" ] && ok || bad "3 chains worse than chain 0 alone ($k3 > $k1)"

ex=$data/graphs/gd2025-examples
if [ -d "$ex" ]; then
  expect 0 "$tool" layout optimize "$ex/70-nodes.json" "$tmp/o70.json" --moves 20000 --seed 5 --chains 1 --backend cpu --quiet
  same_as_before "$tmp/o70.json" 297aa1447e1897a7f8cc38d52a5e2ac1aed39d7c16df03ddaf5859bd3613f44a
  a3=$data/graphs/gd2025-contest/Automatic-3.json
  if [ -f "$a3" ]; then
    expect 0 "$tool" layout optimize "$a3" "$tmp/oa3.json" --moves 20000 --seed 5 --chains 1 --backend cpu --quiet
    same_as_before "$tmp/oa3.json" 08d389badb91dc543197ad77993daa62ae7f89bff0e67eaa2f87c65bbafa4138
  fi
  expect 1 "$tool" layout check "$ex/100-nodes.json"
  grep -q "INVALID: 11 violations" "$tmp/out.txt" && ok || bad "100-nodes: 11 violations"
  grep -q "K=202 n_K=1 Phi=4733158 C=19114" "$tmp/out.txt" && ok || bad "100-nodes score"
  expect 0 "$tool" layout check "$ex/sol-625-nodes-5-planar.json"
  grep -q "K=2 n_K=5 Phi=72 C=31" "$tmp/out.txt" && ok || bad "sol-625 score"
  # repair + optimize an invalid input; checkpoint, then resume from it
  expect 0 "$tool" layout optimize "$ex/100-nodes.json" "$tmp/o100.json" --time 2 --checkpoint "$tmp/ck.json" --chains 2 --quiet
  expect 0 "$tool" layout check "$tmp/o100.json"
  [ -s "$tmp/ck.json" ] && ok || bad "checkpoint written"
  k1=$("$tool" layout check "$tmp/ck.json" --json | "$py" -c "import json,sys; print(json.load(sys.stdin)['K'])")
  expect 0 "$tool" layout optimize "$ex/100-nodes.json" "$tmp/o100b.json" --time 2 --checkpoint "$tmp/ck.json" --chains 2
  grep -q "resuming from checkpoint" "$tmp/err.txt" && ok || bad "resume announced"
  k2=$("$tool" layout check "$tmp/o100b.json" --json | "$py" -c "import json,sys; print(json.load(sys.stdin)['K'])")
  [ "$k2" -le "$k1" ] && ok || bad "resume does not lose ground ($k2 > $k1)"
  expect 1 "$tool" layout optimize "$ex/15-nodes.json" "$tmp/o15.json" --time 1 --checkpoint "$tmp/ck.json"
  grep -q "not a drawing of the graph" "$tmp/err.txt" && ok || bad "foreign checkpoint refused"
  # SIGTERM: exit 130, the best valid drawing is on disk
  "$tool" layout optimize "$ex/150-nodes.json" "$tmp/o150.json" --time 60 --chains 2 --quiet &
  pid=$!
  sleep 2
  kill -TERM $pid
  wait $pid
  [ $? -eq 130 ] && ok || bad "SIGTERM exit status"
  expect 0 "$tool" layout check "$tmp/o150.json"
  rome=$data/graphs/rome/grafo1000.14.graphml
  expect 0 "$tool" layout render "$rome" "$tmp/rome.svg"
  grep -q "<svg" "$tmp/rome.svg" && ok || bad "render GraphML"
else
  echo "note: $ex absent; skipping the data tests" >&2
fi

# render into images: the extension chooses the format, --size the longer side
printf '{"nodes":[{"id":0,"x":0,"y":0},{"id":1,"x":200,"y":100},{"id":2,"x":0,"y":100},{"id":3,"x":200,"y":0}],"edges":[{"source":0,"target":1},{"source":2,"target":3}],"width":200,"height":100}' >"$tmp/x.json"
expect 0 "$tool" layout render "$tmp/x.json" "$tmp/x.png"
expect 0 "$tool" layout render "$tmp/x.json" "$tmp/x.jpg" --size 400 --json
grep -q '"format": "jpeg".*"pixels": \[400, 205\]' "$tmp/out.txt" && ok || bad "render --json names the format and pixels"
"$py" -c "
import cv2,sys
a=cv2.imread('$tmp/x.png'); b=cv2.imread('$tmp/x.jpg')
# the crossing at the canvas centre is red (BGR), the margin white
ok=a.shape==(461,900,3) and b.shape==(205,400,3) and a[230,450,2]>150 and a[230,450,1]<60 and (a[2,2]==255).all()
sys.exit(0 if ok else 1)" && ok || bad "render PNG/JPEG: size and pixels"
expect 2 "$tool" layout render "$tmp/x.json" "$tmp/x.svg" --size 100
expect 2 "$tool" layout render "$tmp/x.json" "$tmp/x.png" --size 0
expect 2 "$tool" layout render "$tmp/x.json" "$tmp/x.txt"

finish test_layout_cli
