/* svg.c - the charts of `mlcc report`, written as inline SVG: horizontal
 * bars (time per kernel, share per op) and step lines (best latency so far
 * against trials or seconds of tuning).
 *
 * Plain SVG 1.1 with no scripts and no external references, so the page is
 * one self-contained file that any browser shows and any XML parser reads;
 * every piece of text from the input is escaped. */
#include <math.h>
#include <string.h>

#include "report.h"

#define BAR_H 18
#define BAR_GAP 4
#define LABEL_W 300
#define CHART_W 900
#define PALETTE_N 8
static const char *const palette[PALETTE_N] = {"#4e79a7", "#f28e2b", "#e15759", "#76b7b2",
                                               "#59a14f", "#edc948", "#b07aa1", "#9c755f"};

void rep_escape(MlcStrBuf *sb, const char *s) {
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
    switch (*p) {
    case '<': mlc_sb_puts(sb, "&lt;"); break;
    case '>': mlc_sb_puts(sb, "&gt;"); break;
    case '&': mlc_sb_puts(sb, "&amp;"); break;
    case '"': mlc_sb_puts(sb, "&quot;"); break;
    case '\'': mlc_sb_puts(sb, "&#39;"); break;
    default:
      /* control characters are not allowed in XML 1.0 text */
      if (*p < 0x20 && *p != '\t' && *p != '\n') mlc_sb_putc(sb, '?');
      else mlc_sb_putc(sb, (char)*p);
    }
  }
}

void rep_hbars(MlcStrBuf *sb, const char *title, const RepBar *bars, int n, const char *unit) {
  double max = 0;
  for (int i = 0; i < n; i++)
    if (bars[i].value > max) max = bars[i].value;
  int h = 30 + n * (BAR_H + BAR_GAP) + 10, plot_w = CHART_W - LABEL_W - 280;
  mlc_sb_printf(sb, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" role=\"img\">\n", CHART_W, h);
  mlc_sb_puts(sb, "<text x=\"0\" y=\"18\" class=\"title\">");
  rep_escape(sb, title);
  mlc_sb_puts(sb, "</text>\n");
  for (int i = 0; i < n; i++) {
    int y = 30 + i * (BAR_H + BAR_GAP);
    double w = max > 0 ? bars[i].value / max * plot_w : 0;
    mlc_sb_printf(sb, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">", LABEL_W - 8, y + BAR_H - 5);
    rep_escape(sb, bars[i].label);
    mlc_sb_printf(sb, "</text><rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\"><title>", LABEL_W, y,
                  w > 0.5 ? w : 0.5, BAR_H, palette[bars[i].color % PALETTE_N]);
    rep_escape(sb, bars[i].label);
    mlc_sb_printf(sb, ": %.4g %s</title></rect>", bars[i].value, unit);
    mlc_sb_printf(sb, "<text x=\"%.1f\" y=\"%d\">%.3g %s", LABEL_W + w + 6, y + BAR_H - 5, bars[i].value, unit);
    if (bars[i].note[0]) {
      mlc_sb_puts(sb, " (");
      rep_escape(sb, bars[i].note);
      mlc_sb_puts(sb, ")");
    }
    mlc_sb_puts(sb, "</text>\n");
  }
  mlc_sb_puts(sb, "</svg>\n");
}

/* a round step for an axis over [0, max] with about 5 ticks */
static double tick_step(double max) {
  if (!(max > 0)) return 1;
  double raw = max / 5, mag = pow(10, floor(log10(raw))), f = raw / mag;
  return (f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10) * mag;
}

void rep_lines(MlcStrBuf *sb, const char *title, const RepSeries *series, int n, const char *xlabel,
               const char *ylabel) {
  enum { W = CHART_W, H = 320, L = 70, R = 200, T = 30, B = 40 };
  double xmax = 0, ymax = 0;
  for (int s = 0; s < n; s++)
    for (int i = 0; i < series[s].n; i++) {
      if (series[s].x[i] > xmax) xmax = series[s].x[i];
      if (series[s].y[i] > ymax) ymax = series[s].y[i];
    }
  double xs = tick_step(xmax), ys = tick_step(ymax);
  xmax = ceil(xmax / xs) * xs;
  ymax = ceil(ymax / ys) * ys;
  if (xmax <= 0) xmax = 1;
  if (ymax <= 0) ymax = 1;
  double pw = W - L - R, ph = H - T - B;
  mlc_sb_printf(sb, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" role=\"img\">\n", W, H);
  mlc_sb_puts(sb, "<text x=\"0\" y=\"18\" class=\"title\">");
  rep_escape(sb, title);
  mlc_sb_puts(sb, "</text>\n");
  mlc_sb_printf(sb, "<rect x=\"%d\" y=\"%d\" width=\"%.0f\" height=\"%.0f\" fill=\"none\" stroke=\"#999\"/>\n", L, T, pw,
                ph);
  for (double v = 0; v <= xmax + xs / 2; v += xs)
    mlc_sb_printf(sb, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%g</text>\n", L + v / xmax * pw, H - B + 16, v);
  for (double v = 0; v <= ymax + ys / 2; v += ys)
    mlc_sb_printf(sb, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%g</text>\n", L - 6, T + ph - v / ymax * ph + 4, v);
  mlc_sb_printf(sb, "<text x=\"%.0f\" y=\"%d\" text-anchor=\"middle\">", L + pw / 2, H - 4);
  rep_escape(sb, xlabel);
  mlc_sb_printf(sb, "</text>\n<text x=\"12\" y=\"%.0f\" transform=\"rotate(-90 12 %.0f)\" text-anchor=\"middle\">",
                T + ph / 2, T + ph / 2);
  rep_escape(sb, ylabel);
  mlc_sb_puts(sb, "</text>\n");
  for (int s = 0; s < n; s++) {
    const RepSeries *r = &series[s];
    if (r->n == 0) continue;
    /* best-so-far is a step function: hold each value until the next point */
    mlc_sb_printf(sb, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"%d\" points=\"", palette[s % PALETTE_N],
                  r->bold ? 3 : 1);
    for (int i = 0; i < r->n; i++) {
      double x = L + r->x[i] / xmax * pw, y = T + ph - r->y[i] / ymax * ph;
      if (i) mlc_sb_printf(sb, "%.1f,%.1f ", x, T + ph - r->y[i - 1] / ymax * ph);
      mlc_sb_printf(sb, "%.1f,%.1f ", x, y);
    }
    mlc_sb_puts(sb, "\"/>\n");
    mlc_sb_printf(sb, "<text x=\"%d\" y=\"%d\" fill=\"%s\">", W - R + 10, T + 14 + 16 * s, palette[s % PALETTE_N]);
    rep_escape(sb, r->name);
    mlc_sb_puts(sb, "</text>\n");
  }
  mlc_sb_puts(sb, "</svg>\n");
}
