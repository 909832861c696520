/*
 * vpu.c - the vector unit (see vpu.h).  Arithmetic is fp.c's, element by
 * element (add and sub through ref.c's kernel, which tests/test_ref.c
 * checks bit for bit against fp.c), so the VPU and the reference kernels
 * agree bit for bit.
 */
#include "cmutant.h"
#include "vpu.h"

#include <stdlib.h>
#include <string.h>

#include "fp.h"
#include "ref.h"

int tpu_vpu_init(tpu_vpu *v, unsigned sublanes, unsigned lanes, uint64_t latency,
                 unsigned qdepth, tpu_vmem *vmem, const tpu_evsrc *ev)
{
    memset(v, 0, sizeof *v);
    tpu_queue_init(&v->q, qdepth);
    v->elems = sublanes * lanes;
    v->vl = latency < 1 ? 1 : latency > TPU_VPU_MAX_LATENCY ? TPU_VPU_MAX_LATENCY : latency;
    v->vmem = vmem;
    v->ev = ev;
    v->regs = calloc((size_t)TPU_NUM_VREGS * v->elems, sizeof *v->regs);
    v->stage_data = calloc((size_t)v->vl * v->elems, sizeof *v->stage_data);
    v->tr_data = calloc((size_t)TPU_TR_STEPS * v->elems, sizeof *v->tr_data);
    if (!v->regs || !v->stage_data || !v->tr_data) {
        tpu_vpu_free(v);
        return -1;
    }
    for (unsigned i = 0; i < TPU_VPU_MAX_LATENCY; i++)
        v->stage[i].due = UINT64_MAX;
    for (unsigned i = 0; i < TPU_TR_STEPS; i++)
        v->tr[i].due = UINT64_MAX;
    return 0;
}

void tpu_vpu_free(tpu_vpu *v)
{
    free(v->regs);
    free(v->stage_data);
    free(v->tr_data);
    v->regs = v->stage_data = v->tr_data = NULL;
}

static const uint32_t *reg(const tpu_vpu *v, int64_t r)
{
    return v->regs + (size_t)r * v->elems;
}

/* The registers an instruction reads (at most 3), from its operand values:
 * the operands whose kind is a vector register read (isa.def, VREG). */
static unsigned sources(const tpu_insn_desc *d, const tpu_qentry *e, int64_t src[3])
{
    unsigned n = 0;
    for (unsigned i = 0; i < d->noperands && n < 3; i++)
        if (d->op[i].kind == TPU_K_VREG)
            src[n++] = e->v[i];
    return n;
}

/* Does it write a vector register (a VREGW operand: every VPU instruction
 * but the stores)? */
static int writes_vreg(const tpu_insn_desc *d)
{
    for (unsigned i = 0; i < d->noperands; i++)
        if (d->op[i].kind == TPU_K_VREGW)
            return 1;
    return 0;
}

