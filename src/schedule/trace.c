/* trace.c - printing the trace as schedule-script lines, in the form the
 * field writes them:
 *     b0 = sch.get_block("Y")
 *     l1, l2, l3 = sch.get_loops(block=b0)
 *     l4, l5 = sch.split(loop=l1, factors=[None, 4], preserve_unit_iters=True)
 *     sch.reorder(l4, l2, l5)
 *
 * Handles are named at print time, in order of creation along the trace:
 * a letter for the kind (b block, l loop, v sampled integer) and a running
 * index.  Arguments are keywords (every one given, defaults included, so a
 * trace states all it depends on) except a variadic parameter's, which are
 * positional, and get_block's name, which is the form people write.  A
 * sampling instruction prints the decision it made as its `decision`
 * argument, which is how replaying reproduces it.  The output reads back
 * with mlc_sch_run_script (script.c). */
#include "schedule/core.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

typedef struct Names {
  int *index; /* rv id -> running index, -1 when the trace never made it */
  size_t n;
} Names;

static void name_handles(const MlcSchedule *s, Names *nm) {
  nm->n = s->rvs.len;
  nm->index = mlc_xmalloc((nm->n ? nm->n : 1) * sizeof *nm->index);
  for (size_t i = 0; i < nm->n; i++) nm->index[i] = -1;
  int next = 0;
  for (size_t k = 0; k < s->trace.len; k++) {
    const SchInst *in = &s->trace.data[k];
    for (int o = 0; o < in->n_outs; o++) {
      int id = in->outs[o].rv;
      if (id >= 0 && (size_t)id < nm->n && nm->index[id] < 0) nm->index[id] = next++;
    }
  }
}

static void print_handle(const Names *nm, MlcSchValKind kind, int id, MlcStrBuf *out) {
  char letter = kind == MLC_SV_BLOCK ? 'b' : kind == MLC_SV_LOOP ? 'l' : 'v';
  if (id >= 0 && (size_t)id < nm->n && nm->index[id] >= 0) mlc_sb_printf(out, "%c%d", letter, nm->index[id]);
  else mlc_sb_printf(out, "%c_unknown%d", letter, id); /* reads back as an unknown name: refused */
}

static void print_str(const char *s, MlcStrBuf *out) {
  mlc_sb_putc(out, '"');
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
    if (*p == '"' || *p == '\\') mlc_sb_printf(out, "\\%c", *p);
    else if (*p == '\n') mlc_sb_puts(out, "\\n");
    else if (*p == '\t') mlc_sb_puts(out, "\\t");
    else if (*p < 0x20 || *p == 0x7f) mlc_sb_printf(out, "\\x%02x", *p);
    else mlc_sb_putc(out, (char)*p);
  }
  mlc_sb_putc(out, '"');
}

/* shortest text that reads back as the same double, always with a '.' or
 * an exponent so it reads back as a float */
static void print_float(double f, MlcStrBuf *out) {
  char buf[40];
  if (!isfinite(f)) { /* no literal spells these; the reader refuses the call */
    mlc_sb_puts(out, isnan(f) ? "float(\"nan\")" : f > 0 ? "float(\"inf\")" : "-float(\"inf\")");
    return;
  }
  for (int prec = 1; prec <= 17; prec++) {
    snprintf(buf, sizeof buf, "%.*g", prec, f);
    if (strtod(buf, NULL) == f) break;
  }
  mlc_sb_puts(out, buf);
  if (!strpbrk(buf, ".e")) mlc_sb_puts(out, ".0");
}

static void print_val(const Names *nm, const MlcSchVal *v, MlcStrBuf *out) {
  switch (v->kind) {
  case MLC_SV_NONE: mlc_sb_puts(out, "None"); return;
  case MLC_SV_BLOCK:
  case MLC_SV_LOOP:
  case MLC_SV_INTRV: print_handle(nm, v->kind, v->rv, out); return;
  case MLC_SV_INT: mlc_sb_printf(out, "%lld", (long long)v->i); return;
  case MLC_SV_FLOAT: print_float(v->f, out); return;
  case MLC_SV_BOOL: mlc_sb_puts(out, v->i ? "True" : "False"); return;
  case MLC_SV_STR: print_str(v->s, out); return;
  case MLC_SV_LAMBDA: mlc_sb_puts(out, v->s); return;
  case MLC_SV_LIST:
    mlc_sb_putc(out, '[');
    for (int i = 0; i < v->list.n; i++) {
      if (i) mlc_sb_puts(out, ", ");
      print_val(nm, &v->list.items[i], out);
    }
    mlc_sb_putc(out, ']');
    return;
  }
}

static void print_outs(const Names *nm, const SchInst *in, MlcStrBuf *out) {
  for (int o = 0; o < in->n_outs; o++) {
    if (o) mlc_sb_puts(out, ", ");
    print_val(nm, &in->outs[o], out);
  }
  if (in->n_outs) mlc_sb_puts(out, " = ");
}

static void print_args(const Names *nm, const SchInst *in, MlcStrBuf *out) {
  SchParam ps[SCH_MAX_PARAMS];
  int np = sch_params(in->prim, ps);
  bool first = true;
  for (int i = 0; i < np && i < in->n_args; i++) {
    const MlcSchVal *v = &in->args[i];
    bool is_decision = ps[i].len == 8 && memcmp(ps[i].name, "decision", 8) == 0;
    if (is_decision && in->has_decision) v = &in->decision;
    if (v->kind == MLC_SV_NONE || (ps[i].variadic && v->kind == MLC_SV_LIST && v->list.n == 0)) continue;
    if (!first) mlc_sb_puts(out, ", ");
    first = false;
    if (ps[i].variadic && v->kind == MLC_SV_LIST) {
      for (int k = 0; k < v->list.n; k++) {
        if (k) mlc_sb_puts(out, ", ");
        print_val(nm, &v->list.items[k], out);
      }
      continue;
    }
    bool positional = in->prim == MLC_SCH_get_block && i == 0;
    if (!positional) mlc_sb_printf(out, "%.*s=", ps[i].len, ps[i].name);
    print_val(nm, v, out);
  }
}

void mlc_sch_print_trace(const MlcSchedule *s, MlcStrBuf *out) {
  Names nm;
  name_handles(s, &nm);
  for (size_t k = 0; k < s->trace.len; k++) {
    const SchInst *in = &s->trace.data[k];
    print_outs(&nm, in, out);
    mlc_sb_printf(out, "sch.%s(", mlc_sch_prim_names[in->prim]);
    print_args(&nm, in, out);
    mlc_sb_puts(out, ")\n");
  }
  free(nm.index);
}
