/* Iteration over the records of one batch (DefaultRecord framing). */
#include <stdlib.h>
#include <string.h>

#include "kq/record.h"

/* Zigzag-varint length prefix followed by that many bytes; -1 is null. */
static kq_slice read_varint_bytes(kq_reader *r, bool nullable)
{
    kq_slice s = { NULL, -1 };
    int32_t n = kq_read_varint(r);
    if (r->error)
        return s;
    if (n == -1 && nullable)
        return s;
    if (n < 0) {
        kq_reader_fail(r);
        return s;
    }
    const uint8_t *p = kq_read_raw(r, (size_t)n);
    if (!p)
        return s;
    s.ptr = p;
    s.len = n;
    return s;
}

bool record_header_next(kq_reader *r, record_header_kv *kv)
{
    kv->key = read_varint_bytes(r, false);
    kv->value = read_varint_bytes(r, true);
    return !r->error;
}

enum record_status record_iter_open(record_iter *it, const uint8_t *batch, size_t len)
{
    memset(it, 0, sizeof(*it));
    it->status = record_batch_parse_header(batch, len, &it->header);
    if (it->status != RECORD_OK)
        return it->status;
    if (it->header.record_count < 0) {
        it->status = RECORD_BAD_RECORDS;
        return it->status;
    }
    const uint8_t *payload = batch + RECORD_BATCH_HEADER_BYTES;
    size_t payload_len = record_batch_size(&it->header) - RECORD_BATCH_HEADER_BYTES;
    int codec = it->header.attributes & RECORD_ATTR_COMPRESSION_MASK;
    if (codec == RECORD_COMPRESSION_NONE) {
        kq_reader_init(&it->reader, payload, payload_len);
        return RECORD_OK;
    }
    kq_writer w;
    kq_writer_init(&w, RECORD_BATCH_BYTES_MAX);
    it->status = record_decompress((enum record_compression)codec, payload, payload_len, &w);
    if (it->status != RECORD_OK) {
        kq_writer_free(&w);
        return it->status;
    }
    it->scratch = w.data;
    it->scratch_len = w.len;
    kq_reader_init(&it->reader, it->scratch, it->scratch_len);
    return RECORD_OK;
}

static bool parse_record(kq_reader *outer, const record_batch_header *h, record *rec)
{
    int32_t size = kq_read_varint(outer);
    if (outer->error || size < 0)
        return false;
    const uint8_t *body = kq_read_raw(outer, (size_t)size);
    if (!body)
        return false;
    kq_reader r;
    kq_reader_init(&r, body, (size_t)size);
    (void)kq_read_i8(&r); /* record attributes: unused */
    int64_t ts_delta = kq_read_varlong(&r);
    int32_t offset_delta = kq_read_varint(&r);
    /* Unsigned sums: wrap instead of signed overflow on hostile input. */
    rec->timestamp = (int64_t)((uint64_t)h->base_timestamp + (uint64_t)ts_delta);
    rec->offset = (int64_t)((uint64_t)h->base_offset + (uint64_t)(int64_t)offset_delta);
    rec->key = read_varint_bytes(&r, true);
    rec->value = read_varint_bytes(&r, true);
    int32_t header_count = kq_read_varint(&r);
    if (r.error || header_count < 0)
        return false;
    rec->header_count = header_count;
    rec->headers = NULL;
    size_t headers_start = r.pos;
    for (int32_t i = 0; i < header_count; i++) {
        record_header_kv kv;
        if (!record_header_next(&r, &kv))
            return false;
    }
    if (r.error || kq_reader_remaining(&r) != 0)
        return false;
    rec->headers_raw.ptr = body + headers_start;
    rec->headers_raw.len = (int32_t)(r.pos - headers_start);
    return true;
}

bool record_iter_next(record_iter *it, record *rec)
{
    if (it->status != RECORD_OK)
        return false;
    if (it->index >= it->header.record_count) {
        if (kq_reader_remaining(&it->reader) != 0 || it->reader.error)
            it->status = RECORD_BAD_RECORDS;
        return false;
    }
    memset(rec, 0, sizeof(*rec));
    if (!parse_record(&it->reader, &it->header, rec)) {
        it->status = RECORD_BAD_RECORDS;
        return false;
    }
    it->index++;
    return true;
}

void record_iter_close(record_iter *it)
{
    free(it->scratch);
    it->scratch = NULL;
    it->scratch_len = 0;
}
