# cuzk build.  `make` builds build/cuzk and the library; `make test` builds
# and runs the unit and known-answer tests; `make asan` does the same under
# AddressSanitizer/UBSan into build-asan/.  Sources are found by wildcard, so
# a new .c file under src/ needs no edit here.

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

LIB_OBJ  := $(LIB_SRC:%.c=$(BUILD)/%.o)
CLI_OBJ  := $(CLI_SRC:%.c=$(BUILD)/%.o)
TEST_BIN := $(TEST_SRC:tests/%.c=$(BUILD)/tests/%)
HARNESS  := $(BUILD)/tests/harness.o

.PHONY: all test asan clean tests
all: $(BUILD)/cuzk tests

$(BUILD)/libcuzk.a: $(LIB_OBJ)
	@mkdir -p $(dir $@)
	$(AR) rcs $@ $^

$(BUILD)/cuzk: $(CLI_OBJ) $(BUILD)/libcuzk.a
	$(CC) $(CFLAGS) -o $@ $(CLI_OBJ) $(BUILD)/libcuzk.a $(LDLIBS)

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c -o $@ $<

$(BUILD)/tests/harness.o: tests/harness.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Itests -c -o $@ $<

$(BUILD)/tests/%: tests/%.c $(HARNESS) $(BUILD)/libcuzk.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Itests -o $@ $< $(HARNESS) $(BUILD)/libcuzk.a $(LDLIBS)

tests: $(TEST_BIN)

test: all
	tests/run_unit.sh $(BUILD)

asan:
	$(MAKE) BUILD=build-asan OPT="-O1 -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=undefined" all

clean:
	rm -rf build build-asan

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
