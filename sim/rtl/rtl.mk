# sim/rtl/rtl.mk - the RTL of the core: lint, Verilated model, test bench
# and synthesis.  Included by the main Makefile (docs/rtl.md).
#
#   make rtl-lint     verilator --lint-only -Wall on rtl/core.v and
#                     rtl/system.v (2 and 4 cores in a ring, 2 as a 1x1x2
#                     torus3d: every port wired) with the tiny config
#   make rtl-build    the Verilated core and its bench, build/rtl/CFG/rtl-bench,
#                     and the system of two cores in a ring with the same
#                     bench, build/rtl/CFG/rtl-bench2 (RTL_CONFIG=tiny by
#                     default; RTL_CONFIG=mid for the second build); rebuilt
#                     only when rtl/*.v or the config changed; and
#                     build/rtl/CFG/rtl-bench4, four cores in a ring, for
#                     the collectives (VMEM as the C++ store, forced) (build/rtl/CFG/rtl-bench8, eight as a
#                     2x2x2 torus3d, and rtl-bench2z, two as 1x1x2, for the
#                     3-D collectives: make rtl-test-torus3d)
#   make rtl-test     every program run of RTL_CONFIG in programs/manifest.txt
#                     on the RTL against the C model, record by record, on
#                     the bench of its row's cores (sim/rtl/run_tests.sh);
#                     a row whose bench is not built says skip
#   make rtl-test-torus3d  the manifest's torus3d rows (programs/torus3d.s:
#                     AllGather, ReduceScatter, AllReduce) on rtl-bench8 and
#                     rtl-bench2z, in lockstep (not in make test)
#   make rtl-test-vmemdpi  tiny with its VMEM in the C++ store (rtl/vmem.v's
#                     Dpi, forced: build/rtl/tiny-vmemdpi/), every one-core
#                     program in lockstep (not in make test)
#   make synth        Yosys on the tiny config: cells per unit, no latches
#
# The parameters of a build come from the config through tpu-rtlcfg
# (build/rtl/CFG/tpu_cfg.vh); the C model reads the same config.

