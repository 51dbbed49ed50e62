/* Maps the Raft RPCs between the wire (Vote, BeginQuorumEpoch,
 * EndQuorumEpoch, replica Fetch) and the core's own raft_msg structs, both
 * for requests peers send us and for requests we send them (FetchSnapshot's
 * own mapping is in fetch_snapshot.c; the dispatch by type is here). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "handler_internal.h"
#include "kq/log_line.h"
#include "kq/wire_begin_quorum_epoch.h"
#include "kq/wire_end_quorum_epoch.h"
#include "kq/wire_fetch.h"
#include "kq/wire_fetch_snapshot.h"
#include "kq/wire_vote.h"

#define RAFT_VOTE_VERSION 2 /* v2 carries PreVote (KIP-996) */
#define RAFT_BEGIN_EPOCH_VERSION 1
#define RAFT_END_EPOCH_VERSION 1
#define RAFT_FETCH_VERSION 18 /* v18 carries the follower's HighWatermark (KIP-1166) */

uint64_t raft_pending_add(handler *h, handler_request *req, bool fetch_topic_by_id)
{
    for (uint32_t i = 0; i < HANDLER_RAFT_PENDING_MAX; i++) {
        raft_pending *p = &h->raft_pending[i];
        if (p->in_use)
            continue;
        p->in_use = true;
        p->generation = ++h->raft_generation;
        p->slot = req->slot;
        p->api_key = req->header.api_key;
        p->api_version = req->header.api_version;
        p->correlation_id = req->header.correlation_id;
        p->fetch_topic_by_id = fetch_topic_by_id;
        return ((uint64_t)p->generation << 16) | (i + 1);
    }
    return 0;
}

raft_pending *raft_pending_take(handler *h, uint64_t token)
{
    uint32_t i = (uint32_t)(token & 0xffff);
    if (i == 0 || i > HANDLER_RAFT_PENDING_MAX)
        return NULL;
    raft_pending *p = &h->raft_pending[i - 1];
    if (!p->in_use || p->generation != (uint32_t)(token >> 16))
        return NULL;
    p->in_use = false;
    return p;
}

uint64_t handler_raft_grant(handler *h, uint64_t token, uint64_t want)
{
    uint32_t i = (uint32_t)(token & 0xffff);
    if (i == 0 || i > HANDLER_RAFT_PENDING_MAX)
        return 0;
    const raft_pending *p = &h->raft_pending[i - 1];
    if (!p->in_use || p->generation != (uint32_t)(token >> 16))
        return 0; /* answered already: nothing will be sent */
    return h->svc.slot_grant ? h->svc.slot_grant(h->svc.ctx, p->slot, want) : want;
}

/* Issue 9: a Raft RPC must name our cluster; Kafka lets a null one pass,
 * which let any client speak for the quorum without knowing the cluster. */
static bool cluster_id_matches(const handler *h, kq_slice id)
{
    return id.len >= 0 && kq_slice_eq_cstr(id, h->svc.cluster_id);
}

/* Answers a Raft request directly (without the core) with a top-level error. */
void reply_raft_error(handler *h, handler_request *req, int16_t error)
{
    handler_begin_response(h, &req->header);
    wire_error_response_encode(&h->out, req->header.api_key, req->header.api_version, error);
    handler_finish_response(h, req->slot);
}

bool cluster_id_checked(handler *h, handler_request *req, kq_slice id)
{
    if (cluster_id_matches(h, id))
        return true;
    LOG_LINE_LIMITED("request from %s: %s with cluster id %s%.*s%s, not %s; refused",
             h->svc.slot_peer(h->svc.ctx, req->slot), wire_api_name(req->header.api_key),
             id.len < 0 ? "null" : "\"", id.len > 0 ? (int)id.len : 0,
             id.len > 0 ? (const char *)id.ptr : "", id.len < 0 ? "" : "\"", h->svc.cluster_id);
    reply_raft_error(h, req, KAFKA_INCONSISTENT_CLUSTER_ID);
    return false;
}

/* Every caller checked the listener, the identity, the cluster id and the
 * partition: the request is accepted, and the transport may promote its
 * connection (a shared listener's peer, issue 19). */
