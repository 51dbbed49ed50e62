/* KIP-853 control records: KRaftVersionRecord (control type 5) and
 * VotersRecord (type 6), flexible v0 values laid out as Kafka's
 * KRaftVersionRecord.json and VotersRecord.json; the control batch that
 * carries them (after a LeaderChange) and a scan for them in a log. The
 * values come from the network or the disk: every read is bounded and
 * anything malformed, trailing or out of range is refused. */
#include <string.h>

#include "kq/limits.h"
#include "kq/record.h"
#include "record_internal.h"

#define CONTROL_RECORDS_MAX 3 /* LeaderChange, KRaftVersion, Voters */

/* Copies a compact string into out (cap bytes with the NUL): non-empty,
 * short enough, no NUL inside. */
static bool copy_name(kq_slice s, char *out, size_t cap)
{
    if (!s.ptr || s.len < 1 || (size_t)s.len >= cap || memchr(s.ptr, '\0', (size_t)s.len))
        return false;
    memcpy(out, s.ptr, (size_t)s.len);
    out[s.len] = '\0';
    return true;
}

/* The Endpoints array of one voter: every entry checked, the first kept. */
static const char *read_endpoints(kq_reader *r, kq_voter *v)
{
    int32_t n = kq_read_compact_array_len(r);
    if (r->error || n < 1)
        return "VotersRecord: a voter without endpoints";
    for (int32_t i = 0; i < n; i++) {
        kq_slice name = kq_read_compact_string(r), host = kq_read_compact_string(r);
        uint16_t port = kq_read_u16(r);
        kq_skip_tagged_fields(r);
        if (r->error)
            return "VotersRecord: endpoint truncated";
        char scratch[KQ_VOTER_NAME_BYTES_MAX + 1];
        if (!copy_name(name, i == 0 ? v->listener : scratch, sizeof scratch) ||
            !copy_name(host, i == 0 ? v->host : scratch, sizeof scratch))
            return "VotersRecord: empty or too long endpoint name or host";
        if (i == 0)
            v->port = port;
    }
    return NULL;
}

/* One Voter entry. */
static const char *read_voter(kq_reader *r, kq_voter *v)
{
    memset(v, 0, sizeof *v);
    v->id = kq_read_i32(r);
    v->directory_id = kq_read_uuid(r);
    if (r->error)
        return "VotersRecord: voter truncated";
    if (v->id < 0)
        return "VotersRecord: a negative voter id";
    const char *why = read_endpoints(r, v);
    if (why)
        return why;
    v->kraft_version_min = kq_read_i16(r);
    v->kraft_version_max = kq_read_i16(r);
    kq_skip_tagged_fields(r); /* KRaftVersionFeature */
    kq_skip_tagged_fields(r); /* Voter */
    if (r->error)
        return "VotersRecord: voter truncated";
    if (v->kraft_version_min < 0 || v->kraft_version_min > v->kraft_version_max)
        return "VotersRecord: bad kraft.version range";
    return NULL;
}

const char *record_parse_voters(kq_slice value, kq_voter_set *set)
{
    memset(set, 0, sizeof *set);
    if (value.len < 0 || (value.len > 0 && !value.ptr))
        return "VotersRecord: null value";
    kq_reader r;
    kq_reader_init(&r, value.ptr, (size_t)value.len);
    int16_t version = kq_read_i16(&r);
    int32_t n = kq_read_compact_array_len(&r);
    if (r.error || version != 0)
        return "VotersRecord: unknown version or truncated";
    if (n < 1 || n > KQ_VOTER_SET_MAX)
        return "VotersRecord: no voters, or more than the limit";
    for (int32_t i = 0; i < n; i++) {
        const char *why = read_voter(&r, &set->voters[i]);
        if (!why && kq_voter_set_find(set, set->voters[i].id) >= 0)
            why = "VotersRecord: a voter listed twice";
        if (why) {
            memset(set, 0, sizeof *set);
            return why;
        }
        set->count = i + 1;
    }
    kq_skip_tagged_fields(&r);
    if (r.error || kq_reader_remaining(&r) != 0) {
        memset(set, 0, sizeof *set);
        return "VotersRecord: truncated or trailing bytes";
    }
    return NULL;
}

