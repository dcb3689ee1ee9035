/* c_dyn.c - the model executor's sizes read from tensors at run time:
 * tensor_to_shape and reshapes to such sizes (see c_graph.c). */
#include "c_graph.h"
#include "ops/dyn_modes.h"
#include "mlcc/arith.h"

#include <stdio.h>
#include <string.h>

/* ---- sizes read from tensors ------------------------------------------------------ */

/* The run's side of tensor_to_shape (src/ops/dynshape.c): the values of a
 * tensor made into a shape by the op's mode, checked, and capped so that a
 * hostile tensor cannot make the run allocate without bound.  Emitted only
 * into executors that read sizes. */
const char cg_dyn_preamble[] =
    "#include <stdio.h>\n"
    "/* the largest size, and element count of a shape of read values, the run accepts */\n"
    "#define MLC_DYN_MAX_DIM INT64_C(2147483647)\n"
    "#define MLC_DYN_MAX_NUMEL (INT64_C(1) << 28)\n"
    "/* out[0..n) from the values v[0..k) and the dims like[0..r) of the tensor the\n"
    " * mode relates them to; the modes are tensor_to_shape's (MLC_DYN_VALUES, a\n"
    " * reshape of `like`, an expand of it, like's shape with axes kept as 1,\n"
    " * dropped, squeezed or inserted, tiled, at most its element count, the\n"
    " * parts of a split dim, sliced, padded; range and resize have functions\n"
    " * of their own) */\n"
    "static int32_t mlc_dyn_shape(int mode, const int64_t *v, int k, const int64_t *like, int r, int64_t *out,\n"
    "                             int n, const char *what, const MlcrtEnv *env) {\n"
    "  char msg[256];\n"
    "  int unknown = -1;\n"
    "  if (mode == MLC_DYN_PAD || mode == MLC_DYN_PAD_COPY) {\n"
    "    int q = k / 3;\n"
    "    unsigned char on[64] = {0};\n"
    "    int64_t numel = 1;\n"
    "    for (int d = 0; d < r && d < n; d++) out[d] = like[d];\n"
    "    for (int j = 0; j < q; j++) {\n"
    "      int64_t b = v[j], e = v[q + j], a = v[2 * q + j] < 0 ? v[2 * q + j] + r : v[2 * q + j];\n"
    "      if (r != n || r > 64 || a < 0 || a >= r || on[a]) {\n"
    "        snprintf(msg, sizeof msg, \"%s: pad %d: axis %lld is out of range for rank %d or given twice\", what, j,\n"
    "                 (long long)v[2 * q + j], r);\n"
    "        goto fail;\n"
    "      }\n"
    "      on[a] = 1;\n"
    "      if (b < -MLC_DYN_MAX_DIM || b > MLC_DYN_MAX_DIM || e < -MLC_DYN_MAX_DIM || e > MLC_DYN_MAX_DIM ||\n"
    "          like[a] + b + e < 0 || (mode == MLC_DYN_PAD_COPY && like[a] == 0 && like[a] + b + e > 0)) {\n"
    "        snprintf(msg, sizeof msg, \"%s: pads %lld, %lld of axis %lld (of size %lld) are too large, crop more than \"\n"
    "                 \"it holds, or pad it while it is empty\", what, (long long)b, (long long)e, (long long)a,\n"
    "                 (long long)like[a]);\n"
    "        goto fail;\n"
    "      }\n"
    "      out[a] = like[a] + b + e;\n"
    "    }\n"
    "    for (int i = 0; i < n; i++) {\n"
    "      if (out[i] > MLC_DYN_MAX_DIM || (out[i] && numel > MLC_DYN_MAX_NUMEL / out[i])) {\n"
    "        snprintf(msg, sizeof msg, \"%s: a padded shape of more elements than a shape read at run time may hold \"\n"
    "                 \"(%lld)\", what, (long long)MLC_DYN_MAX_NUMEL);\n"
    "        goto fail;\n"
    "      }\n"
    "      numel *= out[i];\n"
    "    }\n"
    "    return 0;\n"
    "  }\n"
    "  if (mode == MLC_DYN_SLICE) {\n"
    "    int q = k / 4;\n"
    "    unsigned char on[64] = {0};\n"
    "    for (int d = 0; d < r && d < n; d++) out[d] = like[d];\n"
    "    for (int j = 0; j < q; j++) {\n"
    "      int64_t b = v[j], e = v[q + j], a = v[2 * q + j] < 0 ? v[2 * q + j] + r : v[2 * q + j], s = v[3 * q + j];\n"
    "      if (r != n || r > 64 || a < 0 || a >= r || on[a] || s == 0) {\n"
    "        snprintf(msg, sizeof msg, \"%s: slice %d: axis %lld is out of range for rank %d or given twice, or step %lld is 0\",\n"
    "                 what, j, (long long)v[2 * q + j], r, (long long)s);\n"
    "        goto fail;\n"
    "      }\n"
    "      on[a] = 1;\n"
    "      int64_t d = like[a];\n"
    "      if (b < 0) b += d;\n"
    "      if (e < 0) e += d;\n"
    "      if (s > 0) {\n"
    "        b = b < 0 ? 0 : b > d ? d : b;\n"
    "        e = e < 0 ? 0 : e > d ? d : e;\n"
    "        out[a] = e > b ? (e - b - 1) / s + 1 : 0;\n"
    "      } else {\n"
    "        b = b < -1 ? -1 : b > d - 1 ? d - 1 : b;\n"
    "        e = e < -1 ? -1 : e > d - 1 ? d - 1 : e;\n"
    "        out[a] = b > e ? (b - e - 1) / (s == INT64_MIN ? INT64_MAX : -s) + 1 : 0;\n"
    "      }\n"
    "    }\n"
    "    return 0;\n"
    "  }\n"
    "  if (mode == MLC_DYN_SPLIT) {\n"
    "    int64_t sum = 0;\n"
    "    for (int i = 0; i < n; i++) {\n"
    "      if (v[i] < 0 || v[i] > like[0] - sum) {\n"
    "        snprintf(msg, sizeof msg, \"%s: split size %d (%lld) is negative or past the dim's %lld\", what, i,\n"
    "                 (long long)v[i], (long long)like[0]);\n"
    "        goto fail;\n"
    "      }\n"
    "      out[i] = v[i];\n"
    "      sum += v[i];\n"
    "    }\n"
    "    if (sum == like[0]) return 0;\n"
    "    snprintf(msg, sizeof msg, \"%s: split sizes add up to %lld, not the dim's %lld\", what, (long long)sum,\n"
    "             (long long)like[0]);\n"
    "    goto fail;\n"
    "  }\n"
    "  if (mode >= MLC_DYN_REDUCE_KEEP && mode <= MLC_DYN_UNSQUEEZE) {\n"
    "    int rr = mode == MLC_DYN_UNSQUEEZE ? n : r, o = 0, j2 = 0;\n"
    "    unsigned char on[64] = {0};\n"
    "    for (int j = 0; j < k; j++) {\n"
    "      int64_t a = v[j] < 0 ? v[j] + rr : v[j];\n"
    "      if (rr > 64 || a < 0 || a >= rr || on[a]) {\n"
    "        snprintf(msg, sizeof msg, \"%s: axis %lld is out of range for rank %d or given twice\", what,\n"
    "                 (long long)v[j], rr);\n"
    "        goto fail;\n"
    "      }\n"
    "      if (mode == MLC_DYN_SQUEEZE && like[a] != 1) {\n"
    "        snprintf(msg, sizeof msg, \"%s: axis %lld has size %lld, not 1\", what, (long long)v[j], (long long)like[a]);\n"
    "        goto fail;\n"
    "      }\n"
    "      on[a] = 1;\n"
    "    }\n"
    "    for (int d = 0; mode == MLC_DYN_UNSQUEEZE && d < n; d++) out[o++] = on[d] || j2 >= r ? 1 : like[j2++];\n"
    "    for (int d = 0; mode != MLC_DYN_UNSQUEEZE && d < r; d++)\n"
    "      if (mode == MLC_DYN_REDUCE_KEEP || !on[d]) out[o++] = on[d] ? 1 : like[d];\n"
    "    if (o == n && (mode != MLC_DYN_UNSQUEEZE || j2 == r)) return 0;\n"
    "    snprintf(msg, sizeof msg, \"%s: %d axes leave %d dims, not %d\", what, k, o, n);\n"
    "    goto fail;\n"
    "  }\n"
    "  for (int i = 0; i < n; i++) {\n"
    "    int64_t s;\n"
    "    if (mode == MLC_DYN_AT_MOST) {\n"
    "      int64_t total = 1;\n"
    "      for (int j = 0; j < r; j++) total *= like[j];\n"
    "      if (v[i] < 0 || v[i] > total) {\n"
    "        snprintf(msg, sizeof msg, \"%s: value %d (%lld) is negative or more than %lld\", what, i, (long long)v[i],\n"
    "                 (long long)total);\n"
    "        goto fail;\n"
    "      }\n"
    "      out[i] = v[i];\n"
    "      continue;\n"
    "    }\n"
    "    if (mode == MLC_DYN_TILE) {\n"
    "      if (v[i] < 0 || (v[i] && like[i] > INT64_MAX / v[i])) {\n"
    "        snprintf(msg, sizeof msg, \"%s: repeat %d is negative or too large (%lld)\", what, i, (long long)v[i]);\n"
    "        goto fail;\n"
    "      }\n"
    "      out[i] = like[i] * v[i];\n"
    "      continue;\n"
    "    }\n"
    "    if (mode == MLC_DYN_EXPAND) {\n"
    "      int64_t x = i >= n - r ? like[i - (n - r)] : 1;\n"
    "      s = i >= n - k ? v[i - (n - k)] : 1;\n"
    "      if (s < 0 || (s != x && s != 1 && x != 1)) {\n"
    "        snprintf(msg, sizeof msg, \"%s: shape value %lld does not broadcast with dim %lld\", what, (long long)s,\n"
    "                 (long long)x);\n"
    "        goto fail;\n"
    "      }\n"
    "      out[i] = x == 1 ? s : x;\n"
    "      continue;\n"
    "    }\n"
    "    s = v[i];\n"
    "    if (mode == MLC_DYN_RESHAPE && s == 0) {\n"
    "      if (i >= r) {\n"
    "        snprintf(msg, sizeof msg, \"%s: value %d is 0 but the input has %d dims\", what, i, r);\n"
    "        goto fail;\n"
    "      }\n"
    "      s = like[i];\n"
    "    }\n"
    "    if (mode != MLC_DYN_VALUES && s == -1) {\n"
    "      if (unknown >= 0) {\n"
    "        snprintf(msg, sizeof msg, \"%s: more than one value is -1\", what);\n"
    "        goto fail;\n"
    "      }\n"
    "      unknown = i;\n"
    "      out[i] = 1;\n"
    "      continue;\n"
    "    }\n"
    "    if (s < 0) {\n"
    "      snprintf(msg, sizeof msg, \"%s: value %d is negative (%lld)\", what, i, (long long)s);\n"
    "      goto fail;\n"
    "    }\n"
    "    out[i] = s;\n"
    "  }\n"
    "  int64_t numel = 1;\n"
    "  for (int i = 0; i < n; i++) {\n"
    "    if (out[i] > MLC_DYN_MAX_DIM || (out[i] && numel > INT64_MAX / out[i])) {\n"
    "      snprintf(msg, sizeof msg, \"%s: size %lld is too large\", what, (long long)out[i]);\n"
    "      goto fail;\n"
    "    }\n"
    "    numel *= out[i];\n"
    "  }\n"
    "  if (mode == MLC_DYN_RESHAPE || mode == MLC_DYN_RESHAPE_ALLOWZERO) {\n"
    "    int64_t total = 1;\n"
    "    for (int i = 0; i < r; i++) total *= like[i];\n"
    "    if (unknown >= 0) {\n"
    "      if (numel == 0 || total % numel != 0) {\n"
    "        snprintf(msg, sizeof msg, \"%s: no size for the -1 makes the input's %lld elements fit\", what,\n"
    "                 (long long)total);\n"
    "        goto fail;\n"
    "      }\n"
    "      out[unknown] = total / numel;\n"
    "      numel = total;\n"
    "    }\n"
    "    if (numel != total) {\n"
    "      snprintf(msg, sizeof msg, \"%s: the input's %lld elements cannot take a shape of %lld\", what,\n"
    "               (long long)total, (long long)numel);\n"
    "      goto fail;\n"
    "    }\n"
    "  } else if (numel > MLC_DYN_MAX_NUMEL) { /* values, expand, tile */\n"
    "    snprintf(msg, sizeof msg, \"%s: a shape of %lld elements is more than a shape read at run time may hold (%lld)\",\n"
    "             what, (long long)numel, (long long)MLC_DYN_MAX_NUMEL);\n"
    "    goto fail;\n"
    "  }\n"
    "  return 0;\n"
    "fail:\n"
    "  env->set_error(msg);\n"
    "  return -1;\n"
    "}\n"
    "/* out[0..r): the dims like[0..r) resized by v = [kind, mask, v (r), roi (2r)],\n"
    " * image.resize2d_dynamic's params: the dims in the bit mask by the scales v\n"
    " * (kind 0), to the sizes v (1), or by the least (2) or greatest (3) of\n"
    " * v_d / like[d] over them */\n"
    "static int32_t mlc_dyn_resize(const double *v, int k, const int64_t *like, int r, int64_t *out, const char *what,\n"
    "                              const MlcrtEnv *env) {\n"
    "  char msg[256];\n"
    "  int64_t numel = 1;\n"
    "  if (k != 2 + 3 * r || r > 16 || !(v[0] >= 0 && v[0] <= 3) || !(v[1] >= 0 && v[1] < 65536)) {\n"
    "    snprintf(msg, sizeof msg, \"%s: malformed resize parameters\", what);\n"
    "    goto fail;\n"
    "  }\n"
    "  int kind = (int)v[0];\n"
    "  long mask = (long)v[1];\n"
    "  double s = kind == 2 ? INFINITY : 0;\n"
    "  for (int d = 0; d < 2 * r; d++)\n"
    "    if (!(fabs(v[2 + r + d]) <= 1048576)) {\n"
    "      snprintf(msg, sizeof msg, \"%s: roi value %d (%g) is not a number of magnitude at most 2^20\", what, d,\n"
    "               v[2 + r + d]);\n"
    "      goto fail;\n"
    "    }\n"
    "  for (int d = 0; d < r; d++) {\n"
    "    double z = v[2 + d];\n"
    "    if (!(mask >> d & 1)) continue;\n"
    "    if (kind == 0 ? !(z > 0 && z <= (double)MLC_DYN_MAX_DIM) : !(z >= 1 && z <= (double)MLC_DYN_MAX_DIM)) {\n"
    "      snprintf(msg, sizeof msg, \"%s: %s %g of dim %d is not a positive %s of at most %lld\", what,\n"
    "               kind ? \"size\" : \"scale\", z, d, kind ? \"integer\" : \"number\", (long long)MLC_DYN_MAX_DIM);\n"
    "      goto fail;\n"
    "    }\n"
    "    if (kind >= 2 && like[d] < 1) {\n"
    "      snprintf(msg, sizeof msg, \"%s: dim %d is empty, so its aspect ratio cannot be kept\", what, d);\n"
    "      goto fail;\n"
    "    }\n"
    "    if (kind >= 2) s = kind == 2 ? fmin(s, z / (double)like[d]) : fmax(s, z / (double)like[d]);\n"
    "  }\n"
    "  for (int d = 0; d < r; d++) {\n"
    "    double o = !(mask >> d & 1) ? (double)like[d] : kind == 0 ? floor((double)like[d] * v[2 + d])\n"
    "             : kind == 1 ? v[2 + d] : nearbyint(s * (double)like[d]);\n"
    "    if ((mask >> d & 1) && !(o >= 1 && o <= (double)MLC_DYN_MAX_DIM)) {\n"
    "      snprintf(msg, sizeof msg, \"%s: dim %d would be resized to %g, not a size from 1 to %lld\", what, d, o,\n"
    "               (long long)MLC_DYN_MAX_DIM);\n"
    "      goto fail;\n"
    "    }\n"
    "    out[d] = (int64_t)o;\n"
    "    if (out[d] && numel > MLC_DYN_MAX_NUMEL / out[d]) {\n"
    "      snprintf(msg, sizeof msg, \"%s: a resized shape of more elements than a shape read at run time may hold \"\n"
    "               \"(%lld)\", what, (long long)MLC_DYN_MAX_NUMEL);\n"
    "      goto fail;\n"
    "    }\n"
    "    numel *= out[d];\n"
    "  }\n"
    "  return 0;\n"
    "fail:\n"
    "  env->set_error(msg);\n"
    "  return -1;\n"
    "}\n"
    "/* out[0]: the length of a range v = (start, limit, delta) */\n"
    "static int32_t mlc_dyn_range(const double *v, int64_t *out, const char *what, const MlcrtEnv *env) {\n"
    "  char msg[256];\n"
    "  double c = v[2] != 0 ? ceil((v[1] - v[0]) / v[2]) : 0;\n"
    "  if (v[2] == 0 || c != c) {\n"
    "    snprintf(msg, sizeof msg, \"%s: a range with delta 0, or of values that are not numbers\", what);\n"
    "    goto fail;\n"
    "  }\n"
    "  if (c > (double)MLC_DYN_MAX_NUMEL) {\n"
    "    snprintf(msg, sizeof msg, \"%s: a range of %g elements is more than a shape read at run time may hold\", what, c);\n"
    "    goto fail;\n"
    "  }\n"
    "  out[0] = c > 0 ? (int64_t)c : 0;\n"
    "  return 0;\n"
    "fail:\n"
    "  env->set_error(msg);\n"
    "  return -1;\n"
    "}\n\n";

