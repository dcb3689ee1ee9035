/* print_graph.c - canonical TVMScript of graph functions: signatures with
 * struct info, dataflow blocks of bindings, calls, constants.
 *
 * A graph function's symbolic dims are TIR vars: they print as strings in
 * the signature (where the reader creates them) and as names elsewhere,
 * after `n = T.int64()` lines that open the body.  A binding carries its
 * struct info annotation only when the value alone would give a different
 * one, which is exactly when the reader needs it to rebuild the same var.
 * Shapes are int64, so int64 literals print bare inside struct info and
 * R.shape, and TIR scalars (R.prim_value) keep the TIR spelling. */
#include "text/print_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ======================================================================== */
/* walking                                                                  */
/* ======================================================================== */

/* pre-order over every graph expression of e, binding vars included */
static void walk_g(const MlcGExpr *e, void (*fn)(void *user, const MlcGExpr *e), void *user) {
  if (!e) return;
  fn(user, e);
  switch (e->kind) {
  case MLC_G_TUPLE:
    for (int i = 0; i < e->tuple.n; i++) walk_g(e->tuple.fields[i], fn, user);
    break;
  case MLC_G_GET_ITEM: walk_g(e->get_item.tuple, fn, user); break;
  case MLC_G_CALL:
    walk_g(e->call.callee, fn, user);
    for (int i = 0; i < e->call.n; i++) walk_g(e->call.args[i], fn, user);
    break;
  case MLC_G_IF:
    walk_g(e->if_.cond, fn, user);
    walk_g(e->if_.then_e, fn, user);
    walk_g(e->if_.else_e, fn, user);
    break;
  case MLC_G_SEQ:
    for (int i = 0; i < e->seq.n; i++)
      for (int j = 0; j < e->seq.blocks[i]->n; j++) {
        walk_g(e->seq.blocks[i]->bindings[j].var, fn, user);
        walk_g(e->seq.blocks[i]->bindings[j].value, fn, user);
      }
    walk_g(e->seq.result, fn, user);
    break;
  case MLC_G_VAR:
  case MLC_G_DFVAR:
  case MLC_G_CONST:
  case MLC_G_SHAPE:
  case MLC_G_PRIM:
  case MLC_G_STR:
  case MLC_G_DTYPE:
  case MLC_G_OP:
  case MLC_G_GLOBAL:
  case MLC_G_EXTERN: break;
  }
}

static void note_global(void *user, const MlcGExpr *e) {
  if (e->kind == MLC_G_GLOBAL) *(bool *)user = true;
}

/* the symbolic (TIR) vars of a function, in order of first appearance */
typedef struct SymVars { MlcMap seen; MLC_VEC(const MlcExpr *) list; } SymVars;

static void note_sym(void *user, const MlcExpr *var) {
  SymVars *sv = user;
  if (mlc_map_has(&sv->seen, var)) return;
  mlc_map_put(&sv->seen, var, NULL);
  mlc_vec_push(&sv->list, var);
}

static void sym_exprs(SymVars *sv, MlcExpr *const *es, int n) {
  for (int i = 0; es && i < n; i++) mlc_pt_expr_vars(es[i], note_sym, sv);
}

static void sym_sinfo(SymVars *sv, const MlcSInfo *s) {
  if (!s) return;
  switch (s->kind) {
  case MLC_SINFO_OBJECT: break;
  case MLC_SINFO_TENSOR: sym_exprs(sv, s->tensor.shape, s->tensor.ndim); break;
  case MLC_SINFO_TUPLE:
    for (int i = 0; i < s->tuple.n; i++) sym_sinfo(sv, s->tuple.fields[i]);
    break;
  case MLC_SINFO_SHAPE: sym_exprs(sv, s->shape.values, s->shape.ndim); break;
  case MLC_SINFO_PRIM: mlc_pt_expr_vars(s->prim.value, note_sym, sv); break;
  }
}

/* the size vars of an attribute value (a call's count=[n], shape=[r0, r1]) */
static void sym_attr(SymVars *sv, const MlcAttrValue *v) {
  if (v->kind == MLC_ATTR_EXPR) mlc_pt_expr_vars(v->expr, note_sym, sv);
  for (int i = 0; v->kind == MLC_ATTR_LIST && i < v->list.n; i++) sym_attr(sv, &v->list.items[i]);
}

