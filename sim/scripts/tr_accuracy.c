/*
 * tr_accuracy.c - the accuracy of the VPU's transcendentals
 * (tpu_f32_exp, tpu_f32_rcp, tpu_f32_rsqrt in cmodel/fp.c) over all 2^32
 * fp32 inputs, against the host's double precision: the table of
 * docs/numerics.md section 11.5.  Not part of `make test` (it takes
 * minutes); run it by hand after changing a sequence:
 *
 *   cc -std=c11 -O2 -pthread -Icmodel -Icmodel/include/tpu sim/scripts/tr_accuracy.c cmodel/fp.c \
 *      cmodel/cmutant.c -lm -o build/tr-accuracy
 *   build/tr-accuracy [THREADS] [STEP]       # STEP > 1: every STEP-th input only
 *
 * For each input x (after DAZ: a subnormal is its signed zero) the exact
 * result f(x) is computed in double (exp, 1.0 / x, 1.0 / sqrt(x): their
 * own errors are below 2^-52 relative, far below what is measured) and
 * classified by the rules of numerics.md section 2:
 *   - NaN: the result must be the canonical NaN;
 *   - |f| at or above the fp32 overflow point (2 - 2^-24) * 2^127: +-inf;
 *   - 0 < |f| < 2^-126: a zero (FTZ);
 *   - otherwise (a normal, or an exact zero or infinity): the error in
 *     units of the last place of f, ulp = 2^(floor(log2 |f|) - 23).
 * A result on the wrong side of the overflow or flush boundary is counted
 * apart ("boundary") with its first input, and so is a wrong special.
 * Prints per function: the largest error in ulp and the input where it
 * happens, the share of correctly rounded results (error <= 0.5 ulp) and a
 * histogram.
 */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fp.h"

enum { F_EXP, F_RCP, F_RSQRT, F_COUNT };
static const char *const fname[F_COUNT] = { "exp", "rcp", "rsqrt" };
enum { H_HALF, H_ONE, H_1_5, H_TWO, H_MORE, H_COUNT };

typedef struct stats {
    double max_ulp;
    uint32_t max_at;
    uint64_t hist[H_COUNT];
    uint64_t finite;                 /* inputs measured in ulp */
    uint64_t boundary, special_bad;  /* wrong side of a boundary; a wrong special */
    uint32_t boundary_at, special_at;
} stats;

typedef struct job {
    uint64_t lo, hi, step;
    stats st[F_COUNT];
} job;

static double as_double(uint32_t b)
{
    float f;
    memcpy(&f, &b, 4);
    return f;
}

static void measure(stats *s, uint32_t x, uint32_t got, double ex)
{
    double g = as_double(got);
    if (isnan(ex)) {
        if (got != TPU_F32_QNAN && !s->special_bad++)
            s->special_at = x;
        return;
    }
    double a = fabs(ex);
    if (a >= 0x1.ffffffp127) {                       /* overflows (2.6) */
        if (!(isinf(g) && signbit(g) == signbit(ex)) && !s->boundary++)
            s->boundary_at = x;
        return;
    }
    if (a > 0 && a < 0x1p-126) {                     /* flushed (2.4) */
        if (g != 0 && !s->boundary++)
            s->boundary_at = x;
        return;
    }
    if (a == 0 || isinf(a)) {                        /* exact specials */
        if (!(g == ex && signbit(g) == signbit(ex)) && !s->special_bad++)
            s->special_at = x;
        return;
    }
    if (isinf(g) || g == 0 || isnan(g)) {
        if (!s->boundary++)
            s->boundary_at = x;
        return;
    }
    int e;
    frexp(a, &e);                                    /* a = m * 2^e, m in [0.5, 1) */
    double ulp = ldexp(1.0, e - 1 - 23);
    double err = fabs(g - ex) / ulp;
    s->finite++;
    s->hist[err <= 0.5 ? H_HALF : err <= 1 ? H_ONE : err <= 1.5 ? H_1_5 : err <= 2 ? H_TWO : H_MORE]++;
    if (err > s->max_ulp) {
        s->max_ulp = err;
        s->max_at = x;
    }
}

