// trace_records.h - the per-cycle trace records of docs/rtl.md ("Trace
// port"), how the records of the RTL and of the C model are compared, and
// the mismatch report.  Shared by the two lockstep harnesses, rtl-bench
// (sim/rtl/rtl_bench.cpp) and tpu-sc-lockstep (sim/systemc/
// tpu_sc_lockstep.cpp), so that a difference reads the same under both
// (docs/cosim.md, "Reading a mismatch report").
//
// Comparison rules:
//   - simple records ("issue pc P word W", "sreg sR = V", "sem I = V",
//     "halt", "error", "dma done ...", "ici send/recv ...") are compared as
//     a sorted list;
//   - memory writes are kept in landing order, the writes of one unit to
//     consecutive addresses one right after the other merged into one run
//     (the C model writes a DMA row segment at a time, the RTL a byte at a
//     time).
// The report names the cycle, the core, the unit, the field (a register,
// a semaphore, or the word of a memory write), the expected (C model) and
// actual (RTL) values, and the instruction in flight on that unit, which
// the C model's events tell (InFlight).
#ifndef TPU_COSIM_TRACE_RECORDS_H
#define TPU_COSIM_TRACE_RECORDS_H

#include <algorithm>
#include <cinttypes>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <deque>
#include <string>
#include <vector>

extern "C" {
#include "config.h"
#include "isa.h"
#include "objfile.h"
#include "tpu.h"
}

namespace tpu_cosim {

inline std::string fmt(const char *f, ...) __attribute__((format(printf, 1, 2)));
inline std::string fmt(const char *f, ...)
{
    char b[256];
    va_list ap;
    va_start(ap, f);
    vsnprintf(b, sizeof b, f, ap);
    va_end(ap);
    return b;
}

inline std::string hex_bytes(const uint8_t *p, size_t n)
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

// The shape of the trace port of a build, from the config (as rtl/core.v
// derives it).
struct Shape {
    unsigned dma_engines, dma_ports, num_mxu, mxu_n, vec_bytes, ici_bytes;

    explicit Shape(const tpu_config &c)
    {
        uint64_t num, den;
        tpu_config_bytes_per_cycle(c.hbm_bw, c.clock_hz, &num, &den);
        dma_engines = (unsigned)c.dma_engines;
        dma_ports = (unsigned)((num + den - 1) / den);   // shared by the engines (rtl/dma.v)
        num_mxu = (unsigned)c.num_mxu;
        mxu_n = (unsigned)c.mxu_n;
        vec_bytes = 4 * (unsigned)(c.vpu_sublanes * c.vpu_lanes);
        tpu_config_bytes_per_cycle(c.ici_bw, c.clock_hz, &num, &den);
        ici_bytes = (unsigned)((num + den - 1) / den);
    }
};

// Whether the C model's library was compiled with the same tpu_config
// (cmodel/config.def) as the file that calls this.  A bench whose own
// object was compiled before a key was added to config.def and linked with
// a library compiled after (a long RTL build racing a change of the tree:
// the 64x64 build of issue 34) has tpu_config_load write past the end of
// its tpu_config, over whatever follows it (the lockstep Cycles: a garbage
// pointer in Cycle::clear).  tpu_config_defaults zeroes the library's
// tpu_config whole, so on a buffer filled with a marker it shows the
// library's size: marker bytes written after sizeof(tpu_config) (the
// library's is larger), or its last 8 bytes left as they were (smaller).
inline bool config_layout_matches()
{
    const unsigned char mark = 0xa5;
    std::vector<unsigned char> buf(sizeof(tpu_config) + 4096, mark);
    tpu_config_defaults(reinterpret_cast<tpu_config *>(buf.data()));
    for (size_t i = sizeof(tpu_config); i < buf.size(); i++)
        if (buf[i] != mark)
            return false;
    for (size_t i = sizeof(tpu_config) - 8; i < sizeof(tpu_config); i++)
        if (buf[i] != mark)
            return true;
    return false;
}

// A memory write: unit name (a static string: "dma", "mxu0", ...),
// address and bytes.
struct Write {
    const char *unit;
    uint64_t addr;
    std::vector<uint8_t> data;
};

// A record that is not a memory write ("issue pc P word W", "sreg sR = V",
// "sem I = V", "halt", "error", "dma done ...", "ici send/recv ..."), kept
// as fields: a lockstep run compares them in every cycle and turns them
// into text only for a report (text()).
struct Rec {
    enum Kind : uint8_t { Issue, Sreg, Sem, Halt, Error, DmaDone, IciSend, IciRecv, XluWrite };
    Kind kind;
    unsigned idx;       // register, semaphore, engine or port
    uint64_t a, b;      // issue: pc and word; sreg, sem, done, send, recv: the value

