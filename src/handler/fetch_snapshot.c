/* FetchSnapshot (API 59, KIP-630) between the wire and the core's raft_msg:
 * a follower's request to us, our answer with a chunk of the snapshot file,
 * our request to the leader and the leader's answer. Only for
 * __cluster_metadata-0, and only on quorum listeners (issue 9), as the other
 * Raft RPCs. */
#include <stdio.h>
#include <string.h>

#include "handler_internal.h"
#include "kq/log_line.h"
#include "kq/wire_fetch.h"
#include "kq/wire_fetch_snapshot.h"

#define RAFT_FETCH_SNAPSHOT_VERSION 1

/* Kafka's answer to a FetchSnapshot for a partition other than its own:
 * that partition, with UNKNOWN_TOPIC_OR_PARTITION. */
static void reply_unknown_partition(handler *h, handler_request *req, kq_slice topic,
                                    int32_t partition)
{
    LOG_LINE_LIMITED("request from %s: FetchSnapshot for %.*s-%d, not %s-0; refused",
             h->svc.slot_peer(h->svc.ctx, req->slot), topic.len > 0 ? (int)topic.len : 0,
             topic.len > 0 ? (const char *)topic.ptr : "", partition, h->svc.topic_name);
    wire_fetch_snapshot_partition_data pd = {
        .index = partition,
        .error_code = KAFKA_UNKNOWN_TOPIC_OR_PARTITION,
        .snapshot_id = {-1, -1},
        .size = -1,
        .position = -1,
        .unaligned_records = {(const uint8_t *)"", 0},
    };
    wire_fetch_snapshot_topic_response tr = {topic, &pd, 1};
    wire_fetch_snapshot_response resp = {.topics = &tr, .topic_count = 1};
    handler_begin_response(h, &req->header);
    wire_fetch_snapshot_response_encode(&h->out, req->header.api_version, &resp);
    handler_finish_response(h, req->slot);
}

void handle_fetch_snapshot(handler *h, handler_request *req, kq_reader *r)
{
    int16_t v = req->header.api_version;
    wire_fetch_snapshot_request b;
    if (wire_fetch_snapshot_request_decode(r, v, &h->arena, &b) != 0) {
        LOG_LINE_LIMITED("request from %s: malformed FetchSnapshot v%d",
                 h->svc.slot_peer(h->svc.ctx, req->slot), v);
        h->svc.reply_close(h->svc.ctx, req->slot, "malformed Raft request");
        return;
    }
    if (!quorum_request_allowed(h, req, b.replica_id) ||
        !cluster_id_checked(h, req, b.cluster_id))
        return;
    if (b.topic_count != 1 || b.topics[0].partition_count != 1) {
        /* KafkaRaftClient: exactly one topic with one partition. */
        reply_raft_error(h, req, KAFKA_INVALID_REQUEST);
        return;
    }
    const wire_fetch_snapshot_topic *t = &b.topics[0];
    const wire_fetch_snapshot_partition *p = &t->partitions[0];
    if (!handler_is_metadata_topic(h, t->name) || p->partition != 0) {
        reply_unknown_partition(h, req, t->name, p->partition);
        return;
    }
    raft_msg msg = {.type = RAFT_MSG_FETCH_SNAPSHOT_REQUEST, .from = b.replica_id};
    msg.u.fetch_snapshot_request = (raft_fetch_snapshot_request){
        .replica_id = b.replica_id,
        .current_leader_epoch = p->current_leader_epoch,
        .snapshot_id = {p->snapshot_id.end_offset, p->snapshot_id.epoch},
        .position = p->position,
        .max_bytes = b.max_bytes,
        .replica_directory_id = p->replica_directory_id, /* v1+ */
    };
    step_request(h, req, &msg, false);
}

void fetch_snapshot_encode_response(handler *h, const raft_pending *p, const raft_msg *msg,
                                    const uint8_t *chunk, size_t len, int64_t size,
                                    int16_t read_error)
{
    const raft_fetch_snapshot_response *m = &msg->u.fetch_snapshot_response;
    int16_t partition_error = m->partition_error;
    if (partition_error == KAFKA_NONE && read_error != KAFKA_NONE)
        partition_error = read_error;
    if (partition_error == KAFKA_NONE && len > INT32_MAX)
        partition_error = KAFKA_UNKNOWN_SERVER_ERROR; /* never: reads are bounded */
    if (partition_error != KAFKA_NONE || !chunk)
        len = 0;
    if (len > 0)
        handler_size_answer(h, len);
    wire_fetch_snapshot_partition_data pd = {
        .index = 0,
        .error_code = partition_error,
        .snapshot_id = {m->snapshot_id.end_offset, m->snapshot_id.epoch},
        .has_current_leader = true,
        .current_leader = {m->leader_id, m->leader_epoch},
        .size = size,
        .position = m->position,
        .unaligned_records = {len > 0 ? chunk : (const uint8_t *)"", (int32_t)len},
    };
    wire_fetch_snapshot_topic_response tr = {handler_topic(h), &pd, 1};
    wire_fetch_snapshot_response resp = {.error_code = m->error, .topics = &tr,
                                         .topic_count = 1};
    wire_raft_node_endpoint ne;
    resp.node_endpoint_count = handler_leader_node_endpoint(h, m->leader_id, p->api_version, &ne);
    resp.node_endpoints = &ne;
    wire_fetch_snapshot_response_encode(&h->out, p->api_version, &resp);
}

