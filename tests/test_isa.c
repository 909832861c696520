/*
 * test_isa.c - the instruction table and the shared encoder, decoder and
 * printer: every instruction, every operand at its limits, every reserved
 * bit, and text that goes out through tpu_format_insn and back in through
 * the register and unit-set parsers.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "isa.h"

static uint64_t field_mask(enum tpu_field f)
{
    unsigned w = tpu_field_width(f);
    return w == 0 ? 0 : ((w == 64 ? ~0ull : (1ull << w) - 1) << tpu_field_lsb(f));
}

/* Three values per operand kind: minimum, a middle value, maximum. */
static void kind_samples(enum tpu_operand_kind k, int64_t out[3])
{
    int64_t lo, hi;
    tpu_kind_range(k, &lo, &hi);
    out[0] = lo;
    out[1] = lo + (hi - lo) / 2 + 1;
    out[2] = hi;
}

/* ---- the table itself --------------------------------------------------- */

static void test_table_unique(void **state)
{
    (void)state;
    assert_true(tpu_isa_count > 40);
    for (size_t i = 0; i < tpu_isa_count; i++) {
        const tpu_insn_desc *a = &tpu_isa_table[i];
        assert_int_not_equal(a->opcode, TPU_OP_ILLEGAL);
        assert_ptr_equal(tpu_isa_by_opcode(a->opcode), a);
        assert_ptr_equal(tpu_isa_by_mnemonic(a->mnemonic, strlen(a->mnemonic)), a);
        assert_true(a->unit < TPU_UNIT_COUNT);
        assert_non_null(a->summary);
        assert_non_null(a->semantics);
        for (size_t j = i + 1; j < tpu_isa_count; j++) {
            const tpu_insn_desc *b = &tpu_isa_table[j];
            if (a->opcode == b->opcode || strcmp(a->mnemonic, b->mnemonic) == 0 ||
                strcmp(a->id, b->id) == 0) {
                print_error("%s and %s share an opcode, mnemonic or id\n", a->id, b->id);
                fail();
            }
        }
    }
    assert_null(tpu_isa_by_mnemonic("add", 2));
    assert_null(tpu_isa_by_mnemonic("addx", 4));
    assert_null(tpu_isa_by_opcode(0));
    assert_null(tpu_isa_by_opcode(256));
}

/* No operand overlaps another or the opcode; used_mask is their union. */
static void test_operand_fields_disjoint(void **state)
{
    (void)state;
    for (size_t i = 0; i < tpu_isa_count; i++) {
        const tpu_insn_desc *d = &tpu_isa_table[i];
        uint64_t used = 0xff;
        assert_true(d->noperands <= TPU_MAX_OPERANDS);
        for (unsigned k = 0; k < d->noperands; k++) {
            enum tpu_field f = d->op[k].field;
            assert_true(f > TPU_F_NONE && f < TPU_F_COUNT);
            assert_true(d->op[k].kind > TPU_K_NONE && d->op[k].kind < TPU_K_COUNT);
            assert_true(tpu_field_lsb(f) + tpu_field_width(f) <= 64);
            if (used & field_mask(f)) {
                print_error("%s: operand %s (field %s) overlaps an earlier field\n", d->mnemonic,
                            d->op[k].name, tpu_field_name(f));
                fail();
            }
            used |= field_mask(f);
            /* the operand's whole range fits in its field */
            int64_t lo, hi;
            tpu_kind_range(d->op[k].kind, &lo, &hi);
            unsigned w = tpu_field_width(f);
            if (lo >= 0)
                assert_true((uint64_t)hi <= (w == 64 ? UINT64_MAX : (1ull << w) - 1));
            else
                assert_int_equal(w, 32);                 /* SIMM: a full 32-bit field */
        }
        for (unsigned k = d->noperands; k < TPU_MAX_OPERANDS; k++)
            assert_int_equal(d->op[k].kind, TPU_K_NONE);
        assert_int_equal(d->used_mask, used);
    }
}

