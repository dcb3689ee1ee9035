/* module.c - loading compiled modules and checking their descriptors.
 *
 * A module is a shared object exporting one data symbol, `mlcrt_module`; it
 * is opened with RTLD_LOCAL so two modules may use the same internal names.
 * The descriptor is checked once here, completely, so that a call only has
 * to check its arguments and can trust every count and index it reads. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt.h"

/* generous bounds: a descriptor beyond them is corrupt, not just large */
#define MAX_FUNCS (1 << 20)
#define MAX_PARAMS 4096
#define MAX_SYMS 4096
#define MAX_ALIGN 4096

static bool is_pow2(int64_t x) { return x > 0 && (x & (x - 1)) == 0; }

static bool same_dtype(DLDataType a, DLDataType b) {
  return a.code == b.code && a.bits == b.bits && a.lanes == b.lanes;
}

static int check_scalar(const MlcrtFuncDesc *f, int32_t i, const MlcrtParamDesc *p) {
  if (!same_dtype(p->dtype, mlcrt_dtype(kDLInt, 64)) && !same_dtype(p->dtype, mlcrt_dtype(kDLFloat, 64)))
    return mlcrt_set_error("module: function '%s': scalar parameter '%s' (#%d) must be int64 or float64",
                           f->name, p->name, i + 1);
  if (p->ndim != 0)
    return mlcrt_set_error("module: function '%s': scalar parameter '%s' (#%d) has rank %d",
                           f->name, p->name, i + 1, p->ndim);
  return 0;
}

static int check_buffer(const MlcrtFuncDesc *f, int32_t i, const MlcrtParamDesc *p, bool *bound) {
  char name[64];
  if (mlcrt_dtype_bytes(p->dtype) == 0)
    return mlcrt_set_error("module: function '%s': parameter '%s' (#%d) has unsupported dtype %s",
                           f->name, p->name, i + 1, mlcrt_dtype_name(p->dtype, name, sizeof name));
  if (p->ndim < 0 || p->ndim > MLCRT_MAX_NDIM || (p->ndim > 0 && !p->dims))
    return mlcrt_set_error("module: function '%s': parameter '%s' (#%d) has a bad rank or no dims",
                           f->name, p->name, i + 1);
  for (int32_t k = 0; k < p->ndim; k++) {
    int64_t d = p->dims[k];
    if (d >= 0) continue;
    if (-(d + 1) >= f->n_syms)
      return mlcrt_set_error("module: function '%s': parameter '%s' (#%d) dim %d names symbolic size "
                             "%lld of %d", f->name, p->name, i + 1, k, (long long)-(d + 1), f->n_syms);
    bound[-(d + 1)] = true;
  }
  if (p->align != 0 && (!is_pow2(p->align) || p->align > MAX_ALIGN))
    return mlcrt_set_error("module: function '%s': parameter '%s' (#%d) alignment %d is not a power "
                           "of two up to %d", f->name, p->name, i + 1, p->align, MAX_ALIGN);
  return 0;
}

static int check_params(const MlcrtFuncDesc *f) {
  bool *bound = calloc((size_t)f->n_syms + 1, sizeof *bound);
  int rc = 0;
  if (!bound) return mlcrt_set_error("module: out of memory");
  for (int32_t i = 0; i < f->n_params && rc == 0; i++) {
    const MlcrtParamDesc *p = &f->params[i];
    if (!p->name || (p->is_buffer != 0 && p->is_buffer != 1))
      rc = mlcrt_set_error("module: function '%s': parameter #%d has no name or a bad kind", f->name, i + 1);
    else
      rc = p->is_buffer ? check_buffer(f, i, p, bound) : check_scalar(f, i, p);
  }
  for (int32_t s = 0; s < f->n_syms && rc == 0; s++) {
    if (!f->sym_names[s])
      rc = mlcrt_set_error("module: function '%s': symbolic size %d has no name", f->name, s);
    else if (!bound[s])
      rc = mlcrt_set_error("module: function '%s': symbolic size '%s' is in no buffer's shape",
                           f->name, f->sym_names[s]);
  }
  free(bound);
  return rc;
}

