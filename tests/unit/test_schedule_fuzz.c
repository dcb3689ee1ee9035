/* test_schedule_fuzz.c - the schedule fuzzer: random primitive sequences
 * over the programs of tests/golden/fuzz_corpus/, each checked against the
 * reference interpreter.
 *
 * For every program, deterministic seeds drive sequences of STEPS random
 * primitives with sensible random arguments (blocks named in the current
 * function, loops from get_loops, factors that mostly divide).  After each
 * application:
 *   accepted -> the function computes what the original computes on the
 *               same inputs (multiples of 1/16, so sums are exact; rtol 1e-5)
 *   refused  -> the module is the same pointer, structurally equal, and
 *               of the same structural hash as before the step (so an
 *               in-place change of a node would be caught too).
 * Every module a step produces must also print as text that reads back
 * structurally equal.  At the end of a sequence its printed trace is
 * replayed on the original module and must give a structurally equal module.
 *
 * Every sequence gets a fresh context, so a long run does not grow the
 * arena.  A failure prints a FAIL line with the program, seed and step, then
 * the trace (and the refused instruction) as `#` lines: a script that
 * `mlcc schedule` replays.  MLC_SCHED_FUZZ_SECONDS=N runs for N seconds
 * (split evenly over the programs) instead of a fixed number of sequences
 * and prints per-primitive counts. */
#include <assert.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "mlcc/interp.h"
#include "mlcc/schedule.h"
#include "mlcc/text.h"
#include "schedule/state.h"

#define CORPUS_DIR "tests/golden/fuzz_corpus"
#define STEPS 6            /* primitives per sequence */
#define MAX_ARGS 8
#define MAX_LOOPS 16
#define MAX_BLOCKS 32
#define MAX_PARAMS 8
#define MAX_FAILS_SHOWN 3  /* per program: the first ones say enough */
#define RTOL 1e-5

/* sequences per program in the default (bounded) run: the sanitizers slow
 * the interpreter tenfold and more, so they get fewer */
#if defined(__SANITIZE_ADDRESS__)
#define DEFAULT_SEQS 40
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define DEFAULT_SEQS 40
#endif
#endif
#ifndef DEFAULT_SEQS
#define DEFAULT_SEQS 150
#endif

/* the corpus, one unit test per program */
#define CORPUS(X) \
  X(matmul) X(bmm) X(conv2d) X(depthwise_conv2d) X(pooling) X(softmax) X(layer_norm) \
  X(transpose) X(reduce_sum) X(elementwise) X(dense_bias)

/* the primitives fuzzed; each has a generator of arguments below */
#define FUZZ_PRIMS(X)                                                                   \
  X(split) X(fuse) X(reorder) X(parallel) X(vectorize) X(unroll) X(compute_at)          \
  X(reverse_compute_at) X(compute_inline) X(reverse_compute_inline) X(cache_read)      \
  X(cache_write) X(decompose_reduction) X(rfactor) X(blockize) X(transform_layout)

typedef enum FuzzPrim {
#define X(name) FP_##name,
  FUZZ_PRIMS(X)
#undef X
  FP_COUNT
} FuzzPrim;

static const MlcSchPrim fuzz_prim_ids[FP_COUNT] = {
#define X(name) MLC_SCH_##name,
    FUZZ_PRIMS(X)
#undef X
};

typedef struct Counts { long accepted, refused, checked, failures; } Counts;
static Counts counts[FP_COUNT];
static long n_sequences, n_replays, n_trace_failures;

/* ---- random numbers ---------------------------------------------------------- */

static uint64_t rng_next(uint64_t *x) {
  *x ^= *x << 13;
  *x ^= *x >> 7;
  *x ^= *x << 17;
  return *x;
}
static int rnd(uint64_t *x, int n) { return n > 0 ? (int)(rng_next(x) % (uint64_t)n) : 0; }

/* ---- a program of the corpus and its reference outputs ------------------------ */

typedef struct Buf {
  bool is_buffer;
  MlcDType dtype;
  int ndim;
  int64_t shape[8];
  size_t numel, bytes;
  void *input;     /* the random data every run starts from */
  void *expected;  /* what the original function leaves */
} Buf;

typedef struct Program {
  const char *name;
  char path[256];
  char *text;
  size_t len;
  Buf params[MAX_PARAMS];
  int n_params;
  int fails_shown;
} Program;

static void fill(MlcDType t, void *p, size_t numel, uint64_t *rng) {
  for (size_t i = 0; i < numel; i++) {
    int r = (int)(rng_next(rng) % 33) - 16;
    if (t.code == MLC_TC_FLOAT && t.bits == 32) ((float *)p)[i] = (float)r / 16.0f;
    else if (t.code == MLC_TC_FLOAT && t.bits == 64) ((double *)p)[i] = r / 16.0;
  }
}

static double elem(MlcDType t, const void *p, size_t i) {
  return t.bits == 64 ? ((const double *)p)[i] : ((const float *)p)[i];
}

