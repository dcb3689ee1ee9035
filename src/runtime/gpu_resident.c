/* gpu_resident.c - which host tensors have a device copy (runtime.h,
 * "residency"), over the plain services of each API (alloc, upload,
 * download, release).  One table per API holds the copies of the run in
 * progress; entries never overlap (an acquire over part of an entry first
 * brings that entry's newest bytes home and drops it), so a host range has
 * at most one copy.  Copies within a kept range (a model's weights) that
 * are as new as the host's stay in the table from one run to the next.
 * Transfers are counted here for tests. */
#include "rt.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

enum { BOTH = 0, DEV_NEWER = 1, HOST_NEWER = 2 };

typedef struct Entry {
  uint8_t *host;
  size_t nbytes;
  void *dev;
  int state;
} Entry;

typedef struct Resident {
  const MlcrtGpu *(*base_of)(void);
  const MlcrtGpu *base;
  MlcrtGpu api;  /* base's services plus the residency functions */
  pthread_mutex_t init_lock, run_lock;
  pthread_t owner; /* the thread whose run is in progress, when active */
  atomic_int active;
  Entry *e;
  size_t n, cap;
  void **dead; /* copies dropped from the table during the run, freed at its end */
  size_t n_dead, cap_dead;
  Entry *kept;  /* kept host ranges (dev and state unused) */
  size_t n_kept, cap_kept;
  atomic_uint_fast64_t up, down, up_bytes, down_bytes;
} Resident;

static bool in_run(Resident *r) {
  return atomic_load(&r->active) && pthread_equal(r->owner, pthread_self());
}

static int upload(Resident *r, void *dev, const void *host, size_t nbytes) {
  atomic_fetch_add(&r->up, 1);
  atomic_fetch_add(&r->up_bytes, nbytes);
  return r->base->upload(dev, host, nbytes);
}

static int download(Resident *r, void *host, void *dev, size_t nbytes) {
  atomic_fetch_add(&r->down, 1);
  atomic_fetch_add(&r->down_bytes, nbytes);
  return r->base->download(host, dev, nbytes);
}

static bool overlaps(const Entry *x, const uint8_t *h, size_t n) {
  return x->host < h + n && h < x->host + x->nbytes;
}

/* the newest bytes of entry i on the host */
static int flush(Resident *r, Entry *x) {
  if (x->state != DEV_NEWER) return 0;
  int rc = download(r, x->host, x->dev, x->nbytes);
  if (!rc) x->state = BOTH;
  return rc;
}

/* out of the table; the memory stays until the run ends, since the call
 * being prepared may have acquired it already */
static int drop(Resident *r, size_t i) {
  if (r->n_dead == r->cap_dead) {
    size_t cap = r->cap_dead ? 2 * r->cap_dead : 16;
    void **d = realloc(r->dead, cap * sizeof *d);
    if (!d) return mlcrt_set_error("out of memory");
    r->dead = d;
    r->cap_dead = cap;
  }
  r->dead[r->n_dead++] = r->e[i].dev;
  r->e[i] = r->e[--r->n];
  return 0;
}

static int res_acquire(Resident *r, void *host, size_t nbytes, int32_t access, void **dev) {
  *dev = NULL;
  if (!in_run(r)) { /* a call of its own: a fresh copy */
    int rc = r->base->alloc(nbytes, dev);
    if (!rc) rc = upload(r, *dev, host, nbytes);
    if (rc) r->base->release(*dev), *dev = NULL;
    return rc;
  }
  uint8_t *h = host;
  size_t n = nbytes ? nbytes : 1;
  for (size_t i = 0; i < r->n; i++) {
    Entry *x = &r->e[i];
    if (x->host == h && x->nbytes >= n) {
      if (x->state == HOST_NEWER && (access & MLCRT_GPU_READ)) {
        int rc = upload(r, x->dev, x->host, x->nbytes);
        if (rc) return rc;
        x->state = BOTH;
      }
      *dev = x->dev;
      return 0;
    }
  }
  for (size_t i = 0; i < r->n;) { /* copies of other tensors over these bytes */
    if (!overlaps(&r->e[i], h, n)) {
      i++;
      continue;
    }
    int rc = flush(r, &r->e[i]);
    if (!rc) rc = drop(r, i);
    if (rc) return rc;
  }
  if (r->n == r->cap) {
    size_t cap = r->cap ? 2 * r->cap : 64;
    Entry *e = realloc(r->e, cap * sizeof *e);
    if (!e) return mlcrt_set_error("out of memory");
    r->e = e;
    r->cap = cap;
  }
  Entry x = {h, n, NULL, HOST_NEWER};
  int rc = r->base->alloc(n, &x.dev);
  if (rc) return rc;
  if (access & MLCRT_GPU_READ) {
    if ((rc = upload(r, x.dev, h, nbytes)) != 0) return r->base->release(x.dev), rc;
    x.state = BOTH;
  }
  r->e[r->n++] = x;
  *dev = x.dev;
  return 0;
}

