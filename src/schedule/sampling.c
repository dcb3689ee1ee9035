/* sampling.c - the sampling primitives: sample_perfect_tile,
 * sample_categorical, sample_compute_location.
 *
 * A sampling primitive changes no IR; it draws a value with the schedule's
 * seeded generator and hands it back as an int handle (or a loop handle, for
 * compute locations) that later primitives consume.  Each one records its
 * decision, so a trace replays exactly: when the core replays (forced
 * decision) or the script states `decision=...`, that value is checked and
 * reused instead of drawing.
 *
 * Perfect tiles are drawn uniformly among all valid factor lists.  Instead of
 * listing them (there can be millions), each factor is drawn with weight equal
 * to the number of ways the remaining extent can still be split, which is a
 * product of binomials over the extent's prime exponents; that makes every
 * complete list equally likely with one draw per factor. */
#include "schedule/state.h"

#include <math.h>

/* Loop extents beyond this are not tiled: trial division stays cheap and
 * every count below fits in 64 bits. */
#define TILE_MAX_EXTENT (INT64_C(1) << 40)
#define TILE_MAX_PARTS 16
#define TILE_MAX_PRIMES 16

enum { PT_LOOP, PT_N, PT_MAX_INNER, PT_DECISION };
enum { CAT_CANDIDATES, CAT_PROBS, CAT_DECISION };
enum { CL_BLOCK, CL_DECISION };

/* the decision to reuse: the replayed one, else the one the script states */
static const MlcSchVal *given_decision(const MlcSchedule *s, const MlcSchVal *arg) {
  if (s->forced_decision && s->forced_decision->kind != MLC_SV_NONE) return s->forced_decision;
  return arg->kind != MLC_SV_NONE ? arg : NULL;
}

static MlcSchVal int_list_val(MlcSchedule *s, const int64_t *v, int n) {
  MlcSchVal l = {.kind = MLC_SV_LIST};
  l.list.items = mlc_arena_array(&s->ctx->arena, (size_t)(n > 0 ? n : 1), sizeof *l.list.items);
  l.list.n = n;
  for (int i = 0; i < n; i++) l.list.items[i] = (MlcSchVal){.kind = MLC_SV_INT, .i = v[i]};
  return l;
}

static MlcSchVal int_val(int64_t v) { return (MlcSchVal){.kind = MLC_SV_INT, .i = v}; }

/* ======================================================================== */
/* sample_perfect_tile                                                      */
/* ======================================================================== */

typedef struct Primes {
  int64_t p[TILE_MAX_PRIMES];
  int a[TILE_MAX_PRIMES];
  int n;
} Primes;

static void factorize(int64_t x, Primes *out) {
  out->n = 0;
  for (int64_t p = 2; p * p <= x; p++) {
    if (x % p) continue;
    out->p[out->n] = p;
    out->a[out->n] = 0;
    while (x % p == 0) x /= p, out->a[out->n]++;
    out->n++;
  }
  if (x > 1) out->p[out->n] = x, out->a[out->n++] = 1;
}

/* C(n, k) for the small arguments here (n <= 55); false on overflow */
static bool binom(int n, int k, uint64_t *out) {
  uint64_t r = 1;
  if (k < 0 || k > n) return *out = 0, true;
  for (int i = 1; i <= k; i++) {
    /* r * (n - k + i) / i stays integral at every step */
    if (__builtin_mul_overflow(r, (uint64_t)(n - k + i), &r)) return false;
    r /= (uint64_t)i;
  }
  *out = r;
  return true;
}

/* The number of ordered k-tuples of positive ints whose product is x (x
 * divides the extent whose primes are pr): for each prime p^a, the ways to
 * spread a among k parts.  False on overflow. */
static bool ways(const Primes *pr, int64_t x, int k, uint64_t *out) {
  if (k == 0) return *out = (x == 1), true;
  uint64_t r = 1, c;
  for (int i = 0; i < pr->n; i++) {
    int a = 0;
    while (x % pr->p[i] == 0) x /= pr->p[i], a++;
    if (!binom(a + k - 1, k - 1, &c) || __builtin_mul_overflow(r, c, &r)) return false;
  }
  *out = r;
  return true;
}