/* the param buffers' shapes (constant in the corpus; float32/64 only) */
static bool size_params(Program *p, const MlcPrimFunc *f) {
  if (f->n_params > MAX_PARAMS) return false;
  p->n_params = f->n_params;
  for (int i = 0; i < f->n_params; i++) {
    const MlcBuffer *b = f->params[i].buf;
    Buf *a = &p->params[i];
    if (!b) continue;
    if (b->ndim > 8 || b->dtype.code != MLC_TC_FLOAT || (b->dtype.bits != 32 && b->dtype.bits != 64)) return false;
    a->is_buffer = true;
    a->dtype = b->dtype;
    a->ndim = b->ndim;
    a->numel = 1;
    for (int d = 0; d < b->ndim; d++) {
      if (b->shape[d]->kind != MLC_EXPR_INT) return false;
      a->shape[d] = b->shape[d]->int_val;
      a->numel *= (size_t)a->shape[d];
    }
    a->bytes = a->numel * mlc_dtype_bytes(b->dtype);
  }
  return true;
}

/* run f on copies of the inputs; the copies are returned in work[] */
static bool run_on_inputs(MlcCtx *ctx, const Program *p, const MlcPrimFunc *f, void **work) {
  MlcInterpArg ia[MAX_PARAMS];
  for (int i = 0; i < p->n_params; i++) {
    const Buf *a = &p->params[i];
    work[i] = NULL;
    if (!a->is_buffer) {
      ia[i] = (MlcInterpArg){.i = 8, .f = 0.5};
      continue;
    }
    work[i] = malloc(a->bytes);
    memcpy(work[i], a->input, a->bytes);
    ia[i] = (MlcInterpArg){.is_buffer = true, .data = work[i], .ndim = a->ndim, .shape = a->shape};
  }
  return f->n_params == p->n_params && mlc_interp_run(ctx, f, ia, p->n_params);
}

static void free_work(const Program *p, void **work) {
  for (int i = 0; i < p->n_params; i++) free(work[i]);
}

static bool load_program(Program *p, const char *name) {
  memset(p, 0, sizeof *p);
  p->name = name;
  snprintf(p->path, sizeof p->path, "%s/%s.py", CORPUS_DIR, name);
  MlcCtx *ctx = mlc_ctx_new();
  p->text = mlc_read_file(ctx, p->path, (size_t)1 << 20, &p->len);
  MlcModule *m = p->text ? mlc_read_module(ctx, p->path, p->text, p->len) : NULL;
  MlcSchedule *s = m ? mlc_sch_new(ctx, m, NULL, 0) : NULL;
  bool ok = s && size_params(p, mlc_sch_func(s));
  void *work[MAX_PARAMS] = {0};
  uint64_t rng = 0x9e3779b97f4a7c15ull;
  for (int i = 0; ok && i < p->n_params; i++) {
    Buf *a = &p->params[i];
    if (!a->is_buffer) continue;
    a->input = calloc(1, a->bytes);
    fill(a->dtype, a->input, a->numel, &rng);
  }
  if (ok) ok = run_on_inputs(ctx, p, mlc_sch_func(s), work);
  for (int i = 0; ok && i < p->n_params; i++) p->params[i].expected = work[i], work[i] = NULL;
  if (!ok) printf("FAIL fuzz/%s: cannot load: %s\n", name, mlc_error_msg(ctx) ? mlc_error_msg(ctx) : "unsupported params");
  free_work(p, work);
  if (s) mlc_sch_free(s);
  mlc_ctx_free(ctx);
  return ok;
}

static void free_program(Program *p) {
  for (int i = 0; i < p->n_params; i++) free(p->params[i].input), free(p->params[i].expected);
  free(p->text);
}

/* ---- looking at the current function ------------------------------------------ */

static void collect_blocks(const MlcStmt *st, const char **names, int *n) {
  if (!st) return;
  switch (st->kind) {
  case MLC_STMT_FOR: collect_blocks(st->loop.body, names, n); return;
  case MLC_STMT_BLOCK_REALIZE:
    if (*n < MAX_BLOCKS && strcmp(st->realize.block->name, "root") != 0) names[(*n)++] = st->realize.block->name;
    collect_blocks(st->realize.block->body, names, n);
    return;
  case MLC_STMT_SEQ:
    for (int i = 0; i < st->seq.n; i++) collect_blocks(st->seq.items[i], names, n);
    return;
  case MLC_STMT_IF: collect_blocks(st->if_.then_s, names, n), collect_blocks(st->if_.else_s, names, n); return;
  case MLC_STMT_LET: collect_blocks(st->let.body, names, n); return;
  case MLC_STMT_ALLOCATE: collect_blocks(st->alloc.body, names, n); return;
  case MLC_STMT_STORE:
  case MLC_STMT_EVALUATE: return;
  }
}

