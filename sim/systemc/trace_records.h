// trace_records.h - the per-cycle trace records of docs/rtl.md ("Trace
// port") and how they are compared, for the SystemC lockstep top.
//
// The rules are those of the plain C++ co-simulation (sim/rtl/rtl_bench.cpp,
// `rtl-bench --lockstep`), and the text of every record and of the mismatch
// report is the same, so a difference reads the same under both harnesses:
//   - simple records ("issue pc P word W", "sreg sR = V", "sem I = V",
//     "halt", "error", "dma done ...", "ici send/recv ...") are compared as
//     a sorted list;
//   - memory writes are kept in landing order, with the writes of one unit
//     to consecutive addresses one right after the other merged into one
//     run (the C model writes a DMA row segment at a time, the RTL a byte
//     at a time).
// rtl_bench.cpp keeps its copy inside its main file; when it moves to a
// shared header this one should go.
#ifndef TPU_TRACE_RECORDS_H
#define TPU_TRACE_RECORDS_H

#include <algorithm>
#include <cinttypes>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

extern "C" {
#include "tpu.h"
}

namespace tpu_sc {

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

// A memory write: unit name, address and bytes.
struct Write {
    std::string unit;
    uint64_t addr;
    std::vector<uint8_t> data;
};

// What one side did in one cycle, normalised for comparison with ==.
struct Cycle {
    std::vector<std::string> simple;
    std::vector<Write> vmem, hbm;

    void add_write(std::vector<Write> &v, const std::string &unit, uint64_t addr,
                   const uint8_t *p, size_t n)
    {
        if (!n)
            return;
        if (!v.empty() && v.back().unit == unit
            && v.back().addr + v.back().data.size() == addr) {
            v.back().data.insert(v.back().data.end(), p, p + n);
            return;
        }
        v.push_back(Write{ unit, addr, std::vector<uint8_t>(p, p + n) });
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

    void clear()
    {
        simple.clear();
        vmem.clear();
        hbm.clear();
    }
};

// The C model's events that make records (the others are not compared).
constexpr uint32_t kRecordEvents =
    ~0u & ~((1u << TPU_EV_STALL) | (1u << TPU_EV_BUSY) | (1u << TPU_EV_IDLE)
            | (1u << TPU_EV_RETIRE));

// One C model event as records of c.
inline void model_event(Cycle &c, const tpu_event *e)
{
    switch (e->kind) {
    case TPU_EV_ISSUE:
        c.simple.push_back(fmt("issue pc %" PRIu64 " word 0x%016" PRIx64, e->pc, e->word));
        break;
    case TPU_EV_SEM:
        c.simple.push_back(fmt("sem %u = %u", e->index, e->value));
        break;
    case TPU_EV_HALT:
        c.simple.push_back("halt");
        break;
    case TPU_EV_ERROR:
        c.simple.push_back("error");
        break;
    case TPU_EV_DMA_DONE:
        c.simple.push_back(fmt("dma done engine %u bytes %" PRIu64, e->index, e->len));
        break;
    case TPU_EV_ICI_SEND:
        c.simple.push_back(fmt("ici send port %u bytes %" PRIu64, e->index, e->len));
        break;
    case TPU_EV_ICI_RECV:
        c.simple.push_back(fmt("ici recv port %u bytes %" PRIu64, e->index, e->len));
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
            c.simple.push_back(fmt("sreg s%u = 0x%016" PRIx64, r, (uint64_t)v.sreg[r]));
            shadow[r] = v.sreg[r];
        }
}

// Compare the records of one cycle; on a difference print the report of
// rtl-bench (to stderr) and return false.
inline bool compare_cycle(const char *tool, const char *prog, uint64_t t, unsigned core,
                          const Cycle &rtl, const Cycle &model, bool verbose)
{
    std::vector<std::string> a = rtl.lines(), b = model.lines();
    if (verbose)
        for (const std::string &x : a)
            printf("%" PRIu64 ": core %u: %s\n", t, core, x.c_str());
    if (a == b)
        return true;
    fprintf(stderr, "%s: %s: cycle %" PRIu64 ": core %u: records differ\n", tool, prog, t, core);
    for (const std::string &x : a)
        if (std::find(b.begin(), b.end(), x) == b.end())
            fprintf(stderr, "  RTL only:     %s\n", x.c_str());
    for (const std::string &x : b)
        if (std::find(a.begin(), a.end(), x) == a.end())
            fprintf(stderr, "  C model only: %s\n", x.c_str());
    return false;
}

}  // namespace tpu_sc

#endif  // TPU_TRACE_RECORDS_H
