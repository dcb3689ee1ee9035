/* png_ink.c - how much of a PNG picture is not background: the share of
 * pixels whose color differs from the top-left pixel's, printed as a
 * number in [0, 1].  The report test renders `mlcc report`'s page with a
 * headless browser and asks this whether the charts drew anything.
 *
 * Reads 8-bit non-interlaced gray, RGB, gray+alpha and RGBA pictures (what
 * browsers write); zlib inflates the data, the five PNG row filters are
 * undone here.  Exit 2 with a message on anything else.
 *   png_ink FILE.png */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

static uint32_t be32(const unsigned char *p) {
  return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static int die(const char *msg) {
  fprintf(stderr, "png_ink: %s\n", msg);
  return 2;
}

static int paeth(int a, int b, int c) {
  int p = a + b - c, pa = abs(p - a), pb = abs(p - b), pc = abs(p - c);
  return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

/* undo the row filters in place; rows of 1 + stride bytes */
static int unfilter(unsigned char *d, uint32_t h, size_t stride, int bpp) {
  for (uint32_t y = 0; y < h; y++) {
    unsigned char *row = d + y * (stride + 1), *px = row + 1;
    const unsigned char *up = y ? d + (y - 1) * (stride + 1) + 1 : NULL;
    for (size_t x = 0; x < stride; x++) {
      int a = x >= (size_t)bpp ? px[x - bpp] : 0, b = up ? up[x] : 0, c = up && x >= (size_t)bpp ? up[x - bpp] : 0;
      switch (row[0]) {
      case 0: break;
      case 1: px[x] = (unsigned char)(px[x] + a); break;
      case 2: px[x] = (unsigned char)(px[x] + b); break;
      case 3: px[x] = (unsigned char)(px[x] + (a + b) / 2); break;
      case 4: px[x] = (unsigned char)(px[x] + paeth(a, b, c)); break;
      default: return -1;
      }
    }
  }
  return 0;
}

int main(int argc, char **argv) {
  if (argc != 2) return die("usage: png_ink FILE.png");
  FILE *f = fopen(argv[1], "rb");
  if (!f) return die("cannot open the file");
  static unsigned char buf[64 << 20];
  size_t n = fread(buf, 1, sizeof buf, f);
  fclose(f);
  if (n < 33 || memcmp(buf, "\x89PNG\r\n\x1a\n", 8) != 0) return die("not a PNG file");
  uint32_t w = be32(buf + 16), h = be32(buf + 20);
  int depth = buf[24], color = buf[25], interlace = buf[28];
  int channels = color == 0 ? 1 : color == 2 ? 3 : color == 4 ? 2 : color == 6 ? 4 : 0;
  if (depth != 8 || !channels || interlace || !w || !h || w > 20000 || h > 20000) return die("unsupported PNG");
  /* the IDAT chunks, concatenated */
  unsigned char *z = malloc(n);
  if (!z) return die("out of memory");
  size_t zn = 0;
  for (size_t at = 8; at + 12 <= n;) {
    uint32_t len = be32(buf + at);
    if (len > n - at - 12) break;
    if (!memcmp(buf + at + 4, "IDAT", 4)) memcpy(z + zn, buf + at + 8, len), zn += len;
    at += 12 + (size_t)len;
  }
  size_t stride = (size_t)w * (size_t)channels, raw_n = (stride + 1) * h;
  unsigned char *raw = malloc(raw_n);
  uLongf got = (uLongf)raw_n;
  if (!raw || uncompress(raw, &got, z, (uLong)zn) != Z_OK || got != raw_n || unfilter(raw, h, stride, channels))
    return die("corrupt image data");
  uint64_t ink = 0;
  const unsigned char *bg = raw + 1;
  for (uint32_t y = 0; y < h; y++)
    for (uint32_t x = 0; x < w; x++)
      if (memcmp(raw + y * (stride + 1) + 1 + (size_t)x * channels, bg, (size_t)channels) != 0) ink++;
  printf("%.6f\n", (double)ink / ((double)w * h));
  free(z);
  free(raw);
  return 0;
}
