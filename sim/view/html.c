/*
 * html.c - `tpu-sim --html`: the run as a page that replays it (html.h).
 *
 * Per recorded cycle: a stepper that watches the run prints its status
 * line and `show units` into memory and hands over the messages of its
 * breakpoints (set on every unit event), the cells come from
 * tpu_core_mxu_cell() formatted as `show cell` formats them, the rest
 * from the sequencer's view, the probe and the counters.  All of it goes
 * into a vector of slots; the slots that changed since the cycle before
 * are written as one JSON array.  The VMEM writes come from the system's
 * events (on_event), VMEM before the first recorded cycle from its memory
 * (write_vmem_image); the program's listing is the object's text through
 * tpu_format_insn, as tpu-dis prints it (write_program).
 */
#include "html.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "isa.h"
#include "mxu_view.h"
#include "probe.h"
#include "stepper.h"

#include "html_page.h"      /* tpu_html_page[]: sim/view/html_page.html, by the Makefile */

#define PAGE_MARKER  "<!-- tpu-sim: the run's data goes here -->"
#define CHUNK_FRAMES 256          /* cycles per <script> chunk */
#define CELL_FIELDS  6            /* w, s, l, row, x, y */
#define NONE         (-1)         /* a field with nothing to show (no load, no multiply-add) */
#define NEW_NUMBER   (-2)         /* a cell's number seen for the first time: the next in NT */
#define UNSET        INT64_MIN    /* before the first recorded cycle: every slot differs */
#define VMEM_BLOCK   64           /* the image of VMEM: its non-zero blocks of this size */

/* The event kinds, in the order their breakpoints are set. */
enum { EV_MXU_START, EV_MXU_END, EV_DMA_DONE, EV_SEM, EV_KINDS };
static const char *const kind_names[EV_KINDS] = { "mxu-start", "mxu-end", "dma-done", "sem" };

/* The report's counters, then each unit's busy and stall cycles. */
static const char *const global_counters[] = {
    "instructions", "flops", "macs", "vpu_flops", "hbm_read_bytes", "hbm_write_bytes",
    "vmem_read_bytes", "vmem_write_bytes", "ici_bytes",
};
#define NGLOBAL (sizeof global_counters / sizeof global_counters[0])

/* ---- a growing buffer -------------------------------------------------------------- */

typedef struct buf {
    char *p;
    size_t n, cap;
    int oom;
} buf;

static void buf_put(buf *b, const char *s, size_t len)
{
    if (b->oom)
        return;
    if (b->n + len + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->n + len + 1)
            cap *= 2;
        char *p = realloc(b->p, cap);
        if (!p) {
            b->oom = 1;
            return;
        }
        b->p = p;
        b->cap = cap;
    }
    memcpy(b->p + b->n, s, len);
    b->n += len;
    b->p[b->n] = 0;
}

static void buf_str(buf *b, const char *s)
{
    buf_put(b, s, strlen(s));
}

static void buf_printf(buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void buf_printf(buf *b, const char *fmt, ...)
{
    char tmp[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n < sizeof tmp) {
        buf_put(b, tmp, (size_t)n);
        return;
    }
    char *big = malloc((size_t)n + 1);
    if (!big) {
        b->oom = 1;
        return;
    }
    va_start(ap, fmt);
    vsnprintf(big, (size_t)n + 1, fmt, ap);
    va_end(ap);
    buf_put(b, big, (size_t)n);
    free(big);
}

/* A JSON string that is safe inside <script>: '<' as \u003c. */
static void buf_json(buf *b, const char *s, size_t len)
{
    buf_put(b, "\"", 1);
    for (size_t i = 0; i < len; i++) {
        unsigned char ch = (unsigned char)s[i];
        if (ch == '"' || ch == '\\') {
            char e[2] = { '\\', (char)ch };
            buf_put(b, e, 2);
        } else if (ch < 0x20 || ch == '<' || ch == 0x7f) {
            buf_printf(b, "\\u%04x", ch);
        } else {
            buf_put(b, (const char *)&ch, 1);
        }
    }
    buf_put(b, "\"", 1);
}

/* Bytes as base64 in a JSON string (the page decodes them with atob()). */
static void buf_b64(buf *b, const uint8_t *p, uint64_t n)
{
    static const char digits[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    char out[4 * 48];
    size_t k = 0;
    buf_put(b, "\"", 1);
    for (uint64_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)p[i] << 16;
        if (i + 1 < n)
            v |= (uint32_t)p[i + 1] << 8;
        if (i + 2 < n)
            v |= p[i + 2];
        out[k++] = digits[v >> 18];
        out[k++] = digits[(v >> 12) & 63];
        out[k++] = i + 1 < n ? digits[(v >> 6) & 63] : '=';
        out[k++] = i + 2 < n ? digits[v & 63] : '=';
        if (k == sizeof out) {
            buf_put(b, out, k);
            k = 0;
        }
    }
    buf_put(b, out, k);
    buf_put(b, "\"", 1);
}

static void buf_free(buf *b)
{
    free(b->p);
    memset(b, 0, sizeof *b);
}

/* ---- tables: each number and each text once --------------------------------------- */

/* Open addressing, a power-of-two size at most half full; slot value = index + 1. */
typedef struct table {
    uint32_t *hash;         /* index + 1 of the entry, 0 free */
    size_t size, n, cap;
    uint32_t *bits;         /* numbers: the fp32 bit pattern */
    char **text;            /* numbers: as `show cell` prints them; texts: the text */
    uint64_t bytes;         /* about what the table takes in the page */
} table;

static uint64_t mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ull;
    x ^= x >> 33;
    return x;
}

