/* test_model_build.c - models: graph functions in the graph pipeline's
 * output form (alloc ops, prim funcs called in destination-passing style,
 * extern calls), built into a directory with mlc_build_model, loaded with
 * dlopen and run through the `mlcrt_model` descriptor's create/run/destroy
 * with the runtime's environment.
 *
 * Oracles: the reference interpreter running the same prim funcs in the
 * graph's order, and plain C for the extern call and the weights layout
 * (offsets, FNV-1a written out here).  Covered: planned storage, a symbolic
 * batch run at n = 1, 3, 16 from one build, constants from params.bin and
 * embedded, tuple outputs (an input and a constant among them), an extern
 * call, the runtime's own loader, model.h compiled into a program, modules
 * of op calls after the real graph pipeline (one whose kernels are named as
 * libm's functions), and bindings the executor refuses. */
#include "build_util.h"
#include "check.h"
#include "mlcc/interp.h"
#include "mlcc/transform.h"

#include <dlfcn.h>
#include <math.h>
#include <sys/stat.h>

static MlcCtx *ctx;
static char tmpdir[4096];

static uint64_t rng = 0x243f6a8885a308d3ull;
static float frand(void) {
  rng = rng * 6364136223846793005ull + 1442695040888963407ull;
  return (float)((double)(rng >> 11) / 9007199254740992.0 * 2.0 - 1.0);
}

/* ---- reading modules -------------------------------------------------------------- */

static const MlcModule *read_text(const char *text) { return bu_read_text(ctx, "model.py", text); }

/* text read and run through the graph pipeline up to memory planning */
static const MlcModule *planned(const char *text) {
  const MlcModule *m = read_text(text);
  mlc_clear_error(ctx);
  m = m ? mlc_graph_pipeline(ctx, m, NULL, MLC_PASS_PLAN_MEMORY, NULL, NULL, NULL, NULL) : NULL;
  if (!m) bu_print_error(ctx, "pipeline");
  return m;
}

static const MlcPrimFunc *prim(const MlcModule *m, const char *name) {
  const MlcFunc *f = mlc_module_find(m, mlc_intern(ctx, name));
  return f && f->kind == MLC_FUNC_PRIM ? f->prim : NULL;
}

/* ---- building and loading ------------------------------------------------------------ */

typedef struct Loaded {
  void *so;
  const MlcrtModelDesc *desc;
  void *payload;   /* the weights, read from params.bin (aligned) */
  void *state;
  char dir[4200];
} Loaded;

/* params.bin checked against the descriptor and an FNV-1a written here */
static uint64_t fnv1a(const uint8_t *p, size_t n) {
  uint64_t h = 14695981039346656037ull;
  while (n--) h = (h ^ *p++) * 1099511628211ull;
  return h;
}

static uint64_t le64(const uint8_t *p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; i--) v = v << 8 | p[i];
  return v;
}

static bool read_params(Loaded *l) {
  char path[8300];
  snprintf(path, sizeof path, "%s/params.bin", l->dir);
  FILE *f = fopen(path, "rb");
  if (!f) return false;
  uint8_t head[32];
  bool ok = fread(head, 1, 32, f) == 32 && !memcmp(head, "MLCPARAM", 8) && le64(head + 8) == 1 &&
            le64(head + 16) == l->desc->params_nbytes && le64(head + 24) == l->desc->params_hash;
  size_t n = (size_t)l->desc->params_nbytes;
  if (ok && posix_memalign(&l->payload, 64, n ? n : 64) != 0) ok = false;
  if (ok) ok = fread(l->payload, 1, n, f) == n && fgetc(f) == EOF && fnv1a(l->payload, n) == l->desc->params_hash;
  fclose(f);
  return ok;
}

/* build m into a fresh directory, dlopen model.so, create the state */
static bool load(const MlcModule *m, bool embed, Loaded *l) {
  static int count;
  memset(l, 0, sizeof *l);
  snprintf(l->dir, sizeof l->dir, "%s/m%d", tmpdir, count++);
  MlcModelOptions mo = {.embed_params = embed};
  mlc_clear_error(ctx);
  if (!m || !mlc_build_model(ctx, m, l->dir, NULL, &mo)) {
    if (m) bu_print_error(ctx, "build");
    return false;
  }
  char so[8300];
  snprintf(so, sizeof so, "%s/model.so", l->dir);
  l->so = dlopen(so, RTLD_NOW | RTLD_LOCAL);
  if (!l->so) return printf("    dlopen: %s\n", dlerror()), false;
  l->desc = dlsym(l->so, MLCRT_MODEL_SYMBOL);
  if (!l->desc || l->desc->abi_version != MLCRT_MODEL_ABI_VERSION || !dlsym(l->so, MLCRT_MODULE_SYMBOL)) return false;
  const void *params;
  if (embed) {
    params = l->desc->embedded_params;
    if (!params || ((uintptr_t)params & 63) || fnv1a(params, (size_t)l->desc->params_nbytes) != l->desc->params_hash)
      return printf("    embedded weights are wrong\n"), false;
  } else {
    if (l->desc->embedded_params || !read_params(l)) return printf("    params.bin is wrong\n"), false;
    params = l->payload;
  }
  if (l->desc->create(params, mlcrt_env(), &l->state) != 0)
    return printf("    create: %s\n", mlcrt_last_error()), false;
  return true;
}

