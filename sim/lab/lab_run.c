/*
 * lab_run.c - run a submission the way the grader trusts (lab.h):
 * assembled in-process for the lab's machine with the lab's -D constants,
 * the lab's arrays found by their labels and their loaded bytes compared
 * with the lab's data (inputs) or zeros (outputs), the program's own
 * .expect records replaced by the grader's check, a cycle limit, Ctrl-C
 * polled between slices of cycles.
 */
#include "lab.h"

#include <stdlib.h>
#include <string.h>

#include "asm.h"
#include "expect.h"
#include "fp.h"
#include "interrupt.h"
#include "objfile.h"

#define LAB_SLICE 4096
#define LAB_MAX_DEFINES 16

const char *lab_run_why(const lab_run *r, char *buf, size_t len)
{
    const char *what = "";
    switch (r->status) {
    case LAB_RUN_OK: what = "ran bit-exact"; break;
    case LAB_RUN_ASM: what = "does not assemble"; break;
    case LAB_RUN_DATA: what = "the lab's data changed"; break;
    case LAB_RUN_ERROR: what = "stopped with a run-time error"; break;
    case LAB_RUN_LIMIT: what = "did not halt within the cycle limit"; break;
    case LAB_RUN_WRONG: what = "wrong result"; break;
    case LAB_RUN_INTERRUPTED: what = "interrupted"; break;
    }
    snprintf(buf, len, "%s: %s", what, r->msg);
    return buf;
}

static const tpu_obj_symbol *find_sym(const tpu_object *obj, const char *name)
{
    for (size_t i = 0; i < obj->nsyms; i++)
        if ((obj->syms[i].space == TPU_SPACE_HBM || obj->syms[i].space == TPU_SPACE_VMEM)
            && !strcmp(obj->syms[i].name, name))
            return &obj->syms[i];
    return NULL;
}

static const char *space_name(enum tpu_space s)
{
    return s == TPU_SPACE_HBM ? "hbm" : s == TPU_SPACE_VMEM ? "vmem" : "imem";
}

/* Compare the bytes the object loads at each array with the lab's.
 * Returns 0, or -1 with r->msg. */
static int check_arrays(lab_run *r, const tpu_object *obj)
{
    enum { BLK = 65536 };
    uint8_t *want = malloc(BLK), *got = malloc(BLK);
    int rc = 0;
    if (!want || !got) {
        snprintf(r->msg, sizeof r->msg, "out of memory");
        rc = -1;
    }
    for (unsigned i = 0; !rc && i < r->narrays; i++) {
        lab_array *a = &r->arrays[i];
        const tpu_obj_symbol *s = find_sym(obj, a->sym);
        if (!s) {
            snprintf(r->msg, sizeof r->msg,
                     "no data label '%s': keep the starter's label and data directive for %s",
                     a->sym, a->sym);
            rc = -1;
            break;
        }
        a->addr = s->value;
        a->space = (enum tpu_space)s->space;
        unsigned el = a->kind == LAB_IN_BF16 ? 2 : 4;
        uint64_t size = a->count * el;
        tpu_obj_chunk c = { .rec = TPU_REC_FILL, .space = s->space, .addr = s->value,
                            .size = size, .seed = a->seed,
                            .fill = a->kind == LAB_IN_BF16 ? TPU_FILL_RANDOM_BF16
                                    : a->kind == LAB_IN_F32 ? TPU_FILL_RANDOM_F32 : TPU_FILL_ZERO,
                            .lo_bits = tpu_f32_from_float((float)a->lo),
                            .hi_bits = tpu_f32_from_float((float)a->hi) };
        for (uint64_t off = 0; off < size && !rc; off += BLK) {
            size_t n = size - off < BLK ? (size_t)(size - off) : BLK;
            if (a->kind == LAB_OUT_F32)
                memset(want, 0, n);
            else
                tpu_obj_chunk_read(&c, off, want, n);
            tpu_expect_initial_read(obj, a->space, a->addr + off, got, n);
            if (memcmp(want, got, n)) {
                size_t k = 0;
                while (want[k] == got[k])
                    k++;
                if (a->kind == LAB_OUT_F32)
                    snprintf(r->msg, sizeof r->msg,
                             "%s (%s 0x%llx) must start as zeros (.zero), but byte %llu is 0x%02x: "
                             "the result must be computed, not loaded",
                             a->sym, space_name(a->space), (unsigned long long)a->addr,
                             (unsigned long long)(off + k), got[k]);
                else
                    snprintf(r->msg, sizeof r->msg,
                             "the data at %s (%s 0x%llx) is not the lab's (byte %llu differs): "
                             "keep the starter's '.random' line for %s (%llu elements, seed %llu)",
                             a->sym, space_name(a->space), (unsigned long long)a->addr,
                             (unsigned long long)(off + k), a->sym, (unsigned long long)a->count,
                             (unsigned long long)a->seed);
                rc = -1;
            }
        }
    }
    free(want);
    free(got);
    return rc;
}

