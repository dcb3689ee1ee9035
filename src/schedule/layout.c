/* layout.c - transform_layout: give a buffer allocated in the function a new
 * shape through an index map, and rewrite every access to it.
 *
 *   sch.transform_layout(b, ("write", 0), lambda i, j: (i // 16, j // 16, i % 16, j % 16))
 *
 * The map is a lambda written in the script; it is read with the TVMScript
 * expression reader, its parameters being the buffer's indices.  Only a
 * bijection between the old and the new index space keeps every element in
 * its own place, so that is checked first, by running the map over every
 * index of the (constant) shape: the outputs' ranges give the new shape, and
 * no two indices may land on one element.  Running the map is exact where a
 * symbolic proof would be partial, and the buffers of a tensor program are
 * small enough for it (the check refuses shapes over MAP_MAX_POINTS).
 *
 * A buffer param changes layout only when the function lists it in its
 * "layout_free_buffers" attribute (param indices): its callers then agree to
 * pass the data laid out by the same map.  The function records each such
 * change in its "layout_rewrites" attribute, [[param index, "lambda ..."]],
 * which mlc_sch_layout_apply applies to the data (the graph pipeline does so
 * to constant weights at compile time).  Any other param is refused, since
 * its callers depend on the signature.
 *
 * Accesses are rewritten by substituting the indices into the map and
 * simplifying with the ranges of the enclosing loops and iter vars known;
 * a region of several elements is remapped by relaxing its extent through
 * the map (a fresh var per ranged dimension), then taking the hull the IR's
 * region inference gives for the remapped access. */
#include "schedule/state.h"
#include "text/read_util.h"

#include <string.h>

#define MAP_MAX_POINTS ((int64_t)1 << 24)
#define NOLOC ((MlcLoc){0})
#define MAP_MAX_RANK 16

enum { TL_BLOCK, TL_BUFFER, TL_INDEX_MAP };

typedef struct IndexMap {
  int n_in, n_out;
  MlcExpr *params[MAP_MAX_RANK];
  MlcExpr *outs[MAP_MAX_RANK];
} IndexMap;

/* ---- finding the buffer ----------------------------------------------------- */

static bool region_buffer(MlcSchedule *s, const char *bname, const MlcBlock *b, const MlcSchVal *v,
                          MlcBuffer **out) {
  if (v->kind == MLC_SV_STR) {
    for (int i = 0; i < b->n_reads + b->n_writes; i++) {
      MlcBuffer *x = i < b->n_reads ? b->reads[i].buf : b->writes[i - b->n_reads].buf;
      if (x->name == v->s) return *out = x, true;
    }
    return sch_error(s, "transform_layout: block '%s' does not access a buffer named '%s'", bname, v->s);
  }
  if (v->kind != MLC_SV_LIST || v->list.n != 2 || v->list.items[0].kind != MLC_SV_STR ||
      v->list.items[1].kind != MLC_SV_INT)
    return sch_error(s, "transform_layout: buffer must be (\"read\", index), (\"write\", index) or a name");
  const char *kind = v->list.items[0].s;
  int64_t k = v->list.items[1].i;
  bool is_read = strcmp(kind, "read") == 0;
  if (!is_read && strcmp(kind, "write") != 0)
    return sch_error(s, "transform_layout: buffer kind must be \"read\" or \"write\", got \"%s\"", kind);
  int n = is_read ? b->n_reads : b->n_writes;
  if (k < 0 || k >= n)
    return sch_error(s, "transform_layout: block '%s' has %d %s buffers, no index %lld", bname, n,
                     kind, (long long)k);
  *out = is_read ? b->reads[k].buf : b->writes[k].buf;
  return true;
}

typedef struct AllocFind { const MlcBuffer *buf; bool found; } AllocFind;

static bool find_alloc_block(MlcVisitor *v, const MlcBlock *b) {
  AllocFind *f = v->user;
  for (int i = 0; i < b->n_allocs; i++)
    if (b->allocs[i] == f->buf) f->found = true;
  return !f->found;
}

/* true when f's "layout_free_buffers" attribute lists param k */
static bool layout_free(MlcCtx *ctx, const MlcPrimFunc *f, int k) {
  const MlcAttrValue *v = mlc_attrs_get(f->attrs, mlc_intern(ctx, "layout_free_buffers"));
  for (int i = 0; v && v->kind == MLC_ATTR_LIST && i < v->list.n; i++)
    if (v->list.items[i].kind == MLC_ATTR_INT && v->list.items[i].i == k) return true;
  return false;
}

/* *param: the index of buf among f's params (a free one), -1 for an
 * allocated buffer */
