/* test_lower_interchange.c - the interchange stage: a spatial loop around a
 * reduction loop moves inside it when its iterations touch disjoint
 * elements, and stays where it is when they might not.
 *
 * Each case is a small block program: the unscheduled matmul (j moves
 * inside k, its init keeps a j loop of its own), the course's sampled
 * tiling with the init decomposed (j_0 moves inside k around the j_1
 * loop), and programs whose iterations of the outer loop depend on each
 * other or keep no accumulator across the reduction loop.  Where the stage
 * rewrites, the nest after mlc_lower_prim_func(..., MLC_LOWER_INTERCHANGE)
 * is checked for the loop order worked out by hand, and its results against
 * the reference interpreter running the original program on the same random
 * inputs: interpreted, and compiled to C through the whole pipeline. */
#include "check.h"
#include "lower_check.h"
#include "mlcc/lower.h"

static MlcCtx *ctx;
static char tmpdir[4096];

static const MlcPrimFunc *interchanged(const MlcPrimFunc *f) {
  mlc_clear_error(ctx);
  const MlcPrimFunc *low = f ? mlc_lower_prim_func(ctx, f, MLC_LOWER_INTERCHANGE, NULL, NULL) : NULL;
  if (!low) bu_print_error(ctx, "lowering to interchange");
  return low;
}

/* the names of the loops around the update of C (its store of a value that
 * is not a constant, unlike the init's), outermost first, space-joined */
static bool loops_of(const MlcStmt *s, char *path, size_t cap) {
  if (!s) return false;
  switch (s->kind) {
  case MLC_STMT_STORE: return !strcmp(s->store.buf->name, "C") && s->store.value->kind != MLC_EXPR_FLOAT;
  case MLC_STMT_FOR: {
    size_t len = strlen(path);
    snprintf(path + len, cap - len, "%s%s", len ? " " : "", s->loop.var->var.name);
    if (loops_of(s->loop.body, path, cap)) return true;
    path[len] = 0;
    return false;
  }
  case MLC_STMT_SEQ:
    for (int i = 0; i < s->seq.n; i++)
      if (loops_of(s->seq.items[i], path, cap)) return true;
    return false;
  case MLC_STMT_IF: return loops_of(s->if_.then_s, path, cap) || loops_of(s->if_.else_s, path, cap);
  case MLC_STMT_LET: return loops_of(s->let.body, path, cap);
  case MLC_STMT_ALLOCATE: return loops_of(s->alloc.body, path, cap);
  default: return false;
  }
}

static const char *update_loops(const MlcPrimFunc *f, char *path, size_t cap) {
  path[0] = 0;
  return loops_of(f->body, path, cap) ? path : "";
}

static const char UNSCHEDULED[] =
    "@T.prim_func\n"
    "def mm(A: T.Buffer((8, 24), \"float32\"), B: T.Buffer((24, 32), \"float32\"), C: T.Buffer((8, 32), \"float32\")):\n"
    "    T.func_attr({\"tir.noalias\": True})\n"
    "    for i, j, k in T.grid(8, 32, 24):\n"
    "        with T.block(\"C\"):\n"
    "            vi, vj, vk = T.axis.remap(\"SSR\", [i, j, k])\n"
    "            with T.init():\n"
    "                C[vi, vj] = T.float32(0)\n"
    "            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]\n";

static void test_unscheduled_matmul(void) {
  const MlcModule *m = bu_read_text(ctx, "case.py", UNSCHEDULED);
  const MlcPrimFunc *f = lc_only_prim(m), *low = interchanged(f);
  CHECK(low != NULL);
  if (!low) return;
  char path[256];
  CHECK(!strcmp(update_loops(low, path, sizeof path), "i k j"));
  CHECK(lc_agrees(ctx, tmpdir, m, low, 1));
}

/* the course's sampled tiling: j split [4, 8] with the 8 under k, the
 * init decomposed at k */
