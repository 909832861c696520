/*
 * sim_mpi.c - the MPI side of tpu-sim-mpi (sim_mpi.h).
 *
 * The window exchange is one MPI_Alltoall of byte counts and one
 * MPI_Alltoallv of the packed chunks per window; the decisions (halt,
 * deadlock, error) one MPI_Allreduce of six numbers.  After the run rank 0
 * asks the owner of a core for what it needs (requests of four numbers,
 * answers of bytes), and the other ranks answer until rank 0 says done.
 */
#include "sim_mpi.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { REQ_DONE, REQ_STATS, REQ_MEM };
enum { TAG_REQ = 1, TAG_ANS = 2 };

static int rank, size;
static unsigned *owner;

int tpu_mpi_init(int *argc, char ***argv)
{
    if (MPI_Init(argc, argv) != MPI_SUCCESS)
        return -1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    return 0;
}

int tpu_mpi_rank(void) { return rank; }
int tpu_mpi_size(void) { return size; }

void tpu_mpi_end(void)
{
    free(owner);
    MPI_Finalize();
}

static int exchange(void *ctx, void *const *out, const size_t *outlen, void **in, size_t *inlen)
{
    (void)ctx;
    int *sc = calloc((size_t)size, sizeof *sc), *rc = calloc((size_t)size, sizeof *rc);
    int *sd = calloc((size_t)size, sizeof *sd), *rd = calloc((size_t)size, sizeof *rd);
    uint8_t *sb = NULL, *rb = NULL;
    int ok = sc && rc && sd && rd;
    size_t total = 0;
    for (int q = 0; ok && q < size; q++) {
        if (outlen[q] > (size_t)1 << 30)
            ok = 0;
        sc[q] = (int)outlen[q];
        sd[q] = (int)total;
        total += outlen[q];
    }
    if (ok && total > (size_t)1 << 30)
        ok = 0;
    if (ok && !(sb = malloc(total ? total : 1)))
        ok = 0;
    for (int q = 0; ok && q < size; q++)
        if (outlen[q])
            memcpy(sb + sd[q], out[q], outlen[q]);
    /* every rank takes part, even one that failed: it sends nothing */
    if (!ok)
        memset(sc, 0, (size_t)size * sizeof *sc);
    MPI_Alltoall(sc, 1, MPI_INT, rc, 1, MPI_INT, MPI_COMM_WORLD);
    size_t rtotal = 0;
    for (int q = 0; q < size; q++) {
        rd[q] = (int)rtotal;
        rtotal += (size_t)rc[q];
    }
    rb = malloc(rtotal ? rtotal : 1);
    MPI_Alltoallv(sb ? sb : (uint8_t *)rd, sc, sd, MPI_BYTE, rb, rc, rd, MPI_BYTE,
                  MPI_COMM_WORLD);
    for (int q = 0; q < size; q++) {
        in[q] = NULL;
        inlen[q] = 0;
        if (rb && rc[q]) {
            in[q] = malloc((size_t)rc[q]);
            if (!in[q]) {
                ok = 0;
                continue;
            }
            memcpy(in[q], rb + rd[q], (size_t)rc[q]);
            inlen[q] = (size_t)rc[q];
        }
    }
    ok = ok && rb;
    free(sc); free(rc); free(sd); free(rd); free(sb); free(rb);
    return ok ? 0 : -1;
}

static int max_u64(void *ctx, uint64_t *v, unsigned n)
{
    (void)ctx;
    return MPI_Allreduce(MPI_IN_PLACE, v, (int)n, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD) ==
                   MPI_SUCCESS ? 0 : -1;
}

int tpu_mpi_attach(tpu_system *s, char *err, size_t errlen)
{
    unsigned n = tpu_system_ncores(s);
    if ((unsigned)size > n) {
        snprintf(err, errlen, "%d MPI ranks for %u cores: every rank needs a core", size, n);
        return -1;
    }
    owner = calloc(n, sizeof *owner);
    if (!owner) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    for (unsigned c = 0; c < n; c++)
        owner[c] = (unsigned)((uint64_t)c * (unsigned)size / n);
    tpu_partition p = { .nparts = (unsigned)size, .self = (unsigned)rank, .owner = owner,
                        .exchange = exchange, .max_u64 = max_u64 };
    tpu_system_set_partition(s, &p);
    return 0;
}

