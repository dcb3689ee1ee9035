/* build_util.h - what the tests that read modules, build them into a
 * scratch directory and load the result share (test_lower_compact.c,
 * test_model_build.c, test_graph_e2e.c): the context's error printed as a
 * diagnostic, a module read from text or from a file, the scratch
 * directory's making and removal, and a module built into a shared object
 * there and loaded.
 *
 * Header-only (static inline functions) like rand_util.h, since each test
 * is one program; every function takes the test's context explicitly. */
#ifndef MLCC_TEST_BUILD_UTIL_H
#define MLCC_TEST_BUILD_UTIL_H

#include "mlcc/codegen.h"
#include "mlcc/runtime.h"
#include "mlcc/text.h"

#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* the context's error, formatted with its source line, as a diagnostic
 * about what failed */
static inline void bu_print_error(MlcCtx *ctx, const char *what) {
  MlcStrBuf sb = {0};
  mlc_format_error(ctx, &sb);
  printf("    %s: %s\n", what, mlc_sb_cstr(&sb));
  mlc_vec_free(&sb);
}

/* the module written in text, its locations naming file; NULL (printed)
 * when it does not read */
static inline const MlcModule *bu_read_text(MlcCtx *ctx, const char *file, const char *text) {
  mlc_clear_error(ctx);
  const MlcModule *m = mlc_read_module(ctx, file, text, strlen(text));
  if (!m) bu_print_error(ctx, "reading");
  return m;
}

/* the module in the file at path; NULL (printed) when it does not read */
static inline const MlcModule *bu_read_path(MlcCtx *ctx, const char *path) {
  size_t len = 0;
  mlc_clear_error(ctx);
  char *text = mlc_read_file(ctx, path, (size_t)1 << 24, &len);
  const MlcModule *m = text ? mlc_read_module(ctx, mlc_intern(ctx, path), text, len) : NULL;
  free(text);
  if (!m) bu_print_error(ctx, path);
  return m;
}

/* a fresh directory STEM.XXXXXX under $TMPDIR (or /tmp), its path in dir */
static inline bool bu_make_tmpdir(char *dir, size_t cap, const char *stem) {
  const char *base = getenv("TMPDIR");
  snprintf(dir, cap, "%s/%s.XXXXXX", base && *base ? base : "/tmp", stem);
  return mkdtemp(dir) != NULL;
}

/* remove dir with the files in it (what a build leaves is flat) */
static inline void bu_remove_dir(const char *dir) {
  DIR *d = opendir(dir);
  if (!d) return;
  char path[8192];
  for (struct dirent *e; (e = readdir(d));) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    unlink(path);
  }
  closedir(d);
  rmdir(dir);
}

/* Build m into DIR/STEM.so and load it; NULL (printed) on failure.  The
 * files are removed once loaded: the loaded object stays mapped. */
static inline MlcrtModule *bu_build_and_load(MlcCtx *ctx, const MlcModule *m, const char *dir, const char *stem,
                                             const MlcBuildOptions *opt) {
  char so[8192], c[8192];
  snprintf(so, sizeof so, "%s/%s.so", dir, stem);
  snprintf(c, sizeof c, "%s/%s.c", dir, stem);
  mlc_clear_error(ctx);
  MlcrtModule *mod = NULL;
  if (!mlc_build_shared(ctx, m, so, opt)) bu_print_error(ctx, stem);
  else if (mlcrt_module_load(so, &mod) != 0) printf("    %s: loading: %s\n", stem, mlcrt_last_error()), mod = NULL;
  unlink(so);
  unlink(c);
  return mod;
}

#endif
