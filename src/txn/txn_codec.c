/* The transaction records' values (src/storage/FORMAT.md "Transactions"):
 * Kafka's state names, the rules of an entry and the strict codecs of the
 * "kq.txn" (also the KQ_CONTROL_TXN record's), "kq.txn-open" and
 * "kq.txn-aborted" values. */
#include <string.h>

#include "txn_internal.h"

#define TXN_VALUE_VERSION 0

static const char *const state_names[] = {
    [TXN_EMPTY] = "Empty",
    [TXN_ONGOING] = "Ongoing",
    [TXN_PREPARE_COMMIT] = "PrepareCommit",
    [TXN_PREPARE_ABORT] = "PrepareAbort",
    [TXN_COMPLETE_COMMIT] = "CompleteCommit",
    [TXN_COMPLETE_ABORT] = "CompleteAbort",
    [TXN_DEAD] = "Dead",
    [TXN_PREPARE_EPOCH_FENCE] = "PrepareEpochFence",
};
#define TXN_STATE_COUNT ((int)(sizeof(state_names) / sizeof(state_names[0])))

const char *txn_state_name(int state)
{
    return state >= 0 && state < TXN_STATE_COUNT ? state_names[state] : "Unknown";
}

int txn_state_parse(const char *name, size_t len)
{
    if (!name)
        return -1;
    for (int s = 0; s < TXN_STATE_COUNT; s++)
        if (strlen(state_names[s]) == len && memcmp(state_names[s], name, len) == 0)
            return s;
    return -1;
}

const char *txn_entry_invalid(const txn_entry *e)
{
    if (!e || !e->transactional_id)
        return "missing transactional id";
    size_t id_bytes = strlen(e->transactional_id);
    if (id_bytes == 0 || id_bytes >= KQ_TXN_ID_BYTES_MAX)
        return "transactional id empty or too long";
    if (e->producer_id < 0 || e->producer_epoch < 0)
        return "negative producer id or epoch";
    if (e->timeout_ms <= 0)
        return "timeout not positive";
    if (e->state < TXN_EMPTY || e->state >= TXN_STATE_COUNT)
        return "state out of range";
    if (e->group_count < 0 || e->group_count > KQ_TXN_GROUPS_MAX)
        return "group count out of range";
    if (e->start_timestamp_ms < -1)
        return "start timestamp below -1";
    for (int i = 0; i < e->group_count; i++) {
        if (!e->groups[i])
            return "missing group id";
        size_t n = strlen(e->groups[i]);
        if (n == 0 || n >= KQ_GROUP_NAME_BYTES_MAX)
            return "group id empty or too long";
        for (int j = 0; j < i; j++)
            if (strcmp(e->groups[j], e->groups[i]) == 0)
                return "group listed twice";
    }
    return NULL;
}

uint64_t txn_entry_bytes(const txn_entry *e)
{
    uint64_t n = KQ_TXN_ENTRY_FIXED_BYTES + strlen(e->transactional_id);
    for (int i = 0; i < e->group_count; i++)
        n += 2 + strlen(e->groups[i]);
    return n;
}

void txn_write_entry_value(kq_writer *w, const txn_entry *e)
{
    kq_write_i16(w, TXN_VALUE_VERSION);
    kq_write_cstring(w, e->transactional_id);
    kq_write_i64(w, e->producer_id);
    kq_write_i16(w, e->producer_epoch);
    kq_write_i32(w, e->timeout_ms);
    kq_write_i8(w, e->state);
    kq_write_i8(w, e->partition_added ? 1 : 0);
    kq_write_i64(w, e->start_timestamp_ms);
    kq_write_i64(w, e->update_timestamp_ms);
    kq_write_i16(w, (int16_t)e->group_count);
    for (int i = 0; i < e->group_count; i++)
        kq_write_cstring(w, e->groups[i]);
}

/* Copies a string of 1..max_bytes bytes without a NUL into dst (NULL:
 * only checks it). */
static bool copy_string(kq_slice s, char *dst, size_t max_bytes)
{
    if (s.len < 1 || (size_t)s.len > max_bytes || !s.ptr || memchr(s.ptr, '\0', (size_t)s.len))
        return false;
    if (dst) {
        memcpy(dst, s.ptr, (size_t)s.len);
        dst[s.len] = '\0';
    }
    return true;
}

static const char *close_value(const kq_reader *r)
{
    if (r->error)
        return "value truncated";
    return kq_reader_remaining(r) == 0 ? NULL : "bytes after the value";
}

/* Parses a whole entry value; the strings are copied into v when it is
 * not NULL, else only checked (out's strings NULL). */
