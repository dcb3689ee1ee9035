/* tune_internal.h - what the tuner's files share: looking at a scheduled
 * function's blocks and loops, and applying primitives by handle. */
#ifndef MLCC_TUNE_INTERNAL_H
#define MLCC_TUNE_INTERNAL_H

#include "mlcc/tune.h"

enum { TUNE_MAX_NEST = 16, TUNE_MAX_BLOCKS = 64 };

/* A block as the tuner sees it: its realize and the loops above it, up to
 * the nearest enclosing block, outermost first. */
typedef struct TuneBlock {
  const MlcStmt *realize;
  const MlcBlock *b;
  const MlcStmt *loops[TUNE_MAX_NEST];
  int n_loops;
} TuneBlock;

/* the blocks that hold no other block, in program order; returns the count */
int tune_leaf_blocks(const MlcPrimFunc *f, TuneBlock *out, int cap);
/* the leaf block named name; false when there is none */
bool tune_find_block(const MlcPrimFunc *f, const char *name, TuneBlock *out);
bool tune_uses_var(const MlcExpr *e, const MlcExpr *var);
/* only spatial iters and no init */
bool tune_is_complete(const MlcBlock *b);

/* primitives by handle, through mlc_sch_apply */
MlcSchVal tune_v_block(int id);
MlcSchVal tune_v_loop(int id);
MlcSchVal tune_v_int(int64_t i);
bool tune_apply(MlcSchedule *s, MlcSchPrim p, MlcSchVal *args, MlcSchVal *outs, int *n);
/* the loop handles of block b (by name); false on error */
bool tune_loops(MlcSchedule *s, const char *block, int *b_id, int *loops, int *n);

#define TUNE_UNROLL_KEY "auto_unroll_max_step"

/* the design space for a GPU target (space_gpu.c; t->gpu set): one space,
 * returns 1, or 0 + error */
int tune_gpu_spaces(MlcCtx *ctx, const MlcModule *m, const char *func, const MlcSchTarget *t, MlcSchedule **out,
                    int cap);
/* f has loops bound to thread axes: a candidate for a GPU target */
bool tune_is_gpu_func(const MlcPrimFunc *f);
/* the default rules' schedule applied to s (the GPU rules for a GPU
 * target, their forms limited to what lowers for its API); false + error */
bool tune_default_schedule(MlcSchedule *s, const MlcSchTarget *t);
/* measure.c's steps, shared with the artifact commands (artifact.c):
 * the options with their defaults; a batch of n split into parts
 * (start[0..parts], at most 64 parts); parts built in parallel into so[k]
 * as cand_0, cand_1, ... (ok[k]: it built); the candidates cand_0..n-1 of
 * one shared object timed in child processes. */
void tune_measure_defaults(const MlcTuneMeasureOptions *in, MlcTuneMeasureOptions *o);
int tune_split(int n, const MlcTuneMeasureOptions *o, int *start);
void tune_build_parts(MlcCtx *ctx, const MlcPrimFunc *const *cands, const int *start, int parts, const char **so,
                      const MlcTuneMeasureOptions *o, bool *ok);
/* The graph pipeline up to dead code with db deciding dispatch_library
 * (library.c): a matmul call stays for the generated kernel where both
 * sides were measured on t and it won (db NULL: the size rule).  dump as
 * for mlc_graph_pipeline. */
MlcModule *tune_graph_kernels(MlcCtx *ctx, const MlcModule *m, const MlcTuneDB *db, const MlcTuneTarget *t,
                              MlcPassDump dump, void *user);
/* conv_layout.c: k (kernels, after tune_graph_kernels) with each conv
 * kernel whose fastest record on t is for another weight layout replaced
 * by that layout's kernel (its "layout_rewrites" say how the constant is
 * to be laid out; *relaid set when any was); NULL + error */
MlcModule *tune_choose_layouts(MlcCtx *ctx, const MlcModule *k, const MlcTuneDB *db, const MlcTuneTarget *t,
                               bool *relaid);
/* conv_layout.c: k plus each conv kernel's other layouts as tasks */
MlcModule *tune_add_layout_tasks(MlcCtx *ctx, const MlcModule *k, const MlcTuneTarget *t);
/* f's buffer params as float32 shapes for a library call (at most cap
 * params of at most 8 constant dims); their count, -1 otherwise */
int tune_param_shapes(const MlcPrimFunc *f, int32_t *ndim, int64_t (*dims)[8], int cap);
/* the runtime's extern lib timed in a child on random float32 tensors of
 * these shapes (measure.c); out as for mlc_tune_measure */
bool tune_measure_extern(MlcCtx *ctx, const char *lib, int n, const int32_t *ndim, const int64_t (*dims)[8],
                         const MlcTuneMeasureOptions *o, MlcTuneResult *out);
bool tune_measure_so(MlcCtx *ctx, const char *so, int n, const MlcTuneMeasureOptions *o, MlcTuneResult *out);

#endif
