// tpu_sc_lockstep.cpp - the SystemC lockstep top: the Verilated RTL
// (`verilator --sc`, rtl/core.v) and the C model wrapped as tpu_core_tlm,
// on one sc_clock, with a checker comparing their trace records every
// cycle.
//
//   tpu-sc-lockstep [--cores K] [--max-cycles N] [--verbose] [--fault SPACE:ADDR] prog.bin
//
// The driver loads the object into the RTL through its backdoor port (64
// bytes per clock, in reset, as rtl-bench does) and into the C model over
// TLM (tpu_host.h), then, on a falling edge, releases the RTL's reset and
// writes CTRL_START: the next rising edge ends cycle 0 on both sides.  At
// every rising edge the core steps the C model once and calls the checker
// (its step hook), which reads the RTL's trace port (still the values of
// the cycle that this edge ends) and compares the records of both sides
// (sim/cosim/trace_records.h: the rules and the report, shared with
// rtl-bench --lockstep).
// When the C model's run ends the driver compares how and when both runs
// ended, the halt cycle, and all of VMEM and HBM (read through the RTL's
// backdoor port and over TLM).  Exit status 0 when everything matched, 1
// otherwise, 2 on bad usage or input.  --fault flips one byte of the C
// model's memory after loading: the checker's own test (it must object).
//
// --cores K: K cores on each side, in a ring.  The RTL side is K instances
// of the one Verilated core (Vcore) whose ICI ports this top wires together
// with sc_signals as rtl/system.v wires its cores (port 0 of core c to core
// c + 1, port 1 to core c - 1, a word sent on port p arriving at the
// neighbour's port p ^ 1); the C model side is one tpu_core_tlm of K cores
// (the same ring, cmodel/system.c), its memories reached through CORE_SEL.
// The config is the one the RTL was built for (RTL_CONFIG, from systemc.mk).
#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "Vcore.h"
#include "verilated.h"

extern "C" {
#include "config.h"
#include "objfile.h"
#include "tpu.h"
}

#include "rtl_config.h"     // RTL_CONFIG
#include "tpu_core_tlm.h"
#include "tpu_host.h"
#include "vcore_ports.h"    // VCORE_PORTS(X): every port of Vcore but clk_i
#include "cosim/trace_records.h"    // records, comparison and report (sim/)
#include "cosim/trace_port.h"       // the trace port's layout and decoder
#include "cosim/verdict.h"          // how both runs ended, compared (sim/)

using namespace tpu_cosim;
using namespace tpu_sc;

namespace {

const char kTool[] = "tpu-sc-lockstep";
const unsigned kBdBytes = 64;       // backdoor port width in bytes

// ---- the RTL's pins: one signal per port, of the port's type ------------------------

template <class Port>
using SignalOf = sc_core::sc_signal<typename std::remove_reference_t<Port>::data_type>;

// A module only to give each core's signals their own names (pins0.clk_i, ...).
struct Pins : sc_core::sc_module {
    explicit Pins(sc_core::sc_module_name name) : sc_module(name) {}
#define TPU_PIN(n) SignalOf<decltype(std::declval<Vcore &>().n)> n{ #n };
    VCORE_PORTS(TPU_PIN)
#undef TPU_PIN

    void bind(Vcore &v)
    {
#define TPU_BIND(n) v.n(n);
        VCORE_PORTS(TPU_BIND)
#undef TPU_BIND
    }
};

// A port value as 32-bit words, least significant first.
void words_of(bool v, std::vector<uint32_t> &w) { w.assign(1, v ? 1u : 0u); }
void words_of(uint32_t v, std::vector<uint32_t> &w) { w.assign(1, v); }
void words_of(uint64_t v, std::vector<uint32_t> &w)
{
    w.assign({ (uint32_t)v, (uint32_t)(v >> 32) });
}
template <int W>
void words_of(const sc_dt::sc_bv<W> &v, std::vector<uint32_t> &w)
{
    w.resize((W + 31) / 32);
    for (int i = 0; i < (W + 31) / 32; i++)
        w[i] = (uint32_t)v.get_word(i);
}

// Bits [lsb, lsb + width) (width <= 64) of a value in words.
uint64_t bits(const std::vector<uint32_t> &w, unsigned lsb, unsigned width)
{
    uint64_t v = 0;
    for (unsigned got = 0; got < width;) {
        unsigned b = lsb + got, o = b % 32, take = std::min(32 - o, width - got);
        uint64_t part = b / 32 < w.size() ? (uint64_t)(w[b / 32] >> o) : 0;
        if (take < 32)
            part &= (1ull << take) - 1;
        v |= part << got;
        got += take;
    }
    return v;
}

uint8_t byte_at(const std::vector<uint32_t> &w, unsigned i)
{
    return i / 4 < w.size() ? (uint8_t)(w[i / 4] >> (8 * (i % 4))) : 0;
}

// ---- the top --------------------------------------------------------------------------

const unsigned kMaxCores = 16;

struct Lockstep : sc_core::sc_module {
    tlm_utils::simple_initiator_socket<Lockstep> socket;
    sc_core::sc_clock clock;
    sc_core::sc_signal<bool> irq;
    unsigned ncores;
    std::vector<std::unique_ptr<Pins>> pins;        // per core
    std::vector<std::unique_ptr<Vcore>> rtl;        // per core
    tpu_core_tlm model;

