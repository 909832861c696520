// test_trace_records.cpp - cmocka tests of the lockstep mismatch report
// (sim/cosim/trace_records.h): the field, expected and actual values of
// the first difference, and the instruction in flight; and of the trace
// port's decoder (sim/cosim/trace_port.h): records from the bits where
// docs/rtl.md says each port's elements are; and of the verdict after
// the run (sim/cosim/verdict.h): ends, error codes, halt cycles, memories.
// Built and run by
// `make cosim-report-test` (sim/cosim/cosim.mk); the mutation test checks
// the same report end to end on the RTL.
#include <cstdarg>
#include <cstddef>
#include <csetjmp>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

extern "C" {
#include <cmocka.h>
}

#include "cosim/trace_records.h"
#include "cosim/trace_port.h"
#include "cosim/verdict.h"

using namespace tpu_cosim;

namespace {

std::string diff(const Cycle &rtl, const Cycle &model, std::string *unit = nullptr)
{
    std::string u;
    std::string s = first_difference(rtl, model, &u);
    if (unit)
        *unit = u;
    return s;
}

void add_words(Cycle &c, const char *unit, uint64_t addr, std::initializer_list<uint32_t> w)
{
    std::vector<uint8_t> b;
    for (uint32_t x : w)
        for (int i = 0; i < 4; i++)
            b.push_back((uint8_t)(x >> (8 * i)));
    c.add_write(c.vmem, unit, addr, b.data(), b.size());
}

uint64_t encode(const char *mn, std::initializer_list<int64_t> ops)
{
    const tpu_insn_desc *d = tpu_isa_by_mnemonic(mn, strlen(mn));
    assert_non_null(d);
    int64_t v[TPU_MAX_OPERANDS] = { 0 };
    size_t i = 0;
    for (int64_t x : ops)
        v[i++] = x;
    uint64_t w = 0;
    int bad = -1;
    assert_int_equal(tpu_encode(d, v, &w, &bad), 0);
    return w;
}

tpu_event ev(enum tpu_event_kind k, enum tpu_unit_id u, uint64_t pc, uint64_t word)
{
    tpu_event e = {};
    e.kind = k;
    e.unit = u;
    e.pc = pc;
    e.word = word;
    return e;
}

void test_equal_cycles_match(void **)
{
    Cycle a, b;
    a.simple.push_back(Rec::sem(1, 2));
    a.simple.push_back(Rec::halt());
    b.simple.push_back(Rec::halt());
    b.simple.push_back(Rec::sem(1, 2));       // order of simple records does not matter
    add_words(a, "vpu", 0x40, { 1, 2 });
    add_words(b, "vpu", 0x40, { 1, 2 });
    assert_true(compare_cycle("t", "p", 3, 0, a, b, false, nullptr));
    assert_string_equal(diff(a, b).c_str(), "");
}

void test_register_value(void **)
{
    Cycle rtl, model;
    rtl.simple.push_back(Rec::sreg(5, 2));
    model.simple.push_back(Rec::sreg(5, 1));
    std::string unit;
    assert_string_equal(diff(rtl, model, &unit).c_str(),
                        "seq sreg s5: expected 0x0000000000000001, actual 0x0000000000000002");
    assert_string_equal(unit.c_str(), "seq");
    // the whole report, with the instruction in flight on the sequencer
    uint64_t addi = encode("addi", { 5, 5, 1 });
    InFlight f;
    tpu_event e = ev(TPU_EV_ISSUE, TPU_U_SEQ, 4, addi);
    f.event(&e);
    FILE *out = tmpfile();
    assert_non_null(out);
    assert_false(compare_cycle("rtl-bench", "p.bin", 3, 0, rtl, model, false, &f, out));
    std::string text(4096, '\0');
    rewind(out);
    text.resize(fread(&text[0], 1, text.size(), out));
    fclose(out);
    std::string want = "rtl-bench: p.bin: cycle 3: core 0: records differ: seq sreg s5: "
                       "expected 0x0000000000000001, actual 0x0000000000000002; in flight: "
                       + describe_insn(4, addi) + "\n"
                       "  RTL only:     sreg s5 = 0x0000000000000002\n"
                       "  C model only: sreg s5 = 0x0000000000000001\n";
    assert_string_equal(text.c_str(), want.c_str());
    assert_non_null(strstr(want.c_str(), "addi s5, s5, 1"));
}

void test_extra_and_missing_records(void **)
{
    Cycle rtl, model;
    rtl.simple.push_back(Rec::halt());
    assert_string_equal(diff(rtl, model).c_str(), "seq halt: expected none, actual halt");
    std::string unit;
    assert_string_equal(diff(model, rtl, &unit).c_str(), "seq halt: expected halt, actual none");
    Cycle r2, m2;
    m2.simple.push_back(Rec::dma_done(1, 64));
    r2.simple.push_back(Rec::dma_done(1, 32));
    assert_string_equal(diff(r2, m2, &unit).c_str(),
                        "dma dma done engine 1: expected bytes 64, actual bytes 32");
    assert_string_equal(unit.c_str(), "dma");
}

void test_write_words(void **)
{
    Cycle rtl, model;
    add_words(model, "mxu0", 0x100, { 0x3f800000, 0x3f800000, 0x40000000, 0 });
    add_words(rtl, "mxu0", 0x100, { 0x3f800000, 0x40000000, 0x40400000, 0 });
    std::string unit;
    assert_string_equal(diff(rtl, model, &unit).c_str(),
                        "mxu0 vmem write 0x100: word 1 (0x104): expected 0x3f800000 (1), "
                        "actual 0x40000000 (2) (2 of 4 words differ)");
    assert_string_equal(unit.c_str(), "mxu0");
}

void test_write_bytes_and_lengths(void **)
{
    Cycle rtl, model;                       // DMA: 3 bytes, not whole words, no fp32
    uint8_t e[3] = { 1, 2, 3 }, a[3] = { 1, 2, 4 };
    model.add_write(model.hbm, "dma", 0x21, e, 3);
    rtl.add_write(rtl.hbm, "dma", 0x21, a, 3);
    assert_string_equal(diff(rtl, model).c_str(),
                        "dma hbm write 0x21: byte 2 (0x23): expected 0x03, actual 0x04");
    Cycle r2, m2;                           // lengths differ: the lengths are the values
    add_words(m2, "vpu", 0x80, { 1, 2, 3, 4 });
    add_words(r2, "vpu", 0x80, { 1, 2 });
    assert_string_equal(diff(r2, m2).c_str(),
                        "vpu vmem write 0x80: expected 16 bytes, actual 8 bytes");
    Cycle r3, m3;                           // a write only the RTL makes
    add_words(r3, "vpu", 0x80, { 1 });
    assert_string_equal(diff(r3, m3).c_str(), "vpu vmem write 0x80: expected none, actual 4 bytes");
}

// A Cycle is cleared and refilled every cycle of a lockstep run, reusing
// the byte buffers of the writes it cleared: a write must hold exactly its
// own bytes, never a longer earlier write's tail.
void test_write_buffers_reused(void **)
{
    Cycle c;
    uint8_t big[64], small[2] = { 0xaa, 0xbb };
    for (unsigned i = 0; i < sizeof big; i++)
        big[i] = (uint8_t)i;
    c.add_write(c.vmem, "vpu", 0x100, big, sizeof big);
    c.add_write(c.hbm, "dma", 0x7, big, 3);
    c.clear();
    assert_true(c.vmem.empty() && c.hbm.empty() && c.simple.empty());
    c.add_write(c.vmem, "dma", 0x40, small, 2);
    c.add_write(c.vmem, "mxu0", 0x80, small, 1);
    assert_int_equal(c.vmem.size(), 2);
    assert_true(c.vmem[0].data == std::vector<uint8_t>({ 0xaa, 0xbb }));
    assert_true(c.vmem[1].data == std::vector<uint8_t>({ 0xaa }));
    std::vector<std::string> l = c.lines();
    assert_int_equal(l.size(), 2);
    assert_string_equal(l[0].c_str(), "vmem write dma 0x40 2 bytes: aabb");
    assert_string_equal(l[1].c_str(), "vmem write mxu0 0x80 1 bytes: aa");
    Cycle other;                            // equal to a Cycle that never reused
    other.add_write(other.vmem, "dma", 0x40, small, 2);
    other.add_write(other.vmem, "mxu0", 0x80, small, 1);
    assert_true(compare_cycle("t", "p", 1, 0, c, other, false, nullptr));
}

void test_in_flight(void **)
{
    uint64_t mm = encode("mxu.mm", { 0, 3, 4, 5, 2, 6, 1 });
    uint64_t lw = encode("mxu.lw", { 0, 1, 2, 0 });
    uint64_t li = encode("li", { 1, 64 });
    InFlight f;
    tpu_event e = ev(TPU_EV_ISSUE, TPU_U_SEQ, 2, lw);
    f.event(&e);
    assert_string_equal(f.describe("seq").c_str(),
                        describe_insn(2, lw).c_str());  // issued in this cycle
    f.end_cycle();
    e = ev(TPU_EV_ISSUE, TPU_U_SEQ, 7, mm);
    f.event(&e);
    f.end_cycle();
    // two queued on mxu0: the oldest is in flight
    assert_string_equal(f.describe("mxu0").c_str(), (describe_insn(2, lw) + " (oldest of 2)").c_str());
    assert_string_equal(f.describe("vpu").c_str(), "none on vpu");
    // the lw retires: still named in its cycle, gone after it
    e = ev(TPU_EV_RETIRE, TPU_U_MXU0, 2, lw);
    f.event(&e);
    assert_string_equal(f.describe("mxu0").c_str(), describe_insn(2, lw).c_str());
    f.end_cycle();
    assert_string_equal(f.describe("mxu0").c_str(), describe_insn(7, mm).c_str());
    // a result row names its instruction exactly, over a retirement
    e = ev(TPU_EV_RETIRE, TPU_U_MXU0, 9, lw);
    f.event(&e);
    e = ev(TPU_EV_MXU_ROW_OUT, TPU_U_MXU0, 7, mm);
    f.event(&e);
    assert_string_equal(f.describe("mxu0").c_str(), describe_insn(7, mm).c_str());
    f.end_cycle();
    // the text names the mnemonic and operands
    std::string s = describe_insn(7, mm);
    assert_non_null(strstr(s.c_str(), "pc 7 0x"));
    assert_non_null(strstr(s.c_str(), " mxu.mm 0, s3, s4, s5, s2, s6, 1"));
    assert_non_null(strstr(describe_insn(1, 0).c_str(), "(illegal"));
    // the sequencer waiting: the word from the program
    tpu_object obj;
    tpu_obj_init(&obj);
    uint64_t text[2] = { li, mm };
    obj.text = text;
    obj.ntext = 2;
    InFlight g(&obj);
    g.set_seq_pc(0);
    assert_string_equal(g.describe("seq").c_str(),
                        (describe_insn(0, li) + " (waiting to issue)").c_str());
}

}  // namespace