VERILATOR        ?= verilator
YOSYS            ?= yosys
RTL_CONFIG       ?= tiny
RTL_CFG_NAME     := $(basename $(notdir $(RTL_CONFIG)))
RTL_DIR          := build/rtl/$(RTL_CFG_NAME)
RTL_LINT_DIR     := build/rtl/tiny
RTL_V            := $(wildcard rtl/*.v) $(wildcard rtl/*.vh)
RTL_WAIVERS      := rtl/lint_waivers.vlt
RTL_BENCH_CPP    := sim/rtl/rtl_bench.cpp
# the C++ stores behind DPI memories (docs/rtl.md, "Large arrays"): the sparse
# HBM of rtl/hbm_mem.v (HBM above 1 GiB) and the VMEM of rtl/vmem.v (core.v's
# VmemDpi); every bench links both
RTL_SPARSE_CPP   := sim/rtl/hbm_sparse.cpp sim/rtl/vmem_dpi.cpp
RTL_BENCH_HDRS   := sim/cosim/trace_records.h sim/cosim/trace_port.h sim/cosim/verdict.h rtl/trace_ports.def sim/rtl/hbm_sparse.h sim/rtl/dpi_vec.h \
                    sim/rtl/vmem_dpi.h
RTL_OBJCACHE     := $(if $(shell command -v ccache 2>/dev/null),ccache,)
# --unroll-count: the VMEM write loops (one per write class, in priority
# order) must unroll for their non-blocking writes; the VPU's has 4*S*L
# iterations.  --unroll-stmts: and Verilator unrolls a loop only when its
# body's nodes times its iterations stay under this (default 30000): the
# VPU's write loop passes that at vpu_lanes = 32 (1024 bytes), and a loop
# that is not unrolled cannot hold a non-blocking array write (Verilator
# stops with BLKLOOPINIT).  Tiny's and mid's generated C++ is the same with
# it as without (docs/rtl.md, "Large arrays").
RTL_UNROLL       := --unroll-count 65536 --unroll-stmts 10000000
# --trace-fst: the bench writes FST waveforms when asked (--wave,
# --wave-on-fail).  Costs about a quarter more build CPU time and a few
# percent of speed with tracing off (docs/cosim.md, "Cost of tracing").
# --no-trace-params: waveforms leave out parameters (the fp functions'
# constants were a fifth of mid's waveform declarations).
# --output-split-ctrace 3000: the waveform code in functions of at most
# 3000 statements: GCC compiles many small functions faster than one huge
# one (mid: 15 -> 11 CPU s); it runs only while a waveform is written.
# (The same for the simulation code, --output-split-cfuncs 3000, would
# save another 20 CPU s on mid but ran its matmul 14% slower.)
# --x-initial fast: variables start at 0 without a call to Verilator's
# randomising reset for each (they are 0 with the default too, unless
# +verilator+rand+reset is given): a smaller constructor and a faster start.
RTL_VFLAGS       := --cc --exe -O3 --x-assign fast --x-initial fast -Wall -Wno-fatal $(RTL_UNROLL) \
                    --trace-fst --no-trace-params --output-split-ctrace 3000 -Irtl -y rtl
# The Verilated C++ is large: -O1 (-O0 for the code that runs once) builds
# it faster than -O2 and simulates about as fast (docs/cosim.md, "Build
# time"; make bench prints the build times and run rates).  Verilator's
# functions are huge (thousands of statements), and GCC's value numbering
# and dead-store elimination ask the alias oracle up to 1000 and 256 times
# per memory access: more than half of the compile time of the largest
# files.  Capped at 30 and 32 (RTL_OPT_FAST), mid's model compiles in 68
# instead of 98 CPU seconds and runs as fast.  -ftree-loop-distribute-patterns
# (an -O2 pass) turns Verilator's word-by-word loops over wide vectors
# (zeroing or copying a 2048-bit port in every cycle) into memset and
# memcpy: 5% fewer instructions per cycle on tiny, no slower to compile.
RTL_OPT_FAST     := -O1 -ftree-loop-distribute-patterns --param=sccvn-max-alias-queries-per-access=30 --param=dse-max-alias-queries-per-store=32
RTL_MKFLAGS      := OBJCACHE=$(RTL_OBJCACHE) OPT_FAST="$(RTL_OPT_FAST)" OPT_SLOW=-O0 OPT_GLOBAL=-O1
# Verilator's makefile is run through sim/rtl/verilated_pch.mk, which adds a
# precompiled header of the model's classes (a third less compile time for
# mid): `$(MAKE) -C OBJ -f $(RTL_PCH_MK) VM_MK=Vtop.mk $(RTL_MKFLAGS)`.
RTL_PCH_MK       := $(abspath sim/rtl/verilated_pch.mk)
# The core as the top of a model is inlined into Verilator's root (rtl/core.v):
# its ports are not copied into the root's after every evaluation (8% of
# an idle cycle on tiny).
RTL_CORE_TOP     := +define+TPU_INLINE_CORE
# Hierarchical Verilation (docs/rtl.md, "Large arrays"): the builds named
# NAME-hier (make build/rtl/NAME-hier/rtl-bench, tpu-cosim --hier) Verilate
# each row of an MXU's cell array (rtl/mxu_row.v) as a hierarchy block
# (sim/rtl/hier.vlt): Verilator and the compiler see one row of N cells
# once per distinct row, not N x N cells inlined into one model, so the
# build grows with N, not N^2.  The rows run as separate models called
# through their wrappers (no waveform inside them).  They also keep VMEM in
# the C++ store (RTL_VMEMDPI_FLAGS) and Verilator's own unroll limits (64
# iterations, 30,000 statements; given after RTL_VFLAGS' RTL_UNROLL, the
# later wins): with the array VMEM gone no loop needs unrolling for its
# non-blocking writes, and a loop over v5e's 547-byte DMA ports or its
# 256 MXU metadata stages then stays a loop in C++ instead of thousands of
# copies (v5e's Verilator pass: 150 CPU s instead of more than 25 minutes;
# docs/rtl.md, "v5e's shape").
RTL_HIER_FLAGS   := --hierarchical $(abspath sim/rtl/hier.vlt) \
                    --unroll-count 64 --unroll-stmts 30000 +define+TPU_VMEM_DPI
# The builds named NAME-harray: the same, but each MXU's whole cell array
# (rtl/mxu_array.v) is the hierarchy block (sim/rtl/hier_array.vlt), flat
# inside: one call per MXU instead of one per row, so it runs about twice
# as fast at 128 x 128, and builds as slowly as a flat array (40 CPU
# minutes and 4.2 GB for one 128 x 128 against 2.6 minutes by rows;
# docs/rtl.md, "v5e's shape").
RTL_HARRAY_FLAGS := --hierarchical $(abspath sim/rtl/hier_array.vlt) \
                    --unroll-count 64 --unroll-stmts 30000 +define+TPU_VMEM_DPI
# The builds named NAME-vmemdpi (build/rtl/tiny-vmemdpi/) are NAME's config
# with VMEM in the C++ store (rtl/vmem.v's Dpi) even where core.v's rule
# keeps the array: the store tested on a small core.
RTL_VMEMDPI_FLAGS := +define+TPU_VMEM_DPI
# Any build name may end in -mt (build/rtl/mxu64-mt/, build/rtl/mxu128-hier-mt/):
# the same model Verilated with --threads 2, Verilator's own scheduler
# spreading the evaluation over two threads (docs/rtl.md, "Large arrays":
# where it gains on 2 CPUs and where it does not).
RTL_MT_FLAGS     := --threads 2
RTL_LINT_FLAGS   := --lint-only -Wall $(RTL_UNROLL) -Irtl -y rtl $(RTL_WAIVERS)

.PHONY: rtl-lint rtl-build rtl-test rtl-test-torus3d synth rtl-cfg-force rtl-lint-wide rtl-test-wide \
        rtl-test-vmemdpi
rtl-cfg-force: ;

# The config header: tpu-rtlcfg rewrites it only when its text changes, so
# the recipe runs every time but the Verilated model is rebuilt only when
# the config really changed.
# $(call rtl_cfg_of,NAME): the config of build/rtl/NAME: RTL_CONFIG when
# NAME is its name, else sim/rtl/NAME.cfg when there is one (wide.cfg),
# else the preset NAME.
# A build named NAME-hier is NAME's config Verilated hierarchically
# (RTL_HIER_FLAGS below), NAME-harray with the arrays as the blocks
# (RTL_HARRAY_FLAGS), NAME-vmemdpi with the DPI VMEM (RTL_VMEMDPI_FLAGS),
# and any of them with -mt after it on two threads (RTL_MT_FLAGS).
# $(call rtl_has,BUILD,KIND): nonempty when BUILD's name has the part -KIND.
rtl_cfg_base = $(patsubst %-harray,%,$(patsubst %-hier,%,$(patsubst %-vmemdpi,%,$(patsubst %-mt,%,$(1)))))
rtl_has = $(filter $(2),$(subst -, ,$(1)))
rtl_cfg_of = $(call rtl_cfg_of1,$(call rtl_cfg_base,$(1)))
rtl_cfg_of1 = $(if $(filter $(1),$(RTL_CFG_NAME)),$(RTL_CONFIG),$(or $(wildcard sim/rtl/$(1).cfg),$(1)))
build/rtl/%/tpu_cfg.vh: rtl-cfg-force $(BIN)/tpu-rtlcfg
	@mkdir -p $(dir $@)
	@$(BIN)/tpu-rtlcfg -o $@ $(call rtl_cfg_of,$*)
	@printf '#define RTL_CONFIG "%s"\n' $(call rtl_cfg_of,$*) \
	  > $(dir $@)rtl_config.h.tmp
	@cmp -s $(dir $@)rtl_config.h.tmp $(dir $@)rtl_config.h \
	  || mv $(dir $@)rtl_config.h.tmp $(dir $@)rtl_config.h
	@rm -f $(dir $@)rtl_config.h.tmp

rtl-lint: $(RTL_LINT_DIR)/tpu_cfg.vh
	$(VERILATOR) $(RTL_LINT_FLAGS) -I$(RTL_LINT_DIR) --top-module core rtl/core.v
	$(VERILATOR) $(RTL_LINT_FLAGS) -I$(RTL_LINT_DIR) --top-module system rtl/system.v
	$(VERILATOR) $(RTL_LINT_FLAGS) -I$(RTL_LINT_DIR) --top-module system -GNCores=4 rtl/system.v
	$(VERILATOR) $(RTL_LINT_FLAGS) -I$(RTL_LINT_DIR) --top-module system -GNCores=2 -GTopo=3 -GDx=1 -GDy=1 -GDz=2 rtl/system.v
	@echo "rtl-lint: core, system of 2 and 4 (ring) and 2 (torus3d 1x1x2) ($(RTL_LINT_DIR)): verilator -Wall clean"

# The Verilated core and the bench (C++), linked with the C model:
# build/rtl/CFG/rtl-bench for the core, build/rtl/CFG/rtl-bench2 for
# rtl/system.v (two cores in a ring) for the multi-core programs, and
# build/rtl/CFG/rtl-bench4 for four cores in a ring, with VMEM in the C++
# store (RTL_VMEMDPI_FLAGS: so that make test's rtl-test checks the store
# every run, on the collectives, at no extra build; one and two cores check
# the array); any config's, so one make can build tiny's and mid's at once (their
# Verilator makefiles share make's job slots).  Verilator skips its step
# when nothing changed; its makefile recompiles only what changed.  The
# executable is removed first so that new libraries ($(LIB)), which that
# makefile does not track, are always linked in.
#
# $(call rtl_bench_recipe,TOP,OBJ_DIR,CFG_DIR,VERILATOR_FLAGS,CORES,CFLAGS): verilate
# rtl/TOP.v with the tpu_cfg.vh of CFG_DIR into OBJ_DIR and build $@ (a
# file beside OBJ_DIR) from it and sim/rtl/rtl_bench.cpp; CORES is the
# system's NCores (TOP system), CFLAGS more of the bench's defines.  The '+' marks the
# sub-make as recursive (make sees no $(MAKE) in a $(call)), so it gets the
# job slots instead of running -j1.
define rtl_bench_recipe
	@mkdir -p $(2)
	rm -f $@
	$(VERILATOR) $(RTL_VFLAGS) $(4) $(if $(5),-GNCores=$(5)) $(if $(filter core,$(1)),$(RTL_CORE_TOP)) \
	  -I$(3) --top-module $(1) --prefix V$(1) \
	  --Mdir $(2) -o ../$(notdir $@) \
	  -CFLAGS "-I$(abspath cmodel/include/tpu) -I$(abspath sim) -I$(abspath $(3))$(if $(5), -DRTL_SYSTEM -DRTL_CORES=$(5))$(if $(6), $(6))" \
	  -LDFLAGS "$(abspath $(LIB)) -lm" \
	  $(RTL_WAIVERS) rtl/$(1).v $(abspath $(RTL_BENCH_CPP)) $(abspath $(RTL_SPARSE_CPP))
	+$(MAKE) --no-print-directory -C $(2) -f $(RTL_PCH_MK) VM_MK=V$(1).mk $(RTL_MKFLAGS)
endef

RTL_BENCH_DEPS := $(RTL_V) $(RTL_WAIVERS) sim/rtl/hier.vlt sim/rtl/hier_array.vlt $(RTL_BENCH_CPP) $(RTL_SPARSE_CPP) $(RTL_BENCH_HDRS) $(LIB) sim/rtl/rtl.mk \
                  sim/rtl/verilated_pch.mk

# Made through the pattern rule above: kept, not deleted as an intermediate.
.PRECIOUS: build/rtl/%/tpu_cfg.vh

build/rtl/%/rtl-bench: build/rtl/%/tpu_cfg.vh $(RTL_BENCH_DEPS)
	$(call rtl_bench_recipe,core,build/rtl/$*/obj,build/rtl/$*,$(if $(call rtl_has,$*,hier),$(RTL_HIER_FLAGS)) $(if $(call rtl_has,$*,harray),$(RTL_HARRAY_FLAGS)) $(if $(call rtl_has,$*,vmemdpi),$(RTL_VMEMDPI_FLAGS)) $(if $(call rtl_has,$*,mt),$(RTL_MT_FLAGS)))