static const char SAMPLED[] =
    "@T.prim_func\n"
    "def mm(A: T.Buffer((8, 24), \"float32\"), B: T.Buffer((24, 32), \"float32\"), C: T.Buffer((8, 32), \"float32\")):\n"
    "    T.func_attr({\"tir.noalias\": True})\n"
    "    for i, j_0 in T.grid(8, 4):\n"
    "        for j_1 in range(8):\n"
    "            with T.block(\"C_init\"):\n"
    "                vi = T.axis.spatial(8, i)\n"
    "                vj = T.axis.spatial(32, j_0 * 8 + j_1)\n"
    "                C[vi, vj] = T.float32(0)\n"
    "        for k, j_1 in T.grid(24, 8):\n"
    "            with T.block(\"C\"):\n"
    "                vi = T.axis.spatial(8, i)\n"
    "                vj = T.axis.spatial(32, j_0 * 8 + j_1)\n"
    "                vk = T.axis.reduce(24, k)\n"
    "                C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]\n";

static void test_sampled_tiling(void) {
  const MlcModule *m = bu_read_text(ctx, "case.py", SAMPLED);
  const MlcPrimFunc *f = lc_only_prim(m), *low = interchanged(f);
  CHECK(low != NULL);
  if (!low) return;
  char path[256];
  CHECK(!strcmp(update_loops(low, path, sizeof path), "i k j_0 j_1"));
  CHECK(lc_agrees(ctx, tmpdir, m, low, 1));
}

static bool unchanged(const char *src) {
  const MlcModule *m = bu_read_text(ctx, "case.py", src);
  const MlcPrimFunc *f = lc_only_prim(m);
  mlc_clear_error(ctx);
  const MlcPrimFunc *before = f ? mlc_lower_prim_func(ctx, f, MLC_LOWER_SIMPLIFY, NULL, NULL) : NULL;
  const MlcPrimFunc *low = before ? mlc_lower_interchange(ctx, before) : NULL;
  bool same = low && low == before;
  /* whatever it does, the result is right */
  const MlcPrimFunc *all = f ? interchanged(f) : NULL;
  return same && all && lc_agrees(ctx, tmpdir, m, all, 1);
}

static void test_leaves_alone(void) {
  /* each j reads what the previous j wrote: the order of j matters */
  CHECK(unchanged("@T.prim_func\n"
                  "def f(A: T.Buffer((1, 16), \"float32\"), C: T.Buffer((1, 9), \"float32\")):\n"
                  "    T.func_attr({\"tir.noalias\": True})\n"
                  "    for j, k in T.grid(8, 16):\n"
                  "        with T.block(\"C\"):\n"
                  "            vj, vk = T.axis.remap(\"SR\", [j, k])\n"
                  "            C[0, vj + 1] = C[0, vj + 1] + C[0, vj] * A[0, vk]\n"));
  /* two j write the same elements (j // 2) */
  CHECK(unchanged("@T.prim_func\n"
                  "def f(A: T.Buffer((8, 16), \"float32\"), C: T.Buffer((1, 4), \"float32\")):\n"
                  "    T.func_attr({\"tir.noalias\": True})\n"
                  "    for j, k in T.grid(8, 16):\n"
                  "        with T.block(\"C\"):\n"
                  "            vj, vk = T.axis.remap(\"SR\", [j, k])\n"
                  "            C[0, vj // 2] = C[0, vj // 2] + A[vj, vk]\n"));
  /* no accumulator across k: a copy */
  CHECK(unchanged("@T.prim_func\n"
                  "def f(A: T.Buffer((8, 16), \"float32\"), C: T.Buffer((8, 16), \"float32\")):\n"
                  "    T.func_attr({\"tir.noalias\": True})\n"
                  "    for j, k in T.grid(8, 16):\n"
                  "        with T.block(\"C\"):\n"
                  "            vj, vk = T.axis.remap(\"SS\", [j, k])\n"
                  "            C[vj, vk] = A[vj, vk] * T.float32(2)\n"));
}

int main(void) {
  ctx = mlc_ctx_new();
  if (!bu_make_tmpdir(tmpdir, sizeof tmpdir, "mlcc-interchange")) {
    printf("FAIL test_lower_interchange: cannot create a scratch directory\n");
    return 1;
  }
  RUN(test_unscheduled_matmul);
  RUN(test_sampled_tiling);
  RUN(test_leaves_alone);
  bu_remove_dir(tmpdir);
  mlc_ctx_free(ctx);
  return CHECK_DONE();
}
