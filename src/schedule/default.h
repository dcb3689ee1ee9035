/* default.h - the default schedule rules kept in files of their own, for
 * default_rules.c's dispatch.  Each takes the block by name, applies its
 * rule as one transaction and says whether it did (false: the schedule is
 * as it was, and the next rule may try). */
#ifndef MLC_SCHEDULE_DEFAULT_H
#define MLC_SCHEDULE_DEFAULT_H

#include "mlcc/schedule.h"

/* default_window.c: pooling (max, min, sum over a window of an NCHW plane) */
bool mlc_sch_default_pooling(MlcSchedule *s, const MlcSchTarget *t, const char *block);
/* default_window.c: depthwise and grouped convolutions (both operands follow the channel) */
bool mlc_sch_default_depthwise(MlcSchedule *s, const MlcSchTarget *t, const char *block);

/* default_dot.c: an int8 matmul on the byte dot-product instruction (VNNI),
 * or on pairs widened to int16 (vpmaddwd) with AVX2 / AVX-512 */
bool mlc_sch_default_dot(MlcSchedule *s, const MlcSchTarget *t, const char *block);

/* default_window.c: the complete block that writes buf (a padding copy, a
 * tile's write-back), and the one complete block that reads it (an
 * epilogue); NULL when there is none */
const char *mlc_sch_default_producer(MlcSchedule *s, const MlcBuffer *buf);
const char *mlc_sch_default_epilogue(MlcSchedule *s, const MlcBuffer *buf);

/* default_convt.c: transposed convolutions by output phases */
bool mlc_sch_default_convt(MlcSchedule *s, const MlcSchTarget *t, const char *block);

/* default_rules.c: whether e (NULL: no) mentions var */
bool mlc_sch_default_uses(const MlcExpr *e, const MlcExpr *var);
/* default_rules.c: the realize of the block named block and the loops above
 * it, outermost first (at most max, *n of them); NULL, the error cleared,
 * when there is no such block */
const MlcStmt *mlc_sch_default_block_loops(MlcSchedule *s, const char *block, const MlcStmt **loops, int max, int *n);
/* default_rules.c: the reduction block named block alone in a perfect nest:
 * serial loops of constant extents, one per iter (none opaque), spatial ones
 * first, its body one store, with an init.  ext[i] and iter[i] get loop i's
 * extent and the iter var it binds (at most max loops, and at most
 * MLC_SCH_DEFAULT_MAX_NEST); *n the loops, *n_spatial the spatial ones.
 * Returns the block's realize, NULL when the block is not so. */
#define MLC_SCH_DEFAULT_MAX_NEST 16
const MlcStmt *mlc_sch_default_reduce_nest(MlcSchedule *s, const char *block, int max, int64_t *ext,
                                           const MlcExpr **iter, int *n, int *n_spatial);
/* default_rules.c: whether buf is a param the function may lay out anew
 * (listed in "layout_free_buffers": a constant weight) */
bool mlc_sch_default_layout_free(MlcSchedule *s, const MlcBuffer *buf);

#endif
