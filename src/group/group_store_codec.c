/* The value of a KQ_CONTROL_GROUP record and the classic protocol's bodies
 * (include/kq/group_store.h, src/storage/FORMAT.md "Group membership"):
 * their rules and strict codecs, shared by the log's records and the
 * snapshot's "kq.group" / "kq.group-member". */
#include <string.h>

#include "kq/group_store.h"

enum group_state_number { STATE_EMPTY = 0, STATE_STABLE = 3 }; /* kq/group.h's */

/* A string of 1..KQ_GROUP_NAME_BYTES_MAX - 1 bytes (0 allowed when
 * may_be_empty), no NUL. */
static bool name_ok(const char *s, bool may_be_empty)
{
    if (!s)
        return false;
    size_t n = strlen(s);
    return (n > 0 || may_be_empty) && n < KQ_GROUP_NAME_BYTES_MAX;
}

const char *group_store_record_invalid(const group_store_record *r)
{
    if (!r || (r->kind != GROUP_STORE_GROUP && r->kind != GROUP_STORE_MEMBER))
        return "no record or an unknown kind";
    if (!name_ok(r->group_id, false))
        return "group id empty or too long";
    if (r->kind == GROUP_STORE_MEMBER ? !name_ok(r->member_id, false) : r->member_id != NULL)
        return "member id empty or too long (or given for a group)";
    if (r->type != GROUP_STORE_TYPE_CLASSIC && r->type != GROUP_STORE_TYPE_CONSUMER)
        return "unknown group type";
    if (r->tombstone)
        return r->body_len ? "a tombstone with a body" : NULL;
    if (r->body_len > KQ_GROUP_STORE_BODY_BYTES_MAX || (r->body_len && !r->body))
        return "body too long";
    if (r->type != GROUP_STORE_TYPE_CLASSIC)
        return NULL; /* opaque: its module's */
    kq_slice body = {r->body, (int32_t)r->body_len};
    group_store_classic_strings s;
    if (r->kind == GROUP_STORE_GROUP) {
        group_store_classic_group g;
        return group_store_classic_group_read(body, &g, &s);
    }
    group_store_classic_member m;
    return group_store_classic_member_read(body, &m, &s);
}

uint64_t group_store_record_cost(const group_store_record *r)
{
    return KQ_GROUP_STORE_RECORD_FIXED_BYTES + strlen(r->group_id) +
           (r->member_id ? strlen(r->member_id) : 0) + (r->tombstone ? 0 : r->body_len);
}

void group_store_write_value(kq_writer *w, const group_store_record *r)
{
    kq_write_i16(w, GROUP_STORE_VALUE_VERSION);
    kq_write_i8(w, (int8_t)r->kind);
    kq_write_cstring(w, r->group_id);
    if (r->kind == GROUP_STORE_MEMBER)
        kq_write_cstring(w, r->member_id);
    kq_write_i8(w, r->type);
    kq_write_i32(w, r->tombstone ? -1 : (int32_t)r->body_len);
    if (!r->tombstone && r->body_len) {
        uint8_t *p = kq_writer_reserve(w, r->body_len);
        if (p)
            memcpy(p, r->body, r->body_len);
    }
}

/* Copies a string of 0..KQ_GROUP_NAME_BYTES_MAX - 1 bytes without a NUL. */
static bool copy_name(kq_slice s, char *dst)
{
    if (s.len < 0 || s.len >= (int32_t)KQ_GROUP_NAME_BYTES_MAX || (s.len > 0 && !s.ptr))
        return false;
    if (s.len > 0 && memchr(s.ptr, '\0', (size_t)s.len))
        return false;
    if (s.len > 0)
        memcpy(dst, s.ptr, (size_t)s.len);
    dst[s.len] = '\0';
    return true;
}

