/* test_onnx_datadep.c - ONNX ops whose output size depends on the data,
 * through the compiled model's executor: a NonZero model run on inputs
 * with different numbers of non-zeros (none, some, all), each result's
 * shape and coordinates compared with a plain scan here; a Compress model
 * (condition fixed as an initializer, x a graph input) against the slices
 * picked here; a TopK model whose k is a graph input, run with several k
 * against a stable insertion sort here, and with k outside 0 .. the axis'
 * length, which comes back through the runtime's error path, after which
 * the model still runs; Unique along either axis of a matrix, sorted and
 * not, against slices compared and counted here; Unique of a long vector
 * (10^5 elements by default, or the count given as the first argument) with
 * many duplicates and NaNs, sorted and not, and NonZero of as many
 * elements, against plain C here, their run times printed (not checked). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "onnx_build.h"

static MlcrtModel *build(const OneNode *o, char *dir, size_t cap) {
  size_t len;
  uint8_t *buf = pack_one_node(o, &len);
  MlcrtModel *m = bu_make_tmpdir(dir, cap, "mlcc-datadep") ? onnx_build_load(buf, len, dir) : NULL;
  free(buf);
  return m;
}

static const int64_t X_DIMS[1][4] = {{3, 4}};
static const int X_RANK[1] = {2};

/* NonZero on x (3, 4): coordinates [2, count], row-major order */
static void test_nonzero(void) {
  char *ins[1] = {"x"}, *outs[1] = {"y"}, dir[4096];
  MlcrtModel *m = build(&(OneNode){"NonZero", NULL, 13, ins, 1, outs, 1, NULL, 0, 1, X_DIMS, X_RANK, NULL, 0, NULL},
                        dir, sizeof dir);
  CHECK(m != NULL);
  if (!m) {
    bu_remove_dir(dir);
    return;
  }
  for (int trial = 0; trial < 4; trial++) {
    float x[12];
    for (int i = 0; i < 12; i++) x[i] = trial == 0 ? 0.0f : trial == 3 ? (float)i - 20.0f : (float)((i * (trial + 2)) % 5 == 0) * 1.5f;
    int64_t want[24];
    int k = 0;
    for (int i = 0; i < 12; i++) k += x[i] != 0;
    for (int i = 0, j = 0; i < 12; i++)
      if (x[i] != 0) want[j] = i / 4, want[k + j] = i % 4, j++;
    DLTensor xt = {x, {kDLCPU, 0}, 2, {kDLFloat, 32, 1}, (int64_t *)X_DIMS[0], NULL, 0}, *in[1] = {&xt}, *y = NULL;
    CHECK(mlcrt_model_run(m, in, 1, &y, 1) == 0);
    CHECK(y && y->ndim == 2 && y->shape[0] == 2 && y->shape[1] == k);
    CHECK(y && y->dtype.code == kDLInt && y->dtype.bits == 64);
    if (y && y->ndim == 2 && y->shape[1] == k) CHECK(k == 0 || memcmp(y->data, want, sizeof *want * 2 * (size_t)k) == 0);
  }
  mlcrt_model_free(m);
  bu_remove_dir(dir);
}

/* Compress of x (3, 4) along axis 1 by a condition of length 3 (the last column left out) */
static void test_compress(void) {
  char *ins[2] = {"x", "c"}, *outs[1] = {"y"}, dir[4096];
  const uint8_t cond[3] = {1, 0, 1};
  Init c = {"c", 1, {3}, cond, sizeof cond, ONNX__TENSOR_PROTO__DATA_TYPE__BOOL};
  Onnx__AttributeProto *attrs[1] = {int_attr("axis", 1)};
  MlcrtModel *m = build(&(OneNode){"Compress", NULL, 13, ins, 2, outs, 1, attrs, 1, 1, X_DIMS, X_RANK, &c, 1, NULL},
                        dir, sizeof dir);
  free(attrs[0]);
  CHECK(m != NULL);
  if (m) {
    float x[12], want[6];
    for (int i = 0; i < 12; i++) x[i] = (float)i * 0.5f - 2.0f;
    for (int r = 0; r < 3; r++) want[2 * r] = x[4 * r], want[2 * r + 1] = x[4 * r + 2];
    DLTensor xt = {x, {kDLCPU, 0}, 2, {kDLFloat, 32, 1}, (int64_t *)X_DIMS[0], NULL, 0}, *in[1] = {&xt}, *y = NULL;
    CHECK(mlcrt_model_run(m, in, 1, &y, 1) == 0);
    CHECK(y && y->ndim == 2 && y->shape[0] == 3 && y->shape[1] == 2);
    CHECK(y && y->ndim == 2 && y->shape[1] == 2 && memcmp(y->data, want, sizeof want) == 0);
    mlcrt_model_free(m);
  }
  bu_remove_dir(dir);
}

