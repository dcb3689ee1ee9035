/* cmd_report.c - `mlcc report PROFILE.json [TUNING.jsonl]... -o REPORT.html`:
 * one self-contained page that shows where a model's time goes.
 *
 * The profile is what `mlcc run DIR --profile-json` writes; the page draws
 * the time per kernel, the share per op, and the table itself.  Tuning
 * records, when given, are JSON lines with at least
 *   {"task": NAME, "elapsed_s": SECONDS_INTO_TUNING, "latency_s": SECONDS}
 * and optionally "weight" (calls of the task per inference, default 1): the
 * page then draws each task's best latency so far against its trials and
 * against time, and the model's estimate (the sum of weight x best over
 * the tasks, from the record on which every task has one) as a bold line.  Records that
 * lack the fields (other kinds of lines) are skipped and counted. */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

#define MAX_BARS 30
#define MAX_TASKS_DRAWN 10
#define MAX_FILE ((size_t)256 << 20)

typedef struct Task {
  const char *name;
  double weight, best;
  MLC_VEC(double) trial_x, trial_y, time_x, time_y;
} Task;

typedef struct Report {
  MlcCtx *ctx;
  MlcStrBuf html;
  MLC_VEC(Task) tasks;
  MLC_VEC(double) model_trial_x, model_time_x, model_y;
  int n_records, n_skipped;
  int complete_from; /* the first record after which every task has one */
} Report;

static int rep_fail(const char *path, const char *what) {
  fprintf(stderr, "mlcc: report: %s: error: %s\n", path, what);
  return EXIT_ERR;
}

static cJSON *read_json_file(Report *r, const char *path) {
  size_t len = 0;
  char *text = mlc_read_file(r->ctx, path, MAX_FILE, &len);
  if (!text) return NULL;
  cJSON *doc = cJSON_ParseWithLength(text, len);
  free(text);
  return doc;
}

static double num(const cJSON *o, const char *key, double dflt) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
  return cJSON_IsNumber(v) && isfinite(v->valuedouble) ? v->valuedouble : dflt;
}

static const char *str(const cJSON *o, const char *key) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
  return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* the same op gets the same color in every chart: its rank among the ops
 * by time (op_bars sorts them first) */
static const char *op_rank[MAX_BARS];
static int n_op_rank;

static int op_color(const char *op) {
  for (int i = 0; i < n_op_rank; i++)
    if (!strcmp(op_rank[i], op)) return i;
  return n_op_rank;
}

/* ms or us, whichever reads better for values up to max_ms */
static double unit_scale(double max_ms, const char **unit) {
  *unit = max_ms >= 0.1 ? "ms" : "us";
  return max_ms >= 0.1 ? 1 : 1e3;
}

/* ---- the profile ------------------------------------------------------------------- */

static bool check_kernels(const cJSON *ks, const char *path) {
  if (!cJSON_IsArray(ks)) return rep_fail(path, "no \"kernels\" array (write it with mlcc run DIR --profile-json)"), false;
  int i = 0;
  for (const cJSON *k = ks->child; k; k = k->next, i++)
    if (!str(k, "name") || !str(k, "op") || num(k, "total_ms_per_run", -1) < 0) {
      char msg[128];
      snprintf(msg, sizeof msg, "kernel #%d needs \"name\", \"op\" and \"total_ms_per_run\" >= 0", i + 1);
      return rep_fail(path, msg), false;
    }
  return true;
}

static void kernel_bars(Report *r, const cJSON *ks) {
  RepBar bars[MAX_BARS];
  int n = 0;
  const char *unit;
  double scale = unit_scale(ks->child ? num(ks->child, "total_ms_per_run", 0) : 0, &unit);
  for (const cJSON *k = ks->child; k && n < MAX_BARS; k = k->next, n++) {
    snprintf(bars[n].label, sizeof bars[n].label, "%s", str(k, "name"));
    snprintf(bars[n].note, sizeof bars[n].note, "%.1f%%, %s", 100 * num(k, "share", 0), str(k, "op"));
    bars[n].value = num(k, "total_ms_per_run", 0) * scale;
    bars[n].color = op_color(str(k, "op"));
  }
  char title[96];
  snprintf(title, sizeof title, "Time per kernel (%s per inference%s)", unit,
           n < cJSON_GetArraySize(ks) ? ", the largest 30" : "");
  rep_hbars(&r->html, title, bars, n, unit);
}

