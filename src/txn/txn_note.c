/* Following the log (txn_table_note_batches, include/kq/txn.h): every
 * batch appended at the log end moves the table by the rules of the
 * header. The headers of a call are checked first and room is reserved,
 * so that a call is noted whole or not at all. */
#include <stdlib.h>

#include "kq/record.h"
#include "txn_internal.h"

static void note_skip(txn_skipped *sk, int64_t offset, const char *reason)
{
    if (sk->count++ == 0) {
        sk->first_offset = offset;
        sk->reason = reason;
    }
}

/* Whether the records of a control batch iterate to the end; *ours: one
 * of our type seen. */
static bool records_parse(const uint8_t *batch, size_t len, bool *ours)
{
    record_iter it;
    record rec;
    *ours = false;
    enum record_status st = record_iter_open(&it, batch, len);
    while (st == RECORD_OK && record_iter_next(&it, &rec))
        *ours = *ours || record_control_type(rec.key) == KQ_CONTROL_TXN;
    bool ok = st == RECORD_OK && it.status == RECORD_OK;
    record_iter_close(&it);
    return ok;
}

/* One record's value: an upsert, or state Dead forgets the id. 1 moved,
 * 0 not, -1 no memory. */
static int apply_state(txn_table *t, const record *rec, int64_t base, txn_skipped *sk)
{
    txn_entry_value v;
    const char *why = rec->offset < base ? "offset delta below zero"
                                         : txn_read_entry_value_copy(rec->value, &v);
    if (why) {
        note_skip(sk, rec->offset, why);
        return 0;
    }
    if (v.entry.state == TXN_DEAD)
        return txn_remove(t, v.entry.transactional_id) ? 1 : 0;
    return txn_upsert(t, &v.entry) ? 1 : -1;
}

/* Our KQ_CONTROL_TXN records of a control batch; records that do not
 * parse skip the whole batch (nothing of it applied). */
static int note_state_records(txn_table *t, const uint8_t *batch, size_t len,
                              const record_batch_header *h, txn_skipped *sk)
{
    bool ours;
    if (!records_parse(batch, len, &ours)) {
        if (ours)
            note_skip(sk, h->base_offset, "the batch's records do not parse");
        return 0;
    }
    if (!ours)
        return 0;
    record_iter it;
    record rec;
    int moved = 0;
    enum record_status st = record_iter_open(&it, batch, len);
    while (st == RECORD_OK && moved >= 0 && record_iter_next(&it, &rec)) {
        if (record_control_type(rec.key) != KQ_CONTROL_TXN)
            continue;
        int n = apply_state(t, &rec, h->base_offset, sk);
        moved = n < 0 ? -1 : moved | n;
    }
    record_iter_close(&it);
    return moved;
}

/* One batch: 1 moved the table, 0 not, -1 no memory. */
static int note_batch(txn_table *t, const uint8_t *batch, size_t len,
                      const record_batch_header *h, txn_skipped *sk)
{
    bool transactional = (h->attributes & RECORD_ATTR_TRANSACTIONAL) != 0;
    if (!record_batch_is_control(h))
        return transactional && h->producer_id >= 0 &&
               txn_open_at(t, h->producer_id, h->producer_epoch, h->base_offset);
    if (!transactional)
        return note_state_records(t, batch, len, h, sk);
    int64_t pid;
    int16_t epoch;
    bool commit;
    if (!txn_parse_marker(batch, len, &pid, &epoch, &commit))
        return 0;
    bool closed = txn_close_at(t, pid, commit, h->base_offset);
    int completed = txn_complete_entries(t, pid, epoch, commit, h->max_timestamp);
    return closed || completed > 0;
}

/* Checks every header of the call: whole, offsets ascending past what was
 * noted; the number of batches and the new log end, or -1. */
static int check_all(const txn_table *t, const uint8_t *batches, size_t len, int64_t *end)
{
    size_t pos = 0;
    int n = 0;
    *end = t->noted_to;
    while (pos < len) {
        record_batch_header h;
        if (record_batch_parse_header(batches + pos, len - pos, &h) != RECORD_OK ||
            h.base_offset < 0 || h.last_offset_delta < 0 || h.base_offset < *end ||
            h.base_offset > INT64_MAX - 1 - h.last_offset_delta || n == INT32_MAX)
            return -1;
        *end = h.base_offset + h.last_offset_delta + 1;
        pos += record_batch_size(&h);
        n++;
    }
    return n;
}

int txn_table_note_batches(txn_table *t, const uint8_t *batches, size_t len,
                           txn_skipped *skipped)
{
    txn_skipped local;
    txn_skipped *sk = skipped ? skipped : &local;
    *sk = (txn_skipped){ .count = 0, .first_offset = -1, .reason = NULL };
    int64_t end;
    int n = batches || len == 0 ? check_all(t, batches, len, &end) : -1;
    if (n < 0 || !txn_reserve(t, (size_t)n))
        return -1;
    size_t pos = 0;
    int moved = 0;
    while (pos < len) {
        record_batch_header h;
        (void)record_batch_parse_header(batches + pos, len - pos, &h); /* checked above */
        size_t size = record_batch_size(&h);
        int r = note_batch(t, batches + pos, size, &h, sk);
        if (r < 0)
            return -1; /* out of memory: the caller stops */
        moved += r;
        pos += size;
    }
    if (len > 0)
        t->noted_to = end;
    return moved;
}
