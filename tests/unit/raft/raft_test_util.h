/* Shared helpers for the Raft core unit tests: a default configuration,
 * event builders, and lookups over an output's actions. */
#ifndef RAFT_TEST_UTIL_H
#define RAFT_TEST_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "kq/buf.h"
#include "kq/kafka_errors.h"
#include "kq/raft.h"
#include "kq/record.h"

static inline raft_config rt_config(int32_t self, int voters)
{
    raft_config c;
    memset(&c, 0, sizeof(c));
    c.node_id = self;
    for (int i = 0; i < voters; i++)
        c.voter_ids[i] = i + 1;
    c.voter_count = voters;
    c.election_timeout_ms = 1000;
    c.fetch_timeout_ms = 2000;
    c.election_backoff_max_ms = 1000;
    c.request_timeout_ms = 500;
    c.retry_backoff_ms = 50;
    c.fetch_max_wait_ms = 400;
    c.fetch_max_bytes = 1 << 20;
    c.random_seed = 42;
    return c;
}

static inline raft *rt_create(const raft_config *c, int32_t epoch, int32_t voted,
                              int32_t leader, int64_t end, const raft_epoch_entry *epochs,
                              int epoch_count)
{
    raft_quorum_state q = {.epoch = epoch, .voted_id = voted, .leader_id = leader};
    raft_log_state log = {.end_offset = end, .epochs = epochs, .epoch_count = epoch_count};
    raft *r = raft_create(c, &q, &log, 0);
    assert_non_null(r);
    return r;
}

static inline void rt_tick(raft *r, int64_t now, raft_output *out)
{
    raft_event ev;
    memset(&ev, 0, sizeof(ev));
    ev.type = RAFT_EVENT_TICK;
    ev.now_ms = now;
    raft_step(r, &ev, out);
}

static inline void rt_flushed(raft *r, int64_t now, int64_t offset, raft_output *out)
{
    raft_event ev;
    memset(&ev, 0, sizeof(ev));
    ev.type = RAFT_EVENT_FLUSHED;
    ev.now_ms = now;
    ev.flushed_offset = offset;
    raft_step(r, &ev, out);
}

static inline void rt_recv(raft *r, int64_t now, const raft_msg *m, raft_output *out)
{
    raft_event ev;
    memset(&ev, 0, sizeof(ev));
    ev.type = RAFT_EVENT_RECEIVE;
    ev.now_ms = now;
    ev.msg = *m;
    raft_step(r, &ev, out);
}

static inline void rt_append(raft *r, int64_t now, int32_t count, raft_output *out)
{
    static const uint8_t blob[64];
    raft_event ev;
    memset(&ev, 0, sizeof(ev));
    ev.type = RAFT_EVENT_CLIENT_APPEND;
    ev.now_ms = now;
    ev.append.records = blob;
    ev.append.len = sizeof(blob);
    ev.append.offset_count = count;
    raft_step(r, &ev, out);
}

static inline int rt_count(const raft_output *out, enum raft_action_type t)
{
    int n = 0;
    for (int i = 0; i < out->action_count; i++)
        n += out->actions[i].type == t;
    return n;
}

/* Index of the first action of type t at or after from, or -1. */
static inline int rt_find(const raft_output *out, enum raft_action_type t, int from)
{
    for (int i = from; i < out->action_count; i++)
        if (out->actions[i].type == t)
            return i;
    return -1;
}

/* The first SEND of message type mt (to node `to`, or any when to < 0). */
static inline const raft_msg *rt_sent(const raft_output *out, enum raft_msg_type mt, int32_t to)
{
    for (int i = 0; i < out->action_count; i++) {
        const raft_action *a = &out->actions[i];
        if (a->type == RAFT_ACTION_SEND && a->msg.type == mt && (to < 0 || a->msg.to == to))
            return &a->msg;
    }
    return NULL;
}

static inline int rt_sent_count(const raft_output *out, enum raft_msg_type mt)
{
    int n = 0;
    for (int i = 0; i < out->action_count; i++)
        n += out->actions[i].type == RAFT_ACTION_SEND && out->actions[i].msg.type == mt;
    return n;
}


/* Appends one v2 batch of n records at base/epoch to buf (*len bytes used). */
static inline void rt_batch(uint8_t *buf, size_t cap, size_t *len, int64_t base,
                            int32_t epoch, int n)
{
    record recs[8];
    assert_true(n > 0 && n <= 8);
    memset(recs, 0, sizeof(recs));
    for (int i = 0; i < n; i++) {
        recs[i].key.len = -1;
        recs[i].value = kq_slice_cstr("v");
        recs[i].timestamp = 1000;
    }
    record_batch_builder_args a;
    memset(&a, 0, sizeof(a));
    a.base_offset = base;
    a.partition_leader_epoch = epoch;
    a.producer_id = -1;
    a.producer_epoch = -1;
    a.base_sequence = -1;
    a.base_timestamp = 1000;
    a.records = recs;
    a.record_count = n;
    kq_writer w;
    kq_writer_init(&w, 0);
    assert_true(record_batch_build(&w, &a));
    assert_true(*len + w.len <= cap);
    memcpy(buf + *len, w.data, w.len);
    *len += w.len;
    kq_writer_free(&w);
}

/* Record batches a test hands to a follower in FetchResponses. */
typedef struct rt_records {
    uint8_t buf[4096];
    size_t len;
} rt_records;