const char *group_store_read_value(kq_slice v, group_store_record *out,
                                   group_store_scratch *scratch)
{
    if (v.len < 0 || (v.len > 0 && !v.ptr))
        return "null value";
    kq_reader r;
    kq_reader_init(&r, v.ptr, (size_t)v.len);
    int16_t version = kq_read_i16(&r);
    int8_t kind = kq_read_i8(&r);
    kq_slice group = kq_read_string(&r);
    kq_slice member = {NULL, -1};
    if (kind == GROUP_STORE_MEMBER)
        member = kq_read_string(&r);
    int8_t type = kq_read_i8(&r);
    int32_t body_len = kq_read_i32(&r);
    if (r.error)
        return "value truncated";
    if (version != GROUP_STORE_VALUE_VERSION)
        return "unknown value version";
    if (kind != GROUP_STORE_GROUP && kind != GROUP_STORE_MEMBER)
        return "unknown record kind";
    if (body_len < -1 || (body_len >= 0 && (size_t)body_len != kq_reader_remaining(&r)) ||
        (body_len < 0 && kq_reader_remaining(&r) != 0))
        return "body length is not the rest of the value";
    if (!copy_name(group, scratch->group_id) ||
        (kind == GROUP_STORE_MEMBER && !copy_name(member, scratch->member_id)))
        return "an id is null, too long or holds a NUL";
    *out = (group_store_record){
        .kind = (enum group_store_kind)kind, .group_id = scratch->group_id,
        .member_id = kind == GROUP_STORE_MEMBER ? scratch->member_id : NULL, .type = type,
        .tombstone = body_len < 0,
        .body = body_len > 0 ? kq_read_raw(&r, (size_t)body_len) : NULL,
        .body_len = body_len > 0 ? (size_t)body_len : 0};
    return group_store_record_invalid(out);
}

/* ---- classic bodies */

static bool bytes_ok(const uint8_t *p, size_t len, size_t max)
{
    return len <= max && (len == 0 || p);
}

bool group_store_classic_group_write(kq_writer *w, const group_store_classic_group *g)
{
    if (g->state < STATE_EMPTY || g->state > STATE_STABLE || g->generation < 0 ||
        !name_ok(g->protocol_type, true) || !name_ok(g->protocol_name, true) ||
        !name_ok(g->leader_id, true))
        return false;
    kq_write_i8(w, g->state);
    kq_write_i32(w, g->generation);
    kq_write_cstring(w, g->protocol_type);
    kq_write_cstring(w, g->protocol_name);
    kq_write_cstring(w, g->leader_id);
    kq_write_i64(w, g->state_timestamp_ms);
    return true;
}

const char *group_store_classic_group_read(kq_slice body, group_store_classic_group *out,
                                           group_store_classic_strings *s)
{
    if (body.len < 0 || (body.len > 0 && !body.ptr))
        return "no body";
    kq_reader r;
    kq_reader_init(&r, body.ptr, (size_t)body.len);
    int8_t state = kq_read_i8(&r);
    int32_t generation = kq_read_i32(&r);
    kq_slice type = kq_read_string(&r);
    kq_slice name = kq_read_string(&r);
    kq_slice leader = kq_read_string(&r);
    int64_t ts = kq_read_i64(&r);
    if (r.error || kq_reader_remaining(&r) != 0)
        return "classic group body truncated or too long";
    if (state < STATE_EMPTY || state > STATE_STABLE)
        return "classic group state out of range";
    if (generation < 0)
        return "negative generation";
    if (!copy_name(type, s->a) || !copy_name(name, s->b) || !copy_name(leader, s->c))
        return "a protocol or leader name is null, too long or holds a NUL";
    *out = (group_store_classic_group){.state = state, .generation = generation,
                                       .protocol_type = s->a, .protocol_name = s->b,
                                       .leader_id = s->c, .state_timestamp_ms = ts};
    return NULL;
}

uint64_t group_store_classic_group_body_bytes(const group_store_classic_group *g)
{
    return KQ_GROUP_STORE_GROUP_BODY_FIXED_BYTES + strlen(g->protocol_type) +
           strlen(g->protocol_name) + strlen(g->leader_id);
}

