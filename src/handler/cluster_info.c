/* ApiVersions, Metadata and DescribeCluster: who is here and who leads
 * (FindCoordinator: group_find_coordinator.c). */
#include <string.h>

#include "handler_internal.h"
#include "kq/log_line.h"
#include "kq/wire_api_versions.h"
#include "kq/wire_describe_cluster.h"
#include "kq/wire_fetch.h"
#include "kq/wire_metadata.h"


/* The advertised table as this connection's listener offers it: a client
 * listener leaves out FetchSnapshot, which only a controller listener
 * serves (Kafka's "listeners": ["controller"]; issue 9's rule refuses it
 * elsewhere, as the other Raft RPCs). */
static const wire_api_range *listener_apis(handler *h, void *slot, int *count)
{
    const wire_api_range *all = wire_advertised_apis(count);
    handler_conn conn;
    handler_get_conn(h, slot, &conn);
    if (conn.quorum_listener)
        return all;
    wire_api_range *keep = kq_arena_alloc(&h->arena, sizeof *keep * (size_t)*count);
    if (!keep)
        return all;
    int n = 0;
    for (int i = 0; i < *count; i++)
        if (all[i].api_key != WIRE_API_FETCH_SNAPSHOT)
            keep[n++] = all[i];
    *count = n;
    return keep;
}

void handle_api_versions(handler *h, handler_request *req, kq_reader *r)
{
    wire_request_header hdr = req->header;
    wire_api_versions_response resp = {0};
    resp.api_keys = listener_apis(h, req->slot, &resp.api_key_count);
    if (!wire_api_accepted(WIRE_API_API_VERSIONS, hdr.api_version)) {
        /* KIP-511: answer an unknown version at v0 with UNSUPPORTED_VERSION and
         * our table, without parsing the body; the client retries lower. */
        resp.error_code = KAFKA_UNSUPPORTED_VERSION;
        hdr.api_version = 0;
    } else {
        wire_api_versions_request body;
        if (wire_api_versions_request_decode(r, hdr.api_version, &h->arena, &body) != 0)
            resp.error_code = KAFKA_INVALID_REQUEST;
    }
    /* v3+ features (kafka-features.sh describe): kraft.version, which this
     * server speaks 0-1 (KIP-853), finalized at the level in force. */
    wire_api_versions_supported_feature sf = {kq_slice_cstr("kraft.version"), 0, 1};
    int16_t level = raft_kraft_version(h->svc.raft);
    wire_api_versions_finalized_feature ff = {kq_slice_cstr("kraft.version"), level, level};
    if (resp.error_code == KAFKA_NONE) {
        raft_status st;
        raft_get_status(h->svc.raft, &st);
        resp.supported_features = &sf;
        resp.supported_feature_count = 1;
        resp.has_finalized_features_epoch = true;
        resp.finalized_features_epoch = st.high_watermark > 0 ? st.high_watermark : 0;
        resp.finalized_features = &ff;
        resp.finalized_feature_count = level > 0;
    }
    handler_begin_response(h, &hdr);
    wire_api_versions_response_encode(&h->out, hdr.api_version, &resp);
    handler_finish_response(h, req->slot);
}

