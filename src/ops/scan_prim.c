/* scan_prim.c - data-dependent kernels written as sequential scans (OP_PRIM
 * loop nests, see ops.def), linear in their input where a TE compute would
 * compare every element with every other.
 *
 * compact_index(counts, shape=[n], dims=[d0, ...]?, mask=False) reads `counts`, the
 * inclusive prefix sums (cumsum) of a 0/1 mask of static length N, and
 * writes the positions of the mask's ones in order: out[j] = the i where
 * the running count first reaches j + 1, that is counts[i] == j + 1 and
 * (i == 0 or counts[i - 1] == j).  With `dims` (whose product is N) each
 * position is unravelled in row-major order: out[d, j] is its coordinate
 * along dim d, the result [len(dims), n] as ONNX NonZero returns it.  The
 * output is zeroed, then one pass over i adds each position to the one j
 * it matches (j = counts[i] - 1 when 1 <= counts[i] <= n): N + n steps.
 * Whatever `counts` holds, a j no position matches reads 0 and one several
 * match reads their sum, every read stays inside `counts` and every write
 * inside the output.  With mask=True the input is the 0/1 mask itself
 * (any non-zero selects) and the scan keeps the running count, so the
 * graph needs no prefix sums (a cumsum costs N^2 / 2 steps as a TE):
 * out[j] is the position of the (j+1)-th non-zero, 0 past their count.
 *
 * unique_scan(x, order, sorted=True, part=..., shape=[n]?) is ONNX Unique
 * of a 1-D x (static length N) from `order`, x's indices sorted by value,
 * NaN last, equal values by index (argsort with nan_last).  One pass over
 * the order opens a group where the value differs from the one before (a
 * NaN differs from everything, so every NaN is its own group), and records
 * each element's group, each group's first index (its first member in the
 * order, the least index since the order is stable) and its size.  A
 * group's key is its place among the groups: the group number when sorted,
 * else the number of groups whose first index is lower (a mark at each
 * first index and a running count over x).  `part` picks the output:
 *   "inverse" [N]  each element's key (ONNX's inverse_indices)
 *   "first"   [n]  the first index of the group of key j (ONNX's indices)
 *   "count"   [n]  the size of that group (ONNX's counts)
 *   "total"   [1]  the number of groups, which the graph reads into n.
 * Each part is a few passes of N steps.  Indices read from `order` and
 * the scratch are clamped into 0 .. N-1 and a key is written only below
 * n, so no access leaves its buffer whatever `order` holds. */
#include <string.h>

#include "mlcc/arith.h"
#include "ops/op_internal.h"

#define MAX_DIMS 32

typedef struct Scan {
  MlcCtx *ctx;
  MlcExpr *zero, *one;
} Scan;

static MlcExpr *i64(Scan *s, int64_t v) { return mlc_op_i64(s->ctx, v); }
static MlcExpr *bin(Scan *s, MlcBinOp op, MlcExpr *x, MlcExpr *y) { return mlc_e_bin(s->ctx, op, x, y); }
static MlcExpr *var(Scan *s, const char *name) { return mlc_e_var(s->ctx, mlc_intern(s->ctx, name), MLC_I64); }
static MlcExpr *ld1(Scan *s, MlcBuffer *b, MlcExpr *i) { return mlc_e_load(s->ctx, b, &i, 1); }
static MlcStmt *st1(Scan *s, MlcBuffer *b, MlcExpr *i, MlcExpr *v) { return v ? mlc_s_store(s->ctx, b, &i, 1, v) : NULL; }
static MlcExpr *clamp(Scan *s, MlcExpr *e, MlcExpr *hi) { return bin(s, MLC_BIN_MIN, bin(s, MLC_BIN_MAX, e, s->zero), hi); }
static MlcStmt *loop(Scan *s, MlcExpr *v, MlcExpr *extent, MlcStmt *body) {
  return body ? mlc_s_for(s->ctx, v, s->zero, extent, MLC_FOR_SERIAL, NULL, (MlcAttrs){0}, body) : NULL;
}
static MlcStmt *seq(Scan *s, MlcStmt **items, int n) {
  for (int i = 0; i < n; i++)
    if (!items[i]) return NULL;
  return mlc_s_seq(s->ctx, items, n);
}
static MlcBuffer *buffer(MlcCtx *ctx, const char *name, MlcDType t, MlcExpr **shape, int nd, const char *scope) {
  return mlc_buffer_new(ctx, mlc_intern(ctx, name), t, shape, nd, NULL, NULL, scope);
}

