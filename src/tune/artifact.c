/* artifact.c - the build and measure steps of the tuner as steps over
 * files, so that the measuring can happen on another machine:
 *
 *   candidates file  --build-->  artifact directory  --measure-->  records
 *
 * A candidates file is self-contained (each line carries the task's
 * function as text and the candidate's schedule script), so building needs
 * nothing the tuner holds in memory.  The artifact is what a measuring
 * machine needs: shared objects and an index (index.jsonl) of what each
 * holds -- nothing to compile there.  The results are ordinary tuning
 * records, stamped with the target they were measured on, so they come
 * back into a tuning run (or a build) the way every database does: by
 * being read and merged. */
#include "tune/tune_internal.h"

#include "mlcc/text.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define NOLOC ((MlcLoc){0})
#define MAX_FILE ((size_t)1 << 30)
enum { MAX_CANDS = 4096, MAX_TENSORS = 32 };

/* ---- writing a candidates file ------------------------------------------------------- */

static void put_common(cJSON *o, const MlcTuneCandidate *c) {
  char hex[24];
  snprintf(hex, sizeof hex, "%016" PRIx64, c->workload);
  cJSON_AddStringToObject(o, "workload", hex);
  cJSON_AddStringToObject(o, "func", c->func);
  cJSON_AddNumberToObject(o, "space", c->space);
  cJSON_AddStringToObject(o, "decisions", c->decisions ? c->decisions : "[]");
  cJSON_AddStringToObject(o, "trace", c->trace);
  if (c->flops > 0) cJSON_AddNumberToObject(o, "flops", c->flops);
  if (c->weight > 0) cJSON_AddNumberToObject(o, "weight", c->weight);
  if (c->library) cJSON_AddStringToObject(o, "library", c->library);
}

/* the objects as JSON lines to path, replacing it; consumes them */
static bool write_objects(MlcCtx *ctx, const char *path, cJSON **objs, int n) {
  FILE *f = fopen(path, "w");
  bool ok = f != NULL;
  for (int i = 0; i < n; i++) {
    char *s = ok ? cJSON_PrintUnformatted(objs[i]) : NULL;
    if (ok) ok = s && fputs(s, f) >= 0 && fputc('\n', f) != EOF;
    cJSON_free(s);
    cJSON_Delete(objs[i]);
  }
  if (f) ok = fclose(f) == 0 && ok;
  return ok ? true : mlc_error(ctx, NOLOC, "%s: cannot write: %s", path, strerror(errno));
}

bool mlc_tune_candidates_save(MlcCtx *ctx, const char *path, const MlcTuneCandidate *c, int n) {
  cJSON **objs = mlc_xcalloc((size_t)(n > 0 ? n : 1), sizeof *objs);
  for (int i = 0; i < n; i++) {
    objs[i] = cJSON_CreateObject();
    put_common(objs[i], &c[i]);
    cJSON_AddStringToObject(objs[i], "program", c[i].program);
  }
  bool ok = write_objects(ctx, path, objs, n);
  free(objs);
  return ok;
}

/* ---- reading JSON lines ------------------------------------------------------------------ */

typedef struct Lines { cJSON **objs; int *line; int n; } Lines;

static void lines_free(Lines *ls) {
  for (int i = 0; i < ls->n; i++) cJSON_Delete(ls->objs[i]);
  free(ls->objs), free(ls->line);
  *ls = (Lines){0};
}

/* every non-blank line of path as a JSON object; errors name path:line */
static bool read_lines(MlcCtx *ctx, const char *path, Lines *ls) {
  size_t len;
  *ls = (Lines){0};
  char *text = mlc_read_file(ctx, path, MAX_FILE, &len);
  if (!text) return false;
  ls->objs = mlc_xcalloc(MAX_CANDS, sizeof *ls->objs);
  ls->line = mlc_xcalloc(MAX_CANDS, sizeof *ls->line);
  bool ok = true;
  int line = 0;
  for (size_t start = 0; ok && start < len;) {
    size_t end = start;
    while (end < len && text[end] != '\n') end++;
    line++;
    size_t a = start;
    while (a < end && (text[a] == ' ' || text[a] == '\t' || text[a] == '\r')) a++;
    if (a < end) {
      cJSON *o = cJSON_ParseWithLength(text + a, end - a);
      if (!cJSON_IsObject(o)) ok = mlc_error(ctx, NOLOC, "%s:%d: not a JSON object", path, line), cJSON_Delete(o);
      else if (ls->n == MAX_CANDS) ok = mlc_error(ctx, NOLOC, "%s:%d: more than %d candidates", path, line, MAX_CANDS), cJSON_Delete(o);
      else ls->line[ls->n] = line, ls->objs[ls->n++] = o;
    }
    start = end + 1;
  }
  free(text);
  if (!ok) lines_free(ls);
  return ok;
}

