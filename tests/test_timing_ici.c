/*
 * test_timing_ici.c - section 6, ICI (T30, T31): one or more tests per rule,
 * each asserting exact cycle numbers (timing_helpers.h); the six ports of a
 * torus3d, their wiring and T11 with six incoming links.
 */
#include "timing_helpers.h"

/* ---- section 6: ICI ---------------------------------------------------------------- */

static void ici_case(const char *bw, uint64_t num, uint64_t den, int64_t bytes)
{
    harness *h = h_new("tiny", bw, NULL);
    h->opts = (tpu_system_opts){ .cores = 2, .topology = TPU_TOPO_RING };
    uint8_t data[256];
    for (int i = 0; i < 256; i++)
        data[i] = (uint8_t)(i * 7 + 1);
    h_data(h, TPU_SPACE_VMEM, 0x100, data, sizeof data);
    REGS(h, 1, 0x800, 2, 0x100, 3, bytes);
    I(h, "bne", 31, 0, 7);                               /* core 1: to pc 7 */
    uint64_t send = I(h, "dma.ici", 0, 1, 2, 3, 5, 6);
    uint64_t lw = I(h, "sem.wait", 5, 1);
    I0(h, "halt");
    uint64_t rw = I(h, "sem.wait", 6, 1);
    assert_int_equal(rw, 7);
    I0(h, "halt");
    h_run_ok(h);
    uint64_t t = issue_cycle(h, send);
    uint64_t last = t + (bytes ? ceil_div((uint64_t)bytes * den, num) : 1);
    assert_int_equal(sem_cycle(h, 0, 5, 0), last);              /* T30: lsem */
    assert_int_equal(issue_cycle(h, lw), last + 1);
    assert_int_equal(sem_cycle(h, 1, 6, 0), last + 10);         /* T31: rsem */
    assert_int_equal(h_find(h, TPU_EV_ISSUE, 1, rw, 0)->cycle, last + 11);
    uint8_t out[256];
    h_peek(h, 1, TPU_SPACE_VMEM, 0x800, out, (size_t)bytes);
    assert_memory_equal(out, data, (size_t)bytes);
    tpu_stats st;
    tpu_core_stats(h_core(h, 0), &st);
    assert_int_equal(st.ici_bytes, (uint64_t)bytes);
    h_free(h);
}

static void test_t30_t31_ici_send_and_landing(void **state)
{
    (void)state;
    ici_case("ici_bw=4e9", 4, 1, 10);
    ici_case("ici_bw=4e9", 4, 1, 256);
    ici_case("ici_bw=2.5e9", 5, 2, 13);          /* 2.5 bytes per cycle */
    ici_case("ici_bw=4e9", 4, 1, 0);             /* empty: lsem in its start cycle */
}

static void test_t30_one_transfer_per_link(void **state)
{
    (void)state;
    harness *h = h_new("tiny", NULL);
    h->opts = (tpu_system_opts){ .cores = 2, .topology = TPU_TOPO_RING };
    REGS(h, 1, 0x800, 2, 0x100, 3, 8);
    I(h, "bne", 31, 0, 9);
    uint64_t a = I(h, "dma.ici", 0, 1, 2, 3, 5, 6);     /* 8 bytes: 2 cycles */
    uint64_t b = I(h, "dma.ici", 0, 1, 2, 3, 5, 6);     /* same link: after a */
    uint64_t c = I(h, "dma.ici", 1, 1, 2, 3, 7, 8);     /* behind b in the queue */
    I(h, "sem.wait", 5, 2);
    I(h, "sem.wait", 7, 1);
    I0(h, "halt");
    I(h, "sem.wait", 6, 2);                             /* core 1 */
    I(h, "sem.wait", 8, 1);
    I0(h, "halt");
    h_run_ok(h);
    uint64_t t = issue_cycle(h, a);
    assert_int_equal(h_find(h, TPU_EV_ICI_SEND, 0, a, 0)->cycle, t + 2);
    assert_int_equal(h_find(h, TPU_EV_ICI_SEND, 0, b, 0)->cycle, t + 4);
    /* c's port is free, but the queue is in order: c starts when b has. */
    assert_int_equal(h_find(h, TPU_EV_ICI_SEND, 0, c, 0)->cycle, t + 3 + 2);
    h_free(h);
}