/* the divisors of x in increasing order; the caller frees */
static int64_t *divisors(int64_t x, int *n) {
  MLC_VEC(int64_t) v = {0};
  for (int64_t d = 1; d * d <= x; d++)
    if (x % d == 0) mlc_vec_push(&v, d);
  size_t small = v.len;
  for (size_t i = small; i-- > 0;) {
    int64_t q = x / v.data[i];
    if (q != v.data[i]) mlc_vec_push(&v, q);
  }
  *n = (int)v.len;
  return v.data;
}

/* Draw the divisor d of rem (d <= limit) with weight ways(rem / d, k). */
static bool draw_factor(MlcSchedule *s, const Primes *pr, int64_t rem, int k, int64_t limit,
                        int64_t *out) {
  int nd;
  int64_t *ds = divisors(rem, &nd);
  uint64_t total = 0, w, pick;
  bool ok = true;
  for (int i = 0; i < nd && ok && ds[i] <= limit; i++)
    ok = ways(pr, rem / ds[i], k, &w) && !__builtin_add_overflow(total, w, &total);
  if (ok && total > 0) {
    pick = sch_rand(s) % total;
    for (int i = 0; i < nd && ds[i] <= limit; i++) {
      ways(pr, rem / ds[i], k, &w);
      if (pick < w) {
        *out = ds[i];
        break;
      }
      pick -= w;
    }
  }
  free(ds);
  return ok && total > 0;
}

static bool tile_sample(MlcSchedule *s, const char *lname, int64_t extent, int n, int64_t max_inner,
                        int64_t *f) {
  Primes pr;
  factorize(extent, &pr);
  if (!draw_factor(s, &pr, extent, n - 1, max_inner, &f[n - 1]))
    return sch_error(s, "sample_perfect_tile: loop '%s': no way to split extent %lld into %d factors",
                     lname, (long long)extent, n);
  int64_t rem = extent / f[n - 1];
  for (int i = 0; i + 1 < n - 1; i++) {
    draw_factor(s, &pr, rem, n - 2 - i, rem, &f[i]);
    rem /= f[i];
  }
  if (n >= 2) f[n - 2] = rem;
  return true;
}

static bool tile_check(MlcSchedule *s, const char *lname, const MlcSchVal *d, int64_t extent, int n,
                       int64_t *f) {
  if (d->kind != MLC_SV_LIST || d->list.n != n)
    return sch_error(s, "sample_perfect_tile: loop '%s': decision must be a list of %d ints", lname, n);
  int64_t prod = 1;
  for (int i = 0; i < n; i++) {
    const MlcSchVal *x = &d->list.items[i];
    if (x->kind != MLC_SV_INT || x->i < 1)
      return sch_error(s, "sample_perfect_tile: loop '%s': decision factors must be positive ints",
                       lname);
    if (__builtin_mul_overflow(prod, x->i, &prod) || prod > extent) prod = -1;
    f[i] = x->i;
  }
  if (prod != extent)
    return sch_error(s, "sample_perfect_tile: loop '%s': decision factors do not multiply to extent %lld",
                     lname, (long long)extent);
  return true;
}

bool sch_prim_sample_perfect_tile(MlcSchedule *s, const MlcSchVal *args, MlcSchVal *outs, int *n_outs) {
  const MlcExpr *var;
  int64_t n, max_inner = 16, extent;
  SchPath path = {0};
  if (!sch_arg_loop(s, &args[PT_LOOP], "loop", &var) || !sch_arg_int(s, &args[PT_N], "n", &n)) return false;
  if (args[PT_MAX_INNER].kind != MLC_SV_NONE &&
      !sch_arg_int(s, &args[PT_MAX_INNER], "max_innermost_factor", &max_inner))
    return false;
  const char *lname = var->var.name;
  if (n < 1 || n > TILE_MAX_PARTS)
    return sch_error(s, "sample_perfect_tile: loop '%s': n must be in 1..%d, got %lld", lname,
                     TILE_MAX_PARTS, (long long)n);
  if (max_inner == -1) max_inner = INT64_MAX; /* no limit, as in the field's convention */
  if (max_inner < 1)
    return sch_error(s, "sample_perfect_tile: loop '%s': max_innermost_factor must be positive or -1",
                     lname);
  if (!sch_find_loop(s, var, &path)) return false;
  bool is_const = mlc_e_is_const_int(path.nodes[path.n - 1]->loop.extent, &extent);
  sch_path_free(&path);
  if (!is_const || extent < 1 || extent > TILE_MAX_EXTENT)
    return sch_error(s, "sample_perfect_tile: loop '%s': extent must be a constant in 1..2^40", lname);
  int64_t f[TILE_MAX_PARTS];
  const MlcSchVal *given = given_decision(s, &args[PT_DECISION]);
  if (given ? !tile_check(s, lname, given, extent, (int)n, f) : !tile_sample(s, lname, extent, (int)n, max_inner, f))
    return false;
  for (int i = 0; i < n; i++) outs[i] = (MlcSchVal){.kind = MLC_SV_INTRV, .rv = sch_int_rv(s, f[i])};
  *n_outs = (int)n;
  sch_set_decision(s, int_list_val(s, f, (int)n));
  return true;
}

