/* test_lower.c - every lowering stage preserves meaning.
 *
 * Each prim func of the golden files (tests/golden/roundtrip) and of the
 * run programs (tests/golden/run) is interpreted as written and after each
 * stage of mlc_lower_prim_func, on the same random inputs (every buffer
 * param starts with the same random contents, so elements a program leaves
 * alone compare too).  Integer results must be bitwise equal; float results
 * within rtol 1e-5 -- though no stage reorders float arithmetic, so a float
 * difference is counted and reported as well.  Symbolic sizes are given two
 * assignments.  The lowered form is also checked for what lower.h promises
 * (no blocks, flat buffers, no vectorized loops, short unrolled loops
 * expanded), and vectorized loops that cannot be vectorized must be refused
 * with an error naming the loop.
 *
 * A function structurally equal to one already checked (the canonical
 * copies of golden files) is not checked again.  Under the sanitizers,
 * which make the interpreter about four times slower, a function of more
 * than SAN_WORK interpreted iterations (the golden batched matmul) is
 * skipped with a `skip` line: the plain build checks it, and the sanitized
 * code paths are the same as for the smaller matmuls. */
#include "check.h"
#include "mlcc/interp.h"
#include "mlcc/lower.h"
#include "mlcc/text.h"
#include "rand_util.h"

#include <dirent.h>
#include <math.h>

enum { MAX_PARAMS = 32, MAX_SYMS = 8, MAX_FILES = 64, MAX_SEEN = 256 };

static MlcCtx *ctx;

static void print_error(const char *what) {
  MlcStrBuf sb = {0};
  mlc_format_error(ctx, &sb);
  printf("    %s: %s\n", what, mlc_sb_cstr(&sb));
  mlc_vec_free(&sb);
}

static const MlcModule *read_text(const char *name, const char *text, size_t len) {
  mlc_clear_error(ctx);
  const MlcModule *m = mlc_read_module(ctx, name, text, len);
  if (!m) print_error(name);
  return m;
}

static const MlcModule *read_path(const char *path) {
  size_t len;
  mlc_clear_error(ctx);
  char *text = mlc_read_file(ctx, path, 1 << 20, &len);
  const MlcModule *m = text ? read_text(path, text, len) : NULL;
  if (!text) print_error(path);
  free(text);
  return m;
}

/* ---- arguments ----------------------------------------------------------------------- */

/* The arguments of one function for one assignment of its symbolic sizes:
 * the initial contents of every buffer, and a working copy per run. */
typedef struct Args {
  int n;
  MlcInterpArg arg[MAX_PARAMS];
  int64_t shape[MAX_PARAMS][8];
  size_t bytes[MAX_PARAMS];
  void *init[MAX_PARAMS], *work[MAX_PARAMS];
} Args;

/* Elements a buffer with constant strides and offset spans (the dense
 * count without them). */
static size_t storage_elems(const MlcBuffer *b, const int64_t *shape, size_t dense) {
  int64_t off = 0, st, far = 0;
  if (b->elem_offset && !mlc_e_is_const_int(b->elem_offset, &off)) return dense;
  if (!b->strides) return dense + (size_t)off;
  for (int d = 0; d < b->ndim; d++) {
    if (!mlc_e_is_const_int(b->strides[d], &st)) return dense;
    if (shape[d] == 0) return 0;
    far += (shape[d] - 1) * st;
  }
  return (size_t)(off + far + 1);
}

/* Shapes from the buffers' dims: constants as they are, the k-th size var
 * met gets sizes[k].  False (with a reason) for what this test cannot
 * drive: dims that are expressions, dtypes without a generator. */
static bool make_args(const MlcPrimFunc *f, const int64_t *sizes, Args *a, const char **why) {
  const MlcExpr *syms[MAX_SYMS];
  int nsyms = 0;
  memset(a, 0, sizeof *a);
  if (f->n_params > MAX_PARAMS) return *why = "too many params", false;
  a->n = f->n_params;
  for (int i = 0; i < f->n_params; i++) {
    const MlcBuffer *b = f->params[i].buf;
    if (!b) {
      a->arg[i] = (MlcInterpArg){.is_buffer = false, .i = 3, .f = 0.5};
      continue;
    }
    if (!supported(b->dtype) || b->ndim > 8) return *why = "a buffer dtype or rank the test does not generate", false;
    size_t count;
    if (!buffer_shape(b, sizes, syms, &nsyms, MAX_SYMS, a->shape[i], &count))
      return *why = "a buffer dim that is an expression", false;
    count = storage_elems(b, a->shape[i], count);
    a->bytes[i] = count * mlc_dtype_bytes(b->dtype);
    a->init[i] = malloc(a->bytes[i] + 1);
    a->work[i] = malloc(a->bytes[i] + 1);
    fill_random(b->dtype, a->init[i], count);
    a->arg[i] = (MlcInterpArg){.is_buffer = true, .data = a->work[i], .ndim = b->ndim, .shape = a->shape[i]};
  }
  return true;
}

static void free_args(Args *a) {
  for (int i = 0; i < a->n; i++) free(a->init[i]), free(a->work[i]);
}

static void reset(Args *a) {
  for (int i = 0; i < a->n; i++)
    if (a->init[i]) memcpy(a->work[i], a->init[i], a->bytes[i]);
}