/* ---- six ports: the 3-D torus (torus3d, section 6) ----------------------------- */

/* The neighbour of (x, y, z) on port p of an X x Y x Z torus3d: ports +x -x
 * +y -y +z -z, wraparound, core = (z * Y + y) * X + x. */
static unsigned t3_neighbour(unsigned X, unsigned Y, unsigned Z, unsigned c, unsigned p)
{
    unsigned x = c % X, y = (c / X) % Y, z = c / (X * Y);
    switch (p) {
    case 0: x = (x + 1) % X; break;
    case 1: x = (x + X - 1) % X; break;
    case 2: y = (y + 1) % Y; break;
    case 3: y = (y + Y - 1) % Y; break;
    case 4: z = (z + 1) % Z; break;
    default: z = (z + Z - 1) % Z; break;
    }
    return (z * Y + y) * X + x;
}

/* Core 0 of a 3 x 3 x 3 torus3d sends 8 bytes on each of its six ports at
 * once, each to a different neighbour: every port keeps T30 on its own
 * (lsem 2 cycles after its dma.ici issues at 4 bytes per cycle), every
 * transfer lands T31's 10 cycles later on the neighbour's port p ^ 1, in
 * its own place. */
static void test_t30_t31_six_ports_at_once(void **state)
{
    (void)state;
    harness *h = h_new("tiny", NULL);
    h->opts = (tpu_system_opts){ .cores = 27, .topology = TPU_TOPO_TORUS3D, .cols = 3,
                                 .rows = 3, .depth = 3 };
    uint8_t data[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
    h_data(h, TPU_SPACE_VMEM, 0x100, data, sizeof data);
    REGS(h, 1, 0x800, 2, 0x810, 3, 0x820, 4, 0x830, 5, 0x840, 6, 0x850, 7, 0x100, 8, 8);
    uint64_t br = PC(h);
    I(h, "bne", 31, 0, (int64_t)br + 14);              /* cores 1..26: halt */
    uint64_t send[6];
    for (int p = 0; p < 6; p++)
        send[p] = I(h, "dma.ici", p, 1 + p, 7, 8, 10 + p, 20 + p);
    for (int p = 0; p < 6; p++)
        I(h, "sem.wait", 10 + p, 1);
    I0(h, "halt");
    assert_int_equal(PC(h), br + 14);
    I0(h, "halt");
    h_run_ok(h);
    for (unsigned p = 0; p < 6; p++) {
        uint64_t last = issue_cycle(h, send[p]) + 2;    /* 8 bytes at 4 per cycle */
        assert_int_equal(sem_cycle(h, 0, 10 + p, 0), last);
        assert_int_equal(h_find(h, TPU_EV_ICI_SEND, 0, send[p], 0)->cycle, last);
        unsigned n = t3_neighbour(3, 3, 3, 0, p);
        assert_int_equal(sem_cycle(h, n, 20 + p, 0), last + 10);
        const recorded *r = NULL;
        for (size_t i = 0; i < h->nev && !r; i++)
            if (h->ev[i].kind == TPU_EV_ICI_RECV && h->ev[i].core == n)
                r = &h->ev[i];
        assert_non_null(r);
        assert_int_equal(r->index, p ^ 1);             /* it arrives on the opposite port */
        assert_int_equal(r->cycle, last + 10);
        uint8_t out[8];
        h_peek(h, n, TPU_SPACE_VMEM, 0x800 + 0x10 * p, out, sizeof out);
        assert_memory_equal(out, data, sizeof data);
    }
    tpu_stats st;
    tpu_core_stats(h_core(h, 0), &st);
    assert_int_equal(st.ici_bytes, 48);
    for (int p = 0; p < 6; p++)
        assert_int_equal(st.ici_port_bytes[p], 8);
    h_free(h);
}

/* Every link of a 2 x 3 x 4 torus3d goes where the numbering says, and
 * arrives on port p ^ 1. */
static void test_torus3d_links(void **state)
{
    (void)state;
    harness *h = h_new("tiny", NULL);
    tpu_system_opts so = { .cores = 24, .topology = TPU_TOPO_TORUS3D, .cols = 2, .rows = 3,
                           .depth = 4 };
    char err[600];
    tpu_system *s = tpu_system_create(&h->cfg, &so, err, sizeof err);
    assert_non_null(s);
    assert_int_equal(tpu_system_ncores(s), 24);
    for (unsigned c = 0; c < 24; c++)
        for (unsigned p = 0; p < 6; p++) {
            tpu_link_view v;
            assert_int_equal(tpu_system_link_view(s, c, p, &v), 0);
            assert_int_equal(v.to, (int)t3_neighbour(2, 3, 4, c, p));
            assert_int_equal(v.to_port, p ^ 1);
        }
    tpu_system_destroy(s);
    h_free(h);
}

/* T11 with six incoming links: a vmem_bw that takes four links' peak but
 * not six makes a torus2d and refuses a torus3d, naming the six links;
 * dims that do not make the core count are refused too. */
static void test_t11_six_links_and_bad_dims(void **state)
{
    (void)state;
    harness *h = h_new("tiny", "ici_bw=64e9", "vmem_bw=400", NULL);  /* 96 + 4 x 64 <= 400 < 96 + 6 x 64 */
    char err[600];
    tpu_system_opts t2 = { .cores = 4, .topology = TPU_TOPO_TORUS2D, .rows = 2, .cols = 2 };
    tpu_system *s = tpu_system_create(&h->cfg, &t2, err, sizeof err);
    assert_non_null(s);
    tpu_system_destroy(s);
    tpu_system_opts t3 = { .cores = 8, .topology = TPU_TOPO_TORUS3D, .cols = 2, .rows = 2,
                           .depth = 2 };
    assert_null(tpu_system_create(&h->cfg, &t3, err, sizeof err));
    assert_non_null(strstr(err, "6 incoming ICI links"));
    h_free(h);
    h = h_new("tiny", NULL);
    t3.depth = 3;                                       /* 2 x 2 x 3 is not 8 cores */
    assert_null(tpu_system_create(&h->cfg, &t3, err, sizeof err));
    assert_non_null(strstr(err, "do not make a 2 x 2 x 3 torus3d"));
    t3.depth = 0;
    assert_null(tpu_system_create(&h->cfg, &t3, err, sizeof err));
    assert_non_null(strstr(err, "torus3d needs X x Y x Z"));
    h_free(h);
}

/* Ports 4 and 5 exist in the ISA but not on a 2-D torus: a dma.ici on
 * port 4 there is a run-time error that names the port. */
static void test_port4_on_torus2d(void **state)
{
    (void)state;
    harness *h = h_new("tiny", NULL);
    h->opts = (tpu_system_opts){ .cores = 4, .topology = TPU_TOPO_TORUS2D, .rows = 2, .cols = 2 };
    REGS(h, 1, 0x800, 2, 0x100, 3, 8);
    I(h, "dma.ici", 4, 1, 2, 3, 5, 6);
    I0(h, "halt");
    h_expect_error(h, "ICI port 4 is not connected");
    h_free(h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_t30_t31_ici_send_and_landing),
        cmocka_unit_test(test_t30_one_transfer_per_link),
        cmocka_unit_test(test_t30_t31_six_ports_at_once),
        cmocka_unit_test(test_torus3d_links),
        cmocka_unit_test(test_t11_six_links_and_bad_dims),
        cmocka_unit_test(test_port4_on_torus2d),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
