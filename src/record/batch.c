/* Record batch v2 header parsing, CRC check and in-place rewrites. */
#include <string.h>

#include "kq/record.h"
#include "record_internal.h"

#define BATCH_MAGIC_OFFSET 16
#define BATCH_CRC_OFFSET 17
#define BATCH_ATTRIBUTES_OFFSET RECORD_BATCH_CRC_END
/* Everything after Length up to the records. */
#define BATCH_LENGTH_MIN (RECORD_BATCH_HEADER_BYTES - RECORD_BATCH_LOG_OVERHEAD)

const char *record_status_name(enum record_status s)
{
    switch (s) {
    case RECORD_OK: return "ok";
    case RECORD_TRUNCATED: return "truncated";
    case RECORD_BAD_MAGIC: return "bad magic";
    case RECORD_BAD_LENGTH: return "bad length";
    case RECORD_BAD_CRC: return "bad crc";
    case RECORD_BAD_RECORDS: return "bad records";
    case RECORD_BAD_COMPRESSION: return "bad compression";
    }
    return "unknown";
}

enum record_status record_batch_parse_header(const uint8_t *data, size_t len,
                                             record_batch_header *h)
{
    memset(h, 0, sizeof(*h));
    if (!data || len < RECORD_BATCH_LOG_OVERHEAD)
        return RECORD_TRUNCATED;
    kq_reader r;
    kq_reader_init(&r, data, len);
    h->base_offset = kq_read_i64(&r);
    h->length = kq_read_i32(&r);
    if (h->length < BATCH_LENGTH_MIN || (uint32_t)h->length > RECORD_BATCH_BYTES_MAX)
        return RECORD_BAD_LENGTH;
    if (len <= BATCH_MAGIC_OFFSET)
        return RECORD_TRUNCATED;
    if ((int8_t)data[BATCH_MAGIC_OFFSET] != 2)
        return RECORD_BAD_MAGIC;
    if (len < record_batch_size(h))
        return RECORD_TRUNCATED;
    h->partition_leader_epoch = kq_read_i32(&r);
    h->magic = kq_read_i8(&r);
    h->crc = kq_read_u32(&r);
    h->attributes = kq_read_i16(&r);
    h->last_offset_delta = kq_read_i32(&r);
    h->base_timestamp = kq_read_i64(&r);
    h->max_timestamp = kq_read_i64(&r);
    h->producer_id = kq_read_i64(&r);
    h->producer_epoch = kq_read_i16(&r);
    h->base_sequence = kq_read_i32(&r);
    h->record_count = kq_read_i32(&r);
    return r.error ? RECORD_TRUNCATED : RECORD_OK;
}

enum record_status record_batch_check(const uint8_t *data, size_t len,
                                      record_batch_header *h)
{
    enum record_status st = record_batch_parse_header(data, len, h);
    if (st != RECORD_OK)
        return st;
    size_t size = record_batch_size(h);
    uint32_t crc = kq_crc32c(0, data + BATCH_ATTRIBUTES_OFFSET, size - BATCH_ATTRIBUTES_OFFSET);
    return crc == h->crc ? RECORD_OK : RECORD_BAD_CRC;
}

static void store_be(uint8_t *p, uint64_t v, int n)
{
    for (int i = n - 1; i >= 0; i--) {
        p[i] = (uint8_t)(v & 0xff);
        v >>= 8;
    }
}

void record_batch_set_base_offset(uint8_t *batch, int64_t base_offset)
{
    store_be(batch, (uint64_t)base_offset, 8);
}

void record_batch_set_leader_epoch(uint8_t *batch, int32_t epoch)
{
    store_be(batch + 12, (uint32_t)epoch, 4);
}

/* Used by the builder to fill the CRC once the batch is complete. */
void record_batch_seal_crc(uint8_t *batch, size_t size)
{
    uint32_t crc = kq_crc32c(0, batch + BATCH_ATTRIBUTES_OFFSET, size - BATCH_ATTRIBUTES_OFFSET);
    store_be(batch + BATCH_CRC_OFFSET, crc, 4);
}
