/* profile.c - `mlcc run DIR --profile`: where a compiled model's time goes.
 *
 * The runtime times every call site of the executor (mlcrt_model_profile);
 * this file runs the model enough times to get stable numbers, adds the
 * sites up per kernel (one kernel may be called from many sites: ResNet's
 * adds), and prints a table sorted by time, or writes it as JSON for tools
 * (`mlcc report` draws it).  Beside the kernels' sum it prints the measured
 * time of whole inferences, so what the table leaves out (the executor's
 * own work, allocations) is visible as the difference. */
#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "mlcc/runtime.h"

#define MIN_RUNS 5
#define MAX_RUNS 1000
#define MIN_SECONDS 1.0
#define MAX_NODES_SHOWN 3

typedef struct Row {
  const char *callee, *ops;
  int32_t kind;
  int64_t calls;
  double secs, flops, bytes; /* flops/bytes: per run, summed over sites; < 0 unknown */
  int32_t first_site, n_sites;
} Row;

static const char *const kind_names[] = {"generated", "library", "tuned"};

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* per kernel: the sites calling it, summed; rows sorted by time, largest first */
static int by_time(const void *a, const void *b) {
  const Row *x = a, *y = b;
  return x->secs < y->secs ? 1 : x->secs > y->secs ? -1 : strcmp(x->callee, y->callee);
}

static void add_known(double *acc, double v, int64_t calls) {
  if (*acc < 0) return;
  *acc = v < 0 ? -1 : *acc + v * (double)calls;
}

static Row *collect(const MlcrtModel *m, int32_t *n_rows) {
  int32_t n = mlcrt_model_num_sites(m), k = 0;
  Row *rows = calloc((size_t)n + 1, sizeof *rows);
  if (!rows) return NULL;
  for (int32_t i = 0; i < n; i++) {
    const MlcrtCallSite *s = mlcrt_model_site(m, i);
    int64_t calls;
    double secs;
    mlcrt_model_site_time(m, i, &calls, &secs);
    int32_t r = 0;
    while (r < k && strcmp(rows[r].callee, s->callee) != 0) r++;
    if (r == k) rows[k++] = (Row){s->callee, s->ops, s->kind, 0, 0, 0, 0, i, 0};
    rows[r].calls += calls;
    rows[r].secs += secs;
    add_known(&rows[r].flops, s->flops, calls);
    add_known(&rows[r].bytes, s->bytes, calls);
    rows[r].n_sites++;
  }
  qsort(rows, (size_t)k, sizeof *rows, by_time);
  *n_rows = k;
  return rows;
}

/* the graph vars a kernel computes (ONNX: named after the nodes' outputs),
 * the first few of them */
static void nodes_text(const MlcrtModel *m, const Row *r, char *buf, size_t cap) {
  size_t used = 0;
  int shown = 0;
  buf[0] = 0;
  for (int32_t i = r->first_site; i < mlcrt_model_num_sites(m) && shown < MAX_NODES_SHOWN; i++) {
    const MlcrtCallSite *s = mlcrt_model_site(m, i);
    if (strcmp(s->callee, r->callee) != 0) continue;
    int w = snprintf(buf + used, cap - used, "%s%s", shown ? ", " : "", s->binding);
    if (w < 0 || (size_t)w >= cap - used) break;
    used += (size_t)w;
    shown++;
  }
  if (r->n_sites > shown && used + 16 < cap) snprintf(buf + used, cap - used, " +%d more", r->n_sites - shown);
}

static void fmt_bytes(double b, char *buf, size_t cap) {
  if (b < 0) snprintf(buf, cap, "-");
  else if (b >= 1 << 20) snprintf(buf, cap, "%.1f MiB", b / (1 << 20));
  else if (b >= 1 << 10) snprintf(buf, cap, "%.1f KiB", b / (1 << 10));
  else snprintf(buf, cap, "%.0f B", b);
}

static void print_table(const MlcrtModel *m, const Row *rows, int32_t n, int runs, double wall) {
  double total = 0;
  for (int32_t i = 0; i < n; i++) total += rows[i].secs;
  printf("%-28s %-20s %6s %10s %10s %6s %8s %10s  %-9s %s\n", "kernel", "op", "calls", "ms/run", "mean us", "share",
         "GFLOPS", "bytes", "kind", "nodes");
  for (int32_t i = 0; i < n; i++) {
    const Row *r = &rows[i];
    char gf[32], by[32], nodes[256];
    if (r->flops >= 0 && r->secs > 0) snprintf(gf, sizeof gf, "%.2f", r->flops / r->secs * 1e-9);
    else snprintf(gf, sizeof gf, "-");
    fmt_bytes(r->calls ? r->bytes / (double)r->calls : -1, by, sizeof by);
    nodes_text(m, r, nodes, sizeof nodes);
    printf("%-28s %-20s %6lld %10.4g %10.4g %5.1f%% %8s %10s  %-9s %s\n", r->callee, r->ops, (long long)r->calls,
           r->secs * 1e3 / runs, r->calls ? r->secs * 1e6 / (double)r->calls : 0.0,
           total > 0 ? 100.0 * r->secs / total : 0.0, gf, by, kind_names[r->kind], nodes);
  }
  printf("%d runs: kernels %.4g ms of %.4g ms per inference (%.1f%%; the rest is the executor: allocation, "
         "shape checks, calls); %d thread%s\n",
         runs, total * 1e3 / runs, wall * 1e3 / runs, wall > 0 ? 100.0 * total / wall : 0.0, mlcrt_threads_get(),
         mlcrt_threads_get() == 1 ? "" : "s");
}

