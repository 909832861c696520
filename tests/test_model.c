/*
 * test_model.c - the C model computes the right values: small programs
 * built here with tpu_encode and the tpu_object builders (no assembler),
 * checked against plain C: the scalar ALU and branches, 2-D strided DMA
 * copies, MXU results bit for bit against a loop over tpu_mac (and K-tiled
 * matmuls against tpu_ref_matmul), VPU operations against fp.c, ICI
 * exchanges between cores, loading, backdoor access, events, statistics.
 */
#include "model_helpers.h"

#include "ref.h"

static void set_regs(harness *h, const int64_t *rv, unsigned n)
{
    for (unsigned i = 0; i < n; i += 2)
        I(h, "li", rv[i], rv[i + 1]);
}
#define REGS(h, ...) set_regs((h), OPS(__VA_ARGS__), NOPS(__VA_ARGS__))

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint64_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

/* bf16 values: mostly ordinary numbers in [-4, 4), sometimes a special one. */
static uint16_t rnd_bf16(int specials)
{
    static const uint16_t special[] = { 0x0000, 0x8000, 0x7f80, 0xff80, 0x7fc0, 0xffff, 0x0001,
                                        0x807f, 0x7f7f, 0xff7f, 0x0080, 0x3f80 };
    if (specials && rnd() % 16 == 0)
        return special[rnd() % (sizeof special / sizeof special[0])];
    float f = (float)((int64_t)(rnd() % 2048) - 1024) / 256.0f;
    return tpu_bf16_from_f32(tpu_f32_from_float(f));
}

static uint64_t sreg(harness *h, unsigned core, unsigned r)
{
    tpu_seq_view v;
    tpu_core_seq_view(h_core(h, core), &v);
    return (uint64_t)v.sreg[r];
}

/* ---- sequencer --------------------------------------------------------------- */

static void test_scalar_alu(void **state)
{
    (void)state;
    harness *h = h_new("tiny", NULL);
    REGS(h, 1, -7, 2, 3, 3, 0x7fffffff, 4, -1);
    I(h, "slli", 3, 3, 33);          /* s3 = 0x7fffffff << 33 */
    I(h, "add", 5, 1, 2);            /* -4 */
    I(h, "sub", 6, 2, 1);            /* 10 */
    I(h, "mul", 7, 3, 3);            /* wraps */
    I(h, "and", 8, 1, 2);
    I(h, "or", 9, 1, 2);
    I(h, "xor", 10, 1, 2);
    I(h, "sll", 11, 1, 2);
    I(h, "srl", 12, 1, 2);
    I(h, "sra", 13, 1, 2);
    I(h, "slt", 14, 1, 2);
    I(h, "sltu", 15, 1, 2);
    I(h, "addi", 16, 4, -100);
    I(h, "muli", 17, 1, -3);
    I(h, "andi", 18, 4, 0x0f0);
    I(h, "ori", 19, 0, -2);
    I(h, "xori", 20, 1, 5);
    I(h, "srli", 21, 4, 60);
    I(h, "srai", 22, 1, 1);
    I(h, "slti", 23, 1, -6);
    I(h, "add", 0, 1, 2);            /* s0 stays 0 */
    I(h, "addi", 24, 0, 1);          /* reads s0 = 0 */
    I(h, "add", 25, 31, 0);          /* cid */
    I(h, "sll", 26, 2, 4);           /* shift by -1 & 63 = 63 */
    I0(h, "halt");
    h_run_ok(h);
    int64_t a = -7, b = 3;
    uint64_t s3 = 0x7fffffffull << 33;
    assert_int_equal(sreg(h, 0, 3), s3);
    assert_int_equal(sreg(h, 0, 5), (uint64_t)(a + b));
    assert_int_equal(sreg(h, 0, 6), (uint64_t)(b - a));
    assert_int_equal(sreg(h, 0, 7), s3 * s3);
    assert_int_equal(sreg(h, 0, 8), (uint64_t)(a & b));
    assert_int_equal(sreg(h, 0, 9), (uint64_t)(a | b));
    assert_int_equal(sreg(h, 0, 10), (uint64_t)(a ^ b));
    assert_int_equal(sreg(h, 0, 11), (uint64_t)a << 3);
    assert_int_equal(sreg(h, 0, 12), (uint64_t)a >> 3);
    assert_int_equal(sreg(h, 0, 13), (uint64_t)-1);          /* -7 >> 3 (arithmetic) */
    assert_int_equal(sreg(h, 0, 14), 1);
    assert_int_equal(sreg(h, 0, 15), 0);
    assert_int_equal(sreg(h, 0, 16), (uint64_t)-101);
    assert_int_equal(sreg(h, 0, 17), 21);
    assert_int_equal(sreg(h, 0, 18), 0xf0);
    assert_int_equal(sreg(h, 0, 19), (uint64_t)-2);
    assert_int_equal(sreg(h, 0, 20), (uint64_t)(a ^ 5));
    assert_int_equal(sreg(h, 0, 21), 0xf);
    assert_int_equal(sreg(h, 0, 22), (uint64_t)-4);          /* -7 >> 1 = -4 */
    assert_int_equal(sreg(h, 0, 23), 1);
    assert_int_equal(sreg(h, 0, 0), 0);
    assert_int_equal(sreg(h, 0, 24), 1);
    assert_int_equal(sreg(h, 0, 25), 0);
    assert_int_equal(sreg(h, 0, 26), 0x8000000000000000ull);
    h_free(h);
}

