# cuzk build.  `make` builds build/cuzk and the library; `make test` builds
# and runs the unit and known-answer tests and the GPU tests; `make asan`
# does the same under AddressSanitizer/UBSan into build-asan/.  Sources are
# found by wildcard, so a new .c (or src/cuda/*.cu) file needs no edit here.
#
# CUDA: when nvcc is found at $(NVCC) (default /usr/local/cuda/bin/nvcc) the
# CUDA backend (src/cuda/*.cu) is compiled into the library for sm_90 and
# the CUDA runtime is linked statically, so the binaries need only the
# driver.  `make CUDA=0` (or no nvcc) gives a CPU-only build, in which
# src/cuda/nocuda.c answers the CUDA entry points with "not compiled".

BUILD    ?= build
CC       ?= cc
OPT      ?= -O3
ARCH     ?= -march=x86-64-v3 -madx
CFLAGS   += -std=c11 -D_GNU_SOURCE $(OPT) $(ARCH) -g -Wall -Wextra -Wno-unused-parameter \
            -Wshadow -Wvla -fvisibility=hidden -Iinclude -Isrc -MMD -MP
LDLIBS   += -lpthread -lm
LDLIBS   += -lcjson

LIB_SRC  := $(sort $(filter-out src/cli/%,$(wildcard src/*/*.c src/*/*/*.c)))
CLI_SRC  := $(sort $(wildcard src/cli/*.c))
TEST_SRC := $(sort $(wildcard tests/unit/test_*.c tests/kat/test_*.c))
BENCH_SRC:= $(sort $(wildcard bench/bench_*.c))

# ---- CUDA ------------------------------------------------------------------
NVCC     ?= /usr/local/cuda/bin/nvcc
NVCC_BIN := $(shell command -v $(NVCC) 2>/dev/null)
ifeq ($(origin CUDA),undefined)
CUDA     := $(if $(NVCC_BIN),1,0)
endif
ifeq ($(CUDA),1)
ifeq ($(NVCC_BIN),)
$(error CUDA=1 but nvcc was not found at $(NVCC); set NVCC=/path/to/nvcc or CUDA=0)
endif
CUDA_LIB ?= $(dir $(NVCC_BIN))../lib64
# Device code for Hopper (H100/H200) only; cuzk_cuda_available() says so on
# an older GPU.  -lineinfo maps SASS back to source lines for profiling.
NVCC_ARCH ?= -gencode arch=compute_90,code=sm_90
NVCCFLAGS += -std=c++17 -O3 -lineinfo $(NVCC_ARCH) -Iinclude -Isrc \
             -Xcompiler -fvisibility=hidden -Xcompiler -Wall -Xcompiler -Wno-unknown-pragmas
CU_SRC   := $(sort $(wildcard src/cuda/*.cu))
LIB_SRC  := $(filter-out src/cuda/nocuda.c,$(LIB_SRC))
LDLIBS   += -L$(CUDA_LIB) -lcudart_static -ldl -lrt -lstdc++
else
CU_SRC   :=
endif
CU_OBJ   := $(CU_SRC:%.cu=$(BUILD)/%.o)
# GPU tests (harness) and GPU benchmarks (own main), built in every build:
# without CUDA they report that they skipped.  Linked --as-needed: they use
# no JSON, so they run where libcjson is not installed (the GPU machine).
GPU_TEST := $(patsubst tests/gpu/%.c,$(BUILD)/gpu/%,$(sort $(wildcard tests/gpu/test_*.c)))
GPU_BENCH:= $(patsubst tests/gpu/%.c,$(BUILD)/gpu/%,$(sort $(wildcard tests/gpu/bench_*.c)))

LIB_OBJ  := $(LIB_SRC:%.c=$(BUILD)/%.o) $(CU_OBJ)
CLI_OBJ  := $(CLI_SRC:%.c=$(BUILD)/%.o)
TEST_BIN := $(TEST_SRC:tests/%.c=$(BUILD)/tests/%)
HARNESS  := $(BUILD)/tests/harness.o

.PHONY: all test test-gpu asan clean tests gpu
all: $(BUILD)/cuzk tests gpu

$(BUILD)/libcuzk.a: $(LIB_OBJ)
	@mkdir -p $(dir $@)
	@rm -f $@  # no stale members (e.g. CUDA objects after a switch to CUDA=0)
	$(AR) rcs $@ $^

$(BUILD)/cuzk: $(CLI_OBJ) $(BUILD)/libcuzk.a
	$(CC) $(CFLAGS) -o $@ $(CLI_OBJ) $(BUILD)/libcuzk.a $(LDLIBS)

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c -o $@ $<

$(BUILD)/%.o: %.cu
	@mkdir -p $(dir $@)
	$(NVCC) $(NVCCFLAGS) -MMD -MP -MF $(@:.o=.d) -c -o $@ $<

$(BUILD)/tests/harness.o: tests/harness.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Itests -c -o $@ $<

$(BUILD)/tests/%: tests/%.c $(HARNESS) $(BUILD)/libcuzk.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Itests -o $@ $< $(HARNESS) $(BUILD)/libcuzk.a $(LDLIBS)

tests: $(TEST_BIN)

$(BUILD)/gpu/test_%: tests/gpu/test_%.c $(HARNESS) $(BUILD)/libcuzk.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Itests -o $@ $< $(HARNESS) -Wl,--as-needed $(BUILD)/libcuzk.a $(LDLIBS)

$(BUILD)/gpu/bench_%: tests/gpu/bench_%.c $(BUILD)/libcuzk.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $< -Wl,--as-needed $(BUILD)/libcuzk.a $(LDLIBS)

gpu: $(GPU_TEST) $(GPU_BENCH)

test: all
	tests/run_unit.sh $(BUILD)
	$(MAKE) --no-print-directory test-gpu

# Every GPU test binary; each test skips, with the reason, without a GPU.
test-gpu: $(GPU_TEST)
	@for t in $(GPU_TEST); do echo "== $$t"; $$t || exit 1; done

# CPU-only: the sanitizers see no device code, and CI saves a second nvcc pass.
asan:
	$(MAKE) BUILD=build-asan CUDA=0 OPT="-O1 -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=undefined" all

clean:
	rm -rf build build-asan build-nocuda

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
