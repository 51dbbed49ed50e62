/* kq_snapshot_decode: checks every batch of a snapshot file and loads its
 * records (the rules are listed in include/kq/snapshot_state.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kq/assert.h"
#include "kq/group_offset_codec.h"
#include "snapshot_internal.h"

typedef struct decoder {
    const uint8_t *data;
    size_t len;
    raft_snapshot_id expect;
    producer_state *ps;
    kq_snapshot_meta *meta;
    int64_t next_offset;
    int voters_seen;
    int pid_max_seen;
    int16_t kraft_level; /* the header batch's KRaftVersion, -1: none */
    uint32_t producers;
    int64_t *pids; /* ps NULL: every producer id, checked for repeats at the end */
    group_offsets *offsets; /* the caller's, or a temporary one to find repeats */
    bool own_offsets;
    bool offset_run_seen;   /* issue 24: kq.offset-run, before any group offset */
    bool group_offset_seen;
    txn_table *txns;       /* the caller's, or a temporary one to find repeats */
    bool own_txns;
    group_store *groups;   /* the caller's, or a temporary one to find repeats */
    bool own_groups;
    int64_t aborted_last;  /* the last aborted transaction's marker, -1 */
    bool out_of_memory;    /* set by a callback that cannot say so */
    raft_voter_entry *voters; /* the caller's, or NULL: parsed into a temporary */
    bool first_only;          /* kq_snapshot_read_voters: the header batch alone */
    char *err;
    size_t errlen;
} decoder;

static int fail(decoder *d, size_t pos, const char *fmt, ...)
{
    if (d->err && d->errlen > 0) {
        int n = snprintf(d->err, d->errlen, "snapshot byte %zu: ", pos);
        if (n >= 0 && (size_t)n < d->errlen) {
            va_list ap;
            va_start(ap, fmt);
            vsnprintf(d->err + n, d->errlen - (size_t)n, fmt, ap);
            va_end(ap);
        }
    }
    return -EBADMSG;
}

static int load_producer(decoder *d, size_t pos, kq_slice value)
{
    snap_producer p;
    const char *why = snap_read_producer(value, d->expect.end_offset, &p);
    if (why)
        return fail(d, pos, "%s record: %s", SNAP_KEY_PRODUCER, why);
    if (d->ps) {
        if (d->producers >= producer_state_capacity(d->ps))
            return fail(d, pos, "more producers than the table holds (%" PRIu32 ")",
                        producer_state_capacity(d->ps));
        if (producer_state_restore(d->ps, p.pid, p.epoch, p.batches, p.count) != 0)
            return fail(d, pos, "producer id %" PRId64 " listed twice", p.pid);
    } else {
        /* At most one per 16 bytes of file: the array is bounded by len. */
        if (!d->pids) {
            d->pids = malloc(sizeof(*d->pids) * (d->len / 16 + 1));
            if (!d->pids)
                return -ENOMEM;
        }
        d->pids[d->producers] = p.pid;
    }
    d->producers++;
    return 0;
}

static int offsets_of(decoder *d)
{
    if (!d->offsets) {
        d->offsets = group_offsets_create();
        if (!d->offsets)
            return -ENOMEM;
        group_offsets_clear(d->offsets, d->expect.end_offset);
        d->own_offsets = true;
    }
    return 0;
}

/* "kq.group-offset", or (issue 24) "kq.group-offset-end": the same value
 * followed by the answer fixed at its run's end (int64). */
static int load_group_offset(decoder *d, size_t pos, kq_slice value, bool with_end)
{
    const char *key = with_end ? SNAP_KEY_GROUP_OFFSET_END : SNAP_KEY_GROUP_OFFSET;
    int64_t answer = -1;
    if (with_end) {
        if (value.len < 8 || !value.ptr)
            return fail(d, pos, "%s record: value truncated", key);
        kq_reader r;
        kq_reader_init(&r, value.ptr + value.len - 8, 8);
        answer = kq_read_i64(&r);
        value.len -= 8;
    }
    group_offset_value v;
    const char *why = group_offset_read_value(value, &v);
    if (why)
        return fail(d, pos, "%s record: %s", key, why);
    int rc = offsets_of(d);
    if (rc)
        return rc;
    d->group_offset_seen = true;
    const group_offset *e = &v.entry;
    if (group_offsets_get(d->offsets, e->group_id, e->topic, e->partition, NULL))
        return fail(d, pos, "%s record: group, topic and partition listed twice", key);
    if (with_end && (answer <= e->offset || answer > d->expect.end_offset))
        return fail(d, pos, "%s record: answer %" PRId64 " not above the offset or beyond the "
                    "end offset", key, answer);
    return group_offsets_restore_answer(d->offsets, e, answer) ? 0 : -ENOMEM;
}

