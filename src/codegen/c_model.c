/* c_model.c - the two files of a compiled model: model.c (the kernels and
 * `mlcrt_module` of c_module.c, the executor of c_graph.c, the
 * `mlcrt_model` descriptor and, when asked, the weights) and model.h (a
 * plain C header over the runtime's mlcrt_model_* API).
 *
 * Both are written from one CGraph, so the descriptor the runtime checks
 * inputs against and the tables a program reads from the header cannot
 * disagree.  Inputs and outputs take the names the function's `input_names`
 * and `output_names` attributes give (an imported model's own names, which
 * need not be identifiers); without them inputs are named after their params
 * and outputs output_0, output_1, ...: after the graph pipeline the result's
 * var names are the passes' (alloc3, gv), which say nothing to the user. */
#include "c_model.h"
#include "gpu_emit.h"

#include <ctype.h>
#include <string.h>


/* a C string literal of s (names from the IR are identifiers, but a literal
 * must stay one whatever they hold) */
static void str_lit(MlcStrBuf *sb, const char *s) {
  mlc_sb_putc(sb, '"');
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
    if (*p == '"' || *p == '\\') mlc_sb_printf(sb, "\\%c", *p);
    else if (*p < 0x20 || *p >= 0x7f) mlc_sb_printf(sb, "\\%03o", *p);
    else mlc_sb_putc(sb, (char)*p);
  }
  mlc_sb_putc(sb, '"');
}

static const char MODEL_ABI[] =
    "/* the runtime's model ABI (docs/runtime.md), version 2 */\n"
    "typedef struct {\n"
    "  const char *callee, *binding, *ops;\n"
    "  int32_t kind;\n"
    "  double flops, bytes;\n"
    "} mlc_call_site;\n"
    "typedef struct {\n"
    "  uint32_t abi_version;\n"
    "  const char *name;\n"
    "  int32_t n_inputs;\n"
    "  const mlc_param_desc *inputs;\n"
    "  int32_t n_outputs;\n"
    "  const mlc_param_desc *outputs;\n"
    "  int32_t n_syms;\n"
    "  const char *const *sym_names;\n"
    "  uint64_t params_nbytes;\n"
    "  uint64_t params_hash;\n"
    "  const void *embedded_params;\n"
    "  int32_t (*create)(const void *params, const MlcrtEnv *env, void **state);\n"
    "  int32_t (*run)(void *state, void *const *inputs, const int64_t *syms, mlc_dltensor **outputs,\n"
    "                 const MlcrtEnv *env);\n"
    "  void (*destroy)(void *state, const MlcrtEnv *env);\n"
    "  int32_t n_sites;\n"
    "  const mlc_call_site *sites;\n"
    "} mlc_model_desc;\n\n";

static void io_table(MlcStrBuf *o, const char *what, const CIo *io, int n) {
  for (int i = 0; i < n; i++) {
    if (!io[i].ndim) continue;
    mlc_sb_printf(o, "static const int64_t mlc_model_%s_dims%d[] = {", what, i);
    for (int d = 0; d < io[i].ndim; d++) {
      if (io[i].dims[d] == MLCRT_DIM_COMPUTED) mlc_sb_printf(o, "%sINT64_MIN", d ? ", " : "");
      else mlc_sb_printf(o, "%s%lld", d ? ", " : "", (long long)io[i].dims[d]);
    }
    mlc_sb_puts(o, "};\n");
  }
  mlc_sb_printf(o, "static const mlc_param_desc mlc_model_%s[] = {\n", what);
  for (int i = 0; i < n; i++) {
    mlc_sb_puts(o, "  {");
    str_lit(o, io[i].name);
    mlc_sb_printf(o, ", 1, {%d, %d, %d}, %d, ", c_dl_code(io[i].dtype), c_dl_bits(io[i].dtype), io[i].dtype.lanes,
                  io[i].ndim);
    if (io[i].ndim) mlc_sb_printf(o, "mlc_model_%s_dims%d", what, i);
    else mlc_sb_puts(o, "NULL");
    mlc_sb_printf(o, ", %d},\n", io[i].align);
  }
  if (!n) mlc_sb_puts(o, "  {NULL, 0, {0, 0, 0}, 0, NULL, 0},\n");
  mlc_sb_puts(o, "};\n");
}

