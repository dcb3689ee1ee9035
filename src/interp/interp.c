/* interp.c - the reference interpreter of TIR (see include/mlcc/interp.h):
 * statements, arguments and the entry points.
 *
 * A run mirrors the function (mirror.c) and walks the mirror: blocks bind
 * their iter vars and run their init at the first value of every reduce
 * iter var, loops of every kind run serially, allocations get zeroed
 * storage for their extent.  The arguments are checked against the
 * signature -- the function as written, which may differ from the
 * (flattened) function run -- and bind the symbolic sizes. */
#include "interp_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool interp_fail(Interp *in, const char *fmt, ...) {
  if (!in->failed) {
    MlcStrBuf sb = {0};
    va_list ap;
    va_start(ap, fmt);
    mlc_sb_vprintf(&sb, fmt, ap);
    va_end(ap);
    if (in->block)
      mlc_error(in->ctx, (MlcLoc){0}, "function '%s', block '%s': %s", in->func->name, in->block, mlc_sb_cstr(&sb));
    else
      mlc_error(in->ctx, (MlcLoc){0}, "function '%s': %s", in->func->name, mlc_sb_cstr(&sb));
    mlc_vec_free(&sb);
  }
  in->failed = true;
  return false;
}

/* ---- statements --------------------------------------------------------------- */

static bool exec(Interp *in, const CStmt *c);

/* storage for an allocated buffer: compact row-major over its shape */
static bool alloc_buffer(Interp *in, int slot, BufBind *bb) {
  const BufInfo *bi = in->bufs.data[slot];
  const MlcBuffer *buf = bi->buf;
  size_t esize = mlc_dtype_bytes(mlc_dtype_elem(buf->dtype));
  int64_t numel = 1;
  memset(bb, 0, sizeof *bb);
  bb->shape = calloc((size_t)buf->ndim + 1, sizeof(int64_t));
  bb->strides = calloc((size_t)buf->ndim + 1, sizeof(int64_t));
  if (!bb->shape || !bb->strides) return interp_fail(in, "out of memory for buffer '%s'", buf->name);
  for (int d = 0; d < buf->ndim; d++) {
    int64_t k;
    if (!interp_eval_int(in, bi->shape[d], 0, &k)) return false;
    if (k < 0 || (k > 0 && numel > (int64_t)(MLC_INTERP_MAX_ALLOC / esize) / k))
      return interp_fail(in, "buffer '%s' has a negative size or is larger than the interpreter's limit", buf->name);
    bb->shape[d] = k;
    numel *= k;
  }
  int64_t st = 1;
  for (int d = buf->ndim - 1; d >= 0; d--) {
    bb->strides[d] = st;
    st *= bb->shape[d] ? bb->shape[d] : 1;
  }
  bb->numel = numel;
  bb->data = calloc((size_t)(numel ? numel : 1), esize);
  if (!bb->data) return interp_fail(in, "out of memory for buffer '%s'", buf->name);
  return true;
}

static void release_buffer(BufBind *bb) {
  free(bb->data);
  free(bb->shape);
  free(bb->strides);
}

/* Allocate the buffers of `slots`, run body (or the block when body is
 * NULL), release them and restore what the slots held before. */
static bool exec_block_body(Interp *in, const CStmt *c);
static bool with_buffers(Interp *in, const int *slots, int n, const CStmt *body, const CStmt *block) {
  if (n == 0) return body ? exec(in, body) : exec_block_body(in, block);
  BufBind *binds = calloc((size_t)n, sizeof *binds);
  BufBind **old = calloc((size_t)n, sizeof *old);
  bool ok = binds && old;
  if (!ok) interp_fail(in, "out of memory");
  int made = 0;
  for (; ok && made < n; made++) {
    old[made] = in->bound[slots[made]];
    in->bound[slots[made]] = &binds[made];
    ok = alloc_buffer(in, slots[made], &binds[made]);
  }
  if (ok) ok = body ? exec(in, body) : exec_block_body(in, block);
  for (int i = made - 1; i >= 0; i--) {
    release_buffer(&binds[i]);
    in->bound[slots[i]] = old[i];
  }
  free(binds);
  free(old);
  return ok && !in->failed;
}

