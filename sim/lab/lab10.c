/*
 * lab10.c - lab 10: shard a transformer MLP across 4 chips and beat a
 * baseline (docs/labs/10-shard-mlp.md).  The student hands in a design for
 * tpu-gen ffn-shard (programs/labs/10-shard-mlp.cfg): three lines `shard =`,
 * `reduce =` and `overlap =`, and three answers on where the time goes
 * ("# answer: exposed = ...", "ici_bytes", "hide").  The file is only read
 * as those words: the grader checks each value against a short list, plans
 * the design with the kernel generator (kgen_shard.c) in this process,
 * writes the program itself (nothing of the file reaches it) and runs it on
 * a ring of 4 v5e cores of the C model:
 *   - with data at T 1024, D 128, F 512: every core's stages bit for bit
 *     (the program's own .expect records) and core 0's whole result the C
 *     reference's in the design's order of the sum;
 *   - timing only at T 1024, D 512, F 2048 (the same cycles as with data,
 *     tests/shard.sh): the design, its --part compute twin (the exposed
 *     communication), the baseline (the starter) and the reference design.
 */
#include "labs.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "kgen_shard.h"
#include "run.h"

#define LAB10_MACHINE "v5e"
#define LAB10_CORES 4
#define LAB10_T 1024
#define LAB10_D 512          /* the timed shape */
#define LAB10_F 2048
#define LAB10_SD 128         /* the checked shape */
#define LAB10_SF 512
#define LAB10_BEST 1.03
#define LAB10_MAX_CYCLES 2000000
#define LAB10_VALUE 16       /* the longest value a key takes */

const lab_check lab10_checks[] = {
    { "config", 1, "the design names a sharding, a reduction and an overlap (shard, reduce, "
      "overlap) that tpu-gen ffn-shard can plan on the ring of 4 at both of the lab's shapes",
      "the starter's three lines: shard = F_X|tp|B_X|dp, reduce = a2a|ring, overlap = yes|no; "
      "tpu-gen ffn-shard --config v5e -T 1024 -D 512 -F 2048 --mesh 4 ... says why a design "
      "does not plan" },
    { "result", 2, "with data (T 1024, D 128, F 512) on the ring of 4 v5e cores: every core's "
      "stages bit for bit and core 0's O^T the C reference's, in the design's order of the sum",
      "tpu-gen ffn-shard ... -D 128 -F 512 --ref ref.npy, tpu-as -I programs, tpu-sim --cores 4 "
      "--dump O0=o0.npy: the first check that fails (docs/transformers.md, 'Sharded across chips')" },
    { "faster", 2, "fewer cycles at T 1024, D 512, F 2048 than the baseline (the starter: F_X, "
      "reduce a2a, no overlap)",
      "tpu-gen's per-op report: which op takes the time, and how many chunks the AllToAll puts "
      "on a link against the ring's ReduceScatter" },
    { "best", 2, "within 103% of the cycles of the lab's reference design",
      "the exposed communication: what runs while the ICI sends (tpu-gen --overlap, the "
      "collective matmul; docs/transformers.md)" },
    { "exposed", 1, "'# answer: exposed = N': your design's cycles minus its --part compute "
      "twin's (within 2%)",
      "run your design at T 1024, D 512, F 2048 with --timing-only and again with --part compute: "
      "the difference of tpu-sim's cycles" },
    { "ici_bytes", 1, "'# answer: ici_bytes = N': the bytes core 0 sends on the ICI in your design "
      "(exact)",
      "tpu-sim's 'ici bytes' line for core 0 at T 1024, D 512, F 2048" },
    { "hide", 1, "'# answer: hide = yes|no': can the AllReduce hide under the two GEMMs at this "
      "shape, by the book's rule?",
      "F / tp against 2 (n-1)/n C / W_ici (tpu-gen's report prints both; the book's "
      "'Sharded matrices' chapter)" },
    { 0 },
};

/* A design as the student's file gives it. */
typedef struct {
    char shard[LAB10_VALUE + 1];
    int ring, overlap;
} lab10_design;

/* Is the byte one a config line may hold (printable ASCII or a tab)? */
static int plain(unsigned char c)
{
    return c == '\t' || (c >= 0x20 && c < 0x7f);
}

/* The design from the file's text: `key = value` lines, # comments; every
 * key once, each value one of a short list.  0, or -1 with err (which
 * quotes at most a few characters of the file, never other files). */
