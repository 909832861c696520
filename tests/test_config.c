/*
 * test_config.c - cmodel/config.c: presets, parsing, messages, checks.
 *
 * The presets must have the values docs/config.md documents (and the v5e,
 * v4p, v5p and v6e numbers must give the book's table and roofline), every error message is checked
 * word for word, and docs/config.md's key table is checked against
 * config.def.  Run from the repository root (as `make test` does) so that
 * docs/config.md is found.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <math.h>

#include "config.h"
#include "objfile.h"

#define ERRLEN 512

/* Parse text over the defaults; returns the message ("" if it parsed). */
static const char *parse_msg(const char *text, const char *where, char *err)
{
    tpu_config c;
    tpu_config_defaults(&c);
    err[0] = 0;
    int rc = tpu_config_parse(&c, text, where, err, ERRLEN);
    assert_int_equal(rc != 0, err[0] != 0);
    return err;
}

static void load_ok(tpu_config *c, const char *name)
{
    char err[ERRLEN] = "";
    int rc = tpu_config_load(c, name, err, sizeof err);
    if (rc != 0)
        fail_msg("loading %s: %s", name, err);
}

/* ---- defaults and presets ----------------------------------------------- */

static void test_defaults_are_config_def(void **state)
{
    (void)state;
    tpu_config c;
    memset(&c, 0xa5, sizeof c);
    tpu_config_defaults(&c);
#define CHECK_U64(n, def) assert_int_equal(c.n, (uint64_t)(def));
#define CHECK_F64(n, def) assert_true(c.n == (double)(def));
#define CHECK_STR(n, def) assert_string_equal(c.n, def);
#define KEY(n, type, def, lo, hi, doc) CHECK_##type(n, def)
#include "../cmodel/config.def"
#undef KEY
    char err[ERRLEN];
    assert_int_equal(tpu_config_validate(&c, err, sizeof err), 0);
}

static void test_preset_tiny(void **state)
{
    (void)state;
    tpu_config c, d;
    load_ok(&c, "tiny");
    assert_string_equal(c.name, "tiny");
    assert_true(c.clock_hz == 1e9);
    assert_int_equal(c.mxu_n, 8);
    assert_int_equal(c.num_mxu, 1);
    assert_int_equal(c.mxu_wloads, 1);
    assert_int_equal(c.vpu_sublanes, 8);
    assert_int_equal(c.vpu_lanes, 8);
    assert_int_equal(c.vpu_latency, 2);
    assert_int_equal(c.imem_words, 4096);
    assert_int_equal(c.vmem_bytes, 256 * 1024);
    assert_int_equal(c.vmem_bw, 512);
    assert_int_equal(c.hbm_bytes, 16 * 1024 * 1024);
    assert_true(c.hbm_bw == 16e9);
    assert_int_equal(c.hbm_latency, 20);
    assert_int_equal(c.dma_engines, 2);
    assert_true(c.ici_bw == 4e9);
    assert_int_equal(c.ici_latency, 10);
    assert_int_equal(c.seq_queue_depth, 4);
    uint64_t num, den;
    tpu_config_bytes_per_cycle(c.hbm_bw, c.clock_hz, &num, &den);
    assert_int_equal(num, 16);
    assert_int_equal(den, 1);
    tpu_config_bytes_per_cycle(c.ici_bw, c.clock_hz, &num, &den);
    assert_int_equal(num, 4);
    assert_int_equal(den, 1);
    /* config.def says its defaults are the tiny preset's. */
    tpu_config_defaults(&d);
    memcpy(d.name, c.name, sizeof d.name);
    assert_memory_equal(&c, &d, sizeof c);
}

static void test_preset_mid(void **state)
{
    (void)state;
    tpu_config c;
    load_ok(&c, "mid");
    assert_string_equal(c.name, "mid");
    assert_true(c.clock_hz == 1e9);
    assert_int_equal(c.mxu_n, 16);
    assert_int_equal(c.num_mxu, 2);
    assert_int_equal(c.mxu_wloads, 2);
    assert_int_equal(c.vpu_sublanes, 8);
    assert_int_equal(c.vpu_lanes, 16);
    assert_int_equal(c.vpu_latency, 2);
    assert_int_equal(c.imem_words, 8192);
    assert_int_equal(c.vmem_bytes, 1024 * 1024);
    assert_int_equal(c.vmem_bw, 512);
    assert_int_equal(c.hbm_bytes, 64 * 1024 * 1024);
    assert_true(c.hbm_bw == 32e9);
    assert_int_equal(c.hbm_latency, 20);
    assert_int_equal(c.dma_engines, 2);
    assert_true(c.ici_bw == 8e9);
    assert_int_equal(c.ici_latency, 10);
    assert_int_equal(c.seq_queue_depth, 4);
}

