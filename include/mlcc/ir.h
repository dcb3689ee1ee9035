/* ir.h - the IR of both levels: tensor programs (TIR: expressions, statements,
 * buffers, blocks, prim funcs), graph functions (struct info, graph
 * expressions, bindings, dataflow blocks) and the IRModule holding both.
 *
 * Nodes are immutable once built and live in the context's arena.  Builders
 * (mlc_*_new / mlc_e_* / mlc_s_*) check what they can check locally (operand
 * dtypes, arity, binding counts) and return NULL with an error in the context
 * when the node would be malformed; whole-function checks (every var read is
 * defined) run in mlc_prim_func_new / mlc_gfunc_new.  Every builder accepts
 * NULL children and returns NULL then, so a chain of builders needs one check
 * at its end.
 *
 * Identity: a TIR var, a buffer, a graph var is its pointer.  Names are only
 * hints for printing; structural equality compares bound vars by position. */
#ifndef MLCC_IR_H
#define MLCC_IR_H

#include "mlcc/support.h"

/* ======================================================================== */
/* dtypes                                                                   */
/* ======================================================================== */

/* The 8- and 4-bit float formats ("minifloats"): type code, name, storage
 * bits, exponent bits, mantissa bits, bias, kind (src/ir/minifloat_src.h
 * says what the kinds mean) and DLPack type code.  Each element takes one
 * byte; values are computed as float, like bfloat16's. */
#define MLC_MINIFLOATS(X)                                     \
  X(MLC_TC_F8E4M3FN, "float8_e4m3fn", 8, 4, 3, 7, 1, 10)     \
  X(MLC_TC_F8E4M3FNUZ, "float8_e4m3fnuz", 8, 4, 3, 8, 2, 11) \
  X(MLC_TC_F8E5M2, "float8_e5m2", 8, 5, 2, 15, 0, 12)        \
  X(MLC_TC_F8E5M2FNUZ, "float8_e5m2fnuz", 8, 5, 2, 16, 2, 13) \
  X(MLC_TC_F8E8M0, "float8_e8m0fnu", 8, 8, 0, 127, 3, 14)    \
  X(MLC_TC_F4E2M1, "float4_e2m1fn", 4, 2, 1, 1, 4, 17)

typedef enum MlcTypeCode {
  MLC_TC_INT, MLC_TC_UINT, MLC_TC_FLOAT, MLC_TC_BFLOAT, MLC_TC_BOOL,
  MLC_TC_HANDLE, MLC_TC_VOID,
#define X(code, name, bits, eb, mb, bias, kind, dl) code,
  MLC_MINIFLOATS(X)
#undef X
} MlcTypeCode;

/* the case labels of every minifloat code, for switches over MlcTypeCode */
#define MLC_TC_MINIFLOAT_CASES \
  case MLC_TC_F8E4M3FN: case MLC_TC_F8E4M3FNUZ: case MLC_TC_F8E5M2: case MLC_TC_F8E5M2FNUZ: \
  case MLC_TC_F8E8M0: case MLC_TC_F4E2M1

typedef struct MlcDType {
  uint8_t code;   /* MlcTypeCode */
  uint8_t bits;   /* 1 for bool, 64 for handle, 0 for void */
  uint16_t lanes; /* 1 for scalars */
} MlcDType;

#define MLC_DT(c, b, l) ((MlcDType){(uint8_t)(c), (uint8_t)(b), (uint16_t)(l)})
#define MLC_BOOL MLC_DT(MLC_TC_BOOL, 1, 1)
#define MLC_I32 MLC_DT(MLC_TC_INT, 32, 1)
#define MLC_I64 MLC_DT(MLC_TC_INT, 64, 1)
#define MLC_F32 MLC_DT(MLC_TC_FLOAT, 32, 1)
#define MLC_F64 MLC_DT(MLC_TC_FLOAT, 64, 1)
#define MLC_HANDLE MLC_DT(MLC_TC_HANDLE, 64, 1)
#define MLC_VOID MLC_DT(MLC_TC_VOID, 0, 1)

bool mlc_dtype_eq(MlcDType a, MlcDType b);
/* "float32", "int64x4", "bool", "handle", "void" */
const char *mlc_dtype_str(MlcDType t, char buf[32]);
/* parse a dtype name; false when it is not one */
bool mlc_dtype_parse(const char *s, MlcDType *out);
static inline bool mlc_dtype_is_int(MlcDType t) { return t.code == MLC_TC_INT || t.code == MLC_TC_UINT; }
static inline bool mlc_dtype_is_minifloat(MlcDType t) { return t.code >= MLC_TC_F8E4M3FN && t.code <= MLC_TC_F4E2M1; }
static inline bool mlc_dtype_is_float(MlcDType t) {
  return t.code == MLC_TC_FLOAT || t.code == MLC_TC_BFLOAT || mlc_dtype_is_minifloat(t);
}
/* A minifloat's bits (t's element) from f: to nearest even, overflow to
 * infinity or NaN (minifloat_src.h); and back, exactly.  Its largest finite
 * value, and the value v rounds to (as double).  t must be a minifloat. */
