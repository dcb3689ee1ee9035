/* cmd_run.c - `mlcc run LIB.so --func F`: load a compiled module with the
 * runtime alone and call one of its functions on .npy inputs.  A directory
 * instead of LIB.so is a compiled model: cmd_run_model.c runs it.
 *
 * Arguments bind in parameter order: each --in file is the next buffer
 * parameter; the remaining buffers are made with the shapes the descriptor
 * and the bound sizes give and filled by --fill (zeros by default); each
 * --out file receives the next of those remaining buffers.  --time runs the
 * function repeatedly through the runtime's time evaluator. */
#include "cli.h"
#include "mlcc/runtime.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

enum { MAX_ARGS = 64 };

static int rt_fail(const char *what) {
  fprintf(stderr, "mlcc: run: %s%s%s\n", what, *mlcrt_last_error() ? ": " : "", mlcrt_last_error());
  return EXIT_ERR;
}

typedef struct TimeCall { const MlcrtFunc *f; MlcrtValue *args; int n; } TimeCall;

static int32_t timed(void *closure) {
  TimeCall *c = closure;
  return mlcrt_func_call(c->f, c->args, c->n);
}

/* the first argument that is no option's value names what to run; a
 * directory is a model */
static bool runs_model(int argc, char **argv) {
  for (int i = 0; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "--func") || !strcmp(a, "--in") || !strcmp(a, "--out") || !strcmp(a, "--fill") ||
        !strcmp(a, "--threads") || !strcmp(a, "--profile-json"))
      i++;
    else if (a[0] != '-') {
      struct stat st;
      return stat(a, &st) == 0 && S_ISDIR(st.st_mode);
    }
  }
  return false;
}

