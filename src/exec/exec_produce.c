/* Client appends: the one place producer state is checked (before the
 * append) and recorded (when the core's APPEND action is carried out, and
 * from the log on start and after a truncation). */
#include <errno.h>
#include <string.h>

#include "exec_internal.h"
#include "kq/group_offsets.h"
#include "kq/record.h"

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

void exec_log_append(kq_exec *x, const raft_action *a)
{
    char err[512];
    uint8_t *data = (uint8_t *)a->append.records; /* request buffer, ours to rewrite */
    int64_t end_before = kq_log_end_offset(x->log);
    int rc = kq_log_append(x->log, data, a->append.len, a->append.base_offset, a->append.epoch,
                           err, sizeof(err));
    if (rc != 0) {
        exec_fatal(x, "cannot append to the log", err);
        return;
    }
    producer_state_record_batches(x->producers, data, a->append.len); /* recorded here only */
    exec_offsets_note(x, data, a->append.len);
    exec_snapshot_appended(x, a->append.len);
    int64_t fetched = a->append.base_offset < 0 ? kq_log_end_offset(x->log) - end_before : 0;
    exec_metrics_log_appended(x, a->append.len, fetched);
}

static int exec_rebuild_batch(void *ctx, const uint8_t *batch, size_t len)
{
    kq_exec *x = ctx;
    record_batch_header h;
    bool whole = record_batch_parse_header(batch, len, &h) == RECORD_OK;
    /* An offset-commit record that passed its CRC but does not parse is
     * skipped (issue 19); commits out of order fail the batch's checks:
     * refused or repaired as corruption (x->rebuild_next is the batch). A
     * batch below where the table starts (the scan begins at the batch
     * holding the snapshot's end) is already in the snapshot's state. */
    if (whole && h.base_offset >= group_offsets_committed_to(x->offsets) &&
        exec_offsets_note_batches(x, batch, len) < 0)
        return -EBADMSG;
    producer_state_record_batches(x->producers, batch, len);
    if (whole) {
        if (exec_producer_id_is_ours(x, h.producer_id) && h.producer_id > x->pid_log_max)
            x->pid_log_max = h.producer_id;
        x->rebuild_next = record_batch_last_offset(&h) + 1;
    }
    return 0;
}

/* From the latest snapshot and the log after it (bounded by the snapshot
 * interval); a log without one: its last EXEC_PRODUCER_REBUILD_BYTES. */
void exec_rebuild_producers(kq_exec *x)
{
    producer_state_clear(x->producers);
    int64_t from = exec_snapshot_load_producers(x); /* group offsets too */
    if (x->failed)
        return;
    if (from < 0) {
        from = kq_log_tail_start(x->log, EXEC_PRODUCER_REBUILD_BYTES);
        group_offsets_clear(x->offsets, from);
    }
    if (from >= kq_log_end_offset(x->log)) {
        x->rebuild_next = from;
        x->rebuild_rc = 0;
        return;
    }
    x->rebuild_next = from;
    int rc = kq_log_scan(x->log, from, exec_rebuild_batch, x);
    x->rebuild_rc = rc;
    if (rc < 0 && !x->rebuilding_at_start)
        exec_fatal(x, "cannot read the log to rebuild producer state", strerror(-rc));
}
