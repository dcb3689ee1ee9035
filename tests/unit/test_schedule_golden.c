/* test_schedule_golden.c - the golden cases of the schedule primitives:
 * each directory tests/golden/schedule/CASE/ holds
 *   before.py    the module to schedule (its only prim func is scheduled)
 *   schedule.py  the schedule script
 *   after.py     the module expected after the script, or
 *   error.txt    one line: a substring of the error the script must end with
 * or, in place of schedule.py, an empty marker file default_TARGET (TARGET
 * avx2, avx512 or sse): the default rules applied for that target, with 4
 * threads whatever the machine has, so the result is the same everywhere
 * (MLC_GOLDEN_WRITE=1 writes a missing after.py from the result, to review
 * before committing);
 * and is one test, printed as `ok schedule/CASE` or `FAIL schedule/CASE: why`.
 * A case may also hold intrin.py, tensor intrinsics (NAME_desc / NAME_impl
 * pairs) registered before the script runs, and C files: a result that
 * calls extern functions (T.call_extern), which the interpreter cannot run,
 * is built with those files linked in (mlc_build_shared, as `mlcc build
 * --link`) and the built code's results are compared with the interpreter's
 * run of before.py.
 *
 * An after.py case passes when (1) the result is structurally equal to
 * after.py, (2) the reference interpreter computes the same buffers for the
 * function before and after on the same random inputs (rtol 1e-5; symbolic
 * sizes bound to 8), and (3) the printed trace, read back as a script and
 * replayed on before.py, gives a structurally equal module and prints the
 * same trace.  An error.txt case passes when the script fails with that
 * substring, located in the script, and the module is structurally equal
 * to what the instructions before the refused one made (their trace
 * replayed on before.py) -- a refused primitive changes nothing.
 *
 * The interpreter runs every block instance one by one; programs whose
 * instance count is above WORK_LIMIT are compared structurally and by trace
 * only, and a `# ...` line says their numerical check was skipped.
 * Arguments name cases to run only those. */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mlcc/codegen.h"
#include "mlcc/interp.h"
#include "mlcc/runtime.h"
#include "mlcc/schedule.h"
#include "golden_case.h"
#include "mlcc/text.h"

#define GOLDEN_DIR "tests/golden/schedule"
#define SYM_SIZE 8               /* what every symbolic size is bound to */
/* block instances the interpreter is asked to run; under the sanitizers,
 * which slow it tenfold and more, only the small programs are run (the
 * schedule code itself is exercised in full either way) */
#if defined(__SANITIZE_ADDRESS__)
#define WORK_LIMIT (1LL << 18)
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define WORK_LIMIT (1LL << 18)
#endif
#endif
#ifndef WORK_LIMIT
#define WORK_LIMIT (40LL << 20)
#endif
#define MAX_ELEMS ((int64_t)1 << 26)
#define RTOL 1e-5
#define SEED 0

static int n_failed;

/* (cases, failure reasons and reading files: golden_case.h) */

/* ---- the numerical check ------------------------------------------------------ */

/* value of a shape expression with every var bound to SYM_SIZE */
static bool eval_size(const MlcExpr *e, int64_t *out) {
  int64_t a, b;
  switch (e->kind) {
  case MLC_EXPR_INT: *out = e->int_val; return true;
  case MLC_EXPR_VAR: *out = SYM_SIZE; return true;
  case MLC_EXPR_CAST: return eval_size(e->operand, out);
  case MLC_EXPR_BINARY:
    if (!eval_size(e->bin.a, &a) || !eval_size(e->bin.b, &b)) return false;
    switch (e->bin.op) {
    case MLC_BIN_ADD: *out = a + b; return true;
    case MLC_BIN_SUB: *out = a - b; return true;
    case MLC_BIN_MUL: *out = a * b; return true;
    case MLC_BIN_FLOORDIV: return b > 0 && a >= 0 && (*out = a / b, true);
    case MLC_BIN_FLOORMOD: return b > 0 && a >= 0 && (*out = a % b, true);
    case MLC_BIN_MIN: *out = a < b ? a : b; return true;
    case MLC_BIN_MAX: *out = a > b ? a : b; return true;
    default: return false;
    }
  default: return false;
  }
}

