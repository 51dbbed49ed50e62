/* kq_snapshot_encode: the header batch (with the KRaftVersion and Voters
 * records when given), data batches packed up to
 * KQ_SNAPSHOT_BATCH_BYTES_MAX (voters, producer-id maxima, producers least
 * recent first, group offsets at the log end, stashed transactional
 * offset commits, the transaction table), the footer batch. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "kq/group_offset_codec.h"
#include "snapshot_internal.h"

/* Bytes a record adds to a batch beyond its key and value, at most: the
 * length, attributes, deltas, key and value lengths and header count. */
#define PACK_RECORD_OVERHEAD_BYTES 16

_Static_assert(PACK_RECORD_OVERHEAD_BYTES + sizeof(SNAP_KEY_TXN) - 1 + 38 <=
                       KQ_TXN_ENTRY_FIXED_BYTES &&
                   PACK_RECORD_OVERHEAD_BYTES + sizeof(SNAP_KEY_TXN_OPEN) - 1 + 20 <=
                       KQ_TXN_OPEN_RECORD_BYTES &&
                   PACK_RECORD_OVERHEAD_BYTES + sizeof(SNAP_KEY_TXN_ABORTED) - 1 + 4 <=
                       KQ_TXN_ABORTED_RECORD_FIXED_BYTES,
               "the transaction records' costs cover their framing, keys and fixed fields");
_Static_assert(PACK_RECORD_OVERHEAD_BYTES + sizeof(SNAP_KEY_GROUP_MEMBER) - 1 + 12 <=
                   KQ_GROUP_STORE_RECORD_FIXED_BYTES,
               "a group record's fixed cost covers its framing, key and fixed fields");
_Static_assert(KQ_SNAPSHOT_PRODUCER_BATCHES == PRODUCER_STATE_BATCHES,
               "limits.h bounds a producer record with the real batch count");
_Static_assert(PACK_RECORD_OVERHEAD_BYTES + sizeof(SNAP_KEY_GROUP_OFFSET) - 1 + 32 <=
                   KQ_GROUP_OFFSET_ENTRY_FIXED_BYTES,
               "an entry's fixed cost covers its record's framing, key and fixed fields");
_Static_assert(PACK_RECORD_OVERHEAD_BYTES + sizeof(SNAP_KEY_GROUP_OFFSET_END) - 1 + 32 + 8 <=
                   KQ_GROUP_OFFSET_ENTRY_FIXED_BYTES,
               "an entry's fixed cost covers a kq.group-offset-end record (issue 24)");
_Static_assert(PACK_RECORD_OVERHEAD_BYTES + sizeof(SNAP_KEY_OFFSET_RUN) - 1 + 2 + 8 <=
                   KQ_SNAPSHOT_OFFSET_RUN_BYTES,
               "the kq.offset-run record's bound covers its framing, key and value");
_Static_assert(PACK_RECORD_OVERHEAD_BYTES + sizeof(SNAP_KEY_TXN_OFFSET) - 1 + 8 + 32 <=
                   KQ_GROUP_OFFSET_ENTRY_FIXED_BYTES + KQ_TXN_OFFSET_EXTRA_BYTES,
               "a stashed commit's cost covers its record's framing, key, producer id and "
               "fixed fields");

typedef struct pending {
    enum snap_key key;
    size_t value_off;
    size_t value_len;
} pending;

typedef struct packer {
    kq_writer *out;
    int64_t next_offset;
    int32_t epoch;
    int64_t ts;
    int64_t end_offset;
    kq_writer values; /* the pending records' values, back to back */
    pending *recs;
    record *built;
    int count;
    int cap;
    size_t bytes; /* the pending records' bound */
    int rc;       /* first error */
} packer;

