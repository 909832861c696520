/*
 * test_asm_errors.c - the assembler's error messages, exactly.
 *
 * Each bad input must make tpu_asm_assemble fail with exactly the message
 * given, "t.s:LINE:COL: error: ...".  The second half checks the limits:
 * garbage, huge lines, runaway .rept, too many errors, memory sizes.
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
#include "config.h"

/* Assemble and return the messages (caller frees); *rc gets the result. */
static char *run(const char *src, size_t len, const tpu_asm_options *opt, int *rc,
                 unsigned *nerrors)
{
    tpu_object o;
    tpu_asm_result r;
    *rc = tpu_asm_assemble(src, len, "t.s", opt, &o, &r);
    if (nerrors)
        *nerrors = r.nerrors;
    char *m = strdup(r.messages ? r.messages : "");
    tpu_asm_result_free(&r);
    tpu_obj_free(&o);
    return m;
}

/* The source must fail with exactly this one message. */
static void expect_error_opt(const char *src, const tpu_asm_options *opt, const char *msg)
{
    int rc;
    char *m = run(src, strlen(src), opt, &rc, NULL);
    char want[1024];
    snprintf(want, sizeof want, "%s\n", msg);
    if (strcmp(m, want) != 0)
        fail_msg("source:\n%s\nwant: %sgot:  %s", src, want, m);
    assert_int_equal(rc, -1);
    free(m);
}

static void expect_error(const char *src, const char *msg)
{
    expect_error_opt(src, NULL, msg);
}

/* The source must assemble without a message. */
static void expect_ok(const char *src)
{
    int rc;
    char *m = run(src, strlen(src), NULL, &rc, NULL);
    if (rc != 0)
        fail_msg("source:\n%.200s\nfailed: %s", src, m);
    free(m);
}