/* the most values tensor_to_shape reads and dims it binds (copied on the stack) */
#define DYN_MAX_VALUES 64

/* the host's copy of tensor t is current (GPU targets) before the executor reads it */
static void emit_host_read(G *g, const GVal *t, const char *name) {
  if (g->gpu == MLC_GPU_NONE) return;
  mlc_sb_printf(&g->body, "    int64_t %s_s[] = ", name);
  cg_c_dims(g, t, &g->body);
  mlc_sb_printf(&g->body, ";\n    mlc_dltensor %s = {%s, {1, 0}, %d, {%d, %d, %d}, %s_s, NULL, 0};\n", name, t->data, t->ndim,
                c_dl_code(t->dtype), c_dl_bits(t->dtype), t->dtype.lanes, name);
  mlc_sb_printf(&g->body, "    if ((rc = mlc_gpu_host(mlc_g, &%s, 0)) != 0) goto mlc_done;\n", name);
}

/* the string attribute key of an op call, or dflt */
static const char *str_attr(G *g, const MlcGExpr *call, const char *key, const char *dflt) {
  const MlcAttrValue *v = mlc_attrs_get(call->call.attrs, mlc_intern(g->ctx, key));
  return v && v->kind == MLC_ATTR_STR ? v->s : dflt;
}

