/* DescribeCluster request/response codec, versions 0-1 (always flexible). */
#include <string.h>

#include "kq/wire_describe_cluster.h"
#include "wire_codec.h"

static bool version_ok(int16_t v)
{
    return v >= WIRE_DESCRIBE_CLUSTER_MIN_VERSION && v <= WIRE_DESCRIBE_CLUSTER_MAX_VERSION;
}

int wire_describe_cluster_request_decode(kq_reader *r, int16_t v, kq_arena *arena,
                                         wire_describe_cluster_request *out)
{
    (void)arena;
    memset(out, 0, sizeof *out);
    if (!version_ok(v)) {
        kq_reader_fail(r);
        return -1;
    }
    out->include_cluster_authorized_operations = kq_read_bool(r);
    out->endpoint_type = v >= 1 ? kq_read_i8(r) : 1;
    kq_skip_tagged_fields(r);
    return r->error ? -1 : 0;
}

void wire_describe_cluster_request_encode(kq_writer *w, int16_t v,
                                          const wire_describe_cluster_request *in)
{
    if (!version_ok(v)) {
        w->error = true;
        return;
    }
    kq_write_bool(w, in->include_cluster_authorized_operations);
    if (v >= 1)
        kq_write_i8(w, in->endpoint_type);
    kq_write_empty_tagged_fields(w);
}

int wire_describe_cluster_response_decode(kq_reader *r, int16_t v, kq_arena *arena,
                                          wire_describe_cluster_response *out)
{
    memset(out, 0, sizeof *out);
    if (!version_ok(v)) {
        kq_reader_fail(r);
        return -1;
    }
    out->throttle_time_ms = kq_read_i32(r);
    out->error_code = kq_read_i16(r);
    out->error_message = wire_read_nullable_string(r, true);
    out->endpoint_type = v >= 1 ? kq_read_i8(r) : 1;
    out->cluster_id = wire_read_string(r, true);
    out->controller_id = kq_read_i32(r);
    int32_t n = wire_read_array_len(r, true, false);
    out->brokers = wire_alloc_array(r, arena, n, sizeof *out->brokers, 1);
    out->broker_count = r->error ? 0 : n;
    for (int32_t i = 0; i < n && !r->error; i++) {
        wire_describe_cluster_broker *b = &out->brokers[i];
        b->broker_id = kq_read_i32(r);
        b->host = wire_read_string(r, true);
        b->port = kq_read_i32(r);
        b->rack = wire_read_nullable_string(r, true);
        kq_skip_tagged_fields(r);
    }
    out->cluster_authorized_operations = kq_read_i32(r);
    kq_skip_tagged_fields(r);
    return r->error ? -1 : 0;
}

void wire_describe_cluster_response_encode(kq_writer *w, int16_t v,
                                           const wire_describe_cluster_response *in)
{
    if (!version_ok(v)) {
        w->error = true;
        return;
    }
    kq_write_i32(w, in->throttle_time_ms);
    kq_write_i16(w, in->error_code);
    wire_write_nullable_string(w, true, in->error_message);
    if (v >= 1)
        kq_write_i8(w, in->endpoint_type);
    wire_write_string(w, true, in->cluster_id);
    kq_write_i32(w, in->controller_id);
    wire_write_array_len(w, true, false, in->broker_count);
    for (int32_t i = 0; i < in->broker_count; i++) {
        const wire_describe_cluster_broker *b = &in->brokers[i];
        kq_write_i32(w, b->broker_id);
        wire_write_string(w, true, b->host);
        kq_write_i32(w, b->port);
        wire_write_nullable_string(w, true, b->rack);
        kq_write_empty_tagged_fields(w);
    }
    kq_write_i32(w, in->cluster_authorized_operations);
    kq_write_empty_tagged_fields(w);
}