/* Each branch is tried taken and not taken; s10 collects one bit per
 * correct outcome. */
static void test_branches_and_jumps(void **state)
{
    (void)state;
    static const char *br[] = { "beq", "bne", "blt", "bge", "bltu", "bgeu" };
    /* operands (s1, s2) = (-1, 1): beq no, bne yes, blt yes, bge no, bltu no, bgeu yes */
    static const int taken[] = { 0, 1, 1, 0, 0, 1 };
    harness *h = h_new("tiny", NULL);
    REGS(h, 1, -1, 2, 1, 10, 0);
    for (int i = 0; i < 6; i++) {
        uint64_t at = PC(h);
        I(h, br[i], 1, 2, at + 3);                   /* taken: skip the next two */
        I(h, "ori", 10, 10, taken[i] ? 0 : 1 << i);  /* not taken path */
        I(h, "jmp", at + 4);
        I(h, "ori", 10, 10, taken[i] ? 1 << i : 0);  /* taken path */
    }
    uint64_t jal = I(h, "jal", 11, PC(h) + 3);       /* call */
    I(h, "ori", 10, 10, 1 << 8);                     /* return lands here */
    I(h, "jmp", PC(h) + 3);
    I(h, "ori", 10, 10, 1 << 7);                     /* the callee */
    I(h, "jr", 11);
    I0(h, "halt");
    h_run_ok(h);
    assert_int_equal(sreg(h, 0, 10), 0x1bf);        /* bits 0-5, 7, 8 */
    assert_int_equal(sreg(h, 0, 11), jal + 1);
    h_free(h);
}

/* ---- DMA ---------------------------------------------------------------------- */

/* Plain 2-D copy. */
static void copy_2d(uint8_t *dst, const uint8_t *src, int64_t rows, int64_t rowbytes,
                    int64_t sstride, int64_t dstride)
{
    for (int64_t r = 0; r < rows; r++)
        memcpy(dst + r * dstride, src + r * sstride, (size_t)rowbytes);
}

static void test_dma_2d_strided_copies(void **state)
{
    (void)state;
    harness *h = h_new("tiny", "hbm_bw=5.5e9", "dma_engines=3", NULL);
    static uint8_t hbm[8192], vmem[8192], want_v[8192], want_h[8192];
    for (size_t i = 0; i < sizeof hbm; i++)
        hbm[i] = (uint8_t)rnd();
    h_data(h, TPU_SPACE_HBM, 0, hbm, sizeof hbm);
    memset(vmem, 0, sizeof vmem);
    memcpy(want_h, hbm, sizeof hbm);
    /* h2v: 7 rows of 37 bytes, source stride 100, destination stride 40 */
    REGS(h, 1, 0x100, 2, 3, 3, 7, 4, 37, 5, 100, 6, 40);
    I(h, "dma.h2v", 1, 2, 3, 4, 5, 6, 0);
    copy_2d(vmem + 0x100, hbm + 3, 7, 37, 100, 40);
    /* h2v with a negative destination stride: rows land bottom-up */
    REGS(h, 1, 0x1000 + 5 * 64, 2, 1000, 3, 6, 4, 64, 5, 64, 6, -64);
    I(h, "dma.h2v", 1, 2, 3, 4, 5, 6, 0);
    copy_2d(vmem + 0x1000 + 5 * 64, hbm + 1000, 6, 64, 64, -64);
    /* h2v whose rows overlap (stride < row size): later rows win */
    REGS(h, 1, 0x1800, 2, 2000, 3, 5, 4, 32, 5, 50, 6, 16);
    I(h, "dma.h2v", 1, 2, 3, 4, 5, 6, 0);
    copy_2d(vmem + 0x1800, hbm + 2000, 5, 32, 50, 16);
    I(h, "sem.wait", 0, 3);
    /* v2h: the first region back to HBM with a transposed-looking stride */
    REGS(h, 1, 5000, 2, 0x100, 3, 7, 4, 37, 5, 40, 6, 64);
    I(h, "dma.v2h", 1, 2, 3, 4, 5, 6, 1);
    I(h, "sem.wait", 1, 1);
    I0(h, "halt");
    memcpy(want_v, vmem, sizeof vmem);
    copy_2d(want_h + 5000, want_v + 0x100, 7, 37, 40, 64);
    h_run_ok(h);
    static uint8_t out[8192];
    h_peek(h, 0, TPU_SPACE_VMEM, 0, out, sizeof out);
    assert_memory_equal(out, want_v, sizeof out);
    h_peek(h, 0, TPU_SPACE_HBM, 0, out, sizeof out);
    assert_memory_equal(out, want_h, sizeof out);
    tpu_stats st;
    tpu_core_stats(h_core(h, 0), &st);
    assert_int_equal(st.hbm_read_bytes, 7 * 37 + 6 * 64 + 5 * 32);
    assert_int_equal(st.hbm_write_bytes, 7 * 37);
    h_free(h);
}