static const char *str_field(const cJSON *o, const char *key) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
  return cJSON_IsString(v) ? v->valuestring : NULL;
}

static double num_field(const cJSON *o, const char *key, double dflt) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
  return cJSON_IsNumber(v) ? v->valuedouble : dflt;
}

/* a candidate of a candidates file or an index (program NULL there) */
static bool get_candidate(MlcCtx *ctx, const char *path, int line, const cJSON *o, bool program, MlcTuneCandidate *c) {
  const char *hex = str_field(o, "workload");
  char *end = NULL;
  *c = (MlcTuneCandidate){.func = str_field(o, "func"), .trace = str_field(o, "trace"),
                          .decisions = str_field(o, "decisions"), .program = str_field(o, "program"),
                          .library = str_field(o, "library")};
  double space = num_field(o, "space", MLC_TUNE_DEFAULT_SPACE - 1), w = num_field(o, "weight", 0);
  errno = 0;
  if (hex) c->workload = strtoull(hex, &end, 16);
  if (!hex || !*hex || errno || *end || strlen(hex) > 16)
    return mlc_error(ctx, NOLOC, "%s:%d: \"workload\" must be 16 hex digits", path, line);
  if (!c->func || !c->trace || (program && !c->program))
    return mlc_error(ctx, NOLOC, "%s:%d: a candidate needs \"func\", \"trace\"%s as strings", path, line,
                     program ? " and \"program\"" : "");
  if (!(space >= MLC_TUNE_DEFAULT_SPACE && space < MLC_TUNE_MAX_SPACES && space == (int)space))
    return mlc_error(ctx, NOLOC, "%s:%d: \"space\" must be %d to %d", path, line, MLC_TUNE_DEFAULT_SPACE,
                     MLC_TUNE_MAX_SPACES - 1);
  c->space = (int)space;
  c->flops = num_field(o, "flops", 0);
  c->weight = w >= 0 && w < 1e9 ? (int)w : 0;
  return true;
}

/* ---- the GPU API of an artifact ---------------------------------------------------------------
 * Candidates built for a GPU (the build options' API) carry "gpu": "opencl"
 * or "cuda" in the index; the measuring side stamps their records with its
 * own device of that API (mlc_tune_target_gpu), not with a CPU. */

static const char *gpu_name(MlcGpuApi api) {
  return api == MLC_GPU_OPENCL ? "opencl" : api == MLC_GPU_CUDA ? "cuda" : NULL;
}

bool mlc_tune_gpu_from_name(const char *s, MlcGpuApi *out) {
  if (s && !strcmp(s, "opencl")) return *out = MLC_GPU_OPENCL, true;
  if (s && !strcmp(s, "cuda")) return *out = MLC_GPU_CUDA, true;
  return false;
}

/* ---- building ------------------------------------------------------------------------------ */

/* Where each built candidate went: so (a file name in the artifact) and
 * its index there, or err; for a library call, the tensors' shapes. */
typedef struct Placed {
  const char *so;
  int index;
  char err[160];
  int n_shapes;                    /* a library call's tensors, -1 when not one */
  int32_t ndim[MAX_TENSORS];
  int64_t dims[MAX_TENSORS][8];
} Placed;

/* the program's prim func named by c; NULL + why */
static const MlcPrimFunc *program_func(MlcCtx *ctx, const MlcTuneCandidate *c, int line, const MlcModule **mod, char *why,
                                       size_t cap) {
  const MlcModule *m = mlc_read_module(ctx, mlc_internf(ctx, "candidate %d", line), c->program, strlen(c->program));
  const MlcFunc *f = m ? mlc_module_find(m, mlc_intern(ctx, c->func)) : NULL;
  if (!m) snprintf(why, cap, "%s", mlc_error_msg(ctx));
  else if (!f || f->kind != MLC_FUNC_PRIM) snprintf(why, cap, "the program has no prim func %s", c->func);
  mlc_clear_error(ctx);
  *mod = m;
  return f && f->kind == MLC_FUNC_PRIM ? f->prim : NULL;
}

