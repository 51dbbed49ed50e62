/* Serving Fetch as the leader: epoch validation, divergence detection with
 * the epoch cache, replica progress, and long polls parked until data is
 * flushed, the high watermark moves, or max_wait_ms passes; not parked at
 * all when the fetcher's high watermark is behind ours (KIP-1166). */
#include "kq/kafka_errors.h"
#include "raft_internal.h"

/* The peer a follower fetches from: its leader, a voter of the set in
 * force or not (KIP-853: a leader that removed itself leads until the
 * change commits, and a set learnt from a snapshot or an uncommitted
 * record may not name it yet); then kept with the observers. */
raft_peer *raft_fetch_peer(raft *r, int32_t id, bool create)
{
    raft_peer *p = raft_voter(r, id);
    return p ? p : raft_observer(r, id, create && id != r->cfg.node_id);
}

raft_peer *raft_observer(raft *r, int32_t id, bool create)
{
    for (int i = 0; i < r->observer_count; i++)
        if (r->observers[i].id == id)
            return &r->observers[i];
    if (!create || r->observer_count == RAFT_OBSERVERS_MAX)
        return NULL;
    raft_peer *p = &r->observers[r->observer_count++];
    *p = (raft_peer){.id = id, .end_offset = -1, .last_fetch_ms = -1,
                     .last_caught_up_ms = -1};
    return p;
}

/* The high watermark our answers tell: -1 from a leader until its epoch has
 * committed something, as Kafka's LeaderState (highWatermark() empty; the
 * Fetch answer says -1). The HW it knew as a follower may be below one a
 * follower already has, and Kafka's FollowerState.updateHighWatermark throws
 * on a high watermark that goes back. */
int64_t raft_told_hw(const raft *r)
{
    if (r->cfg.mutants & RAFT_MUTANT_TELL_HW_BEFORE_EPOCH_COMMIT)
        return r->high_watermark;
    return r->role == RAFT_ROLE_LEADER && !r->leader_hw_known ? -1 : r->high_watermark;
}

static raft_msg response_to(const raft *r, int32_t to, uint64_t token)
{
    raft_msg m = {.type = RAFT_MSG_FETCH_RESPONSE, .from = r->cfg.node_id, .to = to,
                  .token = token};
    raft_fetch_response *f = &m.u.fetch_response;
    f->high_watermark = raft_told_hw(r);
    f->leader_id = r->q.leader_id;
    f->leader_epoch = r->q.epoch;
    f->diverging_epoch = -1;
    f->diverging_end_offset = -1;
    f->read_offset = -1;
    f->read_end_offset = -1;
    f->snapshot_id = (raft_snapshot_id){.end_offset = -1, .epoch = -1};
    return m;
}

/* Records from fetch_offset up to what the leader may serve (its flushed end). */
static void fill_records(const raft *r, raft_fetch_response *f, int64_t fetch_offset,
                         int32_t max_bytes)
{
    int64_t end = raft_leader_serve_end(r);
    f->read_offset = fetch_offset;
    f->read_end_offset = end > fetch_offset ? end : fetch_offset;
    f->read_max_bytes = max_bytes;
}

static void answer_parked(raft *r, raft_output *out, const raft_parked_fetch *p)
{
    raft_msg m = response_to(r, p->replica_id, p->token);
    if (r->role == RAFT_ROLE_LEADER && r->q.epoch == p->epoch)
        fill_records(r, &m.u.fetch_response, p->fetch_offset, p->max_bytes);
    else
        m.u.fetch_response.partition_error = KAFKA_NOT_LEADER_OR_FOLLOWER;
    raft_out_send(out, &m);
}

static void park(raft *r, raft_output *out, const raft_msg *m)
{
    const raft_fetch_request *req = &m->u.fetch_request;
    for (int i = 0; i < r->parked_count; i++) {
        if (r->parked[i].replica_id == m->from) { /* it gave up on the old one */
            answer_parked(r, out, &r->parked[i]);
            r->parked[i] = r->parked[--r->parked_count];
            break;
        }
    }
    if (r->parked_count == RAFT_PARKED_FETCH_MAX) {
        raft_msg resp = response_to(r, m->from, m->token);
        fill_records(r, &resp.u.fetch_response, req->fetch_offset, req->max_bytes);
        raft_out_send(out, &resp);
        return;
    }
    r->parked[r->parked_count++] = (raft_parked_fetch){
        .token = m->token,
        .replica_id = m->from,
        .epoch = r->q.epoch,
        .fetch_offset = req->fetch_offset,
        .max_bytes = req->max_bytes,
        .expire_ms = r->now_ms + req->max_wait_ms,
        .hw_at_park = r->high_watermark,
    };
}

void raft_parked_service(raft *r, raft_output *out)
{
    bool leading = r->role == RAFT_ROLE_LEADER;
    int64_t end = raft_leader_serve_end(r);
    int kept = 0;
    for (int i = 0; i < r->parked_count; i++) {
        raft_parked_fetch p = r->parked[i];
        bool due = !leading || p.epoch != r->q.epoch || r->now_ms >= p.expire_ms ||
                   end > p.fetch_offset || r->high_watermark > p.hw_at_park;
        if (due && raft_out_has_room(r, out)) {
            answer_parked(r, out, &p);
            continue;
        }
        raft_wake(out, p.expire_ms);
        r->parked[kept++] = p;
    }
    r->parked_count = kept;
}

