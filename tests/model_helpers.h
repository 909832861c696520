/*
 * model_helpers.h - small helpers for the C model's tests (test_timing_*.c,
 * test_model.c): build a program with tpu_encode and the tpu_object
 * builders (no assembler), run it, and record the events that carry cycle
 * numbers (issue of each pc, semaphore changes, MXU rows, DMA ends, ...).
 * Everything is static: each test binary includes this once.
 */
#ifndef TPU_MODEL_HELPERS_H
#define TPU_MODEL_HELPERS_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "fp.h"
#include "isa.h"
#include "objfile.h"
#include "tpu.h"

#define MAX_EVENTS 200000

typedef struct recorded {
    enum tpu_event_kind kind;
    uint64_t cycle, pc, addr, len;
    unsigned core, unit;
    uint32_t index, value;
} recorded;

typedef struct harness {
    tpu_config cfg;
    tpu_object obj;
    tpu_system *sys;
    tpu_system_opts opts;
    recorded *ev;
    size_t nev;
    uint32_t mask;          /* events to record */
    enum tpu_stop stop;
} harness;

__attribute__((unused)) static void record_event(void *ctx, const tpu_event *e)
{
    harness *h = ctx;
    if (h->nev == MAX_EVENTS)
        return;
    recorded *r = &h->ev[h->nev++];
    r->kind = e->kind;
    r->cycle = e->cycle;
    r->pc = e->pc;
    r->addr = e->addr;
    r->len = e->len;
    r->core = e->core;
    r->unit = e->unit;
    r->index = e->index;
    r->value = e->value;
}

/* The numbers the tests assume for `tiny`, pinned so that a change of the
 * preset does not silently change what a test checks. */
static const char *const tiny_pins[] = {
    "clock_hz=1e9", "mxu_n=8", "num_mxu=1", "mxu_wloads=1", "vpu_sublanes=8", "vpu_lanes=8",
    "vpu_latency=2", "imem_words=4096", "vmem_bytes=256Ki", "vmem_bw=512", "hbm_bytes=16Mi", "hbm_bw=16e9",
    "hbm_latency=20", "dma_engines=2", "ici_bw=4e9", "ici_latency=10", "seq_queue_depth=4",
    "mxu_int8=1",
};

/* A harness on a preset, with `key=value` overrides (NULL-terminated). */
__attribute__((unused)) static harness *h_new(const char *preset, ...)
{
    harness *h = calloc(1, sizeof *h);
    assert_non_null(h);
    char err[256];
    tpu_config_defaults(&h->cfg);
    assert_int_equal(tpu_config_load(&h->cfg, preset, err, sizeof err), 0);
    if (strcmp(preset, "tiny") == 0)
        for (size_t i = 0; i < sizeof tiny_pins / sizeof tiny_pins[0]; i++)
            assert_int_equal(tpu_config_set(&h->cfg, tiny_pins[i], err, sizeof err), 0);
    va_list ap;
    va_start(ap, preset);
    for (const char *kv; (kv = va_arg(ap, const char *)) != NULL;) {
        if (tpu_config_set(&h->cfg, kv, err, sizeof err) != 0)
            fail_msg("config %s: %s", kv, err);
    }
    va_end(ap);
    tpu_obj_init(&h->obj);
    h->ev = calloc(MAX_EVENTS, sizeof *h->ev);
    assert_non_null(h->ev);
    h->mask = (1u << TPU_EV_ISSUE) | (1u << TPU_EV_SEM) | (1u << TPU_EV_MXU_ROW_OUT)
            | (1u << TPU_EV_DMA_DONE) | (1u << TPU_EV_MXU_TILE_START) | (1u << TPU_EV_HALT)
            | (1u << TPU_EV_ICI_SEND) | (1u << TPU_EV_ICI_RECV) | (1u << TPU_EV_RETIRE);
    h->opts.cores = 1;
    return h;
}

__attribute__((unused)) static void h_free(harness *h)
{
    tpu_system_destroy(h->sys);
    tpu_obj_free(&h->obj);
    free(h->ev);
    free(h);
}

/* Append one instruction; returns its pc. */
__attribute__((unused)) static uint64_t h_insn(harness *h, const char *mn, const int64_t *ops, unsigned nops)
{
    const tpu_insn_desc *d = tpu_isa_by_mnemonic(mn, strlen(mn));
    if (!d)
        fail_msg("no instruction %s", mn);
    if (d->noperands != nops)
        fail_msg("%s takes %u operands, got %u", mn, d->noperands, nops);
    uint64_t w;
    int bad = -1;
    if (tpu_encode(d, ops, &w, &bad) != 0)
        fail_msg("%s: operand %d out of range", mn, bad);
    assert_int_equal(tpu_obj_add_text(&h->obj, w), 0);
    return h->obj.ntext - 1;
}

