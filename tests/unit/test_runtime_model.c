/* test_runtime_model.c - loading and running compiled models.
 *
 * Each test writes a model in the style the model generator emits (the ABI
 * structs repeated, no runtime header, no runtime symbol used), compiles it
 * with `cc -shared -fPIC` into a scratch directory with a params.bin written
 * here, and loads it through the runtime.  The model computes
 *   y[n, 3] = x[n, 4] W^T + b   (through the extern env.linear)
 *   z[n, 4] = 2 x
 * with W and b read from the weights payload, and the results are checked
 * against a plain loop over the same numbers. */
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

/* the payload: W[3][4] at byte 0, b[3] at byte 64, 128 bytes in all */
enum { PAYLOAD_FLOATS = 32, B_AT = 16 };
static float g_payload[PAYLOAD_FLOATS];

static void make_payload(void) {
  for (int i = 0; i < 12; i++) g_payload[i] = (float)(i % 5) - 1.5f;
  for (int j = 0; j < 3; j++) g_payload[B_AT + j] = 0.25f * (float)(j + 1);
}

static uint64_t fnv1a64(const void *p, size_t n) {
  const unsigned char *b = p;
  uint64_t h = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < n; i++) {
    h ^= b[i];
    h *= 0x100000001b3ull;
  }
  return h;
}