static MlcAttrs func_attrs(MlcCtx *ctx, const char *name) {
  MlcAttr *a = mlc_arena_array(&ctx->arena, 2, sizeof *a);
  a[0] = (MlcAttr){mlc_intern(ctx, "global_symbol"), {.kind = MLC_ATTR_STR, .s = name}};
  a[1] = (MlcAttr){mlc_intern(ctx, "tir.noalias"), {.kind = MLC_ATTR_BOOL, .b = true}};
  return (MlcAttrs){a, 2};
}

/* the prim func around `body`: one opaque block named `bname` in a root
 * block allocating the scratch `al`, parameters `params` (their names in
 * pnames) */
static MlcPrimFunc *wrap(MlcCtx *ctx, const char *name, const char *bname, MlcStmt *body, MlcBuffer **al, int n_al,
                         MlcBuffer **params, const char *const *pnames, int np) {
  if (!body) return NULL;
  MlcBlock *blk = mlc_block_new(ctx, mlc_intern(ctx, bname), NULL, 0, NULL, 0, NULL, 0, NULL, NULL, 0, (MlcAttrs){0}, body);
  if (!blk || !mlc_block_infer_regions(ctx, blk)) return NULL;
  MlcBlock *root = mlc_block_new(ctx, mlc_intern(ctx, "root"), NULL, 0, NULL, 0, NULL, 0, NULL, al, n_al, (MlcAttrs){0},
                                 mlc_s_realize(ctx, NULL, 0, NULL, blk));
  MlcStmt *rs = root ? mlc_s_realize(ctx, NULL, 0, NULL, root) : NULL;
  MlcParam *ps = mlc_arena_array(&ctx->arena, (size_t)np, sizeof *ps);
  for (int i = 0; i < np; i++) {
    if (!params[i]) return NULL;
    ps[i] = (MlcParam){mlc_e_var(ctx, mlc_internf(ctx, "var_%s", pnames[i]), MLC_HANDLE), params[i]};
  }
  const char *fname = mlc_intern(ctx, name);
  return rs ? mlc_prim_func_new(ctx, fname, ps, np, func_attrs(ctx, fname), rs) : NULL;
}

/* ---- compact_index ---------------------------------------------------------- */

/* counts (1-D int64), the output's length and the dims to unravel by (*nd -1: none) */
static bool compact_args(MlcCtx *ctx, const MlcOpArgs *a, const MlcSInfo **c, MlcExpr **len, int64_t *dims,
                         int *nd) {
  MlcExpr **shape;
  int n;
  bool present;
  if (!(*c = mlc_op_tensor(ctx, a, 0, true)) || !mlc_op_attr_shape(ctx, a, "shape", &shape, &n) ||
      !mlc_op_attr_ints(ctx, a, "dims", dims, MAX_DIMS, nd, &present))
    return false;
  if (!present) *nd = -1;
  MlcDType t = (*c)->tensor.dtype;
  int64_t total;
  if (t.code != MLC_TC_INT || t.bits != 64 || t.lanes != 1 || (*c)->tensor.ndim != 1 || !(*c)->tensor.shape)
    return mlc_op_fail(ctx, a, "counts: expected a 1-D int64 tensor");
  if (!mlc_e_is_const_int((*c)->tensor.shape[0], &total))
    return mlc_op_fail(ctx, a, "counts: expected a static length, got %s", mlc_op_sinfo_str(ctx, *c));
  if (n != 1) return mlc_op_fail(ctx, a, "shape: expected one dim (the count), got %d", n);
  int64_t lv;
  if (shape[0]->kind != MLC_EXPR_VAR && !mlc_e_is_const_int(shape[0], &lv))
    return mlc_op_fail(ctx, a, "shape: expected a constant or a size var");
  *len = shape[0];
  if (*nd < 0) return true;
  int64_t prod = 1;
  if (*nd == 0) return mlc_op_fail(ctx, a, "dims: expected at least one dim");
  for (int d = 0; d < *nd; d++) {
    if (dims[d] < 0 || (dims[d] > 0 && prod > INT64_MAX / dims[d])) return mlc_op_fail(ctx, a, "dims: a dim out of range");
    prod *= dims[d];
  }
  if (total != prod)
    return mlc_op_fail(ctx, a, "dims: their product (%lld) must be the static length of counts", (long long)prod);
  return true;
}

