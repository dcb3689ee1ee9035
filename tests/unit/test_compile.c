/* test_compile.c - compiled C against the interpreter.
 *
 * Every prim func of the golden files (tests/golden/roundtrip) and of the
 * run programs (tests/golden/run) is compiled with mlc_build_shared (in a
 * fresh directory under $TMPDIR that is removed afterwards), loaded with the
 * runtime, called on random inputs and compared with the reference
 * interpreter on the same inputs: integers exactly, floats within rtol 1e-5
 * plus an absolute term.  Each file is built twice:
 *   - with -ffp-contract=off, so the C arithmetic is the IR's step for step:
 *     atol 1e-6.  This holds for the transcendental functions too: the C
 *     code calls the float versions (expf, tanhf, ...), the interpreter
 *     rounds the double result, and the two differ by an ulp or so;
 *   - with the compiler's defaults, which in GNU C mode with -march=native
 *     contract a*b + c into fused multiply-adds that round once where the IR
 *     rounds twice.  Along a 784-term dot product of values in [-1, 1] that
 *     moves results by a few 1e-6 (measured up to 3e-6) -- far beyond any
 *     relative tolerance where the sum cancels to near zero -- so this build
 *     is held to atol 1e-4.
 * Functions with symbolic sizes are
 * called at n = 1, 3 and 16 from one build.  Functions with thread-bound
 * loops must be refused by the C target with a message naming the loop, and
 * run on OpenCL against the interpreter where an OpenCL device is (a `skip`
 * line where none is).  Reported as `skip` lines too, not counted as passed, are, under
 * the sanitizers (which make the interpreter about four times slower),
 * functions of more than SAN_WORK interpreted iterations -- the golden
 * batched matmul -- which the plain build checks.  The runtime must
 * refuse calls with wrong arguments, naming the argument, and a compiler
 * that cannot run or fails must be reported with the .c file's path. */
#include "check.h"
#include "mlcc/codegen.h"
#include "mlcc/interp.h"
#include "mlcc/runtime.h"
#include "mlcc/text.h"

#define RAND_UTIL_SEED 0x13198a2e03707344ull
#include "build_util.h"
#include "rand_util.h"

#include <dirent.h>
#include <math.h>
#include <unistd.h>

enum { MAX_PARAMS = 32, MAX_SYMS = 8, MAX_FILES = 64, MAX_FUNCS = 64 };

static MlcCtx *ctx;
static char tmpdir[4096];

static const MlcPrimFunc *find_prim(const MlcModule *m, const char *name) {
  const MlcFunc *f = m ? mlc_module_find(m, mlc_intern(ctx, name)) : NULL;
  return f && f->kind == MLC_FUNC_PRIM ? f->prim : NULL;
}

/* (reading, the scratch directory, building and loading: build_util.h) */

/* the two builds of every file (see the top of the file) */
typedef struct Build {
  const char *suffix;
  MlcBuildOptions opt;
  double atol;
} Build;

enum { N_BUILDS = 2 };
static const Build builds[N_BUILDS] = {
    {"_nofma", {.extra_cflags = "-ffp-contract=off"}, 1e-6},
    {"", {.extra_cflags = NULL}, 1e-4},
};

/* ---- arguments ------------------------------------------------------------------------------- */

typedef struct Args {
  int n;
  MlcInterpArg arg[MAX_PARAMS];
  int64_t shape[MAX_PARAMS][8];
  size_t bytes[MAX_PARAMS];
  void *init[MAX_PARAMS], *interp[MAX_PARAMS], *compiled[MAX_PARAMS];
  DLTensor tensor[MAX_PARAMS];
  MlcrtValue value[MAX_PARAMS];
} Args;

static DLDataType dl_dtype(MlcDType t) {
  static const uint8_t codes[] = {[MLC_TC_INT] = kDLInt, [MLC_TC_UINT] = kDLUInt, [MLC_TC_FLOAT] = kDLFloat,
                                  [MLC_TC_BFLOAT] = kDLBfloat, [MLC_TC_BOOL] = kDLBool,
#define X(tc, name, nbits, eb, mb, bias, kind, dl) [tc] = dl,
                                  MLC_MINIFLOATS(X)
#undef X
  };
  return (DLDataType){codes[t.code], (uint8_t)(t.code == MLC_TC_BOOL ? 8 : t.bits), t.lanes};
}

