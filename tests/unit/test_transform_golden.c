/* test_transform_golden.c - the golden cases of the graph passes: each
 * directory tests/golden/passes/CASE/ holds
 *   before.py   the module the pass runs on
 *   pass.txt    one line: a pass name of the pipeline ("legalize_ops", ...)
 *               or "pipeline" (every pass, in order)
 *   after.py    the module expected after the pass, or
 *   error.txt   one line "LINE:COL: TEXT": the pass must fail with a
 *               message containing TEXT, located at LINE:COL of before.py
 * and is one test, printed as `ok passes/CASE` or `FAIL passes/CASE: why`.
 *
 * An after.py case passes when the result is structurally equal to after.py
 * and its printed text reads back structurally equal (every stage of the
 * pipeline is ordinary TVMScript).  A fuse_tir case must also compute what
 * it fused: each fused prim func, run by the interpreter on random inputs,
 * gives exactly what its member prim funcs give run one after the other; a
 * default_schedule case (target: AVX2, 4 threads) must compute what the
 * functions computed before it, within float reassociation (1e-5).  With GOLDEN_SHOW=1 in the environment
 * each case prints the module it got (stderr), to make writing a case easy.
 * Arguments name cases to run only those. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "golden_case.h"
#include "rand_util.h"
#include "mlcc/interp.h"
#include "mlcc/text.h"
#include "mlcc/transform.h"

#define GOLDEN_DIR "tests/golden/passes"

static int n_failed;

/* (cases, failure reasons and reading modules: golden_case.h) */

/* the first line of a small text file, without its newline */
static bool read_line(Case *c, const char *file, char *buf, size_t cap) {
  size_t len;
  char *text = mlc_read_file(c->ctx, case_path(c, file), GOLDEN_MAX_FILE, &len);
  if (!text) return fail_ctx(c, file);
  size_t n = strcspn(text, "\r\n");
  if (n >= cap) n = cap - 1;
  memcpy(buf, text, n);
  buf[n] = 0;
  free(text);
  return true;
}

/* ---- running a pass ---------------------------------------------------------- */

static MlcModule *run_pass(Case *c, const MlcModule *m, const char *pass) {
  if (strcmp(pass, "pipeline") == 0) {
    MlcMemPlanStats *st = NULL;
    int n = 0;
    MlcModule *r = mlc_graph_pipeline(c->ctx, m, NULL, MLC_PASS_COUNT - 1, NULL, NULL, &st, &n);
    free(st);
    return r;
  }
  for (int i = 0; i < MLC_PASS_COUNT; i++) {
    if (strcmp(pass, mlc_graph_pass_names[i]) != 0) continue;
    /* a fixed target, so the expected module is the same on every machine */
    MlcSchTarget t;
    mlc_sch_target_march(&t, "x86-64-v3");
    t.threads = 4;
    return mlc_graph_pass_run(c->ctx, m, (MlcGraphPass)i, &t, NULL, NULL, NULL);
  }
  fail(c, "pass.txt: unknown pass '%s'", pass);
  return NULL;
}

static void show(const MlcModule *m) {
  if (!getenv("GOLDEN_SHOW")) return;
  MlcStrBuf sb = {0};
  mlc_print_module(m, &sb);
  fprintf(stderr, "%s\n", mlc_sb_cstr(&sb));
  mlc_vec_free(&sb);
}

static bool check_equal(Case *c, const MlcModule *got, const MlcModule *want, const char *what) {
  MlcDiff d = {0};
  if (mlc_module_equal_diff(got, want, &d)) return true;
  MlcStrBuf a = {0}, b = {0};
  mlc_print_diff_side(&d, false, &a);
  mlc_print_diff_side(&d, true, &b);
  fail(c, "%s: function %s: %s: %s vs %s", what, d.func ? d.func : "-", mlc_sb_cstr(&d.path),
       mlc_sb_cstr(&a), mlc_sb_cstr(&b));
  mlc_vec_free(&a);
  mlc_vec_free(&b);
  mlc_diff_free(&d);
  return false;
}

static bool roundtrips(Case *c, const MlcModule *m) {
  MlcStrBuf sb = {0};
  mlc_print_module(m, &sb);
  MlcModule *back = mlc_read_module(c->ctx, "<printed>", mlc_sb_cstr(&sb), sb.len);
  bool ok = back ? check_equal(c, back, m, "printed result read back") : fail_ctx(c, "printed result");
  mlc_vec_free(&sb);
  return ok;
}

/* ---- fuse_tir, numerically: each fused prim func against its members --------------- */

/* a tensor of the struct info's static shape and dtype, random values */
typedef struct Tens { void *data; int ndim; int64_t shape[8]; MlcDType dt; int64_t n; } Tens;