/* the int attribute key of an op call, or dflt */
static int64_t int_attr(G *g, const MlcGExpr *call, const char *key, int64_t dflt) {
  const MlcAttrValue *v = mlc_attrs_get(call->call.attrs, mlc_intern(g->ctx, key));
  return v && v->kind == MLC_ATTR_INT ? v->i : dflt;
}

/* R.tensor_to_shape(data, like?, shape=[...], mode=...): the values read,
 * made a shape, each dim bound (a var seen for the first time) or checked */
GVal *cg_tensor_to_shape(G *g, const MlcGExpr *call) {
  const MlcSInfo *s = call->sinfo;
  int mode = mlc_dyn_mode(str_attr(g, call, "mode", "values"));
  bool range = mode == MLC_DYN_RANGE, resize = mode == MLC_DYN_RESIZE, takes_like = mode > MLC_DYN_VALUES && !range;
  if (!s || s->kind != MLC_SINFO_SHAPE || !s->shape.values || mode < 0 || call->call.n < 1 ||
      takes_like != (call->call.n > 1))
    return cg_gerr(g, "binding '%s': R.tensor_to_shape whose struct info was not inferred", g->bname), NULL;
  GVal *d = cg_resolve_tensor(g, call->call.args[0], "the values of R.tensor_to_shape");
  GVal *like = takes_like ? cg_resolve_tensor(g, call->call.args[1], "the like argument of R.tensor_to_shape") : NULL;
  int64_t k;
  if (!d || (takes_like && !like)) return NULL;
  if (d->ndim != 1 || !mlc_e_is_const_int(d->shape[0], &k) ||
      (range || resize ? d->dtype.code != MLC_TC_FLOAT || d->dtype.bits != 64 || (range && (k != 3 || s->shape.ndim != 1))
             : d->dtype.code != MLC_TC_INT || (d->dtype.bits != 32 && d->dtype.bits != 64)))
    return cg_gerr(g, "binding '%s': R.tensor_to_shape reads a 1-D int32 or int64 tensor of static length (3 float64 "
                   "values in modes \"range\" and \"resize\")", g->bname), NULL;
  int n = s->shape.ndim;
  if (k > DYN_MAX_VALUES || n > DYN_MAX_VALUES)
    return cg_gerr(g, "binding '%s': R.tensor_to_shape of more than %d values or dims", g->bname, DYN_MAX_VALUES), NULL;
  g->dyn_used = true;
  mlc_sb_printf(&g->body, "  { /* %s = cg_tensor_to_shape(..., mode=\"%s\") */\n", g->bname, mlc_dyn_mode_name(mode));
  emit_host_read(g, d, "mlc_tv");
  if (like) emit_host_read(g, like, "mlc_tl");
  if (range) {
    mlc_sb_printf(&g->body, "    int64_t mlc_o[1];\n    if ((rc = mlc_dyn_range((const double *)%s, mlc_o, \"%s: binding '%s'\", "
                            "env)) != 0) goto mlc_done;\n", d->data, g->fn->name, g->bname);
  } else if (resize) {
    mlc_sb_printf(&g->body, "    int64_t mlc_o[%d];\n    const int64_t mlc_l[] = ", n ? n : 1);
    if (!cg_c_dims(g, like, &g->body)) return NULL;
    mlc_sb_printf(&g->body, ";\n    if ((rc = mlc_dyn_resize((const double *)%s, %lld, mlc_l, %d, mlc_o, \"%s: binding '%s'\", "
                            "env)) != 0) goto mlc_done;\n", d->data, (long long)k, like->ndim, g->fn->name, g->bname);
  } else {
    mlc_sb_printf(&g->body, "    const int%d_t *mlc_p = (const int%d_t *)%s;\n    int64_t mlc_v[%lld], mlc_o[%d];\n",
                  d->dtype.bits, d->dtype.bits, d->data, (long long)(k ? k : 1), n ? n : 1);
    mlc_sb_printf(&g->body, "    for (int i = 0; i < %lld; i++) mlc_v[i] = mlc_p[i];\n", (long long)k);
    mlc_sb_puts(&g->body, "    const int64_t mlc_l[] = ");
    int64_t axis = int_attr(g, call, "axis", 0);
    if (mode == MLC_DYN_SPLIT) { /* only the dim at axis, checked in range by the op */
      if (axis < 0 || axis >= like->ndim) return cg_gerr(g, "binding '%s': split axis out of range", g->bname), NULL;
      mlc_sb_puts(&g->body, "{");
      if (!cg_c_dim(g, like->shape[axis], &g->body)) return NULL;
      mlc_sb_puts(&g->body, "}");
    } else if (like ? !cg_c_dims(g, like, &g->body) : (mlc_sb_puts(&g->body, "{0}"), false)) {
      return NULL;
    }
    mlc_sb_printf(&g->body, ";\n    if ((rc = mlc_dyn_shape(%d, mlc_v, %lld, mlc_l, %d, mlc_o, %d, \"%s: binding '%s'\", env)) != 0)"
                            " goto mlc_done;\n", mode, (long long)k, mode == MLC_DYN_SPLIT ? 1 : like ? like->ndim : 0, n,
                  g->fn->name, g->bname);
  }
  for (int i = 0; i < n; i++) {
    const MlcExpr *e = s->shape.values[i];
    if (e->kind == MLC_EXPR_VAR && cg_sym_index(g, e) < 0 && cg_dsym_index(g, e) < 0) {
      mlc_vec_push(&g->dsyms, e);
      mlc_sb_printf(&g->body, "    fr->mlc_dsym[%zu] = mlc_o[%d]; /* %s */\n", g->dsyms.len - 1, i, e->var.name);
      continue;
    }
    mlc_sb_printf(&g->body, "    if (mlc_o[%d] != ", i);
    if (!cg_c_dim(g, e, &g->body)) return NULL;
    mlc_sb_printf(&g->body, ") {\n      env->set_error(\"%s: binding '%s': value %d read at run time differs from the size "
                            "the graph expects\");\n      rc = -1;\n      goto mlc_done;\n    }\n", g->fn->name, g->bname, i);
  }
  mlc_sb_puts(&g->body, "  }\n");
  GVal *v = cg_gv_new(g, GV_EXPR);
  v->expr = mlc_g_shape(g->ctx, s->shape.values, n);
  return v;
}

