/*
 * objfile.h - the object file that tpu-as writes and everything else loads.
 *
 * The format is described byte for byte in docs/object-format.md.  In short:
 * a 32-byte header (magic "TPUOBJ\0\0", version, record count, file size,
 * CRC-32 of everything after the header) followed by records, each
 * { u32 type, u32 payload length, payload, zero padding to 8 bytes }.
 * All integers are little-endian.  Records come in a canonical order:
 * CONFIG, TEXT, then DATA/FILL in source order, SYMBOLs sorted by
 * (space, value, name), EXPECTs in source order, ARRAYs in source order.
 * That order makes `tpu-as x.s && tpu-dis x.bin | tpu-as` reproduce the
 * file byte for byte.
 */
#ifndef TPU_OBJFILE_H
#define TPU_OBJFILE_H

#include <stddef.h>
#include <stdint.h>

#define TPU_OBJ_MAGIC        "TPUOBJ\0\0"
#define TPU_OBJ_VERSION      1
#define TPU_OBJ_HEADER_SIZE  32
#define TPU_OBJ_MAX_SIZE     (256u << 20)  /* loader refuses larger files */
#define TPU_OBJ_MAX_NAME     255           /* symbol name length */
#define TPU_OBJ_MAX_EXPECT_OPS 72          /* operands of one EXPECT record */
#define TPU_OBJ_MAX_EXPECTS  16384         /* EXPECT records (each ~1 KiB in memory) */

/* Address spaces. */
enum tpu_space { TPU_SPACE_NONE = 0, TPU_SPACE_IMEM = 1, TPU_SPACE_HBM = 2, TPU_SPACE_VMEM = 3 };

enum tpu_obj_record {
    TPU_REC_CONFIG = 1, TPU_REC_TEXT = 2, TPU_REC_DATA = 3, TPU_REC_FILL = 4,
    TPU_REC_SYMBOL = 5, TPU_REC_EXPECT = 6, TPU_REC_ARRAY = 7,
};

/* How a FILL chunk makes its bytes (see tpu_obj_chunk_read). */
enum tpu_fill_kind { TPU_FILL_ZERO = 0, TPU_FILL_RANDOM_BF16 = 1, TPU_FILL_RANDOM_F32 = 2,
                     TPU_FILL_RANDOM_I8 = 3 /* int8 in [lo, hi): lo, hi integral fp32 */ };

/* The reference operation an EXPECT record asks the simulator to check. */
enum tpu_expect_op {
    TPU_EXPECT_MATMUL = 1, /* Y, X, W, B, D, F: fp32 Y[B,F] = bf16 X[B,D] . bf16 W[D,F] */
    TPU_EXPECT_ADD, TPU_EXPECT_SUB, TPU_EXPECT_MUL, TPU_EXPECT_MAX, TPU_EXPECT_MIN,
                           /* Z, X, Y, n: fp32 Z[i] = X[i] op Y[i] for i < n */
    TPU_EXPECT_RELU,       /* Z, X, n */
    TPU_EXPECT_COPY,       /* DST, SRC, nbytes: bytes equal */
    TPU_EXPECT_F32,        /* ADDR, v0, v1, ...: fp32 at ADDR are these bit patterns */
    TPU_EXPECT_SUM,        /* Z, X, STRIDE, K, n: fp32 Z[i] = X_0[i] + ... + X_{K-1}[i],
                            * X_j at X + j * STRIDE bytes, added left to right */
    TPU_EXPECT_MATMUL_I8,  /* Y, X, W, B, D, F: int32 Y[B,F] = int8 X[B,D] . int8 W[D,F] mod
                            * 2^32, W K-pair-interleaved (numerics.md section 9) */
    TPU_EXPECT_MATMUL_W8,  /* Y, X, W, B, D, F: fp32 Y[B,F] = bf16 X[B,D] . bf16(int8 W[D,F])
                            * (W row-major int8, widened exactly as dma.h2v.i8 does) */
    TPU_EXPECT_MATMUL_W8S, /* Y, X, W, S, B, D, F: the same, then Y[b][c] *= fp32 S[c] */
    TPU_EXPECT_ADD_RELU,   /* Z, X, Y, n: fp32 Z[i] = relu(X[i] + Y[i]) (lab 2's kernel) */
    TPU_EXPECT_MATMUL_EPI, /* Y, X, W, BIAS, B, D, F, FLAGS: matmul, then + BIAS[c], relu
                            * (FLAGS 1, 2; 4: X read after the run; 8: Y bf16) */
    TPU_EXPECT_CONV2D,     /* Y, X, W, BIAS, NB, H, W, C, F, R, S, STRIDE, PAD, GROUPS, FLAGS:
                            * bf16 NHWC X, HWIO W, fp32 NHWC Y (ref.h tpu_ref_conv2d) */
    TPU_EXPECT_POOL,       /* Y, X, NB, H, W, C, R, S, STRIDE, PAD, MODE: fp32 NHWC max/avg */
    TPU_EXPECT_SOFTMAX,    /* Z, X, N, C: fp32 softmax of N rows of C, column c of all rows
                              at X + 4 N c (the VPU's layout: a row per lane), numerics.md 11.7 */
    /* The transformer layers (cmodel/ref_nn.h, numerics.md section 12), feature-major like
     * softmax: element (row i, column c) at 4 (c N + i); SCALE and EPS fp32 bit patterns;
     * FLAGS 4: X is read after the run (an intermediate), 8: Z is bf16 (rne). */
    TPU_EXPECT_SOFTMAX_S,  /* Z, X, N, C, SCALE, FLAGS: softmax(SCALE x) */
    TPU_EXPECT_LAYERNORM,  /* Z, X, G, B, N, C, EPS, FLAGS: gamma G[C], beta B[C] fp32 */
    TPU_EXPECT_RMSNORM,    /* Z, X, G, N, C, EPS, FLAGS */
    TPU_EXPECT_GELU,       /* Z, X, N, FLAGS: Z[i] = gelu(X[i]) (tanh form) */
    TPU_EXPECT_SILU,       /* Z, X, N, FLAGS: Z[i] = X[i] sigmoid(X[i]) */
    TPU_EXPECT_RESIDUAL,   /* Z, X, Y, N, FLAGS: fp32 Z[i] = X[i] + Y[i]; FLAGS 4 X, 64 Y after the run */
    TPU_EXPECT_OP_COUNT
};

