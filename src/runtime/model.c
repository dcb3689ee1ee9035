/* model.c - compiled models: a shared object exporting `mlcrt_model` (the
 * entry graph function compiled to C) plus its weights blob, params.bin.
 *
 * As with modules, the descriptor is checked once, completely, when the
 * model is made, so a run checks only its inputs (with the same code as a
 * kernel call, check.c) and can trust every count and index it reads.  The
 * weights are checked before the generated code sees them: the blob's
 * header must name this build's size and hash, and the payload must hash to
 * it, since generated code indexes the payload by offsets it knows and a
 * blob of another build would be read as garbage.  The payload is copied
 * into MLCRT_ALIGN-aligned memory because the code may assume that
 * alignment of every weight. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "rt.h"

/* generous bounds: a descriptor beyond them is corrupt, not just large */
#define MAX_TENSORS 4096
#define MAX_SYMS 4096
#define MAX_ALIGN 4096
#define MAX_SITES (1 << 24)

struct MlcrtModel {
  void *dl;                   /* NULL for a descriptor linked into the program */
  const MlcrtModelDesc *desc;
  void *params;               /* aligned copy of the payload we own, or NULL */
  void *state;
  bool created;
  MlcrtFuncDesc as_func;      /* the inputs seen as a function's parameters */
  MlcrtBinding bind;          /* reused by every run: one run at a time */
  MlcrtValue *values;
  /* profiling (mlcrt_model_profile): per call site, when on */
  bool profiling;
  int32_t n_sites;
  double *site_start, *site_secs;
  int64_t *site_calls;
};

/* ---- the descriptor ------------------------------------------------------------ */

static bool is_pow2(int64_t x) { return x > 0 && (x & (x - 1)) == 0; }

/* a tensor of the inputs (what = "input") or outputs; bound marks the
 * symbolic sizes it has */
static int check_tensor(const MlcrtModelDesc *d, const char *what, const MlcrtParamDesc *ps, int32_t i, bool *bound) {
  const MlcrtParamDesc *p = &ps[i];
  char dt[64];
  if (!p->name || !p->name[0]) return mlcrt_set_error("model '%s': %s #%d has no name", d->name, what, i + 1);
  for (int32_t j = 0; j < i; j++)
    if (strcmp(ps[j].name, p->name) == 0)
      return mlcrt_set_error("model '%s': two %ss are named '%s'", d->name, what, p->name);
  if (p->is_buffer != 1)
    return mlcrt_set_error("model '%s': %s '%s' is not a tensor", d->name, what, p->name);
  if (mlcrt_dtype_bytes(p->dtype) == 0)
    return mlcrt_set_error("model '%s': %s '%s' has unsupported dtype %s", d->name, what, p->name,
                           mlcrt_dtype_name(p->dtype, dt, sizeof dt));
  if (p->ndim < 0 || p->ndim > MLCRT_MAX_NDIM || (p->ndim > 0 && !p->dims))
    return mlcrt_set_error("model '%s': %s '%s' has a bad rank (%d) or no dims", d->name, what, p->name, p->ndim);
  for (int32_t k = 0; k < p->ndim; k++) {
    if (p->dims[k] >= 0 || (!bound && p->dims[k] == MLCRT_DIM_COMPUTED)) continue; /* outputs: computed dims */
    if (p->dims[k] == MLCRT_DIM_COMPUTED)
      return mlcrt_set_error("model '%s': %s '%s' dim %d is computed; only an output's may be", d->name, what,
                             p->name, k);
    int64_t s = -(p->dims[k] + 1);
    if (s >= d->n_syms)
      return mlcrt_set_error("model '%s': %s '%s' dim %d names symbolic size %lld of %d", d->name, what, p->name,
                             k, (long long)s, d->n_syms);
    if (bound) bound[s] = true;
  }
  if (p->align != 0 && (!is_pow2(p->align) || p->align > MAX_ALIGN))
    return mlcrt_set_error("model '%s': %s '%s' alignment %d is not a power of two up to %d", d->name, what,
                           p->name, p->align, MAX_ALIGN);
  return 0;
}

