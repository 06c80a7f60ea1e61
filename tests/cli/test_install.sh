#!/usr/bin/env bash
# `cmake --install` (what `make install` runs) into a temporary prefix gives the library, headers,
# the tool, manual pages and a pkg-config file with which the README's C example builds and runs.
tests=${TSR_TESTS:?}; build=${TSR_BUILD_DIR:?}
. "$tests/cli/lib.sh"
root=$(cd "$tests/.." && pwd)
prefix=$tmp/prefix
if cmake --install "$build" --prefix "$prefix" >"$tmp/install.txt" 2>&1; then ok; else bad "install"; cat "$tmp/install.txt" >&2; fi
for f in bin/tessera include/tessera/tessera.h include/tessera/resize.h share/man/man1/tessera.1 \
         share/man/man1/tessera-resize.1; do
  [ -e "$prefix/$f" ] && ok || bad "installed $f"
done
pc=$(find "$prefix" -name tessera.pc | head -1)
[ -n "$pc" ] && ok || bad "installed tessera.pc"
libdir=$(dirname "$(find "$prefix" -name 'libtessera.so' | head -1)")
awk '/^```c$/{f=1;next} /^```$/{if(f)exit} f' "$root/README.md" >"$tmp/example.c"
export PKG_CONFIG_PATH=$(dirname "$pc")${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH} # the caller's own path after it: dependencies outside the default places
if cc -std=c11 ${TSR_TEST_CFLAGS:-} "$tmp/example.c" $(pkg-config --cflags --libs tessera) \
      -Wl,-rpath,"$libdir" -o "$tmp/example" 2>"$tmp/cc.txt"; then ok; else bad "example builds with pkg-config"; cat "$tmp/cc.txt" >&2; fi
[ -x "$tmp/example" ] && "$tmp/example" "$tests/data/sample.png" "$tmp/half.png" && [ -s "$tmp/half.png" ] && ok || bad "example runs"
"$prefix/bin/tessera" --version >/dev/null && ok || bad "installed tool runs"
finish test_install
