/* Fetch request/response codec, versions 4-17 (flexible from v12). */
#include <string.h>

#include "kq/wire_fetch.h"
#include "topic_array.h"
#include "wire_codec.h"

const kq_uuid WIRE_METADATA_TOPIC_ID = {{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}};

static bool version_ok(int16_t v)
{
    return v >= WIRE_FETCH_MIN_VERSION && v <= WIRE_FETCH_MAX_VERSION;
}

/* Topics are named up to v12 and identified by topic id from v13. */
static void read_topic_ref(kq_reader *r, int16_t v, kq_slice *topic, kq_uuid *topic_id)
{
    wire_read_topic_ref(r, v >= 12, v >= 13, topic, topic_id);
}

static void write_topic_ref(kq_writer *w, int16_t v, kq_slice topic, kq_uuid topic_id)
{
    wire_write_topic_ref(w, v >= 12, v >= 13, topic, topic_id);
}

/* ---- request ---- */

static void read_fetch_partition(kq_reader *r, const wire_ctx *c, void *part)
{
    wire_fetch_partition *p = part;
    int16_t v = c->version;
    bool flex = c->flex;
    p->partition = kq_read_i32(r);
    p->current_leader_epoch = v >= 9 ? kq_read_i32(r) : -1;
    p->fetch_offset = kq_read_i64(r);
    p->last_fetched_epoch = v >= 12 ? kq_read_i32(r) : -1;
    p->log_start_offset = v >= 5 ? kq_read_i64(r) : -1;
    p->partition_max_bytes = kq_read_i32(r);
    memset(&p->replica_directory_id, 0, sizeof p->replica_directory_id);
    if (!flex)
        return;
    uint32_t n = wire_tags_begin(r);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t tag;
        kq_reader sub;
        if (!wire_tag_next(r, &tag, &sub))
            break;
        if (tag == 0 && v >= 17)
            p->replica_directory_id = kq_read_uuid(&sub);
        wire_tag_end(r, &sub);
    }
}

