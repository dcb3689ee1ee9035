/* npz.c - .npz archives: zip files of .npy entries, as numpy's savez and
 * savez_compressed write them.
 *
 * Reading trusts nothing in the archive.  The central directory is found
 * from the end record; every offset and size is checked against the buffer
 * before it is used, in 64-bit arithmetic so zip64 values cannot wrap; the
 * entry count is bounded by the directory's size; a deflated entry's
 * declared size is bounded by deflate's best ratio, and its .npy header is
 * inflated and checked against that size before the tensor is allocated
 * (a forged size never sizes a buffer, and the data is inflated once,
 * straight into the tensor); and every entry's CRC-32 is checked.  Sizes come from the
 * central directory, never the local headers, because numpy writes its local
 * headers with zip64 placeholders.  Deflate and CRC-32 are zlib's.
 *
 * Writing produces stored entries with a fixed timestamp, so the same
 * tensors always give the same bytes.  Everything is validated before the
 * file is opened, and the archive replaces an existing file only once
 * completely written (file.c), so a failed call leaves it alone; archives
 * that would need zip64 (4 GiB and more) are refused. */
#define ZLIB_CONST
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "rt.h"

#define SIG_LOCAL 0x04034b50u
#define SIG_CENTRAL 0x02014b50u
#define SIG_END 0x06054b50u
#define SIG_END64 0x06064b50u
#define SIG_LOC64 0x07064b50u
/* fixed parts of the records, in bytes */
#define LOCAL_LEN 30
#define CENTRAL_LEN 46
#define END_LEN 22
#define END64_LEN 56
#define LOC64_LEN 20
#define MAX_COMMENT 0xffffu
#define ZIP64_TAG 0x0001u
/* a 32-bit field holding this means "see the zip64 extra field" */
#define MARK32 0xffffffffu
#define MARK16 0xffffu
#define MAX_ENTRIES (1 << 20)
/* deflate never expands more than about 1032:1; more is a forged size */
#define DEFLATE_MAX_RATIO 1032u
/* zlib counts in uInt; larger buffers are fed in pieces */
#define ZCHUNK (1u << 30)
/* an entry_tensor status: the .npy inside failed (its message wants the
 * entry's name in front) */
#define NPY_ERROR (-2)
/* a .npy header is a few hundred bytes; more is not a header numpy wrote */
#define NPY_MAX_HEADER ((size_t)1 << 20)
/* 1980-01-01 00:00 in MS-DOS form: the written archive's fixed timestamp */
#define DOS_DATE 0x0021u
#define DOS_TIME 0x0000u
/* version 2.0: stored entries, no zip64 */
#define ZIP_VERSION 20u

static uint32_t rd16(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8; }
static uint32_t rd32(const uint8_t *p) { return rd16(p) | rd16(p + 2) << 16; }
static uint64_t rd64(const uint8_t *p) { return (uint64_t)rd32(p) | (uint64_t)rd32(p + 4) << 32; }

/* ---- finding the central directory ------------------------------------------------ */

typedef struct Zip {
  const uint8_t *b;
  uint64_t len;
} Zip;

typedef struct Dir {
  uint64_t offset, size, count;
  uint64_t limit; /* where the end records start: the directory ends before */
} Dir;

/* off + n lies within the archive (no wrap: both are checked separately) */
static bool span_ok(const Zip *z, uint64_t off, uint64_t n) { return off <= z->len && n <= z->len - off; }

/* the end record is the last one whose comment reaches exactly to the end */
static int find_end(const Zip *z, uint64_t *end) {
  if (z->len < END_LEN) return mlcrt_set_error("npz: not a zip archive (%llu bytes)", (unsigned long long)z->len);
  uint64_t last = z->len - END_LEN;
  uint64_t lowest = last > MAX_COMMENT ? last - MAX_COMMENT : 0;
  for (uint64_t at = last;; at--) {
    if (rd32(z->b + at) == SIG_END && at + END_LEN + rd16(z->b + at + 20) == z->len) {
      *end = at;
      return 0;
    }
    if (at == lowest) break;
  }
  return mlcrt_set_error("npz: not a zip archive (no end of central directory record)");
}

static int multi_disk(void) { return mlcrt_set_error("npz: multi-disk zip archives are not supported"); }

