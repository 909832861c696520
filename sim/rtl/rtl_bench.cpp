// rtl_bench: run a program on the Verilated RTL core and on the C model,
// and check that they agree.
//
//   rtl-bench [--max-cycles N] [--lockstep] [--verbose] prog.bin
//
// The object is loaded into both: into the C model with tpu_system_load(),
// into the RTL through the core's backdoor port (IMEM words, then the
// object's DATA and FILL chunks, 64 bytes per clock, during reset).  Both
// run to halt (or a run-time error, or the cycle limit).  Then the bench
// compares how the run ended and in which cycle, and every byte of VMEM
// and HBM, and prints one line.  With --lockstep it also compares, every
// cycle, the RTL's trace port with the C model's events of that cycle
// (docs/rtl.md "Trace port" defines the records) and stops at the first
// difference.  Exit status 0 when everything matched, 1 otherwise, 2 on
// bad usage or input.
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
#include <algorithm>

#include "verilated.h"
#include "Vcore.h"

extern "C" {
#include "config.h"
#include "objfile.h"
#include "tpu.h"
}

#include "rtl_config.h"      // RTL_CONFIG, written by sim/rtl/rtl.mk
#ifndef RTL_CONFIG
#error "RTL_CONFIG (the config the model was built for) must be defined"
#endif

namespace {

const unsigned kBdBytes = 64;       // backdoor port width in bytes

// ---- bit access on Verilator's port types ----------------------------------

// Bits [lsb, lsb + width) (width <= 64) of a wide port (32-bit words).
template <std::size_t N>
uint64_t bits(const VlWide<N> &w, unsigned lsb, unsigned width)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < width; i++) {
        unsigned b = lsb + i;
        v |= (uint64_t)((w[b / 32] >> (b % 32)) & 1u) << i;
    }
    return v;
}

// The same on a port of at most 64 bits.
uint64_t bits(uint64_t w, unsigned lsb, unsigned width)
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

std::string hex_bytes(const uint8_t *p, size_t n)
{
    static const char dig[] = "0123456789abcdef";
    std::string s;
    s.reserve(2 * n);
    for (size_t i = 0; i < n; i++) {
        s += dig[p[i] >> 4];
        s += dig[p[i] & 15];
    }
    return s;
}

// ---- records of one cycle ----------------------------------------------------

// A memory write: unit name, address and bytes.
struct Write {
    std::string unit;
    uint64_t addr;
    std::vector<uint8_t> data;
};

// What one side did in one cycle, normalised so that both sides can be
// compared with ==: simple records sorted, memory writes in landing order
// with adjacent writes of one unit merged (the C model writes a DMA row
// segment at a time, the RTL a byte at a time).
struct Cycle {
    std::vector<std::string> simple;
    std::vector<Write> vmem, hbm;

    void add_write(std::vector<Write> &v, const std::string &unit, uint64_t addr,
                   const uint8_t *p, size_t n)
    {
        if (!n)
            return;
        if (!v.empty() && v.back().unit == unit && v.back().addr + v.back().data.size() == addr) {
            v.back().data.insert(v.back().data.end(), p, p + n);
            return;
        }
        v.push_back(Write{unit, addr, std::vector<uint8_t>(p, p + n)});
    }

    std::vector<std::string> lines() const
    {
        std::vector<std::string> out = simple;
        std::sort(out.begin(), out.end());
        char b[96];
        for (const Write &w : vmem) {
            snprintf(b, sizeof b, "vmem write %s 0x%" PRIx64 " %zu bytes: ", w.unit.c_str(),
                     w.addr, w.data.size());
            out.push_back(b + hex_bytes(w.data.data(), w.data.size()));
        }
        for (const Write &w : hbm) {
            snprintf(b, sizeof b, "hbm write %s 0x%" PRIx64 " %zu bytes: ", w.unit.c_str(),
                     w.addr, w.data.size());
            out.push_back(b + hex_bytes(w.data.data(), w.data.size()));
        }
        return out;
    }
};

std::string fmt(const char *f, ...) __attribute__((format(printf, 1, 2)));
std::string fmt(const char *f, ...)
{
    char b[256];
    va_list ap;
    va_start(ap, f);
    vsnprintf(b, sizeof b, f, ap);
    va_end(ap);
    return b;
}

