/* c_stmt.c - C text for lowered TIR statements.
 *
 * Loops become for loops; a parallel loop's body is outlined into a closure
 * (a struct of every var and buffer visible at the loop, and a function over
 * a range of iterations) that the runtime's thread pool runs.  Allocations of
 * small constant size live on the stack, others in runtime workspace; a
 * workspace buffer of constant size inside a loop is allocated once at the
 * entry of its function (kernel, or closure: once per thread) rather than on
 * every iteration, since a fresh buffer and a reused one are alike to a
 * program (its contents are undefined at the allocation either way).  A
 * vector store is written in vector-extension form when its parts allow it,
 * otherwise as a loop over its lanes that first computes every lane and then
 * stores them, so the store keeps its all-lanes-at-once meaning.  Buffers
 * are declared with their elements' storage type and values with their
 * value type (c_emit.h); a store into bfloat16 narrows the float value to
 * the stored bits. */
#include "c_emit.h"
#include "mlcc/lower.h"

#include <stdio.h>
#include <string.h>

enum { STACK_LIMIT = 64 * 1024 };

void c_line(CEmit *e, const char *fmt, ...) {
  for (int i = 0; i < e->indent; i++) mlc_sb_puts(e->out, "  ");
  va_list ap;
  va_start(ap, fmt);
  mlc_sb_vprintf(e->out, fmt, ap);
  va_end(ap);
  mlc_sb_putc(e->out, '\n');
}

static const char *expr_str(CEmit *e, const MlcExpr *x, MlcStrBuf *tmp) {
  tmp->len = 0;
  c_expr(e, x, tmp);
  return mlc_sb_cstr(tmp);
}

/* the text of value v as stored into an element of dtype t: narrowed to
 * its bits for bfloat16 and the minifloats (in tmp), else v itself */
static const char *stored(CEmit *e, MlcDType t, const char *v, MlcStrBuf *tmp) {
  if (mlc_dtype_is_minifloat(t)) {
    tmp->len = 0;
    c_minifloat_open(e, mlc_dtype_elem(t), C_BF16_NARROW, tmp);
    mlc_sb_puts(tmp, v);
    c_minifloat_close(mlc_dtype_elem(t), C_BF16_NARROW, tmp);
    return mlc_sb_cstr(tmp);
  }
  if (t.code != MLC_TC_BFLOAT) return v;
  tmp->len = 0;
  mlc_sb_printf(tmp, "%s(%s)", c_bf16_fn(e, C_BF16_NARROW), v);
  return mlc_sb_cstr(tmp);
}

static void emit_store(CEmit *e, const MlcStmt *s) {
  const MlcExpr *idx = s->store.idx[0], *val = s->store.value;
  const char *buf = c_name(e, s->store.buf, s->store.buf->name);
  MlcDType bt = s->store.buf->dtype;
  MlcStrBuf a = {0}, b = {0}, st = {0};
  int lanes = val->dtype.lanes;
  int64_t stride;
  if (lanes == 1) {
    c_expr(e, idx, &a);
    c_expr(e, val, &b);
    c_line(e, "%s[%s] = %s;", buf, mlc_sb_cstr(&a), stored(e, bt, mlc_sb_cstr(&b), &st));
  } else if (idx->kind == MLC_EXPR_RAMP && mlc_e_is_const_int(idx->ramp.stride, &stride) && stride == 1 &&
             c_vector_ok(val)) {
    c_expr(e, idx->ramp.base, &a);
    c_expr(e, val, &b);
    c_line(e, "*(%s *)(%s + %s) = %s;", c_vector_type(e, val->dtype, true), buf, mlc_sb_cstr(&a), mlc_sb_cstr(&b));
  } else {
    const char *ct = c_scalar_type(mlc_dtype_elem(val->dtype));
    c_line(e, "{");
    e->indent++;
    c_line(e, "%s mlc_lanes[%d];", ct, lanes);
    c_expr_lane(e, val, "mlc_l", &b);
    c_line(e, "for (int mlc_l = 0; mlc_l < %d; ++mlc_l) mlc_lanes[mlc_l] = %s;", lanes, mlc_sb_cstr(&b));
    c_expr_lane(e, idx, "mlc_l", &a);
    c_line(e, "for (int mlc_l = 0; mlc_l < %d; ++mlc_l) %s[%s] = %s;", lanes, buf, mlc_sb_cstr(&a),
           stored(e, bt, "mlc_lanes[mlc_l]", &st));
    e->indent--;
    c_line(e, "}");
  }
  mlc_vec_free(&a);
  mlc_vec_free(&b);
  mlc_vec_free(&st);
}

