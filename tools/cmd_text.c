/* cmd_text.c - the commands on TVMScript text: `mlcc fmt` prints a file in
 * canonical form (or, with --check, tells whether it already is), `mlcc
 * equal` tells whether two files hold structurally equal modules and, if
 * not, where they first differ. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* ---- fmt ----------------------------------------------------------------- */

int cmd_fmt(int argc, char **argv) {
  bool check = false;
  const char *path = NULL;
  for (int i = 0; i < argc; i++) {
    if (strcmp(argv[i], "--check") == 0) check = true;
    else if (!path && (argv[i][0] != '-' || argv[i][1] == '\0')) path = argv[i];
    else return cli_bad_usage("fmt: unexpected argument", argv[i]);
  }
  if (!path) return cli_bad_usage("fmt: missing FILE", NULL);

  MlcCtx *ctx = mlc_ctx_new();
  char *text = NULL;
  size_t len = 0;
  MlcModule *m = cli_load_module(ctx, path, &text, &len);
  int rc = EXIT_YES;
  if (!m) {
    rc = cli_report(ctx);
  } else {
    MlcStrBuf out = {0};
    mlc_print_module(m, &out);
    if (check) rc = (out.len == len && memcmp(out.data, text, len) == 0) ? EXIT_YES : EXIT_NO;
    else if (!cli_write_stdout(mlc_sb_cstr(&out), out.len)) rc = EXIT_ERR;
    mlc_vec_free(&out);
  }
  free(text);
  mlc_ctx_free(ctx);
  return rc;
}

/* ---- equal --------------------------------------------------------------- */

/* "modules differ: function "f": <path>: <left> vs <right>" */
static void format_diff(const MlcDiff *d, MlcStrBuf *out) {
  mlc_sb_puts(out, "modules differ: ");
  if (d->func) mlc_sb_printf(out, "function \"%s\": ", d->func);
  if (d->path.len) mlc_sb_printf(out, "%.*s: ", (int)d->path.len, d->path.data);
  mlc_print_diff_side(d, false, out);
  mlc_sb_puts(out, " vs ");
  mlc_print_diff_side(d, true, out);
  mlc_sb_putc(out, '\n');
}

int cmd_equal(int argc, char **argv) {
  if (argc != 2) return cli_bad_usage("equal: expected two files", NULL);
  if (strcmp(argv[0], "-") == 0 && strcmp(argv[1], "-") == 0)
    return cli_bad_usage("equal: only one of the files can be standard input", NULL);

  /* one context for both: names are interned, and equality compares free
   * names (globals, ops) by pointer */
  MlcCtx *ctx = mlc_ctx_new();
  MlcModule *a = cli_load_module(ctx, argv[0], NULL, NULL);
  MlcModule *b = a ? cli_load_module(ctx, argv[1], NULL, NULL) : NULL;
  int rc;
  if (!a || !b) {
    rc = cli_report(ctx);
  } else {
    MlcDiff diff = {0};
    if (mlc_module_equal_diff(a, b, &diff)) {
      rc = EXIT_YES;
    } else {
      MlcStrBuf out = {0};
      format_diff(&diff, &out);
      rc = cli_write_stdout(mlc_sb_cstr(&out), out.len) ? EXIT_NO : EXIT_ERR;
      mlc_vec_free(&out);
    }
    mlc_diff_free(&diff);
  }
  mlc_ctx_free(ctx);
  return rc;
}