static int check_counts(const MlcrtModelDesc *d) {
  if (d->n_inputs < 0 || d->n_inputs > MAX_TENSORS || (d->n_inputs > 0 && !d->inputs))
    return mlcrt_set_error("model '%s': bad input list (%d)", d->name, d->n_inputs);
  if (d->n_outputs < 0 || d->n_outputs > MAX_TENSORS || (d->n_outputs > 0 && !d->outputs))
    return mlcrt_set_error("model '%s': bad output list (%d)", d->name, d->n_outputs);
  if (d->n_syms < 0 || d->n_syms > MAX_SYMS || (d->n_syms > 0 && !d->sym_names))
    return mlcrt_set_error("model '%s': bad symbolic size list (%d)", d->name, d->n_syms);
  if (!d->create || !d->run) return mlcrt_set_error("model '%s' has no create or run function", d->name);
  if (d->params_nbytes > (uint64_t)PTRDIFF_MAX)
    return mlcrt_set_error("model '%s': weights of %llu bytes cannot be addressed", d->name,
                           (unsigned long long)d->params_nbytes);
  return 0;
}

static int32_t num_sites(const MlcrtModelDesc *d) { return d->abi_version >= 2 ? d->n_sites : 0; }

static int check_sites(const MlcrtModelDesc *d) {
  int32_t n = num_sites(d);
  if (n < 0 || n > MAX_SITES || (n > 0 && !d->sites))
    return mlcrt_set_error("model '%s': bad call site list (%d)", d->name, n);
  for (int32_t i = 0; i < n; i++) {
    const MlcrtCallSite *c = &d->sites[i];
    if (!c->callee || !c->binding || !c->ops || c->kind < MLCRT_SITE_GENERATED || c->kind > MLCRT_SITE_TUNED)
      return mlcrt_set_error("model '%s': call site %d is malformed", d->name, i);
  }
  return 0;
}

/* every symbolic size must be bound by an input, since run gets them all */
static int check_model_desc(const MlcrtModelDesc *d) {
  if (!d) return mlcrt_set_error("model: descriptor is NULL");
  /* version 1 is version 2 without call sites */
  if (d->abi_version < 1 || d->abi_version > MLCRT_MODEL_ABI_VERSION)
    return mlcrt_set_error("model: ABI version %u, this runtime implements 1 to %u", d->abi_version,
                           MLCRT_MODEL_ABI_VERSION);
  if (!d->name || !d->name[0]) return mlcrt_set_error("model: no name");
  if (check_counts(d) || check_sites(d)) return -1;
  bool *bound = calloc((size_t)d->n_syms + 1, sizeof *bound);
  if (!bound) return mlcrt_set_error("model: out of memory");
  int rc = 0;
  for (int32_t i = 0; i < d->n_inputs && rc == 0; i++) rc = check_tensor(d, "input", d->inputs, i, bound);
  for (int32_t i = 0; i < d->n_outputs && rc == 0; i++) rc = check_tensor(d, "output", d->outputs, i, NULL);
  for (int32_t s = 0; s < d->n_syms && rc == 0; s++) {
    if (!d->sym_names[s]) rc = mlcrt_set_error("model '%s': symbolic size %d has no name", d->name, s);
    else if (!bound[s])
      rc = mlcrt_set_error("model '%s': symbolic size '%s' is in no input's shape", d->name, d->sym_names[s]);
  }
  free(bound);
  return rc;
}

/* ---- the weights ------------------------------------------------------------------ */

static uint64_t fnv1a64(const void *p, size_t n) {
  const unsigned char *b = p;
  uint64_t h = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 0x100000001b3ull;
  return h;
}

static uint64_t le_u64(const unsigned char *b) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; i--) v = v << 8 | b[i];
  return v;
}

static void *aligned_copy(const void *src, size_t n) {
  void *p = NULL;
  if (posix_memalign(&p, MLCRT_ALIGN, n ? n : 1) != 0) return NULL;
  if (n) memcpy(p, src, n);
  return p;
}

/* the header against the descriptor; f is positioned after it */
static int check_params_header(const MlcrtModelDesc *d, const char *path, FILE *f) {
  unsigned char h[MLCRT_PARAMS_HEADER];
  struct stat st;
  size_t got = fread(h, 1, sizeof h, f);
  if (got != sizeof h) return mlcrt_set_error("%s: %zu bytes, too short for a params header", path, got);
  if (memcmp(h, MLCRT_PARAMS_MAGIC, 8) != 0) return mlcrt_set_error("%s: not an mlcc params file (bad magic)", path);
  uint32_t version = (uint32_t)le_u64(h + 8), reserved = (uint32_t)(le_u64(h + 8) >> 32);
  if (version != 1 || reserved != 0)
    return mlcrt_set_error("%s: params format version %u (reserved %u), this runtime reads version 1", path,
                           version, reserved);
  uint64_t nbytes = le_u64(h + 16), hash = le_u64(h + 24);
  if (nbytes != d->params_nbytes || hash != d->params_hash)
    return mlcrt_set_error("%s: weights of another build: %llu bytes with hash %016llx, model '%s' expects %llu "
                           "bytes with hash %016llx", path, (unsigned long long)nbytes, (unsigned long long)hash,
                           d->name, (unsigned long long)d->params_nbytes, (unsigned long long)d->params_hash);
  if (fstat(fileno(f), &st) != 0) return mlcrt_set_error("%s: cannot stat: %s", path, strerror(errno));
  if ((uint64_t)st.st_size != MLCRT_PARAMS_HEADER + nbytes)
    return mlcrt_set_error("%s: file is %lld bytes, its header says %llu (truncated or extended)", path,
                           (long long)st.st_size, (unsigned long long)(MLCRT_PARAMS_HEADER + nbytes));
  return 0;
}

