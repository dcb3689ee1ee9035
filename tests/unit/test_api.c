/* test_api.c - the stable C API (include/mlcc/mlcc.h) as an embedder uses
 * it: only opaque handles and the last-error text.  Numbers are checked
 * against plain C loops; refusals against the message and the unchanged
 * module. */
#include "mlcc/mlcc.h"

#include "build_util.h"
#include "check.h"

#include <math.h>

static const char *MM =
    "@T.prim_func\n"
    "def mm(A: T.Buffer((8, 16), \"float32\"), B: T.Buffer((16, 4), \"float32\"), C: T.Buffer((8, 4), \"float32\")):\n"
    "    for i, j, k in T.grid(8, 4, 16):\n"
    "        with T.block(\"C\"):\n"
    "            vi, vj, vk = T.axis.remap(\"SSR\", [i, j, k])\n"
    "            with T.init():\n"
    "                C[vi, vj] = T.float32(0)\n"
    "            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]\n";

static float A[8 * 16], B[16 * 4], C[8 * 4], R[8 * 4];

static void fill_mm(void) {
  for (int i = 0; i < 8 * 16; i++) A[i] = (float)((i * 7) % 11) - 5.0f;
  for (int i = 0; i < 16 * 4; i++) B[i] = (float)((i * 5) % 9) * 0.25f;
  for (int i = 0; i < 8; i++)
    for (int j = 0; j < 4; j++) {
      float s = 0;
      for (int k = 0; k < 16; k++) s += A[i * 16 + k] * B[k * 4 + j];
      R[i * 4 + j] = s;
    }
}

static DLTensor tensor(float *data, int64_t *shape, int ndim) {
  DLTensor t = {.data = data, .device = {kDLCPU, 0}, .ndim = ndim, .dtype = {kDLFloat, 32, 1}, .shape = shape};
  return t;
}

static bool close_to(const float *x, const float *y, int n) {
  for (int i = 0; i < n; i++)
    if (fabsf(x[i] - y[i]) > 1e-4f * (1 + fabsf(y[i]))) return false;
  return true;
}

static MlccValue v_int(int64_t i) { return (MlccValue){.kind = MLCC_V_INT, .i = i}; }

static void test_parse_errors_are_messages(void) {
  MlccContext *c = mlcc_context_new();
  CHECK(mlcc_module_parse(c, "bad.py", "def f($):\n", 10) == NULL);
  CHECK(strstr(mlcc_last_error(c), "bad.py:1:7: error:") != NULL);
  MlccModule *m = mlcc_module_parse(c, "mm.py", MM, strlen(MM));
  CHECK(m != NULL);
  CHECK_STR(mlcc_last_error(c), ""); /* a good call clears the last error */
  char *text = mlcc_module_print(c, m);
  MlccModule *again = mlcc_module_parse(c, "printed", text, strlen(text));
  CHECK(again && mlcc_module_equal(m, again) && mlcc_module_hash(m) == mlcc_module_hash(again));
  CHECK(mlcc_module_diff(c, m, again) == NULL);
  mlcc_free(text);
  CHECK(mlcc_module_num_funcs(m) == 1 && strcmp(mlcc_module_func_name(m, 0), "mm") == 0);
  CHECK(mlcc_module_func_is_graph(m, 0) == 0 && mlcc_module_func_is_graph(m, 1) == -1);
  MlccModule *r = mlcc_module_rename(c, m, "mm", "mm2");
  CHECK(r && strcmp(mlcc_module_func_name(r, 0), "mm2") == 0 && strcmp(mlcc_module_func_name(m, 0), "mm") == 0);
  CHECK(mlcc_module_rename(c, m, "absent", "x") == NULL && strstr(mlcc_last_error(c), "absent"));
  MlccModule *both = r ? mlcc_module_update(c, m, r) : NULL;
  CHECK(both && mlcc_module_num_funcs(both) == 2);
  CHECK(both && mlcc_module_rename(c, both, "mm", "mm2") == NULL && strstr(mlcc_last_error(c), "already"));
  mlcc_context_free(c);
}

