/* cli_files.c - files the command line writes for the user, tensors it
 * makes up (--fill), and facts about the machine it prints.
 *
 * A user-named output is written to a new temporary file beside it and
 * renamed over it only once complete, so a failed write never leaves half a
 * file and never touches a path that existed before (a device node, a file
 * of the user's). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

static bool write_all(int fd, const char *s, size_t n) {
  while (n > 0) {
    ssize_t w = write(fd, s, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    s += w;
    n -= (size_t)w;
  }
  return true;
}

bool cli_write_file(const char *path, const char *s, size_t n) {
  struct stat st;
  if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
    fprintf(stderr, "mlcc: %s: error: exists and is not a regular file; not replaced\n", path);
    return false;
  }
  size_t len = strlen(path);
  char *tmp = malloc(len + 16);
  if (!tmp) {
    fprintf(stderr, "mlcc: %s: error: out of memory\n", path);
    return false;
  }
  snprintf(tmp, len + 16, "%s.tmpXXXXXX", path);
  int fd = mkstemp(tmp);
  if (fd < 0) {
    fprintf(stderr, "mlcc: %s: error: cannot create a file beside it: %s\n", path, strerror(errno));
    free(tmp);
    return false;
  }
  bool ok = write_all(fd, s, n);
  int err = errno;
  ok = (close(fd) == 0) && ok;
  if (ok && rename(tmp, path) != 0) {
    err = errno;
    ok = false;
  }
  if (!ok) {
    fprintf(stderr, "mlcc: %s: error: cannot write: %s\n", path, strerror(err));
    unlink(tmp); /* ours: made by mkstemp above */
  }
  free(tmp);
  return ok;
}

/* deterministic uniform values in [-1, 1) for floats, [0, 8) for ints */
void cli_fill_tensor(DLTensor *t, CliFill fill, uint64_t *state) {
  int64_t n = mlcrt_tensor_numel(t);
  if (fill != FILL_RANDOM) {
    mlcrt_tensor_fill(t, fill == FILL_ONES ? 1.0 : 0.0);
    return;
  }
  size_t esize = mlcrt_dtype_bytes(t->dtype);
  for (int64_t i = 0; i < n; i++) {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    double u = (double)(*state >> 11) / 9007199254740992.0;
    char *p = (char *)t->data + (size_t)i * esize;
    if (t->dtype.code == kDLFloat && t->dtype.bits == 32) { float v = (float)(2 * u - 1); memcpy(p, &v, 4); }
    else if (t->dtype.code == kDLFloat && t->dtype.bits == 64) { double v = 2 * u - 1; memcpy(p, &v, 8); }
    else if (t->dtype.code == kDLBool) *(unsigned char *)p = u < 0.5;
    else if (t->dtype.code == kDLInt || t->dtype.code == kDLUInt) {
      int64_t v = (int64_t)(u * 8);
      memcpy(p, &v, esize < 8 ? esize : 8); /* the low bytes: little-endian hosts */
    } else {
      memset(p, 0, esize); /* float16 / bfloat16: zeros rather than wrong bits */
    }
  }
}

void cli_cpu_model(char *buf, size_t cap) {
  snprintf(buf, cap, "unknown CPU");
  FILE *f = fopen("/proc/cpuinfo", "r");
  if (!f) return;
  char line[512];
  while (fgets(line, sizeof line, f)) {
    if (strncmp(line, "model name", 10) != 0) continue;
    const char *v = strchr(line, ':');
    if (!v) break;
    v++;
    while (*v == ' ' || *v == '\t') v++;
    snprintf(buf, cap, "%.*s", (int)strcspn(v, "\n"), v);
    break;
  }
  fclose(f);
}
