/* gpu_host.c - the module of a GPU target: the device source as a string
 * and, per prim func, a host function in C with the CPU kernel's signature
 * that runs the function's kernels through the runtime's GPU services
 * (runtime.h).  The descriptor table is the C target's (c_module.c), so a
 * GPU module loads, checks its arguments and is called exactly like a CPU
 * one.
 *
 * Data movement: a buffer argument that some kernel reads or writes gets
 * its device memory from the runtime's acquire (with what the kernels do
 * with it) and goes back through finish after the kernels; the runtime
 * decides what moves (runtime.h, "residency": a call of its own uploads
 * and downloads, a model's run keeps tensors on the device).  Buffers the
 * function allocates in global memory live on the device only. */
#include "c_emit.h"
#include "gpu_emit.h"

#include <stdlib.h>
#include <string.h>

/* ---- which buffers the kernels read and write ------------------------------------ */

typedef struct Rw {
  MlcVisitor v;
  MlcMap read, written;
} Rw;

static bool rw_expr(MlcVisitor *v, const MlcExpr *e) {
  Rw *rw = (Rw *)v;
  if (e->kind == MLC_EXPR_LOAD) mlc_map_put(&rw->read, e->load.buf, (void *)e);
  return true;
}
static bool rw_stmt(MlcVisitor *v, const MlcStmt *s) {
  Rw *rw = (Rw *)v;
  if (s->kind == MLC_STMT_STORE) mlc_map_put(&rw->written, s->store.buf, (void *)s);
  return true;
}

/* what the kernels do with buffer b: MLCRT_GPU_READ | MLCRT_GPU_WRITE */
static int rw_access(const Rw *rw, const MlcBuffer *b) {
  return (mlc_map_has(&rw->read, b) ? MLCRT_GPU_READ : 0) | (mlc_map_has(&rw->written, b) ? MLCRT_GPU_WRITE : 0);
}

/* ---- host expressions: sizes and grid extents over the symbolic sizes ------------------ */

static bool host_expr(CEmit *e, const MlcExpr *x, MlcStrBuf *sb) {
  switch (x->kind) {
  case MLC_EXPR_INT: mlc_sb_printf(sb, "(int64_t)%lldLL", (long long)x->int_val); return true;
  case MLC_EXPR_VAR: {
    const char *n = mlc_map_get(&e->names, x);
    if (!n) return c_fail(e, "a launch extent or size reads '%s', which the host does not know", x->var.name);
    mlc_sb_printf(sb, "(int64_t)%s", n);
    return true;
  }
  case MLC_EXPR_CAST: return host_expr(e, x->operand, sb);
  case MLC_EXPR_BINARY: {
    const char *op = x->bin.op == MLC_BIN_ADD ? "+" : x->bin.op == MLC_BIN_SUB ? "-" : x->bin.op == MLC_BIN_MUL ? "*" : NULL;
    const char *fn = x->bin.op == MLC_BIN_FLOORDIV ? "mlc_host_floordiv" : x->bin.op == MLC_BIN_FLOORMOD ? "mlc_host_floormod"
                   : x->bin.op == MLC_BIN_MIN ? "mlc_host_min" : x->bin.op == MLC_BIN_MAX ? "mlc_host_max" : NULL;
    if (!op && !fn) return c_fail(e, "a launch extent or size has an operator the host code does not compute");
    mlc_sb_puts(sb, fn ? fn : "");
    mlc_sb_puts(sb, "(");
    if (!host_expr(e, x->bin.a, sb)) return false;
    mlc_sb_puts(sb, fn ? ", " : op);
    if (!fn) mlc_sb_puts(sb, " ");
    if (!host_expr(e, x->bin.b, sb)) return false;
    mlc_sb_puts(sb, ")");
    return true;
  }
  default: return c_fail(e, "a launch extent or size is not an integer expression of the symbolic sizes");
  }
}

