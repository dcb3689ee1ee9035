/* apply.c - the one door every primitive goes through: creating a
 * schedule, dispatching a primitive by its table entry, and recording each
 * successful application in the trace.
 *
 * Scripts, trace replay and the typed C entry points all call
 * mlc_sch_apply, so every application is recorded the same way, with
 * defaults made explicit: a trace then says exactly what was done and
 * replays the same whatever later defaults become.  A refused primitive
 * leaves nothing behind: the module pointer and the handle table are put
 * back as they were, whatever the primitive did before it failed. */
#include "schedule/core.h"

#include <assert.h>
#include <string.h>

#define NOLOC ((MlcLoc){0})

const char *const mlc_sch_prim_names[MLC_SCH_PRIM_COUNT] = {
#define X(name, params) #name,
    MLC_SCH_PRIMITIVES(X)
#undef X
};

const char *const mlc_sch_prim_params[MLC_SCH_PRIM_COUNT] = {
#define X(name, params) params,
    MLC_SCH_PRIMITIVES(X)
#undef X
};


typedef bool (*SchPrimFn)(MlcSchedule *s, const MlcSchVal *args, MlcSchVal *outs, int *n_outs);

static const SchPrimFn prim_fns[MLC_SCH_PRIM_COUNT] = {
#define X(name, params) sch_prim_##name,
    MLC_SCH_PRIMITIVES(X)
#undef X
};

/* ---- the parameter table ------------------------------------------------- */

int sch_params(MlcSchPrim prim, SchParam out[SCH_MAX_PARAMS]) {
  const char *p = mlc_sch_prim_params[prim];
  int n = 0;
  while (*p) {
    while (*p == ' ') p++;
    if (!*p) break;
    bool star = *p == '*';
    if (star) p++;
    const char *start = p;
    while (*p && *p != ' ') p++;
    assert(n < SCH_MAX_PARAMS);
    out[n++] = (SchParam){start, (int)(p - start), star};
  }
  return n;
}

int sch_param_index(MlcSchPrim prim, const char *name, size_t len) {
  SchParam ps[SCH_MAX_PARAMS];
  int n = sch_params(prim, ps);
  for (int i = 0; i < n; i++)
    if ((size_t)ps[i].len == len && memcmp(ps[i].name, name, len) == 0) return i;
  return -1;
}

/* newer spellings of the field's API, read as the primitive they rename */
static const struct { const char *alias, *name; } prim_aliases[] = {
    {"get_sblock", "get_block"},
};

bool sch_prim_lookup(const char *name, MlcSchPrim *out) {
  for (size_t i = 0; i < sizeof prim_aliases / sizeof *prim_aliases; i++)
    if (strcmp(name, prim_aliases[i].alias) == 0) name = prim_aliases[i].name;
  for (int p = 0; p < MLC_SCH_PRIM_COUNT; p++)
    if (strcmp(name, mlc_sch_prim_names[p]) == 0) return *out = (MlcSchPrim)p, true;
  return false;
}

MlcSchVal sch_val_copy(MlcArena *a, MlcSchVal v) {
  if (v.kind != MLC_SV_LIST || v.list.n <= 0) return v;
  MlcSchVal *items = mlc_arena_array(a, (size_t)v.list.n, sizeof *items);
  for (int i = 0; i < v.list.n; i++) items[i] = sch_val_copy(a, v.list.items[i]);
  v.list.items = items;
  return v;
}

/* ---- defaults ---------------------------------------------------------------
 * Parameters whose absence means a value, filled in before dispatch so the
 * primitive and the trace both see it. */
static const struct { MlcSchPrim prim; const char *param; bool value; } bool_defaults[] = {
    {MLC_SCH_split, "preserve_unit_iters", true},
    {MLC_SCH_fuse, "preserve_unit_iters", true},
    {MLC_SCH_compute_at, "preserve_unit_loops", false},
    {MLC_SCH_reverse_compute_at, "preserve_unit_loops", false},
    {MLC_SCH_blockize, "preserve_unit_iters", true},
    {MLC_SCH_tensorize, "preserve_unit_iters", true},
};

