/* test_support.c - arena, vectors, maps, interning and the error channel. */
#include "check.h"
#include "mlcc/support.h"

static void test_arena(void) {
  MlcArena a;
  mlc_arena_init(&a);
  char *small = mlc_arena_alloc(&a, 10);
  CHECK(((uintptr_t)small & 15) == 0);
  for (int i = 0; i < 10; i++) CHECK(small[i] == 0);
  char *big = mlc_arena_alloc(&a, 1 << 20); /* larger than a chunk */
  big[(1 << 20) - 1] = 1;
  char *after = mlc_arena_alloc(&a, 8); /* still served from the open chunk */
  CHECK(after != NULL && after != big);
  CHECK(strcmp(mlc_arena_strndup(&a, "hello!", 5), "hello") == 0);
  mlc_arena_free(&a);
}

static void test_vec_and_strbuf(void) {
  MLC_VEC(int) v = {0};
  for (int i = 0; i < 1000; i++) mlc_vec_push(&v, i * 2);
  CHECK(v.len == 1000 && v.data[999] == 1998);
  mlc_vec_free(&v);
  CHECK(v.len == 0 && v.data == NULL);
  MlcStrBuf sb = {0};
  CHECK_STR(mlc_sb_cstr(&sb), "");
  mlc_sb_printf(&sb, "%d-%s", 42, "x");
  mlc_sb_putc(&sb, '!');
  CHECK_STR(mlc_sb_cstr(&sb), "42-x!");
  mlc_vec_free(&sb);
}

static void test_map(void) {
  MlcMap m = {0};
  static int keys[5000];
  for (int i = 0; i < 5000; i++) mlc_map_put(&m, &keys[i], (void *)(intptr_t)(i + 1));
  CHECK(m.len == 5000);
  int bad = 0;
  for (int i = 0; i < 5000; i++) bad += mlc_map_get(&m, &keys[i]) != (void *)(intptr_t)(i + 1);
  CHECK(bad == 0);
  mlc_map_put(&m, &keys[7], (void *)(intptr_t)99);
  CHECK(m.len == 5000 && mlc_map_get(&m, &keys[7]) == (void *)(intptr_t)99);
  CHECK(m.keys[0] == &keys[0] && m.keys[4999] == &keys[4999]); /* insertion order */
  int other;
  CHECK(!mlc_map_has(&m, &other) && mlc_map_get(&m, &other) == NULL);
  mlc_map_free(&m);
}

static void test_intern(void) {
  MlcCtx *ctx = mlc_ctx_new();
  char buf[8] = "abc";
  const char *a = mlc_intern(ctx, "abc"), *b = mlc_intern(ctx, buf);
  CHECK(a == b && a != buf);
  CHECK(mlc_intern(ctx, "abd") != a);
  CHECK(mlc_intern_n(ctx, "abcdef", 3) == a);
  CHECK(mlc_internf(ctx, "a%sc", "b") == a);
  CHECK(mlc_intern(ctx, "") == mlc_intern_n(ctx, "x", 0));
  mlc_ctx_free(ctx);
}

static void test_error_caret(void) {
  MlcCtx *ctx = mlc_ctx_new();
  const char *src = "line one\n  bad token here\n";
  mlc_ctx_add_source(ctx, "f.py", src, strlen(src));
  MlcLoc loc = {mlc_intern(ctx, "f.py"), 2, 3};
  CHECK(!mlc_error(ctx, loc, "unexpected %s", "'bad'"));
  CHECK(!mlc_error(ctx, loc, "second error is dropped"));
  MlcStrBuf sb = {0};
  mlc_format_error(ctx, &sb);
  CHECK_STR(mlc_sb_cstr(&sb), "f.py:2:3: error: unexpected 'bad'\n      bad token here\n      ^\n");
  mlc_vec_free(&sb);
  mlc_clear_error(ctx);
  CHECK(!mlc_has_error(ctx));
  ctx->build_loc = loc;
  mlc_error(ctx, (MlcLoc){0}, "from a builder");
  CHECK(mlc_error_loc(ctx).line == 2);
  mlc_ctx_free(ctx);
}

