/* read_const.c - the value of R.const(...) in a graph function: a number or
 * a nested list of numbers (rectangular, at most CONST_MAX_NDIM deep and
 * CONST_MAX_ELEMS elements), stored in the dtype given or inferred (float32
 * when any value is a float, bool when all are, else int32), each value
 * checked to fit. */
#include <float.h>
#include <math.h>
#include <string.h>

#include "read_util.h"

#define CONST_MAX_ELEMS ((size_t)1 << 24)
#define CONST_MAX_NDIM 32

static bool is_seq(const Ast *a) { return a->kind == AST_LIST || a->kind == AST_TUPLE; }

typedef struct ConstLeaf { bool is_float, is_bool; int64_t i; double f; } ConstLeaf;

static bool const_leaf(MlcCtx *ctx, const Ast *a, ConstLeaf *out) {
  *out = (ConstLeaf){0};
  if (mlc_rd_int_literal(a, &out->i)) return out->f = (double)out->i, true;
  if (a->kind == AST_TRUE || a->kind == AST_FALSE)
    return out->is_bool = true, out->i = a->kind == AST_TRUE, out->f = (double)out->i, true;
  out->is_float = true;
  if (a->kind == AST_FLOAT) return out->f = a->float_val, true;
  if (a->kind == AST_UNARY && a->op == AST_OP_NEG && a->lhs->kind == AST_FLOAT)
    return out->f = -a->lhs->float_val, true;
  /* float("inf"), float("-inf"), float("nan") */
  if (a->kind == AST_CALL && a->func->kind == AST_NAME && strcmp(a->func->name, "float") == 0 &&
      a->items.n == 1 && !a->n_kws && a->items.items[0]->kind == AST_STR) {
    const char *s = a->items.items[0]->str;
    if (strcmp(s, "inf") == 0 || strcmp(s, "+inf") == 0) return out->f = INFINITY, true;
    if (strcmp(s, "-inf") == 0) return out->f = -INFINITY, true;
    if (strcmp(s, "nan") == 0) return out->f = NAN, true;
  }
  return mlc_error(ctx, a->loc, "R.const: expected a number");
}

static void store_bits(unsigned char *dst, int bits, int64_t v) {
  switch (bits) {
  case 2: case 4: /* sub-byte integers are stored one per byte */
  case 8: { uint8_t x = (uint8_t)v; memcpy(dst, &x, 1); break; }
  case 16: { uint16_t x = (uint16_t)v; memcpy(dst, &x, 2); break; }
  case 32: { uint32_t x = (uint32_t)v; memcpy(dst, &x, 4); break; }
  default: { uint64_t x = (uint64_t)v; memcpy(dst, &x, 8); break; }
  }
}

static bool const_store(MlcCtx *ctx, const Ast *a, MlcDType dt, const ConstLeaf *l, unsigned char *dst) {
  char b[32];
  if (mlc_dtype_is_float(dt)) {
    /* narrowing a double beyond float's range is undefined; refuse it */
    if (dt.bits < 64 && isfinite(l->f) && fabs(l->f) > FLT_MAX)
      return mlc_error(ctx, a->loc, "R.const: %g does not fit in %s", l->f, mlc_dtype_str(dt, b));
    float f = (float)l->f;
    if (mlc_dtype_is_minifloat(dt)) {
      /* the printer writes only values the format holds; anything else
       * would be rounded silently */
      unsigned bits = mlc_minifloat_encode(dt, f);
      if (!isnan(f) && mlc_minifloat_decode(dt, bits) != f)
        return mlc_error(ctx, a->loc, "R.const: %g is not a %s value", l->f, mlc_dtype_str(dt, b));
      store_bits(dst, 8, bits);
      return true;
    }
    if (dt.code == MLC_TC_BFLOAT) store_bits(dst, 16, mlc_f32_to_bf16(f));
    else if (dt.bits == 16) store_bits(dst, 16, mlc_f32_to_f16(f));
    else if (dt.bits == 32) memcpy(dst, &f, 4);
    else memcpy(dst, &l->f, 8);
    return true;
  }
  if (l->is_float) return mlc_error(ctx, a->loc, "R.const: a float in a %s constant", mlc_dtype_str(dt, b));
  if (!mlc_rd_int_fits(dt, l->i))
    return mlc_error(ctx, a->loc, "R.const: %lld does not fit in %s", (long long)l->i, mlc_dtype_str(dt, b));
  store_bits(dst, dt.code == MLC_TC_BOOL ? 8 : dt.bits, l->i);
  return true;
}

