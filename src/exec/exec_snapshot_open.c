/* The snapshots a node holds: found at start (a log that starts above 0
 * must have a snapshot ending exactly there, Kafka's SnapshotAtLogStart; a
 * snapshot ending beyond the log, an install the crash interrupted, resets
 * the log to it), published when a job made one durable, told to the core,
 * and the producer state loaded from the latest one. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec_snapshot.h"
#include "kq/assert.h"
#include "kq/log_line.h"
#include "kq/snapshot_file.h"
#include "kq/snapshot_state.h"

static int find(const kq_exec *x, int64_t end_offset)
{
    for (int i = 0; i < x->snap->count; i++)
        if (x->snap->files[i].id.end_offset == end_offset)
            return i;
    return -1;
}

void exec_snapshot_tell_later(kq_exec *x)
{
    x->snap->tell_pending = true; /* stepped after the output */
}

bool exec_snapshot_add(kq_exec *x, raft_snapshot_id id, int64_t timestamp_ms)
{
    if (find(x, id.end_offset) >= 0)
        return false;
    if (x->snap->count > 0 && id.end_offset < x->snap->files[x->snap->count - 1].id.end_offset) {
        /* Written while an install moved the log start past it: useless. */
        int rc = kq_snapshot_delete(x->env.fs, x->log_dir, id);
        if (rc < 0 && rc != -ENOENT)
            exec_fatal(x, "cannot delete a snapshot", strerror(-rc));
        return false;
    }
    if (x->snap->count == EXEC_SNAPSHOTS_MAX) {
        /* Keep the one at the log start and the newest: drop the oldest
         * step between them. */
        int i = x->snap->files[0].id.end_offset == kq_log_start_offset(x->log) ? 1 : 0;
        exec_snapshot_forget(x, i);
        if (x->failed)
            return false;
    }
    KQ_ASSERT(x->snap->count < EXEC_SNAPSHOTS_MAX &&
              (x->snap->count == 0 || id.end_offset > x->snap->files[x->snap->count - 1].id.end_offset));
    x->snap->files[x->snap->count++] =
        (exec_snapshot_file){.id = id, .timestamp_ms = timestamp_ms, .served_ms = -1};
    return true;
}

void exec_snapshots_event(const kq_exec *x, raft_event *ev)
{
    raft_log_state ls = {0};
    exec_snapshots_log_state(x, &ls);
    *ev = (raft_event){.type = RAFT_EVENT_SNAPSHOTS};
    ev->snapshots.start_offset = ls.start_offset;
    ev->snapshots.start_snapshot = ls.start_snapshot;
    ev->snapshots.latest_snapshot = ls.latest_snapshot;
}

void exec_snapshots_log_state(const kq_exec *x, raft_log_state *ls)
{
    int64_t start = kq_log_start_offset(x->log);
    ls->start_offset = start;
    ls->start_snapshot = (raft_snapshot_id){.end_offset = -1, .epoch = -1};
    ls->latest_snapshot = ls->start_snapshot;
    int i = start > 0 ? find(x, start) : -1;
    if (i >= 0)
        ls->start_snapshot = x->snap->files[i].id;
    if (x->snap->count > 0)
        ls->latest_snapshot = x->snap->files[x->snap->count - 1].id;
}

/* Reads and decodes snapshot id into ps, offsets and txns (NULL: only
 * checks it). */
static int load_file(kq_exec *x, raft_snapshot_id id, producer_state *ps,
                     group_offsets *offsets, txn_table *txns, group_store *groups,
                     kq_snapshot_meta *meta, char *err, size_t errlen)
{
    uint8_t *data = NULL;
    size_t len = 0;
    int rc = kq_snapshot_read_all(x->env.fs, x->log_dir, id, &data, &len, KQ_SNAPSHOT_BYTES_MAX);
    if (rc < 0) {
        snprintf(err, errlen, "cannot read it: %s", strerror(-rc));
        return rc;
    }
    rc = kq_snapshot_decode_groups(data, len, id, ps, offsets, txns, groups, meta, NULL, err,
                                   errlen);
    free(data);
    return rc;
}

void exec_snapshot_take_meta(kq_exec *x, const exec_tables *t, const kq_snapshot_meta *m)
{
    x->snap->pid_max_count = 0;
    for (int i = 0; i < m->pid_max_count && i < KQ_SNAPSHOT_PID_NODES_MAX; i++) {
        x->snap->pid_max[i].node_prefix = m->pid_max[i].node_prefix;
        x->snap->pid_max[i].max_id = m->pid_max[i].max_id;
        x->snap->pid_max_count++;
        if (exec_producer_id_is_ours(x, m->pid_max[i].max_id) &&
            m->pid_max[i].max_id > *t->pid_log_max)
            *t->pid_log_max = m->pid_max[i].max_id;
    }
}