static void test_schedule_by_table_and_refusal(void) {
  MlccContext *c = mlcc_context_new();
  MlccModule *m = mlcc_module_parse(c, "mm.py", MM, strlen(MM));
  MlccSchedule *s = mlcc_schedule_new(c, m, NULL, 1);
  CHECK(s != NULL);
  bool found = false;
  for (int i = 0; i < mlcc_schedule_num_prims(); i++)
    if (strcmp(mlcc_schedule_prim_name(i), "split") == 0)
      found = strcmp(mlcc_schedule_prim_params(i), "loop factors preserve_unit_iters") == 0;
  CHECK(found);
  MlccValue outs[16];
  int n = 0;
  MlccValue name = {.kind = MLCC_V_STR, .s = "C"};
  CHECK(mlcc_schedule_apply(s, "get_block", &name, 1, outs, 16, &n) == 0 && n == 1 && outs[0].kind == MLCC_V_BLOCK);
  MlccValue block = outs[0];
  CHECK(mlcc_schedule_apply(s, "get_loops", &block, 1, outs, 16, &n) == 0 && n == 3);
  MlccValue k = outs[2];
  const MlccModule *before = mlcc_schedule_module(s);
  /* refused: 3 * 5 is not 16; the module and trace stay */
  MlccValue bad[2] = {k, {.kind = MLCC_V_LIST, .n = 2, .items = (MlccValue[]){v_int(3), v_int(5)}}};
  char *trace0 = mlcc_schedule_trace(s);
  CHECK(mlcc_schedule_apply(s, "split", bad, 2, outs, 16, &n) != 0);
  CHECK(strstr(mlcc_last_error(c), "split") != NULL);
  CHECK(mlcc_schedule_module(s) == before);
  char *trace1 = mlcc_schedule_trace(s);
  CHECK_STR(trace0, trace1);
  CHECK(mlcc_schedule_apply(s, "no_such_primitive", NULL, 0, outs, 16, &n) != 0);
  CHECK(strstr(mlcc_last_error(c), "no_such_primitive") != NULL);
  MlccValue wrong = {.kind = 99};
  CHECK(mlcc_schedule_apply(s, "get_loops", &wrong, 1, outs, 16, &n) != 0);
  /* accepted: k by 4, then build and compare with plain C */
  MlccValue ok[2] = {k, {.kind = MLCC_V_LIST, .n = 2, .items = (MlccValue[]){{.kind = MLCC_V_NONE}, v_int(4)}}};
  CHECK(mlcc_schedule_apply(s, "split", ok, 2, outs, 16, &n) == 0 && n == 2);
  char *trace2 = mlcc_schedule_trace(s);
  CHECK(strstr(trace2, "sch.split(loop=l3, factors=[None, 4]") != NULL);
  char dir[256];
  CHECK(bu_make_tmpdir(dir, sizeof dir, "api"));
  char so[300];
  snprintf(so, sizeof so, "%s/mm.so", dir);
  CHECK(mlcc_build_kernels(c, mlcc_schedule_module(s), so) == 0);
  MlccLib *lib = mlcc_lib_load(c, so);
  CHECK(lib && !mlcc_lib_is_model(lib) && mlcc_lib_num_funcs(lib) == 1);
  if (lib) {
    CHECK(mlcc_lib_num_params(lib, 0) == 3 && mlcc_lib_param_dim(lib, 0, 1, 0) == 16);
    CHECK_STR(mlcc_lib_param_dtype(lib, 0, 2), "float32");
    fill_mm();
    int64_t sa[2] = {8, 16}, sb[2] = {16, 4}, sc[2] = {8, 4};
    DLTensor ta = tensor(A, sa, 2), tb = tensor(B, sb, 2), tc = tensor(C, sc, 2);
    DLTensor *args[3] = {&ta, &tb, &tc};
    CHECK(mlcc_lib_call(c, lib, "mm", args, 3) == 0);
    CHECK(close_to(C, R, 32));
    DLTensor *wrong_args[3] = {&tb, &ta, &tc};
    CHECK(mlcc_lib_call(c, lib, "mm", wrong_args, 3) != 0 && strstr(mlcc_last_error(c), "argument 'A'"));
    double mean = 0, median = 0, min = 0;
    CHECK(mlcc_lib_time(c, lib, "mm", args, 3, 2, 2, &mean, &median, &min) == 0 && mean > 0 && min > 0);
    mlcc_lib_free(lib);
  }
  bu_remove_dir(dir);
  mlcc_free(trace0);
  mlcc_free(trace1);
  mlcc_free(trace2);
  mlcc_schedule_free(s);
  mlcc_context_free(c);
}

