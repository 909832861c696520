/*
 * kgen_args.h - the command line that tpu-gen's transformer commands share
 * (kgen_args.c): the options every one takes (--help, --config, -o,
 * --quiet, --predict, --timing-only), a table of each command's own
 * (flags, whole numbers, fp32 numbers, words from a list, text, --mesh),
 * each error naming its option, and the usage's last lines.  Every command
 * (block, block-shard, ffn-shard, ffn, attention, softmax, ...) says the
 * same words for the same mistake.
 */
#ifndef TPU_KGEN_ARGS_H
#define TPU_KGEN_ARGS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "config.h"

/* What every command takes. */
typedef struct {
    const char *config;          /* --config NAME|FILE (required) */
    const char *out;             /* -o FILE (NULL: standard output) */
    int quiet, predict, timing_only;
} kgen_args;

typedef enum {
    KGEN_OPT_FLAG,               /* no value: *(int *)dst = 1 */
    KGEN_OPT_COUNT,              /* a whole number 1 .. max (0 too with zero_ok): uint64_t */
    KGEN_OPT_FP32,               /* a normal fp32 number > 0 (>= 0 with zero_ok): its bits, uint32_t */
    KGEN_OPT_WORD,               /* one of words ("a2a|ring"): its index, int */
    KGEN_OPT_TEXT,               /* the value as it is: const char * */
    KGEN_OPT_MESH                /* N (a ring) or RxC (a 2-D torus): kgen_mesh */
} kgen_opt_kind;

/* --mesh: rows x cols cores; a ring is 1 x N */
typedef struct {
    unsigned rows, cols;
    int torus;
} kgen_mesh;

/* One option of a command beyond the common ones. */
typedef struct {
    const char *name;            /* "-T", "--heads", ... */
    kgen_opt_kind kind;
    void *dst;
    int zero_ok;                 /* COUNT, FP32: zero is allowed */
    uint64_t max;                /* COUNT: the largest (0: 2^40) */
    const char *words;           /* WORD: the words, '|' between them */
    const char *need;            /* TEXT, MESH: what a missing value lacks (NULL: "a value") */
    int *seen;                   /* set to 1 when the option is given (may be NULL) */
} kgen_opt;

/* Parse argv[2..] (argv[1] is the command): the common options into *a
 * (zeroed first), the command's own from opts[0 .. n-1], in any order,
 * "--name value" or "--name=value".  Returns 0 to go on (--config was
 * given), -1 for --help (print the usage, exit 0), or 2 after one
 * "tpu-gen: error: ..." line: a missing value ("-T needs a value"), a bad
 * one (naming the option), an unknown option, no --config. */
int kgen_args_parse(int argc, char **argv, const kgen_opt *opts, size_t n, kgen_args *a);

/* A whole number for option opt: decimal digits only, 1 .. max (0 too
 * with zero_ok).  0, or 2 after "tpu-gen: error: OPT ...". */
int kgen_parse_num(const char *opt, const char *s, uint64_t max, int zero_ok, uint64_t *out);

/* "N" or "RxC" for --mesh: 2 to 64 cores.  0, or 2 after the error. */
int kgen_parse_mesh(const char *v, kgen_mesh *m);

/* "tpu-gen: error: " and fmt with a (one %s) on stderr; returns 2. */
int kgen_bad(const char *fmt, const char *a);

/* The machine of --config: the preset or file, validated.  0, or 2 after
 * the error. */
int kgen_args_config(const kgen_args *a, tpu_config *cfg);

/* The usage's last lines: the exit statuses; what (e.g. "a shape", "a
 * shape or sharding") the machine cannot take is a bad command line's. */
void kgen_usage_exit(FILE *f, const char *what);

#endif
