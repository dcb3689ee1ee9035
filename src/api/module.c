/* module.c - modules through the stable C API: reading, printing,
 * structural equality and hash, listing and combining functions. */
#include "api/api.h"
#include "mlcc/text.h"

#include <string.h>

/* the most text read at once, as the command line reads it */
#define API_MAX_TEXT ((size_t)1 << 30)

MlccModule *mlcc_module_parse(MlccContext *c, const char *name, const char *text, size_t len) {
  api_begin(c);
  if (!text) return api_failf(c, "no text to read"), NULL;
  MlcModule *m = mlc_read_module(c->ctx, name ? name : "<text>", text, len);
  if (!m) return api_fail(c), NULL;
  return (MlccModule *)m;
}

MlccModule *mlcc_module_load(MlccContext *c, const char *path) {
  api_begin(c);
  if (!path) return api_failf(c, "no path"), NULL;
  size_t len = 0;
  char *text = mlc_read_file(c->ctx, path, API_MAX_TEXT, &len);
  if (!text) return api_fail(c), NULL;
  MlcModule *m = mlc_read_module(c->ctx, path, text, len);
  free(text);
  if (!m) return api_fail(c), NULL;
  return (MlccModule *)m;
}

char *mlcc_module_print(MlccContext *c, const MlccModule *m) {
  api_begin(c);
  MlcStrBuf sb = {0};
  mlc_print_module(API_MOD(m), &sb);
  return api_take(&sb);
}

static const MlcFunc *find_func(MlccContext *c, const MlcModule *m, const char *func) {
  if (!func) return NULL;
  return mlc_module_find(m, mlc_intern(c->ctx, func));
}

char *mlcc_module_func_script(MlccContext *c, const MlccModule *m, const char *func) {
  api_begin(c);
  const MlcFunc *f = find_func(c, API_MOD(m), func);
  if (!f) return api_failf(c, "the module has no function named '%s'", func ? func : "(null)"), NULL;
  MlcStrBuf sb = {0};
  if (f->kind == MLC_FUNC_PRIM) mlc_print_prim_func(f->prim, &sb);
  else mlc_print_gfunc(f->graph, &sb);
  return api_take(&sb);
}

int mlcc_module_equal(const MlccModule *a, const MlccModule *b) {
  return mlc_module_equal(API_MOD(a), API_MOD(b)) ? 1 : 0;
}

char *mlcc_module_diff(MlccContext *c, const MlccModule *a, const MlccModule *b) {
  api_begin(c);
  MlcDiff d = {0};
  if (mlc_module_equal_diff(API_MOD(a), API_MOD(b), &d)) {
    mlc_diff_free(&d);
    return NULL;
  }
  MlcStrBuf sb = {0};
  mlc_sb_printf(&sb, "in %s: %s: ", d.func ? d.func : "the module", mlc_sb_cstr(&d.path));
  mlc_print_diff_side(&d, false, &sb);
  mlc_sb_puts(&sb, " vs ");
  mlc_print_diff_side(&d, true, &sb);
  mlc_diff_free(&d);
  return api_take(&sb);
}

uint64_t mlcc_module_hash(const MlccModule *m) { return mlc_module_hash(API_MOD(m)); }

int mlcc_module_num_funcs(const MlccModule *m) { return API_MOD(m)->n_funcs; }

const char *mlcc_module_func_name(const MlccModule *m, int i) {
  const MlcModule *mod = API_MOD(m);
  return i >= 0 && i < mod->n_funcs ? mod->funcs[i].name : NULL;
}

int mlcc_module_func_is_graph(const MlccModule *m, int i) {
  const MlcModule *mod = API_MOD(m);
  if (i < 0 || i >= mod->n_funcs) return -1;
  return mod->funcs[i].kind == MLC_FUNC_GRAPH;
}

