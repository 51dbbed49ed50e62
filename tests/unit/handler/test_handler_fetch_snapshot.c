/* FetchSnapshot (KIP-630) through the handler: the refusals that never reach
 * the core (client listener, cluster id, partition, shape), ApiVersions per
 * listener, the core's request encoded for a peer, a peer's answer decoded,
 * the core's answer sent with the executor's chunk, and the Fetch
 * response's SnapshotId (tag 2) both ways. */
#include "handler_test_node.h"

#include "handler_internal.h"
#include "kq/wire_api_versions.h"
#include "kq/wire_fetch.h"
#include "kq/wire_fetch_snapshot.h"

#define META "__cluster_metadata"

static void send_fetch_snapshot(tn_node *n, tn_slot *s, int32_t corr, const char *cluster,
                                const char *topic, int32_t partitions)
{
    wire_fetch_snapshot_partition p[2] = {
        {.partition = 0, .current_leader_epoch = 1, .snapshot_id = {10, 1}, .position = 0},
        {.partition = 1, .current_leader_epoch = 1, .snapshot_id = {10, 1}, .position = 0},
    };
    wire_fetch_snapshot_topic t = {kq_slice_cstr(topic), p, partitions};
    wire_fetch_snapshot_request req = {.cluster_id = kq_slice_cstr(cluster), .replica_id = 2,
                                       .max_bytes = 1 << 20, .topics = &t, .topic_count = 1};
    TN_SEND(n, s, WIRE_API_FETCH_SNAPSHOT, 1, corr, wire_fetch_snapshot_request_encode, &req);
}

static void test_refusals_before_the_core(void **state)
{
    (void)state;
    tn_node n;
    tn_open(&n, 1, 3);
    wire_fetch_snapshot_response resp;
    tn_slot client = {TN_CLIENT_LISTENER_ID + 1};
    send_fetch_snapshot(&n, &client, 10, TN_CLUSTER_ID, META, 1);
    TN_DECODE(&n, &client, WIRE_API_FETCH_SNAPSHOT, 1, 10, wire_fetch_snapshot_response_decode,
              &resp);
    assert_int_equal(resp.error_code, KAFKA_CLUSTER_AUTHORIZATION_FAILED);

    tn_slot peer = {2};
    send_fetch_snapshot(&n, &peer, 11, "other-cluster", META, 1);
    TN_DECODE(&n, &peer, WIRE_API_FETCH_SNAPSHOT, 1, 11, wire_fetch_snapshot_response_decode,
              &resp);
    assert_int_equal(resp.error_code, KAFKA_INCONSISTENT_CLUSTER_ID);

    send_fetch_snapshot(&n, &peer, 12, TN_CLUSTER_ID, "other-topic", 1);
    TN_DECODE(&n, &peer, WIRE_API_FETCH_SNAPSHOT, 1, 12, wire_fetch_snapshot_response_decode,
              &resp);
    assert_int_equal(resp.error_code, KAFKA_NONE);
    assert_int_equal(resp.topic_count, 1);
    assert_true(kq_slice_eq_cstr(resp.topics[0].name, "other-topic"));
    assert_int_equal(resp.topics[0].partitions[0].error_code, KAFKA_UNKNOWN_TOPIC_OR_PARTITION);

    send_fetch_snapshot(&n, &peer, 13, TN_CLUSTER_ID, META, 2);
    TN_DECODE(&n, &peer, WIRE_API_FETCH_SNAPSHOT, 1, 13, wire_fetch_snapshot_response_decode,
              &resp);
    assert_int_equal(resp.error_code, KAFKA_INVALID_REQUEST);

    /* a truncated body closes the connection */
    kq_writer w;
    tn_begin_request(&w, WIRE_API_FETCH_SNAPSHOT, 1, 14);
    kq_write_i32(&w, 2);
    tn_deliver(&n, &peer, &w);
    assert_int_equal(tn_last(&n, &peer)->kind, TN_REPLY_CLOSE);
    tn_close(&n);
}

static bool advertises_fetch_snapshot(tn_node *n, tn_slot *s, int32_t corr)
{
    wire_api_versions_request req = {kq_slice_cstr("kq-test"), kq_slice_cstr("1.0")};
    TN_SEND(n, s, WIRE_API_API_VERSIONS, 3, corr, wire_api_versions_request_encode, &req);
    wire_api_versions_response resp;
    TN_DECODE(n, s, WIRE_API_API_VERSIONS, 3, corr, wire_api_versions_response_decode, &resp);
    for (int32_t i = 0; i < resp.api_key_count; i++)
        if (resp.api_keys[i].api_key == WIRE_API_FETCH_SNAPSHOT) {
            assert_int_equal(resp.api_keys[i].min_version, 0);
            assert_int_equal(resp.api_keys[i].max_version, 1);
            return true;
        }
    return false;
}

