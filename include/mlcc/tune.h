/* tune.h - auto-tuning: design spaces of schedules, a search over them
 * guided by a learned cost model, measurement of candidates in a separate
 * process, and the tuning database that carries the results to builds.
 *
 * A task is one prim func (a workload), recognised by its structural hash
 * with the function's name and attributes left out.  A design space is a
 * schedule trace with sampling instructions, made by rules from the
 * function's blocks; a candidate is that trace replayed with some sampling
 * decisions, finished by postprocessors.  A record is one measured
 * candidate: the workload, the target it ran on, the candidate's schedule
 * script and its time.  Records are JSON lines, appended as they are
 * measured, so an interrupted run keeps them; files merge by reading
 * several. */
#ifndef MLCC_TUNE_H
#define MLCC_TUNE_H

#include "mlcc/codegen.h"
#include "mlcc/schedule.h"
#include "mlcc/transform.h"

#include <stdio.h>

/* ---- target ---------------------------------------------------------------------
 * What a record's time is valid for: the CPU model, the instruction-set
 * features the generated code uses (the -march it is compiled for: the
 * host's features, or $MLC_MARCH), and the threads it ran with.  A record
 * is applied only on an equal target. */
typedef struct MlcTuneTarget {
  char cpu[128];
  char features[256];
  int threads;
} MlcTuneTarget;

/* the host; threads <= 0: the runtime's default ($MLCRT_NUM_THREADS, else
 * the online CPUs), which is what a build's records are chosen for */
void mlc_tune_target_host(MlcTuneTarget *t, int threads);
bool mlc_tune_target_equal(const MlcTuneTarget *a, const MlcTuneTarget *b);
/* a GPU API's device (the runtime's, runtime.h "GPU services"): cpu is the
 * device's name ("no device" when the API does not load), features the
 * API ("opencl", "cuda"), threads 1.  Records of a CPU target never apply
 * to a GPU build, nor the other way round. */
void mlc_tune_target_gpu(MlcTuneTarget *t, MlcGpuApi api);
/* "opencl" / "cuda" (the names of --target and of an artifact's index) */
bool mlc_tune_gpu_from_name(const char *s, MlcGpuApi *out);


/* The workload key of f: its structural hash with the name and attributes
 * left out (a kernel fused in one model and written by hand in another is
 * the same task when the loop nests are equal, block names included, since
 * schedules name blocks). */
uint64_t mlc_tune_workload_hash(MlcCtx *ctx, const MlcPrimFunc *f);

/* ---- records and the database ------------------------------------------------------ */
typedef struct MlcTuneRecord {
  uint64_t workload;
  MlcTuneTarget target;
  const char *func;      /* the task's function name when tuned (for people) */
  const char *trace;     /* the candidate's schedule script (replays onto the workload) */
  int space;             /* which design space the candidate came from;
                            MLC_TUNE_DEFAULT_SPACE: the default rules' schedule */
  const char *decisions; /* its sampling decisions as JSON text (seeds later searches) */
  double seconds;        /* min time per call; < 0 when it failed */
  const char *error;     /* why it failed, NULL when it ran */
  double gflops;         /* measured, 0 when unknown */
  double elapsed_s;      /* seconds into the tuning run when measured */
  int weight;            /* calls of the task per model run (0: unknown) */
  const char *library;   /* a library call's time for the workload ("env.matmul"),
                            NULL for a generated kernel's record */
} MlcTuneRecord;

typedef struct MlcTuneDB MlcTuneDB;

MlcTuneDB *mlc_tune_db_new(void);
void mlc_tune_db_free(MlcTuneDB *db);
/* Read the JSON-lines file at path and add its records (several calls
 * merge files).  A missing file is an error unless missing_ok; a malformed
 * line is an error naming path:line. */
bool mlc_tune_db_load(MlcCtx *ctx, MlcTuneDB *db, const char *path, bool missing_ok);
/* the same for text in memory; name is what errors call it */
bool mlc_tune_db_read(MlcCtx *ctx, MlcTuneDB *db, const char *name, const char *text, size_t len);
/* add a copy of r */
void mlc_tune_db_add(MlcTuneDB *db, const MlcTuneRecord *r);
int mlc_tune_db_size(const MlcTuneDB *db);
const MlcTuneRecord *mlc_tune_db_at(const MlcTuneDB *db, int i);
/* how many records of db are for a target other than t (a build says so
 * when it ignores them) */
