/* reader.c - the reader's driver: a file's text to an IRModule.
 *
 * Parsing gives the syntax tree; this file finds the one unit of the file (an
 * `@I.ir_module` class, or a single decorated function that becomes a module
 * named "Module"), declares every function name before any body is read so
 * a graph function may call a function defined below it, and hands each
 * definition to its dialect's reader (read_tir.c, read_graph.c).  Decorator
 * recognition lives here because only the driver and the dialect readers'
 * headers care what a decorator means. */
#include "text/read_util.h"

#include <stdlib.h>
#include <string.h>

#define LOC_AT(ctx, l) ((ctx)->build_loc = (l))

/* every spelling of the three decorators */
#define MLC_RD_DECORATORS(X)                                                      \
  X("I.ir_module", MLC_RD_DECOR_MODULE) X("ir_module", MLC_RD_DECOR_MODULE)       \
  X("tvm.script.ir_module", MLC_RD_DECOR_MODULE)                                  \
  X("tvm.script.ir.ir_module", MLC_RD_DECOR_MODULE)                               \
  X("T.prim_func", MLC_RD_DECOR_PRIM) X("tvm.script.tir.prim_func", MLC_RD_DECOR_PRIM) \
  X("R.function", MLC_RD_DECOR_GRAPH) X("tvm.script.relax.function", MLC_RD_DECOR_GRAPH)

static const struct { const char *path; MlcRdDecor kind; } decorators[] = {
#define X(path, kind) {path, kind},
    MLC_RD_DECORATORS(X)
#undef X
};

MlcRdDecor mlc_rd_decorator(const Ast *def, const Ast **dec) {
  char path[128];
  if (dec) *dec = NULL;
  for (int i = 0; i < def->decorators.n; i++) {
    const Ast *d = def->decorators.items[i];
    if (!mlc_rd_path(d->kind == AST_CALL ? d->func : d, path, sizeof path)) continue;
    for (size_t k = 0; k < sizeof decorators / sizeof *decorators; k++)
      if (strcmp(path, decorators[k].path) == 0) {
        if (dec) *dec = d;
        return decorators[k].kind;
      }
  }
  return MLC_RD_DECOR_NONE;
}

static bool is_docstring(const Ast *st) { return st->kind == AST_EXPR_STMT && st->lhs->kind == AST_STR; }

/* The syntax tree locates a def or class at its keyword; a message about
 * its name points at the name, found in the source line after the keyword. */
static MlcLoc name_loc(const char *text, size_t len, MlcLoc kw) {
  size_t i = 0;
  for (int line = 1; line < kw.line && i < len; i++)
    if (text[i] == '\n') line++;
  i += (size_t)(kw.col > 0 ? kw.col - 1 : 0);
  size_t start = i;
  while (i < len && (text[i] == '_' || (unsigned)((text[i] | 32) - 'a') < 26u)) i++;
  while (i < len && (text[i] == ' ' || text[i] == '\t')) i++;
  if (i >= len || i == start) return kw;
  kw.col += (int)(i - start);
  return kw;
}

/* A decorator's expression starts after its '@'; a message about the
 * decorator points at the '@'. */
static MlcLoc at_sign_loc(const char *text, size_t len, MlcLoc loc) {
  size_t i = 0;
  for (int line = 1; line < loc.line && i < len; i++)
    if (text[i] == '\n') line++;
  int col = loc.col - 1;
  while (col > 1 && i + (size_t)col - 1 < len && (text[i + col - 1] == ' ' || text[i + col - 1] == '\t')) col--;
  if (col >= 1 && i + (size_t)col - 1 < len && text[i + col - 1] == '@') loc.col = col;
  return loc;
}

/* just past the last character: where "nothing found" is reported */
static MlcLoc end_loc(MlcCtx *ctx, const char *file, const char *text, size_t len) {
  MlcLoc loc = {mlc_intern(ctx, file), 1, 1};
  for (size_t i = 0; i < len; i++) {
    if (text[i] == '\n') loc.line++, loc.col = 1;
    else loc.col++;
  }
  return loc;
}

static bool undecorated(MlcCtx *ctx, const char *text, size_t len, const Ast *def, const char *want) {
  char path[128];
  const Ast *d = def->decorators.n ? def->decorators.items[0] : NULL;
  if (d && mlc_rd_path(d->kind == AST_CALL ? d->func : d, path, sizeof path))
    return mlc_error(ctx, at_sign_loc(text, len, d->loc), "unknown decorator '@%s'; expected %s", path, want);
  return mlc_error(ctx, def->loc, "'%s' needs the decorator %s", def->name, want);
}

/* the class or the single function the file holds */
static const Ast *find_unit(MlcCtx *ctx, const char *file, const char *text, size_t len, const AstList *top) {
  const Ast *unit = NULL;
  for (int i = 0; i < top->n; i++) {
    const Ast *st = top->items[i];
    if (st->kind == AST_IMPORT || is_docstring(st)) continue;
    MlcRdDecor d = (st->kind == AST_CLASSDEF || st->kind == AST_FUNCDEF) ? mlc_rd_decorator(st, NULL) : MLC_RD_DECOR_NONE;
    if (st->kind == AST_CLASSDEF && d != MLC_RD_DECOR_MODULE)
      return undecorated(ctx, text, len, st, "@I.ir_module"), NULL;
    if (st->kind == AST_FUNCDEF && d != MLC_RD_DECOR_PRIM && d != MLC_RD_DECOR_GRAPH)
      return undecorated(ctx, text, len, st, "@T.prim_func or @R.function"), NULL;
    if (st->kind != AST_CLASSDEF && st->kind != AST_FUNCDEF)
      return mlc_error(ctx, st->loc, "expected an @I.ir_module class or a @T.prim_func / @R.function"), NULL;
    if (unit)
      return mlc_error(ctx, name_loc(text, len, st->loc), "a file holds one module or one function; '%s' is a second",
                       st->name), NULL;
    unit = st;
  }
  if (!unit)
    mlc_error(ctx, end_loc(ctx, file, text, len),
              "no function found: expected an @I.ir_module class or a @T.prim_func / @R.function");
  return unit;
}