static void unload(Loaded *l) {
  if (l->state) l->desc->destroy(l->state, mlcrt_env());
  if (l->so) dlclose(l->so);
  free(l->payload);
  bu_remove_dir(l->dir);
}

/* run with the syms bound from the inputs' shapes as the descriptor says */
static int run_model(Loaded *l, void *const *inputs, const int64_t *const *shapes, DLTensor **outs) {
  int64_t syms[8] = {0};
  for (int i = 0; i < l->desc->n_inputs; i++)
    for (int d = 0; d < l->desc->inputs[i].ndim; d++)
      if (l->desc->inputs[i].dims[d] < 0) syms[-(l->desc->inputs[i].dims[d] + 1)] = shapes[i][d];
  int rc = l->desc->run(l->state, inputs, syms, outs, mlcrt_env());
  if (rc) printf("    run: %s\n", mlcrt_last_error());
  return rc;
}

/* interpret prim func `name` on float buffers of the given 2-D shapes */
static bool interp(const MlcModule *m, const char *name, int n, float **data, const int64_t (*shape)[2]) {
  MlcInterpArg args[8];
  for (int i = 0; i < n; i++) args[i] = (MlcInterpArg){.is_buffer = true, .data = data[i], .ndim = 2, .shape = shape[i]};
  mlc_clear_error(ctx);
  bool ok = mlc_interp_run(ctx, prim(m, name), args, n);
  if (!ok) bu_print_error(ctx, name);
  return ok;
}

static bool close_to(const float *a, const float *b, size_t n, double atol) {
  for (size_t i = 0; i < n; i++)
    if (!(fabs((double)a[i] - (double)b[i]) <= atol + 1e-5 * fabs((double)b[i]))) {
      printf("    element %zu: %g vs %g\n", i, a[i], b[i]);
      return false;
    }
  return true;
}

static bool shape_is(const DLTensor *t, int ndim, int64_t d0, int64_t d1) {
  return t && t->ndim == ndim && t->dtype.code == kDLFloat && t->dtype.bits == 32 && (ndim < 1 || t->shape[0] == d0) &&
         (ndim < 2 || t->shape[1] == d1) && ((uintptr_t)t->data & 63) == 0;
}

static void fill(float *p, size_t n) {
  for (size_t i = 0; i < n; i++) p[i] = frand();
}

/* ---- the modules ---------------------------------------------------------------------- */

#define PRIM_STATIC                                                                                   \
  "    @T.prim_func\n"                                                                                \
  "    def add(A: T.Buffer((4, 8), \"float32\"), B: T.Buffer((4, 8), \"float32\"), C: T.Buffer((4, 8), \"float32\")):\n" \
  "        for i, j in T.grid(4, 8):\n"                                                               \
  "            with T.block(\"C\"):\n"                                                                \
  "                vi, vj = T.axis.remap(\"SS\", [i, j])\n"                                           \
  "                C[vi, vj] = A[vi, vj] + B[vi, vj]\n\n"                                             \
  "    @T.prim_func\n"                                                                                \
  "    def relu(A: T.Buffer((4, 8), \"float32\"), B: T.Buffer((4, 8), \"float32\")):\n"             \
  "        for i, j in T.grid(4, 8):\n"                                                               \
  "            with T.block(\"B\"):\n"                                                                \
  "                vi, vj = T.axis.remap(\"SS\", [i, j])\n"                                           \
  "                B[vi, vj] = T.max(A[vi, vj], T.float32(0))\n\n"

/* relu(x + y) + x through two planned tensors and a run-time output */
static const char STATIC_MODEL[] =
    "@I.ir_module\nclass Module:\n" PRIM_STATIC
    "    @R.function\n"
    "    def main(x: R.Tensor((4, 8), \"float32\"), y: R.Tensor((4, 8), \"float32\")) -> R.Tensor((4, 8), \"float32\"):\n"
    "        cls = Module\n"
    "        storage = R.memory.alloc_storage(R.shape([256]), R.prim_value(0), R.str(\"global\"), R.dtype(\"uint8\"))\n"
    "        alloc = R.memory.alloc_tensor(storage, R.prim_value(0), R.shape([4, 8]), R.dtype(\"float32\"))\n"
    "        _ = cls.add(x, y, alloc)\n"
    "        alloc1 = R.memory.alloc_tensor(storage, R.prim_value(128), R.shape([4, 8]), R.dtype(\"float32\"))\n"
    "        _ = cls.relu(alloc, alloc1)\n"
    "        alloc2 = R.builtin.alloc_tensor(R.shape([4, 8]), R.dtype(\"float32\"), R.prim_value(0))\n"
    "        _ = cls.add(alloc1, x, alloc2)\n"
    "        return alloc2\n";

