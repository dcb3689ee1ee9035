/* test_models_golden.c - the golden cases of whole graph modules: each file
 * tests/golden/models/NAME.py is a module whose graph function `main` is
 * compiled (the graph pipeline, mlc_build_model, the runtime's loader) and
 * run on random float32 inputs of its parameters' shapes, and compared with
 * the reference: the same module, only legalized (ops to prim funcs), run
 * binding by binding here, each prim func by the reference interpreter, a
 * call of another graph function by running that function, an R.loop by
 * running its body per iteration, an extern by the runtime's registry.  So the passes after legalization (inlining calls,
 * fusion, default schedules, memory planning with run-time allocations) and
 * the generated C are checked against an oracle that shares none of them.
 *
 * A file's first lines may say
 *   # sizes: n=3 m=5     what its symbolic sizes are bound to (default 4)
 * Each file is one test, printed as `ok models/NAME` or `FAIL models/NAME: why`.
 * The externs the cases call are registered here:
 *   test.double (x, out)   out = 2 x, float32 of any shape.
 * Arguments name cases to run only those. */
#include <dirent.h>
#include <math.h>

#include "build_util.h"
#include "mlcc/interp.h"
#include "mlcc/transform.h"

#define GOLDEN_DIR "tests/golden/models"
#define MAX_VALS 64
#define MAX_SIZES 8
#define RTOL 1e-4

static MlcCtx *ctx;
static char tmpdir[2048];
static int n_failed;
static char why[1024];

static bool fail(const char *fmt, const char *a, const char *b) {
  snprintf(why, sizeof why, fmt, a ? a : "", b ? b : "");
  return false;
}

/* ---- the registered externs ------------------------------------------------------------- */

static int32_t test_double(DLTensor *const *args, int32_t n, const MlcrtEnv *env) {
  if (n != 2 || args[0]->dtype.code != kDLFloat || args[0]->dtype.bits != 32 || args[0]->ndim != args[1]->ndim) {
    env->set_error("test.double takes (x, out) of float32");
    return -1;
  }
  int64_t k = 1;
  for (int d = 0; d < args[0]->ndim; d++) {
    if (args[0]->shape[d] != args[1]->shape[d]) {
      env->set_error("test.double: x and out differ in shape");
      return -1;
    }
    k *= args[0]->shape[d];
  }
  for (int64_t i = 0; i < k; i++) ((float *)args[1]->data)[i] = 2 * ((const float *)args[0]->data)[i];
  return 0;
}

/* ---- values of the reference run ------------------------------------------------------- */

typedef struct Val {
  bool tuple;
  MlcrtTensor *t;      /* a tensor (owned by the run's list) */
  struct Val **fields; /* a tuple */
  int n;
} Val;

typedef struct Run {
  MlcMap syms;                   /* size var -> (int64 value + 1) */
  MlcMap vals;                   /* graph var -> Val */
  MlcrtTensor *owned[4 * MAX_VALS]; /* the tensors made */
  int n_owned;
  Val **lists[4 * MAX_VALS];         /* the tuples' field arrays */
  int n_lists;
  Val pool[4 * MAX_VALS];
  int n_pool;
} Run;

static Val *new_val(Run *r) { return r->n_pool < 4 * MAX_VALS ? memset(&r->pool[r->n_pool++], 0, sizeof(Val)) : NULL; }

/* v made a tuple of n fields (NULL when out of room) */
static Val *tuple_val(Run *r, Val *v, int n) {
  if (!v || r->n_lists == 4 * MAX_VALS) return fail("too many values%s%s", NULL, NULL), NULL;
  v->tuple = true;
  v->n = n;
  v->fields = calloc((size_t)(n ? n : 1), sizeof *v->fields);
  r->lists[r->n_lists++] = v->fields;
  return v->fields ? v : NULL;
}

