/* equal_internal.h - what structural equality (equal.c) and the structural
 * hash (hash.c) share: scoped binding maps and name comparison.
 *
 * Both walk a function once and bind each definition site (a loop var, a let
 * var, an allocated buffer, ...) for the extent of its scope.  Bindings are
 * logged so that leaving a scope unbinds exactly what it bound; a var reused
 * in two sibling loops is then bound afresh in each, as alpha-equivalence
 * requires.  The two files must visit definition sites in the same order,
 * which is what makes "equal implies equal hash" hold. */
#ifndef MLCC_IR_EQUAL_INTERNAL_H
#define MLCC_IR_EQUAL_INTERNAL_H

#include "mlcc/ir.h"

#include <stdlib.h>
#include <string.h>

typedef struct ScopeEntry { MlcMap *map; const void *key; } ScopeEntry;
typedef MLC_VEC(ScopeEntry) ScopeLog;

/* bind key -> val in map until the log is unwound past this point */
static inline void scope_bind(ScopeLog *log, MlcMap *map, const void *key, void *val) {
  mlc_map_put(map, key, val);
  mlc_vec_push(log, ((ScopeEntry){map, key}));
}

/* A NULL value means "unbound": MlcMap has no removal, and every binding is
 * made only while its key is unbound, so NULL is the value to restore. */
static inline void scope_unwind(ScopeLog *log, size_t mark) {
  while (log->len > mark) {
    ScopeEntry e = log->data[--log->len];
    mlc_map_put(e.map, e.key, NULL);
  }
}

/* Names are interned, so == decides within one context; strcmp keeps modules
 * read into different contexts comparable. */
static inline bool names_same(const char *a, const char *b) {
  return a == b || (a && b && strcmp(a, b) == 0);
}

static inline uint64_t name_hash(const char *s, uint64_t seed) {
  return s ? mlc_hash_bytes(s, strlen(s), seed) : mlc_hash_combine(seed, 0x6e756c6cu);
}

static inline const MlcAttr *attrs_find(MlcAttrs attrs, const char *key) {
  for (int i = 0; i < attrs.n; i++)
    if (names_same(attrs.items[i].key, key)) return &attrs.items[i];
  return NULL;
}

static inline const MlcFunc *module_find_func(const MlcModule *m, const char *name) {
  for (int i = 0; i < m->n_funcs; i++)
    if (names_same(m->funcs[i].name, name)) return &m->funcs[i];
  return NULL;
}

#endif