// ---- the C model side ----------------------------------------------------------

struct Model {
    tpu_config cfg;
    tpu_system *sys = nullptr;
    Cycle cur;                      // events of the cycle being stepped
    int64_t sreg[32];

    ~Model() { tpu_system_destroy(sys); }

    static void on_event(void *ctx, const tpu_event *e)
    {
        Model *m = static_cast<Model *>(ctx);
        m->event(e);
    }

    void event(const tpu_event *e)
    {
        switch (e->kind) {
        case TPU_EV_ISSUE:
            cur.simple.push_back(fmt("issue pc %" PRIu64 " word 0x%016" PRIx64, e->pc, e->word));
            break;
        case TPU_EV_SEM:
            cur.simple.push_back(fmt("sem %u = %u", e->index, e->value));
            break;
        case TPU_EV_HALT:
            cur.simple.push_back("halt");
            break;
        case TPU_EV_ERROR:
            cur.simple.push_back("error");
            break;
        case TPU_EV_DMA_DONE:
            cur.simple.push_back(fmt("dma done engine %u bytes %" PRIu64, e->index, e->len));
            break;
        case TPU_EV_ICI_SEND:
            cur.simple.push_back(fmt("ici send port %u bytes %" PRIu64, e->index, e->len));
            break;
        case TPU_EV_ICI_RECV:
            cur.simple.push_back(fmt("ici recv port %u bytes %" PRIu64, e->index, e->len));
            break;
        case TPU_EV_MEM_WRITE:
            cur.add_write(e->space == TPU_SPACE_VMEM ? cur.vmem : cur.hbm,
                          tpu_unit_id_name(e->unit), e->addr, e->data, e->len);
            break;
        default:
            break;
        }
    }

    // Scalar register writes show as changed registers (the C model has no
    // event for them).
    void note_sregs()
    {
        tpu_seq_view v;
        tpu_core_seq_view(tpu_system_core(sys, 0), &v);
        for (unsigned r = 1; r < 31; r++)
            if (v.sreg[r] != sreg[r]) {
                cur.simple.push_back(fmt("sreg s%u = 0x%016" PRIx64, r, (uint64_t)v.sreg[r]));
                sreg[r] = v.sreg[r];
            }
    }
};

// ---- the RTL side ----------------------------------------------------------------

// The shape of the build, from the config (as rtl/core.v derives it).
struct Shape {
    unsigned dma_engines, dma_ports, num_mxu, mxu_n, vec_bytes;

    explicit Shape(const tpu_config &c)
    {
        uint64_t num, den;
        tpu_config_bytes_per_cycle(c.hbm_bw, c.clock_hz, &num, &den);
        dma_engines = (unsigned)c.dma_engines;
        dma_ports = dma_engines * (unsigned)((num + den - 1) / den);
        num_mxu = (unsigned)c.num_mxu;
        mxu_n = (unsigned)c.mxu_n;
        vec_bytes = 4 * (unsigned)(c.vpu_sublanes * c.vpu_lanes);
    }
};

struct Rtl {
    std::unique_ptr<VerilatedContext> ctx;
    std::unique_ptr<Vcore> top;
    Shape shape;
    int64_t sreg[32] = {0};

    explicit Rtl(const tpu_config &c)
        : ctx(new VerilatedContext), top(new Vcore(ctx.get(), "core")), shape(c) {}

    void clock()
    {
        top->clk_i = 1;
        top->eval();
        top->clk_i = 0;
        top->eval();
    }

    // Backdoor: write n <= 64 bytes at addr (IMEM: one word at a byte
    // address that is a multiple of 8).
    void bd_write(unsigned space, uint64_t addr, const uint8_t *p, unsigned n)
    {
        top->bd_we_i = 1;
        top->bd_space_i = space;
        top->bd_addr_i = addr;
        uint64_t strb = 0;
        for (unsigned i = 0; i < n; i++) {
            set_byte(top->bd_wdata_i, i, p[i]);
            strb |= 1ull << i;
        }
        top->bd_wstrb_i = strb;
        clock();
        top->bd_we_i = 0;
        top->bd_wstrb_i = 0;
    }

