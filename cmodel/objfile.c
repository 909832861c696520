/*
 * objfile.c - build, serialise, parse and read tpu object files.
 *
 * The byte layout is specified in docs/object-format.md; this file is its
 * only implementation.  The parser trusts nothing: every length, offset,
 * pad byte and enum is checked before it is used, and every allocation is
 * bounded by a small multiple of the input size (it is fuzzed).
 */
#include "objfile.h"

#include "config.h"
#include "fp.h"
#include "isa.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define REC_HDR        8    /* u32 type, u32 payload length */
#define CONFIG_SIZE    16
#define DATA_HDR       16   /* u8 space, u8 pad[7], u64 addr */
#define FILL_SIZE      40
#define SYMBOL_HDR     16   /* u8 space, u8 pad[3], u32 name length, u64 value */
#define EXPECT_HDR     16   /* u32 op, i32 core, u32 nops, u32 pad */
#define EXPECT_OP_SIZE 16   /* u8 space, u8 pad[7], u64 value */
#define ARRAY_HDR      16   /* u8 type, u8 layout, u8 ndim, u8 pad, u32 name length, u64 pitch */


/* ---- little-endian helpers ------------------------------------------- */

static uint16_t rd16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }
static uint32_t rd32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static uint64_t rd64(const uint8_t *p) { return rd32(p) | (uint64_t)rd32(p + 4) << 32; }
static void wr16(uint8_t *p, uint16_t v) { p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); }
static void wr32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}
static void wr64(uint8_t *p, uint64_t v)
{
    wr32(p, (uint32_t)v);
    wr32(p + 4, (uint32_t)(v >> 32));
}
static uint64_t pad8(uint64_t n) { return (n + 7) & ~(uint64_t)7; }

static float f32_of_bits(uint32_t b)
{
    float f;
    memcpy(&f, &b, sizeof f);
    return f;
}
static uint32_t bits_of_f32(float f)
{
    uint32_t b;
    memcpy(&b, &f, sizeof b);
    return b;
}

/* ---- CRC-32 (zlib/IEEE 802.3, reflected polynomial 0xEDB88320) -------- */

uint32_t tpu_crc32(const uint8_t *p, size_t n)
{
    uint32_t table[256];
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++)
            c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
        table[i] = c;
    }
    uint32_t crc = 0xFFFFFFFFu;
    for (size_t i = 0; i < n; i++)
        crc = table[(crc ^ p[i]) & 0xff] ^ (crc >> 8);
    return crc ^ 0xFFFFFFFFu;
}

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

const char *tpu_expect_op_name(unsigned op)
{
    static const char *names[TPU_EXPECT_OP_COUNT] = {
        [TPU_EXPECT_MATMUL] = "matmul", [TPU_EXPECT_MATMUL_I8] = "matmul_i8",
        [TPU_EXPECT_MATMUL_W8] = "matmul_w8", [TPU_EXPECT_MATMUL_W8S] = "matmul_w8s",
        [TPU_EXPECT_ADD] = "add", [TPU_EXPECT_SUB] = "sub",
        [TPU_EXPECT_MUL] = "mul",       [TPU_EXPECT_MAX] = "max", [TPU_EXPECT_MIN] = "min",
        [TPU_EXPECT_RELU] = "relu",     [TPU_EXPECT_COPY] = "copy", [TPU_EXPECT_F32] = "f32",
        [TPU_EXPECT_SUM] = "sum",       [TPU_EXPECT_ADD_RELU] = "add_relu",
        [TPU_EXPECT_MATMUL_EPI] = "matmul_epi", [TPU_EXPECT_CONV2D] = "conv2d",
        [TPU_EXPECT_POOL] = "pool",
        [TPU_EXPECT_SOFTMAX] = "softmax",
        [TPU_EXPECT_SOFTMAX_S] = "softmax_s", [TPU_EXPECT_LAYERNORM] = "layernorm",
        [TPU_EXPECT_RMSNORM] = "rmsnorm", [TPU_EXPECT_GELU] = "gelu", [TPU_EXPECT_SILU] = "silu",
        [TPU_EXPECT_RESIDUAL] = "residual",
    };
    return op < TPU_EXPECT_OP_COUNT ? names[op] : NULL;
}

/* Operand count of an expect op (F32: the minimum; up to the maximum) and
 * how many leading operands are addresses (they carry a memory space). */
static void expect_shape(unsigned op, unsigned *min_ops, unsigned *max_ops, unsigned *naddr)
{
    switch (op) {
    case TPU_EXPECT_MATMUL: case TPU_EXPECT_MATMUL_I8: case TPU_EXPECT_MATMUL_W8:
                            *min_ops = *max_ops = 6; *naddr = 3; break;
    case TPU_EXPECT_MATMUL_W8S: *min_ops = *max_ops = 7; *naddr = 4; break;
    case TPU_EXPECT_ADD: case TPU_EXPECT_SUB: case TPU_EXPECT_MUL:
    case TPU_EXPECT_MAX: case TPU_EXPECT_MIN: case TPU_EXPECT_ADD_RELU:
                            *min_ops = *max_ops = 4; *naddr = 3; break;
    case TPU_EXPECT_RELU:   *min_ops = *max_ops = 3; *naddr = 2; break;
    case TPU_EXPECT_COPY:   *min_ops = *max_ops = 3; *naddr = 2; break;
    case TPU_EXPECT_F32:    *min_ops = 2; *max_ops = TPU_OBJ_MAX_EXPECT_OPS; *naddr = 1; break;
    case TPU_EXPECT_SUM:    *min_ops = *max_ops = 5; *naddr = 2; break;
    case TPU_EXPECT_MATMUL_EPI: *min_ops = *max_ops = 8; *naddr = 4; break;
    case TPU_EXPECT_CONV2D: *min_ops = *max_ops = 15; *naddr = 4; break;
    case TPU_EXPECT_POOL:   *min_ops = *max_ops = 11; *naddr = 2; break;
    case TPU_EXPECT_SOFTMAX: *min_ops = *max_ops = 4; *naddr = 2; break;
    case TPU_EXPECT_SOFTMAX_S: *min_ops = *max_ops = 6; *naddr = 2; break;
    case TPU_EXPECT_LAYERNORM: *min_ops = *max_ops = 8; *naddr = 4; break;
    case TPU_EXPECT_RMSNORM: *min_ops = *max_ops = 7; *naddr = 3; break;
    case TPU_EXPECT_GELU: case TPU_EXPECT_SILU: *min_ops = *max_ops = 4; *naddr = 2; break;
    case TPU_EXPECT_RESIDUAL: *min_ops = *max_ops = 5; *naddr = 3; break;
    default:                *min_ops = *max_ops = *naddr = 0; break;
    }
}

/* ---- building ---------------------------------------------------------- */

/* Arrays grow through capacities 16, 32, 64, ...: room is made when the
 * count is 0 or a power of two >= 16, so no capacity field is needed.
 * cap_for() gives the capacity an array of n elements has. */
static size_t cap_for(size_t n)
{
    size_t c = 16;
    if (n == 0)
        return 0;
    while (c < n)
        c *= 2;
    return c;
}

