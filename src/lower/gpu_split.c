/* gpu_split.c - a lowered prim func taken apart into GPU kernels (lower.h,
 * "GPU targets"): the launch grid from the thread-bound loops, the kernels'
 * parameters, shared memory, and the refusals of what a GPU cannot run.
 *
 * The split works on the lowered form (loops, one-dimensional buffers), so
 * that what the kernels compute is exactly what the CPU target compiles;
 * only the thread-bound loops change meaning, from loops to the indices of
 * the threads that run the body.  That is sound because a block bound to
 * threads was checked by the schedule to write disjoint elements per
 * thread, and the barriers (gpu_sync.c) order what threads exchange
 * through shared memory.  A reduction over a thread-bound loop would race
 * on its output: gpu_reduce.c rewrites the ones it can into cross-thread
 * reductions first, the others are refused before lowering. */
#include "mlcc/arith.h"
#include "mlcc/lower.h"

#include <stdio.h>
#include <string.h>

const char *const mlc_gpu_axis_names[MLC_GPU_AXIS_COUNT] = {
    "blockIdx.x", "blockIdx.y", "blockIdx.z", "threadIdx.x", "threadIdx.y", "threadIdx.z",
};

const MlcGpuLimits mlc_gpu_default_limits = {
    .max_threads = 1024,
    .max_block = {1024, 1024, 64},
    .max_grid = {2147483647, 65535, 65535},
    .max_shared_bytes = 48 * 1024,
};

static bool is_thread_axis(int a) { return a >= MLC_GPU_THREAD_X; }

static int axis_of(const char *thread) {
  for (int a = 0; a < MLC_GPU_AXIS_COUNT; a++)
    if (thread && strcmp(thread, mlc_gpu_axis_names[a]) == 0) return a;
  return -1;
}

/* ---- reductions bound to threads (checked on the blocks) --------------------- */

typedef struct RedCheck {
  MlcVisitor v;
  MlcCtx *ctx;
  const char *fname;
  MLC_VEC(const MlcStmt *) thread_loops; /* threadIdx loops seen (pre-order, all) */
  bool failed;
} RedCheck;

static bool uses_var(const MlcExpr *e, const MlcExpr *var);

typedef struct Uses { MlcVisitor v; const MlcExpr *var; bool found; } Uses;
static bool uses_hook(MlcVisitor *v, const MlcExpr *e) {
  Uses *u = (Uses *)v;
  if (e == u->var) u->found = true;
  return !u->found;
}
static bool uses_var(const MlcExpr *e, const MlcExpr *var) {
  Uses u = {.v = {.expr = uses_hook}, .var = var};
  if (e) mlc_visit_expr(&u.v, e);
  return u.found;
}

static bool red_stmt(MlcVisitor *v, const MlcStmt *s) {
  RedCheck *r = (RedCheck *)v;
  if (r->failed) return false;
  if (s->kind == MLC_STMT_FOR && s->loop.kind == MLC_FOR_THREAD && axis_of(s->loop.thread) >= MLC_GPU_THREAD_X)
    mlc_vec_push(&r->thread_loops, s);
  if (s->kind != MLC_STMT_BLOCK_REALIZE) return true;
  const MlcBlock *b = s->realize.block;
  for (int k = 0; k < b->n_iters; k++) {
    if (b->iters[k].kind != MLC_ITER_REDUCE) continue;
    for (size_t i = 0; i < r->thread_loops.len; i++) {
      const MlcStmt *l = r->thread_loops.data[i];
      if (!uses_var(s->realize.values[k], l->loop.var)) continue;
      r->failed = true;
      return mlc_error(r->ctx, (MlcLoc){0},
                       "%s: block '%s' reduces over loop '%s' bound to %s: its threads would race on one "
                       "output, and it is not of the form a cross-thread reduction takes (the thread loop "
                       "over serial reduction loops only, down to `out = out OP value` with OP + * min or "
                       "max; docs/gpu.md)",
                       r->fname, b->name, l->loop.var->var.name, l->loop.thread);
    }
  }
  return true;
}