/* TopK over x float32 (3, 4) along axis 1 with k an int64 graph input of one value */
static uint8_t *pack_topk(size_t *len) {
  char *ins[2] = {"x", "k"}, *outs[2] = {"v", "i"};
  int64_t kd[1] = {1};
  Onnx__ValueInfoProto *gin[2] = {value("x", X_DIMS[0], 2), value("k", kd, 1)};
  Onnx__ValueInfoProto *gout[2] = {value("v", NULL, 0), value("i", NULL, 0)};
  gin[1]->type->tensor_type->elem_type = ONNX__TENSOR_PROTO__DATA_TYPE__INT64;
  Onnx__AttributeProto *attrs[1] = {int_attr("axis", 1)};
  Onnx__NodeProto node;
  onnx__node_proto__init(&node);
  node.op_type = "TopK", node.name = "node0", node.domain = "";
  node.input = ins, node.n_input = 2, node.output = outs, node.n_output = 2;
  node.attribute = attrs, node.n_attribute = 1;
  Onnx__NodeProto *nodes[1] = {&node};
  Onnx__GraphProto g;
  onnx__graph_proto__init(&g);
  g.name = "g", g.node = nodes, g.n_node = 1, g.input = gin, g.n_input = 2, g.output = gout, g.n_output = 2;
  Onnx__OperatorSetIdProto os, *osp[1] = {&os};
  onnx__operator_set_id_proto__init(&os);
  os.domain = "", os.has_version = 1, os.version = 13;
  Onnx__ModelProto m;
  onnx__model_proto__init(&m);
  m.has_ir_version = 1, m.ir_version = 8, m.graph = &g, m.opset_import = osp, m.n_opset_import = 1;
  *len = onnx__model_proto__get_packed_size(&m);
  uint8_t *buf = malloc(*len);
  onnx__model_proto__pack(&m, buf);
  for (int i = 0; i < 2; i++) free_value(gin[i]), free_value(gout[i]);
  free(attrs[0]);
  return buf;
}

static void test_topk(void) {
  char dir[4096];
  size_t len;
  uint8_t *buf = pack_topk(&len);
  MlcrtModel *m = bu_make_tmpdir(dir, sizeof dir, "mlcc-datadep") ? onnx_build_load(buf, len, dir) : NULL;
  free(buf);
  CHECK(m != NULL);
  if (!m) {
    bu_remove_dir(dir);
    return;
  }
  float x[12] = {2, -1, 2, 5, 0, 0, 3, -4, 9, 1, 9, 9};
  int order[3][4];
  for (int r = 0; r < 3; r++)
    for (int i = 0; i < 4; i++) {
      int j = i;
      while (j > 0 && x[r * 4 + order[r][j - 1]] < x[r * 4 + i]) order[r][j] = order[r][j - 1], j--;
      order[r][j] = i;
    }
  int64_t kd[1] = {1};
  DLTensor xt = {x, {kDLCPU, 0}, 2, {kDLFloat, 32, 1}, (int64_t *)X_DIMS[0], NULL, 0};
  for (int64_t k = 0; k <= 4; k++) {
    DLTensor kt = {&k, {kDLCPU, 0}, 1, {kDLInt, 64, 1}, kd, NULL, 0}, *in[2] = {&xt, &kt}, *y[2] = {NULL, NULL};
    CHECK(mlcrt_model_run(m, in, 2, y, 2) == 0);
    bool shaped = y[0] && y[1] && y[0]->ndim == 2 && y[1]->ndim == 2 && y[0]->shape[0] == 3 && y[0]->shape[1] == k &&
                  y[1]->shape[0] == 3 && y[1]->shape[1] == k;
    CHECK(shaped);
    for (int r = 0; shaped && r < 3; r++)
      for (int j = 0; j < k; j++) {
        CHECK(((int64_t *)y[1]->data)[r * k + j] == order[r][j]);
        CHECK(((float *)y[0]->data)[r * k + j] == x[r * 4 + order[r][j]]);
      }
  }
  for (int64_t bad = -1; bad <= 5; bad += 6) {
    DLTensor kt = {&bad, {kDLCPU, 0}, 1, {kDLInt, 64, 1}, kd, NULL, 0}, *in[2] = {&xt, &kt}, *y[2] = {NULL, NULL};
    CHECK(mlcrt_model_run(m, in, 2, y, 2) != 0);
    CHECK(strstr(mlcrt_last_error(), "is negative or more than 4") != NULL);
  }
  int64_t two = 2;
  DLTensor kt = {&two, {kDLCPU, 0}, 1, {kDLInt, 64, 1}, kd, NULL, 0}, *in[2] = {&xt, &kt}, *y[2] = {NULL, NULL};
  CHECK(mlcrt_model_run(m, in, 2, y, 2) == 0 && y[1] && y[1]->shape[1] == 2);
  mlcrt_model_free(m);
  bu_remove_dir(dir);
}