static int check_func(const MlcrtModuleDesc *m, int32_t i) {
  const MlcrtFuncDesc *f = &m->funcs[i];
  if (!f->name || !f->name[0]) return mlcrt_set_error("module: function #%d has no name", i + 1);
  for (int32_t j = 0; j < i; j++)
    if (strcmp(m->funcs[j].name, f->name) == 0)
      return mlcrt_set_error("module: function '%s' is defined twice", f->name);
  if (!f->fn) return mlcrt_set_error("module: function '%s' has no code", f->name);
  if (f->n_params < 0 || f->n_params > MAX_PARAMS || (f->n_params > 0 && !f->params))
    return mlcrt_set_error("module: function '%s' has a bad parameter list (%d)", f->name, f->n_params);
  if (f->n_syms < 0 || f->n_syms > MAX_SYMS || (f->n_syms > 0 && !f->sym_names))
    return mlcrt_set_error("module: function '%s' has a bad symbolic size list (%d)", f->name, f->n_syms);
  return check_params(f);
}

static int check_desc(const MlcrtModuleDesc *m) {
  if (!m) return mlcrt_set_error("module: descriptor is NULL");
  if (m->abi_version != MLCRT_ABI_VERSION)
    return mlcrt_set_error("module: ABI version %u, this runtime implements %u", m->abi_version,
                           MLCRT_ABI_VERSION);
  if (m->n_funcs < 0 || m->n_funcs > MAX_FUNCS || (m->n_funcs > 0 && !m->funcs))
    return mlcrt_set_error("module: bad function count %d", m->n_funcs);
  for (int32_t i = 0; i < m->n_funcs; i++)
    if (check_func(m, i)) return -1;
  return 0;
}

static int module_new(const MlcrtModuleDesc *desc, void *dl, MlcrtModule **out) {
  MlcrtModule *mod = calloc(1, sizeof *mod);
  MlcrtFunc *funcs = calloc((size_t)desc->n_funcs + 1, sizeof *funcs);
  if (!mod || !funcs) {
    free(mod);
    free(funcs);
    return mlcrt_set_error("module: out of memory");
  }
  for (int32_t i = 0; i < desc->n_funcs; i++) funcs[i].desc = &desc->funcs[i];
  mod->dl = dl;
  mod->desc = desc;
  mod->funcs = funcs;
  mod->n_funcs = desc->n_funcs;
  *out = mod;
  return 0;
}

int mlcrt_module_from_desc(const MlcrtModuleDesc *desc, MlcrtModule **out) {
  *out = NULL;
  if (check_desc(desc)) return -1;
  return module_new(desc, NULL, out);
}

int mlcrt_module_load(const char *path, MlcrtModule **out) {
  *out = NULL;
  if (!path) return mlcrt_set_error("module_load: path is NULL");
  /* a path, never a library name: without a slash dlopen would search the
   * library path instead of the current directory */
  char local[4096];
  const char *file = path;
  if (!strchr(path, '/')) {
    if (snprintf(local, sizeof local, "./%s", path) >= (int)sizeof local)
      return mlcrt_set_error("cannot load module '%s': path too long", path);
    file = local;
  }
  void *dl = dlopen(file, RTLD_NOW | RTLD_LOCAL);
  if (!dl) {
    const char *why = dlerror();
    return mlcrt_set_error("cannot load module '%s': %s", path, why ? why : "unknown reason");
  }
  const MlcrtModuleDesc *desc = dlsym(dl, MLCRT_MODULE_SYMBOL);
  if (!desc) {
    dlclose(dl);
    return mlcrt_set_error("'%s' exports no '%s' (not an mlcc module)", path, MLCRT_MODULE_SYMBOL);
  }
  if (check_desc(desc) || module_new(desc, dl, out)) {
    mlcrt__prefix_error(path);
    dlclose(dl);
    return -1;
  }
  return 0;
}

const MlcrtFunc *mlcrt_module_get_func(const MlcrtModule *mod, const char *name) {
  if (!mod || !name) {
    mlcrt_set_error("module_get_func: module or name is NULL");
    return NULL;
  }
  for (int32_t i = 0; i < mod->n_funcs; i++)
    if (strcmp(mod->funcs[i].desc->name, name) == 0) return &mod->funcs[i];
  mlcrt_set_error("module has no function '%s'", name);
  return NULL;
}

int32_t mlcrt_module_num_funcs(const MlcrtModule *mod) { return mod ? mod->n_funcs : 0; }

const MlcrtFunc *mlcrt_module_func_at(const MlcrtModule *mod, int32_t i) {
  if (!mod || i < 0 || i >= mod->n_funcs) {
    mlcrt_set_error("module_func_at: no function #%d", i);
    return NULL;
  }
  return &mod->funcs[i];
}

const MlcrtFuncDesc *mlcrt_func_desc(const MlcrtFunc *f) { return f ? f->desc : NULL; }

void mlcrt_module_free(MlcrtModule *mod) {
  if (!mod) return;
  if (mod->dl) dlclose(mod->dl);
  free(mod->funcs);
  free(mod);
}
