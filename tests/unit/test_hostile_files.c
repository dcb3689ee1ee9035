/* test_hostile_files.c - output and input paths that are not what a writer
 * or reader expects: a device or a symlink to one as the output, a write
 * that fails halfway (a file size limit), a FIFO as the input.
 *
 * What a failed write must leave: every path that existed before, exactly as
 * it was (same kind, same bytes), and no new file beside it.  What a read of
 * a FIFO must do: refuse at once; alarm() turns a hang into a failure. */
/* mknod is XSI */
#define _XOPEN_SOURCE 700
#include "build_util.h"
#include "check.h"
#include "mlcc/transform.h"

#include <errno.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

static char g_dir[512];

/* dir/name, in one of a few rotating buffers */
static const char *in(const char *dir, const char *name) {
  static char path[4][2048];
  static int which;
  which = (which + 1) % 4;
  snprintf(path[which], sizeof path[which], "%s/%s", dir, name);
  return path[which];
}

static const char *at(const char *name) { return in(g_dir, name); }

static bool write_bytes(const char *path, const char *text) {
  FILE *f = fopen(path, "wb");
  if (!f) return false;
  bool ok = fputs(text, f) >= 0;
  return (fclose(f) == 0) && ok;
}

/* the file's bytes equal text */
static bool holds(const char *path, const char *text) {
  char buf[256];
  FILE *f = fopen(path, "rb");
  if (!f) return false;
  size_t n = fread(buf, 1, sizeof buf, f);
  fclose(f);
  return n == strlen(text) && memcmp(buf, text, n) == 0;
}

/* how many entries dir holds (not counting . and ..) */
static int entries(const char *dir) {
  DIR *d = opendir(dir);
  int n = 0;
  if (!d) return -1;
  for (struct dirent *e; (e = readdir(d));) n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
  closedir(d);
  return n;
}

static MlcrtTensor *tensor_of(int64_t n) {
  MlcrtTensor *t = NULL;
  int64_t shape[1] = {n};
  mlcrt_tensor_create(1, shape, mlcrt_dtype(kDLFloat, 32), &t);
  return t;
}

/* writes past `bytes` fail with EFBIG instead of killing the process */
static struct rlimit limit_file_size(rlim_t bytes) {
  struct rlimit old, now;
  getrlimit(RLIMIT_FSIZE, &old);
  now = old;
  now.rlim_cur = bytes;
  setrlimit(RLIMIT_FSIZE, &now);
  return old;
}

/* ---- writers ----------------------------------------------------------------------------- */

/* A device node given as the output: the write fails (/dev/full is always
 * full), and the node, or the symlink leading to one, must still be there. */
static void test_save_to_full_device(void) {
  MlcrtTensor *t = tensor_of(4);
  const DLTensor *dl = &t->dl;
  const char *name = "t";
  CHECK(symlink("/dev/full", at("link.npy")) == 0);
  CHECK(mlcrt_npy_save(at("link.npy"), dl) != 0);
  CHECK(strstr(mlcrt_last_error(), "link.npy") != NULL);
  struct stat st;
  CHECK(lstat(at("link.npy"), &st) == 0 && S_ISLNK(st.st_mode));
  CHECK(mlcrt_npz_save(at("link.npy"), 1, &name, &dl) != 0);
  CHECK(lstat(at("link.npy"), &st) == 0 && S_ISLNK(st.st_mode));
  /* a device node of our own (where mknod is allowed): the same as /dev/full */
  if (mknod(at("full"), S_IFCHR | 0666, makedev(1, 7)) == 0) {
    CHECK(mlcrt_npy_save(at("full"), dl) != 0);
    CHECK(lstat(at("full"), &st) == 0 && S_ISCHR(st.st_mode));
    CHECK(mlcrt_npz_save(at("full"), 1, &name, &dl) != 0);
    CHECK(lstat(at("full"), &st) == 0 && S_ISCHR(st.st_mode));
    unlink(at("full"));
  }
  CHECK(entries(g_dir) == 1);
  unlink(at("link.npy"));
  mlcrt_tensor_free(t);
}

