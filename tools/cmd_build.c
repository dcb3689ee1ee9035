/* cmd_build.c - `mlcc build`: compile a module.
 *
 *   mlcc build MODULE.py -o LIB.so   every prim func into one shared library
 *                                    the runtime loads (`mlcc run LIB.so`),
 *                                    the generated C kept beside it;
 *   mlcc build MODULE.py -o DIR      the entry graph function as a model:
 *                                    weights bound from --params, the graph
 *                                    pipeline, then DIR/model.{c,h,so} and
 *                                    params.bin (`mlcc run DIR`).
 * The weights come through the runtime's .npz reader, so the file format is
 * read by exactly one piece of code; the memory plan is reported on stderr
 * because it is the first thing to look at when a model's footprint is off. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "mlcc/codegen.h"
#include "mlcc/lower.h"
#include "mlcc/runtime.h"
#include "mlcc/schedule.h"
#include "mlcc/text.h"
#include "mlcc/transform.h"
#include "mlcc/tune.h"

enum { MAX_LINKED = 16 };

typedef struct BuildArgs {
  const char *in, *out, *params, *entry, *dump_after;
  bool embed, explain, no_schedule;
  const char *link[MAX_LINKED];
  int n_link;
  char include_flag[4200]; /* -I of mlcc's own headers, for linked C files */
  MlcBuildOptions opt;
  const char *records[16]; /* --records DB.jsonl */
  int n_records;
} BuildArgs;

static bool ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), k = strlen(suffix);
  return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* ---- weights ------------------------------------------------------------------ */

/* the runtime's dtype codes in the compiler's terms (bool: 1 bit there, one
 * byte per element in both) */
#define DTYPE_CODES(X)          \
  X(kDLInt, MLC_TC_INT)         \
  X(kDLUInt, MLC_TC_UINT)       \
  X(kDLFloat, MLC_TC_FLOAT)     \
  X(kDLBfloat, MLC_TC_BFLOAT)   \
  X(kDLBool, MLC_TC_BOOL)

static bool compiler_dtype(DLDataType t, MlcDType *out) {
#define X(dl, mlc)                                                                 \
  if (t.code == (dl)) {                                                            \
    *out = MLC_DT(mlc, (dl) == kDLBool ? 1 : t.bits, t.lanes);                     \
    return t.lanes == 1;                                                           \
  }
  DTYPE_CODES(X)
#undef X
  return false;
}

/* points data[i] at the npz's tensors (bind_params copies them) */
static bool npz_to_data(MlcCtx *ctx, const char *path, const MlcrtNpz *z, MlcTensorData *data, MlcTensorData **ptrs) {
  for (int32_t i = 0; i < z->n; i++) {
    DLTensor *t = &z->tensors[i]->dl;
    char dt[32];
    if (!compiler_dtype(t->dtype, &data[i].dtype))
      return mlc_error(ctx, (MlcLoc){mlc_intern(ctx, path), 0, 0}, "entry '%s' has dtype %s, which a model cannot hold",
                       z->names[i], mlcrt_dtype_name(t->dtype, dt, sizeof dt));
    data[i].ndim = t->ndim;
    data[i].shape = t->shape;
    data[i].data = t->data;
    data[i].nbytes = (size_t)mlcrt_tensor_nbytes(t);
    ptrs[i] = &data[i];
  }
  return true;
}

static MlcModule *bind_weights(MlcCtx *ctx, MlcModule *m, const BuildArgs *a) {
  MlcrtNpz *z = NULL;
  if (mlcrt_npz_load(a->params, &z) != 0) {
    mlc_error(ctx, (MlcLoc){mlc_intern(ctx, a->params), 0, 0}, "%s", mlcrt_last_error());
    return NULL;
  }
  size_t n = (size_t)z->n + 1;
  MlcTensorData *data = calloc(n, sizeof *data), **ptrs = calloc(n, sizeof *ptrs);
  MlcModule *out = NULL;
  if (!data || !ptrs) mlc_error(ctx, ctx->build_loc, "out of memory reading %s", a->params);
  else if (npz_to_data(ctx, a->params, z, data, ptrs))
    out = mlc_pass_bind_params(ctx, m, a->entry, (const char *const *)z->names, ptrs, z->n);
  free(data);
  free(ptrs);
  mlcrt_npz_free(z);
  return out;
}

