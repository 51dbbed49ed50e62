/* KIP-630 in the core: a leader sends a follower below its log start (or
 * with an epoch older than its snapshot's) the latest snapshot id; a
 * follower transfers it chunk by chunk, installs it once complete and
 * fetches on from its end; a transfer whose snapshot changes size, whose
 * leader changes or that the leader refuses is dropped; copies of earlier
 * answers are ignored; a leader never installs (LeaderNeverLoadSnapshot). */
#include "raft_test_util.h"

static const raft_snapshot_id SNAP = {.end_offset = 100, .epoch = 2};

/* The only voter, 1, leading with its log [80, 120) and snapshots at 80
 * (epoch 2) and 100 (epoch 2); replica 2 fetches as an observer. */
static raft *leader_with_snapshots(raft_output *out)
{
    raft_config c = rt_config(1, 1);
    raft_epoch_entry ep[] = {{2, 10}, {3, 110}};
    raft_quorum_state q = {.epoch = 3, .voted_id = -1, .leader_id = -1};
    raft_log_state log = {.end_offset = 120, .epochs = ep, .epoch_count = 2,
                          .start_offset = 80,
                          .start_snapshot = {.end_offset = 80, .epoch = 2},
                          .latest_snapshot = SNAP};
    raft *r = raft_create(&c, &q, &log, 0);
    assert_non_null(r);
    rt_tick(r, 0, out);
    raft_status st;
    raft_get_status(r, &st);
    assert_int_equal(st.role, RAFT_ROLE_LEADER);
    assert_int_equal(st.log_start_offset, 80);
    return r;
}

static void test_leader_answers_with_snapshot(void **state)
{
    (void)state;
    raft_output out;
    raft *r = leader_with_snapshots(&out);
    raft_status st;
    raft_get_status(r, &st);
    struct { int64_t offset; int32_t epoch; bool snapshot; } cases[] = {
        {50, 2, true},   /* below the log start */
        {0, 0, true},    /* an empty follower */
        {80, 1, true},   /* at the start, another epoch than the snapshot's */
        {90, 1, true},   /* an epoch older than the snapshot at the start */
        {80, 2, false},  /* exactly at the start */
        {105, 2, false}, /* inside the log */
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        raft_msg req = rt_fetch_req(2, st.epoch, cases[i].offset, cases[i].epoch, 0, 7);
        rt_recv(r, 6100, &req, &out);
        const raft_msg *resp = rt_sent(&out, RAFT_MSG_FETCH_RESPONSE, 2);
        assert_non_null(resp);
        const raft_fetch_response *f = &resp->u.fetch_response;
        if (cases[i].snapshot) {
            assert_int_equal(f->snapshot_id.end_offset, SNAP.end_offset);
            assert_int_equal(f->snapshot_id.epoch, SNAP.epoch);
            assert_true(f->read_offset == f->read_end_offset); /* no records */
        } else {
            assert_true(f->snapshot_id.end_offset < 0);
        }
    }
    raft_destroy(r);
}

static void test_leader_serves_fetch_snapshot(void **state)
{
    (void)state;
    raft_output out;
    raft *r = leader_with_snapshots(&out);
    raft_status st;
    raft_get_status(r, &st);
    raft_msg m = {.type = RAFT_MSG_FETCH_SNAPSHOT_REQUEST, .from = 2, .to = 1, .token = 9};
    m.u.fetch_snapshot_request = (raft_fetch_snapshot_request){
        .replica_id = 2, .current_leader_epoch = st.epoch, .snapshot_id = SNAP,
        .position = 4096, .max_bytes = 1 << 30};
    rt_recv(r, 6200, &m, &out);
    const raft_msg *resp = rt_sent(&out, RAFT_MSG_FETCH_SNAPSHOT_RESPONSE, 2);
    assert_non_null(resp);
    assert_int_equal(resp->token, 9);
    assert_int_equal(resp->u.fetch_snapshot_response.partition_error, KAFKA_NONE);
    assert_int_equal(resp->u.fetch_snapshot_response.position, 4096);
    assert_int_equal(resp->u.fetch_snapshot_response.read_max_bytes, 1 << 20); /* capped */
    m.u.fetch_snapshot_request.current_leader_epoch = st.epoch - 1;
    rt_recv(r, 6201, &m, &out);
    resp = rt_sent(&out, RAFT_MSG_FETCH_SNAPSHOT_RESPONSE, 2);
    assert_int_equal(resp->u.fetch_snapshot_response.partition_error, KAFKA_FENCED_LEADER_EPOCH);
    raft_destroy(r);
}

