/* The producer-state part of the executor (exec_produce.c): the one place
 * producer state is checked. Its state: kq_exec.producers. */
#ifndef KQ_EXEC_PRODUCE_H
#define KQ_EXEC_PRODUCE_H

#include "exec_state.h"

/* exec_produce.c: the one place producer state is checked and recorded. */
enum producer_verdict exec_check_producer(kq_exec *x, const kq_request_append *a,
                                          int64_t *dup_first);

#endif
