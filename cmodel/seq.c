/*
 * seq.c - the sequencer (see seq.h and docs/timing.md T1-T10).
 *
 * tpu_seq_step() is the whole per-cycle behaviour: fetch the word at pc
 * (decoded once and cached), then either issue it or record why not.
 * Scalar results, the new pc and `halted` are written directly: no other
 * unit reads them within the cycle, so this is the same as writing them at
 * the end of the cycle (T2, T3).  Semaphore decrements and the dispatch
 * are staged for the core's commit.
 */
#include "cmutant.h"
#include "seq.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__extension__ typedef __int128 i128;

int tpu_seq_init(tpu_seq *s, uint64_t imem_words, unsigned core_id, const tpu_evsrc *ev)
{
    memset(s, 0, sizeof *s);
    s->imem_words = imem_words;
    s->imem = calloc(imem_words ? imem_words : 1, sizeof *s->imem);
    s->ndblocks = (imem_words + TPU_DCODE_BLOCK - 1) / TPU_DCODE_BLOCK;
    s->dblocks = calloc(s->ndblocks ? s->ndblocks : 1, sizeof *s->dblocks);
    if (!s->imem || !s->dblocks) {
        tpu_seq_free(s);
        return -1;
    }
    s->sreg[TPU_SREG_CID] = core_id;
    s->stall = -1;
    s->ev = ev;
    return 0;
}

void tpu_seq_free(tpu_seq *s)
{
    if (s->dblocks)
        for (uint64_t i = 0; i < s->ndblocks; i++)
            free(s->dblocks[i]);
    free(s->dblocks);
    free(s->imem);
    s->dblocks = NULL;
    s->imem = NULL;
}

void tpu_seq_invalidate(tpu_seq *s, uint64_t first, uint64_t n)
{
    for (uint64_t w = first; w < first + n && w < s->imem_words; w++) {
        tpu_dcode *b = s->dblocks[w / TPU_DCODE_BLOCK];
        if (b)
            b[w % TPU_DCODE_BLOCK].state = 0;
    }
}

/* The decoded word at pc (< imem_words), or NULL when out of host memory. */
static const tpu_dcode *decode_at(tpu_seq *s, uint64_t pc)
{
    tpu_dcode **bp = &s->dblocks[pc / TPU_DCODE_BLOCK];
    if (!*bp) {
        *bp = calloc(TPU_DCODE_BLOCK, sizeof **bp);
        if (!*bp)
            return NULL;
    }
    tpu_dcode *d = &(*bp)[pc % TPU_DCODE_BLOCK];
    if (!d->state) {
        d->why = NULL;
        d->state = tpu_decode(s->imem[pc], &d->in, &d->why) == 0 ? 1 : 2;
    }
    return d;
}

void tpu_seq_insn_text(tpu_seq *s, uint64_t pc, char *buf, size_t len)
{
    if (pc >= s->imem_words) {
        snprintf(buf, len, "outside IMEM");
        return;
    }
    const tpu_dcode *d = decode_at(s, pc);
    if (d && d->state == 1)
        tpu_format_insn(&d->in, buf, len, NULL, NULL);
    else
        snprintf(buf, len, ".insn 0x%016" PRIx64, s->imem[pc]);
}

/* ---- run-time errors ----------------------------------------------------- */

static void fail(tpu_seq *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Stop the core with a one-line reason; the core adds where and when. */
static void fail(tpu_seq *s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->errmsg, sizeof s->errmsg, fmt, ap);
    va_end(ap);
    tpu_seq_insn_text(s, s->pc, s->errinsn, sizeof s->errinsn);
    s->error = 1;
}

/* "0x40000" or "-0x10" */
static void addr_text(i128 a, char *buf, size_t len)
{
    if (a < 0)
        snprintf(buf, len, "-0x%" PRIx64, (uint64_t)(-a));
    else
        snprintf(buf, len, "0x%" PRIx64, (uint64_t)a);
}