    const tpu_object &obj;
    const char *prog;
    uint64_t max_cycles;
    bool verbose;
    enum tpu_space fault_space;     // TPU_SPACE_NONE: no fault
    uint64_t fault_addr;
    Shape shape;
    TraceLayout layout;             // where each trace port element is

    // per core:
    std::vector<Cycle> model_cur;   // the C model's records of the cycle being stepped
    std::vector<InFlight> flight;   // the C model's instructions in flight (the report)
    std::vector<std::array<int64_t, 32>> model_sreg, rtl_sreg;
    std::vector<uint64_t> rtl_halt; // cycle count at the RTL's halt (0: none)
    bool rtl_err = false;           // error_o or stuck_o seen
    bool mismatch = false;
    sc_core::sc_event mismatch_ev;
    int exit_code = 2;

    SC_HAS_PROCESS(Lockstep);
    Lockstep(sc_core::sc_module_name n, const tpu_config &cfg, unsigned k, const tpu_object &o,
             const char *p, uint64_t maxc, bool verb, enum tpu_space fsp, uint64_t fa)
        : sc_module(n), socket("socket"),
          clock("clock", sc_core::sc_time(1.0 / cfg.clock_hz, sc_core::SC_SEC)), irq("irq"),
          ncores(k), model("model", cfg, k), obj(o), prog(p), max_cycles(maxc), verbose(verb),
          fault_space(fsp), fault_addr(fa), shape(cfg), layout(shape), model_cur(k),
          flight(k, InFlight(&o)), model_sreg(k), rtl_sreg(k), rtl_halt(k)
    {
        for (unsigned c = 0; c < ncores; c++) {
            std::string name = "rtl" + std::to_string(c);
            pins.emplace_back(new Pins(("pins" + std::to_string(c)).c_str()));
            rtl.emplace_back(new Vcore(name.c_str()));
            pins[c]->bind(*rtl[c]);
            rtl[c]->clk_i(clock);
            model_sreg[c].fill(0);
            rtl_sreg[c].fill(0);
        }
        if (ncores > 1) {
            SC_METHOD(wire_links);
            for (unsigned c = 0; c < ncores; c++)
                sensitive << pins[c]->ici_link_o;
        }
        model.clk(clock);
        model.irq(irq);
        socket.bind(model.socket);
        model.subscribe(kModelEvents, on_event, this);
        model.set_step_hook([this](enum tpu_stop) { check_cycle(); });
        SC_THREAD(run);
    }

    static void on_event(void *ctx, const tpu_event *e)
    {
        Lockstep *l = static_cast<Lockstep *>(ctx);
        if (e->core < l->ncores) {
            model_event(l->model_cur[e->core], e);
            l->flight[e->core].event(e);
        }
    }

    // The ring's wires (rtl/system.v): what arrives at port 1 of core c is
    // what core c - 1 sends on its port 0, what arrives at port 0 is what
    // core c + 1 sends on its port 1; ports 2 to 5 are not connected.
    void wire_links()
    {
        for (unsigned c = 0; c < ncores; c++) {
            auto in = pins[c]->ici_link_i.read();
            const auto &next = pins[(c + 1) % ncores]->ici_link_o.read();
            const auto &prev = pins[(c + ncores - 1) % ncores]->ici_link_o.read();
            const int lw = in.length() / 6;     // one port's bits (six ports: core.v NumPorts)
            in = 0;
            in.range(2 * lw - 1, lw) = prev.range(lw - 1, 0);
            in.range(lw - 1, 0) = next.range(2 * lw - 1, lw);
            pins[c]->ici_link_i.write(in);
        }
    }

