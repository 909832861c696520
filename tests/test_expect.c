/*
 * test_expect.c - the .expect checker (cmodel/expect.c) against a fake
 * machine: per-core HBM and VMEM byte arrays behind the read callback.
 * No C model is needed.  Each test builds an object with the builder
 * calls, writes the "results" into the fake memory and checks the status
 * and the exact message.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expect.h"
#include "fp.h"
#include "objfile.h"
#include "ref.h"

#define FAKE_HBM   0x10000u
#define FAKE_VMEM  0x8000u
#define FAKE_CORES 2

typedef struct fake {
    uint8_t hbm[FAKE_CORES][FAKE_HBM];
    uint8_t vmem[FAKE_CORES][FAKE_VMEM];
    unsigned reads[FAKE_CORES];          /* callback calls per core */
    uint64_t readable;                   /* bytes of HBM the callback serves (for failures) */
} fake;

static int fake_read(void *ctx, unsigned core, enum tpu_space space, uint64_t addr, void *dst,
                     size_t n)
{
    fake *f = ctx;
    assert_true(core < FAKE_CORES);
    f->reads[core]++;
    uint8_t *mem = space == TPU_SPACE_HBM ? f->hbm[core] : f->vmem[core];
    uint64_t size = space == TPU_SPACE_HBM ? f->readable : FAKE_VMEM;
    if (space != TPU_SPACE_HBM && space != TPU_SPACE_VMEM)
        return -1;
    if (addr > size || n > size - addr)
        return -1;
    memcpy(dst, mem + addr, n);
    return 0;
}

static fake *new_fake(void)
{
    fake *f = calloc(1, sizeof *f);
    assert_non_null(f);
    f->readable = FAKE_HBM;
    return f;
}

static tpu_expect_target target_for(fake *f, unsigned ncores, unsigned tile)
{
    tpu_expect_target t = { .ncores = ncores, .tile = tile, .hbm_bytes = FAKE_HBM,
                            .vmem_bytes = FAKE_VMEM, .read = fake_read, .ctx = f };
    return t;
}

static tpu_obj_expect_operand addr(uint8_t space, uint64_t a)
{
    tpu_obj_expect_operand o = { space, a };
    return o;
}

static tpu_obj_expect_operand num(uint64_t v)
{
    tpu_obj_expect_operand o = { TPU_SPACE_NONE, v };
    return o;
}

static void add_expect(tpu_object *o, uint32_t op, int32_t core, unsigned nops,
                       const tpu_obj_expect_operand *ops)
{
    tpu_obj_expect e;
    memset(&e, 0, sizeof e);
    e.op = op;
    e.core = core;
    e.nops = nops;
    memcpy(e.ops, ops, nops * sizeof *ops);
    assert_int_equal(tpu_obj_add_expect(o, &e), 0);
}

/* Put the same bytes into one space of every core of the fake. */
static void fake_put(fake *f, uint8_t space, uint64_t a, const void *src, size_t n)
{
    for (int c = 0; c < FAKE_CORES; c++)
        memcpy((space == TPU_SPACE_HBM ? f->hbm[c] : f->vmem[c]) + a, src, n);
}

static void put32(fake *f, unsigned core, uint8_t space, uint64_t a, uint32_t v)
{
    memcpy((space == TPU_SPACE_HBM ? f->hbm[core] : f->vmem[core]) + a, &v, 4);
}

/* ---- no records --------------------------------------------------------------- */

static void test_no_expects(void **state)
{
    (void)state;
    tpu_object o;
    tpu_obj_init(&o);
    fake *f = new_fake();
    tpu_expect_target t = target_for(f, 1, 8);
    tpu_expect_result r;
    tpu_expect_check(&o, &t, &r);
    assert_int_equal(r.status, TPU_EXPECT_NONE);
    assert_string_equal(r.message, "no .expect records");
    tpu_obj_free(&o);
    free(f);
}

/* ---- matmul --------------------------------------------------------------------- */

enum { MB = 4, MD = 12, MF = 6, MTILE = 8 };   /* D = 12: one full tile of 8 and one of 4 */
#define X_ADDR 0x1000u
#define W_ADDR 0x2000u
#define Y_ADDR 0x3000u

/* X: row r is [1, 0, 0, ...] except a few random values; W random, with
 * W[0][5] = 1 and W[k][5] = 0 beyond, so Y[r][5] = 1.0 exactly. */
static void build_matmul(tpu_object *o, uint16_t *x, uint16_t *w)
{
    for (int i = 0; i < MB * MD; i++)
        x[i] = (uint16_t)((i % MD == 0) ? 0x3f80 : (i % 5 == 0 ? 0x4040 + i : 0));
    for (int i = 0; i < MD * MF; i++)
        w[i] = (uint16_t)(0x3e00 + 37 * i % 512) ^ (uint16_t)(i % 3 == 0 ? 0x8000 : 0);
    for (int k = 0; k < MD; k++)
        w[k * MF + 5] = k == 0 ? 0x3f80 : 0;
    assert_int_equal(tpu_obj_add_data(o, TPU_SPACE_HBM, X_ADDR, (const uint8_t *)x, sizeof(uint16_t) * MB * MD), 0);
    assert_int_equal(tpu_obj_add_data(o, TPU_SPACE_HBM, W_ADDR, (const uint8_t *)w, sizeof(uint16_t) * MD * MF), 0);
    tpu_obj_expect_operand ops[6] = { addr(TPU_SPACE_HBM, Y_ADDR), addr(TPU_SPACE_HBM, X_ADDR),
                                      addr(TPU_SPACE_HBM, W_ADDR), num(MB), num(MD), num(MF) };
    add_expect(o, TPU_EXPECT_MATMUL, -1, 6, ops);
}

/* The expected Y by the plain definition (tpu_mac, K-tiles of MTILE). */
static void plain_matmul(const uint16_t *x, const uint16_t *w, uint32_t *y)
{
    for (int r = 0; r < MB; r++)
        for (int c = 0; c < MF; c++) {
            uint32_t out = 0;
            for (int k0 = 0; k0 < MD; k0 += MTILE) {
                uint32_t s = 0;
                for (int k = k0; k < MD && k < k0 + MTILE; k++)
                    s = tpu_mac(s, x[r * MD + k], w[k * MF + c]);
                out = k0 == 0 ? s : tpu_f32_add(out, s);
            }
            y[r * MF + c] = out;
        }
}

