# sim/cosim/coverage.mk - RTL coverage (docs/cosim.md, "Coverage").
# Included by the main Makefile.
#
#   make coverage     tiny's and tiny-odd's core and two-core system and
#                     tiny-wide's core built with Verilator's line and toggle
#                     coverage, run on every program in lockstep and
#                     COVERAGE_SEEDS random programs on each; the counts
#                     merged (build/coverage/merged.dat), a table per unit and
#                     the sources annotated (build/coverage/annotated/)
#
# Outside make test: one more Verilated build of each top and config (about
# 20 minutes on 2 CPUs, one after another) and the runs (about 40 in all).

COV_DIR         := build/coverage
COVERAGE_SEEDS  ?= 200
VERILATOR_COVERAGE ?= verilator_coverage

.PHONY: coverage

$(COV_DIR)/rtl-bench: build/rtl/tiny/tpu_cfg.vh $(RTL_BENCH_DEPS)
	$(call rtl_bench_recipe,core,$(COV_DIR)/obj,build/rtl/tiny,--coverage-line --coverage-toggle)
	cp build/rtl/tiny/rtl_config.h $(COV_DIR)/rtl_config.h

$(COV_DIR)/rtl-bench2: build/rtl/tiny/tpu_cfg.vh $(RTL_BENCH_DEPS)
	$(call rtl_bench_recipe,system,$(COV_DIR)/obj2,build/rtl/tiny,--coverage-line --coverage-toggle,2)

# The same on tiny-odd (sim/cosim/tiny-odd.cfg: uneven rates, a VMEM budget
# that binds, a queue depth of 3), whose rules tiny never exercises.
$(COV_DIR)/odd/rtl-bench: $(MUT_DIR)/tiny-odd/tpu_cfg.vh $(RTL_BENCH_DEPS)
	$(call rtl_bench_recipe,core,$(COV_DIR)/odd/obj,$(MUT_DIR)/tiny-odd,--coverage-line --coverage-toggle)
	cp $(MUT_DIR)/tiny-odd/rtl_config.h $(COV_DIR)/odd/rtl_config.h

$(COV_DIR)/odd/rtl-bench2: $(MUT_DIR)/tiny-odd/tpu_cfg.vh $(RTL_BENCH_DEPS)
	$(call rtl_bench_recipe,system,$(COV_DIR)/odd/obj2,$(MUT_DIR)/tiny-odd,--coverage-line --coverage-toggle,2)

# And on tiny-wide (sim/cosim/tiny-wide.cfg: two weight-load slots, a VPU
# latency of 4, an HBM latency of 0), the shapes neither builds; its core
# only (the two-core programs are skipped there).
MUT_CFG_tiny-wide := sim/cosim/tiny-wide.cfg
$(COV_DIR)/wide/rtl-bench: $(MUT_DIR)/tiny-wide/tpu_cfg.vh $(RTL_BENCH_DEPS)
	$(call rtl_bench_recipe,core,$(COV_DIR)/wide/obj,$(MUT_DIR)/tiny-wide,--coverage-line --coverage-toggle)
	cp $(MUT_DIR)/tiny-wide/rtl_config.h $(COV_DIR)/wide/rtl_config.h

coverage: all $(COV_DIR)/rtl-bench $(COV_DIR)/rtl-bench2 $(COV_DIR)/odd/rtl-bench \
          $(COV_DIR)/odd/rtl-bench2 $(COV_DIR)/wide/rtl-bench
	@rm -rf $(COV_DIR)/dat && mkdir -p $(COV_DIR)/dat
	@TPU_COVERAGE_DIR=$(abspath $(COV_DIR)/dat) JOBS=$(JOBS) \
	  bash sim/rtl/run_tests.sh $(BIN) $(COV_DIR) tiny | tail -n 1
	@TPU_COVERAGE_DIR=$(abspath $(COV_DIR)/dat) JOBS=$(JOBS) TPU_PROGRESS=0 \
	  bash tests/cosim_random.sh $(BIN) $(COV_DIR)/rtl-bench $(COVERAGE_SEEDS) 1 | tail -n 2
	@TPU_COVERAGE_DIR=$(abspath $(COV_DIR)/dat) JOBS=$(JOBS) \
	  bash sim/rtl/run_tests.sh $(BIN) $(COV_DIR)/odd sim/cosim/tiny-odd.cfg | tail -n 1
	@TPU_COVERAGE_DIR=$(abspath $(COV_DIR)/dat) JOBS=$(JOBS) TPU_PROGRESS=0 \
	  bash tests/cosim_random.sh $(BIN) $(COV_DIR)/odd/rtl-bench $(COVERAGE_SEEDS) 1 | tail -n 2
	@TPU_COVERAGE_DIR=$(abspath $(COV_DIR)/dat) JOBS=$(JOBS) \
	  bash sim/rtl/run_tests.sh $(BIN) $(COV_DIR)/wide sim/cosim/tiny-wide.cfg | tail -n 1
	@TPU_COVERAGE_DIR=$(abspath $(COV_DIR)/dat) JOBS=$(JOBS) TPU_PROGRESS=0 \
	  bash tests/cosim_random.sh $(BIN) $(COV_DIR)/wide/rtl-bench $(COVERAGE_SEEDS) 1 | tail -n 2
	@bash sim/cosim/coverage_report.sh $(VERILATOR_COVERAGE) $(COV_DIR)
