/* onnx_ops_control.c - the converter of ONNX's If.
 *
 * A condition known at compile time (a constant, or folded from shapes and
 * constants, as exporters' shape checks are) selects its branch, which is
 * imported in place: its nodes become bindings of the enclosing function and
 * read the enclosing graphs' values by name.  A condition computed at run
 * time is refused: the executor has no branches yet. */
#include "onnx_convert.h"

bool mlc_onnx__conv_if(MlcOnnxNode *n) {
  const Onnx__AttributeProto *then_b = mlc_onnx__attr(n, "then_branch"), *else_b = mlc_onnx__attr(n, "else_branch");
  if (!then_b || !then_b->g || !else_b || !else_b->g) return mlc_onnx__node_fail(n, "then_branch and else_branch must be graphs");
  if (!mlc_onnx__input(n, 0)) return false;
  double cond;
  bool present;
  if (!mlc_onnx__known_scalar(n, 0, &cond, &present)) {
    mlc_clear_error(n->im->ctx);
    return mlc_onnx__node_fail(n, "a condition computed at run time is not supported (one known at compile time "
                                  "selects its branch)");
  }
  const Onnx__GraphProto *g = cond != 0 ? then_b->g : else_b->g;
  MlcGExpr *outs[MLC_ONNX_MAX_IO];
  if (!mlc_onnx__import_subgraph(n, g, outs, n->n_out)) return false;
  for (int i = 0; i < n->n_out; i++) n->out[i] = outs[i];
  return true;
}
