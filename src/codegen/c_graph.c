/* c_graph.c - the model executor: the entry graph function, in the form the
 * graph pipeline leaves it (explicit allocation, planned memory), compiled
 * to straight-line C over the prim funcs' kernels.
 *
 * Everything about a value that can be known before run time is resolved
 * here, once: tuples, get_item and aliases disappear, each tensor becomes a
 * C expression of its data pointer (an input, the weights payload plus an
 * offset, a planned storage plus an offset, or a run-time allocation) with
 * its shape as IR expressions over the model's symbolic sizes, which the
 * runtime binds from the inputs in order.  What is left for run time is what
 * depends on those sizes: allocation sizes, kernels' own syms[] and the
 * shape checks that static analysis could not settle.  Run-time allocations
 * live until the end of run; those that are outputs move into the state
 * and live until the next run, as the model ABI promises.  An R.loop is
 * the one place the run is not straight: its body function's bindings are
 * compiled once, inside a C loop (compile_loop).
 *
 * A model of tens of thousands of nodes would make one C function the C
 * compiler takes superlinear time over, so the run is cut between bindings
 * into pieces of at most PIECE_SITES calls, each a function of its own;
 * what the pieces share (inputs, run-time allocations, the profiler) lives
 * in a frame struct that run owns and passes down. */
#include "c_graph.h"
#include "ops/dyn_modes.h"
#include "mlcc/arith.h"

#include <assert.h>
#include <stdio.h>
#include <string.h>

/* call sites per piece of the run function: the C compiler's time per call
 * grows with the size of the function it is in, and is least from here on */
#define PIECE_SITES 32

bool cg_gerr(G *g, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  mlc_verror(g->ctx, g->loc, fmt, ap);
  va_end(ap);
  return false;
}

GVal *cg_gv_new(G *g, GvKind kind) {
  GVal *v = mlc_arena_alloc(&g->ctx->arena, sizeof *v);
  v->kind = kind;
  v->alloc = v->input = v->storage = -1;
  return v;
}

/* ---- C text of sizes ------------------------------------------------------- */

int cg_sym_index(const G *g, const MlcExpr *v) {
  for (size_t i = 0; i < g->syms.len; i++)
    if (g->syms.data[i] == v) return (int)i;
  return -1;
}

int cg_dsym_index(const G *g, const MlcExpr *v) {
  for (size_t i = 0; i < g->dsyms.len; i++)
    if (g->dsyms.data[i] == v) return (int)i;
  return -1;
}

/* An int64 C expression of a shape expression over mlc_syms[]. */
bool cg_c_dim(G *g, const MlcExpr *e, MlcStrBuf *sb) {
  static const char *const fn[MLC_BIN_COUNT] = {
      [MLC_BIN_FLOORDIV] = "mlc_floordiv", [MLC_BIN_FLOORMOD] = "mlc_floormod", [MLC_BIN_MIN] = "mlc_min",
      [MLC_BIN_MAX] = "mlc_max", [MLC_BIN_DIV] = "mlc_truncdiv", [MLC_BIN_MOD] = "mlc_truncmod"};
  static const char *const op[MLC_BIN_COUNT] = {[MLC_BIN_ADD] = "+", [MLC_BIN_SUB] = "-", [MLC_BIN_MUL] = "*"};
  switch (e->kind) {
  case MLC_EXPR_INT: mlc_sb_printf(sb, "INT64_C(%lld)", (long long)e->int_val); return true;
  case MLC_EXPR_VAR: {
    const MlcExpr *to = mlc_map_get(&g->sym_alias, e);
    if (to) return cg_c_dim(g, to, sb);
    int k = cg_sym_index(g, e);
    if (k < 0 && (k = cg_dsym_index(g, e)) >= 0) {
      mlc_sb_printf(sb, "fr->mlc_dsym[%d]", k);
      return true;
    }
    if (k < 0)
      return cg_gerr(g, "symbolic size '%s' is not the size of any input of '%s'", e->var.name, g->fn->name);
    mlc_sb_printf(sb, "mlc_syms[%d]", k);
    return true;
  }
  case MLC_EXPR_CAST:
    if (!mlc_dtype_is_int(e->dtype)) break;
    return cg_c_dim(g, e->operand, sb);
  case MLC_EXPR_BINARY:
    if (!op[e->bin.op] && !fn[e->bin.op]) break;
    mlc_sb_puts(sb, op[e->bin.op] ? "(" : fn[e->bin.op]);
    if (!op[e->bin.op]) mlc_sb_puts(sb, "(");
    if (!cg_c_dim(g, e->bin.a, sb)) return false;
    mlc_sb_puts(sb, op[e->bin.op] ? op[e->bin.op] : ", ");
    if (!cg_c_dim(g, e->bin.b, sb)) return false;
    mlc_sb_puts(sb, ")");
    return true;
  default: break;
  }
  return cg_gerr(g, "binding '%s': a shape expression the executor cannot compute", g->bname);
}

/* "{d0, d1}" of a tensor's shape (one 0 for rank 0: C has no empty arrays) */
bool cg_c_dims(G *g, const GVal *t, MlcStrBuf *sb) {
  mlc_sb_puts(sb, "{");
  for (int d = 0; d < t->ndim; d++) {
    if (d) mlc_sb_puts(sb, ", ");
    if (!cg_c_dim(g, t->shape[d], sb)) return false;
  }
  mlc_sb_puts(sb, t->ndim ? "}" : "0}");
  return true;
}

/* the shape's element count and bytes, checked against overflow at run time,
 * into the local `mlc_nb` of a block the caller opened */
bool cg_emit_nbytes(G *g, const GVal *t, const char *what) {
  MlcStrBuf dims = {0};
  bool ok = cg_c_dims(g, t, &dims);
  if (ok) {
    mlc_sb_printf(&g->body, "    const int64_t mlc_d[] = %s;\n    size_t mlc_nb;\n", mlc_sb_cstr(&dims));
    mlc_sb_printf(&g->body, "    if (mlc_nbytes(mlc_d, %d, %zu, &mlc_nb) != 0) {\n", t->ndim, mlc_dtype_bytes(t->dtype));
    mlc_sb_printf(&g->body, "      env->set_error(\"%s: the size of '%s' is out of range\");\n", g->fn->name, what);
    mlc_sb_puts(&g->body, "      rc = -1;\n      goto mlc_done;\n    }\n");
  }
  mlc_vec_free(&dims);
  return ok;
}

/* ---- resolving values ---------------------------------------------------------- */

/* a dtype's name for a message, in the context's arena (the compiler may
 * run on several threads, so no static buffer) */
static const char *dtype_name(G *g, MlcDType t) {
  char buf[32];
  return mlc_intern(g->ctx, mlc_dtype_str(t, buf));
}


