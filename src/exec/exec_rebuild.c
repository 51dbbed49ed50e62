/* The log and the parts that follow it, in the coordinator: the core's
 * APPEND action (the log, then producer state, group offsets, transactions,
 * the snapshot part's byte count and the metrics, each called down into),
 * and the rebuild of producer state, group offsets and the transaction
 * table from the latest snapshot and
 * the log after it (on start and after a truncation). */
#include <errno.h>
#include <string.h>

#include "exec_internal.h"
#include "kq/group_offsets.h"
#include "kq/mutants.h"
#include "kq/record.h"
#include "kq/txn.h"
#include "kq/group_store.h"

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
    exec_produce_record(x->produce, data, a->append.len); /* recorded here only */
    /* KQ_MUTANT_EXPIRY_RESURRECTS: a follower (fetched batches keep their
     * offsets: base_offset < 0) does not note tombstones. */
    bool resurrects = (x->cfg.mutants & KQ_MUTANT_EXPIRY_RESURRECTS) && a->append.base_offset < 0;
    if (resurrects)
        group_offsets_test_skip_tombstones(exec_offsets_table(x->offsets), true);
    exec_offsets_note(x, data, a->append.len);
    if (resurrects)
        group_offsets_test_skip_tombstones(exec_offsets_table(x->offsets), false);
    exec_txn_note(x, data, a->append.len);
    exec_groups_note(x, data, a->append.len);
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
    if (whole && h.base_offset >= group_offsets_committed_to(exec_offsets_table(x->offsets)) &&
        exec_offsets_note_batches(x, batch, len) < 0)
        return -EBADMSG;
    /* The same for the transaction table (it starts at the snapshot's end
     * too, or anywhere when it was cleared without one). */
    if (whole && h.base_offset >= txn_table_noted_to(exec_txn_table(x->txn)) &&
        exec_txn_note_batches(x, batch, len) < 0)
        return -EBADMSG;
    /* And for the group store (issue 24). */
    if (whole && h.base_offset >= group_store_noted_to(exec_groups_store(x->groups)) &&
        exec_groups_note_batches(x, batch, len) < 0)
        return -EBADMSG;
    exec_produce_record(x->produce, batch, len);
    if (whole) {
        if (exec_producer_id_is_ours(x, h.producer_id))
            exec_producer_ids_seen(x->pids, h.producer_id);
        x->rebuild_next = record_batch_last_offset(&h) + 1;
    }
    return 0;
}

/* From the latest snapshot and the log after it (bounded by the snapshot
 * interval); a log without one: its last EXEC_PRODUCER_REBUILD_BYTES. */
void exec_rebuild_producers(kq_exec *x)
{
    exec_produce_clear(x->produce);
    txn_table_clear(exec_txn_table(x->txn));
    group_store_clear(exec_groups_store(x->groups));
    exec_tables t = exec_tables_of(x);
    int64_t from = exec_snapshot_load_producers(x, &t); /* group offsets too */
    if (x->failed)
        return;
    exec_txn_prune(x);
    if (from < 0) {
        from = kq_log_tail_start(x->log, EXEC_PRODUCER_REBUILD_BYTES);
        group_offsets_clear(exec_offsets_table(x->offsets), from);
    }
    if (from >= kq_log_end_offset(x->log)) {
        x->rebuild_next = from;
        x->rebuild_rc = 0;
        return;
    }
    x->rebuild_next = from;
    bool resurrects = (x->cfg.mutants & KQ_MUTANT_EXPIRY_RESURRECTS) != 0;
    if (resurrects) /* the bug: the rebuilt table misses the tombstones */
        group_offsets_test_skip_tombstones(exec_offsets_table(x->offsets), true);
    int rc = kq_log_scan(x->log, from, exec_rebuild_batch, x);
    if (resurrects)
        group_offsets_test_skip_tombstones(exec_offsets_table(x->offsets), false);
    x->rebuild_rc = rc;
    if (rc < 0 && !x->rebuilding_at_start)
        exec_fatal(x, "cannot read the log to rebuild producer state", strerror(-rc));
}