static void test_field_geometry(void **state)
{
    (void)state;
    static const struct { enum tpu_field f; unsigned lsb, width; const char *name; } want[] = {
        { TPU_F_A, 8, 5, "A" },   { TPU_F_B, 13, 5, "B" },  { TPU_F_C, 18, 5, "C" },
        { TPU_F_D, 23, 5, "D" },  { TPU_F_E, 28, 5, "E" },  { TPU_F_F, 33, 5, "F" },
        { TPU_F_G, 38, 5, "G" },  { TPU_F_IMM, 32, 32, "IMM" },
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        assert_int_equal(tpu_field_lsb(want[i].f), want[i].lsb);
        assert_int_equal(tpu_field_width(want[i].f), want[i].width);
        assert_string_equal(tpu_field_name(want[i].f), want[i].name);
    }
    assert_int_equal(tpu_field_width(TPU_F_COUNT), 0);
    assert_string_equal(tpu_kind_name(TPU_K_SREGW), "sregw");
    assert_string_equal(tpu_unit_name(TPU_UNIT_VPU), "vpu");
}

/* ---- encode / decode ------------------------------------------------------ */

/* Each operand at its min, middle and max (the others at their middle)
 * encodes, and decodes back to the same values. */
static void test_encode_decode_limits(void **state)
{
    (void)state;
    for (size_t i = 0; i < tpu_isa_count; i++) {
        const tpu_insn_desc *d = &tpu_isa_table[i];
        for (unsigned k = 0; k < (d->noperands ? d->noperands : 1); k++)
            for (int s = 0; s < 3; s++) {
                int64_t val[TPU_MAX_OPERANDS] = { 0 }, samples[3];
                for (unsigned j = 0; j < d->noperands; j++) {
                    kind_samples(d->op[j].kind, samples);
                    val[j] = samples[j == k ? s : 1];
                }
                uint64_t word = 0;
                int bad = -7;
                assert_int_equal(tpu_encode(d, val, &word, &bad), 0);
                assert_int_equal(bad, -7);
                assert_int_equal(word & 0xff, d->opcode);
                assert_int_equal(word & ~d->used_mask, 0);
                tpu_insn in;
                const char *why = NULL;
                if (tpu_decode(word, &in, &why) != 0) {
                    print_error("%s: 0x%016llx does not decode: %s\n", d->mnemonic,
                                (unsigned long long)word, why);
                    fail();
                }
                assert_ptr_equal(in.desc, d);
                for (unsigned j = 0; j < d->noperands; j++)
                    assert_int_equal(in.val[j], val[j]);
                for (unsigned j = d->noperands; j < TPU_MAX_OPERANDS; j++)
                    assert_int_equal(in.val[j], 0);
            }
    }
}

static void test_encode_rejects_out_of_range(void **state)
{
    (void)state;
    for (size_t i = 0; i < tpu_isa_count; i++) {
        const tpu_insn_desc *d = &tpu_isa_table[i];
        for (unsigned k = 0; k < d->noperands; k++) {
            int64_t lo, hi, samples[3];
            tpu_kind_range(d->op[k].kind, &lo, &hi);
            int64_t bads[] = { lo - 1, hi + 1, INT64_MIN, INT64_MAX };
            for (size_t b = 0; b < sizeof bads / sizeof bads[0]; b++) {
                int64_t val[TPU_MAX_OPERANDS] = { 0 };
                for (unsigned j = 0; j < d->noperands; j++) {
                    kind_samples(d->op[j].kind, samples);
                    val[j] = samples[1];
                }
                val[k] = bads[b];
                uint64_t word = 0x1234;
                int bad = -1;
                if (tpu_encode(d, val, &word, &bad) != -1 || bad != (int)k) {
                    print_error("%s operand %u = %lld: not rejected (bad=%d)\n", d->mnemonic, k,
                                (long long)bads[b], bad);
                    fail();
                }
                assert_int_equal(word, 0x1234);            /* untouched on failure */
            }
        }
    }
}

