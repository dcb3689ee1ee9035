/* test_scaling.c - work that must grow linearly with the input: reading a
 * module of thousands of functions (the duplicate-name check once compared
 * every pair) and replaying thousands of schedule steps (names derived from
 * names once doubled in length at every fuse).  Each is timed at two sizes
 * in process CPU time, the best of three runs; four times the input may
 * take at most eight times as long (linear is four, quadratic sixteen). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "mlcc/schedule.h"
#include "mlcc/text.h"

#define MAX_RATIO 8.0

static double cpu(void) {
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

typedef bool (*Work)(int n);

/* best of three runs of work(n), in seconds; < 0 when the work failed */
static double best_of_three(Work work, int n) {
  double best = 1e30;
  for (int r = 0; r < 3; r++) {
    double t0 = cpu();
    if (!work(n)) return -1;
    double t = cpu() - t0;
    if (t < best) best = t;
  }
  return best;
}

static bool scales_linearly(const char *what, Work work, int n) {
  double small = best_of_three(work, n), large = best_of_three(work, 4 * n);
  if (small < 0 || large < 0) return false;
  /* below a millisecond the clock says little: count it as one */
  double ratio = large / (small > 1e-3 ? small : 1e-3);
  printf("    %s: %d -> %.3f s, %d -> %.3f s (ratio %.1f)\n", what, n, small, 4 * n, large, ratio);
  return ratio <= MAX_RATIO;
}

/* ---- reading many functions ------------------------------------------------------ */

static char *many_functions(int n, size_t *len) {
  MlcStrBuf sb = {0};
  mlc_sb_puts(&sb, "from tvm.script import ir as I\nfrom tvm.script import tir as T\n@I.ir_module\nclass Module:\n");
  for (int i = 0; i < n; i++)
    mlc_sb_printf(&sb,
                  "    @T.prim_func\n"
                  "    def f%d(A: T.Buffer((4,), \"float32\")):\n"
                  "        for i in range(4):\n"
                  "            with T.block(\"b\"):\n"
                  "                vi = T.axis.spatial(4, i)\n"
                  "                A[vi] = A[vi] + T.float32(1)\n", i);
  *len = sb.len;
  char *text = malloc(sb.len + 1);
  memcpy(text, mlc_sb_cstr(&sb), sb.len + 1);
  mlc_vec_free(&sb);
  return text;
}

static bool read_many(int n) {
  size_t len;
  char *text = many_functions(n, &len);
  MlcCtx *ctx = mlc_ctx_new();
  MlcModule *m = mlc_read_module(ctx, "many.py", text, len);
  bool ok = m && m->n_funcs == n;
  if (!m) printf("    reading: %s\n", mlc_error_msg(ctx));
  mlc_ctx_free(ctx);
  free(text);
  return ok;
}

static void test_reading_functions_is_linear(void) { CHECK(scales_linearly("functions read", read_many, 5000)); }

/* a name defined twice among thousands is still found, with the first's line */
static void test_duplicate_among_many(void) {
  size_t len;
  char *text = many_functions(3000, &len);
  char *second = strstr(text, "def f2999(");
  memcpy(second, "def f1234(", 10);
  MlcCtx *ctx = mlc_ctx_new();
  CHECK(mlc_read_module(ctx, "many.py", text, len) == NULL);
  const char *msg = mlc_error_msg(ctx);
  CHECK(strstr(msg, "duplicate function name 'f1234' (first defined at line 7410)") != NULL);
  if (!strstr(msg, "line 7410")) printf("    got: %s\n", msg);
  mlc_ctx_free(ctx);
  free(text);
}

/* ---- replaying many schedule steps ------------------------------------------------- */

static const char MODULE[] =
    "from tvm.script import tir as T\n"
    "@T.prim_func\n"
    "def f(A: T.Buffer((16, 16), \"float32\"), C: T.Buffer((16, 16), \"float32\")):\n"
    "    for i, j in T.grid(16, 16):\n"
    "        with T.block(\"C\"):\n"
    "            vi, vj = T.axis.remap(\"SS\", [i, j])\n"
    "            C[vi, vj] = A[vi, vj] + T.float32(1)\n";

/* split and fuse the one loop again and again: 2n steps */
static bool replay_steps(int n) {
  MlcStrBuf sb = {0};
  mlc_sb_puts(&sb, "b = sch.get_block(\"C\")\ni, j = sch.get_loops(b)\nl0 = sch.fuse(i, j)\n");
  for (int k = 0; k < n; k++)
    mlc_sb_printf(&sb, "a%d, b%d = sch.split(l%d, factors=[None, 4])\nl%d = sch.fuse(a%d, b%d)\n", k, k, k, k + 1, k, k);
  MlcCtx *ctx = mlc_ctx_new();
  MlcModule *m = mlc_read_module(ctx, "f.py", MODULE, sizeof MODULE - 1);
  MlcSchedule *s = m ? mlc_sch_new(ctx, m, NULL, 1) : NULL;
  bool ok = s && mlc_sch_run_script(s, "s.py", mlc_sb_cstr(&sb), sb.len);
  if (!ok) printf("    replay: %s\n", mlc_error_msg(ctx));
  if (s) mlc_sch_free(s);
  mlc_ctx_free(ctx);
  mlc_vec_free(&sb);
  return ok;
}

static void test_schedule_replay_is_linear(void) {
  CHECK(scales_linearly("split/fuse steps replayed", replay_steps, 2000));
}

int main(void) {
  RUN(test_reading_functions_is_linear);
  RUN(test_duplicate_among_many);
  RUN(test_schedule_replay_is_linear);
  return CHECK_DONE();
}
