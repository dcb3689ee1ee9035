/* script.c - running a schedule script: the lines a trace prints, or that
 * a person writes in the field's style,
 *     sch = tvm.tir.Schedule(Module)
 *     b0 = sch.get_block("Y")
 *     i, j, k = sch.get_loops(b0)
 *     j0, j1 = sch.split(j, factors=[None, 4])
 *     sch.reorder(j0, k, j1)
 *
 * The text goes through the TVMScript parser (one Python subset for
 * modules and scripts); this file gives the statements their meaning.  A
 * call `sch.NAME(...)` binds its arguments to the primitive's parameters
 * from the table in schedule.h (positional in order, or by keyword; a
 * variadic `*loops` parameter takes every positional argument) and goes
 * through mlc_sch_apply.  Names bind handles, lists and plain values, so
 * `loops = sch.get_loops(b)` followed by `sch.fuse(*loops)` or `loops[0]`
 * works as in Python.  A lambda (transform_layout's index map) is kept as
 * its source text, which the primitive reads and the trace prints back.
 *
 * Errors are located in the script: syntax errors by the parser, argument
 * errors at the argument, and a primitive's refusal at its call (the call's
 * location is the context's build location while the primitive runs). */
#include "schedule/core.h"
#include "text/ast.h"

#include <string.h>

typedef struct Script {
  MlcSchedule *s;
  MlcCtx *ctx;
  const char *text;
  size_t len;
  const char *sch_name; /* what the schedule is called: "sch" unless assigned */
  MlcMap env;           /* interned name -> MlcSchVal* (arena) */
} Script;

typedef MLC_VEC(MlcSchVal) ValVec;

static bool eval(Script *sc, const Ast *a, MlcSchVal *out);

static MlcSchVal list_val(Script *sc, const MlcSchVal *items, int n) {
  MlcSchVal v = {.kind = MLC_SV_LIST};
  v.list.n = n;
  v.list.items = n ? mlc_arena_dup(&sc->ctx->arena, items, (size_t)n * sizeof *items) : NULL;
  return v;
}

/* ---- lambdas as text ---------------------------------------------------- */

static size_t offset_of(const Script *sc, MlcLoc loc) {
  size_t off = 0;
  for (int line = 1; off < sc->len && line < loc.line; off++)
    if (sc->text[off] == '\n') line++;
  off += loc.col > 0 ? (size_t)(loc.col - 1) : 0;
  return off < sc->len ? off : sc->len;
}

/* The source of the lambda starting at loc, up to where Python's grammar
 * ends it (a comma or closing bracket outside brackets, or the end of the
 * line), with each run of blanks, comments and line breaks made one space,
 * so the trace prints it on one line. */
static const char *lambda_text(Script *sc, MlcLoc loc) {
  MlcStrBuf sb = {0};
  int depth = 0;
  char quote = 0;
  bool blank = false, params = true; /* the parameters' commas do not end it */
  for (size_t i = offset_of(sc, loc); i < sc->len; i++) {
    char c = sc->text[i];
    if (quote) {
      mlc_sb_putc(&sb, c);
      if (c == '\\' && i + 1 < sc->len) mlc_sb_putc(&sb, sc->text[++i]);
      else if (c == quote) quote = 0;
      continue;
    }
    if (depth == 0 && c == ':') params = false;
    if (depth == 0 && ((c == ',' && !params) || strchr(")]};#\n\r", c))) break;
    if (c == '#') { /* a comment inside brackets runs to the end of its line */
      while (i + 1 < sc->len && sc->text[i + 1] != '\n') i++;
      blank = true;
      continue;
    }
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\\') {
      blank = true;
      continue;
    }
    if (blank && sb.len && !strchr("([{", sb.data[sb.len - 1]) && !strchr(")]},:", c)) mlc_sb_putc(&sb, ' ');
    else if (blank && sb.len && c == ':') mlc_sb_putc(&sb, ' '); /* `lambda i :` stays readable */
    blank = false;
    if (c == '"' || c == '\'') quote = c;
    if (strchr("([{", c)) depth++;
    if (strchr(")]}", c)) depth--;
    mlc_sb_putc(&sb, c);
  }
  const char *text = mlc_intern_n(sc->ctx, sb.data ? sb.data : "", sb.len);
  mlc_vec_free(&sb);
  return text;
}