    static Rec issue(uint64_t pc, uint64_t word) { return Rec{ Issue, 0, pc, word }; }
    static Rec sreg(unsigned r, uint64_t v) { return Rec{ Sreg, r, v, 0 }; }
    static Rec sem(unsigned i, unsigned v) { return Rec{ Sem, i, v, 0 }; }
    static Rec halt() { return Rec{ Halt, 0, 0, 0 }; }
    static Rec error() { return Rec{ Error, 0, 0, 0 }; }
    static Rec dma_done(unsigned e, uint64_t bytes) { return Rec{ DmaDone, e, bytes, 0 }; }
    static Rec ici_send(unsigned p, uint64_t bytes) { return Rec{ IciSend, p, bytes, 0 }; }
    static Rec ici_recv(unsigned p, uint64_t bytes) { return Rec{ IciRecv, p, bytes, 0 }; }
    // the XLU writes vector register r: its bytes as a 64-bit FNV-1a hash
    // (the values themselves reach VMEM, and the records, through vst)
    static Rec xlu_write(unsigned r, const uint8_t *p, size_t n)
    {
        uint64_t h = 0xcbf29ce484222325ull;
        for (size_t i = 0; i < n; i++)
            h = (h ^ p[i]) * 0x100000001b3ull;
        return Rec{ XluWrite, r, h, n };
    }

    std::string text() const
    {
        switch (kind) {
        case Issue:
            return fmt("issue pc %" PRIu64 " word 0x%016" PRIx64, a, b);
        case Sreg:
            return fmt("sreg s%u = 0x%016" PRIx64, idx, a);
        case Sem:
            return fmt("sem %u = %u", idx, (unsigned)a);
        case Halt:
            return "halt";
        case Error:
            return "error";
        case DmaDone:
            return fmt("dma done engine %u bytes %" PRIu64, idx, a);
        case IciSend:
            return fmt("ici send port %u bytes %" PRIu64, idx, a);
        case IciRecv:
            return fmt("ici recv port %u bytes %" PRIu64, idx, a);
        case XluWrite:
            return fmt("xlu v%u = hash 0x%016" PRIx64, idx, a);
        }
        return "?";
    }

    bool operator==(const Rec &o) const
    {
        return kind == o.kind && idx == o.idx && a == o.a && b == o.b;
    }
    bool operator<(const Rec &o) const
    {
        if (kind != o.kind)
            return kind < o.kind;
        if (idx != o.idx)
            return idx < o.idx;
        return a != o.a ? a < o.a : b < o.b;
    }
};

// What one side did in one cycle, normalised for comparison.
struct Cycle {
    std::vector<Rec> simple;
    std::vector<Write> vmem, hbm;

    void add_write(std::vector<Write> &v, const char *unit, uint64_t addr, const uint8_t *p,
                   size_t n)
    {
        if (!n)
            return;
        if (!v.empty() && v.back().addr + v.back().data.size() == addr
            && (v.back().unit == unit || !strcmp(v.back().unit, unit))) {
            v.back().data.insert(v.back().data.end(), p, p + n);
            return;
        }
        std::vector<uint8_t> d;
        if (!spare_.empty()) {          // a buffer of an earlier cycle: no malloc
            d = std::move(spare_.back());
            spare_.pop_back();
        }
        d.assign(p, p + n);
        v.push_back(Write{ unit, addr, std::move(d) });
    }

    // The records as text: simple records sorted, then the VMEM and HBM
    // writes in landing order.
    std::vector<std::string> lines() const
    {
        std::vector<std::string> out;
        for (const Rec &r : simple)
            out.push_back(r.text());
        std::sort(out.begin(), out.end());
        for (const Write &w : vmem)
            out.push_back(write_line("vmem", w));
        for (const Write &w : hbm)
            out.push_back(write_line("hbm", w));
        return out;
    }

