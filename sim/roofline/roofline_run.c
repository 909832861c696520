/*
 * roofline_run.c - tpu-roofline: running the points, a few at a time in
 * child processes, with progress and Ctrl-C (roofline.h).
 */
#include "roofline.h"

#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* ---- running the points --------------------------------------------------------------- */

/* Run point p in this process: assemble (halving REPS while the program
 * does not fit), run, check; `progress` (may be NULL) is called every few
 * thousand cycles with ctx.  With `interruptible`, Ctrl-C stops it at the
 * next slice of cycles: then out->done stays 0. */
static void run_point(const sweep *sw, point *p, outcome *out,
                      void (*progress)(void *ctx, uint64_t cycle), void *ctx, int interruptible)
{
    tpu_asm_define defs[12];
    size_t nd = 0;
    char err[256];
    char text[12][48];
    int k = p->series == S_HBM || p->series == S_VMEM ? 0 : 1;
    for (;;) {
        nd = 0;
        if (k == 0) {
            snprintf(text[nd++], sizeof text[0], "B=%lld", (long long)p->b);
            snprintf(text[nd++], sizeof text[0], "D=%lld", (long long)sw->d);
            snprintf(text[nd++], sizeof text[0], "F=%lld", (long long)sw->f);
            snprintf(text[nd++], sizeof text[0], "REPS=%lld", (long long)p->reps);
            snprintf(text[nd++], sizeof text[0], "WVMEM=%d", p->series == S_VMEM);
            snprintf(text[nd++], sizeof text[0], "DMAB=%lld", (long long)sw->dmab);
            snprintf(text[nd++], sizeof text[0], "WL=%lld", (long long)sw->wl);
            snprintf(text[nd++], sizeof text[0], "LAT=%lld", (long long)sw->lat);
            snprintf(text[nd++], sizeof text[0], "HBMB=%lld",
                     (long long)(sw->bw < 1 ? 1 : sw->bw));
            snprintf(text[nd++], sizeof text[0], "MODE=%d", sw->mode);
            snprintf(text[nd++], sizeof text[0], "XYVMEM=%d", sw->xy);
        } else {
            snprintf(text[nd++], sizeof text[0], "OP=%d", p->series - S_ADD);
            snprintf(text[nd++], sizeof text[0], "NCHUNK=%lld", (long long)p->nchunk);
            snprintf(text[nd++], sizeof text[0], "CH=%lld", (long long)rl_pointwise_ch(sw));
        }
        for (size_t i = 0; i < nd; i++)
            if (tpu_asm_parse_define(text[i], &defs[i], err, sizeof err)) {
                memset(out, 0, sizeof *out);
                snprintf(out->error, sizeof out->error, "-D %.40s: %.200s", text[i], err);
                out->done = 1;
                return;
            }
        tpu_sweep_run r = { .cfg = &sw->cfg, .source = sw->src[k], .source_len = sw->len[k],
                            .filename = sw->path[k], .defines = defs, .ndefines = nd,
                            .max_cycles = 4000000000ull, .interruptible = interruptible,
                            .progress = progress, .progress_ctx = ctx };
        tpu_sweep_run_program(&r);
        if (r.interrupted)
            return;
        if (!r.assembled && k == 0 && p->reps > 1) {
            p->reps = (p->reps + 1) / 2;        /* too big for the IMEM: fewer matmuls */
            continue;
        }
        out->assembled = r.assembled;
        out->ok = r.ok;
        snprintf(out->error, sizeof out->error, "%s", r.error);
        out->ntext = r.ntext;
        out->cycles = r.cycles;
        out->stats = r.stats;
        out->done = 1;
        return;
    }
}

