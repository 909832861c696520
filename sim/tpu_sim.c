/*
 * tpu_sim.c - tpu-sim, run an object file on the C model and report.
 *
 *   tpu-sim [--config NAME|FILE] [--set k=v]... [--cores K --topology
 *           ring|torus2d|mesh2d [--grid RxC]] [--max-cycles N] [--json]
 *           [--quiet] [--step [--echo] | --animate [--delay MS]]
 *           [--timeline FILE] [--vcd FILE] [--html FILE [--html-cycles A:B]]
 *           [--check-races] [--load LABEL=FILE.npy]... [--dump LABEL=FILE.npy]...
 *           prog.bin
 *
 * Loads the object, builds the system, runs it to halt, checks the
 * object's .expect records (cmodel/expect.c) and prints the report
 * (sim/view/report.c).  docs/tpu-sim.md is the user's page.  --step hands the
 * system to the stepper (sim/view/stepper.c) instead, --animate draws each
 * cycle first (sim/view/animate.c); docs/stepper.md.  --timeline and --vcd
 * write the run as it goes (sim/view/trace.c; docs/timeline.md), --html a
 * page that replays it in a browser (sim/view/html.c; docs/tpu-sim.md).
 * --check-races watches the run for accesses that went against the
 * program's order (sim/view/races.c).  --load puts a .npy array into the
 * object at an `.array` label before the run (so the .expect checks use
 * it too), --dump writes one out after it (sim/data/array_io.c).
 * Exit status: 0 halted and bit-exact (or nothing to check), 1 a result
 * differs or cannot be checked, 2 bad command line or configuration,
 * 3 the program could not be loaded or did not halt (run-time error,
 * cycle limit), 4 it halted but --check-races found a race.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "array_io.h"
#include "cli.h"
#include "config.h"
#include "expect.h"
#include "interrupt.h"
#include "objfile.h"
#include "progress.h"
#include "races.h"
#include "report.h"
#include "run.h"
#include "stepper.h"
#include "tpu.h"
#include "trace.h"
#ifdef TPU_SIM_MPI
#include "sim_mpi.h"        /* tpu-sim-mpi: the same command over MPI ranks */
#endif

#define DEFAULT_MAX_CYCLES 1000000000ull
#define MAX_SETS 256
#define MAX_ARRAYS 64               /* --load and --dump options, each */

enum { EXIT_OK = 0, EXIT_MISMATCH = 1, EXIT_USAGE = 2, EXIT_RUN = 3, EXIT_RACE = 4 };

