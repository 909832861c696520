/*
 * test_disasm.c - the disassembler: objects built here are printed and the
 * text compared line for line; then the text is assembled again with the
 * assembler library and must give the same bytes.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "asm.h"
#include "disasm.h"
#include "isa.h"
#include "objfile.h"

/* Disassemble into a malloc'd string. */
static char *dis_text(const tpu_object *o, int no_addresses)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    assert_non_null(f);
    tpu_dis_options opt = { .no_addresses = no_addresses, .source = "t.bin" };
    assert_int_equal(tpu_disasm(o, &opt, f), 0);
    fclose(f);
    return text;
}

static void expect_text(const tpu_object *o, int no_addresses, const char *want)
{
    char *got = dis_text(o, no_addresses);
    if (strcmp(got, want) != 0) {
        print_error("disassembly differs; got:\n%s\n--- wanted:\n%s\n", got, want);
        free(got);
        fail();
    }
    free(got);
}

/* The text assembles back to exactly the bytes of the object. */
static void expect_reassembles(const tpu_object *o)
{
    uint8_t *want, *got;
    size_t wlen, glen;
    char *text = dis_text(o, 0);
    tpu_object back;
    tpu_asm_result res;
    int rc = tpu_asm_assemble(text, strlen(text), "dis.s", NULL, &back, &res);
    if (rc != 0) {
        print_error("reassembly failed:\n%s\n--- source:\n%s\n", res.messages, text);
        fail();
    }
    assert_int_equal(tpu_obj_serialize(o, &want, &wlen), 0);
    assert_int_equal(tpu_obj_serialize(&back, &got, &glen), 0);
    tpu_object parsed;                        /* and the loader accepts it */
    char err[512];
    if (tpu_obj_parse(want, wlen, &parsed, err, sizeof err) != 0) {
        print_error("the object does not load: %s\n", err);
        fail();
    }
    tpu_obj_free(&parsed);
    if (wlen != glen || memcmp(want, got, wlen) != 0) {
        print_error("reassembled object differs (%zu vs %zu bytes); source:\n%s\n", glen, wlen,
                    text);
        fail();
    }
    free(want);
    free(got);
    free(text);
    tpu_asm_result_free(&res);
    tpu_obj_free(&back);
}

static uint64_t enc(const char *mn, int64_t a, int64_t b, int64_t c)
{
    const tpu_insn_desc *d = tpu_isa_by_mnemonic(mn, strlen(mn));
    int64_t val[TPU_MAX_OPERANDS] = { a, b, c };
    uint64_t w;
    assert_non_null(d);
    assert_int_equal(tpu_encode(d, val, &w, NULL), 0);
    return w;
}

/* ---- text -------------------------------------------------------------- */

static void build_text(tpu_object *o)
{
    tpu_obj_init(o);
    o->config = (tpu_obj_config){ 8, 1, 8, 8 };
    tpu_obj_add_text(o, enc("li", 1, 10, 0));
    tpu_obj_add_text(o, enc("addi", 1, 1, -1));
    tpu_obj_add_text(o, enc("bne", 1, 0, 1));
    tpu_obj_add_text(o, enc("jmp", 7, 0, 0));                 /* no label at 7 */
    tpu_obj_add_text(o, enc("sync", TPU_UNITS_MXU0 | TPU_UNITS_DMA, 0, 0));
    tpu_obj_add_text(o, 0);                                   /* illegal: opcode 0 */
    tpu_obj_add_text(o, enc("halt", 0, 0, 0) | 1ull << 63);   /* illegal: reserved bit */
    tpu_obj_add_text(o, enc("add", 30, 31, 0));
    tpu_obj_add_symbol(o, TPU_SPACE_IMEM, 0, "start");
    tpu_obj_add_symbol(o, TPU_SPACE_IMEM, 1, "loop");
    tpu_obj_add_symbol(o, TPU_SPACE_IMEM, 1, "again");        /* branches print "again" */
    tpu_obj_add_symbol(o, TPU_SPACE_IMEM, 8, "end");
}

