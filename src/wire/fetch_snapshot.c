/* FetchSnapshot request/response codec, versions 0-1 (flexible from v0). */
#include <string.h>

#include "kq/wire_fetch_snapshot.h"
#include "raft_common.h"
#include "topic_array.h"
#include "wire_codec.h"

/* Least bytes on the wire: a topic (name, partitions, tags) and a
 * partition of the request (fixed fields, SnapshotId's tags, tags) and of
 * the response (the same and the bytes length). SnapshotId is a struct,
 * so in these flexible versions it ends with its own tagged fields. */
#define FS_TOPIC_MIN_WIRE 3
#define FS_REQUEST_PART_MIN_WIRE 30
#define FS_RESPONSE_PART_MIN_WIRE 37

static bool version_ok(int16_t v)
{
    return v >= WIRE_FETCH_SNAPSHOT_MIN_VERSION && v <= WIRE_FETCH_SNAPSHOT_MAX_VERSION;
}

/* ---- request ---- */

static void read_partition(kq_reader *r, const wire_ctx *c, void *part)
{
    wire_fetch_snapshot_partition *p = part;
    p->partition = kq_read_i32(r);
    p->current_leader_epoch = kq_read_i32(r);
    p->snapshot_id.end_offset = kq_read_i64(r);
    p->snapshot_id.epoch = kq_read_i32(r);
    kq_skip_tagged_fields(r); /* the SnapshotId struct's own */
    p->position = kq_read_i64(r);
    memset(&p->replica_directory_id, 0, sizeof p->replica_directory_id);
    uint32_t n = wire_tags_begin(r);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t tag;
        kq_reader sub;
        if (!wire_tag_next(r, &tag, &sub))
            break;
        if (tag == 0 && c->version >= 1)
            p->replica_directory_id = kq_read_uuid(&sub);
        wire_tag_end(r, &sub);
    }
}

static void write_partition(kq_writer *w, const wire_ctx *c, const void *part)
{
    const wire_fetch_snapshot_partition *p = part;
    kq_write_i32(w, p->partition);
    kq_write_i32(w, p->current_leader_epoch);
    kq_write_i64(w, p->snapshot_id.end_offset);
    kq_write_i32(w, p->snapshot_id.epoch);
    kq_write_empty_tagged_fields(w);
    kq_write_i64(w, p->position);
    if (c->version >= 1 && !wire_uuid_is_zero(p->replica_directory_id)) {
        kq_writer s;
        kq_write_uvarint(w, 1);
        wire_tag_open(w, &s);
        kq_write_uuid(&s, p->replica_directory_id);
        wire_tag_close(w, 0, &s);
    } else {
        kq_write_empty_tagged_fields(w);
    }
}

static const wire_topics_layout request_topics =
    WIRE_TOPICS_LAYOUT(wire_fetch_snapshot_topic, name, FS_TOPIC_MIN_WIRE,
                       FS_REQUEST_PART_MIN_WIRE, read_partition, write_partition);

static void read_request_tags(kq_reader *r, wire_fetch_snapshot_request *out)
{
    uint32_t n = wire_tags_begin(r);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t tag;
        kq_reader sub;
        if (!wire_tag_next(r, &tag, &sub))
            break;
        if (tag == 0)
            out->cluster_id = wire_read_nullable_string(&sub, true);
        wire_tag_end(r, &sub);
    }
}

int wire_fetch_snapshot_request_decode(kq_reader *r, int16_t v, kq_arena *arena,
                                       wire_fetch_snapshot_request *out)
{
    memset(out, 0, sizeof *out);
    out->cluster_id = WIRE_NULL_SLICE;
    if (!version_ok(v)) {
        kq_reader_fail(r);
        return -1;
    }
    wire_ctx c = {v, true, arena};
    out->replica_id = kq_read_i32(r);
    out->max_bytes = kq_read_i32(r);
    out->topics = wire_topics_read(r, &c, &request_topics, &out->topic_count);
    read_request_tags(r, out);
    return r->error ? -1 : 0;
}

void wire_fetch_snapshot_request_encode(kq_writer *w, int16_t v,
                                        const wire_fetch_snapshot_request *in)
{
    if (!version_ok(v)) {
        w->error = true;
        return;
    }
    wire_ctx c = {v, true, NULL};
    kq_write_i32(w, in->replica_id);
    kq_write_i32(w, in->max_bytes);
    wire_topics_write(w, &c, &request_topics, in->topics, in->topic_count);
    if (wire_slice_is_null(in->cluster_id)) {
        kq_write_empty_tagged_fields(w);
        return;
    }
    kq_writer s;
    kq_write_uvarint(w, 1);
    wire_tag_open(w, &s);
    wire_write_nullable_string(&s, true, in->cluster_id);
    wire_tag_close(w, 0, &s);
}