static void usage(FILE *f)
{
    fputs("usage: tpu-sim [options] PROG.bin\n"
          "\n"
          "Run an object file (from tpu-as) on the cycle-accurate C model until it halts,\n"
          "check its .expect results bit for bit and print a report: cycles, FLOPs, bytes,\n"
          "roofline bound and verdict, unit busy/stall cycles (docs/tpu-sim.md).\n"
          "\n"
          "options:\n"
          "  --config NAME|FILE   machine: a preset (tiny, mid, v5e, tpuv1, v4p, v5p,\n"
          "                       v6e) or a .cfg file (default: the first preset, in that\n"
          "                       order, whose shape the object was assembled for, else\n"
          "                       tiny)\n"
          "  --set KEY=VALUE      override one config key (repeatable)\n"
          "  --cores K            run K cores stepping together (default 1)\n"
          "  --threads N          host threads for several cores (default: the CPUs),\n"
          "                       which run windows of ici_latency cycles apart; 0: the\n"
          "                       plain loop, every core one cycle at a time.  The\n"
          "                       results are the same for any N; --step, --animate,\n"
          "                       --timeline, --vcd and --html use the plain loop\n"
          "  --topology T         ring, torus2d, mesh2d (2-D without wraparound) or\n"
          "                       torus3d (6 ports: +x -x +y -y +z -z); default ring\n"
          "                       when K > 1\n"
          "  --grid RxC           rows x columns for torus2d/mesh2d (default: the most\n"
          "                       square factorisation of K)\n"
          "  --grid XxYxZ         the torus3d's axes (default: the most cubic\n"
          "                       factorisation of K); X * Y * Z must be K\n"
          "  --max-cycles N       stop with an error after N cycles (default 1000000000;\n"
          "                       0 = no limit)\n"
          "  --json               print the report as one JSON object\n"
          "  --quiet              print only the result line\n"
          "  --step               open the interactive stepper instead of running\n"
          "                       (commands from standard input; docs/stepper.md)\n"
          "  --echo               with --step: print each command read (transcripts)\n"
          "  --animate            draw the units and MXU 0 every cycle (colour on a\n"
          "                       terminal, plain text otherwise), then report\n"
          "  --delay MS           pause between --animate frames (default 100 on a\n"
          "                       terminal, else 0)\n"
          "  --timeline FILE      write a Chrome trace-event timeline (Perfetto): a track\n"
          "                       per unit, a slice per instruction or transfer, counters\n"
          "                       every 100 cycles; 1 cycle = 1 us on its time axis\n"
          "  --vcd FILE           write the units' signals as a VCD (GTKWave), under the\n"
          "                       RTL's names; 10 time units per cycle\n"
          "  --html FILE          write one self-contained HTML page that replays the run\n"
          "                       cycle by cycle in a browser (core 0: MXU cells, units,\n"
          "                       queues, semaphores, counters); FILE#cycle=N opens it\n"
          "                       at cycle N\n"
          "  --html-cycles A:B    with --html: record cycles A to B-1 only (A: from A to\n"
          "                       the end, :B from 0); default the whole run, up to 64 MiB\n"
          "                       of data\n"
          "  --check-races        report VMEM races: a read of bytes a DMA (or ICI copy)\n"
          "                       or an MXU/VPU instruction issued before it has not\n"
          "                       written yet, a write over bytes an earlier instruction\n"
          "                       has not read yet; each with its cycle, both\n"
          "                       instructions and the bytes (with --step: 'races on')\n"
          "  --load LABEL=FILE    before the run, put the .npy array FILE into the program's\n"
          "                       data at LABEL, a label with an .array line (its type and\n"
          "                       shape; float32 is rounded to nearest even for a bf16\n"
          "                       array); the .expect checks use it too (repeatable)\n"
          "  --dump LABEL=FILE    after the run halts, write the array at LABEL (core 0) to\n"
          "                       the .npy file FILE, bf16 as float32 (repeatable)\n"
          "  -h, --help           print this help and exit\n"
          "\n"
          "exit status: 0 halted and results bit-exact (or no .expect), 1 a result differs\n"
          "or cannot be checked, 2 bad command line or config, 3 the program could not be\n"
          "loaded or did not halt (run-time error, deadlock, cycle limit), 4 it halted and\n"
          "--check-races found a race (before 1), 130 Ctrl-C: the run stopped at the next\n"
          "cycle, the report so far printed and the files closed (a second Ctrl-C a\n"
          "second later ends it at once)\n", f);
}

static int bad_usage(const char *fmt, const char *arg)
{
    fprintf(stderr, "tpu-sim: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\nTry 'tpu-sim --help'.\n");
    return EXIT_USAGE;
}

/* The command line. */
typedef struct options {
    const char *config;
    const char *sets[MAX_SETS];
    unsigned nsets;
    unsigned cores;               /* 0: not given */
    const char *topology;         /* NULL: not given */
    unsigned rows, cols;          /* 0: not given */
    unsigned gz;                  /* --grid's third number (torus3d), 0: two numbers */
    uint64_t max_cycles;
    unsigned threads;             /* --threads; not given: as many as the host has CPUs */
    int threads_given;
    int json, quiet;
    int step, echo, animate;      /* the stepper (sim/view/stepper.c), --animate */
    int check_races;              /* sim/view/races.h */
    int64_t delay_ms;             /* -1: not given */
    const char *timeline, *vcd;   /* sim/view/trace.h: NULL when not given */
    const char *html;             /* sim/view/html.h: NULL when not given */
    const char *html_cycles;      /* --html-cycles as given, NULL when not */
    uint64_t html_first, html_end;  /* cycles first .. end-1 (end 0: to the end) */
    const char *loads[MAX_ARRAYS], *dumps[MAX_ARRAYS];  /* LABEL=FILE */
    unsigned nloads, ndumps;
    const char *prog;
} options;

/* LABEL=FILE of --load/--dump into label (NUL-terminated copy) and file;
 * -1 when it is not that. */
static int split_array_arg(const char *v, char *label, size_t len, const char **file)
{
    const char *eq = strchr(v, '=');
    if (!eq || eq == v || !eq[1] || (size_t)(eq - v) >= len)
        return -1;
    memcpy(label, v, (size_t)(eq - v));
    label[eq - v] = 0;
    *file = eq + 1;
    return 0;
}

/* A whole number in [0, max], decimal ("1000000") or with an exponent
 * ("1e9", when whole); -1 when it is not one. */
