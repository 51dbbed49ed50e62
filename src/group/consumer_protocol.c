/* The consumer embedded protocol inside classic JoinGroup/SyncGroup
 * (Kafka's ConsumerProtocol): a classic member of a consumer group (KIP-848
 * migration) subscribes with ConsumerProtocolSubscription (v0-3: topics,
 * user data, v1+ owned partitions, v2+ generation, v3+ rack) and receives
 * its assignment as ConsumerProtocolAssignment (assigned partitions by
 * topic name, null user data). Later versions are read as v3 (Kafka's
 * forward compatibility). */
#include <stdlib.h>
#include <string.h>

#include "consumer_internal.h"
#include "kq/buf.h"

static bool name_into(kq_slice s, char *out, size_t max)
{
    if (s.len < 0 || (size_t)s.len >= max || memchr(s.ptr, 0, (size_t)s.len))
        return false;
    memcpy(out, s.ptr, (size_t)s.len);
    out[s.len] = '\0';
    return true;
}

static bool read_topics(kq_reader *r, cc_subscription *s)
{
    int32_t n = kq_read_array_len(r);
    if (n < 0 || n > KQ_GROUP_CONSUMER_SUBSCRIBED_TOPICS_MAX)
        return false;
    for (int i = 0; i < n; i++)
        if (!name_into(kq_read_string(r), s->topics[i], KQ_TOPIC_NAME_BYTES_MAX))
            return false;
    s->topic_count = n;
    return !r->error;
}

/* Owned partitions by topic name; names the topics do not know are
 * dropped (Kafka's toTopicPartitions). */
static bool read_partitions(kq_reader *r, const ctopics *topics, cset *s)
{
    int32_t n = kq_read_array_len(r);
    if (n < 0 || n > KQ_GROUP_CONSUMER_OWNED_PARTITIONS_MAX)
        return false;
    for (int i = 0; i < n && !r->error; i++) {
        char name[KQ_TOPIC_NAME_BYTES_MAX];
        if (!name_into(kq_read_string(r), name, sizeof(name)))
            return false;
        const ctopic *t = ct_by_name(topics, name);
        int32_t k = kq_read_array_len(r);
        if (k < 0 || k > KQ_GROUP_CONSUMER_OWNED_PARTITIONS_MAX)
            return false;
        for (int j = 0; j < k; j++) {
            int32_t p = kq_read_i32(r);
            if (t && !r->error &&
                (p < 0 || s->n >= KQ_GROUP_CONSUMER_OWNED_PARTITIONS_MAX || !cs_add(s, t->id, p)))
                return false;
        }
    }
    return !r->error;
}

bool cc_decode_subscription(const uint8_t *p, size_t n, const ctopics *topics,
                            cc_subscription *s)
{
    kq_reader r;
    kq_reader_init(&r, p, n);
    s->version = kq_read_i16(&r);
    s->topic_count = 0;
    s->rack[0] = '\0';
    cs_clear(&s->owned);
    if (r.error || s->version < 0 || !read_topics(&r, s))
        return false;
    kq_read_bytes(&r); /* user data */
    if (s->version >= 1 && !read_partitions(&r, topics, &s->owned))
        return false;
    if (s->version >= 2)
        kq_read_i32(&r); /* generation */
    if (s->version >= 3) {
        kq_slice rack = kq_read_string(&r);
        if (rack.len >= 0 && !name_into(rack, s->rack, sizeof(s->rack)))
            return false;
    }
    return !r.error;
}

int16_t cc_metadata_version(const uint8_t *p, size_t n)
{
    kq_reader r;
    kq_reader_init(&r, p, n);
    int16_t v = kq_read_i16(&r);
    return r.error || v < 0 ? 0 : v > 3 ? 3 : v;
}

bool cc_encode_assignment(const cset *s, const ctopics *topics, int16_t version, kq_writer *w)
{
    int count = 0;
    for (int i = 0; i < s->n; i++)
        count += (i == 0 || memcmp(s->v[i - 1].id, s->v[i].id, 16) != 0) &&
                 ct_by_id(topics, s->v[i].id);
    kq_write_i16(w, version);
    kq_write_array_len(w, count);
    for (int i = 0; i < s->n;) {
        int j = i;
        while (j < s->n && memcmp(s->v[j].id, s->v[i].id, 16) == 0)
            j++;
        const ctopic *t = ct_by_id(topics, s->v[i].id);
        if (t) { /* a deleted topic's partitions are not named */
            kq_write_cstring(w, t->name);
            kq_write_array_len(w, j - i);
            for (int k = i; k < j; k++)
                kq_write_i32(w, s->v[k].p);
        }
        i = j;
    }
    kq_write_bytes(w, (kq_slice){NULL, -1});
    return !w->error;
}

bool cc_decode_assignment(const uint8_t *p, size_t n, const ctopics *topics, cset *s)
{
    kq_reader r;
    kq_reader_init(&r, p, n);
    cs_clear(s);
    if (n == 0)
        return true; /* no assignment yet (CompletingRebalance) */
    int16_t version = kq_read_i16(&r);
    if (r.error || version < 0 || !read_partitions(&r, topics, s))
        return false;
    kq_read_bytes(&r); /* user data */
    return !r.error;
}
