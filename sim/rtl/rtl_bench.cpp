// rtl_bench: run a program on the Verilated RTL and on the C model, and
// check that they agree.
//
//   rtl-bench [--max-cycles N] [--lockstep] [--verbose] [--wave FILE]
//             [--wave-on-fail FILE] [--wave-cycles N] [+PLUSARG...] prog.bin
//
// Built twice by sim/rtl/rtl.mk: rtl-bench on rtl/core.v (one core) and,
// with RTL_SYSTEM2, rtl-bench2 on rtl/system.v (two cores in a ring, the
// C model's tpu_system with --cores 2).  The object is loaded into both
// sides: into the C model with tpu_system_load(), into the RTL through the
// backdoor port (IMEM words, then the object's DATA and FILL chunks, 64
// bytes per clock, during reset; every core gets the same).  Both run to
// halt (or a run-time error, or the cycle limit).  Then the bench compares
// how the run ended and in which cycle, each core's halt cycle, and every
// byte of every core's VMEM and HBM, and prints one line.  With --lockstep
// it also compares, every cycle, the RTL's trace port with the C model's
// events of that cycle (docs/rtl.md "Trace port" defines the records) and
// stops at the first difference.  Exit status 0 when everything matched, 1 otherwise, 2 on
// bad usage or input.
//
// The report of a lockstep mismatch (sim/cosim/trace_records.h) names the
// cycle, the core, the unit, the field, the expected (C model) and actual
// (RTL) values and the instruction in flight on that unit.
//
// Waveforms (FST; the model is Verilated with --trace-fst, which costs a
// few percent of speed while tracing is off, docs/cosim.md): --wave dumps
// the whole RTL run;
// --wave-on-fail dumps, after a lockstep mismatch, the last --wave-cycles
// cycles (default 1000) up to and including the failing one, by running
// the RTL again from reset with tracing switched on for those cycles only.
// Time as in the C model's VCD (docs/timeline.md): cycle t at 10t ns,
// just after the rising edge that begins it; the falling edge at 10t + 5.
//
// The config is the one the Verilated model was built for: RTL_CONFIG, a
// preset name or file, compiled in by sim/rtl/rtl.mk.

#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <unistd.h>
#include <algorithm>

#include "verilated.h"
#include "verilated_syms.h"  // the scopes of public_flat_rd arrays (Rtl::find_storage)
#ifndef VM_TRACE_FST
#define VM_TRACE_FST 0
#endif
#if VM_TRACE_FST
#include "verilated_fst_c.h"
#endif
#ifdef RTL_SYSTEM
#include "Vsystem.h"
typedef Vsystem Top;
#ifndef RTL_CORES
#define RTL_CORES 2
#endif
#define RTL_STR2(x) #x
#define RTL_STR(x) RTL_STR2(x)
#define RTL_NAME "rtl-bench" RTL_STR(RTL_CORES)
#ifdef RTL_TORUS3D
#define RTL_TOPO_TEXT "cores as a torus3d " RTL_STR(RTL_DX) "x" RTL_STR(RTL_DY) "x" RTL_STR(RTL_DZ) ", rtl/system.v"
#elif RTL_CORES == 2
#define RTL_TOPO_TEXT "two cores in a ring, rtl/system.v"
#elif RTL_CORES == 4
#define RTL_TOPO_TEXT "four cores in a ring, rtl/system.v"
#else
#define RTL_TOPO_TEXT "cores in a ring, rtl/system.v"
#endif
#else
#include "Vcore.h"
typedef Vcore Top;
#define RTL_CORES 1
#define RTL_NAME "rtl-bench"
#define RTL_TOPO_TEXT "one core, rtl/core.v"
#endif

extern "C" {
#include "config.h"
#include "interrupt.h"
#include "objfile.h"
#include "tpu.h"
}

#include "cosim/trace_records.h"    // records, comparison and report (sim/)
#include "cosim/trace_port.h"       // the trace port's layout and decoder
#include "cosim/verdict.h"          // how both runs ended, compared (sim/)
#include "rtl_config.h"      // RTL_CONFIG, written by sim/rtl/rtl.mk
#include "hbm_sparse.h"      // the sparse HBM store (rtl/hbm_mem.v above 1 GiB)
#include "vmem_dpi.h"        // the VMEM store (rtl/vmem.v with Dpi, core.v's VmemDpi)
#ifndef RTL_CONFIG
#error "RTL_CONFIG (the config the model was built for) must be defined"
#endif

using namespace tpu_cosim;

