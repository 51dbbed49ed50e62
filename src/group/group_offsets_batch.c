/* The OffsetCommit control batch (src/storage/FORMAT.md, "Group offsets"),
 * plain or transactional ("Transactions"): built for the leader to append,
 * and read back from every batch appended at the log end into the pending
 * FIFO, or the producer's stash until its marker; data batches are noted
 * for the runs of control batches between them (group_offsets_run.c). */
#include <stdint.h>
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

/* What the records of a batch are. */
enum batch_values { VALUES_COMMITS, VALUES_EXPIRES, VALUES_DELETES };

/* Writes every value into values (a tombstone's without its metadata, a
 * deletion's as KQ_GROUP_OFFSET_DELETED); their ends into ends. */
static bool write_values(kq_writer *values, size_t *ends, const group_offset *entries, int count,
                         enum batch_values what, int64_t timestamp_ms)
{
    for (int i = 0; i < count; i++) {
        group_offset e = entries[i];
        if (what == VALUES_DELETES)
            e = (group_offset){.group_id = e.group_id, .topic = e.topic,
                               .partition = e.partition, .offset = -1, .leader_epoch = -1,
                               .commit_timestamp_ms = timestamp_ms};
        if (group_offset_invalid(&e))
            return false;
        if (what != VALUES_COMMITS)
            e.metadata = NULL;
        if (what == VALUES_DELETES)
            e.offset = KQ_GROUP_OFFSET_DELETED;
        group_offset_write_value(values, &e);
        ends[i] = values->len;
    }
    return !values->error;
}

/* What a batch is: its record key and, for a transactional one, the
 * producer (producer_id -1: none). */
typedef struct batch_kind {
    const uint8_t *key;
    enum batch_values values;
    int64_t producer_id;
    int16_t producer_epoch;
} batch_kind;

static bool build_records(kq_writer *out, const kq_writer *values, const size_t *ends,
                          int count, int64_t timestamp_ms, const batch_kind *kind)
{
    record *recs = calloc((size_t)count, sizeof(*recs));
    if (!recs)
        return false;
    for (int i = 0; i < count; i++) {
        size_t start = i ? ends[i - 1] : 0;
        recs[i].timestamp = timestamp_ms;
        recs[i].key = (kq_slice){ kind->key, 4 };
        recs[i].value = (kq_slice){ values->data + start, (int32_t)(ends[i] - start) };
    }
    record_batch_builder_args args = {
        .base_offset = 0,
        .partition_leader_epoch = 0,
        .attributes = (int16_t)(RECORD_ATTR_CONTROL |
                                (kind->producer_id >= 0 ? RECORD_ATTR_TRANSACTIONAL : 0)),
        .base_timestamp = timestamp_ms,
        .producer_id = kind->producer_id,
        .producer_epoch = kind->producer_epoch,
        .base_sequence = -1,
        .records = recs,
        .record_count = count,
    };
    bool ok = record_batch_build(out, &args);
    free(recs);
    return ok;
}

static bool build_batch(kq_writer *out, const group_offset *entries, int count,
                        int64_t timestamp_ms, const batch_kind *kind)
{
    if (!out || !entries || count < 1 || count > KQ_GROUP_COMMIT_PARTITIONS_MAX)
        return false;
    size_t *ends = calloc((size_t)count, sizeof(*ends));
    if (!ends)
        return false;
    kq_writer values;
    kq_writer_init(&values, RECORD_BATCH_BYTES_MAX);
    bool ok = write_values(&values, ends, entries, count, kind->values, timestamp_ms) &&
              build_records(out, &values, ends, count, timestamp_ms, kind);
    kq_writer_free(&values);
    free(ends);
    return ok;
}

bool group_offsets_build_batch(kq_writer *out, const group_offset *entries, int count,
                               int64_t timestamp_ms)
{
    batch_kind kind = { commit_key, VALUES_COMMITS, -1, -1 };
    return build_batch(out, entries, count, timestamp_ms, &kind);
}

bool group_offsets_build_txn_batch(kq_writer *out, const group_offset *entries, int count,
                                   int64_t timestamp_ms, int64_t producer_id,
                                   int16_t producer_epoch)
{
    if (producer_id < 0 || producer_epoch < 0)
        return false;
    batch_kind kind = { commit_key, VALUES_COMMITS, producer_id, producer_epoch };
    return build_batch(out, entries, count, timestamp_ms, &kind);
}

bool group_offsets_build_expire_batch(kq_writer *out, const group_offset *entries, int count,
                                      int64_t timestamp_ms)
{
    batch_kind kind = { expire_key, VALUES_EXPIRES, -1, -1 };
    return build_batch(out, entries, count, timestamp_ms, &kind);
}

bool group_offsets_build_delete_batch(kq_writer *out, const group_offset *keys, int count,
                                      int64_t timestamp_ms)
{
    batch_kind kind = { expire_key, VALUES_DELETES, -1, -1 };
    return build_batch(out, keys, count, timestamp_ms, &kind);
}