/* the results of a run: a copy of every buffer */
static void **snapshot(const Args *a) {
  void **s = calloc((size_t)a->n + 1, sizeof *s);
  for (int i = 0; i < a->n; i++)
    if (a->work[i]) s[i] = malloc(a->bytes[i] + 1), memcpy(s[i], a->work[i], a->bytes[i]);
  return s;
}

static void free_snapshot(void **s, int n) {
  for (int i = 0; i < n; i++) free(s[i]);
  free(s);
}

/* Compare a run with the reference run; *inexact counts float elements
 * that are close but not bitwise equal. */
static bool same_results(const MlcPrimFunc *f, const Args *a, void **ref, const char *stage, long *inexact) {
  for (int i = 0; i < a->n; i++) {
    const MlcBuffer *b = f->params[i].buf;
    RandDiff d;
    if (!b || same_buffer(b->dtype, a->work[i], ref[i], a->bytes[i], 1e-5, 1e-6, inexact, &d)) continue;
    if (!mlc_dtype_is_float(b->dtype))
      printf("    %s after %s: integer buffer '%s' differs\n", f->name, stage, b->name);
    else
      printf("    %s after %s: '%s'[%zu] is %.9g, %.9g before lowering\n", f->name, stage, b->name, d.index,
             d.got, d.want);
    return false;
  }
  return true;
}

/* ---- the stage check -------------------------------------------------------------------- */

static bool run_on(const MlcPrimFunc *sig, const MlcPrimFunc *f, Args *a, const char *stage) {
  reset(a);
  mlc_clear_error(ctx);
  if (mlc_interp_run_lowered(ctx, sig, f, a->arg, a->n)) return true;
  MlcStrBuf what = {0};
  mlc_sb_printf(&what, "%s after %s", sig->name, stage);
  print_error(mlc_sb_cstr(&what));
  mlc_vec_free(&what);
  return false;
}

/* the same program: a stage that found nothing to do shares the body */
static bool unchanged(const MlcPrimFunc *a, const MlcPrimFunc *b) {
  if (a->body != b->body || a->n_params != b->n_params) return false;
  for (int i = 0; i < a->n_params; i++)
    if (a->params[i].buf != b->params[i].buf || a->params[i].var != b->params[i].var) return false;
  return true;
}

/* Interpret f and f after each stage on one set of inputs; false on the
 * first stage that fails or changes a result. */
static bool check_stages(const MlcPrimFunc *f, const int64_t *sizes, long *inexact) {
  Args a;
  const char *why = NULL;
  if (!make_args(f, sizes, &a, &why)) {
    printf("    %s: cannot be driven: %s\n", f->name, why);
    free_args(&a);
    return false;
  }
  bool ok = run_on(f, f, &a, "nothing (as written)");
  void **ref = ok ? snapshot(&a) : NULL;
  const MlcPrimFunc *prev = f;
  for (int s = 0; ok && s < MLC_LOWER_STAGE_COUNT; s++) {
    mlc_clear_error(ctx);
    const MlcPrimFunc *low = mlc_lower_prim_func(ctx, f, (MlcLowerStage)s, NULL, NULL);
    const char *stage = mlc_lower_stage_names[s];
    if (!low) {
      MlcStrBuf what = {0};
      mlc_sb_printf(&what, "%s: lowering to stage %s", f->name, stage);
      print_error(mlc_sb_cstr(&what));
      mlc_vec_free(&what);
      ok = false;
      break;
    }
    if (!unchanged(prev, low)) ok = run_on(f, low, &a, stage) && same_results(f, &a, ref, stage, inexact);
    prev = low;
  }
  if (ref) free_snapshot(ref, a.n);
  free_args(&a);
  return ok;
}

/* ---- what the lowered form promises --------------------------------------------------------- */

typedef struct Shape {
  int blocks, multi_dim, vectorized, short_unrolled, vector_stores, widest_store;
} Shape;

static bool shape_stmt(MlcVisitor *v, const MlcStmt *s) {
  Shape *sh = v->user;
  int64_t n;
  if (s->kind == MLC_STMT_BLOCK_REALIZE) sh->blocks++;
  if (s->kind == MLC_STMT_STORE && s->store.n != 1) sh->multi_dim++;
  if (s->kind == MLC_STMT_STORE && s->store.value->dtype.lanes > 1) sh->vector_stores++;
  if (s->kind == MLC_STMT_STORE && s->store.value->dtype.lanes > sh->widest_store)
    sh->widest_store = s->store.value->dtype.lanes;
  if (s->kind == MLC_STMT_FOR && s->loop.kind == MLC_FOR_VECTORIZED) sh->vectorized++;
  const MlcAttrValue *hint = s->kind == MLC_STMT_FOR
                                 ? mlc_attrs_get(s->loop.annotations, mlc_intern(ctx, "pragma_unroll_explicit"))
                                 : NULL;
  bool left_to_compiler = hint && hint->kind == MLC_ATTR_INT && hint->i == 0;
  if (s->kind == MLC_STMT_FOR && s->loop.kind == MLC_FOR_UNROLLED && mlc_e_is_const_int(s->loop.extent, &n) &&
      n <= MLC_LOWER_MAX_UNROLL && !left_to_compiler)
    sh->short_unrolled++;
  return true;
}

static bool shape_expr(MlcVisitor *v, const MlcExpr *e) {
  if (e->kind == MLC_EXPR_LOAD && e->load.n != 1) ((Shape *)v->user)->multi_dim++;
  return true;
}

