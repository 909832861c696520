/*
 * asm_include.c - `.include "FILE"`: the included files' lines replace the
 * directive's line, before anything else looks at the source.
 *
 * The expansion makes one buffer of all the lines, and a map from each of
 * its lines to the file and line it came from, so that every message names
 * the place in the file the user wrote (asm_where).  The .include line
 * itself stays in the buffer as an empty line, so that a message about the
 * directive (file not found, nested too deeply) has a line to point at.
 *
 * A file named with a relative path is looked for next to the file that
 * includes it, then in each -I directory in order.  Limits: nesting 16
 * deep, no file including itself (directly or not), regular files only,
 * and the whole expanded source at most TPU_ASM_MAX_SOURCE bytes.
 *
 * In the sandbox (tpu_asm_options.include_sandbox, for tpu-lab) the names
 * are checked before anything is opened: relative, no '..', and each
 * component looked at with lstat() from the sandbox's folder down, so a
 * symbolic link is refused rather than followed.  Only files inside the
 * folder are ever opened or stat'ed, so a submission cannot read, nor
 * learn the existence of, any file of the grading machine.
 */
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "asm_impl.h"

typedef struct expander {
    asm_ctx *a;
    char *out;              /* the expanded source */
    size_t len, cap;
    const char *stack[TPU_ASM_MAX_INCLUDE_DEPTH + 1];   /* the files being read */
    const char *rel[TPU_ASM_MAX_INCLUDE_DEPTH + 1]; /* sandbox: their names inside the root */
    unsigned depth;
} expander;

static int grow(expander *e, size_t more)
{
    if (e->len + more <= e->cap)
        return 0;
    size_t cap = e->cap ? e->cap : 4096;
    while (cap < e->len + more)
        cap *= 2;
    char *p = realloc(e->out, cap);
    if (!p) {
        asm_oom(e->a);
        return -1;
    }
    e->out = p;
    e->cap = cap;
    return 0;
}

/* A new line of the expanded source: from file `file`, line `line`. */
static int map_line(asm_ctx *a, uint32_t file, uint32_t line)
{
    if (a->nlmap == a->lmapcap) {
        size_t cap = a->lmapcap ? a->lmapcap * 2 : 256;
        asm_linemap *m = realloc(a->lmap, cap * sizeof *m);
        if (!m) {
            asm_oom(a);
            return -1;
        }
        a->lmap = m;
        a->lmapcap = cap;
    }
    a->lmap[a->nlmap++] = (asm_linemap){ file, line };
    return 0;
}

static int add_file_name(asm_ctx *a, const char *name, uint32_t *idx)
{
    if (a->nfiles == a->filecap) {
        size_t cap = a->filecap ? a->filecap * 2 : 8;
        char **f = realloc(a->files, cap * sizeof *f);
        if (!f) {
            asm_oom(a);
            return -1;
        }
        a->files = f;
        a->filecap = cap;
    }
    char *copy = strdup(name);
    if (!copy) {
        asm_oom(a);
        return -1;
    }
    a->files[a->nfiles] = copy;
    *idx = (uint32_t)a->nfiles++;
    return 0;
}

/* Read a regular file whole: 0, -1 with errno-like text in why.  Opened
 * without blocking (a FIFO would wait for a writer forever) and, in the
 * sandbox, without following a last symbolic link. */
static int read_file(const char *path, int nofollow, size_t limit, char **data, size_t *len,
                     const char **why)
{
    struct stat st;
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | (nofollow ? O_NOFOLLOW : 0));
    FILE *f = fd >= 0 ? fdopen(fd, "rb") : NULL;
    if (!f) {
        *why = strerror(errno);
        if (fd >= 0)
            close(fd);
        return -1;
    }
    if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) {
        fclose(f);
        *why = "not a regular file";
        return -1;
    }
    if ((uint64_t)st.st_size > limit) {
        fclose(f);
        *why = "the expanded source would be too large";
        return -1;
    }
    size_t n = (size_t)st.st_size;
    char *buf = malloc(n ? n : 1);
    if (!buf || fread(buf, 1, n, f) != n) {
        free(buf);
        fclose(f);
        *why = buf ? "read error" : "out of memory";
        return -1;
    }
    fclose(f);
    *data = buf;
    *len = n;
    return 0;
}

/* The directory part of path ("" for none), in buf. */
static void dir_of(const char *path, char *buf, size_t bufsz)
{
    const char *slash = strrchr(path, '/');
    size_t n = slash ? (size_t)(slash - path) + 1 : 0;
    if (n >= bufsz)
        n = 0;
    memcpy(buf, path, n);
    buf[n] = '\0';
}

