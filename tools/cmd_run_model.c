/* cmd_run_model.c - `mlcc run DIR`: load a compiled model (`mlcc build
 * MODULE -o DIR`) with the runtime alone, run it on inputs from .npy/.npz
 * files, and save or summarise its outputs.
 *
 * Inputs bind by position from .npy files and by input name from one .npz,
 * so a file written by numpy's savez(x=...) feeds the model whatever the
 * order of its entries.  Outputs are saved keyed by output name; without
 * --out a short summary (name, dtype, shape, first values) is printed.
 * Every check on the inputs is the runtime's: this file only moves them. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "mlcc/runtime.h"

enum { MAX_FILES = 64, SUMMARY_VALUES = 8 };

typedef struct RunModel {
  const char *dir, *ins[MAX_FILES], *out, *profile_json;
  int n_in, threads;
  bool time, profile, fill_given;
  CliFill fill;
  MlcrtModel *model;
  const MlcrtModelDesc *desc;
  MlcrtNpz *npz;              /* inputs by name, when one .npz was given */
  MlcrtTensor **owned;        /* inputs read from .npy files */
  DLTensor **inputs, **outputs;
} RunModel;

static int fail(const char *what) {
  fprintf(stderr, "mlcc: run: %s%s%s\n", what, *mlcrt_last_error() ? ": " : "", mlcrt_last_error());
  return EXIT_ERR;
}

static bool ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), k = strlen(suffix);
  return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* ---- inputs ---------------------------------------------------------------- */

static int inputs_from_npz(RunModel *r) {
  const MlcrtModelDesc *d = r->desc;
  if (mlcrt_npz_load(r->ins[0], &r->npz) != 0) return cli_rt_fail_path("run", r->ins[0]);
  for (int32_t i = 0; i < d->n_inputs; i++) {
    MlcrtTensor *t = mlcrt_npz_get(r->npz, d->inputs[i].name);
    if (!t) {
      fprintf(stderr, "mlcc: run: %s has no entry '%s' for input #%d of '%s'\n", r->ins[0], d->inputs[i].name,
              i + 1, d->name);
      return EXIT_ERR;
    }
    r->inputs[i] = &t->dl;
  }
  for (int32_t k = 0; k < r->npz->n; k++) {
    int32_t i = 0;
    while (i < d->n_inputs && strcmp(d->inputs[i].name, r->npz->names[k]) != 0) i++;
    if (i == d->n_inputs) {
      fprintf(stderr, "mlcc: run: %s: entry '%s' is no input of '%s'\n", r->ins[0], r->npz->names[k], d->name);
      return EXIT_ERR;
    }
  }
  return EXIT_YES;
}

static int inputs_from_npy(RunModel *r) {
  const MlcrtModelDesc *d = r->desc;
  if (r->n_in != d->n_inputs) {
    fprintf(stderr, "mlcc: run: '%s' takes %d input%s, %d .npy file%s given\n", d->name, d->n_inputs,
            d->n_inputs == 1 ? "" : "s", r->n_in, r->n_in == 1 ? "" : "s");
    return EXIT_ERR;
  }
  for (int i = 0; i < r->n_in; i++) {
    if (!ends_with(r->ins[i], ".npy")) {
      fprintf(stderr, "mlcc: run: %s: inputs are .npy files, or one .npz\n", r->ins[i]);
      return EXIT_ERR;
    }
    if (mlcrt_npy_load(r->ins[i], &r->owned[i]) != 0) return cli_rt_fail_path("run", r->ins[i]);
    r->inputs[i] = &r->owned[i]->dl;
  }
  return EXIT_YES;
}

/* no --in: inputs of the declared shapes, made up by --fill */
static int inputs_filled(RunModel *r) {
  const MlcrtModelDesc *d = r->desc;
  uint64_t state = 0x9e3779b97f4a7c15ull;
  for (int32_t i = 0; i < d->n_inputs; i++) {
    const MlcrtParamDesc *p = &d->inputs[i];
    int64_t shape[MLCRT_MAX_NDIM];
    for (int32_t k = 0; k < p->ndim; k++) {
      if (p->dims[k] < 0) {
        fprintf(stderr, "mlcc: run: input '%s' of '%s' has the symbolic size '%s': give it with --in\n", p->name,
                d->name, d->sym_names[-(p->dims[k] + 1)]);
        return EXIT_ERR;
      }
      shape[k] = p->dims[k];
    }
    if (mlcrt_tensor_create(p->ndim, shape, p->dtype, &r->owned[i]) != 0) return fail(p->name);
    cli_fill_tensor(&r->owned[i]->dl, r->fill, &state);
    r->inputs[i] = &r->owned[i]->dl;
  }
  return EXIT_YES;
}