/* T5: every byte of `rows` rows of `rowbytes` bytes, row i at
 * base + i*stride, must lie in a memory of `size` bytes.  Otherwise fail
 * naming the lowest byte outside it.  Returns 0 when inside. */
static int check_region(tpu_seq *s, const char *mem, uint64_t size, const char *what,
                        int64_t base, int64_t rows, int64_t rowbytes, int64_t stride)
{
    if (rows < 0 || rowbytes < 0) {
        fail(s, "%s: negative %s %" PRId64, what, rows < 0 ? "row count" : "row size",
             rows < 0 ? rows : rowbytes);
        return -1;
    }
    if (rows == 0 || rowbytes == 0)
        return 0;
    i128 span = (i128)(rows - 1) * stride;
    i128 lo = (i128)base + (span < 0 ? span : 0);
    i128 hi = (i128)base + (span > 0 ? span : 0) + rowbytes;  /* exclusive */
    if (lo >= 0 && hi <= (i128)size)
        return 0;
    i128 bad = lo;
    if (lo >= 0) {          /* lowest touched byte at or above size */
        i128 st = stride < 0 ? -(i128)stride : (i128)stride;
        i128 room = (i128)size - rowbytes - lo;
        i128 j = (st == 0 || room < 0) ? 0 : room / st + 1;
        i128 a = lo + j * st;
        bad = a > (i128)size ? a : (i128)size;
    }
    char at[40];
    addr_text(bad, at, sizeof at);
    fail(s, "%s address %s out of range (%s is 0x%" PRIx64 " bytes): %s", mem, at, mem, size,
         what);
    return -1;
}

static int check_align(tpu_seq *s, const char *what, int64_t value, unsigned align,
                       const char *kind)
{
    if ((uint64_t)value % align == 0)
        return 0;
    char v[40];
    addr_text(value, v, sizeof v);
    fail(s, "misaligned %s %s: %s must be %u-byte aligned", kind, v, what, align);
    return -1;
}

/* ---- T5: the checks of each dispatched instruction -------------------------- */

static int check_dma(tpu_seq *s, const tpu_seq_env *env, const tpu_qentry *e)
{
    /* dma.h2v vdst, hsrc, rows, rowbytes, sstride, dstride, sem (v2h: hdst, vsrc) */
    /* dma.h2v.i8: rowbytes int8 bytes of HBM become 2 x rowbytes bytes of VMEM */
    int wide = e->op == TPU_OP_DMA_H2V_I8;
    int h2v = e->op == TPU_OP_DMA_H2V || wide;
    const int64_t *v = e->v;
    if (v[2] > 0 && v[3] > 0 && (i128)v[2] * v[3] * (wide ? 2 : 1) > (i128)INT64_MAX) {
        fail(s, "DMA of %" PRId64 " rows of %" PRId64 " bytes: more than 2^63 bytes", v[2], v[3]);
        return -1;
    }
    if (wide && v[3] > INT64_MAX / 2) {
        fail(s, "dma.h2v.i8 rows of %" PRId64 " bytes: more than 2^62", v[3]);
        return -1;
    }
    return check_region(s, h2v ? "HBM" : "VMEM", h2v ? env->hbm_bytes : env->vmem_bytes,
                        "DMA source", v[1], v[2], v[3], v[4])
        || (wide && check_align(s, "bf16 destination rows", v[0], 2, "VMEM address"))
        || (wide && check_align(s, "the destination row stride", v[5], 2, "stride"))
        || check_region(s, h2v ? "VMEM" : "HBM", h2v ? env->vmem_bytes : env->hbm_bytes,
                        "DMA destination", v[0], v[2], wide && v[3] > 0 ? 2 * v[3] : v[3], v[5]);
}