/* init runs when every reduce iter var is at its domain's minimum */
static bool exec_block_body(Interp *in, const CStmt *c) {
  const MlcBlock *b = c->s->realize.block;
  if (c->k[0]) {
    bool first = true;
    int n = b->n_iters;
    for (int i = 0; i < n && first; i++) {
      if (b->iters[i].kind != MLC_ITER_REDUCE) continue;
      int64_t lo;
      if (!interp_eval_int(in, c->e[n + 1 + i], 0, &lo)) return false;
      first = in->vars[c->slots[i]].lanes[0].i == lo;
    }
    if (first && !exec(in, c->k[0])) return false;
  }
  return exec(in, c->k[1]);
}

static bool exec_realize(Interp *in, const CStmt *c) {
  const MlcBlock *b = c->s->realize.block;
  int n = b->n_iters;
  Val vals_stack[STACK_ITERS];
  Slot old_stack[STACK_ITERS];
  Val *vals = n <= STACK_ITERS ? vals_stack : calloc((size_t)n, sizeof *vals);
  Slot *old = n <= STACK_ITERS ? old_stack : calloc((size_t)n, sizeof *old);
  bool ok = vals && old;
  if (!ok) interp_fail(in, "out of memory");
  for (int i = 0; ok && i < n; i++) {
    vals[i] = interp_eval(in, c->e[i], 0);
    ok = !in->failed;
  }
  bool run = ok && (!c->e[n] || interp_eval(in, c->e[n], 0).i) && !in->failed;
  if (run) {
    const char *outer = in->block;
    for (int i = 0; i < n; i++) {
      old[i] = in->vars[c->slots[i]];
      in->vars[c->slots[i]] = (Slot){&vals[i], 1};
    }
    in->block = b->name;
    ok = with_buffers(in, c->slots + n, b->n_allocs, NULL, c);
    if (ok) in->block = outer; /* a failure keeps naming the block */
    for (int i = n - 1; i >= 0; i--) in->vars[c->slots[i]] = old[i];
  }
  if (vals != vals_stack) free(vals);
  if (old != old_stack) free(old);
  return ok && !in->failed;
}

static bool exec_store(Interp *in, const CStmt *c) {
  const MlcStmt *s = c->s;
  int lanes = s->store.value->dtype.lanes, n = s->store.n;
  MlcDType et = mlc_dtype_elem(s->store.buf->dtype);
  size_t esize = mlc_dtype_bytes(et);
  if (lanes == 1) { /* the common case, without the lane arrays */
    const BufBind *bb1;
    int64_t off;
    Val v = interp_eval(in, c->e[n], 0);
    if (in->failed || !interp_elem_index(in, c->slot, c->e, c->idx, n, 0, &bb1, &off)) return false;
    interp_store_elem(et, bb1->data + (size_t)off * esize, v);
    return true;
  }
  /* evaluate every lane before writing any, as a vector store does */
  Val vals[MAX_LANES];
  int64_t offs[MAX_LANES];
  const BufBind *bb = NULL;
  for (int l = 0; l < lanes; l++) {
    vals[l] = interp_eval(in, c->e[n], l);
    if (in->failed || !interp_elem_index(in, c->slot, c->e, c->idx, n, l, &bb, &offs[l])) return false;
  }
  for (int l = 0; l < lanes; l++) interp_store_elem(et, bb->data + (size_t)offs[l] * esize, vals[l]);
  return true;
}

