/* test_sch_compute.c - the region analysis behind compute_at and the
 * inlining primitives (src/schedule/region.h), and what the golden cases
 * cannot show of the primitives themselves: handles after a move, and
 * refusals that keep the very same module.
 *
 * Region soundness is checked against brute force: random index
 * expressions over one fixed and two relaxed vars are evaluated here, by a
 * small evaluator of this file's own, for every value of the vars, and
 * every value must fall inside the span the analysis gives. */
#include "check.h"
#include "mlcc/schedule.h"
#include "mlcc/text.h"
#include "schedule/region.h"

#include <string.h>

/* ---- a tiny independent evaluator ----------------------------------------------- */

typedef struct Env { const MlcExpr *var[3]; int64_t val[3]; } Env;

static int64_t fdiv(int64_t a, int64_t b) { return a / b - (a % b != 0 && (a < 0) != (b < 0)); }

static int64_t eval(const MlcExpr *e, const Env *env) {
  switch (e->kind) {
  case MLC_EXPR_INT: return e->int_val;
  case MLC_EXPR_VAR:
    for (int i = 0; i < 3; i++)
      if (env->var[i] == e) return env->val[i];
    return 0;
  case MLC_EXPR_NEG: return -eval(e->operand, env);
  case MLC_EXPR_BINARY: {
    int64_t a = eval(e->bin.a, env), b = eval(e->bin.b, env);
    switch (e->bin.op) {
    case MLC_BIN_ADD: return a + b;
    case MLC_BIN_SUB: return a - b;
    case MLC_BIN_MUL: return a * b;
    case MLC_BIN_FLOORDIV: return fdiv(a, b);
    case MLC_BIN_FLOORMOD: return a - fdiv(a, b) * b;
    case MLC_BIN_MIN: return a < b ? a : b;
    case MLC_BIN_MAX: return a > b ? a : b;
    default: return 0;
    }
  }
  default: return 0;
  }
}

static uint64_t rng = 0x2545f4914f6cdd1dull;
static int64_t rnd(int64_t n) {
  rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
  return (int64_t)(rng % (uint64_t)n);
}

static MlcExpr *mul(MlcCtx *ctx, MlcExpr *a, int64_t c) {
  return mlc_e_bin(ctx, MLC_BIN_MUL, a, mlc_e_int(ctx, MLC_I32, c));
}

static MlcExpr *random_index(MlcCtx *ctx, MlcExpr *const *vars, int depth) {
  if (depth == 0 || rnd(4) == 0) return rnd(3) ? vars[rnd(3)] : mlc_e_int(ctx, MLC_I32, rnd(9) - 4);
  MlcExpr *a = random_index(ctx, vars, depth - 1);
  switch (rnd(7)) {
  case 0: return mlc_e_bin(ctx, MLC_BIN_ADD, a, random_index(ctx, vars, depth - 1));
  case 1: return mlc_e_bin(ctx, MLC_BIN_SUB, a, random_index(ctx, vars, depth - 1));
  case 2: return mlc_e_bin(ctx, MLC_BIN_MUL, a, mlc_e_int(ctx, MLC_I32, rnd(7) - 3));
  case 3: return mlc_e_bin(ctx, MLC_BIN_FLOORDIV, a, mlc_e_int(ctx, MLC_I32, 1 + rnd(5)));
  case 4: return mlc_e_bin(ctx, MLC_BIN_FLOORMOD, a, mlc_e_int(ctx, MLC_I32, 1 + rnd(5)));
  case 5: return mlc_e_bin(ctx, MLC_BIN_MAX, a, random_index(ctx, vars, depth - 1));
  default: return mlc_e_bin(ctx, MLC_BIN_ADD, a, mul(ctx, vars[rnd(3)], 4));
  }
}

/* a loop statement over var, [min, min + ext), for sch_relax_loop */
static MlcStmt *loop_over(MlcCtx *ctx, MlcExpr *var, int64_t min, int64_t ext) {
  MlcStmt *body = mlc_s_evaluate(ctx, mlc_e_int(ctx, MLC_I32, 0));
  return mlc_s_for(ctx, var, mlc_e_int(ctx, MLC_I32, min), mlc_e_int(ctx, MLC_I32, ext), MLC_FOR_SERIAL, NULL,
                   (MlcAttrs){0}, body);
}

/* i fixed in [0, 5), j in [-2, 4) and k in [0, 3) relaxed: every value of
 * e at a given i lies in [span.min(i), span.min(i) + extent) */