static void test_text(void **state)
{
    (void)state;
    tpu_object o;
    build_text(&o);
    expect_text(&o, 0,
                "# disassembled by tpu-dis from t.bin\n"
                "# 8 instructions, 0 data records, 4 symbols, 0 checks\n"
                ".target 8, 1, 8, 8\n"
                ".text\n"
                "start:\n"
                "    li s1, 10                                   # 0x0000\n"
                "again:\n"
                "loop:\n"
                "    addi s1, s1, -1                             # 0x0001\n"
                "    bne s1, zero, again                         # 0x0002\n"
                "    jmp 7                                       # 0x0003\n"
                "    sync mxu0|dma                               # 0x0004\n"
                "    .insn 0x0000000000000000                    # 0x0005  illegal: unknown opcode\n"
                "    .insn 0x8000000000000002                    # 0x0006  illegal: reserved bits set\n"
                "    add s30, cid, zero                          # 0x0007\n"
                "end:\n");
    expect_text(&o, 1,
                "# disassembled by tpu-dis from t.bin\n"
                "# 8 instructions, 0 data records, 4 symbols, 0 checks\n"
                ".target 8, 1, 8, 8\n"
                ".text\n"
                "start:\n"
                "    li s1, 10\n"
                "again:\n"
                "loop:\n"
                "    addi s1, s1, -1\n"
                "    bne s1, zero, again\n"
                "    jmp 7\n"
                "    sync mxu0|dma\n"
                "    .insn 0x0000000000000000                    # illegal: unknown opcode\n"
                "    .insn 0x8000000000000002                    # illegal: reserved bits set\n"
                "    add s30, cid, zero\n"
                "end:\n");
    expect_reassembles(&o);
    tpu_obj_free(&o);
}

/* Every instruction at its operand limits survives the round trip. */
static void test_every_instruction_reassembles(void **state)
{
    (void)state;
    tpu_object o;
    tpu_obj_init(&o);
    for (size_t i = 0; i < tpu_isa_count; i++) {
        const tpu_insn_desc *d = &tpu_isa_table[i];
        for (int s = 0; s < 2; s++) {
            int64_t val[TPU_MAX_OPERANDS];
            for (unsigned k = 0; k < d->noperands; k++) {
                int64_t lo, hi;
                tpu_kind_range(d->op[k].kind, &lo, &hi);
                val[k] = s ? hi : lo;
            }
            uint64_t w;
            assert_int_equal(tpu_encode(d, val, &w, NULL), 0);
            assert_int_equal(tpu_obj_add_text(&o, w), 0);
        }
    }
    tpu_obj_add_text(&o, 0xffffffffffffffffull);
    tpu_obj_add_symbol(&o, TPU_SPACE_IMEM, 0, "first");
    expect_reassembles(&o);
    tpu_obj_free(&o);
}

/* ---- data -------------------------------------------------------------------- */