namespace {

const unsigned kBdBytes = 64;       // backdoor port width in bytes

// The program name and the Verilog plusargs from the command line
// (+NAME=VALUE), given to every model: +mutant=ID selects a mutant of a
// tpu-mutate build (whose $value$plusargs needs the arguments set, even
// when there are none).
std::vector<const char *> g_plusargs = { RTL_NAME };

// ---- bit access on Verilator's port types ----------------------------------

// Bits [lsb, lsb + width) (width <= 64) of a wide port (32-bit words).
template <std::size_t N>
uint64_t port_bits(const VlWide<N> &w, unsigned lsb, unsigned width)
{
    if (lsb % 32 + width <= 32) {           // inside one word: most reads
        uint64_t part = (uint64_t)(w[lsb / 32] >> (lsb % 32));
        return width == 32 ? part : part & ((1ull << width) - 1);
    }
    uint64_t v = 0;
    for (unsigned got = 0; got < width;) {
        unsigned b = lsb + got, o = b % 32, take = std::min(32 - o, width - got);
        uint64_t part = (uint64_t)(w[b / 32] >> o);
        if (take < 32)
            part &= (1ull << take) - 1;
        v |= part << got;
        got += take;
    }
    return v;
}

// The same on a port of at most 64 bits.
uint64_t port_bits(uint64_t w, unsigned lsb, unsigned width)
{
    w >>= lsb;
    return width >= 64 ? w : w & ((1ull << width) - 1);
}

template <std::size_t N>
uint8_t byte_at(const VlWide<N> &w, unsigned i)
{
    return (uint8_t)(w[i / 4] >> (8 * (i % 4)));
}

uint8_t byte_at(uint64_t w, unsigned i)
{
    return (uint8_t)(w >> (8 * i));
}

template <std::size_t N>
void set_byte(VlWide<N> &w, unsigned i, uint8_t v)
{
    uint32_t m = 0xffu << (8 * (i % 4));
    w[i / 4] = (w[i / 4] & ~m) | ((uint32_t)v << (8 * (i % 4)));
}

// The first n bytes of a wide port, byte i at bits 8i..8i+7, in and out
// (n at most the port's 4N bytes; more is cut to that).  On a
// little-endian host that is the port's words as they lie in memory: one
// memcpy (the end's comparison of all of HBM reads 64 bytes at a time, a
// quarter of a million times on tiny).  Every lockstep run checks both:
// the load goes in through bytes_to and the final comparison of VMEM and
// HBM with the C model's comes out through bytes_from.
template <std::size_t N>
void bytes_from(const VlWide<N> &w, uint8_t *p, unsigned n)
{
    if (n > 4 * N)
        n = 4 * N;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    memcpy(p, w.data(), n);
#else
    for (unsigned i = 0; i < n; i++)
        p[i] = byte_at(w, i);
#endif
}

template <std::size_t N>
void bytes_to(VlWide<N> &w, const uint8_t *p, unsigned n)
{
    if (n > 4 * N)
        n = 4 * N;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    memcpy(w.data(), p, n);
#else
    for (unsigned i = 0; i < n; i++)
        set_byte(w, i, p[i]);
#endif
}

// ---- the C model side ----------------------------------------------------------

struct Model {
    tpu_config cfg;
    tpu_system *sys = nullptr;
    Cycle cur[RTL_CORES];           // records of the cycle being stepped, per core
    std::vector<InFlight> flight;   // per core
    int64_t sreg[RTL_CORES][32];

    ~Model() { tpu_system_destroy(sys); }

    static void on_event(void *ctx, const tpu_event *e)
    {
        Model *m = static_cast<Model *>(ctx);
        if (e->core < RTL_CORES) {
            model_event(m->cur[e->core], e);
            m->flight[e->core].event(e);
        }
    }

    // Scalar register writes show as changed registers (the C model has no
    // event for them); the sequencer's pc names the instruction it waits on.
    void note_sregs()
    {
        for (unsigned k = 0; k < RTL_CORES; k++) {
            tpu_seq_view v;
            tpu_core_seq_view(tpu_system_core(sys, k), &v);
            model_sregs(cur[k], v, sreg[k]);
            flight[k].set_seq_pc(v.pc);
        }
    }
};

// ---- the RTL side ----------------------------------------------------------------

struct Rtl {
    std::unique_ptr<VerilatedContext> ctx;
    std::unique_ptr<Top> top;
    Shape shape;
    TraceLayout layout;             // where each trace port element is
    int64_t sreg[RTL_CORES][32] = {{0}};
    int running = 0;                // reset released: clock edges count as cycles
    uint64_t cycle = 0;             // the cycle on the outputs now (edges since release)
    uint64_t wave_from = 0;         // first cycle to dump
#if VM_TRACE_FST
    std::unique_ptr<VerilatedFstC> fst;
#endif

    explicit Rtl(const tpu_config &c) : ctx(new VerilatedContext), shape(c), layout(shape)
    {
#if VM_TRACE_FST
        ctx->traceEverOn(true);     // before the model: it registers its signals
#endif
        ctx->commandArgs((int)g_plusargs.size(), g_plusargs.data());
        top.reset(new Top(ctx.get(), "TOP"));
        find_storage(c);
    }

    // Direct access to the memories (docs/rtl.md, "Large arrays"): the
    // bench's load of sparse HBM and its final comparison read and write the
    // storage itself instead of an eval() per 64 bytes of the backdoor port
    // (2 million of them for v5e's 128 MiB of VMEM), and the load of IMEM
    // writes seq.v's imem_q (public_flat_rw) instead of a clock edge per
    // word.  VMEM's array is public_flat_rd and dense HBM's public_flat_rw
    // (rtl/vmem.v, rtl/hbm_mem.v), found by their scope; both are compared
    // in place and HBM is loaded in place too (a 256 x 256 MXU's matmul
    // spent 60 CPU s loading 384 KiB of HBM through the port, an eval() of
    // every row per 64 bytes); sparse HBM and DPI VMEM are the stores the core's hbm_mem and
    // vmem make in its first eval() (whichever the build chose: the bench
    // does not repeat core.v's rule).  Each core's, found by the core's
    // scope (system.v's g_core[K]): a system's end compare through the port
    // was 0.1 CPU s of a two-core soak program and 0.4 of a four-core one.
    const uint8_t *vmem_direct[RTL_CORES] = {};   // vmem.v's array (public_flat_rd)
    uint8_t *hbm_direct[RTL_CORES] = {};          // hbm_mem.v's dense array (public_flat_rw)
    uint64_t *imem_direct[RTL_CORES] = {};  // seq.v's imem_q (public_flat_rw)
    uint64_t imem_words = 0;
    long hbm_store[RTL_CORES];      // tpu_hbm_sparse_* store of each core, once made
    size_t hbm_store_before = 0;    // stores made before this model's
    long vmem_store[RTL_CORES];     // tpu_vmem_dpi_* store of each core, once made
    size_t vmem_store_before = 0;
    bool sparse_hbm = false;
    uint64_t vmem_bytes = 0, hbm_bytes = 0;