static const char MODEL_SRC[] =
    "#include <stddef.h>\n"
    "#include <stdint.h>\n"
    "#include <string.h>\n"
    "typedef struct { uint8_t code; uint8_t bits; uint16_t lanes; } dtype_t;\n"
    "typedef struct { void *data; struct { int32_t t, id; } dev; int32_t ndim; dtype_t dtype;\n"
    "                 int64_t *shape; int64_t *strides; uint64_t byte_offset; } tensor_t;\n"
    "struct ext;\n"
    "typedef struct env {\n"
    "  uint32_t version;\n"
    "  int32_t (*parallel_for)(int64_t, int32_t (*)(int64_t, int64_t, void *), void *);\n"
    "  void *(*workspace_alloc)(size_t nbytes, size_t align);\n"
    "  void (*workspace_free)(void *p);\n"
    "  void (*set_error)(const char *msg);\n"
    "  int32_t (*get_extern)(const char *name, struct ext *out);\n"
    "} env_t;\n"
    "typedef int32_t (*ext_fn)(tensor_t *const *, int32_t, const env_t *);\n"
    "struct ext { const char *name; ext_fn fn; };\n"
    "typedef struct { const char *name; int32_t is_buffer; dtype_t dtype; int32_t ndim;\n"
    "                 const int64_t *dims; int32_t align; } param_t;\n"
    "typedef struct {\n"
    "  uint32_t abi_version; const char *name;\n"
    "  int32_t n_inputs; const param_t *inputs; int32_t n_outputs; const param_t *outputs;\n"
    "  int32_t n_syms; const char *const *sym_names;\n"
    "  uint64_t params_nbytes; uint64_t params_hash; const void *embedded_params;\n"
    "  int32_t (*create)(const void *, const env_t *, void **);\n"
    "  int32_t (*run)(void *, void *const *, const int64_t *, tensor_t **, const env_t *);\n"
    "  void (*destroy)(void *, const env_t *);\n"
    "} model_t;\n"
    "#define F32 {2, 32, 1}\n"
    "typedef struct { const float *w; ext_fn linear; float *buf; int64_t cap;\n"
    "                 int64_t ys[2], zs[2]; tensor_t y, z; } state_t;\n"
    "static int32_t create(const void *params, const env_t *env, void **out) {\n"
    "  if ((uintptr_t)params % 64) { env->set_error(\"weights misaligned\"); return 1; }\n"
    "  state_t *s = env->workspace_alloc(sizeof *s, 0);\n"
    "  if (!s) return 1;\n"
    "  memset(s, 0, sizeof *s);\n"
    "  s->w = params;\n"
    "  struct ext e;\n"
    "  if (env->get_extern(\"env.linear\", &e)) { env->workspace_free(s); return 1; }\n"
    "  s->linear = e.fn;\n"
    "  *out = s;\n"
    "  return 0;\n"
    "}\n"
    "static int32_t run(void *st, void *const *in, const int64_t *syms, tensor_t **out, const env_t *env) {\n"
    "  state_t *s = st;\n"
    "  int64_t n = syms[0];\n"
    "  if (n == 13) { env->set_error(\"13 is unlucky\"); return 3; }\n"
    "  if (n > s->cap) {\n"
    "    env->workspace_free(s->buf);\n"
    "    s->buf = env->workspace_alloc((size_t)n * 7 * sizeof(float), 0);\n"
    "    if (!s->buf) return 1;\n"
    "    s->cap = n;\n"
    "  }\n"
    "  s->ys[0] = n; s->ys[1] = YCOLS; s->zs[0] = n; s->zs[1] = 4;\n"
    "  s->y = (tensor_t){s->buf, {1, 0}, 2, F32, s->ys, NULL, 0};\n"
    "  s->z = (tensor_t){s->buf + 3 * n, {1, 0}, 2, F32, s->zs, NULL, 0};\n"
    "  int64_t xs[2] = {n, 4}, ws[2] = {3, 4}, bs[1] = {3}, ys[2] = {n, 3};\n"
    "  tensor_t x = {in[0], {1, 0}, 2, F32, xs, NULL, 0};\n"
    "  tensor_t w = {(void *)s->w, {1, 0}, 2, F32, ws, NULL, 0};\n"
    "  tensor_t b = {(void *)(s->w + 16), {1, 0}, 1, F32, bs, NULL, 0};\n"
    "  tensor_t y = {s->buf, {1, 0}, 2, F32, ys, NULL, 0};\n"
    "  tensor_t *args[] = {&x, &w, &b, &y};\n"
    "  int32_t rc = s->linear(args, 4, env);\n"
    "  if (rc) return rc;\n"
    "  const float *xp = in[0];\n"
    "  for (int64_t i = 0; i < 4 * n; i++) s->buf[3 * n + i] = 2.0f * xp[i];\n"
    "  out[0] = &s->y;\n"
    "  out[1] = &s->z;\n"
    "  return 0;\n"
    "}\n"
    "static void destroy(void *st, const env_t *env) {\n"
    "  state_t *s = st;\n"
    "  env->workspace_free(s->buf);\n"
    "  env->workspace_free(s);\n"
    "}\n"
    "static const int64_t x_dims[] = {-1, 4}, y_dims[] = {-1, 3}, z_dims[] = {-1, 4};\n"
    "static const param_t inputs[] = {{\"x\", 1, F32, 2, x_dims, 64}};\n"
    "static const param_t outputs[] = {{\"y\", 1, F32, 2, y_dims, 0}, {\"z\", 1, F32, 2, z_dims, 0}};\n"
    "static const char *const syms[] = {\"n\"};\n"
    "#ifdef EMBED\n"
    "static _Alignas(64) const float payload[32] = {PAYLOAD};\n"
    "#define WEIGHTS payload\n"
    "#else\n"
    "#define WEIGHTS NULL\n"
    "#endif\n"
    "#ifndef NO_DESCRIPTOR\n"
    "__attribute__((visibility(\"default\")))\n"
    "const model_t mlcrt_model = {1u, \"main\", 1, inputs, 2, outputs, 1, syms, 128, HASH, WEIGHTS,\n"
    "                             create, run, destroy};\n"
    "#endif\n";

/* MODEL_SRC compiled with defines into DIR/NAME.so, with YCOLS=3 and the
 * payload's hash unless the defines say otherwise */
