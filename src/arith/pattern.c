/* pattern.c - the op pattern of a prim func, read from its TIR: how its
 * output elements depend on its inputs, which is what decides what may be
 * fused with what (src/transform/fuse_ops.c).
 *
 * Every block is classified from its iter vars and its accesses:
 *   - a spatial block whose loads all index their buffer exactly as the
 *     store indexes its own (same iter vars, same order) is elementwise;
 *   - one whose load indices are each one of the store's iter vars, in the
 *     store's order and over a dim of the same extent, or a constant into a
 *     dim of extent 1, is a broadcast;
 *   - any other spatial block is injective (transposes, reshapes, pads,
 *     slices), unless an index depends on loaded data (a gather), which
 *     makes it opaque;
 *   - a reduction that accumulates a product of two loaded values (matmul,
 *     conv, dense) is output-elementwise-fusable: an elementwise epilogue
 *     may be computed at its output tile;
 *   - any other reduction (sum, max, mean, pooling) is a commutative reduce.
 * The function's pattern is the most general of its blocks' (elementwise <
 * broadcast < injective < reduce < out-ewise-fusable < opaque); a function
 * without blocks, or with an opaque block, is opaque. */
#include "mlcc/arith.h"

#include <string.h>

const char *const mlc_op_pattern_names[MLC_PATTERN_COUNT] = {
#define X(id, name) name,
    MLC_OP_PATTERNS(X)
#undef X
};

typedef struct Acc {
  const MlcBlock *block;
  const MlcExpr *const *widx; /* the store's indices */
  int wn;
  const MlcBuffer *wbuf;      /* and its buffer */
  MlcOpPattern pat;
  int stores, products;
  bool data_index;
} Acc;

static MlcOpPattern max_pat(MlcOpPattern a, MlcOpPattern b) { return a > b ? a : b; }

static bool is_iter_var(const MlcBlock *b, const MlcExpr *e) {
  for (int i = 0; i < b->n_iters; i++)
    if (b->iters[i].var == e) return true;
  return false;
}

/* does e read a buffer (an index computed from data) */
static bool has_load(const MlcExpr *e);
static bool v_load(MlcVisitor *v, const MlcExpr *e) {
  if (e->kind == MLC_EXPR_LOAD) *(bool *)v->user = true;
  return !*(bool *)v->user;
}
static bool has_load(const MlcExpr *e) {
  bool found = false;
  MlcVisitor v = {.user = &found, .expr = v_load};
  mlc_visit_expr(&v, e);
  return found;
}

static bool same_dim(const MlcExpr *a, const MlcExpr *b) {
  int64_t x, y;
  bool cx = mlc_e_is_const_int(a, &x), cy = mlc_e_is_const_int(b, &y);
  return cx == cy && (cx ? x == y : mlc_expr_same(a, b));
}

static bool same_shape(const MlcBuffer *a, const MlcBuffer *b) {
  if (a->ndim != b->ndim) return false;
  for (int d = 0; d < a->ndim; d++)
    if (!same_dim(a->shape[d], b->shape[d])) return false;
  return true;
}

/* how a load's indices relate to the store's: the same indices into a
 * buffer of the same shape is elementwise (the same indices into a smaller
 * buffer, guarded, is a pad: injective) */
static MlcOpPattern load_pattern(const Acc *a, const MlcExpr *ld) {
  bool same = ld->load.n == a->wn && same_shape(ld->load.buf, a->wbuf), bcast = true;
  int at = 0; /* the store index the next var may match, in order */
  const MlcBuffer *rb = ld->load.buf;
  for (int i = 0; i < ld->load.n; i++) {
    const MlcExpr *x = ld->load.idx[i];
    if (same && x != a->widx[i]) same = false;
    int64_t c;
    if (mlc_e_is_const_int(x, &c)) { /* a broadcast dim has extent 1; else a slice */
      if (!mlc_e_is_const_int(rb->shape[i], &c) || c != 1) bcast = false;
      continue;
    }
    int k = at;
    while (k < a->wn && a->widx[k] != x) k++;
    if (k == a->wn || !is_iter_var(a->block, x) || !same_dim(rb->shape[i], a->wbuf->shape[k])) bcast = false;
    else at = k + 1;
  }
  return same ? MLC_PATTERN_ELEMWISE : bcast ? MLC_PATTERN_BROADCAST : MLC_PATTERN_INJECTIVE;
}