/* ---- values -------------------------------------------------------------- */

static bool is_sch_call(const Script *sc, const Ast *a) {
  return a && a->kind == AST_CALL && a->func->kind == AST_ATTR && a->func->value->kind == AST_NAME &&
         a->func->value->name == sc->sch_name;
}

static bool call_value(Script *sc, const Ast *call, MlcSchVal *out);

/* items of a list, tuple or call, with *x spread out */
static bool eval_items(Script *sc, const AstList *items, ValVec *vals) {
  for (int i = 0; i < items->n; i++) {
    const Ast *it = items->items[i];
    MlcSchVal v;
    if (!eval(sc, it->kind == AST_STAR ? it->lhs : it, &v)) return false;
    if (it->kind == AST_STAR && v.kind == MLC_SV_LIST)
      for (int k = 0; k < v.list.n; k++) mlc_vec_push(vals, v.list.items[k]);
    else
      mlc_vec_push(vals, v);
  }
  return true;
}

/* one bound of a slice: an integer or None (absent) */
static bool slice_bound(Script *sc, const Ast *a, bool *given, int64_t *v) {
  MlcSchVal x;
  *given = false;
  if (!a) return true;
  if (!eval(sc, a, &x)) return false;
  if (x.kind == MLC_SV_NONE) return true;
  if (x.kind != MLC_SV_INT) return mlc_error(sc->ctx, a->loc, "a slice bound must be an integer or None");
  *given = true;
  *v = x.i;
  return true;
}

/* list[lo:hi:step] with Python's rules: negative bounds count from the end,
 * bounds are clamped, a negative step walks backwards */
static bool eval_slice(Script *sc, const Ast *sl, MlcSchVal base, MlcSchVal *out) {
  int64_t n = base.list.n, lo = 0, hi = 0, step = 1;
  bool has_lo, has_hi, has_step;
  if (!slice_bound(sc, sl->lo, &has_lo, &lo) || !slice_bound(sc, sl->hi, &has_hi, &hi) ||
      !slice_bound(sc, sl->step, &has_step, &step))
    return false;
  if (has_step && step == 0) return mlc_error(sc->ctx, sl->step->loc, "a slice step cannot be zero");
  if (!has_step) step = 1;
  int64_t first = step > 0 ? 0 : n - 1, last = step > 0 ? n : -1; /* defaults */
  if (has_lo) {
    lo = lo < 0 ? lo + n : lo;
    first = step > 0 ? (lo < 0 ? 0 : lo > n ? n : lo) : (lo < -1 ? -1 : lo > n - 1 ? n - 1 : lo);
  }
  if (has_hi) {
    hi = hi < 0 ? hi + n : hi;
    last = step > 0 ? (hi < 0 ? 0 : hi > n ? n : hi) : (hi < -1 ? -1 : hi > n - 1 ? n - 1 : hi);
  }
  ValVec items = {0};
  for (int64_t i = first; step > 0 ? i < last : i > last; i += step) mlc_vec_push(&items, base.list.items[i]);
  *out = list_val(sc, items.data, (int)items.len);
  mlc_vec_free(&items);
  return true;
}

/* a single block or loop handle (get_loops of a one-loop nest) indexes and
 * slices as a list of one, as it unpacks */
static void handle_as_list(Script *sc, MlcSchVal *v) {
  if (v->kind == MLC_SV_BLOCK || v->kind == MLC_SV_LOOP) *v = list_val(sc, v, 1);
}

