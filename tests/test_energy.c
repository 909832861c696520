/*
 * test_energy.c - the energy of a run (sim/view/report.c tpu_energy_of, the
 * `energy` line and the energy_* JSON keys; docs/tpu-sim.md, "Energy"):
 * hand-filled counts with round energies, several cores, and a small run of
 * the C model whose counts are known by hand.  The config side (keys,
 * presets, bad values) is in test_config.c.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <cmocka.h>

#include "report.h"
#include "timing_helpers.h"

static void set_energies(tpu_config *c)
{
    c->e_mac_bf16_pj = 2;
    c->e_mac_int8_pj = 0.5;
    c->e_vpu_pj = 3;
    c->e_vmem_read_pj = 1;
    c->e_vmem_write_pj = 1.5;
    c->e_hbm_pj = 10;
    c->e_ici_pj = 20;
    c->e_idle_pj = 0.25;
}

static char *render(const tpu_report *r, int as_json)
{
    FILE *f = tmpfile();
    assert_non_null(f);
    if (as_json)
        tpu_report_json(f, r);
    else
        tpu_report_text(f, r);
    long len = ftell(f);
    rewind(f);
    char *buf = malloc((size_t)len + 1);
    assert_non_null(buf);
    assert_int_equal(fread(buf, 1, (size_t)len, f), (size_t)len);
    buf[len] = 0;
    fclose(f);
    return buf;
}

static void assert_contains(const char *hay, const char *needle)
{
    if (!strstr(hay, needle))
        fail_msg("missing: \"%s\"\nin:\n%s\n", needle, hay);
}

static tpu_report report_of(const tpu_config *c, const tpu_stats *st, unsigned ncores,
                            uint64_t cycles)
{
    tpu_report r;
    memset(&r, 0, sizeof r);
    r.program = "p.bin";
    r.cfg = c;
    r.topology = ncores > 1 ? "ring" : "single";
    r.ncores = ncores;
    r.core = st;
    r.cycles = cycles;
    r.stop = TPU_STOP_HALT;
    r.unit_name = tpu_unit_id_name;
    return r;
}

/* Every term, by hand: 3800 pJ. */
static void test_hand_computed(void **state)
{
    (void)state;
    tpu_config c;
    tpu_config_defaults(&c);
    set_energies(&c);
    tpu_stats st = { 0 };
    st.cycles = 1000;
    st.macs = 600;
    st.int8_macs = 100;         /* 500 bf16 x 2 + 100 int8 x 0.5 = 1050 */
    st.flops = 2 * 500 + 4 * 100 + 200;
    st.vpu_flops = 200;         /* x 3 = 600 */
    st.vmem_read_bytes = 300;   /* x 1 = 300 */
    st.vmem_write_bytes = 400;  /* x 1.5 = 600 */
    st.hbm_read_bytes = 50;
    st.hbm_write_bytes = 30;    /* 80 x 10 = 800 */
    st.ici_bytes = 10;          /* x 20 = 200 */
    tpu_energy e;               /* idle: 1000 x 0.25 = 250 */
    tpu_energy_of(&c, &st, 1000, &e);
    assert_true(e.mac_pj == 1050 && e.vpu_pj == 600 && e.vmem_pj == 900);
    assert_true(e.hbm_pj == 800 && e.ici_pj == 200 && e.idle_pj == 250);
    assert_true(e.total_pj == 3800);

    tpu_report r = report_of(&c, &st, 1, 1000);
    char *t = render(&r, 0);
    assert_contains(t, "energy        0.0038 uJ  (MAC 27.6%, VPU 15.8%, VMEM 23.7%, HBM 21.1%, "
                       "ICI 5.3%, idle 6.6%)\n");
    free(t);
    char *j = render(&r, 1);
    assert_contains(j, "\"energy_uj\": 0.0038, \"energy_mac_uj\": 0.00105, "
                       "\"energy_vpu_uj\": 0.0006, \"energy_vmem_uj\": 0.0009, "
                       "\"energy_hbm_uj\": 0.0008, \"energy_ici_uj\": 0.0002, "
                       "\"energy_idle_uj\": 0.00025");
    free(j);

    /* nothing counted, no energies: 0, and no division by zero */
    tpu_config z;
    memset(&z, 0, sizeof z);
    z.clock_hz = 1e9, z.mxu_n = 8, z.num_mxu = 1, z.hbm_bw = 16e9;
    z.vpu_sublanes = z.vpu_lanes = 8;
    tpu_stats none = { 0 };
    none.cycles = 5;
    r = report_of(&z, &none, 1, 5);
    t = render(&r, 0);
    assert_contains(t, "energy        0 uJ  (MAC 0.0%, VPU 0.0%, VMEM 0.0%, HBM 0.0%, ICI 0.0%, "
                       "idle 0.0%)\n");
    free(t);
}

