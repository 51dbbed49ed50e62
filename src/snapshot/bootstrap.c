/* Kafka's bootstrap snapshot (kq/bootstrap_snapshot.h): the control
 * records' values are written by the record module's KIP-853 codec
 * (control_voters.c) into the header's batch as control.c builds it. */
#include <stdlib.h>
#include <string.h>

#include "kq/bootstrap_snapshot.h"
#include "kq/record.h"
#include "snapshot_internal.h"

static bool args_ok(const kq_bootstrap *b)
{
    if (b->kraft_version != 0 && b->kraft_version != 1)
        return false;
    if (b->has_voters && (b->kraft_version != 1 || b->voters.count < 1 ||
                          b->voters.count > KQ_BOOTSTRAP_VOTERS_MAX))
        return false;
    return b->has_voters || b->voters.count == 0;
}

bool kq_bootstrap_encode(kq_writer *out, const kq_bootstrap *b)
{
    if (!args_ok(b))
        return false;
    /* The header's batch as in our own snapshots (control.c), at offset 0,
     * epoch 0: KRaftVersion and Voters only at kraft.version 1. */
    raft_voter_entry *e = NULL;
    if (b->kraft_version == 1) {
        e = calloc(1, sizeof(*e)); /* ~8.5 KB: not on the stack */
        if (!e)
            return false;
        e->offset = -1;
        e->kraft_version = 1;
        e->has_voters = b->has_voters;
        if (b->has_voters)
            e->voters = b->voters;
    }
    int n = !e ? 1 : e->has_voters ? 3 : 2;
    bool ok = snap_build_header_voters(out, 0, b->timestamp_ms, e) &&
              snap_build_footer(out, n, 0, b->timestamp_ms);
    free(e);
    return ok;
}