static int flush(packer *p)
{
    if (p->count == 0 || p->rc)
        return p->rc;
    for (int i = 0; i < p->count; i++) {
        const char *key = snap_key_name(p->recs[i].key);
        record *r = &p->built[i];
        memset(r, 0, sizeof(*r));
        r->timestamp = p->ts;
        r->key = (kq_slice){ (const uint8_t *)key, (int32_t)strlen(key) };
        r->value = (kq_slice){ p->values.data + p->recs[i].value_off,
                               (int32_t)p->recs[i].value_len };
    }
    record_batch_builder_args args = {
        .base_offset = p->next_offset,
        .partition_leader_epoch = p->epoch,
        .attributes = 0,
        .base_timestamp = p->ts,
        .producer_id = -1,
        .producer_epoch = -1,
        .base_sequence = -1,
        .records = p->built,
        .record_count = p->count,
    };
    if (!record_batch_build(p->out, &args))
        return p->rc = p->out->error ? -ENOMEM : -EINVAL;
    p->next_offset += p->count;
    p->count = 0;
    p->bytes = 0;
    kq_writer_reset(&p->values);
    return 0;
}

static bool grow(packer *p)
{
    int cap = p->cap ? 2 * p->cap : 256;
    pending *recs = realloc(p->recs, sizeof(*recs) * (size_t)cap);
    if (recs)
        p->recs = recs;
    record *built = realloc(p->built, sizeof(*built) * (size_t)cap);
    if (built)
        p->built = built;
    if (!recs || !built)
        return false;
    p->cap = cap;
    return true;
}

/* Adds the record whose value is values[value_off..]: a new batch first if
 * it would take this one past the bound. */
static int add(packer *p, enum snap_key key, size_t value_off)
{
    if (p->values.error)
        return p->rc = -ENOMEM;
    size_t value_len = p->values.len - value_off;
    size_t need = strlen(snap_key_name(key)) + value_len + PACK_RECORD_OVERHEAD_BYTES;
    if (p->count > 0 &&
        p->bytes + need > KQ_SNAPSHOT_BATCH_BYTES_MAX - RECORD_BATCH_HEADER_BYTES) {
        /* The new value moves to the front of the emptied buffer. */
        uint8_t tmp[KQ_SNAPSHOT_RECORD_BYTES_MAX];
        if (value_len > sizeof(tmp))
            return p->rc = -EINVAL;
        memcpy(tmp, p->values.data + value_off, value_len);
        p->values.len = value_off;
        if (flush(p))
            return p->rc;
        value_off = 0;
        kq_write_raw(&p->values, tmp, value_len);
        if (p->values.error)
            return p->rc = -ENOMEM;
    }
    if (p->count == p->cap && !grow(p))
        return p->rc = -ENOMEM;
    p->recs[p->count++] = (pending){ key, value_off, value_len };
    p->bytes += need;
    return 0;
}

static int add_producer(void *ctx, int64_t pid, int16_t epoch, const producer_batch_view *b,
                        int count)
{
    packer *p = ctx;
    snap_producer sp = { .pid = pid, .epoch = epoch, .count = count };
    if (count < 1 || count > PRODUCER_STATE_BATCHES)
        return p->rc = -EINVAL;
    memcpy(sp.batches, b, sizeof(*b) * (size_t)count);
    if (snap_producer_invalid(&sp, p->end_offset))
        return p->rc = -EINVAL;
    size_t off = p->values.len;
    snap_write_producer(&p->values, &sp);
    return add(p, SNAP_PRODUCER, off);
}

/* "kq.group-offset", or with the answer its run's end fixed (issue 24)
 * "kq.group-offset-end": the same value, then answer int64. */
static int add_group_offset(void *ctx, const group_offset *entry, int64_t answer)
{
    packer *p = ctx;
    if (group_offset_invalid(entry) || (answer >= 0 && answer <= entry->offset) ||
        answer > p->end_offset)
        return p->rc = -EINVAL;
    size_t off = p->values.len;
    group_offset_write_value(&p->values, entry);
    if (answer < 0)
        return add(p, SNAP_GROUP_OFFSET, off);
    kq_write_i64(&p->values, answer);
    return add(p, SNAP_GROUP_OFFSET_END, off);
}

/* "kq.offset-run" (issue 24): before the group offsets, which it sorts into
 * those in the run at the end, above it, and below it. */
