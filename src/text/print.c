/* print.c - the TVMScript printer's common part and the module printer.
 *
 * Everything here is shared by both levels: writing indented lines, giving
 * vars and buffers names that read back to the same structure, spelling
 * literals (strings, dtypes, floats that round-trip exactly) and attribute
 * values.  The canonical form itself is specified in docs/tvmscript.md; the
 * two level-specific files follow it construct by construct.
 *
 * The name table is the printer's own (a small string hash set with a live
 * count per name) because the printer gets no context to intern into and
 * must not change the module it prints. */
#include "text/print_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Words a name must never take: Python keywords, the dialect prefixes and
 * the builtins the canonical text itself uses. */
static const char *const reserved_words[] = {
    "False", "None",   "True",    "and",     "as",       "assert", "async", "await",
    "break", "class",  "continue", "def",    "del",      "elif",   "else",  "except",
    "finally", "for",  "from",    "global",  "if",       "import", "in",    "is",
    "lambda", "nonlocal", "not",  "or",      "pass",     "raise",  "return", "try",
    "while", "with",   "yield",   "T",       "R",        "I",      "range", "float",
};

void mlc_pt_init(MlcPrinter *p, MlcStrBuf *out, const char *module_name) {
  memset(p, 0, sizeof *p);
  p->out = out;
  p->module_name = module_name && *module_name ? module_name : "Module";
  p->bare_int_bits = 32;
  for (size_t i = 0; i < sizeof reserved_words / sizeof *reserved_words; i++)
    mlc_pt_reserve(p, reserved_words[i]);
}

void mlc_pt_free(MlcPrinter *p) {
  for (size_t i = 0; i < p->table_cap; i++)
    if (p->table[i]) {
      free(p->table[i]->text);
      free(p->table[i]);
    }
  free(p->table);
  mlc_map_free(&p->current);
  mlc_map_free(&p->loops);
  mlc_vec_free(&p->defs);
}

/* ---- output ---------------------------------------------------------------- */

void mlc_pt_puts(MlcPrinter *p, const char *s) { mlc_sb_puts(p->out, s); }

void mlc_pt_printf(MlcPrinter *p, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  mlc_sb_vprintf(p->out, fmt, ap);
  va_end(ap);
}

void mlc_pt_line_start(MlcPrinter *p) {
  for (int i = 0; i < p->indent; i++) mlc_sb_puts(p->out, "    ");
}

void mlc_pt_line_end(MlcPrinter *p) { mlc_sb_putc(p->out, '\n'); }

void mlc_pt_line(MlcPrinter *p, const char *fmt, ...) {
  mlc_pt_line_start(p);
  va_list ap;
  va_start(ap, fmt);
  mlc_sb_vprintf(p->out, fmt, ap);
  va_end(ap);
  mlc_pt_line_end(p);
}

/* ---- names ----------------------------------------------------------------- */

static void table_grow(MlcPrinter *p) {
  size_t cap = p->table_cap ? p->table_cap * 2 : 64;
  MlcPtName **t = mlc_xcalloc(cap, sizeof *t);
  for (size_t i = 0; i < p->table_cap; i++) {
    MlcPtName *n = p->table[i];
    if (!n) continue;
    size_t s = (size_t)mlc_hash_bytes(n->text, strlen(n->text), 0) & (cap - 1);
    while (t[s]) s = (s + 1) & (cap - 1);
    t[s] = n;
  }
  free(p->table);
  p->table = t;
  p->table_cap = cap;
}

/* the table's entry for text, made on first use */
static MlcPtName *name_entry(MlcPrinter *p, const char *text) {
  if ((p->table_len + 1) * 2 > p->table_cap) table_grow(p);
  size_t mask = p->table_cap - 1;
  size_t s = (size_t)mlc_hash_bytes(text, strlen(text), 0) & mask;
  for (; p->table[s]; s = (s + 1) & mask)
    if (strcmp(p->table[s]->text, text) == 0) return p->table[s];
  MlcPtName *n = mlc_xcalloc(1, sizeof *n);
  n->text = mlc_xstrdup(text);
  n->next_suffix = 1;
  p->table[s] = n;
  p->table_len++;
  return n;
}

static bool is_ident_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* A hint made into a Python identifier: names from imported models may hold
 * any character, and the text must parse. */
static MlcPtName *clean_hint(MlcPrinter *p, const char *hint) {
  if (!hint || !*hint) hint = "v";
  MlcStrBuf sb = {0};
  if (hint[0] >= '0' && hint[0] <= '9') mlc_sb_putc(&sb, 'v');
  for (const char *s = hint; *s; s++) mlc_sb_putc(&sb, is_ident_char(*s) ? *s : '_');
  MlcPtName *n = name_entry(p, sb.data);
  mlc_vec_free(&sb);
  return n;
}

