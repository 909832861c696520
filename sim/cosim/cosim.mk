# sim/cosim/cosim.mk - co-simulation checks beyond rtl.mk (docs/cosim.md):
# constrained-random lockstep, soak, and the mutation test.  Included by the
# main Makefile after sim/rtl/rtl.mk, whose variables it reuses.
#
#   make cosim-random     COSIM_SEEDS random programs on the tiny RTL (and
#                         COSIM_SEEDS_MID on mid) in lockstep
#   make soak             new seeds for SOAK_SECONDS (default 600), split
#                         over SOAK_CONFIGS (tiny mid), starting at a seed
#                         from the clock; cycles and programs per hour
#   make cosim-mutant     the bench of the mutation test: tiny's meta-mutant
#                         bench (sim/cosim/mutants.mk), whose mutant 86
#                         (+mutant=86) flips one product bit for one operand
#                         pair (sim/cosim/mutants.def)
#   make cosim-report-test  cmocka tests of the mismatch report
#                         (sim/cosim/trace_records.h), no Verilator needed
#   make cosim-mutation   the mutation test: lockstep must catch the mutant
#                         at the right cycle and unit, name the instruction
#                         in flight and write the waveform
#                         (tests/cosim_mutation.sh)
#   make cosim-cli-test   tpu-cosim's command line: a bad --config, run-time
#                         errors and their exit statuses, a failing --bench,
#                         Ctrl-C and SIGTERM (tests/cosim_cli.sh)

COSIM_SEEDS      ?= 200
COSIM_SEEDS_MID  ?= 0
SOAK_SECONDS     ?= 600
SOAK_CONFIGS     ?= tiny mid
COSIM_MUT_CFG    := build/rtl/tiny
# The mutation test's bug is mutant 86 of the catalogue: no build of its own.
COSIM_MUT_BENCH  := build/mutants/tiny/rtl-bench
COSIM_MUT_ID     := 86

.PHONY: randprog-coverage cosim-random soak cosim-mutant cosim-mutation cosim-report-test cosim-cli-test

# The report's own tests: the header is C++, the test uses cmocka.
COSIM_TEST      := $(BUILD)/cosim/test_trace_records
$(COSIM_TEST): sim/cosim/test_trace_records.cpp $(RTL_BENCH_HDRS) $(LIB) sim/cosim/cosim.mk
	@mkdir -p $(dir $@)
	$(CXX) -std=c++17 -Wall -Wextra -Werror -g $(OPT) $(SANFLAGS) $(INCLUDES) \
	  -o $@ sim/cosim/test_trace_records.cpp $(LIB) -lcmocka -lm

cosim-report-test: $(COSIM_TEST)
	@$(COSIM_TEST)

cosim-random: $(BIN)/tpu-randprog $(BIN)/tpu-as
	@$(MAKE) -s --no-print-directory rtl-build RTL_CONFIG=tiny
	@bash tests/cosim_random.sh $(BIN) build/rtl/tiny/rtl-bench $(COSIM_SEEDS) 1
	@if [ "$(COSIM_SEEDS_MID)" -gt 0 ]; then \
	  $(MAKE) -s --no-print-directory rtl-build RTL_CONFIG=mid && \
	  bash tests/cosim_random.sh $(BIN) build/rtl/mid/rtl-bench $(COSIM_SEEDS_MID) 1; fi

# The soak: SOAK_SECONDS split over SOAK_CONFIGS, JOBS programs at once,
# long programs (--length 3000), failures kept with their waveform and a
# shrunk program (cosim_random.sh --keep).  The first seed is the clock's
# seconds times 100: a soak checks well under 100 programs a second, so soaks
# started at different times never run the same program twice.
soak: $(BIN)/tpu-randprog $(BIN)/tpu-as
	@for c in $(SOAK_CONFIGS); do \
	  $(MAKE) -s --no-print-directory rtl-build RTL_CONFIG=$$c >/dev/null || exit 1; done
	@st=0; for c in $(SOAK_CONFIGS); do \
	  JOBS=$(JOBS) bash tests/cosim_random.sh --keep --length 3000 \
	    --seconds $$(( $(SOAK_SECONDS) / $(words $(SOAK_CONFIGS)) )) $(BIN) build/rtl/$$c/rtl-bench \
	    1000000000 $$(( $$(date +%s) * 100 )) || st=1; \
	done; exit $$st

cosim-mutant: $(COSIM_MUT_BENCH)

cosim-mutation: $(COSIM_MUT_BENCH) $(COSIM_MUT_CFG)/rtl-bench $(BIN)/tpu-as \
                $(BIN)/tpu-cosim cosim-report-test
	@bash tests/cosim_mutation.sh $(BIN) $(COSIM_MUT_CFG)/rtl-bench $(COSIM_MUT_BENCH) +mutant=$(COSIM_MUT_ID)

cosim-cli-test: build/rtl/tiny/rtl-bench $(BIN)/tpu-as $(BIN)/tpu-cosim $(BIN)/tpu-rtlcfg
	@bash tests/cosim_cli.sh $(BIN)

# tpu-cosim is a shell script: installed into $(BIN) like the C commands.
$(BIN)/tpu-cosim: sim/tpu-cosim
	@mkdir -p $(BIN)
	install -m 755 $< $@

# What the random programs exercise in ISA terms (instructions, stall
# reasons, run-time errors): on tiny (printed) and on tiny-odd, where every
# instruction and every stall reason must be seen (make test).
RANDCOV_SEEDS ?= 100
randprog-coverage: $(BIN)/tpu-randprog $(BIN)/tpu-as $(BIN)/tpu-sim $(BIN)/tpu-isagen
	@bash sim/cosim/randprog_coverage.sh $(BIN) tiny $(RANDCOV_SEEDS) | sed -n '1,3p'
	@bash sim/cosim/randprog_coverage.sh --require $(BIN) sim/cosim/tiny-odd.cfg $(RANDCOV_SEEDS)