unsigned mlc_minifloat_encode(MlcDType t, float f);
float mlc_minifloat_decode(MlcDType t, unsigned bits);
double mlc_minifloat_max(MlcDType t);
double mlc_minifloat_round(MlcDType t, double v);
/* the format's parameters (exponent bits, mantissa bits, bias, kind) */
void mlc_minifloat_format(MlcDType t, int *eb, int *mb, int *bias, int *kind);
/* the most lanes a vectorized loop may have (the C vector types the code
 * generator writes stay within what compilers build) */
#define MLC_MAX_VECTOR_LANES 64

static inline MlcDType mlc_dtype_with_lanes(MlcDType t, int lanes) { t.lanes = (uint16_t)lanes; return t; }
static inline MlcDType mlc_dtype_elem(MlcDType t) { t.lanes = 1; return t; }
size_t mlc_dtype_bytes(MlcDType t); /* storage bytes of one element (bool: 1) */
/* the bits of f as IEEE half / bfloat16, rounded to nearest even (NaN stays NaN) */
uint16_t mlc_f32_to_f16(float f);
uint16_t mlc_f32_to_bf16(float f);
/* the value of IEEE half / bfloat16 bits, exactly */
float mlc_f16_to_f32(uint16_t h);
float mlc_bf16_to_f32(uint16_t h);
/* v truncated toward zero as an int64; NaN and values outside int64 (where a
 * C cast is undefined) give 0, the interpreter's answer for such casts */
int64_t mlc_f64_to_i64(double v);

/* ======================================================================== */
/* TIR expressions                                                          */
/* ======================================================================== */

/* Binary operators: enum suffix, Python operator (NULL when printed as a call),
 * call spelling, precedence for printing (higher binds tighter), result is bool. */
#define MLC_BINOPS(X)                                   \
  X(ADD, "+", "T.Add", 4, 0)                            \
  X(SUB, "-", "T.Sub", 4, 0)                            \
  X(MUL, "*", "T.Mul", 5, 0)                            \
  X(DIV, NULL, "T.Div", 5, 0)      /* true div on floats, truncdiv on ints */ \
  X(MOD, NULL, "T.truncmod", 5, 0) /* truncated remainder */              \
  X(FLOORDIV, "//", "T.floordiv", 5, 0)                 \
  X(FLOORMOD, "%", "T.floormod", 5, 0)                  \
  X(MIN, NULL, "T.min", 9, 0)                           \
  X(MAX, NULL, "T.max", 9, 0)                           \
  X(EQ, "==", "T.EQ", 3, 1)                             \
  X(NE, "!=", "T.NE", 3, 1)                             \
  X(LT, "<", "T.LT", 3, 1)                              \
  X(LE, "<=", "T.LE", 3, 1)                             \
  X(GT, ">", "T.GT", 3, 1)                              \
  X(GE, ">=", "T.GE", 3, 1)                             \
  X(AND, "and", "T.And", 1, 1)                          \
  X(OR, "or", "T.Or", 0, 1)

typedef enum MlcBinOp {
#define X(n, py, call, prec, isbool) MLC_BIN_##n,
  MLC_BINOPS(X)
#undef X
  MLC_BIN_COUNT
} MlcBinOp;

typedef struct MlcBinOpInfo { const char *py, *call; int prec; bool is_bool; } MlcBinOpInfo;
extern const MlcBinOpInfo mlc_binop_info[MLC_BIN_COUNT];

/* Integer division (DIV, MOD, FLOORDIV, FLOORMOD) is defined everywhere:
 * by zero, and the most negative value of a signed dtype divided by -1
 * (the quotient does not fit), are run-time errors with these messages,
 * in the interpreter and in compiled code alike; the remainder of a
 * division by -1 is 0. */
#define MLC_DIV_BY_ZERO_MSG "integer division by zero"
#define MLC_DIV_OVERFLOW_MSG "integer division overflows (the most negative value divided by -1)"
/* T.checked_index(i, n) is i when 0 <= i < n, else this run-time error: what
 * ops that take indices from data (gather) read through */
#define MLC_INDEX_RANGE_MSG "index out of range"

/* Intrinsic calls: enum suffix, TVMScript spelling, arity (-1 variadic),
 * result dtype rule: 0 = same as first float arg, 1 = dtype of arg 1 (for
 * if_then_else), 2 = given explicitly by the call (mlc_e_call_typed), 3 = a
 * handle, 4 = same as the first integer arg (checked_index), 5 = given
 * explicitly (reinterpret: its argument's bits read as that dtype, of the
 * same storage size; `T.reinterpret("int32", x)`), 6 = the accumulator's
 * (dot4_u8s8(acc, a, b): acc int32xN, a uint8x4, b int8x(4N); lane i is
 * acc[i] + sum over k < 4 of a[k] * b[4i + k], wrapping at 32 bits -- the
 * unsigned-by-signed byte dot product of AVX-VNNI's vpdpbusd with the
 * same four bytes of a in every lane; dot2_u8s8 is the same over pairs:
 * a uint8x2, b int8x(2N), what AVX2's vpmaddwd computes of bytes widened
 * to int16, exactly).  call_extern / call_packed take the function's name (a string)
 * first, then its arguments; address_of takes a buffer load and is the
 * address of that element (what `A.access_ptr("r")` reads as: A[0, ..]). */