/* block instances a statement runs: the product of the loop extents above
 * each block, summed over blocks */
static int64_t work(const MlcStmt *s) {
  if (!s) return 0;
  int64_t n = 0, ext;
  switch (s->kind) {
  case MLC_STMT_FOR:
    if (!eval_size(s->loop.extent, &ext)) ext = SYM_SIZE;
    n = work(s->loop.body);
    return n > 0 && ext > WORK_LIMIT / n ? WORK_LIMIT + 1 : n * (ext > 0 ? ext : 0);
  case MLC_STMT_BLOCK_REALIZE:
    n = work(s->realize.block->body) + work(s->realize.block->init);
    return n > 0 ? n : 1;
  case MLC_STMT_SEQ:
    for (int i = 0; i < s->seq.n && n <= WORK_LIMIT; i++) n += work(s->seq.items[i]);
    return n;
  case MLC_STMT_IF: return work(s->if_.then_s) + work(s->if_.else_s);
  case MLC_STMT_LET: return work(s->let.body);
  case MLC_STMT_ALLOCATE: return work(s->alloc.body);
  case MLC_STMT_STORE:
  case MLC_STMT_EVALUATE: return 0;
  }
  return 0;
}

typedef struct Arg {
  int64_t shape[16];
  size_t numel;
  void *data[2]; /* [0] for the function before, [1] after */
  const char *layout; /* the index map the function after changed this param's layout by, or NULL */
} Arg;

static uint64_t rng_next(uint64_t *x) {
  *x ^= *x << 13;
  *x ^= *x >> 7;
  *x ^= *x << 17;
  return *x;
}

/* one element of random data: multiples of 1/16 in [-1, 1] for floats,
 * so that sums in any order are exact; small integers otherwise */
static void fill(MlcDType t, void *p, size_t numel, uint64_t *rng) {
  for (size_t i = 0; i < numel; i++) {
    int r = (int)(rng_next(rng) % 33) - 16;
    switch (t.code) {
    case MLC_TC_FLOAT:
      if (t.bits == 32) ((float *)p)[i] = (float)r / 16.0f;
      else if (t.bits == 64) ((double *)p)[i] = r / 16.0;
      break; /* float16 stays zero */
    case MLC_TC_INT:
    case MLC_TC_UINT: {
      int64_t v = (r + 16) % 8;
      memcpy((char *)p + i * (t.bits / 8), &v, t.bits / 8); /* little-endian low bytes */
      break;
    }
    case MLC_TC_BOOL: ((unsigned char *)p)[i] = (unsigned char)(r & 1); break;
    default: break;
    }
  }
}

static double elem(MlcDType t, const void *p, size_t i) {
  if (t.code == MLC_TC_FLOAT && t.bits == 32) return ((const float *)p)[i];
  if (t.code == MLC_TC_FLOAT && t.bits == 64) return ((const double *)p)[i];
  if (t.code == MLC_TC_BOOL) return ((const unsigned char *)p)[i];
  int64_t v = 0;
  size_t w = mlc_dtype_bytes(t);
  memcpy(&v, (const char *)p + i * w, w < 8 ? w : 8);
  if (t.code == MLC_TC_INT && w < 8 && (v >> (8 * w - 1)) & 1) v -= (int64_t)1 << (8 * w);
  return (double)v;
}

static bool close_enough(double a, double b) {
  if (isnan(a) || isnan(b)) return isnan(a) && isnan(b);
  return fabs(a - b) <= RTOL * (1.0 + fabs(b));
}