/* a library call's tensors: the shapes of the function's buffer params */
static void library_shapes(MlcCtx *ctx, const MlcTuneCandidate *c, int line, Placed *p) {
  const MlcModule *m;
  const MlcPrimFunc *f = program_func(ctx, c, line, &m, p->err, sizeof p->err);
  p->n_shapes = f ? tune_param_shapes(f, p->ndim, p->dims, MAX_TENSORS) : -1;
  if (f && p->n_shapes < 0) snprintf(p->err, sizeof p->err, "%s: only float32 params of constant shapes", c->library);
}

static cJSON *shapes_json(const Placed *p) {
  cJSON *all = cJSON_CreateArray();
  for (int i = 0; i < p->n_shapes; i++) {
    cJSON *one = cJSON_CreateArray();
    for (int d = 0; d < p->ndim[i]; d++) cJSON_AddItemToArray(one, cJSON_CreateNumber((double)p->dims[i][d]));
    cJSON_AddItemToArray(all, one);
  }
  return all;
}

/* "shapes" of an index line back; the count, -1 when malformed */
static int shapes_from(const cJSON *o, int32_t *ndim, int64_t (*dims)[8]) {
  const cJSON *all = cJSON_GetObjectItemCaseSensitive(o, "shapes"), *one, *d;
  int n = 0;
  if (!cJSON_IsArray(all) || cJSON_GetArraySize(all) > MAX_TENSORS) return -1;
  cJSON_ArrayForEach(one, all) {
    if (!cJSON_IsArray(one) || cJSON_GetArraySize(one) > 8) return -1;
    ndim[n] = 0;
    cJSON_ArrayForEach(d, one) {
      if (!cJSON_IsNumber(d) || d->valuedouble < 0 || d->valuedouble > (double)((int64_t)1 << 31) ||
          d->valuedouble != (double)(int64_t)d->valuedouble)
        return -1;
      dims[n][ndim[n]++] = (int64_t)d->valuedouble;
    }
    n++;
  }
  return n;
}

/* the candidate's function, its script replayed onto the program; NULL + why */
static const MlcPrimFunc *replay(MlcCtx *ctx, const MlcTuneCandidate *c, int line, char *why, size_t cap) {
  const MlcModule *m;
  const MlcPrimFunc *f = program_func(ctx, c, line, &m, why, cap);
  MlcSchedule *s = f ? mlc_sch_new(ctx, m, mlc_intern(ctx, c->func), 0) : NULL;
  const MlcPrimFunc *out = NULL;
  if (s && mlc_sch_run_script(s, "trace", c->trace, strlen(c->trace))) out = mlc_sch_func(s);
  else if (f) snprintf(why, cap, "%s", mlc_error_msg(ctx));
  mlc_clear_error(ctx);
  mlc_sch_free(s);
  return out;
}

static bool make_dir(MlcCtx *ctx, const char *dir) {
  if (mkdir(dir, 0777) == 0 || errno == EEXIST) {
    struct stat st;
    if (stat(dir, &st) == 0 && S_ISDIR(st.st_mode)) return true;
  }
  return mlc_error(ctx, NOLOC, "%s: cannot make the artifact directory: %s", dir, errno ? strerror(errno) : "not a directory");
}

static void drop_c_source(const char *so) {
  char c[4096];
  snprintf(c, sizeof c, "%.*s.c", (int)(strlen(so) - 3), so);
  unlink(c);
}


/* fs[0..n) (the replayed ones) built into the artifact, split in parts
 * built at once; a part that does not compile is built one by one, so a
 * bad candidate costs only itself */
