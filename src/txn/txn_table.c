/* The transaction table (include/kq/txn.h): lifetime, restore from a
 * snapshot and the bytes it costs in one. */
#include <stdlib.h>
#include <string.h>

#include "txn_internal.h"

static void init(txn_table *t)
{
    memset(t, 0, sizeof(*t));
    t->noted_to = -1;
    t->settled_hw = -1;
}

txn_table *txn_table_create(void)
{
    txn_table *t = malloc(sizeof(*t));
    if (t)
        init(t);
    return t;
}

void txn_table_clear(txn_table *t)
{
    txn_entries_free(t);
    txn_partition_free(t);
    init(t);
}

void txn_table_destroy(txn_table *t)
{
    if (!t)
        return;
    txn_table_clear(t);
    free(t);
}

void txn_table_swap(txn_table *a, txn_table *b)
{
    txn_table x = *a;
    *a = *b;
    *b = x;
}

int64_t txn_table_noted_to(const txn_table *t)
{
    return t->noted_to;
}

bool txn_table_restore_entry(txn_table *t, const txn_entry *e)
{
    if (txn_entry_invalid(e) || e->state == TXN_DEAD || txn_find_id(t, e->transactional_id) >= 0)
        return false;
    return txn_upsert(t, e);
}

bool txn_table_restore_open(txn_table *t, const txn_open *o, int64_t end_offset)
{
    if (o->producer_id < 0 || o->producer_epoch < 0 || o->first_offset < 0 ||
        o->first_offset >= end_offset || txn_find_open(t, o->producer_id) >= 0 ||
        !txn_reserve(t, 1))
        return false;
    return txn_open_at(t, o->producer_id, o->producer_epoch, o->first_offset);
}

bool txn_table_restore_aborted(txn_table *t, const txn_aborted *a, int64_t end_offset)
{
    if (a->producer_id < 0 || a->first_offset < 0 || a->first_offset >= a->last_offset ||
        a->last_offset >= end_offset ||
        (t->aborted_count > 0 && t->aborted[t->aborted_count - 1].last_offset >= a->last_offset) ||
        !txn_reserve(t, 1))
        return false;
    t->aborted[t->aborted_count++] = *a;
    if (a->last_offset - a->first_offset > t->span_max)
        t->span_max = a->last_offset - a->first_offset;
    return true;
}

void txn_table_restored(txn_table *t, int64_t end_offset)
{
    t->noted_to = end_offset;
}

uint64_t txn_table_bytes(const txn_table *t)
{
    uint64_t records = (t->aborted_count + KQ_TXN_SNAPSHOT_ABORTED_PER_RECORD - 1) /
                       KQ_TXN_SNAPSHOT_ABORTED_PER_RECORD;
    return t->entry_bytes + (uint64_t)t->open_count * KQ_TXN_OPEN_RECORD_BYTES +
           (uint64_t)t->aborted_count * KQ_TXN_ABORTED_ENTRY_BYTES +
           records * KQ_TXN_ABORTED_RECORD_FIXED_BYTES;
}