static void note_gexpr_syms(void *user, const MlcGExpr *e) {
  SymVars *sv = user;
  switch (e->kind) {
  case MLC_G_VAR:
  case MLC_G_DFVAR: sym_sinfo(sv, e->sinfo); break;
  case MLC_G_CALL:
    for (int i = 0; i < e->call.n_sinfo_args; i++) sym_sinfo(sv, e->call.sinfo_args[i]);
    for (int i = 0; i < e->call.attrs.n; i++) sym_attr(sv, &e->call.attrs.items[i].val);
    break;
  case MLC_G_SHAPE: sym_exprs(sv, e->shape.values, e->shape.n); break;
  case MLC_G_PRIM: mlc_pt_expr_vars(e->prim, note_sym, sv); break;
  default: break;
  }
}

/* ======================================================================== */
/* struct info                                                              */
/* ======================================================================== */

static bool is_object(const MlcSInfo *s) { return !s || s->kind == MLC_SINFO_OBJECT; }

static bool same_exprs(MlcExpr *const *a, MlcExpr *const *b, int n) {
  if (!a || !b) return !a && !b;
  for (int i = 0; i < n; i++)
    if (!mlc_expr_same(a[i], b[i])) return false;
  return true;
}

/* structural equality with symbolic vars compared by identity: all of one
 * function, where the same dim is the same var */
static bool sinfo_same(const MlcSInfo *a, const MlcSInfo *b) {
  if (a == b) return true;
  if (is_object(a) || is_object(b)) return is_object(a) && is_object(b);
  if (a->kind != b->kind) return false;
  switch (a->kind) {
  case MLC_SINFO_OBJECT: return true;
  case MLC_SINFO_TENSOR:
    return a->tensor.ndim == b->tensor.ndim && mlc_dtype_eq(a->tensor.dtype, b->tensor.dtype) &&
           same_exprs(a->tensor.shape, b->tensor.shape, a->tensor.ndim);
  case MLC_SINFO_TUPLE:
    if (a->tuple.n != b->tuple.n) return false;
    for (int i = 0; i < a->tuple.n; i++)
      if (!sinfo_same(a->tuple.fields[i], b->tuple.fields[i])) return false;
    return true;
  case MLC_SINFO_SHAPE:
    return a->shape.ndim == b->shape.ndim && same_exprs(a->shape.values, b->shape.values, a->shape.ndim);
  case MLC_SINFO_PRIM:
    return mlc_dtype_eq(a->prim.dtype, b->prim.dtype) &&
           (a->prim.value && b->prim.value ? mlc_expr_same(a->prim.value, b->prim.value)
                                           : !a->prim.value && !b->prim.value);
  }
  return false;
}

/* a dim: int64 literals bare; in a signature a symbolic dim as a string,
 * which is where the reader may create it.  Arithmetic on dims stays an
 * expression: its vars are declared by the `n = T.int64()` lines, which
 * the reader takes in before the signature. */
static void pr_dim(MlcPrinter *p, const MlcExpr *e) {
  int saved = p->bare_int_bits;
  p->bare_int_bits = 64;
  bool quote = p->signature && e && e->kind == MLC_EXPR_VAR;
  if (quote) mlc_pt_puts(p, "\"");
  mlc_pt_expr(p, e);
  if (quote) mlc_pt_puts(p, "\"");
  p->bare_int_bits = saved;
}

static void pr_dims(MlcPrinter *p, MlcExpr *const *dims, int n) {
  for (int i = 0; i < n; i++) {
    if (i) mlc_pt_puts(p, ", ");
    pr_dim(p, dims[i]);
  }
}