int cmd_run(int argc, char **argv) {
  if (runs_model(argc, argv)) return cmd_run_model(argc, argv);
  const char *lib = NULL, *fname = NULL, *ins[MAX_ARGS], *outs[MAX_ARGS];
  int n_in = 0, n_out = 0;
  bool time = false;
  CliFill fill = FILL_ZEROS;
  for (int i = 0; i < argc; i++) {
    const char *a = argv[i];
    bool has_next = i + 1 < argc;
    if (!strcmp(a, "--func") && has_next) fname = argv[++i];
    else if (!strcmp(a, "--in") && has_next && n_in < MAX_ARGS) ins[n_in++] = argv[++i];
    else if (!strcmp(a, "--out") && has_next && n_out < MAX_ARGS) outs[n_out++] = argv[++i];
    else if (!strcmp(a, "--time")) time = true;
    else if (!strcmp(a, "--fill") && has_next) {
      const char *f = argv[++i];
      if (!strcmp(f, "zeros")) fill = FILL_ZEROS;
      else if (!strcmp(f, "ones")) fill = FILL_ONES;
      else if (!strcmp(f, "random")) fill = FILL_RANDOM;
      else return cli_bad_usage("run: --fill takes zeros, ones or random", f);
    } else if (!lib && a[0] != '-') lib = a;
    else return cli_bad_usage("run: unexpected argument", a);
  }
  if (!lib) return cli_bad_usage("run: missing the compiled module (LIB.so)", NULL);

  MlcrtModule *mod = NULL;
  if (mlcrt_module_load(lib, &mod) != 0) return rt_fail("cannot load the module");
  const MlcrtFunc *f = NULL;
  if (fname) f = mlcrt_module_get_func(mod, fname);
  else if (mlcrt_module_num_funcs(mod) == 1) f = mlcrt_module_func_at(mod, 0);
  else {
    mlcrt_module_free(mod);
    return cli_bad_usage("run: the module has several functions; name one with --func", NULL);
  }
  if (!f) {
    mlcrt_module_free(mod);
    return rt_fail("no such function");
  }
  const MlcrtFuncDesc *d = mlcrt_func_desc(f);
  int np = d->n_params, rc = EXIT_YES;
  MlcrtTensor *tensors[MAX_ARGS] = {0};
  MlcrtValue args[MAX_ARGS];
  int64_t syms[MAX_ARGS];
  bool bound[MAX_ARGS] = {0};
  uint64_t seed = 0x9e3779b97f4a7c15ull;
  if (np > MAX_ARGS || d->n_syms > MAX_ARGS) {
    mlcrt_module_free(mod);
    fprintf(stderr, "mlcc: run: function has more than %d parameters\n", MAX_ARGS);
    return EXIT_ERR;
  }
  if (n_in > np) {
    fprintf(stderr, "mlcc: run: %d inputs given but '%s' has %d parameters\n", n_in, d->name, np);
    rc = EXIT_ERR;
  }
  /* inputs, in order; they bind the symbolic sizes */
  for (int i = 0; rc == EXIT_YES && i < n_in; i++) {
    if (!d->params[i].is_buffer) {
      fprintf(stderr, "mlcc: run: parameter '%s' is a scalar; scalar parameters are not supported by run\n",
              d->params[i].name);
      rc = EXIT_ERR;
    } else if (mlcrt_npy_load(ins[i], &tensors[i]) != 0) {
      rc = cli_rt_fail_path("run", ins[i]);
    } else {
      const MlcrtParamDesc *p = &d->params[i];
      for (int k = 0; k < p->ndim && k < tensors[i]->dl.ndim; k++)
        if (p->dims[k] < 0 && !bound[-p->dims[k] - 1]) {
          syms[-p->dims[k] - 1] = tensors[i]->dl.shape[k];
          bound[-p->dims[k] - 1] = true;
        }
    }
  }
  /* the remaining buffers */
  for (int i = n_in; rc == EXIT_YES && i < np; i++) {
    const MlcrtParamDesc *p = &d->params[i];
    if (!p->is_buffer) {
      fprintf(stderr, "mlcc: run: parameter '%s' is a scalar; scalar parameters are not supported by run\n", p->name);
      rc = EXIT_ERR;
      break;
    }
    int64_t shape[MLCRT_MAX_NDIM];
    for (int k = 0; k < p->ndim; k++) {
      if (p->dims[k] >= 0) shape[k] = p->dims[k];
      else if (bound[-p->dims[k] - 1]) shape[k] = syms[-p->dims[k] - 1];
      else {
        fprintf(stderr, "mlcc: run: size '%s' of parameter '%s' is unknown: give an input that has it\n",
                d->sym_names[-p->dims[k] - 1], p->name);
        rc = EXIT_ERR;
        break;
      }
    }
    if (rc != EXIT_YES) break;
    if (mlcrt_tensor_create(p->ndim, shape, p->dtype, &tensors[i]) != 0) {
      rc = rt_fail("cannot allocate a parameter");
      break;
    }
    cli_fill_tensor(&tensors[i]->dl, fill, &seed);
  }
  for (int i = 0; i < np; i++) args[i].tensor = tensors[i] ? &tensors[i]->dl : NULL;
  if (rc == EXIT_YES && mlcrt_func_call(f, args, np) != 0) rc = rt_fail("call failed");
  for (int k = 0; rc == EXIT_YES && k < n_out; k++) {
    int i = n_in + k;
    if (i >= np) {
      fprintf(stderr, "mlcc: run: more --out files than parameters after the inputs\n");
      rc = EXIT_ERR;
    } else if (mlcrt_npy_save(outs[k], &tensors[i]->dl) != 0) {
      rc = cli_rt_fail_path("run", outs[k]);
    }
  }
  if (rc == EXIT_YES && time) {
    TimeCall c = {f, args, np};
    MlcrtTimes t;
    if (mlcrt_time_eval(timed, &c, 1, 10, 100, &t) != 0) rc = rt_fail("timing failed");
    else
      printf("%s: mean %.3f ms, median %.3f ms, min %.3f ms (%d thread%s)\n", d->name, t.mean * 1e3, t.median * 1e3,
             t.min * 1e3, mlcrt_threads_get(), mlcrt_threads_get() == 1 ? "" : "s");
  }
  for (int i = 0; i < np; i++) mlcrt_tensor_free(tensors[i]);
  mlcrt_module_free(mod);
  return rc;
}
