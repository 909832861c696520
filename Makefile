# tpu-model: a cycle-accurate C model and Verilog RTL of one TPU-style core.
#
# The two commands (README.md):
#   make demo           the main job: install what is missing, build, run the
#                       example programs on tiny and v5e, then the tiled matmul
#                       on the RTL in lockstep (builds the Verilated core once)
#   make test           every test; `make test SAN=1` under AddressSanitizer +
#                       UBSan (JOBS=N compiles and tests at once: default, the
#                       CPUs); `make test T=NAME` one of tests/suite/NAME.t
#
# Build and set-up:
#   make                build the tools into build/bin
#   make deps           install missing Debian packages (as root) or print the
#                       command
#   make generate       refresh the files generated from cmodel/isa.def,
#                       rtl/trace_ports.def and rtl/queue_entry.def
#   make check-generated  fail when a generated file is stale
#   make clean          remove build/, build-san/, build-fuzz/, build-tsan/
#   make pylib          build/lib/libtpu.so for the Python package python/tpumodel
#                       (docs/python.md)
#
# See it run:
#   make roofline       measure the roofline of every preset (CSV, PNG, SVG)
#   make mpi            tpu-sim-mpi: the cores of a system over MPI ranks
#   make tsan           the host-thread runs under ThreadSanitizer
#   make collectives    the communication roofline: ring collectives on v5e
#                       rings of 4, 8, 16, a 4x4 torus and mesh, and the
#                       two-chip matmul's crossover D (CSV, PNG, SVG)
#   make bench          simulator, RTL and lockstep speed
#                       (BENCH_BUILD_TIME=1: also the Verilator build times
#                       of mid and tiny's 4-core system; BENCH_INSTR=1: host
#                       instructions per lockstep cycle, callgrind;
#                       BENCH_BIG=1: one MXU of 32, 64, 128 and 256 cells
#                       (hierarchical; 32 and 64 flat too) and v5e's core,
#                       built and run in lockstep, sim/rtl/big_bench.sh:
#                       about 1.5 CPU-hours)
#   make kernels-soak   200 random GEMMs 1..4096 from tpu-gen on v5e, each bit-exact
#   make kernels-soak-all  200 on each of tiny, mid, v5e in bf16, int8 and w8
#
# The RTL (sim/rtl/rtl.mk, sim/cosim/*.mk, sim/rtl_fp/rtl_fp.mk):
#   make rtl-lint       verilator --lint-only -Wall on the core and system
#   make rtl-build      the Verilated core and two-core top (RTL_CONFIG=tiny)
#   make rtl-test       every program on the RTL in lockstep (RTL_CONFIG; the
#                       runs: programs/manifest.txt)
#   make cosim-mid      every program in lockstep on the mid config's RTL
#   make cosim-random   COSIM_SEEDS random programs in lockstep
#   make soak           random programs in lockstep on tiny and mid for
#                       SOAK_SECONDS; cycles and programs per hour
#   make cosim-mutation the mutation test (lockstep must catch a broken MXU)
#   make mutants        every RTL mutant of sim/cosim/mutants.def against the
#                       lockstep regression: killed or survived, the kill rate
#   make cmutants       the C-model mutants of sim/cosim/cmutants.def against the
#                       RTL in lockstep and the fp code's plain reference
#   make coverage       line and toggle coverage of the RTL suite, per unit
#   make randprog-coverage  what the random programs exercise in ISA terms
#   make cosim-cli-test tpu-cosim's errors, exit statuses and Ctrl-C
#   make rtl-fp-test    the fp units against cmodel/fp.c, bit for bit
#   make synth          Yosys on the tiny config: cells per unit, no latches
#   make lab8-mutant    the broken RTL of lab 8 (docs/labs/08-find-the-bug.md)
#
# SystemC (sim/systemc/systemc.mk):
#   make systemc-build  the TLM-2.0 model, the virtual platform tpu-vp and
#                       the SystemC lockstep top
#   make systemc-test   their tests
#
# Fuzzing:
#   make fuzz           run the fuzz targets for longer (FUZZ_SECONDS each), keep the figures
#   make fuzz-report    the CPU seconds each fuzz target has had so far (tests/fuzz/log.tsv)
#
# Object files go to build/ (build-san/ with SAN=1, or BUILD=DIR); nothing is
# rebuilt that has not changed.

