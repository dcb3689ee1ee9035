/* state.c - the schedule's internals every primitive shares: handles and
 * their stale checks, paths to statements, replacing a statement by
 * rebuilding the path above it, committing a new function, fresh names,
 * errors prefixed with the primitive's name, block classification and the
 * seeded random source of the sampling primitives.
 *
 * Handles name blocks by name and loops by their var, never by node
 * pointer: nodes are rebuilt by every primitive, while a block keeps its
 * name and a loop its var for as long as it exists.  So a handle is checked
 * by looking its block or loop up in the current function; when the lookup
 * fails the handle is stale and the primitive is refused. */
#include "schedule/state.h"

#include <assert.h>
#include <string.h>

#define NOLOC ((MlcLoc){0})

typedef MLC_VEC(const MlcStmt *) StmtVec;

/* ======================================================================== */
/* errors                                                                   */
/* ======================================================================== */

static const char *running_name(const MlcSchedule *s) {
  return s->running >= 0 && s->running < MLC_SCH_PRIM_COUNT ? mlc_sch_prim_names[s->running] : NULL;
}

/* The message gets the running primitive's name in front, unless the
 * caller already wrote it there. */
bool sch_error(MlcSchedule *s, const char *fmt, ...) {
  MlcStrBuf msg = {0};
  va_list ap;
  va_start(ap, fmt);
  mlc_sb_vprintf(&msg, fmt, ap);
  va_end(ap);
  const char *text = mlc_sb_cstr(&msg), *prim = running_name(s);
  size_t n = prim ? strlen(prim) : 0;
  if (prim && !(strncmp(text, prim, n) == 0 && text[n] == ':'))
    mlc_error(s->ctx, NOLOC, "%s: %s", prim, text);
  else
    mlc_error(s->ctx, NOLOC, "%s", text);
  mlc_vec_free(&msg);
  return false;
}

/* ======================================================================== */
/* handles                                                                  */
/* ======================================================================== */

static int push_rv(MlcSchedule *s, SchRV rv) {
  mlc_vec_push(&s->rvs, rv);
  return (int)s->rvs.len - 1;
}

int sch_block_rv(MlcSchedule *s, const char *block_name) {
  return push_rv(s, (SchRV){.kind = MLC_SV_BLOCK, .block = mlc_intern(s->ctx, block_name)});
}

int sch_loop_rv(MlcSchedule *s, const MlcExpr *loop_var) {
  return push_rv(s, (SchRV){.kind = MLC_SV_LOOP, .loop_var = loop_var});
}

int sch_int_rv(MlcSchedule *s, int64_t value) {
  return push_rv(s, (SchRV){.kind = MLC_SV_INTRV, .value = value});
}

/* how a value of this kind is called in "expected X, got Y" messages */
static const char *val_noun(MlcSchValKind k) {
  static const char *const nouns[] = {
      [MLC_SV_NONE] = "None",          [MLC_SV_BLOCK] = "a block handle",
      [MLC_SV_LOOP] = "a loop handle", [MLC_SV_INTRV] = "a sampled integer",
      [MLC_SV_INT] = "an integer",     [MLC_SV_FLOAT] = "a float",
      [MLC_SV_BOOL] = "a bool",        [MLC_SV_STR] = "a string",
      [MLC_SV_LIST] = "a list",        [MLC_SV_LAMBDA] = "a lambda",
  };
  return (unsigned)k < sizeof nouns / sizeof *nouns ? nouns[k] : "a value";
}

/* the handle a value names, when it is one of kind `want` */
static const SchRV *rv_of(const MlcSchedule *s, const MlcSchVal *v, MlcSchValKind want) {
  if (!v || v->kind != want || v->rv < 0 || (size_t)v->rv >= s->rvs.len) return NULL;
  const SchRV *rv = &s->rvs.data[v->rv];
  return rv->kind == want ? rv : NULL;
}

static bool find_block_path(const MlcSchedule *s, const char *name, StmtVec *path);
static bool find_loop_path(const MlcSchedule *s, const MlcExpr *var, StmtVec *path);

