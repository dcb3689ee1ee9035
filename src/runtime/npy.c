/* npy.c - reading and writing NumPy's .npy format.
 *
 * A .npy is a magic string, a version, a header length, a Python dict
 * literal ({'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), })
 * padded with spaces to a 64-byte boundary, then the raw elements in C
 * order.  Files come from anywhere, so the header is read by a small
 * bounded parser that never looks past the bytes it was given, accepts only
 * the three keys, and checks the element count against the data actually
 * present before allocating anything.  Data in the other byte order is
 * swapped on reading; writing uses the host's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt.h"

/* .npy type letter and size <-> DLPack dtype */
#define NPY_TYPES(X)      \
  X('f', 2, kDLFloat, 16) \
  X('f', 4, kDLFloat, 32) \
  X('f', 8, kDLFloat, 64) \
  X('i', 1, kDLInt, 8)    \
  X('i', 2, kDLInt, 16)   \
  X('i', 4, kDLInt, 32)   \
  X('i', 8, kDLInt, 64)   \
  X('u', 1, kDLUInt, 8)   \
  X('u', 2, kDLUInt, 16)  \
  X('u', 4, kDLUInt, 32)  \
  X('u', 8, kDLUInt, 64)  \
  X('b', 1, kDLBool, 8)

#define MAGIC "\x93NUMPY"
#define MAGIC_LEN 6
#define MAX_STR 64

static bool host_little(void) {
  uint16_t one = 1;
  uint8_t b;
  memcpy(&b, &one, 1);
  return b == 1;
}

/* ---- the header dict ------------------------------------------------------------- */

typedef struct Cursor {
  const char *p, *end;
} Cursor;

typedef struct Header {
  char descr[MAX_STR];
  int fortran;
  int32_t ndim;
  int64_t shape[MLCRT_MAX_NDIM];
  unsigned seen; /* bit per key */
} Header;

static void skip_ws(Cursor *c) {
  while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r')) c->p++;
}

static bool eat(Cursor *c, char ch) {
  skip_ws(c);
  if (c->p < c->end && *c->p == ch) {
    c->p++;
    return true;
  }
  return false;
}

/* a quoted string without escapes, at most MAX_STR - 1 bytes */
static int parse_string(Cursor *c, char *out) {
  skip_ws(c);
  if (c->p >= c->end || (*c->p != '\'' && *c->p != '"')) return mlcrt_set_error("npy: header: expected a string");
  char q = *c->p++;
  size_t n = 0;
  while (c->p < c->end && *c->p != q) {
    if (*c->p == '\\' || n + 1 >= MAX_STR) return mlcrt_set_error("npy: header: unsupported or long string");
    out[n++] = *c->p++;
  }
  if (c->p >= c->end) return mlcrt_set_error("npy: header: unterminated string");
  c->p++;
  out[n] = '\0';
  return 0;
}

static bool eat_word(Cursor *c, const char *w) {
  size_t n = strlen(w);
  skip_ws(c);
  if ((size_t)(c->end - c->p) < n || memcmp(c->p, w, n) != 0) return false;
  c->p += n;
  return true;
}

static int parse_bool(Cursor *c, int *out) {
  if (eat_word(c, "True")) *out = 1;
  else if (eat_word(c, "False")) *out = 0;
  else return mlcrt_set_error("npy: header: fortran_order must be True or False");
  return 0;
}

static int parse_dim(Cursor *c, int64_t *out) {
  int64_t v = 0;
  skip_ws(c);
  if (c->p >= c->end || *c->p < '0' || *c->p > '9') return mlcrt_set_error("npy: header: expected a dimension");
  while (c->p < c->end && *c->p >= '0' && *c->p <= '9') {
    int d = *c->p++ - '0';
    if (v > (INT64_MAX - d) / 10) return mlcrt_set_error("npy: header: dimension too large");
    v = v * 10 + d;
  }
  if (c->p < c->end && *c->p == 'L') c->p++; /* written by Python 2 */
  *out = v;
  return 0;
}

/* "()", "(3,)", "(3, 4)", "(3, 4,)" */
static int parse_shape(Cursor *c, Header *h) {
  if (!eat(c, '(')) return mlcrt_set_error("npy: header: shape must be a tuple");
  h->ndim = 0;
  while (!eat(c, ')')) {
    if (h->ndim == MLCRT_MAX_NDIM) return mlcrt_set_error("npy: header: more than %d dimensions", MLCRT_MAX_NDIM);
    if (parse_dim(c, &h->shape[h->ndim])) return -1;
    h->ndim++;
    if (!eat(c, ',')) {
      if (eat(c, ')')) break;
      return mlcrt_set_error("npy: header: malformed shape tuple");
    }
  }
  return 0;
}