    // The core a scope belongs to: K of "g_core[K]." in a system, 0 in the
    // one-core model; -1 if a system's scope names none.
    static int core_of(const std::string &name)
    {
        if (RTL_CORES == 1)
            return 0;
        size_t at = name.find("g_core[");
        if (at == std::string::npos)
            return -1;
        char *end = nullptr;
        unsigned long k = strtoul(name.c_str() + at + 7, &end, 10);
        return end && *end == ']' && k < RTL_CORES ? (int)k : -1;
    }

    void find_storage(const tpu_config &c)
    {
        sparse_hbm = c.hbm_bytes > kHbmSparseAbove;
        vmem_bytes = c.vmem_bytes;
        hbm_bytes = c.hbm_bytes;
        imem_words = c.imem_words;
        hbm_store_before = tpu_hbm_sparse_count();
        vmem_store_before = tpu_vmem_dpi_count();
        for (unsigned k = 0; k < RTL_CORES; k++)
            hbm_store[k] = vmem_store[k] = -1;
        if (getenv("RTL_BENCH_PORT_BACKDOOR"))
            return;
        const VerilatedScopeNameMap *map = ctx->scopeNameMap();
        if (!map || map->empty())
            map = Verilated::threadContextp()->scopeNameMap();
        int nv[RTL_CORES] = {0}, nh[RTL_CORES] = {0}, ni[RTL_CORES] = {0};
        for (const auto &kv : *map) {
            std::string name = kv.first;
            VerilatedVar *iv = kv.second->varFind("imem_q");
            if (iv && iv->vltype() == VLVT_UINT64 && iv->udims() == 1 &&
                (uint64_t)iv->unpacked().elements() == c.imem_words && core_of(name) >= 0) {
                int k = core_of(name);
                imem_direct[k] = static_cast<uint64_t *>(iv->datap());
                ni[k]++;
            }
            VerilatedVar *v = kv.second->varFind("mem_q");
            if (!v || v->vltype() != VLVT_UINT8 || v->udims() != 1)
                continue;
            uint64_t n = (uint64_t)v->unpacked().elements();
            auto ends = [&name](const char *t) {
                size_t l = strlen(t);
                return name.size() >= l && name.compare(name.size() - l, l, t) == 0;
            };
            int k = core_of(name);
            if (k < 0)
                continue;
            if (ends(".u_vmem.g_array") && n == c.vmem_bytes) {
                vmem_direct[k] = static_cast<const uint8_t *>(v->datap());
                nv[k]++;
            } else if (ends(".u_hbm_mem.g_dense") && n == c.hbm_bytes) {
                hbm_direct[k] = static_cast<uint8_t *>(v->datap());
                nh[k]++;
            }
        }
        for (unsigned k = 0; k < RTL_CORES; k++) {
            if (nv[k] != 1)
                vmem_direct[k] = nullptr;
            if (nh[k] != 1)
                hbm_direct[k] = nullptr;
            if (ni[k] != 1)
                imem_direct[k] = nullptr;
        }
    }

    // After the first eval(): each core's sparse HBM store and DPI VMEM
    // store, if it made them (by the scope of the instance that did).
    void find_stores()
    {
        if (getenv("RTL_BENCH_PORT_BACKDOOR"))
            return;
        int nh[RTL_CORES] = {0}, nv[RTL_CORES] = {0};
        for (size_t i = hbm_store_before; sparse_hbm && i < tpu_hbm_sparse_count(); i++) {
            int k = core_of(tpu_hbm_sparse_scope(i));
            if (k >= 0 && nh[k]++ == 0)
                hbm_store[k] = (long)i;
        }
        for (size_t i = vmem_store_before; i < tpu_vmem_dpi_count(); i++) {
            int k = core_of(tpu_vmem_dpi_scope(i));
            if (k >= 0 && nv[k]++ == 0)
                vmem_store[k] = (long)i;
        }
        for (unsigned k = 0; k < RTL_CORES; k++) {
            if (nh[k] != 1)
                hbm_store[k] = -1;
            if (nv[k] != 1)
                vmem_store[k] = -1;
        }
    }

    // Verilator unregisters the model's scopes from the thread's current
    // context, which is the last one created: the replay's, after a
    // mismatch.  Make it this one's first.
    ~Rtl()
    {
        Verilated::threadContextp(ctx.get());
#if VM_COVERAGE
        // make coverage: each run's counts into TPU_COVERAGE_DIR/PID.dat
        if (const char *dir = getenv("TPU_COVERAGE_DIR")) {
            std::string f = std::string(dir) + "/" + std::to_string((long)getpid()) + "-" +
                            std::to_string((unsigned long)(uintptr_t)this) + ".dat";
            ctx->coveragep()->write(f.c_str());
        }
#endif
#if VM_TRACE_FST
        if (fst)
            fst->close();
#endif
        top->final();
        top.reset();
    }