static bool eval_subscript(Script *sc, const Ast *a, MlcSchVal *out) {
  MlcSchVal base, index;
  if (a->index->kind == AST_SLICE) {
    if (!eval(sc, a->value, &base)) return false;
    handle_as_list(sc, &base);
    if (base.kind != MLC_SV_LIST) return mlc_error(sc->ctx, a->loc, "only a list can be sliced here");
    return eval_slice(sc, a->index, base, out);
  }
  if (!eval(sc, a->value, &base) || !eval(sc, a->index, &index)) return false;
  handle_as_list(sc, &base);
  if (base.kind != MLC_SV_LIST) return mlc_error(sc->ctx, a->loc, "only a list can be indexed here");
  if (index.kind != MLC_SV_INT) return mlc_error(sc->ctx, a->index->loc, "a list index must be an integer");
  int64_t i = index.i < 0 ? index.i + base.list.n : index.i;
  if (i < 0 || i >= base.list.n)
    return mlc_error(sc->ctx, a->index->loc, "index %lld is out of range for a list of %d",
                     (long long)index.i, base.list.n);
  *out = base.list.items[i];
  return true;
}

static bool int_arith(Script *sc, const Ast *a, MlcSchVal *out) {
  MlcSchVal l, r;
  if (!eval(sc, a->lhs, &l) || !eval(sc, a->rhs, &r)) return false;
  if (l.kind != MLC_SV_INT || r.kind != MLC_SV_INT)
    return mlc_error(sc->ctx, a->loc, "arithmetic in a schedule script is on integer literals only");
  int64_t x = l.i, y = r.i, v;
  bool bad = false;
  switch (a->op) {
  case AST_OP_ADD: bad = __builtin_add_overflow(x, y, &v); break;
  case AST_OP_SUB: bad = __builtin_sub_overflow(x, y, &v); break;
  case AST_OP_MUL: bad = __builtin_mul_overflow(x, y, &v); break;
  case AST_OP_FLOORDIV:
  case AST_OP_MOD:
    if (y == 0) return mlc_error(sc->ctx, a->loc, "division by zero");
    if (x == INT64_MIN && y == -1) return mlc_error(sc->ctx, a->loc, "integer overflow");
    v = a->op == AST_OP_FLOORDIV ? x / y - ((x % y != 0) && ((x < 0) != (y < 0))) : x % y;
    if (a->op == AST_OP_MOD && v != 0 && ((v < 0) != (y < 0))) v += y;
    break;
  default: return mlc_error(sc->ctx, a->loc, "this operator is not supported in a schedule script");
  }
  if (bad) return mlc_error(sc->ctx, a->loc, "integer overflow");
  *out = (MlcSchVal){.kind = MLC_SV_INT, .i = v};
  return true;
}

static bool eval_neg(Script *sc, const Ast *a, MlcSchVal *out) {
  if (!eval(sc, a->lhs, out)) return false;
  if (out->kind == MLC_SV_INT && out->i != INT64_MIN) out->i = -out->i;
  else if (out->kind == MLC_SV_FLOAT) out->f = -out->f;
  else return mlc_error(sc->ctx, a->loc, "only a number can be negated");
  return true;
}

static bool eval(Script *sc, const Ast *a, MlcSchVal *out) {
  switch (a->kind) {
  case AST_NAME: {
    const MlcSchVal *v = mlc_map_get(&sc->env, a->name);
    if (!v) return mlc_error(sc->ctx, a->loc, "unknown name '%s'", a->name);
    *out = *v;
    return true;
  }
  case AST_INT: *out = (MlcSchVal){.kind = MLC_SV_INT, .i = a->int_val}; return true;
  case AST_FLOAT: *out = (MlcSchVal){.kind = MLC_SV_FLOAT, .f = a->float_val}; return true;
  case AST_STR: *out = (MlcSchVal){.kind = MLC_SV_STR, .s = a->str}; return true;
  case AST_NONE: *out = (MlcSchVal){.kind = MLC_SV_NONE}; return true;
  case AST_TRUE:
  case AST_FALSE: *out = (MlcSchVal){.kind = MLC_SV_BOOL, .i = a->kind == AST_TRUE}; return true;
  case AST_LAMBDA: *out = (MlcSchVal){.kind = MLC_SV_LAMBDA, .s = lambda_text(sc, a->loc)}; return true;
  case AST_LIST:
  case AST_TUPLE: {
    ValVec vals = {0};
    bool ok = eval_items(sc, &a->items, &vals);
    if (ok) *out = list_val(sc, vals.data, (int)vals.len);
    mlc_vec_free(&vals);
    return ok;
  }
  case AST_SUBSCRIPT: return eval_subscript(sc, a, out);
  case AST_BINOP: return int_arith(sc, a, out);
  case AST_UNARY:
    if (a->op == AST_OP_NEG) return eval_neg(sc, a, out);
    if (a->op == AST_OP_POS) return eval(sc, a->lhs, out);
    break;
  case AST_CALL:
    if (is_sch_call(sc, a)) return call_value(sc, a, out);
    break;
  default: break;
  }
  return mlc_error(sc->ctx, a->loc, "a schedule script argument must be a handle, a number, a string, "
                                    "a bool, None, a list or a lambda");
}

