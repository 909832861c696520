# tpu-model: a cycle-accurate C model and Verilog RTL of one TPU-style core.
#
#   make            build the tools into build/bin
#   make demo       the main job (see README.md)
#   make test       every test; `make test SAN=1` under AddressSanitizer + UBSan
#   make deps       install missing Debian packages (as root) or print the command
#   make generate   refresh the files generated from cmodel/isa.def
#   make fuzz       run the fuzz targets for longer (FUZZ_SECONDS per target)
#
# Object files go to build/ (build-san/ with SAN=1); nothing is rebuilt that
# has not changed.

SHELL      := /bin/bash
CC         ?= gcc
CLANG      ?= clang
SAN        ?= 0
OPT        ?= -O2
CFLAGS_STD := -std=c11 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Werror -g $(OPT)
DEPFLAGS    = -MMD -MP
INCLUDES   := -Icmodel -Isim

ifeq ($(SAN),1)
BUILD      := build-san
SANFLAGS   := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
else
BUILD      := build
SANFLAGS   :=
endif

CFLAGS     := $(CFLAGS_STD) $(SANFLAGS) $(INCLUDES) $(EXTRA_CFLAGS)
LDFLAGS    := $(SANFLAGS)
LDLIBS     := -lm

BIN        := $(BUILD)/bin
GEN        := $(BUILD)/gen

# ---- sources ------------------------------------------------------------
# The library: the C model (cmodel/) and the tool internals (sim/*.c other
# than the tpu_*.c front ends, which each become one command).
MODEL_SRCS := $(wildcard cmodel/*.c)
TOOL_MAINS := $(wildcard sim/tpu_*.c)
TOOL_SRCS  := $(filter-out $(TOOL_MAINS),$(wildcard sim/*.c))
LIB_SRCS   := $(MODEL_SRCS) $(TOOL_SRCS)
LIB_OBJS   := $(LIB_SRCS:%.c=$(BUILD)/%.o) $(GEN)/presets.o
LIB        := $(BUILD)/libtpu.a

# sim/tpu_as.c -> build/bin/tpu-as
TOOLS      := $(foreach m,$(TOOL_MAINS),$(BIN)/$(subst _,-,$(basename $(notdir $(m)))))

TEST_SRCS  := $(wildcard tests/test_*.c)
TEST_BINS  := $(TEST_SRCS:tests/%.c=$(BUILD)/tests/%)

PROGRAMS   := $(wildcard programs/*.s)

.PHONY: all deps demo test test-unit check-generated generate roundtrip fuzz fuzz-smoke clean help
.DEFAULT_GOAL := all

all: $(TOOLS)

help:
	@sed -n '3,11p' Makefile | sed 's/^# \{0,1\}//'

# ---- build ----------------------------------------------------------------
$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(DEPFLAGS) -c $< -o $@

# Config presets (cmodel/configs/*.cfg) are compiled in, so every tool
# finds them from any directory.
PRESET_FILES := $(sort $(wildcard cmodel/configs/*.cfg))
$(GEN)/presets.c: $(PRESET_FILES) Makefile
	@mkdir -p $(dir $@)
	@{ echo '/* generated from cmodel/configs/*.cfg by the Makefile; do not edit */'; \
	   echo '#include "config.h"'; \
	   echo 'const tpu_config_preset tpu_config_presets[] = {'; \
	   for f in $(PRESET_FILES); do \
	     n=$$(basename $$f .cfg); \
	     printf '  { "%s",\n' "$$n"; \
	     sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/    "/' -e 's/$$/\\n"/' $$f; \
	     echo '  },'; \
	   done; \
	   echo '  { 0, 0 }'; echo '};'; } > $@.tmp && mv $@.tmp $@

$(GEN)/presets.o: $(GEN)/presets.c
	$(CC) $(CFLAGS) -c $< -o $@

$(LIB): $(LIB_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(BIN)/tpu-%: $(BUILD)/sim/tpu_%.o $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/tests/%: tests/%.c $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(DEPFLAGS) -Itests -o $@ $< $(LIB) $(LDFLAGS) $(LDLIBS) -lcmocka

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)

# ---- generated files (from cmodel/isa.def) -----------------------------
GENERATED := docs/isa.md rtl/tpu_isa.vh

generate: $(BIN)/tpu-isagen
	$(BIN)/tpu-isagen --markdown > docs/isa.md
	$(BIN)/tpu-isagen --verilog > rtl/tpu_isa.vh

check-generated: $(BIN)/tpu-isagen
	@fail=0; \
	$(BIN)/tpu-isagen --markdown | cmp -s - docs/isa.md || { echo "docs/isa.md is stale: run 'make generate'"; fail=1; }; \
	$(BIN)/tpu-isagen --verilog | cmp -s - rtl/tpu_isa.vh || { echo "rtl/tpu_isa.vh is stale: run 'make generate'"; fail=1; }; \
	[ $$fail = 0 ] && echo "check-generated: docs/isa.md and rtl/tpu_isa.vh are up to date"; exit $$fail

# ---- set-up ------------------------------------------------------------
deps:
	@bash sim/install-deps.sh

# ---- the main job ------------------------------------------------------
demo: deps all
	@bash sim/demo.sh $(BIN)

# ---- tests -------------------------------------------------------------
test: deps all $(TEST_BINS)
	@$(MAKE) --no-print-directory check-generated
	@bash tests/run-unit.sh $(BUILD)/tests
	@bash tests/roundtrip.sh $(BIN) $(BUILD)/roundtrip
	@bash tests/cli.sh $(BIN)
	@$(MAKE) --no-print-directory fuzz-smoke

roundtrip: all
	@bash tests/roundtrip.sh $(BIN) $(BUILD)/roundtrip

# ---- fuzzing (libFuzzer, clang) ---------------------------------------
FUZZ_SECONDS       ?= 600
FUZZ_SMOKE_SECONDS ?= 30
FUZZ_BUILD         := build-fuzz
FUZZ_TARGETS       := $(patsubst tests/fuzz/fuzz_%.c,$(FUZZ_BUILD)/fuzz_%,$(wildcard tests/fuzz/fuzz_*.c))
FUZZ_LIB_SRCS      := $(LIB_SRCS)

$(FUZZ_BUILD)/fuzz_%: tests/fuzz/fuzz_%.c $(FUZZ_LIB_SRCS) $(GEN)/presets.c
	@mkdir -p $(dir $@)
	$(CLANG) -std=c11 -D_POSIX_C_SOURCE=200809L -g -O1 -fsanitize=fuzzer,address,undefined \
	  $(INCLUDES) -o $@ $< $(FUZZ_LIB_SRCS) $(GEN)/presets.c -lm

fuzz-smoke: $(FUZZ_TARGETS)
	@bash tests/fuzz/run.sh $(FUZZ_BUILD) $(FUZZ_SMOKE_SECONDS)

fuzz: $(FUZZ_TARGETS)
	@bash tests/fuzz/run.sh $(FUZZ_BUILD) $(FUZZ_SECONDS)

clean:
	rm -rf build build-san build-fuzz