static void test_preset_v5e(void **state)
{
    (void)state;
    tpu_config c;
    load_ok(&c, "v5e");
    assert_string_equal(c.name, "v5e");
    assert_true(c.clock_hz == 1.5e9);
    assert_int_equal(c.mxu_n, 128);
    assert_int_equal(c.num_mxu, 4);
    assert_int_equal(c.mxu_wloads, 7);
    assert_int_equal(c.vpu_sublanes, 8);
    assert_int_equal(c.vpu_lanes, 128);
    assert_int_equal(c.vpu_latency, 2);
    assert_int_equal(c.imem_words, 65536);
    assert_int_equal(c.vmem_bytes, 128ull << 20);
    assert_int_equal(c.vmem_bw, 12416);
    assert_int_equal(c.hbm_bytes, 16ull << 30);
    assert_true(c.hbm_bw == 8.2e11);
    assert_int_equal(c.hbm_latency, 500);
    assert_int_equal(c.dma_engines, 4);
    assert_true(c.ici_bw == 4.5e10);
    assert_int_equal(c.ici_latency, 1500);

    /* HBM: 8.2e11 / 1.5e9 = 1640/3 bytes per cycle, exactly. */
    uint64_t num, den;
    tpu_config_bytes_per_cycle(c.hbm_bw, c.clock_hz, &num, &den);
    assert_int_equal(num, 1640);
    assert_int_equal(den, 3);
    /* ICI: 4.5e10 / 1.5e9 = 30 bytes per cycle per direction. */
    uint64_t inum, iden;
    tpu_config_bytes_per_cycle(c.ici_bw, c.clock_hz, &inum, &iden);
    assert_int_equal(inum, 30);
    assert_int_equal(iden, 1);
    /* Peak 4 x 128 x 128 = 65536 MACs per cycle; the ridge point is
     * 2 * 65536 FLOP / (1640/3 B) = 393216/1640 = 239.77 FLOP per byte. */
    uint64_t macs = c.num_mxu * c.mxu_n * c.mxu_n;
    assert_int_equal(macs, 65536);
    double ridge = 2.0 * (double)macs * (double)den / (double)num;
    assert_true(ridge > 239.76 && ridge < 239.77);
    /* ... and 1.97e14 FLOP/s, the book's table. */
    double flops = 2.0 * (double)macs * c.clock_hz;
    assert_true(flops > 1.96e14 && flops < 1.97e14);
    /* VMEM bandwidth "about 22x HBM": 12416 / 546.7 = 22.7. */
    double ratio = (double)c.vmem_bw * (double)den / (double)num;
    assert_true(ratio > 22 && ratio < 23);
    /* T11 is tight: 4 x (2 x 128 x 7 + 10 x 128) + 4 x 30 = 12408 bytes of
     * MXU and ICI traffic per cycle fit; an eighth weight load would not. */
    assert_int_equal(c.num_mxu * (2 * c.mxu_n * c.mxu_wloads + 10 * c.mxu_n) + 4 * inum, 12408);
    char err[ERRLEN];
    assert_int_equal(tpu_config_set(&c, "mxu_wloads=8", err, sizeof err), 0);
    assert_int_equal(tpu_config_validate(&c, err, sizeof err), -1);
}

/* The presets of the book's table ("How to Scale Your Model", chapter "How
 * to think about TPUs"): per chip bf16 FLOP/s and HBM bytes/s.  A preset is
 * one TensorCore, so `cores` of them make a chip (v4p and v5p have two);
 * the chip's peak must be the table's within 0.5% (the clock is rounded),
 * its HBM bandwidth exactly the table's, and so the ridge the table's. */
static void check_book_preset(const char *name, int cores, double flops, double bw,
                              double ridge, uint64_t n, uint64_t num_mxu)
{
    tpu_config c;
    load_ok(&c, name);
    assert_string_equal(c.name, name);
    assert_int_equal(c.mxu_n, n);
    assert_int_equal(c.num_mxu, num_mxu);
    double peak = 2.0 * (double)(c.num_mxu * c.mxu_n * c.mxu_n) * c.clock_hz;
    assert_true(fabs(cores * peak / flops - 1) < 0.005);
    assert_true(fabs(cores * c.hbm_bw / bw - 1) < 1e-12);
    uint64_t num, den;
    tpu_config_bytes_per_cycle(c.hbm_bw, c.clock_hz, &num, &den);
    double r = 2.0 * (double)(c.num_mxu * c.mxu_n * c.mxu_n) * (double)den / (double)num;
    assert_true(fabs(r / (flops / bw) - 1) < 0.005);
    assert_true(fabs(r / ridge - 1) < 0.005);
    /* a weight tile every N/W cycles is no faster than the sequencer can
     * start one (a step of the roofline's W-in-VMEM matmul is 4 NUM_MXU + 1
     * instructions, docs/roofline.md) */
    assert_true(c.mxu_n >= (4 * c.num_mxu + 1) * c.mxu_wloads);
    /* VMEM "about 22x HBM", as the book says of v5e */
    double ratio = (double)c.vmem_bw * (double)den / (double)num;
    assert_true(ratio > 21.5 && ratio < 23);
    char err[ERRLEN];
    assert_int_equal(tpu_config_validate(&c, err, sizeof err), 0);
}

static void test_book_presets(void **state)
{
    (void)state;
    check_book_preset("v4p", 2, 2.75e14, 1.2e12, 229, 128, 4);
    check_book_preset("v5p", 2, 4.59e14, 2.8e12, 164, 128, 4);
    check_book_preset("v6e", 1, 9.20e14, 1.6e12, 575, 256, 4);
    check_book_preset("v5e", 1, 1.97e14, 8.2e11, 240, 128, 4);
    /* The book's clocks where it gives one (v5e 1.5 GHz, v5p 1.75 GHz);
     * v4p's and v6e's are derived from the table's peak. */
    tpu_config c;
    load_ok(&c, "v5p");
    assert_true(c.clock_hz == 1.75e9);
    assert_true(c.hbm_bw == 1.4e12);            /* half a chip's 2.8e12 */
    load_ok(&c, "v4p");
    assert_true(c.clock_hz == 1.05e9);
    assert_true(c.hbm_bw == 6e11);
    load_ok(&c, "v6e");
    assert_true(c.clock_hz == 1.7548e9);
    assert_true(c.hbm_bw == 1.6e12);
}

/* An object runs by default on the first preset with its shape: v4p and v5p
 * have v5e's (4 MXUs of 128 x 128, a VPU of 8 x 128), and v5e comes first
 * (the Makefile's PRESET_FIRST). */
static void test_shape_picks_v5e(void **state)
{
    (void)state;
    tpu_obj_config shape = { 128, 4, 8, 128 };
    tpu_config c;
    int k = tpu_obj_config_preset(&shape, 0, &c);
    assert_true(k >= 0);
    assert_string_equal(tpu_config_presets[k].name, "v5e");
    assert_string_equal(c.name, "v5e");
    int seen = 0;
    for (k = tpu_obj_config_preset(&shape, 0, &c); k >= 0; k = tpu_obj_config_preset(&shape, k + 1, &c))
        seen++;
    assert_int_equal(seen, 3);                  /* v5e, v4p, v5p */
    tpu_obj_config big = { 256, 4, 8, 128 };
    k = tpu_obj_config_preset(&big, 0, &c);
    assert_true(k >= 0);
    assert_string_equal(c.name, "v6e");
}

