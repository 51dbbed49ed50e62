/* FetchSnapshot (KIP-630) in the executor. A follower carries out the
 * core's SNAPSHOT_WRITE (a chunk into the .part file), SNAPSHOT_ABORT (drop
 * it) and SNAPSHOT_INSTALL: the whole file is validated and decoded before
 * anything changes, made durable and renamed, then the log is reset to
 * start at its end and the producer state replaced; SNAPSHOT_INSTALLED
 * follows. A leader answers FetchSnapshot with a chunk read from the file. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec_snapshot.h"
#include "kq/assert.h"
#include "kq/group_offsets.h"
#include "kq/txn.h"
#include "kq/group_store.h"
#include "kq/kafka_errors.h"
#include "kq/log_line.h"
#include "kq/snapshot_file.h"
#include "kq/snapshot_state.h"

static void report(kq_exec *x, raft_snapshot_id id, bool ok)
{
    x->snap->installed = true;
    x->snap->install_ok = ok;
    x->snap->install_id = id;
}

/* The .part decoded into a fresh table; NULL (and the .part dropped) when
 * it fails validation. */
static producer_state *decode_part(kq_exec *x, raft_snapshot_id id, kq_snapshot_meta *meta,
                                   group_offsets *offsets, txn_table *txns,
                                   group_store *groups)
{
    uint8_t *data = NULL;
    size_t len = 0;
    int rc = kq_snapshot_part_read_all(x->env.fs, x->log_dir, id, &data, &len,
                                       KQ_SNAPSHOT_BYTES_MAX);
    if (rc < 0 && rc != -EFBIG) {
        exec_fatal(x, "cannot read a fetched snapshot", strerror(-rc));
        return NULL;
    }
    producer_state *ps = producer_state_create(EXEC_PRODUCERS_MAX);
    if (!ps) {
        free(data);
        exec_fatal(x, "cannot install a snapshot", "out of memory");
        return NULL;
    }
    char err[256] = "too large";
    if (rc < 0 || kq_snapshot_decode_groups(data, len, id, ps, offsets, txns, groups, meta,
                                            &x->snap->install_voters, err, sizeof(err)) != 0) {
        log_line("node %d: fetched snapshot %" PRId64 "-%d is invalid (%s); dropped, fetching "
                 "again", x->cfg.node_id, id.end_offset, id.epoch, err);
        producer_state_destroy(ps);
        ps = NULL;
        kq_snapshot_part_abort(x->env.fs, x->log_dir, id);
    }
    free(data);
    return ps;
}

/* Returns true when the snapshot was installed: the coordinator publishes
 * it (*timestamp_ms: its LastContainedLogTimestamp). */
static bool install(kq_exec *x, const exec_tables *t, raft_snapshot_id id,
                    int64_t *timestamp_ms)
{
    kq_snapshot_meta meta;
    group_offsets *offsets = group_offsets_create();
    txn_table *txns = txn_table_create();
    group_store *groups = group_store_create();
    producer_state *ps =
        offsets && txns && groups ? decode_part(x, id, &meta, offsets, txns, groups) : NULL;
    if (!ps) {
        group_offsets_destroy(offsets);
        txn_table_destroy(txns);
        group_store_destroy(groups);
        if (!offsets || !txns || !groups)
            exec_fatal(x, "cannot install a snapshot", "out of memory");
        else if (!x->failed)
            report(x, id, false);
        return false;
    }
    char err[512];
    int64_t old_end = kq_log_end_offset(x->log);
    if (kq_snapshot_part_commit(x->env.fs, x->log_dir, id, err, sizeof(err)) != 0 ||
        kq_log_reset(x->log, id.end_offset, err, sizeof(err)) != 0) {
        producer_state_destroy(ps);
        group_offsets_destroy(offsets);
        txn_table_destroy(txns);
        group_store_destroy(groups);
        exec_fatal(x, "cannot install a snapshot", err);
        return false;
    }
    producer_state_destroy(*t->producers);
    *t->producers = ps;
    group_offsets_swap(t->offsets, offsets); /* the handlers hold t->offsets */
    group_offsets_destroy(offsets);
    txn_table_swap(t->txns, txns); /* the handlers hold t->txns */
    txn_table_destroy(txns);
    group_store_swap(t->groups, groups); /* the handlers hold t->groups */
    group_store_destroy(groups);
    exec_snapshot_take_meta(x, t, &meta);
    x->snap->install_has_voters = meta.has_kraft_version;
    x->snap->cand = false; /* the state of the log it replaced */
    x->snap->bytes_since = 0;
    /* Every older one lies below the new log start. One of our own with
     * the same end (which the core's rules exclude) shares the file name
     * just committed: keep it out of the deletions. */
    for (int i = 0; i < x->snap->count && !x->failed;) {
        if (x->snap->files[i].id.end_offset == id.end_offset)
            x->snap->files[i] = x->snap->files[--x->snap->count];
        else
            exec_snapshot_forget(x, i);
    }
    log_line("node %d: installed snapshot %020" PRId64 "-%010d from the leader; the log (end "
             "%" PRId64 ") now starts there", x->cfg.node_id, id.end_offset, id.epoch, old_end);
    if (x->failed)
        return false;
    /* report first: it only sets what the follow-ups step after the output */
    report(x, id, true);
    *timestamp_ms = meta.last_contained_timestamp_ms;
    return true;
}

