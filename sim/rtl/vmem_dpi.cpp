// vmem_dpi.cpp - the VMEM store behind rtl/vmem.v with Dpi = 1 (core.v's
// VmemDpi: VMEM above 16 MiB or more than 4096 bytes written per cycle, or
// +define+TPU_VMEM_DPI; docs/rtl.md "Large arrays").  Simulation only.
//
// A store per vmem instance (one per core), made by the instance's initial
// block: Bytes bytes, all zero, as the array.  rtl/vmem.v calls one read
// function per class of read ports from its combinational logic and one
// write function per class of write ports from its clocked block, in the
// array's order (backdoor, incoming ICI, MXUs, VPU, DMA), each with the
// class's packed vectors: C++ loops over the bytes, so Verilator sees
// O(ports) code instead of a statement per byte.  Addresses wrap at the
// store's AW bits, as the array's index; a byte past Bytes (a VMEM that is
// not a power of two) is not written and reads 0.  The bench loads and
// compares VMEM through tpu_vmem_dpi_read / _write (vmem_dpi.h).
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "dpi_vec.h"
#include "svdpi.h"
#include "vmem_dpi.h"

namespace {

using tpu_dpi::bit;
using tpu_dpi::byte_of;
using tpu_dpi::field;

struct Store {
    uint64_t bytes;
    unsigned aw;
    uint64_t mask;                  // 2^aw - 1
    std::vector<uint8_t> mem;

    // byte i of the row at a (a + i wrapping at aw bits), 0 past the end
    uint8_t rd(uint64_t a, unsigned i) const
    {
        uint64_t x = (a + i) & mask;
        return x < bytes ? mem[x] : 0;
    }
    void wr(uint64_t a, unsigned i, uint8_t v)
    {
        uint64_t x = (a + i) & mask;
        if (x < bytes)
            mem[x] = v;
    }
};

// The store of each vmem instance (one per core), with its scope.
tpu_dpi::Registry<Store> &registry()
{
    static tpu_dpi::Registry<Store> r;
    return r;
}

// rows x bytes read: row r at address field r, its byte i to data byte
// r*bytes + i (bits [8k +: 8]: on a little-endian host, byte k of the words
// as they lie in memory).
void read_rows(void *h, unsigned rows, unsigned bytes, const svBitVecVal *addr, svBitVecVal *data)
{
    uint64_t n = (uint64_t)rows * bytes;
    memset(data, 0, (size_t)((n + 3) / 4) * sizeof(svBitVecVal));
    const Store *s = static_cast<const Store *>(h);
    if (!s)
        return;
    for (unsigned r = 0; r < rows; r++) {
        uint64_t a = field(addr, (uint64_t)r * s->aw, s->aw);
        uint64_t k = (uint64_t)r * bytes;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
        if (a + bytes <= s->bytes) {    // in range, so no wrap (bytes <= 2^aw)
            memcpy(reinterpret_cast<uint8_t *>(data) + k, &s->mem[a], bytes);
            continue;
        }
#endif
        for (unsigned i = 0; i < bytes; i++)
            data[(k + i) / 4] |= (svBitVecVal)s->rd(a, i) << (8 * ((k + i) % 4));
    }
}

// rows x bytes written, in row order: row r when we bit r is set, its
// first len(r) bytes (at most bytes).
template <typename Len>
void write_rows(void *h, unsigned rows, unsigned bytes, const svBitVecVal *we,
                const svBitVecVal *addr, const svBitVecVal *data, Len len)
{
    Store *s = static_cast<Store *>(h);
    if (!s)
        return;
    for (unsigned r = 0; r < rows; r++) {
        if (!bit(we, r))
            continue;
        uint64_t a = field(addr, (uint64_t)r * s->aw, s->aw);
        uint64_t n = len(r);
        if (n > bytes)
            n = bytes;
        for (unsigned i = 0; i < n; i++)
            s->wr(a, i, byte_of(data, (uint64_t)r * bytes + i));
    }
}

}  // namespace

