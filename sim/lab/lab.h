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

/* tpu-lab's exit statuses (and TPU_EXIT_INTERRUPTED, 130): grade: 0 full
 * marks, 1 below; grade-class: 0 the CSV was written; 2 bad command line or
 * a file that cannot be read; 3 the lab's own files failed. */
enum { LAB_EXIT_FULL = 0, LAB_EXIT_BELOW = 1, LAB_EXIT_USAGE = 2, LAB_EXIT_LAB = 3 };

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
    int one_file;            /* the submission is one file among other students'
                              * (grade-class's files directly in DIR): it may
                              * include nothing; else it may include files of
                              * its own folder (asm.h, include_sandbox) */
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
    char look[LAB_MAX_CHECKS][400];  /* what to look at, chosen from what failed;
                                      * "" for the check's own look */
    uint64_t cycles[LAB_MAX_CHECKS]; /* measured by the check (0: none) */
    double bound[LAB_MAX_CHECKS];    /* and the bound it was held to (0: none) */
    char root[1024];         /* the submission's folder (its includes' sandbox) */
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

/* The CSV of a class: the header names the checks; a row per submission:
 * the points of each check, then (labs that run programs) each check's
 * measured cycles and % of its bound where it has them, the first failure
 * and a warning (the other files of a student's folder).  A cell that
 * starts with = + - @ (a formula in a spreadsheet) gets a ' in front. */
void lab_csv_header(FILE *f, const lab_def *lab);
void lab_csv_row(FILE *f, const lab_grade *g, const char *student, const char *warning);
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
/* A measured check: pass when cycles <= max_ratio x bound, the detail
 * "N cycles, P% of the bound B"; the CSV gets the cycles and the %. */
int lab_check_speed(lab_grade *g, const char *id, uint64_t cycles, double bound,
                    double max_ratio);
/* Fail check `id` because check `before` failed (the look says so). */
void lab_fail_after(lab_grade *g, const char *id, const char *before, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* Record what a check measured (bound 0: none), for the CSV. */
void lab_measure(lab_grade *g, const char *id, uint64_t cycles, double bound);
/* Grading stops here: every check not yet decided fails with this reason. */
void lab_stop(lab_grade *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The lab's own files failed. */
void lab_internal(lab_grade *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Read a file of the programs folder into a malloc'd NUL-terminated
 * buffer; NULL (and g->internal) when it cannot be read. */
char *lab_read_program(lab_grade *g, const char *name, size_t *len);
/* Read any regular file (never blocking on a FIFO or reading a device);
 * NULL with a message in err. */
char *lab_read_file(const char *path, size_t *len, char *err, size_t errlen);
/* Read a submission: as lab_read_file, and a symbolic link is refused
 * unless it stays inside the submission's own folder. */
char *lab_read_submission(const char *path, size_t *len, char *err, size_t errlen);

/* ---- a class (lab_class.c) ------------------------------------------------- */
/* .s, .txt or .cfg */
const char *lab_kind_ext(enum lab_kind k);
/* Grade every student of DIR into the CSV (stdout when csv_path is NULL)
 * and print the class summary (written beside the CSV too).  Returns a
 * LAB_EXIT_* status or TPU_EXIT_INTERRUPTED. */
int lab_grade_class(const lab_def *lab, const lab_env *env, const char *dir, const char *csv_path);

/* ---- repeated grading of answers (lab_delay.c) ------------------------------ */
/* Before grading an answers file: wait longer the more often the same lab
 * was graded for the same student lately (docs/labs/README.md).  Returns 0,
 * or -1 when Ctrl-C came during the wait. */
int lab_answer_delay(const lab_def *lab, const char *student);

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

/* What went wrong in a run, for the "look at:" line (lab_run_look). */
enum lab_failure {
    LAB_FAIL_NONE, LAB_FAIL_ASM, LAB_FAIL_DATA, LAB_FAIL_DEADLOCK, LAB_FAIL_RANGE,
    LAB_FAIL_ALIGN, LAB_FAIL_ILLEGAL, LAB_FAIL_ERROR, LAB_FAIL_LIMIT, LAB_FAIL_WRONG,
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
/* What failed, from the status and the message. */
enum lab_failure lab_run_failure(const lab_run *r);
/* Where to look for that failure (the run's own message quoted where it
 * names a place: the element of a wrong result, the semaphore of a
 * deadlock); "" for LAB_FAIL_NONE. */
const char *lab_run_look(const lab_run *r, char *buf, size_t len);
/* Fail check `id` with the run's reason and the look that fits it. */
void lab_fail_run(lab_grade *g, const char *id, const lab_run *r, const char *mname);

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
