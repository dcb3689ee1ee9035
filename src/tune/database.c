/* database.c - tuning records as JSON lines (cJSON), one measured candidate
 * a line:
 *   {"workload":"6f1c...","func":"mm_relu",
 *    "target":{"cpu":"...","features":"avx2,fma,...","threads":2},
 *    "space":1,"decisions":"[[4,8,2,2],...]","trace":"b0 = sch.get_block(...)\n...",
 *    "seconds":1.2e-05,"gflops":35.1,
 *    "task":"mm_relu","elapsed_s":3.2,"latency_s":1.2e-05,"weight":1}
 * (task, elapsed_s, latency_s and weight are what `mlcc report` draws tuning
 * curves from).
 * A failed candidate has "seconds":null and "error":"why".  A library
 * call's time for a workload (the other side of a library choice) has
 * "library":"env.matmul" and an empty trace.  Lines are
 * appended as candidates are measured, so a file is complete up to its
 * last line whatever stopped the run; several files merge by loading each.
 * The database owns copies of every string. */
#include "mlcc/tune.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NOLOC ((MlcLoc){0})
#define MAX_DB_FILE ((size_t)1 << 30)

struct MlcTuneDB {
  MLC_VEC(MlcTuneRecord) recs;
};

MlcTuneDB *mlc_tune_db_new(void) { return mlc_xcalloc(1, sizeof(MlcTuneDB)); }

static char *dup_or_null(const char *s) { return s ? strdup(s) : NULL; }

void mlc_tune_db_free(MlcTuneDB *db) {
  if (!db) return;
  for (size_t i = 0; i < db->recs.len; i++) {
    MlcTuneRecord *r = &db->recs.data[i];
    free((char *)r->func), free((char *)r->trace), free((char *)r->decisions), free((char *)r->error);
    free((char *)r->library);
  }
  mlc_vec_free(&db->recs);
  free(db);
}

void mlc_tune_db_add(MlcTuneDB *db, const MlcTuneRecord *r) {
  MlcTuneRecord c = *r;
  c.func = dup_or_null(r->func);
  c.trace = dup_or_null(r->trace);
  c.decisions = dup_or_null(r->decisions);
  c.error = dup_or_null(r->error);
  c.library = dup_or_null(r->library);
  mlc_vec_push(&db->recs, c);
}

int mlc_tune_db_size(const MlcTuneDB *db) { return (int)db->recs.len; }
const MlcTuneRecord *mlc_tune_db_at(const MlcTuneDB *db, int i) { return &db->recs.data[i]; }

static const MlcTuneRecord *best_of(const MlcTuneDB *db, uint64_t workload, const MlcTuneTarget *t, bool library) {
  const MlcTuneRecord *best = NULL;
  for (size_t i = 0; i < db->recs.len; i++) {
    const MlcTuneRecord *r = &db->recs.data[i];
    if (r->workload != workload || r->seconds <= 0 || r->error || !r->trace || (r->library != NULL) != library ||
        !mlc_tune_target_equal(&r->target, t))
      continue;
    if (!best || r->seconds < best->seconds) best = r;
  }
  return best;
}

const MlcTuneRecord *mlc_tune_db_best(const MlcTuneDB *db, uint64_t workload, const MlcTuneTarget *t) {
  return best_of(db, workload, t, false);
}

const MlcTuneRecord *mlc_tune_db_best_library(const MlcTuneDB *db, uint64_t workload, const MlcTuneTarget *t) {
  return best_of(db, workload, t, true);
}

/* ---- writing ------------------------------------------------------------------------ */

