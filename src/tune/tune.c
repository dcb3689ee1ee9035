/* tune.c - the tuning driver: tasks from a module, rounds of search and
 * measurement, records saved as they come.
 *
 * Every distinct prim func (by workload key) is a task, weighted by the
 * number of times the graph functions call it (1 when the module has
 * none).  Rounds go round-robin over the tasks first, then to the task
 * with the best expected gain on the model's latency (next_task), among
 * those that still find new candidates: a batch is searched, measured in a child process, its best
 * checked against the reference interpreter when it beats the task's best
 * (a wrong one is recorded as an error and never becomes the best), and
 * every record appended to the database file at once, so stopping the run
 * at any point keeps what was measured.  The cost model is refitted on all
 * of the task's measurements after each round.  The estimated model
 * latency is the sum over calls of calls x the call's fastest side: the
 * best of a conv's layouts, or the library call where that is faster. */
#include "tune/search_internal.h"

#include "mlcc/arith.h"
#include "mlcc/text.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NOLOC ((MlcLoc){0})
enum { MAX_TASKS = 256, SLOW_FACTOR = 4 };

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* ---- tasks ------------------------------------------------------------------------- */

typedef struct Count { const char *name; int n; } Count;

static bool count_calls(MlcVisitor *v, const MlcGExpr *e) {
  Count *c = v->user;
  if (e->kind == MLC_G_GLOBAL && e->str == c->name) c->n++;
  return true;
}

static int calls_of(const MlcModule *m, const char *name, bool *has_graph) {
  Count c = {name, 0};
  MlcVisitor vis = {.user = &c, .gexpr = count_calls};
  for (int i = 0; i < m->n_funcs; i++)
    if (m->funcs[i].kind == MLC_FUNC_GRAPH) *has_graph = true, mlc_visit_gfunc(&vis, m->funcs[i].graph);
  return c.n;
}

static int make_tasks(MlcCtx *ctx, const MlcModule *m, const MlcSchTarget *st, const MlcTuneDB *db,
                      const MlcTuneTarget *tt, const MlcTuneOptions *o, Task *tasks) {
  int n = 0;
  for (int i = 0; i < m->n_funcs && n < MAX_TASKS; i++) {
    if (m->funcs[i].kind != MLC_FUNC_PRIM) continue;
    const MlcPrimFunc *f = m->funcs[i].prim;
    uint64_t w = mlc_tune_workload_hash(ctx, f);
    bool graph = false;
    int calls = calls_of(m, m->funcs[i].name, &graph);
    /* the generated side of a library choice stands for library calls */
    const MlcAttrValue *lc = mlc_attrs_get(f->attrs, mlc_intern(ctx, "calls"));
    if (graph && calls == 0 && lc && lc->kind == MLC_ATTR_INT && lc->i > 0 && lc->i < 1000000) calls = (int)lc->i;
    if (graph && calls == 0) continue; /* not run by the model */
    int k = 0;
    while (k < n && tasks[k].workload != w) k++;
    if (k < n) {
      tasks[k].weight += graph ? calls : 1;
      continue;
    }
    Task *t = &tasks[n];
    memset(t, 0, sizeof *t);
    *t = (Task){.home = ctx, .func = m->funcs[i].name, .prim = f, .workload = w, .weight = graph ? calls : 1,
                .flops = mlc_prim_func_flops(f), .best = -1, .rng = o->seed * 2654435761u + (uint64_t)n + 1,
                .group = n, .other_s = -1};
    /* a layout of a conv: one call with the plain kernel's task (by its
     * workload: equal convs share their tasks) */
    const MlcAttrValue *of = mlc_attrs_get(f->attrs, mlc_intern(ctx, "layout_of"));
    const MlcFunc *plain = of && of->kind == MLC_ATTR_STR ? mlc_module_find(m, of->s) : NULL;
    uint64_t pw = plain && plain->kind == MLC_FUNC_PRIM ? mlc_tune_workload_hash(ctx, plain->prim) : 0;
    for (int g = 0; plain && g < n; g++)
      if (tasks[g].workload == pw) t->group = tasks[g].group;
    /* the function alone, as text: each round reads it into a scratch context */
    MlcFunc one = m->funcs[i];
    MlcStrBuf text = {0};
    mlc_print_module(mlc_module_new(ctx, m->name, &one, 1, (MlcAttrs){0}), &text);
    t->text = text.data, t->text_len = text.len;
    if (!tune_round_begin(t, st)) { /* no design space: not a task */
      mlc_clear_error(ctx);
      free(t->text);
      continue;
    }
    tune_round_end(t);
    t->model = mlc_tune_model_new(o->seed + (uint64_t)n);
    /* what earlier runs measured is neither measured again nor forgotten */
    for (int r = 0; r < mlc_tune_db_size(db); r++) {
      const MlcTuneRecord *rec = mlc_tune_db_at(db, r);
      if (rec->workload != w || !mlc_tune_target_equal(&rec->target, tt) || !rec->decisions || rec->library) continue;
      const char *key = mlc_internf(ctx, "%d:%s", rec->space, rec->decisions);
      mlc_map_put(&t->seen, key, (void *)key);
      t->trials++;
      if (rec->seconds > 0 && !rec->error && (t->best < 0 || rec->seconds < t->best)) t->best = rec->seconds;
    }
    n++;
  }
  return n;
}

