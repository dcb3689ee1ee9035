/* test_schedule.c - the schedule core: handles and stale handles, refusals
 * that leave everything as it was, trace printing and replay, the script
 * reader's forms and errors, and the internals primitives share (replace,
 * commit, fresh names, block classification, the random source).
 *
 * Expectations are written out here (trace lines, error texts, counts);
 * the primitives used along the way (split, fuse, annotate) are only the
 * means, their own results are the golden cases' business. */
#include "check.h"
#include "mlcc/schedule.h"
#include "mlcc/text.h"
#include "schedule/state.h"

#include <string.h>

static const char *MM =
    "from tvm.script import ir as I\n"
    "from tvm.script import tir as T\n"
    "@I.ir_module\n"
    "class Module:\n"
    "    @T.prim_func\n"
    "    def main(A: T.Buffer((16, 16), \"float32\"), B: T.Buffer((16, 16), \"float32\"),\n"
    "             C: T.Buffer((16, 16), \"float32\")):\n"
    "        Y = T.alloc_buffer((16, 16))\n"
    "        for i, j, k in T.grid(16, 16, 16):\n"
    "            with T.block(\"Y\"):\n"
    "                vi, vj, vk = T.axis.remap(\"SSR\", [i, j, k])\n"
    "                with T.init():\n"
    "                    Y[vi, vj] = T.float32(0)\n"
    "                Y[vi, vj] = Y[vi, vj] + A[vi, vk] * B[vk, vj]\n"
    "        for i, j in T.grid(16, 16):\n"
    "            with T.block(\"C\"):\n"
    "                vi, vj = T.axis.remap(\"SS\", [i, j])\n"
    "                C[vi, vj] = T.max(Y[vi, vj], T.float32(0))\n";

typedef struct Fix {
  MlcCtx *ctx;
  MlcModule *m;
  MlcSchedule *s;
} Fix;

static Fix fix_new(const char *text) {
  Fix f = {.ctx = mlc_ctx_new()};
  f.m = mlc_read_module(f.ctx, "mm.py", text, strlen(text));
  if (f.m) f.s = mlc_sch_new(f.ctx, f.m, NULL, 7);
  return f;
}

static void fix_free(Fix *f) {
  mlc_sch_free(f->s);
  mlc_ctx_free(f->ctx);
}

static bool run(Fix *f, const char *script) { return mlc_sch_run_script(f->s, "s.py", script, strlen(script)); }

static const char *trace(Fix *f, MlcStrBuf *sb) {
  sb->len = 0;
  mlc_sch_print_trace(f->s, sb);
  return mlc_sb_cstr(sb);
}

static bool has_msg(Fix *f, const char *want) {
  const char *m = mlc_error_msg(f->ctx);
  if (m && strstr(m, want)) return true;
  printf("    message: %s\n", m ? m : "(none)");
  return false;
}

/* ---- the table ------------------------------------------------------------- */

static void test_prim_table(void) {
  CHECK_STR(mlc_sch_prim_names[MLC_SCH_get_block], "get_block");
  CHECK_STR(mlc_sch_prim_names[MLC_SCH_sample_compute_location], "sample_compute_location");
  CHECK_STR(mlc_sch_prim_params[MLC_SCH_split], "loop factors preserve_unit_iters");
  CHECK_STR(mlc_sch_prim_params[MLC_SCH_reorder], "*ordered_loops");
  for (int p = 0; p < MLC_SCH_PRIM_COUNT; p++) CHECK(mlc_sch_prim_names[p] && mlc_sch_prim_params[p]);
}

/* ---- creating a schedule ------------------------------------------------------ */

static void test_new_picks_function(void) {
  Fix f = fix_new(MM);
  CHECK(f.s != NULL);
  if (f.s) CHECK_STR(mlc_sch_func(f.s)->name, "main");
  CHECK(mlc_sch_module(f.s) == f.m);
  CHECK(mlc_sch_new(f.ctx, f.m, "nope", 0) == NULL);
  CHECK(has_msg(&f, "no function named 'nope'"));
  fix_free(&f);
}

