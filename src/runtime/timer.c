/* timer.c - the time evaluator the tuner and benchmarks measure with.
 *
 * One call of a fast kernel is below the clock's resolution and noise, so
 * calls are timed in batches of `number`; the batch size is first raised
 * until a batch takes min_repeat_ms, and those calibration runs double as a
 * warm-up.  Each of `repeat` batches then gives one per-call time, and the
 * statistics are over those. */
/* a POSIX call (clock_gettime) is used: say so here, since the runtime is
 * also compiled outside this project's build */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include <stdlib.h>
#include <time.h>

#include "rt.h"

/* bounds that keep counts and their products far from overflow */
#define MAX_NUMBER ((int64_t)1 << 40)
#define MAX_REPEAT 1000000

double mlcrt__now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* seconds for `number` calls, or a negative value after a failing call */
static double time_batch(int32_t (*fn)(void *), void *closure, int64_t number, int32_t *rc) {
  double t0 = mlcrt__now_s();
  for (int64_t i = 0; i < number; i++)
    if ((*rc = fn(closure)) != 0) return -1;
  return mlcrt__now_s() - t0;
}

/* raise *number until one batch takes at least min_s */
static int calibrate(int32_t (*fn)(void *), void *closure, int64_t *number, double min_s) {
  int32_t rc = 0;
  for (;;) {
    double t = time_batch(fn, closure, *number, &rc);
    if (rc) return rc;
    if (t >= min_s || *number >= MAX_NUMBER) return 0;
    /* aim a little past the target, at least doubling, so this ends in a few rounds */
    double scale = t > 0 ? min_s * 1.2 / t : 16;
    double next = (double)*number * (scale < 2 ? 2 : scale > 1e6 ? 1e6 : scale);
    *number = next > (double)MAX_NUMBER ? MAX_NUMBER : (int64_t)next;
  }
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static void summarize(double *per_call, int32_t repeat, MlcrtTimes *out) {
  double sum = 0;
  for (int32_t i = 0; i < repeat; i++) sum += per_call[i];
  qsort(per_call, (size_t)repeat, sizeof *per_call, cmp_double);
  out->mean = sum / repeat;
  out->min = per_call[0];
  out->max = per_call[repeat - 1];
  out->median = repeat % 2 ? per_call[repeat / 2] : (per_call[repeat / 2 - 1] + per_call[repeat / 2]) / 2;
}

int mlcrt_time_eval(int32_t (*fn)(void *closure), void *closure, int64_t number, int32_t repeat,
                    double min_repeat_ms, MlcrtTimes *out) {
  if (!fn || !out) return mlcrt_set_error("time_eval: fn or out is NULL");
  if (number < 1 || number > MAX_NUMBER || repeat < 1 || repeat > MAX_REPEAT)
    return mlcrt_set_error("time_eval: number %lld and repeat %d must be in [1, %lld] and [1, %d]",
                           (long long)number, repeat, (long long)MAX_NUMBER, MAX_REPEAT);
  if (!(min_repeat_ms >= 0) || min_repeat_ms > 1e7)
    return mlcrt_set_error("time_eval: min_repeat_ms %g outside [0, 1e7]", min_repeat_ms);
  int32_t rc = 0;
  if (min_repeat_ms > 0 && (rc = calibrate(fn, closure, &number, min_repeat_ms * 1e-3)) != 0) return rc;
  double *per_call = malloc((size_t)repeat * sizeof *per_call);
  if (!per_call) return mlcrt_set_error("time_eval: out of memory");
  for (int32_t r = 0; r < repeat; r++) {
    double t = time_batch(fn, closure, number, &rc);
    if (rc) {
      free(per_call);
      return rc;
    }
    per_call[r] = t / (double)number;
  }
  summarize(per_call, repeat, out);
  out->number = number;
  out->repeat = repeat;
  free(per_call);
  return 0;
}