static int parse_entry(Cursor *c, Header *h) {
  char key[MAX_STR];
  unsigned bit;
  if (parse_string(c, key)) return -1;
  if (!eat(c, ':')) return mlcrt_set_error("npy: header: expected ':' after '%s'", key);
  if (strcmp(key, "descr") == 0) bit = 1;
  else if (strcmp(key, "fortran_order") == 0) bit = 2;
  else if (strcmp(key, "shape") == 0) bit = 4;
  else return mlcrt_set_error("npy: header: unknown key '%s'", key);
  if (h->seen & bit) return mlcrt_set_error("npy: header: key '%s' twice", key);
  h->seen |= bit;
  return bit == 1 ? parse_string(c, h->descr) : bit == 2 ? parse_bool(c, &h->fortran) : parse_shape(c, h);
}

static int parse_dict(const char *text, size_t len, Header *h) {
  Cursor c = {text, text + len};
  memset(h, 0, sizeof *h);
  if (!eat(&c, '{')) return mlcrt_set_error("npy: header: expected '{'");
  while (!eat(&c, '}')) {
    if (parse_entry(&c, h)) return -1;
    if (!eat(&c, ',')) {
      if (eat(&c, '}')) break;
      return mlcrt_set_error("npy: header: expected ',' or '}'");
    }
  }
  skip_ws(&c);
  if (c.p != c.end) return mlcrt_set_error("npy: header: text after the dict");
  if (h->seen != 7) return mlcrt_set_error("npy: header: needs descr, fortran_order and shape");
  if (h->fortran) return mlcrt_set_error("npy: fortran_order True is not supported (C order only)");
  return 0;
}

/* "<f4" -> dtype and whether the data needs byte swapping */
static int parse_descr(const char *d, DLDataType *dtype, bool *swap) {
  char order = d[0], kind = d[0] ? d[1] : 0;
  int size = kind && d[2] >= '1' && d[2] <= '8' && !d[3] ? d[2] - '0' : 0;
  if (order != '<' && order != '>' && order != '|' && order != '=') size = 0;
  bool known = false;
#define X(k, s, c_, b_) \
  if (kind == (k) && size == (s)) { *dtype = mlcrt_dtype(c_, b_); known = true; }
  NPY_TYPES(X)
#undef X
  if (!known) return mlcrt_set_error("npy: unsupported dtype '%s'", d);
  if (order == '|' && size > 1) return mlcrt_set_error("npy: dtype '%s' has no byte order", d);
  *swap = size > 1 && ((order == '<' && !host_little()) || (order == '>' && host_little()));
  return 0;
}

static void swap_bytes(uint8_t *p, size_t n, size_t elem) {
  for (size_t i = 0; i + elem <= n; i += elem)
    for (size_t a = 0, b = elem - 1; a < b; a++, b--) {
      uint8_t t = p[i + a];
      p[i + a] = p[i + b];
      p[i + b] = t;
    }
}

/* ---- reading -------------------------------------------------------------------------- */

static uint32_t le16(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8; }
static uint32_t le32(const uint8_t *p) { return le16(p) | le16(p + 2) << 16; }

int mlcrt__npy_header_size(const void *buf, size_t len, size_t *total) {
  const uint8_t *b = buf;
  if (len < MAGIC_LEN + 4 || memcmp(b, MAGIC, MAGIC_LEN) != 0) return mlcrt_set_error("npy: not a .npy file (bad magic)");
  uint8_t major = b[6], minor = b[7];
  if (major < 1 || major > 3 || minor != 0) return mlcrt_set_error("npy: unsupported version %u.%u", major, minor);
  size_t pre = major == 1 ? 10 : 12;
  if (len < pre) return mlcrt_set_error("npy: file ends inside the preamble");
  *total = pre + (major == 1 ? le16(b + 8) : le32(b + 8));
  return 0;
}

int mlcrt__npy_parse_header(const void *buf, size_t len, MlcrtNpyHeader *out) {
  const uint8_t *b = buf;
  size_t total = 0;
  Header h;
  if (mlcrt__npy_header_size(buf, len, &total)) return -1;
  if (total > len)
    return mlcrt_set_error("npy: header length %zu past the end of the file", total - (b[6] == 1 ? 10 : 12));
  size_t pre = b[6] == 1 ? 10 : 12;
  if (parse_dict((const char *)b + pre, total - pre, &h) || parse_descr(h.descr, &out->dtype, &out->swap)) return -1;
  out->len = total;
  out->ndim = h.ndim;
  memcpy(out->shape, h.shape, sizeof h.shape);
  DLTensor probe = {NULL, {kDLCPU, 0}, h.ndim, out->dtype, out->shape, NULL, 0};
  out->nbytes = mlcrt_tensor_nbytes(&probe);
  return out->nbytes < 0 ? -1 : 0;
}

void mlcrt__npy_swap(const MlcrtNpyHeader *h, void *data) {
  if (h->swap) swap_bytes(data, (size_t)h->nbytes, h->dtype.bits / 8);
}

