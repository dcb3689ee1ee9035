/* rand_util.h - what the tests that run whole prim funcs on random inputs
 * share (test_compile.c, test_lower.c): the random generator and input
 * filler, the shapes of a function's buffers for given symbolic sizes, the
 * comparison of a buffer's results with a reference run, and the work
 * estimate that decides which programs the sanitizer builds skip.
 *
 * Header-only (static inline functions), since each test is one program.  A test
 * may define RAND_UTIL_SEED before including it to get its own stream. */
#ifndef MLCC_TEST_RAND_UTIL_H
#define MLCC_TEST_RAND_UTIL_H

#include "mlcc/ir.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#if defined(__SANITIZE_ADDRESS__)
#define UNDER_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_SANITIZER 1
#endif
#endif
#ifndef UNDER_SANITIZER
#define UNDER_SANITIZER 0
#endif
/* interpreted iterations above which a sanitizer build skips a program */
#define SAN_WORK 20000000.0

#ifndef RAND_UTIL_SEED
#define RAND_UTIL_SEED 0x243f6a8885a308d3ull
#endif

static uint64_t rand_util_state = RAND_UTIL_SEED;

/* uniform in [0, 1) */
static inline double urand(void) {
  rand_util_state = rand_util_state * 6364136223846793005ull + 1442695040888963407ull;
  return (double)(rand_util_state >> 11) / 9007199254740992.0;
}

/* the dtypes fill_random can generate */
static inline bool supported(MlcDType t) {
  if (t.lanes != 1) return false;
  if (t.code == MLC_TC_FLOAT) return t.bits == 32 || t.bits == 64;
  return t.code == MLC_TC_INT || t.code == MLC_TC_UINT || t.code == MLC_TC_BOOL || mlc_dtype_is_minifloat(t);
}

/* count random elements of dtype t: floats in [-1, 1), integers in
 * [-50, 50) but never zero (the programs divide by their inputs), uints
 * their absolute values, bools half and half; 4- and 2-bit integers
 * anywhere in their ranges but zero, the 8- and 4-bit floats any code */
static inline void fill_random(MlcDType t, void *p, size_t count) {
  for (size_t i = 0; i < count; i++) {
    double u = urand();
    int64_t k = (int64_t)(u * 100) - 50;
    if (k == 0) k = 7;
    switch (t.code) {
    case MLC_TC_FLOAT:
      if (t.bits == 64) ((double *)p)[i] = u * 2 - 1;
      else ((float *)p)[i] = (float)(u * 2 - 1);
      break;
    case MLC_TC_BOOL: ((uint8_t *)p)[i] = u < 0.5; break;
    MLC_TC_MINIFLOAT_CASES: ((uint8_t *)p)[i] = (uint8_t)((int)(u * 256) & ((1 << t.bits) - 1)); break;
    case MLC_TC_UINT: k = k < 0 ? -k : k; /* fall through */
    default:
      if (t.bits < 8) { /* one per byte: 1 .. 2^bits - 1, or -2^(bits-1) .. 2^(bits-1) - 1 without 0 */
        int span = 1 << t.bits;
        k = t.code == MLC_TC_UINT ? 1 + (int64_t)(u * (span - 1)) : (int64_t)(u * span) - span / 2;
        ((int8_t *)p)[i] = (int8_t)(k ? k : 1);
      } else if (t.bits == 8) ((int8_t *)p)[i] = (int8_t)k;
      else if (t.bits == 16) ((int16_t *)p)[i] = (int16_t)k;
      else if (t.bits == 32) ((int32_t *)p)[i] = (int32_t)k;
      else ((int64_t *)p)[i] = k;
    }
  }
}

/* The shape of buffer b: constant dims as they are, the k-th distinct size
 * var met (over all calls sharing syms / *nsyms, up to max_syms) gets
 * sizes[k].  *count gets the element count.  False for a dim that is an
 * expression, or a size var beyond max_syms. */
static inline bool buffer_shape(const MlcBuffer *b, const int64_t *sizes, const MlcExpr **syms, int *nsyms,
                                int max_syms, int64_t *shape, size_t *count) {
  *count = 1;
  for (int d = 0; d < b->ndim; d++) {
    const MlcExpr *dim = b->shape[d];
    int64_t v = dim->kind == MLC_EXPR_INT ? dim->int_val : -1;
    for (int k = 0; dim->kind == MLC_EXPR_VAR && k <= *nsyms && k < max_syms; k++)
      if (k == *nsyms || syms[k] == dim) {
        if (k == *nsyms) syms[(*nsyms)++] = dim;
        v = sizes[k];
        break;
      }
    if (v < 0) return false;
    shape[d] = v;
    *count *= (size_t)v;
  }
  return true;
}

/* Where two runs' contents of a buffer part: the element and both values. */
typedef struct RandDiff {
  size_t index;
  double got, want;
} RandDiff;

/* Do got and want (bytes each, elements of dtype t) agree?  Integers and
 * bools bitwise; floats within atol + rtol * |want|, NaN matching NaN.
 * *inexact (may be NULL) counts float elements that agree but not bitwise.
 * When they do not agree, *diff names the first element that differs
 * (got == want == 0 for an integer buffer, whose element is not decoded). */
static inline bool same_buffer(MlcDType t, const void *got, const void *want, size_t bytes, double rtol, double atol,
                               long *inexact, RandDiff *diff) {
  if (!memcmp(got, want, bytes)) return true;
  *diff = (RandDiff){0, 0, 0};
  if (mlc_dtype_is_minifloat(t)) { /* the same codes, any NaN matching any NaN */
    for (size_t k = 0; k < bytes; k++) {
      double g = mlc_minifloat_decode(t, ((const uint8_t *)got)[k]), w = mlc_minifloat_decode(t, ((const uint8_t *)want)[k]);
      if (((const uint8_t *)got)[k] != ((const uint8_t *)want)[k] && !(isnan(g) && isnan(w))) {
        *diff = (RandDiff){k, g, w};
        return false;
      }
    }
    return true;
  }
  if (!mlc_dtype_is_float(t)) return false;
  size_t count = bytes / mlc_dtype_bytes(t);
  for (size_t k = 0; k < count; k++) {
    double g = t.bits == 64 ? ((const double *)got)[k] : ((const float *)got)[k];
    double w = t.bits == 64 ? ((const double *)want)[k] : ((const float *)want)[k];
    if (g == w || (isnan(g) && isnan(w))) continue;
    if (!(fabs(g - w) <= atol + rtol * fabs(w))) {
      *diff = (RandDiff){k, g, w};
      return false;
    }
    if (inexact) (*inexact)++;
  }
  return true;
}

/* Iterations of the innermost statements, roughly: constant extents
 * multiplied along the nesting, symbolic ones counted as 16. */
static inline double work(const MlcStmt *s) {
  int64_t n;
  double w = 0;
  if (!s) return 0;
  switch (s->kind) {
  case MLC_STMT_FOR: return (mlc_e_is_const_int(s->loop.extent, &n) ? (double)n : 16) * work(s->loop.body);
  case MLC_STMT_BLOCK_REALIZE: return work(s->realize.block->init) + work(s->realize.block->body);
  case MLC_STMT_SEQ:
    for (int i = 0; i < s->seq.n; i++) w += work(s->seq.items[i]);
    return w;
  case MLC_STMT_IF: return work(s->if_.then_s) + work(s->if_.else_s);
  case MLC_STMT_LET: return work(s->let.body);
  case MLC_STMT_ALLOCATE: return work(s->alloc.body);
  case MLC_STMT_STORE: case MLC_STMT_EVALUATE: return 1;
  }
  return 1;
}

#endif