static uint64_t text_hash(const char *s, size_t len)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < len; i++)
        h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
    return mix(h);
}

static int table_grow(table *t, int numbers)
{
    if (t->n + 1 > t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 256;
        char **text = realloc(t->text, cap * sizeof *text);
        if (!text)
            return -1;
        t->text = text;
        if (numbers) {
            uint32_t *bits = realloc(t->bits, cap * sizeof *bits);
            if (!bits)
                return -1;
            t->bits = bits;
        }
        t->cap = cap;
    }
    if (2 * (t->n + 1) > t->size) {
        size_t size = t->size ? 2 * t->size : 512;
        uint32_t *h = calloc(size, sizeof *h);
        if (!h)
            return -1;
        for (size_t i = 0; i < t->n; i++) {
            uint64_t k = numbers ? mix(t->bits[i]) : text_hash(t->text[i], strlen(t->text[i]));
            size_t j = (size_t)k & (size - 1);
            while (h[j])
                j = (j + 1) & (size - 1);
            h[j] = (uint32_t)(i + 1);
        }
        free(t->hash);
        t->hash = h;
        t->size = size;
    }
    return 0;
}

/* The fp32 bits of a number's text read back (0 for "nan", "inf", "-inf"):
 * NB holds each number's bits less these, a small number, since the text
 * has five digits (the page reads the text back the same way: bits()). */
static uint32_t text_bits(const char *text)
{
    double d = strtod(text, NULL);
    if (!isfinite(d))
        return 0;
    float f = (float)d;
    uint32_t b;
    memcpy(&b, &f, sizeof b);
    return b;
}

/* The index of fp32 pattern `bits` (a bf16 is its upper half), or -1 when
 * out of memory. */
static int64_t number_index(table *t, uint32_t bits)
{
    if (t->size) {
        size_t j = (size_t)mix(bits) & (t->size - 1);
        for (; t->hash[j]; j = (j + 1) & (t->size - 1))
            if (t->bits[t->hash[j] - 1] == bits)
                return t->hash[j] - 1;
    }
    if (table_grow(t, 1))
        return -1;
    char num[32];
    tpu_fmt_f32(bits, num, sizeof num);
    char *copy = malloc(strlen(num) + 1);
    if (!copy)
        return -1;
    strcpy(copy, num);
    size_t j = (size_t)mix(bits) & (t->size - 1);
    while (t->hash[j])
        j = (j + 1) & (t->size - 1);
    t->bits[t->n] = bits;
    t->text[t->n] = copy;
    char nb[24];                                /* "text", and its number in NB */
    t->bytes += strlen(copy) + 3 +
                (uint64_t)snprintf(nb, sizeof nb, "%" PRId64 ",",
                                   (int64_t)bits - (int64_t)text_bits(copy));
    t->hash[j] = (uint32_t)(++t->n);
    return (int64_t)t->n - 1;
}

/* The index of a text of len bytes, or -1 when out of memory. */
static int64_t text_index(table *t, const char *s, size_t len)
{
    uint64_t k = text_hash(s, len);
    if (t->size) {
        size_t j = (size_t)k & (t->size - 1);
        for (; t->hash[j]; j = (j + 1) & (t->size - 1)) {
            const char *e = t->text[t->hash[j] - 1];
            if (strlen(e) == len && !memcmp(e, s, len))
                return t->hash[j] - 1;
        }
    }
    if (table_grow(t, 0))
        return -1;
    char *copy = malloc(len + 1);
    if (!copy)
        return -1;
    memcpy(copy, s, len);
    copy[len] = 0;
    size_t j = (size_t)k & (t->size - 1);
    while (t->hash[j])
        j = (j + 1) & (t->size - 1);
    t->text[t->n] = copy;
    t->bytes += len + 3;
    t->hash[j] = (uint32_t)(++t->n);
    return (int64_t)t->n - 1;
}

static void table_free(table *t)
{
    for (size_t i = 0; i < t->n; i++)
        free(t->text[i]);
    free(t->text);
    free(t->bits);
    free(t->hash);
    memset(t, 0, sizeof *t);
}

/* ---- the writer ---------------------------------------------------------------------- */

struct tpu_html {
    tpu_html_opts o;
    tpu_system *s;
    FILE *f;
    char *path;
    tpu_stepper *st;            /* watches the run: the status line, units, events */
    FILE *null;                 /* the stepper's output between cycles */
    unsigned bp_first;          /* id of the first of its breakpoints */
    unsigned next_bp;           /* the id its next breakpoint gets */
    int armed;                  /* the breakpoints are set (arm()) */

    unsigned n, nmxu, ndma, nunits, ncores;
    size_t nslots;              /* the layout of the slots: */
    size_t off_units, off_status, off_sreg, off_sem, off_queue, off_dma, off_pc, off_ctr, nctr;
    int64_t *prev, *cur;
    int64_t next_new;           /* numbers written so far (NEW_NUMBER gives the next) */

    table nums, texts;
    buf chunk, events;          /* frames and events not yet written */
    unsigned chunk_frames;
    uint64_t written;           /* bytes of data written so far */

    uint64_t first, count;      /* the cycles recorded */
    int watching;               /* tpu_html_before() started this cycle's stepper work */
    int done;                   /* past the window or the budget: nothing more recorded */
    int truncated;              /* the budget stopped it */
    int oom, closed;
    enum tpu_stop last;         /* what the last step returned */

