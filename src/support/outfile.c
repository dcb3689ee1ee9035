/* outfile.c - output files that replace their path only when complete.
 *
 * Writing a user-named path directly and removing it on failure destroys
 * what was there: an old file is truncated before the write fails, and a
 * device given as the output (/dev/full) would be deleted.  So a new file
 * is created beside the path with O_EXCL (it cannot be anything that
 * existed) and renamed over the path once complete; on failure only that
 * new file is removed.  An existing non-regular file (a device, a FIFO) is
 * written in place instead, because a rename would replace the node
 * itself; it is opened without blocking, so a FIFO with no reader fails
 * rather than hangs.  The runtime has its own copy of this (runtime/file.c),
 * since a compiled model links against the runtime alone. */
#define _XOPEN_SOURCE 700 /* realpath */
#include "mlcc/support.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static bool out_error(MlcCtx *ctx, const char *path, const char *what, int err) {
  return mlc_error(ctx, (MlcLoc){mlc_intern(ctx, path), 0, 0}, "%s: %s", what, strerror(err));
}

/* the length of path without the extension of its last component: the new
 * file keeps the extension ("model.tmp-12-0.c"), which a compiler reads */
static size_t stem_len(const char *path) {
  const char *base = strrchr(path, '/'), *dot = strrchr(path, '.');
  base = base ? base + 1 : path;
  return dot && dot > base ? (size_t)(dot - path) : strlen(path);
}

/* an empty new file next to target, with the mode fopen would give it or
 * the mode of the file it replaces */
static char *create_beside(const char *target, const struct stat *old) {
  static atomic_uint counter; /* distinct names for concurrent writers */
  size_t cap = strlen(target) + 48, stem = stem_len(target);
  char *name = mlc_xmalloc(cap);
  for (int tries = 0; tries < 100; tries++) {
    snprintf(name, cap, "%.*s.tmp-%ld-%u%s", (int)stem, target, (long)getpid(), atomic_fetch_add(&counter, 1),
             target + stem);
    int fd = open(name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0 && errno == EEXIST) continue;
    if (fd < 0) break;
    if (old) fchmod(fd, old->st_mode & 07777);
    if (close(fd) == 0) return name;
    unlink(name);
    break;
  }
  free(name);
  return NULL;
}

bool mlc_out_begin(MlcCtx *ctx, const char *path, MlcOutFile *o) {
  struct stat st, lst;
  memset(o, 0, sizeof *o);
  o->path = path;
  bool exists = stat(path, &st) == 0;
  o->existed = exists || lstat(path, &lst) == 0;
  if (exists && !S_ISREG(st.st_mode)) {
    if (S_ISDIR(st.st_mode)) return out_error(ctx, path, "cannot write", EISDIR);
    o->in_place = true;
    o->write_to = mlc_xstrdup(path);
    return true;
  }
  bool link = exists && lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode);
  o->target = link ? realpath(path, NULL) : mlc_xstrdup(path);
  o->write_to = o->target ? create_beside(o->target, exists ? &st : NULL) : NULL;
  if (o->write_to) return true;
  int err = errno;
  free(o->target);
  o->target = NULL;
  return out_error(ctx, path, "cannot create a file beside it", err);
}

/* O_NONBLOCK: a FIFO with no reader fails at once; cleared for the writes */
static FILE *open_for_write(const MlcOutFile *o) {
  int fd = open(o->write_to, O_WRONLY | O_CLOEXEC | (o->in_place ? O_NONBLOCK : O_TRUNC));
  if (fd < 0) return NULL;
  int fl = fcntl(fd, F_GETFL);
  if (fl != -1) fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
  FILE *f = fdopen(fd, "wb");
  if (!f) close(fd);
  return f;
}

bool mlc_out_write(MlcCtx *ctx, MlcOutFile *o, const void *data, size_t len) {
  FILE *f = open_for_write(o);
  if (!f) return out_error(ctx, o->path, "cannot write", errno);
  bool ok = len == 0 || fwrite(data, 1, len, f) == len;
  int err = errno;
  if (fclose(f) != 0 && ok) ok = false, err = errno;
  return ok ? true : out_error(ctx, o->path, "write failed", err);
}

bool mlc_out_commit(MlcCtx *ctx, MlcOutFile *o) {
  bool ok = o->in_place || rename(o->write_to, o->target) == 0;
  if (!ok) out_error(ctx, o->path, "cannot put the written file in place", errno);
  if (ok) o->in_place = true; /* nothing left to remove */
  mlc_out_discard(o);
  return ok;
}

void mlc_out_discard(MlcOutFile *o) {
  if (o->write_to && !o->in_place) unlink(o->write_to);
  free(o->write_to);
  free(o->target);
  o->write_to = o->target = NULL;
}

void mlc_out_abandon(MlcOutFile *o) {
  o->in_place = true; /* so discard leaves the file */
  mlc_out_discard(o);
}

bool mlc_write_file(MlcCtx *ctx, const char *path, const void *data, size_t len) {
  MlcOutFile o;
  if (!mlc_out_begin(ctx, path, &o)) return false;
  if (mlc_out_write(ctx, &o, data, len)) return mlc_out_commit(ctx, &o);
  mlc_out_discard(&o);
  return false;
}
