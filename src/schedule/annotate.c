/* annotate.c - the primitives that mark loops and blocks without moving
 * anything: parallel, vectorize, unroll and bind change a loop's kind;
 * annotate and unannotate set and remove a key of a block's or loop's
 * annotations.
 *
 * None of them changes what a program computes when it runs serially, so
 * the only thing to refuse is a kind the loop cannot have: a loop whose
 * iterations would run at once (parallel, vectorized, bound to a block or
 * virtual thread) must not carry a reduction, i.e. no block under it may
 * bind a reduce (or opaque) iter to an expression of the loop var.  The one
 * exception, as in TVM, is a reduction bound to threadIdx, which lowering
 * turns into a cross-thread reduction.  Whether a vectorized loop of
 * symbolic extent can really become vector code is for lowering to decide. */
#include "schedule/state.h"

#include <string.h>

/* ---- loop kinds --------------------------------------------------------------- */

/* What a block under a re-kinded loop may bind to the loop var. */
typedef enum IterRule {
  RULE_ANY,     /* unroll: nothing runs at once */
  RULE_SPATIAL, /* parallel, vectorize, blockIdx, vthread */
  RULE_THREAD,  /* threadIdx: spatial, or a reduction across threads */
} IterRule;

typedef struct VarProbe {
  MlcVisitor v; /* first member: the hook gets &probe->v */
  const MlcExpr *var;
  bool found;
} VarProbe;

static bool find_var(MlcVisitor *v, const MlcExpr *e) {
  VarProbe *p = (VarProbe *)v;
  if (e == p->var) p->found = true;
  return !p->found;
}

static bool uses_var(const MlcExpr *e, const MlcExpr *var) {
  VarProbe probe = {.v = {.expr = find_var}, .var = var};
  mlc_visit_expr(&probe.v, e);
  return probe.found;
}

typedef struct KindCheck {
  MlcVisitor v; /* first member: the hook gets &kc->v */
  MlcSchedule *s;
  const MlcExpr *var;
  IterRule rule;
  bool ok;
} KindCheck;

static const char *const iter_kind_names[] = {
    [MLC_ITER_SPATIAL] = "spatial", [MLC_ITER_REDUCE] = "reduce", [MLC_ITER_OPAQUE] = "opaque"};

static bool check_realize(MlcVisitor *v, const MlcStmt *st) {
  KindCheck *kc = (KindCheck *)v;
  if (!kc->ok) return false;
  if (st->kind != MLC_STMT_BLOCK_REALIZE) return true;
  const MlcBlock *b = st->realize.block;
  for (int i = 0; i < b->n_iters && i < st->realize.n && kc->ok; i++) {
    MlcIterKind k = b->iters[i].kind;
    if (k == MLC_ITER_SPATIAL || (k == MLC_ITER_REDUCE && kc->rule == RULE_THREAD)) continue;
    if (!uses_var(st->realize.values[i], kc->var)) continue;
    kc->ok = sch_error(kc->s,
                       "loop '%s' carries a reduction: block '%s' binds its %s iter '%s' to an "
                       "expression of the loop var, so the loop's iterations cannot run at once",
                       kc->var->var.name, b->name, iter_kind_names[k], b->iters[i].var->var.name);
  }
  return kc->ok;
}

/* Give the loop a new kind (and thread tag), after checking the blocks
 * under it allow that kind. */
static bool set_kind(MlcSchedule *s, const MlcSchVal *loop_arg, MlcForKind kind, const char *thread,
                     IterRule rule) {
  const MlcExpr *var;
  SchPath path = {0};
  if (!sch_arg_loop(s, loop_arg, "loop", &var) || !sch_find_loop(s, var, &path)) return false;
  const MlcStmt *loop = path.nodes[path.n - 1];
  sch_path_free(&path);
  if (rule != RULE_ANY) {
    KindCheck kc = {.v = {.stmt = check_realize}, .s = s, .var = var, .rule = rule, .ok = true};
    mlc_visit_stmt(&kc.v, loop->loop.body);
    if (!kc.ok) return false;
  }
  int64_t n;
  if (kind == MLC_FOR_VECTORIZED && mlc_e_is_const_int(loop->loop.extent, &n) && n > MLC_MAX_VECTOR_LANES)
    return sch_error(s, "cannot vectorize loop '%s': its extent %lld is more than the %d lanes vector code can have; "
                        "split it first", var->var.name, (long long)n, MLC_MAX_VECTOR_LANES);
  MlcStmt *repl = mlc_s_for(s->ctx, loop->loop.var, loop->loop.min, loop->loop.extent, kind, thread,
                            loop->loop.annotations, loop->loop.body);
  MlcStmt *body = repl ? sch_replace(s, loop, repl) : NULL;
  return body && sch_commit(s, body);
}