static Shape lowered_shape(const MlcPrimFunc *f) {
  Shape sh = {0};
  MlcVisitor v = {.user = &sh, .stmt = shape_stmt, .expr = shape_expr};
  mlc_visit_prim_func(&v, f);
  return sh;
}

static bool check_lowered_form(const MlcPrimFunc *f) {
  mlc_clear_error(ctx);
  const MlcPrimFunc *low = mlc_lower_prim_func(ctx, f, MLC_LOWER_VECTORIZE, NULL, NULL);
  if (!low) return false; /* reported by check_stages */
  Shape sh = lowered_shape(low);
  bool ok = sh.blocks == 0 && sh.multi_dim == 0 && sh.vectorized == 0 && sh.short_unrolled == 0;
  for (int i = 0; i < low->n_params; i++)
    if (low->params[i].buf && low->params[i].buf->ndim != 1) ok = false;
  if (!ok)
    printf("    %s lowered: %d blocks, %d multi-index accesses, %d vectorized and %d short unrolled loops left\n",
           f->name, sh.blocks, sh.multi_dim, sh.vectorized, sh.short_unrolled);
  return ok;
}

/* ---- the files ------------------------------------------------------------------------------ */

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* the *.py files of dir, sorted; returns how many */
static int list_py(const char *dir, char **out, int cap) {
  DIR *d = opendir(dir);
  int n = 0;
  if (!d) return 0;
  for (struct dirent *e; (e = readdir(d)) && n < cap;) {
    size_t len = strlen(e->d_name);
    if (len > 3 && !strcmp(e->d_name + len - 3, ".py")) {
      out[n] = malloc(strlen(dir) + len + 2);
      sprintf(out[n++], "%s/%s", dir, e->d_name);
    }
  }
  closedir(d);
  qsort(out, (size_t)n, sizeof *out, cmp_str);
  return n;
}

static bool symbolic(const MlcPrimFunc *f) {
  for (int i = 0; i < f->n_params; i++)
    for (int d = 0; f->params[i].buf && d < f->params[i].buf->ndim; d++)
      if (f->params[i].buf->shape[d]->kind != MLC_EXPR_INT) return true;
  return false;
}

/* every prim func of every file of dir through every stage, with two
 * assignments of its symbolic sizes if it has any */
static void check_dir(const char *dir) {
  char *files[MAX_FILES];
  const MlcPrimFunc *seen[MAX_SEEN];
  int nf = list_py(dir, files, MAX_FILES), nfuncs = 0, nseen = 0;
  long inexact = 0;
  static const int64_t sizes_a[MAX_SYMS] = {3, 5, 7, 9, 11, 13, 15, 17};
  static const int64_t sizes_b[MAX_SYMS] = {1, 1, 1, 1, 1, 1, 1, 1};
  CHECK(nf > 0);
  for (int i = 0; i < nf; i++) {
    const MlcModule *m = read_path(files[i]);
    CHECK(m != NULL);
    for (int k = 0; m && k < m->n_funcs; k++) {
      if (m->funcs[k].kind != MLC_FUNC_PRIM) continue;
      const MlcPrimFunc *f = m->funcs[k].prim;
      bool again = false;
      for (int j = 0; j < nseen && !again; j++) again = mlc_prim_func_equal(seen[j], f);
      if (again) continue;
      if (nseen < MAX_SEEN) seen[nseen++] = f;
      if (UNDER_SANITIZER && work(f->body) > SAN_WORK) {
        printf("skip %s:%s: %.0f interpreted iterations are too slow under the sanitizers\n", files[i], f->name,
               work(f->body));
        continue;
      }
      bool ok = check_stages(f, sizes_a, &inexact) && (!symbolic(f) || check_stages(f, sizes_b, &inexact)) &&
                check_lowered_form(f);
      if (!ok) printf("    ... in %s\n", files[i]);
      CHECK(ok);
      nfuncs++;
    }
    free(files[i]);
  }
  CHECK(nfuncs > 0);
  if (inexact) printf("    note: %ld float elements in %s changed in the last bits across stages\n", inexact, dir);
}

static void test_golden_stages(void) { check_dir("tests/golden/roundtrip"); }
static void test_run_stages(void) { check_dir("tests/golden/run"); }

/* ---- random index arithmetic ---------------------------------------------------------------------
 * The simplifier rewrites every index; programs written by hand exercise
 * few of its rules, so random integer expressions over two loop vars (sums,
 * constant multiples, floor and truncating division and modulo by positive
 * and negative constants, the split-index pattern (a * d + b) // d, min,
 * max, select on comparisons) are stored from a loop nest, under a random
 * condition, and the nest is compared after each stage with the nest as
 * built. */

static MlcExpr *rand_cmp(MlcExpr *a, MlcExpr *b) {
  static const MlcBinOp cmps[] = {MLC_BIN_LT, MLC_BIN_LE, MLC_BIN_GT, MLC_BIN_GE, MLC_BIN_EQ, MLC_BIN_NE};
  return mlc_e_bin(ctx, cmps[(int)(urand() * 6)], a, b);
}