int mlcrt_npy_read(const void *buf, size_t len, MlcrtTensor **out) {
  const uint8_t *b = buf;
  MlcrtNpyHeader h;
  *out = NULL;
  if (!buf && len) return mlcrt_set_error("npy: buffer is NULL");
  if (mlcrt__npy_parse_header(buf, len, &h)) return -1;
  size_t data_len = len - h.len;
  if ((uint64_t)h.nbytes != data_len)
    return mlcrt_set_error("npy: shape needs %lld data bytes, the file has %zu", (long long)h.nbytes, data_len);
  if (mlcrt_tensor_create(h.ndim, h.shape, h.dtype, out)) return -1;
  memcpy((*out)->dl.data, b + h.len, data_len);
  mlcrt__npy_swap(&h, (*out)->dl.data);
  return 0;
}

int mlcrt_npy_load(const char *path, MlcrtTensor **out) {
  void *buf;
  size_t len;
  *out = NULL;
  if (!path) return mlcrt_set_error("npy_load: path is NULL");
  if (mlcrt__read_file(path, &buf, &len)) return -1;
  int rc = mlcrt_npy_read(buf, len, out);
  free(buf);
  if (rc) mlcrt__prefix_error(path);
  return rc;
}

/* ---- writing --------------------------------------------------------------------------- */

static int npy_descr(DLDataType t, char *out) {
  char name[64];
  if (t.lanes == 1) {
#define X(k, s, c_, b_)                                                                  \
  if (t.code == (c_) && t.bits == (b_)) {                                                    \
    snprintf(out, 8, "%c%c%d", (s) == 1 ? '|' : host_little() ? '<' : '>', k, s);           \
    return 0;                                                                                \
  }
    NPY_TYPES(X)
#undef X
  }
  return mlcrt_set_error("npy: %s has no .npy type", mlcrt_dtype_name(t, name, sizeof name));
}

static int check_writable(const DLTensor *t, int64_t *nbytes) {
  if ((*nbytes = mlcrt_tensor_nbytes(t)) < 0) return -1;
  if (t->device.device_type != kDLCPU) return mlcrt_set_error("npy: tensor is not on the CPU");
  if (mlcrt__check_compact(t)) return -1;
  if (*nbytes > 0 && !t->data) return mlcrt_set_error("npy: tensor data is NULL");
  return 0;
}

int mlcrt__npy_header(const DLTensor *t, char *hdr, size_t cap, size_t *hdr_len) {
  char descr[8], shape[MLCRT_MAX_NDIM * 24 + 8];
  int64_t nbytes;
  if (check_writable(t, &nbytes) || npy_descr(t->dtype, descr)) return -1;
  mlcrt__shape_str(t->shape, t->ndim, shape, sizeof shape);
  int n = snprintf(hdr + 10, cap > 10 ? cap - 10 : 0, "{'descr': '%s', 'fortran_order': False, 'shape': %s, }",
                   descr, shape);
  size_t total = ((size_t)n + 10 + 1 + 63) / 64 * 64; /* + '\n', padded to 64 */
  if (n < 0 || total > cap || total - 10 > 0xffff) return mlcrt_set_error("npy: header too long");
  memcpy(hdr, MAGIC, MAGIC_LEN);
  hdr[6] = 1;
  hdr[7] = 0;
  hdr[8] = (char)((total - 10) & 0xff);
  hdr[9] = (char)((total - 10) >> 8);
  memset(hdr + 10 + n, ' ', total - 10 - (size_t)n - 1);
  hdr[total - 1] = '\n';
  *hdr_len = total;
  return 0;
}

int mlcrt_npy_encode(const DLTensor *t, void **out, size_t *out_len) {
  char hdr[1024];
  size_t hl;
  int64_t nbytes;
  *out = NULL;
  *out_len = 0;
  if (mlcrt__npy_header(t, hdr, sizeof hdr, &hl) || check_writable(t, &nbytes)) return -1;
  if ((uint64_t)nbytes > SIZE_MAX - hl) return mlcrt_set_error("npy: tensor too large");
  uint8_t *b = malloc(hl + (size_t)nbytes);
  if (!b) return mlcrt_set_error("npy: out of memory (%lld bytes)", (long long)nbytes);
  memcpy(b, hdr, hl);
  if (nbytes) memcpy(b + hl, (const char *)t->data + t->byte_offset, (size_t)nbytes);
  *out = b;
  *out_len = hl + (size_t)nbytes;
  return 0;
}

int mlcrt_npy_save(const char *path, const DLTensor *t) {
  char hdr[1024];
  size_t hl;
  int64_t nbytes;
  if (!path) return mlcrt_set_error("npy_save: path is NULL");
  if (mlcrt__npy_header(t, hdr, sizeof hdr, &hl) || check_writable(t, &nbytes)) return -1;
  MlcrtOut o;
  if (mlcrt__out_open(path, &o)) return -1;
  bool ok = fwrite(hdr, 1, hl, o.f) == hl;
  if (ok && nbytes) ok = fwrite((const char *)t->data + t->byte_offset, 1, (size_t)nbytes, o.f) == (size_t)nbytes;
  return mlcrt__out_close(&o, ok);
}
