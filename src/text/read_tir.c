/* read_tir.c - `@T.prim_func` definitions (syntax tree) to prim funcs (IR).
 *
 * A function body is read statement by statement into nested scopes the way
 * TVMScript's Python gives them: loop, iter and let vars are visible in their
 * body only.  A few statements are not statements of the IR but declarations
 * of the enclosing block or function (`vi = T.axis.spatial(...)`, `T.where`,
 * `T.reads`, `T.init()`, `T.alloc_buffer`, `T.func_attr`, `T.match_buffer`);
 * they fill a BlockState (the function's own one for the implicit root block)
 * and the block is built when its `with` ends.  `x = value` binds a let (and
 * `X = T.allocate(...)` of lowered code a buffer) whose body is the rest of
 * the statement list, so both are read by recursion on the remaining
 * statements.  Expressions come from read_expr.c. */
#include "text/read_util.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LOC_AT(ctx, l) ((ctx)->build_loc = (l))

/* Where a statement stands: directly in the function body, directly in a
 * block body, or anywhere deeper (loops, branches, init). */
typedef enum Level { LV_FUNC, LV_BLOCK, LV_NESTED } Level;

typedef MLC_VEC(MlcBufferRegion) RegionVec;

typedef struct BlockState {
  bool is_block; /* false for the function's own state (the implicit root) */
  MLC_VEC(MlcIterVar) iters;
  MLC_VEC(MlcExpr *) binds;
  MLC_VEC(MlcBuffer *) allocs;
  RegionVec reads, writes;
  bool has_reads, has_writes, has_init, has_attrs;
  MlcExpr *pred;
  MlcStmt *init;
  MlcAttrs annotations;
} BlockState;

typedef struct Tir {
  MlcCtx *ctx;
  MlcRdScope sc;
  MLC_VEC(MlcParam) params;
  MlcAttrs attrs;
  bool has_attrs;
  BlockState root;            /* function-level allocations */
  BlockState *block;          /* innermost block being read, or &root */
  int n_blocks;               /* blocks read, the explicit root aside */
  MlcStmt *explicit_root;     /* `with T.block("root")` at function level */
  const Ast *explicit_root_ast;
  int let_depth;              /* lets and allocations open around the statement */
} Tir;

/* Each statement-level let or allocation scopes the statements after it, so
 * they nest; the bound keeps every later walk of the tree (printing,
 * equality, lowering) within a modest recursion depth. */
enum { MAX_LET_DEPTH = 256 };

static bool read_body(Tir *t, const AstList *l, int start, Level lv, MlcStmt **out);

static void block_state_free(BlockState *b) {
  mlc_vec_free(&b->iters);
  mlc_vec_free(&b->binds);
  mlc_vec_free(&b->allocs);
  mlc_vec_free(&b->reads);
  mlc_vec_free(&b->writes);
}

/* ======================================================================== */
/* small helpers                                                            */
/* ======================================================================== */

static bool same_int_family(MlcDType a, MlcDType b) {
  return a.code == b.code && (a.code == MLC_TC_INT || a.code == MLC_TC_UINT) && a.lanes == 1 && b.lanes == 1;
}

/* The scalar int dtype several values meet at: typed ones widen to the
 * widest; literals alone give int32 (int64 when one does not fit). */
static bool meet_int(Tir *t, const MlcRdVal *v, int n, const char *what, MlcDType *out) {
  char ba[32], bb[32];
  MlcDType d = MLC_I32;
  bool typed = false, big = false;
  for (int i = 0; i < n; i++) {
    if (v[i].kind == MLC_RDV_INT) big |= v[i].i < INT32_MIN || v[i].i > INT32_MAX;
    if (v[i].kind != MLC_RDV_EXPR) continue;
    MlcDType dt = v[i].e->dtype;
    if (!mlc_dtype_is_int(dt) || dt.lanes != 1)
      return mlc_error(t->ctx, v[i].loc, "%s must be a scalar integer, got %s", what, mlc_dtype_str(dt, ba));
    if (!typed) d = dt, typed = true;
    else if (same_int_family(d, dt)) d = dt.bits > d.bits ? dt : d;
    else if (!mlc_dtype_eq(d, dt))
      return mlc_error(t->ctx, v[i].loc, "%s: dtype mismatch between %s and %s", what,
                       mlc_dtype_str(d, ba), mlc_dtype_str(dt, bb));
  }
  *out = !typed && big ? MLC_I64 : d;
  return true;
}

static MlcRdVal lit_int(int64_t v, MlcLoc loc) { return (MlcRdVal){MLC_RDV_INT, NULL, v, 0, loc}; }

static MlcRdVal val_of(MlcExpr *e, MlcLoc loc) { return (MlcRdVal){MLC_RDV_EXPR, e, 0, 0, loc}; }

/* structurally the same expression, vars by identity */
static bool same_expr(const MlcExpr *a, const MlcExpr *b) {
  if (a == b) return true;
  if (!a || !b || a->kind != b->kind || !mlc_dtype_eq(a->dtype, b->dtype)) return false;
  switch (a->kind) {
  case MLC_EXPR_INT: return a->int_val == b->int_val;
  case MLC_EXPR_FLOAT: return a->float_val == b->float_val;
  case MLC_EXPR_BINARY:
    return a->bin.op == b->bin.op && same_expr(a->bin.a, b->bin.a) && same_expr(a->bin.b, b->bin.b);
  case MLC_EXPR_NOT: case MLC_EXPR_NEG: case MLC_EXPR_CAST: return same_expr(a->operand, b->operand);
  case MLC_EXPR_LOAD:
    if (a->load.buf != b->load.buf || a->load.n != b->load.n) return false;
    for (int i = 0; i < a->load.n; i++)
      if (!same_expr(a->load.idx[i], b->load.idx[i])) return false;
    return true;
  default: return false; /* vars are the same only as the same node */
  }
}

/* The extent of [lo, hi): hi - lo, folded for constants, and `e` when hi is
 * written `lo + e` (as the printer writes a range whose extent is not
 * constant), the way TVMScript's simplifier would give it. */
static MlcExpr *sub_fold(Tir *t, MlcLoc loc, MlcExpr *hi, MlcExpr *lo) {
  int64_t h, l, d;
  if (!hi || !lo) return NULL;
  LOC_AT(t->ctx, loc);
  if (mlc_e_is_const_int(lo, &l) && l == 0) return hi;
  if (mlc_e_is_const_int(hi, &h) && mlc_e_is_const_int(lo, &l)) {
    if (__builtin_sub_overflow(h, l, &d)) return mlc_error(t->ctx, loc, "integer overflow in a range"), NULL;
    return mlc_e_int(t->ctx, hi->dtype, d);
  }
  if (hi->kind == MLC_EXPR_BINARY && hi->bin.op == MLC_BIN_ADD && same_expr(hi->bin.a, lo)) return hi->bin.b;
  return mlc_e_bin(t->ctx, MLC_BIN_SUB, hi, lo);
}

/* sizes written in the text are bounded */
static bool check_size(Tir *t, int64_t v, MlcLoc loc, const char *what) {
  if (v < 0) return mlc_error(t->ctx, loc, "%s %lld is negative", what, (long long)v);
  if (v >= MLC_RD_MAX_DIM) return mlc_error(t->ctx, loc, "%s %lld is too large (the limit is 2^40)", what, (long long)v);
  return true;
}

static bool check_extent(Tir *t, const MlcExpr *e, MlcLoc loc, const char *what) {
  int64_t v;
  if (!e) return false;
  return !mlc_e_is_const_int(e, &v) || check_size(t, v, loc, what);
}

static bool need_name(Tir *t, const Ast *target, const char *fname) {
  if (target->kind != AST_NAME) return mlc_error(t->ctx, target->loc, "%s must be assigned to one name", fname);
  return true;
}

/* The items of a tuple (or list), or a list of the one node: `A[i]` and
 * `A[i, j]`, `(m, n)` and `128`.  The single item is held in `one`, which
 * the caller keeps alive while it uses the list. */
typedef struct OneList { AstList l; Ast *item; } OneList;

static const AstList *list_of(const Ast *a, bool lists_too, OneList *one) {
  if (a->kind == AST_TUPLE || (lists_too && a->kind == AST_LIST)) return &a->items;
  one->item = (Ast *)a;
  one->l.items = &one->item;
  one->l.n = 1;
  return &one->l;
}

static const AstList *items_of(const Ast *a, OneList *one) { return list_of(a, true, one); }
static const AstList *tuple_items(const Ast *a, OneList *one) { return list_of(a, false, one); }

