/* test_regions.c - inference of block read/write regions.
 *
 * Regions are rendered by a small printer of this file's own (not the text
 * layer) as BUF[d0, d1]: a point dimension prints its index, a range prints
 * as min:+extent, so the expectations read like the TVMScript they stand
 * for without depending on the code under test. */
#include "check.h"
#include "mlcc/ir.h"

#define NOATTRS ((MlcAttrs){0})

/* ---- rendering ----------------------------------------------------------- */

static void put_expr(MlcStrBuf *sb, const MlcExpr *e, bool nested) {
  if (!e) {
    mlc_sb_puts(sb, "NULL");
    return;
  }
  switch (e->kind) {
  case MLC_EXPR_VAR: mlc_sb_puts(sb, e->var.name); return;
  case MLC_EXPR_INT: mlc_sb_printf(sb, "%lld", (long long)e->int_val); return;
  case MLC_EXPR_BINARY: {
    const char *op = e->bin.op == MLC_BIN_ADD ? " + " : e->bin.op == MLC_BIN_SUB ? " - "
                   : e->bin.op == MLC_BIN_MUL ? " * " : " ? ";
    if (nested) mlc_sb_putc(sb, '(');
    put_expr(sb, e->bin.a, true);
    mlc_sb_puts(sb, op);
    put_expr(sb, e->bin.b, true);
    if (nested) mlc_sb_putc(sb, ')');
    return;
  }
  case MLC_EXPR_NEG: mlc_sb_puts(sb, "-"); put_expr(sb, e->operand, true); return;
  default: mlc_sb_printf(sb, "<kind %d>", (int)e->kind); return;
  }
}

/* "A[vi, 0:+16]" */
static const char *region_str(const MlcBufferRegion *r, MlcStrBuf *sb) {
  sb->len = 0;
  mlc_sb_printf(sb, "%s[", r->buf->name);
  for (int d = 0; d < r->buf->ndim; d++) {
    if (d) mlc_sb_puts(sb, ", ");
    put_expr(sb, r->ranges[d].min, false);
    int64_t ext;
    if (!mlc_e_is_const_int(r->ranges[d].extent, &ext) || ext != 1) {
      mlc_sb_puts(sb, ":+");
      put_expr(sb, r->ranges[d].extent, false);
    }
  }
  mlc_sb_putc(sb, ']');
  return mlc_sb_cstr(sb);
}

/* the regions as one string: "A[vi, vk] B[vk, vj]" */
static const char *regions_str(const MlcBufferRegion *rs, int n, MlcStrBuf *out) {
  MlcStrBuf one = {0};
  out->len = 0;
  for (int i = 0; i < n; i++) {
    if (i) mlc_sb_putc(out, ' ');
    mlc_sb_puts(out, region_str(&rs[i], &one));
  }
  mlc_vec_free(&one);
  return mlc_sb_cstr(out);
}

#define CHECK_REGIONS(rs, n, want)                   \
  do {                                               \
    MlcStrBuf sb_ = {0};                             \
    CHECK_STR(regions_str((rs), (n), &sb_), (want)); \
    mlc_vec_free(&sb_);                              \
  } while (0)

/* ---- IR helpers ------------------------------------------------------------ */

static MlcExpr *i32(MlcCtx *ctx, int64_t v) { return mlc_e_int(ctx, MLC_I32, v); }
static MlcExpr *f32(MlcCtx *ctx, double v) { return mlc_e_float(ctx, MLC_F32, v); }
static MlcExpr *var(MlcCtx *ctx, const char *name) { return mlc_e_var(ctx, name, MLC_I32); }
static MlcExpr *add(MlcCtx *ctx, MlcExpr *a, MlcExpr *b) { return mlc_e_bin(ctx, MLC_BIN_ADD, a, b); }
static MlcExpr *sub(MlcCtx *ctx, MlcExpr *a, MlcExpr *b) { return mlc_e_bin(ctx, MLC_BIN_SUB, a, b); }
static MlcExpr *mul(MlcCtx *ctx, MlcExpr *a, MlcExpr *b) { return mlc_e_bin(ctx, MLC_BIN_MUL, a, b); }

