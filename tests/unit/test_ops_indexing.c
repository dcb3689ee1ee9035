/* test_ops_indexing.c - the data-movement ops of src/ops/pad_tile.c and
 * src/ops/indexing.c: nn.pad, tile, gather_elements, scatter_elements and
 * one_hot.  For each: the inferred struct info prints as expected, refused
 * inputs name the op and what was expected at the call's line, the
 * legalized prim func reads back equal, and the interpreter computes what
 * a plain C reference here computes.  The references are written the
 * other way round where they can be (the scatter loops over updates in
 * order), so they share no index arithmetic with the code under test. */
#include "check.h"
#include "op_check.h"

#include <stdio.h>

#define F32(shape) "R.Tensor(" shape ", \"float32\")"
#define I64(shape) "R.Tensor(" shape ", \"int64\")"
#define MAXV 4096

/* ======================================================================== */
/* nn.pad                                                                   */
/* ======================================================================== */

static void test_pad_infer(void) {
  OPC_CHECK_INFER("data: " F32("(2, 3)"), "R.nn.pad(data, pad_width=[1, 0, 2, 1])",
                  "R.Tensor((5, 4), dtype=\"float32\")");
  OPC_CHECK_INFER("data: " F32("(\"n\", 3)"), "R.nn.pad(data, pad_width=[1, 0, 2, 0], pad_value=1.5)",
                  "R.Tensor((n + 3, 3), dtype=\"float32\")");
  OPC_CHECK_INFER("data: " F32("(4, 5)"), "R.nn.pad(data, pad_width=[-1, 0, 0, -2])",
                  "R.Tensor((3, 3), dtype=\"float32\")");
  OPC_CHECK_REFUSED("data: " F32("(2, 3)"), "R.nn.pad(data, pad_width=[1, 1])",
                    "nn.pad: pad_width lists 2 values, x (2, 3) needs 4 (befores, then afters)");
  OPC_CHECK_REFUSED("data: " F32("(2, 3)"), "R.nn.pad(data, pad_width=[0, 0, 0, 0], pad_mode=\"mirror\")",
                    "nn.pad: pad_mode must be \"constant\", \"edge\", \"reflect\" or \"wrap\", not \"mirror\"");
  OPC_CHECK_REFUSED("data: " F32("(2, 3)"), "R.nn.pad(data, pad_width=[0, 3, 0, 0], pad_mode=\"reflect\")",
                    "nn.pad: reflect padding of dim 1 of x (2, 3) must be smaller than the dim");
  OPC_CHECK_REFUSED("data: " F32("(\"n\", 3)"), "R.nn.pad(data, pad_width=[1, 0, 0, 0], pad_mode=\"edge\")",
                    "nn.pad: dim 0 of x (n, 3) is symbolic: only constant padding by non-negative amounts is supported there");
}

/* reference: numpy's pad per mode, index by index */
static int64_t ref_fold(const char *mode, int64_t q, int64_t d, bool *outside) {
  *outside = false;
  if (!strcmp(mode, "constant")) return (*outside = q < 0 || q >= d) ? 0 : q;
  if (!strcmp(mode, "edge")) return q < 0 ? 0 : q >= d ? d - 1 : q;
  if (!strcmp(mode, "wrap")) return ((q % d) + d) % d;
  while (q < 0 || q >= d) q = q < 0 ? -q : 2 * (d - 1) - q; /* reflect */
  return q;
}

static void pad_case(const char *mode, const int64_t *pads, double value) {
  int64_t in_shape[2] = {3, 4}, out_shape[2] = {3 + pads[0] + pads[2], 4 + pads[1] + pads[3]};
  double x[12], want[MAXV];
  opc_fill(x, 12, 3, -2, 2);
  for (int64_t i = 0; i < out_shape[0] * out_shape[1]; i++) {
    int64_t o[2], src[2];
    bool out0, out1;
    opc_unravel(i, out_shape, 2, o);
    src[0] = ref_fold(mode, o[0] - pads[0], 3, &out0);
    src[1] = ref_fold(mode, o[1] - pads[1], 4, &out1);
    want[i] = out0 || out1 ? value : x[opc_ravel(src, in_shape, 2)];
  }
  char call[256];
  snprintf(call, sizeof call, "R.nn.pad(data, pad_width=[%lld, %lld, %lld, %lld], pad_value=%g, pad_mode=\"%s\")",
           (long long)pads[0], (long long)pads[1], (long long)pads[2], (long long)pads[3], value, mode);
  OpcBuf in = opc_buf(2, in_shape, x), w = opc_buf(2, out_shape, want);
  opc_check_run("data: " F32("(3, 4)"), call, &in, 1, &w, 1, 1e-6);
}