/* The grader's own .expect for a matmul, over the arrays X, W, Y. */
static int set_matmul_expect(lab_run *r, tpu_object *obj)
{
    tpu_obj_expect e;
    memset(&e, 0, sizeof e);
    e.op = TPU_EXPECT_MATMUL;
    e.core = -1;
    e.nops = 6;
    const lab_array *y = &r->arrays[2], *x = &r->arrays[0], *w = &r->arrays[1];
    e.ops[0] = (tpu_obj_expect_operand){ (uint8_t)y->space, y->addr };
    e.ops[1] = (tpu_obj_expect_operand){ (uint8_t)x->space, x->addr };
    e.ops[2] = (tpu_obj_expect_operand){ (uint8_t)w->space, w->addr };
    e.ops[3] = (tpu_obj_expect_operand){ TPU_SPACE_NONE, r->check->b };
    e.ops[4] = (tpu_obj_expect_operand){ TPU_SPACE_NONE, r->check->d };
    e.ops[5] = (tpu_obj_expect_operand){ TPU_SPACE_NONE, r->check->f };
    obj->nexpects = 0;
    return tpu_obj_add_expect(obj, &e);
}

/* out[i] = fn(in0[i], in1[i]) over the arrays, bit for bit. */
static void check_elem(lab_run *r, const tpu_object *obj, tpu_system *s)
{
    const lab_array *out = &r->arrays[r->narrays - 1];
    const lab_array *in0 = &r->arrays[0], *in1 = r->narrays > 2 ? &r->arrays[1] : NULL;
    tpu_core *c = tpu_system_core(s, 0);
    for (uint64_t i = 0; i < out->count; i++) {
        uint32_t x, y = 0, z;
        tpu_expect_initial_read(obj, in0->space, in0->addr + 4 * i, (uint8_t *)&x, 4);
        if (in1)
            tpu_expect_initial_read(obj, in1->space, in1->addr + 4 * i, (uint8_t *)&y, 4);
        if (tpu_mem_read(c, out->space, out->addr + 4 * i, &z, 4)) {
            snprintf(r->msg, sizeof r->msg, "%s is outside memory", out->sym);
            r->status = LAB_RUN_WRONG;
            return;
        }
        uint32_t want = r->check->fn(x, y);
        if (z != want) {
            snprintf(r->msg, sizeof r->msg,
                     "%s[%llu] (%s 0x%llx) is 0x%08x (%g), expected 0x%08x (%g)", out->sym,
                     (unsigned long long)i, space_name(out->space),
                     (unsigned long long)(out->addr + 4 * i), z, tpu_f32_to_float(z), want,
                     tpu_f32_to_float(want));
            r->status = LAB_RUN_WRONG;
            return;
        }
    }
}

enum lab_run_status lab_run_program(lab_grade *g, lab_run *r)
{
    r->msg[0] = 0;
    r->cycles = 0;
    memset(&r->stats, 0, sizeof r->stats);
    const char *src = r->src ? r->src : g->text;
    size_t len = r->src ? r->src_len : g->len;
    const char *name = r->name ? r->name : g->path;

