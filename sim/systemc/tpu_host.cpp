// tpu_host.cpp - register and memory access, loading and checking over TLM
// (see tpu_host.h).
#include "tpu_host.h"

#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <vector>

namespace tpu_sc {

namespace {

const uint64_t kPiece = 64 * 1024;     // bytes per memory transaction

bool all_zero(const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i])
            return false;
    return true;
}

const char *space_name(enum tpu_space s)
{
    return s == TPU_SPACE_IMEM ? "IMEM" : s == TPU_SPACE_VMEM ? "VMEM" : "HBM";
}

}  // namespace

uint64_t Host::window(enum tpu_space space)
{
    return space == TPU_SPACE_IMEM ? IMEM_BASE : space == TPU_SPACE_VMEM ? VMEM_BASE : HBM_BASE;
}

const char *Host::status_name(tlm::tlm_response_status s)
{
    switch (s) {
    case tlm::TLM_OK_RESPONSE:                return "TLM_OK_RESPONSE";
    case tlm::TLM_INCOMPLETE_RESPONSE:        return "TLM_INCOMPLETE_RESPONSE";
    case tlm::TLM_GENERIC_ERROR_RESPONSE:     return "TLM_GENERIC_ERROR_RESPONSE";
    case tlm::TLM_ADDRESS_ERROR_RESPONSE:     return "TLM_ADDRESS_ERROR_RESPONSE";
    case tlm::TLM_COMMAND_ERROR_RESPONSE:     return "TLM_COMMAND_ERROR_RESPONSE";
    case tlm::TLM_BURST_ERROR_RESPONSE:       return "TLM_BURST_ERROR_RESPONSE";
    case tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE: return "TLM_BYTE_ENABLE_ERROR_RESPONSE";
    }
    return "unknown response";
}

tlm::tlm_response_status Host::access(tlm::tlm_command cmd, uint64_t addr, void *data,
                                      unsigned len, const unsigned char *be, unsigned be_len,
                                      unsigned width)
{
    tlm::tlm_generic_payload t;
    sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
    t.set_command(cmd);
    t.set_address(m_base + addr);
    t.set_data_ptr(static_cast<unsigned char *>(data));
    t.set_data_length(len);
    t.set_streaming_width(width ? width : len);
    t.set_byte_enable_ptr(const_cast<unsigned char *>(be));
    t.set_byte_enable_length(be_len);
    t.set_dmi_allowed(false);
    t.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    m_fw->b_transport(t, delay);
    return t.get_response_status();
}

tlm::tlm_response_status Host::read32(uint64_t reg, uint32_t *v)
{
    return access(tlm::TLM_READ_COMMAND, REG_BASE + reg, v, 4);
}

tlm::tlm_response_status Host::write32(uint64_t reg, uint32_t v)
{
    return access(tlm::TLM_WRITE_COMMAND, REG_BASE + reg, &v, 4);
}

tlm::tlm_response_status Host::read64(uint64_t reg, uint64_t *v)
{
    return access(tlm::TLM_READ_COMMAND, REG_BASE + reg, v, 8);
}

tlm::tlm_response_status Host::write64(uint64_t reg, uint64_t v)
{
    return access(tlm::TLM_WRITE_COMMAND, REG_BASE + reg, &v, 8);
}

uint32_t Host::reg32(uint64_t reg)
{
    uint32_t v = 0;
    return read32(reg, &v) == tlm::TLM_OK_RESPONSE ? v : 0;
}

uint64_t Host::reg64(uint64_t reg)
{
    uint64_t v = 0;
    return read64(reg, &v) == tlm::TLM_OK_RESPONSE ? v : 0;
}

int Host::mem_write(enum tpu_space space, uint64_t addr, const void *src, uint64_t n,
                    bool use_dmi, std::string *err)
{
    const uint8_t *p = static_cast<const uint8_t *>(src);
    while (n) {
        unsigned k = (unsigned)(n < kPiece ? n : kPiece);
        uint64_t a = window(space) + addr;
        if (use_dmi) {
            tlm::tlm_generic_payload t;
            tlm::tlm_dmi dmi;
            t.set_command(tlm::TLM_WRITE_COMMAND);
            t.set_address(m_base + a);
            if (m_fw->get_direct_mem_ptr(t, dmi) && dmi.is_write_allowed()
                && dmi.get_start_address() <= m_base + a && dmi.get_end_address() >= m_base + a) {
                uint64_t room = dmi.get_end_address() - (m_base + a) + 1;
                unsigned d = (unsigned)(k < room ? k : room);
                memcpy(dmi.get_dmi_ptr() + (m_base + a - dmi.get_start_address()), p, d);
                m_dmi_bytes += d;
                p += d;
                addr += d;
                n -= d;
                continue;
            }
        }
        tlm::tlm_response_status st = access(tlm::TLM_WRITE_COMMAND, a,
                                             const_cast<uint8_t *>(p), k);
        if (st != tlm::TLM_OK_RESPONSE) {
            char b[160];
            snprintf(b, sizeof b, "writing %u bytes at %s 0x%" PRIx64 ": %s", k,
                     space_name(space), addr, status_name(st));
            *err = b;
            return -1;
        }
        p += k;
        addr += k;
        n -= k;
    }
    return 0;
}

int Host::mem_read(enum tpu_space space, uint64_t addr, void *dst, uint64_t n, std::string *err)
{
    uint8_t *p = static_cast<uint8_t *>(dst);
    while (n) {
        unsigned k = (unsigned)(n < kPiece ? n : kPiece);
        tlm::tlm_response_status st = access(tlm::TLM_READ_COMMAND, window(space) + addr, p, k);
        if (st != tlm::TLM_OK_RESPONSE) {
            char b[160];
            snprintf(b, sizeof b, "reading %u bytes at %s 0x%" PRIx64 ": %s", k,
                     space_name(space), addr, status_name(st));
            *err = b;
            return -1;
        }
        p += k;
        addr += k;
        n -= k;
    }
    return 0;
}

