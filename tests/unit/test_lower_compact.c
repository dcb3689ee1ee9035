/* test_lower_compact.c - the compact stage: intermediate buffers allocated
 * where they are used, shrunk to what they hold there.
 *
 * Each case is a hand-written block program, or the benchmark's schedule
 * script applied to the naive matmul (the golden case
 * schedule/matmul_register_tile).  Its allocations after
 * mlc_lower_prim_func(..., MLC_LOWER_COMPACT) are checked against the
 * shapes and places worked out by hand (the innermost loop the allocation
 * sits in), and its results are checked twice against the reference
 * interpreter running the original (unscheduled, unlowered) program on the
 * same random inputs:
 * the compacted function in the interpreter (which bounds-checks every
 * access to the shrunk buffers), and the function compiled to C through the
 * whole pipeline. */
#include "build_util.h"
#include "check.h"
#include "mlcc/interp.h"
#include "mlcc/lower.h"
#include "mlcc/schedule.h"

#include <math.h>

enum { MAX_ARGS = 8, MAX_DIMS = 4 };

static MlcCtx *ctx;
static char tmpdir[4096];

static const MlcPrimFunc *only_prim(const MlcModule *m) {
  for (int i = 0; m && i < m->n_funcs; i++)
    if (m->funcs[i].kind == MLC_FUNC_PRIM) return m->funcs[i].prim;
  return NULL;
}

static const MlcPrimFunc *compacted(const MlcPrimFunc *f) {
  mlc_clear_error(ctx);
  const MlcPrimFunc *low = mlc_lower_prim_func(ctx, f, MLC_LOWER_COMPACT, NULL, NULL);
  if (!low) bu_print_error(ctx, "compacting");
  return low;
}

/* ---- where an allocation went ---------------------------------------------------------------- */

typedef struct Found {
  const char *name;
  const MlcBuffer *buf;
  const char *loop;     /* var name of the innermost loop around it; NULL at the top */
  MlcForKind loop_kind;
  int count;
} Found;

static void find_in(const MlcStmt *s, Found *fd, const MlcStmt *loop) {
  if (!s) return;
  switch (s->kind) {
  case MLC_STMT_FOR: find_in(s->loop.body, fd, s); return;
  case MLC_STMT_SEQ:
    for (int i = 0; i < s->seq.n; i++) find_in(s->seq.items[i], fd, loop);
    return;
  case MLC_STMT_IF:
    find_in(s->if_.then_s, fd, loop);
    find_in(s->if_.else_s, fd, loop);
    return;
  case MLC_STMT_LET: find_in(s->let.body, fd, loop); return;
  case MLC_STMT_ALLOCATE:
    if (!strcmp(s->alloc.buf->name, fd->name)) {
      fd->count++;
      fd->buf = s->alloc.buf;
      fd->loop = loop ? loop->loop.var->var.name : NULL;
      fd->loop_kind = loop ? loop->loop.kind : MLC_FOR_SERIAL;
    }
    find_in(s->alloc.body, fd, loop);
    return;
  default: return;
  }
}

static Found find_alloc(const MlcPrimFunc *f, const char *name) {
  Found fd = {.name = name};
  if (f) find_in(f->body, &fd, NULL);
  return fd;
}

/* the allocation's shape is the given constants (-1: any non-constant) */
static bool shape_is(const Found *fd, const int64_t *dims, int n) {
  if (fd->count != 1 || fd->buf->ndim != n) return false;
  for (int d = 0; d < n; d++) {
    int64_t v;
    bool constant = mlc_e_is_const_int(fd->buf->shape[d], &v);
    if (dims[d] < 0 ? constant : !constant || v != dims[d]) return false;
  }
  return true;
}

/* ---- running ---------------------------------------------------------------------------------- */

typedef struct Args {
  int n;
  int ndim[MAX_ARGS];
  int64_t shape[MAX_ARGS][MAX_DIMS];
  bool is_int[MAX_ARGS];
  size_t numel[MAX_ARGS];
  void *data[MAX_ARGS];
} Args;

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static double urand(void) {
  rng = rng * 6364136223846793005ull + 1442695040888963407ull;
  return (double)(rng >> 11) / 9007199254740992.0;
}

/* buffers of f with every symbolic size set to sym; float32 in [-1, 1),
 * int32 in [0, int_max) so index buffers stay in bounds */