/* Every compiled-in preset loads, validates, names itself and round-trips. */
static void test_every_preset(void **state)
{
    (void)state;
    int count = 0;
    for (const tpu_config_preset *p = tpu_config_presets; p->name; p++, count++) {
        tpu_config c, back;
        char err[ERRLEN], text[4096];
        load_ok(&c, p->name);
        assert_string_equal(c.name, p->name);
        assert_int_equal(tpu_config_validate(&c, err, sizeof err), 0);
        tpu_config_print(&c, text, sizeof text);
        tpu_config_defaults(&back);
        assert_int_equal(tpu_config_parse(&back, text, "printed", err, sizeof err), 0);
        assert_memory_equal(&c, &back, sizeof c);
    }
    assert_true(count >= 3);
}

/* Every preset sets every energy key on a line of its own, with a comment
 * that says where the number comes from, and names its sources (Horowitz's
 * ISSCC 2014 table) in the comments above them (docs/config.md, "Energy"). */
static void test_presets_energy_sources(void **state)
{
    (void)state;
    static const char *const ekeys[] = { "e_mac_bf16_pj", "e_mac_int8_pj", "e_vpu_pj",
                                         "e_vmem_read_pj", "e_vmem_write_pj", "e_hbm_pj",
                                         "e_ici_pj", "e_idle_pj" };
    int count = 0;
    for (const tpu_config_preset *p = tpu_config_presets; p->name; p++, count++) {
        const char *text = p->text;
        assert_non_null(strstr(text, "Horowitz, \"Computing's energy problem"));
        assert_non_null(strstr(text, "ISSCC 2014"));
        assert_non_null(strstr(text, "O'Connor"));
        for (size_t k = 0; k < sizeof ekeys / sizeof ekeys[0]; k++) {
            char want[64];
            snprintf(want, sizeof want, "\n%s ", ekeys[k]);
            const char *at = strstr(text, want);
            if (!at)
                fail_msg("preset %s does not set %s", p->name, ekeys[k]);
            const char *eol = strchr(at + 1, '\n');
            const char *hash = strchr(at + 1, '#');
            if (!hash || (eol && hash > eol))
                fail_msg("preset %s: %s has no comment naming its source", p->name, ekeys[k]);
        }
        /* and the values are usable: positive, loaded into the config */
        tpu_config c;
        load_ok(&c, p->name);
        assert_true(c.e_mac_bf16_pj > 0 && c.e_mac_int8_pj > 0 && c.e_vpu_pj > 0);
        assert_true(c.e_vmem_read_pj > 0 && c.e_vmem_write_pj > 0 && c.e_hbm_pj > 0);
        assert_true(c.e_ici_pj > 0 && c.e_idle_pj > 0);
        assert_true(c.e_mac_int8_pj < c.e_mac_bf16_pj);     /* H: int8 is cheaper */
        assert_true(c.e_vmem_read_pj < c.e_hbm_pj);         /* on chip beats off chip */
    }
    assert_true(count >= 7);
    /* tiny's numbers are the defaults: Horowitz's 45 nm ones, unscaled */
    tpu_config d, t;
    tpu_config_defaults(&d);
    load_ok(&t, "tiny");
    assert_true(d.e_mac_bf16_pj == t.e_mac_bf16_pj && d.e_hbm_pj == t.e_hbm_pj &&
                d.e_idle_pj == t.e_idle_pj && d.e_vpu_pj == t.e_vpu_pj);
    assert_true(d.e_mac_bf16_pj == 2.0 && d.e_mac_int8_pj == 0.3 && d.e_hbm_pj == 31.2);
}

/* ---- values --------------------------------------------------------------- */

