/* test_ops_manip.c - the shape and indexing ops (src/ops/manip.c): for each
 * op, the struct info inference prints as expected for static and symbolic
 * shapes, every refused input names the op and what was expected at the
 * call's line, and the legalized prim func reads back equal and computes
 * what a plain C reference in this file computes (element positions are
 * derived here from hand-written index lists or row-major arithmetic, never
 * from the code under test). */
#include "check.h"
#include "op_check.h"

#include <stdio.h>

#define F32(shape) "R.Tensor(" shape ", \"float32\")"
#define X_F32(shape) "x: " F32(shape)

/* ops that keep the row-major order of the values (reshape, flatten,
 * expand_dims, squeeze, batch_flatten): out equals in, element by element */
static void check_same_order(const char *params, const char *call, int in_nd, const int64_t *in_shape,
                             int out_nd, const int64_t *out_shape) {
  OpcBuf in = opc_buf(in_nd, in_shape, NULL);
  double v[256];
  opc_fill(v, opc_numel(&in), 7, -2, 2);
  in.v = v;
  OpcBuf want = opc_buf(out_nd, out_shape, v);
  CHECK(opc_numel(&in) == opc_numel(&want));
  opc_check_run(params, call, &in, 1, &want, 1, 1e-5);
}

/* ======================================================================== */
/* reshape, flatten, nn.batch_flatten                                       */
/* ======================================================================== */

static void test_reshape_infer(void) {
  OPC_CHECK_INFER(X_F32("(2, 3, 4)"), "R.reshape(x, (6, 4))", "R.Tensor((6, 4), dtype=\"float32\")");
  OPC_CHECK_INFER(X_F32("(2, 3, 4)"), "R.reshape(x, shape=[4, -1])", "R.Tensor((4, 6), dtype=\"float32\")");
  /* a negative entry in a positional shape tuple: read as prim values */
  OPC_CHECK_INFER(X_F32("(2, 3, 4)"), "R.reshape(x, (-1, 4))", "R.Tensor((6, 4), dtype=\"float32\")");
  OPC_CHECK_INFER(X_F32("(\"n\", 4)"), "R.reshape(x, (-1, 2))", "R.Tensor((n * 2, 2), dtype=\"float32\")");
  OPC_CHECK_INFER(X_F32("(\"n\", 4)"), "R.reshape(x, shape=[-1])", "R.Tensor((n * 4,), dtype=\"float32\")");
  OPC_CHECK_INFER(X_F32("(\"n\", 4)"), "R.reshape(x, shape=[-1, 2])", "R.Tensor((n * 2, 2), dtype=\"float32\")");
  OPC_CHECK_INFER(X_F32("(\"n\", 4)"), "R.reshape(x, (n * 4,))", "R.Tensor((n * 4,), dtype=\"float32\")");
  OPC_CHECK_INFER(X_F32("(\"n\", 4)"), "R.reshape(x, (2, n * 2))", "R.Tensor((2, n * 2), dtype=\"float32\")");
  OPC_CHECK_INFER(X_F32("(\"n\", \"m\")"), "R.reshape(x, shape=[m, -1])", "R.Tensor((m, n), dtype=\"float32\")");
  OPC_CHECK_INFER(X_F32("(0, 3)"), "R.reshape(x, shape=[-1, 3])", "R.Tensor((0, 3), dtype=\"float32\")");
  OPC_CHECK_INFER("x: R.Tensor((2, 3), \"int8\")", "R.reshape(x, (3, 2))", "R.Tensor((3, 2), dtype=\"int8\")");
}

static void test_reshape_errors(void) {
  OPC_CHECK_REFUSED(X_F32("(2, 3)"), "R.reshape(x, (4, 2))", "reshape: x (2, 3) has 6 elements, shape (4, 2) has 8");
  OPC_CHECK_REFUSED(X_F32("(2, 3)"), "R.reshape(x, shape=[-1, -1])", "reshape: shape (-1, -1) has more than one -1");
  OPC_CHECK_REFUSED(X_F32("(2, 3)"), "R.reshape(x, shape=[-2, 3])",
                    "reshape: dim -2 of shape (-2, 3) is negative (only -1, once, is allowed)");
  OPC_CHECK_REFUSED(X_F32("(\"n\", 4)"), "R.reshape(x, (n, 3))",
                    "reshape: cannot prove that x (n, 4) and shape (n, 3) hold the same number of elements");
  OPC_CHECK_REFUSED(X_F32("(2, 3)"), "R.reshape(x, shape=[-1, 4])",
                    "reshape: cannot infer the -1 in shape (-1, 4): the element count of x (2, 3) is not a "
                    "multiple of the other dims' product");
  OPC_CHECK_REFUSED(X_F32("(\"n\", 4)"), "R.reshape(x, shape=[-1, 3])",
                    "reshape: cannot infer the -1 in shape (-1, 3): the element count of x (n, 4) is not "
                    "provably a multiple of the other dims' product");
  OPC_CHECK_REFUSED(X_F32("(2, 0)"), "R.reshape(x, shape=[-1, 0])",
                    "reshape: cannot infer the -1 in shape (-1, 0): the other dims hold no elements");
  OPC_CHECK_REFUSED(X_F32("(2, 3)"), "R.reshape(x, shape=\"a\")", "reshape: shape: expected integers or int64 dims");
}

