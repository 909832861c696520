// verdict.h - the one lockstep verdict of rtl-bench (sim/rtl/rtl_bench.cpp)
// and the SystemC lockstep top (sim/systemc/tpu_sc_lockstep.cpp): after
// both runs, did the RTL and the C model end the same way, in the same
// cycle, with the same run-time error, each core halting in the same
// cycle, and with every byte of every core's VMEM and HBM the same?
//
// Each bench says how its two sides ended (End: halt, error or cycle limit,
// the cycle count; per core the RTL's error code and pc, the halt cycles)
// and how to read each side's memories (MemRead); verdict() compares them
// and prints every difference on stderr as one line starting with the
// tool's name.  It knows nothing of the trace records (trace_records.h
// compares those, cycle by cycle, while the runs go).
//
// Header only: both benches are built by their own Verilator or SystemC
// rules, which compile the bench's one .cpp.
#ifndef TPU_COSIM_VERDICT_H
#define TPU_COSIM_VERDICT_H

#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "tpu.h"

namespace cosim {

// ---- run-time errors ------------------------------------------------------------------

// The RTL's error codes (rtl/seq.v error_code_o) and the C model's messages
// for each (cmodel/seq.c fail()): a run that stops with an error on both
// sides must stop with the same kind of error.
struct ErrCode {
    const char *name;
    const char *texts[5];       // one of them is in the C model's message
};
static const ErrCode kErrCodes[] = {
    { "none", { nullptr } },
    { "ErrPc (pc outside IMEM)", { "is outside IMEM", nullptr } },
    { "ErrIllegal (illegal instruction word)", { "illegal instruction", nullptr } },
    { "ErrNoMxu (no such MXU)", { "does not exist", nullptr } },
    { "ErrAddress (T5: range, alignment or size)",
      { "out of range", "misaligned", "more than 2^", "negative", nullptr } },
    { "ErrPort (ICI port without a neighbour)", { "is not connected", nullptr } },
    { "ErrMode (T5b: the machine's or the weights' int8/bf16 mode)",
      { "have no int8 mode", "are int8 only", "stream against", nullptr } },
};
static const unsigned kNumErrCodes = sizeof kErrCodes / sizeof kErrCodes[0];

// Does RTL error code `code` name the C model's error `msg`?
inline bool err_code_matches(unsigned code, const char *msg)
{
    if (code == 0 || code >= kNumErrCodes || !msg)
        return false;
    for (const char *const *t = kErrCodes[code].texts; *t; t++)
        if (strstr(msg, *t))
            return true;
    return false;
}

inline const char *err_code_name(unsigned code)
{
    return code < kNumErrCodes ? kErrCodes[code].name : "unknown";
}

// ---- how a side ended -----------------------------------------------------------------

enum class End { Halt, Error, CycleLimit };

inline const char *end_name(End e)
{
    return e == End::Halt ? "halt" : e == End::Error ? "error" : "cycle limit";
}

// The C model's end from its stop (tpu_system_run / tpu_system_step).
inline End model_end(enum tpu_stop s)
{
    return s == TPU_STOP_HALT ? End::Halt : s == TPU_STOP_ERROR ? End::Error : End::CycleLimit;
}

// Reads n bytes of core `core`'s `space` at addr into dst; false after
// printing why on stderr (`name` is "VMEM" or "HBM").
using MemRead = std::function<bool(unsigned core, enum tpu_space space, uint64_t addr,
                                   uint8_t *dst, size_t n, const char *name)>;

// The byte ranges of HBM to compare for a core, as (address, bytes); an
// empty list: all of it.
using Ranges = std::vector<std::pair<uint64_t, uint64_t>>;

struct RtlSide {
    End end = End::CycleLimit;
    uint64_t cycles = 0;
    std::vector<uint64_t> halt;         // per core: cycle count at its halt (0: none)
    std::vector<int> err_code;          // per core: error_code_o, -1 when error_o is low
    std::vector<uint64_t> err_pc;       // per core: the pc of the error (may be empty)
    MemRead read;
};

struct ModelSide {
    End end = End::CycleLimit;
    uint64_t cycles = 0;
    std::string error;                  // the run-time error's message ("" when none)
    std::vector<uint64_t> halt;         // per core: its cycle count (tpu_stats.cycles)
    MemRead read;
};

struct VerdictOpts {
    const char *tool = "";
    const char *prog = "";
    unsigned ncores = 1;
    uint64_t vmem_bytes = 0, hbm_bytes = 0;
    bool compare_memories = true;       // false: they are not comparable (a cycle limit)
    std::function<Ranges(unsigned core)> hbm_ranges;    // null: all of HBM
    size_t block = 65536;               // bytes read from each side at a time
};

// Compare [addr, addr + size) of core k's `space` on both sides; false at
// the first difference (printed) or when a side cannot be read.
inline bool same_bytes(const VerdictOpts &o, const RtlSide &r, const ModelSide &m, unsigned k,
                       enum tpu_space space, const char *name, uint64_t addr, uint64_t size)
{
    std::vector<uint8_t> a(o.block), b(o.block);
    for (uint64_t off = 0; off < size; off += o.block) {
        size_t n = size - off < o.block ? (size_t)(size - off) : o.block;
        if (!m.read(k, space, addr + off, b.data(), n, name)
            || !r.read(k, space, addr + off, a.data(), n, name))
            return false;
        if (memcmp(a.data(), b.data(), n)) {
            size_t i = 0;
            while (a[i] == b[i])
                i++;
            fprintf(stderr, "%s: core %u: %s differs at 0x%" PRIx64 ": RTL 0x%02x, C model "
                    "0x%02x\n", o.tool, k, name, addr + off + i, a[i], b[i]);
            return false;
        }
    }
    return true;
}

// The verdict: 0 when both sides agree on everything, 1 otherwise (each
// difference printed on stderr).
inline int verdict(const VerdictOpts &o, const RtlSide &r, const ModelSide &m)
{
    int bad = 0;
    const char *merr = m.error.c_str();
    if (r.end != m.end || r.cycles != m.cycles) {
        bool says = m.end == End::Error && merr[0];
        fprintf(stderr, "%s: %s: RTL ended with %s after %" PRIu64 " cycles, C model with %s "
                "after %" PRIu64 " cycles%s%s\n", o.tool, o.prog, end_name(r.end), r.cycles,
                end_name(m.end), m.cycles, says ? ": " : "", says ? merr : "");
        for (unsigned k = 0; k < o.ncores && k < r.err_code.size(); k++)
            if (r.err_code[k] >= 0) {
                unsigned code = (unsigned)r.err_code[k];
                if (k < r.err_pc.size())
                    fprintf(stderr, "%s: RTL core %u: error code %u, %s, at pc %" PRIu64 "\n",
                            o.tool, k, code, err_code_name(code), r.err_pc[k]);
                else
                    fprintf(stderr, "%s: RTL core %u: error code %u, %s\n", o.tool, k, code,
                            err_code_name(code));
            }
        bad = 1;
    } else if (m.end == End::Error) {
        // The same error: the RTL's code names the C model's message.
        for (unsigned k = 0; k < o.ncores && k < r.err_code.size(); k++) {
            if (r.err_code[k] < 0)
                continue;
            unsigned code = (unsigned)r.err_code[k];
            if (!err_code_matches(code, merr)) {
                fprintf(stderr, "%s: %s: RTL core %u stopped with error code %u, %s; the C "
                        "model with: %s\n", o.tool, o.prog, k, code, err_code_name(code), merr);
                bad = 1;
            }
        }
    }
    for (unsigned k = 0; k < o.ncores; k++) {
        uint64_t rh = k < r.halt.size() ? r.halt[k] : 0, mh = k < m.halt.size() ? m.halt[k] : 0;
        if (m.end == End::Halt && !bad && rh != mh) {
            fprintf(stderr, "%s: %s: core %u halted after %" PRIu64 " cycles in the RTL, %"
                    PRIu64 " in the C model\n", o.tool, o.prog, k, rh, mh);
            bad = 1;
        }
        if (!o.compare_memories)
            continue;
        bad |= !same_bytes(o, r, m, k, TPU_SPACE_VMEM, "VMEM", 0, o.vmem_bytes);
        Ranges hbm = o.hbm_ranges ? o.hbm_ranges(k) : Ranges();
        if (!o.hbm_ranges)
            hbm.push_back({ 0, o.hbm_bytes });
        bool same = true;
        for (const auto &rg : hbm)
            if (same)
                same = same_bytes(o, r, m, k, TPU_SPACE_HBM, "HBM", rg.first, rg.second);
        bad |= !same;
    }
    return bad;
}

}  // namespace cosim

#endif  // TPU_COSIM_VERDICT_H