static void write_fetch_partition(kq_writer *w, const wire_ctx *c, const void *part)
{
    const wire_fetch_partition *p = part;
    int16_t v = c->version;
    kq_write_i32(w, p->partition);
    if (v >= 9)
        kq_write_i32(w, p->current_leader_epoch);
    kq_write_i64(w, p->fetch_offset);
    if (v >= 12)
        kq_write_i32(w, p->last_fetched_epoch);
    if (v >= 5)
        kq_write_i64(w, p->log_start_offset);
    kq_write_i32(w, p->partition_max_bytes);
    if (v < 12)
        return;
    if (v >= 17 && !wire_uuid_is_zero(p->replica_directory_id)) {
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
    WIRE_TOPICS_LAYOUT_REF(wire_fetch_topic, topic, topic_id, 1, 1, read_fetch_partition,
                           write_fetch_partition, read_topic_ref, write_topic_ref);

static void read_forgotten_topic(kq_reader *r, int16_t v, kq_arena *arena,
                                 wire_fetch_forgotten_topic *t)
{
    bool flex = v >= 12;
    read_topic_ref(r, v, &t->topic, &t->topic_id);
    t->partitions = wire_read_i32_array(r, arena, flex, &t->partition_count);
    wire_read_tags_flex(r, flex);
}

static void read_request_tags(kq_reader *r, int16_t v, wire_fetch_request *out)
{
    uint32_t n = wire_tags_begin(r);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t tag;
        kq_reader sub;
        if (!wire_tag_next(r, &tag, &sub))
            break;
        if (tag == 0) {
            out->cluster_id = wire_read_nullable_string(&sub, true);
        } else if (tag == 1 && v >= 15) {
            out->replica_id = kq_read_i32(&sub);
            out->replica_epoch = kq_read_i64(&sub);
            kq_skip_tagged_fields(&sub);
        }
        wire_tag_end(r, &sub);
    }
}

int wire_fetch_request_decode(kq_reader *r, int16_t v, kq_arena *arena, wire_fetch_request *out)
{
    memset(out, 0, sizeof *out);
    if (!version_ok(v)) {
        kq_reader_fail(r);
        return -1;
    }
    bool flex = v >= 12;
    out->cluster_id = WIRE_NULL_SLICE;
    out->replica_id = v <= 14 ? kq_read_i32(r) : -1;
    out->replica_epoch = -1;
    out->max_wait_ms = kq_read_i32(r);
    out->min_bytes = kq_read_i32(r);
    out->max_bytes = kq_read_i32(r);
    out->isolation_level = kq_read_i8(r);
    out->session_id = v >= 7 ? kq_read_i32(r) : 0;
    out->session_epoch = v >= 7 ? kq_read_i32(r) : -1;

    wire_ctx c = {v, flex, arena};
    out->topics = wire_topics_read(r, &c, &request_topics, &out->topic_count);
    if (v >= 7) {
        int32_t n = wire_read_array_len(r, flex, false);
        out->forgotten_topics = wire_alloc_array(r, arena, n, sizeof *out->forgotten_topics, 1);
        out->forgotten_topic_count = r->error ? 0 : n;
        for (int32_t i = 0; i < n && !r->error; i++)
            read_forgotten_topic(r, v, arena, &out->forgotten_topics[i]);
    }
    out->rack_id = v >= 11 ? wire_read_string(r, flex) : kq_slice_cstr("");
    if (flex)
        read_request_tags(r, v, out);
    return r->error ? -1 : 0;
}

void wire_fetch_request_encode(kq_writer *w, int16_t v, const wire_fetch_request *in)
{
    if (!version_ok(v)) {
        w->error = true;
        return;
    }
    bool flex = v >= 12;
    if (v <= 14)
        kq_write_i32(w, in->replica_id);
    kq_write_i32(w, in->max_wait_ms);
    kq_write_i32(w, in->min_bytes);
    kq_write_i32(w, in->max_bytes);
    kq_write_i8(w, in->isolation_level);
    if (v >= 7) {
        kq_write_i32(w, in->session_id);
        kq_write_i32(w, in->session_epoch);
    }
    wire_ctx c = {v, flex, NULL};
    wire_topics_write(w, &c, &request_topics, in->topics, in->topic_count);
    if (v >= 7) {
        wire_write_array_len(w, flex, false, in->forgotten_topic_count);
        for (int32_t i = 0; i < in->forgotten_topic_count; i++) {
            const wire_fetch_forgotten_topic *t = &in->forgotten_topics[i];
            write_topic_ref(w, v, t->topic, t->topic_id);
            wire_write_i32_array(w, flex, t->partitions, t->partition_count);
            wire_write_tags_flex(w, flex);
        }
    }
    if (v >= 11)
        wire_write_string(w, flex, in->rack_id);
    if (!flex)
        return;
    bool has_cluster = !wire_slice_is_null(in->cluster_id);
    bool has_state = v >= 15 && (in->replica_id != -1 || in->replica_epoch != -1);
    kq_write_uvarint(w, (uint32_t)has_cluster + (uint32_t)has_state);
    kq_writer s;
    if (has_cluster) {
        wire_tag_open(w, &s);
        wire_write_nullable_string(&s, true, in->cluster_id);
        wire_tag_close(w, 0, &s);
    }
    if (has_state) {
        wire_tag_open(w, &s);
        kq_write_i32(&s, in->replica_id);
        kq_write_i64(&s, in->replica_epoch);
        kq_write_empty_tagged_fields(&s);
        wire_tag_close(w, 1, &s);
    }
}

/* ---- response ---- */

static void read_partition_tags(kq_reader *r, wire_fetch_partition_data *p)
{
    uint32_t n = wire_tags_begin(r);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t tag;
        kq_reader sub;
        if (!wire_tag_next(r, &tag, &sub))
            break;
        if (tag == 0) {
            p->has_diverging_epoch = true;
            p->diverging_epoch.epoch = kq_read_i32(&sub);
            p->diverging_epoch.end_offset = kq_read_i64(&sub);
            kq_skip_tagged_fields(&sub);
        } else if (tag == 1) {
            p->has_current_leader = true;
            p->current_leader.leader_id = kq_read_i32(&sub);
            p->current_leader.leader_epoch = kq_read_i32(&sub);
            kq_skip_tagged_fields(&sub);
        } else if (tag == 2) {
            p->has_snapshot_id = true;
            p->snapshot_id.end_offset = kq_read_i64(&sub);
            p->snapshot_id.epoch = kq_read_i32(&sub);
            kq_skip_tagged_fields(&sub);
        }
        wire_tag_end(r, &sub);
    }
}