static void test_reshape_run(void) {
  check_same_order(X_F32("(2, 3, 4)"), "R.reshape(x, shape=[4, -1])", 3, (int64_t[]){2, 3, 4}, 2,
                   (int64_t[]){4, 6});
  check_same_order(X_F32("(2, 3, 4)"), "R.reshape(x, (3, 1, 8))", 3, (int64_t[]){2, 3, 4}, 3,
                   (int64_t[]){3, 1, 8});
  /* n = 3: (3, 4) read as (6, 2) and as (12,) */
  check_same_order(X_F32("(\"n\", 4)"), "R.reshape(x, (n * 2, 2))", 2, (int64_t[]){3, 4}, 2,
                   (int64_t[]){6, 2});
  check_same_order(X_F32("(\"n\", 4)"), "R.reshape(x, shape=[-1])", 2, (int64_t[]){3, 4}, 1,
                   (int64_t[]){12});
}

static void test_flatten(void) {
  OPC_CHECK_INFER(X_F32("(2, 3, 4)"), "R.flatten(x)", "R.Tensor((24,), dtype=\"float32\")");
  OPC_CHECK_INFER(X_F32("(\"n\", 4)"), "R.flatten(x)", "R.Tensor((n * 4,), dtype=\"float32\")");
  OPC_CHECK_INFER(X_F32("()"), "R.flatten(x)", "R.Tensor((1,), dtype=\"float32\")");
  OPC_CHECK_REFUSED("x: R.Tensor(\"float32\", ndim=-1)", "R.flatten(x)", "flatten: x: expected a tensor of known rank");
  check_same_order(X_F32("(2, 3, 4)"), "R.flatten(x)", 3, (int64_t[]){2, 3, 4}, 1, (int64_t[]){24});
  check_same_order(X_F32("(\"n\", 4)"), "R.flatten(x)", 2, (int64_t[]){5, 4}, 1, (int64_t[]){20});
}

static void test_batch_flatten(void) {
  OPC_CHECK_INFER("data: " F32("(2, 3, 4)"), "R.nn.batch_flatten(data)", "R.Tensor((2, 12), dtype=\"float32\")");
  OPC_CHECK_INFER("data: " F32("(\"n\", 2, 3)"), "R.nn.batch_flatten(data)", "R.Tensor((n, 6), dtype=\"float32\")");
  OPC_CHECK_INFER("data: " F32("(2, \"m\", 3)"), "R.nn.batch_flatten(data)", "R.Tensor((2, m * 3), dtype=\"float32\")");
  OPC_CHECK_INFER("data: " F32("(5,)"), "R.nn.batch_flatten(data)", "R.Tensor((5, 1), dtype=\"float32\")");
  OPC_CHECK_REFUSED("data: " F32("()"), "R.nn.batch_flatten(data)",
                    "nn.batch_flatten: data must have at least 1 dim, not 0");
  check_same_order("data: " F32("(2, 3, 4)"), "R.nn.batch_flatten(data)", 3, (int64_t[]){2, 3, 4}, 2,
                   (int64_t[]){2, 12});
  check_same_order("data: " F32("(\"n\", 2, 3)"), "R.nn.batch_flatten(data)", 3, (int64_t[]){3, 2, 3}, 2,
                   (int64_t[]){3, 6});
}

/* ======================================================================== */
/* permute_dims, expand_dims, squeeze                                       */
/* ======================================================================== */

/* out[i0, i1, ...] = x[j] with j[perm[k]] = i[k] */
static void check_permute(const char *params, const char *call, int nd, const int64_t *shape,
                          const int *perm) {
  OpcBuf in = opc_buf(nd, shape, NULL), want = {.ndim = nd};
  double v[256], w[256];
  int64_t n = opc_numel(&in), oi[8], xi[8];
  opc_fill(v, n, 3, -1, 1);
  in.v = v;
  for (int k = 0; k < nd; k++) want.shape[k] = shape[perm[k]];
  for (int64_t f = 0; f < n; f++) {
    opc_unravel(f, want.shape, nd, oi);
    for (int k = 0; k < nd; k++) xi[perm[k]] = oi[k];
    w[f] = v[opc_ravel(xi, shape, nd)];
  }
  want.v = w;
  opc_check_run(params, call, &in, 1, &want, 1, 1e-5);
}

