/*
 * kgen_tfm.h - transformer pieces as one program (kgen_tfm.c): the MLP
 * (tpu-gen ffn) and one attention head (tpu-gen attention), feature-major,
 * GEMMs on the MXUs and the layer between them on the VPU.
 */
#ifndef TPU_KGEN_TFM_H
#define TPU_KGEN_TFM_H

#include "kgen_nn.h"

typedef enum { KGEN_TFM_FFN, KGEN_TFM_ATTENTION } kgen_tfm_kind;

typedef struct {
    kgen_tfm_kind kind;
    /* ffn: T tokens, D model width, F hidden width.
     * attention: t = Tq queries, d = dh (head width), f = Tk keys. */
    uint64_t t, d, f;
    uint64_t heads;              /* attention: heads, one after the other (0 or 1: one) */
    int prenorm;                 /* ffn: layernorm before, the residual after (the block's MLP half) */
    uint32_t eps;                /* its epsilon (fp32 bits) */
    kgen_nn_plan ln, res;        /* prenorm: the layernorm and the residual add */
    int timing_only;
    kgen_plan g1, g2;            /* the two GEMMs */
    kgen_cost c1, c2;
    kgen_nn_plan v;              /* the VPU layer between them */
    uint64_t head_bytes;         /* HBM of one head's data; head h's at h x head_bytes */
    uint64_t hbm_need;
    double predicted;
} kgen_tfm;

int kgen_tfm_plan(const tpu_config *cfg, kgen_tfm *t, char *err, size_t errlen);
long kgen_tfm_emit(FILE *f, const char *config_name, const tpu_config *cfg, const kgen_tfm *t);

/* The error of the program's result (its bits, from the C references on
 * its data) against float64 on the same bf16 inputs; the relative error
 * over |exact| >= 1% of the largest.  -1 when out of memory. */
typedef struct {
    tpu_nn_error e;
    double max_exact;
} kgen_tfm_err;
int kgen_tfm_error(const kgen_tfm *t, kgen_tfm_err *r);

/* tpu-gen ffn|attention (kgen_tfm_cli.c); -1 when argv[1] is neither. */
int kgen_cli_tfm(int argc, char **argv);

#endif