    void bd_read(unsigned space, uint64_t addr, uint8_t *p, unsigned n)
    {
        top->bd_we_i = 0;
        top->bd_space_i = space;
        top->bd_addr_i = addr;
        top->eval();
        for (unsigned i = 0; i < n; i++)
            p[i] = byte_at(top->bd_rdata_o, i);
    }

    // The trace port of the current cycle (before the clock edge).
    void records(Cycle &c)
    {
        Vcore *t = top.get();
        if (t->tr_issue_o)
            c.simple.push_back(fmt("issue pc %" PRIu64 " word 0x%016" PRIx64,
                                   (uint64_t)t->tr_pc_o, (uint64_t)t->tr_word_o));
        if (t->tr_sreg_we_o && sreg[t->tr_sreg_idx_o] != (int64_t)t->tr_sreg_val_o) {
            sreg[t->tr_sreg_idx_o] = (int64_t)t->tr_sreg_val_o;
            c.simple.push_back(fmt("sreg s%u = 0x%016" PRIx64, (unsigned)t->tr_sreg_idx_o,
                                   (uint64_t)t->tr_sreg_val_o));
        }
        for (unsigned i = 0; i < 32; i++)
            if ((t->tr_sem_mask_o >> i) & 1u)
                c.simple.push_back(fmt("sem %u = %u", i, (unsigned)t->tr_sem_val_o[i]));
        if (t->tr_halt_o)
            c.simple.push_back("halt");
        // VMEM writes in landing order (T12a): incoming ICI, MXUs, VPU, DMA.
        // MXU result rows
        for (unsigned m = 0; m < shape.num_mxu; m++) {
            if (!bits(t->tr_mxu_we_o, m, 1))
                continue;
            unsigned n = 4 * shape.mxu_n;
            std::vector<uint8_t> row(n);
            for (unsigned i = 0; i < n; i++)
                row[i] = byte_at(t->tr_mxu_data_o, m * n + i);
            c.add_write(c.vmem, fmt("mxu%u", m), bits(t->tr_mxu_addr_o, 64 * m, 64), row.data(),
                        n);
        }
        // VPU store
        if (t->tr_vpu_we_o) {
            unsigned n = t->tr_vpu_half_o ? shape.vec_bytes / 2 : shape.vec_bytes;
            std::vector<uint8_t> v(n);
            for (unsigned i = 0; i < n; i++)
                v[i] = byte_at(t->tr_vpu_data_o, i);
            c.add_write(c.vmem, "vpu", t->tr_vpu_addr_o, v.data(), n);
        }
        // DMA: one byte per port, ports in landing order
        for (unsigned p = 0; p < shape.dma_ports; p++) {
            if (bits(t->tr_dma_vmem_we_o, p, 1)) {
                uint8_t b = byte_at(t->tr_dma_vmem_data_o, p);
                c.add_write(c.vmem, "dma", bits(t->tr_dma_vmem_addr_o, 64 * p, 64), &b, 1);
            }
            if (bits(t->tr_dma_hbm_we_o, p, 1)) {
                uint8_t b = byte_at(t->tr_dma_hbm_data_o, p);
                c.add_write(c.hbm, "dma", bits(t->tr_dma_hbm_addr_o, 64 * p, 64), &b, 1);
            }
        }
        for (unsigned e = 0; e < shape.dma_engines; e++)
            if (bits(t->tr_dma_done_o, e, 1))
                c.simple.push_back(fmt("dma done engine %u bytes %" PRIu64, e,
                                       bits(t->tr_dma_done_bytes_o, 64 * e, 64)));
        if (t->error_o || t->stuck_o)
            c.simple.push_back("error");
    }
};

// ---- loading -------------------------------------------------------------------