static const struct { const char *src, *msg; } catalogue[] = {
    { "add s1, s2\n",
      "t.s:1:1: error: 'add' takes 3 operands (rd, rs1, rs2), got 2" },
    { "ad s1, s2, s3\n",
      "t.s:1:1: error: unknown instruction 'ad'; did you mean 'add'?" },
    { "add s1, s2, v3\n",
      "t.s:1:13: error: operand 3 of 'add' must be a scalar register (s0..s31, zero, cid), got 'v3'" },
    { "add cid, s2, s3\n",
      "t.s:1:5: error: register 'cid' is read-only" },
    { "add s31, s2, s3\n",
      "t.s:1:5: error: register 's31' is read-only" },
    { "slli s1, s2, 70\n",
      "t.s:1:14: error: immediate 70 out of range for shamt: 0..63" },
    { "addi s1, s2, 0x80000000\n",
      "t.s:1:14: error: immediate 2147483648 out of range for imm: -2147483648..2147483647" },
    { "addi s1, s2, s3\n",
      "t.s:1:14: error: operand 3 of 'addi' must be a signed 32-bit immediate, got 's3'" },
    { "nop 1\n",
      "t.s:1:1: error: 'nop' takes no operands, got 1" },
    { "jr\n",
      "t.s:1:1: error: 'jr' takes 1 operand (rs1), got 0" },
    { "vadd v1, v2, s3\n",
      "t.s:1:14: error: operand 3 of 'vadd' must be a vector register (v0..v31), got 's3'" },
    { "sem.wait 32, 1\n",
      "t.s:1:10: error: semaphore 32 out of range for sem: 0..31" },
    { "sem.wait 0, -1\n",
      "t.s:1:13: error: immediate -1 out of range for count: 0..4294967295" },
    { "mxu.lw 4, s1, s2, 0\n",
      "t.s:1:8: error: MXU 4 out of range for mxu: 0..3" },
    { "dma.ici 6, s1, s2, s3, 0, 0\n",
      "t.s:1:9: error: port 6 out of range for port: 0..5" },
    { "sync foo\n",
      "t.s:1:6: error: unknown unit 'foo' (expected mxu0..mxu3, mxu, vpu, dma, ici or all)" },
    { "sync mxu|\n",
      "t.s:1:6: error: operand 1 of 'sync' must be a unit set (mxu0..mxu3, mxu, vpu, dma, ici, all, joined by '|'), got 'mxu|'" },
    { "sync 5\n",
      "t.s:1:6: error: operand 1 of 'sync' must be a unit set (mxu0..mxu3, mxu, vpu, dma, ici, all, joined by '|'), got '5'" },
    { "jmp nowhere\n",
      "t.s:1:5: error: undefined symbol 'nowhere'" },
    { "jmp -1\n",
      "t.s:1:5: error: target -1 out of range for target: 0..4294967295" },
    { "a: nop\na: nop\n",
      "t.s:2:1: error: 'a' is already defined at t.s:1:1" },
    { "nop\n.foo 1\n",
      "t.s:2:1: error: unknown directive '.foo'" },
    { "li s1, 12x\n",
      "t.s:1:8: error: bad number '12x'" },
    { "li s1, 0x\n",
      "t.s:1:8: error: bad number '0x'" },
    { "li s1, 0b102\n",
      "t.s:1:8: error: bad number '0b102'" },
    { "li s1, 99999999999999999999999\n",
      "t.s:1:8: error: number too large: '99999999999999999999999' (at most 64 bits)" },
    { "nop\n.hbm 0\n.zero 0x500000000\n",
      "t.s:3:1: error: data at hbm 0x0..0x4ffffffff is outside memory (hbm has 0x400000000 bytes)" },
    { "nop\n.hbm 0x100\n.i32 1,2,3,4\n.hbm 0x108\n.i32 5\n",
      "t.s:5:1: error: data at hbm 0x108..0x10b overlaps data placed at t.s:3:1" },
    { "nop\n.hbm 0\n.f32 1.5e\n",
      "t.s:3:6: error: bad number '1.5e'" },
    { "nop\n.hbm 0\n.f32 1e39\n",
      "t.s:3:6: error: float '1e39' is too large for f32" },
    { "nop\n.hbm 0\n.f32 1.2.3\n",
      "t.s:3:6: error: bad number '1.2.3'" },
    { "nop\n.rept 3\nnop\n",
      "t.s:2:1: error: '.rept' without '.endr'" },
    { "nop\n.endr\n",
      "t.s:2:1: error: '.endr' without '.rept'" },
    /* macros: the definition, the calls, and the notes naming each call */
    { "nop\n.macro m\nnop\n",
      "t.s:2:1: error: '.macro' without '.endm'" },
    { "nop\n.endm\n",
      "t.s:2:1: error: '.endm' without '.macro'" },
    { "nop\n.macro\n.endm\n",
      "t.s:2:1: error: '.macro' needs a name" },
    { "nop\n.macro 3x\n.endm\n",
      "t.s:2:8: error: expected a macro name after '.macro', got '3'" },
    { "nop\n.macro add a\n.endm\n",
      "t.s:2:8: error: 'add' is an instruction and cannot be a macro" },
    { "nop\n.macro s1\n.endm\n",
      "t.s:2:8: error: 's1' is a reserved name and cannot be a macro" },
    { "nop\n.macro m a, a\n.endm\n",
      "t.s:2:13: error: parameter 'a' appears twice in macro 'm'" },
    { "nop\n.macro m a, \n.endm\n",
      "t.s:2:13: error: expected a parameter name after ','" },
    { "nop\n.macro m\n.endm\n.macro m\n.endm\n",
      "t.s:4:8: error: macro 'm' is already defined at t.s:2:8" },
    { "lbl: .macro m\n.endm\nnop\n",
      "t.s:1:1: error: a '.macro' line cannot have a label" },
    { "nop\n.rept 1\n.macro m\n.endm\n.endr\n",
      "t.s:3:1: error: '.macro' inside a '.rept' body (macros are defined at the top level only)" },
    { "nop\n.macro m\n.rept 2\n.endm\n",
      "t.s:3:1: error: '.rept' without '.endr'" },
    { "nop\n.macro m\n.endr\n.endm\n",
      "t.s:3:1: error: '.endr' without '.rept'" },
    { "nop\n.macro m\n.endm junk\n",
      "t.s:3:7: error: unexpected 'junk' after '.endm'" },
    { "nop\n.exitm\n",
      "t.s:2:1: error: '.exitm' outside a macro" },
    { "nop\nm 1\n.macro m a\n.endm\n",
      "t.s:2:1: error: macro 'm' is used before its definition at t.s:3:1" },
    { "nop\n.macro m a\n  addi s1, s1, \\b\n.endm\nm 1\n",
      "t.s:3:16: error: '\\b' is not a parameter of macro 'm'\n"
      "t.s:5: note: in expansion of macro 'm'" },
    { "nop\n.macro m a\n  addi s1, s1, \\\n.endm\nm 1\n",
      "t.s:3:16: error: stray '\\' in macro 'm' (expected \\NAME, \\@ or \\())\n"
      "t.s:5: note: in expansion of macro 'm'" },
    { "nop\n.macro m a\n.endm\nm 1, 2\n",
      "t.s:4:6: error: macro 'm' takes 1 argument, got 2" },
    { "nop\n.macro m a\n.endm\nm b=1\n",
      "t.s:4:3: error: macro 'm' has no parameter 'b'" },
    { "nop\n.macro m a:req\n.endm\nm\n",
      "t.s:4:1: error: missing value for required parameter 'a' of macro 'm'" },
    { "nop\n.macro m a\n.endm\nm 1, a=2\n",
      "t.s:4:8: error: argument 'a' of macro 'm' is given twice" },
    { "nop\n.macro m a\n  addi s1, s1, \\a\n.endm\n.macro n\n  m zz\n.endm\nn\n",
      "t.s:3:16: error: undefined symbol 'zz'\n"
      "t.s:6: note: in expansion of macro 'm'\n"
      "t.s:8: note: in expansion of macro 'n'" },
    { "nop\n.equ X, Y + 1\n.equ Y, 2\n",
      "t.s:2:9: error: symbol 'Y' is not defined yet" },
    { "nop\n.equ X, 1\n.equ X, 2\n",
      "t.s:3:6: error: 'X' is already defined at t.s:2:6" },
    { "nop\n.equ X, 1\n.set X, 2\n",
      "t.s:3:6: error: 'X' was defined with .equ at t.s:2:6 and cannot be changed" },
    { "nop\n.i32 1\n",
      "t.s:2:1: error: '.i32' is not allowed in .text (data goes in a .hbm or .vmem section)" },
    { "nop\n.hbm 0\nnop\n",
      "t.s:3:1: error: instruction 'nop' in a data section (.hbm); write '.text' first" },
    { "nop\n.hbm 0\n.i8 256\n",
      "t.s:3:5: error: value 256 out of range for .i8: -128..255" },
    { "nop\n.hbm 0\n.i16 -32769\n",
      "t.s:3:6: error: value -32769 out of range for .i16: -32768..65535" },
    { "li s1, 1/0\n",
      "t.s:1:9: error: division by zero" },
    { "li s1, 5 % 0\n",
      "t.s:1:10: error: remainder by zero" },
    { "li s1, 1 << 64\n",
      "t.s:1:10: error: shift count 64 out of range: 0..63" },
    { "li s1, (1 + 2\n",
      "t.s:1:14: error: expected ')' to close the '(' at column 8, got 'end of line'" },
    { "li s1, 1 + 2)\n",
      "t.s:1:13: error: unexpected ')' in expression" },
    { "li s1, $5\n",
      "t.s:1:8: error: unexpected character '$'" },
    { "li s1, 1.5\n",
      "t.s:1:8: error: expected an integer, got float '1.5'" },
    { "s1: nop\n",
      "t.s:1:1: error: 's1' is a reserved name and cannot be a label" },
    { "nop\n.equ s2, 3\n",
      "t.s:2:6: error: 's2' is a reserved name" },
    { "nop\n.hbm 0\n.align 3\n",
      "t.s:3:8: error: '.align' 3 is not a power of two up to 2^40" },
    { "nop\n.hbm 0\n.zero -1\n",
      "t.s:3:7: error: '.zero' size -1 is negative" },
    { "nop\n.hbm 0\n.random f64, 4, 1\n",
      "t.s:3:9: error: '.random' element type must be bf16, f32 or i8, got 'f64'" },
    { "nop\n.hbm 0\n.random f32, 4, 1, 1.0, -1.0\n",
      "t.s:3:20: error: '.random' range [LO, HI) must be finite and not empty" },
    { "nop\n.hbm 0\n.random f32, 4\n",
      "t.s:3:1: error: '.random' takes 3 to 5 operands (bf16|f32|i8, COUNT, SEED [, LO, HI]), got 2" },
    { "nop\n.rept -1\n.endr\n",
      "t.s:2:7: error: '.rept' count -1 is negative" },
    { "add s1,, s2\n",
      "t.s:1:8: error: expected an operand before ','" },
    { "add s1, s2, s3,\n",
      "t.s:1:16: error: expected an operand after ','" },
    { "nop\n.expect foo 1\n",
      "t.s:2:9: error: unknown check 'foo' after '.expect' (expected matmul, matmul_i8, matmul_w8, matmul_w8s, matmul_epi, conv2d, pool, add, sub, mul, max, min, relu, add_relu, softmax, softmax_s, layernorm, rmsnorm, gelu, silu, residual, copy, f32 or sum)" },
    { "nop\n.hbm 0\nX: .zero 4\n.expect add X, X, X\n",
      "t.s:4:1: error: '.expect add' takes 4 operands (Z, X, Y, N), got 3" },
    { "nop\n.expect f32 hbm(0)\n",
      "t.s:2:1: error: '.expect f32' takes an address and 1 to 71 values (ADDR, F, ...), got 1 operand" },
    { "nop\n.hbm 0\nb: .zero 4\n.text\njmp b\n",
      "t.s:5:5: error: operand 1 of 'jmp' must be a code label or an instruction index, got hbm address 'b'" },
    { "nop\n.target 8, 1, 8, 8\n.target 16, 1, 8, 8\n",
      "t.s:3:1: error: '.target' differs from the one at t.s:2:1" },
    { "nop\n.text 5\n",
      "t.s:2:1: error: '.text' takes no operands, got 1" },
    { ".insn\n",
      "t.s:1:1: error: '.insn' takes 1 operand (EXPR), got 0" },
    { "nop\n.insn 1\n.hbm 0\n.insn 2\n",
      "t.s:4:1: error: '.insn' is only allowed in .text" },
    { "li s1, hbm\n",
      "t.s:1:8: error: expected '(' after 'hbm'" },
    { "li s1, bits(3)\n",
      "t.s:1:8: error: 'bits(...)' is only allowed as a float value" },
    { "nop\n.target 300, 1, 8, 8\n",
      "t.s:2:9: error: MXU_N 300 out of range: 2..256 (or 0 for any)" },
    { "nop\n.vmem 0x100\n.zero 16\n.vmem 0x108\n.i8 1\n",
      "t.s:5:1: error: data at vmem 0x108..0x108 overlaps data placed at t.s:3:1" },
    { "nop\n.hbm -4\n", "t.s:2:6: error: address -4 is negative" },
    { "nop\n.hbm 0x500000000\n", "t.s:2:6: error: address 0x500000000 is outside hbm (0x400000000 bytes)" },
    { "nop\n.hbm 0\n.random f32, 1<<40, 1\n",
      "t.s:3:1: error: data at hbm 0x0..0x3ffffffffff is outside memory (hbm has 0x400000000 bytes)" },
    { "nop\n.hbm 0\n.bf16 bits(0x10000)\n",
      "t.s:3:7: error: bit pattern 65536 out of range for bf16: -32768..65535" },
    { "nop\n.hbm 0\n.f32 1e999\n", "t.s:3:6: error: float '1e999' is too large for f32" },
    { "nop\n.hbm 0\n.bf16 3.4e38\n", "t.s:3:7: error: float '3.4e38' is too large for bf16" },
    { "li s1, 1 = 2\n", "t.s:1:10: error: unexpected character '='" },
    { "li s1, ((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((1\n",
      "t.s:1:208: error: expression nested too deeply (at most 200 levels)" },
    { "nop\n.expect copy@-1 hbm(0), hbm(8), 8\n", "t.s:2:14: error: core -1 out of range: 0..2147483647" },
    { "nop\n.hbm 0\nx: .zero 8\n.expect relu x, x, -1\n",
      "t.s:4:20: error: operand 3 of '.expect relu' is negative (-1)" },
    { "nop\nlbl: .equ lbl, 3\n", "t.s:2:11: error: 'lbl' is already defined at t.s:2:1" },
    { "nop\n.equ 5, 3\n", "t.s:2:6: error: '.equ' needs a name, got '5'" },
    { "nop\n, nop\n", "t.s:2:1: error: expected a label, an instruction or a directive, got ','" },
    { "li s1, cid\n", "t.s:1:8: error: operand 2 of 'li' must be a signed 32-bit immediate, got 'cid'" },
    { "li s1, 2 + s3\n", "t.s:1:12: error: register 's3' cannot be used in an expression" },
    /* .error and .assert (the assembly stops at them: nothing below is reported) */
    { "nop\n.error \"no good\"\nadd s1\n", "t.s:2:1: error: no good" },
    { "nop\n  .equ B, 0\n  .assert B > 0 && B % 8 == 0, \"B must be a positive multiple of MXU_N (%d), got %d\", 8, B\n"
      "  .equ X, 64 / B\n",
      "t.s:3:3: error: B must be a positive multiple of MXU_N (8), got 0" },
    { "nop\n.assert 2 > 3\n", "t.s:2:1: error: assertion failed: 2 > 3" },
    { "nop\n.error \"%x and %d, 100%%\", 255, -0x10\n", "t.s:2:1: error: 0xff and -16, 100%" },
    { "nop\n.error \"%x\", -255\n", "t.s:2:1: error: -0xff" },
    { "nop\n.error \"say \\\"no\\\" # not a comment; \\\\ \"\n",
      "t.s:2:1: error: say \"no\" # not a comment; \\ " },
    { "nop\n.rept 3\n.set i, 0\n.rept 2\n.assert i < 1, \"i is %d\", i\n.set i, i + 1\n.endr\n.endr\n",
      "t.s:5:1: error: i is 1" },
    { "nop\n.error\n", "t.s:2:1: error: '.error' needs a message: .error \"MESSAGE\" [, VALUE...]" },
    { "nop\n.assert\n",
      "t.s:2:1: error: '.assert' needs a condition: .assert EXPR [, \"MESSAGE\" [, VALUE...]]" },
    { "nop\n.assert 1, 2\n",
      "t.s:2:12: error: the message of '.assert' must be a string (\"...\"), got '2'" },
    { "nop\n.assert 1, \"%s\", 2\n",
      "t.s:2:12: error: '%s' in the message of '.assert': only %d, %x and %% are allowed" },
    { "nop\n.assert 1, \"50%\"\n",
      "t.s:2:12: error: '%' in the message of '.assert': only %d, %x and %% are allowed" },
    { "nop\n.assert 1, \"%d %d\", 2\n",
      "t.s:2:1: error: the message of '.assert' prints 2 values (%d, %x), got 1" },
    { "nop\n.error \"%d\", 1, 2\n",
      "t.s:2:1: error: the message of '.error' prints 1 value (%d, %x), got 2" },
    { "nop\n.assert \"yes\", \"a\"\n", "t.s:2:9: error: expected an expression, got '\"yes\"'" },
    { "nop\n.assert later, \"a\"\nlater: nop\n", "t.s:2:9: error: symbol 'later' is not defined yet" },
    { "nop\n.assert 0, \"v %d\", 1/0\n", "t.s:2:21: error: division by zero" },
    { "nop\n.error \"abc\n", "t.s:2:8: error: unterminated string (no closing '\"')" },
    { "nop\n.error \"a\\n\"\n", "t.s:2:10: error: unknown escape in a string (only \\\" and \\\\ are allowed)" },
    { "nop\n.error \"caf\xc3\xa9\"\n", "t.s:2:12: error: invalid character 0xc3" },
    { "li s1, \"a\"\n", "t.s:1:8: error: expected an expression, got '\"a\"'" },
    { "nop\n.eror \"x\"\n", "t.s:2:1: error: unknown directive '.eror'; did you mean '.error'?" },
};