build/rtl/%/rtl-bench2: build/rtl/%/tpu_cfg.vh $(RTL_BENCH_DEPS)
	$(call rtl_bench_recipe,system,build/rtl/$*/obj2,build/rtl/$*,$(if $(call rtl_has,$*,vmemdpi),$(RTL_VMEMDPI_FLAGS)) $(if $(call rtl_has,$*,mt),$(RTL_MT_FLAGS)),2)

build/rtl/%/rtl-bench4: build/rtl/%/tpu_cfg.vh $(RTL_BENCH_DEPS)
	$(call rtl_bench_recipe,system,build/rtl/$*/obj4,build/rtl/$*,$(RTL_VMEMDPI_FLAGS),4)

# Eight cores as a 2 x 2 x 2 torus3d (all six ports wired), for the 3-D
# collectives (programs/torus3d.s); and two as a 1 x 1 x 2 torus3d (every
# port wired, x and y to the core itself, z to the other), the same RTL at
# the cost of rtl-bench2 (eight cores are four times its C++).
build/rtl/%/rtl-bench8: build/rtl/%/tpu_cfg.vh $(RTL_BENCH_DEPS)
	$(call rtl_bench_recipe,system,build/rtl/$*/obj8,build/rtl/$*,-GTopo=3 -GDx=2 -GDy=2 -GDz=2,8,-DRTL_TORUS3D -DRTL_DX=2 -DRTL_DY=2 -DRTL_DZ=2)