static MlcBuffer *buffer_named(Tir *t, const Ast *a) {
  if (a->kind != AST_NAME) return mlc_error(t->ctx, a->loc, "expected a buffer name"), NULL;
  MlcRdSym *sym = mlc_rd_lookup(&t->sc, a->name);
  if (!sym) return mlc_error(t->ctx, a->loc, "undefined name '%s'", a->name), NULL;
  if (sym->kind != MLC_RD_BUFFER) return mlc_error(t->ctx, a->loc, "'%s' is not a buffer", a->name), NULL;
  return sym->buf;
}

/* ======================================================================== */
/* buffer declarations: T.Buffer(...), T.Buffer[...], match / alloc_buffer  */
/* ======================================================================== */

/* argument slots shared by the three spellings (after match_buffer's param) */
enum { B_SHAPE, B_DTYPE, B_DATA, B_STRIDES, B_OFFSET, B_SCOPE, B_ALIGN, B_FACTOR, B_TYPE, B_AXSEP, B_COUNT };
#define BUF_SPEC "shape;dtype,data,strides,elem_offset,scope,align,offset_factor,buffer_type,axis_separators"

/* int64 when the shape is written with int64 dims (T.int64(k) or int64
 * vars): its literals and new size vars follow */
static bool mentions_int64(Tir *t, const Ast *a) {
  if (!a) return false;
  if (a->kind == AST_CALL && mlc_rd_is_path(a->func, "T.int64")) return true;
  if (a->kind == AST_NAME) {
    MlcRdSym *sym = mlc_rd_lookup(&t->sc, a->name);
    return sym && sym->kind != MLC_RD_BUFFER && sym->var && mlc_dtype_eq(sym->var->dtype, MLC_I64);
  }
  if (mentions_int64(t, a->lhs) || mentions_int64(t, a->rhs)) return true;
  for (int i = 0; i < a->items.n; i++)
    if (mentions_int64(t, a->items.items[i])) return true;
  return false;
}

/* one dim (or stride); its size is checked before it becomes an immediate,
 * so a huge literal is "too large" rather than "out of range for int32" */
static MlcExpr *read_dim(Tir *t, const Ast *a, MlcDType sd, MlcLoc at, const char *what) {
  MlcRdVal v;
  char b[32];
  if (!mlc_rd_val(&t->sc, a, &v)) return NULL;
  if (v.kind == MLC_RDV_INT && !check_size(t, v.i, at, what)) return NULL;
  if (v.kind == MLC_RDV_EXPR && (!mlc_dtype_is_int(v.e->dtype) || v.e->dtype.lanes != 1))
    return mlc_error(t->ctx, a->loc, "%s must be an integer, got %s", what, mlc_dtype_str(v.e->dtype, b)), NULL;
  return v.kind == MLC_RDV_EXPR ? v.e : mlc_rd_val_as(&t->sc, &v, sd, what);
}

static bool read_dims(Tir *t, const Ast *a, MlcDType sd, MlcExpr **out, int n, const char *what) {
  OneList one;
  const AstList *l = items_of(a, &one);
  for (int i = 0; i < n; i++)
    if (!(out[i] = read_dim(t, l->items[i], sd, a->loc, what)) || !check_extent(t, out[i], a->loc, what))
      return false;
  return true;
}

static bool small_int_arg(Tir *t, const Ast *a, int lo, int *out, const char *what) {
  int64_t v;
  if (!mlc_rd_int_literal(a, &v) || v < lo || v > (1 << 20))
    return mlc_error(t->ctx, a->loc, "%s must be an int literal from %d to 2^20", what, lo);
  *out = v < 0 ? 0 : (int)v;
  return true;
}

static bool is_none(const Ast *a) { return !a || a->kind == AST_NONE; }

static bool unsupported_buffer_args(Tir *t, const Ast **args) {
  if (!is_none(args[B_DATA])) return mlc_error(t->ctx, args[B_DATA]->loc, "data= is not supported");
  const Ast *bt = args[B_TYPE], *ax = args[B_AXSEP];
  if (!is_none(bt) && !(bt->kind == AST_STR && strcmp(bt->str, "default") == 0))
    return mlc_error(t->ctx, bt->loc, "buffer_type= other than \"default\" is not supported");
  if (!is_none(ax) && !((ax->kind == AST_LIST || ax->kind == AST_TUPLE) && ax->items.n == 0))
    return mlc_error(t->ctx, ax->loc, "axis_separators= is not supported");
  return true;
}

/* the shape, strides and offset: with auto_vars, an undefined name in them
 * becomes a size var (signature and match_buffer shapes) */
static bool read_layout(Tir *t, const Ast **args, int ndim, MlcExpr **shape, MlcExpr ***strides,
                        MlcExpr **offset) {
  MlcCtx *ctx = t->ctx;
  MlcDType sd = t->sc.auto_dtype;
  if (!read_dims(t, args[B_SHAPE], sd, shape, ndim, "buffer dimension")) return false;
  const Ast *st = args[B_STRIDES];
  if (!is_none(st) && !((st->kind == AST_LIST || st->kind == AST_TUPLE) && st->items.n == 0)) {
    OneList one;
    int n = items_of(st, &one)->n;
    if (n != ndim) return mlc_error(ctx, st->loc, "expected %d strides, got %d", ndim, n);
    *strides = mlc_arena_array(&ctx->arena, (size_t)(ndim ? ndim : 1), sizeof **strides);
    if (!read_dims(t, st, sd, *strides, ndim, "stride")) return false;
  }
  if (!is_none(args[B_OFFSET]) && !(*offset = read_dim(t, args[B_OFFSET], sd, args[B_OFFSET]->loc, "elem_offset")))
    return false;
  return true;
}

/* the constant dims together are bounded too: no buffer of more elements
 * than any memory holds */
static bool check_numel(Tir *t, const char *name, MlcExpr **shape, int ndim, MlcLoc loc) {
  int64_t total = 1, v;
  for (int i = 0; i < ndim; i++)
    if (mlc_e_is_const_int(shape[i], &v) && (__builtin_mul_overflow(total, v, &total) || total >= MLC_RD_MAX_DIM))
      return mlc_error(t->ctx, loc, "buffer '%s' is too large: more than 2^40 elements", name);
  return true;
}

static MlcBuffer *build_buffer(Tir *t, const char *name, const Ast **args, const Ast *at, bool auto_vars) {
  MlcCtx *ctx = t->ctx;
  OneList one;
  const AstList *dims = items_of(args[B_SHAPE], &one);
  if (dims->n > MLC_RD_MAX_RANK)
    return mlc_error(ctx, args[B_SHAPE]->loc, "a buffer has at most %d dimensions", MLC_RD_MAX_RANK), NULL;
  MlcDType dtype = MLC_F32;
  if (args[B_DTYPE] && !mlc_rd_dtype(ctx, args[B_DTYPE], &dtype)) return NULL;
  if (!unsupported_buffer_args(t, args)) return NULL;
  const char *scope = mlc_intern(ctx, "global");
  if (args[B_SCOPE]) {
    if (args[B_SCOPE]->kind != AST_STR || !*args[B_SCOPE]->str)
      return mlc_error(ctx, args[B_SCOPE]->loc, "scope must be a string such as \"local\""), NULL;
    scope = args[B_SCOPE]->str;
  }
  int align = 0, factor = 0;
  if ((args[B_ALIGN] && !small_int_arg(t, args[B_ALIGN], -1, &align, "align")) ||
      (args[B_FACTOR] && !small_int_arg(t, args[B_FACTOR], 0, &factor, "offset_factor")))
    return NULL;
  MlcExpr *shape[MLC_RD_MAX_RANK], **strides = NULL, *offset = NULL;
  t->sc.auto_dtype = mentions_int64(t, args[B_SHAPE]) ? MLC_I64 : MLC_I32;
  t->sc.auto_vars = auto_vars;
  bool ok = read_layout(t, args, dims->n, shape, &strides, &offset);
  t->sc.auto_vars = false;
  if (!ok || !check_numel(t, name, shape, dims->n, args[B_SHAPE]->loc)) return NULL;
  LOC_AT(ctx, at->loc);
  MlcBuffer *buf = mlc_buffer_new(ctx, name, dtype, shape, dims->n, strides, offset, scope);
  if (buf) buf->align = align, buf->offset_factor = factor;
  return buf;
}

