/* LeaderChangeMessage control batches (control type 2). */
#include <string.h>

#include "kq/limits.h"
#include "kq/record.h"
#include "record_internal.h"


static void write_voters(kq_writer *w, const int32_t *ids, int n)
{
    kq_write_compact_array_len(w, n);
    for (int i = 0; i < n; i++) {
        kq_write_i32(w, ids[i]);
        kq_write_empty_tagged_fields(w);
    }
}

void record_write_leader_change_value(kq_writer *w, int32_t leader_id, const int32_t *voters,
                                     int voter_count, const int32_t *granting,
                                     int granting_count)
{
    kq_write_i16(w, 0); /* Version */
    kq_write_i32(w, leader_id);
    write_voters(w, voters, voter_count);
    write_voters(w, granting, granting_count);
    kq_write_empty_tagged_fields(w);
}

/* The LeaderChange record alone: record_build_control checks the counts. */
bool record_build_leader_change(kq_writer *out, int64_t base_offset, int32_t epoch,
                                int64_t timestamp_ms, int32_t leader_id,
                                const int32_t *voters, int voter_count,
                                const int32_t *granting, int granting_count)
{
    if (leader_id < 0)
        return false;
    record_control_args a = {
        .base_offset = base_offset,
        .epoch = epoch,
        .timestamp_ms = timestamp_ms,
        .leader_id = leader_id,
        .lc_voters = voters,
        .lc_voter_count = voter_count,
        .lc_granting = granting,
        .lc_granting_count = granting_count,
        .kraft_version = -1,
        .voters = NULL,
    };
    return record_build_control(out, &a);
}

int record_control_type(kq_slice key)
{
    if (key.len != 4 || !key.ptr)
        return -1;
    kq_reader r;
    kq_reader_init(&r, key.ptr, 4);
    int16_t version = kq_read_i16(&r);
    int16_t type = kq_read_i16(&r);
    if (r.error || version != 0 || type < 0)
        return -1;
    return type;
}

/* Reads a Voter array; stores ids in out (when non-NULL) up to out_max. */
static bool read_voters(kq_reader *r, int16_t version, int32_t *out, int *count, int out_max)
{
    int32_t n = kq_read_compact_array_len(r);
    if (r->error || n < 0)
        return false;
    for (int32_t i = 0; i < n; i++) {
        int32_t id = kq_read_i32(r);
        if (version >= 1)
            (void)kq_read_uuid(r);
        kq_skip_tagged_fields(r);
        if (r->error)
            return false;
        if (out) {
            if (i >= out_max)
                return false;
            out[i] = id;
        }
    }
    if (count)
        *count = n;
    return true;
}

bool record_parse_leader_change(kq_slice value, int32_t *leader_id, int32_t *voters,
                                int *voter_count, int voters_max)
{
    if (value.len < 0 || (value.len > 0 && !value.ptr) || voters_max < 0 ||
        (voters_max > 0 && !voters))
        return false;
    kq_reader r;
    kq_reader_init(&r, value.ptr, (size_t)value.len);
    int16_t version = kq_read_i16(&r);
    int32_t leader = kq_read_i32(&r);
    if (r.error || version < 0 || version > 1)
        return false;
    int n = 0;
    if (!read_voters(&r, version, voters, &n, voters_max))
        return false;
    if (!read_voters(&r, version, NULL, NULL, 0))
        return false;
    kq_skip_tagged_fields(&r);
    if (r.error || kq_reader_remaining(&r) != 0)
        return false;
    if (leader_id)
        *leader_id = leader;
    if (voter_count)
        *voter_count = n;
    return true;
}
