/* onnx_tensor.c - ONNX TensorProto -> MlcTensorData.
 *
 * A tensor's elements may sit in raw_data (little-endian bytes), in one of
 * the typed repeated fields (which field depends on the dtype: int32_data
 * also carries int8/16, uint8/16, bool and the bits of float16/bfloat16), or
 * in a file beside the model ("external data").  Every count read from the
 * file is checked before it sizes an allocation: the rank, each dim, the
 * element count and byte size (overflow), and that the data present holds
 * exactly that many elements, all before the tensor is allocated (a few
 * bytes of file must not claim gigabytes of memory).  External data is read
 * only from a regular file with a single link inside the model's folder,
 * named by a relative path without ".." components, reached through no
 * symlink, opened without blocking, and only within its size. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "onnx_internal.h"

#define ONNX_TYPES(X)                         \
  X(FLOAT, 1, MLC_TC_FLOAT, 32)               \
  X(UINT8, 2, MLC_TC_UINT, 8)                 \
  X(INT8, 3, MLC_TC_INT, 8)                   \
  X(UINT16, 4, MLC_TC_UINT, 16)               \
  X(INT16, 5, MLC_TC_INT, 16)                 \
  X(INT32, 6, MLC_TC_INT, 32)                 \
  X(INT64, 7, MLC_TC_INT, 64)                 \
  X(BOOL, 9, MLC_TC_BOOL, 1)                  \
  X(FLOAT16, 10, MLC_TC_FLOAT, 16)            \
  X(DOUBLE, 11, MLC_TC_FLOAT, 64)             \
  X(UINT32, 12, MLC_TC_UINT, 32)              \
  X(UINT64, 13, MLC_TC_UINT, 64)              \
  X(BFLOAT16, 16, MLC_TC_BFLOAT, 16)          \
  X(FLOAT8E4M3FN, 17, MLC_TC_F8E4M3FN, 8)     \
  X(FLOAT8E4M3FNUZ, 18, MLC_TC_F8E4M3FNUZ, 8) \
  X(FLOAT8E5M2, 19, MLC_TC_F8E5M2, 8)         \
  X(FLOAT8E5M2FNUZ, 20, MLC_TC_F8E5M2FNUZ, 8) \
  X(UINT4, 21, MLC_TC_UINT, 4)                \
  X(INT4, 22, MLC_TC_INT, 4)                  \
  X(FLOAT4E2M1, 23, MLC_TC_F4E2M1, 4)         \
  X(FLOAT8E8M0, 24, MLC_TC_F8E8M0, 8)         \
  X(UINT2, 25, MLC_TC_UINT, 2)                \
  X(INT2, 26, MLC_TC_INT, 2)

/* the numbers onnx.proto gives the types (the Debian proto that the
 * importer is generated from predates those after BFLOAT16) */
enum {
#define X(name, num, code, bits) ONNX_T_##name = num,
  ONNX_TYPES(X)
#undef X
};

bool mlc_onnx__dtype(int32_t t, MlcDType *out) {
  switch (t) {
#define X(name, num, code, bits) \
  case num:                      \
    *out = MLC_DT(code, bits, 1); \
    return true;
    ONNX_TYPES(X)
#undef X
  default: return false;
  }
}

const char *mlc_onnx__dtype_name(int32_t t) {
  switch (t) {
#define X(name, num, code, bits) \
  case num: return #name;
    ONNX_TYPES(X)
#undef X
  case ONNX__TENSOR_PROTO__DATA_TYPE__STRING: return "STRING";
  case ONNX__TENSOR_PROTO__DATA_TYPE__COMPLEX64: return "COMPLEX64";
  case ONNX__TENSOR_PROTO__DATA_TYPE__COMPLEX128: return "COMPLEX128";
  default: return "an unknown type";
  }
}

static bool fail(MlcCtx *ctx, const char *where, const char *fmt, ...) MLC_PRINTF(3, 4);
static bool fail(MlcCtx *ctx, const char *where, const char *fmt, ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return mlc_error(ctx, ctx->build_loc, "%s: %s", where, msg);
}