static GVal *const_val(G *g, const MlcGExpr *e) {
  const MlcTensorData *d = e->constant;
  uintptr_t off = (uintptr_t)mlc_map_get(&g->params->offsets, d);
  if (!off) return cg_gerr(g, "binding '%s': a constant missing from the weights", g->bname), NULL;
  if (!c_storage_type(d->dtype)) return cg_gerr(g, "binding '%s': constant of dtype %s", g->bname, dtype_name(g, d->dtype)), NULL;
  GVal *v = cg_gv_new(g, GV_TENSOR);
  v->data = mlc_internf(g->ctx, "(void *)(st->mlc_params + %zu)", (size_t)(off - 1));
  v->ndim = d->ndim;
  v->shape = mlc_arena_array(&g->ctx->arena, (size_t)(d->ndim ? d->ndim : 1), sizeof *v->shape);
  for (int i = 0; i < d->ndim; i++) v->shape[i] = mlc_e_int(g->ctx, MLC_I64, d->shape[i]);
  v->dtype = d->dtype;
  v->align = C_PARAM_ALIGN;
  return v;
}

GVal *cg_resolve(G *g, const MlcGExpr *e) {
  switch (e->kind) {
  case MLC_G_VAR: case MLC_G_DFVAR: {
    GVal *v = mlc_map_get(&g->vals, e);
    if (!v) cg_gerr(g, "binding '%s': '%s' is not defined before it", g->bname, e->var.name);
    return v;
  }
  case MLC_G_CONST: return const_val(g, e);
  case MLC_G_TUPLE: {
    GVal *v = cg_gv_new(g, GV_TUPLE);
    v->n = e->tuple.n;
    v->fields = mlc_arena_array(&g->ctx->arena, (size_t)(v->n ? v->n : 1), sizeof *v->fields);
    for (int i = 0; i < v->n; i++)
      if (!(v->fields[i] = cg_resolve(g, e->tuple.fields[i]))) return NULL;
    return v;
  }
  case MLC_G_GET_ITEM: {
    GVal *t = cg_resolve(g, e->get_item.tuple);
    if (!t) return NULL;
    if (t->kind != GV_TUPLE || e->get_item.index >= t->n)
      return cg_gerr(g, "binding '%s': item %d of a value that is no tuple of that size", g->bname, e->get_item.index), NULL;
    return t->fields[e->get_item.index];
  }
  case MLC_G_SHAPE: case MLC_G_PRIM: case MLC_G_STR: case MLC_G_DTYPE: {
    GVal *v = cg_gv_new(g, GV_EXPR);
    v->expr = e;
    return v;
  }
  default: return cg_gerr(g, "binding '%s': unsupported value in the executor", g->bname), NULL;
  }
}

GVal *cg_resolve_tensor(G *g, const MlcGExpr *e, const char *what) {
  GVal *v = cg_resolve(g, e);
  if (v && v->kind != GV_TENSOR) return cg_gerr(g, "binding '%s': %s is not a tensor", g->bname, what), NULL;
  return v;
}

/* an op argument that must be a shape, a prim value or a dtype, through vars */
static const MlcGExpr *expr_arg(G *g, const MlcGExpr *call, int i, MlcGExprKind kind, const char *what) {
  GVal *v = i < call->call.n ? cg_resolve(g, call->call.args[i]) : NULL;
  if (!v || v->kind != GV_EXPR || v->expr->kind != kind) {
    if (!mlc_has_error(g->ctx)) cg_gerr(g, "binding '%s': R.%s: argument %d must be %s", g->bname, call->call.callee->str, i + 1, what);
    return NULL;
  }
  return v->expr;
}

static bool const_int_arg(G *g, const MlcGExpr *call, int i, int64_t *out) {
  const MlcGExpr *e = expr_arg(g, call, i, MLC_G_PRIM, "an integer R.prim_value");
  if (!e) return false;
  if (!mlc_e_is_const_int(e->prim, out) || *out < 0)
    return cg_gerr(g, "binding '%s': R.%s: argument %d must be a constant integer >= 0", g->bname, call->call.callee->str, i + 1);
  return true;
}

/* ---- allocations ------------------------------------------------------------------ */

static GVal *tensor_of(G *g, const MlcGExpr *shape, const MlcGExpr *dtype) {
  GVal *t = cg_gv_new(g, GV_TENSOR);
  t->ndim = shape->shape.n;
  t->shape = shape->shape.values;
  t->dtype = dtype->dtype;
  if (!c_storage_type(t->dtype))
    return cg_gerr(g, "binding '%s': tensors of dtype %s are not supported", g->bname, dtype_name(g, t->dtype)), NULL;
  return t;
}

static bool static_nbytes(G *g, const GVal *t, int64_t *out) {
  int64_t n = (int64_t)mlc_dtype_bytes(t->dtype), v;
  for (int d = 0; d < t->ndim; d++) {
    if (!mlc_e_is_const_int(t->shape[d], &v)) return false;
    if (v < 0 || __builtin_mul_overflow(n, v, &n)) return cg_gerr(g, "binding '%s': size out of range", g->bname);
  }
  *out = n;
  return true;
}

/* R.memory.alloc_storage(R.shape([bytes]), R.prim_value(0), R.str("global"), R.dtype("uint8")) */
static GVal *alloc_storage(G *g, const MlcGExpr *call) {
  const MlcGExpr *shape = expr_arg(g, call, 0, MLC_G_SHAPE, "the storage's R.shape");
  const MlcGExpr *dt = shape ? expr_arg(g, call, 3, MLC_G_DTYPE, "an R.dtype") : NULL;
  if (!dt) return NULL;
  GVal *t = tensor_of(g, shape, dt);
  int64_t size;
  if (!t) return NULL;
  if (!static_nbytes(g, t, &size))
    return mlc_has_error(g->ctx) ? NULL : (cg_gerr(g, "binding '%s': a storage of symbolic size", g->bname), NULL);
  GVal *s = cg_gv_new(g, GV_STORAGE);
  s->storage = g->n_storages++;
  s->size = size;
  mlc_sb_printf(&g->fields, "  uint8_t *mlc_storage%d; /* %s: %lld bytes */\n", s->storage, g->bname, (long long)size);
  mlc_sb_printf(&g->create, "  st->mlc_storage%d = (uint8_t *)env->workspace_alloc(%lld, %d);\n", s->storage,
                (long long)(size ? size : 1), C_PARAM_ALIGN);
  mlc_sb_printf(&g->create, "  if (!st->mlc_storage%d) goto mlc_fail;\n", s->storage);
  mlc_sb_printf(&g->destroy, "  if (st->mlc_storage%d) env->workspace_free(st->mlc_storage%d);\n", s->storage, s->storage);
  return s;
}