    // The trace port's signals for decode_trace (sim/cosim/trace_port.h),
    // each read once per cycle as words.
    struct TraceReader {
        const Pins &pins;
        mutable std::vector<uint32_t> words[kTracePorts];
        mutable bool have[kTracePorts] = {};

        uint64_t bits(TracePort p, unsigned lsb, unsigned width) const
        {
            unsigned n = (unsigned)p;
            if (!have[n]) {
                switch (p) {
#define TRACE_PORT(name, count, bits, what) case TracePort::name: words_of(pins.tr_##name##_o.read(), words[n]); break;
#include "../../rtl/trace_ports.def"
#undef TRACE_PORT
                }
                have[n] = true;
            }
            return ::bits(words[n], lsb, width);
        }
    };

    // T10 across the cores (rtl/system.v's deadlock_o, system.c): no link
    // carries anything, every core has halted or is stuck, not all halted.
    bool rtl_deadlock() const
    {
        bool all_halted = true;
        for (unsigned c = 0; c < ncores; c++) {
            const Pins &p = *pins[c];
            if (p.ici_link_busy_o.read() || !(p.halted_o.read() || p.stuck_o.read()))
                return false;
            all_halted &= p.halted_o.read();
        }
        return !all_halted;
    }

    bool rtl_links_busy() const
    {
        for (unsigned c = 0; c < ncores; c++)
            if (pins[c]->ici_link_busy_o.read())
                return true;
        return false;
    }

    // The RTL's trace ports now: the records of the cycle this edge ends.
    void rtl_records(std::vector<Cycle> &rc)
    {
        for (unsigned c = 0; c < ncores; c++) {
            decode_trace(TraceReader{ *pins[c], {}, {} }, layout, shape, 0, rtl_sreg[c].data(),
                         rc[c]);
            if (pins[c]->error_o.read())
                rc[c].simple.push_back(Rec::error());
        }
        if (rtl_deadlock()) {       // the first stuck core fails (system.c)
            for (unsigned c = 0; c < ncores; c++) {
                if (!pins[c]->halted_o.read()) {
                    if (!pins[c]->error_o.read())
                        rc[c].simple.push_back(Rec::error());
                    break;
                }
            }
        }
    }

    // The step hook: the C model has just stepped cycle t; the RTL's trace
    // port still shows its cycle t.  Compare.
    void check_cycle()
    {
        if (mismatch)
            return;
        uint64_t t = tpu_system_cycle(model.system()) - 1;
        std::vector<Cycle> rc(ncores);
        rtl_records(rc);
        rtl_err |= rtl_deadlock();
        for (unsigned c = 0; c < ncores && !mismatch; c++) {
            if (pins[c]->tr_halt_o.read())
                rtl_halt[c] = t + 1;
            rtl_err |= pins[c]->error_o.read();
            tpu_seq_view v;
            tpu_core_seq_view(tpu_system_core(model.system(), c), &v);
            model_sregs(model_cur[c], v, model_sreg[c].data());
            flight[c].set_seq_pc(v.pc);
            if (!compare_cycle(kTool, prog, t, c, rc[c], model_cur[c], verbose, &flight[c])) {
                mismatch = true;
                mismatch_ev.notify(sc_core::SC_ZERO_TIME);
            }
        }
        for (unsigned c = 0; c < ncores; c++) {
            model_cur[c].clear();
            flight[c].end_cycle();
        }
    }

    // ---- the RTL's backdoor port -------------------------------------------------------

    void bd_set(unsigned core, unsigned space, uint64_t addr)
    {
        pins[core]->bd_space_i.write(space);
        pins[core]->bd_addr_i.write(addr);
    }