void mlc_tune_record_json(const MlcTuneRecord *r, MlcStrBuf *out) {
  cJSON *o = cJSON_CreateObject(), *t = cJSON_CreateObject();
  char hex[24];
  snprintf(hex, sizeof hex, "%016" PRIx64, r->workload);
  cJSON_AddStringToObject(o, "workload", hex);
  cJSON_AddStringToObject(o, "func", r->func ? r->func : "");
  cJSON_AddStringToObject(t, "cpu", r->target.cpu);
  cJSON_AddStringToObject(t, "features", r->target.features);
  cJSON_AddNumberToObject(t, "threads", r->target.threads);
  cJSON_AddItemToObject(o, "target", t);
  cJSON_AddNumberToObject(o, "space", r->space);
  cJSON_AddStringToObject(o, "decisions", r->decisions ? r->decisions : "[]");
  cJSON_AddStringToObject(o, "trace", r->trace ? r->trace : "");
  if (r->seconds > 0 && !r->error) cJSON_AddNumberToObject(o, "seconds", r->seconds);
  else cJSON_AddNullToObject(o, "seconds");
  if (r->gflops > 0) cJSON_AddNumberToObject(o, "gflops", r->gflops);
  if (r->error) cJSON_AddStringToObject(o, "error", r->error);
  if (r->library) cJSON_AddStringToObject(o, "library", r->library);
  /* the fields `mlcc report` reads */
  cJSON_AddStringToObject(o, "task", r->func ? r->func : "");
  cJSON_AddNumberToObject(o, "elapsed_s", r->elapsed_s);
  if (r->seconds > 0 && !r->error) cJSON_AddNumberToObject(o, "latency_s", r->seconds);
  if (r->weight > 0) cJSON_AddNumberToObject(o, "weight", r->weight);
  char *s = cJSON_PrintUnformatted(o);
  mlc_sb_puts(out, s);
  cJSON_free(s);
  cJSON_Delete(o);
}

static bool write_lines(MlcCtx *ctx, const char *path, const char *mode, const MlcTuneRecord *r, size_t n) {
  FILE *f = fopen(path, mode);
  if (!f) return mlc_error(ctx, NOLOC, "%s: cannot open for writing: %s", path, strerror(errno));
  bool ok = true;
  for (size_t i = 0; i < n && ok; i++) {
    MlcStrBuf sb = {0};
    mlc_tune_record_json(&r[i], &sb);
    mlc_sb_putc(&sb, '\n');
    ok = fwrite(sb.data, 1, sb.len, f) == sb.len;
    mlc_vec_free(&sb);
  }
  ok = fflush(f) == 0 && ok;
  if (ok) fsync(fileno(f));
  ok = fclose(f) == 0 && ok;
  return ok ? true : mlc_error(ctx, NOLOC, "%s: write failed: %s", path, strerror(errno));
}

bool mlc_tune_record_append(MlcCtx *ctx, const char *path, const MlcTuneRecord *r) {
  return write_lines(ctx, path, "a", r, 1);
}

bool mlc_tune_db_save(MlcCtx *ctx, const MlcTuneDB *db, const char *path) {
  return write_lines(ctx, path, "w", db->recs.data, db->recs.len);
}

/* ---- reading ------------------------------------------------------------------------ */

typedef struct Line { MlcCtx *ctx; const char *path; int line; } Line;

static bool bad(const Line *l, const char *what) {
  return mlc_error(l->ctx, NOLOC, "%s:%d: tuning record: %s", l->path, l->line, what);
}

static const cJSON *field(const cJSON *o, const char *key) { return cJSON_GetObjectItemCaseSensitive(o, key); }

static bool get_str(const Line *l, const cJSON *o, const char *key, bool need, const char **out) {
  const cJSON *v = field(o, key);
  *out = NULL;
  if (!v || cJSON_IsNull(v)) return need ? bad(l, mlc_internf(l->ctx, "missing \"%s\"", key)) : true;
  if (!cJSON_IsString(v)) return bad(l, mlc_internf(l->ctx, "\"%s\" must be a string", key));
  *out = v->valuestring;
  return true;
}

static bool get_num(const Line *l, const cJSON *o, const char *key, double *out, bool *present) {
  const cJSON *v = field(o, key);
  *present = v && !cJSON_IsNull(v);
  if (!*present) return true;
  if (!cJSON_IsNumber(v)) return bad(l, mlc_internf(l->ctx, "\"%s\" must be a number", key));
  *out = v->valuedouble;
  return true;
}