static void test_matmul_pass_and_mismatch(void **state)
{
    (void)state;
    tpu_object o;
    tpu_obj_init(&o);
    uint16_t x[MB * MD], w[MD * MF];
    uint32_t y[MB * MF];
    build_matmul(&o, x, w);
    plain_matmul(x, w, y);
    assert_int_equal(y[3 * MF + 5], 0x3f800000u);

    fake *f = new_fake();
    fake_put(f, TPU_SPACE_HBM, Y_ADDR, y, sizeof y);
    /* the program overwrote its inputs: the checker must use the object's data */
    memset(f->hbm[0] + X_ADDR, 0x77, sizeof x);
    memset(f->hbm[0] + W_ADDR, 0x77, sizeof w);
    tpu_expect_target t = target_for(f, 1, MTILE);
    tpu_expect_result r;
    tpu_expect_check(&o, &t, &r);
    assert_string_equal(r.message, "bit-exact");
    assert_int_equal(r.status, TPU_EXPECT_PASS);
    assert_int_equal(r.checked, 1);

    put32(f, 0, TPU_SPACE_HBM, Y_ADDR + (3 * MF + 5) * 4, 0x3f800001u);
    tpu_expect_check(&o, &t, &r);
    assert_int_equal(r.status, TPU_EXPECT_MISMATCH);
    assert_string_equal(r.message, "MISMATCH in matmul Y (hbm 0x3000) at [3][5]: expected "
                                   "0x3f800000 (1), got 0x3f800001 (1.00000012)");
    assert_int_equal(r.checked, 0);

    /* the first differing element in row-major order is reported */
    put32(f, 0, TPU_SPACE_HBM, Y_ADDR + (1 * MF + 2) * 4, y[1 * MF + 2] ^ 1);
    tpu_expect_check(&o, &t, &r);
    assert_int_equal(r.status, TPU_EXPECT_MISMATCH);
    assert_non_null(strstr(r.message, " at [1][2]: "));

    /* all correct again */
    fake_put(f, TPU_SPACE_HBM, Y_ADDR, y, sizeof y);
    tpu_expect_check(&o, &t, &r);
    assert_int_equal(r.status, TPU_EXPECT_PASS);
    tpu_obj_free(&o);
    free(f);
}

/* K-tiling is part of the reference: numerics.md's worked example gives
 * 1.0 with tile 2 and 0.0 with one tile of 4. */
static void test_matmul_uses_tile(void **state)
{
    (void)state;
    tpu_object o;
    tpu_obj_init(&o);
    uint16_t x[4] = { 0x3f80, 0x3f80, 0x3f80, 0x3f80 }, w[4] = { 0x4b80, 0x3f80, 0x3f80, 0xcb80 };
    assert_int_equal(tpu_obj_add_data(&o, TPU_SPACE_VMEM, 0x100, (const uint8_t *)x, 8), 0);
    assert_int_equal(tpu_obj_add_data(&o, TPU_SPACE_VMEM, 0x200, (const uint8_t *)w, 8), 0);
    tpu_obj_expect_operand ops[6] = { addr(TPU_SPACE_VMEM, 0x300), addr(TPU_SPACE_VMEM, 0x100),
                                      addr(TPU_SPACE_VMEM, 0x200), num(1), num(4), num(1) };
    add_expect(&o, TPU_EXPECT_MATMUL, -1, 6, ops);
    fake *f = new_fake();
    put32(f, 0, TPU_SPACE_VMEM, 0x300, 0x3f800000u);
    tpu_expect_target t = target_for(f, 1, 2);
    tpu_expect_result r;
    tpu_expect_check(&o, &t, &r);
    assert_int_equal(r.status, TPU_EXPECT_PASS);
    t.tile = 4;
    tpu_expect_check(&o, &t, &r);
    assert_int_equal(r.status, TPU_EXPECT_MISMATCH);
    assert_string_equal(r.message, "MISMATCH in matmul Y (vmem 0x300) at [0][0]: expected "
                                   "0x00000000 (0), got 0x3f800000 (1)");
    tpu_obj_free(&o);
    free(f);
}

/* Inputs from random FILLs; checked in several row blocks. */
static void test_matmul_from_fill(void **state)
{
    (void)state;
    enum { B = 40, D = 20, F = 200 };
    tpu_object o;
    tpu_obj_init(&o);
    assert_int_equal(tpu_obj_add_fill(&o, TPU_SPACE_HBM, 0, TPU_FILL_RANDOM_BF16, B * D * 2, 7,
                                      0xbf800000u, 0x3f800000u), 0);
    assert_int_equal(tpu_obj_add_fill(&o, TPU_SPACE_HBM, 0x1000, TPU_FILL_RANDOM_BF16, D * F * 2,
                                      8, 0xc0000000u, 0x40000000u), 0);
    tpu_obj_expect_operand ops[6] = { addr(TPU_SPACE_VMEM, 0), addr(TPU_SPACE_HBM, 0),
                                      addr(TPU_SPACE_HBM, 0x1000), num(B), num(D), num(F) };
    add_expect(&o, TPU_EXPECT_MATMUL, -1, 6, ops);
    static uint16_t x[B * D], w[D * F];
    static uint32_t y[B * F];
    tpu_expect_initial_read(&o, TPU_SPACE_HBM, 0, (uint8_t *)x, sizeof x);
    tpu_expect_initial_read(&o, TPU_SPACE_HBM, 0x1000, (uint8_t *)w, sizeof w);
    /* the fill really is random bf16 in [-1, 1) */
    for (int i = 0; i < B * D; i++) {
        uint32_t v = (uint32_t)x[i] << 16;
        assert_true(tpu_f32_to_float(v) >= -1.0f && tpu_f32_to_float(v) <= 1.0f);  /* bf16 may round up to 1 */
    }
    assert_int_not_equal(x[0], x[1]);
    assert_int_equal(tpu_ref_matmul(x, w, y, B, D, F, 8), 0);
    fake *f = new_fake();
    fake_put(f, TPU_SPACE_VMEM, 0, y, sizeof y);
    tpu_expect_target t = target_for(f, 1, 8);
    t.block_bytes = 7 * F * 4;         /* blocks of 7 rows: 6 blocks, the last one short */
    tpu_expect_result r;
    tpu_expect_check(&o, &t, &r);
    assert_int_equal(r.status, TPU_EXPECT_PASS);
    put32(f, 0, TPU_SPACE_VMEM, 8 * F * 4 + 4 * 3, y[8 * F + 3] ^ 1);   /* second block */
    tpu_expect_check(&o, &t, &r);
    assert_int_equal(r.status, TPU_EXPECT_MISMATCH);
    assert_non_null(strstr(r.message, "at [8][3]: "));
    put32(f, 0, TPU_SPACE_VMEM, 8 * F * 4 + 4 * 3, y[8 * F + 3]);
    put32(f, 0, TPU_SPACE_VMEM, (uint64_t)(B - 1) * F * 4 + 4 * (F - 1), y[B * F - 1] ^ 0x80000000u);
    tpu_expect_check(&o, &t, &r);
    assert_int_equal(r.status, TPU_EXPECT_MISMATCH);
    assert_non_null(strstr(r.message, "at [39][199]: "));
    tpu_obj_free(&o);
    free(f);
}

