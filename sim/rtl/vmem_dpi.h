// vmem_dpi.h - the bench's side of the VMEM store (sim/rtl/vmem_dpi.cpp,
// rtl/vmem.v with Dpi = 1; docs/rtl.md, "Large arrays").
#ifndef TPU_VMEM_DPI_H
#define TPU_VMEM_DPI_H

#include <cstddef>
#include <cstdint>

// Stores made so far (one per core whose VMEM is the DPI store, in the
// order their initial blocks ran), and n bytes of store i read or written
// directly: the bench's load and final comparison, without a clock edge per
// 64 bytes of the backdoor port.  Bytes past the store's size read 0 and
// are not written.
size_t tpu_vmem_dpi_count();
// The scope of the vmem instance that made store i ("TOP.core.u_vmem.g_dpi",
// "TOP.system.g_core[1].u_core.u_vmem.g_dpi"): which core's it is.
const char *tpu_vmem_dpi_scope(size_t i);
void tpu_vmem_dpi_read(size_t i, uint64_t addr, uint8_t *dst, size_t n);
void tpu_vmem_dpi_write(size_t i, uint64_t addr, const uint8_t *src, size_t n);

#endif