/* ---- calls ---------------------------------------------------------------- */

/* args[] bound from a call's positional and keyword arguments */
static bool bind_args(Script *sc, MlcSchPrim prim, const Ast *call, MlcSchVal *args) {
  SchParam ps[SCH_MAX_PARAMS];
  int np = sch_params(prim, ps);
  const char *pname = mlc_sch_prim_names[prim];
  bool given[SCH_MAX_PARAMS] = {0};
  ValVec pos = {0};
  if (!eval_items(sc, &call->items, &pos)) return mlc_vec_free(&pos), false;
  bool ok = true;
  if (np > 0 && ps[0].variadic) {
    args[0] = list_val(sc, pos.data, (int)pos.len);
    given[0] = pos.len > 0;
  } else if ((int)pos.len > np) {
    ok = mlc_error(sc->ctx, call->loc, "%s takes %d argument%s, %d given", pname, np, np == 1 ? "" : "s",
                   (int)pos.len);
  } else {
    for (size_t i = 0; i < pos.len; i++) args[i] = pos.data[i], given[i] = true;
  }
  mlc_vec_free(&pos);
  for (int k = 0; ok && k < call->n_kws; k++) {
    const AstKeyword *kw = &call->kws[k];
    int i = kw->name ? sch_param_index(prim, kw->name, strlen(kw->name)) : -1;
    if (i < 0) return mlc_error(sc->ctx, kw->loc, "%s has no parameter '%s'", pname, kw->name ? kw->name : "**");
    if (given[i]) return mlc_error(sc->ctx, kw->loc, "%s: argument '%s' given twice", pname, kw->name);
    if (!eval(sc, kw->value, &args[i])) return false;
    given[i] = true;
  }
  return ok;
}

/* A primitive's error located somewhere else (in text it parsed itself,
 * or nowhere) is moved to the call, so that every error of a script points
 * into the script. */
static void relocate(MlcCtx *ctx, MlcLoc loc) {
  char *msg = mlc_xstrdup(mlc_error_msg(ctx));
  mlc_clear_error(ctx);
  mlc_error(ctx, loc, "%s", msg);
  free(msg);
}

/* apply the primitive a call names; its outputs in outs */
static bool apply_call(Script *sc, const Ast *call, MlcSchVal *outs, int *n_outs) {
  MlcSchPrim prim;
  if (!sch_prim_lookup(call->func->name, &prim))
    return mlc_error(sc->ctx, call->func->loc, "unknown schedule primitive '%s'", call->func->name);
  MlcSchVal args[SCH_MAX_PARAMS] = {{0}};
  if (!bind_args(sc, prim, call, args)) return false;
  MlcLoc saved = sc->ctx->build_loc;
  sc->ctx->build_loc = call->loc;
  bool ok = mlc_sch_apply(sc->s, prim, args, outs, n_outs);
  sc->ctx->build_loc = saved;
  if (!ok && mlc_error_loc(sc->ctx).file != call->loc.file) relocate(sc->ctx, call->loc);
  return ok;
}

/* a call as a value: its one output, or the list of them */
static bool call_value(Script *sc, const Ast *call, MlcSchVal *out) {
  MlcSchVal outs[MLC_SCH_MAX_OUTS];
  int n;
  if (!apply_call(sc, call, outs, &n)) return false;
  *out = n == 1 ? outs[0] : list_val(sc, outs, n);
  return true;
}