/* R.reshape_dynamic(x, shape=[...]): x's bytes copied into a run-time
 * allocation of the new shape, once the element counts are found equal */
GVal *cg_reshape_dynamic(G *g, const MlcGExpr *call) {
  const MlcSInfo *s = call->sinfo;
  GVal *x = call->call.n == 1 ? cg_resolve_tensor(g, call->call.args[0], "the x of R.reshape_dynamic") : NULL;
  if (!x) return mlc_has_error(g->ctx) ? NULL : (cg_gerr(g, "binding '%s': R.reshape_dynamic takes one tensor", g->bname), NULL);
  if (!s || s->kind != MLC_SINFO_TENSOR || !s->tensor.shape || !mlc_dtype_eq(s->tensor.dtype, x->dtype))
    return cg_gerr(g, "binding '%s': R.reshape_dynamic whose struct info was not inferred", g->bname), NULL;
  GVal *t = cg_gv_new(g, GV_TENSOR);
  t->ndim = s->tensor.ndim;
  t->shape = s->tensor.shape;
  t->dtype = x->dtype;
  t->alloc = g->n_allocs++;
  t->align = C_PARAM_ALIGN;
  t->data = mlc_internf(g->ctx, "fr->mlc_a%d", t->alloc);
  mlc_sb_printf(&g->decls, "  void *mlc_a%d; /* %s */\n", t->alloc, g->bname);
  mlc_sb_printf(&g->body, "  { /* %s = cg_reshape_dynamic(...) */\n", g->bname);
  emit_host_read(g, x, "mlc_tx");
  mlc_sb_puts(&g->body, "    size_t mlc_xb;\n    {\n");
  if (!cg_emit_nbytes(g, x, g->bname)) return NULL;
  mlc_sb_puts(&g->body, "      mlc_xb = mlc_nb;\n    }\n");
  if (!cg_emit_nbytes(g, t, g->bname)) return NULL;
  mlc_sb_printf(&g->body, "    if (mlc_nb != mlc_xb) {\n      env->set_error(\"%s: binding '%s': the reshape changes the "
                          "element count\");\n      rc = -1;\n      goto mlc_done;\n    }\n", g->fn->name, g->bname);
  mlc_sb_printf(&g->body, "    if (!(fr->mlc_a%d = env->workspace_alloc(mlc_nb, %d))) {\n      rc = -1;\n      goto mlc_done;\n    }\n",
                t->alloc, C_PARAM_ALIGN);
  mlc_sb_printf(&g->body, "    if (mlc_nb) memcpy(fr->mlc_a%d, %s, mlc_nb);\n", t->alloc, x->data);
  if (g->gpu != MLC_GPU_NONE) {
    mlc_sb_printf(&g->body, "    int64_t mlc_ty_n = (int64_t)mlc_nb;\n"
                            "    mlc_dltensor mlc_ty = {fr->mlc_a%d, {1, 0}, 1, {1, 8, 1}, &mlc_ty_n, NULL, 0};\n"
                            "    if ((rc = mlc_gpu_host(mlc_g, &mlc_ty, 1)) != 0) goto mlc_done;\n", t->alloc);
  }
  mlc_sb_puts(&g->body, "  }\n");
  return t;
}
