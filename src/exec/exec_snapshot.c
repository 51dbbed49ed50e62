/* Snapshots of this node's replicated state (KIP-630): when one is due, the
 * candidate (the producer table, producer-id maxima and voters at the log
 * end, encoded in Kafka's snapshot format by src/snapshot) is taken at once;
 * it is written only once the high watermark and the flushed offset cover
 * its end, so a snapshot never lies above the high watermark; once the job
 * made it durable it is published: the core learns it (it answers followers
 * below the log start with it) and retention may use it. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec_snapshot.h"
#include "kq/assert.h"
#include "kq/log_line.h"
#include "kq/mutants.h"
#include "kq/snapshot_file.h"
#include "kq/snapshot_state.h"

struct exec_snapshot_job {
    const kq_fs *fs;
    char log_dir[EXEC_PATH_BYTES_MAX];
    raft_snapshot_id id;
    int64_t timestamp_ms;
    uint8_t *data;
    size_t len;
    char err[256];
};

void exec_snapshot_job_free(struct exec_snapshot_job *job)
{
    free(job->data);
    free(job);
}

int exec_snapshot_job_run(struct exec_snapshot_job *job)
{
    int rc = kq_snapshot_write_file(job->fs, job->log_dir, job->id, job->data, job->len,
                                    job->err, sizeof(job->err));
    if (rc < 0)
        (void)kq_snapshot_part_abort(job->fs, job->log_dir, job->id); /* frees its space */
    return rc;
}

static uint64_t bytes_between(const kq_exec *x)
{
    return x->cfg.snapshot_bytes_between ? x->cfg.snapshot_bytes_between
                                         : EXEC_SNAPSHOT_BYTES_BETWEEN_DEFAULT;
}

static uint64_t interval_ms(const kq_exec *x)
{
    return x->cfg.snapshot_interval_ms ? x->cfg.snapshot_interval_ms
                                       : EXEC_SNAPSHOT_INTERVAL_MS_DEFAULT;
}

static raft_snapshot_id latest(const kq_exec *x)
{
    if (x->snap->count == 0)
        return (raft_snapshot_id){.end_offset = -1, .epoch = -1};
    return x->snap->files[x->snap->count - 1].id;
}

/* Epoch of the batch at offset - 1 (the log's epoch cache; the snapshot's
 * epoch when the log starts there). */
static int32_t epoch_before(kq_exec *x, int64_t offset)
{
    raft_epoch_entry e[RAFT_EPOCH_CACHE_MAX];
    int n = kq_log_epochs(x->log, e, RAFT_EPOCH_CACHE_MAX);
    for (int i = n - 1; i >= 0; i--)
        if (e[i].start_offset < offset)
            return e[i].epoch;
    for (int i = 0; i < x->snap->count; i++)
        if (x->snap->files[i].id.end_offset == kq_log_start_offset(x->log))
            return x->snap->files[i].id.epoch;
    return 0;
}

static void note_pid(exec_snapshots *s, int64_t pid)
{
    if (pid < 0)
        return;
    int32_t prefix = (int32_t)(pid >> EXEC_PRODUCER_ID_NODE_BITS);
    for (int i = 0; i < s->pid_max_count; i++) {
        if (s->pid_max[i].node_prefix == prefix) {
            if (pid > s->pid_max[i].max_id)
                s->pid_max[i].max_id = pid;
            return;
        }
    }
    if (s->pid_max_count < KQ_SNAPSHOT_PID_NODES_MAX)
        s->pid_max[s->pid_max_count++] = (kq_snapshot_pid_max){prefix, pid};
}

static int note_producer(void *ctx, int64_t pid, int16_t epoch,
                         const producer_batch_view *batches, int count)
{
    (void)epoch;
    (void)batches;
    (void)count;
    note_pid(ctx, pid);
    return 0;
}