/* ======================================================================== */
/* sample_categorical                                                       */
/* ======================================================================== */

static bool number(const MlcSchVal *v, double *out) {
  if (v->kind == MLC_SV_FLOAT) *out = v->f;
  else if (v->kind == MLC_SV_INT) *out = (double)v->i;
  else return false;
  return true;
}

/* a uniform double in [0, 1) from the top 53 bits */
static double rand_unit(MlcSchedule *s) { return (double)(sch_rand(s) >> 11) * (1.0 / 9007199254740992.0); }

static int draw_index(MlcSchedule *s, const double *p, int n, double sum) {
  double u = rand_unit(s) * sum, acc = 0;
  int last = 0;
  for (int i = 0; i < n; i++) {
    if (p[i] <= 0) continue;
    last = i;
    acc += p[i];
    if (u < acc) return i;
  }
  return last; /* rounding left u at the very top */
}

bool sch_prim_sample_categorical(MlcSchedule *s, const MlcSchVal *args, MlcSchVal *outs, int *n_outs) {
  const MlcSchVal *c = &args[CAT_CANDIDATES], *p = &args[CAT_PROBS];
  if (c->kind != MLC_SV_LIST || c->list.n < 1)
    return sch_error(s, "sample_categorical: candidates must be a non-empty list of ints");
  if (p->kind != MLC_SV_LIST || p->list.n != c->list.n)
    return sch_error(s, "sample_categorical: probs must be a list of %d numbers, one per candidate",
                     c->list.n);
  int n = c->list.n;
  double *pr = mlc_arena_array(&s->ctx->arena, (size_t)n, sizeof *pr), sum = 0;
  for (int i = 0; i < n; i++) {
    if (c->list.items[i].kind != MLC_SV_INT)
      return sch_error(s, "sample_categorical: candidate %d is not an int", i);
    if (!number(&p->list.items[i], &pr[i]) || !isfinite(pr[i]) || pr[i] < 0)
      return sch_error(s, "sample_categorical: probability %d must be a finite number >= 0", i);
    sum += pr[i];
  }
  if (!(sum > 0) || !isfinite(sum))
    return sch_error(s, "sample_categorical: the probabilities must have a positive finite sum");
  int64_t idx;
  const MlcSchVal *given = given_decision(s, &args[CAT_DECISION]);
  if (given) {
    if (given->kind != MLC_SV_INT || given->i < 0 || given->i >= n)
      return sch_error(s, "sample_categorical: decision must be an index in 0..%d", n - 1);
    idx = given->i;
  } else {
    idx = draw_index(s, pr, n, sum);
  }
  outs[0] = (MlcSchVal){.kind = MLC_SV_INTRV, .rv = sch_int_rv(s, c->list.items[idx].i)};
  *n_outs = 1;
  sch_set_decision(s, int_val(idx));
  return true;
}

/* ======================================================================== */
/* sample_compute_location                                                  */
/* ======================================================================== */

/* The two locations that are not loops.  Their handles are loop handles
 * naming these vars, which no function binds: a primitive that does not
 * know them refuses them as loops that no longer exist. */
static const MlcExpr compute_root_mark = {.kind = MLC_EXPR_VAR, .dtype = {MLC_TC_INT, 32, 1}, .var = {"compute_root"}};
static const MlcExpr compute_inline_mark = {.kind = MLC_EXPR_VAR, .dtype = {MLC_TC_INT, 32, 1}, .var = {"compute_inline"}};