/* ---- MXU ------------------------------------------------------------------------- */

/* y = x . w the way a column of the array sums: from +0, top to bottom. */
static void plain_row(const uint16_t *x, const uint16_t *w, unsigned n, uint32_t *y)
{
    for (unsigned c = 0; c < n; c++) {
        uint32_t s = 0;
        for (unsigned k = 0; k < n; k++)
            s = tpu_mac(s, x[k], w[k * n + c]);
        y[c] = s;
    }
}

/* One tile on the given config: mxu.mm then mxu.mma of the same rows with a
 * second tile, results checked bit for bit. */
static void mxu_tile_case(const char *preset, unsigned rows, int specials)
{
    harness *h = h_new(preset, NULL);
    unsigned n = (unsigned)h->cfg.mxu_n;
    unsigned m = (unsigned)h->cfg.num_mxu - 1;          /* use the last MXU */
    uint16_t *w1 = malloc(2ull * n * n), *w2 = malloc(2ull * n * n);
    uint16_t *x = malloc(2ull * n * rows);
    uint32_t *y = malloc(4ull * n * rows), *y2 = malloc(4ull * n);
    uint32_t *out = malloc(4ull * n * rows);
    assert_true(w1 && w2 && x && y && y2 && out);
    for (unsigned i = 0; i < n * n; i++) {
        w1[i] = rnd_bf16(specials);
        w2[i] = rnd_bf16(specials);
    }
    for (unsigned i = 0; i < n * rows; i++)
        x[i] = rnd_bf16(specials);
    uint64_t W1 = 0x1000, W2 = W1 + 2ull * n * n, X = W2 + 2ull * n * n, Y = X + 2ull * n * rows;
    h_data(h, TPU_SPACE_VMEM, W1, w1, 2ull * n * n);
    h_data(h, TPU_SPACE_VMEM, W2, w2, 2ull * n * n);
    h_data(h, TPU_SPACE_VMEM, X, x, 2ull * n * rows);
    REGS(h, 1, W1, 2, W2, 3, 2 * n, 4, Y, 5, X, 6, rows, 7, 4 * n);
    I(h, "mxu.lw", m, 1, 3, 31);
    I(h, "mxu.mm", m, 4, 5, 6, 3, 7, 31);
    I(h, "mxu.lw", m, 2, 3, 31);
    I(h, "mxu.mma", m, 4, 5, 6, 3, 7, 31);
    I0(h, "halt");
    h_run_ok(h);
    h_peek(h, 0, TPU_SPACE_VMEM, Y, out, 4ull * n * rows);
    for (unsigned b = 0; b < rows; b++) {
        plain_row(x + b * n, w1, n, y + b * n);
        plain_row(x + b * n, w2, n, y2);
        for (unsigned c = 0; c < n; c++) {
            uint32_t want = tpu_f32_add(y[b * n + c], y2[c]);
            if (out[b * n + c] != want)
                fail_msg("%s row %u col %u: %#x, want %#x", preset, b, c, out[b * n + c], want);
        }
    }
    tpu_stats st;
    tpu_core_stats(h_core(h, 0), &st);
    assert_int_equal(st.macs, 2ull * rows * n * n);
    assert_int_equal(st.flops, 4ull * rows * n * n);
    free(w1); free(w2); free(x); free(y); free(y2); free(out);
    h_free(h);
}

static void test_mxu_bit_exact_against_mac_loop(void **state)
{
    (void)state;
    mxu_tile_case("tiny", 13, 0);
    mxu_tile_case("tiny", 29, 1);              /* NaN, Inf, -0, subnormals, ... */
    mxu_tile_case("mid", 40, 1);
    mxu_tile_case("v5e", 130, 1);
}

/* Y[B,F] = X[B,D] . W[D,F] with K-tiles of N rows, F-tiles spread over the
 * MXUs: bit for bit what tpu_ref_matmul computes. */
static void test_matmul_k_tiles_on_all_mxus(void **state)
{
    (void)state;
    harness *h = h_new("mid", NULL);
    unsigned n = (unsigned)h->cfg.mxu_n, nm = (unsigned)h->cfg.num_mxu;
    unsigned B = 7, D = 3 * n, F = 2 * nm * n;
    uint16_t *x = malloc(2ull * B * D), *w = malloc(2ull * D * F);
    uint32_t *y = malloc(4ull * B * F), *out = malloc(4ull * B * F);
    assert_true(x && w && y && out);
    for (unsigned i = 0; i < B * D; i++)
        x[i] = rnd_bf16(1);
    for (unsigned i = 0; i < D * F; i++)
        w[i] = rnd_bf16(1);
    uint64_t X = 0, W = 2ull * B * D, Y = W + 2ull * D * F;
    h_data(h, TPU_SPACE_VMEM, X, x, 2ull * B * D);
    h_data(h, TPU_SPACE_VMEM, W, w, 2ull * D * F);
    REGS(h, 1, 2 * F, 2, B, 3, 2 * D, 4, 4 * F);
    for (unsigned k = 0; k < D / n; k++) {
        for (unsigned j = 0; j < F / n; j++) {
            REGS(h, 5, W + 2ull * (k * n * F + j * n), 6, Y + 4ull * j * n, 7, X + 2ull * k * n);
            I(h, "mxu.lw", j % nm, 5, 1, 31);
            I(h, k ? "mxu.mma" : "mxu.mm", j % nm, 6, 7, 2, 3, 4, 31);
        }
    }
    I0(h, "halt");
    h_run_ok(h);
    assert_int_equal(tpu_ref_matmul(x, w, y, B, D, F, n), 0);
    h_peek(h, 0, TPU_SPACE_VMEM, Y, out, 4ull * B * F);
    for (unsigned i = 0; i < B * F; i++)
        if (out[i] != y[i])
            fail_msg("Y[%u][%u] = %#x, want %#x", i / F, i % F, out[i], y[i]);
    free(x); free(w); free(y); free(out);
    h_free(h);
}