static bool check_allocated(MlcSchedule *s, const MlcBuffer *buf, int *param) {
  const MlcPrimFunc *f = sch_func(s);
  *param = -1;
  for (int i = 0; i < f->n_params; i++)
    if (f->params[i].buf == buf) {
      if (layout_free(s->ctx, f, i)) return *param = i, true;
      return sch_error(s, "transform_layout: buffer '%s' is a parameter of '%s'; only buffers "
                          "allocated in the function, or params listed in its layout_free_buffers, "
                          "can change layout (the signature would change)",
                       buf->name, f->name);
    }
  AllocFind af = {buf, false};
  MlcVisitor v = {.user = &af, .block = find_alloc_block};
  mlc_visit_stmt(&v, f->body);
  if (!af.found) return sch_error(s, "transform_layout: buffer '%s' is not allocated in '%s'", buf->name, f->name);
  return true;
}

/* ---- reading the map ------------------------------------------------------------ */

static bool read_outputs(MlcCtx *ctx, MlcRdScope *sc, const Ast *body, IndexMap *map) {
  const AstList *items = &body->items;
  AstList one = {(Ast **)&body, 1};
  if (body->kind != AST_TUPLE && body->kind != AST_LIST) items = &one;
  if (items->n < 1 || items->n > MAP_MAX_RANK)
    return mlc_error(ctx, NOLOC, "transform_layout: the index map must give 1..%d indices", MAP_MAX_RANK);
  map->n_out = items->n;
  for (int k = 0; k < items->n; k++) {
    map->outs[k] = mlc_rd_int_expr(sc, items->items[k], "index map output");
    if (!map->outs[k]) return false;
    if (map->outs[k]->dtype.lanes != 1 || !mlc_dtype_is_int(map->outs[k]->dtype))
      return mlc_error(ctx, NOLOC, "transform_layout: index map output %d is not a scalar integer", k);
  }
  return true;
}

static bool read_index_map(MlcCtx *ctx, const char *text, const MlcBuffer *buf, IndexMap *map) {
  AstList top = {0};
  if (!mlc_parse(ctx, "<index_map>", text, strlen(text), &top)) return false;
  const Ast *lam = top.n == 1 && top.items[0]->kind == AST_EXPR_STMT ? top.items[0]->lhs : NULL;
  if (!lam || lam->kind != AST_LAMBDA)
    return mlc_error(ctx, NOLOC, "transform_layout: index_map must be a lambda, e.g. lambda i, j: (j, i)");
  if (lam->items.n != buf->ndim)
    return mlc_error(ctx, NOLOC, "transform_layout: the index map takes %d indices, buffer '%s' has %d dimensions",
                     lam->items.n, buf->name, buf->ndim);
  MlcDType t = buf->ndim ? buf->shape[0]->dtype : MLC_I32;
  MlcRdScope sc;
  mlc_rd_scope_init(&sc, ctx);
  mlc_rd_push(&sc);
  bool ok = true;
  map->n_in = buf->ndim;
  for (int d = 0; d < buf->ndim && ok; d++) {
    const Ast *p = lam->items.items[d];
    if (p->kind != AST_NAME) {
      ok = mlc_error(ctx, NOLOC, "transform_layout: index map parameters must be names");
      break;
    }
    MlcRdSym *sym = mlc_rd_define(&sc, p->name, MLC_RD_VAR, p->loc, true, "index map parameter");
    if (!sym) ok = false;
    else sym->var = map->params[d] = mlc_e_var(ctx, p->name, t);
  }
  ok = ok && read_outputs(ctx, &sc, lam->lhs, map);
  mlc_rd_scope_free(&sc);
  return ok;
}

/* ---- running the map over the whole shape --------------------------------------- */

typedef struct Runner {
  const IndexMap *map;
  int64_t point[MAP_MAX_RANK];
  bool bad; /* an overflow or a division by zero happened */
} Runner;

static bool eval(Runner *r, const MlcExpr *e, int64_t *out);

static bool eval_bin(Runner *r, const MlcExpr *e, int64_t *out) {
  int64_t a, b;
  if (!eval(r, e->bin.a, &a) || !eval(r, e->bin.b, &b)) return false;
  switch (e->bin.op) {
  case MLC_BIN_ADD: r->bad |= __builtin_add_overflow(a, b, out); return true;
  case MLC_BIN_SUB: r->bad |= __builtin_sub_overflow(a, b, out); return true;
  case MLC_BIN_MUL: r->bad |= __builtin_mul_overflow(a, b, out); return true;
  case MLC_BIN_MIN: *out = a < b ? a : b; return true;
  case MLC_BIN_MAX: *out = a > b ? a : b; return true;
  default: break;
  }
  if (b == 0 || (a == INT64_MIN && b == -1)) return r->bad = true, *out = 0, true;
  int64_t q = a / b, m = a % b;
  bool floor_fix = m != 0 && ((m < 0) != (b < 0));
  switch (e->bin.op) {
  case MLC_BIN_DIV: *out = q; return true;
  case MLC_BIN_MOD: *out = m; return true;
  case MLC_BIN_FLOORDIV: *out = floor_fix ? q - 1 : q; return true;
  case MLC_BIN_FLOORMOD: *out = floor_fix ? m + b : m; return true;
  default: return false;
  }
}

