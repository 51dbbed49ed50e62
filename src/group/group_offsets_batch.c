/* The OffsetCommit control batch (src/storage/FORMAT.md, "Group offsets"):
 * built for the leader to append, and read back from every batch appended
 * at the log end into the pending FIFO. */
#include <stdlib.h>
#include <string.h>

#include "group_offsets_internal.h"
#include "kq/group_offset_codec.h"
#include "kq/record.h"

/* Control record keys {version 0, type KQ_CONTROL_OFFSET_COMMIT / _EXPIRE}. */
static const uint8_t commit_key[4] = { 0, 0, (uint8_t)(KQ_CONTROL_OFFSET_COMMIT >> 8),
                                       (uint8_t)(KQ_CONTROL_OFFSET_COMMIT & 0xff) };
static const uint8_t expire_key[4] = { 0, 0, (uint8_t)(KQ_CONTROL_OFFSET_EXPIRE >> 8),
                                       (uint8_t)(KQ_CONTROL_OFFSET_EXPIRE & 0xff) };

/* Writes every value into values (a tombstone's without its metadata);
 * their ends into ends. */
static bool write_values(kq_writer *values, size_t *ends, const group_offset *entries, int count,
                         bool tombstones)
{
    for (int i = 0; i < count; i++) {
        if (group_offset_invalid(&entries[i]))
            return false;
        group_offset e = entries[i];
        if (tombstones)
            e.metadata = NULL;
        group_offset_write_value(values, &e);
        ends[i] = values->len;
    }
    return !values->error;
}

static bool build_records(kq_writer *out, const kq_writer *values, const size_t *ends,
                          int count, int64_t timestamp_ms, const uint8_t *key)
{
    record *recs = calloc((size_t)count, sizeof(*recs));
    if (!recs)
        return false;
    for (int i = 0; i < count; i++) {
        size_t start = i ? ends[i - 1] : 0;
        recs[i].timestamp = timestamp_ms;
        recs[i].key = (kq_slice){ key, 4 };
        recs[i].value = (kq_slice){ values->data + start, (int32_t)(ends[i] - start) };
    }
    record_batch_builder_args args = {
        .base_offset = 0,
        .partition_leader_epoch = 0,
        .attributes = RECORD_ATTR_CONTROL,
        .base_timestamp = timestamp_ms,
        .producer_id = -1,
        .producer_epoch = -1,
        .base_sequence = -1,
        .records = recs,
        .record_count = count,
    };
    bool ok = record_batch_build(out, &args);
    free(recs);
    return ok;
}

static bool build_batch(kq_writer *out, const group_offset *entries, int count,
                        int64_t timestamp_ms, bool tombstones)
{
    if (!out || !entries || count < 1 || count > KQ_GROUP_COMMIT_PARTITIONS_MAX)
        return false;
    size_t *ends = calloc((size_t)count, sizeof(*ends));
    if (!ends)
        return false;
    kq_writer values;
    kq_writer_init(&values, RECORD_BATCH_BYTES_MAX);
    bool ok = write_values(&values, ends, entries, count, tombstones) &&
              build_records(out, &values, ends, count, timestamp_ms,
                            tombstones ? expire_key : commit_key);
    kq_writer_free(&values);
    free(ends);
    return ok;
}

bool group_offsets_build_batch(kq_writer *out, const group_offset *entries, int count,
                               int64_t timestamp_ms)
{
    return build_batch(out, entries, count, timestamp_ms, false);
}

bool group_offsets_build_expire_batch(kq_writer *out, const group_offset *entries, int count,
                                      int64_t timestamp_ms)
{
    return build_batch(out, entries, count, timestamp_ms, true);
}

static void note_skip(group_offsets_skipped *skipped, int64_t offset, const char *reason)
{
    if (skipped->count++ == 0) {
        skipped->first_offset = offset;
        skipped->reason = reason;
    }
    skipped->last_offset = offset;
}

/* Notes the commits of one control batch: the number noted, or -1 if one
 * cannot be kept (offsets not ascending, no memory). A value of ours that
 * does not parse is skipped; records that do not parse skip the whole
 * batch (a commit is applied whole or not at all). */
static int note_control(group_offsets *o, const uint8_t *batch, size_t len,
                        const record_batch_header *h, group_offsets_skipped *skipped)
{
    size_t kept = o->pending_len - o->pending_head; /* pushes may move the head */
    int skips_before = skipped->count;
    record_iter it;
    record rec;
    int noted = 0;
    enum record_status st = record_iter_open(&it, batch, len);
    while (st == RECORD_OK && noted >= 0 && record_iter_next(&it, &rec)) {
        int type = record_control_type(rec.key);
        if (type != KQ_CONTROL_OFFSET_COMMIT && type != KQ_CONTROL_OFFSET_EXPIRE)
            continue;
        group_offset_value v;
        const char *why = rec.offset < h->base_offset ? "offset delta below zero"
                                                      : group_offset_read_value(rec.value, &v);
        if (why) {
            note_skip(skipped, rec.offset, why);
            continue;
        }
        v.entry.log_offset = rec.offset;
        noted = go_pending_push(o, &v.entry, type == KQ_CONTROL_OFFSET_EXPIRE) ? noted + 1 : -1;
    }
    if (noted >= 0 && (st != RECORD_OK || it.status != RECORD_OK)) {
        go_pending_drop_from(o, o->pending_head + kept);
        skipped->count = skips_before;
        note_skip(skipped, h->base_offset, "the batch's records do not parse");
        noted = 0;
    }
    record_iter_close(&it);
    return noted;
}

int group_offsets_note_batches_skipping(group_offsets *o, const uint8_t *batches, size_t len,
                                        group_offsets_skipped *skipped)
{
    group_offsets_skipped local;
    group_offsets_skipped *sk = skipped ? skipped : &local;
    *sk = (group_offsets_skipped){ .count = 0, .first_offset = -1, .last_offset = -1 };
    size_t kept = o->pending_len - o->pending_head; /* pushes may move the head */
    size_t pos = 0;
    int total = 0;
    while (pos < len && total >= 0) {
        record_batch_header h;
        if (record_batch_parse_header(batches + pos, len - pos, &h) != RECORD_OK) {
            total = -1;
            break;
        }
        size_t size = record_batch_size(&h);
        if (record_batch_is_control(&h)) {
            int n = note_control(o, batches + pos, size, &h, sk);
            total = n < 0 || total > INT32_MAX - n ? -1 : total + n;
        }
        pos += size;
    }
    if (total < 0)
        go_pending_drop_from(o, o->pending_head + kept);
    return total;
}

int group_offsets_note_batches(group_offsets *o, const uint8_t *batches, size_t len)
{
    return group_offsets_note_batches_skipping(o, batches, len, NULL);
}