static void test_catalogue(void **state)
{
    (void)state;
    for (size_t k = 0; k < sizeof catalogue / sizeof catalogue[0]; k++)
        expect_error(catalogue[k].src, catalogue[k].msg);
    /* the brief asks for at least 40 distinct bad inputs */
    assert_true(sizeof catalogue / sizeof catalogue[0] >= 40);
}

static void test_several_errors_all_reported(void **state)
{
    (void)state;
    const char *src = "start: nop\n"
                      "add s1, s2\n"
                      "li s1, 5\n"
                      "slli s1, s2, 64\n"
                      ".hbm 0\n"
                      ".i8 1000\n"
                      ".text\n"
                      "jmp nowhere\n";
    int rc;
    unsigned n;
    char *m = run(src, strlen(src), NULL, &rc, &n);
    assert_int_equal(rc, -1);
    assert_int_equal(n, 4);
    assert_string_equal(m,
        "t.s:2:1: error: 'add' takes 3 operands (rd, rs1, rs2), got 2\n"
        "t.s:4:14: error: immediate 64 out of range for shamt: 0..63\n"
        "t.s:6:5: error: value 1000 out of range for .i8: -128..255\n"
        "t.s:8:5: error: undefined symbol 'nowhere'\n");
    free(m);
}

static void test_empty(void **state)
{
    (void)state;
    expect_error("", "t.s:1:1: error: empty program (no instructions)");
    expect_error("# only a comment\n\n   ; another\n", "t.s:1:1: error: empty program (no instructions)");
    expect_error(".hbm 0\n.i32 1\n", "t.s:1:1: error: empty program (no instructions)");
}