#define MLC_INTRINSICS(X)                 \
  X(EXP, "T.exp", 1, 0)                   \
  X(LOG, "T.log", 1, 0)                   \
  X(SQRT, "T.sqrt", 1, 0)                 \
  X(RSQRT, "T.rsqrt", 1, 0)               \
  X(TANH, "T.tanh", 1, 0)                 \
  X(ERF, "T.erf", 1, 0)                   \
  X(SIGMOID, "T.sigmoid", 1, 0)           \
  X(FABS, "T.fabs", 1, 0)                 \
  X(FLOOR, "T.floor", 1, 0)               \
  X(CEIL, "T.ceil", 1, 0)                 \
  X(ROUND, "T.round", 1, 0)               \
  X(SIN, "T.sin", 1, 0)                   \
  X(COS, "T.cos", 1, 0)                   \
  X(POW, "T.pow", 2, 0)                   \
  X(IF_THEN_ELSE, "T.if_then_else", 3, 1) \
  X(CALL_EXTERN, "T.call_extern", -1, 2)  \
  X(CALL_PACKED, "T.call_packed", -1, 2)  \
  X(ADDRESS_OF, "T.address_of", 1, 3)    \
  X(CHECKED_INDEX, "T.checked_index", 2, 4) \
  X(REINTERPRET, "T.reinterpret", 1, 5) \
  X(DOT4_U8S8, "T.dot4_u8s8", 3, 6)       \
  X(DOT2_U8S8, "T.dot2_u8s8", 3, 6)

typedef enum MlcIntrin {
#define X(n, name, arity, rule) MLC_INTRIN_##n,
  MLC_INTRINSICS(X)
#undef X
  MLC_INTRIN_COUNT
} MlcIntrin;

/* the bytes per lane of a byte dot product (rule 6): 4 or 2; 0 for others */
static inline int mlc_intrin_dot_group(MlcIntrin op) {
  return op == MLC_INTRIN_DOT4_U8S8 ? 4 : op == MLC_INTRIN_DOT2_U8S8 ? 2 : 0;
}

typedef struct MlcIntrinInfo { const char *name; int arity, rule; } MlcIntrinInfo;
extern const MlcIntrinInfo mlc_intrin_info[MLC_INTRIN_COUNT];

typedef enum MlcExprKind {
  MLC_EXPR_VAR,       /* scalar var (loop var, iter var, size var, handle) */
  MLC_EXPR_INT,       /* integer or bool immediate */
  MLC_EXPR_FLOAT,     /* float immediate */
  MLC_EXPR_STR,       /* string immediate (annotations, extern names) */
  MLC_EXPR_BINARY,
  MLC_EXPR_NOT,
  MLC_EXPR_NEG,       /* only when a literal cannot express it: -x */
  MLC_EXPR_SELECT,    /* T.Select(c, t, f): both sides evaluated */
  MLC_EXPR_CAST,
  MLC_EXPR_LOAD,      /* buffer load */
  MLC_EXPR_RAMP,
  MLC_EXPR_BROADCAST,
  MLC_EXPR_LET,
  MLC_EXPR_CALL,      /* intrinsic */
} MlcExprKind;

typedef struct MlcExpr MlcExpr;
typedef struct MlcBuffer MlcBuffer;

struct MlcExpr {
  MlcExprKind kind;
  MlcDType dtype;
  union {
    struct { const char *name; } var;
    int64_t int_val;       /* INT: bool is 0/1; uint64 stored bitwise */
    double float_val;      /* FLOAT */
    const char *str_val;   /* STR (interned) */
    struct { MlcBinOp op; MlcExpr *a, *b; } bin;
    MlcExpr *operand;      /* NOT, NEG, CAST */
    struct { MlcExpr *cond, *t, *f; } select;
    struct { MlcBuffer *buf; MlcExpr **idx; int n; } load;
    struct { MlcExpr *base, *stride; int lanes; } ramp;
    struct { MlcExpr *value; int lanes; } bcast;
    struct { MlcExpr *var, *value, *body; } let;
    struct { MlcIntrin op; MlcExpr **args; int n; } call;
  };
};

/* Builders.  Binary builders require equal dtypes (the reader inserts the
 * conversions TVMScript implies before calling them). */