static bool size_of(Run *r, const MlcExpr *e, int64_t *out) {
  int64_t a, b;
  switch (e->kind) {
  case MLC_EXPR_INT: *out = e->int_val; return true;
  case MLC_EXPR_VAR: {
    intptr_t v = (intptr_t)mlc_map_get(&r->syms, e);
    if (!v) return fail("the size '%s' is not bound", e->var.name, NULL);
    *out = (int64_t)v - 1;
    return true;
  }
  case MLC_EXPR_CAST: return size_of(r, e->operand, out);
  case MLC_EXPR_BINARY:
    if (!size_of(r, e->bin.a, &a) || !size_of(r, e->bin.b, &b)) return false;
    switch (e->bin.op) {
    case MLC_BIN_ADD: *out = a + b; return true;
    case MLC_BIN_SUB: *out = a - b; return true;
    case MLC_BIN_MUL: *out = a * b; return true;
    case MLC_BIN_FLOORDIV: if (b <= 0) break; *out = a >= 0 ? a / b : -((-a + b - 1) / b); return true;
    case MLC_BIN_FLOORMOD: if (b <= 0) break; *out = ((a % b) + b) % b; return true;
    case MLC_BIN_MIN: *out = a < b ? a : b; return true;
    case MLC_BIN_MAX: *out = a > b ? a : b; return true;
    default: break;
    }
    return fail("a size expression the reference does not evaluate", NULL, NULL);
  default: return fail("a size expression the reference does not evaluate", NULL, NULL);
  }
}

static void bind_size(Run *r, const MlcExpr *var, int64_t v) {
  if (!mlc_map_has(&r->syms, var)) mlc_map_put(&r->syms, var, (void *)(intptr_t)(v + 1));
}

/* a zeroed tensor of a tensor sinfo, its sizes evaluated */
static Val *alloc_sinfo(Run *r, const MlcSInfo *s) {
  Val *v = new_val(r);
  if (!v) return fail("too many values%s%s", NULL, NULL), NULL;
  if (s->kind == MLC_SINFO_TUPLE) {
    if (!tuple_val(r, v, s->tuple.n)) return NULL;
    for (int i = 0; i < s->tuple.n; i++)
      if (!(v->fields[i] = alloc_sinfo(r, s->tuple.fields[i]))) return NULL;
    return v;
  }
  static const uint8_t dl_code[] = {[MLC_TC_INT] = kDLInt, [MLC_TC_UINT] = kDLUInt, [MLC_TC_FLOAT] = kDLFloat,
                                     [MLC_TC_BOOL] = kDLBool};
  MlcDType t = s->kind == MLC_SINFO_TENSOR ? s->tensor.dtype : MLC_F32;
  bool numeric = t.code == MLC_TC_INT || t.code == MLC_TC_UINT || t.code == MLC_TC_FLOAT || t.code == MLC_TC_BOOL;
  if (s->kind != MLC_SINFO_TENSOR || !s->tensor.shape || !numeric || t.lanes != 1)
    return fail("an output the reference cannot allocate (not a tensor of known shape and dtype)", NULL, NULL), NULL;
  int64_t shape[8];
  if (s->tensor.ndim > 8) return fail("rank over 8", NULL, NULL), NULL;
  for (int d = 0; d < s->tensor.ndim; d++)
    if (!size_of(r, s->tensor.shape[d], &shape[d])) return NULL;
  DLDataType dt = mlcrt_dtype(dl_code[t.code], (uint8_t)(t.code == MLC_TC_BOOL ? 8 : t.bits));
  if (r->n_owned == 4 * MAX_VALS || mlcrt_tensor_create(s->tensor.ndim, shape, dt, &v->t) != 0)
    return fail("cannot allocate a tensor", NULL, NULL), NULL;
  r->owned[r->n_owned++] = v->t;
  memset(v->t->dl.data, 0, (size_t)mlcrt_tensor_nbytes(&v->t->dl));
  return v;
}

static Val *eval(Run *r, const MlcModule *m, const MlcGExpr *e);
static Val *eval_func(Run *r, const MlcModule *m, const MlcGFunc *f, Val **args, int n);

static bool flat_tensors(Val *v, DLTensor **out, int *n, int cap) {
  if (!v->tuple) {
    if (*n == cap) return false;
    out[(*n)++] = &v->t->dl;
    return true;
  }
  for (int i = 0; i < v->n; i++)
    if (!flat_tensors(v->fields[i], out, n, cap)) return false;
  return true;
}

/* a prim func on the tensors, by the interpreter */
static bool interp(const MlcPrimFunc *f, DLTensor **ts, int n) {
  if (n != f->n_params) return fail("'%s' takes another number of arguments", f->name, NULL);
  MlcInterpArg args[32];
  for (int i = 0; i < n && i < 32; i++)
    args[i] = (MlcInterpArg){.is_buffer = true, .data = ts[i]->data, .ndim = ts[i]->ndim, .shape = ts[i]->shape};
  mlc_clear_error(ctx);
  if (mlc_interp_run(ctx, f, args, n)) return true;
  MlcStrBuf sb = {0};
  mlc_format_error(ctx, &sb);
  fail("interpreter: %s", mlc_sb_cstr(&sb), NULL);
  mlc_vec_free(&sb);
  return false;
}