static void pr_tensor_sinfo(MlcPrinter *p, const MlcSInfo *s) {
  bool has_shape = s->tensor.shape && s->tensor.ndim >= 0;
  bool has_dtype = s->tensor.dtype.code != MLC_TC_VOID;
  bool has_ndim = !has_shape && s->tensor.ndim >= 0;
  if (!has_shape && !has_dtype && !has_ndim) {
    mlc_pt_puts(p, "R.Tensor");
    return;
  }
  const char *sep = "";
  mlc_pt_puts(p, "R.Tensor(");
  if (has_shape) {
    mlc_pt_puts(p, "(");
    pr_dims(p, s->tensor.shape, s->tensor.ndim);
    mlc_pt_puts(p, s->tensor.ndim == 1 ? ",)" : ")");
    sep = ", ";
  }
  if (has_dtype) {
    mlc_pt_printf(p, "%sdtype=", sep);
    mlc_pt_dtype_str(p, s->tensor.dtype);
    sep = ", ";
  }
  if (has_ndim) mlc_pt_printf(p, "%sndim=%d", sep, s->tensor.ndim);
  mlc_pt_puts(p, ")");
}

void mlc_pt_sinfo(MlcPrinter *p, const MlcSInfo *s) {
  if (is_object(s)) {
    mlc_pt_puts(p, "R.Object");
    return;
  }
  switch (s->kind) {
  case MLC_SINFO_OBJECT: break;
  case MLC_SINFO_TENSOR: pr_tensor_sinfo(p, s); break;
  case MLC_SINFO_TUPLE:
    mlc_pt_puts(p, "R.Tuple(");
    for (int i = 0; i < s->tuple.n; i++) {
      if (i) mlc_pt_puts(p, ", ");
      mlc_pt_sinfo(p, s->tuple.fields[i]);
    }
    mlc_pt_puts(p, ")");
    break;
  case MLC_SINFO_SHAPE:
    if (s->shape.values) {
      mlc_pt_puts(p, "R.Shape([");
      pr_dims(p, s->shape.values, s->shape.ndim);
      mlc_pt_puts(p, "])");
    } else if (s->shape.ndim >= 0) {
      mlc_pt_printf(p, "R.Shape(ndim=%d)", s->shape.ndim);
    } else {
      mlc_pt_puts(p, "R.Shape");
    }
    break;
  case MLC_SINFO_PRIM:
    if (s->prim.value) {
      mlc_pt_puts(p, "R.Prim(value=");
      pr_dim(p, s->prim.value);
      mlc_pt_puts(p, ")");
    } else {
      mlc_pt_puts(p, "R.Prim(");
      mlc_pt_dtype_str(p, s->prim.dtype);
      mlc_pt_puts(p, ")");
    }
    break;
  }
}

/* ======================================================================== */
/* constants                                                                */
/* ======================================================================== */


/* one element of a constant, as a Python literal; bytes past the data (a
 * malformed tensor) print as 0 rather than being read */
static void pr_elem(MlcPrinter *p, const MlcTensorData *t, size_t i) {
  MlcDType dt = t->dtype;
  size_t sz = mlc_dtype_bytes(dt);
  if (!t->data || sz == 0 || sz > 8 || i >= t->nbytes / sz) {
    mlc_pt_puts(p, "0");
    return;
  }
  unsigned char b[8] = {0};
  memcpy(b, (const unsigned char *)t->data + i * sz, sz);
  uint16_t u16;
  uint32_t u32;
  uint64_t u64;
  memcpy(&u16, b, 2);
  memcpy(&u32, b, 4);
  memcpy(&u64, b, 8);
  switch ((MlcTypeCode)dt.code) {
  case MLC_TC_FLOAT:
    if (dt.bits == 16) mlc_pt_py_float(p, mlc_f16_to_f32(u16), false);
    else if (dt.bits == 32) {
      float f;
      memcpy(&f, b, 4);
      mlc_pt_py_float(p, f, true);
    } else {
      double d;
      memcpy(&d, b, 8);
      mlc_pt_py_float(p, d, false);
    }
    break;
  case MLC_TC_BFLOAT: mlc_pt_py_float(p, mlc_bf16_to_f32(u16), false); break;
  MLC_TC_MINIFLOAT_CASES: mlc_pt_py_float(p, mlc_minifloat_decode(mlc_dtype_elem(dt), b[0]), false); break;
  case MLC_TC_INT:
    if (dt.bits <= 8) mlc_pt_printf(p, "%d", (int)(int8_t)b[0]);
    else if (dt.bits == 16) mlc_pt_printf(p, "%d", (int)(int16_t)u16);
    else if (dt.bits == 32) mlc_pt_printf(p, "%ld", (long)(int32_t)u32);
    else mlc_pt_printf(p, "%lld", (long long)(int64_t)u64);
    break;
  case MLC_TC_UINT:
    if (dt.bits <= 8) mlc_pt_printf(p, "%u", (unsigned)b[0]);
    else if (dt.bits == 16) mlc_pt_printf(p, "%u", (unsigned)u16);
    else if (dt.bits == 32) mlc_pt_printf(p, "%lu", (unsigned long)u32);
    else mlc_pt_printf(p, "%llu", (unsigned long long)u64);
    break;
  case MLC_TC_BOOL: mlc_pt_puts(p, b[0] ? "True" : "False"); break;
  case MLC_TC_HANDLE:
  case MLC_TC_VOID: mlc_pt_puts(p, "0"); break;
  }
}