static int res_finish(Resident *r, void *host, void *dev, size_t nbytes, int32_t access) {
  if (!in_run(r)) {
    int rc = (access & MLCRT_GPU_WRITE) ? download(r, host, dev, nbytes) : 0;
    r->base->release(dev);
    return rc;
  }
  if (!(access & MLCRT_GPU_WRITE)) return 0;
  for (size_t i = 0; i < r->n; i++)
    if (r->e[i].dev == dev) {
      r->e[i].state = DEV_NEWER;
      return 0;
    }
  /* dropped by a later argument of the same call over the same bytes:
   * what the kernels wrote goes home, newer than any copy */
  int rc = download(r, host, dev, nbytes);
  for (size_t i = 0; !rc && i < r->n; i++)
    if (overlaps(&r->e[i], host, nbytes ? nbytes : 1)) r->e[i].state = HOST_NEWER;
  return rc;
}

static int res_begin(Resident *r) {
  pthread_mutex_lock(&r->run_lock);
  r->owner = pthread_self();
  atomic_store(&r->active, 1);
  return 0;
}

/* whether [h, h + n) lies in a kept range */
static bool is_kept(const Resident *r, const uint8_t *h, size_t n) {
  for (size_t i = 0; i < r->n_kept; i++)
    if (h >= r->kept[i].host && h + n <= r->kept[i].host + r->kept[i].nbytes) return true;
  return false;
}

static void res_end(Resident *r) {
  if (!in_run(r)) return;
  size_t stay = 0;
  for (size_t i = 0; i < r->n; i++) {
    if (r->e[i].state == BOTH && is_kept(r, r->e[i].host, r->e[i].nbytes)) r->e[stay++] = r->e[i];
    else r->base->release(r->e[i].dev);
  }
  for (size_t i = 0; i < r->n_dead; i++) r->base->release(r->dead[i]);
  r->n = stay;
  r->n_dead = 0;
  atomic_store(&r->active, 0);
  pthread_mutex_unlock(&r->run_lock);
}

static int res_keep(Resident *r, const void *host, size_t nbytes) {
  const uint8_t *h = host;
  if (!h || !nbytes || is_kept(r, h, nbytes)) return 0;
  if (r->n_kept == r->cap_kept) {
    size_t cap = r->cap_kept ? 2 * r->cap_kept : 4;
    Entry *k = realloc(r->kept, cap * sizeof *k);
    if (!k) return mlcrt_set_error("out of memory");
    r->kept = k;
    r->cap_kept = cap;
  }
  r->kept[r->n_kept++] = (Entry){(uint8_t *)h, nbytes, NULL, BOTH};
  return 0;
}

static void res_forget(Resident *r, const void *host, size_t nbytes) {
  const uint8_t *h = host;
  if (!h || !nbytes) return;
  bool mine = in_run(r); /* called from within a run: the lock is held */
  if (!mine) pthread_mutex_lock(&r->run_lock);
  for (size_t i = 0; i < r->n;) {
    Entry *x = &r->e[i];
    if (x->host >= h && x->host + x->nbytes <= h + nbytes) {
      r->base->release(x->dev);
      r->e[i] = r->e[--r->n];
    } else {
      i++;
    }
  }
  for (size_t i = 0; i < r->n_kept;)
    if (r->kept[i].host == h && r->kept[i].nbytes == nbytes) r->kept[i] = r->kept[--r->n_kept];
    else i++;
  if (!mine) pthread_mutex_unlock(&r->run_lock);
}

