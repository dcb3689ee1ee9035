/* lower_check.h - what the tests of single lowering stages share
 * (test_lower_pad.c, test_lower_interchange.c): random float32 arguments for
 * a function of 2-d buffers of constant shape, and the check that a
 * function after some lowering stage (interpreted) and the module compiled
 * to C through the whole pipeline give the reference interpreter's results
 * on the original function.
 *
 * Header-only (static inline functions) like build_util.h, since each test
 * is one program; every function takes the test's context explicitly. */
#ifndef MLCC_TEST_LOWER_CHECK_H
#define MLCC_TEST_LOWER_CHECK_H

#include "build_util.h"
#include "mlcc/interp.h"

#include <math.h>

enum { LC_MAX_ARGS = 4 };

typedef struct LcArgs {
  int n;
  int64_t shape[LC_MAX_ARGS][2];
  size_t numel[LC_MAX_ARGS];
  float *data[LC_MAX_ARGS];
} LcArgs;

static inline const MlcPrimFunc *lc_only_prim(const MlcModule *m) {
  for (int i = 0; m && i < m->n_funcs; i++)
    if (m->funcs[i].kind == MLC_FUNC_PRIM) return m->funcs[i].prim;
  return NULL;
}

static inline float lc_frand(uint64_t *rng) {
  *rng = *rng * 6364136223846793005ull + 1442695040888963407ull;
  return (float)((double)(*rng >> 40) / (double)(1 << 24) * 2 - 1);
}

/* every param of f a 2-d float32 buffer of constant shape, filled at random */
static inline bool lc_make_args(const MlcPrimFunc *f, LcArgs *a) {
  static uint64_t rng = 0x9e3779b97f4a7c15ull;
  *a = (LcArgs){.n = f->n_params};
  for (int p = 0; p < f->n_params; p++) {
    const MlcBuffer *b = f->params[p].buf;
    if (p >= LC_MAX_ARGS || !b || b->ndim != 2) return false;
    a->numel[p] = 1;
    for (int d = 0; d < 2; d++) {
      if (!mlc_e_is_const_int(b->shape[d], &a->shape[p][d])) return false;
      a->numel[p] *= (size_t)a->shape[p][d];
    }
    a->data[p] = malloc(a->numel[p] * sizeof(float));
    for (size_t i = 0; i < a->numel[p]; i++) a->data[p][i] = lc_frand(&rng);
  }
  return true;
}

static inline float **lc_copy_data(const LcArgs *a) {
  float **c = calloc(LC_MAX_ARGS, sizeof *c);
  for (int p = 0; p < a->n; p++) {
    c[p] = malloc(a->numel[p] * sizeof(float));
    memcpy(c[p], a->data[p], a->numel[p] * sizeof(float));
  }
  return c;
}

static inline void lc_free_data(float **d, int n) {
  for (int p = 0; p < n; p++) free(d[p]);
  free(d);
}

static inline bool lc_interp(MlcCtx *ctx, const MlcPrimFunc *sig, const MlcPrimFunc *f, const LcArgs *a, float **data) {
  MlcInterpArg args[LC_MAX_ARGS];
  for (int p = 0; p < a->n; p++) args[p] = (MlcInterpArg){.is_buffer = true, .data = data[p], .ndim = 2, .shape = a->shape[p]};
  mlc_clear_error(ctx);
  bool ok = mlc_interp_run_lowered(ctx, sig, f, args, a->n);
  if (!ok) bu_print_error(ctx, "interpreting");
  return ok;
}

/* m built without contraction (so results compare with the interpreter's
 * step-by-step rounding) and called at the given thread count */
static inline bool lc_compiled(MlcCtx *ctx, const char *tmpdir, const MlcModule *m, const LcArgs *a, float **data,
                               int threads) {
  MlcBuildOptions opt = {.extra_cflags = "-ffp-contract=off"};
  MlcrtModule *mod = bu_build_and_load(ctx, m, tmpdir, "case", &opt);
  if (!mod) return false;
  const MlcrtFunc *fn = mlcrt_module_get_func(mod, lc_only_prim(m)->name);
  MlcrtTensor *t[LC_MAX_ARGS] = {0};
  DLTensor *dl[LC_MAX_ARGS];
  bool ok = fn != NULL;
  for (int p = 0; ok && p < a->n; p++) {
    ok = mlcrt_tensor_create(2, a->shape[p], mlcrt_dtype(kDLFloat, 32), &t[p]) == 0;
    if (ok) memcpy(t[p]->dl.data, data[p], a->numel[p] * sizeof(float)), dl[p] = &t[p]->dl;
  }
  mlcrt_threads_set(threads);
  if (ok && mlcrt_func_call_tensors(fn, dl, a->n) != 0) printf("    call: %s\n", mlcrt_last_error()), ok = false;
  mlcrt_threads_set(1);
  for (int p = 0; p < a->n; p++) {
    if (ok) memcpy(data[p], t[p]->dl.data, a->numel[p] * sizeof(float));
    if (t[p]) mlcrt_tensor_free(t[p]);
  }
  mlcrt_module_free(mod);
  return ok;
}

static inline bool lc_same_data(const LcArgs *a, float **x, float **y, const char *what) {
  for (int p = 0; p < a->n; p++)
    for (size_t i = 0; i < a->numel[p]; i++)
      if (!(fabs((double)x[p][i] - y[p][i]) <= 1e-5 * fabs((double)y[p][i]) + 1e-6)) {
        printf("    %s: param %d element %zu: %g, interpreter %g\n", what, p, i, x[p][i], y[p][i]);
        return false;
      }
  return true;
}

/* low (m's function after some stage, interpreted) and m compiled agree
 * with the interpreter running m's function as written */
static inline bool lc_agrees(MlcCtx *ctx, const char *tmpdir, const MlcModule *m, const MlcPrimFunc *low, int threads) {
  const MlcPrimFunc *f = lc_only_prim(m);
  LcArgs a;
  bool ok = lc_make_args(f, &a);
  float **ref = lc_copy_data(&a), **lowered = lc_copy_data(&a), **built = lc_copy_data(&a);
  ok = ok && lc_interp(ctx, f, f, &a, ref) && lc_interp(ctx, f, low, &a, lowered) &&
       lc_same_data(&a, lowered, ref, "lowered") && lc_compiled(ctx, tmpdir, m, &a, built, threads) &&
       lc_same_data(&a, built, ref, "compiled");
  lc_free_data(ref, a.n);
  lc_free_data(lowered, a.n);
  lc_free_data(built, a.n);
  for (int p = 0; p < a.n; p++) free(a.data[p]);
  return ok;
}

#endif