static void test_control_bytes_once_per_line(void **state)
{
    (void)state;
    int rc;
    char *m = run("nop\0\0\0\nnop # \x01\n", 14, NULL, &rc, NULL);
    assert_int_equal(rc, -1);
    assert_string_equal(m, "t.s:1:4: error: invalid character 0x00\n"
                           "t.s:2:7: error: invalid character 0x01\n");
    free(m);
    expect_error("nop\nli s1, \xc3\xa9\n", "t.s:2:8: error: invalid character 0xc3");
    /* non-ASCII is fine in a comment, CR LF line ends are fine */
    m = run("nop # caf\xc3\xa9\r\nhalt\r\n", 18, NULL, &rc, NULL);
    assert_int_equal(rc, 0);
    free(m);
}

/* Pseudo-random bytes: an error, never a crash or a hang. */
static void test_binary_garbage(void **state)
{
    (void)state;
    uint64_t x = 88172645463325252ull;
    char *buf = malloc(1 << 16);
    assert_non_null(buf);
    for (int round = 0; round < 50; round++) {
        size_t len = (size_t)(round * 1237) % (1 << 16);
        for (size_t k = 0; k < len; k++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            buf[k] = round % 2 ? (char)(x & 0xff) : " \n,.:abs0123()+-*hbmvmem.rept.endr#"[x % 36];
        }
        int rc;
        unsigned n;
        char *m = run(buf, len, NULL, &rc, &n);
        assert_int_equal(rc, -1);
        assert_true(n >= 1 && n <= 51);
        assert_memory_equal(m, "t.s:", 4);
        free(m);
    }
    free(buf);
}