static void test_data_and_labels(void **state)
{
    (void)state;
    tpu_object o;
    uint8_t bytes[40];
    for (int i = 0; i < 40; i++)
        bytes[i] = (uint8_t)(i + 1);
    tpu_obj_init(&o);
    tpu_obj_add_text(&o, enc("halt", 0, 0, 0));
    tpu_obj_add_data(&o, TPU_SPACE_HBM, 0x1000, bytes, 38);
    tpu_obj_add_fill(&o, TPU_SPACE_VMEM, 0x100, TPU_FILL_ZERO, 64, 0, 0, 0);
    tpu_obj_add_fill(&o, TPU_SPACE_HBM, 0x2000, TPU_FILL_RANDOM_BF16, 32, 7, 0x80000000u,
                     0x3dcccccdu);
    tpu_obj_add_fill(&o, TPU_SPACE_HBM, 0x2020, TPU_FILL_RANDOM_F32, 1ull << 32, 1ull << 63,
                     0xc2c80000u, 0x00000001u);
    tpu_obj_add_symbol(&o, TPU_SPACE_HBM, 0x1000, "a");
    tpu_obj_add_symbol(&o, TPU_SPACE_HBM, 0x1001, "b");      /* unaligned: .i8 before it */
    tpu_obj_add_symbol(&o, TPU_SPACE_HBM, 0x1022, "c");
    tpu_obj_add_symbol(&o, TPU_SPACE_HBM, 0x1022, "c2");
    tpu_obj_add_symbol(&o, TPU_SPACE_HBM, 0x1026, "a_end");  /* end of the DATA record */
    tpu_obj_add_symbol(&o, TPU_SPACE_VMEM, 0x100, "zeros");
    tpu_obj_add_symbol(&o, TPU_SPACE_VMEM, 0x110, "inside"); /* inside a fill: on its own */
    tpu_obj_add_symbol(&o, TPU_SPACE_VMEM, 0x140, "zeros_end");
    tpu_obj_add_symbol(&o, TPU_SPACE_HBM, 0x2000, "r");
    tpu_obj_add_symbol(&o, TPU_SPACE_HBM, 0x2020, "r_end");  /* starts the next fill */
    tpu_obj_add_symbol(&o, TPU_SPACE_HBM, 0x5000, "lone");
    tpu_obj_add_symbol(&o, TPU_SPACE_HBM, 0x5000, "lone2");
    tpu_obj_add_symbol(&o, TPU_SPACE_VMEM, 0x0, "vlone");
    expect_text(&o, 0,
                "# disassembled by tpu-dis from t.bin\n"
                "# 1 instructions, 4 data records, 13 symbols, 0 checks\n"
                ".text\n"
                "    halt                                        # 0x0000\n"
                "\n"
                ".hbm 0x1000\n"
                "a:\n"
                "    .i8 0x01\n"
                "b:\n"
                "    .i32 0x05040302, 0x09080706, 0x0d0c0b0a, 0x11100f0e, 0x15141312, "
                "0x19181716, 0x1d1c1b1a, 0x21201f1e\n"
                "    .i8 0x22\n"
                "c:\n"
                "c2:\n"
                "    .i32 0x26252423\n"
                "a_end:\n"
                "\n"
                ".vmem 0x100\n"
                "zeros:\n"
                "    .zero 64\n"
                "zeros_end:\n"
                "\n"
                ".hbm 0x2000\n"
                "r:\n"
                "    .random bf16, 16, 7, bits(0x80000000), 0.100000001\n"
                "\n"
                ".hbm 0x2020\n"
                "r_end:\n"
                "    .random f32, 1073741824, 0x8000000000000000, -100, 1.40129846e-45\n"
                "\n"
                ".hbm 0x5000\n"
                "lone:\n"
                "lone2:\n"
                "\n"
                ".vmem 0x0\n"
                "vlone:\n"
                "\n"
                ".vmem 0x110\n"
                "inside:\n");
    expect_reassembles(&o);
    tpu_obj_free(&o);
}

/* A DATA record shorter than a word, and one of exactly 8 words. */
static void test_data_line_breaks(void **state)
{
    (void)state;
    tpu_object o;
    uint8_t bytes[36] = { 0xff, 0xfe, 0xfd };
    tpu_obj_init(&o);
    tpu_obj_add_text(&o, enc("halt", 0, 0, 0));
    tpu_obj_add_data(&o, TPU_SPACE_VMEM, 0x0, bytes, 3);
    tpu_obj_add_data(&o, TPU_SPACE_VMEM, 0x10, bytes, 32);
    tpu_obj_add_data(&o, TPU_SPACE_VMEM, 0x40, bytes, 36);
    expect_text(&o, 1,
                "# disassembled by tpu-dis from t.bin\n"
                "# 1 instructions, 3 data records, 0 symbols, 0 checks\n"
                ".text\n"
                "    halt\n"
                "\n"
                ".vmem 0x0\n"
                "    .i8 0xff, 0xfe, 0xfd\n"
                "\n"
                ".vmem 0x10\n"
                "    .i32 0x00fdfeff, 0x00000000, 0x00000000, 0x00000000, 0x00000000, "
                "0x00000000, 0x00000000, 0x00000000\n"
                "\n"
                ".vmem 0x40\n"
                "    .i32 0x00fdfeff, 0x00000000, 0x00000000, 0x00000000, 0x00000000, "
                "0x00000000, 0x00000000, 0x00000000\n"
                "    .i32 0x00000000\n");
    expect_reassembles(&o);
    tpu_obj_free(&o);
}

