/* The snapshot's data records (src/storage/FORMAT.md, "Snapshot content"):
 * ASCII keys, big-endian values that open with an int16 version (0), and
 * the rules a value must meet on both sides (encode refuses what decode
 * would refuse). */
#include <string.h>

#include "snapshot_internal.h"

static const char *const key_names[] = {
    [SNAP_VOTERS] = SNAP_KEY_VOTERS,
    [SNAP_PID_MAX] = SNAP_KEY_PID_MAX,
    [SNAP_PRODUCER] = SNAP_KEY_PRODUCER,
    [SNAP_GROUP_OFFSET] = SNAP_KEY_GROUP_OFFSET,
    [SNAP_TXN_OFFSET] = SNAP_KEY_TXN_OFFSET,
    [SNAP_TXN] = SNAP_KEY_TXN,
    [SNAP_TXN_OPEN] = SNAP_KEY_TXN_OPEN,
    [SNAP_TXN_ABORTED] = SNAP_KEY_TXN_ABORTED,
    [SNAP_GROUP] = SNAP_KEY_GROUP,
    [SNAP_GROUP_MEMBER] = SNAP_KEY_GROUP_MEMBER,
    [SNAP_OFFSET_RUN] = SNAP_KEY_OFFSET_RUN,
    [SNAP_GROUP_OFFSET_END] = SNAP_KEY_GROUP_OFFSET_END,
};

enum snap_key snap_key_of(kq_slice key)
{
    for (int k = 0; k < SNAP_UNKNOWN; k++)
        if (key.len >= 0 && key.ptr && kq_slice_eq_cstr(key, key_names[k]))
            return (enum snap_key)k;
    return SNAP_UNKNOWN;
}

const char *snap_key_name(enum snap_key k)
{
    return k < SNAP_UNKNOWN ? key_names[k] : "unknown";
}

const char *snap_voters_invalid(const int32_t *ids, int count)
{
    if (count < 1 || count > RAFT_VOTERS_MAX)
        return "voter count outside 1..RAFT_VOTERS_MAX";
    for (int i = 0; i < count; i++) {
        if (ids[i] < 0)
            return "negative voter id";
        for (int j = 0; j < i; j++)
            if (ids[j] == ids[i])
                return "voter listed twice";
    }
    return NULL;
}

const char *snap_pid_max_invalid(const kq_snapshot_pid_max *p, int count)
{
    if (count < 0 || count > KQ_SNAPSHOT_PID_NODES_MAX)
        return "producer-id-max count outside 0..KQ_SNAPSHOT_PID_NODES_MAX";
    for (int i = 0; i < count; i++) {
        if (p[i].node_prefix < 0 || p[i].max_id < 0)
            return "negative node prefix or producer id";
        for (int j = 0; j < i; j++)
            if (p[j].node_prefix == p[i].node_prefix)
                return "node prefix listed twice";
    }
    return NULL;
}

const char *snap_producer_invalid(const snap_producer *p, int64_t end_offset)
{
    if (p->pid < 0)
        return "negative producer id";
    if (p->count < 1 || p->count > PRODUCER_STATE_BATCHES)
        return "cached batch count outside 1..PRODUCER_STATE_BATCHES";
    for (int i = 0; i < p->count; i++) {
        const producer_batch_view *b = &p->batches[i];
        if (b->first_seq < 0 || b->last_seq < 0)
            return "negative sequence";
        if (b->first_offset < 0 || b->first_offset > b->last_offset)
            return "cached batch offsets reversed or negative";
        if (b->last_offset >= end_offset)
            return "cached batch at or above the snapshot's end offset";
    }
    return NULL;
}

void snap_write_voters(kq_writer *w, const kq_snapshot_meta *m)
{
    kq_write_i16(w, SNAP_VALUE_VERSION);
    kq_write_i32(w, m->voter_count);
    for (int i = 0; i < m->voter_count; i++)
        kq_write_i32(w, m->voter_ids[i]);
}