static const char HOST_PRELUDE[] =
    "/* the runtime's GPU services (runtime.h) */\n"
    "typedef struct { int32_t kind; void *dev; int64_t i; double f; } mlc_gpu_arg;\n"
    "typedef struct MlcrtGpu {\n"
    "  int32_t api;\n"
    "  const char *device;\n"
    "  int32_t (*program)(const char *source, size_t len, void **prog);\n"
    "  int32_t (*alloc)(size_t nbytes, void **dev);\n"
    "  void (*release)(void *dev);\n"
    "  int32_t (*upload)(void *dev, const void *host, size_t nbytes);\n"
    "  int32_t (*download)(void *host, void *dev, size_t nbytes);\n"
    "  int32_t (*launch)(void *prog, const char *name, const int64_t grid[3], const int64_t block[3], int32_t n_args,\n"
    "                    const mlc_gpu_arg *args);\n"
    "  int32_t (*acquire)(void *host, size_t nbytes, int32_t access, void **dev);\n"
    "  int32_t (*finish)(void *host, void *dev, size_t nbytes, int32_t access);\n"
    "  int32_t (*begin)(void);\n"
    "  void (*end)(void);\n"
    "  int32_t (*to_host)(void *host, size_t nbytes);\n"
    "  void (*host_wrote)(void *host, size_t nbytes);\n"
    "  int32_t (*keep)(const void *host, size_t nbytes);\n"
    "  void (*forget)(const void *host, size_t nbytes);\n"
    "} mlc_gpu;\n"
    "static int64_t mlc_host_floordiv(int64_t a, int64_t b) { int64_t q = a / b; return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q; }\n"
    "static int64_t mlc_host_floormod(int64_t a, int64_t b) { return a - mlc_host_floordiv(a, b) * b; }\n"
    "static int64_t mlc_host_min(int64_t a, int64_t b) { return a < b ? a : b; }\n"
    "static int64_t mlc_host_max(int64_t a, int64_t b) { return a > b ? a : b; }\n"
    "static const mlc_gpu *mlc_gpu_get(const MlcrtEnv *env, int32_t api) {\n"
    "  if (env->version < 5 || !env->gpu) {\n"
    "    env->set_error(\"this runtime's GPU services are older than this module's (environment version < 5)\");\n"
    "    return NULL;\n"
    "  }\n"
    "  return env->gpu(api);\n"
    "}\n\n";

/* ---- one host function ---------------------------------------------------------------- */

typedef struct Host {
  MlcGpuApi api;
  MlcMap funcs; /* prim func as written -> its MlcGpuFunc */
} Host;

/* the C name of the device memory of buffer b (a param or a device allocation) */
static const char *dev_name(CEmit *e, const MlcBuffer *b) {
  return c_name(e, b, mlc_internf(e->ctx, "d_%s", b->name));
}

static bool numel_expr(CEmit *e, const MlcBuffer *b, MlcStrBuf *sb) {
  mlc_sb_puts(sb, "(int64_t)1");
  for (int d = 0; d < b->ndim; d++) {
    mlc_sb_puts(sb, " * ");
    if (!host_expr(e, b->shape[d], sb)) return false;
  }
  return true;
}

static int arg_kind(MlcDType t) {
  if (mlc_dtype_is_float(t)) return t.bits == 32 ? 3 : 4;
  return t.bits == 64 ? 2 : 1;
}