static MlcBuffer *buffer(MlcCtx *ctx, const char *name, int ndim, int64_t extent) {
  MlcExpr *shape[4];
  for (int d = 0; d < ndim; d++) shape[d] = i32(ctx, extent);
  return mlc_buffer_new(ctx, name, MLC_F32, shape, ndim, NULL, NULL, "global");
}

static MlcExpr *load1(MlcCtx *ctx, MlcBuffer *b, MlcExpr *x) { return mlc_e_load(ctx, b, &x, 1); }
static MlcExpr *load2(MlcCtx *ctx, MlcBuffer *b, MlcExpr *x, MlcExpr *y) {
  MlcExpr *idx[2] = {x, y};
  return mlc_e_load(ctx, b, idx, 2);
}
static MlcStmt *store1(MlcCtx *ctx, MlcBuffer *b, MlcExpr *x, MlcExpr *v) { return mlc_s_store(ctx, b, &x, 1, v); }
static MlcStmt *store2(MlcCtx *ctx, MlcBuffer *b, MlcExpr *x, MlcExpr *y, MlcExpr *v) {
  MlcExpr *idx[2] = {x, y};
  return mlc_s_store(ctx, b, idx, 2, v);
}

static MlcStmt *loop(MlcCtx *ctx, MlcExpr *v, int64_t min, int64_t extent, MlcStmt *body) {
  return mlc_s_for(ctx, v, i32(ctx, min), i32(ctx, extent), MLC_FOR_SERIAL, NULL, NOATTRS, body);
}

static MlcIterVar iter(MlcCtx *ctx, MlcExpr *v, int64_t extent, MlcIterKind kind) {
  return (MlcIterVar){v, {i32(ctx, 0), i32(ctx, extent)}, kind};
}

/* a block over one spatial iter var vi (extent 64) with the given body */
static MlcBlock *block1(MlcCtx *ctx, const char *name, MlcExpr *vi, MlcStmt *body) {
  MlcIterVar it = iter(ctx, vi, 64, MLC_ITER_SPATIAL);
  return mlc_block_new(ctx, name, &it, 1, NULL, 0, NULL, 0, NULL, NULL, 0, NOATTRS, body);
}

/* ---- the mm_relu blocks ------------------------------------------------------ */

static void test_mm_relu_reduction(void) {
  MlcCtx *ctx = mlc_ctx_new();
  MlcBuffer *A = buffer(ctx, "A", 2, 128), *B = buffer(ctx, "B", 2, 128), *Y = buffer(ctx, "Y", 2, 128);
  MlcExpr *vi = var(ctx, "vi"), *vj = var(ctx, "vj"), *vk = var(ctx, "vk");
  MlcExpr *prod = mul(ctx, load2(ctx, A, vi, vk), load2(ctx, B, vk, vj));
  MlcStmt *body = store2(ctx, Y, vi, vj, add(ctx, load2(ctx, Y, vi, vj), prod));
  MlcStmt *init = store2(ctx, Y, vi, vj, f32(ctx, 0));
  MlcIterVar its[3] = {iter(ctx, vi, 128, MLC_ITER_SPATIAL), iter(ctx, vj, 128, MLC_ITER_SPATIAL),
                       iter(ctx, vk, 128, MLC_ITER_REDUCE)};
  MlcBlock *b = mlc_block_new(ctx, "Y", its, 3, NULL, 0, NULL, 0, init, NULL, 0, NOATTRS, body);
  CHECK(mlc_block_infer_regions(ctx, b));
  CHECK_REGIONS(b->reads, b->n_reads, "A[vi, vk] B[vk, vj]");
  CHECK_REGIONS(b->writes, b->n_writes, "Y[vi, vj]");
  CHECK(b->n_reads == 2 && b->reads[0].ranges[0].min == vi && b->reads[1].ranges[0].min == vk);
  CHECK(!mlc_has_error(ctx));
  mlc_ctx_free(ctx);
}

