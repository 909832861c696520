# sim/cosim/cmutants.mk - the C-model mutants (docs/cosim.md, "C-model
# mutants"; the catalogue is sim/cosim/cmutants.def).  Included by the main
# Makefile after mutants.mk.
#
#   make cmutants        every C-model mutant against the lockstep regression
#                        (the plain RTL, every run of programs/manifest.txt
#                        and MUTANT_SEEDS random seeds, on tiny and tiny-odd) and the fp code's plain
#                        reference (test_fp, test_ref); the table in
#                        build/cmut/report.txt.  CMUTANTS="101 109" runs some.
#   make cmutants-smoke  a handful (CMUTANTS_SMOKE) on tiny's one-core
#                        programs and the fp tests, each must be killed
#
# The model is compiled once more with -DTPU_CMUTANTS (build/cmut/cmodel/):
# every CMUTANT(ID, original, mutated) is then a run-time choice
# (TPU_CMUTANT=ID).  The benches are not Verilated again: the meta-mutant
# benches' objects of make mutants-build (whose RTL is the plain RTL with
# +mutant=0) are linked once more with that library.

CMUT_DIR      := build/cmut
CMUT_OBJS     := $(MODEL_SRCS:cmodel/%.c=$(CMUT_DIR)/cmodel/%.o) $(GEN)/presets.o
CMUT_LIB      := $(CMUT_DIR)/libtpumodel.a
CMUTANTS      ?=
CMUTANTS_SMOKE ?= 101 104 107 108 109 110

.PHONY: cmutants cmutants-build cmutants-smoke

$(CMUT_DIR)/cmodel/%.o: cmodel/%.c
	@mkdir -p $(dir $@)
	$(CC) $(MODEL_CFLAGS) -DTPU_CMUTANTS $(DEPFLAGS) -c $< -o $@

$(CMUT_LIB): $(CMUT_OBJS)
	@rm -f $@
	$(AR) rcs $@ $^

# $(call cmut_relink,MUT_OBJ_DIR,TOP): the bench of MUT_OBJ_DIR, linked with
# the mutant library instead of the plain one.
cmut_relink = $(CXX) -o $@ $(filter-out $(1)/V$(2)%.o,$(wildcard $(1)/*.o)) $(1)/V$(2)__ALL.a \
  $(abspath $(TOOLS_LIB)) $(abspath $(CMUT_LIB)) -lz -lm -pthread

$(CMUT_DIR)/%/rtl-bench: $(MUT_DIR)/%/rtl-bench $(CMUT_LIB) $(TOOLS_LIB)
	@mkdir -p $(dir $@)
	$(call cmut_relink,$(MUT_DIR)/$*/obj,core)
	@cp $(MUT_DIR)/$*/rtl_config.h $(dir $@)rtl_config.h

$(CMUT_DIR)/%/rtl-bench2: $(MUT_DIR)/%/rtl-bench2 $(CMUT_LIB) $(TOOLS_LIB)
	@mkdir -p $(dir $@)
	$(call cmut_relink,$(MUT_DIR)/$*/obj2,system)

$(CMUT_DIR)/%/rtl-bench4: $(MUT_DIR)/%/rtl-bench4 $(CMUT_LIB) $(TOOLS_LIB)
	@mkdir -p $(dir $@)
	$(call cmut_relink,$(MUT_DIR)/$*/obj4,system)

$(CMUT_DIR)/%/rtl-bench2z: $(MUT_DIR)/%/rtl-bench2z $(CMUT_LIB) $(TOOLS_LIB)
	@mkdir -p $(dir $@)
	$(call cmut_relink,$(MUT_DIR)/$*/obj2z,system)

$(CMUT_DIR)/test_%: tests/test_%.c $(CMUT_LIB) $(TOOLS_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Itests -o $@ $< $(TOOLS_LIB) $(CMUT_LIB) $(LDFLAGS) $(LDLIBS) -lcmocka

-include $(wildcard $(CMUT_DIR)/cmodel/*.d)

cmutants-build: $(foreach c,$(MUT_CONFIGS),$(foreach b,rtl-bench rtl-bench2 rtl-bench4 rtl-bench2z,$(CMUT_DIR)/$(c)/$(b))) \
                $(CMUT_DIR)/test_fp $(CMUT_DIR)/test_ref

cmutants: all cmutants-build
	@bash sim/cosim/run_mutants.sh --cmodel --seeds $(MUTANT_SEEDS) $(BIN) \
	  $(subst $(mut_space),$(mut_comma),$(MUT_CONFIGS:%=$(CMUT_DIR)/%)) $(CMUTANTS)

cmutants-smoke: $(BIN)/tpu-as $(BIN)/tpu-randprog $(CMUT_DIR)/tiny/rtl-bench \
                $(CMUT_DIR)/test_fp $(CMUT_DIR)/test_ref
	@bash sim/cosim/run_mutants.sh --cmodel --seeds 0 --one-core --all-killed --quiet $(BIN) \
	  $(CMUT_DIR)/tiny $(CMUTANTS_SMOKE)
