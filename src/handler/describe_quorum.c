/* DescribeQuorum: the leader's view of every voter and observer
 * (kafka-metadata-quorum.sh describe --status / --replication). */
#include "handler_internal.h"
#include "kq/log_line.h"
#include "kq/wire_describe_quorum.h"
#include "kq/wire_fetch.h"

static void describe_quorum_respond(handler *h, void *slot, const wire_request_header *hdr,
                                    const raft_status *status,
                                    const wire_describe_quorum_request *body);

/* The voters' endpoints (v2 Nodes): as the voter set in the log names them
 * (KIP-853), else the configured ones. */
static int describe_quorum_nodes(handler *h, wire_describe_quorum_node *nodes,
                                 wire_raft_listener *listeners)
{
    const kq_voter_set *set = raft_voters(h->svc.raft);
    int n = 0;
    for (int i = 0; i < set->count && n < HANDLER_NODES_MAX; i++) {
        const kq_voter *v = &set->voters[i];
        if (!v->host[0])
            continue;
        listeners[n] = (wire_raft_listener){.name = kq_slice_cstr(v->listener),
                                            .host = kq_slice_cstr(v->host), .port = v->port};
        nodes[n] = (wire_describe_quorum_node){.node_id = v->id, .listeners = &listeners[n],
                                               .listener_count = 1};
        n++;
    }
    if (n > 0)
        return n;
    for (int i = 0; i < h->svc.node_count; i++) {
        listeners[i] = (wire_raft_listener){.name = kq_slice_cstr(handler_controller_listener(h)),
                                            .host = kq_slice_cstr(h->svc.nodes[i].host),
                                            .port = h->svc.nodes[i].port};
        nodes[i] = (wire_describe_quorum_node){.node_id = h->svc.nodes[i].node_id,
                                               .listeners = &listeners[i], .listener_count = 1};
    }
    return h->svc.node_count;
}

static void fill_replicas(const raft_replica_status *src, int count,
                          wire_describe_quorum_replica_state *dst)
{
    for (int i = 0; i < count; i++)
        dst[i] = (wire_describe_quorum_replica_state){
            .replica_id = src[i].replica_id,
            .replica_directory_id = src[i].directory_id,
            .log_end_offset = src[i].log_end_offset,
            .last_fetch_timestamp = src[i].last_fetch_ms,
            .last_caught_up_timestamp = src[i].last_caught_up_ms,
        };
}

/* Re-headed with our client id (so the leader never relays it again); the
 * executor sends it and sets the correlation id. */
static bool forward(handler *h, handler_request *req, int32_t leader_id)
{
    kq_writer w;
    kq_writer_init(&w, (size_t)h->svc.frame_bytes_max + 64);
    wire_request_header hdr = req->header;
    hdr.client_id = kq_slice_cstr(HANDLER_FORWARD_CLIENT_ID);
    wire_request_header_encode(&w, &hdr);
    kq_write_raw(&w, req->frame + req->body_offset, req->len - req->body_offset);
    if (w.error) {
        kq_writer_free(&w);
        return false;
    }
    h->decision->kind = HANDLER_FORWARD;
    h->decision->forward = (handler_forward){
        .leader_id = leader_id,
        .frame = w.data, /* ownership passes to the executor */
        .len = w.len,
        .api_key = req->header.api_key,
        .api_version = req->header.api_version,
        .correlation_id = req->header.correlation_id,
    };
    return true;
}

/* A relay (a follower forwarding its client's DescribeQuorum, already
 * authorized there) is a quorum request: the client id only says it is one;
 * whether it may be is the connection's identity (quorum_auth.c), so a
 * client cannot skip the describe check by naming itself kq-forwarded
 * (issue 19 item 10). */
static bool relay_allowed(handler *h, handler_request *req, bool relayed)
{
    return !relayed || quorum_identity_allowed(h, req, -1, true);
}

void handle_describe_quorum(handler *h, handler_request *req, kq_reader *r)
{
    int16_t v = req->header.api_version;
    wire_describe_quorum_request body;
    if (wire_describe_quorum_request_decode(r, v, &h->arena, &body) != 0) {
        h->svc.reply_close(h->svc.ctx, req->slot, "malformed DescribeQuorum request");
        return;
    }
    bool relayed = kq_slice_eq_cstr(req->header.client_id, HANDLER_FORWARD_CLIENT_ID);
    if (!relay_allowed(h, req, relayed) ||
        (!relayed && !handler_authorized(h, req->slot, HANDLER_OP_DESCRIBE, "DescribeQuorum"))) {
        wire_describe_quorum_response resp = {.error_code = KAFKA_CLUSTER_AUTHORIZATION_FAILED,
                                              .error_message = {NULL, -1}};
        handler_begin_response(h, &req->header);
        wire_describe_quorum_response_encode(&h->out, v, &resp);
        handler_finish_response(h, req->slot);
        return;
    }
    raft_status st;
    raft_get_status(h->svc.raft, &st);
    /* Only the leader knows every replica's progress: like a Kafka broker
     * forwarding to the active controller, a follower relays the request. */
    if (st.role != RAFT_ROLE_LEADER && st.leader_id >= 0 && st.leader_id != h->svc.node_id &&
        !relayed && forward(h, req, st.leader_id))
        return;
    describe_quorum_respond(h, req->slot, &req->header, &st, &body);
}

