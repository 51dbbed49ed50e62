/* Producer state: the one place it is checked (before a client append on
 * a leader). It is recorded by the coordinator as the log changes
 * (exec_log_append, exec_rebuild_producers in exec_rebuild.c). */

#include <stdlib.h>

#include "exec_produce.h"

exec_produce *exec_produce_create(void)
{
    exec_produce *p = calloc(1, sizeof(*p));
    if (!p)
        return NULL;
    p->table = producer_state_create(EXEC_PRODUCERS_MAX);
    if (!p->table) {
        free(p);
        return NULL;
    }
    return p;
}

void exec_produce_destroy(exec_produce *p)
{
    if (!p)
        return;
    producer_state_destroy(p->table);
    free(p);
}

void exec_produce_record(exec_produce *p, const uint8_t *batches, size_t len)
{
    producer_state_record_batches(p->table, batches, len);
}

void exec_produce_clear(exec_produce *p)
{
    producer_state_clear(p->table);
}

producer_state **exec_produce_table(exec_produce *p)
{
    return &p->table;
}

/* Idempotence (KIP-98): a retried batch is answered with its original
 * offsets (*dup_first) and not appended again; a gap or an old epoch is
 * refused. Only a leader's producer state is authoritative: the caller
 * checks on a leader only. */
enum producer_verdict exec_check_producer(kq_exec *x, const kq_request_append *a,
                                          int64_t *dup_first)
{
    *dup_first = -1;
    if (a->producer_id < 0)
        return PRODUCER_APPEND;
    return producer_state_check(x->produce->table, a->producer_id, a->producer_epoch,
                                a->base_sequence, a->last_sequence, dup_first);
}