static void test_static_planned(void) {
  const MlcModule *m = read_text(STATIC_MODEL);
  Loaded l = {0};
  CHECK(m && load(m, false, &l));
  if (check__failed_now) return unload(&l);
  CHECK(l.desc->n_inputs == 2 && l.desc->n_outputs == 1 && l.desc->n_syms == 0 && l.desc->params_nbytes == 0);
  CHECK_STR(l.desc->inputs[1].name, "y");
  CHECK_STR(l.desc->outputs[0].name, "output_0");
  CHECK_STR(l.desc->name, "main");
  static const int64_t sh[3][2] = {{4, 8}, {4, 8}, {4, 8}};
  for (int rep = 0; rep < 2; rep++) { /* a second run reuses the state */
    float x[32], y[32], t[32], u[32], want[32];
    fill(x, 32);
    fill(y, 32);
    CHECK(interp(m, "add", 3, (float *[]){x, y, t}, sh) && interp(m, "relu", 2, (float *[]){t, u}, sh) &&
          interp(m, "add", 3, (float *[]){u, x, want}, sh));
    DLTensor *out[1] = {NULL};
    CHECK(run_model(&l, (void *[]){x, y}, (const int64_t *const[]){sh[0], sh[1]}, out) == 0);
    CHECK(shape_is(out[0], 2, 4, 8) && close_to(out[0]->data, want, 32, 0));
  }
  unload(&l);
}

/* x [n, 16] -> relu(x w^T) with the weights w [8, 16] a constant */
static const char DYN_PRIMS[] =
    "    @T.prim_func\n"
    "    def linear(x: T.handle, w: T.Buffer((8, 16), \"float32\"), y: T.handle):\n"
    "        n = T.int64()\n"
    "        X = T.match_buffer(x, (n, 16), \"float32\")\n"
    "        Y = T.match_buffer(y, (n, 8), \"float32\")\n"
    "        for i, j, k in T.grid(n, 8, 16):\n"
    "            with T.block(\"Y\"):\n"
    "                vi, vj, vk = T.axis.remap(\"SSR\", [i, j, k])\n"
    "                with T.init():\n"
    "                    Y[vi, vj] = T.float32(0)\n"
    "                Y[vi, vj] = Y[vi, vj] + X[vi, vk] * w[vj, vk]\n\n"
    "    @T.prim_func\n"
    "    def relu(a: T.handle, b: T.handle):\n"
    "        m = T.int64()\n"
    "        A = T.match_buffer(a, (m, 8), \"float32\")\n"
    "        B = T.match_buffer(b, (m, 8), \"float32\")\n"
    "        for i, j in T.grid(m, 8):\n"
    "            with T.block(\"B\"):\n"
    "                vi, vj = T.axis.remap(\"SS\", [i, j])\n"
    "                B[vi, vj] = T.max(A[vi, vj], T.float32(0))\n\n";

static float weight(int i, int j) { return (float)((i * 16 + j) % 7 - 3) * 0.25f; }

/* "[[..], ..]" of the weights, exact in decimal */
static void weights_text(MlcStrBuf *sb) {
  mlc_sb_puts(sb, "[");
  for (int i = 0; i < 8; i++) {
    mlc_sb_puts(sb, i ? ", [" : "[");
    for (int j = 0; j < 16; j++) mlc_sb_printf(sb, "%s%g", j ? ", " : "", weight(i, j));
    mlc_sb_puts(sb, "]");
  }
  mlc_sb_puts(sb, "]");
}

static const MlcModule *dyn_module(void) {
  MlcStrBuf sb = {0};
  mlc_sb_printf(&sb, "@I.ir_module\nclass Module:\n%s", DYN_PRIMS);
  mlc_sb_puts(&sb, "    @R.function\n"
                   "    def main(x: R.Tensor((\"n\", 16), \"float32\")) -> R.Tensor((\"n\", 8), \"float32\"):\n"
                   "        n = T.int64()\n"
                   "        cls = Module\n"
                   "        w = R.const(");
  weights_text(&sb);
  mlc_sb_puts(&sb, ", \"float32\")\n"
                   "        alloc = R.builtin.alloc_tensor(R.shape([n, 8]), R.dtype(\"float32\"), R.prim_value(0))\n"
                   "        _ = cls.linear(x, w, alloc)\n"
                   "        alloc1 = R.builtin.alloc_tensor(R.shape([n, 8]), R.dtype(\"float32\"), R.prim_value(0))\n"
                   "        _ = cls.relu(alloc, alloc1)\n"
                   "        return alloc1\n");
  const MlcModule *m = read_text(mlc_sb_cstr(&sb));
  mlc_vec_free(&sb);
  return m;
}

static void check_dyn(bool embed) {
  const MlcModule *m = dyn_module();
  Loaded l = {0};
  CHECK(m && load(m, embed, &l));
  if (check__failed_now) return unload(&l);
  CHECK(l.desc->n_syms == 1 && l.desc->inputs[0].dims[0] == -1 && l.desc->outputs[0].dims[0] == -1 &&
        l.desc->outputs[0].dims[1] == 8);
  CHECK(l.desc->params_nbytes == 512); /* 8 * 16 floats, a multiple of 64 */
  CHECK_STR(l.desc->sym_names[0], "n");
  float w[128];
  for (int i = 0; i < 128; i++) w[i] = weight(i / 16, i % 16);
  static const int ns[] = {1, 3, 16};
  for (int k = 0; k < 3 && !check__failed_now; k++) {
    int64_t n = ns[k];
    float *x = malloc(sizeof(float) * 16 * n), *t = malloc(sizeof(float) * 8 * n), *want = malloc(sizeof(float) * 8 * n);
    fill(x, (size_t)(16 * n));
    const int64_t shx[3][2] = {{n, 16}, {8, 16}, {n, 8}};
    CHECK(interp(m, "linear", 3, (float *[]){x, w, t}, shx) &&
          interp(m, "relu", 2, (float *[]){t, want}, (const int64_t[][2]){{n, 8}, {n, 8}}));
    DLTensor *out[1] = {NULL};
    CHECK(run_model(&l, (void *[]){x}, (const int64_t *const[]){shx[0]}, out) == 0);
    CHECK(shape_is(out[0], 2, n, 8) && close_to(out[0]->data, want, (size_t)(8 * n), 1e-4));
    free(x);
    free(t);
    free(want);
  }
  unload(&l);
}

