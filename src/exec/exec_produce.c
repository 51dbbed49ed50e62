/* Producer state: the one place it is checked (before a client append on
 * a leader). It is recorded by the coordinator as the log changes
 * (exec_log_append, exec_rebuild_producers in exec_rebuild.c). */

#include "exec_produce.h"

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
    return producer_state_check(x->producers, a->producer_id, a->producer_epoch,
                                a->base_sequence, a->last_sequence, dup_first);
}
