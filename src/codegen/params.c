/* params.c - the weights payload of a model: every constant of the module's
 * graph functions, each at a C_PARAM_ALIGN-aligned offset, in the order a
 * pre-order walk of the graph functions (module order) first meets them.
 *
 * The order is a pure function of the module, so the executor, which indexes
 * the payload by offsets, and params.bin, written separately, always agree;
 * the same constant node used twice is stored once. */
#include "c_model.h"

#include <string.h>

typedef struct Collect {
  CParamLayout *layout;
  bool overflow;
} Collect;

static bool visit_const(MlcVisitor *v, const MlcGExpr *e) {
  Collect *c = v->user;
  if (e->kind != MLC_G_CONST || mlc_map_has(&c->layout->offsets, e->constant)) return true;
  size_t at = c->layout->nbytes, size = e->constant->nbytes;
  size_t padded = (size + C_PARAM_ALIGN - 1) & ~(size_t)(C_PARAM_ALIGN - 1);
  if (padded < size || at + padded < at) {
    c->overflow = true;
    return false;
  }
  mlc_map_put(&c->layout->offsets, e->constant, (void *)(uintptr_t)(at + 1));
  c->layout->nbytes = at + padded;
  return true;
}

bool c_param_layout(MlcCtx *ctx, const MlcModule *m, CParamLayout *out) {
  memset(out, 0, sizeof *out);
  Collect c = {out, false};
  MlcVisitor v = {.user = &c, .gexpr = visit_const};
  for (int i = 0; i < m->n_funcs; i++)
    if (m->funcs[i].kind == MLC_FUNC_GRAPH) mlc_visit_gfunc(&v, m->funcs[i].graph);
  if (c.overflow) {
    c_param_layout_free(out);
    return mlc_error(ctx, ctx->build_loc, "the model's constants do not fit in memory");
  }
  return true;
}

void c_param_layout_free(CParamLayout *l) {
  mlc_map_free(&l->offsets);
  l->nbytes = 0;
}

void *c_param_payload(const MlcModule *m, const CParamLayout *l) {
  (void)m;
  if (l->nbytes == 0) return NULL;
  uint8_t *p = mlc_xcalloc(1, l->nbytes);
  for (size_t i = 0; i < l->offsets.len; i++) {
    const MlcTensorData *d = l->offsets.keys[i];
    size_t off = (size_t)(uintptr_t)l->offsets.vals[i] - 1;
    if (d->nbytes) memcpy(p + off, d->data, d->nbytes);
  }
  return p;
}

uint64_t c_fnv1a64(const void *p, size_t n) {
  const uint8_t *b = p;
  uint64_t h = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 0x100000001b3ull;
  return h;
}

bool mlc_model_params(MlcCtx *ctx, const MlcModule *m, void **out, size_t *nbytes) {
  CParamLayout l;
  *out = NULL;
  *nbytes = 0;
  if (!c_param_layout(ctx, m, &l)) return false;
  *out = c_param_payload(m, &l);
  *nbytes = l.nbytes;
  c_param_layout_free(&l);
  return true;
}