static void note_skip(group_offsets_skipped *skipped, int64_t offset, const char *reason)
{
    if (skipped->count++ == 0) {
        skipped->first_offset = offset;
        skipped->reason = reason;
    }
    skipped->last_offset = offset;
}

/* Where a cut undoes everything noted from now on (all of it lies above
 * go_last_noted). */
static int64_t undo_point(const group_offsets *o)
{
    int64_t last = go_last_noted(o);
    return last < INT64_MAX ? last + 1 : last;
}

/* One record of a control batch: 1 a commit noted (pending, or stashed when
 * the batch is transactional), 0 nothing for us or skipped, -1 it cannot
 * be kept (offsets not ascending, no memory). A transactional batch with a
 * producer id holding a COMMIT or ABORT record is that producer's marker. */
static int note_record(group_offsets *o, const record_batch_header *h, const record *rec,
                       group_offsets_skipped *skipped)
{
    int type = record_control_type(rec->key);
    bool txn = (h->attributes & RECORD_ATTR_TRANSACTIONAL) != 0;
    if (type == RECORD_CONTROL_COMMIT || type == RECORD_CONTROL_ABORT) {
        if (!txn || h->producer_id < 0 || rec->offset < h->base_offset)
            return 0;
        return go_txn_marker(o, h->producer_id, rec->offset, type == RECORD_CONTROL_COMMIT)
                   ? 0
                   : -1;
    }
    if (type != KQ_CONTROL_OFFSET_COMMIT && type != KQ_CONTROL_OFFSET_EXPIRE)
        return 0;
    group_offset_value v;
    bool tombstone = type == KQ_CONTROL_OFFSET_EXPIRE;
    const char *why = rec->offset < h->base_offset ? "offset delta below zero"
                      : txn && tombstone ? "an offset expiry in a transactional batch"
                      : txn && h->producer_id < 0
                          ? "a transactional offset commit without a producer id"
                      : tombstone ? group_offset_read_tombstone_value(rec->value, &v)
                                  : group_offset_read_value(rec->value, &v);
    if (why) {
        note_skip(skipped, rec->offset, why);
        return 0;
    }
    v.entry.log_offset = rec->offset;
    if (tombstone && o->skip_tombstones)
        return 0; /* KQ_MUTANT_EXPIRY_RESURRECTS: a rebuild that skips them */
    bool kept = txn ? go_txn_stash(o, h->producer_id, &v.entry)
                    : go_pending_push(o, &v.entry, tombstone);
    if (kept && tombstone && v.entry.offset == KQ_GROUP_OFFSET_DELETED)
        go_txn_kill(o, &v.entry, rec->offset);
    return kept ? 1 : -1;
}

/* Notes the commits of one control batch: the number noted, or -1 if one
 * cannot be kept (offsets not ascending, no memory). A value of ours that
 * does not parse is skipped; records that do not parse skip the whole
 * batch (a commit, or a marker, is applied whole or not at all). */
static int note_control(group_offsets *o, const uint8_t *batch, size_t len,
                        const record_batch_header *h, group_offsets_skipped *skipped)
{
    int64_t undo_at = undo_point(o);
    int skips_before = skipped->count;
    record_iter it;
    record rec;
    int noted = 0;
    enum record_status st = record_iter_open(&it, batch, len);
    while (st == RECORD_OK && noted >= 0 && record_iter_next(&it, &rec)) {
        int n = note_record(o, h, &rec, skipped);
        noted = n < 0 ? -1 : noted + n;
    }
    if (noted >= 0 && (st != RECORD_OK || it.status != RECORD_OK)) {
        go_txn_cut(o, undo_at);
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
    int64_t undo_at = undo_point(o);
    size_t pos = 0;
    int total = 0;
    while (pos < len && total >= 0) {
        record_batch_header h;
        if (record_batch_parse_header(batches + pos, len - pos, &h) != RECORD_OK) {
            total = -1;
            break;
        }
        size_t size = record_batch_size(&h);
        int64_t end = record_batch_last_offset(&h) + 1;
        if (record_batch_is_control(&h)) {
            int n = note_control(o, batches + pos, size, &h, sk);
            total = n < 0 || total > INT32_MAX - n ? -1 : total + n;
        } else if (h.base_offset <= go_last_noted(o) || end <= h.base_offset ||
                   !go_run_note_data(o, h.base_offset, end)) {
            total = -1; /* a data batch ends a run of control batches (issue 24) */
        }
        if (total >= 0 && end > o->noted_end)
            o->noted_end = end;
        pos += size;
    }
    if (total < 0)
        go_txn_cut(o, undo_at);
    return total;
}

int group_offsets_note_batches(group_offsets *o, const uint8_t *batches, size_t len)
{
    return group_offsets_note_batches_skipping(o, batches, len, NULL);
}