int64_t exec_snapshot_load_producers(kq_exec *x, const exec_tables *t)
{
    if (x->snap->count == 0)
        return -1;
    raft_snapshot_id id = x->snap->files[x->snap->count - 1].id;
    if (id.end_offset < kq_log_start_offset(x->log) || id.end_offset > kq_log_end_offset(x->log))
        return -1;
    char err[256];
    kq_snapshot_meta meta;
    if (load_file(x, id, *t->producers, t->offsets, t->txns, t->groups, &meta, err,
                  sizeof(err)) != 0) {
        char path[EXEC_PATH_BYTES_MAX];
        kq_snapshot_path(path, sizeof(path), x->log_dir, id, false);
        exec_fatal(x, "cannot load the latest snapshot", err);
        return -1;
    }
    exec_snapshot_take_meta(x, t, &meta);
    return id.end_offset;
}

/* Every snapshot file is checked (they were fsync'd before they got their
 * name: one that fails is corruption of flushed data). */
static bool load_list(kq_exec *x, char *err, size_t errlen)
{
    raft_snapshot_id ids[EXEC_SNAPSHOTS_MAX];
    int n = kq_snapshot_list(x->env.fs, x->log_dir, ids, EXEC_SNAPSHOTS_MAX, true);
    if (n < 0) {
        snprintf(err, errlen, "refusing to start: cannot list the snapshots: %s", strerror(-n));
        return false;
    }
    for (int i = 0; i < n; i++) {
        /* 0-0 is Kafka's bootstrap snapshot (a formatted directory, KIP-853):
         * no state of ours ends at offset 0 (a candidate needs an append),
         * and the daemon checked it before start (src/daemon/format_check.c). */
        if (ids[i].end_offset == 0)
            continue;
        kq_snapshot_meta meta;
        char why[256];
        if (load_file(x, ids[i], NULL, NULL, NULL, NULL, &meta, why, sizeof(why)) != 0) {
            char path[EXEC_PATH_BYTES_MAX];
            kq_snapshot_path(path, sizeof(path), x->log_dir, ids[i], false);
            snprintf(err, errlen, "refusing to start: corrupt snapshot %s: %s", path, why);
            return false;
        }
        x->snap->files[x->snap->count++] = (exec_snapshot_file){
            .id = ids[i], .timestamp_ms = meta.last_contained_timestamp_ms, .served_ms = -1};
    }
    return true;
}

bool exec_snapshots_open(kq_exec *x, char *err, size_t errlen)
{
    kq_writer_init(&x->snap->cand_bytes, KQ_SNAPSHOT_BYTES_MAX);
    x->snap->last_taken_ms = exec_now(x);
    if (!load_list(x, err, errlen))
        return false;
    int64_t end = kq_log_end_offset(x->log);
    if (x->snap->count > 0 && x->snap->files[x->snap->count - 1].id.end_offset > end) {
        raft_snapshot_id id = x->snap->files[x->snap->count - 1].id;
        char why[512];
        if (kq_log_reset(x->log, id.end_offset, why, sizeof(why)) != 0) {
            snprintf(err, errlen, "refusing to start: cannot finish installing snapshot %" PRId64
                     ": %s", id.end_offset, why);
            return false;
        }
        log_line("node %d: the log (end %" PRId64 ") now starts at snapshot %" PRId64
                 "-%d (an install the last run did not finish)", x->cfg.node_id, end,
                 id.end_offset, id.epoch);
    }
    int64_t start = kq_log_start_offset(x->log);
    if (start > 0 && find(x, start) < 0) {
        snprintf(err, errlen, "refusing to start: the log starts at offset %" PRId64
                 " but no snapshot ends there (SnapshotAtLogStart); its state is lost", start);
        return false;
    }
    return true;
}

exec_snapshots *exec_snapshots_create(void)
{
    return calloc(1, sizeof(exec_snapshots));
}

void exec_snapshots_destroy(exec_snapshots *s)
{
    free(s);
}

void exec_snapshots_close(kq_exec *x, bool abandon)
{
    if (!x->snap)
        return; /* exec_create ran out of memory first */
    kq_writer_free(&x->snap->cand_bytes);
    if (x->snap->job) {
        KQ_ASSERT(abandon); /* a job out at a clean close is a bug in the env */
        exec_snapshot_job_free(x->snap->job);
        x->snap->job = NULL;
    }
}
