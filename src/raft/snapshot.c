/* KIP-630 in the core: the leader tells a follower below its log start to
 * fetch a snapshot (Kafka's validateOffsetAndEpoch) and serves FetchSnapshot;
 * a follower transfers the snapshot chunk by chunk (SNAPSHOT_WRITE), has it
 * installed once complete (SNAPSHOT_INSTALL, then SNAPSHOT_INSTALLED) and
 * resumes fetching at its end. Invariants kept here:
 *  - LeaderNeverLoadSnapshot: INSTALL is emitted by a follower only, and an
 *    INSTALLED never reaches a leader (asserted);
 *  - a snapshot is installed only at or above the high watermark and never
 *    while a flush is out (the log is replaced wholesale);
 *  - a transfer whose leader, epoch or snapshot changes is dropped (ABORT)
 *    and starts again from a Fetch. */
#include "kq/assert.h"
#include "kq/kafka_errors.h"
#include "raft_internal.h"

bool raft_fetch_needs_snapshot(const raft *r, int64_t fetch_offset, int32_t last_epoch)
{
    if (r->log_start == 0 || r->latest_snapshot.end_offset < 0)
        return false;
    int32_t start_epoch = r->start_snapshot.epoch;
    return fetch_offset < r->log_start ||
           (fetch_offset == r->log_start && last_epoch != start_epoch) ||
           last_epoch < start_epoch;
}

static raft_msg snapshot_response(const raft *r, const raft_msg *m)
{
    raft_msg resp = {.type = RAFT_MSG_FETCH_SNAPSHOT_RESPONSE, .from = r->cfg.node_id,
                     .to = m->from, .token = m->token};
    raft_fetch_snapshot_response *f = &resp.u.fetch_snapshot_response;
    f->leader_id = r->q.leader_id;
    f->leader_epoch = r->q.epoch;
    f->snapshot_id = m->u.fetch_snapshot_request.snapshot_id;
    f->position = m->u.fetch_snapshot_request.position;
    f->size = -1;
    return resp;
}

void raft_on_fetch_snapshot_request(raft *r, const raft_msg *m, raft_output *out)
{
    const raft_fetch_snapshot_request *req = &m->u.fetch_snapshot_request;
    raft_msg resp = snapshot_response(r, m);
    raft_fetch_snapshot_response *f = &resp.u.fetch_snapshot_response;
    if (req->current_leader_epoch < r->q.epoch)
        f->partition_error = KAFKA_FENCED_LEADER_EPOCH;
    else if (req->current_leader_epoch > r->q.epoch)
        f->partition_error = KAFKA_UNKNOWN_LEADER_EPOCH;
    else if (r->role != RAFT_ROLE_LEADER)
        f->partition_error = KAFKA_NOT_LEADER_OR_FOLLOWER;
    else if (req->position < 0 || req->max_bytes < 0 || req->snapshot_id.end_offset < 0 ||
             req->snapshot_id.epoch < 0 || req->replica_id == r->cfg.node_id)
        f->partition_error = KAFKA_INVALID_REQUEST;
    if (f->partition_error == KAFKA_NONE) {
        /* A voter transferring a snapshot is in contact (check quorum), as
         * in KafkaRaftClient; its log end is not known to move. */
        raft_peer *p = raft_voter(r, req->replica_id);
        if (!p && req->replica_id >= 0)
            p = raft_observer(r, req->replica_id, true);
        if (p)
            p->last_fetch_ms = r->now_ms;
        if (raft_voter(r, req->replica_id)) /* its id, the first time */
            raft_dir_learn(r, out, req->replica_id, &req->replica_directory_id);
        int32_t max = req->max_bytes;
        if (max > (int32_t)r->cfg.fetch_snapshot_max_bytes)
            max = (int32_t)r->cfg.fetch_snapshot_max_bytes;
        f->read_max_bytes = max > 0 ? max : 1;
    }
    raft_out_send(out, &resp);
}