/* T.Buffer[(128, 128), "float32"] (2022): the subscript holds shape and dtype */
static bool subscript_buffer_args(Tir *t, const Ast *sub, const Ast **args) {
  OneList one;
  const AstList *l = tuple_items(sub->index, &one);
  for (int i = 0; i < MLC_RD_MAX_ARGS; i++) args[i] = NULL;
  if (l->n == 0) return mlc_error(t->ctx, sub->loc, "T.Buffer[...] needs a shape");
  const Ast *first = l->items[0];
  if (first->kind == AST_TUPLE || first->kind == AST_LIST) {
    if (l->n > 2) return mlc_error(t->ctx, l->items[2]->loc, "T.Buffer[shape, dtype] takes two items");
    args[B_SHAPE] = first;
    args[B_DTYPE] = l->n == 2 ? l->items[1] : NULL;
    return true;
  }
  /* T.Buffer[128, "float32"]: the dims are the items before the dtype */
  bool has_dtype = l->n >= 2 && l->items[l->n - 1]->kind == AST_STR;
  Ast *tuple = mlc_arena_alloc(&t->ctx->arena, sizeof *tuple);
  tuple->kind = AST_TUPLE;
  tuple->loc = first->loc;
  tuple->items.items = mlc_arena_dup(&t->ctx->arena, l->items, (size_t)l->n * sizeof *l->items);
  tuple->items.n = l->n - (has_dtype ? 1 : 0);
  args[B_SHAPE] = tuple;
  args[B_DTYPE] = has_dtype ? l->items[l->n - 1] : NULL;
  return true;
}

/* ======================================================================== */
/* parameters                                                               */
/* ======================================================================== */

static bool is_buffer_annot(const Ast *a) {
  return (a->kind == AST_CALL && mlc_rd_is_path(a->func, "T.Buffer")) ||
         (a->kind == AST_SUBSCRIPT && mlc_rd_is_path(a->value, "T.Buffer"));
}

/* `T.int32`, `T.handle`, or the same called with no arguments */
static bool annot_dtype(const Ast *a, MlcDType *out) {
  char path[64];
  if (a->kind == AST_CALL && (a->items.n || a->n_kws)) return false;
  const Ast *p = a->kind == AST_CALL ? a->func : a;
  return mlc_rd_path(p, path, sizeof path) && strncmp(path, "T.", 2) == 0 && mlc_dtype_parse(path + 2, out) &&
         out->code != MLC_TC_VOID && out->lanes <= MLC_RD_MAX_LANES;
}

static bool add_param(Tir *t, MlcExpr *var, MlcBuffer *buf) {
  if (!var) return false;
  MlcParam p = {var, buf};
  mlc_vec_push(&t->params, p);
  return true;
}

static bool read_buffer_param(Tir *t, const AstParam *p) {
  const Ast *args[MLC_RD_MAX_ARGS];
  bool ok = p->annot->kind == AST_CALL ? mlc_rd_args(t->ctx, p->annot, "T.Buffer", BUF_SPEC, args)
                                       : subscript_buffer_args(t, p->annot, args);
  MlcBuffer *buf = ok ? build_buffer(t, p->name, args, p->annot, true) : NULL;
  if (!buf) return false;
  LOC_AT(t->ctx, p->loc);
  MlcExpr *var = mlc_e_var(t->ctx, p->name, MLC_HANDLE);
  MlcRdSym *sym = mlc_rd_define(&t->sc, p->name, MLC_RD_BUFFER, p->loc, true, "parameter");
  if (!sym) return false;
  sym->buf = buf, sym->var = var;
  return add_param(t, var, buf);
}

static bool read_scalar_param(Tir *t, const AstParam *p, MlcDType dt) {
  MlcRdSym *sym = mlc_rd_lookup(&t->sc, p->name);
  char ba[32], bb[32];
  /* a size first met in an earlier parameter's shape: this parameter is it */
  if (sym && sym->implicit && sym->kind == MLC_RD_VAR) {
    if (!mlc_dtype_eq(sym->var->dtype, dt))
      return mlc_error(t->ctx, p->loc, "'%s' is a %s size in an earlier shape but declared %s", p->name,
                       mlc_dtype_str(sym->var->dtype, ba), mlc_dtype_str(dt, bb));
    sym->implicit = false;
    return add_param(t, sym->var, NULL);
  }
  LOC_AT(t->ctx, p->loc);
  MlcExpr *var = mlc_e_var(t->ctx, p->name, dt);
  sym = mlc_rd_define(&t->sc, p->name, dt.code == MLC_TC_HANDLE ? MLC_RD_HANDLE : MLC_RD_VAR, p->loc, true,
                      "parameter");
  if (!sym) return false;
  sym->var = var;
  return add_param(t, var, NULL);
}

static bool read_params(Tir *t, const Ast *def) {
  for (int i = 0; i < def->n_params; i++) {
    const AstParam *p = &def->params[i];
    MlcDType dt;
    if (p->dflt) return mlc_error(t->ctx, p->dflt->loc, "parameters of a T.prim_func take no default value");
    if (!p->annot)
      return mlc_error(t->ctx, p->loc, "parameter '%s' needs a type: T.Buffer(...), T.handle or a scalar type such as T.int32",
                       p->name);
    bool ok = is_buffer_annot(p->annot) ? read_buffer_param(t, p)
              : annot_dtype(p->annot, &dt) ? read_scalar_param(t, p, dt)
              : mlc_error(t->ctx, p->annot->loc, "unsupported parameter type");
    if (!ok) return false;
  }
  return true;
}

/* ======================================================================== */
/* declarations: allocations, matched buffers, size vars, iter vars         */
/* ======================================================================== */

typedef enum DeclKind { D_NONE, D_ALLOC, D_ALLOCATE, D_MATCH, D_AXIS, D_REMAP, D_SIZEVAR, D_BUFTYPE } DeclKind;

/* block iterator declarations: spelling, iter kind */
#define TIR_AXES(X)                                                             \
  X("T.axis.spatial", MLC_ITER_SPATIAL) X("T.axis.S", MLC_ITER_SPATIAL)         \
  X("T.axis.reduce", MLC_ITER_REDUCE) X("T.axis.R", MLC_ITER_REDUCE)            \
  X("T.axis.opaque", MLC_ITER_OPAQUE)

static const struct { const char *name; MlcIterKind kind; } axes[] = {
#define X(name, kind) {name, kind},
    TIR_AXES(X)
#undef X
};

static int axis_index(const char *path) {
  for (size_t i = 0; i < sizeof axes / sizeof *axes; i++)
    if (strcmp(path, axes[i].name) == 0) return (int)i;
  return -1;
}

/* `T.int64()` / `T.var("int64")`: the declaration of a size var */
static bool is_sizevar_call(const Ast *v) {
  char path[64];
  MlcDType dt;
  mlc_rd_callee(v, path, sizeof path);
  if (strcmp(path, "T.var") == 0) return true;
  return strncmp(path, "T.", 2) == 0 && mlc_dtype_parse(path + 2, &dt) && v->items.n == 0 && v->n_kws == 0;
}

static DeclKind decl_kind(const Ast *v) {
  char path[64];
  if (!v) return D_NONE;
  if (v->kind == AST_TUPLE) {
    for (int i = 0; i < v->items.n; i++)
      if (!is_sizevar_call(v->items.items[i])) return D_NONE;
    return v->items.n ? D_SIZEVAR : D_NONE;
  }
  mlc_rd_callee(v, path, sizeof path);
  if (strcmp(path, "T.alloc_buffer") == 0) return D_ALLOC;
  if (strcmp(path, "T.allocate") == 0) return D_ALLOCATE;
  if (strcmp(path, "T.match_buffer") == 0) return D_MATCH;
  if (strcmp(path, "T.axis.remap") == 0) return D_REMAP;
  if (axis_index(path) >= 0) return D_AXIS;
  if (strcmp(path, "T.Buffer") == 0 || strcmp(path, "T.decl_buffer") == 0) return D_BUFTYPE;
  return is_sizevar_call(v) ? D_SIZEVAR : D_NONE;
}

static bool decl_alloc(Tir *t, const Ast *st) {
  const Ast *args[MLC_RD_MAX_ARGS];
  if (!need_name(t, st->target, "T.alloc_buffer") ||
      !mlc_rd_args(t->ctx, st->value, "T.alloc_buffer", BUF_SPEC, args))
    return false;
  MlcBuffer *buf = build_buffer(t, st->target->name, args, st->value, false);
  MlcRdSym *sym = buf ? mlc_rd_define(&t->sc, st->target->name, MLC_RD_BUFFER, st->target->loc, true, "buffer") : NULL;
  if (!sym) return false;
  sym->buf = buf;
  mlc_vec_push(&t->block->allocs, buf);
  return true;
}

