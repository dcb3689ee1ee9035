/* test_onnx_rnn.c - ONNX's RNN, GRU and LSTM imported, compiled, run and
 * compared with a plain C reference of the cells: both directions,
 * sequence lengths shorter than the input, initial states, biases,
 * peepholes, clip and GRU's linear_before_reset, which the conformance
 * suite leaves out, batch-major layout and LSTM's input_forget.  Each case runs over a short sequence (unrolled at
 * import) and a long one (a loop over time); an LSTM runs over 5000 steps,
 * and models whose sequence length is a symbolic dim run at two lengths
 * chosen when they run. */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "onnx_build.h"
#include "rand_util.h"

enum { T = 4, LONG = 40, MAXT = 5000, B = 3, I = 2, H = 3, D = 2, MAXG = 4 };

typedef enum { K_RNN, K_GRU, K_LSTM } Kind;
static const int GATES[] = {1, 3, 4};
static const char *const OP[] = {"RNN", "GRU", "LSTM"};

typedef struct Case {
  Kind kind;
  int dirs;          /* 1 (forward or reverse) or 2 */
  bool reverse;      /* with dirs 1 */
  bool lbr;          /* GRU linear_before_reset */
  float clip;        /* 0: none */
  int steps;         /* the sequence's length, at most MAXT */
  bool symbolic;     /* the model declares the length as a dim_param */
  bool layout1;      /* batch-major X, Y, states (layout = 1) */
  bool input_forget; /* LSTM: f = 1 - i */
  float x[MAXT][B][I], w[D][MAXG * H][I], r[D][MAXG * H][H], b[D][2 * MAXG * H], p[D][3 * H];
  float h0[D][B][H], c0[D][B][H];
  int32_t lens[B];
} Case;

static char tmpdir[4096];

/* ---- the plain C reference ------------------------------------------------------------- */

static float sigm(float v) { return 1.0f / (1.0f + expf(-v)); }
static float clipv(const Case *c, float v) { return c->clip > 0 ? fminf(fmaxf(v, -c->clip), c->clip) : v; }

/* y[t][d][b][h], yh[d][b][h], yc[d][b][h] */
static void reference(const Case *c, float y[MAXT][D][B][H], float yh[D][B][H], float yc[D][B][H]) {
  int G = GATES[c->kind];
  memset(y, 0, sizeof(float) * (size_t)c->steps * D * B * H);
  for (int d = 0; d < c->dirs; d++)
    for (int bi = 0; bi < B; bi++) {
      float h[H], cc[H];
      memcpy(h, c->h0[d][bi], sizeof h);
      memcpy(cc, c->c0[d][bi], sizeof cc);
      bool rev = c->dirs == 2 ? d == 1 : c->reverse;
      int len = c->lens[bi];
      for (int s = 0; s < len; s++) {
        int t = rev ? len - 1 - s : s;
        float xg[MAXG * H], hg[MAXG * H], hn[H], cn[H];
        for (int g = 0; g < G * H; g++) {
          xg[g] = c->b[d][g], hg[g] = c->b[d][G * H + g];
          for (int k = 0; k < I; k++) xg[g] += c->w[d][g][k] * c->x[t][bi][k];
          for (int k = 0; k < H; k++) hg[g] += c->r[d][g][k] * h[k];
        }
        for (int j = 0; j < H; j++) {
          if (c->kind == K_RNN) {
            hn[j] = tanhf(clipv(c, xg[j] + hg[j]));
          } else if (c->kind == K_GRU) {
            float z = sigm(clipv(c, xg[j] + hg[j]));
            float pre = xg[2 * H + j];
            if (c->lbr) {
              pre += sigm(clipv(c, xg[H + j] + hg[H + j])) * hg[2 * H + j];
            } else {
              pre += c->b[d][G * H + 2 * H + j];
              for (int k = 0; k < H; k++) pre += c->r[d][2 * H + j][k] * sigm(clipv(c, xg[H + k] + hg[H + k])) * h[k];
            }
            hn[j] = (1 - z) * tanhf(clipv(c, pre)) + z * h[j];
          } else {
            float gi = xg[j] + hg[j] + c->p[d][j] * cc[j];
            float go = xg[H + j] + hg[H + j];
            float gf = xg[2 * H + j] + hg[2 * H + j] + c->p[d][2 * H + j] * cc[j];
            float gc = xg[3 * H + j] + hg[3 * H + j];
            float si = sigm(clipv(c, gi)), sf = c->input_forget ? 1 - si : sigm(clipv(c, gf));
            cn[j] = sf * cc[j] + si * tanhf(clipv(c, gc));
            hn[j] = sigm(clipv(c, go + c->p[d][H + j] * cn[j])) * tanhf(clipv(c, cn[j]));
          }
        }
        memcpy(h, hn, sizeof h);
        if (c->kind == K_LSTM) memcpy(cc, cn, sizeof cc);
        for (int j = 0; j < H; j++) y[t][d][bi][j] = h[j];
      }
      memcpy(yh[d][bi], h, sizeof h);
      memcpy(yc[d][bi], cc, sizeof cc);
    }
}

