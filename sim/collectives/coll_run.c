/*
 * coll_run.c - tpu-collectives' programs: finding them, running one point
 * in-process (sim/roofline/sweep.c), and gnuplot (collectives.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "collectives.h"
#include "sweep.h"

/* ---- programs ------------------------------------------------------------------------- */

int coll_load_program(const options *o, const char *argv0, const char *name, program *p)
{
    char file[64];
    snprintf(file, sizeof file, "%s.s", name);
    p->src = tpu_cli_read_program("tpu-collectives", o->programs, argv0, file, p->path,
                                  sizeof p->path, &p->len);
    return p->src ? 0 : -1;
}

/* ---- running -------------------------------------------------------------------------- */

static void progress_cb(void *ctx, uint64_t cycle)
{
    (void)ctx;
    (void)cycle;
}

int coll_run_point(const options *o, const tpu_config *cfg, const program *prog, point *p,
                     char *err, size_t errlen)
{
    const topo *t = &o->topos[p->topo];
    char defs[10][64];
    tpu_asm_define d[10];
    size_t nd = 0;
    if (t->kind == TPU_TOPO_TORUS3D) {
        snprintf(defs[nd++], 64, "X=%u", t->cols);
        snprintf(defs[nd++], 64, "Y=%u", t->rows);
        snprintf(defs[nd++], 64, "Z=%u", t->depth);
        snprintf(defs[nd++], 64, "A=%u", o->axes);
        snprintf(defs[nd++], 64, "OP=%d", p->coll == AG ? 0 : p->coll == RS ? 1 : 2);
        if (o->once)
            snprintf(defs[nd++], 64, "ONCE=1");
    } else if (t->kind == TPU_TOPO_RING || t->kind == TPU_TOPO_SINGLE) {
        snprintf(defs[nd++], 64, "K=%u", t->cols);
    } else {
        snprintf(defs[nd++], 64, "R=%u", t->rows);
        snprintf(defs[nd++], 64, "C=%u", t->cols);
        snprintf(defs[nd++], 64, "WRAP=%d", t->kind == TPU_TOPO_TORUS2D);
    }
    if (p->coll == AGW)
        snprintf(defs[nd++], 64, "WHOLE=1");
    if (coll_one_axis_of(p->coll) >= 0)
        snprintf(defs[nd++], 64, "BOTH=1");
    snprintf(defs[nd++], 64, "%s=%llu", p->coll == AG || p->coll == AGW || p->coll == AGB ? "SHARD" : p->coll == AA ? "CH" : "CHUNK",
             (unsigned long long)p->shard);
    snprintf(defs[nd++], 64, "DATA=0");
    for (size_t i = 0; i < nd; i++)
        if (tpu_asm_parse_define(defs[i], &d[i], err, errlen))
            return -1;
    tpu_system_opts so = { .cores = t->rows * t->cols * t->depth, .topology = t->kind,
                           .rows = t->rows, .cols = t->cols, .depth = t->depth };
    tpu_sweep_run r = { .cfg = cfg, .source = prog->src, .source_len = prog->len,
                        .filename = prog->path, .defines = d, .ndefines = nd, .system = &so,
                        .max_cycles = 2000000000ull, .interruptible = 1, .no_expect_ok = 1,
                        .progress = progress_cb };
    int rc = tpu_sweep_run_program(&r);
    p->cycles = r.cycles;
    p->ok = rc == 0;
    if (rc)
        snprintf(err, errlen, "%s", r.error);
    return r.interrupted ? 1 : rc;
}

/* ---- gnuplot ------------------------------------------------------------------------------ */

int coll_run_gnuplot(const char *script)
{
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        execlp("gnuplot", "gnuplot", script, (char *)NULL);
        fprintf(stderr, "tpu-collectives: error: cannot run gnuplot: %s (Debian: apt-get "
                "install gnuplot-nox)\n", strerror(errno));
        _exit(127);
    }
    int st;
    if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        fprintf(stderr, "tpu-collectives: error: gnuplot %s failed\n", script);
        return -1;
    }
    return 0;
}
