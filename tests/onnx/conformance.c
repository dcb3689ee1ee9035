/* conformance.c - the ONNX operator conformance runner.
 *
 * For each test folder of the suite (model.onnx + test_data_set_0/input_<i>.pb,
 * output_<i>.pb, each a TensorProto, or a SequenceProto or OptionalProto
 * where the graph's input or output i has that type, fed and compared as
 * its tensors in order): import the model (told the lengths, presence and
 * element shapes of the sequence and optional inputs the data holds), run the graph pipeline, build the
 * deployment form into a scratch folder, load it with the runtime, run it on
 * the inputs and compare with the expected outputs (floats: |got - want| <=
 * atol + rtol * |want| with atol = rtol = 1e-4 for float32/64, 1e-3 for
 * float16 and 1e-2 for bfloat16, NaN matching NaN; integers and bools
 * exactly; the float8/float4 types code for code, any NaN code matching
 * any other).  Each test runs in a child process, so a crash or a
 * hang (60 s) is one failed test, not the end of the run; -j runs several.
 *
 * A test is "unsupported" when mlcc refuses it with a message saying what it
 * does not support (an op, a type, an attribute), "failed" on any other
 * error or a wrong number, "passed" otherwise.  Prints one line per test and
 * the totals.  With --expect FILE (one test name per line), the run fails
 * when a listed test does not pass: that is how CI guards what passes.
 *
 * Usage: conformance [--suite DIR] [--work DIR] [-j N] [--filter TEXT]
 *                    [--expect FILE] [--write-passing FILE] [--quiet]
 *                    [--target opencl|cuda]
 * --quiet prints only failures and the totals; --target builds every model
 * for a GPU with its default GPU schedules (docs/gpu.md) and runs it there. */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mlcc/codegen.h"
#include "mlcc/lower.h"
#include "mlcc/frontend.h"
#include "mlcc/runtime.h"
#include "mlcc/schedule.h"
#include "mlcc/transform.h"

#define RTOL 1e-4
#define ATOL 1e-4
/* 16-bit floats carry 11 (float16) or 8 (bfloat16) significant bits.  mlcc
 * computes each 16-bit operation in float and rounds its result once (FMA
 * contraction may fuse a multiply and an add into one rounding; with
 * AVX512-FP16 the compiler does that in half precision), and sums (matmul, conv, reductions, softmax's denominator) accumulate in
 * float32 and round once at the end, as the reference does; what may still
 * differ is the float32 value just before that rounding (summation order,
 * FMA contraction, vector width), which can put the two results on either
 * side of a rounding boundary: one ulp apart.  One ulp is at most 2^-10 of
 * the value for float16 (9.8e-4) and 2^-7 for bfloat16 (7.8e-3), hence
 * rtol = atol = 1e-3 and 1e-2. */
#define TOL_F16 1e-3
#define TOL_BF16 1e-2
#define TIMEOUT_S 60
#define MAX_IO 32
#define MAX_FLAT 256 /* tensors of the inputs or outputs, sequences flattened */

typedef enum { PASSED, FAILED, UNSUPPORTED } Status;
static const char *const status_names[] = {"passed", "failed", "unsupported"};

typedef struct Options {
  const char *suite, *work, *filter, *expect, *write_passing, *target;
  int jobs;
  bool quiet;
} Options;

/* ---- one test, in the child ------------------------------------------------------ */

static Status report(char *reason, size_t cap, Status st, const char *fmt, ...) MLC_PRINTF(4, 5);
static Status report(char *reason, size_t cap, Status st, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(reason, cap, fmt, ap);
  va_end(ap);
  for (char *c = reason; *c; c++)
    if (*c == '\n' || *c == '\t') *c = ' ';
  return st;
}

/* an mlcc error: unsupported when it says so */
static Status from_ctx(MlcCtx *ctx, const char *stage, char *reason, size_t cap) {
  const char *msg = mlc_error_msg(ctx);
  bool unsupported = strstr(msg, "unsupported") || strstr(msg, "not supported") || strstr(msg, "does not support");
  return report(reason, cap, unsupported ? UNSUPPORTED : FAILED, "%s: %s", stage, msg);
}

static DLDataType dl_dtype(MlcDType t) {
  static const uint8_t codes[] = {[MLC_TC_INT] = kDLInt, [MLC_TC_UINT] = kDLUInt, [MLC_TC_FLOAT] = kDLFloat,
                                  [MLC_TC_BFLOAT] = kDLBfloat, [MLC_TC_BOOL] = kDLBool,
#define X(code, name, bits, eb, mb, bias, kind, dl) [code] = dl,
                                  MLC_MINIFLOATS(X)
#undef X
  };
  DLDataType d = {t.code < sizeof codes ? codes[t.code] : 255, (uint8_t)(t.code == MLC_TC_BOOL ? 8 : t.bits), 1};
  return d;
}