static const MlcStmt *find_realize(const MlcStmt *st, const char *name) {
  if (!st) return NULL;
  const MlcStmt *r = NULL;
  switch (st->kind) {
  case MLC_STMT_FOR: return find_realize(st->loop.body, name);
  case MLC_STMT_BLOCK_REALIZE:
    return st->realize.block->name == name ? st : find_realize(st->realize.block->body, name);
  case MLC_STMT_SEQ:
    for (int i = 0; i < st->seq.n && !r; i++) r = find_realize(st->seq.items[i], name);
    return r;
  case MLC_STMT_IF: return (r = find_realize(st->if_.then_s, name)) ? r : find_realize(st->if_.else_s, name);
  case MLC_STMT_LET: return find_realize(st->let.body, name);
  case MLC_STMT_ALLOCATE: return find_realize(st->alloc.body, name);
  case MLC_STMT_STORE:
  case MLC_STMT_EVALUATE: return NULL;
  }
  return NULL;
}

static const MlcBlock *find_block(const MlcStmt *st, const char *name) {
  const MlcStmt *r = find_realize(st, name);
  return r ? r->realize.block : NULL;
}

static const MlcStmt *find_for(const MlcStmt *st, const MlcExpr *var) {
  if (!st) return NULL;
  const MlcStmt *r = NULL;
  switch (st->kind) {
  case MLC_STMT_FOR: return st->loop.var == var ? st : find_for(st->loop.body, var);
  case MLC_STMT_BLOCK_REALIZE: return find_for(st->realize.block->body, var);
  case MLC_STMT_SEQ:
    for (int i = 0; i < st->seq.n && !r; i++) r = find_for(st->seq.items[i], var);
    return r;
  case MLC_STMT_IF: return (r = find_for(st->if_.then_s, var)) ? r : find_for(st->if_.else_s, var);
  case MLC_STMT_LET: return find_for(st->let.body, var);
  case MLC_STMT_ALLOCATE: return find_for(st->alloc.body, var);
  case MLC_STMT_STORE:
  case MLC_STMT_EVALUATE: return NULL;
  }
  return NULL;
}

/* ---- one sequence --------------------------------------------------------------- */

typedef struct Seq {
  MlcCtx *ctx;
  MlcSchedule *s;
  uint64_t rng;
  /* the names a trace prints for handles: rv id -> running index, as the
   * trace printer numbers the outputs of recorded instructions */
  int names[4096];
  int next_name;
  bool stop; /* a step computed a wrong result: the rest of the sequence is moot */
} Seq;

static MlcSchVal v_int(int64_t i) { return (MlcSchVal){.kind = MLC_SV_INT, .i = i}; }
static MlcSchVal v_bool(bool b) { return (MlcSchVal){.kind = MLC_SV_BOOL, .i = b}; }
static MlcSchVal v_str(Seq *q, const char *s) { return (MlcSchVal){.kind = MLC_SV_STR, .s = mlc_intern(q->ctx, s)}; }
static MlcSchVal v_list(Seq *q, const MlcSchVal *items, int n) {
  MlcSchVal *copy = mlc_arena_alloc(&q->ctx->arena, (size_t)(n ? n : 1) * sizeof *copy);
  memcpy(copy, items, (size_t)n * sizeof *copy);
  return (MlcSchVal){.kind = MLC_SV_LIST, .list = {copy, n}};
}

/* the position of parameter `name` of prim in the primitive table (a
 * leading '*' marks a variadic one) */
static int param_index(MlcSchPrim prim, const char *name) {
  const char *p = mlc_sch_prim_params[prim];
  size_t n = strlen(name);
  for (int i = 0; *p; i++) {
    while (*p == ' ') p++;
    if (*p == '*') p++;
    size_t len = strcspn(p, " ");
    if (len == n && memcmp(p, name, n) == 0) return i;
    p += len;
  }
  assert(!"no such parameter");
  return 0;
}

static void set_arg(MlcSchVal *args, MlcSchPrim prim, const char *name, MlcSchVal v) {
  args[param_index(prim, name)] = v;
}

/* apply and, when accepted, name the outputs as the trace will */
static bool apply(Seq *q, MlcSchPrim prim, const MlcSchVal *args, MlcSchVal *outs, int *n_outs) {
  bool ok = mlc_sch_apply(q->s, prim, args, outs, n_outs);
  for (int o = 0; ok && o < *n_outs; o++) {
    int id = outs[o].rv;
    bool handle = outs[o].kind == MLC_SV_BLOCK || outs[o].kind == MLC_SV_LOOP || outs[o].kind == MLC_SV_INTRV;
    if (handle && id >= 0 && id < (int)(sizeof q->names / sizeof q->names[0]) && q->names[id] < 0) q->names[id] = q->next_name++;
  }
  return ok;
}

