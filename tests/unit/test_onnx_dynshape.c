/* test_onnx_dynshape.c - ONNX shapes and axes computed at run time: one-node
 * models (Reshape, Expand, ConstantOfShape, Squeeze, Unsqueeze, ReduceSum,
 * ReduceMax, Tile, Range, Split, Slice, Pad) whose shape, axes or bounds are graph inputs, so that only the
 * compiled model's executor sees the values.  Each model is built once and
 * run on several values: the results are compared with plain C (the
 * expected shapes written out, sums and maxima computed here), and values
 * the op does not allow (negative sizes, a -1 that fits nothing, counts that
 * differ, axes out of range or given twice, sizes too large to allocate,
 * split sizes that do not add up to the dim, slice axes repeated or steps 0,
 * pads that crop more than a dim holds or copy from an empty one)
 * come back through the runtime's error path with a message, after which
 * the model still runs. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "onnx_build.h"

#define X_N 24 /* the float input: (2, 3, 4) */

/* out = op(x, s): x float32 of x_dims (or none when x_rank < 0), s int64 of
 * s_len values; n_out outputs y0, y1, ... (one, y, when 0) */
typedef struct Model {
  const char *op;
  const int64_t *x_dims;
  int x_rank;
  int s_len;
  Onnx__AttributeProto **attrs;
  int n_attrs;
  int n_out;
} Model;

#define MAX_OUT 4

enum { F32 = ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT, I64 = ONNX__TENSOR_PROTO__DATA_TYPE__INT64 };

static uint8_t *pack(const Model *md, size_t *len) {
  char *ins[2] = {"x", "s"}, *outs[MAX_OUT] = {"y"}, *many[MAX_OUT] = {"y0", "y1", "y2", "y3"};
  bool has_x = md->x_rank >= 0;
  int n_out = md->n_out ? md->n_out : 1;
  if (md->n_out) memcpy(outs, many, sizeof outs);
  int64_t dims[2][4] = {{0}};
  int rank[2], elem[2], n = 0;
  if (has_x) {
    memcpy(dims[n], md->x_dims, (size_t)md->x_rank * sizeof(int64_t));
    rank[n] = md->x_rank, elem[n++] = F32;
  }
  dims[n][0] = md->s_len, rank[n] = 1, elem[n++] = I64;
  return pack_one_node_typed(&(OneNode){md->op, NULL, 18, has_x ? ins : ins + 1, n, outs, n_out, md->attrs, md->n_attrs, n,
                                        (const int64_t(*)[4])dims, rank, NULL, 0, NULL},
                             elem, len);
}

typedef struct Built {
  MlcrtModel *model;
  char dir[4096];
  bool has_x;
  int s_len;
  const int64_t *x_dims;
  int x_rank;
  int n_out;
} Built;

static bool build(Built *b, const Model *md) {
  size_t len;
  uint8_t *buf = pack(md, &len);
  b->model = NULL;
  b->has_x = md->x_rank >= 0, b->s_len = md->s_len, b->x_dims = md->x_dims, b->x_rank = md->x_rank;
  b->n_out = md->n_out ? md->n_out : 1;
  if (bu_make_tmpdir(b->dir, sizeof b->dir, "mlcc-dynshape")) b->model = onnx_build_load(buf, len, b->dir);
  free(buf);
  return b->model != NULL;
}

static void done(Built *b) {
  if (b->model) mlcrt_model_free(b->model);
  bu_remove_dir(b->dir);
}

static float x_data[X_N];

/* run on s; 0 with y[0..n_out) the outputs, or the runtime's status */
static int run(Built *b, const int64_t *s, DLTensor **y) {
  int64_t s_shape[1] = {b->s_len};
  DLTensor x = {x_data, {kDLCPU, 0}, b->x_rank, {kDLFloat, 32, 1}, (int64_t *)b->x_dims, NULL, 0};
  DLTensor st = {(void *)s, {kDLCPU, 0}, 1, {kDLInt, 64, 1}, s_shape, NULL, 0};
  DLTensor *in[2] = {&x, &st};
  for (int i = 0; i < b->n_out; i++) y[i] = NULL;
  return b->has_x ? mlcrt_model_run(b->model, in, 2, y, b->n_out) : mlcrt_model_run(b->model, in + 1, 1, y, b->n_out);
}