static bool decl_match(Tir *t, const Ast *st, Level lv) {
  MlcCtx *ctx = t->ctx;
  const Ast *args[MLC_RD_MAX_ARGS];
  if (lv != LV_FUNC) return mlc_error(ctx, st->value->loc, "T.match_buffer must be at the top of the function body");
  if (!need_name(t, st->target, "T.match_buffer") ||
      !mlc_rd_args(ctx, st->value, "T.match_buffer", "param,shape;dtype,data,strides,elem_offset,scope,align,offset_factor,buffer_type,axis_separators", args))
    return false;
  const Ast *pa = args[0];
  MlcRdSym *ps = pa->kind == AST_NAME ? mlc_rd_lookup(&t->sc, pa->name) : NULL;
  size_t k = 0;
  while (ps && ps->kind == MLC_RD_HANDLE && k < t->params.len && t->params.data[k].var != ps->var) k++;
  if (!ps || ps->kind != MLC_RD_HANDLE || k == t->params.len)
    return mlc_error(ctx, pa->loc, "T.match_buffer expects a T.handle parameter");
  if (t->params.data[k].buf)
    return mlc_error(ctx, pa->loc, "parameter '%s' is already matched to a buffer", pa->name);
  MlcBuffer *buf = build_buffer(t, st->target->name, args + 1, st->value, true);
  MlcRdSym *sym = buf ? mlc_rd_define(&t->sc, st->target->name, MLC_RD_BUFFER, st->target->loc, true, "buffer") : NULL;
  if (!sym) return false;
  sym->buf = buf;
  t->params.data[k].buf = buf;
  return true;
}

static bool declare_size_var(Tir *t, const Ast *name, const Ast *call) {
  MlcCtx *ctx = t->ctx;
  char path[64], ba[32], bb[32];
  MlcDType dt;
  mlc_rd_callee(call, path, sizeof path);
  if (strcmp(path, "T.var") == 0) {
    const Ast *args[MLC_RD_MAX_ARGS];
    if (!mlc_rd_args(ctx, call, "T.var", "dtype", args) || !mlc_rd_dtype(ctx, args[0], &dt)) return false;
  } else if (!mlc_dtype_parse(path + 2, &dt)) {
    return mlc_error(ctx, call->loc, "unknown dtype '%s'", path + 2);
  }
  if (dt.code == MLC_TC_VOID || dt.lanes > MLC_RD_MAX_LANES)
    return mlc_error(ctx, call->loc, "a variable cannot be of this dtype");
  MlcRdSym *sym = mlc_rd_lookup(&t->sc, name->name);
  if (sym && sym->implicit && sym->kind == MLC_RD_VAR) { /* first met in a signature shape */
    if (!mlc_dtype_eq(sym->var->dtype, dt))
      return mlc_error(ctx, name->loc, "'%s' is a %s size in the signature but declared %s", name->name,
                       mlc_dtype_str(sym->var->dtype, ba), mlc_dtype_str(dt, bb));
    sym->implicit = false;
    return true;
  }
  LOC_AT(ctx, name->loc);
  MlcExpr *var = mlc_e_var(ctx, name->name, dt);
  if (!(sym = mlc_rd_define(&t->sc, name->name, MLC_RD_VAR, name->loc, false, "variable"))) return false;
  sym->var = var;
  return true;
}

static bool decl_sizevars(Tir *t, const Ast *st) {
  const Ast *tg = st->target, *v = st->value;
  if (tg->kind != AST_NAME && tg->kind != AST_TUPLE)
    return mlc_error(t->ctx, v->loc, "a variable declaration is assigned to a name");
  if (tg->kind == AST_NAME && v->kind == AST_CALL) return declare_size_var(t, tg, v);
  int nv = v->kind == AST_TUPLE ? v->items.n : 1, nt = tg->kind == AST_TUPLE ? tg->items.n : 1;
  if (tg->kind != AST_TUPLE || v->kind != AST_TUPLE || nt != nv)
    return mlc_error(t->ctx, v->loc, "cannot unpack %d value%s into %d name%s", nv, nv == 1 ? "" : "s", nt, nt == 1 ? "" : "s");
  for (int i = 0; i < tg->items.n; i++) {
    if (tg->items.items[i]->kind != AST_NAME) return need_name(t, tg->items.items[i], "a variable declaration");
    if (!declare_size_var(t, tg->items.items[i], v->items.items[i])) return false;
  }
  return true;
}

static bool in_block(Tir *t, Level lv, const Ast *at, const char *fname) {
  if (lv != LV_BLOCK || !t->block->is_block) return mlc_error(t->ctx, at->loc, "%s must be directly inside a block", fname);
  return true;
}

static bool push_iter(Tir *t, const Ast *name, MlcExpr *var, MlcRange dom, MlcIterKind kind, MlcExpr *bind) {
  MlcRdSym *sym = mlc_rd_define(&t->sc, name->name, MLC_RD_ITER, name->loc, true, "iter variable");
  if (!sym) return false;
  sym->var = var;
  MlcIterVar iv = {var, dom, kind};
  mlc_vec_push(&t->block->iters, iv);
  mlc_vec_push(&t->block->binds, bind);
  return true;
}

/* vi = T.axis.spatial(dom, binding[, dtype]); dom an extent or (min, max) */
static bool decl_axis(Tir *t, const Ast *st, Level lv) {
  MlcCtx *ctx = t->ctx;
  char path[64];
  const Ast *args[MLC_RD_MAX_ARGS], *call = st->value;
  mlc_rd_callee(call, path, sizeof path);
  MlcIterKind kind = axes[axis_index(path)].kind;
  if (!in_block(t, lv, call, path) || !need_name(t, st->target, path) ||
      !mlc_rd_args(ctx, call, path, "dom,binding;dtype", args))
    return false;
  const Ast *dom = args[0];
  bool pair = (dom->kind == AST_TUPLE || dom->kind == AST_LIST) && dom->items.n == 2;
  if ((dom->kind == AST_TUPLE || dom->kind == AST_LIST) && !pair)
    return mlc_error(ctx, dom->loc, "an iter domain is an extent or a (min, max) pair");
  MlcRdVal v[3]; /* binding, then min and max or the extent */
  if (!mlc_rd_val(&t->sc, args[1], &v[0])) return false;
  for (int i = 0; i < (pair ? 2 : 1); i++)
    if (!mlc_rd_val(&t->sc, pair ? dom->items.items[i] : dom, &v[1 + i])) return false;
  MlcDType dt;
  if (args[2] ? !mlc_rd_dtype(ctx, args[2], &dt) : !meet_int(t, v, pair ? 3 : 2, path, &dt)) return false;
  if (!mlc_dtype_is_int(dt) || dt.lanes != 1) return mlc_error(ctx, call->loc, "an iter variable is a scalar integer");
  MlcExpr *bind = mlc_rd_val_as(&t->sc, &v[0], dt, "iter binding");
  MlcExpr *lo = pair ? mlc_rd_val_as(&t->sc, &v[1], dt, "iter domain") : (LOC_AT(ctx, dom->loc), mlc_e_int(ctx, dt, 0));
  MlcExpr *hi = mlc_rd_val_as(&t->sc, &v[pair ? 2 : 1], dt, "iter domain");
  MlcRange r = {lo, pair ? sub_fold(t, dom->loc, hi, lo) : hi};
  if (!bind || !check_extent(t, r.extent, dom->loc, "iter domain extent")) return false;
  LOC_AT(ctx, st->target->loc);
  MlcExpr *var = mlc_e_var(ctx, st->target->name, dt);
  return push_iter(t, st->target, var, r, kind, bind);
}

/* vi, vj, vk = T.axis.remap("SSR", [i, j, k]): each iter var takes the
 * domain of the loop it is bound to */
static bool decl_remap(Tir *t, const Ast *st, Level lv) {
  MlcCtx *ctx = t->ctx;
  const Ast *args[MLC_RD_MAX_ARGS], *call = st->value;
  if (!in_block(t, lv, call, "T.axis.remap") || !mlc_rd_args(ctx, call, "T.axis.remap", "kinds,bindings", args))
    return false;
  const Ast *kinds = args[0], *binds = args[1];
  if (kinds->kind != AST_STR) return mlc_error(ctx, kinds->loc, "T.axis.remap expects a string of iter kinds such as \"SSR\"");
  if (binds->kind != AST_LIST && binds->kind != AST_TUPLE)
    return mlc_error(ctx, binds->loc, "T.axis.remap expects a list of loop variables");
  OneList one;
  const AstList *names = tuple_items(st->target, &one);
  int nk = (int)strlen(kinds->str), nb = binds->items.n;
  if (nk != nb) return mlc_error(ctx, call->loc, "T.axis.remap: %d iter kinds for %d bindings", nk, nb);
  if (names->n != nb)
    return mlc_error(ctx, call->loc, "T.axis.remap binds %d iter variables but %d names are assigned", nb, names->n);
  for (int i = 0; i < nk; i++) {
    unsigned char c = (unsigned char)kinds->str[i];
    if (c != 'S' && c != 'R')
      return isprint(c) ? mlc_error(ctx, kinds->loc, "T.axis.remap: iter kind '%c' is not S or R", c)
                        : mlc_error(ctx, kinds->loc, "T.axis.remap: iter kinds are S or R");
  }
  for (int i = 0; i < nb; i++) {
    const Ast *b = binds->items.items[i], *name = names->items[i];
    MlcRdSym *loop = b->kind == AST_NAME ? mlc_rd_lookup(&t->sc, b->name) : NULL;
    if (!loop || loop->kind != MLC_RD_LOOP)
      return mlc_error(ctx, b->loc, "T.axis.remap binds loop variables only");
    if (!need_name(t, name, "an iter variable")) return false;
    MlcExpr *lv_var = loop->var;
    MlcRange dom = {loop->min, loop->extent};
    LOC_AT(ctx, name->loc);
    MlcExpr *var = mlc_e_var(ctx, name->name, lv_var->dtype);
    if (!push_iter(t, name, var, dom, kinds->str[i] == 'S' ? MLC_ITER_SPATIAL : MLC_ITER_REDUCE, lv_var))
      return false;
  }
  return true;
}

