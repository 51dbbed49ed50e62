/* The committed-offsets table (include/kq/group_offsets.h): lifetime, the
 * pending FIFO, commit (in log order with the data batches that end runs of
 * control batches, group_offsets_run.c) and truncation, lookups and
 * restore. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "group_offsets_internal.h"
#include "kq/assert.h"
#include "kq/group_offset_codec.h"

#define GO_PENDING_CAP_MIN 64

group_offsets *group_offsets_create(void)
{
    group_offsets *o = calloc(1, sizeof(group_offsets));
    if (o)
        o->txn_noted_end = -1; /* run_start, noted_end 0: a log from its start */
    return o;
}

void group_offsets_clear(group_offsets *o, int64_t from)
{
    go_pending_drop_from(o, o->pending_head);
    free(o->pending);
    go_txn_free_all(o);
    go_run_free(o);
    go_map_free(&o->committed, true);
    go_group_map_free(&o->groups);
    bool keeps = o->abort_keeps, skips = o->skip_tombstones;
    bool uncommitted = o->run_end_uncommitted;
    memset(o, 0, sizeof(*o));
    o->abort_keeps = keeps;
    o->skip_tombstones = skips;
    o->run_end_uncommitted = uncommitted;
    o->committed_to = from;
    o->txn_noted_end = -1;
    /* Unknown below from: a run starts there (snapshots say where). */
    o->run_start = from;
    o->noted_end = from;
}

int64_t go_last_noted(const group_offsets *o)
{
    int64_t last = o->committed_to - 1;
    if (o->pending_len > o->pending_head && o->pending[o->pending_len - 1]->e.log_offset > last)
        last = o->pending[o->pending_len - 1]->e.log_offset;
    if (o->data_len > o->data_head && o->data[o->data_len - 1].end - 1 > last)
        last = o->data[o->data_len - 1].end - 1;
    return o->txn_noted_end > last ? o->txn_noted_end : last;
}

void group_offsets_destroy(group_offsets *o)
{
    if (!o)
        return;
    group_offsets_clear(o, 0);
    free(o);
}

bool go_pending_push(group_offsets *o, const group_offset *e, bool tombstone)
{
    if (e->log_offset <= go_last_noted(o))
        return false;
    go_entry *x = go_entry_new(e);
    if (!x)
        return false;
    x->tombstone = tombstone;
    if (!go_pending_append(o, x)) {
        go_entry_free(x);
        return false;
    }
    return true;
}

bool go_pending_reserve(group_offsets *o, size_t n)
{
    if (o->pending_head > 0 && o->pending_cap - o->pending_len < n) {
        size_t used = o->pending_len - o->pending_head;
        memmove(o->pending, o->pending + o->pending_head, used * sizeof(*o->pending));
        o->pending_head = 0;
        o->pending_len = used;
    }
    if (o->pending_cap - o->pending_len >= n)
        return true;
    size_t cap = o->pending_cap ? o->pending_cap : GO_PENDING_CAP_MIN;
    while (cap - o->pending_len < n) {
        if (cap > SIZE_MAX / 2 / sizeof(*o->pending))
            return false;
        cap *= 2;
    }
    go_entry **p = realloc(o->pending, cap * sizeof(*p));
    if (!p)
        return false;
    o->pending = p;
    o->pending_cap = cap;
    return true;
}

bool go_pending_append(group_offsets *o, go_entry *x)
{
    KQ_ASSERT(o->pending_len == o->pending_head ||
              x->e.log_offset >= o->pending[o->pending_len - 1]->e.log_offset);
    if (!go_pending_reserve(o, 1) || (!x->aborted && !go_run_note_pending(o, x)))
        return false;
    o->pending[o->pending_len++] = x;
    o->pending_bytes += x->cost;
    return true;
}

void go_pending_drop_from(group_offsets *o, size_t keep)
{
    KQ_ASSERT(keep >= o->pending_head && keep <= o->pending_len);
    for (size_t i = keep; i < o->pending_len; i++) {
        KQ_ASSERT(o->pending_bytes >= o->pending[i]->cost);
        o->pending_bytes -= o->pending[i]->cost;
        go_run_unlink_pending(o, o->pending[i]);
        go_entry_free(o->pending[i]);
    }
    o->pending_len = keep;
    if (o->pending_len == o->pending_head)
        o->pending_head = o->pending_len = 0;
}

bool go_tombstone_matches(const go_entry *t, const go_entry *x)
{
    if (t->e.offset == KQ_GROUP_OFFSET_DELETED)
        return true; /* a deletion: whatever the key holds */
    return x->e.offset == t->e.offset && x->e.leader_epoch == t->e.leader_epoch &&
           x->e.commit_timestamp_ms == t->e.commit_timestamp_ms;
}

/* Forgets old (committed), and its group once it has no entry left. */
static void forget(group_offsets *o, go_entry *old)
{
    go_group *g = go_group_find(&o->groups, old->e.group_id, go_string_hash(old->e.group_id));
    KQ_ASSERT(g && g->count > 0);
    go_entry **link = &g->head;
    while (*link != old) {
        KQ_ASSERT(*link);
        link = &(*link)->next_in_group;
    }
    *link = old->next_in_group;
    g->count--;
    KQ_ASSERT(o->committed_bytes >= old->cost);
    o->committed_bytes -= old->cost; /* an expired offset gives its bytes back */
    go_map_remove(&o->committed, old);
    go_entry_free(old);
    if (g->count == 0)
        go_group_remove(&o->groups, g);
}

/* Moves the owned entry x into the committed table (overwriting its key's
 * value, or, for a tombstone, forgetting the key if it still holds the
 * commit expired, or whatever it holds for a deletion); false when memory
 * runs out (x is then freed). */