static bool build_model(const char *name, const char *defines) {
  char src[64], cmd[4096], payload[1024] = "", dflt[128];
  snprintf(src, sizeof src, "%s.c", name);
  FILE *f = fopen(tmp_path(src), "w");
  if (!f) return false;
  fputs(MODEL_SRC, f);
  fclose(f);
  size_t used = 0;
  for (int i = 0; i < PAYLOAD_FLOATS; i++)
    used += (size_t)snprintf(payload + used, sizeof payload - used, "%s(float)%.9g", i ? "," : "", g_payload[i]);
  snprintf(dflt, sizeof dflt, "%s %s", strstr(defines, "YCOLS") ? "" : "-DYCOLS=3",
           strstr(defines, "HASH") ? "" : "-DHASH=0x%016llxull");
  char dflt2[160];
  snprintf(dflt2, sizeof dflt2, dflt, (unsigned long long)fnv1a64(g_payload, sizeof g_payload));
  snprintf(cmd, sizeof cmd, "cc -shared -fPIC -O1 %s %s '-DPAYLOAD=%s' -o '%s/%s.so' '%s/%s.c' 2>'%s/cc.log'",
           dflt2, defines, payload, g_dir, name, g_dir, name, g_dir);
  int rc = system(cmd);
  if (rc != 0) printf("# '%s' failed with status %d\n", cmd, rc);
  return rc == 0;
}

/* params.bin: header fields may be overridden, the payload cut short or
 * a byte of it flipped */
typedef struct Blob {
  const char *magic;
  uint32_t version;
  uint64_t nbytes, hash;
  size_t write_bytes;
  int flip_at; /* -1: none */
} Blob;

static Blob good_blob(void) {
  return (Blob){MLCRT_PARAMS_MAGIC, 1, sizeof g_payload, fnv1a64(g_payload, sizeof g_payload), sizeof g_payload, -1};
}

static void put_u64(unsigned char *p, uint64_t v) {
  for (int i = 0; i < 8; i++) p[i] = (unsigned char)(v >> (8 * i));
}

static bool write_params(const char *path, Blob b) {
  unsigned char h[MLCRT_PARAMS_HEADER] = {0}, body[sizeof g_payload];
  memcpy(h, b.magic, 8);
  put_u64(h + 8, b.version);
  put_u64(h + 16, b.nbytes);
  put_u64(h + 24, b.hash);
  memcpy(body, g_payload, sizeof body);
  if (b.flip_at >= 0) body[b.flip_at] ^= 1;
  FILE *f = fopen(path, "wb");
  if (!f) return false;
  bool ok = fwrite(h, 1, sizeof h, f) == sizeof h && fwrite(body, 1, b.write_bytes, f) == b.write_bytes;
  return fclose(f) == 0 && ok;
}

static MlcrtTensor *input(int64_t n, int64_t cols) {
  int64_t shape[] = {n, cols};
  MlcrtTensor *t = NULL;
  if (mlcrt_tensor_create(2, shape, mlcrt_dtype(kDLFloat, 32), &t) != 0) return NULL;
  for (int64_t i = 0; i < n * cols; i++) ((float *)t->dl.data)[i] = (float)((i * 7) % 11) * 0.5f - 2.0f;
  return t;
}

/* runs m on an [n, 4] input and checks both outputs against a plain loop */
static bool run_and_check(MlcrtModel *m, int64_t n) {
  MlcrtTensor *x = input(n, 4);
  DLTensor *in[] = {&x->dl}, *out[2] = {0};
  bool ok = mlcrt_model_run(m, in, 1, out, 2) == 0;
  if (!ok) printf("# %s\n", mlcrt_last_error());
  ok = ok && out[0]->ndim == 2 && out[0]->shape[0] == n && out[0]->shape[1] == 3;
  ok = ok && out[1]->ndim == 2 && out[1]->shape[0] == n && out[1]->shape[1] == 4;
  const float *xp = x->dl.data;
  for (int64_t i = 0; ok && i < n; i++) {
    for (int j = 0; j < 3; j++) {
      float want = g_payload[B_AT + j];
      for (int k = 0; k < 4; k++) want += xp[i * 4 + k] * g_payload[j * 4 + k];
      float got = ((const float *)out[0]->data)[i * 3 + j];
      ok = ok && got > want - 1e-4f && got < want + 1e-4f;
    }
    for (int k = 0; k < 4; k++) ok = ok && ((const float *)out[1]->data)[i * 4 + k] == 2.0f * xp[i * 4 + k];
  }
  mlcrt_tensor_free(x);
  return ok;
}

