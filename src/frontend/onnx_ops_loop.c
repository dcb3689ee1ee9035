/* onnx_ops_loop.c - the converter of ONNX's Loop.
 *
 * A loop whose trip count and condition are known at compile time is
 * unrolled: the body is imported once per iteration, in a scope of its own
 * (the names it defines are forgotten after each), with the iteration number
 * and the condition as constants and the values the iteration before left;
 * it reads the enclosing graphs' values by name.  The condition the body
 * returns must fold at each iteration (it usually passes its input on, or
 * compares the iteration number with a constant), since it decides whether
 * the next iteration is imported.  The scan outputs stack the iterations'
 * elements along a new first axis.  Iterations times body nodes is bounded
 * (MAX_UNROLLED).
 *
 * Any other loop (a trip count or condition computed at run time, a
 * condition the body computes at run time, more than MAX_UNROLLED body
 * nodes) runs in the executor: the body becomes a graph function of its own
 * (built by onnx_loop_body.c; its params the iteration number, the condition, the carried values and
 * the values of the enclosing graphs it reads; its result the condition,
 * the carried values and the scan elements), and the node a call of
 * R.loop (src/ops/loop.c) on it.  The carried values must keep their
 * shapes and the scan elements must have shapes known before the loop runs;
 * the number of iterations is a size bound when the loop ends. */
#include "onnx_convert.h"

#define MAX_UNROLLED (1 << 12) /* body nodes imported in all: more runs as a loop */

typedef MLC_VEC(MlcGExpr *) ExprVec;

/* a known one-element value as a number; false when it is computed at run time */
static bool folded_scalar(const MlcGExpr *e, double *out) {
  if (!e || e->kind != MLC_G_CONST || mlc_tensor_data_numel(e->constant) != 1) return false;
  const MlcTensorData *d = e->constant;
  MlcDType t = d->dtype;
  const void *p = d->data;
  if (t.code == MLC_TC_BOOL || (t.code == MLC_TC_UINT && t.bits == 8)) *out = *(const uint8_t *)p;
  else if (t.code == MLC_TC_INT && t.bits == 64) *out = (double)*(const int64_t *)p;
  else if (t.code == MLC_TC_INT && t.bits == 32) *out = *(const int32_t *)p;
  else return false;
  return true;
}

/* the trip count (INT64_MAX when absent) and the first condition, both known */
static bool loop_limits(MlcOnnxNode *n, int64_t *trips, bool *cond) {
  int64_t v[1];
  int got;
  double c;
  bool present;
  *trips = INT64_MAX, *cond = true;
  if (!mlc_onnx__known_ints(n, 0, v, 1, &got)) return false;
  if (got == 1) *trips = v[0];
  else if (got == 0) return mlc_onnx__node_fail(n, "the trip count must hold one value");
  if (!mlc_onnx__known_scalar(n, 1, &c, &present)) return false;
  if (present) *cond = c != 0;
  return true;
}

static MlcGExpr *int64_const(MlcOnnxNode *n, int64_t v) {
  int64_t no_dims[1] = {0};
  MlcTensorData *d = mlc_tensor_data_new(n->im->ctx, MLC_I64_T, no_dims, 0);
  *(int64_t *)d->data = v;
  return mlc_g_const(n->im->ctx, d);
}

/* each iteration's scan output j has the shape of the first one's */
static bool same_shapes(MlcOnnxNode *n, MlcGExpr **items, int64_t k, int j) {
  const MlcSInfo *a = mlc_onnx__tensor_sinfo(items[0]);
  for (int64_t t = 1; t < k; t++) {
    const MlcSInfo *b = mlc_onnx__tensor_sinfo(items[t]);
    bool same = a && b && mlc_dtype_eq(a->tensor.dtype, b->tensor.dtype) && a->tensor.ndim == b->tensor.ndim;
    for (int d = 0; same && d < a->tensor.ndim; d++) same = mlc_expr_same(a->tensor.shape[d], b->tensor.shape[d]);
    if (!same)
      return mlc_onnx__node_fail(n, "scan output %d changes its shape or dtype at iteration %lld, which is not supported", j,
                                 (long long)t);
  }
  return true;
}

typedef enum Unrolled { UNROLLED, NOT_UNROLLED, UNROLL_FAILED } Unrolled;

/* the iterations imported one by one; NOT_UNROLLED (no error) when the
 * body's condition is computed at run time or the bound is reached */
static Unrolled run_iterations(MlcOnnxNode *n, const Onnx__GraphProto *g, int nc, int k, int64_t trips, bool cond,
                               MlcGExpr **state, ExprVec *elems) {
  MlcGExpr *ins[MLC_ONNX_MAX_IO], *outs[MLC_ONNX_MAX_IO];
  int64_t per = (int64_t)g->n_node + 1;
  for (int64_t t = 0; t < trips && cond; t++) {
    if (t >= MAX_UNROLLED / per) return NOT_UNROLLED;
    ins[0] = int64_const(n, t);
    ins[1] = mlc_onnx__const(n, mlc_onnx__scalar(n->im->ctx, MLC_BOOL, 1));
    for (int i = 0; i < nc; i++) ins[2 + i] = state[i];
    if (!mlc_onnx__import_body(n, g, ins, nc + 2, outs, 1 + nc + k)) return UNROLL_FAILED;
    double c;
    if (!folded_scalar(outs[0], &c)) return NOT_UNROLLED;
    cond = c != 0;
    for (int i = 0; i < nc; i++) state[i] = outs[1 + i];
    for (int j = 0; j < k; j++) mlc_vec_push(&elems[j], outs[1 + nc + j]);
  }
  for (int j = 0; j < k; j++)
    if (elems[j].len == 0) return NOT_UNROLLED; /* no element to take the shape of */
  return UNROLLED;
}