static void push_def(MlcPrinter *p, const void *node, MlcPtName *name, MlcPtName *base, int suffix) {
  MlcPtDef d = {node, node ? mlc_map_get(&p->current, node) : NULL, name, base, suffix};
  name->live++;
  mlc_vec_push(&p->defs, d);
  if (node) mlc_map_put(&p->current, node, (void *)name->text);
}

const char *mlc_pt_define(MlcPrinter *p, const void *node, const char *hint) {
  MlcPtName *base = clean_hint(p, hint);
  if (base->live == 0) {
    push_def(p, node, base, base, 0);
    return base->text;
  }
  MlcStrBuf sb = {0};
  MlcPtName *chosen = NULL;
  int k = base->next_suffix;
  for (;; k++) {
    sb.len = 0;
    mlc_sb_printf(&sb, "%s_%d", base->text, k);
    chosen = name_entry(p, sb.data);
    if (chosen->live == 0) break;
  }
  mlc_vec_free(&sb);
  base->next_suffix = k + 1;
  push_def(p, node, chosen, base, k);
  return chosen->text;
}

const char *mlc_pt_name(MlcPrinter *p, const void *node, const char *hint) {
  const char *n = mlc_map_get(&p->current, node);
  return n ? n : clean_hint(p, hint)->text;
}

void mlc_pt_alias(MlcPrinter *p, const void *node, const char *name) {
  MlcPtName *n = name_entry(p, name);
  push_def(p, node, n, n, 0);
}

bool mlc_pt_is_defined(const MlcPrinter *p, const void *node) {
  return mlc_map_get(&p->current, node) != NULL;
}

void mlc_pt_reserve(MlcPrinter *p, const char *word) {
  MlcPtName *n = name_entry(p, word);
  push_def(p, NULL, n, n, 0);
}

size_t mlc_pt_scope(const MlcPrinter *p) { return p->defs.len; }

void mlc_pt_unscope(MlcPrinter *p, size_t mark) {
  while (p->defs.len > mark) {
    MlcPtDef *d = &p->defs.data[--p->defs.len];
    d->name->live--;
    if (d->suffix && d->base->next_suffix > d->suffix) d->base->next_suffix = d->suffix;
    if (d->node) mlc_map_put(&p->current, d->node, (void *)d->prev);
  }
}

/* ---- literals -------------------------------------------------------------- */

void mlc_pt_str(MlcPrinter *p, const char *s) {
  mlc_sb_putc(p->out, '"');
  for (; s && *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\') mlc_pt_printf(p, "\\%c", c);
    else if (c == '\n') mlc_pt_puts(p, "\\n");
    else if (c == '\t') mlc_pt_puts(p, "\\t");
    else if (c < 0x20 || c == 0x7f) mlc_pt_printf(p, "\\x%02x", c);
    else mlc_sb_putc(p->out, (char)c);
  }
  mlc_sb_putc(p->out, '"');
}

void mlc_pt_dtype(MlcPrinter *p, MlcDType t) {
  char buf[32];
  mlc_pt_puts(p, mlc_dtype_str(t, buf));
}

void mlc_pt_dtype_str(MlcPrinter *p, MlcDType t) {
  char buf[32];
  mlc_pt_str(p, mlc_dtype_str(t, buf));
}

/* The shortest digits that read back to the same value (tried from one digit
 * up), laid out as Python's repr does: fixed notation for exponents in
 * [-4, 16), scientific otherwise, and always a '.' or an exponent so the
 * text stays a float literal (`100.0`, `0.5`, `1e-05`, `1e+20`). */
void mlc_pt_float_text(char buf[48], double v, bool single) {
  int max_prec = single ? 9 : 17, prec = 1;
  for (;; prec++) {
    snprintf(buf, 48, "%.*e", prec - 1, v);
    double back = strtod(buf, NULL);
    bool same = single ? (float)back == (float)v : back == v;
    if (same || prec == max_prec) break;
  }
  int exp10 = atoi(strchr(buf, 'e') + 1);
  if (exp10 >= -4 && exp10 < 16) {
    int decimals = prec - 1 - exp10;
    snprintf(buf, 48, "%.*f", decimals > 0 ? decimals : 0, v);
  }
  if (!strpbrk(buf, ".e")) strcat(buf, ".0");
}

void mlc_pt_py_float(MlcPrinter *p, double v, bool single) {
  if (isnan(v)) {
    mlc_pt_puts(p, "float(\"nan\")");
  } else if (isinf(v)) {
    mlc_pt_puts(p, v > 0 ? "float(\"inf\")" : "float(\"-inf\")");
  } else {
    char buf[48];
    mlc_pt_float_text(buf, v, single);
    mlc_pt_puts(p, buf);
  }
}

/* ---- attribute values ---------------------------------------------------- */

