/*
 * disasm.c - an object file as assembly source that tpu-as turns back into
 * the same bytes.
 *
 * Layout: a header comment, `.target` (if the object has a CONFIG record),
 * `.text` with every instruction and its labels, then each DATA/FILL record
 * behind its own origin directive with the labels that fall in it, then
 * labels outside any record, then the `.expect` checks.  Symbols are written
 * in sorted order by the assembler, so where a label is printed does not
 * matter as long as its value is right.
 */
#include "disasm.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "isa.h"

#define COMMENT_COL 48      /* column of the "# 0x0004" address comments */
#define I32_PER_LINE 8

typedef struct dis {
    const tpu_object *o;
    FILE *out;
    int addresses;
    const tpu_obj_symbol **syms;   /* sorted by (space, value, name) */
    size_t nsyms;
    const tpu_obj_chunk **chunks;  /* sorted by (space, addr) */
    size_t *owner;                 /* per sorted symbol: chunk index, or SIZE_MAX */
} dis;

static int sym_order(const void *a, const void *b)
{
    const tpu_obj_symbol *x = *(const tpu_obj_symbol *const *)a;
    const tpu_obj_symbol *y = *(const tpu_obj_symbol *const *)b;
    if (x->space != y->space)
        return x->space < y->space ? -1 : 1;
    if (x->value != y->value)
        return x->value < y->value ? -1 : 1;
    return strcmp(x->name, y->name);
}

static int chunk_order(const void *a, const void *b)
{
    const tpu_obj_chunk *x = *(const tpu_obj_chunk *const *)a;
    const tpu_obj_chunk *y = *(const tpu_obj_chunk *const *)b;
    if (x->space != y->space)
        return x->space < y->space ? -1 : 1;
    if (x->addr != y->addr)
        return x->addr < y->addr ? -1 : 1;
    return x < y ? -1 : x > y;
}

static const char *space_name(uint8_t space)
{
    return space == TPU_SPACE_HBM ? "hbm" : space == TPU_SPACE_VMEM ? "vmem" : "imem";
}

/* A u64 as an integer literal: decimal when it fits an int64 (the
 * assembler's expressions are signed 64-bit), hex beyond. */
static void put_num(FILE *out, uint64_t v)
{
    if (v <= INT64_MAX)
        fprintf(out, "%llu", (unsigned long long)v);
    else
        fprintf(out, "0x%llx", (unsigned long long)v);
}

void tpu_dis_f32(uint32_t bits, char *buf, size_t len)
{
    float f;
    memcpy(&f, &bits, sizeof f);
    if (!isnan(f) && bits != 0x80000000u) {
        snprintf(buf, len, "%.9g", f);
        float back = strtof(buf, NULL);
        uint32_t bb;
        memcpy(&bb, &back, sizeof bb);
        if (bb == bits)
            return;
    }
    snprintf(buf, len, "bits(0x%08x)", bits);
}

/* The first label (by name) at text index `target`, for branch operands. */
static const char *text_label(void *ctx, uint64_t target)
{
    const dis *d = ctx;
    size_t lo = 0, hi = d->nsyms;
    while (lo < hi) {                       /* first symbol >= (IMEM, target) */
        size_t mid = lo + (hi - lo) / 2;
        const tpu_obj_symbol *s = d->syms[mid];
        if (s->space < TPU_SPACE_IMEM || (s->space == TPU_SPACE_IMEM && s->value < target))
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < d->nsyms && d->syms[lo]->space == TPU_SPACE_IMEM && d->syms[lo]->value == target)
        return d->syms[lo]->name;
    return NULL;
}

/* Print `text` padded to the comment column, then the comment (if any). */
static void put_line(dis *d, const char *text, const char *comment)
{
    if (!comment || !comment[0]) {
        fprintf(d->out, "%s\n", text);
        return;
    }
    int n = (int)strlen(text);
    fprintf(d->out, "%s%*s# %s\n", text, n < COMMENT_COL ? COMMENT_COL - n : 1, "", comment);
}

