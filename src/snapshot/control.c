/* The snapshot's control batches: SnapshotHeaderRecord (control type 3,
 * flexible v0 {Version i16, LastContainedLogTimestamp i64, tags}) first and
 * SnapshotFooterRecord (type 4, {Version i16, tags}) last, each alone in an
 * uncompressed control batch built by record_batch_build. */
#include <string.h>

#include "snapshot_internal.h"

static bool build_control(kq_writer *out, int64_t offset, int32_t epoch, int64_t ts,
                          int type, const kq_writer *value)
{
    if (value->error)
        return false;
    uint8_t key[4] = { 0, 0, 0, (uint8_t)type };
    record rec;
    memset(&rec, 0, sizeof(rec));
    rec.timestamp = ts;
    rec.key = (kq_slice){ key, sizeof(key) };
    rec.value = (kq_slice){ value->data, (int32_t)value->len };
    record_batch_builder_args args = {
        .base_offset = offset,
        .partition_leader_epoch = epoch,
        .attributes = RECORD_ATTR_CONTROL,
        .base_timestamp = ts,
        .producer_id = -1,
        .producer_epoch = -1,
        .base_sequence = -1,
        .records = &rec,
        .record_count = 1,
    };
    return record_batch_build(out, &args);
}

bool snap_build_header(kq_writer *out, int32_t epoch, int64_t timestamp_ms)
{
    kq_writer v;
    kq_writer_init(&v, 64);
    kq_write_i16(&v, SNAP_CONTROL_VERSION);
    kq_write_i64(&v, timestamp_ms);
    kq_write_empty_tagged_fields(&v);
    bool ok = build_control(out, 0, epoch, timestamp_ms, KQ_SNAPSHOT_CONTROL_HEADER, &v);
    kq_writer_free(&v);
    return ok;
}

bool snap_build_footer(kq_writer *out, int64_t offset, int32_t epoch, int64_t timestamp_ms)
{
    kq_writer v;
    kq_writer_init(&v, 64);
    kq_write_i16(&v, SNAP_CONTROL_VERSION);
    kq_write_empty_tagged_fields(&v);
    bool ok = build_control(out, offset, epoch, timestamp_ms, KQ_SNAPSHOT_CONTROL_FOOTER, &v);
    kq_writer_free(&v);
    return ok;
}

static const char *read_version(kq_reader *r, kq_slice value)
{
    if (value.len < 0 || !value.ptr)
        return "null control value";
    kq_reader_init(r, value.ptr, (size_t)value.len);
    int16_t version = kq_read_i16(r);
    if (r->error)
        return "control value truncated";
    return version == SNAP_CONTROL_VERSION ? NULL : "unknown control record version";
}

static const char *read_tags_end(kq_reader *r)
{
    kq_skip_tagged_fields(r);
    if (r->error)
        return "control value truncated";
    return kq_reader_remaining(r) == 0 ? NULL : "bytes after the control value";
}

const char *snap_read_header(kq_slice value, int64_t *timestamp_ms)
{
    kq_reader r;
    const char *why = read_version(&r, value);
    if (why)
        return why;
    int64_t ts = kq_read_i64(&r);
    why = read_tags_end(&r);
    if (!why && timestamp_ms)
        *timestamp_ms = ts;
    return why;
}

const char *snap_read_footer(kq_slice value)
{
    kq_reader r;
    const char *why = read_version(&r, value);
    return why ? why : read_tags_end(&r);
}