SchLocation sch_arg_location(const MlcSchedule *s, const MlcSchVal *v) {
  if (!v || v->kind != MLC_SV_LOOP || v->rv < 0 || (size_t)v->rv >= s->rvs.len) return SCH_LOC_LOOP;
  const SchRV *rv = &s->rvs.data[v->rv];
  if (rv->kind == MLC_SV_LOOP && rv->loop_var == &compute_root_mark) return SCH_LOC_ROOT;
  if (rv->kind == MLC_SV_LOOP && rv->loop_var == &compute_inline_mark) return SCH_LOC_INLINE;
  return SCH_LOC_LOOP;
}

typedef bool (*PrimFn)(MlcSchedule *s, const MlcSchVal *args, MlcSchVal *outs, int *n_outs);

/* Whether a primitive accepts these arguments: it is run and then undone,
 * the module and handles put back and its error dropped.  Asking the
 * primitive itself keeps one definition of what is legal. */
static bool would_succeed(MlcSchedule *s, PrimFn fn, const MlcSchVal *args) {
  MlcModule *mod = s->mod;
  size_t n_rvs = s->rvs.len;
  MlcSchVal outs[MLC_SCH_MAX_OUTS];
  int n = 0;
  bool ok = fn(s, args, outs, &n);
  s->mod = mod;
  s->rvs.len = n_rvs;
  mlc_map_free(&s->fresh_names);
  if (!ok) mlc_clear_error(s->ctx);
  return ok;
}

#define MAX_LOCATIONS 128

typedef struct Locations {
  int64_t index[MAX_LOCATIONS];  /* -2 inline, -1 root, else the loop's position */
  const MlcExpr *var[MAX_LOCATIONS];
  int n;
} Locations;

static void add_location(Locations *l, int64_t index, const MlcExpr *var) {
  if (l->n < MAX_LOCATIONS) l->index[l->n] = index, l->var[l->n++] = var;
}

typedef struct Reads { MlcVisitor v; const MlcExpr *var; bool found; } Reads;

static bool reads_expr(MlcVisitor *v, const MlcExpr *e) {
  Reads *r = (Reads *)v;
  if (e == r->var) r->found = true;
  return !r->found;
}

static bool expr_reads(const MlcExpr *e, const MlcExpr *var) {
  Reads r = {.v = {.expr = reads_expr}, .var = var};
  mlc_visit_expr(&r.v, e);
  return r.found;
}

/* spatial when the blocks right under the loop bind its var to spatial
 * iters only, reduce when to reduce iters only, opaque otherwise */
static MlcIterKind loop_kind(const MlcStmt *loop) {
  const MlcStmt *blocks[256];
  int nb = sch_child_blocks(loop, blocks, 256), n_spatial = 0, n_reduce = 0, n_other = 0;
  for (int b = 0; b < nb; b++) {
    const MlcStmt *r = blocks[b];
    for (int i = 0; i < r->realize.n; i++) {
      if (!expr_reads(r->realize.values[i], loop->loop.var)) continue;
      MlcIterKind k = r->realize.block->iters[i].kind;
      if (k == MLC_ITER_SPATIAL) n_spatial++;
      else if (k == MLC_ITER_REDUCE) n_reduce++;
      else n_other++;
    }
  }
  if (n_other || (n_spatial && n_reduce)) return MLC_ITER_OPAQUE;
  return n_reduce ? MLC_ITER_REDUCE : MLC_ITER_SPATIAL;
}

/* The deepest loop enclosing every consumer (NULL when that is a block):
 * the innermost loop the block could move under and still precede them. */
static const MlcStmt *consumers_boundary(MlcSchedule *s, const char **names, int n, SchPath *first) {
  SchPath p = {0};
  int common = 0;
  for (int c = 0; c < n; c++) {
    SchPath *cur = c == 0 ? first : &p;
    if (!sch_find_block(s, names[c], cur)) return NULL;
    int len = cur->n - 1; /* the consumer itself is not a candidate */
    if (c == 0) common = len;
    else {
      int k = 0;
      while (k < common && k < len && first->nodes[k] == cur->nodes[k]) k++;
      common = k;
      sch_path_free(&p);
    }
  }
  for (int k = common - 1; k >= 0; k--) {
    MlcStmtKind kind = first->nodes[k]->kind;
    if (kind == MLC_STMT_FOR) return first->nodes[k];
    if (kind == MLC_STMT_BLOCK_REALIZE) return NULL;
  }
  return NULL;
}

