# sim/lab/lab.mk - the labs' make targets (docs/labs/README.md).  Included
# by the main Makefile after sim/rtl/rtl.mk, whose variables it reuses.
# tpu-lab itself is a front end like the others (sim/tpu_lab.c, sim/lab/).
#
#   make lab8-mutant    build/rtl/lab8/rtl-bench: the tiny RTL with the bug
#                       of lab 8 (docs/labs/08-find-the-bug.md), built from a
#                       copy of rtl/ in build/rtl/lab8/rtl with a patch
#                       applied (programs/labs/solutions/08-mutant.patch);
#                       about a minute on 2 CPUs the first time

LAB8_DIR   := build/rtl/lab8
LAB8_PATCH := programs/labs/solutions/08-mutant.patch
LAB8_CFG   := build/rtl/tiny

.PHONY: lab8-mutant
lab8-mutant: $(LAB8_DIR)/rtl-bench

$(LAB8_DIR)/rtl-bench: $(LAB8_CFG)/tpu_cfg.vh $(RTL_BENCH_DEPS) $(LAB8_PATCH) sim/lab/lab.mk
	@mkdir -p $(LAB8_DIR)
	rm -rf $(LAB8_DIR)/rtl && cp -r rtl $(LAB8_DIR)/rtl
	patch -s -d $(LAB8_DIR)/rtl -p1 < $(LAB8_PATCH)
	rm -f $@
	$(VERILATOR) $(subst -Irtl -y rtl,-I$(LAB8_DIR)/rtl -y $(LAB8_DIR)/rtl,$(RTL_VFLAGS)) \
	  $(RTL_CORE_TOP) -I$(LAB8_CFG) --top-module core --prefix Vcore --Mdir $(LAB8_DIR)/obj -o ../rtl-bench \
	  -CFLAGS "-I$(abspath cmodel/include/tpu) -I$(abspath sim) -I$(abspath $(LAB8_CFG))" \
	  -LDFLAGS "$(abspath $(LIB)) -lm" \
	  $(RTL_WAIVERS) $(LAB8_DIR)/rtl/core.v $(abspath $(RTL_BENCH_CPP)) $(abspath $(RTL_SPARSE_CPP))
	+$(MAKE) --no-print-directory -C $(LAB8_DIR)/obj -f $(RTL_PCH_MK) VM_MK=Vcore.mk $(RTL_MKFLAGS)