static void test_api_versions_per_listener(void **state)
{
    (void)state;
    tn_node n;
    tn_open(&n, 1, 3);
    tn_slot peer = {2}, client = {TN_CLIENT_LISTENER_ID + 1};
    assert_true(advertises_fetch_snapshot(&n, &peer, 20));
    assert_false(advertises_fetch_snapshot(&n, &client, 21));
    tn_close(&n);
}

static void test_request_to_peer_encoded(void **state)
{
    (void)state;
    tn_node n;
    tn_open(&n, 1, 3);
    raft_msg m = {.type = RAFT_MSG_FETCH_SNAPSHOT_REQUEST, .from = 1, .to = 2};
    m.u.fetch_snapshot_request = (raft_fetch_snapshot_request){
        .replica_id = 1, .current_leader_epoch = 4, .snapshot_id = {500, 3},
        .position = 8192, .max_bytes = 4096};
    kq_reader r;
    uint8_t *data = tn_encode_outbound(&n, &m, 77, WIRE_API_FETCH_SNAPSHOT, 1, &r);
    wire_fetch_snapshot_request req;
    assert_int_equal(wire_fetch_snapshot_request_decode(&r, 1, &n.arena, &req), 0);
    assert_int_equal(kq_reader_remaining(&r), 0);
    assert_true(kq_slice_eq_cstr(req.cluster_id, TN_CLUSTER_ID));
    assert_int_equal(req.replica_id, 1);
    assert_int_equal(req.max_bytes, 4096);
    assert_true(kq_slice_eq_cstr(req.topics[0].name, META));
    const wire_fetch_snapshot_partition *p = &req.topics[0].partitions[0];
    assert_int_equal(p->partition, 0);
    assert_int_equal(p->current_leader_epoch, 4);
    assert_int_equal(p->snapshot_id.end_offset, 500);
    assert_int_equal(p->snapshot_id.epoch, 3);
    assert_int_equal(p->position, 8192);
    free(data);
    tn_close(&n);
}

/* A response frame (header v1, then the body) as a peer would send it. */
static void peer_response(kq_writer *w, const wire_fetch_snapshot_response *b)
{
    kq_writer_init(w, 0);
    kq_write_i32(w, 77);
    kq_write_empty_tagged_fields(w);
    wire_fetch_snapshot_response_encode(w, 1, b);
    assert_false(w->error);
}

static void test_peer_answer_decoded(void **state)
{
    (void)state;
    tn_node n;
    tn_open(&n, 1, 3);
    static const uint8_t chunk[] = {1, 2, 3, 4, 5};
    wire_fetch_snapshot_partition_data pd = {0, KAFKA_NONE, {500, 3}, true, {2, 4}, 9000,
                                             8192, {chunk, 5}};
    wire_fetch_snapshot_topic_response tr = {kq_slice_cstr(META), &pd, 1};
    wire_fetch_snapshot_response b = {.topics = &tr, .topic_count = 1};
    kq_writer w;
    peer_response(&w, &b);
    raft_msg out;
    assert_true(handler_decode_raft_response(n.h, RAFT_MSG_FETCH_SNAPSHOT_REQUEST, 1, w.data,
                                             w.len, &out, NULL));
    assert_int_equal(out.type, RAFT_MSG_FETCH_SNAPSHOT_RESPONSE);
    const raft_fetch_snapshot_response *m = &out.u.fetch_snapshot_response;
    assert_int_equal(m->error, KAFKA_NONE);
    assert_int_equal(m->partition_error, KAFKA_NONE);
    assert_int_equal(m->leader_id, 2);
    assert_int_equal(m->leader_epoch, 4);
    assert_int_equal(m->snapshot_id.end_offset, 500);
    assert_int_equal(m->snapshot_id.epoch, 3);
    assert_int_equal(m->size, 9000);
    assert_int_equal(m->position, 8192);
    assert_int_equal(m->bytes_len, 5);
    assert_true(m->bytes >= w.data && m->bytes + 5 <= w.data + w.len); /* borrowed */
    assert_memory_equal(m->bytes, chunk, 5);
    kq_writer_free(&w);

    /* no partition and no top-level error: malformed; with one: an answer */
    b.topic_count = 0;
    peer_response(&w, &b);
    assert_false(handler_decode_raft_response(n.h, RAFT_MSG_FETCH_SNAPSHOT_REQUEST, 1, w.data,
                                              w.len, &out, NULL));
    kq_writer_free(&w);
    b.error_code = KAFKA_CLUSTER_AUTHORIZATION_FAILED;
    peer_response(&w, &b);
    assert_true(handler_decode_raft_response(n.h, RAFT_MSG_FETCH_SNAPSHOT_REQUEST, 1, w.data,
                                             w.len, &out, NULL));
    assert_int_equal(out.u.fetch_snapshot_response.error, KAFKA_CLUSTER_AUTHORIZATION_FAILED);
    assert_int_equal(out.u.fetch_snapshot_response.snapshot_id.end_offset, -1);
    kq_writer_free(&w);
    tn_close(&n);
}