typedef struct Unit {
  const char *name;
  MLC_VEC(const Ast *) defs;
  MlcAttrs attrs;
  bool has_attrs;
} Unit;

static bool class_header(MlcCtx *ctx, const Ast *cls) {
  const Ast *dec, *args[MLC_RD_MAX_ARGS];
  mlc_rd_decorator(cls, &dec);
  if (dec->kind != AST_CALL) return true;
  if (!mlc_rd_args(ctx, dec, "I.ir_module", ";check_well_formed", args)) return false;
  if (args[0] && args[0]->kind != AST_TRUE && args[0]->kind != AST_FALSE)
    return mlc_error(ctx, args[0]->loc, "expected True or False");
  return true;
}

/* I.module_attrs({...}) inside the class */
static bool module_attrs(MlcCtx *ctx, const Ast *call, Unit *u) {
  const Ast *args[MLC_RD_MAX_ARGS];
  if (u->has_attrs) return mlc_error(ctx, call->loc, "I.module_attrs is given twice");
  u->has_attrs = true;
  return mlc_rd_args(ctx, call, "I.module_attrs", "attrs", args) && mlc_rd_attrs(ctx, NULL, args[0], &u->attrs);
}

static bool collect_defs(MlcCtx *ctx, const char *text, size_t len, const Ast *unit, Unit *u) {
  if (unit->kind == AST_FUNCDEF) {
    u->name = mlc_intern(ctx, "Module");
    mlc_vec_push(&u->defs, unit);
    return true;
  }
  u->name = unit->name;
  if (!class_header(ctx, unit)) return false;
  for (int i = 0; i < unit->body.n; i++) {
    const Ast *st = unit->body.items[i];
    if (st->kind == AST_PASS || is_docstring(st)) continue;
    if (st->kind == AST_EXPR_STMT && st->lhs->kind == AST_CALL && mlc_rd_is_path(st->lhs->func, "I.module_attrs")) {
      if (!module_attrs(ctx, st->lhs, u)) return false;
      continue;
    }
    if (st->kind != AST_FUNCDEF) return mlc_error(ctx, st->loc, "a module class holds only functions");
    MlcRdDecor d = mlc_rd_decorator(st, NULL);
    if (d != MLC_RD_DECOR_PRIM && d != MLC_RD_DECOR_GRAPH)
      return undecorated(ctx, text, len, st, "@T.prim_func or @R.function");
    mlc_vec_push(&u->defs, st);
  }
  return true;
}

/* every name known before any body is read; a name defined twice is
 * refused (a map of the names so far: modules of thousands of functions) */
static bool declare_globals(MlcReader *r, const char *text, size_t len, const Unit *u) {
  MlcMap first = {0}; /* interned name -> its first definition */
  bool ok = true;
  for (size_t i = 0; ok && i < u->defs.len; i++) {
    const Ast *def = u->defs.data[i], *prev = mlc_map_get(&first, def->name);
    if (prev) {
      ok = mlc_error(r->ctx, name_loc(text, len, def->loc), "duplicate function name '%s' (first defined at line %d)",
                     def->name, prev->loc.line);
      break;
    }
    mlc_map_put(&first, def->name, (void *)def);
    MlcFuncKind kind = mlc_rd_decorator(def, NULL) == MLC_RD_DECOR_PRIM ? MLC_FUNC_PRIM : MLC_FUNC_GRAPH;
    mlc_map_put(&r->globals, def->name, (void *)(intptr_t)(kind + 1));
  }
  mlc_map_free(&first);
  return ok;
}

static bool read_funcs(MlcReader *r, const Unit *u, MlcFunc *funcs) {
  for (size_t i = 0; i < u->defs.len; i++) {
    const Ast *def = u->defs.data[i];
    MlcFunc *f = &funcs[i];
    f->name = def->name;
    f->kind = mlc_rd_decorator(def, NULL) == MLC_RD_DECOR_PRIM ? MLC_FUNC_PRIM : MLC_FUNC_GRAPH;
    if (f->kind == MLC_FUNC_PRIM) f->prim = mlc_read_prim_func(r, def);
    else f->graph = mlc_read_gfunc(r, def);
    if (f->kind == MLC_FUNC_PRIM ? !f->prim : !f->graph) return false;
  }
  return true;
}

MlcModule *mlc_read_module(MlcCtx *ctx, const char *file, const char *text, size_t len) {
  AstList top = {0};
  MlcLoc saved = ctx->build_loc;
  if (!mlc_parse(ctx, file, text, len, &top)) return NULL;
  const Ast *unit = find_unit(ctx, file, text, len, &top);
  if (!unit) return NULL;
  Unit u = {0};
  MlcReader r = {.ctx = ctx};
  MlcModule *m = NULL;
  if (collect_defs(ctx, text, len, unit, &u)) {
    r.module_name = u.name;
    size_t n = u.defs.len;
    MlcFunc *funcs = mlc_arena_array(&ctx->arena, n ? n : 1, sizeof *funcs);
    if (declare_globals(&r, text, len, &u) && read_funcs(&r, &u, funcs)) {
      LOC_AT(ctx, unit->loc);
      m = mlc_module_new(ctx, u.name, funcs, (int)n, u.attrs);
    }
  }
  mlc_map_free(&r.globals);
  mlc_vec_free(&u.defs);
  ctx->build_loc = saved;
  return m;
}
