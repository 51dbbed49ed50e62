/* Validation of a blob of consecutive record batches. */
#include "kq/record.h"
#include "record_internal.h"

/* Parses every record and checks count, offset deltas and lastOffsetDelta;
 * a compressed batch is inflated first. */
static enum record_status validate_records(const uint8_t *batch, size_t len,
                                           const record_batch_header *h)
{
    if ((h->attributes & RECORD_ATTR_COMPRESSION_MASK) == RECORD_COMPRESSION_NONE)
        return record_validate_plain(batch, h);
    record_iter it;
    enum record_status st = record_iter_open(&it, batch, len);
    int32_t n = 0;
    record rec;
    while (st == RECORD_OK && record_iter_next(&it, &rec)) {
        if ((uint64_t)rec.offset - (uint64_t)it.header.base_offset != (uint64_t)n) {
            st = RECORD_BAD_RECORDS;
            break;
        }
        n++;
    }
    if (st == RECORD_OK)
        st = it.status;
    if (st == RECORD_OK && (n != it.header.record_count || it.header.last_offset_delta != n - 1))
        st = RECORD_BAD_RECORDS;
    record_iter_close(&it);
    return st;
}

enum record_status record_set_validate(const uint8_t *data, size_t len, bool deep,
                                       record_set_summary *summary)
{
    record_set_summary s = { .max_timestamp = -1 };
    int64_t offsets = 0;
    size_t pos = 0;
    enum record_status st = RECORD_OK;
    if (!data && len > 0)
        st = RECORD_TRUNCATED;
    while (st == RECORD_OK && pos < len) {
        record_batch_header h;
        st = record_batch_check(data + pos, len - pos, &h);
        if (st != RECORD_OK)
            break;
        /* Kafka rejects empty batches and a count that disagrees with the
         * offset span (LogValidator); both are cheap header checks. */
        if (h.record_count < 1 || h.last_offset_delta != h.record_count - 1) {
            st = RECORD_BAD_RECORDS;
            break;
        }
        size_t size = record_batch_size(&h);
        if (deep && (st = validate_records(data + pos, size, &h)) != RECORD_OK)
            break;
        offsets += (int64_t)h.last_offset_delta + 1;
        if (offsets > INT32_MAX) {
            st = RECORD_BAD_RECORDS;
            break;
        }
        s.batch_count++;
        s.attributes_any |= (uint16_t)h.attributes;
        s.producer_id_batches += h.producer_id >= 0;
        if (h.max_timestamp > s.max_timestamp)
            s.max_timestamp = h.max_timestamp;
        pos += size;
    }
    s.offset_count = (int32_t)offsets;
    if (summary)
        *summary = s;
    return st;
}
