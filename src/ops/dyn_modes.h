/* dyn_modes.h - the modes of tensor_to_shape (src/ops/dynshape.c says what
 * each means), in one table: the op checks its mode attribute against the
 * names, and the executor (src/codegen/c_graph.c) switches on the numbers,
 * which it also writes into the generated C as MLC_DYN_<NAME>, so the
 * compiler and the code it generates agree on them.  The order is the
 * numbering: a new mode goes at the end, and reduce_keep .. unsqueeze stay
 * together (the executor takes them as one range). */
#ifndef MLCC_OPS_DYN_MODES_H
#define MLCC_OPS_DYN_MODES_H

#include <string.h>

#define MLC_DYN_MODES(X)                                   \
  X(VALUES, "values")                                      \
  X(RESHAPE, "reshape")                                    \
  X(RESHAPE_ALLOWZERO, "reshape_allowzero")                \
  X(EXPAND, "expand")                                      \
  X(REDUCE_KEEP, "reduce_keep")                            \
  X(REDUCE_DROP, "reduce_drop")                            \
  X(SQUEEZE, "squeeze")                                    \
  X(UNSQUEEZE, "unsqueeze")                                \
  X(RANGE, "range")                                        \
  X(TILE, "tile")                                          \
  X(AT_MOST, "at_most")                                    \
  X(SPLIT, "split")                                        \
  X(SLICE, "slice")                                        \
  X(PAD, "pad")                                            \
  X(PAD_COPY, "pad_copy")                                  \
  X(RESIZE, "resize")

typedef enum MlcDynMode {
#define X(id, name) MLC_DYN_##id,
  MLC_DYN_MODES(X)
#undef X
  MLC_DYN_N_MODES
} MlcDynMode;

/* the mode named s, or -1 */
static inline int mlc_dyn_mode(const char *s) {
  static const char *const names[] = {
#define X(id, name) name,
      MLC_DYN_MODES(X)
#undef X
  };
  for (int i = 0; i < MLC_DYN_N_MODES; i++)
    if (!strcmp(s, names[i])) return i;
  return -1;
}

static inline const char *mlc_dyn_mode_name(MlcDynMode m) {
  static const char *const names[] = {
#define X(id, name) name,
      MLC_DYN_MODES(X)
#undef X
  };
  return m >= 0 && m < MLC_DYN_N_MODES ? names[m] : "?";
}

#endif
