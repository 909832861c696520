/*
 * asm_directive.c - the directives other than .rept/.endr (asm_run.c runs
 * those): sections, constants, data, .insn, .target, .expect, .array,
 * .error and .assert.
 *
 * Anything that decides where things go (.hbm/.vmem addresses, .zero,
 * .random and .align sizes, the number of values of a data directive) is
 * worked out in both passes and may only use what is already defined.  The
 * values themselves are evaluated in pass 2 only.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "asm_impl.h"
#include "config.h"

enum where { ANY, DATA, TEXT };

typedef struct dctx {
    asm_ctx *a;
    const asm_tok *dir;     /* the directive token */
    const char *name;       /* its name, NUL-terminated */
    int n;                  /* operands */
    size_t *st, *en;        /* operand k is toks[st[k]..en[k]) */
} dctx;

typedef void (*dir_fn)(dctx *d);

static void d_text(dctx *d);
static void d_origin(dctx *d);
static void d_equ(dctx *d);
static void d_int(dctx *d);
static void d_float(dctx *d);
static void d_zero(dctx *d);
static void d_random(dctx *d);
static void d_align(dctx *d);
static void d_insn(dctx *d);
static void d_target(dctx *d);
static void d_expect(dctx *d);
static void d_array(dctx *d);
static void d_error(dctx *d);
static void d_include(dctx *d);

static const struct directive {
    const char *name;
    dir_fn fn;
    int min, max;           /* operand count; max -1: no limit */
    uint8_t where;
    const char *usage;      /* operand names for count messages */
} directives[] = {
    { ".text", d_text, 0, 0, ANY, "" },
    { ".hbm", d_origin, 1, 1, ANY, "ADDR" },
    { ".vmem", d_origin, 1, 1, ANY, "ADDR" },
    { ".equ", d_equ, 2, 2, ANY, "NAME, EXPR" },
    { ".set", d_equ, 2, 2, ANY, "NAME, EXPR" },
    { ".i8", d_int, 1, -1, DATA, "" },
    { ".i16", d_int, 1, -1, DATA, "" },
    { ".i32", d_int, 1, -1, DATA, "" },
    { ".i64", d_int, 1, -1, DATA, "" },
    { ".bf16", d_float, 1, -1, DATA, "" },
    { ".f32", d_float, 1, -1, DATA, "" },
    { ".zero", d_zero, 1, 1, DATA, "N" },
    { ".random", d_random, 3, 5, DATA, "bf16|f32|i8, COUNT, SEED [, LO, HI]" },
    { ".align", d_align, 1, 1, DATA, "N" },
    { ".insn", d_insn, 1, 1, TEXT, "EXPR" },
    { ".target", d_target, 4, 4, ANY, "MXU_N, NUM_MXU, SUBLANES, LANES" },
    { ".expect", d_expect, 0, -1, ANY, "" },
    { ".array", d_array, 3, 2 + TPU_OBJ_MAX_ARRAY_DIMS + 2, ANY,
      "NAME, bf16|f32|i8|i32, D0 [, D1 ...] [, pitch BYTES] [, kpairs]" },
    { ".error", d_error, 0, -1, ANY, "" },
    { ".assert", d_error, 0, -1, ANY, "" },
    { ".include", d_include, 0, -1, ANY, "\"FILE\"" },
    { ".rept", NULL, 1, 1, ANY, "COUNT" },
    { ".endr", NULL, 0, 0, ANY, "" },
    { ".macro", NULL, 1, -1, ANY, "NAME [PARAM[=DEFAULT|:req], ...]" },
    { ".endm", NULL, 0, 0, ANY, "" },
    { ".exitm", NULL, 0, 0, ANY, "" },
};
#define NDIRECTIVES (sizeof directives / sizeof directives[0])

static uint8_t cur_space(const asm_ctx *a)
{
    return a->section == SEC_HBM ? TPU_SPACE_HBM : TPU_SPACE_VMEM;
}

/* The executed line, for the listing. */
static void list_data(asm_ctx *a, uint64_t addr, uint64_t n)
{
    const char *s;
    int len;
    char what[32];
    asm_line_text(a, &s, &len);
    snprintf(what, sizeof what, "%llu bytes", (unsigned long long)n);
    asm_listing(a, "%-4s 0x%08llx  %-16s  %.*s\n", asm_space_name(cur_space(a)),
                (unsigned long long)addr, what, len, s);
}

/* A constant (no forward reference) operand. */
static int const_operand(dctx *d, int k, asm_val *v)
{
    return asm_expr_operand(d->a, d->st[k], d->en[k], 0, v);
}

static void d_text(dctx *d)
{
    asm_data_origin(d->a, SEC_TEXT, 0);
}

static void d_origin(dctx *d)
{
    asm_ctx *a = d->a;
    int sec = asm_tok_is(d->dir, ".hbm") ? SEC_HBM : SEC_VMEM;
    uint64_t size = sec == SEC_HBM ? a->hbm_size : a->vmem_size;
    asm_val v;
    if (const_operand(d, 0, &v))
        v.v = 0;
    else if (v.v < 0) {
        asm_error(a, a->toks[d->st[0]].col, "address %lld is negative", (long long)v.v);
        v.v = 0;
    } else if ((uint64_t)v.v > size) {
        asm_error(a, a->toks[d->st[0]].col, "address 0x%llx is outside %s (0x%llx bytes)",
                  (unsigned long long)v.v, sec == SEC_HBM ? "hbm" : "vmem",
                  (unsigned long long)size);
    }
    asm_data_origin(a, sec, (uint64_t)v.v);
}