void step_request(handler *h, handler_request *req, raft_msg *msg, bool by_id)
{
    if (h->svc.slot_quorum_accepted && msg->from >= 0) /* a peer, not an operator's tool */
        h->svc.slot_quorum_accepted(h->svc.ctx, req->slot, msg->from);
    msg->token = raft_pending_add(h, req, by_id);
    if (msg->token == 0) {
        reply_raft_error(h, req, KAFKA_REQUEST_TIMED_OUT);
        return;
    }
    msg->to = h->svc.node_id;
    h->decision->kind = HANDLER_RAFT_RECEIVE;
    h->decision->msg = *msg;
}

/* What every Raft request carries around its one partition. */
typedef struct raft_envelope {
    kq_slice cluster_id;
    kq_slice topic;
    int32_t partition;
    raft_msg msg;
} raft_envelope;

/* The request's only topic and partition: Raft RPCs name exactly one. */
#define ONE_PARTITION(b, env, p)                                                        \
    ((env)->cluster_id = (b).cluster_id, (b).topic_count == 1 &&                         \
                                             (b).topics[0].partition_count == 1 &&       \
                                             ((p) = &(b).topics[0].partitions[0],        \
                                              (env)->topic = (b).topics[0].topic_name,   \
                                              (env)->partition = (p)->partition_index, true))

static bool vote_envelope(handler *h, kq_reader *r, int16_t v, raft_envelope *env)
{
    wire_vote_request b;
    const wire_vote_partition *p = NULL;
    if (wire_vote_request_decode(r, v, &h->arena, &b) != 0 || !ONE_PARTITION(b, env, p))
        return false;
    env->msg.type = RAFT_MSG_VOTE_REQUEST;
    env->msg.from = p->candidate_id;
    env->msg.u.vote_request = (raft_vote_request){
        .candidate_epoch = p->candidate_epoch,
        .candidate_id = p->candidate_id,
        .last_epoch = p->last_offset_epoch,
        .last_epoch_end_offset = p->last_offset,
        .pre_vote = p->pre_vote,
        .candidate_directory_id = p->candidate_directory_id, /* v1+ */
        .voter_directory_id = p->voter_directory_id,
    };
    return true;
}

static bool begin_epoch_envelope(handler *h, kq_reader *r, int16_t v, raft_envelope *env)
{
    wire_begin_quorum_epoch_request b;
    const wire_begin_quorum_epoch_partition *p = NULL;
    if (wire_begin_quorum_epoch_request_decode(r, v, &h->arena, &b) != 0 ||
        !ONE_PARTITION(b, env, p))
        return false;
    env->msg.type = RAFT_MSG_BEGIN_EPOCH_REQUEST;
    env->msg.from = p->leader_id;
    env->msg.u.begin_epoch_request = (raft_begin_epoch_request){
        .leader_epoch = p->leader_epoch, .leader_id = p->leader_id,
        .voter_directory_id = p->voter_directory_id};
    return true;
}

static bool end_epoch_envelope(handler *h, kq_reader *r, int16_t v, raft_envelope *env)
{
    wire_end_quorum_epoch_request b;
    const wire_end_quorum_epoch_partition *p = NULL;
    if (wire_end_quorum_epoch_request_decode(r, v, &h->arena, &b) != 0 ||
        !ONE_PARTITION(b, env, p))
        return false;
    env->msg.type = RAFT_MSG_END_EPOCH_REQUEST;
    env->msg.from = p->leader_id;
    raft_end_epoch_request *e = &env->msg.u.end_epoch_request;
    e->leader_epoch = p->leader_epoch;
    e->leader_id = p->leader_id;
    /* v0 names successors by id, v1 as candidates with directory ids. */
    int32_t n = v == 0 ? p->preferred_successor_count : p->preferred_candidate_count;
    for (int32_t i = 0; i < n && e->preferred_count < RAFT_VOTERS_MAX; i++)
        e->preferred_successors[e->preferred_count++] =
            v == 0 ? p->preferred_successors[i] : p->preferred_candidates[i].candidate_id;
    return true;
}