static int make_room(void **arr, size_t n, size_t elem)
{
    if (n != 0 && (n < 16 || (n & (n - 1)) != 0))
        return 0;
    size_t cap = n == 0 ? 16 : 2 * n;
    if (cap > SIZE_MAX / elem)
        return -1;
    void *p = realloc(*arr, cap * elem);
    if (!p)
        return -1;
    *arr = p;
    return 0;
}

/* Allocate n bytes owned by the object (freed by tpu_obj_free). */
static uint8_t *own_block(tpu_object *o, size_t n)
{
    if (make_room((void **)&o->blocks, o->nblocks, sizeof *o->blocks) != 0)
        return NULL;
    uint8_t *b = malloc(n ? n : 1);
    if (b)
        o->blocks[o->nblocks++] = b;
    return b;
}

void tpu_obj_init(tpu_object *o) { memset(o, 0, sizeof *o); }

void tpu_obj_free(tpu_object *o)
{
    for (size_t i = 0; i < o->nblocks; i++)
        free(o->blocks[i]);
    free(o->blocks);
    free(o->text);
    free(o->chunks);
    free(o->syms);
    free(o->expects);
    free(o->arrays);
    tpu_obj_init(o);
}

int tpu_obj_add_text(tpu_object *o, uint64_t word)
{
    if (make_room((void **)&o->text, o->ntext, sizeof *o->text) != 0)
        return -1;
    o->text[o->ntext++] = word;
    return 0;
}

static tpu_obj_chunk *new_chunk(tpu_object *o)
{
    if (make_room((void **)&o->chunks, o->nchunks, sizeof *o->chunks) != 0)
        return NULL;
    tpu_obj_chunk *c = &o->chunks[o->nchunks++];
    memset(c, 0, sizeof *c);
    return c;
}

/* An empty chunk is not recorded (the format has none): returns 0. */
int tpu_obj_add_data(tpu_object *o, uint8_t space, uint64_t addr, const uint8_t *bytes, uint64_t n)
{
    if (n == 0)
        return 0;
    if (n > SIZE_MAX)
        return -1;
    uint8_t *copy = own_block(o, (size_t)n);
    if (!copy)
        return -1;
    memcpy(copy, bytes, (size_t)n);
    tpu_obj_chunk *c = new_chunk(o);
    if (!c)
        return -1;
    c->rec = TPU_REC_DATA;
    c->space = space;
    c->addr = addr;
    c->size = n;
    c->data = copy;
    return 0;
}

int tpu_obj_add_fill(tpu_object *o, uint8_t space, uint64_t addr, uint8_t kind, uint64_t size,
                     uint64_t seed, uint32_t lo_bits, uint32_t hi_bits)
{
    if (size == 0)
        return 0;
    tpu_obj_chunk *c = new_chunk(o);
    if (!c)
        return -1;
    c->rec = TPU_REC_FILL;
    c->space = space;
    c->fill = kind;
    c->addr = addr;
    c->size = size;
    c->seed = seed;
    c->lo_bits = lo_bits;
    c->hi_bits = hi_bits;
    return 0;
}

int tpu_obj_add_symbol(tpu_object *o, uint8_t space, uint64_t value, const char *name)
{
    size_t len = strlen(name);
    char *copy = (char *)own_block(o, len + 1);
    if (!copy)
        return -1;
    memcpy(copy, name, len + 1);
    if (make_room((void **)&o->syms, o->nsyms, sizeof *o->syms) != 0)
        return -1;
    o->syms[o->nsyms++] = (tpu_obj_symbol){ .space = space, .value = value, .name = copy };
    return 0;
}

/* Fails (-1) when out of memory or past TPU_OBJ_MAX_EXPECTS records. */
int tpu_obj_add_expect(tpu_object *o, const tpu_obj_expect *e)
{
    if (o->nexpects >= TPU_OBJ_MAX_EXPECTS)
        return -1;
    if (make_room((void **)&o->expects, o->nexpects, sizeof *o->expects) != 0)
        return -1;
    o->expects[o->nexpects++] = *e;
    return 0;
}

/* ---- arrays --------------------------------------------------------------- */

const char *tpu_array_type_name(unsigned type)
{
    static const char *const names[] = { NULL, "bf16", "f32", "i8", "i32" };
    return type < sizeof names / sizeof names[0] ? names[type] : NULL;
}

unsigned tpu_array_esize(unsigned type)
{
    return type == TPU_ARRAY_BF16 ? 2 : type == TPU_ARRAY_I8 ? 1 : 4;
}

static uint64_t last_dim(const tpu_obj_array *a) { return a->ndim ? a->dims[a->ndim - 1] : 1; }

/* a * b, or 0 when it passes 2^64 (the callers' products are never 0 otherwise). */
static uint64_t mul_or_0(uint64_t a, uint64_t b)
{
    return a && b > UINT64_MAX / a ? 0 : a * b;
}

uint64_t tpu_array_row_bytes(const tpu_obj_array *a)
{
    if (a->layout == TPU_ARRAY_KPAIRS)
        return mul_or_0(2, last_dim(a));
    return mul_or_0(last_dim(a), tpu_array_esize(a->type));
}

uint64_t tpu_array_count(const tpu_obj_array *a)
{
    uint64_t n = 1;
    for (unsigned d = 0; d < a->ndim && n; d++)
        n = mul_or_0(n, a->dims[d]);
    return n;
}

uint64_t tpu_array_rows(const tpu_obj_array *a)
{
    if (a->layout == TPU_ARRAY_KPAIRS)
        return a->ndim == 2 ? a->dims[0] / 2 + a->dims[0] % 2 : 0;
    uint64_t n = 1;
    for (unsigned d = 0; d + 1 < a->ndim && n; d++)
        n = mul_or_0(n, a->dims[d]);
    return n;
}

uint64_t tpu_array_extent(const tpu_obj_array *a)
{
    uint64_t rows = tpu_array_rows(a), row = tpu_array_row_bytes(a);
    if (!rows || !row || !tpu_array_count(a))
        return 0;
    uint64_t before = mul_or_0(rows - 1, a->pitch);
    if (rows > 1 && !before)
        return 0;
    return before > UINT64_MAX - row ? 0 : before + row;
}

uint64_t tpu_array_offset(const tpu_obj_array *a, uint64_t i)
{
    uint64_t n = last_dim(a);
    if (a->layout == TPU_ARRAY_KPAIRS)
        return (i / n / 2) * a->pitch + 2 * (i % n) + (i / n) % 2;
    return (i / n) * a->pitch + (i % n) * tpu_array_esize(a->type);
}

int tpu_obj_add_array(tpu_object *o, const tpu_obj_array *a)
{
    size_t len = strlen(a->name);
    char *copy = (char *)own_block(o, len + 1);
    if (!copy)
        return -1;
    memcpy(copy, a->name, len + 1);
    if (make_room((void **)&o->arrays, o->narrays, sizeof *o->arrays) != 0)
        return -1;
    o->arrays[o->narrays] = *a;
    o->arrays[o->narrays++].name = copy;
    return 0;
}

