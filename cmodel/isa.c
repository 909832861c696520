/*
 * isa.c - the instruction table built from isa.def, and the encoder,
 * decoder and one-instruction printer that every tool shares.
 */
#include "isa.h"

#include <stdio.h>
#include <string.h>

#define OPD(kind, field, name) { TPU_K_##kind, TPU_F_##field, name }
#define OPD_NONE { TPU_K_NONE, TPU_F_NONE, NULL }
#define INSN(id_, mn, opc, unit_, sum, sem, ...) \
    { .opcode = (opc), .unit = TPU_UNIT_##unit_, .id = #id_, .mnemonic = mn, .summary = sum, \
      .semantics = sem, .op = { __VA_ARGS__ } },
static tpu_insn_desc isa_table_rw[] = {
#include "isa.def"
};
#undef INSN
#undef OPD
#undef OPD_NONE

const tpu_insn_desc *const tpu_isa_table = isa_table_rw;
const size_t tpu_isa_count = sizeof isa_table_rw / sizeof isa_table_rw[0];

static const struct { uint8_t lsb, width; const char *name; } fields[TPU_F_COUNT] = {
    [TPU_F_NONE] = { 0, 0, "-" },  [TPU_F_A] = { 8, 5, "A" },   [TPU_F_B] = { 13, 5, "B" },
    [TPU_F_C] = { 18, 5, "C" },    [TPU_F_D] = { 23, 5, "D" },  [TPU_F_E] = { 28, 5, "E" },
    [TPU_F_F] = { 33, 5, "F" },    [TPU_F_G] = { 38, 5, "G" },  [TPU_F_IMM] = { 32, 32, "IMM" },
};

unsigned tpu_field_lsb(enum tpu_field f) { return f < TPU_F_COUNT ? fields[f].lsb : 0; }
unsigned tpu_field_width(enum tpu_field f) { return f < TPU_F_COUNT ? fields[f].width : 0; }
const char *tpu_field_name(enum tpu_field f) { return f < TPU_F_COUNT ? fields[f].name : "?"; }

const char *tpu_kind_name(enum tpu_operand_kind k)
{
    static const char *names[TPU_K_COUNT] = {
        "none", "sreg", "sregw", "vreg", "sem", "mxu", "port", "simm", "uimm", "shamt",
        "target", "units",
    };
    return k < TPU_K_COUNT ? names[k] : "?";
}

const char *tpu_unit_name(enum tpu_unit u)
{
    static const char *names[TPU_UNIT_COUNT] = { "seq", "dma", "mxu", "vpu", "ici", "xlu" };
    return u < TPU_UNIT_COUNT ? names[u] : "?";
}

void tpu_kind_range(enum tpu_operand_kind k, int64_t *lo, int64_t *hi)
{
    *lo = 0;
    switch (k) {
    case TPU_K_SREG:   *hi = TPU_NUM_SREGS - 1; break;
    case TPU_K_SREGW:  *hi = TPU_NUM_SREGS - 2; break;   /* cid (s31) is read-only */
    case TPU_K_VREG:   *hi = TPU_NUM_VREGS - 1; break;
    case TPU_K_SEM:    *hi = TPU_NUM_SEMS - 1; break;
    case TPU_K_MXU:    *hi = TPU_MAX_MXUS - 1; break;
    case TPU_K_PORT:   *hi = TPU_NUM_PORTS - 1; break;
    case TPU_K_SIMM:   *lo = INT32_MIN; *hi = INT32_MAX; break;
    case TPU_K_UIMM:   *hi = UINT32_MAX; break;
    case TPU_K_SHAMT:  *hi = 63; break;
    case TPU_K_TARGET: *hi = UINT32_MAX; break;
    case TPU_K_UNITS:  *lo = 1; *hi = TPU_UNITS_ALL; break;
    default:           *hi = 0; break;
    }
}

static uint64_t field_mask(enum tpu_field f)
{
    unsigned w = tpu_field_width(f);
    return w == 0 ? 0 : (((w == 64) ? ~0ull : ((1ull << w) - 1)) << tpu_field_lsb(f));
}

