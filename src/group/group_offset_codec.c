/* The value of one committed group offset (include/kq/group_offset_codec.h):
 * its rules and its strict codec. */
#include <string.h>

#include "kq/group_offset_codec.h"

const char *group_offset_invalid(const group_offset *e)
{
    if (!e || !e->group_id || !e->topic)
        return "missing group id or topic";
    size_t group_bytes = strlen(e->group_id);
    size_t topic_bytes = strlen(e->topic);
    if (group_bytes == 0 || group_bytes >= KQ_GROUP_NAME_BYTES_MAX)
        return "group id empty or too long";
    if (topic_bytes == 0 || topic_bytes >= KQ_TOPIC_NAME_BYTES_MAX)
        return "topic empty or too long";
    if (e->partition < 0)
        return "negative partition";
    if (e->offset < -1)
        return "offset below -1";
    if (e->metadata && strlen(e->metadata) > KQ_GROUP_OFFSET_METADATA_BYTES_MAX)
        return "metadata too long";
    return NULL;
}

/* The fields after the version. */
static void write_fields(kq_writer *w, const group_offset *e)
{
    kq_write_cstring(w, e->group_id);
    kq_write_cstring(w, e->topic);
    kq_write_i32(w, e->partition);
    kq_write_i64(w, e->offset);
    kq_write_i32(w, e->leader_epoch);
    kq_write_cstring(w, e->metadata);
    kq_write_i64(w, e->commit_timestamp_ms);
}

void group_offset_write_value(kq_writer *w, const group_offset *e)
{
    kq_write_i16(w, GROUP_OFFSET_VALUE_VERSION);
    write_fields(w, e);
}

void group_offset_write_txn_value(kq_writer *w, int64_t producer_id, const group_offset *e)
{
    kq_write_i16(w, GROUP_OFFSET_VALUE_VERSION);
    kq_write_i64(w, producer_id);
    write_fields(w, e);
}

/* Copies a string of at most max_bytes bytes without a NUL into dst. */
static bool copy_string(kq_slice s, char *dst, size_t max_bytes)
{
    if (s.len < 0 || (size_t)s.len > max_bytes || (s.len > 0 && !s.ptr))
        return false;
    if (s.len > 0 && memchr(s.ptr, '\0', (size_t)s.len))
        return false;
    if (s.len > 0)
        memcpy(dst, s.ptr, (size_t)s.len);
    dst[s.len] = '\0';
    return true;
}

/* Parses the fields after the version to the value's end; head_error (the
 * version's or producer id's, NULL: none) is reported once the length is
 * known to be right, as before the producer id existed. */
static const char *read_fields(const kq_reader *rd, const char *head_error,
                               bool tombstone, group_offset_value *out)
{
    kq_reader r = *rd;
    kq_slice group = kq_read_string(&r);
    kq_slice topic = kq_read_string(&r);
    int32_t partition = kq_read_i32(&r);
    int64_t offset = kq_read_i64(&r);
    int32_t leader_epoch = kq_read_i32(&r);
    kq_slice metadata = kq_read_string(&r);
    int64_t timestamp_ms = kq_read_i64(&r);
    if (r.error)
        return "value truncated";
    if (kq_reader_remaining(&r) != 0)
        return "bytes after the value";
    if (head_error)
        return head_error;
    if (!copy_string(group, out->group_id, KQ_GROUP_NAME_BYTES_MAX - 1) ||
        !copy_string(topic, out->topic, KQ_TOPIC_NAME_BYTES_MAX - 1))
        return "group id or topic null, too long or holding a NUL";
    out->metadata_null = metadata.len < 0;
    if (!out->metadata_null &&
        !copy_string(metadata, out->metadata, KQ_GROUP_OFFSET_METADATA_BYTES_MAX))
        return "metadata too long or holding a NUL";
    out->entry = (group_offset){
        .group_id = out->group_id,
        .topic = out->topic,
        .partition = partition,
        .offset = offset,
        .leader_epoch = leader_epoch,
        .metadata = out->metadata_null ? NULL : out->metadata,
        .commit_timestamp_ms = timestamp_ms,
        .log_offset = -1,
    };
    if (tombstone && offset == KQ_GROUP_OFFSET_DELETED) {
        group_offset key = out->entry;
        key.offset = -1; /* the other rules still hold */
        return group_offset_invalid(&key);
    }
    return group_offset_invalid(&out->entry);
}

/* The version (and, for a transactional value, the producer id) first. */
static const char *read_value(kq_slice v, int64_t *producer_id, bool tombstone,
                              group_offset_value *out)
{
    if (v.len < 0 || !v.ptr)
        return "null value";
    kq_reader r;
    kq_reader_init(&r, v.ptr, (size_t)v.len);
    int16_t version = kq_read_i16(&r);
    if (producer_id)
        *producer_id = kq_read_i64(&r);
    const char *head_error = version != GROUP_OFFSET_VALUE_VERSION ? "unknown value version"
                             : producer_id && *producer_id < 0 ? "negative producer id"
                                                               : NULL;
    return read_fields(&r, head_error, tombstone, out);
}

const char *group_offset_read_value(kq_slice v, group_offset_value *out)
{
    return read_value(v, NULL, false, out);
}

const char *group_offset_read_tombstone_value(kq_slice v, group_offset_value *out)
{
    return read_value(v, NULL, true, out);
}

const char *group_offset_read_txn_value(kq_slice v, int64_t *producer_id,
                                        group_offset_value *out)
{
    return read_value(v, producer_id, false, out);
}
