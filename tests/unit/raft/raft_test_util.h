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

#include "kq/kafka_errors.h"
#include "kq/raft.h"

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


#endif