static void read_partition_data(kq_reader *r, const wire_ctx *c, void *part)
{
    wire_fetch_partition_data *p = part;
    int16_t v = c->version;
    bool flex = c->flex;
    kq_arena *arena = c->arena;
    p->partition_index = kq_read_i32(r);
    p->error_code = kq_read_i16(r);
    p->high_watermark = kq_read_i64(r);
    p->last_stable_offset = kq_read_i64(r);
    p->log_start_offset = v >= 5 ? kq_read_i64(r) : -1;
    p->diverging_epoch.epoch = -1;
    p->diverging_epoch.end_offset = -1;
    p->current_leader.leader_id = -1;
    p->current_leader.leader_epoch = -1;
    p->snapshot_id.end_offset = -1;
    p->snapshot_id.epoch = -1;
    int32_t n = wire_read_array_len(r, flex, true);
    p->aborted_transactions = wire_alloc_array(r, arena, n, sizeof *p->aborted_transactions, 1);
    p->aborted_transaction_count = r->error ? 0 : n;
    for (int32_t i = 0; i < n && !r->error; i++) {
        p->aborted_transactions[i].producer_id = kq_read_i64(r);
        p->aborted_transactions[i].first_offset = kq_read_i64(r);
        wire_read_tags_flex(r, flex);
    }
    p->preferred_read_replica = v >= 11 ? kq_read_i32(r) : -1;
    p->records = wire_read_nullable_bytes(r, flex);
    if (flex)
        read_partition_tags(r, p);
}

static void write_partition_data(kq_writer *w, const wire_ctx *c, const void *part)
{
    const wire_fetch_partition_data *p = part;
    int16_t v = c->version;
    bool flex = c->flex;
    kq_write_i32(w, p->partition_index);
    kq_write_i16(w, p->error_code);
    kq_write_i64(w, p->high_watermark);
    kq_write_i64(w, p->last_stable_offset);
    if (v >= 5)
        kq_write_i64(w, p->log_start_offset);
    wire_write_array_len(w, flex, true, p->aborted_transaction_count);
    for (int32_t i = 0; i < p->aborted_transaction_count; i++) {
        kq_write_i64(w, p->aborted_transactions[i].producer_id);
        kq_write_i64(w, p->aborted_transactions[i].first_offset);
        wire_write_tags_flex(w, flex);
    }
    if (v >= 11)
        kq_write_i32(w, p->preferred_read_replica);
    if (p->records_external_at) {
        if (flex)
            kq_write_uvarint(w, (uint32_t)p->records.len + 1);
        else
            kq_write_i32(w, p->records.len);
        *p->records_external_at = w->len;
    } else {
        wire_write_nullable_bytes(w, flex, p->records);
    }
    if (!flex)
        return;
    kq_write_uvarint(w, (uint32_t)p->has_diverging_epoch + (uint32_t)p->has_current_leader +
                            (uint32_t)p->has_snapshot_id);
    kq_writer s;
    if (p->has_diverging_epoch) {
        wire_tag_open(w, &s);
        kq_write_i32(&s, p->diverging_epoch.epoch);
        kq_write_i64(&s, p->diverging_epoch.end_offset);
        kq_write_empty_tagged_fields(&s);
        wire_tag_close(w, 0, &s);
    }
    if (p->has_current_leader) {
        wire_tag_open(w, &s);
        kq_write_i32(&s, p->current_leader.leader_id);
        kq_write_i32(&s, p->current_leader.leader_epoch);
        kq_write_empty_tagged_fields(&s);
        wire_tag_close(w, 1, &s);
    }
    if (p->has_snapshot_id) {
        wire_tag_open(w, &s);
        kq_write_i64(&s, p->snapshot_id.end_offset);
        kq_write_i32(&s, p->snapshot_id.epoch);
        kq_write_empty_tagged_fields(&s);
        wire_tag_close(w, 2, &s);
    }
}

