// rtl_fp_test: the RTL floating-point units against the C model's
// routines, bit for bit.
//
// The Verilated model (sim/rtl_fp/rtl_fp_top.v: fp32_add, fp32_mul,
// fp32_cmp, bf16_round, mxu_mac side by side) and cmodel/fp.c, linked in,
// get the same operands; every result must have the same bits.  Operands:
//   - every pair of a list of special values (zeros, subnormals, the
//     smallest and largest normals and their neighbours, infinities, NaNs
//     with payloads, rounding ties, the overflow boundary, values whose
//     products and differences land at or just below 2^-126), both signs;
//     for the MAC every triple of psum specials and bf16 specials, and
//     every bf16 x against every special w;
//   - N random operand sets per operation (default 1,000,000): random bit
//     patterns, nearby values of opposite sign (cancellation), exponents
//     placed so the result lands near the flush and overflow boundaries,
//     and one special with one random operand.
// The transcendentals (fp32_tr, a pipeline: one input a cycle, its result
// 10 cycles later) against tpu_f32_exp/rcp/rsqrt: the specials, every
// exponent with the smallest, largest and a random fraction, exp's
// overflow and flush boundaries, then 4N random inputs per function
// (random bit patterns and, for exp, values of the range that is not
// clamped).
// The random stream is a fixed xorshift, so a run is reproducible; --seed
// picks another.  Prints one line per operation and a total
// "rtl-fp: N passed, M failed"; exits 1 on any mismatch, printing the
// first mismatching operands of each operation in hex.

#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

#include "Vrtl_fp_top.h"
#include "verilated.h"

extern "C" {
#include "fp.h"
}