/* Unique of x (3, 4) along axis (0: rows, 1: columns), sorted or in order
 * of first occurrence, against slices compared here by plain loops */
static int slice_cmp(const float *x, int axis, int a, int b) {
  int len = axis == 0 ? 4 : 3;
  for (int m = 0; m < len; m++) {
    float u = axis == 0 ? x[a * 4 + m] : x[m * 4 + a], v = axis == 0 ? x[b * 4 + m] : x[m * 4 + b];
    if (u != v) return u < v ? -1 : 1;
  }
  return 0;
}

static void unique_axis_case(int axis, int sorted) {
  char *ins[1] = {"x"}, *outs[4] = {"y", "idx", "inv", "cnt"}, dir[4096];
  Onnx__AttributeProto *attrs[2] = {int_attr("axis", axis), int_attr("sorted", sorted)};
  MlcrtModel *m = build(&(OneNode){"Unique", NULL, 11, ins, 1, outs, 4, attrs, 2, 1, X_DIMS, X_RANK, NULL, 0, NULL},
                        dir, sizeof dir);
  free(attrs[0]), free(attrs[1]);
  CHECK(m != NULL);
  if (!m) {
    bu_remove_dir(dir);
    return;
  }
  /* rows 0 and 2 equal; columns 1 and 3 equal, column 0 smaller than 2 in its last element */
  float x[12] = {1, 5, 1, 5, 0, 2, 0, 2, 1, 5, 1, 5};
  if (axis == 1) x[8] = 0.5f;
  int D = axis == 0 ? 3 : 4, first[4], nu = 0, uniq[4], inv[4], cnt[4] = {0};
  for (int i = 0; i < D; i++) {
    int f = i;
    for (int l = 0; l < i && f == i; l++)
      if (slice_cmp(x, axis, l, i) == 0) f = l;
    first[i] = f;
    if (f == i) uniq[nu++] = i;
  }
  if (sorted) /* insertion sort of the first occurrences by their slices */
    for (int i = 1; i < nu; i++)
      for (int j = i; j > 0 && slice_cmp(x, axis, uniq[j - 1], uniq[j]) > 0; j--) {
        int t = uniq[j];
        uniq[j] = uniq[j - 1], uniq[j - 1] = t;
      }
  for (int i = 0; i < D; i++)
    for (int u = 0; u < nu; u++)
      if (uniq[u] == first[i]) inv[i] = u, cnt[u]++;
  DLTensor xt = {x, {kDLCPU, 0}, 2, {kDLFloat, 32, 1}, (int64_t *)X_DIMS[0], NULL, 0}, *in[1] = {&xt}, *y[4] = {0};
  CHECK(mlcrt_model_run(m, in, 1, y, 4) == 0);
  bool shaped = y[0] && y[1] && y[2] && y[3] && y[0]->ndim == 2 && y[0]->shape[axis] == nu &&
                y[0]->shape[1 - axis] == (axis == 0 ? 4 : 3) && y[1]->ndim == 1 && y[1]->shape[0] == nu &&
                y[2]->ndim == 1 && y[2]->shape[0] == D && y[3]->ndim == 1 && y[3]->shape[0] == nu;
  CHECK(shaped);
  for (int u = 0; shaped && u < nu; u++) {
    CHECK(((int64_t *)y[1]->data)[u] == uniq[u]);
    CHECK(((int64_t *)y[3]->data)[u] == cnt[u]);
    for (int m2 = 0; m2 < (axis == 0 ? 4 : 3); m2++) {
      float got = axis == 0 ? ((float *)y[0]->data)[u * 4 + m2] : ((float *)y[0]->data)[m2 * nu + u];
      CHECK(got == (axis == 0 ? x[uniq[u] * 4 + m2] : x[m2 * 4 + uniq[u]]));
    }
  }
  for (int i = 0; shaped && i < D; i++) CHECK(((int64_t *)y[2]->data)[i] == inv[i]);
  mlcrt_model_free(m);
  bu_remove_dir(dir);
}

