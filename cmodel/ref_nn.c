/*
 * ref_nn.c - the transformer layers' references (ref_nn.h): the fp32
 * sequences of docs/numerics.md section 12, one rounding per VPU
 * instruction of the program, in the program's order; and float64 ones.
 */
#include "ref_nn.h"

#include <math.h>

#include "fp.h"

#define add tpu_f32_add
#define sub tpu_f32_sub
#define mul tpu_f32_mul

uint32_t tpu_nn_inv(uint64_t c)
{
    return tpu_f32_from_float(1.0f / (float)c);
}

uint32_t tpu_nn_gelu(uint32_t x)
{
    uint32_t t = mul(x, x);                 /* x^2 */
    t = mul(t, x);                          /* x^3 */
    t = mul(t, TPU_NN_GELU_A);              /* 0.044715 x^3 */
    t = add(x, t);                          /* x + 0.044715 x^3 */
    uint32_t u = mul(t, TPU_NN_GELU_K);     /* u = sqrt(2/pi) (...) */
    u = add(u, u);                          /* 2u (exact) */
    uint32_t r = tpu_f32_rcp(add(tpu_f32_exp(u), TPU_NN_ONE));   /* 1 / (1 + e^2u) */
    r = add(r, r);                          /* 2 / (1 + e^2u) (exact) */
    uint32_t th = sub(TPU_NN_ONE, r);       /* tanh(u) */
    uint32_t p = add(th, TPU_NN_ONE);       /* 1 + tanh(u) */
    return mul(mul(x, TPU_NN_HALF), p);     /* 0.5 x (1 + tanh(u)) */
}

uint32_t tpu_nn_silu(uint32_t x)
{
    uint32_t e = tpu_f32_exp(sub(0, x));    /* e^-x (+0 - x) */
    return mul(x, tpu_f32_rcp(add(e, TPU_NN_ONE)));
}

void tpu_ref_nn(const tpu_nn_params *p, const uint32_t *x, uint32_t *z, uint64_t n,
                uint64_t pitch, uint32_t *tmp)
{
    uint64_t C = p->c;
    uint32_t inv = tpu_nn_inv(C);
    for (uint64_t i = 0; i < n; i++) {
        const uint32_t *xr = x + i;
        uint32_t *zr = z + i;
        switch (p->op) {
        case TPU_NN_SOFTMAX: {
            uint32_t m = 0, s = 0;
            for (uint64_t c = 0; c < C; c++) {
                uint32_t v = mul(xr[c * pitch], p->scale);
                m = c ? tpu_f32_max(m, v) : v;
            }
            for (uint64_t c = 0; c < C; c++) {
                uint32_t e = tpu_f32_exp(sub(mul(xr[c * pitch], p->scale), m));
                tmp[c] = e;
                s = c ? add(s, e) : e;
            }
            uint32_t r = tpu_f32_rcp(s);
            for (uint64_t c = 0; c < C; c++)
                zr[c * pitch] = mul(tmp[c], r);
            break;
        }
        case TPU_NN_LAYERNORM: {
            uint32_t s = 0, q = 0;
            for (uint64_t c = 0; c < C; c++)
                s = c ? add(s, xr[c * pitch]) : xr[c * pitch];
            uint32_t mean = mul(s, inv);
            for (uint64_t c = 0; c < C; c++) {
                uint32_t d = sub(xr[c * pitch], mean);
                uint32_t d2 = mul(d, d);
                q = c ? add(q, d2) : d2;
            }
            uint32_t r = tpu_f32_rsqrt(add(mul(q, inv), p->eps));
            for (uint64_t c = 0; c < C; c++) {
                uint32_t d = sub(xr[c * pitch], mean);
                zr[c * pitch] = add(mul(mul(d, r), p->gamma[c]), p->beta[c]);
            }
            break;
        }
        case TPU_NN_RMSNORM: {
            uint32_t q = 0;
            for (uint64_t c = 0; c < C; c++) {
                uint32_t v = xr[c * pitch], v2 = mul(v, v);
                q = c ? add(q, v2) : v2;
            }
            uint32_t r = tpu_f32_rsqrt(add(mul(q, inv), p->eps));
            for (uint64_t c = 0; c < C; c++)
                zr[c * pitch] = mul(mul(xr[c * pitch], r), p->gamma[c]);
            break;
        }
        case TPU_NN_GELU:
            for (uint64_t c = 0; c < C; c++)
                zr[c * pitch] = tpu_nn_gelu(xr[c * pitch]);
            break;
        case TPU_NN_SILU:
            for (uint64_t c = 0; c < C; c++)
                zr[c * pitch] = tpu_nn_silu(xr[c * pitch]);
            break;
        case TPU_NN_ADD:
            for (uint64_t c = 0; c < C; c++)
                zr[c * pitch] = add(xr[c * pitch], p->y[c * pitch + i]);
            break;
        default:
            break;
        }
    }
}

