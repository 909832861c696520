// tpu_core_tlm.cpp - the C model's core behind a TLM-2.0 target socket (see
// tpu_core_tlm.h and docs/systemc.md).
#include "tpu_core_tlm.h"

#include <cstring>
#include <stdexcept>

using namespace tpu_sc;
using tlm::tlm_generic_payload;
using tlm::tlm_response_status;

namespace {

enum Access { RO, WO, RW, W1C };

struct RegDesc {
    uint64_t off;
    unsigned width;     // bytes: 4 or 8
    Access access;
};

const RegDesc kRegs[] = {
    { REG_ID, 4, RO },           { REG_VERSION, 4, RO },      { REG_CTRL, 4, WO },
    { REG_STATUS, 4, RO },       { REG_ERROR, 4, RO },        { REG_IRQ_ENABLE, 4, RW },
    { REG_IRQ_STATUS, 4, W1C },  { REG_PC, 8, RO },           { REG_CYCLE, 8, RO },
    { REG_INSTRET, 8, RO },      { REG_MAX_CYCLES, 8, RW },   { REG_MXU_N, 4, RO },
    { REG_NUM_MXU, 4, RO },      { REG_VPU_SUBLANES, 4, RO }, { REG_VPU_LANES, 4, RO },
    { REG_IMEM_BYTES, 8, RO },   { REG_VMEM_BYTES, 8, RO },   { REG_HBM_BYTES, 8, RO },
    { REG_CORES, 4, RO },        { REG_CORE_SEL, 4, RW },
};

// The register whose bytes include `off`, or nullptr (a hole).
const RegDesc *find_reg(uint64_t off)
{
    for (const RegDesc &r : kRegs)
        if (off >= r.off && off < r.off + r.width)
            return &r;
    return nullptr;
}

// Which region an address falls in: TPU_SPACE_NONE for the registers.
// Returns false outside every region.
bool decode(uint64_t addr, enum tpu_space *space, uint64_t *off)
{
    struct { uint64_t base, size; enum tpu_space space; } regions[] = {
        { REG_BASE, REG_SIZE, TPU_SPACE_NONE },
        { IMEM_BASE, IMEM_WINDOW, TPU_SPACE_IMEM },
        { VMEM_BASE, VMEM_WINDOW, TPU_SPACE_VMEM },
        { HBM_BASE, HBM_WINDOW, TPU_SPACE_HBM },
    };
    for (const auto &r : regions) {
        if (addr >= r.base && addr - r.base < r.size) {
            *space = r.space;
            *off = addr - r.base;
            return true;
        }
    }
    return false;
}

// The base of the window of a memory space.
uint64_t window_base(enum tpu_space space)
{
    return space == TPU_SPACE_IMEM ? IMEM_BASE : space == TPU_SPACE_VMEM ? VMEM_BASE : HBM_BASE;
}

// TLM byte enables: present means every byte must be 0x00 or 0xff, and
// for registers all 0xff.  Returns false on misuse.
bool byte_enables_ok(const tlm_generic_payload &t, bool all_required)
{
    const unsigned char *be = t.get_byte_enable_ptr();
    if (!be)
        return true;
    unsigned bel = t.get_byte_enable_length();
    if (!bel)
        return false;
    for (unsigned i = 0; i < t.get_data_length(); i++) {
        unsigned char b = be[i % bel];
        if (b != TLM_BYTE_ENABLED && (all_required || b != TLM_BYTE_DISABLED))
            return false;
    }
    return true;
}

bool all_zero(const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i])
            return false;
    return true;
}

}  // namespace

// ---- life cycle -----------------------------------------------------------------

SC_HAS_PROCESS(tpu_core_tlm);