/* ---- initial data ------------------------------------------------------------------ */

static void test_initial_read(void **state)
{
    (void)state;
    tpu_object o;
    tpu_obj_init(&o);
    const uint8_t a[4] = { 1, 2, 3, 4 }, b[2] = { 9, 9 };
    assert_int_equal(tpu_obj_add_data(&o, TPU_SPACE_HBM, 10, a, 4), 0);
    assert_int_equal(tpu_obj_add_data(&o, TPU_SPACE_HBM, 12, b, 2), 0);  /* later wins */
    assert_int_equal(tpu_obj_add_data(&o, TPU_SPACE_VMEM, 10, b, 2), 0);  /* other space */
    uint8_t buf[10];
    memset(buf, 0xee, sizeof buf);
    tpu_expect_initial_read(&o, TPU_SPACE_HBM, 8, buf, sizeof buf);
    const uint8_t want[10] = { 0, 0, 1, 2, 9, 9, 0, 0, 0, 0 };
    assert_memory_equal(buf, want, sizeof want);
    tpu_expect_initial_read(&o, TPU_SPACE_HBM, 13, buf, 1);
    assert_int_equal(buf[0], 9);
    tpu_expect_initial_read(&o, TPU_SPACE_HBM, UINT64_MAX - 3, buf, 4);   /* no wrap-around */
    assert_int_equal(buf[0] | buf[1] | buf[2] | buf[3], 0);
    tpu_obj_free(&o);
}

/* ---- pointwise, copy, f32 ------------------------------------------------------------ */

static uint32_t add_relu(uint32_t x, uint32_t y)
{
    return tpu_f32_relu(tpu_f32_add(x, y));
}

static void test_pointwise_ops(void **state)
{
    (void)state;
    enum { N = 16 };
    uint32_t xa[N], ya[N];
    for (int i = 0; i < N; i++) {
        xa[i] = 0x3f800000u + (uint32_t)i * 0x00123456u;
        ya[i] = (i & 1) ? 0xc0000000u : 0x00000001u;   /* -2.0 or a subnormal (a zero) */
    }
    xa[3] = 0x7fc12345u;       /* a NaN with a payload */
    static const struct { uint32_t op; uint32_t (*fn)(uint32_t, uint32_t); const char *name; } ops[] = {
        { TPU_EXPECT_ADD, tpu_f32_add, "add" }, { TPU_EXPECT_SUB, tpu_f32_sub, "sub" },
        { TPU_EXPECT_MUL, tpu_f32_mul, "mul" }, { TPU_EXPECT_MAX, tpu_f32_max, "max" },
        { TPU_EXPECT_MIN, tpu_f32_min, "min" }, { TPU_EXPECT_RELU, NULL, "relu" },
        { TPU_EXPECT_ADD_RELU, add_relu, "add_relu" },
    };
    for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++) {
        tpu_object o;
        tpu_obj_init(&o);
        assert_int_equal(tpu_obj_add_data(&o, TPU_SPACE_VMEM, 0x100, (const uint8_t *)xa, sizeof xa), 0);
        assert_int_equal(tpu_obj_add_data(&o, TPU_SPACE_HBM, 0x200, (const uint8_t *)ya, sizeof ya), 0);
        uint32_t z[N];
        if (ops[k].fn) {
            tpu_obj_expect_operand eo[4] = { addr(TPU_SPACE_HBM, 0x400), addr(TPU_SPACE_VMEM, 0x100),
                                             addr(TPU_SPACE_HBM, 0x200), num(N) };
            add_expect(&o, ops[k].op, -1, 4, eo);
            for (int i = 0; i < N; i++)
                z[i] = ops[k].fn(xa[i], ya[i]);
        } else {
            tpu_obj_expect_operand eo[3] = { addr(TPU_SPACE_HBM, 0x400), addr(TPU_SPACE_VMEM, 0x100),
                                             num(N) };
            add_expect(&o, ops[k].op, -1, 3, eo);
            for (int i = 0; i < N; i++)
                z[i] = tpu_f32_relu(xa[i]);
        }
        assert_int_equal(z[3], TPU_F32_QNAN);
        fake *f = new_fake();
        fake_put(f, TPU_SPACE_HBM, 0x400, z, sizeof z);
        tpu_expect_target t = target_for(f, 1, 8);
        t.block_bytes = 4 * (k + 1);       /* blocks of 1..6 elements */
        tpu_expect_result r;
        tpu_expect_check(&o, &t, &r);
        assert_int_equal(r.status, TPU_EXPECT_PASS);
        put32(f, 0, TPU_SPACE_HBM, 0x400 + 7 * 4, z[7] + 1);
        tpu_expect_check(&o, &t, &r);
        assert_int_equal(r.status, TPU_EXPECT_MISMATCH);
        char prefix[64];
        snprintf(prefix, sizeof prefix, "MISMATCH in %s Z (hbm 0x400) at [7]: expected 0x%08x",
                 ops[k].name, z[7]);
        assert_true(strncmp(r.message, prefix, strlen(prefix)) == 0);
        /* a non-canonical NaN is not the canonical one */
        fake_put(f, TPU_SPACE_HBM, 0x400, z, sizeof z);
        put32(f, 0, TPU_SPACE_HBM, 0x400 + 3 * 4, 0xffc00000u);
        tpu_expect_check(&o, &t, &r);
        assert_int_equal(r.status, TPU_EXPECT_MISMATCH);
        assert_non_null(strstr(r.message, "at [3]: expected 0x7fc00000 (nan), got 0xffc00000"));
        tpu_obj_free(&o);
        free(f);
    }
}

