/*
 * ref_layers.c - the int8 references and the layers' (docs/numerics.md):
 * the GEMM epilogue, conv2d and pooling.
 */
#include "ref_impl.h"

#include <stdlib.h>
#include <string.h>

/* ---- int8 ---------------------------------------------------------------------- */

void tpu_ref_rows_i8(const uint16_t *x, size_t ldx, unsigned rows, const uint16_t *w,
                     unsigned n, uint32_t *y, size_t ldy)
{
    int32_t acc[TPU_REF_MAX_N];
    for (unsigned r = 0; r < rows; r++) {
        const uint16_t *xr = x + r * ldx;
        for (unsigned c = 0; c < n; c++)
            acc[c] = 0;
        for (unsigned k = 0; k < n; k++) {
            int32_t a0 = (int8_t)(uint8_t)(xr[k] & 0xff), a1 = (int8_t)(uint8_t)(xr[k] >> 8);
            if (!a0 && !a1)
                continue;
            const uint16_t *wk = w + (size_t)k * n;
            for (unsigned c = 0; c < n; c++)
                acc[c] += a0 * (int8_t)(uint8_t)(wk[c] & 0xff) + a1 * (int8_t)(uint8_t)(wk[c] >> 8);
        }
        for (unsigned c = 0; c < n; c++)
            y[r * ldy + c] = (uint32_t)acc[c];
    }
}

int tpu_ref_matmul_i8(const uint8_t *x, const uint8_t *w, uint32_t *y,
                      uint64_t b, uint64_t d, uint64_t f)
{
    if (d % 2)
        return -1;
    for (uint64_t i = 0; i < b; i++) {
        uint32_t *yr = y + i * f;
        for (uint64_t c = 0; c < f; c++)
            yr[c] = 0;
        for (uint64_t k = 0; k < d; k++) {
            uint32_t a = (uint32_t)(int32_t)(int8_t)x[i * d + k];
            const uint8_t *wk = w + (k / 2) * 2 * f + k % 2;
            for (uint64_t c = 0; c < f; c++)
                yr[c] += a * (uint32_t)(int32_t)(int8_t)wk[2 * c];   /* mod 2^32 */
        }
    }
    return 0;
}

/* ---- layers: GEMM epilogue, conv2d, pooling -------------------------------------- */

void tpu_ref_epilogue(uint32_t *y, uint64_t rows, uint64_t f, const uint32_t *bias,
                      unsigned flags)
{
    for (uint64_t i = 0; i < rows; i++) {
        uint32_t *yr = y + i * f;
        if ((flags & TPU_REF_EPI_BIAS) && bias)
            for (uint64_t c = 0; c < f; c++)
                yr[c] = tpu_f32_add(yr[c], bias[c]);
        if (flags & TPU_REF_EPI_RELU)
            for (uint64_t c = 0; c < f; c++)
                yr[c] = tpu_f32_relu(yr[c]);
    }
}

int tpu_ref_conv_shape(tpu_ref_conv *c, char *why, size_t whylen)
{
    const uint64_t lim = 1ull << 31;
    if (!c->nb || !c->h || !c->w || !c->c || !c->f || !c->r || !c->s || !c->stride
        || !c->groups) {
        snprintf(why, whylen, "NB, H, W, C, F, R, S, STRIDE and GROUPS must be positive");
        return -1;
    }
    if (c->nb > lim || c->h > lim || c->w > lim || c->c > lim || c->f > lim || c->r > lim
        || c->s > lim || c->stride > lim || c->pad > lim || c->groups > lim) {
        snprintf(why, whylen, "a size is larger than 2^31");
        return -1;
    }
    if (c->c % c->groups || c->f % c->groups) {
        snprintf(why, whylen, "GROUPS %llu must divide C %llu and F %llu",
                 (unsigned long long)c->groups, (unsigned long long)c->c,
                 (unsigned long long)c->f);
        return -1;
    }
    if (c->h + 2 * c->pad < c->r || c->w + 2 * c->pad < c->s) {
        snprintf(why, whylen, "the %llux%llu window does not fit the padded %llux%llu input",
                 (unsigned long long)c->r, (unsigned long long)c->s,
                 (unsigned long long)(c->h + 2 * c->pad), (unsigned long long)(c->w + 2 * c->pad));
        return -1;
    }
    if (c->pad >= c->r || c->pad >= c->s) {
        snprintf(why, whylen, "PAD %llu must be smaller than the window %llux%llu",
                 (unsigned long long)c->pad, (unsigned long long)c->r, (unsigned long long)c->s);
        return -1;
    }
    c->oh = (c->h + 2 * c->pad - c->r) / c->stride + 1;
    c->ow = (c->w + 2 * c->pad - c->s) / c->stride + 1;
    return 0;
}