    // Write n <= 64 bytes at the next rising edge into every core (the RTL
    // is in reset; every core gets the same object, as tpu_system_load).
    void bd_write(unsigned space, uint64_t addr, const uint8_t *p, unsigned n)
    {
        typename std::remove_reference_t<decltype(rtl[0]->bd_wdata_i)>::data_type data;
        data = 0;
        uint64_t strb = 0;
        for (unsigned i = 0; i < n; i++) {
            data.range(8 * i + 7, 8 * i) = p[i];
            strb |= 1ull << i;
        }
        for (unsigned c = 0; c < ncores; c++) {
            bd_set(c, space, addr);
            pins[c]->bd_wdata_i.write(data);
            pins[c]->bd_wstrb_i.write(strb);
            pins[c]->bd_we_i.write(true);
        }
        wait(clock.posedge_event());
        for (unsigned c = 0; c < ncores; c++) {
            pins[c]->bd_we_i.write(false);
            pins[c]->bd_wstrb_i.write(0);
        }
    }

    // Read n <= 64 bytes of a core (combinational: two delta cycles, no
    // clock edge).
    void bd_read(unsigned core, unsigned space, uint64_t addr, uint8_t *p, unsigned n)
    {
        bd_set(core, space, addr);
        wait(sc_core::SC_ZERO_TIME);    // the inputs change, the model evaluates
        wait(sc_core::SC_ZERO_TIME);    // its outputs change
        std::vector<uint32_t> w;
        words_of(pins[core]->bd_rdata_o.read(), w);
        for (unsigned i = 0; i < n; i++)
            p[i] = byte_at(w, i);
    }

    // The object into the RTL, as rtl-bench loads it: IMEM words, then the
    // chunks in 64-byte aligned blocks (later chunks over earlier ones).
    void load_rtl()
    {
        for (size_t i = 0; i < obj.ntext; i++) {
            uint8_t w[8];
            memcpy(w, &obj.text[i], 8);
            bd_write(TPU_SPACE_IMEM, 8 * i, w, 8);
        }
        uint8_t buf[kBdBytes];
        for (size_t c = 0; c < obj.nchunks; c++) {
            const tpu_obj_chunk &ch = obj.chunks[c];
            for (uint64_t off = 0; off < ch.size;) {
                uint64_t a = ch.addr + off;
                unsigned n = kBdBytes - (unsigned)(a % kBdBytes);
                if (n > ch.size - off)
                    n = (unsigned)(ch.size - off);
                tpu_obj_chunk_read(&ch, off, buf, n);
                bd_write(ch.space, a, buf, n);
                off += n;
            }
        }
    }

    // The memories for the verdict: the RTL's through its backdoor port
    // (kBdBytes at a time), the C model's over TLM.
    bool rtl_read(unsigned core, enum tpu_space space, uint64_t addr, uint8_t *dst, size_t n)
    {
        for (size_t off = 0; off < n; off += kBdBytes) {
            unsigned m = n - off < kBdBytes ? (unsigned)(n - off) : kBdBytes;
            bd_read(core, space, addr + off, dst + off, m);
        }
        return true;
    }

    bool model_read(Host &host, unsigned core, enum tpu_space space, uint64_t addr,
                    uint8_t *dst, size_t n, const char *name)
    {
        std::string err;
        if (host.select_core(core, &err) < 0) {
            fprintf(stderr, "%s: the C model: %s\n", kTool, err.c_str());
            return false;
        }
        if (host.mem_read(space, addr, dst, n, &err) < 0) {
            fprintf(stderr, "%s: the C model's %s: %s\n", kTool, name, err.c_str());
            return false;
        }
        return true;
    }

    void run()
    {
        exit_code = session();
        sc_core::sc_stop();
    }

    int session()
    {
        Host host(socket.operator->());
        std::string err;
        for (unsigned c = 0; c < ncores; c++) {
            pins[c]->rst_ni.write(false);
            pins[c]->core_id_i.write(c);
            pins[c]->ici_connected_i.write(ncores > 1 ? 0x3 : 0x0);    // ports 0 and 1: the ring
        }
        if (host.load(obj, false, &err, true) < 0) {
            fprintf(stderr, "%s: %s: error: %s\n", kTool, prog, err.c_str());
            return 2;
        }
        load_rtl();
        if (fault_space != TPU_SPACE_NONE) {
            uint8_t b = 0;
            if (host.mem_read(fault_space, fault_addr, &b, 1, &err) < 0) {
                fprintf(stderr, "%s: --fault: %s\n", kTool, err.c_str());
                return 2;
            }
            b ^= 0xff;
            host.mem_write(fault_space, fault_addr, &b, 1, false, &err);
        }
        if (host.write64(REG_MAX_CYCLES, max_cycles) != tlm::TLM_OK_RESPONSE
            || host.write32(REG_IRQ_ENABLE, IRQ_DONE) != tlm::TLM_OK_RESPONSE) {
            fprintf(stderr, "%s: the core's registers refused a write\n", kTool);
            return 2;
        }

        // Release both between two edges: the next rising edge ends cycle 0.
        wait(clock.negedge_event());
        for (unsigned c = 0; c < ncores; c++)
            pins[c]->rst_ni.write(true);
        auto h0 = std::chrono::steady_clock::now();
        if (host.write32(REG_CTRL, CTRL_START) != tlm::TLM_OK_RESPONSE) {
            fprintf(stderr, "%s: the core refused to start\n", kTool);
            return 2;
        }
        wait(model.done_event() | mismatch_ev);
        double host_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - h0)
                            .count();
        if (mismatch)
            return 1;
        wait(clock.negedge_event());    // the RTL's outputs after the last edge

