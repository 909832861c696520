// trace_port.h - the RTL's trace port (rtl/trace_ports.def) on the C++
// side: where each port's elements are for a given machine (TraceLayout)
// and the one decoder that turns a core's trace port into the records of
// trace_records.h.  rtl-bench (sim/rtl/rtl_bench.cpp) and tpu-sc-lockstep
// (sim/systemc/tpu_sc_lockstep.cpp) read the ports differently (Verilator's
// port types, SystemC signals) and give the decoder a Reader; what the
// ports mean is written here once.
//
// A Reader has one call:
//   uint64_t bits(TracePort p, unsigned lsb, unsigned width) const
// bits [lsb, lsb + width) (width <= 64) of the whole port p of the top
// (every core's slices), as an unsigned number.  Its switch over the ports
// comes from the table too:
//   switch (p) {
//   #define TRACE_PORT(name, count, bits, what)
//       case TracePort::name: return read(top->tr_##name##_o, lsb, width);
//   (one line)
//   #include "../../rtl/trace_ports.def"
//   #undef TRACE_PORT
//   }
#ifndef TPU_COSIM_TRACE_PORT_H
#define TPU_COSIM_TRACE_PORT_H

#include <cstdint>
#include <vector>

#include "cosim/trace_records.h"

namespace tpu_cosim {

// The ports, in the table's order.
enum class TracePort : unsigned {
#define TRACE_PORT(name, count, bits, what) name,
#include "../../rtl/trace_ports.def"
#undef TRACE_PORT
};

constexpr unsigned kTracePorts = 0
#define TRACE_PORT(name, count, bits, what) +1
#include "../../rtl/trace_ports.def"
#undef TRACE_PORT
    ;

// Element counts and widths of each port per core, for one machine: the
// table's COUNT and BITS expressions evaluated over the shape.
struct TraceLayout {
    unsigned count[kTracePorts], bits[kTracePorts];

    explicit TraceLayout(const Shape &s)
    {
        // The names the table's expressions use (rtl/core.v's parameters).
        const unsigned DmaPorts = s.dma_ports, DmaEngines = s.dma_engines;
        const unsigned CFG_NUM_MXU = s.num_mxu, CFG_MXU_N = s.mxu_n;
        const unsigned VecB = s.vec_bytes, IciB = s.ici_bytes;
        unsigned i = 0;
#define TRACE_PORT(name, c, b, what) count[i] = (c), bits[i] = (b), i++;
#include "../../rtl/trace_ports.def"
#undef TRACE_PORT
        (void)DmaPorts, (void)DmaEngines, (void)CFG_NUM_MXU, (void)CFG_MXU_N, (void)VecB,
            (void)IciB;
    }