/* the payload as a string literal: 4 characters a byte, which compilers
 * read much faster than an initializer list of numbers */
static void weights_array(MlcStrBuf *o, const uint8_t *p, size_t n) {
  if (!n) {
    mlc_sb_printf(o, "static const uint8_t mlc_model_weights[%d] __attribute__((aligned(%d))) = {0};\n", C_PARAM_ALIGN,
                  C_PARAM_ALIGN);
    return;
  }
  mlc_sb_printf(o, "static const uint8_t mlc_model_weights[%zu] __attribute__((aligned(%d))) =\n", n, C_PARAM_ALIGN);
  for (size_t i = 0; i < n; i += 32) {
    mlc_sb_puts(o, "  \"");
    for (size_t j = i; j < n && j < i + 32; j++) mlc_sb_printf(o, "\\x%02x", p[j]);
    mlc_sb_puts(o, "\"\n");
  }
  mlc_sb_puts(o, ";\n");
}

/* the executor's call sites, for profiles (MlcrtCallSite) */
static void site_table(MlcStrBuf *o, const CGraph *g) {
  mlc_sb_puts(o, "static const mlc_call_site mlc_model_sites[] = {\n");
  for (int i = 0; i < g->n_sites; i++) {
    const CSite *c = &g->sites[i];
    mlc_sb_puts(o, "  {");
    str_lit(o, c->callee);
    mlc_sb_puts(o, ", ");
    str_lit(o, c->binding);
    mlc_sb_puts(o, ", ");
    str_lit(o, c->ops);
    mlc_sb_printf(o, ", %d, %.17g, %.17g},\n", (int)c->kind, c->flops, c->bytes);
  }
  if (!g->n_sites) mlc_sb_puts(o, "  {\"\", \"\", \"\", 0, -1, -1},\n");
  mlc_sb_puts(o, "};\n");
}

static void model_desc(MlcStrBuf *o, const CGraph *g, const MlcModelOptions *mo, size_t nbytes, uint64_t hash) {
  mlc_sb_puts(o, "\n/* ---- the model descriptor ---- */\n");
  mlc_sb_puts(o, MODEL_ABI);
  io_table(o, "inputs", g->inputs, g->n_inputs);
  io_table(o, "outputs", g->outputs, g->n_outputs);
  mlc_sb_puts(o, "static const char *const mlc_model_syms[] = {");
  for (int i = 0; i < g->n_syms; i++) {
    if (i) mlc_sb_puts(o, ", ");
    str_lit(o, g->sym_names[i]);
  }
  mlc_sb_puts(o, g->n_syms ? "};\n" : "NULL};\n");
  site_table(o, g);
  mlc_sb_puts(o, "\n__attribute__((visibility(\"default\")))\nconst mlc_model_desc mlcrt_model = {\n  2u, ");
  str_lit(o, g->fn->name);
  mlc_sb_printf(o, ",\n  %d, mlc_model_inputs, %d, mlc_model_outputs, %d, mlc_model_syms,\n", g->n_inputs, g->n_outputs,
                g->n_syms);
  mlc_sb_printf(o, "  UINT64_C(%zu), UINT64_C(0x%016llx), %s,\n", nbytes, (unsigned long long)hash,
                mo->embed_params ? "mlc_model_weights" : "NULL");
  mlc_sb_printf(o, "  mlc_model_create, mlc_model_run, mlc_model_destroy,\n  %d, mlc_model_sites,\n};\n", g->n_sites);
}

/* The C name a linked extern function has: the extern's name with every
 * character other than a letter, digit or underscore made an underscore
 * (and one in front of a leading digit). */