int mlc_tune_db_count_other(const MlcTuneDB *db, const MlcTuneTarget *t);
/* the fastest successful record of the workload's generated kernel on the
 * target, NULL when none */
const MlcTuneRecord *mlc_tune_db_best(const MlcTuneDB *db, uint64_t workload, const MlcTuneTarget *t);
/* the same for the library call that computes the workload */
const MlcTuneRecord *mlc_tune_db_best_library(const MlcTuneDB *db, uint64_t workload, const MlcTuneTarget *t);
/* the record's JSON line (no newline) */
void mlc_tune_record_json(const MlcTuneRecord *r, MlcStrBuf *out);
/* append r as one line to path (created when absent), flushed to disk */
bool mlc_tune_record_append(MlcCtx *ctx, const char *path, const MlcTuneRecord *r);
/* write every record of db to path (replacing it) */
bool mlc_tune_db_save(MlcCtx *ctx, const MlcTuneDB *db, const char *path);

/* ---- applying records ---------------------------------------------------------------
 * m with each prim func for which db has a record on target scheduled by
 * replaying the best record's script; such a function gets the attribute
 * tuned = "SECONDS s" (and keeps it through the graph pipeline, whose
 * default schedules then leave it alone).  A record whose script no longer
 * applies is skipped with a warning on stderr-free terms: *n_failed counts
 * them and the function falls back to the default schedules.  n_applied /
 * n_failed may be NULL. */
MlcModule *mlc_tune_apply(MlcCtx *ctx, const MlcModule *m, const MlcTuneDB *db, const MlcTuneTarget *target,
                          int *n_applied, int *n_failed);

/* The graph pipeline of a build with records, in the order
 * mlc_graph_pipeline has: the passes up to dead code (legalized and fused
 * kernels), the records applied to those kernels (mlc_tune_apply on tt),
 * then default schedules sized for target (NULL: none) for every kernel
 * without a record except those m came with, explicit allocation and
 * memory planning.  dump, user, stats and n_stats as for
 * mlc_graph_pipeline; n_applied / n_failed as for mlc_tune_apply (left
 * alone when the records were not reached). */
MlcModule *mlc_tune_pipeline(MlcCtx *ctx, const MlcModule *m, const MlcSchTarget *target, const MlcTuneDB *db,
                             const MlcTuneTarget *tt, MlcPassDump dump, void *user, MlcMemPlanStats **stats,
                             int *n_stats, int *n_applied, int *n_failed);

/* ---- library call or generated kernel ---------------------------------------------
 * Each float32 matmul that dispatch_library would hand to the library
 * (env.matmul, BLAS) is a choice that measurements make: the matmul
 * legalized alone (its generated kernel, a task tuned like any other) and
 * the library call on the same shapes, measured once per target (a record
 * with "library").  A build with records keeps the generated kernel where
 * its best record beats the library's, and calls the library otherwise
 * (or when either is unmeasured). */
typedef struct MlcTuneChoice {
  const char *shape;      /* "128x256 @ 256x512" (interned) */
  uint64_t workload;      /* the generated kernel's */
  int calls;              /* calls of that shape per run */
  double library_s;       /* best times on the target, < 0: not measured */
  double generated_s;
  bool generated;         /* the choice */
} MlcTuneChoice;

/* The choices of m's graph functions (after the passes before
 * dispatch_library) with db on target t (db NULL: none measured);
 * returns how many, at most cap, -1 + error when the passes fail. */
int mlc_tune_library_choices(MlcCtx *ctx, const MlcModule *m, const MlcTuneDB *db, const MlcTuneTarget *t,
                             MlcTuneChoice *out, int cap);
/* The module a tuning run takes its tasks from: m's graph pipeline up to
 * dead code (m itself when it has no graph function), its library choices
 * made by db on t as a build makes them (so a rerun tunes the kernels a
 * choice for generated code fused), plus for each choice the matmul alone
 * as a prim func with the attributes library = "env.matmul", calls = how
 * many calls it stands for, and shape; and for each conv kernel its other
 * weight layouts (mlc_tune_layout_choices) as prim funcs named
 * KERNEL_OIHW8o ..., with the attributes calls and weight_layout. */