/* false for what an index map may not use */
static bool eval(Runner *r, const MlcExpr *e, int64_t *out) {
  switch (e->kind) {
  case MLC_EXPR_INT: *out = e->int_val; return true;
  case MLC_EXPR_VAR:
    for (int d = 0; d < r->map->n_in; d++)
      if (r->map->params[d] == e) return *out = r->point[d], true;
    return false;
  case MLC_EXPR_NEG:
    if (!eval(r, e->operand, out)) return false;
    r->bad |= *out == INT64_MIN;
    *out = -*out;
    return true;
  case MLC_EXPR_CAST: return mlc_dtype_is_int(e->dtype) && eval(r, e->operand, out);
  case MLC_EXPR_BINARY: return !mlc_binop_info[e->bin.op].is_bool && eval_bin(r, e, out);
  default: return false;
  }
}

/* Calls fn on every index of shape in row-major order; stops when it
 * returns false. */
static bool each_point(Runner *r, const int64_t *shape, bool (*fn)(Runner *r, void *user), void *user) {
  int n = r->map->n_in;
  for (int d = 0; d < n; d++) r->point[d] = 0;
  for (;;) {
    if (!fn(r, user)) return false;
    int d = n - 1;
    while (d >= 0 && ++r->point[d] == shape[d]) r->point[d--] = 0;
    if (d < 0) return true;
  }
}

typedef struct Ranges { int64_t lo[MAP_MAX_RANK], hi[MAP_MAX_RANK]; int bad_out; } Ranges;

static bool widen_ranges(Runner *r, void *user) {
  Ranges *g = user;
  for (int k = 0; k < r->map->n_out; k++) {
    int64_t v;
    if (!eval(r, r->map->outs[k], &v)) return g->bad_out = k, false;
    if (r->bad) return false;
    if (v < g->lo[k]) g->lo[k] = v;
    if (v > g->hi[k]) g->hi[k] = v;
  }
  return true;
}

typedef struct Cover {
  const int64_t *new_shape;
  uint8_t *seen;      /* one bit per element of the new shape */
  int64_t hit;        /* the element hit twice, -1 none */
  int64_t target;     /* when looking for pre-images: the element */
  int64_t pre[2][MAP_MAX_RANK];
  int n_pre;
} Cover;

static int64_t offset_of(Runner *r, const int64_t *new_shape) {
  int64_t off = 0, v;
  for (int k = 0; k < r->map->n_out; k++) {
    eval(r, r->map->outs[k], &v);
    off = off * new_shape[k] + v;
  }
  return off;
}

static bool mark(Runner *r, void *user) {
  Cover *c = user;
  int64_t off = offset_of(r, c->new_shape);
  if (c->seen[off >> 3] & (1u << (off & 7))) return c->hit = off, false;
  c->seen[off >> 3] |= (uint8_t)(1u << (off & 7));
  return true;
}

static bool find_pre(Runner *r, void *user) {
  Cover *c = user;
  if (offset_of(r, c->new_shape) != c->target) return true;
  memcpy(c->pre[c->n_pre++], r->point, sizeof r->point);
  return c->n_pre < 2;
}

static void fmt_point(MlcStrBuf *sb, const int64_t *p, int n) {
  mlc_sb_putc(sb, '(');
  for (int d = 0; d < n; d++) mlc_sb_printf(sb, "%s%lld", d ? ", " : "", (long long)p[d]);
  mlc_sb_putc(sb, ')');
}

static bool report_collision(MlcCtx *ctx, const MlcBuffer *buf, const IndexMap *map, const Cover *c) {
  MlcStrBuf sb = {0};
  fmt_point(&sb, c->pre[0], map->n_in);
  mlc_sb_puts(&sb, " and ");
  fmt_point(&sb, c->pre[1], map->n_in);
  mlc_error(ctx, NOLOC, "transform_layout: buffer '%s': the index map is not bijective: %s map to the same element",
            buf->name, mlc_sb_cstr(&sb));
  mlc_vec_free(&sb);
  return false;
}

/* ---- separable maps: one input dim per output ------------------------------------ */

/* A map whose every output uses at most one input dim (a blocking such as
 * (o // 16, i, h, w, o % 16), a permutation) is a product of per-dim maps:
 * it is a bijection exactly when each dim's map is one onto the box of its
 * outputs and constant outputs are 0.  Checking (and applying) it per dim
 * costs the sum of the extents instead of their product, which is what
 * makes laying out million-element weights cheap. */