static bool make_args(const MlcPrimFunc *f, int64_t sym, int32_t int_max, Args *a) {
  *a = (Args){.n = f->n_params};
  for (int p = 0; p < f->n_params; p++) {
    const MlcBuffer *b = f->params[p].buf;
    if (!b || b->ndim > MAX_DIMS) return false;
    a->ndim[p] = b->ndim;
    a->is_int[p] = b->dtype.code == MLC_TC_INT;
    a->numel[p] = 1;
    for (int d = 0; d < b->ndim; d++) {
      int64_t v;
      a->shape[p][d] = mlc_e_is_const_int(b->shape[d], &v) ? v : sym;
      a->numel[p] *= (size_t)a->shape[p][d];
    }
    a->data[p] = malloc(a->numel[p] * 4 + 4);
    for (size_t i = 0; i < a->numel[p]; i++) {
      if (a->is_int[p]) ((int32_t *)a->data[p])[i] = (int32_t)(urand() * int_max);
      else ((float *)a->data[p])[i] = (float)(urand() * 2 - 1);
    }
  }
  return true;
}

static void **copy_data(const Args *a) {
  void **c = calloc((size_t)a->n, sizeof *c);
  for (int p = 0; p < a->n; p++) {
    c[p] = malloc(a->numel[p] * 4 + 4);
    memcpy(c[p], a->data[p], a->numel[p] * 4);
  }
  return c;
}

static void free_data(void **d, int n) {
  for (int p = 0; p < n; p++) free(d[p]);
  free(d);
}

static bool interp(const MlcPrimFunc *sig, const MlcPrimFunc *f, const Args *a, void **data) {
  MlcInterpArg args[MAX_ARGS];
  for (int p = 0; p < a->n; p++)
    args[p] = (MlcInterpArg){.is_buffer = true, .data = data[p], .ndim = a->ndim[p], .shape = a->shape[p]};
  mlc_clear_error(ctx);
  bool ok = mlc_interp_run_lowered(ctx, sig, f, args, a->n);
  if (!ok) bu_print_error(ctx, "interpreting");
  return ok;
}

static bool compiled(const MlcModule *m, const Args *a, void **data) {
  MlcBuildOptions opt = {.extra_cflags = "-ffp-contract=off"};
  MlcrtModule *mod = bu_build_and_load(ctx, m, tmpdir, "case", &opt);
  if (!mod) return false;
  const MlcPrimFunc *f = only_prim(m);
  const MlcrtFunc *fn = mlcrt_module_get_func(mod, f->name);
  MlcrtTensor *t[MAX_ARGS] = {0};
  DLTensor *dl[MAX_ARGS];
  bool ok = fn != NULL;
  for (int p = 0; ok && p < a->n; p++) {
    DLDataType dt = a->is_int[p] ? mlcrt_dtype(kDLInt, 32) : mlcrt_dtype(kDLFloat, 32);
    ok = mlcrt_tensor_create(a->ndim[p], a->shape[p], dt, &t[p]) == 0;
    if (ok) memcpy(t[p]->dl.data, data[p], a->numel[p] * 4), dl[p] = &t[p]->dl;
  }
  if (ok && mlcrt_func_call_tensors(fn, dl, a->n) != 0) printf("    call: %s\n", mlcrt_last_error()), ok = false;
  for (int p = 0; p < a->n; p++) {
    if (ok) memcpy(data[p], t[p]->dl.data, a->numel[p] * 4);
    if (t[p]) mlcrt_tensor_free(t[p]);
  }
  mlcrt_module_free(mod);
  return ok;
}

static bool same_data(const Args *a, void **x, void **y, const char *what) {
  for (int p = 0; p < a->n; p++)
    for (size_t i = 0; i < a->numel[p]; i++) {
      double u = a->is_int[p] ? ((int32_t *)x[p])[i] : ((float *)x[p])[i];
      double v = a->is_int[p] ? ((int32_t *)y[p])[i] : ((float *)y[p])[i];
      if (!(fabs(u - v) <= 1e-5 * fabs(v) + 1e-6)) {
        printf("    %s: param %d element %zu: %g, interpreter %g\n", what, p, i, u, v);
        return false;
      }
    }
  return true;
}