/* the op string of the profile equal to label (so op_rank outlives the bars) */
static const char *str_in(const cJSON *ks, const char *label) {
  for (const cJSON *k = ks->child; k; k = k->next)
    if (!strcmp(str(k, "op"), label)) return str(k, "op");
  return "";
}

/* the time per op, largest first; draw: into the page, else only ranking
 * the ops for their colors */
static void op_bars(Report *r, const cJSON *ks, bool draw) {
  RepBar bars[MAX_BARS];
  int n = 0;
  double total = 0;
  for (const cJSON *k = ks->child; k; k = k->next) {
    int i = 0;
    while (i < n && strcmp(bars[i].label, str(k, "op")) != 0) i++;
    if (i == n && n == MAX_BARS) continue;
    if (i == n) {
      memset(&bars[n], 0, sizeof bars[n]);
      snprintf(bars[n].label, sizeof bars[n].label, "%s", str(k, "op"));
      bars[n++].color = op_color(str(k, "op"));
    }
    bars[i].value += num(k, "total_ms_per_run", 0);
    total += num(k, "total_ms_per_run", 0);
  }
  for (int i = 0; i < n; i++) /* largest first */
    for (int j = i + 1; j < n; j++)
      if (bars[j].value > bars[i].value) {
        RepBar t = bars[i];
        bars[i] = bars[j];
        bars[j] = t;
      }
  const char *unit;
  double scale = unit_scale(n ? bars[0].value : 0, &unit);
  n_op_rank = 0;
  for (int i = 0; i < n; i++) {
    snprintf(bars[i].note, sizeof bars[i].note, "%.1f%%", total > 0 ? 100 * bars[i].value / total : 0);
    bars[i].value *= scale;
    bars[i].color = i;
    op_rank[n_op_rank++] = str_in(ks, bars[i].label);
  }
  if (!draw) return;
  char title[64];
  snprintf(title, sizeof title, "Share of the time by op (%s per inference)", unit);
  rep_hbars(&r->html, title, bars, n, unit);
}

static void kernel_table(Report *r, const cJSON *ks) {
  MlcStrBuf *h = &r->html;
  mlc_sb_puts(h, "<h2>Kernels</h2>\n<table>\n<tr><th>kernel</th><th>op</th><th>kind</th><th>calls</th>"
                 "<th>ms per inference</th><th>mean us</th><th>share</th><th>GFLOPS</th><th>nodes</th></tr>\n");
  for (const cJSON *k = ks->child; k; k = k->next) {
    mlc_sb_puts(h, "<tr><td>");
    rep_escape(h, str(k, "name"));
    mlc_sb_puts(h, "</td><td>");
    rep_escape(h, str(k, "op"));
    mlc_sb_puts(h, "</td><td>");
    rep_escape(h, str(k, "kind") ? str(k, "kind") : "");
    mlc_sb_printf(h, "</td><td>%.0f</td><td>%.4g</td><td>%.4g</td><td>%.1f%%</td><td>", num(k, "calls", 0),
                  num(k, "total_ms_per_run", 0), num(k, "mean_us", 0), 100 * num(k, "share", 0));
    if (num(k, "gflops", -1) >= 0) mlc_sb_printf(h, "%.2f", num(k, "gflops", 0));
    mlc_sb_puts(h, "</td><td>");
    const cJSON *nodes = cJSON_GetObjectItemCaseSensitive(k, "nodes");
    int i = 0;
    for (const cJSON *n = cJSON_IsArray(nodes) ? nodes->child : NULL; n; n = n->next, i++) {
      if (!cJSON_IsString(n)) continue;
      if (i == 4) {
        mlc_sb_printf(h, " +%d more", cJSON_GetArraySize(nodes) - 4);
        break;
      }
      if (i) mlc_sb_puts(h, ", ");
      rep_escape(h, n->valuestring);
    }
    mlc_sb_puts(h, "</td></tr>\n");
  }
  mlc_sb_puts(h, "</table>\n");
}