const char *record_parse_kraft_version(kq_slice value, int16_t *level)
{
    if (value.len < 0 || (value.len > 0 && !value.ptr))
        return "KRaftVersionRecord: null value";
    kq_reader r;
    kq_reader_init(&r, value.ptr, (size_t)value.len);
    int16_t version = kq_read_i16(&r), got = kq_read_i16(&r);
    kq_skip_tagged_fields(&r);
    if (r.error || version != 0 || kq_reader_remaining(&r) != 0)
        return "KRaftVersionRecord: unknown version or malformed";
    if (got != 0 && got != 1)
        return "KRaftVersionRecord: unknown kraft.version";
    *level = got;
    return NULL;
}

/* The caller gives a set as a VotersRecord holds it: each voter with its
 * controller listener and host (record_build_control checks). */
void record_write_voters_value(kq_writer *w, const kq_voter_set *set)
{
    kq_write_i16(w, 0); /* Version */
    kq_write_compact_array_len(w, set->count);
    for (int i = 0; i < set->count; i++) {
        const kq_voter *v = &set->voters[i];
        kq_write_i32(w, v->id);
        kq_write_uuid(w, v->directory_id);
        kq_write_compact_array_len(w, 1); /* Endpoints: the controller listener */
        kq_write_compact_cstring(w, v->listener);
        kq_write_compact_cstring(w, v->host);
        kq_write_u16(w, v->port);
        kq_write_empty_tagged_fields(w); /* Endpoint */
        kq_write_i16(w, v->kraft_version_min);
        kq_write_i16(w, v->kraft_version_max);
        kq_write_empty_tagged_fields(w); /* KRaftVersionFeature */
        kq_write_empty_tagged_fields(w); /* Voter */
    }
    kq_write_empty_tagged_fields(w);
}

void record_write_kraft_version_value(kq_writer *w, int16_t level)
{
    kq_write_i16(w, 0); /* Version */
    kq_write_i16(w, level);
    kq_write_empty_tagged_fields(w);
}

/* What record_parse_voters would accept back. */
static bool voter_set_writable(const kq_voter_set *set)
{
    if (set->count < 1 || set->count > KQ_VOTER_SET_MAX)
        return false;
    for (int i = 0; i < set->count; i++) {
        const kq_voter *v = &set->voters[i];
        size_t nl = strnlen(v->listener, sizeof v->listener);
        size_t nh = strnlen(v->host, sizeof v->host);
        if (v->id < 0 || nl == 0 || nl == sizeof v->listener || nh == 0 ||
            nh == sizeof v->host || v->kraft_version_min < 0 ||
            v->kraft_version_min > v->kraft_version_max)
            return false;
        for (int k = 0; k < i; k++)
            if (set->voters[k].id == v->id)
                return false;
    }
    return true;
}

static bool control_args_ok(const record_control_args *a)
{
    if (a->leader_id >= 0 &&
        (a->lc_voter_count < 0 || a->lc_granting_count < 0 ||
         a->lc_voter_count > LEADER_CHANGE_VOTERS_MAX ||
         a->lc_granting_count > LEADER_CHANGE_VOTERS_MAX ||
         (a->lc_voter_count > 0 && !a->lc_voters) ||
         (a->lc_granting_count > 0 && !a->lc_granting)))
        return false;
    if (a->kraft_version != -1 && a->kraft_version != 0 && a->kraft_version != 1)
        return false;
    if (a->voters && !voter_set_writable(a->voters))
        return false;
    return a->leader_id >= 0 || a->kraft_version >= 0 || a->voters;
}