/* A write that fails halfway over an existing file keeps the old bytes, and
 * leaves nothing else behind; a write that succeeds replaces them. */
static void test_failed_save_keeps_old_file(void) {
  MlcrtTensor *t = tensor_of(1 << 16);
  const DLTensor *dl = &t->dl;
  const char *name = "t";
  CHECK(write_bytes(at("old.npy"), "old bytes"));
  CHECK(write_bytes(at("old.npz"), "old archive"));
  void (*prev)(int) = signal(SIGXFSZ, SIG_IGN);
  struct rlimit old = limit_file_size(4096);
  CHECK(mlcrt_npy_save(at("old.npy"), dl) != 0);
  CHECK(mlcrt_npz_save(at("old.npz"), 1, &name, &dl) != 0);
  setrlimit(RLIMIT_FSIZE, &old);
  signal(SIGXFSZ, prev);
  CHECK(holds(at("old.npy"), "old bytes"));
  CHECK(holds(at("old.npz"), "old archive"));
  CHECK(entries(g_dir) == 2);
  CHECK(mlcrt_npy_save(at("old.npy"), dl) == 0);
  MlcrtTensor *back = NULL;
  CHECK(mlcrt_npy_load(at("old.npy"), &back) == 0 && back && back->dl.shape[0] == 1 << 16);
  CHECK(entries(g_dir) == 2);
  mlcrt_tensor_free(back);
  unlink(at("old.npy"));
  unlink(at("old.npz"));
  mlcrt_tensor_free(t);
}

/* the path in "the generated file PATH (kept)" of a compiler failure */
static const char *kept_path(const char *msg) {
  static char path[1024];
  const char *p = strstr(msg, "generated file "), *e = p ? strstr(p, " (kept)") : NULL;
  if (!e) return "";
  p += strlen("generated file ");
  snprintf(path, sizeof path, "%.*s", (int)(e - p), p);
  return path;
}

/* the message names a kept C file in dir, and it is there */
static bool kept_file_named(const char *msg, const char *dir) {
  const char *p = kept_path(msg);
  struct stat st;
  return strncmp(p, dir, strlen(dir)) == 0 && strchr(p + strlen(dir) + 1, '/') == NULL && stat(p, &st) == 0 &&
         S_ISREG(st.st_mode);
}

static const char *const add_text =
    "from tvm.script import ir as I\n"
    "from tvm.script import relax as R\n\n"
    "@I.ir_module\n"
    "class Module:\n"
    "    @R.function\n"
    "    def main(x: R.Tensor((4,), \"float32\"), y: R.Tensor((4,), \"float32\")) -> R.Tensor((4,), \"float32\"):\n"
    "        with R.dataflow():\n"
    "            z = R.add(x, y)\n"
    "            R.output(z)\n"
    "        return z\n";

static const char *const mm_text =
    "from tvm.script import ir as I\n"
    "from tvm.script import tir as T\n\n"
    "@I.ir_module\n"
    "class Module:\n"
    "    @T.prim_func\n"
    "    def f(A: T.Buffer((4,), \"float32\"), B: T.Buffer((4,), \"float32\")):\n"
    "        for i in range(4):\n"
    "            with T.block(\"B\"):\n"
    "                vi = T.axis.spatial(4, i)\n"
    "                B[vi] = A[vi] + T.float32(1)\n";

/* A model build whose compiler fails leaves the files of the last build in
 * the folder as they were; a shared-object build leaves LIB.so and LIB.c. */
