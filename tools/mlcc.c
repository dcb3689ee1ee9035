/* mlcc.c - the command line: `mlcc fmt` prints a TVMScript file in canonical
 * form (or, with --check, tells whether it already is), `mlcc equal` tells
 * whether two files hold structurally equal modules and, if not, where they
 * first differ.
 *
 * The tool is a thin shell over the library: every decision about the text is
 * made by the reader, printer and equality; this file only moves bytes and
 * turns the context's one error into `file:line:col: error: ...` plus an exit
 * status.  Exit statuses: 0 yes/success, 1 no (not canonical, modules differ),
 * 2 error (bad usage, unreadable or malformed input). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mlcc/mlcc.h"

#define MLCC_VERSION "0.1.0"
/* No model text is anywhere near this; the bound keeps a stray multi-gigabyte
 * file from being read into memory whole. */
#define MLCC_MAX_INPUT ((size_t)64 << 20)

enum { EXIT_YES = 0, EXIT_NO = 1, EXIT_ERR = 2 };

/* ---- commands ------------------------------------------------------------ */

static int cmd_fmt(int argc, char **argv);
static int cmd_equal(int argc, char **argv);

/* name, handler, argument synopsis, one-line description */
#define MLCC_COMMANDS(X)                                                          \
  X("fmt", cmd_fmt, "[--check] FILE",                                             \
    "print FILE in canonical TVMScript; --check: print nothing, exit 1 if FILE differs") \
  X("equal", cmd_equal, "A B",                                                    \
    "exit 0 if A and B hold structurally equal modules, else show the first difference and exit 1")

typedef struct Command {
  const char *name;
  int (*run)(int argc, char **argv); /* argv after the command name */
  const char *synopsis, *help;
} Command;

static const Command commands[] = {
#define X(name, fn, syn, help) {name, fn, syn, help},
    MLCC_COMMANDS(X)
#undef X
};
#define N_COMMANDS (sizeof commands / sizeof commands[0])

static void usage(FILE *out) {
  fprintf(out, "usage: mlcc COMMAND ARGS...\n\ncommands:\n");
  for (size_t i = 0; i < N_COMMANDS; i++)
    fprintf(out, "  mlcc %s %s\n      %s\n", commands[i].name, commands[i].synopsis,
            commands[i].help);
  fprintf(out, "  mlcc --help | --version\n\n"
               "FILE may be - for standard input.  Exit status: 0 yes, 1 no, 2 error.\n");
}

/* A usage mistake: say what is wrong, then how it is used. */
static int bad_usage(const char *what, const char *arg) {
  fprintf(stderr, "mlcc: %s%s%s\n", what, arg ? ": " : "", arg ? arg : "");
  usage(stderr);
  return EXIT_ERR;
}

/* ---- input --------------------------------------------------------------- */

/* Print the context's error (with the source line and caret when known) on
 * stderr; always returns EXIT_ERR. */
static int report(const MlcCtx *ctx) {
  MlcStrBuf sb = {0};
  mlc_format_error(ctx, &sb);
  const char *s = mlc_sb_cstr(&sb);
  size_t n = strlen(s);
  fputs(s, stderr);
  if (n == 0 || s[n - 1] != '\n') fputc('\n', stderr);
  mlc_vec_free(&sb);
  return EXIT_ERR;
}

/* The text of `path` ("-" = stdin), malloc'd and NUL-terminated; *name is
 * what locations in it are called. */
static char *load_text(MlcCtx *ctx, const char *path, const char **name, size_t *len) {
  *name = mlc_intern(ctx, strcmp(path, "-") == 0 ? "<stdin>" : path);
  return mlc_read_file(ctx, path, MLCC_MAX_INPUT, len);
}

/* Read the module in `path`; NULL with the error in ctx.  *text_out, when
 * given, receives the raw text (caller frees). */
static MlcModule *load_module(MlcCtx *ctx, const char *path, char **text_out, size_t *len_out) {
  const char *name;
  size_t len = 0;
  char *text = load_text(ctx, path, &name, &len);
  if (!text) return NULL;
  MlcModule *m = mlc_read_module(ctx, name, text, len);
  if (text_out && m) {
    *text_out = text;
    *len_out = len;
  } else {
    free(text);
  }
  return m;
}

/* Write the whole buffer to stdout; false (after a message) on failure, e.g.
 * a closed pipe or a full disk. */
static bool write_stdout(const char *s, size_t n) {
  if (fwrite(s, 1, n, stdout) != n || fflush(stdout) != 0) {
    fprintf(stderr, "mlcc: cannot write output: %s\n", strerror(errno));
    return false;
  }
  return true;
}

/* ---- fmt ----------------------------------------------------------------- */

static int cmd_fmt(int argc, char **argv) {
  bool check = false;
  const char *path = NULL;
  for (int i = 0; i < argc; i++) {
    if (strcmp(argv[i], "--check") == 0) check = true;
    else if (!path && (argv[i][0] != '-' || argv[i][1] == '\0')) path = argv[i];
    else return bad_usage("fmt: unexpected argument", argv[i]);
  }
  if (!path) return bad_usage("fmt: missing FILE", NULL);

  MlcCtx *ctx = mlc_ctx_new();
  char *text = NULL;
  size_t len = 0;
  MlcModule *m = load_module(ctx, path, &text, &len);
  int rc = EXIT_YES;
  if (!m) {
    rc = report(ctx);
  } else {
    MlcStrBuf out = {0};
    mlc_print_module(m, &out);
    if (check) rc = (out.len == len && memcmp(out.data, text, len) == 0) ? EXIT_YES : EXIT_NO;
    else if (!write_stdout(mlc_sb_cstr(&out), out.len)) rc = EXIT_ERR;
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

static int cmd_equal(int argc, char **argv) {
  if (argc != 2) return bad_usage("equal: expected two files", NULL);
  if (strcmp(argv[0], "-") == 0 && strcmp(argv[1], "-") == 0)
    return bad_usage("equal: only one of the files can be standard input", NULL);

  /* one context for both: names are interned, and equality compares free
   * names (globals, ops) by pointer */
  MlcCtx *ctx = mlc_ctx_new();
  MlcModule *a = load_module(ctx, argv[0], NULL, NULL);
  MlcModule *b = a ? load_module(ctx, argv[1], NULL, NULL) : NULL;
  int rc;
  if (!a || !b) {
    rc = report(ctx);
  } else {
    MlcDiff diff = {0};
    if (mlc_module_equal_diff(a, b, &diff)) {
      rc = EXIT_YES;
    } else {
      MlcStrBuf out = {0};
      format_diff(&diff, &out);
      rc = write_stdout(mlc_sb_cstr(&out), out.len) ? EXIT_NO : EXIT_ERR;
      mlc_vec_free(&out);
    }
    mlc_diff_free(&diff);
  }
  mlc_ctx_free(ctx);
  return rc;
}

/* ---- main ---------------------------------------------------------------- */

int main(int argc, char **argv) {
  if (argc < 2) return bad_usage("missing command", NULL);
  const char *cmd = argv[1];
  if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
    usage(stdout);
    return EXIT_YES;
  }
  if (strcmp(cmd, "--version") == 0) {
    printf("mlcc %s\n", MLCC_VERSION);
    return EXIT_YES;
  }
  for (size_t i = 0; i < N_COMMANDS; i++)
    if (strcmp(cmd, commands[i].name) == 0) return commands[i].run(argc - 2, argv + 2);
  return bad_usage("unknown command", cmd);
}