/* ---- rank 0 reads the others' cores ----------------------------------------------------- */

static int ask(unsigned core, uint64_t kind, uint64_t space, uint64_t addr, uint64_t n,
               void *dst)
{
    uint64_t req[5] = { kind, core, space, addr, n };
    int to = (int)owner[core];
    MPI_Send(req, 5, MPI_UINT64_T, to, TAG_REQ, MPI_COMM_WORLD);
    int ok;
    MPI_Recv(&ok, 1, MPI_INT, to, TAG_ANS, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (!ok)
        return -1;
    MPI_Recv(dst, (int)n, MPI_BYTE, to, TAG_ANS, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    return 0;
}

void tpu_mpi_core_stats(tpu_system *s, unsigned c, tpu_stats *st)
{
    if (size <= 1 || tpu_system_owns(s, c) || ask(c, REQ_STATS, 0, 0, sizeof *st, st))
        tpu_core_stats(tpu_system_core(s, c), st);
}

/* Reads for the checker, in pieces of at most 64 MiB. */
int tpu_mpi_read(void *ctx, unsigned core, enum tpu_space space, uint64_t addr, void *dst,
                 size_t n)
{
    tpu_system *s = ctx;
    if (core >= tpu_system_ncores(s))
        return -1;
    if (size <= 1 || tpu_system_owns(s, core))
        return tpu_mem_read(tpu_system_core(s, core), space, addr, dst, n);
    for (size_t off = 0; off < n; off += (size_t)64 << 20) {
        size_t k = n - off < ((size_t)64 << 20) ? n - off : (size_t)64 << 20;
        if (ask(core, REQ_MEM, (uint64_t)space, addr + off, k, (uint8_t *)dst + off))
            return -1;
    }
    return 0;
}

int tpu_mpi_finish(tpu_system *s, int status)
{
    if (size <= 1)
        return status;
    if (rank == 0) {
        uint64_t req[5] = { REQ_DONE, 0, 0, 0, 0 };
        for (int q = 1; q < size; q++)
            MPI_Send(req, 5, MPI_UINT64_T, q, TAG_REQ, MPI_COMM_WORLD);
    } else {
        for (;;) {
            uint64_t req[5];
            MPI_Recv(req, 5, MPI_UINT64_T, 0, TAG_REQ, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            if (req[0] == REQ_DONE)
                break;
            void *buf = req[4] ? malloc(req[4]) : NULL;
            int ok = buf != NULL && req[1] < tpu_system_ncores(s);
            if (ok && req[0] == REQ_STATS)
                tpu_core_stats(tpu_system_core(s, (unsigned)req[1]), buf);
            else if (ok)
                ok = tpu_mem_read(tpu_system_core(s, (unsigned)req[1]), (enum tpu_space)req[2],
                                  req[3], buf, req[4]) == 0;
            MPI_Send(&ok, 1, MPI_INT, 0, TAG_ANS, MPI_COMM_WORLD);
            if (ok)
                MPI_Send(buf, (int)req[4], MPI_BYTE, 0, TAG_ANS, MPI_COMM_WORLD);
            free(buf);
        }
    }
    /* TPU_MPI_STATS=1: rank 0 says which cores each rank stepped in how many
     * windows (tests/mpi.sh checks that the ranks did split the work) */
    uint64_t mine[3] = { 0, 0, tpu_system_windows(s) };
    for (unsigned c = 0; owner && c < tpu_system_ncores(s); c++)
        if (owner[c] == (unsigned)rank) {
            if (!mine[1])
                mine[0] = c;
            mine[1]++;
        }
    uint64_t *all = rank == 0 ? calloc((size_t)size * 3, sizeof *all) : NULL;
    MPI_Gather(mine, 3, MPI_UINT64_T, all, 3, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    if (rank == 0 && all && getenv("TPU_MPI_STATS"))
        for (int q = 0; q < size; q++)
            fprintf(stderr, "tpu-sim-mpi: rank %d stepped %llu cores from core %llu in %llu "
                    "windows\n", q, (unsigned long long)all[3 * q + 1],
                    (unsigned long long)all[3 * q], (unsigned long long)all[3 * q + 2]);
    free(all);
    MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
    return status;
}