static void describe_quorum_respond(handler *h, void *slot, const wire_request_header *hdr,
                                    const raft_status *status, const wire_describe_quorum_request *body)
{
    raft_status st = *status;
    wire_describe_quorum_replica_state voters[RAFT_VOTERS_MAX];
    wire_describe_quorum_replica_state observers[RAFT_OBSERVERS_MAX];
    fill_replicas(st.voters, st.voter_count, voters);
    fill_replicas(st.observers, st.observer_count, observers);

    wire_describe_quorum_partition_data pd = {
        .partition_index = 0,
        .error_message = {NULL, -1},
        .leader_id = st.leader_id,
        .leader_epoch = st.epoch,
        .high_watermark = st.high_watermark,
        .current_voters = voters,
        .current_voter_count = st.voter_count,
        .observers = observers,
        .observer_count = st.observer_count,
    };
    if (st.role != RAFT_ROLE_LEADER) {
        pd.error_code = KAFKA_NOT_LEADER_OR_FOLLOWER;
        pd.current_voter_count = 0;
        pd.observer_count = 0;
    }
    /* Kafka's admin client always asks for __cluster_metadata-0 and wants
     * that name back (KafkaAdminClient.describeMetadataQuorum): with another
     * replicated topic (quorum.topic.name, issue 22) that name stands for
     * ours too, so that kafka-metadata-quorum.sh describes any of our
     * quorums (Kafka's TestRaftServer answers no DescribeQuorum). */
    kq_slice name = body && body->topic_count == 1 ? body->topics[0].topic_name
                                                   : handler_topic(h);
    bool asked = !body || (body->topic_count == 1 && body->topics[0].partition_count == 1 &&
                           (handler_is_metadata_topic(h, name) ||
                            kq_slice_eq_cstr(name, WIRE_METADATA_TOPIC_NAME)) &&
                           body->topics[0].partitions[0].partition_index == 0);
    if (!asked) {
        pd.error_code = KAFKA_UNKNOWN_TOPIC_OR_PARTITION;
        name = handler_topic(h);
    }
    wire_describe_quorum_topic_data td = {.topic_name = name, .partitions = &pd,
                                          .partition_count = 1};

    wire_describe_quorum_node nodes[HANDLER_NODES_MAX];
    wire_raft_listener listeners[HANDLER_NODES_MAX];
    int node_count = describe_quorum_nodes(h, nodes, listeners);
    wire_describe_quorum_response resp = {
        .error_message = {NULL, -1},
        .topics = &td,
        .topic_count = 1,
        .nodes = nodes,
        .node_count = node_count,
    };
    handler_begin_response(h, hdr);
    wire_describe_quorum_response_encode(&h->out, hdr->api_version, &resp);
    handler_finish_response(h, slot);
}

void handler_forward_set_correlation_id(handler_forward *f, int32_t correlation_id)
{
    /* The request header: api_key (2), api_version (2), correlation_id (4). */
    uint32_t c = (uint32_t)correlation_id;
    f->frame[4] = (uint8_t)(c >> 24);
    f->frame[5] = (uint8_t)(c >> 16);
    f->frame[6] = (uint8_t)(c >> 8);
    f->frame[7] = (uint8_t)c;
}

/* The leader's answer goes back with the client's correlation id. */
void handler_forward_answer(handler *h, void *slot, const handler_forward *f,
                            const uint8_t *frame, size_t len)
{
    wire_request_header hdr = {.api_key = f->api_key, .api_version = f->api_version,
                               .correlation_id = f->correlation_id};
    if (frame && len >= 4) {
        handler_reset_response(h);
        kq_write_i32(&h->out, f->correlation_id);
        kq_write_raw(&h->out, frame + 4, len - 4);
        handler_finish_response(h, slot);
        return;
    }
    if (f->api_key != WIRE_API_DESCRIBE_QUORUM) {
        h->svc.reply_close(h->svc.ctx, slot, "forwarded request failed");
        return;
    }
    raft_status st;
    raft_get_status(h->svc.raft, &st);
    st.role = RAFT_ROLE_FOLLOWER; /* answered as a non-leader: NOT_LEADER_OR_FOLLOWER */
    describe_quorum_respond(h, slot, &hdr, &st, NULL);
}