static bool shape_is(const DLTensor *t, const int64_t *want, int nd) {
  if (!t || t->ndim != nd) return false;
  for (int d = 0; d < nd; d++)
    if (t->shape[d] != want[d]) return false;
  return true;
}

/* the run fails with a message containing want */
static bool fails_with(Built *b, const int64_t *s, const char *want) {
  DLTensor *y[MAX_OUT];
  if (run(b, s, y) == 0) return false;
  if (!strstr(mlcrt_last_error(), want)) printf("    message: %s\n", mlcrt_last_error());
  return strstr(mlcrt_last_error(), want) != NULL;
}

static const int64_t X_DIMS[3] = {2, 3, 4};

static void test_reshape(void) {
  Built b;
  CHECK(build(&b, &(Model){"Reshape", X_DIMS, 3, 2, NULL, 0, 0}));
  if (!b.model) {
    done(&b);
    return;
  }
  static const struct { int64_t s[2], want[2]; } good[] = {
      {{4, -1}, {4, 6}}, {{0, -1}, {2, 12}}, {{-1, 8}, {3, 8}}, {{24, 1}, {24, 1}}, {{2, 12}, {2, 12}}};
  for (size_t c = 0; c < sizeof good / sizeof *good; c++) {
    DLTensor *y;
    CHECK(run(&b, good[c].s, &y) == 0);
    CHECK(shape_is(y, good[c].want, 2));
    CHECK(y && memcmp(y->data, x_data, sizeof x_data) == 0); /* row-major: the same elements in order */
  }
  CHECK(fails_with(&b, (int64_t[]){5, -1}, "no size for the -1"));
  CHECK(fails_with(&b, (int64_t[]){-1, -1}, "more than one value is -1"));
  CHECK(fails_with(&b, (int64_t[]){-2, 12}, "is negative"));
  CHECK(fails_with(&b, (int64_t[]){5, 5}, "cannot take a shape of 25"));
  CHECK(fails_with(&b, (int64_t[]){INT64_MAX, 2}, "too large"));
  DLTensor *y;
  CHECK(run(&b, good[0].s, &y) == 0);
  done(&b);
}

static void test_expand(void) {
  static const int64_t x_dims[2] = {3, 1};
  Built b;
  CHECK(build(&b, &(Model){"Expand", x_dims, 2, 3, NULL, 0, 0}));
  if (!b.model) {
    done(&b);
    return;
  }
  DLTensor *y;
  CHECK(run(&b, (int64_t[]){2, 1, 5}, &y) == 0);
  CHECK(shape_is(y, (int64_t[]){2, 3, 5}, 3));
  for (int i = 0; y && i < 30; i++) CHECK(((float *)y->data)[i] == x_data[(i / 5) % 3]);
  CHECK(run(&b, (int64_t[]){1, 1, 1}, &y) == 0);
  CHECK(shape_is(y, (int64_t[]){1, 3, 1}, 3));
  CHECK(fails_with(&b, (int64_t[]){1, 2, 4}, "does not broadcast"));
  CHECK(fails_with(&b, (int64_t[]){1, 3, -4}, "does not broadcast"));
  CHECK(fails_with(&b, (int64_t[]){1 << 20, 1, 1 << 20}, "more than a shape read at run time may hold"));
  done(&b);
}

static void test_constant_of_shape(void) {
  Onnx__AttributeProto *attrs[1];
  float one = 1.5f;
  Onnx__TensorProto *t = tensor(&(Init){"value", 1, {1}, &one, sizeof one, ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT});
  attrs[0] = int_attr("value", 0);
  attrs[0]->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSOR, attrs[0]->has_i = 0, attrs[0]->t = t;
  Built b;
  CHECK(build(&b, &(Model){"ConstantOfShape", NULL, -1, 2, attrs, 1, 0}));
  free(t), free(attrs[0]);
  if (!b.model) {
    done(&b);
    return;
  }
  DLTensor *y;
  CHECK(run(&b, (int64_t[]){3, 5}, &y) == 0);
  CHECK(shape_is(y, (int64_t[]){3, 5}, 2));
  for (int i = 0; y && i < 15; i++) CHECK(((float *)y->data)[i] == 1.5f);
  CHECK(run(&b, (int64_t[]){0, 5}, &y) == 0);
  CHECK(shape_is(y, (int64_t[]){0, 5}, 2));
  CHECK(fails_with(&b, (int64_t[]){3, -5}, "is negative"));
  /* 2^60 floats: refused before anything is allocated */
  CHECK(fails_with(&b, (int64_t[]){1 << 30, 1 << 30}, "more than a shape read at run time may hold"));
  CHECK(fails_with(&b, (int64_t[]){INT64_MAX, 1}, "too large"));
  done(&b);
}