static void test_decode_unknown_opcodes(void **state)
{
    (void)state;
    int unknown = 0;
    for (unsigned op = 0; op < 256; op++) {
        if (tpu_isa_by_opcode(op))
            continue;
        tpu_insn in;
        const char *why = NULL;
        assert_int_equal(tpu_decode(op, &in, &why), -1);
        assert_string_equal(why, "unknown opcode");
        assert_int_equal(tpu_decode(0xffffffffffffff00ull | op, &in, NULL), -1);
        unknown++;
    }
    assert_int_equal(unknown, 256 - (int)tpu_isa_count);
}

/* Setting any bit outside the instruction's fields makes it illegal. */
static void test_decode_reserved_bits(void **state)
{
    (void)state;
    for (size_t i = 0; i < tpu_isa_count; i++) {
        const tpu_insn_desc *d = &tpu_isa_table[i];
        int64_t val[TPU_MAX_OPERANDS] = { 0 }, samples[3];
        for (unsigned j = 0; j < d->noperands; j++) {
            kind_samples(d->op[j].kind, samples);
            val[j] = samples[0];
        }
        uint64_t word;
        assert_int_equal(tpu_encode(d, val, &word, NULL), 0);
        int tried = 0;
        for (unsigned bit = 8; bit < 64; bit++) {
            if (d->used_mask & (1ull << bit))
                continue;
            tpu_insn in;
            const char *why = NULL;
            if (tpu_decode(word | (1ull << bit), &in, &why) != -1) {
                print_error("%s with bit %u set decodes\n", d->mnemonic, bit);
                fail();
            }
            assert_string_equal(why, "reserved bits set");
            tried++;
        }
        assert_int_equal(tried + __builtin_popcountll(d->used_mask), 64);
    }
}

/* Raw field values beyond an operand's range (cid as a destination, MXU
 * or port 4..31, shift 64.., an empty or unknown unit set) are illegal. */
static void test_decode_out_of_range_fields(void **state)
{
    (void)state;
    int checked = 0;
    for (size_t i = 0; i < tpu_isa_count; i++) {
        const tpu_insn_desc *d = &tpu_isa_table[i];
        for (unsigned k = 0; k < d->noperands; k++) {
            enum tpu_field f = d->op[k].field;
            int64_t lo, hi;
            tpu_kind_range(d->op[k].kind, &lo, &hi);
            if (lo < 0)
                continue;                                /* SIMM: every pattern is valid */
            uint64_t fmax = field_mask(f) >> tpu_field_lsb(f);
            uint64_t raws[] = { (uint64_t)lo - 1, (uint64_t)hi + 1, fmax };
            for (size_t r = 0; r < 3; r++) {
                uint64_t raw = raws[r];
                if ((lo == 0 && r == 0) || raw > fmax || (raw >= (uint64_t)lo && raw <= (uint64_t)hi))
                    continue;
                uint64_t word = d->opcode;
                for (unsigned j = 0; j < d->noperands; j++) {
                    int64_t jlo, jhi;
                    tpu_kind_range(d->op[j].kind, &jlo, &jhi);
                    uint64_t v = j == k ? raw : (uint64_t)jlo;
                    word |= (v << tpu_field_lsb(d->op[j].field)) & field_mask(d->op[j].field);
                }
                tpu_insn in;
                const char *why = NULL;
                if (tpu_decode(word, &in, &why) != -1) {
                    print_error("%s operand %s raw %llu decodes\n", d->mnemonic, d->op[k].name,
                                (unsigned long long)raw);
                    fail();
                }
                assert_string_equal(why, "operand out of range");
                checked++;
            }
        }
    }
    assert_true(checked > 30);
    /* spot checks by hand: add cid, s1, s2 and mxu.lw 4, s1, s2 */
    tpu_insn in;
    const char *why;
    assert_int_equal(tpu_decode(TPU_OP_ADD | 31u << 8 | 1u << 13 | 2u << 18, &in, &why), -1);
    assert_int_equal(tpu_decode(TPU_OP_ADD | 30u << 8 | 31u << 13 | 31u << 18, &in, &why), 0);
    assert_int_equal(tpu_decode(TPU_OP_MXU_LW | 4u << 8 | 1u << 13 | 2u << 18, &in, &why), -1);
    assert_int_equal(tpu_decode(TPU_OP_MXU_LW | 3u << 8 | 1u << 13 | 2u << 18, &in, &why), 0);
    assert_int_equal(tpu_decode(TPU_OP_SYNC, &in, &why), -1);                  /* no units */
    assert_int_equal(tpu_decode(TPU_OP_SYNC | 0x80ull << 32, &in, &why), -1);  /* unknown unit */
    assert_int_equal(tpu_decode(TPU_OP_SLLI | 64ull << 32, &in, &why), -1);
}