/* softmax Z, X, N, C against a plain loop over the fp.c functions; a wrong
 * element, and a sum added in the other order, are caught. */
static void test_softmax(void **state)
{
    (void)state;
    enum { N = 5, C = 4 };
    uint32_t x[C * N], z[C * N];
    for (int i = 0; i < C * N; i++)
        x[i] = tpu_f32_from_float(-7.5f + 1.37f * (float)((i * 7) % 13));
    x[0] = 0;                                  /* row 0: 1 + three e^-17 depends on the order */
    for (int c = 1; c < C; c++)
        x[c * N] = tpu_f32_from_float(-17.0f);
    for (int i = 0; i < N; i++) {
        uint32_t m = x[i], s = 0, e[C];
        for (int c = 1; c < C; c++)
            m = tpu_f32_max(m, x[c * N + i]);
        for (int c = 0; c < C; c++) {
            e[c] = tpu_f32_exp(tpu_f32_sub(x[c * N + i], m));
            s = c ? tpu_f32_add(s, e[c]) : e[c];
        }
        for (int c = 0; c < C; c++)
            z[c * N + i] = tpu_f32_mul(e[c], tpu_f32_rcp(s));
    }
    tpu_object o;
    tpu_obj_init(&o);
    assert_int_equal(tpu_obj_add_data(&o, TPU_SPACE_VMEM, 0x100, (const uint8_t *)x, sizeof x), 0);
    tpu_obj_expect_operand eo[4] = { addr(TPU_SPACE_VMEM, 0x400), addr(TPU_SPACE_VMEM, 0x100),
                                     num(N), num(C) };
    add_expect(&o, TPU_EXPECT_SOFTMAX, -1, 4, eo);
    fake *f = new_fake();
    fake_put(f, TPU_SPACE_VMEM, 0x400, z, sizeof z);
    tpu_expect_target t = target_for(f, 1, 8);
    tpu_expect_result r;
    tpu_expect_check(&o, &t, &r);
    assert_int_equal(r.status, TPU_EXPECT_PASS);
    put32(f, 0, TPU_SPACE_VMEM, 0x400 + (2 * N + 3) * 4, z[2 * N + 3] + 1);
    tpu_expect_check(&o, &t, &r);
    assert_int_equal(r.status, TPU_EXPECT_MISMATCH);
    assert_non_null(strstr(r.message, "softmax Z (vmem 0x400) at [row 3][col 2]"));
    /* the sum right to left instead: some element differs */
    for (int i = 0; i < N; i++) {
        uint32_t m = x[i], s = 0, e[C];
        for (int c = 1; c < C; c++)
            m = tpu_f32_max(m, x[c * N + i]);
        for (int c = C - 1; c >= 0; c--) {
            e[c] = tpu_f32_exp(tpu_f32_sub(x[c * N + i], m));
            s = c < C - 1 ? tpu_f32_add(s, e[c]) : e[c];
        }
        for (int c = 0; c < C; c++)
            put32(f, 0, TPU_SPACE_VMEM, 0x400 + (uint64_t)(c * N + i) * 4,
                  tpu_f32_mul(e[c], tpu_f32_rcp(s)));
    }
    tpu_expect_check(&o, &t, &r);
    assert_int_equal(r.status, TPU_EXPECT_MISMATCH);
    tpu_obj_free(&o);
    free(f);
}

static void test_copy_and_f32(void **state)
{
    (void)state;
    tpu_object o;
    tpu_obj_init(&o);
    const uint8_t src[5] = { 10, 20, 30, 40, 50 };
    assert_int_equal(tpu_obj_add_data(&o, TPU_SPACE_HBM, 0x10, src, 5), 0);
    tpu_obj_expect_operand c[3] = { addr(TPU_SPACE_VMEM, 0x40), addr(TPU_SPACE_HBM, 0x10), num(5) };
    add_expect(&o, TPU_EXPECT_COPY, -1, 3, c);
    tpu_obj_expect_operand v[4] = { addr(TPU_SPACE_VMEM, 0x80), num(0x3f800000u), num(0x80000000u),
                                    num(0x7fc00000u) };
    add_expect(&o, TPU_EXPECT_F32, -1, 4, v);
    fake *f = new_fake();
    memset(f->hbm[0] + 0x10, 0, 5);        /* source overwritten after the run */
    fake_put(f, TPU_SPACE_VMEM, 0x40, src, 5);
    uint32_t vals[3] = { 0x3f800000u, 0x80000000u, 0x7fc00000u };
    fake_put(f, TPU_SPACE_VMEM, 0x80, vals, sizeof vals);
    tpu_expect_target t = target_for(f, 1, 8);
    t.block_bytes = 2;                     /* the copy in blocks of 2 bytes */
    tpu_expect_result r;
    tpu_expect_check(&o, &t, &r);
    assert_string_equal(r.message, "bit-exact");
    assert_int_equal(r.checked, 2);

    f->vmem[0][0x43] = 41;
    tpu_expect_check(&o, &t, &r);
    assert_int_equal(r.status, TPU_EXPECT_MISMATCH);
    assert_string_equal(r.message, "MISMATCH in copy DST (vmem 0x40) at byte 3: expected 0x28 "
                                   "(from hbm 0x13), got 0x29");
    f->vmem[0][0x43] = 40;
    put32(f, 0, TPU_SPACE_VMEM, 0x84, 0x00000000u);   /* +0 where -0 was expected */
    tpu_expect_check(&o, &t, &r);
    assert_int_equal(r.status, TPU_EXPECT_MISMATCH);
    assert_string_equal(r.message, "MISMATCH in f32 ADDR (vmem 0x80) at [1]: expected 0x80000000 "
                                   "(-0), got 0x00000000 (0)");
    assert_int_equal(r.checked, 1);        /* the copy passed before */
    tpu_obj_free(&o);
    free(f);
}