static bool call_extern(const char *name, DLTensor **ts, int n) {
  MlcrtExtern ext;
  if (mlcrt_extern_get(name, &ext) != 0) return fail("%s", mlcrt_last_error(), NULL);
  if (ext.fn(ts, n, mlcrt_env()) != 0) return fail("extern %s failed", name, NULL);
  return true;
}

/* a DPS call: its inputs, then outputs allocated from out */
static Val *dps(Run *r, const MlcModule *m, MlcGExpr *const *in, int n_in, const MlcSInfo *out, const MlcGExpr *callee) {
  DLTensor *ts[32];
  int n = 0;
  for (int i = 0; i < n_in; i++) {
    Val *a = eval(r, m, in[i]);
    if (!a || !flat_tensors(a, ts, &n, 32)) return NULL;
  }
  Val *res = alloc_sinfo(r, out);
  if (!res || !flat_tensors(res, ts, &n, 32)) return NULL;
  if (callee->kind == MLC_G_GLOBAL) {
    const MlcFunc *f = mlc_module_find(m, callee->str);
    if (!f || f->kind != MLC_FUNC_PRIM) return fail("no prim func '%s'", callee->str, NULL), NULL;
    return interp(f->prim, ts, n) ? res : NULL;
  }
  return call_extern(callee->str, ts, n) ? res : NULL;
}

/* a constant: a tensor of its data */
static Val *const_val(Run *r, const MlcTensorData *d) {
  MlcExpr *dims[8];
  if (d->ndim > 8) return fail("rank over 8%s%s", NULL, NULL), NULL;
  for (int i = 0; i < d->ndim; i++) dims[i] = mlc_e_int(ctx, MLC_I64, d->shape[i]);
  Val *v = alloc_sinfo(r, mlc_sinfo_tensor(ctx, dims, d->ndim, d->dtype));
  if (v) memcpy(v->t->dl.data, d->data, d->nbytes);
  return v;
}

/* R.loop(body, trips, cond, init, outer, count=[n], ...), as src/ops/loop.c
 * defines it: the body run per iteration, the scan elements stacked */
static Val *eval_loop(Run *r, const MlcModule *m, const MlcGExpr *e) {
  const MlcFunc *f = e->call.n == 5 ? mlc_module_find(m, e->call.args[0]->str) : NULL;
  Val *trips = f ? eval(r, m, e->call.args[1]) : NULL, *cond = trips ? eval(r, m, e->call.args[2]) : NULL;
  Val *init = cond ? eval(r, m, e->call.args[3]) : NULL, *outer = init ? eval(r, m, e->call.args[4]) : NULL;
  const MlcSInfo *s = e->sinfo;
  if (!outer || f->kind != MLC_FUNC_GRAPH || !init->tuple || !outer->tuple || s->kind != MLC_SINFO_TUPLE)
    return fail("an R.loop the reference does not run%s%s", NULL, NULL), NULL;
  int nc = init->n, no = outer->n, k = s->tuple.n - nc;
  if (2 + nc + no > 16 || k < 0 || k > 16) return fail("an R.loop of too many values%s%s", NULL, NULL), NULL;
  Val *args[16], *elems[16][16];
  for (int i = 0; i < nc; i++) args[2 + i] = init->fields[i];
  for (int i = 0; i < no; i++) args[2 + nc + i] = outer->fields[i];
  int64_t it = 0, limit = *(const int64_t *)trips->t->dl.data;
  MlcExpr *none[1];
  bool go = *(const uint8_t *)cond->t->dl.data != 0;
  for (; it < limit && go; it++) {
    if (it == 16) return fail("an R.loop of more than 16 iterations%s%s", NULL, NULL), NULL;
    if (!(args[0] = alloc_sinfo(r, mlc_sinfo_tensor(ctx, none, 0, MLC_I64))) ||
        !(args[1] = alloc_sinfo(r, mlc_sinfo_tensor(ctx, none, 0, MLC_BOOL))))
      return NULL;
    *(int64_t *)args[0]->t->dl.data = it;
    *(uint8_t *)args[1]->t->dl.data = 1;
    Val *res = eval_func(r, m, f->graph, args, 2 + nc + no);
    if (!res) return NULL;
    if (!res->tuple || res->n != 1 + nc + k) return fail("R.loop: the body's result is no tuple of %s%s", "1 + carried + scans", NULL), NULL;
    go = *(const uint8_t *)res->fields[0]->t->dl.data != 0;
    for (int i = 0; i < nc; i++) args[2 + i] = res->fields[1 + i];
    for (int j = 0; j < k; j++) elems[j][it] = res->fields[1 + nc + j];
  }
  const MlcAttrValue *cv = mlc_attrs_get(e->call.attrs, mlc_intern(ctx, "count"));
  bind_size(r, cv->list.items[0].expr, it);
  Val *v = tuple_val(r, new_val(r), nc + k);
  if (!v) return NULL;
  for (int i = 0; i < nc; i++) v->fields[i] = args[2 + i];
  for (int j = 0; j < k; j++) {
    if (!(v->fields[nc + j] = alloc_sinfo(r, s->tuple.fields[nc + j]))) return NULL;
    size_t nb = it ? (size_t)mlcrt_tensor_nbytes(&elems[j][0]->t->dl) : 0;
    for (int64_t t = 0; t < it; t++) memcpy((char *)v->fields[nc + j]->t->dl.data + (size_t)t * nb, elems[j][t]->t->dl.data, nb);
  }
  return v;
}