static void test_mm_relu_elementwise(void) {
  MlcCtx *ctx = mlc_ctx_new();
  MlcBuffer *Y = buffer(ctx, "Y", 2, 128), *C = buffer(ctx, "C", 2, 128);
  MlcExpr *vi = var(ctx, "vi"), *vj = var(ctx, "vj");
  MlcStmt *body = store2(ctx, C, vi, vj, mlc_e_bin(ctx, MLC_BIN_MAX, load2(ctx, Y, vi, vj), f32(ctx, 0)));
  MlcIterVar its[2] = {iter(ctx, vi, 128, MLC_ITER_SPATIAL), iter(ctx, vj, 128, MLC_ITER_SPATIAL)};
  MlcBlock *b = mlc_block_new(ctx, "C", its, 2, NULL, 0, NULL, 0, NULL, NULL, 0, NOATTRS, body);
  CHECK(mlc_block_infer_regions(ctx, b));
  CHECK_REGIONS(b->reads, b->n_reads, "Y[vi, vj]");
  CHECK_REGIONS(b->writes, b->n_writes, "C[vi, vj]");
  mlc_ctx_free(ctx);
}

/* without an init, a buffer read and written by the body is both */
static void test_update_without_init_reads(void) {
  MlcCtx *ctx = mlc_ctx_new();
  MlcBuffer *B = buffer(ctx, "B", 1, 64);
  MlcExpr *vi = var(ctx, "vi");
  MlcBlock *b = block1(ctx, "U", vi, store1(ctx, B, vi, add(ctx, load1(ctx, B, vi), f32(ctx, 1))));
  CHECK(mlc_block_infer_regions(ctx, b));
  CHECK_REGIONS(b->reads, b->n_reads, "B[vi]");
  CHECK_REGIONS(b->writes, b->n_writes, "B[vi]");
  mlc_ctx_free(ctx);
}

/* ---- loops inside the block ---------------------------------------------------- */

static void test_inner_loop_relaxed(void) {
  MlcCtx *ctx = mlc_ctx_new();
  MlcBuffer *A = buffer(ctx, "A", 2, 64), *B = buffer(ctx, "B", 1, 64);
  MlcExpr *vi = var(ctx, "vi"), *k = var(ctx, "k");
  MlcStmt *st = store1(ctx, B, vi, add(ctx, load1(ctx, B, vi), load2(ctx, A, vi, k)));
  MlcBlock *b = block1(ctx, "S", vi, loop(ctx, k, 0, 16, st));
  CHECK(mlc_block_infer_regions(ctx, b));
  CHECK_REGIONS(b->reads, b->n_reads, "B[vi] A[vi, 0:+16]");
  CHECK_REGIONS(b->writes, b->n_writes, "B[vi]");
  mlc_ctx_free(ctx);
}

static void test_inner_loop_affine(void) {
  MlcCtx *ctx = mlc_ctx_new();
  MlcBuffer *A = buffer(ctx, "A", 1, 256), *B = buffer(ctx, "B", 1, 256), *C = buffer(ctx, "C", 1, 256);
  MlcExpr *vi = var(ctx, "vi"), *k = var(ctx, "k");
  MlcExpr *base = mul(ctx, vi, i32(ctx, 4));
  /* A[vi*4 + k] over k in [2, 6); B[30 - 2*k]; C[vi*4] */
  MlcExpr *a = load1(ctx, A, add(ctx, base, k));
  MlcExpr *bb = load1(ctx, B, sub(ctx, i32(ctx, 30), mul(ctx, i32(ctx, 2), k)));
  MlcStmt *st = store1(ctx, C, base, add(ctx, a, bb));
  MlcBlock *b = block1(ctx, "S", vi, loop(ctx, k, 2, 4, st));
  CHECK(mlc_block_infer_regions(ctx, b));
  /* k in [2, 5]: vi*4 + [2, 5] -> [vi*4 + 2, 4); 30 - 2k in [20, 26] -> [20, 7) */
  CHECK_REGIONS(b->reads, b->n_reads, "A[(vi * 4) + 2:+4] B[20:+7]");
  CHECK_REGIONS(b->writes, b->n_writes, "C[vi * 4]");
  mlc_ctx_free(ctx);
}