/* R.memory.alloc_tensor(storage, R.prim_value(offset), R.shape([..]), R.dtype(..)) */
static GVal *alloc_planned(G *g, const MlcGExpr *call) {
  GVal *s = call->call.n == 4 ? cg_resolve(g, call->call.args[0]) : NULL;
  if (!s) return mlc_has_error(g->ctx) ? NULL : (cg_gerr(g, "binding '%s': R.memory.alloc_tensor takes 4 arguments", g->bname), NULL);
  if (s->kind != GV_STORAGE) return cg_gerr(g, "binding '%s': argument 1 is not a storage", g->bname), NULL;
  int64_t off, size;
  const MlcGExpr *shape, *dt;
  if (!const_int_arg(g, call, 1, &off) || !(shape = expr_arg(g, call, 2, MLC_G_SHAPE, "an R.shape")) ||
      !(dt = expr_arg(g, call, 3, MLC_G_DTYPE, "an R.dtype")))
    return NULL;
  GVal *t = tensor_of(g, shape, dt);
  if (!t) return NULL;
  if (!static_nbytes(g, t, &size))
    return mlc_has_error(g->ctx) ? NULL : (cg_gerr(g, "binding '%s': a planned tensor of symbolic shape", g->bname), NULL);
  if (off > s->size || size > s->size - off)
    return cg_gerr(g, "binding '%s': bytes [%lld, %lld) are outside the storage's %lld", g->bname, (long long)off,
                (long long)(off + size), (long long)s->size), NULL;
  t->data = mlc_internf(g->ctx, "(void *)(st->mlc_storage%d + %lld)", s->storage, (long long)off);
  t->align = C_PARAM_ALIGN;
  while (t->align > 1 && off % t->align) t->align /= 2;
  return t;
}

/* R.builtin.alloc_tensor(R.shape([..]), R.dtype(..), R.prim_value(0)): allocated at run time */
static GVal *alloc_dynamic(G *g, const MlcGExpr *call) {
  const MlcGExpr *shape = expr_arg(g, call, 0, MLC_G_SHAPE, "an R.shape");
  const MlcGExpr *dt = shape ? expr_arg(g, call, 1, MLC_G_DTYPE, "an R.dtype") : NULL;
  GVal *t = dt ? tensor_of(g, shape, dt) : NULL;
  if (!t) return NULL;
  t->alloc = g->n_allocs++;
  t->align = C_PARAM_ALIGN;
  t->data = mlc_internf(g->ctx, "fr->mlc_a%d", t->alloc);
  mlc_sb_printf(&g->decls, "  void *mlc_a%d; /* %s */\n", t->alloc, g->bname);
  mlc_sb_printf(&g->body, "  { /* %s */\n", g->bname);
  if (!cg_emit_nbytes(g, t, g->bname)) return NULL;
  mlc_sb_printf(&g->body, "    if (!(fr->mlc_a%d = env->workspace_alloc(mlc_nb, %d))) {\n      rc = -1;\n      goto mlc_done;\n    }\n  }\n",
                t->alloc, C_PARAM_ALIGN);
  return t;
}

/* ---- calls -------------------------------------------------------------------------- */

/* Check at run time what static analysis could not: dimension `have` of an
 * argument equals `want` (both C expressions). */
static void emit_dim_check(G *g, const char *have, const char *want, const char *callee, int arg) {
  mlc_sb_printf(&g->body, "  if (%s != %s) {\n", have, want);
  mlc_sb_printf(&g->body, "    env->set_error(\"%s: binding '%s': argument %d of '%s' has a shape the function does not take\");\n",
                g->fn->name, g->bname, arg + 1, callee);
  mlc_sb_puts(&g->body, "    rc = -1;\n    goto mlc_done;\n  }\n");
}

/* a buffer argument of a kernel: dtype, rank, alignment, and its dims bound
 * to the kernel's syms (sym_c) or checked */
static bool kernel_buffer_arg(G *g, const CKernel *k, int i, GVal *t, const char **sym_c) {
  const MlcBuffer *b = k->func->params[i].buf;
  const char *fname = k->func->name;
  if (!mlc_dtype_eq(t->dtype, b->dtype) || t->ndim != b->ndim) {
    return cg_gerr(g, "binding '%s': argument %d of '%s' is a rank-%d %s tensor; '%s' takes a rank-%d %s buffer",
                g->bname, i + 1, fname, t->ndim, dtype_name(g, t->dtype), b->name, b->ndim, dtype_name(g, b->dtype));
  }
  if (b->align > 1 && t->align < b->align) {
    if (t->input < 0 || b->align > C_PARAM_ALIGN)
      return cg_gerr(g, "binding '%s': argument %d of '%s' is not %d-byte aligned", g->bname, i + 1, fname, b->align);
    if (g->inputs[t->input].align < b->align) g->inputs[t->input].align = b->align;
  }
  for (int d = 0; d < b->ndim; d++) {
    MlcStrBuf have = {0};
    bool ok = cg_c_dim(g, t->shape[d], &have);
    int64_t kv, gv;
    if (ok && mlc_e_is_const_int(b->shape[d], &kv)) {
      if (mlc_e_is_const_int(t->shape[d], &gv) && gv != kv)
        ok = cg_gerr(g, "binding '%s': dimension %d of argument %d of '%s' is %lld; '%s' takes %lld", g->bname, d, i + 1,
                  fname, (long long)gv, b->name, (long long)kv);
      else if (!mlc_e_is_const_int(t->shape[d], &gv))
        emit_dim_check(g, mlc_sb_cstr(&have), mlc_internf(g->ctx, "INT64_C(%lld)", (long long)kv), fname, i);
    } else if (ok) {
      int s = 0;
      while (s < k->n_syms && k->syms[s] != b->shape[d]) s++;
      assert(s < k->n_syms); /* the kernel's syms are its buffers' var dims */
      if (!sym_c[s]) sym_c[s] = mlc_intern(g->ctx, mlc_sb_cstr(&have));
      else if (strcmp(sym_c[s], mlc_sb_cstr(&have)) != 0) emit_dim_check(g, mlc_sb_cstr(&have), sym_c[s], fname, i);
    }
    mlc_vec_free(&have);
    if (!ok) return false;
  }
  return true;
}

static bool kernel_scalar_arg(G *g, const CKernel *k, int i, const MlcGExpr *a, MlcStrBuf *args) {
  GVal *v = cg_resolve(g, a);
  if (!v) return false;
  if (v->kind != GV_EXPR || v->expr->kind != MLC_G_PRIM)
    return cg_gerr(g, "binding '%s': argument %d of '%s' must be an R.prim_value", g->bname, i + 1, k->func->name);
  const MlcExpr *x = v->expr->prim;
  if (mlc_dtype_is_float(k->func->params[i].var->dtype)) {
    if (x->kind != MLC_EXPR_FLOAT && x->kind != MLC_EXPR_INT)
      return cg_gerr(g, "binding '%s': argument %d of '%s' must be a constant", g->bname, i + 1, k->func->name);
    mlc_sb_printf(args, "&(double){%.17g}", x->kind == MLC_EXPR_FLOAT ? x->float_val : (double)x->int_val);
    return true;
  }
  mlc_sb_puts(args, "&(int64_t){");
  if (!cg_c_dim(g, x, args)) return false;
  mlc_sb_puts(args, "}");
  return true;
}

/* ---- call sites: what a profile reports about each call ---------------------------------- */

/* out: the call's last argument, its (first) output in destination-passing
 * style, whose alias binding after the call carries the name the user knows */
static int add_site(G *g, const char *callee, const char *ops, MlcrtSiteKind kind, double flops, double bytes,
                    const MlcGExpr *out) {
  CSite s = {callee, g->bname, ops, kind, flops, bytes};
  mlc_vec_push(&g->sites, s);
  if (out && (out->kind == MLC_G_VAR || out->kind == MLC_G_DFVAR))
    mlc_map_put(&g->site_of_out, out, (void *)(uintptr_t)g->sites.len);
  return (int)g->sites.len - 1;
}