/* "kq.offset-run" (issue 24): once, before the group offsets. */
static int load_offset_run(decoder *d, size_t pos, kq_slice value)
{
    if (d->offset_run_seen || d->group_offset_seen)
        return fail(d, pos, "%s record: a second one, or after the group offsets",
                    SNAP_KEY_OFFSET_RUN);
    d->offset_run_seen = true;
    kq_reader r;
    kq_reader_init(&r, value.ptr, value.len > 0 && value.ptr ? (size_t)value.len : 0);
    int16_t version = kq_read_i16(&r);
    int64_t start = kq_read_i64(&r);
    if (r.error || kq_reader_remaining(&r) != 0 || version != SNAP_VALUE_VERSION)
        return fail(d, pos, "%s record: not version 0 and 10 bytes", SNAP_KEY_OFFSET_RUN);
    if (start < 0 || start > d->expect.end_offset)
        return fail(d, pos, "%s record: run start %" PRId64 " outside 0..the end offset",
                    SNAP_KEY_OFFSET_RUN, start);
    int rc = offsets_of(d);
    if (rc)
        return rc;
    bool ok = group_offsets_restore_run_start(d->offsets, start);
    KQ_ASSERT(ok); /* checked above, and no entry yet */
    return 0;
}

/* A stashed transactional commit (issue 23): restored in file order (no
 * rule across records: validating alone needs no table). */
static int load_txn_offset(decoder *d, size_t pos, kq_slice value)
{
    group_offset_value v;
    int64_t producer_id = -1;
    const char *why = group_offset_read_txn_value(value, &producer_id, &v);
    if (why)
        return fail(d, pos, "%s record: %s", SNAP_KEY_TXN_OFFSET, why);
    if (!d->offsets)
        return 0;
    return group_offsets_restore_txn(d->offsets, producer_id, &v.entry) ? 0 : -ENOMEM;
}

static int txn_table_of(decoder *d)
{
    if (!d->txns) {
        d->txns = txn_table_create();
        if (!d->txns)
            return -ENOMEM;
        d->own_txns = true;
    }
    return 0;
}

static int load_txn(decoder *d, size_t pos, kq_slice value)
{
    txn_entry_value v;
    const char *why = txn_read_entry_value_copy(value, &v);
    if (!why && v.entry.state == TXN_DEAD)
        why = "state Dead";
    if (why)
        return fail(d, pos, "%s record: %s", SNAP_KEY_TXN, why);
    if (txn_table_of(d))
        return -ENOMEM;
    if (txn_table_get(d->txns, v.entry.transactional_id, NULL))
        return fail(d, pos, "%s record: transactional id listed twice", SNAP_KEY_TXN);
    return txn_table_restore_entry(d->txns, &v.entry) ? 0 : -ENOMEM;
}

static int load_txn_open(decoder *d, size_t pos, kq_slice value)
{
    txn_open o;
    const char *why = txn_read_open_value(value, &o);
    if (!why && o.first_offset >= d->expect.end_offset)
        why = "first offset at or above the snapshot's end offset";
    if (why)
        return fail(d, pos, "%s record: %s", SNAP_KEY_TXN_OPEN, why);
    if (txn_table_of(d))
        return -ENOMEM;
    if (txn_table_open_of(d->txns, o.producer_id, NULL, NULL))
        return fail(d, pos, "%s record: producer id listed twice", SNAP_KEY_TXN_OPEN);
    return txn_table_restore_open(d->txns, &o, d->expect.end_offset) ? 0 : -ENOMEM;
}

/* One aborted transaction of a "kq.txn-aborted" record: non-zero refuses. */
static int load_one_aborted(void *ctx, const txn_aborted *a)
{
    decoder *d = ctx;
    if (a->last_offset >= d->expect.end_offset || a->last_offset <= d->aborted_last)
        return 1;
    d->aborted_last = a->last_offset;
    d->out_of_memory = !txn_table_restore_aborted(d->txns, a, d->expect.end_offset);
    return d->out_of_memory;
}

static int load_txn_aborted(decoder *d, size_t pos, kq_slice value)
{
    if (txn_table_of(d))
        return -ENOMEM;
    int64_t before = d->aborted_last;
    const char *why = txn_read_aborted_value(value, load_one_aborted, d);
    if (why && d->out_of_memory)
        return -ENOMEM;
    if (why)
        return fail(d, pos, "%s record: %s (a marker at or above the end offset, out of "
                    "order, or after %" PRId64 ")", SNAP_KEY_TXN_ABORTED, why, before);
    return 0;
}

