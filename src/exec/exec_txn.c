/* The transaction table in the executor (issue 23; kq/txn.h), fed as the
 * committed group offsets are (exec_offsets.c): every batch this node
 * appends and every batch the rebuild scans from the latest snapshot on is
 * noted, so the table is the state at the log end; after every entry point
 * the transactions whose markers are below the high watermark are settled
 * (the last stable offset), and retention prunes the aborted index. */
#include <inttypes.h>
#include <stdlib.h>

#include "exec_metrics.h"
#include "exec_txn.h"
#include "kq/log_line.h"
#include "kq/txn.h"

exec_txn *exec_txn_create(void)
{
    exec_txn *t = calloc(1, sizeof(*t));
    if (!t)
        return NULL;
    t->table = txn_table_create();
    if (!t->table) {
        free(t);
        return NULL;
    }
    return t;
}

void exec_txn_destroy(exec_txn *t)
{
    if (!t)
        return;
    txn_table_destroy(t->table);
    free(t);
}

txn_table *exec_txn_table(exec_txn *t)
{
    return t->table;
}

int exec_txn_note_batches(kq_exec *x, const uint8_t *batches, size_t len)
{
    txn_skipped sk;
    int n = txn_table_note_batches(x->txn->table, batches, len, &sk);
    /* Issue 19: a record of ours that passed its CRC but does not parse is
     * skipped, logged once per offset (a rebuild scans it again) and
     * counted; it never stops the node. */
    if (sk.count > 0 && sk.first_offset >= x->txn->unparsable_reported_next) {
        exec_metrics_unparsable_skipped(x, (uint64_t)sk.count);
        x->txn->unparsable_reported_next = txn_table_noted_to(x->txn->table);
        log_line("node %d: skipped %d transaction control record(s) that pass their CRC but "
                 "do not parse, the first at offset %" PRId64 " (%s); never applied",
                 x->cfg.node_id, sk.count, sk.first_offset, sk.reason);
    }
    return n;
}

void exec_txn_note(kq_exec *x, const uint8_t *batches, size_t len)
{
    if (exec_txn_note_batches(x, batches, len) < 0)
        exec_fatal(x, "cannot read the log's transactions",
                   "a batch is not whole, its offsets do not ascend or memory ran out");
}

/* A follower's high watermark may run ahead of its own log end: settle
 * only what it holds (as exec_offsets_settle). */
void exec_txn_settle(kq_exec *x)
{
    raft_status st;
    raft_get_status(x->raft, &st);
    int64_t hw = st.high_watermark;
    int64_t end = kq_log_end_offset(x->log);
    if (hw > end)
        hw = end;
    txn_table_settle(x->txn->table, hw);
}

void exec_txn_prune(kq_exec *x)
{
    txn_table_prune(x->txn->table, kq_log_start_offset(x->log));
}