static void test_pad_run(void) {
  pad_case("constant", (int64_t[]){1, 2, 0, 1}, 0.5);
  pad_case("constant", (int64_t[]){-1, 1, 1, -2}, -3);
  pad_case("edge", (int64_t[]){2, 0, 1, 3}, 0);
  pad_case("reflect", (int64_t[]){2, 3, 2, 3}, 0);
  pad_case("wrap", (int64_t[]){4, 1, 2, 5}, 0);
}

/* ======================================================================== */
/* tile                                                                     */
/* ======================================================================== */

static void test_tile(void) {
  OPC_CHECK_INFER("x: " F32("(2, 3)"), "R.tile(x, repeats=[2, 3])", "R.Tensor((4, 9), dtype=\"float32\")");
  OPC_CHECK_INFER("x: " F32("(\"n\", 3)"), "R.tile(x, repeats=[2, 1])", "R.Tensor((n * 2, 3), dtype=\"float32\")");
  OPC_CHECK_INFER("x: " F32("(3,)"), "R.tile(x, repeats=[2, 2])", "R.Tensor((2, 6), dtype=\"float32\")");
  OPC_CHECK_REFUSED("x: " F32("(3,)"), "R.tile(x, repeats=[-1])", "tile: repeats must not be negative, got -1");
  int64_t in_shape[2] = {2, 3}, out_shape[2] = {6, 6};
  double x[6], want[36];
  opc_fill(x, 6, 5, -1, 1);
  for (int64_t i = 0; i < 6; i++)
    for (int64_t j = 0; j < 6; j++) want[i * 6 + j] = x[(i % 2) * 3 + j % 3];
  OpcBuf in = opc_buf(2, in_shape, x), w = opc_buf(2, out_shape, want);
  opc_check_run("x: " F32("(2, 3)"), "R.tile(x, repeats=[3, 2])", &in, 1, &w, 1, 1e-6);
}

/* ======================================================================== */
/* gather_elements, scatter_elements                                        */
/* ======================================================================== */

static void test_gather_elements(void) {
  OPC_CHECK_INFER("data: " F32("(3, 4)") ", indices: " I64("(2, 4)"), "R.gather_elements(data, indices, axis=0)",
                  "R.Tensor((2, 4), dtype=\"float32\")");
  OPC_CHECK_REFUSED("data: " F32("(3, 4)") ", indices: " I64("(2,)"), "R.gather_elements(data, indices)",
                    "gather_elements: indices (2,) and data (3, 4) must have the same rank");
  OPC_CHECK_REFUSED("data: " F32("(3, 4)") ", indices: " F32("(2, 4)"), "R.gather_elements(data, indices)",
                    "gather_elements: indices must be integers, not float32");
  OPC_CHECK_REFUSED("data: " F32("(3, 4)") ", indices: " I64("(2, 5)"), "R.gather_elements(data, indices, axis=0)",
                    "gather_elements: indices (2, 5) is larger than data (3, 4) in dim 1");
  double x[12], ind[6] = {0, 3, -1, 2, -4, 1}, want[6];
  opc_fill(x, 12, 9, -3, 3);
  for (int i = 0; i < 2; i++)
    for (int j = 0; j < 3; j++) {
      int64_t k = (int64_t)ind[i * 3 + j];
      want[i * 3 + j] = x[i * 4 + (k < 0 ? k + 4 : k)];
    }
  OpcBuf in[2] = {opc_buf(2, (int64_t[]){3, 4}, x), opc_buf(2, (int64_t[]){2, 3}, ind)};
  OpcBuf w = opc_buf(2, (int64_t[]){2, 3}, want);
  opc_check_run("data: " F32("(3, 4)") ", indices: " I64("(2, 3)"), "R.gather_elements(data, indices, axis=-1)", in, 2,
                &w, 1, 1e-6);
}

static double ref_combine(const char *red, double a, double u) {
  if (!strcmp(red, "add")) return a + u;
  if (!strcmp(red, "mul")) return a * u;
  if (!strcmp(red, "max")) return a > u ? a : u;
  if (!strcmp(red, "min")) return a < u ? a : u;
  return u;
}

