/*
 * isa.h - the instruction set, as read from isa.def.
 *
 * One table (tpu_isa_table) describes every instruction.  The assembler
 * encodes with it, the C model and the disassembler decode with it, and the
 * generator writes docs/isa.md and rtl/tpu_isa.vh from it.
 */
#ifndef TPU_ISA_H
#define TPU_ISA_H

#include <stddef.h>
#include <stdint.h>

/* Opcodes: TPU_OP_ADD = 0x10, ...  Opcode 0x00 is never legal, so a word of
 * zeros (unwritten instruction memory) traps. */
enum tpu_opcode {
    TPU_OP_ILLEGAL = 0x00,
#define INSN(id, mn, opc, unit, sum, sem, ...) TPU_OP_##id = (opc),
#include "isa.def"
#undef INSN
};

/* The unit that executes an instruction. */
enum tpu_unit { TPU_UNIT_SEQ, TPU_UNIT_DMA, TPU_UNIT_MXU, TPU_UNIT_VPU, TPU_UNIT_ICI,
                TPU_UNIT_XLU, TPU_UNIT_COUNT };

/* Encoding fields (bit positions in the 64-bit word). */
enum tpu_field { TPU_F_NONE, TPU_F_A, TPU_F_B, TPU_F_C, TPU_F_D, TPU_F_E, TPU_F_F, TPU_F_G,
                 TPU_F_IMM, TPU_F_COUNT };

/* Operand kinds; see isa.def for their syntax and ranges. */
enum tpu_operand_kind { TPU_K_NONE, TPU_K_SREG, TPU_K_SREGW, TPU_K_VREG, TPU_K_SEM, TPU_K_MXU,
                        TPU_K_PORT, TPU_K_SIMM, TPU_K_UIMM, TPU_K_SHAMT, TPU_K_TARGET,
                        TPU_K_UNITS, TPU_K_COUNT };

#define TPU_MAX_OPERANDS 7
#define TPU_NUM_SREGS    32
#define TPU_NUM_VREGS    32
#define TPU_NUM_SEMS     32
#define TPU_MAX_MXUS     4
#define TPU_NUM_PORTS    4
#define TPU_SREG_ZERO    0   /* s0 always reads 0, writes are dropped */
#define TPU_SREG_CID     31  /* s31 reads the core id; read-only */

/* Bits of a UNITS operand (the `sync` instruction). */
#define TPU_UNITS_MXU0 0x01u
#define TPU_UNITS_MXU1 0x02u
#define TPU_UNITS_MXU2 0x04u
#define TPU_UNITS_MXU3 0x08u
#define TPU_UNITS_MXU  0x0fu
#define TPU_UNITS_VPU  0x10u
#define TPU_UNITS_DMA  0x20u
#define TPU_UNITS_ICI  0x40u
#define TPU_UNITS_ALL  0x7fu

typedef struct tpu_operand_desc {
    uint8_t kind;        /* enum tpu_operand_kind */
    uint8_t field;       /* enum tpu_field */
    const char *name;    /* as written in docs/isa.md, e.g. "rd" */
} tpu_operand_desc;

typedef struct tpu_insn_desc {
    uint8_t opcode;
    uint8_t unit;        /* enum tpu_unit */
    uint8_t noperands;
    const char *id;      /* "DMA_H2V" */
    const char *mnemonic;/* "dma.h2v" */
    const char *summary;
    const char *semantics;
    tpu_operand_desc op[TPU_MAX_OPERANDS];
    uint64_t used_mask;  /* bits the encoding uses (opcode + operand fields) */
} tpu_insn_desc;

/* A decoded instruction: the table entry plus each operand's value in
 * assembly order.  Register numbers, small numbers and immediates are all
 * stored in val[]; SIMM is sign-extended. */
typedef struct tpu_insn {
    const tpu_insn_desc *desc;
    int64_t val[TPU_MAX_OPERANDS];
} tpu_insn;

extern const tpu_insn_desc *const tpu_isa_table;   /* tpu_isa_count entries */
extern const size_t tpu_isa_count;

/* Field geometry. */
unsigned tpu_field_lsb(enum tpu_field f);
unsigned tpu_field_width(enum tpu_field f);
const char *tpu_field_name(enum tpu_field f);
const char *tpu_kind_name(enum tpu_operand_kind k);
const char *tpu_unit_name(enum tpu_unit u);

/* Valid value range of an operand kind, inclusive. */
void tpu_kind_range(enum tpu_operand_kind k, int64_t *lo, int64_t *hi);

/* Look-ups: NULL when there is no such instruction. */
const tpu_insn_desc *tpu_isa_by_opcode(unsigned opcode);
const tpu_insn_desc *tpu_isa_by_mnemonic(const char *mnemonic, size_t len);

/* Encode: val[] holds operand values in assembly order.  Returns 0, or -1
 * with *bad_operand set to the index of the operand that is out of range
 * (see tpu_kind_range). */
int tpu_encode(const tpu_insn_desc *d, const int64_t *val, uint64_t *word, int *bad_operand);

/* Decode a word.  Returns 0, or -1 for an illegal instruction (unknown
 * opcode, a non-zero unused bit, an operand out of range); then *why, if not
 * NULL, says which in a short static string. */
int tpu_decode(uint64_t word, tpu_insn *out, const char **why);

/* Print one instruction in assembly syntax ("add s1, s2, s3").  `label`, if
 * not NULL, names TARGET values (returns NULL to print the number).
 * Returns the length written (snprintf semantics). */
typedef const char *(*tpu_label_fn)(void *ctx, uint64_t target);
int tpu_format_insn(const tpu_insn *in, char *buf, size_t len, tpu_label_fn label, void *ctx);

/* Parse/print a UNITS set ("mxu0|vpu"). Parse returns -1 on an unknown name. */
int tpu_units_parse(const char *s, size_t len, uint32_t *mask);
int tpu_units_format(uint32_t mask, char *buf, size_t len);

/* Register names: "s5", "zero", "cid", "v3".  Parse returns the number or
 * -1; `kind` is TPU_K_SREG or TPU_K_VREG. */
int tpu_reg_parse(enum tpu_operand_kind kind, const char *s, size_t len);

#endif /* TPU_ISA_H */
