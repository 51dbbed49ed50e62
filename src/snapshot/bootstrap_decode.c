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

static bool copy_str(kq_slice s, char *out, size_t cap)
{
    if (!s.ptr || s.len < 1 || (size_t)s.len >= cap || memchr(s.ptr, '\0', (size_t)s.len))
        return false;
    memcpy(out, s.ptr, (size_t)s.len);
    out[s.len] = '\0';
    return true;
}

/* One voter (VotersRecord v0); the first endpoint is kept. */
static const char *read_voter(kq_reader *r, kq_bootstrap_voter *v)
{
    v->id = kq_read_i32(r);
    v->directory_id = kq_read_uuid(r);
    int32_t n = kq_read_compact_array_len(r);
    if (r->error || n < 1)
        return "a voter without endpoints";
    for (int32_t i = 0; i < n; i++) {
        kq_slice name = kq_read_compact_string(r), host = kq_read_compact_string(r);
        uint16_t port = kq_read_u16(r);
        kq_skip_tagged_fields(r);
        if (r->error)
            return "voter endpoint truncated";
        if (i == 0 && (!copy_str(name, v->listener, sizeof v->listener) ||
                       !copy_str(host, v->host, sizeof v->host)))
            return "bad endpoint name or host";
        if (i == 0)
            v->port = port;
    }
    int16_t lo = kq_read_i16(r), hi = kq_read_i16(r);
    kq_skip_tagged_fields(r);
    kq_skip_tagged_fields(r);
    if (r->error)
        return "voter truncated";
    return v->id < 0 || lo > hi || lo > 1 || hi < 1 ? "bad voter id or kraft.version range" : NULL;
}

static const char *read_voters(kq_slice value, kq_bootstrap *b)
{
    kq_reader r;
    kq_reader_init(&r, value.ptr, value.len < 0 ? 0 : (size_t)value.len);
    int16_t version = kq_read_i16(&r);
    int32_t n = kq_read_compact_array_len(&r);
    if (r.error || version != 0)
        return "VotersRecord: unknown version or truncated";
    if (n < 1 || n > KQ_BOOTSTRAP_VOTERS_MAX)
        return "VotersRecord: no voters, or more than the limit";
    for (int32_t i = 0; i < n; i++) {
        const char *why = read_voter(&r, &b->voters[i]);
        if (why)
            return why;
        for (int32_t k = 0; k < i; k++)
            if (b->voters[k].id == b->voters[i].id)
                return "VotersRecord: a voter listed twice";
    }
    kq_skip_tagged_fields(&r);
    if (r.error || kq_reader_remaining(&r) != 0)
        return "VotersRecord: truncated or trailing bytes";
    b->voter_count = n;
    b->has_voters = true;
    return NULL;
}

static const char *read_kraft_version(kq_slice value, kq_bootstrap *b)
{
    kq_reader r;
    kq_reader_init(&r, value.ptr, value.len < 0 ? 0 : (size_t)value.len);
    int16_t version = kq_read_i16(&r), level = kq_read_i16(&r);
    kq_skip_tagged_fields(&r);
    if (r.error || version != 0 || kq_reader_remaining(&r) != 0)
        return "KRaftVersionRecord: unknown version or malformed";
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
    if (type == KQ_CONTROL_KRAFT_VERSION && b->kraft_version == 0 && !b->has_voters)
        return read_kraft_version(rec->value, b);
    if (type == KQ_CONTROL_VOTERS && b->kraft_version == 1 && !b->has_voters)
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
