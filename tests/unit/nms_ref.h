/* nms_ref.h - ONNX NonMaxSuppression's greedy selection written plainly,
 * the oracle of test_ops_nms.c and test_onnx_nms.c: per batch and class,
 * the candidates above the score threshold (all without one) sorted by
 * score, highest first and equal scores by index; each taken unless a box
 * taken before overlaps it by an IoU above the threshold; at most max_out
 * per class.  The IoU is float32 arithmetic as in ONNX's reference:
 * [y1, x1, y2, x2] corners in either order, or [x, y, w, h] around the
 * centre; boxes that do not intersect, or where an area or the union is not
 * positive, never suppress. */
#ifndef MLCC_TESTS_NMS_REF_H
#define MLCC_TESTS_NMS_REF_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

/* box p suppresses or is suppressed by q at thr */
static inline bool nmsref_overlaps(const float *p, const float *q, bool centre, float thr) {
  float e[2][4]; /* x0, x1, y0, y1 of each box */
  const float *bx[2] = {p, q};
  for (int k = 0; k < 2; k++) {
    const float *v = bx[k];
    if (centre) {
      e[k][0] = v[0] - v[2] / 2, e[k][1] = v[0] + v[2] / 2, e[k][2] = v[1] - v[3] / 2, e[k][3] = v[1] + v[3] / 2;
    } else {
      e[k][0] = fminf(v[1], v[3]), e[k][1] = fmaxf(v[1], v[3]), e[k][2] = fminf(v[0], v[2]), e[k][3] = fmaxf(v[0], v[2]);
    }
  }
  float ix0 = fmaxf(e[0][0], e[1][0]), ix1 = fminf(e[0][1], e[1][1]);
  float iy0 = fmaxf(e[0][2], e[1][2]), iy1 = fminf(e[0][3], e[1][3]);
  if (ix1 <= ix0 || iy1 <= iy0) return false;
  float inter = (ix1 - ix0) * (iy1 - iy0);
  float a1 = (e[0][1] - e[0][0]) * (e[0][3] - e[0][2]), a2 = (e[1][1] - e[1][0]) * (e[1][3] - e[1][2]);
  float uni = a1 + a2 - inter;
  if (inter <= 0 || a1 <= 0 || a2 <= 0 || uni <= 0) return false;
  return inter / uni > thr;
}

/* boxes (B, N, 4), scores (B, C, N); for each (b, c), sel[(b * C + c) * N + j]
 * is the j-th box taken, then -1; returns the number taken in all */
static inline int64_t nmsref_select(const float *boxes, const float *scores, int B, int C, int N, int64_t max_out,
                                    float thr, bool has_score, float sthr, bool centre, int64_t *sel) {
  int *cand = malloc(sizeof *cand * (size_t)(N ? N : 1));
  int64_t total = 0;
  for (int b = 0; b < B; b++)
    for (int c = 0; c < C; c++) {
      const float *s = &scores[((size_t)b * C + c) * N];
      int64_t *taken = &sel[((size_t)b * C + c) * N];
      int nc = 0, nt = 0;
      for (int i = 0; i < N; i++)
        if (!has_score || s[i] > sthr) cand[nc++] = i;
      for (int i = 1; i < nc; i++) /* stable: an equal score keeps its place */
        for (int j = i; j > 0 && s[cand[j - 1]] < s[cand[j]]; j--) {
          int t = cand[j];
          cand[j] = cand[j - 1], cand[j - 1] = t;
        }
      for (int k = 0; k < nc && nt < max_out; k++) {
        bool keep = true;
        for (int t = 0; t < nt && keep; t++)
          keep = !nmsref_overlaps(&boxes[((size_t)b * N + cand[k]) * 4], &boxes[((size_t)b * N + taken[t]) * 4], centre, thr);
        if (keep) taken[nt++] = cand[k];
      }
      for (int j = nt; j < N; j++) taken[j] = -1;
      total += nt;
    }
  free(cand);
  return total;
}

#endif