static void test_simm_sign_extension(void **state)
{
    (void)state;
    const tpu_insn_desc *d = tpu_isa_by_mnemonic("addi", 4);
    int64_t val[3] = { 1, 2, -1 };
    uint64_t word;
    tpu_insn in;
    assert_int_equal(tpu_encode(d, val, &word, NULL), 0);
    assert_int_equal(word >> 32, 0xffffffffu);
    assert_int_equal(tpu_decode(word, &in, NULL), 0);
    assert_int_equal(in.val[2], -1);
    /* UIMM and TARGET are zero-extended */
    d = tpu_isa_by_mnemonic("jmp", 3);
    int64_t t[1] = { 0xfffffffell };
    assert_int_equal(tpu_encode(d, t, &word, NULL), 0);
    assert_int_equal(tpu_decode(word, &in, NULL), 0);
    assert_int_equal(in.val[0], 0xfffffffell);
}

/* ---- text round trip ---------------------------------------------------- */

static const char *label_at_5(void *ctx, uint64_t target)
{
    (void)ctx;
    return target == 5 ? "loop" : NULL;
}

/* Split "mn op, op, op" and parse each operand by kind. */
static void parse_back(const char *text, const tpu_insn *want)
{
    const tpu_insn_desc *d = want->desc;
    size_t mlen = strcspn(text, " ");
    assert_ptr_equal(tpu_isa_by_mnemonic(text, mlen), d);
    const char *p = text + mlen;
    for (unsigned k = 0; k < d->noperands; k++) {
        assert_true(*p == (k == 0 ? ' ' : ','));
        p += (k == 0) ? 1 : 2;
        size_t len = strcspn(p, ",");
        int64_t v;
        switch (d->op[k].kind) {
        case TPU_K_SREG:
        case TPU_K_SREGW:
            v = tpu_reg_parse(TPU_K_SREG, p, len);
            break;
        case TPU_K_VREG:
        case TPU_K_VREGW:
            v = tpu_reg_parse(TPU_K_VREG, p, len);
            break;
        case TPU_K_UNITS: {
            uint32_t m;
            assert_int_equal(tpu_units_parse(p, len, &m), 0);
            v = m;
            break;
        }
        case TPU_K_TARGET:
            if (len == 4 && memcmp(p, "loop", 4) == 0) {
                v = 5;
                break;
            }
            /* fall through */
        default: {
            char num[40], *end;
            assert_true(len < sizeof num);
            memcpy(num, p, len);
            num[len] = 0;
            v = strtoll(num, &end, 0);
            assert_true(*end == 0);
            break;
        }
        }
        if (v != want->val[k]) {
            print_error("\"%s\": operand %u reads back as %lld, not %lld\n", text, k, (long long)v,
                        (long long)want->val[k]);
            fail();
        }
        p += len;
    }
    assert_true(*p == 0);
}

