/* Followers and observers: fetch positions at the flushed end, append then
 * flush before fetching again, truncation on divergence, HW tracking,
 * fetch timeouts and EndQuorumEpoch. */
#include "raft_test_util.h"

static rt_records g_recs;

static raft *follower(uint32_t mutants, int64_t end, const raft_epoch_entry *ep, int n)
{
    raft_config c = rt_config(2, 3);
    c.mutants = mutants;
    return rt_create(&c, 3, -1, 1, end, ep, n);
}

/* Node 2 following 1 in epoch 3 that fetched n records of epoch 3 (t=1),
 * flushed them (t=2) and knows HW n. */
static raft *follower_with_hw(int n, raft_output *out)
{
    raft *r = follower(0, 0, NULL, 0);
    rt_tick(r, 0, out);
    g_recs.len = 0;
    rt_records_add(&g_recs, 0, 3, n);
    raft_msg resp = rt_fetch_resp(3, n, &g_recs);
    rt_recv(r, 1, &resp, out);
    rt_flushed(r, 2, n, out);
    assert_int_equal(out->high_watermark, n);
    return r;
}

static void test_follower_appends_flushes_then_fetches(void **state)
{
    (void)state;
    raft *r = follower(0, 0, NULL, 0);
    raft_output out;
    rt_tick(r, 0, &out);
    const raft_msg *f = rt_sent(&out, RAFT_MSG_FETCH_REQUEST, 1);
    assert_non_null(f);
    assert_int_equal(f->u.fetch_request.replica_id, 2);
    assert_int_equal(f->u.fetch_request.fetch_offset, 0);
    assert_int_equal(f->u.fetch_request.last_fetched_epoch, 0);
    assert_int_equal(f->u.fetch_request.current_leader_epoch, 3);
    assert_int_equal(f->u.fetch_request.max_wait_ms, 400);
    /* KIP-1166: its high watermark, -1 while unknown (KafkaRaftClient's
     * buildFetchRequest sends quorum.highWatermark() or -1) */
    assert_int_equal(f->u.fetch_request.high_watermark, -1);
    rt_tick(r, 10, &out);
    assert_null(rt_sent(&out, RAFT_MSG_FETCH_REQUEST, 1)); /* one in flight */

    g_recs.len = 0;
    rt_records_add(&g_recs, 0, 2, 3);
    rt_records_add(&g_recs, 3, 3, 2);
    size_t whole = g_recs.len;
    rt_records_add(&g_recs, 5, 3, 1);
    g_recs.len -= 10; /* a partial batch at the end (max_bytes cut it) */
    raft_msg resp = rt_fetch_resp(3, 4, &g_recs);
    rt_recv(r, 20, &resp, &out);
    assert_int_equal(out.action_count, 2);
    assert_int_equal(out.actions[0].type, RAFT_ACTION_APPEND);
    assert_int_equal(out.actions[0].append.base_offset, -1);
    assert_int_equal(out.actions[0].append.len, whole);
    assert_int_equal(out.actions[1].type, RAFT_ACTION_FLUSH);
    assert_int_equal(out.actions[1].offset, 5);
    assert_int_equal(out.high_watermark, 0); /* capped at our flushed end */

    rt_tick(r, 30, &out);
    assert_null(rt_sent(&out, RAFT_MSG_FETCH_REQUEST, 1)); /* waits for FLUSHED */

    rt_flushed(r, 40, 5, &out);
    assert_true(out.high_watermark_changed);
    assert_int_equal(out.high_watermark, 4); /* min(leader HW, own flushed) */
    f = rt_sent(&out, RAFT_MSG_FETCH_REQUEST, 1);
    assert_non_null(f);
    assert_int_equal(f->u.fetch_request.fetch_offset, 5);
    assert_int_equal(f->u.fetch_request.last_fetched_epoch, 3);
    assert_int_equal(f->u.fetch_request.high_watermark, 4); /* its own, not the leader's */

    g_recs.len = 0;
    resp = rt_fetch_resp(3, 9, &g_recs); /* empty, HW 9 -> ours is capped at 5 */
    rt_recv(r, 50, &resp, &out);
    assert_int_equal(out.high_watermark, 5);
    f = rt_sent(&out, RAFT_MSG_FETCH_REQUEST, 1);
    assert_non_null(f);
    assert_int_equal(f->u.fetch_request.high_watermark, 5);
    raft_status s;
    raft_get_status(r, &s);
    assert_int_equal(s.log_end_offset, 5);
    assert_int_equal(s.flushed_offset, 5);
    raft_destroy(r);
}

