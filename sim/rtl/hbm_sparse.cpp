// hbm_sparse.cpp - the sparse HBM store behind rtl/hbm_mem.v (Sparse = 1:
// HBM above 1 GiB, docs/rtl.md "Large arrays").  Simulation only.
//
// A store per hbm_mem instance (one per core), made by the instance's
// initial block.  Bytes live in 64 KiB pages allocated on the first write
// (of any value); a byte never written reads 0, as in the C model's HBM
// (cmodel/hbm.c) and the dense array.  rtl/hbm_mem.v calls the functions
// below from its read logic (every DMA byte port, every cycle) and its
// clocked block (the writes of the edge, in port order).  The bench
// compares HBM at the end only on the pages either side wrote
// (tpu_hbm_sparse_pages, sim/rtl/rtl_bench.cpp).
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <unordered_map>
#include <vector>

#include "hbm_sparse.h"

namespace {

constexpr unsigned kPageBits = 16;
constexpr uint64_t kPage = 1ull << kPageBits;

struct Store {
    uint64_t bytes;
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

std::vector<std::unique_ptr<Store>> &stores()
{
    static std::vector<std::unique_ptr<Store>> s;
    return s;
}

}  // namespace

extern "C" void *tpu_hbm_sparse_new(unsigned long long bytes)
{
    stores().emplace_back(new Store{bytes, {}, UINT64_MAX, nullptr});
    return stores().back().get();
}

extern "C" unsigned char tpu_hbm_sparse_rd(void *h, unsigned long long addr, unsigned int wseq)
{
    (void)wseq;     // only there to order the reads after the writes (hbm_mem.v)
    Store *s = static_cast<Store *>(h);
    if (!s)
        return 0;
    const uint8_t *p = s->page(addr >> kPageBits);
    return p ? p[addr & (kPage - 1)] : 0;
}

extern "C" void tpu_hbm_sparse_wr(void *h, unsigned long long addr, unsigned char data)
{
    Store *s = static_cast<Store *>(h);
    if (!s || addr >= s->bytes)
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

void tpu_hbm_sparse_pages(std::vector<uint64_t> &out)
{
    for (const auto &s : stores())
        for (const auto &kv : s->pages)
            out.push_back(kv.first << kPageBits);
}

uint64_t tpu_hbm_sparse_page_bytes()
{
    return kPage;
}

size_t tpu_hbm_sparse_count()
{
    return stores().size();
}

void tpu_hbm_sparse_read(size_t i, uint64_t addr, uint8_t *dst, size_t n)
{
    Store *s = stores()[i].get();
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
    void *h = stores()[i].get();
    for (size_t j = 0; j < n; j++)
        tpu_hbm_sparse_wr(h, addr + j, src[j]);
}