void handle_raft_request(handler *h, handler_request *req, kq_reader *r)
{
    int16_t v = req->header.api_version;
    raft_envelope env = {.cluster_id = {NULL, -1}, .topic = {NULL, -1}, .partition = -1};
    bool ok = false;
    switch (req->header.api_key) {
    case WIRE_API_VOTE: ok = vote_envelope(h, r, v, &env); break;
    case WIRE_API_BEGIN_QUORUM_EPOCH: ok = begin_epoch_envelope(h, r, v, &env); break;
    case WIRE_API_END_QUORUM_EPOCH: ok = end_epoch_envelope(h, r, v, &env); break;
    default: break;
    }
    kq_slice cluster_id = env.cluster_id, topic = env.topic;
    int32_t partition = env.partition;
    raft_msg msg = env.msg;
    if (!ok) {
        LOG_LINE_LIMITED("request from %s: malformed %s v%d", h->svc.slot_peer(h->svc.ctx, req->slot),
                 wire_api_name(req->header.api_key), v);
        h->svc.reply_close(h->svc.ctx, req->slot, "malformed Raft request");
        return;
    }
    if (!quorum_request_allowed(h, req, msg.from) || !cluster_id_checked(h, req, cluster_id))
        return;
    if (!handler_is_metadata_topic(h, topic) || partition != 0) {
        /* Another Raft partition sharing our cluster id: never voted for or
         * followed (issue 8); Kafka answers INVALID_REQUEST. */
        LOG_LINE_LIMITED("request from %s: %s for %.*s-%d, not %s-0; refused", h->svc.slot_peer(h->svc.ctx, req->slot),
                 wire_api_name(req->header.api_key), topic.len > 0 ? (int)topic.len : 0,
                 topic.len > 0 ? (const char *)topic.ptr : "", partition, h->svc.topic_name);
        reply_raft_error(h, req, KAFKA_INVALID_REQUEST);
        return;
    }
    step_request(h, req, &msg, false);
}

void handle_replica_fetch(handler *h, handler_request *req, const wire_fetch_request *f)
{
    if (!quorum_request_allowed(h, req, f->replica_id) ||
        !cluster_id_checked(h, req, f->cluster_id))
        return;
    int16_t v = req->header.api_version;
    const wire_fetch_partition *part = NULL;
    for (int32_t t = 0; t < f->topic_count && !part; t++) {
        const wire_fetch_topic *ft = &f->topics[t];
        bool ours = v >= 13 ? handler_is_metadata_topic_id(h, &ft->topic_id)
                            : handler_is_metadata_topic(h, ft->topic);
        for (int32_t p = 0; ours && p < ft->partition_count; p++)
            if (ft->partitions[p].partition == 0)
                part = &ft->partitions[p];
    }
    if (!part) {
        LOG_LINE_LIMITED("request from %s: replica Fetch from %d names no %s-0; refused",
                 h->svc.slot_peer(h->svc.ctx, req->slot), f->replica_id, h->svc.topic_name);
        reply_raft_error(h, req, KAFKA_INVALID_REQUEST);
        return;
    }
    raft_msg msg = {.type = RAFT_MSG_FETCH_REQUEST, .from = f->replica_id};
    msg.u.fetch_request = (raft_fetch_request){
        .replica_id = f->replica_id,
        .current_leader_epoch = part->current_leader_epoch,
        .fetch_offset = part->fetch_offset,
        .last_fetched_epoch = part->last_fetched_epoch,
        .max_wait_ms = f->max_wait_ms,
        /* The request's MaxBytes, as KafkaRaftClient.handleFetchRequest
         * reads: Kafka's followers leave PartitionMaxBytes at 0 (RaftUtil.
         * singletonFetchRequest), which would cut every answer to its
         * first batch. */
        .max_bytes = f->max_bytes,
        .replica_directory_id = part->replica_directory_id, /* v17+ */
        .high_watermark = part->high_watermark, /* v18+; else INT64_MAX */
    };
    step_request(h, req, &msg, v >= 13);
}