/* ---- the ONNX model -------------------------------------------------------------------- */

/* the packed model of case c */
static uint8_t *pack_case(const Case *c, size_t *len) {
  int G = GATES[c->kind], nd = c->dirs;
  static float w[D * MAXG * H * I], r[D * MAXG * H * H], b[D * 2 * MAXG * H], p[D * 3 * H], h0[D * B * H], c0[D * B * H];
  for (int d = 0; d < nd; d++) {
    memcpy(w + d * G * H * I, c->w[d], sizeof(float) * (size_t)(G * H * I));
    for (int g = 0; g < G * H; g++) memcpy(r + (d * G * H + g) * H, c->r[d][g], sizeof(float) * H);
    memcpy(b + d * 2 * G * H, c->b[d], sizeof(float) * (size_t)(2 * G * H));
    memcpy(p + d * 3 * H, c->p[d], sizeof(float) * 3 * H);
    for (int bi = 0; bi < B; bi++) { /* [D, B, H], or [B, D, H] with layout 1 */
      int at = (c->layout1 ? bi * nd + d : d * B + bi) * H;
      memcpy(h0 + at, c->h0[d][bi], sizeof(float) * H);
      memcpy(c0 + at, c->c0[d][bi], sizeof(float) * H);
    }
  }
  for (int d = 0; d < nd; d++)
    for (int g = 0; g < G * H; g++) memcpy(w + (d * G * H + g) * I, c->w[d][g], sizeof(float) * I);
  const int F = ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT;
  Init inits[7] = {
      {"W", 3, {nd, G * H, I}, w, sizeof(float) * (size_t)(nd * G * H * I), F},
      {"R", 3, {nd, G * H, H}, r, sizeof(float) * (size_t)(nd * G * H * H), F},
      {"B", 2, {nd, 2 * G * H}, b, sizeof(float) * (size_t)(nd * 2 * G * H), F},
      {"lens", 1, {B}, c->lens, sizeof c->lens, ONNX__TENSOR_PROTO__DATA_TYPE__INT32},
      {"h0", 3, {c->layout1 ? B : nd, c->layout1 ? nd : B, H}, h0, sizeof(float) * (size_t)(nd * B * H), F},
      {"c0", 3, {c->layout1 ? B : nd, c->layout1 ? nd : B, H}, c0, sizeof(float) * (size_t)(nd * B * H), F},
      {"P", 2, {nd, 3 * H}, p, sizeof(float) * (size_t)(nd * 3 * H), F},
  };
  int n_init = c->kind == K_LSTM ? 7 : 5;
  Onnx__TensorProto *tps[7];
  for (int i = 0; i < n_init; i++) tps[i] = tensor(&inits[i]);
  char *ins[8] = {"X", "W", "R", "B", "lens", "h0", "c0", "P"};
  char *outs[3] = {"Y", "Y_h", "Y_c"};
  Onnx__AttributeProto *attrs[6] = {int_attr("hidden_size", H),
                                    str_attr("direction", nd == 2 ? "bidirectional" : c->reverse ? "reverse" : "forward")};
  int n_attrs = 2;
  if (c->kind == K_GRU) attrs[n_attrs++] = int_attr("linear_before_reset", c->lbr);
  if (c->clip > 0) attrs[n_attrs++] = float_attr("clip", c->clip);
  if (c->layout1) attrs[n_attrs++] = int_attr("layout", 1);
  if (c->input_forget) attrs[n_attrs++] = int_attr("input_forget", 1);
  Onnx__NodeProto node;
  onnx__node_proto__init(&node);
  node.op_type = (char *)OP[c->kind], node.name = "cell";
  node.input = ins, node.n_input = c->kind == K_LSTM ? 8 : 6;
  node.output = outs, node.n_output = c->kind == K_LSTM ? 3 : 2;
  node.attribute = attrs, node.n_attribute = (size_t)n_attrs;
  Onnx__NodeProto *nodes[1] = {&node};
  int64_t xd[3] = {c->layout1 ? B : c->steps, c->layout1 ? c->steps : B, I};
  Onnx__ValueInfoProto *gin[1] = {value("X", xd, 3)};
  if (c->symbolic) {
    Onnx__TensorShapeProto__Dimension *t = gin[0]->type->tensor_type->shape->dim[c->layout1 ? 1 : 0];
    t->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM, t->dim_param = "T";
  }
  Onnx__ValueInfoProto *gout[3] = {value("Y", NULL, 0), value("Y_h", NULL, 0), value("Y_c", NULL, 0)};
  Onnx__GraphProto g;
  onnx__graph_proto__init(&g);
  g.name = "g", g.node = nodes, g.n_node = 1, g.input = gin, g.n_input = 1;
  g.output = gout, g.n_output = c->kind == K_LSTM ? 3 : 2, g.initializer = tps, g.n_initializer = (size_t)n_init;
  Onnx__OperatorSetIdProto os, *osp[1] = {&os};
  onnx__operator_set_id_proto__init(&os);
  os.domain = "", os.has_version = 1, os.version = 14;
  Onnx__ModelProto m;
  onnx__model_proto__init(&m);
  m.has_ir_version = 1, m.ir_version = 7, m.graph = &g, m.opset_import = osp, m.n_opset_import = 1;
  *len = onnx__model_proto__get_packed_size(&m);
  uint8_t *buf = malloc(*len);
  onnx__model_proto__pack(&m, buf);
  for (int i = 0; i < n_init; i++) free(tps[i]);
  for (int i = 0; i < n_attrs; i++) free(attrs[i]);
  free_value(gin[0]);
  for (int i = 0; i < 3; i++) free_value(gout[i]);
  return buf;
}