static bool exec_for(Interp *in, const CStmt *c) {
  int64_t lo, ext;
  if (!interp_eval_int(in, c->e[0], 0, &lo) || !interp_eval_int(in, c->e[1], 0, &ext)) return false;
  Slot *sl = &in->vars[c->slot], old = *sl;
  Val v = {0, 0};
  *sl = (Slot){&v, 1};
  MlcDType t = c->s->loop.var->dtype;
  bool ok = true;
  for (int64_t k = 0; ok && k < ext; k++) {
    v.i = interp_wrap_int(t, (int64_t)((uint64_t)lo + (uint64_t)k));
    ok = exec(in, c->k[0]);
  }
  *sl = old;
  return ok;
}

static bool exec_let(Interp *in, const CStmt *c) {
  int lanes = c->s->let.value->dtype.lanes;
  Val *vals = calloc((size_t)lanes, sizeof *vals);
  if (!vals) return interp_fail(in, "out of memory");
  for (int l = 0; l < lanes; l++) vals[l] = interp_eval(in, c->e[0], l);
  Slot *sl = &in->vars[c->slot], old = *sl;
  *sl = (Slot){vals, lanes};
  bool ok = !in->failed && exec(in, c->k[0]);
  *sl = old;
  free(vals);
  return ok;
}

static bool exec(Interp *in, const CStmt *c) {
  if (in->failed) return false;
  const MlcStmt *s = c->s;
  switch (s->kind) {
  case MLC_STMT_STORE: return exec_store(in, c);
  case MLC_STMT_FOR: return exec_for(in, c);
  case MLC_STMT_BLOCK_REALIZE: return exec_realize(in, c);
  case MLC_STMT_SEQ:
    for (int i = 0; i < s->seq.n; i++)
      if (!exec(in, c->k[i])) return false;
    return true;
  case MLC_STMT_IF: {
    Val v = interp_eval(in, c->e[0], 0);
    if (in->failed) return false;
    if (v.i) return exec(in, c->k[0]);
    return c->k[1] ? exec(in, c->k[1]) : true;
  }
  case MLC_STMT_LET: return exec_let(in, c);
  case MLC_STMT_ALLOCATE: return with_buffers(in, &c->slot, 1, c->k[0], NULL);
  case MLC_STMT_EVALUATE:
    for (int l = 0; l < s->eval->dtype.lanes; l++) interp_eval(in, c->e[0], l);
    return !in->failed;
  }
  return false;
}

/* ---- arguments ------------------------------------------------------------------ */

static bool check_arg(Interp *in, const MlcParam *p, const MlcInterpArg *a, int i) {
  if (!p->buf) {
    if (a->is_buffer) return interp_fail(in, "argument '%s' (#%d) must be a scalar, not a buffer", p->var->var.name, i + 1);
    return true;
  }
  const MlcBuffer *b = p->buf;
  if (!a->is_buffer) return interp_fail(in, "argument '%s' (#%d) must be a buffer, not a scalar", b->name, i + 1);
  if (!a->data) return interp_fail(in, "argument '%s' (#%d) has no data", b->name, i + 1);
  if (a->ndim != b->ndim)
    return interp_fail(in, "argument '%s' (#%d) must have rank %d, not %d", b->name, i + 1, b->ndim, a->ndim);
  if (b->ndim > 0 && !a->shape) return interp_fail(in, "argument '%s' (#%d) has no shape", b->name, i + 1);
  for (int d = 0; d < b->ndim; d++)
    if (a->shape[d] < 0) return interp_fail(in, "argument '%s' (#%d): dimension %d is negative", b->name, i + 1, d);
  return true;
}

static void shape_text(MlcStrBuf *sb, const int64_t *shape, int n) {
  mlc_sb_putc(sb, '(');
  for (int d = 0; d < n; d++) mlc_sb_printf(sb, "%s%lld", d ? ", " : "", (long long)shape[d]);
  mlc_sb_putc(sb, ')');
}

/* the mirrored shape of a param buffer (numbered by mirror_signature) */
static const BufInfo *info(Interp *in, const MlcBuffer *b) { return in->bufs.data[interp_buf_slot(in, b)]; }

