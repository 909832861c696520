/*
 * net_pool.c - the layers' runs, a few at a time in child processes
 * (net.h): each child runs one job and sends its net_result back through
 * a pipe.  The longest predicted jobs start first.  A progress line on a
 * terminal (progress.h).  Ctrl-C (or SIGTERM) here: no more jobs start,
 * the running children are killed (their layers are not done), and the
 * jobs done are kept.  The children take Ctrl-C's default action.
 */
#include "net.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "interrupt.h"
#include "progress.h"

#define MAX_JOBS 256

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

static int by_est(const void *a, const void *b)
{
    const net_job *x = *(const net_job *const *)a, *y = *(const net_job *const *)b;
    if (x->est != y->est)
        return x->est < y->est ? 1 : -1;
    return x->index < y->index ? -1 : x->index > y->index;
}

static void show(tpu_progress *pr, size_t done, size_t total, unsigned nrun, const char *what)
{
    char extra[64];
    snprintf(extra, sizeof extra, "%u running", nrun);
    tpu_progress_points(pr, done, total, what, nrun ? extra : NULL);
}

size_t net_run_jobs(net_job *job, size_t njobs, unsigned jobs, uint64_t seed, const char *what)
{
    net_job **order = malloc((njobs ? njobs : 1) * sizeof *order);
    if (!order) {
        fprintf(stderr, NET_TOOL ": error: out of memory\n");
        return 0;
    }
    for (size_t i = 0; i < njobs; i++)
        order[i] = &job[i];
    qsort(order, njobs, sizeof *order, by_est);
    if (jobs < 1)
        jobs = 1;
    if (jobs > MAX_JOBS)
        jobs = MAX_JOBS;

    tpu_progress pr;
    tpu_progress_init(&pr, NET_TOOL, stderr);
    size_t next = 0, done = 0;
    unsigned nrun = 0;
    net_job *run[MAX_JOBS];
    pid_t pid[MAX_JOBS];
    int fd[MAX_JOBS];
    fflush(NULL);

    while (next < njobs || nrun) {
        if (tpu_interrupted()) {
            for (unsigned k = 0; k < nrun; k++) {
                kill(pid[k], SIGKILL);
                close(fd[k]);
                while (waitpid(pid[k], NULL, 0) < 0 && errno == EINTR)
                    ;
                run[k]->out->status = NET_NOT_RUN;
            }
            nrun = 0;
            break;
        }
        if (jobs == 1 && next < njobs) {          /* here, in this process */
            net_job *j = order[next++];
            show(&pr, done, njobs, 1, what);
            net_run_layer(j->cfg, j->config_name, j->layer, j->index, j->plan, seed, 1, j->out);
            if (j->out->status == NET_INTERRUPTED)
                j->out->status = NET_NOT_RUN;
            else
                done++;
            continue;
        }
        while (nrun < jobs && next < njobs) {
            net_job *j = order[next];
            int fds[2];
            pid_t p = -1;
            if (!pipe(fds)) {
                p = fork();
                if (p == 0) {
                    signal(SIGINT, SIG_DFL);
                    signal(SIGTERM, SIG_DFL);
                    close(fds[0]);
                    for (unsigned k = 0; k < nrun; k++)
                        close(fd[k]);
                    net_result res;
                    net_run_layer(j->cfg, j->config_name, j->layer, j->index, j->plan, seed, 0,
                                  &res);
                    _exit(write_all(fds[1], &res, sizeof res) ? 1 : 0);
                }
                close(fds[1]);
                if (p < 0)
                    close(fds[0]);
            }
            if (p < 0) {
                if (nrun)
                    break;                         /* wait for one to end, then try again */
                next++;                            /* no fork at all: here */
                net_run_layer(j->cfg, j->config_name, j->layer, j->index, j->plan, seed, 1,
                              j->out);
                if (j->out->status == NET_INTERRUPTED)
                    j->out->status = NET_NOT_RUN;
                else
                    done++;
                continue;
            }
            next++;
            run[nrun] = j;
            pid[nrun] = p;
            fd[nrun] = fds[0];
            nrun++;
        }
        show(&pr, done, njobs, nrun, what);
        if (!nrun)
            continue;
        struct pollfd pf[MAX_JOBS];
        for (unsigned k = 0; k < nrun; k++)
            pf[k] = (struct pollfd){ .fd = fd[k], .events = POLLIN };
        if (poll(pf, nrun, 100) <= 0)
            continue;                              /* a tick, or Ctrl-C */
        for (unsigned k = nrun; k-- > 0;) {
            if (!pf[k].revents)
                continue;
            net_job *j = run[k];
            int bad = read_all(fd[k], j->out, sizeof *j->out);
            if (bad && tpu_interrupted())
                continue;                          /* the loop's top ends it */
            if (bad) {
                memset(j->out, 0, sizeof *j->out);
                j->out->status = NET_FAILED;
                snprintf(j->out->error, sizeof j->out->error,
                         "the child process running it failed (killed, or out of memory)");
            }
            close(fd[k]);
            while (waitpid(pid[k], NULL, 0) < 0 && errno == EINTR)
                ;
            nrun--;
            run[k] = run[nrun];
            pid[k] = pid[nrun];
            fd[k] = fd[nrun];
            done++;
        }
    }
    tpu_progress_clear(&pr);
    free(order);
    return done;
}
