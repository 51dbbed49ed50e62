/* Transactional offset commits (include/kq/group_offsets.h, issue 23,
 * KIP-98 TxnOffsetCommit): the stash per producer id, the producers'
 * COMMIT/ABORT markers, the cut of a truncation (or of a note that fails),
 * the snapshot's walk and restore, the count per key that
 * group_offsets_txn_pending answers from, and the commits a deletion
 * kills (issue 24: held until their marker, given back by a truncation
 * that cuts the deletion). */
#include <stdlib.h>
#include <string.h>

#include "group_offsets_internal.h"
#include "kq/assert.h"
#include "kq/group_offset_codec.h"

#define GO_TXN_CAP_MIN 8

/* The producer's stash, or NULL; *at is where it is or would go (ids ascend). */
static go_txn *txn_find(const group_offsets *o, int64_t pid, size_t *at)
{
    size_t lo = 0, hi = o->txn_count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (o->txns[mid].pid < pid)
            lo = mid + 1;
        else
            hi = mid;
    }
    *at = lo;
    return lo < o->txn_count && o->txns[lo].pid == pid ? &o->txns[lo] : NULL;
}

static go_txn *txn_get(group_offsets *o, int64_t pid)
{
    size_t at;
    go_txn *t = txn_find(o, pid, &at);
    if (t)
        return t;
    if (o->txn_count == o->txn_cap) {
        size_t cap = o->txn_cap ? 2 * o->txn_cap : GO_TXN_CAP_MIN;
        go_txn *p = realloc(o->txns, cap * sizeof(*p));
        if (!p)
            return NULL;
        o->txns = p;
        o->txn_cap = cap;
    }
    memmove(o->txns + at + 1, o->txns + at, (o->txn_count - at) * sizeof(*o->txns));
    o->txn_count++;
    o->txns[at] = (go_txn){ .pid = pid };
    return &o->txns[at];
}

/* Forgets the empty stash at index at. */
static void txn_remove_at(group_offsets *o, size_t at)
{
    KQ_ASSERT(at < o->txn_count && o->txns[at].len == 0);
    free(o->txns[at].items);
    memmove(o->txns + at, o->txns + at + 1, (o->txn_count - at - 1) * sizeof(*o->txns));
    o->txn_count--;
}

/* One more (delta 1) or one fewer (-1) stashed commit of x's key; the map's
 * own entry holds the count in e.offset. false when memory runs out. */
static bool key_ref(group_offsets *o, const go_entry *x, int delta)
{
    go_entry **slot = go_map_slot(&o->txn_keys, x->e.group_id, x->e.topic, x->e.partition,
                                  x->hash);
    if (delta < 0) {
        KQ_ASSERT(slot && (*slot)->e.offset > 0);
        if (--(*slot)->e.offset == 0) {
            go_entry *k = *slot;
            go_map_remove(&o->txn_keys, k);
            go_entry_free(k);
        }
        return true;
    }
    if (slot) {
        (*slot)->e.offset++;
        return true;
    }
    group_offset key = { .group_id = x->e.group_id, .topic = x->e.topic,
                         .partition = x->e.partition, .offset = 1 };
    go_entry *k = go_entry_new(&key);
    if (!k || !go_map_insert(&o->txn_keys, k)) {
        go_entry_free(k);
        return false;
    }
    return true;
}

/* Appends the owned x (txn_pid set) to its producer's stash; false when
 * memory runs out (x is not freed then, nothing changed). */
