/*
 * test_parallel.c - several cores on several host threads give the
 * plain cycle loop bit for bit (cmodel/parallel.c): the cycle count, the
 * stop, the error text, every core's counters and every byte of every
 * core's VMEM and of the HBM it touched, for windows on 1, 2, 3 and 8
 * threads; on runs that
 * halt (collectives on a ring and a torus, the two-chip matmul), that
 * deadlock, that fail at run time, and that hit the cycle limit.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "asm.h"
#include "config.h"
#include "objfile.h"
#include "run.h"
#include "tpu.h"

#define HBM_CHECKED (256u << 10)

typedef struct outcome {
    enum tpu_stop stop;
    uint64_t cycles;
    char error[600];
    unsigned ncores;
    tpu_stats st[16];
    uint8_t *vmem[16], *hbm[16];
    uint64_t vmem_bytes;
} outcome;

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    char *buf = malloc((size_t)n + 1);
    assert_non_null(buf);
    assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    *len = (size_t)n;
    return buf;
}

/* Assemble programs/NAME (or the source text) for tiny with -D's. */
static void assemble(const char *file, const char *text, const char *const *defs, size_t ndefs,
                     tpu_config *cfg, tpu_object *obj)
{
    char err[256];
    tpu_config_defaults(cfg);
    assert_int_equal(tpu_config_load(cfg, "tiny", err, sizeof err), 0);
    tpu_asm_define d[8];
    for (size_t i = 0; i < ndefs; i++)
        assert_int_equal(tpu_asm_parse_define(defs[i], &d[i], err, sizeof err), 0);
    size_t len = 0;
    char *src = text ? NULL : slurp(file, &len);
    tpu_asm_options ao = { .config = cfg, .defines = d, .ndefines = ndefs, .allow_include = 1 };
    tpu_asm_result ar;
    int rc = tpu_asm_assemble(text ? text : src, text ? strlen(text) : len, file, &ao, obj, &ar);
    if (rc)
        print_error("%s", ar.messages);
    assert_int_equal(rc, 0);
    tpu_asm_result_free(&ar);
    free(src);
}

static void run(const tpu_config *cfg, const tpu_object *obj, const tpu_system_opts *so,
                unsigned threads, uint64_t max_cycles, outcome *o)
{
    char err[512];
    memset(o, 0, sizeof *o);
    tpu_system *s = tpu_system_create(cfg, so, err, sizeof err);
    assert_non_null(s);
    tpu_system_set_threads(s, threads);
    assert_int_equal(tpu_system_load(s, obj, err, sizeof err), 0);
    /* in slices, as the tools run it (sim/run.h) */
    tpu_run_limits l = { .max_cycles = max_cycles, .slice = 700 };
    enum tpu_stop stop = tpu_run_slices(s, &l);
    o->stop = stop;
    o->cycles = tpu_system_cycle(s);
    /* the plain loop runs no window; threads do (a run that fails may stop
     * in its first window, then starts again on the plain loop) */
    if (threads == 0)
        assert_int_equal(tpu_system_windows(s), 0);
    else
        assert_true(tpu_system_windows(s) > 0);
    snprintf(o->error, sizeof o->error, "%s", tpu_system_error(s) ? tpu_system_error(s) : "");
    o->ncores = tpu_system_ncores(s);
    o->vmem_bytes = cfg->vmem_bytes;
    assert_true(o->ncores <= 16);
    for (unsigned c = 0; c < o->ncores; c++) {
        tpu_core *core = tpu_system_core(s, c);
        tpu_core_stats(core, &o->st[c]);
        o->vmem[c] = malloc(o->vmem_bytes);
        o->hbm[c] = malloc(HBM_CHECKED);
        assert_non_null(o->vmem[c]);
        assert_non_null(o->hbm[c]);
        assert_int_equal(tpu_mem_read(core, TPU_SPACE_VMEM, 0, o->vmem[c], o->vmem_bytes), 0);
        assert_int_equal(tpu_mem_read(core, TPU_SPACE_HBM, 0, o->hbm[c], HBM_CHECKED), 0);
    }
    tpu_system_destroy(s);
}

static void free_outcome(outcome *o)
{
    for (unsigned c = 0; c < o->ncores; c++) {
        free(o->vmem[c]);
        free(o->hbm[c]);
    }
}

static void same(const outcome *a, const outcome *b, unsigned threads)
{
    if (a->stop != b->stop || a->cycles != b->cycles || strcmp(a->error, b->error))
        print_error("%u threads: stop %d at %llu '%s', the plain loop: stop %d at %llu '%s'\n",
                    threads, (int)b->stop, (unsigned long long)b->cycles, b->error, (int)a->stop,
                    (unsigned long long)a->cycles, a->error);
    assert_int_equal(a->stop, b->stop);
    assert_int_equal(a->cycles, b->cycles);
    assert_string_equal(a->error, b->error);
    assert_int_equal(a->ncores, b->ncores);
    for (unsigned c = 0; c < a->ncores; c++) {
        if (memcmp(&a->st[c], &b->st[c], sizeof a->st[c]))
            print_error("%u threads: core %u's counters differ\n", threads, c);
        assert_memory_equal(&a->st[c], &b->st[c], sizeof a->st[c]);
        assert_memory_equal(a->vmem[c], b->vmem[c], a->vmem_bytes);
        assert_memory_equal(a->hbm[c], b->hbm[c], HBM_CHECKED);
    }
}

