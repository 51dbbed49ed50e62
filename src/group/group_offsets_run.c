/* Control-batch runs of the committed log (issue 24, include/kq/group_offsets.h
 * "lag 0"): the committed entries whose offsets lie in the trailing run of
 * control batches (members, answered the run's end), those above the
 * committed log (a min-heap by offset, members once the log reaches them
 * through control batches only), and the end of that run when a data batch
 * is committed: members are then answered its base for good. Also the
 * public answers (OffsetFetch's, the commit answered without an append,
 * the snapshot's run start) built on them. */
#include <stdlib.h>
#include <string.h>

#include "group_offsets_internal.h"
#include "kq/assert.h"

#define GO_RUN_CAP_MIN 16

/* ---- the heap of LIVE entries above committed_to, by offset */

static void heap_set(group_offsets *o, size_t i, go_entry *x)
{
    o->future[i] = x;
    x->run_index = i;
}

static void heap_up(group_offsets *o, size_t i)
{
    go_entry *x = o->future[i];
    while (i > 0) {
        size_t parent = (i - 1) / 2;
        if (o->future[parent]->e.offset <= x->e.offset)
            break;
        heap_set(o, i, o->future[parent]);
        i = parent;
    }
    heap_set(o, i, x);
}

static void heap_down(group_offsets *o, size_t i)
{
    go_entry *x = o->future[i];
    for (;;) {
        size_t child = 2 * i + 1;
        if (child >= o->future_len)
            break;
        if (child + 1 < o->future_len &&
            o->future[child + 1]->e.offset < o->future[child]->e.offset)
            child++;
        if (o->future[child]->e.offset >= x->e.offset)
            break;
        heap_set(o, i, o->future[child]);
        i = child;
    }
    heap_set(o, i, x);
}

/* Takes the entry at index i out of the heap. */
static go_entry *heap_take(group_offsets *o, size_t i)
{
    KQ_ASSERT(i < o->future_len);
    go_entry *x = o->future[i];
    go_entry *last = o->future[--o->future_len];
    if (i < o->future_len) {
        heap_set(o, i, last);
        heap_down(o, i);
        heap_up(o, last->run_index);
    }
    return x;
}

static void members_add(group_offsets *o, go_entry *x)
{
    KQ_ASSERT(o->members_len < o->members_cap); /* go_run_reserve */
    x->run_index = o->members_len;
    o->members[o->members_len++] = x;
}

static bool grow(go_entry ***a, size_t *cap, size_t need)
{
    if (*cap >= need)
        return true;
    size_t n = *cap ? *cap : GO_RUN_CAP_MIN;
    while (n < need) {
        if (n > SIZE_MAX / 2 / sizeof(**a))
            return false;
        n *= 2;
    }
    go_entry **p = realloc(*a, n * sizeof(*p));
    if (!p)
        return false;
    *a = p;
    *cap = n;
    return true;
}

bool go_run_reserve(group_offsets *o)
{
    size_t need = o->committed.count + 1;
    return grow(&o->members, &o->members_cap, need) && grow(&o->future, &o->future_cap, need);
}

void go_run_attach(group_offsets *o, go_entry *y)
{
    y->run.offset = y->e.offset;
    y->run.leader_epoch = y->e.leader_epoch;
    y->run.commit_timestamp_ms = y->e.commit_timestamp_ms;
    KQ_ASSERT(y->run.kind == GO_RUN_FIXED || y->run.kind == GO_RUN_LIVE);
    if (y->run.kind != GO_RUN_LIVE)
        return;
    KQ_ASSERT(y->e.offset >= o->run_start); /* a LIVE offset never lies below its run */
    if (y->e.offset <= o->committed_to) {
        members_add(o, y);
        return;
    }
    KQ_ASSERT(o->future_len < o->future_cap); /* go_run_reserve */
    heap_set(o, o->future_len++, y);
    heap_up(o, o->future_len - 1);
}

void go_run_detach(group_offsets *o, go_entry *y)
{
    if (y->run.kind != GO_RUN_LIVE)
        return;
    if (y->e.offset > o->committed_to) {
        KQ_ASSERT(y->run_index < o->future_len && o->future[y->run_index] == y);
        heap_take(o, y->run_index);
        return;
    }
    size_t i = y->run_index;
    KQ_ASSERT(i < o->members_len && o->members[i] == y);
    o->members[i] = o->members[--o->members_len];
    o->members[i]->run_index = i;
}

void go_run_advance(group_offsets *o, int64_t to)
{
    if (to <= o->committed_to)
        return;
    o->committed_to = to;
    /* The log reached these through control batches only: they join. */
    while (o->future_len > 0 && o->future[0]->e.offset <= to)
        members_add(o, heap_take(o, 0));
}