MlcExpr *mlc_e_var(MlcCtx *ctx, const char *name, MlcDType t);
MlcExpr *mlc_e_int(MlcCtx *ctx, MlcDType t, int64_t v);
MlcExpr *mlc_e_float(MlcCtx *ctx, MlcDType t, double v);
MlcExpr *mlc_e_str(MlcCtx *ctx, const char *s);
MlcExpr *mlc_e_bin(MlcCtx *ctx, MlcBinOp op, MlcExpr *a, MlcExpr *b);
MlcExpr *mlc_e_not(MlcCtx *ctx, MlcExpr *a);
MlcExpr *mlc_e_neg(MlcCtx *ctx, MlcExpr *a);
MlcExpr *mlc_e_select(MlcCtx *ctx, MlcExpr *c, MlcExpr *t, MlcExpr *f);
MlcExpr *mlc_e_cast(MlcCtx *ctx, MlcDType t, MlcExpr *a);
MlcExpr *mlc_e_load(MlcCtx *ctx, MlcBuffer *buf, MlcExpr **idx, int n);
MlcExpr *mlc_e_ramp(MlcCtx *ctx, MlcExpr *base, MlcExpr *stride, int lanes);
MlcExpr *mlc_e_broadcast(MlcCtx *ctx, MlcExpr *v, int lanes);
MlcExpr *mlc_e_let(MlcCtx *ctx, MlcExpr *var, MlcExpr *value, MlcExpr *body);
MlcExpr *mlc_e_call(MlcCtx *ctx, MlcIntrin op, MlcExpr **args, int n);
/* any intrinsic call; t is the result dtype of a rule-2 intrinsic (the
 * extern calls) and is ignored for the others, whose dtype follows from
 * their arguments -- so rebuilding a call is mlc_e_call_typed(op, e->dtype, ..) */
MlcExpr *mlc_e_call_typed(MlcCtx *ctx, MlcIntrin op, MlcDType t, MlcExpr **args, int n);
bool mlc_e_is_const_int(const MlcExpr *e, int64_t *v);

/* ======================================================================== */
/* buffers, regions, attributes                                             */
/* ======================================================================== */

struct MlcBuffer {
  const char *name;
  MlcDType dtype;
  int ndim;
  MlcExpr **shape;      /* ndim exprs (int32 or int64) */
  MlcExpr **strides;    /* NULL for compact row-major, else ndim exprs */
  MlcExpr *elem_offset; /* NULL means 0 */
  const char *scope;    /* interned: "global", "local", "shared" */
  int align;            /* data alignment in bytes, 0 = default */
  int offset_factor;    /* 0 = default */
};

MlcBuffer *mlc_buffer_new(MlcCtx *ctx, const char *name, MlcDType dtype, MlcExpr **shape,
                          int ndim, MlcExpr **strides, MlcExpr *elem_offset, const char *scope);

typedef struct MlcRange { MlcExpr *min, *extent; } MlcRange;

typedef struct MlcBufferRegion {
  MlcBuffer *buf;
  MlcRange *ranges; /* buf->ndim ranges */
} MlcBufferRegion;

/* Attribute values: function attributes, block/loop annotations, graph op
 * attributes.  Lists nest. */
typedef enum MlcAttrKind {
  MLC_ATTR_NONE, MLC_ATTR_BOOL, MLC_ATTR_INT, MLC_ATTR_FLOAT, MLC_ATTR_STR,
  MLC_ATTR_LIST, MLC_ATTR_EXPR, MLC_ATTR_DTYPE,
} MlcAttrKind;

typedef struct MlcAttrValue MlcAttrValue;
struct MlcAttrValue {
  MlcAttrKind kind;
  union {
    bool b;
    int64_t i;
    double f;
    const char *s; /* interned */
    struct { MlcAttrValue *items; int n; } list;
    MlcExpr *expr;
    MlcDType dtype;
  };
};

typedef struct MlcAttr { const char *key; MlcAttrValue val; } MlcAttr; /* key interned */
typedef struct MlcAttrs { MlcAttr *items; int n; } MlcAttrs;         /* in source order */

const MlcAttrValue *mlc_attrs_get(MlcAttrs attrs, const char *key); /* key interned */
/* attrs with key (interned) set to *val where it stands, or added last; with
 * val NULL, without key.  A new array in ctx's arena; attrs is not changed. */
MlcAttrs mlc_attrs_with(MlcCtx *ctx, MlcAttrs attrs, const char *key, const MlcAttrValue *val);

/* ======================================================================== */
/* TIR statements                                                           */
/* ======================================================================== */

typedef enum MlcForKind {
  MLC_FOR_SERIAL, MLC_FOR_PARALLEL, MLC_FOR_VECTORIZED, MLC_FOR_UNROLLED, MLC_FOR_THREAD,
} MlcForKind;

typedef enum MlcIterKind { MLC_ITER_SPATIAL, MLC_ITER_REDUCE, MLC_ITER_OPAQUE } MlcIterKind;

typedef struct MlcIterVar {
  MlcExpr *var;
  MlcRange dom;
  MlcIterKind kind;
} MlcIterVar;

typedef struct MlcStmt MlcStmt;