/* The plain loop (threads 0), then windows on 1, 2, 3 and 8 threads: all
 * the same. */
static void check_threads(const tpu_config *cfg, const tpu_object *obj, const tpu_system_opts *so,
                          uint64_t max_cycles, enum tpu_stop want)
{
    outcome one, many;
    run(cfg, obj, so, 0, max_cycles, &one);
    assert_int_equal(one.stop, want);
    static const unsigned counts[] = { 1, 2, 3, 8 };
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) {
        run(cfg, obj, so, counts[i], max_cycles, &many);
        same(&one, &many, counts[i]);
        free_outcome(&many);
    }
    free_outcome(&one);
}

static void test_collectives_on_a_ring(void **state)
{
    (void)state;
    static const char *const defs[] = { "K=5", "CHUNK=2048", "LIB_PIECE=256" };
    tpu_config cfg;
    tpu_object obj;
    assemble("programs/allreduce.s", NULL, defs, 3, &cfg, &obj);
    tpu_system_opts so = { .cores = 5, .topology = TPU_TOPO_RING };
    check_threads(&cfg, &obj, &so, 1000000, TPU_STOP_HALT);
    tpu_obj_free(&obj);
}

static void test_collectives_on_a_torus(void **state)
{
    (void)state;
    static const char *const defs[] = { "R=2", "C=3" };
    tpu_config cfg;
    tpu_object obj;
    assemble("programs/allreduce.s", NULL, defs, 2, &cfg, &obj);
    tpu_system_opts so = { .cores = 6, .topology = TPU_TOPO_TORUS2D, .rows = 2, .cols = 3 };
    check_threads(&cfg, &obj, &so, 1000000, TPU_STOP_HALT);
    tpu_obj_free(&obj);
    /* a latency of one cycle: windows of one cycle */
    static const char *const defs2[] = { "K=3" };
    assemble("programs/allgather.s", NULL, defs2, 1, &cfg, &obj);
    cfg.ici_latency = 1;
    tpu_system_opts ring = { .cores = 3, .topology = TPU_TOPO_RING };
    check_threads(&cfg, &obj, &ring, 1000000, TPU_STOP_HALT);
    tpu_obj_free(&obj);
}

static void test_two_chip_matmul(void **state)
{
    (void)state;
    static const char *const defs[] = { "B=16", "F=64", "D=32" };
    tpu_config cfg;
    tpu_object obj;
    assemble("programs/matmul_2chip.s", NULL, defs, 3, &cfg, &obj);
    tpu_system_opts so = { .cores = 2, .topology = TPU_TOPO_RING };
    check_threads(&cfg, &obj, &so, 1000000, TPU_STOP_HALT);
    /* stopped by the cycle limit in the middle of the work */
    check_threads(&cfg, &obj, &so, 333, TPU_STOP_CYCLE_LIMIT);
    tpu_obj_free(&obj);
}

/* Each core waits for its neighbour before sending: a deadlock, found in
 * the same cycle with the same words whatever the threads. */
static void test_deadlock(void **state)
{
    (void)state;
    static const char *const src =
        "        li      s1, 64\n"
        "        li      s2, 300\n"
        "spin:   addi    s2, s2, -1\n"         /* core-dependent work first */
        "        bne     s2, cid, spin\n"
        "        sem.wait 1, 1\n"
        "        dma.ici 0, zero, zero, s1, 2, 1\n"
        "        halt\n";
    tpu_config cfg;
    tpu_object obj;
    assemble("deadlock.s", src, NULL, 0, &cfg, &obj);
    tpu_system_opts so = { .cores = 4, .topology = TPU_TOPO_RING };
    check_threads(&cfg, &obj, &so, 1000000, TPU_STOP_ERROR);
    tpu_obj_free(&obj);
}

/* Core 2 sends on a port the mesh lacks after the others have started
 * talking: a run-time error in the middle of a window. */
static void test_runtime_error(void **state)
{
    (void)state;
    static const char *const defs[] = { "R=2", "C=4" };
    tpu_config cfg;
    tpu_object obj;
    assemble("programs/allgather.s", NULL, defs, 2, &cfg, &obj);
    tpu_system_opts so = { .cores = 8, .topology = TPU_TOPO_MESH2D, .rows = 2, .cols = 4 };
    check_threads(&cfg, &obj, &so, 1000000, TPU_STOP_ERROR);
    tpu_obj_free(&obj);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_collectives_on_a_ring),
        cmocka_unit_test(test_collectives_on_a_torus),
        cmocka_unit_test(test_two_chip_matmul),
        cmocka_unit_test(test_deadlock),
        cmocka_unit_test(test_runtime_error),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