    // Start an FST waveform of the cycles from `from` on (docs/cosim.md,
    // docs/timeline.md): cycle t is at time 10t (ns), just after the rising
    // edge that begins it, and its falling edge at 10t + 5.  -1 when the
    // model was built without tracing or the file cannot be opened.
    int wave(const char *path, uint64_t from)
    {
#if VM_TRACE_FST
        fst.reset(new VerilatedFstC);
        top->trace(fst.get(), 99);
        fst->set_time_resolution("1ns");
        fst->open(path);
        if (!fst->isOpen()) {
            fst.reset();
            return -1;
        }
        wave_from = from;
        if (running && cycle >= from)
            fst->dump(10 * cycle);
        return 0;
#else
        (void)path;
        (void)from;
        return -1;
#endif
    }

    // One clock edge: the records of the current cycle are taken before it.
    void clock()
    {
        top->clk_i = 1;
        top->eval();
        if (running)
            cycle++;
#if VM_TRACE_FST
        bool dump = fst && running && cycle >= wave_from;
        if (dump)
            fst->dump(10 * cycle);
#endif
        top->clk_i = 0;
        top->eval();
#if VM_TRACE_FST
        if (dump)
            fst->dump(10 * cycle + 5);
#endif
    }

    void select(unsigned core)
    {
#ifdef RTL_SYSTEM
        top->bd_core_i = core;
#else
        (void)core;
#endif
    }

    // Backdoor: write n <= 64 bytes at addr (IMEM: one word at a byte
    // address that is a multiple of 8).
    void bd_write(unsigned core, unsigned space, uint64_t addr, const uint8_t *p, unsigned n)
    {
        select(core);
        top->bd_we_i = 1;
        top->bd_space_i = space;
        top->bd_addr_i = addr;
        bytes_to(top->bd_wdata_i, p, n);
        top->bd_wstrb_i = n >= 64 ? ~0ull : (1ull << n) - 1;
        clock();
        top->bd_we_i = 0;
        top->bd_wstrb_i = 0;
    }

    void bd_read(unsigned core, unsigned space, uint64_t addr, uint8_t *p, unsigned n)
    {
        select(core);
        top->bd_we_i = 0;
        top->bd_space_i = space;
        top->bd_addr_i = addr;
        top->eval();
        bytes_from(top->bd_rdata_o, p, n);
    }

    int error(unsigned k) const { return (int)port_bits(top->error_o, k, 1); }
    int halted(unsigned k) const { return (int)port_bits(top->halted_o, k, 1); }
    int halt_now(unsigned k) const { return (int)port_bits(top->tr_halt_o, k, 1); }
#ifdef RTL_SYSTEM
    int deadlock() const { return top->deadlock_o; }
    int links_busy() const { return top->links_busy_o; }
#else
    int deadlock() const { return top->stuck_o; }
    int links_busy() const { return top->ici_link_busy_o; }
#endif

    // The whole trace port, for decode_trace (sim/cosim/trace_port.h).
    struct TraceReader {
        const Top *t;
        uint64_t bits(TracePort p, unsigned lsb, unsigned width) const
        {
            switch (p) {
#define TRACE_PORT(name, count, bits, what) case TracePort::name: return port_bits(t->tr_##name##_o, lsb, width);
#include "../../rtl/trace_ports.def"
#undef TRACE_PORT
            }
            return 0;
        }
    };

