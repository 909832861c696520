/*
 * test_asm.c - the assembler on good input: every directive, expressions,
 * .rept/.set unrolling, macros, labels and forward references, every operand kind
 * (checked against tpu_encode from the ISA table), the DATA/FILL record
 * rules, CONFIG, -D, .expect, and the programs in programs/.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <dirent.h>
#include <string.h>
#include <cmocka.h>

#include "asm.h"
#include "config.h"
#include "isa.h"

/* Assemble src; fail the test with the messages if it does not assemble. */
static void assemble_opt(const char *src, const tpu_asm_options *opt, tpu_object *o)
{
    tpu_asm_result r;
    int rc = tpu_asm_assemble(src, strlen(src), "t.s", opt, o, &r);
    if (rc != 0)
        fail_msg("assembly failed:\n%s\nsource:\n%s", r.messages, src);
    assert_int_equal(r.nerrors, 0);
    assert_string_equal(r.messages, "");
    tpu_asm_result_free(&r);
}

static void assemble(const char *src, tpu_object *o)
{
    assemble_opt(src, NULL, o);
}

/* The word tpu_encode gives for a mnemonic and operand values. */
static uint64_t enc(const char *mn, const int64_t *val, size_t n)
{
    const tpu_insn_desc *d = tpu_isa_by_mnemonic(mn, strlen(mn));
    assert_non_null(d);
    assert_int_equal(d->noperands, n);
    uint64_t w;
    int bad;
    assert_int_equal(tpu_encode(d, val, &w, &bad), 0);
    return w;
}
#define E(mn, ...) enc(mn, (const int64_t[]){ __VA_ARGS__ }, \
                       sizeof((const int64_t[]){ __VA_ARGS__ }) / sizeof(int64_t))

/* The value of an integer expression, through `.insn EXPR`. */
static int64_t eval(const char *expr)
{
    char src[512];
    tpu_object o;
    snprintf(src, sizeof src, ".equ A, 5\n.equ B, -3\n.insn %s\n", expr);
    assemble(src, &o);
    assert_int_equal(o.ntext, 1);
    int64_t v = (int64_t)o.text[0];
    tpu_obj_free(&o);
    return v;
}

static void test_operand_kinds(void **state)
{
    (void)state;
    tpu_object o;
    assemble("top:  add s1, zero, cid\n"          /* SREGW, SREG, zero = s0, cid = s31 */
             "      addi s30, s2, -5\n"           /* SIMM negative */
             "      slli s3, s4, 63\n"            /* SHAMT */
             "      sem.wait 31, 0xffffffff\n"    /* SEM, UIMM */
             "      mxu.lw 3, s1, s2, 7\n"        /* MXU */
             "      dma.ici 3, s1, s2, s3, 4, 5\n"/* PORT, SEM, SEM */
             "      vsel v31, v1, v2, v3\n"       /* VREG */
             "      beq s1, s2, done\n"           /* TARGET, forward */
             "      bne s1, s2, top\n"            /* TARGET, backward */
             "      sync mxu0 | vpu|dma\n"        /* UNITS */
             "      sync all\n"
             "      jmp 5\n"                      /* TARGET as a number */
             "done: halt\n", &o);
    assert_int_equal(o.ntext, 13);
    assert_true(o.text[0] == E("add", 1, 0, 31));
    assert_true(o.text[1] == E("addi", 30, 2, -5));
    assert_true(o.text[2] == E("slli", 3, 4, 63));
    assert_true(o.text[3] == E("sem.wait", 31, 0xffffffffll));
    assert_true(o.text[4] == E("mxu.lw", 3, 1, 2, 7));
    assert_true(o.text[5] == E("dma.ici", 3, 1, 2, 3, 4, 5));
    assert_true(o.text[6] == E("vsel", 31, 1, 2, 3));
    assert_true(o.text[7] == E("beq", 1, 2, 12));
    assert_true(o.text[8] == E("bne", 1, 2, 0));
    assert_true(o.text[9] == E("sync", (int64_t)(TPU_UNITS_MXU0 | TPU_UNITS_VPU | TPU_UNITS_DMA)));
    assert_true(o.text[10] == E("sync", (int64_t)TPU_UNITS_ALL));
    assert_true(o.text[11] == E("jmp", 5));
    assert_int_equal(o.text[12], TPU_OP_HALT);
    tpu_obj_free(&o);
}