static void test_model_load_and_run(void) {
  CHECK(build_model("model", ""));
  CHECK(write_params(tmp_path("params.bin"), good_blob()));
  MlcrtModel *m = NULL;
  CHECK(mlcrt_model_load(g_dir, &m) == 0);
  if (!m) {
    printf("# %s\n", mlcrt_last_error());
    return;
  }
  const MlcrtModelDesc *d = mlcrt_model_desc(m);
  CHECK_STR(d->name, "main");
  CHECK(d->n_inputs == 1 && d->n_outputs == 2 && d->n_syms == 1);
  CHECK_STR(d->outputs[1].name, "z");
  /* the batch size is bound from the input, run after run */
  CHECK(run_and_check(m, 5));
  CHECK(run_and_check(m, 1));
  CHECK(run_and_check(m, 40));
  CHECK(run_and_check(m, 0));
  mlcrt_model_free(m);
  /* the shared object named directly finds params.bin beside it */
  m = NULL;
  CHECK(mlcrt_model_load(tmp_path("model.so"), &m) == 0);
  CHECK(m && run_and_check(m, 3));
  mlcrt_model_free(m);
}

static const char *run_error(MlcrtModel *m, DLTensor *const *in, int n_in) {
  DLTensor *out[2] = {0};
  if (mlcrt_model_run(m, in, n_in, out, 2) == 0) return "(accepted)";
  if (out[0] || out[1]) return "(outputs set on failure)";
  return mlcrt_last_error();
}

static void test_model_input_checks(void) {
  MlcrtModel *m = NULL;
  CHECK(mlcrt_model_load(g_dir, &m) == 0);
  if (!m) return;
  MlcrtTensor *bad_cols = input(5, 3), *x = input(5, 4), *x13 = input(13, 4);
  DLTensor *in[] = {&bad_cols->dl, &x->dl};
  CHECK_STR(run_error(m, in, 1), "main: input 'x' (#1): expected shape (n, 4), got (5, 3)");
  CHECK_STR(run_error(m, in, 2), "main: expected 1 inputs, got 2");
  DLTensor as_int = x->dl;
  as_int.dtype = mlcrt_dtype(kDLInt, 32);
  in[0] = &as_int;
  CHECK_STR(run_error(m, in, 1), "main: input 'x' (#1): expected dtype float32, got int32");
  DLTensor misaligned = x->dl;
  misaligned.byte_offset = 4;
  misaligned.shape[0] = 4; /* still in bounds */
  in[0] = &misaligned;
  CHECK(strstr(run_error(m, in, 1), "main: input 'x' (#1): data at ") != NULL);
  CHECK(strstr(mlcrt_last_error(), "is not 64-byte aligned") != NULL);
  misaligned.shape[0] = 5;
  in[0] = NULL;
  CHECK_STR(run_error(m, in, 1), "main: input 'x' (#1): expected a tensor, got NULL");
  in[0] = &x13->dl;
  CHECK_STR(run_error(m, in, 1), "main: 13 is unlucky");
  DLTensor *out[1];
  in[0] = &x->dl;
  CHECK(mlcrt_model_run(m, in, 1, out, 1) != 0);
  CHECK_STR(mlcrt_last_error(), "main: expected 2 outputs, got room for 1");
  CHECK(run_and_check(m, 5)); /* refusals leave the model usable */
  mlcrt_tensor_free(bad_cols);
  mlcrt_tensor_free(x);
  mlcrt_tensor_free(x13);
  mlcrt_model_free(m);
}

