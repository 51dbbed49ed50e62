/* Endpoint arrays shared by the KRaft API codecs. */
#include "raft_common.h"
#include "wire_codec.h"

int32_t wire_raft_node_endpoints_read(kq_reader *r, kq_arena *arena,
                                      wire_raft_node_endpoint **out)
{
    int32_t n = wire_read_array_len(r, true, false);
    wire_raft_node_endpoint *v = wire_alloc_array(r, arena, n, sizeof *v, 1);
    for (int32_t i = 0; i < n && !r->error; i++) {
        v[i].node_id = kq_read_i32(r);
        v[i].host = wire_read_string(r, true);
        v[i].port = kq_read_u16(r);
        kq_skip_tagged_fields(r);
    }
    *out = r->error ? NULL : v;
    return r->error ? 0 : n;
}

void wire_raft_node_endpoints_write(kq_writer *w, const wire_raft_node_endpoint *v, int32_t n)
{
    wire_write_array_len(w, true, false, n);
    for (int32_t i = 0; i < n; i++) {
        kq_write_i32(w, v[i].node_id);
        wire_write_string(w, true, v[i].host);
        kq_write_u16(w, v[i].port);
        kq_write_empty_tagged_fields(w);
    }
}

int32_t wire_raft_listeners_read(kq_reader *r, kq_arena *arena, wire_raft_listener **out)
{
    int32_t n = wire_read_array_len(r, true, false);
    wire_raft_listener *v = wire_alloc_array(r, arena, n, sizeof *v, 1);
    for (int32_t i = 0; i < n && !r->error; i++) {
        v[i].name = wire_read_string(r, true);
        v[i].host = wire_read_string(r, true);
        v[i].port = kq_read_u16(r);
        kq_skip_tagged_fields(r);
    }
    *out = r->error ? NULL : v;
    return r->error ? 0 : n;
}

void wire_raft_listeners_write(kq_writer *w, const wire_raft_listener *v, int32_t n)
{
    wire_write_array_len(w, true, false, n);
    for (int32_t i = 0; i < n; i++) {
        wire_write_string(w, true, v[i].name);
        wire_write_string(w, true, v[i].host);
        kq_write_u16(w, v[i].port);
        kq_write_empty_tagged_fields(w);
    }
}

void wire_raft_node_endpoints_tag_read(kq_reader *r, kq_arena *arena,
                                       wire_raft_node_endpoint **out, int32_t *n)
{
    *out = NULL;
    *n = 0;
    uint32_t tags = wire_tags_begin(r);
    for (uint32_t i = 0; i < tags; i++) {
        uint32_t tag;
        kq_reader sub;
        if (!wire_tag_next(r, &tag, &sub))
            break;
        if (tag == 0)
            *n = wire_raft_node_endpoints_read(&sub, arena, out);
        wire_tag_end(r, &sub);
    }
}

void wire_raft_node_endpoints_tag_write(kq_writer *w, const wire_raft_node_endpoint *v,
                                        int32_t n)
{
    if (n <= 0) {
        kq_write_empty_tagged_fields(w);
        return;
    }
    kq_writer s;
    kq_write_uvarint(w, 1);
    wire_tag_open(w, &s);
    wire_raft_node_endpoints_write(&s, v, n);
    wire_tag_close(w, 0, &s);
}

void wire_raft_leader_result_read(kq_reader *r, int32_t *partition_index, int16_t *error_code,
                                  int32_t *leader_id, int32_t *leader_epoch)
{
    *partition_index = kq_read_i32(r);
    *error_code = kq_read_i16(r);
    *leader_id = kq_read_i32(r);
    *leader_epoch = kq_read_i32(r);
}

void wire_raft_leader_result_write(kq_writer *w, int32_t partition_index, int16_t error_code,
                                   int32_t leader_id, int32_t leader_epoch)
{
    kq_write_i32(w, partition_index);
    kq_write_i16(w, error_code);
    kq_write_i32(w, leader_id);
    kq_write_i32(w, leader_epoch);
}