    static std::string write_line(const char *space, const Write &w)
    {
        return fmt("%s write %s 0x%" PRIx64 " %zu bytes: ", space, w.unit, w.addr,
                   w.data.size())
               + hex_bytes(w.data.data(), w.data.size());
    }

    // Empty for the next cycle; the writes' byte buffers are kept for
    // add_write to reuse (a lockstep run clears its Cycles every cycle).
    void clear()
    {
        simple.clear();
        for (std::vector<Write> *v : { &vmem, &hbm }) {
            for (Write &w : *v)
                spare_.push_back(std::move(w.data));
            v->clear();
        }
    }

private:
    std::vector<std::vector<uint8_t>> spare_;
};

// The C model's events a lockstep harness subscribes to: those that make
// records, and RETIRE and MXU_ROW_OUT for InFlight.
constexpr uint32_t kModelEvents =
    ~0u & ~((1u << TPU_EV_STALL) | (1u << TPU_EV_BUSY) | (1u << TPU_EV_IDLE) |
            (1u << TPU_EV_VMEM_ACCESS));   // the race checker's; one per VMEM piece

// One C model event as records of c (events that make none are ignored).
inline void model_event(Cycle &c, const tpu_event *e)
{
    switch (e->kind) {
    case TPU_EV_ISSUE:
        c.simple.push_back(Rec::issue(e->pc, e->word));
        break;
    case TPU_EV_SEM:
        c.simple.push_back(Rec::sem(e->index, e->value));
        break;
    case TPU_EV_HALT:
        c.simple.push_back(Rec::halt());
        break;
    case TPU_EV_ERROR:
        c.simple.push_back(Rec::error());
        break;
    case TPU_EV_DMA_DONE:
        c.simple.push_back(Rec::dma_done(e->index, e->len));
        break;
    case TPU_EV_ICI_SEND:
        c.simple.push_back(Rec::ici_send(e->index, e->len));
        break;
    case TPU_EV_ICI_RECV:
        c.simple.push_back(Rec::ici_recv(e->index, e->len));
        break;
    case TPU_EV_XLU_WRITE:
        c.simple.push_back(Rec::xlu_write(e->index, e->data, e->len));
        break;
    case TPU_EV_MEM_WRITE:
        c.add_write(e->space == TPU_SPACE_VMEM ? c.vmem : c.hbm, tpu_unit_id_name(e->unit),
                    e->addr, e->data, e->len);
        break;
    default:
        break;
    }
}

// Scalar register writes: the C model has no event for them, so the
// registers that changed in the step (s1..s30) become records.
inline void model_sregs(Cycle &c, const tpu_seq_view &v, int64_t shadow[32])
{
    for (unsigned r = 1; r < 31; r++)
        if (v.sreg[r] != shadow[r]) {
            c.simple.push_back(Rec::sreg(r, (uint64_t)v.sreg[r]));
            shadow[r] = v.sreg[r];
        }
}

// ---- the instruction in flight -------------------------------------------------------

// "pc 7 0x5100000000000000 mxu.mm 0, s3, s4, s5, s2, s6, 1"
inline std::string describe_insn(uint64_t pc, uint64_t word)
{
    tpu_insn in;
    const char *why = nullptr;
    char text[160];
    if (tpu_decode(word, &in, &why) < 0)
        snprintf(text, sizeof text, "(illegal: %s)", why ? why : "?");
    else
        tpu_format_insn(&in, text, sizeof text, nullptr, nullptr);
    return fmt("pc %" PRIu64 " 0x%016" PRIx64 " %s", pc, word, text);
}

// Which instruction each unit of one core of the C model is working on,
// from its events: every instruction that issues to a unit waits in that
// unit's list until the unit retires it; an event of the current cycle
// that names an instruction (an MXU result row, a DMA done, an ICI
// transfer, a retirement) names it exactly.  Feed it every event of the
// core (kModelEvents), then, after comparing the cycle, call end_cycle().
class InFlight {
public:
    struct Insn {
        uint64_t pc, word;
    };