static void fill_defaults(MlcSchPrim prim, MlcSchVal *args) {
  for (size_t i = 0; i < sizeof bool_defaults / sizeof *bool_defaults; i++) {
    if (bool_defaults[i].prim != prim) continue;
    int k = sch_param_index(prim, bool_defaults[i].param, strlen(bool_defaults[i].param));
    assert(k >= 0);
    if (args[k].kind == MLC_SV_NONE) args[k] = (MlcSchVal){.kind = MLC_SV_BOOL, .i = bool_defaults[i].value};
  }
}

/* ---- applying ---------------------------------------------------------------- */

static void record(MlcSchedule *s, MlcSchPrim prim, const MlcSchVal *args, int n_args,
                   const MlcSchVal *outs, int n_outs) {
  MlcArena *a = &s->ctx->arena;
  SchInst inst = {.prim = prim, .n_args = n_args, .n_outs = n_outs};
  inst.args = mlc_arena_array(a, (size_t)(n_args > 0 ? n_args : 1), sizeof *inst.args);
  for (int i = 0; i < n_args; i++) inst.args[i] = sch_val_copy(a, args[i]);
  inst.outs = mlc_arena_array(a, (size_t)(n_outs > 0 ? n_outs : 1), sizeof *inst.outs);
  for (int i = 0; i < n_outs; i++) inst.outs[i] = outs[i];
  if (s->pending_decision) {
    inst.has_decision = true;
    inst.decision = sch_val_copy(a, s->decision);
  }
  mlc_vec_push(&s->trace, inst);
}

bool mlc_sch_apply(MlcSchedule *s, MlcSchPrim prim, const MlcSchVal *args, MlcSchVal *outs, int *n_outs) {
  *n_outs = 0;
  if ((unsigned)prim >= MLC_SCH_PRIM_COUNT)
    return mlc_error(s->ctx, NOLOC, "unknown schedule primitive %d", (int)prim);
  SchParam ps[SCH_MAX_PARAMS];
  int np = sch_params(prim, ps);
  MlcSchVal a[SCH_MAX_PARAMS] = {{0}};
  for (int i = 0; i < np; i++) a[i] = args ? args[i] : (MlcSchVal){.kind = MLC_SV_NONE};
  fill_defaults(prim, a);
  int d = sch_param_index(prim, "decision", strlen("decision"));

  MlcModule *saved = s->mod;
  size_t saved_rvs = s->rvs.len;
  s->running = prim;
  s->pending_decision = false;
  s->forced_decision = d >= 0 && a[d].kind != MLC_SV_NONE ? &a[d] : NULL;
  int n = 0;
  bool ok = prim_fns[prim](s, a, outs, &n);
  s->running = -1;
  s->forced_decision = NULL;
  mlc_map_free(&s->fresh_names);
  if (!ok || n < 0 || n > MLC_SCH_MAX_OUTS) {
    if (!mlc_has_error(s->ctx)) mlc_error(s->ctx, NOLOC, "%s: refused", mlc_sch_prim_names[prim]);
    s->mod = saved;
    s->rvs.len = saved_rvs;
    s->pending_decision = false;
    return false;
  }
  record(s, prim, a, np, outs, n);
  s->pending_decision = false;
  *n_outs = n;
  return true;
}

/* ---- the schedule -------------------------------------------------------------- */