static int parse_design(const char *text, size_t len, lab10_design *d, char *err, size_t errlen)
{
    int have[3] = { 0, 0, 0 };
    static const char *const keys[3] = { "shard", "reduce", "overlap" };
    memset(d, 0, sizeof *d);
    const char *p = text, *end = text + len;
    unsigned line = 0;
    while (p < end) {
        const char *eol = memchr(p, '\n', (size_t)(end - p));
        if (!eol)
            eol = end;
        line++;
        const char *e = eol;
        for (const char *q = p; q < eol; q++)
            if (*q == '#') {
                e = q;
                break;
            }
        for (const char *q = p; q < e; q++)
            if (!plain((unsigned char)*q) && !(*q == '\r' && q + 1 == e)) {
                snprintf(err, errlen, "line %u: a byte that is not plain text (0x%02x)", line,
                         (unsigned char)*q);
                return -1;
            }
        while (p < e && isspace((unsigned char)*p))
            p++;
        while (e > p && isspace((unsigned char)e[-1]))
            e--;
        if (p == e) {
            p = eol + 1;
            continue;
        }
        const char *eq = memchr(p, '=', (size_t)(e - p));
        if (!eq) {
            snprintf(err, errlen, "line %u: expected 'key = value' (the keys: shard, reduce, overlap)",
                     line);
            return -1;
        }
        const char *ke = eq, *v = eq + 1;
        while (ke > p && isspace((unsigned char)ke[-1]))
            ke--;
        while (v < e && isspace((unsigned char)*v))
            v++;
        size_t kl = (size_t)(ke - p), vl = (size_t)(e - v);
        int k = -1;
        for (int i = 0; i < 3; i++)
            if (kl == strlen(keys[i]) && !strncmp(p, keys[i], kl))
                k = i;
        if (k < 0) {
            snprintf(err, errlen, "line %u: unknown key '%.*s'%s (the keys: shard, reduce, overlap)", line,
                     (int)(kl > 24 ? 24 : kl), p, kl > 24 ? "..." : "");
            return -1;
        }
        if (have[k]++) {
            snprintf(err, errlen, "line %u: %s is given twice", line, keys[k]);
            return -1;
        }
        if (!vl || vl > LAB10_VALUE) {
            snprintf(err, errlen, "line %u: %s needs a value of 1 to %d characters", line, keys[k],
                     LAB10_VALUE);
            return -1;
        }
        char val[LAB10_VALUE + 1];
        memcpy(val, v, vl);
        val[vl] = 0;
        if (k == 0) {
            if (strcmp(val, "F_X") && strcmp(val, "tp") && strcmp(val, "B_X") && strcmp(val, "dp")) {
                snprintf(err, errlen, "line %u: shard = %s: on a ring of 4 the lab takes F_X (tp) or "
                         "B_X (dp)", line, val);
                return -1;
            }
            memcpy(d->shard, val, vl + 1);
        } else if (k == 1) {
            if (strcmp(val, "a2a") && strcmp(val, "ring")) {
                snprintf(err, errlen, "line %u: reduce = %s: a2a or ring", line, val);
                return -1;
            }
            d->ring = !strcmp(val, "ring");
        } else {
            if (!strcmp(val, "yes") || !strcmp(val, "1"))
                d->overlap = 1;
            else if (strcmp(val, "no") && strcmp(val, "0")) {
                snprintf(err, errlen, "line %u: overlap = %s: yes or no", line, val);
                return -1;
            }
        }
        p = eol + 1;
    }
    for (int i = 0; i < 3; i++)
        if (!have[i]) {
            snprintf(err, errlen, "no '%s = ...' line", keys[i]);
            return -1;
        }
    if (d->overlap && !d->ring) {
        snprintf(err, errlen, "overlap = yes sums in the ring's order: it needs reduce = ring");
        return -1;
    }
    return 0;
}

/* Plan the design at T x D x F; 0, or -1 with err. */
static int plan(const tpu_config *cfg, const lab10_design *d, uint64_t dd, uint64_t f, int timing,
                int part, kgen_shard *s, char *err, size_t errlen)
{
    memset(s, 0, sizeof *s);
    s->t = LAB10_T, s->d = dd, s->f = f;
    s->rows = 1, s->cols = LAB10_CORES, s->torus = 0;
    s->ring = d->ring, s->overlap = d->overlap, s->timing_only = timing, s->part = part;
    if (kgen_shard_spec(s, d->shard, err, errlen))
        return -1;
    if (s->overlap)
        s->ring = 1;
    return kgen_shard_plan(cfg, s, err, errlen);
}

/* What a run gave. */
typedef struct {
    int ok;                  /* halted, every check passed */
    uint64_t cycles, ici_bytes;
    char why[400];
} lab10_run;