static void test_squeeze_unsqueeze(void) {
  static const int64_t x_dims[3] = {2, 1, 12};
  Built b;
  CHECK(build(&b, &(Model){"Squeeze", x_dims, 3, 1, NULL, 0, 0}));
  DLTensor *y;
  if (b.model) {
    CHECK(run(&b, (int64_t[]){1}, &y) == 0);
    CHECK(shape_is(y, (int64_t[]){2, 12}, 2));
    CHECK(y && memcmp(y->data, x_data, sizeof x_data) == 0);
    CHECK(run(&b, (int64_t[]){-2}, &y) == 0);
    CHECK(fails_with(&b, (int64_t[]){0}, "has size 2, not 1"));
    CHECK(fails_with(&b, (int64_t[]){3}, "out of range"));
  }
  done(&b);
  CHECK(build(&b, &(Model){"Unsqueeze", x_dims, 3, 2, NULL, 0, 0}));
  if (b.model) {
    CHECK(run(&b, (int64_t[]){0, -1}, &y) == 0);
    CHECK(shape_is(y, (int64_t[]){1, 2, 1, 12, 1}, 5));
    CHECK(run(&b, (int64_t[]){4, 1}, &y) == 0);
    CHECK(shape_is(y, (int64_t[]){2, 1, 1, 12, 1}, 5));
    CHECK(fails_with(&b, (int64_t[]){1, 1}, "given twice"));
    CHECK(fails_with(&b, (int64_t[]){5, 0}, "out of range"));
  }
  done(&b);
}

/* plain C: x (2, 3, 4) reduced over the axes marked in on[] by sum or max, keepdims */
static void reduce_ref(const bool on[3], bool max, float *out) {
  int od[3] = {on[0] ? 1 : 2, on[1] ? 1 : 3, on[2] ? 1 : 4};
  for (int i = 0; i < od[0] * od[1] * od[2]; i++) out[i] = max ? -INFINITY : 0;
  for (int a = 0; a < 2; a++)
    for (int c = 0; c < 3; c++)
      for (int e = 0; e < 4; e++) {
        int o = ((on[0] ? 0 : a) * od[1] + (on[1] ? 0 : c)) * od[2] + (on[2] ? 0 : e);
        float v = x_data[(a * 3 + c) * 4 + e];
        out[o] = max ? fmaxf(out[o], v) : out[o] + v;
      }
}

static void check_reduce(const char *op, bool max) {
  for (int keep = 0; keep <= 1; keep++) {
    Onnx__AttributeProto *attrs[1] = {int_attr("keepdims", keep)};
    Built b;
    CHECK(build(&b, &(Model){op, X_DIMS, 3, 2, attrs, 1, 0}));
    free(attrs[0]);
    static const int64_t axes[][2] = {{0, 2}, {-1, 1}, {1, 0}};
    for (size_t c = 0; b.model && c < sizeof axes / sizeof *axes; c++) {
      bool on[3] = {false, false, false};
      for (int j = 0; j < 2; j++) on[axes[c][j] < 0 ? axes[c][j] + 3 : axes[c][j]] = true;
      float want[24];
      reduce_ref(on, max, want);
      int64_t dims[3];
      int nd = 0;
      for (int d = 0; d < 3; d++)
        if (!on[d] || keep) dims[nd++] = on[d] ? 1 : X_DIMS[d];
      DLTensor *y;
      CHECK(run(&b, axes[c], &y) == 0);
      CHECK(shape_is(y, dims, nd));
      int64_t n = 1;
      for (int d = 0; d < nd; d++) n *= dims[d];
      for (int64_t i = 0; y && shape_is(y, dims, nd) && i < n; i++)
        CHECK(fabsf(((float *)y->data)[i] - want[i]) <= 1e-5f * (1 + fabsf(want[i])));
    }
    if (b.model) {
      CHECK(fails_with(&b, (int64_t[]){0, 3}, "out of range"));
      CHECK(fails_with(&b, (int64_t[]){1, -2}, "given twice"));
    }
    done(&b);
  }
}