MlcSInfo *mlc_op_infer_compact_index(MlcCtx *ctx, const MlcOpArgs *a) {
  const MlcSInfo *c;
  MlcExpr *len;
  int64_t dims[MAX_DIMS];
  int nd;
  if (!compact_args(ctx, a, &c, &len, dims, &nd)) return NULL;
  if (nd < 0) return mlc_op_tensor_sinfo(ctx, &len, 1, MLC_I64);
  MlcExpr *shape[2] = {mlc_op_i64(ctx, nd), len};
  return mlc_op_tensor_sinfo(ctx, shape, 2, MLC_I64);
}

MlcPrimFunc *mlc_op_prim_compact_index(MlcCtx *ctx, const MlcOpArgs *a, const char *name) {
  const MlcSInfo *c;
  MlcExpr *len;
  int64_t dims[MAX_DIMS], N;
  int nd;
  bool mask;
  if (!compact_args(ctx, a, &c, &len, dims, &nd) || !mlc_op_attr_bool(ctx, a, "mask", false, &mask)) return NULL;
  mlc_e_is_const_int(c->tensor.shape[0], &N);
  Scan s = {ctx, mlc_op_i64(ctx, 0), mlc_op_i64(ctx, 1)};
  int rows = nd < 0 ? 1 : nd, ond = nd < 0 ? 1 : 2;
  MlcExpr *oshape[2] = {nd < 0 ? len : i64(&s, nd), len};
  MlcBuffer *cb = buffer(ctx, "counts", MLC_I64, c->tensor.shape, 1, "global");
  MlcBuffer *out = buffer(ctx, "T_compact_index", MLC_I64, oshape, ond, "global");
  MlcBuffer *seen = mask ? buffer(ctx, "ones_seen", MLC_I64, &s.one, 1, "local") : NULL;
  if (!cb || !out || (mask && !seen)) return NULL;
  MlcExpr *j = var(&s, "j"), *d = var(&s, "d"), *i = var(&s, "i"), *cv = var(&s, "c");
  /* out = 0 */
  MlcExpr *zi[2] = {nd < 0 ? j : d, j};
  MlcStmt *clear = loop(&s, j, len, mlc_s_store(ctx, out, zi, ond, s.zero));
  if (nd >= 0) clear = loop(&s, d, i64(&s, nd), clear);
  /* per position i: j = counts[i] - 1 when counts[i] is in 1 .. n and one more than the count before */
  MlcExpr *at = clamp(&s, bin(&s, MLC_BIN_SUB, cv, s.one), bin(&s, MLC_BIN_SUB, len, s.one));
  MlcStmt **adds = mlc_arena_array(&ctx->arena, (size_t)rows, sizeof *adds);
  int64_t stride = 1;
  for (int r = rows - 1; r >= 0; r--) {
    MlcExpr *v = i;
    if (nd >= 0) {
      v = bin(&s, MLC_BIN_FLOORDIV, i, i64(&s, stride));
      if (dims[r] > 0) v = bin(&s, MLC_BIN_FLOORMOD, v, i64(&s, dims[r]));
      stride *= dims[r] > 0 ? dims[r] : 1;
    }
    MlcExpr *oi[2] = {nd < 0 ? at : i64(&s, r), at};
    adds[r] = mlc_s_store(ctx, out, oi, ond, bin(&s, MLC_BIN_ADD, mlc_e_load(ctx, out, oi, ond), v));
  }
  MlcExpr *prev = ld1(&s, cb, bin(&s, MLC_BIN_MAX, bin(&s, MLC_BIN_SUB, i, s.one), s.zero));
  MlcExpr *first = bin(&s, MLC_BIN_OR, bin(&s, MLC_BIN_EQ, i, s.zero), bin(&s, MLC_BIN_EQ, prev, bin(&s, MLC_BIN_SUB, cv, s.one)));
  MlcExpr *in_range = bin(&s, MLC_BIN_AND, bin(&s, MLC_BIN_GE, cv, s.one), bin(&s, MLC_BIN_LE, cv, len));
  MlcStmt *add = seq(&s, adds, rows);
  MlcStmt *each;
  if (mask) { /* the running count kept in `seen`: c is the count with this one */
    MlcStmt *one[2] = {st1(&s, seen, s.zero, cv), add ? mlc_s_if(ctx, in_range, add, NULL) : NULL};
    MlcStmt *os = seq(&s, one, 2);
    each = os ? mlc_s_if(ctx, bin(&s, MLC_BIN_NE, ld1(&s, cb, i), s.zero),
                         mlc_s_let(ctx, cv, bin(&s, MLC_BIN_ADD, ld1(&s, seen, s.zero), s.one), os), NULL)
              : NULL;
  } else
    each = add ? mlc_s_let(ctx, cv, ld1(&s, cb, i), mlc_s_if(ctx, in_range, mlc_s_if(ctx, first, add, NULL), NULL)) : NULL;
  MlcStmt *steps[3] = {clear, st1(&s, seen, s.zero, s.zero), loop(&s, i, i64(&s, N), each)};
  if (!mask) steps[1] = steps[2];
  MlcBuffer *params[2] = {cb, out};
  static const char *const pnames[2] = {"counts", "T_compact_index"};
  int nst = N > 0 ? (mask ? 3 : 2) : 1;
  return wrap(ctx, name, "T_compact_index", seq(&s, steps, nst), &seen, mask && N > 0 ? 1 : 0, params, pnames, 2);
}