static void *alloc64(size_t n) {
  void *p = NULL;
  return posix_memalign(&p, 64, n ? n : 1) == 0 ? p : NULL;
}

/* Shapes from the buffers' dims: constants as they are, the k-th size var
 * met gets sizes[k]; the same random contents for both runs. */
static bool make_args(const MlcPrimFunc *f, const int64_t *sizes, Args *a) {
  const MlcExpr *syms[MAX_SYMS];
  int nsyms = 0;
  memset(a, 0, sizeof *a);
  if (f->n_params > MAX_PARAMS) return false;
  a->n = f->n_params;
  for (int i = 0; i < f->n_params; i++) {
    const MlcBuffer *b = f->params[i].buf;
    if (!b) {
      bool fl = mlc_dtype_is_float(f->params[i].var->dtype);
      a->arg[i] = (MlcInterpArg){.is_buffer = false, .i = 3, .f = 0.5};
      a->value[i] = fl ? (MlcrtValue){.f = 0.5} : (MlcrtValue){.i = 3};
      continue;
    }
    if (!supported(b->dtype) || b->ndim > 8) return false;
    size_t count;
    if (!buffer_shape(b, sizes, syms, &nsyms, MAX_SYMS, a->shape[i], &count)) return false;
    a->bytes[i] = count * mlc_dtype_bytes(b->dtype);
    a->init[i] = malloc(a->bytes[i] + 1);
    a->interp[i] = malloc(a->bytes[i] + 1);
    a->compiled[i] = alloc64(a->bytes[i]);
    fill_random(b->dtype, a->init[i], count);
    memcpy(a->interp[i], a->init[i], a->bytes[i]);
    memcpy(a->compiled[i], a->init[i], a->bytes[i]);
    a->arg[i] = (MlcInterpArg){.is_buffer = true, .data = a->interp[i], .ndim = b->ndim, .shape = a->shape[i]};
    a->tensor[i] = (DLTensor){.data = a->compiled[i], .device = {kDLCPU, 0}, .ndim = b->ndim,
                              .dtype = dl_dtype(b->dtype), .shape = a->shape[i]};
    a->value[i].tensor = &a->tensor[i];
  }
  return true;
}

static void free_args(Args *a) {
  for (int i = 0; i < a->n; i++) free(a->init[i]), free(a->interp[i]), free(a->compiled[i]);
}

/* compiled against interpreted: integers exactly, floats within tolerance */
static bool same_results(const MlcPrimFunc *f, const Args *a, const char *at, double atol) {
  for (int i = 0; i < a->n; i++) {
    const MlcBuffer *b = f->params[i].buf;
    RandDiff d;
    if (!b || same_buffer(b->dtype, a->compiled[i], a->interp[i], a->bytes[i], 1e-5, atol, NULL, &d)) continue;
    if (!mlc_dtype_is_float(b->dtype))
      printf("    %s%s: integer buffer '%s' differs from the interpreter's\n", f->name, at, b->name);
    else
      printf("    %s%s: '%s'[%zu] is %.9g compiled, %.9g interpreted\n", f->name, at, b->name, d.index, d.got,
             d.want);
    return false;
  }
  return true;
}

/* ---- the programs ------------------------------------------------------------------------------ */

static bool symbolic(const MlcPrimFunc *f) {
  for (int i = 0; i < f->n_params; i++)
    for (int d = 0; f->params[i].buf && d < f->params[i].buf->ndim; d++)
      if (f->params[i].buf->shape[d]->kind != MLC_EXPR_INT) return true;
  return false;
}

/* the first thread-bound loop in s, or NULL */
static const MlcStmt *thread_loop(const MlcStmt *s) {
  const MlcStmt *v = NULL;
  if (!s) return NULL;
  switch (s->kind) {
  case MLC_STMT_FOR: return s->loop.kind == MLC_FOR_THREAD ? s : thread_loop(s->loop.body);
  case MLC_STMT_BLOCK_REALIZE:
    return (v = thread_loop(s->realize.block->init)) ? v : thread_loop(s->realize.block->body);
  case MLC_STMT_SEQ:
    for (int i = 0; i < s->seq.n && !v; i++) v = thread_loop(s->seq.items[i]);
    return v;
  case MLC_STMT_IF: return (v = thread_loop(s->if_.then_s)) ? v : thread_loop(s->if_.else_s);
  case MLC_STMT_LET: return thread_loop(s->let.body);
  case MLC_STMT_ALLOCATE: return thread_loop(s->alloc.body);
  case MLC_STMT_STORE: case MLC_STMT_EVALUATE: return NULL;
  }
  return NULL;
}

