/* KIP-853 reconfiguration (issue 20): who counts as a voter for the checks
 * that count voters (majority-durable, acked-durable, voter-fetch-timely):
 * the set in force at the leader's core (raft_voters: the latest Voters
 * record, committed or not; the static voters in a world without one),
 * each replica with the directory its disk has now. And Kafka's two rules
 * that make every change a single-server change from a committed set,
 * checked before the leader's APPEND of a Voters record is carried out:
 *   change-after-epoch-commit: the leader of a Voters-only control batch
 *     knows its high watermark (it
 *     committed an entry of its epoch; status.high_watermark >= 0);
 *   one-uncommitted-change: the Voters record in force before it is
 *     committed (below the HW), so at most one lies above the HW.
 * At the end, every change the operator settled holds in the leader's set. */
#include <string.h>

#include "kq/assert.h"
#include "kq/uuid.h"
#include "w_check_internal.h"

const kq_voter_set *w_voters_of(const w_world *w, int idx)
{
    if (idx < 0 || !w_node_alive(w, idx))
        return NULL;
    return raft_voters(exec_raft(w->nodes[idx].x));
}

const kq_voter_set *w_voters_now(const w_world *w)
{
    int L = w_current_leader(w);
    if (L >= 0)
        return w_voters_of(w, L);
    int best = -1;
    int32_t best_epoch = -1;
    for (int i = 0; i < w->n; i++) {
        raft_status st;
        if (w_node_status(w, i, &st) && st.epoch > best_epoch) {
            best = i;
            best_epoch = st.epoch;
        }
    }
    return w_voters_of(w, best);
}

bool w_in_set(const w_world *w, const kq_voter_set *set, int idx)
{
    if (!set)
        return w->nodes[idx].voter;
    return kq_voter_set_has_replica(set, w->nodes[idx].id, &w->nodes[idx].dir);
}

int w_set_flushed_past(const w_world *w, const kq_voter_set *set, int64_t offset)
{
    int count = 0;
    for (int i = 0; i < w->n; i++) {
        const w_node *n = &w->nodes[i];
        if (w_in_set(w, set, i))
            count += w_flushed(w, i) >= offset;
        else if (set && !kq_uuid_is_zero(&n->lost_dir) &&
                 kq_voter_set_has_replica(set, n->id, &n->lost_dir))
            count += n->lost_flushed >= offset; /* a replaced disk, still a voter */
    }
    return count;
}

int w_set_majority(const w_world *w, const kq_voter_set *set)
{
    return (set ? set->count : w->p.voters) / 2 + 1;
}

static int is_voters_record(void *ctx, int64_t offset, int type, kq_slice value)
{
    (void)ctx;
    (void)offset;
    (void)value;
    return type == RECORD_CONTROL_VOTERS;
}

/* Whether data holds a control batch with a Voters record alone: a voter
 * change. The first batch of a leader of an empty log at kraft.version 1
 * (LeaderChange, KRaftVersion and Voters, Kafka's start-of-epoch records)
 * is no change. */
static bool voters_only_batch(const uint8_t *data, size_t len)
{
    size_t pos = 0;
    while (pos < len) {
        record_batch_header h;
        if (record_batch_parse_header(data + pos, len - pos, &h) != RECORD_OK ||
            record_batch_size(&h) > len - pos)
            return false;
        if (record_batch_is_control(&h) && h.record_count == 1 &&
            record_scan_voter_records(data + pos, record_batch_size(&h), is_voters_record,
                                      NULL) == 1)
            return true;
        pos += record_batch_size(&h);
    }
    return false;
}

void w_check_voters_on_append(w_world *w, int node, const raft_action *a)
{
    if (a->type != RAFT_ACTION_APPEND || a->append.base_offset < 0 || w->failed)
        return; /* leader appends only */
    if (!voters_only_batch(a->append.records, a->append.len))
        return;
    raft_status st;
    if (!w_node_status(w, node, &st) || st.role != RAFT_ROLE_LEADER)
        return;
    if (st.high_watermark < 0) {
        if (w_check_on(w, W_INV_CHANGE_AFTER_EPOCH_COMMIT))
            w_inv_fail(w, W_INV_CHANGE_AFTER_EPOCH_COMMIT,
                       "leader %d appends a Voters record at %lld in epoch %d before it "
                       "committed an entry of its epoch (HW unknown)",
                       w->nodes[node].id, (long long)a->append.base_offset, st.epoch);
        return;
    }
    raft_voter_entry before;
    if (w_check_on(w, W_INV_ONE_UNCOMMITTED_CHANGE) &&
        raft_voters_at(exec_raft(w->nodes[node].x), a->append.base_offset - 1, &before) &&
        before.has_voters && before.offset >= 0 && before.offset >= st.high_watermark)
        w_inv_fail(w, W_INV_ONE_UNCOMMITTED_CHANGE,
                   "leader %d appends a Voters record at %lld while the one at %lld is "
                   "above its HW %lld",
                   w->nodes[node].id, (long long)a->append.base_offset,
                   (long long)before.offset, (long long)st.high_watermark);
}

void w_check_voters_after_event(w_world *w)
{
    struct w_check *c = w->check;
    const kq_voter_set *now = w->kraft1 ? w_voters_now(w) : NULL;
    if (!now || (c->set_cur_known && now->count == c->set_cur.count &&
                 memcmp(now->voters, c->set_cur.voters, sizeof(kq_voter) * (size_t)now->count) == 0))
        return;
    c->set_prev = c->set_cur;
    c->set_prev_known = c->set_cur_known;
    c->set_cur = *now;
    c->set_cur_known = true;
}

void w_check_on_voter_change(w_world *w, bool added, int32_t id, kq_uuid dir)
{
    int idx = w_node_index(w, id);
    KQ_ASSERT(idx >= 0);
    w->check->voter_expect[idx] = added ? 1 : -1;
    w->check->voter_expect_dir[idx] = dir;
}

bool w_check_final_voters(w_world *w, int leader)
{
    const kq_voter_set *set = w_voters_of(w, leader);
    if (!set || !w_check_on(w, W_CHECK_FINAL))
        return true;
    for (int i = 0; i < w->n; i++) {
        int8_t e = w->check->voter_expect[i];
        const kq_uuid *dir = &w->check->voter_expect_dir[i];
        int k = kq_voter_set_find(set, w->nodes[i].id);
        bool present = k >= 0 && memcmp(&set->voters[k].directory_id, dir, sizeof *dir) == 0;
        if ((e > 0 && !present) || (e < 0 && present))
            return w_fail(w, "final: the operator's settled %s of voter %d does not hold in "
                             "leader %d's set in force (%d voters)",
                          e > 0 ? "addition" : "removal", w->nodes[i].id,
                          w->nodes[leader].id, set->count);
    }
    return true;
}