SHELL      := /bin/bash
CC         ?= gcc
CLANG      ?= clang
SAN        ?= 0
OPT        ?= -O2
CFLAGS_STD := -std=c11 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Werror -g $(OPT)
DEPFLAGS    = -MMD -MP
# The model's public headers are cmodel/include/tpu/ (docs/architecture.md);
# the tools and the tests of the API see only those of the model, so an
# `#include "core.h"` from a tool fails to compile (tests/boundary.sh).  The
# model sees its own headers (cmodel/) and the public ones, never a tool's.
# Every unit test in tests/ tests through the API; a white-box one would add
# MODEL_INCLUDES as a target-specific variable, with a comment saying why.
PUBLIC_INCLUDES := -Icmodel/include/tpu
MODEL_INCLUDES := -Icmodel $(PUBLIC_INCLUDES)
INCLUDES   := $(PUBLIC_INCLUDES) -Isim -Isim/asm -Isim/view -Isim/roofline -Isim/lab -Isim/kernels -Isim/data -Isim/net -Isim/collectives

ifeq ($(SAN),1)
BUILD      := build-san
SANFLAGS   := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
else
BUILD      := build
SANFLAGS   :=
endif

CFLAGS     := $(CFLAGS_STD) $(SANFLAGS) $(INCLUDES) $(EXTRA_CFLAGS)
MODEL_CFLAGS := $(CFLAGS_STD) $(SANFLAGS) $(MODEL_INCLUDES) $(EXTRA_CFLAGS)
LDFLAGS    := $(SANFLAGS)
LDLIBS     := -lm

BIN        := $(BUILD)/bin
GEN        := $(BUILD)/gen