static void test_new_refuses_two_funcs(void) {
  static const char *two =
      "from tvm.script import ir as I\nfrom tvm.script import tir as T\n"
      "@I.ir_module\nclass Module:\n"
      "    @T.prim_func\n    def f(A: T.Buffer((4,), \"float32\")):\n"
      "        for i in range(4):\n            with T.block(\"a\"):\n"
      "                vi = T.axis.spatial(4, i)\n                A[vi] = T.float32(1)\n"
      "    @T.prim_func\n    def g(A: T.Buffer((4,), \"float32\")):\n"
      "        for i in range(4):\n            with T.block(\"b\"):\n"
      "                vi = T.axis.spatial(4, i)\n                A[vi] = T.float32(2)\n";
  MlcCtx *ctx = mlc_ctx_new();
  MlcModule *m = mlc_read_module(ctx, "two.py", two, strlen(two));
  CHECK(m != NULL);
  CHECK(mlc_sch_new(ctx, m, NULL, 0) == NULL);
  CHECK(strstr(mlc_error_msg(ctx), "2 prim funcs") != NULL);
  mlc_clear_error(ctx);
  MlcSchedule *s = mlc_sch_new(ctx, m, "g", 0);
  CHECK(s != NULL);
  MlcBlockRV b;
  CHECK(s && mlc_sch_get_block(s, "b", &b));
  CHECK(s && !mlc_sch_get_block(s, "a", &b)); /* a is in f, not in g */
  mlc_sch_free(s);
  mlc_ctx_free(ctx);
}

/* ---- handles -------------------------------------------------------------- */

static void test_typed_handles(void) {
  Fix f = fix_new(MM);
  MlcBlockRV y;
  MlcLoopRV loops[8], parts[2];
  int n = 0;
  CHECK(mlc_sch_get_block(f.s, "Y", &y));
  CHECK(mlc_sch_get_loops(f.s, y, loops, 8, &n));
  CHECK(n == 3);
  CHECK_STR(f.s->rvs.data[loops[0].id].loop_var->var.name, "i");
  CHECK_STR(f.s->rvs.data[loops[2].id].loop_var->var.name, "k");
  int64_t factors[2] = {0, 4};
  CHECK(mlc_sch_split(f.s, loops[1], factors, 2, parts));
  CHECK(mlc_sch_get_loops(f.s, y, loops, 8, &n));
  CHECK(n == 4);
  CHECK(loops[1].id != parts[0].id);                   /* a new handle ... */
  CHECK(f.s->rvs.data[loops[1].id].loop_var == f.s->rvs.data[parts[0].id].loop_var); /* ... same loop */
  MlcStrBuf sb = {0};
  CHECK_STR(trace(&f, &sb), "b0 = sch.get_block(\"Y\")\n"
                            "l1, l2, l3 = sch.get_loops(block=b0)\n"
                            "l4, l5 = sch.split(loop=l2, factors=[None, 4], preserve_unit_iters=True)\n"
                            "l6, l7, l8, l9 = sch.get_loops(block=b0)\n");
  mlc_vec_free(&sb);
  fix_free(&f);
}

static void test_stale_loop_refused_unchanged(void) {
  Fix f = fix_new(MM);
  MlcBlockRV y;
  MlcLoopRV l[3], parts[2];
  int n;
  int64_t factors[2] = {0, 4};
  CHECK(mlc_sch_get_block(f.s, "Y", &y) && mlc_sch_get_loops(f.s, y, l, 3, &n));
  CHECK(mlc_sch_split(f.s, l[1], factors, 2, parts));
  const MlcModule *before = mlc_sch_module(f.s);
  size_t n_trace = f.s->trace.len, n_rvs = f.s->rvs.len;
  MlcSchVal loops[2] = {{.kind = MLC_SV_LOOP, .rv = l[0].id}, {.kind = MLC_SV_LOOP, .rv = l[1].id}};
  MlcSchVal args[4] = {{.kind = MLC_SV_LIST, .list = {loops, 2}}}, outs[MLC_SCH_MAX_OUTS];
  CHECK(!mlc_sch_apply(f.s, MLC_SCH_fuse, args, outs, &n));
  CHECK(has_msg(&f, "fuse: loop 'j' no longer exists"));
  CHECK(mlc_sch_module(f.s) == before);
  CHECK(f.s->trace.len == n_trace && f.s->rvs.len == n_rvs);
  fix_free(&f);
}