static void test_u64_forms(void **state)
{
    (void)state;
    static const struct { const char *text; uint64_t want; } cases[] = {
        { "8192", 8192 }, { "0x2000", 8192 }, { "0X2000", 8192 }, { "8Ki", 8192 },
        { "64Mi", 64ull << 20 }, { "16Gi", 16ull << 30 }, { "1Ti", 1ull << 40 },
        { "0x10Ki", 16384 }, { "1e9", 1000000000 }, { "1E9", 1000000000 },
        { "4.5e3", 4500 }, { "4.096e3", 4096 }, { "8192.0", 8192 }, { "40960e-1", 4096 },
        { "1e+4", 10000 }, { "004096", 4096 }, { "4096.", 4096 },
        { "4294967296", 4294967296ull }, { "4Gi", 4ull << 30 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tpu_config c;
        char line[64], err[ERRLEN] = "";
        tpu_config_defaults(&c);
        snprintf(line, sizeof line, "hbm_bytes = %s\n", cases[i].text);
        if (tpu_config_parse(&c, line, "t.cfg", err, sizeof err) != 0)
            fail_msg("'%s': %s", cases[i].text, err);
        assert_int_equal(c.hbm_bytes, cases[i].want);
    }
    tpu_config c;
    char err[ERRLEN];
    tpu_config_defaults(&c);
    assert_int_equal(tpu_config_parse(&c, "hbm_bytes = 1Ti\nhbm_latency = 0\n", "t", err, sizeof err), 0);
    assert_int_equal(c.hbm_bytes, 1ull << 40);
    assert_int_equal(c.hbm_latency, 0);
    assert_int_equal(tpu_config_parse(&c, "hbm_latency = -0\n", "t", err, sizeof err), 0);
    assert_int_equal(c.hbm_latency, 0);
}

static void test_f64_and_str_values(void **state)
{
    (void)state;
    tpu_config c;
    char err[ERRLEN];
    tpu_config_defaults(&c);
    assert_int_equal(tpu_config_parse(&c, "clock_hz = 1.25e9\nhbm_bw = 123456789.5\n"
                                      "ici_bw=1000000\nname = my-chip_2.0+x\n", "t", err, sizeof err), 0);
    assert_true(c.clock_hz == 1.25e9);
    assert_true(c.hbm_bw == 123456789.5);
    assert_true(c.ici_bw == 1e6);
    assert_string_equal(c.name, "my-chip_2.0+x");
    assert_int_equal(tpu_config_parse(&c, "name = abcdefghijklmnopqrstuvwxyz01234\n", "t", err, sizeof err), 0);
    assert_string_equal(c.name, "abcdefghijklmnopqrstuvwxyz01234");   /* 31 characters */
}

static void test_comments_blank_lines_crlf(void **state)
{
    (void)state;
    tpu_config c;
    char err[ERRLEN];
    tpu_config_defaults(&c);
    const char *text =
        "# a comment\n"
        "\n"
        "   \t  \n"
        "mxu_n = 16   # trailing comment\r\n"
        "\tnum_mxu\t=\t2\t\r\n"
        "  # indented comment with = sign\n"
        "vpu_lanes=32#no spaces";           /* no final newline */
    assert_int_equal(tpu_config_parse(&c, text, "t.cfg", err, sizeof err), 0);
    assert_int_equal(c.mxu_n, 16);
    assert_int_equal(c.num_mxu, 2);
    assert_int_equal(c.vpu_lanes, 32);
    assert_int_equal(tpu_config_parse(&c, "", "t.cfg", err, sizeof err), 0);
    assert_int_equal(c.mxu_n, 16);
}

/* ---- messages ------------------------------------------------------------- */

static void test_error_messages(void **state)
{
    (void)state;
    static const struct { const char *text, *want; } cases[] = {
        { "# tiny\n\n\n\n\n\nmxu_size = 16\n",
          "tiny.cfg:7: error: unknown key 'mxu_size' (did you mean 'mxu_n'?)" },
        { "vmem_byte = 4096\n",
          "tiny.cfg:1: error: unknown key 'vmem_byte' (did you mean 'vmem_bytes'?)" },
        { "frobnicate = 1\n", "tiny.cfg:1: error: unknown key 'frobnicate'" },
        { "mxu_n = 1000\n", "tiny.cfg:1: error: mxu_n = 1000 is out of range 2..256" },
        { "mxu_n = 1\n", "tiny.cfg:1: error: mxu_n = 1 is out of range 2..256" },
        { "mxu_n = -3\n", "tiny.cfg:1: error: mxu_n = -3 is out of range 2..256" },
        { "vmem_bytes = 8Gi\n",
          "tiny.cfg:1: error: vmem_bytes = 8Gi is out of range 4096..4294967296" },
        { "vmem_bytes = abc\n",
          "tiny.cfg:1: error: bad value 'abc' for vmem_bytes: expected an integer" },
        { "vmem_bytes = 1.5\n",
          "tiny.cfg:1: error: bad value '1.5' for vmem_bytes: expected an integer" },
        { "vmem_bytes = 8 Ki\n",
          "tiny.cfg:1: error: bad value '8 Ki' for vmem_bytes: expected an integer" },
        { "vmem_bytes = 8Ki9\n",
          "tiny.cfg:1: error: bad value '8Ki9' for vmem_bytes: expected an integer" },
        { "vmem_bytes = 8Xi\n",
          "tiny.cfg:1: error: bad value '8Xi' for vmem_bytes: expected an integer" },
        { "vmem_bytes = 1e3Ki\n",
          "tiny.cfg:1: error: bad value '1e3Ki' for vmem_bytes: expected an integer" },
        { "vmem_bytes = 0x\n",
          "tiny.cfg:1: error: bad value '0x' for vmem_bytes: expected an integer" },
        { "vmem_bytes = 1e\n",
          "tiny.cfg:1: error: bad value '1e' for vmem_bytes: expected an integer" },
        { "vmem_bytes = 99999999999999999999\n",
          "tiny.cfg:1: error: bad value '99999999999999999999' for vmem_bytes: too large" },
        { "vmem_bytes = 0x10000000000000000\n",
          "tiny.cfg:1: error: bad value '0x10000000000000000' for vmem_bytes: too large" },
        { "vmem_bytes = 1e30\n",
          "tiny.cfg:1: error: bad value '1e30' for vmem_bytes: too large" },
        { "vmem_bytes = 16777216Ti\n",
          "tiny.cfg:1: error: bad value '16777216Ti' for vmem_bytes: too large" },
        { "clock_hz = fast\n",
          "tiny.cfg:1: error: bad value 'fast' for clock_hz: expected a number" },
        { "clock_hz = inf\n",
          "tiny.cfg:1: error: bad value 'inf' for clock_hz: expected a number" },
        { "clock_hz = nan\n",
          "tiny.cfg:1: error: bad value 'nan' for clock_hz: expected a number" },
        { "clock_hz = 1e12\n", "tiny.cfg:1: error: clock_hz = 1e12 is out of range 1e6..1e11" },
        { "hbm_bw = 5\n", "tiny.cfg:1: error: hbm_bw = 5 is out of range 1e6..1e15" },
        { "e_hbm_pj = -1\n", "tiny.cfg:1: error: e_hbm_pj = -1 is out of range 0..1e6" },
        { "e_mac_bf16_pj = lots\n",
          "tiny.cfg:1: error: bad value 'lots' for e_mac_bf16_pj: expected a number" },
        { "e_idle_pj = 1e10\n", "tiny.cfg:1: error: e_idle_pj = 1e10 is out of range 0..1e9" },
        { "e_vpu_pj = nan\n", "tiny.cfg:1: error: bad value 'nan' for e_vpu_pj: expected a number" },
        { "name = two words\n",
          "tiny.cfg:1: error: bad value 'two words' for name: "
          "expected 1 to 31 letters, digits, '_', '.', '+' or '-'" },
        { "name = abcdefghijklmnopqrstuvwxyz012345\n",
          "tiny.cfg:1: error: bad value 'abcdefghijklmnopqrstuvwxyz012345' for name: "
          "expected 1 to 31 letters, digits, '_', '.', '+' or '-'" },
        { "mxu_n = 8\nnum_mxu = 2\nmxu_n = 16\n",
          "tiny.cfg:3: error: duplicate key 'mxu_n' (first set on line 1)" },
        { "mxu_n 8\n", "tiny.cfg:1: error: missing '=' in 'mxu_n 8' (expected 'key = value')" },
        { "mxu_n =\n", "tiny.cfg:1: error: missing value for 'mxu_n'" },
        { "mxu_n = # sixteen\n", "tiny.cfg:1: error: missing value for 'mxu_n'" },
        { "= 8\n", "tiny.cfg:1: error: missing key before '='" },
        { "mxu_n = 8 = 9\n",
          "tiny.cfg:1: error: bad value '8 = 9' for mxu_n: expected an integer" },
        { "MXU_N = 8\n", "tiny.cfg:1: error: unknown key 'MXU_N' (did you mean 'mxu_n'?)" },
        { "mxu_n = \x01\x7f\n",
          "tiny.cfg:1: error: bad value '?" "?' for mxu_n: expected an integer" },
        { "vmem_bytes = 123456789012345678901234567890123456789012345678901234567890\n",
          "tiny.cfg:1: error: bad value '123456789012345678901234567890123456789012345678...'"
          " for vmem_bytes: too large" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char err[ERRLEN];
        assert_string_equal(parse_msg(cases[i].text, "tiny.cfg", err), cases[i].want);
    }
}

static void test_error_leaves_config_unchanged(void **state)
{
    (void)state;
    tpu_config c, before;
    char err[ERRLEN];
    tpu_config_defaults(&c);
    before = c;
    assert_int_equal(tpu_config_parse(&c, "mxu_n = 16\nnum_mxu = 9\n", "t", err, sizeof err), -1);
    assert_memory_equal(&c, &before, sizeof c);
    assert_int_equal(tpu_config_set(&c, "mxu_n = 0", err, sizeof err), -1);
    assert_memory_equal(&c, &before, sizeof c);
    assert_int_equal(tpu_config_load(&c, "no-such-preset", err, sizeof err), -1);
    assert_memory_equal(&c, &before, sizeof c);
    /* A message buffer is optional and never overrun. */
    assert_int_equal(tpu_config_parse(&c, "bogus = 1\n", "t", NULL, 0), -1);
    char tiny_err[8];
    assert_int_equal(tpu_config_parse(&c, "bogus = 1\n", "t", tiny_err, sizeof tiny_err), -1);
    assert_string_equal(tiny_err, "t:1: er");
}

/* ---- --set ------------------------------------------------------------------ */

static void test_set_overrides(void **state)
{
    (void)state;
    tpu_config c;
    char err[ERRLEN];
    load_ok(&c, "v5e");
    assert_int_equal(tpu_config_set(&c, "mxu_n=64", err, sizeof err), 0);
    assert_int_equal(c.mxu_n, 64);
    assert_int_equal(tpu_config_set(&c, "  hbm_bw = 1.2e12 ", err, sizeof err), 0);
    assert_true(c.hbm_bw == 1.2e12);
    assert_int_equal(tpu_config_set(&c, "vmem_bytes=64Mi", err, sizeof err), 0);
    assert_int_equal(c.vmem_bytes, 64ull << 20);
    assert_int_equal(tpu_config_set(&c, "name=v5e-small", err, sizeof err), 0);
    assert_string_equal(c.name, "v5e-small");
    assert_int_equal(c.num_mxu, 4);                           /* the rest untouched */
    /* The same key twice is fine for --set: the last one wins. */
    assert_int_equal(tpu_config_set(&c, "mxu_n=32", err, sizeof err), 0);
    assert_int_equal(c.mxu_n, 32);
    assert_int_equal(tpu_config_validate(&c, err, sizeof err), 0);

    assert_int_equal(tpu_config_set(&c, "mxu_size=16", err, sizeof err), -1);
    assert_string_equal(err, "--set: error: unknown key 'mxu_size' (did you mean 'mxu_n'?)");
    assert_int_equal(tpu_config_set(&c, "mxu_n=1000", err, sizeof err), -1);
    assert_string_equal(err, "--set: error: mxu_n = 1000 is out of range 2..256");
    assert_int_equal(tpu_config_set(&c, "mxu_n", err, sizeof err), -1);
    assert_string_equal(err, "--set: error: missing '=' in 'mxu_n' (expected 'key = value')");
    assert_int_equal(tpu_config_set(&c, "", err, sizeof err), -1);
    assert_string_equal(err, "--set: error: missing '=' in '' (expected 'key = value')");
    assert_int_equal(c.mxu_n, 32);
}

/* ---- cross-key checks ----------------------------------------------------- */

static void test_validate_rules(void **state)
{
    (void)state;
    static const struct { const char *set, *want; } cases[] = {
        { "vmem_bytes=4100",
          "config: error: vmem_bytes = 4100 is not a multiple of 64" },
        { "hbm_bytes=4097",
          "config: error: hbm_bytes = 4097 is not a multiple of 64" },
        { "mxu_n=64",                        /* 2*64*64 = 8192 > 4096 */
          "config: error: vmem_bytes = 4096 cannot hold one bf16 weight tile of "
          "mxu_n x mxu_n = 8192 bytes" },
        { "vpu_lanes=256",                   /* 4*8*256 = 8192 > 4096 */
          "config: error: vmem_bytes = 4096 cannot hold one vector register of "
          "vpu_sublanes x vpu_lanes x 4 = 8192 bytes" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tpu_config c;
        char err[ERRLEN];
        tpu_config_defaults(&c);
        assert_int_equal(tpu_config_set(&c, "vmem_bytes=4096", err, sizeof err), 0);
        assert_int_equal(tpu_config_validate(&c, err, sizeof err), 0);
        assert_int_equal(tpu_config_set(&c, cases[i].set, err, sizeof err), 0);
        assert_int_equal(tpu_config_validate(&c, err, sizeof err), -1);
        assert_string_equal(err, cases[i].want);
    }
    /* Exactly one tile fits: fine. */
    tpu_config c;
    char err[ERRLEN];
    tpu_config_defaults(&c);
    assert_int_equal(tpu_config_set(&c, "mxu_n=256", err, sizeof err), 0);
    assert_int_equal(tpu_config_set(&c, "vmem_bw=4096", err, sizeof err), 0);
    assert_int_equal(tpu_config_set(&c, "vmem_bytes=128Ki", err, sizeof err), 0);
    assert_int_equal(tpu_config_validate(&c, err, sizeof err), 0);
    /* T11: the MXUs' worst case (W weight rows of 2 x mxu_n bytes and
     * 10 x mxu_n bytes more per MXU) plus 4 ICI links must fit. */
    assert_int_equal(tpu_config_set(&c, "vmem_bw=3087", err, sizeof err), 0);
    assert_int_equal(tpu_config_validate(&c, err, sizeof err), -1);
    assert_string_equal(err, "config: error: vmem_bw = 3087 is too small: the MXUs and ICI links "
                             "need up to 3088 bytes per cycle (num_mxu x (2 x mxu_n x mxu_wloads + "
                             "10 x mxu_n) + 4 x ICI bytes per cycle, mxu_wloads = 1; "
                             "docs/timing.md T11)");
    assert_int_equal(tpu_config_set(&c, "vmem_bw=3088", err, sizeof err), 0);
    assert_int_equal(tpu_config_validate(&c, err, sizeof err), 0);
    /* A second weight load per MXU needs 512 bytes more. */
    assert_int_equal(tpu_config_set(&c, "mxu_wloads=2", err, sizeof err), 0);
    assert_int_equal(tpu_config_validate(&c, err, sizeof err), -1);
    assert_string_equal(err, "config: error: vmem_bw = 3088 is too small: the MXUs and ICI links "
                             "need up to 3600 bytes per cycle (num_mxu x (2 x mxu_n x mxu_wloads + "
                             "10 x mxu_n) + 4 x ICI bytes per cycle, mxu_wloads = 2; "
                             "docs/timing.md T11)");
    assert_int_equal(tpu_config_set(&c, "vmem_bw=3600", err, sizeof err), 0);
    assert_int_equal(tpu_config_validate(&c, err, sizeof err), 0);
    /* At most one load per weight row: W <= N. */
    tpu_config_defaults(&c);
    assert_int_equal(tpu_config_set(&c, "mxu_wloads=8", err, sizeof err), 0);
    assert_int_equal(tpu_config_validate(&c, err, sizeof err), 0);
    assert_int_equal(tpu_config_set(&c, "mxu_wloads=9", err, sizeof err), 0);
    assert_int_equal(tpu_config_validate(&c, err, sizeof err), -1);
    assert_string_equal(err, "config: error: mxu_wloads = 9 is larger than mxu_n = 8 (loads in "
                             "flight read different weight rows)");
    assert_int_equal(tpu_config_set(&c, "mxu_wloads=0", err, sizeof err), -1);
    assert_string_equal(err, "--set: error: mxu_wloads = 0 is out of range 1..256");
    /* Fields set by code are range-checked too. */
    c.num_mxu = 0;
    assert_int_equal(tpu_config_validate(&c, err, sizeof err), -1);
    assert_string_equal(err, "config: error: num_mxu = 0 is out of range 1..4");
    tpu_config_defaults(&c);
    c.clock_hz = 0;
    assert_int_equal(tpu_config_validate(&c, err, sizeof err), -1);
    assert_string_equal(err, "config: error: clock_hz = 0 is out of range 1e6..1e11");
    tpu_config_defaults(&c);
    c.name[0] = 0;
    assert_int_equal(tpu_config_validate(&c, err, sizeof err), -1);
    assert_string_equal(err, "config: error: name is not 1 to 31 letters, digits, '_', '.', '+' or '-'");
}

/* mxu_n need not be a power of two (docs/config.md): every N from 2 to
 * 256 is a machine when the other keys allow it, and presets take any. */
static void test_any_mxu_n(void **state)
{
    (void)state;
    static const char *const sets[] = { "mxu_n=2", "mxu_n=3", "mxu_n=5", "mxu_n=6",
                                        "mxu_n=12", "mxu_n=100" };
    for (size_t i = 0; i < sizeof sets / sizeof sets[0]; i++) {
        tpu_config c;
        char err[ERRLEN];
        load_ok(&c, "mid");                 /* 2 MXUs, 2 weight loads in flight */
        assert_int_equal(tpu_config_set(&c, sets[i], err, sizeof err), 0);
        if (c.mxu_n >= 12)                  /* T11: 2 x (2N x 2 + 10N) + 4 x 8 */
            assert_int_equal(tpu_config_set(&c, "vmem_bw=4096", err, sizeof err), 0);
        assert_int_equal(tpu_config_validate(&c, err, sizeof err), 0);
    }
}

/* ---- loading files --------------------------------------------------------- */

static void write_file(const char *path, const char *data, size_t n)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, n, f), n);
    assert_int_equal(fclose(f), 0);
}