static void test_permute_dims(void) {
  OPC_CHECK_INFER(X_F32("(2, 3, 4)"), "R.permute_dims(x, axes=[1, 2, 0])", "R.Tensor((3, 4, 2), dtype=\"float32\")");
  OPC_CHECK_INFER(X_F32("(2, 3, 4)"), "R.permute_dims(x, axes=[-1, 0, 1])", "R.Tensor((4, 2, 3), dtype=\"float32\")");
  OPC_CHECK_INFER(X_F32("(\"n\", 4)"), "R.permute_dims(x)", "R.Tensor((4, n), dtype=\"float32\")");
  OPC_CHECK_INFER(X_F32("(\"n\", 4)"), "R.permute_dims(x, axes=None)", "R.Tensor((4, n), dtype=\"float32\")");
  OPC_CHECK_REFUSED(X_F32("(2, 3)"), "R.permute_dims(x, axes=[0, 0])", "permute_dims: axis 0 is repeated in axes");
  OPC_CHECK_REFUSED(X_F32("(2, 3)"), "R.permute_dims(x, axes=[0])", "permute_dims: axes lists 1 axes, x has 2 dims");
  OPC_CHECK_REFUSED(X_F32("(2, 3)"), "R.permute_dims(x, axes=[0, 2])",
                    "permute_dims: axis 2 is out of range for a tensor of rank 2");
  check_permute(X_F32("(2, 3, 4)"), "R.permute_dims(x, axes=[1, 2, 0])", 3, (int64_t[]){2, 3, 4},
                (int[]){1, 2, 0});
  check_permute(X_F32("(\"n\", 4)"), "R.permute_dims(x)", 2, (int64_t[]){5, 4}, (int[]){1, 0});
}

static void test_expand_dims(void) {
  OPC_CHECK_INFER(X_F32("(2, 3)"), "R.expand_dims(x, axis=[0, -1])", "R.Tensor((1, 2, 3, 1), dtype=\"float32\")");
  OPC_CHECK_INFER(X_F32("(\"n\", 4)"), "R.expand_dims(x, 1)", "R.Tensor((n, 1, 4), dtype=\"float32\")");
  OPC_CHECK_INFER(X_F32("()"), "R.expand_dims(x, 0)", "R.Tensor((1,), dtype=\"float32\")");
  OPC_CHECK_REFUSED(X_F32("(2, 3)"), "R.expand_dims(x, axis=[1, 1])", "expand_dims: axis 1 is repeated");
  OPC_CHECK_REFUSED(X_F32("(2, 3)"), "R.expand_dims(x, axis=[1, -3])", "expand_dims: axis -3 is repeated");
  OPC_CHECK_REFUSED(X_F32("(2, 3)"), "R.expand_dims(x, 3)",
                    "expand_dims: axis 3 is out of range for a tensor of rank 3");
  check_same_order(X_F32("(2, 3)"), "R.expand_dims(x, axis=[0, -1])", 2, (int64_t[]){2, 3}, 4,
                   (int64_t[]){1, 2, 3, 1});
  check_same_order(X_F32("(\"n\", 4)"), "R.expand_dims(x, 1)", 2, (int64_t[]){3, 4}, 3, (int64_t[]){3, 1, 4});
}

static void test_squeeze(void) {
  OPC_CHECK_INFER(X_F32("(1, 3, 1, 2)"), "R.squeeze(x)", "R.Tensor((3, 2), dtype=\"float32\")");
  OPC_CHECK_INFER(X_F32("(1, 3, 1, 2)"), "R.squeeze(x, axis=[-2])", "R.Tensor((1, 3, 2), dtype=\"float32\")");
  OPC_CHECK_INFER(X_F32("(\"n\", 1, 4)"), "R.squeeze(x, axis=[1])", "R.Tensor((n, 4), dtype=\"float32\")");
  OPC_CHECK_INFER(X_F32("(\"n\", 1)"), "R.squeeze(x)", "R.Tensor((n,), dtype=\"float32\")");
  OPC_CHECK_INFER(X_F32("(1, 1)"), "R.squeeze(x)", "R.Tensor((), dtype=\"float32\")");
  OPC_CHECK_REFUSED(X_F32("(2, 3)"), "R.squeeze(x, axis=[1])",
                    "squeeze: cannot squeeze axis 1 of x (2, 3): its extent is not 1");
  OPC_CHECK_REFUSED(X_F32("(\"n\", 3)"), "R.squeeze(x, axis=0)",
                    "squeeze: cannot squeeze axis 0 of x (n, 3): its extent is not provably 1");
  OPC_CHECK_REFUSED(X_F32("(1, 3)"), "R.squeeze(x, axis=[2])",
                    "squeeze: axis 2 is out of range for a tensor of rank 2");
  check_same_order(X_F32("(1, 3, 1, 2)"), "R.squeeze(x)", 4, (int64_t[]){1, 3, 1, 2}, 2, (int64_t[]){3, 2});
  check_same_order(X_F32("(\"n\", 1, 4)"), "R.squeeze(x, axis=[1])", 3, (int64_t[]){2, 1, 4}, 2,
                   (int64_t[]){2, 4});
}

/* ======================================================================== */
/* concat, split                                                            */
/* ======================================================================== */