    // The lowest bit of element i of port p of core k.
    unsigned lsb(TracePort p, unsigned k, unsigned i = 0) const
    {
        unsigned n = (unsigned)p;
        return (k * count[n] + i) * bits[n];
    }
    unsigned width(TracePort p) const { return bits[(unsigned)p]; }
};

// The records of core k in the cycle on the trace port now (docs/rtl.md,
// "Trace port"); sreg[] is the RTL's scalar registers as the records have
// shown them so far ("sreg" records are for changes only).  The caller
// adds "error", which comes from the status ports.
template <class Reader>
void decode_trace(const Reader &r, const TraceLayout &L, const Shape &s, unsigned k,
                  int64_t sreg[32], Cycle &c)
{
    using P = TracePort;
    // element i of a port (its width at most 64 bits)
    auto get = [&](P p, unsigned i = 0) { return r.bits(p, L.lsb(p, k, i), L.width(p)); };
    // the first n bytes of element i of a port, eight at a time
    auto bytes = [&](P p, unsigned i, unsigned n, std::vector<uint8_t> &v) {
        v.resize(n);
        unsigned b = L.lsb(p, k, i);
        for (unsigned j = 0; j < n; j += 8) {
            unsigned take = n - j < 8 ? n - j : 8;
            uint64_t w = r.bits(p, b + 8 * j, 8 * take);
            for (unsigned x = 0; x < take; x++)
                v[j + x] = (uint8_t)(w >> (8 * x));
        }
    };
    // bit i of a port of one-bit elements, read 64 elements at a time
    // (into buffers kept from call to call: no allocation per cycle)
    auto flags = [&](P p, std::vector<uint64_t> &m) -> const std::vector<uint64_t> & {
        m.resize((L.count[(unsigned)p] + 63) / 64);
        for (unsigned w = 0; w < m.size(); w++) {
            unsigned n = L.count[(unsigned)p] - 64 * w;
            m[w] = r.bits(p, L.lsb(p, k, 64 * w), n < 64 ? n : 64);
        }
        return m;
    };
    // f(i) for each set bit i of m, lowest first
    auto for_each_flag = [](const std::vector<uint64_t> &m, auto f) {
        for (unsigned w = 0; w < m.size(); w++)
            for (uint64_t b = m[w]; b; b &= b - 1)
                f(64 * w + (unsigned)__builtin_ctzll(b));
    };
    thread_local std::vector<uint8_t> v;
    thread_local std::vector<uint64_t> sem_buf, dma_we_buf, hbm_we_buf;

    if (get(P::issue))
        c.simple.push_back(Rec::issue(get(P::pc), get(P::word)));
    if (get(P::sreg_we)) {
        unsigned i = (unsigned)get(P::sreg_idx);
        int64_t val = (int64_t)get(P::sreg_val);
        if (sreg[i] != val) {
            sreg[i] = val;
            c.simple.push_back(Rec::sreg(i, (uint64_t)val));
        }
    }
    const std::vector<uint64_t> &sems = flags(P::sem_mask, sem_buf);
    for_each_flag(sems, [&](unsigned i) {
        c.simple.push_back(Rec::sem(i, (unsigned)get(P::sem_val, i)));
    });
    if (get(P::halt))
        c.simple.push_back(Rec::halt());

    // VMEM writes in landing order (T12a): incoming ICI, MXUs, VPU, DMA.
    for (unsigned p = 0; p < L.count[(unsigned)P::ici_we]; p++)
        if (get(P::ici_we, p)) {
            unsigned n = (unsigned)get(P::ici_len, p);
            bytes(P::ici_data, p, n, v);
            c.add_write(c.vmem, "ici", get(P::ici_addr, p), v.data(), n);
        }
    for (unsigned m = 0; m < s.num_mxu; m++)
        if (get(P::mxu_we, m)) {
            bytes(P::mxu_data, m, 4 * s.mxu_n, v);
            c.add_write(c.vmem, tpu_unit_id_name((enum tpu_unit_id)(TPU_U_MXU0 + m)), get(P::mxu_addr, m), v.data(), v.size());
        }
    if (get(P::vpu_we)) {
        unsigned n = get(P::vpu_half) ? s.vec_bytes / 2 : s.vec_bytes;
        bytes(P::vpu_data, 0, n, v);
        c.add_write(c.vmem, "vpu", get(P::vpu_addr), v.data(), n);
    }
    if (get(P::xlu_we)) {
        bytes(P::xlu_data, 0, s.vec_bytes, v);
        c.simple.push_back(Rec::xlu_write((unsigned)get(P::xlu_rd), v.data(), v.size()));
    }
    // DMA: one byte per port, ports in landing order (VMEM has two write
    // ports per HBM byte port: dma.h2v.i8 writes a bf16 for each byte)
    const std::vector<uint64_t> &dma_we = flags(P::dma_vmem_we, dma_we_buf);
    for_each_flag(dma_we, [&](unsigned p) {
        uint8_t b = (uint8_t)get(P::dma_vmem_data, p);
        c.add_write(c.vmem, "dma", get(P::dma_vmem_addr, p), &b, 1);
    });
    const std::vector<uint64_t> &hbm_we = flags(P::dma_hbm_we, hbm_we_buf);
    for_each_flag(hbm_we, [&](unsigned p) {
        uint8_t b = (uint8_t)get(P::dma_hbm_data, p);
        c.add_write(c.hbm, "dma", get(P::dma_hbm_addr, p), &b, 1);
    });
    for (unsigned e = 0; e < s.dma_engines; e++)
        if (get(P::dma_done, e))
            c.simple.push_back(Rec::dma_done(e, get(P::dma_done_bytes, e)));
    for (unsigned p = 0; p < L.count[(unsigned)P::ici_send]; p++) {
        if (get(P::ici_send, p))
            c.simple.push_back(Rec::ici_send(p, get(P::ici_send_bytes, p)));
        if (get(P::ici_recv, p))
            c.simple.push_back(Rec::ici_recv(p, get(P::ici_recv_bytes, p)));
    }
}

} // namespace tpu_cosim

#endif