MlcModule *mlc_tune_tasks_module(MlcCtx *ctx, const MlcModule *m, const MlcTuneDB *db, const MlcTuneTarget *t);

/* ---- conv weight layouts -------------------------------------------------------------
 * Each conv kernel of a model (a prim func after fusion whose 4-D float32
 * weight every call passes as a constant) is a choice of weight layout
 * that measurements make: the kernel as it is (OIHW) and the kernel with
 * its weight blocked by 8 and by 16 output channels (OIHW8o, OIHW16o:
 * O/v I H W v) where the block divides the channels, each a prim func of
 * its own (the weight param transformed), so each is a task tuned like any
 * other.  A build with records gives the call the layout whose kernel has
 * the fastest record on its target, the weight laid out at compile time;
 * with none measured the default schedules take the kernel as before. */
#define MLC_TUNE_MAX_LAYOUTS 3
typedef struct MlcTuneLayoutChoice {
  const char *kernel;                          /* the conv's kernel (interned) */
  const char *shape;                           /* its weight's, "16x8x3x3" */
  int calls;                                   /* calls of the kernel per run */
  int n;                                       /* layouts considered */
  const char *layout[MLC_TUNE_MAX_LAYOUTS];    /* "OIHW", "OIHW8o", "OIHW16o" */
  uint64_t workload[MLC_TUNE_MAX_LAYOUTS];     /* the kernel with the weight so laid out */
  double seconds[MLC_TUNE_MAX_LAYOUTS];        /* best time on the target, < 0: not measured */
  int chosen;                                  /* the layout taken, -1: none measured */
} MlcTuneLayoutChoice;

/* The conv layout choices of m's graph functions (after the passes up to
 * dead code, the library choices made by db) with db on target t (db NULL:
 * none measured); returns how many, at most cap, -1 + error when the
 * passes fail.  None for a GPU target. */
int mlc_tune_layout_choices(MlcCtx *ctx, const MlcModule *m, const MlcTuneDB *db, const MlcTuneTarget *t,
                            MlcTuneLayoutChoice *out, int cap);

/* ---- design spaces ------------------------------------------------------------------
 * The rules, block by block: injective producers inlined; every reduction
 * whose loops are a perfect nest tiled SSRSRS (sample_perfect_tile for each
 * spatial loop into 4 and each reduce loop into 2); its epilogue placed at
 * the outer or middle tile level or left at the root (one space each);
 * the outer tile loops fused and parallel; the unroll depth sampled
 * (sample_categorical over 0, 16, 64) and left as the block annotation
 * "auto_unroll_max_step" for the postprocessors; producers that cannot be
 * inlined at a sampled compute location; and, for reductions with more
 * reduce than spatial iterations, a space where they are rfactored
 * instead of tiled; last, the default rules with their register tiles
 * drawn (mlc_sch_default_space), when some rule drew one.  Returns the number of
 * spaces made (schedules in out, each owned by the caller), 0 + error when
 * the function cannot be scheduled. */
#define MLC_TUNE_MAX_SPACES 5
/* the "space" of the candidate that is the default rules' schedule of the
 * task (no sampling decisions): measured first in every task, so a tuned
 * kernel is never one the search found slower than the untuned build's */
#define MLC_TUNE_DEFAULT_SPACE (-1)
int mlc_tune_spaces(MlcCtx *ctx, const MlcModule *m, const char *func, const MlcSchTarget *t,
                    MlcSchedule **out, int cap);

/* Finish a replayed candidate: reductions decomposed at their first reduce
 * loop, innermost spatial loops of 2..64 iterations over the written
 * buffer's last index vectorized, loops unrolled up to the block's
 * "auto_unroll_max_step".  False + error when a step is refused. */
bool mlc_tune_postprocess(MlcSchedule *s, const MlcSchTarget *t);
/* The last postprocessor: the C generator takes the function (lowering
 * refuses, say, a vector loop it cannot vectorize).  False + error. */
bool mlc_tune_verify(MlcSchedule *s);