typedef struct MlcBlock {
  const char *name;
  MlcIterVar *iters; int n_iters;
  MlcBufferRegion *reads; int n_reads;
  MlcBufferRegion *writes; int n_writes;
  MlcStmt *init;                 /* NULL when none */
  MlcBuffer **allocs; int n_allocs;
  MlcAttrs annotations;
  MlcStmt *body;
} MlcBlock;

typedef enum MlcStmtKind {
  MLC_STMT_STORE,
  MLC_STMT_FOR,
  MLC_STMT_BLOCK_REALIZE,
  MLC_STMT_SEQ,
  MLC_STMT_IF,
  MLC_STMT_LET,
  MLC_STMT_ALLOCATE,   /* a buffer allocated for the extent of body (after lowering) */
  MLC_STMT_EVALUATE,
} MlcStmtKind;

struct MlcStmt {
  MlcStmtKind kind;
  union {
    struct { MlcBuffer *buf; MlcExpr **idx; int n; MlcExpr *value; } store;
    struct {
      MlcExpr *var; MlcExpr *min, *extent; MlcForKind kind;
      const char *thread;        /* "threadIdx.x" etc. for MLC_FOR_THREAD, interned */
      MlcAttrs annotations;
      MlcStmt *body;
    } loop;
    struct { MlcExpr **values; int n; MlcExpr *pred; MlcBlock *block; } realize;
    struct { MlcStmt **items; int n; } seq;
    struct { MlcExpr *cond; MlcStmt *then_s, *else_s; } if_;
    struct { MlcExpr *var, *value; MlcStmt *body; } let;
    struct { MlcBuffer *buf; MlcStmt *body; } alloc;
    MlcExpr *eval;
  };
};

MlcStmt *mlc_s_store(MlcCtx *ctx, MlcBuffer *buf, MlcExpr **idx, int n, MlcExpr *value);
MlcStmt *mlc_s_for(MlcCtx *ctx, MlcExpr *var, MlcExpr *min, MlcExpr *extent, MlcForKind kind,
                   const char *thread, MlcAttrs annotations, MlcStmt *body);
MlcBlock *mlc_block_new(MlcCtx *ctx, const char *name, MlcIterVar *iters, int n_iters,
                        MlcBufferRegion *reads, int n_reads, MlcBufferRegion *writes,
                        int n_writes, MlcStmt *init, MlcBuffer **allocs, int n_allocs,
                        MlcAttrs annotations, MlcStmt *body);
/* refuses a value count that differs from the block's iter vars, or a value
 * whose dtype differs from its iter var's */
MlcStmt *mlc_s_realize(MlcCtx *ctx, MlcExpr **values, int n, MlcExpr *pred, MlcBlock *block);
MlcStmt *mlc_s_seq(MlcCtx *ctx, MlcStmt **items, int n); /* flattens; n == 1 returns items[0] */
MlcStmt *mlc_s_if(MlcCtx *ctx, MlcExpr *cond, MlcStmt *then_s, MlcStmt *else_s);
MlcStmt *mlc_s_let(MlcCtx *ctx, MlcExpr *var, MlcExpr *value, MlcStmt *body);
MlcStmt *mlc_s_allocate(MlcCtx *ctx, MlcBuffer *buf, MlcStmt *body);
MlcStmt *mlc_s_evaluate(MlcCtx *ctx, MlcExpr *e);

/* Infer the read and write regions of a block body as TVMScript does when
 * T.reads / T.writes are absent: every buffer touched, the union of the
 * accessed index ranges (a point per access when the indices are the iter
 * vars; the loop-var-covered hull when loops nest inside the block); a buffer
 * both reduced into by an init and read by the body is a write only. */
bool mlc_block_infer_regions(MlcCtx *ctx, MlcBlock *block);

/* ======================================================================== */
/* prim funcs                                                               */
/* ======================================================================== */

typedef struct MlcParam {
  MlcExpr *var;      /* handle var for a buffer param, scalar var otherwise */
  MlcBuffer *buf;    /* the buffer bound to it (buffer map), or NULL */
} MlcParam;

typedef struct MlcPrimFunc {
  const char *name;
  MlcParam *params; int n_params;
  MlcAttrs attrs;
  MlcStmt *body;     /* a root block realize when the body holds blocks */
  MlcDType ret;      /* MLC_VOID for destination-passing functions */
} MlcPrimFunc;

/* Checks the whole function: every var read is defined (params, buffer-shape
 * vars bound by params, loop vars, iter vars, lets) and in scope, every buffer
 * used is a param buffer or allocated in an enclosing block, block bindings
 * match iter vars.  NULL + located error otherwise. */
MlcPrimFunc *mlc_prim_func_new(MlcCtx *ctx, const char *name, MlcParam *params, int n_params,
                               MlcAttrs attrs, MlcStmt *body);

/* ======================================================================== */
/* graph IR                                                                 */
/* ======================================================================== */

