/*
 * objfile.c - build tpu objects in memory: text, chunks, symbols, expects
 * and arrays, and the machine shape an object was made for.
 *
 * The byte layout is specified in docs/object-format.md; the files of
 * obj_impl.h are its only implementation: this one builds, obj_fill.c
 * computes a chunk's bytes, obj_write.c serialises, obj_parse.c and
 * obj_records.c parse.
 */
#include "objfile.h"

#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "obj_impl.h"

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
void tpu_obj_expect_shape(unsigned op, unsigned *min_ops, unsigned *max_ops, unsigned *naddr)
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
 * tpu_obj_cap_for() gives the capacity an array of n elements has. */
size_t tpu_obj_cap_for(size_t n)
{
    size_t c = 16;
    if (n == 0)
        return 0;
    while (c < n)
        c *= 2;
    return c;
}

int tpu_obj_make_room(void **arr, size_t n, size_t elem)
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
uint8_t *tpu_obj_own_block(tpu_object *o, size_t n)
{
    if (tpu_obj_make_room((void **)&o->blocks, o->nblocks, sizeof *o->blocks) != 0)
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
    if (tpu_obj_make_room((void **)&o->text, o->ntext, sizeof *o->text) != 0)
        return -1;
    o->text[o->ntext++] = word;
    return 0;
}

static tpu_obj_chunk *new_chunk(tpu_object *o)
{
    if (tpu_obj_make_room((void **)&o->chunks, o->nchunks, sizeof *o->chunks) != 0)
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
    uint8_t *copy = tpu_obj_own_block(o, (size_t)n);
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
    char *copy = (char *)tpu_obj_own_block(o, len + 1);
    if (!copy)
        return -1;
    memcpy(copy, name, len + 1);
    if (tpu_obj_make_room((void **)&o->syms, o->nsyms, sizeof *o->syms) != 0)
        return -1;
    o->syms[o->nsyms++] = (tpu_obj_symbol){ .space = space, .value = value, .name = copy };
    return 0;
}

/* Fails (-1) when out of memory or past TPU_OBJ_MAX_EXPECTS records. */
int tpu_obj_add_expect(tpu_object *o, const tpu_obj_expect *e)
{
    if (o->nexpects >= TPU_OBJ_MAX_EXPECTS)
        return -1;
    if (tpu_obj_make_room((void **)&o->expects, o->nexpects, sizeof *o->expects) != 0)
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
    char *copy = (char *)tpu_obj_own_block(o, len + 1);
    if (!copy)
        return -1;
    memcpy(copy, a->name, len + 1);
    if (tpu_obj_make_room((void **)&o->arrays, o->narrays, sizeof *o->arrays) != 0)
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

int tpu_obj_sym_cmp(const tpu_obj_symbol *a, const tpu_obj_symbol *b)
{
    if (a->space != b->space)
        return a->space < b->space ? -1 : 1;
    if (a->value != b->value)
        return a->value < b->value ? -1 : 1;
    return strcmp(a->name, b->name);
}

static int sym_qsort_cmp(const void *a, const void *b) { return tpu_obj_sym_cmp(a, b); }

int tpu_obj_sym_ptr_cmp(const void *a, const void *b)
{
    return tpu_obj_sym_cmp(*(const tpu_obj_symbol *const *)a, *(const tpu_obj_symbol *const *)b);
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