static Val *eval_call(Run *r, const MlcModule *m, const MlcGExpr *e) {
  const MlcGExpr *c = e->call.callee;
  if (c->kind == MLC_G_OP && !strcmp(c->str, "loop")) return eval_loop(r, m, e);
  if (c->kind == MLC_G_OP && (!strcmp(c->str, "call_tir") || !strcmp(c->str, "call_dps_packed")) && e->call.n == 2 &&
      e->call.args[1]->kind == MLC_G_TUPLE)
    return dps(r, m, e->call.args[1]->tuple.fields, e->call.args[1]->tuple.n, e->call.sinfo_args[0], e->call.args[0]);
  if (c->kind == MLC_G_EXTERN && e->call.n_sinfo_args == 1) /* R.call_packed returning a tensor */
    return dps(r, m, e->call.args, e->call.n, e->call.sinfo_args[0], c);
  if (c->kind == MLC_G_GLOBAL) {
    const MlcFunc *f = mlc_module_find(m, c->str);
    if (!f || f->kind != MLC_FUNC_GRAPH) return fail("no graph function '%s'", c->str, NULL), NULL;
    Val *args[16];
    if (e->call.n > 16) return fail("too many arguments", NULL, NULL), NULL;
    for (int i = 0; i < e->call.n; i++)
      if (!(args[i] = eval(r, m, e->call.args[i]))) return NULL;
    return eval_func(r, m, f->graph, args, e->call.n);
  }
  return fail("a call the reference does not run (%s)", c->kind == MLC_G_OP ? c->str : "?", NULL), NULL;
}

static Val *eval(Run *r, const MlcModule *m, const MlcGExpr *e) {
  switch (e->kind) {
  case MLC_G_VAR:
  case MLC_G_DFVAR: {
    Val *v = mlc_map_get(&r->vals, e);
    return v ? v : (fail("'%s' has no value", e->var.name, NULL), NULL);
  }
  case MLC_G_TUPLE: {
    Val *v = tuple_val(r, new_val(r), e->tuple.n);
    if (!v) return NULL;
    for (int i = 0; i < e->tuple.n; i++)
      if (!(v->fields[i] = eval(r, m, e->tuple.fields[i]))) return NULL;
    return v;
  }
  case MLC_G_GET_ITEM: {
    Val *t = eval(r, m, e->get_item.tuple);
    return t && t->tuple && e->get_item.index < t->n ? t->fields[e->get_item.index] : NULL;
  }
  case MLC_G_CALL: return eval_call(r, m, e);
  case MLC_G_CONST: return const_val(r, e->constant);
  default: return fail("an expression the reference does not run", NULL, NULL), NULL;
  }
}