/* the zip64 end record, through the locator just before the classic one */
static int read_end64(const Zip *z, uint64_t end, Dir *d) {
  if (end < LOC64_LEN || rd32(z->b + end - LOC64_LEN) != SIG_LOC64)
    return mlcrt_set_error("npz: zip64 archive without a zip64 end record locator");
  const uint8_t *loc = z->b + end - LOC64_LEN;
  uint64_t at = rd64(loc + 8);
  if (rd32(loc + 4) != 0 || rd32(loc + 16) > 1) return multi_disk();
  if (at > end - LOC64_LEN || end - LOC64_LEN - at < END64_LEN || rd32(z->b + at) != SIG_END64)
    return mlcrt_set_error("npz: zip64 end record missing or malformed");
  const uint8_t *r = z->b + at;
  if (rd32(r + 16) != 0 || rd32(r + 20) != 0 || rd64(r + 24) != rd64(r + 32)) return multi_disk();
  d->count = rd64(r + 32);
  d->size = rd64(r + 40);
  d->offset = rd64(r + 48);
  d->limit = at;
  return 0;
}

static int read_dir(const Zip *z, Dir *d) {
  uint64_t end = 0;
  if (find_end(z, &end)) return -1;
  const uint8_t *r = z->b + end;
  if (rd16(r + 4) != 0 || rd16(r + 6) != 0 || rd16(r + 8) != rd16(r + 10)) return multi_disk();
  d->count = rd16(r + 10);
  d->size = rd32(r + 12);
  d->offset = rd32(r + 16);
  d->limit = end;
  if ((d->count == MARK16 || d->size == MARK32 || d->offset == MARK32) && read_end64(z, end, d)) return -1;
  if (d->offset > d->limit || d->size > d->limit - d->offset)
    return mlcrt_set_error("npz: central directory (%llu bytes at %llu) lies outside the archive",
                           (unsigned long long)d->size, (unsigned long long)d->offset);
  if (d->count > d->size / CENTRAL_LEN || d->count > MAX_ENTRIES)
    return mlcrt_set_error("npz: %llu entries do not fit a central directory of %llu bytes (at most %d entries)",
                           (unsigned long long)d->count, (unsigned long long)d->size, MAX_ENTRIES);
  return 0;
}

/* ---- central directory entries --------------------------------------------------------- */

typedef struct Entry {
  char *name; /* NUL-terminated copy of the entry's name */
  const uint8_t *raw_name;
  uint32_t name_len, flags, method, crc, disk;
  uint64_t csize, usize, local;
} Entry;

/* a zip64 extra field holds, in this order, exactly the fields whose 32-bit
 * (16-bit for the disk) value is the mark */
static int apply_zip64(const uint8_t *x, uint32_t xlen, Entry *en) {
  uint64_t *wide[3] = {&en->usize, &en->csize, &en->local};
  while (xlen >= 4) {
    uint32_t tag = rd16(x), n = rd16(x + 2);
    if (n > xlen - 4) return mlcrt_set_error("npz: entry '%s': extra field runs past its end", en->name);
    if (tag == ZIP64_TAG) {
      uint32_t used = 0;
      for (int i = 0; i < 3; i++) {
        if (*wide[i] != MARK32) continue;
        if (n - used < 8) break;
        *wide[i] = rd64(x + 4 + used);
        used += 8;
      }
      if (en->disk == MARK16 && n - used >= 4) en->disk = rd32(x + 4 + used);
      break;
    }
    x += 4 + n;
    xlen -= 4 + n;
  }
  if (en->usize == MARK32 || en->csize == MARK32 || en->local == MARK32 || en->disk == MARK16)
    return mlcrt_set_error("npz: entry '%s': zip64 sizes or offset missing", en->name);
  return 0;
}