static void push_var(CEmit *e, const MlcExpr *v) { mlc_vec_push(&e->scope_vars, v); }

/* the C type a var is declared with: scalars by dtype; vector lets as the
 * vector-extension type, or an array when the lanes are not a power of two */
static const char *var_decl_type(CEmit *e, MlcDType t) {
  if (t.lanes == 1) return c_scalar_type(t);
  return c_vector_type(e, t, false);
}

static void emit_parallel(CEmit *e, const MlcStmt *s);

static bool note_loop(MlcVisitor *v, const MlcStmt *s) {
  bool *found = v->user;
  if (s->kind == MLC_STMT_FOR) *found = true;
  return !*found;
}

/* Whether s holds a loop.  Only innermost loops marked unrolled (those
 * lowering left as loops) are handed to the C compiler to unroll: asking
 * it of an outer loop would multiply the copies of every loop inside it,
 * and nested marks (five levels of 64) would make its work explode. */
static bool holds_loop(const MlcStmt *s) {
  bool found = false;
  MlcVisitor v = {.user = &found, .stmt = note_loop};
  mlc_visit_stmt(&v, s);
  return found;
}

static void emit_for(CEmit *e, const MlcStmt *s) {
  if (s->loop.kind == MLC_FOR_THREAD) {
    c_fail(e, "loop '%s' is bound to %s, which the C target has no threads for", s->loop.var->var.name,
           s->loop.thread);
    return;
  }
  if (s->loop.kind == MLC_FOR_VECTORIZED) {
    c_fail(e, "loop '%s' is still marked vectorized (lower the function first)", s->loop.var->var.name);
    return;
  }
  if (s->loop.kind == MLC_FOR_PARALLEL) {
    emit_parallel(e, s);
    return;
  }
  MlcStrBuf lo = {0}, ext = {0};
  c_expr(e, s->loop.min, &lo);
  c_expr(e, s->loop.extent, &ext);
  const char *ct = c_scalar_type(s->loop.var->dtype);
  const char *v = c_name(e, s->loop.var, s->loop.var->var.name);
  int64_t n_iter;
  if (s->loop.kind == MLC_FOR_UNROLLED && !holds_loop(s->loop.body)) {
    /* a short nest left to the compiler (`pragma_unroll_explicit = 0`,
     * within `pragma_auto_unroll_max_step`) whole; a loop lowering did not
     * expand because its copies would be too big, by 8 */
    const MlcAttrValue *ex = mlc_attrs_get(s->loop.annotations, mlc_intern(e->ctx, "pragma_unroll_explicit"));
    bool whole = ex && ex->kind == MLC_ATTR_INT && ex->i == 0 && mlc_e_is_const_int(s->loop.extent, &n_iter) &&
                 n_iter > 0 && n_iter <= MLC_LOWER_MAX_UNROLL;
    c_line(e, "#pragma GCC unroll %d", whole ? (int)n_iter : 8);
  }
  int64_t zero;
  if (mlc_e_is_const_int(s->loop.min, &zero) && zero == 0)
    c_line(e, "for (%s %s = 0; %s < %s; ++%s) {", ct, v, v, mlc_sb_cstr(&ext), v);
  else
    c_line(e, "for (%s %s = %s, %s_end = %s + %s; %s < %s_end; ++%s) {", ct, v, mlc_sb_cstr(&lo), v,
           mlc_sb_cstr(&lo), mlc_sb_cstr(&ext), v, v, v);
  mlc_vec_free(&lo);
  mlc_vec_free(&ext);
  size_t mark = e->scope_vars.len;
  push_var(e, s->loop.var);
  e->indent++;
  e->loop_depth++;
  c_stmt(e, s->loop.body);
  e->loop_depth--;
  e->indent--;
  e->scope_vars.len = mark;
  c_line(e, "}");
}

const char *c_exit_jump(CEmit *e) {
  if (!e->exit_label) {
    e->uses_exit = true;
    return "mlc_exit";
  }
  e->exit_label_used = true;
  return e->exit_label;
}

void c_body_begin(CEmit *e, CBody *b) {
  *b = (CBody){.outer_out = e->out, .outer_depth = e->loop_depth, .outer_exit = e->uses_exit,
               .outer_label = e->exit_label, .outer_label_used = e->exit_label_used};
  e->exit_label = NULL;
  e->exit_label_used = false;
  b->outer_hoisted.data = e->hoisted.data;
  b->outer_hoisted.len = e->hoisted.len;
  b->outer_hoisted.cap = e->hoisted.cap;
  e->hoisted.data = NULL;
  e->hoisted.len = e->hoisted.cap = 0;
  e->out = &b->text;
  e->loop_depth = 0;
  e->uses_exit = false;
}

