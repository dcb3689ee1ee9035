/* extern.c - the registry of extern (packed) functions that graph code
 * reaches by name through call_dps_packed.
 *
 * A small table under a mutex: lookups happen when a model is created, not
 * per call, so a linear scan is enough.  Names are copied.  The built-in
 * functions are registered before anything else touches the table, so a
 * program's own function of the same name, registered later, replaces them
 * rather than the other way round. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "rt.h"

#define MAX_EXTERNS 256

typedef struct Entry {
  char *name;
  MlcrtExternFn fn;
} Entry;

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static Entry g_table[MAX_EXTERNS];
static int g_n;

int mlcrt__extern_put(const char *name, MlcrtExternFn fn) {
  int rc = 0;
  pthread_mutex_lock(&g_lock);
  int i = 0;
  while (i < g_n && strcmp(g_table[i].name, name) != 0) i++;
  if (i < g_n) {
    g_table[i].fn = fn;
  } else if (g_n == MAX_EXTERNS) {
    rc = mlcrt_set_error("extern_register: the registry is full (%d functions)", MAX_EXTERNS);
  } else {
    char *copy = strdup(name);
    if (!copy) rc = mlcrt_set_error("extern_register: out of memory");
    else g_table[g_n++] = (Entry){copy, fn};
  }
  pthread_mutex_unlock(&g_lock);
  return rc;
}

int mlcrt_extern_register(const char *name, MlcrtExternFn fn) {
  if (!name || !*name || !fn) return mlcrt_set_error("extern_register: a name and a function are required");
  mlcrt__register_builtin_externs();
  return mlcrt__extern_put(name, fn);
}

int mlcrt_extern_get(const char *name, MlcrtExtern *out) {
  if (!name) return mlcrt_set_error("extern_get: no name");
  mlcrt__register_builtin_externs();
  pthread_mutex_lock(&g_lock);
  int i = 0;
  while (i < g_n && strcmp(g_table[i].name, name) != 0) i++;
  if (i < g_n) *out = (MlcrtExtern){g_table[i].name, g_table[i].fn};
  pthread_mutex_unlock(&g_lock);
  if (i == g_n) return mlcrt_set_error("no extern function named '%s' is registered", name);
  return 0;
}