/* reads the entry at *pos (before dir_end) and moves *pos past it */
static int read_central(const Zip *z, uint64_t *pos, uint64_t dir_end, int64_t index, Entry *en) {
  const uint8_t *p = z->b + *pos;
  if (dir_end - *pos < CENTRAL_LEN || rd32(p) != SIG_CENTRAL)
    return mlcrt_set_error("npz: central directory entry #%lld is malformed", (long long)index + 1);
  uint32_t nlen = rd16(p + 28), xlen = rd16(p + 30), clen = rd16(p + 32);
  if ((uint64_t)CENTRAL_LEN + nlen + xlen + clen > dir_end - *pos)
    return mlcrt_set_error("npz: central directory entry #%lld runs past the directory", (long long)index + 1);
  if (nlen == 0 || memchr(p + CENTRAL_LEN, 0, nlen))
    return mlcrt_set_error("npz: entry #%lld has an empty name or a NUL in it", (long long)index + 1);
  en->name = malloc((size_t)nlen + 1);
  if (!en->name) return mlcrt_set_error("npz: out of memory");
  memcpy(en->name, p + CENTRAL_LEN, nlen);
  en->name[nlen] = '\0';
  en->raw_name = p + CENTRAL_LEN;
  en->name_len = nlen;
  en->flags = rd16(p + 8);
  en->method = rd16(p + 10);
  en->crc = rd32(p + 16);
  en->csize = rd32(p + 20);
  en->usize = rd32(p + 24);
  en->disk = rd16(p + 34);
  en->local = rd32(p + 42);
  *pos += CENTRAL_LEN + nlen + xlen + clen;
  return apply_zip64(p + CENTRAL_LEN + nlen, xlen, en);
}

static int check_entry(const Entry *en) {
  if (en->flags & 1u) return mlcrt_set_error("npz: entry '%s' is encrypted", en->name);
  if (en->disk != 0) return multi_disk();
  if (en->method != 0 && en->method != 8)
    return mlcrt_set_error("npz: entry '%s': compression method %u is not supported (only stored and deflated)",
                           en->name, en->method);
  if (en->method == 0 && en->csize != en->usize)
    return mlcrt_set_error("npz: stored entry '%s' has compressed size %llu but size %llu", en->name,
                           (unsigned long long)en->csize, (unsigned long long)en->usize);
  if (en->usize > SIZE_MAX / 2)
    return mlcrt_set_error("npz: entry '%s' is too large (%llu bytes)", en->name, (unsigned long long)en->usize);
  if (en->method == 8 && (en->csize > UINT64_MAX / DEFLATE_MAX_RATIO - 1 ||
                          en->usize > (en->csize + 1) * DEFLATE_MAX_RATIO))
    return mlcrt_set_error("npz: entry '%s' claims %llu bytes from %llu compressed, more than deflate produces",
                           en->name, (unsigned long long)en->usize, (unsigned long long)en->csize);
  return 0;
}

/* the entry's compressed bytes, behind its local header */
static int entry_data(const Zip *z, const Entry *en, const uint8_t **data) {
  if (!span_ok(z, en->local, LOCAL_LEN) || rd32(z->b + en->local) != SIG_LOCAL)
    return mlcrt_set_error("npz: entry '%s': no local header at offset %llu", en->name,
                           (unsigned long long)en->local);
  const uint8_t *p = z->b + en->local;
  uint64_t start = en->local + LOCAL_LEN + rd16(p + 26) + rd16(p + 28);
  if (!span_ok(z, start, en->csize))
    return mlcrt_set_error("npz: entry '%s': %llu data bytes at offset %llu run past the end of the archive",
                           en->name, (unsigned long long)en->csize, (unsigned long long)start);
  if (rd16(p + 26) != en->name_len || memcmp(p + LOCAL_LEN, en->raw_name, en->name_len) != 0)
    return mlcrt_set_error("npz: entry '%s': its local header names another file", en->name);
  *data = z->b + start;
  return 0;
}

/* ---- deflate and CRC-32 (zlib) -------------------------------------------------------------- */

static uint32_t crc_of(uint32_t crc, const void *p, uint64_t n) {
  const uint8_t *b = p;
  for (; n > ZCHUNK; n -= ZCHUNK, b += ZCHUNK) crc = (uint32_t)crc32_z(crc, b, ZCHUNK);
  return (uint32_t)crc32_z(crc, b, (z_size_t)n);
}

/* A deflated entry read in steps: the .npy header first, so its shape can
 * be checked against the directory's size before the tensor is allocated,
 * then the data straight into the tensor.  The CRC-32 follows the bytes. */
typedef struct Inflater {
  z_stream zs;
  const Entry *en;
  uint64_t in_left, produced;
  uint32_t crc;
} Inflater;