static cJSON *json_row(const MlcrtModel *m, const Row *r, int runs, double total) {
  cJSON *o = cJSON_CreateObject(), *nodes = cJSON_CreateArray();
  cJSON_AddStringToObject(o, "name", r->callee);
  cJSON_AddStringToObject(o, "op", r->ops);
  cJSON_AddStringToObject(o, "kind", kind_names[r->kind]);
  cJSON_AddNumberToObject(o, "calls", (double)r->calls);
  cJSON_AddNumberToObject(o, "total_ms_per_run", r->secs * 1e3 / runs);
  cJSON_AddNumberToObject(o, "mean_us", r->calls ? r->secs * 1e6 / (double)r->calls : 0);
  cJSON_AddNumberToObject(o, "share", total > 0 ? r->secs / total : 0);
  if (r->flops >= 0) cJSON_AddNumberToObject(o, "flops_per_run", r->flops / runs);
  if (r->flops >= 0 && r->secs > 0) cJSON_AddNumberToObject(o, "gflops", r->flops / r->secs * 1e-9);
  if (r->bytes >= 0 && r->calls) cJSON_AddNumberToObject(o, "bytes_per_call", r->bytes / (double)r->calls);
  for (int32_t i = r->first_site; i < mlcrt_model_num_sites(m); i++) {
    const MlcrtCallSite *s = mlcrt_model_site(m, i);
    if (!strcmp(s->callee, r->callee)) cJSON_AddItemToArray(nodes, cJSON_CreateString(s->binding));
  }
  cJSON_AddItemToObject(o, "nodes", nodes);
  return o;
}

static int write_json(const char *path, const MlcrtModel *m, const Row *rows, int32_t n, int runs, double wall) {
  double total = 0;
  for (int32_t i = 0; i < n; i++) total += rows[i].secs;
  cJSON *doc = cJSON_CreateObject(), *arr = cJSON_CreateArray();
  char cpu[256];
  cli_cpu_model(cpu, sizeof cpu);
  cJSON_AddStringToObject(doc, "model", mlcrt_model_desc(m)->name);
  cJSON_AddStringToObject(doc, "cpu", cpu);
  cJSON_AddNumberToObject(doc, "threads", mlcrt_threads_get());
  cJSON_AddNumberToObject(doc, "runs", runs);
  cJSON_AddNumberToObject(doc, "inference_ms", wall * 1e3 / runs);
  cJSON_AddNumberToObject(doc, "kernels_ms", total * 1e3 / runs);
  for (int32_t i = 0; i < n; i++) cJSON_AddItemToArray(arr, json_row(m, &rows[i], runs, total));
  cJSON_AddItemToObject(doc, "kernels", arr);
  char *text = cJSON_Print(doc);
  cJSON_Delete(doc);
  if (!text) {
    fprintf(stderr, "mlcc: run: out of memory writing the profile\n");
    return EXIT_ERR;
  }
  bool ok = cli_write_file(path, text, strlen(text));
  cJSON_free(text);
  return ok ? EXIT_YES : EXIT_ERR;
}

int cli_profile_model(MlcrtModel *m, DLTensor *const *inputs, DLTensor **outputs, const char *json_path, bool quiet) {
  const MlcrtModelDesc *d = mlcrt_model_desc(m);
  if (mlcrt_model_num_sites(m) == 0) {
    fprintf(stderr, "mlcc: run: '%s' has no call sites to profile (built by an older mlcc? rebuild it)\n", d->name);
    return EXIT_ERR;
  }
  /* one run to warm caches and the thread pool, unprofiled */
  if (mlcrt_model_run(m, inputs, d->n_inputs, outputs, d->n_outputs) != 0 || mlcrt_model_profile(m, 1) != 0) {
    fprintf(stderr, "mlcc: run: profiling failed: %s\n", mlcrt_last_error());
    return EXIT_ERR;
  }
  int runs = 0;
  double wall = 0;
  while (runs < MIN_RUNS || (wall < MIN_SECONDS && runs < MAX_RUNS)) {
    double t0 = now_s();
    int rc = mlcrt_model_run(m, inputs, d->n_inputs, outputs, d->n_outputs);
    wall += now_s() - t0;
    runs++;
    if (rc != 0) {
      mlcrt_model_profile(m, 0);
      fprintf(stderr, "mlcc: run: inference failed while profiling: %s\n", mlcrt_last_error());
      return EXIT_ERR;
    }
  }
  int32_t n = 0;
  Row *rows = collect(m, &n);
  mlcrt_model_profile(m, 0);
  if (!rows) {
    fprintf(stderr, "mlcc: run: out of memory\n");
    return EXIT_ERR;
  }
  if (!quiet) print_table(m, rows, n, runs, wall);
  int rc = json_path ? write_json(json_path, m, rows, n, runs, wall) : EXIT_YES;
  free(rows);
  return rc;
}