static bool tens_new(Tens *t, const MlcSInfo *s, bool fill) {
  memset(t, 0, sizeof *t);
  if (!s || s->kind != MLC_SINFO_TENSOR || s->tensor.ndim < 0 || s->tensor.ndim > 8 || !supported(s->tensor.dtype))
    return false;
  t->ndim = s->tensor.ndim;
  t->dt = s->tensor.dtype;
  t->n = 1;
  for (int d = 0; d < t->ndim; d++) {
    if (!mlc_e_is_const_int(s->tensor.shape[d], &t->shape[d])) return false;
    t->n *= t->shape[d];
  }
  t->data = calloc((size_t)(t->n ? t->n : 1), mlc_dtype_bytes(t->dt));
  if (fill) fill_random(t->dt, t->data, (size_t)t->n);
  return true;
}

static MlcInterpArg arg_of(Tens *t) { return (MlcInterpArg){.is_buffer = true, .data = t->data, .ndim = t->ndim, .shape = t->shape}; }

/* the members run one after the other in the interpreter (the oracle) and
 * the fused prim func, on the same random inputs, give the same output */
static bool fused_matches(Case *c, const MlcModule *before, const MlcGFunc *g, const MlcPrimFunc *fused) {
  const MlcBindingBlock *blk = g->body->seq.blocks[0];
  int nt = g->n_params + blk->n + 1;
  Tens *ts = calloc((size_t)nt, sizeof *ts);
  MlcMap val = {0};
  bool ok = true;
  for (int i = 0; ok && i < g->n_params; i++) {
    ok = tens_new(&ts[i], g->params[i]->sinfo, true);
    mlc_map_put(&val, g->params[i], &ts[i]);
  }
  for (int b = 0; ok && b < blk->n; b++) {
    const MlcGExpr *call = blk->bindings[b].value, *args = call->call.args[1];
    const MlcFunc *pf = mlc_module_find(before, call->call.args[0]->str);
    Tens *out = &ts[g->n_params + b];
    ok = pf && pf->kind == MLC_FUNC_PRIM && tens_new(out, call->call.sinfo_args[0], false);
    MlcInterpArg ia[16];
    int na = 0;
    for (int a = 0; ok && a < args->tuple.n && na < 15; a++) {
      Tens *t = mlc_map_get(&val, args->tuple.fields[a]);
      ok = t != NULL;
      if (ok) ia[na++] = arg_of(t);
    }
    ia[na++] = arg_of(out);
    ok = ok && mlc_interp_run(c->ctx, pf->prim, ia, na);
    mlc_map_put(&val, blk->bindings[b].var, out);
  }
  Tens *want = &ts[g->n_params + blk->n - 1], *got = &ts[nt - 1];
  if (ok) {
    MlcInterpArg ia[17];
    for (int i = 0; i < g->n_params && i < 16; i++) ia[i] = arg_of(&ts[i]);
    ok = tens_new(got, blk->bindings[blk->n - 1].var->sinfo, false) && g->n_params < 16;
    ia[g->n_params] = arg_of(got);
    ok = ok && mlc_interp_run(c->ctx, fused, ia, g->n_params + 1);
  }
  if (!ok) fail_ctx(c, "running the fused function and its members");
  else if (memcmp(want->data, got->data, (size_t)want->n * mlc_dtype_bytes(want->dt)) != 0)
    ok = fail(c, "%s computes other values than its members", fused->name);
  for (int i = 0; i < nt; i++) free(ts[i].data);
  free(ts);
  mlc_map_free(&val);
  return ok;
}

/* each prim func of got computes what the one of that name in before does,
 * on the same random inputs (a schedule may reassociate float sums) */
static bool same_values(Case *c, const MlcPrimFunc *a, const MlcPrimFunc *b) {
  int n = a->n_params;
  if (n != b->n_params || n > 16) return fail(c, "%s: params differ", a->name);
  Tens ta[16], tb[16];
  MlcInterpArg ia[16], ib[16];
  bool ok = true;
  for (int i = 0; i < n; i++) {
    const MlcBuffer *buf = a->params[i].buf;
    MlcSInfo *s = buf ? mlc_sinfo_tensor(c->ctx, buf->shape, buf->ndim, buf->dtype) : NULL;
    ok = ok && s && tens_new(&ta[i], s, i < n - 1) && tens_new(&tb[i], s, false);
    if (!ok) return fail(c, "%s: param %d is not a static tensor", a->name, i);
    memcpy(tb[i].data, ta[i].data, (size_t)ta[i].n * mlc_dtype_bytes(ta[i].dt));
    ia[i] = arg_of(&ta[i]);
    ib[i] = arg_of(&tb[i]);
  }
  ok = mlc_interp_run(c->ctx, a, ia, n) && mlc_interp_run(c->ctx, b, ib, n);
  if (!ok) fail_ctx(c, "running the function before and after");
  Tens *x = &ta[n - 1], *y = &tb[n - 1];
  RandDiff d;
  if (ok && !same_buffer(x->dt, y->data, x->data, (size_t)x->n * mlc_dtype_bytes(x->dt), 1e-5, 1e-5, NULL, &d))
    ok = fail(c, "%s: element %zu is %g, was %g", a->name, d.index, d.got, d.want);
  for (int i = 0; i < n; i++) free(ta[i].data), free(tb[i].data);
  return ok;
}

