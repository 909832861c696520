/*
 * tpu_roofline.c - tpu-roofline, the roofline measured on the C model.
 *
 *   tpu-roofline [--config NAME|FILE] [--set KEY=VALUE]... [--out DIR]
 *                [--img DIR] [--d D] [--f F] [--batches LIST]
 *                [--vmem-batches LIST] [--mode bf16|int8|w8] [--xy-vmem]
 *                [--chunks N] [--reps N] [--jobs N]
 *                [--programs DIR] [--no-plot] [--quiet]
 *
 * Runs three sweeps in-process (assembler library + C model, sim/roofline/):
 * the tiled bf16 matmul over the batch B at fixed D and F with W streamed
 * from HBM, the same with W in VMEM from the start (both
 * programs/matmul_sweep.s), and the pointwise ops (programs/pointwise.s).
 * For each run it records FLOPs, bytes and cycles and its roofline bound,
 * writes a CSV, a summary and a gnuplot script, runs gnuplot for a PNG and
 * an SVG, and prints the measured crossover batch and ridge next to what
 * the arithmetic predicts.  docs/roofline.md explains every number.
 * Exit status: 0 every run halted bit-exact, 1 a run failed, 2 bad command
 * line or config, 3 the files could not be written or gnuplot failed, 130
 * Ctrl-C (the points done so far are written, no plot).
 */
#include "roofline.h"

#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

/* ---- command line -------------------------------------------------------------------- */

static void usage(FILE *f)
{
    fputs("usage: tpu-roofline [options]\n"
          "\n"
          "Measure the roofline on the C model: run the tiled bf16 matmul over the batch B\n"
          "(W streamed from HBM, and W already in VMEM) and the pointwise ops, record FLOPs,\n"
          "bytes and cycles, write a CSV and plot it with gnuplot (PNG and SVG), and print\n"
          "the measured crossover batch and ridge (docs/roofline.md).\n"
          "\n"
          "options:\n"
          "  --config NAME|FILE   machine: a preset (tiny, mid, v5e, tpuv1, v4p, v5p,\n"
          "                       v6e) or a .cfg file (default v5e)\n"
          "  --set KEY=VALUE      override one config key (repeatable), e.g. hbm_bw=4.1e11\n"
          "  --out DIR            where roofline-NAME.csv, .txt and .gp go (default .)\n"
          "  --img DIR            where roofline-NAME.png and .svg go (default: --out)\n"
          "  --d D, --f F         the matmul's inner and output dimensions (default: the\n"
          "                       largest N * num_mxu * 2^k up to 4096 whose program fits\n"
          "                       the IMEM and whose runs stay short: 4096 on v5e)\n"
          "  --batches LIST       batches of the matmul with W in HBM, e.g. 64,256,1024\n"
          "                       (default: 1/16 to 4 times the predicted crossover)\n"
          "  --vmem-batches LIST  batches of the matmul with W in VMEM (default: N/W/8 to\n"
          "                       16 N/W, W = mxu_wloads; none: leave that sweep out)\n"
          "  --mode bf16|int8|w8  the matmul's numbers: bf16 (default), int8 X and W with\n"
          "                       int32 Y at the int8 peak, or int8 W widened to bf16 on\n"
          "                       the way in (w8); an int8-only machine defaults to int8\n"
          "  --xy-vmem            X and Y stay in VMEM: only W crosses HBM (TPU v1's\n"
          "                       activations on chip); the ridge is per weight byte\n"
          "  --chunks N           chunks of the pointwise runs (default: enough that their\n"
          "                       start and end cost under 3%)\n"
          "  --reps N             matmuls per run (default: per point, enough that the\n"
          "                       start and end cost under about 3%)\n"
          "  --jobs N             runs at once, in child processes (default: the CPUs)\n"
          "  --programs DIR       where matmul_sweep.s and pointwise.s are (default\n"
          "                       programs, else ../../programs from the executable)\n"
          "  --no-plot            write the CSV, summary and script, do not run gnuplot\n"
          "  --quiet              print only the summary lines\n"
          "  -h, --help           print this help and exit\n"
          "\n"
          "On a terminal a line shows the points done, the time elapsed and left.  Ctrl-C\n"
          "(or SIGTERM) stops the runs and writes the CSV and summary of the points done\n"
          "(no plot).\n"
          "\n"
          "exit status: 0 every run halted and was bit-exact, 1 a run failed, 2 bad\n"
          "command line or config, 3 a file could not be written or gnuplot failed,\n"
          "130 interrupted\n", f);
}