/* the shape of a param buffer; false when it cannot be sized */
static bool param_shape(const MlcBuffer *b, Arg *a) {
  if (b->ndim > 16) return false;
  a->numel = 1;
  for (int d = 0; d < b->ndim; d++) {
    if (!eval_size(b->shape[d], &a->shape[d]) || a->shape[d] < 0) return false;
    if (a->shape[d] && (int64_t)a->numel > MAX_ELEMS / a->shape[d]) return false;
    a->numel *= (size_t)a->shape[d];
  }
  return true;
}

/* the index map f's "layout_rewrites" attribute records for param k, NULL */
static const char *layout_of(MlcCtx *ctx, const MlcPrimFunc *f, int k) {
  const MlcAttrValue *v = mlc_attrs_get(f->attrs, mlc_intern(ctx, "layout_rewrites"));
  for (int i = 0; v && v->kind == MLC_ATTR_LIST && i < v->list.n; i++) {
    const MlcAttrValue *p = &v->list.items[i];
    if (p->kind == MLC_ATTR_LIST && p->list.n == 2 && p->list.items[0].kind == MLC_ATTR_INT &&
        p->list.items[0].i == k && p->list.items[1].kind == MLC_ATTR_STR)
      return p->list.items[1].s;
  }
  return NULL;
}

/* the same params, but for those whose layout the function after records
 * changing (checked when their data is laid out) */
static bool same_signature(MlcCtx *ctx, const MlcPrimFunc *f0, const MlcPrimFunc *f1) {
  if (f0->n_params != f1->n_params) return false;
  for (int i = 0; i < f0->n_params; i++) {
    const MlcBuffer *a = f0->params[i].buf, *b = f1->params[i].buf;
    if (!a != !b) return false;
    if (!a || layout_of(ctx, f1, i)) continue;
    Arg x, y;
    if (!param_shape(a, &x) || !param_shape(b, &y) || a->ndim != b->ndim || !mlc_dtype_eq(a->dtype, b->dtype))
      return false;
    for (int d = 0; d < a->ndim; d++)
      if (x.shape[d] != y.shape[d]) return false;
  }
  return true;
}

static void interp_args(const MlcPrimFunc *f, Arg *args, int side, MlcInterpArg *out) {
  for (int i = 0; i < f->n_params; i++) {
    const MlcParam *p = &f->params[i];
    if (p->buf) {
      out[i] = (MlcInterpArg){.is_buffer = true, .data = args[i].data[side], .ndim = p->buf->ndim,
                              .shape = args[i].shape};
    } else {
      out[i] = (MlcInterpArg){.i = SYM_SIZE, .f = 0.5};
    }
  }
}

/* compare the buffers both runs left; false + reason at the first mismatch */
static bool compare(Case *c, const MlcPrimFunc *f, Arg *args) {
  for (int i = 0; i < f->n_params; i++) {
    const MlcBuffer *b = f->params[i].buf;
    if (!b || args[i].layout) continue; /* an input the function after takes laid out anew */
    for (size_t k = 0; k < args[i].numel; k++) {
      double x = elem(b->dtype, args[i].data[0], k), y = elem(b->dtype, args[i].data[1], k);
      if (!close_enough(y, x))
        return fail(c, "numerical: buffer '%s' element %zu: %.9g before, %.9g after", b->name, k, x, y);
    }
  }
  return true;
}

/* ---- results that call extern functions: the built code ---- */

static bool calls_out(MlcVisitor *v, const MlcExpr *e) {
  if (e->kind == MLC_EXPR_CALL && e->call.op == MLC_INTRIN_CALL_EXTERN) *(bool *)v->user = true;
  return true;
}

static bool has_extern_call(const MlcPrimFunc *f) {
  bool found = false;
  MlcVisitor v = {.user = &found, .expr = calls_out};
  mlc_visit_prim_func(&v, f);
  return found;
}

