/* test_onnx_quant_dot.c - MatMulInteger of a constant weight, which the
 * importer computes as a uint8 x int8 matmul plus zero-point corrections
 * (onnx_quant_dot.c) and the default schedule tensorizes onto the byte
 * dot-product instruction where the CPU has one.
 *
 * One-node models (activations a graph input, the weight an initializer)
 * are imported, compiled for the machine (or $MLC_MARCH) and run, and the
 * result compared with a plain C sum of (a - a_zp)(b - b_zp) in 64-bit
 * integers: uint8 x int8, int8 x int8 and uint8 x uint8, with zero points
 * absent, constant (the extremes -128, 127, 0, 255), per column, or given
 * at run time; rank-3 activations; and K = 4096 with every product at its
 * extreme, which needs all of the int32 accumulator.  Where the schedule's
 * target has the instruction, the compiled model must call it, and its pair
 * form where the target has AVX2 / AVX-512 without it (MLC_MARCH=x86-64-v3). */
#include "check.h"
#include "mlcc/schedule.h"
#include "onnx_build.h"
#include "rand_util.h"

#define U8 ONNX__TENSOR_PROTO__DATA_TYPE__UINT8
#define S8 ONNX__TENSOR_PROTO__DATA_TYPE__INT8

static char tmpdir[4096];

typedef struct QCase {
  const char *name;
  int a_type, b_type;
  int batch, m, k, n;
  int fill;          /* 0: random; 1: every a and b at the value that makes products largest */
  int za, zb;        /* constant zero points; NO_ZP: absent */
  bool zb_per_col;   /* b's zero point a vector over the columns (zb + j % 3) */
  bool za_input;     /* a's zero point a graph input (za its value) */
} QCase;

enum { NO_ZP = 1000 };

static int64_t val(int type, const void *p, size_t i) {
  return type == U8 ? ((const uint8_t *)p)[i] : ((const int8_t *)p)[i];
}

static void put(int type, void *p, size_t i, int64_t v) {
  if (type == U8) ((uint8_t *)p)[i] = (uint8_t)v;
  else ((int8_t *)p)[i] = (int8_t)v;
}

static int64_t rnd(int type) { return type == U8 ? (int64_t)(urand() * 256) : (int64_t)(urand() * 256) - 128; }

/* the one-node model with its graph inputs of the given ONNX element types
 * (pack_one_node types them float32): packed, read back, retyped, packed */
static uint8_t *pack_typed(const OneNode *o, const int *types, size_t *len) {
  uint8_t *buf = pack_one_node(o, len);
  Onnx__ModelProto *m = onnx__model_proto__unpack(NULL, *len, buf);
  free(buf);
  if (!m) return NULL;
  for (size_t i = 0; i < m->graph->n_input; i++) m->graph->input[i]->type->tensor_type->elem_type = types[i];
  *len = onnx__model_proto__get_packed_size(m);
  buf = malloc(*len);
  onnx__model_proto__pack(m, buf);
  onnx__model_proto__free_unpacked(m, NULL);
  return buf;
}