static void test_load_files(void **state)
{
    (void)state;
    char dir[64];
    snprintf(dir, sizeof dir, "/tmp/test_config.XXXXXX");
    assert_non_null(mkdtemp(dir));
    char path[128], want[ERRLEN], err[ERRLEN];
    tpu_config c;

    /* A good file, over the defaults. */
    snprintf(path, sizeof path, "%s/big.cfg", dir);
    const char *good = "name = big\nmxu_n = 32\nvmem_bytes = 1Mi\n";
    write_file(path, good, strlen(good));
    load_ok(&c, path);
    assert_string_equal(c.name, "big");
    assert_int_equal(c.mxu_n, 32);
    assert_int_equal(c.vmem_bytes, 1 << 20);
    assert_int_equal(c.num_mxu, 1);                      /* default */

    /* A path with '/' but no .cfg ending is a file too. */
    snprintf(path, sizeof path, "%s/plain", dir);
    write_file(path, "name = plain\n", 13);
    load_ok(&c, path);
    assert_string_equal(c.name, "plain");

    /* Errors name the file and line. */
    snprintf(path, sizeof path, "%s/bad.cfg", dir);
    write_file(path, "mxu_n = 8\n\nmxu_sise = 4\n", 24);
    assert_int_equal(tpu_config_load(&c, path, err, sizeof err), -1);
    snprintf(want, sizeof want, "%s:3: error: unknown key 'mxu_sise' (did you mean 'mxu_n'?)", path);
    assert_string_equal(err, want);

    /* Cross-key checks run on load and name the file. */
    snprintf(path, sizeof path, "%s/odd.cfg", dir);
    write_file(path, "vmem_bytes = 4100\n", 18);
    assert_int_equal(tpu_config_load(&c, path, err, sizeof err), -1);
    snprintf(want, sizeof want, "%s: error: vmem_bytes = 4100 is not a multiple of 64", path);
    assert_string_equal(err, want);

    /* Missing file: the path and strerror. */
    snprintf(path, sizeof path, "%s/missing.cfg", dir);
    assert_int_equal(tpu_config_load(&c, path, err, sizeof err), -1);
    snprintf(want, sizeof want, "%s: error: cannot open: %s", path, strerror(ENOENT));
    assert_string_equal(err, want);
    assert_int_equal(tpu_config_load(&c, "no-such-file.cfg", err, sizeof err), -1);
    snprintf(want, sizeof want, "no-such-file.cfg: error: cannot open: %s", strerror(ENOENT));
    assert_string_equal(err, want);

    /* A directory. */
    snprintf(path, sizeof path, "%s/", dir);
    assert_int_equal(tpu_config_load(&c, path, err, sizeof err), -1);
    snprintf(want, sizeof want, "%s: error: cannot read: %s", path, strerror(EISDIR));
    assert_string_equal(err, want);

    /* Over 1 MiB: refused. Exactly 1 MiB of comment: fine. */
    size_t big_n = (1u << 20) + 1;
    char *big = malloc(big_n);
    assert_non_null(big);
    memset(big, '#', big_n);
    snprintf(path, sizeof path, "%s/huge.cfg", dir);
    write_file(path, big, big_n);
    assert_int_equal(tpu_config_load(&c, path, err, sizeof err), -1);
    snprintf(want, sizeof want, "%s: error: file is larger than 1 MiB; not a config file?", path);
    assert_string_equal(err, want);
    write_file(path, big, big_n - 1);
    load_ok(&c, path);
    remove(path);
    free(big);

    /* A NUL byte. */
    snprintf(path, sizeof path, "%s/nul.cfg", dir);
    write_file(path, "mxu_n = 8\0\n", 11);
    assert_int_equal(tpu_config_load(&c, path, err, sizeof err), -1);
    snprintf(want, sizeof want, "%s: error: contains a NUL byte; not a config file?", path);
    assert_string_equal(err, want);

    /* Unknown preset names list the presets. */
    assert_int_equal(tpu_config_load(&c, "v7x", err, sizeof err), -1);
    assert_string_equal(err, "config: error: unknown preset 'v7x' (presets: tiny, mid, v5e, tpuv1, v4p, v5p, v6e); "
                             "a file name needs a '/' or a .cfg ending");
    assert_int_equal(tpu_config_load(&c, "", err, sizeof err), -1);
    assert_string_equal(err, "config: error: empty config name");

    static const char *const names[] = { "big.cfg", "plain", "bad.cfg", "odd.cfg", "nul.cfg" };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        assert_int_equal(remove(path), 0);
    }
    assert_int_equal(rmdir(dir), 0);
}