/* Bind the size vars of sig's buffer shapes from the arguments (the first
 * buffer naming a var binds it), then check every dimension against them. */
static bool bind_sizes(Interp *in, const MlcPrimFunc *sig, const MlcInterpArg *args, Val *vals) {
  for (int i = 0; i < sig->n_params; i++) {
    const MlcBuffer *b = sig->params[i].buf;
    for (int d = 0; b && d < b->ndim; d++) {
      const MlcExpr *dim = b->shape[d];
      if (dim->kind != MLC_EXPR_VAR) continue;
      Slot *sl = &in->vars[interp_var_slot(in, dim)];
      if (sl->lanes) continue;
      Val *v = &vals[i * MAX_RANK + d];
      *v = interp_make(dim->dtype, args[i].shape[d], 0);
      *sl = (Slot){v, 1};
    }
  }
  for (int i = 0; i < sig->n_params; i++) {
    const MlcBuffer *b = sig->params[i].buf;
    for (int d = 0; b && d < b->ndim; d++) {
      int64_t want;
      if (!interp_eval_int(in, info(in, b)->shape[d], 0, &want)) return false;
      if (want == args[i].shape[d]) continue;
      MlcStrBuf sb = {0};
      shape_text(&sb, args[i].shape, b->ndim);
      interp_fail(in, "argument '%s' (#%d): dimension %d is %lld but the buffer needs %lld (shape given %s)", b->name, i + 1,
           d, (long long)args[i].shape[d], (long long)want, mlc_sb_cstr(&sb));
      mlc_vec_free(&sb);
      return false;
    }
  }
  return true;
}

/* Elements of caller storage an argument spans under sig's view of it: the
 * dense extent of its shape, or as far as the strides reach, plus the
 * offset. */
static bool storage_extent(Interp *in, const MlcBuffer *b, const MlcInterpArg *a, int64_t *out) {
  int64_t offset = 0, far = 0, numel = 1;
  const BufInfo *bi = info(in, b);
  if (bi->offset && !interp_eval_int(in, bi->offset, 0, &offset)) return false;
  for (int d = 0; d < b->ndim; d++) {
    int64_t st = 0;
    if (bi->strides && !interp_eval_int(in, bi->strides[d], 0, &st)) return false;
    if (a->shape[d] == 0) numel = 0;
    else if (numel && __builtin_mul_overflow(numel, a->shape[d], &numel))
      return interp_fail(in, "argument '%s' has more elements than fit in 64 bits", b->name);
    if (b->strides && a->shape[d] > 0) far += (a->shape[d] - 1) * st;
  }
  *out = numel == 0 ? 0 : offset + (b->strides ? far + 1 : numel);
  return true;
}

/* The view f's param buffer has of the data: its own shape, strides and
 * offset, evaluated once the sizes are bound. */
static bool bind_view(Interp *in, const MlcBuffer *b, const MlcInterpArg *a, int64_t extent, BufBind *bb) {
  int nd = b->ndim;
  const BufInfo *bi = info(in, b);
  bb->shape = mlc_arena_array(&in->arena, (size_t)nd + 1, sizeof(int64_t));
  bb->strides = mlc_arena_array(&in->arena, (size_t)nd + 1, sizeof(int64_t));
  int64_t span = 1;
  for (int d = nd - 1; d >= 0; d--) {
    int64_t k, st = span;
    if (!interp_eval_int(in, bi->shape[d], 0, &k)) return false;
    if (bi->strides && !interp_eval_int(in, bi->strides[d], 0, &st)) return false;
    bb->shape[d] = k;
    bb->strides[d] = st;
    span = k > 0 ? span * k : span;
  }
  if (bi->offset && !interp_eval_int(in, bi->offset, 0, &bb->offset)) return false;
  bb->data = a->data;
  bb->numel = extent;
  return true;
}

