/* schedule.c - schedules through the stable C API.  Every primitive goes
 * through mlc_sch_apply by its entry in the one primitive table
 * (MLC_SCH_PRIMITIVES), so a binding generates its methods from
 * mlcc_schedule_prim_name / _params instead of listing them. */
#include "api/api.h"
#include "schedule/core.h"

#include <string.h>

struct MlccSchedule {
  MlccContext *c;
  MlcSchedule *s;
};

int mlcc_schedule_num_prims(void) { return MLC_SCH_PRIM_COUNT; }

const char *mlcc_schedule_prim_name(int i) {
  return i >= 0 && i < MLC_SCH_PRIM_COUNT ? mlc_sch_prim_names[i] : NULL;
}

const char *mlcc_schedule_prim_params(int i) {
  return i >= 0 && i < MLC_SCH_PRIM_COUNT ? mlc_sch_prim_params[i] : NULL;
}

MlccSchedule *mlcc_schedule_new(MlccContext *c, const MlccModule *m, const char *func, uint64_t seed) {
  api_begin(c);
  MlcSchedule *s = mlc_sch_new(c->ctx, API_MOD(m), func, seed);
  if (!s) return api_fail(c), NULL;
  MlccSchedule *out = mlc_xcalloc(1, sizeof *out);
  out->c = c;
  out->s = s;
  return out;
}

void mlcc_schedule_free(MlccSchedule *s) {
  if (!s) return;
  mlc_sch_free(s->s);
  free(s);
}

/* the most list nesting a value may have (a list of lists is the deepest a
 * primitive takes) */
#define MAX_DEPTH 8

static bool to_sch_val(MlccContext *c, const MlccValue *v, MlcSchVal *out, int depth) {
  static const MlcSchValKind kinds[] = {
      [MLCC_V_NONE] = MLC_SV_NONE,   [MLCC_V_BLOCK] = MLC_SV_BLOCK, [MLCC_V_LOOP] = MLC_SV_LOOP,
      [MLCC_V_INTRV] = MLC_SV_INTRV, [MLCC_V_INT] = MLC_SV_INT,     [MLCC_V_FLOAT] = MLC_SV_FLOAT,
      [MLCC_V_BOOL] = MLC_SV_BOOL,   [MLCC_V_STR] = MLC_SV_STR,     [MLCC_V_LIST] = MLC_SV_LIST,
      [MLCC_V_LAMBDA] = MLC_SV_LAMBDA,
  };
  if (v->kind < 0 || (size_t)v->kind >= sizeof kinds / sizeof *kinds)
    return api_failf(c, "unknown value kind %d", (int)v->kind);
  *out = (MlcSchVal){.kind = kinds[v->kind]};
  switch ((MlccValueKind)v->kind) {
  case MLCC_V_NONE: return true;
  case MLCC_V_BLOCK: case MLCC_V_LOOP: case MLCC_V_INTRV:
    if (v->i < 0 || v->i > INT32_MAX) return api_failf(c, "bad handle id %lld", (long long)v->i);
    out->rv = (int)v->i;
    return true;
  case MLCC_V_INT: case MLCC_V_BOOL: out->i = v->i; return true;
  case MLCC_V_FLOAT: out->f = v->f; return true;
  case MLCC_V_STR: case MLCC_V_LAMBDA:
    if (!v->s) return api_failf(c, "a string value without its text");
    out->s = mlc_intern(c->ctx, v->s);
    return true;
  case MLCC_V_LIST:
    if (depth >= MAX_DEPTH) return api_failf(c, "lists nested too deep");
    if (v->n < 0 || (v->n > 0 && !v->items)) return api_failf(c, "a list value without its items");
    out->list.n = v->n;
    out->list.items = mlc_arena_array(&c->ctx->arena, (size_t)(v->n ? v->n : 1), sizeof *out->list.items);
    for (int k = 0; k < v->n; k++)
      if (!to_sch_val(c, &v->items[k], &out->list.items[k], depth + 1)) return false;
    return true;
  }
  return false;
}

static MlccValue from_sch_val(MlcSchVal v) {
  switch (v.kind) {
  case MLC_SV_BLOCK: return (MlccValue){.kind = MLCC_V_BLOCK, .i = v.rv};
  case MLC_SV_LOOP: return (MlccValue){.kind = MLCC_V_LOOP, .i = v.rv};
  case MLC_SV_INTRV: return (MlccValue){.kind = MLCC_V_INTRV, .i = v.rv};
  case MLC_SV_INT: return (MlccValue){.kind = MLCC_V_INT, .i = v.i};
  case MLC_SV_BOOL: return (MlccValue){.kind = MLCC_V_BOOL, .i = v.i};
  case MLC_SV_FLOAT: return (MlccValue){.kind = MLCC_V_FLOAT, .f = v.f};
  case MLC_SV_STR: return (MlccValue){.kind = MLCC_V_STR, .s = v.s};
  default: return (MlccValue){.kind = MLCC_V_NONE};
  }
}

int mlcc_schedule_apply(MlccSchedule *s, const char *prim, const MlccValue *args, int n_args,
                        MlccValue *outs, int cap, int *n_outs) {
  MlccContext *c = s->c;
  api_begin(c);
  if (n_outs) *n_outs = 0;
  MlcSchPrim p;
  if (!prim || !sch_prim_lookup(prim, &p)) return api_failf(c, "unknown schedule primitive '%s'", prim ? prim : "(null)"), 1;
  SchParam ps[SCH_MAX_PARAMS];
  int np = sch_params(p, ps);
  if (n_args < 0 || n_args > np || (n_args > 0 && !args))
    return api_failf(c, "%s: takes %d arguments, got %d", prim, np, n_args), 1;
  MlcSchVal a[SCH_MAX_PARAMS] = {{0}};
  for (int i = 0; i < n_args; i++)
    if (!to_sch_val(c, &args[i], &a[i], 0)) return 1;
  MlcSchVal o[MLC_SCH_MAX_OUTS];
  int n = 0;
  if (!mlc_sch_apply(s->s, p, a, o, &n)) return api_fail(c), 1;
  for (int i = 0; i < n && i < cap; i++) outs[i] = from_sch_val(o[i]);
  if (n_outs) *n_outs = n < cap ? n : cap;
  return 0;
}

const MlccModule *mlcc_schedule_module(const MlccSchedule *s) { return (const MlccModule *)mlc_sch_module(s->s); }

char *mlcc_schedule_trace(const MlccSchedule *s) {
  MlcStrBuf sb = {0};
  mlc_sch_print_trace(s->s, &sb);
  return api_take(&sb);
}

int mlcc_schedule_run_script(MlccSchedule *s, const char *text) {
  api_begin(s->c);
  if (!text) return api_failf(s->c, "no script"), 1;
  if (!mlc_sch_run_script(s->s, "<script>", text, strlen(text))) return api_fail(s->c), 1;
  return 0;
}

int mlcc_schedule_int_value(MlccSchedule *s, int64_t rv, int64_t *out) {
  api_begin(s->c);
  const MlcSchedule *st = s->s;
  if (rv < 0 || (size_t)rv >= st->rvs.len || st->rvs.data[rv].kind != MLC_SV_INTRV)
    return api_failf(s->c, "%lld is not a sampled integer of this schedule", (long long)rv), 1;
  *out = st->rvs.data[rv].value;
  return 0;
}