#define OPS(...) ((const int64_t[]){ __VA_ARGS__ })
#define NOPS(...) (unsigned)(sizeof(OPS(__VA_ARGS__)) / sizeof(int64_t))
#define I(h, mn, ...) h_insn((h), (mn), OPS(__VA_ARGS__), NOPS(__VA_ARGS__))
#define I0(h, mn) h_insn((h), (mn), NULL, 0)
#define PC(h) ((uint64_t)(h)->obj.ntext)

__attribute__((unused)) static void h_data(harness *h, uint8_t space, uint64_t addr, const void *p, uint64_t n)
{
    assert_int_equal(tpu_obj_add_data(&h->obj, space, addr, p, n), 0);
}

/* Create the system and load the program (once). */
__attribute__((unused)) static void h_build(harness *h)
{
    if (h->sys)
        return;
    char err[256];
    h->sys = tpu_system_create(&h->cfg, &h->opts, err, sizeof err);
    if (!h->sys)
        fail_msg("create: %s", err);
    if (tpu_system_load(h->sys, &h->obj, err, sizeof err) != 0)
        fail_msg("load: %s", err);
    assert_int_equal(tpu_system_subscribe(h->sys, h->mask, record_event, h), 0);
}

__attribute__((unused)) static enum tpu_stop h_run(harness *h, uint64_t max_cycles)
{
    h_build(h);
    h->stop = tpu_system_run(h->sys, max_cycles);
    return h->stop;
}

/* Run and insist on a clean halt. */
__attribute__((unused)) static void h_run_ok(harness *h)
{
    if (h_run(h, 2000000) != TPU_STOP_HALT)
        fail_msg("run stopped with %d: %s", (int)h->stop, tpu_system_error(h->sys));
}

__attribute__((unused)) static tpu_core *h_core(harness *h, unsigned i) { return tpu_system_core(h->sys, i); }

/* The cycle of the n-th (0-based) event of this kind matching pc (or any pc
 * when pc == ANY) on core `core`; fails the test when there is none. */
#define ANY UINT64_MAX
__attribute__((unused)) static const recorded *h_find(harness *h, enum tpu_event_kind k, unsigned core, uint64_t pc,
                              unsigned nth)
{
    for (size_t i = 0; i < h->nev; i++) {
        const recorded *r = &h->ev[i];
        if (r->kind == k && r->core == core && (pc == ANY || r->pc == pc) && nth-- == 0)
            return r;
    }
    fail_msg("no event %d #%u for pc %lld on core %u", (int)k, nth, (long long)pc, core);
    return NULL;
}

__attribute__((unused)) static uint64_t issue_cycle(harness *h, uint64_t pc) { return h_find(h, TPU_EV_ISSUE, 0, pc, 0)->cycle; }

/* Cycle of the n-th change of semaphore `sem` on core `core`. */
__attribute__((unused)) static uint64_t sem_cycle(harness *h, unsigned core, unsigned sem, unsigned nth)
{
    for (size_t i = 0; i < h->nev; i++) {
        const recorded *r = &h->ev[i];
        if (r->kind == TPU_EV_SEM && r->core == core && r->index == sem && nth-- == 0)
            return r->cycle;
    }
    fail_msg("semaphore %u changed fewer times than expected", sem);
    return 0;
}

__attribute__((unused)) static size_t count_events(harness *h, enum tpu_event_kind k)
{
    size_t n = 0;
    for (size_t i = 0; i < h->nev; i++)
        n += h->ev[i].kind == k;
    return n;
}

__attribute__((unused)) static uint64_t ceil_div(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

/* Memory helpers on core 0. */
__attribute__((unused)) static void h_poke(harness *h, uint8_t space, uint64_t addr, const void *p, size_t n)
{
    h_build(h);
    assert_int_equal(tpu_mem_write(h_core(h, 0), space, addr, p, n), 0);
}
__attribute__((unused)) static void h_peek(harness *h, unsigned core, uint8_t space, uint64_t addr, void *p, size_t n)
{
    assert_int_equal(tpu_mem_read(h_core(h, core), space, addr, p, n), 0);
}

/* Expect the run to stop with an error whose text contains `what`. */
__attribute__((unused)) static void h_expect_error(harness *h, const char *what)
{
    enum tpu_stop st = h_run(h, 100000);
    const char *msg = tpu_system_error(h->sys);
    if (st != TPU_STOP_ERROR || !strstr(msg, what))
        fail_msg("expected an error containing \"%s\", got stop %d: \"%s\"", what, (int)st, msg);
}

#endif /* TPU_MODEL_HELPERS_H */
