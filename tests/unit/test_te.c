/* test_te.c - tensor expressions against hand-written TVMScript and plain C.
 *
 * Each program is built with the TE builders and converted to a prim func,
 * then checked three ways: (a) it is structurally equal to the TVMScript a
 * person would write for it (read with the text reader, not built by TE);
 * (b) run in the reference interpreter on random data it matches a loop nest
 * written in C below (rtol 1e-5); (c) it prints and reads back equal.  The
 * errors a definition can make (a read of the wrong rank, a body using
 * another compute's index var, a placeholder that is not a param) must come
 * back as messages at the build location. */
#include "check.h"
#include "mlcc/interp.h"
#include "mlcc/te.h"
#include "mlcc/text.h"

#include <float.h>
#include <math.h>

static MlcCtx *ctx;

/* ---- helpers -------------------------------------------------------------------- */

static uint64_t rng = 0x2545f4914f6cdd1dull;
static float frand(void) { /* [-2, 2) */
  rng = rng * 6364136223846793005ull + 1442695040888963407ull;
  return (float)((double)(rng >> 11) / 9007199254740992.0 * 4.0 - 2.0);
}
static float *fbuf(size_t n) {
  float *p = malloc(n * sizeof *p);
  for (size_t i = 0; i < n; i++) p[i] = frand();
  return p;
}

static void show_error(void) {
  MlcStrBuf sb = {0};
  mlc_format_error(ctx, &sb);
  printf("    %s\n", mlc_sb_cstr(&sb));
  mlc_vec_free(&sb);
}

static MlcExpr *i64(int64_t v) { return mlc_e_int(ctx, MLC_I64, v); }
static MlcExpr *f32(double v) { return mlc_e_float(ctx, MLC_F32, v); }
static MlcExpr *bin(MlcBinOp op, MlcExpr *a, MlcExpr *b) { return mlc_e_bin(ctx, op, a, b); }
static MlcExpr *rd(const MlcTeTensor *t, MlcExpr *a, MlcExpr *b) {
  MlcExpr *idx[2] = {a, b};
  return mlc_te_read(ctx, t, idx, b ? 2 : 1);
}

static MlcModule *wrap(MlcPrimFunc *f) {
  if (!f) return NULL;
  MlcFunc fn = {.kind = MLC_FUNC_PRIM, .name = f->name, .prim = f};
  return mlc_module_new(ctx, "Module", &fn, 1, (MlcAttrs){0});
}

/* (a): equal to the hand-written text, the first difference shown if not */
static bool equals_text(const MlcPrimFunc *f, const char *text) {
  MlcModule *want = mlc_read_module(ctx, "<expected>", text, strlen(text));
  if (!want) return show_error(), false;
  MlcDiff d = {0};
  bool same = mlc_module_equal_diff(wrap((MlcPrimFunc *)f), want, &d);
  if (!same) {
    MlcStrBuf got = {0};
    mlc_print_prim_func(f, &got);
    printf("    differ at %s\n%s\n", mlc_sb_cstr(&d.path), mlc_sb_cstr(&got));
    mlc_vec_free(&got);
  }
  mlc_diff_free(&d);
  return same;
}

/* (c): prints and reads back structurally equal */
static bool round_trips(MlcPrimFunc *f) {
  MlcModule *m = wrap(f);
  MlcStrBuf text = {0};
  mlc_print_module(m, &text);
  MlcModule *again = mlc_read_module(ctx, "<printed>", text.data, text.len);
  bool ok = again && mlc_module_equal(m, again);
  if (!ok) {
    if (!again) show_error();
    printf("%s\n", mlc_sb_cstr(&text));
  }
  mlc_vec_free(&text);
  return ok;
}

static MlcInterpArg arg(void *data, int ndim, const int64_t *shape) {
  return (MlcInterpArg){.is_buffer = true, .data = data, .ndim = ndim, .shape = shape};
}

static bool run(const MlcPrimFunc *f, const MlcInterpArg *args, int n) {
  if (!f) return false;
  bool ok = mlc_interp_run(ctx, f, args, n);
  if (!ok) show_error();
  return ok;
}

