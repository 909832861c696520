/*
 * progress.c - one status line, updated in place (progress.h).
 */
#include "progress.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define REDRAW_SECONDS 0.1
#define CLOCK_EVERY    65536u

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void tpu_progress_init(tpu_progress *p, const char *tool, FILE *f)
{
    memset(p, 0, sizeof *p);
    p->tool = tool;
    p->t0 = p->last = now();
    const char *env = getenv("TPU_PROGRESS");
    int on = f && isatty(fileno(f));
    if (env && env[0] == '0')
        on = 0;
    else if (env && env[0] == '1')
        on = f != NULL;
    p->f = on ? f : NULL;
}

double tpu_progress_elapsed(const tpu_progress *p)
{
    return now() - p->t0;
}

/* 12345678 -> "12,345,678" */
static void grouped(uint64_t v, char *buf, size_t len)
{
    char digits[32];
    int n = snprintf(digits, sizeof digits, "%llu", (unsigned long long)v);
    size_t o = 0;
    for (int i = 0; i < n && o + 2 < len; i++) {
        if (i && (n - i) % 3 == 0)
            buf[o++] = ',';
        buf[o++] = digits[i];
    }
    buf[o] = 0;
}

static void draw(tpu_progress *p, const char *line)
{
    /* \r, the line, then clear to the end of the line (ECMA-48 EL). */
    fprintf(p->f, "\r%s: %s\033[K", p->tool, line);
    fflush(p->f);
    p->shown = 1;
}

/* Whether it is time to redraw; reads the clock. */
static int due(tpu_progress *p, double *t)
{
    *t = now();
    if (*t - p->last < REDRAW_SECONDS)
        return 0;
    p->last = *t;
    return 1;
}

void tpu_progress_cycles(tpu_progress *p, uint64_t cycle)
{
    if (!p->f || ++p->tick < CLOCK_EVERY)
        return;
    p->tick = 0;
    tpu_progress_cycles_now(p, cycle);
}

void tpu_progress_cycles_now(tpu_progress *p, uint64_t cycle)
{
    if (!p->f)
        return;
    double t;
    if (!due(p, &t))
        return;
    double el = t - p->t0;
    char c[40], line[160];
    grouped(cycle, c, sizeof c);
    snprintf(line, sizeof line, "cycle %s  %.2g cycles/s  %.1f s", c,
             el > 0 ? (double)cycle / el : 0.0, el);
    draw(p, line);
}

void tpu_progress_points(tpu_progress *p, uint64_t done, uint64_t total, const char *what,
                         const char *extra)
{
    double t;
    if (!p->f || !due(p, &t))
        return;
    double el = t - p->t0;
    char line[200], left[64] = "";
    if (done && total > done)
        snprintf(left, sizeof left, ", about %.1f s left", el / (double)done * (double)(total - done));
    snprintf(line, sizeof line, "%llu/%llu %s  %.1f s elapsed%s%s%s", (unsigned long long)done,
             (unsigned long long)total, what ? what : "points", el, left, extra ? "  " : "",
             extra ? extra : "");
    draw(p, line);
}

void tpu_progress_clear(tpu_progress *p)
{
    if (!p->f || !p->shown)
        return;
    fputs("\r\033[K", p->f);
    fflush(p->f);
    p->shown = 0;
}
