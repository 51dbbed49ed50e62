/* Per-event invariants of the whole-server simulation: what the servers do
 * (leaders, epochs, votes, fetch offsets, high watermarks, truncations,
 * restarts) checked against the durable truth, and what the clients saw
 * (acknowledgements, consumed records, producer ids). The end-of-run check
 * is in w_final.c. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kq/assert.h"
#include "kq/log.h"
#include "kq/wire.h"
#include "kq/wire_fetch.h"
#include "kq/wire_vote.h"
#include "w_check_internal.h"

const char *const w_check_names[W_CHECK_COUNT] = {
    "single-leader",       "monotonic-epoch",   "monotonic-hw",        "one-vote-per-epoch",
    "fetch-within-durable", "majority-durable", "committed-data",      "no-truncate-committed",
    "acked-durable",       "recovered-durable", "consumer-committed",  "producer-id-unique",
    "silent-after-fatal",  "flushed-is-durable", "snapshot-at-log-start", "snapshot-below-hw",
    "leader-never-loads-snapshot", "log-start-monotonic", "offsets-durable",
    "offsets-not-invented", "offsets-monotonic", "no-client-control",
    "snapshot-failure-not-fatal", "response-budget", "voter-fetch-timely",
    "quorum-connections", "client-admitted", "change-after-epoch-commit",
    "one-uncommitted-change", "told-hw-monotonic", "txn-read-committed", "txn-atomic",
    "txn-fenced-no-append", "txn-lso", "txn-offsets", "group-membership-kept",
    "deleted-stays-deleted", "group-exclusive", "liveness",
    "scenario", "final",
};

int w_check_find(const char *name)
{
    for (int i = 0; i < W_CHECK_COUNT; i++)
        if (strcmp(name, w_check_names[i]) == 0)
            return i;
    return -1;
}

bool w_check_on(w_world *w, enum w_check_id c)
{
    if (!(w->p.checks & (UINT64_C(1) << c)))
        return false;
    w->check->checks++;
    return true;
}

uint64_t w_check_count(const w_world *w)
{
    return w->check ? w->check->checks : 0;
}

bool w_inv_fail(w_world *w, enum w_check_id c, const char *fmt, ...)
{
    char msg[640];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    return w_fail(w, "%s%s: %s", c < W_INV_PER_EVENT_COUNT ? "invariant " : "",
                  w_check_names[c], msg);
}

struct w_check *w_check_create(void)
{
    struct w_check *c = calloc(1, sizeof(*c));
    if (!c)
        return NULL;
    for (int i = 0; i < SIM_NODES_MAX; i++) {
        c->leader_hw_epoch[i] = -1;
        c->leader_hw[i] = -1;
        c->told_epoch[i] = -1;
        c->told_hw[i] = -1;
    }
    return c;
}

void w_check_destroy(struct w_check *c)
{
    if (!c)
        return;
    free(c->epoch_leader);
    for (int i = 0; i < SIM_NODES_MAX; i++)
        free(c->votes[i]);
    free(c->committed);
    free(c->committed_vals);
    free(c->acked);
    free(c->consumed);
    free(c->pids);
    w_check_groups_free(c);
    w_check_quorum_free(c);
    w_check_control_free(c);
    w_check_txn_free(c);
    free(c->cg);
    free(c);
}

/* Grows an int32 array indexed by epoch, new slots -1. */
static int32_t *epoch_slot(int32_t **arr, size_t *cap, int32_t epoch)
{
    if (epoch < 0)
        return NULL;
    if ((size_t)epoch >= *cap) {
        size_t n = *cap ? *cap : 64;
        while (n <= (size_t)epoch)
            n *= 2;
        int32_t *a = realloc(*arr, n * sizeof(*a));
        KQ_ASSERT(a);
        for (size_t i = *cap; i < n; i++)
            a[i] = -1;
        *arr = a;
        *cap = n;
    }
    return &(*arr)[epoch];
}

