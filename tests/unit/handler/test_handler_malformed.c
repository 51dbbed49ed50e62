/* Malformed frames are answered by closing the connection, never by a crash;
 * thousands of random and mutated frames leave the handler working. */
#include "handler_test_node.h"

#include <fcntl.h>

#include "kq/wire_add_raft_voter.h"
#include "kq/wire_api_versions.h"
#include "kq/wire_begin_quorum_epoch.h"
#include "kq/wire_describe_cluster.h"
#include "kq/wire_describe_quorum.h"
#include "kq/wire_end_quorum_epoch.h"
#include "kq/wire_fetch.h"
#include "kq/wire_find_coordinator.h"
#include "kq/wire_init_producer_id.h"
#include "kq/wire_list_offsets.h"
#include "kq/wire_metadata.h"
#include "kq/wire_produce.h"
#include "kq/wire_vote.h"
#include "kq/wire_describe_groups.h"
#include "kq/wire_heartbeat.h"
#include "kq/wire_join_group.h"
#include "kq/wire_leave_group.h"
#include "kq/wire_list_groups.h"
#include "kq/wire_offset_commit.h"
#include "kq/wire_offset_fetch.h"
#include "kq/wire_remove_raft_voter.h"
#include "kq/wire_sync_group.h"
#include "kq/wire_update_raft_voter.h"

#define META "__cluster_metadata"

static void assert_closed_once(tn_node *n, tn_slot *s)
{
    assert_int_equal(tn_count(n, s), 1);
    assert_int_equal(tn_last(n, s)->kind, TN_REPLY_CLOSE);
}

static void metadata_frame(kq_writer *w, int16_t v, int32_t corr)
{
    wire_metadata_request_topic topics[] = {{.name = kq_slice_cstr(META)}};
    wire_metadata_request req = {.topics = topics, .topic_count = 1,
                                 .allow_auto_topic_creation = true};
    tn_begin_request(w, WIRE_API_METADATA, v, corr);
    wire_metadata_request_encode(w, v, &req);
}

static void produce_frame(kq_writer *w, int16_t v, int32_t corr, int16_t acks,
                          const kq_writer *batch)
{
    wire_produce_partition p = {.index = 0, .records = {batch->data, (int32_t)batch->len}};
    wire_produce_topic t = {.name = kq_slice_cstr(META), .partitions = &p, .partition_count = 1};
    wire_produce_request req = {.transactional_id = {NULL, -1}, .acks = acks,
                                .timeout_ms = 1000, .topics = &t, .topic_count = 1};
    tn_begin_request(w, WIRE_API_PRODUCE, v, corr);
    wire_produce_request_encode(w, v, &req);
}

static void test_truncated_header(void **state)
{
    (void)state;
    tn_node n;
    tn_open_leader(&n);
    tn_slot s1 = {1}, s2 = {2}, s3 = {3};
    static const uint8_t three[] = {0x00, 0x03, 0x00};
    tn_deliver_raw(&n, &s1, three, sizeof(three));
    assert_closed_once(&n, &s1);
    tn_deliver_raw(&n, &s2, three, 0);
    assert_closed_once(&n, &s2);
    /* client id claims 10 bytes, 2 follow */
    static const uint8_t short_client[] = {0, 3, 0, 1, 0, 0, 0, 7, 0, 10, 'a', 'b'};
    tn_deliver_raw(&n, &s3, short_client, sizeof(short_client));
    assert_closed_once(&n, &s3);
    tn_close(&n);
}

