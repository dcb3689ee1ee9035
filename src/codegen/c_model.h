/* c_model.h - what the model generator's files share: the weights layout
 * (params.c), the compiled entry graph function (c_graph.c), and the
 * interface description both model.c and model.h are written from
 * (c_model.c). */
#ifndef MLCC_CODEGEN_C_MODEL_H
#define MLCC_CODEGEN_C_MODEL_H

#include "c_emit.h"
#include "mlcc/runtime.h"

/* the alignment of every constant in the weights payload (MLCRT_ALIGN) */
#define C_PARAM_ALIGN MLCRT_ALIGN

/* Where each constant lives in the payload: offsets maps an MlcTensorData
 * pointer to its byte offset + 1 (so that offset 0 is not a missing key);
 * nbytes is the payload's size, a multiple of C_PARAM_ALIGN. */
typedef struct CParamLayout {
  MlcMap offsets;
  size_t nbytes;
} CParamLayout;

bool c_param_layout(MlcCtx *ctx, const MlcModule *m, CParamLayout *out);
void c_param_layout_free(CParamLayout *l);
/* the payload itself, malloc'd (NULL when nbytes is 0) */
void *c_param_payload(const MlcModule *m, const CParamLayout *l);
/* FNV-1a 64 of bytes: the params.bin hash */
uint64_t c_fnv1a64(const void *p, size_t n);

/* An input or output of the model, as MlcrtParamDesc describes it: dims[d]
 * >= 0 constant, < 0 the symbolic size number -(dims[d] + 1). */
typedef struct CIo {
  const char *name;
  MlcDType dtype;
  int ndim;
  int64_t *dims;
  int align;
} CIo;

/* A call of a kernel or extern in the executor (MlcrtCallSite) */
typedef struct CSite {
  const char *callee, *binding, *ops;
  MlcrtSiteKind kind;
  double flops, bytes;
} CSite;

/* The entry graph function compiled: its interface, and the executor's C
 * (state struct, create, run, destroy: the functions mlc_model_create,
 * mlc_model_run, mlc_model_destroy) that follows the kernels in model.c. */
typedef struct CGraph {
  const MlcGFunc *fn;
  CIo *inputs; int n_inputs;
  CIo *outputs; int n_outputs;
  const char **sym_names; int n_syms;
  CSite *sites; int n_sites;   /* the calls, in the order the executor makes them */
  const char **externs; int n_externs; /* the extern functions it calls (create resolves
                                          them through mlc_get_extern, which model.c defines
                                          before this code) */
  MlcStrBuf code;
} CGraph;

/* gpu: the kernels' target; for a GPU the executor brackets each run with
 * the runtime's residency (runtime.h), so tensors stay on the device
 * between kernels and move only where the host reads or writes them */
bool c_graph_compile(MlcCtx *ctx, const MlcModule *m, const char *entry, const CKernelVec *kernels,
                     const CParamLayout *params, MlcGpuApi gpu, CGraph *out);
void c_graph_free(CGraph *g);

/* model.c and model.h of one model, compiled once (mlc_build_model) */
bool c_model_files(MlcCtx *ctx, const MlcModule *m, const MlcModelOptions *mo, MlcStrBuf *c, MlcStrBuf *h);


#endif