static bool close_all(const float *got, const float *want, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (!(fabsf(got[i] - want[i]) <= 1e-5f * (1.0f + fabsf(want[i])))) {
      printf("    element %zu: %.9g, expected %.9g\n", i, got[i], want[i]);
      return false;
    }
  return true;
}

/* the names of the blocks of a converted function, in order */
static int block_names(const MlcPrimFunc *f, const char **out, int cap) {
  const MlcStmt *body = f->body->realize.block->body;
  int n = body->kind == MLC_STMT_SEQ ? body->seq.n : 1;
  for (int i = 0; i < n && i < cap; i++) {
    const MlcStmt *s = body->kind == MLC_STMT_SEQ ? body->seq.items[i] : body;
    while (s->kind == MLC_STMT_FOR) s = s->loop.body;
    out[i] = s->kind == MLC_STMT_BLOCK_REALIZE ? s->realize.block->name : "?";
  }
  return n;
}

/* ---- programs -------------------------------------------------------------------- */

/* C[i, j] = sum over k of A[i, k] * B[k, j] */
static MlcPrimFunc *matmul(int64_t m, int64_t k, int64_t n) {
  MlcExpr *sa[2] = {i64(m), i64(k)}, *sb[2] = {i64(k), i64(n)}, *sc[2] = {i64(m), i64(n)};
  MlcTeTensor *a = mlc_te_placeholder(ctx, "A", sa, 2, MLC_F32);
  MlcTeTensor *b = mlc_te_placeholder(ctx, "B", sb, 2, MLC_F32);
  MlcExpr *ax[2] = {mlc_te_var(ctx, "i"), mlc_te_var(ctx, "j")}, *r[1] = {mlc_te_var(ctx, "k")};
  MlcExpr *body = bin(MLC_BIN_MUL, rd(a, ax[0], r[0]), rd(b, r[0], ax[1]));
  MlcExpr *rext[1] = {i64(k)};
  MlcTeTensor *c = mlc_te_reduce(ctx, "C", sc, 2, ax, MLC_TE_SUM, body, r, rext, 1);
  MlcTeTensor *params[3] = {a, b, c};
  return c ? mlc_te_to_prim_func(ctx, "mm", params, 3) : NULL;
}

static const char *matmul_text =
    "from tvm.script import tir as T\n"
    "@T.prim_func\n"
    "def mm(A: T.Buffer((T.int64(4), T.int64(8)), \"float32\"),\n"
    "       B: T.Buffer((T.int64(8), T.int64(6)), \"float32\"),\n"
    "       C: T.Buffer((T.int64(4), T.int64(6)), \"float32\")):\n"
    "    T.func_attr({\"global_symbol\": \"mm\", \"tir.noalias\": True})\n"
    "    for i, j, k in T.grid(T.int64(4), T.int64(6), T.int64(8)):\n"
    "        with T.block(\"C\"):\n"
    "            vi, vj, vk = T.axis.remap(\"SSR\", [i, j, k])\n"
    "            with T.init():\n"
    "                C[vi, vj] = T.float32(0)\n"
    "            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]\n";

static void test_matmul_text(void) {
  MlcPrimFunc *f = matmul(4, 8, 6);
  CHECK(f && equals_text(f, matmul_text));
  CHECK(f && round_trips(f));
  /* converting again builds an independent, equal function */
  MlcPrimFunc *g = matmul(4, 8, 6);
  CHECK(f && g && f != g && mlc_prim_func_equal(f, g));
}

static void test_matmul_numbers(void) {
  enum { M = 5, K = 7, N = 3 };
  MlcPrimFunc *f = matmul(M, K, N);
  float *a = fbuf(M * K), *b = fbuf(K * N), c[M * N], want[M * N];
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++) {
      float s = 0;
      for (int k = 0; k < K; k++) s += a[i * K + k] * b[k * N + j];
      want[i * N + j] = s;
    }
  int64_t sa[2] = {M, K}, sb[2] = {K, N}, sc[2] = {M, N};
  MlcInterpArg args[3] = {arg(a, 2, sa), arg(b, 2, sb), arg(c, 2, sc)};
  CHECK(run(f, args, 3) && close_all(c, want, M * N));
  free(a), free(b);
}