/* ---- the kernel of one bound nest ---------------------------------------------- */

typedef struct Split {
  MlcCtx *ctx;
  const char *fname;
  const MlcGpuLimits *lim;
  MlcGpuKernel *k;
  const MlcStmt *axis_loop[MLC_GPU_AXIS_COUNT]; /* the loop that first bound each axis */
  MLC_VEC(const MlcBuffer *) shared;
  MLC_VEC(const MlcBuffer *) device;
  MLC_VEC(MlcGpuKernel) kernels;
} Split;

static const char *loop_name(const MlcStmt *l) { return l->loop.var->var.name; }

static bool same_extent(const MlcExpr *a, const MlcExpr *b) {
  int64_t x, y;
  if (a == b) return true;
  if (mlc_e_is_const_int(a, &x) && mlc_e_is_const_int(b, &y)) return x == y;
  return a->kind == MLC_EXPR_VAR && b->kind == MLC_EXPR_VAR && a == b;
}

static MlcExpr *as_i64(MlcCtx *ctx, MlcExpr *e) {
  int64_t v;
  if (mlc_e_is_const_int(e, &v)) return mlc_e_int(ctx, MLC_I64, v);
  if (e->dtype.code == MLC_TC_INT && e->dtype.bits == 64) return e;
  return mlc_e_cast(ctx, MLC_I64, e);
}

/* a thread-bound loop: `let var = axis + min` over its body */
static MlcStmt *bind_axis(Split *sp, const MlcStmt *s, int depth);
static MlcStmt *kernel_stmt(Split *sp, const MlcStmt *s, int depth);

static MlcStmt *bind_axis(Split *sp, const MlcStmt *s, int depth) {
  MlcCtx *ctx = sp->ctx;
  int a = axis_of(s->loop.thread);
  if (a < 0 && s->loop.thread && !strncmp(s->loop.thread, "vthread", 7))
    return mlc_error(ctx, (MlcLoc){0}, "%s: loop '%s' is bound to '%s': virtual threads are not lowered for GPU "
                     "targets; bind it to threadIdx, or leave it serial (sch.unroll for a register tile)", sp->fname,
                     loop_name(s), s->loop.thread), NULL;
  if (a < 0)
    return mlc_error(ctx, (MlcLoc){0}, "%s: loop '%s' is bound to '%s', which a GPU kernel has no index for "
                     "(blockIdx.x/y/z or threadIdx.x/y/z)", sp->fname, loop_name(s), s->loop.thread ? s->loop.thread : "?"),
           NULL;
  int64_t ext;
  bool is_const = mlc_e_is_const_int(s->loop.extent, &ext);
  if (is_thread_axis(a) && !is_const)
    return mlc_error(ctx, (MlcLoc){0}, "%s: loop '%s' is bound to %s with an extent that is not a constant; "
                     "threads per block must be known when the kernel is built", sp->fname, loop_name(s),
                     s->loop.thread), NULL;
  if (is_const && ext < 1)
    return mlc_error(ctx, (MlcLoc){0}, "%s: loop '%s' bound to %s has extent %lld", sp->fname, loop_name(s),
                     s->loop.thread, (long long)ext), NULL;
  if (is_const) {
    int64_t cap = is_thread_axis(a) ? sp->lim->max_block[a - MLC_GPU_THREAD_X] : sp->lim->max_grid[a];
    if (ext > cap)
      return mlc_error(ctx, (MlcLoc){0}, "%s: loop '%s' bound to %s has extent %lld, over the device's limit of %lld",
                       sp->fname, loop_name(s), s->loop.thread, (long long)ext, (long long)cap), NULL;
  }
  MlcGpuKernel *k = sp->k;
  if (sp->axis_loop[a]) {
    if (!same_extent(k->extent[a], as_i64(ctx, s->loop.extent)) &&
        !same_extent(sp->axis_loop[a]->loop.extent, s->loop.extent)) {
      int64_t e0 = -1;
      mlc_e_is_const_int(k->extent[a], &e0);
      return mlc_error(ctx, (MlcLoc){0}, "%s: loop '%s' binds %s with extent %lld, but loop '%s' of the same kernel "
                       "bound it with extent %lld; one launch has one extent per axis", sp->fname, loop_name(s),
                       s->loop.thread, is_const ? (long long)ext : -1LL, loop_name(sp->axis_loop[a]), (long long)e0),
             NULL;
    }
  } else {
    sp->axis_loop[a] = s;
    k->extent[a] = as_i64(ctx, s->loop.extent);
    if (!k->axis[a]) k->axis[a] = mlc_e_var(ctx, mlc_intern(ctx, mlc_gpu_axis_names[a]), MLC_I32);
  }
  MlcStmt *body = kernel_stmt(sp, s->loop.body, depth + is_thread_axis(a));
  if (!body) return NULL;
  MlcExpr *idx = k->axis[a];
  if (!mlc_dtype_eq(idx->dtype, s->loop.var->dtype)) idx = mlc_e_cast(ctx, s->loop.var->dtype, idx);
  int64_t m;
  if (!(mlc_e_is_const_int(s->loop.min, &m) && m == 0)) idx = mlc_e_bin(ctx, MLC_BIN_ADD, idx, s->loop.min);
  return mlc_s_let(ctx, s->loop.var, idx, body);
}