/* out along axis is the inputs one after another */
static void check_concat(const char *params, const char *call, int n, int nd, int64_t shapes[][4],
                         int axis) {
  OpcBuf in[4], want = {.ndim = nd};
  double v[4][128], w[512];
  memcpy(want.shape, shapes[0], sizeof want.shape);
  want.shape[axis] = 0;
  for (int t = 0; t < n; t++) {
    in[t] = opc_buf(nd, shapes[t], v[t]);
    opc_fill(v[t], opc_numel(&in[t]), 11 + (unsigned)t, -3, 3);
    want.shape[axis] += shapes[t][axis];
  }
  int64_t oi[4];
  for (int64_t f = 0; f < opc_numel(&want); f++) {
    opc_unravel(f, want.shape, nd, oi);
    int t = 0;
    while (oi[axis] >= shapes[t][axis]) oi[axis] -= shapes[t][axis], t++;
    w[f] = v[t][opc_ravel(oi, shapes[t], nd)];
  }
  want.v = w;
  opc_check_run(params, call, in, n, &want, 1, 1e-5);
}

static void test_concat(void) {
  const char *xy = X_F32("(2, 3)") ", y: " F32("(2, 5)");
  OPC_CHECK_INFER(xy, "R.concat((x, y), axis=1)", "R.Tensor((2, 8), dtype=\"float32\")");
  OPC_CHECK_INFER(xy, "R.concat((x, y), axis=-1)", "R.Tensor((2, 8), dtype=\"float32\")");
  OPC_CHECK_INFER(X_F32("(\"n\", 4)") ", y: " F32("(2, 4)"), "R.concat((x, y))",
                  "R.Tensor((n + 2, 4), dtype=\"float32\")");
  OPC_CHECK_INFER(X_F32("(\"n\", 2)") ", y: " F32("(\"n\", 3)"), "R.concat((x, y), axis=1)",
                  "R.Tensor((n, 5), dtype=\"float32\")");
  OPC_CHECK_INFER(X_F32("(3,)") ", y: " F32("(4,)"), "R.concat((x, y), axis=None)",
                  "R.Tensor((7,), dtype=\"float32\")");
  OPC_CHECK_REFUSED(X_F32("(2, 3)") ", y: " F32("(3, 3)"), "R.concat((x, y), axis=1)",
                    "concat: tensors[1] (3, 3) and tensors[0] (2, 3) differ in dim 0; only axis 1 may differ");
  OPC_CHECK_REFUSED(X_F32("(\"n\", 3)") ", y: " F32("(2, 3)"), "R.concat((x, y), axis=1)",
                    "concat: tensors[1] (2, 3) and tensors[0] (n, 3) are not provably equal in dim 0; only "
                    "axis 1 may differ");
  OPC_CHECK_REFUSED(X_F32("(2, 3)") ", y: " F32("(3,)"), "R.concat((x, y))",
                    "concat: tensors[1] (3,) has 1 dims, tensors[0] (2, 3) has 2");
  OPC_CHECK_REFUSED(X_F32("(2, 3)") ", y: R.Tensor((2, 3), \"int32\")", "R.concat((x, y))",
                    "concat: tensors[1] is int32, tensors[0] is float32");
  OPC_CHECK_REFUSED(xy, "R.concat((x, y), axis=2)", "concat: axis 2 is out of range for a tensor of rank 2");
  OPC_CHECK_REFUSED(xy, "R.concat((x, y), axis=None)", "concat: axis=None needs 1-D tensors, not 2-D");
  OPC_CHECK_REFUSED(X_F32("()") ", y: " F32("()"), "R.concat((x, y))", "concat: cannot concatenate 0-d tensors");
  check_concat(xy, "R.concat((x, y), axis=1)", 2, 2, (int64_t[][4]){{2, 3}, {2, 5}}, 1);
  check_concat(X_F32("(2, 3)") ", y: " F32("(1, 3)") ", z: " F32("(4, 3)"), "R.concat((x, y, z), axis=0)",
               3, 2, (int64_t[][4]){{2, 3}, {1, 3}, {4, 3}}, 0);
  check_concat(X_F32("(\"n\", 4)") ", y: " F32("(2, 4)"), "R.concat((x, y))", 2, 2,
               (int64_t[][4]){{3, 4}, {2, 4}}, 0);
}

/* piece k is x[..., lo[k]:lo[k] + len[k], ...] along axis */
static void check_split(const char *params, const char *call, int nd, const int64_t *shape, int axis,
                        int n, const int64_t *lo, const int64_t *len) {
  OpcBuf in = opc_buf(nd, shape, NULL), want[8];
  double v[256], w[8][256];
  int64_t oi[4];
  opc_fill(v, opc_numel(&in), 5, -1, 1);
  in.v = v;
  for (int k = 0; k < n; k++) {
    want[k] = opc_buf(nd, shape, w[k]);
    want[k].shape[axis] = len[k];
    for (int64_t f = 0; f < opc_numel(&want[k]); f++) {
      opc_unravel(f, want[k].shape, nd, oi);
      oi[axis] += lo[k];
      w[k][f] = v[opc_ravel(oi, shape, nd)];
    }
  }
  opc_check_run(params, call, &in, 1, want, n, 1e-5);
}