namespace {

// ---- operations ------------------------------------------------------

enum Op { OP_ADD, OP_SUB, OP_MUL, OP_MAX, OP_MIN, OP_RELU, OP_CMPLT, OP_BF16, OP_MAC,
          OP_EXP, OP_RCP, OP_RSQRT, OP_COUNT };

const char *const kOpName[OP_COUNT] = {
    "add", "sub", "mul", "max", "min", "relu", "cmplt", "bf16_round", "mac",
    "exp", "rcp", "rsqrt",
};

const int kTrSteps = TPU_TR_STEPS;  // fp32_tr's stages, the C model's count

// fp32_cmp's op codes (rtl/fp32_cmp.v).
const uint8_t kCmpMax = 0, kCmpMin = 1, kCmpRelu = 2, kCmpCmplt = 3;

const int kReportPerOp = 3;  // mismatches printed per operation

struct Tally {
    uint64_t passed = 0;
    uint64_t failed = 0;
};

// The harness: the model, the tallies, the random state.  No globals.
struct Harness {
    std::unique_ptr<VerilatedContext> ctx;
    std::unique_ptr<Vrtl_fp_top> top;
    Tally tally[OP_COUNT];
    uint64_t rng;
};

uint64_t next_random(Harness &h)
{
    // xorshift64*: fast, and the stream is the same on every host.
    h.rng ^= h.rng >> 12;
    h.rng ^= h.rng << 25;
    h.rng ^= h.rng >> 27;
    return h.rng * UINT64_C(2685821657736338717);
}

uint32_t rand32(Harness &h) { return (uint32_t)(next_random(h) >> 32); }
uint32_t rand_below(Harness &h, uint32_t n) { return (uint32_t)((next_random(h) >> 32) % n); }

void record(Harness &h, Op op, bool ok, const char *operands, uint32_t rtl, uint32_t c)
{
    Tally &t = h.tally[op];
    if (ok) {
        t.passed++;
        return;
    }
    if (t.failed < (uint64_t)kReportPerOp)
        std::printf("rtl-fp: MISMATCH %s %s: rtl 0x%08" PRIx32 ", C model 0x%08" PRIx32 "\n",
                    kOpName[op], operands, rtl, c);
    t.failed++;
}

// ---- one comparison per operation ------------------------------------

// add, sub (add with b's sign flipped, as the VPU does), mul, and the four
// fp32_cmp operations on one pair (a, b).
void check_pair(Harness &h, Op op, uint32_t a, uint32_t b)
{
    Vrtl_fp_top &m = *h.top;
    uint32_t c = 0, rtl = 0;
    m.a_i = a;
    m.b_i = b;
    switch (op) {
    case OP_ADD: c = tpu_f32_add(a, b); break;
    case OP_SUB: c = tpu_f32_sub(a, b); m.b_i = b ^ 0x80000000u; break;
    case OP_MUL: c = tpu_f32_mul(a, b); break;
    case OP_MAX: c = tpu_f32_max(a, b); m.cmp_op_i = kCmpMax; break;
    case OP_MIN: c = tpu_f32_min(a, b); m.cmp_op_i = kCmpMin; break;
    case OP_RELU: c = tpu_f32_relu(a); m.cmp_op_i = kCmpRelu; break;  // b drives the ignored input
    case OP_CMPLT: c = tpu_f32_cmplt(a, b); m.cmp_op_i = kCmpCmplt; break;
    default: std::abort();
    }
    m.eval();
    switch (op) {
    case OP_ADD: case OP_SUB: rtl = m.sum_o; break;
    case OP_MUL: rtl = m.prod_o; break;
    default: rtl = m.cmp_o; break;
    }
    char buf[64];
    std::snprintf(buf, sizeof buf, "a=0x%08" PRIx32 " b=0x%08" PRIx32, a, b);
    record(h, op, rtl == c, buf, rtl, c);
}

void check_bf16(Harness &h, uint32_t f)
{
    h.top->f32_i = f;
    h.top->eval();
    uint32_t rtl = h.top->bf16_o, c = tpu_bf16_from_f32(f);
    char buf[32];
    std::snprintf(buf, sizeof buf, "f=0x%08" PRIx32, f);
    record(h, OP_BF16, rtl == c, buf, rtl, c);
}

void check_mac(Harness &h, uint32_t psum, uint16_t x, uint16_t w)
{
    h.top->psum_i = psum;
    h.top->x_i = x;
    h.top->w_i = w;
    h.top->eval();
    uint32_t rtl = h.top->mac_o, c = tpu_mac(psum, x, w);
    char buf[64];
    std::snprintf(buf, sizeof buf, "psum=0x%08" PRIx32 " x=0x%04x w=0x%04x", psum, x, w);
    record(h, OP_MAC, rtl == c, buf, rtl, c);
}

// The transcendentals: one input a cycle into fp32_tr; the result of the
// input of kTrSteps cycles ago is on tr_y_o before the clock edge.
struct TrPipe {
    uint32_t x[kTrSteps];
    Op op[kTrSteps];
    bool valid[kTrSteps];
    uint64_t cycle = 0;
};

uint32_t tr_c_model(Op op, uint32_t x)
{
    switch (op) {
    case OP_EXP: return tpu_f32_exp(x);
    case OP_RCP: return tpu_f32_rcp(x);
    default:     return tpu_f32_rsqrt(x);
    }
}

// One cycle: check the result leaving the pipeline, then put x in (valid
// false: nothing enters).
void tr_cycle(Harness &h, TrPipe &p, bool valid, Op op, uint32_t x)
{
    Vrtl_fp_top &m = *h.top;
    unsigned slot = (unsigned)(p.cycle % kTrSteps);
    m.clk_i = 0;
    m.tr_en_i = valid;
    m.tr_fn_i = op == OP_EXP ? 0 : op == OP_RCP ? 1 : 2;
    m.tr_x_i = x;
    m.eval();
    if (p.cycle >= (uint64_t)kTrSteps && p.valid[slot]) {
        uint32_t rtl = m.tr_y_o, c = tr_c_model(p.op[slot], p.x[slot]);
        char buf[32];
        std::snprintf(buf, sizeof buf, "x=0x%08" PRIx32, p.x[slot]);
        record(h, p.op[slot], rtl == c, buf, rtl, c);
    }
    p.x[slot] = x;
    p.op[slot] = op;
    p.valid[slot] = valid;
    m.clk_i = 1;
    m.eval();
    p.cycle++;
}

// ---- special values --------------------------------------------------

// Positive fp32 specials; the list used is these and their negations.
const uint32_t kF32Special[] = {
    0x00000000, 0x00000001, 0x00000002, 0x00400000, 0x007fffff,  // zero, subnormals
    0x00800000, 0x00800001, 0x00800002, 0x00ffffff, 0x01000000,  // smallest normals
    0x01000001, 0x01800000, 0x0b800000,                          // 2^-126.. 2^-103
    0x1f800000, 0x1f800001, 0x1fffffff, 0x20000000, 0x20000001,  // around 2^-64, 2^-63
    0x207fffff, 0x1f7fffff,                                      //  (products near 2^-126)
    0x33000000, 0x33800000, 0x33800001, 0x34000000,              // 2^-25, 2^-24, 2^-23
    0x3effffff, 0x3f000000, 0x3f7fffff, 0x3f800000, 0x3f800001,  // 0.5, 1 and neighbours
    0x3f800002, 0x3f800003, 0x3fc00000, 0x3fffffff, 0x40000000,  // ties in 1 + 2^-24 ...
    0x40400000, 0x4b7fffff, 0x4b800000, 0x4b800001, 0x4c000000,  // 3, 2^24 (ties with 1)
    0x5f000000, 0x5f7fffff, 0x5f800000, 0x5f800001, 0x5fffffff,  // around 2^63, 2^64
    0x72ffffff, 0x73000000, 0x73000001, 0x73800000,              // half an ulp of max
    0x7effffff, 0x7f000000, 0x7f7ffffe, 0x7f7fffff,              // largest normals
    0x7f800000,                                                  // inf
    0x7f800001, 0x7fa00000, 0x7fbfffff, 0x7fc00000, 0x7fc00001,  // NaNs with payloads
    0x7fffffff,
};

// Positive bf16 specials; the list used is these and their negations.
const uint16_t kBf16Special[] = {
    0x0000, 0x0001, 0x0040, 0x007f,          // zero, subnormals
    0x0080, 0x0081, 0x00ff, 0x0100,          // smallest normals
    0x1f80, 0x1f81, 0x1fff, 0x2000, 0x2001,  // around 2^-64, 2^-63
    0x207f, 0x1f7f,
    0x3f00, 0x3f7f, 0x3f80, 0x3f81, 0x3fff,  // 0.5, 1 and neighbours
    0x4000, 0x4040, 0x4b80, 0x4c00,          // 2, 3, 2^24
    0x5f7f, 0x5f80, 0x5f81, 0x5fff,          // around 2^64 (products near max)
    0x7f00, 0x7f7e, 0x7f7f,                  // largest normals
    0x7f80,                                  // inf
    0x7f81, 0x7fa0, 0x7fbf, 0x7fc0, 0x7fc1, 0x7fff,  // NaNs with payloads
};

std::vector<uint32_t> f32_specials()
{
    std::vector<uint32_t> v;
    for (uint32_t s : kF32Special) {
        v.push_back(s);
        v.push_back(s | 0x80000000u);
    }
    return v;
}

std::vector<uint16_t> bf16_specials()
{
    std::vector<uint16_t> v;
    for (uint16_t s : kBf16Special) {
        v.push_back(s);
        v.push_back((uint16_t)(s | 0x8000u));
    }
    return v;
}

// ---- random operands -------------------------------------------------

// A normal fp32 with the given sign and biased exponent, random fraction.
uint32_t with_exp(Harness &h, uint32_t sign, uint32_t exp)
{
    return (sign << 31) | (exp << 23) | (rand32(h) & 0x7fffffu);
}

uint32_t random_special(Harness &h)
{
    const size_t n = sizeof kF32Special / sizeof kF32Special[0];
    return kF32Special[rand_below(h, (uint32_t)n)] | ((rand32(h) & 1u) << 31);
}

// A 24-bit significand (hidden bit included) with exactly `bits`
// significant bits: random, top and lowest of them set, zeros below.
uint32_t few_bits_man(Harness &h, uint32_t bits)
{
    uint32_t odd = (1u << (bits - 1)) | (rand32(h) & ((1u << (bits - 1)) - 1u)) | 1u;
    return odd << (24 - bits);
}

// Pack a sign, biased exponent (1..254) and 24-bit significand.
uint32_t pack(uint32_t sign, uint32_t exp, uint32_t man)
{
    return (sign << 31) | (exp << 23) | (man & 0x7fffffu);
}

// For mul: a biased exponent pair whose product's exponent before
// rounding (e_a + e_b - 127, + 1 if the significand product is >= 2) lands
// near the flush boundary (1), the overflow boundary (254) or anywhere.
void product_exps(Harness &h, uint32_t *ea, uint32_t *eb)
{
    uint32_t pick = rand_below(h, 3);
    int target = pick == 0 ? 127 + 1 : pick == 1 ? 127 + 254 : 127 + (int)rand_below(h, 254);
    *ea = 1u + rand_below(h, 254);
    int e = target - (int)*ea + (int)rand_below(h, 5) - 2;
    if (e < 1 || e > 254)
        e = 1 + (int)rand_below(h, 254);
    *eb = (uint32_t)e;
}

// The inverse of an odd x modulo 2^32 (Newton's iteration: each step
// doubles the number of correct low bits).
uint32_t odd_inverse(uint32_t x)
{
    uint32_t inv = x;                       // correct to 3 bits for odd x
    for (int i = 0; i < 4; i++)
        inv *= 2u - x * inv;
    return inv;
}

// Two significands whose product has the guard bit set and, below it, only
// bit 0: whether the product is a tie or above one rests on the lowest bit
// of the sticky OR.  Solves mb = low * ma^-1 mod 2^24 for a
// random odd ma, retrying until mb is a 24-bit significand.
void sticky_edge_mans(Harness &h, uint32_t *ma, uint32_t *mb)
{
    // Low 24 bits of the product: guard at bit 23 (leading one at bit 47)
    // or at bit 22 (leading one at 46, last kept bit 0 or 1), then only bit 0.
    static const uint32_t kLow[] = {0x800001, 0x400001, 0xc00001};
    uint32_t low = kLow[rand_below(h, sizeof kLow / sizeof kLow[0])];
    for (;;) {
        *ma = (1u << 23) | (rand32(h) & 0x7fffffu) | 1u;
        *mb = (low * odd_inverse(*ma)) & 0xffffffu;
        if (*mb >= (1u << 23))
            return;
    }
}

// Operands for mul, from a mix of cases.
void random_mul_pair(Harness &h, uint32_t *a, uint32_t *b)
{
    uint32_t kind = rand_below(h, 100);
    uint32_t sa = rand32(h) & 1u, sb = rand32(h) & 1u, ea, eb;
    *a = rand32(h);
    *b = rand32(h);
    if (kind < 30)                          // random bit patterns
        return;
    product_exps(h, &ea, &eb);
    if (kind < 45) {                        // random significands near the boundaries
        *a = with_exp(h, sa, ea);
        *b = with_exp(h, sb, eb);
    } else if (kind < 70) {
        // Significand product just below 2: 1.11..1 plus a guard bit, so
        // rounding carries into the exponent (rounding up to 2^-126, which
        // FTZ must still flush, or up to 2^128 = inf).
        uint32_t ma = (1u << 23) | (rand32(h) & 0x7fffffu);
        uint64_t two = UINT64_C(1) << 47;
        uint64_t mb = (two - 1) / ma - rand_below(h, 2);
        if (mb < (1u << 23) || mb >= (1u << 24))
            mb = (1u << 23) | (rand32(h) & 0x7fffffu);
        *a = pack(sa, ea, ma);
        *b = pack(sb, eb, (uint32_t)mb);
    } else if (kind < 78) {                 // the sticky bit decided by product bit 0
        uint32_t ma, mb;
        sticky_edge_mans(h, &ma, &mb);
        *a = pack(sa, ea, ma);
        *b = pack(sb, eb, mb);
    } else if (kind < 88) {
        // Significands with few bits whose product has 24..26 significant
        // bits: exact results, exact ties and near ties.
        uint32_t bits_a = 1u + rand_below(h, 24);
        uint32_t total = 25u + rand_below(h, 3);
        uint32_t bits_b = total > bits_a ? total - bits_a : 1u;
        if (bits_b > 24)
            bits_b = 24;
        *a = pack(sa, ea, few_bits_man(h, bits_a));
        *b = pack(sb, eb, few_bits_man(h, bits_b));
    } else {                                // a special against a random value
        *b = random_special(h);
        if (rand32(h) & 1u) {
            uint32_t t = *a;
            *a = *b;
            *b = t;
        }
    }
}

// Operands for add, sub and the comparisons, from a mix of cases.
void random_add_pair(Harness &h, uint32_t *a, uint32_t *b)
{
    uint32_t kind = rand_below(h, 100);
    uint32_t sa = rand32(h) & 1u, sb = rand32(h) & 1u;
    *a = rand32(h);
    if (kind < 30) {                        // random bit patterns
        *b = rand32(h);
    } else if (kind < 45) {                 // close exponents, either sign: cancellation
        uint32_t ea = (*a >> 23) & 0xffu;
        int eb = (int)ea + (int)rand_below(h, 5) - 2;
        if (eb < 0 || eb > 255)
            eb = (int)ea;
        *b = with_exp(h, sb, (uint32_t)eb);
    } else if (kind < 55) {                 // b = +-a nudged by a few ulps: massive cancellation
        *b = (*a ^ (sb << 31)) + (uint32_t)((int32_t)rand_below(h, 129) - 64);
    } else if (kind < 60) {                 // equal magnitudes (and equal values)
        *b = *a ^ (sb << 31);
    } else if (kind < 75) {                 // both tiny (around 2^-126) or both huge
        uint32_t base = (rand32(h) & 1u) ? 1u : 252u;
        *a = with_exp(h, sa, base + rand_below(h, 3));
        *b = with_exp(h, sb, base + rand_below(h, 3));
    } else if (kind < 90) {
        // b with few significant bits, 0..30 binades below a: the bits
        // shifted out hit the guard, round and sticky positions exactly,
        // giving exact ties and near ties.
        uint32_t ea = 1u + rand_below(h, 254);
        int eb = (int)ea - (int)rand_below(h, 31);
        if (eb < 1)
            eb = 1;
        *a = with_exp(h, sa, ea);
        *b = pack(sb, (uint32_t)eb, few_bits_man(h, 1u + rand_below(h, 24)));
        if (rand32(h) & 1u) {
            uint32_t t = *a;
            *a = *b;
            *b = t;
        }
    } else {                                // a special against a random value
        *b = random_special(h);
        if (rand32(h) & 1u) {
            uint32_t t = *a;
            *a = *b;
            *b = t;
        }
    }
}

// ---- the runs --------------------------------------------------------

void run_pairs(Harness &h, Op op, uint64_t count)
{
    std::vector<uint32_t> sp = f32_specials();
    for (uint32_t a : sp)
        for (uint32_t b : sp)
            check_pair(h, op, a, b);
    for (uint64_t i = 0; i < count; i++) {
        uint32_t a, b;
        if (op == OP_MUL)
            random_mul_pair(h, &a, &b);
        else
            random_add_pair(h, &a, &b);
        check_pair(h, op, a, b);
    }
}

// fp32 -> bf16: the specials, every upper half with the low halves that
// decide rounding (0, just below/at/above the tie, all ones, random), and
// random patterns.
void run_bf16(Harness &h, uint64_t count)
{
    for (uint32_t f : f32_specials())
        check_bf16(h, f);
    const uint32_t lows[] = {0x0000, 0x0001, 0x7fff, 0x8000, 0x8001, 0xffff};
    for (uint32_t upper = 0; upper < 0x10000u; upper++) {
        for (uint32_t low : lows)
            check_bf16(h, (upper << 16) | low);
        check_bf16(h, (upper << 16) | (rand32(h) & 0xffffu));
    }
    for (uint64_t i = 0; i < count; i++)
        check_bf16(h, rand32(h));
}

// The MAC: every (psum, x, w) triple of specials, every x against the
// special w, then random triples:
// random bits, psum cancelling the product, products near 2^-126 and max.
void run_mac(Harness &h, uint64_t count)
{
    std::vector<uint32_t> psums = f32_specials();
    std::vector<uint16_t> bfs = bf16_specials();
    for (uint32_t p : psums)
        for (uint16_t x : bfs)
            for (uint16_t w : bfs)
                check_mac(h, p, x, w);
    // Every bf16 x against every special w, psum +0 or -0: the product path
    // (an 8 x 8-bit multiplier in the RTL) over all of x.
    for (uint32_t x = 0; x < 0x10000u; x++)
        for (uint16_t w : bfs)
            check_mac(h, (x & 1u) << 31, (uint16_t)x, w);
    for (uint64_t i = 0; i < count; i++) {
        uint32_t kind = rand_below(h, 100);
        uint16_t x = (uint16_t)rand32(h), w = (uint16_t)rand32(h);
        uint32_t psum = rand32(h);
        if (kind < 40) {
            // random bits
        } else if (kind < 70) {             // psum = -(x * w) nudged: cancellation
            uint32_t p = tpu_f32_mul(tpu_f32_from_bf16(x), tpu_f32_from_bf16(w));
            psum = (p ^ 0x80000000u) + (uint32_t)((int32_t)rand_below(h, 65536) - 32768);
        } else if (kind < 90) {             // product near the flush or overflow boundary
            uint32_t target = (rand32(h) & 1u) ? 128u : 381u;
            uint32_t ex = 1u + rand_below(h, 254);
            int ew = (int)target - (int)ex + (int)rand_below(h, 5) - 2;
            if (ew < 1 || ew > 254)
                ew = 1 + (int)rand_below(h, 254);
            x = (uint16_t)((x & 0x807fu) | (ex << 7));
            w = (uint16_t)((w & 0x807fu) | ((uint32_t)ew << 7));
            if (rand32(h) & 1u)             // and psum tiny too
                psum = with_exp(h, rand32(h) & 1u, 1u + rand_below(h, 3));
        } else {                            // a special psum
            psum = random_special(h);
        }
        check_mac(h, psum, x, w);
    }
}

// The transcendentals: the specials, every exponent, exp's boundaries,
// then 4 * count random inputs per function, the functions interleaved
// (each stage sees all three).
void run_tr(Harness &h, uint64_t count)
{
    Vrtl_fp_top &m = *h.top;
    TrPipe p;
    for (int j = 0; j < kTrSteps; j++)
        p.valid[j] = false;
    m.clk_i = 0;
    m.rst_ni = 0;
    m.eval();
    m.rst_ni = 1;
    m.eval();
    const Op ops[] = {OP_EXP, OP_RCP, OP_RSQRT};
    std::vector<uint32_t> xs = f32_specials();
    for (uint32_t e = 0; e < 256; e++)
        for (uint32_t s = 0; s < 2; s++) {
            xs.push_back((s << 31) | (e << 23));
            xs.push_back((s << 31) | (e << 23) | 1u);
            xs.push_back((s << 31) | (e << 23) | 0x7fffffu);
            xs.push_back((s << 31) | (e << 23) | (rand32(h) & 0x7fffffu));
        }
    // exp: around the overflow (88.72) and flush (-87.34) thresholds, the
    // clamps (100, -104) and the halfway points of k = round(x / ln2)
    const uint32_t centres[] = {0x42b17218, 0xc2aeac50, 0x42c80000, 0xc2d00000,
                                0x3eb17218, 0xbeb17218, 0x3f851592, 0x42b0c0a5};
    for (uint32_t c : centres)
        for (int d = -300; d <= 300; d++)
            xs.push_back(c + (uint32_t)d);
    for (uint32_t x : xs)
        for (Op op : ops)
            tr_cycle(h, p, true, op, x);
    for (uint64_t i = 0; i < 4 * count; i++)
        for (Op op : ops) {
            uint32_t x = rand32(h);
            if (op == OP_EXP && (rand32(h) & 1u))      // |x| in [2^-27, 128): not clamped
                x = (x & 0x807fffffu) | ((100u + rand_below(h, 34)) << 23);
            tr_cycle(h, p, true, op, x);
        }
    for (int j = 0; j < kTrSteps; j++)                 // drain
        tr_cycle(h, p, false, OP_EXP, 0);
}

void usage(FILE *out)
{
    std::fprintf(out,
                 "usage: rtl-fp-test [--count N] [--seed S] [+PLUSARG...]\n"
                 "Compare the RTL fp units (rtl/fp32_add.v, fp32_mul.v, fp32_cmp.v,\n"
                 "bf16_round.v, mxu_mac.v, fp32_tr.v) with cmodel/fp.c bit for bit: every\n"
                 "pair of special values, then N random operand sets per operation (4N\n"
                 "inputs for each of exp, rcp, rsqrt).\n"
                 "  --count N  random operand sets per operation (default 1000000)\n"
                 "  --seed S   random seed (default 1)\n"
                 "  +mutant=ID select mutant ID of a build from tpu-mutate's sources\n"
                 "             (make mutants)\n"
                 "Exits 0 if every result matched, 1 on any mismatch, 2 on bad usage.\n");
}

bool parse_u64(const char *s, uint64_t *out)
{
    char *end = nullptr;
    if (*s == '\0' || *s == '-')
        return false;
    unsigned long long v = std::strtoull(s, &end, 0);
    if (*end != '\0')
        return false;
    *out = v;
    return true;
}

}  // namespace

