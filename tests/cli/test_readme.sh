#!/usr/bin/env bash
# The README's examples work as written: its C program compiles against the library and runs,
# and every `build/tools/tessera/tessera` line of its shell examples (and `mpirun -np N` before
# one) runs and exits 0.
lib=${TSR_LIBRARY:?}; tests=${TSR_TESTS:?}; data=${TSR_DATA:-}
. "$tests/cli/lib.sh"
root=$(cd "$tests/.." && pwd)

# The C example: the first ```c block.
awk '/^```c$/{f=1;next} /^```$/{if(f)exit} f' "$root/README.md" >"$tmp/example.c"
[ -s "$tmp/example.c" ] && ok || bad "README has a C example"
if cc -std=c11 -Wall -Werror ${TSR_TEST_CFLAGS:-} -I"$root/include" "$tmp/example.c" -o "$tmp/example" \
      "$lib" -Wl,-rpath,"$(dirname "$lib")" 2>"$tmp/cc.txt"; then ok; else bad "C example compiles"; cat "$tmp/cc.txt" >&2; fi
if [ -x "$tmp/example" ] && "$tmp/example" "$tests/data/sample.png" "$tmp/half.png" && [ -s "$tmp/half.png" ]; then
  ok; else bad "C example runs"; fi

# The shell examples, run from a copy of the repository's relative layout; the mpirun lines where
# mpirun is installed, allowed to run as root (CI) and on fewer cores than ranks.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
mkdir -p "$tmp/work/build/tools/tessera" "$tmp/work/tests" "$tmp/shared"
ln -s "$tool" "$tmp/work/build/tools/tessera/tessera"
ln -s "$tests/data" "$tmp/work/tests/data"
[ -n "$data" ] && [ -d "$data" ] && ln -s "$data" "$tmp/shared/data"
mkdir -p "$tmp/work/out"
skipped_outputs=" " # out/ files of skipped lines: a later line reading one is skipped too
while IFS= read -r line; do
  if [[ "$line" == *../shared/data* ]] && [ ! -e "$tmp/shared/data" ]; then
    echo "note: skipping (no shared data): $line" >&2
    for w in $line; do [[ "$w" == out/* ]] && skipped_outputs+="$w "; done
    continue
  fi
  if [[ "$line" == mpirun* ]] && ! command -v mpirun >/dev/null 2>&1; then
    echo "note: skipping (no mpirun): $line" >&2
    continue
  fi
  needs=
  for w in $line; do [[ "$skipped_outputs" == *" $w "* ]] && needs=$w; done
  if [ -n "$needs" ]; then
    echo "note: skipping (reads $needs, which a skipped line writes): $line" >&2
    for w in $line; do [[ "$w" == out/* ]] && skipped_outputs+="$w "; done
    continue
  fi
  # mpirun lines: leak checking off for the ranks under ASan (OpenMPI's own allocations at exit;
  # see test_migrate_mpi_cli.sh)
  env=; [[ "$line" == mpirun* ]] && env="ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 "
  if (cd "$tmp/work" && eval "$env$line" >/dev/null 2>"$tmp/err.txt"); then ok; else bad "README line fails: $line"; cat "$tmp/err.txt" >&2; fi
done < <(grep -E '^(mpirun -np [0-9]+ )?build/tools/tessera/tessera ' "$root/README.md")

finish test_readme