/* R[i] = max (or min) over k of A[i, k] */
static MlcPrimFunc *reduce_rows(MlcTeReduce op, const char *name, int64_t m, int64_t n) {
  MlcExpr *sa[2] = {i64(m), i64(n)}, *sr[1] = {i64(m)};
  MlcTeTensor *a = mlc_te_placeholder(ctx, "A", sa, 2, MLC_F32);
  MlcExpr *ax[1] = {mlc_te_var(ctx, "i")}, *r[1] = {mlc_te_var(ctx, "k")}, *rext[1] = {i64(n)};
  MlcTeTensor *out = mlc_te_reduce(ctx, "R", sr, 1, ax, op, rd(a, ax[0], r[0]), r, rext, 1);
  MlcTeTensor *params[2] = {a, out};
  return out ? mlc_te_to_prim_func(ctx, name, params, 2) : NULL;
}

static void test_max_min_axis(void) {
  enum { M = 6, N = 9 };
  MlcPrimFunc *fmax = reduce_rows(MLC_TE_MAX, "row_max", M, N), *fmin = reduce_rows(MLC_TE_MIN, "row_min", M, N);
  float *a = fbuf(M * N), got[M], want_max[M], want_min[M];
  for (int i = 0; i < M; i++) {
    want_max[i] = -FLT_MAX, want_min[i] = FLT_MAX;
    for (int k = 0; k < N; k++) want_max[i] = fmaxf(want_max[i], a[i * N + k]), want_min[i] = fminf(want_min[i], a[i * N + k]);
  }
  int64_t sa[2] = {M, N}, sr[1] = {M};
  MlcInterpArg args[2] = {arg(a, 2, sa), arg(got, 1, sr)};
  CHECK(run(fmax, args, 2) && close_all(got, want_max, M));
  CHECK(run(fmin, args, 2) && close_all(got, want_min, M));
  CHECK(fmax && round_trips(fmax));
  CHECK(fmin && round_trips(fmin));
  /* a row of all -inf has max -inf (IEEE), not the lowest finite float */
  for (int j = 0; j < N; j++) a[j] = -INFINITY;
  CHECK(run(fmax, args, 2) && got[0] == -INFINITY);
  /* so the init of a float max is -inf */
  const MlcStmt *s = fmax ? fmax->body->realize.block->body : NULL;
  while (s && s->kind == MLC_STMT_FOR) s = s->loop.body;
  const MlcStmt *init = s && s->kind == MLC_STMT_BLOCK_REALIZE ? s->realize.block->init : NULL;
  CHECK(init && init->kind == MLC_STMT_STORE && init->store.value->kind == MLC_EXPR_FLOAT &&
        init->store.value->float_val == -INFINITY);
  free(a);
}

/* softmax over rows in four computes: max, exp(x - max), sum, divide; only
 * the input and the result are params */
static MlcPrimFunc *softmax(int64_t m, int64_t n) {
  MlcExpr *s2[2] = {i64(m), i64(n)}, *s1[1] = {i64(m)}, *rext[1] = {i64(n)};
  MlcTeTensor *a = mlc_te_placeholder(ctx, "A", s2, 2, MLC_F32);
  MlcExpr *i = mlc_te_var(ctx, "i"), *j = mlc_te_var(ctx, "j"), *k = mlc_te_var(ctx, "k");
  MlcExpr *ax1[1] = {i}, *ax2[2] = {i, j}, *r[1] = {k};
  MlcTeTensor *mx = mlc_te_reduce(ctx, "max", s1, 1, ax1, MLC_TE_MAX, rd(a, i, k), r, rext, 1);
  MlcExpr *shifted = bin(MLC_BIN_SUB, rd(a, i, j), rd(mx, i, NULL));
  MlcTeTensor *ex = mlc_te_compute(ctx, "exp", s2, 2, ax2, mlc_e_call(ctx, MLC_INTRIN_EXP, &shifted, 1));
  MlcTeTensor *sum = mlc_te_reduce(ctx, "sum", s1, 1, ax1, MLC_TE_SUM, rd(ex, i, k), r, rext, 1);
  MlcTeTensor *out = mlc_te_compute(ctx, "divide", s2, 2, ax2, bin(MLC_BIN_DIV, rd(ex, i, j), rd(sum, i, NULL)));
  MlcTeTensor *params[2] = {a, out};
  return out ? mlc_te_to_prim_func(ctx, "softmax", params, 2) : NULL;
}

