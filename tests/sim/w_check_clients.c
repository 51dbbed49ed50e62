/* Checks on what the servers answered: Vote grants, restarts, replies after
 * a fail-stop, and what the clients saw (acks, consumed records, ids). */
#include <stdlib.h>
#include <string.h>

#include "kq/assert.h"
#include "kq/wire.h"
#include "kq/wire_vote.h"
#include "w_check_internal.h"

#define W_GROW(arr, n, cap)                                                        \
    do {                                                                           \
        if ((n) == (cap)) {                                                        \
            (cap) = (cap) ? (cap) * 2 : 256;                                       \
            (arr) = realloc((arr), (cap) * sizeof(*(arr)));                         \
            KQ_ASSERT(arr);                                                        \
        }                                                                          \
    } while (0)

void w_check_on_peer_answer(w_world *w, int node, const w_req *req, const uint8_t *frame,
                            size_t len)
{
    (void)node;
    w_check_quorum_on_answer(w, req, frame, len);
    w_check_told_hw_on_answer(w, req, frame, len);
    if (!req->vote || req->vote_pre || !w_check_on(w, W_INV_ONE_VOTE))
        return;
    kq_reader r;
    kq_reader_init(&r, frame, len);
    int32_t corr;
    kq_arena arena;
    kq_arena_init(&arena, 1 << 16);
    wire_vote_response v;
    if (wire_response_header_decode(&r, WIRE_API_VOTE, req->api_version, &corr) == 0 &&
        wire_vote_response_decode(&r, req->api_version, &arena, &v) == 0 && v.topic_count == 1 &&
        v.topics[0].partition_count == 1 && v.topics[0].partitions[0].vote_granted) {
        struct w_check *c = w->check;
        int32_t e = req->vote_epoch;
        if (e >= 0) {
            if ((size_t)e >= c->votes_cap[node]) {
                size_t n = c->votes_cap[node] ? c->votes_cap[node] : 64;
                while (n <= (size_t)e)
                    n *= 2;
                c->votes[node] = realloc(c->votes[node], n * sizeof(int32_t));
                KQ_ASSERT(c->votes[node]);
                for (size_t i = c->votes_cap[node]; i < n; i++)
                    c->votes[node][i] = -1;
                c->votes_cap[node] = n;
            }
            int32_t *slot = &c->votes[node][e];
            if (*slot >= 0 && *slot != req->vote_candidate)
                w_inv_fail(w, W_INV_ONE_VOTE, "node %d granted votes in epoch %d to %d and %d",
                           node + 1, e, *slot, req->vote_candidate);
            *slot = req->vote_candidate;
        }
    }
    kq_arena_free(&arena);
}

void w_check_on_restart(w_world *w, int idx, int64_t flushed_before, int64_t end_after,
                        const raft_quorum_state *stored)
{
    /* Every vote it granted was durable before it left (kq/raft.h). */
    struct w_check *c = w->check;
    for (size_t e = (size_t)(stored->epoch >= 0 ? stored->epoch : 0); e < c->votes_cap[idx]; e++) {
        int32_t cand = c->votes[idx][e];
        if (cand < 0 || ((int32_t)e == stored->epoch && stored->voted_id == cand))
            continue;
        if ((int32_t)e == stored->epoch && stored->leader_id >= 0)
            continue; /* it voted, then followed the winner: the vote is settled */
        if (w_check_on(w, W_INV_ONE_VOTE))
            w_inv_fail(w, W_INV_ONE_VOTE,
                       "node %d granted its vote in epoch %zu to %d, but restarted with "
                       "epoch %d voted %d: it may vote again", idx + 1, e, cand, stored->epoch,
                       stored->voted_id);
        return;
    }
    if (w_check_on(w, W_INV_RECOVERED_DURABLE) && end_after < flushed_before)
        w_inv_fail(w, W_INV_RECOVERED_DURABLE,
                   "node %d recovered a log ending at %lld; storage had called %lld flushed",
                   idx + 1, (long long)end_after, (long long)flushed_before);
}

void w_check_on_disk_replaced(w_world *w, int idx)
{
    struct w_check *c = w->check;
    c->node_epoch[idx] = 0;
    c->log_start[idx] = 0;
    c->leader_hw_epoch[idx] = -1;
    c->leader_hw[idx] = -1;
    c->checked_epoch[idx] = 0;
    c->follower_epoch[idx] = 0;
    c->follower_checked[idx] = 0;
    for (size_t e = 0; e < c->votes_cap[idx]; e++)
        c->votes[idx][e] = -1; /* a new directory: a new voter's votes */
}

void w_check_on_reply_after_fatal(w_world *w, int idx)
{
    if (w_check_on(w, W_INV_SILENT_AFTER_FATAL))
        w_inv_fail(w, W_INV_SILENT_AFTER_FATAL, "node %d answered after it failed", idx + 1);
}

void w_check_on_acked(w_world *w, int client, int64_t base_offset, const uint64_t *values,
                      int count, int64_t producer_id, int32_t base_sequence)
{
    (void)producer_id;
    (void)base_sequence;
    struct w_check *c = w->check;
    int64_t last = base_offset + count - 1;
    /* The set in force now (KIP-853), or the one before the last change
     * (a record committed just before a change is answered just after;
     * one change at a time, so the two overlap in a majority). */
    const kq_voter_set *now = w_voters_now(w);
    const kq_voter_set *prev = c->set_prev_known ? &c->set_prev : NULL;
    bool durable = w_set_flushed_past(w, now, last + 1) >= w_set_majority(w, now) ||
                   (prev && w_set_flushed_past(w, prev, last + 1) >= w_set_majority(w, prev));
    if (w_check_on(w, W_INV_ACKED_DURABLE) && !durable)
        w_inv_fail(w, W_INV_ACKED_DURABLE,
                   "client %d got acks=-1 for offsets %lld..%lld flushed on %d voter(s) only",
                   client, (long long)base_offset, (long long)last,
                   w_voters_flushed_past(w, last + 1));
    for (int i = 0; i < count; i++) {
        W_GROW(c->acked, c->acked_n, c->acked_cap);
        c->acked[c->acked_n++] = (w_acked){client, base_offset + i, values[i]};
    }
}

void w_check_on_consumed(w_world *w, int client, int64_t offset, uint64_t value)
{
    struct w_check *c = w->check;
    if (w_check_on(w, W_INV_CONSUMER_COMMITTED) && offset >= c->hw_floor)
        w_inv_fail(w, W_INV_CONSUMER_COMMITTED,
                   "client %d read offset %lld at or above the highest HW %lld", client,
                   (long long)offset, (long long)c->hw_floor);
    W_GROW(c->consumed, c->consumed_n, c->consumed_cap);
    c->consumed[c->consumed_n++] = (w_consumed){offset, value};
}

void w_check_on_producer_id(w_world *w, int client, int64_t producer_id)
{
    struct w_check *c = w->check;
    if (w_check_on(w, W_INV_PRODUCER_ID_UNIQUE))
        for (size_t i = 0; i < c->pid_n; i++)
            if (c->pids[i] == producer_id)
                w_inv_fail(w, W_INV_PRODUCER_ID_UNIQUE,
                           "client %d was given producer id %lld, handed out before", client,
                           (long long)producer_id);
    W_GROW(c->pids, c->pid_n, c->pid_cap);
    c->pids[c->pid_n++] = producer_id;
}

void w_check_on_sent(w_world *w, uint64_t value)
{
    (void)w;
    (void)value;
}
