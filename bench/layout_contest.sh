#!/bin/sh
# Quality run of `tessera layout optimize` on the GD 2025 contest instances: one run per instance,
# one at a time, then `layout check --json` on the output. Prints a markdown table row per instance
# (k, n_K, C, validity, wall and CPU seconds).
# Usage: bench/layout_contest.sh TESSERA OUTDIR SECONDS [SEED] [INSTANCES...]
#   INSTANCES (N:INIT) default to "1:auto 2:auto ... 9:auto" (the optimizer's default start).
set -eu
bin=$1 out=$2 secs=$3 seed=${4:-1}
shift 3; [ $# -gt 0 ] && shift
data=$(dirname "$0")/../../shared/data/graphs/gd2025-contest
list=${*:-"1:auto 2:auto 3:auto 4:auto 5:auto 6:auto 7:auto 8:auto 9:auto"}
mkdir -p "$out"
echo "| instance | init | valid | k | n_K | C | wall s | cpu s |"
echo "|---|---|---|---|---|---|---|---|"
for item in $list; do
    i=${item%%:*} init=${item#*:}
    o=$out/A$i-$init.json
    t=$( { /usr/bin/time -f '%e %U %S' "$bin" layout optimize "$data/Automatic-$i.json" "$o" \
        --time "$secs" --seed "$seed" --init "$init" --backend cpu --threads 1 --quiet; } 2>&1 | tail -1)
    r=$("$bin" layout check "$o" --json | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["valid"], d["K"], d["n_K"], d["C"])')
    set -- $r $t
    echo "| A$i | $init | $1 | $2 | $3 | $4 | $5 | $(echo "$6 + $7" | bc) |"
done