/* A waiting request as handle_fetch_snapshot leaves it (the core's token). */
static uint64_t pending(tn_node *n, tn_slot *s, int16_t key, int16_t version, int32_t corr)
{
    handler_request req = {.slot = s, .header = {key, version, corr, kq_slice_cstr("t")}};
    uint64_t token = raft_pending_add(n->h, &req, false);
    assert_true(token != 0);
    return token;
}

static void test_core_answer_sent_with_chunk(void **state)
{
    (void)state;
    tn_node n;
    tn_open(&n, 1, 3);
    tn_slot s = {2};
    raft_msg m = {.type = RAFT_MSG_FETCH_SNAPSHOT_RESPONSE, .to = 2};
    m.token = pending(&n, &s, WIRE_API_FETCH_SNAPSHOT, 1, 30);
    m.u.fetch_snapshot_response = (raft_fetch_snapshot_response){
        .leader_id = 1, .leader_epoch = 4, .snapshot_id = {500, 3}, .position = 100,
        .read_max_bytes = 3};
    static const uint8_t chunk[] = {7, 8, 9};
    handler_send_fetch_snapshot_response(n.h, &m, chunk, 3, 103, KAFKA_NONE);
    wire_fetch_snapshot_response resp;
    TN_DECODE(&n, &s, WIRE_API_FETCH_SNAPSHOT, 1, 30, wire_fetch_snapshot_response_decode, &resp);
    const wire_fetch_snapshot_partition_data *pd = &resp.topics[0].partitions[0];
    assert_true(kq_slice_eq_cstr(resp.topics[0].name, META));
    assert_int_equal(pd->error_code, KAFKA_NONE);
    assert_int_equal(pd->size, 103);
    assert_int_equal(pd->position, 100);
    assert_int_equal(pd->snapshot_id.end_offset, 500);
    assert_true(pd->has_current_leader);
    assert_int_equal(pd->current_leader.leader_epoch, 4);
    assert_int_equal(pd->unaligned_records.len, 3);
    assert_memory_equal(pd->unaligned_records.ptr, chunk, 3);
    int replies = tn_count(&n, &s);
    handler_send_fetch_snapshot_response(n.h, &m, chunk, 3, 103, KAFKA_NONE);
    assert_int_equal(tn_count(&n, &s), replies); /* the token is spent */

    /* a failed read: its error, no bytes */
    m.token = pending(&n, &s, WIRE_API_FETCH_SNAPSHOT, 0, 31);
    handler_send_fetch_snapshot_response(n.h, &m, chunk, 3, -1, KAFKA_SNAPSHOT_NOT_FOUND);
    TN_DECODE(&n, &s, WIRE_API_FETCH_SNAPSHOT, 0, 31, wire_fetch_snapshot_response_decode, &resp);
    assert_int_equal(resp.topics[0].partitions[0].error_code, KAFKA_SNAPSHOT_NOT_FOUND);
    assert_int_equal(resp.topics[0].partitions[0].unaligned_records.len, 0);

    /* through handler_send_raft_response: the msg's own bytes */
    m.token = pending(&n, &s, WIRE_API_FETCH_SNAPSHOT, 1, 32);
    m.u.fetch_snapshot_response.bytes = chunk;
    m.u.fetch_snapshot_response.bytes_len = 2;
    m.u.fetch_snapshot_response.size = 102;
    handler_send_raft_response(n.h, &m);
    TN_DECODE(&n, &s, WIRE_API_FETCH_SNAPSHOT, 1, 32, wire_fetch_snapshot_response_decode, &resp);
    assert_int_equal(resp.topics[0].partitions[0].unaligned_records.len, 2);
    assert_int_equal(resp.topics[0].partitions[0].size, 102);
    tn_close(&n);
}

/* Issue 19 item 13: the executor sizes a FetchSnapshot chunk by what the
 * response budget grants the connection that asked, as replica Fetch data. */