static int bad_usage(const char *fmt, const char *arg)
{
    fprintf(stderr, "tpu-roofline: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\nTry 'tpu-roofline --help'.\n");
    return EXIT_USAGE;
}

/* A whole number in [lo, hi]; -1 when it is not one. */
static int parse_int(const char *s, int64_t lo, int64_t hi, int64_t *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (!*s || *end || errno || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

static int parse_args(int argc, char **argv, options *o)
{
    memset(o, 0, sizeof *o);
    o->mode = -1;
    o->config = "v5e";
    o->out = ".";
    o->programs = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v;
        int missing = 0;
        int64_t n;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return -1;
        } else if (!strcmp(a, "--no-plot")) {
            o->no_plot = 1;
        } else if (!strcmp(a, "--quiet")) {
            o->quiet = 1;
        } else if ((v = tpu_cli_opt_value(argc, argv, &i, "--config", &missing))) {
            o->config = v;
        } else if ((v = tpu_cli_opt_value(argc, argv, &i, "--set", &missing))) {
            if (o->nsets == MAX_SETS)
                return bad_usage("too many --set options (at most %s)", "256");
            o->sets[o->nsets++] = v;
        } else if ((v = tpu_cli_opt_value(argc, argv, &i, "--out", &missing))) {
            o->out = v;
        } else if ((v = tpu_cli_opt_value(argc, argv, &i, "--img", &missing))) {
            o->img = v;
        } else if ((v = tpu_cli_opt_value(argc, argv, &i, "--programs", &missing))) {
            o->programs = v;
        } else if ((v = tpu_cli_opt_value(argc, argv, &i, "--d", &missing))) {
            if (parse_int(v, 1, 1 << 20, &n))
                return bad_usage("--d wants a whole number from 1 to 1048576, not '%s'", v);
            o->d = n;
        } else if ((v = tpu_cli_opt_value(argc, argv, &i, "--f", &missing))) {
            if (parse_int(v, 1, 1 << 20, &n))
                return bad_usage("--f wants a whole number from 1 to 1048576, not '%s'", v);
            o->f = n;
        } else if ((v = tpu_cli_opt_value(argc, argv, &i, "--batches", &missing))) {
            o->batches = v;
        } else if (!strcmp(a, "--xy-vmem")) {
            o->xy = 1;
        } else if ((v = tpu_cli_opt_value(argc, argv, &i, "--mode", &missing))) {
            o->mode = -1;
            for (int k = 0; k < 3; k++)
                if (!strcmp(v, rl_mode_name[k]))
                    o->mode = k;
            if (o->mode < 0)
                return bad_usage("--mode wants bf16, int8 or w8, not '%s'", v);
        } else if ((v = tpu_cli_opt_value(argc, argv, &i, "--vmem-batches", &missing))) {
            o->vmem_batches = v;
        } else if ((v = tpu_cli_opt_value(argc, argv, &i, "--chunks", &missing))) {
            if (parse_int(v, 1, 4096, &n))
                return bad_usage("--chunks wants a whole number from 1 to 4096, not '%s'", v);
            o->chunks = n;
        } else if ((v = tpu_cli_opt_value(argc, argv, &i, "--reps", &missing))) {
            if (parse_int(v, 1, MAX_REPS, &n))
                return bad_usage("--reps wants a whole number from 1 to 256, not '%s'", v);
            o->reps = n;
        } else if ((v = tpu_cli_opt_value(argc, argv, &i, "--jobs", &missing))) {
            if (parse_int(v, 1, 256, &n))
                return bad_usage("--jobs wants a whole number from 1 to 256, not '%s'", v);
            o->jobs = (unsigned)n;
        } else if (missing) {
            return bad_usage("option '%s' needs a value", a);
        } else if (a[0] == '-') {
            return bad_usage("unknown option '%s'", a);
        } else {
            return bad_usage("unexpected argument '%s' (tpu-roofline takes no files)", a);
        }
    }
    if (!o->img)
        o->img = o->out;
    return 0;
}