void handler_send_fetch_snapshot_response(handler *h, const raft_msg *msg, const uint8_t *chunk,
                                          size_t len, int64_t size, int16_t read_error)
{
    if (msg->type != RAFT_MSG_FETCH_SNAPSHOT_RESPONSE) {
        handler_send_raft_response(h, msg);
        return;
    }
    raft_pending *p = raft_pending_take(h, msg->token);
    if (!p)
        return; /* answered already, or the token is stale */
    wire_request_header hdr = {.api_key = p->api_key, .api_version = p->api_version,
                               .correlation_id = p->correlation_id};
    handler_begin_response(h, &hdr);
    fetch_snapshot_encode_response(h, p, msg, chunk, len, size, read_error);
    handler_finish_response(h, p->slot);
}

void fetch_snapshot_encode_request(handler *h, const raft_msg *msg, wire_request_header *hdr,
                                   kq_writer *w)
{
    const raft_fetch_snapshot_request *m = &msg->u.fetch_snapshot_request;
    hdr->api_key = WIRE_API_FETCH_SNAPSHOT;
    hdr->api_version = RAFT_FETCH_SNAPSHOT_VERSION;
    wire_request_header_encode(w, hdr);
    wire_fetch_snapshot_partition p = {
        .partition = 0,
        .current_leader_epoch = m->current_leader_epoch,
        .snapshot_id = {m->snapshot_id.end_offset, m->snapshot_id.epoch},
        .position = m->position,
        .replica_directory_id = m->replica_directory_id,
    };
    wire_fetch_snapshot_topic t = {handler_topic(h), &p, 1};
    wire_fetch_snapshot_request req = {
        .cluster_id = kq_slice_cstr(h->svc.cluster_id),
        .replica_id = m->replica_id,
        .max_bytes = m->max_bytes,
        .topics = &t,
        .topic_count = 1,
    };
    wire_fetch_snapshot_request_encode(w, hdr->api_version, &req);
}

/* The answer's replicated partition's entry, or NULL. */
static const wire_fetch_snapshot_partition_data *
metadata_partition(const handler *h, const wire_fetch_snapshot_response *b)
{
    for (int32_t t = 0; t < b->topic_count; t++) {
        if (!handler_is_metadata_topic(h, b->topics[t].name))
            continue;
        for (int32_t i = 0; i < b->topics[t].partition_count; i++)
            if (b->topics[t].partitions[i].index == 0)
                return &b->topics[t].partitions[i];
    }
    return NULL;
}

bool fetch_snapshot_decode_response(const handler *h, kq_reader *r, int16_t version, kq_arena *arena,
                                    raft_msg *out)
{
    wire_fetch_snapshot_response b;
    if (wire_fetch_snapshot_response_decode(r, version, arena, &b) != 0)
        return false;
    out->type = RAFT_MSG_FETCH_SNAPSHOT_RESPONSE;
    raft_fetch_snapshot_response *m = &out->u.fetch_snapshot_response;
    *m = (raft_fetch_snapshot_response){
        .error = b.error_code, .leader_id = -1, .leader_epoch = -1,
        .snapshot_id = {-1, -1}, .size = -1, .position = -1};
    const wire_fetch_snapshot_partition_data *p = metadata_partition(h, &b);
    if (!p)
        return m->error != KAFKA_NONE; /* an answer without our partition */
    m->partition_error = p->error_code;
    m->snapshot_id = (raft_snapshot_id){p->snapshot_id.end_offset, p->snapshot_id.epoch};
    if (p->has_current_leader) {
        m->leader_id = p->current_leader.leader_id;
        m->leader_epoch = p->current_leader.leader_epoch;
    }
    m->size = p->size;
    m->position = p->position;
    if (p->unaligned_records.len > 0) {
        m->bytes = p->unaligned_records.ptr; /* borrowed from the frame */
        m->bytes_len = (size_t)p->unaligned_records.len;
    }
    return true;
}
