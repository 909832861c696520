/*
 * ref_nn.c - the transformer layers' references (ref_nn.h): the fp32
 * sequences of docs/numerics.md section 12, one rounding per VPU
 * instruction of the program, in the program's order; and float64 ones.
 */
#include "ref_nn.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fp.h"
#include "ref.h"

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

/* ---- the transformer block ---- */

#define NEG_INF 0xff800000u

void tpu_ref_softmax_keys(const uint32_t *s, uint32_t *z, uint64_t tk, uint64_t tq, uint32_t scale,
                          const uint64_t *qpos, uint32_t *tmp)
{
    for (uint64_t i = 0; i < tq; i++) {
        uint32_t m = 0, sum = 0;
        for (uint64_t c = 0; c < tk; c++) {
            uint32_t v = mul(s[c * tq + i], scale);
            if (qpos && c > qpos[i])
                v = NEG_INF;
            tmp[c] = v;
            m = c ? tpu_f32_max(m, v) : v;
        }
        for (uint64_t c = 0; c < tk; c++) {
            uint32_t e = tpu_f32_exp(sub(tmp[c], m));
            tmp[c] = e;
            sum = c ? add(sum, e) : e;
        }
        uint32_t r = tpu_f32_rcp(sum);
        for (uint64_t c = 0; c < tk; c++)
            z[c * tq + i] = mul(tmp[c], r);
    }
}

static void to_bf16(const uint32_t *a, uint16_t *b, uint64_t n)
{
    for (uint64_t i = 0; i < n; i++)
        b[i] = tpu_bf16_from_f32(a[i]);
}

/* y = x + o, and (optional) the layernorm of y rounded to bf16 */
static void layernorm_bf16(const uint32_t *x, uint16_t *z, uint32_t *tmpz, uint64_t d, uint64_t t,
                           const uint32_t *g, const uint32_t *b, uint32_t eps, uint32_t *tmp)
{
    tpu_nn_params lp = { TPU_NN_LAYERNORM, d, g, b, eps, 0, NULL };
    tpu_ref_nn(&lp, x, tmpz, t, t, tmp);
    to_bf16(tmpz, z, d * t);
}

/* Flash (numerics.md 12): head h's O^T [dh][T] (bf16) from S^T [tk][T]
 * (fp32), V_h^T [dh][tk] (bf16), a block of kb keys at a time. */
static int flash_head(const uint32_t *s, const uint16_t *vh, uint16_t *ob, uint64_t tk, uint64_t T,
                      uint64_t dh, uint64_t kb, uint32_t scale, const uint64_t *qpos, unsigned tile)
{
    int rc = -1;
    uint32_t *m = malloc(T * 4), *l = malloc(T * 4), *cr = malloc(T * 4), *acc = calloc(dh * T, 4);
    uint32_t *oj = malloc(dh * T * 4), *z = malloc(kb * 4 + 4);
    uint16_t *vb = malloc(dh * kb * 2), *pb = malloc(kb * T * 2);
    if (!m || !l || !cr || !acc || !oj || !z || !vb || !pb)
        goto out;
    for (uint64_t q = 0; q < T; q++)
        m[q] = NEG_INF, l[q] = 0;
    for (uint64_t k0 = 0; k0 < tk; k0 += kb) {
        uint64_t n = tk - k0 < kb ? tk - k0 : kb;
        memset(pb, 0, kb * T * 2);
        for (uint64_t q = 0; q < T; q++) {
            uint32_t mn = m[q], sum = 0;
            for (uint64_t c = 0; c < n; c++) {
                uint32_t v = mul(s[(k0 + c) * T + q], scale);
                if (qpos && k0 + c > qpos[q])
                    v = NEG_INF;
                z[c] = v;
                mn = tpu_f32_max(mn, v);
            }
            for (uint64_t c = 0; c < n; c++) {
                uint32_t e = tpu_f32_exp(sub(z[c], mn));
                pb[c * T + q] = tpu_bf16_from_f32(e);
                sum = add(sum, e);
            }
            cr[q] = tpu_f32_exp(sub(m[q], mn));
            l[q] = add(mul(l[q], cr[q]), sum);
            m[q] = mn;
        }
        for (uint64_t d = 0; d < dh; d++)
            for (uint64_t c = 0; c < kb; c++)
                vb[d * kb + c] = k0 + c < tk ? vh[d * tk + k0 + c] : 0;
        if (tpu_ref_matmul(vb, pb, oj, dh, kb, T, tile) < 0)
            goto out;
        for (uint64_t d = 0; d < dh; d++)
            for (uint64_t q = 0; q < T; q++)
                acc[d * T + q] = add(mul(acc[d * T + q], cr[q]), oj[d * T + q]);
    }
    for (uint64_t q = 0; q < T; q++)
        cr[q] = tpu_f32_rcp(l[q]);
    for (uint64_t d = 0; d < dh; d++)
        for (uint64_t q = 0; q < T; q++)
            ob[d * T + q] = tpu_bf16_from_f32(mul(acc[d * T + q], cr[q]));
    rc = 0;
out:
    free(m); free(l); free(cr); free(acc); free(oj); free(z); free(vb); free(pb);
    return rc;
}