static const char *read_entry(kq_slice value, txn_entry *out, txn_entry_value *v)
{
    if (value.len < 0 || !value.ptr)
        return "null value";
    memset(out, 0, sizeof(*out));
    kq_reader r;
    kq_reader_init(&r, value.ptr, (size_t)value.len);
    int16_t version = kq_read_i16(&r);
    kq_slice id = kq_read_string(&r);
    out->producer_id = kq_read_i64(&r);
    out->producer_epoch = kq_read_i16(&r);
    out->timeout_ms = kq_read_i32(&r);
    out->state = kq_read_i8(&r);
    int8_t added = kq_read_i8(&r);
    out->start_timestamp_ms = kq_read_i64(&r);
    out->update_timestamp_ms = kq_read_i64(&r);
    int16_t count = kq_read_i16(&r);
    if (r.error)
        return "value truncated";
    if (version != TXN_VALUE_VERSION)
        return "unknown value version";
    if (count < 0 || count > KQ_TXN_GROUPS_MAX)
        return "group count out of range";
    if (added != 0 && added != 1)
        return "partition added neither 0 nor 1";
    out->partition_added = added == 1;
    if (!copy_string(id, v ? v->transactional_id : NULL, KQ_TXN_ID_BYTES_MAX - 1))
        return "transactional id null, empty, too long or holding a NUL";
    out->transactional_id = v ? v->transactional_id : NULL;
    out->group_count = count;
    kq_slice groups[KQ_TXN_GROUPS_MAX];
    for (int i = 0; i < count; i++) {
        groups[i] = kq_read_string(&r);
        if (r.error)
            return "value truncated";
        if (!copy_string(groups[i], v ? v->groups[i] : NULL, KQ_GROUP_NAME_BYTES_MAX - 1))
            return "group id null, empty, too long or holding a NUL";
        for (int j = 0; j < i; j++)
            if (groups[j].len == groups[i].len &&
                memcmp(groups[j].ptr, groups[i].ptr, (size_t)groups[i].len) == 0)
                return "group listed twice";
        out->groups[i] = v ? v->groups[i] : NULL;
    }
    const char *why = close_value(&r);
    if (why)
        return why;
    if (!v) { /* the strings are checked above; the rest here */
        txn_entry check = *out;
        check.transactional_id = "x";
        check.group_count = 0;
        return txn_entry_invalid(&check);
    }
    return txn_entry_invalid(out);
}

const char *txn_read_entry_value(kq_slice value, txn_entry *out)
{
    return read_entry(value, out, NULL);
}

const char *txn_read_entry_value_copy(kq_slice value, txn_entry_value *out)
{
    return read_entry(value, &out->entry, out);
}

void txn_write_open_value(kq_writer *w, const txn_open *o)
{
    kq_write_i16(w, TXN_VALUE_VERSION);
    kq_write_i64(w, o->producer_id);
    kq_write_i16(w, o->producer_epoch);
    kq_write_i64(w, o->first_offset);
}

const char *txn_read_open_value(kq_slice value, txn_open *out)
{
    if (value.len < 0 || !value.ptr)
        return "null value";
    kq_reader r;
    kq_reader_init(&r, value.ptr, (size_t)value.len);
    int16_t version = kq_read_i16(&r);
    out->producer_id = kq_read_i64(&r);
    out->producer_epoch = kq_read_i16(&r);
    out->first_offset = kq_read_i64(&r);
    const char *why = close_value(&r);
    if (why)
        return why;
    if (version != TXN_VALUE_VERSION)
        return "unknown value version";
    if (out->producer_id < 0 || out->producer_epoch < 0 || out->first_offset < 0)
        return "negative producer id, epoch or first offset";
    return NULL;
}

void txn_write_aborted_value(kq_writer *w, const txn_aborted *a, int count)
{
    kq_write_i16(w, TXN_VALUE_VERSION);
    kq_write_i16(w, (int16_t)count);
    for (int i = 0; i < count; i++) {
        kq_write_i64(w, a[i].producer_id);
        kq_write_i64(w, a[i].first_offset);
        kq_write_i64(w, a[i].last_offset);
    }
}

const char *txn_read_aborted_value(kq_slice value, txn_aborted_cb cb, void *ctx)
{
    if (value.len < 0 || !value.ptr)
        return "null value";
    kq_reader r;
    kq_reader_init(&r, value.ptr, (size_t)value.len);
    int16_t version = kq_read_i16(&r);
    int16_t count = kq_read_i16(&r);
    if (r.error)
        return "value truncated";
    if (version != TXN_VALUE_VERSION)
        return "unknown value version";
    if (count < 1 || count > KQ_TXN_SNAPSHOT_ABORTED_PER_RECORD)
        return "count out of range";
    if (kq_reader_remaining(&r) != (size_t)count * 24)
        return kq_reader_remaining(&r) < (size_t)count * 24 ? "value truncated"
                                                              : "bytes after the value";
    for (int i = 0; i < count; i++) {
        txn_aborted a;
        a.producer_id = kq_read_i64(&r);
        a.first_offset = kq_read_i64(&r);
        a.last_offset = kq_read_i64(&r);
        if (a.producer_id < 0 || a.first_offset < 0 || a.first_offset >= a.last_offset)
            return "negative producer id or offsets, or first offset not below the marker";
        if (cb && cb(ctx, &a))
            return "refused by the loader";
    }
    return NULL;
}