    buf vw;                     /* VMEM writes not yet written: cycle, unit, address, bytes */
    size_t vw_cycle;            /* where the writes of the cycle being recorded start in vw */
    int vimage;                 /* the image of VMEM at the first recorded cycle was taken */
    uint64_t vbytes;            /* VMEM bytes recorded: the image and the writes */
    uint64_t vimage_bytes;      /* of which the image */
    uint64_t vwrites;           /* writes recorded */
    uint64_t vcycle;            /* the cycle of the last one (VW holds the gaps) */
    uint64_t vstop;             /* the first cycle whose writes are missing, or UINT64_MAX */
};

static void set_err(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void set_err(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

/* The template's lines before the marker (part 0) or after it (part 1). */
static void write_page(FILE *f, int part)
{
    int in = part == 0;
    for (const char *const *l = tpu_html_page; *l; l++) {
        if (!strncmp(*l, PAGE_MARKER, strlen(PAGE_MARKER))) {
            in = !in;
            continue;
        }
        if (in)
            fputs(*l, f);
    }
}

/* The VMEM byte budget is spent: the writes of `cycle` (those recorded
 * already are taken back) and of the cycles after are left out. */
static void vmem_stop(tpu_html *h, uint64_t cycle)
{
    h->vstop = cycle;
    h->vw.n = h->vw_cycle;
}

/* Core 0's VMEM writes while a cycle is recorded (at the end of the
 * cycle, with the bytes written). */
static void on_event(void *ctx, const tpu_event *ev)
{
    tpu_html *h = ctx;
    if (!h->watching || ev->core != 0)
        return;
    if (ev->kind != TPU_EV_MEM_WRITE || ev->space != TPU_SPACE_VMEM || h->vstop != UINT64_MAX ||
        !ev->len)
        return;
    if (ev->len > h->o.vmem_max_bytes - h->vbytes) {
        vmem_stop(h, ev->cycle);
        return;
    }
    h->vbytes += ev->len;
    h->vwrites++;
    buf_printf(&h->vw, "%" PRIu64 ",%u,%" PRIu64 ",", ev->cycle - h->vcycle, (unsigned)ev->unit,
               ev->addr);
    h->vcycle = ev->cycle;
    buf_b64(&h->vw, ev->data, ev->len);
    buf_put(&h->vw, ",", 1);
}

tpu_html *tpu_html_open(const char *path, tpu_system *s, const tpu_html_opts *o, char *err,
                        size_t errlen)
{
    tpu_html *h = calloc(1, sizeof *h);
    if (!h) {
        set_err(err, errlen, "out of memory");
        return NULL;
    }
    h->o = *o;
    if (!h->o.max_bytes)
        h->o.max_bytes = TPU_HTML_DEFAULT_MAX_BYTES;
    if (!h->o.vmem_max_bytes)
        h->o.vmem_max_bytes = TPU_HTML_DEFAULT_VMEM_BYTES;
    h->vstop = UINT64_MAX;
    h->s = s;
    h->last = TPU_RUNNING;
    const tpu_config *cfg = o->cfg;
    h->n = (unsigned)cfg->mxu_n;
    h->nmxu = (unsigned)cfg->num_mxu;
    h->ncores = tpu_system_ncores(s);
    tpu_probe p;
    tpu_probe_core(tpu_system_core(s, 0), tpu_system_cycle(s), &p);
    h->ndma = p.ndma;
    h->nunits = 5 + h->nmxu;                        /* seq, dma, mxu0.., vpu, ici, xlu */

    h->off_units = (size_t)h->nmxu * h->n * h->n * CELL_FIELDS;
    h->off_status = h->off_units + h->nunits;
    h->off_sreg = h->off_status + 1;
    h->off_sem = h->off_sreg + 2 * TPU_NUM_SREGS;  /* value, and its text when not exact in JS */
    h->off_queue = h->off_sem + TPU_NUM_SEMS;
    h->off_dma = h->off_queue + 4 + h->nmxu;        /* dma, vpu, ici, mxu0.., xlu */
    h->off_pc = h->off_dma + 3 * (size_t)h->ndma;   /* state, bytes left, bytes in all */
    h->off_ctr = h->off_pc + 1;                     /* the sequencer's pc after the cycle */
    h->nctr = NGLOBAL + 2 * (size_t)h->nunits;
    h->nslots = h->off_ctr + h->nctr;
    h->prev = malloc(h->nslots * sizeof *h->prev);
    h->cur = malloc(h->nslots * sizeof *h->cur);
    h->path = malloc(strlen(path) + 1);
    h->null = fopen("/dev/null", "w");
    if (!h->prev || !h->cur || !h->path || !h->null) {
        set_err(err, errlen, "out of memory");
        tpu_html_free(h);
        return NULL;
    }
    strcpy(h->path, path);
    for (size_t i = 0; i < h->nslots; i++)
        h->prev[i] = i < h->off_ctr ? UNSET : 0;

    h->f = fopen(path, "w");
    if (!h->f) {
        set_err(err, errlen, "%s: %s", path, strerror(errno));
        tpu_html_free(h);
        return NULL;
    }
    tpu_stepper_opts so = { .sys = s, .obj = o->obj, .cfg = cfg, .program = o->program,
                            .out = h->null };
    h->next_bp = 1;             /* a new stepper numbers its breakpoints from 1 */
    h->st = tpu_stepper_create(&so, err, errlen);
    if (!h->st) {
        fclose(h->f);
        h->f = NULL;
        remove(path);
        tpu_html_free(h);
        return NULL;
    }
    if (tpu_system_subscribe(s, 1u << TPU_EV_MEM_WRITE, on_event, h)) {
        set_err(err, errlen, "too many event subscribers for --html");
        fclose(h->f);
        h->f = NULL;
        remove(path);
        tpu_html_free(h);
        return NULL;
    }
    write_page(h->f, 0);
    return h;
}

/* The unit events are the messages of the stepper's breakpoints, set on
 * them while the page records (outside the window nobody reads them). */
static void arm(tpu_html *h)
{
    static const char *const breaks[] = { "break mxu-start", "break mxu-end", "break dma-done" };
    if (h->armed)
        return;
    h->armed = 1;
    h->bp_first = h->next_bp;
    for (unsigned i = 0; i < 3; i++)
        tpu_stepper_exec(h->st, breaks[i]);
    for (unsigned i = 0; i < TPU_NUM_SEMS; i++) {
        char cmd[32];
        snprintf(cmd, sizeof cmd, "break sem %u", i);
        tpu_stepper_exec(h->st, cmd);
    }
    h->next_bp += 3 + TPU_NUM_SEMS;
}

/* Recording is over: the window, the budget or memory ended it. */
static void stop_recording(tpu_html *h)
{
    h->done = 1;
    if (h->armed)
        tpu_stepper_exec(h->st, "delete");
    h->armed = 0;
}

static int block_nonzero(const uint8_t *p, uint64_t n)
{
    uint64_t acc = 0, i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, p + i, 8);
        acc |= w;
    }
    for (; i < n; i++)
        acc |= p[i];
    return acc != 0;
}