static int parse_u64(const char *s, uint64_t max, uint64_t *out)
{
    if (!*s)
        return -1;
    if (strpbrk(s, "eE")) {
        char *end;
        double d = strtod(s, &end);
        if (*end || !(d >= 0) || d > (double)max || d > 9.2e18 || d != (double)(uint64_t)d)
            return -1;
        *out = (uint64_t)d;
        return 0;
    }
    uint64_t v = 0;
    for (; *s; s++) {
        if (*s < '0' || *s > '9')
            return -1;
        unsigned d = (unsigned)(*s - '0');
        if (v > (max - d) / 10)
            return -1;
        v = v * 10 + d;
    }
    *out = v;
    return 0;
}

/* --html-cycles A:B, A: or :B into first and end (0: to the end of the
 * run); -1 when it is not one of those with A < B. */
static int parse_cycles(const char *s, uint64_t *first, uint64_t *end)
{
    const char *colon = strchr(s, ':');
    char a[32];
    if (!colon || (size_t)(colon - s) >= sizeof a)
        return -1;
    memcpy(a, s, (size_t)(colon - s));
    a[colon - s] = 0;
    *first = 0;
    *end = 0;
    if (a[0] && parse_u64(a, UINT64_MAX - 1, first))
        return -1;
    if (colon[1] && (parse_u64(colon + 1, UINT64_MAX, end) || *end <= *first))
        return -1;
    return a[0] || colon[1] ? 0 : -1;
}

/* Parse argv into o; returns -1 after printing the help (exit 0), or an
 * exit status > 0 on a bad command line, or 0. */
