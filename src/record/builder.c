/* Builder for uncompressed record batches (control batches, tests). */
#include <string.h>

#include "kq/record.h"
#include "record_internal.h"

static size_t varlong_size(int64_t v)
{
    uint64_t z = ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
    size_t n = 1;
    while (z >= 0x80) {
        z >>= 7;
        n++;
    }
    return n;
}

static bool slice_ok(kq_slice s, bool nullable)
{
    if (s.len == -1)
        return nullable;
    return s.len >= 0 && (s.len == 0 || s.ptr != NULL);
}

static size_t slice_size(kq_slice s)
{
    return s.len < 0 ? varlong_size(-1) : varlong_size(s.len) + (size_t)s.len;
}

static void write_slice(kq_writer *w, kq_slice s)
{
    if (s.len < 0) {
        kq_write_varint(w, -1);
        return;
    }
    kq_write_varint(w, s.len);
    if (s.len > 0)
        kq_write_raw(w, s.ptr, (size_t)s.len);
}

/* Size of the record body after its Length varint; 0 if the record is invalid. */
static size_t record_body_size(const record *rec, int64_t ts_delta, int32_t offset_delta)
{
    if (!slice_ok(rec->key, true) || !slice_ok(rec->value, true) || rec->header_count < 0)
        return 0;
    if (rec->header_count > 0 && !rec->headers)
        return 0;
    size_t n = 1 + varlong_size(ts_delta) + varlong_size(offset_delta) + slice_size(rec->key) +
               slice_size(rec->value) + varlong_size(rec->header_count);
    for (int i = 0; i < rec->header_count; i++) {
        if (!slice_ok(rec->headers[i].key, false) || !slice_ok(rec->headers[i].value, true))
            return 0;
        n += slice_size(rec->headers[i].key) + slice_size(rec->headers[i].value);
    }
    return n;
}

static int64_t sub_wrap(int64_t a, int64_t b)
{
    return (int64_t)((uint64_t)a - (uint64_t)b);
}

bool record_batch_build(kq_writer *out, const record_batch_builder_args *a)
{
    if (out->error || a->record_count < 1 || !a->records ||
        (a->attributes & RECORD_ATTR_COMPRESSION_MASK) != RECORD_COMPRESSION_NONE)
        return false;
    size_t start = out->len;
    int64_t max_ts = a->records[0].timestamp;
    for (int i = 1; i < a->record_count; i++)
        if (a->records[i].timestamp > max_ts)
            max_ts = a->records[i].timestamp;

    kq_write_i64(out, a->base_offset);
    kq_write_i32(out, 0); /* Length, patched below */
    kq_write_i32(out, a->partition_leader_epoch);
    kq_write_i8(out, 2);
    kq_write_u32(out, 0); /* CRC, sealed below */
    kq_write_i16(out, a->attributes);
    kq_write_i32(out, a->record_count - 1);
    kq_write_i64(out, a->base_timestamp);
    kq_write_i64(out, max_ts);
    kq_write_i64(out, a->producer_id);
    kq_write_i16(out, a->producer_epoch);
    kq_write_i32(out, a->base_sequence);
    kq_write_i32(out, a->record_count);
    for (int i = 0; i < a->record_count; i++) {
        const record *rec = &a->records[i];
        int64_t ts_delta = sub_wrap(rec->timestamp, a->base_timestamp);
        size_t body = record_body_size(rec, ts_delta, i);
        if (body == 0 || body > RECORD_BATCH_BYTES_MAX)
            goto fail;
        kq_write_varint(out, (int32_t)body);
        kq_write_i8(out, 0);
        kq_write_varlong(out, ts_delta);
        kq_write_varint(out, i);
        write_slice(out, rec->key);
        write_slice(out, rec->value);
        kq_write_varint(out, rec->header_count);
        for (int h = 0; h < rec->header_count; h++) {
            write_slice(out, rec->headers[h].key);
            write_slice(out, rec->headers[h].value);
        }
    }
    if (out->error)
        goto fail;
    size_t size = out->len - start;
    if (size - RECORD_BATCH_LOG_OVERHEAD > RECORD_BATCH_BYTES_MAX)
        goto fail;
    kq_writer_patch_i32(out, start + 8, (int32_t)(size - RECORD_BATCH_LOG_OVERHEAD));
    record_batch_seal_crc(out->data + start, size);
    return true;
fail:
    if (!out->error)
        out->len = start;
    return false;
}
