/*
 * labs.c - the table of the labs (lab.h): docs/labs/NN-SLUG.md is the
 * handout of lab NN, programs/labs/ holds the starters and
 * programs/labs/solutions/ the reference solutions.
 */
#include "labs.h"
#include "lab_variant.h"

const lab_def lab_defs[] = {
    { 1, "stepper", "read a weight-stationary matmul in the stepper", LAB_ANSWERS,
      "labs/01-stepper.s", "labs/solutions/01-answers.txt", 45,
      lab01_checks, lab01_grade, lab01_print_variant },
    { 2, "pointwise", "a pointwise kernel at 90% of the HBM roofline", LAB_ASM,
      "labs/02-pointwise.s", "labs/solutions/02-pointwise.s", 60,
      lab02_checks, lab02_grade, NULL },
    { 3, "tiling", "tile a matmul that does not fit VMEM", LAB_ASM,
      "labs/03-tiling.s", "labs/solutions/03-tiling.s", 120,
      lab03_checks, lab03_grade, NULL },
    { 4, "double-buffer", "double buffering: overlap DMA and compute", LAB_ASM,
      "labs/04-double-buffer.s", "labs/solutions/04-double-buffer.s", 90,
      lab04_checks, lab04_grade, NULL },
    { 5, "crossover", "find the crossover batch and explain it with the roofline", LAB_ANSWERS,
      "labs/05-answers.txt", "labs/solutions/05-answers.txt", 60,
      lab05_checks, lab05_grade, lab05_print_variant },
    { 6, "weights-in-vmem", "weights resident in VMEM and the VMEM ridge", LAB_ANSWERS,
      "labs/06-answers.txt", "labs/solutions/06-answers.txt", 60,
      lab06_checks, lab06_grade, lab06_print_variant },
    { 7, "codesign", "co-design a machine under an area budget", LAB_CONFIG,
      "labs/07-codesign.cfg", "labs/solutions/07-codesign.cfg", 90,
      lab07_checks, lab07_grade, NULL },
    { 8, "find-the-bug", "find the bug in an RTL mutant with tpu-cosim", LAB_ANSWERS,
      "labs/08-find-bug.s", "labs/solutions/08-answers.txt", 60,
      lab08_checks, lab08_grade, lab08_print_variant },
    { 9, "network-codesign", "co-design a machine for a whole network under an area budget",
      LAB_CONFIG, "labs/09-network-codesign.cfg", "labs/solutions/09-network-codesign.cfg", 90,
      lab09_checks, lab09_grade, NULL },
    { 10, "shard-mlp", "shard a transformer MLP across 4 chips and beat a baseline", LAB_CONFIG,
      "labs/10-shard-mlp.cfg", "labs/solutions/10-shard-mlp.cfg", 90,
      lab10_checks, lab10_grade, NULL },
};
const unsigned lab_ndefs = LAB_N(lab_defs);
