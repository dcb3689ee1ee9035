/* workspace.c - the memory kernels ask for while they run (env->workspace_alloc).
 *
 * A kernel whose intermediate buffer is too big for the stack allocates it on
 * every call and frees it before returning.  Straight from malloc, a buffer of
 * a few hundred KiB comes from fresh pages each time: glibc gives the top of
 * the heap back to the system when it is freed, so every call pays the page
 * faults again (and, with threads, the TLB shootdowns of giving it back),
 * which costs more than the kernel's arithmetic for small convolutions.
 * Freed blocks of at least CACHE_MIN bytes are therefore kept in a small cache
 * (CACHE_SLOTS blocks, CACHE_BYTES in all) and handed out again, best fit,
 * to a request they can hold.  The cache is shared by all threads under one
 * lock; mlcrt_workspace_release gives its blocks back.
 *
 * Each block starts with a header, just before the pointer handed out,
 * naming the block malloc returned and its size, so a block can be re-aligned
 * for any later request it is big enough for. */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#include "rt.h"

#define CACHE_MIN ((size_t)16 << 10)
#define CACHE_SLOTS 16
#define CACHE_BYTES ((size_t)256 << 20)

typedef struct Head {
  void *raw;  /* what malloc returned */
  size_t cap; /* its size in bytes */
} Head;

static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
static Head g_slot[CACHE_SLOTS];
static int g_n;
static size_t g_bytes;

/* the aligned pointer for a request of nbytes in block h, or NULL when it does not fit */
static void *place(Head h, size_t nbytes, size_t align) {
  uintptr_t lo = (uintptr_t)h.raw + sizeof(Head);
  uintptr_t p = (lo + (align - 1)) & ~(uintptr_t)(align - 1);
  if (p - (uintptr_t)h.raw > h.cap || h.cap - (p - (uintptr_t)h.raw) < nbytes) return NULL;
  return (void *)p;
}

static void *from_cache(size_t nbytes, size_t align) {
  pthread_mutex_lock(&g_mu);
  int best = -1;
  for (int i = 0; i < g_n; i++)
    if (place(g_slot[i], nbytes, align) && (best < 0 || g_slot[i].cap < g_slot[best].cap)) best = i;
  /* a block more than 4x the request stays for a bigger one */
  if (best >= 0 && g_slot[best].cap / 4 > nbytes + align + sizeof(Head)) best = -1;
  Head h = {NULL, 0};
  if (best >= 0) {
    h = g_slot[best];
    g_slot[best] = g_slot[--g_n];
    g_bytes -= h.cap;
  }
  pthread_mutex_unlock(&g_mu);
  if (!h.raw) return NULL;
  void *p = place(h, nbytes, align);
  ((Head *)p)[-1] = h;
  return p;
}

void *mlcrt__workspace_alloc(size_t nbytes, size_t align) {
  if (align == 0) align = MLCRT_ALIGN;
  if (align & (align - 1)) {
    mlcrt_set_error("workspace_alloc: alignment %zu is not a power of two", align);
    return NULL;
  }
  if (align < _Alignof(Head)) align = _Alignof(Head);
  if (nbytes == 0) nbytes = 1;
  if (nbytes >= CACHE_MIN) {
    void *p = from_cache(nbytes, align);
    if (p) return p;
  }
  if (nbytes > SIZE_MAX - align - sizeof(Head)) {
    mlcrt_set_error("workspace_alloc: out of memory (%zu bytes)", nbytes);
    return NULL;
  }
  Head h = {malloc(nbytes + align - 1 + sizeof(Head)), nbytes + align - 1 + sizeof(Head)};
  if (!h.raw) {
    mlcrt_set_error("workspace_alloc: out of memory (%zu bytes)", nbytes);
    return NULL;
  }
  void *p = place(h, nbytes, align);
  ((Head *)p)[-1] = h;
  return p;
}

void mlcrt__workspace_free(void *p) {
  if (!p) return;
  Head h = ((Head *)p)[-1];
  if (h.cap >= CACHE_MIN) {
    pthread_mutex_lock(&g_mu);
    bool kept = g_n < CACHE_SLOTS && h.cap <= CACHE_BYTES - g_bytes;
    if (kept) {
      g_slot[g_n++] = h;
      g_bytes += h.cap;
    }
    pthread_mutex_unlock(&g_mu);
    if (kept) return;
  }
  free(h.raw);
}

void mlcrt_workspace_release(void) {
  pthread_mutex_lock(&g_mu);
  for (int i = 0; i < g_n; i++) free(g_slot[i].raw);
  g_n = 0;
  g_bytes = 0;
  pthread_mutex_unlock(&g_mu);
}