/* .equ NAME, EXPR (once) and .set NAME, EXPR (again and again). */
static void d_equ(dctx *d)
{
    asm_ctx *a = d->a;
    char b[ASM_CLIP_BUF], pl[ASM_PLACE_BUF];
    int is_set = asm_tok_is(d->dir, ".set");
    const asm_tok *t = &a->toks[d->st[0]];
    if (d->en[0] != d->st[0] + 1 || t->type != T_IDENT) {
        asm_error(a, t->col, "'%s' needs a name, got '%s'", d->name, asm_tok_text(t, b, sizeof b));
        return;
    }
    if (asm_is_reserved(t->s, t->len)) {
        asm_error(a, t->col, "'%s' is a reserved name", asm_tok_text(t, b, sizeof b));
        return;
    }
    asm_sym *s = asm_sym_find(a, t->s, t->len);
    if (s && s->kind == SYM_CMDLINE) {
        if (is_set)
            asm_error(a, t->col, "'%s' is defined on the command line and cannot be changed "
                      "with .set", asm_tok_text(t, b, sizeof b));
        return;                             /* .equ: the command line wins */
    }
    asm_val v;
    if (const_operand(d, 1, &v))
        v.v = 0, v.space = 0;
    if (s && (s->defined || s->kind == SYM_LABEL)) {
        if (is_set && s->kind == SYM_SET && s->defined) {
            s->value = v.v;
            s->space = v.space;
            return;
        }
        if (is_set && s->kind == SYM_EQU)
            asm_error(a, t->col, "'%s' was defined with .equ at %s and cannot be changed",
                      asm_tok_text(t, b, sizeof b), asm_place(a, s->line, s->col, pl, sizeof pl));
        else
            asm_error(a, t->col, "'%s' is already defined at %s", asm_tok_text(t, b, sizeof b),
                      asm_place(a, s->line, s->col, pl, sizeof pl));
        return;
    }
    if (!s && !(s = asm_sym_add(a, t->s, t->len)))
        return;
    s->kind = is_set ? SYM_SET : SYM_EQU;
    s->value = v.v;
    s->space = v.space;
    s->defined = 1;
    s->line = a->lineno;
    s->col = t->col;
}

/* .i8 .i16 .i32 .i64: little-endian integers, each in the signed or the
 * unsigned range of its width. */
static void d_int(dctx *d)
{
    asm_ctx *a = d->a;
    unsigned w = (unsigned)atoi(d->name + 2) / 8;
    uint64_t addr = a->pos;
    uint8_t *buf;
    if (asm_data_reserve(a, (uint64_t)d->n * w, d->dir->col, &buf) || !buf)
        return;
    int64_t lo = w == 8 ? INT64_MIN : -((int64_t)1 << (8 * w - 1));
    int64_t hi = w == 8 ? INT64_MAX : ((int64_t)1 << (8 * w)) - 1;
    for (int k = 0; k < d->n; k++) {
        asm_val v;
        if (asm_expr_operand(a, d->st[k], d->en[k], EXPR_FORWARD, &v))
            continue;
        if (v.v < lo || v.v > hi) {
            asm_error(a, a->toks[d->st[k]].col, "value %lld out of range for %s: %lld..%lld",
                      (long long)v.v, d->name, (long long)lo, (long long)hi);
            continue;
        }
        for (unsigned j = 0; j < w; j++)
            buf[(size_t)k * w + j] = (uint8_t)((uint64_t)v.v >> (8 * j));
    }
    list_data(a, addr, (uint64_t)d->n * w);
}

static void d_float(dctx *d)
{
    asm_ctx *a = d->a;
    enum fmt f = asm_tok_is(d->dir, ".f32") ? FMT_F32 : FMT_BF16;
    unsigned w = f == FMT_F32 ? 4 : 2;
    uint64_t addr = a->pos;
    uint8_t *buf;
    if (asm_data_reserve(a, (uint64_t)d->n * w, d->dir->col, &buf) || !buf)
        return;
    for (int k = 0; k < d->n; k++) {
        uint32_t bits;
        if (asm_float_operand(a, d->st[k], d->en[k], f, &bits))
            continue;
        for (unsigned j = 0; j < w; j++)
            buf[(size_t)k * w + j] = (uint8_t)(bits >> (8 * j));
    }
    list_data(a, addr, (uint64_t)d->n * w);
}

/* A non-negative size operand, worked out in both passes. */
static int size_operand(dctx *d, int k, const char *what, uint64_t *out)
{
    asm_val v;
    if (const_operand(d, k, &v))
        return -1;
    if (v.v < 0) {
        asm_error(d->a, d->a->toks[d->st[k]].col, "'%s' %s %lld is negative", d->name, what,
                  (long long)v.v);
        return -1;
    }
    *out = (uint64_t)v.v;
    return 0;
}