/* Every instruction of the table, with the largest value of each operand. */
static void test_every_instruction(void **state)
{
    (void)state;
    for (size_t i = 0; i < tpu_isa_count; i++) {
        const tpu_insn_desc *d = &tpu_isa_table[i];
        char src[256];
        int64_t val[TPU_MAX_OPERANDS] = { 0 };
        int n = snprintf(src, sizeof src, "%s", d->mnemonic);
        for (unsigned k = 0; k < d->noperands; k++) {
            int64_t lo, hi;
            tpu_kind_range(d->op[k].kind, &lo, &hi);
            val[k] = hi;
            const char *sep = k ? ", " : " ";
            switch (d->op[k].kind) {
            case TPU_K_SREG: case TPU_K_SREGW:
                n += snprintf(src + n, sizeof src - (size_t)n, "%ss%lld", sep, (long long)hi);
                break;
            case TPU_K_VREG: case TPU_K_VREGW:
                n += snprintf(src + n, sizeof src - (size_t)n, "%sv%lld", sep, (long long)hi);
                break;
            case TPU_K_UNITS:
                n += snprintf(src + n, sizeof src - (size_t)n, "%sall", sep);
                break;
            default:
                n += snprintf(src + n, sizeof src - (size_t)n, "%s%lld", sep, (long long)hi);
                break;
            }
        }
        snprintf(src + n, sizeof src - (size_t)n, "\n");
        tpu_object o;
        assemble(src, &o);
        uint64_t w;
        int bad;
        assert_int_equal(tpu_encode(d, val, &w, &bad), 0);
        assert_int_equal(o.ntext, 1);
        if (o.text[0] != w)
            fail_msg("%s: got %016llx, want %016llx", src, (unsigned long long)o.text[0],
                     (unsigned long long)w);
        tpu_obj_free(&o);
    }
}

static void test_expressions(void **state)
{
    (void)state;
    assert_int_equal(eval("1 + 2 * 3"), 7);
    assert_int_equal(eval("(1 + 2) * 3"), 9);
    assert_int_equal(eval("-2 * 3"), -6);
    assert_int_equal(eval("~0"), -1);
    assert_int_equal(eval("+4"), 4);
    assert_int_equal(eval("- -4"), 4);
    assert_int_equal(eval("7 / 2"), 3);
    assert_int_equal(eval("-7 / 2"), -3);       /* truncates, as C */
    assert_int_equal(eval("-7 % 3"), -1);
    assert_int_equal(eval("1 << 4 | 1"), 17);
    assert_int_equal(eval("1 | 2 ^ 3 & 1"), 3); /* & before ^ before | */
    assert_int_equal(eval("16 >> 2 + 1"), 2);   /* + before >> */
    assert_int_equal(eval("-16 >> 2"), -4);     /* arithmetic shift */
    assert_int_equal(eval("0x2a + 0b101 + 42"), 89);
    assert_int_equal(eval("0xffffffffffffffff"), -1);
    assert_int_equal(eval("18446744073709551615"), -1);
    assert_int_equal(eval("0x7fffffffffffffff + 1"), INT64_MIN);  /* wraps */
    assert_int_equal(eval("(0 - 0x7fffffffffffffff - 1) / -1"), INT64_MIN);
    assert_int_equal(eval("A * B"), -15);
    assert_int_equal(eval("3 < 4"), 1);
    assert_int_equal(eval("4 <= 3"), 0);
    assert_int_equal(eval("B > A"), 0);
    assert_int_equal(eval("A >= 5"), 1);
    assert_int_equal(eval("1 + 1 == 2"), 1);    /* + before == */
    assert_int_equal(eval("2 != 2"), 0);
    assert_int_equal(eval("1 < 2 == 1"), 1);    /* < before == */
    assert_int_equal(eval("1 == 1 & 2 == 2"), 1); /* == before & */
    assert_int_equal(eval("hbm(0x40) + 8"), 0x48);
    /* logical operators and ?: (C precedence: | before && before || before ?:) */
    assert_int_equal(eval("1 && 2"), 1);
    assert_int_equal(eval("1 && 0"), 0);
    assert_int_equal(eval("0 || 5"), 1);
    assert_int_equal(eval("0 || 0"), 0);
    assert_int_equal(eval("!0"), 1);
    assert_int_equal(eval("!7"), 0);
    assert_int_equal(eval("!!7 + 1"), 2);        /* unary binds tightest */
    assert_int_equal(eval("1 || 0 && 0"), 1);    /* && before || */
    assert_int_equal(eval("0 && 1 | 2"), 0);     /* | before && */
    assert_int_equal(eval("2 | 0 && 0"), 0);
    assert_int_equal(eval("1 ? 10 : 20"), 10);
    assert_int_equal(eval("0 ? 10 : 20"), 20);
    assert_int_equal(eval("0 ? 1 : 0 ? 2 : 3"), 3);   /* right-associative */
    assert_int_equal(eval("A > 0 ? A : -A"), 5);
    assert_int_equal(eval("(B < 0 ? 1 : 2) * 3"), 3);
    assert_int_equal(eval("3 + (1 ? 4 : 5)"), 7);
}