/* a handle of a random block of the current function; false when none */
static bool pick_block(Seq *q, MlcSchVal *out, const char **name) {
  const char *names[MAX_BLOCKS];
  int n = 0;
  collect_blocks(mlc_sch_func(q->s)->body, names, &n);
  if (!n) return false;
  *name = names[rnd(&q->rng, n)];
  MlcSchVal args[MAX_ARGS] = {{0}}, outs[MLC_SCH_MAX_OUTS];
  int n_outs;
  set_arg(args, MLC_SCH_get_block, "name", v_str(q, *name));
  if (!apply(q, MLC_SCH_get_block, args, outs, &n_outs) || n_outs != 1) return mlc_clear_error(q->ctx), false;
  *out = outs[0];
  return true;
}

static int get_loops(Seq *q, MlcSchVal block, MlcSchVal *loops) {
  MlcSchVal args[MAX_ARGS] = {{0}}, outs[MLC_SCH_MAX_OUTS];
  int n_outs;
  set_arg(args, MLC_SCH_get_loops, "block", block);
  if (!apply(q, MLC_SCH_get_loops, args, outs, &n_outs)) return mlc_clear_error(q->ctx), 0;
  memcpy(loops, outs, (size_t)n_outs * sizeof *outs);
  return n_outs;
}

/* a random block with at least one loop, and its loops */
static int pick_block_loops(Seq *q, MlcSchVal *block, const char **name, MlcSchVal *loops) {
  return pick_block(q, block, name) ? get_loops(q, *block, loops) : 0;
}

/* a random loop of a random block */
static bool pick_loop(Seq *q, MlcSchVal *loop) {
  MlcSchVal b, loops[MLC_SCH_MAX_OUTS];
  const char *name;
  int n = pick_block_loops(q, &b, &name, loops);
  if (!n) return false;
  *loop = loops[rnd(&q->rng, n)];
  return true;
}

static int64_t loop_extent(Seq *q, MlcSchVal loop) {
  const MlcStmt *f = find_for(mlc_sch_func(q->s)->body, q->s->rvs.data[loop.rv].loop_var);
  return f && f->loop.extent->kind == MLC_EXPR_INT ? f->loop.extent->int_val : 0;
}

/* a factor of n: usually a divisor, sometimes anything up to n + 1 (a
 * non-dividing split adds a predicate) */
static int64_t factor_of(Seq *q, int64_t n) {
  if (n <= 1 || rnd(&q->rng, 4) == 0) return 1 + rnd(&q->rng, (int)(n < 64 ? n + 1 : 64));
  int64_t divs[64];
  int nd = 0;
  for (int64_t d = 1; d <= n && nd < 64; d++)
    if (n % d == 0) divs[nd++] = d;
  return divs[rnd(&q->rng, nd)];
}

/* ---- argument generators: each fills args; false when it finds nothing to
 * apply the primitive to (the step is then skipped) ---------------------------- */

typedef bool (*GenFn)(Seq *q, MlcSchPrim prim, MlcSchVal *args);

static bool gen_split(Seq *q, MlcSchPrim prim, MlcSchVal *args) {
  MlcSchVal loop;
  if (!pick_loop(q, &loop)) return false;
  int64_t ext = loop_extent(q, loop), f1 = factor_of(q, ext > 0 ? ext : 4);
  MlcSchVal fs[3];
  int n = 2 + (rnd(&q->rng, 3) == 0), none_at = rnd(&q->rng, n);
  fs[0] = v_int(f1);
  fs[1] = v_int(n == 3 ? factor_of(q, ext / f1 > 0 ? ext / f1 : 2) : (ext > 0 ? ext / f1 + (ext % f1 != 0) : 2));
  fs[2] = v_int(1 + rnd(&q->rng, 2));
  if (rnd(&q->rng, 8) == 0) fs[none_at] = v_int(1 + rnd(&q->rng, ext > 0 ? (int)ext : 4)); /* may not cover: refused */
  else fs[none_at] = (MlcSchVal){.kind = MLC_SV_NONE};
  set_arg(args, prim, "loop", loop);
  set_arg(args, prim, "factors", v_list(q, fs, n));
  set_arg(args, prim, "preserve_unit_iters", v_bool(rnd(&q->rng, 2)));
  return true;
}

/* two or three loops of one block: consecutive ones mostly */
static int pick_loop_run(Seq *q, MlcSchVal *picked) {
  MlcSchVal b, loops[MLC_SCH_MAX_OUTS];
  const char *name;
  int n = pick_block_loops(q, &b, &name, loops);
  if (n < 2) return 0;
  int k = n >= 3 && rnd(&q->rng, 3) == 0 ? 3 : 2, start = rnd(&q->rng, n - k + 1);
  for (int i = 0; i < k; i++) picked[i] = loops[start + i];
  if (rnd(&q->rng, 6) == 0) picked[k - 1] = loops[rnd(&q->rng, n)]; /* maybe not adjacent */
  return k;
}

static bool gen_fuse(Seq *q, MlcSchPrim prim, MlcSchVal *args) {
  MlcSchVal ls[3];
  int k = pick_loop_run(q, ls);
  if (!k) return false;
  set_arg(args, prim, "loops", v_list(q, ls, k));
  set_arg(args, prim, "preserve_unit_iters", v_bool(rnd(&q->rng, 2)));
  return true;
}