static MlcExpr *rand_index(MlcExpr *const *vars, int depth) {
  int64_t c = (int64_t)(urand() * 19) - 9, d = (int64_t)(urand() * 7) + 1;
  if (urand() < 0.25) d = -d;
  if (depth == 0 || urand() < 0.2)
    return urand() < 0.7 ? vars[(int)(urand() * 2)] : mlc_e_int(ctx, MLC_I32, c);
  MlcExpr *a = rand_index(vars, depth - 1), *b = rand_index(vars, depth - 1);
  switch ((int)(urand() * 12)) {
  case 0: return mlc_e_bin(ctx, MLC_BIN_ADD, a, b);
  case 1: return mlc_e_bin(ctx, MLC_BIN_SUB, a, b);
  case 2: return mlc_e_bin(ctx, MLC_BIN_MUL, a, mlc_e_int(ctx, MLC_I32, c));
  case 3: return mlc_e_bin(ctx, MLC_BIN_FLOORDIV, a, mlc_e_int(ctx, MLC_I32, d));
  case 4: return mlc_e_bin(ctx, MLC_BIN_FLOORMOD, a, mlc_e_int(ctx, MLC_I32, d));
  case 5: return mlc_e_bin(ctx, urand() < 0.5 ? MLC_BIN_DIV : MLC_BIN_MOD, a, mlc_e_int(ctx, MLC_I32, d));
  case 6: return mlc_e_bin(ctx, MLC_BIN_MIN, a, b);
  case 7: return mlc_e_bin(ctx, MLC_BIN_MAX, a, b);
  case 8: return mlc_e_select(ctx, rand_cmp(a, b), a, mlc_e_bin(ctx, MLC_BIN_ADD, b, mlc_e_int(ctx, MLC_I32, c)));
  case 9: return mlc_e_bin(ctx, MLC_BIN_ADD, mlc_e_bin(ctx, MLC_BIN_MUL, a, mlc_e_int(ctx, MLC_I32, d)), b);
  default: /* (a * d + b) // d and % d: the split-index pattern the simplifier takes apart */
    return mlc_e_bin(ctx, urand() < 0.5 ? MLC_BIN_FLOORDIV : MLC_BIN_FLOORMOD,
                     mlc_e_bin(ctx, MLC_BIN_ADD, mlc_e_bin(ctx, MLC_BIN_MUL, a, mlc_e_int(ctx, MLC_I32, d)), b),
                     mlc_e_int(ctx, MLC_I32, d));
  }
}

/* for i in range(li, li + ei): for j in range(lj, lj + ej): if cond:
 *   Out[i - li, j - lj] = e
 * with Out an (ei, ej) int32 buffer and starts li, lj in [-4, 4] */
static const MlcPrimFunc *rand_program(int n) {
  int64_t ext[2] = {(int64_t)(urand() * 6) + 1, (int64_t)(urand() * 9) + 1};
  int64_t lo[2] = {(int64_t)(urand() * 9) - 4, (int64_t)(urand() * 9) - 4};
  MlcExpr *vars[2] = {mlc_e_var(ctx, "i", MLC_I32), mlc_e_var(ctx, "j", MLC_I32)}, *idx[2];
  MlcExpr *shape[2] = {mlc_e_int(ctx, MLC_I32, ext[0]), mlc_e_int(ctx, MLC_I32, ext[1])};
  for (int k = 0; k < 2; k++) idx[k] = mlc_e_bin(ctx, MLC_BIN_SUB, vars[k], mlc_e_int(ctx, MLC_I32, lo[k]));
  MlcBuffer *out = mlc_buffer_new(ctx, "Out", MLC_I32, shape, 2, NULL, NULL, mlc_intern(ctx, "global"));
  MlcStmt *body = mlc_s_store(ctx, out, idx, 2, rand_index(vars, 5));
  if (urand() < 0.5) body = mlc_s_if(ctx, rand_cmp(rand_index(vars, 2), rand_index(vars, 2)), body, NULL);
  for (int k = 1; k >= 0; k--)
    body = mlc_s_for(ctx, vars[k], mlc_e_int(ctx, MLC_I32, lo[k]), shape[k], MLC_FOR_SERIAL, NULL, (MlcAttrs){0},
                     body);
  MlcParam param = {mlc_e_var(ctx, "out", MLC_HANDLE), out};
  return mlc_prim_func_new(ctx, mlc_internf(ctx, "random_%d", n), &param, 1, (MlcAttrs){0}, body);
}

/* A vectorized gather: for i in range(ei): for j in T.vectorized(L):
 *   Out[i, j] = In[floormod(e1, 13)] + e2
 * (under a condition on i alone, sometimes); In is the first param. */