static bool const_numel(const MlcBuffer *b, int64_t *n) {
  *n = 1;
  for (int d = 0; d < b->ndim; d++) {
    int64_t v;
    if (!mlc_e_is_const_int(b->shape[d], &v) || v < 0 || __builtin_mul_overflow(*n, v, n)) return false;
  }
  return true;
}

static MlcStmt *kernel_stmt(Split *sp, const MlcStmt *s, int depth) {
  MlcCtx *ctx = sp->ctx;
  if (!s) return NULL;
  switch (s->kind) {
  case MLC_STMT_STORE:
  case MLC_STMT_EVALUATE: return (MlcStmt *)s;
  case MLC_STMT_BLOCK_REALIZE:
    return mlc_error(ctx, (MlcLoc){0}, "%s: block '%s' is left after lowering", sp->fname, s->realize.block->name),
           NULL;
  case MLC_STMT_FOR: {
    if (s->loop.kind == MLC_FOR_THREAD) return bind_axis(sp, s, depth);
    if (s->loop.kind == MLC_FOR_PARALLEL)
      return mlc_error(ctx, (MlcLoc){0}, "%s: loop '%s' is parallel, which means CPU threads; on a GPU bind it to "
                       "blockIdx or threadIdx instead", sp->fname, loop_name(s)), NULL;
    MlcStmt *body = kernel_stmt(sp, s->loop.body, depth);
    if (!body) return NULL;
    return body == s->loop.body ? (MlcStmt *)s
                                : mlc_s_for(ctx, s->loop.var, s->loop.min, s->loop.extent, s->loop.kind,
                                            s->loop.thread, s->loop.annotations, body);
  }
  case MLC_STMT_SEQ: {
    MlcStmt **items = mlc_arena_array(&ctx->arena, (size_t)s->seq.n, sizeof *items);
    for (int i = 0; i < s->seq.n; i++)
      if (!(items[i] = kernel_stmt(sp, s->seq.items[i], depth))) return NULL;
    return mlc_s_seq(ctx, items, s->seq.n);
  }
  case MLC_STMT_IF: {
    MlcStmt *t = kernel_stmt(sp, s->if_.then_s, depth), *e = NULL;
    if (!t || (s->if_.else_s && !(e = kernel_stmt(sp, s->if_.else_s, depth)))) return NULL;
    return mlc_s_if(ctx, s->if_.cond, t, e);
  }
  case MLC_STMT_LET: {
    MlcStmt *b = kernel_stmt(sp, s->let.body, depth);
    return b ? mlc_s_let(ctx, s->let.var, s->let.value, b) : NULL;
  }
  case MLC_STMT_ALLOCATE: {
    const MlcBuffer *b = s->alloc.buf;
    const char *scope = b->scope ? b->scope : "global";
    /* An intermediate buffer of global scope that lowering placed inside
     * the kernel is private to what encloses it (compact.c moves a buffer
     * into a loop only when iterations touch disjoint parts): the thread's
     * own under a threadIdx loop, else the thread block's, in shared memory
     * since its threads exchange data through it. */
    bool global = strcmp(scope, "global") == 0;
    if (strcmp(scope, "local") == 0 || (global && depth > 0)) {
      MlcStmt *body = kernel_stmt(sp, s->alloc.body, depth);
      return body ? mlc_s_allocate(ctx, s->alloc.buf, body) : NULL;
    }
    if (strcmp(scope, "shared") != 0 && !global)
      return mlc_error(ctx, (MlcLoc){0}, "%s: buffer '%s' has scope '%s', which a GPU kernel has no memory for "
                       "(global, shared or local)", sp->fname, b->name, scope), NULL;
    int64_t n;
    if (!const_numel(b, &n))
      return mlc_error(ctx, (MlcLoc){0}, "%s: shared buffer '%s' has a size that is not a constant", sp->fname,
                       b->name), NULL;
    /* inside a threadIdx loop too: lowering gave it the region of the
     * whole thread block (compact.c), so it is the block's one copy */
    mlc_vec_push(&sp->shared, b);
    return kernel_stmt(sp, s->alloc.body, depth);
  }
  }
  return NULL;
}