/* VMEM as the first recorded cycle starts: its non-zero blocks, as runs
 * (address, base64 bytes) on V0; the rest is zero.  When they pass the
 * VMEM byte budget, none is written and the page has no VMEM view. */
static void write_vmem_image(tpu_html *h)
{
    h->vimage = 1;
    uint64_t base = 0, size = 0;
    const uint8_t *m = tpu_mem_ptr(tpu_system_core(h->s, 0), TPU_SPACE_VMEM, 0, &base, &size);
    buf b = { 0 };
    uint64_t run = UINT64_MAX;                  /* the start of the run of non-zero blocks */
    for (uint64_t at = 0; m; at += VMEM_BLOCK) {
        int end = at >= size;
        int nonzero = !end && block_nonzero(m + at, size - at < VMEM_BLOCK ? size - at : VMEM_BLOCK);
        if (nonzero && run == UINT64_MAX) {
            run = at;
        } else if (!nonzero && run != UINT64_MAX) {
            uint64_t len = (end ? size : at) - run;
            if (len > h->o.vmem_max_bytes - h->vbytes) {
                vmem_stop(h, tpu_system_cycle(h->s));
                h->vbytes = 0;
                break;
            }
            buf_printf(&b, "%s%" PRIu64 ",", b.n ? "," : "", run);
            buf_b64(&b, m + run, len);
            h->vbytes += len;
            run = UINT64_MAX;
        }
        if (end)
            break;
    }
    if (b.oom)
        h->oom = 1;
    if (h->vstop == UINT64_MAX && b.n) {
        fputs("<script>V0.push(", h->f);
        fwrite(b.p, 1, b.n, h->f);
        fputs(");</script>\n", h->f);
        h->written += b.n + 30;
    }
    h->vimage_bytes = h->vbytes;
    buf_free(&b);
}

void tpu_html_before(tpu_html *h)
{
    if (!h)
        return;
    h->watching = 0;
    if (h->done || h->closed)
        return;
    uint64_t c = tpu_system_cycle(h->s);
    if (c < h->o.first)
        return;
    if (h->o.end && c >= h->o.end) {
        stop_recording(h);
        return;
    }
    arm(h);
    if (!h->vimage)
        write_vmem_image(h);
    tpu_stepper_before_step(h->st);
    h->vw_cycle = h->vw.n;
    h->watching = 1;
}

/* Write the frames and events gathered so far as one <script>. */
static void flush_chunk(tpu_html *h)
{
    if (!h->chunk_frames)
        return;
    fputs("<script>F.push(", h->f);
    fwrite(h->chunk.p, 1, h->chunk.n - 1, h->f);         /* without the last ',' */
    fputs(");", h->f);
    h->written += h->chunk.n + 12;
    if (h->events.n) {
        fputs("E.push(", h->f);
        fwrite(h->events.p, 1, h->events.n - 1, h->f);
        fputs(");", h->f);
        h->written += h->events.n + 8;
    }
    if (h->vw.n) {
        fputs("VW.push(", h->f);
        fwrite(h->vw.p, 1, h->vw.n - 1, h->f);
        fputs(");", h->f);
        h->written += h->vw.n + 9;
    }
    fputs("</script>\n", h->f);
    h->chunk.n = 0;
    h->events.n = 0;
    h->vw.n = 0;
    h->vw_cycle = 0;
    h->chunk_frames = 0;
}

/* Store a text's index in slot i. */
static void put_text(tpu_html *h, size_t i, const char *s, size_t len)
{
    int64_t k = text_index(&h->texts, s, len);
    if (k < 0)
        h->oom = 1;
    h->cur[i] = k;
}

static void put_number(tpu_html *h, size_t i, uint32_t bits)
{
    int64_t k = number_index(&h->nums, bits);
    if (k < 0)
        h->oom = 1;
    h->cur[i] = k;
}

/* The stepper's status line (without "cycle N: ") and `show units` lines
 * (without their indent), and the messages of its breakpoints as events. */
