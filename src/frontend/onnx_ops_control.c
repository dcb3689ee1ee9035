/* onnx_ops_control.c - the converters of ONNX's If and Scan.
 *
 * A condition known at compile time (a constant, or folded from shapes and
 * constants, as exporters' shape checks are) selects its branch, which is
 * imported in place: its nodes become bindings of the enclosing function and
 * read the enclosing graphs' values by name.  A condition computed at run
 * time is if-converted: both branches are imported and each output selects
 * between them with `where`, which is exact since ONNX graphs are pure (at
 * the price of computing both); branches whose outputs differ in shape or
 * dtype are refused, the executor having no branches yet.
 *
 * Scan (opset 9 on) of at most MlcOnnxOptions.unroll_steps (16) static steps is unrolled: its
 * body is imported once per step, in a scope of its own, on the step's
 * slices of the scan inputs and the states the step before left; the scan
 * outputs are the steps' elements stacked.  A longer Scan, or one whose
 * length is known only at run time, is an R.loop (onnx_loop_body.c): the
 * body imported once into a graph function that carries the states, takes
 * the step's slice of each scan input (`take` by the iteration number,
 * counted down for a reverse input) and emits the elements, which are
 * flipped (reverse outputs) and moved to their axis after the loop.
 * Scan of opset 8 (a batch axis first) scans each batch entry so. */
#include <string.h>

#include "onnx_convert.h"

/* cond as a 0-d bool: ONNX allows a one-element tensor */
static MlcGExpr *scalar_cond(MlcOnnxNode *n, MlcGExpr *c) {
  const MlcSInfo *si = mlc_onnx__tensor_sinfo(c);
  if (!si || !mlc_dtype_eq(si->tensor.dtype, MLC_BOOL)) return mlc_onnx__node_fail(n, "the condition must be a bool tensor"), NULL;
  for (int i = 0; i < si->tensor.ndim; i++) {
    int64_t d;
    if (!mlc_onnx__const_dim(c, i, &d) || d != 1) return mlc_onnx__node_fail(n, "the condition must hold one element"), NULL;
  }
  if (si->tensor.ndim == 0) return c;
  MlcAttr a = attr("shape", mlc_onnx__av_ints(n->im->ctx, NULL, 0));
  return mlc_onnx__emit_attrs(n, "reshape", &c, 1, 1, &a);
}

static bool if_converted(MlcOnnxNode *n, const Onnx__GraphProto *then_g, const Onnx__GraphProto *else_g) {
  MlcGExpr *c = scalar_cond(n, n->in[0]);
  MlcGExpr *t[MLC_ONNX_MAX_IO], *e[MLC_ONNX_MAX_IO];
  if (then_g->n_input || else_g->n_input) return mlc_onnx__node_fail(n, "a branch takes inputs; none are expected");
  if (!c || !mlc_onnx__import_subgraph(n, then_g, t, n->n_out) || !mlc_onnx__import_subgraph(n, else_g, e, n->n_out))
    return false;
  MlcOnnxImporter *im = n->im;
  for (int i = 0; i < n->n_out; i++) {
    bool absent = im->absent && (t[i] == im->absent || e[i] == im->absent);
    if (absent || mlc_onnx__is_seq(im, t[i]) || mlc_onnx__is_seq(im, e[i])) { /* onnx_ops_seq.c */
      if (!(n->out[i] = mlc_onnx__select_seq(n, c, t[i], e[i]))) return false;
      continue;
    }
    const MlcSInfo *a = mlc_onnx__tensor_sinfo(t[i]), *b = mlc_onnx__tensor_sinfo(e[i]);
    bool same = a && b && mlc_dtype_eq(a->tensor.dtype, b->tensor.dtype) && a->tensor.ndim == b->tensor.ndim;
    for (int d = 0; same && d < a->tensor.ndim; d++) same = mlc_expr_same(a->tensor.shape[d], b->tensor.shape[d]);
    if (!same)
      return mlc_onnx__node_fail(n, "a condition computed at run time with branches whose output %d differs in shape "
                                    "or dtype is not supported",
                                 i);
    MlcGExpr *args[3] = {c, t[i], e[i]};
    if (!(n->out[i] = mlc_onnx__emit(n, "where", args, 3, (MlcAttrs){0}))) return false;
  }
  return true;
}