/* ---- checks ----------------------------------------------------------------- */

static void test_expects(void **state)
{
    (void)state;
    tpu_object o;
    tpu_obj_init(&o);
    tpu_obj_add_text(&o, enc("halt", 0, 0, 0));
    const uint8_t H = TPU_SPACE_HBM, V = TPU_SPACE_VMEM;
    tpu_obj_expect m = { .op = TPU_EXPECT_MATMUL, .core = -1, .nops = 6,
                         .ops = { { V, 0x100 }, { H, 0 }, { H, 0x4000 }, { 0, 8 }, { 0, 16 },
                                  { 0, 1 } } };
    tpu_obj_expect a = { .op = TPU_EXPECT_MAX, .core = 2, .nops = 4,
                         .ops = { { V, 0 }, { V, 64 }, { H, 128 }, { 0, 12345678901ull } } };
    tpu_obj_expect r = { .op = TPU_EXPECT_RELU, .core = 0, .nops = 3,
                         .ops = { { V, 0 }, { V, 64 }, { 0, 4 } } };
    tpu_obj_expect c = { .op = TPU_EXPECT_COPY, .core = -1, .nops = 3,
                         .ops = { { H, 0x8000 }, { V, 0 }, { 0, 4096 } } };
    tpu_obj_expect f = { .op = TPU_EXPECT_F32, .core = -1, .nops = 8,
                         .ops = { { V, 0x40 }, { 0, 0x3fc00000 }, { 0, 0x80000000 },
                                  { 0, 0x7fc00000 }, { 0, 0xff800000 }, { 0, 0x00000001 },
                                  { 0, 0 }, { 0, 0x4b800001 } } };
    tpu_obj_add_expect(&o, &m);
    tpu_obj_add_expect(&o, &a);
    tpu_obj_add_expect(&o, &r);
    tpu_obj_add_expect(&o, &c);
    tpu_obj_add_expect(&o, &f);
    expect_text(&o, 0,
                "# disassembled by tpu-dis from t.bin\n"
                "# 1 instructions, 0 data records, 0 symbols, 5 checks\n"
                ".text\n"
                "    halt                                        # 0x0000\n"
                "\n"
                ".expect matmul vmem(0x100), hbm(0x0), hbm(0x4000), 8, 16, 1\n"
                ".expect max@2 vmem(0x0), vmem(0x40), hbm(0x80), 12345678901\n"
                ".expect relu@0 vmem(0x0), vmem(0x40), 4\n"
                ".expect copy hbm(0x8000), vmem(0x0), 4096\n"
                ".expect f32 vmem(0x40), 1.5, bits(0x80000000), bits(0x7fc00000), -inf, "
                "1.40129846e-45, 0, 16777218\n");
    expect_reassembles(&o);
    tpu_obj_free(&o);
}

