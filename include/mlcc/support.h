/* support.h - the support layer: arena, growable arrays, hash maps, interned
 * strings and the one error channel (MlcCtx).
 *
 * Everything built while compiling lives in an arena owned by a context and is
 * released at once with it; nothing is freed node by node.  A function that can
 * fail on input records one message with a location in the context and returns
 * NULL or a failure status; the first error wins, so the message a user sees is
 * the one closest to the cause. */
#ifndef MLCC_SUPPORT_H
#define MLCC_SUPPORT_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h> /* free, used by mlc_vec_free */

#if defined(__GNUC__)
#define MLC_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define MLC_PRINTF(f, a)
#endif

/* ---- memory -------------------------------------------------------------- */

/* malloc/realloc that end the process only on exhaustion of memory, which no
 * caller can recover from; sizes computed from input are bounded before. */
void *mlc_xmalloc(size_t n);
void *mlc_xcalloc(size_t n, size_t size);
void *mlc_xrealloc(void *p, size_t n);
char *mlc_xstrdup(const char *s);

/* true when a*b overflows size_t; *out gets the product otherwise */
bool mlc_mul_overflows(size_t a, size_t b, size_t *out);

typedef struct MlcArenaChunk MlcArenaChunk;
typedef struct MlcArena {
  MlcArenaChunk *head;
  size_t used_total;
  size_t n_made; /* chunks ever made: each chunk's serial number */
} MlcArena;

void mlc_arena_init(MlcArena *a);
void mlc_arena_free(MlcArena *a);
/* zeroed, 16-byte aligned */
void *mlc_arena_alloc(MlcArena *a, size_t n);
/* like mlc_arena_alloc, but NULL instead of aborting when memory runs out;
 * for sizes that come from input */
void *mlc_arena_try_alloc(MlcArena *a, size_t n);
void *mlc_arena_array(MlcArena *a, size_t count, size_t elem);
void *mlc_arena_dup(MlcArena *a, const void *src, size_t n);
char *mlc_arena_strndup(MlcArena *a, const char *s, size_t n);
/* What an arena holds at one moment; mlc_arena_rollback frees everything
 * allocated since (the memory is reused, zeroed, by later allocations).
 * Rolling back past a mark invalidates the marks taken after it. */
typedef struct MlcArenaMark {
  MlcArenaChunk *head;
  size_t head_used, used_total, n_made;
} MlcArenaMark;
MlcArenaMark mlc_arena_mark(const MlcArena *a);
void mlc_arena_rollback(MlcArena *a, MlcArenaMark mark);

/* ---- growable arrays (malloc-backed, for building) ------------------------ */

#define MLC_VEC(T) struct { T *data; size_t len, cap; }
void mlc__vec_reserve(void **data, size_t *cap, size_t need, size_t elem);
#define mlc_vec_push(v, x) \
  (mlc__vec_reserve((void **)&(v)->data, &(v)->cap, (v)->len + 1, sizeof *(v)->data), \
   (v)->data[(v)->len++] = (x))
#define mlc_vec_free(v) (free((v)->data), (v)->data = NULL, (v)->len = (v)->cap = 0)
/* copy a vec's elements into the arena (NULL when empty) */
#define mlc_vec_to_arena(arena, v) \
  ((v)->len ? mlc_arena_dup((arena), (v)->data, (v)->len * sizeof *(v)->data) : NULL)

typedef MLC_VEC(char) MlcStrBuf;
void mlc_sb_putc(MlcStrBuf *sb, char c);
void mlc_sb_puts(MlcStrBuf *sb, const char *s);
void mlc_sb_printf(MlcStrBuf *sb, const char *fmt, ...) MLC_PRINTF(2, 3);
void mlc_sb_vprintf(MlcStrBuf *sb, const char *fmt, va_list ap);
const char *mlc_sb_cstr(MlcStrBuf *sb); /* NUL-terminated view, "" when empty */

/* ---- hash maps -------------------------------------------------------------
 * Open addressing; keys are pointers (interned strings are pointers too) and
 * values are pointers.  Iteration order is insertion order, so anything printed
 * from a map is deterministic. */
typedef struct MlcMap {
  const void **keys;   /* insertion order */
  void **vals;
  size_t len, cap;
  int32_t *slots;      /* index into keys, -1 empty */
  size_t nslots;
} MlcMap;

void mlc_map_free(MlcMap *m);
void *mlc_map_get(const MlcMap *m, const void *key);
bool mlc_map_has(const MlcMap *m, const void *key);
void mlc_map_put(MlcMap *m, const void *key, void *val);
/* *dst (freed first) becomes a copy of src with its own arrays */
void mlc_map_copy(MlcMap *dst, const MlcMap *src);
uint64_t mlc_hash_bytes(const void *p, size_t n, uint64_t seed);
uint64_t mlc_hash_combine(uint64_t h, uint64_t v);

/* ---- locations and the context ------------------------------------------- */