/* the element types const_store can write */
static bool const_dtype_ok(MlcDType dt) {
  if (dt.lanes != 1) return false;
  switch (dt.code) {
  case MLC_TC_BOOL: return true;
  case MLC_TC_INT: case MLC_TC_UINT:
    return dt.bits == 2 || dt.bits == 4 || dt.bits == 8 || dt.bits == 16 || dt.bits == 32 || dt.bits == 64;
  case MLC_TC_FLOAT: return dt.bits == 16 || dt.bits == 32 || dt.bits == 64;
  case MLC_TC_BFLOAT: return dt.bits == 16;
  default: return mlc_dtype_is_minifloat(dt);
  }
}

typedef struct ConstWalk {
  MlcCtx *ctx;
  int64_t shape[CONST_MAX_NDIM];
  int ndim;
  MlcDType dt;
  unsigned char *out; /* NULL on the first pass, which only checks and classifies */
  size_t pos, esize;
  bool any_float, all_bool;
} ConstWalk;

static bool const_walk(ConstWalk *w, const Ast *a, int depth) {
  if (depth < w->ndim) {
    if (!is_seq(a) || a->items.n != w->shape[depth])
      return mlc_error(w->ctx, a->loc, "R.const: ragged nested list (expected a list of %lld items "
                                          "here)", (long long)w->shape[depth]);
    for (int i = 0; i < a->items.n; i++)
      if (!const_walk(w, a->items.items[i], depth + 1)) return false;
    return true;
  }
  ConstLeaf l;
  if (is_seq(a)) return mlc_error(w->ctx, a->loc, "R.const: ragged nested list (expected a number here)");
  if (!const_leaf(w->ctx, a, &l)) return false;
  w->any_float |= l.is_float;
  w->all_bool &= l.is_bool;
  if (!w->out) return true;
  if (!const_store(w->ctx, a, w->dt, &l, w->out + w->pos * w->esize)) return false;
  w->pos++;
  return true;
}

/* shape from the first item at each depth; const_walk checks the rest */
static bool const_shape(ConstWalk *w, const Ast *v, size_t *numel) {
  size_t n = 1;
  for (const Ast *a = v; is_seq(a); a = a->items.items[0]) {
    if (w->ndim == CONST_MAX_NDIM)
      return mlc_error(w->ctx, a->loc, "R.const: nested deeper than %d", CONST_MAX_NDIM);
    w->shape[w->ndim++] = a->items.n;
    if (mlc_mul_overflows(n, (size_t)a->items.n, &n) || n > CONST_MAX_ELEMS)
      return mlc_error(w->ctx, v->loc, "R.const: more than %zu elements", CONST_MAX_ELEMS);
    if (!a->items.n) break;
  }
  *numel = n;
  return true;
}

MlcGExpr *mlc_rd_graph_const(MlcCtx *ctx, const Ast *call, const Ast *v, const Ast *dt) {
  if (!v) return mlc_error(ctx, call->loc, "R.const needs a value"), NULL;
  ConstWalk w = {.ctx = ctx, .all_bool = true};
  size_t numel = 0;
  if (!const_shape(&w, v, &numel) || !const_walk(&w, v, 0)) return NULL;
  char b[32];
  if (dt && !mlc_rd_dtype(ctx, dt, &w.dt)) return NULL;
  if (!dt) w.dt = w.any_float ? MLC_F32 : w.all_bool && numel ? MLC_BOOL : MLC_I32;
  if (!const_dtype_ok(w.dt))
    return mlc_error(ctx, dt ? dt->loc : call->loc, "R.const cannot hold %s",
                     mlc_dtype_str(w.dt, b)), NULL;
  MlcTensorData *td = mlc_arena_alloc(&ctx->arena, sizeof *td);
  w.esize = mlc_dtype_bytes(w.dt);
  td->dtype = w.dt;
  td->ndim = w.ndim;
  td->shape = mlc_arena_dup(&ctx->arena, w.shape, sizeof w.shape);
  td->nbytes = numel * w.esize;
  td->data = mlc_arena_alloc(&ctx->arena, td->nbytes ? td->nbytes : 1);
  w.out = td->data;
  if (!const_walk(&w, v, 0)) return NULL;
  return mlc_g_const(ctx, td);
}

bool mlc_rd_int_fits(MlcDType dt, int64_t v) {
  if (dt.code == MLC_TC_BOOL) return v == 0 || v == 1;
  if (dt.bits == 0 || dt.bits > 64) return false;
  if (dt.code == MLC_TC_UINT) return v >= 0 && (dt.bits == 64 || v < ((int64_t)1 << dt.bits));
  if (dt.bits == 64) return true;
  int64_t lim = (int64_t)1 << (dt.bits - 1);
  return v >= -lim && v < lim;
}