static void test_split(void) {
  OPC_CHECK_INFER(X_F32("(2, 6)"), "R.split(x, 3, axis=1)",
                  "R.Tuple(R.Tensor((2, 2), dtype=\"float32\"), R.Tensor((2, 2), dtype=\"float32\"), "
                  "R.Tensor((2, 2), dtype=\"float32\"))");
  OPC_CHECK_INFER(X_F32("(\"n\", 7)"), "R.split(x, [2, 5], axis=1)",
                  "R.Tuple(R.Tensor((n, 2), dtype=\"float32\"), R.Tensor((n, 3), dtype=\"float32\"), "
                  "R.Tensor((n, 2), dtype=\"float32\"))");
  /* numpy: the pieces are x[0:3], x[3:1] (empty), x[1:5] */
  OPC_CHECK_INFER(X_F32("(5,)"), "R.split(x, indices_or_sections=[3, 1])",
                  "R.Tuple(R.Tensor((3,), dtype=\"float32\"), R.Tensor((0,), dtype=\"float32\"), "
                  "R.Tensor((4,), dtype=\"float32\"))");
  OPC_CHECK_INFER(X_F32("(4,)"), "R.split(x, [2, 9])",
                  "R.Tuple(R.Tensor((2,), dtype=\"float32\"), R.Tensor((2,), dtype=\"float32\"), "
                  "R.Tensor((0,), dtype=\"float32\"))");
  OPC_CHECK_INFER(X_F32("(\"n\", 4)"), "R.split(x, 1)", "R.Tuple(R.Tensor((n, 4), dtype=\"float32\"))");
  OPC_CHECK_REFUSED(X_F32("(2, 7)"), "R.split(x, 3, axis=1)", "split: 3 sections do not divide axis 1 of x (2, 7)");
  OPC_CHECK_REFUSED(X_F32("(\"n\", 4)"), "R.split(x, 2)",
                    "split: cannot prove that 2 sections divide axis 0 of x (n, 4)");
  OPC_CHECK_REFUSED(X_F32("(2, 4)"), "R.split(x, 0)", "split: sections must be in [1, 256], not 0");
  OPC_CHECK_REFUSED(X_F32("(2, 4)"), "R.split(x, indices_or_sections=[-1], axis=1)",
                    "split: split index -1 is negative");
  OPC_CHECK_REFUSED(X_F32("(\"n\", 4)"), "R.split(x, [1])",
                    "split: cannot split axis 0 of x (n, 4) at indices: its extent is symbolic");
  OPC_CHECK_REFUSED(X_F32("()"), "R.split(x, 1)", "split: cannot split a 0-d tensor");
  check_split(X_F32("(2, 6)"), "R.split(x, 3, axis=1)", 2, (int64_t[]){2, 6}, 1, 3, (int64_t[]){0, 2, 4},
              (int64_t[]){2, 2, 2});
  check_split(X_F32("(\"n\", 7)"), "R.split(x, [2, 5], axis=-1)", 2, (int64_t[]){2, 7}, 1, 3,
              (int64_t[]){0, 2, 5}, (int64_t[]){2, 3, 2});
  check_split(X_F32("(5, 3)"), "R.split(x, [1, 3])", 2, (int64_t[]){5, 3}, 0, 3, (int64_t[]){0, 1, 3},
              (int64_t[]){1, 2, 2});
}

/* ======================================================================== */
/* strided_slice                                                            */
/* ======================================================================== */

/* a 2-D x read at rows[] x cols[], index lists written out by hand */
static void check_slice2(const char *params, const char *call, const int64_t *shape, int nr,
                         const int64_t *rows, int nc, const int64_t *cols) {
  OpcBuf in = opc_buf(2, shape, NULL), want = opc_buf(2, (int64_t[]){nr, nc}, NULL);
  double v[256], w[256];
  opc_fill(v, opc_numel(&in), 9, -4, 4);
  in.v = v;
  for (int r = 0; r < nr; r++)
    for (int c = 0; c < nc; c++) w[r * nc + c] = v[rows[r] * shape[1] + cols[c]];
  want.v = w;
  opc_check_run(params, call, &in, 1, &want, 1, 1e-5);
}

static void test_strided_slice_infer(void) {
  OPC_CHECK_INFER(X_F32("(5, 6)"), "R.strided_slice(x, axes=[0, 1], begin=[1, -1], end=[4, -7], strides=[2, -2])",
                  "R.Tensor((2, 3), dtype=\"float32\")");
  OPC_CHECK_INFER(X_F32("(\"n\", 8)"), "R.strided_slice(x, axes=[1], begin=[-100], end=[100], strides=[3])",
                  "R.Tensor((n, 3), dtype=\"float32\")");
  OPC_CHECK_INFER(X_F32("(4,)"), "R.strided_slice(x, axes=[0], begin=[10], end=[-10], strides=[-1])",
                  "R.Tensor((4,), dtype=\"float32\")");
  OPC_CHECK_INFER(X_F32("(4,)"), "R.strided_slice(x, axes=[0], begin=[3], end=[1])",
                  "R.Tensor((0,), dtype=\"float32\")");
  OPC_CHECK_INFER(X_F32("(\"n\", 4)"), "R.strided_slice(x, [0], [0], [2147483647])",
                  "R.Tensor((n, 4), dtype=\"float32\")");
  OPC_CHECK_INFER(X_F32("(6, 2)"),
                  "R.strided_slice(x, axes=[0], begin=[1], end=[6], strides=[2], assume_inbound=False)",
                  "R.Tensor((3, 2), dtype=\"float32\")");
}