/* ---- features and the cost model ------------------------------------------------------ */
#define MLC_TUNE_N_FEATURES 48
/* features of f (scheduled): per buffer store, loop extents by kind,
 * vector width, arithmetic intensity, bytes touched */
void mlc_tune_features(const MlcPrimFunc *f, float out[MLC_TUNE_N_FEATURES]);

typedef struct MlcTuneModel MlcTuneModel;
MlcTuneModel *mlc_tune_model_new(uint64_t seed);
void mlc_tune_model_free(MlcTuneModel *m);
/* train on exactly these n samples (features, score: higher is better),
 * replacing what it learnt before (scores change as the best time does) */
bool mlc_tune_model_fit(MlcCtx *ctx, MlcTuneModel *m, const float *x, const float *y, int n);
/* predicted scores (all 0 before the first update) */
bool mlc_tune_model_predict(MlcCtx *ctx, MlcTuneModel *m, const float *x, int n, float *out);
/* the model's name for messages ("xgboost") */
const char *mlc_tune_model_name(void);

/* ---- measuring ------------------------------------------------------------------------
 * Candidates (prim funcs of equal signature) compiled into a few shared
 * objects (one compiler per CPU, in parallel) and timed in a child process: warm-up and number of calls until a
 * repeat takes min_repeat_ms, the minimum over repeats.  A candidate that
 * crashes, hangs past timeout_s or fails costs its own result only. */
typedef struct MlcTuneMeasureOptions {
  int repeat;              /* timed repeats (default 3) */
  double min_repeat_ms;    /* default 5 */
  double timeout_s;        /* per candidate, default 10 */
  int threads;             /* runtime threads in the child, 0: runtime default */
  int build_jobs;          /* compilers run at once (the batch split in as many
                              shared objects), 0: the online CPUs */
  const MlcBuildOptions *build;
  const char *workdir;     /* where the shared objects go */
  volatile int *stop;      /* when set (a signal handler), no further candidate is started */
  double slow_s;           /* a candidate whose first call takes longer is timed by that
                              call alone (the tuner: 4x the task's best), 0: never */
  bool flush_cache;        /* each timed run is one call after the caches were flushed
                              (a buffer of twice the last-level cache written over),
                              at least 10 runs, the minimum kept */
} MlcTuneMeasureOptions;

typedef struct MlcTuneResult {
  double seconds;          /* < 0 when it failed */
  char error[160];
} MlcTuneResult;

bool mlc_tune_measure(MlcCtx *ctx, const MlcPrimFunc *const *cands, int n, const MlcTuneMeasureOptions *o,
                      MlcTuneResult *out);
/* The library call lib (an extern of the runtime) timed in a child process
 * on random inputs shaped as f's buffer params (inputs then output, as
 * call_dps_packed passes them); out as for mlc_tune_measure. */
bool mlc_tune_measure_library(MlcCtx *ctx, const char *lib, const MlcPrimFunc *f, const MlcTuneMeasureOptions *o,
                              MlcTuneResult *out);
/* Run candidate `cand` compiled (in a child process) and `ref` in the
 * reference interpreter on the same random inputs; true when every output
 * agrees (rtol/atol 1e-3 for floats, exact for ints), else false + error. */
bool mlc_tune_check(MlcCtx *ctx, const MlcPrimFunc *ref, const MlcPrimFunc *cand, const MlcTuneMeasureOptions *o);

/* ---- measuring elsewhere ---------------------------------------------------------------
 * The build and measure steps as commands over files, so that another
 * machine (a cluster node reached through srun, ssh ...) measures.  A
 * candidates file holds JSON lines, one candidate each: a module holding
 * the task's unscheduled function as TVMScript ("program"), the candidate's
 * schedule script ("trace") and what its record keeps (workload, func,
 * space, decisions, flops, weight).  An artifact is a directory: the
 * candidates replayed and compiled into shared objects (kernels_K.so) and
 * an index (index.jsonl) saying which object holds each, the features the
 * code was compiled for, and why a candidate did not build.  Measuring an
 * artifact writes one tuning record per candidate, in order, with the
 * target it was measured on: the measuring machine's CPU, the artifact's
 * features and the threads; the records merge into any database. */