tpu_core_tlm::tpu_core_tlm(sc_core::sc_module_name name, const tpu_config &cfg, unsigned cores)
    : sc_module(name), socket("socket"), clk("clk"), irq("irq"), m_cfg(cfg)
{
    char err[600];
    memset(&m_opts, 0, sizeof m_opts);
    m_opts.cores = cores ? cores : 1;
    m_opts.topology = m_opts.cores > 1 ? TPU_TOPO_RING : TPU_TOPO_SINGLE;
    m_sys = tpu_system_create(&m_cfg, &m_opts, err, sizeof err);
    if (!m_sys)
        throw std::invalid_argument(err);
    socket.register_b_transport(this, &tpu_core_tlm::b_transport);
    socket.register_get_direct_mem_ptr(this, &tpu_core_tlm::get_direct_mem_ptr);
    socket.register_transport_dbg(this, &tpu_core_tlm::transport_dbg);
    irq.initialize(false);

    SC_METHOD(on_clock);
    sensitive << clk.pos();
    dont_initialize();
    SC_METHOD(drive_irq);
    sensitive << m_irq_ev;
    dont_initialize();
}

tpu_core_tlm::~tpu_core_tlm()
{
    tpu_system_destroy(m_sys);
}

int tpu_core_tlm::subscribe(uint32_t kind_mask, tpu_event_fn fn, void *ctx)
{
    if (tpu_system_subscribe(m_sys, kind_mask, fn, ctx) < 0)
        return -1;
    m_listeners.push_back(Listener{ kind_mask, fn, ctx });
    return 0;
}

// ---- the clock ------------------------------------------------------------------

// One cycle of the model per rising edge while running.  The first cycle
// of a run is the first rising edge strictly after the START (or RESUME):
// an edge at the very time of the write does not count, whichever delta
// cycle the write came in, so the start is deterministic.  A cycle limit
// stops the run at the edge that would start cycle MAX_CYCLES, as
// tpu_system_run does (and with its message).
void tpu_core_tlm::on_clock()
{
    if (m_state != STATE_RUNNING || sc_core::sc_time_stamp() == m_go_time)
        return;
    if (m_max_cycles && tpu_system_cycle(m_sys) >= m_max_cycles) {
        tpu_system_run(m_sys, m_max_cycles);
        finish(STATE_ERROR, ERR_CYCLE_LIMIT, tpu_system_error(m_sys));
        return;
    }
    enum tpu_stop r = tpu_system_step(m_sys);
    m_steps++;
    if (m_step_hook)
        m_step_hook(r);
    switch (r) {
    case TPU_RUNNING:
        break;
    case TPU_STOP_HALT:
        finish(STATE_HALTED, ERR_NONE, "");
        break;
    case TPU_STOP_BREAK:
        finish(STATE_STOPPED, ERR_NONE, "");
        break;
    case TPU_STOP_ERROR:
    case TPU_STOP_CYCLE_LIMIT:
        finish(STATE_ERROR, ERR_RUNTIME, tpu_system_error(m_sys));
        break;
    }
}

// The end of a run: status, error, the done interrupt.
void tpu_core_tlm::finish(uint32_t state, uint32_t error, const char *text)
{
    m_state = state;
    m_error = error;
    m_error_text = text;
    m_irq_status |= IRQ_DONE;
    irq_changed();
    m_done_ev.notify(sc_core::SC_ZERO_TIME);
}

// irq is written by drive_irq only (a signal has one writer process);
// everything else asks for it through m_irq_ev.
void tpu_core_tlm::irq_changed()
{
    m_irq_ev.notify(sc_core::SC_ZERO_TIME);
}

void tpu_core_tlm::drive_irq()
{
    irq.write((m_irq_status & m_irq_enable & IRQ_DONE) != 0);
}

