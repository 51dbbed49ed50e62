/* Committed group offsets in the executor (issue 12; kq/group_offsets.h).
 * Every batch this node appends (as leader or follower) and every batch the
 * rebuild scans from the latest snapshot on is noted, so the table's pending
 * commits mirror the log; after every entry point the commits below the high
 * watermark are applied, before the handlers answer what is waiting (an
 * OffsetCommit is answered only once its record is applied here). */
#include <inttypes.h>
#include <stdlib.h>

#include "exec_metrics.h"
#include "exec_offsets.h"
#include "kq/group_offsets.h"
#include "kq/log_line.h"
#include "kq/mutants.h"

exec_offsets *exec_offsets_create(uint32_t mutants)
{
    exec_offsets *o = calloc(1, sizeof(*o));
    if (!o)
        return NULL;
    o->table = group_offsets_create();
    if (!o->table) {
        free(o);
        return NULL;
    }
    if (mutants & KQ_MUTANT_ABORT_KEEPS_OFFSETS)
        group_offsets_test_abort_keeps(o->table, true);
    if (mutants & KQ_MUTANT_RUN_END_UNCOMMITTED)
        group_offsets_test_run_end_uncommitted(o->table, true);
    return o;
}

void exec_offsets_destroy(exec_offsets *o)
{
    if (!o)
        return;
    group_offsets_destroy(o->table);
    free(o);
}

group_offsets *exec_offsets_table(exec_offsets *o)
{
    return o->table;
}

int exec_offsets_note_batches(kq_exec *x, const uint8_t *batches, size_t len)
{
    group_offsets_skipped sk;
    int n = group_offsets_note_batches_skipping(x->offsets->table, batches, len, &sk);
    /* Issue 19: a record of ours that passed its CRC but does not parse is
     * skipped, logged once per offset (a rebuild scans it again) and
     * counted; it never stops the node. */
    if (sk.count > 0 && sk.last_offset >= x->offsets->unparsable_reported_next) {
        exec_metrics_unparsable_skipped(x, (uint64_t)sk.count);
        x->offsets->unparsable_reported_next = sk.last_offset + 1;
        log_line("node %d: skipped %d offset-commit control record(s) that pass their CRC but "
                 "do not parse, the first at offset %" PRId64 " (%s); never applied",
                 x->cfg.node_id, sk.count, sk.first_offset, sk.reason);
    }
    return n;
}

void exec_offsets_note(kq_exec *x, const uint8_t *batches, size_t len)
{
    if (exec_offsets_note_batches(x, batches, len) < 0)
        exec_fatal(x, "cannot read the log's group offsets",
                   "a batch is not whole or its offset commits do not ascend");
}

/* A follower's high watermark may run ahead of its own log end: apply only
 * what it holds (the rest is noted when fetched, applied on the next call). */
void exec_offsets_settle(kq_exec *x)
{
    raft_status st;
    raft_get_status(x->raft, &st);
    int64_t hw = st.high_watermark;
    int64_t end = kq_log_end_offset(x->log);
    if (hw > end)
        hw = end;
    if (hw > group_offsets_committed_to(x->offsets->table))
        group_offsets_commit(x->offsets->table, hw);
}