/* loads g_dir with params.bin written from b; returns the message */
static const char *load_error(Blob b) {
  static char msg[600];
  MlcrtModel *m = (MlcrtModel *)&m;
  if (!write_params(tmp_path("params.bin"), b)) return "(cannot write params.bin)";
  int rc = mlcrt_model_load(g_dir, &m);
  snprintf(msg, sizeof msg, "%s", rc == 0 ? "(accepted)" : m ? "(out set on failure)" : mlcrt_last_error());
  mlcrt_model_free(rc == 0 ? m : NULL);
  /* the message without the scratch directory in front */
  size_t nd = strlen(g_dir);
  if (strncmp(msg, g_dir, nd) == 0) memmove(msg, msg + nd + 1, strlen(msg + nd + 1) + 1);
  return msg;
}

static void test_params_checks(void) {
  Blob b = good_blob();
  CHECK_STR(load_error(b), "(accepted)");
  b.magic = "MLCPARAX";
  CHECK_STR(load_error(b), "params.bin: not an mlcc params file (bad magic)");
  b = good_blob();
  b.version = 2;
  CHECK_STR(load_error(b), "params.bin: params format version 2 (reserved 0), this runtime reads version 1");
  b = good_blob();
  b.nbytes = 64;
  b.write_bytes = 64;
  char want[300];
  unsigned long long h = (unsigned long long)fnv1a64(g_payload, sizeof g_payload);
  snprintf(want, sizeof want, "params.bin: weights of another build: 64 bytes with hash %016llx, model 'main' "
           "expects 128 bytes with hash %016llx", h, h);
  CHECK_STR(load_error(b), want);
  b = good_blob();
  b.hash ^= 1;
  snprintf(want, sizeof want, "params.bin: weights of another build: 128 bytes with hash %016llx, model 'main' "
           "expects 128 bytes with hash %016llx", h ^ 1, h);
  CHECK_STR(load_error(b), want);
  b = good_blob();
  b.write_bytes = 100;
  CHECK_STR(load_error(b), "params.bin: file is 132 bytes, its header says 160 (truncated or extended)");
  b = good_blob();
  b.flip_at = 70;
  CHECK(strncmp(load_error(b), "params.bin: the weights are corrupt (payload hash ", 50) == 0);
  b.write_bytes = 0;
  b.flip_at = -1;
  b.magic = "MLC";
  FILE *f = fopen(tmp_path("params.bin"), "wb");
  if (f) fclose(f);
  MlcrtModel *m = NULL;
  CHECK(mlcrt_model_load(g_dir, &m) != 0);
  CHECK(strstr(mlcrt_last_error(), "params.bin: 0 bytes, too short for a params header") != NULL);
  remove(tmp_path("params.bin"));
  CHECK(mlcrt_model_load(g_dir, &m) != 0);
  snprintf(want, sizeof want, "cannot open weights '%s': No such file or directory", tmp_path("params.bin"));
  CHECK_STR(mlcrt_last_error(), want);
  CHECK(write_params(tmp_path("params.bin"), good_blob()));
}

static void test_embedded_params(void) {
  char def[128];
  snprintf(def, sizeof def, "-DEMBED");
  CHECK(build_model("embedded", def));
  remove(tmp_path("params.bin")); /* not needed, not read */
  MlcrtModel *m = NULL;
  CHECK(mlcrt_model_load(tmp_path("embedded.so"), &m) == 0);
  if (!m) printf("# %s\n", mlcrt_last_error());
  CHECK(m && mlcrt_model_desc(m)->embedded_params != NULL);
  CHECK(m && run_and_check(m, 6));
  mlcrt_model_free(m);
  /* an embedded payload that does not hash to the descriptor's hash */
  CHECK(build_model("embedded_bad", "-DEMBED -DHASH=0x1234ull"));
  m = NULL;
  CHECK(mlcrt_model_load(tmp_path("embedded_bad.so"), &m) != 0 && !m);
  CHECK(strncmp(mlcrt_last_error(), "model 'main': the embedded weights are corrupt (hash ", 53) == 0);
  CHECK(write_params(tmp_path("params.bin"), good_blob()));
}