/* ---- VPU ----------------------------------------------------------------------------- */

static void test_vpu_ops_against_fp(void **state)
{
    (void)state;
    harness *h = h_new("tiny", NULL);
    enum { E = 64 };
    static const uint32_t specials[] = { 0, 0x80000000, 0x7f800000, 0xff800000, 0x7fc00000,
                                         0xffc00001, 0x00000001, 0x807fffff, 0x7f7fffff,
                                         0x00800000, 0x3f800000, 0xbf800000, 0x34000000 };
    uint32_t a[E], b[E];
    for (int i = 0; i < E; i++) {
        a[i] = i < 13 ? specials[i] : (uint32_t)rnd();
        b[i] = i >= 51 ? specials[i - 51] : (i % 5 == 0 ? specials[rnd() % 13] : (uint32_t)rnd());
    }
    uint16_t hb[E];
    for (int i = 0; i < E; i++)
        hb[i] = (uint16_t)(i < 13 ? specials[i] >> 16 : rnd());
    h_data(h, TPU_SPACE_VMEM, 0x100, a, sizeof a);
    h_data(h, TPU_SPACE_VMEM, 0x200, b, sizeof b);
    h_data(h, TPU_SPACE_VMEM, 0x300, hb, sizeof hb);
    static const char *ops[] = { "vadd", "vsub", "vmul", "vmax", "vmin", "vcmplt" };
    REGS(h, 1, 0x100, 2, 0x200, 3, 0x300, 4, 0x1000, 5, -12345);
    I(h, "vld", 1, 1, 0);
    I(h, "vld", 2, 2, 0);
    I(h, "vld.bf16", 3, 3, 0);
    for (int i = 0; i < 6; i++) {
        I(h, ops[i], 10 + i, 1, 2);
        I(h, "vst", 10 + i, 4, i * 256);
    }
    I(h, "vrelu", 16, 1);
    I(h, "vst", 16, 4, 6 * 256);
    I(h, "vsel", 17, 1, 2, 3);                  /* a != 0 ? b : widened bf16 */
    I(h, "vst", 17, 4, 7 * 256);
    I(h, "vbcast", 18, 5);
    I(h, "vst", 18, 4, 8 * 256);
    I(h, "vst", 3, 4, 9 * 256);
    I(h, "vst.bf16", 2, 4, 10 * 256);
    I0(h, "halt");
    h_run_ok(h);
    /* FLOPs (docs/timing.md section 7): one per element of the 6 binary ops
     * and vrelu; none for loads, stores, vsel, vbcast. */
    tpu_stats st;
    tpu_core_stats(h_core(h, 0), &st);
    assert_int_equal(st.vpu_flops, 7 * E);
    assert_int_equal(st.flops, 7 * E);
    uint32_t out[11][E];
    h_peek(h, 0, TPU_SPACE_VMEM, 0x1000, out, sizeof out);
    for (int i = 0; i < E; i++) {
        uint32_t wid = tpu_f32_from_bf16(hb[i]);
        assert_int_equal(out[0][i], tpu_f32_add(a[i], b[i]));
        assert_int_equal(out[1][i], tpu_f32_sub(a[i], b[i]));
        assert_int_equal(out[2][i], tpu_f32_mul(a[i], b[i]));
        assert_int_equal(out[3][i], tpu_f32_max(a[i], b[i]));
        assert_int_equal(out[4][i], tpu_f32_min(a[i], b[i]));
        assert_int_equal(out[5][i], tpu_f32_cmplt(a[i], b[i]));
        assert_int_equal(out[6][i], tpu_f32_relu(a[i]));
        assert_int_equal(out[7][i], tpu_f32_is_zero(a[i]) ? wid : b[i]);
        assert_int_equal(out[8][i], (uint32_t)-12345);
        assert_int_equal(out[9][i], wid);
        uint16_t nb;
        memcpy(&nb, (const uint8_t *)out[10] + 2 * i, 2);
        assert_int_equal(nb, tpu_bf16_from_f32(b[i]));
    }
    h_free(h);
}

/* ---- ICI --------------------------------------------------------------------------------- */

/* Each core of a ring fills 64 bytes with its id + 1, sends them to the
 * next core, and checks it got its predecessor's. */