static bool write_launch(CEmit *e, const MlcGpuKernel *k) {
  MlcStrBuf grid = {0}, block = {0}, args = {0};
  bool ok = true;
  for (int a = 0; a < 3 && ok; a++) {
    if (a) mlc_sb_puts(&grid, ", "), mlc_sb_puts(&block, ", ");
    ok = host_expr(e, k->extent[a], &grid) && host_expr(e, k->extent[MLC_GPU_THREAD_X + a], &block);
  }
  for (int i = 0; i < k->n_buffers && ok; i++)
    mlc_sb_printf(&args, "%s{0, %s, 0, 0.0}", i ? ", " : "", dev_name(e, k->buffers[i]));
  int n_args = k->n_buffers + k->n_scalars;
  for (int i = 0; i < k->n_scalars && ok; i++) {
    const MlcExpr *v = k->scalars[i];
    const char *n = mlc_map_get(&e->names, v);
    if (!n) {
      ok = c_fail(e, "kernel %s reads '%s', which the host does not know", k->name, v->var.name);
      break;
    }
    bool fl = mlc_dtype_is_float(v->dtype);
    mlc_sb_printf(&args, "%s{%d, 0, %s, %s}", i || k->n_buffers ? ", " : "", arg_kind(v->dtype), fl ? "0" : n,
                  fl ? n : "0.0");
  }
  if (gpu_kernel_checks(k)) /* the fault word (gpu_emit.h) */
    mlc_sb_printf(&args, "%s{0, mlc_fault_dev, 0, 0.0}", n_args++ ? ", " : "");
  if (ok) {
    c_line(e, "if (!mlc_status) {");
    c_line(e, "  const int64_t grid[3] = {%s}, block[3] = {%s};", mlc_sb_cstr(&grid), mlc_sb_cstr(&block));
    if (n_args) c_line(e, "  const mlc_gpu_arg args[%d] = {%s};", n_args, mlc_sb_cstr(&args));
    c_line(e, "  mlc_status = g->launch(prog, \"%s\", grid, block, %d, %s);", k->name, n_args, n_args ? "args" : "NULL");
    c_line(e, "}");
  }
  mlc_vec_free(&grid);
  mlc_vec_free(&block);
  mlc_vec_free(&args);
  return ok;
}