static const MlcPrimFunc *rand_vector_program(int n) {
  static const int64_t widths[] = {2, 3, 4, 8, 16};
  int64_t ext[2] = {(int64_t)(urand() * 4) + 1, widths[(int)(urand() * 5)]};
  MlcExpr *vars[2] = {mlc_e_var(ctx, "i", MLC_I32), mlc_e_var(ctx, "j", MLC_I32)};
  MlcExpr *shape[2] = {mlc_e_int(ctx, MLC_I32, ext[0]), mlc_e_int(ctx, MLC_I32, ext[1])};
  MlcExpr *in_shape = mlc_e_int(ctx, MLC_I32, 13), *zero = mlc_e_int(ctx, MLC_I32, 0);
  MlcBuffer *in = mlc_buffer_new(ctx, "In", MLC_I32, &in_shape, 1, NULL, NULL, mlc_intern(ctx, "global"));
  MlcBuffer *out = mlc_buffer_new(ctx, "Out", MLC_I32, shape, 2, NULL, NULL, mlc_intern(ctx, "global"));
  MlcExpr *at = mlc_e_bin(ctx, MLC_BIN_FLOORMOD, rand_index(vars, 4), in_shape);
  MlcExpr *value = mlc_e_bin(ctx, MLC_BIN_ADD, mlc_e_load(ctx, in, &at, 1), rand_index(vars, 3));
  MlcStmt *body = mlc_s_store(ctx, out, vars, 2, value);
  body = mlc_s_for(ctx, vars[1], zero, shape[1], MLC_FOR_VECTORIZED, NULL, (MlcAttrs){0}, body);
  if (urand() < 0.3) body = mlc_s_if(ctx, rand_cmp(vars[0], mlc_e_int(ctx, MLC_I32, 2)), body, NULL);
  body = mlc_s_for(ctx, vars[0], zero, shape[0], MLC_FOR_SERIAL, NULL, (MlcAttrs){0}, body);
  MlcParam params[2] = {{mlc_e_var(ctx, "in", MLC_HANDLE), in}, {mlc_e_var(ctx, "out", MLC_HANDLE), out}};
  return mlc_prim_func_new(ctx, mlc_internf(ctx, "random_vector_%d", n), params, 2, (MlcAttrs){0}, body);
}

static void test_random_index_arithmetic(void) {
  long inexact = 0;
  for (int n = 0; n < 400; n++) {
    const MlcPrimFunc *f = n % 4 == 3 ? rand_vector_program(n) : rand_program(n);
    CHECK(f != NULL);
    if (!f) {
      print_error("building a random program");
      return;
    }
    if (!check_stages(f, NULL, &inexact)) {
      MlcStrBuf sb = {0};
      mlc_print_prim_func(f, &sb);
      printf("%s\n", mlc_sb_cstr(&sb));
      mlc_vec_free(&sb);
      CHECK(false);
      return;
    }
  }
}

/* ---- buffers with strides and an offset ------------------------------------------------------------ */

static const char STRIDED[] =
    "from tvm.script import tir as T\n"
    "@T.prim_func\n"
    "def strided_rows(a: T.handle, b: T.handle):\n"
    "    A = T.match_buffer(a, (4, 5), \"float32\", strides=(8, 1), elem_offset=3)\n"
    "    B = T.match_buffer(b, (5, 4), \"float32\", strides=(1, 6))\n"
    "    for i, j_0, j_1 in T.grid(4, 5, 1):\n"
    "        with T.block(\"B\"):\n"
    "            vi = T.axis.spatial(4, i)\n"
    "            vj = T.axis.spatial(5, j_0 + j_1)\n"
    "            B[vj, vi] = A[vi, vj] * T.float32(2) + A[3 - vi, 4 - vj]\n";

static void test_strided_stages(void) {
  const MlcModule *m = read_text("strided.py", STRIDED, sizeof STRIDED - 1);
  CHECK(m != NULL);
  if (!m) return;
  long inexact = 0;
  CHECK(check_stages(m->funcs[0].prim, NULL, &inexact));
  CHECK(inexact == 0);
}

/* ---- nested unrolled loops: expanded only while the copies stay small ---------------------------- */

/* 64 * 64 * 4 * 4 * 4 copies of the store if every level were expanded */
static const char UNROLL_NEST[] =
    "from tvm.script import tir as T\n"
    "@T.prim_func\n"
    "def unroll_nest(A: T.Buffer((64, 64, 4, 4, 4), \"float32\"), B: T.Buffer((64, 64, 4, 4, 4), \"float32\")):\n"
    "    for i in T.unroll(64):\n"
    "        for j in T.unroll(64):\n"
    "            for k in T.unroll(4):\n"
    "                for l in T.unroll(4):\n"
    "                    for m in T.unroll(4):\n"
    "                        with T.block(\"B\"):\n"
    "                            vi, vj, vk, vl, vm = T.axis.remap(\"SSSSS\", [i, j, k, l, m])\n"
    "                            B[vi, vj, vk, vl, vm] = A[vi, vj, vk, vl, vm] * T.float32(2) + T.float32(1)\n";

typedef struct Sizes { int64_t nodes, stores, unrolled_loops; } Sizes;
static bool size_stmt(MlcVisitor *v, const MlcStmt *s) {
  Sizes *z = v->user;
  z->nodes++;
  z->stores += s->kind == MLC_STMT_STORE;
  z->unrolled_loops += s->kind == MLC_STMT_FOR && s->loop.kind == MLC_FOR_UNROLLED;
  return true;
}
static bool size_expr(MlcVisitor *v, const MlcExpr *e) {
  ((Sizes *)v->user)->nodes++;
  return true;
}

/* five levels of 64: 64^5 copies (8.5 GB of IR) if each were expanded */
static const char UNROLL_BOMB[] =
    "from tvm.script import tir as T\n"
    "@T.prim_func\n"
    "def unroll_bomb(A: T.Buffer((64, 64, 64, 64, 64), \"float32\")):\n"
    "    for i in T.unroll(64):\n"
    "        for j in T.unroll(64):\n"
    "            for k in T.unroll(64):\n"
    "                for l in T.unroll(64):\n"
    "                    for m in T.unroll(64):\n"
    "                        with T.block(\"A\"):\n"
    "                            vi, vj, vk, vl, vm = T.axis.remap(\"SSSSS\", [i, j, k, l, m])\n"
    "                            A[vi, vj, vk, vl, vm] = A[vi, vj, vk, vl, vm] + T.float32(1)\n";

