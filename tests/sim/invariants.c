#include <stdlib.h>
#include <string.h>

#include "kq/record.h"
#include "sim.h"

const char *const sim_check_names[SIM_CHECK_COUNT] = {
    [SIM_INV_MONOTONIC_HW] = "monotonic-hw",
    [SIM_INV_MONOTONIC_EPOCH] = "monotonic-epoch",
    [SIM_INV_MAJORITY_DURABLE] = "majority-durable",
    [SIM_INV_SINGLE_LEADER] = "single-leader",
    [SIM_INV_LEADER_IS_VOTER] = "leader-is-voter",
    [SIM_INV_NO_TRUNCATE_BELOW_HW] = "no-truncate-below-hw",
    [SIM_INV_NO_TRUNCATE_COMMITTED] = "no-truncate-committed",
    [SIM_INV_COMMITTED_DATA] = "committed-data",
    [SIM_INV_COMMITTED_VALUE] = "committed-value",
    [SIM_INV_HW_IN_LOG] = "hw-in-log",
    [SIM_INV_SERVE_DURABLE] = "serve-durable",
    [SIM_INV_LEADER_ONLY_APPEND] = "leader-only-append",
    [SIM_CHECK_LIVENESS] = "liveness",
    [SIM_CHECK_SCENARIO] = "scenario",
    [SIM_CHECK_FINAL] = "final",
};

int sim_check_find(const char *name)
{
    for (int i = 0; i < SIM_CHECK_COUNT; i++)
        if (strcmp(sim_check_names[i], name) == 0)
            return i;
    return -1;
}

bool sim_check_enabled(const sim_world *w, enum sim_check c)
{
    return (w->p.checks & (1u << c)) != 0;
}

bool sim_check_on(sim_world *w, enum sim_check c)
{
    if (!sim_check_enabled(w, c))
        return false;
    w->inv.checks++;
    return true;
}

void sim_inv_init(sim_inv *inv)
{
    memset(inv, 0, sizeof(*inv));
    inv->hw_floor = 0;
    for (int i = 0; i < SIM_NODES_MAX; i++) {
        inv->leader_hw_epoch[i] = -1;
        inv->leader_hw[i] = -1;
    }
}

void sim_inv_free(sim_inv *inv)
{
    free(inv->epoch_leader);
    free(inv->committed);
    free(inv->values);
    free(inv->pending);
    memset(inv, 0, sizeof(*inv));
}

static bool grow(void **p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return true;
    size_t cap2 = *cap ? *cap : 64;
    while (cap2 < need)
        cap2 *= 2;
    void *q = realloc(*p, cap2 * elem);
    if (!q)
        return false;
    memset((char *)q + *cap * elem, 0, (cap2 - *cap) * elem);
    *p = q;
    *cap = cap2;
    return true;
}

/* Value of the record at offset in batch b (8-byte big-endian record value). */
static bool batch_value_at(const sim_batch *b, int64_t offset, uint64_t *value)
{
    record_iter it;
    if (record_iter_open(&it, b->data, b->len) != RECORD_OK)
        return false;
    record rec;
    bool found = false;
    while (record_iter_next(&it, &rec)) {
        if (rec.offset != offset)
            continue;
        if (rec.value.len == 8) {
            uint64_t v = 0;
            for (int i = 0; i < 8; i++)
                v = (v << 8) | rec.value.ptr[i];
            *value = v;
            found = true;
        }
        break;
    }
    record_iter_close(&it);
    return found;
}

static bool log_value_at(const sim_log *l, int64_t offset, uint64_t *value)
{
    int k = sim_log_find(l, l->n, offset);
    return k >= 0 && !l->b[k].control && batch_value_at(&l->b[k], offset, value);
}

static int majority(const sim_world *w)
{
    return w->p.voters / 2 + 1;
}