/* nested lists, row-major: base is the linear index of the prefix so far */
static void pr_const_data(MlcPrinter *p, const MlcTensorData *t, int dim, size_t base) {
  if (dim >= t->ndim) {
    pr_elem(p, t, base);
    return;
  }
  int64_t n = t->shape[dim] > 0 ? t->shape[dim] : 0;
  mlc_pt_puts(p, "[");
  for (int64_t i = 0; i < n; i++) {
    if (i) mlc_pt_puts(p, ", ");
    pr_const_data(p, t, dim + 1, base * (size_t)n + (size_t)i);
  }
  mlc_pt_puts(p, "]");
}

static void pr_const(MlcPrinter *p, const MlcTensorData *t) {
  mlc_pt_puts(p, "R.const(");
  pr_const_data(p, t, 0, 0);
  mlc_pt_puts(p, ", ");
  mlc_pt_dtype_str(p, t->dtype);
  mlc_pt_puts(p, ")");
}

/* ======================================================================== */
/* expressions                                                              */
/* ======================================================================== */

static void pr_gargs(MlcPrinter *p, MlcGExpr *const *args, int n) {
  for (int i = 0; i < n; i++) {
    if (i) mlc_pt_puts(p, ", ");
    mlc_pt_gexpr(p, args[i]);
  }
}

static bool is_op(const MlcGExpr *e, const char *name) {
  return e->kind == MLC_G_OP && strcmp(e->str, name) == 0;
}

/* out_sinfo= of call_tir / call_dps_packed: several outputs as a list */
static void pr_out_sinfo(MlcPrinter *p, const MlcGExpr *call) {
  MlcSInfo *const *s = call->call.sinfo_args;
  int n = call->call.n_sinfo_args;
  if (n == 1 && s[0]->kind == MLC_SINFO_TUPLE) {
    s = s[0]->tuple.fields;
    n = s ? call->call.sinfo_args[0]->tuple.n : 0;
  } else if (n == 1) {
    mlc_pt_sinfo(p, s[0]);
    return;
  }
  mlc_pt_puts(p, "[");
  for (int i = 0; i < n; i++) {
    if (i) mlc_pt_puts(p, ", ");
    mlc_pt_sinfo(p, s[i]);
  }
  mlc_pt_puts(p, "]");
}

/* a call in the form R.call_tir / R.call_dps_packed print: (callee, (args...)) */
static bool is_dps_call(const MlcGExpr *e) {
  const MlcGExpr *callee = e->call.callee;
  return (is_op(callee, "call_tir") || is_op(callee, "call_dps_packed")) && e->call.n == 2 &&
         e->call.args[1]->kind == MLC_G_TUPLE && e->call.n_sinfo_args >= 1 && !e->call.attrs.n;
}