static void test_chunk_sized_by_the_budget(void **state)
{
    (void)state;
    tn_node n;
    tn_open(&n, 1, 3);
    tn_slot s = {2};
    uint64_t token = pending(&n, &s, WIRE_API_FETCH_SNAPSHOT, 1, 50);
    assert_int_equal(handler_raft_grant(n.h, token, 4096), 4096);
    n.grant_set = true;
    n.grant_bytes = 100;
    assert_int_equal(handler_raft_grant(n.h, token, 4096), 100);
    n.grant_bytes = 0;
    assert_int_equal(handler_raft_grant(n.h, token, 4096), 0);
    n.grant_set = false;
    raft_msg m = {.type = RAFT_MSG_FETCH_SNAPSHOT_RESPONSE, .to = 2, .token = token};
    m.u.fetch_snapshot_response = (raft_fetch_snapshot_response){
        .leader_id = 1, .leader_epoch = 4, .snapshot_id = {500, 3}, .position = 0};
    handler_send_fetch_snapshot_response(n.h, &m, NULL, 0, 103, KAFKA_NONE);
    wire_fetch_snapshot_response resp;
    TN_DECODE(&n, &s, WIRE_API_FETCH_SNAPSHOT, 1, 50, wire_fetch_snapshot_response_decode, &resp);
    /* no grant: the size and no bytes (the follower asks again) */
    assert_int_equal(resp.topics[0].partitions[0].error_code, KAFKA_NONE);
    assert_int_equal(resp.topics[0].partitions[0].size, 103);
    assert_int_equal(resp.topics[0].partitions[0].unaligned_records.len, 0);
    /* answered: the token grants nothing more; neither does a forged one */
    assert_int_equal(handler_raft_grant(n.h, token, 4096), 0);
    assert_int_equal(handler_raft_grant(n.h, 0, 4096), 0);
    assert_int_equal(handler_raft_grant(n.h, 0xffffffffffffULL, 4096), 0);
    tn_close(&n);
}

static void test_fetch_snapshot_id_both_ways(void **state)
{
    (void)state;
    tn_node n;
    tn_open(&n, 1, 3);
    tn_slot s = {2};
    raft_msg m = {.type = RAFT_MSG_FETCH_RESPONSE, .to = 2};
    m.token = pending(&n, &s, WIRE_API_FETCH, 17, 40);
    m.u.fetch_response = (raft_fetch_response){
        .high_watermark = 0, .leader_id = 1, .leader_epoch = 4, .diverging_epoch = -1,
        .diverging_end_offset = -1, .snapshot_id = {500, 3}};
    handler_send_raft_response(n.h, &m);
    wire_fetch_response resp;
    TN_DECODE(&n, &s, WIRE_API_FETCH, 17, 40, wire_fetch_response_decode, &resp);
    const wire_fetch_partition_data *pd = &resp.responses[0].partitions[0];
    assert_true(pd->has_snapshot_id);
    assert_int_equal(pd->snapshot_id.end_offset, 500);
    assert_int_equal(pd->snapshot_id.epoch, 3);

    m.token = pending(&n, &s, WIRE_API_FETCH, 17, 41);
    m.u.fetch_response.snapshot_id = (raft_snapshot_id){-1, -1};
    handler_send_raft_response(n.h, &m);
    TN_DECODE(&n, &s, WIRE_API_FETCH, 17, 41, wire_fetch_response_decode, &resp);
    assert_false(resp.responses[0].partitions[0].has_snapshot_id);

    /* a peer's answer: tag 2 present, then absent */
    for (int with = 1; with >= 0; with--) {
        wire_fetch_partition_data p = {.has_current_leader = true, .current_leader = {2, 4},
                                       .has_snapshot_id = with, .snapshot_id = {700, 5},
                                       .aborted_transaction_count = -1,
                                       .preferred_read_replica = -1,
                                       .records = {(const uint8_t *)"", 0}};
        wire_fetch_topic_response t = {.topic_id = WIRE_METADATA_TOPIC_ID, .partitions = &p,
                                       .partition_count = 1};
        wire_fetch_response b = {.responses = &t, .response_count = 1};
        kq_writer w;
        kq_writer_init(&w, 0);
        kq_write_i32(&w, 9);
        kq_write_empty_tagged_fields(&w);
        wire_fetch_response_encode(&w, 17, &b);
        raft_msg out;
        assert_true(handler_decode_raft_response(n.h, RAFT_MSG_FETCH_REQUEST, 17, w.data, w.len,
                                                 &out, NULL));
        assert_int_equal(out.u.fetch_response.snapshot_id.end_offset, with ? 700 : -1);
        assert_int_equal(out.u.fetch_response.snapshot_id.epoch, with ? 5 : -1);
        kq_writer_free(&w);
    }
    tn_close(&n);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_refusals_before_the_core),
        cmocka_unit_test(test_api_versions_per_listener),
        cmocka_unit_test(test_request_to_peer_encoded),
        cmocka_unit_test(test_peer_answer_decoded),
        cmocka_unit_test(test_core_answer_sent_with_chunk),
        cmocka_unit_test(test_chunk_sized_by_the_budget),
        cmocka_unit_test(test_fetch_snapshot_id_both_ways),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