bool mlc_onnx__conv_if(MlcOnnxNode *n) {
  const Onnx__AttributeProto *then_b = mlc_onnx__attr(n, "then_branch"), *else_b = mlc_onnx__attr(n, "else_branch");
  if (!then_b || !then_b->g || !else_b || !else_b->g) return mlc_onnx__node_fail(n, "then_branch and else_branch must be graphs");
  if (!mlc_onnx__input(n, 0)) return false;
  double cond;
  bool present;
  if (!mlc_onnx__known_scalar(n, 0, &cond, &present)) {
    mlc_clear_error(n->im->ctx);
    return if_converted(n, then_b->g, else_b->g);
  }
  if (then_b->g->n_input || else_b->g->n_input) return mlc_onnx__node_fail(n, "a branch takes inputs; none are expected");
  const Onnx__GraphProto *g = cond != 0 ? then_b->g : else_b->g;
  MlcGExpr *outs[MLC_ONNX_MAX_IO];
  if (!mlc_onnx__import_subgraph(n, g, outs, n->n_out)) return false;
  for (int i = 0; i < n->n_out; i++) n->out[i] = outs[i];
  return true;
}

/* ---- Scan ----------------------------------------------------------------------------- */

#define MAX_UNROLLED (1 << 20) /* body nodes imported in all */
#define MAX_RANK 32

static MlcGExpr *with_ints(MlcOnnxNode *n, const char *op, MlcGExpr *x, const char *key, const int64_t *v, int k) {
  MlcAttr a = attr(key, mlc_onnx__av_ints(n->im->ctx, v, k));
  return x ? mlc_onnx__emit_attrs(n, op, &x, 1, 1, &a) : NULL;
}

/* x[.., i, ..] along axis, that axis dropped */
static MlcGExpr *slice_at(MlcOnnxNode *n, MlcGExpr *x, int64_t i, int64_t axis) {
  MlcCtx *ctx = n->im->ctx;
  int64_t end = i + 1, one = 1;
  MlcAttr a[4] = {attr("axes", mlc_onnx__av_ints(ctx, &axis, 1)), attr("begin", mlc_onnx__av_ints(ctx, &i, 1)),
                  attr("end", mlc_onnx__av_ints(ctx, &end, 1)), attr("strides", mlc_onnx__av_ints(ctx, &one, 1))};
  MlcGExpr *s = x ? mlc_onnx__emit_attrs(n, "strided_slice", &x, 1, 4, a) : NULL;
  return with_ints(n, "squeeze", s, "axis", &axis, 1);
}

MlcGExpr *mlc_onnx__stack(MlcOnnxNode *n, MlcGExpr **items, int64_t k, int64_t axis) {
  MlcGExpr **e = mlc_arena_array(&n->im->ctx->arena, (size_t)k, sizeof *e);
  for (int64_t i = 0; i < k; i++)
    if (!(e[i] = with_ints(n, "expand_dims", items[i], "axis", &axis, 1))) return NULL;
  if (k == 1) return e[0];
  MlcGExpr *t = mlc_g_tuple(n->im->ctx, e, (int)k);
  MlcAttr a = attr("axis", mlc_onnx__av_int(axis));
  return t ? mlc_onnx__emit_attrs(n, "concat", &t, 1, 1, &a) : NULL;
}

/* attribute `key`: k ints (default 0 each), each an axis of a rank (rank[i]) tensor, normalized */
static bool axes_attr(MlcOnnxNode *n, const char *key, int k, const int *rank, int64_t *out) {
  int got;
  int64_t v[MLC_ONNX_MAX_IO];
  if (!mlc_onnx__attr_ints(n, key, v, MLC_ONNX_MAX_IO, &got)) return false;
  if (got >= 0 && got != k) return mlc_onnx__node_fail(n, "%s has %d values, %d expected", key, got, k);
  for (int i = 0; i < k; i++) {
    out[i] = got < 0 ? 0 : v[i];
    if (rank && (out[i] < -rank[i] || out[i] >= rank[i]))
      return mlc_onnx__node_fail(n, "%s: axis %lld is out of range for rank %d", key, (long long)out[i], rank[i]);
    if (rank && out[i] < 0) out[i] += rank[i];
  }
  return true;
}

