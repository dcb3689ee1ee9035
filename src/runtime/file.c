/* file.c - the runtime's file access: whole-file reads of user files, and
 * output files that replace their path only once completely written.
 *
 * A reader opens with O_NONBLOCK and checks the open descriptor before
 * reading, so a FIFO or device given as an input is refused at once instead
 * of waiting for a writer forever or reading without end.
 *
 * A writer never truncates or removes what was there: it writes a new file
 * beside the target and renames it over the target on success, and on
 * failure removes only that new file.  A target that exists and is not a
 * regular file (a device, a FIFO) is written in place instead, since
 * renaming over it would replace the node itself; a symlink to a regular
 * file is followed, so the link stays and its target is replaced.  The
 * support layer has the same logic for the compiler's outputs; the runtime
 * keeps its own copy because a compiled model links against it alone. */
/* realpath is XSI */
#define _XOPEN_SOURCE 700
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rt.h"

/* ---- reading ------------------------------------------------------------------------ */

static int read_fd(int fd, uint8_t **buf, size_t *len) {
  size_t cap = 1 << 16, n = 0;
  uint8_t *b = malloc(cap);
  while (b) {
    ssize_t r = read(fd, b + n, cap - n);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) break;
    if (r == 0) {
      *buf = b;
      *len = n;
      return 0;
    }
    n += (size_t)r;
    if (n < cap) continue;
    uint8_t *nb = cap <= SIZE_MAX / 2 ? realloc(b, cap * 2) : NULL;
    if (!nb) free(b);
    b = nb;
    cap *= 2;
  }
  free(b);
  return -1;
}

int mlcrt__read_file(const char *path, void **buf, size_t *len) {
  *buf = NULL;
  *len = 0;
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return mlcrt_set_error("cannot open '%s' for reading: %s", path, strerror(errno));
  struct stat st;
  int rc = 0;
  if (fstat(fd, &st) != 0) rc = mlcrt_set_error("cannot examine '%s': %s", path, strerror(errno));
  else if (!S_ISREG(st.st_mode)) rc = mlcrt_set_error("'%s' is not a regular file", path);
  else if (read_fd(fd, (uint8_t **)buf, len) != 0) rc = mlcrt_set_error("cannot read '%s'", path);
  close(fd);
  return rc;
}

/* ---- writing ------------------------------------------------------------------------ */

/* the length of path without the extension of its last component: the new
 * file keeps the extension ("model.tmp-12-0.c"), which a compiler reads */
static size_t stem_len(const char *path) {
  const char *base = strrchr(path, '/'), *dot = strrchr(path, '.');
  base = base ? base + 1 : path;
  return dot && dot > base ? (size_t)(dot - path) : strlen(path);
}

/* a fresh file next to target, with the mode an fopen would give it (or the
 * mode of the file it replaces); its name goes to o->tmp */
static int create_beside(const char *target, const struct stat *old, MlcrtOut *o) {
  static atomic_uint counter; /* distinct names for concurrent writers */
  size_t cap = strlen(target) + 48, stem = stem_len(target);
  if (!(o->tmp = malloc(cap))) return -1;
  for (int tries = 0; tries < 100; tries++) {
    snprintf(o->tmp, cap, "%.*s.tmp-%ld-%u%s", (int)stem, target, (long)getpid(), atomic_fetch_add(&counter, 1),
             target + stem);
    int fd = open(o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0 && errno == EEXIST) continue;
    if (fd < 0) break;
    if (old) fchmod(fd, old->st_mode & 07777);
    if ((o->f = fdopen(fd, "wb"))) return 0;
    close(fd);
    unlink(o->tmp);
    break;
  }
  free(o->tmp);
  o->tmp = NULL;
  return -1;
}

/* an existing device or FIFO, written in place; O_NONBLOCK so a FIFO with no
 * reader fails instead of hanging, then cleared for ordinary writes */
static int open_in_place(const char *path, MlcrtOut *o) {
  int fd = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return -1;
  int fl = fcntl(fd, F_GETFL);
  if (fl != -1) fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
  if ((o->f = fdopen(fd, "wb"))) return 0;
  close(fd);
  return -1;
}

int mlcrt__out_open(const char *path, MlcrtOut *o) {
  struct stat st, lst;
  memset(o, 0, sizeof o[0]);
  o->path = path;
  bool exists = stat(path, &st) == 0;
  int rc;
  if (exists && !S_ISREG(st.st_mode)) {
    rc = open_in_place(path, o);
  } else if (exists && lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode)) {
    o->resolved = realpath(path, NULL);
    rc = o->resolved ? create_beside(o->resolved, &st, o) : -1;
  } else {
    rc = create_beside(path, exists ? &st : NULL, o);
  }
  if (rc != 0) {
    int err = errno;
    free(o->resolved);
    o->resolved = NULL;
    return mlcrt_set_error("cannot open '%s' for writing: %s", path, strerror(err));
  }
  return 0;
}

int mlcrt__out_close(MlcrtOut *o, bool ok) {
  int err = 0;
  if (fflush(o->f) != 0) ok = false, err = errno;
  if (fclose(o->f) != 0 && ok) ok = false, err = errno;
  const char *target = o->resolved ? o->resolved : o->path;
  if (ok && o->tmp && rename(o->tmp, target) != 0) ok = false, err = errno;
  if (!ok && o->tmp) unlink(o->tmp);
  free(o->tmp);
  free(o->resolved);
  o->tmp = o->resolved = NULL;
  o->f = NULL;
  if (ok) return 0;
  return err ? mlcrt_set_error("cannot write '%s': %s", o->path, strerror(err))
             : mlcrt_set_error("cannot write '%s'", o->path);
}