static int inflater_start(Inflater *f, const Entry *en, const uint8_t *in) {
  memset(f, 0, sizeof *f);
  f->en = en;
  f->in_left = en->csize;
  f->zs.next_in = in;
  if (inflateInit2(&f->zs, -MAX_WBITS) != Z_OK) return mlcrt_set_error("npz: cannot start the deflate decoder");
  return 0;
}

static int inflate_failed(Inflater *f, int ret) {
  const Entry *en = f->en;
  if (ret == Z_STREAM_END)
    return mlcrt_set_error("npz: entry '%s' inflates to %llu bytes, the directory says %llu", en->name,
                           (unsigned long long)f->produced, (unsigned long long)en->usize);
  if (ret == Z_BUF_ERROR) return mlcrt_set_error("npz: entry '%s': deflate data ends early", en->name);
  if (ret == Z_MEM_ERROR) return mlcrt_set_error("npz: out of memory inflating entry '%s'", en->name);
  return mlcrt_set_error("npz: entry '%s': bad deflate data (%s)", en->name, f->zs.msg ? f->zs.msg : "malformed data");
}

/* the next n bytes of the entry into out */
static int inflate_some(Inflater *f, uint8_t *out, uint64_t n) {
  uint64_t out_left = n;
  f->zs.next_out = out;
  f->zs.avail_out = 0;
  while (out_left > 0 || f->zs.avail_out > 0) {
    if (f->zs.avail_in == 0 && f->in_left > 0) {
      f->zs.avail_in = f->in_left > ZCHUNK ? ZCHUNK : (uInt)f->in_left;
      f->in_left -= f->zs.avail_in;
    }
    if (f->zs.avail_out == 0) {
      f->zs.avail_out = out_left > ZCHUNK ? ZCHUNK : (uInt)out_left;
      out_left -= f->zs.avail_out;
    }
    uInt before = f->zs.avail_out;
    int ret = inflate(&f->zs, Z_NO_FLUSH);
    f->produced += before - f->zs.avail_out;
    if (f->zs.avail_out == 0 && out_left == 0) break;
    if (ret != Z_OK) return inflate_failed(f, ret);
  }
  f->crc = crc_of(f->crc, out, n);
  return 0;
}

/* the stream must end exactly here, and the CRC match; frees the decoder */
static int inflater_finish(Inflater *f) {
  uint8_t extra;
  f->zs.next_out = &extra;
  f->zs.avail_out = 1;
  int ret = Z_OK;
  while (ret == Z_OK && f->zs.avail_out == 1) {
    if (f->zs.avail_in == 0 && f->in_left > 0) {
      f->zs.avail_in = f->in_left > ZCHUNK ? ZCHUNK : (uInt)f->in_left;
      f->in_left -= f->zs.avail_in;
    }
    ret = inflate(&f->zs, Z_NO_FLUSH);
  }
  int rc = 0;
  if (f->zs.avail_out == 0)
    rc = mlcrt_set_error("npz: entry '%s' inflates to more than the %llu bytes the directory says", f->en->name,
                         (unsigned long long)f->en->usize);
  else if (ret != Z_STREAM_END)
    rc = inflate_failed(f, ret);
  else if (f->crc != f->en->crc)
    rc = mlcrt_set_error("npz: entry '%s': CRC-32 mismatch (directory %08x, data %08x)", f->en->name,
                         (unsigned)f->en->crc, (unsigned)f->crc);
  inflateEnd(&f->zs);
  return rc;
}

/* a stored entry's .npy, CRC-checked, read from the archive in place */
static int stored_npy(const Entry *en, const uint8_t *data, MlcrtTensor **out) {
  uint32_t crc = crc_of(0, data, en->usize);
  if (crc != en->crc)
    return mlcrt_set_error("npz: entry '%s': CRC-32 mismatch (directory %08x, data %08x)", en->name,
                           (unsigned)en->crc, (unsigned)crc);
  return mlcrt_npy_read(data, (size_t)en->usize, out) ? NPY_ERROR : 0;
}

/* the deflated entry's .npy header, inflated and parsed; its shape must need
 * exactly the bytes the directory says the entry has */
