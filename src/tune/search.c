/* search.c - evolutionary search over a task's design spaces.
 *
 * A round starts from a population of candidates: the best records the
 * database holds for the task (their decisions replayed) and random draws
 * from every space.  For a few generations, parents are picked by the cost
 * model's predicted score (tournaments of two) and mutated: one sampling
 * decision drawn anew -- a tile size, the unroll depth, whatever that
 * instruction samples -- and the child replayed and postprocessed; what
 * fails or repeats is dropped.  From everything seen that was never
 * measured, the batch takes the best predicted, except that each slot with
 * probability epsilon takes a random one instead (exploration).  A key of
 * space and decisions identifies a program, so nothing is measured twice,
 * across runs too.  The first batch of a task also holds the default rules'
 * schedule of it (space MLC_TUNE_DEFAULT_SPACE, no decisions): the search
 * is measured against what an untuned build runs, and the best record is
 * never slower than that. */
#include "tune/search_internal.h"

#include "mlcc/text.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

enum { POPULATION = 48, GENERATIONS = 3, SEEDS = 8, MAX_DEC = 64, INIT_TRIES = 4 };

static uint64_t rnd(Task *t) {
  t->rng = t->rng * 6364136223846793005ull + 1442695040888963407ull;
  return t->rng >> 33;
}

static double unit(Task *t) { return (double)(rnd(t) % 1000000) / 1e6; }

/* ---- decisions as JSON ---------------------------------------------------------- */

static void dec_json(MlcStrBuf *sb, const MlcSchVal *v) {
  if (v->kind == MLC_SV_LIST) {
    mlc_sb_putc(sb, '[');
    for (int i = 0; i < v->list.n; i++) {
      if (i) mlc_sb_putc(sb, ',');
      dec_json(sb, &v->list.items[i]);
    }
    mlc_sb_putc(sb, ']');
  } else if (v->kind == MLC_SV_INT) {
    mlc_sb_printf(sb, "%lld", (long long)v->i);
  } else {
    mlc_sb_puts(sb, "null");
  }
}

const char *tune_decisions_json(MlcCtx *ctx, const MlcSchVal *d, int n) {
  MlcStrBuf sb = {0};
  mlc_sb_putc(&sb, '[');
  for (int i = 0; i < n; i++) {
    if (i) mlc_sb_putc(&sb, ',');
    dec_json(&sb, &d[i]);
  }
  mlc_sb_putc(&sb, ']');
  const char *s = mlc_intern(ctx, mlc_sb_cstr(&sb));
  mlc_vec_free(&sb);
  return s;
}

static bool dec_val(MlcCtx *ctx, const cJSON *j, MlcSchVal *out, int depth) {
  if (cJSON_IsNumber(j) && j->valuedouble == (double)(int64_t)j->valuedouble) {
    *out = (MlcSchVal){.kind = MLC_SV_INT, .i = (int64_t)j->valuedouble};
    return true;
  }
  if (cJSON_IsNull(j)) return *out = (MlcSchVal){.kind = MLC_SV_NONE}, true;
  if (!cJSON_IsArray(j) || depth > 2) return false;
  int n = cJSON_GetArraySize(j);
  if (n > MLC_SCH_MAX_OUTS) return false;
  MlcSchVal *items = mlc_arena_array(&ctx->arena, (size_t)(n ? n : 1), sizeof *items);
  int i = 0;
  const cJSON *e;
  cJSON_ArrayForEach(e, j) if (!dec_val(ctx, e, &items[i++], depth + 1)) return false;
  *out = (MlcSchVal){.kind = MLC_SV_LIST, .list = {items, n}};
  return true;
}

int tune_decisions_parse(MlcCtx *ctx, const char *json, MlcSchVal *out, int cap) {
  cJSON *j = json ? cJSON_Parse(json) : NULL;
  int n = -1;
  if (cJSON_IsArray(j) && cJSON_GetArraySize(j) <= cap) {
    n = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, j) if (n >= 0 && !dec_val(ctx, e, &out[n++], 1)) n = -1;
  }
  cJSON_Delete(j);
  return n;
}

/* ---- candidates ---------------------------------------------------------------------- */

void tune_cand_free(Cand *c) {
  mlc_sch_free(c->s);
  c->s = NULL;
}