static void test_format_parse_roundtrip(void **state)
{
    (void)state;
    for (size_t i = 0; i < tpu_isa_count; i++) {
        const tpu_insn_desc *d = &tpu_isa_table[i];
        for (unsigned k = 0; k < (d->noperands ? d->noperands : 1); k++)
            for (int s = 0; s < 3; s++) {
                tpu_insn in = { .desc = d };
                int64_t samples[3];
                for (unsigned j = 0; j < d->noperands; j++) {
                    kind_samples(d->op[j].kind, samples);
                    in.val[j] = samples[j == k ? s : 1];
                }
                char buf[200];
                int n = tpu_format_insn(&in, buf, sizeof buf, NULL, NULL);
                assert_int_equal(n, (int)strlen(buf));
                parse_back(buf, &in);
                /* and with a label for target 5 */
                for (unsigned j = 0; j < d->noperands; j++)
                    if (d->op[j].kind == TPU_K_TARGET)
                        in.val[j] = 5;
                tpu_format_insn(&in, buf, sizeof buf, label_at_5, NULL);
                parse_back(buf, &in);
            }
    }
    /* every register, by name */
    const tpu_insn_desc *add = tpu_isa_by_mnemonic("add", 3);
    const tpu_insn_desc *vadd = tpu_isa_by_mnemonic("vadd", 4);
    for (int r = 0; r < 31; r++) {
        tpu_insn in = { .desc = add, .val = { r, 31 - r, r } };
        char buf[64];
        tpu_format_insn(&in, buf, sizeof buf, NULL, NULL);
        parse_back(buf, &in);
        tpu_insn vin = { .desc = vadd, .val = { r, 31 - r, r + 1 } };
        tpu_format_insn(&vin, buf, sizeof buf, NULL, NULL);
        parse_back(buf, &vin);
    }
    /* exact spellings */
    char buf[64];
    tpu_insn in = { .desc = add, .val = { 0, 31, 5 } };
    tpu_format_insn(&in, buf, sizeof buf, NULL, NULL);
    assert_string_equal(buf, "add zero, cid, s5");
    tpu_insn sw = { .desc = tpu_isa_by_mnemonic("sem.wait", 8), .val = { 3, 0x10000 } };
    tpu_format_insn(&sw, buf, sizeof buf, NULL, NULL);
    assert_string_equal(buf, "sem.wait 3, 0x10000");
    tpu_insn sy = { .desc = tpu_isa_by_mnemonic("sync", 4), .val = { TPU_UNITS_MXU | TPU_UNITS_DMA } };
    tpu_format_insn(&sy, buf, sizeof buf, NULL, NULL);
    assert_string_equal(buf, "sync mxu|dma");
    /* a short buffer truncates but reports the full length */
    char small[6];
    assert_int_equal(tpu_format_insn(&in, small, sizeof small, NULL, NULL), 17);
    assert_string_equal(small, "add z");
    assert_int_equal(tpu_format_insn(&in, NULL, 0, NULL, NULL), 17);   /* measure only */
}

static void test_units_roundtrip(void **state)
{
    (void)state;
    for (uint32_t m = 1; m <= TPU_UNITS_ALL; m++) {
        char buf[64];
        uint32_t back = 0;
        int n = tpu_units_format(m, buf, sizeof buf);
        assert_true(n > 0);
        assert_int_equal(tpu_units_parse(buf, strlen(buf), &back), 0);
        assert_int_equal(back, m);
    }
    uint32_t m;
    assert_int_equal(tpu_units_parse("mxu1 | vpu", 10, &m), 0);
    assert_int_equal(m, TPU_UNITS_MXU1 | TPU_UNITS_VPU);
    assert_int_equal(tpu_units_parse("all", 3, &m), 0);
    assert_int_equal(m, TPU_UNITS_ALL);
    assert_int_equal(tpu_units_parse("", 0, &m), -1);
    assert_int_equal(tpu_units_parse("vpu|", 4, &m), -1);
    assert_int_equal(tpu_units_parse("mxu4", 4, &m), -1);
    assert_int_equal(tpu_units_parse("vpux", 3, &m), 0);    /* only len bytes are read */
}

