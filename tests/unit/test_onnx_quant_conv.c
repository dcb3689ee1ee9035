/* test_onnx_quant_conv.c - ConvInteger and QLinearConv of a constant
 * weight, which the importer computes as an im2col matrix times the weight
 * in uint8 x int8 plus zero-point corrections (onnx_quant_conv.c), and the
 * default schedule tensorizes onto the byte dot-product instruction where
 * the CPU has one, or its pair form (vpmaddwd) on AVX2 / AVX-512 without.
 *
 * One-node models (the input a graph input, the weight an initializer) of
 * random data are imported, compiled for the machine (or $MLC_MARCH) and
 * run, and the result compared with a plain C conv: the sum over the
 * window of (x - x_zp)(w - w_zp) in 64-bit integers, padded taps
 * contributing nothing, and for QLinearConv the bias added and the sum
 * requantized as the operator defines it (the scale x_scale * w_scale /
 * y_scale in float32, w_scale per output channel in one case, the product
 * in float64, rounded half to even, plus
 * y_zp, saturated).  The cases cover uint8 x int8, int8 x int8 and uint8 x
 * uint8, zero points absent, constant (the extremes), per output channel
 * and given at run time (with padding), strides, dilations, uneven pads,
 * and channel and window sizes that are not multiples of 4 or 16.  Where
 * the target has the instruction or the pair form, the compiled model must
 * call it; grouped and depthwise convs keep the int32 conv and are checked
 * against the same reference. */
#include "check.h"
#include "mlcc/schedule.h"
#include "onnx_build.h"
#include "rand_util.h"

#include <math.h>

#define U8 ONNX__TENSOR_PROTO__DATA_TYPE__UINT8
#define S8 ONNX__TENSOR_PROTO__DATA_TYPE__INT8
#define F32 ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT
#define I32 ONNX__TENSOR_PROTO__DATA_TYPE__INT32

static char tmpdir[4096];

enum { NO_ZP = 1000, MAX_OC = 128 };

typedef struct CCase {
  const char *name;
  bool qlinear;           /* QLinearConv (with a bias) rather than ConvInteger */
  int x_type, w_type;
  int n, c, h, w, oc, kh, kw;
  int64_t strides[2], dilations[2], pads[4];
  int za, zb;             /* constant zero points; NO_ZP: absent (ConvInteger only) */
  bool zb_per_oc;         /* w's zero point (and QLinearConv's w_scale) a vector over the output channels */
  bool za_input;          /* x's zero point a graph input (za its value) */
  int group;              /* 0: 1; more keeps the int32 conv (no intrinsic expected) */
} CCase;

static int64_t val(int type, const void *p, size_t i) {
  return type == U8 ? ((const uint8_t *)p)[i] : ((const int8_t *)p)[i];
}

static void put(int type, void *p, size_t i, int64_t v) {
  if (type == U8) ((uint8_t *)p)[i] = (uint8_t)v;
  else ((int8_t *)p)[i] = (int8_t)v;
}

static int64_t rnd(int type) { return type == U8 ? (int64_t)(urand() * 256) : (int64_t)(urand() * 256) - 128; }

static Onnx__AttributeProto *ints_attr(const char *name, const int64_t *v, int k) {
  Onnx__AttributeProto *a = int_attr(name, 0);
  a->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS;
  a->has_i = 0, a->n_ints = (size_t)k, a->ints = (int64_t *)v;
  return a;
}


/* the model calls the dot-product intrinsic the target has (4 bytes with
 * VNNI, pairs with AVX2 / AVX-512 without) */
static bool calls_intrinsic(const CCase *c, const char *dir) {
  if (c->group > 1) return true;
  MlcSchTarget t;
  mlc_sch_target_host(&t);
  bool pairs = !t.dot_lanes && t.vector_bits >= 256 && strcmp(t.name, "avx") != 0;
  if (!t.dot_lanes && !pairs) return true;
  char cmd[4400];
  snprintf(cmd, sizeof cmd, "grep -q mlc_dot%d_u8s8 '%s/model.c'", t.dot_lanes ? 4 : 2, dir);
  if (system(cmd) == 0) return true;
  printf("    %s: the model does not call the dot-product intrinsic\n", c->name);
  return false;
}