static void test_reduce_sum(void) { check_reduce("ReduceSum", false); }
static void test_reduce_max(void) { check_reduce("ReduceMax", true); }

static void test_tile(void) {
  Built b;
  CHECK(build(&b, &(Model){"Tile", X_DIMS, 3, 3, NULL, 0, 0}));
  if (!b.model) {
    done(&b);
    return;
  }
  DLTensor *y;
  CHECK(run(&b, (int64_t[]){2, 1, 3}, &y) == 0);
  CHECK(shape_is(y, (int64_t[]){4, 3, 12}, 3));
  for (int i = 0; y && shape_is(y, (int64_t[]){4, 3, 12}, 3) && i < 144; i++)
    CHECK(((float *)y->data)[i] == x_data[((i / 36) % 2 * 3 + (i / 12) % 3) * 4 + i % 12 % 4]);
  CHECK(run(&b, (int64_t[]){1, 0, 1}, &y) == 0);
  CHECK(shape_is(y, (int64_t[]){2, 0, 4}, 3));
  CHECK(fails_with(&b, (int64_t[]){1, -1, 1}, "is negative or too large"));
  CHECK(fails_with(&b, (int64_t[]){1 << 20, 1 << 20, 1}, "may hold"));
  done(&b);
}

/* Split along axis 1 of x (2, 3, 4) into 3 parts of sizes read at run time */
static void test_split(void) {
  Onnx__AttributeProto *attrs[1] = {int_attr("axis", 1)};
  Built b;
  CHECK(build(&b, &(Model){"Split", X_DIMS, 3, 3, attrs, 1, 3}));
  free(attrs[0]);
  static const int64_t cases[][3] = {{1, 2, 0}, {0, 3, 0}, {1, 1, 1}, {2, 0, 1}};
  for (size_t c = 0; b.model && c < sizeof cases / sizeof *cases; c++) {
    DLTensor *y[MAX_OUT];
    CHECK(run(&b, cases[c], y) == 0);
    int64_t off = 0;
    for (int p = 0; p < 3; p++) {
      int64_t dims[3] = {2, cases[c][p], 4};
      CHECK(shape_is(y[p], dims, 3));
      for (int a = 0; shape_is(y[p], dims, 3) && a < 2; a++)
        for (int64_t r = 0; r < dims[1]; r++)
          for (int e = 0; e < 4; e++)
            CHECK(((float *)y[p]->data)[(a * dims[1] + r) * 4 + e] == x_data[(a * 3 + off + r) * 4 + e]);
      off += cases[c][p];
    }
  }
  if (b.model) {
    CHECK(fails_with(&b, (int64_t[]){1, 1, 0}, "add up to 2, not the dim's 3"));
    CHECK(fails_with(&b, (int64_t[]){2, 2, -1}, "is negative or past the dim's 3"));
    CHECK(fails_with(&b, (int64_t[]){-1, 4, 0}, "is negative or past the dim's 3"));
    CHECK(fails_with(&b, (int64_t[]){INT64_MAX, INT64_MAX, 2}, "is negative or past the dim's 3"));
    DLTensor *y[MAX_OUT];
    CHECK(run(&b, cases[0], y) == 0);
  }
  done(&b);
}

/* y = Range(start, limit, delta): three int64 scalar graph inputs */
static uint8_t *pack_range(size_t *len) {
  char *ins[3] = {"start", "limit", "delta"}, *outs[1] = {"y"};
  static const int64_t dims[3][4];
  static const int rank[3], elem[3] = {I64, I64, I64};
  return pack_one_node_typed(&(OneNode){"Range", NULL, 18, ins, 3, outs, 1, NULL, 0, 3, dims, rank, NULL, 0, NULL}, elem, len);
}

static int run_range(MlcrtModel *model, int64_t start, int64_t limit, int64_t delta, DLTensor **y) {
  int64_t v[3] = {start, limit, delta};
  DLTensor t[3];
  DLTensor *in[3];
  for (int i = 0; i < 3; i++) t[i] = (DLTensor){&v[i], {kDLCPU, 0}, 0, {kDLInt, 64, 1}, NULL, NULL, 0}, in[i] = &t[i];
  *y = NULL;
  return mlcrt_model_run(model, in, 3, y, 1);
}