static int parse_args(int argc, char **argv, options *o)
{
    memset(o, 0, sizeof *o);
    o->max_cycles = DEFAULT_MAX_CYCLES;
    o->delay_ms = -1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v;
        int missing = 0;
        uint64_t n;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return -1;
        } else if (!strcmp(a, "--json")) {
            o->json = 1;
        } else if (!strcmp(a, "--quiet")) {
            o->quiet = 1;
        } else if (!strcmp(a, "--step")) {
            o->step = 1;
        } else if (!strcmp(a, "--echo")) {
            o->echo = 1;
        } else if (!strcmp(a, "--animate")) {
            o->animate = 1;
        } else if (!strcmp(a, "--check-races")) {
            o->check_races = 1;
        } else if ((v = tpu_cli_opt_value(argc, argv, &i, "--delay", &missing))) {
            if (parse_u64(v, 3600000, &n))
                return bad_usage("--delay wants milliseconds (0 to 3600000), not '%s'", v);
            o->delay_ms = (int64_t)n;
        } else if ((v = tpu_cli_opt_value(argc, argv, &i, "--config", &missing))) {
            o->config = v;
        } else if ((v = tpu_cli_opt_value(argc, argv, &i, "--timeline", &missing))) {
            o->timeline = v;
        } else if ((v = tpu_cli_opt_value(argc, argv, &i, "--vcd", &missing))) {
            o->vcd = v;
        } else if ((v = tpu_cli_opt_value(argc, argv, &i, "--html-cycles", &missing))) {
            if (parse_cycles(v, &o->html_first, &o->html_end))
                return bad_usage("--html-cycles wants A:B, cycles A to B-1 with A < B (or A: or "
                                 ":B), e.g. 0:10000, not '%s'", v);
            o->html_cycles = v;
        } else if ((v = tpu_cli_opt_value(argc, argv, &i, "--html", &missing))) {
            o->html = v;
        } else if ((v = tpu_cli_opt_value(argc, argv, &i, "--load", &missing))
                   || (!missing && (v = tpu_cli_opt_value(argc, argv, &i, "--dump", &missing)))) {
            int load = !strncmp(a, "--load", 6);
            char label[256];
            const char *file;
            if (split_array_arg(v, label, sizeof label, &file))
                return bad_usage(load ? "--load wants LABEL=FILE.npy, not '%s'"
                                      : "--dump wants LABEL=FILE.npy, not '%s'", v);
            if ((load ? o->nloads : o->ndumps) == MAX_ARRAYS)
                return bad_usage(load ? "too many --load options (at most %s)"
                                      : "too many --dump options (at most %s)", "64");
            if (load)
                o->loads[o->nloads++] = v;
            else
                o->dumps[o->ndumps++] = v;
        } else if ((v = tpu_cli_opt_value(argc, argv, &i, "--set", &missing))) {
            if (o->nsets == MAX_SETS)
                return bad_usage("too many --set options (at most %s)", "256");
            o->sets[o->nsets++] = v;
        } else if ((v = tpu_cli_opt_value(argc, argv, &i, "--cores", &missing))) {
            if (parse_u64(v, 4096, &n) || n == 0)
                return bad_usage("--cores wants a number from 1 to 4096, not '%s'", v);
            o->cores = (unsigned)n;
        } else if ((v = tpu_cli_opt_value(argc, argv, &i, "--threads", &missing))) {
            if (parse_u64(v, 1024, &n))
                return bad_usage("--threads wants a number from 0 to 1024, not '%s'", v);
            o->threads = (unsigned)n;
            o->threads_given = 1;
        } else if ((v = tpu_cli_opt_value(argc, argv, &i, "--topology", &missing))) {
            if (strcmp(v, "ring") && strcmp(v, "torus2d") && strcmp(v, "mesh2d") &&
                strcmp(v, "torus3d"))
                return bad_usage("--topology is ring, torus2d, mesh2d or torus3d, not '%s'", v);
            o->topology = v;
        } else if ((v = tpu_cli_opt_value(argc, argv, &i, "--grid", &missing))) {
            /* RxC, or XxYxZ (torus3d) */
            char part[3][32];
            uint64_t num[3];
            unsigned np = 0;
            const char *at = v;
            for (;;) {
                const char *x = strchr(at, 'x');
                size_t len = x ? (size_t)(x - at) : strlen(at);
                if (np == 3 || len >= sizeof part[0])
                    return bad_usage("--grid wants ROWSxCOLS (e.g. 2x4) or XxYxZ, not '%s'", v);
                memcpy(part[np], at, len);
                part[np][len] = 0;
                if (parse_u64(part[np], 4096, &num[np]) || !num[np])
                    return bad_usage("--grid wants ROWSxCOLS (e.g. 2x4) or XxYxZ, not '%s'", v);
                np++;
                if (!x)
                    break;
                at = x + 1;
            }
            if (np < 2)
                return bad_usage("--grid wants ROWSxCOLS (e.g. 2x4) or XxYxZ, not '%s'", v);
            if (np == 2) {
                o->rows = (unsigned)num[0];
                o->cols = (unsigned)num[1];
                o->gz = 0;
            } else {                          /* X x Y x Z: cols, rows, depth */
                o->cols = (unsigned)num[0];
                o->rows = (unsigned)num[1];
                o->gz = (unsigned)num[2];
            }
        } else if ((v = tpu_cli_opt_value(argc, argv, &i, "--max-cycles", &missing))) {
            if (parse_u64(v, UINT64_MAX, &n))
                return bad_usage("--max-cycles wants a whole number, not '%s'", v);
            o->max_cycles = n;
        } else if (missing) {
            return bad_usage("option '%s' needs a value", a);
        } else if (a[0] == '-' && a[1]) {
            return bad_usage("unknown option '%s'", a);
        } else if (o->prog) {
            return bad_usage("only one program is allowed (got '%s' too)", a);
        } else {
            o->prog = a;
        }
    }
    if (!o->prog)
        return bad_usage("%s", "no program given");
    if (o->step && o->animate)
        return bad_usage("%s", "--step and --animate cannot be used together");
    if ((o->step || o->animate) && (o->timeline || o->vcd || o->html))
        return bad_usage("%s", "--timeline, --vcd and --html cannot be used with --step or "
                               "--animate");
    if (o->html_cycles && !o->html)
        return bad_usage("%s", "--html-cycles needs --html FILE");
    if (o->step && o->ndumps)
        return bad_usage("%s", "--dump cannot be used with --step (the stepper's 'x' command "
                               "shows memory)");
    return 0;
}