namespace {

// ---- the trace port's decoder -----------------------------------------------

// A trace port held as bits, set by hand at positions worked out from
// docs/rtl.md's rule (element i of core c at (c*COUNT + i)*BITS), not from
// TraceLayout.
struct FakePort {
    std::map<unsigned, std::vector<bool>> bit;

    void set(TracePort p, unsigned lsb, unsigned width, uint64_t v)
    {
        std::vector<bool> &b = bit[(unsigned)p];
        if (b.size() < lsb + width)
            b.resize(lsb + width);
        for (unsigned i = 0; i < width; i++)
            b[lsb + i] = (v >> i) & 1;
    }
    uint64_t bits(TracePort p, unsigned lsb, unsigned width) const
    {
        auto it = bit.find((unsigned)p);
        uint64_t v = 0;
        for (unsigned i = 0; it != bit.end() && i < width; i++)
            if (lsb + i < it->second.size() && it->second[lsb + i])
                v |= 1ull << i;
        return v;
    }
};

Shape test_shape()
{
    tpu_config c;
    tpu_config_defaults(&c);
    Shape s(c);
    s.dma_engines = 2;
    s.dma_ports = 4;
    s.num_mxu = 2;
    s.mxu_n = 4;        // a row: 16 bytes, 128 bits
    s.vec_bytes = 16;
    s.ici_bytes = 8;
    return s;
}

void test_trace_layout(void **)
{
    Shape s = test_shape();
    TraceLayout L(s);
    // widths per element, as rtl/trace_ports.def gives them
    assert_int_equal(L.width(TracePort::pc), 64);
    assert_int_equal(L.width(TracePort::mxu_data), 128);
    assert_int_equal(L.count[(unsigned)TracePort::mxu_data], 2);
    assert_int_equal(L.width(TracePort::vpu_data), 128);
    assert_int_equal(L.width(TracePort::ici_data), 64);
    assert_int_equal(L.count[(unsigned)TracePort::dma_vmem_data], 8);   // two per byte port
    assert_int_equal(L.count[(unsigned)TracePort::dma_hbm_data], 4);
    assert_int_equal(L.count[(unsigned)TracePort::dma_done], 2);
    assert_int_equal(L.width(TracePort::sem_val), 32);
    // core 1's slices
    assert_int_equal(L.lsb(TracePort::sem_val, 1, 3), 1 * 32 * 32 + 3 * 32);
    assert_int_equal(L.lsb(TracePort::mxu_data, 1, 1), 384);
    assert_int_equal(L.lsb(TracePort::dma_vmem_addr, 1, 2), (1 * 8 + 2) * 64);
    assert_int_equal(L.lsb(TracePort::dma_hbm_addr, 1, 2), (1 * 4 + 2) * 64);
}

void test_trace_decode(void **)
{
    Shape s = test_shape();
    TraceLayout L(s);
    FakePort f;
    // core 1 (of two): an issue, s5 = -2, semaphore 3 = 7, MXU 1's row,
    // DMA VMEM write ports 2 and 7 (the last: the high bytes of a wide
    // engine) writing VMEM, ICI port 2 landing 3 bytes, engine 1 done
    f.set(TracePort::issue, 1, 1, 1);
    f.set(TracePort::pc, 64, 64, 12);
    f.set(TracePort::word, 64, 64, 0x1122334455667788ull);
    f.set(TracePort::sreg_we, 1, 1, 1);
    f.set(TracePort::sreg_idx, 5, 5, 5);
    f.set(TracePort::sreg_val, 64, 64, (uint64_t)-2);
    f.set(TracePort::sem_mask, 32 + 3, 1, 1);
    f.set(TracePort::sem_val, 1024 + 96, 32, 7);
    f.set(TracePort::mxu_we, 2 + 1, 1, 1);
    f.set(TracePort::mxu_addr, 3 * 64, 64, 0x200);
    for (unsigned i = 0; i < 16; i++)
        f.set(TracePort::mxu_data, 384 + 8 * i, 8, 0xa0 + i);
    f.set(TracePort::dma_vmem_we, 8 + 2, 1, 1);
    f.set(TracePort::dma_vmem_addr, 10 * 64, 64, 0x40);
    f.set(TracePort::dma_vmem_data, 10 * 8, 8, 0x5a);
    f.set(TracePort::dma_vmem_we, 8 + 7, 1, 1);
    f.set(TracePort::dma_vmem_addr, 15 * 64, 64, 0x41);
    f.set(TracePort::dma_vmem_data, 15 * 8, 8, 0xc3);
    f.set(TracePort::ici_we, 6 + 2, 1, 1);          // core 1, port 2 (6 ports)
    f.set(TracePort::ici_len, 8 * 16, 16, 3);
    f.set(TracePort::ici_addr, 8 * 64, 64, 0x80);
    f.set(TracePort::ici_data, 8 * 64, 64, 0x030201);
    f.set(TracePort::dma_done, 2 + 1, 1, 1);
    f.set(TracePort::dma_done_bytes, 3 * 64, 64, 99);

    int64_t sreg[32] = { 0 };
    Cycle c1;
    decode_trace(f, L, s, 1, sreg, c1);
    std::vector<std::string> got = c1.lines();
    std::vector<std::string> want = {
        "dma done engine 1 bytes 99",
        "issue pc 12 word 0x1122334455667788",
        "sem 3 = 7",
        "sreg s5 = 0xfffffffffffffffe",
        "vmem write ici 0x80 3 bytes: 010203",
        "vmem write mxu1 0x200 16 bytes: a0a1a2a3a4a5a6a7a8a9aaabacadaeaf",
        "vmem write dma 0x40 2 bytes: 5ac3",
    };
    assert_int_equal(got.size(), want.size());
    for (size_t i = 0; i < want.size(); i++)
        assert_string_equal(got[i].c_str(), want[i].c_str());
    assert_int_equal(sreg[5], -2);

    // the same register value again is no record; core 0 saw nothing
    Cycle again, c0;
    decode_trace(f, L, s, 1, sreg, again);
    assert_int_equal(again.lines().size(), want.size() - 1);
    int64_t sreg0[32] = { 0 };
    decode_trace(f, L, s, 0, sreg0, c0);
    assert_int_equal(c0.lines().size(), 0);
}

// ---- the verdict (verdict.h) ------------------------------------------------------

// Two sides of one core whose memories are two byte vectors (VMEM and HBM
// in one: HBM at offset vmem).
struct Sides {
    std::vector<uint8_t> rtl_mem, model_mem;
    cosim::RtlSide r;
    cosim::ModelSide m;
    cosim::VerdictOpts o;
    std::vector<std::pair<uint64_t, uint64_t>> hbm_reads;