typedef struct ScanAxes { const int64_t *in_axes, *in_dirs, *out_axes, *out_dirs; } ScanAxes;

/* the body's scope: the states carried, each scan input's slice at the
 * step, then the enclosing values it reads */
static bool scan_scope(MlcOnnxNode *n, const Onnx__GraphProto *g, int ns, int m, const ScanAxes *sa, MlcGExpr *trips,
                       MlcOnnxBody *b) {
  MlcCtx *ctx = n->im->ctx;
  if ((int)g->n_input != ns + m)
    return mlc_onnx__node_fail(n, "the body takes %zu inputs, %d expected", g->n_input, ns + m);
  MlcGExpr *v[MLC_ONNX_MAX_IO];
  for (int i = 0; i < ns; i++) {
    const MlcSInfo *t = mlc_onnx__tensor_sinfo(n->in[i]);
    if (!t || !t->tensor.shape || t->tensor.dtype.code == MLC_TC_VOID)
      return mlc_onnx__node_fail(n, "state %d is not a tensor of known shape and dtype: not supported", i);
    v[i] = mlc_onnx__body_carried(b, n->in[i]->sinfo);
  }
  MlcAttr ax[MLC_ONNX_MAX_IO];
  for (int j = 0; j < m; j++) {
    MlcGExpr *args[2] = {mlc_onnx__body_outer(b, n->in[ns + j]), mlc_onnx__body_step(b, trips, sa->in_dirs[j] != 0)};
    ax[j] = attr("axis", mlc_onnx__av_int(sa->in_axes[j]));
    if (!args[1] || !(v[ns + j] = mlc_onnx__emit(n, "take", args, 2, mlc_onnx__attrs(ctx, 1, &ax[j])))) return false;
  }
  for (int i = 0; i < ns + m; i++) {
    const char *name = g->input[i]->name;
    if (!name || !*name) return mlc_onnx__node_fail(n, "body input #%d has no name", i);
    mlc_map_put(&n->im->values, mlc_intern(ctx, name), v[i]);
  }
  return mlc_onnx__body_capture(b, g);
}

/* a scan output [len, elem...] at its axis: axis 0 moved there */
static MlcGExpr *to_axis(MlcOnnxNode *n, MlcGExpr *y, int64_t axis) {
  int r = mlc_onnx__rank(y);
  if (!y || r < 1 || axis < -r || axis >= r)
    return y ? (mlc_onnx__node_fail(n, "scan_output_axes: axis %lld is out of range", (long long)axis), NULL) : NULL;
  if (axis < 0) axis += r;
  if (axis == 0) return y;
  int64_t perm[MAX_RANK];
  for (int d = 0, s = 1; d < r; d++) perm[d] = d == axis ? 0 : s++;
  return with_ints(n, "permute_dims", y, "axes", perm, r);
}

/* the Scan as an R.loop over its len steps */
static bool scan_loop(MlcOnnxNode *n, const Onnx__GraphProto *g, int ns, int m, int k, const ScanAxes *sa, MlcExpr *len) {
  MlcCtx *ctx = n->im->ctx;
  int64_t steps;
  MlcGExpr *trips;
  if (mlc_e_is_const_int(len, &steps)) {
    trips = mlc_g_const(ctx, mlc_onnx__scalar(ctx, MLC_I64_T, (double)steps));
  } else {
    MlcAttr ax = attr("axis", mlc_onnx__av_int(sa->in_axes[0]));
    trips = mlc_onnx__emit(n, "dim_tensor", &n->in[ns], 1, mlc_onnx__attrs(ctx, 1, &ax));
  }
  if (!trips) return false;
  if (ns + k + 1 > MLC_ONNX_MAX_IO) return mlc_onnx__node_fail(n, "too many states and scan outputs");
  MlcOnnxBody b;
  MlcGExpr *outs[MLC_ONNX_MAX_IO];
  mlc_onnx__body_begin(n, &b);
  bool ok = scan_scope(n, g, ns, m, sa, trips, &b) && mlc_onnx__import_subgraph(n, g, outs + 1, ns + k);
  if (ok) {
    outs[0] = b.params.data[1];
    ok = mlc_onnx__body_check(&b, outs, k, g->output + ns);
  }
  MlcGExpr *cond = mlc_g_const(ctx, mlc_onnx__scalar(ctx, MLC_BOOL, 1));
  MlcGExpr *res = mlc_onnx__body_finish(&b, ok, outs, k, trips, cond, n->in);
  for (int i = 0; res && i < ns; i++)
    if (!(n->out[i] = mlc_onnx__item(n, res, i))) return false;
  for (int j = 0; res && j < k; j++) {
    MlcGExpr *y = mlc_onnx__loop_stacked(n, res, ns + j, len, trips, sa->out_dirs[j] != 0);
    if (!(n->out[ns + j] = to_axis(n, y, sa->out_axes[j]))) return false;
  }
  return res != NULL;
}