/* allocations after a mark, small ones and chunk-sized ones, are undone by
 * a rollback, as often as wanted; what came before stays */
static void test_arena_rollback(void) {
  MlcArena a;
  mlc_arena_init(&a);
  char *before = mlc_arena_strndup(&a, "kept", 4);
  MlcArenaMark mark = mlc_arena_mark(&a);
  size_t used = a.used_total;
  for (int round = 0; round < 3; round++) {
    for (int i = 0; i < 100; i++) mlc_arena_alloc(&a, 1000); /* several chunks */
    char *big = mlc_arena_alloc(&a, 1 << 20);
    big[0] = 1;
    char *small = mlc_arena_alloc(&a, 32);
    small[0] = 1;
    CHECK(a.used_total > used);
    mlc_arena_rollback(&a, mark);
    CHECK(a.used_total == used);
    CHECK_STR(before, "kept");
    /* the space after the mark is handed out again, zeroed */
    char *again = mlc_arena_alloc(&a, 16);
    CHECK(again == before + 16);
    CHECK(again[0] == 0);
    mlc_arena_rollback(&a, mark);
  }
  /* a mark of an empty arena rolls back to nothing */
  MlcArena b;
  mlc_arena_init(&b);
  MlcArenaMark empty = mlc_arena_mark(&b);
  mlc_arena_alloc(&b, 1 << 20);
  mlc_arena_alloc(&b, 8);
  mlc_arena_rollback(&b, empty);
  CHECK(b.head == NULL && b.used_total == 0);
  mlc_arena_free(&b);
  mlc_arena_free(&a);
}

static void test_ctx_rollback(void) {
  MlcCtx *ctx = mlc_ctx_new();
  const char *old = mlc_intern(ctx, "old");
  mlc_ctx_add_source(ctx, "a.py", "x = 1\n", 6);
  unsigned counter = ctx->fresh_counter;
  MlcCtxMark mark;
  mlc_ctx_mark(ctx, &mark);
  size_t interned = ctx->interned.len;
  for (int round = 0; round < 2; round++) {
    char name[32];
    for (int i = 0; i < 1000; i++) {
      snprintf(name, sizeof name, "new%d", i);
      mlc_intern(ctx, name);
    }
    mlc_ctx_add_source(ctx, "b.py", "y = 2\n", 6);
    ctx->fresh_counter += 7;
    mlc_error(ctx, (MlcLoc){mlc_intern(ctx, "b.py"), 1, 1}, "failed");
    mlc_ctx_rollback(ctx, &mark);
    CHECK(!mlc_has_error(ctx));
    CHECK(ctx->fresh_counter == counter);
    CHECK(ctx->interned.len == interned);
    CHECK(mlc_intern(ctx, "old") == old);
    CHECK(ctx->interned.len == interned);
    CHECK(mlc_map_get(&ctx->sources, mlc_intern(ctx, "a.py")) != NULL);
    CHECK(ctx->sources.len == 1);
    mlc_ctx_rollback(ctx, &mark); /* "b.py" was interned by the line above */
  }
  mlc_ctx_mark_free(&mark);
  mlc_ctx_free(ctx);
}

static void test_read_file_errors(void) {
  MlcCtx *ctx = mlc_ctx_new();
  size_t n;
  CHECK(mlc_read_file(ctx, "no/such/file.py", 1024, &n) == NULL);
  CHECK(mlc_has_error(ctx) && strstr(mlc_error_msg(ctx), "cannot open"));
  mlc_ctx_free(ctx);
}

int main(void) {
  RUN(test_arena);
  RUN(test_arena_rollback);
  RUN(test_ctx_rollback);
  RUN(test_vec_and_strbuf);
  RUN(test_map);
  RUN(test_intern);
  RUN(test_error_caret);
  RUN(test_read_file_errors);
  return CHECK_DONE();
}