static void test_ten_megabyte_line(void **state)
{
    (void)state;
    size_t n = 10u << 20;
    char *buf = malloc(n + 16);
    assert_non_null(buf);
    memcpy(buf, "nop\n", 4);
    memset(buf + 4, 'a', n);
    memcpy(buf + 4 + n, "\nnop\n", 5);
    int rc;
    char *m = run(buf, n + 9, NULL, &rc, NULL);
    assert_int_equal(rc, -1);
    assert_string_equal(m, "t.s:2:1: error: line too long (10485760 bytes, at most 65535)\n");
    free(m);
    free(buf);
}

static void test_file_too_large(void **state)
{
    (void)state;
    size_t n = TPU_ASM_MAX_SOURCE + 1;
    char *buf = malloc(n);
    assert_non_null(buf);
    memset(buf, '\n', n);
    int rc;
    char *m = run(buf, n, NULL, &rc, NULL);
    assert_int_equal(rc, -1);
    assert_string_equal(m, "t.s:1:1: error: file too large (67108865 bytes, at most 64 MiB)\n");
    free(m);
    free(buf);
}

static void test_too_many_errors(void **state)
{
    (void)state;
    char src[2000] = "";
    for (int k = 0; k < 60; k++)
        strcat(src, "bad\n");
    int rc;
    unsigned n;
    char *m = run(src, strlen(src), NULL, &rc, &n);
    assert_int_equal(rc, -1);
    assert_int_equal(n, TPU_ASM_MAX_ERRORS + 1);
    assert_non_null(strstr(m, "t.s:50:1: error: unknown instruction 'bad'\n"
                              "t.s:51:1: error: too many errors, stopping\n"));
    assert_null(strstr(m, "t.s:52:"));
    free(m);
}

