# sim/cosim/mutants.mk - the RTL mutants (docs/cosim.md, "Mutants").
# Included by the main Makefile.
#
#   make mutants          every mutant of sim/cosim/mutants.def against the
#                         lockstep regression (every run of
#                         programs/manifest.txt, the collectives on rings of
#                         2 and 4, and MUTANT_SEEDS random seeds) on tiny, then the survivors' chances
#                         on tiny-odd (sim/cosim/tiny-odd.cfg: uneven rates,
#                         a VMEM budget that binds); the table of killed and
#                         survived in build/mutants/report.txt.
#                         MUTANTS="3 17" runs some; JOBS run at once.
#   make mutants-build    only the meta-mutant benches
#   make mutants-smoke    a handful (MUTANTS_SMOKE, one per unit) on tiny's
#                         one-core programs, each must be killed (make test)
#
# One Verilated build per config holds every mutant (tpu-mutate compiles
# them in as mutant schemata; +mutant=ID selects one at run time), so the
# catalogue costs one build of the core, one of the two-core and one of the
# four-core system per config (programs/manifest.txt runs the collectives
# on rings of 2 and 4), not one per mutant.

MUT_DIR      := build/mutants
MUT_SRC      := $(MUT_DIR)/rtl
MUT_CONFIGS  := tiny tiny-odd
MUT_CFG_tiny := tiny
MUT_CFG_tiny-odd := sim/cosim/tiny-odd.cfg
MUTANT_SEEDS ?= 40
MUTANTS      ?=
mut_comma    := ,
mut_space    := $(subst ,, )

MUTANTS_SMOKE ?= 3 11 17 21 31 39 46 51 62 77

.PHONY: mutants mutants-build mutants-smoke

# The meta-mutant sources: rtl/ with every mutant compiled in.
$(MUT_SRC)/.stamp: $(RTL_V) $(RTL_WAIVERS) $(BIN)/tpu-mutate
	@rm -rf $(MUT_SRC) && mkdir -p $(MUT_DIR)
	$(BIN)/tpu-mutate -o $(MUT_SRC)
	@touch $@

# The config header of each config (rewritten only when its text changes).
$(MUT_DIR)/%/tpu_cfg.vh: rtl-cfg-force $(BIN)/tpu-rtlcfg
	@mkdir -p $(dir $@)
	@$(BIN)/tpu-rtlcfg -o $@ $(MUT_CFG_$*)
	@printf '#define RTL_CONFIG "%s"\n' $(MUT_CFG_$*) > $(dir $@)rtl_config.h.tmp
	@cmp -s $(dir $@)rtl_config.h.tmp $(dir $@)rtl_config.h \
	  || mv $(dir $@)rtl_config.h.tmp $(dir $@)rtl_config.h
	@rm -f $(dir $@)rtl_config.h.tmp
.PRECIOUS: $(MUT_DIR)/%/tpu_cfg.vh

# $(call mutant_bench_recipe,TOP,OBJ_DIR,CFG_DIR,CORES[,VFLAGS,CFLAGS]):
# rtl_bench_recipe on the mutant sources (VFLAGS: more Verilator options,
# CFLAGS: more defines for the bench, as for a torus3d system).
define mutant_bench_recipe
	@mkdir -p $(2)
	rm -f $@
	$(VERILATOR) $(filter-out -Irtl -y rtl,$(RTL_VFLAGS)) $(if $(4),-GNCores=$(4)) $(5) $(if $(filter core,$(1)),$(RTL_CORE_TOP)) -I$(MUT_SRC) -y $(MUT_SRC) -I$(3) \
	  --top-module $(1) --prefix V$(1) --Mdir $(2) -o ../$(notdir $@) \
	  -CFLAGS "-I$(abspath cmodel/include/tpu) -I$(abspath sim) -I$(abspath $(3))$(if $(4), -DRTL_SYSTEM -DRTL_CORES=$(4))$(if $(6), $(6))" \
	  -LDFLAGS "$(abspath $(LIB)) -lm" \
	  $(MUT_SRC)/lint_waivers.vlt $(MUT_SRC)/$(1).v $(abspath $(RTL_BENCH_CPP)) $(abspath $(RTL_SPARSE_CPP))
	+$(MAKE) --no-print-directory -C $(2) -f $(RTL_PCH_MK) VM_MK=V$(1).mk $(RTL_MKFLAGS)