/* The system's shape from --cores/--topology/--grid. */
static int system_shape(const options *o, tpu_system_opts *so, char *topo, size_t len)
{
    memset(so, 0, sizeof *so);
    unsigned k = o->cores;
    if (o->rows && !k)
        k = o->rows * o->cols * (o->gz ? o->gz : 1);
    if (!k)
        k = 1;
    so->cores = k;
    const char *t = o->topology ? o->topology : (k > 1 || o->rows ? "ring" : "single");
    if (o->rows && strcmp(t, "torus2d") && strcmp(t, "mesh2d") && strcmp(t, "torus3d"))
        return bad_usage("--grid needs --topology torus2d, mesh2d or torus3d (topology is %s)",
                         t);
    if (o->rows && !strcmp(t, "torus3d") && !o->gz)
        return bad_usage("--grid of a torus3d wants XxYxZ (e.g. 2x2x2), not %s", "two numbers");
    if (o->rows && strcmp(t, "torus3d") && o->gz)
        return bad_usage("--grid XxYxZ needs --topology torus3d (topology is %s)", t);
    if (!strcmp(t, "torus3d")) {
        so->topology = TPU_TOPO_TORUS3D;
        if (o->rows) {
            so->cols = o->cols;
            so->rows = o->rows;
            so->depth = o->gz;
            if ((uint64_t)o->cols * o->rows * o->gz != k) {
                char msg[48];
                snprintf(msg, sizeof msg, "%ux%ux%u", o->cols, o->rows, o->gz);
                return bad_usage("--grid %s does not match --cores (X * Y * Z must be the "
                                 "number of cores)", msg);
            }
        } else {
            /* the most cubic factorisation: X >= Y >= Z, Z the largest
             * cube root divisor, then Y the largest square root one */
            unsigned z = 1, y = 1;
            for (unsigned d = 1; (uint64_t)d * d * d <= k; d++)
                if (k % d == 0)
                    z = d;
            for (unsigned d = 1; (uint64_t)d * d <= k / z; d++)
                if ((k / z) % d == 0)
                    y = d;
            so->depth = z;
            so->rows = y;
            so->cols = k / z / y;
        }
        snprintf(topo, len, "torus3d %ux%ux%u", so->cols, so->rows, so->depth);
        return 0;
    }
    if (!strcmp(t, "single")) {
        so->topology = TPU_TOPO_SINGLE;
        snprintf(topo, len, "single");
        return 0;
    }
    if (!strcmp(t, "ring")) {
        so->topology = TPU_TOPO_RING;
        snprintf(topo, len, "ring");
        return 0;
    }
    so->topology = strcmp(t, "torus2d") ? TPU_TOPO_MESH2D : TPU_TOPO_TORUS2D;
    if (o->rows) {
        so->rows = o->rows;
        so->cols = o->cols;
        if ((uint64_t)o->rows * o->cols != k) {
            char msg[32];
            snprintf(msg, sizeof msg, "%ux%u", o->rows, o->cols);
            return bad_usage("--grid %s does not match --cores", msg);
        }
    } else {
        unsigned r = 1;                       /* the most square factorisation */
        for (unsigned d = 1; (uint64_t)d * d <= k; d++)
            if (k % d == 0)
                r = d;
        so->rows = r;
        so->cols = k / r;
    }
    snprintf(topo, len, "%s %ux%u", t, so->rows, so->cols);
    return 0;
}

/* --config, or the preset that matches the shape the object records, or
 * the defaults (tiny). */
static int load_config(const options *o, const tpu_object *obj, tpu_config *cfg)
{
    tpu_config_defaults(cfg);
    if (o->config) {
        if (tpu_cli_load_config("tpu-sim", o->config, cfg))
            return EXIT_USAGE;
    } else if (obj->config.mxu_n || obj->config.num_mxu || obj->config.vpu_lanes) {
        const tpu_obj_config *w = &obj->config;
        char err[512];
        for (const tpu_config_preset *p = tpu_config_presets; p->name; p++) {
            tpu_config c;
            tpu_config_defaults(&c);
            if (tpu_config_load(&c, p->name, err, sizeof err))
                continue;
            if ((!w->mxu_n || w->mxu_n == c.mxu_n) && (!w->num_mxu || w->num_mxu == c.num_mxu)
                && (!w->vpu_sublanes || w->vpu_sublanes == c.vpu_sublanes)
                && (!w->vpu_lanes || w->vpu_lanes == c.vpu_lanes)) {
                *cfg = c;
                break;
            }
        }
    }
    return tpu_cli_finish_config("tpu-sim", cfg, o->sets, o->nsets) ? EXIT_USAGE : 0;
}

/* --check-races: one line per race before the report ("races: none" when
 * there is none), so that `result:` stays the last line. */
static void print_races(const tpu_races *r, unsigned ncores)
{
    size_t n = tpu_races_count(r);
    for (size_t i = 0; i < n; i++) {
        char line[800];
        tpu_race_text(tpu_races_get(r, i), 1, ncores, line, sizeof line);
        printf("%s\n", line);
    }
    uint64_t more = tpu_races_dropped(r);
    if (!n)
        printf("races: none\n");
    else if (more)
        printf("races: %zu shown, %llu more not kept\n", n, (unsigned long long)more);
    else
        printf("races: %zu\n", n);
}

/* The report's one-line JSON object with the race fields added before its
 * closing brace (report.c knows nothing of races). */
static void json_with_races(const tpu_report *rep, const tpu_races *r)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    if (!m) {
        tpu_report_json(stdout, rep);
        return;
    }
    tpu_report_json(m, rep);
    fclose(m);
    char *end = buf ? strrchr(buf, '}') : NULL;
    if (!end) {
        fputs(buf ? buf : "", stdout);
    } else {
        fwrite(buf, 1, (size_t)(end - buf), stdout);
        fputs(", ", stdout);
        tpu_races_json_fields(r, stdout);
        fputs(end, stdout);
    }
    free(buf);
}