# ---- sources ------------------------------------------------------------
# Two libraries: the C model (cmodel/, libtpumodel.a) and the tools'
# internals (libtpusim.a: sim/*.c, sim/asm/ the assembler and disassembler,
# sim/view/ what turns a run into something to read).  Each tpu_*.c (the
# front ends in sim/, the generators in sim/gen/) becomes one command.
MODEL_SRCS := $(wildcard cmodel/*.c)
TOOL_MAINS := $(wildcard sim/tpu_*.c sim/gen/tpu_*.c sim/cosim/tpu_*.c)
TOOL_SRCS  := $(filter-out $(TOOL_MAINS),$(wildcard sim/*.c sim/asm/*.c sim/view/*.c sim/roofline/*.c sim/lab/*.c sim/kernels/*.c sim/data/*.c sim/net/*.c sim/collectives/*.c))
LIB_SRCS   := $(MODEL_SRCS) $(TOOL_SRCS)
MODEL_OBJS := $(MODEL_SRCS:%.c=$(BUILD)/%.o) $(GEN)/presets.o
TOOL_OBJS  := $(TOOL_SRCS:%.c=$(BUILD)/%.o)
MODEL_LIB  := $(BUILD)/libtpumodel.a
TOOLS_LIB  := $(BUILD)/libtpusim.a
# Link order: the tools' library first, it calls the model.
LIB        := $(TOOLS_LIB) $(MODEL_LIB)

# sim/tpu_as.c -> build/bin/tpu-as, sim/gen/tpu_isagen.c -> build/bin/tpu-isagen
TOOLS      := $(foreach m,$(TOOL_MAINS),$(BIN)/$(subst _,-,$(basename $(notdir $(m)))))

TEST_SRCS  := $(wildcard tests/test_*.c)
TEST_BINS  := $(TEST_SRCS:tests/%.c=$(BUILD)/tests/%)

.PHONY: roofline
# Every preset (PRESETS, below); v4p at D = F = 2048, where W (8 MiB) fits
# its 16 MiB of VMEM for the W-in-VMEM sweep (docs/roofline.md).
ROOFLINE_ARGS_v4p := --d 2048 --f 2048
# tpuv1 (int8 only) with X and Y in VMEM: the paper's roofline, per byte of
# weight memory (docs/roofline.md, "int8").
ROOFLINE_ARGS_tpuv1 := --xy-vmem --d 512 --f 512
roofline: $(BIN)/tpu-roofline
	$(foreach p,$(PRESETS),$(BIN)/tpu-roofline --config $(p) $(ROOFLINE_ARGS_$(p)) --out $(BUILD)/roofline --img docs && ) true

# The cores on host threads (cmodel/parallel.c) under ThreadSanitizer: no
# data race in tests/test_parallel.c's runs on 1, 2, 3 and 8 threads.  One
# compile of the test with the model's sources, so -Icmodel for the model's.
TSAN_DIR := build-tsan
.PHONY: tsan
tsan: $(GEN)/presets.c
	@mkdir -p $(TSAN_DIR)
	$(CC) -std=c11 -D_POSIX_C_SOURCE=200809L -O1 -g -fsanitize=thread $(INCLUDES) -Icmodel -I$(GEN) \
	  -Itests -o $(TSAN_DIR)/test_parallel tests/test_parallel.c $(MODEL_SRCS) \
	  $(wildcard sim/asm/asm_*.c) sim/run.c sim/interrupt.c $(GEN)/presets.c -lcmocka -lm
	TSAN_OPTIONS=halt_on_error=1 $(TSAN_DIR)/test_parallel

.PHONY: collectives
collectives: $(BIN)/tpu-collectives
	$(BIN)/tpu-collectives --config v5e --out $(BUILD)/collectives --img docs
	$(BIN)/tpu-collectives --config v5e --matmul-2chip --out $(BUILD)/collectives --img docs

.PHONY: all deps demo test test-build check-generated generate roundtrip fuzz fuzz-smoke fuzz-report clean help bench \
        cosim-mid
.DEFAULT_GOAL := all

all: $(TOOLS)

# The comment at the top of this file, up to its first blank line.
help:
	@sed -n '3,/^$$/p' Makefile | sed -e 's/^# \{0,1\}//' -e '$$d'

# ---- build ----------------------------------------------------------------
$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(DEPFLAGS) -c $< -o $@

$(BUILD)/cmodel/%.o: cmodel/%.c
	@mkdir -p $(dir $@)
	$(CC) $(MODEL_CFLAGS) $(DEPFLAGS) -c $< -o $@

# Config presets (cmodel/configs/*.cfg) are compiled in, so every tool
# finds them from any directory.  Their order matters: an object runs by
# default on the first preset with its shape (tpu_obj_config_preset), so
# tiny, mid and v5e come first (v4p and v5p have v5e's shape), then the
# others by name.
PRESET_FIRST := tiny mid v5e
PRESET_FILES := $(PRESET_FIRST:%=cmodel/configs/%.cfg) \
                $(filter-out $(PRESET_FIRST:%=cmodel/configs/%.cfg),$(sort $(wildcard cmodel/configs/*.cfg)))
PRESETS      := $(basename $(notdir $(PRESET_FILES)))
$(GEN)/presets.c: $(PRESET_FILES) Makefile
	@mkdir -p $(dir $@)
	@{ echo '/* generated by the Makefile from the files in cmodel/configs/; do not edit */'; \
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
	$(CC) $(MODEL_CFLAGS) -c $< -o $@

# The page of tpu-sim --html (sim/view/html_page.html) as C strings, one a
# line, for sim/view/html.c.
$(GEN)/html_page.h: sim/view/html_page.html Makefile
	@mkdir -p $(dir $@)
	@{ echo '/* generated by the Makefile from sim/view/html_page.html; do not edit */'; \
	   echo 'static const char *const tpu_html_page[] = {'; \
	   sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/?/\\?/g' -e 's/^/    "/' -e 's/$$/\\n",/' $<; \
	   echo '    0'; echo '};'; } > $@.tmp && mv $@.tmp $@

$(BUILD)/sim/view/html.o: $(GEN)/html_page.h
$(BUILD)/sim/view/html.o: CFLAGS += -I$(GEN)

$(MODEL_LIB): $(MODEL_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(TOOLS_LIB): $(TOOL_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

# The tools' main objects are intermediates of this pattern rule: keep them,
# so that a second make has nothing to rebuild.
.SECONDARY: $(TOOL_MAINS:%.c=$(BUILD)/%.o)

# Static pattern rules: each command from its own folder (a stale .d of a
# file that moved cannot make make look for it in the old place).
FRONT_TOOLS := $(patsubst sim/tpu_%.c,$(BIN)/tpu-%,$(wildcard sim/tpu_*.c))
GEN_TOOLS   := $(patsubst sim/gen/tpu_%.c,$(BIN)/tpu-%,$(wildcard sim/gen/tpu_*.c))
COSIM_TOOLS := $(patsubst sim/cosim/tpu_%.c,$(BIN)/tpu-%,$(wildcard sim/cosim/tpu_*.c))

$(FRONT_TOOLS): $(BIN)/tpu-%: $(BUILD)/sim/tpu_%.o $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(GEN_TOOLS): $(BIN)/tpu-%: $(BUILD)/sim/gen/tpu_%.o $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(COSIM_TOOLS): $(BIN)/tpu-%: $(BUILD)/sim/cosim/tpu_%.o $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/tests/%: tests/%.c $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(DEPFLAGS) -Itests -o $@ $< $(LIB) $(LDFLAGS) $(LDLIBS) -lcmocka

-include $(wildcard $(BUILD)/cmodel/*.d $(BUILD)/sim/*.d $(BUILD)/sim/*/*.d $(BUILD)/tests/*.d \
                    $(BUILD)/systemc/*.d $(BUILD)/systemc/tests/*.d)

# The RTL floating-point units and their Verilator check against cmodel/fp.c.
include sim/rtl_fp/rtl_fp.mk
# tpu-sim over MPI ranks.
include sim/mpi/mpi.mk

# The RTL: lint, the Verilated core and its bench (build/rtl/CFG/), synthesis;
# then the co-simulation checks on top of it (random programs, mutation test).
# The Verilated benches link the plain (non-sanitizer) library, so `make test
# SAN=1` runs them through a SAN=0 sub-make.
include sim/rtl/rtl.mk
include sim/cosim/cosim.mk
include sim/cosim/mutants.mk
include sim/cosim/cmutants.mk
include sim/cosim/coverage.mk
all: $(BIN)/tpu-cosim
# The labs' RTL mutant (lab 8).
include sim/lab/lab.mk

# SystemC: the core as a TLM-2.0 target, the virtual platform, the SystemC lockstep top.
include sim/systemc/systemc.mk

# The Python package (python/tpumodel/, docs/python.md): both libraries
# again as position-independent objects in build/pic/, with the flat
# functions of sim/py/tpu_py.c, as one shared library for ctypes.  Always
# without sanitizers, whatever SAN says: a plain python3 loads it.
PIC_DIR    := build/pic
PYLIB      := build/lib/libtpu.so
PIC_CFLAGS  = $(CFLAGS_STD) -fPIC $(EXTRA_CFLAGS)
PIC_OBJS    = $(LIB_SRCS:%.c=$(PIC_DIR)/%.o) $(PIC_DIR)/gen/presets.o $(PIC_DIR)/sim/py/tpu_py.o
.PHONY: pylib python
pylib python: $(PYLIB)
$(PYLIB): $(PIC_OBJS)
	@mkdir -p $(dir $@)
	$(CC) -shared -Wl,--no-undefined -o $@.tmp $^ -lm -lpthread && mv $@.tmp $@
$(PIC_DIR)/cmodel/%.o: cmodel/%.c
	@mkdir -p $(dir $@)
	$(CC) $(PIC_CFLAGS) $(MODEL_INCLUDES) $(DEPFLAGS) -c $< -o $@
$(PIC_DIR)/sim/%.o: sim/%.c $(GEN)/html_page.h
	@mkdir -p $(dir $@)
	$(CC) $(PIC_CFLAGS) $(INCLUDES) -I$(GEN) $(DEPFLAGS) -c $< -o $@
$(PIC_DIR)/gen/presets.o: $(GEN)/presets.c
	@mkdir -p $(dir $@)
	$(CC) $(PIC_CFLAGS) $(MODEL_INCLUDES) -c $< -o $@
-include $(wildcard $(PIC_DIR)/cmodel/*.d $(PIC_DIR)/sim/*.d $(PIC_DIR)/sim/*/*.d)

# ---- generated files ----------------------------------------------------
# From cmodel/isa.def (the ISA), rtl/trace_ports.def (the trace port of core
# and system) and rtl/queue_entry.def (a dispatch queue entry): FILE:OPTION
# of tpu-isagen.  docs/rtl.md is partly generated (its two tables).
GENERATED_BY := docs/isa.md:--markdown rtl/tpu_isa.vh:--verilog rtl/seq_decode.vh:--seq-decode \
                rtl/vpu_decode.vh:--vpu-decode rtl/tpu_trace.vh:--trace \
                rtl/tpu_queue.vh:--queue
GENERATED := $(foreach g,$(GENERATED_BY),$(firstword $(subst :, ,$(g)))) docs/rtl.md

generate: $(BIN)/tpu-isagen
	@set -e; for g in $(GENERATED_BY); do \
	  echo "$(BIN)/tpu-isagen $${g#*:} > $${g%%:*}"; $(BIN)/tpu-isagen $${g#*:} > $${g%%:*}; done
	$(BIN)/tpu-isagen --rtl-doc docs/rtl.md > $(BUILD)/rtl.md.new && mv $(BUILD)/rtl.md.new docs/rtl.md

check-generated: $(BIN)/tpu-isagen
	@fail=0; \
	for g in $(GENERATED_BY); do \
	  $(BIN)/tpu-isagen $${g#*:} | cmp -s - $${g%%:*} || { echo "$${g%%:*} is stale: run 'make generate'"; fail=1; }; \
	done; \
	$(BIN)/tpu-isagen --rtl-doc docs/rtl.md > $(BUILD)/rtl.md.check && cmp -s $(BUILD)/rtl.md.check docs/rtl.md \
	  || { echo "docs/rtl.md's generated tables are stale: run 'make generate'"; fail=1; }; \
	[ $$fail = 0 ] && echo "check-generated: $(GENERATED) are up to date"; exit $$fail

# ---- set-up ------------------------------------------------------------
deps:
	@bash sim/scripts/install-deps.sh

# ---- the main job ------------------------------------------------------
demo: deps all
	@bash sim/scripts/demo.sh $(BIN)

bench: all systemc-build
	@$(MAKE) -s --no-print-directory -j$(JOBS) SAN=0 all build/rtl/tiny/rtl-bench build/rtl/mid/rtl-bench \
	  build/rtl/bare/mac-array-bench
	@BENCH_BUILD_TIME=$(BENCH_BUILD_TIME) BENCH_INSTR=$(BENCH_INSTR) BENCH_BIG=$(BENCH_BIG) bash sim/scripts/bench.sh $(BIN)

# ---- the second config ---------------------------------------------------
# Every program run of mid in programs/manifest.txt in lockstep on the RTL of
# the mid config (16 x 16, 2 MXUs; the two-core runs on its system), as
# rtl-test does on tiny.  The benches link the plain library (SAN=0).
# COSIM_MID_TWO=0 (make test) builds and runs the one-core bench only: the
# two-core top of mid takes about twice as long to build as the core.
COSIM_MID_TWO     ?= 1

cosim-mid: all
	@$(MAKE) -s --no-print-directory -j$(JOBS) SAN=0 all build/rtl/mid/rtl-bench \
	  $(if $(filter 0,$(COSIM_MID_TWO)),,build/rtl/mid/rtl-bench2)
	@ONE_CORE=$(if $(filter 0,$(COSIM_MID_TWO)),1,0) bash sim/rtl/run_tests.sh build/bin build/rtl/mid mid

# ---- tests -------------------------------------------------------------
# make test first builds everything it runs, JOBS (default: the number of
# CPUs) compiles at once: the C tools and tests, the SystemC objects, the
# fuzz targets and the Verilated models (tiny's core and its systems of two and four cores,
# tiny's meta-mutant core (the mutants' and the mutation test's), mid's core, the fp units;
# their Verilator makefiles share make's
# job slots).  The Verilated benches link the plain library, so with SAN=1
# they are built by a second, SAN=0 make.  Then it runs the tests in turn.
JOBS       ?= $(shell nproc 2>/dev/null || echo 2)
TEST_RTL    = build/rtl/tiny/rtl-bench build/rtl/tiny/rtl-bench2 build/rtl/tiny/rtl-bench4 \
              build/rtl/mid/rtl-bench \
              $(MUT_DIR)/tiny/rtl-bench $(CMUT_DIR)/tiny/rtl-bench $(CMUT_DIR)/test_fp \
              $(CMUT_DIR)/test_ref
TEST_BUILD  = all $(TEST_BINS) systemc-build $(FUZZ_TARGETS) $(RTL_FP_BIN) $(COSIM_TEST) $(MPI_BIN) $(PYLIB)

test-build: deps
	@$(MAKE) --no-print-directory -j$(JOBS) $(TEST_BUILD) $(if $(filter 0,$(SAN)),$(TEST_RTL))
	@$(if $(filter 0,$(SAN)),:,$(MAKE) --no-print-directory -j$(JOBS) SAN=0 all $(TEST_RTL))

# The tests are tests/suite/*.t, TAP producers run by prove (Debian's
# perl, TAP::Harness): JOBS at once, one summary, and each test's TAP in
# $(BUILD)/test-results/NAME.tap.  `make test T=roundtrip` (or T='cosim-*',
# several names with spaces) runs only those.  The RTL ones run their
# make targets with SAN=0.
TEST_SUITE := $(sort $(wildcard tests/suite/*.t))
T          ?=
TEST_PICK   = $(if $(T),$(wildcard $(addprefix tests/suite/,$(addsuffix .t,$(T)))),$(TEST_SUITE))

test: test-build
	@$(if $(TEST_PICK),,echo "make test: no test named '$(T)' in tests/suite/"; exit 2;) \
	  rm -rf $(BUILD)/test-results; \
	  MAKEFLAGS= BIN=$(BIN) BUILD=$(BUILD) SAN=$(SAN) TAP_DIR=$(BUILD)/test-results \
	  prove -j$(JOBS) --timer $(TEST_PICK)

roundtrip: all
	@bash tests/roundtrip.sh $(BIN) $(BUILD)/roundtrip

# The compiler and flags of a tool and of the model's own files, for
# tests/boundary.sh (one VAR=value a line).
.PHONY: print-cflags
print-cflags:
	@printf '%s\n' 'CC=$(CC)' 'CFLAGS=$(CFLAGS)' 'MODEL_CFLAGS=$(MODEL_CFLAGS)'

# 200 random GEMM shapes 1..4096 on v5e from tpu-gen, each run bit-exact
kernels-soak: all
	@bash tests/kernels.sh $(BIN) $(BUILD)/kernels-soak --soak

# 200 random GEMMs 1..4096 on each of tiny, mid and v5e, bf16, int8 and w8 in turn
kernels-soak-all: all
	@bash tests/kernels.sh $(BIN) $(BUILD)/kernels-soak-all --soak-all

# ---- fuzzing (libFuzzer, clang) ---------------------------------------
FUZZ_SECONDS       ?= 600
FUZZ_SMOKE_SECONDS ?= 10
FUZZ_BUILD         := build-fuzz
FUZZ_TARGETS       := $(patsubst tests/fuzz/fuzz_%.c,$(FUZZ_BUILD)/fuzz_%,$(wildcard tests/fuzz/fuzz_*.c))
FUZZ_LIB_SRCS      := $(LIB_SRCS)
# The libraries are compiled once for every target (instrumented for
# coverage, ASan and UBSan; -fsanitize=fuzzer-no-link), each target's own
# file then links them with libFuzzer's main.
FUZZ_CFLAGS        := -std=c11 -D_POSIX_C_SOURCE=200809L -g -O1 $(INCLUDES) -I$(GEN)
FUZZ_OBJS          := $(FUZZ_LIB_SRCS:%.c=$(FUZZ_BUILD)/obj/%.o) $(FUZZ_BUILD)/obj/presets.o

# The model's own files see cmodel/, the tools' and the targets only the API.
$(FUZZ_BUILD)/obj/cmodel/%.o: FUZZ_CFLAGS += -Icmodel
$(FUZZ_BUILD)/obj/%.o: %.c $(GEN)/html_page.h
	@mkdir -p $(dir $@)
	$(CLANG) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link,address,undefined -MMD -MP -c $< -o $@
$(FUZZ_BUILD)/obj/presets.o: $(GEN)/presets.c
	@mkdir -p $(dir $@)
	$(CLANG) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link,address,undefined -c $< -o $@
-include $(wildcard $(FUZZ_BUILD)/obj/*/*.d $(FUZZ_BUILD)/obj/*/*/*.d)
.SECONDARY: $(FUZZ_OBJS)

$(FUZZ_BUILD)/fuzz_%: tests/fuzz/fuzz_%.c $(FUZZ_OBJS)
	@mkdir -p $(dir $@)
	$(CLANG) $(FUZZ_CFLAGS) -fsanitize=fuzzer,address,undefined -o $@ $< $(FUZZ_OBJS) -lm

fuzz-smoke: $(FUZZ_TARGETS)
	@bash tests/fuzz/run.sh $(FUZZ_BUILD) $(FUZZ_SMOKE_SECONDS)

# make fuzz keeps its figures (a line per target in tests/fuzz/log.tsv) and
# the new inputs (tests/fuzz/seeds/); commit both.  fuzz-report sums the log.
# FUZZ_ONLY="asm obj": only those targets.
fuzz: $(FUZZ_TARGETS)
	@FUZZ_ONLY="$(FUZZ_ONLY)" bash tests/fuzz/run.sh --keep $(FUZZ_BUILD) $(FUZZ_SECONDS); s=$$?; \
	  bash tests/fuzz/report.sh tests/fuzz/log.tsv; exit $$s

fuzz-report:
	@bash tests/fuzz/report.sh tests/fuzz/log.tsv

clean:
	rm -rf build build-san build-fuzz build-tsan