/* ---- statements ------------------------------------------------------------- */

static void bind_name(Script *sc, const char *name, MlcSchVal v) {
  mlc_map_put(&sc->env, name, mlc_arena_dup(&sc->ctx->arena, &v, sizeof v));
}

/* `a, b, *rest = value` */
static bool unpack(Script *sc, const Ast *target, MlcSchVal v) {
  const AstList *t = &target->items;
  int star = -1;
  for (int i = 0; i < t->n; i++) {
    const Ast *it = t->items[i];
    if (it->kind == AST_STAR && it->lhs->kind == AST_NAME && star < 0) star = i;
    else if (it->kind != AST_NAME) return mlc_error(sc->ctx, it->loc, "assign to plain names only");
  }
  if (v.kind != MLC_SV_LIST) v = list_val(sc, &v, 1); /* a single handle unpacks as a list of one */
  int fixed = star < 0 ? t->n : t->n - 1;
  if (star < 0 ? v.list.n != fixed : v.list.n < fixed)
    return mlc_error(sc->ctx, target->loc, "%d value%s to unpack into %d name%s", v.list.n,
                     v.list.n == 1 ? "" : "s", t->n, t->n == 1 ? "" : "s");
  int rest = v.list.n - fixed, k = 0;
  for (int i = 0; i < t->n; i++) {
    if (i == star) {
      bind_name(sc, t->items[i]->lhs->name, list_val(sc, v.list.items + k, rest));
      k += rest;
    } else {
      bind_name(sc, t->items[i]->name, v.list.items[k++]);
    }
  }
  return true;
}

static bool assign(Script *sc, const Ast *target, MlcSchVal v) {
  if (target->kind == AST_NAME) {
    bind_name(sc, target->name, v);
    return true;
  }
  if (target->kind == AST_TUPLE || target->kind == AST_LIST) return unpack(sc, target, v);
  return mlc_error(sc->ctx, target->loc, "assign to plain names only");
}

/* `sch = tvm.tir.Schedule(...)`: names the schedule, does nothing else */
static bool is_schedule_ctor(const Ast *value) {
  if (!value || value->kind != AST_CALL) return false;
  const Ast *f = value->func;
  return (f->kind == AST_ATTR || f->kind == AST_NAME) && strcmp(f->name, "Schedule") == 0;
}

static bool run_stmt(Script *sc, const Ast *st) {
  switch (st->kind) {
  case AST_IMPORT:
  case AST_PASS: return true;
  case AST_EXPR_STMT:
    if (st->lhs->kind == AST_STR) return true; /* a docstring */
    if (is_sch_call(sc, st->lhs)) {
      MlcSchVal outs[MLC_SCH_MAX_OUTS];
      int n;
      return apply_call(sc, st->lhs, outs, &n);
    }
    break;
  case AST_ASSIGN: {
    if (!st->value) break;
    if (is_schedule_ctor(st->value) && st->target->kind == AST_NAME) {
      sc->sch_name = st->target->name;
      return true;
    }
    MlcSchVal v;
    return eval(sc, st->value, &v) && assign(sc, st->target, v);
  }
  default: break;
  }
  return mlc_error(sc->ctx, st->loc, "a schedule script holds calls `%s.PRIMITIVE(...)` and assignments only",
                   sc->sch_name);
}

bool mlc_sch_run_script(MlcSchedule *s, const char *file, const char *text, size_t len) {
  MlcCtx *ctx = s->ctx;
  file = mlc_intern(ctx, file ? file : "<script>");
  AstList stmts;
  if (!mlc_parse(ctx, file, text, len, &stmts)) return false;
  Script sc = {.s = s, .ctx = ctx, .text = text, .len = len, .sch_name = mlc_intern(ctx, "sch")};
  bool ok = true;
  for (int i = 0; ok && i < stmts.n; i++) ok = run_stmt(&sc, stmts.items[i]);
  mlc_map_free(&sc.env);
  return ok;
}