static void d_zero(dctx *d)
{
    uint64_t n, addr = d->a->pos;
    if (size_operand(d, 0, "size", &n)) {
        asm_data_close(d->a);
        return;
    }
    if (asm_data_fill(d->a, TPU_FILL_ZERO, n, 0, 0, 0, d->dir->col) == 0 && n)
        list_data(d->a, addr, n);
}

/* Order of finite fp32 bit patterns as numbers (-0 = +0). */
static int64_t f32_key(uint32_t b)
{
    if ((b & 0x7fffffffu) == 0)
        return 0;
    return (b & 0x80000000u) ? -(int64_t)(b & 0x7fffffffu) : (int64_t)b;
}

static void d_random(dctx *d)
{
    asm_ctx *a = d->a;
    char b[ASM_CLIP_BUF];
    uint64_t count, addr = a->pos;
    const asm_tok *t = &a->toks[d->st[0]];
    uint8_t kind = 0;
    if (d->n == 4) {
        asm_error(a, d->dir->col, "'.random' takes 3 or 5 operands (%s), got 4",
                  "bf16|f32|i8, COUNT, SEED [, LO, HI]");
        asm_data_close(a);
        return;
    }
    if (d->en[0] == d->st[0] + 1 && asm_tok_is(t, "bf16"))
        kind = TPU_FILL_RANDOM_BF16;
    else if (d->en[0] == d->st[0] + 1 && asm_tok_is(t, "f32"))
        kind = TPU_FILL_RANDOM_F32;
    else if (d->en[0] == d->st[0] + 1 && asm_tok_is(t, "i8"))
        kind = TPU_FILL_RANDOM_I8;
    else {
        asm_error(a, t->col, "'.random' element type must be bf16, f32 or i8, got '%s'",
                  asm_tok_text(t, b, sizeof b));
        asm_data_close(a);
        return;
    }
    if (size_operand(d, 1, "count", &count)) {
        asm_data_close(a);
        return;
    }
    unsigned el = kind == TPU_FILL_RANDOM_BF16 ? 2 : kind == TPU_FILL_RANDOM_I8 ? 1 : 4;
    uint64_t size = count > UINT64_MAX / el ? UINT64_MAX : count * el;
    asm_val seed = { 0, 0 };
    uint32_t lo = 0xbf800000u, hi = 0x3f800000u;          /* -1.0, 1.0 */
    if (kind == TPU_FILL_RANDOM_I8)
        lo = 0xc3000000u, hi = 0x43000000u;               /* -128, 128: every int8 */
    if (a->pass == 2) {
        if (asm_expr_operand(a, d->st[2], d->en[2], 0, &seed))
            seed.v = 0;
        if (d->n == 5 && asm_float_operand(a, d->st[3], d->en[3], FMT_F32, &lo) == 0 &&
            asm_float_operand(a, d->st[4], d->en[4], FMT_F32, &hi) == 0) {
            int finite = (lo & 0x7f800000u) != 0x7f800000u && (hi & 0x7f800000u) != 0x7f800000u;
            if (!finite || f32_key(lo) >= f32_key(hi))
                asm_error(a, a->toks[d->st[3]].col,
                          "'.random' range [LO, HI) must be finite and not empty");
            else if (kind == TPU_FILL_RANDOM_I8) {
                float fl, fh;
                memcpy(&fl, &lo, 4);
                memcpy(&fh, &hi, 4);
                if (fl != (float)(int)fl || fh != (float)(int)fh || fl < -128 || fh > 128)
                    asm_error(a, a->toks[d->st[3]].col, "'.random i8' range [LO, HI) must be "
                              "integers with -128 <= LO < HI <= 128");
            }
        }
    }
    if (asm_data_fill(a, kind, size, (uint64_t)seed.v, lo, hi, d->dir->col) == 0 && size)
        list_data(a, addr, size);
}

static void d_align(dctx *d)
{
    asm_ctx *a = d->a;
    uint64_t n, addr = a->pos;
    if (size_operand(d, 0, "alignment", &n)) {
        asm_data_close(a);
        return;
    }
    if (n == 0 || (n & (n - 1)) || n > (1ull << 40)) {
        asm_error(a, a->toks[d->st[0]].col, "'.align' %llu is not a power of two up to 2^40",
                  (unsigned long long)n);
        asm_data_close(a);
        return;
    }
    uint64_t pad = (0 - a->pos) & (n - 1);
    if (asm_data_fill(a, TPU_FILL_ZERO, pad, 0, 0, 0, d->dir->col) == 0 && pad)
        list_data(a, addr, pad);
}

static void d_insn(dctx *d)
{
    size_t i = (size_t)(d->dir - d->a->toks);
    asm_insn_raw(d->a, i, d->st[0], d->en[0]);
}