/* ---- the model ------------------------------------------------------------------ */

typedef struct Dump {
  int pass; /* the pass whose module is printed, -1 none */
  bool failed;
} Dump;

static void dump_module(void *user, MlcGraphPass pass, const MlcModule *m) {
  Dump *d = user;
  if ((int)pass != d->pass) return;
  MlcStrBuf sb = {0};
  mlc_print_module(m, &sb);
  d->failed = !cli_write_stdout(mlc_sb_cstr(&sb), sb.len);
  mlc_vec_free(&sb);
}

static void format_bytes(int64_t n, char *buf, size_t cap) {
  static const char *const units[] = {"KiB", "MiB", "GiB", "TiB"};
  if (n < 1024) {
    snprintf(buf, cap, "%lld B", (long long)n);
    return;
  }
  double v = (double)n / 1024;
  int u = 0;
  while (v >= 1024 && u < 3) v /= 1024, u++;
  snprintf(buf, cap, "%.1f %s", v, units[u]);
}

static void report_plan(const MlcMemPlanStats *s, int n) {
  for (int i = 0; i < n; i++) {
    char planned[32], lower[32], naive[32];
    format_bytes(s[i].planned_bytes, planned, sizeof planned);
    format_bytes(s[i].lower_bound, lower, sizeof lower);
    format_bytes(s[i].naive_bytes, naive, sizeof naive);
    fprintf(stderr, "%s: memory plan %s (liveness lower bound %s, no reuse %s), %lld run-time allocation%s\n",
            s[i].func, planned, lower, naive, (long long)s[i].n_dynamic, s[i].n_dynamic == 1 ? "" : "s");
  }
}

static int pass_index(const char *name) {
  for (int p = 0; p < MLC_PASS_COUNT; p++)
    if (!strcmp(mlc_graph_pass_names[p], name)) return p;
  return -1;
}

static int build_model(MlcCtx *ctx, MlcModule *m, const BuildArgs *a) {
  Dump dump = {a->dump_after ? pass_index(a->dump_after) : -1, false};
  const MlcModule *input = m;
  if (m && a->params) m = bind_weights(ctx, m, a);
  MlcMemPlanStats *stats = NULL;
  int n_stats = 0;
  /* the default schedules are sized for the CPU the C is compiled for */
  MlcSchTarget target;
  if (a->opt.target == MLC_TARGET_GENERIC) mlc_sch_target_march(&target, "x86-64");
  else mlc_sch_target_host(&target);
  /* a GPU target: no CPU schedules; the GPU default rule binds every
   * kernel after the pipeline (docs/gpu.md) */
  bool gpu = a->opt.gpu != MLC_GPU_NONE;
  const MlcSchTarget *sized = a->no_schedule || gpu ? NULL : &target;
  MlcTuneDB *db = NULL;
  if (m && a->n_records && !(db = cli_load_records(ctx, a->records, a->n_records))) m = NULL;
  /* for --explain: which matmuls the records gave to the generated kernel,
   * and which weight layout each conv got */
  MlcTuneChoice choices[64];
  MlcTuneLayoutChoice layouts[64];
  CliChoices cc = {choices, 0, layouts, 0};
  if (m && db && a->explain) {
    MlcTuneTarget tt;
    mlc_tune_target_host(&tt, 0);
    cc.n_library = mlc_tune_library_choices(ctx, m, db, &tt, choices, 64);
    if (cc.n_library < 0) cc.n_library = 0, mlc_clear_error(ctx); /* the pipeline says why, below */
    cc.n_layouts = gpu ? 0 : mlc_tune_layout_choices(ctx, m, db, &tt, layouts, 64);
    if (cc.n_layouts < 0) cc.n_layouts = 0, mlc_clear_error(ctx);
  }
  if (m && db)
    m = cli_pipeline_with_records(ctx, m, sized, db, a->opt.gpu, dump_module, &dump, &stats, &n_stats);
  else if (m)
    m = mlc_graph_pipeline(ctx, m, sized, MLC_PASS_COUNT - 1, dump_module, &dump, &stats, &n_stats);
  mlc_tune_db_free(db);
  if (m && gpu) m = mlc_sch_default_gpu_module(ctx, m, 256, mlc_gpu_accepts, NULL);
  if (m) report_plan(stats, n_stats);
  free(stats);
  if (dump.failed) return EXIT_ERR;
  MlcrtCallSite *sites = NULL;
  int n_sites = 0;
  MlcModelOptions mo = {.entry = a->entry, .embed_params = a->embed, .sites = &sites, .n_sites = &n_sites};
  if (!m || !mlc_build_model(ctx, m, a->out, &a->opt, &mo)) return cli_report(ctx);
  if (a->explain) cli_explain(ctx, input, m, sites, n_sites, &cc);
  return EXIT_YES;
}

