/* read_graph.c - gives a parsed `@R.function` its meaning as a graph function
 * (the R. dialect of TVMScript).
 *
 * One walk over the syntax tree builds the IR with the builders of ir.h.
 * Names follow Python scoping: each binding makes a new var that shadows
 * older ones, an if branch is a scope of its own, and the names a dataflow
 * block does not list in R.output stay in the table marked "ended" so that a
 * later use says why it fails instead of "undefined".  Symbolic dims live in
 * one table per function (name -> int64 var) and every dim is read by the T.
 * dialect's expression reader through it, so one name is one var everywhere
 * in the function.  Errors are recorded at the syntax node that caused them;
 * the whole-function checks of mlc_gfunc_new back them up. */
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mlcc/text.h"
#include "text/read_util.h"

/* R.const bounds: text constants are small; anything bigger is a mistake or
 * an attack on memory. */

typedef struct GEntry {
  const char *name;
  MlcGExpr *var;
  intptr_t prev;   /* entry index + 1 of the binding this one shadows, 0 for none */
  int df_block;    /* the dataflow block that bound it, 0 outside any */
  bool ended;      /* a dataflow var whose block has ended */
} GEntry;

typedef MLC_VEC(GEntry) EntryVec;
typedef MLC_VEC(MlcBinding) BindVec;
typedef MLC_VEC(MlcBindingBlock *) BlockVec;
typedef MLC_VEC(MlcGExpr *) GExprVec;
typedef MLC_VEC(MlcAttr) AttrVec;

typedef struct GReader {
  MlcReader *r;
  MlcCtx *ctx;
  MlcMap dims;        /* interned name -> MlcExpr* int64 symbolic var */
  MlcMap scope;       /* interned name -> entry index + 1 (0: unbound) */
  EntryVec entries;
  MlcMap aliases;     /* names bound to the module by `cls = Module` */
  AttrVec attrs;      /* R.func_attr entries, in source order */
  MlcMap outputs;     /* names listed in the current block's R.output */
  int df_block;       /* id of the dataflow block being read, 0 outside */
  int df_count;
  int branch_depth;   /* > 0 inside an if branch */
  bool effect;        /* reading the value of `_ = ...` or of a call statement */
  MlcGExpr *last_var; /* var bound by the statement just read, NULL if none */
} GReader;

/* A sequence being built: closed blocks and the plain bindings after them. */
typedef struct SeqB {
  BlockVec blocks;
  BindVec cur;
} SeqB;

static MlcGExpr *read_gexpr(GReader *g, const Ast *a, MlcSInfo *hint);
static MlcSInfo *read_sinfo(GReader *g, const Ast *a, bool sig);
static bool read_seq_stmt(GReader *g, const Ast *s, SeqB *seq);

/* ======================================================================== */
/* small syntax helpers                                                     */
/* ======================================================================== */

/* The context, with the construct about to become IR as the place a
 * builder's own error is reported at: wrap the ctx argument of a builder
 * that can refuse its input. */
static MlcCtx *at(GReader *g, const Ast *a) {
  g->ctx->build_loc = a->loc;
  return g->ctx;
}

/* "nn.relu" for R.nn.relu, NULL when `a` is not a dotted path under R. */
static const char *r_path(GReader *g, const Ast *a) {
  char buf[256];
  if (!mlc_rd_path(a, buf, sizeof buf) || strncmp(buf, "R.", 2) != 0 || !buf[2]) return NULL;
  return mlc_intern(g->ctx, buf + 2);
}

static bool is_r_call(GReader *g, const Ast *a, const char *name) {
  if (!a || a->kind != AST_CALL) return false;
  const char *p = r_path(g, a->func);
  return p && strcmp(p, name) == 0;
}

/* T.<name> as a callee: the name, or NULL */
static const char *t_attr(const Ast *f) {
  if (f->kind != AST_ATTR || f->value->kind != AST_NAME || strcmp(f->value->name, "T") != 0)
    return NULL;
  return f->name;
}

static const Ast *kw_value(const Ast *call, const char *name) {
  for (int i = 0; i < call->n_kws; i++)
    if (call->kws[i].name && strcmp(call->kws[i].name, name) == 0) return call->kws[i].value;
  return NULL;
}

/* Refuse keywords outside `allowed` (NULL-terminated), starred arguments and
 * more than max_pos positional ones. */
static bool check_call_form(GReader *g, const Ast *call, const char *const *allowed, int max_pos,
                            const char *what) {
  for (int i = 0; i < call->n_kws; i++) {
    const char *k = call->kws[i].name;
    bool ok = false;
    for (const char *const *p = allowed; k && *p && !ok; p++) ok = strcmp(*p, k) == 0;
    if (!ok)
      return mlc_error(g->ctx, call->kws[i].loc, "%s: unknown keyword '%s'", what, k ? k : "**");
  }
  for (int i = 0; i < call->items.n; i++) {
    if (call->items.items[i]->kind == AST_STAR)
      return mlc_error(g->ctx, call->items.items[i]->loc, "%s: starred arguments are not supported",
                       what);
    if (i >= max_pos)
      return mlc_error(g->ctx, call->items.items[i]->loc,
                       "%s takes at most %d positional argument%s", what, max_pos,
                       max_pos == 1 ? "" : "s");
  }
  return true;
}

/* An argument given by position i or by keyword kw (not both). */
static bool arg_at(GReader *g, const Ast *call, int i, const char *kw, const char *what,
                   const Ast **out) {
  const Ast *p = i < call->items.n ? call->items.items[i] : NULL;
  const Ast *k = kw ? kw_value(call, kw) : NULL;
  if (p && k) return mlc_error(g->ctx, k->loc, "%s: '%s' is given twice", what, kw);
  *out = p ? p : k;
  return true;
}

/* ======================================================================== */
/* names                                                                    */
/* ======================================================================== */

static GEntry *lookup(GReader *g, const char *name) {
  intptr_t i = (intptr_t)mlc_map_get(&g->scope, name);
  return i ? &g->entries.data[i - 1] : NULL;
}

static void bind_name(GReader *g, const char *name, MlcGExpr *var) {
  GEntry e = {name, var, (intptr_t)mlc_map_get(&g->scope, name), g->df_block, false};
  mlc_vec_push(&g->entries, e);
  mlc_map_put(&g->scope, name, (void *)(intptr_t)g->entries.len);
}

/* forget every name bound since `mark`, uncovering what they shadowed */
static void pop_scope(GReader *g, size_t mark) {
  while (g->entries.len > mark) {
    GEntry *e = &g->entries.data[--g->entries.len];
    mlc_map_put(&g->scope, e->name, (void *)e->prev);
  }
}

static bool is_module_name(GReader *g, const char *name) {
  if (lookup(g, name)) return false;
  if (mlc_map_get(&g->aliases, name)) return true;
  return g->r->module_name && strcmp(g->r->module_name, name) == 0;
}

/* MlcFuncKind + 1 of a module function, 0 when there is none */
static intptr_t global_kind(GReader *g, const char *name) {
  return (intptr_t)mlc_map_get(&g->r->globals, name);
}

static const char *module_label(GReader *g) {
  return g->r->module_name ? g->r->module_name : "Module";
}

/* `cls.f`: the global f, checked to exist */
static MlcGExpr *read_global_ref(GReader *g, const Ast *a) {
  if (!global_kind(g, a->name)) {
    mlc_error(g->ctx, a->loc, "module '%s' has no function '%s'", module_label(g), a->name);
    return NULL;
  }
  return mlc_g_global(g->ctx, a->name);
}

static bool is_module_attr(GReader *g, const Ast *a) {
  return a->kind == AST_ATTR && a->value->kind == AST_NAME && is_module_name(g, a->value->name);
}

static MlcGExpr *read_name(GReader *g, const Ast *a) {
  GEntry *e = lookup(g, a->name);
  if (e && e->ended) {
    mlc_error(g->ctx, a->loc,
              "'%s' is a dataflow var of a block that has ended; list it in R.output to use it "
              "after the block", a->name);
    return NULL;
  }
  if (e) return e->var;
  if (is_module_name(g, a->name)) {
    mlc_error(g->ctx, a->loc, "'%s' names the module; write %s.<function>", a->name, a->name);
    return NULL;
  }
  if (global_kind(g, a->name)) return mlc_g_global(g->ctx, a->name);
  MlcExpr *dim = mlc_map_get(&g->dims, a->name);
  if (dim) return mlc_g_prim(g->ctx, dim);
  mlc_error(g->ctx, a->loc, "undefined name '%s'", a->name);
  return NULL;
}