typedef struct DimsUsed { const IndexMap *map; unsigned mask; } DimsUsed;

static bool dims_visit(MlcVisitor *v, const MlcExpr *e) {
  DimsUsed *u = v->user;
  for (int d = 0; d < u->map->n_in && e->kind == MLC_EXPR_VAR; d++)
    if (u->map->params[d] == e) u->mask |= 1u << d;
  return true;
}

/* the one input dim output k uses: -1 for none, -2 for several */
static int dim_of_output(const IndexMap *map, int k) {
  DimsUsed u = {map, 0};
  MlcVisitor v = {.user = &u, .expr = dims_visit};
  mlc_visit_expr(&v, map->outs[k]);
  if (!u.mask) return -1;
  if (u.mask & (u.mask - 1)) return -2;
  return __builtin_ctz(u.mask);
}

/* For a separable bijection: the new shape and, per input dim d and index
 * i, its part of the row-major offset in the new shape (off[d][i]).  False
 * (nothing reported) when the map is not separable or not a bijection: the
 * point-by-point check then says why. */
static bool separable(const IndexMap *map, const int64_t *shape, int64_t *new_shape, int64_t **off) {
  int dim[MAP_MAX_RANK];
  Runner r = {.map = map};
  int64_t stride[MAP_MAX_RANK], total = 1, v;
  for (int k = 0; k < map->n_out; k++) {
    if ((dim[k] = dim_of_output(map, k)) == -2) return false;
    int64_t hi = 0, n = dim[k] < 0 ? 1 : shape[dim[k]];
    for (int64_t i = 0; i < n; i++) {
      if (dim[k] >= 0) r.point[dim[k]] = i;
      if (!eval(&r, map->outs[k], &v) || r.bad || v < 0) return false;
      hi = v > hi ? v : hi;
    }
    if (dim[k] >= 0) r.point[dim[k]] = 0;
    new_shape[k] = hi + 1;
    if (dim[k] < 0 && hi != 0) return false;
  }
  for (int k = map->n_out - 1; k >= 0; k--) {
    stride[k] = total;
    if (__builtin_mul_overflow(total, new_shape[k], &total)) return false;
  }
  bool ok = true;
  for (int d = 0; d < map->n_in && ok; d++) {
    int64_t box = 1;
    for (int k = 0; k < map->n_out; k++) box *= dim[k] == d ? new_shape[k] : 1;
    if (box != shape[d]) return false;
    uint8_t *seen = mlc_xcalloc((size_t)box, 1);
    for (int64_t i = 0; i < shape[d] && ok; i++) {
      int64_t o = 0, local = 0;
      r.point[d] = i;
      for (int k = 0; k < map->n_out; k++) {
        if (dim[k] != d) continue;
        eval(&r, map->outs[k], &v);
        o += v * stride[k];
        local = local * new_shape[k] + v;
      }
      ok = !seen[local];
      seen[local] = 1;
      off[d][i] = o;
    }
    r.point[d] = 0;
    free(seen);
  }
  return ok;
}

/* off[d] arrays for the separable check (NULL when a dim is too long) */
static int64_t **offset_tables(const int64_t *shape, int n) {
  int64_t **off = mlc_xcalloc((size_t)n, sizeof *off);
  for (int d = 0; d < n; d++) off[d] = mlc_xcalloc((size_t)shape[d], sizeof **off);
  return off;
}

static void free_tables(int64_t **off, int n) {
  for (int d = 0; d < n; d++) free(off[d]);
  free(off);
}