void snap_write_pid_max(kq_writer *w, const kq_snapshot_meta *m)
{
    kq_write_i16(w, SNAP_VALUE_VERSION);
    kq_write_i32(w, m->pid_max_count);
    for (int i = 0; i < m->pid_max_count; i++) {
        kq_write_i32(w, m->pid_max[i].node_prefix);
        kq_write_i64(w, m->pid_max[i].max_id);
    }
}

void snap_write_producer(kq_writer *w, const snap_producer *p)
{
    kq_write_i16(w, SNAP_VALUE_VERSION);
    kq_write_i64(w, p->pid);
    kq_write_i16(w, p->epoch);
    kq_write_i32(w, p->count);
    for (int i = 0; i < p->count; i++) {
        kq_write_i32(w, p->batches[i].first_seq);
        kq_write_i32(w, p->batches[i].last_seq);
        kq_write_i64(w, p->batches[i].first_offset);
        kq_write_i64(w, p->batches[i].last_offset);
    }
}

/* Opens a value and reads its version and element count (bounded by max). */
static const char *open_value(kq_reader *r, kq_slice v, int32_t max, int32_t *count)
{
    if (v.len < 0 || !v.ptr)
        return "null value";
    kq_reader_init(r, v.ptr, (size_t)v.len);
    int16_t version = kq_read_i16(r);
    if (r->error)
        return "value truncated";
    if (version != SNAP_VALUE_VERSION)
        return "unknown value version";
    if (count) {
        *count = kq_read_i32(r);
        if (r->error)
            return "value truncated";
        if (*count < 0 || *count > max)
            return "count out of range";
    }
    return NULL;
}

static const char *close_value(const kq_reader *r)
{
    if (r->error)
        return "value truncated";
    return kq_reader_remaining(r) == 0 ? NULL : "bytes after the value";
}

const char *snap_read_voters(kq_slice v, kq_snapshot_meta *m)
{
    kq_reader r;
    int32_t n = 0;
    const char *why = open_value(&r, v, RAFT_VOTERS_MAX, &n);
    if (why)
        return why;
    for (int32_t i = 0; i < n; i++)
        m->voter_ids[i] = kq_read_i32(&r);
    m->voter_count = n;
    why = close_value(&r);
    return why ? why : snap_voters_invalid(m->voter_ids, m->voter_count);
}

const char *snap_read_pid_max(kq_slice v, kq_snapshot_meta *m)
{
    kq_reader r;
    int32_t n = 0;
    const char *why = open_value(&r, v, KQ_SNAPSHOT_PID_NODES_MAX, &n);
    if (why)
        return why;
    for (int32_t i = 0; i < n; i++) {
        m->pid_max[i].node_prefix = kq_read_i32(&r);
        m->pid_max[i].max_id = kq_read_i64(&r);
    }
    m->pid_max_count = n;
    why = close_value(&r);
    return why ? why : snap_pid_max_invalid(m->pid_max, m->pid_max_count);
}

const char *snap_read_producer(kq_slice v, int64_t end_offset, snap_producer *p)
{
    kq_reader r;
    const char *why = open_value(&r, v, 0, NULL);
    if (why)
        return why;
    p->pid = kq_read_i64(&r);
    p->epoch = kq_read_i16(&r);
    int32_t n = kq_read_i32(&r);
    if (r.error)
        return "value truncated";
    if (n < 1 || n > PRODUCER_STATE_BATCHES)
        return "cached batch count outside 1..PRODUCER_STATE_BATCHES";
    p->count = n;
    for (int32_t i = 0; i < n; i++) {
        p->batches[i].first_seq = kq_read_i32(&r);
        p->batches[i].last_seq = kq_read_i32(&r);
        p->batches[i].first_offset = kq_read_i64(&r);
        p->batches[i].last_offset = kq_read_i64(&r);
    }
    why = close_value(&r);
    return why ? why : snap_producer_invalid(p, end_offset);
}