static int inflate_header(Inflater *f, MlcrtNpyHeader *h) {
  const Entry *en = f->en;
  uint8_t pre[12], *hdr = NULL;
  size_t n0 = en->usize < sizeof pre ? (size_t)en->usize : sizeof pre, total = 0;
  if (inflate_some(f, pre, n0)) return -1;
  if (mlcrt__npy_header_size(pre, n0, &total)) return NPY_ERROR;
  if (total > NPY_MAX_HEADER || total > en->usize)
    return mlcrt_set_error("npz: entry '%s': a .npy header of %zu bytes in an entry of %llu bytes", en->name, total,
                           (unsigned long long)en->usize);
  if (!(hdr = malloc(total))) return mlcrt_set_error("npz: out of memory");
  memcpy(hdr, pre, n0);
  int rc = inflate_some(f, hdr + n0, total - n0);
  if (!rc && mlcrt__npy_parse_header(hdr, total, h)) rc = NPY_ERROR;
  free(hdr);
  if (!rc && (uint64_t)h->nbytes != en->usize - total)
    rc = mlcrt_set_error("npz: entry '%s': its .npy shape needs %lld data bytes, the directory's size leaves %llu",
                         en->name, (long long)h->nbytes, (unsigned long long)(en->usize - total));
  return rc;
}

static int deflated_npy(const Entry *en, const uint8_t *data, MlcrtTensor **out) {
  Inflater f;
  MlcrtNpyHeader h;
  if (inflater_start(&f, en, data)) return -1;
  int rc = inflate_header(&f, &h);
  if (!rc && mlcrt_tensor_create(h.ndim, h.shape, h.dtype, out)) rc = -1;
  if (!rc) rc = inflate_some(&f, (*out)->dl.data, (uint64_t)h.nbytes);
  int end = rc ? (inflateEnd(&f.zs), 0) : inflater_finish(&f);
  if (!rc && !end) mlcrt__npy_swap(&h, (*out)->dl.data);
  if (rc || end) {
    mlcrt_tensor_free(*out);
    *out = NULL;
  }
  return rc ? rc : end;
}

/* the entry's tensor; NPY_ERROR when the .npy inside was what failed */
static int entry_tensor(const Zip *z, const Entry *en, MlcrtTensor **out) {
  const uint8_t *data = NULL;
  if (entry_data(z, en, &data)) return -1;
  return en->method == 0 ? stored_npy(en, data, out) : deflated_npy(en, data, out);
}

/* ---- reading ------------------------------------------------------------------------------------ */

