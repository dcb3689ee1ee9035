/* glyphs.h - the digits example's data: handwriting-like 16x16 images of the
 * digits 0-9, rendered from a 5x7 bitmap font at a random offset, slant and
 * stroke strength, with noise.  train.c draws its training images here and
 * make_batch.c its test batch, from different seeds, so the model is checked
 * on images it never saw.
 *
 * Header-only (static inline functions): each program of the example is one file
 * plus this, compiled against the runtime library alone.  The generator is
 * a 64-bit LCG so a run is the same on every machine. */
#ifndef DIGITS_GLYPHS_H
#define DIGITS_GLYPHS_H

#include <math.h>
#include <stdint.h>

#define GLYPH_SIDE 16
#define GLYPH_PIXELS (GLYPH_SIDE * GLYPH_SIDE)
#define GLYPH_CLASSES 10

/* rows top to bottom, bit 4 the leftmost of 5 columns */
static const uint8_t glyph_font[GLYPH_CLASSES][7] = {
    {0x0E, 0x11, 0x13, 0x15, 0x19, 0x11, 0x0E}, /* 0 */
    {0x04, 0x0C, 0x04, 0x04, 0x04, 0x04, 0x0E}, /* 1 */
    {0x0E, 0x11, 0x01, 0x02, 0x04, 0x08, 0x1F}, /* 2 */
    {0x1F, 0x02, 0x04, 0x02, 0x01, 0x11, 0x0E}, /* 3 */
    {0x02, 0x06, 0x0A, 0x12, 0x1F, 0x02, 0x02}, /* 4 */
    {0x1F, 0x10, 0x1E, 0x01, 0x01, 0x11, 0x0E}, /* 5 */
    {0x06, 0x08, 0x10, 0x1E, 0x11, 0x11, 0x0E}, /* 6 */
    {0x1F, 0x01, 0x02, 0x04, 0x08, 0x08, 0x08}, /* 7 */
    {0x0E, 0x11, 0x11, 0x0E, 0x11, 0x11, 0x0E}, /* 8 */
    {0x0E, 0x11, 0x11, 0x0F, 0x01, 0x02, 0x0C}, /* 9 */
};

typedef struct GlyphRng {
  uint64_t state;
} GlyphRng;

/* uniform in [0, 1) */
static inline double glyph_uniform(GlyphRng *r) {
  r->state = r->state * 6364136223846793005ull + 1442695040888963407ull;
  return (double)(r->state >> 11) / 9007199254740992.0;
}

static inline int glyph_int(GlyphRng *r, int n) { return (int)(glyph_uniform(r) * n); }

/* is font cell (row, col) of digit d inked; outside the 5x7 cell: no */
static inline int glyph_ink(int d, int row, int col) {
  if (row < 0 || row >= 7 || col < 0 || col >= 5) return 0;
  return glyph_font[d][row] >> (4 - col) & 1;
}

/* Render digit d into out[256] (row-major, values about 0..1).  The font is
 * drawn at 2x (10x14 pixels) by inverse mapping: each output pixel asks which
 * font cell it falls in after undoing the offset and the slant, so shifted and
 * slanted glyphs need no interpolation code. */
static inline void glyph_render(int d, GlyphRng *r, float *out) {
  int ox = glyph_int(r, 5) + 1, oy = glyph_int(r, 3);
  double slant = (glyph_uniform(r) - 0.5) * 0.5; /* pixels of x per pixel of y */
  double ink = 0.6 + 0.4 * glyph_uniform(r);
  for (int y = 0; y < GLYPH_SIDE; y++)
    for (int x = 0; x < GLYPH_SIDE; x++) {
      double sx = x - ox - slant * (y - oy - 7);
      int col = (int)floor(sx / 2), row = (y - oy) / 2;
      double v = y >= oy && glyph_ink(d, row, col) ? ink : 0;
      v += (glyph_uniform(r) - 0.5) * 0.5;
      if (glyph_uniform(r) < 0.02) v = 1 - v; /* a few flipped pixels */
      out[y * GLYPH_SIDE + x] = (float)v;
    }
}

#endif
