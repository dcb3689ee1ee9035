/* onnx_ops_linalg.c - converters of ONNX's MatMul, Gemm and Einsum onto
 * matmul, permute_dims and the elementwise ops, and of Det onto linalg.det.
 *
 * Gemm's transposes are permute_dims and its alpha / beta scalings are
 * multiplies; Einsum of one or two operands aligns each operand's labels
 * to one axis order, multiplies them with broadcasting and sums the labels
 * the output does not keep. */
#include <math.h>
#include <string.h>

#include "onnx_convert.h"

static MlcGExpr *emit_ints(MlcOnnxNode *n, const char *op, MlcGExpr *x, const char *key, const int64_t *v, int k) {
  MlcAttr a = attr(key, mlc_onnx__av_ints(n->im->ctx, v, k));
  return x ? mlc_onnx__emit_attrs(n, op, &x, 1, 1, &a) : NULL;
}

static MlcGExpr *permute(MlcOnnxNode *n, MlcGExpr *x, const int64_t *axes, int k) {
  return emit_ints(n, "permute_dims", x, "axes", axes, k);
}

static MlcGExpr *binop(MlcOnnxNode *n, const char *op, MlcGExpr *x, MlcGExpr *y) {
  return x && y ? mlc_onnx__emit2(n, op, x, y) : NULL;
}

/* ---- matmul, gemm ------------------------------------------------------------------------- */

bool mlc_onnx__conv_matmul(MlcOnnxNode *n) {
  return (n->out[0] = mlc_onnx__emit2(n, "matmul", mlc_onnx__input(n, 0), mlc_onnx__input(n, 1))) != NULL;
}

static MlcGExpr *transpose2d(MlcOnnxNode *n, MlcGExpr *x) {
  int64_t perm[2] = {1, 0};
  MlcAttr a = attr("axes", mlc_onnx__av_ints(n->im->ctx, perm, 2));
  return mlc_onnx__emit_attrs(n, "permute_dims", &x, 1, 1, &a);
}

bool mlc_onnx__conv_gemm(MlcOnnxNode *n) {
  MlcGExpr *a = mlc_onnx__input(n, 0), *b = mlc_onnx__input(n, 1);
  int64_t ta, tb;
  double alpha, beta;
  if (!a || !b || !mlc_onnx__attr_int(n, "transA", 0, &ta) || !mlc_onnx__attr_int(n, "transB", 0, &tb) ||
      !mlc_onnx__attr_float(n, "alpha", 1.0, &alpha) || !mlc_onnx__attr_float(n, "beta", 1.0, &beta))
    return false;
  if (ta) a = transpose2d(n, a);
  if (tb && a) b = transpose2d(n, b);
  MlcGExpr *y = a && b ? mlc_onnx__emit2(n, "matmul", a, b) : NULL;
  if (y && alpha != 1.0) y = mlc_onnx__emit2(n, "multiply", y, mlc_onnx__scalar_like(n, y, alpha));
  if (y && n->n_in > 2 && n->in[2]) {
    MlcGExpr *c = n->in[2];
    if (beta != 1.0) c = mlc_onnx__emit2(n, "multiply", c, mlc_onnx__scalar_like(n, c, beta));
    y = c ? mlc_onnx__emit2(n, "add", y, c) : NULL;
  }
  return (n->out[0] = y) != NULL;
}

/* ---- Einsum ----------------------------------------------------------------------------------------------- */

#define EINSUM_MAX 26

/* the equation's operand and output labels, spaces dropped; implicit mode
 * (no "->") outputs the labels seen once, in alphabetical order */