bool sim_inv_check(sim_world *w)
{
    sim_inv *inv = &w->inv;
    int cur = -1;
    int32_t cur_epoch = -1;
    for (int i = 0; i < w->n; i++) {
        sim_node *nd = &w->nodes[i];
        if (!nd->running)
            continue;
        raft_status st;
        raft_get_status(nd->r, &st);
        if (sim_check_on(w, SIM_INV_MONOTONIC_EPOCH) && st.epoch < inv->node_epoch[i])
            return sim_fail(w, "invariant monotonic-epoch: node %d epoch %d < %d seen before", nd->id,
                            st.epoch, inv->node_epoch[i]);
        inv->node_epoch[i] = st.epoch;
        if (st.role != RAFT_ROLE_LEADER)
            continue;
        if (sim_check_on(w, SIM_INV_LEADER_IS_VOTER) && !nd->voter)
            return sim_fail(w, "invariant leader-is-voter: observer %d became leader of epoch %d",
                            nd->id, st.epoch);
        if (st.epoch < 0 || !grow((void **)&inv->epoch_leader, &inv->epoch_leader_cap,
                                  (size_t)st.epoch + 1, sizeof(int32_t)))
            return sim_fail(w, "leader epoch %d unusable", st.epoch);
        int32_t *slot = &inv->epoch_leader[st.epoch];
        if (sim_check_on(w, SIM_INV_SINGLE_LEADER) && *slot != 0 && *slot != nd->id)
            return sim_fail(w, "invariant single-leader: nodes %d and %d both led epoch %d", *slot,
                            nd->id, st.epoch);
        *slot = nd->id;
        if (st.epoch > inv->max_leader_epoch)
            inv->max_leader_epoch = st.epoch;
        if (st.epoch >= cur_epoch) {
            cur = i;
            cur_epoch = st.epoch;
        }
        if (st.high_watermark < 0)
            continue;
        if (sim_check_on(w, SIM_INV_MONOTONIC_HW) && inv->leader_hw_epoch[i] == st.epoch &&
            st.high_watermark < inv->leader_hw[i])
            return sim_fail(w, "invariant monotonic-hw: leader %d epoch %d HW %lld < %lld", nd->id,
                            st.epoch, (long long)st.high_watermark, (long long)inv->leader_hw[i]);
        if (inv->leader_hw_epoch[i] != st.epoch)
            inv->leader_hw_start[i] = st.high_watermark;
        inv->leader_hw_epoch[i] = st.epoch;
        inv->leader_hw[i] = st.high_watermark;
        /* Every offset below the HW is durable, identically, on a majority. */
        if (!sim_check_on(w, SIM_INV_MAJORITY_DURABLE))
            continue;
        int have = 0;
        for (int j = 0; j < w->n; j++) {
            const sim_node *v = &w->nodes[j];
            if (v->voter && sim_log_prefix_equal(&v->log, v->log.durable_n, &nd->log, nd->log.n,
                                                 st.high_watermark))
                have++;
        }
        if (have < majority(w))
            return sim_fail(w,
                            "invariant majority-durable: leader %d epoch %d HW %lld but only %d of %d "
                            "voters hold that prefix durably",
                            nd->id, st.epoch, (long long)st.high_watermark, have, w->p.voters);
    }
    /* The leader of the newest epoch never shows a HW below one any leader had. */
    if (cur >= 0 && cur_epoch == inv->max_leader_epoch &&
        sim_check_on(w, SIM_INV_MONOTONIC_HW)) {
        raft_status st;
        raft_get_status(w->nodes[cur].r, &st);
        bool carried = w->p.lenient_leader_hw && inv->leader_hw_epoch[cur] == st.epoch &&
                       inv->leader_hw_start[cur] == st.high_watermark;
        if (st.high_watermark >= 0 && !carried) {
            if (st.high_watermark < inv->hw_floor)
                return sim_fail(w,
                                "invariant monotonic-hw: leader %d of epoch %d has HW %lld below "
                                "the %lld a leader had before",
                                w->nodes[cur].id, st.epoch, (long long)st.high_watermark,
                                (long long)inv->hw_floor);
        }
    }
    for (int i = 0; i < w->n; i++)
        if (w->nodes[i].running && inv->leader_hw[i] > inv->hw_floor)
            inv->hw_floor = inv->leader_hw[i];
    return true;
}

