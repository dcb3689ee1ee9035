/* mem.c - allocation: checked malloc wrappers, the arena that owns IR nodes,
 * growable arrays and string buffers.
 *
 * The arena is a list of chunks; a request larger than a chunk gets a chunk of
 * its own, so no size is too big to place but every node of a context is
 * released by one mlc_arena_free. */
#include "mlcc/support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void out_of_memory(size_t n) {
  fprintf(stderr, "mlcc: out of memory (requesting %zu bytes)\n", n);
  abort();
}

void *mlc_xmalloc(size_t n) {
  void *p = malloc(n ? n : 1);
  if (!p) out_of_memory(n);
  return p;
}

void *mlc_xcalloc(size_t n, size_t size) {
  void *p = calloc(n ? n : 1, size ? size : 1);
  if (!p) out_of_memory(n * size);
  return p;
}

void *mlc_xrealloc(void *p, size_t n) {
  void *q = realloc(p, n ? n : 1);
  if (!q) out_of_memory(n);
  return q;
}

char *mlc_xstrdup(const char *s) {
  size_t n = strlen(s) + 1;
  return memcpy(mlc_xmalloc(n), s, n);
}

bool mlc_mul_overflows(size_t a, size_t b, size_t *out) {
  if (a && b > SIZE_MAX / a) return true;
  *out = a * b;
  return false;
}

/* ---- arena ---------------------------------------------------------------- */

enum { ARENA_CHUNK = 64 * 1024, ARENA_ALIGN = 16 };

struct MlcArenaChunk {
  MlcArenaChunk *next;
  size_t size, used;
  size_t serial; /* order of making, for rollback */
  _Alignas(16) unsigned char data[];
};

void mlc_arena_init(MlcArena *a) { a->head = NULL; a->used_total = 0; a->n_made = 0; }

void mlc_arena_free(MlcArena *a) {
  for (MlcArenaChunk *c = a->head, *next; c; c = next) {
    next = c->next;
    free(c);
  }
  a->head = NULL;
  a->used_total = 0;
}

MlcArenaMark mlc_arena_mark(const MlcArena *a) {
  return (MlcArenaMark){a->head, a->head ? a->head->used : 0, a->used_total, a->n_made};
}

/* The chunks made since the mark are unlinked wherever they sit (a big one
 * goes in after the head of its time); what is left is the list of the mark,
 * whose head only grew. */
void mlc_arena_rollback(MlcArena *a, MlcArenaMark mark) {
  for (MlcArenaChunk **link = &a->head; *link;) {
    MlcArenaChunk *c = *link;
    if (c->serial >= mark.n_made) {
      *link = c->next;
      free(c);
    } else {
      link = &c->next;
    }
  }
  a->head = mark.head;
  if (a->head) a->head->used = mark.head_used;
  a->used_total = mark.used_total;
  a->n_made = mark.n_made;
}

/* NULL when the system has no memory for n bytes: what a size read from
 * input goes through, so a reader can report it instead of aborting */
void *mlc_arena_try_alloc(MlcArena *a, size_t n) {
  if (n > SIZE_MAX - 2 * ARENA_ALIGN - sizeof(MlcArenaChunk)) return NULL;
  n = (n + ARENA_ALIGN - 1) & ~(size_t)(ARENA_ALIGN - 1);
  if (n == 0) n = ARENA_ALIGN;
  MlcArenaChunk *c = a->head;
  if (!c || c->size - c->used < n) {
    size_t size = n > ARENA_CHUNK / 4 ? n : ARENA_CHUNK;
    MlcArenaChunk *fresh = malloc(sizeof *fresh + size);
    if (!fresh) return NULL;
    fresh->size = size;
    fresh->used = 0;
    fresh->serial = a->n_made++;
    if (size == n && c) { /* a big request: keep filling the current chunk */
      fresh->next = c->next;
      c->next = fresh;
      c = fresh;
    } else {
      fresh->next = c;
      a->head = c = fresh;
    }
  }
  void *p = c->data + c->used;
  c->used += n;
  a->used_total += n;
  memset(p, 0, n);
  return p;
}

void *mlc_arena_alloc(MlcArena *a, size_t n) {
  void *p = mlc_arena_try_alloc(a, n);
  if (!p) out_of_memory(n);
  return p;
}

void *mlc_arena_array(MlcArena *a, size_t count, size_t elem) {
  size_t n;
  if (mlc_mul_overflows(count, elem, &n)) out_of_memory(SIZE_MAX);
  return mlc_arena_alloc(a, n);
}

void *mlc_arena_dup(MlcArena *a, const void *src, size_t n) {
  void *p = mlc_arena_alloc(a, n);
  if (n) memcpy(p, src, n);
  return p;
}

char *mlc_arena_strndup(MlcArena *a, const char *s, size_t n) {
  char *p = mlc_arena_alloc(a, n + 1);
  if (n) memcpy(p, s, n); /* s may be NULL when n is 0 */
  p[n] = 0;
  return p;
}

/* ---- growable arrays and string buffers ----------------------------------- */

void mlc__vec_reserve(void **data, size_t *cap, size_t need, size_t elem) {
  if (need <= *cap) return;
  size_t c = *cap ? *cap : 8;
  while (c < need) {
    if (c > SIZE_MAX / 2) out_of_memory(SIZE_MAX);
    c *= 2;
  }
  size_t bytes;
  if (mlc_mul_overflows(c, elem, &bytes)) out_of_memory(SIZE_MAX);
  *data = mlc_xrealloc(*data, bytes);
  *cap = c;
}

void mlc_sb_putc(MlcStrBuf *sb, char c) {
  mlc__vec_reserve((void **)&sb->data, &sb->cap, sb->len + 2, 1);
  sb->data[sb->len++] = c;
  sb->data[sb->len] = 0;
}

void mlc_sb_puts(MlcStrBuf *sb, const char *s) {
  size_t n = strlen(s);
  mlc__vec_reserve((void **)&sb->data, &sb->cap, sb->len + n + 1, 1);
  memcpy(sb->data + sb->len, s, n + 1);
  sb->len += n;
}

void mlc_sb_vprintf(MlcStrBuf *sb, const char *fmt, va_list ap) {
  va_list ap2;
  va_copy(ap2, ap);
  int n = vsnprintf(NULL, 0, fmt, ap2);
  va_end(ap2);
  if (n < 0) return;
  mlc__vec_reserve((void **)&sb->data, &sb->cap, sb->len + (size_t)n + 1, 1);
  vsnprintf(sb->data + sb->len, (size_t)n + 1, fmt, ap);
  sb->len += (size_t)n;
}

void mlc_sb_printf(MlcStrBuf *sb, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  mlc_sb_vprintf(sb, fmt, ap);
  va_end(ap);
}

const char *mlc_sb_cstr(MlcStrBuf *sb) { return sb->len ? sb->data : ""; }