    // The program, to name the instruction the sequencer waits on.
    explicit InFlight(const tpu_object *obj = nullptr) : obj_(obj) {}

    void event(const tpu_event *e)
    {
        unsigned u = e->unit < TPU_U_COUNT ? (unsigned)e->unit : 0;
        switch (e->kind) {
        case TPU_EV_ISSUE: {
            set_now(TPU_U_SEQ, e, false);
            int to = unit_of(e->word);
            if (to > TPU_U_SEQ) {
                std::deque<Insn> &q = queued_[to];
                if (q.size() >= kMaxQueued)     // an instruction that never retires
                    q.pop_front();
                q.push_back(Insn{ e->pc, e->word });
            }
            break;
        }
        case TPU_EV_MXU_ROW_OUT:
            set_now(u, e, true);                // the row being written: exact
            break;
        case TPU_EV_DMA_DONE:
        case TPU_EV_ICI_SEND:
        case TPU_EV_RETIRE:
            set_now(u, e, false);
            if (e->kind == TPU_EV_RETIRE && u != TPU_U_SEQ)
                retired_.push_back({ u, Insn{ e->pc, e->word } });
            break;
        case TPU_EV_ERROR:
            error_ = e->text ? e->text : "";
            break;
        default:
            break;
        }
    }

    // The sequencer's pc after the step (tpu_core_seq_view): the
    // instruction it waits on when nothing issued.
    void set_seq_pc(uint64_t pc) { seq_pc_ = pc; }

    // Forget this cycle's events; drop the retired instructions.
    void end_cycle()
    {
        for (const auto &r : retired_) {
            std::deque<Insn> &q = queued_[r.first];
            for (auto it = q.begin(); it != q.end(); ++it)
                if (it->pc == r.second.pc && it->word == r.second.word) {
                    q.erase(it);
                    break;
                }
        }
        retired_.clear();
        for (bool &h : has_now_)
            h = false;
        error_.clear();
    }

    // The instruction in flight on the unit named `unit` ("mxu0", "dma",
    // "seq", ...).
    std::string describe(const std::string &unit) const
    {
        unsigned u = TPU_U_SEQ;
        for (unsigned i = 0; i < TPU_U_COUNT; i++)
            if (unit == tpu_unit_id_name((enum tpu_unit_id)i))
                u = i;
        if (has_now_[u])
            return describe_insn(now_[u].pc, now_[u].word);
        const std::deque<Insn> &q = queued_[u];
        if (!q.empty())
            return describe_insn(q.front().pc, q.front().word)
                   + (q.size() > 1 ? fmt(" (oldest of %zu)", q.size()) : "");
        if (u == TPU_U_SEQ && obj_ && seq_pc_ < obj_->ntext)
            return describe_insn(seq_pc_, obj_->text[seq_pc_]) + " (waiting to issue)";
        if (u == TPU_U_SEQ)
            return fmt("pc %" PRIu64, seq_pc_);
        return "none on " + unit;
    }

    // The C model's run-time error message of this cycle, or "".
    const std::string &error() const { return error_; }

private:
    static const size_t kMaxQueued = 256;

    // The tpu_unit_id an instruction word goes to, or -1.
    static int unit_of(uint64_t word)
    {
        tpu_insn in;
        if (tpu_decode(word, &in, nullptr) < 0)
            return -1;
        switch (in.desc->unit) {
        case TPU_UNIT_SEQ:
            return TPU_U_SEQ;
        case TPU_UNIT_DMA:
            return TPU_U_DMA;
        case TPU_UNIT_VPU:
            return TPU_U_VPU;
        case TPU_UNIT_ICI:
            return TPU_U_ICI;
        case TPU_UNIT_XLU:
            return TPU_U_XLU;
        case TPU_UNIT_MXU:
            for (unsigned i = 0; i < in.desc->noperands; i++)
                if (in.desc->op[i].kind == TPU_K_MXU && in.val[i] >= 0
                    && in.val[i] < TPU_MAX_MXUS)
                    return TPU_U_MXU0 + (int)in.val[i];
            return -1;
        default:
            return -1;
        }
    }