static void test_truncated_body(void **state)
{
    (void)state;
    tn_node n;
    tn_open_leader(&n);
    tn_slot s1 = {1}, s2 = {2}, s3 = {3};
    kq_writer w;
    metadata_frame(&w, 1, 5);
    w.len -= 2;
    tn_deliver(&n, &s1, &w);
    assert_closed_once(&n, &s1);

    kq_writer b;
    tn_batch(&b, -1, -1, -1, 2, "cut");
    produce_frame(&w, 9, 6, -1, &b);
    kq_writer_free(&b);
    w.len -= 5; /* records and tags cut short */
    tn_deliver(&n, &s2, &w);
    assert_closed_once(&n, &s2);
    assert_int_equal(kq_log_end_offset(n.log), 1);

    /* a whole Metadata v12 request with one byte missing */
    metadata_frame(&w, 12, 7);
    w.len -= 1;
    tn_deliver(&n, &s3, &w);
    assert_closed_once(&n, &s3);
    tn_close(&n);
}

static void test_unknown_key_and_unsupported_versions(void **state)
{
    (void)state;
    tn_node n;
    tn_open_leader(&n);
    tn_slot s1 = {1}, s2 = {2}, s3 = {3}, s4 = {4}, s5 = {5};
    kq_writer w;
    tn_begin_request(&w, 99, 0, 8);
    kq_write_i32(&w, 0);
    tn_deliver(&n, &s1, &w);
    assert_closed_once(&n, &s1);

    metadata_frame(&w, 13, 9); /* Metadata v13 is beyond what we speak */
    tn_deliver(&n, &s2, &w);
    assert_closed_once(&n, &s2);

    kq_writer b;
    tn_batch(&b, -1, -1, -1, 1, "old");
    produce_frame(&w, 2, 10, 1, &b); /* advertised but not accepted */
    tn_deliver(&n, &s3, &w);
    assert_closed_once(&n, &s3);
    produce_frame(&w, 13, 11, 1, &b);
    kq_writer_free(&b);
    tn_deliver(&n, &s4, &w);
    assert_closed_once(&n, &s4);
    assert_int_equal(kq_log_end_offset(n.log), 1);

    tn_begin_request(&w, WIRE_API_FETCH, 3, 12);
    kq_write_i32(&w, -1);
    tn_deliver(&n, &s5, &w);
    assert_closed_once(&n, &s5);
    tn_close(&n);
}

/* Destroying the handler with requests still waiting frees them (the
 * sanitizer's leak check fails this test otherwise). */
static void test_destroy_with_waiting_requests(void **state)
{
    (void)state;
    tn_node n;
    tn_open_leader(&n);
    tn_slot s1 = {1}, s2 = {2}, s3 = {3};
    kq_writer w, b;
    tn_batch(&b, -1, -1, -1, 1, "w");
    produce_frame(&w, 9, 1, -1, &b);
    tn_deliver(&n, &s1, &w);
    produce_frame(&w, 9, 2, 1, &b);
    tn_deliver(&n, &s2, &w);
    kq_writer_free(&b);
    wire_fetch_partition fp = {.partition = 0, .current_leader_epoch = -1, .fetch_offset = 1,
                               .last_fetched_epoch = -1, .log_start_offset = -1,
                               .partition_max_bytes = 1000};
    wire_fetch_topic ft = {.topic = kq_slice_cstr(META), .partitions = &fp, .partition_count = 1};
    wire_fetch_request fr = {.cluster_id = {NULL, -1}, .replica_id = -1, .replica_epoch = -1,
                             .max_wait_ms = 10000, .min_bytes = 1, .max_bytes = 1000,
                             .session_epoch = -1, .topics = &ft, .topic_count = 1,
                             .rack_id = kq_slice_cstr("")};
    TN_SEND(&n, &s3, WIRE_API_FETCH, 11, 3, wire_fetch_request_encode, &fr);
    assert_int_equal(tn_count(&n, &s1) + tn_count(&n, &s2) + tn_count(&n, &s3), 0);
    assert_true(handler_next_deadline(n.h) < INT64_MAX);
    tn_close(&n);
}

/* ---- random frames */

static uint64_t rng_state;

static uint64_t rng(void)
{
    uint64_t x = rng_state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    rng_state = x;
    return x;
}

#define CORPUS_MAX 64

typedef struct corpus {
    kq_writer frames[CORPUS_MAX];
    int count;
} corpus;

