/* op_check.h - what the op tests share: read a graph function holding an op
 * call, check the struct info the registry infers and the located refusal of
 * bad input, legalize the call into a prim func that must print and read
 * back equal, run that in the reference interpreter on given inputs, and
 * compare the outputs, as doubles, with a plain C reference written in the
 * test.
 *
 * Header-only (static inline), since each test is one program.  Every
 * function takes the test's context explicitly, but those that make a whole
 * check of one call from its text (opc_infers, opc_refuses, opc_check_run
 * and their OPC_CHECK_ macros) use a fresh context each, so that one case
 * cannot leave anything behind for the next. */
#ifndef MLCC_TESTS_OP_CHECK_H
#define MLCC_TESTS_OP_CHECK_H

#include <assert.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
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

/* the module every op test reads: main(PARAMS) binds `lv = CALL` on line
 * OPC_CALL_LINE of OPC_FILE, the call starting at column OPC_CALL_COL */
#define OPC_MODULE_FMT                                                              \
  "from tvm.script import ir as I\nfrom tvm.script import relax as R\n"            \
  "@I.ir_module\nclass Module:\n    @R.function\n    def main(%s):\n"              \
  "        with R.dataflow():\n            lv = %s\n            R.output(lv)\n" \
  "        return lv\n"
#define OPC_FILE "op_test.py"
#define OPC_CALL_LINE 8
#define OPC_CALL_COL 18

/* the first binding of the graph function "main" in src; NULL when the text
 * does not read (the error stays in ctx) or holds no such binding */
static inline const MlcBinding *opc_binding(MlcCtx *ctx, const char *src) {
  MlcModule *m = mlc_read_module(ctx, OPC_FILE, src, strlen(src));
  if (!m) return NULL;
  const MlcFunc *f = mlc_module_find(m, mlc_intern(ctx, "main"));
  if (!f || f->kind != MLC_FUNC_GRAPH) return NULL;
  const MlcGExpr *body = f->graph->body;
  if (body->seq.n == 0 || body->seq.blocks[0]->n == 0) return NULL;
  return &body->seq.blocks[0]->bindings[0];
}

/* the value of the first binding of the graph function "main" in src (an op
 * call); NULL when the text does not read (the error stays in ctx) */
static inline const MlcGExpr *opc_call(MlcCtx *ctx, const char *src) {
  const MlcBinding *b = opc_binding(ctx, src);
  return b ? b->value : NULL;
}

/* the current error, formatted with its source line, as a diagnostic */
static inline void opc_print_error(MlcCtx *ctx) {
  MlcStrBuf sb = {0};
  mlc_format_error(ctx, &sb);
  printf("    %s\n", mlc_sb_cstr(&sb));
  mlc_vec_free(&sb);
}

/* The call `op` of main(params) in OPC_MODULE_FMT, with the error cleared
 * and the context's build location at the call, as a graph pass sets it for
 * the op it works on.  NULL (printed) when the text does not read. */
static inline const MlcGExpr *opc_call_in(MlcCtx *ctx, const char *params, const char *op) {
  char src[4096];
  snprintf(src, sizeof src, OPC_MODULE_FMT, params, op);
  mlc_clear_error(ctx);
  ctx->build_loc = (MlcLoc){0};
  const MlcBinding *b = opc_binding(ctx, src);
  if (!b) {
    printf("    the module does not read:\n");
    opc_print_error(ctx);
    return NULL;
  }
  ctx->build_loc = (MlcLoc){b->loc.file, b->loc.line, OPC_CALL_COL};
  return b->value;
}

/* the struct info inferred for c printed into out, or "error: MESSAGE" when
 * inference (or, c NULL, reading) failed */
static inline const char *opc_infer_text(MlcCtx *ctx, const MlcGExpr *c, char *out, size_t cap) {
  MlcSInfo *s = c ? mlc_op_infer(ctx, c) : NULL;
  MlcStrBuf sb = {0};
  if (s) mlc_print_sinfo(s, &sb);
  else mlc_sb_printf(&sb, "error: %s", mlc_error_msg(ctx));
  snprintf(out, cap, "%s", mlc_sb_cstr(&sb));
  mlc_vec_free(&sb);
  return out;
}

/* the struct info inferred for c prints as want */
static inline bool opc_sinfo_is(MlcCtx *ctx, const MlcGExpr *c, const char *want) {
  char got[4096];
  bool ok = strcmp(opc_infer_text(ctx, c, got, sizeof got), want) == 0;
  if (!ok) printf("    sinfo: %s\n    want:  %s\n", got, want);
  return ok;
}

/* in a fresh context, the call op of main(params) infers struct info that
 * prints as want (or, want "error: MESSAGE", is refused with MESSAGE) */
