/* check.h - the smallest test harness: each TEST prints "ok NAME" or
 * "FAIL NAME: file:line: what", which tests/run.sh counts. */
#ifndef MLCC_TEST_CHECK_H
#define MLCC_TEST_CHECK_H
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int check__failed_now;
static int check__failures;

#define CHECK(cond)                                                              \
  do {                                                                           \
    if (!(cond)) {                                                               \
      if (!check__failed_now) printf("FAIL %s: %s:%d: %s\n", check__name, __FILE__, __LINE__, #cond); \
      check__failed_now = 1;                                                     \
    }                                                                            \
  } while (0)
#define CHECK_STR(a, b)                                                          \
  do {                                                                           \
    const char *check__a = (a), *check__b = (b);                                 \
    if (!check__a || !check__b || strcmp(check__a, check__b) != 0) {            \
      if (!check__failed_now)                                                    \
        printf("FAIL %s: %s:%d: \"%s\" != \"%s\"\n", check__name, __FILE__, __LINE__, \
               check__a ? check__a : "(null)", check__b ? check__b : "(null)"); \
      check__failed_now = 1;                                                     \
    }                                                                            \
  } while (0)

static const char *check__name = "";
#define RUN(fn)                                         \
  do {                                                  \
    check__name = #fn;                                  \
    check__failed_now = 0;                              \
    fn();                                               \
    if (check__failed_now) check__failures++;           \
    else printf("ok %s\n", #fn);                        \
  } while (0)
#define CHECK_DONE() (fflush(stdout), check__failures ? 1 : 0)

#endif