/* In KafkaRaftClient's order: handleFetchRequest's INVALID_REQUEST checks
 * (a negative wait, offset or last fetched epoch, a last fetched epoch above
 * the epoch the fetcher says it is in; ours also a negative max_bytes), then
 * validateLeaderOnlyRequest's epoch and role checks. */
static int16_t validate(const raft *r, const raft_fetch_request *req)
{
    if (req->fetch_offset < 0 || req->last_fetched_epoch < 0 || req->max_bytes < 0 ||
        req->max_wait_ms < 0 || req->last_fetched_epoch > req->current_leader_epoch)
        return KAFKA_INVALID_REQUEST;
    if (req->current_leader_epoch < r->q.epoch)
        return KAFKA_FENCED_LEADER_EPOCH;
    if (req->current_leader_epoch > r->q.epoch)
        return KAFKA_UNKNOWN_LEADER_EPOCH;
    if (r->role != RAFT_ROLE_LEADER)
        return KAFKA_NOT_LEADER_OR_FOLLOWER;
    return KAFKA_NONE;
}

/* The voter (KIP-853: id and directory id) or observer that fetches. A
 * voter's id fetching from another directory is an observer: not counted
 * toward the high watermark. */
static raft_peer *fetcher(raft *r, const raft_fetch_request *req)
{
    raft_peer *p = raft_voter(r, req->replica_id);
    if (p && (!raft_voters_dynamic(r) ||
              raft_is_voter_replica(r, req->replica_id, &req->replica_directory_id)))
        return p;
    return req->replica_id >= 0 ? raft_observer(r, req->replica_id, true) : NULL;
}

void raft_on_fetch_request(raft *r, const raft_msg *m, raft_output *out)
{
    const raft_fetch_request *req = &m->u.fetch_request;
    raft_msg resp = response_to(r, m->from, m->token);
    raft_fetch_response *f = &resp.u.fetch_response;

    int16_t err = validate(r, req);
    if (err == KAFKA_NONE && req->replica_id == r->cfg.node_id)
        err = KAFKA_INVALID_REQUEST;
    if (err != KAFKA_NONE) {
        f->partition_error = err;
        raft_out_send(out, &resp);
        return;
    }
    if (raft_fetch_needs_snapshot(r, req->fetch_offset, req->last_fetched_epoch)) {
        raft_peer *p = raft_voter(r, req->replica_id);
        if (p)
            p->last_fetch_ms = r->now_ms; /* in contact, far behind */
        f->snapshot_id = r->latest_snapshot;
        raft_out_send(out, &resp);
        return;
    }
    if (req->fetch_offset != 0 || req->last_fetched_epoch != 0) {
        int32_t epoch;
        int64_t end;
        raft_ec_end_for(&r->ec, req->last_fetched_epoch, r->end_offset, &epoch, &end);
        if (epoch != req->last_fetched_epoch || end < req->fetch_offset) {
            f->diverging_epoch = epoch;
            f->diverging_end_offset = end;
            raft_out_send(out, &resp);
            return;
        }
    }

    raft_peer *p = fetcher(r, req);
    if (p && raft_voter(r, req->replica_id) == p) {
        p->begin_acked = true; /* a fetch in this epoch acknowledges the leader */
        raft_dir_fetch_counts(r, out, p, &req->replica_directory_id, req->fetch_offset);
    }
    if (p) {
        p->fetch_dir = req->replica_directory_id;
        p->end_offset = req->fetch_offset;
        /* Caught up now if it has our end, or as of its last fetch if it
         * has what we had then (Kafka's ReplicaState: a replica trailing
         * a steady stream of appends by one round trip is caught up). */
        int64_t end = raft_leader_serve_end(r);
        if (req->fetch_offset >= end)
            p->last_caught_up_ms = r->now_ms;
        else if (p->last_fetch_leader_end > 0 && req->fetch_offset >= p->last_fetch_leader_end &&
                 p->last_fetch_ms > p->last_caught_up_ms)
            p->last_caught_up_ms = p->last_fetch_ms;
        p->last_fetch_leader_end = end;
        p->last_fetch_ms = r->now_ms;
    }
    raft_leader_update_hw(r, out);
    f->high_watermark = raft_told_hw(r);

    /* Kafka's handleFetchRequest answers at once when the fetcher's high
     * watermark is below ours (isHighWatermarkUpdated): it learns the new
     * one a round trip sooner than by waiting for data or the wait's end. */
    bool hw_news = req->high_watermark < raft_told_hw(r);
    if (req->fetch_offset >= raft_leader_serve_end(r) && req->max_wait_ms > 0 && !hw_news) {
        park(r, out, m);
        return;
    }
    fill_records(r, f, req->fetch_offset, req->max_bytes);
    raft_out_send(out, &resp);
}