/* ---- the elements held in the typed fields ----------------------------------- */

/* elements per byte in the file: 2 for the 4-bit types, 4 for the 2-bit
 * ones (packed, the first element in the lowest bits), else 1 */
static int per_byte(MlcDType t) { return t.bits == 4 ? 2 : t.bits == 2 ? 4 : 1; }

/* the packed elements at src into one byte each: 4- and 2-bit integers
 * sign- or zero-extended, float4 keeping its 4-bit code */
static void unpack(MlcDType t, const uint8_t *src, uint8_t *dst, int64_t n) {
  int per = per_byte(t), bits = t.bits;
  unsigned mask = (1u << bits) - 1u;
  for (int64_t i = 0; i < n; i++) {
    unsigned v = (src[i / per] >> (bits * (int)(i % per))) & mask;
    if (t.code == MLC_TC_INT && (v >> (bits - 1))) v |= ~mask;
    dst[i] = (uint8_t)v;
  }
}

/* which typed field holds dtype t's elements, and how many it has */
static size_t typed_count(const Onnx__TensorProto *t, int32_t type) {
  switch (type) {
  case ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT: return t->n_float_data;
  case ONNX__TENSOR_PROTO__DATA_TYPE__INT64: return t->n_int64_data;
  case ONNX__TENSOR_PROTO__DATA_TYPE__DOUBLE: return t->n_double_data;
  case ONNX__TENSOR_PROTO__DATA_TYPE__UINT32:
  case ONNX__TENSOR_PROTO__DATA_TYPE__UINT64: return t->n_uint64_data;
  default: return t->n_int32_data;
  }
}

static void typed_copy(const Onnx__TensorProto *t, int32_t type, void *dst, int64_t n) {
  for (int64_t i = 0; i < n; i++) {
    switch (type) {
    case ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT: ((float *)dst)[i] = t->float_data[i]; break;
    case ONNX__TENSOR_PROTO__DATA_TYPE__INT64: ((int64_t *)dst)[i] = t->int64_data[i]; break;
    case ONNX__TENSOR_PROTO__DATA_TYPE__DOUBLE: ((double *)dst)[i] = t->double_data[i]; break;
    case ONNX__TENSOR_PROTO__DATA_TYPE__UINT32: ((uint32_t *)dst)[i] = (uint32_t)t->uint64_data[i]; break;
    case ONNX__TENSOR_PROTO__DATA_TYPE__UINT64: ((uint64_t *)dst)[i] = t->uint64_data[i]; break;
    case ONNX__TENSOR_PROTO__DATA_TYPE__INT32: ((int32_t *)dst)[i] = t->int32_data[i]; break;
    case ONNX__TENSOR_PROTO__DATA_TYPE__INT16: ((int16_t *)dst)[i] = (int16_t)t->int32_data[i]; break;
    case ONNX__TENSOR_PROTO__DATA_TYPE__INT8: ((int8_t *)dst)[i] = (int8_t)t->int32_data[i]; break;
    case ONNX__TENSOR_PROTO__DATA_TYPE__BOOL: ((uint8_t *)dst)[i] = t->int32_data[i] != 0; break;
    case ONNX__TENSOR_PROTO__DATA_TYPE__UINT8: ((uint8_t *)dst)[i] = (uint8_t)t->int32_data[i]; break;
    case ONNX_T_FLOAT8E4M3FN: case ONNX_T_FLOAT8E4M3FNUZ: case ONNX_T_FLOAT8E5M2: case ONNX_T_FLOAT8E5M2FNUZ:
    case ONNX_T_FLOAT8E8M0: case ONNX_T_INT4: case ONNX_T_UINT4: case ONNX_T_FLOAT4E2M1: case ONNX_T_INT2:
    case ONNX_T_UINT2: /* a byte each (the sub-byte types: a packed byte each) */
      ((uint8_t *)dst)[i] = (uint8_t)t->int32_data[i];
      break;
    default: /* UINT16, FLOAT16, BFLOAT16: the low 16 bits */
      ((uint16_t *)dst)[i] = (uint16_t)t->int32_data[i];
      break;
    }
  }
}