extern "C" {

void *tpu_vmem_dpi_new(unsigned long long bytes, unsigned int aw)
{
    Store *s = new Store;
    s->bytes = bytes;
    s->aw = aw;
    s->mask = aw >= 64 ? ~0ull : (1ull << aw) - 1;
    s->mem.assign((size_t)bytes, 0);
    return registry().add(s);
}

// One C name per class of read ports (vmem.v imports each with its own
// vector widths); the wseq argument only orders the call after the writes
// of the edge (vmem.v).
#define TPU_VMEM_DPI_READ(NAME)                                                            \
    void NAME(void *h, unsigned int wseq, unsigned int rows, unsigned int bytes,          \
              const svBitVecVal *addr, svBitVecVal *data)                                  \
    {                                                                                      \
        (void)wseq;                                                                        \
        read_rows(h, rows, bytes, addr, data);                                             \
    }
TPU_VMEM_DPI_READ(tpu_vmem_dpi_rd_bd)
TPU_VMEM_DPI_READ(tpu_vmem_dpi_rd_x)
TPU_VMEM_DPI_READ(tpu_vmem_dpi_rd_w)
TPU_VMEM_DPI_READ(tpu_vmem_dpi_rd_acc)
TPU_VMEM_DPI_READ(tpu_vmem_dpi_rd_vpu)
TPU_VMEM_DPI_READ(tpu_vmem_dpi_rd_dma)
TPU_VMEM_DPI_READ(tpu_vmem_dpi_rd_ici)
#undef TPU_VMEM_DPI_READ

void tpu_vmem_dpi_wr_bd(void *h, const svBitVecVal *addr, const svBitVecVal *strb,
                        const svBitVecVal *data)
{
    Store *s = static_cast<Store *>(h);
    if (!s)
        return;
    uint64_t a = field(addr, 0, s->aw);
    for (unsigned i = 0; i < 64; i++)
        if (bit(strb, i))
            s->wr(a, i, byte_of(data, i));
}

void tpu_vmem_dpi_wr_ici(void *h, unsigned int rows, unsigned int bytes, const svBitVecVal *we,
                         const svBitVecVal *addr, const svBitVecVal *len, const svBitVecVal *data)
{
    write_rows(h, rows, bytes, we, addr, data,
               [len](unsigned r) { return field(len, 16ull * r, 16); });
}

void tpu_vmem_dpi_wr_mxu(void *h, unsigned int rows, unsigned int bytes, const svBitVecVal *we,
                         const svBitVecVal *addr, const svBitVecVal *data)
{
    write_rows(h, rows, bytes, we, addr, data, [bytes](unsigned) { return (uint64_t)bytes; });
}

void tpu_vmem_dpi_wr_vpu(void *h, unsigned int len, const svBitVecVal *addr,
                         const svBitVecVal *data)
{
    static const svBitVecVal one = 1;
    write_rows(h, 1, len, &one, addr, data, [len](unsigned) { return (uint64_t)len; });
}

void tpu_vmem_dpi_wr_dma(void *h, unsigned int rows, unsigned int bytes, const svBitVecVal *we,
                         const svBitVecVal *addr, const svBitVecVal *data)
{
    write_rows(h, rows, bytes, we, addr, data, [bytes](unsigned) { return (uint64_t)bytes; });
}

}  // extern "C"

size_t tpu_vmem_dpi_count()
{
    return registry().stores.size();
}

const char *tpu_vmem_dpi_scope(size_t i)
{
    return registry().scopes[i].c_str();
}

void tpu_vmem_dpi_read(size_t i, uint64_t addr, uint8_t *dst, size_t n)
{
    const Store *s = registry().stores[i].get();
    for (size_t j = 0; j < n; j++)
        dst[j] = addr + j < s->bytes ? s->mem[addr + j] : 0;
}

void tpu_vmem_dpi_write(size_t i, uint64_t addr, const uint8_t *src, size_t n)
{
    Store *s = registry().stores[i].get();
    for (size_t j = 0; j < n; j++)
        if (addr + j < s->bytes)
            s->mem[addr + j] = src[j];
}