/* m's compacted function (interpreted) and m compiled agree with the
 * interpreter running ref's function (m's before it was scheduled, or m
 * itself) at symbolic size sym */
static bool agrees_with(const MlcModule *ref_m, const MlcModule *m, int64_t sym, int32_t int_max) {
  const MlcPrimFunc *orig = only_prim(ref_m), *f = only_prim(m), *low = f ? compacted(f) : NULL;
  Args a;
  if (!orig || !low || !make_args(f, sym, int_max, &a)) return false;
  void **ref = copy_data(&a), **lowered = copy_data(&a), **built = copy_data(&a);
  bool ok = interp(orig, orig, &a, ref) && interp(f, low, &a, lowered) && same_data(&a, lowered, ref, "compacted") &&
            compiled(m, &a, built) && same_data(&a, built, ref, "compiled");
  free_data(ref, a.n);
  free_data(lowered, a.n);
  free_data(built, a.n);
  for (int p = 0; p < a.n; p++) free(a.data[p]);
  return ok;
}

static bool agrees(const MlcModule *m, int64_t sym, int32_t int_max) { return agrees_with(m, m, sym, int_max); }

/* ---- the cases ---------------------------------------------------------------------------------- */

/* cache_write "local" + reverse_compute_at under io + decompose_reduction, as
 * a schedule leaves a register-tiled matmul: C_local becomes one 8 x 32 tile
 * allocated inside io, still "local". */
static const char *tile_src =
    "@T.prim_func\n"
    "def mm(A: T.Buffer((32, 32), \"float32\"), B: T.Buffer((32, 32), \"float32\"), C: T.Buffer((32, 32), \"float32\")):\n"
    "    C_local = T.alloc_buffer((32, 32), scope=\"local\")\n"
    "    for io in range(4):\n"
    "        for ii, j in T.grid(8, 32):\n"
    "            with T.block(\"C_init\"):\n"
    "                vi = T.axis.spatial(32, io * 8 + ii)\n"
    "                vj = T.axis.spatial(32, j)\n"
    "                C_local[vi, vj] = T.float32(0)\n"
    "        for k, ii, j in T.grid(32, 8, 32):\n"
    "            with T.block(\"C_update\"):\n"
    "                vi = T.axis.spatial(32, io * 8 + ii)\n"
    "                vj = T.axis.spatial(32, j)\n"
    "                vk = T.axis.reduce(32, k)\n"
    "                C_local[vi, vj] = C_local[vi, vj] + A[vi, vk] * B[vk, vj]\n"
    "        for ii, j in T.grid(8, 32):\n"
    "            with T.block(\"C_store\"):\n"
    "                vi = T.axis.spatial(32, io * 8 + ii)\n"
    "                vj = T.axis.spatial(32, j)\n"
    "                C[vi, vj] = C_local[vi, vj]\n";

static void test_cache_write_tile(void) {
  const MlcModule *m = bu_read_text(ctx, "case.py", tile_src);
  const MlcPrimFunc *low = m ? compacted(only_prim(m)) : NULL;
  Found fd = find_alloc(low, "C_local");
  CHECK(shape_is(&fd, (int64_t[]){8, 32}, 2));
  CHECK(fd.loop && !strcmp(fd.loop, "io"));
  CHECK(fd.buf && !strcmp(fd.buf->scope, "local"));
  CHECK(m && agrees(m, 0, 0));
}

/* cache_read + compute_at under a parallel jo: each panel copies its 32 x 8
 * slice of B, which becomes a buffer of that slice inside the parallel loop
 * (one per iteration, so one per thread). */
static const char *slice_src =
    "@T.prim_func\n"
    "def mm(A: T.Buffer((16, 32), \"float32\"), B: T.Buffer((32, 32), \"float32\"), C: T.Buffer((16, 32), \"float32\")):\n"
    "    B_global = T.alloc_buffer((32, 32))\n"
    "    for jo in T.parallel(4):\n"
    "        for k, jj in T.grid(32, 8):\n"
    "            with T.block(\"B_global\"):\n"
    "                vk = T.axis.spatial(32, k)\n"
    "                vj = T.axis.spatial(32, jo * 8 + jj)\n"
    "                B_global[vk, vj] = B[vk, vj]\n"
    "        for i, jj, k in T.grid(16, 8, 32):\n"
    "            with T.block(\"C\"):\n"
    "                vi = T.axis.spatial(16, i)\n"
    "                vj = T.axis.spatial(32, jo * 8 + jj)\n"
    "                vk = T.axis.reduce(32, k)\n"
    "                with T.init():\n"
    "                    C[vi, vj] = T.float32(0)\n"
    "                C[vi, vj] = C[vi, vj] + A[vi, vk] * B_global[vk, vj]\n";