// A new run after an earlier one: the C model has no reset short of a new
// system, so make one and copy the memories over (HBM page by page, only
// the pages that exist; VMEM skipping zeros).  DMI pointers into the old
// memories are invalidated first.  Returns -1 (and sets the error) when
// the host runs out of memory; the old system then stays.
int tpu_core_tlm::new_run()
{
    char err[600];
    tpu_system *n = tpu_system_create(&m_cfg, &m_opts, err, sizeof err);
    if (!n) {
        m_error_text = err;
        return -1;
    }
    for (const Listener &l : m_listeners)
        tpu_system_subscribe(n, l.mask, l.fn, l.ctx);
    const uint64_t piece = tpu_mem_hbm_page_bytes();
    std::vector<uint8_t> buf(piece);
    bool ok = true;
    for (unsigned c = 0; c < m_opts.cores && ok; c++) {
        tpu_core *from = tpu_system_core(m_sys, c), *to = tpu_system_core(n, c);
        for (enum tpu_space sp : { TPU_SPACE_IMEM, TPU_SPACE_VMEM }) {
            uint64_t size = mem_size(sp);
            for (uint64_t a = 0; a < size && ok; a += piece) {
                size_t k = (size_t)(size - a < piece ? size - a : piece);
                ok = tpu_mem_read(from, sp, a, buf.data(), k) == 0
                  && (all_zero(buf.data(), k) || tpu_mem_write(to, sp, a, buf.data(), k) == 0);
            }
        }
        for (uint64_t a = tpu_mem_hbm_next_page(from, 0); a != UINT64_MAX && ok;
             a = tpu_mem_hbm_next_page(from, a + piece)) {
            size_t k = (size_t)(m_cfg.hbm_bytes - a < piece ? m_cfg.hbm_bytes - a : piece);
            ok = tpu_mem_read(from, TPU_SPACE_HBM, a, buf.data(), k) == 0
              && tpu_mem_write(to, TPU_SPACE_HBM, a, buf.data(), k) == 0;
        }
    }
    if (!ok) {
        tpu_system_destroy(n);
        m_error_text = "out of host memory copying the memories for a new run";
        return -1;
    }
    socket->invalidate_direct_mem_ptr(0, ~0ull);
    tpu_system_destroy(m_sys);
    m_sys = n;
    return 0;
}

// A write to CTRL.  Bad commands (more than one bit, unknown bits, START
// while running, RESUME with nothing to resume) change nothing and get
// TLM_GENERIC_ERROR_RESPONSE.
tlm_response_status tpu_core_tlm::command(uint32_t v)
{
    if (v == 0)
        return tlm::TLM_OK_RESPONSE;
    if (v & (v - 1) || v & ~(CTRL_START | CTRL_STOP | CTRL_RESUME))
        return tlm::TLM_GENERIC_ERROR_RESPONSE;
    switch (v) {
    case CTRL_START:
        if (m_state == STATE_RUNNING)
            return tlm::TLM_GENERIC_ERROR_RESPONSE;
        if (!m_fresh && new_run() < 0) {
            m_state = STATE_ERROR;
            m_error = ERR_HOST;
            return tlm::TLM_GENERIC_ERROR_RESPONSE;
        }
        m_fresh = false;
        break;
    case CTRL_STOP:
        if (m_state == STATE_RUNNING)
            finish(STATE_STOPPED, ERR_NONE, "");
        return tlm::TLM_OK_RESPONSE;
    default:    // CTRL_RESUME
        if (m_state != STATE_STOPPED && !(m_state == STATE_ERROR && m_error == ERR_CYCLE_LIMIT))
            return tlm::TLM_GENERIC_ERROR_RESPONSE;
        break;
    }
    m_state = STATE_RUNNING;
    m_go_time = sc_core::sc_time_stamp();
    m_error = ERR_NONE;
    m_error_text.clear();
    m_irq_status &= ~IRQ_DONE;
    irq_changed();
    return tlm::TLM_OK_RESPONSE;
}

// ---- registers ------------------------------------------------------------------

uint64_t tpu_core_tlm::mem_size(enum tpu_space space) const
{
    switch (space) {
    case TPU_SPACE_IMEM: return m_cfg.imem_words * 8;
    case TPU_SPACE_VMEM: return m_cfg.vmem_bytes;
    case TPU_SPACE_HBM:  return m_cfg.hbm_bytes;
    default:             return 0;
    }
}