/* The new shape, once the map is known to be a bijection of the old one. */
static bool check_bijective(MlcCtx *ctx, const MlcBuffer *buf, const IndexMap *map, int64_t *new_shape) {
  int64_t shape[MAP_MAX_RANK], total = 1, new_total = 1;
  for (int d = 0; d < buf->ndim; d++) {
    if (!mlc_e_is_const_int(buf->shape[d], &shape[d]) || shape[d] < 1)
      return mlc_error(ctx, NOLOC, "transform_layout: buffer '%s' must have a constant, non-empty shape", buf->name);
    if (__builtin_mul_overflow(total, shape[d], &total) || total > MAP_MAX_POINTS)
      return mlc_error(ctx, NOLOC, "transform_layout: buffer '%s' has more than %lld elements, too many to check "
                          "the index map", buf->name, (long long)MAP_MAX_POINTS);
  }
  int64_t **off = offset_tables(shape, buf->ndim);
  bool fast = separable(map, shape, new_shape, off);
  free_tables(off, buf->ndim);
  if (fast) return true;
  Runner r = {.map = map};
  Ranges g = {.bad_out = -1};
  for (int k = 0; k < map->n_out; k++) g.lo[k] = INT64_MAX, g.hi[k] = INT64_MIN;
  each_point(&r, shape, widen_ranges, &g);
  if (g.bad_out >= 0)
    return mlc_error(ctx, NOLOC, "transform_layout: index map output %d may use only its parameters, integers, "
                        "+ - * // %% and min/max", g.bad_out);
  if (r.bad) return mlc_error(ctx, NOLOC, "transform_layout: the index map divides by zero or overflows on buffer '%s'", buf->name);
  for (int k = 0; k < map->n_out; k++) {
    if (g.lo[k] < 0)
      return mlc_error(ctx, NOLOC, "transform_layout: buffer '%s': index map output %d reaches %lld; indices must "
                          "not be negative", buf->name, k, (long long)g.lo[k]);
    if (g.hi[k] >= total) /* a dimension alone larger than the buffer */
      return mlc_error(ctx, NOLOC, "transform_layout: buffer '%s': the index map is not bijective: output %d reaches "
                          "%lld, beyond the buffer's %lld elements", buf->name, k, (long long)g.hi[k], (long long)total);
    new_shape[k] = g.hi[k] + 1;
    if (__builtin_mul_overflow(new_total, new_shape[k], &new_total)) new_total = INT64_MAX;
  }
  if (new_total != total)
    return mlc_error(ctx, NOLOC, "transform_layout: buffer '%s': the index map is not bijective: it maps %lld "
                        "elements into a shape of %lld", buf->name, (long long)total, (long long)new_total);
  Cover c = {.new_shape = new_shape, .seen = mlc_xcalloc((size_t)(total + 7) / 8, 1), .hit = -1};
  bool ok = each_point(&r, shape, mark, &c);
  if (!ok) {
    c.target = c.hit;
    each_point(&r, shape, find_pre, &c);
    report_collision(ctx, buf, map, &c);
  }
  free(c.seen);
  return ok;
}

/* ---- rewriting the function ------------------------------------------------------ */

typedef struct Relayout {
  MlcSchedule *s;
  MlcBuffer *old, *nw;
  const IndexMap *map;
  MlcAnalyzer az;
} Relayout;

static MlcExpr *as_dtype(MlcCtx *ctx, MlcExpr *e, MlcDType t) {
  return mlc_dtype_eq(e->dtype, t) ? e : mlc_e_cast(ctx, t, e);
}

/* the map's outputs with its params replaced by args; NULL on error */
static bool apply_map(Relayout *r, MlcExpr **args, MlcExpr **out) {
  MlcCtx *ctx = r->s->ctx;
  MlcMap vmap = {0};
  bool ok = true;
  for (int d = 0; d < r->map->n_in && ok; d++) {
    if (args[d]->dtype.lanes != 1)
      ok = sch_error(r->s, "transform_layout: buffer '%s' has a vector access, which cannot be remapped",
                     r->old->name);
    else mlc_map_put(&vmap, r->map->params[d], as_dtype(ctx, args[d], r->map->params[d]->dtype));
  }
  for (int k = 0; k < r->map->n_out && ok; k++) {
    MlcExpr *e = mlc_substitute_expr(ctx, r->map->outs[k], &vmap);
    out[k] = e ? mlc_arith_simplify(&r->az, e) : NULL;
    ok = out[k] != NULL;
  }
  mlc_map_free(&vmap);
  return ok;
}

static MlcExpr **new_index(Relayout *r, MlcExpr **idx) {
  MlcExpr **out = mlc_arena_array(&r->s->ctx->arena, (size_t)r->map->n_out, sizeof *out);
  return apply_map(r, idx, out) ? out : NULL;
}

static MlcExpr *relayout_expr(MlcMutator *m, MlcExpr *e) {
  Relayout *r = m->user;
  MlcExpr *x = mlc_mutate_expr_children(m, e);
  if (!x || x->kind != MLC_EXPR_LOAD || x->load.buf != r->old) return x;
  MlcExpr **idx = new_index(r, x->load.idx);
  return idx ? mlc_e_load(m->ctx, r->nw, idx, r->map->n_out) : NULL;
}

/* A region of several elements: each ranged dimension becomes min + a fresh
 * var over the extent, and the hull of the remapped access over those vars
 * is what IR region inference computes for a block that makes it. */