static void test_reg_parse(void **state)
{
    (void)state;
    assert_int_equal(tpu_reg_parse(TPU_K_SREG, "s0", 2), 0);
    assert_int_equal(tpu_reg_parse(TPU_K_SREG, "s31", 3), 31);
    assert_int_equal(tpu_reg_parse(TPU_K_SREG, "zero", 4), 0);
    assert_int_equal(tpu_reg_parse(TPU_K_SREG, "cid", 3), 31);
    assert_int_equal(tpu_reg_parse(TPU_K_VREG, "v17", 3), 17);
    assert_int_equal(tpu_reg_parse(TPU_K_VREGW, "v31", 3), 31);
    assert_int_equal(tpu_reg_parse(TPU_K_SREGW, "cid", 3), 31);   /* the range check is the encoder's */
    assert_int_equal(tpu_reg_parse(TPU_K_VREGW, "s1", 2), -1);
    static const char *bad_s[] = { "s32", "s05", "s", "s-1", "v1", "S1", "s1x", "zer", "s100" };
    for (size_t i = 0; i < sizeof bad_s / sizeof bad_s[0]; i++)
        assert_int_equal(tpu_reg_parse(TPU_K_SREG, bad_s[i], strlen(bad_s[i])), -1);
    static const char *bad_v[] = { "v32", "v01", "v", "s1", "zero", "cid" };
    for (size_t i = 0; i < sizeof bad_v / sizeof bad_v[0]; i++)
        assert_int_equal(tpu_reg_parse(TPU_K_VREG, bad_v[i], strlen(bad_v[i])), -1);
}

/* ---- access, unit, class and flags ---------------------------------------- */

static const tpu_insn_desc *by_mn(const char *mn)
{
    const tpu_insn_desc *d = tpu_isa_by_mnemonic(mn, strlen(mn));
    assert_non_null(d);
    return d;
}

static void test_kind_access(void **state)
{
    (void)state;
    assert_int_equal(tpu_kind_access(TPU_K_SREG), TPU_ACC_R);
    assert_int_equal(tpu_kind_access(TPU_K_SREGW), TPU_ACC_W);
    assert_int_equal(tpu_kind_access(TPU_K_VREG), TPU_ACC_R);
    assert_int_equal(tpu_kind_access(TPU_K_VREGW), TPU_ACC_W);
    assert_int_equal(tpu_kind_access(TPU_K_SEM), TPU_ACC_RW);
    static const enum tpu_operand_kind numbers[] = { TPU_K_MXU, TPU_K_PORT, TPU_K_SIMM, TPU_K_UIMM,
                                                     TPU_K_SHAMT, TPU_K_TARGET, TPU_K_UNITS };
    for (size_t i = 0; i < sizeof numbers / sizeof numbers[0]; i++) {
        assert_int_equal(tpu_kind_access(numbers[i]), TPU_ACC_NONE);
        assert_int_equal(tpu_kind_regfile(numbers[i]), 0);
    }
    assert_int_equal(tpu_kind_regfile(TPU_K_SREGW), 's');
    assert_int_equal(tpu_kind_regfile(TPU_K_VREGW), 'v');
    assert_string_equal(tpu_kind_name(TPU_K_VREGW), "vregw");
    assert_int_equal(tpu_kind_access(TPU_K_COUNT), 0);
    /* the derived masks: operand i's bit */
    assert_int_equal(by_mn("vadd")->reads, 0x6);
    assert_int_equal(by_mn("vadd")->writes, 0x1);
    assert_int_equal(by_mn("vst")->reads, 0x3);      /* vs and rs */
    assert_int_equal(by_mn("vst")->writes, 0);
    assert_int_equal(by_mn("sem.wait")->reads, 0x1);
    assert_int_equal(by_mn("sem.wait")->writes, 0x1);
    assert_int_equal(by_mn("dma.h2v")->reads, 0x7f);  /* six registers and the semaphore */
    assert_int_equal(by_mn("dma.h2v")->writes, 0x40);
    assert_int_equal(by_mn("jal")->writes, 0x1);
    assert_int_equal(by_mn("jmp")->reads | by_mn("jmp")->writes, 0);
    for (size_t i = 0; i < tpu_isa_count; i++) {
        const tpu_insn_desc *d = &tpu_isa_table[i];
        for (unsigned k = 0; k < d->noperands; k++) {
            unsigned a = tpu_kind_access(d->op[k].kind);
            assert_int_equal((d->reads >> k) & 1, (a & TPU_ACC_R) != 0);
            assert_int_equal((d->writes >> k) & 1, (a & TPU_ACC_W) != 0);
        }
        assert_int_equal((d->reads | d->writes) >> d->noperands, 0);
    }
}

