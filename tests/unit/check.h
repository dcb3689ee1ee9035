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
/* RUN_AS(name, call): call is one test, reported as name; RUN(fn) runs
 * fn() as the test "fn".  A table of same-shape cases runs each row (or
 * group of rows) with RUN_AS under the row's name. */
#define RUN_AS(name, call)                              \
  do {                                                  \
    check__name = (name);                               \
    check__failed_now = 0;                              \
    call;                                               \
    if (check__failed_now) check__failures++;           \
    else printf("ok %s\n", check__name);                \
  } while (0)
#define RUN(fn) RUN_AS(#fn, fn())
/* RUN_ROWS(rows, fn): a table of same-shape cases, fn(&row) each.  A row
 * with a name starts a test of that name; the rows after it without one
 * belong to the same test. */
#define RUN_ROWS(rows, fn)                                                              \
  for (size_t rows__i = 0; rows__i < sizeof(rows) / sizeof *(rows); rows__i++)         \
    if ((rows)[rows__i].name)                                                           \
    RUN_AS((rows)[rows__i].name, do {                                                   \
      size_t rows__j = rows__i;                                                         \
      do fn(&(rows)[rows__j]);                                                          \
      while (++rows__j < sizeof(rows) / sizeof *(rows) && !(rows)[rows__j].name);       \
    } while (0))
#define CHECK_DONE() (fflush(stdout), check__failures ? 1 : 0)

#endif