void go_run_close_next(group_offsets *o, int64_t hw)
{
    KQ_ASSERT(o->data_head < o->data_len);
    go_span d = o->data[o->data_head++];
    if (o->data_head == o->data_len)
        o->data_head = o->data_len = 0;
    KQ_ASSERT(d.base >= o->committed_to && d.base < hw);
    go_run_advance(o, d.base);
    for (size_t i = 0; i < o->members_len; i++) {
        o->members[i]->run.kind = GO_RUN_FIXED; /* the run's end, for good */
        o->members[i]->run.answer = d.base;
    }
    o->members_len = 0;
    while (o->future_len > 0 && o->future[0]->e.offset < d.end) {
        go_entry *x = heap_take(o, 0); /* inside the data: itself */
        x->run.kind = GO_RUN_FIXED;
        x->run.answer = x->e.offset;
    }
    o->run_start = d.end;
    go_run_advance(o, d.end < hw ? d.end : hw);
}

go_run go_run_restored(const group_offsets *o, const group_offset *e, int64_t answer)
{
    go_run r = { .kind = GO_RUN_LIVE, .offset = e->offset, .leader_epoch = e->leader_epoch,
                 .commit_timestamp_ms = e->commit_timestamp_ms, .answer = e->offset };
    if (answer >= 0 || e->offset < o->run_start) {
        r.kind = GO_RUN_FIXED;
        r.answer = answer >= 0 ? answer : e->offset;
    }
    return r;
}

int64_t go_run_answer(const group_offsets *o, const go_entry *y)
{
    if (y->run.kind == GO_RUN_FIXED)
        return y->run.answer;
    if (y->e.offset > o->committed_to)
        return y->e.offset;
    if (o->run_end_uncommitted && o->noted_end > o->committed_to)
        return o->noted_end; /* the mutant: the log end, not the committed one */
    return o->committed_to;
}

void go_run_free(group_offsets *o)
{
    free(o->members);
    free(o->future);
    free(o->data);
    go_map_free(&o->pending_keys, false);
    o->members = o->future = NULL;
    o->data = NULL;
    o->members_len = o->members_cap = o->future_len = o->future_cap = 0;
    o->data_head = o->data_len = o->data_cap = 0;
}

/* ---- include/kq/group_offsets.h */

static const go_entry *committed_entry(const group_offsets *o, const char *group_id,
                                       const char *topic, int32_t partition)
{
    if (!group_id || !topic)
        return NULL;
    return go_map_find(&o->committed, group_id, topic, partition,
                       go_key_hash(group_id, topic, partition));
}

bool group_offsets_fetch(const group_offsets *o, const char *group_id, const char *topic,
                         int32_t partition, group_offset *out)
{
    const go_entry *y = committed_entry(o, group_id, topic, partition);
    if (!y)
        return false;
    if (out) {
        *out = y->e;
        int64_t answer = go_run_answer(o, y);
        if (answer != y->e.offset) {
            out->offset = answer;
            out->leader_epoch = -1; /* not the epoch of the batch before answer */
        }
    }
    return true;
}

static bool same_metadata(const char *a, const char *b)
{
    return strcmp(a ? a : "", b ? b : "") == 0;
}

bool group_offsets_commit_is_noop(const group_offsets *o, const group_offset *e,
                                  int64_t fresh_from_ms)
{
    const go_entry *y = e ? committed_entry(o, e->group_id, e->topic, e->partition) : NULL;
    if (!y || y->e.commit_timestamp_ms < fresh_from_ms ||
        !same_metadata(y->e.metadata, e->metadata))
        return false;
    /* A commit of the key waiting (appended, or stashed in a transaction)
     * decides the key's value after this one: append in order. */
    if (go_map_find(&o->pending_keys, e->group_id, e->topic, e->partition, y->hash) ||
        group_offsets_txn_pending(o, e->group_id, e->topic, e->partition))
        return false;
    bool member = y->run.kind == GO_RUN_LIVE && y->e.offset <= o->committed_to;
    int64_t low = member ? o->run_start : y->e.offset;
    int64_t high = y->run.kind == GO_RUN_FIXED ? y->run.answer
                   : member                    ? o->committed_to
                                               : y->e.offset;
    return e->offset >= low && e->offset <= high;
}

int64_t group_offsets_run_start(const group_offsets *o)
{
    return o->run_start;
}

int64_t group_offsets_run_start_at_end(const group_offsets *o)
{
    return o->data_len > o->data_head ? o->data[o->data_len - 1].end : o->run_start;
}

bool group_offsets_restore_run_start(group_offsets *o, int64_t run_start)
{
    if (run_start < 0 || run_start > o->committed_to || o->committed.count > 0 ||
        o->pending_len > o->pending_head || o->data_len > o->data_head)
        return false;
    o->run_start = run_start;
    return true;
}

void group_offsets_test_run_end_uncommitted(group_offsets *o, bool on)
{
    o->run_end_uncommitted = on;
}
