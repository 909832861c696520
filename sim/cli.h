/*
 * cli.h - command-line pieces the tools share (tpu-sim, tpu-roofline):
 * "--name value" / "--name=value" options and the config a tool runs on
 * (a preset or file, then --set overrides, then validation), with the
 * error messages every tool prints the same way.
 */
#ifndef TPU_CLI_H
#define TPU_CLI_H

#include "config.h"

/* "--name value" or "--name=value" at argv[*i]: the value (advancing *i
 * past a separate value), or NULL when argv[*i] is not this option.
 * *missing is set when the option is there but has no value. */
const char *tpu_cli_opt_value(int argc, char **argv, int *i, const char *name, int *missing);

/* Load `name` (a preset or a .cfg file) into cfg over the defaults; on
 * error print "TOOL: --config NAME: ..." and return -1. */
int tpu_cli_load_config(const char *tool, const char *name, tpu_config *cfg);

/* Apply the --set overrides in order, then validate the whole config; on
 * error print "TOOL: ..." (naming the key) and return -1. */
int tpu_cli_finish_config(const char *tool, tpu_config *cfg, const char *const *sets,
                          unsigned nsets);

/* Read a whole file of at most TPU_ASM_MAX_SOURCE bytes (a program's
 * source): malloc'ed, its length in *len; NULL when it cannot be read or is
 * larger. */
char *tpu_cli_read_source(const char *path, size_t *len);

/* Read programs/NAME for a tool that runs the example programs: from DIR
 * when given (--programs), else ./programs, else ../../programs next to the
 * executable (build/bin/TOOL run from elsewhere).  The path read goes to
 * path.  On failure prints "TOOL: error: cannot read ..." and returns NULL. */
char *tpu_cli_read_program(const char *tool, const char *dir, const char *argv0,
                           const char *name, char *path, size_t pathlen, size_t *len);

#endif