/* Name of an expect op as written after `.expect` ("matmul"), or NULL. */
const char *tpu_expect_op_name(unsigned op);

/* What the object was assembled for (tpu-as --config); 0 means "any". */
typedef struct tpu_obj_config {
    uint32_t mxu_n, num_mxu, vpu_sublanes, vpu_lanes;
} tpu_obj_config;

struct tpu_config;
/* Does the machine have this shape?  A 0 field matches anything. */
int tpu_obj_config_matches(const tpu_obj_config *shape, const struct tpu_config *cfg);
/* The first compiled-in preset (cmodel/configs/, in name order) from index
 * `from` on that has this shape: its index, with the preset loaded into
 * *out (when out is not NULL); -1 when none has. */
int tpu_obj_config_preset(const tpu_obj_config *shape, int from, struct tpu_config *out);

/* One DATA or FILL record. */
typedef struct tpu_obj_chunk {
    uint8_t  rec;        /* TPU_REC_DATA or TPU_REC_FILL */
    uint8_t  space;      /* TPU_SPACE_HBM or TPU_SPACE_VMEM */
    uint8_t  fill;       /* FILL: enum tpu_fill_kind */
    uint64_t addr;       /* first byte address */
    uint64_t size;       /* bytes it covers (FILL random: count * element size) */
    const uint8_t *data; /* DATA: `size` bytes (points into the object's storage) */
    uint64_t seed;       /* FILL random: generator seed */
    uint32_t lo_bits, hi_bits; /* FILL random: fp32 bit patterns of the range [lo, hi) */
} tpu_obj_chunk;

typedef struct tpu_obj_symbol {
    uint8_t  space;      /* IMEM for code labels (value = instruction index) */
    uint64_t value;
    char    *name;       /* NUL-terminated */
} tpu_obj_symbol;

typedef struct tpu_obj_expect_operand {
    uint8_t  space;      /* NONE for plain numbers (and F32 bit patterns) */
    uint64_t value;
} tpu_obj_expect_operand;

/* An ARRAY record (`.array NAME, TYPE, D0, D1, ... [, pitch P] [, kpairs]`):
 * the element type and shape of the array at a data label, so that tools
 * can move it in and out of memory as a whole (tpu-sim --load/--dump).
 * Rows: the last dimension's elements are contiguous; a row (one index of
 * all the other dimensions, in C order) starts `pitch` bytes after the one
 * before (pitch >= the row's bytes: a padded row).  K-pairs (int8, 2-D
 * [K, N]): element (k, n) at (k / 2) * pitch + 2n + k % 2, the layout
 * mxu.lw.i8 reads (numerics.md section 9). */
#define TPU_OBJ_MAX_ARRAY_DIMS 8
enum tpu_array_type { TPU_ARRAY_BF16 = 1, TPU_ARRAY_F32 = 2, TPU_ARRAY_I8 = 3,
                      TPU_ARRAY_I32 = 4 };
enum tpu_array_layout { TPU_ARRAY_ROWS = 0, TPU_ARRAY_KPAIRS = 1 };

typedef struct tpu_obj_array {
    uint8_t  type;       /* enum tpu_array_type */
    uint8_t  layout;     /* enum tpu_array_layout */
    uint8_t  ndim;       /* 1 .. TPU_OBJ_MAX_ARRAY_DIMS */
    uint64_t pitch;      /* bytes from a row (K-pairs: a pair-row) to the next */
    uint64_t dims[TPU_OBJ_MAX_ARRAY_DIMS];  /* each >= 1 */
    char    *name;       /* a data label (SYMBOL of hbm or vmem) of the object */
} tpu_obj_array;

