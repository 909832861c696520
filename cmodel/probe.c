/*
 * probe.c - read one core's unit registers for the timeline and the VCD
 * (probe.h).  Inside the model, so that nothing outside cmodel/ needs core.h.
 */
#include "probe.h"

#include <string.h>

#include "core.h"

void tpu_probe_core(const tpu_core *c, uint64_t cycle, tpu_probe *p)
{
    memset(p, 0, sizeof *p);
    p->pc = c->seq.pc;
    p->word = c->seq.pc < c->seq.imem_words ? c->seq.imem[c->seq.pc] : 0;
    p->halted = (uint8_t)(c->seq.halted != 0);
    p->stuck = (uint8_t)(c->stuck != 0);
    p->error = (uint8_t)(c->error != 0);
    memcpy(p->sem, c->seq.sem, sizeof p->sem);

    p->q_dma = c->dma.q.count;
    p->ndma = c->dma.nengines < TPU_PROBE_MAX_DMA ? c->dma.nengines : TPU_PROBE_MAX_DMA;
    for (unsigned e = 0; e < p->ndma; e++) {
        const tpu_dma_engine *d = &c->dma.eng[e];
        tpu_probe_dma *o = &p->dma[e];
        o->state = d->state == TPU_DMA_WAIT ? TPU_PROBE_DMA_WAIT
                 : d->state == TPU_DMA_XFER ? TPU_PROBE_DMA_XFER : TPU_PROBE_DMA_IDLE;
        o->to_vmem = d->to_vmem;
        o->xfer_at = d->xfer_at;
        o->left = o->state == TPU_PROBE_DMA_IDLE ? 0 : d->left;
        o->total = d->total;
        o->pc = d->pc;
        o->word = d->word;
    }
    if (c->dma.norder)
        p->unit_busy |= 1u << 5;

    p->nmxu = c->nmxu;
    for (unsigned m = 0; m < c->nmxu && m < 4; m++) {
        const tpu_mxu *x = &c->mxu[m];
        tpu_probe_mxu *o = &p->mxu[m];
        p->q_mxu[m] = x->q.count;
        o->busy = (uint8_t)(cycle < x->busy_end);
        o->lw_reading = tpu_mxu_lw_reading(x, cycle);
        o->streaming = (uint8_t)(x->streaming != 0);
        o->pending = (uint8_t)(x->pending != 0);
        /* rows read so far: cycles s .. cycle-1 */
        o->rows_left = x->streaming && cycle >= x->s && x->m > cycle - x->s ? x->m - (cycle - x->s)
                                                                             : 0;
        o->rows_streamed = x->rows_streamed;
        if (o->busy)
            p->unit_busy |= (uint8_t)(1u << m);
    }

    p->q_vpu = c->vpu.q.count;
    p->vpu_busy = (uint8_t)(cycle < c->vpu.busy_end);
    p->vpu_ops = c->vpu.ops;
    if (p->vpu_busy)
        p->unit_busy |= 1u << 4;

    p->q_xlu = c->xlu.q.count;
    p->xlu_busy = (uint8_t)c->xlu.running;

    p->q_ici = c->ici.q.count;
    for (unsigned k = 0; k < TPU_NUM_PORTS; k++) {
        const tpu_ici_port *x = &c->ici.port[k];
        tpu_probe_port *o = &p->port[k];
        o->connected = (uint8_t)(x->out != NULL);
        o->sending = (uint8_t)(x->sending != 0);
        o->bytes = x->bytes;
        o->sent = x->sent;
        o->pc = x->pc;
        o->word = x->word;
        if (o->sending)
            p->ici_sending |= (uint8_t)(1u << k);
    }
    if (c->ici.nsending)
        p->unit_busy |= 1u << 6;
}