static void test_relax_is_sound(void) {
  MlcCtx *ctx = mlc_ctx_new();
  MlcExpr *vars[3] = {mlc_e_var(ctx, "i", MLC_I32), mlc_e_var(ctx, "j", MLC_I32), mlc_e_var(ctx, "k", MLC_I32)};
  int64_t lo[3] = {0, -2, 0}, ext[3] = {5, 6, 3};
  int checked = 0;
  for (int trial = 0; trial < 400; trial++) {
    SchRelax r;
    sch_relax_init(&r, ctx);
    for (int v = 0; v < 3; v++) sch_relax_loop(&r, loop_over(ctx, vars[v], lo[v], ext[v]), v > 0);
    MlcExpr *e = random_index(ctx, vars, 3);
    SchSpan sp;
    if (sch_relax_span(&r, e, mlc_e_int(ctx, MLC_I32, 1), &sp)) {
      checked++;
      Env env = {{vars[0], vars[1], vars[2]}, {0}};
      for (env.val[0] = lo[0]; env.val[0] < lo[0] + ext[0]; env.val[0]++) {
        int64_t m = eval(sp.min, &env);
        CHECK(!sch_relax_mentions(&r, sp.min));
        for (env.val[1] = lo[1]; env.val[1] < lo[1] + ext[1]; env.val[1]++)
          for (env.val[2] = lo[2]; env.val[2] < lo[2] + ext[2]; env.val[2]++) {
            int64_t x = eval(e, &env);
            CHECK(x >= m && x < m + sp.extent);
          }
      }
    }
    sch_relax_free(&r);
  }
  CHECK(checked > 300);
  mlc_ctx_free(ctx);
}

static bool differ_by(SchRelax *r, MlcExpr *a, MlcExpr *b, int64_t d) {
  int64_t v;
  MlcExpr *diff = mlc_arith_simplify(&r->az, mlc_e_bin(r->ctx, MLC_BIN_SUB, a, b));
  return mlc_e_is_const_int(diff, &v) && v == d;
}

/* affine indices relax exactly: (i * 8 + j) // 4 with j in [0, 8) spans
 * i * 2 .. i * 2 + 1; i * 4 + j spans [i * 4, i * 4 + 8) */
static void test_relax_exact(void) {
  MlcCtx *ctx = mlc_ctx_new();
  MlcExpr *i = mlc_e_var(ctx, "i", MLC_I32), *j = mlc_e_var(ctx, "j", MLC_I32);
  SchRelax r;
  sch_relax_init(&r, ctx);
  sch_relax_loop(&r, loop_over(ctx, i, 0, 16), false);
  sch_relax_loop(&r, loop_over(ctx, j, 0, 8), true);
  MlcExpr *four = mlc_e_int(ctx, MLC_I32, 4), *one = mlc_e_int(ctx, MLC_I32, 1);
  SchSpan sp;
  MlcExpr *e = mlc_e_bin(ctx, MLC_BIN_FLOORDIV, mlc_e_bin(ctx, MLC_BIN_ADD, mul(ctx, i, 8), j), four);
  CHECK(sch_relax_span(&r, e, one, &sp));
  CHECK(sp.extent == 2);
  CHECK(differ_by(&r, sp.min, mlc_e_bin(ctx, MLC_BIN_MUL, i, mlc_e_int(ctx, MLC_I32, 2)), 0));
  e = mlc_e_bin(ctx, MLC_BIN_ADD, mlc_e_bin(ctx, MLC_BIN_MUL, i, four), j);
  CHECK(sch_relax_span(&r, e, one, &sp));
  CHECK(sp.extent == 8);
  CHECK(differ_by(&r, sp.min, mlc_e_bin(ctx, MLC_BIN_MUL, i, four), 0));
  /* an extent that is not a constant has no span */
  CHECK(!sch_relax_span(&r, i, i, &sp));
  sch_relax_free(&r);
  mlc_ctx_free(ctx);
}

/* hulls: spans a constant apart merge exactly; others by their bounds */
static void test_span_union(void) {
  MlcCtx *ctx = mlc_ctx_new();
  MlcExpr *i = mlc_e_var(ctx, "i", MLC_I32), *k = mlc_e_var(ctx, "k", MLC_I32);
  SchRelax r;
  sch_relax_init(&r, ctx);
  sch_relax_loop(&r, loop_over(ctx, i, 0, 4), false);
  sch_relax_loop(&r, loop_over(ctx, k, 0, 3), false);
  MlcExpr *i4 = mlc_e_bin(ctx, MLC_BIN_MUL, i, mlc_e_int(ctx, MLC_I32, 4));
  SchSpan acc = {0};
  CHECK(sch_span_union(&r, &acc, (SchSpan){mlc_e_bin(ctx, MLC_BIN_ADD, i4, mlc_e_int(ctx, MLC_I32, 2)), 4}));
  CHECK(sch_span_union(&r, &acc, (SchSpan){i4, 4}));
  CHECK(acc.extent == 6 && differ_by(&r, acc.min, i4, 0));
  /* [i * 4, +6) and [k, +1): bounds [0, 12] + 6 and [0, 2] + 1 give [0, 18) */
  CHECK(sch_span_union(&r, &acc, (SchSpan){k, 1}));
  int64_t v;
  CHECK(mlc_e_is_const_int(acc.min, &v) && v == 0 && acc.extent == 18);
  sch_relax_free(&r);
  mlc_ctx_free(ctx);
}

