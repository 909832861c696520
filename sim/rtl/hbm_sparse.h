// hbm_sparse.h - the bench's side of the sparse HBM store (sim/rtl/hbm_sparse.cpp,
// rtl/hbm_mem.v with Sparse = 1; docs/rtl.md, "Large arrays").
#ifndef TPU_HBM_SPARSE_H
#define TPU_HBM_SPARSE_H

#include <cstddef>
#include <cstdint>
#include <vector>

// HBM above this many bytes is sparse (rtl/core.v's HbmSparse).
constexpr uint64_t kHbmSparseAbove = 1ull << 30;

// Appends the address of every page any store holds (every core's): the
// pages some DMA or backdoor write of a nonzero byte reached.
void tpu_hbm_sparse_pages(std::vector<uint64_t> &out);
// Bytes per page.
uint64_t tpu_hbm_sparse_page_bytes();
// Stores made so far (one per core, in the order their initial blocks ran),
// and n bytes of store i read or written directly: the bench's load and
// final comparison, without a clock edge per 64 bytes of the backdoor port.
size_t tpu_hbm_sparse_count();
// The scope of the hbm_mem instance that made store i: which core's it is.
const char *tpu_hbm_sparse_scope(size_t i);
void tpu_hbm_sparse_read(size_t i, uint64_t addr, uint8_t *dst, size_t n);
void tpu_hbm_sparse_write(size_t i, uint64_t addr, const uint8_t *src, size_t n);

#endif