static void record_texts(tpu_html *h, uint64_t cycle)
{
    char *text = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&text, &len);
    if (!m) {
        h->oom = 1;
        return;
    }
    tpu_stepper_set_output(h->st, m);
    tpu_stepper_print_status(h->st);
    tpu_stepper_print_units(h->st);
    tpu_stepper_set_output(h->st, h->null);
    if (fclose(m) || !text) {
        free(text);
        h->oom = 1;
        return;
    }
    char *line = text;
    for (unsigned k = 0; line < text + len; k++) {
        char *eol = strchr(line, '\n');
        size_t n = eol ? (size_t)(eol - line) : strlen(line);
        if (k == 0) {                               /* "[core 0: ]cycle N: ..." */
            const char *p = strstr(line, "cycle ");
            if (p && p < line + n && p[6] >= '0' && p[6] <= '9') {
                p += 6;
                while (*p >= '0' && *p <= '9')
                    p++;
                p = p[0] == ':' && p[1] == ' ' ? p + 2 : line;
            } else {
                p = line;
            }
            put_text(h, h->off_status, p, n - (size_t)(p - line));
        } else if (k >= 2 && k - 2 < h->nunits) {   /* after "units in cycle N:" */
            const char *p = line;
            while (p < line + n && *p == ' ')
                p++;
            put_text(h, h->off_units + (k - 2), p, n - (size_t)(p - line));
        }
        if (!eol)
            break;
        line = eol + 1;
    }
    free(text);

    const char *hits;
    size_t nh = tpu_stepper_hits(h->st, &hits);
    for (size_t i = 0; i < nh;) {
        const char *eol = memchr(hits + i, '\n', nh - i);
        size_t end = eol ? (size_t)(eol - hits) : nh;
        const char *l = hits + i, *colon = memchr(l, ':', end - i);
        unsigned long id = strncmp(l, "breakpoint ", 11) ? 0 : strtoul(l + 11, NULL, 10);
        if (colon && id >= h->bp_first && colon + 2 <= hits + end) {
            unsigned kind = id - h->bp_first < EV_SEM ? (unsigned)(id - h->bp_first) : EV_SEM;
            int64_t k = text_index(&h->texts, colon + 2, (size_t)(hits + end - colon - 2));
            if (k < 0)
                h->oom = 1;
            else
                buf_printf(&h->events, "%" PRIu64 ",%u,%" PRId64 ",", cycle, kind, k);
        }
        i = end + 1;
    }
}

/* The slots of the cycle just computed, in h->cur. */
static void record_state(tpu_html *h, uint64_t cycle)
{
    tpu_core *c = tpu_system_core(h->s, 0);
    size_t i = 0;
    for (unsigned m = 0; m < h->nmxu; m++)
        for (unsigned r = 0; r < h->n; r++)
            for (unsigned col = 0; col < h->n; col++, i += CELL_FIELDS) {
                tpu_cell_view v;
                memset(&v, 0, sizeof v);
                tpu_core_mxu_cell(c, m, r, col, &v);
                put_number(h, i, (uint32_t)v.weight << 16);
                put_number(h, i + 1, (uint32_t)v.shadow << 16);
                if (v.loading)
                    put_number(h, i + 2, (uint32_t)v.chain << 16);
                else
                    h->cur[i + 2] = NONE;
                if (v.active) {
                    h->cur[i + 3] = (int64_t)cycle - v.row;     /* constant along a stream */
                    put_number(h, i + 4, (uint32_t)v.x << 16);
                    put_number(h, i + 5, v.psum);
                } else {
                    h->cur[i + 3] = h->cur[i + 4] = h->cur[i + 5] = NONE;
                }
            }

    record_texts(h, cycle);

    tpu_seq_view sv;
    tpu_core_seq_view(c, &sv);
    for (unsigned r = 0; r < TPU_NUM_SREGS; r++) {
        /* a number while the page's doubles hold it exactly, else its text */
        int64_t v = sv.sreg[r], big = INT64_C(1) << 53;
        size_t i = h->off_sreg + 2 * r;
        if (v > -big && v < big) {
            h->cur[i] = v;
            h->cur[i + 1] = NONE;
        } else {
            char t[32];
            int n = snprintf(t, sizeof t, "%" PRId64, v);
            h->cur[i] = 0;
            put_text(h, i + 1, t, (size_t)n);
        }
    }
    for (unsigned k = 0; k < TPU_NUM_SEMS; k++)
        h->cur[h->off_sem + k] = sv.sem[k];

    tpu_probe p;
    tpu_probe_core(c, tpu_system_cycle(h->s), &p);
    h->cur[h->off_queue] = p.q_dma;
    h->cur[h->off_queue + 1] = p.q_vpu;
    h->cur[h->off_queue + 2] = p.q_ici;
    for (unsigned m = 0; m < h->nmxu; m++)
        h->cur[h->off_queue + 3 + m] = m < 4 ? p.q_mxu[m] : 0;
    h->cur[h->off_queue + 3 + h->nmxu] = p.q_xlu;
    for (unsigned e = 0; e < h->ndma; e++) {
        h->cur[h->off_dma + 3 * e] = p.dma[e].state;
        h->cur[h->off_dma + 3 * e + 1] = (int64_t)p.dma[e].left;
        h->cur[h->off_dma + 3 * e + 2] = (int64_t)p.dma[e].total;
    }
    h->cur[h->off_pc] = (int64_t)sv.pc;

    tpu_stats st;
    tpu_core_stats(c, &st);
    const uint64_t g[NGLOBAL] = { st.instructions, st.flops, st.macs, st.vpu_flops,
                                  st.hbm_read_bytes, st.hbm_write_bytes, st.vmem_read_bytes,
                                  st.vmem_write_bytes, st.ici_bytes };
    size_t k = h->off_ctr;
    for (size_t j = 0; j < NGLOBAL; j++)
        h->cur[k++] = (int64_t)g[j];
    for (unsigned u = 0; u < TPU_U_COUNT; u++) {
        if (u >= TPU_U_MXU0 && u <= TPU_U_MXU3 && u - TPU_U_MXU0 >= h->nmxu)
            continue;
        h->cur[k++] = (int64_t)st.unit[u].busy_cycles;
        h->cur[k++] = (int64_t)st.unit[u].stall_cycles;
    }
}