typedef enum MlcSInfoKind {
  MLC_SINFO_OBJECT, MLC_SINFO_TENSOR, MLC_SINFO_TUPLE, MLC_SINFO_SHAPE, MLC_SINFO_PRIM,
} MlcSInfoKind;

typedef struct MlcSInfo MlcSInfo;
struct MlcSInfo {
  MlcSInfoKind kind;
  union {
    /* TENSOR: ndim -1 = unknown rank; shape NULL = unknown dims; dims are int64
     * TIR exprs (constants or symbolic vars, maybe arithmetic on them);
     * dtype code MLC_TC_VOID = unknown */
    struct { int ndim; MlcExpr **shape; MlcDType dtype; } tensor;
    struct { MlcSInfo **fields; int n; } tuple;
    struct { int ndim; MlcExpr **values; } shape;   /* values NULL when unknown */
    struct { MlcDType dtype; MlcExpr *value; } prim; /* value may be NULL */
  };
};

MlcSInfo *mlc_sinfo_object(MlcCtx *ctx);
MlcSInfo *mlc_sinfo_tensor(MlcCtx *ctx, MlcExpr **shape, int ndim, MlcDType dtype);
MlcSInfo *mlc_sinfo_tuple(MlcCtx *ctx, MlcSInfo **fields, int n);
MlcSInfo *mlc_sinfo_shape(MlcCtx *ctx, MlcExpr **values, int ndim);
MlcSInfo *mlc_sinfo_prim(MlcCtx *ctx, MlcDType dtype, MlcExpr *value);

/* Comparisons of struct info within one function, where the same symbolic
 * dim is the same var (src/ir/sinfo.c).  mlc_expr_same is syntactic
 * equality with vars compared by identity (lets are never the same), so
 * "same" implies "equal value" but not the converse.  contradicts: both say
 * something definite that differs (object, unknown rank, dims or dtype say
 * nothing).  join: what both are known to be (object when nothing). */
bool mlc_expr_same(const MlcExpr *a, const MlcExpr *b);
bool mlc_sinfo_contradicts(const MlcSInfo *a, const MlcSInfo *b);
MlcSInfo *mlc_sinfo_join(MlcCtx *ctx, MlcSInfo *a, MlcSInfo *b);

/* A constant tensor owned by the module (weights, R.const). */
typedef struct MlcTensorData {
  MlcDType dtype;
  int ndim;
  int64_t *shape;
  void *data;        /* row-major, mlc_dtype_bytes(dtype) * numel bytes */
  size_t nbytes;
} MlcTensorData;

/* the element count of d's shape */
int64_t mlc_tensor_data_numel(const MlcTensorData *d);
/* a zeroed tensor of dtype t and the given shape, in the arena (the caller
 * has bounded the size) */
MlcTensorData *mlc_tensor_data_new(MlcCtx *ctx, MlcDType t, const int64_t *shape, int ndim);

typedef enum MlcGExprKind {
  MLC_G_VAR,          /* graph var (function params, bindings outside dataflow, outputs) */
  MLC_G_DFVAR,        /* dataflow var: visible only inside its dataflow block */
  MLC_G_CONST,        /* tensor constant */
  MLC_G_TUPLE,
  MLC_G_GET_ITEM,     /* tuple[i] */
  MLC_G_CALL,
  MLC_G_SHAPE,        /* R.shape([n, 784]) */
  MLC_G_PRIM,         /* R.prim_value(...) / a TIR scalar */
  MLC_G_STR,          /* R.str("..."), a string argument */
  MLC_G_DTYPE,        /* R.dtype("float32") */
  MLC_G_OP,           /* an op by name: "add", "nn.relu", "call_tir", "call_dps_packed" */
  MLC_G_GLOBAL,       /* a module function by name */
  MLC_G_EXTERN,       /* an extern (packed) function by name, e.g. "env.linear" */
  MLC_G_IF,
  MLC_G_SEQ,          /* blocks of bindings then a result */
} MlcGExprKind;

typedef struct MlcGExpr MlcGExpr;
typedef struct MlcBinding MlcBinding;
typedef struct MlcBindingBlock MlcBindingBlock;

struct MlcGExpr {
  MlcGExprKind kind;
  MlcSInfo *sinfo;   /* known struct info; object when nothing is known */
  union {
    struct { const char *name; } var;                       /* VAR, DFVAR */
    MlcTensorData *constant;                                /* CONST */
    struct { MlcGExpr **fields; int n; } tuple;             /* TUPLE */
    struct { MlcGExpr *tuple; int index; } get_item;        /* GET_ITEM */
    struct {
      MlcGExpr *callee;       /* OP, GLOBAL, EXTERN or a var */
      MlcGExpr **args; int n;
      MlcAttrs attrs;         /* key=value of op calls */
      MlcSInfo **sinfo_args; int n_sinfo_args; /* out_sinfo of call_tir / call_dps_packed */
    } call;
    struct { MlcExpr **values; int n; } shape;              /* SHAPE (int64 exprs) */
    MlcExpr *prim;                                          /* PRIM */
    const char *str;                                        /* STR, OP, GLOBAL, EXTERN name (interned) */
    MlcDType dtype;                                         /* DTYPE */
    struct { MlcGExpr *cond, *then_e, *else_e; } if_;       /* IF (branches are SEQ) */
    struct { MlcBindingBlock **blocks; int n; MlcGExpr *result; } seq; /* SEQ */
  };
};

