/* schedule.h - transforming tensor programs: the schedule state, its
 * primitives, and traces.
 *
 * A schedule holds a module and the prim func being transformed.  Primitives
 * rewrite that function into an equivalent one; each checks its
 * preconditions first and, when one fails, records an error naming the
 * block or loop and the violated condition and leaves the schedule exactly
 * as it was -- IR nodes are immutable, so the schedule simply keeps its old
 * module.
 *
 * Handles ("random variables", as the field calls them) name blocks, loops
 * and sampled integers.  A block handle names a block by its name (unique in
 * a function); a loop handle names a loop by its loop var (a loop keeps its
 * var while it exists).  A handle whose block or loop no longer exists is
 * stale, and using it is an error.
 *
 * Every primitive appends an instruction to the trace, with any sampling
 * decision.  A trace prints as schedule-script lines
 *     b0 = sch.get_block("Y")
 *     l1, l2 = sch.split(loop=l0, factors=[None, 4])
 * and such a script reads back and replays (mlc_sch_run_script). */
#ifndef MLCC_SCHEDULE_H
#define MLCC_SCHEDULE_H

#include "mlcc/ir.h"

typedef struct MlcSchedule MlcSchedule;

typedef struct MlcBlockRV { int id; } MlcBlockRV;
typedef struct MlcLoopRV { int id; } MlcLoopRV;
typedef struct MlcIntRV { int id; } MlcIntRV;

/* A schedule over function `func` of m (NULL: the module's only prim func).
 * The seed drives the sampling primitives. */
MlcSchedule *mlc_sch_new(MlcCtx *ctx, const MlcModule *m, const char *func, uint64_t seed);
void mlc_sch_free(MlcSchedule *s);
MlcCtx *mlc_sch_ctx(const MlcSchedule *s);
const MlcModule *mlc_sch_module(const MlcSchedule *s);
const MlcPrimFunc *mlc_sch_func(const MlcSchedule *s);

/* ---- the primitive table -------------------------------------------------
 * name (as in scripts: sch.NAME(...)) and its keyword parameters in order;
 * the script reader binds positional arguments to these. */
#define MLC_SCH_PRIMITIVES(X)                                                        \
  X(get_block, "name func_name")                                                     \
  X(get_loops, "block")                                                              \
  X(get_child_blocks, "block_or_loop")                                               \
  X(get_producers, "block")                                                          \
  X(get_consumers, "block")                                                          \
  X(split, "loop factors preserve_unit_iters")                                       \
  X(fuse, "*loops preserve_unit_iters")                                              \
  X(reorder, "*ordered_loops")                                                       \
  X(add_unit_loop, "block_or_loop")                                                  \
  X(parallel, "loop")                                                                \
  X(vectorize, "loop")                                                               \
  X(unroll, "loop")                                                                  \
  X(bind, "loop thread_axis")                                                        \
  X(annotate, "block_or_loop ann_key ann_val")                                       \
  X(unannotate, "block_or_loop ann_key")                                             \
  X(compute_at, "block loop preserve_unit_loops index")                              \
  X(reverse_compute_at, "block loop preserve_unit_loops index")                      \
  X(compute_inline, "block")                                                         \
  X(reverse_compute_inline, "block")                                                 \
  X(cache_read, "block read_buffer_index storage_scope consumer_blocks")             \
  X(cache_write, "block write_buffer_index storage_scope consumer_blocks")           \
  X(decompose_reduction, "block loop")                                               \
  X(rfactor, "loop factor_axis")                                                     \
  X(set_scope, "block buffer_index storage_scope")                                   \
  X(storage_align, "block buffer_index axis factor offset")                          \
  X(transform_layout, "block buffer index_map")                                      \
  X(blockize, "target preserve_unit_iters")                                          \
  X(tensorize, "block_or_loop tensor_intrin preserve_unit_iters")                    \
  X(sample_perfect_tile, "loop n max_innermost_factor decision")                     \
  X(sample_categorical, "candidates probs decision")                                 \
  X(sample_compute_location, "block decision")                                     \
  X(enter_postproc, "")

typedef enum MlcSchPrim {
#define X(name, params) MLC_SCH_##name,
  MLC_SCH_PRIMITIVES(X)
#undef X
  MLC_SCH_PRIM_COUNT
} MlcSchPrim;

extern const char *const mlc_sch_prim_names[MLC_SCH_PRIM_COUNT];
extern const char *const mlc_sch_prim_params[MLC_SCH_PRIM_COUNT];

/* ---- script values -------------------------------------------------------
 * What a script passes to a primitive and gets back: handles, ints, None,
 * strings, bools, floats, lists, and index maps (lambda text). */
