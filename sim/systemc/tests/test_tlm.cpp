// test_tlm.cpp - tpu_core_tlm on its bus: every bad access gets the
// response docs/systemc.md promises, registers reset and behave as
// documented, DMI and debug transport follow the policy, and a run under
// the sc_clock takes exactly the C model's cycles.
//
// One platform (clock, core on the tiny config, a test initiator) is built
// in sc_main; the tests run in order on it (cmocka), calling the core's
// socket from sc_main and advancing time with sc_start().  Programs are
// assembled in-process (sim/asm/asm.h); the matmul one is programs/matmul_tile.s,
// read relative to the working directory (make runs from the top).
#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>

#include <cstdarg>
#include <csetjmp>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

extern "C" {
#include <cmocka.h>

#include "asm.h"
#include "config.h"
#include "expect.h"
#include "objfile.h"
#include "tpu.h"
}

#include "tpu_core_regs.h"
#include "tpu_core_tlm.h"
#include "tpu_host.h"

using namespace tpu_sc;
using tlm::tlm_response_status;

namespace {

const tlm::tlm_command RD = tlm::TLM_READ_COMMAND, WR = tlm::TLM_WRITE_COMMAND;
const tlm_response_status OK = tlm::TLM_OK_RESPONSE;
const tlm_response_status E_ADDR = tlm::TLM_ADDRESS_ERROR_RESPONSE;
const tlm_response_status E_CMD = tlm::TLM_COMMAND_ERROR_RESPONSE;
const tlm_response_status E_BURST = tlm::TLM_BURST_ERROR_RESPONSE;
const tlm_response_status E_BE = tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE;
const tlm_response_status E_GEN = tlm::TLM_GENERIC_ERROR_RESPONSE;

// The platform: a clock, the core, an initiator that records DMI
// invalidations.
struct Bench : sc_core::sc_module {
    tlm_utils::simple_initiator_socket<Bench> socket;
    sc_core::sc_clock clock;
    sc_core::sc_signal<bool> irq;
    tpu_core_tlm core;
    Host host;
    std::vector<std::pair<uint64_t, uint64_t>> invalidations;

    Bench(sc_core::sc_module_name n, const tpu_config &cfg, unsigned cores = 1)
        : sc_module(n), socket("socket"), clock("clock", 1, sc_core::SC_NS), irq("irq"),
          core("core", cfg, cores)
    {
        socket.bind(core.socket);
        core.clk(clock);
        core.irq(irq);
        socket.register_invalidate_direct_mem_ptr(this, &Bench::invalidate);
    }

    void invalidate(sc_dt::uint64 start, sc_dt::uint64 end)
    {
        invalidations.push_back({ start, end });
    }