// The value of the register at `off` (a register's first byte).
bool tpu_core_tlm::reg_read(uint64_t off, uint64_t *v) const
{
    tpu_core *c = selected();
    switch (off) {
    case REG_ID:           *v = ID_VALUE; break;
    case REG_VERSION:      *v = VERSION_VALUE; break;
    case REG_CTRL:         *v = 0; break;
    case REG_STATUS:       *v = m_state | (m_irq_status & IRQ_DONE ? STATUS_IRQ : 0); break;
    case REG_ERROR:        *v = m_error; break;
    case REG_IRQ_ENABLE:   *v = m_irq_enable; break;
    case REG_IRQ_STATUS:   *v = m_irq_status; break;
    case REG_PC: {
        tpu_seq_view sv;
        tpu_core_seq_view(c, &sv);
        *v = sv.pc;
        break;
    }
    case REG_CYCLE:        *v = tpu_system_cycle(m_sys); break;
    case REG_INSTRET: {
        tpu_stats st;
        tpu_core_stats(c, &st);
        *v = st.instructions;
        break;
    }
    case REG_MAX_CYCLES:   *v = m_max_cycles; break;
    case REG_MXU_N:        *v = m_cfg.mxu_n; break;
    case REG_NUM_MXU:      *v = m_cfg.num_mxu; break;
    case REG_VPU_SUBLANES: *v = m_cfg.vpu_sublanes; break;
    case REG_VPU_LANES:    *v = m_cfg.vpu_lanes; break;
    case REG_IMEM_BYTES:   *v = mem_size(TPU_SPACE_IMEM); break;
    case REG_VMEM_BYTES:   *v = m_cfg.vmem_bytes; break;
    case REG_HBM_BYTES:    *v = m_cfg.hbm_bytes; break;
    case REG_CORES:        *v = m_opts.cores; break;
    case REG_CORE_SEL:     *v = m_sel; break;
    default:               return false;
    }
    return true;
}

// The register region's first n bytes as a debugger reads them (holes 0).
void tpu_core_tlm::reg_image(uint8_t *img, size_t n) const
{
    memset(img, 0, n);
    for (const RegDesc &r : kRegs) {
        uint64_t v = 0;
        reg_read(r.off, &v);
        if (r.off + r.width <= n)
            memcpy(img + r.off, &v, r.width);
    }
    if (REG_ERROR_TEXT + ERROR_TEXT_SIZE <= n) {
        size_t k = m_error_text.size() < ERROR_TEXT_SIZE - 1 ? m_error_text.size()
                                                             : ERROR_TEXT_SIZE - 1;
        memcpy(img + REG_ERROR_TEXT, m_error_text.data(), k);
    }
}

// A b_transport to the register region.  Checks in this order: the
// address (a register's first byte, or the high half of a 64-bit one),
// byte enables (none, or all enabled), the length and streaming width,
// the command (no writes to read-only registers).
tlm_response_status tpu_core_tlm::reg_access(tlm_generic_payload &t, uint64_t off)
{
    unsigned len = t.get_data_length();
    unsigned char *data = t.get_data_ptr();
    bool wr = t.get_command() == tlm::TLM_WRITE_COMMAND;
    bool rd = t.get_command() == tlm::TLM_READ_COMMAND;

    if (off >= REG_ERROR_TEXT && off < REG_ERROR_TEXT + ERROR_TEXT_SIZE) {
        if (len > REG_ERROR_TEXT + ERROR_TEXT_SIZE - off)
            return tlm::TLM_ADDRESS_ERROR_RESPONSE;
        if (!byte_enables_ok(t, true))
            return tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE;
        if (len == 0 || t.get_streaming_width() < len)
            return tlm::TLM_BURST_ERROR_RESPONSE;
        if (wr)
            return tlm::TLM_COMMAND_ERROR_RESPONSE;
        if (rd) {
            uint8_t img[REG_ERROR_TEXT + ERROR_TEXT_SIZE];
            reg_image(img, sizeof img);
            memcpy(data, img + off, len);
        }
        return tlm::TLM_OK_RESPONSE;
    }

    const RegDesc *r = find_reg(off);
    if (!r || (off != r->off && !(r->width == 8 && off == r->off + 4)))
        return tlm::TLM_ADDRESS_ERROR_RESPONSE;
    if (!byte_enables_ok(t, true))
        return tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE;
    bool whole = off == r->off && len == r->width;
    bool half = r->width == 8 && len == 4;
    if (!(whole || half) || t.get_streaming_width() < len)
        return tlm::TLM_BURST_ERROR_RESPONSE;
    if (wr && r->access == RO)
        return tlm::TLM_COMMAND_ERROR_RESPONSE;
    if (!wr && !rd)
        return tlm::TLM_OK_RESPONSE;    // TLM_IGNORE_COMMAND

    unsigned shift = (unsigned)(off - r->off) * 8;
    uint64_t old = 0;
    reg_read(r->off, &old);
    if (rd) {
        uint64_t v = old >> shift;
        memcpy(data, &v, len);
        return tlm::TLM_OK_RESPONSE;
    }
    uint64_t part = 0;
    memcpy(&part, data, len);
    uint64_t mask = len == 8 ? ~0ull : 0xffffffffull << shift;
    uint64_t v = (old & ~mask) | ((part << shift) & mask);
    switch (r->off) {
    case REG_CTRL:
        return command((uint32_t)v);
    case REG_IRQ_ENABLE:
        m_irq_enable = (uint32_t)v & IRQ_DONE;
        irq_changed();
        break;
    case REG_IRQ_STATUS:
        m_irq_status &= ~((uint32_t)part & IRQ_DONE);
        irq_changed();
        break;
    case REG_MAX_CYCLES:
        m_max_cycles = v;
        break;
    case REG_CORE_SEL:
        if (v >= m_opts.cores)
            return tlm::TLM_GENERIC_ERROR_RESPONSE;
        if (v != m_sel) {       // the windows now show another core's memories
            socket->invalidate_direct_mem_ptr(0, ~0ull);
            m_sel = (uint32_t)v;
        }
        break;
    default:
        break;
    }
    return tlm::TLM_OK_RESPONSE;
}