static Sizes lowered_sizes(const MlcPrimFunc *low) {
  Sizes z = {0};
  MlcVisitor v = {.user = &z, .stmt = size_stmt, .expr = size_expr};
  mlc_visit_prim_func(&v, low);
  return z;
}

static void test_unroll_bomb_stays_small(void) {
  const MlcModule *m = read_text("unroll_bomb.py", UNROLL_BOMB, sizeof UNROLL_BOMB - 1);
  CHECK(m != NULL);
  if (!m) return;
  const MlcPrimFunc *f = m->funcs[0].prim;
  const MlcPrimFunc *low = f ? mlc_lower_prim_func(ctx, f, MLC_LOWER_VECTORIZE, NULL, NULL) : NULL;
  CHECK(low != NULL);
  if (!low) return;
  Sizes z = lowered_sizes(low);
  CHECK(z.nodes <= MLC_LOWER_MAX_UNROLL_NODES);
  CHECK(z.stores >= 64 && z.unrolled_loops >= 1);
}

static void test_nested_unroll_is_capped(void) {
  const MlcModule *m = read_text("unroll_nest.py", UNROLL_NEST, sizeof UNROLL_NEST - 1);
  CHECK(m != NULL);
  if (!m) return;
  const MlcPrimFunc *low = mlc_lower_prim_func(ctx, m->funcs[0].prim, MLC_LOWER_VECTORIZE, NULL, NULL);
  CHECK(low != NULL);
  if (!low) return;
  Sizes z = lowered_sizes(low);
  /* the inner levels were expanded (64 stores), the outer two stay loops */
  CHECK(z.stores == 64);
  CHECK(z.unrolled_loops == 2);
  CHECK(z.nodes <= MLC_LOWER_MAX_UNROLL_NODES);
  /* and every stage computes what the program as written does */
  long inexact = 0;
  CHECK(check_stages(m->funcs[0].prim, NULL, &inexact));
  CHECK(inexact == 0);
}

/* ---- vectorization: done where it can be, refused with the loop's name where not ---------------- */

static void test_vectorized_becomes_vector_ops(void) {
  const MlcModule *m = read_path("tests/golden/roundtrip/loop_kinds.py");
  const MlcFunc *fn = m ? mlc_module_find(m, mlc_intern(ctx, "scale")) : NULL;
  CHECK(fn != NULL);
  if (!fn) return;
  const MlcPrimFunc *low = mlc_lower_prim_func(ctx, fn->prim, MLC_LOWER_VECTORIZE, NULL, NULL);
  CHECK(low != NULL);
  if (!low) return;
  Shape sh = lowered_shape(low);
  /* j_1 (4 lanes) became vector stores, one per copy of the unrolled i_1 (8) */
  CHECK(sh.vectorized == 0);
  CHECK(sh.vector_stores == 8);
}

/* loops, unrolled loops and stores of a lowered function */
typedef struct Count { int loops, unrolled, stores; } Count;

static bool count_stmt(MlcVisitor *v, const MlcStmt *s) {
  Count *c = v->user;
  if (s->kind == MLC_STMT_FOR) c->loops++, c->unrolled += s->loop.kind == MLC_FOR_UNROLLED;
  if (s->kind == MLC_STMT_STORE) c->stores++;
  return true;
}

static Count count_unrolled(const char *src, int64_t max_step, int explicit_) {
  char text[2048];
  snprintf(text, sizeof text, src, (long long)max_step, explicit_);
  Count c = {-1, -1, -1};
  const MlcModule *m = read_text("unroll.py", text, strlen(text));
  const MlcPrimFunc *low = m ? mlc_lower_prim_func(ctx, m->funcs[0].prim, MLC_LOWER_UNROLL, NULL, NULL) : NULL;
  if (!low) return c;
  c = (Count){0};
  MlcVisitor v = {.user = &c, .stmt = count_stmt};
  mlc_visit_prim_func(&v, low);
  return c;
}

/* pragma_auto_unroll_max_step: nests of at most that many steps under the
 * annotated loop are unrolled, expanded only with pragma_unroll_explicit,
 * and never beyond MLC_LOWER_MAX_UNROLL_STEPS statements per expansion
 * (the numbers are worked out by hand from the program; the interpreter
 * checks the stages on tests/golden/roundtrip/auto_unroll.py) */
static const char *unroll_src =
    "from tvm.script import tir as T\n"
    "@T.prim_func\n"
    "def u(A: T.Buffer((8192,), \"float32\")):\n"
    "    for i in T.serial(2, annotations={\"pragma_auto_unroll_max_step\": %lld, \"pragma_unroll_explicit\": %d}):\n"
    "        for j, k in T.grid(64, 64):\n"
    "            with T.block(\"A\"):\n"
    "                vi, vj, vk = T.axis.remap(\"SSS\", [i, j, k])\n"
    "                A[vi * 4096 + vj * 64 + vk] = T.float32(1)\n";

/* the same pragmas on the root block reach its outer loop */
static const char *unroll_root_src =
    "from tvm.script import tir as T\n"
    "@T.prim_func\n"
    "def u(A: T.Buffer((8192,), \"float32\")):\n"
    "    with T.block(\"root\"):\n"
    "        T.block_attr({\"pragma_auto_unroll_max_step\": %lld, \"pragma_unroll_explicit\": %d})\n"
    "        for i, j, k in T.grid(2, 64, 64):\n"
    "            with T.block(\"A\"):\n"
    "                vi, vj, vk = T.axis.remap(\"SSS\", [i, j, k])\n"
    "                A[vi * 4096 + vj * 64 + vk] = T.float32(1)\n";