static inline bool opc_infers(const char *params, const char *op, const char *want) {
  MlcCtx *ctx = mlc_ctx_new();
  bool ok = opc_sinfo_is(ctx, opc_call_in(ctx, params, op), want);
  mlc_ctx_free(ctx);
  return ok;
}
#define OPC_CHECK_INFER(params, op, want) CHECK(opc_infers(params, op, want))

/* Inference refuses c with msg (the whole message, or with part a part of
 * it) located at the call's line of OPC_FILE; prints what it got otherwise.
 * The error is cleared afterwards. */
static inline bool opc_refused(MlcCtx *ctx, const MlcGExpr *c, const char *msg, bool part) {
  if (!c) return false;
  mlc_clear_error(ctx);
  bool inferred = mlc_op_infer(ctx, c) != NULL;
  const char *got = mlc_error_msg(ctx);
  MlcLoc at = mlc_error_loc(ctx);
  bool ok = !inferred && (part ? strstr(got, msg) != NULL : strcmp(got, msg) == 0) &&
            at.line == OPC_CALL_LINE && at.file && strcmp(at.file, OPC_FILE) == 0;
  if (!ok)
    printf("    got:  %s (%s:%d)\n    want: %s (%s:%d)\n", inferred ? "no error" : got, at.file ? at.file : "?",
           at.line, msg, OPC_FILE, OPC_CALL_LINE);
  mlc_clear_error(ctx);
  return ok;
}

/* in a fresh context, inference refuses the call op of main(params) as
 * opc_refused says */
static inline bool opc_refuses(const char *params, const char *op, const char *msg, bool part) {
  MlcCtx *ctx = mlc_ctx_new();
  bool ok = opc_refused(ctx, opc_call_in(ctx, params, op), msg, part);
  mlc_ctx_free(ctx);
  return ok;
}
/* refused with exactly msg, or with a message containing part */
#define OPC_CHECK_REFUSED(params, op, msg) CHECK(opc_refuses(params, op, msg, false))
#define OPC_CHECK_REFUSED_PART(params, op, part) CHECK(opc_refuses(params, op, part, true))

/* the prim func c legalizes to prints and reads back structurally equal */
static inline bool opc_round_trips(MlcCtx *ctx, const MlcGExpr *c) {
  MlcPrimFunc *f = c ? mlc_op_to_prim_func(ctx, c, "op") : NULL;
  if (!f) {
    opc_print_error(ctx);
    return false;
  }
  MlcFunc fn = {.kind = MLC_FUNC_PRIM, .name = mlc_intern(ctx, "op"), .prim = f};
  MlcModule *m = mlc_module_new(ctx, "Module", &fn, 1, (MlcAttrs){0});
  MlcStrBuf sb = {0};
  if (m) mlc_print_module(m, &sb);
  MlcModule *back = m ? mlc_read_module(ctx, "printed.py", mlc_sb_cstr(&sb), sb.len) : NULL;
  bool ok = back && mlc_module_equal(m, back);
  if (!ok) {
    opc_print_error(ctx);
    printf("# printed prim func:\n%s", mlc_sb_cstr(&sb));
  }
  mlc_vec_free(&sb);
  return ok;
}