/* --dump after the run: each array from core 0's memory, when every core
 * halted (else none is written).  Returns 1 when a file could not be
 * written. */
static int write_dumps(const options *o, const tpu_object *obj, tpu_system *s, int halted)
{
    int failed = 0;
    for (unsigned i = 0; i < o->ndumps; i++) {
        char label[256], err[1200];
        const char *file;
        split_array_arg(o->dumps[i], label, sizeof label, &file);
        if (!halted) {
            fprintf(stderr, "tpu-sim: note: --dump %s not written: the run did not halt\n",
                    o->dumps[i]);
            continue;
        }
        if (!tpu_system_owns(s, 0)) {
            fprintf(stderr, "tpu-sim: error: --dump %s: core 0 is not in this process\n",
                    o->dumps[i]);
            failed = 1;
            continue;
        }
        if (tpu_array_dump(tpu_system_core(s, 0), obj, label, file, o->prog, err, sizeof err)) {
            fprintf(stderr, "tpu-sim: %s\n", err);
            failed = 1;
        }
    }
    return failed;
}

/* --load and --dump before the run: every --load into the object (the
 * machine's memories bound the arrays), every --dump's label checked.
 * Returns 0 or EXIT_USAGE after one message. */
static int apply_loads(const options *o, tpu_object *obj, const tpu_config *cfg)
{
    char label[256], err[1200];
    const char *file;
    for (unsigned i = 0; i < o->nloads; i++) {
        split_array_arg(o->loads[i], label, sizeof label, &file);
        if (tpu_array_load(obj, label, file, o->prog, cfg->hbm_bytes, cfg->vmem_bytes, err,
                           sizeof err)) {
            fprintf(stderr, "tpu-sim: %s\n", err);
            return EXIT_USAGE;
        }
    }
    for (unsigned i = 0; i < o->ndumps; i++) {
        const tpu_obj_symbol *sym;
        const tpu_obj_array *arr;
        split_array_arg(o->dumps[i], label, sizeof label, &file);
        if (tpu_array_find(obj, label, "--dump", o->dumps[i], o->prog, &sym, &arr, err,
                           sizeof err)) {
            fprintf(stderr, "tpu-sim: %s\n", err);
            return EXIT_USAGE;
        }
    }
    return 0;
}

/* The run of sim/run.h through the files that watch it (trace.h). */
static enum tpu_stop run_traced(void *ctx, tpu_system *s, const tpu_run_limits *l)
{
    return tpu_trace_run(s, l->max_cycles, ctx);
}

