// hbm_sparse.h - the bench's side of the sparse HBM store (sim/rtl/hbm_sparse.cpp,
// rtl/hbm_mem.v with Sparse = 1; docs/rtl.md, "Large arrays").
#ifndef TPU_HBM_SPARSE_H
#define TPU_HBM_SPARSE_H

#include <cstdint>
#include <vector>

// HBM above this many bytes is sparse (rtl/core.v's HbmSparse).
constexpr uint64_t kHbmSparseAbove = 1ull << 30;

// Appends the address of every page any store holds (every core's): the
// pages some DMA or backdoor write of a nonzero byte reached.
void tpu_hbm_sparse_pages(std::vector<uint64_t> &out);
// Bytes per page.
uint64_t tpu_hbm_sparse_page_bytes();

#endif