/* Find `name` for a file included by `from`: 0 and the path in buf. */
static int resolve(const asm_ctx *a, const char *from, const char *name, char *buf, size_t bufsz)
{
    struct stat st;
    if (name[0] == '/') {
        snprintf(buf, bufsz, "%s", name);
        return stat(buf, &st) == 0 ? 0 : -1;
    }
    char dir[1024];
    dir_of(from, dir, sizeof dir);
    if ((size_t)snprintf(buf, bufsz, "%s%s", dir, name) < bufsz && stat(buf, &st) == 0)
        return 0;
    for (size_t k = 0; k < a->opt->ninclude_dirs; k++) {
        const char *d = a->opt->include_dirs[k];
        size_t dl = strlen(d);
        if ((size_t)snprintf(buf, bufsz, "%s%s%s", d, dl && d[dl - 1] == '/' ? "" : "/", name) <
                bufsz &&
            stat(buf, &st) == 0)
            return 0;
    }
    return -1;
}

/* Sandbox: check `name`, included by the file whose name inside the root
 * is `from_rel`, and find it: 0 with the path in buf and its name inside
 * the root in rel (malloc'd), or -1 with the reason in why.  Nothing
 * outside the root is looked at. */
static int sandbox_resolve(const asm_ctx *a, const char *from_rel, const char *name, char *buf,
                           size_t bufsz, char **rel, const char **why)
{
    const char *root = a->opt->include_root;
    if (!root) {
        *why = "a submission of one file may not include other files (hand in a folder)";
        return -1;
    }
    if (name[0] == '/') {
        *why = "a submission may include only files inside its own folder (not an absolute path)";
        return -1;
    }
    for (const char *c = name; *c;) {
        size_t n = strcspn(c, "/");
        if (n == 2 && c[0] == '.' && c[1] == '.') {
            *why = "a submission may include only files inside its own folder (no '..')";
            return -1;
        }
        c += n;
        c += *c == '/';
    }
    char dir[1024];
    dir_of(from_rel, dir, sizeof dir);
    size_t rl = strlen(root);
    const char *sep = rl && root[rl - 1] == '/' ? "" : "/";
    if ((size_t)snprintf(buf, bufsz, "%s%s%s%s", root, sep, dir, name) >= bufsz) {
        *why = "the name is too long";
        return -1;
    }
    /* lstat every component below the root, the root's own path trusted */
    size_t start = rl + strlen(sep), end = strlen(buf);
    for (size_t i = start; i <= end; i++) {
        if (i < end && buf[i] != '/')
            continue;
        if (i == start || buf[i - 1] == '/')
            continue;                         /* an empty component: "a//b" */
        char save = buf[i];
        buf[i] = '\0';
        struct stat st;
        int rc = lstat(buf, &st);
        buf[i] = save;
        if (rc != 0) {
            *why = strerror(errno);
            return -1;
        }
        if (S_ISLNK(st.st_mode)) {
            *why = "a symbolic link (a submission may include only its own regular files)";
            return -1;
        }
        if (i < end && !S_ISDIR(st.st_mode)) {
            *why = strerror(ENOTDIR);
            return -1;
        }
        if (i == end && !S_ISREG(st.st_mode)) {
            *why = "not a regular file (a submission may include only its own regular files)";
            return -1;
        }
    }
    size_t dl = strlen(dir), nl = strlen(name);
    *rel = malloc(dl + nl + 1);
    if (!*rel) {
        *why = "out of memory";
        return -1;
    }
    memcpy(*rel, dir, dl);
    memcpy(*rel + dl, name, nl + 1);
    return 0;
}

static int expand(expander *e, const char *src, size_t len, uint32_t file);

/* The .include at expanded line `at` (column col) names the file in tok. */
static int include_file(expander *e, const asm_tok *tok, uint32_t at, uint32_t col)
{
    asm_ctx *a = e->a;
    char name[1024], path[2048], b[ASM_CLIP_BUF];
    asm_string_text(tok, name, sizeof name);
    if (name[0] == '\0') {
        asm_error_at(a, at, col, "'.include' needs a file name");
        return 0;
    }
    if (!a->opt->allow_include) {
        asm_error_at(a, at, col, "'.include' is not available here (the source was not read "
                     "from a file)");
        return 0;
    }
    if (e->depth >= TPU_ASM_MAX_INCLUDE_DEPTH) {
        asm_error_at(a, at, col, "'.include' nested too deeply (at most %d levels)",
                     TPU_ASM_MAX_INCLUDE_DEPTH);
        return 0;
    }
    char *rel = NULL;
    const char *why;
    if (a->opt->include_sandbox) {
        if (sandbox_resolve(a, e->rel[e->depth], name, path, sizeof path, &rel, &why) < 0) {
            asm_error_at(a, at, col, "cannot include '%s': %s",
                         asm_clip(b, sizeof b, name, strlen(name)), why);
            return 0;
        }
    } else if (resolve(a, e->stack[e->depth], name, path, sizeof path) < 0) {
        asm_error_at(a, at, col, "cannot find '%s' (looked next to %s%s)",
                     asm_clip(b, sizeof b, name, strlen(name)), e->stack[e->depth],
                     a->opt->ninclude_dirs ? " and in the -I directories" : "");
        return 0;
    }
    for (unsigned k = 0; k <= e->depth; k++)
        if (strcmp(e->stack[k], path) == 0) {
            asm_error_at(a, at, col, "'%s' includes itself", asm_clip(b, sizeof b, path,
                                                                     strlen(path)));
            free(rel);
            return 0;
        }
    char *data;
    size_t n;
    if (read_file(path, a->opt->include_sandbox, TPU_ASM_MAX_SOURCE - e->len, &data, &n, &why)
        < 0) {
        asm_error_at(a, at, col, "cannot read '%s': %s", asm_clip(b, sizeof b, path,
                                                                   strlen(path)), why);
        free(rel);
        return 0;
    }
    uint32_t idx;
    int rc = -1;
    if (add_file_name(a, path, &idx) == 0) {
        e->stack[++e->depth] = a->files[idx];
        e->rel[e->depth] = rel;
        rc = expand(e, data, n, idx);
        e->rel[e->depth] = NULL;
        e->depth--;
    }
    free(rel);
    free(data);
    return rc;
}