/* the case's model built and run; the output compared with plain C */
static bool run_case(const QCase *c) {
  int B = c->batch, M = c->m, K = c->k, N = c->n;
  size_t na = (size_t)B * M * K, nb = (size_t)K * N;
  uint8_t *a = malloc(na), *b = malloc(nb), zbv[4096], zav[1];
  int64_t top = c->a_type == U8 ? 255 : -128, wtop = c->b_type == U8 ? 0 : -128;
  for (size_t i = 0; i < na; i++) put(c->a_type, a, i, c->fill ? top : rnd(c->a_type));
  for (size_t i = 0; i < nb; i++) put(c->b_type, b, i, c->fill ? wtop : rnd(c->b_type));
  int zbn = c->zb_per_col ? N : 1;
  for (int j = 0; j < zbn; j++) put(c->b_type, zbv, (size_t)j, c->zb + (c->zb_per_col ? j % 3 : 0));
  put(c->a_type, zav, 0, c->za);
  /* inputs: a, b, a_zero_point, b_zero_point; a (and a_zp) graph inputs */
  char *ins[4] = {"a", "b", c->za == NO_ZP ? "" : "az", c->zb == NO_ZP ? "" : "bz"}, *outs[1] = {"y"};
  int n_in = c->zb != NO_ZP ? 4 : c->za != NO_ZP ? 3 : 2;
  Init inits[3];
  int n_inits = 0;
  inits[n_inits++] = (Init){"b", 2, {K, N}, b, nb, c->b_type};
  if (c->za != NO_ZP && !c->za_input) inits[n_inits++] = (Init){"az", 0, {0}, zav, 1, c->a_type};
  if (c->zb != NO_ZP) inits[n_inits++] = (Init){"bz", c->zb_per_col ? 1 : 0, {N}, zbv, (size_t)zbn, c->b_type};
  int64_t ad[2][4] = {{B, M, K}, {0}};
  if (B == 1) ad[0][0] = M, ad[0][1] = K;
  int ranks[2] = {B == 1 ? 2 : 3, 0}, types[2] = {c->a_type, c->a_type};
  char *gins[2] = {"a", "az"};
  OneNode o = {"MatMulInteger", NULL, 13, ins, n_in, outs, 1, NULL, 0, c->za_input ? 2 : 1, (const int64_t(*)[4])ad,
               ranks, inits, n_inits, gins};
  size_t len;
  uint8_t *buf = pack_typed(&o, types, &len);
  char dir[4200];
  snprintf(dir, sizeof dir, "%s/%s", tmpdir, c->name);
  MlcrtModel *rm = buf ? onnx_build_load_host(buf, len, dir) : NULL;
  free(buf);
  bool ok = rm != NULL;
  /* the instruction is used where the target has it, and the pair form
   * (vpmaddwd) where it has AVX2 or AVX-512 without it */
  MlcSchTarget t;
  mlc_sch_target_host(&t);
  bool pairs = !t.dot_lanes && t.vector_bits >= 256 && strcmp(t.name, "avx") != 0;
  int lanes = t.dot_lanes ? t.dot_lanes : t.vector_bits / 32, group = t.dot_lanes ? 4 : 2;
  if (ok && (t.dot_lanes || pairs) && N % lanes == 0 && K % group == 0) {
    char path[4300], cmd[4400];
    snprintf(path, sizeof path, "%s/model.c", dir);
    snprintf(cmd, sizeof cmd, "grep -q mlc_dot%d_u8s8 '%s'", group, path);
    if (system(cmd) != 0) ok = false, printf("    %s: the model does not call the dot-product intrinsic\n", c->name);
  }
  int32_t *y = NULL;
  if (ok) {
    DLDataType dt = {(uint8_t)(c->a_type == U8 ? kDLUInt : kDLInt), 8, 1};
    DLTensor at = {.data = a, .device = {kDLCPU, 0}, .ndim = ranks[0], .dtype = dt, .shape = ad[0]};
    int64_t zshape[1] = {0};
    DLTensor zt = {.data = zav, .device = {kDLCPU, 0}, .ndim = 0, .dtype = dt, .shape = zshape};
    DLTensor *in[2] = {&at, &zt}, *out[1] = {NULL};
    if (mlcrt_model_run(rm, in, c->za_input ? 2 : 1, out, 1) != 0) ok = false, printf("    %s: run: %s\n", c->name, mlcrt_last_error());
    else y = out[0]->data;
  }
  int64_t za = c->za == NO_ZP ? 0 : val(c->a_type, zav, 0);
  for (int bi = 0; ok && bi < B; bi++)
    for (int i = 0; ok && i < M; i++)
      for (int j = 0; ok && j < N; j++) {
        int64_t zb = c->zb == NO_ZP ? 0 : val(c->b_type, zbv, (size_t)(c->zb_per_col ? j : 0)), s = 0;
        for (int k = 0; k < K; k++)
          s += (val(c->a_type, a, ((size_t)bi * M + i) * K + k) - za) * (val(c->b_type, b, (size_t)k * N + j) - zb);
        int32_t got = y[((size_t)bi * M + i) * N + j];
        if (got != (int32_t)s) ok = false, printf("    %s: y[%d, %d, %d] is %d, expected %lld\n", c->name, bi, i, j, got, (long long)s);
      }
  if (rm) mlcrt_model_free(rm);
  bu_remove_dir(dir);
  free(a), free(b);
  return ok;
}

static const QCase cases[] = {
    {"u8s8", U8, S8, 1, 6, 64, 32, 0, 3, NO_ZP, false, false},
    {"u8s8_zps", U8, S8, 1, 8, 32, 48, 0, 255, -128, false, false},
    {"u8s8_plain", U8, S8, 1, 5, 16, 16, 0, NO_ZP, NO_ZP, false, false},
    {"s8s8", S8, S8, 1, 6, 64, 32, 0, -128, 127, false, false},
    {"s8s8_nozp", S8, S8, 1, 3, 8, 16, 0, NO_ZP, NO_ZP, false, false},
    {"u8u8", U8, U8, 1, 4, 32, 32, 0, 255, 0, false, false},
    {"u8u8_zb", U8, U8, 1, 4, 20, 24, 0, 7, 128, false, false},
    {"per_column", U8, S8, 1, 4, 32, 32, 0, 100, -5, true, false},
    {"za_at_run_time", U8, S8, 1, 4, 32, 16, 0, 17, 9, false, true},
    {"batched", S8, S8, 2, 3, 32, 16, 0, -3, 4, false, false},
    {"k4096_u8s8", U8, S8, 1, 2, 4096, 16, 1, NO_ZP, NO_ZP, false, false},
    {"k4096_s8s8", S8, S8, 1, 2, 4096, 16, 1, NO_ZP, NO_ZP, false, false},
};

static void test_matmul_integer_const_weight(void) {
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    bool ok = run_case(&cases[i]);
    if (!ok) printf("    (case %s)\n", cases[i].name);
    CHECK(ok);
  }
}

int main(void) {
  if (!bu_make_tmpdir(tmpdir, sizeof tmpdir, "mlcc-qdot")) {
    printf("FAIL setup: cannot create a temporary directory\n");
    return 1;
  }
  RUN(test_matmul_integer_const_weight);
  bu_remove_dir(tmpdir);
  return CHECK_DONE();
}