static bool txn_append(group_offsets *o, go_entry *x)
{
    go_txn *t = txn_get(o, x->txn_pid);
    if (!t)
        return false;
    KQ_ASSERT(t->len == 0 || t->items[t->len - 1]->record_offset <= x->record_offset);
    if (t->len == t->cap) {
        size_t cap = t->cap ? 2 * t->cap : GO_TXN_CAP_MIN;
        go_entry **p = realloc(t->items, cap * sizeof(*p));
        if (p) {
            t->items = p;
            t->cap = cap;
        }
    }
    if (t->len == t->cap || (x->killed_at < 0 && !key_ref(o, x, 1))) {
        size_t at;
        if (t->len == 0 && txn_find(o, x->txn_pid, &at))
            txn_remove_at(o, at);
        return false;
    }
    t->items[t->len++] = x;
    o->txn_entries++;
    o->txn_bytes += x->cost;
    return true;
}

/* Takes the last entry of stash t out (not freeing it). */
static go_entry *txn_pop(group_offsets *o, go_txn *t)
{
    KQ_ASSERT(t->len > 0 && o->txn_entries > 0);
    go_entry *x = t->items[--t->len];
    KQ_ASSERT(o->txn_bytes >= x->cost);
    o->txn_bytes -= x->cost;
    o->txn_entries--;
    if (x->killed_at < 0)
        key_ref(o, x, -1);
    return x;
}

/* A copy of e stashed for pid, its own record at record_offset. */
static bool stash_copy(group_offsets *o, int64_t pid, const group_offset *e,
                       int64_t record_offset)
{
    go_entry *x = go_entry_new(e);
    if (!x)
        return false;
    x->txn_pid = pid;
    x->record_offset = record_offset;
    x->e.log_offset = record_offset;
    x->cost += KQ_TXN_OFFSET_EXTRA_BYTES;
    if (!txn_append(o, x)) {
        go_entry_free(x);
        return false;
    }
    return true;
}

bool go_txn_stash(group_offsets *o, int64_t pid, const group_offset *e)
{
    if (pid < 0 || e->log_offset <= go_last_noted(o) || !stash_copy(o, pid, e, e->log_offset))
        return false;
    o->txn_noted_end = e->log_offset;
    return true;
}

bool go_txn_marker(group_offsets *o, int64_t pid, int64_t offset, bool commit)
{
    size_t at;
    go_txn *t = txn_find(o, pid, &at);
    if (!t)
        return true; /* nothing stashed: the marker does nothing here */
    if (offset <= go_last_noted(o) || !go_pending_reserve(o, t->len) ||
        !go_map_reserve(&o->pending_keys, t->len))
        return false;
    /* Stash order kept: the entries are appended oldest first. */
    for (size_t i = 0; i < t->len; i++) {
        go_entry *x = t->items[i];
        KQ_ASSERT(o->txn_bytes >= x->cost && o->txn_entries > 0);
        o->txn_bytes -= x->cost;
        o->txn_entries--;
        if (x->killed_at < 0)
            key_ref(o, x, -1);
        x->e.log_offset = offset;
        /* A commit a deletion killed is never applied, whatever the marker. */
        x->aborted = (!commit && !o->abort_keeps) || x->killed_at >= 0;
        bool appended = go_pending_append(o, x);
        KQ_ASSERT(appended); /* room reserved above (the FIFO, the keys' map) */
    }
    t->len = 0;
    txn_remove_at(o, at);
    o->txn_noted_end = offset;
    return true;
}

/* Stashed commits at or above offset go; then the pending entries at or
 * above it: a marker's commits whose own records lie below it are stashed
 * again (their producer's stash is empty then: what it stashed after that
 * marker lies above it), the rest go. */
/* A deletion at or above the cut is undone: the commit lives again. */
static void txn_revive(group_offsets *o, go_entry *x, int64_t offset)
{
    if (x->killed_at < offset)
        return;
    x->killed_at = -1;
    bool counted = key_ref(o, x, 1);
    KQ_ASSERT(counted); /* no error to report: as the table's own memory */
}