static bool wrong_kind(MlcSchedule *s, const MlcSchVal *v, const char *what, MlcSchValKind want) {
  if (!v || v->kind == MLC_SV_NONE) return sch_error(s, "missing argument '%s' (%s)", what, val_noun(want));
  return sch_error(s, "'%s' must be %s, got %s", what, val_noun(want), val_noun(v->kind));
}

bool sch_arg_block(MlcSchedule *s, const MlcSchVal *v, const char *what, const char **name) {
  const SchRV *rv = rv_of(s, v, MLC_SV_BLOCK);
  if (!rv) return wrong_kind(s, v, what, MLC_SV_BLOCK);
  StmtVec path = {0};
  bool found = find_block_path(s, rv->block, &path);
  mlc_vec_free(&path);
  if (!found) return sch_error(s, "block '%s' no longer exists", rv->block);
  *name = rv->block;
  return true;
}

bool sch_arg_loop(MlcSchedule *s, const MlcSchVal *v, const char *what, const MlcExpr **var) {
  const SchRV *rv = rv_of(s, v, MLC_SV_LOOP);
  if (!rv) return wrong_kind(s, v, what, MLC_SV_LOOP);
  StmtVec path = {0};
  bool found = find_loop_path(s, rv->loop_var, &path);
  mlc_vec_free(&path);
  if (!found) return sch_error(s, "loop '%s' no longer exists", rv->loop_var->var.name);
  *var = rv->loop_var;
  return true;
}

bool sch_arg_int(MlcSchedule *s, const MlcSchVal *v, const char *what, int64_t *out) {
  if (v && v->kind == MLC_SV_INT) {
    *out = v->i;
    return true;
  }
  const SchRV *rv = rv_of(s, v, MLC_SV_INTRV);
  if (rv) {
    *out = rv->value;
    return true;
  }
  return wrong_kind(s, v, what, MLC_SV_INT);
}

bool sch_arg_str(MlcSchedule *s, const MlcSchVal *v, const char *what, const char **out) {
  if (!v || v->kind != MLC_SV_STR) return wrong_kind(s, v, what, MLC_SV_STR);
  *out = v->s;
  return true;
}

/* ======================================================================== */
/* walking statements                                                       */
/* ======================================================================== */

/* Children of a statement by index, so that every walk below shares one
 * definition of what a child is; a slot may be NULL (no init, no else). */
static int n_children(const MlcStmt *st) {
  switch (st->kind) {
  case MLC_STMT_FOR:
  case MLC_STMT_LET:
  case MLC_STMT_ALLOCATE: return 1;
  case MLC_STMT_BLOCK_REALIZE:
  case MLC_STMT_IF: return 2;
  case MLC_STMT_SEQ: return st->seq.n;
  case MLC_STMT_STORE:
  case MLC_STMT_EVALUATE: return 0;
  }
  return 0;
}

static const MlcStmt *child_at(const MlcStmt *st, int i) {
  switch (st->kind) {
  case MLC_STMT_FOR: return st->loop.body;
  case MLC_STMT_LET: return st->let.body;
  case MLC_STMT_ALLOCATE: return st->alloc.body;
  case MLC_STMT_BLOCK_REALIZE: return i == 0 ? st->realize.block->init : st->realize.block->body;
  case MLC_STMT_IF: return i == 0 ? st->if_.then_s : st->if_.else_s;
  case MLC_STMT_SEQ: return st->seq.items[i];
  case MLC_STMT_STORE:
  case MLC_STMT_EVALUATE: return NULL;
  }
  return NULL;
}

typedef bool (*StmtPred)(const MlcStmt *st, const void *key);

/* Depth-first search for the first statement satisfying pred; on success
 * path holds the statements from st down to it. */
static bool search(const MlcStmt *st, StmtPred pred, const void *key, StmtVec *path) {
  if (!st) return false;
  mlc_vec_push(path, st);
  if (pred(st, key)) return true;
  for (int i = 0, n = n_children(st); i < n; i++)
    if (search(child_at(st, i), pred, key, path)) return true;
  path->len--;
  return false;
}