    void set_now(unsigned u, const tpu_event *e, bool exact)
    {
        if (has_now_[u] && !exact)
            return;
        has_now_[u] = true;
        now_[u] = Insn{ e->pc, e->word };
    }

    const tpu_object *obj_;
    std::deque<Insn> queued_[TPU_U_COUNT];
    Insn now_[TPU_U_COUNT] = {};
    bool has_now_[TPU_U_COUNT] = {};
    std::vector<std::pair<unsigned, Insn>> retired_;
    uint64_t seq_pc_ = 0;
    std::string error_;
};

// ---- the mismatch report -------------------------------------------------------------

// One record split for the report: the unit it belongs to, what it is
// about (the field) and its value.
struct Field {
    std::string unit, key, value;
    const Write *write = nullptr;
};

inline std::vector<Field> fields(const Cycle &c)
{
    std::vector<Field> out;
    for (const Rec &r : c.simple) {
        std::string s = r.text();
        Field f;
        size_t eq = s.find(" = "), by = s.find(" bytes ");
        f.unit = !s.compare(0, 4, "dma ") ? "dma" : !s.compare(0, 4, "ici ") ? "ici"
               : !s.compare(0, 4, "xlu ") ? "xlu" : "seq";
        if (eq != std::string::npos) {              // sreg sR = V, sem I = V
            f.key = s.substr(0, eq);
            f.value = s.substr(eq + 3);
        } else if (!s.compare(0, 6, "issue ")) {    // issue pc P word W
            f.key = "issue";
            f.value = s.substr(6);
        } else if (by != std::string::npos) {       // dma done / ici ... bytes B
            f.key = s.substr(0, by);
            f.value = s.substr(by + 1);
        } else {                                    // halt, error
            f.key = s;
            f.value = s;
        }
        out.push_back(f);
    }
    for (int space = 0; space < 2; space++)
        for (const Write &w : space ? c.hbm : c.vmem) {
            Field f;
            f.unit = w.unit;
            f.key = fmt("%s write 0x%" PRIx64, space ? "hbm" : "vmem", w.addr);
            f.value = fmt("%zu bytes", w.data.size());
            f.write = &w;
            out.push_back(f);
        }
    return out;
}

inline bool same_field(const Field &a, const Field &b)
{
    if (a.unit != b.unit || a.key != b.key)
        return false;
    if (a.write)
        return a.write->data == b.write->data;
    return a.value == b.value;
}

// " (9)": an fp32 word of an MXU or VPU result as a number.
inline std::string as_f32(const std::string &unit, uint32_t bits)
{
    if (unit.compare(0, 3, "mxu") && unit != "vpu")
        return "";
    float f;
    memcpy(&f, &bits, 4);
    return fmt(" (%.9g)", (double)f);
}

// The field of the first difference, expected (C model) against actual
// (RTL): "mxu0 vmem write 0x100: word 5 (0x114): expected 0x41100000 (9),
// actual 0x41500000 (13)".  The first C model record the RTL does not
// match is the one reported (paired with the RTL's record of the same
// unit and field, if there is one); when the RTL only has extra records,
// the first of those.  *unit is set to its unit.
inline std::string first_difference(const Cycle &rtl, const Cycle &model, std::string *unit)
{
    std::vector<Field> a = fields(rtl), b = fields(model);
    auto missing_in = [](const std::vector<Field> &v, const Field &f) {
        for (const Field &x : v)
            if (same_field(x, f))
                return false;
        return true;
    };
    const Field *exp = nullptr, *act = nullptr;
    for (const Field &f : b)
        if (missing_in(a, f)) {
            exp = &f;
            break;
        }
    if (exp) {
        for (const Field &f : a)
            if (f.unit == exp->unit && f.key == exp->key && missing_in(b, f)) {
                act = &f;
                break;
            }
    } else {
        for (const Field &f : a)
            if (missing_in(b, f)) {
                act = &f;
                break;
            }
    }
    if (!exp && !act)
        return "";
    const Field &f = exp ? *exp : *act;
    *unit = f.unit;
    std::string head = f.unit + " " + f.key;
    if (exp && act && exp->write && exp->write->data.size() == act->write->data.size()) {
        const std::vector<uint8_t> &e = exp->write->data, &r = act->write->data;
        unsigned wb = e.size() % 4 ? 1 : 4;     // compare 32-bit words, or bytes
        size_t first = 0, ndiff = 0;
        for (size_t i = 0; i < e.size(); i += wb)
            if (memcmp(&e[i], &r[i], wb) && !ndiff++)
                first = i;
        uint32_t ev = 0, rv = 0;
        memcpy(&ev, &e[first], wb);             // little-endian host
        memcpy(&rv, &r[first], wb);
        std::string s = head
                        + fmt(": %s %zu (0x%" PRIx64 "): expected 0x%0*x%s, actual 0x%0*x%s",
                              wb == 4 ? "word" : "byte", first / wb,
                              exp->write->addr + first, (int)(2 * wb), ev,
                              wb == 4 ? as_f32(f.unit, ev).c_str() : "", (int)(2 * wb), rv,
                              wb == 4 ? as_f32(f.unit, rv).c_str() : "");
        if (ndiff > 1)
            s += fmt(" (%zu of %zu %ss differ)", ndiff, e.size() / wb, wb == 4 ? "word" : "byte");
        return s;
    }
    return head + ": expected " + (exp ? exp->value : "none") + ", actual "
           + (act ? act->value : "none");
}

// Compare the records of one cycle of one core.  On a difference print the
// report (to stderr) and return false:
//   TOOL: PROG: cycle T: core K: records differ: FIELD: expected E, actual A;
//     in flight: pc P WORD INSTRUCTION
//     RTL only:     RECORD...
//     C model only: RECORD...
// (the first line one line) to `out`.  With `verbose` print the RTL's
// records of the cycle to stdout ("T: core K: RECORD").  `flight` may be
// NULL.
// The same records, compared field by field: the fast path of
// compare_cycle (true implies that lines() are equal; on false the lines
// decide).  Formatting every write as text each cycle was a good part of
// a lockstep run's time.
inline bool same_records(const Cycle &a, const Cycle &b)
{
    auto same_writes = [](const std::vector<Write> &x, const std::vector<Write> &y) {
        if (x.size() != y.size())
            return false;
        for (size_t i = 0; i < x.size(); i++)
            if (x[i].addr != y[i].addr || strcmp(x[i].unit, y[i].unit) || x[i].data != y[i].data)
                return false;
        return true;
    };
    if (a.simple.size() != b.simple.size() || !same_writes(a.vmem, b.vmem)
        || !same_writes(a.hbm, b.hbm))
        return false;
    if (a.simple == b.simple)
        return true;
    std::vector<Rec> x = a.simple, y = b.simple;
    std::sort(x.begin(), x.end());
    std::sort(y.begin(), y.end());
    return x == y;
}

inline bool compare_cycle(const char *tool, const char *prog, uint64_t t, unsigned core,
                          const Cycle &rtl, const Cycle &model, bool verbose,
                          const InFlight *flight, FILE *out = stderr)
{
    if (!verbose && same_records(rtl, model))
        return true;
    std::vector<std::string> a = rtl.lines(), b = model.lines();
    if (verbose)
        for (const std::string &x : a)
            printf("%" PRIu64 ": core %u: %s\n", t, core, x.c_str());
    if (a == b)
        return true;
    std::string unit = "seq";
    std::string what = first_difference(rtl, model, &unit);
    if (what.empty())                   // equal as fields, different as text
        what = "the records differ in order";
    std::string in_flight = flight ? "; in flight: " + flight->describe(unit) : "";
    if (flight && !flight->error().empty())
        in_flight += "; C model error: " + flight->error();
    fflush(stdout);
    fprintf(out, "%s: %s: cycle %" PRIu64 ": core %u: records differ: %s%s\n", tool, prog, t,
            core, what.c_str(), in_flight.c_str());
    for (const std::string &x : a)
        if (std::find(b.begin(), b.end(), x) == b.end())
            fprintf(out, "  RTL only:     %s\n", x.c_str());
    for (const std::string &x : b)
        if (std::find(a.begin(), a.end(), x) == a.end())
            fprintf(out, "  C model only: %s\n", x.c_str());
    return false;
}

}  // namespace tpu_cosim

#endif  // TPU_COSIM_TRACE_RECORDS_H