static void task_free(Task *t) {
  free(t->text);
  mlc_map_free(&t->seen);
  mlc_tune_model_free(t->model);
  mlc_vec_free(&t->x);
  mlc_vec_free(&t->secs);
}

/* refit on every measurement: score = the best time over this one's */
static void refit(Task *t) {
  size_t n = t->secs.len;
  float *y = mlc_xmalloc(sizeof *y * (n ? n : 1));
  for (size_t i = 0; i < n; i++) y[i] = t->secs.data[i] > 0 && t->best > 0 ? (float)(t->best / t->secs.data[i]) : 0;
  if (!mlc_tune_model_fit(t->home, t->model, t->x.data, y, (int)n)) mlc_clear_error(t->home);
  free(y);
}

/* ---- one round -------------------------------------------------------------------- */

static bool save(MlcCtx *ctx, MlcTuneDB *db, const MlcTuneOptions *o, const MlcTuneRecord *r) {
  mlc_tune_db_add(db, r);
  return !o->db_path || mlc_tune_record_append(ctx, o->db_path, r);
}

/* the batch measured through the launcher: each candidate is the task's
 * text and the candidate's script */
static bool measure_launched(Task *t, const Cand *c, int n, const MlcTuneOptions *o, MlcTuneResult *res,
                             MlcTuneTarget *on) {
  MlcTuneCandidate *tc = mlc_xcalloc((size_t)n, sizeof *tc);
  MlcStrBuf *traces = mlc_xcalloc((size_t)n, sizeof *traces);
  for (int i = 0; i < n; i++) {
    mlc_sch_print_trace(c[i].s, &traces[i]);
    tc[i] = (MlcTuneCandidate){.program = t->text, .func = t->func, .trace = mlc_sb_cstr(&traces[i]),
                               .workload = t->workload, .space = c[i].space, .decisions = c[i].decisions,
                               .flops = t->flops, .weight = t->weight};
  }
  bool ok = mlc_tune_measure_launched(t->ctx, o->launcher, tc, n, &o->measure, res, on);
  for (int i = 0; i < n; i++) mlc_vec_free(&traces[i]);
  free(traces), free(tc);
  return ok;
}

