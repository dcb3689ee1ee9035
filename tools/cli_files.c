/* cli_files.c - files the command line writes for the user (through
 * mlc_write_file: a failed write changes nothing that was there), tensors
 * it makes up (--fill), and facts about the machine it prints. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

bool cli_write_file(const char *path, const char *s, size_t n) {
  MlcCtx *ctx = mlc_ctx_new();
  bool ok = mlc_write_file(ctx, path, s, n);
  if (!ok) cli_report(ctx);
  mlc_ctx_free(ctx);
  return ok;
}

/* deterministic uniform values in [-1, 1) for floats, [0, 8) for ints */
int cli_rt_fail_path(const char *cmd, const char *path) {
  const char *err = mlcrt_last_error();
  if (*err && strstr(err, path)) fprintf(stderr, "mlcc: %s: %s\n", cmd, err);
  else fprintf(stderr, "mlcc: %s: %s%s%s\n", cmd, path, *err ? ": " : "", err);
  return EXIT_ERR;
}

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
      int64_t v = (int64_t)(u * (t->dtype.bits < 8 ? 2 : 8)); /* in range for int2 too */
      memcpy(p, &v, esize < 8 ? esize : 8); /* the low bytes: little-endian hosts */
    } else {
      memset(p, 0, esize); /* float16 / bfloat16 / float8 ...: zeros rather than wrong bits */
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
