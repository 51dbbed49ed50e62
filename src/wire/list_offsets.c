/* ListOffsets request/response bodies. */
#include <string.h>

#include "kq/wire_list_offsets.h"
#include "wire_codec.h"

#define LO_MAX_VERSION 10

int wire_list_offsets_request_decode(kq_reader *r, int16_t version, kq_arena *arena,
                                     wire_list_offsets_request *out)
{
    memset(out, 0, sizeof *out);
    if (version < 0 || version > LO_MAX_VERSION)
        return -1;
    bool flex = version >= 6;
    out->replica_id = kq_read_i32(r);
    if (version >= 2)
        out->isolation_level = kq_read_i8(r);
    int32_t nt = wire_read_array_len(r, flex, false);
    wire_list_offsets_topic *topics = wire_alloc_array(r, arena, nt, sizeof *topics, 2);
    for (int32_t i = 0; i < nt && !r->error; i++) {
        topics[i].name = wire_read_string(r, flex);
        int32_t np = wire_read_array_len(r, flex, false);
        wire_list_offsets_partition *parts = wire_alloc_array(r, arena, np, sizeof *parts, 12);
        for (int32_t k = 0; k < np && !r->error; k++) {
            wire_list_offsets_partition *p = &parts[k];
            p->partition_index = kq_read_i32(r);
            p->current_leader_epoch = version >= 4 ? kq_read_i32(r) : -1;
            p->timestamp = kq_read_i64(r);
            p->max_num_offsets = version == 0 ? kq_read_i32(r) : 1;
            wire_read_tags_flex(r, flex);
        }
        topics[i].partitions = parts;
        topics[i].partition_count = r->error ? 0 : np;
        wire_read_tags_flex(r, flex);
    }
    out->topics = topics;
    out->topic_count = r->error ? 0 : nt;
    if (version >= 10)
        out->timeout_ms = kq_read_i32(r);
    wire_read_tags_flex(r, flex);
    return r->error ? -1 : 0;
}

void wire_list_offsets_request_encode(kq_writer *w, int16_t version,
                                      const wire_list_offsets_request *in)
{
    bool flex = version >= 6;
    kq_write_i32(w, in->replica_id);
    if (version >= 2)
        kq_write_i8(w, in->isolation_level);
    int32_t nt = in->topics ? in->topic_count : 0;
    wire_write_array_len(w, flex, false, nt);
    for (int32_t i = 0; i < nt; i++) {
        const wire_list_offsets_topic *t = &in->topics[i];
        wire_write_string(w, flex, t->name);
        int32_t np = t->partitions ? t->partition_count : 0;
        wire_write_array_len(w, flex, false, np);
        for (int32_t k = 0; k < np; k++) {
            const wire_list_offsets_partition *p = &t->partitions[k];
            kq_write_i32(w, p->partition_index);
            if (version >= 4)
                kq_write_i32(w, p->current_leader_epoch);
            kq_write_i64(w, p->timestamp);
            if (version == 0)
                kq_write_i32(w, p->max_num_offsets);
            wire_write_tags_flex(w, flex);
        }
        wire_write_tags_flex(w, flex);
    }
    if (version >= 10)
        kq_write_i32(w, in->timeout_ms);
    wire_write_tags_flex(w, flex);
}

int wire_list_offsets_response_decode(kq_reader *r, int16_t version, kq_arena *arena,
                                      wire_list_offsets_response *out)
{
    memset(out, 0, sizeof *out);
    if (version < 0 || version > LO_MAX_VERSION)
        return -1;
    bool flex = version >= 6;
    if (version >= 2)
        out->throttle_time_ms = kq_read_i32(r);
    int32_t nt = wire_read_array_len(r, flex, false);
    wire_list_offsets_topic_response *topics = wire_alloc_array(r, arena, nt, sizeof *topics, 2);
    for (int32_t i = 0; i < nt && !r->error; i++) {
        topics[i].name = wire_read_string(r, flex);
        int32_t np = wire_read_array_len(r, flex, false);
        wire_list_offsets_partition_response *parts =
            wire_alloc_array(r, arena, np, sizeof *parts, 7);
        for (int32_t k = 0; k < np && !r->error; k++) {
            wire_list_offsets_partition_response *p = &parts[k];
            p->partition_index = kq_read_i32(r);
            p->error_code = kq_read_i16(r);
            p->timestamp = -1;
            p->offset = -1;
            p->leader_epoch = -1;
            if (version == 0) {
                int32_t no = wire_read_array_len(r, false, false);
                int64_t *offs = wire_alloc_array(r, arena, no, sizeof *offs, 8);
                for (int32_t j = 0; j < no && !r->error; j++)
                    offs[j] = kq_read_i64(r);
                p->old_style_offsets = offs;
                p->old_style_offset_count = r->error ? 0 : no;
            } else {
                p->timestamp = kq_read_i64(r);
                p->offset = kq_read_i64(r);
            }
            if (version >= 4)
                p->leader_epoch = kq_read_i32(r);
            wire_read_tags_flex(r, flex);
        }
        topics[i].partitions = parts;
        topics[i].partition_count = r->error ? 0 : np;
        wire_read_tags_flex(r, flex);
    }
    out->topics = topics;
    out->topic_count = r->error ? 0 : nt;
    wire_read_tags_flex(r, flex);
    return r->error ? -1 : 0;
}

void wire_list_offsets_response_encode(kq_writer *w, int16_t version,
                                       const wire_list_offsets_response *in)
{
    bool flex = version >= 6;
    if (version >= 2)
        kq_write_i32(w, in->throttle_time_ms);
    int32_t nt = in->topics ? in->topic_count : 0;
    wire_write_array_len(w, flex, false, nt);
    for (int32_t i = 0; i < nt; i++) {
        const wire_list_offsets_topic_response *t = &in->topics[i];
        wire_write_string(w, flex, t->name);
        int32_t np = t->partitions ? t->partition_count : 0;
        wire_write_array_len(w, flex, false, np);
        for (int32_t k = 0; k < np; k++) {
            const wire_list_offsets_partition_response *p = &t->partitions[k];
            kq_write_i32(w, p->partition_index);
            kq_write_i16(w, p->error_code);
            if (version == 0) {
                int32_t no = p->old_style_offsets ? p->old_style_offset_count : 0;
                wire_write_array_len(w, false, false, no);
                for (int32_t j = 0; j < no; j++)
                    kq_write_i64(w, p->old_style_offsets[j]);
            } else {
                kq_write_i64(w, p->timestamp);
                kq_write_i64(w, p->offset);
            }
            if (version >= 4)
                kq_write_i32(w, p->leader_epoch);
            wire_write_tags_flex(w, flex);
        }
        wire_write_tags_flex(w, flex);
    }
    wire_write_tags_flex(w, flex);
}
