/* Control-batch runs above the committed point (issue 24,
 * group_offsets_run.c): the data batches noted but not yet committed (as
 * runs of data, [base, end), ascending), and each pending entry's key state
 * once applied, computed when it is noted from the key's previous state (its
 * newest pending entry, else the committed one) and those data runs, so
 * that applying the log in order gives it and a snapshot at the log end can
 * read it. A key's pending entries are chained (not aborted ones: they are
 * never applied) and the newest is in pending_keys. */
#include <stdlib.h>
#include <string.h>

#include "group_offsets_internal.h"
#include "kq/assert.h"

#define GO_SPAN_CAP_MIN 16

bool go_run_note_data(group_offsets *o, int64_t base, int64_t end)
{
    KQ_ASSERT(base < end);
    if (o->data_len > o->data_head && o->data[o->data_len - 1].end == base) {
        o->data[o->data_len - 1].end = end; /* data after data: one run */
        return true;
    }
    if (o->data_head > 0 && o->data_len == o->data_cap) {
        size_t used = o->data_len - o->data_head;
        memmove(o->data, o->data + o->data_head, used * sizeof(*o->data));
        o->data_head = 0;
        o->data_len = used;
    }
    if (o->data_len == o->data_cap) {
        size_t cap = o->data_cap ? 2 * o->data_cap : GO_SPAN_CAP_MIN;
        go_span *p = cap > SIZE_MAX / sizeof(*p) ? NULL : realloc(o->data, cap * sizeof(*p));
        if (!p)
            return false;
        o->data = p;
        o->data_cap = cap;
    }
    o->data[o->data_len++] = (go_span){ base, end };
    return true;
}

void go_run_cut(group_offsets *o, int64_t offset)
{
    while (o->data_len > o->data_head && o->data[o->data_len - 1].base >= offset)
        o->data_len--;
    if (o->data_len > o->data_head && o->data[o->data_len - 1].end > offset)
        o->data[o->data_len - 1].end = offset;
    if (o->data_len == o->data_head)
        o->data_head = o->data_len = 0;
    if (o->noted_end > offset)
        o->noted_end = offset;
}

int64_t go_run_next_data(const group_offsets *o)
{
    return o->data_len > o->data_head ? o->data[o->data_head].base : INT64_MAX;
}

/* The first data run noted above committed_to that ends above offset, or
 * NULL. */
static const go_span *data_after(const group_offsets *o, int64_t offset)
{
    size_t lo = o->data_head, hi = o->data_len;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (o->data[mid].end <= offset)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < o->data_len ? &o->data[lo] : NULL;
}

/* r as it is once the log is applied up to at (a LIVE offset is fixed by
 * the first data run after it that begins below at). */
static go_run close_at(const group_offsets *o, go_run r, int64_t at)
{
    if (r.kind != GO_RUN_LIVE)
        return r;
    const go_span *d = data_after(o, r.offset);
    if (d && d->base < at) {
        r.kind = GO_RUN_FIXED;
        r.answer = d->base >= r.offset ? d->base : r.offset;
    }
    return r;
}

/* Where the trailing run of control batches starts once the log is applied
 * up to at (a control position): the end of the last data run below it. */
static int64_t start_at(const group_offsets *o, int64_t at)
{
    size_t lo = o->data_head, hi = o->data_len;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (o->data[mid].base < at)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo > o->data_head ? o->data[lo - 1].end : o->run_start;
}

/* The key's state after a commit of e applied at a position where the run
 * starts at start, prev being its state just before. */
static go_run after_commit(go_run prev, const group_offset *e, int64_t start)
{
    go_run r = { .kind = GO_RUN_FIXED, .offset = e->offset, .leader_epoch = e->leader_epoch,
                 .commit_timestamp_ms = e->commit_timestamp_ms, .answer = e->offset };
    if (e->offset >= start)
        r.kind = GO_RUN_LIVE; /* in the trailing run, or above the log */
    else if (prev.kind == GO_RUN_FIXED && prev.offset <= e->offset && e->offset <= prev.answer)
        r.answer = prev.answer; /* [prev.offset, prev.answer) holds control batches only */
    return r;
}

static go_run committed_state(const go_entry *y)
{
    go_run r = y->run;
    r.offset = y->e.offset;
    r.leader_epoch = y->e.leader_epoch;
    r.commit_timestamp_ms = y->e.commit_timestamp_ms;
    return r;
}

/* Whether tombstone t applies to the key's value r: go_tombstone_matches,
 * the rule apply() follows, on that value. */
static bool tombstone_matches(const go_entry *t, const go_run *r)
{
    go_entry value;
    memset(&value, 0, sizeof(value));
    value.e = t->e;
    value.e.offset = r->offset;
    value.e.leader_epoch = r->leader_epoch;
    value.e.commit_timestamp_ms = r->commit_timestamp_ms;
    value.hash = t->hash;
    return go_tombstone_matches(t, &value);
}

bool go_run_note_pending(group_offsets *o, go_entry *x)
{
    KQ_ASSERT(!x->aborted && !x->key_linked);
    if (!go_map_reserve(&o->pending_keys, 1))
        return false;
    go_entry **slot = go_map_slot(&o->pending_keys, x->e.group_id, x->e.topic, x->e.partition,
                                  x->hash);
    go_run prev = { .kind = GO_RUN_ABSENT };
    if (slot) {
        prev = (*slot)->run;
    } else {
        const go_entry *y = go_map_find(&o->committed, x->e.group_id, x->e.topic,
                                        x->e.partition, x->hash);
        if (y)
            prev = committed_state(y);
    }
    int64_t at = x->e.log_offset;
    prev = close_at(o, prev, at);
    if (!x->tombstone)
        x->run = after_commit(prev, &x->e, start_at(o, at));
    else if (prev.kind != GO_RUN_ABSENT && tombstone_matches(x, &prev))
        x->run = (go_run){ .kind = GO_RUN_ABSENT };
    else
        x->run = prev;
    x->key_prev = slot ? *slot : NULL;
    x->key_next = NULL;
    x->key_linked = true;
    if (slot) {
        (*slot)->key_next = x;
        *slot = x;
    } else {
        bool inserted = go_map_insert(&o->pending_keys, x);
        KQ_ASSERT(inserted); /* reserved above */
    }
    return true;
}

void go_run_unlink_pending(group_offsets *o, go_entry *x)
{
    if (!x->key_linked)
        return;
    if (x->key_prev)
        x->key_prev->key_next = x->key_next;
    if (x->key_next) {
        x->key_next->key_prev = x->key_prev;
    } else {
        go_entry **slot = go_map_slot(&o->pending_keys, x->e.group_id, x->e.topic,
                                      x->e.partition, x->hash);
        KQ_ASSERT(slot && *slot == x);
        if (x->key_prev)
            *slot = x->key_prev; /* same key, same hash */
        else
            go_map_remove(&o->pending_keys, x);
    }
    x->key_prev = x->key_next = NULL;
    x->key_linked = false;
}

int64_t go_run_answer_at_end(const group_offsets *o, const go_entry *y, bool pending)
{
    go_run r = close_at(o, pending ? y->run : committed_state(y), INT64_MAX);
    return r.kind == GO_RUN_FIXED && r.answer != y->e.offset ? r.answer : -1;
}