static void test_softmax_chain(void) {
  enum { M = 3, N = 10 };
  MlcPrimFunc *f = softmax(M, N);
  CHECK(f);
  if (!f) return show_error();
  const char *names[8];
  int nb = block_names(f, names, 8);
  CHECK(nb == 4 && !strcmp(names[0], "max") && !strcmp(names[1], "exp") && !strcmp(names[2], "sum") &&
        !strcmp(names[3], "divide"));
  CHECK(f->body->realize.block->n_allocs == 3);
  float *a = fbuf(M * N), got[M * N], want[M * N];
  for (int i = 0; i < M; i++) {
    float mx = -FLT_MAX, s = 0;
    for (int j = 0; j < N; j++) mx = fmaxf(mx, a[i * N + j]);
    for (int j = 0; j < N; j++) s += want[i * N + j] = expf(a[i * N + j] - mx);
    for (int j = 0; j < N; j++) want[i * N + j] /= s;
  }
  int64_t sh[2] = {M, N};
  MlcInterpArg args[2] = {arg(a, 2, sh), arg(got, 2, sh)};
  CHECK(run(f, args, 2) && close_all(got, want, M * N));
  CHECK(round_trips(f));
  free(a);
}

/* Z[i0, i1] = max(X[i0, i1] + y[i1], 0) with X, Z of n rows */
static MlcPrimFunc *add_relu(MlcExpr *n) {
  MlcExpr *s2[2] = {n, i64(16)}, *s1[1] = {i64(16)};
  MlcTeTensor *x = mlc_te_placeholder(ctx, "X", s2, 2, MLC_F32);
  MlcTeTensor *y = mlc_te_placeholder(ctx, "y", s1, 1, MLC_F32);
  MlcExpr *ax[2] = {mlc_te_var(ctx, "i0"), mlc_te_var(ctx, "i1")};
  MlcExpr *body = bin(MLC_BIN_MAX, bin(MLC_BIN_ADD, rd(x, ax[0], ax[1]), rd(y, ax[1], NULL)), f32(0));
  MlcTeTensor *z = mlc_te_compute(ctx, "Z", s2, 2, ax, body);
  MlcTeTensor *params[3] = {x, y, z};
  return z ? mlc_te_to_prim_func(ctx, "add_relu", params, 3) : NULL;
}

static const char *add_relu_text =
    "from tvm.script import tir as T\n"
    "@T.prim_func\n"
    "def add_relu(x: T.handle, y: T.Buffer((T.int64(16),), \"float32\"), z: T.handle):\n"
    "    T.func_attr({\"global_symbol\": \"add_relu\", \"tir.noalias\": True})\n"
    "    n = T.int64()\n"
    "    X = T.match_buffer(x, (n, T.int64(16)))\n"
    "    Z = T.match_buffer(z, (n, T.int64(16)))\n"
    "    for i0, i1 in T.grid(n, T.int64(16)):\n"
    "        with T.block(\"Z\"):\n"
    "            v0, v1 = T.axis.remap(\"SS\", [i0, i1])\n"
    "            Z[v0, v1] = T.max(X[v0, v1] + y[v1], T.float32(0))\n";