static bool parse_target(const Line *l, const cJSON *o, MlcTuneTarget *t) {
  const cJSON *to = field(o, "target");
  if (!cJSON_IsObject(to)) return bad(l, "missing \"target\" object");
  const char *cpu, *feat;
  double th = 0;
  bool has;
  if (!get_str(l, to, "cpu", true, &cpu) || !get_str(l, to, "features", true, &feat) ||
      !get_num(l, to, "threads", &th, &has))
    return false;
  if (!has || th < 1 || th > 1e6 || th != (int)th) return bad(l, "target \"threads\" must be a positive integer");
  snprintf(t->cpu, sizeof t->cpu, "%s", cpu);
  snprintf(t->features, sizeof t->features, "%s", feat);
  t->threads = (int)th;
  return true;
}

static bool parse_record(const Line *l, const char *text, size_t len, MlcTuneDB *db) {
  cJSON *o = cJSON_ParseWithLength(text, len);
  if (!o || !cJSON_IsObject(o)) {
    cJSON_Delete(o);
    return bad(l, "not a JSON object");
  }
  MlcTuneRecord r = {.seconds = -1};
  const char *hex, *func, *trace, *dec, *err, *lib;
  double space = 0, secs = 0, gf = 0, el = 0, wt = 0;
  bool has_space, has_secs, has_gf, has_el, has_wt, ok = get_str(l, o, "workload", true, &hex) && get_str(l, o, "func", false, &func) &&
                                          get_str(l, o, "trace", true, &trace) && get_str(l, o, "decisions", false, &dec) &&
                                          get_str(l, o, "error", false, &err) && get_str(l, o, "library", false, &lib) &&
                                          get_num(l, o, "space", &space, &has_space) &&
                                          get_num(l, o, "seconds", &secs, &has_secs) && get_num(l, o, "gflops", &gf, &has_gf) &&
                                          get_num(l, o, "elapsed_s", &el, &has_el) && get_num(l, o, "weight", &wt, &has_wt) &&
                                          parse_target(l, o, &r.target);
  char *end = NULL;
  if (ok) {
    errno = 0;
    r.workload = strtoull(hex, &end, 16);
    if (errno || !*hex || *end || strlen(hex) > 16) ok = bad(l, "\"workload\" must be 16 hex digits");
  }
  if (ok && has_secs && !(secs > 0 && secs < 1e6)) ok = bad(l, "\"seconds\" must be a positive number of seconds");
  if (ok && (space < MLC_TUNE_DEFAULT_SPACE || space >= MLC_TUNE_MAX_SPACES || space != (int)space)) ok = bad(l, "\"space\" out of range");
  if (ok) {
    r.func = func, r.trace = trace, r.decisions = dec, r.error = err, r.library = lib;
    r.space = (int)space;
    r.seconds = has_secs && !err ? secs : -1; /* a failed record has no time */
    r.gflops = has_gf ? gf : 0;
    r.elapsed_s = has_el ? el : 0;
    r.weight = has_wt && wt >= 0 && wt < 1e9 ? (int)wt : 0;
    if (!has_secs && !err) r.error = "no time";
    mlc_tune_db_add(db, &r);
  }
  cJSON_Delete(o);
  return ok;
}

bool mlc_tune_db_read(MlcCtx *ctx, MlcTuneDB *db, const char *name, const char *text, size_t len) {
  Line l = {ctx, name, 0};
  bool ok = true;
  size_t start = 0;
  while (ok && start < len) {
    size_t end = start;
    while (end < len && text[end] != '\n') end++;
    l.line++;
    size_t a = start;
    while (a < end && (text[a] == ' ' || text[a] == '\t' || text[a] == '\r')) a++;
    if (a < end) ok = parse_record(&l, text + a, end - a, db);
    /* a last line without its newline is one a stopped run was writing:
     * the records before it stand */
    if (!ok && end == len) ok = true, mlc_clear_error(ctx);
    start = end + 1;
  }
  return ok;
}

bool mlc_tune_db_load(MlcCtx *ctx, MlcTuneDB *db, const char *path, bool missing_ok) {
  if (missing_ok && access(path, F_OK) != 0 && errno == ENOENT) return true;
  size_t len;
  char *text = mlc_read_file(ctx, path, MAX_DB_FILE, &len);
  if (!text) return false;
  bool ok = mlc_tune_db_read(ctx, db, path, text, len);
  free(text);
  return ok;
}