static void ring_case(unsigned cores, enum tpu_topology topo, unsigned rows, unsigned cols,
                      unsigned port)
{
    harness *h = h_new("tiny", NULL);
    h->opts = (tpu_system_opts){ .cores = cores, .topology = topo, .rows = rows, .cols = cols };
    REGS(h, 1, 0x100, 2, 0x800, 3, 256);
    I(h, "addi", 4, 31, 1);                    /* id + 1 */
    I(h, "vbcast", 1, 4);
    I(h, "vst", 1, 1, 0);
    I(h, "sync", TPU_UNITS_VPU);
    I(h, "dma.ici", port, 2, 1, 3, 0, 1);
    I(h, "sem.wait", 0, 1);
    I(h, "sem.wait", 1, 1);
    I0(h, "halt");
    h_run_ok(h);
    for (unsigned c = 0; c < cores; c++) {
        /* who sent to c on `port`: the neighbour on the opposite port */
        unsigned from;
        if (topo == TPU_TOPO_RING) {
            from = port == 0 ? (c + cores - 1) % cores : (c + 1) % cores;
        } else {
            unsigned r = c / cols, col = c % cols;
            switch (port) {
            case 0: col = (col + cols - 1) % cols; break;
            case 1: col = (col + 1) % cols; break;
            case 2: r = (r + rows - 1) % rows; break;
            default: r = (r + 1) % rows; break;
            }
            from = r * cols + col;
        }
        uint32_t got[64];
        h_peek(h, c, TPU_SPACE_VMEM, 0x800, got, sizeof got);
        for (int i = 0; i < 64; i++)
            if (got[i] != from + 1)
                fail_msg("core %u element %d: %u, want %u", c, i, got[i], from + 1);
        tpu_stats st;
        tpu_core_stats(h_core(h, c), &st);
        assert_int_equal(st.ici_bytes, 256);
    }
    h_free(h);
}

static void test_ici_ring_exchange(void **state)
{
    (void)state;
    ring_case(2, TPU_TOPO_RING, 0, 0, 0);
    ring_case(2, TPU_TOPO_RING, 0, 0, 1);
    ring_case(4, TPU_TOPO_RING, 0, 0, 0);
    ring_case(1, TPU_TOPO_RING, 0, 0, 0);      /* a ring of one: a loop back */
}

static void test_ici_torus(void **state)
{
    (void)state;
    for (unsigned p = 0; p < 4; p++)
        ring_case(6, TPU_TOPO_TORUS2D, 2, 3, p);
}

static void test_ici_mesh_edge_is_unconnected(void **state)
{
    (void)state;
    harness *h = h_new("tiny", NULL);
    h->opts = (tpu_system_opts){ .topology = TPU_TOPO_MESH2D, .rows = 1, .cols = 2 };
    REGS(h, 1, 0x100, 2, 16);
    I(h, "dma.ici", 1, 1, 1, 2, 0, 1);         /* core 0 has no -col neighbour */
    I0(h, "halt");
    h_expect_error(h, "core 0: cycle 2: pc 2 (dma.ici 1, s1, s1, s2, 0, 1): ICI port 1 is not "
                      "connected");
    h_free(h);
}

static void test_system_options_checked(void **state)
{
    (void)state;
    tpu_config cfg;
    char err[200];
    tpu_config_defaults(&cfg);
    tpu_system_opts o = { .cores = 3 };
    assert_null(tpu_system_create(&cfg, &o, err, sizeof err));
    assert_non_null(strstr(err, "need a topology"));
    o = (tpu_system_opts){ .cores = 5, .topology = TPU_TOPO_TORUS2D, .rows = 2, .cols = 2 };
    assert_null(tpu_system_create(&cfg, &o, err, sizeof err));
    assert_non_null(strstr(err, "5 cores do not make a 2 x 2 grid"));
    o = (tpu_system_opts){ .cores = 2, .topology = TPU_TOPO_RING };
    cfg.ici_latency = 0;
    assert_null(tpu_system_create(&cfg, &o, err, sizeof err));
    assert_non_null(strstr(err, "ici_latency must be at least 1"));
}

/* ---- loading ------------------------------------------------------------------------------- */

static void test_load_checks_the_object(void **state)
{
    (void)state;
    char err[200];
    harness *h = h_new("tiny", NULL);
    I0(h, "halt");
    h->obj.config.mxu_n = 128;
    h->sys = tpu_system_create(&h->cfg, NULL, err, sizeof err);
    assert_int_equal(tpu_system_load(h->sys, &h->obj, err, sizeof err), -1);
    assert_string_equal(err, "the object was assembled for mxu_n = 128, the config has 8: "
                             "run with --config v5e");
    h->obj.config.mxu_n = 8;
    h->obj.config.vpu_lanes = 8;
    assert_int_equal(tpu_system_load(h->sys, &h->obj, err, sizeof err), 0);

    uint8_t b[64] = { 0 };
    h_data(h, TPU_SPACE_VMEM, 0x3fff0, b, 64);
    assert_int_equal(tpu_system_load(h->sys, &h->obj, err, sizeof err), -1);
    assert_string_equal(err, "object needs VMEM up to 0x40030, config has 0x40000: "
                             "run with --set vmem_bytes=512Ki");
    h_free(h);

    h = h_new("tiny", NULL);
    assert_int_equal(tpu_obj_add_fill(&h->obj, TPU_SPACE_HBM, 0xfff000, TPU_FILL_ZERO, 0x2000, 0,
                                      0, 0), 0);
    h->sys = tpu_system_create(&h->cfg, NULL, err, sizeof err);
    assert_int_equal(tpu_system_load(h->sys, &h->obj, err, sizeof err), -1);
    assert_string_equal(err, "object needs HBM up to 0x1001000, config has 0x1000000: "
                             "run with --set hbm_bytes=32Mi");
    h_free(h);

    h = h_new("tiny", "imem_words=16", NULL);
    for (int i = 0; i < 17; i++)
        I0(h, "nop");
    h->sys = tpu_system_create(&h->cfg, NULL, err, sizeof err);
    assert_int_equal(tpu_system_load(h->sys, &h->obj, err, sizeof err), -1);
    assert_string_equal(err, "object needs IMEM up to 17 words, config has 16: "
                             "run with --set imem_words=32");
    h_free(h);
}