    Sides() : rtl_mem(256, 7), model_mem(256, 7)
    {
        o.tool = "test";
        o.prog = "p.bin";
        o.vmem_bytes = 64;
        o.hbm_bytes = 192;
        o.block = 48;               // blocks that do not divide the sizes
        r.end = m.end = cosim::End::Halt;
        r.cycles = m.cycles = 100;
        r.halt = m.halt = { 100 };
        r.err_code = { -1 };
        r.read = [this](unsigned, enum tpu_space sp, uint64_t a, uint8_t *d, size_t n,
                        const char *) { return read(rtl_mem, sp, a, d, n); };
        m.read = [this](unsigned, enum tpu_space sp, uint64_t a, uint8_t *d, size_t n,
                        const char *) {
            if (sp == TPU_SPACE_HBM)
                hbm_reads.push_back({ a, n });
            return read(model_mem, sp, a, d, n);
        };
    }
    bool read(const std::vector<uint8_t> &mem, enum tpu_space sp, uint64_t a, uint8_t *d,
              size_t n)
    {
        uint64_t base = sp == TPU_SPACE_HBM ? o.vmem_bytes : 0;
        assert_true(a + n <= (sp == TPU_SPACE_HBM ? o.hbm_bytes : o.vmem_bytes));
        memcpy(d, mem.data() + base + a, n);
        return true;
    }
    int verdict() { return cosim::verdict(o, r, m); }
};

void test_verdict_same(void **)
{
    Sides s;
    assert_int_equal(s.verdict(), 0);
    uint64_t hbm = 0;                       // all of HBM was read, in blocks
    for (auto &rd : s.hbm_reads)
        hbm += rd.second;
    assert_int_equal(hbm, 192);
}

void test_verdict_ends(void **)
{
    Sides s;
    s.r.end = cosim::End::Error;            // the RTL stopped, the C model halted
    assert_int_equal(s.verdict(), 1);
    Sides t;
    t.r.cycles = 101;                       // the same end, another cycle
    assert_int_equal(t.verdict(), 1);
    Sides u;
    u.r.halt = { 99 };                      // a core halted in another cycle
    assert_int_equal(u.verdict(), 1);
    Sides v;                                // both at the cycle limit: halt cycles not compared
    v.r.end = v.m.end = cosim::End::CycleLimit;
    v.r.halt = { 0 };
    assert_int_equal(v.verdict(), 0);
}

void test_verdict_error_codes(void **)
{
    Sides s;
    s.r.end = s.m.end = cosim::End::Error;
    s.m.error = "core 0: cycle 6: pc 6 (dma.h2v ...): HBM address 0x1000000 out of range";
    s.r.err_code = { 4 };                   // ErrAddress: names "out of range"
    assert_int_equal(s.verdict(), 0);
    s.r.err_code = { 2 };                   // ErrIllegal: does not
    assert_int_equal(s.verdict(), 1);
    s.r.err_code = { -1 };                  // error_o low on this core: nothing to name
    assert_int_equal(s.verdict(), 0);
    assert_true(cosim::err_code_matches(6, "an int8 stream against bf16 weights"));
    assert_false(cosim::err_code_matches(0, "out of range"));
    assert_false(cosim::err_code_matches(99, "out of range"));
    assert_string_equal(cosim::err_code_name(99), "unknown");
}

void test_verdict_memories(void **)
{
    Sides s;
    s.rtl_mem[5] = 8;                       // VMEM byte 5
    assert_int_equal(s.verdict(), 1);
    Sides t;
    t.rtl_mem[64 + 150] = 0;                // HBM byte 150, in the third block
    assert_int_equal(t.verdict(), 1);
    t.o.compare_memories = false;           // not comparable (a cycle limit): not read
    assert_int_equal(t.verdict(), 0);
    Sides u;
    u.rtl_mem[64 + 150] = 0;
    u.o.hbm_ranges = [](unsigned) { return cosim::Ranges{ { 0, 100 } }; };
    assert_int_equal(u.verdict(), 0);       // outside the ranges compared
    u.o.hbm_ranges = [](unsigned) { return cosim::Ranges{ { 0, 16 }, { 128, 64 } }; };
    assert_int_equal(u.verdict(), 1);
}

} // namespace

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_equal_cycles_match),
        cmocka_unit_test(test_register_value),
        cmocka_unit_test(test_extra_and_missing_records),
        cmocka_unit_test(test_write_words),
        cmocka_unit_test(test_write_bytes_and_lengths),
        cmocka_unit_test(test_write_buffers_reused),
        cmocka_unit_test(test_in_flight),
        cmocka_unit_test(test_trace_layout),
        cmocka_unit_test(test_trace_decode),
        cmocka_unit_test(test_verdict_same),
        cmocka_unit_test(test_verdict_ends),
        cmocka_unit_test(test_verdict_error_codes),
        cmocka_unit_test(test_verdict_memories),
    };
    return cmocka_run_group_tests(tests, nullptr, nullptr);
}
