# sim/systemc/systemc.mk - the core as a SystemC/TLM-2.0 model (Debian's
# libsystemc-dev, C++17): the module, an example virtual platform, the
# tests, and the SystemC lockstep top (Verilated RTL and C model on one
# sc_clock).  Included by the main Makefile (docs/systemc.md).
#
#   make systemc-build   build/systemc/: tpu-vp, test_tlm, tpu-sc-lockstep
#   make systemc-test    the TLM tests, the virtual platform on the example
#                        programs (results and cycle counts against tpu-sim)
#                        and the lockstep top on the program regression
#
# The C model stays C: libtpu.a, plus sim/systemc/tpu_sc_mem.c compiled
# with the project's C flags.  C++ compiles go through ccache when it is
# installed; nothing is rebuilt that has not changed (-MMD dependencies,
# picked up by the main Makefile's include of $(BUILD)/**/*.d).

SC_DIR       := sim/systemc
SC_BUILD     := $(BUILD)/systemc
SC_CCACHE    := $(if $(shell command -v ccache 2>/dev/null),ccache,)
SC_CXX       := $(SC_CCACHE) $(CXX)
SC_CXXFLAGS  := -std=c++17 -Wall -Wextra -Werror -g $(OPT) $(SANFLAGS) -Icmodel -Isim \
                -I$(SC_DIR) $(shell pkg-config --cflags systemc 2>/dev/null)
SC_LIBS      := $(shell pkg-config --libs systemc 2>/dev/null || echo -lsystemc) -lpthread -lm

SC_CORE_OBJS := $(SC_BUILD)/tpu_core_tlm.o $(SC_BUILD)/tpu_host.o $(SC_BUILD)/tpu_sc_mem.o

.PHONY: systemc-build systemc-test

$(SC_BUILD)/%.o: $(SC_DIR)/%.cpp
	@mkdir -p $(dir $@)
	$(SC_CXX) $(SC_CXXFLAGS) $(DEPFLAGS) -c $< -o $@

$(SC_BUILD)/tests/%.o: $(SC_DIR)/tests/%.cpp
	@mkdir -p $(dir $@)
	$(SC_CXX) $(SC_CXXFLAGS) $(DEPFLAGS) -c $< -o $@

# The one C file: the model's inside, for DMI pointers.
$(SC_BUILD)/tpu_sc_mem.o: $(SC_DIR)/tpu_sc_mem.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(DEPFLAGS) -c $< -o $@

$(SC_BUILD)/tpu-vp: $(SC_BUILD)/tpu_vp.o $(SC_CORE_OBJS) $(LIB)
	$(CXX) $(LDFLAGS) -o $@ $^ $(SC_LIBS)

$(SC_BUILD)/test_tlm: $(SC_BUILD)/tests/test_tlm.o $(SC_CORE_OBJS) $(LIB)
	$(CXX) $(LDFLAGS) -o $@ $^ $(SC_LIBS) -lcmocka

systemc-build: $(SC_BUILD)/tpu-vp $(SC_BUILD)/test_tlm

systemc-test: systemc-build $(BIN)/tpu-as $(BIN)/tpu-sim
	@bash $(SC_DIR)/tests/run.sh $(BIN) $(SC_BUILD)