static void test_unique_axis(void) {
  for (int axis = 0; axis < 2; axis++)
    for (int sorted = 0; sorted < 2; sorted++) unique_axis_case(axis, sorted);
}

static int64_t long_n = 100000;
static const float *long_x;

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

/* by value, NaN after every number, then by index */
static int by_value_nan_last(const void *a, const void *b) {
  int64_t i = *(const int64_t *)a, j = *(const int64_t *)b;
  float u = long_x[i], v = long_x[j];
  bool nu = u != u, nv = v != v;
  if (nu != nv) return nu ? 1 : -1;
  if (!nu && u != v) return u < v ? -1 : 1;
  return i < j ? -1 : i > j;
}
static int by_index(const void *a, const void *b) {
  int64_t i = **(const int64_t *const *)a, j = **(const int64_t *const *)b;
  return i < j ? -1 : i > j;
}

/* Unique of a long float32 vector: about 5% NaN, the rest from 2000 values */
static void unique_long_case(int sorted) {
  int64_t n = long_n, dims[1][4] = {{n}};
  int rank[1] = {1};
  char *ins[1] = {"x"}, *outs[4] = {"y", "idx", "inv", "cnt"}, dir[4096];
  Onnx__AttributeProto *attrs[1] = {int_attr("sorted", sorted)};
  double t0 = now_ms();
  MlcrtModel *m = build(&(OneNode){"Unique", NULL, 11, ins, 1, outs, 4, attrs, 1, 1, dims, rank, NULL, 0, NULL}, dir,
                        sizeof dir);
  double t_build = now_ms() - t0;
  free(attrs[0]);
  CHECK(m != NULL);
  float *x = malloc(sizeof *x * (size_t)n);
  int64_t *order = malloc(sizeof *order * (size_t)n), *inv = malloc(sizeof *inv * (size_t)n);
  int64_t *first = malloc(sizeof *first * (size_t)n), *cnt = malloc(sizeof *cnt * (size_t)n);
  int64_t **firstp = malloc(sizeof *firstp * (size_t)n), *key = malloc(sizeof *key * (size_t)n);
  uint32_t seed = 2024u + (uint32_t)sorted;
  for (int64_t i = 0; i < n; i++) {
    seed = seed * 1103515245u + 12345u;
    uint32_t r = (seed >> 8) % 42000;
    x[i] = r >= 40000 ? NAN : (float)(r % 2000) * 0.25f - 100.0f;
    order[i] = i;
  }
  if (n > 2) x[0] = -0.0f, x[1] = 0.0f; /* one value */
  /* groups of equal neighbours in the sorted order; each group's first index is its first member */
  long_x = x;
  qsort(order, (size_t)n, sizeof *order, by_value_nan_last);
  int64_t nu = 0;
  for (int64_t s = 0; s < n; s++) {
    if (s == 0 || !(x[order[s]] == x[order[s - 1]])) first[nu] = order[s], cnt[nu] = 0, nu++;
    cnt[nu - 1]++;
    key[order[s]] = nu - 1;
  }
  if (!sorted) { /* the groups by first index: rank them, then renumber */
    for (int64_t u = 0; u < nu; u++) firstp[u] = &first[u];
    qsort(firstp, (size_t)nu, sizeof *firstp, by_index);
    int64_t *rank_of = malloc(sizeof *rank_of * (size_t)(nu + 1)), *f2 = malloc(sizeof *f2 * (size_t)(nu + 1)),
            *c2 = malloc(sizeof *c2 * (size_t)(nu + 1));
    for (int64_t r = 0; r < nu; r++) rank_of[firstp[r] - first] = r;
    for (int64_t u = 0; u < nu; u++) f2[rank_of[u]] = first[u], c2[rank_of[u]] = cnt[u];
    for (int64_t i = 0; i < n; i++) key[i] = rank_of[key[i]];
    memcpy(first, f2, sizeof *first * (size_t)nu), memcpy(cnt, c2, sizeof *cnt * (size_t)nu);
    free(rank_of), free(f2), free(c2);
  }
  for (int64_t i = 0; i < n; i++) inv[i] = key[i];
  if (m) {
    DLTensor xt = {x, {kDLCPU, 0}, 1, {kDLFloat, 32, 1}, dims[0], NULL, 0}, *in[1] = {&xt}, *y[4] = {0};
    t0 = now_ms();
    CHECK(mlcrt_model_run(m, in, 1, y, 4) == 0);
    double t_run = now_ms() - t0;
    bool shaped = y[0] && y[1] && y[2] && y[3] && y[0]->ndim == 1 && y[0]->shape[0] == nu && y[1]->shape[0] == nu &&
                  y[2]->shape[0] == n && y[3]->shape[0] == nu;
    CHECK(shaped);
    int64_t bad = 0;
    for (int64_t u = 0; shaped && u < nu; u++) {
      float got = ((float *)y[0]->data)[u], want = x[first[u]];
      bad += ((int64_t *)y[1]->data)[u] != first[u] || ((int64_t *)y[3]->data)[u] != cnt[u] ||
             !(got == want || (got != got && want != want));
    }
    for (int64_t i = 0; shaped && i < n; i++) bad += ((int64_t *)y[2]->data)[i] != inv[i];
    CHECK(bad == 0);
    printf("    Unique of %lld float32 (sorted=%d, %lld distinct): build %.0f ms, run %.2f ms\n", (long long)n, sorted,
           (long long)nu, t_build, t_run);
    mlcrt_model_free(m);
  }
  bu_remove_dir(dir);
  free(x), free(order), free(inv), free(first), free(cnt), free(firstp), free(key);
}