MlccModule *mlcc_module_update(MlccContext *c, const MlccModule *base, const MlccModule *add) {
  api_begin(c);
  const MlcModule *b = API_MOD(base), *a = API_MOD(add);
  MlcFunc *fs = mlc_arena_array(&c->ctx->arena, (size_t)(b->n_funcs + a->n_funcs + 1), sizeof *fs);
  int n = 0;
  for (int i = 0; i < b->n_funcs; i++) {
    fs[n] = b->funcs[i];
    for (int k = 0; k < a->n_funcs; k++)
      if (a->funcs[k].name == b->funcs[i].name) fs[n] = a->funcs[k];
    n++;
  }
  for (int k = 0; k < a->n_funcs; k++) {
    if (!mlc_module_find(b, a->funcs[k].name)) fs[n++] = a->funcs[k];
  }
  MlcModule *m = mlc_module_new(c->ctx, b->name, fs, n, b->attrs);
  if (!m) return api_fail(c), NULL;
  return (MlccModule *)m;
}

MlccModule *mlcc_module_remove(MlccContext *c, const MlccModule *mm, const char *func) {
  api_begin(c);
  const MlcModule *m = API_MOD(mm);
  const MlcFunc *f = find_func(c, m, func);
  if (!f) return api_failf(c, "the module has no function named '%s'", func ? func : "(null)"), NULL;
  MlcFunc *fs = mlc_arena_array(&c->ctx->arena, (size_t)m->n_funcs + 1, sizeof *fs);
  int n = 0;
  for (int i = 0; i < m->n_funcs; i++)
    if (&m->funcs[i] != f) fs[n++] = m->funcs[i];
  MlcModule *out = mlc_module_new(c->ctx, m->name, fs, n, m->attrs);
  if (!out) return api_fail(c), NULL;
  return (MlccModule *)out;
}

/* attrs with global_symbol (when there) set to name */
static MlcAttrs renamed_symbol(MlcCtx *ctx, MlcAttrs attrs, const char *name) {
  const char *key = mlc_intern(ctx, "global_symbol");
  MlcAttr *items = mlc_arena_array(&ctx->arena, (size_t)(attrs.n ? attrs.n : 1), sizeof *items);
  for (int i = 0; i < attrs.n; i++) {
    items[i] = attrs.items[i];
    if (items[i].key == key && items[i].val.kind == MLC_ATTR_STR) items[i].val.s = name;
  }
  return (MlcAttrs){items, attrs.n};
}

MlccModule *mlcc_module_rename(MlccContext *c, const MlccModule *mm, const char *from, const char *to) {
  api_begin(c);
  const MlcModule *m = API_MOD(mm);
  const MlcFunc *f = find_func(c, m, from);
  if (!f) return api_failf(c, "the module has no function named '%s'", from ? from : "(null)"), NULL;
  if (!to || !*to) return api_failf(c, "rename: no new name"), NULL;
  const char *name = mlc_intern(c->ctx, to);
  if (name != f->name && mlc_module_find(m, name))
    return api_failf(c, "rename: the module already has a function named '%s'", to), NULL;
  MlcArena *a = &c->ctx->arena;
  MlcFunc *fs = mlc_arena_dup(a, m->funcs, (size_t)m->n_funcs * sizeof *fs);
  MlcFunc *g = &fs[f - m->funcs];
  g->name = name;
  if (g->kind == MLC_FUNC_PRIM) {
    MlcPrimFunc *p = mlc_arena_dup(a, g->prim, sizeof *p);
    p->name = name;
    p->attrs = renamed_symbol(c->ctx, p->attrs, name);
    g->prim = p;
  } else {
    MlcGFunc *gf = mlc_arena_dup(a, g->graph, sizeof *gf);
    gf->name = name;
    g->graph = gf;
  }
  MlcModule *out = mlc_module_new(c->ctx, m->name, fs, m->n_funcs, m->attrs);
  if (!out) return api_fail(c), NULL;
  return (MlccModule *)out;
}