/* ---- print / parse ------------------------------------------------------------ */

static void test_print_parse_round_trip(void **state)
{
    (void)state;
    tpu_config c, back;
    char err[ERRLEN], text[4096];
    tpu_config_defaults(&c);
    c.clock_hz = 1234567891.2345678;
    c.hbm_bw = 0.1 + 1e6;
    c.ici_bw = 1e15;
    c.hbm_bytes = 1ull << 40;
    c.vmem_bytes = (1ull << 32);
    c.hbm_latency = 0;
    snprintf(c.name, sizeof c.name, "x.y-z+1_");
    tpu_config_print(&c, text, sizeof text);
    assert_non_null(strstr(text, "name = x.y-z+1_\n"));
    assert_non_null(strstr(text, "clock_hz = 1234567891.2345679\n"));
    assert_non_null(strstr(text, "ici_bw = 1e15\n"));
    assert_non_null(strstr(text, "hbm_bytes = 1099511627776\n"));
    tpu_config_defaults(&back);
    assert_int_equal(tpu_config_parse(&back, text, "printed", err, sizeof err), 0);
    assert_memory_equal(&c, &back, sizeof c);

    /* The defaults print as one line per key, in config.def order. */
    tpu_config_defaults(&c);
    tpu_config_print(&c, text, sizeof text);
    assert_string_equal(text,
        "name = custom\nclock_hz = 1e9\nmxu_n = 8\nnum_mxu = 1\nmxu_int8 = 1\nmxu_wloads = 1\n"
        "vpu_sublanes = 8\n"
        "vpu_lanes = 8\nvpu_latency = 2\nimem_words = 4096\nvmem_bytes = 262144\n"
        "vmem_bw = 512\nhbm_bytes = 16777216\nhbm_bw = 1.6e10\nhbm_latency = 20\n"
        "dma_engines = 2\nici_bw = 4e9\nici_latency = 10\nseq_queue_depth = 4\n"
        "e_mac_bf16_pj = 2\ne_mac_int8_pj = 0.3\ne_vpu_pj = 2.3\ne_vmem_read_pj = 2.5\n"
        "e_vmem_write_pj = 2.5\ne_hbm_pj = 31.2\ne_ici_pj = 4e1\ne_idle_pj = 1e3\n");
    /* A short buffer is truncated, still terminated. */
    char small[20];
    tpu_config_print(&c, small, sizeof small);
    assert_string_equal(small, "name = custom\nclock");
}