/* raw_data is little endian; so is every host mlcc runs on, which the
 * static check below makes sure of rather than assuming */
static bool host_is_little_endian(void) {
  const uint16_t one = 1;
  return *(const uint8_t *)&one == 1;
}

/* ---- external data ---------------------------------------------------------- */

static bool parse_u64(const char *s, int64_t *out) {
  if (!s || !*s) return false;
  int64_t v = 0;
  for (; *s; s++) {
    if (*s < '0' || *s > '9' || v > (INT64_MAX - 9) / 10) return false;
    v = v * 10 + (*s - '0');
  }
  *out = v;
  return true;
}

/* a relative path whose components are not "..", "." or empty */
static bool safe_relative(const char *p) {
  if (!*p || *p == '/') return false;
  for (const char *c = p; *c;) {
    const char *e = strchr(c, '/');
    size_t n = e ? (size_t)(e - c) : strlen(c);
    if (n == 0 || (n == 1 && c[0] == '.') || (n == 2 && c[0] == '.' && c[1] == '.')) return false;
    c += n + (e ? 1 : 0);
  }
  return true;
}

/* Open dir/rel one component at a time, each with O_NOFOLLOW, so no symlink
 * anywhere below dir is followed and nothing can swap one in between a check
 * and the open; the last component is opened with O_NONBLOCK, so a FIFO
 * planted there cannot make the open wait for a writer forever.  -1 with
 * errno on failure (ELOOP or ENOTDIR for a symlink on the way). */
static int open_below(const char *dir, const char *rel) {
  int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  char name[NAME_MAX + 1];
  for (const char *c = rel; fd >= 0 && *c;) {
    const char *e = strchr(c, '/');
    size_t len = e ? (size_t)(e - c) : strlen(c);
    if (len > NAME_MAX) {
      close(fd);
      errno = ENAMETOOLONG;
      return -1;
    }
    memcpy(name, c, len);
    name[len] = 0;
    int flags = O_RDONLY | O_NOFOLLOW | O_CLOEXEC | (e ? O_DIRECTORY : O_NONBLOCK);
    int next = openat(fd, name, flags);
    int saved = errno;
    close(fd);
    errno = saved;
    fd = next;
    c += len + (e ? 1 : 0);
  }
  return fd;
}

/* The external data's file, open, checked on the descriptor itself: a
 * regular file (not a FIFO or device, whose reads may block or never end)
 * with one link (a hard link is a second name for a file that may live
 * outside the model's folder, and nothing on the path shows it). */
static int open_external(MlcCtx *ctx, const char *where, const char *dir, const char *loc, struct stat *st) {
  int fd = open_below(dir, loc);
  if (fd < 0) {
    bool link = errno == ELOOP || errno == ENOTDIR;
    fail(ctx, where, "external data '%.200s': %s", loc,
         link ? "not found, or reached through a symlink" : strerror(errno));
    return -1;
  }
  bool ok = false;
  if (fstat(fd, st) != 0)
    fail(ctx, where, "external data '%.200s' cannot be examined: %s", loc, strerror(errno));
  else if (!S_ISREG(st->st_mode))
    fail(ctx, where, "external data '%.200s' is not a regular file", loc);
  else if (st->st_nlink != 1)
    fail(ctx, where, "external data '%.200s' has %llu hard links; only a file with one link is read "
         "(another name for it may lie outside the model's folder)", loc, (unsigned long long)st->st_nlink);
  else
    ok = true;
  if (ok) return fd;
  close(fd);
  return -1;
}

/* where a tensor's external bytes are: an open file and an offset in it */
typedef struct ExtSource {
  int fd;
  int64_t offset;
} ExtSource;