/* data (3, 4); indices and updates (2, 3) along axis 0, with duplicates */
static void scatter_case(const char *red) {
  double x[12], ind[6] = {0, 2, -1, 0, 1, 2}, upd[6], want[12];
  opc_fill(x, 12, 11, -2, 2);
  opc_fill(upd, 6, 13, -2, 2);
  memcpy(want, x, sizeof x);
  for (int i = 0; i < 2; i++)
    for (int j = 0; j < 3; j++) {
      int64_t k = (int64_t)ind[i * 3 + j];
      double *t = &want[(k < 0 ? k + 3 : k) * 4 + j];
      *t = ref_combine(red, *t, upd[i * 3 + j]);
    }
  char call[160];
  snprintf(call, sizeof call, "R.scatter_elements(data, indices, updates, axis=0, reduction=\"%s\")", red);
  OpcBuf in[3] = {opc_buf(2, (int64_t[]){3, 4}, x), opc_buf(2, (int64_t[]){2, 3}, ind),
                  opc_buf(2, (int64_t[]){2, 3}, upd)};
  OpcBuf w = opc_buf(2, (int64_t[]){3, 4}, want);
  opc_check_run("data: " F32("(3, 4)") ", indices: " I64("(2, 3)") ", updates: " F32("(2, 3)"), call, in, 3, &w, 1,
                1e-6);
}

static void test_scatter_elements(void) {
  const char *p = "data: " F32("(3, 4)") ", indices: " I64("(2, 3)") ", updates: " F32("(2, 3)");
  OPC_CHECK_INFER(p, "R.scatter_elements(data, indices, updates)", "R.Tensor((3, 4), dtype=\"float32\")");
  OPC_CHECK_REFUSED(p, "R.scatter_elements(data, indices, updates, reduction=\"avg\")",
                    "scatter_elements: reduction must be \"none\", \"add\", \"mul\", \"max\" or \"min\", not \"avg\"");
  OPC_CHECK_REFUSED("data: " F32("(3, 4)") ", indices: " I64("(2, 3)") ", updates: " F32("(2, 2)"),
                    "R.scatter_elements(data, indices, updates)",
                    "scatter_elements: updates (2, 2) and indices (2, 3) must have the same shape");
  scatter_case("none");
  scatter_case("add");
  scatter_case("mul");
  scatter_case("max");
  scatter_case("min");
}

/* ======================================================================== */
/* one_hot                                                                  */
/* ======================================================================== */

static void test_one_hot(void) {
  OPC_CHECK_INFER("indices: " I64("(2, 3)"), "R.one_hot(indices, depth=5)", "R.Tensor((2, 3, 5), dtype=\"float32\")");
  OPC_CHECK_INFER("indices: " I64("(2, 3)"), "R.one_hot(indices, depth=5, axis=0, dtype=\"int32\")",
                  "R.Tensor((5, 2, 3), dtype=\"int32\")");
  OPC_CHECK_REFUSED("indices: " I64("(2,)"), "R.one_hot(indices, depth=0)", "one_hot: depth must be positive, got 0");
  OPC_CHECK_REFUSED("indices: " F32("(2,)"), "R.one_hot(indices, depth=3)",
                    "one_hot: indices must be integers, not float32");
  double ind[4] = {0, -1, 3, 7}, want[16];
  for (int c = 0; c < 4; c++)     /* axis 0: out[c, i] */
    for (int i = 0; i < 4; i++) { /* -1 is class 3, 7 is none */
      int64_t k = (int64_t)ind[i];
      want[c * 4 + i] = (k < 0 ? k + 4 : k) == c ? 5.0 : -2.0;
    }
  OpcBuf in = opc_buf(1, (int64_t[]){4}, ind), w = opc_buf(2, (int64_t[]){4, 4}, want);
  opc_check_run("indices: " I64("(4,)"), "R.one_hot(indices, depth=4, on_value=5.0, off_value=-2.0, axis=0)", &in, 1,
                &w, 1, 1e-6);
}

int main(void) {
  RUN(test_pad_infer);
  RUN(test_pad_run);
  RUN(test_tile);
  RUN(test_gather_elements);
  RUN(test_scatter_elements);
  RUN(test_one_hot);
  return CHECK_DONE();
}
