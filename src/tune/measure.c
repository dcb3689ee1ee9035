/* measure.c - building candidates in batches and timing them in a child
 * process.
 *
 * A batch is split in one part per CPU; each part is a module whose
 * functions are its candidates (renamed cand_0, cand_1, ...), compiled
 * into one shared object -- one compiler run for many kernels, the parts'
 * compilers running at once.  A child process loads a part and times its
 * candidates in order, telling the parent on a pipe when it starts one and what it
 * measured.  The parent waits with a time-out per candidate: a candidate
 * that crashes or hangs (then killed) costs its own result, and a new child
 * goes on with the next one.  Timing: mlcrt_time_eval, whose first runs
 * (raising the call count until a repeat lasts min_repeat_ms) are the
 * warm-up; the result is the minimum over the repeats.  A candidate whose
 * first call takes longer than slow_s (a few times the task's best so
 * far) is timed by that call alone.  With flush_cache,
 * each timed run is one call after a buffer twice the last-level cache was
 * written over (portable: no cache-line instruction of one ISA).  A
 * library call (the other side of a library choice) is timed the same
 * way, in a child, on tensors shaped as its generated kernel's params.
 *
 * The check runs a candidate once on random inputs in a child and the
 * function it was scheduled from in the reference interpreter on the same
 * inputs, and compares every buffer. */
#include "tune/tune_internal.h"

#include "mlcc/interp.h"
#include "mlcc/runtime.h"

#include <errno.h>
#include <stdarg.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define NOLOC ((MlcLoc){0})
enum { MAX_PARAMS = 32 };

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* ---- the child's side ------------------------------------------------------------ */

static uint64_t next_rand(uint64_t *st) {
  *st = *st * 6364136223846793005ull + 1442695040888963407ull;
  return *st >> 33;
}

static void fill(DLTensor *t, uint64_t *st) {
  int64_t n = mlcrt_tensor_numel(t);
  for (int64_t i = 0; i < n; i++) {
    double u = (double)(next_rand(st) % 2000) / 1000.0 - 1.0;
    switch (t->dtype.code * 100 + t->dtype.bits) {
    case kDLFloat * 100 + 32: ((float *)t->data)[i] = (float)u; break;
    case kDLFloat * 100 + 64: ((double *)t->data)[i] = u; break;
    case kDLInt * 100 + 32: ((int32_t *)t->data)[i] = (int32_t)(next_rand(st) % 8); break;
    case kDLInt * 100 + 64: ((int64_t *)t->data)[i] = (int64_t)(next_rand(st) % 8); break;
    default: memset((char *)t->data + i * (int64_t)mlcrt_dtype_bytes(t->dtype), 0, mlcrt_dtype_bytes(t->dtype)); break;
    }
  }
}

typedef struct Args {
  MlcrtTensor *t[MAX_PARAMS];
  DLTensor *dl[MAX_PARAMS];
  int n;
} Args;

static void args_free(Args *a) {
  for (int i = 0; i < a->n; i++) mlcrt_tensor_free(a->t[i]);
  a->n = 0;
}

/* random tensors for f's buffer params (constant shapes only) */
static bool args_make(const MlcrtFunc *f, Args *a, uint64_t seed, char *err, size_t cap) {
  const MlcrtFuncDesc *d = mlcrt_func_desc(f);
  a->n = 0;
  if (d->n_params > MAX_PARAMS || d->n_syms > 0) return snprintf(err, cap, "symbolic shapes or too many params"), false;
  uint64_t st = seed;
  for (int i = 0; i < d->n_params; i++) {
    const MlcrtParamDesc *p = &d->params[i];
    if (!p->is_buffer) return args_free(a), snprintf(err, cap, "scalar params are not measured"), false;
    if (mlcrt_tensor_create(p->ndim, p->dims, p->dtype, &a->t[i]) != 0)
      return args_free(a), snprintf(err, cap, "%s", mlcrt_last_error()), false;
    a->n++;
    a->dl[i] = &a->t[i]->dl;
    fill(a->dl[i], &st);
  }
  return true;
}