static bool relax_region(Relayout *r, const MlcBufferRegion *reg, MlcBufferRegion *out) {
  MlcCtx *ctx = r->s->ctx;
  MlcExpr *args[MAP_MAX_RANK], *vars[MAP_MAX_RANK], *idx[MAP_MAX_RANK];
  int64_t ext[MAP_MAX_RANK];
  int nv = 0;
  bool full = false;
  for (int d = 0; d < r->map->n_in; d++) {
    args[d] = reg->ranges[d].min;
    vars[d] = NULL;
    if (!mlc_e_is_const_int(reg->ranges[d].extent, &ext[d])) full = true;
    else if (ext[d] != 1) {
      vars[d] = mlc_e_var(ctx, "r", args[d]->dtype);
      mlc_arith_bind(&r->az, vars[d], 0, ext[d]);
      args[d] = mlc_e_bin(ctx, MLC_BIN_ADD, args[d], vars[d]);
      nv++;
      if (!args[d]) return false;
    }
  }
  bool ok = full || apply_map(r, args, idx);
  for (int d = 0; d < r->map->n_in; d++)
    if (vars[d]) mlc_arith_unbind(&r->az, vars[d]);
  if (!ok) return false;
  out->buf = r->nw;
  out->ranges = mlc_arena_array(&ctx->arena, (size_t)r->map->n_out, sizeof *out->ranges);
  if (full) {
    for (int k = 0; k < r->map->n_out; k++)
      out->ranges[k] = (MlcRange){mlc_e_int(ctx, r->nw->shape[k]->dtype, 0), r->nw->shape[k]};
    return true;
  }
  if (nv == 0) {
    for (int k = 0; k < r->map->n_out; k++) out->ranges[k] = (MlcRange){idx[k], mlc_e_int(ctx, idx[k]->dtype, 1)};
    return true;
  }
  MlcStmt *body = mlc_s_evaluate(ctx, mlc_e_load(ctx, r->nw, idx, r->map->n_out));
  for (int d = r->map->n_in - 1; d >= 0; d--)
    if (vars[d])
      body = mlc_s_for(ctx, vars[d], mlc_e_int(ctx, vars[d]->dtype, 0), mlc_e_int(ctx, vars[d]->dtype, ext[d]),
                       MLC_FOR_SERIAL, NULL, (MlcAttrs){0}, body);
  MlcBlock *probe = body ? mlc_block_new(ctx, "probe", NULL, 0, NULL, 0, NULL, 0, NULL, NULL, 0, (MlcAttrs){0}, body) : NULL;
  if (!probe || !mlc_block_infer_regions(ctx, probe) || probe->n_reads != 1)
    return mlc_has_error(ctx) ? false : sch_error(r->s, "transform_layout: cannot remap a region of buffer '%s'", r->old->name);
  out->ranges = probe->reads[0].ranges;
  return true;
}

static bool remap_region(Relayout *r, const MlcBufferRegion *reg, MlcBufferRegion *out) {
  bool point = true;
  int64_t e;
  for (int d = 0; d < r->map->n_in; d++)
    point = point && mlc_e_is_const_int(reg->ranges[d].extent, &e) && e == 1;
  if (!point) return relax_region(r, reg, out);
  MlcExpr *mins[MAP_MAX_RANK];
  for (int d = 0; d < r->map->n_in; d++) mins[d] = reg->ranges[d].min;
  MlcExpr **idx = new_index(r, mins);
  if (!idx) return false;
  out->buf = r->nw;
  out->ranges = mlc_arena_array(&r->s->ctx->arena, (size_t)r->map->n_out, sizeof *out->ranges);
  for (int k = 0; k < r->map->n_out; k++) out->ranges[k] = (MlcRange){idx[k], mlc_e_int(r->s->ctx, idx[k]->dtype, 1)};
  return true;
}

/* a copy of the region list with the buffer's regions remapped; the list
 * itself when the buffer is not in it */
static bool remap_regions(Relayout *r, MlcBufferRegion **regs, int n) {
  MlcBufferRegion *in = *regs, *out = in;
  for (int i = 0; i < n; i++) {
    if (in[i].buf != r->old) continue;
    if (out == in) out = mlc_arena_dup(&r->s->ctx->arena, in, (size_t)n * sizeof *in);
    if (!remap_region(r, &in[i], &out[i])) return false;
  }
  *regs = out;
  return true;
}

static MlcStmt *relayout_block(Relayout *r, MlcStmt *realize) {
  MlcBlock nb = *realize->realize.block;
  bool touched = false;
  for (int i = 0; i < nb.n_reads + nb.n_writes; i++)
    touched |= (i < nb.n_reads ? nb.reads[i].buf : nb.writes[i - nb.n_reads].buf) == r->old;
  for (int i = 0; i < nb.n_allocs; i++) touched |= nb.allocs[i] == r->old;
  if (!touched) return realize;
  if (!remap_regions(r, &nb.reads, nb.n_reads) || !remap_regions(r, &nb.writes, nb.n_writes)) return NULL;
  MlcBuffer **allocs = mlc_arena_dup(&r->s->ctx->arena, nb.allocs, (size_t)nb.n_allocs * sizeof *allocs);
  for (int i = 0; i < nb.n_allocs; i++)
    if (allocs[i] == r->old) allocs[i] = r->nw;
  MlcCtx *ctx = r->s->ctx;
  MlcBlock *b = mlc_block_new(ctx, nb.name, nb.iters, nb.n_iters, nb.reads, nb.n_reads, nb.writes,
                              nb.n_writes, nb.init, allocs, nb.n_allocs, nb.annotations, nb.body);
  return b ? mlc_s_realize(ctx, realize->realize.values, realize->realize.n, realize->realize.pred, b) : NULL;
}

