/* Committed group offsets in the executor (issue 12; kq/group_offsets.h).
 * Every batch this node appends (as leader or follower) and every batch the
 * rebuild scans from the latest snapshot on is noted, so the table's pending
 * commits mirror the log; after every entry point the commits below the high
 * watermark are applied, before the handlers answer what is waiting (an
 * OffsetCommit is answered only once its record is applied here). */
#include "exec_internal.h"
#include "kq/group_offsets.h"

void exec_offsets_note(kq_exec *x, const uint8_t *batches, size_t len)
{
    if (group_offsets_note_batches(x->offsets, batches, len) < 0)
        exec_fatal(x, "cannot read the log's group offsets",
                   "an offset-commit control record does not parse");
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
    if (hw > group_offsets_committed_to(x->offsets))
        group_offsets_commit(x->offsets, hw);
}
