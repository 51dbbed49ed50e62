/* Directory ids (issue 20 item 6): a new directory votes only for empty
 * logs until it has caught up, refuses a Vote meant for the directory it
 * replaced, and a leader counts a replaced voter toward the high watermark
 * only once it has fetched past the leader's end at the change. */
#include "raft_test_util.h"

static kq_uuid dir(uint8_t n)
{
    kq_uuid u;
    memset(&u, 0, sizeof u);
    u.bytes[0] = 0x40;
    u.bytes[15] = n;
    return u;
}

/* Node 2 of {1,2,3} on a new directory (id 22), empty log, epoch 2. */
static raft *new_directory_voter(uint32_t mutants)
{
    raft_config c = rt_config(2, 3);
    c.directory_id = dir(22);
    c.mutants = mutants;
    raft_quorum_state q = {.epoch = 2, .voted_id = -1, .leader_id = -1, .new_directory = true};
    q.directory_id = dir(22);
    raft_log_state ls = {.end_offset = 0};
    raft *r = raft_create(&c, &q, &ls, 0);
    assert_non_null(r);
    raft_output out;
    rt_tick(r, 0, &out);
    return r;
}

static const raft_vote_response *vote_answer(const raft_output *out, int32_t to)
{
    const raft_msg *m = rt_sent(out, RAFT_MSG_VOTE_RESPONSE, to);
    assert_non_null(m);
    return &m->u.vote_response;
}

/* The last quorum state the output stores. */
static const raft_action *stored(const raft_output *out)
{
    int last = -1;
    for (int i = rt_find(out, RAFT_ACTION_STORE_QSTATE, 0); i >= 0;
         i = rt_find(out, RAFT_ACTION_STORE_QSTATE, i + 1))
        last = i;
    assert_true(last >= 0);
    return &out->actions[last];
}

/* The scenario from the new directory's side: node 3 lacks the
 * records the replaced directory acknowledged; its (pre-)votes are refused. */
static void test_new_directory_refuses_non_empty_candidates(void **state)
{
    (void)state;
    raft *r = new_directory_voter(0);
    raft_output out;
    raft_msg v = rt_vote_req(3, 3, 1, 500, 7);
    v.u.vote_request.pre_vote = true;
    rt_recv(r, 10, &v, &out);
    assert_false(vote_answer(&out, 3)->vote_granted);
    v.u.vote_request.pre_vote = false;
    rt_recv(r, 11, &v, &out);
    assert_false(vote_answer(&out, 3)->vote_granted);
    raft_status s;
    raft_get_status(r, &s);
    assert_int_equal(s.voted_id, -1);
    raft_destroy(r);

    /* the mutant: it votes as its predecessor would have */
    r = new_directory_voter(RAFT_MUTANT_IGNORE_DIRECTORY_ID);
    rt_recv(r, 11, &v, &out);
    assert_true(vote_answer(&out, 3)->vote_granted);
    raft_destroy(r);
}

/* A Vote naming the directory this one replaced is refused (Kafka's
 * VoterDirectoryId), even from an empty log, and does not end the wait. */
static void test_vote_meant_for_replaced_directory(void **state)
{
    (void)state;
    raft *r = new_directory_voter(0);
    raft_output out;
    raft_msg v = rt_vote_req(3, 3, 0, 0, 7);
    v.u.vote_request.voter_directory_id = dir(2); /* the old one */
    rt_recv(r, 10, &v, &out);
    assert_false(vote_answer(&out, 3)->vote_granted);
    assert_int_equal(rt_find(&out, RAFT_ACTION_STORE_QSTATE, 0), -1);
    /* an empty log naming this directory (or none): a fresh cluster */
    v = rt_vote_req(3, 3, 0, 0, 8);
    v.u.vote_request.voter_directory_id = dir(22);
    v.u.vote_request.candidate_directory_id = dir(33);
    rt_recv(r, 11, &v, &out);
    assert_true(vote_answer(&out, 3)->vote_granted);
    const raft_action *a = stored(&out);
    assert_false(a->qstate.new_directory);
    kq_uuid want = dir(33); /* learnt from its request */
    assert_memory_equal(&a->qstate.voter_directory_ids[2], &want, sizeof want);
    raft_destroy(r);
}

/* Caught up with the first high watermark a leader told it: a full copy. */
static void test_new_directory_votes_once_caught_up(void **state)
{
    (void)state;
    raft *r = new_directory_voter(0);
    raft_output out;
    raft_msg b;
    memset(&b, 0, sizeof b);
    b.type = RAFT_MSG_BEGIN_EPOCH_REQUEST;
    b.from = 1;
    b.to = 2;
    b.u.begin_epoch_request.leader_epoch = 3;
    b.u.begin_epoch_request.leader_id = 1;
    rt_recv(r, 10, &b, &out);
    const raft_msg *f = rt_sent(&out, RAFT_MSG_FETCH_REQUEST, 1);
    assert_non_null(f);
    kq_uuid own = dir(22);
    assert_memory_equal(&f->u.fetch_request.replica_directory_id, &own, sizeof own);
    rt_records rs = {.len = 0};
    rt_records_add(&rs, 0, 3, 3);
    raft_msg resp = rt_fetch_resp(3, 3, &rs);
    rt_recv(r, 11, &resp, &out);
    raft_status s;
    raft_get_status(r, &s);
    assert_int_equal(s.log_end_offset, 3);
    /* not flushed yet: still new */
    raft_msg v = rt_vote_req(3, 4, 3, 3, 9);
    rt_flushed(r, 12, 3, &out);
    const raft_action *a = stored(&out);
    assert_false(a->qstate.new_directory);
    rt_recv(r, 13, &v, &out);
    assert_true(vote_answer(&out, 3)->vote_granted);
    raft_destroy(r);
}

