/*
 * lab.h - the labs of docs/labs/ and their grader, tpu-lab (sim/tpu_lab.c).
 *
 * A lab is a row of the table in labs.c: its number, name, handout,
 * starter, what the student hands in (an assembly file, an answers file
 * or a config) and its checks, each worth some points out of 10.  Its
 * grade function runs the submission (lab_run.c: assembled in-process for
 * the lab's machines, its inputs compared with the lab's, the grader's own
 * result check instead of the student's .expect, a cycle limit) and
 * passes or fails each check with one line of detail.  A check the grade
 * function never reached fails with the reason that stopped it (it did not
 * assemble, a wrong result, a deadlock): a student's error is a score,
 * never a crash.  docs/labs/README.md is the teacher's page.
 */
#ifndef TPU_LAB_H
#define TPU_LAB_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "config.h"
#include "tpu.h"

#define LAB_MAX_CHECKS 12
#define LAB_MAX_POINTS 10

/* One check of a lab, as the table declares it. */
typedef struct lab_check {
    const char *id;          /* short name, printed and in the CSV: "roofline-tiny" */
    int points;              /* what it is worth; a lab's checks add up to 10 */
    const char *what;        /* what it checks, one phrase */
    const char *look;        /* where to look when it fails */
} lab_check;

typedef struct lab_grade lab_grade;

/* What a lab wants handed in. */
enum lab_kind { LAB_ASM, LAB_ANSWERS, LAB_CONFIG };

typedef struct lab_def {
    unsigned num;
    const char *slug;        /* "pointwise", as in docs/labs/02-pointwise.md */
    const char *title;
    enum lab_kind kind;
    const char *starter;     /* under the programs folder: "labs/02-pointwise.s" */
    const char *solution;    /* under the programs folder: "labs/solutions/02-pointwise.s" */
    unsigned minutes;        /* about how long it takes a student */
    const lab_check *checks; /* ends with an entry whose id is NULL */
    void (*grade)(lab_grade *g);
    /* Answer labs: print the student's own numbers (the variant g->variant
     * of the questions, `tpu-lab variant N NAME`); NULL when every student
     * gets the same lab.  Returns 0, or -1 with g->internal. */
    int (*print_variant)(lab_grade *g, FILE *f);
} lab_def;

extern const lab_def lab_defs[];
extern const unsigned lab_ndefs;
const lab_def *lab_find(unsigned num);
unsigned lab_nchecks(const lab_def *lab);

/* Where the grader finds the lab's own files (starters, programs/matmul.s)
 * and how it reports. */
typedef struct lab_env {
    const char *programs;    /* the programs folder */
} lab_env;

/* The grade of one submission. */
struct lab_grade {
    const lab_def *lab;
    const lab_env *env;
    const char *path;        /* the submission's file name (for messages) */
    const char *student;     /* whose it is (grade-class, --student), or NULL */
    uint64_t variant;        /* the student's variant of an answer lab: 0 is the
                              * handout's own numbers (no student named) */
    const char *text;        /* its contents */
    size_t len;
    int done[LAB_MAX_CHECKS];
    int pass[LAB_MAX_CHECKS];
    char detail[LAB_MAX_CHECKS][400];
    char stop[400];          /* why grading stopped early (a student's error), or "" */
    char internal[400];      /* the lab's own files failed (not the student's fault), or "" */
    int interrupted;         /* Ctrl-C during a run */
    unsigned score;
};

/* Grade `text` (len bytes, the contents of `path`; student may be NULL:
 * the handout's variant) for the lab.  Returns 0
 * when graded (whatever the score), -1 when the lab's own files failed
 * (g->internal) or Ctrl-C stopped it (g->interrupted). */
int lab_grade_text(const lab_def *lab, const lab_env *env, const char *path, const char *student,
                   const char *text, size_t len, lab_grade *g);

/* The variant of an answer lab for a student's name: never 0 (0 is the
 * handout's numbers); the same name always gets the same variant. */
uint64_t lab_variant_of(const char *student);

/* The report: a header, one line per check (ok/FAIL, points, id, detail)
 * and for a failed check a "look at:" line, then "score: S/10". */
void lab_print(FILE *f, const lab_grade *g);

/* The CSV of a class: the header names the checks; a row per submission. */
void lab_csv_header(FILE *f, const lab_def *lab);
void lab_csv_row(FILE *f, const lab_grade *g, const char *student);
/* A row for a file that could not be read. */
void lab_csv_unreadable(FILE *f, const lab_def *lab, const char *student, const char *why);