/* R.call_tir(cls.f, (a, b), out_sinfo=...) and R.call_dps_packed("env.f", ...) */
static bool pr_dps_call(MlcPrinter *p, const MlcGExpr *e) {
  if (!is_dps_call(e)) return false;
  const MlcGExpr *f = e->call.args[0];
  mlc_pt_printf(p, "R.%s(", e->call.callee->str);
  if (f->kind == MLC_G_EXTERN) mlc_pt_str(p, f->str);
  else mlc_pt_gexpr(p, f);
  mlc_pt_puts(p, ", ");
  mlc_pt_gexpr(p, e->call.args[1]);
  mlc_pt_puts(p, ", out_sinfo=");
  pr_out_sinfo(p, e);
  mlc_pt_puts(p, ")");
  return true;
}

static void pr_gcall(MlcPrinter *p, const MlcGExpr *e) {
  if (pr_dps_call(p, e)) return;
  const MlcGExpr *callee = e->call.callee;
  int n_args = e->call.n;
  if (callee->kind == MLC_G_OP) {
    mlc_pt_printf(p, "R.%s(", callee->str);
  } else if (callee->kind == MLC_G_EXTERN) {
    mlc_pt_puts(p, "R.call_packed(");
    mlc_pt_str(p, callee->str);
    if (n_args) mlc_pt_puts(p, ", ");
  } else {
    mlc_pt_gexpr(p, callee);
    mlc_pt_puts(p, "(");
  }
  pr_gargs(p, e->call.args, n_args);
  bool sep = n_args > 0 || callee->kind == MLC_G_EXTERN;
  for (int i = 0; i < e->call.attrs.n; i++, sep = true) {
    mlc_pt_printf(p, "%s%s=", sep ? ", " : "", e->call.attrs.items[i].key);
    mlc_pt_attr_value(p, &e->call.attrs.items[i].val, false);
  }
  if (e->call.n_sinfo_args) {
    mlc_pt_puts(p, sep ? ", sinfo_args=" : "sinfo_args=");
    if (e->call.n_sinfo_args == 1) {
      mlc_pt_sinfo(p, e->call.sinfo_args[0]);
    } else {
      mlc_pt_puts(p, "(");
      for (int i = 0; i < e->call.n_sinfo_args; i++) {
        if (i) mlc_pt_puts(p, ", ");
        mlc_pt_sinfo(p, e->call.sinfo_args[i]);
      }
      mlc_pt_puts(p, ")");
    }
  }
  mlc_pt_puts(p, ")");
}

void mlc_pt_gexpr(MlcPrinter *p, const MlcGExpr *e) {
  if (!e) {
    mlc_pt_puts(p, "None");
    return;
  }
  int saved = p->bare_int_bits;
  switch (e->kind) {
  case MLC_G_VAR:
  case MLC_G_DFVAR: mlc_pt_puts(p, mlc_pt_name(p, e, e->var.name)); break;
  case MLC_G_CONST: pr_const(p, e->constant); break;
  case MLC_G_TUPLE:
    mlc_pt_puts(p, "(");
    pr_gargs(p, e->tuple.fields, e->tuple.n);
    mlc_pt_puts(p, e->tuple.n == 1 ? ",)" : ")");
    break;
  case MLC_G_GET_ITEM:
    mlc_pt_gexpr(p, e->get_item.tuple);
    mlc_pt_printf(p, "[%d]", e->get_item.index);
    break;
  case MLC_G_CALL: pr_gcall(p, e); break;
  case MLC_G_SHAPE:
    mlc_pt_puts(p, "R.shape([");
    pr_dims(p, e->shape.values, e->shape.n);
    mlc_pt_puts(p, "])");
    break;
  case MLC_G_PRIM:
    /* the reader takes a bare integer here as int64 and a float as float32:
     * every value says its dtype, so none reads back as another */
    p->bare_int_bits = 0;
    mlc_pt_puts(p, "R.prim_value(");
    mlc_pt_expr(p, e->prim);
    mlc_pt_puts(p, ")");
    break;
  case MLC_G_STR:
    mlc_pt_puts(p, "R.str(");
    mlc_pt_str(p, e->str);
    mlc_pt_puts(p, ")");
    break;
  case MLC_G_DTYPE:
    mlc_pt_puts(p, "R.dtype(");
    mlc_pt_dtype_str(p, e->dtype);
    mlc_pt_puts(p, ")");
    break;
  case MLC_G_OP: mlc_pt_printf(p, "R.%s", e->str); break;
  case MLC_G_GLOBAL: mlc_pt_printf(p, "cls.%s", e->str); break;
  case MLC_G_EXTERN:
    mlc_pt_puts(p, "R.ExternFunc(");
    mlc_pt_str(p, e->str);
    mlc_pt_puts(p, ")");
    break;
  /* An if or a sequence is a statement; nested inside an expression (which
   * normalized IR never does) only its results can be shown on one line. */
  case MLC_G_IF:
    mlc_pt_puts(p, "R.If(");
    mlc_pt_gexpr(p, e->if_.cond);
    mlc_pt_puts(p, ", ");
    mlc_pt_gexpr(p, e->if_.then_e);
    mlc_pt_puts(p, ", ");
    mlc_pt_gexpr(p, e->if_.else_e);
    mlc_pt_puts(p, ")");
    break;
  case MLC_G_SEQ: mlc_pt_gexpr(p, e->seq.result); break;
  }
  p->bare_int_bits = saved;
}