/* Writes the value of each record a asks for; returns how many. */
static int write_values(const record_control_args *a, kq_writer val[CONTROL_RECORDS_MAX],
                        int16_t types[CONTROL_RECORDS_MAX])
{
    int n = 0;
    if (a->leader_id >= 0) {
        types[n] = RECORD_CONTROL_LEADER_CHANGE;
        record_write_leader_change_value(&val[n++], a->leader_id, a->lc_voters,
                                         a->lc_voter_count, a->lc_granting,
                                         a->lc_granting_count);
    }
    if (a->kraft_version >= 0) {
        types[n] = RECORD_CONTROL_KRAFT_VERSION;
        record_write_kraft_version_value(&val[n++], a->kraft_version);
    }
    if (a->voters) {
        types[n] = RECORD_CONTROL_VOTERS;
        record_write_voters_value(&val[n++], a->voters);
    }
    return n;
}

bool record_build_control(kq_writer *out, const record_control_args *a)
{
    if (!control_args_ok(a))
        return false;
    kq_writer val[CONTROL_RECORDS_MAX];
    for (int i = 0; i < CONTROL_RECORDS_MAX; i++)
        kq_writer_init(&val[i], 1u << 20);
    int16_t types[CONTROL_RECORDS_MAX];
    int n = write_values(a, val, types);
    uint8_t keys[CONTROL_RECORDS_MAX][4];
    record recs[CONTROL_RECORDS_MAX];
    memset(recs, 0, sizeof recs);
    bool ok = true;
    for (int i = 0; i < n; i++) {
        ok = ok && !val[i].error;
        keys[i][0] = 0; /* key Version 0 */
        keys[i][1] = 0;
        keys[i][2] = (uint8_t)((uint16_t)types[i] >> 8);
        keys[i][3] = (uint8_t)types[i];
        recs[i].timestamp = a->timestamp_ms;
        recs[i].key = (kq_slice){ keys[i], 4 };
        recs[i].value = (kq_slice){ val[i].data, (int32_t)val[i].len };
    }
    record_batch_builder_args args = {
        .base_offset = a->base_offset,
        .partition_leader_epoch = a->epoch,
        .attributes = RECORD_ATTR_CONTROL,
        .base_timestamp = a->timestamp_ms,
        .producer_id = -1,
        .producer_epoch = -1,
        .base_sequence = -1,
        .records = recs,
        .record_count = n,
    };
    ok = ok && record_batch_build(out, &args);
    for (int i = 0; i < CONTROL_RECORDS_MAX; i++)
        kq_writer_free(&val[i]);
    return ok;
}

/* The KRaftVersion and Voters records of one control batch, to fn. */
static int scan_control_batch(const uint8_t *batch, size_t len, record_voter_fn fn, void *ctx)
{
    record_iter it;
    int rc = 0;
    if (record_iter_open(&it, batch, len) != RECORD_OK) {
        record_iter_close(&it);
        return -1;
    }
    record rec;
    while (rc == 0 && record_iter_next(&it, &rec)) {
        int type = record_control_type(rec.key);
        if (type == RECORD_CONTROL_KRAFT_VERSION || type == RECORD_CONTROL_VOTERS)
            rc = fn(ctx, rec.offset, type, rec.value); /* rec.offset: base + delta */
    }
    if (rc == 0 && it.status != RECORD_OK)
        rc = -1;
    record_iter_close(&it);
    return rc;
}

int record_scan_voter_records(const uint8_t *data, size_t len, record_voter_fn fn, void *ctx)
{
    size_t pos = 0;
    while (pos < len) {
        record_batch_header h;
        enum record_status st = record_batch_parse_header(data + pos, len - pos, &h);
        if (st == RECORD_TRUNCATED)
            return 0; /* a partial batch at the end */
        if (st != RECORD_OK)
            return -1;
        size_t size = record_batch_size(&h);
        if (record_batch_is_control(&h)) {
            int rc = scan_control_batch(data + pos, size, fn, ctx);
            if (rc != 0)
                return rc;
        }
        pos += size;
    }
    return 0;
}