const tpu_obj_array *tpu_obj_find_array(const tpu_object *o, const char *name)
{
    for (size_t i = 0; i < o->narrays; i++)
        if (strcmp(o->arrays[i].name, name) == 0)
            return &o->arrays[i];
    return NULL;
}

static int sym_cmp(const tpu_obj_symbol *a, const tpu_obj_symbol *b)
{
    if (a->space != b->space)
        return a->space < b->space ? -1 : 1;
    if (a->value != b->value)
        return a->value < b->value ? -1 : 1;
    return strcmp(a->name, b->name);
}

static int sym_qsort_cmp(const void *a, const void *b) { return sym_cmp(a, b); }

static int sym_ptr_cmp(const void *a, const void *b)
{
    return sym_cmp(*(const tpu_obj_symbol *const *)a, *(const tpu_obj_symbol *const *)b);
}

void tpu_obj_sort_symbols(tpu_object *o)
{
    if (o->nsyms > 1)
        qsort(o->syms, o->nsyms, sizeof *o->syms, sym_qsort_cmp);
}

/* ---- the machine shape ---------------------------------------------------- */

int tpu_obj_config_matches(const tpu_obj_config *w, const tpu_config *c)
{
    return (!w->mxu_n || w->mxu_n == c->mxu_n) && (!w->num_mxu || w->num_mxu == c->num_mxu) &&
           (!w->vpu_sublanes || w->vpu_sublanes == c->vpu_sublanes) &&
           (!w->vpu_lanes || w->vpu_lanes == c->vpu_lanes);
}

int tpu_obj_config_preset(const tpu_obj_config *shape, int from, tpu_config *out)
{
    char err[256];
    for (int k = from < 0 ? 0 : from; tpu_config_presets[k].name; k++) {
        tpu_config c;
        if (tpu_config_load(&c, tpu_config_presets[k].name, err, sizeof err) == 0 &&
            tpu_obj_config_matches(shape, &c)) {
            if (out)
                *out = c;
            return k;
        }
    }
    return -1;
}

/* ---- serialising --------------------------------------------------------- */

static int config_present(const tpu_obj_config *c)
{
    return c->mxu_n || c->num_mxu || c->vpu_sublanes || c->vpu_lanes;
}

/* Start a record at p: header plus payload space; returns the payload. */
static uint8_t *put_record(uint8_t **p, uint32_t type, uint64_t payload)
{
    uint8_t *r = *p;
    wr32(r, type);
    wr32(r + 4, (uint32_t)payload);
    *p = r + REC_HDR + pad8(payload);
    return r + REC_HDR;
}

/* Writes the canonical record order: CONFIG, TEXT, chunks as added,
 * symbols sorted (without touching the object), expects as added, arrays
 * as added. */
int tpu_obj_serialize(const tpu_object *o, uint8_t **buf, size_t *len)
{
    uint64_t total = TPU_OBJ_HEADER_SIZE, nrec = 0;
    const uint64_t limit = TPU_OBJ_MAX_SIZE;

    *buf = NULL;
    *len = 0;
    if (config_present(&o->config))
        total += REC_HDR + CONFIG_SIZE, nrec++;
    if (o->ntext > 0) {
        if (o->ntext > limit / 8)
            return -1;
        total += REC_HDR + 8 * (uint64_t)o->ntext, nrec++;
    }
    for (size_t i = 0; i < o->nchunks && total <= limit; i++) {
        const tpu_obj_chunk *c = &o->chunks[i];
        if (c->rec == TPU_REC_DATA && c->size > limit)
            return -1;
        total += REC_HDR + (c->rec == TPU_REC_DATA ? pad8(DATA_HDR + c->size) : FILL_SIZE), nrec++;
    }
    for (size_t i = 0; i < o->nsyms && total <= limit; i++)
        total += REC_HDR + pad8(SYMBOL_HDR + strlen(o->syms[i].name)), nrec++;
    for (size_t i = 0; i < o->nexpects && total <= limit; i++) {
        if (o->expects[i].nops > TPU_OBJ_MAX_EXPECT_OPS)
            return -1;
        total += REC_HDR + EXPECT_HDR + EXPECT_OP_SIZE * (uint64_t)o->expects[i].nops, nrec++;
    }
    for (size_t i = 0; i < o->narrays && total <= limit; i++) {
        if (o->arrays[i].ndim > TPU_OBJ_MAX_ARRAY_DIMS)
            return -1;
        total += REC_HDR + pad8(ARRAY_HDR + 8 * (uint64_t)o->arrays[i].ndim
                                + strlen(o->arrays[i].name)), nrec++;
    }
    if (total > limit)
        return -1;

    const tpu_obj_symbol **sorted = NULL;
    if (o->nsyms > 0) {
        sorted = malloc(o->nsyms * sizeof *sorted);
        if (!sorted)
            return -1;
        for (size_t i = 0; i < o->nsyms; i++)
            sorted[i] = &o->syms[i];
        qsort(sorted, o->nsyms, sizeof *sorted, sym_ptr_cmp);
    }
    uint8_t *out = calloc(1, (size_t)total);
    if (!out) {
        free(sorted);
        return -1;
    }

    uint8_t *p = out + TPU_OBJ_HEADER_SIZE, *q;
    if (config_present(&o->config)) {
        q = put_record(&p, TPU_REC_CONFIG, CONFIG_SIZE);
        wr32(q, o->config.mxu_n);
        wr32(q + 4, o->config.num_mxu);
        wr32(q + 8, o->config.vpu_sublanes);
        wr32(q + 12, o->config.vpu_lanes);
    }
    if (o->ntext > 0) {
        q = put_record(&p, TPU_REC_TEXT, 8 * (uint64_t)o->ntext);
        for (size_t i = 0; i < o->ntext; i++)
            wr64(q + 8 * i, o->text[i]);
    }
    for (size_t i = 0; i < o->nchunks; i++) {
        const tpu_obj_chunk *c = &o->chunks[i];
        if (c->rec == TPU_REC_DATA) {
            q = put_record(&p, TPU_REC_DATA, DATA_HDR + c->size);
            q[0] = c->space;
            wr64(q + 8, c->addr);
            if (c->size)
                memcpy(q + DATA_HDR, c->data, (size_t)c->size);
        } else {
            q = put_record(&p, TPU_REC_FILL, FILL_SIZE);
            q[0] = c->space;
            q[1] = c->fill;
            wr64(q + 8, c->addr);
            wr64(q + 16, c->size);
            wr64(q + 24, c->seed);
            wr32(q + 32, c->lo_bits);
            wr32(q + 36, c->hi_bits);
        }
    }
    for (size_t i = 0; i < o->nsyms; i++) {
        const tpu_obj_symbol *s = sorted[i];
        size_t n = strlen(s->name);
        q = put_record(&p, TPU_REC_SYMBOL, SYMBOL_HDR + n);
        q[0] = s->space;
        wr32(q + 4, (uint32_t)n);
        wr64(q + 8, s->value);
        memcpy(q + SYMBOL_HDR, s->name, n);
    }
    for (size_t i = 0; i < o->nexpects; i++) {
        const tpu_obj_expect *e = &o->expects[i];
        q = put_record(&p, TPU_REC_EXPECT, EXPECT_HDR + EXPECT_OP_SIZE * (uint64_t)e->nops);
        wr32(q, e->op);
        wr32(q + 4, (uint32_t)e->core);
        wr32(q + 8, e->nops);
        for (uint32_t k = 0; k < e->nops; k++) {
            q[EXPECT_HDR + EXPECT_OP_SIZE * k] = e->ops[k].space;
            wr64(q + EXPECT_HDR + EXPECT_OP_SIZE * k + 8, e->ops[k].value);
        }
    }
    for (size_t i = 0; i < o->narrays; i++) {
        const tpu_obj_array *a = &o->arrays[i];
        size_t n = strlen(a->name);
        q = put_record(&p, TPU_REC_ARRAY, ARRAY_HDR + 8 * (uint64_t)a->ndim + n);
        q[0] = a->type;
        q[1] = a->layout;
        q[2] = a->ndim;
        wr32(q + 4, (uint32_t)n);
        wr64(q + 8, a->pitch);
        for (unsigned d = 0; d < a->ndim; d++)
            wr64(q + ARRAY_HDR + 8 * d, a->dims[d]);
        memcpy(q + ARRAY_HDR + 8 * a->ndim, a->name, n);
    }
    free(sorted);

    memcpy(out, TPU_OBJ_MAGIC, 8);
    wr16(out + 8, TPU_OBJ_VERSION);
    wr16(out + 10, TPU_OBJ_HEADER_SIZE);
    wr32(out + 12, (uint32_t)nrec);
    wr32(out + 16, (uint32_t)total);
    wr32(out + 20, tpu_crc32(out + TPU_OBJ_HEADER_SIZE, (size_t)total - TPU_OBJ_HEADER_SIZE));
    *buf = out;
    *len = (size_t)total;
    return 0;
}

