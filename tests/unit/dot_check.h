/* dot_check.h - what the tests of the byte dot-product forms share
 * (test_sch_dot.c: 4-interleaved, vpdpbusd; test_sch_dot_pair.c:
 * 2-interleaved, vpmaddwd): a case (lanes, M x N x K, which data), the
 * data (uint8 activations, int8 weights, the weights packed G-interleaved
 * as the intrinsic reads them, and the plain C matmul of the unpacked
 * ones), the interpreter's run, and counting an instruction in a built
 * shared object.  Include after check.h, build_util.h and rand_util.h;
 * the test defines `ctx` and DOT_GROUP (the bytes per int32 lane). */
#ifndef MLCC_TEST_DOT_CHECK_H
#define MLCC_TEST_DOT_CHECK_H

#include "mlcc/interp.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct Case {
  int lanes, m, n, k;
  int fill; /* 0: random (extremes at the start), 1: 255 x -128 everywhere, 2: 255 x 127, 3: 0 x -128 */
} Case;

static bool holds_text(const MlcModule *m, const char *what) {
  MlcStrBuf sb = {0};
  mlc_print_module(m, &sb);
  bool found = strstr(mlc_sb_cstr(&sb), what) != NULL;
  mlc_vec_free(&sb);
  return found;
}

typedef struct Data {
  uint8_t *a;
  int8_t *w, *packed;
  int32_t *want;
} Data;

static void make_data(const Case *c, Data *d) {
  int M = c->m, N = c->n, K = c->k, L = c->lanes;
  d->a = malloc((size_t)M * K);
  d->w = malloc((size_t)K * N);
  d->packed = malloc((size_t)K * N);
  d->want = malloc((size_t)M * N * sizeof *d->want);
  for (int i = 0; i < M * K; i++) d->a[i] = c->fill == 3 ? 0 : c->fill ? 255 : (uint8_t)(urand() * 256);
  for (int i = 0; i < K * N; i++)
    d->w[i] = c->fill == 1 || c->fill == 3 ? -128 : c->fill == 2 ? 127 : (int8_t)((int)(urand() * 256) - 128);
  if (!c->fill) d->a[0] = 255, d->a[1] = 255, d->w[0] = -128, d->w[N] = -128, d->a[2] = 0, d->w[1] = 127;
  /* the packed copy only where the shape has whole groups and vectors */
  const int G = DOT_GROUP;
  for (int k = 0; k < K && N % L == 0 && K % G == 0; k++)
    for (int j = 0; j < N; j++) d->packed[((size_t)(j / L) * (K / G) + k / G) * L * G + j % L * G + k % G] = d->w[k * N + j];
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++) {
      int64_t s = 0;
      for (int k = 0; k < K; k++) s += (int64_t)d->a[i * K + k] * d->w[k * N + j];
      d->want[i * N + j] = (int32_t)s;
    }
}

static void free_data(Data *d) { free(d->a), free(d->w), free(d->packed), free(d->want); }

static bool same(const char *what, const Case *c, const int32_t *got, const int32_t *want) {
  for (int i = 0; i < c->m * c->n; i++)
    if (got[i] != want[i]) {
      printf("    %s (L %d, %dx%dx%d): C[%d] is %d, the plain C matmul says %d\n", what, c->lanes, c->m, c->n, c->k, i,
             got[i], want[i]);
      return false;
    }
  return true;
}

static bool run_interp(const Case *c, const MlcModule *m, const Data *d) {
  int32_t *out = calloc((size_t)c->m * c->n, sizeof *out);
  int64_t sa[2] = {c->m, c->k}, sb[3] = {c->n / c->lanes, c->k / DOT_GROUP, c->lanes * DOT_GROUP}, sc[2] = {c->m, c->n};
  MlcInterpArg args[3] = {{.is_buffer = true, .data = d->a, .ndim = 2, .shape = sa},
                          {.is_buffer = true, .data = d->packed, .ndim = 3, .shape = sb},
                          {.is_buffer = true, .data = out, .ndim = 2, .shape = sc}};
  mlc_clear_error(ctx);
  bool ok = mlc_interp_run(ctx, mlc_module_find(m, mlc_intern(ctx, "mm"))->prim, args, 3);
  if (!ok) bu_print_error(ctx, "interpreter");
  ok = ok && same("interpreted", c, out, d->want);
  free(out);
  return ok;
}

/* how many times objdump finds insn in the shared object; -1 when objdump
 * cannot be run */
static int count_insn(const char *so, const char *insn) {
  char cmd[8400];
  snprintf(cmd, sizeof cmd, "objdump -d '%s' 2>/dev/null | grep -c %s", so, insn);
  FILE *p = popen(cmd, "r");
  int n = -1;
  if (p && fscanf(p, "%d", &n) != 1) n = -1;
  if (p) pclose(p);
  return n;
}

#endif
