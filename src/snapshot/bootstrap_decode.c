/* Reads Kafka's bootstrap snapshot (kq/bootstrap_snapshot.h): every batch
 * CRC-checked, uncompressed or not, at contiguous offsets from 0 in epoch
 * 0; the first record the SnapshotHeader, the last batch the footer alone;
 * KRaftVersion and Voters control records parsed, data batches (Kafka's
 * FeatureLevelRecords) skipped. Anything else is refused. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "kq/bootstrap_snapshot.h"
#include "kq/record.h"
#include "snapshot_internal.h"

static int bad(char *err, size_t errlen, size_t pos, const char *fmt, ...)
{
    if (err && errlen) {
        int n = snprintf(err, errlen, "bootstrap snapshot byte %zu: ", pos);
        va_list ap;
        va_start(ap, fmt);
        if (n >= 0 && (size_t)n < errlen)
            vsnprintf(err + n, errlen - (size_t)n, fmt, ap);
        va_end(ap);
    }
    return -EBADMSG;
}

static const char *read_voters(kq_slice value, kq_bootstrap *b)
{
    const char *why = record_parse_voters(value, &b->voters);
    if (why)
        return why;
    /* Every voter must be able to run kraft.version 1, the level recorded. */
    for (int i = 0; i < b->voters.count; i++)
        if (b->voters.voters[i].kraft_version_min > 1 || b->voters.voters[i].kraft_version_max < 1)
            return "VotersRecord: a voter without kraft.version 1";
    b->has_voters = true;
    return NULL;
}

static const char *read_kraft_version(kq_slice value, kq_bootstrap *b)
{
    int16_t level;
    const char *why = record_parse_kraft_version(value, &level);
    if (why)
        return why;
    if (level != 1)
        return "KRaftVersionRecord: only kraft.version 1 is known";
    b->kraft_version = level;
    return NULL;
}

/* One control record at absolute offset off; *footer set on the footer. */
static const char *control(const record *rec, int64_t off, kq_bootstrap *b, bool *footer)
{
    int type = record_control_type(rec->key);
    if (off == 0)
        return type == KQ_SNAPSHOT_CONTROL_HEADER ? snap_read_header(rec->value, &b->timestamp_ms)
                                                  : "the first record is not a SnapshotHeader";
    if (type == KQ_SNAPSHOT_CONTROL_FOOTER) {
        *footer = true;
        return snap_read_footer(rec->value);
    }
    if (type == RECORD_CONTROL_KRAFT_VERSION && b->kraft_version == 0 && !b->has_voters)
        return read_kraft_version(rec->value, b);
    if (type == RECORD_CONTROL_VOTERS && b->kraft_version == 1 && !b->has_voters)
        return read_voters(rec->value, b);
    return "an unexpected control record (type, order or repetition)";
}

int kq_bootstrap_decode(const uint8_t *data, size_t len, kq_bootstrap *b, char *err,
                        size_t errlen)
{
    memset(b, 0, sizeof *b);
    size_t pos = 0;
    int64_t next = 0;
    bool footer = false;
    while (pos < len) {
        record_batch_header h;
        enum record_status st = record_batch_check(data + pos, len - pos, &h);
        if (st != RECORD_OK)
            return bad(err, errlen, pos, "%s", record_status_name(st));
        if (footer)
            return bad(err, errlen, pos, "a batch after the footer");
        if (h.base_offset != next || h.partition_leader_epoch != 0 || h.last_offset_delta < 0)
            return bad(err, errlen, pos, "offsets not contiguous from 0, or epoch not 0");
        record_iter it;
        st = record_iter_open(&it, data + pos, len - pos);
        record rec;
        const char *why = st == RECORD_OK ? NULL : record_status_name(st);
        int64_t off = next;
        while (!why && record_iter_next(&it, &rec)) {
            if (record_batch_is_control(&h))
                why = control(&rec, off, b, &footer);
            else if (off == 0)
                why = "the first record is not a SnapshotHeader";
            if (!why && footer && h.record_count != 1)
                why = "the footer is not alone in its batch";
            off++;
        }
        if (!why && it.status != RECORD_OK)
            why = record_status_name(it.status);
        record_iter_close(&it);
        if (!why && off != h.base_offset + h.last_offset_delta + 1)
            why = "record count and LastOffsetDelta disagree";
        if (why)
            return bad(err, errlen, pos, "%s", why);
        next = off;
        pos += record_batch_size(&h);
    }
    if (!footer)
        return bad(err, errlen, len, "no SnapshotFooter (a partial file)");
    return 0;
}