/* sum: left to right, so 1e8 + 1 - 1e8 is 0 (1 in any other order); the
 * terms STRIDE bytes apart; bad K and a region past the memory are errors. */
static void test_sum(void **state)
{
    (void)state;
    tpu_object o;
    tpu_obj_init(&o);
    const uint32_t x[12] = { 0x4cbebc20u, 0x3f800000u, 0x40000000u, 0,      /* X_0: 1e8, 1, 2 */
                             0x3f800000u, 0x3f800000u, 0x40400000u, 0,      /* X_1: 1, 1, 3 */
                             0xccbebc20u, 0xbf800000u, 0x40800000u, 0 };    /* X_2: -1e8, -1, 4 */
    assert_int_equal(tpu_obj_add_data(&o, TPU_SPACE_HBM, 0x100, (const uint8_t *)x, sizeof x), 0);
    tpu_obj_expect_operand ops[5] = { addr(TPU_SPACE_VMEM, 0x40), addr(TPU_SPACE_HBM, 0x100),
                                      num(16), num(3), num(3) };
    add_expect(&o, TPU_EXPECT_SUM, -1, 5, ops);
    fake *f = new_fake();
    const uint32_t z[3] = { 0, 0x3f800000u, 0x41100000u };                  /* 0, 1, 9 */
    fake_put(f, TPU_SPACE_VMEM, 0x40, z, sizeof z);
    tpu_expect_target t = target_for(f, 2, 8);
    t.block_bytes = 8;                     /* two elements per block */
    tpu_expect_result r;
    tpu_expect_check(&o, &t, &r);
    assert_string_equal(r.message, "bit-exact");
    assert_int_equal(r.checked, 2);

    put32(f, 1, TPU_SPACE_VMEM, 0x40, 0x3f800000u);     /* 1: the sum in another order */
    tpu_expect_check(&o, &t, &r);
    assert_int_equal(r.status, TPU_EXPECT_MISMATCH);
    assert_string_equal(r.message, "MISMATCH on core 1 in sum Z (vmem 0x40) at [0]: expected "
                                   "0x00000000 (0), got 0x3f800000 (1)");
    tpu_obj_free(&o);

    tpu_obj_init(&o);
    ops[3] = num(0);
    add_expect(&o, TPU_EXPECT_SUM, -1, 5, ops);
    tpu_expect_check(&o, &t, &r);
    assert_int_equal(r.status, TPU_EXPECT_ERROR);
    assert_non_null(strstr(r.message, "K = 0: must be 1 to 65536"));
    tpu_obj_free(&o);

    tpu_obj_init(&o);
    ops[3] = num(3);
    ops[2] = num(FAKE_HBM);                /* X_2 would be past the end of HBM */
    add_expect(&o, TPU_EXPECT_SUM, -1, 5, ops);
    tpu_expect_check(&o, &t, &r);
    assert_int_equal(r.status, TPU_EXPECT_ERROR);
    assert_non_null(strstr(r.message, "is outside HBM"));
    tpu_obj_free(&o);
    free(f);
}

/* ---- cores ----------------------------------------------------------------------------- */

static void test_core_restrictions(void **state)
{
    (void)state;
    tpu_object o;
    tpu_obj_init(&o);
    tpu_obj_expect_operand v[2] = { addr(TPU_SPACE_VMEM, 0x10), num(0x40400000u) };
    add_expect(&o, TPU_EXPECT_F32, 1, 2, v);             /* only core 1 */
    fake *f = new_fake();
    put32(f, 1, TPU_SPACE_VMEM, 0x10, 0x40400000u);     /* core 0 has something else */
    tpu_expect_target t = target_for(f, 2, 8);
    tpu_expect_result r;
    tpu_expect_check(&o, &t, &r);
    assert_int_equal(r.status, TPU_EXPECT_PASS);
    assert_int_equal(r.checked, 1);
    assert_int_equal(f->reads[0], 0);
    assert_int_equal(f->reads[1], 1);

    /* every core: core 0 is wrong, and the message names it */
    o.expects[0].core = -1;
    tpu_expect_check(&o, &t, &r);
    assert_int_equal(r.status, TPU_EXPECT_MISMATCH);
    assert_string_equal(r.message, "MISMATCH on core 0 in f32 ADDR (vmem 0x10) at [0]: expected "
                                   "0x40400000 (3), got 0x00000000 (0)");
    put32(f, 0, TPU_SPACE_VMEM, 0x10, 0x40400000u);
    put32(f, 1, TPU_SPACE_VMEM, 0x10, 0x40400001u);
    tpu_expect_check(&o, &t, &r);
    assert_int_equal(r.status, TPU_EXPECT_MISMATCH);
    assert_true(strncmp(r.message, "MISMATCH on core 1 in f32", 25) == 0);
    put32(f, 1, TPU_SPACE_VMEM, 0x10, 0x40400000u);
    tpu_expect_check(&o, &t, &r);
    assert_int_equal(r.status, TPU_EXPECT_PASS);
    assert_int_equal(r.checked, 2);

    /* a core the system does not have */
    o.expects[0].core = 3;
    tpu_expect_check(&o, &t, &r);
    assert_int_equal(r.status, TPU_EXPECT_ERROR);
    assert_string_equal(r.message, ".expect #1 (f32): core 3 does not exist (the system has 2 cores)");
    tpu_obj_free(&o);
    free(f);
}

/* ---- bad records -------------------------------------------------------------------------- */