static void test_model_refusals(void) {
  char want[700];
  MlcrtModel *m = NULL;
  CHECK(build_model("nodesc", "-DNO_DESCRIPTOR"));
  CHECK(mlcrt_model_load(tmp_path("nodesc.so"), &m) != 0 && !m);
  snprintf(want, sizeof want, "'%s' exports no 'mlcrt_model' (not an mlcc model; `mlcc build MODULE -o DIR` makes one)",
           tmp_path("nodesc.so"));
  CHECK_STR(mlcrt_last_error(), want);
  /* the generated code returning a tensor the descriptor does not describe */
  CHECK(build_model("badout", "-DYCOLS=4"));
  CHECK(mlcrt_model_load(tmp_path("badout.so"), &m) == 0);
  if (m) {
    MlcrtTensor *x = input(5, 4);
    DLTensor *in[] = {&x->dl};
    CHECK_STR(run_error(m, in, 1), "main: output 'y' (#1): the model produced (5, 4), expected shape (n, 3)");
    mlcrt_tensor_free(x);
    mlcrt_model_free(m);
  }
  m = NULL;
  CHECK(mlcrt_model_load(tmp_path("absent"), &m) != 0 && !m);
  snprintf(want, sizeof want, "cannot load model '%s': ", tmp_path("absent"));
  CHECK(strncmp(mlcrt_last_error(), want, strlen(want)) == 0);
  CHECK(mlcrt_model_load(NULL, &m) != 0);
  CHECK_STR(mlcrt_last_error(), "model_load: path is NULL");
}

/* ---- descriptors linked into the program ----------------------------------------- */

static int g_destroyed;

static int32_t prog_create(const void *params, const MlcrtEnv *env, void **state) {
  *state = (void *)params;
  return 0;
}

/* out = in + 1, for an [n] float32 */
static int32_t prog_run(void *state, void *const *in, const int64_t *syms, DLTensor **out, const MlcrtEnv *env) {
  static float buf[64];
  static int64_t shape[1];
  static DLTensor t;
  if (syms[0] > 64) {
    env->set_error("too long");
    return 1;
  }
  for (int64_t i = 0; i < syms[0]; i++) buf[i] = ((const float *)in[0])[i] + 1.0f;
  shape[0] = syms[0];
  t = (DLTensor){buf, {kDLCPU, 0}, 1, {kDLFloat, 32, 1}, shape, NULL, 0};
  out[0] = &t;
  return 0;
}

static void prog_destroy(void *state, const MlcrtEnv *env) { g_destroyed++; }

static const int64_t g_dims_n[] = {-1};
static const MlcrtParamDesc g_vec[] = {{"a", 1, {kDLFloat, 32, 1}, 1, g_dims_n, 0},
                                       {"a", 1, {kDLFloat, 32, 1}, 1, g_dims_n, 0}};
static const char *const g_syms[] = {"n", "m"};

static MlcrtModelDesc prog_desc(void) {
  return (MlcrtModelDesc){MLCRT_MODEL_ABI_VERSION, "inc", 1, g_vec, 1, g_vec, 1, g_syms, 0, fnv1a64("", 0), NULL,
                          prog_create, prog_run, prog_destroy, 0, NULL};
}

static const char *create_error(MlcrtModelDesc d) {
  MlcrtModel *m = NULL;
  if (mlcrt_model_create(&d, NULL, &m) == 0) {
    mlcrt_model_free(m);
    return "(accepted)";
  }
  return m ? "(out set on failure)" : mlcrt_last_error();
}

