// tpu_vp.cpp - an example virtual platform: a host and one tpu_core_tlm on
// a clock.
//
//   tpu-vp [--config NAME|FILE] [--max-cycles N] [--dmi] [--quiet] PROG.bin
//
// The host is a small TLM initiator.  It writes the object's instructions
// and data into the core over TLM (b_transport, or DMI where the core
// grants it with --dmi), enables the done interrupt, starts the core and
// waits for the interrupt; then it reads the status and the results back
// over TLM and checks them against the object's .expect records
// (cmodel/include/tpu/expect.h, with a reader that goes over TLM).  It prints what it
// did, the result and the simulation rate (simulated cycles per host
// second).  Exit status as tpu-sim: 0 halted and bit-exact (or no
// .expect), 1 a result differs or cannot be checked, 2 bad command line or
// config, 3 the program could not be loaded or did not halt.
#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>

#include <cerrno>
#include <chrono>
#include <cinttypes>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>

extern "C" {
#include "config.h"
#include "expect.h"
#include "interrupt.h"
#include "objfile.h"
}

#include "tpu_core_tlm.h"
#include "tpu_host.h"

using namespace tpu_sc;

namespace {

enum { EXIT_OK = 0, EXIT_MISMATCH = 1, EXIT_USAGE = 2, EXIT_RUN = 3 };

struct Options {
    const char *config = nullptr;
    const char *prog = nullptr;
    uint64_t max_cycles = 1000000000ull;
    bool dmi = false, quiet = false;
};

void usage(FILE *f)
{
    fputs("usage: tpu-vp [options] PROG.bin\n"
          "\n"
          "An example SystemC virtual platform: a host writes PROG.bin (from tpu-as)\n"
          "into a TLM-2.0 model of the core (tpu_core_tlm, the C model inside), starts\n"
          "it, waits for the done interrupt, reads the results back over TLM and\n"
          "checks the object's .expect records bit for bit (docs/systemc.md).\n"
          "\n"
          "options:\n"
          "  --config NAME|FILE   machine: a preset (tiny, mid, v5e) or a .cfg file\n"
          "                       (default: the preset whose shape the object was\n"
          "                       assembled for, else tiny)\n"
          "  --max-cycles N       the core's MAX_CYCLES register (default 1e9; 0 = none)\n"
          "  --dmi                load data through DMI pointers where the core grants\n"
          "                       them (VMEM, existing HBM pages), else b_transport\n"
          "  --quiet              print only the result line\n"
          "  -h, --help           print this help and exit\n"
          "\n"
          "exit status: 0 halted and results bit-exact (or no .expect), 1 a result\n"
          "differs or cannot be checked, 2 bad command line or config, 3 the program\n"
          "could not be loaded or did not halt, 130 Ctrl-C (or SIGTERM): the simulation\n"
          "stopped within 1000 cycles\n",
          f);
}

// A count such as 1000 or 1e9.
bool parse_count(const char *s, uint64_t *v)
{
    char *end;
    errno = 0;
    unsigned long long u = strtoull(s, &end, 0);
    if (*s && !*end && errno == 0 && s[0] != '-') {
        *v = u;
        return true;
    }
    double d = strtod(s, &end);
    if (*s && !*end && d >= 0 && d < 1.8e19 && d == std::floor(d)) {
        *v = (uint64_t)d;
        return true;
    }
    return false;
}

int parse_args(int argc, char **argv, Options *o)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            exit(EXIT_OK);
        } else if (!strcmp(a, "--config") || !strcmp(a, "--max-cycles")) {
            if (i + 1 >= argc) {
                fprintf(stderr, "tpu-vp: error: %s needs a value (try --help)\n", a);
                return -1;
            }
            const char *v = argv[++i];
            if (!strcmp(a, "--config")) {
                o->config = v;
            } else if (!parse_count(v, &o->max_cycles)) {
                fprintf(stderr, "tpu-vp: error: --max-cycles '%s' is not a cycle count\n", v);
                return -1;
            }
        } else if (!strcmp(a, "--dmi")) {
            o->dmi = true;
        } else if (!strcmp(a, "--quiet")) {
            o->quiet = true;
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "tpu-vp: error: unknown option '%s' (try --help)\n", a);
            return -1;
        } else if (o->prog) {
            fprintf(stderr, "tpu-vp: error: more than one program ('%s' and '%s')\n", o->prog, a);
            return -1;
        } else {
            o->prog = a;
        }
    }
    if (!o->prog) {
        fprintf(stderr, "tpu-vp: error: no program given (try --help)\n");
        return -1;
    }
    return 0;
}