int tpu_obj_write(const tpu_object *o, const char *path, char *err, size_t errlen)
{
    uint8_t *buf;
    size_t len;
    if (tpu_obj_serialize(o, &buf, &len) != 0) {
        snprintf(err, errlen, "%s: cannot build the object (out of memory, or larger than %u bytes)",
                 path, (unsigned)TPU_OBJ_MAX_SIZE);
        return -1;
    }
    FILE *f = fopen(path, "wb");
    if (!f) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        free(buf);
        return -1;
    }
    size_t put = fwrite(buf, 1, len, f);
    int write_errno = errno;
    free(buf);
    if (put != len) {
        snprintf(err, errlen, "%s: %s", path, strerror(write_errno));
        fclose(f);
        return -1;
    }
    if (fclose(f) != 0) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    return 0;
}

/* ---- parsing --------------------------------------------------------------- */

typedef struct parser {
    const uint8_t *buf;
    size_t size;            /* file size from the header (== buffer length) */
    char *err;
    size_t errlen;
    unsigned rec;           /* index of the record being checked */
    size_t rec_off;         /* its offset */
} parser;

static const char *rec_name(uint32_t type)
{
    static const char *names[] = { "?", "CONFIG", "TEXT", "DATA", "FILL", "SYMBOL", "EXPECT",
                                   "ARRAY" };
    return type < sizeof names / sizeof names[0] ? names[type] : "?";
}

/* Record kinds must appear in this order; DATA and FILL share a rank. */
static int rec_rank(uint32_t type)
{
    switch (type) {
    case TPU_REC_CONFIG: return 0;
    case TPU_REC_TEXT:   return 1;
    case TPU_REC_DATA:
    case TPU_REC_FILL:   return 2;
    case TPU_REC_SYMBOL: return 3;
    case TPU_REC_EXPECT: return 4;
    case TPU_REC_ARRAY:  return 5;
    default:             return -1;
    }
}

static int fail(parser *ps, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(ps->err, ps->errlen, fmt, ap);
    va_end(ap);
    return -1;
}

/* An error about the current record: "record 3 at offset 0x58: ...". */
static int rec_fail(parser *ps, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return fail(ps, "record %u at offset 0x%zx: %s", ps->rec, ps->rec_off, msg);
}

/* Every byte of [off, off+n) must be zero (pad fields). */
static int check_zero(parser *ps, size_t off, size_t n, const char *what)
{
    for (size_t i = 0; i < n; i++)
        if (ps->buf[off + i] != 0)
            return rec_fail(ps, "%s byte at offset 0x%zx is 0x%02x, not zero", what, off + i,
                            ps->buf[off + i]);
    return 0;
}

static int check_space(parser *ps, size_t off, int allow_imem)
{
    uint8_t s = ps->buf[off];
    if (s == TPU_SPACE_HBM || s == TPU_SPACE_VMEM || (allow_imem && s == TPU_SPACE_IMEM))
        return 0;
    return rec_fail(ps, "bad address space %u at offset 0x%zx (%s)", s, off,
                    allow_imem ? "1 imem, 2 hbm or 3 vmem" : "2 hbm or 3 vmem");
}

static const char *space_name(uint8_t s)
{
    return s == TPU_SPACE_HBM ? "hbm" : s == TPU_SPACE_VMEM ? "vmem" : s == TPU_SPACE_IMEM ? "imem" : "none";
}

static int is_finite_f32(uint32_t bits) { return (bits & 0x7f800000u) != 0x7f800000u; }