static void test_labels_and_forward_references(void **state)
{
    (void)state;
    tpu_object o;
    assemble("        jmp   end\n"
             "        li    s1, buf\n"             /* forward data label */
             "        li    s2, buf_end - buf\n"
             "loop:   bne   s1, zero, loop\n"
             "a: b:   nop\n"                       /* two labels on one line */
             "end:    halt\n"
             ".vmem   0x200\n"
             "buf:    .zero 48\n"
             "buf_end:\n"
             ".hbm    0x1000\n"
             "h:      .i8 1\n"
             ".text\n"
             "after:  nop\n", &o);
    assert_int_equal(o.ntext, 7);
    assert_true(o.text[0] == E("jmp", 5));
    assert_true(o.text[1] == E("li", 1, 0x200));
    assert_true(o.text[2] == E("li", 2, 48));
    assert_true(o.text[3] == E("bne", 1, 0, 3));
    /* symbols: sorted by (space, value, name) */
    static const struct { uint8_t space; uint64_t value; const char *name; } want[] = {
        { TPU_SPACE_IMEM, 3, "loop" }, { TPU_SPACE_IMEM, 4, "a" }, { TPU_SPACE_IMEM, 4, "b" },
        { TPU_SPACE_IMEM, 5, "end" }, { TPU_SPACE_IMEM, 6, "after" },
        { TPU_SPACE_HBM, 0x1000, "h" },
        { TPU_SPACE_VMEM, 0x200, "buf" }, { TPU_SPACE_VMEM, 0x230, "buf_end" },
    };
    assert_int_equal(o.nsyms, sizeof want / sizeof want[0]);
    for (size_t k = 0; k < o.nsyms; k++) {
        assert_int_equal(o.syms[k].space, want[k].space);
        assert_int_equal(o.syms[k].value, want[k].value);
        assert_string_equal(o.syms[k].name, want[k].name);
    }
    tpu_obj_free(&o);
}

static void test_rept_and_set(void **state)
{
    (void)state;
    tpu_object o;
    assemble(".set i, 0\n"
             ".rept 4\n"
             "  .insn i * 10\n"
             "  .set i, i + 1\n"
             ".endr\n"
             ".rept 2\n"                 /* nested: 2 x 3 */
             "  .rept 3\n"
             "    .insn 99\n"
             "  .endr\n"
             ".endr\n"
             ".rept 0\n"                 /* skipped entirely, even bad lines */
             "  bogus\n"
             ".endr\n"
             ".equ n, 2\n"
             ".rept n == 2\n"            /* a conditional */
             "  .insn 7\n"
             ".endr\n"
             ".rept n != 2\n"
             "  .insn 8\n"
             ".endr\n", &o);
    static const uint64_t want[] = { 0, 10, 20, 30, 99, 99, 99, 99, 99, 99, 7 };
    assert_int_equal(o.ntext, sizeof want / sizeof want[0]);
    for (size_t k = 0; k < o.ntext; k++)
        assert_int_equal(o.text[k], want[k]);
    tpu_obj_free(&o);
}