static int check_mxu(tpu_seq *s, const tpu_seq_env *env, const tpu_qentry *e)
{
    const int64_t *v = e->v;
    int64_t n = env->mxu_n;
    if ((uint64_t)v[0] >= env->num_mxu) {
        fail(s, "mxu %" PRId64 " does not exist (the config has %u MXU%s)", v[0], env->num_mxu,
             env->num_mxu == 1 ? "" : "s");
        return -1;
    }
    /* T5b: the machine's modes, and a stream's mode against its weights' */
    int i8 = e->op == TPU_OP_MXU_LW_I8 || e->op == TPU_OP_MXU_MM_I8 || e->op == TPU_OP_MXU_MMA_I8;
    if (i8 && env->mxu_int8 == 0) {
        fail(s, "this machine's MXUs have no int8 mode (config mxu_int8 = 0)");
        return -1;
    }
    if (!i8 && env->mxu_int8 == 2) {
        fail(s, "this machine's MXUs are int8 only (config mxu_int8 = 2): bf16 MXU instructions "
             "cannot run");
        return -1;
    }
    int lw = e->op == TPU_OP_MXU_LW || e->op == TPU_OP_MXU_LW_I8;
    if (!lw && i8 != s->w_i8[v[0]]) {
        fail(s, "%s stream against %s weights (the last weight load of mxu %" PRId64
             " was %s)", i8 ? "an int8" : "a bf16", i8 ? "bf16" : "int8", v[0],
             s->w_i8[v[0]] ? "mxu.lw.i8" : "mxu.lw, or none since reset");
        return -1;
    }
    if (lw)                         /* mxu.lw mxu, addr, stride */
        return check_align(s, i8 ? "int8 weight row pairs" : "bf16 weight rows", v[1], 2,
                           "VMEM address")
            || check_align(s, "the weight row stride", v[2], 2, "stride")
            || check_region(s, "VMEM", env->vmem_bytes, "weight tile", v[1], n, 2 * n, v[2]);
    /* mxu.mm mxu, dst, src, rows, sstride, dstride */
    return check_align(s, i8 ? "int8 LHS rows" : "bf16 LHS rows", v[2], 2, "VMEM address")
        || check_align(s, "the LHS row stride", v[4], 2, "stride")
        || check_align(s, i8 ? "int32 result rows" : "fp32 result rows", v[1], 4,
                       "VMEM address")
        || check_align(s, "the result row stride", v[5], 4, "stride")
        || check_region(s, "VMEM", env->vmem_bytes, "LHS rows", v[2], v[3], 2 * n, v[4])
        || check_region(s, "VMEM", env->vmem_bytes, "result rows", v[1], v[3], 4 * n, v[5]);
}

static int check_vpu(tpu_seq *s, const tpu_seq_env *env, const tpu_qentry *e)
{
    int bf16 = e->op == TPU_OP_VLD_BF16 || e->op == TPU_OP_VST_BF16;
    if (!bf16 && e->op != TPU_OP_VLD && e->op != TPU_OP_VST)
        return 0;
    int64_t addr = (int64_t)((uint64_t)e->v[1] + (uint64_t)e->v[2]);   /* rs + imm */
    int64_t bytes = (int64_t)env->vpu_elems * (bf16 ? 2 : 4);
    return check_align(s, bf16 ? "a bf16 vector" : "an fp32 vector", addr, bf16 ? 2 : 4,
                       "VMEM address")
        || check_region(s, "VMEM", env->vmem_bytes, "vector", addr, 1, bytes, 0);
}

static int check_ici(tpu_seq *s, const tpu_seq_env *env, const tpu_qentry *e)
{
    /* dma.ici port, rdst, vsrc, bytes, lsem, rsem */
    const int64_t *v = e->v;
    if (!((env->ports >> v[0]) & 1)) {
        fail(s, "ICI port %" PRId64 " is not connected to a neighbour", v[0]);
        return -1;
    }
    return check_region(s, "VMEM", env->vmem_bytes, "ICI source", v[2], 1, v[3], 0)
        || check_region(s, "VMEM", env->vmem_bytes, "ICI destination (neighbour's VMEM)",
                        v[1], 1, v[3], 0);
}

/* ---- issue ------------------------------------------------------------------ */

static int64_t rd_val(const tpu_seq *s, int64_t r) { return s->sreg[r & 31]; }

static void wr(tpu_seq *s, int64_t r, uint64_t value)
{
    if (r > 0 && r < TPU_SREG_CID)
        s->sreg[r] = (int64_t)value;
}