/* ======================================================================== */
/* symbolic dims                                                            */
/* ======================================================================== */

static void declare_dim(GReader *g, const char *name) {
  if (!mlc_map_get(&g->dims, name)) mlc_map_put(&g->dims, name, mlc_e_var(g->ctx, name, MLC_I64));
}

/* Strings in a dim expression name symbolic dims and are created on first
 * use; in a signature bare names are too, as in T.Buffer shapes. */
static void declare_dims_in(GReader *g, const Ast *a, bool names) {
  if (!a) return;
  switch (a->kind) {
  case AST_STR: declare_dim(g, a->str); break;
  case AST_NAME:
    if (names) declare_dim(g, a->name);
    break;
  case AST_BINOP: declare_dims_in(g, a->lhs, names); declare_dims_in(g, a->rhs, names); break;
  case AST_UNARY: declare_dims_in(g, a->lhs, names); break;
  case AST_CALL:
    for (int i = 0; i < a->items.n; i++) declare_dims_in(g, a->items.items[i], names);
    break;
  default: break;
  }
}

static MlcExpr *read_dim(GReader *g, const Ast *a, bool sig) {
  declare_dims_in(g, a, sig);
  MlcExpr *e = mlc_read_shape_expr(g->r, a, &g->dims);
  if (e && (!mlc_dtype_is_int(e->dtype) || e->dtype.lanes != 1)) {
    mlc_error(g->ctx, a->loc, "a dim must be an integer expression");
    return NULL;
  }
  return e;
}

/* a tuple or list of dims into an arena array */
static bool read_dims(GReader *g, const Ast *a, bool sig, MlcExpr ***out, int *n) {
  if (a->kind != AST_TUPLE && a->kind != AST_LIST)
    return mlc_error(g->ctx, a->loc, "expected a tuple of dims like (1, \"n\")");
  MlcExpr **dims = mlc_arena_array(&g->ctx->arena, (size_t)(a->items.n ? a->items.n : 1), sizeof *dims);
  for (int i = 0; i < a->items.n; i++)
    if (!(dims[i] = read_dim(g, a->items.items[i], sig))) return false;
  *out = dims;
  *n = a->items.n;
  return true;
}

/* `n = T.int64()` / `T.var("int64")`: 1; another dtype: -1; not a decl: 0 */
static int dim_decl_kind(const Ast *v) {
  if (v->kind != AST_CALL || v->n_kws) return 0;
  const char *t = t_attr(v->func);
  MlcDType dt;
  if (!t) return 0;
  if (strcmp(t, "var") == 0 && v->items.n == 1 && v->items.items[0]->kind == AST_STR)
    return strcmp(v->items.items[0]->str, "int64") == 0 ? 1 : -1;
  if (v->items.n || !mlc_dtype_parse(t, &dt) || !mlc_dtype_is_int(dt)) return 0;
  return dt.code == MLC_TC_INT && dt.bits == 64 ? 1 : -1;
}

/* The names a statement declares as symbolic dims; 0 when it is not a
 * declaration.  `n, m = T.int64(), T.int64()` declares two. */
static int dim_decl_names(const Ast *s, const Ast **names, const Ast **values, int cap) {
  if (s->kind != AST_ASSIGN || !s->value || s->annot) return 0;
  if (s->target->kind == AST_NAME) {
    if (!dim_decl_kind(s->value)) return 0;
    names[0] = s->target, values[0] = s->value;
    return 1;
  }
  if (s->target->kind != AST_TUPLE || s->value->kind != AST_TUPLE ||
      s->target->items.n != s->value->items.n || s->target->items.n > cap)
    return 0;
  for (int i = 0; i < s->target->items.n; i++) {
    if (s->target->items.items[i]->kind != AST_NAME || !dim_decl_kind(s->value->items.items[i]))
      return 0;
    names[i] = s->target->items.items[i], values[i] = s->value->items.items[i];
  }
  return s->target->items.n;
}

#define DECL_CAP 64

/* true when `s` declares dims (declared now); errors for non-int64 ones */
static bool read_dim_decl(GReader *g, const Ast *s, bool *is_decl) {
  const Ast *names[DECL_CAP], *values[DECL_CAP];
  int n = dim_decl_names(s, names, values, DECL_CAP);
  *is_decl = n > 0;
  for (int i = 0; i < n; i++) {
    if (dim_decl_kind(values[i]) < 0)
      return mlc_error(g->ctx, values[i]->loc, "symbolic dims of graph functions are int64: "
                                               "write %s = T.int64()", names[i]->name);
    declare_dim(g, names[i]->name);
  }
  return true;
}

/* ======================================================================== */
/* struct info                                                              */
/* ======================================================================== */

typedef MlcSInfo *(*SInfoForm)(GReader *g, const Ast *a, const Ast *call, bool sig);

static MlcSInfo *sinfo_tensor(GReader *g, const Ast *a, const Ast *call, bool sig) {
  static const char *const kws[] = {"shape", "dtype", "ndim", NULL};
  if (!call) return mlc_sinfo_tensor(g->ctx, NULL, -1, MLC_VOID);
  const Ast *shape, *dt, *nd = kw_value(call, "ndim");
  if (!check_call_form(g, call, kws, 2, "R.Tensor") || !arg_at(g, call, 0, "shape", "R.Tensor", &shape) ||
      !arg_at(g, call, 1, "dtype", "R.Tensor", &dt))
    return NULL;
  if (shape && shape->kind == AST_STR && !dt) dt = shape, shape = NULL; /* R.Tensor("float32") */
  MlcDType dtype = MLC_VOID;
  if (dt && dt->kind != AST_NONE && !mlc_rd_dtype(g->ctx, dt, &dtype)) return NULL;
  MlcExpr **dims = NULL;
  int ndim = -1;
  int64_t v = -1;
  if (shape && shape->kind != AST_NONE && !read_dims(g, shape, sig, &dims, &ndim)) return NULL;
  if (nd && (!mlc_rd_int_literal(nd, &v) || v < -1 || v > INT_MAX))
    return mlc_error(g->ctx, nd->loc, "R.Tensor: ndim must be an int >= -1"), NULL;
  if (nd && dims && v != ndim && v != -1)
    return mlc_error(g->ctx, nd->loc, "R.Tensor: ndim=%lld but the shape has %d dims",
                     (long long)v, ndim), NULL;
  if (nd && !dims) ndim = (int)v;
  return mlc_sinfo_tensor(at(g, call), dims, ndim, dtype);
}

static MlcSInfo *sinfo_fields(GReader *g, const AstList *items) {
  MlcSInfo **fs = mlc_arena_array(&g->ctx->arena, (size_t)(items->n ? items->n : 1), sizeof *fs);
  for (int i = 0; i < items->n; i++)
    if (!(fs[i] = read_sinfo(g, items->items[i], false))) return NULL;
  return mlc_sinfo_tuple(g->ctx, fs, items->n);
}

static MlcSInfo *sinfo_tuple(GReader *g, const Ast *a, const Ast *call, bool sig) {
  static const char *const kws[] = {NULL};
  if (!call) return mlc_sinfo_tuple(g->ctx, NULL, 0);
  if (!check_call_form(g, call, kws, INT_MAX, "R.Tuple")) return NULL;
  return sinfo_fields(g, &call->items);
}

static MlcSInfo *sinfo_shape(GReader *g, const Ast *a, const Ast *call, bool sig) {
  static const char *const kws[] = {"values", "ndim", NULL};
  if (!call) return mlc_sinfo_shape(g->ctx, NULL, -1);
  const Ast *vals, *nd = kw_value(call, "ndim");
  if (!check_call_form(g, call, kws, 1, "R.Shape") || !arg_at(g, call, 0, "values", "R.Shape", &vals))
    return NULL;
  MlcExpr **dims = NULL;
  int ndim = -1;
  int64_t v = -1;
  if (vals && vals->kind != AST_NONE && !read_dims(g, vals, sig, &dims, &ndim)) return NULL;
  if (nd && (!mlc_rd_int_literal(nd, &v) || v < -1 || v > INT_MAX))
    return mlc_error(g->ctx, nd->loc, "R.Shape: ndim must be an int >= -1"), NULL;
  if (nd && dims && v != ndim && v != -1)
    return mlc_error(g->ctx, nd->loc, "R.Shape: ndim=%lld but %d values are given", (long long)v,
                     ndim), NULL;
  if (nd && !dims) ndim = (int)v;
  return mlc_sinfo_shape(at(g, call), dims, ndim);
}

