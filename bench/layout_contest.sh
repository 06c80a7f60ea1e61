#!/bin/sh
# Quality run of `tessera layout optimize` on the GD 2025 contest instances: one run per instance,
# one at a time, then `layout check --json` on the output. Prints a markdown table row per instance
# (k, n_K, C, validity, wall and CPU seconds, moves summed over the chains, the chains and the
# one whose drawing was kept, and the proposals per second of the search summed over the chains:
# the mean of the progress lines' moves/s, from the log kept in OUTDIR/A<i>-<init>.log).
# Usage: bench/layout_contest.sh TESSERA OUTDIR SECONDS [SEED] [INSTANCES...]
#   INSTANCES (N:INIT) default to "1:auto 2:auto ... 9:auto" (the optimizer's default start).
#   env: LAYOUT_BACKEND (default cpu; cuda scores the moves in batches on the GPU),
#        LAYOUT_CHAINS (default: the optimizer's, one chain per core; 1 = the one-chain walk of
#        the tables before 2026-11-30, which ran with --threads 1),
#        LAYOUT_DATA (default ../shared/data/graphs/gd2025-contest beside the repository).
set -eu
bin=$1 out=$2 secs=$3 seed=${4:-1}
shift 3; [ $# -gt 0 ] && shift
data=${LAYOUT_DATA:-$(dirname "$0")/../../shared/data/graphs/gd2025-contest}
backend=${LAYOUT_BACKEND:-cpu}
chains=${LAYOUT_CHAINS:+--chains $LAYOUT_CHAINS}
list=${*:-"1:auto 2:auto 3:auto 4:auto 5:auto 6:auto 7:auto 8:auto 9:auto"}
mkdir -p "$out"
echo "| instance | init | backend | valid | k | n_K | C | wall s | cpu s | moves | chains: kept | proposals/s |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
for item in $list; do
    i=${item%%:*} init=${item#*:}
    o=$out/A$i-$init.json log=$out/A$i-$init.log
    /usr/bin/time -o "$out/A$i-$init.time" -f '%e %U %S' "$bin" layout optimize \
        "$data/Automatic-$i.json" "$o" --time "$secs" --seed "$seed" --init "$init" \
        --backend "$backend" $chains 2>"$log" || true
    r=$("$bin" layout check "$o" --json | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["valid"], d["K"], d["n_K"], d["C"])')
    # the search's rate: mean of the progress lines' moves/s (one line per second of search)
    rate=$(sed -n 's/.* \([0-9]*\) moves\/s$/\1/p' "$log" | awk '{s += $1; n++} END {print n ? int(s / n) : "-"}')
    moves=$(sed -n 's/.* \([0-9]*\) moves, .*/\1/p' "$log" | tail -1)
    kept=$(sed -n 's/.*best of \([0-9]*\) chains*: \([0-9]*\))$/\1: \2/p' "$log" | tail -1)
    set -- $r $(cat "$out/A$i-$init.time")
    echo "| A$i | $init | $backend | $1 | $2 | $3 | $4 | $5 | $(echo "$6 $7" | awk "{print \$1 + \$2}") | ${moves:--} | ${kept:--} | $rate |"
done