static Val *eval_func(Run *r, const MlcModule *m, const MlcGFunc *f, Val **args, int n) {
  if (n != f->n_params) return fail("'%s': wrong number of arguments", f->name, NULL), NULL;
  for (int i = 0; i < n; i++) {
    const MlcSInfo *s = f->params[i]->sinfo;
    for (int d = 0; s->kind == MLC_SINFO_TENSOR && s->tensor.shape && !args[i]->tuple && d < s->tensor.ndim; d++)
      if (s->tensor.shape[d]->kind == MLC_EXPR_VAR) bind_size(r, s->tensor.shape[d], args[i]->t->dl.shape[d]);
    mlc_map_put(&r->vals, f->params[i], args[i]);
  }
  const MlcGExpr *body = f->body;
  for (int b = 0; b < body->seq.n; b++)
    for (int j = 0; j < body->seq.blocks[b]->n; j++) {
      const MlcBinding *bd = &body->seq.blocks[b]->bindings[j];
      Val *v = eval(r, m, bd->value);
      if (!v) return NULL;
      mlc_map_put(&r->vals, bd->var, v);
    }
  return eval(r, m, body->seq.result);
}

/* ---- one case ------------------------------------------------------------------------------ */

/* "# sizes: n=3 m=5" in the file's first lines */
static void read_sizes(const char *path, char names[MAX_SIZES][32], int64_t *vals, int *n) {
  *n = 0;
  FILE *f = fopen(path, "r");
  char line[512];
  for (int k = 0; f && k < 8 && fgets(line, sizeof line, f); k++) {
    if (strncmp(line, "# sizes:", 8) != 0) continue;
    char *p = line + 8, name[32];
    long long v;
    int used;
    while (*n < MAX_SIZES && sscanf(p, " %31[A-Za-z_0-9]=%lld%n", name, &v, &used) == 2) {
      snprintf(names[*n], 32, "%s", name);
      vals[(*n)++] = v;
      p += used;
    }
  }
  if (f) fclose(f);
}

static uint64_t rng = 0x2545f4914f6cdd1dull;
static float frand(void) {
  rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
  return (float)((double)(rng >> 11) / 9007199254740992.0 * 2.0 - 1.0);
}

static bool compare(DLTensor *got, DLTensor *want, int i) {
  char n[16];
  snprintf(n, sizeof n, "%d", i);
  if (got->ndim != want->ndim) return fail("output %s: the compiled model's rank differs%s", n, NULL);
  int64_t k = 1;
  for (int d = 0; d < got->ndim; d++) {
    if (got->shape[d] != want->shape[d]) return fail("output %s: the compiled model's shape differs%s", n, NULL);
    k *= got->shape[d];
  }
  for (int64_t j = 0; j < k; j++) {
    double a = ((const float *)got->data)[j], b = ((const float *)want->data)[j];
    if (!(fabs(a - b) <= RTOL * (1 + fabs(b)))) {
      char msg[128];
      snprintf(msg, sizeof msg, "element %lld: %.7g, the reference %.7g", (long long)j, a, b);
      return fail("output %s: %s", n, msg);
    }
  }
  return true;
}