static bool round_in(Task *t, MlcTuneDB *db, const MlcSchTarget *st, const MlcTuneTarget *tt, const MlcTuneOptions *o,
                     int batch) {
  MlcCtx *ctx = t->ctx;
  Cand *c = mlc_xcalloc((size_t)batch, sizeof *c);
  int n = tune_search_batch(t, db, tt, st, o->epsilon, c, batch);
  if (n == 0) {
    t->exhausted = true;
    free(c);
    return true;
  }
  const MlcPrimFunc **fs = mlc_xmalloc(sizeof *fs * (size_t)n);
  MlcTuneResult *res = mlc_xcalloc((size_t)n, sizeof *res);
  for (int i = 0; i < n; i++) fs[i] = mlc_sch_func(c[i].s);
  MlcTuneTarget *on = o->launcher ? mlc_xcalloc((size_t)n, sizeof *on) : NULL;
  MlcTuneMeasureOptions mo = o->measure;
  if (t->best > 0) mo.slow_s = SLOW_FACTOR * t->best;
  bool ok = o->launcher ? measure_launched(t, c, n, o, res, on) : mlc_tune_measure(ctx, fs, n, &mo, res);
  if (!ok) mlc_error(t->home, (MlcLoc){0}, "%s", mlc_error_msg(ctx)), mlc_clear_error(ctx);
  bool stopped = o->stop && *o->stop;
  /* the fastest, when it beats the task's best, must compute what the
   * unscheduled function computes */
  int fastest = -1;
  for (int i = 0; ok && i < n; i++)
    if (res[i].seconds > 0 && (!on || mlc_tune_target_equal(&on[i], tt)) &&
        (fastest < 0 || res[i].seconds < res[fastest].seconds))
      fastest = i;
  if (fastest >= 0 && !stopped && (t->best < 0 || res[fastest].seconds < t->best) &&
      !mlc_tune_check(ctx, mlc_module_find(t->mod, t->func)->prim, fs[fastest], &o->measure)) {
    snprintf(res[fastest].error, sizeof res[fastest].error, "wrong result: %s", mlc_error_msg(ctx));
    res[fastest].seconds = -1;
    mlc_clear_error(ctx);
  } else if (fastest >= 0 && stopped && (t->best < 0 || res[fastest].seconds < t->best)) {
    res[fastest].seconds = -1; /* unchecked: dropped, measured again next run */
  }
  for (int i = 0; ok && i < n; i++) {
    /* stopped: the candidate being measured got the signal too, and the
     * ones after it never ran; only the times stand */
    if (stopped && res[i].seconds < 0) continue;
    MlcStrBuf trace = {0};
    mlc_sch_print_trace(c[i].s, &trace);
    MlcTuneRecord r = {.workload = t->workload, .target = on ? on[i] : *tt, .func = t->func, .trace = mlc_sb_cstr(&trace),
                       .space = c[i].space, .decisions = c[i].decisions, .seconds = res[i].seconds,
                       .error = res[i].seconds > 0 ? NULL : res[i].error[0] ? res[i].error : "no time"};
    /* measured elsewhere than the run's target (a launcher that reached
     * another kind of node): recorded as it is, no part of this search */
    bool foreign = r.seconds > 0 && !mlc_tune_target_equal(&r.target, tt);
    if (r.seconds > 0 && t->flops > 0) r.gflops = t->flops / r.seconds * 1e-9;
    r.elapsed_s = now_s() - t->t0;
    r.weight = t->weight;
    ok = save(ctx, db, o, &r);
    mlc_vec_free(&trace);
    const char *key = mlc_intern(t->home, c[i].key);
    mlc_map_put(&t->seen, key, (void *)key);
    t->trials++;
    for (int f = 0; f < MLC_TUNE_N_FEATURES; f++) mlc_vec_push(&t->x, c[i].feat[f]);
    mlc_vec_push(&t->secs, foreign ? -1 : r.seconds);
    if (!foreign && r.seconds > 0 && (t->best < 0 || r.seconds < t->best)) t->best = r.seconds;
  }
  if (ok) refit(t);
  else mlc_error(t->home, (MlcLoc){0}, "%s", mlc_error_msg(ctx));
  for (int i = 0; i < n; i++) tune_cand_free(&c[i]);
  free(c), free(fs), free(res), free(on);
  return ok;
}

/* one round in a scratch context (search_internal.h) */
static bool round_of(Task *t, MlcTuneDB *db, const MlcSchTarget *st, const MlcTuneTarget *tt, const MlcTuneOptions *o,
                     int batch) {
  if (!tune_round_begin(t, st)) return false;
  bool ok = round_in(t, db, st, tt, o, batch);
  tune_round_end(t);
  return ok;
}