/* A symbol name must be an assembler identifier that is not reserved. */
static int check_name(parser *ps, size_t off, uint32_t n)
{
    const uint8_t *s = ps->buf + off;
    static const char *reserved[] = { "hbm", "vmem", "bits" };
    if (n == 0)
        return rec_fail(ps, "symbol name is empty");
    if (n > TPU_OBJ_MAX_NAME)
        return rec_fail(ps, "symbol name of %u bytes is longer than %u", n, TPU_OBJ_MAX_NAME);
    for (uint32_t i = 0; i < n; i++) {
        uint8_t ch = s[i];
        int ok = (ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') || ch == '_' ||
                 (i > 0 && ((ch >= '0' && ch <= '9') || ch == '.'));
        if (!ok)
            return rec_fail(ps, "symbol name has a bad character 0x%02x at offset 0x%zx "
                            "(names are [A-Za-z_][A-Za-z0-9_.]*)", ch, off + i);
    }
    int is_reserved = tpu_reg_parse(TPU_K_SREG, (const char *)s, n) >= 0 ||
                      tpu_reg_parse(TPU_K_VREG, (const char *)s, n) >= 0;
    for (size_t k = 0; k < sizeof reserved / sizeof reserved[0]; k++)
        if (strlen(reserved[k]) == n && memcmp(reserved[k], s, n) == 0)
            is_reserved = 1;
    if (is_reserved)
        return rec_fail(ps, "symbol name '%.*s' is a reserved word", (int)n, (const char *)s);
    return 0;
}

/* Pass 1: walk the record framing (bounds, known types, order, padding)
 * and count each kind, so that pass 2 can allocate exactly. */
static int scan_records(parser *ps, uint32_t count_in_header, size_t counts[8], size_t *name_bytes,
                        size_t *data_bytes)
{
    size_t off = TPU_OBJ_HEADER_SIZE;
    int last_rank = 0;
    uint32_t last_type = 0;
    unsigned n = 0;
    for (; off < ps->size; n++) {
        ps->rec = n;
        ps->rec_off = off;
        size_t left = ps->size - off;
        if (left < REC_HDR)
            return rec_fail(ps, "truncated: a record header needs 8 bytes, %zu left", left);
        uint32_t type = rd32(ps->buf + off), len = rd32(ps->buf + off + 4);
        if (pad8(len) > left - REC_HDR)
            return rec_fail(ps, "payload of %u bytes runs past the end of the file (%zu bytes left)",
                            len, left - REC_HDR);
        int rank = rec_rank(type);
        if (rank < 0)
            return rec_fail(ps, "unknown type %u", type);
        if (rank < last_rank)
            return rec_fail(ps, "%s record follows %s records (the order is CONFIG, TEXT, "
                            "DATA/FILL, SYMBOL, EXPECT, ARRAY)", rec_name(type), rec_name(last_type));
        if ((type == TPU_REC_CONFIG || type == TPU_REC_TEXT) && counts[type] > 0)
            return rec_fail(ps, "a second %s record (at most one is allowed)", rec_name(type));
        if (check_zero(ps, off + REC_HDR + len, (size_t)(pad8(len) - len), "padding") != 0)
            return -1;
        counts[type]++;
        if (type == TPU_REC_SYMBOL || type == TPU_REC_ARRAY)
            *name_bytes += len;
        if (type == TPU_REC_DATA)
            *data_bytes += len;
        if (type == TPU_REC_EXPECT && counts[type] > TPU_OBJ_MAX_EXPECTS)
            return rec_fail(ps, "too many EXPECT records (the limit is %u)", TPU_OBJ_MAX_EXPECTS);
        last_rank = rank;
        last_type = type;
        off += REC_HDR + (size_t)pad8(len);
    }
    if (n != count_in_header)
        return fail(ps, "record count mismatch: header says %u records, the file has %u",
                    count_in_header, n);
    return 0;
}

static int parse_config(parser *ps, const uint8_t *p, uint32_t len, tpu_object *o)
{
    if (len != CONFIG_SIZE)
        return rec_fail(ps, "CONFIG payload is %u bytes, expected %u", len, CONFIG_SIZE);
    o->config = (tpu_obj_config){ rd32(p), rd32(p + 4), rd32(p + 8), rd32(p + 12) };
    if (!config_present(&o->config))
        return rec_fail(ps, "CONFIG record has every field zero (such a record is left out)");
    if (o->config.num_mxu > TPU_MAX_MXUS)
        return rec_fail(ps, "CONFIG num_mxu is %u, the ISA has at most %u MXUs",
                        o->config.num_mxu, TPU_MAX_MXUS);
    return 0;
}

static int parse_text(parser *ps, const uint8_t *p, uint32_t len, tpu_object *o)
{
    if (len == 0 || len % 8 != 0)
        return rec_fail(ps, "TEXT payload of %u bytes is not a non-zero number of 8-byte words", len);
    o->ntext = len / 8;
    o->text = malloc(cap_for(o->ntext) * sizeof *o->text);
    if (!o->text)
        return rec_fail(ps, "out of memory");
    for (size_t i = 0; i < o->ntext; i++)
        o->text[i] = rd64(p + 8 * i);
    return 0;
}

/* Address range [addr, addr+size) must not wrap past 2^64. */
static int check_range(parser *ps, const char *what, uint64_t addr, uint64_t size)
{
    if (size > UINT64_MAX - addr)
        return rec_fail(ps, "%s at 0x%llx of %llu bytes runs past the end of the 64-bit address space",
                        what, (unsigned long long)addr, (unsigned long long)size);
    return 0;
}

static int parse_data(parser *ps, const uint8_t *p, uint32_t len, tpu_object *o, uint8_t **store)
{
    size_t off = (size_t)(p - ps->buf);
    if (len < DATA_HDR)
        return rec_fail(ps, "DATA payload of %u bytes is shorter than its %u-byte header", len, DATA_HDR);
    if (check_space(ps, off, 0) || check_zero(ps, off + 1, 7, "DATA pad"))
        return -1;
    uint64_t addr = rd64(p + 8), size = len - DATA_HDR;
    if (size == 0)
        return rec_fail(ps, "DATA record holds no bytes");
    if (check_range(ps, "DATA", addr, size))
        return -1;
    memcpy(*store, p + DATA_HDR, (size_t)size);
    o->chunks[o->nchunks++] = (tpu_obj_chunk){ .rec = TPU_REC_DATA, .space = p[0], .addr = addr,
                                               .size = size, .data = *store };
    *store += size;
    return 0;
}

static int parse_fill(parser *ps, const uint8_t *p, uint32_t len, tpu_object *o)
{
    size_t off = (size_t)(p - ps->buf);
    if (len != FILL_SIZE)
        return rec_fail(ps, "FILL payload is %u bytes, expected %u", len, FILL_SIZE);
    if (check_space(ps, off, 0) || check_zero(ps, off + 2, 6, "FILL pad"))
        return -1;
    tpu_obj_chunk c = { .rec = TPU_REC_FILL, .space = p[0], .fill = p[1], .addr = rd64(p + 8),
                        .size = rd64(p + 16), .seed = rd64(p + 24), .lo_bits = rd32(p + 32),
                        .hi_bits = rd32(p + 36) };
    if (c.fill > TPU_FILL_RANDOM_I8)
        return rec_fail(ps, "bad fill kind %u at offset 0x%zx (0 zero, 1 random bf16, 2 random f32, "
                        "3 random int8)", c.fill, off + 1);
    if (c.size == 0)
        return rec_fail(ps, "FILL of 0 bytes");
    if (check_range(ps, "FILL", c.addr, c.size))
        return -1;
    if (c.fill == TPU_FILL_ZERO) {
        if (c.seed || c.lo_bits || c.hi_bits)
            return rec_fail(ps, "zero FILL has a non-zero seed or range");
    } else if (c.fill == TPU_FILL_RANDOM_I8) {
        if (!is_finite_f32(c.lo_bits) || !is_finite_f32(c.hi_bits)
            || f32_of_bits(c.lo_bits) != (double)(int)f32_of_bits(c.lo_bits)
            || f32_of_bits(c.hi_bits) != (double)(int)f32_of_bits(c.hi_bits)
            || f32_of_bits(c.lo_bits) < -128 || f32_of_bits(c.hi_bits) > 128
            || f32_of_bits(c.lo_bits) >= f32_of_bits(c.hi_bits))
            return rec_fail(ps, "random int8 FILL range [0x%08x, 0x%08x) is not integers "
                            "-128 <= lo < hi <= 128", c.lo_bits, c.hi_bits);
    } else {
        unsigned esize = c.fill == TPU_FILL_RANDOM_BF16 ? 2 : 4;
        if (c.size % esize)
            return rec_fail(ps, "random %s FILL of %llu bytes is not a whole number of %u-byte elements",
                            esize == 2 ? "bf16" : "f32", (unsigned long long)c.size, esize);
        if (!is_finite_f32(c.lo_bits) || !is_finite_f32(c.hi_bits))
            return rec_fail(ps, "random FILL range [0x%08x, 0x%08x) is not finite", c.lo_bits,
                            c.hi_bits);
    }
    o->chunks[o->nchunks++] = c;
    return 0;
}

static int parse_symbol(parser *ps, const uint8_t *p, uint32_t len, tpu_object *o, char **store)
{
    size_t off = (size_t)(p - ps->buf);
    if (len < SYMBOL_HDR)
        return rec_fail(ps, "SYMBOL payload of %u bytes is shorter than its %u-byte header", len,
                        SYMBOL_HDR);
    if (check_space(ps, off, 1) || check_zero(ps, off + 1, 3, "SYMBOL pad"))
        return -1;
    uint32_t n = rd32(p + 4);
    if (n != len - SYMBOL_HDR)
        return rec_fail(ps, "SYMBOL name length %u does not match its payload of %u bytes", n, len);
    if (check_name(ps, off + SYMBOL_HDR, n))
        return -1;
    tpu_obj_symbol s = { .space = p[0], .value = rd64(p + 8), .name = *store };
    memcpy(*store, p + SYMBOL_HDR, n);
    (*store)[n] = 0;
    *store += n + 1;
    if (s.space == TPU_SPACE_IMEM && s.value > o->ntext)
        return rec_fail(ps, "text label '%s' = %llu is past the end of the text (%zu instructions)",
                        s.name, (unsigned long long)s.value, o->ntext);
    if (o->nsyms > 0 && sym_cmp(&o->syms[o->nsyms - 1], &s) >= 0)
        return rec_fail(ps, "symbol '%s' is out of order (symbols are sorted by space, value, name)",
                        s.name);
    o->syms[o->nsyms++] = s;
    return 0;
}

static int parse_expect(parser *ps, const uint8_t *p, uint32_t len, tpu_object *o)
{
    size_t off = (size_t)(p - ps->buf);
    if (len < EXPECT_HDR)
        return rec_fail(ps, "EXPECT payload of %u bytes is shorter than its %u-byte header", len,
                        EXPECT_HDR);
    tpu_obj_expect *e = &o->expects[o->nexpects];
    memset(e, 0, sizeof *e);
    e->op = rd32(p);
    e->core = (int32_t)rd32(p + 4);
    e->nops = rd32(p + 8);
    unsigned min_ops, max_ops, naddr;
    expect_shape(e->op, &min_ops, &max_ops, &naddr);
    if (min_ops == 0)
        return rec_fail(ps, "unknown expect op %u", e->op);
    if (e->core < -1)
        return rec_fail(ps, "expect core %d is negative (-1 means every core)", e->core);
    if (check_zero(ps, off + 12, 4, "EXPECT pad"))
        return -1;
    if (e->nops < min_ops || e->nops > max_ops) {
        if (min_ops == max_ops)
            return rec_fail(ps, "expect %s has %u operands, it takes %u", tpu_expect_op_name(e->op),
                            e->nops, min_ops);
        return rec_fail(ps, "expect %s has %u operands, it takes %u to %u", tpu_expect_op_name(e->op),
                        e->nops, min_ops, max_ops);
    }
    if (len != EXPECT_HDR + EXPECT_OP_SIZE * e->nops)
        return rec_fail(ps, "EXPECT payload is %u bytes, %u operands need %u", len, e->nops,
                        EXPECT_HDR + EXPECT_OP_SIZE * e->nops);
    for (uint32_t k = 0; k < e->nops; k++) {
        const uint8_t *q = p + EXPECT_HDR + EXPECT_OP_SIZE * k;
        size_t qoff = off + EXPECT_HDR + EXPECT_OP_SIZE * k;
        if (check_zero(ps, qoff + 1, 7, "EXPECT operand pad"))
            return -1;
        e->ops[k].space = q[0];
        e->ops[k].value = rd64(q + 8);
        if (k < naddr && q[0] != TPU_SPACE_HBM && q[0] != TPU_SPACE_VMEM)
            return rec_fail(ps, "expect %s operand %u must be an hbm or vmem address (space %u at "
                            "offset 0x%zx)", tpu_expect_op_name(e->op), k + 1, q[0], qoff);
        if (k >= naddr && q[0] != TPU_SPACE_NONE)
            return rec_fail(ps, "expect %s operand %u is a number, but has space %u at offset 0x%zx",
                            tpu_expect_op_name(e->op), k + 1, q[0], qoff);
        if (k >= naddr && e->op == TPU_EXPECT_F32 && e->ops[k].value > UINT32_MAX)
            return rec_fail(ps, "expect f32 value %u is 0x%llx, not a 32-bit pattern", k,
                            (unsigned long long)e->ops[k].value);
    }
    o->nexpects++;
    return 0;
}

static int parse_array(parser *ps, const uint8_t *p, uint32_t len, tpu_object *o, char **store)
{
    size_t off = (size_t)(p - ps->buf);
    if (len < ARRAY_HDR)
        return rec_fail(ps, "ARRAY payload of %u bytes is shorter than its %u-byte header", len,
                        ARRAY_HDR);
    tpu_obj_array a = { .type = p[0], .layout = p[1], .ndim = p[2], .pitch = rd64(p + 8) };
    uint32_t n = rd32(p + 4);
    if (!tpu_array_type_name(a.type))
        return rec_fail(ps, "bad array type %u at offset 0x%zx (1 bf16, 2 f32, 3 i8, 4 i32)",
                        a.type, off);
    if (a.layout > TPU_ARRAY_KPAIRS)
        return rec_fail(ps, "bad array layout %u at offset 0x%zx (0 rows, 1 K-pairs)", a.layout,
                        off + 1);
    if (a.ndim < 1 || a.ndim > TPU_OBJ_MAX_ARRAY_DIMS)
        return rec_fail(ps, "array of %u dimensions at offset 0x%zx (1 to %u)", a.ndim, off + 2,
                        TPU_OBJ_MAX_ARRAY_DIMS);
    if (check_zero(ps, off + 3, 1, "ARRAY pad"))
        return -1;
    if ((uint64_t)n + ARRAY_HDR + 8u * a.ndim != len)
        return rec_fail(ps, "ARRAY name length %u does not match its payload of %u bytes with "
                        "%u dimensions", n, len, a.ndim);
    if (check_name(ps, off + ARRAY_HDR + 8u * a.ndim, n))
        return -1;
    for (unsigned d = 0; d < a.ndim; d++) {
        a.dims[d] = rd64(p + ARRAY_HDR + 8 * d);
        if (a.dims[d] == 0)
            return rec_fail(ps, "array dimension %u is 0 (each is at least 1)", d);
    }
    a.name = *store;
    memcpy(*store, p + ARRAY_HDR + 8u * a.ndim, n);
    (*store)[n] = 0;
    *store += n + 1;
    if (a.layout == TPU_ARRAY_KPAIRS && (a.type != TPU_ARRAY_I8 || a.ndim != 2))
        return rec_fail(ps, "array '%s': the K-pair layout is for 2-D i8 arrays only", a.name);
    uint64_t count = tpu_array_count(&a);
    if (!count || count > UINT64_MAX / tpu_array_esize(a.type))
        return rec_fail(ps, "array '%s' has more elements than 64-bit sizes can count", a.name);
    if (a.pitch < tpu_array_row_bytes(&a))
        return rec_fail(ps, "array '%s': pitch %llu is less than a row's %llu bytes", a.name,
                        (unsigned long long)a.pitch, (unsigned long long)tpu_array_row_bytes(&a));
    if (!tpu_array_extent(&a))
        return rec_fail(ps, "array '%s' runs past the end of the 64-bit address space", a.name);
    o->arrays[o->narrays++] = a;
    return 0;
}

/* Chunks of one space must not overlap: sort by (space, addr) and compare
 * neighbours.  `recno` maps chunk index -> record index for the message. */
typedef struct chunk_ref { const tpu_obj_chunk *c; unsigned rec; size_t off; } chunk_ref;

static int chunk_ref_cmp(const void *a, const void *b)
{
    const tpu_obj_chunk *x = ((const chunk_ref *)a)->c, *y = ((const chunk_ref *)b)->c;
    if (x->space != y->space)
        return x->space < y->space ? -1 : 1;
    if (x->addr != y->addr)
        return x->addr < y->addr ? -1 : 1;
    unsigned rx = ((const chunk_ref *)a)->rec, ry = ((const chunk_ref *)b)->rec;
    return rx < ry ? -1 : rx > ry;
}

static int check_overlaps(parser *ps, chunk_ref *refs, size_t n)
{
    if (n < 2)
        return 0;
    qsort(refs, n, sizeof *refs, chunk_ref_cmp);
    for (size_t i = 1; i < n; i++) {
        const tpu_obj_chunk *a = refs[i - 1].c, *b = refs[i].c;
        if (a->space == b->space && b->addr - a->addr < a->size) {
            const chunk_ref *later = refs[i].rec > refs[i - 1].rec ? &refs[i] : &refs[i - 1];
            const chunk_ref *other = later == &refs[i] ? &refs[i - 1] : &refs[i];
            ps->rec = later->rec;
            ps->rec_off = later->off;
            return rec_fail(ps, "%s bytes 0x%llx..0x%llx overlap those of record %u (0x%llx..0x%llx)",
                            space_name(later->c->space), (unsigned long long)later->c->addr,
                            (unsigned long long)(later->c->addr + later->c->size - 1), other->rec,
                            (unsigned long long)other->c->addr,
                            (unsigned long long)(other->c->addr + other->c->size - 1));
        }
    }
    return 0;
}

typedef struct name_ref { const char *name; unsigned rec; size_t off; const tpu_obj_symbol *sym; } name_ref;

static int name_ref_cmp(const void *a, const void *b)
{
    const name_ref *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    return c ? c : (x->rec < y->rec ? -1 : x->rec > y->rec);
}

static int check_duplicates(parser *ps, name_ref *refs, size_t n)
{
    if (n < 2)
        return 0;
    qsort(refs, n, sizeof *refs, name_ref_cmp);
    for (size_t i = 1; i < n; i++)
        if (strcmp(refs[i - 1].name, refs[i].name) == 0) {
            ps->rec = refs[i].rec;
            ps->rec_off = refs[i].off;
            return rec_fail(ps, "duplicate symbol '%s' (also record %u)", refs[i].name, refs[i - 1].rec);
        }
    return 0;
}

/* Each array names a data label (syms: the symbols sorted by name), once,
 * and ends inside the 64-bit address space from it. */
static int check_arrays(parser *ps, const tpu_object *o, name_ref *arefs, const name_ref *syms,
                        size_t nsyms)
{
    for (size_t i = 0; i < o->narrays; i++) {
        const tpu_obj_array *a = &o->arrays[i];
        size_t lo = 0, hi = nsyms;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (strcmp(syms[mid].name, a->name) < 0)
                lo = mid + 1;
            else
                hi = mid;
        }
        ps->rec = arefs[i].rec;
        ps->rec_off = arefs[i].off;
        if (lo == nsyms || strcmp(syms[lo].name, a->name) != 0)
            return rec_fail(ps, "array '%s' names no symbol of the object", a->name);
        const tpu_obj_symbol *s = syms[lo].sym;
        if (s->space != TPU_SPACE_HBM && s->space != TPU_SPACE_VMEM)
            return rec_fail(ps, "array '%s' names a text label (an array is at an hbm or vmem "
                            "label)", a->name);
        if (tpu_array_extent(a) > UINT64_MAX - s->value)
            return rec_fail(ps, "array '%s' at %s 0x%llx runs past the end of the 64-bit "
                            "address space", a->name, space_name(s->space),
                            (unsigned long long)s->value);
    }
    if (o->narrays < 2)
        return 0;
    qsort(arefs, o->narrays, sizeof *arefs, name_ref_cmp);
    for (size_t i = 1; i < o->narrays; i++)
        if (strcmp(arefs[i - 1].name, arefs[i].name) == 0) {
            ps->rec = arefs[i].rec;
            ps->rec_off = arefs[i].off;
            return rec_fail(ps, "a second array '%s' (also record %u)", arefs[i].name,
                            arefs[i - 1].rec);
        }
    return 0;
}