/* The input pixel of output pixel p's tap (r, s), or -1 outside the input. */
static int64_t conv_src(const tpu_ref_conv *c, uint64_t p, uint64_t r, uint64_t s)
{
    uint64_t ow = p % c->ow, q = p / c->ow, oh = q % c->oh, n = q / c->oh;
    int64_t ih = (int64_t)(oh * c->stride + r) - (int64_t)c->pad;
    int64_t iw = (int64_t)(ow * c->stride + s) - (int64_t)c->pad;
    if (ih < 0 || iw < 0 || ih >= (int64_t)c->h || iw >= (int64_t)c->w)
        return -1;
    return (int64_t)((n * c->h + (uint64_t)ih) * c->w + (uint64_t)iw);
}

int tpu_ref_conv2d(const tpu_ref_conv *c, const uint16_t *x, const uint16_t *w,
                   const uint32_t *bias, unsigned flags, uint64_t p0, uint64_t np,
                   uint32_t *y, unsigned tile)
{
    uint64_t cg = c->c / c->groups, fg = c->f / c->groups, taps = c->r * c->s;
    if (flags & TPU_REF_EPI_VPU) {
        /* depthwise on the VPU: one channel per group, products and sums in fp32 */
        for (uint64_t i = 0; i < np; i++)
            for (uint64_t ch = 0; ch < c->f; ch++) {
                uint64_t g = ch / fg, ci = g * cg;
                uint32_t acc = 0;
                for (uint64_t t = 0; t < taps; t++) {
                    int64_t src = conv_src(c, p0 + i, t / c->s, t % c->s);
                    uint32_t xv = src < 0 ? 0 : tpu_f32_from_bf16(x[(uint64_t)src * c->c + ci]);
                    uint32_t wv = tpu_f32_from_bf16(w[t * cg * c->f + ch]);
                    uint32_t prod = tpu_f32_mul(xv, wv);
                    acc = t == 0 ? prod : tpu_f32_add(acc, prod);
                }
                y[i * c->f + ch] = acc;
            }
    } else {
        uint64_t kg = taps * cg;
        uint16_t *a = malloc((size_t)(np * kg * 2 + 2));
        uint16_t *wg = malloc((size_t)(kg * fg * 2 + 2));
        uint32_t *yg = malloc((size_t)(np * fg * 4 + 4));
        if (!a || !wg || !yg) {
            free(a); free(wg); free(yg);
            return -1;
        }
        for (uint64_t g = 0; g < c->groups; g++) {
            for (uint64_t k = 0; k < kg; k++)          /* HWIO: [t][ci][g*fg + fo] */
                memcpy(wg + k * fg, w + k * c->f + g * fg, (size_t)fg * 2);
            for (uint64_t i = 0; i < np; i++)
                for (uint64_t t = 0; t < taps; t++) {
                    int64_t src = conv_src(c, p0 + i, t / c->s, t % c->s);
                    uint16_t *dst = a + i * kg + t * cg;
                    if (src < 0)
                        memset(dst, 0, (size_t)cg * 2);
                    else
                        memcpy(dst, x + (uint64_t)src * c->c + g * cg, (size_t)cg * 2);
                }
            if (tpu_ref_matmul(a, wg, yg, np, kg, fg, tile) < 0) {
                free(a); free(wg); free(yg);
                return -1;
            }
            for (uint64_t i = 0; i < np; i++)
                memcpy(y + i * c->f + g * fg, yg + i * fg, (size_t)fg * 4);
        }
        free(a); free(wg); free(yg);
    }
    tpu_ref_epilogue(y, np, c->f, bias, flags);
    return 0;
}

uint32_t tpu_ref_pool_scale(uint64_t taps)
{
    return tpu_f32_from_float(1.0f / (float)taps);
}

void tpu_ref_pool(const tpu_ref_conv *c, unsigned mode, const uint32_t *x, uint64_t p0,
                  uint64_t np, uint32_t *y)
{
    uint64_t taps = c->r * c->s;
    uint32_t padv = mode == TPU_REF_POOL_MAX ? 0xff800000u : 0;
    uint32_t scale = tpu_ref_pool_scale(taps);
    for (uint64_t i = 0; i < np; i++)
        for (uint64_t ch = 0; ch < c->c; ch++) {
            uint32_t acc = 0;
            for (uint64_t t = 0; t < taps; t++) {
                int64_t src = conv_src(c, p0 + i, t / c->s, t % c->s);
                uint32_t v = src < 0 ? padv : x[(uint64_t)src * c->c + ch];
                acc = t == 0 ? v : mode == TPU_REF_POOL_MAX ? tpu_f32_max(acc, v)
                                                            : tpu_f32_add(acc, v);
            }
            if (mode == TPU_REF_POOL_AVG)
                acc = tpu_f32_mul(acc, scale);
            y[i * c->c + ch] = acc;
        }
}