/* Record why the instruction at pc did not issue.  The text is only
 * formatted when it changes: a stall usually lasts many cycles. */
static void stall(tpu_seq *s, int reason, const char *fmt, const char *arg, int num)
{
    s->stall = reason;
    if (fmt == s->stall_fmt && arg == s->stall_arg && num == s->stall_num)
        return;
    s->stall_fmt = fmt;
    s->stall_arg = arg;
    s->stall_num = num;
    if (arg)
        snprintf(s->stall_text, sizeof s->stall_text, fmt, arg);
    else
        snprintf(s->stall_text, sizeof s->stall_text, fmt, num);
}

/* Name of the first busy unit among `mask` (for the stall text). */
static const char *first_busy(uint32_t busy)
{
    static const char *names[] = { "mxu0", "mxu1", "mxu2", "mxu3", "vpu", "dma", "ici" };
    for (unsigned i = 0; i < 7; i++)
        if (busy & (1u << i))
            return names[i];
    return "?";
}

/* A DMA, ICI, MXU or VPU instruction: T4, T5. */
static void dispatch(tpu_seq *s, const tpu_seq_env *env, const tpu_insn *in)
{
    const tpu_insn_desc *d = in->desc;
    tpu_queue *q;
    enum tpu_unit_id u;
    const char *qname;
    switch (d->unit) {
    case TPU_UNIT_DMA: q = env->q_dma; u = TPU_U_DMA; qname = "dma"; break;
    case TPU_UNIT_ICI: q = env->q_ici; u = TPU_U_ICI; qname = "ici"; break;
    case TPU_UNIT_VPU: q = env->q_vpu; u = TPU_U_VPU; qname = "vpu"; break;
    case TPU_UNIT_XLU:                      /* T35: the VPU's work lands first */
        if (!env->vpu_idle) {
            stall(s, TPU_SEQ_STALL_VPU, "vpu busy (an xlu instruction waits)", NULL, 0);
            return;
        }
        q = env->q_xlu; u = TPU_U_XLU; qname = "xlu";
        break;
    default: {
        int64_t m = in->val[0];
        if ((uint64_t)m >= env->num_mxu) {
            fail(s, "mxu %" PRId64 " does not exist (the config has %u MXU%s)", m, env->num_mxu,
                 env->num_mxu == 1 ? "" : "s");
            return;
        }
        static const char *mn[] = { "mxu0", "mxu1", "mxu2", "mxu3" };
        q = env->q_mxu[m];
        u = (enum tpu_unit_id)(TPU_U_MXU0 + m);
        qname = mn[m];
        break;
    }
    }
    if (tpu_queue_full(q)) {
        stall(s, TPU_SEQ_STALL_QUEUE, "queue full: %s", qname, 0);
        return;
    }
    tpu_qentry *e = &s->push_e;
    e->pc = s->pc;
    e->word = s->imem[s->pc];
    e->issued = *s->ev->cycle;
    e->op = d->opcode;
    for (unsigned i = 0; i < TPU_MAX_OPERANDS; i++)
        e->v[i] = i < d->noperands && d->op[i].kind == TPU_K_SREG ? rd_val(s, in->val[i])
                                                                  : in->val[i];
    int bad;
    switch (d->unit) {
    case TPU_UNIT_DMA: bad = check_dma(s, env, e); break;
    case TPU_UNIT_ICI: bad = check_ici(s, env, e); break;
    case TPU_UNIT_VPU: bad = check_vpu(s, env, e); break;
    case TPU_UNIT_XLU: bad = 0; break;
    default:           bad = check_mxu(s, env, e); break;
    }
    if (bad)
        return;
    if (d->opcode == TPU_OP_MXU_LW || d->opcode == TPU_OP_MXU_LW_I8)
        s->w_i8[e->v[0]] = d->opcode == TPU_OP_MXU_LW_I8;
    s->push_q = q;
    s->push_unit = u;
    s->issued = 1;
    s->pc++;
}