static void *run(void *arg)
{
    job *j = arg;
    for (uint64_t i = j->lo; i < j->hi; i += j->step) {
        uint32_t x = (uint32_t)i;
        double xd = (x & 0x7f800000u) ? as_double(x) : ((x >> 31) ? -0.0 : 0.0);   /* DAZ */
        measure(&j->st[F_EXP], x, tpu_f32_exp(x), exp(xd));
        measure(&j->st[F_RCP], x, tpu_f32_rcp(x), 1.0 / xd);
        measure(&j->st[F_RSQRT], x, tpu_f32_rsqrt(x), 1.0 / sqrt(xd));
    }
    return NULL;
}

int main(int argc, char **argv)
{
    unsigned nt = argc > 1 ? (unsigned)atoi(argv[1]) : 2;
    uint64_t step = argc > 2 ? strtoull(argv[2], NULL, 0) : 1;
    if (nt < 1 || nt > 64 || step < 1) {
        fprintf(stderr, "usage: tr-accuracy [THREADS 1..64] [STEP]\n");
        return 2;
    }
    /* Interleaved chunks so that every thread gets a share of each range. */
    enum { CHUNKS = 4096 };
    job *jobs = calloc(CHUNKS, sizeof *jobs);
    pthread_t *th = calloc(nt, sizeof *th);
    uint64_t per = (UINT64_C(1) << 32) / CHUNKS;
    for (unsigned c = 0; c < CHUNKS; c++) {
        jobs[c].lo = c * per;
        jobs[c].hi = jobs[c].lo + per;
        jobs[c].step = step;
    }
    for (unsigned c = 0; c < CHUNKS; c += nt) {
        unsigned n = CHUNKS - c < nt ? CHUNKS - c : nt;
        for (unsigned t = 0; t < n; t++)
            pthread_create(&th[t], NULL, run, &jobs[c + t]);
        for (unsigned t = 0; t < n; t++)
            pthread_join(th[t], NULL);
    }
    printf("inputs: %s 2^32%s\n", step == 1 ? "all" : "every STEP-th of", step == 1 ? "" : " (sampled)");
    printf("%-6s %10s %-12s %-16s %12s %8s %8s %8s %8s %8s %9s %9s\n", "fn", "max ulp", "at (bits)",
           "at (value)", "measured", "<=0.5", "<=1", "<=1.5", "<=2", ">2", "boundary", "specials");
    for (int f = 0; f < F_COUNT; f++) {
        stats s = { 0 };
        for (unsigned c = 0; c < CHUNKS; c++) {
            stats *p = &jobs[c].st[f];
            if (p->max_ulp > s.max_ulp) {
                s.max_ulp = p->max_ulp;
                s.max_at = p->max_at;
            }
            for (int h = 0; h < H_COUNT; h++)
                s.hist[h] += p->hist[h];
            s.finite += p->finite;
            if (p->boundary && !s.boundary)
                s.boundary_at = p->boundary_at;
            if (p->special_bad && !s.special_bad)
                s.special_at = p->special_at;
            s.boundary += p->boundary;
            s.special_bad += p->special_bad;
        }
        printf("%-6s %10.4f 0x%08" PRIx32 "   %-16.9g %12" PRIu64, fname[f], s.max_ulp, s.max_at,
               as_double(s.max_at), s.finite);
        for (int h = 0; h < H_COUNT; h++)
            printf(" %7.4f%%", s.finite ? 100.0 * (double)s.hist[h] / (double)s.finite : 0.0);
        printf(" %9" PRIu64 " %9" PRIu64 "\n", s.boundary, s.special_bad);
        if (s.boundary)
            printf("       first boundary miss: x = 0x%08" PRIx32 " (%.9g)\n", s.boundary_at,
                   as_double(s.boundary_at));
        if (s.special_bad)
            printf("       first wrong special: x = 0x%08" PRIx32 " (%.9g)\n", s.special_at,
                   as_double(s.special_at));
    }
    free(jobs);
    free(th);
    return 0;
}