/* params.bin into m->params; a model without weights needs no file */
static int load_params(MlcrtModel *m, const char *path) {
  const MlcrtModelDesc *d = m->desc;
  FILE *f = fopen(path, "rb");
  if (!f && errno == ENOENT && d->params_nbytes == 0) return 0;
  if (!f) return mlcrt_set_error("cannot open weights '%s': %s", path, strerror(errno));
  int rc = check_params_header(d, path, f);
  size_t n = (size_t)d->params_nbytes;
  if (rc == 0 && posix_memalign(&m->params, MLCRT_ALIGN, n ? n : 1) != 0) {
    m->params = NULL;
    rc = mlcrt_set_error("%s: out of memory for %zu bytes of weights", path, n);
  }
  if (rc == 0 && fread(m->params, 1, n, f) != n) rc = mlcrt_set_error("%s: read error", path);
  if (rc == 0 && fnv1a64(m->params, n) != d->params_hash)
    rc = mlcrt_set_error("%s: the weights are corrupt (payload hash %016llx, header says %016llx)", path,
                         (unsigned long long)fnv1a64(m->params, n), (unsigned long long)d->params_hash);
  fclose(f);
  return rc;
}

/* embedded weights: checked like a file's, copied only when misaligned */
static int embedded_params(MlcrtModel *m) {
  const MlcrtModelDesc *d = m->desc;
  size_t n = (size_t)d->params_nbytes;
  if (fnv1a64(d->embedded_params, n) != d->params_hash)
    return mlcrt_set_error("model '%s': the embedded weights are corrupt (hash %016llx, expected %016llx)", d->name,
                           (unsigned long long)fnv1a64(d->embedded_params, n), (unsigned long long)d->params_hash);
  if ((uintptr_t)d->embedded_params % MLCRT_ALIGN == 0) return 0;
  m->params = aligned_copy(d->embedded_params, n);
  return m->params ? 0 : mlcrt_set_error("model '%s': out of memory for the weights", d->name);
}

/* ---- making and freeing -------------------------------------------------------------- */

static _Alignas(MLCRT_ALIGN) const unsigned char g_no_params[MLCRT_ALIGN];

static int alloc_binding(MlcrtModel *m) {
  const MlcrtModelDesc *d = m->desc;
  size_t ni = (size_t)d->n_inputs + 1, ns = (size_t)d->n_syms + 1;
  m->as_func = (MlcrtFuncDesc){d->name, d->n_inputs, d->inputs, d->n_syms, d->sym_names, NULL};
  m->bind = (MlcrtBinding){calloc(ns, sizeof(int64_t)), calloc(ns, sizeof(int32_t)), calloc(ni, sizeof(void *)),
                           NULL};
  m->values = calloc(ni, sizeof *m->values);
  if (!m->bind.syms || !m->bind.from || !m->bind.argp || !m->values)
    return mlcrt_set_error("model '%s': out of memory", d->name);
  return 0;
}

static const void *params_payload(const MlcrtModel *m) {
  if (m->params) return m->params;
  if (m->desc->embedded_params) return m->desc->embedded_params;
  return g_no_params;
}

/* everything after the descriptor is known to be well formed */
static int model_new(const MlcrtModelDesc *desc, void *dl, const char *params_path, MlcrtModel **out) {
  MlcrtModel *m = calloc(1, sizeof *m);
  if (!m) return mlcrt_set_error("model: out of memory");
  m->dl = dl;
  m->desc = desc;
  int rc = alloc_binding(m);
  if (rc == 0 && params_path) rc = load_params(m, params_path);
  else if (rc == 0 && desc->embedded_params) rc = embedded_params(m);
  else if (rc == 0 && desc->params_nbytes > 0)
    rc = mlcrt_set_error("model '%s': its %llu bytes of weights are not embedded; give the params.bin path", desc->name,
                         (unsigned long long)desc->params_nbytes);
  if (rc == 0) {
    mlcrt__set_error_str("");
    rc = desc->create(params_payload(m), mlcrt_env(), &m->state);
    if (rc != 0) {
      if (!mlcrt_last_error()[0]) mlcrt_set_error("create failed with status %d", rc);
      mlcrt__prefix_error(desc->name);
    }
    m->created = rc == 0;
  }
  if (rc != 0) {
    m->dl = NULL; /* the caller closes it */
    mlcrt_model_free(m);
    return -1;
  }
  *out = m;
  return 0;
}