static kq_writer *corpus_next(corpus *c)
{
    assert_true(c->count < CORPUS_MAX);
    return &c->frames[c->count++];
}

/* Valid frames of the group APIs (issue 12), oldest and newest versions. */
static void build_group_corpus(corpus *c)
{
    kq_writer *w;
    wire_join_group_protocol jp = {kq_slice_cstr("range"), kq_slice_cstr("m")};
    wire_join_group_request jr = {.group_id = kq_slice_cstr("g"), .session_timeout_ms = 10000,
                                  .rebalance_timeout_ms = 10000, .member_id = kq_slice_cstr(""),
                                  .group_instance_id = {NULL, -1},
                                  .protocol_type = kq_slice_cstr("consumer"), .protocols = &jp,
                                  .protocol_count = 1, .reason = {NULL, -1}};
    wire_sync_group_assignment sa = {kq_slice_cstr("m-1"), kq_slice_cstr("a")};
    wire_sync_group_request sr = {.group_id = kq_slice_cstr("g"), .generation_id = 1,
                                  .member_id = kq_slice_cstr("m-1"), .group_instance_id = {NULL, -1},
                                  .protocol_type = {NULL, -1}, .protocol_name = {NULL, -1},
                                  .assignments = &sa, .assignment_count = 1};
    wire_heartbeat_request hb = {kq_slice_cstr("g"), 1, kq_slice_cstr("m-1"), {NULL, -1}};
    wire_leave_group_member lm = {kq_slice_cstr("m-1"), {NULL, -1}, {NULL, -1}};
    wire_leave_group_request lr = {kq_slice_cstr("g"), kq_slice_cstr("m-1"), &lm, 1};
    int16_t vs[2] = {0, 9};
    for (int i = 0; i < 2; i++) {
        tn_begin_request(w = corpus_next(c), WIRE_API_JOIN_GROUP, vs[i], 17);
        wire_join_group_request_encode(w, vs[i], &jr);
        tn_begin_request(w = corpus_next(c), WIRE_API_SYNC_GROUP, (int16_t)(vs[i] ? 5 : 0), 18);
        wire_sync_group_request_encode(w, (int16_t)(vs[i] ? 5 : 0), &sr);
        tn_begin_request(w = corpus_next(c), WIRE_API_HEARTBEAT, (int16_t)(vs[i] ? 4 : 0), 19);
        wire_heartbeat_request_encode(w, (int16_t)(vs[i] ? 4 : 0), &hb);
        tn_begin_request(w = corpus_next(c), WIRE_API_LEAVE_GROUP, (int16_t)(vs[i] ? 5 : 0), 20);
        wire_leave_group_request_encode(w, (int16_t)(vs[i] ? 5 : 0), &lr);
    }
    wire_offset_commit_partition cp = {0, 5, -1, kq_slice_cstr("md")};
    wire_offset_commit_topic ct = {.name = kq_slice_cstr(META), .topic_id = WIRE_METADATA_TOPIC_ID,
                                   .partitions = &cp, .partition_count = 1};
    wire_offset_commit_request oc = {.group_id = kq_slice_cstr("g"),
                                     .generation_id_or_member_epoch = -1,
                                     .member_id = kq_slice_cstr(""),
                                     .group_instance_id = {NULL, -1}, .retention_time_ms = -1,
                                     .topics = &ct, .topic_count = 1};
    int32_t part = 0;
    wire_offset_fetch_request_topic ft = {.name = kq_slice_cstr(META),
                                          .topic_id = WIRE_METADATA_TOPIC_ID,
                                          .partition_indexes = &part, .partition_index_count = 1};
    wire_offset_fetch_request_group fg = {kq_slice_cstr("g"), {NULL, -1}, -1, &ft, 1};
    wire_offset_fetch_request of = {.group_id = kq_slice_cstr("g"), .topics = &ft,
                                    .topic_count = 1, .groups = &fg, .group_count = 1};
    kq_slice gid = kq_slice_cstr("g");
    wire_describe_groups_request dg = {&gid, 1, false};
    wire_list_groups_request lg = {&gid, 1, &gid, 1};
    for (int16_t v = 0; v <= 10; v += 10) {
        int16_t cv = v ? 10 : 2, fv = v ? 10 : 1;
        tn_begin_request(w = corpus_next(c), WIRE_API_OFFSET_COMMIT, cv, 21);
        wire_offset_commit_request_encode(w, cv, &oc);
        tn_begin_request(w = corpus_next(c), WIRE_API_OFFSET_FETCH, fv, 22);
        wire_offset_fetch_request_encode(w, fv, &of);
        tn_begin_request(w = corpus_next(c), WIRE_API_DESCRIBE_GROUPS, (int16_t)(v ? 6 : 0), 23);
        wire_describe_groups_request_encode(w, (int16_t)(v ? 6 : 0), &dg);
        tn_begin_request(w = corpus_next(c), WIRE_API_LIST_GROUPS, (int16_t)(v ? 5 : 0), 24);
        wire_list_groups_request_encode(w, (int16_t)(v ? 5 : 0), &lg);
    }
}

