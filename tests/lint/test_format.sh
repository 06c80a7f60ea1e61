#!/usr/bin/env bash
# Every tracked C, header and CUDA source is formatted by the project's .clang-format (STYLE.md):
# `make format` fixes what this reports. Skips (77) without clang-format or outside a git
# checkout (the file list is git's).
set -u
root=${TSR_SOURCE_DIR:?TSR_SOURCE_DIR is not set}
if ! command -v clang-format >/dev/null; then
    echo "test_format: clang-format is not installed; skipping"
    exit 77
fi
cd "$root" || exit 1
if ! git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    echo "test_format: $root is not a git checkout; skipping"
    exit 77
fi
bad=0
while IFS= read -r f; do
    if ! clang-format --dry-run -Werror "$f" >/dev/null 2>&1; then
        echo "not formatted: $f (clang-format -i $f)"
        bad=1
    fi
done < <(git ls-files '*.c' '*.h' '*.cu' '*.cuh')
[ $bad -eq 0 ] && echo "test_format: $(git ls-files '*.c' '*.h' '*.cu' '*.cuh' | wc -l) files formatted"
exit $bad