/* .target MXU_N, NUM_MXU, SUBLANES, LANES: the machine shape (CONFIG). */
static void d_target(dctx *d)
{
    asm_ctx *a = d->a;
    static const struct { const char *name; uint64_t lo, hi; } keys[4] = {
        { "MXU_N", 2, 256 }, { "NUM_MXU", 1, 4 }, { "SUBLANES", 1, 64 }, { "LANES", 1, 1024 },
    };
    uint32_t val[4];
    if (a->pass != 2)
        return;
    for (int k = 0; k < 4; k++) {
        asm_val v;
        if (const_operand(d, k, &v))
            return;
        if (v.v != 0 && (v.v < (int64_t)keys[k].lo || v.v > (int64_t)keys[k].hi)) {
            asm_error(a, a->toks[d->st[k]].col, "%s %lld out of range: %llu..%llu (or 0 for any)",
                      keys[k].name, (long long)v.v, (unsigned long long)keys[k].lo,
                      (unsigned long long)keys[k].hi);
            return;
        }
        val[k] = (uint32_t)v.v;
    }
    tpu_obj_config *c = &a->obj->config;
    tpu_obj_config want = { val[0], val[1], val[2], val[3] };
    if (a->opt->config) {                   /* 0 matches any; CONFIG stays --config's */
        if (!tpu_obj_config_matches(&want, a->opt->config)) {
            int k = tpu_obj_config_preset(&want, 0, NULL);
            char fix[64];
            if (k >= 0)
                snprintf(fix, sizeof fix, "assemble with --config %s", tpu_config_presets[k].name);
            else
                snprintf(fix, sizeof fix, "assemble without --config");
            asm_error(a, d->dir->col, "'.target %u, %u, %u, %u' does not match --config "
                      "(%u, %u, %u, %u): %s", val[0], val[1], val[2], val[3], c->mxu_n,
                      c->num_mxu, c->vpu_sublanes, c->vpu_lanes, fix);
        }
        return;
    }
    int same = c->mxu_n == val[0] && c->num_mxu == val[1] && c->vpu_sublanes == val[2] &&
               c->vpu_lanes == val[3];
    if (a->have_target && !same) {
        char pl[ASM_PLACE_BUF];
        asm_error(a, d->dir->col, "'.target' differs from the one at %s",
                  asm_place(a, a->target_line, a->target_col, pl, sizeof pl));
        return;
    }
    if (!a->have_target) {
        a->have_target = 1;
        a->target_line = a->lineno;
        a->target_col = d->dir->col;
    }
    c->mxu_n = val[0], c->num_mxu = val[1], c->vpu_sublanes = val[2], c->vpu_lanes = val[3];
}