static void test_strided_slice_errors(void) {
  OPC_CHECK_REFUSED(X_F32("(5, 6)"), "R.strided_slice(x, axes=[0], begin=[0], end=[2], strides=[0])",
                    "strided_slice: the stride of axis 0 is 0");
  OPC_CHECK_REFUSED(X_F32("(5, 6)"), "R.strided_slice(x, axes=[1, -1], begin=[0, 0], end=[2, 2])",
                    "strided_slice: axis -1 is repeated in axes");
  OPC_CHECK_REFUSED(X_F32("(5, 6)"), "R.strided_slice(x, axes=[0, 1], begin=[0], end=[2, 2])",
                    "strided_slice: begin lists 1 values, axes lists 2");
  OPC_CHECK_REFUSED(X_F32("(5, 6)"), "R.strided_slice(x, axes=[0], begin=[0], end=[2], strides=[1, 1])",
                    "strided_slice: strides lists 2 values, axes lists 1");
  OPC_CHECK_REFUSED(X_F32("(5, 6)"), "R.strided_slice(x, axes=[2], begin=[0], end=[2])",
                    "strided_slice: axis 2 is out of range for a tensor of rank 2");
  OPC_CHECK_REFUSED(X_F32("(\"n\", 6)"), "R.strided_slice(x, axes=[0], begin=[1], end=[3])",
                    "strided_slice: axis 0 of x (n, 6) has a symbolic extent: only the whole axis (begin 0, "
                    "end >= 2147483647, stride 1) can be sliced");
}

static void test_strided_slice_run(void) {
  /* rows 1:4:2 = {1, 3}; cols -1:-7:-2 = 5:-1:-2 = {5, 3, 1} */
  check_slice2(X_F32("(5, 6)"), "R.strided_slice(x, axes=[0, 1], begin=[1, -1], end=[4, -7], strides=[2, -2])",
               (int64_t[]){5, 6}, 2, (int64_t[]){1, 3}, 3, (int64_t[]){5, 3, 1});
  /* n = 3 rows untouched; cols -100:100:3 clamp to 0:8:3 = {0, 3, 6} */
  check_slice2(X_F32("(\"n\", 8)"), "R.strided_slice(x, axes=[1], begin=[-100], end=[100], strides=[3])",
               (int64_t[]){3, 8}, 3, (int64_t[]){0, 1, 2}, 3, (int64_t[]){0, 3, 6});
  /* rows 10:-10:-1 clamp to 3:-1:-1 = {3, 2, 1, 0}; cols -2: = {2, 3} */
  check_slice2(X_F32("(4, 4)"), "R.strided_slice(x, axes=[0, 1], begin=[10, -2], end=[-10, 99], strides=[-1, 1])",
               (int64_t[]){4, 4}, 4, (int64_t[]){3, 2, 1, 0}, 2, (int64_t[]){2, 3});
}

/* ======================================================================== */
/* take                                                                     */
/* ======================================================================== */

static void test_take_infer(void) {
  const char *xi = X_F32("(2, 3, 4)") ", indices: R.Tensor((5, 6), \"int32\")";
  OPC_CHECK_INFER(xi, "R.take(x, indices, axis=1)", "R.Tensor((2, 5, 6, 4), dtype=\"float32\")");
  OPC_CHECK_INFER(xi, "R.take(x, indices, axis=-1)", "R.Tensor((2, 3, 5, 6), dtype=\"float32\")");
  OPC_CHECK_INFER(xi, "R.take(x, indices)", "R.Tensor((5, 6), dtype=\"float32\")");
  OPC_CHECK_INFER(X_F32("(\"n\", 3)") ", indices: R.Tensor((\"m\",), \"int64\")", "R.take(x, indices, axis=0)",
                  "R.Tensor((m, 3), dtype=\"float32\")");
  OPC_CHECK_REFUSED(X_F32("(2, 3)") ", indices: " F32("(2,)"), "R.take(x, indices, axis=0)",
                    "take: indices must be integers, not float32");
  OPC_CHECK_REFUSED(X_F32("(2, 3)") ", indices: R.Tensor((2,), \"int32\")",
                    "R.take(x, indices, axis=0, mode=\"raise\")",
                    "take: mode must be \"clip\", \"wrap\" or \"fast\", not \"raise\"");
  OPC_CHECK_REFUSED(X_F32("(2, 3)") ", indices: R.Tensor((2,), \"int32\")", "R.take(x, indices, axis=2)",
                    "take: axis 2 is out of range for a tensor of rank 2");
  OPC_CHECK_REFUSED(X_F32("(0, 3)") ", indices: R.Tensor((2,), \"int32\")", "R.take(x, indices, axis=0)",
                    "take: cannot take from x (0, 3): the axis holds no elements");
  OPC_CHECK_REFUSED(X_F32("(2, 0)") ", indices: R.Tensor((2,), \"int32\")", "R.take(x, indices)",
                    "take: cannot take from x (2, 0): it holds no elements");
}