/* the minifloat dtype of a DLPack type code, or false */
static bool minifloat_of(DLDataType t, MlcDType *out) {
#define X(tc, name, nbits, eb, mb, bias, kind, dl) \
  if (t.code == (dl)) return *out = MLC_DT(tc, nbits, 1), true;
  MLC_MINIFLOATS(X)
#undef X
  return false;
}

static double element(const void *p, DLDataType t, int64_t i) {
  switch (t.code) {
  case kDLFloat:
    if (t.bits == 64) return ((const double *)p)[i];
    if (t.bits == 32) return ((const float *)p)[i];
    break;
  case kDLInt: /* sub-byte integers: a byte each, sign-extended */
    if (t.bits <= 8) return ((const int8_t *)p)[i];
    if (t.bits == 16) return ((const int16_t *)p)[i];
    if (t.bits == 32) return ((const int32_t *)p)[i];
    return (double)((const int64_t *)p)[i];
  case kDLUInt:
    if (t.bits <= 8) return ((const uint8_t *)p)[i];
    if (t.bits == 16) return ((const uint16_t *)p)[i];
    if (t.bits == 32) return ((const uint32_t *)p)[i];
    return (double)((const uint64_t *)p)[i];
  case kDLBool: return ((const uint8_t *)p)[i] != 0;
  }
  return NAN;
}

/* element i of IEEE half / bfloat16 data as a double */
static double element16(const void *p, DLDataType t, int64_t i) {
  uint16_t h = ((const uint16_t *)p)[i];
  return t.code == kDLBfloat ? mlc_bf16_to_f32(h) : mlc_f16_to_f32(h);
}

static Status compare(const DLTensor *got, const MlcTensorData *want, int k, char *reason, size_t cap) {
  DLDataType wt = dl_dtype(want->dtype);
  if (got->dtype.code != wt.code || got->dtype.bits != wt.bits)
    return report(reason, cap, FAILED, "output %d: dtype differs", k);
  if (got->ndim != want->ndim) return report(reason, cap, FAILED, "output %d: rank %d, expected %d", k, got->ndim, want->ndim);
  int64_t n = 1;
  for (int d = 0; d < want->ndim; d++) {
    if (got->shape[d] != want->shape[d])
      return report(reason, cap, FAILED, "output %d: dim %d is %lld, expected %lld", k, d,
                    (long long)got->shape[d], (long long)want->shape[d]);
    n *= want->shape[d];
  }
  const char *gp = (const char *)got->data + got->byte_offset;
  MlcDType mf;
  if (minifloat_of(wt, &mf)) { /* the same codes, any NaN matching any NaN */
    const uint8_t *a = (const uint8_t *)gp, *b = (const uint8_t *)want->data;
    for (int64_t i = 0; i < n; i++) {
      if (a[i] == b[i] || (isnan(mlc_minifloat_decode(mf, a[i])) && isnan(mlc_minifloat_decode(mf, b[i])))) continue;
      return report(reason, cap, FAILED, "output %d: element %lld is 0x%02x (%g), expected 0x%02x (%g)", k,
                    (long long)i, a[i], (double)mlc_minifloat_decode(mf, a[i]), b[i],
                    (double)mlc_minifloat_decode(mf, b[i]));
    }
    return PASSED;
  }
  bool half = (wt.code == kDLFloat || wt.code == kDLBfloat) && wt.bits == 16;
  double rtol = !half ? RTOL : wt.code == kDLFloat ? TOL_F16 : TOL_BF16, atol = half ? rtol : ATOL;
  for (int64_t i = 0; i < n; i++) {
    double a = half ? element16(gp, wt, i) : element(gp, wt, i);
    double b = half ? element16(want->data, wt, i) : element(want->data, wt, i);
    if (isnan(a) && isnan(b)) continue;
    bool ok = wt.code == kDLFloat || wt.code == kDLBfloat ? (a == b || fabs(a - b) <= atol + rtol * fabs(b)) : a == b;
    if (!ok) return report(reason, cap, FAILED, "output %d: element %lld is %.9g, expected %.9g", k, (long long)i, a, b);
  }
  return PASSED;
}

/* the .pb files of data set 0 named prefix_<i>.pb, in order, each read as
 * the kind of the graph's input or output i (io[0..n_io)) */