typedef enum MlcSchValKind {
  MLC_SV_NONE, MLC_SV_BLOCK, MLC_SV_LOOP, MLC_SV_INTRV, MLC_SV_INT, MLC_SV_FLOAT,
  MLC_SV_BOOL, MLC_SV_STR, MLC_SV_LIST, MLC_SV_LAMBDA,
} MlcSchValKind;

typedef struct MlcSchVal MlcSchVal;
struct MlcSchVal {
  MlcSchValKind kind;
  union {
    int rv;            /* BLOCK, LOOP, INTRV: handle id */
    int64_t i;         /* INT, BOOL */
    double f;
    const char *s;     /* STR (interned); LAMBDA: the lambda's source text */
    struct { MlcSchVal *items; int n; } list;
  };
};

/* Apply a primitive by name with keyword-bound arguments (args[i] is the
 * value of the i-th parameter in mlc_sch_prim_params, kind NONE when not
 * given).  Outputs (handles) are written to outs (at most 16).  This is the
 * one entry the script reader, the trace replayer and the typed functions
 * below go through, so every application is recorded the same way. */
bool mlc_sch_apply(MlcSchedule *s, MlcSchPrim prim, const MlcSchVal *args, MlcSchVal *outs, int *n_outs);

/* ---- typed entry points (thin wrappers of mlc_sch_apply) ---------------- */
bool mlc_sch_get_block(MlcSchedule *s, const char *name, MlcBlockRV *out);
bool mlc_sch_get_loops(MlcSchedule *s, MlcBlockRV b, MlcLoopRV *out, int cap, int *n);
/* factors: one per new loop; 0 means None (inferred, at most one) */
bool mlc_sch_split(MlcSchedule *s, MlcLoopRV loop, const int64_t *factors, int n, MlcLoopRV *out);

/* ---- traces and scripts --------------------------------------------------- */

/* The trace as schedule-script lines (one per instruction, "sch." prefix). */
void mlc_sch_print_trace(const MlcSchedule *s, MlcStrBuf *out);
/* Run a schedule script (the lines a trace prints, or a person writes:
 * `b0 = sch.get_block("Y")`, positional or keyword arguments, tuple
 * assignments, comments, and a leading `sch = tvm.tir.Schedule(...)` line
 * which is skipped).  Stops at the first error, located in the script. */
bool mlc_sch_run_script(MlcSchedule *s, const char *file, const char *text, size_t len);

/* The decisions of s's sampling instructions, in trace order (written to
 * out up to cap; kind NONE for one that has none); returns their count. */
int mlc_sch_decisions(const MlcSchedule *s, MlcSchVal *out, int cap);
/* the number of instructions in s's trace */
int mlc_sch_trace_len(const MlcSchedule *s);
/* Replay the trace of `from` onto `to` (a schedule of an equal function,
 * normally fresh, in the same context): every instruction again, handles
 * mapped; the k-th sampling instruction reuses decisions[k] when k < n and
 * its kind is not NONE, else draws anew from to's generator.  False with
 * the error of the refused instruction (to then holds the part replayed).
 * This is how a search makes candidates of a design space. */
bool mlc_sch_replay(MlcSchedule *to, const MlcSchedule *from, const MlcSchVal *decisions, int n);

/* the most outputs one primitive application has (the size of outs) */
#define MLC_SCH_MAX_OUTS 16

/* ---- tensor intrinsics (tensorize) ------------------------------------------
 * A tensor intrinsic is a pair of prim funcs with the same buffer params: the
 * description (what it computes, as loops and blocks) and the implementation
 * (what replaces a subtree that matches the description).  The registry is
 * process-wide, as in the field, and thread-safe; registering a name again
 * replaces it.  A few intrinsics are built in ("mma_4x4x4_f32",
 * "dot_4_f32"); a registered one of the same name is used instead. */
bool mlc_sch_register_intrin(MlcCtx *ctx, const char *name, const MlcPrimFunc *desc, const MlcPrimFunc *impl);
/* Registers every pair of prim funcs NAME_desc / NAME_impl in m as NAME
 * (what `mlcc schedule --intrin FILE.py` does); returns how many, -1 with an
 * error in ctx when a pair is malformed or a _desc has no _impl. */
int mlc_sch_register_intrins(MlcCtx *ctx, const MlcModule *m);

/* ---- default schedules ---------------------------------------------------------
 * Rules by block pattern (docs/schedule.md, "Default schedules") that make a
 * prim func fast without a hand-written schedule.  They go through
 * mlc_sch_apply like any script, so the result is an ordinary trace that
 * prints, replays and is checked like one. */