/* Name of an array type as `.array` writes it ("bf16"), or NULL; bytes per element. */
const char *tpu_array_type_name(unsigned type);
unsigned tpu_array_esize(unsigned type);
/* The packed pitch: a row's bytes (K-pairs: 2 * N). */
uint64_t tpu_array_row_bytes(const tpu_obj_array *a);
/* Elements (the product of the dims) and rows (all dims but the last;
 * K-pairs: pair-rows), 0 when the product passes 2^64. */
uint64_t tpu_array_count(const tpu_obj_array *a);
uint64_t tpu_array_rows(const tpu_obj_array *a);
/* Bytes from the label to one past the array's last byte: (rows - 1) *
 * pitch + the row's bytes; 0 when that passes 2^64. */
uint64_t tpu_array_extent(const tpu_obj_array *a);
/* The byte offset from the label of element i (C order of the dims). */
uint64_t tpu_array_offset(const tpu_obj_array *a, uint64_t i);

typedef struct tpu_obj_expect {
    uint32_t op;         /* enum tpu_expect_op */
    int32_t  core;       /* -1: checked on every core */
    uint32_t nops;
    tpu_obj_expect_operand ops[TPU_OBJ_MAX_EXPECT_OPS];
    uint32_t line;       /* not stored in the file; 0 after loading */
} tpu_obj_expect;

/* A whole object in memory.  Build one with the tpu_obj_add_* calls (the
 * assembler does) or tpu_obj_parse/tpu_obj_read (everything else does). */
typedef struct tpu_object {
    tpu_obj_config config;
    uint64_t      *text;    size_t ntext;     /* instruction words, from address 0 */
    tpu_obj_chunk *chunks;  size_t nchunks;
    tpu_obj_symbol *syms;   size_t nsyms;
    tpu_obj_expect *expects; size_t nexpects;
    tpu_obj_array *arrays;  size_t narrays;   /* ARRAY records, in source order */
    /* storage owned by the object */
    uint8_t **blocks; size_t nblocks;
} tpu_object;

void tpu_obj_init(tpu_object *o);
void tpu_obj_free(tpu_object *o);

/* Builders (copy their arguments).  Return 0, or -1 when out of memory. */
int tpu_obj_add_text(tpu_object *o, uint64_t word);
int tpu_obj_add_data(tpu_object *o, uint8_t space, uint64_t addr, const uint8_t *bytes, uint64_t n);
int tpu_obj_add_fill(tpu_object *o, uint8_t space, uint64_t addr, uint8_t kind, uint64_t size,
                     uint64_t seed, uint32_t lo_bits, uint32_t hi_bits);
int tpu_obj_add_symbol(tpu_object *o, uint8_t space, uint64_t value, const char *name);
int tpu_obj_add_expect(tpu_object *o, const tpu_obj_expect *e);
/* Copies a and its name. */
int tpu_obj_add_array(tpu_object *o, const tpu_obj_array *a);
/* The ARRAY record of a name, or NULL. */
const tpu_obj_array *tpu_obj_find_array(const tpu_object *o, const char *name);
/* Put the symbols into canonical order (space, value, name). */
void tpu_obj_sort_symbols(tpu_object *o);

/* Serialise into a malloc'd buffer.  Returns 0 or -1 (out of memory). */
int tpu_obj_serialize(const tpu_object *o, uint8_t **buf, size_t *len);
/* Write to a file; on failure -1 and a message in err. */
int tpu_obj_write(const tpu_object *o, const char *path, char *err, size_t errlen);

/* Parse a buffer / read a file.  On failure: -1 and a one-line message in
 * err that says what is wrong and at which byte offset ("record 3 at offset
 * 0x58: unknown type 9").  Never crashes on any input. */
int tpu_obj_parse(const uint8_t *buf, size_t len, tpu_object *o, char *err, size_t errlen);
int tpu_obj_read(const char *path, tpu_object *o, char *err, size_t errlen);

/* The bytes a chunk puts in memory: copies bytes [off, off+n) of the chunk
 * into dst.  FILL chunks are generated on the fly (see docs/object-format.md
 * for the generator), so a 1 GiB fill costs nothing until it is read. */
void tpu_obj_chunk_read(const tpu_obj_chunk *c, uint64_t off, uint8_t *dst, size_t n);

/* Element i of a random int8 fill (its byte) with range [lo, hi) given as
 * integral fp32 bits: lo + floor((r >> 40) * (hi - lo) / 2^24). */
uint8_t tpu_fill_random_i8(uint64_t seed, uint64_t i, uint32_t lo_bits, uint32_t hi_bits);
/* Element i of a random fill, as fp32 bits (for bf16: the bf16 value
 * widened, low 16 bits zero). */
uint32_t tpu_fill_random_f32(uint64_t seed, uint64_t i, uint32_t lo_bits, uint32_t hi_bits,
                             int as_bf16);

/* CRC-32 (IEEE 802.3, as zlib's crc32). */
uint32_t tpu_crc32(const uint8_t *p, size_t n);

#endif /* TPU_OBJFILE_H */
