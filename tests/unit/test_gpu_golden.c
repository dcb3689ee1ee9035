/* test_gpu_golden.c - the golden cases of the GPU targets: each directory
 * tests/golden/gpu/CASE/ holds
 *   before.py    the module to schedule (its only prim func)
 *   schedule.py  the schedule script binding it to a GPU; without it, the
 *                default GPU schedules (mlc_sch_apply_default_gpu, checked
 *                by the GPU lowering) bind it instead
 *   after.py     the module expected after the script, or
 *   error.txt    one line: a substring of the error that building the
 *                scheduled module for a GPU must fail with (a malformed GPU
 *                schedule: refused, never run)
 * and prints `ok gpu/CASE/...` lines, one per check:
 *   schedule  the result is structurally equal to after.py;
 *   opencl    the module built for OpenCL runs (on the first OpenCL device,
 *             PoCL on a machine without a GPU) and every buffer agrees with
 *             the reference interpreter running before.py on the same
 *             random inputs;
 *   cuda      the CUDA C of every kernel compiles with nvcc to PTX.
 * A check whose tool is missing (no OpenCL platform, no nvcc) prints a
 * `skip` line with the reason instead.  MLC_GOLDEN_WRITE=1 writes a missing
 * after.py from the result, to review before committing.  Arguments name
 * cases to run only those. */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "build_util.h"
#include "golden_case.h"
#include "mlcc/interp.h"
#include "mlcc/lower.h"
#include "mlcc/schedule.h"
#include "rand_util.h"

#define GOLDEN_DIR "tests/golden/gpu"
#define RTOL 1e-4
#define ATOL 1e-5

static int n_failed;

static void report(Case *c, const char *check, bool ok) {
  if (ok) {
    printf("ok gpu/%s/%s\n", c->name, check);
  } else {
    printf("FAIL gpu/%s/%s: %s\n", c->name, check, c->why.len ? mlc_sb_cstr(&c->why) : "failed");
    n_failed++;
  }
  c->why.len = 0;
}

static bool equal_or_diff(Case *c, const MlcModule *got, const MlcModule *want) {
  MlcDiff d = {0};
  if (mlc_module_equal_diff(got, want, &d)) return mlc_diff_free(&d), true;
  MlcStrBuf l = {0}, r = {0};
  mlc_print_diff_side(&d, false, &l);
  mlc_print_diff_side(&d, true, &r);
  fail(c, "result differs from after.py: function %s: at %s: %s vs %s", d.func ? d.func : "(module)",
       mlc_sb_cstr(&d.path), mlc_sb_cstr(&l), mlc_sb_cstr(&r));
  mlc_vec_free(&l);
  mlc_vec_free(&r);
  mlc_diff_free(&d);
  return false;
}

static const MlcPrimFunc *only_prim(const MlcModule *m) {
  for (int i = 0; i < m->n_funcs; i++)
    if (m->funcs[i].kind == MLC_FUNC_PRIM) return m->funcs[i].prim;
  return NULL;
}

/* ---- opencl: run and compare with the interpreter ------------------------------------ */

typedef struct Buf {
  int64_t shape[16];
  size_t numel, bytes;
  void *want, *got;
  DLTensor dl;
} Buf;