int tpu_ref_block(const tpu_block_params *p, uint32_t *y, uint32_t *x1out)
{
    uint64_t T = p->t, D = p->d, F = p->f, H = p->heads ? p->heads : 1, dh = D / H, P = p->past;
    uint64_t tk = P + (p->t_keys ? p->t_keys : T), big = F > 3 * D ? F : 3 * D;
    int rc = -1;
    uint32_t *f32 = malloc(big * T * 4), *tmp = malloc((tk > D ? tk : D) * 4 + 64);
    uint16_t *xb = malloc(D * T * 2), *qkv = malloc(3 * D * T * 2), *ob = malloc(D * T * 2);
    uint16_t *kh = malloc(tk * dh * 2), *vh = malloc(dh * tk * 2), *pb = malloc(tk * T * 2);
    uint32_t *s = malloc(tk * T * 4), *pz = malloc(tk * T * 4), *o = malloc(dh * T * 4);
    uint32_t *x1 = calloc(D * T, 4);
    uint16_t *gb = malloc(F * T * 2);
    uint64_t *qpos = malloc(T * sizeof(uint64_t));
    if (!f32 || !tmp || !xb || !qkv || !ob || !kh || !vh || !pb || !s || !pz || !o || !x1 || !gb || !qpos)
        goto out;
    uint32_t scale = tpu_f32_from_float((float)(1.0 / sqrt((double)dh)));
    for (uint64_t i = 0; i < T; i++)
        qpos[i] = P + i;
    /* the attention half */
    layernorm_bf16(p->x, xb, f32, D, T, p->g1, p->b1, p->eps, tmp);
    if (tpu_ref_matmul(p->wqkv, xb, f32, 3 * D, D, T, p->tile) < 0)
        goto out;
    to_bf16(f32, qkv, 3 * D * T);
    for (uint64_t h = 0; h < H; h++) {
        const uint16_t *q = qkv + h * dh * T, *k = qkv + (D + h * dh) * T, *v = qkv + (2 * D + h * dh) * T;
        for (uint64_t c = 0; c < tk; c++)          /* K_h token-major: the past, then the new tokens */
            for (uint64_t d = 0; d < dh; d++)
                kh[c * dh + d] = c < P ? p->kpast[c * D + h * dh + d] : k[d * T + (c - P)];
        for (uint64_t d = 0; d < dh; d++)          /* V_h^T feature-major */
            for (uint64_t c = 0; c < tk; c++)
                vh[d * tk + c] = c < P ? p->vpast[(h * dh + d) * P + c] : v[d * T + (c - P)];
        if (tpu_ref_matmul(kh, q, s, tk, dh, T, p->tile) < 0)
            goto out;
        if (p->kblock) {
            if (flash_head(s, vh, ob + h * dh * T, tk, T, dh, p->kblock, scale, p->causal ? qpos : NULL,
                           p->tile) < 0)
                goto out;
            continue;
        }
        tpu_ref_softmax_keys(s, pz, tk, T, scale, p->causal ? qpos : NULL, tmp);
        to_bf16(pz, pb, tk * T);
        if (tpu_ref_matmul(vh, pb, o, dh, tk, T, p->tile) < 0)
            goto out;
        to_bf16(o, ob + h * dh * T, dh * T);
    }
    if (tpu_ref_matmul(p->wo, ob, f32, D, D, T, p->tile) < 0)
        goto out;
    for (uint64_t i = 0; i < D * T; i++)
        x1[i] = add(p->x[i], f32[i]);
    if (x1out)
        memcpy(x1out, x1, D * T * 4);
    /* the MLP half */
    layernorm_bf16(x1, xb, f32, D, T, p->g2, p->b2, p->eps, tmp);
    if (tpu_ref_matmul(p->win, xb, f32, F, D, T, p->tile) < 0)
        goto out;
    for (uint64_t i = 0; i < F * T; i++)
        gb[i] = tpu_bf16_from_f32(tpu_nn_gelu(f32[i]));
    if (tpu_ref_matmul(p->wout, gb, f32, D, F, T, p->tile) < 0)
        goto out;
    for (uint64_t i = 0; i < D * T; i++)
        y[i] = add(x1[i], f32[i]);
    rc = 0;
out:
    free(f32); free(tmp); free(xb); free(qkv); free(ob); free(kh); free(vh); free(pb);
    free(s); free(pz); free(o); free(x1); free(gb); free(qpos);
    return rc;
}

static double bf(uint16_t b)
{
    return (double)tpu_f32_to_float((uint32_t)b << 16);
}