/* ---- outputs ----------------------------------------------------------------- */

/* an 8- or 4-bit float element (one byte) as text; false for other dtypes */
static bool minifloat_value(DLDataType dt, const unsigned char *p, char *buf, size_t cap) {
#define X(tc, name, nbits, eb, mb, bias, kind, dl)                                         \
  if (dt.code == (dl)) {                                                                  \
    snprintf(buf, cap, "%g", (double)mlc_minifloat_decode(MLC_DT(tc, nbits, 1), *p));     \
    return true;                                                                          \
  }
  MLC_MINIFLOATS(X)
#undef X
  return false;
}

/* element i of a compact tensor as text */
static void format_value(const DLTensor *t, int64_t i, char *buf, size_t cap) {
  const char *p = (const char *)t->data + t->byte_offset + (size_t)i * mlcrt_dtype_bytes(t->dtype);
  int bits = t->dtype.bits < 8 ? 8 : t->dtype.bits; /* sub-byte integers: a byte each, extended */
  if (t->dtype.lanes != 1) snprintf(buf, cap, "?");
  else if (t->dtype.code == kDLFloat && bits == 32) snprintf(buf, cap, "%g", (double)*(const float *)(const void *)p);
  else if (t->dtype.code == kDLFloat && bits == 64) snprintf(buf, cap, "%g", *(const double *)(const void *)p);
  else if ((t->dtype.code == kDLFloat || t->dtype.code == kDLBfloat) && bits == 16) {
    uint16_t h;
    memcpy(&h, p, 2);
    snprintf(buf, cap, "%g", (double)(t->dtype.code == kDLFloat ? mlc_f16_to_f32(h) : mlc_bf16_to_f32(h)));
  } else if (t->dtype.code == kDLBool) snprintf(buf, cap, "%s", *p ? "True" : "False");
  else if (t->dtype.code == kDLInt || t->dtype.code == kDLUInt) {
    int64_t v = 0;
    uint64_t u = 0;
    memcpy(&u, p, (size_t)bits / 8); /* little-endian hosts: the low bytes */
    if (t->dtype.code == kDLInt && bits < 64 && (u >> (bits - 1)) & 1) u |= ~0ull << bits;
    memcpy(&v, &u, sizeof v);
    if (t->dtype.code == kDLInt) snprintf(buf, cap, "%lld", (long long)v);
    else snprintf(buf, cap, "%llu", (unsigned long long)u);
  } else if (!minifloat_value(t->dtype, (const unsigned char *)p, buf, cap)) snprintf(buf, cap, "?");
}

static void print_summary(const MlcrtParamDesc *p, const DLTensor *t) {
  char dt[32], shape[256], v[64];
  mlcrt_dtype_name(t->dtype, dt, sizeof dt);
  if (t->ndim == 0) snprintf(shape, sizeof shape, "()");
  for (int32_t k = 0; k < t->ndim; k++) {
    size_t used = k ? strlen(shape) : 0;
    snprintf(shape + used, sizeof shape - used, "%s%lld%s", k ? ", " : "(", (long long)t->shape[k],
             k + 1 < t->ndim ? "" : t->ndim == 1 ? ",)" : ")");
  }
  int64_t n = mlcrt_tensor_numel(t);
  printf("%s: %s %s [", p->name, dt, shape);
  for (int64_t i = 0; i < n && i < SUMMARY_VALUES; i++) {
    format_value(t, i, v, sizeof v);
    printf("%s%s", i ? ", " : "", v);
  }
  printf("%s]\n", n > SUMMARY_VALUES ? ", ..." : "");
}

static int save_outputs(RunModel *r) {
  const MlcrtModelDesc *d = r->desc;
  if (ends_with(r->out, ".npy")) {
    if (d->n_outputs != 1) {
      fprintf(stderr, "mlcc: run: '%s' has %d outputs: save them to a .npz\n", d->name, d->n_outputs);
      return EXIT_ERR;
    }
    return mlcrt_npy_save(r->out, r->outputs[0]) == 0 ? EXIT_YES : cli_rt_fail_path("run", r->out);
  }
  const char **names = calloc((size_t)d->n_outputs + 1, sizeof *names);
  if (!names) return fail("out of memory");
  for (int32_t i = 0; i < d->n_outputs; i++) names[i] = d->outputs[i].name;
  int rc = mlcrt_npz_save(r->out, d->n_outputs, names, (const DLTensor *const *)r->outputs) == 0 ? EXIT_YES
                                                                                                 : cli_rt_fail_path("run", r->out);
  free(names);
  return rc;
}

/* ---- running ------------------------------------------------------------------- */