/* a product of two loads somewhere in an accumulated value */
static bool v_product(MlcVisitor *v, const MlcExpr *e) {
  if (e->kind == MLC_EXPR_BINARY && e->bin.op == MLC_BIN_MUL && has_load(e->bin.a) && has_load(e->bin.b))
    ((Acc *)v->user)->products++;
  return true;
}

static bool v_access(MlcVisitor *v, const MlcExpr *e) {
  Acc *a = v->user;
  if (e->kind != MLC_EXPR_LOAD) return true;
  for (int i = 0; i < e->load.n; i++)
    if (has_load(e->load.idx[i])) a->data_index = true;
  if (a->widx) a->pat = max_pat(a->pat, load_pattern(a, e));
  return true;
}

static bool v_store(MlcVisitor *v, const MlcStmt *s) {
  Acc *a = v->user;
  if (s->kind == MLC_STMT_BLOCK_REALIZE) return false; /* nested blocks are classified on their own */
  if (s->kind != MLC_STMT_STORE) return true;
  a->stores++;
  a->widx = (const MlcExpr *const *)s->store.idx;
  a->wn = s->store.n;
  a->wbuf = s->store.buf;
  for (int i = 0; i < s->store.n; i++)
    if (has_load(s->store.idx[i])) a->data_index = true;
  return true;
}

static MlcOpPattern block_pattern(const MlcBlock *b) {
  bool reduce = false;
  for (int i = 0; i < b->n_iters; i++) {
    if (b->iters[i].kind == MLC_ITER_OPAQUE) return MLC_PATTERN_OPAQUE;
    reduce |= b->iters[i].kind == MLC_ITER_REDUCE;
  }
  Acc a = {.block = b, .pat = MLC_PATTERN_ELEMWISE};
  MlcVisitor find = {.user = &a, .stmt = v_store};
  mlc_visit_stmt(&find, b->body);
  if (a.stores != 1) return MLC_PATTERN_OPAQUE; /* not a one-store block */
  MlcVisitor walk = {.user = &a, .expr = v_access, .stmt = v_store};
  a.stores = 0;
  mlc_visit_stmt(&walk, b->body);
  if (a.data_index) return MLC_PATTERN_OPAQUE;
  if (!reduce) return a.pat;
  MlcVisitor prod = {.user = &a, .expr = v_product};
  mlc_visit_stmt(&prod, b->body);
  return a.products ? MLC_PATTERN_OUT_EWISE_FUSABLE : MLC_PATTERN_REDUCE;
}

typedef struct FuncAcc { MlcOpPattern pat; int blocks; } FuncAcc;

static bool v_block(MlcVisitor *v, const MlcBlock *b) {
  FuncAcc *f = v->user;
  /* the root block holds the others; its own body is their loops */
  if (b->n_iters == 0 && strcmp(b->name, "root") == 0) return true;
  f->blocks++;
  f->pat = max_pat(f->pat, block_pattern(b));
  return true;
}

MlcOpPattern mlc_prim_func_pattern(const MlcPrimFunc *f) {
  if (!f || !f->body) return MLC_PATTERN_OPAQUE;
  FuncAcc acc = {MLC_PATTERN_ELEMWISE, 0};
  MlcVisitor v = {.user = &acc, .block = v_block};
  mlc_visit_prim_func(&v, f);
  return acc.blocks ? acc.pat : MLC_PATTERN_OPAQUE;
}