static void build_all(MlcCtx *ctx, const char *dir, const MlcPrimFunc **fs, const int *who, int n, Placed *pl,
                      const MlcTuneMeasureOptions *o) {
  int start[65];
  const char *so[64], *path[64];
  bool ok[64] = {0};
  int parts = tune_split(n, o, start);
  for (int k = 0; k < parts; k++) {
    so[k] = mlc_internf(ctx, "kernels_%d.so", k);
    path[k] = mlc_internf(ctx, "%s/%s", dir, so[k]);
  }
  tune_build_parts(ctx, fs, start, parts, path, o, ok);
  for (int k = 0; k < parts; k++) {
    drop_c_source(path[k]);
    for (int i = start[k]; i < start[k + 1]; i++) {
      Placed *p = &pl[who[i]];
      if (ok[k]) {
        p->so = so[k], p->index = i - start[k];
        continue;
      }
      const char *one = mlc_internf(ctx, "kernels_%d_%d.so", k, i - start[k]);
      const char *one_path = mlc_internf(ctx, "%s/%s", dir, one);
      int s1[2] = {0, 1};
      bool built = false;
      tune_build_parts(ctx, &fs[i], s1, 1, &one_path, o, &built);
      drop_c_source(one_path);
      if (built) p->so = one, p->index = 0;
      else snprintf(p->err, sizeof p->err, "does not compile");
    }
  }
}

bool mlc_tune_build_artifact(MlcCtx *ctx, const char *candidates_path, const char *artifact,
                             const MlcTuneMeasureOptions *in) {
  MlcTuneMeasureOptions o;
  tune_measure_defaults(in, &o);
  Lines ls;
  if (!read_lines(ctx, candidates_path, &ls)) return false;
  MlcTuneCandidate *c = mlc_xcalloc((size_t)(ls.n ? ls.n : 1), sizeof *c);
  bool ok = true;
  for (int i = 0; i < ls.n && ok; i++) ok = get_candidate(ctx, candidates_path, ls.line[i], ls.objs[i], true, &c[i]);
  if (ok) ok = make_dir(ctx, artifact);
  Placed *pl = mlc_xcalloc((size_t)(ls.n ? ls.n : 1), sizeof *pl);
  const MlcPrimFunc **fs = mlc_xcalloc((size_t)(ls.n ? ls.n : 1), sizeof *fs);
  int *who = mlc_xcalloc((size_t)(ls.n ? ls.n : 1), sizeof *who), n = 0;
  for (int i = 0; i < ls.n && ok; i++) {
    pl[i].n_shapes = -1;
    if (c[i].library) { /* nothing to compile: the library is there */
      library_shapes(ctx, &c[i], ls.line[i], &pl[i]);
      continue;
    }
    const MlcPrimFunc *f = replay(ctx, &c[i], ls.line[i], pl[i].err, sizeof pl[i].err);
    if (f) fs[n] = f, who[n++] = i;
  }
  if (ok && n > 0) build_all(ctx, artifact, fs, who, n, pl, &o);
  if (ok) { /* the index: each candidate without its program, where it is, or why not */
    MlcTuneTarget host;
    mlc_tune_target_host(&host, 0);
    const char *gpu = o.build ? gpu_name(o.build->gpu) : NULL;
    cJSON **objs = mlc_xcalloc((size_t)(ls.n ? ls.n : 1), sizeof *objs);
    for (int i = 0; i < ls.n; i++) {
      objs[i] = cJSON_CreateObject();
      put_common(objs[i], &c[i]);
      if (gpu && !c[i].library) cJSON_AddStringToObject(objs[i], "gpu", gpu);
      else cJSON_AddStringToObject(objs[i], "features", host.features);
      if (c[i].library && pl[i].n_shapes >= 0) {
        cJSON_AddItemToObject(objs[i], "shapes", shapes_json(&pl[i]));
      } else if (pl[i].so) {
        cJSON_AddStringToObject(objs[i], "so", pl[i].so);
        cJSON_AddNumberToObject(objs[i], "index", pl[i].index);
      } else {
        cJSON_AddStringToObject(objs[i], "error", pl[i].err[0] ? pl[i].err : "not built");
      }
    }
    ok = write_objects(ctx, mlc_internf(ctx, "%s/index.jsonl", artifact), objs, ls.n);
    free(objs);
  }
  free(c), free(pl), free(fs), free(who);
  lines_free(&ls);
  return ok;
}

/* ---- measuring ------------------------------------------------------------------------------- */

/* A shared object's name must be a plain file name of the artifact: an
 * index never makes the measuring side load something elsewhere. */
static bool plain_so_name(const char *s) {
  size_t n = strlen(s);
  return n > 3 && n < 200 && !strchr(s, '/') && s[0] != '.' && !strcmp(s + n - 3, ".so");
}