bool sim_inv_on_leader_hw(sim_world *w, int idx, int64_t hw)
{
    sim_inv *inv = &w->inv;
    sim_node *nd = &w->nodes[idx];
    raft_status st;
    raft_get_status(nd->r, &st);
    if (st.role != RAFT_ROLE_LEADER || hw <= 0)
        return true;
    if (hw > inv->hw_floor)
        inv->hw_floor = hw; /* the highest HW any leader ever reported */
    int k = sim_log_find(&nd->log, nd->log.n, hw - 1);
    if (sim_check_on(w, SIM_INV_HW_IN_LOG) && k < 0)
        return sim_fail(w,
                        "invariant hw-in-log: leader %d epoch %d reported HW %lld beyond its log "
                        "end %lld",
                        nd->id, st.epoch, (long long)hw, (long long)sim_log_end(&nd->log));
    int m = k < inv->committed_n - 1 ? k : inv->committed_n - 1;
    if (m >= 0 && sim_check_on(w, SIM_INV_COMMITTED_DATA) &&
        (nd->log.b[m].chain != inv->committed[m].chain ||
         nd->log.b[m].base != inv->committed[m].base))
        return sim_fail(w,
                        "invariant committed-data: leader %d epoch %d reports HW %lld but its log "
                        "below offset %lld differs from data committed earlier",
                        nd->id, st.epoch, (long long)hw, (long long)(inv->committed[m].last + 1));
    for (int i = inv->committed_n; i <= k; i++) {
        size_t cap = (size_t)inv->committed_cap;
        if (!grow((void **)&inv->committed, &cap, (size_t)i + 1, sizeof(*inv->committed)))
            return sim_fail(w, "out of memory");
        inv->committed_cap = (int)cap;
        inv->committed[i].base = nd->log.b[i].base;
        inv->committed[i].last = nd->log.b[i].last;
        inv->committed[i].chain = nd->log.b[i].chain;
        inv->committed_n = i + 1;
    }
    size_t keep = 0;
    for (size_t i = 0; i < inv->pending_n; i++) {
        sim_pending_append p = inv->pending[i];
        bool drop = p.node == idx && (p.inc != nd->inc || p.epoch < st.epoch);
        bool done = p.node == idx && !drop && p.epoch == st.epoch && p.base + p.count <= hw;
        if (done) {
            for (int32_t j = 0; j < p.count; j++) {
                uint64_t v = 0;
                int64_t off = p.base + j;
                bool held = log_value_at(&nd->log, off, &v) && v == p.first_value + (uint64_t)j;
                if (sim_check_on(w, SIM_INV_COMMITTED_VALUE) && !held)
                    return sim_fail(w,
                                    "invariant committed-value: leader %d epoch %d committed "
                                    "offset %lld but it does not hold value %llu appended there",
                                    nd->id, st.epoch, (long long)off,
                                    (unsigned long long)(p.first_value + (uint64_t)j));
                if (!held)
                    continue;
                if (!grow((void **)&inv->values, &inv->values_cap, inv->values_n + 1,
                          sizeof(*inv->values)))
                    return sim_fail(w, "out of memory");
                inv->values[inv->values_n].offset = off;
                inv->values[inv->values_n].value = v;
                inv->values_n++;
            }
        }
        if (!drop && !done)
            inv->pending[keep++] = p;
    }
    inv->pending_n = keep;
    return true;
}

