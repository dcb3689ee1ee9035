/* test_lower_pad.c - the pad stage: an input walked down a column of rows
 * whose size is a multiple of 2 KiB, many times over, is read from a copy
 * whose rows are one cache line longer; anything else is left alone.
 *
 * Each case is a small matmul-shaped block program.  Where the stage must
 * pad, the function after mlc_lower_prim_func(..., MLC_LOWER_PAD) must
 * allocate B_padded at its top with the strides worked out by hand, read B
 * only in the copy, and its results are checked against the reference
 * interpreter running the original program on the same random inputs: the
 * padded function in the interpreter (which bounds-checks every access),
 * and the program compiled to C through the whole pipeline (at 2 threads
 * where it has a parallel loop, whose copy must be parallel too).  Where
 * the stage must not pad (no `tir.noalias`, too little reuse, a short
 * walk, a row size that maps a column onto many sets, a buffer the
 * function writes), it must return the function it was given. */
#include "check.h"
#include "lower_check.h"
#include "mlcc/lower.h"

static MlcCtx *ctx;
static char tmpdir[4096];

/* C[i, j] = sum_k A[i, k] * B[k, j] over an M x N x K grid; the loop over i
 * parallel when asked; noalias: the function attribute */
static char *matmul_src(int m, int n, int k, bool parallel, bool noalias) {
  static char buf[2048];
  snprintf(buf, sizeof buf,
           "@T.prim_func\n"
           "def mm(A: T.Buffer((%d, %d), \"float32\"), B: T.Buffer((%d, %d), \"float32\"),"
           " C: T.Buffer((%d, %d), \"float32\")):\n"
           "    T.func_attr({\"tir.noalias\": %s})\n"
           "    for i in %s(%d):\n"
           "        for j, k in T.grid(%d, %d):\n"
           "            with T.block(\"C\"):\n"
           "                vi, vj, vk = T.axis.remap(\"SSR\", [i, j, k])\n"
           "                with T.init():\n"
           "                    C[vi, vj] = T.float32(0)\n"
           "                C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]\n",
           m, k, k, n, m, n, noalias ? "True" : "False", parallel ? "T.parallel" : "range", m, n, k);
  return buf;
}

static const MlcPrimFunc *padded(const MlcPrimFunc *f) {
  mlc_clear_error(ctx);
  const MlcPrimFunc *low = f ? mlc_lower_prim_func(ctx, f, MLC_LOWER_PAD, NULL, NULL) : NULL;
  if (!low) bu_print_error(ctx, "lowering to pad");
  return low;
}

/* ---- what the stage wrote ----------------------------------------------------------------------- */

typedef struct Seen {
  const MlcBuffer *alloc;   /* the top allocation, when it is B_padded */
  const MlcStmt *copy_loop; /* the first statement under it */
  int loads_of_b, loads_of_padded;
} Seen;

static bool seen_expr(MlcVisitor *v, const MlcExpr *e) {
  Seen *s = v->user;
  if (e->kind == MLC_EXPR_LOAD && !strcmp(e->load.buf->name, "B")) s->loads_of_b++;
  if (e->kind == MLC_EXPR_LOAD && !strcmp(e->load.buf->name, "B_padded")) s->loads_of_padded++;
  return true;
}

static Seen look(const MlcPrimFunc *f) {
  Seen s = {0};
  const MlcStmt *top = f->body;
  if (top->kind == MLC_STMT_ALLOCATE && !strcmp(top->alloc.buf->name, "B_padded")) {
    s.alloc = top->alloc.buf;
    const MlcStmt *b = top->alloc.body;
    s.copy_loop = b->kind == MLC_STMT_SEQ ? b->seq.items[0] : b;
  }
  MlcVisitor v = {.user = &s, .expr = seen_expr};
  mlc_visit_stmt(&v, f->body);
  return s;
}

static bool strides_are(const MlcBuffer *b, int64_t s0, int64_t s1) {
  int64_t a, c;
  return b && b->ndim == 2 && b->strides && mlc_e_is_const_int(b->strides[0], &a) &&
         mlc_e_is_const_int(b->strides[1], &c) && a == s0 && c == s1;
}