/* .expect OP[@CORE] OPERANDS (pass 2 only; forward references allowed). */
static void d_expect(dctx *d)
{
    asm_ctx *a = d->a;
    char b[ASM_CLIP_BUF];
    static const char *const addr_ops[TPU_EXPECT_OP_COUNT] = {
        [TPU_EXPECT_MATMUL] = "Y, X, W, B, D, F", [TPU_EXPECT_ADD] = "Z, X, Y, N",
        [TPU_EXPECT_SUB] = "Z, X, Y, N", [TPU_EXPECT_MUL] = "Z, X, Y, N",
        [TPU_EXPECT_MAX] = "Z, X, Y, N", [TPU_EXPECT_MIN] = "Z, X, Y, N",
        [TPU_EXPECT_RELU] = "Z, X, N", [TPU_EXPECT_COPY] = "DST, SRC, NBYTES",
        [TPU_EXPECT_F32] = "ADDR, F, ...", [TPU_EXPECT_SUM] = "Z, X, STRIDE, K, N",
        [TPU_EXPECT_MATMUL_I8] = "Y, X, W, B, D, F", [TPU_EXPECT_MATMUL_W8] = "Y, X, W, B, D, F",
        [TPU_EXPECT_MATMUL_W8S] = "Y, X, W, S, B, D, F", [TPU_EXPECT_ADD_RELU] = "Z, X, Y, N",
        [TPU_EXPECT_MATMUL_EPI] = "Y, X, W, BIAS, B, D, F, FLAGS",
        [TPU_EXPECT_CONV2D] = "Y, X, W, BIAS, NB, H, W, C, F, R, S, STRIDE, PAD, GROUPS, FLAGS",
        [TPU_EXPECT_POOL] = "Y, X, NB, H, W, C, R, S, STRIDE, PAD, MODE",
        [TPU_EXPECT_SOFTMAX] = "Z, X, N, C", [TPU_EXPECT_SOFTMAX_S] = "Z, X, N, C, SCALE, FLAGS",
        [TPU_EXPECT_LAYERNORM] = "Z, X, G, B, N, C, EPS, FLAGS",
        [TPU_EXPECT_RMSNORM] = "Z, X, G, N, C, EPS, FLAGS",
        [TPU_EXPECT_GELU] = "Z, X, N, FLAGS", [TPU_EXPECT_SILU] = "Z, X, N, FLAGS",
        [TPU_EXPECT_RESIDUAL] = "Z, X, Y, N, FLAGS",
    };
    static const uint8_t naddr[TPU_EXPECT_OP_COUNT] = {
        [TPU_EXPECT_MATMUL] = 3, [TPU_EXPECT_ADD] = 3, [TPU_EXPECT_SUB] = 3,
        [TPU_EXPECT_MUL] = 3, [TPU_EXPECT_MAX] = 3, [TPU_EXPECT_MIN] = 3,
        [TPU_EXPECT_RELU] = 2, [TPU_EXPECT_COPY] = 2, [TPU_EXPECT_F32] = 1,
        [TPU_EXPECT_SUM] = 2, [TPU_EXPECT_MATMUL_I8] = 3, [TPU_EXPECT_MATMUL_W8] = 3,
        [TPU_EXPECT_MATMUL_W8S] = 4, [TPU_EXPECT_ADD_RELU] = 3,
        [TPU_EXPECT_MATMUL_EPI] = 4, [TPU_EXPECT_CONV2D] = 4, [TPU_EXPECT_POOL] = 2,
        [TPU_EXPECT_SOFTMAX] = 2, [TPU_EXPECT_SOFTMAX_S] = 2, [TPU_EXPECT_LAYERNORM] = 4,
        [TPU_EXPECT_RMSNORM] = 3, [TPU_EXPECT_GELU] = 2, [TPU_EXPECT_SILU] = 2,
        [TPU_EXPECT_RESIDUAL] = 3,
    };
    static const uint8_t nops[TPU_EXPECT_OP_COUNT] = {
        [TPU_EXPECT_MATMUL] = 6, [TPU_EXPECT_ADD] = 4, [TPU_EXPECT_SUB] = 4,
        [TPU_EXPECT_MUL] = 4, [TPU_EXPECT_MAX] = 4, [TPU_EXPECT_MIN] = 4,
        [TPU_EXPECT_RELU] = 3, [TPU_EXPECT_COPY] = 3, [TPU_EXPECT_F32] = 0,
        [TPU_EXPECT_SUM] = 5, [TPU_EXPECT_MATMUL_I8] = 6, [TPU_EXPECT_MATMUL_W8] = 6,
        [TPU_EXPECT_MATMUL_W8S] = 7, [TPU_EXPECT_ADD_RELU] = 4,
        [TPU_EXPECT_MATMUL_EPI] = 8, [TPU_EXPECT_CONV2D] = 15, [TPU_EXPECT_POOL] = 11,
        [TPU_EXPECT_SOFTMAX] = 4, [TPU_EXPECT_SOFTMAX_S] = 6, [TPU_EXPECT_LAYERNORM] = 8,
        [TPU_EXPECT_RMSNORM] = 7, [TPU_EXPECT_GELU] = 4, [TPU_EXPECT_SILU] = 4,
        [TPU_EXPECT_RESIDUAL] = 5,
    };
    if (a->pass != 2)
        return;
    if (a->obj->nexpects >= TPU_ASM_MAX_EXPECTS) {
        asm_error(a, d->dir->col, "too many .expect checks (at most %u)", TPU_ASM_MAX_EXPECTS);
        return;
    }
    size_t i = (size_t)(d->dir - a->toks) + 1;
    const asm_tok *t = &a->toks[i];
    unsigned op = 0;
    if (t->type == T_IDENT)
        for (unsigned k = 1; k < TPU_EXPECT_OP_COUNT; k++) {
            const char *name = tpu_expect_op_name(k);
            if (name && asm_tok_is(t, name))
                op = k;
        }
    if (!op) {
        asm_error(a, t->col, "unknown check '%s' after '.expect' (expected matmul, matmul_i8, "
                  "matmul_w8, matmul_w8s, matmul_epi, conv2d, pool, add, sub, mul, max, min, relu, "
                  "add_relu, softmax, softmax_s, layernorm, rmsnorm, gelu, silu, residual, copy, f32 or sum)", asm_tok_text(t, b, sizeof b));
        return;
    }
    const char *opname = tpu_expect_op_name(op);
    tpu_obj_expect *e = calloc(1, sizeof *e);
    if (!e) {
        asm_oom(a);
        return;
    }
    e->op = op;
    e->core = -1;
    e->line = a->lineno;
    i++;
    if (a->toks[i].type == T_AT) {
        asm_val v;
        const asm_tok *ct = &a->toks[i + 1];
        i++;
        if (asm_expr(a, &i, 0, &v))
            goto out;
        if (v.v < 0 || v.v > INT32_MAX) {
            asm_error(a, ct->col, "core %lld out of range: 0..%d", (long long)v.v, INT32_MAX);
            goto out;
        }
        e->core = (int32_t)v.v;
    }
    size_t st[TPU_OBJ_MAX_EXPECT_OPS], en[TPU_OBJ_MAX_EXPECT_OPS];
    int n = asm_split_operands(a, i, st, en, TPU_OBJ_MAX_EXPECT_OPS);
    if (n < 0)
        goto out;
    if (op == TPU_EXPECT_F32 ? (n < 2 || n > TPU_OBJ_MAX_EXPECT_OPS) : n != nops[op]) {
        if (op == TPU_EXPECT_F32)
            asm_error(a, d->dir->col, "'.expect f32' takes an address and 1 to %d values "
                      "(%s), got %d operand%s", TPU_OBJ_MAX_EXPECT_OPS - 1, addr_ops[op], n,
                      n == 1 ? "" : "s");
        else
            asm_error(a, d->dir->col, "'.expect %s' takes %u operands (%s), got %d", opname,
                      nops[op], addr_ops[op], n);
        goto out;
    }
    int bad = 0;
    for (int k = 0; k < n; k++) {
        asm_val v = { 0, 0 };
        const asm_tok *ot = &a->toks[st[k]];
        if (op == TPU_EXPECT_F32 && k >= 1) {
            uint32_t bits;
            if (asm_float_operand(a, st[k], en[k], FMT_F32, &bits)) {
                bad = 1;
                continue;
            }
            v.v = bits;
        } else if (asm_expr_operand(a, st[k], en[k], EXPR_FORWARD, &v)) {
            bad = 1;
            continue;
        } else if (k < naddr[op]) {
            if (v.space != TPU_SPACE_HBM && v.space != TPU_SPACE_VMEM) {
                asm_error(a, ot->col, "operand %d of '.expect %s' must be an hbm or vmem "
                          "address (a data label, hbm(ADDR) or vmem(ADDR))", k + 1, opname);
                bad = 1;
                continue;
            }
            if (v.v < 0) {
                asm_error(a, ot->col, "address %lld is negative", (long long)v.v);
                bad = 1;
                continue;
            }
        } else if (v.v < 0) {
            asm_error(a, ot->col, "operand %d of '.expect %s' is negative (%lld)", k + 1, opname,
                      (long long)v.v);
            bad = 1;
            continue;
        } else {
            v.space = TPU_SPACE_NONE;
        }
        e->ops[k].space = v.space;
        e->ops[k].value = (uint64_t)v.v;
    }
    e->nops = (uint32_t)n;
    if (!bad && !a->fatal && tpu_obj_add_expect(a->obj, e))
        asm_oom(a);
out:
    free(e);
}