static void test_cache_read_slice(void) {
  const MlcModule *m = bu_read_text(ctx, "case.py", slice_src);
  const MlcPrimFunc *low = m ? compacted(only_prim(m)) : NULL;
  Found fd = find_alloc(low, "B_global");
  CHECK(shape_is(&fd, (int64_t[]){32, 8}, 2));
  CHECK(fd.loop && !strcmp(fd.loop, "jo") && fd.loop_kind == MLC_FOR_PARALLEL);
  CHECK(m && agrees(m, 0, 0));
}

/* A sum carried across the iterations of k (init at k == 0 in the same
 * block) must stay outside k: a buffer per iteration would lose it.  Every
 * iteration of i reads the same elements of T, so T stays outside i too, and
 * a buffer indexed through a load (G) keeps its shape. */
static const char *kept_src =
    "@T.prim_func\n"
    "def kept(A: T.Buffer((4, 8), \"float32\"), idx: T.Buffer((8,), \"int32\"), C: T.Buffer((4, 8), \"float32\")):\n"
    "    S = T.alloc_buffer((4,))\n"
    "    T_ = T.alloc_buffer((8,))\n"
    "    G = T.alloc_buffer((8,))\n"
    "    for i in range(4):\n"
    "        for k in range(8):\n"
    "            with T.block(\"S\"):\n"
    "                vi, vk = T.axis.remap(\"SR\", [i, k])\n"
    "                with T.init():\n"
    "                    S[0] = T.float32(0)\n"
    "                S[0] = S[0] + A[vi, vk]\n"
    "            with T.block(\"out\"):\n"
    "                vi, vk = T.axis.remap(\"SS\", [i, k])\n"
    "                C[vi, vk] = S[0]\n"
    "        for j in range(8):\n"
    "            with T.block(\"T\"):\n"
    "                vi, vj = T.axis.remap(\"SS\", [i, j])\n"
    "                T_[vj] = A[vi, vj] * T.float32(2)\n"
    "        for j in range(8):\n"
    "            with T.block(\"G\"):\n"
    "                vj = T.axis.spatial(8, j)\n"
    "                G[idx[vj]] = T_[7 - vj]\n"
    "        for j in range(8):\n"
    "            with T.block(\"C\"):\n"
    "                vi, vj = T.axis.remap(\"SS\", [i, j])\n"
    "                C[vi, vj] = C[vi, vj] + G[idx[vj]]\n";

static void test_not_compacted(void) {
  const MlcModule *m = bu_read_text(ctx, "case.py", kept_src);
  const MlcPrimFunc *low = m ? compacted(only_prim(m)) : NULL;
  /* every iteration of i (and of k) uses S[0]: S shrinks to that element
   * but moves into neither loop */
  Found s = find_alloc(low, "S");
  CHECK(s.count == 1 && s.loop == NULL);
  CHECK(shape_is(&s, (int64_t[]){1}, 1));
  Found t = find_alloc(low, "T_");
  CHECK(shape_is(&t, (int64_t[]){8}, 1));
  CHECK(t.loop == NULL);
  Found g = find_alloc(low, "G");
  CHECK(shape_is(&g, (int64_t[]){8}, 1));
  CHECK(g.loop == NULL);
  CHECK(m && agrees(m, 0, 8));
}

/* Symbolic sizes: rows of an (n, 16) buffer, one per iteration of i, become
 * a 1 x 16 buffer inside i; a dimension walked by a loop of symbolic extent
 * keeps its size, and such a buffer is not moved into a loop (it would be
 * allocated at run time on every iteration), though its constant dimension
 * still shrinks. */
