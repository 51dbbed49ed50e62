/* Kafka's bootstrap snapshot (kq/bootstrap_snapshot.h): the control
 * records' values are flexible v0 messages (KRaftVersionRecord.json,
 * VotersRecord.json in Kafka's protocol definitions). */
#include <string.h>

#include "kq/bootstrap_snapshot.h"
#include "kq/record.h"
#include "snapshot_internal.h"

static void write_voters(kq_writer *w, const kq_bootstrap *b)
{
    kq_write_i16(w, 0); /* Version */
    kq_write_compact_array_len(w, b->voter_count);
    for (int i = 0; i < b->voter_count; i++) {
        const kq_bootstrap_voter *v = &b->voters[i];
        kq_write_i32(w, v->id);
        kq_write_uuid(w, v->directory_id);
        kq_write_compact_array_len(w, 1); /* Endpoints: the controller listener */
        kq_write_compact_cstring(w, v->listener);
        kq_write_compact_cstring(w, v->host);
        kq_write_u16(w, v->port);
        kq_write_empty_tagged_fields(w); /* Endpoint */
        kq_write_i16(w, 0); /* KRaftVersionFeature.MinSupportedVersion */
        kq_write_i16(w, 1); /* MaxSupportedVersion */
        kq_write_empty_tagged_fields(w); /* KRaftVersionFeature */
        kq_write_empty_tagged_fields(w); /* Voter */
    }
    kq_write_empty_tagged_fields(w);
}

static bool args_ok(const kq_bootstrap *b)
{
    if (b->kraft_version != 0 && b->kraft_version != 1)
        return false;
    if (b->has_voters && (b->kraft_version != 1 || b->voter_count < 1 ||
                          b->voter_count > KQ_BOOTSTRAP_VOTERS_MAX))
        return false;
    return b->has_voters || b->voter_count == 0;
}

bool kq_bootstrap_encode(kq_writer *out, const kq_bootstrap *b)
{
    if (!args_ok(b))
        return false;
    kq_writer val[3];
    uint8_t keys[3][4] = {{0, 0, 0, KQ_SNAPSHOT_CONTROL_HEADER},
                          {0, 0, 0, KQ_CONTROL_KRAFT_VERSION},
                          {0, 0, 0, KQ_CONTROL_VOTERS}};
    for (int i = 0; i < 3; i++)
        kq_writer_init(&val[i], 1 << 20);
    kq_write_i16(&val[0], SNAP_CONTROL_VERSION);
    kq_write_i64(&val[0], b->timestamp_ms); /* LastContainedLogTimestamp */
    kq_write_empty_tagged_fields(&val[0]);
    kq_write_i16(&val[1], 0); /* Version */
    kq_write_i16(&val[1], b->kraft_version);
    kq_write_empty_tagged_fields(&val[1]);
    write_voters(&val[2], b);
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
