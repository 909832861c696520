/*
 * cmutant.h - mutants of the C model (docs/cosim.md, "C-model mutants").
 *
 * The golden model can be wrong too.  A few deliberate bugs of the kinds
 * the RTL catalogue has (an operator flipped, a bound off by one, a stride
 * or a rounding rule swapped) sit in the C model's code as
 *
 *     CMUTANT(id, original expression, mutated expression)
 *
 * In every normal build that is the original expression and nothing else.
 * In the build of `make cmutants` (-DTPU_CMUTANTS, build/cmut/) it is the
 * mutated expression when the environment variable TPU_CMUTANT holds `id`,
 * so one library holds them all and each run picks one; the lockstep
 * regression against the RTL (and the fp units' plain reference in
 * tests/test_fp.c) must notice each.  sim/cosim/cmutants.def lists them:
 * id, unit, file and what the bug does.
 */
#ifndef TPU_CMUTANT_H
#define TPU_CMUTANT_H

#ifdef TPU_CMUTANTS
extern int tpu_cmutant;     /* TPU_CMUTANT from the environment, 0 = none */
#define CMUTANT(id, orig, mutated) (tpu_cmutant == (id) ? (mutated) : (orig))
#else
#define CMUTANT(id, orig, mutated) (orig)
#endif

#endif /* TPU_CMUTANT_H */