/* A storage's flushed offset: live nodes now, crashed ones as last seen. */
int64_t w_flushed(const w_world *w, int idx)
{
    const w_node *n = &w->nodes[idx];
    if (!n->running)
        return n->last_flushed;
    int64_t flushed = kq_log_flushed_offset(exec_log(n->x));
    /* A replica repairing corruption counts with what it held (it votes so):
     * the fault, not a bug, took its copy. */
    raft_status st;
    raft_get_status(exec_raft(n->x), &st);
    return st.repair_end_offset > flushed ? st.repair_end_offset : flushed;
}

/* Voters of the set in force now (KIP-853) flushed past offset. */
int w_voters_flushed_past(const w_world *w, int64_t offset)
{
    return w_set_flushed_past(w, w_voters_now(w), offset);
}

/* response-budget: what a node's budget (the shipped kq/budget.h
 * accounting the network charges) holds never passes queued.max.response.bytes. */
static void w_check_response_budget(w_world *w)
{
    if (!w_check_on(w, W_INV_RESPONSE_BUDGET))
        return;
    for (int i = 0; i < w->n; i++) {
        const w_node *n = &w->nodes[i];
        if (!n->running)
            continue;
        uint64_t used = kq_budget_used(&n->budget);
        if (used > n->budget.bytes_max) {
            w_inv_fail(w, W_INV_RESPONSE_BUDGET,
                     "node %d holds %llu bytes of client answers, over its budget of %llu",
                     n->id, (unsigned long long)used, (unsigned long long)n->budget.bytes_max);
            return;
        }
    }
}

void w_check_after_event(w_world *w)
{
    struct w_check *c = w->check;
    w_check_response_budget(w);
    w_check_voters_after_event(w);
    w_check_quorum_after_event(w);
    w_check_flushed_durable(w);
    w_check_cg_after_event(w);
    for (int i = 0; i < w->n && !w->failed; i++) {
        raft_status st;
        if (!w_node_status(w, i, &st))
            continue;
        if (w_check_on(w, W_INV_MONOTONIC_EPOCH)) {
            if (st.epoch < c->node_epoch[i])
                w_inv_fail(w, W_INV_MONOTONIC_EPOCH, "node %d epoch %d after %d",
                           w->nodes[i].id, st.epoch, c->node_epoch[i]);
            c->node_epoch[i] = st.epoch;
        }
        if (w_check_on(w, W_INV_LOG_START)) {
            if (st.log_start_offset < c->log_start[i])
                w_inv_fail(w, W_INV_LOG_START, "node %d's log start went from %lld to %lld",
                           w->nodes[i].id, (long long)c->log_start[i],
                           (long long)st.log_start_offset);
            c->log_start[i] = st.log_start_offset;
        }
        if (st.role != RAFT_ROLE_LEADER)
            continue;
        if (st.epoch > c->max_leader_epoch)
            c->max_leader_epoch = st.epoch;
        if (w_check_on(w, W_INV_SINGLE_LEADER)) {
            int32_t *slot = epoch_slot(&c->epoch_leader, &c->epoch_cap, st.epoch);
            if (*slot >= 0 && *slot != w->nodes[i].id)
                w_inv_fail(w, W_INV_SINGLE_LEADER, "nodes %d and %d both led epoch %d", *slot,
                           w->nodes[i].id, st.epoch);
            *slot = w->nodes[i].id;
        }
    }
}

/* Reads whole batches of node idx's log from `from` (a batch boundary). */
int w_scan(w_world *w, int idx, int64_t from, int (*fn)(void *, const uint8_t *, size_t),
           void *ctx)
{
    kq_log *log = exec_log(w->nodes[idx].x);
    if (from >= kq_log_end_offset(log))
        return 0;
    /* The checker's reads must neither trip nor use up an armed fault. */
    sim_fs_pause_faults(w->nodes[idx].fs, true);
    int rc = kq_log_scan(log, from, fn, ctx);
    sim_fs_pause_faults(w->nodes[idx].fs, false);
    return rc;
}

uint64_t w_hash(const uint8_t *p, size_t n)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 1099511628211ull;
    return h;
}

typedef struct commit_scan {
    w_world *w;
    int node;
    int64_t hw;
    int64_t next; /* end of the last batch wholly below hw */
} commit_scan;

