/* c_emit.h - what the C generator's files share: the emitter state, names,
 * C types, and the expression and statement emitters. */
#ifndef MLCC_CODEGEN_C_EMIT_H
#define MLCC_CODEGEN_C_EMIT_H

#include "mlcc/codegen.h"

/* a heap buffer of constant size allocated once at the entry of the function
 * being written instead of on every iteration of the loops around it */
typedef struct CHoisted {
  const char *name, *ctype;
  int64_t numel;
  size_t esize;
} CHoisted;

typedef struct CEmit {
  MlcCtx *ctx;
  const MlcPrimFunc *func;  /* lowered */
  MlcStrBuf *out;           /* the function being written */
  MlcStrBuf *helpers;       /* typedefs and helper functions, written once each */
  MlcMap *helper_done;      /* interned helper name -> non-NULL (module-wide) */
  MlcStrBuf *closures;      /* outlined parallel loop bodies */
  MlcMap names;             /* var or buffer -> interned C name */
  MlcMap taken;             /* interned C name -> non-NULL, this function's */
  const MlcMap *globals;    /* kernel names of the module, never reused */
  MLC_VEC(const MlcExpr *) scope_vars;   /* vars visible here, for closures */
  MLC_VEC(const MlcBuffer *) scope_bufs; /* buffers visible here */
  MLC_VEC(CHoisted) hoisted;  /* of the function (kernel or closure) being written */
  int loop_depth;             /* loops around the statement being written, in that function */
  bool uses_exit;             /* that function jumps to its mlc_exit label */
  const char *exit_label;     /* where a failure jumps from here: NULL for mlc_exit, else the
                                 label freeing the in-place workspace buffer around it */
  bool exit_label_used;       /* a jump to exit_label was written */
  int n_tmps;                 /* numbers the generator's own locals and labels */
  int indent;
  int n_closures;
  bool noalias;
  bool failed;
} CEmit;

bool c_fail(CEmit *e, const char *fmt, ...) MLC_PRINTF(2, 3);
const char *c_name(CEmit *e, const void *node, const char *hint);
/* The two C types of a dtype.  A value (a var, an expression, a vector
 * lane) has c_scalar_type; an element in memory (a buffer, a pointer, a
 * workspace, constant data) has c_storage_type.  They differ for bfloat16
 * only, which C has no arithmetic for: it is stored as its bits (uint16_t)
 * and computed as float, each bfloat16 result rounded back to bfloat16
 * precision, so a bfloat16 value is always a float bfloat16 represents.
 * The minifloats (float8_*, float4_e2m1fn) are the same: stored as their
 * bits in a uint8_t, computed as float, each result rounded back.  Sub-byte
 * integers (int4, uint2, ...) are stored one per byte, as int8_t/uint8_t.
 * Both are NULL for a dtype the C target has no type for. */
const char *c_scalar_type(MlcDType t);   /* "float", "int32_t", ... */
const char *c_storage_type(MlcDType t);  /* the same, but "uint16_t" for bfloat16 */
/* The bfloat16 helpers (static inline in the generated file, declared on
 * first use): WIDEN the stored bits to the float they stand for (exact),
 * NARROW a float to the bits of the nearest bfloat16 (ties to even, NaN
 * stays NaN), ROUND a float to the nearest bfloat16 as a float. */
typedef enum CBf16Fn { C_BF16_WIDEN, C_BF16_NARROW, C_BF16_ROUND } CBf16Fn;
const char *c_bf16_fn(CEmit *e, CBf16Fn fn);
/* The minifloat conversions of ir/minifloat_src.h, written into the file on
 * first use: c_minifloat_open writes the start of a call that WIDENs, NARROWs
 * or ROUNDs (CBf16Fn's meanings) a value of minifloat dtype t, and
 * c_minifloat_close its end (the format's parameters). */
void c_minifloat_open(CEmit *e, MlcDType t, CBf16Fn fn, MlcStrBuf *sb);
void c_minifloat_close(MlcDType t, CBf16Fn fn, MlcStrBuf *sb);
const char *c_vector_type(CEmit *e, MlcDType t, bool unaligned); /* declares it on first use */
/* true the first time a helper of this name is asked for (its text is then
 * the caller's to write into e->helpers) */
