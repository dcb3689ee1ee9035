/* search_internal.h - a task and its candidates, shared by the
 * evolutionary search (search.c) and the driver that runs tasks
 * (tune.c). */
#ifndef MLCC_TUNE_SEARCH_INTERNAL_H
#define MLCC_TUNE_SEARCH_INTERNAL_H

#include "tune/tune_internal.h"

typedef struct Cand {
  int space;
  MlcSchedule *s;           /* replayed and postprocessed */
  const char *key;          /* space and decisions: equal keys, equal programs (interned) */
  const char *decisions;    /* JSON text (interned) */
  float feat[MLC_TUNE_N_FEATURES];
  float score;
} Cand;

typedef MLC_VEC(Cand) CandVec;

/* A task lives in the run's context (home); each round works in a scratch
 * context of its own (ctx, mod, spaces), made from the function's text and
 * dropped whole after the round, so memory does not grow with the trials.
 * Keys of measured candidates are interned in home. */
typedef struct Task {
  MlcCtx *home;
  char *text;               /* the function alone as TVMScript (malloc'd) */
  size_t text_len;
  MlcCtx *ctx;              /* the round's: ctx, mod and spaces */
  const MlcModule *mod;     /* holds the function */
  const char *func;
  const MlcPrimFunc *prim;  /* as given: the oracle of the check */
  uint64_t workload;
  int weight;               /* calls per model run */
  double flops;
  MlcSchedule *spaces[MLC_TUNE_MAX_SPACES];
  int n_spaces;
  MlcMap seen;              /* keys measured (this run or before), interned in home */
  double best;              /* seconds, < 0 none yet */
  int trials;
  bool exhausted;           /* no new candidate found */
  MlcTuneModel *model;
  MLC_VEC(float) x;         /* features of every measured candidate */
  MLC_VEC(double) secs;     /* and its time (< 0: failed) */
  uint64_t rng;
  double t0;                /* when the run started (CLOCK_MONOTONIC seconds) */
  int group;                /* tasks of one call (a conv's weight layouts): the first one's index */
  double other_s;           /* the call's other side, when a library call (its time), else < 0 */
  int rounds;               /* rounds run */
  double gain;              /* relative improvement of the best by its last round */
  int stalls;               /* rounds in a row that did not improve it */
} Task;

/* The next batch of up to n unmeasured candidates of t (fewer when the
 * search finds no more), best predicted first with an epsilon share drawn
 * at random; seeds: the best records of db. */
int tune_search_batch(Task *t, const MlcTuneDB *db, const MlcTuneTarget *tt, const MlcSchTarget *st, double epsilon,
                      Cand *out, int n);
/* Start a round: a scratch context holding the function read back from
 * its text and the design spaces over it; false + error in home. */
bool tune_round_begin(Task *t, const MlcSchTarget *st);
void tune_round_end(Task *t);
/* a candidate from space `space` with the given decisions (NULL: drawn) */
bool tune_make_cand(Task *t, const MlcSchTarget *st, int space, const MlcSchVal *dec, int n_dec, Cand *out);
void tune_cand_free(Cand *c);
/* decisions as JSON text and back (values in the context's arena) */
const char *tune_decisions_json(MlcCtx *ctx, const MlcSchVal *d, int n);
int tune_decisions_parse(MlcCtx *ctx, const char *json, MlcSchVal *out, int cap);

#endif
