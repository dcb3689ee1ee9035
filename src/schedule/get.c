/* get.c - the primitives that only look: get_block, get_loops,
 * get_child_blocks, get_producers, get_consumers.  They change nothing and
 * return handles, which later primitives resolve again by name or loop
 * var, so a handle outlives every rebuild of the nodes it was taken from.
 *
 * Producers and consumers are read off the block's scope (the blocks
 * directly under the nearest enclosing block): a producer comes before the
 * block and writes a buffer it reads, a consumer comes after and reads a
 * buffer it writes -- the read-after-write edges of the scope, which is
 * what compute_at and its kin follow. */
#include "schedule/state.h"

static bool out_blocks(MlcSchedule *s, const MlcStmt *const *blocks, int n, MlcSchVal *outs, int *n_outs) {
  if (n > MLC_SCH_MAX_OUTS)
    return sch_error(s, "%d blocks found; at most %d handles can be returned", n, MLC_SCH_MAX_OUTS);
  for (int i = 0; i < n; i++)
    outs[i] = (MlcSchVal){.kind = MLC_SV_BLOCK, .rv = sch_block_rv(s, blocks[i]->realize.block->name)};
  *n_outs = n;
  return true;
}

bool sch_prim_get_block(MlcSchedule *s, const MlcSchVal *args, MlcSchVal *outs, int *n_outs) {
  const char *name, *func;
  if (!sch_arg_str(s, &args[0], "name", &name)) return false;
  if (args[1].kind != MLC_SV_NONE) {
    if (!sch_arg_str(s, &args[1], "func_name", &func)) return false;
    if (mlc_intern(s->ctx, func) != sch_func(s)->name)
      return sch_error(s, "function '%s' is not the one being scheduled ('%s')", func, sch_func(s)->name);
  }
  SchPath path;
  if (!sch_find_block(s, name, &path)) return false;
  sch_path_free(&path);
  outs[0] = (MlcSchVal){.kind = MLC_SV_BLOCK, .rv = sch_block_rv(s, name)};
  *n_outs = 1;
  return true;
}

bool sch_prim_get_loops(MlcSchedule *s, const MlcSchVal *args, MlcSchVal *outs, int *n_outs) {
  const char *name;
  SchPath path;
  if (!sch_arg_block(s, &args[0], "block", &name) || !sch_find_block(s, name, &path)) return false;
  const MlcStmt *loops[MLC_SCH_MAX_OUTS + 1];
  int n = sch_path_loops(&path, loops, MLC_SCH_MAX_OUTS + 1);
  sch_path_free(&path);
  if (n > MLC_SCH_MAX_OUTS)
    return sch_error(s, "block '%s' has more than %d loops", name, MLC_SCH_MAX_OUTS);
  for (int i = 0; i < n; i++) outs[i] = (MlcSchVal){.kind = MLC_SV_LOOP, .rv = sch_loop_rv(s, loops[i]->loop.var)};
  *n_outs = n;
  return true;
}

/* the statement a block-or-loop argument names, by path */
static bool block_or_loop(MlcSchedule *s, const MlcSchVal *v, SchPath *path) {
  if (v->kind == MLC_SV_LOOP) {
    const MlcExpr *var;
    return sch_arg_loop(s, v, "block_or_loop", &var) && sch_find_loop(s, var, path);
  }
  if (v->kind == MLC_SV_BLOCK) {
    const char *name;
    return sch_arg_block(s, v, "block_or_loop", &name) && sch_find_block(s, name, path);
  }
  if (v->kind == MLC_SV_NONE) return sch_error(s, "missing argument 'block_or_loop'");
  return sch_error(s, "'block_or_loop' must be a block or loop handle");
}

bool sch_prim_get_child_blocks(MlcSchedule *s, const MlcSchVal *args, MlcSchVal *outs, int *n_outs) {
  SchPath path;
  if (!block_or_loop(s, &args[0], &path)) return false;
  const MlcStmt *blocks[MLC_SCH_MAX_OUTS + 1];
  int n = sch_child_blocks(path.nodes[path.n - 1], blocks, MLC_SCH_MAX_OUTS + 1);
  sch_path_free(&path);
  return out_blocks(s, blocks, n, outs, n_outs);
}

static bool reads_buffer(const MlcBlock *b, const MlcBuffer *buf) {
  for (int i = 0; i < b->n_reads; i++)
    if (b->reads[i].buf == buf) return true;
  return false;
}

/* true when a writes a buffer that b reads */
static bool feeds(const MlcBlock *a, const MlcBlock *b) {
  for (int i = 0; i < a->n_writes; i++)
    if (reads_buffer(b, a->writes[i].buf)) return true;
  return false;
}

/* The blocks of the scope of `name` that come before it and feed it
 * (producers) or come after it and are fed by it (consumers). */
static bool related(MlcSchedule *s, const MlcSchVal *arg, bool producers, MlcSchVal *outs, int *n_outs) {
  const char *name;
  SchPath path;
  if (!sch_arg_block(s, arg, "block", &name) || !sch_find_block(s, name, &path)) return false;
  const MlcStmt *self = path.nodes[path.n - 1];
  const MlcStmt *scope = NULL;
  for (int i = path.n - 2; i >= 0 && !scope; i--)
    if (path.nodes[i]->kind == MLC_STMT_BLOCK_REALIZE) scope = path.nodes[i];
  sch_path_free(&path);
  *n_outs = 0;
  if (!scope) return true; /* the root block has no siblings */
  int cap = 64, n;
  const MlcStmt **siblings = NULL;
  for (;;) { /* grow until every sibling fits */
    siblings = mlc_xrealloc(siblings, (size_t)cap * sizeof *siblings);
    n = sch_child_blocks(scope, siblings, cap);
    if (n < cap) break;
    cap *= 2;
  }
  const MlcStmt *found[MLC_SCH_MAX_OUTS + 1];
  int k = 0, at = 0;
  while (at < n && siblings[at] != self) at++;
  const MlcBlock *me = self->realize.block;
  for (int i = producers ? 0 : at + 1; i < (producers ? at : n) && k <= MLC_SCH_MAX_OUTS; i++) {
    const MlcBlock *other = siblings[i]->realize.block;
    if (producers ? feeds(other, me) : feeds(me, other)) found[k++] = siblings[i];
  }
  free(siblings);
  return out_blocks(s, found, k, outs, n_outs);
}

bool sch_prim_get_producers(MlcSchedule *s, const MlcSchVal *args, MlcSchVal *outs, int *n_outs) {
  return related(s, &args[0], true, outs, n_outs);
}

bool sch_prim_get_consumers(MlcSchedule *s, const MlcSchVal *args, MlcSchVal *outs, int *n_outs) {
  return related(s, &args[0], false, outs, n_outs);
}