    // The records of core k in the current cycle (before the clock edge).
    // Core k's part of each port is its k-th slice (rtl/system.v).
    void records(Cycle &c, unsigned k)
    {
        decode_trace(TraceReader{ top.get() }, layout, shape, k, sreg[k], c);
        if (error(k))
            c.simple.push_back(Rec::error());
    }
};

// ---- loading -------------------------------------------------------------------

// The object's chunks into every core of the RTL, in 64-byte aligned blocks
// (later chunks over earlier ones, as tpu_system_load does).
void load_rtl(Rtl &r, const tpu_object &obj)
{
    for (unsigned k = 0; k < RTL_CORES; k++) {
        for (size_t i = 0; i < obj.ntext; i++) {
            uint8_t w[8];
            memcpy(w, &obj.text[i], 8);
            // straight into imem_q when the bench found it, but for the
            // last word: its write through the port is a clock edge, after
            // which the fetch's combinational read sees the new words
            if (r.imem_direct[k] && i + 1 < obj.ntext && i < r.imem_words)
                memcpy(&r.imem_direct[k][i], w, 8);
            else
                r.bd_write(k, TPU_SPACE_IMEM, 8 * i, w, 8);
        }
        std::vector<uint8_t> buf(kBdBytes);
        const tpu_obj_chunk *last_direct[4] = {};     // per space
        for (size_t c = 0; c < obj.nchunks; c++) {
            const tpu_obj_chunk &ch = obj.chunks[c];
            uint64_t off = 0;
            bool to_hbm = ch.space == TPU_SPACE_HBM && r.hbm_store[k] >= 0;
            bool to_vmem = ch.space == TPU_SPACE_VMEM && r.vmem_store[k] >= 0;
            // Dense HBM straight into its Verilated array (public_flat_rw).
            // VMEM's array is public_flat_rd and loaded through the port:
            // public_flat_rw there costs every cycle (tiny's matmul 5.5% more
            // instructions; for HBM, whose reads are the DMA's few ports, 0.003%).
            uint8_t *array = ch.space == TPU_SPACE_HBM && !r.sparse_hbm ? r.hbm_direct[k] : nullptr;
            if (!to_hbm && array && ch.addr <= r.hbm_bytes && ch.size <= r.hbm_bytes - ch.addr) {
                tpu_obj_chunk_read(&ch, 0, array + ch.addr, ch.size);
                last_direct[ch.space] = &ch;
                continue;
            }
            if (to_hbm || to_vmem) {
                // straight into the C++ store, a MiB at a time
                std::vector<uint8_t> big;
                while (off < ch.size) {
                    size_t n = (size_t)std::min<uint64_t>(ch.size - off, 1u << 20);
                    big.resize(n);
                    tpu_obj_chunk_read(&ch, off, big.data(), n);
                    if (to_hbm)
                        tpu_hbm_sparse_write((size_t)r.hbm_store[k], ch.addr + off, big.data(), n);
                    else
                        tpu_vmem_dpi_write((size_t)r.vmem_store[k], ch.addr + off, big.data(), n);
                    off += n;
                }
                last_direct[ch.space] = &ch;
                continue;
            }
            while (off < ch.size) {
                uint64_t a = ch.addr + off;
                unsigned n = kBdBytes - (unsigned)(a % kBdBytes);
                if (n > ch.size - off)
                    n = (unsigned)(ch.size - off);
                tpu_obj_chunk_read(&ch, off, buf.data(), n);
                r.bd_write(k, ch.space, a, buf.data(), n);
                off += n;
            }
        }
        // A store written behind the model's back: its reads take the count
        // of cycles with a write (rtl/hbm_mem.v, rtl/vmem.v: wseq_q) to order
        // them after the writes; one write through the port (the last such
        // chunk's first bytes again) counts one, so no read keeps a value
        // from before.  For an array the same write is an assignment to it,
        // after which Verilator evaluates again what reads it.
        for (const tpu_obj_chunk *ch : last_direct) {
            if (!ch)
                continue;
            unsigned n = (unsigned)std::min<uint64_t>(ch->size, kBdBytes - ch->addr % kBdBytes);
            if (n) {
                tpu_obj_chunk_read(ch, 0, buf.data(), n);
                r.bd_write(k, ch->space, ch->addr, buf.data(), n);
            }
        }
    }
}

// Compare a whole memory of core k; prints the first difference.  Returns 0
// if equal.
// ---- the verdict (sim/cosim/verdict.h) ----------------------------------------------

// The RTL's memories through the backdoor port, kBdBytes at a time.
bool rtl_read(Rtl &r, unsigned k, enum tpu_space space, uint64_t addr, uint8_t *dst, size_t n)
{
    // the storage itself when the bench found it (Rtl::find_storage)
    if (space == TPU_SPACE_VMEM && r.vmem_direct[k] && addr + n <= r.vmem_bytes) {
        memcpy(dst, r.vmem_direct[k] + addr, n);
        return true;
    }
    if (space == TPU_SPACE_HBM && r.hbm_direct[k] && !r.sparse_hbm && addr + n <= r.hbm_bytes) {
        memcpy(dst, r.hbm_direct[k] + addr, n);
        return true;
    }
    if (space == TPU_SPACE_HBM && r.hbm_store[k] >= 0) {
        tpu_hbm_sparse_read((size_t)r.hbm_store[k], addr, dst, n);
        return true;
    }
    if (space == TPU_SPACE_VMEM && r.vmem_store[k] >= 0 && addr + n <= r.vmem_bytes) {
        tpu_vmem_dpi_read((size_t)r.vmem_store[k], addr, dst, n);
        return true;
    }
    for (size_t off = 0; off < n; off += kBdBytes) {
        unsigned m = n - off < kBdBytes ? (unsigned)(n - off) : kBdBytes;
        r.bd_read(k, space, addr + off, dst + off, m);
    }
    return true;
}

// The C model's, through the backdoor.
bool model_read(Model &m, unsigned k, enum tpu_space space, uint64_t addr, uint8_t *dst,
                size_t n, const char *name)
{
    if (tpu_mem_read(tpu_system_core(m.sys, k), space, addr, dst, n) < 0) {
        fprintf(stderr, RTL_NAME ": cannot read the C model's %s at 0x%" PRIx64 "\n", name,
                addr);
        return false;
    }
    return true;
}

// HBM above kHbmSparseAbove is sparse in the RTL (rtl/hbm_mem.v, Sparse):
// compared only on the pages either side wrote, every RTL store's (the
// cores' and any replay's) and the C model's core k's; the rest reads 0
// on both sides (a page of either is compared whole, in units of the
// larger page size).
cosim::Ranges sparse_hbm_ranges(tpu_core *core, uint64_t size)
{
    std::vector<uint64_t> pages;
    tpu_hbm_sparse_pages(pages);
    uint64_t mp = tpu_mem_hbm_page_bytes();
    uint64_t unit = std::max(tpu_hbm_sparse_page_bytes(), mp);    // both powers of two
    for (uint64_t a = tpu_mem_hbm_next_page(core, 0); a < size;
         a = tpu_mem_hbm_next_page(core, a + mp))
        pages.push_back(a);
    for (uint64_t &p : pages)
        p &= ~(unit - 1);
    std::sort(pages.begin(), pages.end());
    pages.erase(std::unique(pages.begin(), pages.end()), pages.end());
    cosim::Ranges ranges;
    for (uint64_t page : pages)
        if (page < size)
            ranges.push_back({ page, std::min(unit, size - page) });
    return ranges;
}

// Reset the RTL, load the object, release reset.
void start_rtl(Rtl &r, const tpu_object &obj)
{
    r.top->clk_i = 0;
    r.top->rst_ni = 0;
#ifndef RTL_SYSTEM
    r.top->core_id_i = 0;       // the one core (system.v numbers its cores itself)
#endif
    r.top->eval();
    r.find_stores();            // made by hbm_mem's and vmem's initial blocks
    load_rtl(r, obj);
    r.top->bd_space_i = 0;      // no backdoor space selected: its reads cost nothing
    r.top->rst_ni = 1;
    r.top->eval();
    r.running = 1;
}

// After a lockstep mismatch in cycle `fail`: run the RTL again from reset
// (it is deterministic) with tracing switched on for the last `n` cycles
// up to and including that one, and the clock edge that ends it.
void replay(const tpu_config &cfg, const tpu_object &obj, uint64_t fail, uint64_t n,
            const char *path)
{
    Rtl r(cfg);
    start_rtl(r, obj);
    uint64_t from = fail + 1 > n ? fail + 1 - n : 0;
    if (r.wave(path, from) < 0) {
        fprintf(stderr, RTL_NAME ": cannot write the waveform '%s'%s\n", path,
                VM_TRACE_FST ? "" : " (the model was built without --trace-fst)");
        return;
    }
    while (r.cycle <= fail)
        r.clock();
    fprintf(stderr, RTL_NAME ": waveform of cycles %" PRIu64 "..%" PRIu64 " in %s\n", from, fail,
            path);
}

void usage(FILE *f)
{
    fprintf(f,
            "usage: " RTL_NAME " [--max-cycles N] [--lockstep] [--verbose] [--wave FILE]\n"
            "       [--wave-on-fail FILE] [--wave-cycles N] [--program-status]\n"
            "       [--expect-error] [+PLUSARG...] prog.bin\n"
            "\n"
            "Run prog.bin on the Verilated RTL (%s, config %s) and on the C model;\n"
            "compare the end of the run, its cycle count and all of VMEM and HBM.\n"
            "\n"
            "options:\n"
            "  --max-cycles N  stop both after N cycles (default 10000000)\n"
            "  --lockstep      also compare the trace records of every cycle\n"
            "  --verbose       print the records of every cycle (with --lockstep)\n"
            "  --wave FILE     write an FST waveform of the whole RTL run\n"
            "  --wave-on-fail FILE\n"
            "                  after a lockstep mismatch, write the last cycles up to\n"
            "                  it as an FST waveform (the RTL runs again from reset)\n"
            "  --wave-cycles N cycles in that waveform (default 1000)\n"
            "  --program-status  exit 3 when both sides agree but the program stopped\n"
            "                  with a run-time error or the cycle limit (as tpu-sim)\n"
            "  --expect-error  the program is meant to stop with a run-time error:\n"
            "                  exit 0 when both sides stop with it, 1 when it halts\n"
            "  +NAME=VALUE     a Verilog plusarg for the RTL: +mutant=ID selects mutant ID\n"
            "                  of a build from tpu-mutate's sources (make mutants)\n"
            "  -h, --help      show this help\n"
            "\n"
            "exit status: 0 both sides match, 1 a mismatch, 2 bad usage or input,\n"
            "3 (with --program-status) both match but the program did not halt,\n"
            "130 interrupted (Ctrl-C: the run stops at the next cycle)\n",
            RTL_TOPO_TEXT,
            RTL_CONFIG);
}

// ---- the command ------------------------------------------------------------------

struct Options {
    uint64_t max_cycles = 10000000, wave_cycles = 1000;
    int lockstep = 0, verbose = 0, program_status = 0, expect_error = 0;
    const char *prog = nullptr, *wave = nullptr, *fail_wave = nullptr;
};

// The command line into o: 0, -1 after --help (exit 0), or 2 after a message.
int parse_args(int argc, char **argv, Options &o)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return -1;
        } else if (!strcmp(a, "--max-cycles") && i + 1 < argc) {
            char *end;
            o.max_cycles = strtoull(argv[++i], &end, 0);
            if (*end || !o.max_cycles) {
                fprintf(stderr, RTL_NAME ": error: bad --max-cycles '%s'\n", argv[i]);
                return 2;
            }
        } else if (!strcmp(a, "--wave-cycles") && i + 1 < argc) {
            char *end;
            o.wave_cycles = strtoull(argv[++i], &end, 0);
            if (*end || !o.wave_cycles) {
                fprintf(stderr, RTL_NAME ": error: bad --wave-cycles '%s'\n", argv[i]);
                return 2;
            }
        } else if (!strcmp(a, "--wave") && i + 1 < argc) {
            o.wave = argv[++i];
        } else if (!strcmp(a, "--wave-on-fail") && i + 1 < argc) {
            o.fail_wave = argv[++i];
        } else if (!strcmp(a, "--lockstep")) {
            o.lockstep = 1;
        } else if (!strcmp(a, "--verbose")) {
            o.verbose = 1;
        } else if (!strcmp(a, "--program-status")) {
            o.program_status = 1;
        } else if (!strcmp(a, "--expect-error")) {
            o.expect_error = 1;
        } else if (a[0] == '+') {
            g_plusargs.push_back(a);
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr, RTL_NAME ": error: unknown option '%s' (try --help)\n", a);
            return 2;
        } else if (o.prog) {
            fprintf(stderr, RTL_NAME ": error: more than one program\n");
            return 2;
        } else {
            o.prog = a;
        }
    }
    if (!o.prog) {
        fprintf(stderr, RTL_NAME ": error: no program given (try --help)\n");
        return 2;
    }
    return 0;
}