static void test_stale_block_refused(void) {
  Fix f = fix_new(MM);
  MlcSchVal args[4] = {{.kind = MLC_SV_BLOCK, .rv = sch_block_rv(f.s, "gone")}};
  MlcSchVal outs[MLC_SCH_MAX_OUTS];
  int n = -1;
  CHECK(!mlc_sch_apply(f.s, MLC_SCH_get_loops, args, outs, &n));
  CHECK(n == 0);
  CHECK(has_msg(&f, "get_loops: block 'gone' no longer exists"));
  fix_free(&f);
}

static void test_wrong_handle_kind(void) {
  Fix f = fix_new(MM);
  CHECK(!run(&f, "b = sch.get_block(\"Y\")\nsch.split(b, [2, 8])\n"));
  CHECK(has_msg(&f, "split: 'loop' must be a loop handle, got a block handle"));
  fix_free(&f);
  f = fix_new(MM);
  CHECK(!run(&f, "sch.get_loops()\n"));
  CHECK(has_msg(&f, "get_loops: missing argument 'block'"));
  fix_free(&f);
}

/* ---- get_* ------------------------------------------------------------------ */

static int block_names(Fix *f, const MlcSchVal *outs, int n, char *buf, size_t cap) {
  buf[0] = '\0';
  for (int i = 0; i < n; i++) {
    CHECK(outs[i].kind == MLC_SV_BLOCK);
    strncat(buf, f->s->rvs.data[outs[i].rv].block, cap - strlen(buf) - 2);
    strcat(buf, " ");
  }
  return n;
}

static void test_producers_consumers(void) {
  Fix f = fix_new(MM);
  MlcBlockRV y, c;
  CHECK(mlc_sch_get_block(f.s, "Y", &y) && mlc_sch_get_block(f.s, "C", &c));
  MlcSchVal args[4] = {{.kind = MLC_SV_BLOCK, .rv = c.id}}, outs[MLC_SCH_MAX_OUTS];
  int n;
  char names[64];
  CHECK(mlc_sch_apply(f.s, MLC_SCH_get_producers, args, outs, &n));
  block_names(&f, outs, n, names, sizeof names);
  CHECK_STR(names, "Y ");
  CHECK(mlc_sch_apply(f.s, MLC_SCH_get_consumers, args, outs, &n) && n == 0);
  args[0].rv = y.id;
  CHECK(mlc_sch_apply(f.s, MLC_SCH_get_consumers, args, outs, &n));
  block_names(&f, outs, n, names, sizeof names);
  CHECK_STR(names, "C ");
  CHECK(mlc_sch_apply(f.s, MLC_SCH_get_producers, args, outs, &n) && n == 0);
  MlcBlockRV root;
  CHECK(mlc_sch_get_block(f.s, "root", &root));
  args[0].rv = root.id;
  CHECK(mlc_sch_apply(f.s, MLC_SCH_get_child_blocks, args, outs, &n));
  block_names(&f, outs, n, names, sizeof names);
  CHECK_STR(names, "Y C ");
  fix_free(&f);
}

/* ---- traces and scripts ---------------------------------------------------------- */

static void test_trace_forms(void) {
  Fix f = fix_new(MM);
  CHECK(run(&f, "import tvm\n"
                "sch = tvm.tir.Schedule(Module)\n"
                "b = sch.get_block(\"Y\", \"main\")\n"
                "loops = sch.get_loops(b)\n"
                "first, *rest = loops\n"
                "fused = sch.fuse(first, rest[0])\n"
                "sch.annotate(fused, ann_key=\"note\", ann_val=\"x\\\"y\")\n"
                "sch.annotate(fused, \"ratio\", 0.25)\n"
                "sch.annotate(b, \"flag\", True)\n"));
  MlcStrBuf sb = {0};
  CHECK_STR(trace(&f, &sb),
            "b0 = sch.get_block(\"Y\", func_name=\"main\")\n"
            "l1, l2, l3 = sch.get_loops(block=b0)\n"
            "l4 = sch.fuse(l1, l2, preserve_unit_iters=True)\n"
            "sch.annotate(block_or_loop=l4, ann_key=\"note\", ann_val=\"x\\\"y\")\n"
            "sch.annotate(block_or_loop=l4, ann_key=\"ratio\", ann_val=0.25)\n"
            "sch.annotate(block_or_loop=b0, ann_key=\"flag\", ann_val=True)\n");
  fix_free(&f);
  mlc_vec_free(&sb);
}

