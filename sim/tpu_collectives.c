/*
 * tpu_collectives.c - tpu-collectives, the communication roofline measured
 * on the C model.
 *
 *   tpu-collectives [--config NAME|FILE] [--set KEY=VALUE]... [--out DIR]
 *                   [--img DIR] [--topologies LIST] [--collectives LIST]
 *                   [--min-bytes N] [--max-bytes N] [--programs DIR]
 *                   [--no-plot] [--quiet]
 *   tpu-collectives --matmul-2chip [--config ...] [--out DIR] [--img DIR]
 *                   [--b B] [--f F] [--ds LIST]
 *
 * Runs programs/allgather.s, reducescatter.s, allreduce.s and alltoall.s
 * (the routines of programs/lib/ring.inc) in-process on rings, tori and meshes
 * of cores, over shard sizes from a few hundred bytes up to what VMEM
 * holds, and writes a CSV, a summary and a gnuplot script (PNG and SVG per
 * collective: time against shard size, with the model's bandwidth and
 * latency lines).  For each collective and topology it prints the fitted
 * per-hop latency and link bandwidth and the shard size where the time
 * turns from latency-bound to bandwidth-bound (docs/collectives.md).
 * With --matmul-2chip it runs programs/matmul_2chip.s (X[B,D] . W[D,F], D
 * split over two chips, bf16 partial sums over one link) over D and prints
 * where the MXUs' busy time overtakes the link's: the book's D = 8755.
 * Exit status: 0 every run halted, 1 a run failed, 2 bad command line or
 * config, 3 the files could not be written or gnuplot failed, 130 Ctrl-C
 * (the points done so far are written, no plot).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "collectives.h"
#include "interrupt.h"
#include "progress.h"

int main(int argc, char **argv)
{
    options o;
    int rc = coll_parse_args(argc, argv, &o);
    if (rc)
        return rc;
    tpu_config cfg;
    if (tpu_cli_load_config("tpu-collectives", o.config, &cfg) ||
        tpu_cli_finish_config("tpu-collectives", &cfg, o.sets, o.nsets))
        return EXIT_USAGE;
    if (mkdir(o.out, 0777) && errno != EEXIST) {
        fprintf(stderr, "tpu-collectives: error: cannot create %s: %s\n", o.out, strerror(errno));
        return EXIT_FILES;
    }
    if (strcmp(o.img, o.out) && mkdir(o.img, 0777) && errno != EEXIST) {
        fprintf(stderr, "tpu-collectives: error: cannot create %s: %s\n", o.img, strerror(errno));
        return EXIT_FILES;
    }
    program progs[NCOLL] = { 0 }, prog3d = { 0 };
    int any3d = 0;
    for (unsigned t = 0; t < o.ntopos; t++)
        any3d |= o.topos[t].kind == TPU_TOPO_TORUS3D;
    for (int c = 0; c < NCOLL; c++)
        if (!o.matmul2 && o.colls[c] && coll_load_program(&o, argv[0], coll_prog[c], &progs[c]))
            return EXIT_USAGE;
    if (!o.matmul2 && any3d && coll_load_program(&o, argv[0], "torus3d", &prog3d))
        return EXIT_USAGE;

    if (o.matmul2)
        return coll_matmul_2chip(&o, &cfg, argv[0]);

    /* the points: shards from min to max by 4, within VMEM */
    static point pts[MAX_POINTS];
    size_t np = 0;
    uint64_t vb = cfg.vpu_sublanes * cfg.vpu_lanes * 4;
    double w = cfg.ici_bw / cfg.clock_hz;
    for (int c = 0; c < NCOLL; c++) {
        if (!o.colls[c])
            continue;
        for (unsigned t = 0; t < o.ntopos; t++) {
            if (!coll_runs_on(c, &o.topos[t]))
                continue;
            uint64_t s = coll_first_size(&o.topos[t], c, vb, o.once);
            while (s < o.min_bytes)
                s *= 2;
            for (; s <= o.max_bytes && coll_vmem_need(&o.topos[t], c, s, o.axes, o.once) <= cfg.vmem_bytes &&
                   np < MAX_POINTS; s *= 4) {
                point *p = &pts[np++];
                memset(p, 0, sizeof *p);
                p->coll = c, p->topo = (int)t, p->shard = s;
                coll_model(&o.topos[t], c, s, w, (double)cfg.ici_latency, o.axes, o.once, p);
            }
        }
    }
    if (np == 0) {
        fprintf(stderr, "tpu-collectives: error: no point fits (shards from %llu to %llu bytes "
                "in %llu bytes of VMEM)\n", (unsigned long long)o.min_bytes,
                (unsigned long long)o.max_bytes, (unsigned long long)cfg.vmem_bytes);
        return EXIT_USAGE;
    }

    tpu_interrupt_install();
    tpu_progress prog;
    tpu_progress_init(&prog, "tpu-collectives", stderr);
    int failed = 0, interrupted = 0;
    size_t done = 0;
    if (!o.quiet)
        printf("%-18s %-9s %10s %12s %10s %12s %12s\n", "collective", "topology", "shard B",
               "cycles", "us", "model bw", "/model bw");
    for (size_t i = 0; i < np && !interrupted; i++) {
        point *p = &pts[i];
        char err[600];
        tpu_progress_points(&prog, done, np, "points", NULL);
        const program *pg = o.topos[p->topo].kind == TPU_TOPO_TORUS3D ? &prog3d : &progs[p->coll];
        int r = coll_run_point(&o, &cfg, pg, p, err, sizeof err);
        if (r > 0 || tpu_interrupted()) {
            interrupted = 1;
            p->ok = 0;
            break;
        }
        done++;
        tpu_progress_clear(&prog);
        if (r < 0) {
            fprintf(stderr, "tpu-collectives: %s on %s, shard %llu: %s\n", coll_name[p->coll],
                    o.topos[p->topo].name, (unsigned long long)p->shard, err);
            failed = 1;
            continue;
        }
        if (!o.quiet) {
            printf("%-18s %-9s %10llu %12llu %10.2f %12.0f %11.3fx\n", coll_name[p->coll],
                   o.topos[p->topo].name, (unsigned long long)p->shard,
                   (unsigned long long)p->cycles, p->cycles / cfg.clock_hz * 1e6, p->bw,
                   p->cycles / p->bw);
            fflush(stdout);
        }
    }
    tpu_progress_clear(&prog);
    char paths[4000];
    if (coll_write_outputs(&o, &cfg, pts, np, interrupted, paths, sizeof paths))
        return EXIT_FILES;
    for (int c = 0; c < NCOLL; c++)
        free(progs[c].src);
    free(prog3d.src);
    if (interrupted) {
        fprintf(stderr, "tpu-collectives: interrupted after %zu of %zu points: wrote %s (no "
                "plot)\n", done, np, paths);
        return 130;
    }
    int plotted = 0;
    if (o.plot) {
        char gp[1200];
        snprintf(gp, sizeof gp, "%s/collectives-%s.gp", o.out, cfg.name);
        if (coll_run_gnuplot(gp))
            return EXIT_FILES;
        plotted = 1;
    }
    printf("wrote        %s%s\n", paths, plotted ? " and the plots" : "");
    return failed ? EXIT_FAIL : 0;
}