/* One call of f from each build against the interpreter at one assignment
 * of its symbolic sizes. */
static bool check_call(MlcrtModule *const *mods, const Build *bs, int nb, const MlcPrimFunc *f, const int64_t *sizes,
                       const char *at) {
  Args a;
  if (!make_args(f, sizes, &a)) {
    printf("    %s: a param this test cannot generate\n", f->name);
    free_args(&a);
    return false;
  }
  bool ok = true;
  mlc_clear_error(ctx);
  if (!mlc_interp_run(ctx, f, a.arg, a.n)) bu_print_error(ctx, f->name), ok = false;
  for (int b = 0; ok && b < nb; b++) {
    char where[128];
    snprintf(where, sizeof where, "%s [build%s]", at, bs[b].suffix);
    for (int i = 0; i < a.n; i++)
      if (a.init[i]) memcpy(a.compiled[i], a.init[i], a.bytes[i]);
    const MlcrtFunc *fn = mlcrt_module_get_func(mods[b], f->name);
    if (!fn) printf("    %s: not in the compiled module: %s\n", f->name, mlcrt_last_error()), ok = false;
    else if (mlcrt_func_call(fn, a.value, a.n) != 0)
      printf("    %s%s: the call failed: %s\n", f->name, where, mlcrt_last_error()), ok = false;
    else ok = same_results(f, &a, where, bs[b].atol);
  }
  free_args(&a);
  return ok;
}

/* symbolic sizes: n = 1, 3, 16, rotated so that two size vars differ */
static bool check_func(MlcrtModule *const *mods, const Build *bs, int nb, const MlcPrimFunc *f) {
  static const int64_t values[3] = {1, 3, 16};
  if (!symbolic(f)) return check_call(mods, bs, nb, f, values, "");
  bool ok = true;
  for (int r = 0; r < 3; r++) {
    int64_t sizes[MAX_SYMS];
    char at[64];
    for (int k = 0; k < MAX_SYMS; k++) sizes[k] = values[(r + k) % 3];
    snprintf(at, sizeof at, " (sizes %lld, %lld, ...)", (long long)sizes[0], (long long)sizes[1]);
    ok = check_call(mods, bs, nb, f, sizes, at) && ok;
  }
  return ok;
}

/* A thread-bound function must be refused by the C target, naming the loop. */
static bool check_refused(const MlcModule *m, const MlcFunc *fn, const MlcExpr *loop) {
  const MlcModule *one = mlc_module_new(ctx, m->name, (MlcFunc *)fn, 1, m->attrs);
  char so[8192], want[256];
  snprintf(so, sizeof so, "%s/thread_bound.so", tmpdir);
  snprintf(want, sizeof want, "loop '%s'", loop->var.name);
  mlc_clear_error(ctx);
  bool built = one && mlc_build_shared(ctx, one, so, NULL);
  const char *msg = mlc_error_msg(ctx);
  bool ok = !built && msg && strstr(msg, want);
  if (!ok) printf("    %s: %s\n", fn->name, built ? "was compiled" : msg ? msg : "(no message)");
  return ok;
}

/* A thread-bound function runs on OpenCL (PoCL where there is no GPU)
 * against the interpreter; a skip line where OpenCL is absent. */