/* The pc a status line says was issued ("issued pc N ..."), or -1. */
static int64_t status_issued(const char *t)
{
    if (strncmp(t, "issued pc ", 10) || t[10] < '0' || t[10] > '9')
        return -1;
    return strtoll(t + 10, NULL, 10);
}

void tpu_html_cycle(tpu_html *h, enum tpu_stop r)
{
    if (!h || h->closed)
        return;
    h->last = r;
    if (!h->watching)
        return;
    h->watching = 0;
    tpu_stepper_after_step(h->st, r);
    uint64_t cycle = tpu_system_cycle(h->s) - 1;
    if (!h->count)
        h->first = cycle;
    record_state(h, cycle);
    if (h->oom || h->chunk.oom || h->events.oom || h->vw.oom) {
        h->oom = 1;
        stop_recording(h);
        return;
    }

    /* The guess, which the page makes too (apply() in html_page.html):
     * each activation moved one cell to the right (T22), so a cell holds
     * the x its left neighbour held in the cycle before; and a cell with
     * an x made a partial sum never seen before, the next number of the
     * table; and the sequencer's pc went on by one after an issue.  Then
     * the slots that differ from the guess, in order, as (gap, value)
     * pairs; the counters as increments. */
    for (unsigned m = 0; m < h->nmxu; m++)
        for (unsigned r = 0; r < h->n; r++) {
            int64_t *row = h->prev + ((size_t)m * h->n + r) * h->n * CELL_FIELDS;
            for (unsigned col = h->n - 1; col > 0; col--)
                row[(size_t)col * CELL_FIELDS + 4] = row[(size_t)(col - 1) * CELL_FIELDS + 4];
        }
    /* The sequencer's pc: after a cycle that issued pc N (its status line
     * says "issued pc N"), N + 1; else where it was. */
    int64_t st = h->cur[h->off_status];
    int64_t ip = st >= 0 ? status_issued(h->texts.text[st]) : -1;
    if (ip >= 0)
        h->prev[h->off_pc] = ip + 1;
    buf_put(&h->chunk, "[", 1);
    size_t last = (size_t)-1;
    int any = 0;
    for (size_t i = 0; i < h->nslots; i++) {
        int64_t v = h->cur[i];
        int cell = i < h->off_units;
        if (cell && i % CELL_FIELDS == 5 && h->cur[i - 1] != NONE) {
            if (v == h->next_new) {         /* as guessed: a new partial sum */
                h->next_new++;
                h->prev[i] = v;
                continue;
            }
        } else if (v == h->prev[i]) {
            continue;
        }
        if (i >= h->off_ctr) {
            v -= h->prev[i];
        } else if (cell && i % CELL_FIELDS != 3 && v == h->next_new) {
            v = NEW_NUMBER;         /* the numbers enter the table in the slots' order */
            h->next_new++;
        }
        buf_printf(&h->chunk, "%s%zu,%" PRId64, any ? "," : "", i - last - 1, v);
        any = 1;
        last = i;
        h->prev[i] = h->cur[i];
    }
    buf_put(&h->chunk, "],", 2);
    h->count++;
    h->chunk_frames++;
    if (h->chunk_frames == CHUNK_FRAMES || h->chunk.n > (1u << 20))
        flush_chunk(h);
    if (h->written + h->chunk.n + h->events.n + h->vw.n + h->nums.bytes + h->texts.bytes >
        h->o.max_bytes) {
        flush_chunk(h);
        stop_recording(h);
        h->truncated = 1;
    }
}

static void json_texts(FILE *f, const table *t)
{
    buf b = { 0 };
    buf_put(&b, "[", 1);
    for (size_t i = 0; i < t->n; i++) {
        if (i)
            buf_put(&b, ",", 1);
        buf_json(&b, t->text[i], strlen(t->text[i]));
        if (b.n > (1u << 16)) {
            fwrite(b.p, 1, b.n, f);
            b.n = 0;
        }
    }
    buf_put(&b, "]", 1);
    if (b.p)
        fwrite(b.p, 1, b.n, f);
    buf_free(&b);
}

