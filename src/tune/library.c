/* library.c - library call or generated kernel, decided by measurement.
 *
 * dispatch_library hands big float32 matmuls to the runtime's BLAS-backed
 * env.matmul on a size rule.  Here each such call is a choice instead: its
 * generated side is the matmul legalized alone (built from the call's
 * shapes, so the tuner and a later build name the same workload), tuned as
 * a task like any kernel, and its library side is env.matmul timed on the
 * same shapes (a record with "library").  A build with records keeps the
 * generated kernel only where both were measured on its target and the
 * generated one was faster; the library otherwise, as before.  The
 * generated side is the matmul alone, not fused with its epilogue, so a
 * kept call can only get faster when fusion then takes it.  Calls with a
 * symbolic dim stay the library's (nothing to measure them on). */
#include "tune/tune_internal.h"

#include "mlcc/text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NOLOC ((MlcLoc){0})
enum { MAX_CHOICES = 64, MAX_RANK = 8 };

/* ---- the matmul alone -------------------------------------------------------------- */

static bool const_dims(const MlcSInfo *s, int64_t *d) {
  if (!s || s->kind != MLC_SINFO_TENSOR || !s->tensor.shape || s->tensor.ndim > MAX_RANK) return false;
  for (int i = 0; i < s->tensor.ndim; i++)
    if (!mlc_e_is_const_int(s->tensor.shape[i], &d[i])) return false;
  return true;
}

static void put_shape(MlcStrBuf *sb, const int64_t *d, int n, const char *sep) {
  for (int i = 0; i < n; i++) mlc_sb_printf(sb, "%s%lld", i ? sep : "", (long long)d[i]);
}

/* The generated side of call x @ w: the module of one graph function
 * calling R.matmul on those shapes, legalized; its prim func.  NULL when a
 * dim is symbolic.  *shape: "MxK @ KxN" for people. */
static const MlcPrimFunc *matmul_alone(MlcCtx *ctx, const MlcGExpr *call, const char **shape) {
  int64_t a[MAX_RANK], b[MAX_RANK];
  const MlcSInfo *sa = call->call.args[0]->sinfo, *sb_ = call->call.args[1]->sinfo;
  if (!const_dims(sa, a) || !const_dims(sb_, b)) return NULL;
  MlcStrBuf t = {0}, s = {0};
  mlc_sb_puts(&t, "from tvm.script import ir as I\nfrom tvm.script import relax as R\n@I.ir_module\nclass Module:\n"
                  "    @R.function\n    def main(x: R.Tensor((");
  put_shape(&t, a, sa->tensor.ndim, ", ");
  mlc_sb_puts(&t, "), \"float32\"), w: R.Tensor((");
  put_shape(&t, b, sb_->tensor.ndim, ", ");
  mlc_sb_puts(&t, "), \"float32\")):\n        with R.dataflow():\n            y = R.matmul(x, w)\n"
                  "            R.output(y)\n        return y\n");
  put_shape(&s, a, sa->tensor.ndim, "x");
  mlc_sb_puts(&s, " @ ");
  put_shape(&s, b, sb_->tensor.ndim, "x");
  *shape = mlc_intern(ctx, mlc_sb_cstr(&s));
  const MlcModule *m = mlc_read_module(ctx, "matmul", mlc_sb_cstr(&t), t.len);
  mlc_vec_free(&t), mlc_vec_free(&s);
  if (m) m = mlc_pass_legalize_ops(ctx, m);
  for (int i = 0; m && i < m->n_funcs; i++)
    if (m->funcs[i].kind == MLC_FUNC_PRIM) return m->funcs[i].prim;
  mlc_clear_error(ctx);
  return NULL;
}

/* ---- the choices of a module --------------------------------------------------------- */

typedef struct Found {
  MlcCtx *ctx;
  MlcTuneChoice c[MAX_CHOICES];
  const MlcPrimFunc *f[MAX_CHOICES];
  int n;
} Found;

static bool collect(void *user, const MlcGExpr *call) {
  Found *fd = user;
  const char *shape;
  const MlcPrimFunc *f = matmul_alone(fd->ctx, call, &shape);
  if (!f) return false;
  uint64_t w = mlc_tune_workload_hash(fd->ctx, f);
  int k = 0;
  while (k < fd->n && fd->c[k].workload != w) k++;
  if (k == fd->n && k == MAX_CHOICES) return false;
  if (k == fd->n) {
    fd->c[fd->n] = (MlcTuneChoice){.shape = shape, .workload = w, .library_s = -1, .generated_s = -1};
    fd->f[fd->n++] = f;
  }
  fd->c[k].calls++;
  return false; /* only looking */
}

static bool has_graph(const MlcModule *m) {
  for (int i = 0; i < m->n_funcs; i++)
    if (m->funcs[i].kind == MLC_FUNC_GRAPH) return true;
  return false;
}

/* the calls dispatch_library would dispatch, after the passes before it */
static bool find_choices(MlcCtx *ctx, const MlcModule *m, Found *fd) {
  fd->ctx = ctx, fd->n = 0;
  if (!has_graph(m)) return true;
  MlcModule *pre = mlc_graph_pipeline(ctx, m, NULL, MLC_PASS_FOLD_CONSTANTS, NULL, NULL, NULL, NULL);
  return pre && mlc_pass_dispatch_library_if(ctx, pre, collect, fd);
}