static void test_follower_drops_records_at_wrong_offset(void **state)
{
    (void)state;
    raft *r = follower(0, 0, NULL, 0);
    raft_output out;
    rt_tick(r, 0, &out);
    g_recs.len = 0;
    rt_records_add(&g_recs, 7, 3, 1);
    raft_msg resp = rt_fetch_resp(3, 0, &g_recs);
    rt_recv(r, 5, &resp, &out);
    assert_int_equal(rt_count(&out, RAFT_ACTION_APPEND), 0);
    assert_int_equal(rt_count(&out, RAFT_ACTION_FLUSH), 0);
    /* not the answer to the fetch at 0: that one stays in flight */
    rt_tick(r, 100, &out);
    assert_int_equal(rt_sent_count(&out, RAFT_MSG_FETCH_REQUEST), 0);
    rt_tick(r, 900, &out); /* request timeout + max wait */
    rt_tick(r, 950, &out); /* + retry backoff */
    assert_int_equal(rt_sent(&out, RAFT_MSG_FETCH_REQUEST, 1)->u.fetch_request.fetch_offset, 0);
    raft_destroy(r);
}

static void test_follower_truncates_on_divergence(void **state)
{
    (void)state;
    raft_epoch_entry ep[] = {{1, 0}, {2, 10}};
    raft *r = follower(0, 15, ep, 2);
    raft_output out;
    rt_tick(r, 0, &out);
    const raft_msg *f = rt_sent(&out, RAFT_MSG_FETCH_REQUEST, 1);
    assert_int_equal(f->u.fetch_request.fetch_offset, 15);
    assert_int_equal(f->u.fetch_request.last_fetched_epoch, 2);

    g_recs.len = 0;
    raft_msg resp = rt_fetch_resp(3, -1, &g_recs);
    resp.u.fetch_response.diverging_epoch = 1;
    resp.u.fetch_response.diverging_end_offset = 12; /* ours ends epoch 1 at 10 */
    rt_recv(r, 5, &resp, &out);
    assert_int_equal(out.actions[0].type, RAFT_ACTION_TRUNCATE);
    assert_int_equal(out.actions[0].offset, 10);
    f = rt_sent(&out, RAFT_MSG_FETCH_REQUEST, 1);
    assert_non_null(f);
    assert_int_equal(f->u.fetch_request.fetch_offset, 10);
    assert_int_equal(f->u.fetch_request.last_fetched_epoch, 1);
    raft_destroy(r);
}

static void test_follower_never_truncates_below_hw(void **state)
{
    (void)state;
    raft_output out;
    raft *r = follower_with_hw(4, &out);
    g_recs.len = 0;
    raft_msg resp = rt_fetch_resp(3, 4, &g_recs);
    resp.u.fetch_response.diverging_epoch = 0;
    resp.u.fetch_response.diverging_end_offset = 2;
    rt_recv(r, 3, &resp, &out);
    assert_int_equal(rt_count(&out, RAFT_ACTION_TRUNCATE), 0);
    raft_status s;
    raft_get_status(r, &s);
    assert_int_equal(s.log_end_offset, 4);
    raft_destroy(r);
}