/* Header checks, then the two passes.  On failure *o is left empty. */
static int parse_all(parser *ps, const uint8_t *buf, size_t len, tpu_object *o)
{
    static const uint8_t magic[8] = TPU_OBJ_MAGIC;
    size_t m = len < 8 ? len : 8;
    if (memcmp(buf, magic, m) != 0)
        return fail(ps, "bad magic (not a tpu object file)");
    if (len < TPU_OBJ_HEADER_SIZE)
        return fail(ps, "truncated: file has %zu bytes, the header alone needs %u", len,
                    TPU_OBJ_HEADER_SIZE);
    uint16_t version = rd16(buf + 8), hsize = rd16(buf + 10);
    uint32_t count = rd32(buf + 12), fsize = rd32(buf + 16), crc = rd32(buf + 20);
    if (version != TPU_OBJ_VERSION)
        return fail(ps, "unsupported version %u at offset 0x8 (this loader reads version %u)",
                    version, TPU_OBJ_VERSION);
    if (hsize != TPU_OBJ_HEADER_SIZE)
        return fail(ps, "bad header size %u at offset 0xa (expected %u)", hsize, TPU_OBJ_HEADER_SIZE);
    if (rd64(buf + 24) != 0)
        return fail(ps, "reserved header field at offset 0x18 is not zero");
    if (fsize > TPU_OBJ_MAX_SIZE)
        return fail(ps, "file too large: header says %u bytes, the limit is %u", fsize,
                    (unsigned)TPU_OBJ_MAX_SIZE);
    if (fsize < TPU_OBJ_HEADER_SIZE || fsize % 8 != 0)
        return fail(ps, "bad file size %u at offset 0x10 (a multiple of 8, at least %u)", fsize,
                    TPU_OBJ_HEADER_SIZE);
    if (fsize > len)
        return fail(ps, "truncated: header says %u bytes, file has %zu", fsize, len);
    if (fsize < len)
        return fail(ps, "trailing garbage: header says %u bytes, file has %zu", fsize, len);
    uint32_t actual = tpu_crc32(buf + TPU_OBJ_HEADER_SIZE, fsize - TPU_OBJ_HEADER_SIZE);
    if (actual != crc)
        return fail(ps, "checksum mismatch (file corrupt): header says 0x%08x, contents give 0x%08x",
                    crc, actual);

    ps->size = fsize;
    size_t counts[8] = { 0 }, name_bytes = 0, data_bytes = 0;
    if (scan_records(ps, count, counts, &name_bytes, &data_bytes) != 0)
        return -1;

    size_t nchunks = counts[TPU_REC_DATA] + counts[TPU_REC_FILL], nsyms = counts[TPU_REC_SYMBOL];
    size_t nexp = counts[TPU_REC_EXPECT], narr = counts[TPU_REC_ARRAY];
    uint8_t *data_store = data_bytes ? own_block(o, data_bytes) : NULL;
    char *name_store = nsyms || narr ? (char *)own_block(o, name_bytes) : NULL;
    chunk_ref *crefs = nchunks ? malloc(nchunks * sizeof *crefs) : NULL;
    name_ref *nrefs = nsyms ? malloc(nsyms * sizeof *nrefs) : NULL;
    name_ref *arefs = narr ? malloc(narr * sizeof *arefs) : NULL;
    if (nchunks)
        o->chunks = malloc(cap_for(nchunks) * sizeof *o->chunks);
    if (nsyms)
        o->syms = malloc(cap_for(nsyms) * sizeof *o->syms);
    if (nexp)
        o->expects = malloc(cap_for(nexp) * sizeof *o->expects);
    if (narr)
        o->arrays = malloc(cap_for(narr) * sizeof *o->arrays);
    int rc = -1;
    if ((data_bytes && !data_store) || (nsyms && (!name_store || !nrefs || !o->syms)) ||
        (nchunks && (!crefs || !o->chunks)) || (nexp && !o->expects) ||
        (narr && (!name_store || !arefs || !o->arrays))) {
        fail(ps, "out of memory");
        goto out;
    }

    size_t off = TPU_OBJ_HEADER_SIZE;
    for (unsigned n = 0; off < ps->size; n++) {
        uint32_t type = rd32(buf + off), plen = rd32(buf + off + 4);
        const uint8_t *p = buf + off + REC_HDR;
        ps->rec = n;
        ps->rec_off = off;
        int r = 0;
        switch (type) {
        case TPU_REC_CONFIG: r = parse_config(ps, p, plen, o); break;
        case TPU_REC_TEXT:   r = parse_text(ps, p, plen, o); break;
        case TPU_REC_DATA:
        case TPU_REC_FILL:
            crefs[o->nchunks] = (chunk_ref){ &o->chunks[o->nchunks], n, off };
            r = type == TPU_REC_DATA ? parse_data(ps, p, plen, o, &data_store)
                                     : parse_fill(ps, p, plen, o);
            break;
        case TPU_REC_SYMBOL:
            r = parse_symbol(ps, p, plen, o, &name_store);
            if (r == 0)
                nrefs[o->nsyms - 1] = (name_ref){ o->syms[o->nsyms - 1].name, n, off, NULL };
            break;
        case TPU_REC_EXPECT: r = parse_expect(ps, p, plen, o); break;
        case TPU_REC_ARRAY:
            r = parse_array(ps, p, plen, o, &name_store);
            if (r == 0)
                arefs[o->narrays - 1] = (name_ref){ o->arrays[o->narrays - 1].name, n, off, NULL };
            break;
        }
        if (r != 0)
            goto out;
        off += REC_HDR + (size_t)pad8(plen);
    }
    for (size_t i = 0; i < o->nsyms; i++)
        nrefs[i].sym = &o->syms[i];
    if (check_overlaps(ps, crefs, o->nchunks) != 0 || check_duplicates(ps, nrefs, o->nsyms) != 0
        || check_arrays(ps, o, arefs, nrefs, o->nsyms) != 0)
        goto out;
    rc = 0;
out:
    free(crefs);
    free(nrefs);
    free(arefs);
    return rc;
}

