/* mlcc.h - the stable C API for embedding mlcc (what libmlcc.so exports and
 * the Python package calls through ctypes).
 *
 * The layer headers beside this one (ir.h, schedule.h, ...) are the
 * compiler's inside: their structs change as the compiler grows.  This
 * header is the outside: opaque handles, plain C types, and one error
 * channel, so a program or a foreign-function binding written against it
 * keeps working.  docs/c-api.md describes it; the conventions:
 *
 *   - Everything is made in a context (MlccContext).  Modules, expressions,
 *     tensors and graph values are owned by their context and live until it
 *     is freed; nothing is freed one by one except schedules, function
 *     builders and loaded libraries (their _free functions).  A context is
 *     used by one thread at a time; handles of two contexts never mix.
 *   - A function that can fail returns NULL or a non-zero status and leaves
 *     a message (with the place, e.g. "<text>:3:7: ...") for
 *     mlcc_last_error(ctx).  Nothing here prints, asserts on input or exits.
 *   - Strings returned as `char *` are malloc'd and the caller frees them
 *     with mlcc_free; `const char *` ones belong to the context.
 *   - Names of dtypes are the text form's ("float32", "int64").
 *
 * The prefix is `mlcc_` / `Mlcc` (the layers inside use `mlc_`). */
#ifndef MLCC_MLCC_H
#define MLCC_MLCC_H

#include <stddef.h>
#include <stdint.h>

#include "mlcc/runtime.h" /* DLTensor */

