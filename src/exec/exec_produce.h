/* The producer-state part of the executor (exec_produce.c): the one place
 * producer state is checked. Its state: kq_exec.produce. */
#ifndef KQ_EXEC_PRODUCE_H
#define KQ_EXEC_PRODUCE_H

#include "exec_state.h"

/* The part's state (kq_exec.produce), touched only by exec_produce.c. */
typedef struct exec_produce {
    producer_state *table;
} exec_produce;

/* NULL: out of memory. Destroy takes NULL. */
exec_produce *exec_produce_create(void);
void exec_produce_destroy(exec_produce *p);
/* Records appended batches (the log, the rebuild), or forgets them all. */
void exec_produce_record(exec_produce *p, const uint8_t *batches, size_t len);
void exec_produce_clear(exec_produce *p);
/* Where the table is kept: a snapshot install replaces it (exec_tables). */
producer_state **exec_produce_table(exec_produce *p);

/* exec_produce.c: the one place producer state is checked and recorded. */
enum producer_verdict exec_check_producer(kq_exec *x, const kq_request_append *a,
                                          int64_t *dup_first);

#endif