/* .array NAME, TYPE, D0 [, D1 ...] [, pitch BYTES] [, kpairs] (pass 2 only):
 * the element type and shape of the array at data label NAME (an ARRAY
 * record; docs/assembler.md).  The dims and the pitch are constant
 * expressions; NAME may be defined further down. */
static void d_array(dctx *d)
{
    asm_ctx *a = d->a;
    char b[ASM_CLIP_BUF];
    if (a->pass != 2)
        return;
    const asm_tok *nt = &a->toks[d->st[0]], *tt = &a->toks[d->st[1]];
    if (d->en[0] != d->st[0] + 1 || nt->type != T_IDENT) {
        asm_error(a, nt->col, "'.array' needs a data label, got '%s'", asm_tok_text(nt, b, sizeof b));
        return;
    }
    asm_sym *s = asm_sym_find(a, nt->s, nt->len);
    if (!s || s->kind != SYM_LABEL || !(s->known || s->defined)) {
        asm_error(a, nt->col, "'%s' is not a label: '.array' describes the data at a label",
                  asm_tok_text(nt, b, sizeof b));
        return;
    }
    if (s->space != TPU_SPACE_HBM && s->space != TPU_SPACE_VMEM) {
        asm_error(a, nt->col, "'%s' is a code label: '.array' describes the data at a .hbm or "
                  ".vmem label", asm_tok_text(nt, b, sizeof b));
        return;
    }
    tpu_obj_array arr = { 0 };
    for (unsigned k = 1; k <= 4; k++)
        if (d->en[1] == d->st[1] + 1 && asm_tok_is(tt, tpu_array_type_name(k)))
            arr.type = (uint8_t)k;
    if (!arr.type) {
        asm_error(a, tt->col, "'.array' element type must be bf16, f32, i8 or i32, got '%s'",
                  asm_tok_text(tt, b, sizeof b));
        return;
    }
    int have_pitch = 0;
    for (int k = 2; k < d->n; k++) {
        const asm_tok *ot = &a->toks[d->st[k]];
        size_t st = d->st[k];
        if (ot->type == T_IDENT && asm_tok_is(ot, "kpairs") && d->en[k] == st + 1) {
            if (k != d->n - 1) {
                asm_error(a, ot->col, "'kpairs' comes last in '.array'");
                return;
            }
            arr.layout = TPU_ARRAY_KPAIRS;
            continue;
        }
        int is_pitch = ot->type == T_IDENT && asm_tok_is(ot, "pitch") && d->en[k] > st + 1;
        if (is_pitch) {
            if (have_pitch) {
                asm_error(a, ot->col, "a second 'pitch' in '.array'");
                return;
            }
            have_pitch = 1;
            st++;
        } else if (have_pitch) {
            asm_error(a, ot->col, "the dimensions come before 'pitch' in '.array'");
            return;
        }
        asm_val v;
        if (asm_expr_operand(a, st, d->en[k], 0, &v))
            return;
        if (is_pitch) {
            if (v.v < 0) {
                asm_error(a, a->toks[st].col, "'.array' pitch %lld is negative", (long long)v.v);
                return;
            }
            arr.pitch = (uint64_t)v.v;
            continue;
        }
        if (arr.ndim == TPU_OBJ_MAX_ARRAY_DIMS) {
            asm_error(a, ot->col, "'.array' takes at most %d dimensions",
                      TPU_OBJ_MAX_ARRAY_DIMS);
            return;
        }
        if (v.v < 1) {
            asm_error(a, ot->col, "'.array' dimension %lld must be at least 1", (long long)v.v);
            return;
        }
        arr.dims[arr.ndim++] = (uint64_t)v.v;
    }
    if (arr.ndim == 0) {
        asm_error(a, d->dir->col, "'.array' needs at least one dimension");
        return;
    }
    if (arr.layout == TPU_ARRAY_KPAIRS && (arr.type != TPU_ARRAY_I8 || arr.ndim != 2)) {
        asm_error(a, d->dir->col, "'kpairs' is the layout of a 2-D i8 array [K, N] "
                  "(mxu.lw.i8's K-pair-interleaved weights)");
        return;
    }
    uint64_t row = tpu_array_row_bytes(&arr), count = tpu_array_count(&arr);
    if (!row || !count || count > UINT64_MAX / tpu_array_esize(arr.type)) {
        asm_error(a, d->dir->col, "'.array %s' is too large", asm_tok_text(nt, b, sizeof b));
        return;
    }
    if (!have_pitch)
        arr.pitch = row;
    else if (arr.pitch < row) {
        asm_error(a, d->dir->col, "'.array' pitch %llu is less than a row's %llu bytes",
                  (unsigned long long)arr.pitch, (unsigned long long)row);
        return;
    }
    uint64_t ext = tpu_array_extent(&arr);
    uint64_t size = s->space == TPU_SPACE_HBM ? a->hbm_size : a->vmem_size;
    if (!ext || (uint64_t)s->value > size || ext > size - (uint64_t)s->value) {
        asm_error(a, d->dir->col, "'.array %s' (%s 0x%llx, %llu bytes) is outside %s (0x%llx "
                  "bytes)", asm_tok_text(nt, b, sizeof b), asm_space_name(s->space),
                  (unsigned long long)s->value, (unsigned long long)ext,
                  asm_space_name(s->space), (unsigned long long)size);
        return;
    }
    char name[TPU_OBJ_MAX_NAME + 1];
    if (nt->len > TPU_OBJ_MAX_NAME) {
        asm_error(a, nt->col, "'.array' label name is longer than %d bytes", TPU_OBJ_MAX_NAME);
        return;
    }
    memcpy(name, nt->s, nt->len);
    name[nt->len] = 0;
    if (tpu_obj_find_array(a->obj, name)) {
        asm_error(a, nt->col, "a second '.array %s' (one per label)", name);
        return;
    }
    arr.name = name;
    if (!a->fatal && tpu_obj_add_array(a->obj, &arr))
        asm_oom(a);
}