bool tune_make_cand(Task *t, const MlcSchTarget *st, int space, const MlcSchVal *dec, int n_dec, Cand *out) {
  MlcSchedule *s = mlc_sch_new(t->ctx, t->mod, t->func, rnd(t));
  if (!s) return mlc_clear_error(t->ctx), false;
  if (!mlc_sch_replay(s, t->spaces[space], dec, n_dec) || !mlc_tune_postprocess(s, st)) {
    mlc_clear_error(t->ctx);
    mlc_sch_free(s);
    return false;
  }
  MlcSchVal d[MAX_DEC];
  int n = mlc_sch_decisions(s, d, MAX_DEC);
  *out = (Cand){.space = space, .s = s};
  out->decisions = tune_decisions_json(t->ctx, d, n < MAX_DEC ? n : MAX_DEC);
  out->key = mlc_internf(t->ctx, "%d:%s", space, out->decisions);
  mlc_tune_features(mlc_sch_func(s), out->feat);
  return true;
}

/* the key of the default rules' schedule: its space, no decisions */
static const char *default_key(MlcCtx *ctx) { return mlc_internf(ctx, "%d:[]", MLC_TUNE_DEFAULT_SPACE); }

/* the default rules' schedule of the task, as a candidate */
static bool default_cand(Task *t, const MlcSchTarget *st, Cand *out) {
  MlcSchedule *s = mlc_sch_new(t->ctx, t->mod, t->func, 0);
  if (!s || !tune_default_schedule(s, st)) {
    mlc_clear_error(t->ctx);
    mlc_sch_free(s);
    return false;
  }
  *out = (Cand){.space = MLC_TUNE_DEFAULT_SPACE, .s = s, .decisions = mlc_intern(t->ctx, "[]")};
  out->key = default_key(t->ctx);
  mlc_tune_features(mlc_sch_func(s), out->feat);
  return true;
}

/* ---- rounds in scratch contexts ---------------------------------------------------------- */

bool tune_round_begin(Task *t, const MlcSchTarget *st) {
  t->ctx = mlc_ctx_new();
  t->mod = mlc_read_module(t->ctx, "task", t->text, t->text_len);
  t->n_spaces = t->mod ? mlc_tune_spaces(t->ctx, t->mod, t->func, st, t->spaces, MLC_TUNE_MAX_SPACES) : 0;
  if (t->n_spaces > 0) {
    t->func = mlc_intern(t->ctx, t->func);
    return true;
  }
  mlc_error(t->home, (MlcLoc){0}, "tune: %s: %s", t->func, mlc_error_msg(t->ctx));
  mlc_ctx_free(t->ctx);
  t->ctx = NULL;
  return false;
}

void tune_round_end(Task *t) {
  for (int i = 0; i < t->n_spaces; i++) mlc_sch_free(t->spaces[i]);
  t->func = mlc_intern(t->home, t->func);
  mlc_ctx_free(t->ctx);
  t->ctx = NULL, t->mod = NULL;
}

/* ---- the population -------------------------------------------------------------------- */

typedef struct Pop { CandVec c; MlcMap keys; } Pop;

static bool pop_add(Pop *p, Cand *c) {
  if (mlc_map_has(&p->keys, c->key)) return tune_cand_free(c), false;
  mlc_map_put(&p->keys, c->key, (void *)c->key);
  mlc_vec_push(&p->c, *c);
  return true;
}

static void seed_from_db(Task *t, Pop *p, const MlcTuneDB *db, const MlcTuneTarget *tt, const MlcSchTarget *st) {
  const MlcTuneRecord *best[SEEDS];
  int n = 0;
  for (int i = 0; i < mlc_tune_db_size(db); i++) {
    const MlcTuneRecord *r = mlc_tune_db_at(db, i);
    if (r->workload != t->workload || r->seconds <= 0 || r->error || r->library || r->space < 0 ||
        r->space >= t->n_spaces ||
        !mlc_tune_target_equal(&r->target, tt))
      continue;
    int at = n < SEEDS ? n++ : SEEDS;
    while (at > 0 && best[at - 1]->seconds > r->seconds) {
      if (at < SEEDS) best[at] = best[at - 1];
      at--;
    }
    if (at < SEEDS) best[at] = r;
  }
  for (int i = 0; i < n; i++) {
    MlcSchVal d[MAX_DEC];
    int nd = tune_decisions_parse(t->ctx, best[i]->decisions, d, MAX_DEC);
    Cand c;
    if (nd >= 0 && tune_make_cand(t, st, best[i]->space, d, nd, &c)) pop_add(p, &c);
  }
}