static bool is_block_named(const MlcStmt *st, const void *name) {
  return st->kind == MLC_STMT_BLOCK_REALIZE && st->realize.block->name == name;
}

static bool is_loop_over(const MlcStmt *st, const void *var) {
  return st->kind == MLC_STMT_FOR && st->loop.var == var;
}

static bool is_stmt(const MlcStmt *st, const void *target) { return st == target; }

static bool find_block_path(const MlcSchedule *s, const char *name, StmtVec *path) {
  return search(sch_func(s)->body, is_block_named, name, path);
}

static bool find_loop_path(const MlcSchedule *s, const MlcExpr *var, StmtVec *path) {
  return search(sch_func(s)->body, is_loop_over, var, path);
}

static void path_from_vec(SchPath *p, StmtVec *v) {
  p->nodes = v->data;
  p->n = (int)v->len;
}

void sch_path_free(SchPath *p) {
  free(p->nodes);
  p->nodes = NULL;
  p->n = 0;
}

bool sch_find_block(MlcSchedule *s, const char *name, SchPath *path) {
  StmtVec v = {0};
  name = mlc_intern(s->ctx, name);
  if (!find_block_path(s, name, &v)) {
    mlc_vec_free(&v);
    *path = (SchPath){0};
    return sch_error(s, "no block named '%s' in function '%s'", name, sch_func(s)->name);
  }
  path_from_vec(path, &v);
  return true;
}

bool sch_find_loop(MlcSchedule *s, const MlcExpr *var, SchPath *path) {
  StmtVec v = {0};
  if (!find_loop_path(s, var, &v)) {
    mlc_vec_free(&v);
    *path = (SchPath){0};
    return sch_error(s, "loop '%s' no longer exists", var->var.name);
  }
  path_from_vec(path, &v);
  return true;
}

int sch_path_loops(const SchPath *path, const MlcStmt **loops, int cap) {
  int first = path->n - 1; /* index of the outermost loop found so far */
  while (first > 0 && path->nodes[first - 1]->kind != MLC_STMT_BLOCK_REALIZE) first--;
  int n = 0;
  for (int i = first; i < path->n - 1 && n < cap; i++)
    if (path->nodes[i]->kind == MLC_STMT_FOR) loops[n++] = path->nodes[i];
  return n;
}

static void collect_blocks(const MlcStmt *st, const MlcStmt **out, int cap, int *n) {
  if (!st) return;
  if (st->kind == MLC_STMT_BLOCK_REALIZE) {
    if (*n < cap) out[*n] = st;
    (*n)++;
    return;
  }
  for (int i = 0, k = n_children(st); i < k; i++) collect_blocks(child_at(st, i), out, cap, n);
}

int sch_child_blocks(const MlcStmt *stmt, const MlcStmt **out, int cap) {
  int n = 0;
  if (!stmt) return 0;
  if (stmt->kind == MLC_STMT_BLOCK_REALIZE) collect_blocks(stmt->realize.block->body, out, cap, &n);
  else
    for (int i = 0, k = n_children(stmt); i < k; i++) collect_blocks(child_at(stmt, i), out, cap, &n);
  return n < cap ? n : cap;
}

/* ======================================================================== */
/* replacing a statement                                                    */
/* ======================================================================== */

static MlcStmt *copy_stmt(MlcSchedule *s, const MlcStmt *st) {
  return mlc_arena_dup(&s->ctx->arena, st, sizeof *st);
}

static MlcStmt *no_op(MlcSchedule *s) { return mlc_s_evaluate(s->ctx, mlc_e_int(s->ctx, MLC_I32, 0)); }

/* A sequence with item `old` replaced by repl, or dropped when repl is
 * NULL; NULL when nothing is left. */