/* The run's facts and the layout of the slots, for the page's script. */
static void write_meta(tpu_html *h)
{
    buf b = { 0 };
    const tpu_config *cfg = h->o.cfg;
    const char *prog = h->o.program ? h->o.program : "";
    buf_str(&b, "var META={\"program\":");
    buf_json(&b, prog, strlen(prog));
    buf_str(&b, ",\"config\":");
    buf_json(&b, cfg->name, strlen(cfg->name));
    buf_printf(&b, ",\"clock_hz\":%.17g,\"n\":%u,\"nmxu\":%u,\"ndma\":%u,\"ncores\":%u,"
               "\"first\":%" PRIu64 ",\"count\":%" PRIu64 ",\"window\":[%" PRIu64 ",",
               cfg->clock_hz, h->n, h->nmxu, h->ndma, h->ncores, h->first, h->count,
               h->o.first);
    if (h->o.end)
        buf_printf(&b, "%" PRIu64 "]", h->o.end);
    else
        buf_str(&b, "null]");
    buf_printf(&b, ",\"truncated\":%s,\"max_bytes\":%" PRIu64 ",\"cycles\":%" PRIu64
               ",\"stop\":\"%s\",\"error\":", h->truncated ? "true" : "false", h->o.max_bytes,
               tpu_system_cycle(h->s),
               h->last == TPU_STOP_HALT ? "halt" : h->last == TPU_STOP_ERROR ? "error"
                                                                           : "stopped");
    const char *e = tpu_system_error(h->s);
    buf_json(&b, e ? e : "", e ? strlen(e) : 0);
    buf_str(&b, h->oom ? ",\"oom\":true" : ",\"oom\":false");
    buf_str(&b, ",\"units\":[");
    for (unsigned u = 0, k = 0; u < TPU_U_COUNT; u++) {
        if (u >= TPU_U_MXU0 && u <= TPU_U_MXU3 && u - TPU_U_MXU0 >= h->nmxu)
            continue;
        buf_printf(&b, "%s\"%s\"", k++ ? "," : "", tpu_unit_id_name((enum tpu_unit_id)u));
    }
    buf_str(&b, "],\"queues\":[\"dma\",\"vpu\",\"ici\"");
    for (unsigned m = 0; m < h->nmxu; m++)
        buf_printf(&b, ",\"mxu%u\"", m);
    buf_str(&b, ",\"xlu\"],\"counters\":[");
    for (size_t j = 0; j < NGLOBAL; j++)
        buf_printf(&b, "%s\"%s\"", j ? "," : "", global_counters[j]);
    for (unsigned u = 0; u < TPU_U_COUNT; u++) {
        if (u >= TPU_U_MXU0 && u <= TPU_U_MXU3 && u - TPU_U_MXU0 >= h->nmxu)
            continue;
        const char *name = tpu_unit_id_name((enum tpu_unit_id)u);
        buf_printf(&b, ",\"%s busy\",\"%s stall\"", name, name);
    }
    buf_str(&b, "],\"sreg_names\":[");
    for (unsigned r = 0; r < TPU_NUM_SREGS; r++)     /* as `info regs` names them */
        buf_printf(&b, r == TPU_SREG_ZERO ? "%s\"zero\"" : r == TPU_SREG_CID ? "%s\"cid\""
                                                                               : "%s\"s%u\"",
                   r ? "," : "", r);
    buf_str(&b, "],\"kinds\":[");
    for (unsigned k = 0; k < EV_KINDS; k++)
        buf_printf(&b, "%s\"%s\"", k ? "," : "", kind_names[k]);
    buf_str(&b, "],\"wunits\":[");                  /* the units of the VMEM writes, by id */
    for (unsigned u = 0; u < TPU_U_COUNT; u++)
        buf_printf(&b, "%s\"%s\"", u ? "," : "", tpu_unit_id_name((enum tpu_unit_id)u));
    buf_printf(&b, "],\"vmem\":{\"size\":%" PRIu64 ",\"max_bytes\":%" PRIu64 ",\"bytes\":%" PRIu64
               ",\"image_bytes\":%" PRIu64 ",\"writes\":%" PRIu64 ",\"stop\":",
               h->o.cfg->vmem_bytes, h->o.vmem_max_bytes, h->vbytes, h->vimage_bytes, h->vwrites);
    if (h->vstop == UINT64_MAX)
        buf_str(&b, "null");
    else
        buf_printf(&b, "%" PRIu64, h->vstop);
    buf_printf(&b, "},\"layout\":{\"cells\":0,\"units\":%zu,\"status\":%zu,\"sreg\":%zu,"
               "\"sem\":%zu,\"queue\":%zu,\"dma\":%zu,\"pc\":%zu,\"ctr\":%zu,\"nslots\":%zu}};\n",
               h->off_units, h->off_status, h->off_sreg, h->off_sem, h->off_queue, h->off_dma,
               h->off_pc, h->off_ctr, h->nslots);
    if (b.p)
        fwrite(b.p, 1, b.n, h->f);
    if (b.oom)
        h->oom = 1;
    buf_free(&b);
}

/* Symbols of one space, by (value, name). */
static int sym_cmp(const void *a, const void *b)
{
    const tpu_obj_symbol *x = *(const tpu_obj_symbol *const *)a, *y = *(const tpu_obj_symbol *const *)b;
    if (x->value != y->value)
        return x->value < y->value ? -1 : 1;
    return strcmp(x->name, y->name);
}

typedef struct code_labels {
    const tpu_obj_symbol **s;
    size_t n;
} code_labels;

/* The first label (by name) at text index `target`, for branch operands. */
static const char *code_label(void *ctx, uint64_t target)
{
    const code_labels *l = ctx;
    size_t lo = 0, hi = l->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (l->s[mid]->value < target)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < l->n && l->s[lo]->value == target ? l->s[lo]->name : NULL;
}

/* The bytes a VMEM label names: up to the next VMEM label or the end of
 * the data record it is in, whichever is first (0: nothing known), and
 * how its data looks ("bf16", "f32", "hex"): from a .random record, else
 * fp32. */
static uint64_t vmem_label_extent(const tpu_object *o, const tpu_obj_symbol *const *v, size_t nv,
                                  size_t i, const char **fmt)
{
    uint64_t at = v[i]->value, end = 0;
    *fmt = "f32";
    for (size_t c = 0; c < o->nchunks; c++) {
        const tpu_obj_chunk *ch = &o->chunks[c];
        if (ch->space == TPU_SPACE_VMEM && at >= ch->addr && at - ch->addr < ch->size) {
            end = ch->addr + ch->size;
            if (ch->rec == TPU_REC_FILL && ch->fill == TPU_FILL_RANDOM_BF16)
                *fmt = "bf16";
            else if (ch->rec == TPU_REC_FILL && ch->fill == TPU_FILL_RANDOM_I8)
                *fmt = "hex";
        }
    }
    for (size_t j = i + 1; j < nv; j++)
        if (v[j]->value > at) {
            if (!end || v[j]->value < end)
                end = v[j]->value;
            break;
        }
    return end > at ? end - at : 0;
}

