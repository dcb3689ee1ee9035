/* lib.c - loading and calling compiled code through the stable C API: a
 * kernels shared object (mlcc_build_kernels) or a model folder
 * (mlcc_build_model), both over the runtime, whose messages become the
 * context's. */
#include "api/api.h"

#include <string.h>
#include <sys/stat.h>

struct MlccLib {
  MlcrtModule *mod;  /* kernels */
  MlcrtModel *model; /* or a model */
  char dtype[32];    /* the last dtype name asked for */
};

static bool rt_fail(MlccContext *c, const char *what) {
  return api_failf(c, "%s%s", what, mlcrt_last_error());
}

MlccLib *mlcc_lib_load(MlccContext *c, const char *path) {
  api_begin(c);
  if (!path) return api_failf(c, "no path"), NULL;
  struct stat st;
  if (stat(path, &st) != 0) return api_failf(c, "%s: no such file or folder", path), NULL;
  MlccLib *lib = mlc_xcalloc(1, sizeof *lib);
  int rc = S_ISDIR(st.st_mode) ? mlcrt_model_load(path, &lib->model) : mlcrt_module_load(path, &lib->mod);
  if (rc != 0) {
    free(lib);
    return rt_fail(c, ""), NULL;
  }
  return lib;
}

void mlcc_lib_free(MlccLib *lib) {
  if (!lib) return;
  if (lib->model) mlcrt_model_free(lib->model);
  if (lib->mod) mlcrt_module_free(lib->mod);
  free(lib);
}

int mlcc_lib_is_model(const MlccLib *lib) { return lib->model != NULL; }

int mlcc_lib_num_funcs(const MlccLib *lib) { return lib->model ? 1 : mlcrt_module_num_funcs(lib->mod); }

static const MlcrtFuncDesc *func_desc(const MlccLib *lib, int i) {
  if (lib->model || i < 0 || i >= mlcrt_module_num_funcs(lib->mod)) return NULL;
  return mlcrt_func_desc(mlcrt_module_func_at(lib->mod, i));
}

const char *mlcc_lib_func_name(const MlccLib *lib, int i) {
  if (lib->model) return i == 0 ? mlcrt_model_desc(lib->model)->name : NULL;
  const MlcrtFuncDesc *d = func_desc(lib, i);
  return d ? d->name : NULL;
}

int mlcc_lib_num_params(const MlccLib *lib, int i) {
  if (lib->model) {
    const MlcrtModelDesc *d = mlcrt_model_desc(lib->model);
    return i == 0 ? d->n_inputs + d->n_outputs : -1;
  }
  const MlcrtFuncDesc *d = func_desc(lib, i);
  return d ? d->n_params : -1;
}

int mlcc_lib_num_inputs(const MlccLib *lib, int i) {
  if (lib->model) return i == 0 ? mlcrt_model_desc(lib->model)->n_inputs : -1;
  return mlcc_lib_num_params(lib, i);
}

static const MlcrtParamDesc *param(const MlccLib *lib, int i, int p) {
  if (p < 0 || p >= mlcc_lib_num_params(lib, i)) return NULL;
  if (lib->model) {
    const MlcrtModelDesc *d = mlcrt_model_desc(lib->model);
    return p < d->n_inputs ? &d->inputs[p] : &d->outputs[p - d->n_inputs];
  }
  return &func_desc(lib, i)->params[p];
}

const char *mlcc_lib_param_name(const MlccLib *lib, int i, int p) {
  const MlcrtParamDesc *d = param(lib, i, p);
  return d ? d->name : NULL;
}

const char *mlcc_lib_param_dtype(MlccLib *lib, int i, int p) {
  const MlcrtParamDesc *d = param(lib, i, p);
  if (!d) return NULL;
  if (!d->is_buffer) return d->dtype.code == kDLFloat ? "float64" : "int64";
  return mlcrt_dtype_name(d->dtype, lib->dtype, sizeof lib->dtype);
}

int mlcc_lib_param_ndim(const MlccLib *lib, int i, int p) {
  const MlcrtParamDesc *d = param(lib, i, p);
  return d ? d->ndim : -1;
}

int64_t mlcc_lib_param_dim(const MlccLib *lib, int i, int p, int k) {
  const MlcrtParamDesc *d = param(lib, i, p);
  if (!d || k < 0 || k >= d->ndim || !d->dims) return -1;
  return d->dims[k] >= 0 ? d->dims[k] : -1;
}

int mlcc_lib_call(MlccContext *c, MlccLib *lib, const char *name, DLTensor *const *args, int n) {
  api_begin(c);
  if (lib->model) return api_failf(c, "a model is run, not called by function name"), 1;
  const MlcrtFunc *f = name ? mlcrt_module_get_func(lib->mod, name) : NULL;
  if (!f) return api_failf(c, "the module has no function named '%s'", name ? name : "(null)"), 1;
  return mlcrt_func_call_tensors(f, args, n) == 0 ? 0 : (rt_fail(c, ""), 1);
}

int mlcc_lib_run(MlccContext *c, MlccLib *lib, DLTensor *const *inputs, int n_in, DLTensor **outputs, int n_out) {
  api_begin(c);
  if (!lib->model) return api_failf(c, "a kernels module has no model to run"), 1;
  return mlcrt_model_run(lib->model, inputs, n_in, outputs, n_out) == 0 ? 0 : (rt_fail(c, ""), 1);
}

typedef struct TimeCall {
  MlccLib *lib;
  const MlcrtFunc *f;
  DLTensor *const *args;
  int n;
  DLTensor *outs[64];
  int n_out;
} TimeCall;

static int32_t time_one(void *closure) {
  TimeCall *t = closure;
  if (t->lib->model) return mlcrt_model_run(t->lib->model, t->args, t->n, t->outs, t->n_out);
  return mlcrt_func_call_tensors(t->f, t->args, t->n);
}

int mlcc_lib_time(MlccContext *c, MlccLib *lib, const char *name, DLTensor *const *args, int n, int number,
                  int repeat, double *mean, double *median, double *min) {
  api_begin(c);
  TimeCall t = {.lib = lib, .args = args, .n = n};
  if (lib->model) {
    t.n_out = mlcrt_model_desc(lib->model)->n_outputs;
    if (t.n_out > 64) return api_failf(c, "a model of %d outputs", t.n_out), 1;
  } else if (!(t.f = name ? mlcrt_module_get_func(lib->mod, name) : NULL)) {
    return api_failf(c, "the module has no function named '%s'", name ? name : "(null)"), 1;
  }
  MlcrtTimes times;
  if (mlcrt_time_eval(time_one, &t, number > 0 ? number : 1, repeat > 0 ? repeat : 1, 0, &times) != 0)
    return rt_fail(c, ""), 1;
  if (mean) *mean = times.mean;
  if (median) *median = times.median;
  if (min) *min = times.min;
  return 0;
}

int mlcc_register_extern(MlccContext *c, const char *name, MlcrtExternFn fn) {
  api_begin(c);
  if (!name || !*name || !fn) return api_failf(c, "an extern function needs a name and a function"), 1;
  return mlcrt_extern_register(name, fn) == 0 ? 0 : (rt_fail(c, ""), 1);
}