typedef struct Data {
  uint8_t x[1 << 16], w[1 << 16], zb[MAX_OC], za[1], yz[1];
  float sx, sw[MAX_OC], sy;
  int32_t bias[MAX_OC];
} Data;

/* the plain C conv: sum of (x - za)(w - zb) over the window, as int32 */
static int32_t ref_sum(const CCase *c, const Data *d, int n, int oc, int oh, int ow) {
  int64_t za = c->za == NO_ZP ? 0 : val(c->x_type, d->za, 0);
  int64_t zb = c->zb == NO_ZP ? 0 : val(c->w_type, d->zb, (size_t)(c->zb_per_oc ? oc : 0)), s = 0;
  int g = c->group ? c->group : 1, cg = c->c / g, c0 = oc / (c->oc / g) * cg;
  for (int ch = c0; ch < c0 + cg; ch++)
    for (int i = 0; i < c->kh; i++)
      for (int j = 0; j < c->kw; j++) {
        int64_t y = oh * c->strides[0] + i * c->dilations[0] - c->pads[0];
        int64_t x = ow * c->strides[1] + j * c->dilations[1] - c->pads[1];
        if (y < 0 || y >= c->h || x < 0 || x >= c->w) continue;
        int64_t xv = val(c->x_type, d->x, (size_t)(((n * c->c + ch) * c->h + y) * c->w + x));
        int64_t wv = val(c->w_type, d->w, (size_t)(((oc * cg + ch - c0) * c->kh + i) * c->kw + j));
        s += (xv - za) * (wv - zb);
      }
  return (int32_t)s;
}

/* QLinearConv's output element from the sum, as the operator defines it */
static int64_t requant(const CCase *c, const Data *d, int32_t acc, int oc) {
  float f = d->sx * d->sw[c->zb_per_oc ? oc : 0];
  f = f / d->sy;
  double v = nearbyint((double)((int64_t)acc + d->bias[oc]) * (double)f) + (double)val(c->x_type, d->yz, 0);
  double lo = c->x_type == U8 ? 0 : -128, hi = c->x_type == U8 ? 255 : 127;
  return (int64_t)(v < lo ? lo : v > hi ? hi : v);
}

static void fill(const CCase *c, Data *d) {
  for (int i = 0; i < c->n * c->c * c->h * c->w; i++) put(c->x_type, d->x, (size_t)i, rnd(c->x_type));
  for (int i = 0; i < c->oc * c->c / (c->group ? c->group : 1) * c->kh * c->kw; i++) put(c->w_type, d->w, (size_t)i, rnd(c->w_type));
  for (int j = 0; j < (c->zb_per_oc ? c->oc : 1); j++) put(c->w_type, d->zb, (size_t)j, c->zb + (c->zb_per_oc ? j % 3 : 0));
  put(c->x_type, d->za, 0, c->za);
  put(c->x_type, d->yz, 0, c->x_type == U8 ? 128 : -3);
  d->sx = 0.02f, d->sy = 0.4f;
  for (int j = 0; j < c->oc; j++) d->sw[j] = 0.005f + 0.001f * (float)(j % 5);
  for (int j = 0; j < c->oc; j++) d->bias[j] = (int32_t)(urand() * 20000) - 10000;
}