// The config, the object and the C model's system with it loaded: 0, or 2
// after a message (obj is freed then).
int setup_model(const Options &o, Model &m, tpu_object &obj)
{
    // The bench's objects and the C model's library must agree on
    // tpu_config (sim/cosim/trace_records.h): else the load below writes
    // past it.
    if (!config_layout_matches()) {
        fprintf(stderr, RTL_NAME ": error: this bench was compiled with another cmodel/config.def "
                "than the C model's library it was linked with (a build that raced a change of "
                "the tree); rebuild it (make build/rtl/CFG/rtl-bench)\n");
        return 2;
    }
    char err[600];
    if (tpu_config_load(&m.cfg, RTL_CONFIG, err, sizeof err) < 0) {
        fprintf(stderr, "%s\n", err);
        return 2;
    }
    tpu_obj_init(&obj);
    if (tpu_obj_read(o.prog, &obj, err, sizeof err) < 0) {
        fprintf(stderr, "%s: error: %s\n", o.prog, err);
        return 2;
    }
    tpu_system_opts opts = {};
    opts.cores = RTL_CORES;
    opts.topology = RTL_CORES == 1 ? TPU_TOPO_SINGLE : TPU_TOPO_RING;
#ifdef RTL_TORUS3D                      // rtl/system.v with Topo 3 (rtl.mk: rtl-bench8)
    opts.topology = TPU_TOPO_TORUS3D;
    opts.cols = RTL_DX;
    opts.rows = RTL_DY;
    opts.depth = RTL_DZ;
#endif
    m.sys = tpu_system_create(&m.cfg, &opts, err, sizeof err);
    if (!m.sys || tpu_system_load(m.sys, &obj, err, sizeof err) < 0) {
        fprintf(stderr, "%s: error: %s\n", o.prog, err);
        tpu_obj_free(&obj);
        return 2;
    }
    memset(m.sreg, 0, sizeof m.sreg);
    for (unsigned k = 0; k < RTL_CORES; k++)
        m.sreg[k][31] = k;
    m.flight.assign(RTL_CORES, InFlight(&obj));
    if (o.lockstep)
        tpu_system_subscribe(m.sys, kModelEvents, Model::on_event, &m);
    return 0;
}