/* Stop the assembly at a failed .error or .assert.  Pass 1 stops quietly
 * (asm_run.c then runs pass 2 up to here, where the same check fails
 * again); pass 2 reports msg (NULL: its error is already reported). */
static void stop_here(dctx *d, const char *msg)
{
    asm_ctx *a = d->a;
    if (a->pass == 1)
        a->halted = 1;
    else if (msg)
        asm_fatal_at(a, a->lineno, d->dir->col, "%s", msg);
    else
        a->fatal = 1;
}

/* .error "MESSAGE" [, VALUE...] and .assert EXPR [, "MESSAGE" [, VALUE...]]:
 * report MESSAGE (for .assert only when EXPR is 0) and stop the assembly
 * there, so that what follows cannot add errors that are only its
 * consequences.  In MESSAGE, %d and %x print the next VALUE (decimal, and
 * hex as 0x...), %% a '%'.  EXPR and the VALUEs may use only what is
 * defined above, so both passes decide alike. */
static void d_error(dctx *d)
{
    asm_ctx *a = d->a;
    char b[ASM_CLIP_BUF], text[400], msg[480];
    int is_assert = asm_tok_is(d->dir, ".assert");
    int k = is_assert ? 1 : 0, failed = !is_assert;
    if (d->n < 1) {
        asm_error(a, d->dir->col, is_assert
                  ? "'.assert' needs a condition: .assert EXPR [, \"MESSAGE\" [, VALUE...]]"
                  : "'.error' needs a message: .error \"MESSAGE\" [, VALUE...]");
        return;
    }
    if (is_assert) {
        asm_val c;
        if (const_operand(d, 0, &c))
            return;
        failed = c.v == 0;
    }
    if (failed && a->pass == 1) {
        stop_here(d, NULL);
        return;
    }
    if (k == d->n) {                        /* .assert EXPR */
        const asm_tok *first = &a->toks[d->st[0]], *last = &a->toks[d->en[0] - 1];
        char e[200];
        snprintf(msg, sizeof msg, "assertion failed: %s",
                 asm_clip(e, sizeof e, first->s, (size_t)(last->s + last->len - first->s)));
        if (failed)
            stop_here(d, msg);
        return;
    }
    const asm_tok *m = &a->toks[d->st[k]];
    if (d->en[k] != d->st[k] + 1 || m->type != T_STRING) {
        asm_error(a, m->col, "the message of '%s' must be a string (\"...\"), got '%s'",
                  d->name, asm_tok_text(m, b, sizeof b));
        if (failed)
            stop_here(d, NULL);
        return;
    }
    k++;
    asm_string_text(m, text, sizeof text);
    int conv = 0;
    for (const char *p = text; *p; p++) {
        if (*p != '%')
            continue;
        if (p[1] == 'd' || p[1] == 'x') {
            conv++;
        } else if (p[1] != '%') {
            asm_error(a, m->col, "'%%%.1s' in the message of '%s': only %%d, %%x and %%%% are "
                      "allowed", p + 1, d->name);
            if (failed)
                stop_here(d, NULL);
            return;
        }
        p++;
    }
    if (conv != d->n - k) {
        asm_error(a, d->dir->col, "the message of '%s' prints %d value%s (%%d, %%x), got %d",
                  d->name, conv, conv == 1 ? "" : "s", d->n - k);
        if (failed)
            stop_here(d, NULL);
        return;
    }
    if (!failed)
        return;
    size_t n = 0;
    for (const char *p = text; *p && n + 1 < sizeof msg; p++) {
        if (*p != '%') {
            msg[n++] = *p;
            continue;
        }
        p++;
        if (*p == '%') {
            msg[n++] = '%';
            continue;
        }
        asm_val v;
        if (const_operand(d, k++, &v)) {
            stop_here(d, NULL);
            return;
        }
        uint64_t mag = v.v < 0 ? 0 - (uint64_t)v.v : (uint64_t)v.v;
        int w = *p == 'd' ? snprintf(msg + n, sizeof msg - n, "%lld", (long long)v.v)
                          : snprintf(msg + n, sizeof msg - n, "%s0x%llx", v.v < 0 ? "-" : "",
                                     (unsigned long long)mag);
        n += w > 0 ? (size_t)w : 0;
        if (n >= sizeof msg)
            n = sizeof msg - 1;
    }
    msg[n] = '\0';
    stop_here(d, msg);
}

