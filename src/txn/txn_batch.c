/* The batches a leader appends for transactions (src/storage/FORMAT.md
 * "Transactions"): a transactional id's state (our KQ_CONTROL_TXN control
 * record) and Kafka's COMMIT/ABORT markers (EndTransactionMarker). */
#include <string.h>

#include "kq/record.h"
#include "txn_internal.h"

/* EndTransactionMarker: key {version 0, type}, value {version 0,
 * coordinator epoch} (Kafka's EndTransactionMarker.java, v0). */
#define TXN_MARKER_VALUE_BYTES 6

static bool build_one(kq_writer *out, int16_t attributes, int64_t producer_id,
                      int16_t producer_epoch, int64_t timestamp_ms, uint16_t type,
                      kq_slice value)
{
    uint8_t key[4] = { 0, 0, (uint8_t)(type >> 8), (uint8_t)(type & 0xff) };
    record rec;
    memset(&rec, 0, sizeof(rec));
    rec.timestamp = timestamp_ms;
    rec.key = (kq_slice){ key, 4 };
    rec.value = value;
    record_batch_builder_args args = {
        .base_offset = 0,
        .partition_leader_epoch = 0,
        .attributes = attributes,
        .base_timestamp = timestamp_ms,
        .producer_id = producer_id,
        .producer_epoch = producer_epoch,
        .base_sequence = -1,
        .records = &rec,
        .record_count = 1,
    };
    return record_batch_build(out, &args);
}

bool txn_build_state_batch(kq_writer *out, const txn_entry *e)
{
    if (!out || txn_entry_invalid(e))
        return false;
    kq_writer value;
    kq_writer_init(&value, KQ_SNAPSHOT_RECORD_BYTES_MAX);
    txn_write_entry_value(&value, e);
    bool ok = !value.error &&
              build_one(out, RECORD_ATTR_CONTROL, -1, -1, e->update_timestamp_ms, KQ_CONTROL_TXN,
                        (kq_slice){ value.data, (int32_t)value.len });
    kq_writer_free(&value);
    return ok;
}

bool txn_build_marker(kq_writer *out, int64_t producer_id, int16_t producer_epoch, bool commit,
                      int64_t timestamp_ms)
{
    if (!out || producer_id < 0 || producer_epoch < 0)
        return false;
    uint8_t value[TXN_MARKER_VALUE_BYTES] = { 0 }; /* version 0, coordinator epoch 0 */
    return build_one(out, RECORD_ATTR_CONTROL | RECORD_ATTR_TRANSACTIONAL, producer_id,
                     producer_epoch, timestamp_ms,
                     commit ? RECORD_CONTROL_COMMIT : RECORD_CONTROL_ABORT,
                     (kq_slice){ value, sizeof(value) });
}

bool txn_parse_marker(const uint8_t *batch, size_t len, int64_t *producer_id,
                      int16_t *producer_epoch, bool *commit)
{
    record_batch_header h;
    if (!batch || record_batch_parse_header(batch, len, &h) != RECORD_OK)
        return false;
    if ((h.attributes & (RECORD_ATTR_CONTROL | RECORD_ATTR_TRANSACTIONAL)) !=
            (RECORD_ATTR_CONTROL | RECORD_ATTR_TRANSACTIONAL) ||
        h.producer_id < 0 || h.record_count < 1)
        return false;
    record_iter it;
    record rec;
    int type = -1;
    if (record_iter_open(&it, batch, record_batch_size(&h)) == RECORD_OK &&
        record_iter_next(&it, &rec))
        type = record_control_type(rec.key);
    record_iter_close(&it);
    if (type != RECORD_CONTROL_ABORT && type != RECORD_CONTROL_COMMIT)
        return false;
    if (producer_id)
        *producer_id = h.producer_id;
    if (producer_epoch)
        *producer_epoch = h.producer_epoch;
    if (commit)
        *commit = type == RECORD_CONTROL_COMMIT;
    return true;
}
