/* mlcc.c - the command line: the command table, usage, error reporting and
 * input loading shared by the commands (tools/cmd_*.c).
 *
 * The tool is a thin shell over the library: every decision is made by the
 * library; the commands only move bytes and turn the context's one error into
 * `file:line:col: error: ...` plus an exit status. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#define MLCC_VERSION "0.1.0"

/* ---- commands ------------------------------------------------------------ */


/* name, handler, options that take a value (space-separated), argument
 * synopsis, description */
#define MLCC_COMMANDS(X)                                                          \
  X("fmt", cmd_fmt, "", "[--check] FILE",                                         \
    "print FILE in canonical TVMScript; --check: print nothing, exit 1 if FILE differs") \
  X("equal", cmd_equal, "", "A B",                                                    \
    "exit 0 if A and B hold structurally equal modules, else show the first difference and exit 1") \
  X("build", cmd_build, "-o --params --entry --dump-after --target --link --records", "MODULE.py -o LIB.so [--target native|generic|opencl|cuda] [--link FILE]... [--records DB.jsonl]...\n"     \
    "  mlcc build MODULE.py -o DIR [--params W.npz] [--embed-params] [--entry F] [--dump-after PASS] [--explain]\n" \
    "      [--no-default-schedule] [--target native|generic|opencl|cuda] [--link FILE]... [--records DB.jsonl]...", \
    "compile every prim func of MODULE.py into a shared library (the generated .c is kept beside it;\n" \
    "      opencl/cuda: GPU kernels, their source also kept as LIB.cl/LIB.cu, run through the runtime);\n" \
    "      with -o DIR, compile graph function F (default main) as a model: DIR/model.{c,h,so} and\n" \
    "      params.bin (the weights bound from W.npz by parameter name; --embed-params: inside model.so);\n" \
    "      --link builds a C file, object or library in (its functions serve call_extern and, named\n" \
    "      after the extern with '.' as '_', call_dps_packed)") \
  X("run", cmd_run, "--func --in --out --fill --threads --profile-json", "LIB.so [--func F] [--in X.npy]... [--out Y.npy]... [--fill zeros|ones|random] [--time]\n" \
    "  mlcc run DIR [--in X.npy|--in IN.npz|--fill random] [--out Y.npz] [--time] [--threads N]\n" \
    "               [--profile] [--profile-json P.json]",                                  \
    "call F of a compiled library on .npy inputs, write its outputs, optionally time it;\n" \
    "      with a model DIR, bind one .npy per input in order or an .npz by input name (or make them\n" \
    "      with --fill), and save the outputs by name (without --out: print a summary of each);\n" \
    "      --profile prints the time per kernel, --profile-json writes it for `mlcc report`") \
  X("report", cmd_report, "-o", "PROFILE.json [TUNING.jsonl]... -o REPORT.html",                  \
    "draw a profile (and tuning records) as one self-contained HTML page with SVG charts") \
  X("schedule", cmd_schedule, "--func --seed --intrin", "MODULE.py SCRIPT.py [--func NAME] [--seed N] [--intrin FILE.py] [--trace]",     \
    "apply a schedule script to a prim func; print the result, or with --trace the trace (--intrin registers the NAME_desc/NAME_impl tensor intrinsics of FILE.py)") \
  X("import", cmd_import, "--input-shape --input-value --input-seq", "MODEL.onnx [--input-shape NAME:1x3x224x224]... [--input-value NAME=V,...]... [--input-seq NAME=LEN]...", \
    "import an ONNX model and print it as TVMScript (weights as constants)")             \
  X("compile", cmd_compile, "-o --input-shape --input-value --input-seq --dump-after --target --link --records", "MODEL.onnx -o DIR [--input-shape NAME:DIMS]... [--input-value NAME=V,...]... [--input-seq NAME=LEN]... [--embed-params]\n" \
    "      [--dump-after PASS] [--explain] [--no-default-schedule] [--target native|opencl|cuda] [--link FILE]... [--records DB.jsonl]...", \
    "import an ONNX model and build its deployment folder, as `build -o DIR` does (run it with `mlcc run DIR`);\n" \
    "      opencl/cuda: its kernels bound to GPU threads by the default GPU rule, run through the runtime") \
  X("tune", cmd_tune, "-o --trials --time-budget --threads --batch --seed --timeout --records --launcher --workdir", "MODEL.onnx|MODULE.py -o DB.jsonl [--trials N] [--time-budget 20m] [--threads N] [--batch N]\n" \
    "      [--seed N] [--timeout 10s] [--records MORE.jsonl]... [--flush-cache] [--launcher 'CMD'] [--workdir DIR]\n" \
    "  mlcc tune MODULE.py --print-space", \
    "search schedules for every kernel (design spaces, evolutionary search, XGBoost cost model, measured in\n" \
    "      a child process, or through --launcher CMD: srun, ssh node ...) and append the records to DB.jsonl;\n" \
    "      `build`/`compile --records DB.jsonl` apply them") \
  X("tune-build", cmd_tune_build, "-o --jobs --target", "CANDIDATES.jsonl -o ARTIFACT [--jobs N] [--target opencl|cuda]", \
    "replay and compile tuning candidates (JSON lines: program, trace, ...) into an artifact directory") \
  X("tune-measure", cmd_tune_measure, "-o --threads --timeout --repeat --min-repeat-ms --target", "ARTIFACT -o RESULTS.jsonl [--threads N] [--timeout 10s] [--repeat N]\n" \
    "      [--min-repeat-ms MS] [--flush-cache]\n" \
    "  mlcc tune-measure --print-target [--threads N] [--target opencl|cuda]", \
    "time an artifact's candidates on this machine and write tuning records (merge them with --records)")