static MlcSInfo *sinfo_object(GReader *g, const Ast *a, const Ast *call, bool sig) {
  static const char *const kws[] = {NULL};
  if (call && !check_call_form(g, call, kws, 0, "R.Object")) return NULL;
  return mlc_sinfo_object(g->ctx);
}

static MlcExpr *read_prim_expr(GReader *g, const Ast *a);

static MlcSInfo *sinfo_prim(GReader *g, const Ast *a, const Ast *call, bool sig) {
  static const char *const kws[] = {"dtype", "value", NULL};
  if (!call) return mlc_error(g->ctx, a->loc, "R.Prim needs a dtype, e.g. R.Prim(\"int64\")"), NULL;
  const Ast *dt, *val = kw_value(call, "value");
  if (!check_call_form(g, call, kws, 1, "R.Prim") || !arg_at(g, call, 0, "dtype", "R.Prim", &dt))
    return NULL;
  MlcDType dtype = MLC_VOID;
  MlcExpr *value = NULL;
  if (dt && !mlc_rd_dtype(g->ctx, dt, &dtype)) return NULL;
  if (val && !(value = read_prim_expr(g, val))) return NULL;
  if (!dt && !val) return mlc_error(g->ctx, call->loc, "R.Prim needs a dtype or a value"), NULL;
  if (value && dt && !mlc_dtype_eq(value->dtype, dtype))
    return mlc_error(g->ctx, val->loc, "R.Prim: the value's dtype differs from dtype="), NULL;
  return mlc_sinfo_prim(g->ctx, value ? value->dtype : dtype, value);
}

/* Struct info forms: the name after `R.` (or bare, the 2022 spelling) and
 * the reader of its arguments. */
#define SINFO_FORMS(X)       \
  X("Tensor", sinfo_tensor)  \
  X("Tuple", sinfo_tuple)    \
  X("Shape", sinfo_shape)    \
  X("Object", sinfo_object)  \
  X("Prim", sinfo_prim)

static const struct { const char *name; SInfoForm read; } sinfo_forms[] = {
#define X(n, fn) {n, fn},
    SINFO_FORMS(X)
#undef X
};

static SInfoForm sinfo_form(GReader *g, const Ast *head) {
  const char *name = head->kind == AST_NAME ? head->name : r_path(g, head);
  for (size_t i = 0; name && i < sizeof sinfo_forms / sizeof *sinfo_forms; i++)
    if (strcmp(sinfo_forms[i].name, name) == 0) return sinfo_forms[i].read;
  return NULL;
}

/* Does `a` spell struct info (rather than a shape, in the 2022 call_tir)? */
static bool looks_like_sinfo(GReader *g, const Ast *a) {
  if ((a->kind == AST_LIST || a->kind == AST_TUPLE) && a->items.n)
    a = a->items.items[0];
  return sinfo_form(g, a->kind == AST_CALL ? a->func : a) != NULL;
}

/* sig: reading a signature, where bare names in dims declare symbolic dims */
static MlcSInfo *read_sinfo(GReader *g, const Ast *a, bool sig) {
  if (a->kind == AST_TUPLE) return sinfo_fields(g, &a->items);
  const Ast *call = a->kind == AST_CALL ? a : NULL;
  const Ast *head = call ? call->func : a;
  SInfoForm form = sinfo_form(g, head);
  if (!form) {
    char path[64];
    if (mlc_rd_path(head, path, sizeof path))
      mlc_error(g->ctx, a->loc, "unknown struct info '%s': expected R.Tensor, R.Tuple, R.Shape, "
                                "R.Object or R.Prim", path);
    else
      mlc_error(g->ctx, a->loc, "expected struct info: R.Tensor, R.Tuple, R.Shape, R.Object or R.Prim");
    return NULL;
  }
  return form(g, a, call, sig);
}

/* The struct info a name bound to `value` gets: the annotation, unless it
 * contradicts what the value is known to be. */
static MlcSInfo *binding_sinfo(GReader *g, MlcSInfo *annot, const Ast *annot_ast, MlcGExpr *value) {
  MlcSInfo *known = value->sinfo ? value->sinfo : mlc_sinfo_object(g->ctx);
  if (!annot) return known;
  if (mlc_sinfo_contradicts(annot, known)) {
    MlcStrBuf a = {0}, k = {0};
    mlc_print_sinfo(annot, &a);
    mlc_print_sinfo(known, &k);
    mlc_error(g->ctx, annot_ast->loc, "the annotation %s contradicts the value's struct info %s",
              mlc_sb_cstr(&a), mlc_sb_cstr(&k));
    mlc_vec_free(&a);
    mlc_vec_free(&k);
    return NULL;
  }
  return annot;
}

/* ======================================================================== */
/* attributes                                                               */
/* ======================================================================== */

/* keys whose string values are dtypes: dtype, out_dtype, ... */
static bool dtype_key(const char *key) {
  size_t n = strlen(key);
  return strcmp(key, "dtype") == 0 || (n > 6 && strcmp(key + n - 6, "_dtype") == 0);
}

static bool read_attr_value(GReader *g, const char *key, const Ast *a, MlcAttrValue *out) {
  int64_t iv;
  switch (a->kind) {
  case AST_NONE: out->kind = MLC_ATTR_NONE; return true;
  case AST_TRUE: case AST_FALSE: out->kind = MLC_ATTR_BOOL, out->b = a->kind == AST_TRUE; return true;
  case AST_FLOAT: out->kind = MLC_ATTR_FLOAT, out->f = a->float_val; return true;
  case AST_STR:
    if (dtype_key(key) && mlc_dtype_parse(a->str, &out->dtype)) return out->kind = MLC_ATTR_DTYPE, true;
    out->kind = MLC_ATTR_STR, out->s = a->str;
    return true;
  case AST_LIST: case AST_TUPLE: {
    MlcAttrValue *items = mlc_arena_array(&g->ctx->arena, (size_t)(a->items.n ? a->items.n : 1), sizeof *items);
    for (int i = 0; i < a->items.n; i++)
      if (!read_attr_value(g, key, a->items.items[i], &items[i])) return false;
    out->kind = MLC_ATTR_LIST, out->list.items = items, out->list.n = a->items.n;
    return true;
  }
  default: break;
  }
  if (mlc_rd_int_literal(a, &iv)) return out->kind = MLC_ATTR_INT, out->i = iv, true;
  if (a->kind == AST_UNARY && a->op == AST_OP_NEG && a->lhs->kind == AST_FLOAT)
    return out->kind = MLC_ATTR_FLOAT, out->f = -a->lhs->float_val, true;
  if (is_r_call(g, a, "dtype")) {
    if (a->items.n != 1 || a->n_kws) return mlc_error(g->ctx, a->loc, "R.dtype takes one dtype string");
    return out->kind = MLC_ATTR_DTYPE, mlc_rd_dtype(g->ctx, a->items.items[0], &out->dtype);
  }
  if (a->kind == AST_NAME && lookup(g, a->name))
    return mlc_error(g->ctx, a->loc, "'%s' is a graph value; keywords are attributes, so pass it "
                                     "positionally", a->name);
  if (a->kind == AST_NAME || a->kind == AST_BINOP || (a->kind == AST_CALL && t_attr(a->func))) {
    out->kind = MLC_ATTR_EXPR;
    return (out->expr = read_prim_expr(g, a)) != NULL;
  }
  return mlc_error(g->ctx, a->loc, "unsupported value for attribute '%s' (expected a number, string, "
                                   "bool, None, dtype or a list of them)", key);
}

static bool push_attr(GReader *g, AttrVec *v, const char *key, const Ast *value, MlcLoc loc) {
  for (size_t i = 0; i < v->len; i++)
    if (v->data[i].key == key) return mlc_error(g->ctx, loc, "attribute '%s' is given twice", key);
  MlcAttr at = {key, {0}};
  if (!read_attr_value(g, key, value, &at.val)) return false;
  mlc_vec_push(v, at);
  return true;
}

