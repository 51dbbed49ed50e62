/* The voter history at start (KIP-853, Kafka's VoterSetHistory): the
 * KRaftVersion and Voters records of the snapshot at the log start count
 * from its last contained offset (end_offset - 1); with no snapshot there,
 * those of Kafka's bootstrap checkpoint (0-0, never replicated) count from
 * -1; then every such record of the log from its own offset. Each entry
 * carries the other half of the one before it (a KRaftVersion record keeps
 * the voters, a Voters record the level), so any entry alone holds the
 * whole state and the oldest can be dropped when there are more than
 * RAFT_VOTER_HISTORY_MAX. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec_snapshot.h"
#include "kq/log.h"
#include "kq/bootstrap_snapshot.h"
#include "kq/record.h"
#include "kq/snapshot_file.h"
#include "kq/snapshot_state.h"

/* Appends e, dropping the oldest entry when full (each entry is whole). */
static void history_push(exec_snapshots *s, const raft_voter_entry *e)
{
    if (s->history_count == RAFT_VOTER_HISTORY_MAX) {
        memmove(&s->history[0], &s->history[1],
                sizeof(s->history[0]) * (RAFT_VOTER_HISTORY_MAX - 1));
        s->history_count--;
    }
    s->history[s->history_count++] = *e;
}

static const raft_voter_entry *history_last(const exec_snapshots *s)
{
    return s->history_count > 0 ? &s->history[s->history_count - 1] : NULL;
}

/* Kafka's bootstrap checkpoint, at kraft.version 1 only. */
static bool load_bootstrap(kq_exec *x, char *err, size_t errlen)
{
    raft_snapshot_id id = {.end_offset = 0, .epoch = 0};
    uint8_t *data = NULL;
    size_t len = 0;
    int rc = kq_snapshot_read_all(x->env.fs, x->log_dir, id, &data, &len, KQ_SNAPSHOT_BYTES_MAX);
    if (rc == -ENOENT)
        return true;
    kq_bootstrap *b = calloc(1, sizeof(*b));
    char why[512] = "out of memory";
    if (rc < 0)
        snprintf(why, sizeof why, "cannot read it: %s", strerror(-rc));
    else if (b)
        rc = kq_bootstrap_decode(data, len, b, why, sizeof why);
    free(data);
    if (rc != 0 || !b) {
        free(b);
        snprintf(err, errlen, "refusing to start: the bootstrap checkpoint: %s", why);
        return false;
    }
    raft_voter_entry *e = &x->snap->cand_voters; /* scratch */
    memset(e, 0, sizeof(*e));
    e->offset = -1;
    e->kraft_version = b->kraft_version;
    e->has_voters = b->has_voters;
    if (b->has_voters)
        e->voters = b->voters;
    if (b->kraft_version == 1)
        history_push(x->snap, e);
    free(b);
    return true;
}

/* The header batch of the snapshot ending at the log start. */
static bool load_snapshot(kq_exec *x, raft_snapshot_id id, char *err, size_t errlen)
{
    kq_writer w;
    kq_writer_init(&w, KQ_SNAPSHOT_BATCH_BYTES_MAX);
    ssize_t n = kq_snapshot_read(x->env.fs, x->log_dir, id, 0, KQ_SNAPSHOT_BATCH_BYTES_MAX, &w);
    char why[512];
    bool has = false;
    int rc = n < 0 ? (int)n : 0;
    if (rc < 0)
        snprintf(why, sizeof why, "cannot read it: %s", strerror(-rc));
    else
        rc = kq_snapshot_read_voters(w.data, w.len, id, &x->snap->cand_voters, &has, why,
                                     sizeof why);
    kq_writer_free(&w);
    if (rc != 0) {
        char path[EXEC_PATH_BYTES_MAX];
        kq_snapshot_path(path, sizeof path, x->log_dir, id, false);
        snprintf(err, errlen, "refusing to start: snapshot %s: %s", path, why);
        return false;
    }
    if (has)
        history_push(x->snap, &x->snap->cand_voters);
    return true;
}

typedef struct scan_ctx {
    kq_exec *x;
    const char *why; /* a record that does not parse */
    int64_t bad_offset;
} scan_ctx;

static int on_voter_record(void *vctx, int64_t offset, int type, kq_slice value)
{
    scan_ctx *c = vctx;
    exec_snapshots *s = c->x->snap;
    raft_voter_entry *e = &s->cand_voters; /* scratch */
    const raft_voter_entry *prev = history_last(s);
    if (prev)
        *e = *prev;
    else
        memset(e, 0, sizeof(*e));
    e->offset = offset;
    if (type == RECORD_CONTROL_KRAFT_VERSION) {
        c->why = record_parse_kraft_version(value, &e->kraft_version);
    } else if (type == RECORD_CONTROL_VOTERS) {
        c->why = record_parse_voters(value, &e->voters);
        e->has_voters = true;
        if (!prev)
            e->kraft_version = 1; /* a Voters record implies reconfiguration */
    } else {
        return 0;
    }
    if (c->why) {
        c->bad_offset = offset;
        return 1;
    }
    history_push(s, e);
    return 0;
}

/* Control batches only; the data batches are skipped unparsed. */
static int scan_batch(void *vctx, const uint8_t *batch, size_t len)
{
    record_batch_header h;
    if (record_batch_parse_header(batch, len, &h) != RECORD_OK || !record_batch_is_control(&h))
        return 0;
    int rc = record_scan_voter_records(batch, len, on_voter_record, vctx);
    return rc < 0 ? -EBADMSG : rc;
}

bool exec_voter_history_load(kq_exec *x, char *err, size_t errlen)
{
    x->snap->history_count = 0;
    int64_t start = kq_log_start_offset(x->log);
    raft_log_state ls = {0};
    exec_snapshots_log_state(x, &ls);
    if (start > 0 && ls.start_snapshot.end_offset == start) {
        if (!load_snapshot(x, ls.start_snapshot, err, errlen))
            return false;
    } else if (start == 0 && !load_bootstrap(x, err, errlen)) {
        return false;
    }
    if (start >= kq_log_end_offset(x->log))
        return true;
    scan_ctx c = {.x = x, .bad_offset = -1};
    int rc = kq_log_scan(x->log, start, scan_batch, &c);
    if (rc == 0)
        return true;
    char where[STORAGE_DESCRIBE_BYTES];
    kq_log_describe(x->log, c.bad_offset >= 0 ? c.bad_offset : start, where, sizeof where);
    snprintf(err, errlen, "refusing to start: reading the voter records of the log: %s: %s",
             where, c.why ? c.why : rc < 0 ? strerror(-rc) : "control batch does not iterate");
    return false;
}

const raft_voter_entry *exec_voter_history(const kq_exec *x, int *count)
{
    *count = x->snap->history_count;
    return x->snap->history;
}