bool sch_prim_parallel(MlcSchedule *s, const MlcSchVal *args, MlcSchVal *outs, int *n_outs) {
  *n_outs = 0;
  return set_kind(s, &args[0], MLC_FOR_PARALLEL, NULL, RULE_SPATIAL);
}

/* A constant extent beyond what vector code can hold is refused here, where
 * the script line is known, not when the C is built. */
bool sch_prim_vectorize(MlcSchedule *s, const MlcSchVal *args, MlcSchVal *outs, int *n_outs) {
  *n_outs = 0;
  return set_kind(s, &args[0], MLC_FOR_VECTORIZED, NULL, RULE_SPATIAL);
}

bool sch_prim_unroll(MlcSchedule *s, const MlcSchVal *args, MlcSchVal *outs, int *n_outs) {
  *n_outs = 0;
  return set_kind(s, &args[0], MLC_FOR_UNROLLED, NULL, RULE_ANY);
}

/* The thread axes a loop can be bound to, and what each allows below it. */
static const struct {
  const char *tag;
  IterRule rule;
} thread_axes[] = {
    {"blockIdx.x", RULE_SPATIAL},  {"blockIdx.y", RULE_SPATIAL},  {"blockIdx.z", RULE_SPATIAL},
    {"threadIdx.x", RULE_THREAD},  {"threadIdx.y", RULE_THREAD},  {"threadIdx.z", RULE_THREAD},
    {"vthread", RULE_SPATIAL},     {"vthread.x", RULE_SPATIAL},   {"vthread.y", RULE_SPATIAL},
    {"vthread.z", RULE_SPATIAL},
};

bool sch_prim_bind(MlcSchedule *s, const MlcSchVal *args, MlcSchVal *outs, int *n_outs) {
  const char *tag;
  const MlcExpr *var;
  *n_outs = 0;
  if (!sch_arg_loop(s, &args[0], "loop", &var) || !sch_arg_str(s, &args[1], "thread_axis", &tag))
    return false;
  for (size_t i = 0; i < sizeof thread_axes / sizeof thread_axes[0]; i++)
    if (strcmp(tag, thread_axes[i].tag) == 0)
      return set_kind(s, &args[0], MLC_FOR_THREAD, mlc_intern(s->ctx, tag), thread_axes[i].rule);
  return sch_error(s,
                   "loop '%s': unknown thread axis '%s' (expected blockIdx.x/y/z, threadIdx.x/y/z or "
                   "vthread.x/y/z)",
                   var->var.name, tag);
}

/* ---- annotations ---------------------------------------------------------------- */

/* An annotation value from a script value: ints (literal or sampled),
 * floats, strings, bools, and lists of them. */
static bool to_attr(MlcSchedule *s, const MlcSchVal *v, MlcAttrValue *out, int depth) {
  switch (v->kind) {
  case MLC_SV_INT:
  case MLC_SV_INTRV: out->kind = MLC_ATTR_INT; return sch_arg_int(s, v, "ann_val", &out->i);
  case MLC_SV_BOOL: out->kind = MLC_ATTR_BOOL, out->b = v->i != 0; return true;
  case MLC_SV_FLOAT: out->kind = MLC_ATTR_FLOAT, out->f = v->f; return true;
  case MLC_SV_STR: out->kind = MLC_ATTR_STR, out->s = mlc_intern(s->ctx, v->s); return true;
  case MLC_SV_LIST:
    if (depth > 8) return sch_error(s, "'ann_val' nests lists too deeply");
    out->kind = MLC_ATTR_LIST;
    out->list.n = v->list.n;
    out->list.items =
        v->list.n ? mlc_arena_array(&s->ctx->arena, (size_t)v->list.n, sizeof *out->list.items) : NULL;
    for (int i = 0; i < v->list.n; i++)
      if (!to_attr(s, &v->list.items[i], &out->list.items[i], depth + 1)) return false;
    return true;
  case MLC_SV_NONE:
  case MLC_SV_BLOCK:
  case MLC_SV_LOOP:
  case MLC_SV_LAMBDA: break;
  }
  return sch_error(s, "'ann_val' must be an int, float, string or bool");
}