/* Node 1, leader of epoch 1 with its LeaderChange batch flushed, appends
 * three client records (flush out from t=2100) and at t=2200 learns that
 * node 2 leads epoch 2. */
static raft *deposed_leader_with_flush_out(uint32_t mutants, raft_output *out)
{
    raft *r = rt_leader(3, mutants);
    rt_append(r, 2100, 3, out);
    assert_int_equal(rt_count(out, RAFT_ACTION_FLUSH), 1);
    raft_msg b;
    memset(&b, 0, sizeof(b));
    b.type = RAFT_MSG_BEGIN_EPOCH_REQUEST;
    b.from = 2;
    b.to = 1;
    b.token = 7;
    b.u.begin_epoch_request.leader_epoch = 2;
    b.u.begin_epoch_request.leader_id = 2;
    rt_recv(r, 2200, &b, out);
    raft_status s;
    raft_get_status(r, &s);
    assert_int_equal(s.role, RAFT_ROLE_FOLLOWER);
    assert_int_equal(s.flushed_offset, 1);
    assert_int_equal(s.log_end_offset, 4);
    assert_null(rt_sent(out, RAFT_MSG_FETCH_REQUEST, 2)); /* its flush is out */
    return r;
}

static raft_msg from_node2(raft_msg m)
{
    m.from = 2;
    m.to = 1;
    m.u.fetch_response.leader_id = 2;
    return m;
}

/* A flush out for a quarter of the fetch timeout: a keepalive fetch at the
 * flushed end (durable progress only), no long poll, repeated at that pace;
 * its records are not appended. */
static void test_keepalive_fetch_during_slow_flush(void **state)
{
    (void)state;
    raft_output out;
    raft *r = deposed_leader_with_flush_out(0, &out);
    rt_tick(r, 2599, &out);
    assert_null(rt_sent(&out, RAFT_MSG_FETCH_REQUEST, 2));
    assert_true(out.wake_at_ms <= 2600);
    rt_tick(r, 2600, &out); /* 2100 + 2000 / 4 */
    const raft_msg *f = rt_sent(&out, RAFT_MSG_FETCH_REQUEST, 2);
    assert_non_null(f);
    assert_int_equal(f->u.fetch_request.fetch_offset, 1);
    assert_int_equal(f->u.fetch_request.last_fetched_epoch, 1);
    assert_int_equal(f->u.fetch_request.max_wait_ms, 0);
    assert_int_equal(f->u.fetch_request.max_bytes, 0);

    g_recs.len = 0;
    rt_records_add(&g_recs, 1, 2, 2); /* the leader sends a batch anyway */
    raft_msg resp = from_node2(rt_fetch_resp(2, 1, &g_recs));
    rt_recv(r, 2605, &resp, &out);
    assert_int_equal(rt_count(&out, RAFT_ACTION_APPEND), 0);
    assert_int_equal(rt_count(&out, RAFT_ACTION_TRUNCATE), 0);
    rt_tick(r, 3099, &out);
    assert_null(rt_sent(&out, RAFT_MSG_FETCH_REQUEST, 2));
    rt_tick(r, 3100, &out);
    assert_non_null(rt_sent(&out, RAFT_MSG_FETCH_REQUEST, 2));
    raft_destroy(r);
}

/* The keepalive's DivergingEpoch truncates below the flush still running;
 * that flush's FLUSHED then vouches for nothing above the cut, and the
 * next real fetch leaves at once. */