static void put_text(dis *d)
{
    const tpu_object *o = d->o;
    size_t s = 0;
    while (s < d->nsyms && d->syms[s]->space < TPU_SPACE_IMEM)
        s++;
    fprintf(d->out, ".text\n");
    for (size_t i = 0; i <= o->ntext; i++) {
        for (; s < d->nsyms && d->syms[s]->space == TPU_SPACE_IMEM && d->syms[s]->value <= i; s++) {
            if (d->syms[s]->value == i)
                fprintf(d->out, "%s:\n", d->syms[s]->name);
        }
        if (i == o->ntext)
            break;
        char line[256], comment[96] = "";
        tpu_insn in;
        const char *why = "";
        if (tpu_decode(o->text[i], &in, &why) == 0) {
            memcpy(line, "    ", 4);
            tpu_format_insn(&in, line + 4, sizeof line - 4, text_label, d);
            if (d->addresses)
                snprintf(comment, sizeof comment, "0x%04zx", i);
        } else {
            snprintf(line, sizeof line, "    .insn 0x%016llx", (unsigned long long)o->text[i]);
            if (d->addresses)
                snprintf(comment, sizeof comment, "0x%04zx  illegal: %s", i, why);
            else
                snprintf(comment, sizeof comment, "illegal: %s", why);
        }
        put_line(d, line, comment);
    }
    /* labels past the end cannot be written as source (the loader rejects them) */
    for (; s < d->nsyms && d->syms[s]->space == TPU_SPACE_IMEM; s++)
        fprintf(d->out, "# cannot express: text label %s = %llu is past the end of the text\n",
                d->syms[s]->name, (unsigned long long)d->syms[s]->value);
}

/* Which chunk prints each data label: the chunk it is in (a FILL only at
 * its first byte, since a fill cannot be split), else the chunk it ends.
 * Labels without one are printed on their own after the chunks. */
static void assign_owners(dis *d)
{
    size_t n = d->o->nchunks;
    for (size_t k = 0; k < d->nsyms; k++) {
        const tpu_obj_symbol *s = d->syms[k];
        d->owner[k] = SIZE_MAX;
        if (s->space != TPU_SPACE_HBM && s->space != TPU_SPACE_VMEM)
            continue;
        size_t lo = 0, hi = n;             /* first chunk > (space, value) */
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            const tpu_obj_chunk *c = d->chunks[mid];
            if (c->space < s->space || (c->space == s->space && c->addr <= s->value))
                lo = mid + 1;
            else
                hi = mid;
        }
        if (lo == 0)
            continue;
        const tpu_obj_chunk *c = d->chunks[lo - 1];
        if (c->space != s->space)
            continue;
        uint64_t off = s->value - c->addr;
        if ((off < c->size && (c->rec == TPU_REC_DATA || off == 0)) || off == c->size)
            d->owner[k] = (size_t)(c - d->o->chunks);
    }
}