/* the same, with the size met first in a parameter's buffer shape */
static const char *add_relu_text_implicit =
    "from tvm.script import tir as T\n"
    "@T.prim_func\n"
    "def add_relu(X: T.Buffer((n, T.int64(16)), \"float32\"), y: T.Buffer((T.int64(16),), \"float32\"),\n"
    "             Z: T.Buffer((n, T.int64(16)), \"float32\")):\n"
    "    T.func_attr({\"global_symbol\": \"add_relu\", \"tir.noalias\": True})\n"
    "    for i0, i1 in T.grid(n, T.int64(16)):\n"
    "        with T.block(\"Z\"):\n"
    "            v0, v1 = T.axis.remap(\"SS\", [i0, i1])\n"
    "            Z[v0, v1] = T.max(X[v0, v1] + y[v1], T.float32(0))\n";

static void test_symbolic_elementwise(void) {
  MlcPrimFunc *f = add_relu(mlc_e_var(ctx, "n", MLC_I64));
  CHECK(f && equals_text(f, add_relu_text));
  CHECK(f && equals_text(f, add_relu_text_implicit));
  CHECK(f && round_trips(f));
  for (int rows = 1; rows <= 5; rows += 4) {
    float *x = fbuf((size_t)rows * 16), *y = fbuf(16), *z = malloc((size_t)rows * 16 * sizeof *z),
          *want = malloc((size_t)rows * 16 * sizeof *want);
    for (int i = 0; i < rows * 16; i++) want[i] = fmaxf(x[i] + y[i % 16], 0.0f);
    int64_t sx[2] = {rows, 16}, sy[1] = {16};
    MlcInterpArg args[3] = {arg(x, 2, sx), arg(y, 1, sy), arg(z, 2, sx)};
    CHECK(run(f, args, 3) && close_all(z, want, (size_t)rows * 16));
    free(x), free(y), free(z), free(want);
  }
}

/* an int32 index is widened, so a constant column reads as T.int64 */
static void test_int32_index_widened(void) {
  MlcExpr *s2[2] = {i64(3), i64(4)}, *s1[1] = {i64(3)};
  MlcTeTensor *a = mlc_te_placeholder(ctx, "A", s2, 2, MLC_F32);
  MlcExpr *ax[1] = {mlc_te_var(ctx, "i")};
  MlcTeTensor *col = mlc_te_compute(ctx, "col", s1, 1, ax, rd(a, ax[0], mlc_e_int(ctx, MLC_I32, 2)));
  MlcTeTensor *params[2] = {a, col};
  MlcPrimFunc *f = col ? mlc_te_to_prim_func(ctx, "col", params, 2) : NULL;
  CHECK(f);
  if (!f) return show_error();
  float *in = fbuf(12), got[3], want[3] = {in[2], in[6], in[10]};
  int64_t sa[2] = {3, 4}, sc[1] = {3};
  MlcInterpArg args[2] = {arg(in, 2, sa), arg(got, 1, sc)};
  CHECK(run(f, args, 2) && close_all(got, want, 3));
  free(in);
}

/* a reduction to a scalar: a block with reduce iter vars only */
static void test_scalar_reduction(void) {
  MlcExpr *s2[2] = {i64(4), i64(5)}, *rext[2] = {i64(4), i64(5)};
  MlcTeTensor *a = mlc_te_placeholder(ctx, "A", s2, 2, MLC_F32);
  MlcExpr *r[2] = {mlc_te_var(ctx, "i"), mlc_te_var(ctx, "k")};
  MlcTeTensor *total = mlc_te_reduce(ctx, "total", NULL, 0, NULL, MLC_TE_SUM, rd(a, r[0], r[1]), r, rext, 2);
  MlcTeTensor *params[2] = {a, total};
  MlcPrimFunc *f = total ? mlc_te_to_prim_func(ctx, "total", params, 2) : NULL;
  CHECK(f);
  if (!f) return show_error();
  float *in = fbuf(20), got[1], want[1] = {0};
  for (int i = 0; i < 20; i++) want[0] += in[i];
  int64_t sa[2] = {4, 5}, none[1] = {0};
  MlcInterpArg args[2] = {arg(in, 2, sa), arg(got, 0, none)};
  CHECK(run(f, args, 2) && close_all(got, want, 1));
  CHECK(round_trips(f));
  free(in);
}