static void encode_fetch_response(handler *h, const raft_pending *p, const raft_msg *msg)
{
    const raft_fetch_response *fr = &msg->u.fetch_response;
    kq_writer_reset(&h->records);
    kq_slice records = {(const uint8_t *)"", 0};
    int16_t partition_error = fr->partition_error;
    /* The answer's log data comes out of the response budget like a
     * consumer's (kq/budget.h): on the controller listener, the quorum's
     * class, whose reserved share no client flood can take (issue 19 item
     * 4). No grant: an answer without records; the follower fetches again. */
    size_t max = fr->read_max_bytes > 0 ? (size_t)fr->read_max_bytes : 1;
    if (h->svc.slot_grant)
        max = (size_t)h->svc.slot_grant(h->svc.ctx, p->slot, max);
    if (fr->read_end_offset > fr->read_offset && partition_error == KAFKA_NONE && max > 0) {
        ssize_t n = kq_log_read(h->svc.log, fr->read_offset, fr->read_end_offset, max,
                                &h->records);
        if (n > 0)
            handler_size_answer(h, (size_t)n);
        if (n == -ERANGE) {
            /* Retention moved the log start past it after the core chose
             * (the core hears of it right after): the fetcher retries and
             * is then sent the snapshot. */
            partition_error = KAFKA_OFFSET_OUT_OF_RANGE;
        } else if (n < 0) {
            /* Flushed data that cannot be read: the executor stops the node
             * (fail-stop, issue 8) rather than answering STORAGE_ERROR while
             * check-quorum keeps counting the fetches. */
            handler_note_read_failure(h, fr->read_offset, (int)n);
            partition_error = KAFKA_KAFKA_STORAGE_ERROR;
        } else {
            records = (kq_slice){h->records.data, (int32_t)n};
        }
    }
    wire_fetch_partition_data pd = {
        .partition_index = 0,
        .error_code = partition_error,
        .high_watermark = fr->high_watermark,
        .last_stable_offset = fr->high_watermark,
        .log_start_offset = kq_log_start_offset(h->svc.log),
        .has_diverging_epoch = fr->diverging_epoch >= 0,
        .diverging_epoch = {fr->diverging_epoch, fr->diverging_end_offset},
        .has_current_leader = true,
        .current_leader = {fr->leader_id, fr->leader_epoch},
        .has_snapshot_id = fr->snapshot_id.end_offset >= 0,
        .snapshot_id = {fr->snapshot_id.end_offset, fr->snapshot_id.epoch},
        .aborted_transaction_count = -1,
        .preferred_read_replica = -1,
        .records = records,
    };
    wire_fetch_topic_response tr = {.partitions = &pd, .partition_count = 1};
    if (p->fetch_topic_by_id)
        tr.topic_id = h->svc.topic_id;
    else
        tr.topic = handler_topic(h);
    wire_fetch_response resp = {.error_code = fr->error, .responses = &tr, .response_count = 1};
    /* v16+ (KIP-951, KIP-853): where the leader named is, so that a node
     * outside the voter set it knows can reach it. */
    wire_fetch_node_endpoint ne;
    const handler_endpoint *le = fr->leader_id >= 0 ? handler_endpoint_of(h, fr->leader_id)
                                                    : NULL;
    if (le && p->api_version >= 16) {
        ne = (wire_fetch_node_endpoint){.node_id = fr->leader_id,
                                        .host = kq_slice_cstr(le->host), .port = le->port,
                                        .rack = {NULL, -1}};
        resp.node_endpoints = &ne;
        resp.node_endpoint_count = 1;
    }
    wire_fetch_response_encode(&h->out, p->api_version, &resp);
}

