/*
 * core.c - one core (see core.h): creation, the two halves of a cycle,
 * run-time errors, backdoor memory access, state views and statistics.
 */
#include "core.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the C model keeps VMEM and HBM as little-endian bytes and reads them in place"
#endif

tpu_core *tpu_core_create(const tpu_config *cfg, unsigned id, const uint64_t *cycle,
                          tpu_event_bus *bus, char *err, size_t errlen)
{
    tpu_core *c = calloc(1, sizeof *c);
    if (!c) {
        snprintf(err, errlen, "out of memory creating core %u", id);
        return NULL;
    }
    c->id = id;
    c->cfg = cfg;
    c->cycle = cycle;
    c->ev.bus = bus;
    c->ev.core = id;
    c->ev.cycle = cycle;

    uint64_t hnum, hden, inum, iden;
    tpu_config_bytes_per_cycle(cfg->hbm_bw, cfg->clock_hz, &hnum, &hden);
    tpu_config_bytes_per_cycle(cfg->ici_bw, cfg->clock_hz, &inum, &iden);
    unsigned q = (unsigned)cfg->seq_queue_depth;

    c->nmxu = (unsigned)cfg->num_mxu;
    int bad = tpu_seq_init(&c->seq, cfg->imem_words, id, &c->ev) < 0
           || tpu_vmem_init(&c->vmem, cfg->vmem_bytes, cfg->vmem_bw) < 0
           || tpu_hbm_init(&c->hbm, cfg->hbm_bytes) < 0
           || tpu_vpu_init(&c->vpu, (unsigned)cfg->vpu_sublanes, (unsigned)cfg->vpu_lanes,
                           cfg->vpu_latency, q, &c->vmem, &c->ev) < 0
           || tpu_xlu_init(&c->xlu, (unsigned)cfg->vpu_sublanes, (unsigned)cfg->vpu_lanes, q,
                           &c->vpu, &c->ev) < 0;
    for (unsigned m = 0; m < c->nmxu && !bad; m++)
        bad = tpu_mxu_init(&c->mxu[m], m, (unsigned)cfg->mxu_n, (unsigned)cfg->mxu_wloads, q,
                           &c->vmem, &c->sems, &c->ev) < 0;
    if (bad) {
        snprintf(err, errlen, "out of memory creating core %u", id);
        tpu_core_destroy(c);
        return NULL;
    }
    tpu_dma_init(&c->dma, (unsigned)cfg->dma_engines, q, hnum, hden, cfg->hbm_latency,
                 &c->vmem, &c->hbm, &c->sems, &c->ev);
    tpu_ici_init(&c->ici, q, inum, iden, cfg->ici_latency, &c->vmem, &c->sems, &c->ev);

    c->env = (tpu_seq_env){
        .q_dma = &c->dma.q, .q_ici = &c->ici.q, .q_vpu = &c->vpu.q, .q_xlu = &c->xlu.q, .num_mxu = c->nmxu,
        .mxu_n = (unsigned)cfg->mxu_n, .vmem_bytes = c->vmem.size, .hbm_bytes = c->hbm.size,
        .vpu_elems = c->vpu.elems, .mxu_int8 = (unsigned)cfg->mxu_int8,
    };
    for (unsigned m = 0; m < TPU_MAX_MXUS; m++)
        c->env.q_mxu[m] = &c->mxu[m].q;
    return c;
}

void tpu_core_ports_wired(tpu_core *c)
{
    c->env.ports = 0;
    for (unsigned p = 0; p < TPU_NUM_PORTS; p++)
        if (tpu_ici_connected(&c->ici, p))
            c->env.ports |= 1u << p;
}

void tpu_core_destroy(tpu_core *c)
{
    if (!c)
        return;
    tpu_seq_free(&c->seq);
    tpu_vmem_free(&c->vmem);
    tpu_hbm_free(&c->hbm);
    tpu_vpu_free(&c->vpu);
    tpu_xlu_free(&c->xlu);
    for (unsigned m = 0; m < TPU_MAX_MXUS; m++)
        tpu_mxu_free(&c->mxu[m]);
    free(c);
}