/* Parse "64,256,1024" into b[] (at most max values, each 1 .. 1<<20). */
static int parse_list(const char *s, int64_t *b, size_t max, size_t *n, const char *opt)
{
    *n = 0;
    const char *p = s;
    while (*p) {
        char num[32];
        size_t len = strcspn(p, ",");
        int64_t v;
        if (len == 0 || len >= sizeof num)
            return bad_usage("%s wants numbers separated by commas", opt);
        memcpy(num, p, len);
        num[len] = 0;
        if (parse_int(num, 1, 1 << 20, &v))
            return bad_usage("%s wants batches from 1 to 1048576", opt);
        if (*n == max)
            return bad_usage("%s has too many values", opt);
        b[(*n)++] = v;
        p += len;
        if (*p == ',')
            p++;
    }
    if (!*n)
        return bad_usage("%s is empty", opt);
    return 0;
}

/* ---- files ---------------------------------------------------------------------------- */

/* Read programs/NAME (cli.h: --programs, ./programs, or next to the executable). */
static int load_program(sweep *sw, int k, const char *name, const char *argv0)
{
    sw->src[k] = tpu_cli_read_program("tpu-roofline", sw->o->programs, argv0, name, sw->path[k],
                                      sizeof sw->path[k], &sw->len[k]);
    return sw->src[k] ? 0 : EXIT_USAGE;
}

static int make_dir(const char *dir)
{
    if (mkdir(dir, 0777) && errno != EEXIST) {
        fprintf(stderr, "tpu-roofline: error: cannot create %s: %s\n", dir, strerror(errno));
        return -1;
    }
    return 0;
}


/* ---- the sweep ------------------------------------------------------------------------------ */

static void add_point(sweep *sw, int series, int64_t b, int64_t nchunk)
{
    if (sw->npts == MAX_POINTS)
        return;
    for (size_t i = 0; i < sw->npts; i++)
        if (sw->pts[i].series == series && sw->pts[i].b == b && b)
            return;
    point *p = &sw->pts[sw->npts++];
    memset(p, 0, sizeof *p);
    p->series = series;
    p->b = b;
    p->nchunk = nchunk;
    double over, t, work;
    if (series == S_HBM || series == S_VMEM) {
        /* the MXUs work T_math or T_weights of each matmul */
        double d = (double)sw->d, f = (double)sw->f;
        p->reps = rl_matmul_reps(sw, (double)b, series == S_VMEM);
        t = rl_matmul_cost(sw, (double)b, series == S_VMEM, &over) * (double)p->reps;
        work = fmax(2.0 * (double)b * d * f / sw->peak, d / sw->n * f / (sw->n * sw->nm)
                    * sw->n / sw->wl) * (double)p->reps * sw->nm * sw->n * sw->n * CPU_MXU_CELL;
    } else {
        /* the VPU: four instructions of all its lanes a vector register
         * of 4 x lanes bytes, so one lane-instruction a byte of a chunk */
        t = rl_pointwise_cost(sw, series, &over) * (double)nchunk;
        work = (double)nchunk * (double)rl_pointwise_ch(sw) * CPU_VPU_LANE;
    }
    p->est = t + over;
    p->cpu = p->est * CPU_CYCLE + work;
}

static int plan(sweep *sw)
{
    const options *o = sw->o;
    int64_t list[MAX_POINTS];
    size_t n;
    if (o->batches) {
        if (parse_list(o->batches, list, 24, &n, "--batches"))
            return EXIT_USAGE;
    } else {
        static const double f[] = { 1.0 / 16, 1.0 / 8, 1.0 / 4, 1.0 / 2, 0.7, 0.85, 1.0, 1.15,
                                    1.3, 1.6, 2, 3, 4 };
        double c = rl_top_batch(sw) / 4;
        n = 0;
        for (size_t i = 0; i < sizeof f / sizeof f[0]; i++) {
            double b = round(c * f[i]);
            list[n++] = b < 1 ? 1 : (int64_t)b;
        }
    }
    for (size_t i = 0; i < n; i++)
        if (rl_matmul_vmem_need(sw, (double)list[i], 0, 1) <= (double)sw->cfg.vmem_bytes)
            add_point(sw, S_HBM, list[i], 0);
    if ((o->vmem_batches && !strcmp(o->vmem_batches, "none")) || sw->mode != RL_BF16 || sw->xy) {
        n = 0;                          /* W in VMEM: bf16 only, not with --xy-vmem */
    } else if (o->vmem_batches) {
        if (parse_list(o->vmem_batches, list, 24, &n, "--vmem-batches"))
            return EXIT_USAGE;
    } else {
        /* around the crossover N / W, not at it: there the weight loads
         * and the streams fill VMEM's bandwidth and the DMAs wait; none
         * past the first whose matmul alone is over POINT_CYCLES (a slow
         * HBM, for X and Y) */
        static const double f[] = { 1.0 / 8, 1.0 / 4, 1.0 / 2, 0.75, 1.5, 2, 3, 4, 8, 16 };
        n = 0;
        for (size_t i = 0; i < sizeof f / sizeof f[0]; i++) {
            double b = round(sw->n / sw->wl * f[i]);
            b = b < 1 ? 1 : b;
            if (n && rl_matmul_cost(sw, b, 1, NULL) > POINT_CYCLES)
                break;
            list[n++] = (int64_t)b;
        }
    }
    for (size_t i = 0; i < n; i++)
        if (rl_matmul_vmem_need(sw, (double)list[i], 1, 1) <= (double)sw->cfg.vmem_bytes)
            add_point(sw, S_VMEM, list[i], 0);
    for (int s = S_ADD; s <= S_RELU; s++)
        add_point(sw, s, 0, rl_pointwise_chunks(sw, s));
    return 0;
}