bool mlc_tune_measure_artifact(MlcCtx *ctx, const char *artifact, const char *results_path,
                               const MlcTuneMeasureOptions *in) {
  MlcTuneMeasureOptions o;
  tune_measure_defaults(in, &o);
  const char *index = mlc_internf(ctx, "%s/index.jsonl", artifact);
  Lines ls;
  if (!read_lines(ctx, index, &ls)) return false;
  int n = ls.n;
  MlcTuneCandidate *c = mlc_xcalloc((size_t)(n ? n : 1), sizeof *c);
  MlcTuneResult *res = mlc_xcalloc((size_t)(n ? n : 1), sizeof *res);
  bool ok = true;
  for (int i = 0; i < n && ok; i++) {
    ok = get_candidate(ctx, index, ls.line[i], ls.objs[i], false, &c[i]);
    res[i] = (MlcTuneResult){.seconds = -1};
    const char *so = str_field(ls.objs[i], "so"), *err = str_field(ls.objs[i], "error");
    if (ok && c[i].library && !err) {
      int32_t ndim[MAX_TENSORS];
      int64_t dims[MAX_TENSORS][8];
      int k = shapes_from(ls.objs[i], ndim, dims);
      if (k < 0) ok = mlc_error(ctx, NOLOC, "%s:%d: \"shapes\" must be lists of at most 8 sizes", index, ls.line[i]);
      else ok = tune_measure_extern(ctx, c[i].library, k, ndim, (const int64_t(*)[8])dims, &o, &res[i]);
    } else if (ok && !so) snprintf(res[i].error, sizeof res[i].error, "%s", err ? err : "not built");
    else if (ok && !plain_so_name(so)) ok = mlc_error(ctx, NOLOC, "%s:%d: \"so\" must name a .so file of the artifact", index, ls.line[i]);
  }
  /* each shared object's candidates, which the index lists in order */
  for (int i = 0; i < n && ok;) {
    const char *so = str_field(ls.objs[i], "so");
    if (!so) {
      i++;
      continue;
    }
    int k = 0;
    while (i + k < n && str_field(ls.objs[i + k], "so") && !strcmp(str_field(ls.objs[i + k], "so"), so)) {
      if (num_field(ls.objs[i + k], "index", -1) != k)
        ok = mlc_error(ctx, NOLOC, "%s:%d: \"index\" must be %d (the candidates of %s in order)", index, ls.line[i + k], k, so);
      k++;
    }
    if (ok) ok = tune_measure_so(ctx, mlc_internf(ctx, "%s/%s", artifact, so), k, &o, res + i);
    i += k;
  }
  MlcTuneTarget tt;
  mlc_tune_target_host(&tt, o.threads);
  bool stopped = o.stop && *o.stop;
  MlcTuneTarget on_gpu[3];
  bool gpu_target[3] = {false};
  MlcTuneDB *db = mlc_tune_db_new();
  for (int i = 0; i < n && ok; i++) {
    if (stopped && res[i].seconds <= 0) continue; /* stopped: only the times stand */
    const char *feat = str_field(ls.objs[i], "features"), *gpu = str_field(ls.objs[i], "gpu");
    MlcGpuApi api = MLC_GPU_NONE;
    if (gpu && !mlc_tune_gpu_from_name(gpu, &api)) {
      ok = mlc_error(ctx, NOLOC, "%s:%d: \"gpu\" must be \"opencl\" or \"cuda\"", index, ls.line[i]);
      break;
    }
    MlcTuneRecord r = {.workload = c[i].workload, .target = tt, .func = c[i].func, .trace = c[i].trace,
                       .space = c[i].space, .decisions = c[i].decisions, .seconds = res[i].seconds,
                       .error = res[i].seconds > 0 ? NULL : res[i].error[0] ? res[i].error : "no time",
                       .weight = c[i].weight, .library = c[i].library};
    /* the device of this machine that ran it; for the CPU, the features
     * the code was compiled for, not this machine's */
    if (api != MLC_GPU_NONE) {
      if (!gpu_target[api]) gpu_target[api] = true, mlc_tune_target_gpu(&on_gpu[api], api);
      r.target = on_gpu[api];
    } else if (feat) {
      snprintf(r.target.features, sizeof r.target.features, "%s", feat);
    }
    if (r.seconds > 0 && c[i].flops > 0) r.gflops = c[i].flops / r.seconds * 1e-9;
    mlc_tune_db_add(db, &r);
  }
  if (ok) ok = mlc_tune_db_save(ctx, db, results_path);
  mlc_tune_db_free(db);
  free(c), free(res);
  lines_free(&ls);
  return ok;
}
