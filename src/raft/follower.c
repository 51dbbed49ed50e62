/* Followers and observers: pull-based fetching (never above the own flushed
 * end, one Fetch in flight, none while the last response is still unflushed),
 * appending and truncating, and the BeginQuorumEpoch / EndQuorumEpoch
 * requests a leader sends to voters. */
#include "kq/kafka_errors.h"
#include "kq/record.h"
#include "raft_internal.h"

int64_t raft_fetch_position(const raft *r)
{
    return (r->cfg.mutants & RAFT_MUTANT_SKIP_FLUSH) ? r->end_offset : r->flushed_offset;
}

static raft_peer *pick_target(raft *r)
{
    if (r->role == RAFT_ROLE_FOLLOWER)
        return raft_voter(r, r->q.leader_id);
    /* An observer without a leader asks any voter; the answer names the leader. */
    raft_peer *eligible[RAFT_VOTERS_MAX];
    int n = 0;
    for (int i = 0; i < r->voter_count; i++) {
        raft_peer *p = &r->voters[i];
        if (p->out.inflight)
            return NULL;
        if (p->id != r->cfg.node_id && r->now_ms >= p->out.retry_at_ms)
            eligible[n++] = p;
    }
    return n ? eligible[raft_prng_below(r, (uint32_t)n)] : NULL;
}

void raft_maybe_fetch(raft *r, raft_output *out)
{
    bool seeking = !r->is_voter && (r->role == RAFT_ROLE_UNATTACHED || r->role == RAFT_ROLE_VOTED);
    if (r->role != RAFT_ROLE_FOLLOWER && !seeking)
        return;
    if (!(r->cfg.mutants & RAFT_MUTANT_SKIP_FLUSH) && r->flushed_offset < r->end_offset)
        return; /* FLUSHED of the last response comes first */
    raft_peer *p = pick_target(r);
    if (!p || !raft_can_request(r, p, out))
        return;
    int64_t pos = raft_fetch_position(r);
    raft_msg m = {.type = RAFT_MSG_FETCH_REQUEST};
    m.u.fetch_request = (raft_fetch_request){
        .replica_id = r->cfg.node_id,
        .current_leader_epoch = r->q.epoch,
        .fetch_offset = pos,
        .last_fetched_epoch = pos > 0 ? raft_ec_epoch_of(&r->ec, pos - 1) : 0,
        .max_wait_ms = (int32_t)r->cfg.fetch_max_wait_ms,
        .max_bytes = (int32_t)r->cfg.fetch_max_bytes,
    };
    r->fetch_offset_sent = pos;
    r->fetch_target = p->id;
    raft_request(r, out, p, &m);
}

void raft_poll_follower(raft *r, raft_output *out)
{
    if (r->now_ms >= r->fetch_deadline_ms) {
        if (r->is_voter)
            raft_become_candidate(r, out, "fetch timeout");
        else
            raft_become_unattached(r, out, r->q.epoch, "fetch timeout");
        return;
    }
    raft_maybe_fetch(r, out);
    raft_wake(out, r->fetch_deadline_ms);
}

void raft_follower_update_hw(raft *r, raft_output *out)
{
    if (r->role != RAFT_ROLE_FOLLOWER || r->leader_hw < 0)
        return;
    int64_t pos = raft_fetch_position(r);
    raft_set_hw(r, out, r->leader_hw < pos ? r->leader_hw : pos);
}

/* Mirrors how Kafka truncates to a diverging epoch: to the smaller of the
 * leader's end for that epoch and ours. */
static void truncate_diverging(raft *r, raft_output *out, raft_peer *leader, int32_t epoch,
                               int64_t end)
{
    int64_t offset;
    if (epoch == 0) {
        offset = end < r->end_offset ? end : r->end_offset;
    } else {
        int32_t local_epoch;
        int64_t local_end;
        raft_ec_end_for(&r->ec, epoch, r->end_offset, &local_epoch, &local_end);
        offset = local_epoch == epoch && end < local_end ? end : local_end;
    }
    if (offset < r->high_watermark) {
        /* Committed data never goes: refuse and retry later. */
        leader->out.retry_at_ms = r->now_ms + r->cfg.retry_backoff_ms;
        return;
    }
    raft_truncate(r, out, offset);
}

/* Appends the whole batches at the start of data that continue our log.
 * Returns false if the first batch does not start where we asked. */
static bool append_records(raft *r, raft_output *out, const uint8_t *data, size_t len,
                           int32_t leader_epoch)
{
    if (r->fetch_offset_sent != r->end_offset)
        return false;
    size_t pos = 0;
    int64_t next = r->end_offset;
    while (pos < len) {
        record_batch_header h;
        if (record_batch_parse_header(data + pos, len - pos, &h) != RECORD_OK)
            break; /* a partial batch at the end (max_bytes) or garbage */
        if (h.base_offset != next || h.last_offset_delta < 0 ||
            h.partition_leader_epoch < raft_ec_last_epoch(&r->ec) ||
            h.partition_leader_epoch > leader_epoch)
            break;
        raft_ec_append(&r->ec, h.partition_leader_epoch, h.base_offset);
        next = record_batch_last_offset(&h) + 1;
        pos += record_batch_size(&h);
    }
    if (pos == 0)
        return len == 0;
    raft_action *a = raft_out_push(out, RAFT_ACTION_APPEND);
    if (!a)
        return false;
    a->append.records = data;
    a->append.len = pos;
    a->append.base_offset = -1;
    a->append.epoch = -1;
    r->end_offset = next;
    return true;
}