static void test_range(void) {
  size_t len;
  uint8_t *buf = pack_range(&len);
  char dir[4096];
  MlcrtModel *model = bu_make_tmpdir(dir, sizeof dir, "mlcc-dynshape") ? onnx_build_load(buf, len, dir) : NULL;
  free(buf);
  CHECK(model != NULL);
  static const int64_t cases[][3] = {{2, 11, 3}, {5, 0, -2}, {4, 1, 1}, {-3, 3, 2}};
  for (size_t c = 0; model && c < sizeof cases / sizeof *cases; c++) {
    int64_t n = 0, want[8];
    for (int64_t v = cases[c][0]; cases[c][2] > 0 ? v < cases[c][1] : v > cases[c][1]; v += cases[c][2]) want[n++] = v;
    DLTensor *y;
    CHECK(run_range(model, cases[c][0], cases[c][1], cases[c][2], &y) == 0);
    CHECK(shape_is(y, &n, 1));
    for (int64_t i = 0; y && shape_is(y, &n, 1) && i < n; i++) CHECK(((int64_t *)y->data)[i] == want[i]);
  }
  if (model) {
    DLTensor *y;
    CHECK(run_range(model, 0, 5, 0, &y) != 0 && strstr(mlcrt_last_error(), "delta 0"));
    CHECK(run_range(model, 0, (int64_t)1 << 40, 1, &y) != 0 && strstr(mlcrt_last_error(), "may hold"));
    CHECK(run_range(model, 0, 3, 1, &y) == 0);
    mlcrt_model_free(model);
  }
  bu_remove_dir(dir);
}

/* Pad(x, pads) with pads read at run time, in modes constant and reflect */
static void test_pad(void) {
  static const int64_t x_dims[2] = {2, 3}, empty_dims[2] = {0, 3};
  for (int m = 0; m < 2; m++) {
    Onnx__AttributeProto *attrs[1] = {str_attr("mode", m ? "reflect" : "constant")};
    Built b;
    CHECK(build(&b, &(Model){"Pad", x_dims, 2, 4, attrs, 1, 0}));
    free(attrs[0]);
    if (!b.model) {
      done(&b);
      continue;
    }
    /* pads: begin 0, begin 1, end 0, end 1; the expected results written out */
    DLTensor *y;
    CHECK(run(&b, (int64_t[]){1, -1, 0, 2}, &y) == 0);
    CHECK(shape_is(y, (int64_t[]){3, 4}, 2));
    static const float want[2][12] = {
        {0, 0, 0, 0, 2.5f, -1.5f, 0, 0, 1.5f, -2.5f, 0, 0},
        {1.5f, -2.5f, 1.5f, 5.5f, 2.5f, -1.5f, 2.5f, -4.5f, 1.5f, -2.5f, 1.5f, 5.5f},
    };
    for (int i = 0; y && shape_is(y, (int64_t[]){3, 4}, 2) && i < 12; i++) CHECK(((float *)y->data)[i] == want[m][i]);
    CHECK(fails_with(&b, (int64_t[]){0, -2, 0, -2}, "crop more than it holds"));
    CHECK(fails_with(&b, (int64_t[]){0, INT64_MAX, 0, 1}, "too large"));
    CHECK(fails_with(&b, (int64_t[]){1 << 20, 1 << 20, 0, 0}, "may hold"));
    CHECK(run(&b, (int64_t[]){0, 0, 0, 0}, &y) == 0);
    CHECK(y && shape_is(y, x_dims, 2) && memcmp(y->data, x_data, 6 * sizeof(float)) == 0);
    done(&b);
    if (m == 0) continue;
    /* reflect-padding a dim that is empty */
    attrs[0] = str_attr("mode", "reflect");
    CHECK(build(&b, &(Model){"Pad", empty_dims, 2, 4, attrs, 1, 0}));
    free(attrs[0]);
    if (b.model) CHECK(fails_with(&b, (int64_t[]){1, 0, 0, 0}, "pad it while it is empty"));
    done(&b);
  }
}

/* y = Slice(x, starts, ends, axes, steps): x float (2, 3, 4), the rest int64 (2,) graph inputs */
static uint8_t *pack_slice(size_t *len) {
  char *ins[5] = {"x", "starts", "ends", "axes", "steps"}, *outs[1] = {"y"};
  static const int64_t dims[5][4] = {{2, 3, 4}, {2}, {2}, {2}, {2}};
  static const int rank[5] = {3, 1, 1, 1, 1}, elem[5] = {F32, I64, I64, I64, I64};
  return pack_one_node_typed(&(OneNode){"Slice", NULL, 18, ins, 5, outs, 1, NULL, 0, 5, dims, rank, NULL, 0, NULL}, elem, len);
}