static void test_non_affine_whole_dimension(void) {
  MlcCtx *ctx = mlc_ctx_new();
  MlcBuffer *A = buffer(ctx, "A", 1, 256), *B = buffer(ctx, "B", 1, 64);
  MlcExpr *vi = var(ctx, "vi"), *k = var(ctx, "k");
  MlcStmt *st = store1(ctx, B, vi, load1(ctx, A, mul(ctx, k, k)));
  MlcBlock *b = block1(ctx, "S", vi, loop(ctx, k, 0, 16, st));
  CHECK(mlc_block_infer_regions(ctx, b));
  CHECK_REGIONS(b->reads, b->n_reads, "A[0:+256]");
  mlc_ctx_free(ctx);
}

/* ---- several accesses of one buffer ------------------------------------------------ */

static void test_offsets_hull(void) {
  MlcCtx *ctx = mlc_ctx_new();
  MlcBuffer *A = buffer(ctx, "A", 1, 65), *B = buffer(ctx, "B", 1, 64);
  MlcExpr *vi = var(ctx, "vi");
  MlcExpr *sum = add(ctx, load1(ctx, A, vi), load1(ctx, A, add(ctx, vi, i32(ctx, 1))));
  MlcBlock *b = block1(ctx, "S", vi, store1(ctx, B, vi, sum));
  CHECK(mlc_block_infer_regions(ctx, b));
  CHECK_REGIONS(b->reads, b->n_reads, "A[vi:+2]");
  CHECK(b->n_reads == 1 && b->reads[0].ranges[0].min == vi);
  mlc_ctx_free(ctx);
}

static void test_offsets_hull_below(void) {
  MlcCtx *ctx = mlc_ctx_new();
  MlcBuffer *A = buffer(ctx, "A", 1, 66), *B = buffer(ctx, "B", 1, 64);
  MlcExpr *vi = var(ctx, "vi");
  MlcExpr *v1 = add(ctx, vi, i32(ctx, 1));
  MlcExpr *sum = add(ctx, load1(ctx, A, add(ctx, vi, i32(ctx, 2))), load1(ctx, A, v1));
  sum = add(ctx, sum, load1(ctx, A, sub(ctx, vi, i32(ctx, 1))));
  MlcBlock *b = block1(ctx, "S", vi, store1(ctx, B, vi, sum));
  CHECK(mlc_block_infer_regions(ctx, b));
  CHECK_REGIONS(b->reads, b->n_reads, "A[vi - 1:+4]");
  mlc_ctx_free(ctx);
}

static void test_same_index_twice_is_one_point(void) {
  MlcCtx *ctx = mlc_ctx_new();
  MlcBuffer *A = buffer(ctx, "A", 1, 64), *B = buffer(ctx, "B", 1, 64);
  MlcExpr *vi = var(ctx, "vi");
  MlcExpr *sq = mul(ctx, load1(ctx, A, add(ctx, vi, i32(ctx, 0))), load1(ctx, A, add(ctx, vi, i32(ctx, 0))));
  MlcBlock *b = block1(ctx, "S", vi, store1(ctx, B, vi, sq));
  CHECK(mlc_block_infer_regions(ctx, b));
  CHECK_REGIONS(b->reads, b->n_reads, "A[vi + 0]");
  mlc_ctx_free(ctx);
}