/* The vector registers each VPU instruction reads and writes, written out
 * here independently of the table: the scoreboard of vpu.c and vpu.v
 * (T27) as it was hand-written before it came from isa.def. */
static void test_vpu_register_access(void **state)
{
    (void)state;
    static const struct { const char *mn; unsigned reads, writes; } want[] = {
        { "vld", 0x0, 0x1 },    { "vld.bf16", 0x0, 0x1 }, { "vst", 0x1, 0x0 },
        { "vst.bf16", 0x1, 0x0 }, { "vadd", 0x6, 0x1 },   { "vsub", 0x6, 0x1 },
        { "vmul", 0x6, 0x1 },   { "vmax", 0x6, 0x1 },     { "vmin", 0x6, 0x1 },
        { "vrelu", 0x2, 0x1 },  { "vcmplt", 0x6, 0x1 },   { "vsel", 0xe, 0x1 },
        { "vbcast", 0x0, 0x1 }, { "vexp", 0x2, 0x1 },     { "vrcp", 0x2, 0x1 },
        { "vrsqrt", 0x2, 0x1 },
    };
    size_t nvpu = 0;
    for (size_t i = 0; i < tpu_isa_count; i++)
        nvpu += tpu_isa_table[i].unit == TPU_UNIT_VPU;
    assert_int_equal(nvpu, sizeof want / sizeof want[0]);
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        const tpu_insn_desc *d = by_mn(want[i].mn);
        unsigned r = 0, w = 0;
        assert_int_equal(d->unit, TPU_UNIT_VPU);
        for (unsigned k = 0; k < d->noperands; k++) {
            if (d->op[k].kind == TPU_K_VREG)
                r |= 1u << k;
            if (d->op[k].kind == TPU_K_VREGW)
                w |= 1u << k;
        }
        if (r != want[i].reads || w != want[i].writes)
            fail_msg("%s: reads 0x%x writes 0x%x, want 0x%x 0x%x", want[i].mn, r, w,
                     want[i].reads, want[i].writes);
    }
}

