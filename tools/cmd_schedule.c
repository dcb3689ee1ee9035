/* cmd_schedule.c - `mlcc schedule MODULE.py SCRIPT.py [--func NAME]
 * [--seed N] [--intrin FILE.py] [--trace]`: read a module, run a schedule script on one of its
 * prim funcs, and print the transformed module in canonical TVMScript (or,
 * with --trace, the trace the script recorded, which replays as a script).
 *
 * Like the other commands it only moves bytes: the schedule library does
 * the work, and its one error becomes `file:line:col: error: ...` with the
 * source line and a caret -- in the module for a reading error, in the
 * script for a script or primitive error.  Exit status 0 on success, 2 on
 * any error (usage, unreadable input, refused primitive). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "mlcc/schedule.h"

enum { MAX_INTRIN_FILES = 16 };

typedef struct SchedArgs {
  const char *module, *script, *func;
  const char *intrin[MAX_INTRIN_FILES];
  int n_intrin;
  uint64_t seed;
  bool trace;
} SchedArgs;

static int sched_usage(const char *what, const char *arg) {
  fprintf(stderr, "mlcc: schedule: %s%s%s\n", what, arg ? ": " : "", arg ? arg : "");
  fprintf(stderr, "usage: mlcc schedule MODULE.py SCRIPT.py [--func NAME] [--seed N] [--intrin FILE.py] [--trace]\n");
  return EXIT_ERR;
}

static bool parse_seed(const char *s, uint64_t *out) {
  char *end;
  errno = 0;
  unsigned long long v = strtoull(s, &end, 10);
  if (errno || end == s || *end || *s == '-') return false;
  *out = (uint64_t)v;
  return true;
}

/* 0 when the arguments are good, else the exit status of the complaint */
static int parse_args(int argc, char **argv, SchedArgs *a) {
  for (int i = 0; i < argc; i++) {
    const char *arg = argv[i];
    bool has_value = i + 1 < argc;
    if (strcmp(arg, "--trace") == 0) a->trace = true;
    else if (strcmp(arg, "--func") == 0 && has_value) a->func = argv[++i];
    else if (strcmp(arg, "--intrin") == 0 && has_value) {
      if (a->n_intrin == MAX_INTRIN_FILES) return sched_usage("too many --intrin files", argv[i + 1]);
      a->intrin[a->n_intrin++] = argv[++i];
    } else if (strcmp(arg, "--seed") == 0 && has_value) {
      if (!parse_seed(argv[++i], &a->seed)) return sched_usage("--seed wants a non-negative integer", argv[i]);
    } else if (arg[0] == '-' && arg[1] != '\0') return sched_usage("unexpected option", arg);
    else if (!a->module) a->module = arg;
    else if (!a->script) a->script = arg;
    else return sched_usage("unexpected argument", arg);
  }
  if (!a->module || !a->script) return sched_usage("needs MODULE.py and SCRIPT.py", NULL);
  if (strcmp(a->module, "-") == 0 && strcmp(a->script, "-") == 0)
    return sched_usage("only one of MODULE and SCRIPT can be standard input", NULL);
  return 0;
}

/* the module read, scheduled and printed (or its trace) into out */
static bool run(MlcCtx *ctx, const SchedArgs *a, MlcStrBuf *out) {
  for (int i = 0; i < a->n_intrin; i++) {
    MlcModule *im = cli_load_module(ctx, a->intrin[i], NULL, NULL);
    if (!im || mlc_sch_register_intrins(ctx, im) < 0) return false;
  }
  MlcModule *m = cli_load_module(ctx, a->module, NULL, NULL);
  if (!m) return false;
  size_t slen = 0;
  const char *sname = mlc_intern(ctx, strcmp(a->script, "-") == 0 ? "<stdin>" : a->script);
  char *stext = mlc_read_file(ctx, a->script, MLCC_MAX_INPUT, &slen);
  if (!stext) return false;
  MlcSchedule *s = mlc_sch_new(ctx, m, a->func, a->seed);
  bool ok = s && mlc_sch_run_script(s, sname, stext, slen);
  free(stext);
  if (ok && a->trace) mlc_sch_print_trace(s, out);
  else if (ok) mlc_print_module(mlc_sch_module(s), out);
  if (s) mlc_sch_free(s);
  return ok;
}

int cmd_schedule(int argc, char **argv) {
  SchedArgs a = {0};
  int rc = parse_args(argc, argv, &a);
  if (rc) return rc;
  MlcCtx *ctx = mlc_ctx_new();
  MlcStrBuf out = {0};
  if (!run(ctx, &a, &out)) rc = cli_report(ctx);
  else rc = cli_write_stdout(mlc_sb_cstr(&out), out.len) ? EXIT_YES : EXIT_ERR;
  mlc_vec_free(&out);
  mlc_ctx_free(ctx);
  return rc;
}
