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
#include "objfile.h"
#include "run.h"

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

enum lab_failure lab_run_failure(const lab_run *r)
{
    switch (r->status) {
    case LAB_RUN_OK:
    case LAB_RUN_INTERRUPTED: return LAB_FAIL_NONE;
    case LAB_RUN_ASM: return LAB_FAIL_ASM;
    case LAB_RUN_DATA: return LAB_FAIL_DATA;
    case LAB_RUN_LIMIT: return LAB_FAIL_LIMIT;
    case LAB_RUN_WRONG: return LAB_FAIL_WRONG;
    case LAB_RUN_ERROR: break;
    }
    /* the model's run-time errors, by the words of cmodel/core.c and system.c */
    if (strstr(r->msg, "deadlock"))
        return LAB_FAIL_DEADLOCK;
    if (strstr(r->msg, "out of range"))
        return LAB_FAIL_RANGE;
    if (strstr(r->msg, "misaligned") || strstr(r->msg, "aligned"))
        return LAB_FAIL_ALIGN;
    if (strstr(r->msg, "illegal instruction"))
        return LAB_FAIL_ILLEGAL;
    return LAB_FAIL_ERROR;
}

/* The text after `key` in msg up to the string `stop` (NULL: the end). */
static const char *quote(const char *msg, const char *key, const char *stop, char *buf, size_t len)
{
    const char *p = strstr(msg, key);
    if (!p) {
        buf[0] = 0;
        return buf;
    }
    p += strlen(key);
    const char *e = stop ? strstr(p, stop) : NULL;
    size_t n = e ? (size_t)(e - p) : strlen(p);
    snprintf(buf, len, "%.*s", (int)(n < 120 ? n : 120), p);
    return buf;
}

