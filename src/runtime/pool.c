/* pool.c - the persistent thread pool behind parallel_for.
 *
 * Kernels call parallel_for for every parallel loop, often on small loops, so
 * a region must cost microseconds: workers are created once and wait on a
 * generation counter, polling briefly before they sleep on a condition
 * variable, and the caller publishes a job by bumping the counter and runs
 * the first range itself.  Polling is bounded in time, not iterations (a
 * pause instruction costs anywhere from 10 to 150 cycles), and after a few
 * polls it yields the CPU: when threads outnumber free cores, the thread
 * being waited for needs the core the poller holds.  Ranges are static
 * (thread t gets the t-th of T contiguous slices), which is what the
 * generated loops assume and needs no shared cursor.  Completion is one counter every worker decrements after
 * reading the job, so a job's fields are never rewritten while still read.
 *
 * Sleeping and waking use the usual store-then-check pairing on seq_cst
 * atomics (a worker counts itself a sleeper under the mutex before checking
 * the generation; the caller bumps the generation before looking for
 * sleepers), so no wake-up is lost.  Only one region runs on the pool at a
 * time: a nested region, or one that finds the pool busy, runs serially.
 *
 * A child process made by fork has the pool's memory but none of its
 * workers (a process that runs kernels, then forks to measure or compile
 * others, as the tuner does when embedded): a fork handler takes the lock
 * across the fork and the child forgets the pool, making its own on first
 * use. */
/* POSIX calls (clock_gettime, sched_yield, sysconf) are used: say so here,
 * since the runtime is also compiled outside this project's build */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "rt.h"

typedef int32_t (*Body)(int64_t begin, int64_t end, void *closure);

/* how long a waiting thread polls before it sleeps: long enough to catch
 * the next region of a loop nest, short enough not to hold a core idle */
#define SPIN_NS 50000
/* polls with the CPU's pause hint before polls start yielding the CPU */
#define PAUSE_POLLS 64
#define MAX_THREADS 1024

typedef struct Pool {
  int32_t nthreads; /* the caller included */
  pthread_t *workers;
  pthread_mutex_t mu;
  pthread_cond_t wake, done;
  atomic_uint_fast64_t gen;
  atomic_int remaining, sleepers, caller_waiting, stop;
  atomic_int status;
  char err[MLCRT_ERR_CAP]; /* the message of the body that set status */
  /* the current job, written by the caller before it bumps gen */
  Body body;
  void *closure;
  int64_t n;
} Pool;

typedef struct WorkerArg {
  Pool *pool;
  int32_t index;
} WorkerArg;

/* guards creating, replacing and using the pool; a region holds it */
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static Pool *g_pool;
static int32_t g_requested; /* 0: from the environment */
static _Thread_local int tl_in_region;

static void cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
  __asm__ __volatile__("pause");
#elif defined(__aarch64__)
  __asm__ __volatile__("yield");
#endif
}

static int32_t default_threads(void) {
  const char *s = getenv("MLCRT_NUM_THREADS");
  if (s && *s) {
    char *end;
    long v = strtol(s, &end, 10);
    if (*end == '\0' && v >= 1 && v <= MAX_THREADS) return (int32_t)v;
  }
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n < 1 ? 1 : n > MAX_THREADS ? MAX_THREADS : (int32_t)n;
}

/* the index-th of p->nthreads slices of [0, n), sizes differing by at most 1 */
static void run_range(Pool *p, int32_t index) {
  int64_t n = p->n, t = p->nthreads, base = n / t, rem = n % t;
  int64_t begin = index * base + (index < rem ? index : rem);
  int64_t end = begin + base + (index < rem);
  if (begin >= end) return;
  mlcrt__set_error_str("");
  int32_t rc = p->body(begin, end, p->closure);
  int expected = 0;
  if (rc != 0 && atomic_compare_exchange_strong(&p->status, &expected, rc))
    memcpy(p->err, mlcrt_last_error(), sizeof p->err);
}

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

typedef bool (*Ready)(Pool *p, uint64_t arg);

static bool job_posted(Pool *p, uint64_t seen) {
  return atomic_load_explicit(&p->gen, memory_order_acquire) != seen;
}

static bool workers_done(Pool *p, uint64_t unused) {
  (void)unused;
  return atomic_load(&p->remaining) == 0;
}

/* poll ready() for up to SPIN_NS, pausing first, then yielding; false means
 * it is time to sleep */
static bool poll_until(Ready ready, Pool *p, uint64_t arg) {
  for (int i = 0; i < PAUSE_POLLS; i++) {
    if (ready(p, arg)) return true;
    cpu_relax();
  }
  uint64_t deadline = now_ns() + SPIN_NS;
  do {
    if (ready(p, arg)) return true;
    sched_yield();
  } while (now_ns() < deadline);
  return ready(p, arg);
}

static uint64_t wait_for_job(Pool *p, uint64_t seen) {
  uint64_t g;
  if (poll_until(job_posted, p, seen)) return atomic_load(&p->gen);
  pthread_mutex_lock(&p->mu);
  atomic_fetch_add(&p->sleepers, 1);
  while ((g = atomic_load(&p->gen)) == seen) pthread_cond_wait(&p->wake, &p->mu);
  atomic_fetch_sub(&p->sleepers, 1);
  pthread_mutex_unlock(&p->mu);
  return g;
}