/* One record alone; returns the result. */
static tpu_expect_result check_alone(uint32_t op, unsigned nops, const tpu_obj_expect_operand *ops,
                                     uint64_t readable)
{
    tpu_object o;
    tpu_obj_init(&o);
    add_expect(&o, op, -1, nops, ops);
    fake *f = new_fake();
    f->readable = readable;
    tpu_expect_target t = target_for(f, 1, 8);
    tpu_expect_result r;
    tpu_expect_check(&o, &t, &r);
    tpu_obj_free(&o);
    free(f);
    return r;
}

static void test_bad_records(void **state)
{
    (void)state;
    tpu_expect_result r;
    /* Y given as a number */
    tpu_obj_expect_operand m1[6] = { num(0x3000), addr(TPU_SPACE_HBM, 0), addr(TPU_SPACE_HBM, 0),
                                     num(1), num(1), num(1) };
    r = check_alone(TPU_EXPECT_MATMUL, 6, m1, FAKE_HBM);
    assert_int_equal(r.status, TPU_EXPECT_ERROR);
    assert_string_equal(r.message, ".expect #1 (matmul): Y must be an HBM or VMEM address");
    /* outside the memory */
    tpu_obj_expect_operand m2[6] = { addr(TPU_SPACE_HBM, FAKE_HBM - 8), addr(TPU_SPACE_HBM, 0),
                                     addr(TPU_SPACE_HBM, 0), num(2), num(2), num(2) };
    r = check_alone(TPU_EXPECT_MATMUL, 6, m2, FAKE_HBM);
    assert_int_equal(r.status, TPU_EXPECT_ERROR);
    assert_string_equal(r.message, ".expect #1 (matmul): Y (hbm 0xfff8, 16 bytes) is outside "
                                   "HBM (0x10000 bytes)");
    /* absurd sizes: refused before any allocation or work */
    tpu_obj_expect_operand m3[6] = { addr(TPU_SPACE_HBM, 0), addr(TPU_SPACE_HBM, 0),
                                     addr(TPU_SPACE_HBM, 0), num(1ull << 40), num(1ull << 40),
                                     num(1ull << 40) };
    r = check_alone(TPU_EXPECT_MATMUL, 6, m3, FAKE_HBM);
    assert_int_equal(r.status, TPU_EXPECT_ERROR);
    assert_non_null(strstr(r.message, "too large to check"));
    tpu_obj_expect_operand m4[6] = { addr(TPU_SPACE_HBM, 0), addr(TPU_SPACE_HBM, 0),
                                     addr(TPU_SPACE_HBM, 0), num(1u << 14), num(1u << 14),
                                     num(1u << 14) };   /* each array <= 1 GiB, 2^42 MACs */
    r = check_alone(TPU_EXPECT_MATMUL, 6, m4, FAKE_HBM);
    assert_int_equal(r.status, TPU_EXPECT_ERROR);
    assert_non_null(strstr(r.message, "multiply-adds: too large to check"));
    tpu_obj_expect_operand p1[4] = { addr(TPU_SPACE_HBM, 0), addr(TPU_SPACE_HBM, 0),
                                     addr(TPU_SPACE_HBM, 0), num(UINT64_MAX / 2) };
    r = check_alone(TPU_EXPECT_ADD, 4, p1, FAKE_HBM);
    assert_int_equal(r.status, TPU_EXPECT_ERROR);
    assert_non_null(strstr(r.message, "too large to check"));
    /* wrong operand count, IMEM address, unknown op */
    r = check_alone(TPU_EXPECT_ADD, 3, p1, FAKE_HBM);
    assert_string_equal(r.message, ".expect #1 (add): takes 4 operands, the record has 3");
    tpu_obj_expect_operand c1[3] = { addr(TPU_SPACE_IMEM, 0), addr(TPU_SPACE_HBM, 0), num(4) };
    r = check_alone(TPU_EXPECT_COPY, 3, c1, FAKE_HBM);
    assert_string_equal(r.message, ".expect #1 (copy): DST must be an HBM or VMEM address");
    r = check_alone(99, 3, c1, FAKE_HBM);
    assert_int_equal(r.status, TPU_EXPECT_ERROR);
    assert_string_equal(r.message, ".expect #1 (?): unknown operation 99");
    tpu_obj_expect_operand f1[2] = { addr(TPU_SPACE_HBM, 0), num(1ull << 32) };
    r = check_alone(TPU_EXPECT_F32, 2, f1, FAKE_HBM);
    assert_string_equal(r.message, ".expect #1 (f32): value 0 (0x100000000) is not a 32-bit pattern");
    /* the machine cannot deliver the output */
    tpu_obj_expect_operand f2[2] = { addr(TPU_SPACE_HBM, 0x100), num(0) };
    r = check_alone(TPU_EXPECT_F32, 2, f2, 0x80);
    assert_int_equal(r.status, TPU_EXPECT_ERROR);
    assert_string_equal(r.message, ".expect #1 (f32): cannot read ADDR (hbm 0x100, 4 bytes) on core 0");
}

/* The multiply-add limit of the matmul checks, at its edge: B x D x F =
 * TPU_EXPECT_MAX_MACS passes on (and meets the small fake HBM), 1.5 times
 * that is refused, for every element size of X (bf16, int8). */
static void test_matmul_mac_limit(void **state)
{
    (void)state;
    static const struct { uint32_t op; unsigned nops; const char *name; } ops[] = {
        { TPU_EXPECT_MATMUL, 6, "matmul" },
        { TPU_EXPECT_MATMUL_I8, 6, "matmul_i8" },
        { TPU_EXPECT_MATMUL_W8, 6, "matmul_w8" },
        { TPU_EXPECT_MATMUL_W8S, 7, "matmul_w8s" },
    };
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
        for (int over = 0; over <= 1; over++) {
            uint64_t f = over ? 6144 : 4096; /* B = D = 2^13: 2^38 or 1.5 x 2^38 MACs */
            tpu_obj_expect_operand m[7];
            unsigned n = 0;
            for (unsigned a = 0; a < ops[i].nops - 3; a++)
                m[n++] = addr(TPU_SPACE_HBM, 0);
            m[n++] = num(1u << 13);
            m[n++] = num(1u << 13);
            m[n++] = num(f);
            tpu_expect_result r = check_alone(ops[i].op, ops[i].nops, m, FAKE_HBM);
            assert_int_equal(r.status, TPU_EXPECT_ERROR);
            if (over)
                assert_non_null(strstr(r.message, "multiply-adds: too large to check"));
            else
                assert_non_null(strstr(r.message, "is outside HBM"));
            assert_non_null(strstr(r.message, ops[i].name));
        }
    }
}