static int read_set(MlcCtx *ctx, const char *dir, const char *prefix, const MlcOnnxIo *io, int n_io,
                    MlcOnnxValue **out, char *reason, size_t cap) {
  int n = 0;
  for (; n < MAX_IO; n++) {
    char path[1024];
    snprintf(path, sizeof path, "%s/test_data_set_0/%s_%d.pb", dir, prefix, n);
    if (access(path, R_OK) != 0) break;
    out[n] = mlc_onnx_read_value_file(ctx, path, n < n_io ? io[n].kind : MLC_ONNX_TENSOR);
    if (!out[n]) {
      report(reason, cap, UNSUPPORTED, "test data: %s", mlc_error_msg(ctx));
      return -1;
    }
  }
  return n;
}

/* the values' tensors in order (a sequence's elements, an optional's value) */
static int flatten(MlcOnnxValue **v, int n, MlcTensorData **out) {
  int k = 0;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < v[i]->n; j++) {
      if (k == MAX_FLAT) return -1;
      out[k++] = v[i]->tensors[j];
    }
  return k;
}

/* import options telling the importer what the data says of the sequence
 * and optional inputs: their lengths, presence and element shapes.  The
 * elements of one sequence may differ in shape, so each gets the shape of
 * its data; the model's other inputs then do too, since a dim of theirs
 * named like an element's (N) is the element's at run time */
typedef struct SeqOptions {
  MlcOnnxOptions opt;
  MlcOnnxInputSeq seqs[MAX_IO];
  MlcOnnxInputShape shapes[MAX_FLAT];
} SeqOptions;

static const MlcOnnxOptions *seq_options(MlcCtx *ctx, const MlcOnnxIo *io, int n_io, MlcOnnxValue **ins, int n_in,
                                         SeqOptions *so) {
  memset(&so->opt, 0, sizeof so->opt);
  so->opt.seqs = so->seqs, so->opt.shapes = so->shapes;
  for (int i = 0; i < n_in && i < n_io; i++)
    if (io[i].kind != MLC_ONNX_TENSOR) so->seqs[so->opt.n_seqs++] = (MlcOnnxInputSeq){io[i].name, ins[i]->n, ins[i]->absent};
  if (!so->opt.n_seqs) return NULL;
  for (int i = 0; i < n_in && i < n_io; i++) {
    for (int j = 0; j < ins[i]->n && so->opt.n_shapes < MAX_FLAT; j++) {
      MlcOnnxInputShape *sh = &so->shapes[so->opt.n_shapes++];
      const MlcTensorData *d = ins[i]->tensors[j];
      sh->name = ins[i]->seq ? mlc_internf(ctx, "%s[%d]", io[i].name, j) : io[i].name;
      sh->ndim = d->ndim;
      for (int k = 0; k < d->ndim && k < 32; k++) sh->dims[k] = d->shape[k];
    }
  }
  return &so->opt;
}