void handler_send_raft_response(handler *h, const raft_msg *msg)
{
    raft_pending *p = raft_pending_take(h, msg->token);
    if (!p)
        return; /* answered already, or the token is stale */
    wire_request_header hdr = {.api_key = p->api_key, .api_version = p->api_version,
                               .correlation_id = p->correlation_id};
    handler_begin_response(h, &hdr);
    kq_slice topic = handler_topic(h);
    switch (msg->type) {
    case RAFT_MSG_VOTE_RESPONSE: {
        const raft_vote_response *m = &msg->u.vote_response;
        wire_vote_partition_result pr = {0, m->partition_error, m->leader_id, m->leader_epoch,
                                         m->vote_granted};
        wire_vote_topic_result tr = {topic, &pr, 1};
        wire_vote_response resp = {.error_code = m->error, .topics = &tr, .topic_count = 1};
        wire_raft_node_endpoint ne;
        resp.node_endpoint_count = handler_leader_node_endpoint(h, m->leader_id, p->api_version, &ne);
        resp.node_endpoints = &ne;
        wire_vote_response_encode(&h->out, p->api_version, &resp);
        break;
    }
    case RAFT_MSG_BEGIN_EPOCH_RESPONSE: {
        const raft_epoch_response *m = &msg->u.begin_epoch_response;
        wire_begin_quorum_epoch_partition_result pr = {0, m->partition_error, m->leader_id,
                                                       m->leader_epoch};
        wire_begin_quorum_epoch_topic_result tr = {topic, &pr, 1};
        wire_begin_quorum_epoch_response resp = {.error_code = m->error, .topics = &tr,
                                                 .topic_count = 1};
        wire_raft_node_endpoint ne;
        resp.node_endpoint_count = handler_leader_node_endpoint(h, m->leader_id, p->api_version, &ne);
        resp.node_endpoints = &ne;
        wire_begin_quorum_epoch_response_encode(&h->out, p->api_version, &resp);
        break;
    }
    case RAFT_MSG_END_EPOCH_RESPONSE: {
        const raft_epoch_response *m = &msg->u.end_epoch_response;
        wire_end_quorum_epoch_partition_result pr = {0, m->partition_error, m->leader_id,
                                                     m->leader_epoch};
        wire_end_quorum_epoch_topic_result tr = {topic, &pr, 1};
        wire_end_quorum_epoch_response resp = {.error_code = m->error, .topics = &tr,
                                               .topic_count = 1};
        wire_raft_node_endpoint ne;
        resp.node_endpoint_count = handler_leader_node_endpoint(h, m->leader_id, p->api_version, &ne);
        resp.node_endpoints = &ne;
        wire_end_quorum_epoch_response_encode(&h->out, p->api_version, &resp);
        break;
    }
    case RAFT_MSG_FETCH_RESPONSE:
        encode_fetch_response(h, p, msg);
        break;
    case RAFT_MSG_VOTER_CHANGE_RESPONSE:
        raft_voters_encode_response(h, p, msg);
        break;
    case RAFT_MSG_FETCH_SNAPSHOT_RESPONSE: {
        /* The chunk in the message itself (an executor that filled it). */
        const raft_fetch_snapshot_response *m = &msg->u.fetch_snapshot_response;
        fetch_snapshot_encode_response(h, p, msg, m->bytes, m->bytes_len, m->size, KAFKA_NONE);
        break;
    }
    default:
        h->svc.reply_close(h->svc.ctx, p->slot, "internal error: unexpected response type");
        return;
    }
    handler_finish_response(h, p->slot);
}