// The object's chunks into the RTL, in 64-byte aligned blocks (later
// chunks over earlier ones, as tpu_system_load does).
void load_rtl(Rtl &r, const tpu_object &obj)
{
    for (size_t i = 0; i < obj.ntext; i++) {
        uint8_t w[8];
        memcpy(w, &obj.text[i], 8);
        r.bd_write(TPU_SPACE_IMEM, 8 * i, w, 8);
    }
    std::vector<uint8_t> buf(kBdBytes);
    for (size_t k = 0; k < obj.nchunks; k++) {
        const tpu_obj_chunk &ch = obj.chunks[k];
        uint64_t off = 0;
        while (off < ch.size) {
            uint64_t a = ch.addr + off;
            unsigned n = kBdBytes - (unsigned)(a % kBdBytes);
            if (n > ch.size - off)
                n = (unsigned)(ch.size - off);
            tpu_obj_chunk_read(&ch, off, buf.data(), n);
            r.bd_write(ch.space, a, buf.data(), n);
            off += n;
        }
    }
}

// Compare a whole memory; prints the first difference.  Returns 0 if equal.
int compare_mem(Rtl &r, tpu_core *core, unsigned space, uint64_t size, const char *name)
{
    uint8_t a[kBdBytes], b[kBdBytes];
    for (uint64_t addr = 0; addr < size; addr += kBdBytes) {
        unsigned n = size - addr < kBdBytes ? (unsigned)(size - addr) : kBdBytes;
        r.bd_read(space, addr, a, n);
        if (tpu_mem_read(core, (enum tpu_space)space, addr, b, n) < 0) {
            fprintf(stderr, "rtl-bench: cannot read the C model's %s at 0x%" PRIx64 "\n", name,
                    addr);
            return 1;
        }
        if (memcmp(a, b, n)) {
            unsigned i = 0;
            while (a[i] == b[i])
                i++;
            fprintf(stderr,
                    "rtl-bench: %s differs at 0x%" PRIx64 ": RTL 0x%02x, C model 0x%02x\n", name,
                    addr + i, a[i], b[i]);
            return 1;
        }
    }
    return 0;
}

void usage(FILE *f)
{
    fprintf(f,
            "usage: rtl-bench [--max-cycles N] [--lockstep] [--verbose] prog.bin\n"
            "\n"
            "Run prog.bin on the Verilated RTL core (config %s) and on the C model;\n"
            "compare the end of the run, its cycle count and all of VMEM and HBM.\n"
            "\n"
            "options:\n"
            "  --max-cycles N  stop both after N cycles (default 10000000)\n"
            "  --lockstep      also compare the trace records of every cycle\n"
            "  --verbose       print the records of every cycle (with --lockstep)\n"
            "  -h, --help      show this help\n",
            RTL_CONFIG);
}

}  // namespace