/* Run the loaded system and report; returns the exit status. */
static int run_and_report(const options *o, tpu_run *run, const char *topo, tpu_trace *tr,
                          tpu_races *races)
{
    tpu_system *s = run->sys;
    const tpu_object *obj = &run->obj;
    const tpu_config *cfg = run->cfg;
    /* Ctrl-C stops the run at a cycle boundary; the files are closed and
     * the report printed as for any other stop (interrupt.h). */
    tpu_progress prog;
    tpu_progress_init(&prog, "tpu-sim", stderr);
    tr->progress = &prog;
    run->runner = run_traced;
    run->runner_ctx = tr;
    run->limits.max_cycles = o->max_cycles;
    run->check = 1;
#ifdef TPU_SIM_MPI
    /* every rank must stop at the same window: Ctrl-C ends them all (mpirun);
     * rank 0 checks, reading the others' cores (sim_mpi.h) */
    tr->interruptible = 0;
    run->check = tpu_mpi_rank() == 0;
    run->check_read = tpu_mpi_read;
    run->check_ctx = s;
#else
    tr->interruptible = 1;
    tpu_interrupt_install();
#endif
    run->limits.interruptible = tr->interruptible;
    tpu_run_go(run);
    enum tpu_stop stop = run->stop;
#ifdef TPU_SIM_MPI
    if (tpu_mpi_rank() != 0)
        return tpu_mpi_finish(s, 0);    /* answer rank 0's reads; its exit status */
#endif
    tpu_progress_clear(&prog);
    if (races) {
        tpu_races_flush(races);
        if (tpu_races_lost(races))
            fprintf(stderr, "tpu-sim: warning: the race checker lost track of %llu VMEM "
                    "access%s (a bug: races may be missed)\n",
                    (unsigned long long)tpu_races_lost(races),
                    tpu_races_lost(races) == 1 ? "" : "es");
    }
    int interrupted = run->end == TPU_RUN_INTERRUPTED;
    char terr[512];
    int trace_failed = tpu_trace_close(tr, terr, sizeof terr) != 0;
    if (trace_failed)
        fprintf(stderr, "tpu-sim: error: %s\n", terr);
    uint64_t ran = tpu_system_cycle(s);
    if (tr->html && !tpu_html_cycles(tr->html))
        fprintf(stderr, "tpu-sim: note: %s has no cycle: the run ended after %llu cycle%s%s%s\n",
                o->html, (unsigned long long)ran, ran == 1 ? "" : "s",
                o->html_cycles ? ", before --html-cycles " : "",
                o->html_cycles ? o->html_cycles : "");
    else if (tr->html && tpu_html_truncated(tr->html))
        fprintf(stderr, "tpu-sim: note: %s holds cycles %llu to %llu only: its data reached "
                "%llu MiB (choose the cycles with --html-cycles A:B)\n", o->html,
                (unsigned long long)tpu_html_first(tr->html),
                (unsigned long long)(tpu_html_first(tr->html) + tpu_html_cycles(tr->html) - 1),
                (unsigned long long)(TPU_HTML_DEFAULT_MAX_BYTES >> 20));
    unsigned ncores = tpu_system_ncores(s);
    tpu_stats *st = calloc(ncores ? ncores : 1, sizeof *st);
    if (!st) {
        fprintf(stderr, "tpu-sim: out of memory\n");
        return EXIT_RUN;
    }
    for (unsigned i = 0; i < ncores; i++)
#ifdef TPU_SIM_MPI
        tpu_mpi_core_stats(s, i, &st[i]);
#else
        tpu_core_stats(tpu_system_core(s, i), &st[i]);
#endif

    char error[600] = "";
    if (interrupted) {
        fprintf(stderr, "tpu-sim: interrupted at cycle %llu: the report so far\n",
                (unsigned long long)tpu_system_cycle(s));
    } else if (stop != TPU_STOP_HALT) {
        const char *e = tpu_system_error(s);
        if (e && e[0])
            snprintf(error, sizeof error, "%s", e);
        else if (stop == TPU_STOP_CYCLE_LIMIT)
            snprintf(error, sizeof error, "cycle %llu: cycle limit reached (--max-cycles %llu)",
                     (unsigned long long)tpu_system_cycle(s), (unsigned long long)o->max_cycles);
        else
            snprintf(error, sizeof error, "cycle %llu: the run stopped before halt",
                     (unsigned long long)tpu_system_cycle(s));
        fprintf(stderr, "tpu-sim: error: %s\n", error);
    }

    tpu_report rep;
    memset(&rep, 0, sizeof rep);
    rep.program = o->prog;
    rep.cfg = cfg;
    rep.topology = topo;
    rep.ncores = ncores;
    rep.core = st;
    rep.cycles = tpu_system_cycle(s);
    rep.stop = stop;
    rep.interrupted = interrupted;
    rep.error = error;
    rep.unit_name = tpu_unit_id_name;
    rep.reason_name = tpu_stall_reason_name;
    rep.expect = run->expect;
    rep.checked = run->checked;

    if (o->json && races) {
        json_with_races(&rep, races);
    } else if (o->json) {
        tpu_report_json(stdout, &rep);
    } else if (o->quiet) {
        char line[600];
        if (races)
            print_races(races, ncores);
        tpu_report_result_line(&rep, line, sizeof line);
        printf("result: %s\n", line);
    } else {
        if (races)
            print_races(races, ncores);
        tpu_report_text(stdout, &rep);
    }
    fflush(stdout);
    free(st);
    int dump_failed = write_dumps(o, obj, s, stop == TPU_STOP_HALT && !interrupted);
    int rc = EXIT_OK;
    if (interrupted)
        rc = TPU_EXIT_INTERRUPTED;
    else if (stop != TPU_STOP_HALT || trace_failed || dump_failed)
        rc = EXIT_RUN;
    else if (races && tpu_races_count(races))
        rc = EXIT_RACE;             /* the likely cause of a mismatch too */
    else if (rep.expect.status == TPU_EXPECT_MISMATCH || rep.expect.status == TPU_EXPECT_ERROR)
        rc = EXIT_MISMATCH;
#ifdef TPU_SIM_MPI
    rc = tpu_mpi_finish(s, rc);
#endif
    return rc;
}

#ifdef TPU_SIM_MPI
static int tpu_sim(int argc, char **argv);