/* ---- unique_scan ----------------------------------------------------------------- */

/* the parts of unique_scan: name, whether its length is `shape` (else N, or 1 for total) */
#define UNIQUE_PARTS(X) X("inverse") X("first") X("count") X("total")
enum { PART_INVERSE, PART_FIRST, PART_COUNT, PART_TOTAL };

typedef struct Uniq {
  const MlcSInfo *x, *order;
  int64_t N;
  bool sorted;
  int part;
  MlcExpr *len; /* the output's length */
} Uniq;

static bool unique_args(MlcCtx *ctx, const MlcOpArgs *a, Uniq *u) {
  static const char *const names[] = {
#define X(s) s,
      UNIQUE_PARTS(X)
#undef X
  };
  const char *p;
  memset(u, 0, sizeof *u);
  if (!(u->x = mlc_op_tensor(ctx, a, 0, true)) || !(u->order = mlc_op_tensor(ctx, a, 1, true)) ||
      !mlc_op_attr_bool(ctx, a, "sorted", true, &u->sorted) || !mlc_op_attr_str(ctx, a, "part", "inverse", &p))
    return false;
  u->part = -1;
  for (int i = 0; i < (int)(sizeof names / sizeof *names); i++)
    if (!strcmp(names[i], p)) u->part = i;
  if (u->part < 0) return mlc_op_fail(ctx, a, "part: expected \"inverse\", \"first\", \"count\" or \"total\", got \"%s\"", p);
  MlcDType t = u->x->tensor.dtype;
  if (u->x->tensor.ndim != 1 || !u->x->tensor.shape || !mlc_e_is_const_int(u->x->tensor.shape[0], &u->N) || t.lanes != 1 ||
      t.code == MLC_TC_BOOL)
    return mlc_op_fail(ctx, a, "x: expected a 1-D tensor of numbers of static length, got %s", mlc_op_sinfo_str(ctx, u->x));
  int64_t no;
  if (u->order->tensor.ndim != 1 || !u->order->tensor.shape || !mlc_dtype_eq(u->order->tensor.dtype, MLC_I64) ||
      !mlc_e_is_const_int(u->order->tensor.shape[0], &no) || no != u->N)
    return mlc_op_fail(ctx, a, "order: expected a 1-D int64 tensor of x's length %lld", (long long)u->N);
  MlcExpr **shape;
  int n;
  bool sized = u->part == PART_FIRST || u->part == PART_COUNT;
  int si = mlc_op_param(a, "shape");
  if (!sized) {
    if (si >= 0 && a->attr[si]) return mlc_op_fail(ctx, a, "shape: not taken by part \"%s\"", p);
    u->len = mlc_op_i64(ctx, u->part == PART_TOTAL ? 1 : u->N);
    return true;
  }
  if (!mlc_op_attr_shape(ctx, a, "shape", &shape, &n)) return false;
  if (n != 1) return mlc_op_fail(ctx, a, "shape: expected one dim (the number of distinct values), got %d", n);
  int64_t lv;
  if (shape[0]->kind != MLC_EXPR_VAR && !mlc_e_is_const_int(shape[0], &lv))
    return mlc_op_fail(ctx, a, "shape: expected a constant or a size var");
  if (mlc_e_is_const_int(shape[0], &lv) && (lv < 0 || lv > u->N))
    return mlc_op_fail(ctx, a, "shape: %lld is more than x's length %lld", (long long)lv, (long long)u->N);
  u->len = shape[0];
  return true;
}