int Host::load(const tpu_object &obj, bool use_dmi, std::string *err, bool memory_is_zero)
{
    char b[200];
    uint32_t id = 0;
    if (read32(REG_ID, &id) != tlm::TLM_OK_RESPONSE || id != ID_VALUE) {
        snprintf(b, sizeof b, "no TPU core at 0x%" PRIx64 " (ID register 0x%08" PRIx32 ")",
                 m_base, id);
        *err = b;
        return -1;
    }
    struct { const char *key; uint32_t want; uint64_t reg; } shape[] = {
        { "mxu_n", obj.config.mxu_n, REG_MXU_N },
        { "num_mxu", obj.config.num_mxu, REG_NUM_MXU },
        { "vpu_sublanes", obj.config.vpu_sublanes, REG_VPU_SUBLANES },
        { "vpu_lanes", obj.config.vpu_lanes, REG_VPU_LANES },
    };
    for (const auto &s : shape) {
        uint32_t have = reg32(s.reg);
        if (s.want && s.want != have) {
            snprintf(b, sizeof b, "the object was assembled for %s = %" PRIu32
                     ", the core has %" PRIu32, s.key, s.want, have);
            *err = b;
            return -1;
        }
    }
    uint64_t size[4] = { 0, reg64(REG_IMEM_BYTES), reg64(REG_HBM_BYTES), reg64(REG_VMEM_BYTES) };
    if (obj.ntext > size[TPU_SPACE_IMEM] / 8) {
        snprintf(b, sizeof b, "the object has %zu instruction words, IMEM holds %" PRIu64,
                 obj.ntext, size[TPU_SPACE_IMEM] / 8);
        *err = b;
        return -1;
    }
    for (size_t i = 0; i < obj.nchunks; i++) {
        const tpu_obj_chunk &ch = obj.chunks[i];
        if ((ch.space != TPU_SPACE_HBM && ch.space != TPU_SPACE_VMEM) || ch.addr > size[ch.space]
            || ch.size > size[ch.space] - ch.addr) {
            snprintf(b, sizeof b, "object chunk %zu (%" PRIu64 " bytes at 0x%" PRIx64
                     ") does not fit the core's %s", i, ch.size, ch.addr,
                     ch.space == TPU_SPACE_HBM ? "HBM" : ch.space == TPU_SPACE_VMEM ? "VMEM"
                                                                                  : "memories");
            *err = b;
            return -1;
        }
    }

    // Every core gets the whole object (as tpu_system_load does): CORE_SEL
    // points the windows at each in turn, then back at core 0.
    unsigned ncores = cores();
    std::vector<uint8_t> buf(kPiece);
    for (unsigned c = 0; c < ncores; c++) {
        if (select_core(c, err) < 0)
            return -1;
        // instructions: little-endian words (the model assumes a little-endian host)
        if (obj.ntext && mem_write(TPU_SPACE_IMEM, 0, obj.text, obj.ntext * 8, false, err) < 0)
            return -1;
        m_loaded += obj.ntext * 8;
        for (size_t i = 0; i < obj.nchunks; i++) {
            const tpu_obj_chunk &ch = obj.chunks[i];
            for (uint64_t off = 0; off < ch.size; off += kPiece) {
                size_t k = (size_t)(ch.size - off < kPiece ? ch.size - off : kPiece);
                tpu_obj_chunk_read(&ch, off, buf.data(), k);
                if (memory_is_zero && all_zero(buf.data(), k))
                    continue;
                if (mem_write((enum tpu_space)ch.space, ch.addr + off, buf.data(), k, use_dmi,
                              err) < 0)
                    return -1;
                m_loaded += k;
            }
        }
    }
    return ncores > 1 ? select_core(0, err) : 0;
}

unsigned Host::cores()
{
    uint32_t n = 0;
    return read32(REG_CORES, &n) == tlm::TLM_OK_RESPONSE && n ? n : 1;
}

int Host::select_core(unsigned core, std::string *err)
{
    tlm::tlm_response_status st = write32(REG_CORE_SEL, core);
    if (st == tlm::TLM_OK_RESPONSE)
        return 0;
    char b[120];
    snprintf(b, sizeof b, "selecting core %u (CORE_SEL): %s", core, status_name(st));
    *err = b;
    return -1;
}

// The checker's memory-read callback: the core's memories over TLM.
int Host::expect_read(void *ctx, unsigned core, enum tpu_space space, uint64_t addr, void *dst,
                      size_t n)
{
    Host *h = static_cast<Host *>(ctx);
    std::string err;
    if ((space != TPU_SPACE_HBM && space != TPU_SPACE_VMEM) || h->select_core(core, &err) < 0)
        return -1;
    int r = h->mem_read(space, addr, dst, n, &err);
    return h->select_core(0, &err) < 0 ? -1 : r;
}

void Host::check(const tpu_object &obj, tpu_expect_result *res)
{
    tpu_expect_target t;
    memset(&t, 0, sizeof t);
    t.ncores = cores();
    t.tile = reg32(REG_MXU_N);
    t.hbm_bytes = reg64(REG_HBM_BYTES);
    t.vmem_bytes = reg64(REG_VMEM_BYTES);
    t.read = expect_read;
    t.ctx = this;
    tpu_expect_check(&obj, &t, res);
}

}  // namespace tpu_sc