static double f(uint32_t bits)
{
    return (double)tpu_f32_to_float(bits);
}

void tpu_ref_nn_f64(const tpu_nn_params *p, const uint32_t *x, double *z, uint64_t n,
                    uint64_t pitch)
{
    uint64_t C = p->c;
    const double k = sqrt(2.0 / 3.14159265358979323846);
    for (uint64_t i = 0; i < n; i++) {
        const uint32_t *xr = x + i;
        double *zr = z + i;
        switch (p->op) {
        case TPU_NN_SOFTMAX: {
            double m = -INFINITY, s = 0, sc = f(p->scale);
            for (uint64_t c = 0; c < C; c++)
                m = fmax(m, sc * f(xr[c * pitch]));
            for (uint64_t c = 0; c < C; c++)
                s += exp(sc * f(xr[c * pitch]) - m);
            for (uint64_t c = 0; c < C; c++)
                zr[c * pitch] = exp(sc * f(xr[c * pitch]) - m) / s;
            break;
        }
        case TPU_NN_LAYERNORM: {
            double s = 0, q = 0;
            for (uint64_t c = 0; c < C; c++)
                s += f(xr[c * pitch]);
            double mean = s / (double)C;
            for (uint64_t c = 0; c < C; c++)
                q += (f(xr[c * pitch]) - mean) * (f(xr[c * pitch]) - mean);
            double r = 1.0 / sqrt(q / (double)C + f(p->eps));
            for (uint64_t c = 0; c < C; c++)
                zr[c * pitch] = (f(xr[c * pitch]) - mean) * r * f(p->gamma[c]) + f(p->beta[c]);
            break;
        }
        case TPU_NN_RMSNORM: {
            double q = 0;
            for (uint64_t c = 0; c < C; c++)
                q += f(xr[c * pitch]) * f(xr[c * pitch]);
            double r = 1.0 / sqrt(q / (double)C + f(p->eps));
            for (uint64_t c = 0; c < C; c++)
                zr[c * pitch] = f(xr[c * pitch]) * r * f(p->gamma[c]);
            break;
        }
        case TPU_NN_GELU:
            for (uint64_t c = 0; c < C; c++) {
                double v = f(xr[c * pitch]);
                zr[c * pitch] = 0.5 * v * (1.0 + tanh(k * (v + 0.044715 * v * v * v)));
            }
            break;
        case TPU_NN_SILU:
            for (uint64_t c = 0; c < C; c++) {
                double v = f(xr[c * pitch]);
                zr[c * pitch] = v / (1.0 + exp(-v));
            }
            break;
        case TPU_NN_ADD:
            for (uint64_t c = 0; c < C; c++)
                zr[c * pitch] = f(xr[c * pitch]) + f(p->y[c * pitch + i]);
            break;
        default:
            break;
        }
    }
}

void tpu_nn_error_add(tpu_nn_error *e, const uint32_t *z, const double *w, uint64_t count,
                      double floor, uint64_t base)
{
    for (uint64_t i = 0; i < count; i++) {
        double d = fabs(f(z[i]) - w[i]);
        if (d > e->max_abs) {
            e->max_abs = d;
            e->at_abs = base + i;
        }
        if (fabs(w[i]) >= floor && d / fabs(w[i]) > e->max_rel) {
            e->max_rel = d / fabs(w[i]);
            e->at_rel = base + i;
        }
    }
    e->count += count;
}