static const kq_uuid voter_dir = {{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}};

/* Valid frames of the dynamic-voter APIs (KIP-853), every version. */
static void build_voters_corpus(corpus *c, int32_t node_id)
{
    kq_writer *w;
    wire_raft_listener l = {kq_slice_cstr("CONTROLLER"), kq_slice_cstr("h"), 9093};
    wire_add_raft_voter_request add = {.cluster_id = kq_slice_cstr(TN_CLUSTER_ID),
                                       .timeout_ms = 1000, .voter_id = node_id + 1,
                                       .voter_directory_id = voter_dir, .listeners = &l,
                                       .listener_count = 1, .ack_when_committed = true};
    for (int16_t v = 0; v <= 1; v++) {
        tn_begin_request(w = corpus_next(c), WIRE_API_ADD_RAFT_VOTER, v, 25);
        wire_add_raft_voter_request_encode(w, v, &add);
    }
    wire_remove_raft_voter_request rm = {kq_slice_cstr(TN_CLUSTER_ID), node_id, voter_dir};
    tn_begin_request(w = corpus_next(c), WIRE_API_REMOVE_RAFT_VOTER, 0, 26);
    wire_remove_raft_voter_request_encode(w, 0, &rm);
    wire_update_raft_voter_request up = {.cluster_id = kq_slice_cstr(TN_CLUSTER_ID),
                                         .current_leader_epoch = 1, .voter_id = node_id,
                                         .voter_directory_id = voter_dir, .listeners = &l,
                                         .listener_count = 1,
                                         .kraft_version_feature = {0, 1}};
    tn_begin_request(w = corpus_next(c), WIRE_API_UPDATE_RAFT_VOTER, 0, 27);
    wire_update_raft_voter_request_encode(w, 0, &up);
}

/* Every proper prefix of a dynamic-voter request closes the connection
 * and changes nothing; the whole frame is answered. */
static void test_truncated_voter_requests(void **state)
{
    (void)state;
    tn_node n;
    tn_open_leader(&n);
    corpus c = {0};
    build_voters_corpus(&c, n.node_id);
    raft_status before = tn_status(&n);
    static tn_slot slots[1024]; /* replies are kept by slot address: one per frame */
    int used = 0;
    for (int i = 0; i < c.count; i++) {
        const kq_writer *f = &c.frames[i];
        for (size_t len = 0; len <= f->len; len++) {
            assert_true(used < 1024);
            tn_slot *s = &slots[used++];
            s->id = 1 + used % 900; /* a controller listener */
            tn_deliver_raw(&n, s, f->data, len);
            if (len < f->len) {
                assert_closed_once(&n, s);
            } else {
                assert_int_equal(tn_count(&n, s), 1);
                assert_int_equal(tn_last(&n, s)->kind, TN_REPLY);
            }
        }
        kq_writer_free(&c.frames[i]);
    }
    raft_status after = tn_status(&n);
    assert_int_equal(after.epoch, before.epoch);
    assert_int_equal(after.voter_count, before.voter_count);
    assert_int_equal(after.log_end_offset, before.log_end_offset);
    tn_close(&n);
}