    tpu_asm_define defs[LAB_MAX_DEFINES];
    char err[512];
    if (r->ndefines > LAB_MAX_DEFINES) {
        lab_internal(g, "too many -D constants");
        return r->status = LAB_RUN_ASM;
    }
    for (unsigned i = 0; i < r->ndefines; i++)
        if (tpu_asm_parse_define(r->defines[i], &defs[i], err, sizeof err)) {
            lab_internal(g, "-D %s: %s", r->defines[i], err);
            return r->status = LAB_RUN_ASM;
        }
    tpu_asm_options ao = { .config = r->cfg, .defines = defs, .ndefines = r->ndefines,
                           .allow_include = 1 };
    tpu_object obj;
    tpu_asm_result ar;
    if (tpu_asm_assemble(src, len, name, &ao, &obj, &ar)) {
        const char *m = ar.messages && ar.messages[0] ? ar.messages : "assembly failed";
        size_t n = strcspn(m, "\n");
        snprintf(r->msg, sizeof r->msg, "%.*s%s", (int)(n < 400 ? n : 400), m,
                 ar.nerrors > 1 ? " (and more: run tpu-as on it)" : "");
        tpu_asm_result_free(&ar);
        return r->status = LAB_RUN_ASM;
    }
    tpu_asm_result_free(&ar);

    r->status = LAB_RUN_OK;
    if (r->narrays && check_arrays(r, &obj)) {
        tpu_obj_free(&obj);
        return r->status = LAB_RUN_DATA;
    }
    if (r->check && r->check->how == LAB_REF_MATMUL && set_matmul_expect(r, &obj)) {
        tpu_obj_free(&obj);
        snprintf(r->msg, sizeof r->msg, "out of memory");
        return r->status = LAB_RUN_ERROR;
    }
    if (r->check && r->check->how == LAB_REF_ELEM)
        obj.nexpects = 0;

    tpu_system_opts so = { .cores = 1, .topology = TPU_TOPO_SINGLE };
    tpu_system *s = tpu_system_create(r->cfg, &so, err, sizeof err);
    if (!s) {
        lab_internal(g, "the lab's machine: %s", err);
        tpu_obj_free(&obj);
        return r->status = LAB_RUN_ERROR;
    }
    if (tpu_system_load(s, &obj, err, sizeof err)) {
        snprintf(r->msg, sizeof r->msg, "%s", err);
        r->status = LAB_RUN_ERROR;
    } else {
        enum tpu_stop stop;
        for (;;) {
            uint64_t lim = tpu_system_cycle(s) + LAB_SLICE;
            if (r->max_cycles && lim > r->max_cycles)
                lim = r->max_cycles;
            stop = tpu_system_run(s, lim);
            if (stop != TPU_STOP_CYCLE_LIMIT || lim == r->max_cycles)
                break;
            if (tpu_interrupted()) {
                g->interrupted = 1;
                break;
            }
        }
        r->cycles = tpu_system_cycle(s);
        tpu_core_stats(tpu_system_core(s, 0), &r->stats);
        r->stats.cycles = r->cycles;
        if (g->interrupted) {
            snprintf(r->msg, sizeof r->msg, "interrupted at cycle %llu",
                     (unsigned long long)r->cycles);
            r->status = LAB_RUN_INTERRUPTED;
        } else if (stop == TPU_STOP_CYCLE_LIMIT) {
            snprintf(r->msg, sizeof r->msg,
                     "still running after %llu cycles (an endless loop, a wait that never ends, "
                     "or far too slow)",
                     (unsigned long long)r->cycles);
            r->status = LAB_RUN_LIMIT;
        } else if (stop != TPU_STOP_HALT) {
            const char *e = tpu_system_error(s);
            snprintf(r->msg, sizeof r->msg, "%s", e && e[0] ? e : "the run stopped before halt");
            r->status = LAB_RUN_ERROR;
        } else if (r->check && r->check->how == LAB_REF_ELEM) {
            check_elem(r, &obj, s);
        } else {
            tpu_expect_result er;
            tpu_system_check(s, &obj, &er);
            if (er.status == TPU_EXPECT_MISMATCH || er.status == TPU_EXPECT_ERROR) {
                snprintf(r->msg, sizeof r->msg, "%s", er.message);
                r->status = LAB_RUN_WRONG;
            } else if (er.status == TPU_EXPECT_NONE && r->check) {
                snprintf(r->msg, sizeof r->msg, "nothing was checked");
                r->status = LAB_RUN_WRONG;
            }
        }
    }
    tpu_system_destroy(s);
    tpu_obj_free(&obj);
    return r->status;
}