static int add_offset_run(packer *p, const group_offsets *offsets)
{
    int64_t start = group_offsets_run_start_at_end(offsets);
    if (start < 0 || start > p->end_offset)
        return p->rc = -EINVAL;
    size_t off = p->values.len;
    kq_write_i16(&p->values, SNAP_VALUE_VERSION);
    kq_write_i64(&p->values, start);
    return add(p, SNAP_OFFSET_RUN, off);
}

/* A stashed transactional commit (issue 23): "kq.txn-offset". */
static int add_txn_offset(void *ctx, int64_t producer_id, const group_offset *entry)
{
    packer *p = ctx;
    if (producer_id < 0 || group_offset_invalid(entry))
        return p->rc = -EINVAL;
    size_t off = p->values.len;
    group_offset_write_txn_value(&p->values, producer_id, entry);
    return add(p, SNAP_TXN_OFFSET, off);
}

static int add_txn(void *ctx, const txn_entry *e)
{
    packer *p = ctx;
    if (txn_entry_invalid(e) || e->state == TXN_DEAD)
        return p->rc = -EINVAL;
    size_t off = p->values.len;
    txn_write_entry_value(&p->values, e);
    return add(p, SNAP_TXN, off);
}

static int add_txn_open(void *ctx, const txn_open *o)
{
    packer *p = ctx;
    if (o->producer_id < 0 || o->producer_epoch < 0 || o->first_offset < 0 ||
        o->first_offset >= p->end_offset)
        return p->rc = -EINVAL;
    size_t off = p->values.len;
    txn_write_open_value(&p->values, o);
    return add(p, SNAP_TXN_OPEN, off);
}

/* Aborted transactions gathered into records of
 * KQ_TXN_SNAPSHOT_ABORTED_PER_RECORD. */
typedef struct aborted_packer {
    packer *p;
    txn_aborted chunk[KQ_TXN_SNAPSHOT_ABORTED_PER_RECORD];
    int count;
} aborted_packer;

static int flush_aborted(aborted_packer *a)
{
    if (a->count == 0)
        return 0;
    size_t off = a->p->values.len;
    txn_write_aborted_value(&a->p->values, a->chunk, a->count);
    a->count = 0;
    return add(a->p, SNAP_TXN_ABORTED, off);
}

static int add_txn_aborted(void *ctx, const txn_aborted *x)
{
    aborted_packer *a = ctx;
    int64_t prev = a->count ? a->chunk[a->count - 1].last_offset : -1;
    if (x->producer_id < 0 || x->first_offset < 0 || x->first_offset >= x->last_offset ||
        x->last_offset >= a->p->end_offset || x->last_offset <= prev)
        return a->p->rc = -EINVAL;
    a->chunk[a->count++] = *x;
    return a->count == KQ_TXN_SNAPSHOT_ABORTED_PER_RECORD ? flush_aborted(a) : 0;
}

static int encode_txns(packer *p, const txn_table *txns)
{
    if (txn_table_foreach(txns, add_txn, p) || txn_table_foreach_open(txns, add_txn_open, p))
        return p->rc ? p->rc : -EINVAL;
    aborted_packer *a = malloc(sizeof(*a));
    if (!a)
        return p->rc = -ENOMEM;
    a->p = p;
    a->count = 0;
    int rc = txn_table_foreach_aborted(txns, add_txn_aborted, a);
    if (!rc)
        rc = flush_aborted(a);
    free(a);
    return rc ? (p->rc ? p->rc : -EINVAL) : 0;
}

/* The group store (issue 24): each group's record, then its members', in
 * key order; a group known only by member records has no record of its own. */
static int encode_groups(packer *p, const group_store *groups)
{
    group_store_record r;
    for (int gi = 0; group_store_group_at(groups, gi, &r); gi++) {
        if (!r.tombstone) {
            if (group_store_record_invalid(&r))
                return p->rc = -EINVAL;
            size_t off = p->values.len;
            group_store_write_value(&p->values, &r);
            if (add(p, SNAP_GROUP, off))
                return p->rc;
        }
        for (int mi = 0; group_store_member_at(groups, gi, mi, &r); mi++) {
            if (group_store_record_invalid(&r))
                return p->rc = -EINVAL;
            size_t off = p->values.len;
            group_store_write_value(&p->values, &r);
            if (add(p, SNAP_GROUP_MEMBER, off))
                return p->rc;
        }
    }
    return 0;
}