static MlcAttrs attrs_to_arena(GReader *g, AttrVec *v) {
  MlcAttrs out = {mlc_vec_to_arena(&g->ctx->arena, v), (int)v->len};
  return out;
}

/* the keywords of an op call, as its attributes */
static bool read_kw_attrs(GReader *g, const Ast *call, MlcAttrs *out) {
  AttrVec v = {0};
  bool ok = true;
  for (int i = 0; ok && i < call->n_kws; i++) {
    if (!call->kws[i].name) ok = mlc_error(g->ctx, call->kws[i].loc, "**keywords are not supported");
    else ok = push_attr(g, &v, mlc_intern(g->ctx, call->kws[i].name), call->kws[i].value, call->kws[i].loc);
  }
  if (ok) *out = attrs_to_arena(g, &v);
  mlc_vec_free(&v);
  return ok;
}

/* R.func_attr({"key": value, ...}) */
static bool read_func_attr(GReader *g, const Ast *call) {
  static const char *const kws[] = {NULL};
  if (!check_call_form(g, call, kws, 1, "R.func_attr")) return false;
  const Ast *d = call->items.n ? call->items.items[0] : NULL;
  if (!d || d->kind != AST_DICT)
    return mlc_error(g->ctx, d ? d->loc : call->loc, "R.func_attr takes a dict {\"key\": value}");
  for (int i = 0; i < d->items.n; i++) {
    const Ast *k = d->items.items[i];
    if (k->kind != AST_STR) return mlc_error(g->ctx, k->loc, "attribute keys are strings");
    if (!push_attr(g, &g->attrs, mlc_intern(g->ctx, k->str), d->items2.items[i], k->loc)) return false;
  }
  return true;
}

/* ======================================================================== */
/* scalar values: R.prim_value and T. expressions in attributes             */
/* ======================================================================== */

/* does v fit in the int (or bool) dtype dt */
/* T.float32(0.5), T.int64(3), T.bool(True): a typed immediate, or NULL with
 * *handled false when `a` is not one */
static MlcExpr *typed_immediate(GReader *g, const Ast *a, bool *handled) {
  MlcDType dt;
  const char *t = a->kind == AST_CALL ? t_attr(a->func) : NULL;
  *handled = false;
  if (!t || a->items.n != 1 || a->n_kws || !mlc_dtype_parse(t, &dt) || dt.lanes != 1) return NULL;
  const Ast *v = a->items.items[0];
  int64_t iv = 0;
  bool neg_float = v->kind == AST_UNARY && v->op == AST_OP_NEG && v->lhs->kind == AST_FLOAT;
  if (mlc_dtype_is_float(dt) && (v->kind == AST_FLOAT || neg_float || mlc_rd_int_literal(v, &iv))) {
    *handled = true;
    double f = v->kind == AST_FLOAT ? v->float_val : neg_float ? -v->lhs->float_val : (double)iv;
    return mlc_e_float(g->ctx, dt, f);
  }
  if (dt.code == MLC_TC_BOOL && (v->kind == AST_TRUE || v->kind == AST_FALSE)) {
    *handled = true;
    return mlc_e_int(g->ctx, dt, v->kind == AST_TRUE);
  }
  if ((mlc_dtype_is_int(dt) || dt.code == MLC_TC_BOOL) && mlc_rd_int_literal(v, &iv)) {
    *handled = true;
    if (!mlc_rd_int_fits(dt, iv))
      return mlc_error(g->ctx, v->loc, "%lld does not fit in %s", (long long)iv, t), NULL;
    return mlc_e_int(g->ctx, dt, iv);
  }
  return NULL;
}

/* A scalar: literals (int -> int64, float -> float32, bool), typed
 * immediates, or an integer expression over the symbolic dims. */
static MlcExpr *read_prim_expr(GReader *g, const Ast *a) {
  bool handled;
  int64_t iv;
  MlcExpr *e = typed_immediate(g, a, &handled);
  if (handled) return e;
  if (a->kind == AST_TRUE || a->kind == AST_FALSE) return mlc_e_int(g->ctx, MLC_BOOL, a->kind == AST_TRUE);
  if (a->kind == AST_FLOAT) return mlc_e_float(g->ctx, MLC_F32, a->float_val);
  if (a->kind == AST_UNARY && a->op == AST_OP_NEG && a->lhs->kind == AST_FLOAT)
    return mlc_e_float(g->ctx, MLC_F32, -a->lhs->float_val);
  if (mlc_rd_int_literal(a, &iv)) return mlc_e_int(g->ctx, MLC_I64, iv);
  return read_dim(g, a, false);
}

/* ======================================================================== */
/* R.const                                                                  */
/* ======================================================================== */

static bool is_seq(const Ast *a) { return a->kind == AST_LIST || a->kind == AST_TUPLE; }

static MlcGExpr *read_const(GReader *g, const Ast *call) {
  static const char *const kws[] = {"value", "dtype", NULL};
  const Ast *v, *dt;
  if (!check_call_form(g, call, kws, 2, "R.const") || !arg_at(g, call, 0, "value", "R.const", &v) ||
      !arg_at(g, call, 1, "dtype", "R.const", &dt))
    return NULL;
  return mlc_rd_graph_const(g->ctx, call, v, dt);
}

/* ======================================================================== */
/* call_tir and call_dps_packed                                             */
/* ======================================================================== */

static bool form_error(GReader *g, MlcLoc loc, const char *what) {
  return mlc_error(g->ctx, loc, "%s expects (callee, args tuple, out_sinfo)", what);
}

/* 2022 outputs: a shape (1, 128) with dtype="float32", or a list of shapes
 * with a list of dtypes (or one dtype for all) */
static MlcSInfo *out_from_shapes(GReader *g, const Ast *o, const Ast *dt, const char *what) {
  if (!dt) return mlc_error(g->ctx, o->loc, "%s: an output shape needs dtype=", what), NULL;
  bool many = o->items.n && is_seq(o->items.items[0]);
  int n = many ? o->items.n : 1;
  if (many && is_seq(dt) && dt->items.n != n)
    return mlc_error(g->ctx, dt->loc, "%s: %d output shapes but %d dtypes", what, n, dt->items.n), NULL;
  MlcSInfo **fs = mlc_arena_array(&g->ctx->arena, (size_t)n, sizeof *fs);
  for (int i = 0; i < n; i++) {
    const Ast *shape = many ? o->items.items[i] : o;
    const Ast *d = is_seq(dt) && many ? dt->items.items[i] : dt;
    MlcExpr **dims;
    int nd;
    MlcDType t;
    if (!mlc_rd_dtype(g->ctx, d, &t) || !read_dims(g, shape, false, &dims, &nd)) return NULL;
    if (!(fs[i] = mlc_sinfo_tensor(at(g, shape), dims, nd, t))) return NULL;
  }
  return many ? mlc_sinfo_tuple(g->ctx, fs, n) : fs[0];
}

static MlcSInfo *read_out_sinfo(GReader *g, const Ast *call, const char *what) {
  const Ast *o, *dt = kw_value(call, "dtype");
  if (!arg_at(g, call, 2, "out_sinfo", what, &o)) return NULL;
  if (!o) return form_error(g, call->loc, what), NULL;
  if (!looks_like_sinfo(g, o)) {
    if (!is_seq(o)) return form_error(g, o->loc, what), NULL;
    return out_from_shapes(g, o, dt, what);
  }
  if (dt) return mlc_error(g->ctx, dt->loc, "%s: dtype= goes with an output shape, not out_sinfo", what), NULL;
  MlcSInfo *s = o->kind == AST_LIST ? sinfo_fields(g, &o->items) : read_sinfo(g, o, false);
  /* a list of several is a tuple of them; a list of one is that one */
  if (s && o->kind == AST_LIST && o->items.n == 1) s = s->tuple.fields[0];
  if (!s) return NULL;
  bool ok = s->kind == MLC_SINFO_TENSOR;
  if (s->kind == MLC_SINFO_TUPLE) {
    ok = s->tuple.n > 0;
    for (int i = 0; i < s->tuple.n; i++) ok = ok && s->tuple.fields[i]->kind == MLC_SINFO_TENSOR;
  }
  if (!ok) return mlc_error(g->ctx, o->loc, "%s: out_sinfo must be R.Tensor or a list of them", what), NULL;
  return s;
}