        uint64_t t = host.reg64(REG_CYCLE);
        uint32_t state = host.reg32(REG_STATUS) & STATUS_STATE_MASK;
        uint32_t error = host.reg32(REG_ERROR);
        cosim::ModelSide ms;
        ms.end = state == STATE_HALTED ? cosim::End::Halt
               : state == STATE_ERROR && error == ERR_CYCLE_LIMIT ? cosim::End::CycleLimit
                                                                  : cosim::End::Error;
        ms.cycles = t;
        if (ms.end == cosim::End::Error) {
            char text[ERROR_TEXT_SIZE] = "";
            host.access(tlm::TLM_READ_COMMAND, REG_ERROR_TEXT, text, ERROR_TEXT_SIZE);
            text[ERROR_TEXT_SIZE - 1] = 0;
            ms.error = text;
        }
        ms.read = [this, &host](unsigned k, enum tpu_space sp, uint64_t a, uint8_t *d, size_t n,
                                const char *name) { return model_read(host, k, sp, a, d, n, name); };
        bool all_halted = !rtl_links_busy();
        for (unsigned c = 0; c < ncores; c++)
            all_halted &= pins[c]->halted_o.read();
        cosim::RtlSide rs;
        rs.end = rtl_err ? cosim::End::Error : all_halted ? cosim::End::Halt
                                                          : cosim::End::CycleLimit;
        rs.cycles = t;
        rs.read = [this](unsigned k, enum tpu_space sp, uint64_t a, uint8_t *d, size_t n,
                         const char *) { return rtl_read(k, sp, a, d, n); };
        for (unsigned c = 0; c < ncores; c++) {
            std::vector<uint32_t> w;
            words_of(pins[c]->tr_pc_o.read(), w);
            rs.halt.push_back(rtl_halt[c]);
            rs.err_code.push_back(pins[c]->error_o.read() ? (int)pins[c]->error_code_o.read()
                                                          : -1);
            rs.err_pc.push_back(bits(w, 0, 64));
            tpu_stats st;
            tpu_core_stats(tpu_system_core(model.system(), c), &st);
            ms.halt.push_back(st.cycles);
        }
        cosim::VerdictOpts vo;
        vo.tool = kTool;
        vo.prog = prog;
        vo.ncores = ncores;
        vo.vmem_bytes = model.config().vmem_bytes;
        vo.hbm_bytes = model.config().hbm_bytes;
        // At a cycle limit the RTL's clock ran one edge further than the
        // model: its memories are not comparable.
        bool mem = ms.end != cosim::End::CycleLimit;
        vo.compare_memories = mem;
        int bad = cosim::verdict(vo, rs, ms);
        const char *rend = cosim::end_name(rs.end);
        printf("%s: %s: %" PRIu64 " cycles in %.3g s of host time: %.0f lockstep cycles per "
               "host second\n", kTool, prog, t, host_s, host_s > 0 ? (double)t / host_s : 0.0);
        printf("%s: %s: %s after %" PRIu64 " cycles: %s\n", kTool, prog, rend, t,
               bad ? "MISMATCH"
               : mem ? "cycles, records, VMEM and HBM match the C model"
                     : "cycles and records match the C model");
        return bad;
    }
};