/* f1 built with the case's C files linked in, called on side 1's buffers */
static bool run_built(Case *c, const MlcPrimFunc *f1, Arg *args) {
  const char *base = getenv("TMPDIR");
  char dir[2048];
  snprintf(dir, sizeof dir, "%s/mlcc-sched.XXXXXX", base && *base ? base : "/tmp");
  if (!mkdtemp(dir)) return fail(c, "numerical: cannot make a scratch directory");
  const char *links[8];
  int n_links = 0;
  DIR *d = opendir(c->dir);
  for (struct dirent *e; d && (e = readdir(d)) && n_links < 8;) {
    size_t len = strlen(e->d_name);
    if (len > 2 && !strcmp(e->d_name + len - 2, ".c")) links[n_links++] = mlc_intern(c->ctx, case_path(c, e->d_name));
  }
  if (d) closedir(d);
  MlcFunc fn = {MLC_FUNC_PRIM, mlc_intern(c->ctx, f1->name), {.prim = (MlcPrimFunc *)f1}};
  MlcModule *m = mlc_module_new(c->ctx, "Built", &fn, 1, (MlcAttrs){0});
  MlcBuildOptions opt = {.link = links, .n_link = n_links};
  char path[2300], cpath[2300];
  snprintf(path, sizeof path, "%s/built.so", dir);
  snprintf(cpath, sizeof cpath, "%s/built.c", dir);
  bool ok = m && mlc_build_shared(c->ctx, m, path, &opt);
  MlcrtModule *mod = NULL;
  if (!ok) fail_ctx(c, "numerical: building the result");
  else if (mlcrt_module_load(path, &mod) != 0) ok = fail(c, "numerical: loading the result: %s", mlcrt_last_error());
  const MlcrtFunc *rf = mod ? mlcrt_module_get_func(mod, f1->name) : NULL;
  if (ok && !rf) ok = fail(c, "numerical: %s", mlcrt_last_error());
  if (ok) {
    MlcrtValue vals[32];
    DLTensor ts[32];
    for (int i = 0; i < f1->n_params && i < 32; i++) {
      const MlcBuffer *b = f1->params[i].buf;
      if (!b) {
        vals[i] = mlc_dtype_is_float(f1->params[i].var->dtype) ? (MlcrtValue){.f = 0.5} : (MlcrtValue){.i = SYM_SIZE};
        continue;
      }
      ts[i] = (DLTensor){.data = args[i].data[1], .device = {kDLCPU, 0}, .ndim = b->ndim,
                         .dtype = {b->dtype.code == MLC_TC_FLOAT ? kDLFloat : b->dtype.code == MLC_TC_UINT ? kDLUInt : kDLInt,
                                   (uint8_t)b->dtype.bits, 1},
                         .shape = args[i].shape};
      vals[i].tensor = &ts[i];
    }
    if (mlcrt_func_call(rf, vals, f1->n_params) != 0) ok = fail(c, "numerical: the built result fails: %s", mlcrt_last_error());
  }
  if (mod) mlcrt_module_free(mod);
  unlink(path);
  unlink(cpath);
  rmdir(dir);
  return ok;
}

/* A param the function after takes in another layout: its data laid out by
 * the recorded map (mlc_sch_layout_apply), which must give the new shape.
 * The result is then judged against the function before on the original
 * data, so a map that does not match the rewrite of the accesses fails. */
static bool lay_out(Case *c, const MlcBuffer *b0, const MlcBuffer *b1, Arg *a) {
  MlcTensorData in = {b0->dtype, b0->ndim, a->shape, a->data[1], a->numel * mlc_dtype_bytes(b0->dtype)};
  MlcTensorData *out = mlc_sch_layout_apply(c->ctx, a->layout, &in);
  if (!out) return fail_ctx(c, "numerical: the recorded layout does not apply");
  Arg want;
  if (!param_shape(b1, &want) || want.numel != a->numel || out->ndim != b1->ndim)
    return fail(c, "numerical: the recorded layout of '%s' does not give its new shape", b1->name);
  for (int d = 0; d < b1->ndim; d++)
    if (out->shape[d] != want.shape[d])
      return fail(c, "numerical: the recorded layout of '%s' does not give its new shape", b1->name);
  memcpy(a->data[1], out->data, out->nbytes);
  memcpy(a->shape, want.shape, sizeof a->shape);
  return true;
}