endef

$(MUT_DIR)/%/rtl-bench: $(MUT_SRC)/.stamp $(MUT_DIR)/%/tpu_cfg.vh $(RTL_BENCH_DEPS)
	$(call mutant_bench_recipe,core,$(MUT_DIR)/$*/obj,$(MUT_DIR)/$*)

$(MUT_DIR)/%/rtl-bench2: $(MUT_SRC)/.stamp $(MUT_DIR)/%/tpu_cfg.vh $(RTL_BENCH_DEPS)
	$(call mutant_bench_recipe,system,$(MUT_DIR)/$*/obj2,$(MUT_DIR)/$*,2)

$(MUT_DIR)/%/rtl-bench4: $(MUT_SRC)/.stamp $(MUT_DIR)/%/tpu_cfg.vh $(RTL_BENCH_DEPS)
	$(call mutant_bench_recipe,system,$(MUT_DIR)/$*/obj4,$(MUT_DIR)/$*,4)

# Two cores as a 1 x 1 x 2 torus3d (sim/rtl/rtl.mk's rtl-bench2z): the 3-D
# collectives' rows of the manifest, ICI ports 4 and 5.  The eight-core
# 2 x 2 x 2 (rtl-bench8) is not a mutant bench: its rows are skipped.
$(MUT_DIR)/%/rtl-bench2z: $(MUT_SRC)/.stamp $(MUT_DIR)/%/tpu_cfg.vh $(RTL_BENCH_DEPS)
	$(call mutant_bench_recipe,system,$(MUT_DIR)/$*/obj2z,$(MUT_DIR)/$*,2,-GTopo=3 -GDx=1 -GDy=1 -GDz=2,-DRTL_TORUS3D -DRTL_DX=1 -DRTL_DY=1 -DRTL_DZ=2)

# The fp units' harness (sim/rtl_fp/) on the mutant sources: the fp
# mutants also meet the plain reference, operand pairs no program makes.
$(MUT_DIR)/rtl-fp-test: $(MUT_SRC)/.stamp $(RTL_FP_TOP) $(RTL_FP_CPP) $(RTL_FP_DIR)/fp.o \
                        sim/cosim/mutants.mk
	@mkdir -p $(MUT_DIR)/rtl_fp
	rm -f $@
	$(VERILATOR) $(filter-out -Irtl,$(RTL_FP_VFLAGS)) -I$(MUT_SRC) --Mdir $(MUT_DIR)/rtl_fp \
	  -o ../rtl-fp-test -CFLAGS -I$(abspath cmodel/include/tpu) \
	  $(MUT_SRC)/lint_waivers.vlt $(RTL_FP_TOP) $(abspath $(RTL_FP_CPP)) $(abspath $(RTL_FP_DIR)/fp.o)
	+$(MAKE) --no-print-directory -C $(MUT_DIR)/rtl_fp -f Vrtl_fp_top.mk $(RTL_FP_MKFLAGS)

mutants-build: $(foreach c,$(MUT_CONFIGS),$(foreach b,rtl-bench rtl-bench2 rtl-bench4 rtl-bench2z,$(MUT_DIR)/$(c)/$(b))) \
               $(MUT_DIR)/rtl-fp-test

mutants: all mutants-build
	@bash sim/cosim/run_mutants.sh --seeds $(MUTANT_SEEDS) $(BIN) \
	  $(subst $(mut_space),$(mut_comma),$(MUT_CONFIGS:%=$(MUT_DIR)/%)) $(MUTANTS)

mutants-smoke: $(BIN)/tpu-as $(BIN)/tpu-randprog $(BIN)/tpu-mutate $(MUT_DIR)/tiny/rtl-bench
	@bash sim/cosim/run_mutants.sh --seeds 0 --one-core --all-killed --quiet $(BIN) \
	  $(MUT_DIR)/tiny $(MUTANTS_SMOKE)