struct MlcBinding {
  MlcGExpr *var;     /* VAR or DFVAR; its sinfo is the bound value's */
  MlcGExpr *value;
  MlcLoc loc;        /* where it was written, for later errors; not compared */
};

struct MlcBindingBlock {
  bool dataflow;
  MlcBinding *bindings; int n;
};

typedef struct MlcGFunc {
  const char *name;
  MlcGExpr **params; int n_params;   /* VARs carrying their annotated sinfo */
  MlcSInfo *ret;                     /* annotated or inferred return sinfo */
  MlcGExpr *body;                    /* SEQ */
  MlcAttrs attrs;
  bool pure;
} MlcGFunc;

MlcGExpr *mlc_g_var(MlcCtx *ctx, const char *name, MlcSInfo *sinfo, bool dataflow);
MlcGExpr *mlc_g_const(MlcCtx *ctx, MlcTensorData *data);
MlcGExpr *mlc_g_tuple(MlcCtx *ctx, MlcGExpr **fields, int n);
MlcGExpr *mlc_g_get_item(MlcCtx *ctx, MlcGExpr *tuple, int index);
MlcGExpr *mlc_g_op(MlcCtx *ctx, const char *name);
MlcGExpr *mlc_g_global(MlcCtx *ctx, const char *name);
MlcGExpr *mlc_g_extern(MlcCtx *ctx, const char *name);
MlcGExpr *mlc_g_shape(MlcCtx *ctx, MlcExpr **values, int n);
MlcGExpr *mlc_g_prim(MlcCtx *ctx, MlcExpr *value);
MlcGExpr *mlc_g_str(MlcCtx *ctx, const char *s);
MlcGExpr *mlc_g_dtype(MlcCtx *ctx, MlcDType t);
/* sinfo: the call's result struct info (for call_tir / call_dps_packed it
 * is the out_sinfo; for op calls before the registry, object or annotated) */
MlcGExpr *mlc_g_call(MlcCtx *ctx, MlcGExpr *callee, MlcGExpr **args, int n, MlcAttrs attrs,
                     MlcSInfo **sinfo_args, int n_sinfo_args, MlcSInfo *sinfo);
/* R.call_tir(gv, (args...), out_sinfo=...): checks gv is GLOBAL, out is tensor(s) */
MlcGExpr *mlc_g_call_tir(MlcCtx *ctx, MlcGExpr *global, MlcGExpr **args, int n, MlcSInfo *out);
MlcGExpr *mlc_g_call_dps_packed(MlcCtx *ctx, MlcGExpr *ext, MlcGExpr **args, int n, MlcSInfo *out);
MlcGExpr *mlc_g_if(MlcCtx *ctx, MlcGExpr *cond, MlcGExpr *then_e, MlcGExpr *else_e);
MlcGExpr *mlc_g_seq(MlcCtx *ctx, MlcBindingBlock **blocks, int n, MlcGExpr *result);
MlcBindingBlock *mlc_g_block(MlcCtx *ctx, bool dataflow, MlcBinding *bindings, int n);
/* checks every var used is defined before, dataflow vars not used outside
 * their block, a dataflow block binds no plain var it does not output */
MlcGFunc *mlc_gfunc_new(MlcCtx *ctx, const char *name, MlcGExpr **params, int n_params,
                        MlcSInfo *ret, MlcGExpr *body, MlcAttrs attrs, bool pure);

/* ======================================================================== */
/* IRModule                                                                 */
/* ======================================================================== */

typedef enum MlcFuncKind { MLC_FUNC_PRIM, MLC_FUNC_GRAPH } MlcFuncKind;

typedef struct MlcFunc {
  MlcFuncKind kind;
  const char *name;  /* interned; unique in the module */
  union { MlcPrimFunc *prim; MlcGFunc *graph; };
} MlcFunc;

typedef struct MlcModule {
  const char *name;  /* class name in the text, "Module" by default */
  MlcFunc *funcs; int n_funcs; /* in source order */
  MlcAttrs attrs;
} MlcModule;

MlcModule *mlc_module_new(MlcCtx *ctx, const char *name, MlcFunc *funcs, int n, MlcAttrs attrs);
const MlcFunc *mlc_module_find(const MlcModule *m, const char *name); /* name interned */
/* the op a legalized kernel was made from: its name less the number
 * legalization appends to a second variant ("add3" -> "add"), interned */
const char *mlc_kernel_op_name(MlcCtx *ctx, const char *name);

/* ======================================================================== */
/* structural equality and hash                                             */
/* ======================================================================== */