/* ======================================================================== */
/* bindings and functions                                                   */
/* ======================================================================== */

static void pr_blocks(MlcPrinter *p, const MlcGExpr *seq);

static const char *bind_name(MlcPrinter *p, const MlcGExpr *var) {
  return mlc_pt_is_defined(p, var) ? mlc_pt_name(p, var, var->var.name)
                                   : mlc_pt_define(p, var, var->var.name);
}

/* What the reader gives a var bound to this value without an annotation:
 * the value's own struct info, except for calls of ops and functions, whose
 * results it cannot infer (they get object, or the annotation when there is
 * one). */
static const MlcSInfo *natural_sinfo(const MlcGExpr *e) {
  if (e->kind == MLC_G_CALL && !is_dps_call(e)) return NULL;
  return e->sinfo;
}

/* The binding a branch ends with: the reader makes the last name a branch
 * binds its result, and the if binds that same name outside. */
static const MlcBinding *branch_result_binding(const MlcGExpr *seq) {
  if (seq->kind != MLC_G_SEQ || seq->seq.n == 0) return NULL;
  const MlcBindingBlock *last = seq->seq.blocks[seq->seq.n - 1];
  if (last->dataflow || last->n == 0 || last->bindings[last->n - 1].var != seq->seq.result) return NULL;
  return &last->bindings[last->n - 1];
}

/* a branch prints its bindings; its result var takes the if's name.  A
 * result that is not such a var (IR not made by the reader) is assigned to
 * the name in a last line, the nearest text can come. */
static void pr_if_branch(MlcPrinter *p, const MlcGExpr *seq, const char *name) {
  size_t mark = mlc_pt_scope(p);
  p->indent++;
  const MlcBinding *res = branch_result_binding(seq);
  if (res) mlc_pt_alias(p, res->var, name);
  if (seq->kind == MLC_G_SEQ) pr_blocks(p, seq);
  if (!res) {
    mlc_pt_line_start(p);
    mlc_pt_printf(p, "%s = ", name);
    mlc_pt_gexpr(p, seq->kind == MLC_G_SEQ ? seq->seq.result : seq);
    mlc_pt_line_end(p);
  }
  p->indent--;
  mlc_pt_unscope(p, mark);
}

static void pr_binding(MlcPrinter *p, const MlcBinding *b) {
  const char *name = bind_name(p, b->var);
  mlc_pt_line_start(p);
  if (b->value->kind == MLC_G_IF) {
    mlc_pt_puts(p, "if ");
    mlc_pt_gexpr(p, b->value->if_.cond);
    mlc_pt_puts(p, ":");
    mlc_pt_line_end(p);
    pr_if_branch(p, b->value->if_.then_e, name);
    mlc_pt_line(p, "else:");
    pr_if_branch(p, b->value->if_.else_e, name);
    return;
  }
  mlc_pt_puts(p, name);
  if (!sinfo_same(b->var->sinfo, natural_sinfo(b->value))) {
    mlc_pt_puts(p, ": ");
    mlc_pt_sinfo(p, b->var->sinfo);
  }
  mlc_pt_puts(p, " = ");
  mlc_pt_gexpr(p, b->value);
  mlc_pt_line_end(p);
}