static void bind_range(Relayout *r, const MlcExpr *var, const MlcExpr *min, const MlcExpr *ext) {
  int64_t lo, n;
  if (mlc_e_is_const_int(min, &lo) && mlc_e_is_const_int(ext, &n) && n > 0) mlc_arith_bind(&r->az, var, lo, n);
}

static MlcStmt *relayout_stmt(MlcMutator *m, MlcStmt *st) {
  Relayout *r = m->user;
  MlcStmt *x;
  switch (st->kind) {
  case MLC_STMT_FOR:
    bind_range(r, st->loop.var, st->loop.min, st->loop.extent);
    x = mlc_mutate_stmt_children(m, st);
    mlc_arith_unbind(&r->az, st->loop.var);
    return x;
  case MLC_STMT_BLOCK_REALIZE: {
    const MlcBlock *b = st->realize.block;
    for (int i = 0; i < b->n_iters; i++) bind_range(r, b->iters[i].var, b->iters[i].dom.min, b->iters[i].dom.extent);
    x = mlc_mutate_stmt_children(m, st);
    x = x ? relayout_block(r, x) : NULL;
    for (int i = 0; i < b->n_iters; i++) mlc_arith_unbind(&r->az, b->iters[i].var);
    return x;
  }
  case MLC_STMT_STORE: {
    x = mlc_mutate_stmt_children(m, st);
    if (!x || x->store.buf != r->old) return x;
    MlcExpr **idx = new_index(r, x->store.idx);
    return idx ? mlc_s_store(m->ctx, r->nw, idx, r->map->n_out, x->store.value) : NULL;
  }
  default: return mlc_mutate_stmt_children(m, st);
  }
}

static MlcBuffer *new_buffer(MlcSchedule *s, const MlcBuffer *old, const IndexMap *map, const int64_t *shape) {
  MlcCtx *ctx = s->ctx;
  MlcDType t = old->ndim ? old->shape[0]->dtype : MLC_I32;
  MlcExpr **dims = mlc_arena_array(&ctx->arena, (size_t)map->n_out, sizeof *dims);
  for (int k = 0; k < map->n_out; k++)
    dims[k] = mlc_e_int(ctx, shape[k] > INT32_MAX ? MLC_I64 : t, shape[k]);
  MlcBuffer *b = mlc_buffer_new(ctx, old->name, old->dtype, dims, map->n_out, NULL, NULL, old->scope);
  if (b) b->align = old->align, b->offset_factor = old->offset_factor;
  return b;
}

/* f's attributes with [param, index map text] appended to "layout_rewrites" */
static MlcAttrs with_rewrite(MlcCtx *ctx, MlcAttrs attrs, int param, const char *text) {
  const char *key = mlc_intern(ctx, "layout_rewrites");
  const MlcAttrValue *old = mlc_attrs_get(attrs, key);
  int n_old = old && old->kind == MLC_ATTR_LIST ? old->list.n : 0;
  MlcAttrValue *pair = mlc_arena_array(&ctx->arena, 2, sizeof *pair);
  pair[0] = (MlcAttrValue){.kind = MLC_ATTR_INT, .i = param};
  pair[1] = (MlcAttrValue){.kind = MLC_ATTR_STR, .s = mlc_intern(ctx, text)};
  MlcAttrValue *items = mlc_arena_array(&ctx->arena, (size_t)n_old + 1, sizeof *items);
  for (int i = 0; i < n_old; i++) items[i] = old->list.items[i];
  items[n_old] = (MlcAttrValue){.kind = MLC_ATTR_LIST, .list = {pair, 2}};
  MlcAttrValue list = {.kind = MLC_ATTR_LIST, .list = {items, n_old + 1}};
  MlcAttr *a = mlc_arena_array(&ctx->arena, (size_t)attrs.n + 1, sizeof *a);
  int n = 0;
  for (int i = 0; i < attrs.n; i++) a[n++] = attrs.items[i].key == key ? (MlcAttr){key, list} : attrs.items[i];
  if (!old) a[n++] = (MlcAttr){key, list};
  return (MlcAttrs){a, n};
}

