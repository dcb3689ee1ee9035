/* omp_region.c - the cost of an empty OpenMP parallel region, the peer our
 * thread pool's empty parallel_for is compared with in bench.c.
 *
 * It lives in its own file because it alone is compiled with -fopenmp: the
 * rest of the benchmark must not pull OpenMP's threads into the matmul
 * timings. */
#include <omp.h>
#include <time.h>

double bench_omp_region_us(int threads, long calls);

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* mean microseconds per empty `omp parallel` region over `calls` regions,
 * after as many warm-up regions (the first one starts the team).  The body
 * holds an empty asm statement only because the compiler deletes a region
 * whose body is literally empty; it emits no instruction. */
double bench_omp_region_us(int threads, long calls) {
  omp_set_num_threads(threads);
  for (long i = 0; i < calls; i++) {
#pragma omp parallel
    {
      __asm__ __volatile__("");
    }
  }
  double t0 = now_s();
  for (long i = 0; i < calls; i++) {
#pragma omp parallel
    {
      __asm__ __volatile__("");
    }
  }
  return (now_s() - t0) / (double)calls * 1e6;
}