int main(int argc, char **argv)
{
    uint64_t max_cycles = 10000000;
    int lockstep = 0, verbose = 0;
    const char *prog = nullptr;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(a, "--max-cycles") && i + 1 < argc) {
            char *end;
            max_cycles = strtoull(argv[++i], &end, 0);
            if (*end || !max_cycles) {
                fprintf(stderr, "rtl-bench: error: bad --max-cycles '%s'\n", argv[i]);
                return 2;
            }
        } else if (!strcmp(a, "--lockstep")) {
            lockstep = 1;
        } else if (!strcmp(a, "--verbose")) {
            verbose = 1;
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "rtl-bench: error: unknown option '%s' (try --help)\n", a);
            return 2;
        } else if (prog) {
            fprintf(stderr, "rtl-bench: error: more than one program\n");
            return 2;
        } else {
            prog = a;
        }
    }
    if (!prog) {
        fprintf(stderr, "rtl-bench: error: no program given (try --help)\n");
        return 2;
    }

    char err[600];
    Model m;
    if (tpu_config_load(&m.cfg, RTL_CONFIG, err, sizeof err) < 0) {
        fprintf(stderr, "%s\n", err);
        return 2;
    }
    tpu_object obj;
    tpu_obj_init(&obj);
    if (tpu_obj_read(prog, &obj, err, sizeof err) < 0) {
        fprintf(stderr, "%s: error: %s\n", prog, err);
        return 2;
    }
    m.sys = tpu_system_create(&m.cfg, nullptr, err, sizeof err);
    if (!m.sys || tpu_system_load(m.sys, &obj, err, sizeof err) < 0) {
        fprintf(stderr, "%s: error: %s\n", prog, err);
        tpu_obj_free(&obj);
        return 2;
    }
    memset(m.sreg, 0, sizeof m.sreg);
    if (lockstep)
        tpu_system_subscribe(m.sys, ~0u & ~((1u << TPU_EV_STALL) | (1u << TPU_EV_BUSY) |
                                            (1u << TPU_EV_IDLE) | (1u << TPU_EV_RETIRE)),
                             Model::on_event, &m);

    Rtl r(m.cfg);
    r.top->clk_i = 0;
    r.top->rst_ni = 0;
    r.top->eval();
    load_rtl(r, obj);
    tpu_obj_free(&obj);
    r.top->rst_ni = 1;
    r.top->eval();

    // Run both.  RTL: the records of cycle t are on the trace port before
    // the clock edge that ends t.
    enum tpu_stop mstop = TPU_RUNNING;
    uint64_t t = 0;
    const char *rend = "cycle limit";
    int mismatch = 0;
    for (; t < max_cycles; t++) {
        Cycle rc;
        if (lockstep)
            r.records(rc);
        int r_halt = r.top->tr_halt_o, r_err = r.top->error_o || r.top->stuck_o;
        if (lockstep && mstop == TPU_RUNNING) {
            m.cur = Cycle();
            mstop = tpu_system_step(m.sys);
            m.note_sregs();
            std::vector<std::string> a = rc.lines(), b = m.cur.lines();
            if (verbose)
                for (const std::string &s : a)
                    printf("%" PRIu64 ": %s\n", t, s.c_str());
            if (a != b) {
                fprintf(stderr, "rtl-bench: %s: cycle %" PRIu64 ": records differ\n", prog, t);
                for (const std::string &s : a)
                    if (std::find(b.begin(), b.end(), s) == b.end())
                        fprintf(stderr, "  RTL only:     %s\n", s.c_str());
                for (const std::string &s : b)
                    if (std::find(a.begin(), a.end(), s) == a.end())
                        fprintf(stderr, "  C model only: %s\n", s.c_str());
                mismatch = 1;
                break;
            }
        }
        r.clock();
        if (r_err) {
            rend = "error";
            t++;
            break;
        }
        if (r_halt) {
            rend = "halt";
            t++;
            break;
        }
    }
    if (mismatch)
        return 1;
    if (!lockstep)
        mstop = tpu_system_run(m.sys, max_cycles);

    tpu_core *core = tpu_system_core(m.sys, 0);
    tpu_stats st;
    tpu_core_stats(core, &st);
    const char *mend = mstop == TPU_STOP_HALT ? "halt" : mstop == TPU_STOP_ERROR ? "error"
                                                                                 : "cycle limit";
    uint64_t mcycles = mstop == TPU_STOP_HALT ? st.cycles : tpu_system_cycle(m.sys);
    int bad = 0;
    if (strcmp(rend, mend) != 0 || t != mcycles) {
        fprintf(stderr,
                "rtl-bench: %s: RTL ended with %s after %" PRIu64 " cycles, C model with %s after %"
                PRIu64 " cycles%s%s\n",
                prog, rend, t, mend, mcycles, mstop == TPU_STOP_ERROR ? ": " : "",
                mstop == TPU_STOP_ERROR ? tpu_system_error(m.sys) : "");
        if (r.top->error_o)
            fprintf(stderr, "rtl-bench: RTL error code %u at pc %" PRIu64 "\n",
                    (unsigned)r.top->error_code_o, (uint64_t)r.top->tr_pc_o);
        bad = 1;
    }
    bad |= compare_mem(r, core, TPU_SPACE_VMEM, m.cfg.vmem_bytes, "VMEM");
    bad |= compare_mem(r, core, TPU_SPACE_HBM, m.cfg.hbm_bytes, "HBM");
    printf("rtl-bench: %s: %s after %" PRIu64 " cycles: %s\n", prog, rend, t,
           bad ? "MISMATCH" : lockstep ? "cycles, records, VMEM and HBM match the C model"
                                       : "cycles, VMEM and HBM match the C model");
    return bad;
}
