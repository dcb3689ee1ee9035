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
#include "c_model.h"
#include "ops/dyn_modes.h"
#include "mlcc/arith.h"

#include <assert.h>
#include <stdio.h>
#include <string.h>

/* call sites per piece of the run function: the C compiler's time per call
 * grows with the size of the function it is in, and is least from here on */
#define PIECE_SITES 32

typedef enum GvKind { GV_NONE, GV_TENSOR, GV_TUPLE, GV_STORAGE, GV_EXPR } GvKind;

typedef struct GVal GVal;
struct GVal {
  GvKind kind;
  /* TENSOR */
  const char *data;     /* C expression of the element pointer */
  int ndim;
  MlcExpr **shape;
  MlcDType dtype;
  int align;            /* alignment known of data (0 none) */
  int alloc;            /* run-time allocation number, or -1 */
  int input;            /* input number, or -1 */
  /* TUPLE */
  GVal **fields;
  int n;
  /* STORAGE: number and bytes */
  int storage;
  int64_t size;
  /* EXPR: a shape, prim value, string or dtype */
  const MlcGExpr *expr;
};

typedef MLC_VEC(GVal *) GValVec;

typedef struct G {
  MlcCtx *ctx;
  const MlcModule *m;
  const MlcGFunc *fn;
  const CKernelVec *kernels;
  const CParamLayout *params;
  MlcMap vals;                      /* graph var -> GVal */
  MLC_VEC(const MlcExpr *) syms;    /* the model's symbolic sizes */
  MLC_VEC(const MlcExpr *) dsyms;   /* sizes bound at run time by tensor_to_shape (fr->mlc_dsym[]) */
  MLC_VEC(const char *) externs;    /* extern names, interned */
  MLC_VEC(int) kept;                /* per kept slot: its allocation, -1 for a copy */
  MLC_VEC(CSite) sites;             /* the calls so far */
  MlcMap site_of_out;               /* a call's output var -> its site number + 1 */
  MlcMap kernel_cost;               /* prim func -> its {flops, bytes}, estimated once */
  MlcStrBuf fields, create, destroy, decls, body;
  MLC_VEC(size_t) cuts;             /* offsets in body where a piece of the run ends */
  int n_allocs, n_storages;
  CIo *inputs;
  int n_inputs;
  MlcLoc loc;                       /* the binding being compiled */
  const char *bname;                /* its var's name */
  MlcGpuApi gpu;                    /* the kernels' target: tensors live on its device between kernels */
  bool dyn_used;                    /* the run reads sizes from tensors (DYN_PREAMBLE) */
  MlcMap sym_alias;                 /* a loop body's size var -> the caller's dim it stands for */
  int n_loops;                      /* R.loop calls compiled, which number their locals */
  int loop_depth;                   /* R.loop bodies being compiled, one inside another */
} G;

static bool gerr(G *g, const char *fmt, ...) MLC_PRINTF(2, 3);
static bool gerr(G *g, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  mlc_verror(g->ctx, g->loc, fmt, ap);
  va_end(ap);
  return false;
}

static GVal *gv_new(G *g, GvKind kind) {
  GVal *v = mlc_arena_alloc(&g->ctx->arena, sizeof *v);
  v->kind = kind;
  v->alloc = v->input = v->storage = -1;
  return v;
}

/* ---- C text of sizes ------------------------------------------------------- */

static int sym_index(const G *g, const MlcExpr *v) {
  for (size_t i = 0; i < g->syms.len; i++)
    if (g->syms.data[i] == v) return (int)i;
  return -1;
}

static int dsym_index(const G *g, const MlcExpr *v) {
  for (size_t i = 0; i < g->dsyms.len; i++)
    if (g->dsyms.data[i] == v) return (int)i;
  return -1;
}

/* An int64 C expression of a shape expression over mlc_syms[]. */
static bool c_dim(G *g, const MlcExpr *e, MlcStrBuf *sb) {
  static const char *const fn[MLC_BIN_COUNT] = {
      [MLC_BIN_FLOORDIV] = "mlc_floordiv", [MLC_BIN_FLOORMOD] = "mlc_floormod", [MLC_BIN_MIN] = "mlc_min",
      [MLC_BIN_MAX] = "mlc_max", [MLC_BIN_DIV] = "mlc_truncdiv", [MLC_BIN_MOD] = "mlc_truncmod"};
  static const char *const op[MLC_BIN_COUNT] = {[MLC_BIN_ADD] = "+", [MLC_BIN_SUB] = "-", [MLC_BIN_MUL] = "*"};
  switch (e->kind) {
  case MLC_EXPR_INT: mlc_sb_printf(sb, "INT64_C(%lld)", (long long)e->int_val); return true;
  case MLC_EXPR_VAR: {
    const MlcExpr *to = mlc_map_get(&g->sym_alias, e);
    if (to) return c_dim(g, to, sb);
    int k = sym_index(g, e);
    if (k < 0 && (k = dsym_index(g, e)) >= 0) {
      mlc_sb_printf(sb, "fr->mlc_dsym[%d]", k);
      return true;
    }
    if (k < 0)
      return gerr(g, "symbolic size '%s' is not the size of any input of '%s'", e->var.name, g->fn->name);
    mlc_sb_printf(sb, "mlc_syms[%d]", k);
    return true;
  }
  case MLC_EXPR_CAST:
    if (!mlc_dtype_is_int(e->dtype)) break;
    return c_dim(g, e->operand, sb);
  case MLC_EXPR_BINARY:
    if (!op[e->bin.op] && !fn[e->bin.op]) break;
    mlc_sb_puts(sb, op[e->bin.op] ? "(" : fn[e->bin.op]);
    if (!op[e->bin.op]) mlc_sb_puts(sb, "(");
    if (!c_dim(g, e->bin.a, sb)) return false;
    mlc_sb_puts(sb, op[e->bin.op] ? op[e->bin.op] : ", ");
    if (!c_dim(g, e->bin.b, sb)) return false;
    mlc_sb_puts(sb, ")");
    return true;
  default: break;
  }
  return gerr(g, "binding '%s': a shape expression the executor cannot compute", g->bname);
}

/* "{d0, d1}" of a tensor's shape (one 0 for rank 0: C has no empty arrays) */
static bool c_dims(G *g, const GVal *t, MlcStrBuf *sb) {
  mlc_sb_puts(sb, "{");
  for (int d = 0; d < t->ndim; d++) {
    if (d) mlc_sb_puts(sb, ", ");
    if (!c_dim(g, t->shape[d], sb)) return false;
  }
  mlc_sb_puts(sb, t->ndim ? "}" : "0}");
  return true;
}

/* the shape's element count and bytes, checked against overflow at run time,
 * into the local `mlc_nb` of a block the caller opened */