static void test_keepalive_divergence_cuts_below_running_flush(void **state)
{
    (void)state;
    raft_output out;
    raft *r = deposed_leader_with_flush_out(0, &out);
    rt_tick(r, 2600, &out);
    g_recs.len = 0;
    raft_msg resp = from_node2(rt_fetch_resp(2, 0, &g_recs));
    resp.u.fetch_response.diverging_epoch = 0; /* node 2 never had epoch 1 */
    resp.u.fetch_response.diverging_end_offset = 0;
    rt_recv(r, 2605, &resp, &out);
    assert_int_equal(out.actions[0].type, RAFT_ACTION_TRUNCATE);
    assert_int_equal(out.actions[0].offset, 0);
    const raft_msg *f = rt_sent(&out, RAFT_MSG_FETCH_REQUEST, 2);
    assert_non_null(f);
    assert_int_equal(f->u.fetch_request.fetch_offset, 0);
    assert_int_equal(f->u.fetch_request.max_wait_ms, 400);
    rt_flushed(r, 2700, 4, &out); /* a storage that forgot the cut */
    raft_status s;
    raft_get_status(r, &s);
    assert_int_equal(s.flushed_offset, 0);
    assert_int_equal(s.log_end_offset, 0);
    raft_destroy(r);
}

/* The follower's HW never covers flushed data the leader did not confirm:
 * here its own epoch-1 records, flushed after a keepalive taught it the
 * new leader's HW (mutant follower-hw-unverified: it does). */
static void check_hw_capped_at_verified(uint32_t mutants, int64_t want_hw)
{
    raft_output out;
    raft *r = deposed_leader_with_flush_out(mutants, &out);
    rt_tick(r, 2600, &out);
    g_recs.len = 0;
    raft_msg resp = from_node2(rt_fetch_resp(2, 10, &g_recs));
    rt_recv(r, 2605, &resp, &out);
    rt_flushed(r, 2700, 4, &out);
    raft_status s;
    raft_get_status(r, &s);
    assert_int_equal(s.flushed_offset, 4);
    assert_int_equal(s.high_watermark, want_hw);
    raft_destroy(r);
}

static void test_follower_hw_only_over_confirmed_log(void **state)
{
    (void)state;
    check_hw_capped_at_verified(0, 1);
    check_hw_capped_at_verified(RAFT_MUTANT_FOLLOWER_HW_UNVERIFIED, 4);
}

static void test_fetch_error_learns_new_leader(void **state)
{
    (void)state;
    raft *r = follower(0, 0, NULL, 0);
    raft_output out;
    rt_tick(r, 0, &out);
    raft_msg resp = rt_fetch_resp(4, -1, &g_recs);
    resp.u.fetch_response.partition_error = KAFKA_FENCED_LEADER_EPOCH;
    resp.u.fetch_response.leader_id = 3;
    rt_recv(r, 5, &resp, &out);
    assert_int_equal(out.actions[0].type, RAFT_ACTION_STORE_QSTATE);
    assert_int_equal(out.actions[0].qstate.epoch, 4);
    assert_int_equal(out.actions[0].qstate.leader_id, 3);
    const raft_msg *f = rt_sent(&out, RAFT_MSG_FETCH_REQUEST, 3);
    assert_non_null(f);
    assert_int_equal(f->u.fetch_request.current_leader_epoch, 4);
    raft_destroy(r);
}

/* Ticks r each ms from `from` until it leaves the follower role or `until`
 * passes; returns that time (until + 1 if it never left). */
static int64_t fetch_timeout_at(raft *r, int64_t from, int64_t until, raft_output *out)
{
    raft_status s;
    for (int64_t t = from; t <= until; t++) {
        rt_tick(r, t, out);
        raft_get_status(r, &s);
        if (s.role != RAFT_ROLE_FOLLOWER)
            return t;
    }
    return until + 1;
}

/* A voter whose fetch timer the leader's answer reset at `reset` (node, seed
 * given): the time it stops following. */
static int64_t voter_timeout_after_reset(int32_t node, uint64_t seed, int64_t reset)
{
    raft_config c = rt_config(node, 3);
    c.random_seed = seed;
    raft *r = rt_create(&c, 3, -1, 1, 0, NULL, 0);
    raft_output out;
    rt_tick(r, 0, &out);
    g_recs.len = 0;
    raft_msg resp = rt_fetch_resp(3, -1, &g_recs);
    resp.to = node;
    rt_recv(r, reset, &resp, &out);
    int64_t at = fetch_timeout_at(r, reset + 1, reset + 4000, &out);
    raft_status s;
    raft_get_status(r, &s);
    assert_int_equal(s.role, RAFT_ROLE_PROSPECTIVE);
    raft_destroy(r);
    return at;
}