/* out = relu(x @ w + 1) through TE (the matmul) and the graph builder */
static void test_te_and_graph_builder_model(void) {
  MlccContext *c = mlcc_context_new();
  MlccExpr *d8 = mlcc_expr_int(c, 8, "int64"), *d16 = mlcc_expr_int(c, 16, "int64"), *d4 = mlcc_expr_int(c, 4, "int64");
  MlccExpr *sa[2] = {d8, d16}, *sb[2] = {d16, d4}, *sc[2] = {d8, d4};
  MlccTensor *ta = mlcc_te_placeholder(c, "A", sa, 2, "float32");
  MlccTensor *tb = mlcc_te_placeholder(c, "B", sb, 2, "float32");
  MlccExpr *i = mlcc_te_var(c, "i"), *j = mlcc_te_var(c, "j"), *k = mlcc_te_var(c, "k");
  MlccExpr *ik[2] = {i, k}, *kj[2] = {k, j}, *axes[2] = {i, j};
  MlccExpr *body = mlcc_expr_binary(c, "*", mlcc_te_read(c, ta, ik, 2), mlcc_te_read(c, tb, kj, 2));
  MlccTensor *tc = mlcc_te_reduce(c, "C", sc, 2, axes, "sum", body, &k, &d16, 1);
  CHECK(tc != NULL);
  CHECK(mlcc_te_reduce(c, "C", sc, 2, axes, "product", body, &k, &d16, 1) == NULL);
  CHECK(strstr(mlcc_last_error(c), "product") != NULL);
  MlccTensor *params[3] = {ta, tb, tc};
  MlccModule *kernels = mlcc_te_create_prim_func(c, "te_mm", params, 3);
  CHECK(kernels != NULL);

  MlccSInfo *sx = mlcc_sinfo_tensor(c, sa, 2, "float32"), *sw = mlcc_sinfo_tensor(c, sb, 2, "float32");
  MlccSInfo *so = mlcc_sinfo_tensor(c, sc, 2, "float32");
  MlccGExpr *x = mlcc_g_var(c, "x", sx), *w = mlcc_g_var(c, "w", sw);
  MlccGExpr *ps[2] = {x, w};
  MlccFuncBuilder *fb = mlcc_fb_new(c, "main", ps, 2);
  CHECK(mlcc_fb_begin_block(fb, 1) == 0);
  MlccGExpr *lv0 = mlcc_fb_emit(fb, mlcc_g_call_tir(c, "te_mm", ps, 2, so), "lv0", 0);
  float one = 1.0f;
  int64_t scalar_shape[1] = {1};
  MlccGExpr *cst = mlcc_fb_emit(fb, mlcc_g_const(c, "float32", scalar_shape, 1, &one, sizeof one), "one", 0);
  MlccGExpr *add_args[2] = {lv0, cst};
  MlccGExpr *lv1 = mlcc_fb_emit(fb, mlcc_g_call_op(c, "add", add_args, 2, NULL, NULL, 0), "lv1", 0);
  CHECK(lv1 && mlcc_sinfo_ndim(mlcc_g_sinfo(lv1)) == 2);
  MlccGExpr *bad_args[2] = {x, x}; /* (8, 16) @ (8, 16) */
  CHECK(mlcc_g_call_op(c, "matmul", bad_args, 2, NULL, NULL, 0) == NULL);
  CHECK(strstr(mlcc_last_error(c), "matmul") != NULL);
  MlccGExpr *gv = mlcc_fb_emit(fb, mlcc_g_call_op(c, "nn.relu", &lv1, 1, NULL, NULL, 0), "gv", 1);
  CHECK(mlcc_fb_end_block(fb) == 0);
  MlccModule *graph = mlcc_fb_finish(fb, gv);
  mlcc_fb_free(fb);
  CHECK(graph != NULL);
  MlccModule *whole = mlcc_module_update(c, kernels, graph);
  CHECK(whole && mlcc_module_num_funcs(whole) == 2);
  CHECK(mlcc_gfunc_num_blocks(whole, "main") == 1 && mlcc_gfunc_block_size(whole, "main", 0) == 4);
  MlccGExpr *v2 = mlcc_gfunc_binding_value(whole, "main", 0, 2);
  CHECK(mlcc_g_kind(v2) == MLCC_G_CALL && strcmp(mlcc_g_name(v2), "add") == 0 && mlcc_g_num_args(v2) == 2);

  MlccModule *lowered = mlcc_pipeline(c, whole, NULL, "none");
  CHECK(lowered != NULL);
  CHECK(mlcc_pipeline(c, whole, "no_such_pass", NULL) == NULL && strstr(mlcc_last_error(c), "no_such_pass"));
  char dir[256];
  CHECK(bu_make_tmpdir(dir, sizeof dir, "api-model"));
  CHECK(lowered && mlcc_build_model(c, lowered, dir, NULL) == 0);
  MlccLib *lib = mlcc_lib_load(c, dir);
  CHECK(lib && mlcc_lib_is_model(lib) && mlcc_lib_num_inputs(lib, 0) == 2 && mlcc_lib_num_params(lib, 0) == 3);
  if (lib) {
    fill_mm();
    int64_t ha[2] = {8, 16}, hb[2] = {16, 4};
    DLTensor xa = tensor(A, ha, 2), xb = tensor(B, hb, 2);
    DLTensor *in[2] = {&xa, &xb}, *out[1] = {NULL};
    CHECK(mlcc_lib_run(c, lib, in, 2, out, 1) == 0 && out[0] && out[0]->ndim == 2);
    if (out[0]) {
      for (int e = 0; e < 32; e++) R[e] = R[e] + 1.0f > 0 ? R[e] + 1.0f : 0.0f;
      CHECK(close_to((const float *)out[0]->data, R, 32));
    }
    mlcc_lib_free(lib);
  }
  bu_remove_dir(dir);
  mlcc_context_free(c);
}