static bool emit_nbytes(G *g, const GVal *t, const char *what) {
  MlcStrBuf dims = {0};
  bool ok = c_dims(g, t, &dims);
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

static GVal *resolve(G *g, const MlcGExpr *e);

static GVal *const_val(G *g, const MlcGExpr *e) {
  const MlcTensorData *d = e->constant;
  uintptr_t off = (uintptr_t)mlc_map_get(&g->params->offsets, d);
  if (!off) return gerr(g, "binding '%s': a constant missing from the weights", g->bname), NULL;
  if (!c_storage_type(d->dtype)) return gerr(g, "binding '%s': constant of dtype %s", g->bname, dtype_name(g, d->dtype)), NULL;
  GVal *v = gv_new(g, GV_TENSOR);
  v->data = mlc_internf(g->ctx, "(void *)(st->mlc_params + %zu)", (size_t)(off - 1));
  v->ndim = d->ndim;
  v->shape = mlc_arena_array(&g->ctx->arena, (size_t)(d->ndim ? d->ndim : 1), sizeof *v->shape);
  for (int i = 0; i < d->ndim; i++) v->shape[i] = mlc_e_int(g->ctx, MLC_I64, d->shape[i]);
  v->dtype = d->dtype;
  v->align = C_PARAM_ALIGN;
  return v;
}

static GVal *resolve(G *g, const MlcGExpr *e) {
  switch (e->kind) {
  case MLC_G_VAR: case MLC_G_DFVAR: {
    GVal *v = mlc_map_get(&g->vals, e);
    if (!v) gerr(g, "binding '%s': '%s' is not defined before it", g->bname, e->var.name);
    return v;
  }
  case MLC_G_CONST: return const_val(g, e);
  case MLC_G_TUPLE: {
    GVal *v = gv_new(g, GV_TUPLE);
    v->n = e->tuple.n;
    v->fields = mlc_arena_array(&g->ctx->arena, (size_t)(v->n ? v->n : 1), sizeof *v->fields);
    for (int i = 0; i < v->n; i++)
      if (!(v->fields[i] = resolve(g, e->tuple.fields[i]))) return NULL;
    return v;
  }
  case MLC_G_GET_ITEM: {
    GVal *t = resolve(g, e->get_item.tuple);
    if (!t) return NULL;
    if (t->kind != GV_TUPLE || e->get_item.index >= t->n)
      return gerr(g, "binding '%s': item %d of a value that is no tuple of that size", g->bname, e->get_item.index), NULL;
    return t->fields[e->get_item.index];
  }
  case MLC_G_SHAPE: case MLC_G_PRIM: case MLC_G_STR: case MLC_G_DTYPE: {
    GVal *v = gv_new(g, GV_EXPR);
    v->expr = e;
    return v;
  }
  default: return gerr(g, "binding '%s': unsupported value in the executor", g->bname), NULL;
  }
}

static GVal *resolve_tensor(G *g, const MlcGExpr *e, const char *what) {
  GVal *v = resolve(g, e);
  if (v && v->kind != GV_TENSOR) return gerr(g, "binding '%s': %s is not a tensor", g->bname, what), NULL;
  return v;
}

/* an op argument that must be a shape, a prim value or a dtype, through vars */
static const MlcGExpr *expr_arg(G *g, const MlcGExpr *call, int i, MlcGExprKind kind, const char *what) {
  GVal *v = i < call->call.n ? resolve(g, call->call.args[i]) : NULL;
  if (!v || v->kind != GV_EXPR || v->expr->kind != kind) {
    if (!mlc_has_error(g->ctx)) gerr(g, "binding '%s': R.%s: argument %d must be %s", g->bname, call->call.callee->str, i + 1, what);
    return NULL;
  }
  return v->expr;
}

static bool const_int_arg(G *g, const MlcGExpr *call, int i, int64_t *out) {
  const MlcGExpr *e = expr_arg(g, call, i, MLC_G_PRIM, "an integer R.prim_value");
  if (!e) return false;
  if (!mlc_e_is_const_int(e->prim, out) || *out < 0)
    return gerr(g, "binding '%s': R.%s: argument %d must be a constant integer >= 0", g->bname, call->call.callee->str, i + 1);
  return true;
}

/* ---- allocations ------------------------------------------------------------------ */

static GVal *tensor_of(G *g, const MlcGExpr *shape, const MlcGExpr *dtype) {
  GVal *t = gv_new(g, GV_TENSOR);
  t->ndim = shape->shape.n;
  t->shape = shape->shape.values;
  t->dtype = dtype->dtype;
  if (!c_storage_type(t->dtype))
    return gerr(g, "binding '%s': tensors of dtype %s are not supported", g->bname, dtype_name(g, t->dtype)), NULL;
  return t;
}

static bool static_nbytes(G *g, const GVal *t, int64_t *out) {
  int64_t n = (int64_t)mlc_dtype_bytes(t->dtype), v;
  for (int d = 0; d < t->ndim; d++) {
    if (!mlc_e_is_const_int(t->shape[d], &v)) return false;
    if (v < 0 || __builtin_mul_overflow(n, v, &n)) return gerr(g, "binding '%s': size out of range", g->bname);
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
    return mlc_has_error(g->ctx) ? NULL : (gerr(g, "binding '%s': a storage of symbolic size", g->bname), NULL);
  GVal *s = gv_new(g, GV_STORAGE);
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
  GVal *s = call->call.n == 4 ? resolve(g, call->call.args[0]) : NULL;
  if (!s) return mlc_has_error(g->ctx) ? NULL : (gerr(g, "binding '%s': R.memory.alloc_tensor takes 4 arguments", g->bname), NULL);
  if (s->kind != GV_STORAGE) return gerr(g, "binding '%s': argument 1 is not a storage", g->bname), NULL;
  int64_t off, size;
  const MlcGExpr *shape, *dt;
  if (!const_int_arg(g, call, 1, &off) || !(shape = expr_arg(g, call, 2, MLC_G_SHAPE, "an R.shape")) ||
      !(dt = expr_arg(g, call, 3, MLC_G_DTYPE, "an R.dtype")))
    return NULL;
  GVal *t = tensor_of(g, shape, dt);
  if (!t) return NULL;
  if (!static_nbytes(g, t, &size))
    return mlc_has_error(g->ctx) ? NULL : (gerr(g, "binding '%s': a planned tensor of symbolic shape", g->bname), NULL);
  if (off > s->size || size > s->size - off)
    return gerr(g, "binding '%s': bytes [%lld, %lld) are outside the storage's %lld", g->bname, (long long)off,
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
  if (!emit_nbytes(g, t, g->bname)) return NULL;
  mlc_sb_printf(&g->body, "    if (!(fr->mlc_a%d = env->workspace_alloc(mlc_nb, %d))) {\n      rc = -1;\n      goto mlc_done;\n    }\n  }\n",
                t->alloc, C_PARAM_ALIGN);
  return t;
}

/* ---- sizes read from tensors ------------------------------------------------------ */

/* The run's side of tensor_to_shape (src/ops/dynshape.c): the values of a
 * tensor made into a shape by the op's mode, checked, and capped so that a
 * hostile tensor cannot make the run allocate without bound.  Emitted only
 * into executors that read sizes. */
static const char DYN_PREAMBLE[] =
    "#include <stdio.h>\n"
    "/* the largest size, and element count of a shape of read values, the run accepts */\n"
    "#define MLC_DYN_MAX_DIM INT64_C(2147483647)\n"
    "#define MLC_DYN_MAX_NUMEL (INT64_C(1) << 28)\n"
    "/* out[0..n) from the values v[0..k) and the dims like[0..r) of the tensor the\n"
    " * mode relates them to; the modes are tensor_to_shape's (MLC_DYN_VALUES, a\n"
    " * reshape of `like`, an expand of it, like's shape with axes kept as 1,\n"
    " * dropped, squeezed or inserted, tiled, at most its element count, the\n"
    " * parts of a split dim, sliced, padded; range and resize have functions\n"
    " * of their own) */\n"
    "static int32_t mlc_dyn_shape(int mode, const int64_t *v, int k, const int64_t *like, int r, int64_t *out,\n"
    "                             int n, const char *what, const MlcrtEnv *env) {\n"
    "  char msg[256];\n"
    "  int unknown = -1;\n"
    "  if (mode == MLC_DYN_PAD || mode == MLC_DYN_PAD_COPY) {\n"
    "    int q = k / 3;\n"
    "    unsigned char on[64] = {0};\n"
    "    int64_t numel = 1;\n"
    "    for (int d = 0; d < r && d < n; d++) out[d] = like[d];\n"
    "    for (int j = 0; j < q; j++) {\n"
    "      int64_t b = v[j], e = v[q + j], a = v[2 * q + j] < 0 ? v[2 * q + j] + r : v[2 * q + j];\n"
    "      if (r != n || r > 64 || a < 0 || a >= r || on[a]) {\n"
    "        snprintf(msg, sizeof msg, \"%s: pad %d: axis %lld is out of range for rank %d or given twice\", what, j,\n"
    "                 (long long)v[2 * q + j], r);\n"
    "        goto fail;\n"
    "      }\n"
    "      on[a] = 1;\n"
    "      if (b < -MLC_DYN_MAX_DIM || b > MLC_DYN_MAX_DIM || e < -MLC_DYN_MAX_DIM || e > MLC_DYN_MAX_DIM ||\n"
    "          like[a] + b + e < 0 || (mode == MLC_DYN_PAD_COPY && like[a] == 0 && like[a] + b + e > 0)) {\n"
    "        snprintf(msg, sizeof msg, \"%s: pads %lld, %lld of axis %lld (of size %lld) are too large, crop more than \"\n"
    "                 \"it holds, or pad it while it is empty\", what, (long long)b, (long long)e, (long long)a,\n"
    "                 (long long)like[a]);\n"
    "        goto fail;\n"
    "      }\n"
    "      out[a] = like[a] + b + e;\n"
    "    }\n"
    "    for (int i = 0; i < n; i++) {\n"
    "      if (out[i] > MLC_DYN_MAX_DIM || (out[i] && numel > MLC_DYN_MAX_NUMEL / out[i])) {\n"
    "        snprintf(msg, sizeof msg, \"%s: a padded shape of more elements than a shape read at run time may hold \"\n"
    "                 \"(%lld)\", what, (long long)MLC_DYN_MAX_NUMEL);\n"
    "        goto fail;\n"
    "      }\n"
    "      numel *= out[i];\n"
    "    }\n"
    "    return 0;\n"
    "  }\n"
    "  if (mode == MLC_DYN_SLICE) {\n"
    "    int q = k / 4;\n"
    "    unsigned char on[64] = {0};\n"
    "    for (int d = 0; d < r && d < n; d++) out[d] = like[d];\n"
    "    for (int j = 0; j < q; j++) {\n"
    "      int64_t b = v[j], e = v[q + j], a = v[2 * q + j] < 0 ? v[2 * q + j] + r : v[2 * q + j], s = v[3 * q + j];\n"
    "      if (r != n || r > 64 || a < 0 || a >= r || on[a] || s == 0) {\n"
    "        snprintf(msg, sizeof msg, \"%s: slice %d: axis %lld is out of range for rank %d or given twice, or step %lld is 0\",\n"
    "                 what, j, (long long)v[2 * q + j], r, (long long)s);\n"
    "        goto fail;\n"
    "      }\n"
    "      on[a] = 1;\n"
    "      int64_t d = like[a];\n"
    "      if (b < 0) b += d;\n"
    "      if (e < 0) e += d;\n"
    "      if (s > 0) {\n"
    "        b = b < 0 ? 0 : b > d ? d : b;\n"
    "        e = e < 0 ? 0 : e > d ? d : e;\n"
    "        out[a] = e > b ? (e - b - 1) / s + 1 : 0;\n"
    "      } else {\n"
    "        b = b < -1 ? -1 : b > d - 1 ? d - 1 : b;\n"
    "        e = e < -1 ? -1 : e > d - 1 ? d - 1 : e;\n"
    "        out[a] = b > e ? (b - e - 1) / (s == INT64_MIN ? INT64_MAX : -s) + 1 : 0;\n"
    "      }\n"
    "    }\n"
    "    return 0;\n"
    "  }\n"
    "  if (mode == MLC_DYN_SPLIT) {\n"
    "    int64_t sum = 0;\n"
    "    for (int i = 0; i < n; i++) {\n"
    "      if (v[i] < 0 || v[i] > like[0] - sum) {\n"
    "        snprintf(msg, sizeof msg, \"%s: split size %d (%lld) is negative or past the dim's %lld\", what, i,\n"
    "                 (long long)v[i], (long long)like[0]);\n"
    "        goto fail;\n"
    "      }\n"
    "      out[i] = v[i];\n"
    "      sum += v[i];\n"
    "    }\n"
    "    if (sum == like[0]) return 0;\n"
    "    snprintf(msg, sizeof msg, \"%s: split sizes add up to %lld, not the dim's %lld\", what, (long long)sum,\n"
    "             (long long)like[0]);\n"
    "    goto fail;\n"
    "  }\n"
    "  if (mode >= MLC_DYN_REDUCE_KEEP && mode <= MLC_DYN_UNSQUEEZE) {\n"
    "    int rr = mode == MLC_DYN_UNSQUEEZE ? n : r, o = 0, j2 = 0;\n"
    "    unsigned char on[64] = {0};\n"
    "    for (int j = 0; j < k; j++) {\n"
    "      int64_t a = v[j] < 0 ? v[j] + rr : v[j];\n"
    "      if (rr > 64 || a < 0 || a >= rr || on[a]) {\n"
    "        snprintf(msg, sizeof msg, \"%s: axis %lld is out of range for rank %d or given twice\", what,\n"
    "                 (long long)v[j], rr);\n"
    "        goto fail;\n"
    "      }\n"
    "      if (mode == MLC_DYN_SQUEEZE && like[a] != 1) {\n"
    "        snprintf(msg, sizeof msg, \"%s: axis %lld has size %lld, not 1\", what, (long long)v[j], (long long)like[a]);\n"
    "        goto fail;\n"
    "      }\n"
    "      on[a] = 1;\n"
    "    }\n"
    "    for (int d = 0; mode == MLC_DYN_UNSQUEEZE && d < n; d++) out[o++] = on[d] || j2 >= r ? 1 : like[j2++];\n"
    "    for (int d = 0; mode != MLC_DYN_UNSQUEEZE && d < r; d++)\n"
    "      if (mode == MLC_DYN_REDUCE_KEEP || !on[d]) out[o++] = on[d] ? 1 : like[d];\n"
    "    if (o == n && (mode != MLC_DYN_UNSQUEEZE || j2 == r)) return 0;\n"
    "    snprintf(msg, sizeof msg, \"%s: %d axes leave %d dims, not %d\", what, k, o, n);\n"
    "    goto fail;\n"
    "  }\n"
    "  for (int i = 0; i < n; i++) {\n"
    "    int64_t s;\n"
    "    if (mode == MLC_DYN_AT_MOST) {\n"
    "      int64_t total = 1;\n"
    "      for (int j = 0; j < r; j++) total *= like[j];\n"
    "      if (v[i] < 0 || v[i] > total) {\n"
    "        snprintf(msg, sizeof msg, \"%s: value %d (%lld) is negative or more than %lld\", what, i, (long long)v[i],\n"
    "                 (long long)total);\n"
    "        goto fail;\n"
    "      }\n"
    "      out[i] = v[i];\n"
    "      continue;\n"
    "    }\n"
    "    if (mode == MLC_DYN_TILE) {\n"
    "      if (v[i] < 0 || (v[i] && like[i] > INT64_MAX / v[i])) {\n"
    "        snprintf(msg, sizeof msg, \"%s: repeat %d is negative or too large (%lld)\", what, i, (long long)v[i]);\n"
    "        goto fail;\n"
    "      }\n"
    "      out[i] = like[i] * v[i];\n"
    "      continue;\n"
    "    }\n"
    "    if (mode == MLC_DYN_EXPAND) {\n"
    "      int64_t x = i >= n - r ? like[i - (n - r)] : 1;\n"
    "      s = i >= n - k ? v[i - (n - k)] : 1;\n"
    "      if (s < 0 || (s != x && s != 1 && x != 1)) {\n"
    "        snprintf(msg, sizeof msg, \"%s: shape value %lld does not broadcast with dim %lld\", what, (long long)s,\n"
    "                 (long long)x);\n"
    "        goto fail;\n"
    "      }\n"
    "      out[i] = x == 1 ? s : x;\n"
    "      continue;\n"
    "    }\n"
    "    s = v[i];\n"
    "    if (mode == MLC_DYN_RESHAPE && s == 0) {\n"
    "      if (i >= r) {\n"
    "        snprintf(msg, sizeof msg, \"%s: value %d is 0 but the input has %d dims\", what, i, r);\n"
    "        goto fail;\n"
    "      }\n"
    "      s = like[i];\n"
    "    }\n"
    "    if (mode != MLC_DYN_VALUES && s == -1) {\n"
    "      if (unknown >= 0) {\n"
    "        snprintf(msg, sizeof msg, \"%s: more than one value is -1\", what);\n"
    "        goto fail;\n"
    "      }\n"
    "      unknown = i;\n"
    "      out[i] = 1;\n"
    "      continue;\n"
    "    }\n"
    "    if (s < 0) {\n"
    "      snprintf(msg, sizeof msg, \"%s: value %d is negative (%lld)\", what, i, (long long)s);\n"
    "      goto fail;\n"
    "    }\n"
    "    out[i] = s;\n"
    "  }\n"
    "  int64_t numel = 1;\n"
    "  for (int i = 0; i < n; i++) {\n"
    "    if (out[i] > MLC_DYN_MAX_DIM || (out[i] && numel > INT64_MAX / out[i])) {\n"
    "      snprintf(msg, sizeof msg, \"%s: size %lld is too large\", what, (long long)out[i]);\n"
    "      goto fail;\n"
    "    }\n"
    "    numel *= out[i];\n"
    "  }\n"
    "  if (mode == MLC_DYN_RESHAPE || mode == MLC_DYN_RESHAPE_ALLOWZERO) {\n"
    "    int64_t total = 1;\n"
    "    for (int i = 0; i < r; i++) total *= like[i];\n"
    "    if (unknown >= 0) {\n"
    "      if (numel == 0 || total % numel != 0) {\n"
    "        snprintf(msg, sizeof msg, \"%s: no size for the -1 makes the input's %lld elements fit\", what,\n"
    "                 (long long)total);\n"
    "        goto fail;\n"
    "      }\n"
    "      out[unknown] = total / numel;\n"
    "      numel = total;\n"
    "    }\n"
    "    if (numel != total) {\n"
    "      snprintf(msg, sizeof msg, \"%s: the input's %lld elements cannot take a shape of %lld\", what,\n"
    "               (long long)total, (long long)numel);\n"
    "      goto fail;\n"
    "    }\n"
    "  } else if (numel > MLC_DYN_MAX_NUMEL) { /* values, expand, tile */\n"
    "    snprintf(msg, sizeof msg, \"%s: a shape of %lld elements is more than a shape read at run time may hold (%lld)\",\n"
    "             what, (long long)numel, (long long)MLC_DYN_MAX_NUMEL);\n"
    "    goto fail;\n"
    "  }\n"
    "  return 0;\n"
    "fail:\n"
    "  env->set_error(msg);\n"
    "  return -1;\n"
    "}\n"
    "/* out[0..r): the dims like[0..r) resized by v = [kind, mask, v (r), roi (2r)],\n"
    " * image.resize2d_dynamic's params: the dims in the bit mask by the scales v\n"
    " * (kind 0), to the sizes v (1), or by the least (2) or greatest (3) of\n"
    " * v_d / like[d] over them */\n"
    "static int32_t mlc_dyn_resize(const double *v, int k, const int64_t *like, int r, int64_t *out, const char *what,\n"
    "                              const MlcrtEnv *env) {\n"
    "  char msg[256];\n"
    "  int64_t numel = 1;\n"
    "  if (k != 2 + 3 * r || r > 16 || !(v[0] >= 0 && v[0] <= 3) || !(v[1] >= 0 && v[1] < 65536)) {\n"
    "    snprintf(msg, sizeof msg, \"%s: malformed resize parameters\", what);\n"
    "    goto fail;\n"
    "  }\n"
    "  int kind = (int)v[0];\n"
    "  long mask = (long)v[1];\n"
    "  double s = kind == 2 ? INFINITY : 0;\n"
    "  for (int d = 0; d < 2 * r; d++)\n"
    "    if (!(fabs(v[2 + r + d]) <= 1048576)) {\n"
    "      snprintf(msg, sizeof msg, \"%s: roi value %d (%g) is not a number of magnitude at most 2^20\", what, d,\n"
    "               v[2 + r + d]);\n"
    "      goto fail;\n"
    "    }\n"
    "  for (int d = 0; d < r; d++) {\n"
    "    double z = v[2 + d];\n"
    "    if (!(mask >> d & 1)) continue;\n"
    "    if (kind == 0 ? !(z > 0 && z <= (double)MLC_DYN_MAX_DIM) : !(z >= 1 && z <= (double)MLC_DYN_MAX_DIM)) {\n"
    "      snprintf(msg, sizeof msg, \"%s: %s %g of dim %d is not a positive %s of at most %lld\", what,\n"
    "               kind ? \"size\" : \"scale\", z, d, kind ? \"integer\" : \"number\", (long long)MLC_DYN_MAX_DIM);\n"
    "      goto fail;\n"
    "    }\n"
    "    if (kind >= 2 && like[d] < 1) {\n"
    "      snprintf(msg, sizeof msg, \"%s: dim %d is empty, so its aspect ratio cannot be kept\", what, d);\n"
    "      goto fail;\n"
    "    }\n"
    "    if (kind >= 2) s = kind == 2 ? fmin(s, z / (double)like[d]) : fmax(s, z / (double)like[d]);\n"
    "  }\n"
    "  for (int d = 0; d < r; d++) {\n"
    "    double o = !(mask >> d & 1) ? (double)like[d] : kind == 0 ? floor((double)like[d] * v[2 + d])\n"
    "             : kind == 1 ? v[2 + d] : nearbyint(s * (double)like[d]);\n"
    "    if ((mask >> d & 1) && !(o >= 1 && o <= (double)MLC_DYN_MAX_DIM)) {\n"
    "      snprintf(msg, sizeof msg, \"%s: dim %d would be resized to %g, not a size from 1 to %lld\", what, d, o,\n"
    "               (long long)MLC_DYN_MAX_DIM);\n"
    "      goto fail;\n"
    "    }\n"
    "    out[d] = (int64_t)o;\n"
    "    if (out[d] && numel > MLC_DYN_MAX_NUMEL / out[d]) {\n"
    "      snprintf(msg, sizeof msg, \"%s: a resized shape of more elements than a shape read at run time may hold \"\n"
    "               \"(%lld)\", what, (long long)MLC_DYN_MAX_NUMEL);\n"
    "      goto fail;\n"
    "    }\n"
    "    numel *= out[d];\n"
    "  }\n"
    "  return 0;\n"
    "fail:\n"
    "  env->set_error(msg);\n"
    "  return -1;\n"
    "}\n"
    "/* out[0]: the length of a range v = (start, limit, delta) */\n"
    "static int32_t mlc_dyn_range(const double *v, int64_t *out, const char *what, const MlcrtEnv *env) {\n"
    "  char msg[256];\n"
    "  double c = v[2] != 0 ? ceil((v[1] - v[0]) / v[2]) : 0;\n"
    "  if (v[2] == 0 || c != c) {\n"
    "    snprintf(msg, sizeof msg, \"%s: a range with delta 0, or of values that are not numbers\", what);\n"
    "    goto fail;\n"
    "  }\n"
    "  if (c > (double)MLC_DYN_MAX_NUMEL) {\n"
    "    snprintf(msg, sizeof msg, \"%s: a range of %g elements is more than a shape read at run time may hold\", what, c);\n"
    "    goto fail;\n"
    "  }\n"
    "  out[0] = c > 0 ? (int64_t)c : 0;\n"
    "  return 0;\n"
    "fail:\n"
    "  env->set_error(msg);\n"
    "  return -1;\n"
    "}\n\n";

/* the most values tensor_to_shape reads and dims it binds (copied on the stack) */
#define DYN_MAX_VALUES 64

/* the host's copy of tensor t is current (GPU targets) before the executor reads it */
static void emit_host_read(G *g, const GVal *t, const char *name) {
  if (g->gpu == MLC_GPU_NONE) return;
  mlc_sb_printf(&g->body, "    int64_t %s_s[] = ", name);
  c_dims(g, t, &g->body);
  mlc_sb_printf(&g->body, ";\n    mlc_dltensor %s = {%s, {1, 0}, %d, {%d, %d, %d}, %s_s, NULL, 0};\n", name, t->data, t->ndim,
                c_dl_code(t->dtype), c_dl_bits(t->dtype), t->dtype.lanes, name);
  mlc_sb_printf(&g->body, "    if ((rc = mlc_gpu_host(mlc_g, &%s, 0)) != 0) goto mlc_done;\n", name);
}

/* the string attribute key of an op call, or dflt */
static const char *str_attr(G *g, const MlcGExpr *call, const char *key, const char *dflt) {
  const MlcAttrValue *v = mlc_attrs_get(call->call.attrs, mlc_intern(g->ctx, key));
  return v && v->kind == MLC_ATTR_STR ? v->s : dflt;
}

/* the int attribute key of an op call, or dflt */
static int64_t int_attr(G *g, const MlcGExpr *call, const char *key, int64_t dflt) {
  const MlcAttrValue *v = mlc_attrs_get(call->call.attrs, mlc_intern(g->ctx, key));
  return v && v->kind == MLC_ATTR_INT ? v->i : dflt;
}

/* R.tensor_to_shape(data, like?, shape=[...], mode=...): the values read,
 * made a shape, each dim bound (a var seen for the first time) or checked */
static GVal *tensor_to_shape(G *g, const MlcGExpr *call) {
  const MlcSInfo *s = call->sinfo;
  int mode = mlc_dyn_mode(str_attr(g, call, "mode", "values"));
  bool range = mode == MLC_DYN_RANGE, resize = mode == MLC_DYN_RESIZE, takes_like = mode > MLC_DYN_VALUES && !range;
  if (!s || s->kind != MLC_SINFO_SHAPE || !s->shape.values || mode < 0 || call->call.n < 1 ||
      takes_like != (call->call.n > 1))
    return gerr(g, "binding '%s': R.tensor_to_shape whose struct info was not inferred", g->bname), NULL;
  GVal *d = resolve_tensor(g, call->call.args[0], "the values of R.tensor_to_shape");
  GVal *like = takes_like ? resolve_tensor(g, call->call.args[1], "the like argument of R.tensor_to_shape") : NULL;
  int64_t k;
  if (!d || (takes_like && !like)) return NULL;
  if (d->ndim != 1 || !mlc_e_is_const_int(d->shape[0], &k) ||
      (range || resize ? d->dtype.code != MLC_TC_FLOAT || d->dtype.bits != 64 || (range && (k != 3 || s->shape.ndim != 1))
             : d->dtype.code != MLC_TC_INT || (d->dtype.bits != 32 && d->dtype.bits != 64)))
    return gerr(g, "binding '%s': R.tensor_to_shape reads a 1-D int32 or int64 tensor of static length (3 float64 "
                   "values in modes \"range\" and \"resize\")", g->bname), NULL;
  int n = s->shape.ndim;
  if (k > DYN_MAX_VALUES || n > DYN_MAX_VALUES)
    return gerr(g, "binding '%s': R.tensor_to_shape of more than %d values or dims", g->bname, DYN_MAX_VALUES), NULL;
  g->dyn_used = true;
  mlc_sb_printf(&g->body, "  { /* %s = tensor_to_shape(..., mode=\"%s\") */\n", g->bname, mlc_dyn_mode_name(mode));
  emit_host_read(g, d, "mlc_tv");
  if (like) emit_host_read(g, like, "mlc_tl");
  if (range) {
    mlc_sb_printf(&g->body, "    int64_t mlc_o[1];\n    if ((rc = mlc_dyn_range((const double *)%s, mlc_o, \"%s: binding '%s'\", "
                            "env)) != 0) goto mlc_done;\n", d->data, g->fn->name, g->bname);
  } else if (resize) {
    mlc_sb_printf(&g->body, "    int64_t mlc_o[%d];\n    const int64_t mlc_l[] = ", n ? n : 1);
    if (!c_dims(g, like, &g->body)) return NULL;
    mlc_sb_printf(&g->body, ";\n    if ((rc = mlc_dyn_resize((const double *)%s, %lld, mlc_l, %d, mlc_o, \"%s: binding '%s'\", "
                            "env)) != 0) goto mlc_done;\n", d->data, (long long)k, like->ndim, g->fn->name, g->bname);
  } else {
    mlc_sb_printf(&g->body, "    const int%d_t *mlc_p = (const int%d_t *)%s;\n    int64_t mlc_v[%lld], mlc_o[%d];\n",
                  d->dtype.bits, d->dtype.bits, d->data, (long long)(k ? k : 1), n ? n : 1);
    mlc_sb_printf(&g->body, "    for (int i = 0; i < %lld; i++) mlc_v[i] = mlc_p[i];\n", (long long)k);
    mlc_sb_puts(&g->body, "    const int64_t mlc_l[] = ");
    int64_t axis = int_attr(g, call, "axis", 0);
    if (mode == MLC_DYN_SPLIT) { /* only the dim at axis, checked in range by the op */
      if (axis < 0 || axis >= like->ndim) return gerr(g, "binding '%s': split axis out of range", g->bname), NULL;
      mlc_sb_puts(&g->body, "{");
      if (!c_dim(g, like->shape[axis], &g->body)) return NULL;
      mlc_sb_puts(&g->body, "}");
    } else if (like ? !c_dims(g, like, &g->body) : (mlc_sb_puts(&g->body, "{0}"), false)) {
      return NULL;
    }
    mlc_sb_printf(&g->body, ";\n    if ((rc = mlc_dyn_shape(%d, mlc_v, %lld, mlc_l, %d, mlc_o, %d, \"%s: binding '%s'\", env)) != 0)"
                            " goto mlc_done;\n", mode, (long long)k, mode == MLC_DYN_SPLIT ? 1 : like ? like->ndim : 0, n,
                  g->fn->name, g->bname);
  }
  for (int i = 0; i < n; i++) {
    const MlcExpr *e = s->shape.values[i];
    if (e->kind == MLC_EXPR_VAR && sym_index(g, e) < 0 && dsym_index(g, e) < 0) {
      mlc_vec_push(&g->dsyms, e);
      mlc_sb_printf(&g->body, "    fr->mlc_dsym[%zu] = mlc_o[%d]; /* %s */\n", g->dsyms.len - 1, i, e->var.name);
      continue;
    }
    mlc_sb_printf(&g->body, "    if (mlc_o[%d] != ", i);
    if (!c_dim(g, e, &g->body)) return NULL;
    mlc_sb_printf(&g->body, ") {\n      env->set_error(\"%s: binding '%s': value %d read at run time differs from the size "
                            "the graph expects\");\n      rc = -1;\n      goto mlc_done;\n    }\n", g->fn->name, g->bname, i);
  }
  mlc_sb_puts(&g->body, "  }\n");
  GVal *v = gv_new(g, GV_EXPR);
  v->expr = mlc_g_shape(g->ctx, s->shape.values, n);
  return v;
}

/* R.reshape_dynamic(x, shape=[...]): x's bytes copied into a run-time
 * allocation of the new shape, once the element counts are found equal */
static GVal *reshape_dynamic(G *g, const MlcGExpr *call) {
  const MlcSInfo *s = call->sinfo;
  GVal *x = call->call.n == 1 ? resolve_tensor(g, call->call.args[0], "the x of R.reshape_dynamic") : NULL;
  if (!x) return mlc_has_error(g->ctx) ? NULL : (gerr(g, "binding '%s': R.reshape_dynamic takes one tensor", g->bname), NULL);
  if (!s || s->kind != MLC_SINFO_TENSOR || !s->tensor.shape || !mlc_dtype_eq(s->tensor.dtype, x->dtype))
    return gerr(g, "binding '%s': R.reshape_dynamic whose struct info was not inferred", g->bname), NULL;
  GVal *t = gv_new(g, GV_TENSOR);
  t->ndim = s->tensor.ndim;
  t->shape = s->tensor.shape;
  t->dtype = x->dtype;
  t->alloc = g->n_allocs++;
  t->align = C_PARAM_ALIGN;
  t->data = mlc_internf(g->ctx, "fr->mlc_a%d", t->alloc);
  mlc_sb_printf(&g->decls, "  void *mlc_a%d; /* %s */\n", t->alloc, g->bname);
  mlc_sb_printf(&g->body, "  { /* %s = reshape_dynamic(...) */\n", g->bname);
  emit_host_read(g, x, "mlc_tx");
  mlc_sb_puts(&g->body, "    size_t mlc_xb;\n    {\n");
  if (!emit_nbytes(g, x, g->bname)) return NULL;
  mlc_sb_puts(&g->body, "      mlc_xb = mlc_nb;\n    }\n");
  if (!emit_nbytes(g, t, g->bname)) return NULL;
  mlc_sb_printf(&g->body, "    if (mlc_nb != mlc_xb) {\n      env->set_error(\"%s: binding '%s': the reshape changes the "
                          "element count\");\n      rc = -1;\n      goto mlc_done;\n    }\n", g->fn->name, g->bname);
  mlc_sb_printf(&g->body, "    if (!(fr->mlc_a%d = env->workspace_alloc(mlc_nb, %d))) {\n      rc = -1;\n      goto mlc_done;\n    }\n",
                t->alloc, C_PARAM_ALIGN);
  mlc_sb_printf(&g->body, "    if (mlc_nb) memcpy(fr->mlc_a%d, %s, mlc_nb);\n", t->alloc, x->data);
  if (g->gpu != MLC_GPU_NONE) {
    mlc_sb_printf(&g->body, "    int64_t mlc_ty_n = (int64_t)mlc_nb;\n"
                            "    mlc_dltensor mlc_ty = {fr->mlc_a%d, {1, 0}, 1, {1, 8, 1}, &mlc_ty_n, NULL, 0};\n"
                            "    if ((rc = mlc_gpu_host(mlc_g, &mlc_ty, 1)) != 0) goto mlc_done;\n", t->alloc);
  }
  mlc_sb_puts(&g->body, "  }\n");
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
    return gerr(g, "binding '%s': argument %d of '%s' is a rank-%d %s tensor; '%s' takes a rank-%d %s buffer",
                g->bname, i + 1, fname, t->ndim, dtype_name(g, t->dtype), b->name, b->ndim, dtype_name(g, b->dtype));
  }
  if (b->align > 1 && t->align < b->align) {
    if (t->input < 0 || b->align > C_PARAM_ALIGN)
      return gerr(g, "binding '%s': argument %d of '%s' is not %d-byte aligned", g->bname, i + 1, fname, b->align);
    if (g->inputs[t->input].align < b->align) g->inputs[t->input].align = b->align;
  }
  for (int d = 0; d < b->ndim; d++) {
    MlcStrBuf have = {0};
    bool ok = c_dim(g, t->shape[d], &have);
    int64_t kv, gv;
    if (ok && mlc_e_is_const_int(b->shape[d], &kv)) {
      if (mlc_e_is_const_int(t->shape[d], &gv) && gv != kv)
        ok = gerr(g, "binding '%s': dimension %d of argument %d of '%s' is %lld; '%s' takes %lld", g->bname, d, i + 1,
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
  GVal *v = resolve(g, a);
  if (!v) return false;
  if (v->kind != GV_EXPR || v->expr->kind != MLC_G_PRIM)
    return gerr(g, "binding '%s': argument %d of '%s' must be an R.prim_value", g->bname, i + 1, k->func->name);
  const MlcExpr *x = v->expr->prim;
  if (mlc_dtype_is_float(k->func->params[i].var->dtype)) {
    if (x->kind != MLC_EXPR_FLOAT && x->kind != MLC_EXPR_INT)
      return gerr(g, "binding '%s': argument %d of '%s' must be a constant", g->bname, i + 1, k->func->name);
    mlc_sb_printf(args, "&(double){%.17g}", x->kind == MLC_EXPR_FLOAT ? x->float_val : (double)x->int_val);
    return true;
  }
  mlc_sb_puts(args, "&(int64_t){");
  if (!c_dim(g, x, args)) return false;
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
    return gerr(g, "binding '%s': '%s' takes %d arguments, got %d", g->bname, f->name, f->n_params, call->call.n);
  const char **sym_c = mlc_arena_array(&g->ctx->arena, (size_t)(k->n_syms + 1), sizeof *sym_c);
  MlcStrBuf args = {0};
  bool ok = true;
  for (int i = 0; ok && i < f->n_params; i++) {
    if (i) mlc_sb_puts(&args, ", ");
    if (!f->params[i].buf) {
      ok = kernel_scalar_arg(g, k, i, call->call.args[i], &args);
      continue;
    }
    GVal *t = resolve_tensor(g, call->call.args[i], "an argument of a prim func");
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
    GVal *t = ts[i] = resolve_tensor(g, argv[i], "an argument of an extern function");
    if (!t) return false;
    mlc_sb_printf(&g->body, "    int64_t mlc_s%d[] = ", i);
    if (!c_dims(g, t, &g->body)) return false;
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
      return gerr(g, "binding '%s': extern name with a quote or control character", g->bname);
  return true;
}

static GVal *compile_loop(G *g, const MlcGExpr *call);

static GVal *compile_call(G *g, const MlcGExpr *call) {
  const MlcGExpr *callee = call->call.callee;
  const char *op = callee->kind == MLC_G_OP ? callee->str : NULL;
  if (callee->kind == MLC_G_GLOBAL) {
    const CKernel *k = find_kernel(g, callee->str);
    if (!k) {
      const MlcFunc *f = mlc_module_find(g->m, callee->str);
      return gerr(g, "unsupported binding '%s': a call of %s '%s'", g->bname,
                  f && f->kind == MLC_FUNC_GRAPH ? "the graph function" : "the unknown function", callee->str), NULL;
    }
    return call_kernel(g, k, call) ? gv_new(g, GV_NONE) : NULL;
  }
  if (callee->kind == MLC_G_EXTERN)
    return extern_name_ok(g, callee->str) && call_extern(g, callee->str, call->call.args, call->call.n) ? gv_new(g, GV_NONE) : NULL;
  if (op && !strcmp(op, "call_packed") && call->call.n >= 1 &&
      (call->call.args[0]->kind == MLC_G_STR || call->call.args[0]->kind == MLC_G_EXTERN))
    return extern_name_ok(g, call->call.args[0]->str) &&
                   call_extern(g, call->call.args[0]->str, call->call.args + 1, call->call.n - 1)
               ? gv_new(g, GV_NONE) : NULL;
  if (op && !strcmp(op, "memory.alloc_storage")) return alloc_storage(g, call);
  if (op && !strcmp(op, "memory.alloc_tensor")) return alloc_planned(g, call);
  if (op && !strcmp(op, "builtin.alloc_tensor")) return alloc_dynamic(g, call);
  if (op && !strcmp(op, "tensor_to_shape")) return tensor_to_shape(g, call);
  if (op && !strcmp(op, "reshape_dynamic")) return reshape_dynamic(g, call);
  if (op && !strcmp(op, "loop")) return compile_loop(g, call);
  if (op)
    return gerr(g, "unsupported binding '%s': R.%s (the executor runs the graph pipeline's output: allocations, "
                   "prim func and extern calls)", g->bname, op), NULL;
  return gerr(g, "unsupported binding '%s': a call of a function value", g->bname), NULL;
}

static bool compile_binding(G *g, const MlcBinding *b) {
  g->loc = b->loc.line ? b->loc : g->ctx->build_loc;
  g->bname = b->var->var.name;
  const MlcGExpr *v = b->value;
  GVal *r;
  switch (v->kind) {
  case MLC_G_CALL: r = compile_call(g, v); break;
  case MLC_G_IF: case MLC_G_SEQ: case MLC_G_OP: case MLC_G_GLOBAL: case MLC_G_EXTERN:
    return gerr(g, "unsupported binding '%s': %s", g->bname, v->kind == MLC_G_IF ? "an if" : "a function value");
  default:
    r = resolve(g, v);
    name_site(g, b);
    break;
  }
  if (!r) return false;
  mlc_map_put(&g->vals, b->var, r);
  return true;
}

/* ---- loops ------------------------------------------------------------------------------- */

/* R.loop (src/ops/loop.c): the body function's bindings compiled once, into
 * a C loop that runs them per iteration.  The carried values live in
 * run-time allocations of their own, copied from the initial values before
 * the first iteration and from the body's result after each (memmove: the
 * result may be the parameter itself); the scan outputs are run-time
 * allocations that double when full, each iteration's element copied in at
 * its place.  Every copy is sized at run time and checked against the
 * buffer it goes into.  What the body allocated at run time is freed at the
 * end of its iteration; the iteration count binds the loop's size var. */

#define MAX_LOOP_DEPTH 16

/* a run-time allocation for a tensor of t's shape and dtype (t->data set) */
static bool loop_alloc(G *g, GVal *t, const char *what, bool copy_from_init, const char *init_data) {
  t->alloc = g->n_allocs++;
  t->align = C_PARAM_ALIGN;
  t->data = mlc_internf(g->ctx, "fr->mlc_a%d", t->alloc);
  mlc_sb_printf(&g->decls, "  void *mlc_a%d; /* %s: %s */\n", t->alloc, g->bname, what);
  mlc_sb_puts(&g->body, "  {\n");
  if (!emit_nbytes(g, t, what)) return false;
  mlc_sb_printf(&g->body, "    if (!(fr->mlc_a%d = env->workspace_alloc(mlc_nb ? mlc_nb : 1, %d))) {\n      rc = -1;\n"
                          "      goto mlc_done;\n    }\n", t->alloc, C_PARAM_ALIGN);
  if (copy_from_init) mlc_sb_printf(&g->body, "    if (mlc_nb) memcpy(fr->mlc_a%d, %s, mlc_nb);\n", t->alloc, init_data);
  mlc_sb_puts(&g->body, "  }\n");
  return true;
}

static GVal *loop_tensor(G *g, const MlcSInfo *s, MlcDType t) {
  GVal *v = gv_new(g, GV_TENSOR);
  v->ndim = s ? s->tensor.ndim : 0;
  v->shape = s ? s->tensor.shape : NULL;
  v->dtype = t;
  return v;
}

/* the body's param p stands for the value v: its size vars for v's dims */
static bool loop_param(G *g, const MlcGExpr *p, GVal *v, int i) {
  const MlcSInfo *s = p->sinfo;
  if (v->kind != GV_TENSOR || !s || s->kind != MLC_SINFO_TENSOR || !s->tensor.shape || s->tensor.ndim != v->ndim ||
      !mlc_dtype_eq(s->tensor.dtype, v->dtype))
    return gerr(g, "binding '%s': R.loop: parameter %d of the body does not take argument %d's shape and dtype", g->bname,
                i + 1, i + 1);
  for (int d = 0; d < v->ndim; d++) {
    const MlcExpr *e = s->tensor.shape[d];
    int64_t a, b;
    if (e->kind == MLC_EXPR_VAR && e != v->shape[d] && !mlc_map_has(&g->sym_alias, e))
      mlc_map_put(&g->sym_alias, e, (void *)v->shape[d]);
    else if (mlc_e_is_const_int(e, &a) && mlc_e_is_const_int(v->shape[d], &b) && a != b)
      return gerr(g, "binding '%s': R.loop: parameter %d of the body has dim %d of %lld, the argument %lld", g->bname,
                  i + 1, d, (long long)a, (long long)b);
  }
  mlc_map_put(&g->vals, p, v);
  return true;
}

/* the body result's field r (a tensor) copied into buffer `to` (whose
 * bytes are mlc_lb<L>_<j>), after checking it has as many bytes */
static bool loop_copy(G *g, GVal *r, int L, int j, const char *dest, const char *what) {
  if (r->kind != GV_TENSOR) return gerr(g, "binding '%s': R.loop: the body's %s is not a tensor", g->bname, what);
  mlc_sb_puts(&g->body, "  {\n");
  if (!emit_nbytes(g, r, what)) return false;
  mlc_sb_printf(&g->body, "    if (mlc_nb != mlc_lb%d_%d) {\n      env->set_error(\"%s: binding '%s': the loop body's %s "
                          "changes its size\");\n      rc = -1;\n      goto mlc_done;\n    }\n", L, j, g->fn->name, g->bname, what);
  mlc_sb_printf(&g->body, "    if (mlc_nb) memmove(%s, %s, mlc_nb);\n  }\n", dest, r->data);
  return true;
}

/* the bytes of t into size_t mlc_lb<L>_<j>, declared in the loop's block */
static bool loop_bytes(G *g, const GVal *t, int L, int j, const char *what) {
  mlc_sb_printf(&g->body, "  size_t mlc_lb%d_%d;\n  {\n", L, j);
  if (!emit_nbytes(g, t, what)) return false;
  mlc_sb_printf(&g->body, "    mlc_lb%d_%d = mlc_nb;\n  }\n", L, j);
  return true;
}

static GVal *compile_loop(G *g, const MlcGExpr *call) {
  const MlcSInfo *s = call->sinfo;
  const MlcAttrValue *cv = mlc_attrs_get(call->call.attrs, mlc_intern(g->ctx, "count"));
  const MlcExpr *count = cv && cv->kind == MLC_ATTR_LIST && cv->list.n == 1 && cv->list.items[0].kind == MLC_ATTR_EXPR
                             ? cv->list.items[0].expr : NULL;
  if (call->call.n != 5 || call->call.args[0]->kind != MLC_G_GLOBAL || !s || s->kind != MLC_SINFO_TUPLE || !count ||
      count->kind != MLC_EXPR_VAR)
    return gerr(g, "binding '%s': R.loop whose struct info was not inferred", g->bname), NULL;
  if (g->gpu != MLC_GPU_NONE) return gerr(g, "binding '%s': R.loop is not supported on GPU targets", g->bname), NULL;
  if (g->loop_depth >= MAX_LOOP_DEPTH) /* also what stops a body that loops over itself */
    return gerr(g, "binding '%s': R.loop nested more than %d deep is not supported", g->bname, MAX_LOOP_DEPTH), NULL;
  const MlcFunc *bf = mlc_module_find(g->m, call->call.args[0]->str);
  GVal *trips = resolve_tensor(g, call->call.args[1], "the trip count of R.loop");
  GVal *cond = trips ? resolve_tensor(g, call->call.args[2], "the condition of R.loop") : NULL;
  GVal *init = cond ? resolve(g, call->call.args[3]) : NULL, *outer = init ? resolve(g, call->call.args[4]) : NULL;
  if (!outer) return NULL;
  if (!bf || bf->kind != MLC_FUNC_GRAPH || bf->graph->body->kind != MLC_G_SEQ)
    return gerr(g, "binding '%s': R.loop: '%s' is not a graph function of the module", g->bname, call->call.args[0]->str), NULL;
  const MlcGFunc *body = bf->graph;
  int nc = init->kind == GV_TUPLE ? init->n : -1, no = outer->kind == GV_TUPLE ? outer->n : -1, k = s->tuple.n - nc;
  if (nc < 0 || no < 0 || k < 0 || body->n_params != 2 + nc + no)
    return gerr(g, "binding '%s': R.loop: the body '%s' takes %d parameters, not 2 + the carried and outer values",
                g->bname, body->name, body->n_params), NULL;
  int L = g->n_loops++;
  const char *bname = g->bname;
  mlc_sb_printf(&g->body, "  /* %s = loop(%s) */\n", bname, body->name);
  /* the buffers: iteration number, condition, carried values, scan outputs */
  GVal *iter = loop_tensor(g, NULL, MLC_I64), *cnd = loop_tensor(g, NULL, MLC_BOOL);
  GVal *res = gv_new(g, GV_TUPLE);
  res->n = s->tuple.n;
  res->fields = mlc_arena_array(&g->ctx->arena, (size_t)(res->n ? res->n : 1), sizeof *res->fields);
  if (!loop_alloc(g, iter, "the iteration number", false, NULL) || !loop_alloc(g, cnd, "the condition", false, NULL))
    return NULL;
  for (int i = 0; i < nc; i++) {
    GVal *v = init->fields[i];
    if (v->kind != GV_TENSOR) return gerr(g, "binding '%s': R.loop: initial value %d is not a tensor", bname, i), NULL;
    res->fields[i] = loop_tensor(g, s->tuple.fields[i], v->dtype);
    if (!loop_alloc(g, res->fields[i], "a carried value", true, v->data) ||
        !loop_bytes(g, res->fields[i], L, i, "a carried value"))
      return NULL;
  }
  for (int j = 0; j < k; j++) { /* an element's bytes; room for one element to begin with */
    const MlcSInfo *f = s->tuple.fields[nc + j];
    if (f->kind != MLC_SINFO_TENSOR || !f->tensor.shape || f->tensor.ndim < 1)
      return gerr(g, "binding '%s': R.loop: scan output %d is not a tensor of known shape", bname, j), NULL;
    GVal *elem = gv_new(g, GV_TENSOR);
    elem->ndim = f->tensor.ndim - 1, elem->shape = f->tensor.shape + 1, elem->dtype = f->tensor.dtype;
    if (!loop_bytes(g, elem, L, nc + j, "a scan output's element") ||
        !loop_alloc(g, elem, "a scan output", false, NULL))
      return NULL;
    res->fields[nc + j] = loop_tensor(g, f, f->tensor.dtype);
    res->fields[nc + j]->alloc = elem->alloc, res->fields[nc + j]->data = elem->data;
    res->fields[nc + j]->align = C_PARAM_ALIGN;
  }
  /* the body's params */
  if (!loop_param(g, body->params[0], iter, 0) || !loop_param(g, body->params[1], cnd, 1)) return NULL;
  for (int i = 0; i < nc; i++)
    if (!loop_param(g, body->params[2 + i], res->fields[i], 2 + i)) return NULL;
  for (int i = 0; i < no; i++)
    if (!loop_param(g, body->params[2 + nc + i], outer->fields[i], 2 + nc + i)) return NULL;
  mlc_sb_printf(&g->body, "  int64_t mlc_cap%d = 1, mlc_it%d = 0, mlc_trips%d = *(const int64_t *)%s;\n"
                          "  int mlc_go%d = *(const uint8_t *)%s != 0;\n", L, L, L, trips->data, L, cond->data);
  mlc_sb_printf(&g->body, "  for (; mlc_it%d < mlc_trips%d && mlc_go%d; mlc_it%d++) {\n"
                          "  *(int64_t *)%s = mlc_it%d;\n  *(uint8_t *)%s = 1;\n", L, L, L, L, iter->data, L, cnd->data);
  const MlcGFunc *caller = g->fn;
  g->fn = body;
  g->loop_depth++;
  int a0 = g->n_allocs;
  bool ok = true;
  for (int b = 0; ok && b < body->body->seq.n; b++)
    for (int i = 0; ok && i < body->body->seq.blocks[b]->n; i++) ok = compile_binding(g, &body->body->seq.blocks[b]->bindings[i]);
  g->bname = bname;
  GVal *r = ok ? resolve(g, body->body->seq.result) : NULL;
  if (r && (r->kind != GV_TUPLE || r->n != 1 + nc + k))
    ok = gerr(g, "binding '%s': R.loop: the body '%s' must return a tuple of the condition, %d carried values and %d "
                 "scan elements", bname, body->name, nc, k);
  ok = ok && r;
  if (ok && (r->fields[0]->kind != GV_TENSOR || !mlc_dtype_eq(r->fields[0]->dtype, MLC_BOOL)))
    ok = gerr(g, "binding '%s': R.loop: the body's condition is not a bool tensor", bname);
  if (ok) mlc_sb_printf(&g->body, "  mlc_go%d = *(const uint8_t *)%s != 0;\n", L, r->fields[0]->data);
  if (ok && k) { /* room for this iteration's elements: double when full */
    mlc_sb_printf(&g->body, "  if (mlc_it%d == mlc_cap%d) {\n    if (mlc_cap%d > (INT64_C(1) << 30)) {\n"
                            "      env->set_error(\"%s: binding '%s': a loop with scan outputs ran more than 2^31 iterations\");\n"
                            "      rc = -1;\n      goto mlc_done;\n    }\n", L, L, L, caller->name, bname);
    for (int j = 0; j < k; j++) {
      int a = res->fields[nc + j]->alloc, bj = nc + j;
      mlc_sb_printf(&g->body, "    {\n    void *mlc_n = NULL;\n"
                              "    if (mlc_lb%d_%d > SIZE_MAX / 2 / (size_t)mlc_cap%d ||\n"
                              "        !(mlc_n = env->workspace_alloc(2 * (size_t)mlc_cap%d * mlc_lb%d_%d + 1, %d))) {\n"
                              "      env->set_error(\"%s: binding '%s': a scan output of the loop grows out of memory\");\n"
                              "      rc = -1;\n      goto mlc_done;\n    }\n"
                              "    if (mlc_lb%d_%d) memcpy(mlc_n, fr->mlc_a%d, (size_t)mlc_cap%d * mlc_lb%d_%d);\n"
                              "    env->workspace_free(fr->mlc_a%d);\n    fr->mlc_a%d = mlc_n;\n    }\n",
                    L, bj, L, L, L, bj, C_PARAM_ALIGN, caller->name, bname, L, bj, a, L, L, bj, a, a);
    }
    mlc_sb_printf(&g->body, "    mlc_cap%d *= 2;\n  }\n", L);
  }
  for (int j = 0; ok && j < k; j++) {
    const char *dest = mlc_internf(g->ctx, "(uint8_t *)fr->mlc_a%d + (size_t)mlc_it%d * mlc_lb%d_%d", res->fields[nc + j]->alloc,
                                   L, L, nc + j);
    ok = loop_copy(g, r->fields[1 + nc + j], L, nc + j, dest, "scan element");
  }
  /* the carried values last (the elements may be the old ones); one that is
   * another carried value's buffer (the body swaps them) is staged first */
  const char **src = mlc_arena_array(&g->ctx->arena, (size_t)(nc ? nc : 1), sizeof *src);
  for (int i = 0; ok && i < nc; i++) {
    GVal *f = r->fields[1 + i];
    src[i] = f->kind == GV_TENSOR ? f->data : NULL;
    for (int j = 0; src[i] && j < nc; j++)
      if (j != i && !strcmp(src[i], res->fields[j]->data)) {
        mlc_sb_printf(&g->body, "  void *mlc_sw%d_%d = env->workspace_alloc(mlc_lb%d_%d ? mlc_lb%d_%d : 1, %d);\n"
                                "  if (!mlc_sw%d_%d) {\n    rc = -1;\n    goto mlc_done;\n  }\n"
                                "  memcpy(mlc_sw%d_%d, %s, mlc_lb%d_%d);\n",
                      L, i, L, j, L, j, C_PARAM_ALIGN, L, i, L, i, src[i], L, j);
        src[i] = mlc_internf(g->ctx, "mlc_sw%d_%d", L, i);
        break;
      }
  }
  for (int i = 0; ok && i < nc; i++) {
    GVal staged = *r->fields[1 + i];
    staged.data = src[i];
    ok = loop_copy(g, &staged, L, i, res->fields[i]->data, "carried value");
  }
  for (int i = 0; ok && i < nc; i++)
    if (src[i] && !strncmp(src[i], "mlc_sw", 6)) mlc_sb_printf(&g->body, "  env->workspace_free(%s);\n", src[i]);
  for (int a = a0; ok && a < g->n_allocs; a++)
    mlc_sb_printf(&g->body, "  if (fr->mlc_a%d) {\n    env->workspace_free(fr->mlc_a%d);\n    fr->mlc_a%d = NULL;\n  }\n", a, a, a);
  g->fn = caller;
  g->loop_depth--;
  if (!ok) return NULL;
  mlc_sb_puts(&g->body, "  }\n");
  if (sym_index(g, count) >= 0 || dsym_index(g, count) >= 0)
    return gerr(g, "binding '%s': R.loop: the count '%s' is already a size", bname, count->var.name), NULL;
  mlc_vec_push(&g->dsyms, count);
  mlc_sb_printf(&g->body, "  fr->mlc_dsym[%zu] = mlc_it%d; /* %s */\n", g->dsyms.len - 1, L, count->var.name);
  return res;
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
      return gerr(g, "input '%s' of '%s' must be a tensor of known shape and dtype", p->var.name, fn->name);
    CIo *io = &g->inputs[i];
    io->name = p->var.name;
    io->dtype = s->tensor.dtype;
    io->ndim = s->tensor.ndim;
    io->dims = mlc_arena_array(&g->ctx->arena, (size_t)(io->ndim ? io->ndim : 1), sizeof *io->dims);
    for (int d = 0; d < io->ndim; d++) {
      const MlcExpr *x = s->tensor.shape[d];
      if (x->kind == MLC_EXPR_VAR) {
        if (sym_index(g, x) < 0) mlc_vec_push(&g->syms, x);
        io->dims[d] = -(int64_t)sym_index(g, x) - 1;
      } else if (!mlc_e_is_const_int(x, &io->dims[d]) || io->dims[d] < 0) {
        return gerr(g, "input '%s' of '%s': dimension %d must be a constant or a plain symbolic size", p->var.name,
                    fn->name, d);
      }
    }
    GVal *t = gv_new(g, GV_TENSOR);
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
  if (v->kind != GV_TENSOR) return gerr(g, "the result of '%s' must be a tensor or a tuple of tensors", g->fn->name);
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
    if (!emit_nbytes(g, t, g->inputs[t->input].name)) return NULL;
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
      int k = t->shape[d]->kind == MLC_EXPR_VAR ? sym_index(g, t->shape[d]) : -1;
      if (k >= 0) io->dims[d] = -(int64_t)k - 1;
      else if (t->shape[d]->kind == MLC_EXPR_VAR && dsym_index(g, t->shape[d]) >= 0)
        io->dims[d] = MLCRT_DIM_COMPUTED; /* read from a tensor during the run */
      else if (!mlc_e_is_const_int(t->shape[d], &io->dims[d]) && t->shape[d]->kind == MLC_EXPR_VAR)
        ok = gerr(g, "output %zu of '%s': dimension %d is neither a constant nor an input's size", i, g->fn->name, d);
      else if (t->shape[d]->kind != MLC_EXPR_INT)
        io->dims[d] = MLCRT_DIM_COMPUTED; /* arithmetic on the sizes: the code below computes it */
    }
    const char *data = ok ? output_data(g, t) : NULL;
    ok = ok && data;
    if (!ok) break;
    mlc_sb_printf(&g->fields, "  int64_t mlc_out_shape%zu[%d];\n", i, t->ndim ? t->ndim : 1);
    for (int d = 0; ok && d < t->ndim; d++) {
      mlc_sb_printf(&g->body, "  st->mlc_out_shape%zu[%d] = ", i, d);
      ok = c_dim(g, t->shape[d], &g->body);
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
    mlc_sb_puts(o, DYN_PREAMBLE);
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
        ok = compile_binding(&g, &body->seq.blocks[b]->bindings[i]);
        size_t done = g.cuts.len ? g.cuts.data[g.cuts.len - 1] : 0;
        if (g.sites.len >= PIECE_SITES * (g.cuts.len + 1) && g.body.len > done) mlc_vec_push(&g.cuts, g.body.len);
      }
    body = body->seq.result;
  }
  g.bname = "";
  g.loc = ctx->build_loc;
  if (ok) ok = (result = resolve(&g, body)) != NULL;
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