static bool gen_reorder(Seq *q, MlcSchPrim prim, MlcSchVal *args) {
  MlcSchVal ls[3];
  int k = pick_loop_run(q, ls);
  if (!k) return false;
  for (int i = k - 1; i > 0; i--) { /* a random permutation */
    int j = rnd(&q->rng, i + 1);
    MlcSchVal t = ls[i];
    ls[i] = ls[j], ls[j] = t;
  }
  set_arg(args, prim, "ordered_loops", v_list(q, ls, k));
  return true;
}

static bool gen_loop_kind(Seq *q, MlcSchPrim prim, MlcSchVal *args) {
  MlcSchVal loop;
  if (!pick_loop(q, &loop)) return false;
  set_arg(args, prim, "loop", loop);
  return true;
}

/* a block, and a loop of a random block (often another one) */
static bool gen_compute_at(Seq *q, MlcSchPrim prim, MlcSchVal *args) {
  MlcSchVal b, loop;
  const char *name;
  if (!pick_block(q, &b, &name) || !pick_loop(q, &loop)) return false;
  set_arg(args, prim, "block", b);
  set_arg(args, prim, "loop", loop);
  set_arg(args, prim, "preserve_unit_loops", v_bool(rnd(&q->rng, 2)));
  return true;
}

static bool gen_block_only(Seq *q, MlcSchPrim prim, MlcSchVal *args) {
  MlcSchVal b;
  const char *name;
  if (!pick_block(q, &b, &name)) return false;
  set_arg(args, prim, "block", b);
  return true;
}

static const char *const scopes[] = {"global", "local", "shared"};

static bool gen_cache(Seq *q, MlcSchPrim prim, MlcSchVal *args) {
  MlcSchVal b;
  const char *name;
  if (!pick_block(q, &b, &name)) return false;
  const MlcBlock *blk = find_block(mlc_sch_func(q->s)->body, name);
  int n = !blk ? 1 : prim == MLC_SCH_cache_read ? blk->n_reads : blk->n_writes;
  set_arg(args, prim, "block", b);
  set_arg(args, prim, prim == MLC_SCH_cache_read ? "read_buffer_index" : "write_buffer_index",
          v_int(rnd(&q->rng, n + (rnd(&q->rng, 8) == 0))));
  set_arg(args, prim, "storage_scope", v_str(q, scopes[rnd(&q->rng, 3)]));
  return true;
}

static bool gen_block_and_own_loop(Seq *q, MlcSchPrim prim, MlcSchVal *args) {
  MlcSchVal b, loops[MLC_SCH_MAX_OUTS];
  const char *name;
  int n = pick_block_loops(q, &b, &name, loops);
  if (!n) return false;
  set_arg(args, prim, "block", b);
  set_arg(args, prim, "loop", loops[rnd(&q->rng, n)]);
  return true;
}

static bool gen_rfactor(Seq *q, MlcSchPrim prim, MlcSchVal *args) {
  MlcSchVal loop;
  if (!pick_loop(q, &loop)) return false;
  set_arg(args, prim, "loop", loop);
  set_arg(args, prim, "factor_axis", v_int(rnd(&q->rng, 4) == 0 ? 1 : 0));
  return true;
}

static bool gen_blockize(Seq *q, MlcSchPrim prim, MlcSchVal *args) {
  MlcSchVal loop;
  if (!pick_loop(q, &loop)) return false;
  set_arg(args, prim, "target", loop);
  set_arg(args, prim, "preserve_unit_iters", v_bool(rnd(&q->rng, 2)));
  return true;
}

/* an index map for a buffer of rank r and shape sh: tile the last axis,
 * reverse the axes, or flatten the last two (a lambda's text) */
static const char *index_map(Seq *q, const MlcBuffer *buf) {
  static const char *const vars[] = {"a", "b", "c", "d", "e", "f", "g", "h"};
  int r = buf->ndim, kind = rnd(&q->rng, 3);
  int64_t last = buf->shape[r - 1]->kind == MLC_EXPR_INT ? buf->shape[r - 1]->int_val : 4;
  MlcStrBuf sb = {0};
  mlc_sb_puts(&sb, "lambda ");
  for (int i = 0; i < r; i++) mlc_sb_printf(&sb, "%s%s", i ? ", " : "", vars[i]);
  mlc_sb_puts(&sb, ": (");
  if (kind == 0 || (kind == 2 && r < 2)) { /* tile the last axis */
    int64_t f = factor_of(q, last);
    for (int i = 0; i < r - 1; i++) mlc_sb_printf(&sb, "%s, ", vars[i]);
    mlc_sb_printf(&sb, "%s // %lld, %s %% %lld)", vars[r - 1], (long long)f, vars[r - 1], (long long)f);
  } else if (kind == 1) { /* reverse the axes */
    for (int i = r - 1; i >= 0; i--) mlc_sb_printf(&sb, "%s%s", vars[i], i ? ", " : "");
    mlc_sb_puts(&sb, r == 1 ? ",)" : ")");
  } else { /* flatten the last two */
    for (int i = 0; i < r - 2; i++) mlc_sb_printf(&sb, "%s, ", vars[i]);
    mlc_sb_printf(&sb, "%s * %lld + %s,)", vars[r - 2], (long long)last, vars[r - 1]);
  }
  const char *text = mlc_intern(q->ctx, mlc_sb_cstr(&sb));
  mlc_vec_free(&sb);
  return text;
}