#ifdef __cplusplus
extern "C" {
#endif

#define MLCC_API_VERSION 1

typedef struct MlccContext MlccContext;
typedef struct MlccModule MlccModule;     /* an IRModule (immutable) */
typedef struct MlccSchedule MlccSchedule; /* a schedule over one prim func */
typedef struct MlccExpr MlccExpr;         /* a TIR scalar expression */
typedef struct MlccTensor MlccTensor;     /* a tensor expression (TE) */
typedef struct MlccGExpr MlccGExpr;       /* a graph value: var, call, tuple, constant ... */
typedef struct MlccSInfo MlccSInfo;       /* graph struct info (tensor type, tuple) */
typedef struct MlccFuncBuilder MlccFuncBuilder;
typedef struct MlccLib MlccLib;           /* a loaded compiled module or model */

int mlcc_api_version(void);

/* ---- contexts and errors --------------------------------------------------- */
MlccContext *mlcc_context_new(void);
void mlcc_context_free(MlccContext *ctx);
/* the message of the last failure in ctx ("" when none) */
const char *mlcc_last_error(const MlccContext *ctx);
void mlcc_free(void *p);

/* ---- element types numpy lacks ---------------------------------------------- */
/* decodes n elements of a float type that has no C or numpy equivalent
 * ("bfloat16": two bytes each; the 8- and 4-bit floats such as
 * "float8_e4m3fn": one byte each, the code in the low bits) into float32,
 * exactly as compiled code computes with them; 0, or -1 for a dtype that is
 * not one of these */
int mlcc_small_float_decode(const char *dtype, const void *src, int64_t n, float *dst);

/* ---- values: arguments of schedule primitives and op attributes ------------ */
typedef enum MlccValueKind {
  MLCC_V_NONE, MLCC_V_BLOCK, MLCC_V_LOOP, MLCC_V_INTRV, MLCC_V_INT, MLCC_V_FLOAT,
  MLCC_V_BOOL, MLCC_V_STR, MLCC_V_LIST, MLCC_V_LAMBDA,
} MlccValueKind;

typedef struct MlccValue {
  int32_t kind;                 /* MlccValueKind */
  int32_t n;                    /* LIST: the number of items */
  int64_t i;                    /* INT, BOOL, and the handle id of BLOCK, LOOP, INTRV */
  double f;                     /* FLOAT */
  const char *s;                /* STR; LAMBDA: the lambda's text, "lambda i, j: (j, i)" */
  const struct MlccValue *items; /* LIST */
} MlccValue;

/* ---- modules ------------------------------------------------------------------ */
/* Read TVMScript text (name labels the text in messages). */
MlccModule *mlcc_module_parse(MlccContext *ctx, const char *name, const char *text, size_t len);
MlccModule *mlcc_module_load(MlccContext *ctx, const char *path);
char *mlcc_module_print(MlccContext *ctx, const MlccModule *m);
/* one function's text, NULL when there is none of that name */
char *mlcc_module_func_script(MlccContext *ctx, const MlccModule *m, const char *func);
/* 1 equal, 0 different (alpha-equivalence, as `mlcc equal`) */
int mlcc_module_equal(const MlccModule *a, const MlccModule *b);
/* NULL when equal, else where they first differ (malloc'd) */
char *mlcc_module_diff(MlccContext *ctx, const MlccModule *a, const MlccModule *b);
uint64_t mlcc_module_hash(const MlccModule *m);
int mlcc_module_num_funcs(const MlccModule *m);
const char *mlcc_module_func_name(const MlccModule *m, int i);
/* 1 graph function, 0 prim func, -1 out of range */
int mlcc_module_func_is_graph(const MlccModule *m, int i);
/* base with every function of add put in (replacing those of the same name) */
MlccModule *mlcc_module_update(MlccContext *ctx, const MlccModule *base, const MlccModule *add);
/* m with function `from` called `to` (a prim func's global_symbol follows;
 * calls of it in other functions are not rewritten) */
MlccModule *mlcc_module_rename(MlccContext *ctx, const MlccModule *m, const char *from, const char *to);
/* m without function `func` */
MlccModule *mlcc_module_remove(MlccContext *ctx, const MlccModule *m, const char *func);

/* ---- schedules ------------------------------------------------------------------
 * Every primitive of the one primitive table (schedule.h), by name, with
 * arguments bound to its parameters in table order (a `*name` parameter takes
 * a LIST).  Outputs are handles (BLOCK, LOOP, INTRV).  A refused primitive
 * leaves the schedule as it was. */
int mlcc_schedule_num_prims(void);
const char *mlcc_schedule_prim_name(int i);
/* "loop factors preserve_unit_iters", "*loops preserve_unit_iters", ... */
const char *mlcc_schedule_prim_params(int i);
/* func NULL: the module's only prim func */
MlccSchedule *mlcc_schedule_new(MlccContext *ctx, const MlccModule *m, const char *func, uint64_t seed);
void mlcc_schedule_free(MlccSchedule *s);
int mlcc_schedule_apply(MlccSchedule *s, const char *prim, const MlccValue *args, int n_args,
                        MlccValue *outs, int cap, int *n_outs);
const MlccModule *mlcc_schedule_module(const MlccSchedule *s);
/* the trace as schedule-script lines */
char *mlcc_schedule_trace(const MlccSchedule *s);
/* run script lines (what a trace prints) on the schedule */
int mlcc_schedule_run_script(MlccSchedule *s, const char *text);
/* the value a sampled integer handle took; 0 with *out set, else an error */
int mlcc_schedule_int_value(MlccSchedule *s, int64_t rv, int64_t *out);

/* ---- TIR expressions and tensor expressions (TE) ---------------------------- */
MlccExpr *mlcc_expr_int(MlccContext *ctx, int64_t v, const char *dtype);
MlccExpr *mlcc_expr_float(MlccContext *ctx, double v, const char *dtype);
MlccExpr *mlcc_expr_var(MlccContext *ctx, const char *name, const char *dtype);
/* op: "+", "-", "*", "/", "//", "%", "min", "max", "==", "!=", "<", "<=", ">",
 * ">=", "and", "or".  An immediate operand takes the other operand's dtype. */
MlccExpr *mlcc_expr_binary(MlccContext *ctx, const char *op, MlccExpr *a, MlccExpr *b);
MlccExpr *mlcc_expr_neg(MlccContext *ctx, MlccExpr *a);
MlccExpr *mlcc_expr_select(MlccContext *ctx, MlccExpr *c, MlccExpr *t, MlccExpr *f);
MlccExpr *mlcc_expr_cast(MlccContext *ctx, const char *dtype, MlccExpr *a);
/* math intrinsics by name: "exp", "log", "sqrt", "tanh", "sigmoid", ... */
MlccExpr *mlcc_expr_call(MlccContext *ctx, const char *name, MlccExpr *const *args, int n);
const char *mlcc_expr_dtype(MlccContext *ctx, const MlccExpr *e);
/* 1 and *out set when e is an integer constant */
int mlcc_expr_int_value(const MlccExpr *e, int64_t *out);
char *mlcc_expr_print(const MlccExpr *e);

/* an index var (int64) for te_compute axes and reduce axes */
MlccExpr *mlcc_te_var(MlccContext *ctx, const char *name);
MlccTensor *mlcc_te_placeholder(MlccContext *ctx, const char *name, MlccExpr *const *shape, int ndim,
                                const char *dtype);
MlccExpr *mlcc_te_read(MlccContext *ctx, const MlccTensor *t, MlccExpr *const *idx, int n);
MlccTensor *mlcc_te_compute(MlccContext *ctx, const char *name, MlccExpr *const *shape, int ndim,
                            MlccExpr *const *axes, MlccExpr *body);
/* reduce: "sum", "max" or "min" of body over raxes[i] in [0, rextents[i]) */
MlccTensor *mlcc_te_reduce(MlccContext *ctx, const char *name, MlccExpr *const *shape, int ndim,
                           MlccExpr *const *axes, const char *reduce, MlccExpr *body,
                           MlccExpr *const *raxes, MlccExpr *const *rextents, int n_raxes);
int mlcc_te_ndim(const MlccTensor *t);
MlccExpr *mlcc_te_dim(const MlccTensor *t, int i);
const char *mlcc_te_dtype(MlccContext *ctx, const MlccTensor *t);
const char *mlcc_te_name(const MlccTensor *t);
/* a module holding the prim func `name` over params (inputs, then outputs) */
MlccModule *mlcc_te_create_prim_func(MlccContext *ctx, const char *name, MlccTensor *const *params, int n);

/* ---- graph values (the graph builder) ------------------------------------------- */
MlccSInfo *mlcc_sinfo_tensor(MlccContext *ctx, MlccExpr *const *shape, int ndim, const char *dtype);
MlccSInfo *mlcc_sinfo_tuple(MlccContext *ctx, MlccSInfo *const *fields, int n);
MlccSInfo *mlcc_sinfo_object(MlccContext *ctx);
/* 0 object, 1 tensor, 2 tuple, 3 shape, 4 prim */
int mlcc_sinfo_kind(const MlccSInfo *s);
/* tensor: the rank (-1 unknown), dims, dtype; tuple: the field count and fields */
int mlcc_sinfo_ndim(const MlccSInfo *s);
MlccExpr *mlcc_sinfo_dim(const MlccSInfo *s, int i);
const char *mlcc_sinfo_dtype(MlccContext *ctx, const MlccSInfo *s);
int mlcc_sinfo_num_fields(const MlccSInfo *s);
MlccSInfo *mlcc_sinfo_field(const MlccSInfo *s, int i);
char *mlcc_sinfo_print(const MlccSInfo *s);

MlccGExpr *mlcc_g_var(MlccContext *ctx, const char *name, MlccSInfo *sinfo);
/* a tensor constant: the data (row-major, compact) is copied */
MlccGExpr *mlcc_g_const(MlccContext *ctx, const char *dtype, const int64_t *shape, int ndim, const void *data,
                        size_t nbytes);
MlccGExpr *mlcc_g_tuple(MlccContext *ctx, MlccGExpr *const *fields, int n);
MlccGExpr *mlcc_g_get_item(MlccContext *ctx, MlccGExpr *tuple, int index);
/* an op call ("add", "nn.relu", ...) with keyword attributes; its struct
 * info is inferred from the arguments' (an error when they disagree) */
MlccGExpr *mlcc_g_call_op(MlccContext *ctx, const char *op, MlccGExpr *const *args, int n,
                          const char *const *keys, const MlccValue *vals, int n_attrs);
MlccGExpr *mlcc_g_call_tir(MlccContext *ctx, const char *func, MlccGExpr *const *args, int n, MlccSInfo *out);
MlccGExpr *mlcc_g_call_dps_packed(MlccContext *ctx, const char *ext, MlccGExpr *const *args, int n,
                                  MlccSInfo *out);
/* a call of the module's graph function `func`, returning ret */
MlccGExpr *mlcc_g_call_global(MlccContext *ctx, const char *func, MlccGExpr *const *args, int n, MlccSInfo *ret);
/* call with its arguments replaced (same callee, attributes, out struct info;
 * an op call's struct info inferred again) */
MlccGExpr *mlcc_g_call_with_args(MlccContext *ctx, const MlccGExpr *call, MlccGExpr *const *args, int n);

/* what a graph value is */
typedef enum MlccGKind {
  MLCC_G_VAR, MLCC_G_DFVAR, MLCC_G_CONST, MLCC_G_TUPLE, MLCC_G_GET_ITEM, MLCC_G_CALL, MLCC_G_SHAPE,
  MLCC_G_PRIM, MLCC_G_STR, MLCC_G_DTYPE, MLCC_G_OP, MLCC_G_GLOBAL, MLCC_G_EXTERN, MLCC_G_IF, MLCC_G_SEQ,
} MlccGKind;
int mlcc_g_kind(const MlccGExpr *e);
/* VAR/DFVAR/OP/GLOBAL/EXTERN/STR: the name; CALL: its callee's name
 * (op, function or extern); NULL otherwise */
const char *mlcc_g_name(const MlccGExpr *e);
/* CALL: the callee's kind (MLCC_G_OP, MLCC_G_GLOBAL, MLCC_G_EXTERN, ...) */
int mlcc_g_callee_kind(const MlccGExpr *e);
/* CALL: arguments; TUPLE: fields; GET_ITEM: the tuple (index in *_index) */
int mlcc_g_num_args(const MlccGExpr *e);
MlccGExpr *mlcc_g_arg(const MlccGExpr *e, int i);
int mlcc_g_get_item_index(const MlccGExpr *e);
MlccSInfo *mlcc_g_sinfo(const MlccGExpr *e);
char *mlcc_g_print(const MlccGExpr *e);

/* Graph functions: params, then blocks of bindings (dataflow or not), then
 * the result; an emitted binding's var gets its value's struct info.  In a
 * dataflow block, `output` bindings are visible after the block. */
MlccFuncBuilder *mlcc_fb_new(MlccContext *ctx, const char *name, MlccGExpr *const *params, int n);
void mlcc_fb_free(MlccFuncBuilder *fb);
/* set (or replace) the params before finishing, when they are known late */
int mlcc_fb_set_params(MlccFuncBuilder *fb, MlccGExpr *const *params, int n);
int mlcc_fb_begin_block(MlccFuncBuilder *fb, int dataflow);
MlccGExpr *mlcc_fb_emit(MlccFuncBuilder *fb, MlccGExpr *value, const char *name, int output);
int mlcc_fb_end_block(MlccFuncBuilder *fb);
int mlcc_fb_set_attr(MlccFuncBuilder *fb, const char *key, const MlccValue *val);
/* a module holding the finished function */
MlccModule *mlcc_fb_finish(MlccFuncBuilder *fb, MlccGExpr *result);

/* inspecting a module's graph function: params, blocks of bindings, result */
int mlcc_gfunc_num_params(const MlccModule *m, const char *func);
MlccGExpr *mlcc_gfunc_param(const MlccModule *m, const char *func, int i);
int mlcc_gfunc_num_blocks(const MlccModule *m, const char *func);
int mlcc_gfunc_block_is_dataflow(const MlccModule *m, const char *func, int b);
int mlcc_gfunc_block_size(const MlccModule *m, const char *func, int b);
MlccGExpr *mlcc_gfunc_binding_var(const MlccModule *m, const char *func, int b, int k);
MlccGExpr *mlcc_gfunc_binding_value(const MlccModule *m, const char *func, int b, int k);
MlccGExpr *mlcc_gfunc_result(const MlccModule *m, const char *func);

/* the op registry: names ("nn.conv2d") and signatures ("T:data T:weight A:strides? ...") */
int mlcc_op_count(void);
const char *mlcc_op_name(int i);
const char *mlcc_op_signature(int i);

/* ---- passes, import, build ------------------------------------------------------ */
/* the graph passes in pipeline order (transform.h) */
int mlcc_pass_count(void);
const char *mlcc_pass_name(int i);
/* one graph pass by name */
MlccModule *mlcc_run_pass(MlccContext *ctx, const MlccModule *m, const char *pass);
/* The graph pipeline up to and including `last` (NULL: all of it), default
 * schedules sized for march ("native", "x86-64-v3", ...; NULL: $MLC_MARCH
 * or the host; "none": no default schedules). */
MlccModule *mlcc_pipeline(MlccContext *ctx, const MlccModule *m, const char *last, const char *march);
/* replace the params of graph function func named in names[] by constants */
MlccModule *mlcc_bind_params(MlccContext *ctx, const MlccModule *m, const char *func, const char *const *names,
                             MlccGExpr *const *consts, int n);
/* an ONNX model file; shapes override inputs' (names[i] with ndims[i] dims
 * taken in turn from dims) */
MlccModule *mlcc_onnx_import(MlccContext *ctx, const char *path, const char *const *names, const int *ndims,
                             const int64_t *dims, int n_shapes);
/* Compile the prim funcs of m into the shared object so_path (C beside it). */
int mlcc_build_kernels(MlccContext *ctx, const MlccModule *m, const char *so_path);
/* Compile graph function entry (NULL: "main") of a module that has been
 * through the pipeline into dir (model.so, model.h, model.c, params.bin). */
int mlcc_build_model(MlccContext *ctx, const MlccModule *m, const char *dir, const char *entry);

/* The same for a target: "native" (or NULL: C for this CPU), "generic"
 * (C for the baseline x86-64), "opencl" or "cuda" (the kernels for a GPU,
 * their source kept beside so_path as .cl / .cu; docs/gpu.md). */
int mlcc_build_kernels_for(MlccContext *ctx, const MlccModule *m, const char *so_path, const char *target);
/* The same for a model; a GPU target's default rule binds every kernel
 * that is not bound yet to thread blocks first. */
int mlcc_build_model_for(MlccContext *ctx, const MlccModule *m, const char *dir, const char *entry,
                         const char *target);

/* ---- tuning (docs/tuning.md) ----------------------------------------------------- */
/* Options of mlcc_tune; zero (or a NULL pointer) means the default. */
typedef struct MlccTuneOptions {
  int trials;           /* measured candidates in all (64) */
  int batch;            /* candidates per round (8) */
  uint64_t seed;        /* the search's seed (0) */
  int threads;          /* runtime threads per measurement (the runtime's default) */
  double timeout_s;     /* per candidate (10) */
  double time_budget_s; /* stop after this long (no limit) */
  int progress;         /* 1: one line per round on stderr */
} MlccTuneOptions;

/* Tune every kernel of m (a module with graph functions goes through the
 * graph pipeline up to dead code first, so the tasks are the kernels a
 * build compiles) on this machine.  records_path is read first when it
 * exists (what it holds is never measured again) and every measurement is
 * appended to it as it comes. */
int mlcc_tune(MlccContext *ctx, const MlccModule *m, const char *records_path, const MlccTuneOptions *opt);
/* m's prim funcs with the best record of each (the n record files merged,
 * on this machine's target) replayed onto it; such a function carries the
 * attribute "tuned".  n_applied / n_failed (may be NULL): functions
 * scheduled, records that no longer applied. */
MlccModule *mlcc_apply_records(MlccContext *ctx, const MlccModule *m, const char *const *paths, int n,
                               int *n_applied, int *n_failed);
/* The whole graph pipeline of a build for target (as mlcc_build_model_for
 * takes it: NULL or "native" sizes default schedules for this CPU,
 * "generic" for the baseline x86-64, a GPU target leaves them to the GPU
 * rule) with the records applied to the kernels it makes (none when n is
 * 0); the kernels the module came with keep their schedules. */
MlccModule *mlcc_pipeline_for(MlccContext *ctx, const MlccModule *m, const char *target, const char *const *paths,
                              int n, int *n_applied, int *n_failed);

/* ---- loading and calling compiled code ----------------------------------------- */
/* a model directory (or its model.so) or a kernels .so */
MlccLib *mlcc_lib_load(MlccContext *ctx, const char *path);
void mlcc_lib_free(MlccLib *lib);
/* 1 when lib is a model (mlcc_lib_run), 0 when kernels (mlcc_lib_call) */
int mlcc_lib_is_model(const MlccLib *lib);
/* Kernels: their count and names; a model: its one entry.  For function i
 * (of a model: i = 0 is the model) the params: kernels' params in order; a
 * model's inputs then outputs (mlcc_lib_num_inputs says where outputs start). */
int mlcc_lib_num_funcs(const MlccLib *lib);
const char *mlcc_lib_func_name(const MlccLib *lib, int i);
int mlcc_lib_num_params(const MlccLib *lib, int i);
int mlcc_lib_num_inputs(const MlccLib *lib, int i);
/* param p of function i: name, dtype, rank, and each dim (-1 symbolic) */
const char *mlcc_lib_param_name(const MlccLib *lib, int i, int p);
const char *mlcc_lib_param_dtype(MlccLib *lib, int i, int p);
int mlcc_lib_param_ndim(const MlccLib *lib, int i, int p);
int64_t mlcc_lib_param_dim(const MlccLib *lib, int i, int p, int d);
/* kernels: call function `name` on tensors (destination passing) */
int mlcc_lib_call(MlccContext *ctx, MlccLib *lib, const char *name, DLTensor *const *args, int n);
/* a model: run on inputs; outputs[i] point at tensors the model owns
 * (valid until the next run or free) */
int mlcc_lib_run(MlccContext *ctx, MlccLib *lib, DLTensor *const *inputs, int n_in, DLTensor **outputs,
                 int n_out);
/* time `number` calls (a model: runs), `repeat` times; seconds per call:
 * the mean, the median and the fastest of the repeats */
int mlcc_lib_time(MlccContext *ctx, MlccLib *lib, const char *name, DLTensor *const *args, int n, int number,
                  int repeat, double *mean, double *median, double *min);

/* extern functions that call_dps_packed reaches by name (process-wide) */
int mlcc_register_extern(MlccContext *ctx, const char *name, MlcrtExternFn fn);

#ifdef __cplusplus
}
#endif
#endif