static MlcStmt *seq_with(MlcSchedule *s, const MlcStmt *seq, const MlcStmt *old, MlcStmt *repl) {
  MlcStmt **items = mlc_arena_array(&s->ctx->arena, (size_t)seq->seq.n, sizeof *items);
  int n = 0;
  for (int i = 0; i < seq->seq.n; i++) {
    if (seq->seq.items[i] != old) items[n++] = seq->seq.items[i];
    else if (repl) items[n++] = repl;
  }
  return n ? mlc_s_seq(s->ctx, items, n) : NULL;
}

/* parent rebuilt with child `old` replaced by repl; NULL when the parent
 * has nothing left to do and goes as well */
static MlcStmt *with_child(MlcSchedule *s, const MlcStmt *parent, const MlcStmt *old, MlcStmt *repl) {
  if (parent->kind == MLC_STMT_SEQ) return seq_with(s, parent, old, repl);
  MlcStmt *p = copy_stmt(s, parent);
  switch (parent->kind) {
  case MLC_STMT_FOR: p->loop.body = repl; return repl ? p : NULL;
  case MLC_STMT_LET: p->let.body = repl; return repl ? p : NULL;
  case MLC_STMT_ALLOCATE: p->alloc.body = repl; return repl ? p : NULL;
  case MLC_STMT_BLOCK_REALIZE: {
    MlcBlock *b = mlc_arena_dup(&s->ctx->arena, parent->realize.block, sizeof *b);
    if (b->init == old) b->init = repl;
    else b->body = repl ? repl : no_op(s);
    p->realize.block = b;
    return p;
  }
  case MLC_STMT_IF:
    if (parent->if_.then_s == old) {
      if (repl) p->if_.then_s = repl;
      else if (!parent->if_.else_s) return NULL;
      else return mlc_s_if(s->ctx, mlc_e_not(s->ctx, parent->if_.cond), parent->if_.else_s, NULL);
    } else {
      p->if_.else_s = repl;
    }
    return p;
  case MLC_STMT_SEQ:
  case MLC_STMT_STORE:
  case MLC_STMT_EVALUATE: break;
  }
  assert(!"a statement without children is never a parent");
  return NULL;
}

MlcStmt *sch_replace(MlcSchedule *s, const MlcStmt *old, MlcStmt *repl) {
  StmtVec path = {0};
  if (!search(sch_func(s)->body, is_stmt, old, &path)) {
    mlc_vec_free(&path);
    sch_error(s, "internal error: the statement to replace is not in the function");
    return NULL;
  }
  MlcStmt *cur = repl;
  for (size_t i = path.len - 1; i > 0; i--) {
    /* a NULL result removes the parent in turn from its own parent */
    cur = with_child(s, path.data[i - 1], path.data[i], cur);
  }
  mlc_vec_free(&path);
  return cur ? cur : no_op(s);
}

/* ======================================================================== */
/* committing                                                               */
/* ======================================================================== */

/* The verifier's message names the function only; say which primitive
 * produced the malformed result. */
static void prefix_error(MlcSchedule *s) {
  const char *prim = running_name(s);
  if (!prim || !mlc_has_error(s->ctx)) return;
  char *msg = mlc_xstrdup(mlc_error_msg(s->ctx));
  MlcLoc loc = mlc_error_loc(s->ctx);
  mlc_clear_error(s->ctx);
  mlc_error(s->ctx, loc, "%s: the result would be malformed: %s", prim, msg);
  free(msg);
}

bool sch_commit_func(MlcSchedule *s, MlcParam *params, int n_params, MlcStmt *body) {
  return sch_commit_full(s, params, n_params, sch_func(s)->attrs, body);
}

bool sch_commit_full(MlcSchedule *s, MlcParam *params, int n_params, MlcAttrs attrs, MlcStmt *body) {
  const MlcPrimFunc *old = sch_func(s);
  if (!body) {
    if (!mlc_has_error(s->ctx)) sch_error(s, "internal error: no function body to commit");
    return false;
  }
  MlcPrimFunc *f = mlc_prim_func_new(s->ctx, old->name, params, n_params, attrs, body);
  if (!f) {
    if (!mlc_has_error(s->ctx)) sch_error(s, "the result would be malformed");
    prefix_error(s);
    return false;
  }
  f->ret = old->ret;
  MlcFunc *funcs = mlc_arena_dup(&s->ctx->arena, s->mod->funcs, (size_t)s->mod->n_funcs * sizeof *funcs);
  funcs[s->func_index].prim = f;
  MlcModule *m = mlc_module_new(s->ctx, s->mod->name, funcs, s->mod->n_funcs, s->mod->attrs);
  if (!m) return false;
  s->mod = m;
  mlc_map_free(&s->fresh_names);
  return true;
}

