/* The snapshot's control batches: SnapshotHeaderRecord (control type 3,
 * flexible v0 {Version i16, LastContainedLogTimestamp i64, tags}) first and
 * SnapshotFooterRecord (type 4, {Version i16, tags}) last, each in an
 * uncompressed control batch built by record_batch_build; the header's
 * batch also holds the KRaftVersion and Voters records when there are any
 * (KIP-853, as Kafka's RecordsSnapshotWriter). */
#include <string.h>

#include "kq/assert.h"
#include "snapshot_internal.h"

/* One control batch at offset holding n records, types[i] with values[i]. */
static bool build_control(kq_writer *out, int64_t offset, int32_t epoch, int64_t ts,
                          const int *types, kq_writer *values, int n)
{
    uint8_t keys[3][4];
    record recs[3];
    KQ_ASSERT(n >= 1 && n <= 3);
    memset(recs, 0, sizeof(recs));
    for (int i = 0; i < n; i++) {
        if (values[i].error)
            return false;
        memcpy(keys[i], (uint8_t[4]){ 0, 0, 0, (uint8_t)types[i] }, 4);
        recs[i].timestamp = ts;
        recs[i].key = (kq_slice){ keys[i], 4 };
        recs[i].value = (kq_slice){ values[i].data, (int32_t)values[i].len };
    }
    record_batch_builder_args args = {
        .base_offset = offset,
        .partition_leader_epoch = epoch,
        .attributes = RECORD_ATTR_CONTROL,
        .base_timestamp = ts,
        .producer_id = -1,
        .producer_epoch = -1,
        .base_sequence = -1,
        .records = recs,
        .record_count = n,
    };
    return record_batch_build(out, &args);
}

bool snap_voters_entry_ok(const raft_voter_entry *v)
{
    if (v->kraft_version != 0 && v->kraft_version != 1)
        return false;
    return !v->has_voters || (v->kraft_version == 1 && v->voters.count >= 1 &&
                              v->voters.count <= KQ_VOTER_SET_MAX);
}

bool snap_build_header_voters(kq_writer *out, int32_t epoch, int64_t timestamp_ms,
                              const raft_voter_entry *voters)
{
    if (voters && !snap_voters_entry_ok(voters))
        return false;
    int types[3] = { KQ_SNAPSHOT_CONTROL_HEADER, RECORD_CONTROL_KRAFT_VERSION,
                     RECORD_CONTROL_VOTERS };
    kq_writer v[3];
    int n = !voters ? 1 : voters->has_voters ? 3 : 2;
    for (int i = 0; i < n; i++) /* the batch's bound holds all three */
        kq_writer_init(&v[i], KQ_SNAPSHOT_BATCH_BYTES_MAX);
    kq_write_i16(&v[0], SNAP_CONTROL_VERSION);
    kq_write_i64(&v[0], timestamp_ms);
    kq_write_empty_tagged_fields(&v[0]);
    if (n > 1)
        record_write_kraft_version_value(&v[1], voters->kraft_version);
    if (n > 2)
        record_write_voters_value(&v[2], &voters->voters);
    bool ok = build_control(out, 0, epoch, timestamp_ms, types, v, n);
    for (int i = 0; i < n; i++)
        kq_writer_free(&v[i]);
    return ok;
}

bool snap_build_header(kq_writer *out, int32_t epoch, int64_t timestamp_ms)
{
    return snap_build_header_voters(out, epoch, timestamp_ms, NULL);
}

bool snap_build_footer(kq_writer *out, int64_t offset, int32_t epoch, int64_t timestamp_ms)
{
    kq_writer v;
    kq_writer_init(&v, 64);
    kq_write_i16(&v, SNAP_CONTROL_VERSION);
    kq_write_empty_tagged_fields(&v);
    int type = KQ_SNAPSHOT_CONTROL_FOOTER;
    bool ok = build_control(out, offset, epoch, timestamp_ms, &type, &v, 1);
    kq_writer_free(&v);
    return ok;
}

static const char *read_version(kq_reader *r, kq_slice value)
{
    if (value.len < 0 || !value.ptr)
        return "null control value";
    kq_reader_init(r, value.ptr, (size_t)value.len);
    int16_t version = kq_read_i16(r);
    if (r->error)
        return "control value truncated";
    return version == SNAP_CONTROL_VERSION ? NULL : "unknown control record version";
}

static const char *read_tags_end(kq_reader *r)
{
    kq_skip_tagged_fields(r);
    if (r->error)
        return "control value truncated";
    return kq_reader_remaining(r) == 0 ? NULL : "bytes after the control value";
}

const char *snap_read_header(kq_slice value, int64_t *timestamp_ms)
{
    kq_reader r;
    const char *why = read_version(&r, value);
    if (why)
        return why;
    int64_t ts = kq_read_i64(&r);
    why = read_tags_end(&r);
    if (!why && timestamp_ms)
        *timestamp_ms = ts;
    return why;
}

const char *snap_read_footer(kq_slice value)
{
    kq_reader r;
    const char *why = read_version(&r, value);
    return why ? why : read_tags_end(&r);
}