static void test_unique_long(void) {
  for (int sorted = 0; sorted < 2; sorted++) unique_long_case(sorted);
}

/* NonZero of a long vector, about one element in three non-zero */
static void test_nonzero_long(void) {
  int64_t n = long_n, dims[1][4] = {{n}};
  int rank[1] = {1};
  char *ins[1] = {"x"}, *outs[1] = {"y"}, dir[4096];
  MlcrtModel *m = build(&(OneNode){"NonZero", NULL, 13, ins, 1, outs, 1, NULL, 0, 1, dims, rank, NULL, 0, NULL}, dir,
                        sizeof dir);
  CHECK(m != NULL);
  float *x = malloc(sizeof *x * (size_t)n);
  int64_t *want = malloc(sizeof *want * (size_t)n), k = 0;
  uint32_t seed = 77;
  for (int64_t i = 0; i < n; i++) {
    seed = seed * 1103515245u + 12345u;
    x[i] = (seed >> 16) % 3 == 0 ? 1.5f : 0.0f;
    if (x[i] != 0) want[k++] = i;
  }
  if (m) {
    DLTensor xt = {x, {kDLCPU, 0}, 1, {kDLFloat, 32, 1}, dims[0], NULL, 0}, *in[1] = {&xt}, *y = NULL;
    double t0 = now_ms();
    CHECK(mlcrt_model_run(m, in, 1, &y, 1) == 0);
    double t_run = now_ms() - t0;
    CHECK(y && y->ndim == 2 && y->shape[0] == 1 && y->shape[1] == k);
    if (y && y->ndim == 2 && y->shape[1] == k) CHECK(memcmp(y->data, want, sizeof *want * (size_t)k) == 0);
    printf("    NonZero of %lld float32 (%lld non-zero): run %.2f ms\n", (long long)n, (long long)k, t_run);
    mlcrt_model_free(m);
  }
  bu_remove_dir(dir);
  free(x), free(want);
}

int main(int argc, char **argv) {
  if (argc > 1) long_n = strtoll(argv[1], NULL, 10);
  if (long_n < 1) long_n = 1;
  RUN(test_nonzero);
  RUN(test_compress);
  RUN(test_topk);
  RUN(test_unique_axis);
  RUN(test_unique_long);
  RUN(test_nonzero_long);
  return CHECK_DONE();
}