bool exec_snapshot_action(kq_exec *x, const raft_action *a, const exec_tables *t,
                          int64_t *timestamp_ms)
{
    char err[512];
    raft_snapshot_id id = a->snapshot.id;
    switch (a->type) {
    case RAFT_ACTION_SNAPSHOT_WRITE:
        if (kq_snapshot_part_write(x->env.fs, x->log_dir, id, a->snapshot.position,
                                   a->snapshot.bytes, a->snapshot.len, err, sizeof(err)) != 0)
            exec_fatal(x, "cannot write a fetched snapshot", err);
        break;
    case RAFT_ACTION_SNAPSHOT_ABORT:
        kq_snapshot_part_abort(x->env.fs, x->log_dir, id);
        break;
    case RAFT_ACTION_SNAPSHOT_INSTALL:
        return install(x, t, id, timestamp_ms);
    default:
        KQ_ASSERT(false);
    }
    return false;
}

bool exec_snapshot_followup(kq_exec *x, raft_event *ev)
{
    if (x->snap->installed) {
        x->snap->installed = false;
        ev->type = RAFT_EVENT_SNAPSHOT_INSTALLED;
        ev->installed.ok = x->snap->install_ok;
        ev->installed.snapshot_id = x->snap->install_id;
        /* KIP-853: its KRaftVersion and Voters records, at end_offset - 1 */
        ev->installed.voters = x->snap->install_ok && x->snap->install_has_voters
                                   ? &x->snap->install_voters
                                   : NULL;
        return true;
    }
    if (x->snap->tell_pending) {
        x->snap->tell_pending = false;
        exec_snapshots_event(x, ev);
        return true;
    }
    return false;
}

int16_t exec_snapshot_read_chunk(kq_exec *x, const raft_fetch_snapshot_response *f,
                                 kq_writer *out, int64_t *size)
{
    /* 0-0 is Kafka's bootstrap checkpoint: never replicated (KIP-853; a
     * Kafka leader answers it as not found too). */
    if (f->snapshot_id.end_offset == 0)
        return KAFKA_SNAPSHOT_NOT_FOUND;
    *size = kq_snapshot_size(x->env.fs, x->log_dir, f->snapshot_id);
    if (*size == -ENOENT)
        return KAFKA_SNAPSHOT_NOT_FOUND;
    ssize_t n = *size < 0 ? (ssize_t)*size
                          : kq_snapshot_read(x->env.fs, x->log_dir, f->snapshot_id, f->position,
                                             (size_t)f->read_max_bytes, out);
    if (n == -ENOENT)
        return KAFKA_SNAPSHOT_NOT_FOUND;
    if (n == -ERANGE)
        return KAFKA_POSITION_OUT_OF_RANGE;
    if (n < 0) {
        exec_fatal(x, "cannot read a snapshot", strerror((int)-n));
        return KAFKA_UNKNOWN_SERVER_ERROR;
    }
    for (int i = 0; i < x->snap->count; i++)
        if (x->snap->files[i].id.end_offset == f->snapshot_id.end_offset)
            x->snap->files[i].served_ms = exec_now(x);
    return KAFKA_NONE;
}

void exec_snapshot_answer(kq_exec *x, const raft_msg *msg)
{
    raft_msg m = *msg;
    raft_fetch_snapshot_response *f = &m.u.fetch_snapshot_response;
    kq_writer chunk;
    kq_writer_init(&chunk, KQ_SNAPSHOT_BYTES_MAX);
    int64_t size = -1;
    /* The chunk comes out of the response budget like a replica Fetch's log
     * data (issue 19 item 13): a grant of 0 answers the size and no bytes,
     * and the follower asks again after its backoff. */
    if (f->read_max_bytes > 0)
        f->read_max_bytes =
            (int32_t)handler_raft_grant(x->handler, m.token, (uint64_t)f->read_max_bytes);
    if (f->partition_error == KAFKA_NONE && f->error == KAFKA_NONE)
        f->partition_error = exec_snapshot_read_chunk(x, f, &chunk, &size);
    if (!x->failed) {
        f->size = size;
        f->bytes = chunk.data;
        f->bytes_len = f->partition_error == KAFKA_NONE ? chunk.len : 0;
        handler_send_raft_response(x->handler, &m);
    }
    kq_writer_free(&chunk);
}