static void test_symbolic_batch_params_file(void) { check_dyn(false); }
static void test_symbolic_batch_embedded(void) { check_dyn(true); }

/* "[[..], ..]" of a rows x cols matrix of v(i, j) */
static void matrix_text(MlcStrBuf *sb, int rows, int cols, float (*v)(int, int)) {
  mlc_sb_puts(sb, "[");
  for (int i = 0; i < rows; i++) {
    mlc_sb_puts(sb, i ? ", [" : "[");
    for (int j = 0; j < cols; j++) mlc_sb_printf(sb, "%s%g", j ? ", " : "", v(i, j));
    mlc_sb_puts(sb, "]");
  }
  mlc_sb_puts(sb, "]");
}

static float cval(int i, int j) { return (float)(i * 8 + j) * 0.5f - 3.0f; }

/* a tuple result holding a run-time tensor, one reached through get_item
 * and an alias (twice), an input and a constant */
static void test_tuple_output(void) {
  MlcStrBuf sb = {0};
  mlc_sb_puts(&sb, "@I.ir_module\nclass Module:\n" PRIM_STATIC
                   "    @R.function\n"
                   "    def main(x: R.Tensor((4, 8), \"float32\")):\n"
                   "        cls = Module\n"
                   "        c = R.const(");
  matrix_text(&sb, 4, 8, cval);
  mlc_sb_puts(&sb, ", \"float32\")\n"
                   "        a = R.builtin.alloc_tensor(R.shape([4, 8]), R.dtype(\"float32\"), R.prim_value(0))\n"
                   "        _ = cls.add(x, c, a)\n"
                   "        b = R.builtin.alloc_tensor(R.shape([4, 8]), R.dtype(\"float32\"), R.prim_value(0))\n"
                   "        _ = cls.relu(a, b)\n"
                   "        t = (a, b)\n"
                   "        u = t[1]\n"
                   "        v = u\n"
                   "        return (t[0], v, x, c, v)\n");
  const MlcModule *m = read_text(mlc_sb_cstr(&sb));
  mlc_vec_free(&sb);
  Loaded l = {0};
  CHECK(m && load(m, false, &l));
  if (check__failed_now) return unload(&l);
  CHECK(l.desc->n_outputs == 5 && l.desc->n_inputs == 1);
  CHECK_STR(l.desc->outputs[4].name, "output_4");
  float c[32];
  for (int i = 0; i < 32; i++) c[i] = cval(i / 8, i % 8);
  static const int64_t sh[3][2] = {{4, 8}, {4, 8}, {4, 8}};
  for (int rep = 0; rep < 2 && !check__failed_now; rep++) {
    float x[32], a[32], b[32];
    fill(x, 32);
    CHECK(interp(m, "add", 3, (float *[]){x, c, a}, sh) && interp(m, "relu", 2, (float *[]){a, b}, sh));
    DLTensor *out[5] = {NULL};
    CHECK(run_model(&l, (void *[]){x}, (const int64_t *const[]){sh[0]}, out) == 0);
    for (int i = 0; i < 5; i++) CHECK(shape_is(out[i], 2, 4, 8));
    if (check__failed_now) break;
    CHECK(close_to(out[0]->data, a, 32, 0) && close_to(out[1]->data, b, 32, 0));
    CHECK(close_to(out[2]->data, x, 32, 0) && out[2]->data != (void *)x); /* the model owns a copy */
    CHECK(close_to(out[3]->data, c, 32, 0) && out[4]->data == out[1]->data);
  }
  unload(&l);
}

/* relu(x w^T + b) with env.linear: x [n, 16], the weights constants */
static float bval(int i, int j) { return (float)(j % 3) - 1.0f + (float)i; }

static void test_extern_call(void) {
  MlcStrBuf sb = {0};
  mlc_sb_printf(&sb, "@I.ir_module\nclass Module:\n%s", DYN_PRIMS);
  mlc_sb_puts(&sb, "    @R.function\n"
                   "    def main(x: R.Tensor((\"n\", 16), \"float32\")) -> R.Tensor((\"n\", 8), \"float32\"):\n"
                   "        n = T.int64()\n"
                   "        cls = Module\n"
                   "        w = R.const(");
  weights_text(&sb);
  mlc_sb_puts(&sb, ", \"float32\")\n        b = R.const([");
  for (int j = 0; j < 8; j++) mlc_sb_printf(&sb, "%s%g", j ? ", " : "", bval(0, j));
  mlc_sb_puts(&sb, "], \"float32\")\n");
  const char *tail =
      "        alloc = R.builtin.alloc_tensor(R.shape([n, 8]), R.dtype(\"float32\"), R.prim_value(0))\n"
      "        _ = R.call_packed(\"env.linear\", x, w, b, alloc, sinfo_args=R.Object)\n"
      "        alloc1 = R.builtin.alloc_tensor(R.shape([n, 8]), R.dtype(\"float32\"), R.prim_value(0))\n"
      "        _ = cls.relu(alloc, alloc1)\n"
      "        return alloc1\n";
  mlc_sb_puts(&sb, tail);
  const MlcModule *m = read_text(mlc_sb_cstr(&sb));
  mlc_vec_free(&sb);
  Loaded l = {0};
  CHECK(m && load(m, false, &l));
  if (check__failed_now) return unload(&l);
  for (int64_t n = 2; n <= 5 && !check__failed_now; n += 3) {
    float x[5 * 16], want[5 * 8];
    fill(x, (size_t)(16 * n));
    for (int i = 0; i < n; i++)
      for (int j = 0; j < 8; j++) {
        double acc = bval(0, j);
        for (int k = 0; k < 16; k++) acc += (double)x[i * 16 + k] * weight(j, k);
        want[i * 8 + j] = acc > 0 ? (float)acc : 0.0f;
      }
    DLTensor *out[1] = {NULL};
    CHECK(run_model(&l, (void *[]){x}, (const int64_t *const[]){(int64_t[]){n, 16}}, out) == 0);
    CHECK(shape_is(out[0], 2, n, 8) && close_to(out[0]->data, want, (size_t)(8 * n), 1e-4));
  }
  unload(&l);
}