static inline void rt_records_add(rt_records *rs, int64_t base, int32_t epoch, int n)
{
    rt_batch(rs->buf, sizeof(rs->buf), &rs->len, base, epoch, n);
}

/* A FetchResponse from leader 1 to node 2 in `epoch` with high watermark hw,
 * no divergence, carrying the bytes of rs. */
static inline raft_msg rt_fetch_resp(int32_t epoch, int64_t hw, const rt_records *rs)
{
    raft_msg m;
    memset(&m, 0, sizeof(m));
    m.type = RAFT_MSG_FETCH_RESPONSE;
    m.from = 1;
    m.to = 2;
    m.u.fetch_response.leader_id = 1;
    m.u.fetch_response.leader_epoch = epoch;
    m.u.fetch_response.high_watermark = hw;
    m.u.fetch_response.diverging_epoch = -1;
    m.u.fetch_response.diverging_end_offset = -1;
    m.u.fetch_response.records = rs->buf;
    m.u.fetch_response.records_len = rs->len;
    return m;
}

static inline raft_msg rt_fetch_req(int32_t from, int32_t epoch, int64_t offset,
                                    int32_t last_epoch, int32_t max_wait, uint64_t token)
{
    raft_msg m;
    memset(&m, 0, sizeof(m));
    m.type = RAFT_MSG_FETCH_REQUEST;
    m.from = from;
    m.to = 1;
    m.token = token;
    m.u.fetch_request.replica_id = from;
    m.u.fetch_request.current_leader_epoch = epoch;
    m.u.fetch_request.fetch_offset = offset;
    m.u.fetch_request.last_fetched_epoch = last_epoch;
    m.u.fetch_request.max_wait_ms = max_wait;
    m.u.fetch_request.max_bytes = 1000;
    m.u.fetch_request.high_watermark = INT64_MAX; /* a fetcher without KIP-1166 */
    return m;
}

static inline raft_msg rt_vote_resp(int32_t from, int32_t epoch, bool granted)
{
    raft_msg m;
    memset(&m, 0, sizeof(m));
    m.type = RAFT_MSG_VOTE_RESPONSE;
    m.from = from;
    m.to = 1;
    m.u.vote_response.leader_id = -1;
    m.u.vote_response.leader_epoch = epoch;
    m.u.vote_response.vote_granted = granted;
    return m;
}

static inline raft_msg rt_vote_req(int32_t from, int32_t epoch, int32_t last_epoch,
                                   int64_t end, uint64_t token)
{
    raft_msg m;
    memset(&m, 0, sizeof(m));
    m.type = RAFT_MSG_VOTE_REQUEST;
    m.from = from;
    m.token = token;
    m.u.vote_request.candidate_epoch = epoch;
    m.u.vote_request.candidate_id = from;
    m.u.vote_request.last_epoch = last_epoch;
    m.u.vote_request.last_epoch_end_offset = end;
    return m;
}

/* A prospective node 1 in `epoch` - 1 gets node `from`'s grant of its
 * pre-vote, asked in `epoch` - 1 (KIP-996: the asker's current epoch), so
 * the grant carries `epoch` - 1. */
static inline void rt_pre_vote_granted(raft *r, int64_t now, int32_t from, int32_t epoch,
                                       raft_output *out)
{
    raft_status s;
    raft_get_status(r, &s);
    assert_int_equal(s.role, RAFT_ROLE_PROSPECTIVE);
    assert_int_equal(s.epoch, epoch - 1);
    raft_msg v = rt_vote_resp(from, epoch - 1, true);
    rt_recv(r, now, &v, out);
}

/* Node 1 times out at t=2000 (prospective), gets node 2's pre-vote at 2000
 * (candidate), its vote for `epoch` at 2001 and has flushed up to `flushed`
 * (its LeaderChange batch included) at 2002. */
static inline void rt_win_election(raft *r, int32_t epoch, int64_t flushed, raft_output *out)
{
    rt_tick(r, 2000, out);
    rt_pre_vote_granted(r, 2000, 2, epoch, out);
    raft_msg v = rt_vote_resp(2, epoch, true);
    rt_recv(r, 2001, &v, out);
    rt_flushed(r, 2002, flushed, out);
}

/* Node 1 of voters {1..voters} (plus mutants) elected leader of epoch 1 at
 * t=2000 with node 2's vote, its LeaderChange batch (offset 0) flushed. */
static inline raft *rt_leader(int voters, uint32_t mutants)
{
    raft_config c = rt_config(1, voters);
    c.mutants = mutants;
    raft *r = rt_create(&c, 0, -1, -1, 0, NULL, 0);
    raft_output out;
    rt_tick(r, 0, &out);
    rt_tick(r, 2000, &out);
    rt_pre_vote_granted(r, 2000, 2, 1, &out);
    if (voters > 3)
        rt_pre_vote_granted(r, 2000, 3, 1, &out);
    raft_msg v = rt_vote_resp(2, 1, true);
    rt_recv(r, 2001, &v, &out);
    if (voters > 3) {
        v = rt_vote_resp(3, 1, true);
        rt_recv(r, 2001, &v, &out);
    }
    raft_status s;
    raft_get_status(r, &s);
    assert_int_equal(s.role, RAFT_ROLE_LEADER);
    rt_flushed(r, 2002, 1, &out);
    return r;
}

#endif