int cli_build_model(MlcCtx *ctx, MlcModule *m, const char *out, const CliModelFlags *f) {
  const char *dump_after = f->dump_after;
  BuildArgs a = {.out = out, .dump_after = dump_after, .embed = f->embed, .explain = f->explain,
                 .no_schedule = f->no_schedule, .entry = "main",
                 .opt = {.target = MLC_TARGET_NATIVE, .gpu = f->gpu}, .n_records = f->n_records};
  for (int i = 0; i < f->n_records; i++) a.records[i] = f->records[i];
  if (dump_after && pass_index(dump_after) < 0) return cli_bad_usage("no graph pass named", dump_after);
  return build_model(ctx, m, &a);
}

/* ---- arguments ------------------------------------------------------------------ */

/* "-I DIR" for mlcc's own headers (DIR/mlcc/runtime.h, DIR being the
 * include folder beside the executable's folder or one above it: bin/../include
 * when installed, build/../include or build/san/../../include in the source
 * tree), so a C file given to --link can include "mlcc/runtime.h"; false
 * when they are not there */
static bool headers_dir(char *flag, size_t cap) {
  char exe[4096];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n <= 0) return false;
  exe[n] = 0;
  char *slash = strrchr(exe, '/');
  if (!slash || strchr(exe, ' ') || strchr(exe, '\t')) return false;
  *slash = 0;
  static const char *const up[] = {"..", "../.."};
  for (size_t i = 0; i < sizeof up / sizeof *up; i++) {
    char probe[4200];
    snprintf(probe, sizeof probe, "%s/%s/include/mlcc/runtime.h", exe, up[i]);
    if (access(probe, R_OK) != 0) continue;
    snprintf(flag, cap, "-I%s/%s/include", exe, up[i]);
    return true;
  }
  return false;
}