/* two tensors of one name: blocks and buffers get distinct names */
static void test_name_clash(void) {
  MlcExpr *s1[1] = {i64(8)};
  MlcTeTensor *a = mlc_te_placeholder(ctx, "A", s1, 1, MLC_F32);
  MlcExpr *i = mlc_te_var(ctx, "i"), *ax[1] = {i};
  MlcTeTensor *b = mlc_te_compute(ctx, "T", s1, 1, ax, bin(MLC_BIN_ADD, rd(a, i, NULL), f32(1)));
  MlcTeTensor *c = mlc_te_compute(ctx, "T", s1, 1, ax, bin(MLC_BIN_MUL, rd(b, i, NULL), f32(2)));
  MlcTeTensor *params[2] = {a, c};
  MlcPrimFunc *f = c ? mlc_te_to_prim_func(ctx, "twice", params, 2) : NULL;
  CHECK(f);
  if (!f) return show_error();
  const char *names[4];
  CHECK(block_names(f, names, 4) == 2 && strcmp(names[0], names[1]) != 0);
  CHECK(round_trips(f));
  float *in = fbuf(8), got[8], want[8];
  for (int k = 0; k < 8; k++) want[k] = (in[k] + 1) * 2;
  int64_t sh[1] = {8};
  MlcInterpArg args[2] = {arg(in, 1, sh), arg(got, 1, sh)};
  CHECK(run(f, args, 2) && close_all(got, want, 8));
  free(in);
}

/* ---- errors --------------------------------------------------------------------- */

static const MlcLoc here = {NULL, 12, 5};

static bool error_is(const char *want) {
  const char *msg = mlc_error_msg(ctx);
  MlcLoc loc = mlc_error_loc(ctx);
  bool ok = msg && strstr(msg, want) && loc.line == here.line && loc.col == here.col && loc.file == ctx->build_loc.file;
  if (!ok) printf("    got '%s' at %d:%d\n", msg ? msg : "(none)", loc.line, loc.col);
  mlc_clear_error(ctx);
  return ok;
}

static void at_here(void) {
  mlc_clear_error(ctx);
  ctx->build_loc = here;
  ctx->build_loc.file = mlc_intern(ctx, "model.onnx");
}

static void test_error_read_arity(void) {
  at_here();
  MlcExpr *s2[2] = {i64(3), i64(4)};
  MlcTeTensor *a = mlc_te_placeholder(ctx, "A", s2, 2, MLC_F32);
  MlcExpr *i = mlc_te_var(ctx, "i");
  CHECK(rd(a, i, NULL) == NULL);
  CHECK(error_is("tensor 'A' has 2 dimensions but is read with 1 index"));
  /* the failure flows through the builders: the compute is refused silently */
  MlcExpr *ax[1] = {i};
  CHECK(mlc_te_compute(ctx, "B", s2, 1, ax, rd(a, i, NULL)) == NULL);
  CHECK(mlc_has_error(ctx) && strstr(mlc_error_msg(ctx), "read with 1 index"));
  mlc_clear_error(ctx);
}

static void test_error_foreign_index_var(void) {
  at_here();
  MlcExpr *s2[2] = {i64(3), i64(4)}, *s1[1] = {i64(3)};
  MlcTeTensor *a = mlc_te_placeholder(ctx, "A", s2, 2, MLC_F32);
  MlcExpr *i = mlc_te_var(ctx, "i"), *j = mlc_te_var(ctx, "j");
  MlcExpr *ax2[2] = {i, j};
  CHECK(mlc_te_compute(ctx, "B", s2, 2, ax2, rd(a, i, j)) != NULL);
  /* C is over i only, but its body reads B's j */
  MlcExpr *other = mlc_te_var(ctx, "i"), *ax1[1] = {other};
  CHECK(mlc_te_compute(ctx, "C", s1, 1, ax1, rd(a, other, j)) == NULL);
  CHECK(error_is("compute 'C' reads var 'j', which is not one of its index vars"));
  /* an axis given twice */
  MlcExpr *twice[2] = {i, i};
  CHECK(mlc_te_compute(ctx, "D", s2, 2, twice, rd(a, i, i)) == NULL);
  CHECK(error_is("compute 'D' uses var 'i' as two of its axes"));
}