static void test_unrelated_indices_whole_dimension(void) {
  MlcCtx *ctx = mlc_ctx_new();
  MlcBuffer *A = buffer(ctx, "A", 2, 64), *B = buffer(ctx, "B", 2, 64);
  MlcExpr *vi = var(ctx, "vi"), *vj = var(ctx, "vj");
  MlcExpr *sum = add(ctx, load2(ctx, A, vi, vj), load2(ctx, A, vi, vi));
  MlcIterVar its[2] = {iter(ctx, vi, 64, MLC_ITER_SPATIAL), iter(ctx, vj, 64, MLC_ITER_SPATIAL)};
  MlcBlock *b = mlc_block_new(ctx, "S", its, 2, NULL, 0, NULL, 0, NULL, NULL, 0, NOATTRS,
                              store2(ctx, B, vi, vj, sum));
  CHECK(mlc_block_infer_regions(ctx, b));
  CHECK_REGIONS(b->reads, b->n_reads, "A[vi, 0:+64]");
  mlc_ctx_free(ctx);
}

static void test_constant_indices(void) {
  MlcCtx *ctx = mlc_ctx_new();
  MlcBuffer *A = buffer(ctx, "A", 1, 8), *B = buffer(ctx, "B", 1, 64);
  MlcExpr *vi = var(ctx, "vi");
  MlcExpr *sum = add(ctx, load1(ctx, A, i32(ctx, 3)), load1(ctx, A, i32(ctx, 0)));
  MlcBlock *b = block1(ctx, "S", vi, store1(ctx, B, vi, sum));
  CHECK(mlc_block_infer_regions(ctx, b));
  CHECK_REGIONS(b->reads, b->n_reads, "A[0:+4]");
  mlc_ctx_free(ctx);
}

/* ---- scoping: allocations, lets, nested blocks, given regions ------------------------ */

static void test_allocated_buffer_excluded(void) {
  MlcCtx *ctx = mlc_ctx_new();
  MlcBuffer *A = buffer(ctx, "A", 1, 64), *B = buffer(ctx, "B", 1, 64), *T = buffer(ctx, "T", 1, 1);
  MlcExpr *vi = var(ctx, "vi"), *zero = i32(ctx, 0);
  MlcStmt *items[2] = {store1(ctx, T, zero, load1(ctx, A, vi)), store1(ctx, B, vi, load1(ctx, T, zero))};
  MlcIterVar it = iter(ctx, vi, 64, MLC_ITER_SPATIAL);
  MlcBlock *b = mlc_block_new(ctx, "S", &it, 1, NULL, 0, NULL, 0, NULL, &T, 1, NOATTRS,
                              mlc_s_seq(ctx, items, 2));
  CHECK(mlc_block_infer_regions(ctx, b));
  CHECK_REGIONS(b->reads, b->n_reads, "A[vi]");
  CHECK_REGIONS(b->writes, b->n_writes, "B[vi]");
  mlc_ctx_free(ctx);
}

static void test_let_substituted(void) {
  MlcCtx *ctx = mlc_ctx_new();
  MlcBuffer *A = buffer(ctx, "A", 1, 65), *B = buffer(ctx, "B", 1, 64);
  MlcExpr *vi = var(ctx, "vi"), *x = var(ctx, "x");
  MlcStmt *st = mlc_s_let(ctx, x, add(ctx, vi, i32(ctx, 1)), store1(ctx, B, vi, load1(ctx, A, x)));
  MlcBlock *b = block1(ctx, "S", vi, st);
  CHECK(mlc_block_infer_regions(ctx, b));
  CHECK_REGIONS(b->reads, b->n_reads, "A[vi + 1]");
  mlc_ctx_free(ctx);
}