static bool gen_transform_layout(Seq *q, MlcSchPrim prim, MlcSchVal *args) {
  MlcSchVal b;
  const char *name;
  if (!pick_block(q, &b, &name)) return false;
  const MlcBlock *blk = find_block(mlc_sch_func(q->s)->body, name);
  if (!blk) return false;
  bool write = rnd(&q->rng, 2) || !blk->n_reads;
  int n = write ? blk->n_writes : blk->n_reads;
  if (!n) return false;
  int idx = rnd(&q->rng, n);
  const MlcBuffer *buf = (write ? blk->writes : blk->reads)[idx].buf;
  if (buf->ndim < 1 || buf->ndim > 8) return false;
  MlcSchVal which[2] = {v_str(q, write ? "write" : "read"), v_int(idx)};
  set_arg(args, prim, "block", b);
  set_arg(args, prim, "buffer", v_list(q, which, 2));
  set_arg(args, prim, "index_map", (MlcSchVal){.kind = MLC_SV_LAMBDA, .s = index_map(q, buf)});
  return true;
}

static const GenFn generators[FP_COUNT] = {
    [FP_split] = gen_split,
    [FP_fuse] = gen_fuse,
    [FP_reorder] = gen_reorder,
    [FP_parallel] = gen_loop_kind,
    [FP_vectorize] = gen_loop_kind,
    [FP_unroll] = gen_loop_kind,
    [FP_compute_at] = gen_compute_at,
    [FP_reverse_compute_at] = gen_compute_at,
    [FP_compute_inline] = gen_block_only,
    [FP_reverse_compute_inline] = gen_block_only,
    [FP_cache_read] = gen_cache,
    [FP_cache_write] = gen_cache,
    [FP_decompose_reduction] = gen_block_and_own_loop,
    [FP_rfactor] = gen_rfactor,
    [FP_blockize] = gen_blockize,
    [FP_transform_layout] = gen_transform_layout,
};

/* ---- checks ------------------------------------------------------------------------ */

/* the accepted function computes the reference outputs; NULL or the reason */
static const char *check_numbers(Seq *q, const Program *p, MlcStrBuf *why) {
  void *work[MAX_PARAMS] = {0};
  const MlcPrimFunc *f = mlc_sch_func(q->s);
  if (!run_on_inputs(q->ctx, p, f, work)) {
    mlc_sb_printf(why, "the result does not run: %s", mlc_error_msg(q->ctx) ? mlc_error_msg(q->ctx) : "params changed");
    free_work(p, work);
    return mlc_sb_cstr(why);
  }
  for (int i = 0; i < p->n_params && !why->len; i++) {
    const Buf *a = &p->params[i];
    for (size_t k = 0; a->is_buffer && k < a->numel; k++) {
      double want = elem(a->dtype, a->expected, k), got = elem(a->dtype, work[i], k);
      bool same = isnan(want) ? isnan(got) : fabs(got - want) <= RTOL * (1.0 + fabs(want));
      if (!same) {
        mlc_sb_printf(why, "buffer '%s' element %zu: %.9g expected, %.9g computed", f->params[i].buf->name, k, want, got);
        break;
      }
    }
  }
  free_work(p, work);
  return why->len ? mlc_sb_cstr(why) : NULL;
}

/* a refused primitive left the module as it was: the same pointer, equal
 * to itself, and with the structural hash taken before the step (a node
 * changed in place would change it) */
static const char *check_unchanged(Seq *q, const MlcModule *before, uint64_t before_hash, MlcStrBuf *why) {
  const MlcModule *now = mlc_sch_module(q->s);
  if (now != before) mlc_sb_puts(why, "refused, but the schedule holds a different module");
  else if (!mlc_module_equal(before, now) || mlc_module_hash(now) != before_hash)
    mlc_sb_puts(why, "refused, but the module was changed in place");
  return why->len ? mlc_sb_cstr(why) : NULL;
}