bool sch_commit(MlcSchedule *s, MlcStmt *body) {
  const MlcPrimFunc *f = sch_func(s);
  return sch_commit_func(s, f->params, f->n_params, body);
}

/* ======================================================================== */
/* fresh names                                                              */
/* ======================================================================== */

/* Every name the function binds in the one namespace the text shares
 * (params, buffers, shape vars, loop, iter and let vars), and every block
 * name, so that a new one can avoid them all. */
typedef struct NameSet { MlcVisitor v; MlcMap *names; } NameSet;

static void add_name(MlcMap *names, const char *name) {
  if (name) mlc_map_put(names, name, (void *)1);
}

static void add_buffer(MlcMap *names, const MlcBuffer *b) {
  add_name(names, b->name);
  for (int d = 0; d < b->ndim; d++)
    if (b->shape[d]->kind == MLC_EXPR_VAR) add_name(names, b->shape[d]->var.name);
}

static bool names_stmt(MlcVisitor *v, const MlcStmt *st) {
  MlcMap *names = ((NameSet *)v)->names;
  if (st->kind == MLC_STMT_FOR) add_name(names, st->loop.var->var.name);
  if (st->kind == MLC_STMT_LET) add_name(names, st->let.var->var.name);
  if (st->kind == MLC_STMT_ALLOCATE) add_buffer(names, st->alloc.buf);
  return true;
}

static bool names_block(MlcVisitor *v, const MlcBlock *b) {
  MlcMap *names = ((NameSet *)v)->names;
  add_name(names, b->name);
  for (int i = 0; i < b->n_iters; i++) add_name(names, b->iters[i].var->var.name);
  for (int i = 0; i < b->n_allocs; i++) add_buffer(names, b->allocs[i]);
  return true;
}

static void used_names(const MlcSchedule *s, MlcMap *names) {
  const MlcPrimFunc *f = sch_func(s);
  for (int i = 0; i < f->n_params; i++) {
    add_name(names, f->params[i].var->var.name);
    if (f->params[i].buf) add_buffer(names, f->params[i].buf);
  }
  NameSet ns = {.v = {.stmt = names_stmt, .block = names_block}, .names = names};
  mlc_visit_stmt(&ns.v, f->body);
}

/* base, base_1, base_2, ...: the first one neither used in the function
 * nor handed out since the last commit */
static const char *fresh_name(MlcSchedule *s, const char *base) {
  MlcMap used = {0};
  used_names(s, &used);
  const char *name = mlc_intern(s->ctx, base && *base ? base : "v");
  for (unsigned k = 1; mlc_map_has(&used, name) || mlc_map_has(&s->fresh_names, name); k++)
    name = mlc_internf(s->ctx, "%s_%u", base && *base ? base : "v", k);
  mlc_map_free(&used);
  mlc_map_put(&s->fresh_names, name, (void *)1);
  return name;
}

const char *sch_fresh_block_name(MlcSchedule *s, const char *base) { return fresh_name(s, base); }

MlcExpr *sch_fresh_var(MlcSchedule *s, const char *base, MlcDType t) {
  return mlc_e_var(s->ctx, fresh_name(s, base), t);
}

/* ======================================================================== */
/* analysis                                                                 */
/* ======================================================================== */

/* Affine in the sense the field's schedules need: sums of constant
 * multiples of vars plus a constant, and floordiv / floormod of such a sum
 * by a positive constant -- what split and fuse leave in bindings, which
 * later primitives must still accept. */