void c_body_end(CEmit *e, CBody *b) {
  e->out = b->outer_out;
  for (size_t i = 0; i < e->hoisted.len; i++) {
    const CHoisted *h = &e->hoisted.data[i];
    c_line(e, "%s *%s = (%s *)env->workspace_alloc((size_t)%lld * %zu, 64);", h->ctype, h->name, h->ctype,
           (long long)h->numel, h->esize);
    MlcStrBuf frees = {0};
    for (size_t k = 0; k < i; k++) mlc_sb_printf(&frees, "env->workspace_free(%s); ", e->hoisted.data[k].name);
    c_line(e, "if (%s == NULL) { %sreturn -1; }", h->name, mlc_sb_cstr(&frees));
    mlc_vec_free(&frees);
  }
  mlc_sb_puts(e->out, mlc_sb_cstr(&b->text));
  if (e->uses_exit) c_line(e, "mlc_exit:;");
  for (size_t i = e->hoisted.len; i-- > 0;) c_line(e, "env->workspace_free(%s);", e->hoisted.data[i].name);
  mlc_vec_free(&b->text);
  mlc_vec_free(&e->hoisted);
  e->hoisted.data = b->outer_hoisted.data;
  e->hoisted.len = b->outer_hoisted.len;
  e->hoisted.cap = b->outer_hoisted.cap;
  e->loop_depth = b->outer_depth;
  e->uses_exit = b->outer_exit;
  e->exit_label = b->outer_label;
  e->exit_label_used = b->outer_label_used;
}

