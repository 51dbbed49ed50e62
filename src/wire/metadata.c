/* Metadata request/response bodies. */
#include <string.h>

#include "kq/wire_metadata.h"
#include "wire_codec.h"

#define MD_MAX_VERSION 12
#define MD_AUTH_OPS_DEFAULT INT32_MIN

bool wire_metadata_request_all_topics(const wire_metadata_request *req, int16_t version)
{
    if (req->topic_count < 0)
        return true;
    return version == 0 && req->topic_count == 0;
}

int wire_metadata_request_decode(kq_reader *r, int16_t version, kq_arena *arena,
                                 wire_metadata_request *out)
{
    memset(out, 0, sizeof *out);
    out->allow_auto_topic_creation = true;
    if (version < 0 || version > MD_MAX_VERSION)
        return -1;
    bool flex = version >= 9;
    int32_t n = wire_read_array_len(r, flex, version >= 1);
    wire_metadata_request_topic *topics = wire_alloc_array(r, arena, n, sizeof *topics, 1);
    for (int32_t i = 0; i < n && !r->error; i++) {
        if (version >= 10)
            topics[i].topic_id = kq_read_uuid(r);
        topics[i].name = version >= 10 ? wire_read_nullable_string(r, flex)
                                       : wire_read_string(r, flex);
        wire_read_tags_flex(r, flex);
    }
    out->topics = topics;
    out->topic_count = r->error ? 0 : n;
    if (version >= 4)
        out->allow_auto_topic_creation = kq_read_bool(r);
    if (version >= 8 && version <= 10)
        out->include_cluster_authorized_operations = kq_read_bool(r);
    if (version >= 8)
        out->include_topic_authorized_operations = kq_read_bool(r);
    wire_read_tags_flex(r, flex);
    return r->error ? -1 : 0;
}

void wire_metadata_request_encode(kq_writer *w, int16_t version, const wire_metadata_request *in)
{
    bool flex = version >= 9;
    int32_t n = in->topics || in->topic_count < 0 ? in->topic_count : 0;
    wire_write_array_len(w, flex, version >= 1, n);
    for (int32_t i = 0; i < n; i++) {
        const wire_metadata_request_topic *t = &in->topics[i];
        if (version >= 10) {
            kq_write_uuid(w, t->topic_id);
            wire_write_nullable_string(w, flex, t->name);
        } else {
            wire_write_string(w, flex, t->name);
        }
        wire_write_tags_flex(w, flex);
    }
    if (version >= 4)
        kq_write_bool(w, in->allow_auto_topic_creation);
    if (version >= 8 && version <= 10)
        kq_write_bool(w, in->include_cluster_authorized_operations);
    if (version >= 8)
        kq_write_bool(w, in->include_topic_authorized_operations);
    wire_write_tags_flex(w, flex);
}

static void read_partition(kq_reader *r, int16_t version, bool flex, kq_arena *arena,
                           wire_metadata_partition *p)
{
    p->error_code = kq_read_i16(r);
    p->partition_index = kq_read_i32(r);
    p->leader_id = kq_read_i32(r);
    p->leader_epoch = version >= 7 ? kq_read_i32(r) : -1;
    p->replica_nodes = wire_read_i32_array(r, arena, flex, &p->replica_node_count);
    p->isr_nodes = wire_read_i32_array(r, arena, flex, &p->isr_node_count);
    if (version >= 5)
        p->offline_replicas = wire_read_i32_array(r, arena, flex, &p->offline_replica_count);
    wire_read_tags_flex(r, flex);
}

static void read_topic(kq_reader *r, int16_t version, bool flex, kq_arena *arena,
                       wire_metadata_topic *t)
{
    t->error_code = kq_read_i16(r);
    t->name = version >= 12 ? wire_read_nullable_string(r, flex) : wire_read_string(r, flex);
    if (version >= 10)
        t->topic_id = kq_read_uuid(r);
    if (version >= 1)
        t->is_internal = kq_read_bool(r);
    int32_t n = wire_read_array_len(r, flex, false);
    /* error, index, leader, two arrays: at least 12 bytes */
    wire_metadata_partition *parts = wire_alloc_array(r, arena, n, sizeof *parts, 12);
    for (int32_t i = 0; i < n && !r->error; i++)
        read_partition(r, version, flex, arena, &parts[i]);
    t->partitions = parts;
    t->partition_count = r->error ? 0 : n;
    t->topic_authorized_operations = version >= 8 ? kq_read_i32(r) : MD_AUTH_OPS_DEFAULT;
    wire_read_tags_flex(r, flex);
}