/* the args tuple, read into `out` */
static bool read_dps_args(GReader *g, const Ast *call, const char *what, GExprVec *out) {
  const Ast *t = call->items.n > 1 ? call->items.items[1] : NULL;
  if (!t || !is_seq(t)) return form_error(g, t ? t->loc : call->loc, what);
  for (int i = 0; i < t->items.n; i++) {
    MlcGExpr *e = read_gexpr(g, t->items.items[i], NULL);
    if (!e) return false;
    mlc_vec_push(out, e);
  }
  return true;
}

/* the callee of call_tir: a prim func of the module, as cls.f or (2022) f */
static MlcGExpr *read_tir_callee(GReader *g, const Ast *a) {
  const char *name;
  if (is_module_attr(g, a)) name = a->name;
  else if (a->kind == AST_NAME && !lookup(g, a->name) && global_kind(g, a->name)) name = a->name;
  else if (a->kind == AST_NAME && !lookup(g, a->name) && !is_module_name(g, a->name))
    return mlc_error(g->ctx, a->loc, "undefined name '%s'", a->name), NULL;
  else return mlc_error(g->ctx, a->loc, "R.call_tir callee must be a prim func of the module (cls.f)"), NULL;
  intptr_t k = global_kind(g, name);
  if (!k) return mlc_error(g->ctx, a->loc, "module '%s' has no function '%s'", module_label(g), name), NULL;
  if (k != MLC_FUNC_PRIM + 1)
    return mlc_error(g->ctx, a->loc, "R.call_tir callee '%s' is not a prim func of the module", name), NULL;
  return mlc_g_global(g->ctx, name);
}

static MlcGExpr *read_dps_call(GReader *g, const Ast *call, bool tir) {
  static const char *const kws[] = {"out_sinfo", "dtype", NULL};
  const char *what = tir ? "R.call_tir" : "R.call_dps_packed";
  if (!check_call_form(g, call, kws, 3, what)) return NULL;
  if (call->items.n < 2) return form_error(g, call->loc, what), NULL;
  const Ast *c = call->items.items[0];
  MlcGExpr *callee;
  if (c->kind == AST_STR) callee = mlc_g_extern(g->ctx, c->str), tir = false; /* 2022: packed */
  else if (!tir) return mlc_error(g->ctx, c->loc, "R.call_dps_packed expects a function name string"), NULL;
  else callee = read_tir_callee(g, c);
  if (!callee) return NULL;
  GExprVec args = {0};
  MlcSInfo *out = NULL;
  MlcGExpr *e = NULL;
  if (read_dps_args(g, call, what, &args) && (out = read_out_sinfo(g, call, what)))
    e = tir ? mlc_g_call_tir(at(g, call), callee, args.data, (int)args.len, out)
            : mlc_g_call_dps_packed(at(g, call), callee, args.data, (int)args.len, out);
  mlc_vec_free(&args);
  return e;
}

static MlcGExpr *read_call_tir(GReader *g, const Ast *call) { return read_dps_call(g, call, true); }
static MlcGExpr *read_call_dps_packed(GReader *g, const Ast *call) { return read_dps_call(g, call, false); }

/* ======================================================================== */
/* other R. value calls                                                     */
/* ======================================================================== */

/* the one positional argument of R.<what>(x) */
static const Ast *one_arg(GReader *g, const Ast *call, const char *what) {
  static const char *const kws[] = {NULL};
  if (!check_call_form(g, call, kws, 1, what)) return NULL;
  if (call->items.n != 1) return mlc_error(g->ctx, call->loc, "%s takes one argument", what), NULL;
  return call->items.items[0];
}

static MlcGExpr *read_shape_value(GReader *g, const Ast *call) {
  const Ast *a = one_arg(g, call, "R.shape");
  MlcExpr **dims;
  int n;
  if (!a || !read_dims(g, a, false, &dims, &n)) return NULL;
  return mlc_g_shape(at(g, a), dims, n);
}

static MlcGExpr *read_prim_value(GReader *g, const Ast *call) {
  const Ast *a = one_arg(g, call, "R.prim_value");
  return a ? mlc_g_prim(g->ctx, read_prim_expr(g, a)) : NULL;
}

static MlcGExpr *read_str_value(GReader *g, const Ast *call) {
  const Ast *a = one_arg(g, call, "R.str");
  if (!a) return NULL;
  if (a->kind != AST_STR) return mlc_error(g->ctx, a->loc, "R.str takes a string"), NULL;
  return mlc_g_str(g->ctx, a->str);
}

static MlcGExpr *read_dtype_value(GReader *g, const Ast *call) {
  const Ast *a = one_arg(g, call, "R.dtype");
  MlcDType t;
  return a && mlc_rd_dtype(g->ctx, a, &t) ? mlc_g_dtype(g->ctx, t) : NULL;
}

static MlcGExpr *read_tuple_items(GReader *g, const AstList *items) {
  GExprVec v = {0};
  MlcGExpr *e = NULL;
  int i = 0;
  for (; i < items->n; i++) {
    MlcGExpr *f = read_gexpr(g, items->items[i], NULL);
    if (!f) break;
    mlc_vec_push(&v, f);
  }
  if (i == items->n) e = mlc_g_tuple(g->ctx, v.data, items->n);
  mlc_vec_free(&v);
  return e;
}

static MlcGExpr *read_tuple_call(GReader *g, const Ast *call) {
  static const char *const kws[] = {NULL};
  return check_call_form(g, call, kws, INT_MAX, "R.tuple") ? read_tuple_items(g, &call->items) : NULL;
}

/* sinfo_args= of R.call_packed: one struct info, or a tuple / list of them */
static bool read_sinfo_args(GReader *g, const Ast *a, MlcSInfo ***out, int *n) {
  bool many = a->kind == AST_TUPLE || a->kind == AST_LIST;
  int k = many ? a->items.n : 1;
  MlcSInfo **s = mlc_arena_array(&g->ctx->arena, (size_t)(k ? k : 1), sizeof *s);
  for (int i = 0; i < k; i++)
    if (!(s[i] = read_sinfo(g, many ? a->items.items[i] : a, false))) return false;
  *out = s;
  *n = k;
  return true;
}

/* R.call_packed("env.f", args..., sinfo_args=...): a call of an extern
 * function that is not in destination-passing form (it returns its result
 * or writes the args it is given).  Like any call, its value's struct info
 * is the binding's annotation (object without one). */
static MlcGExpr *read_call_packed(GReader *g, const Ast *call, MlcSInfo *hint) {
  static const char *const kws[] = {"sinfo_args", NULL};
  if (!check_call_form(g, call, kws, INT_MAX, "R.call_packed")) return NULL;
  const Ast *name = call->items.n ? call->items.items[0] : NULL;
  if (!name || name->kind != AST_STR)
    return mlc_error(g->ctx, name ? name->loc : call->loc, "R.call_packed expects a function name string "
                                                           "first"), NULL;
  const Ast *sa = kw_value(call, "sinfo_args");
  MlcSInfo **sargs = NULL;
  int n_sargs = 0;
  if (sa && !read_sinfo_args(g, sa, &sargs, &n_sargs)) return NULL;
  GExprVec args = {0};
  MlcGExpr *e = NULL;
  int i = 1;
  for (; i < call->items.n; i++) {
    MlcGExpr *v = read_gexpr(g, call->items.items[i], NULL);
    if (!v) break;
    mlc_vec_push(&args, v);
  }
  if (i == call->items.n)
    e = mlc_g_call(g->ctx, mlc_g_extern(g->ctx, name->str), args.data, (int)args.len, (MlcAttrs){0},
                   sargs, n_sargs, hint ? hint : mlc_sinfo_object(g->ctx));
  mlc_vec_free(&args);
  return e;
}

typedef MlcGExpr *(*RCall)(GReader *g, const Ast *call);