// ---- memory windows -------------------------------------------------------------

// A b_transport to a memory window at offset `off`.  Any length and
// alignment; byte enables (0x00/0xff) and a streaming width (the address
// wraps every `width` bytes) are honoured.
tlm_response_status tpu_core_tlm::mem_access(tlm_generic_payload &t, enum tpu_space space,
                                             uint64_t off)
{
    unsigned len = t.get_data_length();
    unsigned sw = t.get_streaming_width();
    if (len == 0 || sw == 0)
        return tlm::TLM_BURST_ERROR_RESPONSE;
    uint64_t span = sw < len ? sw : len;
    uint64_t size = mem_size(space);
    if (off > size || span > size - off)
        return tlm::TLM_ADDRESS_ERROR_RESPONSE;
    if (!byte_enables_ok(t, false))
        return tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE;
    tpu_core *c = selected();
    tlm_response_status st = tlm::TLM_OK_RESPONSE;
    bool wr = t.get_command() == tlm::TLM_WRITE_COMMAND;
    unsigned char *data = t.get_data_ptr();
    const unsigned char *be = t.get_byte_enable_ptr();
    if (!wr && t.get_command() != tlm::TLM_READ_COMMAND) {
        // TLM_IGNORE_COMMAND: nothing to move
    } else if (!be && sw >= len) {
        int r = wr ? tpu_mem_write(c, space, off, data, len) : tpu_mem_read(c, space, off, data, len);
        if (r != 0)
            st = tlm::TLM_GENERIC_ERROR_RESPONSE;
    } else {
        unsigned bel = t.get_byte_enable_length();
        for (unsigned i = 0; i < len; i++) {
            if (be && be[i % bel] == TLM_BYTE_DISABLED)
                continue;
            uint64_t a = off + i % sw;
            int r = wr ? tpu_mem_write(c, space, a, data + i, 1)
                       : tpu_mem_read(c, space, a, data + i, 1);
            if (r != 0) {
                st = tlm::TLM_GENERIC_ERROR_RESPONSE;
                break;
            }
        }
    }
    // The DMI hint, after the access: a write may have made an HBM page.
    uint64_t base, n;
    t.set_dmi_allowed(space != TPU_SPACE_HBM || tpu_mem_ptr(c, space, off, &base, &n));
    return st;
}

// ---- the socket's three entry points -------------------------------------------

// Blocking transport: never waits and adds no delay (the bus is untimed;
// the core's own timing is the clock's).
void tpu_core_tlm::b_transport(tlm_generic_payload &t, sc_core::sc_time &delay)
{
    (void)delay;
    enum tpu_space space;
    uint64_t off;
    tlm_response_status st;
    bool moves = t.get_command() != tlm::TLM_IGNORE_COMMAND && t.get_data_length();
    if (!decode(t.get_address(), &space, &off))
        st = tlm::TLM_ADDRESS_ERROR_RESPONSE;
    else if (moves && !t.get_data_ptr())     // a malformed payload: no data buffer
        st = tlm::TLM_GENERIC_ERROR_RESPONSE;
    else if (space == TPU_SPACE_NONE)
        st = reg_access(t, off);
    else
        st = mem_access(t, space, off);
    t.set_response_status(st);
}