/* "kq.group" / "kq.group-member" (issue 24): the group store's records. */
static int load_group_record(decoder *d, size_t pos, enum snap_key key, kq_slice value)
{
    group_store_record r;
    group_store_scratch scratch;
    const char *why = group_store_read_value(value, &r, &scratch);
    if (!why && r.tombstone)
        why = "a tombstone";
    if (!why && (r.kind == GROUP_STORE_GROUP) != (key == SNAP_GROUP))
        why = "its kind is not its key's";
    if (why)
        return fail(d, pos, "%s record: %s", snap_key_name(key), why);
    if (!d->groups) {
        d->groups = group_store_create();
        if (!d->groups)
            return -ENOMEM;
        d->own_groups = true;
    }
    if (group_store_has(d->groups, &r))
        return fail(d, pos, "%s record: its key listed twice", snap_key_name(key));
    return group_store_restore(d->groups, &r) ? 0 : -ENOMEM;
}

static int load_record(decoder *d, size_t pos, const record *rec)
{
    enum snap_key key = snap_key_of(rec->key);
    const char *why = NULL;
    switch (key) {
    case SNAP_VOTERS:
        if (d->voters_seen++)
            return fail(d, pos, "a second %s record", SNAP_KEY_VOTERS);
        why = snap_read_voters(rec->value, d->meta);
        break;
    case SNAP_PID_MAX:
        if (d->pid_max_seen++)
            return fail(d, pos, "a second %s record", SNAP_KEY_PID_MAX);
        why = snap_read_pid_max(rec->value, d->meta);
        break;
    case SNAP_PRODUCER:
        return load_producer(d, pos, rec->value);
    case SNAP_GROUP_OFFSET:
    case SNAP_GROUP_OFFSET_END:
        return load_group_offset(d, pos, rec->value, key == SNAP_GROUP_OFFSET_END);
    case SNAP_OFFSET_RUN:
        return load_offset_run(d, pos, rec->value);
    case SNAP_TXN_OFFSET:
        return load_txn_offset(d, pos, rec->value);
    case SNAP_TXN:
        return load_txn(d, pos, rec->value);
    case SNAP_TXN_OPEN:
        return load_txn_open(d, pos, rec->value);
    case SNAP_TXN_ABORTED:
        return load_txn_aborted(d, pos, rec->value);
    case SNAP_GROUP:
    case SNAP_GROUP_MEMBER:
        return load_group_record(d, pos, key, rec->value);
    case SNAP_UNKNOWN:
        return fail(d, pos, "data record with an unknown key");
    }
    return why ? fail(d, pos, "%s record: %s", snap_key_name(key), why) : 0;
}

/* The KRaftVersion (i 1) or Voters (i 2) record after the header (KIP-853). */
static int load_voter_record(decoder *d, size_t pos, int32_t i, int type, kq_slice value)
{
    raft_voter_entry *e = d->voters;
    if (type != (i == 1 ? RECORD_CONTROL_KRAFT_VERSION : RECORD_CONTROL_VOTERS))
        return fail(d, pos, "header batch record %" PRId32 " is not a %s record", i,
                    i == 1 ? "KRaftVersion" : "Voters");
    const char *why;
    if (i == 1) {
        int16_t level = -1;
        why = record_parse_kraft_version(value, &level);
        d->meta->has_kraft_version = why == NULL;
        if (!why && e) {
            e->offset = d->expect.end_offset - 1;
            e->kraft_version = level;
            e->has_voters = false;
        }
        d->kraft_level = level;
    } else if (d->kraft_level != 1) {
        return fail(d, pos, "a Voters record at kraft.version %d", (int)d->kraft_level);
    } else {
        kq_voter_set *set = e ? &e->voters : malloc(sizeof(*set));
        if (!set)
            return -ENOMEM;
        why = record_parse_voters(value, set);
        if (!why && e)
            e->has_voters = true;
        if (!e)
            free(set);
    }
    return why ? fail(d, pos, "%s record: %s", i == 1 ? "KRaftVersion" : "Voters", why) : 0;
}

/* A record of a control batch: in the first batch the header, then maybe
 * KRaftVersion and Voters; the footer (last batch only, alone). */