/* R. calls that are not ops: the name after `R.` and its reader */
#define R_VALUE_CALLS(X)                      \
  X("call_tir", read_call_tir)                \
  X("call_dps_packed", read_call_dps_packed)  \
  X("const", read_const)                      \
  X("shape", read_shape_value)                \
  X("prim_value", read_prim_value)            \
  X("str", read_str_value)                    \
  X("dtype", read_dtype_value)                \
  X("tuple", read_tuple_call)

static const struct { const char *name; RCall read; } r_value_calls[] = {
#define X(n, fn) {n, fn},
    R_VALUE_CALLS(X)
#undef X
};

/* R. names that are statements or struct info, never values */
static const char *const r_not_values[] = {
    "output", "dataflow", "func_attr", "function", "Tensor", "Tuple", "Shape", "Object", "Prim",
};

/* ======================================================================== */
/* op calls and calls to functions                                          */
/* ======================================================================== */

/* int literals and symbolic dims, with arithmetic: what a shape holds */
static bool is_dim_ast(GReader *g, const Ast *a) {
  int64_t v;
  switch (a->kind) {
  case AST_NAME: return !lookup(g, a->name) && mlc_map_get(&g->dims, a->name) != NULL;
  case AST_BINOP: return is_dim_ast(g, a->lhs) && is_dim_ast(g, a->rhs);
  default: return mlc_rd_int_literal(a, &v);
  }
}

/* An op argument: a tuple of ints / dims, as in R.reshape(x, (1, n)), is a
 * shape; with a negative entry, as in R.reshape(x, (-1, 2)), it cannot be
 * one, and is a tuple of prim values (the op reads both as a list of ints);
 * anything else is a graph value. */
static MlcGExpr *read_op_arg(GReader *g, const Ast *a) {
  bool shape = is_seq(a) && a->items.n > 0, negative = false;
  for (int i = 0; shape && i < a->items.n; i++) {
    int64_t v;
    shape = is_dim_ast(g, a->items.items[i]);
    negative |= mlc_rd_int_literal(a->items.items[i], &v) && v < 0;
  }
  if (!shape) return read_gexpr(g, a, NULL);
  MlcExpr **dims;
  int n;
  if (!read_dims(g, a, false, &dims, &n)) return NULL;
  if (!negative) return mlc_g_shape(at(g, a), dims, n);
  MlcGExpr **items = mlc_arena_array(&g->ctx->arena, (size_t)n, sizeof *items);
  for (int i = 0; i < n; i++)
    if (!(items[i] = mlc_g_prim(at(g, a), dims[i]))) return NULL;
  return mlc_g_tuple(at(g, a), items, n);
}

static MlcGExpr *finish_call(GReader *g, MlcGExpr *callee, const Ast *call, bool op, MlcAttrs attrs,
                             MlcSInfo *hint) {
  GExprVec args = {0};
  MlcGExpr *e = NULL;
  int i = 0;
  for (; i < call->items.n; i++) {
    const Ast *a = call->items.items[i];
    if (a->kind == AST_STAR) {
      mlc_error(g->ctx, a->loc, "starred arguments are not supported");
      break;
    }
    MlcGExpr *v = op ? read_op_arg(g, a) : read_gexpr(g, a, NULL);
    if (!v) break;
    mlc_vec_push(&args, v);
  }
  if (i == call->items.n)
    e = mlc_g_call(g->ctx, callee, args.data, (int)args.len, attrs, NULL, 0,
                   hint ? hint : mlc_sinfo_object(g->ctx));
  mlc_vec_free(&args);
  return e;
}

static MlcGExpr *read_r_call(GReader *g, const Ast *call, const char *path, MlcSInfo *hint) {
  if (strcmp(path, "call_packed") == 0) return read_call_packed(g, call, hint);
  for (size_t i = 0; i < sizeof r_value_calls / sizeof *r_value_calls; i++)
    if (strcmp(r_value_calls[i].name, path) == 0) return r_value_calls[i].read(g, call);
  for (size_t i = 0; i < sizeof r_not_values / sizeof *r_not_values; i++)
    if (strcmp(r_not_values[i], path) == 0)
      return mlc_error(g->ctx, call->loc, "R.%s is not a value here", path), NULL;
  MlcAttrs attrs = {0};
  if (!read_kw_attrs(g, call, &attrs)) return NULL;
  return finish_call(g, mlc_g_op(g->ctx, path), call, true, attrs, hint);
}

/* cls.f(x), f(x), or a call of a function-valued var */
static MlcGExpr *read_func_call(GReader *g, const Ast *call, MlcSInfo *hint) {
  const Ast *f = call->func;
  MlcGExpr *callee;
  if (is_module_attr(g, f)) callee = read_global_ref(g, f);
  else if (f->kind == AST_NAME) callee = read_name(g, f);
  else if (t_attr(f))
    return mlc_error(g->ctx, f->loc, "T.%s is not a graph value; use R.prim_value(...)", t_attr(f)), NULL;
  else {
    char path[128];
    if (mlc_rd_path(f, path, sizeof path))
      return mlc_error(g->ctx, f->loc, "unknown function '%s' in a graph function", path), NULL;
    return mlc_error(g->ctx, f->loc, "unsupported callee in a graph function"), NULL;
  }
  if (!callee) return NULL;
  /* a prim func called directly is a destination-passing call (outputs
   * last), the form explicit allocation makes */
  bool prim = callee->kind == MLC_G_GLOBAL && global_kind(g, callee->str) == MLC_FUNC_PRIM + 1;
  if (prim && !g->effect)
    return mlc_error(g->ctx, f->loc, "'%s' is a prim func: call it through R.call_tir (a destination-"
                                     "passing call is written `_ = cls.%s(args..., outputs...)`)",
                     callee->str, callee->str), NULL;
  if (callee->kind != MLC_G_GLOBAL && callee->kind != MLC_G_VAR && callee->kind != MLC_G_DFVAR)
    return mlc_error(g->ctx, f->loc, "'%s' is not a function", f->name), NULL;
  if (call->n_kws)
    return mlc_error(g->ctx, call->kws[0].loc, "calls of %s take no keywords",
                     prim ? "prim funcs" : "graph functions"), NULL;
  return finish_call(g, callee, call, false, (MlcAttrs){0}, hint);
}

/* ======================================================================== */
/* graph expressions                                                        */
/* ======================================================================== */

static MlcGExpr *read_get_item(GReader *g, const Ast *a) {
  int64_t i;
  if (!mlc_rd_int_literal(a->index, &i))
    return mlc_error(g->ctx, a->index->loc, "a tuple index must be an integer literal"), NULL;
  MlcGExpr *t = read_gexpr(g, a->value, NULL);
  if (!t) return NULL;
  int n = t->sinfo && t->sinfo->kind == MLC_SINFO_TUPLE ? t->sinfo->tuple.n : -1;
  if (t->sinfo && t->sinfo->kind != MLC_SINFO_TUPLE && t->sinfo->kind != MLC_SINFO_OBJECT)
    return mlc_error(g->ctx, a->value->loc, "indexing a value that is not a tuple"), NULL;
  if (i < 0 && n >= 0) i += n;
  if (i < 0 || (n >= 0 && i >= n) || i > INT_MAX)
    return mlc_error(g->ctx, a->index->loc, "tuple index %lld is out of range%s", (long long)i,
                     n >= 0 ? " for the tuple" : ""), NULL;
  return mlc_g_get_item(at(g, a), t, (int)i);
}

static MlcGExpr *read_attr_expr(GReader *g, const Ast *a) {
  if (is_module_attr(g, a)) return read_global_ref(g, a);
  const char *p = r_path(g, a);
  if (p) return mlc_error(g->ctx, a->loc, "R.%s is not a value here", p), NULL;
  return mlc_error(g->ctx, a->loc, "unsupported attribute access in a graph function"), NULL;
}

/* hint: the binding's annotation, the result struct info of an op or
 * function call (which the reader cannot infer itself) */