bool handler_encode_raft_request(handler *h, const raft_msg *msg, int32_t correlation_id,
                                 uint8_t **data, size_t *len, int16_t *api_version)
{
    kq_writer w;
    kq_writer_init(&w, HANDLER_RESPONSE_BYTES_MAX);
    char client_id[32];
    snprintf(client_id, sizeof(client_id), "raft-server-%d", h->svc.node_id);
    wire_request_header hdr = {.correlation_id = correlation_id,
                               .client_id = kq_slice_cstr(client_id)};
    kq_slice topic = handler_topic(h);
    kq_slice cluster = kq_slice_cstr(h->svc.cluster_id);
    const handler_endpoint *self = handler_endpoint_of(h, h->svc.node_id);
    wire_raft_listener listener = {
        .name = kq_slice_cstr(handler_controller_listener(h)),
        .host = kq_slice_cstr(self ? self->host : "localhost"),
        .port = self ? self->port : 0,
    };
    switch (msg->type) {
    case RAFT_MSG_VOTE_REQUEST: {
        const raft_vote_request *m = &msg->u.vote_request;
        hdr.api_key = WIRE_API_VOTE;
        hdr.api_version = RAFT_VOTE_VERSION;
        wire_request_header_encode(&w, &hdr);
        wire_vote_partition p = {.candidate_epoch = m->candidate_epoch,
                                 .candidate_id = m->candidate_id,
                                 .last_offset_epoch = m->last_epoch,
                                 .last_offset = m->last_epoch_end_offset,
                                 .pre_vote = m->pre_vote,
                                 .candidate_directory_id = m->candidate_directory_id,
                                 .voter_directory_id = m->voter_directory_id};
        wire_vote_topic t = {topic, &p, 1};
        wire_vote_request req = {.cluster_id = cluster, .voter_id = msg->to, .topics = &t,
                                 .topic_count = 1};
        wire_vote_request_encode(&w, hdr.api_version, &req);
        break;
    }
    case RAFT_MSG_BEGIN_EPOCH_REQUEST: {
        const raft_begin_epoch_request *m = &msg->u.begin_epoch_request;
        hdr.api_key = WIRE_API_BEGIN_QUORUM_EPOCH;
        hdr.api_version = RAFT_BEGIN_EPOCH_VERSION;
        wire_request_header_encode(&w, &hdr);
        wire_begin_quorum_epoch_partition p = {.leader_id = m->leader_id,
                                               .leader_epoch = m->leader_epoch,
                                               .voter_directory_id = m->voter_directory_id};
        wire_begin_quorum_epoch_topic t = {topic, &p, 1};
        wire_begin_quorum_epoch_request req = {.cluster_id = cluster, .voter_id = msg->to,
                                               .topics = &t, .topic_count = 1,
                                               .leader_endpoints = &listener,
                                               .leader_endpoint_count = 1};
        wire_begin_quorum_epoch_request_encode(&w, hdr.api_version, &req);
        break;
    }
    case RAFT_MSG_END_EPOCH_REQUEST: {
        const raft_end_epoch_request *m = &msg->u.end_epoch_request;
        hdr.api_key = WIRE_API_END_QUORUM_EPOCH;
        hdr.api_version = RAFT_END_EPOCH_VERSION;
        wire_request_header_encode(&w, &hdr);
        wire_end_quorum_epoch_candidate cands[RAFT_VOTERS_MAX];
        for (int i = 0; i < m->preferred_count; i++)
            cands[i] = (wire_end_quorum_epoch_candidate){.candidate_id = m->preferred_successors[i]};
        wire_end_quorum_epoch_partition p = {.leader_id = m->leader_id,
                                             .leader_epoch = m->leader_epoch,
                                             .preferred_candidates = cands,
                                             .preferred_candidate_count = m->preferred_count};
        wire_end_quorum_epoch_topic t = {topic, &p, 1};
        wire_end_quorum_epoch_request req = {.cluster_id = cluster, .topics = &t,
                                             .topic_count = 1, .leader_endpoints = &listener,
                                             .leader_endpoint_count = 1};
        wire_end_quorum_epoch_request_encode(&w, hdr.api_version, &req);
        break;
    }
    case RAFT_MSG_FETCH_REQUEST: {
        const raft_fetch_request *m = &msg->u.fetch_request;
        hdr.api_key = WIRE_API_FETCH;
        hdr.api_version = RAFT_FETCH_VERSION;
        wire_request_header_encode(&w, &hdr);
        wire_fetch_partition p = {.partition = 0,
                                  .current_leader_epoch = m->current_leader_epoch,
                                  .fetch_offset = m->fetch_offset,
                                  .last_fetched_epoch = m->last_fetched_epoch,
                                  .log_start_offset = -1,
                                  .partition_max_bytes = m->max_bytes,
                                  .replica_directory_id = m->replica_directory_id,
                                  .has_high_watermark = true,
                                  .high_watermark = m->high_watermark};
        wire_fetch_topic t = {.topic = {NULL, -1}, .topic_id = h->svc.topic_id,
                              .partitions = &p, .partition_count = 1};
        wire_fetch_request req = {.cluster_id = cluster,
                                  .replica_id = m->replica_id,
                                  .replica_epoch = -1,
                                  .max_wait_ms = m->max_wait_ms,
                                  .min_bytes = 0,
                                  .max_bytes = m->max_bytes,
                                  .session_epoch = -1,
                                  .topics = &t,
                                  .topic_count = 1,
                                  .rack_id = kq_slice_cstr("")};
        wire_fetch_request_encode(&w, hdr.api_version, &req);
        break;
    }
    case RAFT_MSG_FETCH_SNAPSHOT_REQUEST:
        fetch_snapshot_encode_request(h, msg, &hdr, &w);
        break;
    case RAFT_MSG_ADD_VOTER_REQUEST:
    case RAFT_MSG_REMOVE_VOTER_REQUEST:
    case RAFT_MSG_UPDATE_VOTER_REQUEST:
        raft_voters_encode_request(h, &w, &hdr, msg);
        break;
    default:
        kq_writer_free(&w);
        return false;
    }
    if (w.error) {
        kq_writer_free(&w);
        return false;
    }
    *data = w.data; /* ownership passes to the caller (free) */
    *len = w.len;
    *api_version = hdr.api_version;
    return true;
}