typedef struct Call { const MlcrtFunc *f; Args *a; } Call;

static int32_t call_once(void *closure) {
  Call *c = closure;
  return mlcrt_func_call_tensors(c->f, c->a->dl, c->a->n);
}

static void say(int fd, const char *fmt, ...) MLC_PRINTF(2, 3);
static void say(int fd, const char *fmt, ...) {
  char buf[256];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  if (n > (int)sizeof buf - 1) n = (int)sizeof buf - 1;
  for (char *p = buf; p < buf + n - 1; p++)
    if (*p == '\n') *p = ' ';
  ssize_t w = write(fd, buf, (size_t)n);
  (void)w;
}

/* A candidate that faults must end its child by the signal, which the
 * parent reports; a handler inherited from the tuner (a sanitizer's, say)
 * would make it look like something else. */
static void default_fault_handlers(void) {
  static const int sigs[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
  for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++) signal(sigs[i], SIG_DFL);
}

/* The last-level cache's size: sysconf, else sysfs, else 32 MiB. */
static size_t llc_bytes(void) {
  long n = -1;
#ifdef _SC_LEVEL3_CACHE_SIZE
  n = sysconf(_SC_LEVEL3_CACHE_SIZE);
#endif
  if (n <= 0) {
    FILE *f = fopen("/sys/devices/system/cpu/cpu0/cache/index3/size", "r");
    char unit = 0;
    if (f && fscanf(f, "%ld%c", &n, &unit) >= 1) n = unit == 'K' ? n * 1024 : unit == 'M' ? n * 1024 * 1024 : n;
    if (f) fclose(f);
  }
  return n > 0 && n <= (256l << 20) ? (size_t)n : (size_t)32 << 20;
}

/* Writing over a buffer twice the last-level cache evicts what the kernel
 * left there (its inputs and outputs), portably: no cache-line flush
 * instruction of one ISA. */
typedef struct Flush { volatile unsigned char *buf; size_t len; unsigned char v; } Flush;

static void flush_caches(Flush *fl) {
  fl->v++;
  for (size_t i = 0; i < fl->len; i += 64) fl->buf[i] = fl->v;
}

/* One call per timed run, each after a flush; the calls before the first
 * (raised until they last min_repeat_ms, as without flushing) warm up. */
static int time_flushed(Call *c, const MlcTuneMeasureOptions *o, Flush *fl, double *best) {
  MlcrtTimes t;
  int rc = mlcrt_time_eval(call_once, c, 1, 1, o->min_repeat_ms, &t);
  int runs = o->repeat > 10 ? o->repeat : 10;
  *best = -1;
  for (int r = 0; rc == 0 && r < runs; r++) {
    flush_caches(fl);
    rc = mlcrt_time_eval(call_once, c, 1, 1, 0, &t);
    if (rc == 0 && (*best < 0 || t.min < *best)) *best = t.min;
  }
  return rc;
}

static void child_measure(int fd, const char *so, int first, int n, const MlcTuneMeasureOptions *o) {
  MlcrtModule *mod;
  default_fault_handlers();
  if (o->threads > 0) mlcrt_threads_set(o->threads);
  if (mlcrt_module_load(so, &mod) != 0) {
    say(fd, "E %d cannot load: %s\n", first, mlcrt_last_error());
    _exit(1);
  }
  Flush fl = {0};
  if (o->flush_cache) {
    fl.len = 2 * llc_bytes();
    fl.buf = calloc(fl.len, 1);
    if (!fl.buf) say(fd, "E %d no memory to flush the caches with\n", first), _exit(1);
  }
  for (int i = first; i < n; i++) {
    char name[32], err[160];
    snprintf(name, sizeof name, "cand_%d", i);
    say(fd, "S %d\n", i);
    const MlcrtFunc *f = mlcrt_module_get_func(mod, name);
    Args a;
    if (!f || !args_make(f, &a, 0x9e3779b97f4a7c15ull, err, sizeof err)) {
      say(fd, "E %d %s\n", i, f ? err : mlcrt_last_error());
      continue;
    }
    Call c = {f, &a};
    MlcrtTimes t;
    double secs = -1;
    /* a candidate far slower than the task's best is timed by one call:
     * its repeats would cost more than the rest of the batch */
    int rc = o->slow_s > 0 ? mlcrt_time_eval(call_once, &c, 1, 1, 0, &t) : 0;
    if (rc == 0 && o->slow_s > 0 && t.min > o->slow_s) secs = t.min;
    else if (rc == 0)
      rc = o->flush_cache ? time_flushed(&c, o, &fl, &secs)
                          : mlcrt_time_eval(call_once, &c, 1, o->repeat, o->min_repeat_ms, &t);
    if (rc != 0) say(fd, "E %d %s\n", i, mlcrt_last_error());
    else say(fd, "R %d %.9g\n", i, secs > 0 ? secs : t.min);
    args_free(&a);
  }
  _exit(0);
}