/* Index of the first sorted symbol >= (space, value). */
static size_t first_sym(const dis *d, uint8_t space, uint64_t value)
{
    size_t lo = 0, hi = d->nsyms;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const tpu_obj_symbol *s = d->syms[mid];
        if (s->space < space || (s->space == space && s->value < value))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The labels that chunk `ci` prints at address `value`. */
static void put_labels_at(dis *d, size_t ci, uint8_t space, uint64_t value)
{
    for (size_t k = first_sym(d, space, value);
         k < d->nsyms && d->syms[k]->space == space && d->syms[k]->value == value; k++)
        if (d->owner[k] == ci)
            fprintf(d->out, "%s:\n", d->syms[k]->name);
}

/* Bytes [from, to) of a DATA chunk: .i32 words, 8 a line, then .i8. */
static void put_bytes(dis *d, const uint8_t *p, uint64_t from, uint64_t to)
{
    uint64_t i = from;
    while (to - i >= 4) {
        fprintf(d->out, "    .i32 ");
        for (int w = 0; w < I32_PER_LINE && to - i >= 4; w++, i += 4) {
            uint32_t v = (uint32_t)p[i] | (uint32_t)p[i + 1] << 8 | (uint32_t)p[i + 2] << 16 |
                         (uint32_t)p[i + 3] << 24;
            fprintf(d->out, "%s0x%08x", w ? ", " : "", v);
        }
        fprintf(d->out, "\n");
    }
    if (i < to) {
        fprintf(d->out, "    .i8 ");
        for (; i < to; i++)
            fprintf(d->out, "0x%02x%s", p[i], i + 1 < to ? ", " : "");
        fprintf(d->out, "\n");
    }
}

/* One DATA or FILL record behind its own origin directive, with its labels.
 * DATA lines are split at every label; a FILL is one directive. */
static void put_chunk(dis *d, size_t ci)
{
    const tpu_obj_chunk *c = &d->o->chunks[ci];
    fprintf(d->out, "\n.%s 0x%llx\n", space_name(c->space), (unsigned long long)c->addr);
    if (c->rec == TPU_REC_FILL) {
        put_labels_at(d, ci, c->space, c->addr);
        if (c->fill == TPU_FILL_RANDOM_I8) {
            char lo[32], hi[32];
            tpu_dis_f32(c->lo_bits, lo, sizeof lo);
            tpu_dis_f32(c->hi_bits, hi, sizeof hi);
            fprintf(d->out, "    .random i8, ");
            put_num(d->out, c->size);
            fprintf(d->out, ", ");
            put_num(d->out, c->seed);
            fprintf(d->out, ", %s, %s\n", lo, hi);
        } else if (c->fill == TPU_FILL_RANDOM_BF16 || c->fill == TPU_FILL_RANDOM_F32) {
            int bf16 = c->fill == TPU_FILL_RANDOM_BF16;
            char lo[32], hi[32];
            tpu_dis_f32(c->lo_bits, lo, sizeof lo);
            tpu_dis_f32(c->hi_bits, hi, sizeof hi);
            fprintf(d->out, "    .random %s, ", bf16 ? "bf16" : "f32");
            put_num(d->out, c->size / (bf16 ? 2 : 4));
            fprintf(d->out, ", ");
            put_num(d->out, c->seed);
            fprintf(d->out, ", %s, %s\n", lo, hi);
        } else {
            fprintf(d->out, "    .zero ");
            put_num(d->out, c->size);
            fprintf(d->out, "\n");
        }
        if (c->size != 0)
            put_labels_at(d, ci, c->space, c->addr + c->size);
        return;
    }
    uint64_t pos = 0;
    for (size_t k = first_sym(d, c->space, c->addr);
         k < d->nsyms && d->syms[k]->space == c->space && d->syms[k]->value - c->addr <= c->size;
         k++) {
        if (d->owner[k] != ci)
            continue;
        uint64_t off = d->syms[k]->value - c->addr;
        put_bytes(d, c->data, pos, off);
        fprintf(d->out, "%s:\n", d->syms[k]->name);
        pos = off;
    }
    put_bytes(d, c->data, pos, c->size);
}

/* Data labels that no chunk prints: an origin and the label. */
static void put_lone_labels(dis *d)
{
    int have_origin = 0;
    uint8_t space = 0;
    uint64_t value = 0;
    for (size_t k = 0; k < d->nsyms; k++) {
        const tpu_obj_symbol *s = d->syms[k];
        if (d->owner[k] != SIZE_MAX || (s->space != TPU_SPACE_HBM && s->space != TPU_SPACE_VMEM))
            continue;
        if (!have_origin || s->space != space || s->value != value) {
            fprintf(d->out, "\n.%s 0x%llx\n", space_name(s->space), (unsigned long long)s->value);
            have_origin = 1, space = s->space, value = s->value;
        }
        fprintf(d->out, "%s:\n", s->name);
    }
}

static void put_expect(dis *d, const tpu_obj_expect *e)
{
    const char *name = tpu_expect_op_name(e->op);
    if (!name) {
        fprintf(d->out, "# cannot express: expect with unknown op %u\n", e->op);
        return;
    }
    fprintf(d->out, ".expect %s", name);
    if (e->core >= 0)
        fprintf(d->out, "@%d", (int)e->core);
    for (uint32_t k = 0; k < e->nops && k < TPU_OBJ_MAX_EXPECT_OPS; k++) {
        const tpu_obj_expect_operand *op = &e->ops[k];
        fprintf(d->out, k ? ", " : " ");
        if (op->space == TPU_SPACE_HBM || op->space == TPU_SPACE_VMEM) {
            fprintf(d->out, "%s(0x%llx)", space_name(op->space), (unsigned long long)op->value);
        } else if (e->op == TPU_EXPECT_F32 && k > 0) {
            char f[32];
            tpu_dis_f32((uint32_t)op->value, f, sizeof f);
            fprintf(d->out, "%s", f);
        } else {
            put_num(d->out, op->value);
        }
    }
    fprintf(d->out, "\n");
}

/* .array NAME, TYPE, D0, ... [, pitch P] [, kpairs]: pitch only when it is
 * not the packed one, so that the line assembles back to the same record. */
static void put_array(dis *d, const tpu_obj_array *a)
{
    const char *t = tpu_array_type_name(a->type);
    fprintf(d->out, ".array %s, %s", a->name, t ? t : "?");
    for (unsigned k = 0; k < a->ndim && k < TPU_OBJ_MAX_ARRAY_DIMS; k++)
        fprintf(d->out, ", %llu", (unsigned long long)a->dims[k]);
    if (a->pitch != tpu_array_row_bytes(a))
        fprintf(d->out, ", pitch %llu", (unsigned long long)a->pitch);
    if (a->layout == TPU_ARRAY_KPAIRS)
        fprintf(d->out, ", kpairs");
    fprintf(d->out, "\n");
}

int tpu_disasm(const tpu_object *o, const tpu_dis_options *opt, FILE *out)
{
    static const tpu_dis_options defaults = { 0, NULL };
    dis d = { .o = o, .out = out, .nsyms = o->nsyms };
    int rc = -1;
    if (!opt)
        opt = &defaults;
    d.addresses = !opt->no_addresses;
    d.syms = malloc((o->nsyms + 1) * sizeof *d.syms);
    d.owner = malloc((o->nsyms + 1) * sizeof *d.owner);
    d.chunks = malloc((o->nchunks + 1) * sizeof *d.chunks);
    if (!d.syms || !d.owner || !d.chunks)
        goto out;
    for (size_t k = 0; k < o->nsyms; k++)
        d.syms[k] = &o->syms[k];
    qsort(d.syms, o->nsyms, sizeof *d.syms, sym_order);
    for (size_t k = 0; k < o->nchunks; k++)
        d.chunks[k] = &o->chunks[k];
    qsort(d.chunks, o->nchunks, sizeof *d.chunks, chunk_order);
    assign_owners(&d);

    fprintf(out, "# disassembled by tpu-dis%s%s\n", opt->source ? " from " : "",
            opt->source ? opt->source : "");
    fprintf(out, "# %zu instructions, %zu data records, %zu symbols, %zu checks\n", o->ntext,
            o->nchunks, o->nsyms, o->nexpects);
    const tpu_obj_config *c = &o->config;
    if (c->mxu_n || c->num_mxu || c->vpu_sublanes || c->vpu_lanes)
        fprintf(out, ".target %u, %u, %u, %u\n", c->mxu_n, c->num_mxu, c->vpu_sublanes,
                c->vpu_lanes);
    put_text(&d);
    for (size_t k = 0; k < o->nchunks; k++)
        put_chunk(&d, k);
    put_lone_labels(&d);
    if (o->nexpects)
        fprintf(out, "\n");
    for (size_t k = 0; k < o->nexpects; k++)
        put_expect(&d, &o->expects[k]);
    if (o->narrays)
        fprintf(out, "\n");
    for (size_t k = 0; k < o->narrays; k++)
        put_array(&d, &o->arrays[k]);
    rc = ferror(out) ? -1 : 0;
out:
    free(d.syms);
    free(d.owner);
    free(d.chunks);
    return rc;
}
