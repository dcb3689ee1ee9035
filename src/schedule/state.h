/* state.h - the schedule's internals, shared by the core (state.c, apply.c,
 * trace.c, script.c) and the primitive families (one file each: loops.c,
 * annotate.c, compute_at.c, inline.c, cache.c, reduction.c, layout.c,
 * blockize.c, sampling.c, get.c).
 *
 * A primitive is a function of this shape:
 *
 *   bool sch_prim_split(MlcSchedule *s, const MlcSchVal *args, MlcSchVal *outs, int *n_outs);
 *
 * args are bound to the parameters listed in MLC_SCH_PRIMITIVES (kind NONE
 * when absent).  It resolves its handles (sch_block / sch_loop, which refuse
 * stale ones), checks every precondition, builds the new function with the
 * IR builders and mutators, and finally calls sch_commit, which verifies the
 * function and swaps it in.  Before sch_commit nothing is changed, so
 * returning false after an error leaves the schedule as it was.  New
 * handles come from sch_block_rv / sch_loop_rv / sch_int_rv and are written
 * to outs.  The core records the instruction in the trace after a primitive
 * succeeds; sampling primitives store their decision with sch_set_decision. */
#ifndef MLCC_SCHEDULE_STATE_H
#define MLCC_SCHEDULE_STATE_H

#include "mlcc/arith.h"
#include "mlcc/schedule.h"

typedef struct SchRV {
  MlcSchValKind kind;      /* MLC_SV_BLOCK, MLC_SV_LOOP or MLC_SV_INTRV */
  const char *block;       /* BLOCK: the block's name (interned) */
  const MlcExpr *loop_var; /* LOOP: the loop's var */
  int64_t value;           /* INTRV: the sampled value */
} SchRV;

typedef struct SchInst {
  MlcSchPrim prim;
  MlcSchVal *args;         /* MLC_SCH_PRIMITIVES order, deep-copied into the arena */
  int n_args;
  MlcSchVal *outs;
  int n_outs;
  bool has_decision;
  MlcSchVal decision;      /* sampling primitives: the value chosen */
} SchInst;

struct MlcSchedule {
  MlcCtx *ctx;
  MlcModule *mod;          /* the current module */
  int func_index;          /* the prim func being scheduled, in mod->funcs */
  MLC_VEC(SchRV) rvs;
  MLC_VEC(SchInst) trace;
  uint64_t rng;
  /* set by a sampling primitive while it runs; read by the core */
  bool pending_decision;
  MlcSchVal decision;
  /* replaying a trace: the decision to reuse instead of sampling */
  const MlcSchVal *forced_decision;
  /* the primitive being applied (its name prefixes errors); -1 outside */
  int running;
  /* var names handed out by sch_fresh_var since the last commit, so that
   * two fresh vars of one primitive never share a name */
  MlcMap fresh_names;
};

/* the function being scheduled */
static inline const MlcPrimFunc *sch_func(const MlcSchedule *s) { return s->mod->funcs[s->func_index].prim; }

/* ---- handles ---------------------------------------------------------------- */
int sch_block_rv(MlcSchedule *s, const char *block_name);
int sch_loop_rv(MlcSchedule *s, const MlcExpr *loop_var);
int sch_int_rv(MlcSchedule *s, int64_t value);
/* Argument checks: the value is a handle of that kind (or an int literal for
 * sch_arg_int); `what` names the parameter in the error. */
bool sch_arg_block(MlcSchedule *s, const MlcSchVal *v, const char *what, const char **name);
bool sch_arg_loop(MlcSchedule *s, const MlcSchVal *v, const char *what, const MlcExpr **var);
bool sch_arg_int(MlcSchedule *s, const MlcSchVal *v, const char *what, int64_t *out);
bool sch_arg_str(MlcSchedule *s, const MlcSchVal *v, const char *what, const char **out);

/* ---- finding things ------------------------------------------------------------
 * A path runs from the function body down to a statement: nodes[0] is the
 * body, nodes[n-1] the statement itself; every step is a direct child. */
typedef struct SchPath {
  const MlcStmt **nodes;
  int n;
} SchPath;