static void fill_meta(kq_exec *x, const exec_tables *t, kq_snapshot_meta *m,
                      raft_snapshot_id id, int64_t ts)
{
    memset(m, 0, sizeof(*m));
    m->id = id;
    m->last_contained_timestamp_ms = ts;
    for (int i = 0; i < x->cfg.voter_count; i++)
        m->voter_ids[m->voter_count++] = x->cfg.voters[i].node_id;
    /* No static voters (a formatted kraft.version 1 directory, KIP-853):
     * the ids of the set in force at the snapshot's last offset. */
    const kq_voter_set *set = raft_voters(x->raft);
    if (x->cfg.voter_count == 0 && raft_voters_at(x->raft, id.end_offset - 1, &x->snap->cand_voters) &&
        x->snap->cand_voters.has_voters)
        set = &x->snap->cand_voters.voters;
    for (int i = 0; x->cfg.voter_count == 0 && i < set->count && i < RAFT_VOTERS_MAX; i++)
        m->voter_ids[m->voter_count++] = set->voters[i].id;
    producer_state_foreach(*t->producers, note_producer, x->snap);
    if (*t->pid_log_max >= 0)
        note_pid(x->snap, *t->pid_log_max);
    for (int i = 0; i < x->snap->pid_max_count; i++) {
        m->pid_max[i].node_prefix = x->snap->pid_max[i].node_prefix;
        m->pid_max[i].max_id = x->snap->pid_max[i].max_id;
    }
    m->pid_max_count = x->snap->pid_max_count;
}

/* The state at the log end, now: the candidate. */
static void take_candidate(kq_exec *x, const exec_tables *t)
{
    int64_t end = kq_log_end_offset(x->log);
    raft_snapshot_id id = {.end_offset = end, .epoch = epoch_before(x, end)};
    kq_snapshot_meta meta;
    fill_meta(x, t, &meta, id, exec_now(x));
    kq_writer_reset(&x->snap->cand_bytes);
    /* KIP-853: the voter state at its last contained offset, as Kafka's
     * RecordsSnapshotWriter puts it in the header's batch. */
    raft_voter_entry *voters = &x->snap->cand_voters;
    if (!raft_voters_at(x->raft, end - 1, voters))
        voters = NULL;
    int rc = kq_snapshot_encode_groups(*t->producers, t->offsets, t->txns, t->groups, &meta,
                                       voters, &x->snap->cand_bytes);
    if (rc != 0 || x->snap->cand_bytes.error) {
        /* Beyond KQ_SNAPSHOT_BYTES_MAX (a state the limits do not admit)
         * or out of memory: retried later, never fatal. */
        kq_writer_reset(&x->snap->cand_bytes);
        x->snap->last_taken_ms = exec_now(x);
        exec_snapshot_failed(x, "cannot encode a snapshot",
                             rc == -EINVAL ? "a state the encoder refuses"
                                           : "larger than the snapshot bound or out of memory",
                             0);
        return;
    }
    x->snap->cand = true;
    x->snap->cand_id = id;
    x->snap->cand_timestamp_ms = meta.last_contained_timestamp_ms;
    x->snap->bytes_since = 0;
    x->snap->last_taken_ms = exec_now(x);
}

static bool candidate_due(kq_exec *x)
{
    if (x->snap->cand || x->snap->job || !exec_snapshot_retry_allowed(x))
        return false;
    int64_t end = kq_log_end_offset(x->log);
    if (end <= latest(x).end_offset || end <= kq_log_start_offset(x->log))
        return false;
    if (x->snap->retry_backoff_ms > 0)
        return true; /* the last attempt failed: its backoff is over */
    if (x->snap->bytes_since >= bytes_between(x))
        return true;
    uint64_t iv = interval_ms(x);
    return iv != UINT64_MAX && exec_now(x) - x->snap->last_taken_ms >= (int64_t)iv;
}

static bool candidate_covered(kq_exec *x)
{
    if (x->cfg.mutants & KQ_MUTANT_SNAPSHOT_ABOVE_HW)
        return true; /* the bug: written at the log end, committed or not */
    raft_status st;
    raft_get_status(x->raft, &st);
    int64_t end = x->snap->cand_id.end_offset;
    return st.high_watermark >= end && kq_log_flushed_offset(x->log) >= end;
}

