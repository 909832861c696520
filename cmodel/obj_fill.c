/*
 * obj_fill.c - the bytes of a chunk (objfile.h): DATA as stored, FILL computed
 * element by element (docs/object-format.md's recipe; AVX-512 where the host
 * has it, the same bits).
 */
#include "obj_impl.h"

#include "config.h"
#include "fp.h"
#include "isa.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ---- random fills ------------------------------------------------------ */

/* The finaliser of Steele, Lea and Flood's SplitMix64. */
static uint64_t splitmix64_mix(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* The fp32 value of element i of a random fill with range [lo, lo + span]
 * (span = hi - lo, as doubles); the recipe is docs/object-format.md's.
 * Each step is its own statement so no compiler fuses the multiply and
 * the add. */
static inline uint32_t fill_value(uint64_t seed, uint64_t i, double lo, double span)
{
    uint64_t r = splitmix64_mix(seed + i * 0x9E3779B97F4A7C15ull);
    double u = (double)(r >> 40) / 16777216.0;          /* [0, 1), 24 bits */
    double scaled = span * u;
    double value = lo + scaled;
    return bits_of_f32((float)value);
}

uint8_t tpu_fill_random_i8(uint64_t seed, uint64_t i, uint32_t lo_bits, uint32_t hi_bits)
{
    int64_t lo = (int64_t)f32_of_bits(lo_bits), hi = (int64_t)f32_of_bits(hi_bits);
    uint64_t r = splitmix64_mix(seed + i * 0x9E3779B97F4A7C15ull);
    int64_t v = lo + (int64_t)(((r >> 40) * (uint64_t)(hi - lo)) >> 24);
    return (uint8_t)(int8_t)v;
}

/* Element i of a random fill: the definition. */
uint32_t tpu_fill_random_f32(uint64_t seed, uint64_t i, uint32_t lo_bits, uint32_t hi_bits,
                             int as_bf16)
{
    double lo = f32_of_bits(lo_bits);
    double hi = f32_of_bits(hi_bits);
    uint32_t bits = fill_value(seed, i, lo, hi - lo);
    if (as_bf16)
        bits = (uint32_t)tpu_bf16_from_f32(bits) << 16;
    return bits;
}

/* tpu_bf16_from_f32 (fp.c) for the values a fill makes, inline: zeros and
 * subnormals become the signed zero, normals round to nearest even on the
 * top 16 bits (infinity and NaN, which a fill of finite lo and hi cannot
 * make, go to fp.c).  test_chunk_read_random_ranges compares the two. */
static inline uint16_t fill_bf16(uint32_t f)
{
    uint32_t e = f & 0x7f800000u;
    if (e == 0)
        return (uint16_t)((f >> 16) & 0x8000u);
    if (e == 0x7f800000u)
        return tpu_bf16_from_f32(f);
    /* + 0x7fff carries into the top 16 bits iff the low 16 are above half,
     * + their lowest bit makes a tie carry iff that bit is 1; a carry out
     * of the fraction bumps the exponent.  No branch: random data would
     * mispredict half of them. */
    return (uint16_t)((f + 0x7fffu + ((f >> 16) & 1u)) >> 16);
}

#if defined(__x86_64__) && (defined(__clang__) || __GNUC__ >= 8)
#define FILL_AVX512 1
#include <immintrin.h>

/* The same 16 elements at a time with AVX-512 (DQ: 64-bit multiplies and
 * u64 -> double): the same integer steps, the same IEEE double multiply
 * and add (separate instructions: no FMA) and the same conversion to fp32
 * under the same MXCSR as (float)value.  A group holding an infinity or a
 * NaN (which finite lo and hi cannot make) is left to the scalar loop.
 * Returns how many elements it wrote (a multiple of 16). */
/* 8 elements: z = seed + i * golden for each lane -> their fp32 values. */
__attribute__((target("avx512f,avx512dq"), always_inline))
static inline __m256 fill8_avx512(__m512i z, __m512d vlo, __m512d vspan)
{
    const __m512i m1 = _mm512_set1_epi64((long long)0xBF58476D1CE4E5B9ull);
    const __m512i m2 = _mm512_set1_epi64((long long)0x94D049BB133111EBull);
    const __m512d inv = _mm512_set1_pd(1.0 / 16777216.0);     /* exact: / 2^24 */
    z = _mm512_mullo_epi64(_mm512_xor_si512(z, _mm512_srli_epi64(z, 30)), m1);
    z = _mm512_mullo_epi64(_mm512_xor_si512(z, _mm512_srli_epi64(z, 27)), m2);
    z = _mm512_xor_si512(z, _mm512_srli_epi64(z, 31));
    __m512d u = _mm512_mul_pd(_mm512_cvtepu64_pd(_mm512_srli_epi64(z, 40)), inv);
    __m512d scaled = _mm512_mul_pd(vspan, u);
    __m512d value = _mm512_add_pd(vlo, scaled);
    return _mm512_cvtpd_ps(value);
}

__attribute__((target("avx512f,avx512dq"), noinline))
static size_t fill_elements_avx512(uint64_t seed, int bf16, uint64_t first, size_t count,
                                   uint8_t *dst, double lo, double span)
{
    const __m512i gold = _mm512_set1_epi64((long long)0x9E3779B97F4A7C15ull);
    const __m512i step = _mm512_set1_epi64((long long)(16 * 0x9E3779B97F4A7C15ull));
    const __m512d vlo = _mm512_set1_pd(lo), vspan = _mm512_set1_pd(span);
    const __m512i expo = _mm512_set1_epi32(0x7f800000), sign16 = _mm512_set1_epi32(0x8000);
    const __m512i rnd = _mm512_set1_epi32(0x7fff), one = _mm512_set1_epi32(1);
    __m512i iota = _mm512_setr_epi64(0, 1, 2, 3, 4, 5, 6, 7);
    __m512i z0 = _mm512_add_epi64(_mm512_set1_epi64((long long)(seed + first * 0x9E3779B97F4A7C15ull)),
                                  _mm512_mullo_epi64(iota, gold));
    __m512i z1 = _mm512_add_epi64(z0, _mm512_slli_epi64(gold, 3));     /* + 8 * gold */
    size_t k = 0;
    for (; k + 16 <= count; k += 16) {
        __m512 f = _mm512_insertf32x8(_mm512_castps256_ps512(fill8_avx512(z0, vlo, vspan)),
                                      fill8_avx512(z1, vlo, vspan), 1);
        z0 = _mm512_add_epi64(z0, step);
        z1 = _mm512_add_epi64(z1, step);
        __m512i b = _mm512_castps_si512(f);
        __m512i e = _mm512_and_si512(b, expo);
        if (_mm512_cmpeq_epi32_mask(e, expo))
            break;                                     /* inf or NaN: the scalar loop */
        if (bf16) {
            /* round to nearest even on the top 16 bits; exponent field 0:
             * the signed zero (fill_bf16) */
            __m512i r = _mm512_srli_epi32(_mm512_add_epi32(_mm512_add_epi32(b, rnd),
                                          _mm512_and_si512(_mm512_srli_epi32(b, 16), one)), 16);
            r = _mm512_mask_and_epi32(r, _mm512_testn_epi32_mask(e, e),
                                      _mm512_srli_epi32(b, 16), sign16);
            _mm256_storeu_si256((__m256i *)(void *)(dst + 2 * k), _mm512_cvtepi32_epi16(r));
        } else {
            _mm512_storeu_si512((void *)(dst + 4 * k), b);   /* x86 is little-endian */
        }
    }
    return k;
}
#endif

/* Whole elements first .. first + count - 1 of a random fill into dst. */
static void fill_elements(const tpu_obj_chunk *c, int bf16, uint64_t first, size_t count,
                          uint8_t *dst)
{
    double lo = f32_of_bits(c->lo_bits), hi = f32_of_bits(c->hi_bits), span = hi - lo;
#ifdef FILL_AVX512
    if (count >= 16 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq")) {
        size_t done = fill_elements_avx512(c->seed, bf16, first, count, dst, lo, span);
        first += done;
        count -= done;
        dst += done * (bf16 ? 2 : 4);
    }
#endif
    if (bf16)
        for (size_t k = 0; k < count; k++)
            wr16(dst + 2 * k, fill_bf16(fill_value(c->seed, first + k, lo, span)));
    else
        for (size_t k = 0; k < count; k++)
            wr32(dst + 4 * k, fill_value(c->seed, first + k, lo, span));
}

/* Copy bytes [off, off+n) of a chunk.  Random fills are generated element
 * by element, so any window of a huge fill costs only its own size.  Bytes
 * past the end of the chunk read as zero. */
void tpu_obj_chunk_read(const tpu_obj_chunk *c, uint64_t off, uint8_t *dst, size_t n)
{
    if (n == 0)
        return;
    if (off >= c->size) {
        memset(dst, 0, n);
        return;
    }
    if (n > c->size - off) {
        size_t avail = (size_t)(c->size - off);
        memset(dst + avail, 0, n - avail);
        n = avail;
    }
    if (c->rec == TPU_REC_DATA) {
        memcpy(dst, c->data + off, n);
        return;
    }
    if (c->fill == TPU_FILL_RANDOM_I8) {
        for (size_t k = 0; k < n; k++)
            dst[k] = tpu_fill_random_i8(c->seed, off + k, c->lo_bits, c->hi_bits);
        return;
    }
    if (c->fill != TPU_FILL_RANDOM_BF16 && c->fill != TPU_FILL_RANDOM_F32) {
        memset(dst, 0, n);
        return;
    }
    int bf16 = c->fill == TPU_FILL_RANDOM_BF16;
    unsigned esize = bf16 ? 2 : 4;
    uint64_t i = off / esize;
    unsigned skip = (unsigned)(off % esize);
    if (skip == 0 && n >= esize) {           /* whole elements: the fast loop */
        size_t count = n / esize;
        fill_elements(c, bf16, i, count, dst);
        dst += count * esize;
        n -= count * esize;
        i += count;
    }
    while (n > 0) {                          /* a part of an element at either end */
        uint32_t bits = tpu_fill_random_f32(c->seed, i, c->lo_bits, c->hi_bits, bf16);
        uint8_t elem[4];
        wr32(elem, bf16 ? bits >> 16 : bits);
        size_t take = esize - skip;
        if (take > n)
            take = n;
        memcpy(dst, elem + skip, take);
        dst += take;
        n -= take;
        skip = 0;
        i++;
    }
}