/* The endpoint a Fetch answer gives for the leader it names. */
static void fetch_leader_endpoint(const wire_fetch_response *b, int32_t leader_id,
                                  handler_endpoint *leader)
{
    for (int32_t i = 0; leader && leader_id >= 0 && i < b->node_endpoint_count; i++) {
        const wire_fetch_node_endpoint *e = &b->node_endpoints[i];
        if (e->node_id != leader_id || e->host.len < 1 ||
            (size_t)e->host.len >= sizeof leader->host || e->port <= 0 || e->port > 65535 ||
            memchr(e->host.ptr, '\0', (size_t)e->host.len))
            continue;
        leader->node_id = leader_id;
        memcpy(leader->host, e->host.ptr, (size_t)e->host.len);
        leader->host[e->host.len] = '\0';
        leader->port = (uint16_t)e->port;
    }
}

bool handler_decode_raft_response(handler *h, enum raft_msg_type request_type,
                                  int16_t api_version, const uint8_t *frame, size_t len,
                                  raft_msg *out, handler_endpoint *leader)
{
    kq_reader r;
    kq_reader_init(&r, frame, len);
    int16_t key;
    if (leader)
        leader->node_id = -1;
    switch (request_type) {
    case RAFT_MSG_ADD_VOTER_REQUEST: key = WIRE_API_ADD_RAFT_VOTER; break;
    case RAFT_MSG_REMOVE_VOTER_REQUEST: key = WIRE_API_REMOVE_RAFT_VOTER; break;
    case RAFT_MSG_UPDATE_VOTER_REQUEST: key = WIRE_API_UPDATE_RAFT_VOTER; break;
    case RAFT_MSG_VOTE_REQUEST: key = WIRE_API_VOTE; break;
    case RAFT_MSG_BEGIN_EPOCH_REQUEST: key = WIRE_API_BEGIN_QUORUM_EPOCH; break;
    case RAFT_MSG_END_EPOCH_REQUEST: key = WIRE_API_END_QUORUM_EPOCH; break;
    case RAFT_MSG_FETCH_REQUEST: key = WIRE_API_FETCH; break;
    case RAFT_MSG_FETCH_SNAPSHOT_REQUEST: key = WIRE_API_FETCH_SNAPSHOT; break;
    default: return false;
    }
    int32_t corr;
    if (wire_response_header_decode(&r, key, api_version, &corr) != 0)
        return false;
    kq_arena_reset(&h->arena);
    memset(out, 0, sizeof(*out));
    switch (request_type) {
    case RAFT_MSG_VOTE_REQUEST: {
        wire_vote_response b;
        if (wire_vote_response_decode(&r, api_version, &h->arena, &b) != 0)
            return false;
        out->type = RAFT_MSG_VOTE_RESPONSE;
        raft_vote_response *m = &out->u.vote_response;
        m->error = b.error_code;
        m->leader_id = -1;
        m->leader_epoch = -1;
        if (b.topic_count == 1 && b.topics[0].partition_count == 1) {
            const wire_vote_partition_result *p = &b.topics[0].partitions[0];
            m->partition_error = p->error_code;
            m->leader_id = p->leader_id;
            m->leader_epoch = p->leader_epoch;
            m->vote_granted = p->vote_granted;
        } else if (m->error == KAFKA_NONE) {
            return false;
        }
        return true;
    }
    case RAFT_MSG_BEGIN_EPOCH_REQUEST:
    case RAFT_MSG_END_EPOCH_REQUEST: {
        raft_epoch_response *m;
        int16_t error, perror = KAFKA_NONE;
        int32_t leader = -1, epoch = -1;
        bool have;
        if (request_type == RAFT_MSG_BEGIN_EPOCH_REQUEST) {
            wire_begin_quorum_epoch_response b;
            if (wire_begin_quorum_epoch_response_decode(&r, api_version, &h->arena, &b) != 0)
                return false;
            out->type = RAFT_MSG_BEGIN_EPOCH_RESPONSE;
            m = &out->u.begin_epoch_response;
            error = b.error_code;
            have = b.topic_count == 1 && b.topics[0].partition_count == 1;
            if (have) {
                perror = b.topics[0].partitions[0].error_code;
                leader = b.topics[0].partitions[0].leader_id;
                epoch = b.topics[0].partitions[0].leader_epoch;
            }
        } else {
            wire_end_quorum_epoch_response b;
            if (wire_end_quorum_epoch_response_decode(&r, api_version, &h->arena, &b) != 0)
                return false;
            out->type = RAFT_MSG_END_EPOCH_RESPONSE;
            m = &out->u.end_epoch_response;
            error = b.error_code;
            have = b.topic_count == 1 && b.topics[0].partition_count == 1;
            if (have) {
                perror = b.topics[0].partitions[0].error_code;
                leader = b.topics[0].partitions[0].leader_id;
                epoch = b.topics[0].partitions[0].leader_epoch;
            }
        }
        if (!have && error == KAFKA_NONE)
            return false;
        *m = (raft_epoch_response){error, perror, leader, epoch};
        return true;
    }
    case RAFT_MSG_FETCH_REQUEST: {
        wire_fetch_response b;
        if (wire_fetch_response_decode(&r, api_version, &h->arena, &b) != 0)
            return false;
        out->type = RAFT_MSG_FETCH_RESPONSE;
        raft_fetch_response *m = &out->u.fetch_response;
        m->error = b.error_code;
        m->high_watermark = -1;
        m->leader_id = -1;
        m->leader_epoch = -1;
        m->diverging_epoch = -1;
        m->diverging_end_offset = -1;
        m->snapshot_id = (raft_snapshot_id){-1, -1};
        if (b.response_count == 1 && b.responses[0].partition_count == 1) {
            const wire_fetch_partition_data *p = &b.responses[0].partitions[0];
            m->partition_error = p->error_code;
            m->high_watermark = p->high_watermark;
            if (p->has_current_leader) {
                m->leader_id = p->current_leader.leader_id;
                m->leader_epoch = p->current_leader.leader_epoch;
            }
            if (p->has_diverging_epoch) {
                m->diverging_epoch = p->diverging_epoch.epoch;
                m->diverging_end_offset = p->diverging_epoch.end_offset;
            }
            if (p->has_snapshot_id)
                m->snapshot_id = (raft_snapshot_id){p->snapshot_id.end_offset,
                                                    p->snapshot_id.epoch};
            if (p->records.len > 0) {
                m->records = p->records.ptr;
                m->records_len = (size_t)p->records.len;
            }
            fetch_leader_endpoint(&b, m->leader_id, leader);
        } else if (m->error == KAFKA_NONE) {
            return false;
        }
        return true;
    }
    case RAFT_MSG_FETCH_SNAPSHOT_REQUEST:
        return fetch_snapshot_decode_response(h, &r, api_version, &h->arena, out);
    case RAFT_MSG_ADD_VOTER_REQUEST:
    case RAFT_MSG_REMOVE_VOTER_REQUEST:
    case RAFT_MSG_UPDATE_VOTER_REQUEST:
        return raft_voters_decode_response(h, &r, request_type, api_version, out);
    default:
        return false;
    }
}