/* ---- running a case ----------------------------------------------------------------------- */

/* a case of `steps` steps: batch entry 0 runs them all, 1 about half, 2 one */
static void fill_case(Case *c, Kind kind, int dirs, int steps, uint64_t seed) {
  memset(c, 0, sizeof *c);
  c->kind = kind, c->dirs = dirs, c->steps = steps;
  rand_util_state = seed;
  float *all = (float *)c->x;
  size_t n = (offsetof(Case, lens) - offsetof(Case, x)) / sizeof(float);
  for (size_t i = 0; i < n; i++) all[i] = (float)urand() * 1.6f - 0.8f;
  c->lens[0] = steps, c->lens[1] = steps > 3 ? steps / 2 : 2, c->lens[2] = 1;
}

static bool close_all(const float *got, const float *want, size_t n, const char *what) {
  for (size_t i = 0; i < n; i++)
    if (!(fabsf(got[i] - want[i]) <= 1e-5f + 1e-4f * fabsf(want[i]))) {
      printf("    %s[%zu]: %g, expected %g\n", what, i, got[i], want[i]);
      return false;
    }
  return true;
}

/* the loaded model run on c's input and compared with the reference */
static void check_run(MlcrtModel *rm, const Case *c) {
  static float xt[MAXT * B * I];
  const float *xp = &c->x[0][0][0];
  int64_t xs[3] = {c->steps, B, I};
  if (c->layout1) { /* [B, T, I] */
    for (int bi = 0; bi < B; bi++)
      for (int t = 0; t < c->steps; t++) memcpy(xt + ((size_t)bi * c->steps + t) * I, c->x[t][bi], sizeof(float) * I);
    xp = xt, xs[0] = B, xs[1] = c->steps;
  }
  DLTensor x = {.data = (void *)xp, .device = {kDLCPU, 0}, .ndim = 3, .dtype = {kDLFloat, 32, 1}, .shape = xs};
  DLTensor *in[1] = {&x}, *out[3] = {NULL};
  int n_out = c->kind == K_LSTM ? 3 : 2;
  int rc = mlcrt_model_run(rm, in, 1, out, n_out);
  if (rc) printf("    run: %s\n", mlcrt_last_error());
  CHECK(rc == 0);
  static float y[MAXT][D][B][H], yh[D][B][H], yc[D][B][H];
  reference(c, y, yh, yc);
  if (rc == 0) {
    /* Y is [T, dirs, B, H] ([B, T, dirs, H] with layout 1), Y_h and Y_c
     * [dirs, B, H] ([B, dirs, H]): repack the reference's first dirs directions */
    static float yw[MAXT * D * B * H], hw[D * B * H], cw[D * B * H];
    size_t k = 0, m = 0;
    for (int o = 0; o < (c->layout1 ? B : c->steps); o++)
      for (int i = 0; i < (c->layout1 ? c->steps : 1); i++)
        for (int d = 0; d < c->dirs; d++)
          for (int bi = 0; bi < (c->layout1 ? 1 : B); bi++)
            for (int j = 0; j < H; j++) yw[k++] = c->layout1 ? y[i][d][o][j] : y[o][d][bi][j];
    for (int o = 0; o < (c->layout1 ? B : c->dirs); o++)
      for (int i = 0; i < (c->layout1 ? c->dirs : B); i++, m += H) {
        memcpy(hw + m, c->layout1 ? yh[i][o] : yh[o][i], sizeof(float) * H);
        memcpy(cw + m, c->layout1 ? yc[i][o] : yc[o][i], sizeof(float) * H);
      }
    int ta = c->layout1 ? 1 : 0;
    CHECK(out[0]->ndim == 4 && out[0]->shape[ta] == c->steps && out[0]->shape[ta + 1] == c->dirs);
    if (out[0]->ndim == 4 && out[0]->shape[ta] == c->steps) CHECK(close_all(out[0]->data, yw, k, "Y"));
    CHECK(close_all(out[1]->data, hw, m, "Y_h"));
    if (c->kind == K_LSTM) CHECK(close_all(out[2]->data, cw, m, "Y_c"));
  }
}