int mlcrt_model_create(const MlcrtModelDesc *desc, const char *params_path, MlcrtModel **out) {
  if (!out) return mlcrt_set_error("model_create: out is NULL");
  *out = NULL;
  if (check_model_desc(desc)) return -1;
  return model_new(desc, NULL, params_path, out);
}

/* DIR or DIR/NAME.so -> the shared object's path (with "./" for a bare name,
 * which dlopen would otherwise look up in the library path) and params.bin
 * beside it */
static int model_paths(const char *path, char *so, char *params, size_t cap) {
  size_t n = strlen(path);
  int a, b;
  if (n >= 3 && strcmp(path + n - 3, ".so") == 0) {
    const char *slash = strrchr(path, '/');
    int dir_len = slash ? (int)(slash - path) : 1;
    a = snprintf(so, cap, "%s%s", slash ? "" : "./", path);
    b = snprintf(params, cap, "%.*s/params.bin", dir_len, slash ? path : ".");
  } else {
    a = snprintf(so, cap, "%s/model.so", path);
    b = snprintf(params, cap, "%s/params.bin", path);
  }
  if (a < 0 || b < 0 || (size_t)a >= cap || (size_t)b >= cap)
    return mlcrt_set_error("cannot load model '%s': path too long", path);
  return 0;
}

int mlcrt_model_load(const char *path, MlcrtModel **out) {
  char so[4096], params[4096];
  if (!out) return mlcrt_set_error("model_load: out is NULL");
  *out = NULL;
  if (!path) return mlcrt_set_error("model_load: path is NULL");
  if (model_paths(path, so, params, sizeof so)) return -1;
  void *dl = dlopen(so, RTLD_NOW | RTLD_LOCAL);
  if (!dl) {
    const char *why = dlerror();
    return mlcrt_set_error("cannot load model '%s': %s", path, why ? why : "unknown reason");
  }
  const MlcrtModelDesc *desc = dlsym(dl, MLCRT_MODEL_SYMBOL);
  if (!desc) {
    dlclose(dl);
    return mlcrt_set_error("'%s' exports no '%s' (not an mlcc model; `mlcc build MODULE -o DIR` makes one)", so,
                           MLCRT_MODEL_SYMBOL);
  }
  if (check_model_desc(desc)) {
    mlcrt__prefix_error(so);
    dlclose(dl);
    return -1;
  }
  if (model_new(desc, dl, desc->embedded_params ? NULL : params, out)) {
    dlclose(dl);
    return -1;
  }
  return 0;
}

const MlcrtModelDesc *mlcrt_model_desc(const MlcrtModel *m) { return m ? m->desc : NULL; }

void mlcrt_model_free(MlcrtModel *m) {
  if (!m) return;
  if (m->created && m->desc->destroy) m->desc->destroy(m->state, mlcrt_env());
  free(m->params);
  free(m->bind.syms);
  free(m->bind.from);
  free(m->bind.argp);
  free(m->values);
  free(m->site_start);
  free(m->site_secs);
  free(m->site_calls);
  if (m->dl) dlclose(m->dl);
  free(m);
}

/* ---- running ---------------------------------------------------------------------------- */

/* what the generated code returned must be what the descriptor promised:
 * a mismatch is a code generator's bug, caught before a caller reads it */
static int check_output(const MlcrtModel *m, int32_t i, const DLTensor *t) {
  const MlcrtModelDesc *d = m->desc;
  const MlcrtParamDesc *p = &d->outputs[i];
  char want[256], got[256];
  bool ok = t && t->ndim == p->ndim && (t->ndim == 0 || t->shape) && t->dtype.code == p->dtype.code &&
            t->dtype.bits == p->dtype.bits && t->dtype.lanes == p->dtype.lanes;
  for (int32_t k = 0; ok && k < p->ndim; k++)
    ok = p->dims[k] == MLCRT_DIM_COMPUTED ? t->shape[k] >= 0
                                          : t->shape[k] == (p->dims[k] >= 0 ? p->dims[k] : m->bind.syms[-(p->dims[k] + 1)]);
  if (ok) return 0;
  mlcrt__declared_shape(p, d->sym_names, want, sizeof want);
  if (t && t->ndim >= 0 && t->ndim <= MLCRT_MAX_NDIM && (t->ndim == 0 || t->shape))
    mlcrt__shape_str(t->shape, t->ndim, got, sizeof got);
  else
    snprintf(got, sizeof got, "%s", t ? "a malformed tensor" : "NULL");
  return mlcrt_set_error("%s: output '%s' (#%d): the model produced %s, expected shape %s", d->name, p->name, i + 1,
                         got, want);
}

