/* launch.c - measuring through a launcher: the batch written as a
 * candidates file, built here into an artifact, and measured by
 * `MLCC tune-measure` run behind a command prefix (`srun -N1 -n1`,
 * `ssh node`, any script), whose records are read back.
 *
 * The launcher is a shell command line, so whatever a cluster needs
 * (partitions, accounts, constraints) is written by the person in it; the
 * tuner appends the measure command with every argument quoted for the
 * shell and runs the whole line with /bin/sh in a process group of its
 * own.  That group is what a stop (Ctrl-C of the tuner) or the launch's
 * time-out ends.  Whatever the launched side prints goes to stderr; what
 * comes back are the records in the results file (and, for the target
 * probe, one JSON object on stdout, redirected here to a file). */
#include "mlcc/tune.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define NOLOC ((MlcLoc){0})

/* s quoted for the POSIX shell: '...' with each ' as '\'' */
static void quote(MlcStrBuf *sb, const char *s) {
  mlc_sb_putc(sb, '\'');
  for (; *s; s++) {
    if (*s == '\'') mlc_sb_puts(sb, "'\\''");
    else mlc_sb_putc(sb, *s);
  }
  mlc_sb_putc(sb, '\'');
}

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void nap(void) {
  struct timespec ts = {0, 20 * 1000 * 1000};
  nanosleep(&ts, NULL);
}

/* Run cmd with /bin/sh in a process group of its own, stdout to stderr;
 * ended (the group) when *stop is set or after timeout_s.  Returns the exit
 * status, or -1 with why set. */
static int run_shell(const char *cmd, double timeout_s, volatile int *stop, char *why, size_t cap) {
  fflush(NULL);
  pid_t pid = fork();
  if (pid < 0) return snprintf(why, cap, "cannot start /bin/sh: %s", strerror(errno)), -1;
  if (pid == 0) {
    setpgid(0, 0);
    dup2(2, 1);
    execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
    _exit(127);
  }
  setpgid(pid, pid); /* both sides, so the group exists whoever runs first */
  double end = now_s() + timeout_s;
  int status = 0, sig = 0;
  double killed_at = 0;
  for (;;) {
    pid_t r = waitpid(pid, &status, WNOHANG);
    if (r == pid || (r < 0 && errno != EINTR)) break;
    if (!sig && ((stop && *stop) || now_s() > end)) {
      sig = SIGTERM, killed_at = now_s();
      kill(-pid, SIGTERM);
    } else if (sig == SIGTERM && now_s() > killed_at + 5) {
      sig = SIGKILL;
      kill(-pid, SIGKILL);
    }
    nap();
  }
  if (sig && !(stop && *stop)) return snprintf(why, cap, "took longer than %.0f s and was ended", timeout_s), -1;
  if (sig) return snprintf(why, cap, "stopped"), -1;
  if (WIFSIGNALED(status)) return snprintf(why, cap, "ended by signal %d", WTERMSIG(status)), -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* the options tune-measure takes, from o */
static void measure_args(MlcStrBuf *sb, const MlcTuneMeasureOptions *o) {
  if (o->threads > 0) mlc_sb_printf(sb, " --threads %d", o->threads);
  if (o->timeout_s > 0) mlc_sb_printf(sb, " --timeout %g", o->timeout_s);
  if (o->repeat > 0) mlc_sb_printf(sb, " --repeat %d", o->repeat);
  if (o->min_repeat_ms > 0) mlc_sb_printf(sb, " --min-repeat-ms %g", o->min_repeat_ms);
  if (o->flush_cache) mlc_sb_puts(sb, " --flush-cache");
}

static const char *launch_line(MlcCtx *ctx, const MlcTuneLauncher *l, const char *rest) {
  MlcStrBuf sb = {0};
  mlc_sb_printf(&sb, "%s ", l->prefix);
  quote(&sb, l->mlcc);
  mlc_sb_puts(&sb, rest);
  const char *s = mlc_intern(ctx, mlc_sb_cstr(&sb));
  mlc_vec_free(&sb);
  return s;
}

/* a scratch directory under the workdir */
static char *scratch_dir(MlcCtx *ctx, const MlcTuneMeasureOptions *o) {
  const char *wd = o->workdir ? o->workdir : "/tmp";
  char *dir = mlc_xmalloc(strlen(wd) + 32);
  sprintf(dir, "%s/mlcc_launch_XXXXXX", wd);
  if (!mkdtemp(dir)) {
    mlc_error(ctx, NOLOC, "tune: cannot make a directory in %s: %s", wd, strerror(errno));
    free(dir);
    return NULL;
  }
  return dir;
}

/* dir and the files in it and in its subdirectories one level down (all
 * that the launch writes) */
static void remove_tree(const char *dir, int depth) {
  DIR *d = opendir(dir);
  struct dirent *e;
  while (d && (e = readdir(d))) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
    char p[4096];
    snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
    if (unlink(p) != 0 && depth > 0) remove_tree(p, depth - 1);
  }
  if (d) closedir(d);
  rmdir(dir);
}

static double launch_timeout(const MlcTuneLauncher *l, const MlcTuneMeasureOptions *o, int n) {
  if (l->timeout_s > 0) return l->timeout_s;
  double per = o->timeout_s > 0 ? o->timeout_s : 10;
  return 600 + n * (per + 1);
}