/* ---- the parent's side --------------------------------------------------------------- */

typedef struct Child { pid_t pid; int fd; char buf[1024]; size_t len; } Child;

static bool spawn(Child *c, void (*body)(int fd, void *user), void *user) {
  int p[2];
  if (pipe(p) != 0) return false;
  fflush(NULL);
  pid_t pid = fork();
  if (pid < 0) return close(p[0]), close(p[1]), false;
  if (pid == 0) {
    close(p[0]);
    body(p[1], user);
    _exit(0);
  }
  close(p[1]);
  *c = (Child){.pid = pid, .fd = p[0]};
  return true;
}

/* the exit of a child: "" when it ended normally, else a reason */
static void reap(Child *c, bool kill_it, char *why, size_t cap) {
  int status = 0;
  if (kill_it) kill(c->pid, SIGKILL);
  while (waitpid(c->pid, &status, 0) < 0 && errno == EINTR) {}
  close(c->fd);
  why[0] = '\0';
  if (WIFSIGNALED(status)) snprintf(why, cap, "crashed (signal %d)", WTERMSIG(status));
  else if (WIFEXITED(status) && WEXITSTATUS(status) != 0) snprintf(why, cap, "exited with status %d", WEXITSTATUS(status));
}

/* the next line from the child within timeout_s: 1 line, 0 end, -1 time-out */
static int read_line(Child *c, double timeout_s, char *line, size_t cap) {
  double end = now_s() + timeout_s;
  for (;;) {
    char *nl = memchr(c->buf, '\n', c->len);
    if (nl) {
      size_t k = (size_t)(nl - c->buf);
      snprintf(line, cap, "%.*s", (int)k, c->buf);
      memmove(c->buf, nl + 1, c->len - k - 1);
      c->len -= k + 1;
      return 1;
    }
    double left = end - now_s();
    if (left <= 0) return -1;
    struct pollfd p = {.fd = c->fd, .events = POLLIN};
    int r = poll(&p, 1, (int)(left * 1000) + 1);
    if (r < 0 && errno == EINTR) continue;
    if (r == 0) return -1;
    if (c->len >= sizeof c->buf - 1) c->len = 0; /* a line too long to be ours */
    ssize_t n = read(c->fd, c->buf + c->len, sizeof c->buf - 1 - c->len);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return 0;
    c->len += (size_t)n;
  }
}

typedef struct MeasureJob { const char *so; int first, n; const MlcTuneMeasureOptions *o; } MeasureJob;

static void measure_body(int fd, void *user) {
  MeasureJob *j = user;
  child_measure(fd, j->so, j->first, j->n, j->o);
}

static MlcModule *batch_module(MlcCtx *ctx, const MlcPrimFunc *const *cands, int n) {
  MlcFunc *fs = mlc_arena_array(&ctx->arena, (size_t)n, sizeof *fs);
  for (int i = 0; i < n; i++) {
    MlcPrimFunc *g = mlc_arena_dup(&ctx->arena, cands[i], sizeof *g);
    g->name = mlc_internf(ctx, "cand_%d", i);
    fs[i] = (MlcFunc){.kind = MLC_FUNC_PRIM, .name = g->name, .prim = g};
  }
  return mlc_module_new(ctx, mlc_intern(ctx, "Candidates"), fs, n, (MlcAttrs){0});
}