/* Parse the external data entries, open the file and check that the
 * tensor's nbytes lie inside it: all before the tensor is allocated. */
static bool external_source(MlcCtx *ctx, const char *where, const Onnx__TensorProto *t, const char *dir,
                            int64_t nbytes, ExtSource *src) {
  const char *loc = NULL;
  int64_t offset = 0, length = -1;
  for (size_t i = 0; i < t->n_external_data; i++) {
    const char *k = t->external_data[i]->key, *v = t->external_data[i]->value;
    if (!k || !v) continue;
    if (strcmp(k, "location") == 0) loc = v;
    else if (strcmp(k, "offset") == 0 && !parse_u64(v, &offset))
      return fail(ctx, where, "external data offset '%s' is not a non-negative integer", v);
    else if (strcmp(k, "length") == 0 && !parse_u64(v, &length))
      return fail(ctx, where, "external data length '%s' is not a non-negative integer", v);
  }
  if (!dir) return fail(ctx, where, "external data is not allowed here");
  if (!loc) return fail(ctx, where, "external data without a location");
  if (strlen(loc) > 4096 || !safe_relative(loc))
    return fail(ctx, where, "external data location '%.200s' must be a relative path inside the "
                            "model's folder (no absolute path, no '..')", loc);
  struct stat st;
  int fd = open_external(ctx, where, dir, loc, &st);
  if (fd < 0) return false;
  if (length < 0) length = nbytes;
  if (length != nbytes || offset > st.st_size || length > st.st_size - offset) {
    close(fd);
    return fail(ctx, where, "external data '%.200s': offset %lld + length %lld does not fit the "
                "file (%lld bytes) or differs from the tensor's %lld bytes", loc, (long long)offset,
                (long long)length, (long long)st.st_size, (long long)nbytes);
  }
  src->fd = fd;
  src->offset = offset;
  return true;
}

/* read nbytes from src into dst and close it; the file may have shrunk since */
static bool read_external(MlcCtx *ctx, const char *where, ExtSource *src, void *dst, int64_t nbytes) {
  for (int64_t done = 0; done < nbytes;) {
    ssize_t r = pread(src->fd, (char *)dst + done, (size_t)(nbytes - done), (off_t)(src->offset + done));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) {
      close(src->fd);
      return fail(ctx, where, "external data: read failed after %lld of %lld bytes", (long long)done,
                  (long long)nbytes);
    }
    done += r;
  }
  close(src->fd);
  return true;
}

/* ---- the tensor --------------------------------------------------------------- */

/* the tensor's shape and zeroed data, or NULL when memory runs out */
static MlcTensorData *tensor_alloc(MlcCtx *ctx, const Onnx__TensorProto *t, MlcDType dt, size_t nbytes) {
  void *data = mlc_arena_try_alloc(&ctx->arena, nbytes ? nbytes : 1);
  if (!data) return NULL;
  MlcTensorData *d = mlc_arena_alloc(&ctx->arena, sizeof *d);
  d->dtype = dt;
  d->ndim = (int)t->n_dims;
  d->shape = mlc_arena_array(&ctx->arena, t->n_dims ? t->n_dims : 1, sizeof(int64_t));
  for (size_t i = 0; i < t->n_dims; i++) d->shape[i] = t->dims[i];
  d->nbytes = nbytes;
  d->data = data;
  return d;
}