/* ---- parameters: the global buffers and outer vars a kernel reads ------------------ */

typedef struct Params {
  MlcVisitor v;
  const MlcGpuKernel *k;
  MlcMap bound;      /* vars bound inside the kernel */
  MlcMap seen_buf;
  MlcMap seen_var;
  MLC_VEC(const MlcBuffer *) bufs;
  MLC_VEC(MlcExpr *) vars;
} Params;

static bool params_stmt(MlcVisitor *v, const MlcStmt *s) {
  Params *p = (Params *)v;
  if (s->kind == MLC_STMT_FOR) mlc_map_put(&p->bound, s->loop.var, (void *)s);
  if (s->kind == MLC_STMT_LET) mlc_map_put(&p->bound, s->let.var, (void *)s);
  if (s->kind == MLC_STMT_ALLOCATE) mlc_map_put(&p->seen_buf, s->alloc.buf, (void *)s); /* local */
  return true;
}

static bool params_expr(MlcVisitor *v, const MlcExpr *e) {
  Params *p = (Params *)v;
  if (e->kind == MLC_EXPR_LET) mlc_map_put(&p->bound, e->let.var, (void *)e);
  if (e->kind == MLC_EXPR_VAR && !mlc_map_has(&p->seen_var, e)) {
    mlc_map_put(&p->seen_var, e, (void *)e);
    mlc_vec_push(&p->vars, (MlcExpr *)e);
  }
  return true;
}

static void params_buf(MlcVisitor *v, const MlcBuffer *b) {
  Params *p = (Params *)v;
  if (mlc_map_has(&p->seen_buf, b)) return;
  mlc_map_put(&p->seen_buf, b, (void *)b);
  mlc_vec_push(&p->bufs, b);
}