// How the run of both sides went.
struct Run {
    enum tpu_stop mstop = TPU_RUNNING;  // the C model's (stepped with --lockstep)
    uint64_t t = 0;                     // the RTL's cycles
    uint64_t rhalt[RTL_CORES] = {};     // the RTL's halt cycle per core (0: none)
    cosim::End rend = cosim::End::CycleLimit;
    int mismatch = 0, interrupted = 0;
};

// Run both.  RTL: the records of cycle t are on the trace port before the
// clock edge that ends t; the run has ended when, after the edge, every
// core has halted and no link carries bytes (tpu_system_step).  With
// --lockstep the C model steps with it and the records are compared every
// cycle; without, the C model runs afterwards (finish_model).
void run_both(const Options &o, Model &m, Rtl &r, const tpu_object &obj, Run &run)
{
    tpu_interrupt_install();
    Cycle rc[RTL_CORES];                    // the RTL's records of the cycle (reused)
    uint64_t &t = run.t;
    for (; t < o.max_cycles; t++) {
        if (tpu_interrupted()) {            // Ctrl-C: stop at this cycle boundary
            run.interrupted = 1;
            break;
        }
        int r_err = r.deadlock();
        for (unsigned k = 0; k < RTL_CORES; k++) {
            rc[k].clear();
            if (o.lockstep)
                r.records(rc[k], k);
            if (r.halt_now(k))
                run.rhalt[k] = t + 1;
            r_err |= r.error(k);
        }
        if (o.lockstep && r.deadlock()) {
            for (unsigned k = 0; k < RTL_CORES; k++) {   // the first stuck core fails (system.c)
                if (!r.halted(k)) {
                    if (!r.error(k))
                        rc[k].simple.push_back(Rec::error());
                    break;
                }
            }
        }
        if (o.lockstep && run.mstop == TPU_RUNNING) {
            for (unsigned k = 0; k < RTL_CORES; k++)
                m.cur[k].clear();
            run.mstop = tpu_system_step(m.sys);
            m.note_sregs();
            for (unsigned k = 0; k < RTL_CORES && !run.mismatch; k++) {
                if (!compare_cycle(RTL_NAME, o.prog, t, k, rc[k], m.cur[k], o.verbose,
                                   &m.flight[k]))
                    run.mismatch = 1;
                m.flight[k].end_cycle();
            }
            if (run.mismatch) {
                if (o.wave) {
                    r.clock();          // the edge that ends the failing cycle
                    fprintf(stderr, RTL_NAME ": waveform of cycles 0..%" PRIu64 " in %s\n", t,
                            o.wave);
                } else if (o.fail_wave) {
                    replay(m.cfg, obj, t, o.wave_cycles, o.fail_wave);
                }
                return;
            }
        }
        r.clock();
        if (r_err) {
            run.rend = cosim::End::Error;
            t++;
            return;
        }
        int all = !r.links_busy();
        for (unsigned k = 0; k < RTL_CORES; k++)
            all &= r.halted(k);
        if (all) {
            run.rend = cosim::End::Halt;
            t++;
            return;
        }
    }
}