/* Valid frames of every API we answer, to mutate. */
static void build_corpus(corpus *c, int32_t node_id)
{
    kq_writer *w;
    kq_slice meta = kq_slice_cstr(META);
    kq_slice cluster = kq_slice_cstr(TN_CLUSTER_ID);

    wire_api_versions_request av = {kq_slice_cstr("x"), kq_slice_cstr("1")};
    for (int16_t v = 0; v <= 4; v += 3) {
        tn_begin_request(w = corpus_next(c), WIRE_API_API_VERSIONS, v, 1);
        wire_api_versions_request_encode(w, v, &av);
    }
    metadata_frame(corpus_next(c), 1, 2);
    metadata_frame(corpus_next(c), 12, 3);

    kq_writer b;
    tn_batch(&b, 777, 0, 0, 3, "g");
    produce_frame(corpus_next(c), 3, 4, 1, &b);
    produce_frame(corpus_next(c), 9, 5, -1, &b);
    produce_frame(corpus_next(c), 12, 6, 0, &b);
    kq_writer_free(&b);

    wire_fetch_partition fp = {.partition = 0, .current_leader_epoch = -1, .fetch_offset = 0,
                               .last_fetched_epoch = -1, .log_start_offset = -1,
                               .partition_max_bytes = 4096};
    wire_fetch_topic ft = {.topic = meta, .topic_id = WIRE_METADATA_TOPIC_ID, .partitions = &fp,
                           .partition_count = 1};
    wire_fetch_request fr = {.cluster_id = {NULL, -1}, .replica_id = -1, .replica_epoch = -1,
                             .max_wait_ms = 100, .min_bytes = 1, .max_bytes = 8192,
                             .session_epoch = -1, .topics = &ft, .topic_count = 1,
                             .rack_id = kq_slice_cstr("")};
    int16_t fetch_versions[] = {4, 11, 12, 13, 17};
    for (int i = 0; i < 5; i++) {
        tn_begin_request(w = corpus_next(c), WIRE_API_FETCH, fetch_versions[i], 7);
        wire_fetch_request_encode(w, fetch_versions[i], &fr);
    }
    fr.replica_id = node_id + 1; /* a replica fetch for the core */
    fr.cluster_id = cluster;
    tn_begin_request(w = corpus_next(c), WIRE_API_FETCH, 17, 8);
    wire_fetch_request_encode(w, 17, &fr);
    tn_begin_request(w = corpus_next(c), WIRE_API_FETCH, 11, 8);
    wire_fetch_request_encode(w, 11, &fr);

    wire_list_offsets_partition lp = {.partition_index = 0, .current_leader_epoch = -1,
                                      .timestamp = -3, .max_num_offsets = 1};
    wire_list_offsets_topic lt = {meta, &lp, 1};
    wire_list_offsets_request lr = {.replica_id = -1, .topics = &lt, .topic_count = 1};
    for (int16_t v = 0; v <= 8; v += 4) {
        tn_begin_request(w = corpus_next(c), WIRE_API_LIST_OFFSETS, v, 9);
        wire_list_offsets_request_encode(w, v, &lr);
    }

    wire_init_producer_id_request ip = {.transactional_id = {NULL, -1},
                                        .transaction_timeout_ms = 100, .producer_id = 5,
                                        .producer_epoch = 0};
    tn_begin_request(w = corpus_next(c), WIRE_API_INIT_PRODUCER_ID, 4, 10);
    wire_init_producer_id_request_encode(w, 4, &ip);
    wire_find_coordinator_request fc = {.key = kq_slice_cstr("g")};
    tn_begin_request(w = corpus_next(c), WIRE_API_FIND_COORDINATOR, 0, 11);
    wire_find_coordinator_request_encode(w, 0, &fc);
    wire_describe_cluster_request dc = {.endpoint_type = 2};
    tn_begin_request(w = corpus_next(c), WIRE_API_DESCRIBE_CLUSTER, 1, 12);
    wire_describe_cluster_request_encode(w, 1, &dc);
    wire_describe_quorum_partition qp = {0};
    wire_describe_quorum_topic qt = {meta, &qp, 1};
    wire_describe_quorum_request dq = {&qt, 1};
    tn_begin_request(w = corpus_next(c), WIRE_API_DESCRIBE_QUORUM, 2, 13);
    wire_describe_quorum_request_encode(w, 2, &dq);

    wire_vote_partition vp = {.partition_index = 0, .candidate_epoch = 1,
                              .candidate_id = node_id + 1, .last_offset_epoch = 0,
                              .last_offset = 0};
    wire_vote_topic vt = {meta, &vp, 1};
    wire_vote_request vr = {.cluster_id = cluster, .voter_id = node_id, .topics = &vt,
                            .topic_count = 1};
    tn_begin_request(w = corpus_next(c), WIRE_API_VOTE, 1, 14);
    wire_vote_request_encode(w, 1, &vr);
    wire_begin_quorum_epoch_partition bp = {.partition_index = 0, .leader_id = node_id + 1,
                                            .leader_epoch = 1};
    wire_begin_quorum_epoch_topic bt = {meta, &bp, 1};
    wire_raft_listener l = {kq_slice_cstr("PLAINTEXT"), kq_slice_cstr("h"), 1};
    wire_begin_quorum_epoch_request br = {.cluster_id = cluster, .voter_id = node_id,
                                          .topics = &bt, .topic_count = 1,
                                          .leader_endpoints = &l, .leader_endpoint_count = 1};
    tn_begin_request(w = corpus_next(c), WIRE_API_BEGIN_QUORUM_EPOCH, 1, 15);
    wire_begin_quorum_epoch_request_encode(w, 1, &br);
    int32_t succ[] = {node_id};
    wire_end_quorum_epoch_candidate cand[] = {{.candidate_id = node_id}};
    wire_end_quorum_epoch_partition ep = {.partition_index = 0, .leader_id = node_id + 1,
                                          .leader_epoch = 1, .preferred_successors = succ,
                                          .preferred_successor_count = 1,
                                          .preferred_candidates = cand,
                                          .preferred_candidate_count = 1};
    wire_end_quorum_epoch_topic et = {meta, &ep, 1};
    wire_end_quorum_epoch_request er = {.cluster_id = cluster, .topics = &et, .topic_count = 1,
                                        .leader_endpoints = &l, .leader_endpoint_count = 1};
    for (int16_t v = 0; v <= 1; v++) {
        tn_begin_request(w = corpus_next(c), WIRE_API_END_QUORUM_EPOCH, v, 16);
        wire_end_quorum_epoch_request_encode(w, v, &er);
    }
    build_group_corpus(c);
    build_voters_corpus(c, node_id);
    for (int i = 0; i < c->count; i++)
        assert_false(c->frames[i].error);
}

