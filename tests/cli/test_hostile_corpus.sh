#!/usr/bin/env bash
# The hostile-input suite (tests/hostile/hostile.py): a corpus generated from a fixed seed
# (truncations, bit flips, header lies, bombs of every input kind) run through every reader of
# the tool, each run checked for its exit status, a one-line error, bounded time and memory and
# nothing left behind. A sanitized build (the tool links libasan) runs the --quick corpus under
# the sanitizer bounds, which the script applies itself.
tests=${TSR_TESTS:?TSR_TESTS must name the tests folder}
tool=${TSR_TOOL:?TSR_TOOL must name the tessera binary}
py=${TSR_PYTHON:-/usr/bin/python3}
[ -x "$py" ] || { echo "note: no $py; skipped" >&2; exit 77; }
quick=
if [ "${TSR_HOSTILE_SANITIZED:-0}" = 1 ] || ldd "$tool" 2>/dev/null | grep -q libasan; then
  quick=--quick
fi
exec "$py" "$tests/hostile/hostile.py" --tool "$tool" $quick