/* Fill in the derived columns (operand count, used bits) once.  The table is
 * tiny, so a lazily-built copy costs nothing and keeps isa.def free of them. */
static const tpu_insn_desc *by_opcode[256];
static int table_ready;

static void table_init(void)
{
    if (table_ready)
        return;
    for (size_t i = 0; i < tpu_isa_count; i++) {
        tpu_insn_desc *d = &isa_table_rw[i];
        d->noperands = 0;
        d->used_mask = 0xff;
        while (d->noperands < TPU_MAX_OPERANDS && d->op[d->noperands].kind != TPU_K_NONE) {
            d->used_mask |= field_mask(d->op[d->noperands].field);
            d->noperands++;
        }
        by_opcode[d->opcode] = d;
    }
    table_ready = 1;
}

/* Run table_init before main() so that tpu_isa_table is complete for every
 * user, including those that only iterate over it. */
__attribute__((constructor)) static void table_ctor(void) { table_init(); }

const tpu_insn_desc *tpu_isa_by_opcode(unsigned opcode)
{
    table_init();
    return opcode < 256 ? by_opcode[opcode] : NULL;
}

const tpu_insn_desc *tpu_isa_by_mnemonic(const char *mn, size_t len)
{
    table_init();
    for (size_t i = 0; i < tpu_isa_count; i++) {
        const char *m = tpu_isa_table[i].mnemonic;
        if (strlen(m) == len && memcmp(m, mn, len) == 0)
            return &tpu_isa_table[i];
    }
    return NULL;
}

int tpu_encode(const tpu_insn_desc *d, const int64_t *val, uint64_t *word, int *bad_operand)
{
    uint64_t w = d->opcode;
    for (unsigned i = 0; i < d->noperands; i++) {
        int64_t lo, hi;
        tpu_kind_range(d->op[i].kind, &lo, &hi);
        if (val[i] < lo || val[i] > hi) {
            if (bad_operand)
                *bad_operand = (int)i;
            return -1;
        }
        uint64_t v = (uint64_t)val[i] & (field_mask(d->op[i].field) >> tpu_field_lsb(d->op[i].field));
        w |= v << tpu_field_lsb(d->op[i].field);
    }
    *word = w;
    return 0;
}

int tpu_decode(uint64_t word, tpu_insn *out, const char **why)
{
    const tpu_insn_desc *d = tpu_isa_by_opcode((unsigned)(word & 0xff));
    const char *dummy;
    if (!why)
        why = &dummy;
    if (!d) {
        *why = "unknown opcode";
        return -1;
    }
    if (word & ~d->used_mask) {
        *why = "reserved bits set";
        return -1;
    }
    out->desc = d;
    for (unsigned i = 0; i < d->noperands; i++) {
        unsigned f = d->op[i].field;
        uint64_t raw = (word & field_mask(f)) >> tpu_field_lsb(f);
        int64_t v = (int64_t)raw, lo, hi;
        if (d->op[i].kind == TPU_K_SIMM)
            v = (int64_t)(int32_t)(uint32_t)raw;
        tpu_kind_range(d->op[i].kind, &lo, &hi);
        if (v < lo || v > hi) {
            *why = "operand out of range";
            return -1;
        }
        out->val[i] = v;
    }
    for (unsigned i = d->noperands; i < TPU_MAX_OPERANDS; i++)
        out->val[i] = 0;
    return 0;
}

static const struct { const char *name; uint32_t mask; } unit_names[] = {
    { "all", TPU_UNITS_ALL }, { "mxu", TPU_UNITS_MXU }, { "mxu0", TPU_UNITS_MXU0 },
    { "mxu1", TPU_UNITS_MXU1 }, { "mxu2", TPU_UNITS_MXU2 }, { "mxu3", TPU_UNITS_MXU3 },
    { "vpu", TPU_UNITS_VPU }, { "dma", TPU_UNITS_DMA }, { "ici", TPU_UNITS_ICI },
};