/* The loops of the first consumer, from the outermost down to the
 * boundary, that are worth computing the block under: not unit loops, no
 * spatial loop below a reduction loop, no reduction loop below the last
 * spatial one -- and where compute_at accepts the block. */
static void loop_locations(MlcSchedule *s, const MlcSchVal *block, const SchPath *first,
                           const MlcStmt *boundary, Locations *l) {
  const MlcStmt *loops[MAX_LOCATIONS];
  int nl = sch_path_loops(first, loops, MAX_LOCATIONS), end = 0, last_spatial = -1;
  while (end < nl && loops[end] != boundary) end++;
  if (end == nl) return;
  MlcIterKind kinds[MAX_LOCATIONS];
  for (int i = 0; i <= end; i++) {
    kinds[i] = loop_kind(loops[i]);
    if (kinds[i] == MLC_ITER_SPATIAL) last_spatial = i;
  }
  bool seen_reduce = false;
  for (int i = 0; i <= end; i++) {
    int64_t ext;
    if (mlc_e_is_const_int(loops[i]->loop.extent, &ext) && ext == 1) continue;
    if (kinds[i] == MLC_ITER_SPATIAL && seen_reduce) break;
    if (kinds[i] != MLC_ITER_SPATIAL) {
      seen_reduce = true;
      if (i > last_spatial) break;
    }
    MlcSchVal args[8] = {*block, {.kind = MLC_SV_LOOP, .rv = sch_loop_rv(s, loops[i]->loop.var)},
                         {.kind = MLC_SV_BOOL, .i = 1}, {.kind = MLC_SV_INT, .i = -1}};
    if (would_succeed(s, sch_prim_compute_at, args)) add_location(l, i, loops[i]->loop.var);
    s->rvs.len--; /* the loop handle made for the trial */
  }
}

static void collect_locations(MlcSchedule *s, const MlcSchVal *block, Locations *l) {
  MlcSchVal args[8] = {*block}, outs[MLC_SCH_MAX_OUTS];
  int n = 0;
  if (would_succeed(s, sch_prim_compute_inline, args)) add_location(l, -2, &compute_inline_mark);
  add_location(l, -1, &compute_root_mark);
  size_t n_rvs = s->rvs.len;
  if (!sch_prim_get_consumers(s, args, outs, &n)) {
    mlc_clear_error(s->ctx);
    n = 0;
  }
  const char *names[MLC_SCH_MAX_OUTS];
  for (int i = 0; i < n; i++) names[i] = s->rvs.data[outs[i].rv].block;
  s->rvs.len = n_rvs;
  if (n == 0) return;
  SchPath first = {0};
  const MlcStmt *boundary = consumers_boundary(s, names, n, &first);
  if (boundary) loop_locations(s, block, &first, boundary, l);
  sch_path_free(&first);
}

/* A decision that is no longer a candidate falls back to the nearest
 * candidate before it (the field's rule, so old traces still replay). */
static int pick_given(const Locations *l, int64_t decision) {
  int k = -1;
  for (int i = 0; i < l->n && l->index[i] <= decision; i++) k = i;
  return k;
}

bool sch_prim_sample_compute_location(MlcSchedule *s, const MlcSchVal *args, MlcSchVal *outs, int *n_outs) {
  const char *name;
  if (!sch_arg_block(s, &args[CL_BLOCK], "block", &name)) return false;
  Locations l = {.n = 0};
  collect_locations(s, &args[CL_BLOCK], &l);
  const MlcSchVal *given = given_decision(s, &args[CL_DECISION]);
  int k;
  if (given) {
    if (given->kind != MLC_SV_INT)
      return sch_error(s, "block '%s': decision must be an int (-2 inline, -1 root, or a loop position)", name);
    k = pick_given(&l, given->i);
  } else {
    k = (int)(sch_rand(s) % (uint64_t)l.n);
  }
  const MlcExpr *var = k < 0 ? &compute_root_mark : l.var[k];
  outs[0] = (MlcSchVal){.kind = MLC_SV_LOOP, .rv = sch_loop_rv(s, var)};
  *n_outs = 1;
  sch_set_decision(s, int_val(k < 0 ? -1 : l.index[k]));
  return true;
}