static void test_auto_unroll(void) {
  Count r = count_unrolled(unroll_root_src, 64, 1);
  CHECK(r.loops == 2 && r.unrolled == 0 && r.stores == 64);
  r = count_unrolled(unroll_root_src, 4096, 0);
  CHECK(r.loops == 3 && r.unrolled == 2 && r.stores == 1);
  /* 64 steps: k expanded, i and j stay loops */
  Count c = count_unrolled(unroll_src, 64, 1);
  CHECK(c.loops == 2 && c.unrolled == 0 && c.stores == 64);
  /* nothing fits in 63 steps but the store itself: no change */
  c = count_unrolled(unroll_src, 63, 1);
  CHECK(c.loops == 3 && c.unrolled == 0 && c.stores == 1);
  /* left to the C compiler: k and j marked, not expanded */
  c = count_unrolled(unroll_src, 4096, 0);
  CHECK(c.loops == 3 && c.unrolled == 2 && c.stores == 1);
  /* 4096 steps allowed, but j's expansion (4096 statements) passes the cap:
   * j stays an unrolled loop around k's 64 copies */
  c = count_unrolled(unroll_src, 4096, 1);
  CHECK(MLC_LOWER_MAX_UNROLL_STEPS < 4096);
  CHECK(c.loops == 2 && c.unrolled == 1 && c.stores == 64);
}

#define VEC_PROGRAM(name, params, body)                                                  \
  "from tvm.script import tir as T\n"                                                    \
  "@T.prim_func\n"                                                                       \
  "def " name "(" params "):\n" body

static const struct Refusal {
  const char *name, *text, *want1, *want2;
} refusals[] = {
    {"reduce_init",
     VEC_PROGRAM("reduce_init", "A: T.Buffer((4, 8), \"float32\"), S: T.Buffer((4,), \"float32\")",
                 "    for i in range(4):\n"
                 "        for k in T.vectorized(8):\n"
                 "            with T.block(\"S\"):\n"
                 "                vi, vk = T.axis.remap(\"SR\", [i, k])\n"
                 "                with T.init():\n"
                 "                    S[vi] = T.float32(0)\n"
                 "                S[vi] = S[vi] + A[vi, vk]\n"),
     "loop 'k'", "cannot vectorize"},
    {"reduce_into_one",
     VEC_PROGRAM("reduce_into_one", "A: T.Buffer((4, 8), \"float32\"), S: T.Buffer((4,), \"float32\")",
                 "    for i in range(4):\n"
                 "        for k in T.vectorized(8):\n"
                 "            with T.block(\"S\"):\n"
                 "                vi, vk = T.axis.remap(\"SS\", [i, k])\n"
                 "                S[vi] = S[vi] + A[vi, vk]\n"),
     "loop 'k'", "same element"},
    {"invariant_update",
     VEC_PROGRAM("invariant_update", "S: T.Buffer((4,), \"float32\")",
                 "    for i in range(4):\n"
                 "        for k in T.vectorized(8):\n"
                 "            with T.block(\"S\"):\n"
                 "                vi, vk = T.axis.remap(\"SS\", [i, k])\n"
                 "                S[vi] = S[vi] + T.float32(1)\n"),
     "loop 'k'", "element of buffer 'S'"},
    {"too_wide",
     VEC_PROGRAM("too_wide", "A: T.Buffer((128,), \"float32\"), B: T.Buffer((128,), \"float32\")",
                 "    for j in T.vectorized(128):\n"
                 "        with T.block(\"B\"):\n"
                 "            vj = T.axis.spatial(128, j)\n"
                 "            B[vj] = A[vj]\n"),
     "loop 'j'", "128"},
    {"symbolic_extent",
     VEC_PROGRAM("symbolic_extent", "a: T.handle, b: T.handle",
                 "    n = T.int64()\n"
                 "    A = T.match_buffer(a, (n,), \"float32\")\n"
                 "    B = T.match_buffer(b, (n,), \"float32\")\n"
                 "    for j in T.vectorized(n):\n"
                 "        with T.block(\"B\"):\n"
                 "            vj = T.axis.spatial(n, j)\n"
                 "            B[vj] = A[vj]\n"),
     "loop 'j'", "not a constant"},
};

/* vectors wider than MLC_LOWER_MAX_VECTOR_BYTES become chunks of that
 * width: 32 float32 lanes are two 16-lane stores (in the i loop), 16 float64 lanes two of
 * 8; 8 float32 lanes stay one store.  The interpreter checks the chunks
 * compute what the loop does. */