int wire_metadata_response_decode(kq_reader *r, int16_t version, kq_arena *arena,
                                  wire_metadata_response *out)
{
    memset(out, 0, sizeof *out);
    out->cluster_id = WIRE_NULL_SLICE;
    out->controller_id = -1;
    out->cluster_authorized_operations = MD_AUTH_OPS_DEFAULT;
    if (version < 0 || version > MD_MAX_VERSION)
        return -1;
    bool flex = version >= 9;
    if (version >= 3)
        out->throttle_time_ms = kq_read_i32(r);
    int32_t nb = wire_read_array_len(r, flex, false);
    wire_metadata_broker *brokers = wire_alloc_array(r, arena, nb, sizeof *brokers, 9);
    for (int32_t i = 0; i < nb && !r->error; i++) {
        brokers[i].node_id = kq_read_i32(r);
        brokers[i].host = wire_read_string(r, flex);
        brokers[i].port = kq_read_i32(r);
        brokers[i].rack = version >= 1 ? wire_read_nullable_string(r, flex) : WIRE_NULL_SLICE;
        wire_read_tags_flex(r, flex);
    }
    out->brokers = brokers;
    out->broker_count = r->error ? 0 : nb;
    if (version >= 2)
        out->cluster_id = wire_read_nullable_string(r, flex);
    if (version >= 1)
        out->controller_id = kq_read_i32(r);
    int32_t nt = wire_read_array_len(r, flex, false);
    wire_metadata_topic *topics = wire_alloc_array(r, arena, nt, sizeof *topics, 4);
    for (int32_t i = 0; i < nt && !r->error; i++)
        read_topic(r, version, flex, arena, &topics[i]);
    out->topics = topics;
    out->topic_count = r->error ? 0 : nt;
    if (version >= 8 && version <= 10)
        out->cluster_authorized_operations = kq_read_i32(r);
    wire_read_tags_flex(r, flex);
    return r->error ? -1 : 0;
}

static void write_partition(kq_writer *w, int16_t version, bool flex,
                            const wire_metadata_partition *p)
{
    kq_write_i16(w, p->error_code);
    kq_write_i32(w, p->partition_index);
    kq_write_i32(w, p->leader_id);
    if (version >= 7)
        kq_write_i32(w, p->leader_epoch);
    wire_write_i32_array(w, flex, p->replica_nodes, p->replica_node_count);
    wire_write_i32_array(w, flex, p->isr_nodes, p->isr_node_count);
    if (version >= 5)
        wire_write_i32_array(w, flex, p->offline_replicas, p->offline_replica_count);
    wire_write_tags_flex(w, flex);
}

void wire_metadata_response_encode(kq_writer *w, int16_t version,
                                   const wire_metadata_response *in)
{
    bool flex = version >= 9;
    if (version >= 3)
        kq_write_i32(w, in->throttle_time_ms);
    int32_t nb = in->brokers ? in->broker_count : 0;
    wire_write_array_len(w, flex, false, nb);
    for (int32_t i = 0; i < nb; i++) {
        const wire_metadata_broker *b = &in->brokers[i];
        kq_write_i32(w, b->node_id);
        wire_write_string(w, flex, b->host);
        kq_write_i32(w, b->port);
        if (version >= 1)
            wire_write_nullable_string(w, flex, b->rack);
        wire_write_tags_flex(w, flex);
    }
    if (version >= 2)
        wire_write_nullable_string(w, flex, in->cluster_id);
    if (version >= 1)
        kq_write_i32(w, in->controller_id);
    int32_t nt = in->topics ? in->topic_count : 0;
    wire_write_array_len(w, flex, false, nt);
    for (int32_t i = 0; i < nt; i++) {
        const wire_metadata_topic *t = &in->topics[i];
        kq_write_i16(w, t->error_code);
        if (version >= 12)
            wire_write_nullable_string(w, flex, t->name);
        else
            wire_write_string(w, flex, t->name);
        if (version >= 10)
            kq_write_uuid(w, t->topic_id);
        if (version >= 1)
            kq_write_bool(w, t->is_internal);
        int32_t np = t->partitions ? t->partition_count : 0;
        wire_write_array_len(w, flex, false, np);
        for (int32_t k = 0; k < np; k++)
            write_partition(w, version, flex, &t->partitions[k]);
        if (version >= 8)
            kq_write_i32(w, t->topic_authorized_operations);
        wire_write_tags_flex(w, flex);
    }
    if (version >= 8 && version <= 10)
        kq_write_i32(w, in->cluster_authorized_operations);
    wire_write_tags_flex(w, flex);
}
