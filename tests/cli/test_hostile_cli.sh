#!/usr/bin/env bash
# What a new user and a crafted input find (bounded work, ids that stay JSON, output paths and
# formats): `layout check` of a coordinate-free graph prints a bounded report and counts every
# violation exactly (against a brute-force count in Python); edge-list ids are written as JSON
# strings unless they are canonical integers, and a checkpoint made of them resumes.
data=${TSR_DATA:-../shared/data}
. "${TSR_TESTS:?TSR_TESTS must name the tests folder}/cli/lib.sh"
py=/usr/bin/python3

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

finish test_hostile_cli