const char *lab_run_look(const lab_run *r, char *buf, size_t len)
{
    char q[160], q2[160];
    switch (lab_run_failure(r)) {
    case LAB_FAIL_NONE:
        buf[0] = 0;
        break;
    case LAB_FAIL_ASM:
        snprintf(buf, len, "the assembler's message: the line and column it names; tpu-as "
                           "prints every error of the file (docs/assembler.md)");
        break;
    case LAB_FAIL_DATA:
        snprintf(buf, len, "keep the starter's data labels and their '.random' and '.zero' lines "
                           "as they are: the grader checks the bytes they load");
        break;
    case LAB_FAIL_DEADLOCK:
        snprintf(buf, len, "the waits on %s: count the DMAs that signal it (their last operand) "
                           "against the sem.wait counts; tpu-sim --step, 'info sem' where it "
                           "stopped (docs/timing.md T9)",
                 quote(r->msg, "sem.wait on ", " (", q, sizeof q)[0] ? q : "that semaphore");
        break;
    case LAB_FAIL_RANGE:
        if (quote(r->msg, "pc ", "): ", q, sizeof q)[0])
            snprintf(buf, len, "the addresses and sizes of the instruction at pc %s) against the "
                               "lab machine's memory sizes: which -D value, tile size or address "
                               "makes them too big?", q);
        else
            snprintf(buf, len, "the addresses and sizes of the failing instruction against the "
                               "lab machine's memories (docs/config.md)");
        break;
    case LAB_FAIL_ALIGN:
        snprintf(buf, len, "the alignment rule of the failing instruction (docs/isa.md): an "
                           "address or size that is not a whole number of rows or words");
        break;
    case LAB_FAIL_ILLEGAL:
        snprintf(buf, len, "a branch or jump that lands outside the program or on data, or a "
                           "missing halt at the end (tpu-dis lists the words)");
        break;
    case LAB_FAIL_ERROR:
        snprintf(buf, len, "the run-time error above: tpu-sim --step to the cycle it stopped");
        break;
    case LAB_FAIL_LIMIT:
        snprintf(buf, len, "an endless loop or a wait that never ends: tpu-sim --step, "
                           "'continue', Ctrl-C, then 'show' which unit waits and on what; "
                           "the exits of your loops' counters");
        break;
    case LAB_FAIL_WRONG:
        quote(r->msg, ") at ", ": ", q, sizeof q);
        quote(r->msg, " (", ")", q2, sizeof q2);
        if (q[0])
            snprintf(buf, len, "the result at %s (%s): which rows of X and columns of W feed "
                               "it, and which tile writes it (mxu.mm starts a sum, mxu.mma adds "
                               "to it); tpu-sim --step, 'watch' its address",
                     q, q2[0] ? q2 : "its address");
        else
            snprintf(buf, len, "the first wrong element the message names: tpu-sim --step, "
                               "'watch' its address");
        break;
    }
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
    /* the lab's own programs include what they like; a submission only
     * files of its own folder (nothing when it is one file among others) */
    tpu_asm_options ao = { .config = r->cfg, .defines = defs, .ndefines = r->ndefines,
                           .allow_include = 1, .include_sandbox = !r->src,
                           .include_root = g->env->one_file || !g->root[0] ? NULL : g->root };
    int elem = r->check && r->check->how == LAB_REF_ELEM;
    tpu_run run = { .cfg = r->cfg, .check = !elem,
                    .limits = { .max_cycles = r->max_cycles, .slice = LAB_SLICE,
                                .interruptible = 1 } };
    tpu_run_init(&run);
    if (tpu_run_assemble(&run, src, len, name, &ao)) {
        snprintf(r->msg, sizeof r->msg, "%.400s%s", run.error,
                 run.nerrors > 1 ? " (and more: run tpu-as on it)" : "");
        return r->status = LAB_RUN_ASM;
    }

    r->status = LAB_RUN_OK;
    if (r->narrays && check_arrays(r, &run.obj)) {
        tpu_run_free(&run);
        return r->status = LAB_RUN_DATA;
    }
    if (r->check && r->check->how == LAB_REF_MATMUL && set_matmul_expect(r, &run.obj)) {
        tpu_run_free(&run);
        snprintf(r->msg, sizeof r->msg, "out of memory");
        return r->status = LAB_RUN_ERROR;
    }
    if (elem)
        run.obj.nexpects = 0;

    if (tpu_run_load(&run)) {
        if (run.end == TPU_RUN_SYSTEM)
            lab_internal(g, "the lab's machine: %s", run.error);
        else
            snprintf(r->msg, sizeof r->msg, "%s", run.error);
        tpu_run_free(&run);
        return r->status = LAB_RUN_ERROR;
    }
    tpu_run_go(&run);
    r->cycles = run.cycles;
    r->stats = run.stats;
    switch (run.end) {
    case TPU_RUN_INTERRUPTED:
        g->interrupted = 1;
        snprintf(r->msg, sizeof r->msg, "%s", run.error);
        r->status = LAB_RUN_INTERRUPTED;
        break;
    case TPU_RUN_LIMIT:
        snprintf(r->msg, sizeof r->msg,
                 "still running after %llu cycles (an endless loop, a wait that never ends, "
                 "or far too slow)",
                 (unsigned long long)r->cycles);
        r->status = LAB_RUN_LIMIT;
        break;
    case TPU_RUN_HALT:
        if (elem) {
            check_elem(r, &run.obj, run.sys);
        } else if (run.expect.status == TPU_EXPECT_MISMATCH
                   || run.expect.status == TPU_EXPECT_ERROR) {
            snprintf(r->msg, sizeof r->msg, "%s", run.expect.message);
            r->status = LAB_RUN_WRONG;
        } else if (run.expect.status == TPU_EXPECT_NONE && r->check) {
            snprintf(r->msg, sizeof r->msg, "nothing was checked");
            r->status = LAB_RUN_WRONG;
        }
        break;
    default:
        snprintf(r->msg, sizeof r->msg, "%s", run.error[0] ? run.error
                                                          : "the run stopped before halt");
        r->status = LAB_RUN_ERROR;
        break;
    }
    tpu_run_free(&run);
    return r->status;
}