/* The time a call of t's takes in a build with the records: the fastest
 * of its group (a conv's layouts) and of the library call, when that is
 * its other side; < 0 when nothing was measured. */
static double call_time(const Task *tasks, int nt, const Task *t) {
  double b = -1;
  for (int i = 0; i < nt; i++) {
    const Task *u = &tasks[i];
    if (u->group != t->group) continue;
    if (u->best > 0 && (b < 0 || u->best < b)) b = u->best;
    if (u->other_s > 0 && (b < 0 || u->other_s < b)) b = u->other_s;
  }
  return b;
}

/* Every task gets a round in turn first; then the round goes to the task
 * whose next one promises most of the model's latency: its call's share
 * (calls x the call's time) times how much its last round improved it (at
 * least 5%, so a task that stalled is not starved forever), times how
 * close it is to being the call's fastest side (a layout 10x slower than
 * another of the same conv is worth a tenth), divided by 1 + the rounds it
 * has gone without improving (else the largest stalled task would take
 * every round).  Ties to the earlier task. */
static Task *next_task(Task *tasks, int nt, int *next) {
  for (int k = 0; k < nt; k++) {
    Task *t = &tasks[(*next + k) % nt];
    if (t->exhausted || t->rounds > 0) continue;
    *next = (*next + k + 1) % nt;
    return t;
  }
  Task *best = NULL;
  double best_gain = -1;
  for (int i = 0; i < nt; i++) {
    Task *t = &tasks[i];
    if (t->exhausted) continue;
    double call = call_time(tasks, nt, t), own = t->best > 0 ? t->best : 1;
    double share = call > 0 ? call : own, close = call > 0 && own > call ? call / own : 1;
    double g = t->weight * share * close * (t->gain > 0.05 ? t->gain : 0.05) / (1 + t->stalls);
    if (g > best_gain) best = t, best_gain = g;
  }
  return best;
}

static void fmt_time(double s, char *buf, size_t cap) {
  if (s < 0) snprintf(buf, cap, "-");
  else if (s < 1e-3) snprintf(buf, cap, "%.2f us", s * 1e6);
  else if (s < 1) snprintf(buf, cap, "%.3f ms", s * 1e3);
  else snprintf(buf, cap, "%.2f s", s);
}

static void progress(const MlcTuneOptions *o, int round, const Task *t, int ti, int nt, const Task *all, double t0,
                     int trials) {
  if (!o->progress) return;
  /* each call once: its group's fastest side */
  double latency = 0;
  bool known = true;
  for (int i = 0; i < nt; i++) {
    if (all[i].group != i) continue;
    double c = call_time(all, nt, &all[i]);
    if (c < 0) known = false;
    else latency += c * all[i].weight;
  }
  char best[32], lat[32], left[32];
  fmt_time(t->best, best, sizeof best);
  fmt_time(known ? latency : -1, lat, sizeof lat);
  double el = now_s() - t0;
  if (o->time_budget_s > 0) snprintf(left, sizeof left, "%.1f s", o->time_budget_s - el > 0 ? o->time_budget_s - el : 0);
  else snprintf(left, sizeof left, "-");
  double gf = t->best > 0 && t->flops > 0 ? t->flops / t->best * 1e-9 : 0;
  fprintf(o->progress,
          "round %d: task %d/%d %s: %d trials, best %s (%.2f GFLOPS); model latency %s; %d/%d trials; elapsed %.1f s, left %s\n",
          round, ti + 1, nt, t->func, t->trials, best, gf, lat, trials, o->trials, el, left);
  fflush(o->progress);
}

static const char *str_attr(MlcCtx *ctx, const MlcPrimFunc *f, const char *key) {
  const MlcAttrValue *v = mlc_attrs_get(f->attrs, mlc_intern(ctx, key));
  return v && v->kind == MLC_ATTR_STR ? v->s : NULL;
}

/* The library side of each library choice (library.c), once per target:
 * the task is the generated side, tuned as any other. */