static void record_values(struct w_check *c, const uint8_t *b, size_t len)
{
    record_iter it;
    if (record_iter_open(&it, b, len) != RECORD_OK)
        return; /* the final check reads it again and fails */
    record rec;
    while (record_iter_next(&it, &rec)) {
        if (rec.value.len != 8)
            continue;
        uint64_t v = 0;
        for (int i = 0; i < 8; i++)
            v = v << 8 | rec.value.ptr[i];
        if (c->committed_val_n == c->committed_val_cap) {
            c->committed_val_cap = c->committed_val_cap ? c->committed_val_cap * 2 : 1024;
            c->committed_vals = realloc(c->committed_vals,
                                        c->committed_val_cap * sizeof(*c->committed_vals));
            KQ_ASSERT(c->committed_vals);
        }
        c->committed_vals[c->committed_val_n++] = (w_consumed){rec.offset, v};
    }
    record_iter_close(&it);
}

/* Adds the batches between the committed end and the new HW to the record,
 * or compares them with it. */
static int commit_batch(void *ctx, const uint8_t *b, size_t len)
{
    commit_scan *s = ctx;
    struct w_check *c = s->w->check;
    record_batch_header h;
    if (record_batch_parse_header(b, len, &h) != RECORD_OK)
        return w_inv_fail(s->w, W_INV_COMMITTED_DATA, "node %d's log holds an unparsable batch",
                          s->node + 1), 1;
    if (h.base_offset >= s->hw)
        return 1;
    if (record_batch_last_offset(&h) < s->hw)
        s->next = record_batch_last_offset(&h) + 1;
    uint64_t hash = w_hash(b, len);
    for (size_t i = c->committed_n; i-- > 0;) {
        w_batch *e = &c->committed[i];
        if (e->base == h.base_offset) {
            if (e->hash != hash || e->last != record_batch_last_offset(&h))
                return w_inv_fail(s->w, W_INV_COMMITTED_DATA,
                                  "node %d's committed batch at %lld differs from the one "
                                  "committed before", s->node + 1, (long long)h.base_offset), 1;
            return 0;
        }
        if (e->base < h.base_offset)
            break;
    }
    if (c->committed_n == c->committed_cap) {
        c->committed_cap = c->committed_cap ? c->committed_cap * 2 : 256;
        c->committed = realloc(c->committed, c->committed_cap * sizeof(*c->committed));
        KQ_ASSERT(c->committed);
    }
    c->committed[c->committed_n++] =
        (w_batch){.base = h.base_offset, .last = record_batch_last_offset(&h), .hash = hash,
                  .control = record_batch_is_control(&h)};
    if (!record_batch_is_control(&h))
        record_values(c, b, len);
    w_check_txn_on_batch(s->w, b, len);
    w_check_deleted_on_batch(s->w, b, len);
    if (record_batch_last_offset(&h) + 1 > c->committed_end)
        c->committed_end = record_batch_last_offset(&h) + 1;
    return 0;
}

static void check_leader_hw(w_world *w, int node, const raft_status *st, int64_t hw)
{
    struct w_check *c = w->check;
    if (w_check_on(w, W_INV_MONOTONIC_HW)) {
        if (c->leader_hw_epoch[node] == st->epoch && hw < c->leader_hw[node])
            w_inv_fail(w, W_INV_MONOTONIC_HW, "leader %d's HW went from %lld to %lld in epoch %d",
                       node + 1, (long long)c->leader_hw[node], (long long)hw, st->epoch);
        else if (hw < c->hw_floor && st->epoch >= c->max_leader_epoch)
            w_inv_fail(w, W_INV_MONOTONIC_HW, "leader %d of epoch %d reports HW %lld below %lld",
                       node + 1, st->epoch, (long long)hw, (long long)c->hw_floor);
    }
    c->leader_hw_epoch[node] = st->epoch;
    c->leader_hw[node] = hw;
    /* A majority of the leader's set in force (KIP-853: the latest Voters
     * record, committed or not), each with the directory it names. */
    const kq_voter_set *set = w_voters_of(w, node);
    if (w_check_on(w, W_INV_MAJORITY_DURABLE) &&
        w_set_flushed_past(w, set, hw) < w_set_majority(w, set))
        w_inv_fail(w, W_INV_MAJORITY_DURABLE,
                   "leader %d's HW %lld is flushed on %d of its %d voter(s) only", node + 1,
                   (long long)hw, w_set_flushed_past(w, set, hw), set ? set->count : w->p.voters);
    if (hw > c->hw_floor)
        c->hw_floor = hw;
}