/* Outline `for v in parallel(min, ext): body` into a closure. */
static void emit_parallel(CEmit *e, const MlcStmt *s) {
  int id = e->n_closures++;
  char fn[160], ty[180];
  snprintf(fn, sizeof fn, "%s_parallel%d", c_name(e, e->func, e->func->name), id);
  snprintf(ty, sizeof ty, "%s_closure", fn);
  MlcStrBuf tmp = {0};
  const char *min = expr_str(e, s->loop.min, &tmp);
  /* the closure: every var and buffer in scope, plus the loop's start */
  MlcStrBuf def = {0}, init = {0};
  mlc_sb_printf(&def, "typedef struct %s {\n  const MlcrtEnv *env;\n  %s mlc_min;\n", ty,
                c_scalar_type(s->loop.var->dtype));
  mlc_sb_printf(&init, "%s mlc_c%d = {env, %s", ty, id, min);
  for (size_t i = 0; i < e->scope_vars.len; i++) {
    const MlcExpr *v = e->scope_vars.data[i];
    const char *n = c_name(e, v, v->var.name);
    mlc_sb_printf(&def, "  %s %s;\n", var_decl_type(e, v->dtype), n);
    mlc_sb_printf(&init, ", %s", n);
  }
  for (size_t i = 0; i < e->scope_bufs.len; i++) {
    const MlcBuffer *b = e->scope_bufs.data[i];
    const char *n = c_name(e, b, b->name);
    mlc_sb_printf(&def, "  %s *%s;\n", c_storage_type(mlc_dtype_elem(b->dtype)), n);
    mlc_sb_printf(&init, ", %s", n);
  }
  mlc_sb_printf(&def, "} %s;\n\n", ty);
  mlc_sb_puts(&init, "};");
  /* the body function, written into its own buffer; with noalias buffers
   * and scalar vars, the work is in a function of its own whose buffers
   * are restrict parameters (what GCC's alias analysis relies on) */
  bool split = e->noalias;
  for (size_t i = 0; i < e->scope_vars.len; i++) split &= e->scope_vars.data[i]->dtype.lanes == 1;
  MlcStrBuf body = {0}, decl = {0}, call = {0};
  MlcStrBuf *saved = e->out;
  int saved_indent = e->indent;
  e->out = &body;
  e->indent = 0;
  CBody fb;
  const char *ct = c_scalar_type(s->loop.var->dtype);
  if (split) {
    mlc_sb_printf(&decl, "int64_t mlc_begin, int64_t mlc_end, const MlcrtEnv *env, %s mlc_min", ct);
    mlc_sb_puts(&call, "mlc_begin, mlc_end, mlc_c->env, mlc_c->mlc_min");
    for (size_t i = 0; i < e->scope_vars.len; i++) {
      const MlcExpr *v = e->scope_vars.data[i];
      const char *n = c_name(e, v, v->var.name);
      mlc_sb_printf(&decl, ", %s %s", c_scalar_type(v->dtype), n);
      mlc_sb_printf(&call, ", mlc_c->%s", n);
    }
    for (size_t i = 0; i < e->scope_bufs.len; i++) {
      const MlcBuffer *b = e->scope_bufs.data[i];
      const char *n = c_name(e, b, b->name);
      mlc_sb_printf(&decl, ", %s *restrict %s", c_storage_type(mlc_dtype_elem(b->dtype)), n);
      mlc_sb_printf(&call, ", mlc_c->%s", n);
    }
    c_line(e, "static int32_t %s_body(%s) {", fn, mlc_sb_cstr(&decl));
    e->indent = 1;
  } else {
    c_line(e, "static int32_t %s(int64_t mlc_begin, int64_t mlc_end, void *mlc_closure) {", fn);
    e->indent = 1;
    c_line(e, "const %s *mlc_c = (const %s *)mlc_closure;", ty, ty);
    c_line(e, "const MlcrtEnv *env = mlc_c->env;");
    c_line(e, "%s mlc_min = mlc_c->mlc_min;", ct);
    for (size_t i = 0; i < e->scope_vars.len; i++) {
      const MlcExpr *v = e->scope_vars.data[i];
      const char *n = c_name(e, v, v->var.name);
      c_line(e, "%s %s = mlc_c->%s;", var_decl_type(e, v->dtype), n, n);
    }
    for (size_t i = 0; i < e->scope_bufs.len; i++) {
      const MlcBuffer *b = e->scope_bufs.data[i];
      const char *n = c_name(e, b, b->name);
      c_line(e, "%s *%s%s = mlc_c->%s;", c_storage_type(mlc_dtype_elem(b->dtype)), e->noalias ? "restrict " : "", n, n);
    }
  }
  c_line(e, "int32_t mlc_status = 0;");
  const char *v = c_name(e, s->loop.var, s->loop.var->var.name);
  c_body_begin(e, &fb);
  c_line(e, "for (int64_t mlc_it = mlc_begin; mlc_it < mlc_end; ++mlc_it) {");
  e->indent++;
  e->loop_depth = 1;
  c_line(e, "%s %s = (%s)(mlc_min + mlc_it);", ct, v, ct);
  size_t mark = e->scope_vars.len;
  push_var(e, s->loop.var);
  c_stmt(e, s->loop.body);
  e->scope_vars.len = mark;
  e->indent--;
  c_line(e, "}");
  c_body_end(e, &fb);
  c_line(e, "(void)env;");
  c_line(e, "return mlc_status;");
  e->indent = 0;
  c_line(e, "}\n");
  if (split) {
    c_line(e, "static int32_t %s(int64_t mlc_begin, int64_t mlc_end, void *mlc_closure) {", fn);
    e->indent = 1;
    c_line(e, "const %s *mlc_c = (const %s *)mlc_closure;", ty, ty);
    c_line(e, "return %s_body(%s);", fn, mlc_sb_cstr(&call));
    e->indent = 0;
    c_line(e, "}\n");
  }
  mlc_vec_free(&decl);
  mlc_vec_free(&call);
  e->out = saved;
  e->indent = saved_indent;
  mlc_sb_puts(e->closures, mlc_sb_cstr(&def));
  mlc_sb_puts(e->closures, mlc_sb_cstr(&body));
  /* the call */
  const char *ext = expr_str(e, s->loop.extent, &tmp);
  c_line(e, "{");
  e->indent++;
  c_line(e, "%s", mlc_sb_cstr(&init));
  c_line(e, "int32_t mlc_s = env->parallel_for((int64_t)(%s), %s, &mlc_c%d);", ext, fn, id);
  c_line(e, "if (mlc_s != 0) mlc_status = mlc_s;");
  e->indent--;
  c_line(e, "}");
  mlc_vec_free(&tmp);
  mlc_vec_free(&def);
  mlc_vec_free(&init);
  mlc_vec_free(&body);
}