// --config, or the preset that matches the shape the object records, or
// the defaults (tiny), as tpu-sim chooses.
int load_config(const Options &o, const tpu_object &obj, tpu_config *cfg)
{
    char err[512];
    tpu_config_defaults(cfg);
    if (o.config) {
        if (tpu_config_load(cfg, o.config, err, sizeof err)) {
            fprintf(stderr, "tpu-vp: --config %s: %s\n", o.config, err);
            return -1;
        }
        return 0;
    }
    const tpu_obj_config &w = obj.config;
    if (!w.mxu_n && !w.num_mxu && !w.vpu_sublanes && !w.vpu_lanes)
        return 0;
    for (const tpu_config_preset *p = tpu_config_presets; p->name; p++) {
        tpu_config c;
        if (tpu_config_load(&c, p->name, err, sizeof err))
            continue;
        if ((!w.mxu_n || w.mxu_n == c.mxu_n) && (!w.num_mxu || w.num_mxu == c.num_mxu)
            && (!w.vpu_sublanes || w.vpu_sublanes == c.vpu_sublanes)
            && (!w.vpu_lanes || w.vpu_lanes == c.vpu_lanes)) {
            *cfg = c;
            break;
        }
    }
    return 0;
}

// The host: a TLM initiator with the core's clock and interrupt as inputs.
struct VpHost : sc_core::sc_module {
    tlm_utils::simple_initiator_socket<VpHost> socket;
    sc_core::sc_in<bool> clk;
    sc_core::sc_in<bool> irq;

    const Options &opt;
    const tpu_object &obj;
    const tpu_config &cfg;
    int exit_code = EXIT_RUN;

    // Ctrl-C (interrupt.h): poll() looks every 1000 clock periods and
    // wakes the host, which stops the simulation.
    sc_core::sc_event interrupted;
    sc_core::sc_time poll_every;

    SC_HAS_PROCESS(VpHost);
    VpHost(sc_core::sc_module_name n, const Options &o, const tpu_object &ob,
           const tpu_config &c)
        : sc_module(n), socket("socket"), clk("clk"), irq("irq"), opt(o), obj(ob), cfg(c),
          poll_every(1000.0 / c.clock_hz, sc_core::SC_SEC)
    {
        SC_THREAD(run);
        SC_METHOD(poll);
    }

    void poll()
    {
        if (tpu_interrupted())
            interrupted.notify();
        else
            next_trigger(poll_every);
    }

    void say(const char *fmt, ...) __attribute__((format(printf, 2, 3)))
    {
        if (opt.quiet)
            return;
        va_list ap;
        va_start(ap, fmt);
        printf("tpu-vp: ");
        vprintf(fmt, ap);
        va_end(ap);
    }

    void run()
    {
        exit_code = session();
        sc_core::sc_stop();
    }

    // Load, start, wait for the interrupt, read back and check.
    int session()
    {
        Host host(socket.operator->());
        std::string err;
        if (host.load(obj, opt.dmi, &err, true) < 0) {   // memories are zero after reset
            fprintf(stderr, "tpu-vp: %s: error: %s\n", opt.prog, err.c_str());
            return EXIT_RUN;
        }
        say("%s on %s: %zu instruction words and %" PRIu64 " bytes of data written over TLM%s\n",
            opt.prog, cfg.name, obj.ntext, host.loaded_bytes() - obj.ntext * 8,
            opt.dmi ? " (DMI where granted)" : "");
        if (opt.dmi)
            say("%" PRIu64 " of them through DMI pointers\n", host.dmi_bytes());

        // Start between two clock edges (on a falling edge): the first
        // cycle is the next rising edge, half a period later.
        const sc_core::sc_time period = sc_core::sc_time(1.0 / cfg.clock_hz, sc_core::SC_SEC);
        wait(clk.negedge_event());
        if (host.write64(REG_MAX_CYCLES, opt.max_cycles) != tlm::TLM_OK_RESPONSE
            || host.write32(REG_IRQ_ENABLE, IRQ_DONE) != tlm::TLM_OK_RESPONSE
            || host.write32(REG_CTRL, CTRL_START) != tlm::TLM_OK_RESPONSE) {
            fprintf(stderr, "tpu-vp: %s: error: the core refused to start\n", opt.prog);
            return EXIT_RUN;
        }
        sc_core::sc_time t0 = sc_core::sc_time_stamp();
        auto h0 = std::chrono::steady_clock::now();
        wait(irq.posedge_event() | interrupted);
        if (!irq.read() && tpu_interrupted()) {
            fprintf(stderr, "tpu-vp: %s: interrupted at cycle %" PRIu64 "\n", opt.prog,
                    host.reg64(REG_CYCLE));
            return TPU_EXIT_INTERRUPTED;
        }
        auto h1 = std::chrono::steady_clock::now();
        sc_core::sc_time t1 = sc_core::sc_time_stamp();
        double host_s = std::chrono::duration<double>(h1 - h0).count();

        uint32_t status = host.reg32(REG_STATUS), error = host.reg32(REG_ERROR);
        uint64_t cycles = host.reg64(REG_CYCLE), pc = host.reg64(REG_PC);
        uint64_t insns = host.reg64(REG_INSTRET);
        host.write32(REG_IRQ_STATUS, IRQ_DONE);     // acknowledge
        // Clock edges from the first (half a period after the start) to the
        // one whose cycle ended the run.
        double periods = (t1 - t0) / period + 0.5;
        uint32_t state = status & STATUS_STATE_MASK;
        if (state != STATE_HALTED) {
            char text[ERROR_TEXT_SIZE] = "";
            host.access(tlm::TLM_READ_COMMAND, REG_ERROR_TEXT, text, ERROR_TEXT_SIZE);
            text[ERROR_TEXT_SIZE - 1] = 0;
            fprintf(stderr, "tpu-vp: %s: error: the run stopped after %" PRIu64
                    " cycles (STATUS %#x, ERROR %u): %s\n", opt.prog, cycles, status, error,
                    text[0] ? text : "no error text");
            return EXIT_RUN;
        }
        say("halt after %" PRIu64 " cycles (%.0f clock periods of %s): pc %" PRIu64
            ", %" PRIu64 " instructions\n", cycles, periods, period.to_string().c_str(), pc,
            insns);
        print_result(host);

        tpu_expect_result res;
        host.check(obj, &res);
        printf("result: %s", res.message);
        if (res.status == TPU_EXPECT_PASS)
            printf(" (%u check%s, results read over TLM)", res.checked, res.checked == 1 ? "" : "s");
        printf("\n");
        say("%" PRIu64 " cycles in %.3g s of host time: %.0f simulated cycles per host second\n",
            cycles, host_s, host_s > 0 ? (double)cycles / host_s : 0.0);
        return res.status == TPU_EXPECT_PASS || res.status == TPU_EXPECT_NONE ? EXIT_OK
                                                                              : EXIT_MISMATCH;
    }