static void test_failed_build_keeps_old_files(void) {
  MlcCtx *ctx = mlc_ctx_new();
  const char *files[4] = {"model.c", "model.h", "params.bin", "model.so"};
  char dir[600];
  snprintf(dir, sizeof dir, "%s", at("model"));
  CHECK(mkdir(dir, 0700) == 0);
  for (int i = 0; i < 4; i++) CHECK(write_bytes(in(dir, files[i]), files[i]));
  const MlcModule *m = bu_read_text(ctx, "add.py", add_text);
  if (m) m = mlc_graph_pipeline(ctx, m, NULL, MLC_PASS_COUNT - 1, NULL, NULL, NULL, NULL);
  CHECK(m != NULL);
  MlcBuildOptions fails = {.cc = "false"};
  CHECK(m && !mlc_build_model(ctx, m, dir, &fails, NULL));
  /* the old four, and the generated C kept under the new name the error gives */
  CHECK(entries(dir) == 5);
  CHECK(kept_file_named(mlc_error_msg(ctx), dir));
  for (int i = 0; i < 4; i++) CHECK(holds(in(dir, files[i]), files[i]));
  /* a folder the failed build created holds the kept C file alone */
  mlc_clear_error(ctx);
  CHECK(m && !mlc_build_model(ctx, m, at("fresh"), &fails, NULL));
  CHECK(entries(at("fresh")) == 1 && kept_file_named(mlc_error_msg(ctx), at("fresh")));
  bu_remove_dir(at("fresh"));
  /* an error before anything is compiled removes the folder it made */
  MlcModelOptions bad = {0};
  mlc_clear_error(ctx);
  const MlcModule *tir_only = bu_read_text(ctx, "mm.py", mm_text);
  CHECK(tir_only && !mlc_build_model(ctx, tir_only, at("fresh"), NULL, &bad));
  struct stat st;
  CHECK(stat(at("fresh"), &st) != 0 && errno == ENOENT);
  /* mlcc build -o LIB.so */
  const MlcModule *k = bu_read_text(ctx, "mm.py", mm_text);
  CHECK(write_bytes(at("k.so"), "old so"));
  CHECK(write_bytes(at("k.c"), "old c"));
  mlc_clear_error(ctx);
  CHECK(k && !mlc_build_shared(ctx, k, at("k.so"), &fails));
  CHECK(holds(at("k.so"), "old so"));
  CHECK(holds(at("k.c"), "old c"));
  CHECK(kept_file_named(mlc_error_msg(ctx), g_dir));
  unlink(kept_path(mlc_error_msg(ctx)));
  mlc_clear_error(ctx);
  bool built = k && mlc_build_shared(ctx, k, at("k.so"), NULL);
  if (!built) bu_print_error(ctx, "building k.so");
  CHECK(built);
  CHECK(!holds(at("k.so"), "old so") && !holds(at("k.c"), "old c"));
  bu_remove_dir(dir);
  unlink(at("k.so"));
  unlink(at("k.c"));
  mlc_ctx_free(ctx);
}

/* ---- readers ----------------------------------------------------------------------------- */

/* A FIFO as a model, a .npy, a .npz or a TVMScript file is refused at once:
 * opening one for reading would wait for a writer that never comes. */
static void test_fifo_inputs_refused(void) {
  CHECK(mkfifo(at("in.npy"), 0600) == 0);
  MlcrtTensor *t = NULL;
  CHECK(mlcrt_npy_load(at("in.npy"), &t) != 0 && t == NULL);
  CHECK(strstr(mlcrt_last_error(), "not a regular file") != NULL);
  MlcrtNpz *z = NULL;
  CHECK(mlcrt_npz_load(at("in.npy"), &z) != 0 && z == NULL);
  CHECK(strstr(mlcrt_last_error(), "not a regular file") != NULL);
  MlcCtx *ctx = mlc_ctx_new();
  size_t len = 0;
  CHECK(mlc_read_file(ctx, at("in.npy"), 1 << 20, &len) == NULL);
  CHECK(strstr(mlc_error_msg(ctx), "not a regular file") != NULL);
  mlc_ctx_free(ctx);
  unlink(at("in.npy"));
}

int main(void) {
  alarm(300); /* a hang is a failure */
  CHECK(bu_make_tmpdir(g_dir, sizeof g_dir, "mlcc_hostile"));
  RUN(test_save_to_full_device);
  RUN(test_failed_save_keeps_old_file);
  RUN(test_failed_build_keeps_old_files);
  RUN(test_fifo_inputs_refused);
  bu_remove_dir(g_dir);
  return CHECK_DONE();
}