/* Whether a Fetch answer naming a snapshot answers the fetch in flight
 * (req): the leader names one only for an offset below its log start or an
 * epoch older than its snapshot's (a copy of an earlier answer, after an
 * install, asks for what we already have). Installing replaces the log, so
 * never below the high watermark, and never under a flush. */
bool raft_snapshot_answer_valid(const raft_outbound *req,
                                const raft_snapshot_id *id)
{
    if (id->end_offset <= 0 || id->epoch < 0)
        return false;
    return id->end_offset > req->fetch_offset || req->fetch_last_epoch < id->epoch ||
           (id->end_offset == req->fetch_offset && req->fetch_last_epoch != id->epoch);
}

bool raft_snapshot_can_begin(const raft *r, const raft_outbound *req, const raft_snapshot_id *id)
{
    return !r->flush_inflight && !req->fetch_keepalive && id->end_offset >= r->high_watermark &&
           r->role == RAFT_ROLE_FOLLOWER;
}

void raft_snapshot_begin(raft *r, raft_output *out, const raft_snapshot_id *id)
{
    r->fs_active = true;
    r->fs_installing = false;
    r->fs_id = *id;
    r->fs_position = 0;
    r->fs_size = -1;
    raft_out_reason(out, "fetching snapshot %lld-%d from leader %d",
                    (long long)id->end_offset, id->epoch, r->q.leader_id);
}

void raft_snapshot_drop(raft *r, raft_output *out)
{
    if (!r->fs_active)
        return;
    if (!r->fs_installing) {
        raft_action *a = raft_out_push(out, RAFT_ACTION_SNAPSHOT_ABORT);
        a->snapshot.id = r->fs_id;
    }
    /* An INSTALL already emitted is carried out; its INSTALLED still
     * applies (the log was replaced) whatever the role became. */
    r->fs_active = false;
}

bool raft_snapshot_request(raft *r, raft_output *out, raft_peer *p)
{
    raft_msg m = {.type = RAFT_MSG_FETCH_SNAPSHOT_REQUEST};
    m.u.fetch_snapshot_request = (raft_fetch_snapshot_request){
        .replica_id = r->cfg.node_id,
        .current_leader_epoch = r->q.epoch,
        .snapshot_id = r->fs_id,
        .position = r->fs_position,
        .max_bytes = (int32_t)r->cfg.fetch_snapshot_max_bytes,
        .replica_directory_id = r->cfg.directory_id,
    };
    if (!raft_request(r, out, p, &m))
        return false;
    p->out.fetch_offset = r->fs_position;
    return true;
}

static void transfer_failed(raft *r, raft_output *out, raft_peer *p, const char *why)
{
    raft_out_reason(out, "snapshot %lld-%d transfer restarts: %s",
                    (long long)r->fs_id.end_offset, r->fs_id.epoch, why);
    raft_snapshot_drop(r, out);
    p->out.retry_at_ms = r->now_ms + r->cfg.retry_backoff_ms;
}

/* A chunk that continues the transfer: written, and installed when it
 * completes the file. */
static void take_chunk(raft *r, raft_output *out, raft_peer *p,
                       const raft_fetch_snapshot_response *f)
{
    if (f->size <= 0 || f->size > (int64_t)KQ_SNAPSHOT_BYTES_MAX ||
        (r->fs_size >= 0 && f->size != r->fs_size) ||
        (int64_t)f->bytes_len > f->size - r->fs_position) {
        transfer_failed(r, out, p, "the snapshot changed size under the transfer");
        return;
    }
    r->fs_size = f->size;
    if (f->bytes_len > 0) {
        raft_action *a = raft_out_push(out, RAFT_ACTION_SNAPSHOT_WRITE);
        a->snapshot.id = r->fs_id;
        a->snapshot.position = r->fs_position;
        a->snapshot.bytes = f->bytes;
        a->snapshot.len = f->bytes_len;
        r->fs_position += (int64_t)f->bytes_len;
    }
    if (r->fs_position == r->fs_size) {
        KQ_ASSERT(r->role == RAFT_ROLE_FOLLOWER && !r->flush_inflight);
        raft_action *a = raft_out_push(out, RAFT_ACTION_SNAPSHOT_INSTALL);
        a->snapshot.id = r->fs_id;
        r->fs_installing = true;
    } else if (f->bytes_len == 0) {
        p->out.retry_at_ms = r->now_ms + r->cfg.retry_backoff_ms;
    }
}

