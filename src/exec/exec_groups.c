/* The group store in the executor (issue 24; kq/group_store.h), fed as the
 * transaction table is (exec_txn.c): every batch this node appends and
 * every batch the rebuild scans from the latest snapshot on is noted, so
 * the store is the state at the log end. The handlers load a new
 * coordinator from it once every record in it lies below the high
 * watermark (group_store_last_offset). */
#include <inttypes.h>
#include <stdlib.h>

#include "exec_groups.h"
#include "exec_metrics.h"
#include "kq/group_store.h"
#include "kq/log_line.h"

exec_groups *exec_groups_create(void)
{
    exec_groups *g = calloc(1, sizeof(*g));
    if (!g)
        return NULL;
    g->store = group_store_create();
    if (!g->store) {
        free(g);
        return NULL;
    }
    return g;
}

void exec_groups_destroy(exec_groups *g)
{
    if (!g)
        return;
    group_store_destroy(g->store);
    free(g);
}

group_store *exec_groups_store(exec_groups *g)
{
    return g->store;
}

int exec_groups_note_batches(kq_exec *x, const uint8_t *batches, size_t len)
{
    group_store_skipped sk;
    int n = group_store_note_batches(x->groups->store, batches, len, &sk);
    /* Issue 19: a record of ours that passed its CRC but does not parse is
     * skipped, logged once per offset (a rebuild scans it again) and
     * counted; it never stops the node. */
    if (sk.count > 0 && sk.first_offset >= x->groups->unparsable_reported_next) {
        exec_metrics_unparsable_skipped(x, (uint64_t)sk.count);
        x->groups->unparsable_reported_next = group_store_noted_to(x->groups->store);
        log_line("node %d: skipped %d group-membership control record(s) that pass their CRC "
                 "but do not parse, the first at offset %" PRId64 " (%s); never applied",
                 x->cfg.node_id, sk.count, sk.first_offset, sk.reason);
    }
    return n;
}

void exec_groups_note(kq_exec *x, const uint8_t *batches, size_t len)
{
    if (exec_groups_note_batches(x, batches, len) < 0)
        exec_fatal(x, "cannot read the log's group membership",
                   "a batch is not whole, its offsets do not ascend or memory ran out");
}
