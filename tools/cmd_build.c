/* cmd_build.c - `mlcc build MODULE.py -o LIB.so`: compile every prim func of
 * a module into one shared library the runtime loads (`mlcc run`), keeping
 * the generated C beside it so it can be read. */
#include <string.h>

#include "cli.h"
#include "mlcc/codegen.h"

int cmd_build(int argc, char **argv) {
  const char *in = NULL, *out = NULL;
  MlcBuildOptions opt = {.target = MLC_TARGET_NATIVE};
  for (int i = 0; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "-o") && i + 1 < argc) out = argv[++i];
    else if (!strcmp(a, "--target") && i + 1 < argc) {
      const char *t = argv[++i];
      if (!strcmp(t, "native")) opt.target = MLC_TARGET_NATIVE;
      else if (!strcmp(t, "generic")) opt.target = MLC_TARGET_GENERIC;
      else return cli_bad_usage("build: --target takes native or generic", t);
    } else if (!in && (a[0] != '-' || a[1] == '\0')) in = a;
    else return cli_bad_usage("build: unexpected argument", a);
  }
  if (!in) return cli_bad_usage("build: missing MODULE.py", NULL);
  if (!out) return cli_bad_usage("build: missing -o LIB.so", NULL);
  MlcCtx *ctx = mlc_ctx_new();
  MlcModule *m = cli_load_module(ctx, in, NULL, NULL);
  int rc = (m && mlc_build_shared(ctx, m, out, &opt)) ? EXIT_YES : cli_report(ctx);
  mlc_ctx_free(ctx);
  return rc;
}