static void kernel_params(MlcCtx *ctx, MlcGpuKernel *k) {
  Params p = {.v = {.stmt = params_stmt, .expr = params_expr, .buffer_use = params_buf}, .k = k};
  for (int i = 0; i < k->n_shared; i++) mlc_map_put(&p.seen_buf, k->shared[i], (void *)k->shared[i]);
  mlc_visit_stmt(&p.v, k->body);
  /* block extents are computed on the host; the vars they read are passed too */
  MLC_VEC(MlcExpr *) scalars = {0};
  for (size_t i = 0; i < p.vars.len; i++) {
    MlcExpr *x = p.vars.data[i];
    bool axis = x == k->barrier;
    for (int a = 0; a < MLC_GPU_AXIS_COUNT; a++) axis |= x == k->axis[a];
    if (!axis && !mlc_map_has(&p.bound, x) && x->dtype.code != MLC_TC_HANDLE) mlc_vec_push(&scalars, x);
  }
  k->buffers = p.bufs.len ? mlc_vec_to_arena(&ctx->arena, &p.bufs) : NULL;
  k->n_buffers = (int)p.bufs.len;
  k->scalars = scalars.len ? mlc_vec_to_arena(&ctx->arena, &scalars) : NULL;
  k->n_scalars = (int)scalars.len;
  mlc_vec_free(&scalars);
  mlc_vec_free(&p.bufs);
  mlc_vec_free(&p.vars);
  mlc_map_free(&p.bound);
  mlc_map_free(&p.seen_buf);
  mlc_map_free(&p.seen_var);
}

/* ---- the launch limits ------------------------------------------------------------- */

static bool check_launch(Split *sp, MlcGpuKernel *k) {
  int64_t threads = 1;
  for (int a = MLC_GPU_THREAD_X; a <= MLC_GPU_THREAD_Z; a++) {
    int64_t e = 1;
    mlc_e_is_const_int(k->extent[a], &e);
    threads *= e; /* each <= 1024, so no overflow */
  }
  if (threads > sp->lim->max_threads) {
    const char *names = "";
    for (int a = MLC_GPU_THREAD_X; a <= MLC_GPU_THREAD_Z; a++)
      if (sp->axis_loop[a]) names = mlc_internf(sp->ctx, "%s%s'%s'", names, *names ? ", " : "", loop_name(sp->axis_loop[a]));
    return mlc_error(sp->ctx, (MlcLoc){0}, "%s: kernel %s runs %lld threads per block (loops %s), over the device's "
                     "limit of %lld", sp->fname, k->name, (long long)threads, names, (long long)sp->lim->max_threads);
  }
  int64_t bytes = 0;
  for (int i = 0; i < k->n_shared; i++) {
    int64_t n;
    const_numel(k->shared[i], &n);
    bytes += n * (int64_t)mlc_dtype_bytes(k->shared[i]->dtype);
  }
  if (bytes > sp->lim->max_shared_bytes)
    return mlc_error(sp->ctx, (MlcLoc){0}, "%s: kernel %s needs %lld bytes of shared memory, over the device's "
                     "limit of %lld", sp->fname, k->name, (long long)bytes, (long long)sp->lim->max_shared_bytes);
  return true;
}

static bool make_kernel(Split *sp, const MlcStmt *root) {
  MlcCtx *ctx = sp->ctx;
  MlcGpuKernel k = {0};
  /* a C identifier whatever the function is called */
  char base[128];
  snprintf(base, sizeof base, "%s%s", sp->fname[0] >= '0' && sp->fname[0] <= '9' ? "k" : "", sp->fname);
  for (char *p = base; *p; p++)
    if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9'))) *p = '_';
  k.name = sp->kernels.len ? mlc_internf(ctx, "%s_kernel_%zu", base, sp->kernels.len)
                           : mlc_internf(ctx, "%s_kernel", base);
  k.barrier = mlc_e_var(ctx, mlc_intern(ctx, "barrier"), MLC_I32);
  sp->k = &k;
  memset(sp->axis_loop, 0, sizeof sp->axis_loop);
  sp->shared.len = 0;
  MlcStmt *body = kernel_stmt(sp, root, 0);
  if (!body) return false;
  for (int a = 0; a < MLC_GPU_AXIS_COUNT; a++)
    if (!k.extent[a]) k.extent[a] = mlc_e_int(ctx, MLC_I64, 1);
  k.shared = sp->shared.len ? mlc_vec_to_arena(&ctx->arena, &sp->shared) : NULL;
  k.n_shared = (int)sp->shared.len;
  if (!check_launch(sp, &k)) return false;
  if (!(k.body = mlc_gpu_insert_barriers(ctx, &k, body))) return false;
  kernel_params(ctx, &k);
  mlc_vec_push(&sp->kernels, k);
  return true;
}