/* ---- the weights layout ------------------------------------------------------------------ */

static void test_params_layout(void) {
  const MlcModule *m = read_text("@I.ir_module\nclass Module:\n"
                                 "    @R.function\n"
                                 "    def main(x: R.Tensor((3,), \"float32\")):\n"
                                 "        a = R.const([1.5, 2.5, -1.0], \"float32\")\n"
                                 "        b = R.const([[7, -2]], \"int64\")\n"
                                 "        return (a, b, a)\n");
  void *payload = NULL;
  size_t n = 0;
  CHECK(m && mlc_model_params(ctx, m, &payload, &n));
  CHECK(n == 128); /* a at 0 (12 bytes), b at 64 (16 bytes), a once */
  if (check__failed_now) return free(payload);
  uint8_t want[128] = {0};
  float a[3] = {1.5f, 2.5f, -1.0f};
  int64_t b[2] = {7, -2};
  memcpy(want, a, sizeof a);
  memcpy(want + 64, b, sizeof b);
  CHECK(memcmp(payload, want, 128) == 0);
  free(payload);
  /* the descriptor's hash is that of the payload */
  Loaded l = {0};
  CHECK(load(m, false, &l) && l.desc->params_nbytes == 128 && l.desc->params_hash == fnv1a(want, 128));
  if (!check__failed_now) {
    DLTensor *out[3] = {NULL};
    float x[3] = {0};
    CHECK(run_model(&l, (void *[]){x}, (const int64_t *const[]){(int64_t[]){3}}, out) == 0);
    CHECK(out[0] && out[1] && out[1]->dtype.code == kDLInt && out[1]->ndim == 2 && out[1]->shape[1] == 2 &&
          out[2] && out[2]->data == out[0]->data && ((int64_t *)out[1]->data)[1] == -2);
  }
  unload(&l);
}

/* ---- errors ------------------------------------------------------------------------------ */

/* codegen of the module's model refused with msg at line */
static void expect_error(const char *text, const char *entry, const char *msg, int line) {
  const MlcModule *m = read_text(text);
  CHECK(m != NULL);
  if (!m) return;
  MlcStrBuf sb = {0};
  MlcModelOptions mo = {.entry = entry};
  mlc_clear_error(ctx);
  CHECK(!mlc_codegen_model_c(ctx, m, &mo, &sb));
  if (!strstr(mlc_error_msg(ctx), msg)) printf("    got: %s\n", mlc_error_msg(ctx));
  CHECK(strstr(mlc_error_msg(ctx), msg) != NULL);
  if (mlc_error_loc(ctx).line != line) printf("    %s: at line %d\n", msg, mlc_error_loc(ctx).line);
  CHECK(mlc_error_loc(ctx).line == line);
  mlc_vec_free(&sb);
}

#define ERR_HEAD                                                                          \
  "@I.ir_module\nclass Module:\n" PRIM_STATIC                                             \
  "    @R.function\n"                                                                     \
  "    def main(x: R.Tensor((4, 8), \"float32\"), y: R.Tensor((8, 4), \"float32\")):\n" \
  "        cls = Module\n"
#define ERR_LINE 20 /* the first line after ERR_HEAD */