/* Units, classes and flags: named, and consistent with the operands. */
static void test_unit_class_flags(void **state)
{
    (void)state;
    assert_string_equal(tpu_unit_name(TPU_UNIT_SEQ), "seq");
    assert_string_equal(tpu_unit_name(TPU_UNIT_ICI), "ici");
    assert_string_equal(tpu_unit_name(TPU_UNIT_COUNT), "?");
    assert_string_equal(tpu_class_name(TPU_CLASS_LOAD), "load");
    assert_string_equal(tpu_class_name(TPU_CLASS_COUNT), "?");
    assert_string_equal(tpu_flag_name(TPU_FLB_I8), "i8");
    assert_int_equal(TPU_FL_BF16, 1u << TPU_FLB_BF16);
    for (int u = 0; u < TPU_UNIT_COUNT; u++)
        assert_true(strlen(tpu_unit_what(u)) > 0);
    for (int c = 0; c < TPU_CLASS_COUNT; c++)
        assert_true(strlen(tpu_class_what(c)) > 0);
    for (int b = 0; b < TPU_FLB_COUNT; b++)
        assert_true(strlen(tpu_flag_what(b)) > 0);
    for (size_t i = 0; i < tpu_isa_count; i++) {
        const tpu_insn_desc *d = &tpu_isa_table[i];
        int sregw = 0, vregw = 0, target = 0;
        for (unsigned k = 0; k < d->noperands; k++) {
            sregw += d->op[k].kind == TPU_K_SREGW;
            vregw += d->op[k].kind == TPU_K_VREGW;
            target += d->op[k].kind == TPU_K_TARGET;
        }
        assert_true(d->unit < TPU_UNIT_COUNT);
        assert_true(d->cls < TPU_CLASS_COUNT);
        assert_int_equal(d->flags >> TPU_FLB_COUNT, 0);
        /* the sequencer's own classes, and only the sequencer's */
        int seq_class = d->cls == TPU_CLASS_CTRL || d->cls == TPU_CLASS_ALU ||
                        d->cls == TPU_CLASS_BRANCH || d->cls == TPU_CLASS_SYNC;
        if (seq_class != (d->unit == TPU_UNIT_SEQ))
            fail_msg("%s: class %s on unit %s", d->mnemonic, tpu_class_name(d->cls),
                     tpu_unit_name(d->unit));
        if (d->cls == TPU_CLASS_ALU)       /* writes a scalar register from registers and numbers */
            assert_true(sregw == 1 && !target);
        if (d->cls == TPU_CLASS_BRANCH)
            assert_true(target || d->reads);
        /* in the VPU every instruction but a store writes one register,
         * in the XLU every instruction */
        if (d->unit == TPU_UNIT_VPU)
            assert_int_equal(vregw, d->cls != TPU_CLASS_STORE);
        else if (d->unit == TPU_UNIT_XLU)
            assert_int_equal(vregw, 1);
        else
            assert_int_equal(vregw, 0);
        /* the int8 forms are spelt .i8, the bf16 VPU forms .bf16 */
        size_t n = strlen(d->mnemonic);
        assert_int_equal((d->flags & TPU_FL_I8) != 0,
                         n > 3 && strcmp(d->mnemonic + n - 3, ".i8") == 0);
        assert_int_equal((d->flags & TPU_FL_BF16) != 0,
                         n > 5 && strcmp(d->mnemonic + n - 5, ".bf16") == 0);
    }
    assert_int_equal(by_mn("dma.h2v")->cls, TPU_CLASS_LOAD);
    assert_int_equal(by_mn("dma.v2h")->cls, TPU_CLASS_STORE);
    assert_int_equal(by_mn("mxu.lw.i8")->cls, TPU_CLASS_LOAD);
    assert_int_equal(by_mn("mxu.mma")->cls, TPU_CLASS_MATMUL);
    assert_int_equal(by_mn("vexp")->cls, TPU_CLASS_TRANS);
    assert_int_equal(by_mn("dma.ici")->cls, TPU_CLASS_SEND);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table_unique),
        cmocka_unit_test(test_operand_fields_disjoint),
        cmocka_unit_test(test_field_geometry),
        cmocka_unit_test(test_encode_decode_limits),
        cmocka_unit_test(test_encode_rejects_out_of_range),
        cmocka_unit_test(test_decode_unknown_opcodes),
        cmocka_unit_test(test_decode_reserved_bits),
        cmocka_unit_test(test_decode_out_of_range_fields),
        cmocka_unit_test(test_simm_sign_extension),
        cmocka_unit_test(test_format_parse_roundtrip),
        cmocka_unit_test(test_units_roundtrip),
        cmocka_unit_test(test_reg_parse),
        cmocka_unit_test(test_kind_access),
        cmocka_unit_test(test_vpu_register_access),
        cmocka_unit_test(test_unit_class_flags),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
