/*
 * sim_mpi.h - tpu-sim over MPI ranks (tpu-sim-mpi): every rank steps a block
 * of the cores and exchanges the link traffic of each window with the
 * others (cmodel/parallel.c, tpu_partition); rank 0 reads the other ranks'
 * cores (counters, memories for the checks) over MPI to print the report.
 * docs/collectives.md, "Past one host", says how to launch it.
 */
#ifndef TPU_SIM_MPI_H
#define TPU_SIM_MPI_H

#include "expect.h"
#include "objfile.h"
#include "tpu.h"

int tpu_mpi_init(int *argc, char ***argv);
int tpu_mpi_rank(void);
int tpu_mpi_size(void);
/* Give the system to the ranks: core c to rank c * size / ncores. */
int tpu_mpi_attach(tpu_system *s, char *err, size_t errlen);
/* Rank 0: core c's counters, whichever rank steps it. */
void tpu_mpi_core_stats(tpu_system *s, unsigned c, tpu_stats *st);
/* Rank 0: the .expect checks' reads (a tpu_expect_read_fn, ctx the system)
 * of any core, whichever rank steps it: tpu_system_check_via(s, obj,
 * tpu_mpi_read, s, res). */
int tpu_mpi_read(void *ctx, unsigned core, enum tpu_space space, uint64_t addr, void *dst,
                 size_t n);
/* Rank 0: tell the others the report is done and its exit status;
 * the others: answer rank 0's reads until then, and return that status. */
int tpu_mpi_finish(tpu_system *s, int status);
void tpu_mpi_end(void);

#endif