/* The block's outputs are named before its dataflow vars, so that closing
 * the block's scope (which frees the dataflow names) keeps them. */
static void pr_dataflow(MlcPrinter *p, const MlcBindingBlock *blk) {
  mlc_pt_line(p, "with R.dataflow():");
  p->indent++;
  for (int i = 0; i < blk->n; i++)
    if (blk->bindings[i].var->kind == MLC_G_VAR) bind_name(p, blk->bindings[i].var);
  size_t mark = mlc_pt_scope(p);
  for (int i = 0; i < blk->n; i++) pr_binding(p, &blk->bindings[i]);
  mlc_pt_line_start(p);
  mlc_pt_puts(p, "R.output(");
  bool first = true;
  for (int i = 0; i < blk->n; i++) {
    const MlcGExpr *v = blk->bindings[i].var;
    if (v->kind != MLC_G_VAR) continue;
    mlc_pt_printf(p, "%s%s", first ? "" : ", ", mlc_pt_name(p, v, v->var.name));
    first = false;
  }
  mlc_pt_puts(p, ")");
  mlc_pt_line_end(p);
  mlc_pt_unscope(p, mark);
  p->indent--;
}

static void pr_blocks(MlcPrinter *p, const MlcGExpr *seq) {
  for (int i = 0; i < seq->seq.n; i++) {
    const MlcBindingBlock *blk = seq->seq.blocks[i];
    if (blk->dataflow) pr_dataflow(p, blk);
    else
      for (int j = 0; j < blk->n; j++) pr_binding(p, &blk->bindings[j]);
  }
}

/* the blocks of a sequence, then one line: result_prefix and the result */
static void pr_seq(MlcPrinter *p, const MlcGExpr *seq, const char *result_prefix) {
  pr_blocks(p, seq);
  mlc_pt_line_start(p);
  mlc_pt_puts(p, result_prefix);
  mlc_pt_gexpr(p, seq->seq.result);
  mlc_pt_line_end(p);
}

static void pr_signature(MlcPrinter *p, const MlcGFunc *f) {
  p->signature = true;
  mlc_pt_line_start(p);
  mlc_pt_printf(p, "def %s(", f->name);
  for (int i = 0; i < f->n_params; i++) {
    const MlcGExpr *v = f->params[i];
    mlc_pt_printf(p, "%s%s: ", i ? ", " : "", mlc_pt_name(p, v, v->var.name));
    mlc_pt_sinfo(p, v->sinfo);
  }
  mlc_pt_puts(p, ")");
  if (f->ret) {
    mlc_pt_puts(p, " -> ");
    mlc_pt_sinfo(p, f->ret);
  }
  mlc_pt_puts(p, ":");
  mlc_pt_line_end(p);
  p->signature = false;
}

static void note_var_use(void *user, const MlcGExpr *e) {
  if (e->kind == MLC_G_VAR || e->kind == MLC_G_DFVAR) mlc_map_put(user, e, (void *)e);
}

/* vars read anywhere in seq (a var bound inside an if branch counts too,
 * which only makes the caller more careful) */
static void note_seq_uses(const MlcGExpr *seq, MlcMap *used) {
  for (int i = 0; i < seq->seq.n; i++)
    for (int j = 0; j < seq->seq.blocks[i]->n; j++) walk_g(seq->seq.blocks[i]->bindings[j].value, note_var_use, used);
  walk_g(seq->seq.result, note_var_use, used);
}

/* Calls kept for their effect (a destination-passing call after explicit
 * allocation) bind vars named "_" that nothing reads; each prints as `_`,
 * which the reader accepts any number of times, instead of `_`, `__1`... */
static void alias_effect_vars(MlcPrinter *p, const MlcGExpr *seq, const MlcMap *used) {
  for (int i = 0; i < seq->seq.n; i++)
    for (int j = 0; j < seq->seq.blocks[i]->n; j++) {
      const MlcBinding *b = &seq->seq.blocks[i]->bindings[j];
      if (b->var->kind == MLC_G_VAR && seq->seq.blocks[i]->dataflow) continue; /* an output */
      if (strcmp(b->var->var.name, "_") == 0 && !mlc_map_has(used, b->var)) mlc_pt_alias(p, b->var, "_");
      if (b->value->kind == MLC_G_IF) {
        alias_effect_vars(p, b->value->if_.then_e, used);
        alias_effect_vars(p, b->value->if_.else_e, used);
      }
    }
}