/* .macro/.endm: arguments by position and by name, defaults, \@, \(),
 * .rept and calls inside bodies, .exitm, and labels on a call line. */
static void test_macros(void **state)
{
    (void)state;
    tpu_object o;
    assemble(".macro put v, w=100, z:req\n"
             "  .insn \\v + \\w + \\z\n"
             ".endm\n"
             ".macro twice a\n"
             "  put \\a, z=1\n"                    /* a call in a body, by name */
             "  put (\\a) * 2, , 2\n"               /* an empty argument: the default */
             ".endm\n"
             "twice 3\n"                           /* 3+100+1, 6+100+2 */
             "put 1, 2, 3   # a comment\n"         /* 6 */
             ".macro lbl\n"
             "x\\@: .insn x\\@\n"                    /* \@ makes each label unique */
             "\n"
             ".endm\n"
             "lbl\n"                               /* x4 (4 calls came before) at 3 */
             "lbl\n"                               /* x5 at 4 */
             ".macro cat p\n"
             "  .set v\\p\\()_1, 40\n"               /* \() joins */
             "  .insn v\\p\\()_1 + \\p\n"
             ".endm\n"
             "cat 2\n"                             /* 42 */
             ".macro count cnt\n"                    /* recursion, ended by .exitm */
             "  .rept \\cnt <= 0\n"
             "    .exitm\n"
             "  .endr\n"
             "  .insn \\cnt\n"
             "  count \\cnt - 1\n"
             ".endm\n"
             "count 3\n"                           /* 3, 2, 1 */
             ".macro loop k\n"
             "  .set i, 0\n"
             "  .rept \\k\n"
             "    .insn 50 + i\n"
             "    .set i, i + 1\n"
             "  .endr\n"
             ".endm\n"
             "here: loop 2\n"                      /* a label on a call line; 50, 51 */
             ".insn here\n"                        /* 9 */
             ".macro empty\n"
             ".endm\n"
             "empty\n", &o);
    static const uint64_t want[] = { 104, 108, 6, 3, 4, 42, 3, 2, 1, 50, 51, 9 };
    assert_int_equal(o.ntext, sizeof want / sizeof want[0]);
    for (size_t k = 0; k < o.ntext; k++)
        assert_int_equal(o.text[k], want[k]);
    tpu_obj_free(&o);
    /* arguments are text; a comma inside a string does not split them */
    assemble(".macro chk cond, msg\n"
             "  .assert \\cond, \\msg\n"
             ".endm\n"
             "chk (1 + 2) == 3, \"a, b\"\n"
             "nop\n", &o);
    assert_int_equal(o.ntext, 1);
    tpu_obj_free(&o);
}

static void check_chunk(const tpu_obj_chunk *c, uint8_t rec, uint8_t space, uint64_t addr,
                        uint64_t size)
{
    assert_int_equal(c->rec, rec);
    assert_int_equal(c->space, space);
    assert_int_equal(c->addr, addr);
    assert_int_equal(c->size, size);
}