static const char *linked_name(MlcCtx *ctx, const char *name) {
  MlcStrBuf sb = {0};
  if (isdigit((unsigned char)*name)) mlc_sb_puts(&sb, "_");
  for (const char *p = name; *p; p++) mlc_sb_printf(&sb, "%c", isalnum((unsigned char)*p) ? *p : '_');
  const char *out = mlc_intern(ctx, mlc_sb_cstr(&sb));
  mlc_vec_free(&sb);
  return out;
}

/* mlc_get_extern, which the executor's create resolves its externs with:
 * the runtime's registry, or, when code is linked into the model, first
 * the functions of that code named after the externs (weak references: a
 * name the code does not define is NULL and goes to the registry) */
static bool extern_resolver(MlcCtx *ctx, const CGraph *g, const MlcModelOptions *mo, MlcStrBuf *o) {
  mlc_sb_puts(o, "\n/* ---- extern functions ---- */\n");
  const char **cn = mlc_arena_array(&ctx->arena, (size_t)(g->n_externs ? g->n_externs : 1), sizeof *cn);
  for (int i = 0; mo->linked_externs && i < g->n_externs; i++) {
    cn[i] = linked_name(ctx, g->externs[i]);
    for (int j = 0; j < i; j++)
      if (cn[j] == cn[i])
        return mlc_error(ctx, ctx->build_loc, "the extern functions '%s' and '%s' would both be the linked function "
                         "'%s'", g->externs[j], g->externs[i], cn[i]);
    mlc_sb_printf(o, "extern int32_t %s(mlc_dltensor *const *args, int32_t n_args, const MlcrtEnv *env) "
                     "__attribute__((weak));\n", cn[i]);
  }
  mlc_sb_puts(o, "static int32_t mlc_get_extern(const MlcrtEnv *env, const char *name, MlcrtExtern *out) {\n");
  for (int i = 0; mo->linked_externs && i < g->n_externs; i++) {
    mlc_sb_puts(o, "  if (");
    str_lit(o, g->externs[i]);
    mlc_sb_printf(o, "[0] == name[0] && !strcmp(name, ");
    str_lit(o, g->externs[i]);
    mlc_sb_printf(o, ") && %s) {\n    out->name = name;\n    out->fn = %s;\n    return 0;\n  }\n", cn[i], cn[i]);
  }
  mlc_sb_puts(o, "  return env->get_extern(name, out);\n}\n");
  return true;
}

/* The pieces both files are written from; false + error when the entry
 * function cannot be compiled. */
typedef struct Model {
  CKernelVec kernels;
  CParamLayout layout;
  CGraph graph;
  MlcStrBuf module;   /* kernels + mlcrt_module */
} Model;

static void model_free(Model *md) {
  mlc_vec_free(&md->kernels);
  c_param_layout_free(&md->layout);
  c_graph_free(&md->graph);
  mlc_vec_free(&md->module);
}

/* io[].name from the list attribute `key` of fn, when it has one.  An input
 * list of another length is a param list that a pass changed (bind_params):
 * the params' own names stay then.  Names must be unique and non-empty. */
static bool named_io(MlcCtx *ctx, const MlcGFunc *fn, const char *key, CIo *io, int n, bool strict_count) {
  const MlcAttrValue *v = mlc_attrs_get(fn->attrs, mlc_intern(ctx, key));
  if (!v) return true;
  if (v->kind != MLC_ATTR_LIST)
    return mlc_error(ctx, ctx->build_loc, "'%s': attribute %s must be a list of strings", fn->name, key);
  if (v->list.n != n) {
    if (!strict_count) return true;
    return mlc_error(ctx, ctx->build_loc, "'%s': attribute %s lists %d names for %d values", fn->name, key, v->list.n, n);
  }
  for (int i = 0; i < n; i++) {
    const MlcAttrValue *s = &v->list.items[i];
    if (s->kind != MLC_ATTR_STR || !*s->s)
      return mlc_error(ctx, ctx->build_loc, "'%s': attribute %s: item %d is not a non-empty string", fn->name, key, i);
    for (int j = 0; j < i; j++)
      if (strcmp(v->list.items[j].s, s->s) == 0)
        return mlc_error(ctx, ctx->build_loc, "'%s': attribute %s names '%s' twice", fn->name, key, s->s);
  }
  for (int i = 0; i < n; i++) io[i].name = v->list.items[i].s;
  return true;
}