    // The first values of the first .expect record's output region (fp32
    // for every op but copy), read over TLM.
    void print_result(Host &host)
    {
        if (!obj.nexpects || obj.expects[0].nops < 1)
            return;
        const tpu_obj_expect &e = obj.expects[0];
        const tpu_obj_expect_operand &out = e.ops[0];
        if (out.space != TPU_SPACE_HBM && out.space != TPU_SPACE_VMEM)
            return;
        float v[8];
        std::string err;
        if (host.mem_read((enum tpu_space)out.space, out.value, v, sizeof v, &err) < 0)
            return;
        const char *name = tpu_expect_op_name(e.op);
        say("%s result at %s 0x%" PRIx64 ":", name ? name : "expect",
            out.space == TPU_SPACE_HBM ? "hbm" : "vmem", out.value);
        if (!opt.quiet) {
            for (float f : v)
                printf(" %g", (double)f);
            printf(" ...\n");
        }
    }
};

}  // namespace

int sc_main(int argc, char **argv)
{
    Options opt;
    // The output is the run's: no "Simulation stopped by user".  (SystemC's
    // banner is turned off by no_banner.cpp.)
    sc_core::sc_report_handler::set_actions("/OSCI/SystemC", sc_core::SC_INFO,
                                            sc_core::SC_DO_NOTHING);
    if (parse_args(argc, argv, &opt) < 0)
        return EXIT_USAGE;

    char err[600];
    tpu_object obj;
    tpu_obj_init(&obj);
    if (tpu_obj_read(opt.prog, &obj, err, sizeof err) < 0) {     // err names the file
        fprintf(stderr, "tpu-vp: error: %s\n", err);
        return EXIT_RUN;
    }
    tpu_config cfg;
    if (load_config(opt, obj, &cfg) < 0) {
        tpu_obj_free(&obj);
        return EXIT_USAGE;
    }

    tpu_interrupt_install();
    int code;
    try {
        sc_core::sc_clock clock("clock", sc_core::sc_time(1.0 / cfg.clock_hz, sc_core::SC_SEC));
        sc_core::sc_signal<bool> irq("irq");
        tpu_core_tlm core("tpu", cfg);
        VpHost host("host", opt, obj, cfg);
        core.clk(clock);
        core.irq(irq);
        host.clk(clock);
        host.irq(irq);
        host.socket.bind(core.socket);
        sc_core::sc_start();
        code = host.exit_code;
    } catch (const std::invalid_argument &e) {
        fprintf(stderr, "tpu-vp: config %s: %s\n", cfg.name, e.what());
        code = EXIT_USAGE;
    }
    tpu_obj_free(&obj);
    return code;
}