static int res_to_host(Resident *r, void *host, size_t nbytes) {
  if (!in_run(r)) return 0;
  for (size_t i = 0; i < r->n; i++)
    if (overlaps(&r->e[i], host, nbytes ? nbytes : 1)) {
      int rc = flush(r, &r->e[i]);
      if (rc) return rc;
    }
  return 0;
}

static void res_host_wrote(Resident *r, void *host, size_t nbytes) {
  if (!in_run(r)) return;
  for (size_t i = 0; i < r->n; i++)
    if (overlaps(&r->e[i], host, nbytes ? nbytes : 1)) r->e[i].state = HOST_NEWER;
}

static const MlcrtGpu *res_get(Resident *r, void (*fill)(MlcrtGpu *)) {
  const MlcrtGpu *b = r->base_of();
  if (!b) return NULL;
  pthread_mutex_lock(&r->init_lock);
  if (!r->base) {
    r->base = b;
    r->api = *b;
    fill(&r->api);
  }
  pthread_mutex_unlock(&r->init_lock);
  return &r->api;
}

const MlcrtGpu *mlcrt__gpu_opencl(void); /* gpu_opencl.c */
const MlcrtGpu *mlcrt__gpu_cuda(void);   /* gpu_cuda.c */

/* one table and one set of entry points per API */
#define RESIDENT_APIS(X) X(opencl, MLCRT_GPU_OPENCL) X(cuda, MLCRT_GPU_CUDA)

#define X(name, num)                                                                                                \
  static Resident r_##name = {.base_of = mlcrt__gpu_##name,                                                         \
                              .init_lock = PTHREAD_MUTEX_INITIALIZER,                                               \
                              .run_lock = PTHREAD_MUTEX_INITIALIZER};                                               \
  static int32_t name##_acquire(void *h, size_t n, int32_t a, void **d) { return res_acquire(&r_##name, h, n, a, d); } \
  static int32_t name##_finish(void *h, void *d, size_t n, int32_t a) { return res_finish(&r_##name, h, d, n, a); }    \
  static int32_t name##_begin(void) { return res_begin(&r_##name); }                                               \
  static void name##_end(void) { res_end(&r_##name); }                                                              \
  static int32_t name##_to_host(void *h, size_t n) { return res_to_host(&r_##name, h, n); }                        \
  static void name##_host_wrote(void *h, size_t n) { res_host_wrote(&r_##name, h, n); }                            \
  static int32_t name##_keep(const void *h, size_t n) { return res_keep(&r_##name, h, n); }                        \
  static void name##_forget(const void *h, size_t n) { res_forget(&r_##name, h, n); }                              \
  static void name##_fill(MlcrtGpu *g) {                                                                            \
    g->acquire = name##_acquire;                                                                                    \
    g->finish = name##_finish;                                                                                      \
    g->begin = name##_begin;                                                                                        \
    g->end = name##_end;                                                                                            \
    g->to_host = name##_to_host;                                                                                    \
    g->host_wrote = name##_host_wrote;                                                                              \
    g->keep = name##_keep;                                                                                          \
    g->forget = name##_forget;                                                                                      \
  }
RESIDENT_APIS(X)
#undef X

const MlcrtGpu *mlcrt_gpu(int32_t api) {
  switch (api) {
#define X(name, num) \
  case num: return res_get(&r_##name, name##_fill);
    RESIDENT_APIS(X)
#undef X
  default: mlcrt_set_error("no GPU API numbered %d", (int)api); return NULL;
  }
}

void mlcrt_gpu_transfers(int32_t api, MlcrtGpuTransfers *out) {
  *out = (MlcrtGpuTransfers){0};
  Resident *r = NULL;
#define X(name, num) \
  if (api == num) r = &r_##name;
  RESIDENT_APIS(X)
#undef X
  if (!r) return;
  out->uploads = atomic_load(&r->up);
  out->downloads = atomic_load(&r->down);
  out->upload_bytes = atomic_load(&r->up_bytes);
  out->download_bytes = atomic_load(&r->down_bytes);
}