static void test_f32_spelling(void **state)
{
    (void)state;
    static const struct { uint32_t bits; const char *want; } cases[] = {
        { 0x3fc00000u, "1.5" },          { 0x00000000u, "0" },
        { 0x80000000u, "bits(0x80000000)" }, { 0x7fc00000u, "bits(0x7fc00000)" },
        { 0xffc00001u, "bits(0xffc00001)" }, { 0x7f800000u, "inf" },
        { 0xff800000u, "-inf" },         { 0x3dcccccdu, "0.100000001" },
        { 0x7f7fffffu, "3.40282347e+38" }, { 0x00000001u, "1.40129846e-45" },
        { 0xbf800000u, "-1" },           { 0x4e6e6b28u, "1e+09" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char buf[32];
        tpu_dis_f32(cases[i].bits, buf, sizeof buf);
        assert_string_equal(buf, cases[i].want);
    }
    /* every spelling reads back as the same bits (sampled widely) */
    for (uint64_t b = 0; b < 0x100000000ull; b += 0x10001) {
        char buf[32];
        tpu_dis_f32((uint32_t)b, buf, sizeof buf);
        if (strncmp(buf, "bits(", 5) == 0)
            continue;
        float f = strtof(buf, NULL);
        uint32_t back;
        memcpy(&back, &f, sizeof back);
        assert_int_equal(back, (uint32_t)b);
    }
}

static void test_empty_object(void **state)
{
    (void)state;
    tpu_object o;
    tpu_obj_init(&o);
    expect_text(&o, 0,
                "# disassembled by tpu-dis from t.bin\n"
                "# 0 instructions, 0 data records, 0 symbols, 0 checks\n"
                ".text\n");
    tpu_obj_add_symbol(&o, TPU_SPACE_IMEM, 0, "only");
    expect_text(&o, 0,
                "# disassembled by tpu-dis from t.bin\n"
                "# 0 instructions, 0 data records, 1 symbols, 0 checks\n"
                ".text\n"
                "only:\n");
    /* (tpu-as refuses a program without instructions, so no round trip) */
    tpu_obj_free(&o);
}


/* ---- random objects ------------------------------------------------------------ */

static uint64_t rnd(uint64_t *s)              /* xorshift64*: deterministic */
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 0x2545F4914F6CDD1Dull;
}

static uint32_t rnd_finite_f32(uint64_t *s)
{
    for (;;) {
        uint32_t b = (uint32_t)rnd(s);
        if (rnd(s) % 3 == 0)
            b &= 0xbfffffffu;                    /* bias towards ordinary magnitudes */
        if ((b & 0x7f800000u) != 0x7f800000u)
            return b;
    }
}

/* Order of fp32 values as the assembler's "lo < hi" check sees it. */
static int64_t f32_key(uint32_t b)
{
    if ((b & 0x7fffffffu) == 0)
        return 0;
    return (b & 0x80000000u) ? -(int64_t)(b & 0x7fffffffu) : (int64_t)b;
}