/* A follower that knew HW 5 wins the next election: until its epoch
 * commits, its Fetch answers say -1, as Kafka's (LeaderState.highWatermark()
 * is empty until then): another follower may know a higher HW than ours,
 * and Kafka's FollowerState.updateHighWatermark throws on one going back. */
static void test_new_leader_tells_no_hw_until_its_epoch_commits(void **state)
{
    (void)state;
    raft_output out;
    raft *r = follower_with_hw(5, &out); /* node 2 follows 1 in epoch 3 */
    int64_t at = fetch_timeout_at(r, 30, 5000, &out);
    raft_status s;
    raft_get_status(r, &s);
    assert_int_equal(s.role, RAFT_ROLE_PROSPECTIVE);
    raft_msg yes = rt_vote_resp(3, 3, true);
    yes.to = 2;
    rt_recv(r, at, &yes, &out); /* candidate in epoch 4 */
    yes = rt_vote_resp(3, 4, true);
    yes.to = 2;
    rt_recv(r, at + 1, &yes, &out);
    raft_get_status(r, &s);
    assert_int_equal(s.role, RAFT_ROLE_LEADER);
    rt_flushed(r, at + 2, 6, &out); /* its LeaderChange batch at 5 */

    raft_msg f = rt_fetch_req(3, 4, 5, 3, 0, 61); /* node 3 still at 5 */
    rt_recv(r, at + 3, &f, &out);
    const raft_msg *a = rt_sent(&out, RAFT_MSG_FETCH_RESPONSE, 3);
    assert_non_null(a);
    assert_int_equal(a->u.fetch_response.high_watermark, -1);
    raft_get_status(r, &s);
    assert_int_equal(s.high_watermark, -1);

    f = rt_fetch_req(3, 4, 6, 4, 0, 62); /* node 3 has the LeaderChange: committed */
    rt_recv(r, at + 4, &f, &out);
    a = rt_sent(&out, RAFT_MSG_FETCH_RESPONSE, 3);
    assert_non_null(a);
    assert_int_equal(a->u.fetch_response.high_watermark, 6);
    raft_destroy(r);
}

static void test_fetch_timeout_makes_prospective(void **state)
{
    (void)state;
    raft *r = follower(0, 0, NULL, 0);
    raft_output out;
    rt_tick(r, 0, &out);
    g_recs.len = 0;
    raft_msg resp = rt_fetch_resp(3, -1, &g_recs);
    rt_recv(r, 800, &resp, &out); /* a successful fetch resets the timer */
    /* fetch timeout 2000 plus a jitter below election_timeout / 2 = 500 */
    assert_int_equal(fetch_timeout_at(r, 801, 2799, &out), 2800); /* not before */
    int64_t at = fetch_timeout_at(r, 2800, 3299, &out);
    assert_true(at >= 2800 && at < 3300);
    raft_status s;
    raft_get_status(r, &s);
    /* pre-vote: the epoch, vote and leader stay (nothing stored) */
    assert_int_equal(s.role, RAFT_ROLE_PROSPECTIVE);
    assert_int_equal(s.epoch, 3);
    assert_int_equal(s.leader_id, 1);
    assert_int_equal(rt_count(&out, RAFT_ACTION_STORE_QSTATE), 0);
    assert_string_equal(out.reason, "prospective in epoch 3: fetch timeout");
    assert_int_equal(rt_sent_count(&out, RAFT_MSG_VOTE_REQUEST), 2);
    const raft_msg *v = rt_sent(&out, RAFT_MSG_VOTE_REQUEST, 3);
    assert_non_null(v);
    assert_true(v->u.vote_request.pre_vote);
    assert_int_equal(v->u.vote_request.candidate_epoch, 3); /* its own (buildVoteRequest) */
    assert_int_equal(v->u.vote_request.candidate_id, 2);
    raft_destroy(r);
}

