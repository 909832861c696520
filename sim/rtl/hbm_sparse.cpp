// hbm_sparse.cpp - the sparse HBM store behind rtl/hbm_mem.v (Sparse = 1:
// HBM above 1 GiB, docs/rtl.md "Large arrays").  Simulation only.
//
// A store per hbm_mem instance (one per core), made by the instance's
// initial block.  Bytes live in 64 KiB pages allocated on the first write
// (of any value); a byte never written reads 0, as in the C model's HBM
// (cmodel/hbm.c) and the dense array.  rtl/hbm_mem.v calls one function per
// class of ports (the backdoor, the DMA's byte ports) with the class's
// packed vectors, from its read logic and its clocked block (the writes of
// the edge: backdoor, then the ports in port order); addresses wrap at the
// memory's AW bits, as the array's index.  The bench compares HBM at the
// end only on the pages either side wrote (tpu_hbm_sparse_pages,
// sim/rtl/rtl_bench.cpp).
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <unordered_map>
#include <vector>

#include "hbm_sparse.h"
#include "dpi_vec.h"
#include "svdpi.h"

namespace {

using tpu_dpi::bit;
using tpu_dpi::byte_of;
using tpu_dpi::field;

constexpr unsigned kPageBits = 16;
constexpr uint64_t kPage = 1ull << kPageBits;

struct Store {
    uint64_t bytes;
    uint64_t mask;                  // 2^aw - 1
    unsigned aw;
    std::unordered_map<uint64_t, std::unique_ptr<uint8_t[]>> pages;
    // The last page looked up: a DMA engine's bytes of a cycle are
    // consecutive, so most reads hit it.
    uint64_t last_no = UINT64_MAX;
    uint8_t *last = nullptr;

    uint8_t *page(uint64_t no)
    {
        if (no == last_no)
            return last;
        auto it = pages.find(no);
        if (it == pages.end())
            return nullptr;
        last_no = no;
        last = it->second.get();
        return last;
    }
};

// The store of each hbm_mem instance (one per core), with its scope.
tpu_dpi::Registry<Store> &registry()
{
    static tpu_dpi::Registry<Store> r;
    return r;
}

// The byte at addr, 0 where no page is.
uint8_t rd(Store *s, uint64_t addr)
{
    const uint8_t *p = s->page(addr >> kPageBits);
    return p ? p[addr & (kPage - 1)] : 0;
}

// The byte at addr written (nothing past the end).
void wr(Store *s, uint64_t addr, uint8_t data)
{
    if (addr >= s->bytes)
        return;
    uint64_t no = addr >> kPageBits;
    uint8_t *p = s->page(no);
    if (!p) {
        if (data == 0)
            return;     // a page of zeros reads the same without it
        std::unique_ptr<uint8_t[]> fresh(new uint8_t[kPage]());
        p = fresh.get();
        s->pages.emplace(no, std::move(fresh));
        s->last_no = no;
        s->last = p;
    }
    p[addr & (kPage - 1)] = data;
}

}  // namespace

extern "C" {

void *tpu_hbm_sparse_new(unsigned long long bytes, unsigned int aw)
{
    uint64_t mask = aw >= 64 ? ~0ull : (1ull << aw) - 1;
    return registry().add(new Store{bytes, mask, aw, {}, UINT64_MAX, nullptr});
}

// The 64 bytes at addr (wrapping at aw bits) into data; wseq only orders
// the call after the writes of the edge (hbm_mem.v).
void tpu_hbm_sparse_rd_bd(void *h, unsigned int wseq, const svBitVecVal *addr, svBitVecVal *data)
{
    (void)wseq;
    memset(data, 0, 64);
    Store *s = static_cast<Store *>(h);
    if (!s)
        return;
    uint64_t a = field(addr, 0, s->aw);
    for (unsigned i = 0; i < 64; i++)
        data[i / 4] |= (svBitVecVal)rd(s, (a + i) & s->mask) << (8 * (i % 4));
}

// Byte p of data from the address in field p of addr, for ports p.
void tpu_hbm_sparse_rd_dma(void *h, unsigned int wseq, unsigned int ports, const svBitVecVal *addr,
                           svBitVecVal *data)
{
    (void)wseq;
    memset(data, 0, (size_t)((ports + 3) / 4) * sizeof(svBitVecVal));
    Store *s = static_cast<Store *>(h);
    if (!s)
        return;
    for (unsigned p = 0; p < ports; p++)
        data[p / 4] |= (svBitVecVal)rd(s, field(addr, (uint64_t)p * s->aw, s->aw)) << (8 * (p % 4));
}

// The backdoor's bytes whose strobe bit is set, at addr + i (wrapping).
void tpu_hbm_sparse_wr_bd(void *h, const svBitVecVal *addr, const svBitVecVal *strb,
                          const svBitVecVal *data)
{
    Store *s = static_cast<Store *>(h);
    if (!s)
        return;
    uint64_t a = field(addr, 0, s->aw);
    for (unsigned i = 0; i < 64; i++)
        if (bit(strb, i))
            wr(s, (a + i) & s->mask, byte_of(data, i));
}

// Byte p of data at the address in field p of addr, for each port p whose
// enable is set, in port order (the later port wins).
void tpu_hbm_sparse_wr_dma(void *h, unsigned int ports, const svBitVecVal *we,
                           const svBitVecVal *addr, const svBitVecVal *data)
{
    Store *s = static_cast<Store *>(h);
    if (!s)
        return;
    for (unsigned p = 0; p < ports; p++)
        if (bit(we, p))
            wr(s, field(addr, (uint64_t)p * s->aw, s->aw), byte_of(data, p));
}

}  // extern "C"

void tpu_hbm_sparse_pages(std::vector<uint64_t> &out)
{
    for (const auto &s : registry().stores)
        for (const auto &kv : s->pages)
            out.push_back(kv.first << kPageBits);
}

uint64_t tpu_hbm_sparse_page_bytes()
{
    return kPage;
}

size_t tpu_hbm_sparse_count()
{
    return registry().stores.size();
}

const char *tpu_hbm_sparse_scope(size_t i)
{
    return registry().scopes[i].c_str();
}

void tpu_hbm_sparse_read(size_t i, uint64_t addr, uint8_t *dst, size_t n)
{
    Store *s = registry().stores[i].get();
    while (n) {
        uint64_t in = addr & (kPage - 1);
        size_t m = (size_t)std::min<uint64_t>(n, kPage - in);
        const uint8_t *p = s->page(addr >> kPageBits);
        if (p)
            memcpy(dst, p + in, m);
        else
            memset(dst, 0, m);
        dst += m;
        addr += m;
        n -= m;
    }
}

void tpu_hbm_sparse_write(size_t i, uint64_t addr, const uint8_t *src, size_t n)
{
    Store *s = registry().stores[i].get();
    for (size_t j = 0; j < n; j++)
        wr(s, addr + j, src[j]);
}