/* x (rows, cols) taken along axis 0 or 1 at pos[] (already made safe by
 * hand: clipped or wrapped) */
static void check_take2(const char *params, const char *call, const int64_t *shape, int axis,
                        const double *ind, int ni, const int64_t *pos) {
  OpcBuf in[2] = {opc_buf(2, shape, NULL), opc_buf(1, (int64_t[]){ni}, (double *)ind)};
  int64_t oshape[2] = {axis == 0 ? ni : shape[0], axis == 0 ? shape[1] : ni};
  OpcBuf want = opc_buf(2, oshape, NULL);
  double v[256], w[256];
  opc_fill(v, opc_numel(&in[0]), 13, -5, 5);
  in[0].v = v;
  for (int64_t r = 0; r < oshape[0]; r++)
    for (int64_t c = 0; c < oshape[1]; c++)
      w[r * oshape[1] + c] = axis == 0 ? v[pos[r] * shape[1] + c] : v[r * shape[1] + pos[c]];
  want.v = w;
  opc_check_run(params, call, in, 2, &want, 1, 1e-5);
}

static void test_take_run(void) {
  /* clip (the default): -1 -> 0, 7 -> 2 */
  check_take2(X_F32("(3, 4)") ", indices: R.Tensor((5,), \"int32\")", "R.take(x, indices, axis=0)",
              (int64_t[]){3, 4}, 0, (double[]){2, 0, -1, 7, 1}, 5, (int64_t[]){2, 0, 0, 2, 1});
  /* wrap over n = 2 rows, 3 cols: 5 -> 2, -3 -> 0, -1 -> 2 */
  check_take2(X_F32("(\"n\", 3)") ", indices: R.Tensor((4,), \"int64\")",
              "R.take(x, indices, axis=1, mode=\"wrap\")", (int64_t[]){2, 3}, 1, (double[]){0, 5, -3, -1},
              4, (int64_t[]){0, 2, 0, 2});
  /* fast: indices in range are read as they are (out of range is a
   * run-time error, test_onnx_gather_range.c) */
  check_take2(X_F32("(2, 4)") ", indices: R.Tensor((2,), \"int32\")", "R.take(x, indices, axis=1, mode=\"fast\")",
              (int64_t[]){2, 4}, 1, (double[]){3, 1}, 2, (int64_t[]){3, 1});
  /* axis None: x (2, 3) read flat, clipped into [0, 5]; indices (2, 2) */
  OpcBuf in[2] = {opc_buf(2, (int64_t[]){2, 3}, NULL), opc_buf(2, (int64_t[]){2, 2}, (double[]){5, 0, 9, -3})};
  double v[6], w[4];
  opc_fill(v, 6, 17, -1, 1);
  in[0].v = v;
  w[0] = v[5], w[1] = v[0], w[2] = v[5], w[3] = v[0];
  OpcBuf want = opc_buf(2, (int64_t[]){2, 2}, w);
  opc_check_run(X_F32("(2, 3)") ", indices: R.Tensor((2, 2), \"int32\")", "R.take(x, indices)", in, 2, &want, 1, 1e-5);
}

/* ======================================================================== */
/* broadcast_to                                                             */
/* ======================================================================== */

/* out[i] = x[i aligned right, dims of extent 1 read at 0] */
static void check_broadcast(const char *params, const char *call, int nd, const int64_t *shape,
                            int out_nd, const int64_t *out_shape) {
  OpcBuf in = opc_buf(nd, shape, NULL), want = opc_buf(out_nd, out_shape, NULL);
  double v[256], w[256];
  int64_t oi[8], xi[8];
  opc_fill(v, opc_numel(&in), 19, -2, 2);
  in.v = v;
  for (int64_t f = 0; f < opc_numel(&want); f++) {
    opc_unravel(f, out_shape, out_nd, oi);
    for (int k = 0; k < nd; k++) xi[k] = shape[k] == 1 ? 0 : oi[out_nd - nd + k];
    w[f] = v[opc_ravel(xi, shape, nd)];
  }
  want.v = w;
  opc_check_run(params, call, &in, 1, &want, 1, 1e-5);
}