bool sim_inv_on_truncate(sim_world *w, int idx, int64_t hw_before, int64_t offset)
{
    sim_inv *inv = &w->inv;
    sim_node *nd = &w->nodes[idx];
    if (sim_check_on(w, SIM_INV_NO_TRUNCATE_BELOW_HW) && hw_before >= 0 && offset < hw_before)
        return sim_fail(w,
                        "invariant no-truncate-below-hw: node %d truncates to %lld below its HW "
                        "%lld",
                        nd->id, (long long)offset, (long long)hw_before);
    /* Only voters: an observer that learns a deposed leader's epoch before the
     * newer one may be told by that leader to drop a batch the newer leader
     * has since committed; observers never count towards durability, and it
     * fetches the batch again from the newer leader. */
    int k = sim_log_find(&nd->log, nd->log.n, offset);
    if (nd->voter && sim_check_on(w, SIM_INV_NO_TRUNCATE_COMMITTED) && k >= 0 &&
        k < inv->committed_n && nd->log.b[k].chain == inv->committed[k].chain)
        return sim_fail(w,
                        "invariant no-truncate-committed: node %d truncates to %lld, dropping "
                        "committed batch [%lld..%lld]",
                        nd->id, (long long)offset, (long long)nd->log.b[k].base,
                        (long long)nd->log.b[k].last);
    return true;
}

bool sim_inv_add_pending(sim_world *w, const sim_pending_append *p)
{
    sim_inv *inv = &w->inv;
    if (!grow((void **)&inv->pending, &inv->pending_cap, inv->pending_n + 1, sizeof(*p)))
        return sim_fail(w, "out of memory");
    inv->pending[inv->pending_n++] = *p;
    return true;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

bool sim_inv_final(sim_world *w, int64_t final_hw)
{
    sim_inv *inv = &w->inv;
    if (!sim_check_enabled(w, SIM_CHECK_FINAL))
        return true;
    int L = sim_current_leader(w);
    if (L < 0)
        return sim_fail(w, "final: no leader");
    const sim_log *ll = &w->nodes[L].log;
    inv->checks++;
    if (inv->committed_n > 0) {
        int64_t cend = inv->committed[inv->committed_n - 1].last + 1;
        if (final_hw < cend)
            return sim_fail(w, "final: HW %lld below committed end %lld", (long long)final_hw,
                            (long long)cend);
        int m = inv->committed_n - 1;
        if (m >= ll->n || ll->b[m].chain != inv->committed[m].chain)
            return sim_fail(w, "final: leader %d log differs from committed data below %lld",
                            w->nodes[L].id, (long long)cend);
    }
    for (int i = 0; i < w->n; i++) {
        const sim_node *nd = &w->nodes[i];
        inv->checks++;
        if (!sim_log_prefix_equal(&nd->log, nd->log.durable_n, ll, ll->n, final_hw))
            return sim_fail(w,
                            "final: node %d durable log (end %lld, durable %lld) differs from leader "
                            "%d below HW %lld",
                            nd->id, (long long)sim_log_end(&nd->log),
                            (long long)sim_log_durable_end(&nd->log), w->nodes[L].id,
                            (long long)final_hw);
    }
    for (size_t i = 0; i < inv->values_n; i++) {
        uint64_t v = 0;
        inv->checks++;
        if (!log_value_at(ll, inv->values[i].offset, &v) || v != inv->values[i].value)
            return sim_fail(w, "final: committed value %llu missing at offset %lld",
                            (unsigned long long)inv->values[i].value,
                            (long long)inv->values[i].offset);
    }
    /* No value appears twice in the committed log. */
    size_t n = 0, cap = 0;
    uint64_t *vals = NULL;
    for (int k = 0; k < ll->n && ll->b[k].base < final_hw; k++) {
        if (ll->b[k].control)
            continue;
        for (int64_t off = ll->b[k].base; off <= ll->b[k].last && off < final_hw; off++) {
            uint64_t v;
            if (!batch_value_at(&ll->b[k], off, &v))
                continue;
            if (!grow((void **)&vals, &cap, n + 1, sizeof(*vals))) {
                free(vals);
                return sim_fail(w, "out of memory");
            }
            vals[n++] = v;
        }
    }
    qsort(vals, n, sizeof(*vals), cmp_u64);
    bool dup = false;
    for (size_t i = 1; i < n; i++)
        if (vals[i] == vals[i - 1])
            dup = true;
    free(vals);
    inv->checks++;
    if (dup)
        return sim_fail(w, "final: a client value is committed twice");
    return true;
}