/* ---- bytes per cycle --------------------------------------------------------- */

static void test_bytes_per_cycle(void **state)
{
    (void)state;
    static const struct { double bytes, clock; uint64_t num, den; } cases[] = {
        { 8.2e11, 1.5e9, 1640, 3 },                   /* exact, reduced by gcd */
        { 4.5e10, 1.5e9, 30, 1 },
        { 16e9, 1e9, 16, 1 },
        { 1e6, 1e11, 1, 100000 },
        { 1e15, 1e6, 1000000000, 1 },
        { 7e9, 3e9, 7, 3 },
        { 1000000007, 1e9, 1000000007, 1000000000 },  /* exact even with a big den */
        /* Inexact inputs: the closest fraction with den <= 10^6
         * (expected values from Python's Fraction.limit_denominator). */
        { 3141592653.589793, 1e9, 3126535, 995207 },
        { 1e9 / 3, 1e9, 1, 3 },
        { 8.2e11, 1.5e9 + 0.25, 1640, 3 },
        { 1000000000.5, 1e9, 1, 1 },
        { 2.5e9 + 0.5, 1e9, 5, 2 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint64_t num = 0, den = 0;
        tpu_config_bytes_per_cycle(cases[i].bytes, cases[i].clock, &num, &den);
        if (num != cases[i].num || den != cases[i].den)
            fail_msg("case %zu: %.17g / %.17g = %llu/%llu, want %llu/%llu", i,
                     cases[i].bytes, cases[i].clock, (unsigned long long)num,
                     (unsigned long long)den, (unsigned long long)cases[i].num,
                     (unsigned long long)cases[i].den);
    }
    /* Nonsense rates give 0/1 rather than a division by zero. */
    uint64_t num, den;
    tpu_config_bytes_per_cycle(1e9, 0, &num, &den);
    assert_int_equal(num, 0);
    assert_int_equal(den, 1);
}

/* ---- docs/config.md lists every key as config.def has it ------------------ */

/* The cells of a markdown table row "| a | b | c |", trimmed. */
static int split_row(char *line, char **cells, int max)
{
    int n = 0;
    char *p = strchr(line, '|');
    while (p && n < max) {
        char *next = strchr(p + 1, '|');
        if (!next)
            break;
        *next = 0;
        char *s = p + 1, *e = next;
        while (*s == ' ') s++;
        while (e > s && e[-1] == ' ') e--;
        *e = 0;
        cells[n++] = s;
        p = next;
    }
    return n;
}

/* The value of `key` as tpu_config_print writes it, for the config c. */
static void printed_value(const tpu_config *c, const char *key, char *out, size_t len)
{
    char text[4096], pat[64];
    tpu_config_print(c, text, sizeof text);
    snprintf(pat, sizeof pat, "\n%s = ", key);
    const char *p = strncmp(text, pat + 1, strlen(pat + 1)) == 0 ? text : strstr(text, pat);
    assert_non_null(p);
    p = strchr(p + 1, '=') + 2;
    size_t n = strcspn(p, "\n");
    snprintf(out, len, "%.*s", (int)n, p);
}

static void test_docs_match_config_def(void **state)
{
    (void)state;
    FILE *f = fopen("docs/config.md", "r");
    if (!f)
        fail_msg("docs/config.md not found: run the test from the repository root");
    static const struct { const char *name, *type, *doc; } defs[] = {
#define KEY(n, type, def, lo, hi, doc) { #n, #type, doc },
#include "../cmodel/config.def"
#undef KEY
    };
    size_t ndefs = sizeof defs / sizeof defs[0];
    int found[sizeof defs / sizeof defs[0]] = { 0 };
    char line[1024];
    tpu_config def;
    tpu_config_defaults(&def);
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "| `", 3) != 0)
            continue;
        char *cells[8];
        int n = split_row(line, cells, 8);
        if (n < 5 || strlen(cells[0]) < 3)
            continue;
        char key[64];
        snprintf(key, sizeof key, "%.*s", (int)strlen(cells[0]) - 2, cells[0] + 1);
        size_t i;
        for (i = 0; i < ndefs; i++)
            if (strcmp(defs[i].name, key) == 0)
                break;
        if (i == ndefs)
            continue;                       /* a row of another table */
        found[i]++;
        /* | `key` | TYPE | default | range | meaning... | */
        char want[300], lo[140], hi[140];
        if (strcmp(cells[1], defs[i].type) != 0)
            fail_msg("docs/config.md: %s: type '%s', config.def says %s", key, cells[1], defs[i].type);
        printed_value(&def, key, want, sizeof want);
        snprintf(lo, sizeof lo, "`%.130s`", want);
        if (strcmp(cells[2], lo) != 0)
            fail_msg("docs/config.md: %s: default %s, config.def says %s", key, cells[2], lo);
        if (strcmp(defs[i].type, "STR") == 0) {
            snprintf(want, sizeof want, "1 to 31 characters");
        } else {
            /* Print lo and hi through tpu_config_print by putting them in a config. */
            tpu_config t = def;
#define SET_U64(n, v) t.n = (uint64_t)(v);
#define SET_F64(n, v) t.n = (double)(v);
#define SET_STR(n, v) (void)(v);
#define KEY(n, type, dflt, l, h, doc) if (strcmp(key, #n) == 0) { SET_##type(n, l) }
#include "../cmodel/config.def"
#undef KEY
            printed_value(&t, key, lo, sizeof lo);
#define KEY(n, type, dflt, l, h, doc) if (strcmp(key, #n) == 0) { SET_##type(n, h) }
#include "../cmodel/config.def"
#undef KEY
            printed_value(&t, key, hi, sizeof hi);
            snprintf(want, sizeof want, "%.130s .. %.130s", lo, hi);
        }
        if (strcmp(cells[3], want) != 0)
            fail_msg("docs/config.md: %s: range '%s', config.def says '%s'", key, cells[3], want);
        if (strncmp(cells[4], defs[i].doc, strlen(defs[i].doc)) != 0)
            fail_msg("docs/config.md: %s: meaning '%s' does not start with config.def's '%s'",
                     key, cells[4], defs[i].doc);
    }
    fclose(f);
    for (size_t i = 0; i < ndefs; i++)
        if (found[i] != 1)
            fail_msg("docs/config.md: key %s appears %d times in the key table", defs[i].name, found[i]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults_are_config_def),
        cmocka_unit_test(test_preset_tiny),
        cmocka_unit_test(test_preset_mid),
        cmocka_unit_test(test_preset_v5e),
        cmocka_unit_test(test_book_presets),
        cmocka_unit_test(test_shape_picks_v5e),
        cmocka_unit_test(test_every_preset),
        cmocka_unit_test(test_presets_energy_sources),
        cmocka_unit_test(test_u64_forms),
        cmocka_unit_test(test_f64_and_str_values),
        cmocka_unit_test(test_comments_blank_lines_crlf),
        cmocka_unit_test(test_error_messages),
        cmocka_unit_test(test_error_leaves_config_unchanged),
        cmocka_unit_test(test_set_overrides),
        cmocka_unit_test(test_validate_rules),
        cmocka_unit_test(test_any_mxu_n),
        cmocka_unit_test(test_load_files),
        cmocka_unit_test(test_print_parse_round_trip),
        cmocka_unit_test(test_bytes_per_cycle),
        cmocka_unit_test(test_docs_match_config_def),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
