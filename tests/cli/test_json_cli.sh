#!/usr/bin/env bash
# `--json` on every sub-command that has results: each prints one valid JSON object on stdout
# naming its command (migrate's are covered by test_migrate_cli.sh, which has the data).
tests=${TSR_TESTS:?TSR_TESTS must name the tests folder}
. "$tests/cli/lib.sh"
sample=$tests/data/sample.png
valid_json() { "$py" -c 'import json, sys; d = json.load(sys.stdin); sys.exit(0 if sys.argv[1] in d.get("command", "") or "file" in d else 1)' "$1" <"$tmp/out.txt"; }
printf 'a b\nb c\nc a\nc d\n' >"$tmp/e.txt"
run() { # NAME ARGS...: exit 0 and one JSON object naming NAME
  local name=$1; shift
  expect 0 "$tool" "$@" --json
  [ "$(grep -c . "$tmp/out.txt")" -ge 1 ] && valid_json "$name" && ok || bad "--json of $name: $(head -c 200 "$tmp/out.txt")"
}
if "$py" -c 'import json' 2>/dev/null; then
  run resize resize "$sample" "$tmp/r.png" --size 20x
  run carve carve "$sample" "$tmp/c.png" --width 150
  run "j2k encode" j2k encode "$sample" "$tmp/s.j2k"
  run "j2k decode" j2k decode "$tmp/s.j2k" "$tmp/d.png"
  run info j2k info "$tmp/s.j2k"
  run "layout optimize" layout optimize "$tmp/e.txt" "$tmp/o.json" --moves 100 --quiet
  run "layout render" layout render "$tmp/o.json" "$tmp/o.svg"
  run check layout check "$tmp/o.json"
else
  echo "note: "$py" has no json module; skipped" >&2
fi
expect 2 "$tool" layout render "$tmp/o.json" - --json
grep -q "both write to standard output" "$tmp/err.txt" && ok || bad "--json with OUT -: message"
finish test_json_cli