/* ---- the cases ---------------------------------------------------------------------------------- */

/* B (64, 512) float32: rows of 2 KiB, walked down by k over 64 rows, read
 * 8 times over (once per i).  The copy has rows of 512 + 16 floats; A,
 * walked along its rows, is read as it is. */
static void test_pads_column_walk(void) {
  const MlcModule *m = bu_read_text(ctx, "case.py", matmul_src(8, 512, 64, false, true));
  const MlcPrimFunc *f = lc_only_prim(m), *low = padded(f);
  CHECK(low && low != f);
  if (!low || low == f) return;
  Seen s = look(low);
  CHECK(strides_are(s.alloc, 528, 1));
  CHECK(s.alloc && !strcmp(s.alloc->scope, "global"));
  CHECK(s.copy_loop && s.copy_loop->kind == MLC_STMT_FOR && s.copy_loop->loop.kind == MLC_FOR_SERIAL);
  CHECK(s.loads_of_b == 1 && s.loads_of_padded == 1); /* the copy reads B, the product its copy */
  CHECK(lc_agrees(ctx, tmpdir, m, low, 1));
}

/* The same with i in parallel: the copy's outer loop is parallel too, and
 * the compiled function agrees at 2 threads. */
static void test_parallel_copy(void) {
  const MlcModule *m = bu_read_text(ctx, "case.py", matmul_src(8, 512, 64, true, true));
  const MlcPrimFunc *f = lc_only_prim(m), *low = padded(f);
  CHECK(low && low != f);
  if (!low || low == f) return;
  Seen s = look(low);
  CHECK(strides_are(s.alloc, 528, 1));
  CHECK(s.copy_loop && s.copy_loop->kind == MLC_STMT_FOR && s.copy_loop->loop.kind == MLC_FOR_PARALLEL);
  CHECK(lc_agrees(ctx, tmpdir, m, low, 2));
}

static bool unchanged(const char *src) {
  const MlcModule *m = bu_read_text(ctx, "case.py", src);
  const MlcPrimFunc *f = lc_only_prim(m);
  const MlcPrimFunc *compact = f ? mlc_lower_prim_func(ctx, f, MLC_LOWER_COMPACT, NULL, NULL) : NULL;
  const MlcPrimFunc *low = compact ? mlc_lower_pad(ctx, compact) : NULL;
  return low && low == compact;
}

static void test_leaves_alone(void) {
  CHECK(unchanged(matmul_src(8, 512, 64, false, false))); /* buffers may alias */
  CHECK(unchanged(matmul_src(4, 512, 64, false, true)));  /* read 4 times over: the copy would not pay */
  CHECK(unchanged(matmul_src(8, 512, 16, false, true)));  /* a walk of 16 rows: within a cache's ways */
  CHECK(unchanged(matmul_src(8, 500, 64, false, true)));  /* rows of 2000 bytes spread over the sets */
  /* B written by the function (an accumulation into it) */
  CHECK(unchanged("@T.prim_func\n"
                  "def f(A: T.Buffer((8, 64), \"float32\"), B: T.Buffer((64, 512), \"float32\")):\n"
                  "    T.func_attr({\"tir.noalias\": True})\n"
                  "    for i, j, k in T.grid(8, 512, 64):\n"
                  "        with T.block(\"B\"):\n"
                  "            vi, vj, vk = T.axis.remap(\"SSS\", [i, j, k])\n"
                  "            B[vk, vj] = B[vk, vj] + A[vi, vk]\n"));
}

int main(void) {
  ctx = mlc_ctx_new();
  if (!bu_make_tmpdir(tmpdir, sizeof tmpdir, "mlcc-pad")) {
    printf("FAIL test_lower_pad: cannot create a scratch directory\n");
    return 1;
  }
  RUN(test_pads_column_walk);
  RUN(test_parallel_copy);
  RUN(test_leaves_alone);
  bu_remove_dir(tmpdir);
  mlc_ctx_free(ctx);
  return CHECK_DONE();
}