/* ======================================================================== */
/* stores                                                                   */
/* ======================================================================== */

static bool read_indices(Tir *t, const Ast *sub, MlcBuffer *buf, MlcExpr **ix) {
  OneList one;
  const AstList *l = tuple_items(sub->index, &one);
  if (l->n != buf->ndim)
    return mlc_error(t->ctx, sub->loc, "buffer '%s' has %d dimension%s, got %d ind%s", buf->name, buf->ndim,
                     buf->ndim == 1 ? "" : "s", l->n, l->n == 1 ? "ex" : "ices");
  for (int i = 0; i < l->n; i++) {
    if (l->items[i]->kind == AST_SLICE)
      return mlc_error(t->ctx, l->items[i]->loc, "slices are only allowed in T.reads / T.writes");
    if (!(ix[i] = mlc_rd_int_expr(&t->sc, l->items[i], "buffer index"))) return false;
  }
  return true;
}

static bool aug_op(AstOp op, MlcBinOp *out) {
  switch (op) {
  case AST_OP_ADD: *out = MLC_BIN_ADD; return true;
  case AST_OP_SUB: *out = MLC_BIN_SUB; return true;
  case AST_OP_MUL: *out = MLC_BIN_MUL; return true;
  case AST_OP_DIV: *out = MLC_BIN_DIV; return true;
  case AST_OP_FLOORDIV: *out = MLC_BIN_FLOORDIV; return true;
  case AST_OP_MOD: *out = MLC_BIN_FLOORMOD; return true;
  default: return false;
  }
}

/* A[i, j] = value, and A[i, j] op= value (st->kind says which) */
static bool read_store(Tir *t, const Ast *st, MlcStmt **out) {
  MlcCtx *ctx = t->ctx;
  const Ast *tg = st->target;
  MlcBuffer *buf = buffer_named(t, tg->value);
  MlcExpr *ix[MLC_RD_MAX_RANK];
  MlcRdVal v;
  if (!buf || !read_indices(t, tg, buf, ix) || !mlc_rd_val(&t->sc, st->value, &v)) return false;
  char what[96];
  snprintf(what, sizeof what, "dtype mismatch storing into buffer '%s'", buf->name);
  int lanes = 1;
  for (int i = 0; i < buf->ndim; i++) lanes = ix[i]->dtype.lanes > lanes ? ix[i]->dtype.lanes : lanes;
  MlcDType want = mlc_dtype_with_lanes(buf->dtype, buf->dtype.lanes * lanes);
  if (st->kind == AST_AUGASSIGN) {
    MlcBinOp op;
    if (!aug_op(st->op, &op)) return mlc_error(ctx, st->loc, "this augmented assignment is not supported");
    LOC_AT(ctx, tg->loc);
    MlcRdVal old = val_of(mlc_e_load(ctx, buf, ix, buf->ndim), tg->loc);
    MlcExpr *a, *b;
    if (!old.e || !mlc_rd_unify(&t->sc, st->loc, mlc_binop_info[op].py, &old, &v, &a, &b)) return false;
    LOC_AT(ctx, st->loc);
    v = val_of(mlc_e_bin(ctx, op, a, b), st->value->loc);
    if (!v.e) return false;
  }
  v.loc = st->loc; /* a mismatch is the store's */
  MlcExpr *value = mlc_rd_val_as(&t->sc, &v, want, what);
  LOC_AT(ctx, st->loc);
  *out = mlc_s_store(ctx, buf, ix, buf->ndim, value);
  return *out != NULL;
}

static bool read_assign(Tir *t, const Ast *st, Level lv, MlcStmt **out) {
  MlcCtx *ctx = t->ctx;
  DeclKind k = decl_kind(st->value);
  if (st->annot && k != D_NONE) return mlc_error(ctx, st->annot->loc, "a declaration takes no annotation");
  switch (k) {
  case D_ALLOC: return decl_alloc(t, st);
  case D_ALLOCATE: return need_name(t, st->target, "T.allocate"); /* a name is read by read_scoped */
  case D_MATCH: return decl_match(t, st, lv);
  case D_AXIS: return decl_axis(t, st, lv);
  case D_REMAP: return decl_remap(t, st, lv);
  case D_SIZEVAR: return decl_sizevars(t, st);
  case D_BUFTYPE:
    return mlc_error(ctx, st->value->loc, "a buffer in a function body is allocated with T.alloc_buffer");
  case D_NONE: break;
  }
  if (st->target->kind == AST_SUBSCRIPT) {
    if (!st->value) return mlc_error(ctx, st->loc, "a store needs a value");
    return read_store(t, st, out);
  }
  return mlc_error(ctx, st->target->loc, "cannot assign to this target in a tensor program");
}

/* `x = value` (a let) and `X = T.allocate(...)` (lowered code) bind a name
 * over the rest of the statement list */
static bool is_scoped(const Ast *st, bool *allocate) {
  if (st->kind != AST_ASSIGN || st->target->kind != AST_NAME) return false;
  DeclKind k = decl_kind(st->value);
  *allocate = k == D_ALLOCATE;
  return k == D_NONE || k == D_ALLOCATE;
}

/* X = T.allocate([extents], dtype, scope): a buffer for the statements after */
static bool read_allocate(Tir *t, const AstList *l, int i, Level lv, MlcStmt **out) {
  MlcCtx *ctx = t->ctx;
  const Ast *st = l->items[i], *args[MLC_RD_MAX_ARGS], *bargs[MLC_RD_MAX_ARGS] = {0};
  if (!mlc_rd_args(ctx, st->value, "T.allocate", "extents,dtype;scope,condition,annotations", args)) return false;
  if (!is_none(args[3]) && args[3]->kind != AST_TRUE) return mlc_error(ctx, args[3]->loc, "condition= is not supported");
  if (!is_none(args[4]) && !(args[4]->kind == AST_DICT && args[4]->items.n == 0))
    return mlc_error(ctx, args[4]->loc, "annotations= of T.allocate are not supported");
  bargs[B_SHAPE] = args[0], bargs[B_DTYPE] = args[1], bargs[B_SCOPE] = args[2];
  MlcBuffer *buf = build_buffer(t, st->target->name, bargs, st->value, false);
  if (!buf) return false;
  MlcStmt *body = NULL;
  mlc_rd_push(&t->sc);
  MlcRdSym *sym = mlc_rd_define(&t->sc, st->target->name, MLC_RD_BUFFER, st->target->loc, true, "buffer");
  bool ok = sym != NULL;
  if (ok) sym->buf = buf, ok = read_body(t, l, i + 1, lv, &body);
  mlc_rd_pop(&t->sc);
  if (!ok) return false;
  LOC_AT(ctx, st->loc);
  *out = mlc_s_allocate(ctx, buf, body);
  return *out != NULL;
}

static bool read_let(Tir *t, const AstList *l, int i, Level lv, MlcStmt **out) {
  MlcCtx *ctx = t->ctx;
  const Ast *st = l->items[i], *name = st->target;
  if (!st->value) return mlc_error(ctx, st->loc, "an annotation alone declares nothing; assign a value");
  MlcDType dt;
  MlcExpr *value = !st->annot ? mlc_rd_expr(&t->sc, st->value)
                   : mlc_rd_dtype(ctx, st->annot, &dt) ? mlc_rd_expr_as(&t->sc, st->value, dt, name->name)
                   : NULL;
  if (!value) return false;
  LOC_AT(ctx, name->loc);
  MlcExpr *var = mlc_e_var(ctx, name->name, value->dtype);
  MlcStmt *body = NULL;
  mlc_rd_push(&t->sc);
  MlcRdSym *sym = mlc_rd_define(&t->sc, name->name, MLC_RD_VAR, name->loc, false, "variable");
  bool ok = sym != NULL;
  if (ok) sym->var = var, ok = read_body(t, l, i + 1, lv, &body);
  mlc_rd_pop(&t->sc);
  if (!ok) return false;
  LOC_AT(ctx, st->loc);
  *out = mlc_s_let(ctx, var, value, body);
  return *out != NULL;
}

