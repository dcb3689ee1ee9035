/* cmd_onnx.c - `mlcc import` and `mlcc compile`: ONNX models in.
 *
 *   mlcc import MODEL.onnx [--input-shape NAME:DIMS]... [--input-value NAME=V,...]... [--input-seq NAME=LEN]...
 *       the imported module as TVMScript on stdout;
 *   mlcc compile MODEL.onnx -o DIR [--input-shape NAME:DIMS]... [--input-value NAME=V,...]... [--input-seq NAME=LEN]... [--embed-params]
 *                [--dump-after PASS] [--explain] [--no-default-schedule] [--target native|opencl|cuda]
 *       the deployment folder, exactly as `mlcc build MODULE.py -o DIR` makes it.
 * --input-shape fixes an input's shape (dims separated by 'x'), for models
 * exported with symbolic or unknown dims; --input-value fixes an input's
 * value (numbers separated by ','), which then is no input of the compiled
 * model: a sample rate or a mode switch that the model branches on;
 * --input-seq gives a sequence input's length (its elements become inputs
 * NAME[0], NAME[1], ..., shaped by --input-shape 'NAME[0]:DIMS'), or says
 * whether an optional input is `absent` or `present` (docs/onnx.md). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "mlcc/frontend.h"

#define MAX_SHAPES 64
#define MAX_VALUES 4096 /* numbers in all --input-value options together */

typedef struct OnnxArgs {
  const char *in, *out;
  CliModelFlags flags;
  MlcOnnxInputShape shapes[MAX_SHAPES];
  int n_shapes;
  MlcOnnxInputValue values[MAX_SHAPES];
  int n_values;
  MlcOnnxInputSeq seqs[MAX_SHAPES];
  int n_seqs;
  double numbers[MAX_VALUES];
  int n_numbers;
} OnnxArgs;

/* NAME=1.5,2,3: the numbers appended to a->numbers; the name cut later */
static bool parse_value(OnnxArgs *a, const char *s, MlcOnnxInputValue *out) {
  const char *eq = strchr(s, '=');
  if (!eq || eq == s || !eq[1]) return false;
  out->name = s;
  out->values = a->numbers + a->n_numbers;
  out->n = 0;
  const char *p = eq + 1;
  while (*p) {
    if (a->n_numbers == MAX_VALUES) return false;
    errno = 0;
    char *end;
    double v = strtod(p, &end);
    if (errno || end == p) return false;
    a->numbers[a->n_numbers++] = v;
    out->n++;
    if (*end == ',') end++;
    else if (*end) return false;
    p = end;
  }
  return true;
}

/* NAME:1x3x224x224 */
static bool parse_shape(const char *s, MlcOnnxInputShape *out) {
  const char *colon = strrchr(s, ':');
  if (!colon || colon == s) return false;
  out->name = s;
  out->ndim = 0;
  const char *p = colon + 1;
  if (!*p) return true; /* a scalar */
  while (*p) {
    if (out->ndim == 32 || *p < '0' || *p > '9') return false;
    errno = 0;
    char *end;
    long long v = strtoll(p, &end, 10);
    if (errno || v < 0) return false;
    out->dims[out->ndim++] = v;
    if (*end == 'x') end++;
    else if (*end) return false;
    p = end;
  }
  return true;
}

/* NAME=LEN, NAME=absent or NAME=present; the name cut later */
static bool parse_seq(const char *s, MlcOnnxInputSeq *out) {
  const char *eq = strchr(s, '=');
  if (!eq || eq == s || !eq[1]) return false;
  out->name = s, out->length = 0, out->absent = !strcmp(eq + 1, "absent");
  if (out->absent || !strcmp(eq + 1, "present")) return true;
  errno = 0;
  char *end;
  long v = strtol(eq + 1, &end, 10);
  if (errno || *end || v < 0 || v > 65536 || eq[1] < '0' || eq[1] > '9') return false;
  out->length = (int)v;
  return true;
}