/* Run f0 and f1 on the same random inputs and compare every buffer.  true
 * also when the check does not apply (a note says why). */
static bool numerical(Case *c, const MlcPrimFunc *f0, const MlcPrimFunc *f1) {
  int64_t w = work(f0->body);
  if (w > WORK_LIMIT) {
    printf("# schedule/%s: numerical check skipped: over %lld block instances\n", c->name, (long long)WORK_LIMIT);
    return true;
  }
  if (!same_signature(c->ctx, f0, f1)) {
    printf("# schedule/%s: numerical check skipped: the parameters changed shape\n", c->name);
    return true;
  }
  int n = f0->n_params;
  size_t cnt = n > 0 ? (size_t)n : 1;
  Arg *args = calloc(cnt, sizeof *args);
  MlcInterpArg *ia = calloc(cnt, sizeof *ia);
  uint64_t rng = 0x2545f4914f6cdd1dull;
  bool ok = true;
  for (int i = 0; i < n && ok; i++) {
    const MlcBuffer *b = f0->params[i].buf;
    if (!b) continue;
    if (!param_shape(b, &args[i])) {
      ok = fail(c, "numerical: cannot size buffer '%s'", b->name);
      break;
    }
    size_t bytes = args[i].numel * mlc_dtype_bytes(b->dtype) + 1;
    args[i].data[0] = calloc(1, bytes);
    args[i].data[1] = calloc(1, bytes);
    fill(b->dtype, args[i].data[0], args[i].numel, &rng);
    memcpy(args[i].data[1], args[i].data[0], bytes);
    args[i].layout = layout_of(c->ctx, f1, i);
  }
  if (ok) {
    interp_args(f0, args, 0, ia);
    if (!mlc_interp_run(c->ctx, f0, ia, n)) {
      MlcStrBuf sb = {0};
      printf("# schedule/%s: numerical check skipped: before.py does not run: %s\n", c->name,
             err_line(c->ctx, &sb));
      mlc_vec_free(&sb);
      mlc_clear_error(c->ctx);
    } else {
      for (int i = 0; i < n && ok; i++)
        if (args[i].layout) ok = lay_out(c, f0->params[i].buf, f1->params[i].buf, &args[i]);
      if (ok) interp_args(f1, args, 1, ia);
      if (ok && has_extern_call(f1)) ok = run_built(c, f1, args) && compare(c, f0, args);
      else if (ok)
        ok = mlc_interp_run(c->ctx, f1, ia, n) ? compare(c, f0, args) : fail_ctx(c, "numerical: the result does not run");
    }
  }
  for (int i = 0; i < n; i++) free(args[i].data[0]), free(args[i].data[1]);
  free(args);
  free(ia);
  return ok;
}

/* ---- the case -------------------------------------------------------------------- */

static bool equal_or_diff(Case *c, const MlcModule *got, const MlcModule *want, const char *what) {
  MlcDiff d = {0};
  if (mlc_module_equal_diff(got, want, &d)) return mlc_diff_free(&d), true;
  MlcStrBuf l = {0}, r = {0};
  mlc_print_diff_side(&d, false, &l);
  mlc_print_diff_side(&d, true, &r);
  fail(c, "%s: function %s: at %s: %s vs %s", what, d.func ? d.func : "(module)", mlc_sb_cstr(&d.path),
       mlc_sb_cstr(&l), mlc_sb_cstr(&r));
  mlc_vec_free(&l);
  mlc_vec_free(&r);
  mlc_diff_free(&d);
  return false;
}