/* ---- profiling ---------------------------------------------------------------------------- */

/* the executor's hook around each call site; a site number the descriptor
 * does not have is ignored rather than trusted */
static void profile_hook(void *data, int32_t site, int32_t end) {
  MlcrtModel *m = data;
  if (site < 0 || site >= m->n_sites) return;
  double t = mlcrt__now_s();
  if (!end) {
    m->site_start[site] = t;
    return;
  }
  m->site_calls[site]++;
  m->site_secs[site] += t - m->site_start[site];
}

int mlcrt_model_profile(MlcrtModel *m, int on) {
  if (!m) return mlcrt_set_error("model_profile: model is NULL");
  m->profiling = false;
  if (!on) return 0;
  int32_t n = num_sites(m->desc);
  if (!m->site_start) {
    size_t k = (size_t)n + 1;
    m->site_start = calloc(k, sizeof *m->site_start);
    m->site_secs = calloc(k, sizeof *m->site_secs);
    m->site_calls = calloc(k, sizeof *m->site_calls);
    if (!m->site_start || !m->site_secs || !m->site_calls) return mlcrt_set_error("model_profile: out of memory");
  }
  m->n_sites = n;
  memset(m->site_secs, 0, ((size_t)n + 1) * sizeof *m->site_secs);
  memset(m->site_calls, 0, ((size_t)n + 1) * sizeof *m->site_calls);
  m->profiling = true;
  return 0;
}

int32_t mlcrt_model_num_sites(const MlcrtModel *m) { return m ? num_sites(m->desc) : 0; }

const MlcrtCallSite *mlcrt_model_site(const MlcrtModel *m, int32_t i) {
  if (!m || i < 0 || i >= num_sites(m->desc)) {
    mlcrt_set_error("model_site: no call site %d", i);
    return NULL;
  }
  return &m->desc->sites[i];
}

int mlcrt_model_site_time(const MlcrtModel *m, int32_t i, int64_t *calls, double *seconds) {
  if (!m || i < 0 || i >= num_sites(m->desc)) return mlcrt_set_error("model_site_time: no call site %d", i);
  bool have = m->site_calls && i < m->n_sites;
  if (calls) *calls = have ? m->site_calls[i] : 0;
  if (seconds) *seconds = have ? m->site_secs[i] : 0;
  return 0;
}

int mlcrt_model_run(MlcrtModel *m, DLTensor *const *inputs, int32_t n_inputs, DLTensor **outputs,
                    int32_t n_outputs) {
  if (!m) return mlcrt_set_error("model_run: model is NULL");
  const MlcrtModelDesc *d = m->desc;
  if (n_inputs != d->n_inputs || (n_inputs > 0 && !inputs))
    return mlcrt_set_error("%s: expected %d inputs, got %d", d->name, d->n_inputs, n_inputs);
  if (n_outputs != d->n_outputs || (n_outputs > 0 && !outputs))
    return mlcrt_set_error("%s: expected %d outputs, got room for %d", d->name, d->n_outputs, n_outputs);
  for (int32_t i = 0; i < n_outputs; i++) outputs[i] = NULL;
  for (int32_t i = 0; i < n_inputs; i++) m->values[i].tensor = inputs[i];
  if (mlcrt__bind_args(&m->as_func, "input", m->values, &m->bind)) return -1;
  mlcrt__set_error_str("");
  MlcrtEnv env = *mlcrt_env();
  if (m->profiling) {
    env.profile = profile_hook;
    env.profile_data = m;
  }
  int32_t rc = d->run(m->state, m->bind.argp, m->bind.syms, outputs, &env);
  if (rc != 0) {
    if (!mlcrt_last_error()[0]) mlcrt_set_error("run failed with status %d", rc);
    mlcrt__prefix_error(d->name);
  }
  for (int32_t i = 0; i < n_outputs && rc == 0; i++) rc = check_output(m, i, outputs[i]);
  if (rc != 0)
    for (int32_t i = 0; i < n_outputs; i++) outputs[i] = NULL;
  return rc ? -1 : 0;
}