typedef struct MlcLoc {
  const char *file; /* interned; NULL when unknown */
  int line, col;    /* 1-based; 0 when unknown */
} MlcLoc;

typedef struct MlcCtx {
  MlcArena arena;         /* owns every node built in this context */
  MlcMap interned;        /* content hash -> chain of interned strings */
  /* the one error slot */
  bool has_error;
  MlcLoc err_loc;
  char *err_msg;
  /* Where the node being built came from.  IR nodes carry no locations, so
   * an error a builder records without one (line 0) takes this one: a reader
   * sets it to the construct it is turning into IR. */
  MlcLoc build_loc;
  /* source text registered for locations (file name -> text), for carets */
  MlcMap sources;
  unsigned fresh_counter; /* for fresh names */
} MlcCtx;

MlcCtx *mlc_ctx_new(void);
void mlc_ctx_free(MlcCtx *ctx);

/* A context as it was at one moment.  mlc_ctx_rollback frees every node,
 * interned string and source text made since the mark, clears the error and
 * restores the fresh-name counter, so one context can try many things from
 * a common start (a module read once) in bounded memory.  Anything made
 * after the mark must not be used after the rollback.  The mark is taken
 * with no error recorded and stays valid for further rollbacks until it is
 * freed. */
typedef struct MlcCtxMark {
  MlcArenaMark arena;
  MlcMap interned, sources; /* copies */
  MlcLoc build_loc;
  unsigned fresh_counter;
} MlcCtxMark;
void mlc_ctx_mark(const MlcCtx *ctx, MlcCtxMark *mark);
void mlc_ctx_rollback(MlcCtx *ctx, const MlcCtxMark *mark);
void mlc_ctx_mark_free(MlcCtxMark *mark);

/* Interned strings: equal contents give the same pointer, so names compare with
 * ==.  The text is owned by the context. */
const char *mlc_intern(MlcCtx *ctx, const char *s);
const char *mlc_intern_n(MlcCtx *ctx, const char *s, size_t n);
const char *mlc_internf(MlcCtx *ctx, const char *fmt, ...) MLC_PRINTF(2, 3);

/* Record an error (the first one wins).  Returns false so that a failing
 * function can `return mlc_error(...)`. */
bool mlc_error(MlcCtx *ctx, MlcLoc loc, const char *fmt, ...) MLC_PRINTF(3, 4);
bool mlc_verror(MlcCtx *ctx, MlcLoc loc, const char *fmt, va_list ap);
bool mlc_has_error(const MlcCtx *ctx);
const char *mlc_error_msg(const MlcCtx *ctx);
MlcLoc mlc_error_loc(const MlcCtx *ctx);
void mlc_clear_error(MlcCtx *ctx);

/* Keep the text of a source file so an error can show its line with a caret.
 * The context copies the text. */
void mlc_ctx_add_source(MlcCtx *ctx, const char *file, const char *text, size_t len);
/* Format the current error as
 *   file:line:col: error: message
 *     <source line>
 *     ^
 * (without the last two lines when the source is unknown) into sb. */
void mlc_format_error(const MlcCtx *ctx, MlcStrBuf *sb);

/* Read a whole file ("-" is stdin) into a NUL-terminated malloc'd buffer the
 * caller frees; *len gets its length.  NULL + error on failure;
 * refuses files over max_bytes, and anything but a regular file (a FIFO or
 * a device) without blocking on it. */
char *mlc_read_file(MlcCtx *ctx, const char *path, size_t max_bytes, size_t *len);

/* An output file that replaces its path only when complete (outfile.c).
 * mlc_out_begin creates an empty new file beside path (o->write_to); the
 * caller writes it, directly or by running a program such as the C
 * compiler; mlc_out_commit renames it over path, mlc_out_discard removes
 * it.  So a failed command leaves what was at path as it was.  An existing
 * device or FIFO at path is written in place (write_to is path) and never
 * removed; a symlink to a regular file keeps the link and replaces the
 * file it leads to. */
typedef struct MlcOutFile {
  const char *path;
  char *write_to; /* the new file, or path itself when written in place */
  char *target;   /* what write_to is renamed over: path, or where its symlink leads */
  bool in_place;
  bool existed; /* something was at path when the write began */
} MlcOutFile;
bool mlc_out_begin(MlcCtx *ctx, const char *path, MlcOutFile *o);
/* write data as the whole of o's new file */
bool mlc_out_write(MlcCtx *ctx, MlcOutFile *o, const void *data, size_t len);
bool mlc_out_commit(MlcCtx *ctx, MlcOutFile *o);
/* remove the new file (nothing when written in place); safe after commit */
void mlc_out_discard(MlcOutFile *o);
/* forget o but leave its new file where it is, for a person to read */
void mlc_out_abandon(MlcOutFile *o);
/* begin + write + commit: path holds data, or is unchanged on failure */
bool mlc_write_file(MlcCtx *ctx, const char *path, const void *data, size_t len);

#endif