void raft_on_fetch_snapshot_response(raft *r, const raft_msg *m, raft_output *out)
{
    const raft_fetch_snapshot_response *f = &m->u.fetch_snapshot_response;
    raft_peer *p = raft_fetch_peer(r, m->from, false);
    if (!p)
        return;
    if (raft_observe_leader(r, out, f->leader_id, f->leader_epoch))
        return;
    if (!raft_request_pending(r, p, RAFT_MSG_FETCH_SNAPSHOT_RESPONSE))
        return;
    bool from_leader = r->role == RAFT_ROLE_FOLLOWER && m->from == r->q.leader_id;
    if (from_leader && f->leader_epoch != r->q.epoch)
        return;
    int16_t err = f->error != KAFKA_NONE ? f->error : f->partition_error;
    if (err == KAFKA_NONE && from_leader && r->fs_active &&
        (f->snapshot_id.end_offset != r->fs_id.end_offset ||
         f->snapshot_id.epoch != r->fs_id.epoch || f->position != r->fs_position))
        return; /* answers an earlier request */
    raft_request_done(r, p, RAFT_MSG_FETCH_SNAPSHOT_RESPONSE);
    if (!from_leader || !r->fs_active || r->fs_installing) {
        p->out.retry_at_ms = r->now_ms + r->cfg.retry_backoff_ms;
        return;
    }
    if (err != KAFKA_NONE) {
        transfer_failed(r, out, p,
                        err == KAFKA_SNAPSHOT_NOT_FOUND ? "the leader no longer has it"
                        : err == KAFKA_POSITION_OUT_OF_RANGE ? "position out of range"
                                                              : "the leader refused");
        return;
    }
    r->fetch_deadline_ms = r->now_ms + raft_fetch_timeout(r);
    r->leader_contact_ms = r->now_ms;
    r->end_epoch_shortened = false;
    take_chunk(r, out, p, f);
}

void raft_on_snapshot_installed(raft *r, const raft_event *ev, raft_output *out)
{
    KQ_ASSERT(r->role != RAFT_ROLE_LEADER); /* LeaderNeverLoadSnapshot */
    bool was = r->fs_installing;
    r->fs_installing = false;
    r->fs_active = false;
    if (!ev->installed.ok || !was) {
        raft_out_reason(out, "snapshot install failed; fetching again");
        return;
    }
    raft_snapshot_id id = ev->installed.snapshot_id;
    KQ_ASSERT(id.end_offset >= r->high_watermark);
    r->end_offset = id.end_offset;
    r->flushed_offset = id.end_offset;
    r->ec.count = 0;
    r->ec.base_epoch = id.epoch;
    r->log_start = id.end_offset;
    r->start_snapshot = id;
    r->latest_snapshot = id;
    raft_voters_reset(r, out, ev->installed.voters); /* the snapshot's (KIP-853) */
    /* The leader's own committed state below its end. */
    r->fetch_verified_end = id.end_offset;
    raft_out_reason(out, "installed snapshot %lld-%d", (long long)id.end_offset, id.epoch);
    raft_follower_update_hw(r, out);
}

void raft_on_snapshots(raft *r, const raft_event *ev)
{
    KQ_ASSERT(ev->snapshots.start_offset >= 0 && ev->snapshots.start_offset <= r->end_offset);
    r->log_start = ev->snapshots.start_offset;
    r->start_snapshot = ev->snapshots.start_snapshot;
    r->latest_snapshot = ev->snapshots.latest_snapshot;
    if (r->log_start > 0 && r->ec.base_epoch < r->start_snapshot.epoch)
        r->ec.base_epoch = r->start_snapshot.epoch;
}