/* the one-node model of the case, packed */
static uint8_t *pack_case(const CCase *c, Data *d, size_t *len) {
  int64_t xd[2][4] = {{c->n, c->c, c->h, c->w}, {0}};
  int ranks[2] = {4, 0}, types[2] = {c->x_type, c->x_type};
  Init inits[8];
  int ni = 0;
  int cg = c->c / (c->group ? c->group : 1);
  inits[ni++] = (Init){"w", 4, {c->oc, cg, c->kh, c->kw}, d->w, (size_t)(c->oc * cg * c->kh * c->kw), c->w_type};
  if (c->za != NO_ZP && !c->za_input) inits[ni++] = (Init){"xz", 0, {0}, d->za, 1, c->x_type};
  if (c->zb != NO_ZP)
    inits[ni++] = (Init){"wz", c->zb_per_oc ? 1 : 0, {c->oc}, d->zb, (size_t)(c->zb_per_oc ? c->oc : 1), c->w_type};
  char *ins[9], *outs[1] = {"y"}, *gins[2] = {"x", "xz"};
  int n_in;
  if (c->qlinear) {
    inits[ni++] = (Init){"xs", 0, {0}, &d->sx, 4, F32};
    inits[ni++] = (Init){"ws", c->zb_per_oc ? 1 : 0, {c->oc}, d->sw, (size_t)(c->zb_per_oc ? c->oc : 1) * 4, F32};
    inits[ni++] = (Init){"ys", 0, {0}, &d->sy, 4, F32};
    inits[ni++] = (Init){"yz", 0, {0}, d->yz, 1, c->x_type};
    inits[ni++] = (Init){"b", 1, {c->oc}, d->bias, (size_t)c->oc * 4, I32};
    char *q[9] = {"x", "xs", "xz", "w", "ws", "wz", "ys", "yz", "b"};
    memcpy(ins, q, sizeof q);
    n_in = 9;
  } else {
    char *q[4] = {"x", "w", c->za == NO_ZP ? "" : "xz", c->zb == NO_ZP ? "" : "wz"};
    memcpy(ins, q, sizeof q);
    n_in = c->zb != NO_ZP ? 4 : c->za != NO_ZP ? 3 : 2;
  }
  Onnx__AttributeProto *at[4] = {ints_attr("strides", c->strides, 2), ints_attr("dilations", c->dilations, 2),
                                 ints_attr("pads", c->pads, 4), int_attr("group", c->group ? c->group : 1)};
  OneNode o = {c->qlinear ? "QLinearConv" : "ConvInteger", NULL, 13, ins, n_in, outs, 1, at, 4,
               c->za_input ? 2 : 1, (const int64_t(*)[4])xd, ranks, inits, ni, gins};
  uint8_t *buf = pack_one_node_typed(&o, types, len);
  for (int i = 0; i < 4; i++) free(at[i]);
  return buf;
}

static bool run_case(const CCase *c) {
  static Data d;
  fill(c, &d);
  size_t len;
  uint8_t *buf = pack_case(c, &d, &len);
  char dir[4200];
  snprintf(dir, sizeof dir, "%s/%s", tmpdir, c->name);
  MlcrtModel *rm = buf ? onnx_build_load_host(buf, len, dir) : NULL;
  free(buf);
  bool ok = rm && calls_intrinsic(c, dir);
  const void *y = NULL;
  if (ok) {
    DLDataType dt = {(uint8_t)(c->x_type == U8 ? kDLUInt : kDLInt), 8, 1};
    int64_t xshape[4] = {c->n, c->c, c->h, c->w}, zshape[1] = {0};
    DLTensor xt = {.data = d.x, .device = {kDLCPU, 0}, .ndim = 4, .dtype = dt, .shape = xshape};
    DLTensor zt = {.data = d.za, .device = {kDLCPU, 0}, .ndim = 0, .dtype = dt, .shape = zshape};
    DLTensor *in[2] = {&xt, &zt}, *out[1] = {NULL};
    if (mlcrt_model_run(rm, in, c->za_input ? 2 : 1, out, 1) != 0) ok = false, printf("    %s: run: %s\n", c->name, mlcrt_last_error());
    else y = out[0]->data;
  }
  int oh_n = (int)((c->h + c->pads[0] + c->pads[2] - (c->kh - 1) * c->dilations[0] - 1) / c->strides[0] + 1);
  int ow_n = (int)((c->w + c->pads[1] + c->pads[3] - (c->kw - 1) * c->dilations[1] - 1) / c->strides[1] + 1);
  size_t at = 0;
  for (int n = 0; ok && n < c->n; n++)
    for (int oc = 0; ok && oc < c->oc; oc++)
      for (int oh = 0; ok && oh < oh_n; oh++)
        for (int ow = 0; ok && ow < ow_n; ow++, at++) {
          int32_t s = ref_sum(c, &d, n, oc, oh, ow);
          int64_t want = c->qlinear ? requant(c, &d, s, oc) : s;
          int64_t got = c->qlinear ? val(c->x_type, y, at) : ((const int32_t *)y)[at];
          if (got != want)
            ok = false, printf("    %s: y[%d, %d, %d, %d] is %lld, expected %lld\n", c->name, n, oc, oh, ow,
                               (long long)got, (long long)want);
        }
  if (rm) mlcrt_model_free(rm);
  bu_remove_dir(dir);
  return ok;
}

