/*
 * test_timing_xlu.c - section 5a, the cross-lane unit (T33-T36): exact
 * cycles of each instruction, one at a time, the hazards with the VPU, and
 * the values of every instruction against a plain C reference of
 * numerics.md section 13 (pairwise trees in index order) on random data.
 */
#include "timing_helpers.h"
#include "fp.h"

/* T33, T34: an XLU instruction dispatched in cycle d starts in d + 1 and
 * writes its register at the end of d + X, X = 2 + its tree levels (the
 * RETIRE event); a VPU instruction that reads it issues in d + X + 1. */
static void xlu_latency_case(const char *mn, int has_k, unsigned levels)
{
    harness *h = h_new("tiny", NULL);
    h->mask |= 1u << TPU_EV_XLU_WRITE;
    REGS(h, 1, 0x3f800000);                      /* s1 = 1.0 */
    uint64_t b = I(h, "vbcast", 0, 1);           /* issues in 1, the VPU's in 2, lands end of 3 */
    uint64_t x = has_k ? I(h, mn, 1, 0, 3) : I(h, mn, 1, 0);
    uint64_t a = I(h, "vadd", 2, 1, 1);          /* reads the XLU's v1 */
    I0(h, "halt");
    h_run_ok(h);
    assert_int_equal(issue_cycle(h, b), 1);
    uint64_t d = issue_cycle(h, x);
    assert_int_equal(d, 4);                      /* T35: the VPU is idle from 4 */
    uint64_t X = 2 + levels;
    assert_int_equal(h_find(h, TPU_EV_RETIRE, 0, x, 0)->cycle, d + X);
    assert_int_equal(h_find(h, TPU_EV_XLU_WRITE, 0, x, 0)->cycle, d + X);
    /* the vadd: dispatched in d + 1, held back while the XLU holds v1 */
    assert_int_equal(h_find(h, TPU_EV_RETIRE, 0, a, 0)->cycle, d + X + 1 + 2 - 1);
    h_free(h);
}

static void test_t33_t34_latency_is_two_plus_tree_levels(void **state)
{
    (void)state;
    xlu_latency_case("xlu.lsum", 0, 3);          /* tiny: 8 lanes, 8 sublanes */
    xlu_latency_case("xlu.lmax", 0, 3);
    xlu_latency_case("xlu.ssum", 0, 3);
    xlu_latency_case("xlu.smax", 0, 3);
    xlu_latency_case("xlu.asum", 0, 6);
    xlu_latency_case("xlu.amax", 0, 6);
    xlu_latency_case("xlu.srot", 1, 0);
    xlu_latency_case("xlu.lrot", 1, 0);
    xlu_latency_case("xlu.tr", 0, 0);
    assert_int_equal(tpu_xlu_levels(1), 0);
    assert_int_equal(tpu_xlu_levels(2), 1);
    assert_int_equal(tpu_xlu_levels(5), 3);
    assert_int_equal(tpu_xlu_levels(128), 7);
}

/* T34: one instruction at a time: the next starts the cycle after the
 * write-back; T36: `sync vpu` waits for the XLU. */
static void test_t34_one_at_a_time_and_sync(void **state)
{
    (void)state;
    harness *h = h_new("tiny", NULL);
    uint64_t x1 = I(h, "xlu.asum", 1, 0);        /* issues in 0: the VPU is idle */
    uint64_t x2 = I(h, "xlu.srot", 2, 0, 1);     /* in 1 */
    uint64_t x3 = I(h, "xlu.lsum", 3, 0);        /* in 2 */
    uint64_t s = I(h, "sync", TPU_UNITS_VPU);
    I0(h, "halt");
    h_run_ok(h);
    assert_int_equal(issue_cycle(h, x1), 0);
    assert_int_equal(issue_cycle(h, x2), 1);
    assert_int_equal(issue_cycle(h, x3), 2);
    uint64_t w1 = 1 + 8 - 1;                     /* starts in 1, X = 8 */
    assert_int_equal(h_find(h, TPU_EV_RETIRE, 0, x1, 0)->cycle, w1);
    uint64_t w2 = w1 + 2;                        /* starts in w1 + 1, X = 2 */
    assert_int_equal(h_find(h, TPU_EV_RETIRE, 0, x2, 0)->cycle, w2);
    uint64_t w3 = w2 + 5;                        /* X = 5 */
    assert_int_equal(h_find(h, TPU_EV_RETIRE, 0, x3, 0)->cycle, w3);
    assert_int_equal(issue_cycle(h, s), w3 + 1);
    tpu_stats st;
    tpu_core_stats(h_core(h, 0), &st);
    assert_int_equal(st.unit[TPU_U_XLU].busy_cycles, w3);   /* cycles 1 .. w3 */
    assert_string_equal(tpu_stall_reason_name(TPU_U_XLU, 0), "unit busy");   /* its one reason */
    assert_true(st.unit[TPU_U_XLU].stall_by_reason[0] > 0);
    h_free(h);
}