bool group_store_classic_member_write(kq_writer *w, const group_store_classic_member *m)
{
    if ((m->instance_id && !name_ok(m->instance_id, false)) || !name_ok(m->client_id, true) ||
        !name_ok(m->client_host, true) || m->session_timeout_ms < 0 ||
        m->rebalance_timeout_ms < 0 ||
        !bytes_ok(m->metadata, m->metadata_len, KQ_GROUP_STORE_METADATA_BYTES_MAX) ||
        !bytes_ok(m->assignment, m->assignment_len, KQ_GROUP_STORE_ASSIGNMENT_BYTES_MAX))
        return false;
    kq_write_cstring(w, m->instance_id);
    kq_write_cstring(w, m->client_id);
    kq_write_cstring(w, m->client_host);
    kq_write_i32(w, m->session_timeout_ms);
    kq_write_i32(w, m->rebalance_timeout_ms);
    kq_write_i32(w, (int32_t)m->metadata_len);
    uint8_t *p = m->metadata_len ? kq_writer_reserve(w, m->metadata_len) : NULL;
    if (p)
        memcpy(p, m->metadata, m->metadata_len);
    kq_write_i32(w, (int32_t)m->assignment_len);
    p = m->assignment_len ? kq_writer_reserve(w, m->assignment_len) : NULL;
    if (p)
        memcpy(p, m->assignment, m->assignment_len);
    return true;
}

/* An int32-length byte string of at most max bytes (not null). */
static bool read_bytes(kq_reader *r, size_t max, const uint8_t **p, size_t *len)
{
    int32_t n = kq_read_i32(r);
    if (r->error || n < 0 || (size_t)n > max || (size_t)n > kq_reader_remaining(r))
        return false;
    *p = n ? kq_read_raw(r, (size_t)n) : NULL;
    *len = (size_t)n;
    return n == 0 || *p;
}

const char *group_store_classic_member_read(kq_slice body, group_store_classic_member *out,
                                            group_store_classic_strings *s)
{
    if (body.len < 0 || (body.len > 0 && !body.ptr))
        return "no body";
    kq_reader r;
    kq_reader_init(&r, body.ptr, (size_t)body.len);
    kq_slice instance = kq_read_string(&r);
    kq_slice client = kq_read_string(&r);
    kq_slice host = kq_read_string(&r);
    int32_t session = kq_read_i32(&r);
    int32_t rebalance = kq_read_i32(&r);
    if (r.error)
        return "classic member body truncated";
    group_store_classic_member m = {.session_timeout_ms = session,
                                    .rebalance_timeout_ms = rebalance};
    if (!read_bytes(&r, KQ_GROUP_STORE_METADATA_BYTES_MAX, &m.metadata, &m.metadata_len) ||
        !read_bytes(&r, KQ_GROUP_STORE_ASSIGNMENT_BYTES_MAX, &m.assignment, &m.assignment_len))
        return "metadata or assignment truncated, null or too long";
    if (kq_reader_remaining(&r) != 0)
        return "bytes after the classic member body";
    if (session < 0 || rebalance < 0)
        return "a timeout out of range";
    if ((instance.len >= 0 && (instance.len == 0 || !copy_name(instance, s->a))) ||
        !copy_name(client, s->b) || !copy_name(host, s->c))
        return "an instance id, client id or host is too long or holds a NUL";
    m.instance_id = instance.len > 0 ? s->a : NULL;
    m.client_id = s->b;
    m.client_host = s->c;
    *out = m;
    return NULL;
}

uint64_t group_store_classic_member_body_bytes(const group_store_classic_member *m)
{
    return KQ_GROUP_STORE_MEMBER_BODY_FIXED_BYTES +
           (m->instance_id ? strlen(m->instance_id) : 0) + strlen(m->client_id) +
           strlen(m->client_host) + m->metadata_len + m->assignment_len;
}