static bool model_build(MlcCtx *ctx, const MlcModule *m, const MlcModelOptions *mo, Model *md) {
  memset(md, 0, sizeof *md);
  if (!c_param_layout(ctx, m, &md->layout)) return false;
  /* for a GPU target the executor calls host functions that run the kernels */
  CFuncWriter *gpu = mo->gpu != MLC_GPU_NONE ? gpu_writer_new(ctx, m, mo->gpu) : NULL;
  CGraph *g = &md->graph;
  bool ok = (mo->gpu == MLC_GPU_NONE || gpu) && c_emit_module_with(ctx, m, &md->module, &md->kernels, gpu) &&
            c_graph_compile(ctx, m, mo->entry, &md->kernels, &md->layout, mo->gpu, g) &&
            named_io(ctx, g->fn, "input_names", g->inputs, g->n_inputs, false) &&
            named_io(ctx, g->fn, "output_names", g->outputs, g->n_outputs, true);
  gpu_writer_free(gpu);
  return ok;
}

static bool emit_c(MlcCtx *ctx, const MlcModule *m, const MlcModelOptions *mo, Model *md, MlcStrBuf *out) {
  mlc_sb_puts(out, mlc_sb_cstr(&md->module));
  mlc_sb_puts(out, "\n");
  mlc_sb_puts(out, mlc_sb_cstr(&md->graph.code));
  if (!extern_resolver(ctx, &md->graph, mo, out)) return false;
  uint8_t *payload = c_param_payload(m, &md->layout);
  uint64_t hash = c_fnv1a64(payload, md->layout.nbytes);
  if (mo->embed_params) {
    mlc_sb_puts(out, "\n/* ---- the weights ---- */\n");
    weights_array(out, payload, md->layout.nbytes);
  }
  model_desc(out, &md->graph, mo, md->layout.nbytes, hash);
  free(payload);
  return true;
}

bool mlc_codegen_model_c(MlcCtx *ctx, const MlcModule *m, const MlcModelOptions *mo, MlcStrBuf *out) {
  MlcModelOptions dflt = {0};
  if (!mo) mo = &dflt;
  Model md;
  bool ok = model_build(ctx, m, mo, &md);
  ok = ok && emit_c(ctx, m, mo, &md, out);
  model_free(&md);
  return ok;
}

/* ---- model.h -------------------------------------------------------------------- */

static bool prefix_ok(const char *p) {
  if (!*p || isdigit((unsigned char)*p)) return false;
  for (; *p; p++)
    if (!isalnum((unsigned char)*p) && *p != '_') return false;
  return true;
}

/* s as a C identifier: other characters become '_', a leading digit gets one */
static void c_ident(MlcStrBuf *sb, const char *s) {
  if (isdigit((unsigned char)*s)) mlc_sb_putc(sb, '_');
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) mlc_sb_putc(sb, isalnum(*p) ? (char)*p : '_');
}

/* enum { MODEL_IN_NAME = i, ... }: positions by name, each name made an
 * identifier (a second name that comes out the same gets _2, _3, ...) */