/* `y = alloc` after `_ = f(..., alloc)`: the site computes y */
static void name_site(G *g, const MlcBinding *b) {
  uintptr_t k = b->value->kind == MLC_G_VAR || b->value->kind == MLC_G_DFVAR
                    ? (uintptr_t)mlc_map_get(&g->site_of_out, b->value) : 0;
  if (k && !strcmp(g->sites.data[k - 1].binding, "_")) g->sites.data[k - 1].binding = b->var->var.name;
}

/* the graph ops a kernel came from: a fused one says (its "fused_ops"
 * attribute), a legalized one is named after its op with a number for a
 * second variant ("add3" -> "add") */
static const char *kernel_ops(G *g, const MlcPrimFunc *f) {
  const MlcAttrValue *v = mlc_attrs_get(f->attrs, mlc_intern(g->ctx, "fused_ops"));
  if (v && v->kind == MLC_ATTR_STR) return v->s;
  return mlc_kernel_op_name(g->ctx, f->name);
}

/* {FLOPs, bytes} of a kernel: a walk of its TIR, done once however many
 * calls it has */
static const double *kernel_cost(G *g, const MlcPrimFunc *f) {
  double *c = mlc_map_get(&g->kernel_cost, f);
  if (c) return c;
  c = mlc_arena_array(&g->ctx->arena, 2, sizeof *c);
  c[0] = mlc_prim_func_flops(f);
  c[1] = mlc_prim_func_param_bytes(f);
  mlc_map_put(&g->kernel_cost, f, c);
  return c;
}

/* tuned: the function carries the "tuned" attribute a tuning record's
 * schedule leaves on it */
static MlcrtSiteKind kernel_kind(G *g, const MlcPrimFunc *f) {
  const MlcAttrValue *v = mlc_attrs_get(f->attrs, mlc_intern(g->ctx, "tuned"));
  return v ? MLCRT_SITE_TUNED : MLCRT_SITE_GENERATED;
}

/* the elements of t, or -1 when a dim is symbolic */
static double tensor_numel(const GVal *t) {
  double n = 1;
  for (int d = 0; d < t->ndim; d++) {
    int64_t v;
    if (!mlc_e_is_const_int(t->shape[d], &v)) return -1;
    n *= (double)v;
  }
  return n;
}

static double tensors_bytes(G *g, GVal **ts, int n) {
  double total = 0;
  for (int i = 0; i < n; i++) {
    int64_t b;
    if (!static_nbytes(g, ts[i], &b)) return -1;
    total += (double)b;
  }
  return total;
}

/* the runtime's BLAS externs (runtime.h): 2 flops per multiply-add of the
 * output's elements over the shared K dim; -1 for others or symbolic shapes */
static double extern_flops(const char *name, GVal **ts, int n) {
  bool linear = !strcmp(name, "env.linear"), matmul = !strcmp(name, "env.matmul");
  if ((!linear && !matmul) || n < 3 || ts[0]->ndim < 1) return -1;
  double out = tensor_numel(ts[n - 1]);
  int64_t k;
  if (out < 0 || !mlc_e_is_const_int(ts[0]->shape[ts[0]->ndim - 1], &k)) return -1;
  return 2.0 * out * (double)k;
}

/* _ = cls.f(a, b, out): the kernel called directly on data pointers */
static bool call_kernel(G *g, const CKernel *k, const MlcGExpr *call) {
  const MlcPrimFunc *f = k->func;
  if (call->call.n != f->n_params)
    return cg_gerr(g, "binding '%s': '%s' takes %d arguments, got %d", g->bname, f->name, f->n_params, call->call.n);
  const char **sym_c = mlc_arena_array(&g->ctx->arena, (size_t)(k->n_syms + 1), sizeof *sym_c);
  MlcStrBuf args = {0};
  bool ok = true;
  for (int i = 0; ok && i < f->n_params; i++) {
    if (i) mlc_sb_puts(&args, ", ");
    if (!f->params[i].buf) {
      ok = kernel_scalar_arg(g, k, i, call->call.args[i], &args);
      continue;
    }
    GVal *t = cg_resolve_tensor(g, call->call.args[i], "an argument of a prim func");
    ok = t && kernel_buffer_arg(g, k, i, t, sym_c);
    if (ok) mlc_sb_puts(&args, t->data);
  }
  if (ok) {
    mlc_sb_printf(&g->body, "  /* %s = %s(...) */\n", g->bname, f->name);
    const double *cost = kernel_cost(g, f);
    int site = add_site(g, f->name, kernel_ops(g, f), kernel_kind(g, f), cost[0], cost[1],
                        f->n_params ? call->call.args[f->n_params - 1] : NULL);
    mlc_sb_printf(&g->body, "  if ((rc = mlc_call(mlc_prof, %d, %s, %s%s%s, ", site, k->cname,
                  f->n_params ? "(void *[]){" : "NULL", mlc_sb_cstr(&args), f->n_params ? "}" : "");
    if (k->n_syms) {
      mlc_sb_puts(&g->body, "(const int64_t[]){");
      for (int s = 0; s < k->n_syms; s++) mlc_sb_printf(&g->body, "%s%s", s ? ", " : "", sym_c[s]);
      mlc_sb_puts(&g->body, "}");
    } else {
      mlc_sb_puts(&g->body, "NULL");
    }
    mlc_sb_puts(&g->body, ", env)) != 0) goto mlc_done;\n");
  }
  mlc_vec_free(&args);
  return ok;
}