/* the loop unrolled, when its trip count and condition are known */
static Unrolled unrolled(MlcOnnxNode *n, const Onnx__GraphProto *g, int nc, int k) {
  int64_t trips;
  bool cond;
  if (!mlc_onnx__known_or_absent(n, 0) || !mlc_onnx__known_or_absent(n, 1)) return NOT_UNROLLED;
  if (!loop_limits(n, &trips, &cond)) return UNROLL_FAILED;
  if (cond && trips > MAX_UNROLLED / ((int64_t)g->n_node + 1)) return NOT_UNROLLED;
  MlcGExpr *state[MLC_ONNX_MAX_IO];
  for (int i = 0; i < nc; i++) state[i] = n->in[2 + i];
  ExprVec elems[MLC_ONNX_MAX_IO] = {{0}};
  Unrolled u = run_iterations(n, g, nc, k, trips, cond, state, elems);
  for (int i = 0; u == UNROLLED && i < nc; i++) n->out[i] = state[i];
  for (int j = 0; u == UNROLLED && j < k; j++) {
    int64_t len = (int64_t)elems[j].len;
    if (!same_shapes(n, elems[j].data, len, j) || !(n->out[nc + j] = mlc_onnx__stack(n, elems[j].data, len, 0)))
      u = UNROLL_FAILED;
  }
  for (int j = 0; j < k; j++) mlc_vec_free(&elems[j]);
  return u;
}

/* ---- a loop run by the executor ---------------------------------------------------- */

/* the body's inputs as params in its scope: the iteration number, the
 * condition and the carried values; then the enclosing values it reads */
static bool body_scope(MlcOnnxNode *n, const Onnx__GraphProto *g, int nc, MlcOnnxBody *b) {
  MlcCtx *ctx = n->im->ctx;
  for (int i = 0; i < nc + 2; i++) {
    const char *name = g->input[i]->name;
    if (!name || !*name) return mlc_onnx__node_fail(n, "body input #%d has no name", i);
    const MlcSInfo *t = i < 2 ? NULL : mlc_onnx__tensor_sinfo(n->in[i]);
    if (i >= 2 && (!t || !t->tensor.shape || t->tensor.dtype.code == MLC_TC_VOID))
      return mlc_onnx__node_fail(n, "loop-carried value %d is not a tensor of known shape and dtype (a sequence, an "
                                    "optional, or a value of unknown shape): not supported", i - 2);
    MlcGExpr *p = i < 2 ? b->params.data[i] : mlc_onnx__body_carried(b, n->in[i]->sinfo);
    mlc_map_put(&n->im->values, mlc_intern(ctx, name), p);
  }
  return mlc_onnx__body_capture(b, g);
}

/* the trip count or condition as R.loop takes it: given, or the default */
static MlcGExpr *limit_arg(MlcOnnxNode *n, int i) {
  if (i < n->n_in && n->in[i]) return n->in[i];
  return i == 0 ? int64_const(n, INT64_MAX) : mlc_onnx__const(n, mlc_onnx__scalar(n->im->ctx, MLC_BOOL, 1));
}

/* the body imported into a graph function of its own, run by R.loop */
static bool run_time_loop(MlcOnnxNode *n, const Onnx__GraphProto *g, int nc, int k) {
  MlcOnnxBody b;
  MlcGExpr *outs[MLC_ONNX_MAX_IO], *init[MLC_ONNX_MAX_IO];
  mlc_onnx__body_begin(n, &b);
  bool ok = body_scope(n, g, nc, &b) && mlc_onnx__import_subgraph(n, g, outs, 1 + nc + k) &&
            mlc_onnx__body_check(&b, outs, k, g->output + 1 + nc);
  for (int i = 0; i < nc; i++) init[i] = n->in[2 + i];
  MlcGExpr *r = mlc_onnx__body_finish(&b, ok, outs, k, limit_arg(n, 0), limit_arg(n, 1), init);
  for (int i = 0; r && i < nc + k; i++) r = (n->out[i] = mlc_onnx__item(n, r, i)) ? r : NULL;
  return r != NULL;
}

bool mlc_onnx__conv_loop(MlcOnnxNode *n) {
  const Onnx__AttributeProto *ba = mlc_onnx__attr(n, "body");
  if (!ba || !ba->g) return mlc_onnx__node_fail(n, "body must be a graph");
  const Onnx__GraphProto *g = ba->g;
  int nc = n->n_in - 2, k = (int)g->n_output - 1 - nc;
  if (nc < 0 || k < 0 || (int)g->n_input != nc + 2 || n->n_out != nc + k)
    return mlc_onnx__node_fail(n, "%d inputs and %d outputs do not fit a body of %zu inputs and %zu outputs", n->n_in,
                               n->n_out, g->n_input, g->n_output);
  for (int i = 0; i < nc; i++)
    if (!mlc_onnx__input(n, 2 + i)) return false;
  size_t mark = n->im->bindings.len;
  Unrolled u = unrolled(n, g, nc, k);
  if (u != NOT_UNROLLED) return u == UNROLLED;
  n->im->bindings.len = mark; /* what a partial unrolling bound goes */
  return run_time_loop(n, g, nc, k);
}
