/* cli.h - what the command-line tool's files share: exit statuses, error
 * reporting, input loading, and the commands themselves (one file each). */
#ifndef MLCC_TOOLS_CLI_H
#define MLCC_TOOLS_CLI_H

#include <stdbool.h>
#include <stdio.h>

#include "mlcc/support.h"
#include "mlcc/ir.h"
#include "mlcc/text.h"
#include "mlcc/codegen.h"
#include "mlcc/runtime.h"
#include "mlcc/transform.h"

/* 0 yes/success, 1 no (not canonical, modules differ), 2 error */
enum { EXIT_YES = 0, EXIT_NO = 1, EXIT_ERR = 2 };

/* No model text is anywhere near this; the bound keeps a stray multi-gigabyte
 * file from being read into memory whole. */
#define MLCC_MAX_INPUT ((size_t)64 << 20)

/* A usage mistake: say what is wrong, then how the tool is used. */
int cli_bad_usage(const char *what, const char *arg);
void cli_usage(FILE *out);
/* Print the context's error (with the source line and caret when known) on
 * stderr; always returns EXIT_ERR. */
int cli_report(const MlcCtx *ctx);
/* Read the module in `path` ("-" = stdin); NULL with the error in ctx.
 * *text_out, when given, receives the raw text (caller frees). */
MlcModule *cli_load_module(MlcCtx *ctx, const char *path, char **text_out, size_t *len_out);
/* Write the whole buffer to stdout; false (after a message) on failure. */
bool cli_write_stdout(const char *s, size_t n);
/* Write s to path as mlc_write_file does (a failure changes nothing that
 * was there); false after a message. */
bool cli_write_file(const char *path, const char *s, size_t n);
/* "mlcc: CMD: PATH: <the runtime's last error>", PATH left out when the
 * error already names it; returns EXIT_ERR */
int cli_rt_fail_path(const char *cmd, const char *path);
/* --fill: deterministic values, uniform in [-1, 1) for floats and [0, 8)
 * for ints; state is the generator's (nonzero) */
typedef enum { FILL_ZEROS, FILL_ONES, FILL_RANDOM } CliFill;
void cli_fill_tensor(DLTensor *t, CliFill fill, uint64_t *state);
/* the CPU's model name ("unknown CPU" when the system does not say) */
void cli_cpu_model(char *buf, size_t cap);

int cmd_fmt(int argc, char **argv);
int cmd_equal(int argc, char **argv);
int cmd_build(int argc, char **argv);
int cmd_run(int argc, char **argv);
/* `mlcc run DIR`: the compiled-model form of run (cmd_run dispatches) */
int cmd_run_model(int argc, char **argv);
/* `mlcc run DIR --profile`: run m on inputs until the numbers are stable
 * and print the time per kernel (unless quiet); with json_path also write
 * it as JSON (profile.c) */
int cli_profile_model(MlcrtModel *m, DLTensor *const *inputs, DLTensor **outputs, const char *json_path, bool quiet);
int cmd_report(int argc, char **argv);
int cmd_schedule(int argc, char **argv);
int cmd_import(int argc, char **argv);
int cmd_compile(int argc, char **argv);
/* the model-folder build of `mlcc build -o DIR` (graph pipeline, memory plan
 * report, DIR/model.*), for commands that get their module elsewhere */
typedef struct CliModelFlags {
  const char *dump_after; /* --dump-after PASS, or NULL */
  bool embed;             /* --embed-params */
  bool explain;           /* --explain */
  bool no_schedule;       /* --no-default-schedule */
  MlcGpuApi gpu;          /* --target opencl|cuda */
  const char *records[16];/* --records DB.jsonl, repeatable */
  int n_records;
} CliModelFlags;
int cli_build_model(MlcCtx *ctx, MlcModule *m, const char *out, const CliModelFlags *flags);
/* --records (cli_records.c): the files merged into one database (NULL +
 * error in ctx on a bad file), applied to a module's prim funcs, or to the
 * kernels the graph pipeline makes (the pipeline with the records applied
 * after dead code) */
typedef struct MlcTuneDB MlcTuneDB;
MlcTuneDB *cli_load_records(MlcCtx *ctx, const char *const *paths, int n);
MlcModule *cli_apply_records(MlcCtx *ctx, const MlcModule *m, const MlcTuneDB *db, MlcGpuApi gpu);
MlcModule *cli_pipeline_with_records(MlcCtx *ctx, const MlcModule *in, const MlcSchTarget *target,
                                     const MlcTuneDB *db, MlcGpuApi gpu, MlcPassDump dump, void *user,
                                     MlcMemPlanStats **stats, int *n_stats);
int cmd_tune(int argc, char **argv);
/* `mlcc tune-build`, `mlcc tune-measure` (cmd_tune_steps.c) */
int cmd_tune_build(int argc, char **argv);
int cmd_tune_measure(int argc, char **argv);
/* option values of the tuning commands: a duration (90, 90s, 20m, 1h,
 * 1.5h) and an integer in [lo, hi]; false when malformed */
bool cli_parse_duration(const char *s, double *out);
bool cli_parse_int(const char *s, long lo, long hi, long *out);
/* --explain: per kernel of the model built from input, its op, calls, FLOPs,
 * kind and where its schedule came from (explain.c), on stdout; then the
 * library choices and the conv weight layouts the tuning records decided
 * (with their times) */
typedef struct MlcTuneChoice MlcTuneChoice;
typedef struct MlcTuneLayoutChoice MlcTuneLayoutChoice;
typedef struct CliChoices {
  const MlcTuneChoice *library;
  int n_library;
  const MlcTuneLayoutChoice *layouts;
  int n_layouts;
} CliChoices;
void cli_explain(MlcCtx *ctx, const MlcModule *input, const MlcModule *built, const MlcrtCallSite *sites, int n,
                 const CliChoices *choices);

#endif
