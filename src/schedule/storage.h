/* storage.h - small helpers the storage and reduction primitives (cache.c,
 * reduction.c) share: the block a handle names with its scope, looking a
 * buffer up in a block's regions, whether an expression uses a var, and
 * fresh buffer names.  Static inline so that each file takes only what it
 * uses. */
#ifndef MLCC_SCHEDULE_STORAGE_H
#define MLCC_SCHEDULE_STORAGE_H

#include "schedule/state.h"

/* A block and where it is: its path from the function body and the index
 * in that path of the enclosing block's realize (its scope). */
typedef struct SchSite {
  SchPath path;
  const MlcStmt *realize; /* path.nodes[path.n - 1] */
  const MlcBlock *block;
  int scope;
} SchSite;

/* The site of the block named `name`; false + error when it is gone or
 * has no enclosing block. */
static inline bool sch_site_named(MlcSchedule *s, const char *name, SchSite *site) {
  *site = (SchSite){0};
  if (!sch_find_block(s, name, &site->path)) return false;
  site->realize = site->path.nodes[site->path.n - 1];
  site->block = site->realize->realize.block;
  site->scope = site->path.n - 2;
  while (site->scope >= 0 && site->path.nodes[site->scope]->kind != MLC_STMT_BLOCK_REALIZE) site->scope--;
  if (site->scope < 0) {
    sch_path_free(&site->path);
    return sch_error(s, "block '%s' is not inside a root block", name);
  }
  return true;
}

/* the same for a block handle argument */
static inline bool sch_site_arg(MlcSchedule *s, const MlcSchVal *v, const char *what, SchSite *site) {
  const char *name;
  *site = (SchSite){0};
  return sch_arg_block(s, v, what, &name) && sch_site_named(s, name, site);
}

static inline const MlcBufferRegion *sch_region_of(const MlcBufferRegion *rs, int n, const MlcBuffer *buf) {
  for (int i = 0; i < n; i++)
    if (rs[i].buf == buf) return &rs[i];
  return NULL;
}

typedef struct SchVarUse { MlcVisitor v; const MlcExpr *var; bool found; } SchVarUse;

static inline bool sch_var_use_expr(MlcVisitor *v, const MlcExpr *e) {
  SchVarUse *u = (SchVarUse *)v;
  if (e == u->var) u->found = true;
  return !u->found;
}

static inline bool sch_uses_var(const MlcExpr *e, const MlcExpr *var) {
  SchVarUse u = {.v = {.expr = sch_var_use_expr}, .var = var};
  mlc_visit_expr(&u.v, e);
  return u.found;
}

typedef struct SchBufNames { MlcVisitor v; MlcMap *names; } SchBufNames;

static inline bool sch_buf_names_block(MlcVisitor *v, const MlcBlock *b) {
  for (int i = 0; i < b->n_allocs; i++) mlc_map_put(((SchBufNames *)v)->names, b->allocs[i]->name, (void *)1);
  return true;
}

static inline bool sch_buf_names_stmt(MlcVisitor *v, const MlcStmt *st) {
  if (st->kind == MLC_STMT_ALLOCATE) mlc_map_put(((SchBufNames *)v)->names, st->alloc.buf->name, (void *)1);
  return true;
}

/* base, base_1, ...: a buffer name nothing in the function uses, so that
 * the printed function names every buffer once */
static inline const char *sch_fresh_buffer_name(MlcSchedule *s, const char *base) {
  MlcMap used = {0};
  const MlcPrimFunc *f = sch_func(s);
  for (int i = 0; i < f->n_params; i++)
    if (f->params[i].buf) mlc_map_put(&used, f->params[i].buf->name, (void *)1);
  SchBufNames w = {.v = {.block = sch_buf_names_block, .stmt = sch_buf_names_stmt}, .names = &used};
  mlc_visit_stmt(&w.v, f->body);
  const char *name = mlc_intern(s->ctx, base);
  for (unsigned k = 1; mlc_map_has(&used, name); k++) name = mlc_internf(s->ctx, "%s_%u", base, k);
  mlc_map_free(&used);
  return name;
}

#endif