/* a tensor holding a constant's values */
static bool tens_const(Tens *t, const MlcTensorData *d) {
  memset(t, 0, sizeof *t);
  if (d->ndim > 8) return false;
  t->ndim = d->ndim, t->dt = d->dtype, t->n = mlc_tensor_data_numel(d);
  memcpy(t->shape, d->shape, sizeof *t->shape * (size_t)d->ndim);
  t->data = malloc(d->nbytes + 1);
  memcpy(t->data, d->data, d->nbytes);
  return true;
}

/* The args of one call_tir as tensors: constants with their values, the
 * rest random from the seed (so both sides draw the same), the output last. */
static bool call_args(const MlcGExpr *call, uint64_t seed, Tens *ts, int *n) {
  const MlcGExpr *tup = call->call.args[1];
  if (tup->tuple.n > 15) return false;
  rand_util_state = seed;
  bool ok = true;
  for (int i = 0; i < tup->tuple.n && ok; i++) {
    const MlcGExpr *a = tup->tuple.fields[i];
    ok = a->kind == MLC_G_CONST ? tens_const(&ts[i], a->constant) : tens_new(&ts[i], a->sinfo, true);
  }
  ok = ok && tens_new(&ts[tup->tuple.n], call->call.sinfo_args[0], false);
  *n = tup->tuple.n + 1;
  return ok;
}

/* A function whose params the schedule laid out anew (a blocked conv
 * weight) takes other data than before, which the pass laid out at its
 * calls: so each call is run both ways, the function before on the
 * constants before and the one after on the constants after, in the
 * interpreter, and the outputs must agree. */
static bool calls_match(Case *c, const MlcModule *before, const MlcModule *got, const char *name) {
  int checked = 0;
  for (int i = 0; i < before->n_funcs; i++) {
    const MlcFunc *f = &before->funcs[i], *g = mlc_module_find(got, f->name);
    if (f->kind != MLC_FUNC_GRAPH || !g || g->kind != MLC_FUNC_GRAPH) continue;
    const MlcGExpr *sa = f->graph->body, *sb = g->graph->body;
    for (int k = 0; k < sa->seq.n && k < sb->seq.n; k++)
      for (int j = 0; j < sa->seq.blocks[k]->n && j < sb->seq.blocks[k]->n; j++) {
        const MlcGExpr *va = sa->seq.blocks[k]->bindings[j].value, *vb = sb->seq.blocks[k]->bindings[j].value;
        if (va->kind != MLC_G_CALL || va->call.n != 2 || va->call.args[0]->kind != MLC_G_GLOBAL ||
            va->call.args[0]->str != name)
          continue;
        Tens ta[16], tb[16];
        MlcInterpArg ia[16], ib[16];
        int na = 0, nb = 0;
        bool ok = call_args(va, 0x1234 + (uint64_t)j, ta, &na) && call_args(vb, 0x1234 + (uint64_t)j, tb, &nb) &&
                  na == nb;
        for (int q = 0; ok && q < na; q++) ia[q] = arg_of(&ta[q]), ib[q] = arg_of(&tb[q]);
        ok = ok && mlc_interp_run(c->ctx, mlc_module_find(before, name)->prim, ia, na) &&
             mlc_interp_run(c->ctx, mlc_module_find(got, name)->prim, ib, nb);
        RandDiff d;
        Tens *x = &ta[na - 1], *y = &tb[nb - 1];
        if (!ok) fail(c, "%s: cannot run a call of it both ways", name);
        else if (!same_buffer(x->dt, y->data, x->data, (size_t)x->n * mlc_dtype_bytes(x->dt), 1e-5, 1e-5, NULL, &d))
          ok = fail(c, "%s with its laid-out constants: element %zu is %g, was %g", name, d.index, d.got, d.want);
        for (int q = 0; q < na; q++) free(ta[q].data);
        for (int q = 0; q < nb; q++) free(tb[q].data);
        if (!ok) return false;
        checked++;
      }
  }
  return checked > 0 || fail(c, "%s: laid out anew, but no call of it found", name);
}