static bool einsum_parse(MlcOnnxNode *n, const char *eq, char ops[2][EINSUM_MAX + 1], int n_ops, char *out) {
  char buf[4 * EINSUM_MAX], *w = buf;
  for (const char *c = eq; *c && w < buf + sizeof buf - 1; c++)
    if (*c != ' ') *w++ = *c;
  *w = 0;
  char *arrow = strstr(buf, "->"), *lhs = buf;
  if (arrow) *arrow = 0;
  for (int k = 0; k < n_ops; k++) {
    char *comma = strchr(lhs, ',');
    if ((comma != NULL) != (k + 1 < n_ops)) return mlc_onnx__node_fail(n, "the equation does not name %d operands", n_ops);
    if (comma) *comma = 0;
    if (strlen(lhs) > EINSUM_MAX) return mlc_onnx__node_fail(n, "operand %d has too many labels", k);
    strcpy(ops[k], lhs);
    lhs = comma ? comma + 1 : lhs + strlen(lhs);
  }
  int seen[128] = {0};
  for (int k = 0; k < n_ops; k++)
    for (const char *c = ops[k]; *c; c++) {
      if (*c < 'A' || *c > 'z' || (*c > 'Z' && *c < 'a'))
        return mlc_onnx__node_fail(n, "equation '%s': ellipsis and non-letter labels are not supported", eq);
      if (strchr(c + 1, *c)) return mlc_onnx__node_fail(n, "equation '%s': a repeated label in one operand (a diagonal) is not supported", eq);
      seen[(int)*c]++;
    }
  if (arrow) {
    if (strlen(arrow + 2) > EINSUM_MAX) return mlc_onnx__node_fail(n, "the output has too many labels");
    strcpy(out, arrow + 2);
    for (const char *c = out; *c; c++)
      if (*c < 0 || !seen[(int)*c] || strchr(c + 1, *c))
        return mlc_onnx__node_fail(n, "equation '%s': output label '%c' is not supported", eq, *c);
    return true;
  }
  w = out;
  for (int c = 'A'; c <= 'z'; c++)
    if (seen[c] == 1) *w++ = (char)c;
  *w = 0;
  return true;
}

/* x (labels s) laid out over all labels L: permuted into L's order, unit
 * dims where it lacks a label */
static MlcGExpr *einsum_align(MlcOnnxNode *n, MlcGExpr *x, const char *s, const char *all) {
  int r = (int)strlen(s), nl = (int)strlen(all), k = 0;
  int64_t perm[EINSUM_MAX], missing[2 * EINSUM_MAX];
  bool identity = true;
  for (int i = 0; i < nl; i++) {
    const char *p = strchr(s, all[i]);
    if (p) identity &= (perm[k] = p - s) == k, k++;
  }
  if (!identity) x = permute(n, x, perm, r);
  k = 0;
  for (int i = 0; i < nl; i++)
    if (!strchr(s, all[i])) missing[k++] = i;
  return k && x ? emit_ints(n, "expand_dims", x, "axis", missing, k) : x;
}

/* one or two operands: align both over all labels (output labels first),
 * multiply, and sum the rest away */
bool mlc_onnx__conv_einsum(MlcOnnxNode *n) {
  const char *eq = mlc_onnx__attr_str(n, "equation", NULL);
  char ops[2][EINSUM_MAX + 1], out[EINSUM_MAX + 1], all[2 * EINSUM_MAX + 1];
  if (!eq) return mlc_onnx__node_fail(n, "the equation attribute is missing");
  if (n->n_in < 1 || n->n_in > 2) return mlc_onnx__node_fail(n, "einsum of %d operands is not supported", n->n_in);
  if (!einsum_parse(n, eq, ops, n->n_in, out)) return false;
  size_t nall = strlen(out);
  memcpy(all, out, nall + 1);
  for (int k = 0; k < n->n_in; k++)
    for (const char *c = ops[k]; *c; c++)
      if (!strchr(all, *c)) all[nall++] = *c, all[nall] = 0;
  MlcGExpr *y = NULL;
  for (int k = 0; k < n->n_in; k++) {
    MlcGExpr *x = mlc_onnx__input(n, k);
    int rank;
    if (!x || !need_rank(n, x, &rank)) return false;
    if (rank != (int)strlen(ops[k])) return mlc_onnx__node_fail(n, "operand %d has rank %d, the equation gives it %d labels", k, rank, (int)strlen(ops[k]));
    x = einsum_align(n, x, ops[k], all);
    y = k ? binop(n, "multiply", y, x) : x;
    if (!y) return false;
  }
  int no = (int)strlen(out), nl = (int)strlen(all);
  if (nl > no) {
    int64_t axes[2 * EINSUM_MAX];
    for (int i = no; i < nl; i++) axes[i - no] = i;
    MlcAttr a[2] = {attr("axis", mlc_onnx__av_ints(n->im->ctx, axes, nl - no)), attr("keepdims", av_bool(false))};
    y = mlc_onnx__emit_attrs(n, "sum", &y, 1, 2, a);
  }
  return (n->out[0] = y) != NULL;
}

/* Det: the determinant of each square matrix of the last two dims */
bool mlc_onnx__conv_det(MlcOnnxNode *n) {
  MlcGExpr *x = mlc_onnx__input(n, 0);
  return x && (n->out[0] = mlc_onnx__emit1(n, "linalg.det", x)) != NULL;
}