/* A `.include` alone on its line was replaced by its file before the
 * passes (asm_include.c); one that gets here has a label in front. */
static void d_include(dctx *d)
{
    asm_error(d->a, d->dir->col, "'.include' must be alone on its line (put the label on a "
              "line of its own)");
}

static void unknown_directive(asm_ctx *a, const asm_tok *t)
{
    char b[ASM_CLIP_BUF];
    const char *best = NULL;
    for (size_t k = 0; k < NDIRECTIVES && !best; k++) {
        const char *n = directives[k].name;
        size_t len = strlen(n);
        /* one letter wrong, missing or extra */
        if (t->len + 1 >= len && t->len <= len + 1) {
            size_t p = 0;
            while (p < t->len && p < len && t->s[p] == n[p])
                p++;
            size_t ta = t->len, na = len;
            while (ta > p && na > p && t->s[ta - 1] == n[na - 1])
                ta--, na--;
            if (ta - p <= 1 && na - p <= 1)
                best = n;
        }
    }
    if (best)
        asm_error(a, t->col, "unknown directive '%s'; did you mean '%s'?",
                  asm_tok_text(t, b, sizeof b), best);
    else
        asm_error(a, t->col, "unknown directive '%s'", asm_tok_text(t, b, sizeof b));
}

/* Make room for one start/end pair per token. */
static int operand_arrays(asm_ctx *a, size_t **st, size_t **en)
{
    if (a->opcap < a->ntoks) {
        size_t *s = realloc(a->opst, a->ntoks * sizeof *s);
        if (!s) {
            asm_oom(a);
            return -1;
        }
        a->opst = s;
        size_t *e = realloc(a->opend, a->ntoks * sizeof *e);
        if (!e) {
            asm_oom(a);
            return -1;
        }
        a->opend = e;
        a->opcap = a->ntoks;
    }
    *st = a->opst;
    *en = a->opend;
    return 0;
}

void asm_directive(asm_ctx *a, size_t i)
{
    const asm_tok *t = &a->toks[i];
    const struct directive *dir = NULL;
    for (size_t k = 0; k < NDIRECTIVES; k++)
        if (asm_tok_is(t, directives[k].name))
            dir = &directives[k];
    if (!dir || !dir->fn) {
        unknown_directive(a, t);
        return;
    }
    const char *name = dir->name;
    if (dir->where == DATA && a->section == SEC_TEXT) {
        asm_error(a, t->col, "'%s' is not allowed in .text (data goes in a .hbm or .vmem "
                  "section)", name);
        return;
    }
    dctx d = { a, t, dir->name, 0, NULL, NULL };
    if (dir->fn == d_expect) {
        d_expect(&d);
        return;
    }
    if (operand_arrays(a, &d.st, &d.en))
        return;
    d.n = asm_split_operands(a, i + 1, d.st, d.en, a->ntoks);
    if (d.n < 0) {
        if (dir->where == DATA)
            asm_data_close(a);
        return;
    }
    if (d.n < dir->min || (dir->max >= 0 && d.n > dir->max)) {
        if (dir->max < 0)
            asm_error(a, t->col, "'%s' needs at least one value", name);
        else if (dir->max == 0)
            asm_error(a, t->col, "'%s' takes no operands, got %d", name, d.n);
        else if (dir->min == dir->max)
            asm_error(a, t->col, "'%s' takes %d operand%s (%s), got %d", name, dir->min,
                      dir->min == 1 ? "" : "s", dir->usage, d.n);
        else
            asm_error(a, t->col, "'%s' takes %d to %d operands (%s), got %d", name, dir->min,
                      dir->max, dir->usage, d.n);
        if (dir->where == DATA)
            asm_data_close(a);
        return;
    }
    dir->fn(&d);
}
