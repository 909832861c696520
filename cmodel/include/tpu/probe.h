/*
 * probe.h - a read-only snapshot of one core's unit registers, for the
 * timeline (timeline.c) and the waveform writer (vcd.c).
 *
 * Part of the model's public API (with tpu.h): tpu.h's views cover the
 * sequencer, the MXU cells and the vector registers; the timeline and the
 * VCD also need the DMA engines' states, the queue counts, the MXU stream
 * and load registers and the ICI ports.  probe.c reads them from the
 * units' structs (core.h), inside the model, without changing anything,
 * so no file outside cmodel/ includes core.h.  Field names follow the
 * RTL's registers (docs/rtl.md, the files in rtl/) so the VCD can use
 * them as they are.
 */
#ifndef TPU_PROBE_H
#define TPU_PROBE_H

#include <stdint.h>

#include "tpu.h"

#define TPU_PROBE_MAX_DMA 16

/* DMA engine states, as rtl/dma.v encodes them. */
enum { TPU_PROBE_DMA_IDLE = 0, TPU_PROBE_DMA_WAIT = 1, TPU_PROBE_DMA_XFER = 2 };

typedef struct tpu_probe_dma {
    uint8_t  state;         /* TPU_PROBE_DMA_*: state_q */
    uint8_t  to_vmem;       /* dma.h2v (else dma.v2h) */
    uint64_t xfer_at;       /* first cycle of XFER (start + hbm_latency) */
    uint64_t left, total;   /* left_q: bytes still to move; bytes in all */
    uint64_t pc, word;      /* the instruction it runs */
} tpu_probe_dma;

typedef struct tpu_probe_mxu {
    uint8_t  busy;          /* busy_o: a weight or a stream row in flight (not the queue) */
    uint64_t lw_reading;    /* lw_reading_q: bit j, load slot j reads a weight row (j < 64) */
    uint8_t  streaming;     /* streaming_q */
    uint8_t  pending;       /* pending_q: weights loaded, not yet swapped in */
    uint64_t rows_left;     /* s_left_q: rows of the stream still to read */
    uint64_t rows_streamed; /* statistics: LHS rows read so far */
} tpu_probe_mxu;

typedef struct tpu_probe_port {
    uint8_t  connected, sending;
    uint64_t bytes, sent;   /* the transfer being sent */
    uint64_t pc, word;
} tpu_probe_port;

/* The registers at the start of the cycle tpu_system_cycle() (that is,
 * after the last step). */
typedef struct tpu_probe {
    uint64_t pc;            /* pc_q */
    uint64_t word;          /* the IMEM word at pc (0 past the end): tr_word_o */
    uint8_t  halted;
    uint8_t  stuck;         /* the last computed cycle: sem.wait with every unit idle (stuck_o) */
    uint8_t  error;         /* the core has stopped on a run-time error */
    uint8_t  unit_busy;     /* core.v's unit_busy: bit m MXU m, 4 VPU, 5 DMA, 6 ICI */
    uint32_t sem[32];
    unsigned q_dma, q_ici, q_vpu, q_mxu[4], q_xlu;   /* queue counts (count_q) */
    unsigned ndma;
    tpu_probe_dma dma[TPU_PROBE_MAX_DMA];
    unsigned nmxu;
    tpu_probe_mxu mxu[4];
    uint8_t  vpu_busy;      /* a result on its way (not the queue) */
    uint64_t vpu_ops;       /* VPU instructions issued so far */
    uint8_t  xlu_busy;      /* the XLU runs an instruction (run_q, not the queue) */
    uint8_t  ici_sending;   /* sending_q: bit per port */
    tpu_probe_port port[6];       /* TPU_NUM_PORTS */
} tpu_probe;

/* Fill *p from core c of a system whose clock reads `cycle`. */
void tpu_probe_core(const tpu_core *c, uint64_t cycle, tpu_probe *p);

#endif /* TPU_PROBE_H */
