/* op_check.h - what the op tests share: read a graph function holding an op
 * call, legalize the call into a prim func through the registry, run that in
 * the reference interpreter on given inputs, and hand the outputs back as
 * doubles for comparison with a plain C reference written in the test. */
#ifndef MLCC_TESTS_OP_CHECK_H
#define MLCC_TESTS_OP_CHECK_H

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mlcc/interp.h"
#include "mlcc/ops.h"
#include "mlcc/text.h"

#define OPC_MAX_NDIM 8

/* a tensor for a test: values as doubles, converted to the param's dtype */
typedef struct OpcBuf {
  int ndim;
  int64_t shape[OPC_MAX_NDIM];
  double *v; /* numel values, row-major; opc_run allocates outputs' */
} OpcBuf;

static inline int64_t opc_numel(const OpcBuf *b) {
  int64_t n = 1;
  for (int i = 0; i < b->ndim; i++) n *= b->shape[i];
  return n;
}

/* the value of the first binding of the graph function "main" in src (an op
 * call); NULL when the text does not read (the error stays in ctx) */
static inline const MlcGExpr *opc_call(MlcCtx *ctx, const char *src) {
  MlcModule *m = mlc_read_module(ctx, "op_test.py", src, strlen(src));
  if (!m) return NULL;
  const MlcFunc *f = mlc_module_find(m, mlc_intern(ctx, "main"));
  if (!f || f->kind != MLC_FUNC_GRAPH) return NULL;
  const MlcGExpr *body = f->graph->body;
  if (body->seq.n == 0 || body->seq.blocks[0]->n == 0) return NULL;
  return body->seq.blocks[0]->bindings[0].value;
}

static inline void opc_store(MlcDType t, void *p, int64_t i, double v) {
  switch (t.code) {
  case MLC_TC_FLOAT:
    if (t.bits == 64) ((double *)p)[i] = v;
    else ((float *)p)[i] = (float)v;
    return;
  case MLC_TC_BOOL: ((uint8_t *)p)[i] = v != 0; return;
  case MLC_TC_UINT:
    if (t.bits == 8) ((uint8_t *)p)[i] = (uint8_t)v;
    else if (t.bits == 32) ((uint32_t *)p)[i] = (uint32_t)v;
    else ((uint64_t *)p)[i] = (uint64_t)v;
    return;
  default:
    if (t.bits == 8) ((int8_t *)p)[i] = (int8_t)v;
    else if (t.bits == 16) ((int16_t *)p)[i] = (int16_t)v;
    else if (t.bits == 32) ((int32_t *)p)[i] = (int32_t)v;
    else ((int64_t *)p)[i] = (int64_t)v;
  }
}

static inline double opc_load(MlcDType t, const void *p, int64_t i) {
  switch (t.code) {
  case MLC_TC_FLOAT: return t.bits == 64 ? ((const double *)p)[i] : ((const float *)p)[i];
  case MLC_TC_BOOL: return ((const uint8_t *)p)[i];
  case MLC_TC_UINT:
    if (t.bits == 8) return ((const uint8_t *)p)[i];
    if (t.bits == 32) return ((const uint32_t *)p)[i];
    return (double)((const uint64_t *)p)[i];
  default:
    if (t.bits == 8) return ((const int8_t *)p)[i];
    if (t.bits == 16) return ((const int16_t *)p)[i];
    if (t.bits == 32) return ((const int32_t *)p)[i];
    return (double)((const int64_t *)p)[i];
  }
}

/* Legalize call and run it: ins are the prim func's input params in order,
 * outs its outputs (set ndim and shape; v is allocated here, free it with
 * opc_free).  False with the error in ctx. */
static inline bool opc_run(MlcCtx *ctx, const MlcGExpr *call, const OpcBuf *ins, int n_in,
                           OpcBuf *outs, int n_out) {
  MlcPrimFunc *f = mlc_op_to_prim_func(ctx, call, "op");
  if (!f) return false;
  if (f->n_params != n_in + n_out)
    return mlc_error(ctx, (MlcLoc){0}, "opc_run: prim func has %d params, test gives %d",
                     f->n_params, n_in + n_out);
  int n = n_in + n_out;
  MlcInterpArg *args = calloc((size_t)n, sizeof *args);
  void **store = calloc((size_t)n, sizeof *store);
  for (int i = 0; i < n; i++) {
    const OpcBuf *b = i < n_in ? &ins[i] : &outs[i - n_in];
    MlcDType t = f->params[i].buf->dtype;
    int64_t numel = opc_numel(b);
    store[i] = calloc((size_t)(numel ? numel : 1), mlc_dtype_bytes(t) ? mlc_dtype_bytes(t) : 1);
    if (i < n_in)
      for (int64_t k = 0; k < numel; k++) opc_store(t, store[i], k, b->v[k]);
    args[i] = (MlcInterpArg){.is_buffer = true, .data = store[i], .ndim = b->ndim, .shape = b->shape};
  }
  bool ok = mlc_interp_run(ctx, f, args, n);
  for (int i = n_in; i < n && ok; i++) {
    OpcBuf *b = &outs[i - n_in];
    int64_t numel = opc_numel(b);
    b->v = calloc((size_t)(numel ? numel : 1), sizeof(double));
    for (int64_t k = 0; k < numel; k++) b->v[k] = opc_load(f->params[i].buf->dtype, store[i], k);
  }
  for (int i = 0; i < n; i++) free(store[i]);
  free(store);
  free(args);
  return ok;
}

static inline void opc_free(OpcBuf *b, int n) {
  for (int i = 0; i < n; i++) free(b[i].v), b[i].v = NULL;
}

/* the largest |a - b| / max(1, |b|) over n values (NaN counts as equal to NaN) */
static inline double opc_max_err(const double *a, const double *b, int64_t n) {
  double worst = 0;
  for (int64_t i = 0; i < n; i++) {
    if (isnan(a[i]) && isnan(b[i])) continue;
    double d = fabs(a[i] - b[i]) / fmax(1.0, fabs(b[i]));
    if (!(d <= worst)) worst = d;
  }
  return worst;
}

/* deterministic values in [lo, hi) */
static inline void opc_fill(double *v, int64_t n, unsigned seed, double lo, double hi) {
  uint64_t s = seed * 6364136223846793005ull + 1442695040888963407ull;
  for (int64_t i = 0; i < n; i++) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    v[i] = lo + (hi - lo) * (double)(s >> 11) / 9007199254740992.0;
  }
}

#endif
