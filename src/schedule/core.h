/* core.h - what the schedule core's own files (apply.c, trace.c,
 * script.c) share beyond state.h: the parameter lists of the primitive
 * table taken apart, looking a primitive up by the name a script uses, and
 * copying script values.  The primitive files never need these. */
#ifndef MLCC_SCHEDULE_CORE_H
#define MLCC_SCHEDULE_CORE_H

#include "schedule/state.h"

/* the most parameters any primitive of the table has */
#define SCH_MAX_PARAMS 8

typedef struct SchParam {
  const char *name; /* points into mlc_sch_prim_params; not NUL-terminated */
  int len;
  bool variadic;    /* written "*name": takes every positional argument */
} SchParam;

/* the parameters of prim in order; returns their count */
int sch_params(MlcSchPrim prim, SchParam out[SCH_MAX_PARAMS]);
/* index of the parameter called name (len bytes), -1 when there is none */
int sch_param_index(MlcSchPrim prim, const char *name, size_t len);
/* a primitive by the name a script calls it (aliases included) */
bool sch_prim_lookup(const char *name, MlcSchPrim *out);
/* a deep copy of v into the arena (lists are the only nested values) */
MlcSchVal sch_val_copy(MlcArena *a, MlcSchVal v);

#endif