static void test_errors(void) {
  expect_error(ERR_HEAD "        lv = R.add(x, x)\n        return lv\n", NULL, "unsupported binding 'lv': R.add", ERR_LINE);
  expect_error(ERR_HEAD "        lv = R.call_tir(cls.relu, (x,), out_sinfo=R.Tensor((4, 8), \"float32\"))\n"
                        "        return lv\n",
               NULL, "unsupported binding 'lv': R.call_tir", ERR_LINE);
  expect_error(ERR_HEAD "        a = R.builtin.alloc_tensor(R.shape([4, 8]), R.dtype(\"float32\"), R.prim_value(0))\n"
                        "        _ = cls.add(x, y, a)\n        return a\n",
               NULL, "binding '_': dimension 0 of argument 2 of 'add' is 8; 'B' takes 4", ERR_LINE + 1);
  expect_error(ERR_HEAD "        a = R.builtin.alloc_tensor(R.shape([4, 8]), R.dtype(\"int32\"), R.prim_value(0))\n"
                        "        _ = cls.relu(x, a)\n        return a\n",
               NULL, "argument 2 of 'relu' is a rank-2 int32 tensor; 'B' takes a rank-2 float32 buffer", ERR_LINE + 1);
  expect_error(ERR_HEAD "        s = R.memory.alloc_storage(R.shape([128]), R.prim_value(0), R.str(\"global\"), R.dtype(\"uint8\"))\n"
                        "        a = R.memory.alloc_tensor(s, R.prim_value(64), R.shape([4, 8]), R.dtype(\"float32\"))\n"
                        "        return a\n",
               NULL, "binding 'a': bytes [64, 192) are outside the storage's 128", ERR_LINE + 1);
  expect_error(ERR_HEAD "        _ = cls.relu(x)\n        return x\n", NULL, "'relu' takes 2 arguments, got 1", ERR_LINE);
  expect_error(ERR_HEAD "        return x\n", "nope", "no graph function 'nope'", 0);
  const MlcModule *m = read_text(ERR_HEAD "        return x\n");
  MlcStrBuf sb = {0};
  MlcModelOptions mo = {.prefix = "my-model"};
  mlc_clear_error(ctx);
  CHECK(m && !mlc_codegen_model_header(ctx, m, &mo, &sb));
  CHECK(strstr(mlc_error_msg(ctx), "model prefix 'my-model' is not a C identifier") != NULL);
  mlc_vec_free(&sb);
}

/* names given by the function's input_names/output_names (an imported
 * model's own, not identifiers) reach the descriptor and model.h */
#define NAMED_HEAD                                                                        \
  "@I.ir_module\nclass Module:\n" PRIM_STATIC                                             \
  "    @R.function\n"                                                                     \
  "    def main(x: R.Tensor((4, 8), \"float32\"), y: R.Tensor((4, 8), \"float32\")):\n" \
  "        R.func_attr({\"input_names\": [\"input.1\", \"2nd\"], \"output_names\": "
#define NAMED_TAIL                                                                                        \
  "})\n        cls = Module\n"                                                                          \
  "        a = R.builtin.alloc_tensor(R.shape([4, 8]), R.dtype(\"float32\"), R.prim_value(0))\n"     \
  "        _ = cls.add(x, y, a)\n"                                                                  \
  "        b = R.builtin.alloc_tensor(R.shape([4, 8]), R.dtype(\"float32\"), R.prim_value(0))\n"     \
  "        _ = cls.relu(a, b)\n"                                                                    \
  "        return (a, b)\n"

static void names_refused(const char *outputs, const char *msg) {
  MlcStrBuf text = {0}, sb = {0};
  mlc_sb_printf(&text, NAMED_HEAD "%s" NAMED_TAIL, outputs);
  const MlcModule *m = read_text(mlc_sb_cstr(&text));
  mlc_clear_error(ctx);
  CHECK(m && !mlc_codegen_model_c(ctx, m, NULL, &sb));
  if (!strstr(mlc_error_msg(ctx), msg)) printf("    got: %s\n", mlc_error_msg(ctx));
  CHECK(strstr(mlc_error_msg(ctx), msg) != NULL);
  mlc_vec_free(&text);
  mlc_vec_free(&sb);
}

static void test_io_names(void) {
  const MlcModule *m = read_text(NAMED_HEAD "[\"sum:0\", \"sum/0\"]" NAMED_TAIL);
  Loaded l = {0};
  CHECK(m && load(m, false, &l));
  if (check__failed_now) return unload(&l);
  CHECK_STR(l.desc->inputs[0].name, "input.1");
  CHECK_STR(l.desc->inputs[1].name, "2nd");
  CHECK_STR(l.desc->outputs[0].name, "sum:0");
  CHECK_STR(l.desc->outputs[1].name, "sum/0");
  unload(&l);
  MlcStrBuf h = {0};
  mlc_clear_error(ctx);
  CHECK(mlc_codegen_model_header(ctx, m, NULL, &h));
  const char *text = mlc_sb_cstr(&h);
  CHECK(strstr(text, "model_input_names[] MLCRT_MODEL_UNUSED = {\"input.1\", \"2nd\"};") != NULL);
  CHECK(strstr(text, "enum { MODEL_IN_input_1 = 0, MODEL_IN__2nd = 1 };") != NULL);
  CHECK(strstr(text, "enum { MODEL_OUT_sum_0 = 0, MODEL_OUT_sum_0_2 = 1 };") != NULL);
  mlc_vec_free(&h);
  names_refused("[\"a\"]", "attribute output_names lists 1 names for 2 values");
  names_refused("[\"a\", \"a\"]", "attribute output_names names 'a' twice");
  names_refused("[\"a\", \"\"]", "attribute output_names: item 1 is not a non-empty string");
  names_refused("\"a\"", "attribute output_names must be a list of strings");
}

/* ---- through the runtime's loader and model.h ---------------------------------------- */