bool c_helper_once(CEmit *e, const char *name);
void c_line(CEmit *e, const char *fmt, ...) MLC_PRINTF(2, 3);

/* expression text for a scalar expression, or a vector one in vector-
 * extension form (see c_expr.c) */
void c_expr(CEmit *e, const MlcExpr *x, MlcStrBuf *sb);
/* a vector expression at lane `lane` (a C expression naming the lane) */
void c_expr_lane(CEmit *e, const MlcExpr *x, const char *lane, MlcStrBuf *sb);
/* true when x can be written with vector-extension operations */
bool c_vector_ok(const MlcExpr *x);
/* T.dot4_u8s8 / T.dot2_u8s8 (c_dot.c): the vector form, a call of a helper
 * that is the instructions where the compiler targets them, and the value
 * at one lane (lane NULL: a call of one lane) */
void c_dot_vector(CEmit *e, const MlcExpr *x, MlcStrBuf *sb);
void c_dot_lane(CEmit *e, const MlcExpr *x, const char *lane, MlcStrBuf *sb);
/* The name of the generated file's own float32 version of a math intrinsic
 * (exp, erf, tanh, sigmoid; c_math.c), written into it on first use, or
 * NULL where libm serves. */
const char *c_math_f32(CEmit *e, MlcIntrin op);

/* a T.call_extern / T.call_packed / T.address_of call (c_extern.c) */
void c_extern_call(CEmit *e, const MlcExpr *x, MlcStrBuf *sb);

void c_stmt(CEmit *e, const MlcStmt *s);
/* the label a failure at the statement being written jumps to (after
 * setting mlc_status), marked as used */
const char *c_exit_jump(CEmit *e);
/* Writing the body of a function (kernel or closure): between begin and end
 * the statements go to a buffer of their own, so that end can put the
 * allocations hoisted out of the body's loops before them, and their frees,
 * under the mlc_exit label that failures jump to, after them.  begin saves
 * the state of an enclosing function being written; end restores it. */
typedef struct CBody {
  MlcStrBuf *outer_out;
  MlcStrBuf text;
  MLC_VEC(CHoisted) outer_hoisted;
  int outer_depth;
  bool outer_exit;
  const char *outer_label;
  bool outer_label_used;
} CBody;
void c_body_begin(CEmit *e, CBody *b);
void c_body_end(CEmit *e, CBody *b);

/* A kernel written by c_emit_module: the prim func as written, its static C
 * function name, and its symbolic sizes in the order of its syms[] argument
 * (arena-allocated). */
typedef struct CKernel {
  const MlcPrimFunc *func;
  const char *cname;
  const MlcExpr *const *syms;
  int n_syms;
} CKernel;
typedef MLC_VEC(CKernel) CKernelVec;

/* The C file of every prim func of m (mlc_codegen_c); kernels, when not
 * NULL, gets one entry per function written, for callers that add code
 * calling the kernels after it (the model executor). */
bool c_emit_module(MlcCtx *ctx, const MlcModule *m, MlcStrBuf *out, CKernelVec *kernels);

/* The same with each prim func's function written by `write` instead of
 * the C kernel (the GPU targets' host functions, gpu_host.c): it writes a
 * function `static int32_t KNAME(void *const *mlc_args, const int64_t
 * *mlc_syms, const MlcrtEnv *env)` to e->out; `prelude` goes after the
 * module's own preamble. */
typedef struct CFuncWriter CFuncWriter;
struct CFuncWriter {
  bool (*write)(CEmit *e, const MlcPrimFunc *orig, const char *kname, const MlcExpr *const *syms, int n_syms,
                void *user);
  void *user;
  const char *prelude;
};
bool c_emit_module_with(MlcCtx *ctx, const MlcModule *m, MlcStrBuf *out, CKernelVec *kernels,
                        const CFuncWriter *writer);

/* the DLPack type code of a dtype and its bits as DLPack stores them (bool:
 * 8), for the descriptors (c_module.c) */
int c_dl_code(MlcDType t);
int c_dl_bits(MlcDType t);

#endif
