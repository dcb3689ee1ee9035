/* cmd_tune_steps.c - the tuner's build and measure steps as commands over
 * files, for measuring on other machines (docs/tuning.md):
 *
 *   mlcc tune-build CANDIDATES.jsonl -o ARTIFACT [--jobs N] [--target opencl|cuda]
 *   mlcc tune-measure ARTIFACT -o RESULTS.jsonl [--threads N] [--timeout 10s]
 *                     [--repeat N] [--min-repeat-ms MS] [--flush-cache]
 *   mlcc tune-measure --print-target [--threads N] [--target opencl|cuda]
 *
 * RESULTS.jsonl holds tuning records (the target: this machine's CPU, or
 * its device of the GPU API the artifact was built for), so `--records
 * RESULTS.jsonl` merges them into a tuning run or a build.  `mlcc tune
 * --launcher CMD` runs tune-measure through CMD; --print-target is how it
 * learns the CPU (or device) on the launched side.  Interrupting
 * tune-measure writes the times measured so far. */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "mlcc/tune.h"

/* 90, 90s, 20m, 1h, 1.5h */
bool cli_parse_duration(const char *s, double *out) {
  char *end;
  errno = 0;
  double v = strtod(s, &end);
  if (errno || end == s || !(v > 0)) return false;
  double unit = !*end || !strcmp(end, "s") ? 1 : !strcmp(end, "m") ? 60 : !strcmp(end, "h") ? 3600 : -1;
  *out = v * unit;
  return unit > 0;
}

bool cli_parse_int(const char *s, long lo, long hi, long *out) {
  char *end;
  errno = 0;
  long v = strtol(s, &end, 10);
  if (errno || end == s || *end || v < lo || v > hi) return false;
  *out = v;
  return true;
}


/* ---- tune-build ------------------------------------------------------------------- */

int cmd_tune_build(int argc, char **argv) {
  const char *in = NULL, *out = NULL;
  MlcTuneMeasureOptions o = {0};
  MlcBuildOptions gpu_build = {.target = MLC_TARGET_NATIVE};
  for (int i = 0; i < argc; i++) {
    long v;
    if (!strcmp(argv[i], "-o") && i + 1 < argc) out = argv[++i];
    else if (!strcmp(argv[i], "--target") && i + 1 < argc) {
      if (!mlc_tune_gpu_from_name(argv[++i], &gpu_build.gpu))
        return cli_bad_usage("tune-build: --target takes opencl or cuda (the CPU is the default)", argv[i]);
      o.build = &gpu_build;
    }
    else if (!strcmp(argv[i], "--jobs") && i + 1 < argc) {
      if (!cli_parse_int(argv[++i], 1, 63, &v)) return cli_bad_usage("tune-build: --jobs takes 1 to 63", argv[i]);
      o.build_jobs = (int)v;
    } else if (!in && argv[i][0] != '-') in = argv[i];
    else return cli_bad_usage("tune-build: unexpected argument", argv[i]);
  }
  if (!in || !out) return cli_bad_usage("tune-build: needs CANDIDATES.jsonl -o ARTIFACT", NULL);
  MlcCtx *ctx = mlc_ctx_new();
  int rc = mlc_tune_build_artifact(ctx, in, out, &o) ? EXIT_YES : cli_report(ctx);
  mlc_ctx_free(ctx);
  return rc;
}

/* ---- tune-measure ----------------------------------------------------------------- */

static volatile int stop_flag;
static void on_stop(int sig) { (void)sig, stop_flag = 1; }

static int print_target(int threads, MlcGpuApi gpu) {
  MlcTuneTarget t;
  if (gpu != MLC_GPU_NONE) mlc_tune_target_gpu(&t, gpu);
  else mlc_tune_target_host(&t, threads);
  /* the names are the system's; escape what JSON needs */
  MlcStrBuf sb = {0};
  mlc_sb_puts(&sb, "{\"cpu\":\"");
  for (const char *p = t.cpu; *p; p++) {
    if (*p == '"' || *p == '\\') mlc_sb_putc(&sb, '\\');
    if ((unsigned char)*p >= 32) mlc_sb_putc(&sb, *p);
  }
  mlc_sb_printf(&sb, "\",\"features\":\"%s\",\"threads\":%d}\n", t.features, t.threads);
  int rc = cli_write_stdout(mlc_sb_cstr(&sb), sb.len) ? EXIT_YES : EXIT_ERR;
  mlc_vec_free(&sb);
  return rc;
}

int cmd_tune_measure(int argc, char **argv) {
  const char *in = NULL, *out = NULL;
  bool target_only = false;
  MlcGpuApi gpu = MLC_GPU_NONE;
  MlcTuneMeasureOptions o = {0};
  for (int i = 0; i < argc; i++) {
    const char *s = argv[i];
    bool next = i + 1 < argc;
    long v;
    double d;
    if (!strcmp(s, "-o") && next) out = argv[++i];
    else if (!strcmp(s, "--print-target")) target_only = true;
    else if (!strcmp(s, "--flush-cache")) o.flush_cache = true;
    else if (!strcmp(s, "--target") && next) {
      if (!mlc_tune_gpu_from_name(argv[++i], &gpu))
        return cli_bad_usage("tune-measure: --target takes opencl or cuda (with --print-target)", argv[i]);
    }
    else if (!strcmp(s, "--threads") && next) {
      if (!cli_parse_int(argv[++i], 1, 4096, &v)) return cli_bad_usage("tune-measure: --threads takes 1 to 4096", argv[i]);
      o.threads = (int)v;
    } else if (!strcmp(s, "--repeat") && next) {
      if (!cli_parse_int(argv[++i], 1, 1000, &v)) return cli_bad_usage("tune-measure: --repeat takes 1 to 1000", argv[i]);
      o.repeat = (int)v;
    } else if (!strcmp(s, "--timeout") && next) {
      if (!cli_parse_duration(argv[++i], &o.timeout_s)) return cli_bad_usage("tune-measure: --timeout takes a duration like 10s", argv[i]);
    } else if (!strcmp(s, "--min-repeat-ms") && next) {
      char *end;
      errno = 0;
      d = strtod(argv[++i], &end);
      if (errno || end == argv[i] || *end || !(d > 0 && d <= 1e6))
        return cli_bad_usage("tune-measure: --min-repeat-ms takes milliseconds above 0", argv[i]);
      o.min_repeat_ms = d;
    } else if (!in && s[0] != '-') in = s;
    else return cli_bad_usage("tune-measure: unexpected argument", s);
  }
  if (target_only) return in || out ? cli_bad_usage("tune-measure: --print-target takes no files", in ? in : out)
                                    : print_target(o.threads, gpu);
  if (gpu != MLC_GPU_NONE)
    return cli_bad_usage("tune-measure: --target goes with --print-target (an artifact says what it was built for)", NULL);
  if (!in || !out) return cli_bad_usage("tune-measure: needs ARTIFACT -o RESULTS.jsonl", NULL);
  MlcCtx *ctx = mlc_ctx_new();
  o.stop = &stop_flag;
  struct sigaction sa = {.sa_handler = on_stop}, old_int, old_term;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, &old_int);
  sigaction(SIGTERM, &sa, &old_term);
  bool ok = mlc_tune_measure_artifact(ctx, in, out, &o);
  sigaction(SIGINT, &old_int, NULL);
  sigaction(SIGTERM, &old_term, NULL);
  int rc = ok ? EXIT_YES : cli_report(ctx);
  if (ok && stop_flag) fprintf(stderr, "tune-measure: interrupted; the times measured so far are in %s\n", out);
  mlc_ctx_free(ctx);
  return rc;
}