static Status run_test(const Options *o, const char *name, char *reason, size_t cap) {
  char dir[1024], model[1100], out_dir[1100];
  snprintf(dir, sizeof dir, "%s/%s", o->suite, name);
  snprintf(model, sizeof model, "%s/model.onnx", dir);
  snprintf(out_dir, sizeof out_dir, "%s/%s", o->work, name);
  MlcCtx *ctx = mlc_ctx_new();
  MlcOnnxIo *gin, *gout;
  int n_gin, n_gout;
  if (!mlc_onnx_graph_io(ctx, model, &gin, &n_gin, &gout, &n_gout)) return from_ctx(ctx, "import", reason, cap);
  MlcOnnxValue *ins[MAX_IO], *outs[MAX_IO];
  int n_in = read_set(ctx, dir, "input", gin, n_gin, ins, reason, cap);
  int n_out = n_in < 0 ? -1 : read_set(ctx, dir, "output", gout, n_gout, outs, reason, cap);
  if (n_in < 0 || n_out < 0) return UNSUPPORTED;
  SeqOptions so;
  MlcModule *m = mlc_onnx_import_file(ctx, model, seq_options(ctx, gin, n_gin, ins, n_in, &so));
  if (!m) return from_ctx(ctx, "import", reason, cap);
  MlcSchTarget target; /* the default schedules, as `mlcc compile` applies them */
  mlc_sch_target_host(&target);
  /* --target opencl|cuda: the GPU default schedules instead, as there */
  MlcGpuApi gpu = !o->target ? MLC_GPU_NONE : !strcmp(o->target, "cuda") ? MLC_GPU_CUDA : MLC_GPU_OPENCL;
  m = mlc_graph_pipeline(ctx, m, gpu ? NULL : &target, MLC_PASS_COUNT - 1, NULL, NULL, NULL, NULL);
  if (m && gpu) m = mlc_sch_default_gpu_module(ctx, m, 256, mlc_gpu_accepts, NULL);
  if (!m) return from_ctx(ctx, "compile", reason, cap);
  mkdir(out_dir, 0755);
  MlcBuildOptions bo = {.target = MLC_TARGET_NATIVE, .extra_cflags = "-O1", .gpu = gpu};
  MlcModelOptions mo = {0};
  if (!mlc_build_model(ctx, m, out_dir, &bo, &mo)) return from_ctx(ctx, "build", reason, cap);
  MlcTensorData *in_d[MAX_FLAT], *out_d[MAX_FLAT];
  int n_in_flat = flatten(ins, n_in, in_d), n_out_flat = flatten(outs, n_out, out_d);
  if (n_in_flat < 0 || n_out_flat < 0) return report(reason, cap, UNSUPPORTED, "test data: more than %d tensors", MAX_FLAT);
  MlcrtModel *rm = NULL;
  if (mlcrt_model_load(out_dir, &rm) != 0) return report(reason, cap, FAILED, "load: %s", mlcrt_last_error());
  DLTensor in_t[MAX_FLAT], *in_p[MAX_FLAT], *out_p[MAX_FLAT];
  for (int i = 0; i < n_in_flat; i++) {
    MlcTensorData *d = in_d[i];
    in_t[i] = (DLTensor){.data = d->data, .device = {kDLCPU, 0}, .ndim = d->ndim,
                         .dtype = dl_dtype(d->dtype), .shape = d->shape};
    in_p[i] = &in_t[i];
  }
  if (mlcrt_model_run(rm, in_p, n_in_flat, out_p, n_out_flat) != 0)
    return report(reason, cap, FAILED, "run: %s", mlcrt_last_error());
  Status st = PASSED;
  for (int k = 0; k < n_out_flat && st == PASSED; k++) st = compare(out_p[k], out_d[k], k, reason, cap);
  mlcrt_model_free(rm);
  mlc_ctx_free(ctx);
  return st;
}

/* ---- the driver ------------------------------------------------------------------ */

typedef struct Job {
  pid_t pid;
  int fd;
  const char *name;
} Job;

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static void free_list(char **list, int n) {
  for (int i = 0; list && i < n; i++) free(list[i]);
  free(list);
}

static char **list_tests(const Options *o, int *n) {
  DIR *d = opendir(o->suite);
  if (!d) return NULL;
  char **names = NULL;
  int cap = 0;
  *n = 0;
  struct dirent *e;
  while ((e = readdir(d))) {
    if (strncmp(e->d_name, "test_", 5) != 0) continue;
    if (o->filter && !strstr(e->d_name, o->filter)) continue;
    if (*n == cap) names = realloc(names, (size_t)(cap = cap ? 2 * cap : 256) * sizeof *names);
    names[(*n)++] = strdup(e->d_name);
  }
  closedir(d);
  qsort(names, (size_t)*n, sizeof *names, cmp_str);
  return names;
}

static Job start(const Options *o, const char *name) {
  int fds[2];
  Job j = {-1, -1, name};
  if (pipe(fds) != 0) return j;
  pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    alarm(TIMEOUT_S);
    char reason[600] = "";
    Status st = run_test(o, name, reason, sizeof reason);
    dprintf(fds[1], "%d\t%s", (int)st, reason);
    _exit(0);
  }
  close(fds[1]);
  j.pid = pid;
  j.fd = fds[0];
  return j;
}

/* wait for job j; its status and reason */
static Status finish(Job *j, char *reason, size_t cap) {
  char buf[800];
  size_t len = 0;
  ssize_t r;
  while (len + 1 < sizeof buf && (r = read(j->fd, buf + len, sizeof buf - 1 - len)) > 0) len += (size_t)r;
  buf[len] = 0;
  close(j->fd);
  int ws = 0;
  waitpid(j->pid, &ws, 0);
  if (len == 0) {
    if (WIFSIGNALED(ws))
      return report(reason, cap, FAILED, "crashed (%s)", WTERMSIG(ws) == SIGALRM ? "timed out" : strsignal(WTERMSIG(ws)));
    return report(reason, cap, FAILED, "the test process exited with no result");
  }
  char *tab = strchr(buf, '\t');
  snprintf(reason, cap, "%s", tab ? tab + 1 : "");
  int st = atoi(buf);
  return st >= PASSED && st <= UNSUPPORTED ? (Status)st : FAILED;
}

static bool listed(char **list, int n, const char *name) {
  for (int i = 0; i < n; i++)
    if (strcmp(list[i], name) == 0) return true;
  return false;
}