void tune_measure_defaults(const MlcTuneMeasureOptions *in, MlcTuneMeasureOptions *o) {
  *o = *in;
  if (o->repeat <= 0) o->repeat = 3;
  if (o->min_repeat_ms <= 0) o->min_repeat_ms = 5;
  if (o->timeout_s <= 0) o->timeout_s = 10;
  if (!o->workdir) o->workdir = "/tmp";
}

static const char *so_path(MlcCtx *ctx, const MlcTuneMeasureOptions *o, const char *what) {
  static unsigned counter;
  return mlc_internf(ctx, "%s/mlcc_tune_%ld_%s_%u.so", o->workdir, (long)getpid(), what, counter++);
}

static void remove_build(const char *so) {
  char c[1024];
  unlink(so);
  snprintf(c, sizeof c, "%.*s.c", (int)(strlen(so) - 3), so);
  unlink(c);
}

/* Time the candidates of one built shared object, in children that each
 * go on where the last one stopped. */
bool tune_measure_so(MlcCtx *ctx, const char *so, int n, const MlcTuneMeasureOptions *o, MlcTuneResult *out) {
  int next = 0;
  while (next < n && !(o->stop && *o->stop)) {
    MeasureJob job = {so, next, n, o};
    Child c;
    if (!spawn(&c, measure_body, &job))
      return mlc_error(ctx, NOLOC, "tune: cannot start the measuring process: %s", strerror(errno));
    int current = -1;
    bool timed_out = false;
    char line[1024];
    for (;;) {
      int r = read_line(&c, o->timeout_s + 1, line, sizeof line);
      if (r <= 0) {
        timed_out = r < 0;
        break;
      }
      int i = -1, k = 0;
      double secs;
      if (line[0] == 'S' && sscanf(line + 1, "%d", &i) == 1 && i >= 0 && i < n) current = i;
      else if (line[0] == 'R' && sscanf(line + 1, "%d %lf", &i, &secs) == 2 && i >= 0 && i < n) out[i].seconds = secs, current = -1, next = i + 1;
      else if (line[0] == 'E' && sscanf(line + 1, "%d %n", &i, &k) >= 1 && i >= 0 && i < n) {
        snprintf(out[i].error, sizeof out[i].error, "%s", line + 1 + k);
        current = -1, next = i + 1;
      }
    }
    char why[96];
    reap(&c, true, why, sizeof why);
    if (current >= 0) {
      snprintf(out[current].error, sizeof out[current].error, "%s", timed_out ? "timed out" : why[0] ? why : "no result");
      next = current + 1;
    } else if (next < n) {
      /* the child died between candidates (loading failed): the next one pays */
      if (!out[next].error[0]) snprintf(out[next].error, sizeof out[next].error, "%s", why[0] ? why : "no result");
      next++;
    }
  }
  return true;
}

int tune_split(int n, const MlcTuneMeasureOptions *o, int *start) {
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  int parts = o->build_jobs > 0 ? o->build_jobs : cpus > 0 ? (int)cpus : 1;
  if (parts > n) parts = n;
  if (parts > 63) parts = 63;
  if (parts < 1) parts = 1;
  for (int k = 0; k <= parts; k++) start[k] = (int)((int64_t)n * k / parts);
  return parts;
}

/* Build each part of the batch into its own shared object, the compiler
 * runs in parallel (one child process per part); ok[k] says which built. */