static const char *sym_src =
    "@T.prim_func\n"
    "def sym(a: T.handle, c: T.handle):\n"
    "    n = T.int32()\n"
    "    A = T.match_buffer(a, (n, 16), \"float32\")\n"
    "    C = T.match_buffer(c, (n, 16), \"float32\")\n"
    "    R = T.alloc_buffer((n, 16))\n"
    "    W = T.alloc_buffer((8, n))\n"
    "    for i in range(n):\n"
    "        for j in range(16):\n"
    "            with T.block(\"R\"):\n"
    "                vi, vj = T.axis.remap(\"SS\", [i, j])\n"
    "                R[vi, vj] = A[vi, vj] * T.float32(2)\n"
    "        for j in range(16):\n"
    "            with T.block(\"C\"):\n"
    "                vi, vj = T.axis.remap(\"SS\", [i, j])\n"
    "                C[vi, vj] = R[vi, 15 - vj]\n"
    "    for r in range(4):\n"
    "        for i in range(n):\n"
    "            with T.block(\"W\"):\n"
    "                vr, vi = T.axis.remap(\"SS\", [r, i])\n"
    "                W[vr + 2, vi] = A[vi, vr]\n"
    "        for i in range(n):\n"
    "            with T.block(\"Cw\"):\n"
    "                vr, vi = T.axis.remap(\"SS\", [r, i])\n"
    "                C[vi, vr] = C[vi, vr] + W[vr + 2, vi]\n";

static void test_symbolic(void) {
  const MlcModule *m = bu_read_text(ctx, "case.py", sym_src);
  const MlcPrimFunc *low = m ? compacted(only_prim(m)) : NULL;
  Found r = find_alloc(low, "R");
  CHECK(shape_is(&r, (int64_t[]){1, 16}, 2));
  CHECK(r.loop && !strcmp(r.loop, "i"));
  Found w = find_alloc(low, "W");
  CHECK(shape_is(&w, (int64_t[]){4, -1}, 2));
  CHECK(w.loop == NULL);
  for (int64_t n = 1; m && n <= 9; n += 4) CHECK(agrees(m, n, 0));
}

/* the module of golden case DIR after its schedule.py; *naive gets before.py */
static const MlcModule *golden_scheduled(const char *dir, const MlcModule **naive, MlcSchedule **sch) {
  char path[512], *script = NULL;
  size_t slen = 0;
  snprintf(path, sizeof path, "%s/before.py", dir);
  *naive = bu_read_path(ctx, path);
  snprintf(path, sizeof path, "%s/schedule.py", dir);
  script = *naive ? mlc_read_file(ctx, path, 1 << 20, &slen) : NULL;
  *sch = script ? mlc_sch_new(ctx, *naive, NULL, 0) : NULL;
  bool ran = *sch && mlc_sch_run_script(*sch, path, script, slen);
  if (*sch && !ran) bu_print_error(ctx, "scheduling");
  free(script);
  return ran ? mlc_sch_module(*sch) : NULL;
}

/* Traces in the tuner's design space (tests/golden/schedule/tuned_*): the
 * write cache is indexed through the fused parallel loop (`f // 16 * 64 +
 * f % 4 * 16 + ...`), and still becomes one tile per iteration of it, not
 * the whole matrix; compiled, each computes what the interpreter does. */
static void test_fused_loop_tile(void) {
  static const struct { const char *dir; int64_t rows, cols; } cases[] = {
      {"tests/golden/schedule/tuned_matmul_128", 16, 32},
      {"tests/golden/schedule/tuned_matmul_1024_at_64", 8, 32},
      {"tests/golden/schedule/tuned_matmul_tile32_at_64", 32, 32},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    const MlcModule *naive = NULL;
    MlcSchedule *sch = NULL;
    const MlcModule *m = golden_scheduled(cases[i].dir, &naive, &sch);
    CHECK(m != NULL);
    const MlcPrimFunc *low = m ? compacted(only_prim(m)) : NULL;
    Found c = find_alloc(low, "C_global");
    CHECK(shape_is(&c, (int64_t[]){cases[i].rows, cases[i].cols}, 2));
    CHECK(c.loop && !strcmp(c.loop, "i_0_j_0_i_1_j_1_fused") && c.loop_kind == MLC_FOR_PARALLEL);
    CHECK(m && agrees_with(naive, m, 0, 0));
    if (sch) mlc_sch_free(sch);
  }
}

/* Loops whose iterations share elements stay outside them: f and f + 4
 * both accumulate into row f % 4 of T, and U's 4-row regions at
 * f // 2 * 3 overlap their neighbours' (and f, f + 1 share one). */
