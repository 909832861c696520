/*
 * lab_variant.h - per-student variants of the answer labs (1, 5, 6 and 8;
 * docs/labs/README.md, "Every student their own numbers").
 *
 * A variant is a uint64 (lab.h: lab_grade.variant, lab_variant_of(name));
 * each answer lab turns it into its parameters with the small generator
 * below (seeded with the variant and the lab's number, so one name gets
 * unrelated numbers in different labs).  Variant 0 is always the handout's
 * own numbers; any other variant differs from them in at least one
 * parameter.  The grade functions compute the right answers for
 * g->variant; print_variant prints the student's questions.
 */
#ifndef TPU_LAB_VARIANT_H
#define TPU_LAB_VARIANT_H

#include <stdio.h>
#include <stdint.h>

#include "lab.h"

/* splitmix64 */
typedef struct lab_rng {
    uint64_t s;
} lab_rng;

void lab_rng_seed(lab_rng *r, uint64_t variant, unsigned lab);
uint64_t lab_rng_next(lab_rng *r);
/* Uniform in [0, n) (n >= 1). */
unsigned lab_rng_below(lab_rng *r, unsigned n);
/* One of the n values of v. */
#define LAB_PICK(r, v) ((v)[lab_rng_below((r), (unsigned)(sizeof(v) / sizeof(v)[0]))])

/* The first lines of a student's sheet (print_variant): whose questions
 * they are and how to check the answers file, as '#' comment lines. */
void lab_variant_header(const lab_grade *g, FILE *f);
/* The student's name as one shell word (quoted when it needs it; control
 * characters become '?'), into buf. */
const char *lab_variant_shell_name(const char *name, char *buf, size_t len);

/* The labs' print_variant (lab_def.print_variant). */
int lab01_print_variant(lab_grade *g, FILE *f);
int lab05_print_variant(lab_grade *g, FILE *f);
int lab06_print_variant(lab_grade *g, FILE *f);
int lab08_print_variant(lab_grade *g, FILE *f);

/* For the tests only (tests/test_labs_variant.c), never a tpu-lab command:
 * the right answers of answer lab g->lab in variant g->variant, written as
 * an answers file that scores 10/10 in that variant.  g needs lab, env and
 * variant.  Returns 0, or -1 with g->internal. */
int lab_variant_answers(lab_grade *g, FILE *f);
int lab01_answers_file(lab_grade *g, FILE *f);
int lab05_answers_file(lab_grade *g, FILE *f);
int lab06_answers_file(lab_grade *g, FILE *f);
int lab08_answers_file(lab_grade *g, FILE *f);

#endif /* TPU_LAB_VARIANT_H */