void mlc_pt_gfunc(MlcPrinter *p, const MlcGFunc *f) {
  size_t mark = mlc_pt_scope(p);
  bool uses_cls = false;
  walk_g(f->body, note_global, &uses_cls);
  if (uses_cls) {
    mlc_pt_reserve(p, "cls");
    mlc_pt_reserve(p, p->module_name);
  }
  for (int i = 0; i < f->n_params; i++) mlc_pt_define(p, f->params[i], f->params[i]->var.name);
  SymVars sv = {{0}, {0}};
  for (int i = 0; i < f->n_params; i++) sym_sinfo(&sv, f->params[i]->sinfo);
  sym_sinfo(&sv, f->ret);
  walk_g(f->body, note_gexpr_syms, &sv);
  for (size_t i = 0; i < sv.list.len; i++) mlc_pt_define(p, sv.list.data[i], sv.list.data[i]->var.name);
  MlcMap used = {0};
  note_seq_uses(f->body, &used);
  alias_effect_vars(p, f->body, &used);
  mlc_map_free(&used);

  mlc_pt_line(p, f->pure ? "@R.function" : "@R.function(pure=False)");
  pr_signature(p, f);
  p->indent++;
  for (size_t i = 0; i < sv.list.len; i++) {
    const MlcExpr *v = sv.list.data[i];
    mlc_pt_line_start(p);
    mlc_pt_printf(p, "%s = T.", mlc_pt_name(p, v, v->var.name));
    mlc_pt_dtype(p, v->dtype);
    mlc_pt_puts(p, "()");
    mlc_pt_line_end(p);
  }
  if (f->attrs.n) {
    mlc_pt_line_start(p);
    mlc_pt_puts(p, "R.func_attr(");
    mlc_pt_attr_dict(p, f->attrs, false);
    mlc_pt_puts(p, ")");
    mlc_pt_line_end(p);
  }
  if (uses_cls) mlc_pt_line(p, "cls = %s", p->module_name);
  pr_seq(p, f->body, "return ");
  p->indent--;
  mlc_map_free(&sv.seen);
  mlc_vec_free(&sv.list);
  mlc_pt_unscope(p, mark);
}

/* ======================================================================== */
/* public entry points                                                      */
/* ======================================================================== */

void mlc_print_gfunc(const MlcGFunc *f, MlcStrBuf *out) {
  MlcPrinter p;
  mlc_pt_init(&p, out, NULL);
  mlc_pt_gfunc(&p, f);
  mlc_pt_free(&p);
}

/* an if or a sequence prints as the statements it stands for */
void mlc_print_gexpr(const MlcGExpr *e, MlcStrBuf *out) {
  MlcPrinter p;
  mlc_pt_init(&p, out, NULL);
  if (e && e->kind == MLC_G_SEQ) {
    pr_seq(&p, e, "");
  } else if (e && e->kind == MLC_G_IF && e->if_.then_e->kind == MLC_G_SEQ &&
             e->if_.else_e->kind == MLC_G_SEQ) {
    mlc_pt_line_start(&p);
    mlc_pt_puts(&p, "if ");
    mlc_pt_gexpr(&p, e->if_.cond);
    mlc_pt_puts(&p, ":");
    mlc_pt_line_end(&p);
    p.indent = 1;
    pr_seq(&p, e->if_.then_e, "");
    p.indent = 0;
    mlc_pt_line(&p, "else:");
    p.indent = 1;
    pr_seq(&p, e->if_.else_e, "");
  } else {
    mlc_pt_gexpr(&p, e);
  }
  mlc_pt_free(&p);
}

void mlc_print_sinfo(const MlcSInfo *s, MlcStrBuf *out) {
  MlcPrinter p;
  mlc_pt_init(&p, out, NULL);
  mlc_pt_sinfo(&p, s);
  mlc_pt_free(&p);
}