/* the tuner through the API: records appended per trial, applied by
 * mlcc_apply_records, the tuned kernel checked against plain C */
static void test_tune_and_records(void) {
  MlccContext *c = mlcc_context_new();
  MlccModule *m = mlcc_module_parse(c, "mm.py", MM, strlen(MM));
  CHECK(m != NULL);
  char dir[256], db[300], so[300], missing[300];
  CHECK(bu_make_tmpdir(dir, sizeof dir, "api-tune"));
  snprintf(db, sizeof db, "%s/mm.jsonl", dir);
  snprintf(so, sizeof so, "%s/mm.so", dir);
  snprintf(missing, sizeof missing, "%s/none.jsonl", dir);
  MlccTuneOptions o = {.trials = 2, .batch = 2, .seed = 4};
  CHECK(mlcc_tune(c, m, db, &o) == 0);
  FILE *f = fopen(db, "r");
  int lines = 0, ch;
  while (f && (ch = fgetc(f)) != EOF) lines += ch == '\n';
  if (f) fclose(f);
  CHECK(lines == 2);
  const char *paths[1] = {db};
  int applied = -1, failed = -1;
  MlccModule *t = mlcc_apply_records(c, m, paths, 1, &applied, &failed);
  CHECK(t && applied == 1 && failed == 0 && !mlcc_module_equal(t, m));
  CHECK(t && mlcc_build_kernels_for(c, t, so, "native") == 0);
  MlccLib *lib = t ? mlcc_lib_load(c, so) : NULL;
  CHECK(lib != NULL);
  if (lib) {
    fill_mm();
    memset(C, 0, sizeof C);
    int64_t sa[2] = {8, 16}, sb[2] = {16, 4}, sc[2] = {8, 4};
    DLTensor ta = tensor(A, sa, 2), tb = tensor(B, sb, 2), tc = tensor(C, sc, 2);
    DLTensor *args[3] = {&ta, &tb, &tc};
    CHECK(mlcc_lib_call(c, lib, "mm", args, 3) == 0);
    CHECK(close_to(C, R, 32));
    mlcc_lib_free(lib);
  }
  /* refusals are messages */
  CHECK(mlcc_build_kernels_for(c, m, so, "rocm") != 0 && strstr(mlcc_last_error(c), "'rocm'"));
  CHECK(mlcc_pipeline_for(c, m, "tpu", NULL, 0, NULL, NULL) == NULL && strstr(mlcc_last_error(c), "'tpu'"));
  CHECK(mlcc_tune(c, m, NULL, &o) != 0 && strstr(mlcc_last_error(c), "records"));
  o.trials = -1;
  CHECK(mlcc_tune(c, m, db, &o) != 0 && strstr(mlcc_last_error(c), "negative"));
  const char *gone[1] = {missing};
  CHECK(mlcc_apply_records(c, m, gone, 1, NULL, NULL) == NULL && strstr(mlcc_last_error(c), "none.jsonl"));
  /* a kernel not bound to GPU threads is refused for a GPU, with the loop named */
  CHECK(mlcc_build_kernels_for(c, m, so, "opencl") != 0 && strstr(mlcc_last_error(c), "not bound"));
  bu_remove_dir(dir);
  mlcc_context_free(c);
}

int main(void) {
  RUN(test_parse_errors_are_messages);
  RUN(test_schedule_by_table_and_refusal);
  RUN(test_te_and_graph_builder_model);
  RUN(test_tune_and_records);
  return CHECK_DONE();
}