static const int16_t known_keys[] = {0, 1, 2, 3, 8, 9, 10, 11, 12, 13, 14, 15, 16, 18, 22,
                                     52, 53, 54, 55, 60};

/* One random frame into buf (at most cap bytes); returns its length. */
static size_t random_frame(const corpus *c, uint8_t *buf, size_t cap)
{
    size_t len = 0;
    switch (rng() % 5) {
    case 0: /* pure noise */
        len = rng() % 80;
        for (size_t i = 0; i < len; i++)
            buf[i] = (uint8_t)rng();
        break;
    case 1: { /* a plausible header, then noise */
        kq_writer w;
        int16_t key = known_keys[rng() % (sizeof(known_keys) / sizeof(known_keys[0]))];
        tn_begin_request(&w, key, (int16_t)(rng() % 19) - 1, (int32_t)rng());
        len = w.len < cap ? w.len : cap;
        memcpy(buf, w.data, len);
        kq_writer_free(&w);
        size_t extra = rng() % 120;
        for (size_t i = 0; i < extra && len < cap; i++)
            buf[len++] = (uint8_t)(rng() % 4 == 0 ? 0xff : rng() % 3);
        break;
    }
    default: { /* a valid frame, mutated: flipped bytes, truncated, or both */
        const kq_writer *f = &c->frames[rng() % (uint64_t)c->count];
        len = f->len < cap ? f->len : cap;
        memcpy(buf, f->data, len);
        int mode = (int)(rng() % 3);
        if (mode != 1) {
            int flips = 1 + (int)(rng() % 6);
            for (int i = 0; i < flips && len > 0; i++) {
                size_t at = 8 + rng() % (len > 8 ? len - 8 : 1);
                if (at < len)
                    buf[at] = rng() % 2 ? (uint8_t)rng() : (uint8_t)(buf[at] ^ (1u << (rng() % 8)));
            }
        }
        if (mode != 0 && len > 0)
            len = rng() % len;
        break;
    }
    }
    return len;
}

