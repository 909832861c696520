// test_trace_records.cpp - cmocka tests of the lockstep mismatch report
// (sim/cosim/trace_records.h): the field, expected and actual values of
// the first difference, and the instruction in flight.  Built and run by
// `make cosim-report-test` (sim/cosim/cosim.mk); the mutation test checks
// the same report end to end on the RTL.
#include <cstdarg>
#include <cstddef>
#include <csetjmp>
#include <cstdint>
#include <string>

extern "C" {
#include <cmocka.h>
}

#include "cosim/trace_records.h"

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
    a.simple.push_back("sem 1 = 2");
    a.simple.push_back("halt");
    b.simple.push_back("halt");
    b.simple.push_back("sem 1 = 2");       // order of simple records does not matter
    add_words(a, "vpu", 0x40, { 1, 2 });
    add_words(b, "vpu", 0x40, { 1, 2 });
    assert_true(compare_cycle("t", "p", 3, 0, a, b, false, nullptr));
    assert_string_equal(diff(a, b).c_str(), "");
}

void test_register_value(void **)
{
    Cycle rtl, model;
    rtl.simple.push_back("sreg s5 = 0x0000000000000002");
    model.simple.push_back("sreg s5 = 0x0000000000000001");
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
    rtl.simple.push_back("halt");
    assert_string_equal(diff(rtl, model).c_str(), "seq halt: expected none, actual halt");
    std::string unit;
    assert_string_equal(diff(model, rtl, &unit).c_str(), "seq halt: expected halt, actual none");
    Cycle r2, m2;
    m2.simple.push_back("dma done engine 1 bytes 64");
    r2.simple.push_back("dma done engine 1 bytes 32");
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_equal_cycles_match),
        cmocka_unit_test(test_register_value),
        cmocka_unit_test(test_extra_and_missing_records),
        cmocka_unit_test(test_write_words),
        cmocka_unit_test(test_write_bytes_and_lengths),
        cmocka_unit_test(test_in_flight),
    };
    return cmocka_run_group_tests(tests, nullptr, nullptr);
}