/* ======================================================================== */
/* statement calls: T.func_attr, T.where, T.reads, T.writes, ...            */
/* ======================================================================== */

static bool read_range(Tir *t, const Ast *ix, MlcExpr *dim, MlcRange *out) {
  MlcCtx *ctx = t->ctx;
  char b[32];
  if (ix->kind != AST_SLICE) {
    MlcExpr *e = mlc_rd_int_expr(&t->sc, ix, "region index");
    if (!e) return false;
    if (e->dtype.lanes != 1) return mlc_error(ctx, ix->loc, "a region index is a scalar, got %s", mlc_dtype_str(e->dtype, b));
    LOC_AT(ctx, ix->loc);
    *out = (MlcRange){e, mlc_e_int(ctx, e->dtype, 1)};
    return out->extent != NULL;
  }
  if (ix->step) return mlc_error(ctx, ix->step->loc, "a region slice takes no step");
  MlcRdVal v[2] = {lit_int(0, ix->loc), val_of(dim, ix->loc)};
  if ((ix->lo && !mlc_rd_val(&t->sc, ix->lo, &v[0])) || (ix->hi && !mlc_rd_val(&t->sc, ix->hi, &v[1])))
    return false;
  MlcDType dt;
  if (!meet_int(t, v, 2, "region bound", &dt)) return false;
  MlcExpr *lo = mlc_rd_val_as(&t->sc, &v[0], dt, "region bound");
  MlcExpr *hi = lo ? mlc_rd_val_as(&t->sc, &v[1], dt, "region bound") : NULL;
  *out = (MlcRange){lo, sub_fold(t, ix->loc, hi, lo)};
  return out->extent != NULL;
}

static bool read_region(Tir *t, const Ast *a, RegionVec *out) {
  MlcCtx *ctx = t->ctx;
  if (a->kind != AST_SUBSCRIPT && a->kind != AST_NAME)
    return mlc_error(ctx, a->loc, "expected a buffer region such as A[vi, 0:128]");
  MlcBuffer *buf = buffer_named(t, a->kind == AST_SUBSCRIPT ? a->value : a);
  if (!buf) return false;
  MlcRange *ranges = mlc_arena_array(&ctx->arena, (size_t)(buf->ndim ? buf->ndim : 1), sizeof *ranges);
  if (a->kind == AST_NAME) { /* the whole buffer */
    for (int d = 0; d < buf->ndim; d++) {
      LOC_AT(ctx, a->loc);
      ranges[d] = (MlcRange){mlc_e_int(ctx, buf->shape[d]->dtype, 0), buf->shape[d]};
    }
  } else {
    OneList one;
    const AstList *l = tuple_items(a->index, &one);
    if (l->n != buf->ndim)
      return mlc_error(ctx, a->loc, "buffer '%s' has %d dimension%s, got %d ind%s", buf->name, buf->ndim,
                       buf->ndim == 1 ? "" : "s", l->n, l->n == 1 ? "ex" : "ices");
    for (int d = 0; d < buf->ndim; d++)
      if (!read_range(t, l->items[d], buf->shape[d], &ranges[d])) return false;
  }
  MlcBufferRegion r = {buf, ranges};
  mlc_vec_push(out, r);
  return true;
}

static bool read_regions(Tir *t, const Ast *call, const char *fname, bool *given, RegionVec *out) {
  if (*given) return mlc_error(t->ctx, call->loc, "%s is given twice", fname);
  if (call->n_kws) return mlc_error(t->ctx, call->kws[0].loc, "%s takes no keyword arguments", fname);
  *given = true;
  for (int i = 0; i < call->items.n; i++) {
    const Ast *a = call->items.items[i];
    OneList one;
    const AstList *l = items_of(a, &one);
    for (int j = 0; j < l->n; j++)
      if (!read_region(t, l->items[j], out)) return false;
  }
  return true;
}

typedef bool (*StmtFn)(Tir *t, const Ast *call, const char *fname, const Ast **args, MlcStmt **out);

static bool st_func_attr(Tir *t, const Ast *call, const char *fname, const Ast **args, MlcStmt **out) {
  if (t->has_attrs) return mlc_error(t->ctx, call->loc, "%s is given twice", fname);
  t->has_attrs = true;
  return mlc_rd_attrs(t->ctx, &t->sc, args[0], &t->attrs);
}

static bool st_where(Tir *t, const Ast *call, const char *fname, const Ast **args, MlcStmt **out) {
  if (t->block->pred) return mlc_error(t->ctx, call->loc, "%s is given twice", fname);
  t->block->pred = mlc_rd_expr_as(&t->sc, args[0], MLC_BOOL, fname);
  return t->block->pred != NULL;
}

static bool st_reads(Tir *t, const Ast *call, const char *fname, const Ast **args, MlcStmt **out) {
  return read_regions(t, call, fname, &t->block->has_reads, &t->block->reads);
}

static bool st_writes(Tir *t, const Ast *call, const char *fname, const Ast **args, MlcStmt **out) {
  return read_regions(t, call, fname, &t->block->has_writes, &t->block->writes);
}

static bool st_block_attr(Tir *t, const Ast *call, const char *fname, const Ast **args, MlcStmt **out) {
  if (t->block->has_attrs) return mlc_error(t->ctx, call->loc, "%s is given twice", fname);
  t->block->has_attrs = true;
  return mlc_rd_attrs(t->ctx, &t->sc, args[0], &t->block->annotations);
}

static bool st_evaluate(Tir *t, const Ast *call, const char *fname, const Ast **args, MlcStmt **out) {
  MlcExpr *e = mlc_rd_expr(&t->sc, args[0]);
  LOC_AT(t->ctx, call->loc);
  *out = mlc_s_evaluate(t->ctx, e);
  return *out != NULL;
}

/* name, handler, where it may stand (LV_NESTED: anywhere), parameters (NULL:
 * the handler takes the arguments as they are) */
#define TIR_STMT_CALLS(X)                                   \
  X("T.func_attr", st_func_attr, LV_FUNC, "attrs")          \
  X("T.where", st_where, LV_BLOCK, "predicate")             \
  X("T.reads", st_reads, LV_BLOCK, NULL)                    \
  X("T.writes", st_writes, LV_BLOCK, NULL)                  \
  X("T.block_attr", st_block_attr, LV_BLOCK, "attrs")       \
  X("T.evaluate", st_evaluate, LV_NESTED, "value")

static const struct { const char *name; StmtFn fn; Level lv; const char *spec; } stmt_calls[] = {
#define X(name, fn, lv, spec) {name, fn, lv, spec},
    TIR_STMT_CALLS(X)
#undef X
};

static bool read_expr_stmt(Tir *t, const Ast *st, Level lv, MlcStmt **out) {
  MlcCtx *ctx = t->ctx;
  const Ast *e = st->lhs;
  char path[128];
  if (e->kind == AST_STR) return true; /* a docstring */
  if (e->kind != AST_CALL) return mlc_error(ctx, e->loc, "this expression statement has no effect");
  mlc_rd_callee(e, path, sizeof path);
  for (size_t i = 0; i < sizeof stmt_calls / sizeof *stmt_calls; i++) {
    if (strcmp(path, stmt_calls[i].name) != 0) continue;
    Level want = stmt_calls[i].lv;
    if (want == LV_FUNC && lv != LV_FUNC)
      return mlc_error(ctx, e->loc, "%s must be at the top of the function body", path);
    if (want == LV_BLOCK && !in_block(t, lv, e, path)) return false;
    const Ast *args[MLC_RD_MAX_ARGS] = {0};
    if (stmt_calls[i].spec && !mlc_rd_args(ctx, e, path, stmt_calls[i].spec, args)) return false;
    return stmt_calls[i].fn(t, e, path, args, out);
  }
  MlcExpr *x = mlc_rd_expr(&t->sc, e);
  LOC_AT(ctx, e->loc);
  *out = mlc_s_evaluate(ctx, x);
  return *out != NULL;
}

/* ======================================================================== */
/* loops                                                                    */
/* ======================================================================== */

/* loop spellings: name, kind, parameters, slots of step / thread / annotations (-1 none) */
#define TIR_LOOPS(X)                                                                          \
  X("range", MLC_FOR_SERIAL, "start;stop,step", 2, -1, -1)                                    \
  X("T.serial", MLC_FOR_SERIAL, "start;stop,annotations", -1, -1, 2)                          \
  X("T.parallel", MLC_FOR_PARALLEL, "start;stop,annotations", -1, -1, 2)                      \
  X("T.vectorized", MLC_FOR_VECTORIZED, "start;stop,annotations", -1, -1, 2)                  \
  X("T.unroll", MLC_FOR_UNROLLED, "start;stop,annotations", -1, -1, 2)                        \
  X("T.thread_binding", MLC_FOR_THREAD, "start;stop,thread,annotations", -1, 2, 3)