/* ---- tuning records ------------------------------------------------------------------ */

static Task *task_of(Report *r, const char *name, double weight) {
  for (size_t i = 0; i < r->tasks.len; i++)
    if (!strcmp(r->tasks.data[i].name, name)) return &r->tasks.data[i];
  Task t = {.name = mlc_intern(r->ctx, name), .weight = weight, .best = INFINITY};
  mlc_vec_push(&r->tasks, t);
  r->complete_from = r->n_records;
  return &r->tasks.data[r->tasks.len - 1];
}

/* one record: the task's best so far, and the model's estimate once every
 * task seen has a best */
static void add_record(Report *r, const char *name, double elapsed, double latency, double weight) {
  Task *t = task_of(r, name, weight);
  if (latency < t->best) t->best = latency;
  double trial = (double)t->trial_x.len + 1;
  mlc_vec_push(&t->trial_x, trial);
  mlc_vec_push(&t->trial_y, t->best * 1e3);
  mlc_vec_push(&t->time_x, elapsed);
  mlc_vec_push(&t->time_y, t->best * 1e3);
  r->n_records++;
  double est = 0;
  for (size_t i = 0; i < r->tasks.len; i++) est += r->tasks.data[i].weight * r->tasks.data[i].best;
  mlc_vec_push(&r->model_trial_x, (double)r->n_records);
  mlc_vec_push(&r->model_time_x, elapsed);
  mlc_vec_push(&r->model_y, est * 1e3);
}

static int read_records(Report *r, const char *path) {
  size_t len = 0;
  char *text = mlc_read_file(r->ctx, path, MAX_FILE, &len);
  if (!text) return cli_report(r->ctx);
  char *line = text;
  for (int lineno = 1; line && *line; lineno++) {
    char *nl = strchr(line, '\n');
    if (nl) *nl = 0;
    cJSON *o = cJSON_Parse(line);
    const char *task = o ? str(o, "task") : NULL;
    double elapsed = o ? num(o, "elapsed_s", -1) : -1, lat = o ? num(o, "latency_s", -1) : -1;
    if (task && elapsed >= 0 && lat > 0) add_record(r, task, elapsed, lat, num(o, "weight", 1));
    else if (line[strspn(line, " \t\r")]) r->n_skipped++;
    cJSON_Delete(o);
    line = nl ? nl + 1 : NULL;
  }
  free(text);
  return EXIT_YES;
}

static void tuning_charts(Report *r) {
  RepSeries trials[MAX_TASKS_DRAWN + 1], times[MAX_TASKS_DRAWN + 1];
  int n = 0;
  /* every record is in the model's line; the tasks drawn are the first ones */
  for (size_t i = 0; i < r->tasks.len && n < MAX_TASKS_DRAWN; i++, n++) {
    Task *t = &r->tasks.data[i];
    trials[n] = (RepSeries){t->name, t->trial_x.data, t->trial_y.data, (int)t->trial_x.len, false};
    times[n] = (RepSeries){t->name, t->time_x.data, t->time_y.data, (int)t->time_x.len, false};
  }
  size_t first = (size_t)r->complete_from;
  if (first < r->model_y.len) {
    int k = (int)(r->model_y.len - first);
    trials[n] = (RepSeries){"model (estimate)", r->model_trial_x.data + first, r->model_y.data + first, k, true};
    times[n++] = (RepSeries){"model (estimate)", r->model_time_x.data + first, r->model_y.data + first, k, true};
  }
  mlc_sb_printf(&r->html, "<h2>Tuning</h2>\n<p>%d records of %zu tasks%s", r->n_records, r->tasks.len,
                r->tasks.len > MAX_TASKS_DRAWN ? " (the first 10 tasks drawn)" : "");
  if (r->n_skipped) mlc_sb_printf(&r->html, "; %d lines without task, elapsed_s and latency_s skipped", r->n_skipped);
  mlc_sb_puts(&r->html, ".</p>\n");
  rep_lines(&r->html, "Best latency against trials", trials, n, "trials", "best latency (ms)");
  rep_lines(&r->html, "Best latency against time", times, n, "seconds of tuning", "best latency (ms)");
}

/* ---- the page -------------------------------------------------------------------------- */