typedef struct Command {
  const char *name;
  int (*run)(int argc, char **argv); /* argv after the command name */
  const char *value_opts, *synopsis, *help;
} Command;

static const Command commands[] = {
#define X(name, fn, opts, syn, help) {name, fn, opts, syn, help},
    MLCC_COMMANDS(X)
#undef X
};
#define N_COMMANDS (sizeof commands / sizeof commands[0])

static void command_usage(FILE *out, const Command *c) {
  fprintf(out, "  mlcc %s %s\n      %s\n", c->name, c->synopsis, c->help);
}

void cli_usage(FILE *out) {
  fprintf(out, "usage: mlcc COMMAND ARGS...\n\ncommands:\n");
  for (size_t i = 0; i < N_COMMANDS; i++) command_usage(out, &commands[i]);
  fprintf(out, "  mlcc help COMMAND | mlcc COMMAND --help\n      the usage of one command\n"
               "  mlcc --help | --version\n\n"
               "FILE may be - for standard input.  Exit status: 0 yes, 1 no, 2 error.\n");
}

static const Command *find_command(const char *name) {
  for (size_t i = 0; i < N_COMMANDS; i++)
    if (strcmp(name, commands[i].name) == 0) return &commands[i];
  return NULL;
}

static int command_help(const Command *c) {
  printf("usage:\n");
  command_usage(stdout, c);
  printf("\nFILE may be - for standard input.  Exit status: 0 yes, 1 no, 2 error.\n");
  return EXIT_YES;
}

/* is arg one of the space-separated options in list? */
static bool takes_value(const char *list, const char *arg) {
  size_t n = strlen(arg);
  for (const char *p = list; n && (p = strstr(p, arg)); p += n)
    if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == 0)) return true;
  return false;
}

/* the command running (its usage is what a bad argument of it shows) */
static const Command *running;

int cli_bad_usage(const char *what, const char *arg) {
  fprintf(stderr, "mlcc: %s%s%s\n", what, arg ? ": " : "", arg ? arg : "");
  if (running) {
    fprintf(stderr, "usage:\n");
    command_usage(stderr, running);
  } else {
    cli_usage(stderr);
  }
  return EXIT_ERR;
}

/* ---- input --------------------------------------------------------------- */

int cli_report(const MlcCtx *ctx) {
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

MlcModule *cli_load_module(MlcCtx *ctx, const char *path, char **text_out, size_t *len_out) {
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

bool cli_write_stdout(const char *s, size_t n) {
  if (fwrite(s, 1, n, stdout) != n || fflush(stdout) != 0) {
    fprintf(stderr, "mlcc: cannot write output: %s\n", strerror(errno));
    return false;
  }
  return true;
}

/* ---- main ---------------------------------------------------------------- */

int main(int argc, char **argv) {
  if (argc < 2) return cli_bad_usage("missing command", NULL);
  const char *cmd = argv[1];
  if (strcmp(cmd, "help") == 0 && argc > 2) {
    const Command *c = find_command(argv[2]);
    return c ? command_help(c) : cli_bad_usage("help: no command named", argv[2]);
  }
  if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
    cli_usage(stdout);
    return EXIT_YES;
  }
  if (strcmp(cmd, "--version") == 0) {
    printf("mlcc %s\n", MLCC_VERSION);
    return EXIT_YES;
  }
  const Command *c = find_command(cmd);
  if (!c) return cli_bad_usage("unknown command", cmd);
  for (int i = 2; i < argc; i++) {
    if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) return command_help(c);
    if (takes_value(c->value_opts, argv[i]) && i + 1 == argc) {
      fprintf(stderr, "mlcc %s: option '%s' needs a value\n", c->name, argv[i]);
      command_usage(stderr, c);
      return EXIT_ERR;
    }
    if (takes_value(c->value_opts, argv[i])) i++; /* its value may look like anything */
  }
  running = c;
  int rc = c->run(argc - 2, argv + 2);
  mlcrt_workspace_release();
  return rc;
}