void tpu_core_describe(tpu_core *c, const char *reason, char *buf, size_t len)
{
    char insn[96];
    tpu_seq_insn_text(&c->seq, c->seq.pc, insn, sizeof insn);
    snprintf(buf, len, "core %u: cycle %" PRIu64 ": pc %" PRIu64 " (%s): %s", c->id, *c->cycle,
             c->seq.pc, insn, reason);
}

void tpu_core_fail(tpu_core *c, const char *reason)
{
    if (c->error)
        return;
    tpu_core_describe(c, reason, c->errmsg, sizeof c->errmsg);
    c->error = 1;
    if (tpu_ev_wanted(&c->ev, TPU_EV_ERROR)) {
        tpu_event ev = { .kind = TPU_EV_ERROR, .unit = TPU_U_SEQ, .pc = c->seq.pc,
                         .text = c->errmsg };
        tpu_ev_emit(&c->ev, &ev);
    }
}

int tpu_core_load_text(tpu_core *c, const uint64_t *words, size_t n)
{
    if (n > c->seq.imem_words)
        return -1;
    memcpy(c->seq.imem, words, n * sizeof *words);
    tpu_seq_invalidate(&c->seq, 0, n);
    return 0;
}

/* ---- one cycle ------------------------------------------------------------ */

static const unsigned stall_counts[TPU_U_COUNT] = {
    [TPU_U_SEQ] = TPU_SEQ_STALL_COUNT, [TPU_U_DMA] = TPU_DMA_STALL_COUNT,
    [TPU_U_MXU0] = TPU_MXU_STALL_COUNT, [TPU_U_MXU1] = TPU_MXU_STALL_COUNT,
    [TPU_U_MXU2] = TPU_MXU_STALL_COUNT, [TPU_U_MXU3] = TPU_MXU_STALL_COUNT,
    [TPU_U_VPU] = TPU_VPU_STALL_COUNT, [TPU_U_ICI] = TPU_ICI_STALL_COUNT,
    [TPU_U_XLU] = TPU_XLU_STALL_COUNT,
};

/* Count a stall and tell the subscribers. */
static void note_stall(tpu_core *c, enum tpu_unit_id u, int reason, const char *text)
{
    if (reason < 0)
        return;
    c->st.unit[u].stall_cycles++;
    if ((unsigned)reason < stall_counts[u])
        c->st.unit[u].stall_by_reason[reason]++;
    if (tpu_ev_wanted(&c->ev, TPU_EV_STALL)) {
        tpu_event ev = { .kind = TPU_EV_STALL, .unit = u, .index = (uint32_t)reason,
                         .text = text ? text : tpu_stall_reason_name(u, (unsigned)reason) };
        if (u == TPU_U_SEQ)
            ev.pc = c->seq.pc;
        tpu_ev_emit(&c->ev, &ev);
    }
}

/* T7/T26/T29: which units have work, from the registers at the start of t. */
static uint32_t busy_units(const tpu_core *c, uint64_t t)
{
    uint32_t b = 0;
    if (!c->seq.halted)
        b |= 1u << TPU_U_SEQ;
    if (tpu_dma_busy(&c->dma))
        b |= 1u << TPU_U_DMA;
    for (unsigned m = 0; m < c->nmxu; m++)
        if (tpu_mxu_busy(&c->mxu[m], t))
            b |= 1u << (TPU_U_MXU0 + m);
    if (tpu_vpu_busy(&c->vpu, t))
        b |= 1u << TPU_U_VPU;
    if (tpu_ici_busy(&c->ici))
        b |= 1u << TPU_U_ICI;
    if (tpu_xlu_busy(&c->xlu))
        b |= 1u << TPU_U_XLU;
    return b;
}

