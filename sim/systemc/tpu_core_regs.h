// tpu_core_regs.h - the address map of tpu_core_tlm's target socket: the
// control and status registers and the windows onto IMEM, VMEM and HBM.
//
// docs/systemc.md has the same map as tables; this header is what code
// uses (the core, the example platform, the tests).  Addresses are offsets
// from wherever the platform's router puts the core.
#ifndef TPU_CORE_REGS_H
#define TPU_CORE_REGS_H

#include <cstdint>

namespace tpu_sc {

// ---- regions ------------------------------------------------------------------
// Each memory window is as large as the largest memory the config allows
// (cmodel/config.def); only its first IMEM_BYTES/VMEM_BYTES/HBM_BYTES
// (registers below) exist.
constexpr uint64_t REG_BASE    = 0x0000000000ull;   // 4 KiB of registers
constexpr uint64_t REG_SIZE    = 0x1000ull;
constexpr uint64_t IMEM_BASE   = 0x0001000000ull;   // 16 MiB window (imem_words <= 1 Mi)
constexpr uint64_t IMEM_WINDOW = 0x0001000000ull;
constexpr uint64_t VMEM_BASE   = 0x0100000000ull;   // 4 GiB window
constexpr uint64_t VMEM_WINDOW = 0x0100000000ull;
constexpr uint64_t HBM_BASE    = 0x10000000000ull;  // 1 TiB window
constexpr uint64_t HBM_WINDOW  = 0x10000000000ull;
constexpr uint64_t MAP_END     = HBM_BASE + HBM_WINDOW;

// ---- registers (offsets in the register region) ----------------------------
// 32-bit registers take 4-byte accesses; 64-bit ones 8-byte accesses or
// 4-byte accesses to either half (low half first: little-endian).
constexpr uint64_t REG_ID           = 0x000;  // RO 32: ID_VALUE
constexpr uint64_t REG_VERSION      = 0x004;  // RO 32: VERSION_VALUE
constexpr uint64_t REG_CTRL         = 0x008;  // WO 32: one CTRL_* command (reads 0)
constexpr uint64_t REG_STATUS       = 0x00c;  // RO 32: STATE_* in bits 3:0, IRQ pending in bit 8
constexpr uint64_t REG_ERROR        = 0x010;  // RO 32: ERR_* of the last run
constexpr uint64_t REG_IRQ_ENABLE   = 0x014;  // RW 32: bit 0 enables the done interrupt
constexpr uint64_t REG_IRQ_STATUS   = 0x018;  // RW1C 32: bit 0 done pending; write 1 to clear
constexpr uint64_t REG_PC           = 0x020;  // RO 64: the sequencer's pc
constexpr uint64_t REG_CYCLE        = 0x028;  // RO 64: cycles of the current or last run
constexpr uint64_t REG_INSTRET      = 0x030;  // RO 64: instructions issued in that run
constexpr uint64_t REG_MAX_CYCLES   = 0x038;  // RW 64: cycle limit of a run, 0 = none
constexpr uint64_t REG_MXU_N        = 0x040;  // RO 32: config mxu_n
constexpr uint64_t REG_NUM_MXU      = 0x044;  // RO 32: config num_mxu
constexpr uint64_t REG_VPU_SUBLANES = 0x048;  // RO 32: config vpu_sublanes
constexpr uint64_t REG_VPU_LANES    = 0x04c;  // RO 32: config vpu_lanes
constexpr uint64_t REG_IMEM_BYTES   = 0x050;  // RO 64: imem_words * 8
constexpr uint64_t REG_VMEM_BYTES   = 0x058;  // RO 64: config vmem_bytes
constexpr uint64_t REG_HBM_BYTES    = 0x060;  // RO 64: config hbm_bytes
constexpr uint64_t REG_CORES        = 0x068;  // RO 32: cores in the module (a ring when > 1)
constexpr uint64_t REG_CORE_SEL     = 0x06c;  // RW 32: the core that PC, INSTRET and the
                                              //   IMEM/VMEM/HBM windows address (< CORES)
constexpr uint64_t REG_ERROR_TEXT   = 0x100;  // RO bytes: the error line, NUL-terminated
constexpr uint64_t ERROR_TEXT_SIZE  = 0x200;  // ... 512 bytes, any size and alignment

constexpr uint32_t ID_VALUE      = 0x54505531u;     // "TPU1" read as a little-endian word
constexpr uint32_t VERSION_VALUE = 0x00010000u;     // 1.0

// CTRL commands: write exactly one bit (0 does nothing).
constexpr uint32_t CTRL_START  = 1u << 0;   // a new run from pc 0 (memories kept)
constexpr uint32_t CTRL_STOP   = 1u << 1;   // stop a running core after the current cycle
constexpr uint32_t CTRL_RESUME = 1u << 2;   // go on with a stopped run

// STATUS bits 3:0.
enum : uint32_t {
    STATE_IDLE = 0,     // after reset: nothing has run
    STATE_RUNNING = 1,  // one C model cycle per clock edge
    STATE_HALTED = 2,   // the program executed halt (and every unit drained)
    STATE_ERROR = 3,    // the run stopped with an error: REG_ERROR, REG_ERROR_TEXT
    STATE_STOPPED = 4,  // CTRL_STOP (or an event subscriber's break request)
};
constexpr uint32_t STATUS_STATE_MASK = 0xf;
constexpr uint32_t STATUS_IRQ        = 1u << 8;

// REG_ERROR.
enum : uint32_t {
    ERR_NONE = 0,
    ERR_RUNTIME = 1,     // the model stopped the program (address, illegal word, deadlock, ...)
    ERR_CYCLE_LIMIT = 2, // REG_MAX_CYCLES reached: CTRL_RESUME goes on
    ERR_HOST = 3,        // the host ran out of memory starting a new run
};

constexpr uint32_t IRQ_DONE = 1u << 0;

}  // namespace tpu_sc

#endif  // TPU_CORE_REGS_H