int mlc_tune_library_choices(MlcCtx *ctx, const MlcModule *m, const MlcTuneDB *db, const MlcTuneTarget *t,
                             MlcTuneChoice *out, int cap) {
  Found *fd = mlc_xcalloc(1, sizeof *fd);
  int n = -1;
  if (find_choices(ctx, m, fd)) {
    n = fd->n < cap ? fd->n : cap;
    for (int i = 0; i < n; i++) {
      MlcTuneChoice c = fd->c[i];
      const MlcTuneRecord *g = db ? mlc_tune_db_best(db, c.workload, t) : NULL;
      const MlcTuneRecord *l = db ? mlc_tune_db_best_library(db, c.workload, t) : NULL;
      c.generated_s = g ? g->seconds : -1;
      c.library_s = l ? l->seconds : -1;
      c.generated = g && l && g->seconds < l->seconds;
      out[i] = c;
    }
  }
  free(fd);
  return n;
}

MlcModule *mlc_tune_tasks_module(MlcCtx *ctx, const MlcModule *m, const MlcTuneDB *db, const MlcTuneTarget *t) {
  if (!has_graph(m)) return (MlcModule *)m;
  Found *fd = mlc_xcalloc(1, sizeof *fd);
  MlcModule *out = find_choices(ctx, m, fd) ? tune_graph_kernels(ctx, m, db, t, NULL, NULL) : NULL;
  if (out) out = tune_add_layout_tasks(ctx, out, t); /* conv weight layouts (conv_layout.c) */
  /* weights free to change layout, as the build marks them: the default
   * rules' schedule of a task (a candidate) then lays them out as an
   * untuned build would */
  if (out) out = mlc_pass_mark_layout_free(ctx, out);
  if (out && fd->n > 0) {
    int n = out->n_funcs;
    MlcFunc *fs = mlc_arena_array(&ctx->arena, (size_t)(n + fd->n), sizeof *fs);
    memcpy(fs, out->funcs, sizeof *fs * (size_t)out->n_funcs);
    for (int i = 0; i < fd->n; i++) {
      /* decided for generated code: its kernel (fused) is among the tasks */
      const MlcTuneRecord *g = db ? mlc_tune_db_best(db, fd->c[i].workload, t) : NULL;
      const MlcTuneRecord *l = db ? mlc_tune_db_best_library(db, fd->c[i].workload, t) : NULL;
      if (g && l && g->seconds < l->seconds) continue;
      MlcPrimFunc *f = mlc_arena_dup(&ctx->arena, fd->f[i], sizeof *f);
      const char *name = mlc_internf(ctx, "library_matmul%d", i);
      for (int k = 0; mlc_module_find(out, name); k++) name = mlc_internf(ctx, "library_matmul%d_%d", i, k);
      MlcAttr *a = mlc_arena_array(&ctx->arena, 3, sizeof *a);
      a[0] = (MlcAttr){mlc_intern(ctx, "library"), {.kind = MLC_ATTR_STR, .s = mlc_intern(ctx, "env.matmul")}};
      a[1] = (MlcAttr){mlc_intern(ctx, "calls"), {.kind = MLC_ATTR_INT, .i = fd->c[i].calls}};
      a[2] = (MlcAttr){mlc_intern(ctx, "shape"), {.kind = MLC_ATTR_STR, .s = fd->c[i].shape}};
      f->name = name;
      f->attrs = (MlcAttrs){a, 3};
      fs[n++] = (MlcFunc){.kind = MLC_FUNC_PRIM, .name = name, .prim = f};
    }
    out = mlc_module_new(ctx, out->name, fs, n, out->attrs);
  }
  free(fd);
  return out;
}

/* ---- deciding in a build ---------------------------------------------------------------- */

typedef struct Decide { MlcCtx *ctx; const MlcTuneDB *db; const MlcTuneTarget *t; } Decide;

/* keep the call for the generated kernel when both sides were measured
 * here and the generated one won */
static bool keep_generated(void *user, const MlcGExpr *call) {
  Decide *d = user;
  const char *shape;
  const MlcPrimFunc *f = matmul_alone(d->ctx, call, &shape);
  if (!f) return false;
  uint64_t w = mlc_tune_workload_hash(d->ctx, f);
  const MlcTuneRecord *g = mlc_tune_db_best(d->db, w, d->t), *l = mlc_tune_db_best_library(d->db, w, d->t);
  return g && l && g->seconds < l->seconds;
}

MlcModule *tune_graph_kernels(MlcCtx *ctx, const MlcModule *m, const MlcTuneDB *db, const MlcTuneTarget *t,
                              MlcPassDump dump, void *user) {
  Decide d = {ctx, db, t};
  MlcModule *out = mlc_graph_pipeline(ctx, m, NULL, MLC_PASS_FOLD_CONSTANTS, dump, user, NULL, NULL);
  for (int p = MLC_PASS_DISPATCH; out && p <= MLC_PASS_DEAD_CODE; p++) {
    out = p == MLC_PASS_DISPATCH && db ? mlc_pass_dispatch_library_if(ctx, out, keep_generated, &d)
                                       : mlc_graph_pass_run(ctx, out, (MlcGraphPass)p, NULL, NULL, NULL, NULL);
    if (out && dump) dump(user, (MlcGraphPass)p, out);
  }
  return out;
}