static bool run_case(const char *path, const char *name) {
  char snames[MAX_SIZES][32];
  int64_t svals[MAX_SIZES];
  int n_sizes;
  read_sizes(path, snames, svals, &n_sizes);
  const MlcModule *m = bu_read_path(ctx, path);
  if (!m) return fail("does not read%s%s", NULL, NULL);
  const MlcFunc *mf = mlc_module_find(m, mlc_intern(ctx, "main"));
  if (!mf || mf->kind != MLC_FUNC_GRAPH) return fail("no graph function main%s%s", NULL, NULL);
  const MlcGFunc *f = mf->graph;
  /* random inputs of the declared shapes */
  Run ref = {0};
  Val *args[16];
  DLTensor *in[16];
  bool ok = f->n_params <= 16;
  for (int i = 0; ok && i < f->n_params; i++) {
    const MlcSInfo *s = f->params[i]->sinfo;
    for (int d = 0; s->kind == MLC_SINFO_TENSOR && s->tensor.shape && d < s->tensor.ndim; d++) {
      const MlcExpr *x = s->tensor.shape[d];
      int64_t v = 4;
      for (int k = 0; x->kind == MLC_EXPR_VAR && k < n_sizes; k++)
        if (!strcmp(snames[k], x->var.name)) v = svals[k];
      if (x->kind == MLC_EXPR_VAR) bind_size(&ref, x, v);
    }
    ok = (args[i] = alloc_sinfo(&ref, s)) != NULL && !args[i]->tuple;
    if (!ok) break;
    in[i] = &args[i]->t->dl;
    for (int64_t j = 0; j < mlcrt_tensor_numel(in[i]); j++) ((float *)in[i]->data)[j] = frand();
  }
  /* the reference: legalized only, run binding by binding */
  mlc_clear_error(ctx);
  const MlcModule *legal = ok ? mlc_pass_legalize_ops(ctx, m) : NULL;
  if (ok && !legal) {
    bu_print_error(ctx, "legalize");
    ok = fail("does not legalize%s%s", NULL, NULL);
  }
  const MlcFunc *lf = legal ? mlc_module_find(legal, mlc_intern(ctx, "main")) : NULL;
  Val *want = lf ? eval_func(&ref, legal, lf->graph, args, f->n_params) : NULL;
  if (ok && !want && !why[0]) fail("the reference does not run%s%s", NULL, NULL);
  ok = ok && want;
  /* the compiled model */
  MlcrtModel *model = NULL;
  char dir[2560];
  snprintf(dir, sizeof dir, "%s/%.250s", tmpdir, name);
  if (ok) {
    MlcSchTarget t;
    mlc_sch_target_host(&t);
    mlc_clear_error(ctx);
    const MlcModule *built = mlc_graph_pipeline(ctx, m, &t, MLC_PASS_COUNT - 1, NULL, NULL, NULL, NULL);
    if (!built || !mlc_build_model(ctx, built, dir, NULL, NULL)) {
      bu_print_error(ctx, "build");
      ok = fail("does not compile%s%s", NULL, NULL);
    } else if (mlcrt_model_load(dir, &model) != 0) {
      ok = fail("does not load: %s%s", mlcrt_last_error(), NULL);
    }
  }
  DLTensor *wt[16], *got[16] = {0};
  int n_want = 0;
  if (ok && !flat_tensors(want, wt, &n_want, 16)) ok = fail("too many outputs%s%s", NULL, NULL);
  if (ok && mlcrt_model_run(model, in, f->n_params, got, n_want) != 0) ok = fail("run: %s%s", mlcrt_last_error(), NULL);
  for (int i = 0; ok && i < n_want; i++) ok = compare(got[i], wt[i], i);
  if (model) mlcrt_model_free(model);
  bu_remove_dir(dir);
  for (int i = 0; i < ref.n_owned; i++) mlcrt_tensor_free(ref.owned[i]);
  for (int i = 0; i < ref.n_lists; i++) free(ref.lists[i]);
  mlc_map_free(&ref.syms);
  mlc_map_free(&ref.vals);
  return ok;
}

static int by_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

int main(int argc, char **argv) {
  ctx = mlc_ctx_new();
  mlcrt_extern_register("test.double", test_double);
  if (!bu_make_tmpdir(tmpdir, sizeof tmpdir, "mlcc-models")) {
    printf("FAIL models: cannot make a scratch directory\n");
    return 1;
  }
  DIR *d = opendir(GOLDEN_DIR);
  char *names[256];
  int n = 0;
  for (struct dirent *e; d && (e = readdir(d)) && n < 256;) {
    size_t len = strlen(e->d_name);
    if (len > 3 && !strcmp(e->d_name + len - 3, ".py")) names[n++] = strdup(e->d_name);
  }
  if (d) closedir(d);
  qsort(names, (size_t)n, sizeof *names, by_name);
  for (int i = 0; i < n; i++) {
    char stem[256], path[512];
    snprintf(stem, sizeof stem, "%.*s", (int)strlen(names[i]) - 3, names[i]);
    bool wanted = argc < 2;
    for (int a = 1; a < argc && !wanted; a++) wanted = !strcmp(argv[a], stem);
    if (wanted) {
      snprintf(path, sizeof path, "%s/%s", GOLDEN_DIR, names[i]);
      why[0] = 0;
      if (run_case(path, stem)) printf("ok models/%s\n", stem);
      else printf("FAIL models/%s: %s\n", stem, why), n_failed++;
    }
    free(names[i]);
  }
  if (n == 0) printf("FAIL models: no cases under %s\n", GOLDEN_DIR), n_failed++;
  rmdir(tmpdir);
  mlc_ctx_free(ctx);
  return n_failed ? 1 : 0;
}