void raft_on_fetch_response(raft *r, const raft_msg *m, raft_output *out)
{
    const raft_fetch_response *f = &m->u.fetch_response;
    raft_peer *p = raft_voter(r, m->from);
    if (!p || !raft_request_done(p, RAFT_MSG_FETCH_RESPONSE))
        return; /* not an answer we wait for */
    int16_t err = f->error != KAFKA_NONE ? f->error : f->partition_error;
    if (raft_observe_leader(r, out, f->leader_id, f->leader_epoch))
        return;
    if (err != KAFKA_NONE || r->role != RAFT_ROLE_FOLLOWER || m->from != r->q.leader_id ||
        f->leader_epoch != r->q.epoch) {
        p->out.retry_at_ms = r->now_ms + r->cfg.retry_backoff_ms;
        return;
    }
    r->fetch_deadline_ms = r->now_ms + r->cfg.fetch_timeout_ms;
    if (f->diverging_epoch >= 0) {
        truncate_diverging(r, out, p, f->diverging_epoch, f->diverging_end_offset);
        return;
    }
    if (f->records_len > 0 && f->records &&
        !append_records(r, out, f->records, f->records_len, f->leader_epoch)) {
        p->out.retry_at_ms = r->now_ms + r->cfg.retry_backoff_ms; /* dropped */
        return;
    }
    if (f->high_watermark > r->leader_hw)
        r->leader_hw = f->high_watermark;
    raft_follower_update_hw(r, out);
}

static raft_msg epoch_response(const raft *r, const raft_msg *m, enum raft_msg_type type,
                               int16_t err)
{
    raft_msg resp = {.type = type, .from = r->cfg.node_id, .to = m->from, .token = m->token};
    raft_epoch_response *e = &resp.u.begin_epoch_response; /* same layout for both */
    e->partition_error = err;
    e->leader_id = r->q.leader_id;
    e->leader_epoch = r->q.epoch;
    return resp;
}

static int16_t validate_voter_request(const raft *r, int32_t epoch, int32_t leader_id)
{
    if (epoch < r->q.epoch)
        return KAFKA_FENCED_LEADER_EPOCH;
    if (!r->is_voter || !raft_voter((raft *)r, leader_id) || leader_id == r->cfg.node_id)
        return KAFKA_INCONSISTENT_VOTER_SET;
    return KAFKA_NONE;
}

void raft_on_begin_epoch_request(raft *r, const raft_msg *m, raft_output *out)
{
    const raft_begin_epoch_request *req = &m->u.begin_epoch_request;
    int16_t err = validate_voter_request(r, req->leader_epoch, req->leader_id);
    if (err == KAFKA_NONE) {
        bool newer = req->leader_epoch > r->q.epoch;
        bool leaderless = r->role == RAFT_ROLE_UNATTACHED || r->role == RAFT_ROLE_VOTED ||
                          r->role == RAFT_ROLE_CANDIDATE;
        if (newer || leaderless)
            raft_become_follower(r, out, req->leader_epoch, req->leader_id,
                                 "BeginQuorumEpoch");
        else if (r->q.leader_id != req->leader_id)
            err = KAFKA_INVALID_REQUEST; /* two leaders in one epoch: refuse */
    }
    raft_msg resp = epoch_response(r, m, RAFT_MSG_BEGIN_EPOCH_RESPONSE, err);
    raft_out_send(out, &resp);
}

/* Kafka's strict exponential backoff by position among preferred successors. */
static int64_t end_epoch_backoff(const raft *r, const raft_end_epoch_request *req)
{
    int n = req->preferred_count < 0 ? 0 : req->preferred_count;
    if (n > RAFT_VOTERS_MAX)
        n = RAFT_VOTERS_MAX;
    for (int i = 0; i < n; i++) {
        if (req->preferred_successors[i] != r->cfg.node_id)
            continue;
        if (i == 0)
            return 0;
        int shift = i - 1 > 20 ? 20 : i - 1;
        uint64_t ms = (uint64_t)r->cfg.retry_backoff_ms << shift;
        return ms < r->cfg.election_backoff_max_ms ? (int64_t)ms
                                                   : (int64_t)r->cfg.election_backoff_max_ms;
    }
    return r->cfg.election_backoff_max_ms;
}

void raft_on_end_epoch_request(raft *r, const raft_msg *m, raft_output *out)
{
    const raft_end_epoch_request *req = &m->u.end_epoch_request;
    int16_t err = validate_voter_request(r, req->leader_epoch, req->leader_id);
    if (err == KAFKA_NONE) {
        if (req->leader_epoch > r->q.epoch)
            raft_become_follower(r, out, req->leader_epoch, req->leader_id,
                                 "EndQuorumEpoch in a newer epoch");
        if (r->role == RAFT_ROLE_FOLLOWER && r->q.leader_id == req->leader_id) {
            int64_t at = r->now_ms + end_epoch_backoff(r, req);
            if (at < r->fetch_deadline_ms)
                r->fetch_deadline_ms = at;
            raft_out_reason(out, "leader %d resigned epoch %d", req->leader_id,
                            req->leader_epoch);
        }
    }
    raft_msg resp = epoch_response(r, m, RAFT_MSG_END_EPOCH_RESPONSE, err);
    raft_out_send(out, &resp);
}
