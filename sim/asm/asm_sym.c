/*
 * asm_sym.c - the symbol table: labels and constants in one namespace.
 *
 * Names point into the source or the caller's -D strings; a name made by
 * a macro's substitution (a line that does not last) is copied.  An
 * open-addressing hash of indexes into syms[] finds them.
 */
#include <stdlib.h>
#include <string.h>

#include "asm_impl.h"

static uint32_t hash_name(const char *s, size_t len)
{
    uint32_t h = 2166136261u;                 /* FNV-1a */
    for (size_t k = 0; k < len; k++)
        h = (h ^ (unsigned char)s[k]) * 16777619u;
    return h;
}

asm_sym *asm_sym_find(asm_ctx *a, const char *name, size_t len)
{
    if (!a->hashcap)
        return NULL;
    uint32_t h = hash_name(name, len);
    size_t mask = a->hashcap - 1;
    for (size_t k = h & mask;; k = (k + 1) & mask) {
        uint32_t idx = a->symhash[k];
        if (!idx)
            return NULL;
        asm_sym *s = &a->syms[idx - 1];
        if (s->hash == h && s->len == len && memcmp(s->name, name, len) == 0)
            return s;
    }
}

static int rehash(asm_ctx *a, size_t cap)
{
    uint32_t *t = calloc(cap, sizeof *t);
    if (!t)
        return -1;
    for (size_t i = 0; i < a->nsyms; i++) {
        size_t k = a->syms[i].hash & (cap - 1);
        while (t[k])
            k = (k + 1) & (cap - 1);
        t[k] = (uint32_t)(i + 1);
    }
    free(a->symhash);
    a->symhash = t;
    a->hashcap = cap;
    return 0;
}

/* Add a new, undefined symbol (the caller has checked it is not there).
 * NULL when out of memory.  Pointers stay valid only until the next add. */
asm_sym *asm_sym_add(asm_ctx *a, const char *name, size_t len)
{
    if (a->nsyms == a->symcap) {
        size_t cap = a->symcap ? a->symcap * 2 : 64;
        asm_sym *s = realloc(a->syms, cap * sizeof *s);
        if (!s) {
            asm_oom(a);
            return NULL;
        }
        a->syms = s, a->symcap = cap;
    }
    if ((a->nsyms + 1) * 2 > a->hashcap && rehash(a, a->hashcap ? a->hashcap * 2 : 128)) {
        asm_oom(a);
        return NULL;
    }
    if (a->subst && name >= a->subst && name < a->subst + a->substcap) {
        if (a->nowned == a->ownedcap) {
            size_t cap = a->ownedcap ? a->ownedcap * 2 : 16;
            char **o = realloc(a->owned, cap * sizeof *o);
            if (!o) {
                asm_oom(a);
                return NULL;
            }
            a->owned = o, a->ownedcap = cap;
        }
        char *copy = malloc(len ? len : 1);
        if (!copy) {
            asm_oom(a);
            return NULL;
        }
        memcpy(copy, name, len);
        a->owned[a->nowned++] = copy;
        name = copy;
    }
    asm_sym *s = &a->syms[a->nsyms++];
    memset(s, 0, sizeof *s);
    s->name = name;
    s->len = (uint32_t)len;
    s->hash = hash_name(name, len);
    size_t k = s->hash & (a->hashcap - 1);
    while (a->symhash[k])
        k = (k + 1) & (a->hashcap - 1);
    a->symhash[k] = (uint32_t)a->nsyms;
    return s;
}

/* Start pass 2: constants are defined again in order; labels keep the
 * address pass 1 found (`known`) but count as defined only once their line
 * is reached again. */
void asm_sym_new_pass(asm_ctx *a)
{
    for (size_t i = 0; i < a->nsyms; i++) {
        asm_sym *s = &a->syms[i];
        if (s->kind == SYM_CMDLINE)
            continue;
        if (s->kind == SYM_LABEL && s->defined)
            s->known = 1;
        s->defined = 0;
    }
}

void asm_sym_free(asm_ctx *a)
{
    free(a->syms);
    free(a->symhash);
    for (size_t k = 0; k < a->nowned; k++)
        free(a->owned[k]);
    free(a->owned);
    a->owned = NULL;
    a->nowned = a->ownedcap = 0;
    a->syms = NULL;
    a->symhash = NULL;
    a->nsyms = a->symcap = a->hashcap = 0;
}