static void test_data_records(void **state)
{
    (void)state;
    tpu_object o;
    assemble("nop\n"
             ".hbm 0x100\n"
             ".i32 1, -2\n"              /* DATA hbm 0x100: 9 bytes */
             ".i8 3\n"
             ".zero 4\n"                 /* FILL zero 0x109, 4 */
             ".i16 0x1234\n"             /* DATA hbm 0x10d, 2 */
             ".vmem 0x40\n"
             ".f32 1.0\n"                /* DATA vmem 0x40, 4 */
             ".align 16\n"               /* FILL zero 0x44, 12 */
             ".bf16 1.0\n"               /* DATA vmem 0x50, 2 */
             ".align 2\n"                /* already aligned: no FILL, but a new record */
             ".i64 -1\n"                 /* DATA vmem 0x52, 8 */
             ".hbm 0x1000\n"             /* no data: no record */
             "empty:\n"
             ".vmem 0x1000\n"
             ".random bf16, 10, 42\n"    /* FILL random bf16 0x1000, 20 */
             ".random f32, 3, 7, -0.5, 2\n", &o);  /* FILL random f32 0x1014, 12 */
    assert_int_equal(o.nchunks, 9);
    check_chunk(&o.chunks[0], TPU_REC_DATA, TPU_SPACE_HBM, 0x100, 9);
    assert_memory_equal(o.chunks[0].data, "\x01\0\0\0\xfe\xff\xff\xff\x03", 9);
    check_chunk(&o.chunks[1], TPU_REC_FILL, TPU_SPACE_HBM, 0x109, 4);
    assert_int_equal(o.chunks[1].fill, TPU_FILL_ZERO);
    check_chunk(&o.chunks[2], TPU_REC_DATA, TPU_SPACE_HBM, 0x10d, 2);
    assert_memory_equal(o.chunks[2].data, "\x34\x12", 2);
    check_chunk(&o.chunks[3], TPU_REC_DATA, TPU_SPACE_VMEM, 0x40, 4);
    assert_memory_equal(o.chunks[3].data, "\0\0\x80\x3f", 4);
    check_chunk(&o.chunks[4], TPU_REC_FILL, TPU_SPACE_VMEM, 0x44, 12);
    check_chunk(&o.chunks[5], TPU_REC_DATA, TPU_SPACE_VMEM, 0x50, 2);
    assert_memory_equal(o.chunks[5].data, "\x80\x3f", 2);
    check_chunk(&o.chunks[6], TPU_REC_DATA, TPU_SPACE_VMEM, 0x52, 8);
    check_chunk(&o.chunks[7], TPU_REC_FILL, TPU_SPACE_VMEM, 0x1000, 20);
    assert_int_equal(o.chunks[7].fill, TPU_FILL_RANDOM_BF16);
    assert_int_equal(o.chunks[7].seed, 42);
    assert_int_equal(o.chunks[7].lo_bits, 0xbf800000u);
    assert_int_equal(o.chunks[7].hi_bits, 0x3f800000u);
    check_chunk(&o.chunks[8], TPU_REC_FILL, TPU_SPACE_VMEM, 0x1014, 12);
    assert_int_equal(o.chunks[8].fill, TPU_FILL_RANDOM_F32);
    assert_int_equal(o.chunks[8].seed, 7);
    assert_int_equal(o.chunks[8].lo_bits, 0xbf000000u);
    assert_int_equal(o.chunks[8].hi_bits, 0x40000000u);
    tpu_obj_free(&o);

    /* A huge fill costs nothing: 16 GiB of zeros in HBM. */
    assemble("nop\n.hbm 0\n.zero 16 << 30\n", &o);
    assert_int_equal(o.nchunks, 1);
    assert_int_equal(o.chunks[0].size, 16ull << 30);
    tpu_obj_free(&o);
}

/* The fp32 / bf16 bits of one float literal. */
static uint32_t flt(const char *dir, const char *lit)
{
    char src[256];
    tpu_object o;
    snprintf(src, sizeof src, "nop\n.hbm 0\n%s %s\n", dir, lit);
    assemble(src, &o);
    uint32_t v = 0;
    assert_int_equal(o.nchunks, 1);
    memcpy(&v, o.chunks[0].data, o.chunks[0].size);   /* little-endian host */
    tpu_obj_free(&o);
    return v;
}

