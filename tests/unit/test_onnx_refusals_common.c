/* test_onnx_refusals_common.c - the converters of the common ONNX ops
 * (Einsum's general form, RoiAlign, MaxUnpool, TensorScatter,
 * CausalConvWithState, GridSample) refuse what they do not support with a
 * message naming the node, the op and the reason, and never crash. */
#include "check.h"
#include "onnx_build.h"

#include <stdio.h>

#define F ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT

typedef struct Refusal {
  const char *op;
  int opset, n_in, n_gin;
  const char *ins[3];
  int rank[3];
  int64_t dims[3][4];
  const char *attr, *value; /* one string attribute, or NULL */
  const char *iattr;        /* one int attribute set to 0, or NULL */
  const char *want;
} Refusal;

static const Refusal cases[] = {
    {"Einsum", 12, 1, 1, {"x"}, {3}, {{2, 3, 3}}, "equation", "..i.i->i", NULL,
     "node 'node0' (Einsum, opset 12): equation '..i.i->i': an ellipsis must be written '...', once per term"},
    {"Einsum", 12, 1, 1, {"x"}, {2}, {{2, 3}}, "equation", "ij->ik", NULL,
     "node 'node0' (Einsum, opset 12): equation 'ij->ik': output label 'k' is not supported"},
    {"Einsum", 12, 1, 1, {"x"}, {2}, {{2, 3}}, "equation", "i1->i", NULL,
     "node 'node0' (Einsum, opset 12): equation 'i1->i': label '1' is not a letter"},
    {"Einsum", 12, 1, 1, {"x"}, {2}, {{2, 3}}, "equation", "ii->i", NULL,
     "node 'node0' (Einsum, opset 12): a repeated label needs equal constant dims"},
    {"Einsum", 12, 1, 1, {"x"}, {2}, {{2, 3}}, "equation", "ijk...->i", NULL,
     "node 'node0' (Einsum, opset 12): equation 'ijk...->i': term 'ijk...' does not fit its operand's rank 2"},
    {"RoiAlign", 16, 3, 3, {"x", "r", "b"}, {4, 2, 1}, {{1, 2, 6, 6}, {3, 4}, {3}}, NULL, NULL, "sampling_ratio",
     "node 'node0' (RoiAlign, opset 16): vision.roi_align: sampling_ratio 0 is not supported"},
    {"MaxUnpool", 22, 3, 3, {"x", "i", "s"}, {4, 4, 1}, {{1, 1, 2, 2}, {1, 1, 2, 2}, {3}}, NULL, NULL, NULL,
     "node 'node0' (MaxUnpool, opset 22): input 2 (output_shape) must hold 4 integers"},
    {"TensorScatter", 24, 2, 2, {"p", "u"}, {3, 3}, {{2, 4, 5}, {2, 1, 5}}, "mode", "ring", NULL,
     "node 'node0' (TensorScatter, opset 24): mode 'ring' is not supported (linear, circular)"},
    {"TensorScatter", 24, 2, 2, {"p", "u"}, {3, 3}, {{2, 4, 5}, {2, 6, 5}}, NULL, NULL, NULL,
     "node 'node0' (TensorScatter, opset 24): update's sequence dim must be a constant from 1 to the cache's 4"},
    {"CausalConvWithState", 27, 2, 2, {"x", "w"}, {3, 3}, {{1, 2, 5}, {2, 1, 3}}, "activation", "relu", NULL,
     "node 'node0' (CausalConvWithState, opset 27): activation 'relu' is not supported (none, silu, swish)"},
    {"GridSample", 22, 2, 2, {"x", "g"}, {4, 4}, {{1, 1, 4, 4}, {1, 3, 3, 3}}, NULL, NULL, NULL,
     "node 'node0' (GridSample, opset 22): image.grid_sample: grid's last dim must be 2"},
};

static void test_refusals(void) {
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    const Refusal *c = &cases[k];
    char *ins[3], *outs[1] = {"y"};
    int64_t dims[3][4];
    int ranks[3];
    for (int i = 0; i < c->n_in; i++) ins[i] = (char *)c->ins[i], ranks[i] = c->rank[i], memcpy(dims[i], c->dims[i], sizeof dims[i]);
    Onnx__AttributeProto *at[1];
    int n_at = 0;
    if (c->attr) at[n_at++] = str_attr(c->attr, c->value);
    if (c->iattr) at[n_at++] = int_attr(c->iattr, 0);
    Onnx__AttributeProto *ks = NULL;
    OneNode o = {c->op, NULL, c->opset, ins, c->n_in, outs, 1, at, n_at, c->n_gin, (const int64_t (*)[4])dims, ranks, NULL, 0, NULL};
    Onnx__AttributeProto *with_kernel[2];
    if (!strcmp(c->op, "MaxUnpool")) { /* kernel_shape is required */
      static int64_t k2[2] = {2, 2};
      ks = int_attr("kernel_shape", 0);
      ks->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS, ks->has_i = 0, ks->n_ints = 2, ks->ints = k2;
      with_kernel[0] = ks;
      o.attrs = with_kernel, o.n_attrs = 1;
    }
    size_t len;
    uint8_t *buf = pack_one_node(&o, &len);
    MlcCtx *ctx = mlc_ctx_new();
    const char *want = c->want;
    CHECK(mlc_onnx_import(ctx, "model.onnx", buf, len, ".", NULL) == NULL);
    bool ok = strstr(mlc_error_msg(ctx), want) != NULL;
    if (!ok) printf("    %s: got: %s\n    want: %s\n", c->op, mlc_error_msg(ctx), want);
    CHECK(ok);
    mlc_ctx_free(ctx);
    free(buf);
    for (int i = 0; i < n_at; i++) free(at[i]);
    free(ks);
  }
}

int main(void) {
  RUN(test_refusals);
  return CHECK_DONE();
}