static bool check_on_opencl(const MlcModule *m, const MlcFunc *fn, const MlcStmt *loop, const char *file) {
  static const Build opencl = {"_opencl", {.gpu = MLC_GPU_OPENCL}, 1e-6};
  if (strncmp(loop->loop.thread, "blockIdx.", 9) && strncmp(loop->loop.thread, "threadIdx.", 10)) {
    printf("skip %s:%s: loop '%s' is bound to %s, which neither the C target nor a GPU target runs\n", file,
           fn->name, loop->loop.var->var.name, loop->loop.thread);
    return true;
  }
  if (!mlcrt_gpu(MLCRT_GPU_OPENCL)) {
    printf("skip %s:%s: thread-bound loops run on OpenCL only, and there is none (%s)\n", file, fn->name,
           mlcrt_last_error());
    return true;
  }
  const MlcModule *one = mlc_module_new(ctx, m->name, (MlcFunc *)fn, 1, m->attrs);
  MlcrtModule *mod = one ? bu_build_and_load(ctx, one, tmpdir, "thread_bound_opencl", &opencl.opt) : NULL;
  bool ok = mod && check_func(&mod, &opencl, 1, fn->prim);
  if (mod) mlcrt_module_free(mod);
  return ok;
}

/* Every prim func of a module read from file `base`: thread-bound ones
 * refused, the others built into one shared object and checked. */
static bool check_module(const MlcModule *m, const char *base) {
  MlcFunc runnable[MAX_FUNCS];
  int n = 0;
  bool ok = true;
  for (int i = 0; i < m->n_funcs && n < MAX_FUNCS; i++) {
    if (m->funcs[i].kind != MLC_FUNC_PRIM) continue;
    const MlcPrimFunc *f = m->funcs[i].prim;
    const MlcStmt *loop = thread_loop(f->body);
    if (loop)
      ok = check_refused(m, &m->funcs[i], loop->loop.var) && check_on_opencl(m, &m->funcs[i], loop, base) && ok;
    else if (UNDER_SANITIZER && work(f->body) > SAN_WORK)
      printf("skip %s:%s: %.0f interpreted iterations are too slow under the sanitizers\n", base, f->name,
             work(f->body));
    else runnable[n++] = m->funcs[i];
  }
  if (n == 0) return ok;
  const MlcModule *sub = mlc_module_new(ctx, m->name, runnable, n, m->attrs);
  MlcrtModule *mods[N_BUILDS] = {0};
  bool built = sub != NULL;
  for (int b = 0; built && b < N_BUILDS; b++) {
    char stem[256];
    snprintf(stem, sizeof stem, "%.*s%s", (int)(strlen(base) - 3), base, builds[b].suffix);
    built = (mods[b] = bu_build_and_load(ctx, sub, tmpdir, stem, &builds[b].opt)) != NULL;
  }
  for (int i = 0; built && i < n; i++) ok = check_func(mods, builds, N_BUILDS, runnable[i].prim) && ok;
  for (int b = 0; b < N_BUILDS; b++)
    if (mods[b]) mlcrt_module_free(mods[b]);
  return ok && built;
}