static void test_floats(void **state)
{
    (void)state;
    assert_int_equal(flt(".f32", "1.5"), 0x3fc00000u);
    assert_int_equal(flt(".f32", "-2e-3"), 0xbb03126fu);
    assert_int_equal(flt(".f32", "7"), 0x40e00000u);
    assert_int_equal(flt(".f32", "inf"), 0x7f800000u);
    assert_int_equal(flt(".f32", "-inf"), 0xff800000u);
    assert_int_equal(flt(".f32", "nan"), 0x7fc00000u);
    assert_int_equal(flt(".f32", "-0.0"), 0x80000000u);
    assert_int_equal(flt(".f32", "bits(0x12345678)"), 0x12345678u);
    assert_int_equal(flt(".f32", "1e-45"), 0x00000001u);           /* subnormal kept */
    assert_int_equal(flt(".f32", "16777217"), 0x4b800000u);        /* tie: to even */
    assert_int_equal(flt(".f32", "16777219"), 0x4b800002u);        /* tie: to even (up) */
    assert_int_equal(flt(".f32", "16777217.000000001"), 0x4b800001u);
    assert_int_equal(flt(".f32", "3.4028235e38"), 0x7f7fffffu);
    assert_int_equal(flt(".bf16", "1.0"), 0x3f80u);
    assert_int_equal(flt(".bf16", "3.14159"), 0x4049u);
    assert_int_equal(flt(".bf16", "1.00390625"), 0x3f80u);         /* tie: to even */
    assert_int_equal(flt(".bf16", "1.01171875"), 0x3f82u);         /* tie: to even */
    /* just above the tie, by less than a double can tell apart */
    assert_int_equal(flt(".bf16", "1.0039062500000000000000001"), 0x3f81u);
    assert_int_equal(flt(".bf16", "1.0039062499999999999999999"), 0x3f80u);
    assert_int_equal(flt(".bf16", "-2"), 0xc000u);
    assert_int_equal(flt(".bf16", "bits(0xffff)"), 0xffffu);
}

static void test_config_and_predefined(void **state)
{
    (void)state;
    tpu_config c;
    char err[256];
    tpu_config_defaults(&c);
    assert_int_equal(tpu_config_load(&c, "mid", err, sizeof err), 0);
    tpu_asm_options opt = { .config = &c };
    tpu_object o;
    assemble_opt("li s1, MXU_N\nli s2, NUM_MXU\nli s3, VPU_SUBLANES\nli s4, VPU_LANES\n"
                 ".insn VMEM_BYTES\n.insn HBM_BYTES\n.insn IMEM_WORDS\n"
                 ".target 16, 2, 8, 16\n", &opt, &o);
    assert_true(o.text[0] == E("li", 1, (int64_t)c.mxu_n));
    assert_true(o.text[1] == E("li", 2, (int64_t)c.num_mxu));
    assert_true(o.text[2] == E("li", 3, (int64_t)c.vpu_sublanes));
    assert_true(o.text[3] == E("li", 4, (int64_t)c.vpu_lanes));
    assert_int_equal(o.text[4], c.vmem_bytes);
    assert_int_equal(o.text[5], c.hbm_bytes);
    assert_int_equal(o.text[6], c.imem_words);
    assert_int_equal(o.config.mxu_n, 16);
    assert_int_equal(o.config.num_mxu, 2);
    assert_int_equal(o.config.vpu_sublanes, 8);
    assert_int_equal(o.config.vpu_lanes, 16);
    tpu_obj_free(&o);

    /* Without --config: .target sets the CONFIG record, nothing else. */
    assemble("nop\n.target 128, 4, 8, 128\n.target 128, 4, 8, 128\n", &o);
    assert_int_equal(o.config.mxu_n, 128);
    assert_int_equal(o.config.num_mxu, 4);
    assert_int_equal(o.config.vpu_lanes, 128);
    tpu_obj_free(&o);
    assemble("nop\n", &o);
    assert_int_equal(o.config.mxu_n, 0);
    tpu_obj_free(&o);
}

