/* interp_internal.h - what the reference interpreter's files share: values,
 * the mirror tree the interpreter walks (built by mirror.c), and the state
 * of one run.  eval.c gives expressions their meaning, interp.c statements
 * and arguments. */
#ifndef MLCC_INTERP_INTERNAL_H
#define MLCC_INTERP_INTERNAL_H

#include "mlcc/interp.h"

typedef struct Interp Interp;

/* the most lanes a value may have, the most dimensions of a param buffer,
 * the iter vars a block binds without allocating, the terms of an affine
 * index kept as one node */
enum { MAX_LANES = 256, MAX_RANK = 64, STACK_ITERS = 16, MAX_TERMS = 8 };

typedef struct Val { int64_t i; double f; } Val;

/* a var's current value: NULL lanes when it is unbound here */
typedef struct Slot { Val *lanes; int n; } Slot;

typedef struct CExpr CExpr;
typedef Val (*EvalFn)(Interp *in, const CExpr *c, int lane);

/* An integer sum of constant multiples of scalar vars (the flattened index
 * i * 128 + j): one node, evaluated in 64-bit modular arithmetic and wrapped
 * to the dtype once, which equals wrapping after every step. */
typedef struct Affine {
  MlcDType t;
  int64_t k;
  int n;
  int slot[MAX_TERMS];
  int64_t coef[MAX_TERMS];
  const MlcExpr *var[MAX_TERMS];
} Affine;

struct CExpr {
  EvalFn fn;        /* the evaluator: generic, or one specialized to the node */
  const MlcExpr *e; /* kind, dtype, operator, immediates */
  CExpr **k;        /* mirrored operands */
  int slot;         /* VAR, LET: the var's slot; LOAD: the buffer's slot */
  Val imm;          /* INT, FLOAT: the value, already at its dtype */
  Affine *aff;      /* BINARY: set when fn evaluates it as an affine sum */
  Affine **idx;     /* LOAD: the indices, when every one is affine */
};

typedef struct CStmt CStmt;
struct CStmt {
  const MlcStmt *s;
  CExpr **e;    /* STORE: indices then value; FOR: min, extent; REALIZE: values,
                   predicate, then each iter var's domain min; IF, LET, EVALUATE: one */
  CStmt **k;    /* bodies; REALIZE: init (maybe NULL), body */
  int slot;     /* STORE, ALLOCATE: buffer; FOR, LET: var */
  Affine **idx; /* STORE: the indices, when every one is affine */
  int *slots;   /* REALIZE: iter var slots, then allocated buffer slots */
};

/* what the mirror knows of a buffer: its shape, strides and offset */
typedef struct BufInfo {
  const MlcBuffer *buf;
  CExpr **shape, **strides, *offset;
} BufInfo;

typedef struct BufBind {
  char *data;
  int64_t *shape, *strides; /* in elements */
  int64_t offset;           /* in elements */
  int64_t numel;            /* elements addressable from data */
} BufBind;

struct Interp {
  MlcCtx *ctx;
  const MlcPrimFunc *func;
  MlcArena arena;           /* the mirror */
  MlcMap var_slot, buf_slot; /* node -> slot + 1 */
  MLC_VEC(BufInfo *) bufs;
  int nvars;
  Slot *vars;
  BufBind **bound;          /* buffer slot -> its storage here, or NULL */
  const char *block;        /* the innermost block running, for messages */
  bool failed;
};

/* ---- interp.c ---- */

/* Record "function 'f' [, block 'b']: <message>" once; returns false. */
bool interp_fail(Interp *in, const char *fmt, ...) MLC_PRINTF(2, 3);

/* ---- mirror.c ---- */

int interp_var_slot(Interp *in, const MlcExpr *var);
int interp_buf_slot(Interp *in, const MlcBuffer *b);
CExpr *interp_mirror_expr(Interp *in, const MlcExpr *e);
CStmt *interp_mirror_stmt(Interp *in, const MlcStmt *s);

/* ---- eval.c ---- */

int64_t interp_wrap_int(MlcDType t, int64_t v);
/* a value of dtype t: integers wrapped to its width, floats rounded */
Val interp_make(MlcDType t, int64_t i, double f);
void interp_store_elem(MlcDType t, char *p, Val v);
/* choose c's evaluator (and its affine form) once its operands are mirrored */
void interp_specialize(Interp *in, CExpr *c);
/* the indices of an access as affine sums, or NULL unless all of them are */
Affine **interp_affine_indices(Interp *in, MlcExpr *const *idx, int n);
/* element offset of an access, bounds-checked per dimension; the indices
 * are aff when set, else idx */
bool interp_elem_index(Interp *in, int slot, CExpr *const *idx, Affine *const *aff, int n, int lane,
                       const BufBind **bb_out, int64_t *off);

static inline Val interp_eval(Interp *in, const CExpr *c, int lane) { return c->fn(in, c, lane); }

static inline bool interp_eval_int(Interp *in, const CExpr *c, int lane, int64_t *out) {
  *out = interp_eval(in, c, lane).i;
  return !in->failed;
}

#endif