static const struct { const char *name; MlcForKind kind; const char *spec; int step, thread, ann; } loops[] = {
#define X(name, kind, spec, step, thread, ann) {name, kind, spec, step, thread, ann},
    TIR_LOOPS(X)
#undef X
};

static MlcRdSym *define_loop_var(Tir *t, const Ast *name, MlcExpr *var, MlcExpr *min, MlcExpr *extent) {
  MlcRdSym *sym = mlc_rd_define(&t->sc, name->name, MLC_RD_LOOP, name->loc, false, "loop variable");
  if (sym) sym->var = var, sym->min = min, sym->extent = extent;
  return sym;
}

/* for i, j in T.grid(m, n): directly nested serial loops from 0 */
static bool read_grid(Tir *t, const Ast *st, MlcStmt **out) {
  MlcCtx *ctx = t->ctx;
  const Ast *call = st->iter;
  OneList one;
  const AstList *names = tuple_items(st->target, &one);
  int n = call->items.n;
  if (call->n_kws) return mlc_error(ctx, call->kws[0].loc, "T.grid takes no keyword arguments");
  if (n < 1 || n > MLC_RD_MAX_RANK) return mlc_error(ctx, call->loc, "T.grid expects 1 to %d extents, got %d", MLC_RD_MAX_RANK, n);
  if (names->n != n) return mlc_error(ctx, call->loc, "T.grid has %d extent%s but %d loop variable%s", n, n == 1 ? "" : "s",
                                      names->n, names->n == 1 ? "" : "s");
  MlcExpr *vars[MLC_RD_MAX_RANK], *ext[MLC_RD_MAX_RANK];
  for (int i = 0; i < n; i++) {
    const Ast *a = call->items.items[i];
    MlcRdVal v;
    MlcDType dt;
    if (!need_name(t, names->items[i], "a loop variable") || !mlc_rd_val(&t->sc, a, &v) ||
        !meet_int(t, &v, 1, "a loop extent", &dt))
      return false;
    ext[i] = mlc_rd_val_as(&t->sc, &v, dt, "loop extent");
    if (!check_extent(t, ext[i], a->loc, "loop extent")) return false;
    LOC_AT(ctx, names->items[i]->loc);
    vars[i] = mlc_e_var(ctx, names->items[i]->name, dt);
  }
  mlc_rd_push(&t->sc);
  bool ok = true;
  for (int i = 0; ok && i < n; i++)
    ok = define_loop_var(t, names->items[i], vars[i], mlc_e_int(ctx, vars[i]->dtype, 0), ext[i]) != NULL;
  MlcStmt *body = NULL;
  ok = ok && read_body(t, &st->body, 0, LV_NESTED, &body);
  mlc_rd_pop(&t->sc);
  LOC_AT(ctx, st->loc);
  for (int i = n - 1; ok && i >= 0; i--)
    ok = (body = mlc_s_for(ctx, vars[i], mlc_e_int(ctx, vars[i]->dtype, 0), ext[i], MLC_FOR_SERIAL, NULL,
                           (MlcAttrs){0}, body)) != NULL;
  *out = body;
  return ok;
}

static bool loop_options(Tir *t, const Ast **args, int k, const char **thread, MlcAttrs *ann) {
  MlcCtx *ctx = t->ctx;
  if (loops[k].step >= 0 && args[loops[k].step]) {
    int64_t s;
    if (!mlc_rd_int_literal(args[loops[k].step], &s) || s != 1)
      return mlc_error(ctx, args[loops[k].step]->loc, "a loop step must be 1");
  }
  if (loops[k].thread >= 0) {
    /* T.thread_binding(n, "threadIdx.x"): the tag may come second */
    const Ast *tag = args[loops[k].thread];
    if (!tag && args[1] && args[1]->kind == AST_STR) tag = args[1], args[1] = NULL;
    if (!tag || tag->kind != AST_STR || !*tag->str)
      return mlc_error(ctx, args[0]->loc, "T.thread_binding needs thread=\"threadIdx.x\" or the like");
    *thread = tag->str;
  }
  if (loops[k].ann >= 0 && !is_none(args[loops[k].ann]) && !mlc_rd_attrs(ctx, &t->sc, args[loops[k].ann], ann))
    return false;
  return true;
}

static bool read_for(Tir *t, const Ast *st, MlcStmt **out) {
  MlcCtx *ctx = t->ctx;
  char path[128];
  const Ast *call = st->iter;
  if (st->orelse.n) return mlc_error(ctx, st->orelse.items[0]->loc, "a loop in a tensor program has no else");
  if (call->kind != AST_CALL) return mlc_error(ctx, call->loc, "expected range(...), T.grid(...) or T.serial/parallel/... (...)");
  mlc_rd_callee(call, path, sizeof path);
  if (strcmp(path, "T.grid") == 0) return read_grid(t, st, out);
  int k = 0, nk = (int)(sizeof loops / sizeof *loops);
  while (k < nk && strcmp(path, loops[k].name) != 0) k++;
  if (k == nk) return mlc_error(ctx, call->loc, "unknown function '%s'", *path ? path : "?");
  if (!need_name(t, st->target, "a loop variable")) return false;
  const Ast *args[MLC_RD_MAX_ARGS];
  const char *thread = NULL;
  MlcAttrs ann = {0};
  if (!mlc_rd_args(ctx, call, path, loops[k].spec, args) || !loop_options(t, args, k, &thread, &ann)) return false;
  MlcRdVal v[2] = {lit_int(0, call->loc), lit_int(0, call->loc)};
  if (!mlc_rd_val(&t->sc, args[0], &v[args[1] ? 0 : 1]) || (args[1] && !mlc_rd_val(&t->sc, args[1], &v[1])))
    return false;
  MlcDType dt;
  if (!meet_int(t, v, 2, "a loop bound", &dt)) return false;
  MlcExpr *min = mlc_rd_val_as(&t->sc, &v[0], dt, "loop bound");
  MlcExpr *hi = min ? mlc_rd_val_as(&t->sc, &v[1], dt, "loop bound") : NULL;
  MlcExpr *extent = sub_fold(t, call->loc, hi, min);
  if (!check_extent(t, extent, call->loc, "loop extent")) return false;
  LOC_AT(ctx, st->target->loc);
  MlcExpr *var = mlc_e_var(ctx, st->target->name, dt);
  MlcStmt *body = NULL;
  mlc_rd_push(&t->sc);
  bool ok = define_loop_var(t, st->target, var, min, extent) && read_body(t, &st->body, 0, LV_NESTED, &body);
  mlc_rd_pop(&t->sc);
  if (!ok) return false;
  LOC_AT(ctx, st->loc);
  *out = mlc_s_for(ctx, var, min, extent, loops[k].kind, thread, ann, body);
  return *out != NULL;
}

/* ======================================================================== */
/* blocks, init, if                                                         */
/* ======================================================================== */

static bool finish_block(Tir *t, const Ast *st, const char *name, bool is_root, BlockState *bs,
                         MlcStmt *body, MlcStmt **out) {
  MlcCtx *ctx = t->ctx;
  if (is_root && bs->iters.len) return mlc_error(ctx, st->loc, "the root block has no iter variables");
  LOC_AT(ctx, st->loc);
  MlcBlock *b = mlc_block_new(ctx, name, bs->iters.data, (int)bs->iters.len, bs->reads.data, (int)bs->reads.len,
                              bs->writes.data, (int)bs->writes.len, bs->init, bs->allocs.data,
                              (int)bs->allocs.len, bs->annotations, body);
  if (!b) return false;
  if (!is_root && (!bs->has_reads || !bs->has_writes)) {
    /* infer what was not written; keep what was */
    MlcBufferRegion *r = b->reads, *w = b->writes;
    int nr = b->n_reads, nw = b->n_writes;
    if (!mlc_block_infer_regions(ctx, b)) return false;
    if (bs->has_reads) b->reads = r, b->n_reads = nr;
    if (bs->has_writes) b->writes = w, b->n_writes = nw;
  }
  LOC_AT(ctx, st->loc);
  *out = mlc_s_realize(ctx, bs->binds.data, (int)bs->binds.len, bs->pred, b);
  if (!*out) return false;
  if (is_root) t->explicit_root = *out, t->explicit_root_ast = st;
  else t->n_blocks++;
  return true;
}

