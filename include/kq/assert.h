/* Always-on assertions for what cannot happen (a full queue, a dropped
 * event, a broken contract between modules). Unlike assert(3) they stay in
 * release builds: a violated invariant stops the process with file, line
 * and the condition rather than continuing on a silent skip. */
#ifndef KQ_ASSERT_H
#define KQ_ASSERT_H

_Noreturn void kq_assert_fail(const char *file, int line, const char *what);

#define KQ_ASSERT(cond) \
    ((cond) ? (void)0 : kq_assert_fail(__FILE__, __LINE__, #cond))

#endif