/* Write the planned program, assemble it (the lab's own text: lib/ring.inc
 * from the programs folder), run it on the ring and, with data, check it
 * and compare core 0's result with the C reference.  0, or -1 when the
 * lab's own machinery failed (g->internal) or Ctrl-C (g->interrupted). */
static int run(lab_grade *g, const tpu_config *cfg, const kgen_shard *s, lab10_run *out)
{
    memset(out, 0, sizeof *out);
    char *src = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&src, &len);
    if (!f) {
        lab_internal(g, "out of memory");
        return -1;
    }
    long n = kgen_shard_emit(f, LAB10_MACHINE, cfg, s);
    if (fclose(f) || n < 0) {
        free(src);
        lab_internal(g, "out of memory writing the program");
        return -1;
    }
    if ((uint64_t)n > cfg->imem_words) {
        free(src);
        snprintf(out->why, sizeof out->why, "the program has %ld instructions, IMEM holds %llu", n,
                 (unsigned long long)cfg->imem_words);
        return 0;
    }
    const char *dirs[1] = { g->env->programs };
    tpu_asm_options ao = { .config = cfg, .allow_include = 1, .include_dirs = dirs, .ninclude_dirs = 1 };
    tpu_system_opts so = { .cores = LAB10_CORES, .topology = TPU_TOPO_RING };
    tpu_run r = { .cfg = cfg, .system = &so, .check = !s->timing_only,
                  .limits = { .max_cycles = LAB10_MAX_CYCLES, .interruptible = 1 } };
    tpu_run_init(&r);
    int rc = 0;
    if (tpu_run_assemble(&r, src, len, "ffn-shard.s", &ao) || tpu_run_load(&r)) {
        lab_internal(g, "the generated program: %s", r.error);
        rc = -1;
        goto done;
    }
    tpu_run_go(&r);
    out->cycles = r.cycles;
    out->ici_bytes = r.stats.ici_bytes;
    switch (r.end) {
    case TPU_RUN_INTERRUPTED:
        g->interrupted = 1;
        lab_stop(g, "interrupted");
        rc = -1;
        goto done;
    case TPU_RUN_HALT:
        break;
    default:
        snprintf(out->why, sizeof out->why, "the run stopped: %.300s", r.error);
        goto done;
    }
    if (!s->timing_only) {
        if (r.expect.status == TPU_EXPECT_MISMATCH || r.expect.status == TPU_EXPECT_ERROR) {
            snprintf(out->why, sizeof out->why, "%.380s", r.expect.message);
            goto done;
        }
        uint64_t cnt = s->d * s->l.t, differ, ulp;
        uint32_t *want = malloc(cnt * 4), *got = malloc(cnt * 4);
        if (!want || !got || kgen_shard_reference(s, want, &differ, &ulp)) {
            free(want);
            free(got);
            lab_internal(g, "out of memory for the reference");
            rc = -1;
            goto done;
        }
        uint64_t at = s->tp > 1 ? s->h_o : s->l.g2.h_y;
        int bad = tpu_mem_read(tpu_system_core(r.sys, 0), TPU_SPACE_HBM, at, got, cnt * 4) != 0;
        uint64_t i = 0;
        while (!bad && i < cnt && got[i] == want[i])
            i++;
        if (bad || i < cnt)
            snprintf(out->why, sizeof out->why, "core 0's O^T[%llu][%llu] is 0x%08x, the reference's 0x%08x",
                     (unsigned long long)(i / s->l.t), (unsigned long long)(i % s->l.t), bad ? 0 : got[i],
                     bad ? 0 : want[i]);
        free(want);
        free(got);
        if (bad || i < cnt)
            goto done;
    }
    out->ok = 1;
done:
    tpu_run_free(&r);
    free(src);
    return rc;
}

/* F_X and tp, B_X and dp are the same sharding on the ring */
static int same_design(const lab10_design *a, const lab10_design *b)
{
    int fa = a->shard[0] == 'F' || a->shard[0] == 't', fb = b->shard[0] == 'F' || b->shard[0] == 't';
    return fa == fb && a->ring == b->ring && a->overlap == b->overlap;
}

/* The lab's own design (the starter or the reference) timed at the big shape: the student's
 * run `mine` when it is the same design. */