/* Alpha-equivalence: bound vars and buffers (params, loop/iter vars, lets,
 * allocations, graph vars) are matched by binding position; free names
 * (globals, ops, externs) by name.  Module functions are matched by name,
 * whatever their order. */
bool mlc_module_equal(const MlcModule *a, const MlcModule *b);
bool mlc_prim_func_equal(const MlcPrimFunc *a, const MlcPrimFunc *b);
bool mlc_gfunc_equal(const MlcGFunc *a, const MlcGFunc *b);
/* The first difference found, for `mlcc equal`: the function, a path from it
 * to the differing nodes, and both sides -- as nodes when whole nodes differ
 * (the text layer prints them), or as short descriptions otherwise (a name, a
 * dtype, a loop kind, a count, a missing function). */
typedef enum MlcDiffKind {
  MLC_DIFF_NONE, MLC_DIFF_EXPR, MLC_DIFF_STMT, MLC_DIFF_GEXPR, MLC_DIFF_SINFO, MLC_DIFF_TEXT,
} MlcDiffKind;

typedef struct MlcDiff {
  const char *func;     /* function name; NULL for the module itself */
  MlcStrBuf path;       /* e.g. body.block("Y").body.value.b */
  MlcDiffKind kind;
  const void *a, *b;    /* EXPR/STMT/GEXPR/SINFO: the differing nodes */
  MlcStrBuf a_text, b_text; /* TEXT: a description of each side */
} MlcDiff;

bool mlc_module_equal_diff(const MlcModule *a, const MlcModule *b, MlcDiff *diff);
void mlc_diff_free(MlcDiff *diff);

/* Agrees with equality: equal modules hash equal. */
uint64_t mlc_module_hash(const MlcModule *m);
uint64_t mlc_prim_func_hash(const MlcPrimFunc *f);
uint64_t mlc_gfunc_hash(const MlcGFunc *f);

/* ======================================================================== */
/* visitors and mutators                                                    */
/* ======================================================================== */

/* A visitor walks every node in pre-order.  Each hook may be NULL; returning
 * false from a hook skips that node's children.  Walking a statement reaches
 * its expressions (indices, stored values, loop bounds, block bindings,
 * predicates, region ranges; not buffer shapes); walking a graph expression
 * reaches its bindings, struct-info shape expressions and shape values. */
typedef struct MlcVisitor MlcVisitor;
struct MlcVisitor {
  void *user;
  bool (*expr)(MlcVisitor *v, const MlcExpr *e);
  bool (*stmt)(MlcVisitor *v, const MlcStmt *s);
  bool (*block)(MlcVisitor *v, const MlcBlock *b);
  bool (*gexpr)(MlcVisitor *v, const MlcGExpr *e);
  void (*buffer_use)(MlcVisitor *v, const MlcBuffer *b); /* each load/store/region */
};
void mlc_visit_expr(MlcVisitor *v, const MlcExpr *e);
void mlc_visit_stmt(MlcVisitor *v, const MlcStmt *s);
void mlc_visit_prim_func(MlcVisitor *v, const MlcPrimFunc *f);
void mlc_visit_gexpr(MlcVisitor *v, const MlcGExpr *e);
void mlc_visit_gfunc(MlcVisitor *v, const MlcGFunc *f);

/* A mutator rebuilds a tree bottom-up, sharing every subtree that did not
 * change.  A hook, when set, is called instead of the default for that node
 * and may call the matching mlc_mutate_*_children to get the default rebuild.
 * buffer_map (old buffer -> new buffer) substitutes buffers in loads, stores,
 * regions and allocations.  Builders may fail (NULL + error in ctx). */
typedef struct MlcMutator MlcMutator;
struct MlcMutator {
  MlcCtx *ctx;
  void *user;
  MlcMap buffer_map;
  MlcExpr *(*expr)(MlcMutator *m, MlcExpr *e);
  MlcStmt *(*stmt)(MlcMutator *m, MlcStmt *s);
  MlcGExpr *(*gexpr)(MlcMutator *m, MlcGExpr *e);
};
MlcExpr *mlc_mutate_expr(MlcMutator *m, MlcExpr *e);
MlcExpr *mlc_mutate_expr_children(MlcMutator *m, MlcExpr *e);
MlcStmt *mlc_mutate_stmt(MlcMutator *m, MlcStmt *s);
MlcStmt *mlc_mutate_stmt_children(MlcMutator *m, MlcStmt *s);
MlcGExpr *mlc_mutate_gexpr(MlcMutator *m, MlcGExpr *e);
MlcGExpr *mlc_mutate_gexpr_children(MlcMutator *m, MlcGExpr *e);
/* substitute vars (old var pointer -> new expr) in an expression / statement */
MlcExpr *mlc_substitute_expr(MlcCtx *ctx, MlcExpr *e, const MlcMap *vmap);
MlcStmt *mlc_substitute_stmt(MlcCtx *ctx, MlcStmt *s, const MlcMap *vmap);

#endif