MlcSInfo *mlc_op_infer_unique_scan(MlcCtx *ctx, const MlcOpArgs *a) {
  Uniq u;
  if (!unique_args(ctx, a, &u)) return NULL;
  return mlc_op_tensor_sinfo(ctx, &u.len, 1, MLC_I64);
}

MlcPrimFunc *mlc_op_prim_unique_scan(MlcCtx *ctx, const MlcOpArgs *a, const char *name) {
  Uniq u;
  if (!unique_args(ctx, a, &u)) return NULL;
  Scan s = {ctx, mlc_op_i64(ctx, 0), mlc_op_i64(ctx, 1)};
  int64_t N = u.N;
  MlcExpr *nlen = i64(&s, N > 0 ? N : 1), *two = i64(&s, 2), *last = i64(&s, N > 0 ? N - 1 : 0);
  MlcBuffer *xb = buffer(ctx, "x", u.x->tensor.dtype, u.x->tensor.shape, 1, "global");
  MlcBuffer *ob = buffer(ctx, "order", MLC_I64, u.order->tensor.shape, 1, "global");
  MlcBuffer *out = buffer(ctx, "T_unique_scan", MLC_I64, &u.len, 1, "global");
  MlcBuffer *grp = buffer(ctx, "group_of", MLC_I64, &nlen, 1, "local");
  MlcBuffer *gfirst = buffer(ctx, "group_first", MLC_I64, &nlen, 1, "local");
  MlcBuffer *gcount = buffer(ctx, "group_count", MLC_I64, &nlen, 1, "local");
  MlcBuffer *state = buffer(ctx, "scan_state", MLC_I64, &two, 1, "local"); /* groups so far, running rank */
  bool ranked = !u.sorted && u.part != PART_TOTAL;
  MlcBuffer *rk = ranked ? buffer(ctx, "first_rank", MLC_I64, &nlen, 1, "local") : NULL;
  if (!xb || !ob || !out || !grp || !gfirst || !gcount || !state || (ranked && !rk)) return NULL;
  /* every loop and let binds a var of its own */
  MlcExpr *i = var(&s, "i"), *p = var(&s, "p"), *q = var(&s, "q"), *g = var(&s, "g"), *g0 = var(&s, "g0");
  MlcExpr *groups = ld1(&s, state, s.zero);
  /* scratch zeroed, no group yet */
  MlcExpr *iz = var(&s, "i");
  MlcStmt *zero3[3] = {st1(&s, grp, iz, s.zero), st1(&s, gfirst, iz, s.zero), st1(&s, gcount, iz, s.zero)};
  MlcStmt *init[2] = {loop(&s, iz, i64(&s, N), seq(&s, zero3, 3)), st1(&s, state, s.zero, s.zero)};
  /* the pass over the order: a group opens where the value differs from the one before */
  MlcExpr *opens = bin(&s, MLC_BIN_OR, bin(&s, MLC_BIN_EQ, i, s.zero),
                       bin(&s, MLC_BIN_NE, ld1(&s, xb, p), ld1(&s, xb, q)));
  MlcStmt *open[2] = {st1(&s, gfirst, clamp(&s, g0, last), p), st1(&s, state, s.zero, bin(&s, MLC_BIN_ADD, g0, s.one))};
  MlcStmt *join[2] = {st1(&s, grp, p, g), st1(&s, gcount, g, bin(&s, MLC_BIN_ADD, ld1(&s, gcount, g), s.one))};
  MlcStmt *member = seq(&s, join, 2);
  MlcStmt *visit[2] = {mlc_s_if(ctx, opens, seq(&s, open, 2), NULL),
                       member ? mlc_s_let(ctx, g, clamp(&s, bin(&s, MLC_BIN_SUB, groups, s.one), last), member) : NULL};
  MlcStmt *vs = seq(&s, visit, 2);
  vs = vs ? mlc_s_let(ctx, g0, groups, vs) : NULL; /* a let's body is the rest of its sequence, as the text reads */
  MlcExpr *prev = ld1(&s, ob, bin(&s, MLC_BIN_MAX, bin(&s, MLC_BIN_SUB, i, s.one), s.zero));
  MlcStmt *pass = vs ? loop(&s, i, i64(&s, N),
                            mlc_s_let(ctx, p, clamp(&s, ld1(&s, ob, i), last), mlc_s_let(ctx, q, clamp(&s, prev, last), vs)))
                     : NULL;
  MlcStmt *steps[8];
  int ns = 0;
  steps[ns++] = seq(&s, init, 2);
  steps[ns++] = pass;
  /* in order of first occurrence: each group's rank among the first indices */
  if (ranked) {
    MlcExpr *gm = var(&s, "g"), *ic = var(&s, "i"), *ia = var(&s, "i"), *m = var(&s, "m"), *run = ld1(&s, state, s.one);
    MlcStmt *mark = loop(&s, gm, groups, st1(&s, rk, ld1(&s, gfirst, gm), s.one));
    MlcStmt *acc[2] = {st1(&s, rk, ia, run), st1(&s, state, s.one, bin(&s, MLC_BIN_ADD, run, m))};
    MlcStmt *as = seq(&s, acc, 2);
    MlcStmt *pre[4] = {loop(&s, ic, i64(&s, N), st1(&s, rk, ic, s.zero)), mark, st1(&s, state, s.one, s.zero),
                       as ? loop(&s, ia, i64(&s, N), mlc_s_let(ctx, m, ld1(&s, rk, ia), as)) : NULL};
    steps[ns++] = seq(&s, pre, 4);
  }
  /* a group's key */
#define KEY(gx) (ranked ? ld1(&s, rk, ld1(&s, gfirst, gx)) : (gx))
  switch (u.part) {
  case PART_INVERSE: {
    MlcExpr *io = var(&s, "i"), *gi = var(&s, "g");
    steps[ns++] = loop(&s, io, i64(&s, N), mlc_s_let(ctx, gi, ld1(&s, grp, io), st1(&s, out, io, KEY(gi))));
    break;
  }
  case PART_TOTAL: steps[ns++] = st1(&s, out, s.zero, groups); break;
  default: {
    MlcBuffer *from = u.part == PART_FIRST ? gfirst : gcount;
    MlcExpr *j = var(&s, "j"), *gk = var(&s, "g"), *k = var(&s, "k"), *ng = var(&s, "ng");
    steps[ns++] = loop(&s, j, u.len, st1(&s, out, j, s.zero));
    MlcStmt *put = mlc_s_if(ctx, bin(&s, MLC_BIN_LT, k, u.len), st1(&s, out, k, ld1(&s, from, gk)), NULL);
    MlcStmt *each = put ? mlc_s_let(ctx, k, KEY(gk), put) : NULL;
    steps[ns++] = each ? mlc_s_let(ctx, ng, groups, loop(&s, gk, ng, each)) : NULL;
  }
  }
#undef KEY
  MlcBuffer *al[5] = {grp, gfirst, gcount, state, rk};
  MlcBuffer *params[3] = {xb, ob, out};
  static const char *const pnames[3] = {"x", "order", "T_unique_scan"};
  return wrap(ctx, name, "T_unique_scan", seq(&s, steps, ns), al, ranked ? 5 : 4, params, pnames, 3);
}
