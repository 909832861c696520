/*
 * tpu_sc_mem.h - what the SystemC wrapper needs from the C model beyond
 * cmodel/tpu.h: raw pointers into a core's memories, for TLM DMI.
 *
 * tpu.h gives copies only (tpu_mem_read/tpu_mem_write).  DMI hands an
 * initiator a pointer that it reads and writes without calling the model,
 * so these calls reach inside the core (cmodel/core.h).  They are kept in
 * this one small C file so that a change inside the model breaks one place.
 * Everything here is plain C, compiled as C (sim/systemc/systemc.mk).
 */
#ifndef TPU_SC_MEM_H
#define TPU_SC_MEM_H

#include <stddef.h>
#include <stdint.h>

#include "tpu.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The size of the lazily allocated HBM pages (cmodel/hbm.h). */
uint64_t tpu_sc_hbm_page_bytes(void);

/* A pointer to byte `addr` of `space` and the number of bytes that may be
 * accessed from it in place (*len), or NULL when the memory is not one
 * array there:
 *   IMEM  the whole instruction memory (words little-endian); the caller
 *         must not write through it (the decode cache would not see it);
 *   VMEM  the whole VMEM;
 *   HBM   the 64 KiB page holding addr if it has been allocated, else NULL.
 * *base is the address of the first byte the pointer range covers. */
uint8_t *tpu_sc_mem_ptr(tpu_core *c, enum tpu_space space, uint64_t addr, uint64_t *base,
                        uint64_t *len);

/* The address of the first allocated HBM page at or after `from`, or
 * UINT64_MAX when there is none (copying a core's HBM costs what it uses). */
uint64_t tpu_sc_hbm_next_page(const tpu_core *c, uint64_t from);

#ifdef __cplusplus
}
#endif

#endif /* TPU_SC_MEM_H */