/* ---- response ---- */

static void read_partition_tags(kq_reader *r, wire_fetch_snapshot_partition_data *p)
{
    uint32_t n = wire_tags_begin(r);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t tag;
        kq_reader sub;
        if (!wire_tag_next(r, &tag, &sub))
            break;
        if (tag == 0) {
            p->has_current_leader = true;
            p->current_leader.leader_id = kq_read_i32(&sub);
            p->current_leader.leader_epoch = kq_read_i32(&sub);
            kq_skip_tagged_fields(&sub);
        }
        wire_tag_end(r, &sub);
    }
}

static void read_partition_data(kq_reader *r, const wire_ctx *c, void *part)
{
    (void)c;
    wire_fetch_snapshot_partition_data *p = part;
    p->index = kq_read_i32(r);
    p->error_code = kq_read_i16(r);
    p->snapshot_id.end_offset = kq_read_i64(r);
    p->snapshot_id.epoch = kq_read_i32(r);
    kq_skip_tagged_fields(r); /* the SnapshotId struct's own */
    p->current_leader.leader_id = -1;
    p->current_leader.leader_epoch = -1;
    p->size = kq_read_i64(r);
    p->position = kq_read_i64(r);
    /* UnalignedRecords is not nullable: Kafka refuses a null. */
    p->unaligned_records = wire_read_nullable_bytes(r, true);
    if (!r->error && p->unaligned_records.len < 0)
        kq_reader_fail(r);
    read_partition_tags(r, p);
}

static void write_partition_data(kq_writer *w, const wire_ctx *c, const void *part)
{
    (void)c;
    const wire_fetch_snapshot_partition_data *p = part;
    kq_write_i32(w, p->index);
    kq_write_i16(w, p->error_code);
    kq_write_i64(w, p->snapshot_id.end_offset);
    kq_write_i32(w, p->snapshot_id.epoch);
    kq_write_empty_tagged_fields(w);
    kq_write_i64(w, p->size);
    kq_write_i64(w, p->position);
    kq_slice chunk = p->unaligned_records;
    if (wire_slice_is_null(chunk))
        chunk = (kq_slice){(const uint8_t *)"", 0};
    wire_write_nullable_bytes(w, true, chunk);
    if (!p->has_current_leader) {
        kq_write_empty_tagged_fields(w);
        return;
    }
    kq_writer s;
    kq_write_uvarint(w, 1);
    wire_tag_open(w, &s);
    kq_write_i32(&s, p->current_leader.leader_id);
    kq_write_i32(&s, p->current_leader.leader_epoch);
    kq_write_empty_tagged_fields(&s);
    wire_tag_close(w, 0, &s);
}

static const wire_topics_layout response_topics =
    WIRE_TOPICS_LAYOUT(wire_fetch_snapshot_topic_response, name, FS_TOPIC_MIN_WIRE,
                       FS_RESPONSE_PART_MIN_WIRE, read_partition_data, write_partition_data);

int wire_fetch_snapshot_response_decode(kq_reader *r, int16_t v, kq_arena *arena,
                                        wire_fetch_snapshot_response *out)
{
    memset(out, 0, sizeof *out);
    if (!version_ok(v)) {
        kq_reader_fail(r);
        return -1;
    }
    wire_ctx c = {v, true, arena};
    out->throttle_time_ms = kq_read_i32(r);
    out->error_code = kq_read_i16(r);
    out->topics = wire_topics_read(r, &c, &response_topics, &out->topic_count);
    if (v >= 1)
        wire_raft_node_endpoints_tag_read(r, arena, &out->node_endpoints,
                                          &out->node_endpoint_count);
    else
        wire_read_tags_flex(r, true); /* no known tag in v0 */
    return r->error ? -1 : 0;
}

void wire_fetch_snapshot_response_encode(kq_writer *w, int16_t v,
                                         const wire_fetch_snapshot_response *in)
{
    if (!version_ok(v)) {
        w->error = true;
        return;
    }
    wire_ctx c = {v, true, NULL};
    kq_write_i32(w, in->throttle_time_ms);
    kq_write_i16(w, in->error_code);
    wire_topics_write(w, &c, &response_topics, in->topics, in->topic_count);
    if (v >= 1)
        wire_raft_node_endpoints_tag_write(w, in->node_endpoints, in->node_endpoint_count);
    else
        kq_write_empty_tagged_fields(w);
}
