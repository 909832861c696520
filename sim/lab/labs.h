/*
 * labs.h - the labs' grade functions and checks (sim/lab/labNN.c), the
 * table that lists them (labs.c) and what they share (lab_util.c).
 */
#ifndef TPU_LABS_H
#define TPU_LABS_H

#include "lab.h"

#define LAB_DECLARE(nn)                                                                          \
    extern const lab_check lab##nn##_checks[];                                                   \
    void lab##nn##_grade(lab_grade *g);
LAB_DECLARE(01)
LAB_DECLARE(02)
LAB_DECLARE(03)
LAB_DECLARE(04)
LAB_DECLARE(05)
LAB_DECLARE(06)
LAB_DECLARE(07)
LAB_DECLARE(08)
LAB_DECLARE(09)
LAB_DECLARE(10)
#undef LAB_DECLARE

#define LAB_N(a) (unsigned)(sizeof(a) / sizeof(a)[0])

/* Pass or fail the result check `id` from a run on machine `mname`;
 * returns 1 when it ran bit-exact.  A run that did not assemble also
 * stops the grading (the remaining checks say why). */
int lab_result(lab_grade *g, const char *id, lab_run *r, const char *mname);

/* Run one of the lab's own programs (a starter): 0, or -1 with g->internal. */
int lab_run_own(lab_grade *g, lab_run *r, const char *file);

/* "12345 cycles, 104.2% of the bound 11850" */
const char *lab_pct(char *buf, size_t len, uint64_t cycles, double bound);

/* Labs 7 and 9 (a machine handed in as a config): the config text over
 * the defaults, validated; 0, or -1 with err. */
int lab_parse_cfg(const char *text, const char *where, tpu_config *c, char *err, size_t len);
/* The first key other than the student's four (mxu_n, num_mxu, hbm_bw,
 * vmem_bw; and name) whose value differs between a and b, in buf; NULL
 * when there is none. */
const char *lab_changed_key(const tpu_config *a, const tpu_config *b, char *buf, size_t len);

#endif /* TPU_LABS_H */