/* The module prints as text that reads back structurally equal. */
static const char *check_text_round_trip(Seq *q, MlcStrBuf *why) {
  MlcStrBuf text = {0};
  mlc_print_module(mlc_sch_module(q->s), &text);
  MlcModule *again = mlc_read_module(q->ctx, "<printed>", text.data, text.len);
  MlcDiff d = {0};
  if (!again) mlc_sb_printf(why, "the printed module does not read back: %s", mlc_error_msg(q->ctx));
  else if (!mlc_module_equal_diff(again, mlc_sch_module(q->s), &d))
    mlc_sb_printf(why, "the printed module reads back different (at %s)", mlc_sb_cstr(&d.path));
  mlc_diff_free(&d);
  mlc_vec_free(&text);
  return why->len ? mlc_sb_cstr(why) : NULL;
}

/* the trace, replayed on the original module, gives the same module */
static const char *check_replay(Seq *q, const MlcModule *original, MlcStrBuf *why) {
  MlcStrBuf t = {0};
  mlc_sch_print_trace(q->s, &t);
  MlcSchedule *r = mlc_sch_new(q->ctx, original, NULL, 0);
  if (!r || !mlc_sch_run_script(r, "<trace>", t.data, t.len))
    mlc_sb_printf(why, "the trace does not replay: %s", mlc_error_msg(q->ctx));
  else if (!mlc_module_equal(mlc_sch_module(r), mlc_sch_module(q->s)))
    mlc_sb_puts(why, "the replayed trace gives a different module");
  if (r) mlc_sch_free(r);
  mlc_vec_free(&t);
  n_replays++;
  return why->len ? mlc_sb_cstr(why) : NULL;
}

/* ---- reporting ------------------------------------------------------------------------ */

/* a value as a script writes it, handles named as the trace names them */
static void print_val(const Seq *q, const MlcSchVal *v, MlcStrBuf *out) {
  switch (v->kind) {
  case MLC_SV_NONE: mlc_sb_puts(out, "None"); return;
  case MLC_SV_BLOCK:
  case MLC_SV_LOOP:
  case MLC_SV_INTRV:
    mlc_sb_printf(out, "%c%d", v->kind == MLC_SV_BLOCK ? 'b' : v->kind == MLC_SV_LOOP ? 'l' : 'v',
                  v->rv >= 0 && v->rv < (int)(sizeof q->names / sizeof q->names[0]) ? q->names[v->rv] : -1);
    return;
  case MLC_SV_INT: mlc_sb_printf(out, "%lld", (long long)v->i); return;
  case MLC_SV_BOOL: mlc_sb_puts(out, v->i ? "True" : "False"); return;
  case MLC_SV_FLOAT: mlc_sb_printf(out, "%.17g", v->f); return;
  case MLC_SV_STR: mlc_sb_printf(out, "\"%s\"", v->s); return;
  case MLC_SV_LAMBDA: mlc_sb_puts(out, v->s); return;
  case MLC_SV_LIST:
    mlc_sb_putc(out, '[');
    for (int i = 0; i < v->list.n; i++) {
      if (i) mlc_sb_puts(out, ", ");
      print_val(q, &v->list.items[i], out);
    }
    mlc_sb_putc(out, ']');
    return;
  }
}

/* the refused instruction as a script line, keyword arguments throughout */
static void print_inst(const Seq *q, MlcSchPrim prim, const MlcSchVal *args, MlcStrBuf *out) {
  mlc_sb_printf(out, "sch.%s(", mlc_sch_prim_names[prim]);
  const char *p = mlc_sch_prim_params[prim];
  bool first = true;
  for (int i = 0; *p; i++) {
    while (*p == ' ') p++;
    bool variadic = *p == '*';
    p += variadic;
    int len = (int)strcspn(p, " ");
    if (args[i].kind != MLC_SV_NONE) {
      if (!first) mlc_sb_puts(out, ", ");
      first = false;
      if (variadic && args[i].kind == MLC_SV_LIST) {
        for (int k = 0; k < args[i].list.n; k++) {
          if (k) mlc_sb_puts(out, ", ");
          print_val(q, &args[i].list.items[k], out);
        }
      } else {
        mlc_sb_printf(out, "%.*s=", len, p);
        print_val(q, &args[i], out);
      }
    }
    p += len;
  }
  mlc_sb_puts(out, ")");
}

static void report(Program *p, const Seq *q, uint64_t seed, int step, FuzzPrim fp, const char *why,
                   const MlcSchVal *refused_args) {
  if (fp < FP_COUNT) counts[fp].failures++;
  else n_trace_failures++;
  check__failed_now = 1;
  if (p->fails_shown++ >= MAX_FAILS_SHOWN) return;
  printf("FAIL fuzz/%s: seed %llu step %d %s: %s\n", p->name, (unsigned long long)seed, step,
         fp < FP_COUNT ? mlc_sch_prim_names[fuzz_prim_ids[fp]] : "trace", why);
  printf("#   mlcc schedule %s SCRIPT.py, SCRIPT.py being:\n", p->path);
  MlcStrBuf t = {0};
  mlc_sch_print_trace(q->s, &t);
  if (refused_args) {
    print_inst(q, fuzz_prim_ids[fp], refused_args, &t);
    mlc_sb_puts(&t, "  # refused\n");
  }
  const char *line = mlc_sb_cstr(&t);
  while (*line) {
    size_t n = strcspn(line, "\n");
    printf("#   %.*s\n", (int)n, line);
    line += n + (line[n] == '\n');
  }
  mlc_vec_free(&t);
}