void usage(FILE *f)
{
    fprintf(f,
            "usage: %s [--cores K] [--max-cycles N] [--verbose] [--fault SPACE:ADDR] prog.bin\n"
            "\n"
            "Run prog.bin on the Verilated RTL (rtl/core.v, verilator --sc, config %s)\n"
            "and on the C model wrapped as a TLM-2.0 module (tpu_core_tlm), both on one\n"
            "sc_clock; compare their trace records every cycle (docs/rtl.md, the rules\n"
            "of rtl-bench --lockstep), how and when the runs end, and all of VMEM and\n"
            "HBM (docs/systemc.md).\n"
            "\n"
            "options:\n"
            "  --cores K       K cores in a ring on both sides (default 1, at most %u):\n"
            "                  K instances of the Verilated core wired as rtl/system.v\n"
            "                  wires them, and a tpu_core_tlm of K cores\n"
            "  --max-cycles N  stop both after N cycles (default 10000000)\n"
            "  --verbose       print the records of every cycle\n"
            "  --fault SPACE:ADDR  flip the byte at ADDR of the C model's vmem or hbm\n"
            "                  (core 0's) after loading (a test of the checker: it must\n"
            "                  object)\n"
            "  -h, --help      show this help\n",
            kTool, RTL_CONFIG, kMaxCores);
}

}  // namespace

int sc_main(int argc, char **argv)
{
    sc_core::sc_report_handler::set_actions("/OSCI/SystemC", sc_core::SC_INFO,
                                            sc_core::SC_DO_NOTHING);
    uint64_t max_cycles = 10000000;
    unsigned cores = 1;
    bool verbose = false;
    const char *prog = nullptr;
    enum tpu_space fault_space = TPU_SPACE_NONE;
    uint64_t fault_addr = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(a, "--max-cycles") && i + 1 < argc) {
            char *end;
            max_cycles = strtoull(argv[++i], &end, 0);
            if (*end || !max_cycles || argv[i][0] == '-') {
                fprintf(stderr, "%s: error: bad --max-cycles '%s'\n", kTool, argv[i]);
                return 2;
            }
        } else if (!strcmp(a, "--cores") && i + 1 < argc) {
            char *end;
            unsigned long k = strtoul(argv[++i], &end, 10);
            if (*end || k < 1 || k > kMaxCores || argv[i][0] == '-') {
                fprintf(stderr, "%s: error: bad --cores '%s' (1 to %u)\n", kTool, argv[i],
                        kMaxCores);
                return 2;
            }
            cores = (unsigned)k;
        } else if (!strcmp(a, "--verbose")) {
            verbose = true;
        } else if (!strcmp(a, "--fault") && i + 1 < argc) {
            const char *v = argv[++i];
            char *end;
            fault_space = !strncmp(v, "vmem:", 5) ? TPU_SPACE_VMEM
                        : !strncmp(v, "hbm:", 4) ? TPU_SPACE_HBM : TPU_SPACE_NONE;
            const char *num = strchr(v, ':');
            if (fault_space != TPU_SPACE_NONE)
                fault_addr = strtoull(num + 1, &end, 0);
            if (fault_space == TPU_SPACE_NONE || !num[1] || *end || num[1] == '-') {
                fprintf(stderr, "%s: error: bad --fault '%s' (vmem:ADDR or hbm:ADDR)\n", kTool, v);
                return 2;
            }
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "%s: error: unknown option '%s' (try --help)\n", kTool, a);
            return 2;
        } else if (prog) {
            fprintf(stderr, "%s: error: more than one program\n", kTool);
            return 2;
        } else {
            prog = a;
        }
    }
    if (!prog) {
        fprintf(stderr, "%s: error: no program given (try --help)\n", kTool);
        return 2;
    }

    char err[600];
    tpu_config cfg;
    if (tpu_config_load(&cfg, RTL_CONFIG, err, sizeof err) < 0) {
        fprintf(stderr, "%s: %s\n", kTool, err);
        return 2;
    }
    tpu_object obj;
    tpu_obj_init(&obj);
    if (tpu_obj_read(prog, &obj, err, sizeof err) < 0) {     // err names the file
        fprintf(stderr, "%s: error: %s\n", kTool, err);
        return 2;
    }
    int code;
    {
        Lockstep top("top", cfg, cores, obj, prog, max_cycles, verbose, fault_space,
                     fault_addr);
        sc_core::sc_start();
        code = top.exit_code;
    }
    tpu_obj_free(&obj);
    return code;
}