static void test_broadcast_to(void) {
  OPC_CHECK_INFER(X_F32("(3, 1)"), "R.broadcast_to(x, (2, 3, 4))", "R.Tensor((2, 3, 4), dtype=\"float32\")");
  OPC_CHECK_INFER(X_F32("(\"n\", 1)"), "R.broadcast_to(x, (n, 4))", "R.Tensor((n, 4), dtype=\"float32\")");
  OPC_CHECK_REFUSED(X_F32("(2, 3)"), "R.broadcast_to(x, (4, 3))",
                    "broadcast_to: cannot broadcast x (2, 3) to (4, 3): dim 0 differs and is not 1");
  OPC_CHECK_REFUSED(X_F32("(\"n\", 3)"), "R.broadcast_to(x, (4, 3))",
                    "broadcast_to: cannot broadcast x (n, 3) to (4, 3): dim 0 is not provably equal or 1");
  OPC_CHECK_REFUSED(X_F32("(2, 3)"), "R.broadcast_to(x, (3,))",
                    "broadcast_to: cannot broadcast x (2, 3) to (3,): the target has fewer dims");
  check_broadcast(X_F32("(3, 1)"), "R.broadcast_to(x, (2, 3, 4))", 2, (int64_t[]){3, 1}, 3,
                  (int64_t[]){2, 3, 4});
  check_broadcast(X_F32("(\"n\", 1)"), "R.broadcast_to(x, (n, 4))", 2, (int64_t[]){3, 1}, 2,
                  (int64_t[]){3, 4});
  check_broadcast(X_F32("(5,)"), "R.broadcast_to(x, (2, 5))", 1, (int64_t[]){5}, 2, (int64_t[]){2, 5});
}

/* refusals of malformed arguments that the per-op tests do not reach */
static void test_argument_errors(void) {
  OPC_CHECK_REFUSED("x: R.Tensor(ndim=2, dtype=\"float32\")", "R.flatten(x)", "flatten: x has unknown dims");
  OPC_CHECK_REFUSED(X_F32("(1099511627776, 1099511627776)"), "R.flatten(x)",
                    "flatten: the element count of (1099511627776, 1099511627776) is too large");
  OPC_CHECK_REFUSED(X_F32("(1099511627776, 1099511627776)"), "R.reshape(x, shape=[-1])",
                    "reshape: element counts of x (1099511627776, 1099511627776) and shape (-1,) are too large");
  OPC_CHECK_REFUSED(X_F32("(2, 3)"), "R.expand_dims(x, axis=None)", "expand_dims: axis is required");
  OPC_CHECK_REFUSED(X_F32("(2, 3)"), "R.concat(())", "concat: tensors must be a non-empty tuple of tensors");
  OPC_CHECK_REFUSED(X_F32("(2, 3)") ", y: R.Tensor(\"float32\", ndim=-1)", "R.concat((x, y))",
                    "concat: tensors[1] is not a tensor of known dims");
  OPC_CHECK_REFUSED(X_F32("(2, 3)"), "R.strided_slice(x, axes=None, begin=[0], end=[1])",
                    "strided_slice: axes is required");
  OPC_CHECK_REFUSED(X_F32("(2, 3)"), "R.split(x, indices_or_sections=\"a\")",
                    "split: indices_or_sections: expected an integer");
  OPC_CHECK_REFUSED(X_F32("(2, 3)"), "R.squeeze(x, axis=\"a\")",
                    "squeeze: axis: expected an integer or a list of integers");
}

/* values of integer dtypes pass through the gathers unchanged */
static void test_int_dtypes(void) {
  double xv[4] = {1, -2, 3, 127}, yv[2] = {-128, 5}, w[6] = {1, -2, 3, 127, -128, 5};
  OpcBuf in[2] = {opc_buf(2, (int64_t[]){2, 2}, xv), opc_buf(2, (int64_t[]){1, 2}, yv)};
  OpcBuf want = opc_buf(2, (int64_t[]){3, 2}, w);
  opc_check_run("x: R.Tensor((2, 2), \"int8\"), y: R.Tensor((1, 2), \"int8\")", "R.concat((x, y))", in, 2, &want, 1,
                1e-5);
  double big[3] = {4e12, -7, 9e15}, idx[2] = {2, 0}, wt[2] = {9e15, 4e12};
  OpcBuf tin[2] = {opc_buf(1, (int64_t[]){3}, big), opc_buf(1, (int64_t[]){2}, idx)};
  OpcBuf twant = opc_buf(1, (int64_t[]){2}, wt);
  opc_check_run("x: R.Tensor((3,), \"int64\"), indices: R.Tensor((2,), \"int32\")", "R.take(x, indices, axis=0)",
                tin, 2, &twant, 1, 1e-5);
}

int main(void) {
  RUN(test_reshape_infer);
  RUN(test_reshape_errors);
  RUN(test_reshape_run);
  RUN(test_flatten);
  RUN(test_batch_flatten);
  RUN(test_permute_dims);
  RUN(test_expand_dims);
  RUN(test_squeeze);
  RUN(test_concat);
  RUN(test_split);
  RUN(test_strided_slice_infer);
  RUN(test_strided_slice_errors);
  RUN(test_strided_slice_run);
  RUN(test_take_infer);
  RUN(test_take_run);
  RUN(test_broadcast_to);
  RUN(test_argument_errors);
  RUN(test_int_dtypes);
  return CHECK_DONE();
}
