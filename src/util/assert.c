/* KQ_ASSERT's failure path: one line on stderr, then abort (a core dump
 * and, under the sanitizers, a stack trace). */
#include <stdio.h>
#include <stdlib.h>

#include "kq/assert.h"

_Noreturn void kq_assert_fail(const char *file, int line, const char *what)
{
    fprintf(stderr, "FATAL: assertion failed at %s:%d: %s\n", file, line, what);
    fflush(stderr);
    abort();
}
