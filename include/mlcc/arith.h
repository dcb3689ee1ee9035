/* arith.h - integer arithmetic analysis: bounds of index expressions over
 * variable ranges, proofs of simple facts, and a simplifier.
 *
 * Lowering simplifies flattened indices and drops predicates it can prove;
 * schedule primitives infer regions and check preconditions with the same
 * analyzer.  Everything here is conservative: an unknown bound is the full
 * range, and "cannot prove" never means "false". */
#ifndef MLCC_ARITH_H
#define MLCC_ARITH_H

#include "mlcc/ir.h"

/* An inclusive integer interval; MLC_INT_NEG_INF / MLC_INT_POS_INF when
 * unbounded on that side. */
typedef struct MlcIntSet { int64_t min, max; } MlcIntSet;
#define MLC_INT_NEG_INF INT64_MIN
#define MLC_INT_POS_INF INT64_MAX

typedef struct MlcAnalyzer {
  MlcCtx *ctx;
  MlcMap ranges; /* var -> MlcIntSet* (arena) */
} MlcAnalyzer;

void mlc_arith_init(MlcAnalyzer *az, MlcCtx *ctx);
void mlc_arith_free(MlcAnalyzer *az);
/* var takes values in [min, min + extent) */
void mlc_arith_bind(MlcAnalyzer *az, const MlcExpr *var, int64_t min, int64_t extent);
/* forget what is known of var (when it leaves scope) */
void mlc_arith_unbind(MlcAnalyzer *az, const MlcExpr *var);

MlcIntSet mlc_arith_bound(MlcAnalyzer *az, const MlcExpr *e);
/* true only when cond (a bool expr) holds for every value of the bound vars */
bool mlc_arith_prove(MlcAnalyzer *az, const MlcExpr *cond);
/* An equivalent, simpler expression: constants folded, integer sums put in a
 * canonical linear form (terms in order of first appearance, constant last),
 * identities applied, floordiv/floormod/min/max/comparisons decided by bounds
 * where they can be.  Never fails on a well-formed input; returns e itself
 * when nothing changes. */
MlcExpr *mlc_arith_simplify(MlcAnalyzer *az, MlcExpr *e);

/* Shorthands that build already-folded nodes (for passes that compute
 * indices): a + b, a * b with constants folded and 0/1 identities applied. */
MlcExpr *mlc_arith_add(MlcCtx *ctx, MlcExpr *a, MlcExpr *b);
MlcExpr *mlc_arith_mul(MlcCtx *ctx, MlcExpr *a, MlcExpr *b);

/* Cost estimates (cost.c): the floating-point operations one call of f
 * performs (each float arithmetic op of a stored value, per lane, times its
 * loops' iterations), -1 when a loop extent is symbolic; and the bytes of
 * f's buffer parameters, -1 when a shape is symbolic. */
double mlc_prim_func_flops(const MlcPrimFunc *f);
double mlc_prim_func_param_bytes(const MlcPrimFunc *f);

/* The op pattern of a prim func, from its TIR (pattern.c): what fusion may
 * do with it.  Ordered from the most to the least fusable. */
#define MLC_OP_PATTERNS(X)                                        \
  X(ELEMWISE, "elemwise")                                         \
  X(BROADCAST, "broadcast")                                       \
  X(INJECTIVE, "injective")                                       \
  X(REDUCE, "reduce")                                             \
  X(OUT_EWISE_FUSABLE, "out_ewise_fusable")                       \
  X(OPAQUE, "opaque")
typedef enum MlcOpPattern {
#define X(id, name) MLC_PATTERN_##id,
  MLC_OP_PATTERNS(X)
#undef X
  MLC_PATTERN_COUNT
} MlcOpPattern;
extern const char *const mlc_op_pattern_names[MLC_PATTERN_COUNT];
MlcOpPattern mlc_prim_func_pattern(const MlcPrimFunc *f);

#endif