/* Each message ends with the tpu-sim option that makes the object fit: the
 * preset with its shape, else --set for every key that differs. */
static void test_load_errors_name_the_fix(void **state)
{
    (void)state;
    char err[300];
    harness *h = h_new("tiny", NULL);
    I0(h, "halt");
    h->sys = tpu_system_create(&h->cfg, NULL, err, sizeof err);
    h->obj.config = (tpu_obj_config){ 16, 2, 8, 16 };
    assert_int_equal(tpu_system_load(h->sys, &h->obj, err, sizeof err), -1);
    assert_string_equal(err, "the object was assembled for mxu_n = 16, the config has 8: "
                             "run with --config mid");
    h->obj.config = (tpu_obj_config){ 8, 2, 0, 0 };         /* 0: any */
    assert_int_equal(tpu_system_load(h->sys, &h->obj, err, sizeof err), -1);
    assert_string_equal(err, "the object was assembled for num_mxu = 2, the config has 1: "
                             "run with --set num_mxu=2");
    h->obj.config = (tpu_obj_config){ 4, 1, 8, 16 };        /* no preset has it */
    assert_int_equal(tpu_system_load(h->sys, &h->obj, err, sizeof err), -1);
    assert_string_equal(err, "the object was assembled for mxu_n = 4, the config has 8: "
                             "run with --set mxu_n=4 --set vpu_lanes=16");
    h->obj.config = (tpu_obj_config){ 0, 0, 0, 0 };
    assert_int_equal(tpu_system_load(h->sys, &h->obj, err, sizeof err), 0);
    h_free(h);

    /* tut4 (programs/tut4.cfg) running an object made for tiny */
    h = h_new("tiny", "mxu_n=4", NULL);
    I0(h, "halt");
    h->obj.config = (tpu_obj_config){ 8, 1, 8, 8 };
    h->sys = tpu_system_create(&h->cfg, NULL, err, sizeof err);
    assert_int_equal(tpu_system_load(h->sys, &h->obj, err, sizeof err), -1);
    assert_string_equal(err, "the object was assembled for mxu_n = 8, the config has 4: "
                             "run with --config tiny");
    h_free(h);

    h = h_new("tiny", NULL);
    I0(h, "halt");
    assert_int_equal(tpu_obj_add_fill(&h->obj, TPU_SPACE_VMEM, 0xffffffffull, TPU_FILL_ZERO, 2,
                                      0, 0, 0), 0);
    h->sys = tpu_system_create(&h->cfg, NULL, err, sizeof err);
    assert_int_equal(tpu_system_load(h->sys, &h->obj, err, sizeof err), -1);
    assert_string_equal(err, "object needs VMEM up to 0x100000001, config has 0x40000 (more "
                             "than any machine has: vmem_bytes is at most 4294967296)");
    h_free(h);
}

/* Big fills are generated piece by piece; zeros allocate nothing. */
static void test_load_big_fills_v5e(void **state)
{
    (void)state;
    harness *h = h_new("v5e", NULL);
    I0(h, "halt");
    uint64_t big = 4ull << 30;
    assert_int_equal(tpu_obj_add_fill(&h->obj, TPU_SPACE_HBM, 0, TPU_FILL_ZERO, big, 0, 0, 0), 0);
    assert_int_equal(tpu_obj_add_fill(&h->obj, TPU_SPACE_VMEM, 0, TPU_FILL_ZERO, 128ull << 20, 0,
                                      0, 0), 0);
    assert_int_equal(tpu_obj_add_fill(&h->obj, TPU_SPACE_HBM, big, TPU_FILL_RANDOM_BF16, 1 << 20,
                                      77, 0xbf800000, 0x3f800000), 0);
    h_run_ok(h);
    uint16_t v[4];
    h_peek(h, 0, TPU_SPACE_HBM, big + 2 * 1000, v, sizeof v);
    for (int i = 0; i < 4; i++)
        assert_int_equal((uint32_t)v[i] << 16,
                         tpu_fill_random_f32(77, 1000 + i, 0xbf800000, 0x3f800000, 1));
    h_free(h);
}

/* ---- backdoor, views, events, several systems ------------------------------------------- */