/* R.call_packed("name", args...): DLTensors on the stack, the extern resolved in create */
static bool call_extern(G *g, const char *name, MlcGExpr *const *argv, int n) {
  size_t e = 0;
  while (e < g->externs.len && g->externs.data[e] != name) e++;
  if (e == g->externs.len) {
    mlc_vec_push(&g->externs, name);
    mlc_sb_printf(&g->fields, "  MlcrtExtern mlc_ext%zu; /* %s */\n", e, name);
    mlc_sb_printf(&g->create, "  if (mlc_get_extern(env, \"%s\", &st->mlc_ext%zu) != 0) goto mlc_fail;\n", name, e);
  }
  mlc_sb_printf(&g->body, "  { /* %s = %s(...) */\n", g->bname, name);
  GVal **ts = mlc_arena_array(&g->ctx->arena, (size_t)(n ? n : 1), sizeof *ts);
  for (int i = 0; i < n; i++) {
    GVal *t = ts[i] = cg_resolve_tensor(g, argv[i], "an argument of an extern function");
    if (!t) return false;
    mlc_sb_printf(&g->body, "    int64_t mlc_s%d[] = ", i);
    if (!cg_c_dims(g, t, &g->body)) return false;
    mlc_sb_printf(&g->body, ";\n    mlc_dltensor mlc_t%d = {%s, {1, 0}, %d, {%d, %d, %d}, mlc_s%d, NULL, 0};\n", i, t->data,
                  t->ndim, c_dl_code(t->dtype), c_dl_bits(t->dtype), t->dtype.lanes, i);
  }
  const char *dot = strrchr(name, '.');
  int site = add_site(g, name, mlc_intern(g->ctx, dot ? dot + 1 : name), MLCRT_SITE_LIBRARY,
                      extern_flops(name, ts, n), tensors_bytes(g, ts, n), n ? argv[n - 1] : NULL);
  mlc_sb_printf(&g->body, "    MLC_PROF(%d, 0);\n", site);
  /* the library runs on the host: it reads the newest bytes, and what it
   * may have written is newer than any device copy */
  for (int i = 0; g->gpu != MLC_GPU_NONE && i < n; i++)
    mlc_sb_printf(&g->body, "    if ((rc = mlc_gpu_host(mlc_g, &mlc_t%d, 0)) != 0) goto mlc_done;\n", i);
  mlc_sb_printf(&g->body, "    if ((rc = st->mlc_ext%zu.fn((mlc_dltensor *const[]){", e);
  for (int i = 0; i < n; i++) mlc_sb_printf(&g->body, "%s&mlc_t%d", i ? ", " : "", i);
  mlc_sb_printf(&g->body, "%s}, %d, env)) != 0) goto mlc_done;\n", n ? "" : "NULL", n);
  for (int i = 0; g->gpu != MLC_GPU_NONE && i < n; i++)
    mlc_sb_printf(&g->body, "    if ((rc = mlc_gpu_host(mlc_g, &mlc_t%d, 1)) != 0) goto mlc_done;\n", i);
  mlc_sb_printf(&g->body, "    MLC_PROF(%d, 1);\n  }\n", site);
  return true;
}

static const CKernel *find_kernel(const G *g, const char *name) {
  for (size_t i = 0; i < g->kernels->len; i++)
    if (g->kernels->data[i].func->name == name) return &g->kernels->data[i];
  return NULL;
}

static bool extern_name_ok(G *g, const char *s) {
  for (const char *p = s; *p; p++)
    if (*p == '"' || *p == '\\' || (unsigned char)*p < 0x20)
      return cg_gerr(g, "binding '%s': extern name with a quote or control character", g->bname);
  return true;
}


static GVal *compile_call(G *g, const MlcGExpr *call) {
  const MlcGExpr *callee = call->call.callee;
  const char *op = callee->kind == MLC_G_OP ? callee->str : NULL;
  if (callee->kind == MLC_G_GLOBAL) {
    const CKernel *k = find_kernel(g, callee->str);
    if (!k) {
      const MlcFunc *f = mlc_module_find(g->m, callee->str);
      return cg_gerr(g, "unsupported binding '%s': a call of %s '%s'", g->bname,
                  f && f->kind == MLC_FUNC_GRAPH ? "the graph function" : "the unknown function", callee->str), NULL;
    }
    return call_kernel(g, k, call) ? cg_gv_new(g, GV_NONE) : NULL;
  }
  if (callee->kind == MLC_G_EXTERN)
    return extern_name_ok(g, callee->str) && call_extern(g, callee->str, call->call.args, call->call.n) ? cg_gv_new(g, GV_NONE) : NULL;
  if (op && !strcmp(op, "call_packed") && call->call.n >= 1 &&
      (call->call.args[0]->kind == MLC_G_STR || call->call.args[0]->kind == MLC_G_EXTERN))
    return extern_name_ok(g, call->call.args[0]->str) &&
                   call_extern(g, call->call.args[0]->str, call->call.args + 1, call->call.n - 1)
               ? cg_gv_new(g, GV_NONE) : NULL;
  if (op && !strcmp(op, "memory.alloc_storage")) return alloc_storage(g, call);
  if (op && !strcmp(op, "memory.alloc_tensor")) return alloc_planned(g, call);
  if (op && !strcmp(op, "builtin.alloc_tensor")) return alloc_dynamic(g, call);
  if (op && !strcmp(op, "tensor_to_shape")) return cg_tensor_to_shape(g, call);
  if (op && !strcmp(op, "reshape_dynamic")) return cg_reshape_dynamic(g, call);
  if (op && !strcmp(op, "loop")) return cg_compile_loop(g, call);
  if (op)
    return cg_gerr(g, "unsupported binding '%s': R.%s (the executor runs the graph pipeline's output: allocations, "
                   "prim func and extern calls)", g->bname, op), NULL;
  return cg_gerr(g, "unsupported binding '%s': a call of a function value", g->bname), NULL;
}

bool cg_compile_binding(G *g, const MlcBinding *b) {
  g->loc = b->loc.line ? b->loc : g->ctx->build_loc;
  g->bname = b->var->var.name;
  const MlcGExpr *v = b->value;
  GVal *r;
  switch (v->kind) {
  case MLC_G_CALL: r = compile_call(g, v); break;
  case MLC_G_IF: case MLC_G_SEQ: case MLC_G_OP: case MLC_G_GLOBAL: case MLC_G_EXTERN:
    return cg_gerr(g, "unsupported binding '%s': %s", g->bname, v->kind == MLC_G_IF ? "an if" : "a function value");
  default:
    r = cg_resolve(g, v);
    name_site(g, b);
    break;
  }
  if (!r) return false;
  mlc_map_put(&g->vals, b->var, r);
  return true;
}

/* ---- interface ------------------------------------------------------------------------ */

static bool compile_inputs(G *g) {
  const MlcGFunc *fn = g->fn;
  g->n_inputs = fn->n_params;
  g->inputs = mlc_arena_array(&g->ctx->arena, (size_t)(fn->n_params ? fn->n_params : 1), sizeof *g->inputs);
  for (int i = 0; i < fn->n_params; i++) {
    const MlcGExpr *p = fn->params[i];
    const MlcSInfo *s = p->sinfo;
    g->bname = p->var.name;
    if (!s || s->kind != MLC_SINFO_TENSOR || s->tensor.ndim < 0 || !s->tensor.shape || !c_storage_type(s->tensor.dtype))
      return cg_gerr(g, "input '%s' of '%s' must be a tensor of known shape and dtype", p->var.name, fn->name);
    CIo *io = &g->inputs[i];
    io->name = p->var.name;
    io->dtype = s->tensor.dtype;
    io->ndim = s->tensor.ndim;
    io->dims = mlc_arena_array(&g->ctx->arena, (size_t)(io->ndim ? io->ndim : 1), sizeof *io->dims);
    for (int d = 0; d < io->ndim; d++) {
      const MlcExpr *x = s->tensor.shape[d];
      if (x->kind == MLC_EXPR_VAR) {
        if (cg_sym_index(g, x) < 0) mlc_vec_push(&g->syms, x);
        io->dims[d] = -(int64_t)cg_sym_index(g, x) - 1;
      } else if (!mlc_e_is_const_int(x, &io->dims[d]) || io->dims[d] < 0) {
        return cg_gerr(g, "input '%s' of '%s': dimension %d must be a constant or a plain symbolic size", p->var.name,
                    fn->name, d);
      }
    }
    GVal *t = cg_gv_new(g, GV_TENSOR);
    t->data = mlc_internf(g->ctx, "fr->mlc_in%d", i);
    t->ndim = io->ndim;
    t->shape = s->tensor.shape;
    t->dtype = io->dtype;
    t->input = i;
    mlc_sb_printf(&g->decls, "  void *mlc_in%d; /* %s */\n", i, p->var.name);
    mlc_map_put(&g->vals, p, t);
  }
  return true;
}

