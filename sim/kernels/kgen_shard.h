/*
 * kgen_shard.h - the transformer MLP sharded across the cores of a ring or a
 * 2-D torus (tpu-gen ffn-shard, kgen_shard.c; docs/transformers.md,
 * "Sharded across chips").  Every core runs tpu-gen ffn's stages on its
 * block (T / dp tokens, F / tp hidden units); with F sharded, the partial
 * outputs are summed over the model axis in a fixed order (core 0's first).
 */
#ifndef TPU_KGEN_SHARD_H
#define TPU_KGEN_SHARD_H

#include "kgen_tfm.h"

enum { KGEN_SHARD_ALL = 0, KGEN_SHARD_COMPUTE = 1, KGEN_SHARD_COMM = 2 };

typedef struct {
    uint64_t t, d, f;            /* the whole MLP: T tokens, D, F */
    unsigned rows, cols;         /* the mesh: rows x cols cores (a ring: 1 x n) */
    int torus;                   /* 1: torus2d (--grid rows x cols); 0: a ring */
    unsigned bx, by, fx, fy;     /* the sharding: B (tokens) over X / Y, F over X / Y (0 or 1) */
    unsigned dp, tp;             /* ways: tokens and F */
    int taxis;                   /* F's axis: 0 (X, along a row), 1 (Y, along a column); -1 none */
    int part;                    /* KGEN_SHARD_ALL, _COMPUTE (no sum), _COMM (the sum only) */
    int ring;                    /* the sum: 0 AllToAll + VPU (order P_0 + P_1 + ...), 1 ring_reducescatter
                                  * (each half chunk in its ring's order) */
    int overlap;                 /* 1: the collective matmul (--overlap): GEMM 2 in 2 n half-chunk
                                  * pieces, each piece's partial sent on while the next is computed
                                  * (the ring's order of the sum, as --reduce ring) */
    int bf16;                    /* --partials bf16 (with --overlap): every sum sent rounded to bf16
                                  * (numerics.md 14), the summed chunks gathered in bf16 */
    int timing_only;
    kgen_tfm l;                  /* one core's ffn: T / dp, D, F / tp */
    uint64_t region;             /* HBM of one core's block; core c's at c x region */
    uint64_t h_o;                /* in a region: O^T [D][T / dp] fp32, the summed output */
    uint64_t chunk, v_p, v_slots, v_work, v_o, vmem_need;  /* the sum's VMEM */
    /* --overlap: a piece is hr = D / 2n rows of O^T (half a chunk, half bytes); VMEM above every
     * stage's: my pieces (2 n halves: +1's steps 0 .. n-1, then -1's), the received (2 (n-1)) */
    kgen_plan piece;
    kgen_cost cpiece;
    uint64_t hr, half, v_mine, v_recv;
    uint64_t hs;                 /* bytes of a half chunk as sent: half, or half / 2 in bf16 */
    uint64_t v_send, v_og;       /* bf16: the rounded sums to send, the gathered bf16 O^T */
    double predicted_local, predicted_comm;
    double predicted_exposed;    /* the cost model's exposed communication (not under compute) */
    double book_exposed;         /* the book's formula for it (kgen_shard_cli.c prints it) */
} kgen_shard;

/* Core c's place on the mesh: its token block or sequence (the data axis,
 * *di) and its position on the model axis (*mi: its F block, its heads). */
void kgen_shard_place(const kgen_shard *s, unsigned c, unsigned *di, unsigned *mi);

/* Parse "B_X", "F_Y", "B_X,F_Y", "B_XY", or the words dp / tp, into s. */
int kgen_shard_spec(kgen_shard *s, const char *spec, char *err, size_t errlen);
int kgen_shard_plan(const tpu_config *cfg, kgen_shard *s, char *err, size_t errlen);
long kgen_shard_emit(FILE *f, const char *config_name, const tpu_config *cfg, const kgen_shard *s);

/* The whole result of core 0's token block, computed in C in the program's
 * order (each core's partial as tpu-gen ffn's references, then summed left
 * to right over the model axis), into o (D x T/dp fp32).  *differ and
 * *ulp: how many values differ from the one-chip order (the second GEMM's
 * K = F in one MXU accumulation) and the largest difference in ulps.
 * -1 when out of memory. */
int kgen_shard_reference(const kgen_shard *s, uint32_t *o, uint64_t *differ, uint64_t *ulp);

/* The errors against float64 of core 0's result o (as kgen_shard_reference
 * gives it): the second GEMM from the same bf16 G^T and W_out^T, summed in
 * float64 (nothing rounded), against o, and against the same sum with fp32
 * partials (o's order, nothing rounded to bf16); *omax the largest |O|.
 * -1 when out of memory. */
int kgen_shard_error64(const kgen_shard *s, const uint32_t *o, double *err, double *err_fp32, double *omax);

int kgen_cli_shard(int argc, char **argv);

#endif
