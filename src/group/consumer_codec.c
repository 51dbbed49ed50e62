/* The persisted bodies of a consumer group and of one member (issue 24
 * item 2: Kafka keeps them in __consumer_offsets as ConsumerGroupMetadata,
 * ConsumerGroupMemberMetadata, ConsumerGroupTargetAssignmentMember and
 * ConsumerGroupCurrentMemberAssignment; ours is one body per member).
 * Big endian, version 0:
 *   group:  version i16, group epoch i32, assignment epoch i32
 *   member: version i16, member epoch i32, previous epoch i32, state i8,
 *           rebalance timeout i32, assignor i8 (-1 none), instance id,
 *           rack id, client id, client host (string16 each), subscribed
 *           names (i16 count, string16 each), assigned, pending revocation
 *           and target sets (i16 topics; per topic: id 16 bytes, i16 count,
 *           i32 partitions), classic i8 (0/1) then, when 1, session timeout
 *           i32 and protocols (i16 count; name string16, metadata bytes32
 *           each).
 * The subscription metadata is not kept: restoring recomputes it from the
 * topics (unchanged topics: no epoch bump). Decoding bounds every field. */
#include <stdlib.h>
#include <string.h>

#include "consumer_internal.h"
#include "kq/buf.h"

#define CODEC_VERSION 0

bool cg_encode_group(const cgroup *cg, kq_writer *w)
{
    kq_write_i16(w, CODEC_VERSION);
    kq_write_i32(w, cg->group_epoch);
    kq_write_i32(w, cg->assignment_epoch);
    return !w->error;
}

bool cg_decode_group(const uint8_t *p, size_t n, int32_t *group_epoch, int32_t *assignment_epoch)
{
    kq_reader r;
    kq_reader_init(&r, p, n);
    int16_t v = kq_read_i16(&r);
    *group_epoch = kq_read_i32(&r);
    *assignment_epoch = kq_read_i32(&r);
    return !r.error && v == CODEC_VERSION && *group_epoch >= 0 && *assignment_epoch >= 0 &&
           *assignment_epoch <= *group_epoch;
}

static void write_set(kq_writer *w, const cset *s)
{
    int topics = 0;
    for (int i = 0; i < s->n; i++)
        topics += i == 0 || memcmp(s->v[i - 1].id, s->v[i].id, 16) != 0;
    kq_write_i16(w, (int16_t)topics);
    for (int i = 0; i < s->n;) {
        int j = i;
        while (j < s->n && memcmp(s->v[j].id, s->v[i].id, 16) == 0)
            j++;
        kq_write_raw(w, s->v[i].id, 16);
        kq_write_i16(w, (int16_t)(j - i));
        for (; i < j; i++)
            kq_write_i32(w, s->v[i].p);
    }
}

bool cg_encode_member(const cmember *m, kq_writer *w)
{
    kq_write_i16(w, CODEC_VERSION);
    kq_write_i32(w, m->member_epoch);
    kq_write_i32(w, m->previous_member_epoch);
    kq_write_i8(w, (int8_t)m->state);
    kq_write_i32(w, m->rebalance_timeout_ms);
    kq_write_i8(w, (int8_t)m->assignor);
    kq_write_cstring(w, m->instance_id);
    kq_write_cstring(w, m->rack_id);
    kq_write_cstring(w, m->client_id);
    kq_write_cstring(w, m->client_host);
    kq_write_i16(w, (int16_t)m->topic_count);
    for (int i = 0; i < m->topic_count; i++)
        kq_write_cstring(w, m->topics[i]);
    write_set(w, &m->assigned);
    write_set(w, &m->revoking);
    write_set(w, &m->target);
    kq_write_i8(w, m->classic ? 1 : 0);
    if (m->classic) {
        kq_write_i32(w, m->classic->session_timeout_ms);
        kq_write_i16(w, (int16_t)m->classic->protocol_count);
        for (int i = 0; i < m->classic->protocol_count; i++) {
            kq_write_cstring(w, m->classic->protocol_names[i]);
            kq_write_bytes(w, (kq_slice){m->classic->metadata[i],
                                         (int32_t)m->classic->metadata_len[i]});
        }
    }
    return !w->error && w->len <= KQ_GROUP_CONSUMER_MEMBER_BODY_BYTES_MAX;
}

/* A string16 into a KQ_GROUP_NAME_BYTES_MAX field (or max bytes). */
static bool read_str(kq_reader *r, char *out, size_t max)
{
    kq_slice s = kq_read_string(r);
    if (r->error || s.len < 0 || (size_t)s.len >= max || memchr(s.ptr, 0, (size_t)s.len))
        return false;
    memcpy(out, s.ptr, (size_t)s.len);
    out[s.len] = '\0';
    return true;
}