static void test_vectorize_chunks(void) {
  static const struct { const char *text; int stores, lanes; } cases[] = {
      {VEC_PROGRAM("w32", "A: T.Buffer((64,), \"float32\"), B: T.Buffer((64,), \"float32\")",
                   "    for i in range(2):\n"
                   "        for j in T.vectorized(32):\n"
                   "            with T.block(\"B\"):\n"
                   "                vi, vj = T.axis.remap(\"SS\", [i, j])\n"
                   "                B[vi * 32 + vj] = A[vi * 32 + vj] * T.float32(3)\n"),
       2, 16},
      {VEC_PROGRAM("w16d", "A: T.Buffer((16,), \"float64\"), B: T.Buffer((16,), \"float32\")",
                   "    for j in T.vectorized(16):\n"
                   "        with T.block(\"B\"):\n"
                   "            vj = T.axis.spatial(16, j)\n"
                   "            B[vj] = T.Cast(\"float32\", A[vj])\n"),
       2, 8},
      {VEC_PROGRAM("w8", "A: T.Buffer((8,), \"float32\"), B: T.Buffer((8,), \"float32\")",
                   "    for j in T.vectorized(8):\n"
                   "        with T.block(\"B\"):\n"
                   "            vj = T.axis.spatial(8, j)\n"
                   "            B[vj] = A[7 - vj]\n"),
       1, 8},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    const MlcModule *m = read_text("chunks.py", cases[i].text, strlen(cases[i].text));
    const MlcPrimFunc *low = m ? mlc_lower_prim_func(ctx, m->funcs[0].prim, MLC_LOWER_VECTORIZE, NULL, NULL) : NULL;
    CHECK(low != NULL);
    if (!low) continue;
    Shape sh = lowered_shape(low);
    CHECK(sh.vectorized == 0);
    CHECK(sh.vector_stores == cases[i].stores);
    CHECK(sh.widest_store == cases[i].lanes);
    long inexact = 0;
    CHECK(check_stages(m->funcs[0].prim, (int64_t[]){8}, &inexact));
  }
}

/* the init of a reduction leaves its loop: after simplify no if is left
 * in the k loops of a matmul with T.init (one over k, one over k0, k1), and
 * the interpreter checks every stage */
static bool count_if(MlcVisitor *v, const MlcStmt *s) {
  if (s->kind == MLC_STMT_IF) ++*(int *)v->user;
  return true;
}

static void test_init_out_of_loop(void) {
  static const char *const texts[] = {
      VEC_PROGRAM("mm", "A: T.Buffer((8, 8), \"float32\"), B: T.Buffer((8, 8), \"float32\"), C: T.Buffer((8, 8), \"float32\")",
                  "    for i, j, k in T.grid(8, 8, 8):\n"
                  "        with T.block(\"C\"):\n"
                  "            vi, vj, vk = T.axis.remap(\"SSR\", [i, j, k])\n"
                  "            with T.init():\n"
                  "                C[vi, vj] = T.float32(1)\n"
                  "            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]\n"),
      VEC_PROGRAM("mm2", "A: T.Buffer((8, 8), \"float32\"), C: T.Buffer((8,), \"float32\")",
                  "    for i, k0, k1 in T.grid(8, 2, 4):\n"
                  "        with T.block(\"C\"):\n"
                  "            vi, vk0, vk1 = T.axis.remap(\"SRR\", [i, k0, k1])\n"
                  "            with T.init():\n"
                  "                C[vi] = T.float32(0)\n"
                  "            C[vi] = C[vi] + A[vi, vk0 * 4 + vk1]\n"),
  };
  for (size_t i = 0; i < sizeof texts / sizeof *texts; i++) {
    const MlcModule *m = read_text("init.py", texts[i], strlen(texts[i]));
    const MlcPrimFunc *low = m ? mlc_lower_prim_func(ctx, m->funcs[0].prim, MLC_LOWER_SIMPLIFY, NULL, NULL) : NULL;
    CHECK(low != NULL);
    if (!low) continue;
    int ifs = 0;
    MlcVisitor v = {.user = &ifs, .stmt = count_if};
    mlc_visit_prim_func(&v, low);
    CHECK(ifs == 0);
    long inexact = 0;
    CHECK(check_stages(m->funcs[0].prim, (int64_t[]){8}, &inexact));
  }
}

static void test_vectorize_refusals(void) {
  for (size_t i = 0; i < sizeof refusals / sizeof *refusals; i++) {
    const struct Refusal *r = &refusals[i];
    const MlcModule *m = read_text(r->name, r->text, strlen(r->text));
    CHECK(m != NULL);
    if (!m) continue;
    const MlcPrimFunc *f = m->funcs[0].prim;
    /* the stages before vectorizing accept it */
    CHECK(mlc_lower_prim_func(ctx, f, MLC_LOWER_SIMPLIFY, NULL, NULL) != NULL);
    mlc_clear_error(ctx);
    const MlcPrimFunc *low = mlc_lower_prim_func(ctx, f, MLC_LOWER_VECTORIZE, NULL, NULL);
    const char *msg = mlc_error_msg(ctx);
    bool ok = !low && msg && strstr(msg, r->want1) && strstr(msg, r->want2);
    if (!ok) printf("    %s: %s\n", r->name, low ? "was vectorized" : msg ? msg : "(no message)");
    CHECK(ok);
  }
}

int main(void) {
  ctx = mlc_ctx_new();
  RUN(test_golden_stages);
  RUN(test_run_stages);
  RUN(test_random_index_arithmetic);
  RUN(test_strided_stages);
  RUN(test_nested_unroll_is_capped);
  RUN(test_unroll_bomb_stays_small);
  RUN(test_vectorized_becomes_vector_ops);
  RUN(test_vectorize_refusals);
  RUN(test_auto_unroll);
  RUN(test_vectorize_chunks);
  RUN(test_init_out_of_loop);
  mlc_ctx_free(ctx);
  return CHECK_DONE();
}