bool sch_prim_transform_layout(MlcSchedule *s, const MlcSchVal *args, MlcSchVal *outs, int *n_outs) {
  const char *bname;
  SchPath path = {0};
  MlcBuffer *buf = NULL;
  IndexMap map = {0};
  int64_t shape[MAP_MAX_RANK];
  int param;
  *n_outs = 0;
  if (!sch_arg_block(s, &args[TL_BLOCK], "block", &bname) || !sch_find_block(s, bname, &path)) return false;
  const MlcBlock *block = path.nodes[path.n - 1]->realize.block;
  sch_path_free(&path);
  const MlcSchVal *im = &args[TL_INDEX_MAP];
  if (im->kind != MLC_SV_LAMBDA && im->kind != MLC_SV_STR)
    return sch_error(s, "transform_layout: index_map must be a lambda, e.g. lambda i, j: (j, i)");
  if (!region_buffer(s, bname, block, &args[TL_BUFFER], &buf) || !check_allocated(s, buf, &param)) return false;
  if (buf->ndim > MAP_MAX_RANK) return sch_error(s, "transform_layout: buffer '%s' has too many dimensions", buf->name);
  if (!read_index_map(s->ctx, im->s, buf, &map) || !check_bijective(s->ctx, buf, &map, shape)) return false;
  Relayout r = {.s = s, .old = buf, .map = &map};
  r.nw = new_buffer(s, buf, &map, shape);
  if (!r.nw) return false;
  mlc_arith_init(&r.az, s->ctx);
  MlcMutator m = {.ctx = s->ctx, .user = &r, .expr = relayout_expr, .stmt = relayout_stmt};
  MlcStmt *body = mlc_mutate_stmt(&m, sch_func(s)->body);
  mlc_map_free(&m.buffer_map);
  mlc_arith_free(&r.az);
  if (param < 0) return body && sch_commit(s, body);
  /* a free param: the signature changes, and the function says how */
  const MlcPrimFunc *f = sch_func(s);
  MlcParam *params = mlc_arena_dup(&s->ctx->arena, f->params, (size_t)f->n_params * sizeof *params);
  params[param].buf = r.nw;
  return body && sch_commit_full(s, params, f->n_params, with_rewrite(s->ctx, f->attrs, param, im->s), body);
}

/* ---- applying a recorded map to data ------------------------------------------------ */

typedef struct Copy {
  const int64_t *new_shape;
  const char *src;
  char *dst;
  size_t elem;
  int64_t i; /* the source element, in row-major order */
} Copy;

static bool copy_point(Runner *r, void *user) {
  Copy *c = user;
  memcpy(c->dst + (size_t)offset_of(r, c->new_shape) * c->elem, c->src + (size_t)c->i++ * c->elem, c->elem);
  return true;
}

MlcTensorData *mlc_sch_layout_apply(MlcCtx *ctx, const char *index_map, const MlcTensorData *in) {
  if (!in || in->ndim < 1 || in->ndim > MAP_MAX_RANK)
    return mlc_error(ctx, NOLOC, "transform_layout: data of rank 1..%d expected", MAP_MAX_RANK), NULL;
  MlcExpr **dims = mlc_arena_array(&ctx->arena, (size_t)in->ndim, sizeof *dims);
  for (int d = 0; d < in->ndim; d++) dims[d] = mlc_e_int(ctx, MLC_I64, in->shape[d]);
  MlcBuffer *buf = mlc_buffer_new(ctx, mlc_intern(ctx, "data"), in->dtype, dims, in->ndim, NULL, NULL, NULL);
  IndexMap map = {0};
  int64_t shape[MAP_MAX_RANK], point_shape[MAP_MAX_RANK];
  if (!buf || !read_index_map(ctx, index_map, buf, &map) || !check_bijective(ctx, buf, &map, shape)) return NULL;
  MlcTensorData *out = mlc_tensor_data_new(ctx, in->dtype, shape, map.n_out);
  if (!out) return NULL;
  memcpy(point_shape, in->shape, sizeof *point_shape * (size_t)in->ndim);
  size_t elem = mlc_dtype_bytes(in->dtype);
  int64_t **off = offset_tables(point_shape, in->ndim);
  if (separable(&map, point_shape, shape, off)) {
    /* the offset of an element is the sum of its indices' parts */
    int64_t idx[MAP_MAX_RANK] = {0}, n = mlc_tensor_data_numel(in);
    for (int64_t i = 0; i < n; i++) {
      int64_t o = 0;
      for (int d = 0; d < in->ndim; d++) o += off[d][idx[d]];
      memcpy((char *)out->data + (size_t)o * elem, (const char *)in->data + (size_t)i * elem, elem);
      for (int d = in->ndim - 1; d >= 0 && ++idx[d] == point_shape[d]; d--) idx[d] = 0;
    }
  } else {
    Runner r = {.map = &map};
    Copy c = {shape, in->data, out->data, elem, 0};
    each_point(&r, point_shape, copy_point, &c);
  }
  free_tables(off, in->ndim);
  return out;
}