static void emit_allocate(CEmit *e, const MlcStmt *s) {
  const MlcBuffer *b = s->alloc.buf;
  const char *ct = c_storage_type(mlc_dtype_elem(b->dtype));
  const char *n = c_name(e, b, b->name);
  int64_t numel;
  size_t esize = mlc_dtype_bytes(mlc_dtype_elem(b->dtype));
  bool constant = mlc_e_is_const_int(b->shape[0], &numel);
  if (!ct) {
    c_fail(e, "buffer '%s' has a dtype the C target does not support", b->name);
    return;
  }
  bool on_heap = !constant || (uint64_t)numel * esize > STACK_LIMIT;
  bool hoist = on_heap && constant && e->loop_depth > 0;
  if (hoist) {
    mlc_vec_push(&e->hoisted, ((CHoisted){n, ct, numel, esize}));
    mlc_vec_push(&e->scope_bufs, b);
    c_stmt(e, s->alloc.body);
    e->scope_bufs.len--;
    return;
  }
  c_line(e, "{");
  e->indent++;
  if (!on_heap) {
    c_line(e, "%s %s[%lld] __attribute__((aligned(64)));", ct, n, (long long)(numel > 0 ? numel : 1));
  } else {
    MlcStrBuf tmp = {0};
    c_line(e, "%s *%s = (%s *)env->workspace_alloc((size_t)(%s) * %zu, 64);", ct, n, ct, expr_str(e, b->shape[0], &tmp),
           esize);
    mlc_vec_free(&tmp);
    /* out of memory: the exit frees the enclosing buffers */
    c_line(e, "if (%s == NULL) { mlc_status = -1; goto %s; }", n, c_exit_jump(e));
  }
  mlc_vec_push(&e->scope_bufs, b);
  if (!on_heap) {
    c_stmt(e, s->alloc.body);
  } else {
    /* a failure in the body (a division by zero) frees this buffer on its
     * way out, then goes on to the enclosing exit */
    const char *outer = e->exit_label;
    bool outer_used = e->exit_label_used;
    e->exit_label = mlc_internf(e->ctx, "mlc_free%d", e->n_tmps++);
    e->exit_label_used = false;
    c_stmt(e, s->alloc.body);
    const char *label = e->exit_label;
    bool used = e->exit_label_used;
    e->exit_label = outer;
    e->exit_label_used = outer_used;
    if (used) c_line(e, "%s:;", label);
    c_line(e, "env->workspace_free(%s);", n);
    if (used) c_line(e, "if (mlc_status != 0) goto %s;", c_exit_jump(e));
  }
  e->scope_bufs.len--;
  e->indent--;
  c_line(e, "}");
}

void c_stmt(CEmit *e, const MlcStmt *s) {
  if (e->failed) return;
  MlcStrBuf tmp = {0};
  switch (s->kind) {
  case MLC_STMT_STORE: emit_store(e, s); break;
  case MLC_STMT_FOR: emit_for(e, s); break;
  case MLC_STMT_BLOCK_REALIZE: c_fail(e, "block '%s' was not lowered", s->realize.block->name); break;
  case MLC_STMT_SEQ:
    for (int i = 0; i < s->seq.n; i++) c_stmt(e, s->seq.items[i]);
    break;
  case MLC_STMT_IF:
    c_line(e, "if (%s) {", expr_str(e, s->if_.cond, &tmp));
    e->indent++;
    c_stmt(e, s->if_.then_s);
    e->indent--;
    if (s->if_.else_s) {
      c_line(e, "} else {");
      e->indent++;
      c_stmt(e, s->if_.else_s);
      e->indent--;
    }
    c_line(e, "}");
    break;
  case MLC_STMT_LET: {
    const MlcExpr *v = s->let.var;
    const char *n = c_name(e, v, v->var.name);
    c_line(e, "{");
    e->indent++;
    if (v->dtype.lanes == 1 || c_vector_ok(s->let.value)) {
      c_line(e, "%s %s = %s;", var_decl_type(e, v->dtype), n, expr_str(e, s->let.value, &tmp));
    } else {
      c_line(e, "%s %s;", var_decl_type(e, v->dtype), n);
      tmp.len = 0;
      c_expr_lane(e, s->let.value, "mlc_l", &tmp);
      c_line(e, "for (int mlc_l = 0; mlc_l < %d; ++mlc_l) %s[mlc_l] = %s;", v->dtype.lanes, n, mlc_sb_cstr(&tmp));
    }
    push_var(e, v);
    c_stmt(e, s->let.body);
    e->scope_vars.len--;
    e->indent--;
    c_line(e, "}");
    break;
  }
  case MLC_STMT_ALLOCATE: emit_allocate(e, s); break;
  case MLC_STMT_EVALUATE:
    if (s->eval->kind != MLC_EXPR_INT) c_line(e, "(void)(%s);", expr_str(e, s->eval, &tmp));
    break;
  }
  mlc_vec_free(&tmp);
}