/* Follower 2 of leader 1 in epoch 3 with an empty log; returns after the
 * fetch that the leader answers with SNAP. */
static raft *follower_told_snapshot(raft_output *out)
{
    raft_config c = rt_config(2, 3);
    c.fetch_snapshot_max_bytes = 10;
    raft *r = rt_create(&c, 3, -1, 1, 0, NULL, 0);
    rt_tick(r, 0, out);
    assert_non_null(rt_sent(out, RAFT_MSG_FETCH_REQUEST, 1));
    rt_records none = {.len = 0};
    raft_msg resp = rt_fetch_resp(3, 150, &none);
    resp.u.fetch_response.snapshot_id = SNAP;
    rt_recv(r, 10, &resp, out);
    raft_status st;
    raft_get_status(r, &st);
    assert_true(st.fetching_snapshot);
    return r; /* out holds the first FetchSnapshot */
}

static raft_msg chunk(int32_t epoch, int64_t position, int64_t size, const uint8_t *b, size_t n)
{
    raft_msg m = {.type = RAFT_MSG_FETCH_SNAPSHOT_RESPONSE, .from = 1, .to = 2};
    raft_fetch_snapshot_response *f = &m.u.fetch_snapshot_response;
    f->leader_id = 1;
    f->leader_epoch = epoch;
    f->snapshot_id = SNAP;
    f->position = position;
    f->size = size;
    f->bytes = b;
    f->bytes_len = n;
    return m;
}

static void test_follower_transfers_and_installs(void **state)
{
    (void)state;
    static const uint8_t bytes[25] = {1, 2, 3};
    raft_output out;
    raft *r = follower_told_snapshot(&out);
    int64_t t = 20;
    for (int64_t pos = 0; pos < 25; pos += 10) {
        const raft_msg *req = rt_sent(&out, RAFT_MSG_FETCH_SNAPSHOT_REQUEST, 1);
        assert_non_null(req);
        assert_int_equal(req->u.fetch_snapshot_request.position, pos);
        assert_int_equal(req->u.fetch_snapshot_request.snapshot_id.end_offset, 100);
        assert_int_equal(req->u.fetch_snapshot_request.max_bytes, 10);
        size_t n = pos + 10 <= 25 ? 10 : (size_t)(25 - pos);
        raft_msg c = chunk(3, pos, 25, bytes + pos, n);
        rt_recv(r, t++, &c, &out);
        int w = rt_find(&out, RAFT_ACTION_SNAPSHOT_WRITE, 0);
        assert_true(w >= 0);
        assert_int_equal(out.actions[w].snapshot.position, pos);
        assert_int_equal(out.actions[w].snapshot.len, n);
        if (pos + 10 < 25) /* the next request leaves with the write */
            assert_int_equal(rt_count(&out, RAFT_ACTION_SNAPSHOT_INSTALL), 0);
    }
    assert_int_equal(rt_count(&out, RAFT_ACTION_SNAPSHOT_INSTALL), 1);
    rt_tick(r, t++, &out);
    assert_null(rt_sent(&out, RAFT_MSG_FETCH_SNAPSHOT_REQUEST, 1)); /* waits for the install */
    assert_null(rt_sent(&out, RAFT_MSG_FETCH_REQUEST, 1));
    raft_event ev = {.type = RAFT_EVENT_SNAPSHOT_INSTALLED, .now_ms = t++};
    ev.installed.ok = true;
    ev.installed.snapshot_id = SNAP;
    raft_step(r, &ev, &out);
    raft_status st;
    raft_get_status(r, &st);
    assert_int_equal(st.log_end_offset, 100);
    assert_int_equal(st.log_start_offset, 100);
    assert_false(st.fetching_snapshot);
    const raft_msg *f = rt_sent(&out, RAFT_MSG_FETCH_REQUEST, 1);
    assert_non_null(f);
    assert_int_equal(f->u.fetch_request.fetch_offset, 100);
    assert_int_equal(f->u.fetch_request.last_fetched_epoch, 2); /* the snapshot's */
    raft_destroy(r);
}