/* The program: its instructions as tpu-dis prints them (tpu_format_insn,
 * branch targets by label), its code labels and its VMEM labels. */
static void write_program(tpu_html *h)
{
    const tpu_object *o = h->o.obj;
    size_t nsyms = o ? o->nsyms : 0, nc = 0, nv = 0;
    const tpu_obj_symbol **code = malloc((nsyms + 1) * sizeof *code);
    const tpu_obj_symbol **vm = malloc((nsyms + 1) * sizeof *vm);
    buf b = { 0 };
    if (!code || !vm) {
        free(code);
        free(vm);
        h->oom = 1;
        fputs("var PROG={\"insns\":[],\"labels\":[],\"vlabels\":[]};\n", h->f);
        return;
    }
    for (size_t i = 0; i < nsyms; i++) {
        if (o->syms[i].space == TPU_SPACE_IMEM)
            code[nc++] = &o->syms[i];
        else if (o->syms[i].space == TPU_SPACE_VMEM)
            vm[nv++] = &o->syms[i];
    }
    qsort(code, nc, sizeof *code, sym_cmp);
    qsort(vm, nv, sizeof *vm, sym_cmp);
    code_labels cl = { code, nc };
    buf_str(&b, "var PROG={\"insns\":[");
    for (size_t pc = 0; o && pc < o->ntext; pc++) {
        char line[256];
        tpu_insn in;
        const char *why = "";
        if (tpu_decode(o->text[pc], &in, &why) == 0)
            tpu_format_insn(&in, line, sizeof line, code_label, &cl);
        else
            snprintf(line, sizeof line, ".insn 0x%016" PRIx64 " (illegal: %s)", o->text[pc], why);
        if (pc)
            buf_put(&b, ",", 1);
        buf_json(&b, line, strlen(line));
        if (b.n > (1u << 16)) {
            fwrite(b.p, 1, b.n, h->f);
            b.n = 0;
        }
    }
    buf_str(&b, "],\"labels\":[");
    for (size_t i = 0; i < nc; i++) {
        buf_printf(&b, "%s[%" PRIu64 ",", i ? "," : "", code[i]->value);
        buf_json(&b, code[i]->name, strlen(code[i]->name));
        buf_put(&b, "]", 1);
    }
    buf_str(&b, "],\"vlabels\":[");
    for (size_t i = 0; i < nv; i++) {
        const char *fmt;
        uint64_t len = vmem_label_extent(o, vm, nv, i, &fmt);
        buf_printf(&b, "%s[", i ? "," : "");
        buf_json(&b, vm[i]->name, strlen(vm[i]->name));
        buf_printf(&b, ",%" PRIu64 ",%" PRIu64 ",\"%s\"]", vm[i]->value, len, fmt);
    }
    buf_str(&b, "]};\n");
    if (b.p)
        fwrite(b.p, 1, b.n, h->f);
    if (b.oom)
        h->oom = 1;
    buf_free(&b);
    free(code);
    free(vm);
}

int tpu_html_close(tpu_html *h, char *err, size_t errlen)
{
    if (!h || h->closed)
        return 0;
    h->closed = 1;
    h->done = 1;
    flush_chunk(h);
    fputs("<script>\n", h->f);
    write_meta(h);
    fputs("var NT=", h->f);
    json_texts(h->f, &h->nums);
    fputs(";\nvar NB=[", h->f);
    for (size_t i = 0; i < h->nums.n; i++)
        fprintf(h->f, "%s%" PRId64, i ? "," : "",
                (int64_t)h->nums.bits[i] - (int64_t)text_bits(h->nums.text[i]));
    fputs("];\nvar ST=", h->f);
    json_texts(h->f, &h->texts);
    fputs(";\n", h->f);
    write_program(h);
    fputs("</script>\n", h->f);
    write_page(h->f, 1);
    int bad = ferror(h->f);
    if (fclose(h->f))
        bad = 1;
    h->f = NULL;
    if (bad) {
        set_err(err, errlen, "%s: writing the page failed", h->path);
        return -1;
    }
    if (h->oom) {
        set_err(err, errlen, "%s: out of memory: the page ends where memory ran out", h->path);
        return -1;
    }
    return 0;
}

uint64_t tpu_html_cycles(const tpu_html *h)
{
    return h ? h->count : 0;
}

uint64_t tpu_html_first(const tpu_html *h)
{
    return h ? h->first : 0;
}

int tpu_html_truncated(const tpu_html *h)
{
    return h ? h->truncated : 0;
}

uint64_t tpu_html_vmem_stop(const tpu_html *h)
{
    return h ? h->vstop : UINT64_MAX;
}

void tpu_html_free(tpu_html *h)
{
    if (!h)
        return;
    if (h->f)
        fclose(h->f);
    tpu_stepper_destroy(h->st);
    if (h->null)
        fclose(h->null);
    table_free(&h->nums);
    table_free(&h->texts);
    buf_free(&h->chunk);
    buf_free(&h->events);
    buf_free(&h->vw);
    free(h->prev);
    free(h->cur);
    free(h->path);
    free(h);
}