/* mlcrt_model_load checks the descriptor, reads params.bin and runs */
static void test_runtime_loader(void) {
  const MlcModule *m = dyn_module();
  Loaded l = {0};
  CHECK(m && load(m, false, &l));
  MlcrtModel *model = NULL;
  CHECK(!check__failed_now && mlcrt_model_load(l.dir, &model) == 0);
  if (!model) printf("    load: %s\n", mlcrt_last_error());
  float x[3 * 16], t[3 * 8], want[3 * 8], w[128];
  for (int i = 0; i < 128; i++) w[i] = weight(i / 16, i % 16);
  fill(x, 48);
  const int64_t shx[3][2] = {{3, 16}, {8, 16}, {3, 8}};
  CHECK(m && interp(m, "linear", 3, (float *[]){x, w, t}, shx) && interp(m, "relu", 2, (float *[]){t, want}, (const int64_t[][2]){{3, 8}, {3, 8}}));
  if (model && !check__failed_now) {
    int64_t shape[2] = {3, 16};
    DLTensor in = {x, {kDLCPU, 0}, 2, {kDLFloat, 32, 1}, shape, NULL, 0};
    DLTensor *out[1] = {NULL};
    CHECK(mlcrt_model_run(model, (DLTensor *const[]){&in}, 1, out, 1) == 0);
    CHECK(shape_is(out[0], 2, 3, 8) && close_to(out[0]->data, want, 24, 1e-4));
    shape[1] = 15; /* refused by the runtime's checks, naming the input */
    CHECK(mlcrt_model_run(model, (DLTensor *const[]){&in}, 1, out, 1) != 0 && strstr(mlcrt_last_error(), "'x'"));
  }
  mlcrt_model_free(model);
  unload(&l);
}

#if defined(__SANITIZE_ADDRESS__)
#define SAN_BUILD 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SAN_BUILD 1
#endif
#endif
#ifndef SAN_BUILD
#define SAN_BUILD 0
#endif

static const char CONSUMER[] =
    "#include \"model.h\"\n"
    "#include <stdio.h>\n"
    "int main(int argc, char **argv) {\n"
    "  (void)argc;\n"
    "  printf(\"%d %d %d %s %s %d %lld %lld %s %lld|\", MODEL_NUM_INPUTS, MODEL_NUM_OUTPUTS, MODEL_NUM_SYMS,\n"
    "         model_input_names[0], model_input_dtypes[0], model_input_ranks[0], (long long)model_input_dims[0][0],\n"
    "         (long long)model_input_dims[0][1], model_output_names[0], (long long)model_output_dims[0][1]);\n"
    "  MlcrtModel *m = model_create(argv[1]);\n"
    "  float x[2 * 16];\n"
    "  for (int i = 0; i < 32; i++) x[i] = (float)(i % 5 - 2) * 0.5f;\n"
    "  int64_t shape[2] = {2, 16};\n"
    "  DLTensor t = {x, {kDLCPU, 0}, 2, {kDLFloat, 32, 1}, shape, NULL, 0};\n"
    "  DLTensor *in[1] = {&t}, *out[1] = {NULL};\n"
    "  if (!m || model_run(m, in, out) != 0) {\n"
    "    printf(\"error: %s\", mlcrt_last_error());\n"
    "    return 1;\n"
    "  }\n"
    "  double sum = 0;\n"
    "  for (int i = 0; i < 16; i++) sum += ((float *)out[0]->data)[i];\n"
    "  printf(\"%lld %.4f\", (long long)out[0]->shape[0], sum);\n"
    "  model_free(m);\n"
    "  return 0;\n"
    "}\n";

/* a program that includes model.h and links model.so and the runtime alone */
static void test_header_consumer(void) {
  const char *lib = SAN_BUILD ? "build/san/libmlcrt.a" : "build/libmlcrt.a";
  if (access(lib, R_OK) != 0) {
    printf("skip test_header_consumer: %s is not built\n", lib);
    return;
  }
  const MlcModule *m = dyn_module();
  char dir[4200], path[8300], cmd[40000];
  snprintf(dir, sizeof dir, "%s/consumer", tmpdir);
  mlc_clear_error(ctx);
  CHECK(m && mlc_build_model(ctx, m, dir, NULL, NULL));
  if (check__failed_now) return bu_remove_dir(dir);
  snprintf(path, sizeof path, "%s/main.c", dir);
  FILE *f = fopen(path, "w");
  CHECK(f && fputs(CONSUMER, f) >= 0 && fclose(f) == 0);
  const char *cc = getenv("CC");
  snprintf(cmd, sizeof cmd,
           "%s -std=c11 -Wall -Wextra -Werror %s -Iinclude -I%s %s/main.c %s/model.so %s -Wl,-rpath,%s "
           "-lpthread -ldl -lz -lm -o %s/main 2>&1 && %s/main %s/params.bin 2>&1",
           cc && *cc ? cc : "cc", SAN_BUILD ? "-fsanitize=address,undefined" : "", dir, dir, dir, lib, dir, dir, dir, dir);
  FILE *p = popen(cmd, "r");
  char got[4096] = {0};
  size_t n = p ? fread(got, 1, sizeof got - 1, p) : 0;
  got[n] = 0;
  CHECK(p && pclose(p) == 0);
  /* the plain C oracle of the program's first output row sum */
  double sum = 0;
  for (int i = 0; i < 2; i++)
    for (int j = 0; j < 8; j++) {
      double acc = 0;
      for (int k = 0; k < 16; k++) acc += (double)((float)((i * 16 + k) % 5 - 2) * 0.5f) * weight(j, k);
      sum += acc > 0 ? acc : 0;
    }
  char want[256];
  snprintf(want, sizeof want, "1 1 1 x float32 2 -1 16 output_0 8|2 %.4f", sum);
  CHECK_STR(got, want);
  bu_remove_dir(dir);
}