static int parse(BuildArgs *a, int argc, char **argv) {
  for (int i = 0; i < argc; i++) {
    const char *s = argv[i];
    bool next = i + 1 < argc;
    if (!strcmp(s, "-o") && next) a->out = argv[++i];
    else if (!strcmp(s, "--params") && next) a->params = argv[++i];
    else if (!strcmp(s, "--entry") && next) a->entry = argv[++i];
    else if (!strcmp(s, "--dump-after") && next) a->dump_after = argv[++i];
    else if (!strcmp(s, "--link") && next) {
      if (a->n_link == MAX_LINKED) return cli_bad_usage("build: too many --link files", argv[i + 1]);
      a->link[a->n_link++] = argv[++i];
    } else if (!strcmp(s, "--embed-params")) a->embed = true;
    else if (!strcmp(s, "--explain")) a->explain = true;
    else if (!strcmp(s, "--no-default-schedule")) a->no_schedule = true;
    else if (!strcmp(s, "--records") && next) {
      if (a->n_records == 16) return cli_bad_usage("build: at most 16 --records files", argv[i + 1]);
      a->records[a->n_records++] = argv[++i];
    } else if (!strcmp(s, "--target") && next) {
      const char *t = argv[++i];
      if (!strcmp(t, "native")) a->opt.target = MLC_TARGET_NATIVE;
      else if (!strcmp(t, "generic")) a->opt.target = MLC_TARGET_GENERIC;
      else if (!strcmp(t, "opencl")) a->opt.gpu = MLC_GPU_OPENCL;
      else if (!strcmp(t, "cuda")) a->opt.gpu = MLC_GPU_CUDA;
      else return cli_bad_usage("build: --target takes native, generic, opencl or cuda", t);
    } else if (!a->in && (s[0] != '-' || s[1] == '\0')) a->in = s;
    else return cli_bad_usage("build: unexpected argument", s);
  }
  if (!a->in) return cli_bad_usage("build: missing MODULE.py", NULL);
  if (!a->out) return cli_bad_usage("build: missing -o LIB.so or -o DIR", NULL);
  bool model_flags = a->params || a->entry || a->dump_after || a->embed || a->explain || a->no_schedule;
  if (ends_with(a->out, ".so") && model_flags)
    return cli_bad_usage("build: --params, --entry, --embed-params, --dump-after, --explain and --no-default-schedule build a model: give -o DIR",
                         a->out);
  if (a->dump_after && pass_index(a->dump_after) < 0) {
    fprintf(stderr, "mlcc: build: --dump-after: no pass named '%s'; the passes are:", a->dump_after);
    for (int p = 0; p < MLC_PASS_COUNT; p++) fprintf(stderr, " %s", mlc_graph_pass_names[p]);
    fputc('\n', stderr);
    return EXIT_ERR;
  }
  if (!a->entry) a->entry = "main";
  a->opt.link = a->link;
  a->opt.n_link = a->n_link;
  if (a->n_link && headers_dir(a->include_flag, sizeof a->include_flag)) a->opt.extra_cflags = a->include_flag;
  return EXIT_YES;
}

/* beside LIB.so, the GPU kernels' source (LIB.cl / LIB.cu), for people
 * and for checking it with the device's own compiler */
static bool write_device_source(MlcCtx *ctx, const MlcModule *m, const BuildArgs *a) {
  if (a->opt.gpu == MLC_GPU_NONE) return true;
  MlcStrBuf src = {0}, path = {0};
  mlc_sb_printf(&path, "%.*s%s", (int)(strlen(a->out) - 3), a->out, mlc_gpu_api_ext(a->opt.gpu));
  bool ok = mlc_codegen_gpu_source(ctx, m, a->opt.gpu, &src) &&
            mlc_write_file(ctx, mlc_sb_cstr(&path), src.data ? src.data : "", src.len);
  mlc_vec_free(&src);
  mlc_vec_free(&path);
  return ok;
}

int cmd_build(int argc, char **argv) {
  BuildArgs a = {.opt = {.target = MLC_TARGET_NATIVE}};
  int rc = parse(&a, argc, argv);
  if (rc != EXIT_YES) return rc;
  MlcCtx *ctx = mlc_ctx_new();
  MlcModule *m = cli_load_module(ctx, a.in, NULL, NULL);
  /* what building refuses (a loop too wide to vectorize) names the file */
  ctx->build_loc = (MlcLoc){.file = mlc_intern(ctx, strcmp(a.in, "-") ? a.in : "<stdin>")};
  if (m && ends_with(a.out, ".so") && a.n_records) {
    MlcTuneDB *db = cli_load_records(ctx, a.records, a.n_records);
    m = db ? cli_apply_records(ctx, m, db, a.opt.gpu) : NULL;
    mlc_tune_db_free(db);
  }
  if (ends_with(a.out, ".so")) rc = (m && mlc_build_shared(ctx, m, a.out, &a.opt) && write_device_source(ctx, m, &a))
                                       ? EXIT_YES : cli_report(ctx);
  else rc = m ? build_model(ctx, m, &a) : cli_report(ctx);
  mlc_ctx_free(ctx);
  return rc;
}