static void test_backdoor_ranges(void **state)
{
    (void)state;
    harness *h = h_new("tiny", NULL);
    I0(h, "halt");
    h_build(h);
    tpu_core *c = h_core(h, 0);
    uint8_t b[16] = { 1, 2, 3 };
    assert_int_equal(tpu_mem_write(c, TPU_SPACE_VMEM, 0x3fff0, b, 16), 0);
    assert_int_equal(tpu_mem_write(c, TPU_SPACE_VMEM, 0x3fff1, b, 16), -1);
    assert_int_equal(tpu_mem_read(c, TPU_SPACE_HBM, 0xfffff0, b, 16), 0);
    assert_int_equal(tpu_mem_read(c, TPU_SPACE_HBM, UINT64_MAX - 4, b, 16), -1);
    assert_int_equal(tpu_mem_read(c, TPU_SPACE_NONE, 0, b, 1), -1);
    /* IMEM: bytes of the instruction words; a write is decoded afresh. */
    uint64_t word;
    assert_int_equal(tpu_mem_read(c, TPU_SPACE_IMEM, 0, &word, 8), 0);
    assert_int_equal(word & 0xff, TPU_OP_HALT);
    uint64_t li;
    int bad;
    assert_int_equal(tpu_encode(tpu_isa_by_mnemonic("li", 2), OPS(3, 42), &li, &bad), 0);
    assert_int_equal(tpu_mem_write(c, TPU_SPACE_IMEM, 0, &li, 8), 0);
    assert_int_equal(tpu_mem_write(c, TPU_SPACE_IMEM, 8, &word, 8), 0);
    assert_int_equal(tpu_mem_write(c, TPU_SPACE_IMEM, 4096 * 8 - 4, &word, 8), -1);
    h_run_ok(h);
    assert_int_equal(sreg(h, 0, 3), 42);
    h_free(h);
}

static void count_writes(void *ctx, const tpu_event *e)
{
    size_t *n = ctx;
    if (e->kind == TPU_EV_MEM_WRITE)
        n[0] += e->len;
    if (e->kind == TPU_EV_ISSUE)
        n[1]++;
}

static void break_on_third_issue(void *ctx, const tpu_event *e)
{
    tpu_system *s = ctx;
    if (e->kind == TPU_EV_ISSUE && e->pc == 2)
        tpu_system_request_break(s);
}

static void test_events_and_break(void **state)
{
    (void)state;
    harness *h = h_new("tiny", NULL);
    REGS(h, 1, 0x3f800000, 2, 0x100);
    I(h, "vbcast", 1, 1);
    I(h, "vst", 1, 2, 0);
    I(h, "vst", 1, 2, 256);
    I0(h, "halt");
    h->mask = 0;
    h_build(h);
    size_t n[2] = { 0, 0 };
    assert_int_equal(tpu_system_subscribe(h->sys, 1u << TPU_EV_MEM_WRITE | 1u << TPU_EV_ISSUE,
                                          count_writes, n), 0);
    assert_int_equal(tpu_system_subscribe(h->sys, 1u << TPU_EV_ISSUE, break_on_third_issue,
                                          h->sys), 0);
    assert_int_equal(tpu_system_run(h->sys, 0), TPU_STOP_BREAK);
    assert_int_equal(tpu_system_cycle(h->sys), 3);
    assert_int_equal(tpu_system_run(h->sys, 0), TPU_STOP_HALT);
    assert_int_equal(n[0], 512);                /* two stores of 256 bytes */
    assert_int_equal(n[1], 6);
    h_free(h);
}

static void test_seq_view_and_stats(void **state)
{
    (void)state;
    harness *h = h_new("tiny", NULL);
    REGS(h, 1, 0x100, 2, 0, 3, 1, 4, 64);
    I(h, "dma.h2v", 1, 2, 3, 4, 0, 0, 9);
    I(h, "sem.wait", 9, 1);
    I0(h, "halt");
    h_build(h);
    for (int i = 0; i < 10; i++)
        tpu_system_step(h->sys);
    tpu_seq_view v;
    tpu_core_seq_view(h_core(h, 0), &v);
    assert_int_equal(v.pc, 5);
    assert_string_equal(v.stall, "sem.wait: sem 9");
    assert_int_equal(v.halted, 0);
    h_run_ok(h);
    tpu_core_seq_view(h_core(h, 0), &v);
    assert_int_equal(v.halted, 1);
    assert_null(v.stall);
    assert_int_equal(v.sem[9], 0);
    tpu_stats st;
    tpu_core_stats(h_core(h, 0), &st);
    /* dma at 4, done at 4 + 20 + 4 = 28, wait 29, halt 30 */
    assert_int_equal(st.cycles, 31);
    assert_int_equal(st.instructions, 7);
    assert_int_equal(st.unit[TPU_U_DMA].busy_cycles, 28 - 4);
    assert_int_equal(st.unit[TPU_U_SEQ].stall_by_reason[1], 29 - 5);
    assert_int_equal(st.vmem_write_bytes, 64);
    assert_int_equal(st.hbm_read_bytes, 64);
    assert_string_equal(tpu_unit_id_name(TPU_U_MXU2), "mxu2");
    assert_null(tpu_stall_reason_name(TPU_U_DMA, 7));
    h_free(h);
}