static int32_t timed(void *closure) {
  RunModel *r = closure;
  return mlcrt_model_run(r->model, r->inputs, r->desc->n_inputs, r->outputs, r->desc->n_outputs);
}

static int run_loaded(RunModel *r) {
  const MlcrtModelDesc *d = r->desc;
  int rc = r->n_in == 0 && r->fill_given                  ? inputs_filled(r)
           : r->n_in == 1 && ends_with(r->ins[0], ".npz") ? inputs_from_npz(r)
                                                          : inputs_from_npy(r);
  if (rc != EXIT_YES) return rc;
  if (r->threads && mlcrt_threads_set(r->threads) != 0) return fail("--threads");
  if (timed(r) != 0) return fail("inference failed");
  if (r->out) rc = save_outputs(r);
  else if (!r->profile)
    for (int32_t i = 0; i < d->n_outputs; i++) print_summary(&d->outputs[i], r->outputs[i]);
  if (rc == EXIT_YES && (r->profile || r->profile_json))
    rc = cli_profile_model(r->model, r->inputs, r->outputs, r->profile_json, !r->profile);
  if (rc == EXIT_YES && r->time) {
    MlcrtTimes t;
    if (mlcrt_time_eval(timed, r, 1, 10, 100, &t) != 0) return fail("timing failed");
    int32_t n = mlcrt_threads_get();
    printf("%s: mean %.3f ms, median %.3f ms, min %.3f ms per inference (%d thread%s)\n", d->name, t.mean * 1e3,
           t.median * 1e3, t.min * 1e3, n, n == 1 ? "" : "s");
  }
  return rc;
}

static int parse(RunModel *r, int argc, char **argv) {
  for (int i = 0; i < argc; i++) {
    const char *a = argv[i];
    bool has_next = i + 1 < argc;
    if (!strcmp(a, "--in") && has_next) {
      if (r->n_in == MAX_FILES) return cli_bad_usage("run: too many --in files", argv[i + 1]);
      r->ins[r->n_in++] = argv[++i];
    } else if (!strcmp(a, "--out") && has_next && !r->out) r->out = argv[++i];
    else if (!strcmp(a, "--time")) r->time = true;
    else if (!strcmp(a, "--profile")) r->profile = true;
    else if (!strcmp(a, "--profile-json") && has_next && !r->profile_json) r->profile_json = argv[++i];
    else if (!strcmp(a, "--threads") && has_next) {
      char *end;
      long n = strtol(argv[++i], &end, 10);
      if (*end || end == argv[i] || n < 1 || n > 1024) return cli_bad_usage("run: --threads takes 1 to 1024", argv[i]);
      r->threads = (int)n;
    } else if (!strcmp(a, "--fill") && has_next && !r->fill_given) {
      const char *f = argv[++i];
      r->fill_given = true;
      if (!strcmp(f, "zeros")) r->fill = FILL_ZEROS;
      else if (!strcmp(f, "ones")) r->fill = FILL_ONES;
      else if (!strcmp(f, "random")) r->fill = FILL_RANDOM;
      else return cli_bad_usage("run: --fill takes zeros, ones or random", f);
    }
    else if (!r->dir && a[0] != '-') r->dir = a;
    else return cli_bad_usage("run: unexpected argument for a model", a);
  }
  if (r->fill_given && r->n_in) return cli_bad_usage("run: --fill makes the inputs; give it without --in", "--fill");
  if (r->n_in > 1)
    for (int i = 0; i < r->n_in; i++)
      if (ends_with(r->ins[i], ".npz")) return cli_bad_usage("run: an .npz of inputs comes alone", r->ins[i]);
  return EXIT_YES;
}

int cmd_run_model(int argc, char **argv) {
  RunModel r = {0};
  int rc = parse(&r, argc, argv);
  if (rc != EXIT_YES) return rc;
  if (mlcrt_model_load(r.dir, &r.model) != 0) return fail("cannot load the model");
  r.desc = mlcrt_model_desc(r.model);
  size_t ni = (size_t)r.desc->n_inputs + 1, no = (size_t)r.desc->n_outputs + 1;
  r.owned = calloc(ni, sizeof *r.owned);
  r.inputs = calloc(ni, sizeof *r.inputs);
  r.outputs = calloc(no, sizeof *r.outputs);
  rc = r.owned && r.inputs && r.outputs ? run_loaded(&r) : fail("out of memory");
  for (int32_t i = 0; r.owned && i < r.desc->n_inputs; i++) mlcrt_tensor_free(r.owned[i]);
  mlcrt_npz_free(r.npz);
  free(r.owned);
  free(r.inputs);
  free(r.outputs);
  mlcrt_model_free(r.model);
  return rc;
}