int main(int argc, char **argv)
{
    if (tpu_mpi_init(&argc, &argv)) {
        fprintf(stderr, "tpu-sim-mpi: MPI_Init failed\n");
        return EXIT_RUN;
    }
    if (tpu_mpi_rank() != 0) {      /* rank 0 speaks for all: the runs are the same */
        if (!freopen("/dev/null", "w", stdout) || !freopen("/dev/null", "w", stderr))
            return EXIT_RUN;
    }
    int rc = tpu_sim(argc, argv);
    tpu_mpi_end();
    return rc;
}

static int tpu_sim(int argc, char **argv)
#else
int main(int argc, char **argv)
#endif
{
    options o;
    int rc = parse_args(argc, argv, &o);
    if (rc)
        return rc < 0 ? EXIT_OK : rc;
    tpu_system_opts so;
    char topo[64];
    if ((rc = system_shape(&o, &so, topo, sizeof topo)))
        return rc;

    char err[512];
    tpu_object obj0;
    if (tpu_obj_read(o.prog, &obj0, err, sizeof err)) {
        fprintf(stderr, "tpu-sim: error: %s\n", err);      /* err names the file */
        return EXIT_RUN;
    }
    tpu_config cfg;
    tpu_run run = { .cfg = &cfg, .system = &so };
    tpu_run_init(&run);
    tpu_run_take(&run, &obj0);
    tpu_object *obj = &run.obj;
    if ((rc = load_config(&o, obj, &cfg)) || (rc = apply_loads(&o, obj, &cfg))) {
        tpu_run_free(&run);
        return rc;
    }
    tpu_trace tr = { 0 };
    tpu_races *races = NULL;
    tpu_html_opts html = { .obj = obj, .cfg = &cfg, .program = o.prog, .first = o.html_first,
                           .end = o.html_end };
    if (tpu_run_create(&run)) {
        fprintf(stderr, "tpu-sim: %s\n", run.error);
        tpu_run_free(&run);
        return EXIT_USAGE;
    }
    tpu_system *s = run.sys;
    unsigned threads = o.threads;
    if (!o.threads_given) {
        long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
        threads = ncpu > 0 ? (unsigned)ncpu : 1;
    }
    tpu_system_set_threads(s, threads);
#ifdef TPU_SIM_MPI
    if (tpu_mpi_size() > 1
        && (o.step || o.animate || o.timeline || o.vcd || o.html || o.check_races)) {
        fprintf(stderr, "tpu-sim-mpi: --step, --animate, --timeline, --vcd, --html and "
                "--check-races run on one rank (use tpu-sim)\n");
        tpu_run_free(&run);
        return EXIT_USAGE;
    }
    if (tpu_mpi_attach(s, err, sizeof err)) {
        fprintf(stderr, "tpu-sim-mpi: %s\n", err);
        tpu_run_free(&run);
        return EXIT_USAGE;
    }
#endif
    if (tpu_run_load(&run)) {
        fprintf(stderr, "tpu-sim: error: %s: %s\n", o.prog, run.error);
        rc = EXIT_RUN;
    } else if (o.step) {
        tpu_stepper_opts so = { .sys = s, .obj = obj, .cfg = &cfg, .program = o.prog,
                                .topology = topo, .max_cycles = o.max_cycles, .in = stdin,
                                .out = stdout, .prompt = isatty(0), .echo = o.echo,
                                .color = isatty(1), .check_races = o.check_races };
        tpu_stepper *st = tpu_stepper_create(&so, err, sizeof err);
        rc = st ? tpu_stepper_loop(st) : EXIT_RUN;
        if (!st)
            fprintf(stderr, "tpu-sim: error: %s\n", err);
        tpu_stepper_destroy(st);
    } else if (tpu_trace_open(&tr, s, o.timeline, o.vcd, err, sizeof err)
               || (o.html && tpu_trace_open_html(&tr, s, o.html, &html, err, sizeof err))) {
        fprintf(stderr, "tpu-sim: error: %s\n", err);
        rc = EXIT_USAGE;
    } else if (o.check_races && !(races = tpu_races_create(s, err, sizeof err))) {
        fprintf(stderr, "tpu-sim: error: %s\n", err);
        rc = EXIT_RUN;
    } else {
        int tty = isatty(1);
        if (o.animate && tpu_animate(s, obj, &cfg, stdout, tty,
                                     o.delay_ms >= 0 ? (unsigned)o.delay_ms : tty ? 100 : 0,
                                     o.max_cycles, err, sizeof err))
            fprintf(stderr, "tpu-sim: error: %s\n", err);
        rc = run_and_report(&o, &run, topo, &tr, races);
    }
    tpu_system_destroy(run.sys);        /* before the files: it holds their subscriptions */
    run.sys = NULL;
    tpu_races_destroy(races);
    tpu_trace_free(&tr);
    tpu_run_free(&run);
    return rc;
}