static void test_defines(void **state)
{
    (void)state;
    tpu_asm_define d[2];
    char err[200];
    assert_int_equal(tpu_asm_parse_define("B=1<<5", &d[0], err, sizeof err), 0);
    assert_int_equal(d[0].value, 32);
    assert_int_equal(d[0].name_len, 1);
    assert_int_equal(tpu_asm_parse_define("FLAG", &d[1], err, sizeof err), 0);
    assert_int_equal(d[1].value, 1);
    tpu_asm_options opt = { .defines = d, .ndefines = 2 };
    tpu_object o;
    assemble_opt(".equ B, 16\n"            /* the command line wins */
                 ".equ FLAG, 0\n"
                 "li s1, B\n"
                 "li s2, FLAG\n", &opt, &o);
    assert_true(o.text[0] == E("li", 1, 32));
    assert_true(o.text[1] == E("li", 2, 1));
    tpu_obj_free(&o);
}

static void test_expect_forms(void **state)
{
    (void)state;
    tpu_object o;
    assemble("nop\n"
             ".expect matmul y, x, w, 2, 8, 4\n"     /* forward references */
             ".expect add@1 y + 4, x, vmem(0x40), 16\n"
             ".expect relu hbm(0x10), x, 3\n"
             ".expect copy@0 y, x, 64\n"
             ".expect f32 y, 1.5, -0.0, bits(0x7fc00001)\n"
             ".expect sub y, x, x, 1\n.expect mul y, x, x, 1\n"
             ".expect max y, x, x, 1\n.expect min y, x, x, 1\n"
             ".hbm 0x100\nx: .zero 64\nw: .zero 64\n"
             ".vmem 0x80\ny: .zero 64\n", &o);
    assert_int_equal(o.nexpects, 9);
    const tpu_obj_expect *e = &o.expects[0];
    assert_int_equal(e->op, TPU_EXPECT_MATMUL);
    assert_int_equal(e->core, -1);
    assert_int_equal(e->nops, 6);
    assert_int_equal(e->ops[0].space, TPU_SPACE_VMEM);
    assert_int_equal(e->ops[0].value, 0x80);
    assert_int_equal(e->ops[1].space, TPU_SPACE_HBM);
    assert_int_equal(e->ops[1].value, 0x100);
    assert_int_equal(e->ops[2].value, 0x140);
    assert_int_equal(e->ops[3].space, TPU_SPACE_NONE);
    assert_int_equal(e->ops[5].value, 4);
    assert_int_equal(e->line, 2);
    e = &o.expects[1];
    assert_int_equal(e->op, TPU_EXPECT_ADD);
    assert_int_equal(e->core, 1);
    assert_int_equal(e->ops[0].value, 0x84);
    assert_int_equal(e->ops[0].space, TPU_SPACE_VMEM);
    assert_int_equal(e->ops[2].space, TPU_SPACE_VMEM);
    assert_int_equal(e->ops[2].value, 0x40);
    e = &o.expects[2];
    assert_int_equal(e->op, TPU_EXPECT_RELU);
    assert_int_equal(e->nops, 3);
    assert_int_equal(e->ops[0].space, TPU_SPACE_HBM);
    assert_int_equal(o.expects[3].op, TPU_EXPECT_COPY);
    assert_int_equal(o.expects[3].core, 0);
    e = &o.expects[4];
    assert_int_equal(e->op, TPU_EXPECT_F32);
    assert_int_equal(e->nops, 4);
    assert_int_equal(e->ops[1].value, 0x3fc00000u);
    assert_int_equal(e->ops[2].value, 0x80000000u);
    assert_int_equal(e->ops[3].value, 0x7fc00001u);
    assert_int_equal(e->ops[3].space, TPU_SPACE_NONE);
    assert_int_equal(o.expects[5].op, TPU_EXPECT_SUB);
    assert_int_equal(o.expects[8].op, TPU_EXPECT_MIN);
    tpu_obj_free(&o);
}

static void test_syntax_details(void **state)
{
    (void)state;
    tpu_object o;
    /* ; comments, CR LF, blank lines, tabs, a label alone on its line, a
     * file without a final newline, a label with dots and digits */
    const char *src = "; comment\r\n\tli s1, 1 # another\r\n\r\nl.1_x:\r\n  jmp l.1_x";
    tpu_asm_result r;
    assert_int_equal(tpu_asm_assemble(src, strlen(src), "t.s", NULL, &o, &r), 0);
    assert_int_equal(o.ntext, 2);
    assert_true(o.text[1] == E("jmp", 1));
    tpu_asm_result_free(&r);
    tpu_obj_free(&o);
    /* a constant may hold an address: its space goes along */
    assemble("nop\n.hbm 0x40\nbuf: .zero 8\n.equ OUT, buf + 4\n.expect copy OUT, buf, 4\n", &o);
    assert_int_equal(o.expects[0].ops[0].space, TPU_SPACE_HBM);
    assert_int_equal(o.expects[0].ops[0].value, 0x44);
    tpu_obj_free(&o);
}