/* a fresh schedule of `before` running `trace`; NULL + failure otherwise */
static MlcSchedule *replay(Case *c, const MlcModule *before, const char *trace) {
  MlcSchedule *s = mlc_sch_new(c->ctx, before, NULL, SEED);
  if (!s) return fail_ctx(c, "replay"), NULL;
  if (!mlc_sch_run_script(s, "<trace>", trace, strlen(trace))) {
    fail_ctx(c, "the printed trace does not replay");
    mlc_sch_free(s);
    return NULL;
  }
  return s;
}

static bool round_trip(Case *c, const MlcModule *before, const MlcSchedule *s) {
  MlcStrBuf t1 = {0}, t2 = {0};
  mlc_sch_print_trace(s, &t1);
  MlcSchedule *r = replay(c, before, mlc_sb_cstr(&t1));
  bool ok = r != NULL;
  if (ok) ok = equal_or_diff(c, mlc_sch_module(r), mlc_sch_module(s), "trace replay");
  if (ok) {
    mlc_sch_print_trace(r, &t2);
    if (strcmp(mlc_sb_cstr(&t1), mlc_sb_cstr(&t2)) != 0) ok = fail(c, "the replayed trace prints differently");
  }
  mlc_sch_free(r);
  mlc_vec_free(&t1);
  mlc_vec_free(&t2);
  return ok;
}

static bool expect_module(Case *c, const MlcModule *before, MlcSchedule *s, bool ran) {
  if (!ran) return fail_ctx(c, "the script failed");
  const MlcModule *want = read_module(c, "after.py");
  if (!want || !equal_or_diff(c, mlc_sch_module(s), want, "result differs from after.py")) return false;
  const MlcPrimFunc *f1 = mlc_sch_func(s);
  const MlcFunc *f0 = mlc_module_find(before, f1->name);
  if (!f0 || f0->kind != MLC_FUNC_PRIM) return fail(c, "the scheduled function is not in before.py");
  return numerical(c, f0->prim, f1) && round_trip(c, before, s);
}

static bool expect_error(Case *c, const MlcModule *before, MlcSchedule *s, bool ran, const char *script) {
  size_t len;
  char *want = mlc_read_file(c->ctx, case_path(c, "error.txt"), GOLDEN_MAX_FILE, &len);
  if (!want) return fail_ctx(c, "error.txt");
  want[strcspn(want, "\r\n")] = '\0';
  bool ok = true;
  if (ran) ok = fail(c, "expected an error containing '%s'; the script succeeded", want);
  else if (!*want) ok = fail(c, "error.txt is empty");
  else if (!strstr(mlc_error_msg(c->ctx), want)) ok = fail(c, "error '%s' lacks '%s'", mlc_error_msg(c->ctx), want);
  else if (mlc_error_loc(c->ctx).file != script || mlc_error_loc(c->ctx).line <= 0)
    ok = fail_ctx(c, "the error is not located in schedule.py");
  free(want);
  if (!ok) return false;
  /* what the accepted instructions made, rebuilt independently */
  mlc_clear_error(c->ctx);
  MlcStrBuf t = {0};
  mlc_sch_print_trace(s, &t);
  MlcSchedule *r = replay(c, before, mlc_sb_cstr(&t));
  mlc_vec_free(&t);
  if (!r) return false;
  ok = equal_or_diff(c, mlc_sch_module(s), mlc_sch_module(r), "the refused primitive changed the module");
  mlc_sch_free(r);
  return ok;
}

/* ---- default rules ------------------------------------------------------------ */

/* the -march each marker stands for (mlc_sch_target_march) */
static const struct { const char *marker, *march; } default_targets[] = {
    {"default_avx2", "x86-64-v3"},
    {"default_avx512", "x86-64-v4"},
    {"default_sse", "x86-64"},
};

/* the march of the case's default_TARGET marker, NULL when it has none */
static const char *default_march(Case *c) {
  for (size_t i = 0; i < sizeof default_targets / sizeof *default_targets; i++)
    if (exists(case_path(c, default_targets[i].marker))) return default_targets[i].march;
  return NULL;
}