static bool flatten_result(G *g, GVal *v, GValVec *outs) {
  if (v->kind == GV_TUPLE) {
    for (int i = 0; i < v->n; i++)
      if (!flatten_result(g, v->fields[i], outs)) return false;
    return true;
  }
  if (v->kind != GV_TENSOR) return cg_gerr(g, "the result of '%s' must be a tensor or a tuple of tensors", g->fn->name);
  mlc_vec_push(outs, v);
  return true;
}

/* where output data lives after run: a kept allocation or what it is */
static const char *output_data(G *g, const GVal *t) {
  if (t->alloc < 0 && t->input < 0) return t->data;
  for (size_t j = 0; t->alloc >= 0 && j < g->kept.len; j++)
    if (g->kept.data[j] == t->alloc) return mlc_internf(g->ctx, "st->mlc_kept[%zu]", j);
  size_t j = g->kept.len;
  mlc_vec_push(&g->kept, t->alloc);
  if (t->alloc >= 0) {
    mlc_sb_printf(&g->body, "  st->mlc_kept[%zu] = fr->mlc_a%d;\n  fr->mlc_a%d = NULL;\n", j, t->alloc, t->alloc);
  } else { /* an input returned as it is: the model owns a copy */
    mlc_sb_printf(&g->body, "  { /* a copy of input '%s' */\n", g->inputs[t->input].name);
    if (!cg_emit_nbytes(g, t, g->inputs[t->input].name)) return NULL;
    mlc_sb_printf(&g->body, "    if (!(st->mlc_kept[%zu] = env->workspace_alloc(mlc_nb, %d))) {\n      rc = -1;\n"
                            "      goto mlc_done;\n    }\n    memcpy(st->mlc_kept[%zu], %s, mlc_nb);\n  }\n",
                  j, C_PARAM_ALIGN, j, t->data);
  }
  return mlc_internf(g->ctx, "st->mlc_kept[%zu]", j);
}

static bool compile_outputs(G *g, GVal *result, CGraph *out) {
  GValVec outs = {0};
  bool ok = flatten_result(g, result, &outs);
  out->n_outputs = (int)outs.len;
  out->outputs = mlc_arena_array(&g->ctx->arena, outs.len ? outs.len : 1, sizeof *out->outputs);
  for (size_t i = 0; ok && i < outs.len; i++) {
    const GVal *t = outs.data[i];
    CIo *io = &out->outputs[i];
    io->name = mlc_internf(g->ctx, "output_%zu", i);
    io->dtype = t->dtype;
    io->ndim = t->ndim;
    io->dims = mlc_arena_array(&g->ctx->arena, (size_t)(t->ndim ? t->ndim : 1), sizeof *io->dims);
    for (int d = 0; ok && d < t->ndim; d++) {
      int k = t->shape[d]->kind == MLC_EXPR_VAR ? cg_sym_index(g, t->shape[d]) : -1;
      if (k >= 0) io->dims[d] = -(int64_t)k - 1;
      else if (t->shape[d]->kind == MLC_EXPR_VAR && cg_dsym_index(g, t->shape[d]) >= 0)
        io->dims[d] = MLCRT_DIM_COMPUTED; /* read from a tensor during the run */
      else if (!mlc_e_is_const_int(t->shape[d], &io->dims[d]) && t->shape[d]->kind == MLC_EXPR_VAR)
        ok = cg_gerr(g, "output %zu of '%s': dimension %d is neither a constant nor an input's size", i, g->fn->name, d);
      else if (t->shape[d]->kind != MLC_EXPR_INT)
        io->dims[d] = MLCRT_DIM_COMPUTED; /* arithmetic on the sizes: the code below computes it */
    }
    const char *data = ok ? output_data(g, t) : NULL;
    ok = ok && data;
    if (!ok) break;
    mlc_sb_printf(&g->fields, "  int64_t mlc_out_shape%zu[%d];\n", i, t->ndim ? t->ndim : 1);
    for (int d = 0; ok && d < t->ndim; d++) {
      mlc_sb_printf(&g->body, "  st->mlc_out_shape%zu[%d] = ", i, d);
      ok = cg_c_dim(g, t->shape[d], &g->body);
      mlc_sb_puts(&g->body, ";\n");
    }
    mlc_sb_printf(&g->body, "  st->mlc_out[%zu] = (mlc_dltensor){%s, {1, 0}, %d, {%d, %d, %d}, st->mlc_out_shape%zu, NULL, 0};\n",
                  i, data, t->ndim, c_dl_code(t->dtype), c_dl_bits(t->dtype), t->dtype.lanes, i);
    mlc_sb_printf(&g->body, "  mlc_outputs[%zu] = &st->mlc_out[%zu];\n", i, i);
    if (g->gpu != MLC_GPU_NONE)
      mlc_sb_printf(&g->body, "  if ((rc = mlc_gpu_host(mlc_g, &st->mlc_out[%zu], 0)) != 0) goto mlc_done;\n", i);
  }
  mlc_vec_free(&outs);
  return ok;
}

/* ---- the C text ---------------------------------------------------------------------- */