static int load_control(decoder *d, size_t pos, size_t end, int64_t index, int32_t i,
                        const record *rec)
{
    int type = record_control_type(rec->key);
    const char *why;
    if (index == 0 && i > 0)
        return load_voter_record(d, pos, i, type, rec->value);
    if (index == 0) {
        if (type != KQ_SNAPSHOT_CONTROL_HEADER)
            return fail(d, pos, "first batch is not a SnapshotHeaderRecord");
        why = snap_read_header(rec->value, &d->meta->last_contained_timestamp_ms);
    } else {
        if (type != KQ_SNAPSHOT_CONTROL_FOOTER)
            return fail(d, pos, "control batch other than the header and the footer");
        if (end != d->len)
            return fail(d, end, "bytes after the SnapshotFooterRecord batch");
        why = snap_read_footer(rec->value);
    }
    return why ? fail(d, pos, "%s", why) : 0;
}

static int check_header(decoder *d, size_t pos, record_batch_header *h, int64_t index)
{
    enum record_status st = record_batch_check(d->data + pos, d->len - pos, h);
    if (st != RECORD_OK)
        return fail(d, pos, "batch %" PRId64 ": %s", index, record_status_name(st));
    if (h->base_offset != d->next_offset)
        return fail(d, pos, "batch base offset %" PRId64 ", expected %" PRId64,
                    h->base_offset, d->next_offset);
    if (h->partition_leader_epoch != d->expect.epoch)
        return fail(d, pos, "batch leader epoch %" PRId32 ", expected %" PRId32,
                    h->partition_leader_epoch, d->expect.epoch);
    if (h->record_count < 1 || (int64_t)h->last_offset_delta + 1 != h->record_count)
        return fail(d, pos, "RecordsCount %" PRId32 " with LastOffsetDelta %" PRId32,
                    h->record_count, h->last_offset_delta);
    if (index == 0 && !record_batch_is_control(h))
        return fail(d, pos, "first batch is not a control batch");
    /* The header's batch also holds KRaftVersion and Voters (KIP-853). */
    if (record_batch_is_control(h) && (index == 0 ? h->record_count > 3 : h->record_count != 1))
        return fail(d, pos, "control batch with %" PRId32 " records", h->record_count);
    return 0;
}

/* Position of the next record for messages: exact when uncompressed. */
static size_t record_pos(const record_iter *it, size_t pos)
{
    int codec = it->header.attributes & RECORD_ATTR_COMPRESSION_MASK;
    return codec == RECORD_COMPRESSION_NONE ? pos + RECORD_BATCH_HEADER_BYTES + it->reader.pos
                                            : pos;
}