static void test_transfer_restarts_when_size_changes(void **state)
{
    (void)state;
    static const uint8_t bytes[30];
    raft_output out;
    raft *r = follower_told_snapshot(&out);
    raft_msg c = chunk(3, 0, 25, bytes, 10);
    rt_recv(r, 20, &c, &out);
    c = chunk(3, 10, 30, bytes, 10); /* replaced by a larger file */
    rt_recv(r, 22, &c, &out);
    assert_int_equal(rt_count(&out, RAFT_ACTION_SNAPSHOT_ABORT), 1);
    assert_int_equal(rt_count(&out, RAFT_ACTION_SNAPSHOT_WRITE), 0);
    raft_status st;
    raft_get_status(r, &st);
    assert_false(st.fetching_snapshot);
    rt_tick(r, 200, &out); /* after the backoff: a Fetch again */
    assert_non_null(rt_sent(&out, RAFT_MSG_FETCH_REQUEST, 1));
    raft_destroy(r);
}


static void test_transfer_dropped_on_refusal_and_leader_change(void **state)
{
    (void)state;
    static const uint8_t bytes[10];
    raft_output out;
    raft *r = follower_told_snapshot(&out);
    raft_msg c = chunk(3, 0, 25, bytes, 10);
    c.u.fetch_snapshot_response.partition_error = KAFKA_SNAPSHOT_NOT_FOUND;
    rt_recv(r, 20, &c, &out);
    assert_int_equal(rt_count(&out, RAFT_ACTION_SNAPSHOT_ABORT), 1);
    raft_destroy(r);

    r = follower_told_snapshot(&out); /* then a new leader begins an epoch */
    raft_msg b = {.type = RAFT_MSG_BEGIN_EPOCH_REQUEST, .from = 3, .to = 2, .token = 5};
    b.u.begin_epoch_request.leader_epoch = 4;
    b.u.begin_epoch_request.leader_id = 3;
    rt_recv(r, 30, &b, &out);
    assert_int_equal(rt_count(&out, RAFT_ACTION_SNAPSHOT_ABORT), 1);
    raft_status st;
    raft_get_status(r, &st);
    assert_false(st.fetching_snapshot);
    raft_destroy(r);
}

static void test_stale_answers_ignored(void **state)
{
    (void)state;
    static const uint8_t bytes[10];
    raft_output out;
    raft *r = follower_told_snapshot(&out);
    raft_msg c = chunk(3, 10, 25, bytes, 10); /* not the position asked (0) */
    rt_recv(r, 20, &c, &out);
    assert_int_equal(rt_count(&out, RAFT_ACTION_SNAPSHOT_WRITE), 0);
    c = chunk(3, 0, 25, bytes, 10);
    rt_recv(r, 21, &c, &out);
    assert_int_equal(rt_count(&out, RAFT_ACTION_SNAPSHOT_WRITE), 1);
    raft_destroy(r);

    /* After an install at 100, a copy of the answer naming the same
     * snapshot (for the fetch at 0) does not start a second transfer. */
    raft_config cfg = rt_config(2, 3);
    raft_quorum_state q = {.epoch = 3, .voted_id = -1, .leader_id = 1};
    raft_log_state log = {.end_offset = 100, .start_offset = 100, .start_snapshot = SNAP,
                          .latest_snapshot = SNAP};
    r = raft_create(&cfg, &q, &log, 0);
    rt_tick(r, 0, &out);
    const raft_msg *f = rt_sent(&out, RAFT_MSG_FETCH_REQUEST, 1);
    assert_non_null(f);
    assert_int_equal(f->u.fetch_request.last_fetched_epoch, 2);
    rt_records none = {.len = 0};
    raft_msg resp = rt_fetch_resp(3, 150, &none);
    resp.u.fetch_response.snapshot_id = SNAP;
    rt_recv(r, 10, &resp, &out);
    raft_status st;
    raft_get_status(r, &st);
    assert_false(st.fetching_snapshot);
    raft_destroy(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_leader_answers_with_snapshot),
        cmocka_unit_test(test_leader_serves_fetch_snapshot),
        cmocka_unit_test(test_follower_transfers_and_installs),
        cmocka_unit_test(test_transfer_restarts_when_size_changes),
        cmocka_unit_test(test_transfer_dropped_on_refusal_and_leader_change),
        cmocka_unit_test(test_stale_answers_ignored),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
