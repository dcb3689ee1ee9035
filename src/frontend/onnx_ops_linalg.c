/* onnx_ops_linalg.c - converters of ONNX's MatMul, Gemm and Einsum onto
 * matmul, permute_dims and the elementwise ops, and of Det onto linalg.det.
 *
 * Gemm's transposes are permute_dims and its alpha / beta scalings are
 * multiplies; Einsum of one or two operands expands ellipses into labels,
 * takes the diagonal of a label repeated in one operand, aligns each
 * operand's labels to one axis order, multiplies them with broadcasting
 * and sums the labels the output does not keep. */
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
#define EINSUM_ELLIPSIS 10 /* dims an ellipsis may cover: labels '0'..'9' */

static bool is_letter(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'); }

/* term t (spaces dropped) with "..." replaced by the labels of the last e
 * of E ellipsis dims, '0' + E - e .. '0' + E - 1 (broadcasting aligns
 * them to the right); e = rank - letters, or E for the output (rank < 0) */
static bool expand_ellipsis(MlcOnnxNode *n, const char *eq, const char *t, int rank, int big_e, char *out) {
  int letters = 0, dots = 0;
  for (const char *c = t; *c; c++) letters += is_letter(*c), dots += *c == '.';
  if (dots && (dots != 3 || !strstr(t, "...")))
    return mlc_onnx__node_fail(n, "equation '%s': an ellipsis must be written '...', once per term", eq);
  int e = !dots ? 0 : rank < 0 ? big_e : rank - letters;
  if (e < 0 || e > big_e || letters + e > EINSUM_MAX)
    return mlc_onnx__node_fail(n, "equation '%s': term '%s' does not fit its operand's rank %d", eq, t, rank);
  char *w = out;
  for (const char *c = t; *c; c++) {
    if (*c == '.') {
      if (c[1] == '.' && c[2] == '.')
        for (int i = big_e - e; i < big_e; i++) *w++ = (char)('0' + i);
      continue;
    }
    if (!is_letter(*c)) return mlc_onnx__node_fail(n, "equation '%s': label '%c' is not a letter", eq, *c);
    *w++ = *c;
  }
  *w = 0;
  return true;
}

/* The equation's operand and output labels, spaces dropped and ellipses
 * expanded for the operands' ranks; implicit mode (no "->") outputs the
 * ellipsis dims, then the letters seen once, in alphabetical order. */
static bool einsum_parse(MlcOnnxNode *n, const char *eq, const int *ranks, char ops[2][EINSUM_MAX + 1], int n_ops,
                         char *out) {
  char buf[4 * EINSUM_MAX], *w = buf, *terms[3];
  for (const char *c = eq; *c && w < buf + sizeof buf - 1; c++)
    if (*c != ' ') *w++ = *c;
  *w = 0;
  char *arrow = strstr(buf, "->"), *lhs = buf;
  if (arrow) *arrow = 0;
  int big_e = 0;
  for (int k = 0; k < n_ops; k++) {
    char *comma = strchr(lhs, ',');
    if ((comma != NULL) != (k + 1 < n_ops)) return mlc_onnx__node_fail(n, "the equation does not name %d operands", n_ops);
    if (comma) *comma = 0;
    terms[k] = lhs;
    int letters = 0;
    for (const char *c = lhs; *c; c++) letters += is_letter(*c);
    if (strstr(lhs, "...") && ranks[k] - letters > big_e) big_e = ranks[k] - letters;
    lhs = comma ? comma + 1 : lhs + strlen(lhs);
  }
  if (big_e > EINSUM_ELLIPSIS) return mlc_onnx__node_fail(n, "equation '%s': an ellipsis over %d dims is not supported", eq, big_e);
  int seen[128] = {0};
  for (int k = 0; k < n_ops; k++) {
    if (!expand_ellipsis(n, eq, terms[k], ranks[k], big_e, ops[k])) return false;
    for (const char *c = ops[k]; *c; c++) seen[(int)*c]++;
  }
  if (arrow) {
    if (!expand_ellipsis(n, eq, arrow + 2, -1, big_e, out)) return false;
    for (const char *c = out; *c; c++)
      if (!seen[(int)*c] || strchr(c + 1, *c))
        return mlc_onnx__node_fail(n, "equation '%s': output label '%c' is not supported", eq, *c);
    return true;
  }
  w = out;
  for (int i = 0; i < big_e; i++) *w++ = (char)('0' + i);
  for (int c = 'A'; c <= 'z'; c++)
    if (is_letter((char)c) && seen[c] == 1) *w++ = (char)c;
  *w = 0;
  return true;
}

/* x with the dims at positions p < q of its labels s (one label twice, of
 * one constant extent m) replaced by their diagonal, at the end: the two
 * permuted last, flattened to m * m, every (m + 1)-th element taken */
static MlcGExpr *einsum_diagonal(MlcOnnxNode *n, MlcGExpr *x, char *s, int p, int q) {
  int r = (int)strlen(s);
  int64_t perm[EINSUM_MAX], shape[EINSUM_MAX], m, m2;
  if (!mlc_onnx__const_dim(x, p, &m) || !mlc_onnx__const_dim(x, q, &m2) || m != m2 || m > (1 << 15))
    return mlc_onnx__node_fail(n, "a repeated label needs equal constant dims (of at most 2^15)"), NULL;
  char rest[EINSUM_MAX + 1], *w = rest;
  for (int i = 0, k = 0; i < r; i++)
    if (i != p && i != q) {
      perm[k] = i, *w++ = s[i];
      if (!mlc_onnx__const_dim(x, i, &shape[k])) shape[k] = -1;
      k++;
    }
  char label = s[p];
  *w++ = label, *w = 0;
  perm[r - 2] = p, perm[r - 1] = q, shape[r - 2] = m * m;
  int unknown = 0;
  for (int i = 0; i < r - 2; i++) unknown += shape[i] < 0;
  if (unknown > 1) return mlc_onnx__node_fail(n, "a repeated label beside symbolic dims is not supported"), NULL;
  MlcTensorData *d = mlc_tensor_data_new(n->im->ctx, MLC_I64_T, &m, 1);
  if (!d) return NULL;
  for (int64_t i = 0; i < m; i++) ((int64_t *)d->data)[i] = i * (m + 1);
  MlcGExpr *flat = emit_ints(n, "reshape", permute(n, x, perm, r), "shape", shape, r - 1);
  MlcGExpr *args[2] = {flat, mlc_g_const(n->im->ctx, d)};
  MlcAttr a = attr("axis", mlc_onnx__av_int(r - 2));
  strcpy(s, rest);
  return flat ? mlc_onnx__emit_attrs(n, "take", args, 2, 1, &a) : NULL;
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

/* one or two operands: each operand's repeated labels reduced to their
 * diagonals, both aligned over all labels (output labels first),
 * multiplied, and the rest summed away */
bool mlc_onnx__conv_einsum(MlcOnnxNode *n) {
  const char *eq = mlc_onnx__attr_str(n, "equation", NULL);
  char ops[2][EINSUM_MAX + 1], out[EINSUM_MAX + 1], all[2 * EINSUM_MAX + 1];
  int ranks[2];
  MlcGExpr *xs[2];
  if (!eq) return mlc_onnx__node_fail(n, "the equation attribute is missing");
  if (n->n_in < 1 || n->n_in > 2) return mlc_onnx__node_fail(n, "einsum of %d operands is not supported", n->n_in);
  for (int k = 0; k < n->n_in; k++)
    if (!(xs[k] = mlc_onnx__input(n, k)) || !need_rank(n, xs[k], &ranks[k])) return false;
  if (!einsum_parse(n, eq, ranks, ops, n->n_in, out)) return false;
  for (int k = 0; k < n->n_in; k++) {
    if (ranks[k] != (int)strlen(ops[k]))
      return mlc_onnx__node_fail(n, "operand %d has rank %d, the equation gives it %d labels", k, ranks[k], (int)strlen(ops[k]));
    for (int p = 0; xs[k] && ops[k][p]; p++) {
      const char *q = strchr(ops[k] + p + 1, ops[k][p]);
      if (q) xs[k] = einsum_diagonal(n, xs[k], ops[k], p, (int)(q - ops[k])), p = -1;
    }
    if (!xs[k]) return false;
  }
  size_t nall = strlen(out);
  memcpy(all, out, nall + 1);
  for (int k = 0; k < n->n_in; k++)
    for (const char *c = ops[k]; *c; c++)
      if (!strchr(all, *c)) all[nall++] = *c, all[nall] = 0;
  MlcGExpr *y = NULL;
  for (int k = 0; k < n->n_in; k++) {
    MlcGExpr *x = einsum_align(n, xs[k], ops[k], all);
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
