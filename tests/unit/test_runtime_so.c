/* test_runtime_so.c - loading compiled modules from shared objects.
 *
 * Each test writes a small C file in the style the C code generator emits
 * (the ABI structs repeated, no runtime header, no runtime symbols used),
 * compiles it with `cc -shared -fPIC` into a scratch directory, loads it and
 * calls it through the calling convention.  A missing compiler is a failure,
 * not a skip: every build of the project has one. */
#include <stdbool.h>
#include <stdint.h>
#include <unistd.h>

#include "check.h"
#include "mlcc/runtime.h"

static char g_dir[256];

static const char *tmp_path(const char *name) {
  static char path[4][512];
  static int next;
  char *p = path[next++ % 4];
  snprintf(p, sizeof path[0], "%s/%s", g_dir, name);
  return p;
}

/* the ABI as a generated file spells it, then a kernel computing
 * Y = FACTOR * X with a parallel loop, exported as `scale` */
static const char MODULE_SRC[] =
    "#include <stddef.h>\n"
    "#include <stdint.h>\n"
    "typedef struct { uint8_t code; uint8_t bits; uint16_t lanes; } dtype_t;\n"
    "typedef struct MlcrtEnv {\n"
    "  uint32_t version;\n"
    "  int32_t (*parallel_for)(int64_t n, int32_t (*body)(int64_t, int64_t, void *), void *closure);\n"
    "  void *(*workspace_alloc)(size_t nbytes, size_t align);\n"
    "  void (*workspace_free)(void *p);\n"
    "  void (*set_error)(const char *msg);\n"
    "} MlcrtEnv;\n"
    "typedef struct { const char *name; int32_t is_buffer; dtype_t dtype; int32_t ndim;\n"
    "                 const int64_t *dims; int32_t align; } param_t;\n"
    "typedef struct { const char *name; int32_t n_params; const param_t *params; int32_t n_syms;\n"
    "                 const char *const *sym_names;\n"
    "                 int32_t (*fn)(void *const *, const int64_t *, const MlcrtEnv *); } func_t;\n"
    "typedef struct { uint32_t abi_version; int32_t n_funcs; const func_t *funcs; } module_t;\n"
    "typedef struct { const float *x; float *y; } closure_t;\n"
    "static int32_t body(int64_t begin, int64_t end, void *c) {\n"
    "  closure_t *cl = c;\n"
    "  for (int64_t i = begin; i < end; i++) cl->y[i] = FACTOR * cl->x[i];\n"
    "  return 0;\n"
    "}\n"
    "static int32_t scale(void *const *args, const int64_t *syms, const MlcrtEnv *env) {\n"
    "  closure_t cl = {args[0], args[1]};\n"
    "  if (syms[0] == 13) { env->set_error(\"13 is unlucky\"); return 2; }\n"
    "  return env->parallel_for(syms[0], body, &cl);\n"
    "}\n"
    "static const int64_t dims_n[] = {-1};\n"
    "static const char *const syms[] = {\"n\"};\n"
    "static const param_t params[] = {{\"X\", 1, {2, 32, 1}, 1, dims_n, 0},\n"
    "                                 {\"Y\", 1, {2, 32, 1}, 1, dims_n, 0}};\n"
    "static const func_t funcs[] = {{\"scale\", 2, params, 1, syms, scale}};\n"
    "#ifndef NO_DESCRIPTOR\n"
    "__attribute__((visibility(\"default\")))\n"
    "const module_t mlcrt_module = {ABI, 1, funcs};\n"
    "#else\n"
    "const module_t *keep = (const module_t *)funcs;\n"
    "#endif\n";

/* writes MODULE_SRC and compiles it with the given -D flags into NAME.so */
static bool build_so(const char *name, const char *defines) {
  char src_name[64], cmd[2048];
  snprintf(src_name, sizeof src_name, "%s.c", name);
  FILE *f = fopen(tmp_path(src_name), "w");
  if (!f) return false;
  fputs(MODULE_SRC, f);
  fclose(f);
  snprintf(cmd, sizeof cmd, "cc -shared -fPIC -O1 %s -o '%s/%s.so' '%s/%s.c' 2>'%s/cc.log'", defines, g_dir, name,
           g_dir, name, g_dir);
  int rc = system(cmd);
  if (rc != 0) printf("# '%s' failed with status %d\n", cmd, rc);
  return rc == 0;
}

static bool call_scale(const MlcrtModule *m, int64_t n, float factor) {
  const MlcrtFunc *f = mlcrt_module_get_func(m, "scale");
  MlcrtTensor *x = NULL, *y = NULL;
  if (!f || mlcrt_tensor_create(1, &n, mlcrt_dtype(kDLFloat, 32), &x) ||
      mlcrt_tensor_create(1, &n, mlcrt_dtype(kDLFloat, 32), &y))
    return false;
  for (int64_t i = 0; i < n; i++) ((float *)x->dl.data)[i] = (float)i - 3.0f;
  DLTensor *args[] = {&x->dl, &y->dl};
  bool ok = mlcrt_func_call_tensors(f, args, 2) == 0;
  for (int64_t i = 0; ok && i < n; i++) ok = ((float *)y->dl.data)[i] == factor * ((float)i - 3.0f);
  mlcrt_tensor_free(x);
  mlcrt_tensor_free(y);
  return ok;
}