static bool scheduled_numerics(Case *c, const MlcModule *before, const MlcModule *got) {
  for (int i = 0; i < before->n_funcs; i++) {
    const MlcFunc *f = &before->funcs[i], *g = mlc_module_find(got, f->name);
    if (f->kind != MLC_FUNC_PRIM) continue;
    if (g && mlc_attrs_get(g->prim->attrs, mlc_intern(c->ctx, "layout_rewrites"))) {
      if (!calls_match(c, before, got, f->name)) return false;
    } else if (!g || !same_values(c, f->prim, g->prim)) {
      return false;
    }
  }
  return true;
}

static bool fused_numerics(Case *c, const MlcModule *before, const MlcModule *got) {
  for (int i = 0; i < before->n_funcs; i++) {
    const MlcFunc *f = &before->funcs[i];
    if (f->kind != MLC_FUNC_GRAPH || !mlc_attrs_get(f->graph->attrs, mlc_intern(c->ctx, "Primitive"))) continue;
    const MlcFunc *pf = mlc_module_find(got, f->name);
    if (!pf || pf->kind != MLC_FUNC_PRIM) return fail(c, "no prim func for '%s'", f->name);
    if (!fused_matches(c, before, f->graph, pf->prim)) return false;
  }
  return true;
}

static bool run_after(Case *c, const MlcModule *before, const char *pass) {
  MlcModule *want = read_module(c, "after.py");
  if (!want) return false;
  MlcModule *got = run_pass(c, before, pass);
  if (!got) return c->why.len ? false : fail_ctx(c, pass);
  show(got);
  if (!check_equal(c, got, want, "result vs after.py")) return false;
  if (!strcmp(pass, "fuse_tir") && !fused_numerics(c, before, got)) return false;
  if (!strcmp(pass, "default_schedule") && !scheduled_numerics(c, before, got)) return false;
  return roundtrips(c, got);
}

static bool run_error(Case *c, const MlcModule *before, const char *pass) {
  char spec[512];
  if (!read_line(c, "error.txt", spec, sizeof spec)) return false;
  const char *text = strstr(spec, ": ");
  int line = 0, col = 0;
  if (!text || sscanf(spec, "%d:%d", &line, &col) != 2) return fail(c, "error.txt: want LINE:COL: TEXT");
  text += 2;
  MlcModule *got = run_pass(c, before, pass);
  if (got) return show(got), fail(c, "the pass succeeded; expected '%s'", text);
  if (c->why.len) return false;
  const char *msg = mlc_error_msg(c->ctx);
  MlcLoc l = mlc_error_loc(c->ctx);
  MlcStrBuf sb = {0};
  if (!msg || !strstr(msg, text)) fail(c, "message lacks '%s': %s", text, err_line(c->ctx, &sb));
  else if (l.line != line || l.col != col)
    fail(c, "error at %d:%d, expected %d:%d: %s", l.line, l.col, line, col, err_line(c->ctx, &sb));
  mlc_vec_free(&sb);
  return !c->why.len;
}

static void run_case(const char *name) {
  Case c = {.name = name, .ctx = mlc_ctx_new()};
  snprintf(c.dir, sizeof c.dir, "%s/%s", GOLDEN_DIR, name);
  char pass[128];
  MlcModule *before = read_line(&c, "pass.txt", pass, sizeof pass) ? read_module(&c, "before.py") : NULL;
  if (before) {
    if (exists(case_path(&c, "after.py"))) run_after(&c, before, pass);
    else if (exists(case_path(&c, "error.txt"))) run_error(&c, before, pass);
    else fail(&c, "neither after.py nor error.txt");
  }
  if (c.why.len) {
    printf("FAIL passes/%s: %s\n", name, mlc_sb_cstr(&c.why));
    n_failed++;
  } else {
    printf("ok passes/%s\n", name);
  }
  mlc_vec_free(&c.why);
  mlc_ctx_free(c.ctx);
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

int main(int argc, char **argv) {
  if (argc > 1) {
    for (int i = 1; i < argc; i++) run_case(argv[i]);
    return n_failed ? 1 : 0;
  }
  DIR *d = opendir(GOLDEN_DIR);
  if (!d) {
    printf("FAIL passes: cannot open %s\n", GOLDEN_DIR);
    return 1;
  }
  MLC_VEC(char *) names = {0};
  for (struct dirent *e; (e = readdir(d));)
    if (e->d_name[0] != '.') mlc_vec_push(&names, mlc_xstrdup(e->d_name));
  closedir(d);
  if (names.len) qsort(names.data, names.len, sizeof *names.data, cmp_str);
  for (size_t i = 0; i < names.len; i++) {
    run_case(names.data[i]);
    free(names.data[i]);
  }
  mlc_vec_free(&names);
  fflush(stdout);
  return n_failed ? 1 : 0;
}