void tune_build_parts(MlcCtx *ctx, const MlcPrimFunc *const *cands, const int *start, int parts, const char **so,
                      const MlcTuneMeasureOptions *o, bool *ok) {
  pid_t pid[64];
  for (int k = 0; k < parts; k++) {
    MlcModule *m = batch_module(ctx, cands + start[k], start[k + 1] - start[k]);
    fflush(NULL);
    pid[k] = parts > 1 ? fork() : 0;
    if (pid[k] == 0) {
      bool built = mlc_build_shared(ctx, m, so[k], o->build);
      if (parts > 1) _exit(built ? 0 : 1);
      ok[k] = built;
      mlc_clear_error(ctx);
    } else if (pid[k] < 0) {
      ok[k] = mlc_build_shared(ctx, m, so[k], o->build); /* no process to spare: build it here */
      mlc_clear_error(ctx);
    }
  }
  for (int k = 0; parts > 1 && k < parts; k++) {
    if (pid[k] <= 0) continue;
    int status = 0;
    while (waitpid(pid[k], &status, 0) < 0 && errno == EINTR) {}
    ok[k] = WIFEXITED(status) && WEXITSTATUS(status) == 0;
  }
}

bool mlc_tune_measure(MlcCtx *ctx, const MlcPrimFunc *const *cands, int n, const MlcTuneMeasureOptions *in,
                      MlcTuneResult *out) {
  MlcTuneMeasureOptions o;
  tune_measure_defaults(in, &o);
  for (int i = 0; i < n; i++) out[i] = (MlcTuneResult){.seconds = -1};
  if (n <= 0) return true;
  int start[65];
  const char *so[64];
  bool ok[64] = {0};
  int parts = tune_split(n, &o, start);
  for (int k = 0; k < parts; k++) so[k] = so_path(ctx, &o, "batch");
  tune_build_parts(ctx, cands, start, parts, so, &o, ok);
  bool good = true;
  for (int k = 0; k < parts && good; k++) {
    int len = start[k + 1] - start[k];
    if (ok[k]) good = tune_measure_so(ctx, so[k], len, &o, out + start[k]);
    else if (len == 1) snprintf(out[start[k]].error, sizeof out[start[k]].error, "does not compile");
    else /* one bad candidate must not cost the part: build them one by one */
      for (int i = start[k]; i < start[k + 1] && good; i++) good = mlc_tune_measure(ctx, &cands[i], 1, in, &out[i]);
    remove_build(so[k]);
  }
  return good;
}

/* ---- a library call ------------------------------------------------------------------------
 * The other side of a library choice (library.c): the runtime's extern
 * timed the way a candidate is, on random tensors shaped as the generated
 * kernel's buffer params (inputs, then the output: how call_dps_packed
 * passes them). */

typedef struct LibJob {
  const char *lib;
  int n;
  int32_t ndim[MAX_PARAMS];
  int64_t dims[MAX_PARAMS][8];
  const MlcTuneMeasureOptions *o;
} LibJob;

typedef struct LibCall { MlcrtExternFn fn; Args *a; } LibCall;

static int32_t lib_once(void *closure) {
  LibCall *c = closure;
  return c->fn(c->a->dl, c->a->n, mlcrt_env());
}

static void lib_body(int fd, void *user) {
  LibJob *j = user;
  default_fault_handlers();
  if (j->o->threads > 0) mlcrt_threads_set(j->o->threads);
  MlcrtExtern ext;
  if (mlcrt_extern_get(j->lib, &ext) != 0) say(fd, "E 0 %s\n", mlcrt_last_error()), _exit(1);
  Args a = {0};
  uint64_t st = 0x9e3779b97f4a7c15ull;
  for (int i = 0; i < j->n; i++) {
    if (mlcrt_tensor_create(j->ndim[i], j->dims[i], mlcrt_dtype(kDLFloat, 32), &a.t[i]) != 0)
      say(fd, "E 0 %s\n", mlcrt_last_error()), _exit(1);
    a.dl[a.n++] = &a.t[i]->dl;
    fill(a.dl[i], &st);
  }
  LibCall c = {ext.fn, &a};
  MlcrtTimes t;
  say(fd, "S 0\n");
  if (mlcrt_time_eval(lib_once, &c, 1, j->o->repeat, j->o->min_repeat_ms, &t) != 0) say(fd, "E 0 %s\n", mlcrt_last_error());
  else say(fd, "R 0 %.9g\n", t.min);
  _exit(0);
}