static bool measure_libraries(MlcCtx *ctx, Task *tasks, int nt, MlcTuneDB *db, const MlcTuneTarget *tt,
                              const MlcTuneOptions *o) {
  for (int i = 0; i < nt && !(o->stop && *o->stop); i++) {
    Task *t = &tasks[i];
    const char *lib = str_attr(ctx, t->prim, "library"), *shape = str_attr(ctx, t->prim, "shape");
    const MlcTuneRecord *known = lib ? mlc_tune_db_best_library(db, t->workload, tt) : NULL;
    if (known) t->other_s = known->seconds;
    if (!lib || known) continue;
    MlcTuneResult r;
    MlcTuneTarget on = *tt;
    if (o->launcher) { /* measured there, as the candidates are */
      MlcTuneCandidate c = {.program = t->text, .func = t->func, .trace = "", .workload = t->workload,
                            .decisions = "[]", .flops = t->flops, .weight = t->weight, .library = lib};
      if (!mlc_tune_measure_launched(ctx, o->launcher, &c, 1, &o->measure, &r, &on)) return false;
    } else if (!mlc_tune_measure_library(ctx, lib, t->prim, &o->measure, &r)) {
      return false;
    }
    if (o->stop && *o->stop) break;
    MlcTuneRecord rec = {.workload = t->workload, .target = on, .func = t->func, .trace = "", .decisions = "[]",
                         .seconds = r.seconds, .error = r.seconds > 0 ? NULL : r.error[0] ? r.error : "no time",
                         .elapsed_s = now_s() - t->t0, .weight = t->weight, .library = lib};
    if (r.seconds > 0 && t->flops > 0) rec.gflops = t->flops / r.seconds * 1e-9;
    if (!save(ctx, db, o, &rec)) return false;
    if (rec.seconds > 0) t->other_s = rec.seconds;
    if (o->progress) {
      char tm[32];
      fmt_time(r.seconds, tm, sizeof tm);
      fprintf(o->progress, "library: %s (%s, %d call%s): %s %s (%.2f GFLOPS)%s%s\n", t->func, shape ? shape : "?",
              t->weight, t->weight == 1 ? "" : "s", lib, tm, rec.gflops, rec.error ? "; " : "", rec.error ? rec.error : "");
      fflush(o->progress);
    }
  }
  return true;
}

bool mlc_tune_module(MlcCtx *ctx, const MlcModule *m, MlcTuneDB *db, const MlcSchTarget *st, const MlcTuneTarget *tt,
                     const MlcTuneOptions *in) {
  MlcTuneOptions o = *in;
  o.measure.stop = o.stop;
  if (o.trials <= 0) o.trials = 64;
  if (o.batch <= 0) o.batch = 8;
  if (o.epsilon < 0 || o.epsilon > 1) o.epsilon = 0.2;
  Task *tasks = mlc_xcalloc(MAX_TASKS, sizeof *tasks);
  int nt = make_tasks(ctx, m, st, db, tt, &o, tasks);
  if (nt == 0) {
    free(tasks);
    return mlc_error(ctx, NOLOC, "tune: the module has no prim func to tune");
  }
  double t0 = now_s();
  for (int i = 0; i < nt; i++) tasks[i].t0 = t0;
  int done = 0, round = 0, next = 0;
  bool ok = measure_libraries(ctx, tasks, nt, db, tt, &o);
  while (ok && done < o.trials) {
    if (o.stop && *o.stop) break;
    if (o.time_budget_s > 0 && now_s() - t0 >= o.time_budget_s) break;
    Task *t = next_task(tasks, nt, &next);
    if (!t) break; /* every space is measured out */
    int before = t->trials, batch = o.batch < o.trials - done ? o.batch : o.trials - done;
    double best_before = t->best;
    ok = round_of(t, db, st, tt, &o, batch);
    done += t->trials - before;
    t->gain = best_before > 0 && t->best > 0 ? (best_before - t->best) / best_before : 1;
    t->stalls = t->gain > 0 ? 0 : t->stalls + 1;
    t->rounds++;
    if (t->trials > before) progress(&o, ++round, t, (int)(t - tasks), nt, tasks, t0, done);
  }
  for (int i = 0; i < nt; i++) task_free(&tasks[i]);
  free(tasks);
  return ok;
}
