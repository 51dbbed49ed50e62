/* Followers and observers: pull-based fetching (never above the own flushed
 * end, one Fetch in flight, only keepalives while the last response is still
 * unflushed),
 * appending and truncating, and the BeginQuorumEpoch / EndQuorumEpoch
 * requests a leader sends to voters. */
#include <stdio.h>

#include "kq/kafka_errors.h"
#include "kq/record.h"
#include "raft_internal.h"

int64_t raft_fetch_position(const raft *r)
{
    return (r->cfg.mutants & RAFT_MUTANT_SKIP_FLUSH) ? r->end_offset : r->flushed_offset;
}

static raft_peer *pick_target(raft *r)
{
    if (r->role == RAFT_ROLE_FOLLOWER) { /* the leader, voter of our set or not (KIP-853) */
        r->seek_fallback = r->q.leader_id;
        return raft_fetch_peer(r, r->q.leader_id, true);
    }
    /* An observer without a leader asks a bootstrap server (KIP-853), or
     * without any, a voter; the answer names the leader. */
    raft_peer *eligible[RAFT_VOTERS_MAX + RAFT_BOOTSTRAP_SERVERS_MAX];
    int n = 0;
    bool bootstrap = r->cfg.bootstrap_count > 0;
    for (int i = bootstrap ? r->voter_count : 0;
         i < (bootstrap ? r->voter_count + r->cfg.bootstrap_count : r->voter_count); i++) {
        raft_peer *p = raft_peer_at(r, i);
        if (p->out.inflight)
            return NULL;
        if (p->id != r->cfg.node_id && r->now_ms >= p->out.retry_at_ms)
            eligible[n++] = p;
    }
    if (n)
        return eligible[raft_prng_below(r, (uint32_t)n)];
    /* No voter of our set but this node (a set that predates a disk
     * replacement or a change): the last leader followed. */
    return r->seek_fallback >= 0 && r->seek_fallback != r->cfg.node_id
               ? raft_fetch_peer(r, r->seek_fallback, true)
               : NULL;
}

/* Whether the next fetch is a keepalive: the last response is still being
 * flushed (its FLUSHED comes before the next real fetch), and the flush has
 * been out long enough. A keepalive asks from the flushed end, so it reports
 * only durable progress (KAFKA-10533) and keeps the leader's check-quorum and
 * our fetch timer fed through a slow fsync; its records are not appended (a
 * DivergingEpoch in its answer still truncates: below a flush that is still
 * running, which storage's truncation floor covers). Returns false when no
 * fetch may leave now. */
static bool fetch_allowed(raft *r, raft_output *out, bool *keepalive)
{
    *keepalive = false;
    if ((r->cfg.mutants & RAFT_MUTANT_SKIP_FLUSH) || r->flushed_offset >= r->end_offset)
        return true;
    if (!r->flush_inflight)
        return false; /* the FLUSH action comes at the end of this step */
    if (r->now_ms < r->flush_keepalive_at_ms) {
        raft_wake(out, r->flush_keepalive_at_ms);
        return false;
    }
    *keepalive = true;
    return true;
}

void raft_maybe_fetch(raft *r, raft_output *out)
{
    bool seeking = !r->is_voter && (r->role == RAFT_ROLE_UNATTACHED || r->role == RAFT_ROLE_VOTED);
    if (r->role != RAFT_ROLE_FOLLOWER && !seeking)
        return;
    bool keepalive;
    if (!fetch_allowed(r, out, &keepalive))
        return;
    raft_peer *p = pick_target(r);
    if (!p || !raft_can_request(r, p, out))
        return;
    if (r->fs_active) {
        if (!r->fs_installing && r->role == RAFT_ROLE_FOLLOWER)
            raft_snapshot_request(r, out, p);
        return;
    }
    int64_t pos = raft_fetch_position(r);
    raft_msg m = {.type = RAFT_MSG_FETCH_REQUEST};
    m.u.fetch_request = (raft_fetch_request){
        .replica_id = r->cfg.node_id,
        .current_leader_epoch = r->q.epoch,
        .fetch_offset = pos,
        .last_fetched_epoch = pos > 0 ? raft_ec_epoch_of(&r->ec, pos - 1) : 0,
        .max_wait_ms = keepalive ? 0 : (int32_t)r->cfg.fetch_max_wait_ms,
        .max_bytes = keepalive ? 0 : (int32_t)r->cfg.fetch_max_bytes,
        .replica_directory_id = r->cfg.directory_id,
        /* Our high watermark, -1 when unknown (KafkaRaftClient's
         * buildFetchRequest): a leader with a higher one answers at once
         * instead of holding the long poll (KIP-1166). */
        .high_watermark = r->high_watermark >= 0 ? r->high_watermark : -1,
    };
    r->fetch_target = p->id;
    if (!raft_request(r, out, p, &m))
        return;
    p->out.fetch_keepalive = keepalive;
    if (keepalive)
        r->flush_keepalive_at_ms = r->now_ms + raft_flush_keepalive_ms(r);
}