static const char EXEC_PREAMBLE[] =
    "#include <string.h>\n\n"
    "/* The executor is glue between kernels, which keep the optimization level\n"
    " * they were compiled with; optimizing it harder costs the C compiler time\n"
    " * in proportion to the model's size and buys nothing at run time. */\n"
    "#pragma GCC optimize(\"O1\")\n\n"
    "/* the runtime's model ABI (docs/runtime.md): DLPack tensors, externs */\n"
    "typedef struct {\n"
    "  void *data;\n"
    "  struct { int32_t device_type, device_id; } device;\n"
    "  int32_t ndim;\n"
    "  mlc_dtype dtype;\n"
    "  int64_t *shape;\n"
    "  int64_t *strides;\n"
    "  uint64_t byte_offset;\n"
    "} mlc_dltensor;\n"
    "typedef struct MlcrtExtern {\n"
    "  const char *name;\n"
    "  int32_t (*fn)(mlc_dltensor *const *args, int32_t n_args, const MlcrtEnv *env);\n"
    "} MlcrtExtern;\n"
    "/* an extern function by name (defined after the executor) */\n"
    "static int32_t mlc_get_extern(const MlcrtEnv *env, const char *name, MlcrtExtern *out);\n\n"
    "/* bytes of a tensor of n dims d[] and elements of es bytes; -1 on overflow */\n"
    "static int mlc_nbytes(const int64_t *d, int n, size_t es, size_t *out) {\n"
    "  uint64_t t = es;\n"
    "  for (int i = 0; i < n; i++) {\n"
    "    if (d[i] < 0 || (d[i] && t > (uint64_t)INT64_MAX / (uint64_t)d[i])) return -1;\n"
    "    t *= (uint64_t)d[i];\n"
    "  }\n"
    "  if (t > (uint64_t)SIZE_MAX) return -1;\n"
    "  *out = (size_t)t;\n"
    "  return 0;\n"
    "}\n"
    "static inline int64_t mlc_floordiv(int64_t a, int64_t b) {\n"
    "  if (b == 0) return 0;\n"
    "  int64_t q = a / b;\n"
    "  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;\n"
    "}\n"
    "static inline int64_t mlc_floormod(int64_t a, int64_t b) { return b == 0 ? 0 : a - mlc_floordiv(a, b) * b; }\n"
    "static inline int64_t mlc_truncdiv(int64_t a, int64_t b) { return b == 0 ? 0 : a / b; }\n"
    "static inline int64_t mlc_truncmod(int64_t a, int64_t b) { return b == 0 ? 0 : a % b; }\n"
    "static inline int64_t mlc_min(int64_t a, int64_t b) { return a < b ? a : b; }\n"
    "static inline int64_t mlc_max(int64_t a, int64_t b) { return a > b ? a : b; }\n"
    "/* call site s begins (e = 0) or ends (e = 1), for a profiling runtime */\n"
    "#define MLC_PROF(s, e) do { if (mlc_prof) mlc_prof(env->profile_data, (s), (e)); } while (0)\n"
    "/* kernel call site s: out of line, so that each site is one line of C */\n"
    "typedef int32_t (*mlc_kernel_fn)(void *const *, const int64_t *, const MlcrtEnv *);\n"
    "__attribute__((noinline)) static int32_t mlc_call(void (*mlc_prof)(void *, int32_t, int32_t), int32_t s,\n"
    "                                                 mlc_kernel_fn k, void *const *args, const int64_t *syms,\n"
    "                                                 const MlcrtEnv *env) {\n"
    "  MLC_PROF(s, 0);\n"
    "  int32_t rc = k(args, syms, env);\n"
    "  if (rc == 0) MLC_PROF(s, 1);\n"
    "  return rc;\n"
    "}\n\n";

/* The run function: a frame of what the pieces share, the pieces in order,
 * and the release of run-time allocations however it ends. */
static void emit_run(G *g, MlcStrBuf *o, size_t nparams) {
  bool gpu = g->gpu != MLC_GPU_NONE;
  mlc_sb_printf(o, "typedef struct {\n  void (*mlc_prof)(void *, int32_t, int32_t);\n%s%s", 
                gpu ? "  const mlc_gpu *mlc_g; /* the GPU services, for the whole run */\n" : "", mlc_sb_cstr(&g->decls));
  if (g->dsyms.len) mlc_sb_printf(o, "  int64_t mlc_dsym[%zu]; /* sizes read from tensors */\n", g->dsyms.len);
  mlc_sb_puts(o, "} mlc_run_frame;\n\n");
  size_t n_pieces = g->cuts.len + 1;
  for (size_t k = 0; k < n_pieces; k++) {
    size_t from = k ? g->cuts.data[k - 1] : 0, to = k < g->cuts.len ? g->cuts.data[k] : g->body.len;
    /* noinline: the compiler would otherwise fold the pieces back into one */
    mlc_sb_printf(o, "__attribute__((noinline)) static int32_t mlc_model_run%zu(\n"
                     "    mlc_model_state *st, mlc_run_frame *fr, const int64_t *mlc_syms, mlc_dltensor **mlc_outputs,\n"
                     "    const MlcrtEnv *env) {\n"
                     "  int32_t rc = 0;\n  void (*mlc_prof)(void *, int32_t, int32_t) = fr->mlc_prof;\n"
                     "  (void)st;\n  (void)fr;\n  (void)mlc_prof;\n  (void)mlc_syms;\n  (void)mlc_outputs;\n", k);
    if (gpu) mlc_sb_puts(o, "  const mlc_gpu *mlc_g = fr->mlc_g;\n  (void)mlc_g;\n");
    mlc_sb_printf(o, "%.*s", (int)(to - from), g->body.data + from);
    mlc_sb_puts(o, "  goto mlc_done;\nmlc_done:\n  return rc;\n}\n\n");
  }
  mlc_sb_puts(o, "static int32_t mlc_model_run(void *mlc_state, void *const *mlc_inputs, const int64_t *mlc_syms,\n"
                 "                             mlc_dltensor **mlc_outputs, const MlcrtEnv *env) {\n"
                 "  mlc_model_state *st = (mlc_model_state *)mlc_state;\n  int32_t rc = 0;\n"
                 "  mlc_run_frame mlc_fr, *fr = &mlc_fr;\n  memset(fr, 0, sizeof *fr);\n"
                 "  fr->mlc_prof = env->version >= 3 ? env->profile : NULL;\n  (void)mlc_inputs;\n");
  for (int i = 0; i < g->n_inputs; i++) mlc_sb_printf(o, "  fr->mlc_in%d = mlc_inputs[%d];\n", i, i);
  if (gpu) /* tensors stay on the device from here to the end of the run */
    mlc_sb_printf(o, "  if (!(fr->mlc_g = mlc_gpu_get(env, %d))) return -1;\n"
                     "  if ((rc = fr->mlc_g->begin()) != 0) return rc;\n",
                  g->gpu == MLC_GPU_CUDA ? MLCRT_GPU_CUDA : MLCRT_GPU_OPENCL);
  mlc_sb_puts(o, "  mlc_model_release(st, env);\n");
  if (gpu && nparams) /* the weights' copies outlive the run (runtime.h, keep) */
    mlc_sb_printf(o, "  if (!st->mlc_gpu_kept) {\n    if ((rc = fr->mlc_g->keep(st->mlc_params, %zu)) != 0) goto mlc_done;\n"
                     "    st->mlc_gpu_kept = fr->mlc_g;\n  }\n", nparams);
  for (size_t k = 0; k < n_pieces; k++)
    mlc_sb_printf(o, "  if ((rc = mlc_model_run%zu(st, fr, mlc_syms, mlc_outputs, env)) != 0) goto mlc_done;\n", k);
  mlc_sb_puts(o, "mlc_done:\n");
  if (gpu) mlc_sb_puts(o, "  fr->mlc_g->end();\n");
  for (int a = 0; a < g->n_allocs; a++) mlc_sb_printf(o, "  if (fr->mlc_a%d) env->workspace_free(fr->mlc_a%d);\n", a, a);
  mlc_sb_puts(o, "  return rc;\n}\n");
}

/* the host's side of a tensor on a GPU: its newest bytes brought home
 * (wrote = 0) or its device copy made stale (wrote = 1) */
static const char GPU_PREAMBLE[] =
    "static int32_t mlc_gpu_host(const mlc_gpu *g, const mlc_dltensor *t, int wrote) {\n"
    "  size_t nb;\n"
    "  if (mlc_nbytes(t->shape, t->ndim, (size_t)(t->dtype.bits * t->dtype.lanes + 7) / 8, &nb) != 0) return 0;\n"
    "  if (wrote) g->host_wrote(t->data, nb);\n"
    "  return wrote ? 0 : g->to_host(t->data, nb);\n"
    "}\n\n";