/* What the rules size their tiles for: the vector width in bits, the number
 * of vector registers, the threads the runtime will run, and a name for
 * messages ("avx2", "avx512", "sse"). */
typedef struct MlcSchTarget {
  int vector_bits;
  int vector_regs;
  int threads;
  const char *name;
  int gpu; /* 0: the CPU; else the GPU API (codegen.h, MlcGpuApi) the schedules are for */
  /* lanes of the byte dot-product instruction (vpdpbusd): 16 with
   * AVX512-VNNI, 8 with AVX-VNNI only, 0 without one */
  int dot_lanes;
} MlcSchTarget;

/* The CPU generated code will run on: $MLC_MARCH when set (the -march the
 * build driver compiles for; unknown names count as AVX2), else the host's
 * own (AVX-512F: 512 bits / 32 registers, AVX2: 256 / 16, else 128 / 16);
 * threads: the online CPUs, the runtime's default; dot_lanes from the
 * CPU's VNNI flags or the -march name's (names without one have none). */
void mlc_sch_target_host(MlcSchTarget *t);
/* The target of one -march name (as MLC_MARCH takes it; "native" is the
 * host's CPU); threads as above. */
void mlc_sch_target_march(MlcSchTarget *t, const char *march);

/* Apply the default rules to every block of the schedule's function.  A
 * rule one of whose primitives is refused is undone as a whole for that
 * block (the trace loses its instructions too) and the next one is tried,
 * so this only fails on a broken schedule (no function); the context holds
 * no error afterwards when it returns true. */
bool mlc_sch_apply_default(MlcSchedule *s, const MlcSchTarget *t);
/* The same rules as a design space for the tuner: the register tiles of
 * the contraction rules (rows, and column vectors) drawn by
 * sample_categorical among the sizes that divide their loops, the planned
 * size first, so that the decisions all 0 replay the default schedule. */
bool mlc_sch_default_space(MlcSchedule *s, const MlcSchTarget *t);

/* The data laid out by an index map as transform_layout takes it (the text
 * of a lambda, e.g. "lambda o, i, h, w: (o // 8, i, h, w, o % 8)"):
 * out[map(idx)] = in[idx].  This is what a caller passes for a param whose
 * layout a schedule changed (the function's "layout_rewrites" attribute
 * lists [param, map] pairs).  NULL + error when the map is no bijection of
 * in's shape. */
MlcTensorData *mlc_sch_layout_apply(MlcCtx *ctx, const char *index_map, const MlcTensorData *in);

/* m with mlc_sch_apply_default applied to each prim func for which want
 * says yes (want NULL: every one); graph functions are kept.  NULL + error
 * only when a schedule cannot be made. */
MlcModule *mlc_sch_default_module(MlcCtx *ctx, const MlcModule *m, const MlcSchTarget *t,
                                  bool (*want)(const MlcPrimFunc *f, void *user), void *user);

/* Default GPU schedules (default_gpu.c): every loop nest at the top of the
 * function in the first of these forms that applies and that accept takes
 * (called on the whole function so scheduled; the GPU lowering's check,
 * mlc_gpu_accepts in lower.h, is the one meant): a reduction over
 * [outer.., i, j] spatial loops tiled for threads and per-thread register
 * tiles with its inputs staged in shared memory, or without the stages; a
 * large reduction into few outputs as a cross-thread reduction; else the
 * leading spatial loops fused, split [None, threads] and bound to
 * blockIdx.x / threadIdx.x, the reduction loops left to each thread (the
 * only form when accept is NULL).  Nests already bound are kept.  False +
 * error naming the function when a nest is not a chain of loops down to
 * one block. */
typedef bool (*MlcSchAccept)(MlcCtx *ctx, const MlcPrimFunc *f, void *user);
bool mlc_sch_apply_default_gpu(MlcSchedule *s, int threads, MlcSchAccept accept, void *user);
/* The GPU design space of the tuner: the forms mlc_sch_apply_default_gpu
 * chooses, with the tiled ones' tile sizes drawn by sample_perfect_tile (i
 * and j in 3 parts: blocks, threads on threadIdx.y / threadIdx.x,
 * registers; the fused reduce loops in 2) and an unroll depth drawn by
 * sample_categorical, left as the block's "auto_unroll_max_step". */
bool mlc_sch_gpu_space(MlcSchedule *s, int threads, MlcSchAccept accept, void *user);
/* m with mlc_sch_apply_default_gpu applied to every prim func; NULL + error
 * when one cannot be scheduled */
MlcModule *mlc_sch_default_gpu_module(MlcCtx *ctx, const MlcModule *m, int threads, MlcSchAccept accept,
                                      void *user);

#endif