/* Several cores: each core's static energy for its own cycles; the total's
 * for every core over the whole run. */
static void test_cores(void **state)
{
    (void)state;
    tpu_config c;
    tpu_config_defaults(&c);
    set_energies(&c);
    tpu_stats st[2] = { { 0 }, { 0 } };
    st[0].cycles = 400;         /* halted early: 100 pJ of static energy */
    st[0].hbm_read_bytes = 10;  /* 100 */
    st[1].cycles = 1000;        /* 250 */
    st[1].ici_bytes = 5;        /* 100 */
    tpu_report r = report_of(&c, st, 2, 1000);
    char *j = render(&r, 1);
    /* total: 100 + 100 + 2 x 1000 x 0.25 = 700 pJ */
    assert_contains(j, "\"energy_uj\": 0.0007, ");
    assert_contains(j, "\"core\": 0, \"cycles\": 400");
    assert_contains(j, "\"energy_uj\": 0.0002, ");     /* core 0: 100 + 100 */
    assert_contains(j, "\"energy_uj\": 0.00035, ");    /* core 1: 100 + 250 */
    free(j);
}

/* A run of the model on tiny's energies: one 128-byte DMA into VMEM, an
 * 8 x 8 weight tile and 8 rows through the MXU.  The counts are known by
 * hand; the energy is their sum times the preset's numbers. */
static void test_model_run(void **state)
{
    (void)state;
    harness *h = h_new("tiny", NULL);
    uint16_t ones[64];
    for (int k = 0; k < 64; k++)
        ones[k] = 0x3f80;                                   /* bf16 1.0 */
    h_data(h, TPU_SPACE_HBM, 0, ones, sizeof ones);
    dma_h2v(h, 0, 0, 128, 0);                               /* W: 8 x 8 bf16 */
    I(h, "sem.wait", 0, 1);
    REGS(h, 1, 0, 2, 16, 3, 8, 4, 0x400, 5, 32);
    I(h, "mxu.lw", 0, 1, 2, 1);                             /* from VMEM 0, rows of 16 B */
    I(h, "mxu.mm", 0, 4, 1, 3, 2, 5, 2);                    /* X = W's 8 rows, Y at 0x400 */
    I(h, "sem.wait", 2, 1);
    I0(h, "halt");
    h_run_ok(h);
    tpu_stats st;
    tpu_core_stats(h_core(h, 0), &st);
    assert_int_equal(st.hbm_read_bytes, 128);
    assert_int_equal(st.hbm_write_bytes, 0);
    assert_int_equal(st.macs, 8 * 8 * 8);                   /* 8 rows x N x N */
    assert_int_equal(st.int8_macs, 0);
    assert_int_equal(st.vpu_flops, 0);
    assert_int_equal(st.ici_bytes, 0);
    const tpu_config *c = &h->cfg;
    assert_true(c->e_mac_bf16_pj == 2.0 && c->e_hbm_pj == 31.2 && c->e_idle_pj == 1000);
    double want = 512 * 2.0 + 128 * 31.2 + (double)st.vmem_read_bytes * 2.5 +
                  (double)st.vmem_write_bytes * 2.5 + (double)st.cycles * 1000;
    tpu_energy e;
    tpu_energy_of(c, &st, (double)st.cycles, &e);
    assert_true(fabs(e.total_pj - want) <= 1e-9 * want);
    assert_true(e.mac_pj == 1024);
    assert_true(fabs(e.hbm_pj - 3993.6) < 1e-9);
    /* the DMA wrote 128 bytes, the MXU read the tile and X and wrote Y */
    assert_true(st.vmem_write_bytes >= 128 && st.vmem_read_bytes >= 128);
    h_free(h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hand_computed),
        cmocka_unit_test(test_cores),
        cmocka_unit_test(test_model_run),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