static void emit_text(G *g, size_t nparams, CGraph *out) {
  MlcStrBuf *o = &out->code;
  size_t nk = g->kept.len ? g->kept.len : 1, no = out->n_outputs ? (size_t)out->n_outputs : 1;
  mlc_sb_puts(o, EXEC_PREAMBLE);
  if (g->gpu != MLC_GPU_NONE) mlc_sb_puts(o, GPU_PREAMBLE);
  if (g->dsyms.len || g->dyn_used) {
#define X(id, name) mlc_sb_printf(o, "#define MLC_DYN_%s %d\n", #id, MLC_DYN_##id);
    MLC_DYN_MODES(X)
#undef X
    mlc_sb_puts(o, cg_dyn_preamble);
  }
  mlc_sb_printf(o, "/* ---- the executor of graph function '%s' ---- */\n", g->fn->name);
  bool keep = g->gpu != MLC_GPU_NONE && nparams > 0; /* weights stay on the device between runs */
  mlc_sb_printf(o, "typedef struct {\n  const uint8_t *mlc_params;\n%s%s", keep ? "  const mlc_gpu *mlc_gpu_kept;\n" : "",
                mlc_sb_cstr(&g->fields));
  mlc_sb_printf(o, "  void *mlc_kept[%zu]; /* run-time allocations that are outputs */\n", nk);
  mlc_sb_printf(o, "  mlc_dltensor mlc_out[%zu];\n} mlc_model_state;\n\n", no);
  mlc_sb_printf(o, "static void mlc_model_release(mlc_model_state *st, const MlcrtEnv *env) {\n"
                   "  for (int i = 0; i < %zu; i++) {\n"
                   "    if (st->mlc_kept[i]) env->workspace_free(st->mlc_kept[i]);\n"
                   "    st->mlc_kept[i] = NULL;\n  }\n}\n\n", nk);
  mlc_sb_printf(o, "static void mlc_model_destroy(void *mlc_state, const MlcrtEnv *env) {\n"
                   "  mlc_model_state *st = (mlc_model_state *)mlc_state;\n  if (!st) return;\n"
                   "  mlc_model_release(st, env);\n%s%s  env->workspace_free(st);\n}\n\n", mlc_sb_cstr(&g->destroy),
                keep ? mlc_internf(g->ctx, "  if (st->mlc_gpu_kept) st->mlc_gpu_kept->forget(st->mlc_params, %zu);\n", nparams) : "");
  mlc_sb_puts(o, "static int32_t mlc_model_create(const void *mlc_params, const MlcrtEnv *env, void **mlc_out) {\n");
  if (g->externs.len)
    mlc_sb_printf(o, "  if (env->version < 2) {\n    env->set_error(\"%s: extern functions need a runtime environment of "
                     "version 2\");\n    return -1;\n  }\n", g->fn->name);
  if (nparams)
    mlc_sb_printf(o, "  if (!mlc_params) {\n    env->set_error(\"%s: no weights given\");\n    return -1;\n  }\n", g->fn->name);
  mlc_sb_puts(o, "  mlc_model_state *st = (mlc_model_state *)env->workspace_alloc(sizeof(mlc_model_state), 0);\n"
                 "  if (!st) return -1;\n  memset(st, 0, sizeof *st);\n"
                 "  st->mlc_params = (const uint8_t *)mlc_params;\n");
  mlc_sb_printf(o, "%s  *mlc_out = st;\n  return 0;\n", mlc_sb_cstr(&g->create));
  if (g->create.len) mlc_sb_puts(o, "mlc_fail:\n  mlc_model_destroy(st, env);\n  return -1;\n");
  mlc_sb_puts(o, "}\n\n");
  emit_run(g, o, nparams);
}

static void g_free(G *g) {
  mlc_map_free(&g->vals);
  mlc_map_free(&g->sym_alias);
  mlc_vec_free(&g->syms);
  mlc_vec_free(&g->dsyms);
  mlc_vec_free(&g->externs);
  mlc_vec_free(&g->kept);
  mlc_vec_free(&g->sites);
  mlc_map_free(&g->site_of_out);
  mlc_map_free(&g->kernel_cost);
  mlc_vec_free(&g->fields);
  mlc_vec_free(&g->create);
  mlc_vec_free(&g->destroy);
  mlc_vec_free(&g->decls);
  mlc_vec_free(&g->body);
  mlc_vec_free(&g->cuts);
}

bool c_graph_compile(MlcCtx *ctx, const MlcModule *m, const char *entry, const CKernelVec *kernels,
                     const CParamLayout *params, MlcGpuApi gpu, CGraph *out) {
  memset(out, 0, sizeof *out);
  const MlcFunc *f = mlc_module_find(m, mlc_intern(ctx, entry ? entry : "main"));
  if (!f || f->kind != MLC_FUNC_GRAPH)
    return mlc_error(ctx, ctx->build_loc, "the module has no graph function '%s' to compile as the model",
                     entry ? entry : "main");
  G g = {.ctx = ctx, .m = m, .fn = f->graph, .kernels = kernels, .params = params, .loc = ctx->build_loc, .bname = "",
         .gpu = gpu};
  out->fn = g.fn;
  bool ok = compile_inputs(&g);
  const MlcGExpr *body = g.fn->body;
  GVal *result = NULL;
  if (ok && body->kind == MLC_G_SEQ) {
    for (int b = 0; ok && b < body->seq.n; b++)
      for (int i = 0; ok && i < body->seq.blocks[b]->n; i++) {
        ok = cg_compile_binding(&g, &body->seq.blocks[b]->bindings[i]);
        size_t done = g.cuts.len ? g.cuts.data[g.cuts.len - 1] : 0;
        if (g.sites.len >= PIECE_SITES * (g.cuts.len + 1) && g.body.len > done) mlc_vec_push(&g.cuts, g.body.len);
      }
    body = body->seq.result;
  }
  g.bname = "";
  g.loc = ctx->build_loc;
  if (ok) ok = (result = cg_resolve(&g, body)) != NULL;
  if (ok) ok = compile_outputs(&g, result, out);
  if (ok) {
    out->inputs = g.inputs;
    out->n_inputs = g.n_inputs;
    out->n_syms = (int)g.syms.len;
    out->sym_names = mlc_arena_array(&ctx->arena, g.syms.len ? g.syms.len : 1, sizeof *out->sym_names);
    for (size_t i = 0; i < g.syms.len; i++) out->sym_names[i] = g.syms.data[i]->var.name;
    out->n_externs = (int)g.externs.len;
    out->externs = g.externs.len ? mlc_arena_dup(&ctx->arena, g.externs.data, g.externs.len * sizeof *g.externs.data) : NULL;
    out->n_sites = (int)g.sites.len;
    out->sites = g.sites.len ? mlc_arena_dup(&ctx->arena, g.sites.data, g.sites.len * sizeof *g.sites.data) : NULL;
    emit_text(&g, params->nbytes, out);
  }
  g_free(&g);
  return ok;
}

void c_graph_free(CGraph *g) { mlc_vec_free(&g->code); }