static void test_rept_errors_reported_once(void **state)
{
    (void)state;
    expect_error("nop\n.rept 1000\nli s1, nothing\n.endr\n",
                 "t.s:3:8: error: undefined symbol 'nothing'");
}

static void test_rept_limits(void **state)
{
    (void)state;
    expect_error("nop\n.rept 1000000\n.rept 1000000\n#\n.endr\n.endr\n",
                 "t.s:2:1: error: '.rept' expands to more than 4000000 lines");
    /* An empty body is skipped: no line would count its 1e12 repetitions. */
    expect_ok("nop\n.rept 1000000\n.rept 1000000\n.endr\n.endr\n");
    expect_error("nop\n.rept 1<<60\n# a comment\n.endr\n",
                 "t.s:2:1: error: '.rept' expands to more than 4000000 lines");
    expect_error(".rept 2000000\nnop\n.endr\n",
                 "t.s:2:1: error: too many instructions (more than 1048576)");
    /* Exactly at the limits: the lines of the bodies count, not the .endr
     * that ends each repetition (nor the .rept lines of the outermost). */
    expect_ok("nop\n.rept 4000000\n\n.endr\n");
    expect_error("nop\n.rept 4000001\n\n.endr\n",
                 "t.s:2:1: error: '.rept' expands to more than 4000000 lines");
    expect_ok("nop\n.rept 2000\n.rept 1999\n\n.endr\n.endr\n");    /* 2000 x (1 + 1999) */
    expect_error("nop\n.rept 2000\n.rept 2000\n\n.endr\n.endr\n",
                 "t.s:2:1: error: '.rept' expands to more than 4000000 lines");
    /* 64 MiB of body text: 1 Mi lines of 63 bytes and their newlines */
    char body[63], rep[200];
    memset(body, 'x', 62);
    body[62] = '\0';
    snprintf(rep, sizeof rep, "nop\n.rept %d\n#%s\n.endr\n", 1 << 20, body);
    expect_ok(rep);
    snprintf(rep, sizeof rep, "nop\n.rept %d\n#%s\n.endr\n", (1 << 20) + 1, body);
    expect_error(rep, "t.s:2:1: error: '.rept' expands to more than 64 MiB of source text");
    /* 2000 lines of 60000 bytes, 1000 times: the text budget ends it */
    char *big = malloc(70000);
    assert_non_null(big);
    strcpy(big, "nop\n.rept 100000\n#");
    memset(big + strlen(big), 'x', 60000);
    strcpy(big + strlen("nop\n.rept 100000\n#") + 60000, "\n.endr\n");
    expect_error(big, "t.s:2:1: error: '.rept' expands to more than 64 MiB of source text");
    free(big);
    expect_error("nop\n.rept 16385\n.expect copy hbm(0), hbm(8), 8\n.endr\n",
                 "t.s:3:1: error: too many .expect checks (at most 16384)");
    char deep[1000] = "nop\n";
    for (int k = 0; k < 17; k++)
        strcat(deep, ".rept 1\n");
    for (int k = 0; k < 17; k++)
        strcat(deep, ".endr\n");
    expect_error(deep, "t.s:18:1: error: '.rept' nested too deeply (at most 16 levels)");
}