build/rtl/%/rtl-bench2z: build/rtl/%/tpu_cfg.vh $(RTL_BENCH_DEPS)
	$(call rtl_bench_recipe,system,build/rtl/$*/obj2z,build/rtl/$*,-GTopo=3 -GDx=1 -GDy=1 -GDz=2,2,-DRTL_TORUS3D -DRTL_DX=1 -DRTL_DY=1 -DRTL_DZ=2)

# The wide config (sim/rtl/wide.cfg: a VPU of 8 x 32 lanes and 2 GiB of
# sparse HBM; docs/rtl.md, "Large arrays"): make test lints it
# (rtl-lint-wide, about a minute and 2 GB); rtl-test-wide, not part of make
# test, builds its core (several minutes) and runs every one-core program in
# lockstep on it.
rtl-lint-wide: build/rtl/wide/tpu_cfg.vh
	$(VERILATOR) $(RTL_LINT_FLAGS) -Ibuild/rtl/wide --top-module core rtl/core.v
	@echo "rtl-lint-wide: core of sim/rtl/wide.cfg (vpu_lanes 32, sparse HBM): verilator -Wall clean"

rtl-test-wide: build/rtl/wide/rtl-bench $(BIN)/tpu-as
	@ONE_CORE=1 bash sim/rtl/run_tests.sh $(BIN) build/rtl/wide sim/rtl/wide.cfg