static const wire_topics_layout response_topics =
    WIRE_TOPICS_LAYOUT_REF(wire_fetch_topic_response, topic, topic_id, 1, 1, read_partition_data,
                           write_partition_data, read_topic_ref, write_topic_ref);

static void read_node_endpoints(kq_reader *r, kq_arena *arena, wire_fetch_response *out)
{
    int32_t n = wire_read_array_len(r, true, false);
    out->node_endpoints = wire_alloc_array(r, arena, n, sizeof *out->node_endpoints, 1);
    out->node_endpoint_count = r->error ? 0 : n;
    for (int32_t i = 0; i < n && !r->error; i++) {
        wire_fetch_node_endpoint *e = &out->node_endpoints[i];
        e->node_id = kq_read_i32(r);
        e->host = wire_read_string(r, true);
        e->port = kq_read_i32(r);
        e->rack = wire_read_nullable_string(r, true);
        kq_skip_tagged_fields(r);
    }
    if (r->error) {
        out->node_endpoints = NULL;
        out->node_endpoint_count = 0;
    }
}

int wire_fetch_response_decode(kq_reader *r, int16_t v, kq_arena *arena, wire_fetch_response *out)
{
    memset(out, 0, sizeof *out);
    if (!version_ok(v)) {
        kq_reader_fail(r);
        return -1;
    }
    bool flex = v >= 12;
    out->throttle_time_ms = kq_read_i32(r);
    if (v >= 7) {
        out->error_code = kq_read_i16(r);
        out->session_id = kq_read_i32(r);
    }
    wire_ctx c = {v, flex, arena};
    out->responses = wire_topics_read(r, &c, &response_topics, &out->response_count);
    if (flex) {
        uint32_t tags = wire_tags_begin(r);
        for (uint32_t i = 0; i < tags; i++) {
            uint32_t tag;
            kq_reader sub;
            if (!wire_tag_next(r, &tag, &sub))
                break;
            if (tag == 0 && v >= 16)
                read_node_endpoints(&sub, arena, out);
            wire_tag_end(r, &sub);
        }
    }
    return r->error ? -1 : 0;
}

void wire_fetch_response_encode(kq_writer *w, int16_t v, const wire_fetch_response *in)
{
    if (!version_ok(v)) {
        w->error = true;
        return;
    }
    bool flex = v >= 12;
    kq_write_i32(w, in->throttle_time_ms);
    if (v >= 7) {
        kq_write_i16(w, in->error_code);
        kq_write_i32(w, in->session_id);
    }
    wire_ctx c = {v, flex, NULL};
    wire_topics_write(w, &c, &response_topics, in->responses, in->response_count);
    if (!flex)
        return;
    if (v >= 16 && in->node_endpoint_count > 0) {
        kq_writer s;
        kq_write_uvarint(w, 1);
        wire_tag_open(w, &s);
        wire_write_array_len(&s, true, false, in->node_endpoint_count);
        for (int32_t i = 0; i < in->node_endpoint_count; i++) {
            const wire_fetch_node_endpoint *e = &in->node_endpoints[i];
            kq_write_i32(&s, e->node_id);
            wire_write_string(&s, true, e->host);
            kq_write_i32(&s, e->port);
            wire_write_nullable_string(&s, true, e->rack);
            kq_write_empty_tagged_fields(&s);
        }
        wire_tag_close(w, 0, &s);
    } else {
        kq_write_empty_tagged_fields(w);
    }
}