/* c's model built; then run on c, and on c cut to each of the other lengths (a symbolic model) */
static void run_case_at(const Case *c, const int *other, int n_other) {
  size_t len;
  uint8_t *buf = pack_case(c, &len);
  char dir[4200];
  static int count;
  snprintf(dir, sizeof dir, "%s/m%d", tmpdir, count++);
  MlcrtModel *rm = onnx_build_load(buf, len, dir);
  free(buf);
  CHECK(rm != NULL);
  if (rm) {
    check_run(rm, c);
    static Case cut;
    for (int i = 0; i < n_other; i++) {
      cut = *c;
      cut.steps = other[i];
      for (int b = 0; b < B; b++) cut.lens[b] = c->lens[b] < other[i] ? c->lens[b] : other[i];
      check_run(rm, &cut);
    }
    mlcrt_model_free(rm);
  }
  bu_remove_dir(dir);
}

static void run_case(const Case *c) { run_case_at(c, NULL, 0); }

static Case cs; /* large: not on the stack */

static void rnn_cases(int steps) {
  fill_case(&cs, K_RNN, 1, steps, 11);
  cs.reverse = true;
  run_case(&cs);
  fill_case(&cs, K_RNN, 2, steps, 12);
  cs.clip = 0.5f;
  run_case(&cs);
}