static bool write_host(CEmit *e, const MlcPrimFunc *orig, const char *kname, const MlcExpr *const *syms, int n_syms,
                       void *user) {
  Host *h = user;
  const MlcGpuFunc *g = mlc_map_get(&h->funcs, orig);
  const MlcPrimFunc *low = g->lowered;
  Rw rw = {.v = {.expr = rw_expr, .stmt = rw_stmt}};
  for (int i = 0; i < g->n_kernels; i++) mlc_visit_stmt(&rw.v, g->kernels[i].body);
  c_line(e, "static int32_t %s(void *const *mlc_args, const int64_t *mlc_syms, const MlcrtEnv *env) {", kname);
  e->indent = 1;
  for (int k = 0; k < n_syms; k++)
    c_line(e, "const int64_t %s = mlc_syms[%d];", c_name(e, syms[k], syms[k]->var.name), k);
  for (int i = 0; i < low->n_params; i++) {
    const MlcParam *p = &low->params[i];
    if (p->buf) continue;
    bool fl = mlc_dtype_is_float(p->var->dtype);
    c_line(e, "const %s %s = *(const %s *)mlc_args[%d];", fl ? "double" : "int64_t",
           c_name(e, p->var, p->var->var.name), fl ? "double" : "int64_t", i);
  }
  c_line(e, "const mlc_gpu *g = mlc_gpu_get(env, %d);", h->api == MLC_GPU_CUDA ? MLCRT_GPU_CUDA : MLCRT_GPU_OPENCL);
  c_line(e, "if (!g) return -1;");
  c_line(e, "void *prog = NULL;");
  c_line(e, "int32_t mlc_status = g->program(mlc_gpu_source, sizeof mlc_gpu_source - 1, &prog);");
  /* device memory: params the kernels touch, then the function's own buffers */
  MLC_VEC(const MlcBuffer *) mem = {0};
  MLC_VEC(int) param_idx = {0};
  for (int i = 0; i < low->n_params; i++) {
    const MlcBuffer *b = low->params[i].buf;
    if (b && (mlc_map_has(&rw.read, b) || mlc_map_has(&rw.written, b))) {
      mlc_vec_push(&mem, b);
      mlc_vec_push(&param_idx, i);
    }
  }
  for (int i = 0; i < g->n_device; i++) {
    mlc_vec_push(&mem, g->device[i]);
    mlc_vec_push(&param_idx, -1);
  }
  for (size_t i = 0; i < mem.len; i++) c_line(e, "void *%s = NULL;", dev_name(e, mem.data[i]));
  bool ok = true;
  for (size_t i = 0; i < mem.len && ok; i++) {
    const MlcBuffer *b = mem.data[i];
    int pi = param_idx.data[i];
    /* the size as written (the flattened param's shape is the product) */
    const MlcBuffer *sized = pi >= 0 ? orig->params[pi].buf : b;
    MlcStrBuf n = {0};
    ok = numel_expr(e, sized, &n);
    const char *d = dev_name(e, b);
    const char *bytes = mlc_internf(e->ctx, "(size_t)(%s) * %zu", mlc_sb_cstr(&n), mlc_dtype_bytes(b->dtype));
    mlc_vec_free(&n);
    if (!ok) break;
    if (pi >= 0)
      c_line(e, "if (!mlc_status) mlc_status = g->acquire(mlc_args[%d], %s, %d, &%s);", pi, bytes, rw_access(&rw, b), d);
    else
      c_line(e, "if (!mlc_status) mlc_status = g->alloc(%s, &%s);", bytes, d);
  }
  /* kernels that check divisions or indices share one fault word, zeroed
   * before the launches and read after them */
  bool checks = false;
  for (int i = 0; i < g->n_kernels; i++) checks |= gpu_kernel_checks(&g->kernels[i]);
  if (checks) {
    c_line(e, "void *mlc_fault_dev = NULL;");
    c_line(e, "int32_t mlc_fault = 0;");
    c_line(e, "if (!mlc_status) mlc_status = g->alloc(sizeof mlc_fault, &mlc_fault_dev);");
    c_line(e, "if (!mlc_status) mlc_status = g->upload(mlc_fault_dev, &mlc_fault, sizeof mlc_fault);");
  }
  for (int i = 0; i < g->n_kernels && ok; i++) ok = write_launch(e, &g->kernels[i]);
  if (checks) {
    c_line(e, "if (!mlc_status) mlc_status = g->download(&mlc_fault, mlc_fault_dev, sizeof mlc_fault);");
    c_line(e, "if (mlc_fault_dev) g->release(mlc_fault_dev);");
    c_line(e, "if (!mlc_status && mlc_fault) {");
    c_line(e, "  env->set_error(mlc_fault == 1 ? \"" MLC_DIV_BY_ZERO_MSG "\" : mlc_fault == 2 ? \"" MLC_DIV_OVERFLOW_MSG
              "\" : \"" MLC_INDEX_RANGE_MSG "\");");
    c_line(e, "  mlc_status = -1;");
    c_line(e, "}");
  }
  /* every acquired buffer goes back, after a failure too */
  for (size_t i = 0; i < mem.len && ok; i++) {
    int pi = param_idx.data[i];
    const char *d = dev_name(e, mem.data[i]);
    if (pi < 0) {
      c_line(e, "g->release(%s);", d);
      continue;
    }
    MlcStrBuf n = {0};
    ok = numel_expr(e, orig->params[pi].buf, &n);
    c_line(e, "if (%s) {", d);
    c_line(e, "  int32_t mlc_rc = g->finish(mlc_args[%d], %s, (size_t)(%s) * %zu, mlc_status ? 0 : %d);", pi, d,
           mlc_sb_cstr(&n), mlc_dtype_bytes(mem.data[i]->dtype), rw_access(&rw, mem.data[i]));
    c_line(e, "  if (!mlc_status) mlc_status = mlc_rc;");
    c_line(e, "}");
    mlc_vec_free(&n);
  }
  c_line(e, "(void)mlc_args;");
  c_line(e, "(void)mlc_syms;");
  c_line(e, "return mlc_status;");
  e->indent = 0;
  c_line(e, "}\n");
  mlc_vec_free(&mem);
  mlc_vec_free(&param_idx);
  mlc_map_free(&rw.read);
  mlc_map_free(&rw.written);
  return ok && !e->failed;
}