void mlc_pt_attr_value(MlcPrinter *p, const MlcAttrValue *v, bool typed_bools) {
  switch ((MlcAttrKind)v->kind) {
  case MLC_ATTR_NONE: mlc_pt_puts(p, "None"); break;
  case MLC_ATTR_BOOL:
    if (typed_bools) mlc_pt_puts(p, v->b ? "T.bool(True)" : "T.bool(False)");
    else mlc_pt_puts(p, v->b ? "True" : "False");
    break;
  case MLC_ATTR_INT: mlc_pt_printf(p, "%lld", (long long)v->i); break;
  case MLC_ATTR_FLOAT: mlc_pt_py_float(p, v->f, false); break;
  case MLC_ATTR_STR: mlc_pt_str(p, v->s); break;
  case MLC_ATTR_LIST:
    mlc_pt_puts(p, "[");
    for (int i = 0; i < v->list.n; i++) {
      if (i) mlc_pt_puts(p, ", ");
      mlc_pt_attr_value(p, &v->list.items[i], typed_bools);
    }
    mlc_pt_puts(p, "]");
    break;
  case MLC_ATTR_EXPR: mlc_pt_expr(p, v->expr); break;
  case MLC_ATTR_DTYPE: mlc_pt_dtype_str(p, v->dtype); break;
  }
}

void mlc_pt_attr_dict(MlcPrinter *p, MlcAttrs attrs, bool typed_bools) {
  mlc_pt_puts(p, "{");
  for (int i = 0; i < attrs.n; i++) {
    if (i) mlc_pt_puts(p, ", ");
    mlc_pt_str(p, attrs.items[i].key);
    mlc_pt_puts(p, ": ");
    mlc_pt_attr_value(p, &attrs.items[i].val, typed_bools);
  }
  mlc_pt_puts(p, "}");
}

/* ---- the module ------------------------------------------------------------ */

static void print_func(MlcPrinter *p, const MlcFunc *f) {
  if (f->kind == MLC_FUNC_PRIM) mlc_pt_prim_func(p, f->prim);
  else mlc_pt_gfunc(p, f->graph);
}

void mlc_print_module(const MlcModule *m, MlcStrBuf *out) {
  MlcPrinter p;
  mlc_pt_init(&p, out, m->name);
  mlc_pt_line(&p, "from tvm.script import ir as I");
  mlc_pt_line(&p, "from tvm.script import tir as T");
  mlc_pt_line(&p, "from tvm.script import relax as R");
  mlc_pt_line_end(&p);
  mlc_pt_line(&p, "@I.ir_module");
  mlc_pt_line(&p, "class %s:", p.module_name);
  p.indent = 1;
  if (m->attrs.n) {
    mlc_pt_line_start(&p);
    mlc_pt_puts(&p, "I.module_attrs(");
    mlc_pt_attr_dict(&p, m->attrs, false);
    mlc_pt_puts(&p, ")");
    mlc_pt_line_end(&p);
  }
  for (int i = 0; i < m->n_funcs; i++) {
    if (i || m->attrs.n) mlc_pt_line_end(&p);
    print_func(&p, &m->funcs[i]);
  }
  if (!m->n_funcs && !m->attrs.n) mlc_pt_line(&p, "pass");
  mlc_pt_free(&p);
}

/* ---- one side of a diff ---------------------------------------------------- */

/* the first line of a multi-line print, for a one-line message */
static void put_first_line(MlcStrBuf *out, MlcStrBuf *text) {
  const char *s = mlc_sb_cstr(text);
  size_t n = strcspn(s, "\n");
  for (size_t i = 0; i < n; i++) mlc_sb_putc(out, s[i]);
}

void mlc_print_diff_side(const MlcDiff *d, bool right, MlcStrBuf *out) {
  const void *node = right ? d->b : d->a;
  MlcStrBuf tmp = {0};
  switch (d->kind) {
  case MLC_DIFF_NONE: break;
  case MLC_DIFF_TEXT: {
    MlcStrBuf text = right ? d->b_text : d->a_text;
    mlc_sb_puts(&tmp, mlc_sb_cstr(&text));
    break;
  }
  case MLC_DIFF_EXPR:
    if (node) mlc_print_expr(node, &tmp);
    break;
  case MLC_DIFF_STMT:
    if (node) mlc_print_stmt(node, &tmp);
    break;
  case MLC_DIFF_GEXPR:
    if (node) mlc_print_gexpr(node, &tmp);
    break;
  case MLC_DIFF_SINFO:
    if (node) mlc_print_sinfo(node, &tmp);
    break;
  }
  if (d->kind != MLC_DIFF_NONE && d->kind != MLC_DIFF_TEXT && !node) mlc_sb_puts(&tmp, "(none)");
  put_first_line(out, &tmp);
  mlc_vec_free(&tmp);
}