/* A sweep that will take a while says so before it starts: its runs and
 * their cycles, from the plan's estimates. */
static void note_plan(const sweep *sw, unsigned jobs)
{
    double cycles = 0, cpu = 0;
    for (size_t i = 0; i < sw->npts; i++) {
        cycles += sw->pts[i].est;
        cpu += sw->pts[i].cpu;
    }
    if (getenv("TPU_ROOFLINE_ESTIMATE"))        /* for calibrating the note */
        fprintf(stderr, "tpu-roofline: estimate %.3g cycles, %.3g s of CPU\n", cycles, cpu);
    if (sw->o->quiet || cpu < NOTE_SECONDS)
        return;
    fprintf(stderr, "tpu-roofline: note: %zu runs, about %.2g cycles: roughly %.0f s of CPU, "
            "%u at a time; Ctrl-C stops with the points done so far\n", sw->npts, cycles,
            cpu, jobs);
}

/* The config, with its --set keys, checked by the model too (a machine
 * tpu_config_validate passes can still be one no core can be built for:
 * then every run would fail the same way). */
static int load_config(const options *o, tpu_config *cfg)
{
    if (tpu_cli_load_config("tpu-roofline", o->config, cfg)
        || tpu_cli_finish_config("tpu-roofline", cfg, o->sets, o->nsets))
        return EXIT_USAGE;
    char err[512];
    tpu_system_opts so = { .cores = 1, .topology = TPU_TOPO_SINGLE };
    tpu_system *s = tpu_system_create(cfg, &so, err, sizeof err);
    if (!s) {
        fprintf(stderr, "tpu-roofline: error: %s\n", err);
        return EXIT_USAGE;
    }
    tpu_system_destroy(s);
    return 0;
}