/* Compute the result of an arithmetic instruction into out. */
static void compute(const tpu_vpu *v, const tpu_insn_desc *d, const tpu_qentry *e, uint32_t *out)
{
    unsigned n = v->elems;
    if (e->op == TPU_OP_VBCAST) {           /* a scalar's low 32 bits, not a register */
        uint32_t x = (uint32_t)(uint64_t)e->v[1];
        for (unsigned i = 0; i < n; i++)
            out[i] = x;
        return;
    }
    const uint32_t *a = reg(v, e->v[1]);
    const uint32_t *b = e->op == TPU_OP_VRELU || d->cls == TPU_CLASS_TRANS ? NULL : reg(v, e->v[2]);
    switch (e->op) {
    case TPU_OP_VADD:   tpu_ref_pointwise(TPU_REF_ADD, a, b, out, n); break;
    case TPU_OP_VSUB:   tpu_ref_pointwise(TPU_REF_SUB, a, b, out, n); break;
    case TPU_OP_VMUL:   for (unsigned i = 0; i < n; i++) out[i] = tpu_f32_mul(a[i], b[i]); break;
    case TPU_OP_VMAX:   for (unsigned i = 0; i < n; i++) out[i] = CMUTANT(108, tpu_f32_max(a[i], b[i]), tpu_f32_min(a[i], b[i])); break;
    case TPU_OP_VMIN:   for (unsigned i = 0; i < n; i++) out[i] = tpu_f32_min(a[i], b[i]); break;
    case TPU_OP_VCMPLT: for (unsigned i = 0; i < n; i++) out[i] = tpu_f32_cmplt(a[i], b[i]); break;
    case TPU_OP_VRELU:  for (unsigned i = 0; i < n; i++) out[i] = tpu_f32_relu(a[i]); break;
    case TPU_OP_VEXP:   for (unsigned i = 0; i < n; i++) out[i] = tpu_f32_exp(a[i]); break;
    case TPU_OP_VRCP:   for (unsigned i = 0; i < n; i++) out[i] = tpu_f32_rcp(a[i]); break;
    case TPU_OP_VRSQRT: for (unsigned i = 0; i < n; i++) out[i] = tpu_f32_rsqrt(a[i]); break;
    case TPU_OP_VSEL: {
        const uint32_t *c = reg(v, e->v[3]);
        for (unsigned i = 0; i < n; i++)
            out[i] = !tpu_f32_is_zero(a[i]) ? b[i] : c[i];
        break;
    }
    default:
        break;
    }
}

/* Put a result into the result pipeline in cycle t: stage t mod VL, written
 * at the end of t + VL - 1. */
static void enter_pipeline(tpu_vpu *v, uint64_t t, unsigned rd, uint64_t pc, uint64_t word)
{
    unsigned slot = (unsigned)(t % v->vl);
    v->stage[slot].due = t + v->vl - 1;
    v->stage[slot].reg = rd;
    v->stage[slot].pc = pc;
    v->stage[slot].word = word;
}

