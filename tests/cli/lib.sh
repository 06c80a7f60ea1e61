# Shared by the CLI tests (sourced): a temporary folder removed on exit, pass/fail counters,
# `expect CODE CMD...` (runs CMD with stdout/stderr in $tmp/out.txt and $tmp/err.txt and checks
# its exit code), and `finish NAME` (prints "N passed, M failed" and exits non-zero on failure).
set -u
tool=${TSR_TOOL:?TSR_TOOL must name the tessera binary}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok()  { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }
expect() {
  local want=$1; shift
  "$@" >"$tmp/out.txt" 2>"$tmp/err.txt"
  local got=$?
  if [ "$got" -eq "$want" ]; then ok; else bad "exit $got (want $want): $*"; cat "$tmp/err.txt" >&2; fi
}
finish() {
  echo "$1: $pass passed, $fail failed"
  [ "$fail" -eq 0 ]
  exit $?
}
