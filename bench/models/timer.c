/* timer.c - mlcc's half of the model benchmark: load a compiled model folder
 * with the runtime alone, bind its inputs from an .npz by name, run it once
 * to warm up, then REPS times, and print every run's time in milliseconds on
 * one line ("ms T1 T2 ...") for run.sh to pool with the other rounds.
 * It runs at least MIN_REPS times and goes on while the runs so far took
 * less than BUDGET_MS (at most 10000 runs).
 *
 * `mlcc run DIR --time` calibrates and repeats until each sample takes 100 ms
 * (ten samples), which for a model that takes seconds per inference is far
 * more runs than the interleaved rounds can afford; this driver bounds the
 * time instead, so fast models get many samples and slow ones a few.  Threads: the runtime's pool gets THREADS;
 * OpenBLAS, which the runtime reaches for large matrix products, reads
 * OPENBLAS_NUM_THREADS, which run.sh sets.
 *
 * Usage: timer DIR IN.npz THREADS BUDGET_MS MIN_REPS */

enum { MAX_REPS = 10000 };
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mlcc/runtime.h"

/* MLC_BENCH_CLOCK=cpu: the process's CPU time instead of the wall clock
 * (run.sh's CLOCK setting) */
static clockid_t clock_id = CLOCK_MONOTONIC;

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(clock_id, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static int fail(const char *what) {
  fprintf(stderr, "timer: %s: %s\n", what, mlcrt_last_error());
  return 1;
}

int main(int argc, char **argv) {
  if (argc != 6) {
    fprintf(stderr, "usage: timer DIR IN.npz THREADS BUDGET_MS MIN_REPS\n");
    return 2;
  }
  const char *clock_name = getenv("MLC_BENCH_CLOCK");
  if (clock_name && strcmp(clock_name, "cpu") == 0) clock_id = CLOCK_PROCESS_CPUTIME_ID;
  int threads = atoi(argv[3]), min_reps = atoi(argv[5]);
  double budget = atof(argv[4]);
  if (threads < 1 || min_reps < 1 || min_reps > MAX_REPS || !(budget >= 0)) {
    fprintf(stderr, "timer: THREADS and MIN_REPS must be in [1, %d], BUDGET_MS >= 0\n", MAX_REPS);
    return 2;
  }
  MlcrtModel *model;
  MlcrtNpz *npz;
  if (mlcrt_model_load(argv[1], &model) != 0) return fail(argv[1]);
  if (mlcrt_npz_load(argv[2], &npz) != 0) return fail(argv[2]);
  if (mlcrt_threads_set(threads) != 0) return fail("threads");
  const MlcrtModelDesc *d = mlcrt_model_desc(model);
  DLTensor **inputs = calloc((size_t)d->n_inputs + 1, sizeof *inputs);
  DLTensor **outputs = calloc((size_t)d->n_outputs + 1, sizeof *outputs);
  double *ms = calloc(MAX_REPS, sizeof *ms);
  if (!inputs || !outputs || !ms) return fail("out of memory");
  for (int32_t i = 0; i < d->n_inputs; i++) {
    MlcrtTensor *t = mlcrt_npz_get(npz, d->inputs[i].name);
    if (!t) return fail(argv[2]);
    inputs[i] = &t->dl;
  }
  if (mlcrt_model_run(model, inputs, d->n_inputs, outputs, d->n_outputs) != 0) return fail("run");
  int reps = 0;
  double spent = 0;
  while (reps < MAX_REPS && (reps < min_reps || spent < budget)) {
    double t0 = now_ms();
    if (mlcrt_model_run(model, inputs, d->n_inputs, outputs, d->n_outputs) != 0) return fail("run");
    ms[reps] = now_ms() - t0;
    spent += ms[reps++];
  }
  printf("ms");
  for (int r = 0; r < reps; r++) printf(" %.4f", ms[r]);
  printf("\n");
  free(ms);
  free(inputs);
  free(outputs);
  mlcrt_npz_free(npz);
  mlcrt_model_free(model);
  return 0;
}