static int attr_index(MlcAttrs a, const char *key) {
  for (int i = 0; i < a.n; i++)
    if (a.items[i].key == key) return i;
  return -1;
}

/* The statement a block-or-loop handle names, its name for messages and
 * its current annotations. */
typedef struct Target {
  const MlcStmt *stmt;
  bool is_block;
  const char *name;
  MlcAttrs attrs;
} Target;

static bool find_target(MlcSchedule *s, const MlcSchVal *v, Target *t) {
  SchPath path = {0};
  if (v->kind == MLC_SV_BLOCK) {
    const char *name;
    if (!sch_arg_block(s, v, "block_or_loop", &name) || !sch_find_block(s, name, &path)) return false;
  } else if (v->kind == MLC_SV_LOOP) {
    const MlcExpr *var;
    if (!sch_arg_loop(s, v, "block_or_loop", &var) || !sch_find_loop(s, var, &path)) return false;
  } else {
    return sch_error(s, "'block_or_loop' must be a block or loop handle");
  }
  t->stmt = path.nodes[path.n - 1];
  sch_path_free(&path);
  t->is_block = t->stmt->kind == MLC_STMT_BLOCK_REALIZE;
  t->name = t->is_block ? t->stmt->realize.block->name : t->stmt->loop.var->var.name;
  t->attrs = t->is_block ? t->stmt->realize.block->annotations : t->stmt->loop.annotations;
  return true;
}

/* Commit the target with new annotations. */
static bool commit_attrs(MlcSchedule *s, const Target *t, MlcAttrs attrs) {
  MlcCtx *ctx = s->ctx;
  const MlcStmt *st = t->stmt;
  MlcStmt *repl;
  if (t->is_block) {
    const MlcBlock *b = st->realize.block;
    MlcBlock *nb = mlc_block_new(ctx, b->name, b->iters, b->n_iters, b->reads, b->n_reads, b->writes,
                                 b->n_writes, b->init, b->allocs, b->n_allocs, attrs, b->body);
    repl = nb ? mlc_s_realize(ctx, st->realize.values, st->realize.n, st->realize.pred, nb) : NULL;
  } else {
    repl = mlc_s_for(ctx, st->loop.var, st->loop.min, st->loop.extent, st->loop.kind, st->loop.thread, attrs,
                     st->loop.body);
  }
  MlcStmt *body = repl ? sch_replace(s, st, repl) : NULL;
  return body && sch_commit(s, body);
}

bool sch_prim_annotate(MlcSchedule *s, const MlcSchVal *args, MlcSchVal *outs, int *n_outs) {
  Target t;
  const char *key;
  MlcAttrValue val = {0};
  *n_outs = 0;
  if (!find_target(s, &args[0], &t) || !sch_arg_str(s, &args[1], "ann_key", &key)) return false;
  if (args[2].kind == MLC_SV_NONE) return sch_error(s, "missing argument 'ann_val'");
  if (!to_attr(s, &args[2], &val, 0)) return false;
  return commit_attrs(s, &t, mlc_attrs_with(s->ctx, t.attrs, mlc_intern(s->ctx, key), &val));
}

bool sch_prim_unannotate(MlcSchedule *s, const MlcSchVal *args, MlcSchVal *outs, int *n_outs) {
  Target t;
  const char *key;
  *n_outs = 0;
  if (!find_target(s, &args[0], &t) || !sch_arg_str(s, &args[1], "ann_key", &key)) return false;
  key = mlc_intern(s->ctx, key);
  if (attr_index(t.attrs, key) < 0)
    return sch_error(s, "%s '%s' has no annotation '%s'", t.is_block ? "block" : "loop", t.name, key);
  return commit_attrs(s, &t, mlc_attrs_with(s->ctx, t.attrs, key, NULL));
}

/* The field's tuner writes this line between the sampled design and the
 * postprocessing it applies to it (parallel, vectorize, unroll pragmas); it
 * changes nothing, and is kept in the trace so a replayed trace reads the
 * same. */
bool sch_prim_enter_postproc(MlcSchedule *s, const MlcSchVal *args, MlcSchVal *outs, int *n_outs) {
  (void)s, (void)args, (void)outs;
  *n_outs = 0;
  return true;
}