/* ---- layers: matmul_epi, conv2d, pool (against plain loops over fp.c) ---- */

static uint16_t rnd_bf16(uint32_t *z)
{
    *z = *z * 1664525u + 1013904223u;
    return (uint16_t)(0x3c00u + ((*z >> 16) & 0x07ffu)) ^ (uint16_t)((*z >> 31) << 15);
}

static void test_matmul_epi(void **state)
{
    (void)state;
    enum { B = 3, D = 5, F = 4 };
    uint16_t x[B * D], w[D * F];
    uint32_t bias[F], y[B * F], z = 7;
    uint16_t y16[B * F];
    for (int i = 0; i < B * D; i++) x[i] = rnd_bf16(&z);
    for (int i = 0; i < D * F; i++) w[i] = rnd_bf16(&z);
    for (int i = 0; i < F; i++) bias[i] = tpu_f32_from_bf16(rnd_bf16(&z));
    for (int b = 0; b < B; b++)
        for (int c = 0; c < F; c++) {
            uint32_t acc = 0;                    /* one K-tile (tile 8 >= D): a MAC chain from +0 */
            for (int k = 0; k < D; k++)
                acc = tpu_mac(acc, x[b * D + k], w[k * F + c]);
            acc = tpu_f32_relu(tpu_f32_add(acc, bias[c]));
            y[b * F + c] = acc;
            y16[b * F + c] = tpu_bf16_from_f32(acc);
        }
    for (int bf = 0; bf < 2; bf++) {
        tpu_object o;
        tpu_obj_init(&o);
        assert_int_equal(tpu_obj_add_data(&o, TPU_SPACE_HBM, 0x100, (const uint8_t *)x, sizeof x), 0);
        assert_int_equal(tpu_obj_add_data(&o, TPU_SPACE_HBM, 0x200, (const uint8_t *)w, sizeof w), 0);
        assert_int_equal(tpu_obj_add_data(&o, TPU_SPACE_VMEM, 0x300, (const uint8_t *)bias, sizeof bias), 0);
        tpu_obj_expect_operand eo[8] = { addr(TPU_SPACE_HBM, 0x400), addr(TPU_SPACE_HBM, 0x100),
                                         addr(TPU_SPACE_HBM, 0x200), addr(TPU_SPACE_VMEM, 0x300),
                                         num(B), num(D), num(F), num(bf ? 11 : 3) };
        add_expect(&o, TPU_EXPECT_MATMUL_EPI, -1, 8, eo);
        fake *f = new_fake();
        if (bf)
            fake_put(f, TPU_SPACE_HBM, 0x400, y16, sizeof y16);
        else
            fake_put(f, TPU_SPACE_HBM, 0x400, y, sizeof y);
        tpu_expect_target t = target_for(f, 1, 8);
        tpu_expect_result r;
        tpu_expect_check(&o, &t, &r);
        assert_int_equal(r.status, TPU_EXPECT_PASS);
        if (!bf) {                               /* without the relu: a mismatch where it mattered */
            o.expects[0].ops[7].value = 1;
            tpu_expect_check(&o, &t, &r);
            int any_neg = 0;
            for (int i = 0; i < B * F; i++)
                any_neg |= y[i] == 0;
            if (any_neg)
                assert_int_equal(r.status, TPU_EXPECT_MISMATCH);
            o.expects[0].ops[7].value = 128;     /* an unknown flag (64: W after the run) */
            tpu_expect_check(&o, &t, &r);
            assert_int_equal(r.status, TPU_EXPECT_ERROR);
            assert_non_null(strstr(r.message, "FLAGS"));
        }
        free(f);
        tpu_obj_free(&o);
    }
}