int tpu_vpu_step(tpu_vpu *v, uint64_t t)
{
    /* T27a: the transcendental issued in t - TPU_TR_STEPS leaves its
     * pipeline and enters the result pipeline now. */
    int port_taken = 0;
    if (v->tr_count) {
        unsigned ts = (unsigned)(t % TPU_TR_STEPS);
        tpu_vpu_stage *tr = &v->tr[ts];
        if (tr->due == t) {
            enter_pipeline(v, t, tr->reg, tr->pc, tr->word);
            memcpy(v->stage_data + (size_t)(t % v->vl) * v->elems,
                   v->tr_data + (size_t)ts * v->elems, (size_t)v->elems * 4);
            tr->due = UINT64_MAX;
            v->tr_count--;
            port_taken = 1;
        }
    }
    if (!v->q.count)
        return -1;
    const tpu_qentry *e = tpu_queue_head(&v->q);
    const tpu_insn_desc *d = tpu_isa_by_opcode(e->op);   /* the sequencer issued it: known */

    int64_t src[3];
    unsigned ns = sources(d, e, src);
    for (unsigned i = 0; i < ns; i++)                   /* T27 */
        if (v->ready[src[i]] > t)
            return TPU_VPU_STALL_HAZARD;
    if (v->xlu_mask) {                                  /* T35: the XLU's registers */
        uint32_t named = 1u << (e->v[0] & 31);          /* vd, or vst's source */
        for (unsigned i = 0; i < ns; i++)
            named |= 1u << (src[i] & 31);
        if (v->xlu_mask & named)
            return TPU_VPU_STALL_HAZARD;
    }
    /* T27a: an instruction that writes a register and is not a
     * transcendental waits while the result pipeline's entry is taken, or
     * while a transcendental still on its way writes the same register
     * (it would land after this one). */
    int tr = d->cls == TPU_CLASS_TRANS;
    if (!tr && writes_vreg(d) && (port_taken || v->tr_count)) {
        if (port_taken)
            return TPU_VPU_STALL_HAZARD;
        for (unsigned i = 0; i < TPU_TR_STEPS; i++)
            if (v->tr[i].due != UINT64_MAX && v->tr[i].reg == (unsigned)e->v[0])
                return TPU_VPU_STALL_HAZARD;
    }

    uint64_t addr = (uint64_t)e->v[1] + (uint64_t)e->v[2];  /* vld/vst: rs + imm */
    int bf16 = (d->flags & TPU_FL_BF16) != 0;
    int mem = d->cls == TPU_CLASS_LOAD || d->cls == TPU_CLASS_STORE;
    uint64_t bytes = (uint64_t)v->elems * (bf16 ? 2 : 4);
    if (mem && !tpu_vmem_take_all(v->vmem, bytes))      /* T12 */
        return TPU_VPU_STALL_VMEM;

    v->ops++;
    if (d->cls == TPU_CLASS_STORE) {                    /* T28 */
        const uint32_t *s = reg(v, e->v[0]);
        uint8_t *dst = tpu_vmem_write(v->vmem, TPU_U_VPU, addr, bytes);
        tpu_ev_access(v->ev, TPU_U_VPU, TPU_ACCESS_WRITE, e->pc, e->word, e->issued, addr, bytes);
        if (dst) {
            if (bf16) {
                for (unsigned i = 0; i < v->elems; i++) {
                    uint16_t h = tpu_bf16_from_f32(s[i]);
                    memcpy(dst + 2 * i, &h, 2);
                }
            } else {
                memcpy(dst, s, bytes);
            }
        }
        tpu_ev_simple(v->ev, TPU_EV_RETIRE, TPU_U_VPU, e->pc, e->word);
        tpu_queue_pop(&v->q);
        return -1;
    }

    unsigned slot = (unsigned)(t % v->vl);
    uint32_t *out = v->stage_data + (size_t)slot * v->elems;
    unsigned rd = (unsigned)e->v[0];
    if (tr) {                                           /* T27a */
        unsigned ts = (unsigned)(t % TPU_TR_STEPS);
        compute(v, d, e, v->tr_data + (size_t)ts * v->elems);
        v->flops += v->elems;
        v->tr[ts].due = t + TPU_TR_STEPS;
        v->tr[ts].reg = rd;
        v->tr[ts].pc = e->pc;
        v->tr[ts].word = e->word;
        v->tr_count++;
        v->ready[rd] = t + TPU_TR_STEPS + v->vl;
        v->busy_end = t + TPU_TR_STEPS + v->vl;
        tpu_queue_pop(&v->q);
        return -1;
    }
    if (mem)
        tpu_ev_access(v->ev, TPU_U_VPU, TPU_ACCESS_READ, e->pc, e->word, e->issued, addr, bytes);
    if (e->op == TPU_OP_VLD) {
        memcpy(out, tpu_vmem_at(v->vmem, addr, bytes), bytes);
    } else if (e->op == TPU_OP_VLD_BF16) {
        const uint8_t *p = tpu_vmem_at(v->vmem, addr, bytes);
        for (unsigned i = 0; i < v->elems; i++) {
            uint16_t h;
            memcpy(&h, p + 2 * i, 2);
            out[i] = tpu_f32_from_bf16(h);
        }
    } else {
        compute(v, d, e, out);
        if (e->op != TPU_OP_VBCAST && e->op != TPU_OP_VSEL)
            v->flops += v->elems;
    }
    enter_pipeline(v, t, rd, e->pc, e->word);
    v->ready[rd] = t + CMUTANT(107, v->vl, v->vl - 1);
    if (v->busy_end < t + v->vl)                        /* a transcendental may land later */
        v->busy_end = t + v->vl;
    tpu_queue_pop(&v->q);
    return -1;
}

void tpu_vpu_commit(tpu_vpu *v, uint64_t t)
{
    if (t >= v->busy_end || t + 1 < v->vl)
        return;
    uint64_t issued = t + 1 - v->vl;        /* the instruction due now issued then */
    unsigned slot = (unsigned)(issued % v->vl);
    tpu_vpu_stage *st = &v->stage[slot];
    if (st->due != t)
        return;
    memcpy(v->regs + (size_t)st->reg * v->elems, v->stage_data + (size_t)slot * v->elems,
           (size_t)v->elems * 4);
    st->due = UINT64_MAX;
    tpu_ev_simple(v->ev, TPU_EV_RETIRE, TPU_U_VPU, st->pc, st->word);
}
