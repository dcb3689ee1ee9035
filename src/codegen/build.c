/* build.c - the build driver: write the generated C next to the output and
 * run the system C compiler on it.
 *
 * The compiler is $CC (or "cc"); its messages are captured and, when it
 * fails, returned in the error together with the path of the .c file, so a
 * user can open the file the message talks about.  Every output is written
 * under a new name beside its path and put in place only when the whole
 * build succeeded (support's MlcOutFile), so a failed build never truncates
 * or removes what an earlier one left. */
#include "c_model.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

enum { MAX_LINK = 16, MAX_ARGS = 64 + MAX_LINK, MAX_OUTPUT = 16 * 1024 };

/* split a command line on blanks (no quoting: compiler paths with spaces go
 * through a wrapper script) */
static int split(char *s, char **argv, int at, int cap) {
  for (char *tok = strtok(s, " \t"); tok && at < cap - 1; tok = strtok(NULL, " \t")) argv[at++] = tok;
  return at;
}

/* Run argv, collecting stdout+stderr into out; returns the exit status, or
 * -1 with errno-style text in out when it could not run. */
static int run(char **argv, MlcStrBuf *out) {
  int pipefd[2];
  if (pipe(pipefd) != 0) {
    mlc_sb_printf(out, "cannot create a pipe: %s", strerror(errno));
    return -1;
  }
  pid_t pid = fork();
  if (pid < 0) {
    mlc_sb_printf(out, "cannot fork: %s", strerror(errno));
    close(pipefd[0]);
    close(pipefd[1]);
    return -1;
  }
  if (pid == 0) {
    dup2(pipefd[1], 1);
    dup2(pipefd[1], 2);
    close(pipefd[0]);
    close(pipefd[1]);
    execvp(argv[0], argv);
    fprintf(stderr, "cannot run '%s': %s\n", argv[0], strerror(errno));
    _exit(127);
  }
  close(pipefd[1]);
  char buf[4096];
  ssize_t n;
  while ((n = read(pipefd[0], buf, sizeof buf)) > 0 || (n < 0 && errno == EINTR)) {
    if (n > 0 && out->len < MAX_OUTPUT) {
      mlc__vec_reserve((void **)&out->data, &out->cap, out->len + (size_t)n + 1, 1);
      memcpy(out->data + out->len, buf, (size_t)n);
      out->len += (size_t)n;
      out->data[out->len] = 0;
    }
  }
  close(pipefd[0]);
  int status;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return -1;
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

/* The -march flag of the native target: the build machine's own, unless
 * $MLC_MARCH names another (MLC_MARCH=x86-64-v3 builds for any x86-64 CPU
 * with AVX2 and FMA, which is how one machine checks that results do not
 * depend on AVX-512).  NULL + error when $MLC_MARCH is not a plain name. */
static char *native_march(MlcCtx *ctx, char *buf, size_t cap) {
  const char *env = getenv("MLC_MARCH");
  if (!env || !*env) env = "native";
  bool plain = strlen(env) < cap - 8;
  for (const char *c = env; plain && *c; c++)
    plain = (*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '-' || *c == '_' || *c == '.';
  if (!plain)
    return mlc_error(ctx, (MlcLoc){0}, "MLC_MARCH='%.40s' is not a target name (e.g. native, x86-64-v3)", env), NULL;
  snprintf(buf, cap, "-march=%s", env);
  return buf;
}

/* path made absolute (malloc'd), NULL when the working directory is unknown */
static char *absolute(const char *path) {
  if (path[0] == '/') return mlc_xstrdup(path);
  char cwd[4096];
  if (!getcwd(cwd, sizeof cwd)) return NULL;
  MlcStrBuf sb = {0};
  mlc_sb_printf(&sb, "%s/%s", cwd, path);
  char *out = mlc_xstrdup(mlc_sb_cstr(&sb));
  mlc_vec_free(&sb);
  return out;
}

/* The user's files to build in (MlcBuildOptions.link), checked: each a
 * readable .c, .o, .a or .so file; a shared library by its absolute path,
 * which the linker records, so model.so finds it wherever it is loaded
 * from.  malloc'd strings in out. */
static bool link_inputs(MlcCtx *ctx, const MlcBuildOptions *opt, char **out, int *n) {
  static const char *const kinds[] = {".c", ".o", ".a", ".so"};
  if (opt->n_link < 0 || opt->n_link > MAX_LINK)
    return mlc_error(ctx, (MlcLoc){0}, "at most %d files can be linked into one build", MAX_LINK);
  for (int i = 0; i < opt->n_link; i++) {
    const char *f = opt->link[i];
    size_t len = f ? strlen(f) : 0;
    bool known = false;
    for (size_t k = 0; k < sizeof kinds / sizeof *kinds && !known; k++)
      known = len > strlen(kinds[k]) && !strcmp(f + len - strlen(kinds[k]), kinds[k]);
    MlcLoc at = {mlc_intern(ctx, f ? f : ""), 0, 0};
    bool ok = known && f[0] != '-';
    if (!ok) mlc_error(ctx, at, "a file to link must be a C file (.c), an object (.o) or a library (.a, .so)");
    else if (access(f, R_OK) != 0) ok = mlc_error(ctx, at, "cannot read the file to link: %s", strerror(errno));
    char *path = NULL;
    if (ok && !strcmp(f + len - 3, ".so")) {
      path = absolute(f);
      if (!path) ok = mlc_error(ctx, at, "cannot find the working directory: %s", strerror(errno));
    } else if (ok) {
      path = mlc_xstrdup(f);
    }
    if (!ok) {
      for (int j = 0; j < *n; j++) free(out[j]);
      *n = 0;
      return false;
    }
    out[(*n)++] = path;
  }
  return true;
}

static bool compile_with(MlcCtx *ctx, const char *cpath, const char *shown, const char *out_so,
                         const MlcBuildOptions *opt, char **link, int n_link);

/* Compile the C file cpath (and the files to link) into the shared object
 * out_so; an error names the C file as shown, where it will be kept. */
static bool compile_so(MlcCtx *ctx, const char *cpath, const char *shown, const char *out_so,
                       const MlcBuildOptions *opt) {
  char *link[MAX_LINK];
  int n_link = 0;
  if (!link_inputs(ctx, opt, link, &n_link)) return false;
  bool ok = compile_with(ctx, cpath, shown, out_so, opt, link, n_link);
  for (int i = 0; i < n_link; i++) free(link[i]);
  return ok;
}

static bool compile_with(MlcCtx *ctx, const char *cpath, const char *shown, const char *out_so,
                         const MlcBuildOptions *opt, char **link, int n_link) {
  MlcStrBuf log = {0};
  const char *cc = opt->cc ? opt->cc : getenv("CC");
  if (!cc || !*cc) cc = "cc";
  char *ccbuf = mlc_xstrdup(cc), *flags = mlc_xstrdup(opt->extra_cflags ? opt->extra_cflags : "");
  char *argv[MAX_ARGS];
  int argc = split(ccbuf, argv, 0, MAX_ARGS);
  /* -ffp-contract=fast: a*b + c becomes one FMA instruction (one rounding
   * instead of two), which halves a matmul's arithmetic instructions; it
   * is GCC's default in GNU mode, spelled out so any compiler does it */
  const char *fixed[] = {"-std=gnu11", "-O3", "-ffp-contract=fast", "-fPIC", "-shared", "-fvisibility=hidden", "-w"};
  for (size_t i = 0; i < sizeof fixed / sizeof *fixed && argc < MAX_ARGS - 8; i++) argv[argc++] = (char *)fixed[i];
  char march[96];
  if (opt->target == MLC_TARGET_NATIVE && !(argv[argc++] = native_march(ctx, march, sizeof march))) {
    free(ccbuf);
    free(flags);
    return false;
  }
  argc = split(flags, argv, argc, MAX_ARGS - 6 - n_link);
  argv[argc++] = "-o";
  argv[argc++] = (char *)out_so;
  argv[argc++] = (char *)cpath;
  /* a library the model only refers to weakly (the extern functions it
   * looks up) must still be recorded as needed */
  if (n_link) argv[argc++] = "-Wl,--no-as-needed";
  for (int i = 0; i < n_link; i++) argv[argc++] = link[i];
  argv[argc++] = "-lm";
  argv[argc] = NULL;
  int status = argc > 0 ? run(argv, &log) : -1;
  bool ok = status == 0;
  if (!ok)
    mlc_error(ctx, (MlcLoc){0}, "C compiler '%s' failed (status %d) on the generated file %s (kept):\n%s", cc, status, shown,
              mlc_sb_cstr(&log));
  free(ccbuf);
  free(flags);
  mlc_vec_free(&log);
  return ok;
}

/* The outputs of a build: each written beside its path and put in place
 * only when the whole build succeeded, so a failed build leaves the files of
 * an earlier one as they were.  The generated C is the exception a person
 * needs: when the compiler fails, it stays under its new name, which the
 * error names. */
enum { OUT_C, OUT_SO, OUT_H, OUT_PARAMS, N_OUT };

typedef struct Outputs {
  MlcOutFile f[N_OUT];
  bool begun[N_OUT];
} Outputs;

static bool begin(MlcCtx *ctx, Outputs *o, int which, const char *path) {
  return o->begun[which] = mlc_out_begin(ctx, path, &o->f[which]);
}

static bool write_out(MlcCtx *ctx, Outputs *o, int which, const char *path, const MlcStrBuf *text) {
  return begin(ctx, o, which, path) && mlc_out_write(ctx, &o->f[which], text->data ? text->data : "", text->len);
}

/* where the C file stays when the compiler fails: at its path when nothing
 * was there, else under its new name */
static const char *kept_c(const MlcOutFile *c) { return c->existed ? c->write_to : c->path; }

/* commit every begun output when ok; otherwise discard them, but keep the C
 * file (kept_c) when the compiler was what failed */
static bool finish(MlcCtx *ctx, Outputs *o, bool ok, bool compiler_failed) {
  for (int i = 0; i < N_OUT; i++) {
    if (!o->begun[i]) continue;
    if (ok) ok = mlc_out_commit(ctx, &o->f[i]);
    else if (i == OUT_C && compiler_failed && !o->f[i].existed) mlc_out_commit(ctx, &o->f[i]);
    else if (i == OUT_C && compiler_failed) mlc_out_abandon(&o->f[i]);
    else mlc_out_discard(&o->f[i]);
  }
  return ok;
}

/* the C file, then the compiler from it to the shared object */
static bool write_and_compile(MlcCtx *ctx, Outputs *o, const char *cpath, const MlcStrBuf *src, const char *so,
                              const MlcBuildOptions *opt, bool *compiler_failed) {
  if (!write_out(ctx, o, OUT_C, cpath, src) || !begin(ctx, o, OUT_SO, so)) return false;
  *compiler_failed = !compile_so(ctx, o->f[OUT_C].write_to, kept_c(&o->f[OUT_C]), o->f[OUT_SO].write_to, opt);
  return !*compiler_failed;
}

bool mlc_build_shared(MlcCtx *ctx, const MlcModule *m, const char *out_so, const MlcBuildOptions *opt) {
  MlcBuildOptions dflt = {0};
  if (!opt) opt = &dflt;
  size_t n = strlen(out_so);
  MlcStrBuf cpath = {0}, src = {0};
  if (n > 3 && !strcmp(out_so + n - 3, ".so")) mlc_sb_printf(&cpath, "%.*s.c", (int)(n - 3), out_so);
  else mlc_sb_printf(&cpath, "%s.c", out_so);
  Outputs o = {0};
  bool compiler_failed = false;
  bool ok = (opt->gpu == MLC_GPU_NONE ? mlc_codegen_c(ctx, m, &src) : mlc_codegen_gpu_module(ctx, m, opt->gpu, &src)) &&
            write_and_compile(ctx, &o, mlc_sb_cstr(&cpath), &src, out_so, opt, &compiler_failed);
  ok = finish(ctx, &o, ok, compiler_failed);
  mlc_vec_free(&cpath);
  mlc_vec_free(&src);
  return ok;
}

/* params.bin: the 32-byte header of runtime.h, little endian, then the payload */
static void params_file(const void *payload, size_t nbytes, MlcStrBuf *out) {
  uint8_t head[MLCRT_PARAMS_HEADER] = {0};
  uint64_t fields[3] = {1u /* version, then a zero uint32 */, nbytes, c_fnv1a64(payload, nbytes)};
  memcpy(head, MLCRT_PARAMS_MAGIC, 8);
  for (int f = 0; f < 3; f++)
    for (int b = 0; b < 8; b++) head[8 + 8 * f + b] = (uint8_t)(fields[f] >> (8 * b));
  mlc__vec_reserve((void **)&out->data, &out->cap, sizeof head + nbytes + 1, 1);
  memcpy(out->data, head, sizeof head);
  if (nbytes) memcpy(out->data + sizeof head, payload, nbytes);
  out->len = sizeof head + nbytes;
}

/* model.h, params.bin (unless embedded), model.c and model.so under dir */
static bool write_model(MlcCtx *ctx, const MlcModule *m, const char *dir, const MlcBuildOptions *opt,
                        const MlcModelOptions *mo, Outputs *o, bool *compiler_failed) {
  MlcStrBuf path[N_OUT] = {{0}}, src = {0}, hdr = {0}, params = {0};
  static const char *const names[N_OUT] = {"model.c", "model.so", "model.h", "params.bin"};
  for (int i = 0; i < N_OUT; i++) mlc_sb_printf(&path[i], "%s/%s", dir, names[i]);
  void *payload = NULL;
  size_t nbytes = 0;
  MlcModelOptions mol = *mo;
  mol.linked_externs = mo->linked_externs || opt->n_link > 0;
  bool ok = c_model_files(ctx, m, &mol, &src, &hdr) && write_out(ctx, o, OUT_H, mlc_sb_cstr(&path[OUT_H]), &hdr);
  if (ok && !mo->embed_params) {
    ok = mlc_model_params(ctx, m, &payload, &nbytes);
    if (ok) params_file(payload, nbytes, &params);
    ok = ok && write_out(ctx, o, OUT_PARAMS, mlc_sb_cstr(&path[OUT_PARAMS]), &params);
  }
  ok = ok && write_and_compile(ctx, o, mlc_sb_cstr(&path[OUT_C]), &src, mlc_sb_cstr(&path[OUT_SO]), opt,
                               compiler_failed);
  free(payload);
  for (int i = 0; i < N_OUT; i++) mlc_vec_free(&path[i]);
  mlc_vec_free(&src);
  mlc_vec_free(&hdr);
  mlc_vec_free(&params);
  return ok;
}

bool mlc_build_model(MlcCtx *ctx, const MlcModule *m, const char *dir, const MlcBuildOptions *opt,
                     const MlcModelOptions *mo) {
  MlcBuildOptions dflt = {0};
  MlcModelOptions mdflt = {0};
  if (!opt) opt = &dflt;
  if (!mo) mo = &mdflt;
  MlcModelOptions with_gpu = *mo;
  if (with_gpu.gpu == MLC_GPU_NONE) with_gpu.gpu = opt->gpu;
  mo = &with_gpu;
  bool created = mkdir(dir, 0777) == 0;
  if (!created && errno != EEXIST)
    return mlc_error(ctx, (MlcLoc){mlc_intern(ctx, dir), 0, 0}, "cannot create the directory: %s", strerror(errno));
  Outputs o = {0};
  bool compiler_failed = false;
  bool ok = write_model(ctx, m, dir, opt, mo, &o, &compiler_failed);
  ok = finish(ctx, &o, ok, compiler_failed);
  /* a folder this build made goes again when the build failed (rmdir
   * leaves it when the kept C file is inside) */
  if (!ok && created) rmdir(dir);
  return ok;
}