static void index_enum(MlcStrBuf *o, const char *G, const char *what, const CIo *io, int n) {
  if (!n) return;
  MLC_VEC(char *) seen = {0};
  mlc_sb_puts(o, "enum {");
  for (int i = 0; i < n; i++) {
    MlcStrBuf id = {0};
    mlc_sb_printf(&id, "%s_%s_", G, what);
    c_ident(&id, io[i].name);
    size_t base = id.len;
    for (int k = 2;; k++) {
      bool dup = false;
      for (size_t j = 0; j < seen.len && !dup; j++) dup = strcmp(seen.data[j], mlc_sb_cstr(&id)) == 0;
      if (!dup) break;
      id.len = base;
      mlc_sb_printf(&id, "_%d", k);
    }
    mlc_sb_printf(o, "%s %s = %d", i ? "," : "", mlc_sb_cstr(&id), i);
    mlc_vec_push(&seen, id.data);
  }
  mlc_sb_puts(o, " };\n");
  for (size_t j = 0; j < seen.len; j++) free(seen.data[j]);
  mlc_vec_free(&seen);
}

static void header_io(MlcStrBuf *o, const char *P, const char *what, const CIo *io, int n) {
  char dt[32];
  mlc_sb_printf(o, "static const char *const %s_%s_names[] MLCRT_MODEL_UNUSED = {", P, what);
  for (int i = 0; i < n; i++) {
    if (i) mlc_sb_puts(o, ", ");
    str_lit(o, io[i].name);
  }
  mlc_sb_printf(o, "%s};\nstatic const char *const %s_%s_dtypes[] MLCRT_MODEL_UNUSED = {", n ? "" : "NULL", P, what);
  for (int i = 0; i < n; i++) mlc_sb_printf(o, "%s\"%s\"", i ? ", " : "", mlc_dtype_str(io[i].dtype, dt));
  mlc_sb_printf(o, "%s};\nstatic const int32_t %s_%s_ranks[] MLCRT_MODEL_UNUSED = {", n ? "" : "0", P, what);
  for (int i = 0; i < n; i++) mlc_sb_printf(o, "%s%d", i ? ", " : "", io[i].ndim);
  mlc_sb_printf(o, "%s};\n", n ? "" : "0");
  for (int i = 0; i < n; i++) {
    mlc_sb_printf(o, "static const int64_t %s_%s_dims%d[] MLCRT_MODEL_UNUSED = {", P, what, i);
    for (int d = 0; d < io[i].ndim; d++) mlc_sb_printf(o, "%s%lld", d ? ", " : "", (long long)(io[i].dims[d] < 0 ? -1 : io[i].dims[d]));
    mlc_sb_puts(o, io[i].ndim ? "};\n" : "0};\n");
  }
  mlc_sb_printf(o, "static const int64_t *const %s_%s_dims[] MLCRT_MODEL_UNUSED = {", P, what);
  for (int i = 0; i < n; i++) mlc_sb_printf(o, "%s%s_%s_dims%d", i ? ", " : "", P, what, i);
  mlc_sb_printf(o, "%s};\n", n ? "" : "NULL");
  mlc_sb_puts(o, "\n");
}