/* ---- the module --------------------------------------------------------------------- */

/* every prim func lowered for the GPU, its kernels appended to src */
static bool lower_all(MlcCtx *ctx, const MlcModule *m, MlcGpuApi api, Host *h, MlcStrBuf *src) {
  const GpuDialect *d = gpu_dialect(api);
  mlc_sb_printf(src, "/* generated by mlcc from module %s: %s kernels */\n%s\n", m->name, d->name, d->prelude);
  for (int i = 0; i < m->n_funcs; i++) {
    if (m->funcs[i].kind != MLC_FUNC_PRIM) continue;
    const MlcPrimFunc *f = m->funcs[i].prim;
    MlcGpuFunc *g = mlc_lower_gpu(ctx, f, &mlc_gpu_default_limits);
    if (!g || !gpu_emit_kernels(ctx, g, d, src)) return false;
    mlc_map_put(&h->funcs, f, g);
  }
  return true;
}

bool mlc_codegen_gpu_source(MlcCtx *ctx, const MlcModule *m, MlcGpuApi api, MlcStrBuf *out) {
  Host h = {.api = api};
  bool ok = lower_all(ctx, m, api, &h, out);
  mlc_map_free(&h.funcs);
  return ok;
}

static void c_string(const MlcStrBuf *text, MlcStrBuf *out) {
  mlc_sb_puts(out, "static const char mlc_gpu_source[] =\n  \"");
  for (size_t i = 0; i < text->len; i++) {
    char c = text->data[i];
    if (c == '\n') mlc_sb_puts(out, i + 1 < text->len ? "\\n\"\n  \"" : "\\n");
    else if (c == '"' || c == '\\') mlc_sb_printf(out, "\\%c", c);
    else mlc_sb_printf(out, "%c", c);
  }
  mlc_sb_puts(out, "\";\n\n");
}

typedef struct Writer {
  CFuncWriter w; /* first: the writer handed out is &writer->w */
  Host h;
  MlcStrBuf prelude;
} Writer;

CFuncWriter *gpu_writer_new(MlcCtx *ctx, const MlcModule *m, MlcGpuApi api) {
  Writer *wr = calloc(1, sizeof *wr);
  if (!wr) return mlc_error(ctx, (MlcLoc){0}, "out of memory"), NULL;
  wr->h.api = api;
  MlcStrBuf src = {0};
  bool ok = lower_all(ctx, m, api, &wr->h, &src);
  if (ok) {
    mlc_sb_puts(&wr->prelude, HOST_PRELUDE);
    c_string(&src, &wr->prelude);
    wr->w = (CFuncWriter){.write = write_host, .user = &wr->h, .prelude = mlc_sb_cstr(&wr->prelude)};
  }
  mlc_vec_free(&src);
  if (!ok) gpu_writer_free(&wr->w);
  return ok ? &wr->w : NULL;
}

void gpu_writer_free(CFuncWriter *w) {
  if (!w) return;
  Writer *wr = (Writer *)w;
  mlc_map_free(&wr->h.funcs);
  mlc_vec_free(&wr->prelude);
  free(wr);
}

bool mlc_codegen_gpu_module(MlcCtx *ctx, const MlcModule *m, MlcGpuApi api, MlcStrBuf *out) {
  CFuncWriter *w = gpu_writer_new(ctx, m, api);
  bool ok = w && c_emit_module_with(ctx, m, out, NULL, w);
  gpu_writer_free(w);
  return ok;
}