/* the Scan of node n on its inputs (ns states, then m scan inputs), its
 * outputs set; steps unrolled when they are few and static */
static bool scan_run(MlcOnnxNode *n, const Onnx__GraphProto *g, int ns, int m, int k, const ScanAxes *sa) {
  const int64_t *in_axes = sa->in_axes, *in_dirs = sa->in_dirs, *out_axes = sa->out_axes, *out_dirs = sa->out_dirs;
  int64_t steps = -1;
  MlcExpr *len = NULL;
  for (int j = 0; j < m; j++) {
    const MlcSInfo *si = mlc_onnx__tensor_sinfo(n->in[ns + j]);
    if (!si->tensor.shape) return mlc_onnx__node_fail(n, "scan input %d has no known shape", j);
    MlcExpr *e = si->tensor.shape[in_axes[j]];
    if (len && !mlc_expr_same(e, len)) return mlc_onnx__node_fail(n, "the scan inputs differ in length");
    len = e;
  }
  if (!mlc_e_is_const_int(len, &steps) || steps > n->im->unroll_steps || steps * (int64_t)(g->n_node + 1) > MAX_UNROLLED)
    return scan_loop(n, g, ns, m, k, sa, len);
  if (steps < 1) return mlc_onnx__node_fail(n, "a Scan of 0 steps is not supported");
  MlcGExpr *state[MLC_ONNX_MAX_IO], *ins[MLC_ONNX_MAX_IO], *outs[MLC_ONNX_MAX_IO];
  MlcGExpr **elems = mlc_arena_array(&n->im->ctx->arena, (size_t)(k ? k : 1) * (size_t)steps, sizeof *elems);
  for (int i = 0; i < ns; i++)
    if (!(state[i] = mlc_onnx__input(n, i))) return false;
  for (int64_t t = 0; t < steps; t++) {
    for (int i = 0; i < ns; i++) ins[i] = state[i];
    for (int j = 0; j < m; j++)
      if (!(ins[ns + j] = slice_at(n, n->in[ns + j], in_dirs[j] ? steps - 1 - t : t, in_axes[j]))) return false;
    if (!mlc_onnx__import_body(n, g, ins, ns + m, outs, ns + k)) return false;
    for (int i = 0; i < ns; i++) state[i] = outs[i];
    for (int j = 0; j < k; j++) elems[(size_t)j * (size_t)steps + (size_t)(out_dirs[j] ? steps - 1 - t : t)] = outs[ns + j];
  }
  for (int i = 0; i < ns; i++) n->out[i] = state[i];
  for (int j = 0; j < k; j++) {
    int r = mlc_onnx__rank(elems[(size_t)j * (size_t)steps]) + 1;
    int64_t axis = out_axes[j];
    if (r < 1 || axis < -r || axis >= r) return mlc_onnx__node_fail(n, "scan_output_axes: axis %lld is out of range", (long long)axis);
    if (axis < 0) axis += r;
    if (!(n->out[ns + j] = mlc_onnx__stack(n, elems + (size_t)j * (size_t)steps, steps, axis))) return false;
  }
  return true;
}

#define MAX_BATCH 1024 /* batch entries of an opset 8 Scan, each scanned on its own */

/* Scan of opset 8: input 0 is sequence_lens (which must be absent), and
 * every state and scan input has a batch axis first, the scan axis after
 * it.  Each batch entry is scanned as opset 9 scans, on its slices of the
 * inputs, and the entries' outputs are stacked along the batch axis. */