static char **read_list(const char *path, int *n) {
  FILE *f = fopen(path, "r");
  if (!f) return NULL;
  char **v = NULL, line[512];
  int cap = 0;
  *n = 0;
  while (fgets(line, sizeof line, f)) {
    line[strcspn(line, "\r\n")] = 0;
    if (!line[0] || line[0] == '#') continue;
    if (*n == cap) v = realloc(v, (size_t)(cap = cap ? 2 * cap : 256) * sizeof *v);
    v[(*n)++] = strdup(line);
  }
  fclose(f);
  return v;
}

static bool parse_args(int argc, char **argv, Options *o) {
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    const char **slot = !strcmp(a, "--suite") ? &o->suite : !strcmp(a, "--work") ? &o->work
                      : !strcmp(a, "--filter") ? &o->filter : !strcmp(a, "--expect") ? &o->expect
                      : !strcmp(a, "--write-passing") ? &o->write_passing : !strcmp(a, "--target") ? &o->target
                      : NULL;
    if (slot && i + 1 < argc) *slot = argv[++i];
    else if (!strcmp(a, "-j") && i + 1 < argc) o->jobs = atoi(argv[++i]);
    else if (!strcmp(a, "--quiet")) o->quiet = true;
    else return fprintf(stderr, "conformance: unknown or incomplete option '%s'\n", a), false;
  }
  if (o->jobs < 1 || o->jobs > 64) o->jobs = 1;
  if (o->target && strcmp(o->target, "opencl") && strcmp(o->target, "cuda"))
    return fprintf(stderr, "conformance: --target takes opencl or cuda, not '%s'\n", o->target), false;
  return true;
}

int main(int argc, char **argv) {
  Options o = {.suite = getenv("MLC_ONNX_TESTS"), .work = "build/onnx_work", .jobs = 2};
  if (!o.suite) o.suite = "../shared/onnx-node-tests";
  if (!parse_args(argc, argv, &o)) return 2;
  int n = 0, n_expect = 0;
  char **names = list_tests(&o, &n);
  if (!names) return fprintf(stderr, "conformance: cannot read the suite folder '%s'\n", o.suite), 2;
  char **expect = o.expect ? read_list(o.expect, &n_expect) : NULL;
  if (o.expect && !expect) return fprintf(stderr, "conformance: cannot read '%s'\n", o.expect), 2;
  mkdir("build", 0755);
  mkdir(o.work, 0755);
  setenv("MLCRT_NUM_THREADS", "1", 1);
  int counts[3] = {0}, regressions = 0;
  Status *results = calloc((size_t)(n ? n : 1), sizeof *results);
  Job *jobs = calloc((size_t)o.jobs, sizeof *jobs);
  int *job_index = calloc((size_t)o.jobs, sizeof *job_index);
  int next = 0, running = 0, done = 0;
  while (done < n) {
    while (running < o.jobs && next < n) {
      int slot = 0;
      while (jobs[slot].name) slot++;
      jobs[slot] = start(&o, names[next]);
      job_index[slot] = next++;
      running++;
    }
    for (int s = 0; s < o.jobs; s++) {
      if (!jobs[s].name) continue;
      char reason[600];
      Status st = jobs[s].pid < 0 ? report(reason, sizeof reason, FAILED, "could not start")
                                  : finish(&jobs[s], reason, sizeof reason);
      int i = job_index[s];
      results[i] = st;
      counts[st]++;
      bool regressed = expect && st != PASSED && listed(expect, n_expect, names[i]);
      regressions += regressed;
      if (!o.quiet || st == FAILED || regressed)
        printf("%s %s%s%s%s\n", status_names[st], names[i], *reason ? ": " : "", reason,
               regressed ? "  [REGRESSION: listed as passing]" : "");
      fflush(stdout);
      jobs[s].name = NULL;
      running--;
      done++;
      break;
    }
  }
  printf("%d passed, %d failed, %d unsupported (of %d)\n", counts[PASSED], counts[FAILED], counts[UNSUPPORTED], n);
  if (o.write_passing) {
    FILE *f = fopen(o.write_passing, "w");
    if (!f) return fprintf(stderr, "conformance: cannot write '%s'\n", o.write_passing), 2;
    for (int i = 0; i < n; i++)
      if (results[i] == PASSED) fprintf(f, "%s\n", names[i]);
    fclose(f);
  }
  if (regressions) printf("%d listed test%s no longer pass\n", regressions, regressions == 1 ? "" : "s");
  free_list(names, n);
  free_list(expect, n_expect);
  free(results);
  free(jobs);
  free(job_index);
  return regressions ? 1 : 0;
}