static bool apply(group_offsets *o, go_entry *x)
{
    if (!go_run_reserve(o)) {
        go_entry_free(x);
        return false;
    }
    go_entry *old = go_map_find(&o->committed, x->e.group_id, x->e.topic, x->e.partition,
                                x->hash);
    if (x->tombstone) {
        bool matches = old && go_tombstone_matches(x, old);
        /* Its state was computed when it was noted, from the same value:
         * absent once applied, else the key's own. */
        KQ_ASSERT(x->run.kind == (matches || !old ? GO_RUN_ABSENT : old->run.kind));
        if (matches) {
            go_run_detach(o, old);
            forget(o, old);
        }
        go_entry_free(x);
        return true;
    }
    KQ_ASSERT(x->run.kind != GO_RUN_ABSENT && x->run.offset == x->e.offset);
    if (old) {
        go_run_detach(o, old);
        KQ_ASSERT(o->committed_bytes >= old->cost);
        o->committed_bytes = o->committed_bytes - old->cost + x->cost;
        old->cost = x->cost;
        const char *metadata = old->e.metadata;
        old->e.offset = x->e.offset;
        old->e.leader_epoch = x->e.leader_epoch;
        old->e.metadata = x->e.metadata;
        old->e.commit_timestamp_ms = x->e.commit_timestamp_ms;
        old->e.log_offset = x->e.log_offset;
        old->run = x->run;
        go_run_attach(o, old);
        x->e.metadata = metadata;
        go_entry_free(x);
        return true;
    }
    go_group *g = go_group_get(&o->groups, x->e.group_id, go_string_hash(x->e.group_id));
    if (!g || !go_map_insert(&o->committed, x)) {
        go_entry_free(x);
        return false;
    }
    o->committed_bytes += x->cost;
    x->next_in_group = g->head;
    g->head = x;
    g->count++;
    go_run_attach(o, x);
    return true;
}

void group_offsets_commit(group_offsets *o, int64_t hw)
{
    for (;;) {
        bool any = o->pending_head < o->pending_len;
        int64_t at = any ? o->pending[o->pending_head]->e.log_offset : INT64_MAX;
        int64_t data_at = go_run_next_data(o);
        if (data_at < hw && data_at < at) {
            go_run_close_next(o, hw); /* a data batch ends the run of control batches */
            continue;
        }
        if (at >= hw)
            break;
        go_run_advance(o, at + 1);
        go_entry *x = o->pending[o->pending_head++];
        go_run_unlink_pending(o, x);
        KQ_ASSERT(o->pending_bytes >= x->cost);
        o->pending_bytes -= x->cost;
        if (x->aborted) { /* its ABORT marker is committed: never applied */
            go_entry_free(x);
            continue;
        }
        if (x->txn_pid >= 0) /* applied: its KQ_TXN_OFFSET_EXTRA_BYTES go */
            x->cost = group_offsets_entry_bytes(&x->e);
        /* No way to report it: a commit the majority holds cannot be lost. */
        bool applied = apply(o, x);
        KQ_ASSERT(applied);
    }
    if (o->pending_head == o->pending_len)
        o->pending_head = o->pending_len = 0;
    go_run_advance(o, hw);
}

void group_offsets_truncate(group_offsets *o, int64_t offset)
{
    KQ_ASSERT(offset >= o->committed_to);
    go_txn_cut(o, offset);
}

int64_t group_offsets_committed_to(const group_offsets *o)
{
    return o->committed_to;
}

bool group_offsets_get(const group_offsets *o, const char *group_id, const char *topic,
                       int32_t partition, group_offset *out)
{
    if (!group_id || !topic)
        return false;
    go_entry *x = go_map_find(&o->committed, group_id, topic, partition,
                              go_key_hash(group_id, topic, partition));
    if (x && out)
        *out = x->e;
    return x != NULL;
}

int group_offsets_foreach(const group_offsets *o, group_offsets_cb cb, void *ctx)
{
    for (size_t i = 0; i < o->committed.cap; i++) {
        const go_entry *x = o->committed.slots[i];
        int rc = x ? cb(ctx, &x->e) : 0;
        if (rc)
            return rc;
    }
    return 0;
}

int group_offsets_count(const group_offsets *o)
{
    return (int)o->committed.count;
}

bool group_offsets_restore(group_offsets *o, const group_offset *entry)
{
    return group_offsets_restore_answer(o, entry, -1);
}

bool group_offsets_restore_answer(group_offsets *o, const group_offset *entry, int64_t answer)
{
    if (group_offset_invalid(entry) || (answer >= 0 && answer <= entry->offset) ||
        answer > o->committed_to)
        return false;
    go_entry *x = go_entry_new(entry);
    if (!x)
        return false;
    x->e.log_offset = -1;
    x->run = go_run_restored(o, entry, answer);
    return apply(o, x);
}

void group_offsets_swap(group_offsets *a, group_offsets *b)
{
    group_offsets t = *a;
    *a = *b;
    *b = t;
    bool keeps = a->abort_keeps; /* the mutants stay with the table in use */
    a->abort_keeps = b->abort_keeps;
    b->abort_keeps = keeps;
    bool skips = a->skip_tombstones;
    a->skip_tombstones = b->skip_tombstones;
    b->skip_tombstones = skips;
    bool uncommitted = a->run_end_uncommitted;
    a->run_end_uncommitted = b->run_end_uncommitted;
    b->run_end_uncommitted = uncommitted;
}

void group_offsets_test_abort_keeps(group_offsets *o, bool on)
{
    o->abort_keeps = on;
}

void group_offsets_test_skip_tombstones(group_offsets *o, bool on)
{
    o->skip_tombstones = on;
}