/* Two systems in one process do not share anything. */
static void test_two_systems_interleaved(void **state)
{
    (void)state;
    harness *a = h_new("tiny", NULL), *b = h_new("tiny", NULL);
    harness *hs[2] = { a, b };
    for (int i = 0; i < 2; i++) {
        REGS(hs[i], 1, 10 + i, 2, 0);
        uint64_t loop = I(hs[i], "add", 2, 2, 1);
        I(hs[i], "addi", 1, 1, -1);
        I(hs[i], "bne", 1, 0, loop);
        I0(hs[i], "halt");
        h_build(hs[i]);
    }
    enum tpu_stop sa = TPU_RUNNING, sb = TPU_RUNNING;
    while (sa == TPU_RUNNING || sb == TPU_RUNNING) {
        if (sa == TPU_RUNNING)
            sa = tpu_system_step(a->sys);
        if (sb == TPU_RUNNING)
            sb = tpu_system_step(b->sys);
    }
    assert_int_equal(sreg(a, 0, 2), 55);
    assert_int_equal(sreg(b, 0, 2), 66);
    assert_int_equal(tpu_system_cycle(a->sys), 2 + 30 + 1);
    assert_int_equal(tpu_system_cycle(b->sys), 2 + 33 + 1);
    h_free(a);
    h_free(b);
}

/* Random legal programs on one and on two cores: whatever they do, the run
 * ends in a halt, a run-time error with its one-line message, or the cycle
 * limit, and never crashes (the sanitizer build checks the memory side). */
static void random_program(harness *h, unsigned len)
{
    static const int64_t vals[] = { 0, 1, 2, 4, 8, 16, 64, 256, 0x400, 0x1000, 0x8000, 0x3ff00,
                                    -1, -4, 100000, 0x7fffffff };
    for (int r = 1; r < 16; r++)
        I(h, "li", r, vals[rnd() % (sizeof vals / sizeof vals[0])]);
    while (PC(h) < len) {
        const tpu_insn_desc *d = &tpu_isa_table[rnd() % tpu_isa_count];
        int64_t v[TPU_MAX_OPERANDS];
        for (unsigned i = 0; i < d->noperands; i++) {
            int64_t lo, hi;
            tpu_kind_range(d->op[i].kind, &lo, &hi);
            switch (d->op[i].kind) {
            case TPU_K_TARGET: v[i] = (int64_t)(rnd() % (len + 2)); break;
            case TPU_K_SIMM:   v[i] = vals[rnd() % 12]; break;
            case TPU_K_UIMM:   v[i] = (int64_t)(rnd() % 3); break;
            case TPU_K_MXU:    v[i] = (int64_t)(rnd() % 2); break;
            default:           v[i] = lo + (int64_t)(rnd() % (uint64_t)(hi - lo + 1)); break;
            }
        }
        uint64_t w;
        int bad;
        assert_int_equal(tpu_encode(d, v, &w, &bad), 0);
        assert_int_equal(tpu_obj_add_text(&h->obj, w), 0);
    }
    I0(h, "halt");
}

static void test_random_programs_never_crash(void **state)
{
    (void)state;
    unsigned counts[5] = { 0 };
    for (int i = 0; i < 300; i++) {
        harness *h = h_new(i % 3 == 2 ? "mid" : "tiny", NULL);
        if (i % 2)
            h->opts = (tpu_system_opts){ .cores = 2, .topology = TPU_TOPO_RING };
        h->mask = 0;
        random_program(h, 64);
        enum tpu_stop st = h_run(h, 3000);
        assert_true(st == TPU_STOP_HALT || st == TPU_STOP_ERROR || st == TPU_STOP_CYCLE_LIMIT);
        if (st != TPU_STOP_HALT)
            assert_int_equal(strncmp(tpu_system_error(h->sys), "core ", 5), 0);
        counts[st]++;
        h_free(h);
    }
    assert_true(counts[TPU_STOP_ERROR] > 0 && counts[TPU_STOP_HALT] > 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scalar_alu),
        cmocka_unit_test(test_branches_and_jumps),
        cmocka_unit_test(test_dma_2d_strided_copies),
        cmocka_unit_test(test_mxu_bit_exact_against_mac_loop),
        cmocka_unit_test(test_matmul_k_tiles_on_all_mxus),
        cmocka_unit_test(test_vpu_ops_against_fp),
        cmocka_unit_test(test_ici_ring_exchange),
        cmocka_unit_test(test_ici_torus),
        cmocka_unit_test(test_ici_mesh_edge_is_unconnected),
        cmocka_unit_test(test_system_options_checked),
        cmocka_unit_test(test_load_checks_the_object),
        cmocka_unit_test(test_load_errors_name_the_fix),
        cmocka_unit_test(test_load_big_fills_v5e),
        cmocka_unit_test(test_backdoor_ranges),
        cmocka_unit_test(test_events_and_break),
        cmocka_unit_test(test_seq_view_and_stats),
        cmocka_unit_test(test_two_systems_interleaved),
        cmocka_unit_test(test_random_programs_never_crash),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