/* index of the prim func to schedule; -1 with an error */
static int pick_func(MlcCtx *ctx, const MlcModule *m, const char *func) {
  if (func) {
    const char *name = mlc_intern(ctx, func);
    for (int i = 0; i < m->n_funcs; i++)
      if (m->funcs[i].name == name) {
        if (m->funcs[i].kind == MLC_FUNC_PRIM) return i;
        return mlc_error(ctx, NOLOC, "function '%s' is a graph function, not a prim func", func), -1;
      }
    return mlc_error(ctx, NOLOC, "the module has no function named '%s'", func), -1;
  }
  int found = -1, count = 0;
  for (int i = 0; i < m->n_funcs; i++)
    if (m->funcs[i].kind == MLC_FUNC_PRIM) found = i, count++;
  if (count == 0) return mlc_error(ctx, NOLOC, "the module has no prim func to schedule"), -1;
  if (count > 1)
    return mlc_error(ctx, NOLOC, "the module has %d prim funcs; name the one to schedule", count), -1;
  return found;
}

MlcSchedule *mlc_sch_new(MlcCtx *ctx, const MlcModule *m, const char *func, uint64_t seed) {
  if (!m) return NULL;
  int index = pick_func(ctx, m, func);
  if (index < 0) return NULL;
  MlcSchedule *s = mlc_xcalloc(1, sizeof *s);
  s->ctx = ctx;
  s->mod = (MlcModule *)m; /* never written through: primitives swap in new modules */
  s->func_index = index;
  s->running = -1;
  sch_seed(s, seed);
  return s;
}

void mlc_sch_free(MlcSchedule *s) {
  if (!s) return;
  mlc_vec_free(&s->rvs);
  mlc_vec_free(&s->trace);
  mlc_map_free(&s->fresh_names);
  free(s);
}

MlcCtx *mlc_sch_ctx(const MlcSchedule *s) { return s->ctx; }
const MlcModule *mlc_sch_module(const MlcSchedule *s) { return s->mod; }
const MlcPrimFunc *mlc_sch_func(const MlcSchedule *s) { return sch_func(s); }

/* ---- typed entry points ------------------------------------------------------------ */

bool mlc_sch_get_block(MlcSchedule *s, const char *name, MlcBlockRV *out) {
  MlcSchVal args[SCH_MAX_PARAMS] = {{.kind = MLC_SV_STR, .s = mlc_intern(s->ctx, name)}};
  MlcSchVal outs[MLC_SCH_MAX_OUTS];
  int n;
  if (!mlc_sch_apply(s, MLC_SCH_get_block, args, outs, &n)) return false;
  out->id = outs[0].rv;
  return true;
}

bool mlc_sch_get_loops(MlcSchedule *s, MlcBlockRV b, MlcLoopRV *out, int cap, int *n) {
  MlcSchVal args[SCH_MAX_PARAMS] = {{.kind = MLC_SV_BLOCK, .rv = b.id}};
  MlcSchVal outs[MLC_SCH_MAX_OUTS];
  int k;
  *n = 0;
  if (!mlc_sch_apply(s, MLC_SCH_get_loops, args, outs, &k)) return false;
  for (int i = 0; i < k && i < cap; i++) out[i].id = outs[i].rv;
  *n = k < cap ? k : cap;
  return true;
}

bool mlc_sch_split(MlcSchedule *s, MlcLoopRV loop, const int64_t *factors, int n, MlcLoopRV *out) {
  if (n <= 0 || n > MLC_SCH_MAX_OUTS)
    return mlc_error(s->ctx, NOLOC, "split: %d factors (want 1 to %d)", n, MLC_SCH_MAX_OUTS);
  MlcSchVal fs[MLC_SCH_MAX_OUTS];
  for (int i = 0; i < n; i++)
    fs[i] = factors[i] ? (MlcSchVal){.kind = MLC_SV_INT, .i = factors[i]} : (MlcSchVal){.kind = MLC_SV_NONE};
  MlcSchVal args[SCH_MAX_PARAMS] = {{.kind = MLC_SV_LOOP, .rv = loop.id},
                                    {.kind = MLC_SV_LIST, .list = {fs, n}}};
  MlcSchVal outs[MLC_SCH_MAX_OUTS];
  int k;
  if (!mlc_sch_apply(s, MLC_SCH_split, args, outs, &k)) return false;
  for (int i = 0; i < k && i < n; i++) out[i].id = outs[i].rv;
  return true;
}