static MlcGExpr *read_gexpr(GReader *g, const Ast *a, MlcSInfo *hint) {
  switch (a->kind) {
  case AST_NAME: return read_name(g, a);
  case AST_ATTR: return read_attr_expr(g, a);
  case AST_CALL: {
    const char *p = r_path(g, a->func);
    return p ? read_r_call(g, a, p, hint) : read_func_call(g, a, hint);
  }
  case AST_TUPLE: case AST_LIST: return read_tuple_items(g, &a->items);
  case AST_SUBSCRIPT: return read_get_item(g, a);
  case AST_STR: return mlc_g_str(g->ctx, a->str);
  case AST_INT: case AST_FLOAT: case AST_TRUE: case AST_FALSE:
    return mlc_g_prim(g->ctx, read_prim_expr(g, a));
  case AST_UNARY: /* a negative literal */
    if (a->op == AST_OP_NEG && (a->lhs->kind == AST_INT || a->lhs->kind == AST_FLOAT))
      return mlc_g_prim(g->ctx, read_prim_expr(g, a));
    break;
  default: break;
  }
  return mlc_error(g->ctx, a->loc, "unsupported expression in a graph function"), NULL;
}

/* ======================================================================== */
/* statements                                                               */
/* ======================================================================== */

static void push_binding(BindVec *v, MlcGExpr *var, MlcGExpr *value, MlcLoc loc) {
  MlcBinding b = {var, value, loc};
  mlc_vec_push(v, b);
}

/* close the plain bindings read so far into a block */
static bool flush(GReader *g, SeqB *seq) {
  if (!seq->cur.len) return true;
  MlcBindingBlock *b = mlc_g_block(g->ctx, false, seq->cur.data, (int)seq->cur.len);
  seq->cur.len = 0;
  if (!b) return false;
  mlc_vec_push(&seq->blocks, b);
  return true;
}

static void seq_free(SeqB *seq) {
  mlc_vec_free(&seq->blocks);
  mlc_vec_free(&seq->cur);
}

/* `name [: annot] = value` */
static bool read_binding(GReader *g, const Ast *s, BindVec *out) {
  const Ast *t = s->target;
  if (t->kind != AST_NAME)
    return mlc_error(g->ctx, t->loc, "only a name can be bound here (to unpack a tuple, bind it and "
                                     "index it: t[0])");
  if (!s->value) return mlc_error(g->ctx, s->loc, "a binding needs a value");
  MlcSInfo *annot = NULL;
  if (s->annot && !(annot = read_sinfo(g, s->annot, false))) return false;
  GEntry *old = lookup(g, t->name);
  /* `_` is the printer's name for a call kept for its effect; it may repeat */
  if (g->df_block && old && old->df_block == g->df_block && !old->ended && strcmp(t->name, "_") != 0)
    return mlc_error(g->ctx, t->loc, "'%s' is already bound in this dataflow block", t->name);
  g->effect = strcmp(t->name, "_") == 0;
  MlcGExpr *value = read_gexpr(g, s->value, annot);
  g->effect = false;
  MlcSInfo *si = value ? binding_sinfo(g, annot, s->annot, value) : NULL;
  if (!si) return false;
  bool dataflow = g->df_block && !mlc_map_get(&g->outputs, t->name);
  MlcGExpr *var = mlc_g_var(g->ctx, t->name, si, dataflow);
  push_binding(out, var, value, t->loc);
  bind_name(g, t->name, var);
  g->last_var = var;
  return true;
}

/* An assignment: a dim declaration, `cls = Module`, or a binding. */
static bool read_assign(GReader *g, const Ast *s, BindVec *out) {
  bool decl;
  if (!read_dim_decl(g, s, &decl)) return false;
  if (decl) return true;
  if (s->target->kind == AST_NAME && s->value && !s->annot && s->value->kind == AST_NAME &&
      is_module_name(g, s->value->name)) {
    mlc_map_put(&g->aliases, s->target->name, (void *)s->target);
    return true;
  }
  return read_binding(g, s, out);
}

/* A call as a statement: R.func_attr, or a call for its effect, bound to `_`. */
static bool read_expr_stmt(GReader *g, const Ast *s, BindVec *out) {
  const Ast *e = s->lhs;
  if (is_r_call(g, e, "func_attr")) {
    if (g->df_block || g->branch_depth)
      return mlc_error(g->ctx, e->loc, "R.func_attr belongs at the top level of the function body");
    return read_func_attr(g, e);
  }
  if (is_r_call(g, e, "output"))
    return mlc_error(g->ctx, e->loc, g->df_block ? "R.output must be the last statement of its dataflow "
                                                   "block" : "R.output outside a dataflow block");
  if (e->kind != AST_CALL) return mlc_error(g->ctx, e->loc, "an expression statement must be a call");
  g->effect = true;
  MlcGExpr *value = read_gexpr(g, e, NULL);
  g->effect = false;
  if (!value) return false;
  push_binding(out, mlc_g_var(g->ctx, "_", value->sinfo, g->df_block != 0), value, e->loc);
  return true;
}

static bool read_df_stmt(GReader *g, const Ast *s, BindVec *out) {
  g->last_var = NULL;
  switch (s->kind) {
  case AST_ASSIGN: return read_assign(g, s, out);
  case AST_EXPR_STMT: return read_expr_stmt(g, s, out);
  case AST_PASS: return true;
  case AST_IF: return mlc_error(g->ctx, s->loc, "control flow is not allowed inside a dataflow block");
  case AST_WITH: return mlc_error(g->ctx, s->loc, "dataflow blocks do not nest");
  case AST_RETURN: return mlc_error(g->ctx, s->loc, "return inside a dataflow block; return after it");
  default: return mlc_error(g->ctx, s->loc, "statement not supported in a dataflow block");
  }
}

/* true when `name` is bound by a direct assignment of the block body */
static bool block_binds(const AstList *body, int n, const char *name) {
  for (int i = 0; i < n; i++) {
    const Ast *s = body->items[i];
    if (s->kind == AST_ASSIGN && s->target->kind == AST_NAME && s->target->name == name) return true;
  }
  return false;
}

/* R.output(a, b) as the block's last statement: collect the names first, so
 * that each binding knows whether it makes a dataflow var. */
static bool collect_outputs(GReader *g, const Ast *out, const AstList *body, int n) {
  static const char *const kws[] = {NULL};
  if (!check_call_form(g, out, kws, INT_MAX, "R.output")) return false;
  for (int i = 0; i < out->items.n; i++) {
    const Ast *a = out->items.items[i];
    if (a->kind != AST_NAME) return mlc_error(g->ctx, a->loc, "R.output lists names bound in the block");
    if (mlc_map_get(&g->outputs, a->name))
      return mlc_error(g->ctx, a->loc, "'%s' is listed twice in R.output", a->name);
    if (!block_binds(body, n, a->name))
      return mlc_error(g->ctx, a->loc, "'%s' is not bound in this dataflow block", a->name);
    mlc_map_put(&g->outputs, a->name, (void *)a);
  }
  return true;
}

static bool read_df_body(GReader *g, const Ast *w, BindVec *binds) {
  int n = w->body.n;
  const Ast *last = n ? w->body.items[n - 1] : NULL;
  bool has_out = last && last->kind == AST_EXPR_STMT && is_r_call(g, last->lhs, "output");
  if (has_out && !collect_outputs(g, last->lhs, &w->body, n - 1)) return false;
  for (int i = 0; i < n - has_out; i++)
    if (!read_df_stmt(g, w->body.items[i], binds)) return false;
  return true;
}

/* `with R.dataflow():` */
static bool read_dataflow(GReader *g, const Ast *w, SeqB *seq) {
  char path[64];
  if (!is_r_call(g, w->value, "dataflow") || w->value->items.n || w->value->n_kws || w->target) {
    const Ast *v = w->value ? w->value : w;
    if (v->kind == AST_CALL && mlc_rd_path(v->func, path, sizeof path) && strcmp(path, "R.dataflow"))
      return mlc_error(g->ctx, v->loc, "unknown '%s' in with: a graph function allows only "
                                       "`with R.dataflow():`", path);
    return mlc_error(g->ctx, v->loc, "a graph function allows only `with R.dataflow():`");
  }
  if (!flush(g, seq)) return false;
  size_t mark = g->entries.len;
  BindVec binds = {0};
  g->df_block = ++g->df_count;
  bool ok = read_df_body(g, w, &binds);
  g->df_block = 0;
  mlc_map_free(&g->outputs);
  memset(&g->outputs, 0, sizeof g->outputs);
  for (size_t i = mark; i < g->entries.len; i++)
    g->entries.data[i].ended = g->entries.data[i].var->kind == MLC_G_DFVAR;
  MlcBindingBlock *b = ok ? mlc_g_block(at(g, w), true, binds.data, (int)binds.len) : NULL;
  if (b) mlc_vec_push(&seq->blocks, b);
  mlc_vec_free(&binds);
  g->last_var = NULL;
  return b != NULL;
}

