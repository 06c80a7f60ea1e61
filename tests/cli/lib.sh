# Shared by the CLI tests (sourced): a temporary folder removed on exit, pass/fail counters,
# `expect CODE CMD...` (runs CMD with stdout/stderr in $tmp/out.txt and $tmp/err.txt and checks
# its exit code), `expect_stopped CMD...` (below), and `finish NAME` (prints "N passed, M failed" and exits non-zero on failure).
set -u
tool=${TSR_TOOL:?TSR_TOOL must name the tessera binary}
py=${TSR_PYTHON:-/usr/bin/python3} # Python with numpy and cv2 (the build's TSR_PYTHON)
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
# `expect_stopped CMD...`: CMD (whose outputs go to "$tmp/stop/") gets SIGTERM half a second
# after it starts and must exit 130 leaving that folder empty (no output, no temporary file).
expect_stopped() {
  rm -rf "$tmp/stop"; mkdir "$tmp/stop"
  "$@" >"$tmp/out.txt" 2>"$tmp/err.txt" &
  local pid=$!
  sleep 0.5
  kill -TERM $pid
  wait $pid
  local got=$?
  [ "$got" -eq 130 ] && ok || bad "exit $got (want 130) after SIGTERM: $*"
  grep -q "interrupted by SIGTERM" "$tmp/err.txt" && ok || bad "no 'interrupted' message: $*"
  [ -z "$(ls -A "$tmp/stop")" ] && ok || bad "SIGTERM left files: $(ls -A "$tmp/stop")"
}
finish() {
  echo "$1: $pass passed, $fail failed"
  [ "$fail" -eq 0 ]
  exit $?
}