static void test_listing(void **state)
{
    (void)state;
    const char *src = "  li s1, 5\n.hbm 0x10\n  .i32 1, 2\n";
    tpu_asm_options opt = { .listing = 1 };
    tpu_object o;
    tpu_asm_result r;
    assert_int_equal(tpu_asm_assemble(src, strlen(src), "t.s", &opt, &o, &r), 0);
    char want[256];
    snprintf(want, sizeof want,
             "text 0x00000000  %016llx  li s1, 5\n"
             "hbm  0x00000010  8 bytes           .i32 1, 2\n",
             (unsigned long long)E("li", 1, 5));
    assert_string_equal(r.listing, want);
    tpu_asm_result_free(&r);
    tpu_obj_free(&o);
}

/* Every example program (each .s file in programs/) assembles with tiny, as
 * its first line says, and checks its own result with one `.expect`. */
static void test_programs(void **state)
{
    (void)state;
    DIR *dir = opendir("programs");
    if (!dir)
        fail_msg("cannot open programs/ (run from the repository root)");
    unsigned seen = 0;
    struct dirent *de;
    while ((de = readdir(dir)) != NULL) {
        size_t len = strlen(de->d_name);
        if (len < 3 || strcmp(de->d_name + len - 2, ".s") != 0)
            continue;
        char path[512];
        snprintf(path, sizeof path, "programs/%s", de->d_name);
        FILE *f = fopen(path, "rb");
        if (!f)
            fail_msg("cannot open %s", path);
        static char buf[1 << 16];
        size_t n = fread(buf, 1, sizeof buf - 1, f);
        fclose(f);
        buf[n] = '\0';
        /* the first line names the machine: a preset or a .cfg of programs/ */
        const char *first = "# tpu-as: --config ";
        assert_true(strncmp(buf, first, strlen(first)) == 0);
        char cfgname[128];
        snprintf(cfgname, sizeof cfgname, "%.*s", (int)strcspn(buf + strlen(first), " \n"),
                 buf + strlen(first));
        tpu_config c;
        char err[256];
        tpu_config_defaults(&c);
        if (tpu_config_load(&c, cfgname, err, sizeof err))
            fail_msg("%s: its first line's config: %s", path, err);
        tpu_asm_options opt = { .config = &c, .allow_include = 1 };   /* programs/lib/ */
        tpu_object o;
        tpu_asm_result r;
        if (tpu_asm_assemble(buf, n, path, &opt, &o, &r) != 0)
            fail_msg("%s does not assemble:\n%s", path, r.messages);
        tpu_asm_result_free(&r);
        assert_true(o.ntext > 0);
        assert_true(o.nexpects >= 1);      /* every example checks its own result */
        tpu_obj_free(&o);
        seen++;
    }
    closedir(dir);
    assert_true(seen >= 4);      /* matmul_tile, matmul, pointwise, ici_exchange */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_operand_kinds),
        cmocka_unit_test(test_every_instruction),
        cmocka_unit_test(test_expressions),
        cmocka_unit_test(test_labels_and_forward_references),
        cmocka_unit_test(test_rept_and_set),
        cmocka_unit_test(test_macros),
        cmocka_unit_test(test_data_records),
        cmocka_unit_test(test_floats),
        cmocka_unit_test(test_config_and_predefined),
        cmocka_unit_test(test_defines),
        cmocka_unit_test(test_expect_forms),
        cmocka_unit_test(test_syntax_details),
        cmocka_unit_test(test_listing),
        cmocka_unit_test(test_programs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