/* A branch of an if: its own scope, ending in a binding whose var is the
 * branch's result. */
static MlcGExpr *read_branch(GReader *g, const AstList *body, MlcLoc owner, const char **name) {
  size_t mark = g->entries.len;
  SeqB seq = {0};
  MlcGExpr *result = NULL;
  int i = 0;
  g->branch_depth++;
  for (; i < body->n; i++) {
    const Ast *s = body->items[i];
    if (s->kind == AST_RETURN) {
      mlc_error(g->ctx, s->loc, "return inside an if branch: bind the same name in both branches "
                                "and return it after the if");
      break;
    }
    if (!read_seq_stmt(g, s, &seq)) break;
  }
  if (i == body->n && !g->last_var)
    mlc_error(g->ctx, body->n ? body->items[body->n - 1]->loc : owner,
              "an if branch must end by binding the name the if defines");
  else if (i == body->n && flush(g, &seq)) {
    *name = g->last_var->var.name;
    result = mlc_g_seq(g->ctx, seq.blocks.data, (int)seq.blocks.len, g->last_var);
  }
  g->branch_depth--;
  pop_scope(g, mark);
  seq_free(&seq);
  return result;
}

static bool read_if(GReader *g, const Ast *s, BindVec *out) {
  if (!s->orelse.n) return mlc_error(g->ctx, s->loc, "a graph if needs an else branch");
  const char *tn = NULL, *en = NULL;
  MlcGExpr *cond = read_gexpr(g, s->test, NULL);
  MlcGExpr *then_e = cond ? read_branch(g, &s->body, s->loc, &tn) : NULL;
  MlcGExpr *else_e = then_e ? read_branch(g, &s->orelse, s->loc, &en) : NULL;
  if (!else_e) return false;
  if (tn != en)
    return mlc_error(g->ctx, s->orelse.items[s->orelse.n - 1]->loc,
                     "both branches of an if must end by binding the same name ('%s' and '%s')", tn, en);
  MlcSInfo *si = mlc_sinfo_join(g->ctx, then_e->seq.result->sinfo, else_e->seq.result->sinfo);
  MlcGExpr *value = mlc_g_if(at(g, s), cond, then_e, else_e);
  if (!value || !si) return false;
  MlcGExpr *var = mlc_g_var(g->ctx, tn, si, false);
  push_binding(out, var, value, s->loc);
  bind_name(g, tn, var);
  g->last_var = var;
  return true;
}

/* a statement of the function body or of an if branch */
static bool read_seq_stmt(GReader *g, const Ast *s, SeqB *seq) {
  g->last_var = NULL;
  switch (s->kind) {
  case AST_ASSIGN: return read_assign(g, s, &seq->cur);
  case AST_EXPR_STMT: return read_expr_stmt(g, s, &seq->cur);
  case AST_WITH: return read_dataflow(g, s, seq);
  case AST_IF: return read_if(g, s, &seq->cur);
  case AST_PASS: return true;
  case AST_FUNCDEF: return mlc_error(g->ctx, s->loc, "nested functions are not supported");
  default: return mlc_error(g->ctx, s->loc, "statement not supported in a graph function");
  }
}

/* ======================================================================== */
/* the function                                                             */
/* ======================================================================== */

/* @R.function, @R.function(pure=False), @R.function(private=True) */
static bool read_decorators(GReader *g, const Ast *def, bool *pure) {
  static const char *const kws[] = {"pure", "private", NULL};
  *pure = true;
  for (int i = 0; i < def->decorators.n; i++) {
    const Ast *d = def->decorators.items[i];
    const Ast *head = d->kind == AST_CALL ? d->func : d;
    const char *p = r_path(g, head);
    if (!p || strcmp(p, "function") != 0)
      return mlc_error(g->ctx, d->loc, "a graph function is decorated with @R.function");
    if (d->kind != AST_CALL) continue;
    if (!check_call_form(g, d, kws, 0, "R.function")) return false;
    for (int k = 0; k < d->n_kws; k++) {
      const Ast *v = d->kws[k].value;
      if (v->kind != AST_TRUE && v->kind != AST_FALSE)
        return mlc_error(g->ctx, v->loc, "R.function: %s= takes True or False", d->kws[k].name);
      if (strcmp(d->kws[k].name, "pure") == 0) *pure = v->kind == AST_TRUE;
    }
  }
  return true;
}

/* `n = T.int64()` lines declare dims the signature may use before them */
static bool predeclare_dims(GReader *g, const Ast *def) {
  for (int i = 0; i < def->body.n; i++) {
    bool decl;
    if (!read_dim_decl(g, def->body.items[i], &decl)) return false;
  }
  return true;
}

static bool read_params(GReader *g, const Ast *def, GExprVec *out) {
  for (int i = 0; i < def->n_params; i++) {
    const AstParam *p = &def->params[i];
    if (lookup(g, p->name)) return mlc_error(g->ctx, p->loc, "duplicate parameter '%s'", p->name);
    if (!p->annot) return mlc_error(g->ctx, p->loc, "parameter '%s' needs a struct info annotation", p->name);
    if (p->dflt) return mlc_error(g->ctx, p->dflt->loc, "graph function parameters take no default values");
    MlcSInfo *si = read_sinfo(g, p->annot, true);
    if (!si) return false;
    MlcGExpr *var = mlc_g_var(g->ctx, p->name, si, false);
    mlc_vec_push(out, var);
    bind_name(g, p->name, var);
  }
  return true;
}

/* the body: statements, then `return value` */
static MlcGExpr *read_body(GReader *g, const Ast *def, MlcSInfo *ret, MlcSInfo **ret_out) {
  SeqB seq = {0};
  MlcGExpr *result = NULL, *body = NULL;
  const Ast *ret_stmt = NULL;
  bool ok = true;
  for (int i = 0; ok && i < def->body.n; i++) {
    const Ast *s = def->body.items[i];
    if (ret_stmt) ok = mlc_error(g->ctx, s->loc, "statement after return");
    else if (s->kind == AST_RETURN) ret_stmt = s;
    else ok = read_seq_stmt(g, s, &seq);
  }
  if (ok && !ret_stmt) ok = mlc_error(g->ctx, def->loc, "graph function '%s' must end with return", def->name);
  else if (ok && !ret_stmt->value) ok = mlc_error(g->ctx, ret_stmt->loc, "a graph function returns a value");
  if (ok) result = read_gexpr(g, ret_stmt->value, ret);
  if (result && (*ret_out = binding_sinfo(g, ret, def->returns, result)) && flush(g, &seq))
    body = mlc_g_seq(g->ctx, seq.blocks.data, (int)seq.blocks.len, result);
  seq_free(&seq);
  return body;
}

static MlcGFunc *read_gfunc(GReader *g, const Ast *def) {
  bool pure;
  GExprVec params = {0};
  MlcSInfo *ret = NULL, *ret_sinfo = NULL;
  MlcGExpr *body = NULL;
  MlcGFunc *f = NULL;
  if (read_decorators(g, def, &pure) && predeclare_dims(g, def) && read_params(g, def, &params) &&
      (!def->returns || (ret = read_sinfo(g, def->returns, true))) &&
      (body = read_body(g, def, ret, &ret_sinfo)))
    f = mlc_gfunc_new(at(g, def), def->name, params.data, (int)params.len, ret_sinfo, body,
                      attrs_to_arena(g, &g->attrs), pure);
  mlc_vec_free(&params);
  return f;
}

MlcGFunc *mlc_read_gfunc(MlcReader *r, const Ast *def) {
  if (!def || def->kind != AST_FUNCDEF) {
    mlc_error(r->ctx, def ? def->loc : (MlcLoc){0}, "expected a function definition");
    return NULL;
  }
  GReader g = {.r = r, .ctx = r->ctx};
  MlcGFunc *f = read_gfunc(&g, def);
  mlc_map_free(&g.dims);
  mlc_map_free(&g.scope);
  mlc_map_free(&g.aliases);
  mlc_map_free(&g.outputs);
  mlc_vec_free(&g.entries);
  mlc_vec_free(&g.attrs);
  return f;
}
