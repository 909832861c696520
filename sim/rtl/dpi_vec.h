// dpi_vec.h - reading DPI packed vectors (svBitVecVal: bit i in word i/32)
// for the C++ stores behind rtl/hbm_mem.v's sparse HBM (hbm_sparse.cpp) and
// rtl/vmem.v's Dpi branch (vmem_dpi.cpp), which take a class of ports as
// packed addresses, enables and data.  Simulation only.
#ifndef TPU_DPI_VEC_H
#define TPU_DPI_VEC_H

#include <cstdint>

#include "svdpi.h"

namespace tpu_dpi {

// Bits [lsb, lsb + w) of v (w at most 64).
inline uint64_t field(const svBitVecVal *v, uint64_t lsb, unsigned w)
{
    uint64_t x = 0;
    for (unsigned got = 0; got < w;) {
        uint64_t b = lsb + got;
        unsigned sh = (unsigned)(b % 32);
        unsigned n = 32 - sh;
        if (n > w - got)
            n = w - got;
        uint64_t bits = (uint64_t)(v[b / 32] >> sh) & ((1ull << n) - 1);
        x |= bits << got;
        got += n;
    }
    return x;
}

// Bit i of v.
inline bool bit(const svBitVecVal *v, uint64_t i)
{
    return (v[i / 32] >> (i % 32)) & 1u;
}

// Byte k of v (bits [8k +: 8]).
inline uint8_t byte_of(const svBitVecVal *v, uint64_t k)
{
    return (uint8_t)(v[k / 4] >> (8 * (k % 4)));
}

}  // namespace tpu_dpi

#endif
