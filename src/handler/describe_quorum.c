/* DescribeQuorum: the leader's view of every voter and observer
 * (kafka-metadata-quorum.sh describe --status / --replication). */
#include "handler_internal.h"
#include "kq/wire_describe_quorum.h"
#include "kq/wire_fetch.h"

static void fill_replicas(const raft_replica_status *src, int count,
                          wire_describe_quorum_replica_state *dst)
{
    for (int i = 0; i < count; i++)
        dst[i] = (wire_describe_quorum_replica_state){
            .replica_id = src[i].replica_id,
            .log_end_offset = src[i].log_end_offset,
            .last_fetch_timestamp = src[i].last_fetch_ms,
            .last_caught_up_timestamp = src[i].last_caught_up_ms,
        };
}

void handle_describe_quorum(handler *h, handler_request *req, kq_reader *r)
{
    int16_t v = req->header.api_version;
    wire_describe_quorum_request body;
    if (wire_describe_quorum_request_decode(r, v, &h->arena, &body) != 0) {
        h->svc.reply_close(req->slot, "malformed DescribeQuorum request");
        return;
    }
    raft_status st;
    raft_get_status(h->svc.raft, &st);
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
    bool asked = body.topic_count == 1 && body.topics[0].partition_count == 1 &&
                 handler_is_metadata_topic(body.topics[0].topic_name) &&
                 body.topics[0].partitions[0].partition_index == 0;
    if (!asked)
        pd.error_code = KAFKA_UNKNOWN_TOPIC_OR_PARTITION;
    wire_describe_quorum_topic_data td = {
        .topic_name = kq_slice_cstr(WIRE_METADATA_TOPIC_NAME), .partitions = &pd,
        .partition_count = 1};

    wire_describe_quorum_node nodes[HANDLER_NODES_MAX];
    wire_raft_listener listeners[HANDLER_NODES_MAX];
    for (int i = 0; i < h->svc.node_count; i++) {
        listeners[i] = (wire_raft_listener){.name = kq_slice_cstr("PLAINTEXT"),
                                            .host = kq_slice_cstr(h->svc.nodes[i].host),
                                            .port = h->svc.nodes[i].port};
        nodes[i] = (wire_describe_quorum_node){.node_id = h->svc.nodes[i].node_id,
                                               .listeners = &listeners[i], .listener_count = 1};
    }
    wire_describe_quorum_response resp = {
        .error_message = {NULL, -1},
        .topics = &td,
        .topic_count = 1,
        .nodes = nodes,
        .node_count = h->svc.node_count,
    };
    handler_begin_response(h, &req->header);
    wire_describe_quorum_response_encode(&h->out, v, &resp);
    handler_finish_response(h, req->slot);
}