static inline void opc_store(MlcDType t, void *p, int64_t i, double v) {
  switch (t.code) {
  case MLC_TC_FLOAT:
    if (t.bits == 64) ((double *)p)[i] = v;
    else if (t.bits == 16) ((uint16_t *)p)[i] = mlc_f32_to_f16((float)v);
    else ((float *)p)[i] = (float)v;
    return;
  case MLC_TC_BFLOAT: ((uint16_t *)p)[i] = mlc_f32_to_bf16((float)v); return;
  case MLC_TC_BOOL: ((uint8_t *)p)[i] = v != 0; return;
  case MLC_TC_UINT:
    if (t.bits == 8) ((uint8_t *)p)[i] = (uint8_t)v;
    else if (t.bits == 16) ((uint16_t *)p)[i] = (uint16_t)v;
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
  case MLC_TC_FLOAT:
    if (t.bits == 16) return mlc_f16_to_f32(((const uint16_t *)p)[i]);
    return t.bits == 64 ? ((const double *)p)[i] : ((const float *)p)[i];
  case MLC_TC_BFLOAT: return mlc_bf16_to_f32(((const uint16_t *)p)[i]);
  case MLC_TC_BOOL: return ((const uint8_t *)p)[i];
  case MLC_TC_UINT:
    if (t.bits == 8) return ((const uint8_t *)p)[i];
    if (t.bits == 16) return ((const uint16_t *)p)[i];
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

/* opc_call_in, checking (CHECK) that the call's struct info prints as
 * want_sinfo and that its prim func round-trips */
static inline const MlcGExpr *opc_call_checked(MlcCtx *ctx, const char *params, const char *op,
                                               const char *want_sinfo) {
  const MlcGExpr *c = opc_call_in(ctx, params, op);
  CHECK(opc_sinfo_is(ctx, c, want_sinfo));
  CHECK(opc_round_trips(ctx, c));
  return c;
}

/* a buffer of the given shape over v (NULL: to be allocated or filled) */
static inline OpcBuf opc_buf(int ndim, const int64_t *shape, double *v) {
  OpcBuf b = {.ndim = ndim, .v = v};
  assert(ndim >= 0 && ndim <= OPC_MAX_NDIM);
  if (ndim > 0) memcpy(b.shape, shape, (size_t)ndim * sizeof *shape);
  return b;
}

/* allocate b's values (free with opc_free) and fill them from seed in
 * [lo, hi), rounded to float32, or down to integers when integral */
static inline void opc_fill_buf(OpcBuf *b, unsigned seed, double lo, double hi, bool integral) {
  int64_t n = opc_numel(b);
  b->v = malloc((size_t)(n ? n : 1) * sizeof *b->v);
  opc_fill(b->v, n, seed, lo, hi);
  for (int64_t i = 0; i < n; i++) b->v[i] = integral ? floor(b->v[i]) : (float)b->v[i];
}

/* a tensor of the given dims filled from seed in [-1, 1), values exactly float32 */
static inline OpcBuf opc_tensor(unsigned seed, int ndim, ...) {
  int64_t shape[OPC_MAX_NDIM];
  va_list ap;
  va_start(ap, ndim);
  for (int i = 0; i < ndim && i < OPC_MAX_NDIM; i++) shape[i] = va_arg(ap, int);
  va_end(ap);
  OpcBuf b = opc_buf(ndim, shape, NULL);
  opc_fill_buf(&b, seed, -1, 1, false);
  return b;
}

/* a random operand of a table row: seed and shape, filled as opc_tensor
 * fills it */
typedef struct OpcSpec {
  unsigned seed;
  int ndim;
  int64_t shape[OPC_MAX_NDIM];
} OpcSpec;

static inline OpcBuf opc_tensor_of(const OpcSpec *t) {
  OpcBuf b = opc_buf(t->ndim, t->shape, NULL);
  opc_fill_buf(&b, t->seed, -1, 1, false);
  return b;
}

#define OPC_MAX_OUTS 8

/* Run c on ins: its n_out outputs (shapes as want's) match want's values
 * within tol (opc_max_err).  Prints the error or the worst output. */
static inline bool opc_runs_like(MlcCtx *ctx, const MlcGExpr *c, const OpcBuf *ins, int n_in, const OpcBuf *want,
                                 int n_out, double tol) {
  OpcBuf outs[OPC_MAX_OUTS];
  assert(n_out <= OPC_MAX_OUTS);
  for (int i = 0; i < n_out; i++) outs[i] = opc_buf(want[i].ndim, want[i].shape, NULL);
  if (!c || !opc_run(ctx, c, ins, n_in, outs, n_out)) {
    opc_print_error(ctx);
    return false;
  }
  bool ok = true;
  for (int i = 0; i < n_out; i++) {
    double err = opc_max_err(outs[i].v, want[i].v, opc_numel(&want[i]));
    if (!(err <= tol)) printf("    output %d: max relative error %g (tolerance %g)\n", i, err, tol);
    ok = ok && err <= tol;
  }
  opc_free(outs, n_out);
  return ok;
}

/* the whole check of one call of main(params), in a fresh context: it
 * reads, its prim func round-trips, and run on ins it computes want */
static inline void opc_check_run(const char *params, const char *op, const OpcBuf *ins, int n_in, const OpcBuf *want,
                                 int n_out, double tol) {
  MlcCtx *ctx = mlc_ctx_new();
  const MlcGExpr *c = opc_call_in(ctx, params, op);
  CHECK(c != NULL);
  if (c) CHECK(opc_round_trips(ctx, c));
  CHECK(opc_runs_like(ctx, c, ins, n_in, want, n_out, tol));
  mlc_ctx_free(ctx);
}

/* row-major index arithmetic for the references: the index of flat in
 * shape, and back */
static inline void opc_unravel(int64_t flat, const int64_t *shape, int nd, int64_t *idx) {
  for (int k = nd - 1; k >= 0; k--) idx[k] = flat % shape[k], flat /= shape[k];
}

static inline int64_t opc_ravel(const int64_t *idx, const int64_t *shape, int nd) {
  int64_t f = 0;
  for (int k = 0; k < nd; k++) f = f * shape[k] + idx[k];
  return f;
}

#endif