static void test_model_from_desc(void) {
  MlcrtModelDesc d = prog_desc();
  MlcrtModel *m = NULL;
  CHECK(mlcrt_model_create(&d, NULL, &m) == 0);
  if (m) {
    int64_t n = 7;
    MlcrtTensor *x = NULL;
    CHECK(mlcrt_tensor_create(1, &n, mlcrt_dtype(kDLFloat, 32), &x) == 0);
    for (int i = 0; i < 7; i++) ((float *)x->dl.data)[i] = (float)i;
    DLTensor *in[] = {&x->dl}, *out[1];
    CHECK(mlcrt_model_run(m, in, 1, out, 1) == 0);
    CHECK(out[0]->shape[0] == 7 && ((float *)out[0]->data)[6] == 7.0f);
    mlcrt_tensor_free(x);
    g_destroyed = 0;
    mlcrt_model_free(m);
    CHECK(g_destroyed == 1);
  }
  CHECK_STR(create_error(d), "(accepted)");
  d.abi_version = 7;
  CHECK_STR(create_error(d), "model: ABI version 7, this runtime implements 1 to 2");
  /* call sites (ABI 2): counted, each fully described; version 1 has none */
  d = prog_desc();
  d.n_sites = 2;
  CHECK_STR(create_error(d), "model 'inc': bad call site list (2)");
  static const MlcrtCallSite sites[] = {{"inc", "y", "add", MLCRT_SITE_GENERATED, 7, 56},
                                        {NULL, "y", "add", MLCRT_SITE_GENERATED, 7, 56},
                                        {"inc", "y", "add", 9, 7, 56}};
  d.sites = sites;
  CHECK_STR(create_error(d), "model 'inc': call site 1 is malformed");
  d.sites = sites + 1;
  d.n_sites = 1;
  CHECK_STR(create_error(d), "model 'inc': call site 0 is malformed");
  d.sites = sites + 2;
  CHECK_STR(create_error(d), "model 'inc': call site 0 is malformed");
  d.abi_version = 1; /* sites are not read */
  CHECK_STR(create_error(d), "(accepted)");
  d = prog_desc();
  d.n_inputs = 2;
  CHECK_STR(create_error(d), "model 'inc': two inputs are named 'a'");
  d = prog_desc();
  d.n_syms = 2;
  CHECK_STR(create_error(d), "model 'inc': symbolic size 'm' is in no input's shape");
  d = prog_desc();
  d.run = NULL;
  CHECK_STR(create_error(d), "model 'inc' has no create or run function");
  d = prog_desc();
  d.n_outputs = -1;
  CHECK_STR(create_error(d), "model 'inc': bad output list (-1)");
  d = prog_desc();
  d.params_nbytes = 64;
  CHECK_STR(create_error(d), "model 'inc': its 64 bytes of weights are not embedded; give the params.bin path");
  d = prog_desc();
  static const int64_t far[] = {-3};
  static const MlcrtParamDesc bad_dim[] = {{"a", 1, {kDLFloat, 32, 1}, 1, far, 0}};
  d.outputs = bad_dim;
  CHECK_STR(create_error(d), "model 'inc': output 'a' dim 0 names symbolic size 2 of 1");
  CHECK(mlcrt_model_create(NULL, NULL, &m) != 0 && !m);
  CHECK_STR(mlcrt_last_error(), "model: descriptor is NULL");
}

int main(void) {
  const char *tmp = getenv("TMPDIR");
  snprintf(g_dir, sizeof g_dir, "%s/mlcrt-model.XXXXXX", tmp && *tmp ? tmp : "/tmp");
  if (!mkdtemp(g_dir)) {
    printf("FAIL test_runtime_model: cannot make a scratch directory\n");
    return 1;
  }
  make_payload();
  RUN(test_model_load_and_run);
  RUN(test_model_input_checks);
  RUN(test_params_checks);
  RUN(test_embedded_params);
  RUN(test_model_refusals);
  RUN(test_model_from_desc);
  char cmd[600];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_dir);
  if (system(cmd) != 0) printf("# could not remove %s\n", g_dir);
  return CHECK_DONE();
}
