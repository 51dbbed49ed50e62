/* The KQ_CONTROL_GROUP control batch (src/storage/FORMAT.md "Group
 * membership"): one take of the coordinator's changes built for the leader
 * to append, and the records of every batch appended at the log end
 * applied to the store (a batch whole or not at all). */
#include <stdlib.h>
#include <string.h>

#include "group_store_internal.h"
#include "kq/record.h"

/* Control record key {version 0, type KQ_CONTROL_GROUP}. */
static const uint8_t group_key[4] = {0, 0, (uint8_t)(KQ_CONTROL_GROUP >> 8),
                                     (uint8_t)(KQ_CONTROL_GROUP & 0xff)};

void group_store_batch_init(group_store_batch *b)
{
    memset(b, 0, sizeof(*b));
    kq_writer_init(&b->values, RECORD_BATCH_BYTES_MAX / 2);
}

void group_store_batch_free(group_store_batch *b)
{
    kq_writer_free(&b->values);
    free(b->ends);
    memset(b, 0, sizeof(*b));
}

void group_store_batch_reset(group_store_batch *b)
{
    kq_writer_reset(&b->values);
    b->count = 0;
    b->failed = false;
}

bool group_store_batch_add(group_store_batch *b, const group_store_record *r)
{
    if (b->failed)
        return false;
    if (group_store_record_invalid(r)) {
        b->failed = true;
        return false;
    }
    if (b->count == b->cap) {
        int cap = b->cap ? b->cap * 2 : 64;
        size_t *e = realloc(b->ends, (size_t)cap * sizeof(*e));
        if (!e) {
            b->failed = true;
            return false;
        }
        b->ends = e;
        b->cap = cap;
    }
    group_store_write_value(&b->values, r);
    if (b->values.error) {
        b->failed = true;
        return false;
    }
    b->ends[b->count++] = b->values.len;
    return true;
}

size_t group_store_batch_bytes(const group_store_batch *b) { return b->values.len; }

bool group_store_batch_build(const group_store_batch *b, kq_writer *out, int64_t timestamp_ms)
{
    if (b->failed || b->count == 0)
        return false;
    record *recs = calloc((size_t)b->count, sizeof(*recs));
    if (!recs)
        return false;
    for (int i = 0; i < b->count; i++) {
        size_t start = i ? b->ends[i - 1] : 0;
        recs[i].timestamp = timestamp_ms;
        recs[i].key = (kq_slice){group_key, 4};
        recs[i].value = (kq_slice){b->values.data + start, (int32_t)(b->ends[i] - start)};
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
        .record_count = b->count,
    };
    bool ok = record_batch_build(out, &args);
    free(recs);
    return ok;
}

static void note_skip(group_store_skipped *sk, int64_t offset, const char *reason)
{
    if (sk->count++ == 0) {
        sk->first_offset = offset;
        sk->reason = reason;
    }
}

/* Checks every record of ours in one control batch (pass 1, apply false)
 * or applies them (pass 2): the records of ours, or -1 (a record that does
 * not parse: *why; memory ran out: why NULL). */
static int walk_control(group_store *s, const uint8_t *batch, size_t len,
                        const record_batch_header *h, bool apply, const char **why,
                        int64_t *at)
{
    record_iter it;
    record rec;
    int n = 0;
    enum record_status st = record_iter_open(&it, batch, len);
    while (st == RECORD_OK && n >= 0 && record_iter_next(&it, &rec)) {
        if (record_control_type(rec.key) != KQ_CONTROL_GROUP)
            continue;
        group_store_record r;
        group_store_scratch scratch;
        *at = rec.offset;
        *why = rec.offset < h->base_offset ? "offset delta below zero"
                                           : group_store_read_value(rec.value, &r, &scratch);
        if (*why)
            n = -1;
        else if (apply && !gs_apply(s, &r))
            n = -1;
        else
            n++;
        if (n > 0 && apply)
            s->last_offset = rec.offset;
    }
    if (n >= 0 && (st != RECORD_OK || it.status != RECORD_OK)) {
        *why = "the batch's records do not parse";
        *at = h->base_offset;
        n = -1;
    }
    record_iter_close(&it);
    return n;
}

/* One batch: the records applied, 0 (none of ours, or skipped), -1 (no
 * memory). */
static int note_one(group_store *s, const uint8_t *batch, size_t len,
                    const record_batch_header *h, group_store_skipped *sk)
{
    if (!record_batch_is_control(h) || (h->attributes & RECORD_ATTR_TRANSACTIONAL))
        return 0;
    const char *why = NULL;
    int64_t at = h->base_offset;
    int n = walk_control(s, batch, len, h, false, &why, &at);
    if (n < 0) {
        note_skip(sk, at, why);
        return 0;
    }
    if (n == 0)
        return 0;
    return walk_control(s, batch, len, h, true, &why, &at);
}

int group_store_note_batches(group_store *s, const uint8_t *batches, size_t len,
                             group_store_skipped *skipped)
{
    group_store_skipped local;
    group_store_skipped *sk = skipped ? skipped : &local;
    *sk = (group_store_skipped){.count = 0, .first_offset = -1};
    size_t pos = 0;
    int total = 0;
    while (pos < len) {
        record_batch_header h;
        if (record_batch_parse_header(batches + pos, len - pos, &h) != RECORD_OK ||
            h.base_offset < s->noted_to)
            return -1;
        size_t size = record_batch_size(&h);
        int n = note_one(s, batches + pos, size, &h, sk);
        if (n < 0 || total > INT32_MAX - n)
            return -1;
        total += n;
        s->noted_to = record_batch_last_offset(&h) + 1;
        pos += size;
    }
    return total;
}