/* A follower's HW claims that its log below it is committed: it must agree
 * with what leaders committed (a follower that counts a flushed tail of its
 * own, from an epoch it led, that the leader lacks, fails here). */
static void check_follower_hw(w_world *w, int node, const raft_status *st, int64_t hw)
{
    struct w_check *c = w->check;
    if (c->follower_epoch[node] != st->epoch) {
        c->follower_epoch[node] = st->epoch;
        c->follower_checked[node] = 0;
    }
    commit_scan s = {w, node, hw, c->follower_checked[node]};
    int rc = w_scan(w, node, s.next, commit_batch, &s);
    if (rc < 0 && !w->nodes[node].disk_faulted)
        w_inv_fail(w, W_INV_COMMITTED_DATA, "node %d's log cannot be read back from %lld: %d",
                   node + 1, (long long)c->follower_checked[node], rc);
    c->follower_checked[node] = s.next;
}

void w_check_on_committed(w_world *w, int node, int64_t hw)
{
    raft_status st;
    raft_get_status(exec_raft(w->nodes[node].x), &st);
    if (w->failed)
        return;
    if (st.role != RAFT_ROLE_LEADER) {
        if (w_check_on(w, W_INV_COMMITTED_DATA))
            check_follower_hw(w, node, &st, hw);
        return;
    }
    check_leader_hw(w, node, &st, hw);
    if (!w_check_on(w, W_INV_COMMITTED_DATA))
        return;
    commit_scan s = {w, node, hw, 0};
    /* The whole committed prefix the first time in an epoch, then the news. */
    int64_t from = w->check->checked_epoch[node] == st.epoch ? w->check->committed_end : 0;
    w->check->checked_epoch[node] = st.epoch;
    int rc = w_scan(w, node, from, commit_batch, &s);
    /* After a failed fsync dropped its unflushed writes, a faulty disk may
     * not read back what storage still counts: the node is about to stop. */
    if (rc < 0 && !w->nodes[node].disk_faulted)
        w_inv_fail(w, W_INV_COMMITTED_DATA, "node %d's log cannot be read back from %lld: %d",
                   node + 1, (long long)from, rc);
}

static int truncate_batch(void *ctx, const uint8_t *b, size_t len)
{
    commit_scan *s = ctx;
    struct w_check *c = s->w->check;
    record_batch_header h;
    if (record_batch_parse_header(b, len, &h) != RECORD_OK || h.base_offset >= c->committed_end)
        return 1;
    uint64_t hash = w_hash(b, len);
    for (size_t i = 0; i < c->committed_n; i++)
        if (c->committed[i].base == h.base_offset && c->committed[i].hash == hash)
            return w_inv_fail(s->w, W_INV_NO_TRUNCATE_COMMITTED,
                              "node %d truncates to %lld, dropping the committed batch at %lld",
                              s->node + 1, (long long)s->hw, (long long)h.base_offset), 1;
    return 0;
}

void w_check_on_refusal(w_world *w, int idx, const char *err)
{
    if (w_check_on(w, W_INV_SNAPSHOT_AT_LOG_START) && strstr(err, "SnapshotAtLogStart"))
        w_inv_fail(w, W_INV_SNAPSHOT_AT_LOG_START, "node %d: %s", idx + 1, err);
}

void w_check_on_snapshot(w_world *w, int idx, raft_snapshot_id id)
{
    raft_status st;
    if (!w_node_status(w, idx, &st) || !w_check_on(w, W_INV_SNAPSHOT_BELOW_HW))
        return;
    if (id.end_offset > st.high_watermark)
        w_inv_fail(w, W_INV_SNAPSHOT_BELOW_HW, "node %d writes snapshot %lld above its HW %lld",
                   idx + 1, (long long)id.end_offset, (long long)st.high_watermark);
}