/* The job writing the candidate, handed to the coordinator to start. */
static struct exec_snapshot_job *make_job(kq_exec *x)
{
    struct exec_snapshot_job *job = calloc(1, sizeof(*job));
    if (!job) {
        x->snap->cand = false;
        exec_snapshot_failed(x, "cannot write a snapshot", "out of memory", -ENOMEM);
        return NULL;
    }
    job->fs = x->env.fs;
    snprintf(job->log_dir, sizeof(job->log_dir), "%s", x->log_dir);
    job->id = x->snap->cand_id;
    job->timestamp_ms = x->snap->cand_timestamp_ms;
    job->data = kq_writer_take(&x->snap->cand_bytes, &job->len);
    x->snap->cand = false;
    x->snap->job = job;
    if (x->env.on_snapshot)
        x->env.on_snapshot(x->env.ctx, job->id);
    return job;
}

raft_snapshot_id exec_snapshot_job_id(const struct exec_snapshot_job *job, int64_t *timestamp_ms)
{
    *timestamp_ms = job->timestamp_ms;
    return job->id;
}

int exec_snapshot_finished(kq_exec *x, struct exec_snapshot_job *job, int rc)
{
    KQ_ASSERT(job == x->snap->job);
    x->snap->job = NULL;
    if (!x->failed && rc != 0) {
        if (x->env.on_snapshot_failed)
            x->env.on_snapshot_failed(x->env.ctx, job->id, rc);
        exec_snapshot_failed(x, "cannot write a snapshot", job->err, rc);
        exec_snapshot_job_free(job);
        return -1;
    }
    if (!x->failed)
        exec_snapshot_succeeded(x);
    return !x->failed && !(x->cfg.mutants & KQ_MUTANT_DELETE_BEFORE_SNAPSHOT_DURABLE);
}

void exec_snapshot_written(kq_exec *x, struct exec_snapshot_job *job)
{
    if (!x->failed)
        log_line("node %d: snapshot %020" PRId64 "-%010d written (%zu bytes)", x->cfg.node_id,
                 job->id.end_offset, job->id.epoch, job->len);
    exec_snapshot_job_free(job);
}

void exec_snapshot_appended(kq_exec *x, size_t bytes)
{
    x->snap->bytes_since += bytes;
}

void exec_snapshot_truncated(kq_exec *x, int64_t offset)
{
    /* The candidate holds state of batches at or above the cut: never
     * written (the high watermark never reached it). */
    if (x->snap->cand && x->snap->cand_id.end_offset > offset)
        x->snap->cand = false;
}

struct exec_snapshot_job *exec_snapshot_settle(kq_exec *x, const exec_tables *t)
{
    if (x->failed)
        return NULL;
    if (candidate_due(x))
        take_candidate(x, t);
    if (!x->failed && x->snap->cand && !x->snap->job && candidate_covered(x))
        return make_job(x);
    return NULL;
}

bool exec_retention_due(kq_exec *x)
{
    if (x->failed || exec_now(x) < x->snap->retention_due_ms)
        return false;
    x->snap->retention_due_ms = exec_now(x) + EXEC_RETENTION_CHECK_MS;
    return true;
}

int64_t exec_snapshot_due(const kq_exec *x)
{
    int64_t due = x->snap->retention_due_ms;
    uint64_t iv = interval_ms(x);
    /* Only while a candidate could be taken: a due time that passed with
     * nothing to take would wake the loop at once, for ever. */
    int64_t end = kq_log_end_offset(x->log);
    bool takeable = !x->snap->cand && !x->snap->job && end > latest(x).end_offset &&
                    end > kq_log_start_offset(x->log);
    if (takeable && x->snap->retry_backoff_ms > 0) {
        /* The retry of a failed attempt, and nothing before it (the
         * interval's due time has passed already). */
        if (x->snap->retry_due_ms < due)
            due = x->snap->retry_due_ms;
    } else if (takeable && iv != UINT64_MAX) {
        int64_t t = x->snap->last_taken_ms + (int64_t)iv;
        if (t < due)
            due = t;
    }
    return due;
}

int exec_snapshot_count(const kq_exec *x)
{
    return x->snap->count;
}

bool exec_snapshot_latest(const kq_exec *x, raft_snapshot_id *id)
{
    if (x->snap->count == 0)
        return false;
    *id = x->snap->files[x->snap->count - 1].id;
    return true;
}

uint64_t exec_snapshot_failures(const kq_exec *x)
{
    return x->snap->failures;
}