/* The jitter covers the window: over seeds the deadline is neither fixed nor
 * outside [reset + 2000, reset + 2500). */
static void test_fetch_timeout_jitter_window(void **state)
{
    (void)state;
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (uint64_t seed = 1; seed <= 64; seed++) {
        int64_t at = voter_timeout_after_reset(2, seed, 800) - 800;
        assert_true(at >= 2000 && at < 2500);
        lo = at < lo ? at : lo;
        hi = at > hi ? at : hi;
    }
    assert_true(lo < 2100); /* 64 uniform draws: spread over the window */
    assert_true(hi >= 2400);
}

/* The failover split vote: the leader's answers reset both survivors' timers
 * in the same ms. They must (nearly always) time out apart, so the first
 * candidate's VoteRequest reaches the other while it still follows. */
static void test_followers_reset_together_time_out_apart(void **state)
{
    (void)state;
    int apart = 0, far_apart = 0;
    const int seeds = 200;
    for (int i = 0; i < seeds; i++) {
        uint64_t seed = 0x5eed0000u + (uint64_t)i;
        int64_t a = voter_timeout_after_reset(2, seed, 800);
        int64_t b = voter_timeout_after_reset(3, seed * 31 + 7, 800);
        int64_t d = a > b ? a - b : b - a;
        apart += d > 0;
        far_apart += d >= 20; /* more than a vote round trip on a LAN */
    }
    assert_true(apart >= seeds * 95 / 100);
    assert_true(far_apart >= seeds * 85 / 100); /* P(|d| < 20) ~ 8% */
}

/* Observers never stand, so they keep the plain fetch timeout. */
static void test_observer_fetch_timeout_not_jittered(void **state)
{
    (void)state;
    for (uint64_t seed = 1; seed <= 8; seed++) {
        raft_config c = rt_config(7, 3);
        c.random_seed = seed;
        raft *r = rt_create(&c, 3, -1, 1, 0, NULL, 0);
        raft_output out;
        rt_tick(r, 0, &out);
        assert_int_equal(fetch_timeout_at(r, 1, 3000, &out), 2000);
        raft_status s;
        raft_get_status(r, &s);
        assert_int_equal(s.role, RAFT_ROLE_UNATTACHED);
        raft_destroy(r);
    }
}

static raft_msg end_epoch(int32_t first, int32_t second)
{
    raft_msg m;
    memset(&m, 0, sizeof(m));
    m.type = RAFT_MSG_END_EPOCH_REQUEST;
    m.from = 1;
    m.token = 55;
    m.u.end_epoch_request.leader_epoch = 3;
    m.u.end_epoch_request.leader_id = 1;
    m.u.end_epoch_request.preferred_successors[0] = first;
    m.u.end_epoch_request.preferred_successors[1] = second;
    m.u.end_epoch_request.preferred_count = 2;
    return m;
}