static void gru_cases(int steps) {
  fill_case(&cs, K_GRU, 2, steps, 13);
  run_case(&cs);
  fill_case(&cs, K_GRU, 2, steps, 14);
  cs.lbr = true;
  run_case(&cs);
  fill_case(&cs, K_GRU, 1, steps, 15);
  cs.lbr = true, cs.reverse = true, cs.clip = 0.7f;
  run_case(&cs);
}

static void lstm_cases(int steps) {
  fill_case(&cs, K_LSTM, 2, steps, 16);
  run_case(&cs);
  fill_case(&cs, K_LSTM, 1, steps, 17);
  cs.reverse = true, cs.clip = 0.6f;
  run_case(&cs);
  fill_case(&cs, K_LSTM, 2, steps, 22);
  cs.layout1 = true, cs.input_forget = true;
  run_case(&cs);
  fill_case(&cs, K_GRU, 2, steps, 23);
  cs.layout1 = true;
  run_case(&cs);
}

static void test_rnn_unrolled(void) { rnn_cases(T); }
static void test_gru_unrolled(void) { gru_cases(T); }
static void test_lstm_unrolled(void) { lstm_cases(T); }
static void test_rnn_loop(void) { rnn_cases(LONG); }
static void test_gru_loop(void) { gru_cases(LONG); }
static void test_lstm_loop(void) { lstm_cases(LONG); }

/* 5000 steps: more than the unrolled import ever took */
static void test_lstm_5000_steps(void) {
  fill_case(&cs, K_LSTM, 2, MAXT, 18);
  run_case(&cs);
}

/* the length a dim_param: one model run at the declared length's data and two others */
static void test_symbolic_length(void) {
  static const int other[2] = {3, 29};
  fill_case(&cs, K_LSTM, 2, LONG, 19);
  cs.symbolic = true;
  run_case_at(&cs, other, 2);
  fill_case(&cs, K_GRU, 1, LONG, 20);
  cs.symbolic = true, cs.reverse = true, cs.lbr = true;
  run_case_at(&cs, other, 2);
  fill_case(&cs, K_RNN, 1, LONG, 21);
  cs.symbolic = true, cs.reverse = true, cs.layout1 = true;
  run_case_at(&cs, other, 2);
}

/* MlcOnnxOptions.unroll_steps: what a target without loops (the GPU
 * targets) asks for; 40 steps unrolled there, a loop by default, and never
 * more than the cap unrolled */
static bool imports_loop(const Case *c, int64_t unroll_steps) {
  size_t len;
  uint8_t *buf = pack_case(c, &len);
  MlcCtx *ctx = mlc_ctx_new();
  MlcOnnxOptions opt = {.unroll_steps = unroll_steps};
  MlcModule *m = mlc_onnx_import(ctx, "rnn.onnx", buf, len, NULL, &opt);
  CHECK(m != NULL);
  MlcStrBuf sb = {0};
  if (m) mlc_print_module(m, &sb);
  bool loop = m && strstr(mlc_sb_cstr(&sb), "R.loop(") != NULL;
  mlc_vec_free(&sb);
  mlc_ctx_free(ctx);
  free(buf);
  return loop;
}

static void test_unroll_option(void) {
  fill_case(&cs, K_LSTM, 2, LONG, 24);
  CHECK(imports_loop(&cs, 0));
  CHECK(!imports_loop(&cs, 64));
  fill_case(&cs, K_LSTM, 2, MAXT, 25);
  CHECK(imports_loop(&cs, 1 << 20)); /* 5000 steps x 2 directions: over the cap */
}

int main(void) {
  if (!bu_make_tmpdir(tmpdir, sizeof tmpdir, "mlcc-rnn")) {
    printf("FAIL setup: cannot create a temporary directory\n");
    return 1;
  }
  RUN(test_unroll_option);
  RUN(test_rnn_unrolled);
  RUN(test_gru_unrolled);
  RUN(test_lstm_unrolled);
  RUN(test_rnn_loop);
  RUN(test_gru_loop);
  RUN(test_lstm_loop);
  RUN(test_lstm_5000_steps);
  RUN(test_symbolic_length);
  bu_remove_dir(tmpdir);
  return CHECK_DONE();
}