void handle_metadata(handler *h, handler_request *req, kq_reader *r)
{
    int16_t v = req->header.api_version;
    wire_metadata_request body;
    if (wire_metadata_request_decode(r, v, &h->arena, &body) != 0) {
        h->svc.reply_close(h->svc.ctx, req->slot, "malformed Metadata request");
        return;
    }
    raft_status st;
    raft_get_status(h->svc.raft, &st);

    wire_metadata_broker brokers[HANDLER_NODES_MAX];
    int32_t ids[HANDLER_NODES_MAX];
    handler_conn conn;
    handler_get_conn(h, req->slot, &conn);
    for (int i = 0; i < h->svc.node_count; i++) {
        const handler_endpoint *e = handler_broker_endpoint(h, i, &conn);
        brokers[i] = (wire_metadata_broker){
            .node_id = h->svc.nodes[i].node_id,
            .host = kq_slice_cstr(e->host),
            .port = e->port,
            .rack = {NULL, -1},
        };
        ids[i] = h->svc.nodes[i].node_id;
    }
    bool leader_known = st.leader_id >= 0 && handler_endpoint_of(h, st.leader_id) != NULL;
    wire_metadata_partition partition = {
        .error_code = leader_known ? KAFKA_NONE : KAFKA_LEADER_NOT_AVAILABLE,
        .partition_index = 0,
        .leader_id = leader_known ? st.leader_id : -1,
        .leader_epoch = st.epoch,
        .replica_nodes = ids,
        .replica_node_count = h->svc.node_count,
        .isr_nodes = ids,
        .isr_node_count = h->svc.node_count,
    };
    bool all = wire_metadata_request_all_topics(&body, v);
    bool may_describe = handler_authorized(h, req->slot, HANDLER_OP_DESCRIBE, "Metadata");
    /* Kafka leaves topics one may not describe out of an all-topics answer. */
    int32_t topic_count = all ? (may_describe ? 1 : 0) : body.topic_count;
    wire_metadata_topic *topics = topic_count > 0
        ? kq_arena_alloc(&h->arena, sizeof(*topics) * (size_t)topic_count) : NULL;
    if (topic_count > 0 && !topics) {
        h->svc.reply_close(h->svc.ctx, req->slot, "too many topics");
        return;
    }
    for (int32_t i = 0; i < topic_count; i++) {
        wire_metadata_topic *t = &topics[i];
        t->topic_authorized_operations = INT32_MIN;
        kq_slice name = all ? handler_topic(h) : body.topics[i].name;
        bool by_id = !all && name.len < 0 &&
                     handler_is_metadata_topic_id(h, &body.topics[i].topic_id);
        if ((handler_is_metadata_topic(h, name) || by_id) && !may_describe) {
            t->error_code = KAFKA_TOPIC_AUTHORIZATION_FAILED;
            t->name = name;
            if (!all)
                t->topic_id = body.topics[i].topic_id;
        } else if (handler_is_metadata_topic(h, name) || by_id) {
            t->error_code = KAFKA_NONE;
            t->name = handler_topic(h);
            t->topic_id = h->svc.topic_id;
            /* Not internal (issue 12): clients leave internal topics out of
             * what they produce to or subscribe by pattern, and Kafka's own
             * internal set is __consumer_offsets and __transaction_state. */
            t->is_internal = false;
            t->partitions = &partition;
            t->partition_count = 1;
        } else {
            t->error_code = KAFKA_UNKNOWN_TOPIC_OR_PARTITION;
            t->name = name;
            if (!all)
                t->topic_id = body.topics[i].topic_id;
        }
    }
    wire_metadata_response resp = {
        .brokers = brokers,
        .broker_count = h->svc.node_count,
        .cluster_id = kq_slice_cstr(h->svc.cluster_id),
        .controller_id = leader_known ? st.leader_id : -1,
        .topics = topics,
        .topic_count = topic_count,
        .cluster_authorized_operations = INT32_MIN,
    };
    handler_begin_response(h, &req->header);
    wire_metadata_response_encode(&h->out, v, &resp);
    handler_finish_response(h, req->slot);
}

void handle_describe_cluster(handler *h, handler_request *req, kq_reader *r)
{
    int16_t v = req->header.api_version;
    wire_describe_cluster_request body;
    if (wire_describe_cluster_request_decode(r, v, &h->arena, &body) != 0) {
        h->svc.reply_close(h->svc.ctx, req->slot, "malformed DescribeCluster request");
        return;
    }
    raft_status st;
    raft_get_status(h->svc.raft, &st);
    wire_describe_cluster_broker brokers[HANDLER_NODES_MAX];
    handler_conn conn;
    handler_get_conn(h, req->slot, &conn);
    const handler_endpoint *asked = handler_endpoint_asked(h, req, &conn);
    if (asked)
        conn.advertised = asked; /* a peer asking for one listener name */
    for (int i = 0; i < h->svc.node_count; i++) {
        /* KIP-919: type 2 asks for the controllers (the voter endpoints). */
        const handler_endpoint *e =
            body.endpoint_type == 2 ? &h->svc.nodes[i] : handler_broker_endpoint(h, i, &conn);
        brokers[i] = (wire_describe_cluster_broker){
            .broker_id = h->svc.nodes[i].node_id,
            .host = kq_slice_cstr(e->host),
            .port = e->port,
            .rack = {NULL, -1},
        };
    }
    /* Every node is both broker and controller here, so both endpoint types
     * list the same nodes (at their client or controller listener); the
     * type is echoed as the admin client checks. */
    int32_t controller = st.leader_id >= 0 ? st.leader_id : h->svc.node_id;
    wire_describe_cluster_response resp = {
        .error_code = KAFKA_NONE,
        .error_message = {NULL, -1},
        .endpoint_type = body.endpoint_type,
        .cluster_id = kq_slice_cstr(h->svc.cluster_id),
        .controller_id = controller,
        .brokers = brokers,
        .broker_count = h->svc.node_count,
        .cluster_authorized_operations = INT32_MIN,
    };
    handler_begin_response(h, &req->header);
    wire_describe_cluster_response_encode(&h->out, v, &resp);
    handler_finish_response(h, req->slot);
}