bool mlc_tune_launcher_target(MlcCtx *ctx, const MlcTuneLauncher *l, const MlcTuneTarget *t,
                              const MlcTuneMeasureOptions *o, MlcTuneTarget *out) {
  char *dir = scratch_dir(ctx, o);
  if (!dir) return false;
  const char *file = mlc_internf(ctx, "%s/target.json", dir);
  MlcStrBuf rest = {0};
  mlc_sb_puts(&rest, " tune-measure --print-target");
  MlcGpuApi api = o->build ? o->build->gpu : MLC_GPU_NONE;
  if (api != MLC_GPU_NONE) mlc_sb_puts(&rest, api == MLC_GPU_CUDA ? " --target cuda" : " --target opencl");
  mlc_sb_puts(&rest, " >");
  quote(&rest, file);
  const char *cmd = launch_line(ctx, l, mlc_sb_cstr(&rest));
  mlc_vec_free(&rest);
  char why[128] = "";
  int rc = run_shell(cmd, launch_timeout(l, o, 0), o->stop, why, sizeof why);
  size_t len = 0;
  char *text = rc == 0 ? mlc_read_file(ctx, file, 1 << 16, &len) : NULL;
  cJSON *j = text ? cJSON_ParseWithLength(text, len) : NULL;
  const cJSON *cpu = cJSON_GetObjectItemCaseSensitive(j, "cpu");
  bool ok = cJSON_IsString(cpu);
  if (ok) {
    *out = *t;
    snprintf(out->cpu, sizeof out->cpu, "%s", cpu->valuestring);
  } else if (rc != 0) {
    mlc_error(ctx, NOLOC, "tune: the launcher's command `%s` %s", cmd, why[0] ? why : mlc_internf(ctx, "exited with status %d", rc));
  } else {
    mlc_clear_error(ctx);
    mlc_error(ctx, NOLOC, "tune: the launcher's command `%s` printed no target", cmd);
  }
  cJSON_Delete(j);
  free(text);
  remove_tree(dir, 0);
  free(dir);
  return ok;
}

/* the records of the results file, matched to the candidates in order */
static bool read_back(MlcCtx *ctx, const char *path, const MlcTuneCandidate *c, int n, MlcTuneResult *out,
                      MlcTuneTarget *on, const char *missing) {
  MlcTuneDB *db = mlc_tune_db_new();
  bool ok = access(path, F_OK) != 0 || mlc_tune_db_load(ctx, db, path, false);
  int k = 0;
  for (int i = 0; i < n && ok; i++) {
    const MlcTuneRecord *r = k < mlc_tune_db_size(db) ? mlc_tune_db_at(db, k) : NULL;
    /* a stopped measure leaves out the candidates it did not finish */
    if (!r || r->workload != c[i].workload || r->space != c[i].space || !r->decisions || !c[i].decisions ||
        strcmp(r->decisions, c[i].decisions) != 0) {
      snprintf(out[i].error, sizeof out[i].error, "%s", missing);
      continue;
    }
    out[i].seconds = r->seconds;
    if (r->error) snprintf(out[i].error, sizeof out[i].error, "%s", r->error);
    if (on) on[i] = r->target;
    k++;
  }
  mlc_tune_db_free(db);
  return ok;
}

bool mlc_tune_measure_launched(MlcCtx *ctx, const MlcTuneLauncher *l, const MlcTuneCandidate *c, int n,
                               const MlcTuneMeasureOptions *o, MlcTuneResult *out, MlcTuneTarget *on) {
  for (int i = 0; i < n; i++) out[i] = (MlcTuneResult){.seconds = -1};
  if (n <= 0) return true;
  char *dir = scratch_dir(ctx, o);
  if (!dir) return false;
  const char *cands = mlc_internf(ctx, "%s/candidates.jsonl", dir), *art = mlc_internf(ctx, "%s/artifact", dir),
             *results = mlc_internf(ctx, "%s/results.jsonl", dir);
  bool ok = mlc_tune_candidates_save(ctx, cands, c, n) && mlc_tune_build_artifact(ctx, cands, art, o);
  if (ok) {
    MlcStrBuf rest = {0};
    mlc_sb_puts(&rest, " tune-measure ");
    quote(&rest, art);
    mlc_sb_puts(&rest, " -o ");
    quote(&rest, results);
    measure_args(&rest, o);
    const char *cmd = launch_line(ctx, l, mlc_sb_cstr(&rest));
    mlc_vec_free(&rest);
    char why[128] = "";
    int rc = run_shell(cmd, launch_timeout(l, o, n), o->stop, why, sizeof why);
    const char *missing = rc == 0 ? "no result" : why[0] ? mlc_internf(ctx, "no result: the launch %s", why)
                                                         : mlc_internf(ctx, "no result: the launch exited with status %d", rc);
    ok = read_back(ctx, results, c, n, out, on, missing);
    bool none = true;
    for (int i = 0; i < n; i++) none = none && out[i].seconds <= 0 && !strncmp(out[i].error, "no result", 9);
    /* a launcher that measured nothing is broken (or stopped): an error
     * for the run, not n failed records that would never be measured again */
    if (ok && none && !(o->stop && *o->stop))
      ok = mlc_error(ctx, NOLOC, "tune: the launcher's command `%s` brought no results back (%s)", cmd, missing);
  }
  remove_tree(dir, 1);
  free(dir);
  return ok;
}