/* The same set in the `sync` operand's encoding (TPU_UNITS_*), inverted. */
static uint32_t idle_mask(uint32_t busy)
{
    uint32_t idle = TPU_UNITS_ALL;
    for (unsigned m = 0; m < TPU_MAX_MXUS; m++)
        if (busy & (1u << (TPU_U_MXU0 + m)))
            idle &= ~(TPU_UNITS_MXU0 << m);
    if (busy & ((1u << TPU_U_VPU) | (1u << TPU_U_XLU)))   /* `vpu` names the XLU too (T35) */
        idle &= ~TPU_UNITS_VPU;
    if (busy & (1u << TPU_U_DMA))
        idle &= ~TPU_UNITS_DMA;
    if (busy & (1u << TPU_U_ICI))
        idle &= ~TPU_UNITS_ICI;
    return idle;
}

void tpu_core_compute(tpu_core *c)
{
    uint64_t t = *c->cycle;
    if (c->error)
        return;

    uint32_t busy = busy_units(c, t);
    if (busy != c->busy && (c->ev.bus->mask & ((1u << TPU_EV_BUSY) | (1u << TPU_EV_IDLE)))) {
        for (unsigned u = 0; u < TPU_U_COUNT; u++) {
            uint32_t bit = 1u << u;
            if ((busy ^ c->busy) & bit)
                tpu_ev_simple(&c->ev, (busy & bit) ? TPU_EV_BUSY : TPU_EV_IDLE,
                              (enum tpu_unit_id)u, 0, 0);
        }
    }
    c->busy = busy;
    for (unsigned u = TPU_U_DMA; u < TPU_U_COUNT; u++)
        if (busy & (1u << u))
            c->st.unit[u].busy_cycles++;

    tpu_vmem_begin_cycle(&c->vmem);

    /* The sequencer first: it sees only registers (start of the cycle). */
    c->env.t = t;
    c->env.idle = idle_mask(busy);
    c->env.vpu_idle = !(busy & (1u << TPU_U_VPU));
    tpu_seq_step(&c->seq, &c->env);
    if (c->seq.error)           /* the failing instruction stays at pc */
        tpu_core_fail(c, c->seq.errmsg);
    if (c->seq.issued)
        c->st.unit[TPU_U_SEQ].busy_cycles++;
    else if (!c->seq.halted && !c->error)
        note_stall(c, TPU_U_SEQ, c->seq.stall, c->seq.stall_text);
    c->stuck = c->seq.waiting_sem && (busy & ~(1u << TPU_U_SEQ)) == 0;

    /* Then the units in VMEM priority order (section 2). */
    tpu_ici_receive(&c->ici, t);
    for (unsigned m = 0; m < c->nmxu; m++)
        note_stall(c, (enum tpu_unit_id)(TPU_U_MXU0 + m), tpu_mxu_step(&c->mxu[m], t), NULL);
    c->vpu.xlu_mask = tpu_xlu_vmask(&c->xlu);          /* T35, at the start of t */
    note_stall(c, TPU_U_VPU, tpu_vpu_step(&c->vpu, t), NULL);
    note_stall(c, TPU_U_XLU, tpu_xlu_step(&c->xlu, t), NULL);
    note_stall(c, TPU_U_DMA, tpu_dma_step(&c->dma, t), NULL);
    note_stall(c, TPU_U_ICI, tpu_ici_send(&c->ici, t), NULL);
}