/* tiles i * 4 + [0, 4) over i in [0, 8) cover [0, 32); 3-wide ones leave gaps */
static void test_span_covers(void) {
  MlcCtx *ctx = mlc_ctx_new();
  MlcExpr *i = mlc_e_var(ctx, "i", MLC_I32), *j = mlc_e_var(ctx, "j", MLC_I32);
  SchRelax r;
  sch_relax_init(&r, ctx);
  sch_relax_loop(&r, loop_over(ctx, i, 0, 8), false);
  sch_relax_loop(&r, loop_over(ctx, j, 0, 2), false);
  MlcExpr *i4 = mlc_e_bin(ctx, MLC_BIN_MUL, i, mlc_e_int(ctx, MLC_I32, 4));
  CHECK(sch_span_covers(&r, (SchSpan){i4, 4}, 0, 32));
  CHECK(!sch_span_covers(&r, (SchSpan){i4, 3}, 0, 32));
  CHECK(!sch_span_covers(&r, (SchSpan){i4, 4}, 0, 33));
  /* i * 4 + j * 2 with extent 2: j fills each tile, i the rest */
  MlcExpr *e = mlc_e_bin(ctx, MLC_BIN_ADD, i4, mlc_e_bin(ctx, MLC_BIN_MUL, j, mlc_e_int(ctx, MLC_I32, 2)));
  CHECK(sch_span_covers(&r, (SchSpan){e, 2}, 0, 32));
  sch_relax_free(&r);
  mlc_ctx_free(ctx);
}

/* ---- statements read from text ----------------------------------------------------- */

static const char *TEXT =
    "from tvm.script import tir as T\n"
    "@T.prim_func\n"
    "def f(A: T.Buffer((10,), \"float32\"), C: T.Buffer((10,), \"float32\")):\n"
    "    B = T.alloc_buffer((10,))\n"
    "    for i_0, i_1 in T.grid(3, 4):\n"
    "        with T.block(\"B\"):\n"
    "            vi = T.axis.spatial(10, i_0 * 4 + i_1)\n"
    "            T.where(i_0 * 4 + i_1 < 10)\n"
    "            B[vi] = A[vi]\n"
    "    for i in range(10):\n"
    "        with T.block(\"C\"):\n"
    "            vi = T.axis.spatial(10, i)\n"
    "            T.where(i < 5)\n"
    "            C[vi] = B[vi]\n";

static const MlcStmt *find_block(const MlcStmt *st, const char *name) {
  if (!st) return NULL;
  switch (st->kind) {
  case MLC_STMT_BLOCK_REALIZE:
    if (strcmp(st->realize.block->name, name) == 0) return st;
    return find_block(st->realize.block->body, name);
  case MLC_STMT_FOR: return find_block(st->loop.body, name);
  case MLC_STMT_SEQ:
    for (int i = 0; i < st->seq.n; i++) {
      const MlcStmt *r = find_block(st->seq.items[i], name);
      if (r) return r;
    }
    return NULL;
  default: return NULL;
  }
}

static void test_pred_in_domain(void) {
  MlcCtx *ctx = mlc_ctx_new();
  MlcModule *m = mlc_read_module(ctx, "f.py", TEXT, strlen(TEXT));
  CHECK(m != NULL);
  if (!m) return mlc_ctx_free(ctx);
  const MlcStmt *body = m->funcs[0].prim->body;
  CHECK(sch_pred_in_domain(ctx, find_block(body, "B")));  /* a split's guard */
  CHECK(!sch_pred_in_domain(ctx, find_block(body, "C"))); /* drops half the domain */
  CHECK(sch_pred_in_domain(ctx, find_block(body, "root")));
  mlc_ctx_free(ctx);
}

/* removing block B takes its now empty loops with it; the allocation of B
 * goes from the root block; the rest is shared */