static void test_error_placeholder_not_param(void) {
  MlcExpr *s2[2] = {i64(2), i64(2)}, *rext[1] = {i64(2)};
  MlcTeTensor *a = mlc_te_placeholder(ctx, "A", s2, 2, MLC_F32);
  MlcTeTensor *b = mlc_te_placeholder(ctx, "B", s2, 2, MLC_F32);
  MlcExpr *ax[2] = {mlc_te_var(ctx, "i"), mlc_te_var(ctx, "j")}, *r[1] = {mlc_te_var(ctx, "k")};
  MlcTeTensor *c = mlc_te_reduce(ctx, "C", s2, 2, ax, MLC_TE_SUM,
                                 bin(MLC_BIN_MUL, rd(a, ax[0], r[0]), rd(b, r[0], ax[1])), r, rext, 1);
  at_here();
  MlcTeTensor *only_b[2] = {b, c};
  CHECK(mlc_te_to_prim_func(ctx, "mm", only_b, 2) == NULL);
  CHECK(error_is("compute 'C' reads placeholder 'A', which is not a param of 'mm'"));
  MlcTeTensor *dup[3] = {a, a, c};
  CHECK(mlc_te_to_prim_func(ctx, "mm", dup, 3) == NULL);
  CHECK(error_is("tensor 'A' is given twice as a param of 'mm'"));
  MlcTeTensor *inputs[2] = {a, b};
  CHECK(mlc_te_to_prim_func(ctx, "mm", inputs, 2) == NULL);
  CHECK(error_is("none of its params is a compute"));
  /* a tensor struct whose buffer no TE builder made */
  MlcTeTensor fake = *a;
  fake.buffer = mlc_buffer_new(ctx, "A", MLC_F32, s2, 2, NULL, NULL, "global");
  MlcTeTensor *with_fake[3] = {&fake, b, c};
  CHECK(mlc_te_to_prim_func(ctx, "mm", with_fake, 3) == NULL);
  CHECK(error_is("param 0 of 'mm' is not a tensor expression"));
}

/* the identities of max / min reductions, per dtype */
static void test_extreme_values(void) {
  MlcExpr *e;
  CHECK((e = mlc_te_min_value(ctx, MLC_F32)) && e->float_val == -FLT_MAX);
  CHECK((e = mlc_te_max_value(ctx, MLC_F64)) && e->float_val == DBL_MAX);
  CHECK((e = mlc_te_min_value(ctx, MLC_DT(MLC_TC_INT, 8, 1))) && e->int_val == -128);
  CHECK((e = mlc_te_max_value(ctx, MLC_I32)) && e->int_val == 2147483647);
  CHECK((e = mlc_te_min_value(ctx, MLC_I64)) && e->int_val == INT64_MIN);
  CHECK((e = mlc_te_max_value(ctx, MLC_DT(MLC_TC_UINT, 8, 1))) && e->int_val == 255);
  CHECK((e = mlc_te_min_value(ctx, MLC_DT(MLC_TC_UINT, 16, 1))) && e->int_val == 0);
}

int main(void) {
  ctx = mlc_ctx_new();
  RUN(test_matmul_text);
  RUN(test_matmul_numbers);
  RUN(test_max_min_axis);
  RUN(test_softmax_chain);
  RUN(test_symbolic_elementwise);
  RUN(test_int32_index_widened);
  RUN(test_scalar_reduction);
  RUN(test_name_clash);
  RUN(test_error_read_arity);
  RUN(test_error_foreign_index_var);
  RUN(test_error_placeholder_not_param);
  RUN(test_extreme_values);
  mlc_ctx_free(ctx);
  return CHECK_DONE();
}
