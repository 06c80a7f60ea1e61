#!/usr/bin/env bash
# Installs the Debian packages tessera needs to build, test and benchmark (Debian 12).
# As root: installs what is missing with apt-get. Otherwise: prints the exact apt-get line and
# fails, so nothing is half-done. CUDA is not a Debian package here: the CUDA backend is built
# when nvcc is on PATH or in /usr/local/cuda/bin.
set -euo pipefail

packages=(
  cmake make gcc pkg-config              # build
  libpng-dev libjpeg62-turbo-dev zlib1g-dev libtiff-dev libwebp-dev  # image I/O
  ocl-icd-opencl-dev opencl-headers pocl-opencl-icd  # OpenCL backend, tested on the CPU by PoCL
  python3-numpy python3-opencv           # oracle tests and benchmark peers (/usr/bin/python3)
  clang libclang-rt-14-dev               # libFuzzer targets
  clang-format                           # the formatting test (tests/lint)
  libopenjp2-tools grokj2k-tools openjph-tools  # JPEG 2000 cross-checks and benchmark peers
  imagemagick                            # carve benchmark peer (-liquid-rescale, liblqr)
  libfftw3-dev libsegyio-dev             # migrate: FFTs along time and x, SEG-Y through segyio
  openmpi-bin libopenmpi-dev             # migrate image under mpirun: shots split across ranks
  libjansson-dev libexpat1-dev libgraphviz-dev  # layout readers: contest JSON, GraphML, DOT (cgraph)
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

line="apt-get install -y --no-install-recommends ${missing[*]}"
if [ "$(id -u)" -ne 0 ]; then
  echo "tessera needs these Debian packages; as root run:" >&2
  echo "  apt-get update && $line" >&2
  exit 1
fi
echo "installing: ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
