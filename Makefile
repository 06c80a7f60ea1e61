# The two commands the README opens with, and a few conveniences. CMake does the building.
#   make demo   install what is missing, build, run every command on sample data into out/
#   make test   install what is missing, build, run the whole test suite
BUILD      ?= build
BUILD_ASAN ?= build-asan
JOBS       ?= $(shell nproc)
PREFIX     ?= /usr/local
# CUDA architectures; empty = the CMake default (sm_80, 86, 89, 90 and PTX), as CI builds.
# A single one (CUDA_ARCHS=90) builds faster for work on one GPU.
CUDA_ARCHS ?=
CMAKE_FLAGS = -DCMAKE_BUILD_TYPE=Release $(if $(CUDA_ARCHS),-DTSR_CUDA_ARCHS=$(CUDA_ARCHS))
export PATH := $(PATH):/usr/local/cuda/bin

.PHONY: all deps build demo test test-asan install bench format clean

all: build

deps:
	@scripts/deps.sh

build: deps
	cmake -S . -B $(BUILD) $(CMAKE_FLAGS) >/dev/null
	cmake --build $(BUILD) -j $(JOBS)

demo: build
	scripts/demo.sh $(BUILD)/tools/tessera/tessera

# The whole suite: the normal build (all labels; GPU tests skip without a GPU), the CLI tests
# again with the CPU backend forced, then an ASan/UBSan build (CPU paths) of the unit and CLI tests.
test: build
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS)
	TSR_BACKEND=cpu ctest --test-dir $(BUILD) --output-on-failure -L cli
	$(MAKE) --no-print-directory test-asan

test-asan: deps
	cmake -S . -B $(BUILD_ASAN) -DCMAKE_BUILD_TYPE=Debug -DTSR_SANITIZE=ON -DTSR_ENABLE_CUDA=OFF >/dev/null
	cmake --build $(BUILD_ASAN) -j $(JOBS)
	ctest --test-dir $(BUILD_ASAN) --output-on-failure -j $(JOBS) -L "unit|cli"

install: build
	cmake --install $(BUILD) --prefix $(PREFIX)

bench: build
	/usr/bin/python3 bench/bench_resize.py --bench $(BUILD)/bench/bench_resize

# clang-format over every tracked C, header and CUDA source (the lint test checks it)
format:
	git ls-files '*.c' '*.h' '*.cu' '*.cuh' | xargs clang-format -i

clean:
	rm -rf $(BUILD) $(BUILD_ASAN) out