static bool run_opencl(Case *c, const MlcModule *before, const MlcModule *sched, bool *skipped) {
  const MlcPrimFunc *f = only_prim(before);
  if (!mlcrt_gpu(MLCRT_GPU_OPENCL)) {
    printf("skip gpu/%s/opencl: %s\n", c->name, mlcrt_last_error());
    *skipped = true;
    return true;
  }
  int n = f->n_params;
  Buf *b = calloc((size_t)n, sizeof *b);
  MlcInterpArg *ia = calloc((size_t)n, sizeof *ia);
  MlcrtValue *vals = calloc((size_t)n, sizeof *vals);
  bool ok = true;
  for (int i = 0; i < n && ok; i++) {
    const MlcBuffer *buf = f->params[i].buf;
    const MlcExpr *syms[4];
    int nsyms = 0;
    if (!buf || buf->ndim > 16 || !supported(buf->dtype) ||
        !buffer_shape(buf, (const int64_t[]){8, 8, 8, 8}, syms, &nsyms, 4, b[i].shape, &b[i].numel)) {
      ok = fail(c, "parameter %d is not a buffer the test can fill", i);
      break;
    }
    b[i].bytes = b[i].numel * mlc_dtype_bytes(buf->dtype);
    b[i].want = malloc(b[i].bytes ? b[i].bytes : 1);
    b[i].got = malloc(b[i].bytes ? b[i].bytes : 1);
    fill_random(buf->dtype, b[i].want, b[i].numel);
    memcpy(b[i].got, b[i].want, b[i].bytes);
    ia[i] = (MlcInterpArg){.is_buffer = true, .data = b[i].want, .ndim = buf->ndim, .shape = b[i].shape};
    b[i].dl = (DLTensor){.data = b[i].got, .device = {kDLCPU, 0}, .ndim = buf->ndim,
                         .dtype = {(uint8_t)(buf->dtype.code == MLC_TC_FLOAT ? kDLFloat : buf->dtype.code == MLC_TC_UINT ? kDLUInt : buf->dtype.code == MLC_TC_BOOL ? kDLBool : kDLInt),
                                   (uint8_t)(buf->dtype.code == MLC_TC_BOOL ? 8 : buf->dtype.bits), 1},
                         .shape = b[i].shape};
    vals[i].tensor = &b[i].dl;
  }
  if (ok && !mlc_interp_run(c->ctx, f, ia, n)) ok = fail_ctx(c, "the interpreter on before.py");
  char dir[512];
  MlcrtModule *mod = NULL;
  if (ok && !bu_make_tmpdir(dir, sizeof dir, "mlcc-gpu")) ok = fail(c, "cannot make a scratch directory");
  else if (ok) {
    MlcBuildOptions opt = {.target = MLC_TARGET_GENERIC, .gpu = MLC_GPU_OPENCL};
    mlc_clear_error(c->ctx);
    mod = bu_build_and_load(c->ctx, sched, dir, "k", &opt);
    if (!mod) ok = fail(c, "building for OpenCL failed");
    bu_remove_dir(dir);
  }
  const MlcrtFunc *fn = mod ? mlcrt_module_get_func(mod, f->name) : NULL;
  if (ok && !fn) ok = fail(c, "the module has no function %s", f->name);
  if (ok && mlcrt_func_call(fn, vals, n) != 0) ok = fail(c, "running on OpenCL: %s", mlcrt_last_error());
  for (int i = 0; i < n && ok; i++) {
    RandDiff d;
    MlcDType t = f->params[i].buf->dtype;
    if (!same_buffer(t, b[i].got, b[i].want, b[i].bytes, RTOL, ATOL, NULL, &d))
      ok = fail(c, "buffer %s differs from the interpreter at element %zu: %.9g vs %.9g", f->params[i].buf->name,
                d.index, d.got, d.want);
  }
  if (mod) mlcrt_module_free(mod);
  for (int i = 0; i < n; i++) free(b[i].want), free(b[i].got);
  free(b);
  free(ia);
  free(vals);
  return ok;
}

/* ---- cuda: nvcc compiles the kernels ------------------------------------------------- */

static const char *find_nvcc(void) {
  static char path[512];
  const char *env = getenv("NVCC");
  if (env && *env) return env;
  const char *p = getenv("PATH");
  char dirs[4096];
  snprintf(dirs, sizeof dirs, "%s:/usr/local/cuda/bin", p ? p : "");
  for (char *d = strtok(dirs, ":"); d; d = strtok(NULL, ":")) {
    snprintf(path, sizeof path, "%s/nvcc", d);
    if (access(path, X_OK) == 0) return path;
  }
  return NULL;
}

static bool compile_cuda(Case *c, const MlcModule *sched, bool *skipped) {
  const char *nvcc = find_nvcc();
  if (!nvcc) {
    printf("skip gpu/%s/cuda: no nvcc on PATH or in /usr/local/cuda/bin\n", c->name);
    *skipped = true;
    return true;
  }
  MlcStrBuf src = {0};
  mlc_clear_error(c->ctx);
  bool ok = mlc_codegen_gpu_source(c->ctx, sched, MLC_GPU_CUDA, &src);
  if (!ok) fail_ctx(c, "CUDA source");
  char dir[512];
  if (ok && !bu_make_tmpdir(dir, sizeof dir, "mlcc-cuda")) ok = fail(c, "cannot make a scratch directory");
  else if (ok) {
    char cu[640], ptx[640], log[640], cmd[2600];
    snprintf(cu, sizeof cu, "%s/k.cu", dir);
    snprintf(ptx, sizeof ptx, "%s/k.ptx", dir);
    snprintf(log, sizeof log, "%s/log", dir);
    ok = mlc_write_file(c->ctx, cu, src.data, src.len);
    snprintf(cmd, sizeof cmd, "'%s' -ptx -arch=compute_75 -o '%s' '%s' >'%s' 2>&1", nvcc, ptx, cu, log);
    int st = ok ? system(cmd) : -1;
    if (ok && st != 0) {
      size_t len = 0;
      char *text = mlc_read_file(c->ctx, log, 1 << 16, &len);
      char first[300] = "";
      if (text) snprintf(first, sizeof first, "%s", text);
      for (char *q = first; *q; q++)
        if (*q == '\n') *q = ' ';
      ok = fail(c, "nvcc failed (status %d): %s", st, first);
      free(text);
    }
    bu_remove_dir(dir);
  }
  mlc_vec_free(&src);
  return ok;
}