int tpu_obj_parse(const uint8_t *buf, size_t len, tpu_object *o, char *err, size_t errlen)
{
    parser ps = { .buf = buf, .size = len, .err = err, .errlen = errlen };
    static const uint8_t empty[1];
    if (errlen)
        err[0] = 0;
    tpu_obj_init(o);
    if (parse_all(&ps, buf ? buf : empty, buf ? len : 0, o) != 0) {
        tpu_obj_free(o);
        return -1;
    }
    return 0;
}

/* Read the whole file (at most TPU_OBJ_MAX_SIZE bytes) and parse it. */
int tpu_obj_read(const char *path, tpu_object *o, char *err, size_t errlen)
{
    tpu_obj_init(o);
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    size_t cap = 1 << 16, len = 0;
    uint8_t *buf = NULL;
    int rc = -1;
    struct stat st;                      /* refuse a huge regular file before reading it */
    if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) && st.st_size > (off_t)TPU_OBJ_MAX_SIZE) {
        snprintf(err, errlen, "%s: file too large (%lld bytes, the limit is %u)", path,
                 (long long)st.st_size, (unsigned)TPU_OBJ_MAX_SIZE);
        goto out;
    }
    buf = malloc(cap);
    if (!buf) {
        snprintf(err, errlen, "%s: out of memory", path);
        goto out;
    }
    for (;;) {
        if (len == cap) {                /* grow, up to one byte past the limit */
            size_t ncap = cap * 2 > (size_t)TPU_OBJ_MAX_SIZE + 1 ? (size_t)TPU_OBJ_MAX_SIZE + 1
                                                                 : cap * 2;
            if (ncap == cap)
                break;
            uint8_t *nb = realloc(buf, ncap);
            if (!nb) {
                snprintf(err, errlen, "%s: out of memory", path);
                goto out;
            }
            buf = nb;
            cap = ncap;
        }
        size_t got = fread(buf + len, 1, cap - len, f);
        len += got;
        if (got == 0) {
            if (ferror(f)) {
                snprintf(err, errlen, "%s: %s", path, strerror(errno));
                goto out;
            }
            break;
        }
    }
    if (len > TPU_OBJ_MAX_SIZE) {
        snprintf(err, errlen, "%s: file too large (more than the limit of %u bytes)", path,
                 (unsigned)TPU_OBJ_MAX_SIZE);
        goto out;
    }
    char msg[512];
    if (tpu_obj_parse(buf, len, o, msg, sizeof msg) != 0) {
        snprintf(err, errlen, "%s: %s", path, msg);
        goto out;
    }
    rc = 0;
out:
    free(buf);
    fclose(f);
    return rc;
}