static bool check_file(const char *path) {
  const MlcModule *m = bu_read_path(ctx, path);
  return m && check_module(m, strrchr(path, '/') ? strrchr(path, '/') + 1 : path);
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static void check_dir(const char *dir) {
  char *files[MAX_FILES];
  int n = 0;
  DIR *d = opendir(dir);
  CHECK(d != NULL);
  if (!d) return;
  for (struct dirent *e; (e = readdir(d)) && n < MAX_FILES;) {
    size_t len = strlen(e->d_name);
    if (len <= 3 || strcmp(e->d_name + len - 3, ".py")) continue;
    files[n] = malloc(strlen(dir) + len + 2);
    sprintf(files[n++], "%s/%s", dir, e->d_name);
  }
  closedir(d);
  qsort(files, (size_t)n, sizeof *files, cmp_str);
  CHECK(n > 0);
  for (int i = 0; i < n; i++) {
    bool ok = check_file(files[i]);
    if (!ok) printf("    ... in %s\n", files[i]);
    CHECK(ok);
    free(files[i]);
  }
}

static void test_golden_programs(void) { check_dir("tests/golden/roundtrip"); }
static void test_run_programs(void) { check_dir("tests/golden/run"); }

/* ---- names the C library has ------------------------------------------------------------------ */

/* Prim funcs named as libm and libc functions (legalizing R.exp gives a
 * function `exp`), locals named as the functions the kernels call and the
 * types they declare with, and a function named like another's parallel
 * closure: all must compile and keep their names in the descriptor. */
static const char LIBC_NAMES[] =
    "@I.ir_module\nclass Module:\n"
    "    @T.prim_func\n"
    "    def exp(expf: T.Buffer((8,), \"float32\"), int32_t: T.Buffer((8,), \"float32\")):\n"
    "        for sqrtf in range(8):\n"
    "            with T.block(\"B\"):\n"
    "                v = T.axis.spatial(8, sqrtf)\n"
    "                int32_t[v] = T.exp(expf[v])\n"
#define LIBC_UNARY(name, value)                                                   \
  "    @T.prim_func\n"                                                            \
  "    def " name "(A: T.Buffer((8,), \"float32\"), B: T.Buffer((8,), \"float32\")):\n" \
  "        for i in range(8):\n"                                                  \
  "            with T.block(\"B\"):\n"                                            \
  "                vi = T.axis.spatial(8, i)\n"                                   \
  "                B[vi] = " value "\n"
    LIBC_UNARY("log", "T.log(T.fabs(A[vi]) + T.float32(1))")
    LIBC_UNARY("abs", "T.fabs(A[vi])")
    LIBC_UNARY("floor", "T.floor(A[vi] * T.float32(4))")
    LIBC_UNARY("round", "T.round(A[vi] * T.float32(4))")
    LIBC_UNARY("sin", "T.sin(A[vi])")
    LIBC_UNARY("sqrt_parallel0", "T.sqrt(T.fabs(A[vi]) + T.float32(2))")
    "    @T.prim_func\n"
    "    def sqrt(A: T.Buffer((8,), \"float32\"), B: T.Buffer((8,), \"float32\")):\n"
    "        for i in T.parallel(8):\n"
    "            with T.block(\"B\"):\n"
    "                vi = T.axis.spatial(8, i)\n"
    "                B[vi] = T.sqrt(T.fabs(A[vi]))\n"
    "    @T.prim_func\n"
    "    def memcpy(A: T.Buffer((8,), \"int32\"), B: T.Buffer((8,), \"int32\")):\n"
    "        for i in range(8):\n"
    "            with T.block(\"B\"):\n"
    "                vi = T.axis.spatial(8, i)\n"
    "                B[vi] = A[vi]\n"
    "    @T.prim_func\n"
    "    def main(A: T.Buffer((8,), \"float32\"), B: T.Buffer((8,), \"float32\"), C: T.Buffer((8,), \"float32\")):\n"
    "        for i in range(8):\n"
    "            with T.block(\"C\"):\n"
    "                vi = T.axis.spatial(8, i)\n"
    "                C[vi] = A[vi] + B[vi]\n";
#undef LIBC_UNARY

static void test_libc_names(void) {
  mlc_clear_error(ctx);
  const MlcModule *m = mlc_read_module(ctx, "libc_names.py", LIBC_NAMES, strlen(LIBC_NAMES));
  if (!m) bu_print_error(ctx, "libc_names.py");
  CHECK(m != NULL && m->n_funcs == 10);
  CHECK(m && check_module(m, "libc_names.py"));
}

/* ---- wrong arguments ---------------------------------------------------------------------------- */

/* a call that must be refused with a message holding `want` */
static bool call_refused(const MlcrtFunc *fn, MlcrtValue *args, int n, const char *want1, const char *want2) {
  if (mlcrt_func_call(fn, args, n) == 0) {
    printf("    the call was accepted\n");
    return false;
  }
  const char *msg = mlcrt_last_error();
  if (strstr(msg, want1) && strstr(msg, want2)) return true;
  printf("    message \"%s\" lacks \"%s\" or \"%s\"\n", msg, want1, want2);
  return false;
}

static void test_bad_arguments(void) {
  const MlcModule *m = bu_read_path(ctx, "tests/golden/roundtrip/mlp_dynamic.py");
  const MlcPrimFunc *f = find_prim(m, "linear0");
  CHECK(f != NULL);
  if (!f) return;
  MlcFunc only = {.kind = MLC_FUNC_PRIM, .name = f->name, .prim = (MlcPrimFunc *)f};
  MlcrtModule *mod = bu_build_and_load(ctx, mlc_module_new(ctx, m->name, &only, 1, m->attrs), tmpdir, "bad_arguments", NULL);
  CHECK(mod != NULL);
  if (!mod) return;
  const MlcrtFunc *fn = mlcrt_module_get_func(mod, "linear0");
  CHECK(fn != NULL);
  float *x = alloc64(4 * 784 * 4), *w = alloc64(128 * 784 * 4), *b = alloc64(128 * 4), *z = alloc64(4 * 128 * 4);
  memset(x, 0, 4 * 784 * 4), memset(w, 0, 128 * 784 * 4), memset(b, 0, 128 * 4), memset(z, 0, 4 * 128 * 4);
  int64_t sx[2] = {3, 784}, sw[2] = {128, 784}, sb[1] = {128}, sz[2] = {3, 128};
  DLDataType f32 = {kDLFloat, 32, 1};
  DLTensor tx = {x, {kDLCPU, 0}, 2, f32, sx, NULL, 0}, tw = {w, {kDLCPU, 0}, 2, f32, sw, NULL, 0};
  DLTensor tb = {b, {kDLCPU, 0}, 1, f32, sb, NULL, 0}, tz = {z, {kDLCPU, 0}, 2, f32, sz, NULL, 0};
  MlcrtValue args[4] = {{.tensor = &tx}, {.tensor = &tw}, {.tensor = &tb}, {.tensor = &tz}};
  CHECK(fn && mlcrt_func_call(fn, args, 4) == 0); /* the good call, for contrast */

  tx.ndim = 1;
  CHECK(call_refused(fn, args, 4, "argument 'X' (#1)", "rank"));
  tx.ndim = 2;
  int64_t narrow[2] = {128, 783};
  tw.shape = narrow;
  CHECK(call_refused(fn, args, 4, "argument 'w' (#2)", "shape"));
  tw.shape = sw;
  tb.dtype = (DLDataType){kDLFloat, 64, 1};
  CHECK(call_refused(fn, args, 4, "argument 'b' (#3)", "dtype"));
  tb.dtype = f32;
  int64_t sz4[2] = {4, 128};
  tz.shape = sz4;
  CHECK(call_refused(fn, args, 4, "argument 'Z' (#4)", "symbolic size"));
  tz.shape = sz;
  tb.data = NULL;
  CHECK(call_refused(fn, args, 4, "argument 'b' (#3)", "NULL"));
  tb.data = b;
  CHECK(call_refused(fn, args, 3, "linear0", "arguments"));
  CHECK(fn && mlcrt_func_call(fn, args, 4) == 0); /* refusals left nothing behind */
  free(x), free(w), free(b), free(z);
  mlcrt_module_free(mod);
}

/* ---- a compiler that cannot run, and one that fails ------------------------------------------------ */

static void check_broken(const MlcModule *m, const MlcBuildOptions *opt, const char *stem) {
  char so[8192], c[8192];
  snprintf(so, sizeof so, "%s/%s.so", tmpdir, stem);
  snprintf(c, sizeof c, "%s/%s.c", tmpdir, stem);
  mlc_clear_error(ctx);
  CHECK(!mlc_build_shared(ctx, m, so, opt));
  const char *msg = mlc_error_msg(ctx);
  bool ok = msg && strstr(msg, c);
  if (!ok) printf("    %s: message \"%s\" does not name %s\n", stem, msg ? msg : "(none)", c);
  CHECK(ok);
  CHECK(access(so, F_OK) != 0);
}

static void test_broken_compiler(void) {
  const MlcModule *m = bu_read_path(ctx, "tests/golden/roundtrip/mm_relu.py");
  CHECK(m != NULL);
  if (!m) return;
  MlcBuildOptions missing = {.cc = "/nonexistent/cc"};
  check_broken(m, &missing, "missing_cc");
  MlcBuildOptions failing = {.extra_cflags = "-fno-such-option-for-mlcc"};
  check_broken(m, &failing, "failing_cc");
}

int main(void) {
  ctx = mlc_ctx_new();
  if (!bu_make_tmpdir(tmpdir, sizeof tmpdir, "mlcc-compile")) {
    printf("FAIL test_compile: cannot create a temporary directory\n");
    return 1;
  }
  RUN(test_golden_programs);
  RUN(test_run_programs);
  RUN(test_libc_names);
  RUN(test_bad_arguments);
  RUN(test_broken_compiler);
  bu_remove_dir(tmpdir);
  mlc_ctx_free(ctx);
  return CHECK_DONE();
}