    tlm::tlm_fw_transport_if<> *fw() { return socket.operator->(); }
};

Bench *bench(void **state)
{
    return static_cast<Bench *>(*state);
}

// ---- helpers ----------------------------------------------------------------------

tlm_response_status acc(Bench *b, tlm::tlm_command cmd, uint64_t addr, void *data, unsigned len,
                        const unsigned char *be = nullptr, unsigned bel = 0, unsigned sw = 0)
{
    return b->host.access(cmd, addr, data, len, be, bel, sw);
}

// The response to a read and to a write of `len` bytes at addr.
void expect_rw(Bench *b, uint64_t addr, unsigned len, tlm_response_status rd,
               tlm_response_status wr)
{
    uint8_t buf[16] = { 0 };
    tlm_response_status r = acc(b, RD, addr, buf, len), w = acc(b, WR, addr, buf, len);
    if (r != rd || w != wr)
        fail_msg("0x%llx, %u bytes: read %s, write %s; expected %s, %s",
                 (unsigned long long)addr, len, Host::status_name(r), Host::status_name(w),
                 Host::status_name(rd), Host::status_name(wr));
}

void advance(unsigned cycles)
{
    sc_core::sc_start(sc_core::sc_time(cycles, sc_core::SC_NS));
}

// Advance until the core leaves RUNNING (at most `limit` cycles).
void run_to_end(Bench *b, unsigned limit = 1000000)
{
    for (unsigned i = 0; i < limit && b->core.state() == STATE_RUNNING; i += 100)
        advance(100);
    advance(1);     // let the interrupt signal settle
    assert_int_not_equal(b->core.state(), STATE_RUNNING);
}

// No run going on, no interrupt pending, interrupts off, no cycle limit.
void quiesce(Bench *b)
{
    assert_int_equal(b->host.write32(REG_CTRL, CTRL_STOP), OK);
    assert_int_equal(b->host.write32(REG_IRQ_STATUS, IRQ_DONE), OK);
    assert_int_equal(b->host.write32(REG_IRQ_ENABLE, 0), OK);
    assert_int_equal(b->host.write64(REG_MAX_CYCLES, 0), OK);
    advance(1);
}

// Assemble src for the tiny config; fails the test on errors.
void assemble(const std::string &src, const char *name, tpu_object *obj)
{
    tpu_config cfg;
    char err[300];
    assert_int_equal(tpu_config_load(&cfg, "tiny", err, sizeof err), 0);
    tpu_asm_options o;
    memset(&o, 0, sizeof o);
    o.config = &cfg;
    tpu_asm_result res;
    int rc = tpu_asm_assemble(src.data(), src.size(), name, &o, obj, &res);
    if (rc != 0)
        fail_msg("%s", res.messages);
    tpu_asm_result_free(&res);
}

std::string read_file(const char *path)
{
    std::string s;
    FILE *f = fopen(path, "rb");
    if (!f)
        fail_msg("cannot open %s (run from the top of the repository)", path);
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        s.append(buf, n);
    fclose(f);
    return s;
}

void load(Bench *b, const tpu_object &obj)
{
    std::string err;
    if (b->host.load(obj, false, &err) < 0)
        fail_msg("load: %s", err.c_str());
}

// The same object on a plain C model, run to its end: the golden numbers.
struct Golden {
    enum tpu_stop stop;
    uint64_t cycles, pc, insns;
    std::string error;
};

// With cores > 1: a ring of that many, and pc and insns are core `core`'s.
Golden golden(const tpu_object &obj, uint64_t max_cycles = 0, unsigned cores = 1,
              unsigned core = 0)
{
    tpu_config cfg;
    char err[600];
    assert_int_equal(tpu_config_load(&cfg, "tiny", err, sizeof err), 0);
    tpu_system_opts o;
    memset(&o, 0, sizeof o);
    o.cores = cores;
    o.topology = cores > 1 ? TPU_TOPO_RING : TPU_TOPO_SINGLE;
    tpu_system *s = tpu_system_create(&cfg, &o, err, sizeof err);
    assert_non_null(s);
    assert_int_equal(tpu_system_load(s, &obj, err, sizeof err), 0);
    Golden g;
    g.stop = tpu_system_run(s, max_cycles);
    g.cycles = tpu_system_cycle(s);
    tpu_seq_view v;
    tpu_core_seq_view(tpu_system_core(s, core), &v);
    g.pc = v.pc;
    tpu_stats st;
    tpu_core_stats(tpu_system_core(s, core), &st);
    g.insns = st.instructions;
    g.error = tpu_system_error(s);
    tpu_system_destroy(s);
    return g;
}

std::string error_text(Bench *b)
{
    char text[ERROR_TEXT_SIZE];
    assert_int_equal(acc(b, RD, REG_ERROR_TEXT, text, ERROR_TEXT_SIZE), OK);
    text[ERROR_TEXT_SIZE - 1] = 0;
    return text;
}

const char kLoop[] =
    "loop:   addi s1, s1, 1\n"
    "        jmp loop\n";

const char kBadVld[] =
    "        li  s1, 0x7ffffff0\n"
    "        nop\n"
    "        vld v0, s1, 0\n"
    "        halt\n";

// ---- tests ---------------------------------------------------------------------------

// Every register's reset value (docs/systemc.md, the register map).
void test_reset_values(void **state)
{
    Bench *b = bench(state);
    assert_int_equal(b->host.reg32(REG_ID), ID_VALUE);
    assert_int_equal(b->host.reg32(REG_VERSION), VERSION_VALUE);
    assert_int_equal(b->host.reg32(REG_CTRL), 0);
    assert_int_equal(b->host.reg32(REG_STATUS), STATE_IDLE);
    assert_int_equal(b->host.reg32(REG_ERROR), ERR_NONE);
    assert_int_equal(b->host.reg32(REG_IRQ_ENABLE), 0);
    assert_int_equal(b->host.reg32(REG_IRQ_STATUS), 0);
    assert_int_equal(b->host.reg64(REG_PC), 0);
    assert_int_equal(b->host.reg64(REG_CYCLE), 0);
    assert_int_equal(b->host.reg64(REG_INSTRET), 0);
    assert_int_equal(b->host.reg64(REG_MAX_CYCLES), 0);
    assert_int_equal(b->host.reg32(REG_MXU_N), 8);
    assert_int_equal(b->host.reg32(REG_NUM_MXU), 1);
    assert_int_equal(b->host.reg32(REG_VPU_SUBLANES), 8);
    assert_int_equal(b->host.reg32(REG_VPU_LANES), 8);
    assert_int_equal(b->host.reg64(REG_IMEM_BYTES), 4096 * 8);
    assert_int_equal(b->host.reg64(REG_VMEM_BYTES), 256 * 1024);
    assert_int_equal(b->host.reg64(REG_HBM_BYTES), 16 * 1024 * 1024);
    assert_int_equal(b->host.reg32(REG_CORES), 1);
    assert_int_equal(b->host.reg32(REG_CORE_SEL), 0);
    assert_string_equal(error_text(b).c_str(), "");
    assert_false(b->irq.read());
    // 32-bit halves of a 64-bit register
    uint32_t lo = 1, hi = 1;
    assert_int_equal(acc(b, RD, REG_HBM_BYTES, &lo, 4), OK);
    assert_int_equal(acc(b, RD, REG_HBM_BYTES + 4, &hi, 4), OK);
    assert_int_equal(lo, 16 * 1024 * 1024);
    assert_int_equal(hi, 0);
}

// Outside the map, in a hole of the register block, not at a register's
// first byte, past the end of a memory: TLM_ADDRESS_ERROR_RESPONSE.
void test_address_errors(void **state)
{
    Bench *b = bench(state);
    quiesce(b);
    expect_rw(b, REG_SIZE, 4, E_ADDR, E_ADDR);                  // between registers and IMEM
    expect_rw(b, IMEM_BASE - 4, 4, E_ADDR, E_ADDR);
    expect_rw(b, IMEM_BASE + IMEM_WINDOW, 4, E_ADDR, E_ADDR);   // between IMEM and VMEM
    expect_rw(b, MAP_END, 4, E_ADDR, E_ADDR);
    expect_rw(b, ~0ull - 3, 4, E_ADDR, E_ADDR);
    expect_rw(b, 0x01c, 4, E_ADDR, E_ADDR);                     // holes
    expect_rw(b, 0x070, 8, E_ADDR, E_ADDR);
    expect_rw(b, 0x300, 4, E_ADDR, E_ADDR);
    expect_rw(b, 0xffc, 4, E_ADDR, E_ADDR);
    expect_rw(b, REG_CTRL + 1, 1, E_ADDR, E_ADDR);              // inside a register
    expect_rw(b, REG_PC + 2, 4, E_ADDR, E_ADDR);
    expect_rw(b, REG_STATUS + 2, 2, E_ADDR, E_ADDR);
    uint64_t imem = 4096 * 8, vmem = 256 * 1024, hbm = 16 * 1024 * 1024;
    expect_rw(b, IMEM_BASE + imem, 4, E_ADDR, E_ADDR);          // past the memories
    expect_rw(b, IMEM_BASE + imem - 4, 8, E_ADDR, E_ADDR);      // crossing the end
    expect_rw(b, VMEM_BASE + vmem - 1, 2, E_ADDR, E_ADDR);
    expect_rw(b, VMEM_BASE + vmem, 1, E_ADDR, E_ADDR);
    expect_rw(b, HBM_BASE + hbm, 1, E_ADDR, E_ADDR);
    expect_rw(b, HBM_BASE + HBM_WINDOW - 8, 8, E_ADDR, E_ADDR);
    uint8_t buf[8];
    assert_int_equal(acc(b, RD, REG_ERROR_TEXT + ERROR_TEXT_SIZE - 1, buf, 2), E_ADDR);
    assert_int_equal(acc(b, tlm::TLM_IGNORE_COMMAND, REG_SIZE, buf, 4), E_ADDR);
    // the last bytes of each memory are fine
    expect_rw(b, IMEM_BASE + imem - 8, 8, OK, OK);
    expect_rw(b, VMEM_BASE + vmem - 1, 1, OK, OK);
    expect_rw(b, HBM_BASE + hbm - 8, 8, OK, OK);
    assert_int_equal(b->host.reg32(REG_STATUS), STATE_IDLE);    // nothing happened
}

// Writes to read-only registers: TLM_COMMAND_ERROR_RESPONSE, no effect.
void test_command_errors(void **state)
{
    Bench *b = bench(state);
    quiesce(b);
    const uint64_t ro32[] = { REG_ID, REG_VERSION, REG_STATUS, REG_ERROR, REG_MXU_N, REG_NUM_MXU,
                              REG_VPU_SUBLANES, REG_VPU_LANES };
    const uint64_t ro64[] = { REG_PC, REG_CYCLE, REG_INSTRET, REG_IMEM_BYTES, REG_VMEM_BYTES,
                              REG_HBM_BYTES };
    for (uint64_t r : ro32)
        expect_rw(b, r, 4, OK, E_CMD);
    for (uint64_t r : ro64) {
        expect_rw(b, r, 8, OK, E_CMD);
        expect_rw(b, r, 4, OK, E_CMD);
        expect_rw(b, r + 4, 4, OK, E_CMD);
    }
    expect_rw(b, REG_ERROR_TEXT, 4, OK, E_CMD);
    expect_rw(b, REG_ERROR_TEXT + 3, 16, OK, E_CMD);
    assert_int_equal(b->host.reg32(REG_ID), ID_VALUE);
    assert_int_equal(b->host.reg64(REG_HBM_BYTES), 16 * 1024 * 1024);
    // write-only CTRL reads 0; TLM_IGNORE_COMMAND on a read-only register is fine
    uint32_t v = 0;
    assert_int_equal(acc(b, tlm::TLM_IGNORE_COMMAND, REG_ID, &v, 4), OK);
}

// Wrong length or streaming width for a register, an empty access to a
// memory: TLM_BURST_ERROR_RESPONSE.
void test_burst_errors(void **state)
{
    Bench *b = bench(state);
    quiesce(b);
    expect_rw(b, REG_ID, 2, E_BURST, E_BURST);
    expect_rw(b, REG_ID, 8, E_BURST, E_BURST);
    expect_rw(b, REG_STATUS, 1, E_BURST, E_BURST);
    expect_rw(b, REG_IRQ_ENABLE, 8, E_BURST, E_BURST);
    expect_rw(b, REG_PC + 4, 8, E_BURST, E_BURST);
    expect_rw(b, REG_MAX_CYCLES, 2, E_BURST, E_BURST);
    uint8_t buf[16] = { 0 };
    assert_int_equal(acc(b, RD, REG_ID, buf, 4, nullptr, 0, 2), E_BURST);   // streaming width
    assert_int_equal(acc(b, WR, REG_IRQ_ENABLE, buf, 4, nullptr, 0, 1), E_BURST);
    assert_int_equal(acc(b, RD, REG_ERROR_TEXT, buf, 0), E_BURST);
    assert_int_equal(acc(b, RD, VMEM_BASE, buf, 0), E_BURST);               // empty
    assert_int_equal(acc(b, WR, HBM_BASE, buf, 0), E_BURST);
    tlm::tlm_generic_payload t;                                             // width 0
    sc_core::sc_time d = sc_core::SC_ZERO_TIME;
    t.set_command(RD);
    t.set_address(VMEM_BASE);
    t.set_data_ptr(buf);
    t.set_data_length(4);
    t.set_streaming_width(0);
    b->fw()->b_transport(t, d);
    assert_int_equal(t.get_response_status(), E_BURST);
}

// A read or write without a data buffer: TLM_GENERIC_ERROR_RESPONSE (and
// debug transport moves nothing), not a crash.
void test_no_data_pointer(void **state)
{
    Bench *b = bench(state);
    quiesce(b);
    assert_int_equal(acc(b, RD, VMEM_BASE, nullptr, 8), E_GEN);
    assert_int_equal(acc(b, WR, REG_IRQ_ENABLE, nullptr, 4), E_GEN);
    assert_int_equal(acc(b, tlm::TLM_IGNORE_COMMAND, HBM_BASE, nullptr, 8), OK);
    assert_int_equal(acc(b, RD, REG_SIZE, nullptr, 4), E_ADDR);
    tlm::tlm_generic_payload t;
    t.set_command(RD);
    t.set_address(VMEM_BASE);
    t.set_data_ptr(nullptr);
    t.set_data_length(8);
    assert_int_equal(b->fw()->transport_dbg(t), 0);
}

// Byte enables: registers take none or all enabled; memories take 0x00
// and 0xff per byte; anything else, or a pointer with length 0, is
// TLM_BYTE_ENABLE_ERROR_RESPONSE.
void test_byte_enable_errors(void **state)
{
    Bench *b = bench(state);
    quiesce(b);
    uint32_t v = 1;
    const unsigned char part[4] = { 0xff, 0xff, 0x00, 0xff }, all[4] = { 0xff, 0xff, 0xff, 0xff };
    const unsigned char odd[2] = { 0xff, 0x0f };
    assert_int_equal(acc(b, WR, REG_IRQ_ENABLE, &v, 4, part, 4), E_BE);
    assert_int_equal(b->host.reg32(REG_IRQ_ENABLE), 0);
    assert_int_equal(acc(b, RD, REG_ID, &v, 4, part, 4), E_BE);
    assert_int_equal(acc(b, RD, REG_ID, &v, 4, all, 4), OK);
    assert_int_equal(v, ID_VALUE);
    assert_int_equal(acc(b, RD, REG_ID, &v, 4, all, 0), E_BE);
    uint8_t buf[8] = { 0 };
    assert_int_equal(acc(b, WR, VMEM_BASE + 64, buf, 8, odd, 2), E_BE);
    assert_int_equal(acc(b, RD, HBM_BASE, buf, 8, odd, 2), E_BE);
    assert_int_equal(acc(b, WR, VMEM_BASE + 64, buf, 8, all, 0), E_BE);
    assert_int_equal(acc(b, RD, REG_ERROR_TEXT, buf, 8, part, 4), E_BE);
}

// Byte enables and streaming width on a memory window do what TLM says.
void test_memory_byte_enables_and_streaming(void **state)
{
    Bench *b = bench(state);
    quiesce(b);
    uint8_t ones[8], got[8], data[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
    memset(ones, 0xee, sizeof ones);
    const unsigned char even[2] = { 0xff, 0x00 };
    assert_int_equal(acc(b, WR, VMEM_BASE + 128, ones, 8), OK);
    assert_int_equal(acc(b, WR, VMEM_BASE + 128, data, 8, even, 2), OK);   // bytes 0, 2, 4, 6
    assert_int_equal(acc(b, RD, VMEM_BASE + 128, got, 8), OK);
    const uint8_t want[8] = { 1, 0xee, 3, 0xee, 5, 0xee, 7, 0xee };
    assert_memory_equal(got, want, 8);
    memset(got, 0, sizeof got);                                           // masked read
    assert_int_equal(acc(b, RD, VMEM_BASE + 128, got, 8, even, 2), OK);
    const uint8_t want_rd[8] = { 1, 0, 3, 0, 5, 0, 7, 0 };
    assert_memory_equal(got, want_rd, 8);
    // streaming width 4: bytes 4..7 go to the same 4 addresses after 0..3
    assert_int_equal(acc(b, WR, HBM_BASE + 256, data, 8, nullptr, 0, 4), OK);
    assert_int_equal(acc(b, RD, HBM_BASE + 256, got, 8), OK);
    const uint8_t want_sw[8] = { 5, 6, 7, 8, 0, 0, 0, 0 };
    assert_memory_equal(got, want_sw, 8);
    assert_int_equal(acc(b, RD, HBM_BASE + 256, got, 8, nullptr, 0, 4), OK);
    const uint8_t want_swr[8] = { 5, 6, 7, 8, 5, 6, 7, 8 };
    assert_memory_equal(got, want_swr, 8);
    // the streaming width decides how far the access reaches
    uint64_t hbm = 16 * 1024 * 1024;
    assert_int_equal(acc(b, RD, HBM_BASE + hbm - 4, got, 8, nullptr, 0, 4), OK);
}

// CTRL misuse: TLM_GENERIC_ERROR_RESPONSE and nothing changes; a start
// while running is one of them.
void test_control_errors(void **state)
{
    Bench *b = bench(state);
    quiesce(b);
    uint32_t st0 = b->host.reg32(REG_STATUS);
    assert_int_equal(b->host.write32(REG_CTRL, CTRL_START | CTRL_STOP), E_GEN);
    assert_int_equal(b->host.write32(REG_CTRL, 1u << 5), E_GEN);
    assert_int_equal(b->host.write32(REG_CTRL, CTRL_RESUME), E_GEN);   // nothing to resume
    assert_int_equal(b->host.write32(REG_CTRL, CTRL_STOP), OK);        // not running: nothing
    assert_int_equal(b->host.write32(REG_CTRL, 0), OK);
    assert_int_equal(b->host.reg32(REG_STATUS), st0);

    tpu_object obj;
    assemble(kLoop, "loop.s", &obj);
    load(b, obj);
    tpu_obj_free(&obj);
    assert_int_equal(b->host.write32(REG_IRQ_ENABLE, IRQ_DONE), OK);
    assert_int_equal(b->host.write32(REG_CTRL, CTRL_START), OK);
    advance(20);
    assert_int_equal(b->host.reg32(REG_STATUS), STATE_RUNNING);
    uint64_t c0 = b->host.reg64(REG_CYCLE);
    assert_int_equal(c0, 19);     // edges t+1 .. t+19: not the edge at the START's time
    assert_int_equal(b->host.write32(REG_CTRL, CTRL_START), E_GEN);    // start while running
    assert_int_equal(b->host.write32(REG_CTRL, CTRL_RESUME), E_GEN);
    advance(10);
    assert_int_equal(b->host.reg32(REG_STATUS), STATE_RUNNING);
    assert_int_equal(b->host.reg64(REG_CYCLE), c0 + 10);               // the run went on
    assert_false(b->irq.read());
    assert_int_equal(b->host.write32(REG_CTRL, CTRL_STOP), OK);
    uint64_t c1 = b->host.reg64(REG_CYCLE);
    advance(10);
    assert_int_equal(b->host.reg32(REG_STATUS), STATE_STOPPED | STATUS_IRQ);
    assert_int_equal(b->host.reg64(REG_CYCLE), c1);                    // no more steps
    assert_true(b->irq.read());                                        // stop raises done
    assert_int_equal(b->host.write32(REG_CTRL, CTRL_RESUME), OK);
    advance(1);
    assert_false(b->irq.read());                                       // resume clears it
    advance(9);
    assert_int_equal(b->host.reg64(REG_CYCLE), c1 + 9);
    quiesce(b);
}

// A program to halt: the done interrupt, the registers, the cycle count
// of the plain C model (one step per clock edge), the results over TLM;
// then the interrupt acknowledged.
void test_run_to_halt(void **state)
{
    Bench *b = bench(state);
    quiesce(b);
    tpu_object obj;
    assemble(read_file("programs/matmul_tile.s"), "programs/matmul_tile.s", &obj);
    load(b, obj);
    Golden g = golden(obj);
    assert_int_equal(g.stop, TPU_STOP_HALT);

    assert_int_equal(b->host.write32(REG_IRQ_ENABLE, IRQ_DONE), OK);
    uint64_t steps0 = b->core.steps();
    sc_core::sc_time t0 = sc_core::sc_time_stamp();
    assert_int_equal(b->host.write32(REG_CTRL, CTRL_START), OK);
    while (!b->irq.read())
        advance(1);
    // time from the start to the interrupt: one clock period per cycle,
    // and one more because the START came at the time of an edge, which
    // does not count (the run's first cycle is the next edge)
    double periods = (sc_core::sc_time_stamp() - t0) / sc_core::sc_time(1, sc_core::SC_NS);
    assert_int_equal(b->host.reg32(REG_STATUS), STATE_HALTED | STATUS_IRQ);
    assert_int_equal(b->host.reg32(REG_ERROR), ERR_NONE);
    assert_int_equal(b->host.reg64(REG_CYCLE), g.cycles);
    assert_int_equal(b->core.steps() - steps0, g.cycles);
    assert_int_equal((uint64_t)periods, g.cycles + 1);
    assert_int_equal(b->host.reg64(REG_PC), g.pc);
    assert_int_equal(b->host.reg64(REG_INSTRET), g.insns);
    assert_int_equal(b->host.reg32(REG_IRQ_STATUS), IRQ_DONE);

    tpu_expect_result res;
    b->host.check(obj, &res);
    assert_int_equal(res.status, TPU_EXPECT_PASS);

    assert_int_equal(b->host.write32(REG_IRQ_STATUS, 0), OK);         // writing 0 clears nothing
    advance(1);
    assert_true(b->irq.read());
    assert_int_equal(b->host.write32(REG_IRQ_ENABLE, 0), OK);         // masked: line low,
    advance(1);
    assert_false(b->irq.read());
    assert_int_equal(b->host.reg32(REG_IRQ_STATUS), IRQ_DONE);        // still pending
    assert_int_equal(b->host.write32(REG_IRQ_ENABLE, IRQ_DONE), OK);
    advance(1);
    assert_true(b->irq.read());
    assert_int_equal(b->host.write32(REG_IRQ_STATUS, IRQ_DONE), OK);  // acknowledge
    advance(1);
    assert_false(b->irq.read());
    assert_int_equal(b->host.reg32(REG_STATUS), STATE_HALTED);
    advance(10);
    assert_int_equal(b->host.reg64(REG_CYCLE), g.cycles);             // halted stays halted
    tpu_obj_free(&obj);
}

// A second START after a run: a new run from pc 0 on the same memories
// (same cycles, same results), and DMI pointers into the old ones are
// invalidated.
void test_restart(void **state)
{
    Bench *b = bench(state);
    quiesce(b);
    tpu_object obj;
    assemble(read_file("programs/matmul_tile.s"), "programs/matmul_tile.s", &obj);
    Golden g = golden(obj);
    // the previous test left this program in the core: do not load it again,
    // but spoil the result so that only a real run can restore it
    uint8_t junk[64];
    memset(junk, 0x5a, sizeof junk);
    uint64_t y = obj.expects[0].ops[0].value;
    assert_int_equal(acc(b, WR, VMEM_BASE + y, junk, sizeof junk), OK);
    tpu_expect_result res;
    b->host.check(obj, &res);
    assert_int_equal(res.status, TPU_EXPECT_MISMATCH);

    b->invalidations.clear();
    assert_int_equal(b->host.write32(REG_CTRL, CTRL_START), OK);
    assert_int_equal(b->invalidations.size(), 1);
    assert_true(b->invalidations[0].first == 0 && b->invalidations[0].second == ~0ull);
    assert_int_equal(b->host.reg64(REG_CYCLE), 0);
    run_to_end(b);
    assert_int_equal(b->host.reg32(REG_STATUS) & STATUS_STATE_MASK, STATE_HALTED);
    assert_int_equal(b->host.reg64(REG_CYCLE), g.cycles);
    b->host.check(obj, &res);
    assert_int_equal(res.status, TPU_EXPECT_PASS);
    tpu_obj_free(&obj);
}

// A run-time error: STATUS error, ERROR_RUNTIME, the model's message, the
// interrupt; the cycle count is the C model's.
void test_runtime_error(void **state)
{
    Bench *b = bench(state);
    quiesce(b);
    tpu_object obj;
    assemble(kBadVld, "bad_vld.s", &obj);
    load(b, obj);
    Golden g = golden(obj);
    assert_int_equal(g.stop, TPU_STOP_ERROR);
    assert_int_equal(b->host.write32(REG_IRQ_ENABLE, IRQ_DONE), OK);
    assert_int_equal(b->host.write32(REG_CTRL, CTRL_START), OK);
    run_to_end(b);
    assert_true(b->irq.read());
    assert_int_equal(b->host.reg32(REG_STATUS), STATE_ERROR | STATUS_IRQ);
    assert_int_equal(b->host.reg32(REG_ERROR), ERR_RUNTIME);
    assert_int_equal(b->host.reg64(REG_CYCLE), g.cycles);
    assert_int_equal(b->host.reg64(REG_PC), 2);
    assert_string_equal(error_text(b).c_str(), g.error.c_str());
    assert_non_null(strstr(g.error.c_str(), "out of range"));
    // RESUME does not go on after a run-time error
    assert_int_equal(b->host.write32(REG_CTRL, CTRL_RESUME), E_GEN);
    tpu_obj_free(&obj);
}

// MAX_CYCLES stops a run with the cycle-limit error at exactly that cycle;
// raising the limit and RESUME go on, and STOP/RESUME in the middle cost
// nothing: the total is the uninterrupted run's.
void test_cycle_limit_and_resume(void **state)
{
    Bench *b = bench(state);
    quiesce(b);
    tpu_object obj;
    assemble(read_file("programs/matmul_tile.s"), "programs/matmul_tile.s", &obj);
    load(b, obj);
    Golden g = golden(obj), lim = golden(obj, 10);
    assert_int_equal(lim.stop, TPU_STOP_CYCLE_LIMIT);

    assert_int_equal(b->host.write64(REG_MAX_CYCLES, 10), OK);
    assert_int_equal(b->host.reg64(REG_MAX_CYCLES), 10);
    assert_int_equal(b->host.write32(REG_CTRL, CTRL_START), OK);
    run_to_end(b);
    assert_int_equal(b->host.reg32(REG_STATUS) & STATUS_STATE_MASK, STATE_ERROR);
    assert_int_equal(b->host.reg32(REG_ERROR), ERR_CYCLE_LIMIT);
    assert_int_equal(b->host.reg64(REG_CYCLE), 10);
    assert_string_equal(error_text(b).c_str(), lim.error.c_str());

    uint32_t hi = 0;                                  // the high half alone
    assert_int_equal(acc(b, WR, REG_MAX_CYCLES + 4, &hi, 4), OK);
    uint32_t lo = 20;
    assert_int_equal(acc(b, WR, REG_MAX_CYCLES, &lo, 4), OK);
    assert_int_equal(b->host.reg64(REG_MAX_CYCLES), 20);
    assert_int_equal(b->host.write32(REG_CTRL, CTRL_RESUME), OK);
    assert_int_equal(b->host.reg32(REG_ERROR), ERR_NONE);
    run_to_end(b);
    assert_int_equal(b->host.reg64(REG_CYCLE), 20);
    assert_int_equal(b->host.write64(REG_MAX_CYCLES, 0), OK);
    assert_int_equal(b->host.write32(REG_CTRL, CTRL_RESUME), OK);
    advance(5);
    assert_int_equal(b->host.write32(REG_CTRL, CTRL_STOP), OK);
    advance(7);
    assert_int_equal(b->host.reg32(REG_STATUS) & STATUS_STATE_MASK, STATE_STOPPED);
    assert_int_equal(b->host.write32(REG_CTRL, CTRL_RESUME), OK);
    run_to_end(b);
    assert_int_equal(b->host.reg32(REG_STATUS) & STATUS_STATE_MASK, STATE_HALTED);
    assert_int_equal(b->host.reg64(REG_CYCLE), g.cycles);
    tpu_expect_result res;
    b->host.check(obj, &res);
    assert_int_equal(res.status, TPU_EXPECT_PASS);
    tpu_obj_free(&obj);
}

// DMI: never the registers; IMEM read-only; VMEM read-write; HBM one
// existing page at a time; a denial covers a range.
void test_dmi(void **state)
{
    Bench *b = bench(state);
    quiesce(b);
    tlm::tlm_generic_payload t;
    tlm::tlm_dmi dmi;
    auto ask = [&](uint64_t addr, tlm::tlm_command cmd) {
        dmi.init();
        t.set_address(addr);
        t.set_command(cmd);
        return b->fw()->get_direct_mem_ptr(t, dmi);
    };
    assert_false(ask(REG_STATUS, RD));
    assert_int_equal(dmi.get_start_address(), REG_BASE);
    assert_int_equal(dmi.get_end_address(), REG_BASE + REG_SIZE - 1);
    assert_false(ask(REG_CTRL, WR));
    assert_false(ask(REG_SIZE + 8, RD));                   // outside the map: the gap
    assert_int_equal(dmi.get_start_address(), REG_SIZE);
    assert_int_equal(dmi.get_end_address(), IMEM_BASE - 1);
    assert_false(ask(IMEM_BASE + IMEM_WINDOW + 8, RD));
    assert_int_equal(dmi.get_start_address(), IMEM_BASE + IMEM_WINDOW);
    assert_int_equal(dmi.get_end_address(), VMEM_BASE - 1);
    assert_false(ask(HBM_BASE - 1, WR));
    assert_int_equal(dmi.get_start_address(), VMEM_BASE + VMEM_WINDOW);
    assert_int_equal(dmi.get_end_address(), HBM_BASE - 1);
    assert_false(ask(MAP_END + 1, RD));
    assert_int_equal(dmi.get_start_address(), MAP_END);
    assert_int_equal(dmi.get_end_address(), ~0ull);

    // IMEM: read-only, even when write access is asked for
    assert_true(ask(IMEM_BASE + 16, WR));
    assert_true(dmi.is_read_allowed());
    assert_false(dmi.is_write_allowed());
    assert_int_equal(dmi.get_start_address(), IMEM_BASE);
    assert_int_equal(dmi.get_end_address(), IMEM_BASE + 4096 * 8 - 1);
    uint64_t w = 0;
    assert_int_equal(acc(b, RD, IMEM_BASE + 8, &w, 8), OK);
    assert_memory_equal(dmi.get_dmi_ptr() + 8, &w, 8);
    assert_false(ask(IMEM_BASE + 4096 * 8, RD));           // the unused part of the window

    // VMEM: read-write, the same bytes as b_transport
    assert_true(ask(VMEM_BASE + 1000, WR));
    assert_true(dmi.is_read_allowed() && dmi.is_write_allowed());
    assert_int_equal(dmi.get_start_address(), VMEM_BASE);
    assert_int_equal(dmi.get_end_address(), VMEM_BASE + 256 * 1024 - 1);
    const uint32_t pattern = 0xdeadbeef;
    memcpy(dmi.get_dmi_ptr() + 1000, &pattern, 4);
    uint32_t v = 0;
    assert_int_equal(acc(b, RD, VMEM_BASE + 1000, &v, 4), OK);
    assert_int_equal(v, pattern);

    // HBM: a page that was never written is denied (that page only); a
    // nonzero write makes it, then DMI is granted for it
    const uint64_t page = 64 * 1024, a = 5 * page + 100;
    assert_false(ask(HBM_BASE + a, RD));
    assert_int_equal(dmi.get_start_address(), HBM_BASE + 5 * page);
    assert_int_equal(dmi.get_end_address(), HBM_BASE + 6 * page - 1);
    tlm::tlm_generic_payload w8;
    sc_core::sc_time d = sc_core::SC_ZERO_TIME;
    uint32_t one = 1;
    w8.set_command(WR);
    w8.set_address(HBM_BASE + a);
    w8.set_data_ptr(reinterpret_cast<unsigned char *>(&one));
    w8.set_data_length(4);
    w8.set_streaming_width(4);
    w8.set_dmi_allowed(false);
    b->fw()->b_transport(w8, d);
    assert_int_equal(w8.get_response_status(), OK);
    assert_true(w8.is_dmi_allowed());                       // the hint: ask again
    assert_true(ask(HBM_BASE + a, RD));
    assert_true(dmi.is_write_allowed());
    assert_int_equal(dmi.get_start_address(), HBM_BASE + 5 * page);
    assert_int_equal(dmi.get_end_address(), HBM_BASE + 6 * page - 1);
    assert_memory_equal(dmi.get_dmi_ptr() + 100, &one, 4);
    assert_false(ask(HBM_BASE + 16 * 1024 * 1024, RD));    // past HBM
}

// Debug transport: registers readable as bytes and never written, memories
// both ways, clipped at their ends, nothing outside the map.
void test_debug_transport(void **state)
{
    Bench *b = bench(state);
    quiesce(b);
    tlm::tlm_generic_payload t;
    uint8_t buf[32];
    auto dbg = [&](tlm::tlm_command cmd, uint64_t addr, unsigned len) {
        t.set_command(cmd);
        t.set_address(addr);
        t.set_data_ptr(buf);
        t.set_data_length(len);
        return b->fw()->transport_dbg(t);
    };
    assert_int_equal(dbg(RD, REG_ID, 8), 8);
    uint32_t id, ver;
    memcpy(&id, buf, 4);
    memcpy(&ver, buf + 4, 4);
    assert_int_equal(id, ID_VALUE);
    assert_int_equal(ver, VERSION_VALUE);
    assert_int_equal(dbg(RD, REG_SIZE - 4, 32), 4);             // clipped at the block's end
    uint32_t en = IRQ_DONE;
    memcpy(buf, &en, 4);
    assert_int_equal(dbg(WR, REG_IRQ_ENABLE, 4), 0);            // no register writes
    assert_int_equal(b->host.reg32(REG_IRQ_ENABLE), 0);
    for (unsigned i = 0; i < 16; i++)
        buf[i] = (uint8_t)(i + 1);
    assert_int_equal(dbg(WR, VMEM_BASE + 256 * 1024 - 8, 16), 8);
    uint8_t got[8];
    assert_int_equal(acc(b, RD, VMEM_BASE + 256 * 1024 - 8, got, 8), OK);
    assert_memory_equal(got, buf, 8);
    assert_int_equal(dbg(RD, HBM_BASE + 16 * 1024 * 1024 - 4, 16), 4);
    assert_int_equal(dbg(RD, HBM_BASE + 16 * 1024 * 1024, 4), 0);
    assert_int_equal(dbg(RD, REG_SIZE, 4), 0);
    assert_int_equal(dbg(WR, MAP_END, 4), 0);
}

// ---- a module of two cores ------------------------------------------------------------

Bench *bench2(void **state)
{
    return static_cast<Bench **>(*state)[1];
}

// CORES and CORE_SEL: the windows address the selected core's memories, a
// change of core invalidates DMI, a core that does not exist is refused.
void test_core_select(void **state)
{
    Bench *one = static_cast<Bench **>(*state)[0], *b = bench2(state);
    quiesce(b);
    assert_int_equal(one->host.write32(REG_CORE_SEL, 1), E_GEN);     // one core: only 0
    assert_int_equal(one->host.write32(REG_CORE_SEL, 0), OK);
    assert_int_equal(b->host.reg32(REG_CORES), 2);
    assert_int_equal(b->host.reg32(REG_CORE_SEL), 0);
    uint8_t zero[16], ones[16], got[16];
    memset(zero, 0x11, sizeof zero);
    memset(ones, 0x22, sizeof ones);
    assert_int_equal(acc(b, WR, VMEM_BASE + 0x100, zero, 16), OK);
    b->invalidations.clear();
    assert_int_equal(b->host.write32(REG_CORE_SEL, 1), OK);
    assert_int_equal(b->invalidations.size(), 1);
    assert_true(b->invalidations[0].first == 0 && b->invalidations[0].second == ~0ull);
    assert_int_equal(b->host.write32(REG_CORE_SEL, 1), OK);           // no change: no invalidation
    assert_int_equal(b->invalidations.size(), 1);
    assert_int_equal(b->host.write32(REG_CORE_SEL, 2), E_GEN);        // no core 2: unchanged
    assert_int_equal(b->host.reg32(REG_CORE_SEL), 1);
    assert_int_equal(acc(b, WR, VMEM_BASE + 0x100, ones, 16), OK);
    for (unsigned c = 0; c < 2; c++) {
        assert_int_equal(tpu_mem_read(tpu_system_core(b->core.system(), c), TPU_SPACE_VMEM,
                                      0x100, got, 16), 0);
        assert_memory_equal(got, c ? ones : zero, 16);
    }
    assert_int_equal(acc(b, RD, VMEM_BASE + 0x100, got, 16), OK);
    assert_memory_equal(got, ones, 16);
    assert_int_equal(b->host.write32(REG_CORE_SEL, 0), OK);
    assert_int_equal(acc(b, RD, VMEM_BASE + 0x100, got, 16), OK);
    assert_memory_equal(got, zero, 16);
}

// A program of two cores (core 0 sends a vector to core 1 over ICI): Host
// loads both, the run takes the plain C model's cycles, PC and INSTRET are
// the selected core's, and Host::check reads core 1's result (and notices
// when it is spoiled).
void test_two_core_run(void **state)
{
    Bench *b = bench2(state);
    quiesce(b);
    tpu_object obj;
    assemble(read_file("programs/ici_exchange.s"), "programs/ici_exchange.s", &obj);
    load(b, obj);
    assert_int_equal(b->host.reg32(REG_CORE_SEL), 0);
    Golden g0 = golden(obj, 0, 2, 0), g1 = golden(obj, 0, 2, 1);
    assert_int_equal(g0.stop, TPU_STOP_HALT);
    assert_true(g0.insns != g1.insns);          // the two cores take different paths
    assert_int_equal(b->host.write32(REG_CTRL, CTRL_START), OK);
    run_to_end(b);
    assert_int_equal(b->host.reg32(REG_STATUS) & STATUS_STATE_MASK, STATE_HALTED);
    assert_int_equal(b->host.reg64(REG_CYCLE), g0.cycles);
    assert_int_equal(b->host.reg64(REG_INSTRET), g0.insns);
    assert_int_equal(b->host.write32(REG_CORE_SEL, 1), OK);
    assert_int_equal(b->host.reg64(REG_INSTRET), g1.insns);
    assert_int_equal(b->host.reg64(REG_PC), g1.pc);
    assert_int_equal(b->host.write32(REG_CORE_SEL, 0), OK);
    tpu_expect_result res;
    b->host.check(obj, &res);
    assert_int_equal(res.status, TPU_EXPECT_PASS);
    assert_int_equal(b->host.reg32(REG_CORE_SEL), 0);
    // spoil core 1's inbox: only core 1's check can notice
    uint64_t inbox = obj.expects[0].ops[0].value;
    uint8_t junk[16];
    memset(junk, 0x5a, sizeof junk);
    assert_int_equal(b->host.write32(REG_CORE_SEL, 1), OK);
    assert_int_equal(acc(b, WR, VMEM_BASE + inbox, junk, sizeof junk), OK);
    assert_int_equal(b->host.write32(REG_CORE_SEL, 0), OK);
    b->host.check(obj, &res);
    assert_int_equal(res.status, TPU_EXPECT_MISMATCH);
    tpu_obj_free(&obj);
}

}  // namespace

int sc_main(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    sc_core::sc_report_handler::set_actions("/OSCI/SystemC", sc_core::SC_INFO,
                                            sc_core::SC_DO_NOTHING);
    tpu_config cfg;
    char err[300];
    if (tpu_config_load(&cfg, "tiny", err, sizeof err) < 0) {
        fprintf(stderr, "test_tlm: %s\n", err);
        return 1;
    }
    Bench b("bench", cfg), b2("bench2", cfg, 2);
    sc_core::sc_start(sc_core::SC_ZERO_TIME);       // elaboration done: sockets bound
    b.host.attach(b.fw());
    b2.host.attach(b2.fw());
    void *st = &b;
    Bench *both[2] = { &b, &b2 };
    void *st2 = both;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_prestate(test_reset_values, st),
        cmocka_unit_test_prestate(test_address_errors, st),
        cmocka_unit_test_prestate(test_command_errors, st),
        cmocka_unit_test_prestate(test_burst_errors, st),
        cmocka_unit_test_prestate(test_no_data_pointer, st),
        cmocka_unit_test_prestate(test_byte_enable_errors, st),
        cmocka_unit_test_prestate(test_memory_byte_enables_and_streaming, st),
        cmocka_unit_test_prestate(test_control_errors, st),
        cmocka_unit_test_prestate(test_run_to_halt, st),
        cmocka_unit_test_prestate(test_restart, st),
        cmocka_unit_test_prestate(test_runtime_error, st),
        cmocka_unit_test_prestate(test_cycle_limit_and_resume, st),
        cmocka_unit_test_prestate(test_dmi, st),
        cmocka_unit_test_prestate(test_debug_transport, st),
        cmocka_unit_test_prestate(test_core_select, st2),
        cmocka_unit_test_prestate(test_two_core_run, st2),
    };
    return cmocka_run_group_tests_name("systemc_tlm", tests, nullptr, nullptr);
}