void tpu_core_commit(tpu_core *c)
{
    uint64_t t = *c->cycle;
    tpu_vmem_commit(&c->vmem, &c->ev);
    tpu_hbm_commit(&c->hbm, &c->ev);
    tpu_vpu_commit(&c->vpu, t);
    tpu_xlu_commit(&c->xlu, t);

    tpu_seq_commit(&c->seq, &c->sems);              /* T4, T6, T9 */
    if (c->seq.halted && !c->halted) {              /* T8 */
        c->halted = 1;
        c->halt_cycle = t;
        tpu_ev_simple(&c->ev, TPU_EV_HALT, TPU_U_SEQ, c->seq.pc, 0);
    }

    int oom = c->vmem.log.oom || c->hbm.log.oom || c->hbm.oom;
    for (unsigned m = 0; m < c->nmxu; m++)
        oom |= c->mxu[m].oom;
    for (unsigned p = 0; p < TPU_NUM_PORTS; p++)
        oom |= c->ici.port[p].out && c->ici.port[p].out->oom;
    if (oom)
        tpu_core_fail(c, "out of host memory");
}

/* ---- backdoor --------------------------------------------------------------- */

int tpu_mem_read(tpu_core *c, enum tpu_space space, uint64_t addr, void *dst, size_t n)
{
    switch (space) {
    case TPU_SPACE_VMEM: return tpu_vmem_peek(&c->vmem, addr, dst, n);
    case TPU_SPACE_HBM:  return tpu_hbm_peek(&c->hbm, addr, dst, n);
    case TPU_SPACE_IMEM:  /* bytes of the little-endian instruction words */
        if (!tpu_range_ok(addr, n, c->seq.imem_words * 8))
            return -1;
        memcpy(dst, (const uint8_t *)c->seq.imem + addr, n);
        return 0;
    default:
        return -1;
    }
}

int tpu_mem_write(tpu_core *c, enum tpu_space space, uint64_t addr, const void *src, size_t n)
{
    switch (space) {
    case TPU_SPACE_VMEM: return tpu_vmem_poke(&c->vmem, addr, src, n);
    case TPU_SPACE_HBM:  return tpu_hbm_poke(&c->hbm, addr, src, n);
    case TPU_SPACE_IMEM:
        if (!tpu_range_ok(addr, n, c->seq.imem_words * 8))
            return -1;
        memcpy((uint8_t *)c->seq.imem + addr, src, n);
        if (n)
            tpu_seq_invalidate(&c->seq, addr / 8, (addr + n + 7) / 8 - addr / 8);
        return 0;
    default:
        return -1;
    }
}

uint64_t tpu_mem_hbm_page_bytes(void)
{
    return TPU_HBM_PAGE;
}

uint8_t *tpu_mem_ptr(tpu_core *c, enum tpu_space space, uint64_t addr, uint64_t *base,
                     uint64_t *len)
{
    switch (space) {
    case TPU_SPACE_IMEM:
        if (addr >= c->seq.imem_words * 8)
            return NULL;
        *base = 0;
        *len = c->seq.imem_words * 8;
        return (uint8_t *)c->seq.imem;
    case TPU_SPACE_VMEM:
        if (addr >= c->vmem.size)
            return NULL;
        *base = 0;
        *len = c->vmem.size;
        return c->vmem.mem;
    case TPU_SPACE_HBM: {
        uint8_t *p = addr < c->hbm.size ? tpu_hbm_page_at(&c->hbm, addr) : NULL;
        if (!p)
            return NULL;
        *base = addr & ~(TPU_HBM_PAGE - 1);
        *len = c->hbm.size - *base < TPU_HBM_PAGE ? c->hbm.size - *base : TPU_HBM_PAGE;
        return p;
    }
    default:
        return NULL;
    }
}

uint64_t tpu_mem_hbm_next_page(const tpu_core *c, uint64_t from)
{
    return tpu_hbm_next_page(&c->hbm, from);
}

/* ---- views ---------------------------------------------------------------------- */

void tpu_core_seq_view(const tpu_core *c, tpu_seq_view *v)
{
    v->pc = c->seq.pc;
    memcpy(v->sreg, c->seq.sreg, sizeof v->sreg);
    memcpy(v->sem, c->seq.sem, sizeof v->sem);
    v->halted = c->seq.halted;
    v->stall = c->seq.stall >= 0 && !c->seq.halted ? c->seq.stall_text : NULL;
}