static void predict(Task *t, Cand *c, int n) {
  float *x = mlc_xmalloc(sizeof *x * MLC_TUNE_N_FEATURES * (size_t)(n ? n : 1)), *y = mlc_xmalloc(sizeof *y * (size_t)(n ? n : 1));
  for (int i = 0; i < n; i++) memcpy(x + (size_t)i * MLC_TUNE_N_FEATURES, c[i].feat, sizeof c[i].feat);
  if (!mlc_tune_model_predict(t->ctx, t->model, x, n, y)) {
    mlc_clear_error(t->ctx);
    memset(y, 0, sizeof *y * (size_t)n);
  }
  for (int i = 0; i < n; i++) c[i].score = y[i];
  free(x);
  free(y);
}

static int tournament(Task *t, const Pop *p) {
  int a = (int)(rnd(t) % p->c.len), b = (int)(rnd(t) % p->c.len);
  return p->c.data[a].score >= p->c.data[b].score ? a : b;
}

static void evolve(Task *t, Pop *p, const MlcSchTarget *st) {
  for (int g = 0; g < GENERATIONS && p->c.len > 0; g++) {
    predict(t, p->c.data, (int)p->c.len);
    size_t parents = p->c.len;
    for (int k = 0; k < POPULATION; k++) {
      const Cand *par = &p->c.data[tournament(t, p)];
      MlcSchVal d[MAX_DEC];
      int nd = tune_decisions_parse(t->ctx, par->decisions, d, MAX_DEC);
      if (nd <= 0) continue;
      d[rnd(t) % (uint64_t)nd] = (MlcSchVal){.kind = MLC_SV_NONE}; /* the mutation */
      Cand c;
      if (tune_make_cand(t, st, par->space, d, nd, &c)) pop_add(p, &c);
      if (p->c.len >= parents + POPULATION) break;
    }
  }
  predict(t, p->c.data, (int)p->c.len);
}

static int by_score(const void *a, const void *b) {
  float x = ((const Cand *)a)->score, y = ((const Cand *)b)->score;
  return (x < y) - (x > y);
}

int tune_search_batch(Task *t, const MlcTuneDB *db, const MlcTuneTarget *tt, const MlcSchTarget *st, double epsilon,
                      Cand *out, int n) {
  int k = 0;
  Cand def;
  if (n > 0 && !mlc_map_has(&t->seen, default_key(t->home)) &&
      default_cand(t, st, &def)) {
    if (mlc_tune_verify(def.s)) out[k++] = def;
    else mlc_clear_error(t->ctx), tune_cand_free(&def);
  }
  Pop p = {0};
  seed_from_db(t, &p, db, tt, st);
  for (int tries = 0; (int)p.c.len < POPULATION && tries < POPULATION * INIT_TRIES; tries++) {
    Cand c;
    if (tune_make_cand(t, st, (int)(rnd(t) % (uint64_t)t->n_spaces), NULL, 0, &c)) pop_add(&p, &c);
  }
  evolve(t, &p, st);
  /* the unmeasured ones, best predicted first (stable for equal scores:
   * the order they were found in, which the seed fixes) */
  CandVec pool = {0};
  for (size_t i = 0; i < p.c.len; i++) {
    if (mlc_map_has(&t->seen, mlc_intern(t->home, p.c.data[i].key))) tune_cand_free(&p.c.data[i]);
    else mlc_vec_push(&pool, p.c.data[i]);
  }
  for (size_t i = 1; i < pool.len; i++) { /* insertion sort: stable */
    Cand c = pool.data[i];
    size_t j = i;
    while (j > 0 && by_score(&pool.data[j - 1], &c) > 0) pool.data[j] = pool.data[j - 1], j--;
    pool.data[j] = c;
  }
  while (k < n && pool.len > 0) {
    size_t pick = unit(t) < epsilon ? (size_t)(rnd(t) % pool.len) : 0;
    Cand c = pool.data[pick];
    memmove(&pool.data[pick], &pool.data[pick + 1], (pool.len - pick - 1) * sizeof *pool.data);
    pool.len--;
    /* the last postprocessor, only for what is measured: it lowers */
    if (mlc_tune_verify(c.s)) out[k++] = c;
    else mlc_clear_error(t->ctx), tune_cand_free(&c);
  }
  for (size_t i = 0; i < pool.len; i++) tune_cand_free(&pool.data[i]);
  mlc_vec_free(&pool);
  mlc_vec_free(&p.c);
  mlc_map_free(&p.keys);
  return k;
}
