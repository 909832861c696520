// tpu_core_tlm.h - one TPU core of the C model as a SystemC/TLM-2.0 module.
//
// The module owns a tpu_system of one core (cmodel/include/tpu/tpu.h; the model stays
// plain C) and exposes it to a virtual platform:
//   socket  TLM-2.0 target: b_transport for the registers and the memory
//           windows, get_direct_mem_ptr (DMI) for the memory windows only,
//           transport_dbg for debuggers (map: tpu_core_regs.h);
//   clk     one tpu_system_step per rising edge while a run is going on, so
//           the core's timing is the C model's, cycle for cycle;
//   irq     the done interrupt: high while IRQ_STATUS.DONE and
//           IRQ_ENABLE.DONE are both set.
// docs/systemc.md is the user's guide: register map, DMI policy, errors.
//
//   tpu_config cfg;  tpu_config_load(&cfg, "tiny", err, sizeof err);
//   tpu_core_tlm core("tpu", cfg);
//   core.clk(clock);  core.irq(irq_signal);  router.bind(core.socket);
#ifndef TPU_CORE_TLM_H
#define TPU_CORE_TLM_H

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_target_socket.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

extern "C" {
#include "tpu.h"
}

#include "tpu_core_regs.h"

class tpu_core_tlm : public sc_core::sc_module {
public:
    tlm_utils::simple_target_socket<tpu_core_tlm> socket;
    sc_core::sc_in<bool> clk;
    sc_core::sc_out<bool> irq;

    // `cores` cores of the machine `cfg` (one by default; more are joined in
    // a ring by their ICI ports, as tpu-sim --cores K).  Throws
    // std::invalid_argument with the model's message when the config is
    // unusable (tpu_system_create).
    tpu_core_tlm(sc_core::sc_module_name name, const tpu_config &cfg, unsigned cores = 1);
    ~tpu_core_tlm() override;
    tpu_core_tlm(const tpu_core_tlm &) = delete;
    tpu_core_tlm &operator=(const tpu_core_tlm &) = delete;

    // ---- for SystemC test benches (not part of the bus interface) ----------
    // The C model.  A CTRL_START after a run replaces it by a new one (the
    // memories are copied over), so do not keep the pointer across runs.
    tpu_system *system() { return m_sys; }
    const tpu_config &config() const { return m_cfg; }
    unsigned cores() const { return m_opts.cores; }
    uint32_t state() const { return m_state; }
    // Notified (delta) when a run ends: halt, error, stop.
    const sc_core::sc_event &done_event() const { return m_done_ev; }
    // Model events (tpu_system_subscribe), kept across the runs.
    int subscribe(uint32_t kind_mask, tpu_event_fn fn, void *ctx);
    // Called right after every tpu_system_step, inside the clock process
    // (so other modules' outputs still show the values before the edge).
    void set_step_hook(std::function<void(enum tpu_stop)> fn) { m_step_hook = std::move(fn); }
    // Clock edges that stepped the model since construction.
    uint64_t steps() const { return m_steps; }

private:
    struct Listener { uint32_t mask; tpu_event_fn fn; void *ctx; };

    tpu_config m_cfg;
    tpu_system_opts m_opts;
    tpu_system *m_sys = nullptr;
    uint32_t m_sel = 0;             // CORE_SEL
    bool m_fresh = true;            // nothing has run on m_sys yet
    uint32_t m_state = tpu_sc::STATE_IDLE;
    uint32_t m_error = tpu_sc::ERR_NONE;
    std::string m_error_text;
    uint32_t m_irq_enable = 0, m_irq_status = 0;
    uint64_t m_max_cycles = 0;
    uint64_t m_steps = 0;
    sc_core::sc_time m_go_time;     // time of the last START/RESUME: no step at that time
    std::vector<Listener> m_listeners;
    std::function<void(enum tpu_stop)> m_step_hook;
    sc_core::sc_event m_irq_ev, m_done_ev;

    void on_clock();
    void drive_irq();
    void finish(uint32_t state, uint32_t error, const char *text);
    void irq_changed();

    // bus side
    void b_transport(tlm::tlm_generic_payload &t, sc_core::sc_time &delay);
    bool get_direct_mem_ptr(tlm::tlm_generic_payload &t, tlm::tlm_dmi &dmi);
    unsigned transport_dbg(tlm::tlm_generic_payload &t);

    tlm::tlm_response_status reg_access(tlm::tlm_generic_payload &t, uint64_t off);
    tlm::tlm_response_status mem_access(tlm::tlm_generic_payload &t, enum tpu_space space,
                                        uint64_t off);
    tlm::tlm_response_status command(uint32_t value);
    bool reg_read(uint64_t off, uint64_t *value) const;
    void reg_image(uint8_t *img, size_t n) const;
    tpu_core *selected() const { return tpu_system_core(m_sys, m_sel); }
    int new_run();
    uint64_t mem_size(enum tpu_space space) const;
};

#endif  // TPU_CORE_TLM_H
