// dpi_vec.h - what the C++ stores behind rtl/hbm_mem.v's sparse HBM
// (hbm_sparse.cpp) and rtl/vmem.v's Dpi branch (vmem_dpi.cpp) share: reading
// DPI packed vectors (svBitVecVal: bit i in word i/32), as they take a class
// of ports as packed addresses, enables and data; and the list of a kind's
// stores with the scope of each.  Simulation only.
#ifndef TPU_DPI_VEC_H
#define TPU_DPI_VEC_H

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

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

// The stores of one kind, one per instance in the order their initial
// blocks made them, and the scope of the instance that made each (its
// core's: the bench finds a core's store by it).
template <typename Store>
struct Registry {
    std::vector<std::unique_ptr<Store>> stores;
    std::vector<std::string> scopes;

    // s kept, with the scope of the DPI call that made it.
    Store *add(Store *s)
    {
        stores.emplace_back(s);
        svScope sc = svGetScope();
        const char *name = sc ? svGetNameFromScope(sc) : nullptr;
        scopes.push_back(name ? name : "");
        return s;
    }
};

}  // namespace tpu_dpi

#endif