static void emit_h(const MlcModelOptions *mo, const Model *md, MlcStrBuf *out) {
  const char *P = mo->prefix ? mo->prefix : "model";
  const CGraph *g = &md->graph;
  MlcStrBuf guard = {0};
  for (const char *p = P; *p; p++) mlc_sb_putc(&guard, (char)toupper((unsigned char)*p));
  const char *G = mlc_sb_cstr(&guard);
  mlc_sb_printf(out, "/* %s.h - generated by mlcc: the C interface of the model compiled from graph function '%s'.\n"
                     " * Link the program with the model's shared object and the mlcc runtime (libmlcrt).\n"
                     " * Dims of -1 are symbolic sizes, bound from the inputs when the model runs. */\n",
                P, g->fn->name);
  mlc_sb_printf(out, "#ifndef %s_MODEL_H\n#define %s_MODEL_H\n\n#include \"mlcc/runtime.h\"\n\n", G, G);
  mlc_sb_puts(out, "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n");
  mlc_sb_puts(out, "#ifndef MLCRT_MODEL_UNUSED\n#if defined(__GNUC__)\n#define MLCRT_MODEL_UNUSED __attribute__((unused))\n"
                   "#else\n#define MLCRT_MODEL_UNUSED\n#endif\n#endif\n\n");
  mlc_sb_puts(out, "extern const MlcrtModelDesc mlcrt_model;\n\n");
  mlc_sb_printf(out, "#define %s_NUM_INPUTS %d\n#define %s_NUM_OUTPUTS %d\n#define %s_NUM_SYMS %d\n\n", G, g->n_inputs, G,
                g->n_outputs, G, g->n_syms);
  header_io(out, P, "input", g->inputs, g->n_inputs);
  header_io(out, P, "output", g->outputs, g->n_outputs);
  mlc_sb_puts(out, "/* positions of the inputs and outputs by name (made C identifiers) */\n");
  index_enum(out, G, "IN", g->inputs, g->n_inputs);
  index_enum(out, G, "OUT", g->outputs, g->n_outputs);
  mlc_sb_puts(out, "\n");
  mlc_sb_printf(out, "/* params_path: the weights file (params.bin); NULL when they are embedded */\n"
                     "static inline MlcrtModel *%s_create(const char *params_path) {\n"
                     "  MlcrtModel *m = NULL;\n"
                     "  return mlcrt_model_create(&mlcrt_model, params_path, &m) == 0 ? m : NULL;\n}\n\n", P);
  mlc_sb_printf(out, "/* outputs[i] point at tensors the model owns, valid until the next run or free */\n"
                     "static inline int %s_run(MlcrtModel *m, DLTensor *const *inputs, DLTensor **outputs) {\n"
                     "  return mlcrt_model_run(m, inputs, %s_NUM_INPUTS, outputs, %s_NUM_OUTPUTS);\n}\n\n", P, G, G);
  mlc_sb_printf(out, "static inline void %s_free(MlcrtModel *m) { mlcrt_model_free(m); }\n\n", P);
  mlc_sb_printf(out, "#ifdef __cplusplus\n}\n#endif\n#endif /* %s_MODEL_H */\n", G);
  mlc_vec_free(&guard);
}

static bool prefix_checked(MlcCtx *ctx, const MlcModelOptions *mo) {
  const char *P = mo->prefix ? mo->prefix : "model";
  return prefix_ok(P) ? true : mlc_error(ctx, ctx->build_loc, "model prefix '%s' is not a C identifier", P);
}

bool mlc_codegen_model_header(MlcCtx *ctx, const MlcModule *m, const MlcModelOptions *mo, MlcStrBuf *out) {
  MlcModelOptions dflt = {0};
  if (!mo) mo = &dflt;
  Model md = {0};
  bool ok = prefix_checked(ctx, mo) && model_build(ctx, m, mo, &md);
  if (ok) emit_h(mo, &md, out);
  model_free(&md);
  return ok;
}

bool c_model_files(MlcCtx *ctx, const MlcModule *m, const MlcModelOptions *mo, MlcStrBuf *c, MlcStrBuf *h) {
  Model md = {0};
  bool ok = prefix_checked(ctx, mo) && model_build(ctx, m, mo, &md);
  ok = ok && emit_c(ctx, m, mo, &md, c);
  if (ok) emit_h(mo, &md, h);
  if (ok && mo->sites && mo->n_sites) {
    const CGraph *g = &md.graph;
    MlcrtCallSite *out = mlc_arena_array(&ctx->arena, (size_t)(g->n_sites ? g->n_sites : 1), sizeof *out);
    for (int i = 0; i < g->n_sites; i++)
      out[i] = (MlcrtCallSite){g->sites[i].callee, g->sites[i].binding, g->sites[i].ops, (int32_t)g->sites[i].kind,
                               g->sites[i].flops, g->sites[i].bytes};
    *mo->sites = out;
    *mo->n_sites = g->n_sites;
  }
  model_free(&md);
  return ok;
}