void raft_poll_follower(raft *r, raft_output *out)
{
    if (r->now_ms >= r->fetch_deadline_ms) {
        if (r->is_voter && r->end_epoch_shortened) {
            char why[96];
            snprintf(why, sizeof(why), "%s after EndQuorumEpoch from leader %d",
                     r->end_epoch_preferred ? "preferred successor" : "not a preferred successor",
                     r->q.leader_id);
            /* Still a pre-vote, as Kafka's pollFollowerAsVoter on the fetch
             * timeout EndQuorumEpoch shortened (transitionToProspective): a
             * leader cut off from the majority resigns too and tells only its
             * own side, which must not raise its epoch. The resigned leader
             * and the voters it told grant pre-votes at once (Kafka's
             * followers only once their own shortened timeout has passed). */
            raft_start_election(r, out, why);
        } else if (r->is_voter)
            raft_start_election(r, out, "fetch timeout");
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
    /* Only over what is flushed and what the leader confirmed: our flushed
     * tail may be our own, from an epoch we led, that this leader lacks (a
     * keepalive learns its HW before the flush ends). */
    int64_t pos = raft_fetch_position(r);
    if (pos > r->fetch_verified_end && !(r->cfg.mutants & RAFT_MUTANT_FOLLOWER_HW_UNVERIFIED))
        pos = r->fetch_verified_end;
    raft_set_hw(r, out, r->leader_hw < pos ? r->leader_hw : pos);
    /* A new directory has caught up once it holds the first high watermark
     * a leader told it: everything committed before it started. */
    if (r->q.new_directory && r->dir_catchup_hw < 0)
        r->dir_catchup_hw = r->leader_hw;
    if (r->q.new_directory && pos >= r->dir_catchup_hw)
        raft_dir_caught_up(r, out);
}

/* Mirrors how Kafka truncates to a diverging epoch: to the smaller of the
 * leader's end for that epoch and ours. */
static int64_t diverging_offset(const raft *r, int32_t epoch, int64_t end)
{
    if (epoch == 0)
        return end < r->end_offset ? end : r->end_offset;
    int32_t local_epoch;
    int64_t local_end;
    raft_ec_end_for(&r->ec, epoch, r->end_offset, &local_epoch, &local_end);
    return local_epoch == epoch && end < local_end ? end : local_end;
}

/* A fetched control batch's KRaftVersion and Voters records join the voter
 * history as it is appended (KIP-853: the latest set, committed or not, is
 * in force). False: not appended now (no room until the high watermark
 * moves, or records that do not parse: fetched again after the backoff). */
static bool follow_voter_records(raft *r, raft_output *out, const uint8_t *batch,
                                 const record_batch_header *h)
{
    const char *why = NULL;
    int n = raft_voters_scan(r, batch, record_batch_size(h), r->vh_scan, &why);
    if (n < 0) {
        out->rejected_batch_offset = h->base_offset;
        return false;
    }
    if (n > 0 && (!raft_voters_room(r) || r->vh_count + n > RAFT_VOTER_HISTORY_MAX))
        return false;
    for (int i = 0; i < n; i++)
        raft_voters_push(r, out, &r->vh_scan[i]);
    return true;
}

/* Appends the whole batches at the start of data that continue our log at
 * fetch_offset. Returns false if nothing usable starts there. */
static bool append_records(raft *r, raft_output *out, int64_t fetch_offset,
                           const uint8_t *data, size_t len, int32_t leader_epoch)
{
    if (fetch_offset != r->end_offset)
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
        if (record_batch_size(&h) <= len - pos &&
            record_batch_check(data + pos, len - pos, &h) != RECORD_OK) {
            /* A whole batch failing its CRC: never appended; the fetch is
             * retried after the backoff (issue 8: no crash loop). */
            out->rejected_batch_offset = h.base_offset;
            break;
        }
        if (record_batch_is_control(&h) && !follow_voter_records(r, out, data + pos, &h))
            break;
        raft_ec_append(&r->ec, h.partition_leader_epoch, h.base_offset);
        next = record_batch_last_offset(&h) + 1;
        pos += record_batch_size(&h);
    }
    if (pos == 0)
        return false;
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

/* BaseOffset of the first batch (its first 8 bytes), or -1. */
static int64_t first_base_offset(const uint8_t *data, size_t len)
{
    if (!data || len < 8)
        return -1;
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v = v << 8 | data[i];
    return (int64_t)v;
}

/* Whether a successful response from our leader in our epoch can answer the
 * fetch in flight (req). Responses carry no request id; a duplicate or a late
 * answer to an earlier fetch must not count, or it would act on old data and
 * start a second fetch loop next to the one in flight. */
static bool answers_fetch(const raft *r, const raft_outbound *req, const raft_fetch_response *f)
{
    if (f->diverging_epoch >= 0) {
        /* The leader reports the largest epoch <= last_fetched_epoch and its
         * end, and only when our log does not hold up to fetch_offset. */
        if (f->diverging_epoch > req->fetch_last_epoch ||
            (f->diverging_epoch == req->fetch_last_epoch &&
             f->diverging_end_offset >= req->fetch_offset))
            return false;
        /* In one epoch the leader's log below what it confirmed to us never
         * changes: a divergence below that answers an older fetch. */
        int64_t to = diverging_offset(r, f->diverging_epoch, f->diverging_end_offset);
        return to >= r->fetch_verified_end && to >= r->high_watermark && to < r->end_offset;
    }
    if (f->records_len > 0) /* the leader reads from the offset asked */
        return first_base_offset(f->records, f->records_len) == req->fetch_offset;
    /* Empty: a long poll ends when it expires or the HW moves. An earlier,
     * unchanged answer is a copy, or the leader letting go of a fetch it holds
     * for us because a newer one arrived. */
    int64_t waited = r->now_ms - req->sent_ms;
    return f->high_watermark > r->leader_hw || waited * 2 >= req->fetch_max_wait_ms;
}

void raft_on_fetch_response(raft *r, const raft_msg *m, raft_output *out)
{
    const raft_fetch_response *f = &m->u.fetch_response;
    raft_peer *p = raft_peer_of(r, m->from);
    if (!p)
        return;
    if (raft_observe_leader(r, out, f->leader_id, f->leader_epoch))
        return; /* news of a newer epoch or leader, whatever it answers */
    if (!raft_request_pending(r, p, RAFT_MSG_FETCH_RESPONSE))
        return; /* no fetch in flight to it: a duplicate or a late answer */
    raft_outbound req = p->out;
    int16_t err = f->error != KAFKA_NONE ? f->error : f->partition_error;
    bool from_leader = r->role == RAFT_ROLE_FOLLOWER && m->from == r->q.leader_id;
    /* Our leader answers in our epoch: anything older is stale. */
    if (from_leader && f->leader_epoch != r->q.epoch)
        return;
    if (err != KAFKA_NONE || !from_leader) {
        raft_request_done(r, p, RAFT_MSG_FETCH_RESPONSE);
        p->out.retry_at_ms = r->now_ms + r->cfg.retry_backoff_ms;
        return;
    }
    if (f->snapshot_id.end_offset > 0) { /* KIP-630: take the leader's snapshot */
        if (!raft_snapshot_answer_valid(&req, &f->snapshot_id))
            return; /* a copy of an earlier answer */
        raft_request_done(r, p, RAFT_MSG_FETCH_RESPONSE);
        r->fetch_deadline_ms = r->now_ms + raft_fetch_timeout(r);
        r->leader_contact_ms = r->now_ms;
        if (raft_snapshot_can_begin(r, &req, &f->snapshot_id))
            raft_snapshot_begin(r, out, &f->snapshot_id);
        else
            p->out.retry_at_ms = r->now_ms + r->cfg.retry_backoff_ms;
        return;
    }
    if (!answers_fetch(r, &req, f))
        return;
    raft_request_done(r, p, RAFT_MSG_FETCH_RESPONSE);
    r->fetch_deadline_ms = r->now_ms + raft_fetch_timeout(r);
    r->leader_contact_ms = r->now_ms;
    r->end_epoch_shortened = false;
    if (f->diverging_epoch >= 0) {
        raft_truncate(r, out, diverging_offset(r, f->diverging_epoch, f->diverging_end_offset));
        return;
    }
    /* The leader checked our log up to fetch_offset before answering. */
    if (req.fetch_offset > r->fetch_verified_end)
        r->fetch_verified_end = req.fetch_offset;
    if (f->records_len > 0 && !req.fetch_keepalive) {
        if (!append_records(r, out, req.fetch_offset, f->records, f->records_len,
                            f->leader_epoch)) {
            p->out.retry_at_ms = r->now_ms + r->cfg.retry_backoff_ms; /* dropped */
            /* Our log up to fetch_offset is the leader's: its HW still says
             * what of it is committed, and folds the voter history below it
             * (a batch of voter records waits for that room: without it a
             * replica far behind, with more changes to fetch than the
             * history holds, never appended again). */
            if (f->high_watermark > r->leader_hw)
                r->leader_hw = f->high_watermark;
            raft_follower_update_hw(r, out);
            return;
        }
        r->fetch_verified_end = r->end_offset; /* the leader's own batches */
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
    if (leader_id == r->cfg.node_id || leader_id < 0)
        return KAFKA_INCONSISTENT_VOTER_SET;
    /* With the voter set in the log (KIP-853) ours may be behind the
     * leader's (a change we have not fetched yet names it): as Kafka, the
     * leader is followed whatever our set says, and we learn the set from
     * it. */
    if (raft_voters_dynamic(r))
        return KAFKA_NONE;
    if (!r->is_voter || !raft_voter((raft *)r, leader_id))
        return KAFKA_INCONSISTENT_VOTER_SET;
    return KAFKA_NONE;
}

void raft_on_begin_epoch_request(raft *r, const raft_msg *m, raft_output *out)
{
    const raft_begin_epoch_request *req = &m->u.begin_epoch_request;
    int16_t err = validate_voter_request(r, req->leader_epoch, req->leader_id);
    if (err == KAFKA_NONE && raft_dir_other_key(r, &req->voter_directory_id))
        err = KAFKA_INVALID_VOTER_KEY; /* for the directory we replaced */
    if (err == KAFKA_NONE) {
        bool newer = req->leader_epoch > r->q.epoch;
        bool leaderless = r->role == RAFT_ROLE_UNATTACHED || r->role == RAFT_ROLE_VOTED ||
                          r->role == RAFT_ROLE_CANDIDATE || r->role == RAFT_ROLE_PROSPECTIVE;
        if (newer || leaderless)
            raft_become_follower(r, out, req->leader_epoch, req->leader_id,
                                 "BeginQuorumEpoch");
        if (r->role == RAFT_ROLE_FOLLOWER && r->q.leader_id == req->leader_id)
            r->leader_contact_ms = r->now_ms;
        else if (r->q.leader_id != req->leader_id)
            err = KAFKA_INVALID_REQUEST; /* two leaders in one epoch: refuse */
    }
    raft_msg resp = epoch_response(r, m, RAFT_MSG_BEGIN_EPOCH_RESPONSE, err);
    raft_out_send(out, &resp);
}

/* Kafka's strict exponential backoff by position among preferred successors. */
static int64_t end_epoch_backoff(const raft *r, const raft_end_epoch_request *req,
                                 bool *preferred)
{
    *preferred = false;
    int n = req->preferred_count < 0 ? 0 : req->preferred_count;
    if (n > RAFT_VOTERS_MAX)
        n = RAFT_VOTERS_MAX;
    for (int i = 0; i < n; i++) {
        if (req->preferred_successors[i] != r->cfg.node_id)
            continue;
        *preferred = true;
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
            r->leader_resigned_epoch = r->q.epoch;
            bool preferred;
            int64_t at = r->now_ms + end_epoch_backoff(r, req, &preferred);
            if (at < r->fetch_deadline_ms) {
                r->fetch_deadline_ms = at;
                r->end_epoch_shortened = true;
                r->end_epoch_preferred = preferred;
            }
            raft_out_reason(out, "leader %d resigned epoch %d", req->leader_id,
                            req->leader_epoch);
        }
    }
    raft_msg resp = epoch_response(r, m, RAFT_MSG_END_EPOCH_RESPONSE, err);
    raft_out_send(out, &resp);
}