static void test_random_frames_never_crash(void **state)
{
    (void)state;
    tn_node n;
    tn_open_leader(&n);
    corpus c = {0};
    build_corpus(&c, n.node_id);
    rng_state = 0x9e3779b97f4a7c15ull;

    /* the handler logs every malformed frame: keep the test output readable */
    fflush(stderr);
    int saved = dup(2);
    int devnull = open("/dev/null", O_WRONLY);
    assert_true(saved >= 0 && devnull >= 0);
    dup2(devnull, 2);

    static uint8_t buf[8192];
    tn_slot slots[8];
    for (int i = 0; i < 8; i++)
        slots[i].id = i;
    int replies_before = n.reply_count;
    for (int i = 0; i < 4000; i++) {
        size_t len = random_frame(&c, buf, sizeof(buf));
        tn_deliver_raw(&n, &slots[i % 8], buf, len);
        if (i % 50 == 0)
            tn_flush(&n);
        if (i % 200 == 0)
            tn_tick(&n, n.now + 300);
    }
    /* answer everything still waiting */
    tn_flush(&n);
    tn_tick(&n, n.now + (INT64_C(1) << 32));
    tn_flush(&n);

    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    close(devnull);

    int closes = 0, answers = 0;
    for (int i = replies_before; i < n.reply_count; i++) {
        closes += n.replies[i].kind == TN_REPLY_CLOSE;
        answers += n.replies[i].kind == TN_REPLY;
    }
    /* the mix exercises both paths */
    assert_true(closes > 100);
    assert_true(answers > 100);
    print_message("random frames: %d answered, %d closed, %d log end offset\n", answers, closes,
                  (int)kq_log_end_offset(n.log));

    /* still serving */
    tn_slot s = {100};
    wire_api_versions_request av = {kq_slice_cstr("x"), kq_slice_cstr("1")};
    TN_SEND(&n, &s, WIRE_API_API_VERSIONS, 3, 4242, wire_api_versions_request_encode, &av);
    wire_api_versions_response resp;
    TN_DECODE(&n, &s, WIRE_API_API_VERSIONS, 3, 4242, wire_api_versions_response_decode, &resp);
    assert_int_equal(resp.error_code, KAFKA_NONE);

    for (int i = 0; i < c.count; i++)
        kq_writer_free(&c.frames[i]);
    tn_close(&n);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_truncated_header),
        cmocka_unit_test(test_truncated_body),
        cmocka_unit_test(test_unknown_key_and_unsupported_versions),
        cmocka_unit_test(test_destroy_with_waiting_requests),
        cmocka_unit_test(test_truncated_voter_requests),
        cmocka_unit_test(test_random_frames_never_crash),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
