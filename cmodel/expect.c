/*
 * expect.c - check `.expect` records (expect.h) against reference results.
 *
 * For each record: validate its operands (addresses in HBM or VMEM, the
 * regions inside the memory and not absurdly large), read the inputs from
 * the object's initial data, compute the reference with ref.c, read the
 * outputs through the target's callback and compare bit for bit, block by
 * block so that memory use stays small (a matmul holds W and a block of
 * rows).  The first differing element ends the check with a message
 * naming the operation, the output, the element and both values.
 */
#include "expect.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fp.h"
#include "hostmem.h"
#include "ref.h"
#include "ref_nn.h"

#define DEFAULT_BLOCK_BYTES (4u << 20)   /* work in blocks of about this many output bytes */

/* One check in progress: which record, on which core, and where to report. */
typedef struct checker {
    const tpu_object *obj;
    const tpu_expect_target *t;
    tpu_expect_result *res;
    size_t index;                /* 1-based record number, for messages */
    const tpu_obj_expect *e;
    unsigned core;
} checker;

static size_t block_bytes(const checker *k)
{
    return k->t->block_bytes ? k->t->block_bytes : DEFAULT_BLOCK_BYTES;
}

static const char *op_name(const tpu_obj_expect *e)
{
    const char *n = tpu_expect_op_name(e->op);
    return n ? n : "?";
}