/* ---- after the real graph pipeline ------------------------------------------------------ */

static const char OPS_MODEL[] =
    "@I.ir_module\nclass Module:\n"
    "    @R.function\n"
    "    def main(x: R.Tensor((\"n\", 16), \"float32\"), w: R.Tensor((8, 16), \"float32\"), y: R.Tensor((4, 8), \"float32\")):\n"
    "        n = T.int64()\n"
    "        with R.dataflow():\n"
    "            wt = R.permute_dims(w)\n"
    "            a = R.matmul(x, wt)\n"
    "            b = R.nn.relu(a)\n"
    "            c = R.add(y, y)\n"
    "            d = R.multiply(c, c)\n"
    "            R.output(b, d)\n"
    "        return (b, d)\n";

/* op calls through legalization, explicit allocation and memory planning,
 * against plain C: b = relu(x w^T), d = (y + y)^2 */
static void test_after_pipeline(void) {
  const MlcModule *m = planned(OPS_MODEL);
  Loaded l = {0};
  CHECK(m && load(m, false, &l));
  if (check__failed_now) return unload(&l);
  float w[128], y[32];
  fill(w, 128);
  fill(y, 32);
  for (int64_t n = 1; n <= 16 && !check__failed_now; n = n * 4 - 1) { /* 1, 3, 11 */
    float *x = malloc(sizeof(float) * 16 * n), *b = malloc(sizeof(float) * 8 * n), d[32];
    fill(x, (size_t)(16 * n));
    for (int i = 0; i < n; i++)
      for (int j = 0; j < 8; j++) {
        double acc = 0;
        for (int k = 0; k < 16; k++) acc += (double)x[i * 16 + k] * w[j * 16 + k];
        b[i * 8 + j] = acc > 0 ? (float)acc : 0.0f;
      }
    for (int i = 0; i < 32; i++) d[i] = (y[i] + y[i]) * (y[i] + y[i]);
    DLTensor *out[2] = {NULL};
    CHECK(run_model(&l, (void *[]){x, w, y}, (const int64_t *const[]){(int64_t[]){n, 16}, (int64_t[]){8, 16}, (int64_t[]){4, 8}}, out) == 0);
    CHECK(shape_is(out[0], 2, n, 8) && close_to(out[0]->data, b, (size_t)(8 * n), 1e-4));
    CHECK(shape_is(out[1], 2, 4, 8) && close_to(out[1]->data, d, 32, 1e-6));
    free(x);
    free(b);
  }
  unload(&l);
}

/* Legalizing R.exp, R.log, ... gives prim funcs named exp, log, ...: the
 * kernels' C names must not be libm's.  Against plain C (double, then
 * rounded: the kernels call the float functions, an ulp or so away).  Every
 * value is an output, so fusion leaves each kernel standing alone. */
static const char LIBM_MODEL[] =
    "@I.ir_module\nclass Module:\n"
    "    @R.function\n"
    "    def main(x: R.Tensor((4, 8), \"float32\")):\n"
    "        with R.dataflow():\n"
    "            a = R.exp(x)\n"
    "            b = R.abs(x)\n"
    "            c = R.sqrt(b)\n"
    "            d = R.log(c)\n"
    "            e = R.tanh(x)\n"
    "            f = R.erf(x)\n"
    "            R.output(a, b, c, d, e, f)\n"
    "        return (a, b, c, d, e, f)\n";

static void test_libm_named_kernels(void) {
  const MlcModule *m = planned(LIBM_MODEL);
  CHECK(m && prim(m, "exp") && prim(m, "log") && prim(m, "sqrt") && prim(m, "tanh") && prim(m, "erf"));
  Loaded l = {0};
  CHECK(m && load(m, false, &l));
  if (check__failed_now) return unload(&l);
  float x[32], want[6][32];
  fill(x, 32);
  for (int i = 0; i < 32; i++) {
    want[0][i] = (float)exp(x[i]);
    want[1][i] = fabsf(x[i]);
    want[2][i] = sqrtf(fabsf(x[i]));
    want[3][i] = (float)log(sqrt(fabs(x[i])));
    want[4][i] = (float)tanh(x[i]);
    want[5][i] = (float)erf(x[i]);
  }
  DLTensor *out[6] = {NULL};
  CHECK(run_model(&l, (void *[]){x}, (const int64_t *const[]){(int64_t[]){4, 8}}, out) == 0);
  for (int k = 0; k < 6 && !check__failed_now; k++)
    CHECK(shape_is(out[k], 2, 4, 8) && close_to(out[k]->data, want[k], 32, 1e-6));
  unload(&l);
}

int main(void) {
  if (!bu_make_tmpdir(tmpdir, sizeof tmpdir, "mlcc-model")) {
    printf("FAIL setup: cannot create a temporary directory\n");
    return 1;
  }
  ctx = mlc_ctx_new();
  RUN(test_static_planned);
  RUN(test_symbolic_batch_params_file);
  RUN(test_symbolic_batch_embedded);
  RUN(test_tuple_output);
  RUN(test_extern_call);
  RUN(test_params_layout);
  RUN(test_errors);
  RUN(test_io_names);
  RUN(test_runtime_loader);
  RUN(test_header_consumer);
  RUN(test_after_pipeline);
  RUN(test_libm_named_kernels);
  bu_remove_dir(tmpdir);
  mlc_ctx_free(ctx);
  return CHECK_DONE();
}