int tune_param_shapes(const MlcPrimFunc *f, int32_t *ndim, int64_t (*dims)[8], int cap) {
  if (f->n_params > cap) return -1;
  for (int i = 0; i < f->n_params; i++) {
    const MlcBuffer *b = f->params[i].buf;
    if (!b || b->ndim > 8 || b->dtype.code != MLC_TC_FLOAT || b->dtype.bits != 32 || b->dtype.lanes != 1) return -1;
    ndim[i] = b->ndim;
    for (int d = 0; d < b->ndim; d++)
      if (!mlc_e_is_const_int(b->shape[d], &dims[i][d]) || dims[i][d] < 0 || dims[i][d] > ((int64_t)1 << 31)) return -1;
  }
  return f->n_params;
}

bool mlc_tune_measure_library(MlcCtx *ctx, const char *lib, const MlcPrimFunc *f, const MlcTuneMeasureOptions *o,
                              MlcTuneResult *out) {
  int32_t ndim[MAX_PARAMS];
  int64_t dims[MAX_PARAMS][8];
  int n = tune_param_shapes(f, ndim, dims, MAX_PARAMS);
  if (n < 0) return mlc_error(ctx, NOLOC, "tune: %s: only float32 buffer params of constant shapes are measured", lib);
  return tune_measure_extern(ctx, lib, n, ndim, (const int64_t(*)[8])dims, o, out);
}

bool tune_measure_extern(MlcCtx *ctx, const char *lib, int n, const int32_t *ndim, const int64_t (*dims)[8],
                         const MlcTuneMeasureOptions *in, MlcTuneResult *out) {
  MlcTuneMeasureOptions o;
  tune_measure_defaults(in, &o);
  *out = (MlcTuneResult){.seconds = -1};
  LibJob job = {.lib = lib, .o = &o, .n = n};
  if (n > MAX_PARAMS) return mlc_error(ctx, NOLOC, "tune: %s: too many tensors", lib);
  for (int i = 0; i < n; i++) {
    job.ndim[i] = ndim[i];
    memcpy(job.dims[i], dims[i], sizeof job.dims[i]);
  }
  Child c;
  if (!spawn(&c, lib_body, &job)) return mlc_error(ctx, NOLOC, "tune: cannot start the measuring process: %s", strerror(errno));
  char line[1024], why[96];
  double secs;
  int r, k = 0;
  bool started = false;
  while ((r = read_line(&c, o.timeout_s + 1, line, sizeof line)) > 0) {
    if (line[0] == 'S') started = true;
    else if (line[0] == 'R' && sscanf(line + 1, "%*d %lf", &secs) == 1) out->seconds = secs;
    else if (line[0] == 'E' && sscanf(line + 1, "%*d %n", &k) >= 0 && k > 0) snprintf(out->error, sizeof out->error, "%s", line + 1 + k);
  }
  reap(&c, true, why, sizeof why);
  if (out->seconds < 0 && !out->error[0])
    snprintf(out->error, sizeof out->error, "%s", r < 0 ? "timed out" : why[0] ? why : started ? "no result" : "did not start");
  return true;
}

/* ---- checking against the interpreter --------------------------------------------------- */

/* A param the candidate's schedule laid out anew (transform_layout of a
 * param the function may relayout: its "layout_rewrites" beyond the ones
 * the reference has): the interpreter reads the reference's layout, the
 * candidate the same values laid out by the maps, in order. */
enum { MAX_REWRITES = 8, MAX_DIMS = 8 };
typedef struct Rewrite { int param; const char *map; } Rewrite;

typedef struct CheckJob {
  MlcCtx *ctx;
  const char *so;
  const MlcPrimFunc *ref;
  const MlcTuneMeasureOptions *o;
  Rewrite rw[MAX_REWRITES];
  int n_rw;
} CheckJob;