/* O over vo: for i in range(4): block I (vi = vo*4 + i): C[vi] = A[vi] */
static void test_nested_block(void) {
  MlcCtx *ctx = mlc_ctx_new();
  MlcBuffer *A = buffer(ctx, "A", 1, 64), *C = buffer(ctx, "C", 1, 64);
  MlcExpr *vo = var(ctx, "vo"), *i = var(ctx, "i"), *vi = var(ctx, "vi");
  MlcBlock *inner = block1(ctx, "I", vi, store1(ctx, C, vi, load1(ctx, A, vi)));
  CHECK(mlc_block_infer_regions(ctx, inner));
  MlcExpr *bind = add(ctx, mul(ctx, vo, i32(ctx, 4)), i);
  MlcStmt *realize = mlc_s_realize(ctx, &bind, 1, NULL, inner);
  MlcIterVar it = iter(ctx, vo, 16, MLC_ITER_SPATIAL);
  MlcBlock *outer = mlc_block_new(ctx, "O", &it, 1, NULL, 0, NULL, 0, NULL, NULL, 0, NOATTRS,
                                  loop(ctx, i, 0, 4, realize));
  CHECK(mlc_block_infer_regions(ctx, outer));
  CHECK_REGIONS(outer->reads, outer->n_reads, "A[vo * 4:+4]");
  CHECK_REGIONS(outer->writes, outer->n_writes, "C[vo * 4:+4]");
  mlc_ctx_free(ctx);
}

static void test_given_reads_kept(void) {
  MlcCtx *ctx = mlc_ctx_new();
  MlcBuffer *A = buffer(ctx, "A", 1, 64), *B = buffer(ctx, "B", 1, 64);
  MlcExpr *vi = var(ctx, "vi");
  MlcRange whole = {i32(ctx, 0), i32(ctx, 64)};
  MlcBufferRegion given = {A, &whole};
  MlcIterVar it = iter(ctx, vi, 64, MLC_ITER_SPATIAL);
  MlcBlock *b = mlc_block_new(ctx, "S", &it, 1, &given, 1, NULL, 0, NULL, NULL, 0, NOATTRS,
                              store1(ctx, B, vi, load1(ctx, A, vi)));
  CHECK(mlc_block_infer_regions(ctx, b));
  CHECK_REGIONS(b->reads, b->n_reads, "A[0:+64]");
  CHECK_REGIONS(b->writes, b->n_writes, "B[vi]");
  mlc_ctx_free(ctx);
}

static void test_vector_index(void) {
  MlcCtx *ctx = mlc_ctx_new();
  MlcBuffer *A = buffer(ctx, "A", 1, 256), *B = buffer(ctx, "B", 1, 256);
  MlcExpr *vi = var(ctx, "vi");
  MlcExpr *ramp = mlc_e_ramp(ctx, mul(ctx, vi, i32(ctx, 4)), i32(ctx, 1), 4);
  MlcStmt *st = mlc_s_store(ctx, B, &ramp, 1, mlc_e_load(ctx, A, &ramp, 1));
  MlcBlock *b = block1(ctx, "S", vi, st);
  CHECK(mlc_block_infer_regions(ctx, b));
  CHECK_REGIONS(b->reads, b->n_reads, "A[vi * 4:+4]");
  CHECK_REGIONS(b->writes, b->n_writes, "B[vi * 4:+4]");
  mlc_ctx_free(ctx);
}

int main(void) {
  RUN(test_mm_relu_reduction);
  RUN(test_mm_relu_elementwise);
  RUN(test_update_without_init_reads);
  RUN(test_inner_loop_relaxed);
  RUN(test_inner_loop_affine);
  RUN(test_non_affine_whole_dimension);
  RUN(test_offsets_hull);
  RUN(test_offsets_hull_below);
  RUN(test_same_index_twice_is_one_point);
  RUN(test_unrelated_indices_whole_dimension);
  RUN(test_constant_indices);
  RUN(test_allocated_buffer_excluded);
  RUN(test_let_substituted);
  RUN(test_nested_block);
  RUN(test_given_reads_kept);
  RUN(test_vector_index);
  return CHECK_DONE();
}