void w_check_on_snapshot_fatal(w_world *w, int idx, const char *what, int rc)
{
    if (w_check_on(w, W_INV_SNAPSHOT_FAILURE_NOT_FATAL))
        w_inv_fail(w, W_INV_SNAPSHOT_FAILURE_NOT_FATAL,
                   "node %d stopped (%s) because its snapshot file could not be written (%s)",
                   idx + 1, what, strerror(-rc));
}

void w_check_on_out_of_range(w_world *w, int client, int64_t offset, int64_t log_start,
                             int64_t high_watermark)
{
    if (w_check_on(w, W_INV_LOG_START) && log_start >= 0 && offset >= log_start &&
        offset <= high_watermark)
        w_inv_fail(w, W_INV_LOG_START, "client %d refused offset %lld inside the log [%lld, %lld]",
                   client, (long long)offset, (long long)log_start, (long long)high_watermark);
}

void w_check_before_action(w_world *w, int node, const raft_action *a)
{
    w_check_control_on_append(w, node, a);
    w_check_voters_on_append(w, node, a);
    if (a->type == RAFT_ACTION_SNAPSHOT_INSTALL && w_check_on(w, W_INV_LEADER_NO_SNAPSHOT)) {
        raft_status st;
        if (w_node_status(w, node, &st) && st.role == RAFT_ROLE_LEADER)
            w_inv_fail(w, W_INV_LEADER_NO_SNAPSHOT, "leader %d installs snapshot %lld", node + 1,
                       (long long)a->snapshot.id.end_offset);
    }
    if (a->type != RAFT_ACTION_TRUNCATE || w->failed)
        return;
    if (!w_check_on(w, W_INV_NO_TRUNCATE_COMMITTED) || a->offset >= w->check->committed_end)
        return;
    commit_scan s = {w, node, a->offset, 0};
    w_scan(w, node, a->offset, truncate_batch, &s);
}

static void check_fetch(w_world *w, int from, kq_reader *r, int16_t version, const w_req *req)
{
    kq_arena arena;
    kq_arena_init(&arena, 1 << 20);
    wire_fetch_request f;
    if (wire_fetch_request_decode(r, version, &arena, &f) == 0 && f.replica_id >= 0 &&
        f.topic_count == 1 && f.topics[0].partition_count == 1) {
        int64_t off = f.topics[0].partitions[0].fetch_offset;
        int64_t flushed = w_flushed(w, from);
        if (w_check_on(w, W_INV_FETCH_DURABLE) && off > flushed)
            w_inv_fail(w, W_INV_FETCH_DURABLE, "node %d fetches from %lld above its flushed %lld",
                       from + 1, (long long)off, (long long)flushed);
        w_check_quorum_on_fetch(w, from, req, off);
    }
    kq_arena_free(&arena);
}

static void note_vote(w_req *req, kq_reader *r, int16_t version)
{
    kq_arena arena;
    kq_arena_init(&arena, 1 << 16);
    wire_vote_request v;
    if (wire_vote_request_decode(r, version, &arena, &v) == 0 && v.topic_count == 1 &&
        v.topics[0].partition_count == 1) {
        const wire_vote_partition *p = &v.topics[0].partitions[0];
        req->vote = true;
        req->vote_pre = p->pre_vote;
        req->vote_epoch = p->candidate_epoch;
        req->vote_candidate = p->candidate_id;
    }
    kq_arena_free(&arena);
}

void w_check_on_peer_request(w_world *w, int from, const uint8_t *frame, size_t len, w_req *req)
{
    kq_reader r;
    kq_reader_init(&r, frame, len);
    wire_request_header hdr;
    if (wire_request_header_decode(&r, &hdr) != 0) {
        w_fail(w, "harness: node %d sent an undecodable request", from + 1);
        return;
    }
    if (hdr.api_key == WIRE_API_FETCH)
        check_fetch(w, from, &r, hdr.api_version, req);
    else if (hdr.api_key == WIRE_API_VOTE)
        note_vote(req, &r, hdr.api_version);
}
