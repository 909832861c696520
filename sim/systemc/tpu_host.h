// tpu_host.h - the initiator side of tpu_core_tlm: register and memory
// access over TLM, loading an object file, checking its .expect records.
//
// Used by the example virtual platform (tpu_vp.cpp), the tests and the
// lockstep top.  Everything goes through a tlm_fw_transport_if (an
// initiator socket's operator->), never through the C model's backdoor.
// b_transport is called with a zero delay and the delay it returns is
// ignored (tpu_core_tlm annotates none).
#ifndef TPU_HOST_H
#define TPU_HOST_H

#include <systemc>
#include <tlm>

#include <cstdint>
#include <string>

extern "C" {
#include "expect.h"
#include "objfile.h"
}

#include "tpu_core_regs.h"

namespace tpu_sc {

class Host {
public:
    // fw: where transactions go; base: where the core sits in its address map.
    explicit Host(tlm::tlm_fw_transport_if<> *fw = nullptr, uint64_t base = 0)
        : m_fw(fw), m_base(base) {}
    void attach(tlm::tlm_fw_transport_if<> *fw, uint64_t base = 0) { m_fw = fw; m_base = base; }

    // One b_transport of len bytes at core address addr; returns its status.
    // be/be_len: byte enables (nullptr: none); width: streaming width (0: len).
    tlm::tlm_response_status access(tlm::tlm_command cmd, uint64_t addr, void *data,
                                    unsigned len, const unsigned char *be = nullptr,
                                    unsigned be_len = 0, unsigned width = 0);
    tlm::tlm_response_status read32(uint64_t reg, uint32_t *v);
    tlm::tlm_response_status write32(uint64_t reg, uint32_t v);
    tlm::tlm_response_status read64(uint64_t reg, uint64_t *v);
    tlm::tlm_response_status write64(uint64_t reg, uint64_t v);
    // Register values for code that has checked the core exists (0 on error).
    uint32_t reg32(uint64_t reg);
    uint64_t reg64(uint64_t reg);

    // n bytes of a memory (window base + addr), in transactions of at most
    // 64 KiB.  use_dmi: where the core grants DMI for the access, use the
    // pointer instead.  Returns 0, or -1 with a message in *err.
    int mem_write(enum tpu_space space, uint64_t addr, const void *src, uint64_t n,
                  bool use_dmi, std::string *err);
    int mem_read(enum tpu_space space, uint64_t addr, void *dst, uint64_t n, std::string *err);

    // Check that the object was assembled for this core (shape registers)
    // and fits its memories, then write its instructions into IMEM and its
    // DATA and FILL chunks into VMEM and HBM, of every core (CORE_SEL is 0
    // again afterwards).  memory_is_zero: the cores are fresh from reset,
    // so pieces of zeros need not be written.  Returns 0, or -1 and a
    // message.
    int load(const tpu_object &obj, bool use_dmi, std::string *err, bool memory_is_zero = false);

    // Run the object's .expect checks, reading the results over TLM (on
    // every core of a module of several).
    void check(const tpu_object &obj, tpu_expect_result *res);

    // The cores the module has (REG_CORES), and pointing the memory windows
    // at one of them (REG_CORE_SEL; 0, or -1 and a message).
    unsigned cores();
    int select_core(unsigned core, std::string *err);

    // Bytes written by load() (statistics).
    uint64_t loaded_bytes() const { return m_loaded; }
    uint64_t dmi_bytes() const { return m_dmi_bytes; }

    static uint64_t window(enum tpu_space space);
    static const char *status_name(tlm::tlm_response_status s);

private:
    tlm::tlm_fw_transport_if<> *m_fw;
    uint64_t m_base;
    uint64_t m_loaded = 0, m_dmi_bytes = 0;

    static int expect_read(void *ctx, unsigned core, enum tpu_space space, uint64_t addr,
                           void *dst, size_t n);
};

}  // namespace tpu_sc

#endif  // TPU_HOST_H