/* T35: a VPU instruction that writes the XLU's source waits until the XLU
 * is done with it, and the XLU reads the old value. */
static void test_t35_vpu_waits_for_the_xlu_source(void **state)
{
    (void)state;
    harness *h = h_new("tiny", NULL);
    REGS(h, 1, 0x3f800000, 2, 0x40000000);       /* 1.0, 2.0 */
    I(h, "vbcast", 0, 1);                        /* v0 = 1.0 */
    uint64_t x = I(h, "xlu.asum", 1, 0);         /* 64.0 */
    uint64_t b = I(h, "vbcast", 0, 2);           /* v0 = 2.0, after the XLU */
    uint64_t c = I(h, "vbcast", 5, 2);           /* names no XLU register: no wait */
    I0(h, "halt");
    h_run_ok(h);
    uint64_t w = h_find(h, TPU_EV_RETIRE, 0, x, 0)->cycle;
    assert_int_equal(h_find(h, TPU_EV_RETIRE, 0, b, 0)->cycle, w + 1 + 2 - 1);
    assert_true(h_find(h, TPU_EV_RETIRE, 0, c, 0)->cycle > w + 2);   /* in order behind b */
    uint32_t v[64];
    tpu_core_vreg(h_core(h, 0), 1, v);
    for (int i = 0; i < 64; i++)
        assert_int_equal(v[i], 0x42800000);      /* 64.0 */
    tpu_core_vreg(h_core(h, 0), 0, v);
    assert_int_equal(v[0], 0x40000000);
    h_free(h);
}

/* ---- values: a plain C reference (numerics.md section 13) --------------------------- */

static uint32_t comb(int mx, uint32_t a, uint32_t b)
{
    return mx ? tpu_f32_max(a, b) : tpu_f32_add(a, b);
}

/* The pairwise tree of x[0], x[stride], ..., n elements, recursively:
 * the left half has the first 2^(k-1) elements, 2^k >= n > 2^(k-1)... as
 * levels: pairs (0,1), (2,3), ..., an odd last element passed up. */
static uint32_t tree(int mx, const uint32_t *x, unsigned n, unsigned stride)
{
    uint32_t t[1024];
    for (unsigned i = 0; i < n; i++)
        t[i] = x[(size_t)i * stride];
    while (n > 1) {
        unsigned m = 0;
        for (unsigned i = 0; i + 1 < n; i += 2)
            t[m++] = comb(mx, t[i], t[i + 1]);
        if (n % 2)
            t[m++] = t[n - 1];
        n = m;
    }
    return t[0];
}