static const MlcAttrValue *rewrites_of(MlcCtx *ctx, const MlcPrimFunc *f) {
  const MlcAttrValue *v = mlc_attrs_get(f->attrs, mlc_intern(ctx, "layout_rewrites"));
  return v && v->kind == MLC_ATTR_LIST ? v : NULL;
}

/* the rewrites cand has beyond ref's (which it inherits first); false +
 * error when they are malformed or too many */
static bool extra_rewrites(MlcCtx *ctx, const MlcPrimFunc *ref, const MlcPrimFunc *cand, CheckJob *j) {
  const MlcAttrValue *a = rewrites_of(ctx, ref), *b = rewrites_of(ctx, cand);
  int from = a ? a->list.n : 0;
  j->n_rw = 0;
  for (int i = from; b && i < b->list.n; i++) {
    const MlcAttrValue *pair = &b->list.items[i];
    if (pair->kind != MLC_ATTR_LIST || pair->list.n != 2 || pair->list.items[0].kind != MLC_ATTR_INT ||
        pair->list.items[1].kind != MLC_ATTR_STR || pair->list.items[0].i < 0 || pair->list.items[0].i >= ref->n_params ||
        !ref->params[pair->list.items[0].i].buf)
      return mlc_error(ctx, NOLOC, "check: the candidate's layout_rewrites are malformed");
    if (j->n_rw == MAX_REWRITES) return mlc_error(ctx, NOLOC, "check: more than %d layout rewrites", MAX_REWRITES);
    j->rw[j->n_rw++] = (Rewrite){(int)pair->list.items[0].i, pair->list.items[1].s};
  }
  return true;
}

/* param p of the reference as tensor data over `data` (its shape, which
 * the check needs constant) */
static bool ref_param(const MlcPrimFunc *ref, int p, void *data, int64_t *shape, MlcTensorData *out) {
  const MlcBuffer *b = ref->params[p].buf;
  if (b->ndim > MAX_DIMS) return false;
  for (int d = 0; d < b->ndim; d++)
    if (!mlc_e_is_const_int(b->shape[d], &shape[d])) return false;
  *out = (MlcTensorData){.dtype = b->dtype, .ndim = b->ndim, .shape = shape, .data = data};
  out->nbytes = (size_t)mlc_tensor_data_numel(out) * (size_t)mlc_dtype_bytes(b->dtype);
  return true;
}

static bool close_enough(const DLTensor *a, const DLTensor *b, char *err, size_t cap) {
  int64_t n = mlcrt_tensor_numel(a);
  for (int64_t i = 0; i < n; i++) {
    double x, y;
    if (a->dtype.code == kDLFloat && a->dtype.bits == 32) x = ((float *)a->data)[i], y = ((float *)b->data)[i];
    else if (a->dtype.code == kDLFloat && a->dtype.bits == 64) x = ((double *)a->data)[i], y = ((double *)b->data)[i];
    else {
      size_t w = mlcrt_dtype_bytes(a->dtype);
      if (memcmp((char *)a->data + i * (int64_t)w, (char *)b->data + i * (int64_t)w, w)) {
        snprintf(err, cap, "element %lld differs", (long long)i);
        return false;
      }
      continue;
    }
    if (!(fabs(x - y) <= 1e-3 * (1 + fabs(y)))) {
      snprintf(err, cap, "element %lld is %g, the interpreter says %g", (long long)i, x, y);
      return false;
    }
  }
  return true;
}