static bool bind_args(Interp *in, const MlcPrimFunc *sig, const MlcPrimFunc *f, const MlcInterpArg *args, int n,
                      Val *vals) {
  if (n != sig->n_params) return interp_fail(in, "takes %d arguments, %d given", sig->n_params, n);
  if (n > 0 && !args) return interp_fail(in, "the argument array is NULL");
  if (f->n_params != n) return interp_fail(in, "the lowered function has %d params, its signature %d", f->n_params, n);
  for (int i = 0; i < n; i++) {
    if (!sig->params[i].buf != !f->params[i].buf)
      return interp_fail(in, "param #%d is a buffer in one of the function and its signature only", i + 1);
    if (sig->params[i].buf && sig->params[i].buf->ndim > MAX_RANK)
      return interp_fail(in, "buffer '%s' has more than %d dimensions", sig->params[i].buf->name, MAX_RANK);
    if (!check_arg(in, &sig->params[i], &args[i], i)) return false;
  }
  /* scalars first: a buffer's shape may use them */
  for (int i = 0; i < n; i++) {
    if (sig->params[i].buf) continue;
    Val *v = &vals[i * MAX_RANK];
    *v = interp_make(sig->params[i].var->dtype, args[i].i, args[i].f);
    in->vars[interp_var_slot(in, sig->params[i].var)] = (Slot){v, 1};
    in->vars[interp_var_slot(in, f->params[i].var)] = (Slot){v, 1};
  }
  if (!bind_sizes(in, sig, args, vals)) return false;
  for (int i = 0; i < n; i++) {
    if (!sig->params[i].buf) continue;
    int64_t extent = 0;
    BufBind *bb = mlc_arena_alloc(&in->arena, sizeof *bb);
    if (!storage_extent(in, sig->params[i].buf, &args[i], &extent) ||
        !bind_view(in, f->params[i].buf, &args[i], extent, bb))
      return false;
    in->bound[interp_buf_slot(in, f->params[i].buf)] = bb;
  }
  return true;
}

/* Slots are numbered while mirroring; every var and buffer the arguments
 * touch is mirrored first so the slot tables can be sized once. */
static void mirror_signature(Interp *in, const MlcPrimFunc *f) {
  for (int i = 0; i < f->n_params; i++) {
    interp_var_slot(in, f->params[i].var);
    if (f->params[i].buf) interp_buf_slot(in, f->params[i].buf);
  }
}

bool mlc_interp_run_lowered(MlcCtx *ctx, const MlcPrimFunc *sig, const MlcPrimFunc *f, const MlcInterpArg *args,
                            int n) {
  Interp in = {.ctx = ctx, .func = f};
  mlc_arena_init(&in.arena);
  mirror_signature(&in, sig);
  mirror_signature(&in, f);
  CStmt *body = interp_mirror_stmt(&in, f->body);
  in.vars = calloc((size_t)in.nvars + 1, sizeof *in.vars);
  in.bound = calloc(in.bufs.len + 1, sizeof *in.bound);
  Val *vals = calloc((size_t)(n > 0 ? n : 1) * MAX_RANK, sizeof *vals);
  bool ok = !in.failed;
  if (ok && (!in.vars || !in.bound || !vals)) ok = interp_fail(&in, "out of memory");
  if (ok) ok = bind_args(&in, sig, f, args, n, vals);
  if (ok && body) ok = exec(&in, body);
  free(vals);
  free(in.vars);
  free(in.bound);
  mlc_vec_free(&in.bufs);
  mlc_map_free(&in.var_slot);
  mlc_map_free(&in.buf_slot);
  mlc_arena_free(&in.arena);
  return ok && !in.failed;
}

bool mlc_interp_run(MlcCtx *ctx, const MlcPrimFunc *f, const MlcInterpArg *args, int n) {
  return mlc_interp_run_lowered(ctx, f, f, args, n);
}