static void test_trace_replays(void) {
  Fix f = fix_new(MM);
  CHECK(run(&f, "b = sch.get_block(\"Y\")\n"
                "i, j, k = sch.get_loops(b)\n"
                "j0, j1 = sch.split(j, factors=[None, 4])\n"
                "sch.reorder(j0, k, j1)\n"
                "c = sch.get_block(\"C\")\n"
                "x, y = sch.get_loops(c)\n"
                "sch.fuse(x, y)\n"));
  MlcStrBuf t1 = {0}, t2 = {0};
  trace(&f, &t1);
  MlcSchedule *r = mlc_sch_new(f.ctx, f.m, NULL, 7);
  CHECK(mlc_sch_run_script(r, "trace.py", t1.data, t1.len));
  CHECK(mlc_module_equal(mlc_sch_module(r), mlc_sch_module(f.s)));
  CHECK(!mlc_module_equal(mlc_sch_module(r), f.m));
  mlc_sch_print_trace(r, &t2);
  CHECK_STR(mlc_sb_cstr(&t2), mlc_sb_cstr(&t1));
  CHECK(strstr(mlc_sb_cstr(&t1), "sch.reorder(l4, l3, l5)\n") != NULL);
  mlc_sch_free(r);
  mlc_vec_free(&t1);
  mlc_vec_free(&t2);
  fix_free(&f);
}

static void test_lambda_kept_as_text(void) {
  Fix f = fix_new(MM);
  CHECK(run(&f, "b = sch.get_block(\"Y\")\n"
                "sch.transform_layout(b, (\"write\", 0), lambda i, j: (j,  # transposed\n"
                "                                                    i))\n"));
  MlcStrBuf sb = {0};
  CHECK_STR(trace(&f, &sb), "b0 = sch.get_block(\"Y\")\n"
                            "sch.transform_layout(block=b0, buffer=[\"write\", 0], "
                            "index_map=lambda i, j: (j, i))\n");
  mlc_vec_free(&sb);
  fix_free(&f);
}

static void test_sampling_decision_recorded(void) {
  Fix f = fix_new(MM);
  CHECK(run(&f, "b = sch.get_block(\"Y\")\ni, j, k = sch.get_loops(b)\n"
                "v = sch.sample_perfect_tile(j, n=2, max_innermost_factor=8)\n"
                "sch.split(j, factors=v)\n"));
  MlcStrBuf t1 = {0}, t2 = {0};
  trace(&f, &t1);
  CHECK(strstr(mlc_sb_cstr(&t1), "v4, v5 = sch.sample_perfect_tile(loop=l2, n=2, max_innermost_factor=8, "
                                 "decision=[") != NULL);
  CHECK(strstr(mlc_sb_cstr(&t1), "sch.split(loop=l2, factors=[v4, v5], preserve_unit_iters=True)") != NULL);
  /* replayed under another seed, the recorded decision is reused */
  MlcSchedule *r = mlc_sch_new(f.ctx, f.m, NULL, 12345);
  CHECK(mlc_sch_run_script(r, "trace.py", t1.data, t1.len));
  mlc_sch_print_trace(r, &t2);
  CHECK_STR(mlc_sb_cstr(&t2), mlc_sb_cstr(&t1));
  CHECK(mlc_module_equal(mlc_sch_module(r), mlc_sch_module(f.s)));
  mlc_sch_free(r);
  mlc_vec_free(&t1);
  mlc_vec_free(&t2);
  fix_free(&f);
}

/* script errors: the message and where it points */
typedef struct ScriptErr { const char *script, *msg; int line, col; } ScriptErr;