static int cmp_str_ptr(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* a name that occurs twice among n (sorted copies of the pointers), or NULL */
static const char *find_duplicate(const char *const *names, int64_t n, int *rc) {
  const char **sorted = malloc((size_t)(n > 0 ? n : 1) * sizeof *sorted);
  const char *dup = NULL;
  *rc = 0;
  if (!sorted) {
    *rc = mlcrt_set_error("npz: out of memory");
    return NULL;
  }
  if (n > 0) memcpy(sorted, names, (size_t)n * sizeof *sorted);
  qsort(sorted, (size_t)n, sizeof *sorted, cmp_str_ptr);
  for (int64_t i = 1; i < n && !dup; i++)
    if (strcmp(sorted[i - 1], sorted[i]) == 0) dup = sorted[i];
  free(sorted);
  return dup;
}

/* the key of entry "w.npy" is "w"; other names stay whole */
static void strip_npy(char *name) {
  size_t n = strlen(name);
  if (n > 4 && strcmp(name + n - 4, ".npy") == 0) name[n - 4] = '\0';
}

static int read_entry(const Zip *z, uint64_t *pos, uint64_t dir_end, int64_t i, MlcrtNpz *npz) {
  Entry en;
  memset(&en, 0, sizeof en);
  int rc = read_central(z, pos, dir_end, i, &en) || check_entry(&en) ? -1 : entry_tensor(z, &en, &npz->tensors[i]);
  if (rc == NPY_ERROR) {
    char where[96];
    snprintf(where, sizeof where, "npz: entry '%.60s'", en.name);
    mlcrt__prefix_error(where);
  }
  if (!rc) strip_npy(en.name);
  npz->names[i] = en.name; /* freed with the archive, even on failure */
  return rc ? -1 : 0;
}

static MlcrtNpz *npz_new(int64_t n) {
  MlcrtNpz *z = calloc(1, sizeof *z);
  if (!z) return NULL;
  z->n = (int32_t)n;
  z->names = calloc((size_t)n + 1, sizeof *z->names);
  z->tensors = calloc((size_t)n + 1, sizeof *z->tensors);
  if (!z->names || !z->tensors) {
    mlcrt_npz_free(z);
    return NULL;
  }
  return z;
}

int mlcrt_npz_read(const void *buf, size_t len, MlcrtNpz **out) {
  Zip z = {buf, len};
  Dir d = {0, 0, 0, 0};
  int rc = 0;
  *out = NULL;
  if (!buf && len) return mlcrt_set_error("npz: buffer is NULL");
  if (read_dir(&z, &d)) return -1;
  MlcrtNpz *npz = npz_new((int64_t)d.count);
  if (!npz) return mlcrt_set_error("npz: out of memory");
  uint64_t pos = d.offset;
  for (int64_t i = 0; i < (int64_t)d.count && !rc; i++) rc = read_entry(&z, &pos, d.offset + d.size, i, npz);
  const char *dup = rc ? NULL : find_duplicate((const char *const *)npz->names, npz->n, &rc);
  if (dup) rc = mlcrt_set_error("npz: two entries have the key '%s'", dup);
  if (rc) {
    mlcrt_npz_free(npz);
    return -1;
  }
  *out = npz;
  return 0;
}

int mlcrt_npz_load(const char *path, MlcrtNpz **out) {
  void *buf;
  size_t len;
  *out = NULL;
  if (!path) return mlcrt_set_error("npz_load: path is NULL");
  if (mlcrt__read_file(path, &buf, &len)) return -1;
  int rc = mlcrt_npz_read(buf, len, out);
  free(buf);
  if (rc) mlcrt__prefix_error(path);
  return rc;
}

MlcrtTensor *mlcrt_npz_get(const MlcrtNpz *z, const char *name) {
  if (!z || !name) {
    mlcrt_set_error("npz_get: archive or name is NULL");
    return NULL;
  }
  for (int32_t i = 0; i < z->n; i++)
    if (strcmp(z->names[i], name) == 0) return z->tensors[i];
  mlcrt_set_error("npz: no entry '%s'", name);
  return NULL;
}

void mlcrt_npz_free(MlcrtNpz *z) {
  if (!z) return;
  for (int32_t i = 0; z->names && i < z->n; i++) free(z->names[i]);
  for (int32_t i = 0; z->tensors && i < z->n; i++) mlcrt_tensor_free(z->tensors[i]);
  free(z->names);
  free(z->tensors);
  free(z);
}

/* ---- writing ------------------------------------------------------------------------------------- */

/* what the central directory needs of each written entry */
typedef struct Written {
  uint32_t crc, size, offset;
} Written;

static void wr16(uint8_t *p, uint32_t v) {
  p[0] = (uint8_t)v;
  p[1] = (uint8_t)(v >> 8);
}
static void wr32(uint8_t *p, uint32_t v) {
  wr16(p, v & 0xffffu);
  wr16(p + 2, v >> 16);
}

/* the fields local and central headers share, from "version needed" on */
static void common_fields(uint8_t *p, const Written *w, size_t name_len) {
  wr16(p, ZIP_VERSION);
  wr16(p + 2, 0);  /* flags */
  wr16(p + 4, 0);  /* stored */
  wr16(p + 6, DOS_TIME);
  wr16(p + 8, DOS_DATE);
  wr32(p + 10, w->crc);
  wr32(p + 14, w->size);
  wr32(p + 18, w->size);
  wr16(p + 22, (uint32_t)name_len);
  wr16(p + 24, 0); /* extra field length */
}

static bool put(FILE *f, const void *p, size_t n) { return n == 0 || fwrite(p, 1, n, f) == n; }

static bool put_name(FILE *f, const char *key) { return put(f, key, strlen(key)) && put(f, ".npy", 4); }

/* everything a call could refuse, checked before the file is touched */
static int check_save_args(int32_t n, const char *const *names, const DLTensor *const *tensors) {
  char hdr[1024];
  size_t hl;
  int rc;
  if (n < 0 || n >= (int32_t)MARK16) return mlcrt_set_error("npz_save: %d entries (at most %u)", n, MARK16 - 1);
  if (n > 0 && (!names || !tensors)) return mlcrt_set_error("npz_save: names or tensors is NULL");
  uint64_t offset = 0;
  for (int32_t i = 0; i < n; i++) {
    if (!names[i] || !names[i][0] || strlen(names[i]) > MARK16 - 4)
      return mlcrt_set_error("npz_save: name #%d is NULL, empty or too long", i + 1);
    if (mlcrt__npy_header(tensors[i], hdr, sizeof hdr, &hl)) {
      char where[96];
      snprintf(where, sizeof where, "npz_save: '%.60s'", names[i]);
      mlcrt__prefix_error(where);
      return -1;
    }
    uint64_t size = hl + (uint64_t)mlcrt_tensor_nbytes(tensors[i]);
    offset += LOCAL_LEN + strlen(names[i]) + 4 + size;
    offset += CENTRAL_LEN + strlen(names[i]) + 4;
    if (size >= MARK32 || offset >= MARK32)
      return mlcrt_set_error("npz_save: the archive would reach 4 GiB, which needs zip64 (not written)");
  }
  const char *dup = find_duplicate(names, n, &rc);
  if (rc) return -1;
  if (dup) return mlcrt_set_error("npz_save: the name '%s' is given twice", dup);
  return 0;
}

/* local header, .npy header and data of one entry; fills *w */
static bool put_entry(FILE *f, const char *key, const DLTensor *t, uint32_t offset, Written *w) {
  char hdr[1024];
  uint8_t local[LOCAL_LEN];
  size_t hl;
  if (mlcrt__npy_header(t, hdr, sizeof hdr, &hl)) return false;
  size_t nbytes = (size_t)mlcrt_tensor_nbytes(t);
  const uint8_t *data = nbytes ? (const uint8_t *)t->data + t->byte_offset : NULL;
  w->crc = crc_of(crc_of(0, hdr, hl), data ? (const void *)data : (const void *)"", nbytes);
  w->size = (uint32_t)(hl + nbytes);
  w->offset = offset;
  wr32(local, SIG_LOCAL);
  common_fields(local + 4, w, strlen(key) + 4);
  return put(f, local, LOCAL_LEN) && put_name(f, key) && put(f, hdr, hl) && put(f, data, nbytes);
}

static bool put_directory(FILE *f, int32_t n, const char *const *names, const Written *w, uint32_t dir_offset) {
  uint8_t c[CENTRAL_LEN], end[END_LEN];
  uint32_t dir_size = 0;
  for (int32_t i = 0; i < n; i++) {
    size_t name_len = strlen(names[i]) + 4;
    memset(c, 0, sizeof c);
    wr32(c, SIG_CENTRAL);
    wr16(c + 4, ZIP_VERSION); /* made by: MS-DOS host, version 2.0 */
    common_fields(c + 6, &w[i], name_len);
    wr32(c + 42, w[i].offset); /* comment, disk and attributes stay 0 */
    if (!put(f, c, sizeof c) || !put_name(f, names[i])) return false;
    dir_size += (uint32_t)(CENTRAL_LEN + name_len);
  }
  memset(end, 0, sizeof end);
  wr32(end, SIG_END);
  wr16(end + 8, (uint32_t)n);
  wr16(end + 10, (uint32_t)n);
  wr32(end + 12, dir_size);
  wr32(end + 16, dir_offset);
  return put(f, end, sizeof end);
}

static bool put_archive(FILE *f, int32_t n, const char *const *names, const DLTensor *const *tensors, Written *w) {
  uint32_t offset = 0;
  for (int32_t i = 0; i < n; i++) {
    if (!put_entry(f, names[i], tensors[i], offset, &w[i])) return false;
    offset += (uint32_t)(LOCAL_LEN + strlen(names[i]) + 4) + w[i].size;
  }
  return put_directory(f, n, names, w, offset);
}

int mlcrt_npz_save(const char *path, int32_t n, const char *const *names, const DLTensor *const *tensors) {
  if (!path) return mlcrt_set_error("npz_save: path is NULL");
  if (check_save_args(n, names, tensors)) return -1;
  Written *w = malloc((size_t)(n > 0 ? n : 1) * sizeof *w);
  if (!w) return mlcrt_set_error("npz_save: out of memory");
  MlcrtOut o;
  if (mlcrt__out_open(path, &o)) {
    free(w);
    return -1;
  }
  bool ok = put_archive(o.f, n, names, tensors, w);
  free(w);
  return mlcrt__out_close(&o, ok);
}
