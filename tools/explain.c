/* explain.c - `mlcc build/compile ... --explain`: what the compiler decided
 * for each kernel of a model, in the words a profile uses (the same call
 * sites, kernel names, ops and FLOP estimates), so a slow row of
 * `mlcc run --profile` can be traced back to a decision.
 *
 * The schedule column says where a kernel's loop nest came from: a tuning
 * record (the function carries the "tuned" attribute), the module as its
 * author wrote it (the function was in the input), the default rules (the
 * "schedule" attribute the pipeline's default_schedule stage leaves), the
 * op's definition as legalized when no rule applied, or a library call. */
#include <string.h>

#include "cli.h"
#include "mlcc/tune.h"

static const char *schedule_of(const MlcModule *input, const MlcModule *built, const MlcrtCallSite *s, MlcCtx *ctx) {
  if (s->kind == MLCRT_SITE_LIBRARY) return "library call";
  if (s->kind == MLCRT_SITE_TUNED) return "tuning record";
  const MlcFunc *f = mlc_module_find(input, mlc_intern(ctx, s->callee));
  if (f && f->kind == MLC_FUNC_PRIM) return "as written in the input";
  const MlcFunc *b = mlc_module_find(built, mlc_intern(ctx, s->callee));
  const MlcAttrValue *v = b && b->kind == MLC_FUNC_PRIM ? mlc_attrs_get(b->prim->attrs, mlc_intern(ctx, "schedule")) : NULL;
  if (v && v->kind == MLC_ATTR_STR) return v->s;
  return "none: the op's loop nest as legalized";
}

static void fmt_count(double v, char *buf, size_t cap) {
  if (v < 0) snprintf(buf, cap, "-");
  else if (v >= 1e9) snprintf(buf, cap, "%.2f G", v * 1e-9);
  else if (v >= 1e6) snprintf(buf, cap, "%.2f M", v * 1e-6);
  else if (v >= 1e3) snprintf(buf, cap, "%.2f K", v * 1e-3);
  else snprintf(buf, cap, "%.0f", v);
}

static void fmt_secs(double s, char *buf, size_t cap) {
  if (s < 0) snprintf(buf, cap, "not measured");
  else if (s < 1e-3) snprintf(buf, cap, "%.2f us", s * 1e6);
  else snprintf(buf, cap, "%.3f ms", s * 1e3);
}

/* each matmul the library could take: both times and what was used */
static void explain_choices(const MlcTuneChoice *c, int n) {
  if (n <= 0) return;
  printf("library or generated, by tuning records (the matmul alone; env.matmul):\n");
  for (int i = 0; i < n; i++) {
    char lib[32], gen[32];
    fmt_secs(c[i].library_s, lib, sizeof lib);
    fmt_secs(c[i].generated_s, gen, sizeof gen);
    printf("  %-24s %3d call%s  library %-12s generated %-12s -> %s\n", c[i].shape, c[i].calls,
           c[i].calls == 1 ? " " : "s", lib, gen,
           c[i].generated ? "generated kernel" : c[i].library_s < 0 || c[i].generated_s < 0 ? "library (not both measured)" : "library");
  }
}

/* each conv kernel's weight layouts: the time of the kernel tuned with
 * each, and the one taken */
static void explain_layouts(const MlcTuneLayoutChoice *c, int n) {
  if (n <= 0) return;
  printf("conv weight layouts, by tuning records (the kernel tuned with each layout):\n");
  for (int i = 0; i < n; i++) {
    printf("  %-28s %-12s %3d call%s ", c[i].kernel, c[i].shape, c[i].calls, c[i].calls == 1 ? " " : "s");
    for (int j = 0; j < c[i].n; j++) {
      char t[32];
      fmt_secs(c[i].seconds[j], t, sizeof t);
      printf(" %s %-12s", c[i].layout[j], t);
    }
    if (c[i].chosen >= 0) printf(" -> %s\n", c[i].layout[c[i].chosen]);
    else printf(" -> default schedules (none measured)\n");
  }
}

void cli_explain(MlcCtx *ctx, const MlcModule *input, const MlcModule *built, const MlcrtCallSite *sites, int n,
                 const CliChoices *choices) {
  printf("%-28s %-20s %5s %10s  %-9s %s\n", "kernel", "op", "calls", "FLOPs", "kind", "schedule");
  static const char *const kinds[] = {"generated", "library", "tuned"};
  double total = 0;
  bool known = true;
  for (int i = 0; i < n; i++) {
    bool first = true;
    for (int j = 0; j < i && first; j++) first = strcmp(sites[j].callee, sites[i].callee) != 0;
    if (!first) continue;
    int calls = 0;
    double flops = 0;
    for (int j = i; j < n; j++) {
      if (strcmp(sites[j].callee, sites[i].callee) != 0) continue;
      calls++;
      flops = flops < 0 || sites[j].flops < 0 ? -1 : flops + sites[j].flops;
    }
    char f[32];
    fmt_count(flops, f, sizeof f);
    printf("%-28s %-20s %5d %10s  %-9s %s\n", sites[i].callee, sites[i].ops, calls, f, kinds[sites[i].kind],
           schedule_of(input, built, &sites[i], ctx));
    if (flops < 0) known = false;
    else total += flops;
  }
  char t[32];
  fmt_count(total, t, sizeof t);
  printf("%d calls; %s%s FLOPs per inference\n", n, known ? "" : "at least ", t);
  explain_choices(choices->library, choices->n_library);
  explain_layouts(choices->layouts, choices->n_layouts);
}