/* An object of the kind tpu-as writes, with random contents. */
static void build_random(tpu_object *o, uint64_t *s)
{
    char name[32];
    int nlab = 0;
    tpu_obj_init(o);
    if (rnd(s) % 2)
        o->config = (tpu_obj_config){ (uint32_t)(rnd(s) % 255 + 2), (uint32_t)(rnd(s) % 4 + 1),
                                      (uint32_t)(rnd(s) % 64 + 1), (uint32_t)(rnd(s) % 1024) };
    size_t ntext = rnd(s) % 40 + 1;
    for (size_t i = 0; i < ntext; i++) {
        uint64_t w = rnd(s);
        if (rnd(s) % 4) {                        /* mostly legal instructions */
            const tpu_insn_desc *d = &tpu_isa_table[rnd(s) % tpu_isa_count];
            int64_t val[TPU_MAX_OPERANDS];
            for (unsigned k = 0; k < d->noperands; k++) {
                int64_t lo, hi;
                tpu_kind_range(d->op[k].kind, &lo, &hi);
                val[k] = lo + (int64_t)(rnd(s) % (uint64_t)(hi - lo + 1));
                if (d->op[k].kind == TPU_K_TARGET && rnd(s) % 2)
                    val[k] = (int64_t)(rnd(s) % (ntext + 1));
            }
            assert_int_equal(tpu_encode(d, val, &w, NULL), 0);
        }
        tpu_obj_add_text(o, w);
    }
    for (int k = (int)(rnd(s) % 6); k > 0; k--) {
        snprintf(name, sizeof name, "t%d", nlab++);
        tpu_obj_add_symbol(o, TPU_SPACE_IMEM, rnd(s) % (ntext + 1), name);
    }
    uint64_t next[4] = { 0, 0, rnd(s) % 4096, rnd(s) % 4096 };
    for (int k = (int)(rnd(s) % 8); k > 0; k--) {
        uint8_t space = rnd(s) % 2 ? TPU_SPACE_HBM : TPU_SPACE_VMEM;
        uint64_t addr = next[space] + (rnd(s) % 3 ? 0 : rnd(s) % 100);
        uint64_t size;
        unsigned kind = (unsigned)(rnd(s) % 4);
        if (kind == 0) {
            uint8_t bytes[64];
            size = rnd(s) % 60 + 1;
            for (size_t i = 0; i < size; i++)
                bytes[i] = (uint8_t)rnd(s);
            tpu_obj_add_data(o, space, addr, bytes, size);
        } else if (kind == 1) {
            size = rnd(s) % 1000 + 1;
            tpu_obj_add_fill(o, space, addr, TPU_FILL_ZERO, size, 0, 0, 0);
        } else {
            uint32_t lo, hi;
            do {
                lo = rnd_finite_f32(s);
                hi = rnd_finite_f32(s);
                if (f32_key(lo) > f32_key(hi)) {
                    uint32_t t = lo;
                    lo = hi, hi = t;
                }
            } while (f32_key(lo) >= f32_key(hi));
            size = (rnd(s) % 100 + 1) * (kind == 2 ? 2 : 4);
            tpu_obj_add_fill(o, space, addr, kind == 2 ? TPU_FILL_RANDOM_BF16 : TPU_FILL_RANDOM_F32,
                             size, rnd(s), lo, hi);
        }
        /* labels at the start, inside, at the end, and beyond */
        for (int j = (int)(rnd(s) % 4); j > 0; j--) {
            snprintf(name, sizeof name, "d%d", nlab++);
            uint64_t where = rnd(s) % 4;
            uint64_t v = where == 0 ? addr : where == 1 ? addr + rnd(s) % size
                       : where == 2 ? addr + size : addr + size + rnd(s) % 50;
            tpu_obj_add_symbol(o, space, v, name);
        }
        next[space] = addr + size;
    }
    for (int k = (int)(rnd(s) % 4); k > 0; k--) {
        static const uint32_t shape[][2] = { { 0, 0 }, { 6, 3 }, { 4, 3 }, { 4, 3 }, { 4, 3 },
                                             { 4, 3 }, { 4, 3 }, { 3, 2 }, { 3, 2 }, { 0, 1 } };
        tpu_obj_expect e = { .op = (uint32_t)(rnd(s) % 9 + 1) };
        e.core = rnd(s) % 3 ? -1 : (int32_t)(rnd(s) % 8);
        e.nops = shape[e.op][0] ? shape[e.op][0] : (uint32_t)(rnd(s) % 8 + 2);
        for (uint32_t j = 0; j < e.nops; j++) {
            if (j < shape[e.op][1])
                e.ops[j] = (tpu_obj_expect_operand){ rnd(s) % 2 ? TPU_SPACE_HBM : TPU_SPACE_VMEM,
                                                     rnd(s) % 100000 };
            else if (e.op == TPU_EXPECT_F32)
                e.ops[j] = (tpu_obj_expect_operand){ 0, (uint32_t)rnd(s) };
            else
                e.ops[j] = (tpu_obj_expect_operand){ 0, rnd(s) % (1ull << 40) };
        }
        tpu_obj_add_expect(o, &e);
    }
}

static void test_random_objects_reassemble(void **state)
{
    (void)state;
    uint64_t seed = 0x9e3779b97f4a7c15ull;
    for (int i = 0; i < 300; i++) {
        tpu_object o;
        build_random(&o, &seed);
        expect_reassembles(&o);
        tpu_obj_free(&o);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_text),
        cmocka_unit_test(test_every_instruction_reassembles),
        cmocka_unit_test(test_data_and_labels),
        cmocka_unit_test(test_data_line_breaks),
        cmocka_unit_test(test_expects),
        cmocka_unit_test(test_f32_spelling),
        cmocka_unit_test(test_empty_object),
        cmocka_unit_test(test_random_objects_reassemble),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