static const char STYLE[] =
    "body { font-family: sans-serif; margin: 24px; color: #222; }\n"
    "svg { display: block; margin: 16px 0; font-size: 12px; }\n"
    "svg .title { font-size: 15px; font-weight: bold; }\n"
    "table { border-collapse: collapse; font-size: 13px; }\n"
    "td, th { border: 1px solid #ccc; padding: 2px 8px; text-align: left; }\n";

static int build_page(Report *r, const char *profile_path, const cJSON *doc) {
  const cJSON *ks = cJSON_GetObjectItemCaseSensitive(doc, "kernels");
  if (!check_kernels(ks, profile_path)) return EXIT_ERR;
  const char *model = str(doc, "model") ? str(doc, "model") : "model";
  MlcStrBuf *h = &r->html;
  mlc_sb_puts(h, "<!DOCTYPE html>\n<html xmlns=\"http://www.w3.org/1999/xhtml\" lang=\"en\">\n<head>\n"
                 "<meta charset=\"utf-8\"/>\n<title>mlcc profile: ");
  rep_escape(h, model);
  mlc_sb_printf(h, "</title>\n<style>\n%s</style>\n</head>\n<body>\n<h1>Profile of ", STYLE);
  rep_escape(h, model);
  mlc_sb_puts(h, "</h1>\n<p>");
  rep_escape(h, str(doc, "cpu") ? str(doc, "cpu") : "unknown CPU");
  mlc_sb_printf(h, ", %.0f threads, %.0f runs: %.4g ms per inference, %.4g ms of it in kernels.</p>\n",
                num(doc, "threads", 0), num(doc, "runs", 0), num(doc, "inference_ms", 0), num(doc, "kernels_ms", 0));
  op_bars(r, ks, false);
  kernel_bars(r, ks);
  op_bars(r, ks, true);
  if (r->n_records || r->n_skipped) tuning_charts(r);
  kernel_table(r, ks);
  mlc_sb_puts(h, "</body>\n</html>\n");
  return EXIT_YES;
}

static void report_free(Report *r) {
  for (size_t i = 0; i < r->tasks.len; i++) {
    Task *t = &r->tasks.data[i];
    mlc_vec_free(&t->trial_x);
    mlc_vec_free(&t->trial_y);
    mlc_vec_free(&t->time_x);
    mlc_vec_free(&t->time_y);
  }
  mlc_vec_free(&r->tasks);
  mlc_vec_free(&r->model_trial_x);
  mlc_vec_free(&r->model_time_x);
  mlc_vec_free(&r->model_y);
  mlc_vec_free(&r->html);
  mlc_ctx_free(r->ctx);
}

int cmd_report(int argc, char **argv) {
  const char *profile = NULL, *out = NULL, *records[64];
  int n_records = 0;
  for (int i = 0; i < argc; i++) {
    if (!strcmp(argv[i], "-o")) {
      if (i + 1 >= argc) return cli_bad_usage("report: -o needs the output file", argv[i]);
      if (out) return cli_bad_usage("report: -o given twice", argv[i + 1]);
      out = argv[++i];
    } else if (argv[i][0] == '-') return cli_bad_usage("report: unknown option", argv[i]);
    else if (!profile) profile = argv[i];
    else if (n_records == 64) return cli_bad_usage("report: too many record files", argv[i]);
    else records[n_records++] = argv[i];
  }
  if (!profile || !out) return cli_bad_usage("report: needs PROFILE.json and -o REPORT.html", NULL);
  Report r = {.ctx = mlc_ctx_new()};
  cJSON *doc = read_json_file(&r, profile);
  int rc = EXIT_YES;
  if (!doc) rc = mlc_has_error(r.ctx) ? cli_report(r.ctx) : rep_fail(profile, "not valid JSON");
  for (int i = 0; i < n_records && rc == EXIT_YES; i++) rc = read_records(&r, records[i]);
  if (rc == EXIT_YES) rc = build_page(&r, profile, doc);
  if (rc == EXIT_YES && !cli_write_file(out, r.html.data, r.html.len)) rc = EXIT_ERR;
  cJSON_Delete(doc);
  report_free(&r);
  return rc;
}