void sch_path_free(SchPath *p);
/* the block realize of the named block; false + error "no block named ..."
 * when it does not exist (a stale handle) */
bool sch_find_block(MlcSchedule *s, const char *name, SchPath *path);
/* the for loop over var; false + error when it does not exist */
bool sch_find_loop(MlcSchedule *s, const MlcExpr *var, SchPath *path);
/* the loops enclosing the end of path, outermost first, up to the nearest
 * enclosing block (the loops of a block, as get_loops returns them) */
int sch_path_loops(const SchPath *path, const MlcStmt **loops, int cap);
/* The block realizes directly under stmt (not inside a nested block), in
 * order. */
int sch_child_blocks(const MlcStmt *stmt, const MlcStmt **out, int cap);

/* ---- changing things ------------------------------------------------------------ */
/* The function body with statement `old` (found by pointer) replaced by
 * `repl` (NULL removes it from its sequence); the path from the root is
 * rebuilt, the rest shared. */
MlcStmt *sch_replace(MlcSchedule *s, const MlcStmt *old, MlcStmt *repl);
/* Build the function with a new body (params, attrs kept), verify it and
 * make it current.  False (schedule unchanged) when the result is
 * malformed. */
bool sch_commit(MlcSchedule *s, MlcStmt *body);
/* The same, with new params as well (transform_layout, set_scope of params). */
bool sch_commit_func(MlcSchedule *s, MlcParam *params, int n_params, MlcStmt *body);
/* ... and new attributes (a param's layout rewrite is recorded there). */
bool sch_commit_full(MlcSchedule *s, MlcParam *params, int n_params, MlcAttrs attrs, MlcStmt *body);

/* a block name not yet used in the function: base, base_1, base_2, ... */
const char *sch_fresh_block_name(MlcSchedule *s, const char *base);
/* a loop var named like `base` (loop vars are told apart by identity) */
MlcExpr *sch_fresh_var(MlcSchedule *s, const char *base, MlcDType t);

/* Errors name the primitive and the block or loop:
 *   split: loop 'j': factors [3, 5] do not cover extent 16
 * The primitive's name ("split: ") is put in front by sch_error while a
 * primitive runs (a message that already starts with it is left as is). */
bool sch_error(MlcSchedule *s, const char *fmt, ...) MLC_PRINTF(2, 3);

/* ---- analysis shared by the primitives --------------------------------------------- */
/* true when every binding of the block is an affine (sum of const * var +
 * const) function of the loop vars above it, floordiv / floormod of such a
 * sum by a positive constant included (what split and fuse leave) */
bool sch_affine_bindings(const MlcStmt *realize);
/* a complete block: only spatial iters, and its writes are not read by
 * itself; a reduction block: spatial and reduce iters, with an init */
bool sch_is_complete_block(const MlcBlock *b);
bool sch_is_reduction_block(const MlcBlock *b);

/* ---- randomness (sampling primitives) ----------------------------------------------- */
uint64_t sch_rand(MlcSchedule *s);
/* (re)start the random source from a seed (mlc_sch_new does) */
void sch_seed(MlcSchedule *s, uint64_t seed);
/* record the decision the running sampling primitive made (or reused) */
void sch_set_decision(MlcSchedule *s, MlcSchVal decision);

/* ---- the primitives ------------------------------------------------------------------ */
#define X(name, params) \
  bool sch_prim_##name(MlcSchedule *s, const MlcSchVal *args, MlcSchVal *outs, int *n_outs);
MLC_SCH_PRIMITIVES(X)
#undef X

/* ---- compute locations (sampling.c) ----------------------------------------------------
 * sample_compute_location answers a loop handle, or one of two loop handles
 * that name no loop: compute-root (the block stays where it is) and
 * compute-inline.  compute_at and reverse_compute_at ask sch_arg_location
 * before sch_arg_loop and act on these two themselves (nothing at ROOT;
 * compute_inline / reverse_compute_inline at INLINE); any other primitive
 * refuses them as loops that do not exist. */
typedef enum SchLocation { SCH_LOC_LOOP, SCH_LOC_ROOT, SCH_LOC_INLINE } SchLocation;
SchLocation sch_arg_location(const MlcSchedule *s, const MlcSchVal *v);

#endif