static void test_script_errors(void) {
  static const ScriptErr cases[] = {
      {"b = sch.get_block(\"Y\"\n", "", 1, 0},
      {"b = sch.get_block(\"Y\")\nfor x in b:\n    pass\n", "calls `sch.PRIMITIVE(...)` and assignments only", 2, 1},
      {"b = sch.get_block(\"Y\")\n  # note\nsch.nothing(b)\n", "unknown schedule primitive 'nothing'", 3, 1},
      {"b = sch.get_block(\"Y\")\nl = sch.get_loops(b)\nsch.split(l[3], [2, 8])\n", "index 3 is out of range", 3, 13},
      {"b = sch.get_block(\"Y\")\nsch.get_loops(b, block=b)\n", "argument 'block' given twice", 2, 18},
      {"b = sch.get_block(\"Y\")\nsch.get_loops(b.x)\n", "must be a handle", 2, 15},
      {"b = sch.get_block(\"Y\")\nsch.split(sch.get_loops(b)[0], factors=[3, 5])\n", "split:", 2, 1},
      {"x, y = 1\n", "1 value to unpack into 2 names", 1, 1},
      {"b = sch.get_block(\"Y\")\n\n   \nsch.get_block(\"Q\")\n", "get_block: no block named 'Q'", 4, 1},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    Fix f = fix_new(MM);
    const MlcModule *before = f.m;
    CHECK(!run(&f, cases[i].script));
    CHECK(has_msg(&f, cases[i].msg));
    MlcLoc l = mlc_error_loc(f.ctx);
    CHECK(l.file && strcmp(l.file, "s.py") == 0);
    CHECK(l.line == cases[i].line);
    if (cases[i].col) CHECK(l.col == cases[i].col);
    CHECK(mlc_sch_module(f.s) == before);
    if (check__failed_now) printf("    case %zu: %s:%d:%d\n", i, l.file ? l.file : "?", l.line, l.col);
    fix_free(&f);
    if (check__failed_now) break;
  }
}

/* ---- internals ------------------------------------------------------------------------ */

static const MlcStmt *find_block(Fix *f, const char *name, SchPath *p) {
  CHECK(sch_find_block(f->s, name, p));
  return p->n ? p->nodes[p->n - 1] : NULL;
}

static void test_paths_and_loops(void) {
  Fix f = fix_new(MM);
  SchPath p;
  const MlcStmt *y = find_block(&f, "Y", &p);
  CHECK(y && y->kind == MLC_STMT_BLOCK_REALIZE);
  CHECK(p.nodes[0] == sch_func(f.s)->body);
  const MlcStmt *loops[8];
  CHECK(sch_path_loops(&p, loops, 8) == 3);
  CHECK_STR(loops[0]->loop.var->var.name, "i");
  CHECK_STR(loops[2]->loop.var->var.name, "k");
  CHECK(sch_path_loops(&p, loops, 2) == 2);
  SchPath lp;
  CHECK(sch_find_loop(f.s, loops[1]->loop.var, &lp));
  CHECK(lp.nodes[lp.n - 1] == loops[1]);
  const MlcStmt *kids[4];
  CHECK(sch_child_blocks(loops[0], kids, 4) == 1 && kids[0] == y);
  CHECK(sch_child_blocks(y, kids, 4) == 0);
  CHECK(sch_child_blocks(p.nodes[0], kids, 4) == 2);
  sch_path_free(&lp);
  sch_path_free(&p);
  CHECK(!sch_find_block(f.s, "nope", &p));
  CHECK(has_msg(&f, "no block named 'nope'"));
  fix_free(&f);
}

static void test_replace_and_commit(void) {
  Fix f = fix_new(MM);
  const MlcModule *m0 = mlc_sch_module(f.s);
  SchPath p;
  find_block(&f, "C", &p);
  const MlcStmt *outer = NULL; /* the outermost loop of C */
  for (int i = p.n - 1; i >= 0; i--)
    if (p.nodes[i]->kind == MLC_STMT_FOR) outer = p.nodes[i];
  /* removing C's nest removes it from the root's sequence */
  MlcStmt *body = sch_replace(f.s, outer, NULL);
  CHECK(body && body != sch_func(f.s)->body);
  f.s->running = MLC_SCH_compute_inline; /* as while a primitive runs */
  CHECK(sch_commit(f.s, body));
  f.s->running = -1;
  CHECK(mlc_sch_module(f.s) != m0);
  const MlcStmt *kids[4];
  CHECK(sch_child_blocks(sch_func(f.s)->body, kids, 4) == 1);
  CHECK(m0->funcs[0].prim != sch_func(f.s)); /* the old module is untouched */
  sch_path_free(&p);
  /* a body reading an undefined var is refused and nothing changes */
  const MlcModule *m1 = mlc_sch_module(f.s);
  find_block(&f, "Y", &p);
  const MlcStmt *y = p.nodes[p.n - 1];
  MlcExpr *ghost = mlc_e_var(f.ctx, "ghost", MLC_I32);
  MlcStmt *bad = mlc_s_for(f.ctx, ghost, mlc_e_int(f.ctx, MLC_I32, 0), ghost, MLC_FOR_SERIAL, NULL,
                           (MlcAttrs){0}, (MlcStmt *)y);
  f.s->running = MLC_SCH_split;
  CHECK(!sch_commit(f.s, sch_replace(f.s, y, bad)));
  f.s->running = -1;
  CHECK(has_msg(&f, "split: the result would be malformed"));
  CHECK(mlc_sch_module(f.s) == m1);
  sch_path_free(&p);
  fix_free(&f);
}