/* y[m][n] = a[m][k] (bf16) . w[k][n] (double) */
static void mm_f64(const uint16_t *a, const double *w, double *yv, uint64_t m, uint64_t k, uint64_t n)
{
    for (uint64_t i = 0; i < m * n; i++)
        yv[i] = 0;
    for (uint64_t i = 0; i < m; i++)
        for (uint64_t c = 0; c < k; c++) {
            double av = bf(a[i * k + c]);
            if (av != 0)
                for (uint64_t j = 0; j < n; j++)
                    yv[i * n + j] += av * w[c * n + j];
        }
}

static void layernorm_f64(const double *x, double *z, uint64_t d, uint64_t t, const uint32_t *g,
                          const uint32_t *b, uint32_t eps)
{
    for (uint64_t i = 0; i < t; i++) {
        double s = 0, q = 0;
        for (uint64_t c = 0; c < d; c++)
            s += x[c * t + i];
        double mean = s / (double)d;
        for (uint64_t c = 0; c < d; c++)
            q += (x[c * t + i] - mean) * (x[c * t + i] - mean);
        double r = 1.0 / sqrt(q / (double)d + f(eps));
        for (uint64_t c = 0; c < d; c++)
            z[c * t + i] = (x[c * t + i] - mean) * r * f(g[c]) + f(b[c]);
    }
}

int tpu_ref_block_f64(const tpu_block_params *p, double *y)
{
    uint64_t T = p->t, D = p->d, F = p->f, H = p->heads ? p->heads : 1, dh = D / H, P = p->past;
    uint64_t tk = P + (p->t_keys ? p->t_keys : T), big = F > 3 * D ? F : 3 * D;
    int rc = -1;
    double *xd = malloc(D * T * sizeof(double)), *xn = malloc(D * T * sizeof(double));
    double *a = malloc(big * T * sizeof(double)), *o = malloc(D * T * sizeof(double));
    double *s = malloc(tk * T * sizeof(double)), *kh = malloc(tk * dh * sizeof(double));
    double *vv = malloc(dh * tk * sizeof(double)), *x1 = malloc(D * T * sizeof(double));
    const double sc = 1.0 / sqrt((double)dh), kk = sqrt(2.0 / 3.14159265358979323846);
    if (!xd || !xn || !a || !o || !s || !kh || !vv || !x1)
        goto out;
    for (uint64_t i = 0; i < D * T; i++)
        xd[i] = f(p->x[i]);
    layernorm_f64(xd, xn, D, T, p->g1, p->b1, p->eps);
    mm_f64(p->wqkv, xn, a, 3 * D, D, T);
    for (uint64_t h = 0; h < H; h++) {
        const double *q = a + h * dh * T, *k = a + (D + h * dh) * T, *v = a + (2 * D + h * dh) * T;
        for (uint64_t c = 0; c < tk; c++)
            for (uint64_t d = 0; d < dh; d++) {
                kh[c * dh + d] = c < P ? bf(p->kpast[c * D + h * dh + d]) : k[d * T + (c - P)];
                vv[d * tk + c] = c < P ? bf(p->vpast[(h * dh + d) * P + c]) : v[d * T + (c - P)];
            }
        for (uint64_t c = 0; c < tk; c++)
            for (uint64_t i = 0; i < T; i++) {
                double acc = 0;
                for (uint64_t d = 0; d < dh; d++)
                    acc += kh[c * dh + d] * q[d * T + i];
                s[c * T + i] = acc * sc;
            }
        for (uint64_t i = 0; i < T; i++) {
            uint64_t last = p->causal && P + i < tk - 1 ? P + i : tk - 1;
            double m = -INFINITY, sum = 0;
            for (uint64_t c = 0; c <= last; c++)
                m = fmax(m, s[c * T + i]);
            for (uint64_t c = 0; c < tk; c++) {
                s[c * T + i] = c <= last ? exp(s[c * T + i] - m) : 0.0;
                sum += s[c * T + i];
            }
            for (uint64_t c = 0; c < tk; c++)
                s[c * T + i] /= sum;
        }
        for (uint64_t d = 0; d < dh; d++)
            for (uint64_t i = 0; i < T; i++) {
                double acc = 0;
                for (uint64_t c = 0; c < tk; c++)
                    acc += vv[d * tk + c] * s[c * T + i];
                o[(h * dh + d) * T + i] = acc;
            }
    }
    mm_f64(p->wo, o, x1, D, D, T);
    for (uint64_t i = 0; i < D * T; i++)
        x1[i] += xd[i];
    layernorm_f64(x1, xn, D, T, p->g2, p->b2, p->eps);
    mm_f64(p->win, xn, a, F, D, T);
    for (uint64_t i = 0; i < F * T; i++) {
        double v = a[i];
        a[i] = 0.5 * v * (1.0 + tanh(kk * (v + 0.044715 * v * v * v)));
    }
    mm_f64(p->wout, a, y, D, F, T);
    for (uint64_t i = 0; i < D * T; i++)
        y[i] += x1[i];
    rc = 0;
out:
    free(xd); free(xn); free(a); free(o); free(s); free(kh); free(vv); free(x1);
    return rc;
}