/* v: starts, ends, axes, steps (2 each) */
static int run_slice(MlcrtModel *model, const int64_t v[8], DLTensor **y) {
  int64_t two[1] = {2};
  DLTensor t[5];
  DLTensor *in[5];
  t[0] = (DLTensor){x_data, {kDLCPU, 0}, 3, {kDLFloat, 32, 1}, (int64_t *)X_DIMS, NULL, 0};
  for (int i = 1; i < 5; i++) t[i] = (DLTensor){(void *)&v[2 * (i - 1)], {kDLCPU, 0}, 1, {kDLInt, 64, 1}, two, NULL, 0};
  for (int i = 0; i < 5; i++) in[i] = &t[i];
  *y = NULL;
  return mlcrt_model_run(model, in, 5, y, 1);
}

static void test_slice(void) {
  size_t len;
  uint8_t *buf = pack_slice(&len);
  char dir[4096];
  MlcrtModel *model = bu_make_tmpdir(dir, sizeof dir, "mlcc-dynshape") ? onnx_build_load(buf, len, dir) : NULL;
  free(buf);
  CHECK(model != NULL);
  /* each case: the values, then the output dims, begins and steps worked out by hand */
  static const struct { int64_t v[8], od[3], b[3], st[3]; } cases[] = {
      {{0, 1, 2, 4, 1, 2, 1, 2}, {2, 2, 2}, {0, 0, 1}, {1, 1, 2}},
      {{-1, 0, INT64_MIN, INT64_MAX, 2, 1, -1, 1}, {2, 3, 4}, {0, 0, 3}, {1, 1, -1}},
      {{1, -10, 2, 10, 0, -2, 1, 1}, {1, 3, 4}, {1, 0, 0}, {1, 1, 1}},
      {{INT64_MAX, 1, 0, 2, 1, 2, -1, 1}, {2, 2, 1}, {0, 2, 1}, {1, -1, 1}},
      {{3, 0, 3, 1, 0, 1, 1, 1}, {0, 1, 4}, {0, 0, 0}, {1, 1, 1}},
  };
  for (size_t c = 0; model && c < sizeof cases / sizeof *cases; c++) {
    DLTensor *y;
    CHECK(run_slice(model, cases[c].v, &y) == 0);
    CHECK(shape_is(y, cases[c].od, 3));
    const int64_t *od = cases[c].od, *b = cases[c].b, *st = cases[c].st;
    for (int64_t a = 0; y && shape_is(y, od, 3) && a < od[0]; a++)
      for (int64_t r = 0; r < od[1]; r++)
        for (int64_t e = 0; e < od[2]; e++)
          CHECK(((float *)y->data)[(a * od[1] + r) * od[2] + e] ==
                x_data[((b[0] + a * st[0]) * 3 + b[1] + r * st[1]) * 4 + b[2] + e * st[2]]);
  }
  if (model) {
    DLTensor *y;
    CHECK(run_slice(model, (int64_t[]){0, 0, 1, 1, 1, -2, 1, 1}, &y) != 0 && strstr(mlcrt_last_error(), "given twice"));
    CHECK(run_slice(model, (int64_t[]){0, 0, 1, 1, 0, 3, 1, 1}, &y) != 0 && strstr(mlcrt_last_error(), "out of range"));
    CHECK(run_slice(model, (int64_t[]){0, 0, 1, 1, 0, 1, 0, 1}, &y) != 0 && strstr(mlcrt_last_error(), "is 0"));
    CHECK(run_slice(model, cases[0].v, &y) == 0);
    mlcrt_model_free(model);
  }
  bu_remove_dir(dir);
}

int main(void) {
  for (int i = 0; i < X_N; i++) x_data[i] = (float)((i * 7) % 11) - 4.5f;
  RUN(test_reshape);
  RUN(test_expand);
  RUN(test_constant_of_shape);
  RUN(test_squeeze_unsqueeze);
  RUN(test_reduce_sum);
  RUN(test_reduce_max);
  RUN(test_tile);
  RUN(test_range);
  RUN(test_split);
  RUN(test_slice);
  RUN(test_pad);
  return check__failures != 0;
}