// DMI: IMEM read-only (writes must go through b_transport so that the
// model's decode cache sees them), VMEM read-write, HBM read-write one
// 64 KiB page at a time once the page exists (the model allocates HBM
// lazily); never the registers.  A denial names the range it covers.
bool tpu_core_tlm::get_direct_mem_ptr(tlm_generic_payload &t, tlm::tlm_dmi &dmi)
{
    uint64_t addr = t.get_address();
    enum tpu_space space;
    uint64_t off;
    dmi.set_read_latency(sc_core::SC_ZERO_TIME);
    dmi.set_write_latency(sc_core::SC_ZERO_TIME);
    if (!decode(addr, &space, &off)) {     // the gap between two regions
        const uint64_t ends[] = { REG_BASE + REG_SIZE, IMEM_BASE + IMEM_WINDOW,
                                  VMEM_BASE + VMEM_WINDOW, MAP_END };
        const uint64_t starts[] = { IMEM_BASE, VMEM_BASE, HBM_BASE, 0 };
        for (unsigned i = 0; i < 4; i++) {
            if (addr >= ends[i] && (i == 3 || addr < starts[i])) {
                dmi.set_start_address(ends[i]);
                dmi.set_end_address(i == 3 ? ~0ull : starts[i] - 1);
            }
        }
        return false;
    }
    if (space == TPU_SPACE_NONE) {
        dmi.set_start_address(REG_BASE);
        dmi.set_end_address(REG_BASE + REG_SIZE - 1);
        return false;
    }
    uint64_t wbase = window_base(space), size = mem_size(space);
    if (off >= size) {      // the unused part of the window
        dmi.set_start_address(wbase + size);
        dmi.set_end_address(wbase + (space == TPU_SPACE_IMEM ? IMEM_WINDOW
                                     : space == TPU_SPACE_VMEM ? VMEM_WINDOW : HBM_WINDOW) - 1);
        return false;
    }
    uint64_t base, len;
    uint8_t *p = tpu_mem_ptr(selected(), space, off, &base, &len);
    if (!p) {               // an HBM page that does not exist yet
        uint64_t page = tpu_mem_hbm_page_bytes();
        uint64_t first = off & ~(page - 1);
        dmi.set_start_address(wbase + first);
        dmi.set_end_address(wbase + (size - first < page ? size : first + page) - 1);
        return false;
    }
    dmi.set_dmi_ptr(p);
    dmi.set_start_address(wbase + base);
    dmi.set_end_address(wbase + base + len - 1);
    if (space == TPU_SPACE_IMEM)
        dmi.allow_read();
    else
        dmi.allow_read_write();
    return true;
}

// Debug transport: reads of the registers (as bytes; holes read 0) and
// reads and writes of the memory windows, clipped at the end of the
// memory.  Writes to the registers transfer nothing (no side effects).
// Returns the bytes transferred.
unsigned tpu_core_tlm::transport_dbg(tlm_generic_payload &t)
{
    enum tpu_space space;
    uint64_t off;
    unsigned len = t.get_data_length();
    unsigned char *data = t.get_data_ptr();
    bool wr = t.get_command() == tlm::TLM_WRITE_COMMAND;
    if (!decode(t.get_address(), &space, &off) || !len || !data)
        return 0;
    if (space == TPU_SPACE_NONE) {
        if (wr || t.get_command() != tlm::TLM_READ_COMMAND)
            return 0;
        uint8_t img[REG_SIZE];
        reg_image(img, sizeof img);
        unsigned n = len < REG_SIZE - off ? len : (unsigned)(REG_SIZE - off);
        memcpy(data, img + off, n);
        return n;
    }
    uint64_t size = mem_size(space);
    if (off >= size)
        return 0;
    unsigned n = len < size - off ? len : (unsigned)(size - off);
    tpu_core *c = selected();
    if (wr)
        return tpu_mem_write(c, space, off, data, n) == 0 ? n : 0;
    if (t.get_command() != tlm::TLM_READ_COMMAND)
        return 0;
    return tpu_mem_read(c, space, off, data, n) == 0 ? n : 0;
}