static bool is_affine(const MlcExpr *e) {
  int64_t c;
  switch (e->kind) {
  case MLC_EXPR_INT:
  case MLC_EXPR_VAR: return mlc_dtype_is_int(e->dtype);
  case MLC_EXPR_NEG: return is_affine(e->operand);
  case MLC_EXPR_BINARY:
    switch (e->bin.op) {
    case MLC_BIN_ADD:
    case MLC_BIN_SUB: return is_affine(e->bin.a) && is_affine(e->bin.b);
    case MLC_BIN_MUL:
      return (mlc_e_is_const_int(e->bin.a, &c) && is_affine(e->bin.b)) ||
             (mlc_e_is_const_int(e->bin.b, &c) && is_affine(e->bin.a));
    case MLC_BIN_FLOORDIV:
    case MLC_BIN_FLOORMOD: return mlc_e_is_const_int(e->bin.b, &c) && c > 0 && is_affine(e->bin.a);
    default: return false;
    }
  default: return false;
  }
}

bool sch_affine_bindings(const MlcStmt *realize) {
  if (!realize || realize->kind != MLC_STMT_BLOCK_REALIZE) return false;
  for (int i = 0; i < realize->realize.n; i++)
    if (!is_affine(realize->realize.values[i])) return false;
  return true;
}

typedef struct UsesVar { MlcVisitor v; const MlcExpr *var; bool found; } UsesVar;

static bool uses_var_expr(MlcVisitor *v, const MlcExpr *e) {
  UsesVar *u = (UsesVar *)v;
  if (e == u->var) u->found = true;
  return !u->found;
}

static bool expr_uses(const MlcExpr *e, const MlcExpr *var) {
  UsesVar u = {.v = {.expr = uses_var_expr}, .var = var};
  mlc_visit_expr(&u.v, e);
  return u.found;
}

/* a write region indexed by a reduce iter var: not a reduction, whatever
 * its iter kinds say */
static bool writes_use_reduce_vars(const MlcBlock *b) {
  for (int i = 0; i < b->n_iters; i++) {
    if (b->iters[i].kind != MLC_ITER_REDUCE) continue;
    for (int w = 0; w < b->n_writes; w++)
      for (int d = 0; d < b->writes[w].buf->ndim; d++)
        if (expr_uses(b->writes[w].ranges[d].min, b->iters[i].var)) return true;
  }
  return false;
}

bool sch_is_complete_block(const MlcBlock *b) {
  if (b->init) return false;
  for (int i = 0; i < b->n_iters; i++)
    if (b->iters[i].kind != MLC_ITER_SPATIAL) return false;
  for (int w = 0; w < b->n_writes; w++)
    for (int r = 0; r < b->n_reads; r++)
      if (b->reads[r].buf == b->writes[w].buf) return false;
  return true;
}

bool sch_is_reduction_block(const MlcBlock *b) {
  bool has_reduce = false;
  for (int i = 0; i < b->n_iters; i++) {
    if (b->iters[i].kind == MLC_ITER_OPAQUE) return false;
    if (b->iters[i].kind == MLC_ITER_REDUCE) has_reduce = true;
  }
  return has_reduce && b->init && !writes_use_reduce_vars(b);
}

/* ======================================================================== */
/* randomness                                                               */
/* ======================================================================== */

/* splitmix64 spreads any seed (0 included) over the state space;
 * xorshift64* then draws from it.  Both are a few lines and deterministic
 * on every platform, which is what replaying a trace needs. */
void sch_seed(MlcSchedule *s, uint64_t seed) {
  uint64_t z = seed + 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  z ^= z >> 31;
  s->rng = z ? z : 0x9e3779b97f4a7c15ull;
}

uint64_t sch_rand(MlcSchedule *s) {
  uint64_t x = s->rng;
  x ^= x >> 12;
  x ^= x << 25;
  x ^= x >> 27;
  s->rng = x;
  return x * 0x2545f4914f6cdd1dull;
}

void sch_set_decision(MlcSchedule *s, MlcSchVal decision) {
  s->pending_decision = true;
  s->decision = decision;
}