/* Scalar ALU, branches, jumps: returns the next pc. */
static uint64_t scalar(tpu_seq *s, const tpu_insn *in)
{
    const int64_t *v = in->val;
    uint64_t a = (uint64_t)rd_val(s, v[1]), b = (uint64_t)rd_val(s, v[2]);
    uint64_t imm = (uint64_t)v[2];          /* reg-imm forms: sign-extended already */
    uint64_t next = s->pc + 1;
    uint64_t x = (uint64_t)rd_val(s, v[0]), y = a;   /* branches compare ops 0 and 1 */
    switch (in->desc->opcode) {
    case TPU_OP_ADD:  wr(s, v[0], a + b); break;
    case TPU_OP_SUB:  wr(s, v[0], a - b); break;
    case TPU_OP_MUL:  wr(s, v[0], a * b); break;
    case TPU_OP_AND:  wr(s, v[0], a & b); break;
    case TPU_OP_OR:   wr(s, v[0], a | b); break;
    case TPU_OP_XOR:  wr(s, v[0], a ^ b); break;
    case TPU_OP_SLL:  wr(s, v[0], a << (b & 63)); break;
    case TPU_OP_SRL:  wr(s, v[0], a >> (b & 63)); break;
    case TPU_OP_SRA: {
        unsigned sh = (unsigned)(b & 63);
        uint64_t r = a >> sh;
        if ((a >> 63) && sh)
            r |= ~(UINT64_MAX >> sh);
        wr(s, v[0], r);
        break;
    }
    case TPU_OP_SLT:  wr(s, v[0], CMUTANT(103, (int64_t)a < (int64_t)b, a < b)); break;
    case TPU_OP_SLTU: wr(s, v[0], a < b); break;
    case TPU_OP_ADDI: wr(s, v[0], a + imm); break;
    case TPU_OP_MULI: wr(s, v[0], a * imm); break;
    case TPU_OP_ANDI: wr(s, v[0], a & imm); break;
    case TPU_OP_ORI:  wr(s, v[0], a | imm); break;
    case TPU_OP_XORI: wr(s, v[0], a ^ imm); break;
    case TPU_OP_SLLI: wr(s, v[0], a << (imm & 63)); break;
    case TPU_OP_SRLI: wr(s, v[0], a >> (imm & 63)); break;
    case TPU_OP_SRAI: {
        unsigned sh = (unsigned)(imm & 63);
        uint64_t r = a >> sh;
        if ((a >> 63) && sh)
            r |= ~(UINT64_MAX >> sh);
        wr(s, v[0], r);
        break;
    }
    case TPU_OP_SLTI: wr(s, v[0], (int64_t)a < (int64_t)imm); break;
    case TPU_OP_LI:   wr(s, v[0], (uint64_t)v[1]); break;
    case TPU_OP_BEQ:  if (x == y) next = (uint64_t)v[2]; break;
    case TPU_OP_BNE:  if (x != y) next = (uint64_t)v[2]; break;
    case TPU_OP_BLT:  if (CMUTANT(101, (int64_t)x < (int64_t)y, (int64_t)x <= (int64_t)y)) next = (uint64_t)v[2]; break;
    case TPU_OP_BGE:  if ((int64_t)x >= (int64_t)y) next = (uint64_t)v[2]; break;
    case TPU_OP_BLTU: if (x < y) next = (uint64_t)v[2]; break;
    case TPU_OP_BGEU: if (CMUTANT(102, x >= y, x > y)) next = (uint64_t)v[2]; break;
    case TPU_OP_JMP:  next = (uint64_t)v[0]; break;
    case TPU_OP_JAL:  wr(s, v[0], s->pc + 1); next = (uint64_t)v[1]; break;
    case TPU_OP_JR:   next = x; break;
    default: break;                         /* nop */
    }
    return next;
}