static void test_end_epoch_preferred_successor(void **state)
{
    (void)state;
    raft *r = follower(0, 0, NULL, 0);
    raft_output out;
    rt_tick(r, 0, &out);
    raft_msg m = end_epoch(2, 3);
    rt_recv(r, 10, &m, &out);
    const raft_msg *resp = rt_sent(&out, RAFT_MSG_END_EPOCH_RESPONSE, 1);
    assert_non_null(resp);
    assert_int_equal(resp->token, 55);
    assert_int_equal(resp->u.end_epoch_response.partition_error, 0);
    raft_status s;
    raft_get_status(r, &s);
    /* first: at once, still through a pre-vote (see follower.c) */
    assert_int_equal(s.role, RAFT_ROLE_PROSPECTIVE);
    assert_int_equal(s.epoch, 3);
    assert_string_equal(out.reason,
                        "prospective in epoch 3: preferred successor after EndQuorumEpoch "
                        "from leader 1");
    assert_true(rt_sent(&out, RAFT_MSG_VOTE_REQUEST, 3)->u.vote_request.pre_vote);
    raft_destroy(r);

    r = follower(0, 0, NULL, 0);
    rt_tick(r, 0, &out);
    m = end_epoch(3, 2);
    rt_recv(r, 10, &m, &out);
    raft_get_status(r, &s);
    assert_int_equal(s.role, RAFT_ROLE_FOLLOWER);
    assert_int_equal(out.wake_at_ms, 10 + 50); /* second: retry_backoff_ms */
    rt_tick(r, 60, &out);
    raft_get_status(r, &s);
    assert_int_equal(s.role, RAFT_ROLE_PROSPECTIVE);
    assert_non_null(strstr(out.reason, "preferred successor after EndQuorumEpoch from leader 1"));
    assert_null(strstr(out.reason, "fetch timeout"));
    raft_destroy(r);
}

static void test_observer_finds_leader(void **state)
{
    (void)state;
    raft_config c = rt_config(7, 3);
    raft *r = rt_create(&c, 0, -1, -1, 0, NULL, 0);
    raft_output out;
    rt_tick(r, 0, &out);
    assert_int_equal(rt_sent_count(&out, RAFT_MSG_FETCH_REQUEST), 1);
    int32_t asked = rt_sent(&out, RAFT_MSG_FETCH_REQUEST, -1)->to;
    raft_msg resp;
    memset(&resp, 0, sizeof(resp));
    resp.type = RAFT_MSG_FETCH_RESPONSE;
    resp.from = asked;
    resp.u.fetch_response.partition_error = KAFKA_NOT_LEADER_OR_FOLLOWER;
    resp.u.fetch_response.leader_id = 2;
    resp.u.fetch_response.leader_epoch = 5;
    resp.u.fetch_response.diverging_epoch = -1;
    rt_recv(r, 1, &resp, &out);
    raft_status s;
    raft_get_status(r, &s);
    assert_int_equal(s.role, RAFT_ROLE_FOLLOWER);
    assert_int_equal(s.leader_id, 2);
    assert_non_null(rt_sent(&out, RAFT_MSG_FETCH_REQUEST, 2));
    /* an observer whose leader goes quiet looks again instead of campaigning */
    rt_tick(r, 1 + 2000, &out);
    raft_get_status(r, &s);
    assert_int_equal(s.role, RAFT_ROLE_UNATTACHED);
    assert_int_equal(rt_sent_count(&out, RAFT_MSG_VOTE_REQUEST), 0);
    raft_destroy(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_follower_appends_flushes_then_fetches),
        cmocka_unit_test(test_new_leader_tells_no_hw_until_its_epoch_commits),
        cmocka_unit_test(test_follower_drops_records_at_wrong_offset),
        cmocka_unit_test(test_follower_truncates_on_divergence),
        cmocka_unit_test(test_follower_never_truncates_below_hw),
        cmocka_unit_test(test_keepalive_fetch_during_slow_flush),
        cmocka_unit_test(test_keepalive_divergence_cuts_below_running_flush),
        cmocka_unit_test(test_follower_hw_only_over_confirmed_log),
        cmocka_unit_test(test_fetch_error_learns_new_leader),
        cmocka_unit_test(test_fetch_timeout_makes_prospective),
        cmocka_unit_test(test_fetch_timeout_jitter_window),
        cmocka_unit_test(test_followers_reset_together_time_out_apart),
        cmocka_unit_test(test_observer_fetch_timeout_not_jittered),
        cmocka_unit_test(test_end_epoch_preferred_successor),
        cmocka_unit_test(test_observer_finds_leader),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
