/* replay.c - replaying one schedule's trace onto another, with some of its
 * sampling decisions changed: how a search turns a design space (a trace
 * with sampling instructions) into candidates, and how a mutation (one
 * decision drawn anew) becomes a new program.
 *
 * Handles of the source trace are mapped to the handles the replay makes,
 * instruction by instruction, through the same mlc_sch_apply every script
 * goes through, so the replayed trace is an ordinary one (it prints, and its
 * script replays the same program).  A decision that is not given is drawn
 * from the target schedule's generator. */
#include "schedule/core.h"

#include <string.h>

#define NOLOC ((MlcLoc){0})

static bool is_sampling(MlcSchPrim p) {
  return p == MLC_SCH_sample_perfect_tile || p == MLC_SCH_sample_categorical || p == MLC_SCH_sample_compute_location;
}

int mlc_sch_decisions(const MlcSchedule *s, MlcSchVal *out, int cap) {
  int n = 0;
  for (size_t k = 0; k < s->trace.len; k++) {
    const SchInst *in = &s->trace.data[k];
    if (!is_sampling(in->prim)) continue;
    if (n < cap) out[n] = in->has_decision ? in->decision : (MlcSchVal){.kind = MLC_SV_NONE};
    n++;
  }
  return n;
}

int mlc_sch_trace_len(const MlcSchedule *s) { return (int)s->trace.len; }

/* v with every handle of the source mapped through map (-1: unknown) */
static bool map_val(MlcSchedule *to, const int *map, size_t n_map, MlcSchVal v, MlcSchVal *out) {
  if (v.kind == MLC_SV_BLOCK || v.kind == MLC_SV_LOOP || v.kind == MLC_SV_INTRV) {
    if (v.rv < 0 || (size_t)v.rv >= n_map || map[v.rv] < 0)
      return mlc_error(to->ctx, NOLOC, "replay: the trace uses a handle it never made");
    v.rv = map[v.rv];
  } else if (v.kind == MLC_SV_LIST && v.list.n > 0) {
    MlcSchVal *items = mlc_arena_array(&to->ctx->arena, (size_t)v.list.n, sizeof *items);
    for (int i = 0; i < v.list.n; i++)
      if (!map_val(to, map, n_map, v.list.items[i], &items[i])) return false;
    v.list.items = items;
  }
  *out = v;
  return true;
}

bool mlc_sch_replay(MlcSchedule *to, const MlcSchedule *from, const MlcSchVal *decisions, int n) {
  size_t n_map = from->rvs.len;
  int *map = mlc_xmalloc((n_map ? n_map : 1) * sizeof *map);
  for (size_t i = 0; i < n_map; i++) map[i] = -1;
  int k = 0;
  bool ok = true;
  for (size_t t = 0; ok && t < from->trace.len; t++) {
    const SchInst *in = &from->trace.data[t];
    MlcSchVal args[SCH_MAX_PARAMS] = {{0}}, outs[MLC_SCH_MAX_OUTS];
    for (int i = 0; ok && i < in->n_args && i < SCH_MAX_PARAMS; i++) ok = map_val(to, map, n_map, in->args[i], &args[i]);
    if (!ok) break;
    if (is_sampling(in->prim)) {
      int d = sch_param_index(in->prim, "decision", strlen("decision"));
      args[d] = k < n && decisions ? decisions[k] : (MlcSchVal){.kind = MLC_SV_NONE};
      k++;
    }
    int n_outs;
    ok = mlc_sch_apply(to, in->prim, args, outs, &n_outs);
    if (ok && n_outs != in->n_outs) ok = mlc_error(to->ctx, NOLOC, "replay: %s made %d handles, the trace %d",
                                                   mlc_sch_prim_names[in->prim], n_outs, in->n_outs);
    for (int o = 0; ok && o < n_outs; o++) {
      int id = in->outs[o].rv;
      if (id >= 0 && (size_t)id < n_map) map[id] = outs[o].rv;
    }
  }
  free(map);
  return ok;
}