int tpu_units_parse(const char *s, size_t len, uint32_t *mask)
{
    uint32_t m = 0;
    size_t i = 0;
    while (i <= len) {
        size_t j = i;
        while (j < len && s[j] != '|')
            j++;
        size_t b = i, e = j;                 /* trim blanks around a name */
        while (b < e && (s[b] == ' ' || s[b] == '\t'))
            b++;
        while (e > b && (s[e - 1] == ' ' || s[e - 1] == '\t'))
            e--;
        size_t k;
        for (k = 0; k < sizeof unit_names / sizeof unit_names[0]; k++)
            if (strlen(unit_names[k].name) == e - b && memcmp(unit_names[k].name, s + b, e - b) == 0)
                break;
        if (k == sizeof unit_names / sizeof unit_names[0])
            return -1;
        m |= unit_names[k].mask;
        i = j + 1;
    }
    *mask = m;
    return 0;
}

/* Print the shortest spelling: "all", else "mxu" for all four MXUs, then
 * each remaining unit.  A set is never empty (TPU_K_UNITS starts at 1). */
int tpu_units_format(uint32_t mask, char *buf, size_t len)
{
    char tmp[64] = "";
    if ((mask & TPU_UNITS_ALL) == TPU_UNITS_ALL)
        return snprintf(buf, len, "all");
    for (size_t k = 1; k < sizeof unit_names / sizeof unit_names[0]; k++) {
        uint32_t um = unit_names[k].mask;
        if ((mask & um) == um) {
            if (tmp[0])
                strcat(tmp, "|");
            strcat(tmp, unit_names[k].name);
            mask &= ~um;
        }
    }
    return snprintf(buf, len, "%s", tmp);
}

int tpu_reg_parse(enum tpu_operand_kind kind, const char *s, size_t len)
{
    char prefix = (kind == TPU_K_VREG) ? 'v' : 's';
    if (kind != TPU_K_VREG) {
        if (len == 4 && memcmp(s, "zero", 4) == 0)
            return TPU_SREG_ZERO;
        if (len == 3 && memcmp(s, "cid", 3) == 0)
            return TPU_SREG_CID;
    }
    if (len < 2 || len > 3 || s[0] != prefix)
        return -1;
    int n = 0;
    for (size_t i = 1; i < len; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        n = n * 10 + (s[i] - '0');
    }
    if (len == 3 && s[1] == '0')   /* "s05" is not a register name */
        return -1;
    return n < 32 ? n : -1;
}

int tpu_format_insn(const tpu_insn *in, char *buf, size_t len, tpu_label_fn label, void *ctx)
{
    const tpu_insn_desc *d = in->desc;
    size_t n = 0;
    /* buf may be NULL with len 0 (to measure): never form buf + n then */
#define PUT(...) do { int r_ = snprintf(n < len ? buf + n : NULL, n < len ? len - n : 0, __VA_ARGS__); \
                      if (r_ > 0) n += (size_t)r_; } while (0)
    PUT("%s", d->mnemonic);
    for (unsigned i = 0; i < d->noperands; i++) {
        int64_t v = in->val[i];
        PUT(i == 0 ? " " : ", ");
        switch (d->op[i].kind) {
        case TPU_K_SREG:
        case TPU_K_SREGW:
            if (v == TPU_SREG_ZERO) PUT("zero");
            else if (v == TPU_SREG_CID) PUT("cid");
            else PUT("s%d", (int)v);
            break;
        case TPU_K_VREG:
            PUT("v%d", (int)v);
            break;
        case TPU_K_TARGET: {
            const char *l = label ? label(ctx, (uint64_t)v) : NULL;
            if (l) PUT("%s", l);
            else PUT("%lld", (long long)v);
            break;
        }
        case TPU_K_UNITS: {
            char u[64];
            tpu_units_format((uint32_t)v, u, sizeof u);
            PUT("%s", u);
            break;
        }
        case TPU_K_UIMM:
            if (v > 0xffff) PUT("0x%llx", (unsigned long long)v);
            else PUT("%lld", (long long)v);
            break;
        default:
            PUT("%lld", (long long)v);
            break;
        }
    }
#undef PUT
    return (int)n;
}