/* Leader 1 remembers node 2's directory as 2; node 2 comes back as 22. */
static raft *leader_remembering(uint32_t mutants, raft_output *out)
{
    raft_config c = rt_config(1, 3);
    c.directory_id = dir(1);
    c.mutants = mutants;
    raft_quorum_state q = {.epoch = 0, .voted_id = -1, .leader_id = -1};
    q.directory_id = dir(1);
    q.voter_directory_ids[1] = dir(2);
    q.voter_directory_ids[2] = dir(3);
    raft_log_state ls = {.end_offset = 0};
    raft *r = raft_create(&c, &q, &ls, 0);
    assert_non_null(r);
    rt_win_election(r, 1, 1, out);
    raft_status s;
    raft_get_status(r, &s);
    assert_int_equal(s.role, RAFT_ROLE_LEADER);
    rt_append(r, 2010, 10, out);
    rt_flushed(r, 2011, 11, out);
    return r;
}

static raft_msg fetch_from(int32_t from, int64_t offset, int32_t last_epoch, kq_uuid d,
                           uint64_t token)
{
    raft_msg f = rt_fetch_req(from, 1, offset, last_epoch, 0, token);
    f.u.fetch_request.replica_directory_id = d;
    return f;
}

static void test_replaced_voter_counts_once_caught_up(void **state)
{
    (void)state;
    raft_output out;
    raft *r = leader_remembering(0, &out);
    raft_msg f = fetch_from(2, 5, 1, dir(22), 1);
    rt_recv(r, 2020, &f, &out);
    raft_status s;
    raft_get_status(r, &s);
    assert_true(s.high_watermark < 5); /* its offset does not count yet */
    f = fetch_from(2, 11, 1, dir(22), 2);
    rt_recv(r, 2021, &f, &out);
    raft_get_status(r, &s);
    assert_int_equal(s.high_watermark, 11);
    const raft_action *a = stored(&out);
    kq_uuid want = dir(22);
    assert_memory_equal(&a->qstate.voter_directory_ids[1], &want, sizeof want);
    raft_destroy(r);

    r = leader_remembering(RAFT_MUTANT_IGNORE_DIRECTORY_ID, &out);
    f = fetch_from(2, 5, 1, dir(22), 1);
    rt_recv(r, 2020, &f, &out);
    raft_get_status(r, &s);
    assert_int_equal(s.high_watermark, 5); /* the bug: counted as its old self */
    raft_destroy(r);
}

/* Ids are learnt from a voter's own requests and sent where the protocol
 * names the receiver's. */
static void test_ids_learnt_and_sent(void **state)
{
    (void)state;
    raft_config c = rt_config(1, 3);
    c.directory_id = dir(1);
    raft_quorum_state q = {.epoch = 0, .voted_id = -1, .leader_id = -1};
    raft_log_state ls = {.end_offset = 0};
    raft *r = raft_create(&c, &q, &ls, 0);
    raft_output out;
    rt_tick(r, 0, &out);
    const raft_action *a = stored(&out); /* its own id is kept at once */
    kq_uuid want = dir(1);
    assert_memory_equal(&a->qstate.directory_id, &want, sizeof want);
    raft_msg v = rt_vote_req(3, 1, 0, 0, 5);
    v.u.vote_request.pre_vote = true;
    v.u.vote_request.candidate_directory_id = dir(3);
    rt_recv(r, 10, &v, &out);
    a = stored(&out);
    want = dir(3);
    assert_memory_equal(&a->qstate.voter_directory_ids[2], &want, sizeof want);
    rt_tick(r, 2000, &out); /* election timeout: pre-votes */
    const raft_msg *m = rt_sent(&out, RAFT_MSG_VOTE_REQUEST, 3);
    assert_non_null(m);
    assert_memory_equal(&m->u.vote_request.voter_directory_id, &want, sizeof want);
    want = dir(1);
    assert_memory_equal(&m->u.vote_request.candidate_directory_id, &want, sizeof want);
    raft_destroy(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_new_directory_refuses_non_empty_candidates),
        cmocka_unit_test(test_vote_meant_for_replaced_directory),
        cmocka_unit_test(test_new_directory_votes_once_caught_up),
        cmocka_unit_test(test_replaced_voter_counts_once_caught_up),
        cmocka_unit_test(test_ids_learnt_and_sent),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