void go_txn_cut(group_offsets *o, int64_t offset)
{
    for (size_t i = o->txn_count; i-- > 0;) {
        go_txn *t = &o->txns[i];
        while (t->len > 0 && t->items[t->len - 1]->record_offset >= offset)
            go_entry_free(txn_pop(o, t));
        for (size_t j = 0; j < t->len; j++)
            txn_revive(o, t->items[j], offset);
        if (t->len == 0)
            txn_remove_at(o, i);
    }
    size_t keep = o->pending_len;
    while (keep > o->pending_head && o->pending[keep - 1]->e.log_offset >= offset)
        keep--;
    for (size_t i = keep; i < o->pending_len; i++) {
        go_entry *x = o->pending[i];
        KQ_ASSERT(o->pending_bytes >= x->cost);
        o->pending_bytes -= x->cost;
        go_run_unlink_pending(o, x);
        if (x->txn_pid < 0 || x->record_offset >= offset) {
            go_entry_free(x);
            continue;
        }
        x->e.log_offset = x->record_offset;
        x->aborted = false;
        if (x->killed_at >= offset)
            x->killed_at = -1; /* txn_append counts it again */
        bool stashed = txn_append(o, x);
        KQ_ASSERT(stashed); /* no error to report: as the table's own memory */
    }
    o->pending_len = keep;
    if (o->pending_len == o->pending_head)
        o->pending_head = o->pending_len = 0;
    if (o->txn_noted_end >= offset)
        o->txn_noted_end = offset - 1;
    go_run_cut(o, offset); /* the data batches noted (issue 24) */
}

void go_txn_free_all(group_offsets *o)
{
    for (size_t i = 0; i < o->txn_count; i++) {
        for (size_t j = 0; j < o->txns[i].len; j++)
            go_entry_free(o->txns[i].items[j]);
        free(o->txns[i].items);
    }
    free(o->txns);
    go_map_free(&o->txn_keys, true);
    o->txns = NULL;
    o->txn_count = o->txn_cap = 0;
    o->txn_entries = 0;
    o->txn_bytes = 0;
}

void go_txn_kill(group_offsets *o, const group_offset *key, int64_t at)
{
    for (size_t i = 0; i < o->txn_count; i++)
        for (size_t j = 0; j < o->txns[i].len; j++) {
            go_entry *x = o->txns[i].items[j];
            if (x->killed_at >= 0 || x->e.partition != key->partition ||
                strcmp(x->e.topic, key->topic) != 0 || strcmp(x->e.group_id, key->group_id) != 0)
                continue;
            KQ_ASSERT(x->record_offset < at);
            x->killed_at = at;
            key_ref(o, x, -1);
        }
}

/* A killed commit is not in the state at the log end: the snapshot leaves
 * it out (its deletion is below the snapshot's end: never cut). */
int group_offsets_foreach_txn(const group_offsets *o, group_offsets_txn_cb cb, void *ctx)
{
    for (size_t i = 0; i < o->txn_count; i++)
        for (size_t j = 0; j < o->txns[i].len; j++) {
            if (o->txns[i].items[j]->killed_at >= 0)
                continue;
            int rc = cb(ctx, o->txns[i].pid, &o->txns[i].items[j]->e);
            if (rc)
                return rc;
        }
    return 0;
}

bool group_offsets_restore_txn(group_offsets *o, int64_t producer_id, const group_offset *e)
{
    size_t at;
    const go_txn *t = txn_find(o, producer_id, &at);
    if (producer_id < 0 || group_offset_invalid(e) ||
        (t && t->items[t->len - 1]->record_offset >= 0))
        return false; /* restored commits come before any noted from the log */
    return stash_copy(o, producer_id, e, -1);
}

bool group_offsets_txn_pending(const group_offsets *o, const char *group_id, const char *topic,
                               int32_t partition)
{
    if (!group_id || !topic)
        return false;
    return go_map_find(&o->txn_keys, group_id, topic, partition,
                       go_key_hash(group_id, topic, partition)) != NULL;
}

int group_offsets_txn_count(const group_offsets *o)
{
    return o->txn_entries;
}
