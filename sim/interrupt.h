/*
 * interrupt.h - Ctrl-C for the tools: stop at the next cycle boundary.
 *
 * A long run polls tpu_interrupted() between cycles (or between sweep
 * points) and, when it is set, stops where it is, prints the report so far
 * with "stop: interrupted at cycle N", closes its output files so that
 * they load, and exits with TPU_EXIT_INTERRUPTED (130, the shell's 128 +
 * SIGINT).  A second Ctrl-C, a second or more after a first one the tool
 * has not yet handled, ends the process at once, as a plain SIGINT would
 * (signals within one second count as one).  SIGTERM is treated like the
 * first Ctrl-C too, so a `timeout` or a CI runner also gets valid files.
 *
 * The handler is installed without SA_RESTART: a blocking read (the
 * stepper's prompt) returns with EINTR, so an interactive tool can go
 * back to its prompt as gdb does (tpu_interrupt_clear(), then prompt).
 */
#ifndef TPU_INTERRUPT_H
#define TPU_INTERRUPT_H

#define TPU_EXIT_INTERRUPTED 130

/* Install the SIGINT and SIGTERM handlers (idempotent). */
void tpu_interrupt_install(void);

/* Non-zero once Ctrl-C (or SIGTERM) arrived and until tpu_interrupt_clear(). */
int tpu_interrupted(void);

/* Forget an interrupt that was handled (the stepper, back at its prompt). */
void tpu_interrupt_clear(void);

/* For tests: act as if Ctrl-C had been pressed. */
void tpu_interrupt_raise(void);

#endif
