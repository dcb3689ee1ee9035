/* c_graph.h - what the model executor's three files share (c_graph.c: values,
 * calls and the run's text; c_dyn.c: sizes read from tensors at run time;
 * c_loop.c: R.loop).  Internal to src/codegen. */
#ifndef MLC_CODEGEN_C_GRAPH_H
#define MLC_CODEGEN_C_GRAPH_H

#include "c_model.h"

typedef enum GvKind { GV_NONE, GV_TENSOR, GV_TUPLE, GV_STORAGE, GV_EXPR } GvKind;

typedef struct GVal GVal;
struct GVal {
  GvKind kind;
  /* TENSOR */
  const char *data;     /* C expression of the element pointer */
  int ndim;
  MlcExpr **shape;
  MlcDType dtype;
  int align;            /* alignment known of data (0 none) */
  int alloc;            /* run-time allocation number, or -1 */
  int input;            /* input number, or -1 */
  /* TUPLE */
  GVal **fields;
  int n;
  /* STORAGE: number and bytes */
  int storage;
  int64_t size;
  /* EXPR: a shape, prim value, string or dtype */
  const MlcGExpr *expr;
};

typedef MLC_VEC(GVal *) GValVec;

typedef struct G {
  MlcCtx *ctx;
  const MlcModule *m;
  const MlcGFunc *fn;
  const CKernelVec *kernels;
  const CParamLayout *params;
  MlcMap vals;                      /* graph var -> GVal */
  MLC_VEC(const MlcExpr *) syms;    /* the model's symbolic sizes */
  MLC_VEC(const MlcExpr *) dsyms;   /* sizes bound at run time by tensor_to_shape (fr->mlc_dsym[]) */
  MLC_VEC(const char *) externs;    /* extern names, interned */
  MLC_VEC(int) kept;                /* per kept slot: its allocation, -1 for a copy */
  MLC_VEC(CSite) sites;             /* the calls so far */
  MlcMap site_of_out;               /* a call's output var -> its site number + 1 */
  MlcMap kernel_cost;               /* prim func -> its {flops, bytes}, estimated once */
  MlcStrBuf fields, create, destroy, decls, body;
  MLC_VEC(size_t) cuts;             /* offsets in body where a piece of the run ends */
  int n_allocs, n_storages;
  CIo *inputs;
  int n_inputs;
  MlcLoc loc;                       /* the binding being compiled */
  const char *bname;                /* its var's name */
  MlcGpuApi gpu;                    /* the kernels' target: tensors live on its device between kernels */
  bool dyn_used;                    /* the run reads sizes from tensors (DYN_PREAMBLE) */
  MlcMap sym_alias;                 /* a loop body's size var -> the caller's dim it stands for */
  int n_loops;                      /* R.loop calls compiled, which number their locals */
  int loop_depth;                   /* R.loop bodies being compiled, one inside another */
} G;

/* a located error at the binding being compiled; returns false */
bool cg_gerr(G *g, const char *fmt, ...) MLC_PRINTF(2, 3);
GVal *cg_gv_new(G *g, GvKind kind);
/* the index of a model symbolic size / of a size bound at run time, or -1 */
int cg_sym_index(const G *g, const MlcExpr *v);
int cg_dsym_index(const G *g, const MlcExpr *v);
/* C text of a size, and of a tensor's dims (comma-separated) */
bool cg_c_dim(G *g, const MlcExpr *e, MlcStrBuf *sb);
bool cg_c_dims(G *g, const GVal *t, MlcStrBuf *sb);
/* emits mlc_nb = the bytes of t, checked against overflow */
bool cg_emit_nbytes(G *g, const GVal *t, const char *what);
GVal *cg_resolve(G *g, const MlcGExpr *e);
GVal *cg_resolve_tensor(G *g, const MlcGExpr *e, const char *what);
bool cg_compile_binding(G *g, const MlcBinding *b);

/* c_dyn.c */
extern const char cg_dyn_preamble[];
GVal *cg_tensor_to_shape(G *g, const MlcGExpr *call);
GVal *cg_reshape_dynamic(G *g, const MlcGExpr *call);

/* c_loop.c */
GVal *cg_compile_loop(G *g, const MlcGExpr *call);

#endif
