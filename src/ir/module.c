/* module.c - the IRModule: named functions of both levels, in source order. */
#include "mlcc/ir.h"

#include <string.h>

MlcModule *mlc_module_new(MlcCtx *ctx, const char *name, MlcFunc *funcs, int n, MlcAttrs attrs) {
  MlcMap names = {0}; /* a map, not a scan per function: modules may hold thousands */
  for (int i = 0; i < n; i++) {
    const char *dup = NULL;
    if (funcs[i].prim && !(dup = mlc_map_get(&names, funcs[i].name))) mlc_map_put(&names, funcs[i].name, (void *)funcs[i].name);
    if (!funcs[i].prim || dup) {
      mlc_map_free(&names);
      /* a failed function (NULL) has its error recorded already */
      return funcs[i].prim ? (mlc_error(ctx, (MlcLoc){0}, "the module defines function '%s' twice", dup), NULL) : NULL;
    }
  }
  mlc_map_free(&names);
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