static bool scan8(MlcOnnxNode *n, const Onnx__GraphProto *g, int64_t m) {
  int ns = n->n_in - 1 - (int)m, k = (int)g->n_output - ns;
  if (m < 1 || ns < 0 || k < 0 || n->n_out != ns + k || ns + (int)m > MLC_ONNX_MAX_IO)
    return mlc_onnx__node_fail(n, "%lld scan inputs, %d inputs and %d outputs do not fit a body of %zu outputs",
                               (long long)m, n->n_in, n->n_out, g->n_output);
  if (n->in[0]) return mlc_onnx__node_fail(n, "sequence_lens is not supported");
  int64_t dirs[MLC_ONNX_MAX_IO], zero[MLC_ONNX_MAX_IO] = {0}, batch = -1;
  if (!axes_attr(n, "directions", (int)m, NULL, dirs)) return false;
  for (int i = 0; i < ns + (int)m; i++) {
    int64_t b;
    if (!mlc_onnx__input(n, 1 + i)) return false;
    if (mlc_onnx__rank(n->in[1 + i]) < (i < ns ? 1 : 2) || !mlc_onnx__const_dim(n->in[1 + i], 0, &b))
      return mlc_onnx__node_fail(n, "input %d must have a static batch axis (and a scan axis after it)", 1 + i);
    if (batch >= 0 && b != batch) return mlc_onnx__node_fail(n, "the inputs differ in batch size");
    batch = b;
  }
  if (batch < 1 || batch > MAX_BATCH)
    return mlc_onnx__node_fail(n, "a batch of %lld: 1 to %d are supported", (long long)batch, MAX_BATCH);
  MlcOnnxNode one = *n;
  one.n_in = ns + (int)m;
  memset(one.known_in, 0, sizeof one.known_in);
  MlcGExpr **res = mlc_arena_array(&n->im->ctx->arena, (size_t)(ns + k) * (size_t)batch, sizeof *res);
  ScanAxes sa = {zero, dirs, zero, zero};
  for (int64_t b = 0; b < batch; b++) {
    for (int i = 0; i < one.n_in; i++)
      if (!(one.in[i] = slice_at(n, n->in[1 + i], b, 0))) return false;
    if (!scan_run(&one, g, ns, (int)m, k, &sa)) return false;
    for (int i = 0; i < ns + k; i++) res[(size_t)i * (size_t)batch + (size_t)b] = one.out[i];
  }
  for (int i = 0; i < ns + k; i++)
    if (!(n->out[i] = mlc_onnx__stack(n, res + (size_t)i * (size_t)batch, batch, 0))) return false;
  return true;
}

bool mlc_onnx__conv_scan(MlcOnnxNode *n) {
  const Onnx__AttributeProto *ba = mlc_onnx__attr(n, "body");
  int64_t m;
  if (!ba || !ba->g) return mlc_onnx__node_fail(n, "body must be a graph");
  if (!mlc_onnx__attr_int(n, "num_scan_inputs", 0, &m)) return false;
  const Onnx__GraphProto *g = ba->g;
  if (n->opset < 9) return scan8(n, g, m);
  int ns = n->n_in - (int)m, k = (int)g->n_output - ns;
  if (m < 1 || ns < 0 || k < 0 || n->n_out != ns + k)
    return mlc_onnx__node_fail(n, "%lld scan inputs, %d inputs and %d outputs do not fit a body of %zu outputs",
                               (long long)m, n->n_in, n->n_out, g->n_output);
  int rank[MLC_ONNX_MAX_IO];
  for (int j = 0; j < m; j++) {
    if (!mlc_onnx__input(n, ns + j)) return false;
    if ((rank[j] = mlc_onnx__rank(n->in[ns + j])) < 1) return mlc_onnx__node_fail(n, "scan input %d must have rank 1 or more", j);
  }
  int64_t in_axes[MLC_ONNX_MAX_IO], in_dirs[MLC_ONNX_MAX_IO], out_axes[MLC_ONNX_MAX_IO], out_dirs[MLC_ONNX_MAX_IO];
  if (!axes_attr(n, "scan_input_axes", (int)m, rank, in_axes) || !axes_attr(n, "scan_input_directions", (int)m, NULL, in_dirs) ||
      !axes_attr(n, "scan_output_axes", k, NULL, out_axes) || !axes_attr(n, "scan_output_directions", k, NULL, out_dirs))
    return false;
  ScanAxes sa = {in_axes, in_dirs, out_axes, out_dirs};
  return scan_run(n, g, ns, (int)m, k, &sa);
}
