/* report.h - the pieces of `mlcc report` (cmd_report.c): SVG charts (svg.c)
 * written into one HTML page. */
#ifndef MLCC_TOOLS_REPORT_H
#define MLCC_TOOLS_REPORT_H

#include "cli.h"

typedef struct RepBar {
  char label[96];
  char note[48];   /* after the value, e.g. "41.2%" */
  double value;
  int color;
} RepBar;

typedef struct RepSeries {
  const char *name;
  double *x, *y;
  int n;
  bool bold;       /* the whole model's line */
} RepSeries;

/* s with the five XML specials escaped and control characters replaced */
void rep_escape(MlcStrBuf *sb, const char *s);
/* a bar per entry, longest = largest value, labelled on the left */
void rep_hbars(MlcStrBuf *sb, const char *title, const RepBar *bars, int n, const char *unit);
/* step lines through (x[i], y[i]) of each series, axes from 0 */
void rep_lines(MlcStrBuf *sb, const char *title, const RepSeries *series, int n, const char *xlabel,
               const char *ylabel);

#endif
