# sim/rtl_fp/rtl_fp.mk - the RTL floating-point units: lint, synthesis check
# and the bit-exact comparison with cmodel/fp.c under Verilator.  Included
# by the main Makefile.
#
#   make rtl-lint-fp    verilator --lint-only -Wall on each fp module
#   make rtl-fp-test    build the Verilated harness (only what changed) and
#                       compare every unit with cmodel/fp.c
#                       (RTL_FP_COUNT random sets per op, RTL_FP_SEED)
#   make rtl-synth-fp   yosys synth + check -assert on each module, cells
#
# The Verilated build lives in build/rtl_fp/ and depends on the .v files,
# the harness and cmodel/fp.c; compiles go through ccache when installed.

VERILATOR        ?= verilator
YOSYS            ?= yosys
RTL_FP_COUNT     ?= 1000000
RTL_FP_SEED      ?= 1

RTL_FP_MODULES   := fp32_add fp32_mul fp32_cmp bf16_round mxu_mac fp32_tr
RTL_FP_SRCS      := $(RTL_FP_MODULES:%=rtl/%.v)
RTL_FP_HDRS      := $(wildcard rtl/*.vh)
RTL_FP_WAIVERS   := rtl/lint_waivers.vlt
RTL_FP_TOP       := sim/rtl_fp/rtl_fp_top.v
RTL_FP_CPP       := sim/rtl_fp/rtl_fp_test.cpp
RTL_FP_DIR       := build/rtl_fp
RTL_FP_BIN       := $(RTL_FP_DIR)/rtl-fp-test
RTL_FP_OBJCACHE  := $(if $(shell command -v ccache 2>/dev/null),ccache,)

# Verilator's -O3 and --x-assign/--x-initial fast for the model; -O2 for
# the C++ it generates (verilated.mk's default for it is -Os).
RTL_FP_VFLAGS    := --cc --exe -O3 --x-assign fast --x-initial fast -Wall -Irtl \
                    --top-module rtl_fp_top --prefix Vrtl_fp_top
RTL_FP_MKFLAGS   := OBJCACHE=$(RTL_FP_OBJCACHE) OPT_FAST=-O2 OPT_SLOW=-O1 OPT_GLOBAL=-O2

.PHONY: rtl-lint-fp rtl-fp-test rtl-synth-fp

rtl-lint-fp:
	@for m in $(RTL_FP_MODULES); do \
	  $(VERILATOR) --lint-only -Wall -Irtl --top-module $$m $(RTL_FP_WAIVERS) rtl/$$m.v || exit 1; \
	done
	@$(VERILATOR) --lint-only -Wall -Irtl -GInFracW=7 --top-module fp32_mul $(RTL_FP_WAIVERS) rtl/fp32_mul.v
	@$(VERILATOR) --lint-only -Wall -Irtl --top-module rtl_fp_top $(RTL_FP_WAIVERS) $(RTL_FP_TOP)
	@echo "rtl-lint-fp: $(RTL_FP_MODULES) rtl_fp_top: verilator -Wall clean"

# The C model's fp routines, compiled as C and linked into the harness.
$(RTL_FP_DIR)/fp.o: cmodel/fp.c cmodel/include/tpu/fp.h
	@mkdir -p $(dir $@)
	$(RTL_FP_OBJCACHE) $(CC) -std=c11 -Wall -Wextra -Werror -O2 -Icmodel -Icmodel/include/tpu -c $< -o $@

# Verilate (Verilator skips the step itself when its inputs are unchanged),
# then build with Verilator's generated makefile, which recompiles only the
# changed C++.  The executable is removed first so that a new fp.o, which
# that makefile does not track, is always linked in.
$(RTL_FP_BIN): $(RTL_FP_SRCS) $(RTL_FP_HDRS) $(RTL_FP_WAIVERS) $(RTL_FP_TOP) $(RTL_FP_CPP) \
               $(RTL_FP_DIR)/fp.o sim/rtl_fp/rtl_fp.mk
	@mkdir -p $(RTL_FP_DIR)/obj
	rm -f $@
	$(VERILATOR) $(RTL_FP_VFLAGS) --Mdir $(RTL_FP_DIR)/obj -o ../rtl-fp-test \
	  -CFLAGS -I$(abspath cmodel/include/tpu) \
	  $(RTL_FP_WAIVERS) $(RTL_FP_TOP) $(abspath $(RTL_FP_CPP)) $(abspath $(RTL_FP_DIR)/fp.o)
	$(MAKE) --no-print-directory -C $(RTL_FP_DIR)/obj -f Vrtl_fp_top.mk $(RTL_FP_MKFLAGS)

rtl-fp-test: $(RTL_FP_BIN)
	$(RTL_FP_BIN) --count $(RTL_FP_COUNT) --seed $(RTL_FP_SEED)

# Each module on its own: no latches, no errors (check -assert), and its
# cell count after a generic synthesis (flattened, so mxu_mac counts its
# multiplier and adder).
rtl-synth-fp:
	@for m in $(RTL_FP_MODULES); do \
	  out=$$($(YOSYS) -q -p "read_verilog -sv -Irtl $(RTL_FP_SRCS); synth -flatten -top $$m; check -assert; \
	                         select -assert-none t:\$$dlatch* t:\$$_DLATCH*; tee -o /dev/stdout stat" 2>&1) \
	    || { echo "$$out"; echo "rtl-synth-fp: $$m: yosys failed"; exit 1; }; \
	  cells=$$(echo "$$out" | awk '/Number of cells:/ { n = $$4 } END { print n }'); \
	  printf 'rtl-synth-fp: %-10s %6s cells, no latches\n' $$m "$$cells"; \
	done