static void test_so_load_and_call(void) {
  CHECK(build_so("two", "-DFACTOR=2.0f -DABI=1u"));
  MlcrtModule *m = NULL;
  CHECK(mlcrt_module_load(tmp_path("two.so"), &m) == 0);
  if (!m) {
    printf("# %s\n", mlcrt_last_error());
    return;
  }
  CHECK(mlcrt_module_num_funcs(m) == 1);
  CHECK(mlcrt_threads_set(3) == 0);
  CHECK(call_scale(m, 1000, 2.0f));
  CHECK(call_scale(m, 1, 2.0f));
  CHECK(mlcrt_threads_set(0) == 0);
  /* a refused argument and a failing kernel, as for any module */
  const MlcrtFunc *f = mlcrt_module_get_func(m, "scale");
  int64_t n13 = 13, n12 = 12;
  MlcrtTensor *a = NULL, *b = NULL;
  CHECK(mlcrt_tensor_create(1, &n13, mlcrt_dtype(kDLFloat, 32), &a) == 0);
  CHECK(mlcrt_tensor_create(1, &n12, mlcrt_dtype(kDLFloat, 32), &b) == 0);
  DLTensor *args[] = {&a->dl, &b->dl};
  CHECK(mlcrt_func_call_tensors(f, args, 2) != 0);
  CHECK_STR(mlcrt_last_error(), "scale: argument 'Y' (#2): symbolic size n = 13 from 'X' but 12 here");
  args[1] = &a->dl;
  CHECK(mlcrt_func_call_tensors(f, args, 2) == 2);
  CHECK_STR(mlcrt_last_error(), "scale: 13 is unlucky");
  mlcrt_tensor_free(a);
  mlcrt_tensor_free(b);
  mlcrt_module_free(m);
}

/* RTLD_LOCAL: two modules with the same internal and exported names coexist */
static void test_so_two_modules(void) {
  CHECK(build_so("three", "-DFACTOR=3.0f -DABI=1u"));
  CHECK(build_so("half", "-DFACTOR=0.5f -DABI=1u"));
  MlcrtModule *m3 = NULL, *mh = NULL;
  CHECK(mlcrt_module_load(tmp_path("three.so"), &m3) == 0);
  CHECK(mlcrt_module_load(tmp_path("half.so"), &mh) == 0);
  if (m3 && mh) {
    CHECK(call_scale(m3, 100, 3.0f));
    CHECK(call_scale(mh, 100, 0.5f));
  }
  mlcrt_module_free(m3);
  mlcrt_module_free(mh);
}

static void test_so_refusals(void) {
  MlcrtModule *m = (MlcrtModule *)&m;
  CHECK(mlcrt_module_load(tmp_path("absent.so"), &m) != 0 && m == NULL);
  char want[600];
  snprintf(want, sizeof want, "cannot load module '%s': ", tmp_path("absent.so"));
  CHECK(strncmp(mlcrt_last_error(), want, strlen(want)) == 0);

  CHECK(build_so("nodesc", "-DFACTOR=1.0f -DABI=1u -DNO_DESCRIPTOR"));
  CHECK(mlcrt_module_load(tmp_path("nodesc.so"), &m) != 0 && m == NULL);
  snprintf(want, sizeof want, "'%s' exports no 'mlcrt_module' (not an mlcc module)", tmp_path("nodesc.so"));
  CHECK_STR(mlcrt_last_error(), want);

  CHECK(build_so("future", "-DFACTOR=1.0f -DABI=99u"));
  CHECK(mlcrt_module_load(tmp_path("future.so"), &m) != 0 && m == NULL);
  snprintf(want, sizeof want, "%s: module: ABI version 99, this runtime implements 1", tmp_path("future.so"));
  CHECK_STR(mlcrt_last_error(), want);

  FILE *f = fopen(tmp_path("text.so"), "w");
  if (f) {
    fputs("not an object file\n", f);
    fclose(f);
  }
  CHECK(mlcrt_module_load(tmp_path("text.so"), &m) != 0 && m == NULL);
  CHECK(strncmp(mlcrt_last_error(), "cannot load module '", 20) == 0);
  CHECK(mlcrt_module_load(NULL, &m) != 0);
  CHECK_STR(mlcrt_last_error(), "module_load: path is NULL");
}

static void remove_dir(void) {
  const char *stems[] = {"two", "three", "half", "nodesc", "future"};
  char name[64];
  for (size_t i = 0; i < sizeof stems / sizeof stems[0]; i++) {
    snprintf(name, sizeof name, "%s.c", stems[i]);
    remove(tmp_path(name));
    snprintf(name, sizeof name, "%s.so", stems[i]);
    remove(tmp_path(name));
  }
  remove(tmp_path("text.so"));
  remove(tmp_path("cc.log"));
  rmdir(g_dir);
}

int main(void) {
  const char *tmp = getenv("TMPDIR");
  snprintf(g_dir, sizeof g_dir, "%s/mlcrt-so.XXXXXX", tmp && *tmp ? tmp : "/tmp");
  if (!mkdtemp(g_dir)) {
    printf("FAIL test_runtime_so: cannot make a scratch directory\n");
    return 1;
  }
  RUN(test_so_load_and_call);
  RUN(test_so_two_modules);
  RUN(test_so_refusals);
  remove_dir();
  return CHECK_DONE();
}
