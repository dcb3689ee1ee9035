/* cost_model.c - the learned cost model: gradient-boosted trees through
 * XGBoost's C API (Debian's libxgboost-dev).
 *
 * It learns a score per candidate (the task's best time over the
 * candidate's, so 1 is the best seen and slow ones tend to 0) from the
 * features of features.c, and is retrained from all samples after every
 * round of measurements (mlc_tune_model_fit): the data is small (hundreds of rows), a fresh
 * fit takes milliseconds, and a model trained on all of it is the same
 * whatever the order of rounds.  One thread and a fixed seed keep it
 * deterministic. */
#include "mlcc/tune.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xgboost/c_api.h>

#define NOLOC ((MlcLoc){0})
enum { ROUNDS = 40 };

struct MlcTuneModel {
  BoosterHandle booster;
  uint64_t seed;
};

const char *mlc_tune_model_name(void) { return "xgboost"; }

MlcTuneModel *mlc_tune_model_new(uint64_t seed) {
  MlcTuneModel *m = mlc_xcalloc(1, sizeof *m);
  m->seed = seed;
  return m;
}

void mlc_tune_model_free(MlcTuneModel *m) {
  if (!m) return;
  if (m->booster) XGBoosterFree(m->booster);
  free(m);
}

static bool xgb_failed(MlcCtx *ctx, const char *what) {
  return mlc_error(ctx, NOLOC, "cost model: %s: %s", what, XGBGetLastError());
}

static bool matrix(MlcCtx *ctx, const float *x, int n, DMatrixHandle *out) {
  if (XGDMatrixCreateFromMat(x, (bst_ulong)n, MLC_TUNE_N_FEATURES, -1e30f, out) != 0) return xgb_failed(ctx, "matrix");
  return true;
}

bool mlc_tune_model_fit(MlcCtx *ctx, MlcTuneModel *m, const float *x, const float *y, int n) {
  int rows = n;
  if (rows < 2) return true;
  DMatrixHandle d;
  if (!matrix(ctx, x, rows, &d)) return false;
  BoosterHandle b = NULL;
  char seed[32];
  snprintf(seed, sizeof seed, "%llu", (unsigned long long)(m->seed % 1000000007u));
  bool ok = XGDMatrixSetFloatInfo(d, "label", y, (bst_ulong)rows) == 0 && XGBoosterCreate(&d, 1, &b) == 0 &&
            XGBoosterSetParam(b, "objective", "reg:squarederror") == 0 && XGBoosterSetParam(b, "max_depth", "6") == 0 &&
            XGBoosterSetParam(b, "eta", "0.3") == 0 && XGBoosterSetParam(b, "min_child_weight", "0") == 0 &&
            XGBoosterSetParam(b, "nthread", "1") == 0 && XGBoosterSetParam(b, "seed", seed) == 0 &&
            XGBoosterSetParam(b, "verbosity", "0") == 0;
  for (int it = 0; ok && it < ROUNDS; it++) ok = XGBoosterUpdateOneIter(b, it, d) == 0;
  XGDMatrixFree(d);
  if (!ok) {
    if (b) XGBoosterFree(b);
    return xgb_failed(ctx, "training");
  }
  if (m->booster) XGBoosterFree(m->booster);
  m->booster = b;
  return true;
}

bool mlc_tune_model_predict(MlcCtx *ctx, MlcTuneModel *m, const float *x, int n, float *out) {
  if (!m->booster || n <= 0) {
    for (int i = 0; i < n; i++) out[i] = 0;
    return true;
  }
  DMatrixHandle d;
  if (!matrix(ctx, x, n, &d)) return false;
  bst_ulong len = 0;
  const float *p = NULL;
  bool ok = XGBoosterPredict(m->booster, d, 0, 0, 0, &len, &p) == 0 && len == (bst_ulong)n;
  if (ok) memcpy(out, p, sizeof *out * (size_t)n);
  XGDMatrixFree(d);
  return ok ? true : xgb_failed(ctx, "prediction");
}