int main(int argc, char **argv)
{
    options o;
    int rc = parse_args(argc, argv, &o);
    if (rc)
        return rc < 0 ? EXIT_OK : rc;
    sweep *sw = calloc(1, sizeof *sw);
    if (!sw) {
        fprintf(stderr, "tpu-roofline: out of memory\n");
        return EXIT_FILES;
    }
    sw->o = &o;
    if ((rc = load_config(&o, &sw->cfg)))
        goto done;
    /* the matmul's numbers: the machine's own when not given (int8 on an
     * int8-only machine), and only what its MXUs have */
    sw->mode = o.mode >= 0 ? o.mode : sw->cfg.mxu_int8 == 2 ? RL_INT8 : RL_BF16;
    sw->xy = o.xy;
    if ((sw->mode == RL_INT8 && sw->cfg.mxu_int8 == 0)
        || (sw->mode != RL_INT8 && sw->cfg.mxu_int8 == 2)) {
        fprintf(stderr, "tpu-roofline: error: --mode %s: the machine '%s' has %s (mxu_int8 = "
                "%llu)\n", rl_mode_name[sw->mode], sw->cfg.name,
                sw->cfg.mxu_int8 == 0 ? "no int8 MXU mode" : "int8 MXUs only",
                (unsigned long long)sw->cfg.mxu_int8);
        rc = EXIT_USAGE;
        goto done;
    }
    if (o.vmem_batches && strcmp(o.vmem_batches, "none") && (sw->mode != RL_BF16 || sw->xy)) {
        fprintf(stderr, "tpu-roofline: error: --vmem-batches: the matmul with W in VMEM is "
                "bf16 only, without --xy-vmem\n");
        rc = EXIT_USAGE;
        goto done;
    }
    rl_machine(sw);
    if (o.d) {
        sw->d = o.d;
        sw->f = o.f ? o.f : sw->d;
    } else {
        rl_default_dim(sw);
    }
    if (sw->d % (int64_t)sw->kt || sw->f % ((int64_t)sw->n * (int64_t)sw->nm)) {
        fprintf(stderr, "tpu-roofline: error: --d %lld --f %lld: D must be a multiple of %s "
                "(%.0f) and F of mxu_n * num_mxu (%.0f)\n", (long long)sw->d, (long long)sw->f,
                sw->mode == RL_INT8 ? "2 * mxu_n in int8" : "mxu_n", sw->kt, sw->n * sw->nm);
        rc = EXIT_USAGE;
        goto done;
    }
    if ((rc = load_program(sw, 0, "matmul_sweep.s", argv[0]))
        || (rc = load_program(sw, 1, "pointwise.s", argv[0])))
        goto done;
    if ((rc = plan(sw)))
        goto done;
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    unsigned jobs = o.jobs ? o.jobs : ncpu > 0 ? (unsigned)(ncpu > 256 ? 256 : ncpu) : 1;
    note_plan(sw, jobs);
    tpu_interrupt_install();
    rl_run_all(sw, jobs);
    /* Ctrl-C: what follows sees the finished points only. */
    size_t planned = sw->npts, ndone = 0;
    int interrupted = tpu_interrupted();
    for (size_t i = 0; i < sw->npts; i++)
        if (sw->pts[i].out.done)
            sw->pts[ndone++] = sw->pts[i];
    sw->npts = ndone;
    if (interrupted)
        fprintf(stderr, "tpu-roofline: interrupted after %zu of %zu points: the report and "
                "the CSV have those; no plot\n", ndone, planned);

    summary s;
    rl_analyse(sw, &s);
    rl_print_report(sw, &s, stdout, o.quiet);
    fflush(stdout);

    char csv[1200], txt[1200], gp[1200], png[1200], svg[1200];
    /* the files of a bf16 sweep are roofline-NAME.*; others add the mode */
    char name[80];
    snprintf(name, sizeof name, "%s%s%s%s", sw->cfg.name, sw->mode ? "-" : "",
             sw->mode ? rl_mode_name[sw->mode] : "", sw->xy ? "-xy" : "");
    snprintf(csv, sizeof csv, "%s/roofline-%s.csv", o.out, name);
    snprintf(txt, sizeof txt, "%s/roofline-%s.txt", o.out, name);
    snprintf(gp, sizeof gp, "%s/roofline-%s.gp", o.out, name);
    snprintf(png, sizeof png, "%s/roofline-%s.png", o.img, name);
    snprintf(svg, sizeof svg, "%s/roofline-%s.svg", o.img, name);
    if (interrupted) {
        /* no plot: the images (docs/ for make roofline) stay as they were */
        rc = make_dir(o.out) || rl_write_csv(sw, csv) || rl_write_summary(sw, &s, txt)
                 || rl_write_gp(sw, &s, gp, csv, png, svg)
           ? EXIT_FILES : TPU_EXIT_INTERRUPTED;
        if (rc == TPU_EXIT_INTERRUPTED && !o.quiet)
            printf("wrote        %s, %s, %s (interrupted: %zu of %zu points; no plot, "
                   "gnuplot %s draws one)\n", csv, txt, gp, ndone, planned, gp);
        goto done;
    }
    if (make_dir(o.out) || make_dir(o.img) || rl_write_csv(sw, csv) || rl_write_summary(sw, &s, txt)
        || rl_write_gp(sw, &s, gp, csv, png, svg)) {
        rc = EXIT_FILES;
        goto done;
    }
    if (!o.no_plot && rl_run_gnuplot(gp)) {
        rc = EXIT_FILES;
        goto done;
    }
    if (!o.quiet)
        printf("wrote        %s, %s, %s%s%s%s%s\n", csv, txt, gp, o.no_plot ? "" : ", ",
               o.no_plot ? "" : png, o.no_plot ? "" : ", ", o.no_plot ? "" : svg);
    rc = s.failures ? EXIT_FAILED : EXIT_OK;
done:
    free(sw->src[0]);
    free(sw->src[1]);
    free(sw);
    return rc;
}