/* one step: a random primitive with random arguments, applied and checked */
static void step(Program *p, Seq *q, uint64_t seed, int k) {
  FuzzPrim fp = (FuzzPrim)rnd(&q->rng, FP_COUNT);
  MlcSchPrim prim = fuzz_prim_ids[fp];
  MlcSchVal args[MAX_ARGS] = {{0}}, outs[MLC_SCH_MAX_OUTS];
  int n_outs;
  if (!generators[fp](q, prim, args)) return;
  const MlcModule *before = mlc_sch_module(q->s);
  uint64_t before_hash = mlc_module_hash(before);
  MlcStrBuf why = {0};
  bool ok = apply(q, prim, args, outs, &n_outs);
  const char *bad;
  if (ok) {
    counts[fp].accepted++;
    bad = check_numbers(q, p, &why);
    if (!bad) bad = check_text_round_trip(q, &why);
  } else {
    counts[fp].refused++;
    mlc_clear_error(q->ctx);
    bad = check_unchanged(q, before, before_hash, &why);
  }
  counts[fp].checked++;
  if (bad) {
    report(p, q, seed, k, fp, bad, ok ? NULL : args);
    q->stop = ok; /* the steps after a wrong result would only repeat it */
  }
  mlc_clear_error(q->ctx);
  mlc_vec_free(&why);
}

static void sequence(Program *p, uint64_t seed) {
  Seq *q = calloc(1, sizeof *q);
  memset(q->names, 0xff, sizeof q->names);
  q->ctx = mlc_ctx_new();
  q->rng = seed * 0x9e3779b97f4a7c15ull + 0x632be59bd9b4e019ull;
  for (const char *c = p->name; *c; c++) q->rng = (q->rng ^ (unsigned char)*c) * 0x100000001b3ull;
  if (!q->rng) q->rng = 1;
  MlcModule *m = mlc_read_module(q->ctx, p->path, p->text, p->len);
  q->s = m ? mlc_sch_new(q->ctx, m, NULL, seed) : NULL;
  if (!q->s) {
    printf("FAIL fuzz/%s: does not read: %s\n", p->name, mlc_error_msg(q->ctx));
    check__failed_now = 1;
  }
  for (int k = 0; q->s && k < STEPS && !q->stop; k++) step(p, q, seed, k);
  MlcStrBuf why = {0};
  if (q->s && !q->stop && check_replay(q, m, &why)) report(p, q, seed, STEPS, FP_COUNT, mlc_sb_cstr(&why), NULL);
  mlc_vec_free(&why);
  if (q->s) mlc_sch_free(q->s);
  mlc_ctx_free(q->ctx);
  free(q);
  n_sequences++;
}

/* ---- the driver ------------------------------------------------------------------------- */

static double seconds_per_program; /* 0: the bounded default run */

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void fuzz_program(const char *name) {
  Program p;
  if (!load_program(&p, name)) {
    check__failed_now = 1;
    free_program(&p);
    return;
  }
  double end = now() + seconds_per_program;
  for (uint64_t seed = 1; seconds_per_program > 0 ? now() < end : seed <= DEFAULT_SEQS; seed++) sequence(&p, seed);
  free_program(&p);
}

#define X(name) \
  static void fuzz_##name(void) { fuzz_program(#name); }
CORPUS(X)
#undef X

static void print_counts(void) {
  Counts total = {0};
  printf("# %-24s %10s %10s %10s %8s\n", "primitive", "accepted", "refused", "checked", "failures");
  for (int i = 0; i < FP_COUNT; i++) {
    const Counts *c = &counts[i];
    printf("# %-24s %10ld %10ld %10ld %8ld\n", mlc_sch_prim_names[fuzz_prim_ids[i]], c->accepted, c->refused,
           c->checked, c->failures);
    total.accepted += c->accepted, total.refused += c->refused, total.checked += c->checked;
    total.failures += c->failures;
  }
  printf("# %-24s %10ld %10ld %10ld %8ld\n", "total", total.accepted, total.refused, total.checked,
         total.failures);
  printf("# %ld sequences of up to %d steps, %ld trace replays; %ld failures of whole sequences\n", n_sequences,
         STEPS, n_replays, n_trace_failures);
}

int main(void) {
  const char *secs = getenv("MLC_SCHED_FUZZ_SECONDS");
  int n_programs = 0;
#define X(name) n_programs++;
  CORPUS(X)
#undef X
  if (secs && atof(secs) > 0) seconds_per_program = atof(secs) / n_programs;
#define X(name) RUN(fuzz_##name);
  CORPUS(X)
#undef X
  if (seconds_per_program > 0) print_counts();
  return CHECK_DONE();
}