static void *worker_main(void *arg) {
  WorkerArg wa = *(WorkerArg *)arg;
  free(arg);
  uint64_t seen = 0;
  tl_in_region = 1; /* a body's own parallel_for runs serially */
  for (;;) {
    seen = wait_for_job(wa.pool, seen);
    if (atomic_load(&wa.pool->stop)) return NULL;
    run_range(wa.pool, wa.index);
    if (atomic_fetch_sub(&wa.pool->remaining, 1) == 1 && atomic_load(&wa.pool->caller_waiting)) {
      pthread_mutex_lock(&wa.pool->mu);
      pthread_cond_signal(&wa.pool->done);
      pthread_mutex_unlock(&wa.pool->mu);
    }
  }
}

static void wait_for_workers(Pool *p) {
  if (poll_until(workers_done, p, 0)) return;
  pthread_mutex_lock(&p->mu);
  atomic_store(&p->caller_waiting, 1);
  while (atomic_load(&p->remaining) > 0) pthread_cond_wait(&p->done, &p->mu);
  atomic_store(&p->caller_waiting, 0);
  pthread_mutex_unlock(&p->mu);
}

/* bump the generation (which publishes the job fields) and wake sleepers */
static void publish(Pool *p) {
  atomic_store(&p->remaining, p->nthreads - 1);
  atomic_fetch_add(&p->gen, 1);
  if (atomic_load(&p->sleepers) > 0) {
    pthread_mutex_lock(&p->mu);
    pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->mu);
  }
}

/* returns once every worker has taken the job and finished its range */
static void run_job(Pool *p) {
  publish(p);
  tl_in_region = 1;
  run_range(p, 0);
  tl_in_region = 0;
  wait_for_workers(p);
}

static void pool_destroy(Pool *p) {
  if (!p) return;
  atomic_store(&p->stop, 1);
  publish(p);
  for (int32_t i = 0; i < p->nthreads - 1; i++) pthread_join(p->workers[i], NULL);
  pthread_mutex_destroy(&p->mu);
  pthread_cond_destroy(&p->wake);
  pthread_cond_destroy(&p->done);
  free(p->workers);
  free(p);
}

/* fork: the lock is held across it (no region is half published), and the
 * child, whose copy of the pool has no workers, starts without one (its
 * memory is the parent's and stays theirs to free) */
static _Thread_local int tl_fork_locked; /* this thread took the lock for a fork */
static void before_fork(void) {
  if (tl_in_region) return; /* its region holds the lock already */
  pthread_mutex_lock(&g_lock);
  tl_fork_locked = 1;
}
static void after_fork_parent(void) {
  if (tl_fork_locked) pthread_mutex_unlock(&g_lock);
  tl_fork_locked = 0;
}
static void after_fork_child(void) {
  if (!tl_fork_locked) return;
  g_pool = NULL;
  pthread_mutex_unlock(&g_lock);
  tl_fork_locked = 0;
}
static pthread_once_t g_fork_once = PTHREAD_ONCE_INIT;
static void register_fork_handlers(void) { pthread_atfork(before_fork, after_fork_parent, after_fork_child); }

/* a pool of up to want threads; fewer when threads cannot be created */
static Pool *pool_create(int32_t want) {
  pthread_once(&g_fork_once, register_fork_handlers);
  Pool *p = calloc(1, sizeof *p);
  if (!p) return NULL;
  p->workers = calloc((size_t)want, sizeof *p->workers);
  if (!p->workers) { free(p); return NULL; }
  pthread_mutex_init(&p->mu, NULL);
  pthread_cond_init(&p->wake, NULL);
  pthread_cond_init(&p->done, NULL);
  p->nthreads = 1;
  for (int32_t i = 1; i < want; i++) {
    WorkerArg *wa = malloc(sizeof *wa);
    if (!wa) break;
    *wa = (WorkerArg){p, i};
    if (pthread_create(&p->workers[i - 1], NULL, worker_main, wa) != 0) {
      free(wa);
      break;
    }
    p->nthreads++;
  }
  return p;
}

int32_t mlcrt_parallel_for(int64_t n, Body body, void *closure) {
  if (n <= 0) return 0;
  if (tl_in_region || n == 1 || pthread_mutex_trylock(&g_lock) != 0) return body(0, n, closure);
  if (!g_pool) g_pool = pool_create(g_requested ? g_requested : default_threads());
  Pool *p = g_pool;
  if (!p || p->nthreads == 1) {
    pthread_mutex_unlock(&g_lock);
    return body(0, n, closure);
  }
  p->body = body;
  p->closure = closure;
  p->n = n;
  atomic_store(&p->status, 0);
  run_job(p);
  int32_t rc = atomic_load(&p->status);
  if (rc != 0) {
    if (p->err[0]) mlcrt__set_error_str(p->err);
    else mlcrt_set_error("parallel_for: a loop body failed with status %d", rc);
  }
  pthread_mutex_unlock(&g_lock);
  return rc;
}

int mlcrt_threads_set(int32_t n) {
  if (tl_in_region) return mlcrt_set_error("threads_set: called inside a parallel region");
  if (n > MAX_THREADS) return mlcrt_set_error("threads_set: %d threads, at most %d", n, MAX_THREADS);
  pthread_mutex_lock(&g_lock);
  pool_destroy(g_pool);
  g_pool = NULL;
  g_requested = n > 0 ? n : 0;
  pthread_mutex_unlock(&g_lock);
  return 0;
}

int32_t mlcrt_threads_get(void) {
  pthread_mutex_lock(&g_lock);
  int32_t n = g_pool ? g_pool->nthreads : g_requested ? g_requested : default_threads();
  pthread_mutex_unlock(&g_lock);
  return n;
}
