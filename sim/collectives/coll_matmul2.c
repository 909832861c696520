/*
 * coll_matmul2.c - tpu-collectives --matmul-2chip: the two-chip matmul with
 * D split, over D, and where compute overtakes the link (collectives.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collectives.h"
#include "interrupt.h"
#include "report.h"
#include "sweep.h"

/* ---- --matmul-2chip -------------------------------------------------------------------- */

typedef struct mm_point {
    uint64_t d, cycles, mxu_busy, ici_busy;
    double t_math, t_comm;
    char bound[32];
    int ok;
} mm_point;

/* Run matmul_2chip.s over D; the crossover is where chip 1's MXU busy time
 * (a line in D, fitted by least squares) meets its link's busy time (the
 * same for every D). */
int coll_matmul_2chip(const options *o, const tpu_config *cfg, const char *argv0)
{
    program prog;
    if (coll_load_program(o, argv0, "matmul_2chip", &prog))
        return EXIT_USAGE;
    double peak = (double)cfg->num_mxu * cfg->mxu_n * cfg->mxu_n;     /* MACs per cycle */
    double w = cfg->ici_bw / cfg->clock_hz;
    double book = 2.0 * 2.0 * peak * cfg->clock_hz / cfg->ici_bw;      /* D = 2 peak FLOP/s / W */
    mm_point pts[32];
    unsigned np = 0;
    int failed = 0, interrupted = 0;
    tpu_interrupt_install();
    if (!o->quiet)
        printf("%8s %12s %10s %12s %12s %12s %12s  %s\n", "D", "cycles", "us", "T_math",
               "T_comms", "MXU busy", "link busy", "chip 1");
    for (unsigned i = 0; i < o->mm_nd && !interrupted; i++) {
        mm_point *p = &pts[np];
        memset(p, 0, sizeof *p);
        p->d = o->mm_d[i];
        p->t_math = (double)o->mm_b * (p->d / 2) * o->mm_f / peak;
        p->t_comm = 2.0 * o->mm_b * o->mm_f / w;
        char defs[4][64], err[600];
        tpu_asm_define d[4];
        snprintf(defs[0], 64, "B=%llu", (unsigned long long)o->mm_b);
        snprintf(defs[1], 64, "D=%llu", (unsigned long long)p->d);
        snprintf(defs[2], 64, "F=%llu", (unsigned long long)o->mm_f);
        snprintf(defs[3], 64, "DATA=0");
        for (int k = 0; k < 4; k++)
            tpu_asm_parse_define(defs[k], &d[k], err, sizeof err);
        tpu_system_opts so = { .cores = 2, .topology = TPU_TOPO_RING };
        tpu_sweep_run r = { .cfg = cfg, .source = prog.src, .source_len = prog.len,
                            .filename = prog.path, .defines = d, .ndefines = 4, .system = &so,
                            .max_cycles = 2000000000ull, .interruptible = 1, .no_expect_ok = 1,
                            .stats_core = 1 };
        int rc = tpu_sweep_run_program(&r);
        if (r.interrupted || tpu_interrupted()) {
            interrupted = 1;
            break;
        }
        if (rc) {
            fprintf(stderr, "tpu-collectives: matmul_2chip D=%llu: %s\n",
                    (unsigned long long)p->d, r.error);
            failed = 1;
            continue;
        }
        p->ok = 1;
        p->cycles = r.cycles;
        p->mxu_busy = r.stats.unit[TPU_U_MXU0].busy_cycles;
        p->ici_busy = r.stats.unit[TPU_U_ICI].busy_cycles;
        tpu_roofline rl;
        tpu_roofline_core(cfg, &r.stats, &rl);
        snprintf(p->bound, sizeof p->bound, "%s", tpu_bound_name(rl.bound));
        if (!o->quiet) {
            printf("%8llu %12llu %10.2f %12.0f %12.0f %12llu %12llu  %s\n",
                   (unsigned long long)p->d, (unsigned long long)p->cycles,
                   p->cycles / cfg->clock_hz * 1e6, p->t_math, p->t_comm,
                   (unsigned long long)p->mxu_busy, (unsigned long long)p->ici_busy, p->bound);
            fflush(stdout);
        }
        np++;
    }
    free(prog.src);
    /* least squares: mxu_busy = a + b D; the link's busy time: its mean */
    double sx = 0, sy = 0, sxx = 0, sxy = 0, link = 0;
    for (unsigned i = 0; i < np; i++) {
        double x = (double)pts[i].d, y = (double)pts[i].mxu_busy;
        sx += x, sy += y, sxx += x * x, sxy += x * y;
        link += (double)pts[i].ici_busy;
    }
    double cross = 0;
    if (np >= 2) {
        double b = (np * sxy - sx * sy) / (np * sxx - sx * sx), a = (sy - b * sx) / np;
        link /= np;
        cross = b > 0 ? (link - a) / b : 0;
    }
    char csv[1200], gp[1200];
    snprintf(csv, sizeof csv, "%s/matmul2chip-%s.csv", o->out, cfg->name);
    snprintf(gp, sizeof gp, "%s/matmul2chip-%s.gp", o->out, cfg->name);
    FILE *f = fopen(csv, "w");
    if (!f) {
        fprintf(stderr, "tpu-collectives: error: cannot write %s: %s\n", csv, strerror(errno));
        return EXIT_FILES;
    }
    fprintf(f, "d,cycles,us,t_math_cycles,t_comms_cycles,mxu_busy_cycles,link_busy_cycles,bound\n");
    for (unsigned i = 0; i < np; i++)
        fprintf(f, "%llu,%llu,%.3f,%.0f,%.0f,%llu,%llu,%s\n", (unsigned long long)pts[i].d,
                (unsigned long long)pts[i].cycles, pts[i].cycles / cfg->clock_hz * 1e6,
                pts[i].t_math, pts[i].t_comm, (unsigned long long)pts[i].mxu_busy,
                (unsigned long long)pts[i].ici_busy, pts[i].bound);
    fclose(f);
    f = fopen(gp, "w");
    if (!f) {
        fprintf(stderr, "tpu-collectives: error: cannot write %s: %s\n", gp, strerror(errno));
        return EXIT_FILES;
    }
    fprintf(f, "# generated by tpu-collectives --matmul-2chip for %s; run: gnuplot %s\n"
            "set datafile separator ','\nset key left top\nset grid\n"
            "set xlabel 'D (split over 2 chips)'\nset ylabel 'time (us)'\n", cfg->name, gp);
    for (int fmt = 0; fmt < 2; fmt++)
        fprintf(f, "set terminal %s size 900,600\nset output '%s/matmul2chip-%s.%s'\n"
                "set title 'X[%llu,D] . W[D,%llu] on two %s chips, bf16 partial sums over one "
                "link\\ncompute-bound above D = %.0f (measured), %.0f (arithmetic; the book: "
                "8755)'\n"
                "set arrow 1 from %.0f, graph 0 to %.0f, graph 1 nohead dt 3\n"
                "plot '%s' using 1:3 with linespoints pt 7 title 'measured', "
                "'' using 1:($4/%.6g) with lines dt 2 title 'T_{math}', "
                "'' using 1:($5/%.6g) with lines dt 2 title 'T_{comms}'\n",
                fmt ? "svg" : "pngcairo", o->img, cfg->name, fmt ? "svg" : "png",
                (unsigned long long)o->mm_b, (unsigned long long)o->mm_f, cfg->name, cross, book,
                cross, cross, csv, cfg->clock_hz / 1e6, cfg->clock_hz / 1e6);
    fclose(f);
    printf("# matmul_2chip on %s, B=%llu F=%llu: compute overtakes the link at D = %.0f "
           "(measured: chip 1's MXU busy time against its link's), %.0f by the arithmetic "
           "(2 x peak / link bandwidth; the book: 8755); %+.1f%%\n", cfg->name,
           (unsigned long long)o->mm_b, (unsigned long long)o->mm_f, cross, book,
           book > 0 ? 100.0 * (cross / book - 1) : 0);
    if (interrupted) {
        fprintf(stderr, "tpu-collectives: interrupted after %u of %u points: wrote %s (no plot)\n",
                np, o->mm_nd, csv);
        return 130;
    }
    if (o->plot && coll_run_gnuplot(gp))
        return EXIT_FILES;
    printf("wrote        %s, %s%s\n", csv, gp, o->plot ? " and the plots" : "");
    return failed ? EXIT_FAIL : 0;
}