static bool read_block(Tir *t, const Ast *st, Level lv, const char *fname, MlcStmt **out) {
  MlcCtx *ctx = t->ctx;
  const Ast *args[MLC_RD_MAX_ARGS];
  if (!mlc_rd_args(ctx, st->value, fname, ";name,no_realize", args)) return false;
  if (args[0] && args[0]->kind != AST_STR) return mlc_error(ctx, args[0]->loc, "a block name is a string");
  if (args[1] && args[1]->kind != AST_FALSE) return mlc_error(ctx, args[1]->loc, "no_realize=True is not supported");
  const char *name = args[0] ? args[0]->str : mlc_intern(ctx, "");
  bool is_root = lv == LV_FUNC && strcmp(name, "root") == 0 && !t->explicit_root_ast;
  BlockState bs = {.is_block = true}, *saved = t->block;
  MlcStmt *body = NULL;
  t->block = &bs;
  mlc_rd_push(&t->sc);
  bool ok = read_body(t, &st->body, 0, LV_BLOCK, &body);
  mlc_rd_pop(&t->sc);
  t->block = saved;
  ok = ok && finish_block(t, st, name, is_root, &bs, body, out);
  block_state_free(&bs);
  return ok;
}

static bool read_init(Tir *t, const Ast *st, Level lv) {
  const Ast *args[MLC_RD_MAX_ARGS];
  if (!in_block(t, lv, st->value, "T.init") || !mlc_rd_args(t->ctx, st->value, "T.init", "", args)) return false;
  if (t->block->has_init) return mlc_error(t->ctx, st->loc, "T.init is given twice");
  BlockState *bs = t->block;
  mlc_rd_push(&t->sc);
  bool ok = read_body(t, &st->body, 0, LV_NESTED, &bs->init);
  mlc_rd_pop(&t->sc);
  bs->has_init = true;
  return ok;
}

static bool read_with(Tir *t, const Ast *st, Level lv, MlcStmt **out) {
  char path[128];
  if (st->target) return mlc_error(t->ctx, st->target->loc, "'as' is not supported in tensor programs");
  mlc_rd_callee(st->value, path, sizeof path);
  if (strcmp(path, "T.block") == 0 || strcmp(path, "T.sblock") == 0) return read_block(t, st, lv, path, out);
  if (strcmp(path, "T.init") == 0) return read_init(t, st, lv);
  if (strncmp(path, "T.", 2) == 0) return mlc_error(t->ctx, st->value->loc, "unknown function '%s'", path);
  return mlc_error(t->ctx, st->value->loc, "a with statement in a tensor program opens T.block(...) or T.init()");
}

static bool read_branch(Tir *t, const AstList *l, MlcStmt **out) {
  mlc_rd_push(&t->sc);
  bool ok = read_body(t, l, 0, LV_NESTED, out);
  mlc_rd_pop(&t->sc);
  return ok;
}

static bool read_if(Tir *t, const Ast *st, MlcStmt **out) {
  MlcExpr *cond = mlc_rd_expr_as(&t->sc, st->test, MLC_BOOL, "if condition");
  MlcStmt *then_s = NULL, *else_s = NULL;
  if (!cond || !read_branch(t, &st->body, &then_s) || (st->orelse.n && !read_branch(t, &st->orelse, &else_s)))
    return false;
  LOC_AT(t->ctx, st->loc);
  *out = mlc_s_if(t->ctx, cond, then_s, else_s);
  return *out != NULL;
}

/* ======================================================================== */
/* statement lists and the function                                         */
/* ======================================================================== */

static bool read_stmt(Tir *t, const Ast *st, Level lv, MlcStmt **out) {
  MlcCtx *ctx = t->ctx;
  *out = NULL;
  switch (st->kind) {
  case AST_EXPR_STMT: return read_expr_stmt(t, st, lv, out);
  case AST_ASSIGN: return read_assign(t, st, lv, out);
  case AST_AUGASSIGN:
    if (st->target->kind != AST_SUBSCRIPT)
      return mlc_error(ctx, st->target->loc, "variables of a tensor program cannot be reassigned");
    return read_store(t, st, out);
  case AST_FOR: return read_for(t, st, out);
  case AST_WITH: return read_with(t, st, lv, out);
  case AST_IF: return read_if(t, st, out);
  case AST_PASS: return true;
  case AST_RETURN: return mlc_error(ctx, st->loc, "a tensor program returns nothing; it writes into its buffers");
  case AST_ASSERT: return mlc_error(ctx, st->loc, "assert is not supported in tensor programs");
  case AST_FUNCDEF: case AST_CLASSDEF: return mlc_error(ctx, st->loc, "a definition cannot be nested in a tensor program");
  case AST_IMPORT: return mlc_error(ctx, st->loc, "imports belong at the top of the file");
  default: return mlc_error(ctx, st->loc, "expected a statement");
  }
}

static bool read_body(Tir *t, const AstList *l, int start, Level lv, MlcStmt **out) {
  MLC_VEC(MlcStmt *) items = {0};
  bool ok = true;
  for (int i = start; ok && i < l->n; i++) {
    MlcStmt *s = NULL;
    bool allocate;
    if (is_scoped(l->items[i], &allocate)) {
      if (t->let_depth >= MAX_LET_DEPTH) {
        ok = mlc_error(t->ctx, l->items[i]->loc, "more than %d nested lets and allocations in one body",
                       MAX_LET_DEPTH);
        break;
      }
      t->let_depth++;
      ok = allocate ? read_allocate(t, l, i, lv, &s) : read_let(t, l, i, lv, &s);
      t->let_depth--;
      if (ok) mlc_vec_push(&items, s);
      break;
    }
    ok = read_stmt(t, l->items[i], lv, &s);
    if (ok && s) mlc_vec_push(&items, s);
  }
  if (ok) {
    *out = mlc_s_seq(t->ctx, items.data, (int)items.len);
    ok = *out != NULL;
  }
  mlc_vec_free(&items);
  return ok;
}

/* A body that holds blocks (or function-level allocations) lives in a root
 * block; an explicit `with T.block("root")` is that block. */
static bool finish_root(Tir *t, const Ast *def, MlcStmt **body) {
  MlcCtx *ctx = t->ctx;
  BlockState *rs = &t->root;
  if (t->explicit_root) {
    if (*body != t->explicit_root)
      return mlc_error(ctx, t->explicit_root_ast->loc, "a root block must hold the whole function body");
    if (!rs->allocs.len) return true;
    const MlcBlock *ob = t->explicit_root->realize.block;
    for (int i = 0; i < ob->n_allocs; i++) mlc_vec_push(&rs->allocs, ob->allocs[i]);
    LOC_AT(ctx, t->explicit_root_ast->loc);
    MlcBlock *b = mlc_block_new(ctx, ob->name, NULL, 0, ob->reads, ob->n_reads, ob->writes, ob->n_writes, ob->init,
                                rs->allocs.data, (int)rs->allocs.len, ob->annotations, ob->body);
    *body = mlc_s_realize(ctx, NULL, 0, t->explicit_root->realize.pred, b);
    return *body != NULL;
  }
  if (!t->n_blocks && !rs->allocs.len) return true;
  LOC_AT(ctx, def->loc);
  MlcBlock *b = mlc_block_new(ctx, "root", NULL, 0, NULL, 0, NULL, 0, NULL, rs->allocs.data, (int)rs->allocs.len,
                              (MlcAttrs){0}, *body);
  *body = mlc_s_realize(ctx, NULL, 0, NULL, b);
  return *body != NULL;
}

static bool check_header(Tir *t, const Ast *def) {
  MlcCtx *ctx = t->ctx;
  const Ast *dec = NULL, *args[MLC_RD_MAX_ARGS];
  mlc_rd_decorator(def, &dec);
  if (dec && dec->kind == AST_CALL) {
    if (!mlc_rd_args(ctx, dec, "T.prim_func", ";private,check_well_formed", args)) return false;
    for (int i = 0; i < 2; i++)
      if (args[i] && args[i]->kind != AST_TRUE && args[i]->kind != AST_FALSE)
        return mlc_error(ctx, args[i]->loc, "expected True or False");
  }
  if (def->returns && def->returns->kind != AST_NONE)
    return mlc_error(ctx, def->returns->loc, "a T.prim_func returns nothing; it writes into its buffers");
  return true;
}

MlcPrimFunc *mlc_read_prim_func(MlcReader *r, const Ast *def) {
  MlcCtx *ctx = r->ctx;
  MlcLoc saved_loc = ctx->build_loc;
  Tir t = {.ctx = ctx};
  t.block = &t.root;
  mlc_rd_scope_init(&t.sc, ctx);
  mlc_rd_push(&t.sc);
  MlcStmt *body = NULL;
  MlcPrimFunc *f = NULL;
  if (check_header(&t, def) && read_params(&t, def) && read_body(&t, &def->body, 0, LV_FUNC, &body) &&
      finish_root(&t, def, &body)) {
    LOC_AT(ctx, def->loc);
    f = mlc_prim_func_new(ctx, def->name, t.params.data, (int)t.params.len, t.attrs, body);
  }
  mlc_rd_scope_free(&t.sc);
  mlc_vec_free(&t.params);
  block_state_free(&t.root);
  ctx->build_loc = saved_loc;
  return f;
}