static int load_batch(decoder *d, size_t pos, int64_t index, size_t *end, bool *footer)
{
    record_batch_header h;
    int rc = check_header(d, pos, &h, index);
    if (rc)
        return rc;
    *end = pos + record_batch_size(&h);
    *footer = record_batch_is_control(&h) && index > 0;
    record_iter it;
    record rec;
    enum record_status st = record_iter_open(&it, d->data + pos, d->len - pos);
    for (int32_t i = 0; st == RECORD_OK && rc == 0; i++) {
        size_t rpos = record_pos(&it, pos);
        if (!record_iter_next(&it, &rec)) {
            if (it.status != RECORD_OK)
                rc = fail(d, rpos, "record %" PRId32 ": %s", i, record_status_name(it.status));
            break;
        }
        if (rec.offset != h.base_offset + i)
            rc = fail(d, rpos, "record %" PRId32 ": offset delta is not its index", i);
        else if (record_batch_is_control(&h))
            rc = load_control(d, pos, *end, index, i, &rec);
        else
            rc = load_record(d, rpos, &rec);
    }
    if (st != RECORD_OK)
        rc = fail(d, pos, "batch %" PRId64 ": %s", index, record_status_name(st));
    record_iter_close(&it);
    d->next_offset += h.record_count;
    return rc;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static int finish(decoder *d)
{
    if (!d->voters_seen)
        return fail(d, d->len, "no %s record", SNAP_KEY_VOTERS);
    if (d->pids && d->producers > 1) {
        qsort(d->pids, d->producers, sizeof(*d->pids), cmp_i64);
        for (uint32_t i = 1; i < d->producers; i++)
            if (d->pids[i] == d->pids[i - 1])
                return fail(d, d->len, "producer id %" PRId64 " listed twice", d->pids[i]);
    }
    return 0;
}

static int decode_all(decoder *d)
{
    if (d->len == 0)
        return fail(d, 0, "empty file");
    size_t pos = 0;
    bool footer = false;
    for (int64_t index = 0; !footer; index++) {
        if (pos >= d->len)
            return fail(d, pos, "no SnapshotFooterRecord batch (file ends)");
        size_t end = pos;
        int rc = load_batch(d, pos, index, &end, &footer);
        if (rc || d->first_only)
            return rc;
        pos = end;
    }
    return finish(d);
}

int kq_snapshot_decode(const uint8_t *data, size_t len, raft_snapshot_id expect,
                       producer_state *ps, group_offsets *offsets, kq_snapshot_meta *meta,
                       char *err, size_t errlen)
{
    return kq_snapshot_decode_all(data, len, expect, ps, offsets, NULL, meta, NULL, err, errlen);
}

int kq_snapshot_decode_voters(const uint8_t *data, size_t len, raft_snapshot_id expect,
                              producer_state *ps, group_offsets *offsets,
                              kq_snapshot_meta *meta, raft_voter_entry *voters, char *err,
                              size_t errlen)
{
    return kq_snapshot_decode_all(data, len, expect, ps, offsets, NULL, meta, voters, err,
                                  errlen);
}

int kq_snapshot_read_voters(const uint8_t *data, size_t len, raft_snapshot_id expect,
                            raft_voter_entry *voters, bool *has, char *err, size_t errlen)
{
    kq_snapshot_meta meta;
    decoder d;
    memset(&d, 0, sizeof(d));
    memset(&meta, 0, sizeof(meta));
    d.data = data;
    d.len = data ? len : 0;
    d.expect = expect;
    d.meta = &meta;
    d.voters = voters;
    d.kraft_level = -1;
    d.first_only = true;
    d.err = err;
    d.errlen = errlen;
    if (err && errlen)
        err[0] = '\0';
    *has = false;
    if (expect.end_offset < 0 || expect.epoch < 0)
        return -EINVAL;
    int rc = d.len == 0 ? fail(&d, 0, "empty file") : decode_all(&d);
    *has = rc == 0 && meta.has_kraft_version;
    return rc;
}

int kq_snapshot_decode_all(const uint8_t *data, size_t len, raft_snapshot_id expect,
                           producer_state *ps, group_offsets *offsets, txn_table *txns,
                           kq_snapshot_meta *meta, raft_voter_entry *voters, char *err,
                           size_t errlen)
{
    return kq_snapshot_decode_groups(data, len, expect, ps, offsets, txns, NULL, meta, voters,
                                     err, errlen);
}

int kq_snapshot_decode_groups(const uint8_t *data, size_t len, raft_snapshot_id expect,
                              producer_state *ps, group_offsets *offsets, txn_table *txns,
                              group_store *groups, kq_snapshot_meta *meta,
                              raft_voter_entry *voters, char *err, size_t errlen)
{
    kq_snapshot_meta local;
    decoder d;
    memset(&d, 0, sizeof(d));
    d.data = data;
    d.len = data ? len : 0;
    d.expect = expect;
    d.ps = ps;
    d.meta = meta ? meta : &local;
    d.voters = voters;
    d.kraft_level = -1;
    d.err = err;
    d.errlen = errlen;
    memset(d.meta, 0, sizeof(*d.meta));
    if (err && errlen)
        err[0] = '\0';
    if (ps)
        producer_state_clear(ps);
    d.offsets = offsets;
    if (offsets)
        group_offsets_clear(offsets, expect.end_offset);
    d.txns = txns;
    d.aborted_last = -1;
    if (txns)
        txn_table_clear(txns);
    d.groups = groups;
    if (groups)
        group_store_clear(groups);
    if (expect.end_offset < 0 || expect.epoch < 0) {
        (void)fail(&d, 0, "expected snapshot id %" PRId64 "-%" PRId32 " is negative",
                   expect.end_offset, expect.epoch);
        return -EINVAL;
    }
    int rc = decode_all(&d);
    free(d.pids);
    if (d.own_offsets)
        group_offsets_destroy(d.offsets);
    if (d.own_txns)
        txn_table_destroy(d.txns);
    if (d.own_groups)
        group_store_destroy(d.groups);
    if (groups && rc)
        group_store_clear(groups);
    if (groups && rc == 0)
        group_store_restored(groups, expect.end_offset);
    if (rc && txns)
        txn_table_clear(txns);
    if (rc == 0 && txns)
        txn_table_restored(txns, expect.end_offset);
    if (rc && ps)
        producer_state_clear(ps);
    if (rc && offsets)
        group_offsets_clear(offsets, expect.end_offset);
    if (rc == 0) {
        d.meta->id.end_offset = expect.end_offset;
        d.meta->id.epoch = expect.epoch;
    }
    return rc;
}