/* An .error or a failed .assert stops the assembly: the errors above it are
 * reported, nothing below it runs (not even pass 1, so a runaway .rept
 * below never starts). */
/* Macros: nesting, and the expansion budget shared with .rept. */
static void test_macro_limits(void **state)
{
    (void)state;
    /* a call without end stops at the nesting limit, naming every call */
    int rc;
    char *m = run("nop\n.macro m\n  m\n.endm\nm\n", 24, NULL, &rc, NULL);
    assert_int_equal(rc, -1);
    assert_non_null(strstr(m, "t.s:3:3: error: macro calls nested too deeply (at most 32 levels)\n"
                              "t.s:3: note: in expansion of macro 'm'\n"));
    assert_non_null(strstr(m, "t.s:5: note: in expansion of macro 'm'\n"));
    free(m);
    /* one that doubles at every level: 2^32 lines, stopped by the budget */
    expect_error("nop\n.macro m\n  #\n  m\n  m\n.endm\nm\n",
                 "t.s:7:1: error: macro 'm' expands to more than 4000000 lines");
    expect_error("nop\n.macro m\n.rept 1000\n.rept 1000\n.rept 10\n#\n.endr\n.endr\n.endr\n"
                 ".endm\nm\n",
                 "t.s:11:1: error: macro 'm' expands to more than 4000000 lines");
    /* arguments count in the text budget: 1000 x 1000 lines of 100 x 600 bytes */
    char *big = malloc(200000), *p = big;
    assert_non_null(big);
    p += sprintf(p, "nop\n.macro m a\n.rept 1000\n.rept 1000\n");
    for (int k = 0; k < 100; k++)               /* one 60000-byte word (not a comment: */
        p += sprintf(p, "\\a");                 /* arguments are not put in comments) */
    p += sprintf(p, "\n.endr\n.endr\n.endm\nm ");
    memset(p, 'x', 600);
    strcpy(p + 600, "\n");
    expect_error(big, "t.s:9:1: error: macro 'm' expands to more than 64 MiB of source text");
    /* a line that grows past the line limit */
    p = big;
    p += sprintf(p, "nop\n.macro m a\n.set v, \\a + \\a + \\a\n.endm\nm ");
    memset(p, 'x', 30000);
    strcpy(p + 30000, "\n");
    expect_error(big, "t.s:3:1: error: line too long after the arguments of macro 'm' are put "
                      "in (at most 65535 bytes)\nt.s:5: note: in expansion of macro 'm'");
    free(big);
    /* 64 parameters are allowed, 65 are not */
    char src[1200] = "nop\n.macro m";
    for (int k = 0; k < 65; k++)
        sprintf(src + strlen(src), "%sp%d", k ? ", " : " ", k);
    strcat(src, "\n.endm\n");
    expect_error(src, "t.s:2:320: error: macro 'm' has too many parameters (at most 64)");
}