void tpu_seq_step(tpu_seq *s, const tpu_seq_env *env)
{
    s->issued = 0;
    s->stall = -1;
    s->waiting_sem = 0;
    s->push_q = NULL;
    if (s->halted || s->error)
        return;
    if (s->pc >= s->imem_words) {
        fail(s, "pc %" PRIu64 " is outside IMEM (%" PRIu64 " words)", s->pc, s->imem_words);
        return;
    }
    const tpu_dcode *d = decode_at(s, s->pc);
    if (!d) {
        fail(s, "out of host memory");
        return;
    }
    if (d->state == 2) {
        fail(s, "illegal instruction 0x%016" PRIx64 " (%s)", s->imem[s->pc], d->why);
        return;
    }
    const tpu_insn *in = &d->in;
    uint64_t pc = s->pc;

    switch (in->desc->unit) {
    case TPU_UNIT_SEQ:
        break;
    default:
        dispatch(s, env, in);
        goto out;
    }

    switch (in->desc->opcode) {
    case TPU_OP_HALT:                               /* T8 */
        if ((env->idle & TPU_UNITS_ALL) != TPU_UNITS_ALL) {
            stall(s, TPU_SEQ_STALL_HALT, "halt: waiting for %s",
                  first_busy(~env->idle & TPU_UNITS_ALL), 0);
            goto out;
        }
        s->halted = 1;
        s->issued = 1;
        goto out;
    case TPU_OP_SYNC: {                             /* T7 */
        uint32_t want = (uint32_t)in->val[0] & TPU_UNITS_ALL;
        if ((env->idle & want) != want) {
            stall(s, TPU_SEQ_STALL_SYNC, "sync: waiting for %s", first_busy(want & ~env->idle),
                  0);
            goto out;
        }
        s->issued = 1;
        s->pc++;
        goto out;
    }
    case TPU_OP_SEM_WAIT: {                         /* T6 */
        unsigned k = (unsigned)in->val[0] & 31;
        uint32_t n = (uint32_t)in->val[1];
        if (s->sem[k] < n) {
            s->waiting_sem = 1;
            s->wait_sem = k;
            s->wait_count = n;
            stall(s, TPU_SEQ_STALL_SEM, "sem.wait: sem %d", NULL, (int)k);
            goto out;
        }
        s->sem_dec[k] += n;
        s->sem_dec_dirty = 1;
        s->issued = 1;
        s->pc++;
        goto out;
    }
    default:
        s->pc = scalar(s, in);                      /* T2, T3 */
        s->issued = 1;
        break;
    }

out:
    if (s->issued) {
        s->instructions++;
        if (tpu_ev_wanted(s->ev, TPU_EV_ISSUE)) {
            tpu_event ev = { .kind = TPU_EV_ISSUE, .unit = TPU_U_SEQ, .pc = pc,
                             .word = s->imem[pc], .issued = *s->ev->cycle,
                             .ops = s->push_q ? s->push_e.v : NULL };
            tpu_ev_emit(s->ev, &ev);
        }
        if (in->desc->unit == TPU_UNIT_SEQ)
            tpu_ev_simple(s->ev, TPU_EV_RETIRE, TPU_U_SEQ, pc, s->imem[pc]);
    }
}

void tpu_seq_commit(tpu_seq *s, tpu_sem_inc *sems)
{
    if (s->push_q) {                                /* T4: visible next cycle */
        tpu_queue_push(s->push_q, &s->push_e);
        s->push_q = NULL;
    }
    if (sems->dirty || s->sem_dec_dirty) {        /* T6, T9 */
        int want = tpu_ev_wanted(s->ev, TPU_EV_SEM);
        for (unsigned i = 0; i < TPU_NUM_SEMS; i++) {
            uint32_t inc = sems->inc[i], dec = s->sem_dec[i];
            if (!inc && !dec)
                continue;
            s->sem[i] += inc - dec;                 /* 32 bits, wrapping */
            sems->inc[i] = s->sem_dec[i] = 0;
            if (want) {
                tpu_event ev = { .kind = TPU_EV_SEM, .unit = TPU_U_SEQ, .index = i,
                                 .value = s->sem[i] };
                tpu_ev_emit(s->ev, &ev);
            }
        }
        sems->dirty = s->sem_dec_dirty = 0;
    }
}