/* ---- the case ---------------------------------------------------------------------- */

static void run_case(const char *name) {
  Case c = {.name = name, .ctx = mlc_ctx_new()};
  snprintf(c.dir, sizeof c.dir, "%s/%s", GOLDEN_DIR, name);
  const MlcModule *before = read_module(&c, "before.py");
  size_t len = 0;
  const char *spath = case_path(&c, "schedule.py");
  bool by_default = !exists(spath);
  char *script = before && !by_default ? mlc_read_file(c.ctx, spath, GOLDEN_MAX_FILE, &len) : NULL;
  MlcSchedule *s = script || (before && by_default) ? mlc_sch_new(c.ctx, before, NULL, 0) : NULL;
  bool ok = s && (by_default ? mlc_sch_apply_default_gpu(s, 256, mlc_gpu_accepts, NULL)
                             : mlc_sch_run_script(s, spath, script, len));
  if (!before || (!script && !by_default)) ok = false;
  else if (!ok) fail_ctx(&c, by_default ? "the default GPU schedule failed" : "the script failed");
  const MlcModule *sched = ok ? mlc_sch_module(s) : NULL;
  if (exists(case_path(&c, "error.txt"))) {
    /* a malformed GPU schedule: building must refuse it */
    size_t wl = 0;
    char *want = mlc_read_file(c.ctx, case_path(&c, "error.txt"), 4096, &wl);
    while (want && wl && (want[wl - 1] == '\n' || want[wl - 1] == '\r')) want[--wl] = '\0';
    MlcStrBuf src = {0};
    if (ok) {
      mlc_clear_error(c.ctx);
      if (mlc_codegen_gpu_source(c.ctx, sched, MLC_GPU_OPENCL, &src)) ok = fail(&c, "expected an error containing '%s'; the build succeeded", want);
      else if (!strstr(mlc_error_msg(c.ctx) ? mlc_error_msg(c.ctx) : "", want))
        ok = fail(&c, "expected an error containing '%s', got: %s", want, mlc_error_msg(c.ctx));
    }
    report(&c, "refused", ok);
    free(want);
    mlc_vec_free(&src);
  } else {
    const char *w = getenv("MLC_GOLDEN_WRITE");
    if (ok && w && !strcmp(w, "1") && !exists(case_path(&c, "after.py"))) {
      MlcStrBuf out = {0};
      mlc_print_module(sched, &out);
      mlc_write_file(c.ctx, case_path(&c, "after.py"), out.data, out.len);
      mlc_vec_free(&out);
    }
    const MlcModule *want = ok ? read_module(&c, "after.py") : NULL;
    if (ok) ok = want && equal_or_diff(&c, sched, want);
    report(&c, "schedule", ok);
    bool skipped = false;
    if (ok) {
      bool run = run_opencl(&c, before, sched, &skipped);
      if (!skipped) report(&c, "opencl", run);
      skipped = false;
      bool cu = compile_cuda(&c, sched, &skipped);
      if (!skipped) report(&c, "cuda", cu);
    }
  }
  free(script);
  if (s) mlc_sch_free(s);
  mlc_vec_free(&c.why);
  mlc_ctx_free(c.ctx);
}

static int by_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

int main(int argc, char **argv) {
  if (argc > 1) {
    for (int i = 1; i < argc; i++) run_case(argv[i]);
    return n_failed ? 1 : 0;
  }
  DIR *d = opendir(GOLDEN_DIR);
  if (!d) {
    printf("FAIL gpu: cannot open %s\n", GOLDEN_DIR);
    return 1;
  }
  char *names[512];
  int n = 0;
  for (struct dirent *e; (e = readdir(d)) && n < 512;)
    if (e->d_name[0] != '.') names[n++] = strdup(e->d_name);
  closedir(d);
  qsort(names, (size_t)n, sizeof *names, by_name);
  for (int i = 0; i < n; i++) {
    run_case(names[i]);
    free(names[i]);
  }
  return n_failed ? 1 : 0;
}