static int own(lab_grade *g, const tpu_config *cfg, const char *file, const lab10_design *d,
               const lab10_run *mine, lab10_run *out)
{
    size_t len;
    char *text = lab_read_program(g, file, &len), err[400];
    if (!text)
        return -1;
    lab10_design o;
    kgen_shard s;
    int rc = parse_design(text, len, &o, err, sizeof err);
    free(text);
    if (rc || plan(cfg, &o, LAB10_D, LAB10_F, 1, KGEN_SHARD_ALL, &s, err, sizeof err)) {
        lab_internal(g, "the lab's own %s: %s", file, err);
        return -1;
    }
    if (same_design(&o, d)) {
        *out = *mine;
        return 0;
    }
    if (run(g, cfg, &s, out))
        return -1;
    if (!out->ok) {
        lab_internal(g, "the lab's own %s: %s", file, out->why);
        return -1;
    }
    return 0;
}

void lab10_grade(lab_grade *g)
{
    tpu_config cfg;
    char err[800];
    if (lab_machine(g, LAB10_MACHINE, NULL, 0, &cfg))
        return;
    lab10_design d;
    kgen_shard small, big, comp;
    if (parse_design(g->text, g->len, &d, err, sizeof err)) {
        lab_fail(g, "config", "%s", err);
        lab_stop(g, "the design does not read");
        return;
    }
    if (plan(&cfg, &d, LAB10_SD, LAB10_SF, 0, KGEN_SHARD_ALL, &small, err, sizeof err)
        || plan(&cfg, &d, LAB10_D, LAB10_F, 1, KGEN_SHARD_ALL, &big, err, sizeof err)) {
        lab_fail(g, "config", "tpu-gen ffn-shard cannot plan it: %.300s", err);
        lab_stop(g, "the design does not plan on the ring of 4");
        return;
    }
    lab_pass(g, "config", "shard %s, reduce %s, overlap %s", d.shard, big.ring ? "ring" : "a2a",
             d.overlap ? "yes" : "no");

    lab10_run rs, rb, rc, base, ref;
    if (run(g, &cfg, &small, &rs))
        return;
    if (!lab_verdict(g, "result", rs.ok, "%s", rs.ok ? "every core bit-exact, core 0's O^T the reference's"
                                                        : rs.why)) {
        lab_stop(g, "the design's result is wrong");
        return;
    }
    lab_measure(g, "result", rs.cycles, 0);
    if (run(g, &cfg, &big, &rb))
        return;
    if (!rb.ok) {
        lab_fail(g, "faster", "%s", rb.why);
        lab_stop(g, "the timed run failed");
        return;
    }
    if (own(g, &cfg, g->lab->starter, &d, &rb, &base) || own(g, &cfg, g->lab->solution, &d, &rb, &ref))
        return;
    uint64_t c = rb.cycles;
    lab_measure(g, "faster", c, 0);
    lab_measure(g, "best", c, (double)ref.cycles);
    lab_verdict(g, "faster", c < base.cycles, "%llu cycles, the baseline %llu", (unsigned long long)c,
                (unsigned long long)base.cycles);
    lab_verdict(g, "best", (double)c <= LAB10_BEST * (double)ref.cycles,
                "%llu cycles, %.1f%% of the reference design's %llu", (unsigned long long)c,
                100.0 * (double)c / (double)ref.cycles, (unsigned long long)ref.cycles);

    /* the answers: the exposed communication needs the compute-only twin */
    if (big.tp > 1) {
        if (plan(&cfg, &d, LAB10_D, LAB10_F, 1, KGEN_SHARD_COMPUTE, &comp, err, sizeof err)) {
            lab_internal(g, "--part compute: %s", err);
            return;
        }
        if (run(g, &cfg, &comp, &rc))
            return;
        if (!rc.ok) {
            lab_internal(g, "--part compute: %s", rc.why);
            return;
        }
    } else {
        rc = rb;
    }
    double exposed = rb.cycles > rc.cycles ? (double)(rb.cycles - rc.cycles) : 0;
    lab_check_num(g, "exposed", "exposed", exposed, 1, 0.02);
    lab_check_num(g, "ici_bytes", "ici_bytes", (double)rb.ici_bytes, 0, 0);
    /* the book's rule: T_math of both GEMMs against the AllReduce's 2 (n-1)/n V / W_bidir */
    double peak = lab_peak(&cfg), w = cfg.ici_bw / cfg.clock_hz, n = LAB10_CORES;
    double tm = 4.0 * LAB10_T * LAB10_D * (LAB10_F / n) / peak;
    double tici = 2.0 * (n - 1) / n * (4.0 * LAB10_T * LAB10_D) / (2.0 * w);
    lab_check_word(g, "hide", "hide", tm >= tici ? "yes" : "no");
}