# The DPI VMEM (rtl/vmem.v's Dpi, sim/rtl/vmem_dpi.cpp; docs/rtl.md, "Large
# arrays") forced on tiny, every one-core program in lockstep: the store's
# check on a core that builds in a minute or two (not in make test).
rtl-test-vmemdpi: build/rtl/tiny-vmemdpi/rtl-bench $(BIN)/tpu-as
	@ONE_CORE=1 bash sim/rtl/run_tests.sh $(BIN) build/rtl/tiny-vmemdpi tiny

rtl-build: $(RTL_DIR)/rtl-bench $(RTL_DIR)/rtl-bench2 $(RTL_DIR)/rtl-bench4

rtl-test: $(RTL_DIR)/rtl-bench $(RTL_DIR)/rtl-bench2 $(RTL_DIR)/rtl-bench4 $(BIN)/tpu-as
	@bash sim/rtl/run_tests.sh $(BIN) $(RTL_DIR) $(RTL_CONFIG)

# The 3-D collectives on eight cores as a 2x2x2 torus3d (rtl-bench8), in
# lockstep: its own target, not in make test (the eight-core Verilator
# build takes long); rtl-test runs those rows too once the benches are
# built and says skip otherwise.
rtl-test-torus3d: $(RTL_DIR)/rtl-bench2z $(RTL_DIR)/rtl-bench8 $(BIN)/tpu-as
	@TOPOLOGY_ONLY=torus3d bash sim/rtl/run_tests.sh $(BIN) $(RTL_DIR) $(RTL_CONFIG)

# Synthesis of the tiny config with a 4 KiB VMEM and HBM (their size only
# changes address widths; the storage is a macro / the simulation's).
RTL_SYNTH_DIR := build/rtl/synth

synth: $(BIN)/tpu-rtlcfg
	@mkdir -p $(RTL_SYNTH_DIR)
	@$(BIN)/tpu-rtlcfg --set vmem_bytes=4096 --set hbm_bytes=4096 -o $(RTL_SYNTH_DIR)/tpu_cfg.vh tiny
	@YOSYS=$(YOSYS) bash sim/rtl/synth.sh $(RTL_SYNTH_DIR)

# The bare reference of `make bench`: a 32 x 32 MAC array with nothing
# around it (sim/rtl/bare/), Verilated and compiled with the core's flags,
# so that the core's rate is read against Verilator's on a plain array.
RTL_BARE_DIR := build/rtl/bare
$(RTL_BARE_DIR)/mac-array-bench: sim/rtl/bare/mac_array.v sim/rtl/bare/mac_array_bench.cpp sim/rtl/rtl.mk
	@mkdir -p $(RTL_BARE_DIR)/obj
	rm -f $@
	$(VERILATOR) --cc --exe -O3 --x-assign fast --x-initial fast -Wall -Wno-fatal $(RTL_UNROLL) --top-module mac_array \
	  --Mdir $(RTL_BARE_DIR)/obj -o ../mac-array-bench sim/rtl/bare/mac_array.v \
	  $(abspath sim/rtl/bare/mac_array_bench.cpp)
	+$(MAKE) --no-print-directory -C $(RTL_BARE_DIR)/obj -f Vmac_array.mk $(RTL_MKFLAGS)