/* ---- for the grade functions (labs.c) ------------------------------------ */
/* Pass or fail check `id` (printf-style detail).  The first verdict wins. */
void lab_pass(lab_grade *g, const char *id, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void lab_fail(lab_grade *g, const char *id, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Pass when ok, else fail; returns ok. */
int lab_verdict(lab_grade *g, const char *id, int ok, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* Grading stops here: every check not yet decided fails with this reason. */
void lab_stop(lab_grade *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The lab's own files failed. */
void lab_internal(lab_grade *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Read a file of the programs folder into a malloc'd NUL-terminated
 * buffer; NULL (and g->internal) when it cannot be read. */
char *lab_read_program(lab_grade *g, const char *name, size_t *len);
/* Read any file; NULL with a message in err. */
char *lab_read_file(const char *path, size_t *len, char *err, size_t errlen);

/* ---- machines ------------------------------------------------------------- */
/* A preset (or a file under the programs folder when it ends in .cfg)
 * with KEY=VALUE overrides; -1 with g->internal on failure. */
int lab_machine(lab_grade *g, const char *base, const char *const *sets, unsigned nsets,
                tpu_config *cfg);
double lab_hbm_bpc(const tpu_config *cfg);       /* HBM bytes per cycle */
double lab_peak(const tpu_config *cfg);          /* MXU FLOPs per cycle */

/* ---- running a program ---------------------------------------------------- */
/* An array the lab fixes: the student's program must keep its label and
 * its data directive (the grader checks the bytes it loads). */
enum lab_array_kind { LAB_IN_BF16, LAB_IN_F32, LAB_OUT_F32 };
typedef struct lab_array {
    const char *sym;         /* the label: "X" */
    enum lab_array_kind kind;
    uint64_t count;          /* elements */
    uint64_t seed;           /* .random's seed (inputs) */
    double lo, hi;           /* .random's range (inputs) */
    uint64_t addr;           /* found by lab_run: the label's address */
    enum tpu_space space;    /* and its space (HBM or VMEM) */
} lab_array;

/* How the grader checks the result: a .expect it writes itself, or an
 * elementwise function of the inputs (lab_run reads them as loaded). */
typedef uint32_t (*lab_elem_fn)(uint32_t x, uint32_t y);
typedef struct lab_check_spec {
    enum { LAB_REF_MATMUL, LAB_REF_ELEM } how;
    /* MATMUL: Y[B,F] = X[B,D] . W[D,F], arrays 0 (X), 1 (W), 2 (Y) */
    uint64_t b, d, f;
    /* ELEM: out[i] = fn(in0[i], in1[i]) (in1 absent: y = 0), the last array is out */
    lab_elem_fn fn;
} lab_check_spec;

enum lab_run_status {
    LAB_RUN_OK,              /* halted, result bit-exact */
    LAB_RUN_ASM,             /* did not assemble */
    LAB_RUN_DATA,            /* a lab array is missing or its data changed */
    LAB_RUN_ERROR,           /* run-time error (deadlock, address, ...) */
    LAB_RUN_LIMIT,           /* over the cycle limit */
    LAB_RUN_WRONG,           /* halted with a wrong result */
    LAB_RUN_INTERRUPTED,     /* Ctrl-C */
};

typedef struct lab_run {
    /* what to run */
    const tpu_config *cfg;
    const char *src;         /* NULL: the submission */
    size_t src_len;
    const char *name;        /* for messages; NULL: the submission's path */
    const char *const *defines;  /* "NAME=VALUE" */
    unsigned ndefines;
    lab_array *arrays;       /* the lab's arrays, NULL: none checked */
    unsigned narrays;
    const lab_check_spec *check;  /* NULL: the program's own .expect */
    uint64_t max_cycles;
    /* what happened */
    enum lab_run_status status;
    char msg[512];           /* first assembler message, error or mismatch */
    uint64_t cycles;
    tpu_stats stats;
} lab_run;

/* Assemble, check the arrays, run, check the result.  Returns the status. */
enum lab_run_status lab_run_program(lab_grade *g, lab_run *r);
/* One line for a status that is not OK: "does not assemble: ...". */
const char *lab_run_why(const lab_run *r, char *buf, size_t len);

/* ---- answers -------------------------------------------------------------- */
/* The answer `key` of the submission: a line "key = value" (answers file)
 * or "# answer: key = value" (assembly and config files).  Returns 1 and
 * the value's text (trimmed) in buf, 0 when there is none. */
int lab_answer_text(const lab_grade *g, const char *key, char *buf, size_t len);
/* As a number; -1 when there is an answer that is not a number. */
int lab_answer_num(const lab_grade *g, const char *key, double *v);
/* Check a numeric answer: |got - want| <= tol_abs + tol_rel * |want|. */
void lab_check_num(lab_grade *g, const char *id, const char *key, double want, double tol_abs,
                   double tol_rel);
/* Check a word answer (case-insensitive; any of the '|'-separated words). */
void lab_check_word(lab_grade *g, const char *id, const char *key, const char *want);

/* ---- lab 7: the area model (lab_area.c, docs/labs/07-codesign.md) --------- */
typedef struct lab_area {
    double mxu, dma, hbm_phy, vmem_ports, total;   /* cells */
} lab_area;
void lab_area_of(const tpu_config *cfg, lab_area *a);

#endif /* TPU_LAB_H */