int main(int argc, char **argv)
{
    uint64_t count = 1000000, seed = 1;
    std::vector<const char *> plusargs = { "rtl-fp-test" };  // and +mutant=ID (tpu-mutate)
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (!std::strcmp(arg, "--help") || !std::strcmp(arg, "-h")) {
            usage(stdout);
            return 0;
        }
        if (arg[0] == '+') {
            plusargs.push_back(arg);
            continue;
        }
        uint64_t *dst = !std::strcmp(arg, "--count") ? &count
                      : !std::strcmp(arg, "--seed") ? &seed : nullptr;
        if (!dst) {
            std::fprintf(stderr, "rtl-fp-test: error: unknown option '%s'\n", arg);
            usage(stderr);
            return 2;
        }
        if (i + 1 >= argc || !parse_u64(argv[i + 1], dst)) {
            std::fprintf(stderr, "rtl-fp-test: error: %s needs a non-negative number\n", arg);
            return 2;
        }
        i++;
    }

    Harness h;
    h.ctx.reset(new VerilatedContext);
    h.ctx->commandArgs((int)plusargs.size(), plusargs.data());
    h.top.reset(new Vrtl_fp_top(h.ctx.get()));
    h.rng = seed * UINT64_C(0x9e3779b97f4a7c15) + 1;  // never 0 (xorshift's fixed point)
    if (h.rng == 0)
        h.rng = 1;

    const Op pair_ops[] = {OP_ADD, OP_SUB, OP_MUL, OP_MAX, OP_MIN, OP_RELU, OP_CMPLT};
    for (Op op : pair_ops)
        run_pairs(h, op, count);
    run_bf16(h, count);
    run_mac(h, count);
    run_tr(h, count);
    h.top->final();

    uint64_t passed = 0, failed = 0;
    for (int op = 0; op < OP_COUNT; op++) {
        std::printf("rtl-fp: %-10s %10" PRIu64 " passed, %" PRIu64 " failed\n", kOpName[op],
                    h.tally[op].passed, h.tally[op].failed);
        passed += h.tally[op].passed;
        failed += h.tally[op].failed;
    }
    std::printf("rtl-fp: %" PRIu64 " passed, %" PRIu64 " failed\n", passed, failed);
    return failed ? 1 : 0;
}