static int parse(OnnxArgs *a, int argc, char **argv, const char *cmd, bool want_out) {
  for (int i = 0; i < argc; i++) {
    const char *s = argv[i];
    bool next = i + 1 < argc;
    if (want_out && !strcmp(s, "-o") && next) a->out = argv[++i];
    else if (want_out && !strcmp(s, "--dump-after") && next) a->flags.dump_after = argv[++i];
    else if (want_out && !strcmp(s, "--embed-params")) a->flags.embed = true;
    else if (want_out && !strcmp(s, "--explain")) a->flags.explain = true;
    else if (want_out && !strcmp(s, "--no-default-schedule")) a->flags.no_schedule = true;
    else if (want_out && !strcmp(s, "--target") && next) {
      const char *t = argv[++i];
      if (!strcmp(t, "opencl")) a->flags.gpu = MLC_GPU_OPENCL;
      else if (!strcmp(t, "cuda")) a->flags.gpu = MLC_GPU_CUDA;
      else if (strcmp(t, "native") != 0) return cli_bad_usage("compile: --target takes native, opencl or cuda", t);
    }
    else if (want_out && !strcmp(s, "--records") && next) {
      if (a->flags.n_records == 16) return cli_bad_usage("compile: at most 16 --records files", argv[i + 1]);
      a->flags.records[a->flags.n_records++] = argv[++i];
    }
    else if (!strcmp(s, "--input-shape") && next) {
      if (a->n_shapes == MAX_SHAPES) return cli_bad_usage("too many --input-shape options", NULL);
      if (!parse_shape(argv[++i], &a->shapes[a->n_shapes]))
        return cli_bad_usage("--input-shape takes NAME:DIMS, e.g. x:1x3x224x224", argv[i]);
      a->n_shapes++;
    } else if (!strcmp(s, "--input-value") && next) {
      if (a->n_values == MAX_SHAPES) return cli_bad_usage("too many --input-value options", NULL);
      if (!parse_value(a, argv[++i], &a->values[a->n_values]))
        return cli_bad_usage("--input-value takes NAME=V[,V...], e.g. sr=16000", argv[i]);
      a->n_values++;
    } else if (!strcmp(s, "--input-seq") && next) {
      if (a->n_seqs == MAX_SHAPES) return cli_bad_usage("too many --input-seq options", NULL);
      if (!parse_seq(argv[++i], &a->seqs[a->n_seqs]))
        return cli_bad_usage("--input-seq takes NAME=LEN (0 to 65536), NAME=absent or NAME=present", argv[i]);
      a->n_seqs++;
    } else if (!a->in && s[0] != '-') a->in = s;
    else {
      fprintf(stderr, "mlcc: %s: unexpected argument '%s'\n", cmd, s);
      return EXIT_ERR;
    }
  }
  if (!a->in) return cli_bad_usage("missing MODEL.onnx", NULL);
  if (want_out && !a->out) return cli_bad_usage("missing -o DIR", NULL);
  return EXIT_YES;
}

/* the names in shapes[] point into argv as NAME:DIMS; cut them at the colon */
static MlcModule *import(MlcCtx *ctx, OnnxArgs *a) {
  for (int i = 0; i < a->n_shapes; i++) {
    const char *colon = strrchr(a->shapes[i].name, ':');
    a->shapes[i].name = mlc_intern_n(ctx, a->shapes[i].name, (size_t)(colon - a->shapes[i].name));
  }
  for (int i = 0; i < a->n_values; i++) {
    const char *eq = strchr(a->values[i].name, '=');
    a->values[i].name = mlc_intern_n(ctx, a->values[i].name, (size_t)(eq - a->values[i].name));
  }
  for (int i = 0; i < a->n_seqs; i++) {
    const char *eq = strchr(a->seqs[i].name, '=');
    a->seqs[i].name = mlc_intern_n(ctx, a->seqs[i].name, (size_t)(eq - a->seqs[i].name));
  }
  MlcOnnxOptions opt = {.shapes = a->shapes, .n_shapes = a->n_shapes, .values = a->values, .n_values = a->n_values,
                        .seqs = a->seqs, .n_seqs = a->n_seqs,
                        /* the GPU targets' executor runs no loops: unroll what the old cap allowed */
                        .unroll_steps = a->flags.gpu ? 4096 : 0};
  return mlc_onnx_import_file(ctx, a->in, &opt);
}

int cmd_import(int argc, char **argv) {
  OnnxArgs a = {0};
  int rc = parse(&a, argc, argv, "import", false);
  if (rc != EXIT_YES) return rc;
  MlcCtx *ctx = mlc_ctx_new();
  MlcModule *m = import(ctx, &a);
  if (m) {
    MlcStrBuf sb = {0};
    mlc_print_module(m, &sb);
    rc = cli_write_stdout(mlc_sb_cstr(&sb), sb.len) ? EXIT_YES : EXIT_ERR;
    mlc_vec_free(&sb);
  } else {
    rc = cli_report(ctx);
  }
  mlc_ctx_free(ctx);
  return rc;
}

int cmd_compile(int argc, char **argv) {
  OnnxArgs a = {0};
  int rc = parse(&a, argc, argv, "compile", true);
  if (rc != EXIT_YES) return rc;
  MlcCtx *ctx = mlc_ctx_new();
  MlcModule *m = import(ctx, &a);
  rc = m ? cli_build_model(ctx, m, a.out, &a.flags) : cli_report(ctx);
  mlc_ctx_free(ctx);
  return rc;
}