static void test_conv2d_and_pool(void **state)
{
    (void)state;
    /* NB 1, 4x5 input, 3 channels, 3x3 window, stride 2, pad 1, 4 filters */
    enum { H = 4, Wd = 5, C = 3, F = 4, R = 3, S = 3, ST = 2, P = 1, OH = 2, OW = 3 };
    uint16_t x[H * Wd * C], w[R * S * C * F];
    uint32_t y[OH * OW * F], z = 11;
    for (int i = 0; i < H * Wd * C; i++) x[i] = rnd_bf16(&z);
    for (int i = 0; i < R * S * C * F; i++) w[i] = rnd_bf16(&z);
    for (int oh = 0; oh < OH; oh++)
        for (int ow = 0; ow < OW; ow++)
            for (int f = 0; f < F; f++) {
                uint32_t acc = 0;            /* K = 27 <= tile 32: one column sum, (r, s, c) order */
                for (int r = 0; r < R; r++)
                    for (int s = 0; s < S; s++)
                        for (int c = 0; c < C; c++) {
                            int ih = oh * ST + r - P, iw = ow * ST + s - P;
                            uint16_t xv = ih < 0 || iw < 0 || ih >= H || iw >= Wd ? 0 : x[(ih * Wd + iw) * C + c];
                            acc = tpu_mac(acc, xv, w[((r * S + s) * C + c) * F + f]);
                        }
                y[(oh * OW + ow) * F + f] = acc;
            }
    tpu_object o;
    tpu_obj_init(&o);
    assert_int_equal(tpu_obj_add_data(&o, TPU_SPACE_HBM, 0x1000, (const uint8_t *)x, sizeof x), 0);
    assert_int_equal(tpu_obj_add_data(&o, TPU_SPACE_HBM, 0x2000, (const uint8_t *)w, sizeof w), 0);
    tpu_obj_expect_operand eo[15] = { addr(TPU_SPACE_HBM, 0x3000), addr(TPU_SPACE_HBM, 0x1000),
                                      addr(TPU_SPACE_HBM, 0x2000), addr(TPU_SPACE_HBM, 0x3000),
                                      num(1), num(H), num(Wd), num(C), num(F), num(R), num(S),
                                      num(ST), num(P), num(1), num(0) };
    add_expect(&o, TPU_EXPECT_CONV2D, -1, 15, eo);
    fake *f = new_fake();
    fake_put(f, TPU_SPACE_HBM, 0x3000, y, sizeof y);
    tpu_expect_target t = target_for(f, 1, 32);
    t.block_bytes = 4 * F * 2;               /* blocks of two pixels */
    tpu_expect_result r;
    tpu_expect_check(&o, &t, &r);
    assert_int_equal(r.status, TPU_EXPECT_PASS);
    put32(f, 0, TPU_SPACE_HBM, 0x3000 + 5 * 4, y[5] ^ 1);
    tpu_expect_check(&o, &t, &r);
    assert_int_equal(r.status, TPU_EXPECT_MISMATCH);
    assert_non_null(strstr(r.message, "conv2d Y"));
    assert_non_null(strstr(r.message, "[1][1]"));
    o.expects[0].ops[12].value = 3;          /* pad 3 >= the window */
    tpu_expect_check(&o, &t, &r);
    assert_int_equal(r.status, TPU_EXPECT_ERROR);
    free(f);
    tpu_obj_free(&o);

    /* depthwise in the VPU's order: products rounded, added in tap order */
    uint16_t wd[R * S * C];
    uint32_t yd[OH * OW * C];
    for (int i = 0; i < R * S * C; i++) wd[i] = rnd_bf16(&z);
    for (int oh = 0; oh < OH; oh++)
        for (int ow = 0; ow < OW; ow++)
            for (int c = 0; c < C; c++) {
                uint32_t acc = 0;
                for (int t2 = 0; t2 < R * S; t2++) {
                    int ih = oh * ST + t2 / S - P, iw = ow * ST + t2 % S - P;
                    uint32_t xv = ih < 0 || iw < 0 || ih >= H || iw >= Wd ? 0 : tpu_f32_from_bf16(x[(ih * Wd + iw) * C + c]);
                    uint32_t pr = tpu_f32_mul(xv, tpu_f32_from_bf16(wd[t2 * C + c]));
                    acc = t2 ? tpu_f32_add(acc, pr) : pr;
                }
                yd[(oh * OW + ow) * C + c] = acc;
            }
    tpu_obj_init(&o);
    assert_int_equal(tpu_obj_add_data(&o, TPU_SPACE_HBM, 0x1000, (const uint8_t *)x, sizeof x), 0);
    assert_int_equal(tpu_obj_add_data(&o, TPU_SPACE_HBM, 0x2000, (const uint8_t *)wd, sizeof wd), 0);
    tpu_obj_expect_operand ed[15] = { addr(TPU_SPACE_HBM, 0x3000), addr(TPU_SPACE_HBM, 0x1000),
                                      addr(TPU_SPACE_HBM, 0x2000), addr(TPU_SPACE_HBM, 0x3000),
                                      num(1), num(H), num(Wd), num(C), num(C), num(R), num(S),
                                      num(ST), num(P), num(C), num(16) };
    add_expect(&o, TPU_EXPECT_CONV2D, -1, 15, ed);
    f = new_fake();
    fake_put(f, TPU_SPACE_HBM, 0x3000, yd, sizeof yd);
    t = target_for(f, 1, 32);
    tpu_expect_check(&o, &t, &r);
    assert_int_equal(r.status, TPU_EXPECT_PASS);
    free(f);
    tpu_obj_free(&o);

    /* pooling: max with -inf padding, avg times fp32(1/9) */
    uint32_t xf[H * Wd * C], yp[OH * OW * C];
    for (int i = 0; i < H * Wd * C; i++) xf[i] = tpu_f32_from_bf16(rnd_bf16(&z));
    for (unsigned mode = 0; mode < 2; mode++) {
        for (int oh = 0; oh < OH; oh++)
            for (int ow = 0; ow < OW; ow++)
                for (int c = 0; c < C; c++) {
                    uint32_t acc = 0;
                    for (int t2 = 0; t2 < R * S; t2++) {
                        int ih = oh * ST + t2 / S - P, iw = ow * ST + t2 % S - P;
                        uint32_t v = ih < 0 || iw < 0 || ih >= H || iw >= Wd ? (mode ? 0 : 0xff800000u) : xf[(ih * Wd + iw) * C + c];
                        acc = !t2 ? v : mode ? tpu_f32_add(acc, v) : tpu_f32_max(acc, v);
                    }
                    yp[(oh * OW + ow) * C + c] = mode ? tpu_f32_mul(acc, tpu_f32_from_float(1.0f / 9.0f)) : acc;
                }
        tpu_obj_init(&o);
        assert_int_equal(tpu_obj_add_data(&o, TPU_SPACE_VMEM, 0x1000, (const uint8_t *)xf, sizeof xf), 0);
        tpu_obj_expect_operand ep[11] = { addr(TPU_SPACE_HBM, 0x3000), addr(TPU_SPACE_VMEM, 0x1000),
                                          num(1), num(H), num(Wd), num(C), num(R), num(S), num(ST),
                                          num(P), num(mode) };
        add_expect(&o, TPU_EXPECT_POOL, -1, 11, ep);
        f = new_fake();
        fake_put(f, TPU_SPACE_HBM, 0x3000, yp, sizeof yp);
        t = target_for(f, 1, 8);
        tpu_expect_check(&o, &t, &r);
        assert_int_equal(r.status, TPU_EXPECT_PASS);
        free(f);
        tpu_obj_free(&o);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_no_expects),
        cmocka_unit_test(test_matmul_pass_and_mismatch),
        cmocka_unit_test(test_matmul_uses_tile),
        cmocka_unit_test(test_matmul_from_fill),
        cmocka_unit_test(test_initial_read),
        cmocka_unit_test(test_pointwise_ops),
        cmocka_unit_test(test_softmax),
        cmocka_unit_test(test_copy_and_f32),
        cmocka_unit_test(test_sum),
        cmocka_unit_test(test_core_restrictions),
        cmocka_unit_test(test_bad_records),
        cmocka_unit_test(test_matmul_mac_limit),
        cmocka_unit_test(test_matmul_epi),
        cmocka_unit_test(test_conv2d_and_pool),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