static void reference(const char *mn, unsigned S, unsigned L, const uint32_t *a, unsigned k,
                      uint32_t *out)
{
    int mx = strstr(mn, "max") != NULL;
    unsigned B = S < L ? S : L;
    uint32_t rows[64];
    for (unsigned s = 0; s < S; s++)
        rows[s] = tree(mx, a + (size_t)s * L, L, 1);
    uint32_t all = tree(mx, rows, S, 1);
    for (unsigned s = 0; s < S; s++)
        for (unsigned l = 0; l < L; l++) {
            uint32_t *o = &out[(size_t)s * L + l];
            if (!strcmp(mn, "xlu.lsum") || !strcmp(mn, "xlu.lmax"))
                *o = rows[s];
            else if (!strcmp(mn, "xlu.ssum") || !strcmp(mn, "xlu.smax"))
                *o = tree(mx, a + l, S, L);
            else if (!strcmp(mn, "xlu.asum") || !strcmp(mn, "xlu.amax"))
                *o = all;
            else if (!strcmp(mn, "xlu.srot"))
                out[(size_t)((s + k) % S) * L + l] = a[(size_t)s * L + l];
            else if (!strcmp(mn, "xlu.lrot"))
                out[(size_t)s * L + (l + k) % L] = a[(size_t)s * L + l];
            else {
                unsigned s0 = s - s % B, l0 = l - l % B, ss = s0 + l - l0, ll = l0 + s - s0;
                *o = ss < S && ll < L ? a[(size_t)ss * L + ll] : a[(size_t)s * L + l];
            }
        }
}

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint32_t rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)rng;
}

/* Random fp32 of mixed magnitudes and signs, some specials (NaN, inf, -0). */
static uint32_t rnd_f32(void)
{
    uint32_t r = rnd();
    switch (r % 16) {
    case 0: return 0x80000000u;                  /* -0 */
    case 1: return 0x7f800000u | (r & 0x80000000u);   /* +-inf */
    case 2: return 0x7fc00000u;                  /* NaN */
    default: return (r & 0x80000000u) | ((120 + (r >> 8) % 16) << 23) | (rnd() & 0x7fffff);
    }
}

static void values_case(unsigned S, unsigned L, int specials)
{
    static const char *const ops[] = { "xlu.lsum", "xlu.lmax", "xlu.ssum", "xlu.smax", "xlu.asum",
                                       "xlu.amax", "xlu.srot", "xlu.lrot", "xlu.tr" };
    char ks[32], kl[32];
    snprintf(ks, sizeof ks, "vpu_sublanes=%u", S);
    snprintf(kl, sizeof kl, "vpu_lanes=%u", L);
    harness *h = h_new("tiny", ks, kl, "vmem_bw=8192", NULL);
    size_t n = (size_t)S * L;
    uint32_t *a = malloc(n * 4), *want = malloc(n * 4), *got = malloc(n * 4);
    for (size_t i = 0; i < n; i++)
        a[i] = specials ? rnd_f32() : (rnd() & 0x80000000u) | ((118 + rnd() % 12) << 23)
                                      | (rnd() & 0x7fffff);
    h_data(h, TPU_SPACE_VMEM, 0, a, n * 4);
    I(h, "vld", 0, 0, 0);
    unsigned k = 1 + rnd() % 200;
    for (unsigned o = 0; o < 9; o++) {
        if (o == 6 || o == 7)
            I(h, ops[o], 1 + o, 0, k);
        else
            I(h, ops[o], 1 + o, 0);
    }
    I0(h, "halt");
    h_run_ok(h);
    for (unsigned o = 0; o < 9; o++) {
        memset(want, 0, n * 4);
        reference(ops[o], S, L, a, k, want);
        assert_int_equal(tpu_core_vreg(h_core(h, 0), 1 + o, got), 0);
        for (size_t i = 0; i < n; i++)
            if (got[i] != want[i])
                fail_msg("%ux%u %s: element %zu: got 0x%08x, want 0x%08x", S, L, ops[o], i,
                         got[i], want[i]);
    }
    free(a);
    free(want);
    free(got);
    h_free(h);
}

static void test_values_against_plain_reference(void **state)
{
    (void)state;
    for (int sp = 0; sp < 2; sp++) {
        values_case(8, 8, sp);
        values_case(8, 16, sp);
        values_case(3, 5, sp);
        values_case(6, 4, sp);
        values_case(8, 128, sp);
        values_case(1, 7, sp);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_t33_t34_latency_is_two_plus_tree_levels),
        cmocka_unit_test(test_t34_one_at_a_time_and_sync),
        cmocka_unit_test(test_t35_vpu_waits_for_the_xlu_source),
        cmocka_unit_test(test_values_against_plain_reference),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