static bool read_set(kq_reader *r, cset *s)
{
    int topics = kq_read_i16(r);
    if (topics < 0 || topics > KQ_GROUP_CONSUMER_TOPICS_MAX)
        return false;
    for (int t = 0; t < topics && !r->error; t++) {
        const uint8_t *id = kq_read_raw(r, 16);
        int n = kq_read_i16(r);
        if (!id || n < 0 || n > KQ_GROUP_CONSUMER_PARTITIONS_MAX)
            return false;
        for (int i = 0; i < n; i++) {
            int32_t p = kq_read_i32(r);
            if (r->error || p < 0 || !cs_add(s, id, p) ||
                s->n > KQ_GROUP_CONSUMER_PARTITIONS_MAX)
                return false;
        }
    }
    return !r->error;
}

static bool read_names(kq_reader *r, cmember *m)
{
    int n = kq_read_i16(r);
    if (n < 0 || n > KQ_GROUP_CONSUMER_SUBSCRIBED_TOPICS_MAX)
        return false;
    m->topics = calloc((size_t)(n ? n : 1), sizeof(char *));
    if (!m->topics)
        return false;
    for (int i = 0; i < n; i++) {
        char name[KQ_TOPIC_NAME_BYTES_MAX];
        if (!read_str(r, name, sizeof(name)) || !(m->topics[i] = strdup(name)))
            return false;
        m->topic_count++;
        if (i > 0 && strcmp(m->topics[i - 1], name) >= 0)
            return false; /* sorted, unique */
    }
    return true;
}

static bool read_classic(kq_reader *r, cmember *m)
{
    int8_t classic = kq_read_i8(r);
    if (classic == 0)
        return !r->error;
    if (classic != 1 || !(m->classic = calloc(1, sizeof(cclassic))))
        return false;
    cclassic *k = m->classic;
    k->session_timeout_ms = kq_read_i32(r);
    k->join_deadline_ms = k->sync_deadline_ms = INT64_MAX;
    int n = kq_read_i16(r);
    if (n < 1 || n > KQ_GROUP_PROTOCOLS_MAX || k->session_timeout_ms <= 0)
        return false;
    size_t bytes = 0;
    for (int i = 0; i < n; i++, k->protocol_count++) {
        if (!read_str(r, k->protocol_names[i], KQ_GROUP_NAME_BYTES_MAX))
            return false;
        kq_slice meta = kq_read_bytes(r);
        bytes += strlen(k->protocol_names[i]) + 2 + (meta.len > 0 ? (size_t)meta.len : 0) + 4;
        if (r->error || meta.len < 0 || bytes > KQ_GROUP_CONSUMER_CLASSIC_PROTOCOLS_BYTES_MAX ||
            !(k->metadata[i] = malloc((size_t)meta.len + 1)))
            return false;
        if (meta.len > 0)
            memcpy(k->metadata[i], meta.ptr, (size_t)meta.len);
        k->metadata_len[i] = (size_t)meta.len;
    }
    return true;
}

/* NULL when the body is malformed or memory runs out. */
cmember *cg_decode_member(const char *member_id, const uint8_t *p, size_t n)
{
    kq_reader r;
    kq_reader_init(&r, p, n);
    cmember *m = gc_str_ok(member_id) && *member_id ? cm_new(member_id) : NULL;
    if (!m)
        return NULL;
    int16_t v = kq_read_i16(&r);
    m->member_epoch = kq_read_i32(&r);
    m->previous_member_epoch = kq_read_i32(&r);
    int state = kq_read_i8(&r);
    m->rebalance_timeout_ms = kq_read_i32(&r);
    m->assignor = kq_read_i8(&r);
    bool ok = v == CODEC_VERSION && state >= 0 && state <= GROUP_MEMBER_UNKNOWN &&
              m->assignor >= -1 && m->assignor < GROUP_ASSIGNORS_MAX &&
              m->rebalance_timeout_ms >= 0 &&
              read_str(&r, m->instance_id, KQ_GROUP_NAME_BYTES_MAX) &&
              read_str(&r, m->rack_id, KQ_GROUP_NAME_BYTES_MAX) &&
              read_str(&r, m->client_id, KQ_GROUP_NAME_BYTES_MAX) &&
              read_str(&r, m->client_host, KQ_GROUP_NAME_BYTES_MAX) && read_names(&r, m) &&
              read_set(&r, &m->assigned) && read_set(&r, &m->revoking) &&
              read_set(&r, &m->target) && read_classic(&r, m) && kq_reader_remaining(&r) == 0;
    m->state = (enum group_member_state)state;
    if (!ok) {
        cm_free(m);
        return NULL;
    }
    return m;
}