static void test_fresh_names(void) {
  Fix f = fix_new(MM);
  MlcExpr *a = sch_fresh_var(f.s, "i", MLC_I32), *b = sch_fresh_var(f.s, "i", MLC_I32);
  CHECK_STR(a->var.name, "i_1");
  CHECK_STR(b->var.name, "i_2");
  CHECK_STR(sch_fresh_var(f.s, "k0", MLC_I32)->var.name, "k0");
  CHECK_STR(sch_fresh_block_name(f.s, "Y"), "Y_1");
  CHECK_STR(sch_fresh_block_name(f.s, "Y_shared"), "Y_shared");
  CHECK_STR(sch_fresh_var(f.s, "A", MLC_I32)->var.name, "A_1"); /* buffers share the namespace */
  fix_free(&f);
}

static void test_classification(void) {
  Fix f = fix_new(MM);
  SchPath p;
  const MlcStmt *y = find_block(&f, "Y", &p);
  sch_path_free(&p);
  const MlcStmt *c = find_block(&f, "C", &p);
  sch_path_free(&p);
  CHECK(sch_is_reduction_block(y->realize.block) && !sch_is_complete_block(y->realize.block));
  CHECK(sch_is_complete_block(c->realize.block) && !sch_is_reduction_block(c->realize.block));
  CHECK(sch_affine_bindings(y) && sch_affine_bindings(c));
  /* i * j is not affine; (i * 4 + j) // 2 is, as split and fuse leave it */
  MlcExpr *i = y->realize.values[0], *j = y->realize.values[1];
  MlcExpr *vals[3] = {mlc_e_bin(f.ctx, MLC_BIN_MUL, i, j), j, y->realize.values[2]};
  MlcStmt *r = mlc_s_realize(f.ctx, vals, 3, NULL, y->realize.block);
  CHECK(r && !sch_affine_bindings(r));
  vals[0] = mlc_e_bin(f.ctx, MLC_BIN_FLOORDIV,
                      mlc_e_bin(f.ctx, MLC_BIN_ADD, mlc_e_bin(f.ctx, MLC_BIN_MUL, i, mlc_e_int(f.ctx, MLC_I32, 4)), j),
                      mlc_e_int(f.ctx, MLC_I32, 2));
  r = mlc_s_realize(f.ctx, vals, 3, NULL, y->realize.block);
  CHECK(r && sch_affine_bindings(r));
  fix_free(&f);
}

static void test_rng_seeded(void) {
  Fix f = fix_new(MM), g = fix_new(MM);
  MlcSchedule *h = mlc_sch_new(f.ctx, f.m, NULL, 8);
  bool same = true, differs = false;
  for (int i = 0; i < 16; i++) {
    uint64_t a = sch_rand(f.s), b = sch_rand(g.s), c = sch_rand(h);
    same &= a == b;
    differs |= a != c;
  }
  CHECK(same && differs);
  MlcSchedule *z = mlc_sch_new(f.ctx, f.m, NULL, 0);
  CHECK(sch_rand(z) != 0 && sch_rand(z) != sch_rand(z));
  mlc_sch_free(z);
  mlc_sch_free(h);
  fix_free(&f);
  fix_free(&g);
}

int main(void) {
  RUN(test_prim_table);
  RUN(test_new_picks_function);
  RUN(test_new_refuses_two_funcs);
  RUN(test_typed_handles);
  RUN(test_stale_loop_refused_unchanged);
  RUN(test_stale_block_refused);
  RUN(test_wrong_handle_kind);
  RUN(test_producers_consumers);
  RUN(test_trace_forms);
  RUN(test_trace_replays);
  RUN(test_lambda_kept_as_text);
  RUN(test_sampling_decision_recorded);
  RUN(test_script_errors);
  RUN(test_paths_and_loops);
  RUN(test_replace_and_commit);
  RUN(test_fresh_names);
  RUN(test_classification);
  RUN(test_rng_seeded);
  return CHECK_DONE();
}