static const char *fused_overlap_src =
    "@T.prim_func\n"
    "def ov(A: T.Buffer((8, 8), \"float32\"), C: T.Buffer((8, 8), \"float32\")):\n"
    "    T_ = T.alloc_buffer((4, 8))\n"
    "    U = T.alloc_buffer((16, 8))\n"
    "    for f in range(8):\n"
    "        for j in range(8):\n"
    "            with T.block(\"T\"):\n"
    "                vf, vj = T.axis.remap(\"SS\", [f, j])\n"
    "                T_[vf % 4, vj] = T_[vf % 4, vj] + A[vf, vj]\n"
    "        for r, j in T.grid(4, 8):\n"
    "            with T.block(\"U\"):\n"
    "                vf, vr, vj = T.axis.remap(\"SSS\", [f, r, j])\n"
    "                U[vf // 2 * 3 + vr, vj] = A[vf, vj] + T.float32(1)\n"
    "        for j in range(8):\n"
    "            with T.block(\"C\"):\n"
    "                vf, vj = T.axis.remap(\"SS\", [f, j])\n"
    "                C[vf, vj] = T_[vf % 4, vj] + U[vf // 2 * 3, vj]\n";

static void test_fused_loop_overlap(void) {
  const MlcModule *m = bu_read_text(ctx, "case.py", fused_overlap_src);
  const MlcPrimFunc *low = m ? compacted(only_prim(m)) : NULL;
  Found t = find_alloc(low, "T_"), u = find_alloc(low, "U");
  CHECK(t.count == 1 && t.loop == NULL);
  CHECK(u.count == 1 && u.loop == NULL);
}

/* The benchmark's schedule (tests/golden/schedule/matmul_register_tile: the
 * script of bench/matmul/schedule.py at 64^3) applied to the naive matmul:
 * the caches it leaves at full size become the 8 x 32 local tile inside the
 * tile loop and the 64 x 32 panel of B inside the parallel panel loop. */
static void test_scheduled_matmul(void) {
  const char *dir = "tests/golden/schedule/matmul_register_tile";
  char path[512], *script = NULL;
  size_t slen = 0;
  snprintf(path, sizeof path, "%s/before.py", dir);
  const MlcModule *naive = bu_read_path(ctx, path);
  snprintf(path, sizeof path, "%s/schedule.py", dir);
  script = naive ? mlc_read_file(ctx, path, 1 << 20, &slen) : NULL;
  MlcSchedule *sch = script ? mlc_sch_new(ctx, naive, NULL, 0) : NULL;
  bool ran = sch && mlc_sch_run_script(sch, path, script, slen);
  if (sch && !ran) bu_print_error(ctx, "scheduling");
  const MlcModule *m = ran ? mlc_sch_module(sch) : NULL;
  CHECK(m != NULL);
  const MlcPrimFunc *low = m ? compacted(only_prim(m)) : NULL;
  Found c = find_alloc(low, "C_local"), b = find_alloc(low, "B_global");
  CHECK(shape_is(&c, (int64_t[]){8, 32}, 2));
  CHECK(c.loop && !strcmp(c.loop, "i_0") && c.loop_kind == MLC_FOR_SERIAL);
  CHECK(c.buf && !strcmp(c.buf->scope, "local"));
  CHECK(shape_is(&b, (int64_t[]){64, 32}, 2));
  CHECK(b.loop && !strcmp(b.loop, "j_0") && b.loop_kind == MLC_FOR_PARALLEL);
  CHECK(m && agrees_with(naive, m, 0, 0));
  if (sch) mlc_sch_free(sch);
  free(script);
}

int main(void) {
  ctx = mlc_ctx_new();
  if (!bu_make_tmpdir(tmpdir, sizeof tmpdir, "mlcc-compact")) {
    printf("FAIL test_lower_compact: cannot create a scratch directory\n");
    return 1;
  }
  RUN(test_cache_write_tile);
  RUN(test_cache_read_slice);
  RUN(test_not_compacted);
  RUN(test_symbolic);
  RUN(test_scheduled_matmul);
  RUN(test_fused_loop_tile);
  RUN(test_fused_loop_overlap);
  bu_remove_dir(tmpdir);
  mlc_ctx_free(ctx);
  return CHECK_DONE();
}