// After Ctrl-C: say where it stopped.
int report_interrupt(const Options &o, const Run &run)
{
    printf(RTL_NAME ": %s: interrupted at cycle %" PRIu64 ": %s\n", o.prog, run.t,
           o.lockstep ? "every cycle before it matched the C model" : "nothing compared");
    fflush(stdout);
    if (o.wave)
        fprintf(stderr, RTL_NAME ": waveform of cycles 0..%" PRIu64 " in %s\n",
                run.t ? run.t - 1 : 0, o.wave);
    return TPU_EXIT_INTERRUPTED;            // ~Rtl closes the waveform
}

// The verdict on both finished runs (sim/cosim/verdict.h), its line, and
// the exit status.
int judge(const Options &o, Model &m, Rtl &r, const Run &run)
{
    cosim::VerdictOpts vo;
    vo.tool = RTL_NAME;
    vo.prog = o.prog;
    vo.ncores = RTL_CORES;
    vo.vmem_bytes = m.cfg.vmem_bytes;
    vo.hbm_bytes = m.cfg.hbm_bytes;
    if (m.cfg.hbm_bytes > kHbmSparseAbove)
        vo.hbm_ranges = [&m](unsigned k) {
            return sparse_hbm_ranges(tpu_system_core(m.sys, k), m.cfg.hbm_bytes);
        };
    cosim::RtlSide rs;
    rs.end = run.rend;
    rs.cycles = run.t;
    rs.read = [&r](unsigned k, enum tpu_space sp, uint64_t a, uint8_t *d, size_t n,
                   const char *) { return rtl_read(r, k, sp, a, d, n); };
    cosim::ModelSide ms;
    ms.end = cosim::model_end(run.mstop);
    ms.cycles = tpu_system_cycle(m.sys);
    if (run.mstop == TPU_STOP_ERROR)
        ms.error = tpu_system_error(m.sys);
    ms.read = [&m](unsigned k, enum tpu_space sp, uint64_t a, uint8_t *d, size_t n,
                   const char *name) { return model_read(m, k, sp, a, d, n, name); };
    for (unsigned k = 0; k < RTL_CORES; k++) {
        rs.halt.push_back(run.rhalt[k]);
        rs.err_code.push_back(r.error(k) ? (int)port_bits(r.top->error_code_o, 3 * k, 3) : -1);
        rs.err_pc.push_back(port_bits(r.top->tr_pc_o, 64 * k, 64));
        tpu_stats st;
        tpu_core_stats(tpu_system_core(m.sys, k), &st);
        ms.halt.push_back(st.cycles);
    }
    int bad = cosim::verdict(vo, rs, ms);

    uint64_t t = run.t;
    const char *what = o.lockstep ? "cycles, records, VMEM and HBM match the C model"
                                  : "cycles, VMEM and HBM match the C model";
    if (bad)
        printf(RTL_NAME ": %s: %s after %" PRIu64 " cycle%s: MISMATCH\n", o.prog,
               cosim::end_name(run.rend), t, t == 1 ? "" : "s");
    else if (run.mstop == TPU_STOP_HALT)
        printf(RTL_NAME ": %s: halt after %" PRIu64 " cycle%s: %s\n", o.prog, t,
               t == 1 ? "" : "s", what);
    else    // both stopped the same way before halt: say how, and that they agree
        printf(RTL_NAME ": %s: both stopped: %s at cycle %" PRIu64 ": %s\n", o.prog,
               run.mstop == TPU_STOP_ERROR ? tpu_system_error(m.sys) : "cycle limit", t, what);
    fflush(stdout);
    if (o.wave)
        fprintf(stderr, RTL_NAME ": waveform of cycles 0..%" PRIu64 " in %s\n", t - 1, o.wave);
    if (bad)
        return 1;
    if (o.expect_error && run.mstop == TPU_STOP_HALT) {
        fprintf(stderr, RTL_NAME ": %s: expected a run-time error (--expect-error), but the "
                "program halted\n", o.prog);
        return 1;
    }
    if (o.program_status && !o.expect_error && run.mstop != TPU_STOP_HALT)
        return 3;
    return 0;
}

}  // namespace

int main(int argc, char **argv)
{
    Options o;
    int rc = parse_args(argc, argv, o);
    if (rc)
        return rc < 0 ? 0 : rc;
    Model m;
    tpu_object obj;
    if ((rc = setup_model(o, m, obj)))
        return rc;

    Rtl r(m.cfg);
    start_rtl(r, obj);
    if (o.wave && r.wave(o.wave, 0) < 0) {
        fprintf(stderr, RTL_NAME ": error: cannot write the waveform '%s'%s\n", o.wave,
                VM_TRACE_FST ? "" : " (the model was built without --trace-fst)");
        tpu_obj_free(&obj);
        return 2;
    }
    Run run;
    run_both(o, m, r, obj, run);
    tpu_obj_free(&obj);
    if (run.mismatch)
        return 1;
    if (run.interrupted)
        return report_interrupt(o, run);
    if (!o.lockstep)
        run.mstop = tpu_system_run(m.sys, o.max_cycles);
    return judge(o, m, r, run);
}
