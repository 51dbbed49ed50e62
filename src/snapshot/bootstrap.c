/* Kafka's bootstrap snapshot (kq/bootstrap_snapshot.h): the control
 * records' values are written by the record module's KIP-853 codec
 * (control_voters.c). */
#include <string.h>

#include "kq/bootstrap_snapshot.h"
#include "kq/record.h"
#include "snapshot_internal.h"

static bool args_ok(const kq_bootstrap *b)
{
    if (b->kraft_version != 0 && b->kraft_version != 1)
        return false;
    if (b->has_voters && (b->kraft_version != 1 || b->voters.count < 1 ||
                          b->voters.count > KQ_BOOTSTRAP_VOTERS_MAX))
        return false;
    return b->has_voters || b->voters.count == 0;
}

bool kq_bootstrap_encode(kq_writer *out, const kq_bootstrap *b)
{
    if (!args_ok(b))
        return false;
    kq_writer val[3];
    uint8_t keys[3][4] = {{0, 0, 0, KQ_SNAPSHOT_CONTROL_HEADER},
                          {0, 0, 0, RECORD_CONTROL_KRAFT_VERSION},
                          {0, 0, 0, RECORD_CONTROL_VOTERS}};
    for (int i = 0; i < 3; i++)
        kq_writer_init(&val[i], 1 << 20);
    kq_write_i16(&val[0], SNAP_CONTROL_VERSION);
    kq_write_i64(&val[0], b->timestamp_ms); /* LastContainedLogTimestamp */
    kq_write_empty_tagged_fields(&val[0]);
    record_write_kraft_version_value(&val[1], b->kraft_version);
    record_write_voters_value(&val[2], &b->voters);
    int n = b->kraft_version == 0 ? 1 : b->has_voters ? 3 : 2;
    record recs[3];
    bool ok = true;
    memset(recs, 0, sizeof recs);
    for (int i = 0; i < n; i++) {
        ok = ok && !val[i].error;
        recs[i].timestamp = b->timestamp_ms;
        recs[i].key = (kq_slice){keys[i], 4};
        recs[i].value = (kq_slice){val[i].data, (int32_t)val[i].len};
    }
    record_batch_builder_args args = {
        .base_offset = 0,
        .partition_leader_epoch = 0,
        .attributes = RECORD_ATTR_CONTROL,
        .base_timestamp = b->timestamp_ms,
        .producer_id = -1,
        .producer_epoch = -1,
        .base_sequence = -1,
        .records = recs,
        .record_count = n,
    };
    ok = ok && record_batch_build(out, &args) && snap_build_footer(out, n, 0, b->timestamp_ms);
    for (int i = 0; i < 3; i++)
        kq_writer_free(&val[i]);
    return ok;
}