/* Everything must arrive: write and read a whole buffer over a pipe. */
static int write_all(int fd, const void *buf, size_t n)
{
    const char *p = buf;
    while (n) {
        ssize_t k = write(fd, p, n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return -1;
        p += k;
        n -= (size_t)k;
    }
    return 0;
}

static int read_all(int fd, void *buf, size_t n)
{
    char *p = buf;
    while (n) {
        ssize_t k = read(fd, p, n);
        if (k < 0 && errno == EINTR && !tpu_interrupted())
            continue;
        if (k <= 0)
            return -1;
        p += k;
        n -= (size_t)k;
    }
    return 0;
}

/* A child's messages on its pipe: its cycle so far (at most every
 * 0.1 s), then MSG_END, its REPS and its outcome. */
#define MSG_END UINT64_MAX

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The running points and the progress line. */
typedef struct runner {
    sweep *sw;
    tpu_progress prog;
    size_t done;
    unsigned nrun;
    size_t point[256];                  /* the running points */
    pid_t pid[256];                     /* their children (jobs > 1) */
    int fd[256];                        /* and pipes */
    uint64_t cycle[MAX_POINTS];         /* where each running point is */
    double last;                        /* a child: when it last reported */
    int fd_out;                         /* a child: its pipe */
} runner;

/* The progress line: points done of all, elapsed, time left, and how far
 * the running points are (their cycle against the plan's estimate). */
static void show(runner *r)
{
    char extra[160] = "";
    size_t len = 0;
    for (unsigned k = 0; k < r->nrun && k < 2; k++) {
        const point *p = &r->sw->pts[r->point[k]];
        double pct = p->est > 0 ? 100.0 * (double)r->cycle[r->point[k]] / p->est : 0;
        char b[24] = "";
        if (p->series == S_HBM || p->series == S_VMEM)
            snprintf(b, sizeof b, " B %lld", (long long)p->b);
        len += (size_t)snprintf(extra + len, sizeof extra - len, "%s%s%s %.0f%%",
                                k ? ", " : "running: ", series_key[p->series], b,
                                pct > 99 ? 99 : pct);
    }
    if (r->nrun > 2)
        snprintf(extra + len, sizeof extra - len, ", %u more", r->nrun - 2);
    tpu_progress_points(&r->prog, r->done, r->sw->npts, "points", extra[0] ? extra : NULL);
}

/* In this process (jobs = 1): the point's cycle, on the progress line. */
static void progress_here(void *ctx, uint64_t cycle)
{
    runner *r = ctx;
    r->cycle[r->point[0]] = cycle;
    show(r);
}

/* In a child: the cycle to the parent, at most ten times a second. */
static void progress_child(void *ctx, uint64_t cycle)
{
    runner *r = ctx;
    double t = now_seconds();
    if (t - r->last < 0.1)
        return;
    r->last = t;
    write_all(r->fd_out, &cycle, sizeof cycle);
}

/* Start point i in a child process; run it here when that fails. */
static void start_child(runner *r, size_t i)
{
    point *p = &r->sw->pts[i];
    int fds[2];
    pid_t pid = -1;
    if (!pipe(fds)) {
        pid = fork();
        if (pid == 0) {
            signal(SIGINT, SIG_DFL);
            signal(SIGTERM, SIG_DFL);
            close(fds[0]);
            outcome out;
            uint64_t end = MSG_END;
            memset(&out, 0, sizeof out);
            r->fd_out = fds[1];
            r->last = now_seconds();
            run_point(r->sw, p, &out, progress_child, r, 0);
            int bad = write_all(fds[1], &end, sizeof end)
                   || write_all(fds[1], &p->reps, sizeof p->reps)
                   || write_all(fds[1], &out, sizeof out);
            _exit(bad ? 1 : 0);
        }
        close(fds[1]);
        if (pid < 0)
            close(fds[0]);
    }
    if (pid < 0) {                              /* no pipe or no fork: here */
        run_point(r->sw, p, &p->out, NULL, NULL, 1);
        r->done += p->out.done;
        return;
    }
    r->point[r->nrun] = i;
    r->pid[r->nrun] = pid;
    r->fd[r->nrun] = fds[0];
    r->cycle[i] = 0;
    r->nrun++;
}

/* Child k has something to say: a cycle, or its end (then it is reaped). */
static void hear_child(runner *r, unsigned k)
{
    point *p = &r->sw->pts[r->point[k]];
    uint64_t msg;
    int bad = read_all(r->fd[k], &msg, sizeof msg);
    if (!bad && msg != MSG_END) {
        r->cycle[r->point[k]] = msg;
        return;
    }
    if (!bad)
        bad = read_all(r->fd[k], &p->reps, sizeof p->reps)
           || read_all(r->fd[k], &p->out, sizeof p->out);
    if (bad && tpu_interrupted())
        return;                                 /* run_all ends it */
    if (bad) {
        memset(&p->out, 0, sizeof p->out);
        p->out.done = 1;
        snprintf(p->out.error, sizeof p->out.error, "the child process running it failed");
    }
    close(r->fd[k]);
    while (waitpid(r->pid[k], NULL, 0) < 0 && errno == EINTR)
        ;
    r->nrun--;
    r->point[k] = r->point[r->nrun];
    r->pid[k] = r->pid[r->nrun];
    r->fd[k] = r->fd[r->nrun];
    r->done++;
}

/* Run every point, `jobs` at a time in child processes (each sends back
 * its cycles as it goes, then its REPS and its outcome, through a pipe),
 * or in this process when jobs is 1.  The children take Ctrl-C's default
 * action; here Ctrl-C starts no more points, ends the running ones and
 * returns with the finished ones marked done.  A progress line on a
 * terminal. */
void rl_run_all(sweep *sw, unsigned jobs)
{
    runner run, *r = &run;
    memset(r, 0, sizeof *r);
    r->sw = sw;
    tpu_progress_init(&r->prog, "tpu-roofline", stderr);
    fflush(NULL);
    size_t next = 0;
    while (r->done < sw->npts || r->nrun) {
        if (tpu_interrupted()) {                /* end the running points */
            for (unsigned k = 0; k < r->nrun; k++) {
                kill(r->pid[k], SIGKILL);
                close(r->fd[k]);
                while (waitpid(r->pid[k], NULL, 0) < 0 && errno == EINTR)
                    ;
            }
            break;
        }
        if (jobs <= 1 && next < sw->npts) {
            r->point[0] = next;
            r->cycle[next] = 0;
            r->nrun = 1;
            show(r);
            run_point(sw, &sw->pts[next], &sw->pts[next].out, progress_here, r, 1);
            r->nrun = 0;
            r->done += sw->pts[next++].out.done;
            continue;
        }
        while (r->nrun < jobs && next < sw->npts)
            start_child(r, next++);
        show(r);
        if (!r->nrun) {
            if (next == sw->npts)
                break;
            continue;
        }
        struct pollfd pf[256];
        for (unsigned k = 0; k < r->nrun; k++)
            pf[k] = (struct pollfd){ .fd = r->fd[k], .events = POLLIN };
        if (poll(pf, r->nrun, 100) <= 0)
            continue;                           /* a tick of the clock, or Ctrl-C */
        for (unsigned k = r->nrun; k-- > 0;)
            if (pf[k].revents)
                hear_child(r, k);
    }
    tpu_progress_clear(&r->prog);
}