/* Append the lines of src (file index `file`) to the expansion. */
static int expand(expander *e, const char *src, size_t len, uint32_t file)
{
    asm_ctx *a = e->a;
    uint32_t lineno = 1;
    size_t off = 0;
    while (off < len) {
        const char *s = src + off;
        const char *nl = memchr(s, '\n', len - off);
        size_t n = nl ? (size_t)(nl - s) : len - off;
        off += n + (nl ? 1 : 0);
        if (e->len + n + 1 > TPU_ASM_MAX_SOURCE) {
            asm_fatal_at(a, a->nlmap ? (uint32_t)a->nlmap : 1, 1,
                         "the source with its included files is too large (at most %u MiB)",
                         TPU_ASM_MAX_SOURCE >> 20);
            return -1;
        }
        if (map_line(a, file, lineno++) < 0 || grow(e, n + 1) < 0)
            return -1;
        uint32_t at = (uint32_t)a->nlmap, col;
        const asm_tok *t = NULL;
        if (n <= TPU_ASM_MAX_LINE && asm_check_line_bytes(s, (uint32_t)n, &col) < 0) {
            a->quiet = 1;
            int bad = asm_lex_line(a, s, (uint32_t)n);
            a->quiet = 0;
            if (!bad && a->toks[0].type == T_DIRECTIVE && asm_tok_is(&a->toks[0], ".include"))
                t = &a->toks[0];
        }
        if (!t) {
            memcpy(e->out + e->len, s, n);
            e->len += n;
            e->out[e->len++] = '\n';
            continue;
        }
        e->out[e->len++] = '\n';            /* the directive's own (now empty) line */
        if (t[1].type != T_STRING || t[2].type != T_EOL) {
            asm_error_at(a, at, t->col, "'.include' takes one file name in double quotes");
            continue;
        }
        asm_tok name = t[1];
        uint32_t col1 = t[1].col;
        if (include_file(e, &name, at, col1) < 0)
            return -1;
    }
    return 0;
}

int asm_expand_includes(asm_ctx *a)
{
    /* Most sources include nothing: leave them as they are. */
    int any = 0;
    for (const char *p = a->src, *end = a->src + a->srclen;
         (p = memchr(p, '.', (size_t)(end - p))) != NULL; p++)
        if ((size_t)(end - p) >= 8 && memcmp(p, ".include", 8) == 0) {
            any = 1;
            break;
        }
    if (!any)
        return 0;
    expander e = { .a = a };
    uint32_t top;
    if (add_file_name(a, a->file, &top) < 0)
        return -1;
    e.stack[0] = a->files[top];
    /* sandbox: the top file lies directly in the root */
    const char *base = strrchr(a->file, '/');
    e.rel[0] = base ? base + 1 : a->file;
    int rc = expand(&e, a->src, a->srclen, top);
    if (rc < 0 || a->fatal) {
        free(e.out);
        return -1;
    }
    a->expanded = e.out;
    a->src = e.out ? e.out : "";
    a->srclen = e.len;
    return 0;
}

const char *asm_where(const asm_ctx *a, uint32_t line, uint32_t *orig_line)
{
    if (a->nlmap == 0 || line == 0 || line > a->nlmap) {
        *orig_line = line;
        return a->file;
    }
    const asm_linemap *m = &a->lmap[line - 1];
    *orig_line = m->line;
    return a->files[m->file];
}

const char *asm_place(const asm_ctx *a, uint32_t line, uint32_t col, char *buf, size_t bufsz)
{
    uint32_t oline;
    const char *file = asm_where(a, line, &oline);
    snprintf(buf, bufsz, "%.250s:%u:%u", file, oline, col);
    return buf;
}

void asm_include_free(asm_ctx *a)
{
    for (size_t k = 0; k < a->nfiles; k++)
        free(a->files[k]);
    free(a->files);
    free(a->lmap);
    free(a->expanded);
}