static int meta_valid(const kq_snapshot_meta *m)
{
    if (m->id.end_offset < 0 || m->id.epoch < 0 ||
        snap_voters_invalid(m->voter_ids, m->voter_count) ||
        snap_pid_max_invalid(m->pid_max, m->pid_max_count))
        return -EINVAL;
    return 0;
}

static int encode_body(packer *p, const producer_state *ps, const group_offsets *offsets,
                       const txn_table *txns, const group_store *groups,
                       const kq_snapshot_meta *meta, const raft_voter_entry *voters)
{
    if (!snap_build_header_voters(p->out, p->epoch, p->ts, voters))
        return p->out->error ? -ENOMEM : -EINVAL;
    p->next_offset = !voters ? 1 : voters->has_voters ? 3 : 2;
    size_t off = p->values.len;
    snap_write_voters(&p->values, meta);
    if (add(p, SNAP_VOTERS, off))
        return p->rc;
    off = p->values.len;
    snap_write_pid_max(&p->values, meta);
    if (add(p, SNAP_PID_MAX, off))
        return p->rc;
    if (ps && producer_state_foreach(ps, add_producer, p))
        return p->rc ? p->rc : -EINVAL;
    if (offsets && (add_offset_run(p, offsets) ||
                    group_offsets_foreach_at_end_runs(offsets, add_group_offset, p)))
        return p->rc ? p->rc : -EINVAL;
    if (offsets && group_offsets_foreach_txn(offsets, add_txn_offset, p))
        return p->rc ? p->rc : -EINVAL;
    if (txns && encode_txns(p, txns))
        return p->rc ? p->rc : -EINVAL;
    if (groups && encode_groups(p, groups))
        return p->rc ? p->rc : -EINVAL;
    if (flush(p))
        return p->rc;
    if (!snap_build_footer(p->out, p->next_offset, p->epoch, p->ts))
        return p->out->error ? -ENOMEM : -EINVAL;
    return 0;
}

int kq_snapshot_encode(const producer_state *ps, const group_offsets *offsets,
                       const kq_snapshot_meta *meta, kq_writer *out)
{
    return kq_snapshot_encode_all(ps, offsets, NULL, meta, NULL, out);
}

int kq_snapshot_encode_voters(const producer_state *ps, const group_offsets *offsets,
                              const kq_snapshot_meta *meta, const raft_voter_entry *voters,
                              kq_writer *out)
{
    return kq_snapshot_encode_all(ps, offsets, NULL, meta, voters, out);
}

int kq_snapshot_encode_all(const producer_state *ps, const group_offsets *offsets,
                           const txn_table *txns, const kq_snapshot_meta *meta,
                           const raft_voter_entry *voters, kq_writer *out)
{
    return kq_snapshot_encode_groups(ps, offsets, txns, NULL, meta, voters, out);
}

int kq_snapshot_encode_groups(const producer_state *ps, const group_offsets *offsets,
                              const txn_table *txns, const group_store *groups,
                              const kq_snapshot_meta *meta, const raft_voter_entry *voters,
                              kq_writer *out)
{
    if (!meta || !out || out->error || meta_valid(meta) ||
        (voters && !snap_voters_entry_ok(voters)))
        return out && out->error ? -ENOMEM : -EINVAL;
    packer p;
    memset(&p, 0, sizeof(p));
    p.out = out;
    p.epoch = meta->id.epoch;
    p.ts = meta->last_contained_timestamp_ms;
    p.end_offset = meta->id.end_offset;
    kq_writer_init(&p.values, 0);
    size_t start = out->len;
    int rc = encode_body(&p, ps, offsets, txns, groups, meta, voters);
    kq_writer_free(&p.values);
    free(p.recs);
    free(p.built);
    if (rc && !out->error)
        out->len = start;
    return rc ? (out->error ? -ENOMEM : rc) : 0;
}