/* Record an error that stops the checks: ".expect #2 (matmul): why". */
static int check_error(checker *k, const char *fmt, ...)
{
    char why[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    k->res->status = TPU_EXPECT_ERROR;
    snprintf(k->res->message, sizeof k->res->message, ".expect #%zu (%s): %s", k->index,
             op_name(k->e), why);
    return -1;
}

static const char *space_name(unsigned space)
{
    return space == TPU_SPACE_HBM ? "hbm" : space == TPU_SPACE_VMEM ? "vmem" : "?";
}

/* "MISMATCH [on core 1 ]in add Z (vmem 0x100) at [7]: expected 0x.. (v), got 0x.. (v)" */
static int mismatch_f32(checker *k, const char *operand, const tpu_obj_expect_operand *where,
                        const char *at, uint32_t want, uint32_t got)
{
    char on_core[32] = "";
    if (k->t->ncores > 1)
        snprintf(on_core, sizeof on_core, "on core %u ", k->core);
    k->res->status = TPU_EXPECT_MISMATCH;
    snprintf(k->res->message, sizeof k->res->message,
             "MISMATCH %sin %s %s (%s 0x%llx) at %s: expected 0x%08x (%.9g), got 0x%08x (%.9g)",
             on_core, op_name(k->e), operand, space_name(where->space),
             (unsigned long long)where->value, at, want, (double)tpu_f32_to_float(want), got,
             (double)tpu_f32_to_float(got));
    return 1;
}

/* ---- operands ------------------------------------------------------------------- */

/* a * b with overflow and limit checks: 0, or -1 when the product exceeds lim. */
static int mul_within(uint64_t a, uint64_t b, uint64_t lim, uint64_t *out)
{
    if (a != 0 && b > lim / a)
        return -1;
    *out = a * b;
    return *out <= lim ? 0 : -1;
}

/* Operand i is a plain number (a size or a count). */
static int want_number(checker *k, unsigned i, const char *name, uint64_t *v)
{
    if (k->e->ops[i].space != TPU_SPACE_NONE)
        return check_error(k, "%s must be a number, not a %s address", name,
                           space_name(k->e->ops[i].space));
    *v = k->e->ops[i].value;
    return 0;
}

/* Operand i is the address of a region of `bytes` bytes in HBM or VMEM,
 * inside the memory. */
static int want_region(checker *k, unsigned i, const char *name, uint64_t bytes)
{
    const tpu_obj_expect_operand *op = &k->e->ops[i];
    uint64_t size;
    if (op->space == TPU_SPACE_HBM)
        size = k->t->hbm_bytes;
    else if (op->space == TPU_SPACE_VMEM)
        size = k->t->vmem_bytes;
    else
        return check_error(k, "%s must be an HBM or VMEM address", name);
    if (bytes > TPU_EXPECT_MAX_REGION)
        return check_error(k, "%s (%s 0x%llx) covers %llu bytes: too large to check (limit %llu)",
                           name, space_name(op->space), (unsigned long long)op->value,
                           (unsigned long long)bytes, (unsigned long long)TPU_EXPECT_MAX_REGION);
    if (op->value > size || bytes > size - op->value)
        return check_error(k, "%s (%s 0x%llx, %llu bytes) is outside %s (0x%llx bytes)", name,
                           space_name(op->space), (unsigned long long)op->value,
                           (unsigned long long)bytes, op->space == TPU_SPACE_HBM ? "HBM" : "VMEM",
                           (unsigned long long)size);
    return 0;
}

/* The bytes of an a x b array of elem-byte elements, within the region limit. */
static int want_bytes(checker *k, const char *name, uint64_t a, uint64_t b, unsigned elem,
                      uint64_t *out)
{
    uint64_t ab;
    if (mul_within(a, b, TPU_EXPECT_MAX_REGION, &ab) < 0
        || mul_within(ab, elem, TPU_EXPECT_MAX_REGION, out) < 0)
        return check_error(k, "%s is too large to check (more than %llu bytes)", name,
                           (unsigned long long)TPU_EXPECT_MAX_REGION);
    return 0;
}

static int want_nops(checker *k, unsigned n)
{
    if (k->e->nops != n)
        return check_error(k, "takes %u operands, the record has %u", n, k->e->nops);
    return 0;
}

/* ---- memory ---------------------------------------------------------------------- */

/* 1 when a single chunk of the space holds every byte of [addr, end). */
static int one_chunk_covers(const tpu_object *obj, enum tpu_space space, uint64_t addr,
                            uint64_t end)
{
    for (size_t i = 0; i < obj->nchunks; i++) {
        const tpu_obj_chunk *c = &obj->chunks[i];
        uint64_t cend = c->addr + c->size < c->addr ? UINT64_MAX : c->addr + c->size;
        if (c->space == space && c->addr <= addr && cend >= end)
            return 1;
    }
    return 0;
}

void tpu_expect_initial_read(const tpu_object *obj, enum tpu_space space, uint64_t addr,
                             uint8_t *dst, size_t n)
{
    uint64_t end = addr + n < addr ? UINT64_MAX : addr + n;
    if (!one_chunk_covers(obj, space, addr, end))  /* else every byte is written below */
        memset(dst, 0, n);
    for (size_t i = 0; i < obj->nchunks; i++) {
        const tpu_obj_chunk *c = &obj->chunks[i];
        if (c->space != space || c->size == 0)
            continue;
        uint64_t cend = c->addr + c->size < c->addr ? UINT64_MAX : c->addr + c->size;
        uint64_t lo = c->addr > addr ? c->addr : addr;
        uint64_t hi = cend < end ? cend : end;
        if (lo < hi)
            tpu_obj_chunk_read(c, lo - c->addr, dst + (lo - addr), (size_t)(hi - lo));
    }
}

/* The output after the run, through the callback. */
static int read_output(checker *k, unsigned i, const char *name, uint64_t off, void *dst,
                       size_t n)
{
    const tpu_obj_expect_operand *op = &k->e->ops[i];
    if (k->t->read(k->t->ctx, k->core, (enum tpu_space)op->space, op->value + off, dst, n) < 0)
        return check_error(k, "cannot read %s (%s 0x%llx, %zu bytes) on core %u", name,
                           space_name(op->space), (unsigned long long)(op->value + off), n,
                           k->core);
    return 0;
}

/* A buffer of the check (megabytes for a large matmul: huge host pages
 * when it is that big, hostmem.h). */
static void *alloc_or_error(checker *k, size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        check_error(k, "out of memory (%zu bytes)", n);
    tpu_hostmem_huge(p, n);
    return p;
}

/* ---- the checks ------------------------------------------------------------------- */

/* B x D x F multiply-adds (bd = B x D, already known to fit) within what a
 * check may compute. */
static int want_macs(checker *k, uint64_t b, uint64_t d, uint64_t f, uint64_t bd)
{
    uint64_t macs = 0;
    if (mul_within(bd, f, TPU_EXPECT_MAX_MACS, &macs) < 0)
        return check_error(k, "B*D*F = %llu*%llu*%llu multiply-adds: too large to check "
                           "(limit %llu)", (unsigned long long)b, (unsigned long long)d,
                           (unsigned long long)f, (unsigned long long)TPU_EXPECT_MAX_MACS);
    return 0;
}

/* How many rows of X (D elements of xsize bytes) and Y (F fp32) a matmul
 * check holds at once: a block's worth of each, at least 1, at most B. */
static uint64_t block_rows(checker *k, uint64_t b, uint64_t d, uint64_t f, uint64_t xsize)
{
    uint64_t rows = block_bytes(k) / (f * 4);
    if (d && block_bytes(k) / (d * xsize) < rows)
        rows = block_bytes(k) / (d * xsize);
    if (rows == 0)
        rows = 1;
    if (rows > b)
        rows = b;
    return rows;
}

/* matmul Y, X, W, B, D, F */
static int check_matmul(checker *k)
{
    uint64_t b = 0, d = 0, f = 0, xb = 0, wb = 0, yb = 0;
    if (want_nops(k, 6) || want_number(k, 3, "B", &b) || want_number(k, 4, "D", &d)
        || want_number(k, 5, "F", &f))
        return -1;
    if (want_bytes(k, "X[B,D]", b, d, 2, &xb) || want_bytes(k, "W[D,F]", d, f, 2, &wb)
        || want_bytes(k, "Y[B,F]", b, f, 4, &yb))
        return -1;
    if (want_macs(k, b, d, f, xb / 2))
        return -1;
    if (want_region(k, 0, "Y", yb) || want_region(k, 1, "X", xb) || want_region(k, 2, "W", wb))
        return -1;
    if (b == 0 || f == 0)
        return 0;

    /* W whole; X and Y in blocks of rows. */
    uint64_t rows = block_rows(k, b, d, f, 2);
    uint16_t *w = alloc_or_error(k, (size_t)wb);
    uint16_t *x = w ? alloc_or_error(k, (size_t)(rows * d * 2)) : NULL;
    uint32_t *want = x ? alloc_or_error(k, (size_t)(rows * f * 4)) : NULL;
    uint32_t *got = want ? alloc_or_error(k, (size_t)(rows * f * 4)) : NULL;
    int rc = got ? 0 : -1;
    if (rc == 0)
        tpu_expect_initial_read(k->obj, k->e->ops[2].space, k->e->ops[2].value, (uint8_t *)w,
                                (size_t)wb);
    for (uint64_t r0 = 0; rc == 0 && r0 < b; r0 += rows) {
        uint64_t nr = b - r0 < rows ? b - r0 : rows;
        tpu_expect_initial_read(k->obj, k->e->ops[1].space, k->e->ops[1].value + r0 * d * 2,
                                (uint8_t *)x, (size_t)(nr * d * 2));
        if (tpu_ref_matmul(x, w, want, nr, d, f, k->t->tile) < 0) {
            rc = check_error(k, "out of memory computing the reference");
            break;
        }
        rc = read_output(k, 0, "Y", r0 * f * 4, got, (size_t)(nr * f * 4));
        for (uint64_t i = 0; rc == 0 && i < nr * f; i++)
            if (want[i] != got[i]) {
                char at[64];
                snprintf(at, sizeof at, "[%llu][%llu]", (unsigned long long)(r0 + i / f),
                         (unsigned long long)(i % f));
                rc = mismatch_f32(k, "Y", &k->e->ops[0], at, want[i], got[i]);
            }
    }
    free(w); free(x); free(want); free(got);
    return rc;
}

/* matmul_i8 Y, X, W, B, D, F: int32 Y = int8 X . int8 W (K-pair-interleaved W),
 * mod 2^32 (numerics.md section 9) */
static int check_matmul_i8(checker *k)
{
    uint64_t b = 0, d = 0, f = 0, xb = 0, wb = 0, yb = 0;
    if (want_nops(k, 6) || want_number(k, 3, "B", &b) || want_number(k, 4, "D", &d)
        || want_number(k, 5, "F", &f))
        return -1;
    if (d % 2)
        return check_error(k, "D = %llu must be even (int8 weights come in K pairs)",
                           (unsigned long long)d);
    if (want_bytes(k, "X[B,D]", b, d, 1, &xb) || want_bytes(k, "W[D,F]", d, f, 1, &wb)
        || want_bytes(k, "Y[B,F]", b, f, 4, &yb))
        return -1;
    if (want_macs(k, b, d, f, xb))
        return -1;
    if (want_region(k, 0, "Y", yb) || want_region(k, 1, "X", xb) || want_region(k, 2, "W", wb))
        return -1;
    if (b == 0 || f == 0)
        return 0;
    uint64_t rows = block_rows(k, b, d, f, 1);
    uint8_t *w = alloc_or_error(k, (size_t)wb);
    uint8_t *x = w ? alloc_or_error(k, (size_t)(rows * d)) : NULL;
    uint32_t *want = x ? alloc_or_error(k, (size_t)(rows * f * 4)) : NULL;
    uint32_t *got = want ? alloc_or_error(k, (size_t)(rows * f * 4)) : NULL;
    int rc = got ? 0 : -1;
    if (rc == 0)
        tpu_expect_initial_read(k->obj, k->e->ops[2].space, k->e->ops[2].value, w, (size_t)wb);
    for (uint64_t r0 = 0; rc == 0 && r0 < b; r0 += rows) {
        uint64_t nr = b - r0 < rows ? b - r0 : rows;
        tpu_expect_initial_read(k->obj, k->e->ops[1].space, k->e->ops[1].value + r0 * d, x,
                                (size_t)(nr * d));
        tpu_ref_matmul_i8(x, w, want, nr, d, f);
        rc = read_output(k, 0, "Y", r0 * f * 4, got, (size_t)(nr * f * 4));
        for (uint64_t i = 0; rc == 0 && i < nr * f; i++)
            if (want[i] != got[i]) {
                char on_core[32] = "";
                if (k->t->ncores > 1)
                    snprintf(on_core, sizeof on_core, "on core %u ", k->core);
                k->res->status = TPU_EXPECT_MISMATCH;
                snprintf(k->res->message, sizeof k->res->message,
                         "MISMATCH %sin matmul_i8 Y (%s 0x%llx) at [%llu][%llu]: expected "
                         "0x%08x (%d), got 0x%08x (%d)", on_core, space_name(k->e->ops[0].space),
                         (unsigned long long)k->e->ops[0].value, (unsigned long long)(r0 + i / f),
                         (unsigned long long)(i % f), want[i], (int)(int32_t)want[i], got[i],
                         (int)(int32_t)got[i]);
                rc = 1;
            }
    }
    free(w); free(x); free(want); free(got);
    return rc;
}

/* matmul_w8 Y, X, W, B, D, F and matmul_w8s Y, X, W, S, B, D, F: fp32 Y =
 * bf16 X . bf16(int8 W), W row-major int8 widened exactly (dma.h2v.i8),
 * the K-tiles as matmul; w8s then multiplies column c by fp32 S[c]. */
static int check_matmul_w8(checker *k)
{
    int sc = k->e->op == TPU_EXPECT_MATMUL_W8S;
    unsigned o = sc ? 1 : 0;
    uint64_t b = 0, d = 0, f = 0, xb = 0, wb = 0, yb = 0, sb = 0;
    if (want_nops(k, 6 + o) || want_number(k, 3 + o, "B", &b) || want_number(k, 4 + o, "D", &d)
        || want_number(k, 5 + o, "F", &f))
        return -1;
    if (want_bytes(k, "X[B,D]", b, d, 2, &xb) || want_bytes(k, "W[D,F]", d, f, 1, &wb)
        || want_bytes(k, "Y[B,F]", b, f, 4, &yb) || want_bytes(k, "S[F]", f, 1, 4, &sb))
        return -1;
    if (want_macs(k, b, d, f, xb / 2))
        return -1;
    if (want_region(k, 0, "Y", yb) || want_region(k, 1, "X", xb) || want_region(k, 2, "W", wb)
        || (sc && want_region(k, 3, "S", sb)))
        return -1;
    if (b == 0 || f == 0)
        return 0;
    uint64_t rows = block_rows(k, b, d, f, 2);
    uint8_t *w8 = alloc_or_error(k, (size_t)wb);
    uint16_t *w = w8 ? alloc_or_error(k, (size_t)wb * 2) : NULL;
    uint32_t *s = w ? alloc_or_error(k, (size_t)sb) : NULL;
    uint16_t *x = s ? alloc_or_error(k, (size_t)(rows * d * 2)) : NULL;
    uint32_t *want = x ? alloc_or_error(k, (size_t)(rows * f * 4)) : NULL;
    uint32_t *got = want ? alloc_or_error(k, (size_t)(rows * f * 4)) : NULL;
    int rc = got ? 0 : -1;
    if (rc == 0) {
        tpu_expect_initial_read(k->obj, k->e->ops[2].space, k->e->ops[2].value, w8, (size_t)wb);
        for (uint64_t i = 0; i < wb; i++)
            w[i] = tpu_bf16_from_i8(w8[i]);
        if (sc)
            tpu_expect_initial_read(k->obj, k->e->ops[3].space, k->e->ops[3].value,
                                    (uint8_t *)s, (size_t)sb);
    }
    for (uint64_t r0 = 0; rc == 0 && r0 < b; r0 += rows) {
        uint64_t nr = b - r0 < rows ? b - r0 : rows;
        tpu_expect_initial_read(k->obj, k->e->ops[1].space, k->e->ops[1].value + r0 * d * 2,
                                (uint8_t *)x, (size_t)(nr * d * 2));
        if (tpu_ref_matmul(x, w, want, nr, d, f, k->t->tile) < 0) {
            rc = check_error(k, "out of memory computing the reference");
            break;
        }
        if (sc)
            for (uint64_t i = 0; i < nr; i++)
                tpu_ref_pointwise(TPU_REF_MUL, want + i * f, s, want + i * f, (size_t)f);
        rc = read_output(k, 0, "Y", r0 * f * 4, got, (size_t)(nr * f * 4));
        for (uint64_t i = 0; rc == 0 && i < nr * f; i++)
            if (want[i] != got[i]) {
                char at[64];
                snprintf(at, sizeof at, "[%llu][%llu]", (unsigned long long)(r0 + i / f),
                         (unsigned long long)(i % f));
                rc = mismatch_f32(k, "Y", &k->e->ops[0], at, want[i], got[i]);
            }
    }
    free(w8); free(w); free(s); free(x); free(want); free(got);
    return rc;
}

static enum tpu_ref_op ref_op(uint32_t op)
{
    switch (op) {
    case TPU_EXPECT_ADD: case TPU_EXPECT_ADD_RELU: return TPU_REF_ADD;
    case TPU_EXPECT_SUB: return TPU_REF_SUB;
    case TPU_EXPECT_MUL: return TPU_REF_MUL;
    case TPU_EXPECT_MAX: return TPU_REF_MAX;
    case TPU_EXPECT_MIN: return TPU_REF_MIN;
    default:             return TPU_REF_RELU;
    }
}

/* softmax Z, X, N, C: N rows of C fp32, element c of row i at X[c N + i]
 * (a row per lane: column c is a run of N values).  In the VPU's
 * operations, left to right (numerics.md 11.7): m = max of the row,
 * e_c = exp(X - m), s = e_0 + e_1 + ..., Z = e_c * rcp(s). */
static int check_softmax(checker *k)
{
    uint64_t n = 0, c = 0, cols = 0, bytes = 0;
    if (want_nops(k, 4) || want_number(k, 2, "N", &n) || want_number(k, 3, "C", &c)
        || want_bytes(k, "N x C", n, c, 1, &cols) || want_bytes(k, "N x C elements", cols, 1, 4, &bytes)
        || want_region(k, 0, "Z", bytes) || want_region(k, 1, "X", bytes))
        return -1;
    uint32_t *x = alloc_or_error(k, (size_t)bytes);
    uint32_t *got = x ? alloc_or_error(k, (size_t)bytes) : NULL;
    int rc = got ? 0 : -1;
    if (rc == 0) {
        tpu_expect_initial_read(k->obj, k->e->ops[1].space, k->e->ops[1].value, (uint8_t *)x,
                                (size_t)bytes);
        rc = read_output(k, 0, "Z", 0, got, (size_t)bytes);
    }
    for (uint64_t i = 0; rc == 0 && i < n; i++) {
        uint32_t m = x[i], s = 0;
        for (uint64_t j = 1; j < c; j++)
            m = tpu_f32_max(m, x[j * n + i]);
        for (uint64_t j = 0; j < c; j++) {
            uint32_t e = tpu_f32_exp(tpu_f32_sub(x[j * n + i], m));
            s = j ? tpu_f32_add(s, e) : e;
        }
        uint32_t r = tpu_f32_rcp(s);
        for (uint64_t j = 0; rc == 0 && j < c; j++) {
            uint32_t want = tpu_f32_mul(tpu_f32_exp(tpu_f32_sub(x[j * n + i], m)), r);
            if (want != got[j * n + i]) {
                char at[64];
                snprintf(at, sizeof at, "[row %llu][col %llu]", (unsigned long long)i,
                         (unsigned long long)j);
                rc = mismatch_f32(k, "Z", &k->e->ops[0], at, want, got[j * n + i]);
            }
        }
    }
    free(x); free(got);
    return rc;
}

/* The transformer layers (ref_nn.h; numerics.md section 12): softmax_s Z,
 * X, N, C, SCALE; layernorm Z, X, G, B, N, C, EPS; rmsnorm Z, X, G, N, C,
 * EPS; gelu|silu Z, X, N.  Feature-major: element (row i, column c) at
 * 4 (c N + i); the elementwise ones are N values (one column). */
static int read_input(checker *k, unsigned i, const char *name, int after, uint64_t off,
                      void *dst, size_t n);
static int want_flags(checker *k, unsigned i, unsigned allowed, unsigned *flags);

static int check_nn(checker *k)
{
    unsigned op = k->e->op;
    tpu_nn_params p;
    memset(&p, 0, sizeof p);
    unsigned ng = op == TPU_EXPECT_LAYERNORM ? 2 : op == TPU_EXPECT_RMSNORM ? 1 : 0;
    unsigned ny = op == TPU_EXPECT_RESIDUAL;   /* the residual's second input Y */
    unsigned at = 2 + ng + ny;               /* the operand N */
    int rows = op == TPU_EXPECT_SOFTMAX_S || ng;
    uint64_t n = 0, c = 1, v = 0, cells = 0, bytes = 0, zbytes = 0, pb = 0;
    unsigned fl = 0;
    p.op = op == TPU_EXPECT_SOFTMAX_S ? TPU_NN_SOFTMAX : op == TPU_EXPECT_LAYERNORM ? TPU_NN_LAYERNORM
           : op == TPU_EXPECT_RMSNORM ? TPU_NN_RMSNORM : op == TPU_EXPECT_GELU ? TPU_NN_GELU
           : op == TPU_EXPECT_SILU ? TPU_NN_SILU : TPU_NN_ADD;
    unsigned nf = rows ? at + 3 : at + 1;    /* the operand FLAGS */
    if (want_nops(k, nf + 1) || want_number(k, at, "N", &n)
        || (rows && want_number(k, at + 1, "C", &c)) || (rows && want_number(k, at + 2,
            op == TPU_EXPECT_SOFTMAX_S ? "SCALE" : "EPS", &v))
        || want_flags(k, nf, TPU_REF_EPI_XOUT | TPU_REF_EPI_BF16 | (ny ? TPU_REF_EPI_WOUT : 0), &fl))
        return -1;
    int bf16 = (fl & TPU_REF_EPI_BF16) != 0, after = (fl & TPU_REF_EPI_XOUT) != 0;
    if (v > 0xffffffffu)
        return check_error(k, "%s 0x%llx is not an fp32 bit pattern",
                           op == TPU_EXPECT_SOFTMAX_S ? "SCALE" : "EPS", (unsigned long long)v);
    if (want_bytes(k, "N x C", n, c, 1, &cells) || want_bytes(k, "N x C elements", cells, 1, 4, &bytes)
        || want_bytes(k, "C parameters", c, 1, 4, &pb)
        || want_bytes(k, "Z", cells, 1, bf16 ? 2 : 4, &zbytes)
        || want_region(k, 0, "Z", zbytes) || want_region(k, 1, "X", bytes)
        || (ng >= 1 && want_region(k, 2, "G", pb)) || (ng == 2 && want_region(k, 3, "B", pb))
        || (ny && want_region(k, 2, "Y", bytes)))
        return -1;
    if (cells == 0)
        return 0;
    p.c = c;
    p.eps = p.scale = (uint32_t)v;
    uint32_t *x = alloc_or_error(k, (size_t)bytes);
    uint32_t *want = x ? alloc_or_error(k, (size_t)bytes) : NULL;
    uint32_t *got = want ? alloc_or_error(k, (size_t)bytes) : NULL;
    uint32_t *par = got ? alloc_or_error(k, (size_t)pb * 3) : NULL;
    uint32_t *y = par && ny ? alloc_or_error(k, (size_t)bytes) : NULL;
    int rc = par && (y || !ny) ? 0 : -1;
    if (rc == 0)
        rc = read_input(k, 1, "X", after, 0, x, (size_t)bytes);
    if (rc == 0 && ny)
        rc = read_input(k, 2, "Y", (fl & TPU_REF_EPI_WOUT) != 0, 0, y, (size_t)bytes);
    p.y = y;
    if (rc == 0) {
        for (unsigned g = 0; g < ng; g++)
            tpu_expect_initial_read(k->obj, k->e->ops[2 + g].space, k->e->ops[2 + g].value,
                                    (uint8_t *)(par + g * c), (size_t)pb);
        p.gamma = par, p.beta = par + c;
        tpu_ref_nn(&p, x, want, n, n, par + 2 * c);
        rc = read_output(k, 0, "Z", 0, got, (size_t)zbytes);
    }
    for (uint64_t i = 0; rc == 0 && i < cells; i++) {
        uint32_t w = want[i], g = bf16 ? (uint32_t)((const uint16_t *)got)[i] : got[i];
        if (bf16)
            w = tpu_bf16_from_f32(w);
        if (w != g) {
            char where[64];
            if (rows)
                snprintf(where, sizeof where, "[row %llu][col %llu]", (unsigned long long)(i % n),
                         (unsigned long long)(i / n));
            else
                snprintf(where, sizeof where, "[%llu]", (unsigned long long)i);
            if (bf16)
                g <<= 16, w <<= 16;
            rc = mismatch_f32(k, "Z", &k->e->ops[0], where, w, g);
        }
    }
    free(x); free(want); free(got); free(par); free(y);
    return rc;
}

/* add|sub|mul|max|min|add_relu Z, X, Y, N and relu Z, X, N */
static int check_pointwise(checker *k)
{
    int unary = k->e->op == TPU_EXPECT_RELU;
    uint64_t n = 0, bytes = 0;
    if (want_nops(k, unary ? 3 : 4) || want_number(k, unary ? 2 : 3, "N", &n)
        || want_bytes(k, "N elements", n, 1, 4, &bytes)
        || want_region(k, 0, "Z", bytes) || want_region(k, 1, "X", bytes)
        || (!unary && want_region(k, 2, "Y", bytes)))
        return -1;
    size_t block = block_bytes(k) / 4 ? block_bytes(k) / 4 : 1;
    uint32_t *a = alloc_or_error(k, block * 4);
    uint32_t *bv = a ? alloc_or_error(k, block * 4) : NULL;
    uint32_t *want = bv ? alloc_or_error(k, block * 4) : NULL;
    uint32_t *got = want ? alloc_or_error(k, block * 4) : NULL;
    int rc = got ? 0 : -1;
    for (uint64_t i0 = 0; rc == 0 && i0 < n; i0 += block) {
        size_t m = (size_t)(n - i0 < block ? n - i0 : block);
        tpu_expect_initial_read(k->obj, k->e->ops[1].space, k->e->ops[1].value + i0 * 4,
                                (uint8_t *)a, m * 4);
        if (!unary)
            tpu_expect_initial_read(k->obj, k->e->ops[2].space, k->e->ops[2].value + i0 * 4,
                                    (uint8_t *)bv, m * 4);
        tpu_ref_pointwise(ref_op(k->e->op), a, unary ? a : bv, want, m);
        if (k->e->op == TPU_EXPECT_ADD_RELU)        /* relu of the rounded sum */
            tpu_ref_pointwise(TPU_REF_RELU, want, want, want, m);
        rc = read_output(k, 0, "Z", i0 * 4, got, m * 4);
        for (size_t i = 0; rc == 0 && i < m; i++)
            if (want[i] != got[i]) {
                char at[32];
                snprintf(at, sizeof at, "[%llu]", (unsigned long long)(i0 + i));
                rc = mismatch_f32(k, "Z", &k->e->ops[0], at, want[i], got[i]);
            }
    }
    free(a); free(bv); free(want); free(got);
    return rc;
}

/* copy DST, SRC, NBYTES: the bytes at DST equal the initial bytes at SRC. */
static int check_copy(checker *k)
{
    uint64_t n = 0;
    if (want_nops(k, 3) || want_number(k, 2, "NBYTES", &n) || want_region(k, 0, "DST", n)
        || want_region(k, 1, "SRC", n))
        return -1;
    size_t block = block_bytes(k);
    uint8_t *want = alloc_or_error(k, block);
    uint8_t *got = want ? alloc_or_error(k, block) : NULL;
    int rc = got ? 0 : -1;
    for (uint64_t i0 = 0; rc == 0 && i0 < n; i0 += block) {
        size_t m = (size_t)(n - i0 < block ? n - i0 : block);
        tpu_expect_initial_read(k->obj, k->e->ops[1].space, k->e->ops[1].value + i0, want, m);
        rc = read_output(k, 0, "DST", i0, got, m);
        for (size_t i = 0; rc == 0 && i < m; i++)
            if (want[i] != got[i]) {
                char on_core[32] = "";
                if (k->t->ncores > 1)
                    snprintf(on_core, sizeof on_core, "on core %u ", k->core);
                k->res->status = TPU_EXPECT_MISMATCH;
                snprintf(k->res->message, sizeof k->res->message,
                         "MISMATCH %sin copy DST (%s 0x%llx) at byte %llu: expected 0x%02x "
                         "(from %s 0x%llx), got 0x%02x", on_core,
                         space_name(k->e->ops[0].space), (unsigned long long)k->e->ops[0].value,
                         (unsigned long long)(i0 + i), want[i], space_name(k->e->ops[1].space),
                         (unsigned long long)(k->e->ops[1].value + i0 + i), got[i]);
                rc = 1;
            }
    }
    free(want); free(got);
    return rc;
}

/* f32 ADDR, v0, v1, ...: the fp32 bit patterns at ADDR. */
static int check_f32(checker *k)
{
    const tpu_obj_expect *e = k->e;
    if (e->nops < 2)
        return check_error(k, "needs an address and at least one value");
    if (e->nops > TPU_OBJ_MAX_EXPECT_OPS)
        return check_error(k, "has %u operands (at most %u)", e->nops, TPU_OBJ_MAX_EXPECT_OPS);
    unsigned n = e->nops - 1;
    uint32_t want[TPU_OBJ_MAX_EXPECT_OPS], got[TPU_OBJ_MAX_EXPECT_OPS];
    for (unsigned i = 0; i < n; i++) {
        uint64_t v = 0;
        if (want_number(k, 1 + i, "a value", &v) < 0)
            return -1;
        if (v > UINT32_MAX)
            return check_error(k, "value %u (0x%llx) is not a 32-bit pattern", i,
                               (unsigned long long)v);
        want[i] = (uint32_t)v;
    }
    if (want_region(k, 0, "ADDR", (uint64_t)n * 4) || read_output(k, 0, "ADDR", 0, got, n * 4))
        return -1;
    for (unsigned i = 0; i < n; i++)
        if (want[i] != got[i]) {
            char at[16];
            snprintf(at, sizeof at, "[%u]", i);
            return mismatch_f32(k, "ADDR", &e->ops[0], at, want[i], got[i]);
        }
    return 0;
}

/* sum Z, X, STRIDE, K, N: fp32 Z[i] = X_0[i] + X_1[i] + ... + X_{K-1}[i],
 * X_j the N values at X + j * STRIDE, added left to right (tpu_f32_add).
 * The partial sums of a ring reduction are the collectives' business: a
 * program whose order differs checks data whose sums are exact. */
static int check_sum(checker *k)
{
    uint64_t stride = 0, nk = 0, n = 0, bytes = 0, span = 0;
    if (want_nops(k, 5) || want_number(k, 2, "STRIDE", &stride) || want_number(k, 3, "K", &nk)
        || want_number(k, 4, "N", &n) || want_bytes(k, "N elements", n, 1, 4, &bytes))
        return -1;
    if (nk < 1 || nk > TPU_EXPECT_MAX_TERMS)
        return check_error(k, "K = %llu: must be 1 to %u", (unsigned long long)nk,
                           TPU_EXPECT_MAX_TERMS);
    if (want_bytes(k, "X_0 .. X_{K-1}", nk - 1, stride, 1, &span)
        || want_region(k, 0, "Z", bytes) || want_region(k, 1, "X", span + bytes))
        return -1;
    size_t block = block_bytes(k) / 4 ? block_bytes(k) / 4 : 1;
    uint32_t *acc = alloc_or_error(k, block * 4);
    uint32_t *term = acc ? alloc_or_error(k, block * 4) : NULL;
    uint32_t *got = term ? alloc_or_error(k, block * 4) : NULL;
    int rc = got ? 0 : -1;
    for (uint64_t i0 = 0; rc == 0 && i0 < n; i0 += block) {
        size_t m = (size_t)(n - i0 < block ? n - i0 : block);
        tpu_expect_initial_read(k->obj, k->e->ops[1].space, k->e->ops[1].value + i0 * 4,
                                (uint8_t *)acc, m * 4);
        for (uint64_t j = 1; j < nk; j++) {
            tpu_expect_initial_read(k->obj, k->e->ops[1].space,
                                    k->e->ops[1].value + j * stride + i0 * 4, (uint8_t *)term,
                                    m * 4);
            tpu_ref_pointwise(TPU_REF_ADD, acc, term, acc, m);
        }
        rc = read_output(k, 0, "Z", i0 * 4, got, m * 4);
        for (size_t i = 0; rc == 0 && i < m; i++)
            if (acc[i] != got[i]) {
                char at[32];
                snprintf(at, sizeof at, "[%llu]", (unsigned long long)(i0 + i));
                rc = mismatch_f32(k, "Z", &k->e->ops[0], at, acc[i], got[i]);
            }
    }
    free(acc); free(term); free(got);
    return rc;
}

/* ---- layers: matmul_epi, conv2d, pool ---------------------------------------------- */

/* An input of a layer check: the initial data, or (TPU_REF_EPI_XOUT) memory
 * after the run: an intermediate result the program computed, itself
 * checked by an earlier record. */
static int read_input(checker *k, unsigned i, const char *name, int after, uint64_t off,
                      void *dst, size_t n)
{
    if (after)
        return read_output(k, i, name, off, dst, n);
    tpu_expect_initial_read(k->obj, k->e->ops[i].space, k->e->ops[i].value + off, dst, n);
    return 0;
}

/* Compare nr x f results (fp32, or rounded to bf16 when the output is bf16). */
static int compare_rows(checker *k, const uint32_t *want, uint64_t r0, uint64_t nr, uint64_t f,
                        int bf16, void *gotbuf)
{
    size_t esz = bf16 ? 2 : 4;
    if (read_output(k, 0, "Y", r0 * f * esz, gotbuf, (size_t)(nr * f * esz)))
        return -1;
    for (uint64_t i = 0; i < nr * f; i++) {
        uint32_t w = want[i], g;
        if (bf16) {
            w = (uint32_t)tpu_bf16_from_f32(want[i]) << 16;
            g = (uint32_t)((const uint16_t *)gotbuf)[i] << 16;
        } else {
            g = ((const uint32_t *)gotbuf)[i];
        }
        if (w != g) {
            char at[64];
            snprintf(at, sizeof at, "[%llu][%llu]%s", (unsigned long long)(r0 + i / f),
                     (unsigned long long)(i % f), bf16 ? " (bf16, shown widened)" : "");
            return mismatch_f32(k, "Y", &k->e->ops[0], at, w, g);
        }
    }
    return 0;
}

static int want_flags(checker *k, unsigned i, unsigned allowed, unsigned *flags)
{
    uint64_t v = 0;
    if (want_number(k, i, "FLAGS", &v))
        return -1;
    if (v & ~(uint64_t)allowed)
        return check_error(k, "FLAGS 0x%llx has unknown bits (allowed: 0x%x)",
                           (unsigned long long)v, allowed);
    *flags = (unsigned)v;
    return 0;
}

/* matmul_epi Y, X, W, BIAS, B, D, F, FLAGS: matmul, then + BIAS[c], relu
 * (FLAGS 1, 2); X read after the run (4); Y stored as bf16 (8); W int8
 * widened to bf16 as matmul_w8 (32). */
static int check_matmul_epi(checker *k)
{
    uint64_t b = 0, d = 0, f = 0, xb = 0, wb = 0, yb = 0, bb = 0;
    unsigned fl = 0;
    if (want_nops(k, 8) || want_number(k, 4, "B", &b) || want_number(k, 5, "D", &d)
        || want_number(k, 6, "F", &f)
        || want_flags(k, 7, TPU_REF_EPI_BIAS | TPU_REF_EPI_RELU | TPU_REF_EPI_XOUT
                      | TPU_REF_EPI_BF16 | TPU_REF_EPI_W8 | TPU_REF_EPI_WOUT, &fl))
        return -1;
    int bf16 = (fl & TPU_REF_EPI_BF16) != 0, after = (fl & TPU_REF_EPI_XOUT) != 0;
    if ((fl & TPU_REF_EPI_WOUT) && (fl & TPU_REF_EPI_W8))
        return check_error(k, "FLAGS 64 (W after the run) and 32 (int8 W) do not go together");
    int w8 = (fl & TPU_REF_EPI_W8) != 0;
    if (want_bytes(k, "X[B,D]", b, d, 2, &xb) || want_bytes(k, "W[D,F]", d, f, w8 ? 1 : 2, &wb)
        || want_bytes(k, "Y[B,F]", b, f, bf16 ? 2 : 4, &yb)
        || want_bytes(k, "BIAS[F]", f, 1, 4, &bb))
        return -1;
    if (want_macs(k, b, d, f, xb / 2))
        return -1;
    if (want_region(k, 0, "Y", yb) || want_region(k, 1, "X", xb) || want_region(k, 2, "W", wb)
        || ((fl & TPU_REF_EPI_BIAS) && want_region(k, 3, "BIAS", bb)))
        return -1;
    if (b == 0 || f == 0)
        return 0;
    uint64_t rows = block_rows(k, b, d, f, 2);
    uint16_t *w = alloc_or_error(k, (size_t)(d * f * 2));
    uint32_t *bias = w ? alloc_or_error(k, (size_t)bb) : NULL;
    uint16_t *x = bias ? alloc_or_error(k, (size_t)(rows * d * 2)) : NULL;
    uint32_t *want = x ? alloc_or_error(k, (size_t)(rows * f * 4)) : NULL;
    uint32_t *got = want ? alloc_or_error(k, (size_t)(rows * f * 4)) : NULL;
    int rc = got ? 0 : -1;
    if (rc == 0)
        rc = read_input(k, 2, "W", (fl & TPU_REF_EPI_WOUT) != 0, 0, w, (size_t)wb);
    if (rc == 0) {
        if (w8)                              /* widen in place, from the end */
            for (uint64_t i = d * f; i-- > 0;)
                w[i] = tpu_bf16_from_i8(((const uint8_t *)w)[i]);
        if (fl & TPU_REF_EPI_BIAS)
            tpu_expect_initial_read(k->obj, k->e->ops[3].space, k->e->ops[3].value,
                                    (uint8_t *)bias, (size_t)bb);
    }
    for (uint64_t r0 = 0; rc == 0 && r0 < b; r0 += rows) {
        uint64_t nr = b - r0 < rows ? b - r0 : rows;
        if ((rc = read_input(k, 1, "X", after, r0 * d * 2, x, (size_t)(nr * d * 2))) != 0)
            break;
        if (tpu_ref_matmul(x, w, want, nr, d, f, k->t->tile) < 0) {
            rc = check_error(k, "out of memory computing the reference");
            break;
        }
        tpu_ref_epilogue(want, nr, f, bias, fl);
        rc = compare_rows(k, want, r0, nr, f, bf16, got);
    }
    free(w); free(bias); free(x); free(want); free(got);
    return rc;
}

/* Read the numbers of a conv2d or pool record from operand `first` on. */
static int want_conv(checker *k, unsigned first, int pool, tpu_ref_conv *c)
{
    static const char *const names[] = { "NB", "H", "W", "C", "F", "R", "S", "STRIDE", "PAD",
                                         "GROUPS" };
    uint64_t *dst[] = { &c->nb, &c->h, &c->w, &c->c, &c->f, &c->r, &c->s, &c->stride, &c->pad,
                        &c->groups };
    memset(c, 0, sizeof *c);
    unsigned j = first;
    for (unsigned i = 0; i < 10; i++) {
        if (pool && (i == 4 || i == 9))
            continue;
        if (want_number(k, j++, names[i], dst[i]))
            return -1;
    }
    if (pool) {
        c->f = c->c;
        c->groups = 1;
    }
    char why[200];
    if (tpu_ref_conv_shape(c, why, sizeof why))
        return check_error(k, "%s", why);
    return 0;
}

/* conv2d Y, X, W, BIAS, NB, H, W, C, F, R, S, STRIDE, PAD, GROUPS, FLAGS */
static int check_conv2d(checker *k)
{
    tpu_ref_conv c;
    unsigned fl = 0;
    if (want_nops(k, 15) || want_conv(k, 4, 0, &c) || want_flags(k, 14, TPU_REF_EPI_ALL, &fl))
        return -1;
    uint64_t cg = c.c / c.groups, fg = c.f / c.groups, taps = c.r * c.s;
    if ((fl & TPU_REF_EPI_VPU) && (cg != 1 || fg != 1))
        return check_error(k, "the VPU order (FLAGS 16) is for depthwise layers: C/G = %llu and "
                           "F/G = %llu must be 1", (unsigned long long)cg, (unsigned long long)fg);
    int bf16 = (fl & TPU_REF_EPI_BF16) != 0, after = (fl & TPU_REF_EPI_XOUT) != 0;
    uint64_t pix = 0, xb = 0, wb = 0, yb = 0, bb = 0, ins = 0, macs = 0;
    if (want_bytes(k, "output pixels", c.nb * c.oh, c.ow, 1, &pix)
        || want_bytes(k, "input pixels", c.nb * c.h, c.w, 1, &ins)
        || want_bytes(k, "X[NB,H,W,C]", ins, c.c, 2, &xb)
        || want_bytes(k, "W[R,S,C/G,F]", taps * cg, c.f, 2, &wb)
        || want_bytes(k, "Y[NB,OH,OW,F]", pix, c.f, bf16 ? 2 : 4, &yb)
        || want_bytes(k, "BIAS[F]", c.f, 1, 4, &bb))
        return -1;
    if (mul_within(pix, taps * cg, TPU_EXPECT_MAX_MACS, &macs) < 0
        || mul_within(macs, c.f, TPU_EXPECT_MAX_MACS, &macs) < 0)
        return check_error(k, "too many multiply-adds to check (limit %llu)",
                           (unsigned long long)TPU_EXPECT_MAX_MACS);
    if (want_region(k, 0, "Y", yb) || want_region(k, 1, "X", xb) || want_region(k, 2, "W", wb)
        || ((fl & TPU_REF_EPI_BIAS) && want_region(k, 3, "BIAS", bb)))
        return -1;
    uint64_t rows = block_rows(k, pix, taps * cg, c.f, 2);
    uint16_t *x = alloc_or_error(k, (size_t)xb);
    uint16_t *w = x ? alloc_or_error(k, (size_t)wb) : NULL;
    uint32_t *bias = w ? alloc_or_error(k, (size_t)bb) : NULL;
    uint32_t *want = bias ? alloc_or_error(k, (size_t)(rows * c.f * 4)) : NULL;
    uint32_t *got = want ? alloc_or_error(k, (size_t)(rows * c.f * 4)) : NULL;
    int rc = got ? 0 : -1;
    if (rc == 0) {
        rc = read_input(k, 1, "X", after, 0, x, (size_t)xb);
        tpu_expect_initial_read(k->obj, k->e->ops[2].space, k->e->ops[2].value, (uint8_t *)w,
                                (size_t)wb);
        if (fl & TPU_REF_EPI_BIAS)
            tpu_expect_initial_read(k->obj, k->e->ops[3].space, k->e->ops[3].value,
                                    (uint8_t *)bias, (size_t)bb);
    }
    for (uint64_t p0 = 0; rc == 0 && p0 < pix; p0 += rows) {
        uint64_t nr = pix - p0 < rows ? pix - p0 : rows;
        if (tpu_ref_conv2d(&c, x, w, bias, fl, p0, nr, want, k->t->tile) < 0) {
            rc = check_error(k, "out of memory computing the reference");
            break;
        }
        rc = compare_rows(k, want, p0, nr, c.f, bf16, got);
    }
    free(x); free(w); free(bias); free(want); free(got);
    return rc;
}

/* pool Y, X, NB, H, W, C, R, S, STRIDE, PAD, MODE: fp32 NHWC, max (0) or avg (1) */
static int check_pool(checker *k)
{
    tpu_ref_conv c;
    uint64_t mode = 0, pix = 0, ins = 0, xb = 0, yb = 0;
    if (want_nops(k, 11) || want_conv(k, 2, 1, &c) || want_number(k, 10, "MODE", &mode))
        return -1;
    if (mode > TPU_REF_POOL_AVG)
        return check_error(k, "MODE %llu: 0 (max) or 1 (avg)", (unsigned long long)mode);
    if (want_bytes(k, "output pixels", c.nb * c.oh, c.ow, 1, &pix)
        || want_bytes(k, "input pixels", c.nb * c.h, c.w, 1, &ins)
        || want_bytes(k, "X[NB,H,W,C]", ins, c.c, 4, &xb)
        || want_bytes(k, "Y[NB,OH,OW,C]", pix, c.c, 4, &yb)
        || want_region(k, 0, "Y", yb) || want_region(k, 1, "X", xb))
        return -1;
    uint64_t rows = block_rows(k, pix, 0, c.c, 4);
    uint32_t *x = alloc_or_error(k, (size_t)xb);
    uint32_t *want = x ? alloc_or_error(k, (size_t)(rows * c.c * 4)) : NULL;
    uint32_t *got = want ? alloc_or_error(k, (size_t)(rows * c.c * 4)) : NULL;
    int rc = got ? 0 : -1;
    if (rc == 0)
        tpu_expect_initial_read(k->obj, k->e->ops[1].space, k->e->ops[1].value, (uint8_t *)x,
                                (size_t)xb);
    for (uint64_t p0 = 0; rc == 0 && p0 < pix; p0 += rows) {
        uint64_t nr = pix - p0 < rows ? pix - p0 : rows;
        tpu_ref_pool(&c, (unsigned)mode, x, p0, nr, want);
        rc = compare_rows(k, want, p0, nr, c.c, 0, got);
    }
    free(x); free(want); free(got);
    return rc;
}

/* One record on one core: 0 pass, 1 mismatch, -1 error (res filled). */
static int check_one(checker *k)
{
    if (k->e->nops > TPU_OBJ_MAX_EXPECT_OPS)
        return check_error(k, "has %u operands (at most %u)", k->e->nops,
                           TPU_OBJ_MAX_EXPECT_OPS);
    switch (k->e->op) {
    case TPU_EXPECT_MATMUL: return check_matmul(k);
    case TPU_EXPECT_MATMUL_I8: return check_matmul_i8(k);
    case TPU_EXPECT_MATMUL_W8: case TPU_EXPECT_MATMUL_W8S: return check_matmul_w8(k);
    case TPU_EXPECT_ADD: case TPU_EXPECT_SUB: case TPU_EXPECT_MUL:
    case TPU_EXPECT_MAX: case TPU_EXPECT_MIN: case TPU_EXPECT_RELU:
    case TPU_EXPECT_ADD_RELU:
        return check_pointwise(k);
    case TPU_EXPECT_COPY: return check_copy(k);
    case TPU_EXPECT_F32: return check_f32(k);
    case TPU_EXPECT_SUM: return check_sum(k);
    case TPU_EXPECT_MATMUL_EPI: return check_matmul_epi(k);
    case TPU_EXPECT_CONV2D: return check_conv2d(k);
    case TPU_EXPECT_POOL: return check_pool(k);
    case TPU_EXPECT_SOFTMAX: return check_softmax(k);
    case TPU_EXPECT_SOFTMAX_S: case TPU_EXPECT_LAYERNORM: case TPU_EXPECT_RMSNORM:
    case TPU_EXPECT_GELU: case TPU_EXPECT_SILU: case TPU_EXPECT_RESIDUAL: return check_nn(k);
    default: return check_error(k, "unknown operation %u", k->e->op);
    }
}

void tpu_expect_check(const tpu_object *obj, const tpu_expect_target *t, tpu_expect_result *res)
{
    memset(res, 0, sizeof *res);
    if (obj->nexpects == 0) {
        res->status = TPU_EXPECT_NONE;
        snprintf(res->message, sizeof res->message, "no .expect records");
        return;
    }
    checker k = { .obj = obj, .t = t, .res = res };
    for (size_t i = 0; i < obj->nexpects; i++) {
        k.index = i + 1;
        k.e = &obj->expects[i];
        unsigned first = 0, last = t->ncores ? t->ncores - 1 : 0;
        if (k.e->core >= 0) {
            if ((unsigned)k.e->core >= t->ncores) {
                k.core = 0;
                check_error(&k, "core %d does not exist (the system has %u core%s)",
                            (int)k.e->core, t->ncores, t->ncores == 1 ? "" : "s");
                return;
            }
            first = last = (unsigned)k.e->core;
        } else if (k.e->core != -1) {
            check_error(&k, "bad core number %d", (int)k.e->core);
            return;
        }
        for (unsigned c = first; c <= last; c++) {
            k.core = c;
            if (check_one(&k) != 0)
                return;                     /* status and message are set */
            res->checked++;
        }
    }
    res->status = TPU_EXPECT_PASS;
    snprintf(res->message, sizeof res->message, "bit-exact");
}