static void write_after(Case *c, const MlcModule *m) {
  MlcStrBuf sb = {0};
  mlc_print_module(m, &sb);
  FILE *f = fopen(case_path(c, "after.py"), "w");
  if (!f || fwrite(sb.data, 1, sb.len, f) != sb.len) fail(c, "cannot write after.py");
  if (f) fclose(f);
  mlc_vec_free(&sb);
}

static void run_default(Case *c, const MlcModule *before, const char *march) {
  MlcSchTarget t;
  mlc_sch_target_march(&t, march);
  t.threads = 4;
  MlcSchedule *s = mlc_sch_new(c->ctx, before, NULL, SEED);
  if (!s) return (void)fail_ctx(c, "before.py");
  bool ran = mlc_sch_apply_default(s, &t);
  const char *w = getenv("MLC_GOLDEN_WRITE");
  if (ran && w && strcmp(w, "1") == 0 && !exists(case_path(c, "after.py"))) write_after(c, mlc_sch_module(s));
  expect_module(c, before, s, ran);
  mlc_sch_free(s);
}

static void run_case(const char *name) {
  Case c = {.name = name, .ctx = mlc_ctx_new()};
  snprintf(c.dir, sizeof c.dir, "%s/%s", GOLDEN_DIR, name);
  MlcModule *before = read_module(&c, "before.py");
  const char *march = before ? default_march(&c) : NULL;
  if (march) run_default(&c, before, march), before = NULL;
  const char *script = case_path(&c, "schedule.py");
  bool has_error = exists(case_path(&c, "error.txt")), has_after = exists(case_path(&c, "after.py"));
  size_t len = 0;
  char *text = before ? mlc_read_file(c.ctx, script, GOLDEN_MAX_FILE, &len) : NULL;
  MlcModule *intrins = before && exists(case_path(&c, "intrin.py")) ? read_module(&c, "intrin.py") : NULL;
  if (intrins && mlc_sch_register_intrins(c.ctx, intrins) < 0) fail_ctx(&c, "intrin.py");
  MlcSchedule *s = text ? mlc_sch_new(c.ctx, before, NULL, SEED) : NULL;
  if (before && !text) fail_ctx(&c, "schedule.py");
  else if (text && !s) fail_ctx(&c, "before.py");
  else if (s && has_error == has_after) fail(&c, "a case has exactly one of after.py and error.txt");
  else if (s) {
    bool ran = mlc_sch_run_script(s, script, text, len);
    if (has_after) expect_module(&c, before, s, ran);
    else expect_error(&c, before, s, ran, script);
  }
  if (c.why.len) {
    printf("FAIL schedule/%s: %s\n", name, mlc_sb_cstr(&c.why));
    n_failed++;
  } else {
    printf("ok schedule/%s\n", name);
  }
  fflush(stdout);
  free(text);
  mlc_sch_free(s);
  mlc_vec_free(&c.why);
  mlc_ctx_free(c.ctx);
}

static int by_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

int main(int argc, char **argv) {
  DIR *d = opendir(GOLDEN_DIR);
  if (!d) {
    printf("FAIL schedule_golden: cannot open %s (run from the repository root)\n", GOLDEN_DIR);
    return 1;
  }
  MLC_VEC(char *) names = {0};
  for (struct dirent *e; (e = readdir(d));) {
    if (e->d_name[0] == '.') continue;
    char path[1024];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s", GOLDEN_DIR, e->d_name);
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) mlc_vec_push(&names, mlc_xstrdup(e->d_name));
  }
  closedir(d);
  if (names.len) qsort(names.data, names.len, sizeof *names.data, by_name);
  for (size_t i = 0; i < names.len; i++) {
    bool chosen = argc < 2;
    for (int k = 1; k < argc; k++) chosen |= strcmp(argv[k], names.data[i]) == 0;
    if (chosen) run_case(names.data[i]);
    free(names.data[i]);
  }
  mlc_vec_free(&names);
  return n_failed ? 1 : 0;
}