static void check_body(int fd, void *user) {
  CheckJob *j = user;
  MlcrtModule *mod;
  char err[160];
  default_fault_handlers();
  if (j->o->threads > 0) mlcrt_threads_set(j->o->threads);
  if (mlcrt_module_load(j->so, &mod) != 0) say(fd, "E %s\n", mlcrt_last_error()), _exit(1);
  const MlcrtFunc *f = mlcrt_module_get_func(mod, "cand_0");
  Args got, want;
  if (!f || !args_make(f, &got, 7, err, sizeof err) || !args_make(f, &want, 7, err, sizeof err)) say(fd, "E %s\n", err), _exit(1);
  MlcInterpArg ia[MAX_PARAMS];
  for (int i = 0; i < want.n; i++)
    ia[i] = (MlcInterpArg){.is_buffer = true, .data = want.dl[i]->data, .ndim = want.dl[i]->ndim, .shape = want.dl[i]->shape};
  /* a relaid param: the same values (as many), the reference's shape for
   * the interpreter, laid out by the maps for the candidate */
  int64_t shapes[MAX_REWRITES][MAX_DIMS];
  for (int k = 0; k < j->n_rw; k++) {
    int p = j->rw[k].param;
    bool first = true; /* a param's maps are applied at its first rewrite, in order */
    for (int q = 0; q < k; q++) first &= j->rw[q].param != p;
    if (!first) continue;
    MlcTensorData in;
    if (p >= got.n || !ref_param(j->ref, p, want.dl[p]->data, shapes[k], &in) ||
        in.nbytes != (size_t)mlcrt_tensor_numel(got.dl[p]) * mlcrt_dtype_bytes(got.dl[p]->dtype))
      say(fd, "E param %d changed layout, which the check cannot follow: its shape is not constant, has more "
              "than %d dims, or its size changed\n", p, MAX_DIMS),
          _exit(1);
    ia[p].ndim = in.ndim, ia[p].shape = in.shape;
    const MlcTensorData *cur = &in;
    for (int q = k; q < j->n_rw; q++)
      if (j->rw[q].param == p && !(cur = mlc_sch_layout_apply(j->ctx, j->rw[q].map, cur)))
        say(fd, "E layout: %s\n", mlc_error_msg(j->ctx)), _exit(1);
    memcpy(got.dl[p]->data, cur->data, in.nbytes);
  }
  if (mlcrt_func_call_tensors(f, got.dl, got.n) != 0) say(fd, "E %s\n", mlcrt_last_error()), _exit(1);
  if (!mlc_interp_run(j->ctx, j->ref, ia, want.n)) say(fd, "E interpreter: %s\n", mlc_error_msg(j->ctx)), _exit(1);
  for (int i = 0; i < got.n; i++) {
    bool relaid = false; /* an input in another layout, read only */
    for (int k = 0; k < j->n_rw; k++) relaid |= j->rw[k].param == i;
    if (!relaid && !close_enough(got.dl[i], want.dl[i], err, sizeof err)) say(fd, "E buffer #%d: %s\n", i + 1, err), _exit(1);
  }
  say(fd, "OK\n");
  _exit(0);
}

bool mlc_tune_check(MlcCtx *ctx, const MlcPrimFunc *ref, const MlcPrimFunc *cand, const MlcTuneMeasureOptions *in) {
  MlcTuneMeasureOptions o;
  tune_measure_defaults(in, &o);
  const char *so = so_path(ctx, &o, "check");
  MlcModule *m = batch_module(ctx, &cand, 1);
  if (!mlc_build_shared(ctx, m, so, o.build)) return remove_build(so), false;
  CheckJob job = {.ctx = ctx, .so = so, .ref = ref, .o = &o};
  if (!extra_rewrites(ctx, ref, cand, &job)) return remove_build(so), false;
  Child c;
  if (!spawn(&c, check_body, &job)) return remove_build(so), mlc_error(ctx, NOLOC, "tune: cannot start the checking process");
  char line[1024] = "", why[96];
  /* the interpreter is slow: it gets many times a candidate's time-out */
  int r = read_line(&c, o.timeout_s * 30, line, sizeof line);
  reap(&c, true, why, sizeof why);
  remove_build(so);
  if (r > 0 && !strcmp(line, "OK")) return true;
  if (r > 0 && line[0] == 'E') return mlc_error(ctx, NOLOC, "check against the interpreter: %s", line + 2);
  return mlc_error(ctx, NOLOC, "check against the interpreter: %s", r < 0 ? "timed out" : why[0] ? why : "no answer");
}
