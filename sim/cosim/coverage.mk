# sim/cosim/coverage.mk - RTL coverage (docs/cosim.md, "Coverage").
# Included by the main Makefile.
#
#   make coverage     tiny's core and two-core system built with Verilator's
#                     line and toggle coverage, run on every program in
#                     lockstep and COVERAGE_SEEDS random programs; the counts
#                     merged (build/coverage/merged.dat), a table per unit and
#                     the sources annotated (build/coverage/annotated/)
#
# Outside make test: one more Verilated build of each top (about 4 minutes
# on 2 CPUs) and the runs.

COV_DIR         := build/coverage
COVERAGE_SEEDS  ?= 200
VERILATOR_COVERAGE ?= verilator_coverage

.PHONY: coverage

$(COV_DIR)/rtl-bench: build/rtl/tiny/tpu_cfg.vh $(RTL_BENCH_DEPS)
	$(call rtl_bench_recipe,core,$(COV_DIR)/obj,build/rtl/tiny,--coverage-line --coverage-toggle)
	cp build/rtl/tiny/rtl_config.h $(COV_DIR)/rtl_config.h

$(COV_DIR)/rtl-bench2: build/rtl/tiny/tpu_cfg.vh $(RTL_BENCH_DEPS)
	$(call rtl_bench_recipe,system,$(COV_DIR)/obj2,build/rtl/tiny,--coverage-line --coverage-toggle,2)

coverage: all $(COV_DIR)/rtl-bench $(COV_DIR)/rtl-bench2
	@rm -rf $(COV_DIR)/dat && mkdir -p $(COV_DIR)/dat
	@TPU_COVERAGE_DIR=$(abspath $(COV_DIR)/dat) JOBS=$(JOBS) \
	  bash sim/rtl/run_tests.sh $(BIN) $(COV_DIR) tiny | tail -n 1
	@TPU_COVERAGE_DIR=$(abspath $(COV_DIR)/dat) JOBS=$(JOBS) TPU_PROGRESS=0 \
	  bash tests/cosim_random.sh $(BIN) $(COV_DIR)/rtl-bench $(COVERAGE_SEEDS) 1 | tail -n 2
	@bash sim/cosim/coverage_report.sh $(VERILATOR_COVERAGE) $(COV_DIR)