MlcTensorData *mlc_onnx__tensor_data(MlcCtx *ctx, const char *where, const Onnx__TensorProto *t,
                                     const char *dir) {
  MlcDType dt;
  if (!t->has_data_type || !mlc_onnx__dtype(t->data_type, &dt))
    return fail(ctx, where, "element type %s is not supported",
                t->has_data_type ? mlc_onnx__dtype_name(t->data_type) : "(missing)"), NULL;
  if (t->segment) return fail(ctx, where, "segmented tensors are not supported"), NULL;
  if (t->n_dims > 32) return fail(ctx, where, "rank %zu exceeds the limit of 32", t->n_dims), NULL;
  int64_t numel = 1;
  for (size_t i = 0; i < t->n_dims; i++) {
    if (t->dims[i] < 0) return fail(ctx, where, "dim %zu is negative (%lld)", i, (long long)t->dims[i]), NULL;
    if (t->dims[i] > 0 && numel > MLC_ONNX_MAX_NUMEL / t->dims[i])
      return fail(ctx, where, "more than %lld elements", (long long)MLC_ONNX_MAX_NUMEL), NULL;
    numel *= t->dims[i];
  }
  int64_t esize = (int64_t)mlc_dtype_bytes(dt), nbytes = numel * esize;
  /* the sub-byte types are packed in the file and one per byte here */
  int per = per_byte(dt);
  int64_t fbytes = per > 1 ? (numel + per - 1) / per : nbytes, fcount = per > 1 ? fbytes : numel;
  /* the data present must match the dims before the dims size anything */
  bool external = t->has_data_location && t->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL;
  ExtSource src = {-1, 0};
  if (external && !external_source(ctx, where, t, dir, fbytes, &src)) return NULL;
  if (!external && t->has_raw_data && (int64_t)t->raw_data.len != fbytes)
    return fail(ctx, where, "raw_data has %zu bytes, but %lld elements of %s need %lld", t->raw_data.len,
                (long long)numel, mlc_onnx__dtype_name(t->data_type), (long long)fbytes), NULL;
  if (!external && !t->has_raw_data && (int64_t)typed_count(t, t->data_type) != fcount)
    return fail(ctx, where, "holds %zu %s, but its dims need %lld", typed_count(t, t->data_type),
                per > 1 ? "packed bytes" : "elements", (long long)fcount), NULL;
  if (!external && t->has_raw_data && !host_is_little_endian())
    return fail(ctx, where, "big-endian hosts are not supported"), NULL;
  MlcTensorData *d = tensor_alloc(ctx, t, dt, (size_t)nbytes);
  uint8_t *packed = per > 1 ? mlc_arena_try_alloc(&ctx->arena, fbytes ? (size_t)fbytes : 1) : NULL;
  if (!d || (per > 1 && !packed)) {
    if (external) close(src.fd);
    return fail(ctx, where, "out of memory for %lld bytes", (long long)nbytes), NULL;
  }
  void *dst = per > 1 ? (void *)packed : d->data;
  if (external) {
    if (!read_external(ctx, where, &src, dst, fbytes)) return NULL;
  } else if (t->has_raw_data) {
    if (fbytes) memcpy(dst, t->raw_data.data, (size_t)fbytes);
  } else {
    typed_copy(t, t->data_type, dst, fcount);
  }
  if (per > 1) unpack(dt, packed, d->data, numel);
  return d;
}

MlcOnnxTensor *mlc_onnx_decode_tensor(MlcCtx *ctx, const char *where, const void *buf, size_t len,
                                      const char *dir) {
  Onnx__TensorProto *t = onnx__tensor_proto__unpack(NULL, len, buf);
  if (!t) return mlc_error(ctx, ctx->build_loc, "%s: not a valid ONNX TensorProto", where), NULL;
  MlcOnnxTensor *out = NULL;
  MlcTensorData *d = mlc_onnx__tensor_data(ctx, where, t, dir);
  if (d) {
    out = mlc_arena_alloc(&ctx->arena, sizeof *out);
    out->name = mlc_intern(ctx, t->name ? t->name : "");
    out->data = d;
  }
  onnx__tensor_proto__free_unpacked(t, NULL);
  return out;
}

MlcOnnxTensor *mlc_onnx_read_tensor_file(MlcCtx *ctx, const char *path) {
  size_t len = 0;
  char *buf = mlc_read_file(ctx, path, MLC_ONNX_MAX_FILE, &len);
  if (!buf) return NULL;
  MlcOnnxTensor *t = mlc_onnx_decode_tensor(ctx, path, buf, len, NULL);
  free(buf);
  return t;
}