static void test_error_stops_the_assembly(void **state)
{
    (void)state;
    int rc;
    unsigned n;
    const char *src = "nop\nadd s1\n.equ B, 0\n.assert B, \"B must not be 0\"\n"
                      ".rept 1 << 40\n.endr\nli s1, 1/B\nbad\n";
    char *m = run(src, strlen(src), NULL, &rc, &n);
    assert_int_equal(rc, -1);
    assert_string_equal(m, "t.s:2:1: error: 'add' takes 3 operands (rd, rs1, rs2), got 1\n"
                           "t.s:4:1: error: B must not be 0\n");
    assert_int_equal(n, 2);
    free(m);
    /* a label below the .error is not known: its uses above are not errors */
    expect_error("jmp end\nli s1, end\n.error \"stop\"\nend: halt\n", "t.s:3:1: error: stop");
    /* a .rept 0 body is not run, nor is a true .assert an error */
    tpu_object o;
    tpu_asm_result r;
    const char *good = ".rept 0\n.error \"never\"\n.endr\n.assert 1 < 2, \"fine\"\n"
                       ".assert 1\nhalt\n";
    assert_int_equal(tpu_asm_assemble(good, strlen(good), "t.s", NULL, &o, &r), 0);
    assert_int_equal(o.ntext, 1);
    tpu_asm_result_free(&r);
    tpu_obj_free(&o);
}

static void test_limits_from_config(void **state)
{
    (void)state;
    tpu_config c;
    char err[256];
    tpu_config_defaults(&c);
    assert_int_equal(tpu_config_load(&c, "tiny", err, sizeof err), 0);
    tpu_asm_options o = { .config = &c };
    expect_error_opt("nop\n.vmem 0x3fff0\n.zero 32\n", &o,
                     "t.s:3:1: error: data at vmem 0x3fff0..0x4000f is outside memory "
                     "(vmem has 0x40000 bytes)");
    expect_error_opt("mxu.lw 1, s1, s2, 0\n", &o,
                     "t.s:1:8: error: MXU 1 does not exist: the configuration has 1 (0..0)");
    expect_error_opt("nop\n.target 16, 1, 8, 8\n", &o,
                     "t.s:2:1: error: '.target 16, 1, 8, 8' does not match --config (8, 1, 8, 8): "
                     "assemble without --config");
    expect_error_opt("nop\n.target 16, 2, 8, 16\n", &o,
                     "t.s:2:1: error: '.target 16, 2, 8, 16' does not match --config (8, 1, 8, 8): "
                     "assemble with --config mid");
    expect_error_opt("nop\n.target 128, 0, 0, 0\n", &o,
                     "t.s:2:1: error: '.target 128, 0, 0, 0' does not match --config (8, 1, 8, 8): "
                     "assemble with --config v5e");
    expect_error_opt(".rept 5000\nnop\n.endr\n", &o,
                     "t.s:2:1: error: too many instructions (more than 4096)");
    expect_error_opt("nop\n.set MXU_N, 4\n", &o,
                     "t.s:2:6: error: 'MXU_N' is defined on the command line and cannot be "
                     "changed with .set");
}

static void test_command_line_constants(void **state)
{
    (void)state;
    tpu_asm_define d = { "X", 1, 5 };
    tpu_asm_options o = { .defines = &d, .ndefines = 1 };
    expect_error_opt("X: nop\n", &o, "t.s:1:1: error: 'X' is already defined on the command line");
    tpu_asm_define bad = { "s3", 2, 5 };
    tpu_asm_options ob = { .defines = &bad, .ndefines = 1 };
    expect_error_opt("nop\n", &ob, "t.s:1:1: error: -D 's3' is not a valid constant name");

    char err[200];
    tpu_asm_define out;
    assert_int_equal(tpu_asm_parse_define("1X=3", &out, err, sizeof err), -1);
    assert_string_equal(err, "-D 1X=3: '1X' is not a valid constant name");
    assert_int_equal(tpu_asm_parse_define("X=1+", &out, err, sizeof err), -1);
    assert_string_equal(err, "-D X=1+: expected an expression, got 'end of line'");
    assert_int_equal(tpu_asm_parse_define("X=", &out, err, sizeof err), -1);
    assert_string_equal(err, "-D X=: expected NAME=VALUE with an integer VALUE");
    assert_int_equal(tpu_asm_parse_define("X=Y", &out, err, sizeof err), -1);
    assert_string_equal(err, "-D X=Y: undefined symbol 'Y'");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_catalogue),
        cmocka_unit_test(test_several_errors_all_reported),
        cmocka_unit_test(test_empty),
        cmocka_unit_test(test_control_bytes_once_per_line),
        cmocka_unit_test(test_binary_garbage),
        cmocka_unit_test(test_ten_megabyte_line),
        cmocka_unit_test(test_file_too_large),
        cmocka_unit_test(test_too_many_errors),
        cmocka_unit_test(test_rept_errors_reported_once),
        cmocka_unit_test(test_rept_limits),
        cmocka_unit_test(test_macro_limits),
        cmocka_unit_test(test_error_stops_the_assembly),
        cmocka_unit_test(test_limits_from_config),
        cmocka_unit_test(test_command_line_constants),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