#define ONE {1, 1}
static const CCase cases[] = {
    /* name, qlinear, x, w, n, c, h, w, oc, kh, kw, strides, dilations, pads, za, zb, per oc, za input, group */
    {"u8s8_3x3_pad1", false, U8, S8, 1, 16, 9, 9, 32, 3, 3, ONE, ONE, {1, 1, 1, 1}, 3, NO_ZP, false, false, 1},
    {"u8s8_zps_odd", false, U8, S8, 1, 5, 7, 6, 12, 3, 3, ONE, ONE, {1, 1, 1, 1}, 255, -128, false, false, 1},
    {"u8s8_plain_1x1", false, U8, S8, 2, 8, 5, 5, 16, 1, 1, ONE, ONE, {0, 0, 0, 0}, NO_ZP, NO_ZP, false, false, 1},
    {"s8s8_stride2", false, S8, S8, 1, 6, 11, 10, 20, 3, 3, {2, 2}, ONE, {1, 0, 2, 1}, -128, 127, false, false, 1},
    {"u8u8_dilated", false, U8, U8, 1, 4, 10, 9, 8, 3, 2, {1, 2}, {2, 1}, {2, 1, 0, 1}, 7, 128, false, false, 1},
    {"per_oc", false, U8, S8, 1, 3, 8, 8, 24, 5, 5, ONE, ONE, {2, 2, 2, 2}, 100, -5, true, false, 1},
    {"za_at_run_time", false, U8, S8, 1, 7, 6, 7, 16, 3, 3, {2, 1}, ONE, {1, 1, 1, 1}, 17, 9, false, true, 1},
    {"qlinear_u8s8", true, U8, S8, 1, 16, 8, 8, 32, 3, 3, ONE, ONE, {1, 1, 1, 1}, 120, 0, false, false, 1},
    {"qlinear_s8s8_odd", true, S8, S8, 2, 5, 7, 5, 10, 3, 3, {2, 2}, ONE, {1, 1, 1, 1}, -7, 3, true, false, 1},
    {"qlinear_u8u8", true, U8, U8, 1, 3, 6, 6, 17, 2, 2, ONE, ONE, {0, 0, 1, 1}, 250, 130, false, false, 1},
    /* grouped: the int32 conv, which must agree all the same */
    {"grouped", false, U8, S8, 1, 8, 6, 6, 12, 3, 3, ONE, ONE, {1, 1, 1, 1}, 9, -2, false, false, 2},
    {"qlinear_depthwise", true, U8, S8, 1, 8, 6, 6, 8, 3, 3, ONE, ONE, {1, 1, 1, 1}, 9, 1, false, false, 8},
};

static void test_conv_integer_const_weight(void) {
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    bool ok = run_case(&cases[i]);
    if (!ok) printf("    (case %s)\n", cases[i].name);
    CHECK(ok);
  }
}

int main(void) {
  if (!bu_make_tmpdir(tmpdir, sizeof tmpdir, "mlcc-qconv")) {
    printf("FAIL setup: cannot create a temporary directory\n");
    return 1;
  }
  RUN(test_conv_integer_const_weight);
  bu_remove_dir(tmpdir);
  return CHECK_DONE();
}