typedef struct MlcTuneCandidate {
  const char *program;   /* a module holding the task's unscheduled function (TVMScript) */
  const char *func;      /* the function's name in it */
  const char *trace;     /* the candidate's schedule script */
  uint64_t workload;
  int space;
  const char *decisions; /* JSON text */
  double flops;          /* of one call, 0 when unknown */
  int weight;
  const char *library;   /* not a schedule but this library call (trace ""), timed on
                            the shapes of func's buffer params: a library choice's side */
} MlcTuneCandidate;

bool mlc_tune_candidates_save(MlcCtx *ctx, const char *path, const MlcTuneCandidate *c, int n);
/* Build the candidates of the file into the directory artifact (made when
 * absent; compilers in parallel as mlc_tune_measure runs them).  A
 * candidate whose script does not replay or whose code does not compile
 * stays in the index with the reason.  False + error (file:line) on a bad
 * candidates file or when nothing can be written. */
bool mlc_tune_build_artifact(MlcCtx *ctx, const char *candidates_path, const char *artifact,
                             const MlcTuneMeasureOptions *o);
/* Time every candidate of artifact as mlc_tune_measure does and write its
 * record to results_path (replacing it), a failed one with the reason; the
 * target's threads: o->threads (0: the runtime default). */
bool mlc_tune_measure_artifact(MlcCtx *ctx, const char *artifact, const char *results_path,
                               const MlcTuneMeasureOptions *o);

/* A launcher is a shell command prefix (`srun -N1 -n1`, `ssh node`, a
 * script) that the command `MLCC tune-measure ARTIFACT -o RESULTS ...` is
 * appended to, run by /bin/sh; it must see the workdir's files (a shared
 * file system) and run MLCC there. */
typedef struct MlcTuneLauncher {
  const char *prefix;
  const char *mlcc;      /* the mlcc executable, as the launched side finds it */
  double timeout_s;      /* the longest one launch may take (queueing included), 0: 600 s
                            plus the candidates' time-outs */
} MlcTuneLauncher;

/* The CPU the launched side measures on (`MLCC tune-measure --print-target`
 * through the launcher), or its device of the GPU API o->build names
 * (`--print-target --target opencl|cuda`): out is t with its cpu replaced. */
bool mlc_tune_launcher_target(MlcCtx *ctx, const MlcTuneLauncher *l, const MlcTuneTarget *t,
                              const MlcTuneMeasureOptions *o, MlcTuneTarget *out);
/* Measure the candidates through the launcher: a candidates file in
 * o->workdir, built into an artifact here, measured by `tune-measure`
 * there, and the records it writes read back.  out as for
 * mlc_tune_measure; on[i] (may be NULL) gets the target candidate i was
 * measured on.  The files are removed afterwards. */
bool mlc_tune_measure_launched(MlcCtx *ctx, const MlcTuneLauncher *l, const MlcTuneCandidate *c, int n,
                               const MlcTuneMeasureOptions *o, MlcTuneResult *out, MlcTuneTarget *on);

/* ---- tuning ------------------------------------------------------------------------------ */
typedef struct MlcTuneOptions {
  int trials;              /* measured candidates in all (default 64) */
  double time_budget_s;    /* stop after this long, 0: no limit */
  int batch;               /* candidates per round (default 8) */
  uint64_t seed;
  double epsilon;          /* share of a batch drawn at random (default 0.2) */
  MlcTuneMeasureOptions measure;
  const char *db_path;     /* records are appended here as they are measured */
  /* one line per round on this stream, NULL for none */
  FILE *progress;
  /* set (by a signal handler) to stop after the candidate being measured */
  volatile int *stop;
  /* measure through this launcher (files in measure.workdir), NULL: in a
   * child process here */
  const MlcTuneLauncher *launcher;
} MlcTuneOptions;

/* Tune every distinct prim func of m (tasks weighted by their calls in the
 * graph functions; with no graph function each prim func once).  db holds
 * what earlier runs measured: its records seed the search and are never
 * measured again.  Every task gets a round in turn, then rounds go to the
 * task with the best expected gain on the model's latency. */
bool mlc_tune_module(MlcCtx *ctx, const MlcModule *m, MlcTuneDB *db, const MlcSchTarget *st,
                     const MlcTuneTarget *tt, const MlcTuneOptions *o);

#endif