/* ---- the host level: kernels and device allocations ------------------------------- */

static bool host_stmt(Split *sp, const MlcStmt *s) {
  MlcCtx *ctx = sp->ctx;
  switch (s->kind) {
  case MLC_STMT_SEQ:
    for (int i = 0; i < s->seq.n; i++)
      if (!host_stmt(sp, s->seq.items[i])) return false;
    return true;
  case MLC_STMT_ALLOCATE: {
    const MlcBuffer *b = s->alloc.buf;
    if (b->scope && (strcmp(b->scope, "shared") == 0 || strcmp(b->scope, "local") == 0))
      return mlc_error(ctx, (MlcLoc){0}, "%s: %s buffer '%s' is allocated outside every kernel: its stage must be "
                       "computed under a loop bound to blockIdx", sp->fname, b->scope, b->name);
    mlc_vec_push(&sp->device, b);
    return host_stmt(sp, s->alloc.body);
  }
  case MLC_STMT_FOR: {
    if (s->loop.kind == MLC_FOR_THREAD) return make_kernel(sp, s);
    int64_t ext;
    char extent[32] = "symbolic";
    if (mlc_e_is_const_int(s->loop.extent, &ext)) snprintf(extent, sizeof extent, "%lld", (long long)ext);
    return mlc_error(ctx, (MlcLoc){0}, "%s: loop '%s' (extent %s) is not bound to a thread axis and runs outside "
                     "every kernel; on a GPU bind it (sch.bind to blockIdx.x or threadIdx.x) or put it under a "
                     "bound loop", sp->fname, loop_name(s), extent);
  }
  default:
    return mlc_error(ctx, (MlcLoc){0}, "%s: a statement runs outside every thread-bound loop; on a GPU everything "
                     "must run in a kernel (bind its loops to blockIdx/threadIdx)", sp->fname);
  }
}

MlcGpuFunc *mlc_lower_gpu(MlcCtx *ctx, const MlcPrimFunc *f, const MlcGpuLimits *limits) {
  if (!(f = mlc_gpu_lower_cross_thread(ctx, f))) return NULL;
  RedCheck rc = {.v = {.stmt = red_stmt}, .ctx = ctx, .fname = f->name};
  mlc_visit_stmt(&rc.v, f->body);
  mlc_vec_free(&rc.thread_loops);
  if (rc.failed) return NULL;
  MlcPrimFunc *low = mlc_lower_prim_func(ctx, f, MLC_LOWER_STAGE_COUNT - 1, NULL, NULL);
  if (!low) return NULL;
  Split sp = {.ctx = ctx, .fname = f->name, .lim = limits ? limits : &mlc_gpu_default_limits};
  bool ok = host_stmt(&sp, low->body);
  MlcGpuFunc *g = NULL;
  if (ok) {
    g = mlc_arena_array(&ctx->arena, 1, sizeof *g);
    g->lowered = low;
    g->n_kernels = (int)sp.kernels.len;
    g->kernels = sp.kernels.len ? mlc_vec_to_arena(&ctx->arena, &sp.kernels) : NULL;
    g->n_device = (int)sp.device.len;
    g->device = sp.device.len ? mlc_vec_to_arena(&ctx->arena, &sp.device) : NULL;
  }
  mlc_vec_free(&sp.kernels);
  mlc_vec_free(&sp.shared);
  mlc_vec_free(&sp.device);
  return g;
}

bool mlc_gpu_accepts(MlcCtx *ctx, const MlcPrimFunc *f, void *limits) {
  bool ok = mlc_lower_gpu(ctx, f, limits) != NULL;
  mlc_clear_error(ctx);
  return ok;
}
