/* module.c - the IRModule: named functions of both levels, in source order. */
#include "mlcc/ir.h"

#include <string.h>

MlcModule *mlc_module_new(MlcCtx *ctx, const char *name, MlcFunc *funcs, int n, MlcAttrs attrs) {
  for (int i = 0; i < n; i++) {
    if (!funcs[i].prim) return NULL; /* a failed function: its error is recorded */
    for (int j = 0; j < i; j++)
      if (funcs[j].name == funcs[i].name)
        return mlc_error(ctx, (MlcLoc){0}, "the module defines function '%s' twice", funcs[i].name), NULL;
  }
  MlcModule *m = mlc_arena_alloc(&ctx->arena, sizeof *m);
  m->name = mlc_intern(ctx, name && *name ? name : "Module");
  m->funcs = n ? mlc_arena_dup(&ctx->arena, funcs, (size_t)n * sizeof *funcs) : NULL;
  m->n_funcs = n;
  m->attrs = attrs;
  return m;
}

const MlcFunc *mlc_module_find(const MlcModule *m, const char *name) {
  for (int i = 0; i < m->n_funcs; i++)
    if (m->funcs[i].name == name) return &m->funcs[i];
  return NULL;
}

const char *mlc_kernel_op_name(MlcCtx *ctx, const char *name) {
  size_t n = strlen(name);
  while (n > 1 && name[n - 1] >= '0' && name[n - 1] <= '9') n--;
  return mlc_intern_n(ctx, name, n);
}