int tpu_core_mxu_cell(const tpu_core *c, unsigned mxu, unsigned k, unsigned col,
                      tpu_cell_view *v)
{
    if (mxu >= c->nmxu || k >= c->cfg->mxu_n || col >= c->cfg->mxu_n)
        return -1;
    uint64_t now = *c->cycle;
    if (now == 0) {             /* nothing computed yet: registers after reset */
        memset(v, 0, sizeof *v);
        return 0;
    }
    tpu_mxu_cell_view(&c->mxu[mxu], now - 1, k, col, v);
    return 0;
}

int tpu_core_vreg(const tpu_core *c, unsigned r, uint32_t *dst)
{
    if (r >= TPU_NUM_VREGS)
        return -1;
    memcpy(dst, c->vpu.regs + (size_t)r * c->vpu.elems, (size_t)c->vpu.elems * 4);
    return 0;
}

/* ---- statistics ------------------------------------------------------------------ */

const char *tpu_unit_id_name(enum tpu_unit_id u)
{
    static const char *names[TPU_U_COUNT] = { "seq", "dma", "mxu0", "mxu1", "mxu2", "mxu3",
                                              "vpu", "ici", "xlu" };
    return (unsigned)u < TPU_U_COUNT ? names[u] : "?";
}

const char *tpu_stall_reason_name(enum tpu_unit_id u, unsigned i)
{
    static const char *seq[] = { "queue full", "sem.wait", "sync", "halt", "vpu busy" };
    static const char *dma[] = { "no idle engine", "vmem busy" };
    static const char *mxu[] = { "loads in flight", "stream busy" };
    static const char *vpu[] = { "vreg hazard", "vmem busy" };
    static const char *ici[] = { "link busy", "vmem busy" };
    static const char *xlu[] = { "unit busy" };
    switch (u) {
    case TPU_U_SEQ: return i < TPU_SEQ_STALL_COUNT ? seq[i] : NULL;
    case TPU_U_DMA: return i < TPU_DMA_STALL_COUNT ? dma[i] : NULL;
    case TPU_U_MXU0: case TPU_U_MXU1: case TPU_U_MXU2: case TPU_U_MXU3:
        return i < TPU_MXU_STALL_COUNT ? mxu[i] : NULL;
    case TPU_U_VPU: return i < TPU_VPU_STALL_COUNT ? vpu[i] : NULL;
    case TPU_U_ICI: return i < TPU_ICI_STALL_COUNT ? ici[i] : NULL;
    case TPU_U_XLU: return i < TPU_XLU_STALL_COUNT ? xlu[i] : NULL;
    default: return NULL;
    }
}

void tpu_core_stats(const tpu_core *c, tpu_stats *st)
{
    *st = c->st;
    st->cycles = c->halted ? c->halt_cycle + 1 : *c->cycle;
    st->instructions = c->seq.instructions;
    uint64_t rows = 0, rows_i8 = 0;
    for (unsigned m = 0; m < c->nmxu; m++) {
        rows += c->mxu[m].rows_streamed;
        rows_i8 += c->mxu[m].rows_i8;
    }
    uint64_t nn = c->cfg->mxu_n * c->cfg->mxu_n;
    st->int8_macs = 2 * rows_i8 * nn;
    st->macs = (rows - rows_i8) * nn + st->int8_macs;
    st->vpu_flops = c->vpu.flops;
    st->flops = 2 * st->macs + st->vpu_flops;
    st->hbm_read_bytes = c->dma.hbm_read_bytes;
    st->hbm_write_bytes = c->dma.hbm_write_bytes;
    st->vmem_read_bytes = c->vmem.read_bytes;
    st->vmem_write_bytes = c->vmem.write_bytes;
    st->ici_bytes = c->ici.bytes_sent;
    for (unsigned p = 0; p < TPU_NUM_PORTS && p < 6; p++)
        st->ici_port_bytes[p] = c->ici.port_bytes[p];
}
