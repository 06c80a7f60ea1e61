#!/usr/bin/env bash
# The include rules of docs/ARCHITECTURE.md, checked over the tracked sources:
#   core      includes only core, the public headers, and the device handles' C interfaces
#             (cuda/cuda_device.h, opencl/opencl_device.h: the context opens and closes them);
#   io        includes core and io;
#   cuda, opencl (device toolboxes) include core and themselves;
#   a domain  (every other folder of src/) includes core, io, the toolboxes and itself, never
#             another domain;
#   src/      never includes tools/, dev/, bench/ or tests/;
#   tools/    (the CLI) includes only the public headers (tessera/...) and its own files.
# Skips (77) outside a git checkout (the file list is git's).
set -u
root=${TSR_SOURCE_DIR:?TSR_SOURCE_DIR is not set}
cd "$root" || exit 1
if ! git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    echo "test_layers: $root is not a git checkout; skipping"
    exit 77
fi
bad=0
toolboxes="cuda opencl"
allowed() { # area of the including file, included path -> 0 when allowed
    local area=$1 inc=$2 top=${2%%/*}
    [ "$top" = "$inc" ] && return 0                      # a header beside the file
    case $top in tessera) return 0 ;; esac               # the public headers
    [ "$top" = "$area" ] && return 0
    case $area in
    core) [ "$inc" = cuda/cuda_device.h ] || [ "$inc" = opencl/opencl_device.h ] ;;
    io) [ "$top" = core ] ;;
    cuda | opencl) [ "$top" = core ] ;;
    *) case " core io $toolboxes " in *" $top "*) return 0 ;; esac; return 1 ;;
    esac
}
while IFS= read -r f; do
    area=$(echo "$f" | cut -d/ -f2)
    while IFS= read -r inc; do
        case $inc in tools/* | dev/* | bench/* | tests/*)
            echo "$f includes $inc: library code never includes tools/, dev/, bench/ or tests/"
            bad=1; continue ;;
        esac
        [ -d "src/${inc%%/*}" ] || [ "${inc%%/*}" = tessera ] || [ "${inc%%/*}" = "$inc" ] || continue
        if ! allowed "$area" "$inc"; then
            echo "$f includes $inc: $area may not include ${inc%%/*} (docs/ARCHITECTURE.md)"
            bad=1
        fi
    done < <(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f")
done < <(git ls-files 'src/*.c' 'src/*.h' 'src/*.cu' 'src/*.cuh' 'src/*.cl')
while IFS= read -r f; do
    while IFS= read -r inc; do
        case $inc in tessera/* | */*) ;; *) continue ;; esac
        case $inc in tessera/*) ;; *)
            echo "$f includes $inc: the CLI uses the public headers only (tessera/...)"; bad=1 ;;
        esac
    done < <(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f")
done < <(git ls-files 'tools/*.c' 'tools/*.h')
[ $bad -eq 0 ] && echo "test_layers: the include rules hold"
exit $bad