static void test_edit(void) {
  MlcCtx *ctx = mlc_ctx_new();
  MlcModule *m = mlc_read_module(ctx, "f.py", TEXT, strlen(TEXT));
  CHECK(m != NULL);
  if (!m) return mlc_ctx_free(ctx);
  const MlcPrimFunc *f = m->funcs[0].prim;
  const MlcStmt *root = f->body, *b = find_block(root, "B"), *c = find_block(root, "C");
  const MlcBuffer *buf = root->realize.block->allocs[0];
  SchEdit edits[2] = {{.old = b}, {.old = root, .drop_alloc = buf}};
  MlcStmt *out = sch_edit(ctx, f->body, edits, 2);
  CHECK(out && out->kind == MLC_STMT_BLOCK_REALIZE && out->realize.block->n_allocs == 0);
  if (!out) return mlc_ctx_free(ctx);
  const MlcStmt *top = out->realize.block->body;
  CHECK(top->kind == MLC_STMT_FOR && top->loop.body == c); /* the C nest, unchanged */
  CHECK(root->realize.block->n_allocs == 1);               /* the original is untouched */
  mlc_ctx_free(ctx);
}

static void test_linear(void) {
  MlcCtx *ctx = mlc_ctx_new();
  MlcExpr *i = mlc_e_var(ctx, "i", MLC_I32), *j = mlc_e_var(ctx, "j", MLC_I32);
  /* (i * 3 + j) - (i - 5) = 2 i + j + 5 */
  MlcExpr *e = mlc_e_bin(ctx, MLC_BIN_SUB, mlc_e_bin(ctx, MLC_BIN_ADD, mul(ctx, i, 3), j),
                         mlc_e_bin(ctx, MLC_BIN_SUB, i, mlc_e_int(ctx, MLC_I32, 5)));
  SchLinear l;
  CHECK(sch_linear(e, &l));
  CHECK(l.k == 5 && l.terms.len == 2);
  if (l.terms.len == 2) CHECK(l.terms.data[0].atom == i && l.terms.data[0].coef == 2 && l.terms.data[1].coef == 1);
  sch_linear_free(&l);
  mlc_ctx_free(ctx);
}

/* ---- the primitives --------------------------------------------------------------------- */

static const char *CHAIN =
    "from tvm.script import tir as T\n"
    "@T.prim_func\n"
    "def f(A: T.Buffer((32,), \"float32\"), C: T.Buffer((32,), \"float32\")):\n"
    "    B = T.alloc_buffer((32,))\n"
    "    for i in range(32):\n"
    "        with T.block(\"B\"):\n"
    "            vi = T.axis.spatial(32, i)\n"
    "            B[vi] = A[vi] * T.float32(2)\n"
    "    for i in range(32):\n"
    "        with T.block(\"C\"):\n"
    "            vi = T.axis.spatial(32, i)\n"
    "            C[vi] = B[vi] + T.float32(1)\n";

/* after compute_at the block handle still names B, and get_loops finds its
 * new loop under the tile; a refused primitive keeps the same module */
static void test_handles_and_refusals(void) {
  MlcCtx *ctx = mlc_ctx_new();
  MlcModule *m = mlc_read_module(ctx, "f.py", CHAIN, strlen(CHAIN));
  MlcSchedule *s = m ? mlc_sch_new(ctx, m, NULL, 1) : NULL;
  CHECK(s != NULL);
  if (!s) return mlc_ctx_free(ctx);
  const char *script = "b0 = sch.get_block(\"B\")\nb1 = sch.get_block(\"C\")\nl2, = sch.get_loops(b1)\n"
                       "l3, l4 = sch.split(l2, factors=[None, 8])\nsch.compute_at(b0, l3)\n";
  CHECK(mlc_sch_run_script(s, "s.py", script, strlen(script)));
  MlcBlockRV b;
  MlcLoopRV loops[4];
  int n = 0;
  CHECK(mlc_sch_get_block(s, "B", &b) && mlc_sch_get_loops(s, b, loops, 4, &n));
  CHECK(n == 2);
  const MlcModule *before = mlc_sch_module(s);
  const char *bad = "b = sch.get_block(\"C\")\nsch.compute_inline(b)\n"; /* C writes a parameter */
  CHECK(!mlc_sch_run_script(s, "t.py", bad, strlen(bad)));
  CHECK(strstr(mlc_error_msg(ctx), "output block") != NULL);
  CHECK(mlc_sch_module(s) == before);
  mlc_clear_error(ctx);
  const char *good = "b = sch.get_block(\"B\")\nsch.compute_inline(b)\n";
  CHECK(mlc_sch_run_script(s, "u.py", good, strlen(good)));
  CHECK(mlc_sch_func(s)->body->realize.block->n_allocs == 0);
  mlc_sch_free(s);
  mlc_ctx_free(ctx);
}

int main(void) {
  RUN(test_relax_is_sound);
  RUN(test_relax_exact);
  RUN(test_span_union);
  RUN(test_span_covers);
  RUN(test_pred_in_domain);
  RUN(test_edit);
  RUN(test_linear);
  RUN(test_handles_and_refusals);
  return CHECK_DONE();
}
