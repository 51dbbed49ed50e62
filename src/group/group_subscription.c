/* Which topics a classic group's members subscribe to (issue 24), as
 * Kafka's ClassicGroup.computeSubscribedTopics / isSubscribedToTopic and
 * offsetExpirationCondition: OffsetDelete answers GROUP_SUBSCRIBED_TO_TOPIC
 * for such a topic, and the offsets of a Stable "consumer" group expire for
 * topics no member subscribes to (KIP-496).
 *
 * Only groups of protocol type "consumer" have known subscriptions: each
 * member's metadata of the chosen protocol is read as
 * ConsumerProtocolSubscription v0, the prefix of every version (Kafka reads
 * it so): int16 version (any), int32 topic count, count x string (int16
 * length, bytes), nullable bytes user data (int32 length, negative: null);
 * what follows (newer versions' fields) is not read. Metadata that does not
 * parse, or a member without metadata of the chosen protocol, makes the
 * group's subscriptions unknown, as Kafka's SchemaException does. The
 * reader is bounded by the metadata's length (at most
 * KQ_GROUP_MEMBER_BYTES_MAX) and never reads outside it.
 *
 * Kafka computes the set when a generation starts; this reads the members
 * at the time of asking (during a rebalance the new members count). */
#include <stdint.h>
#include <string.h>

#include "group_internal.h"
#include "kq/group_consumer.h"

#define CONSUMER_PROTOCOL_TYPE "consumer"

enum sub_answer { SUB_UNKNOWN = -1, SUB_NO = 0, SUB_YES = 1 };

typedef struct sub_reader {
    const uint8_t *p;
    size_t left;
} sub_reader;

static bool sr_take(sub_reader *r, size_t n, const uint8_t **at)
{
    if (n > r->left)
        return false;
    *at = r->p;
    r->p += n;
    r->left -= n;
    return true;
}

static bool sr_int(sub_reader *r, size_t n, int64_t *out)
{
    const uint8_t *b;
    if (!sr_take(r, n, &b))
        return false;
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++)
        v = v << 8 | b[i];
    /* sign-extend from n bytes (2 or 4) */
    uint64_t sign = (uint64_t)1 << (8 * n - 1);
    *out = (int64_t)((v ^ sign) - sign);
    return true;
}

/* One member's metadata: whether its topics include topic (SUB_UNKNOWN
 * when it does not parse). */
int group_subscription_lists(const uint8_t *meta, size_t len, const char *topic)
{
    sub_reader r = {meta, meta ? len : 0};
    int64_t version, count;
    if (!sr_int(&r, 2, &version) || !sr_int(&r, 4, &count) || count < 0 ||
        (uint64_t)count > r.left / 2)
        return SUB_UNKNOWN; /* each topic takes 2 bytes at least */
    size_t want = strlen(topic);
    bool found = false;
    for (int64_t i = 0; i < count; i++) {
        int64_t n;
        const uint8_t *name;
        if (!sr_int(&r, 2, &n) || n < 0 || !sr_take(&r, (size_t)n, &name))
            return SUB_UNKNOWN;
        if ((size_t)n == want && memcmp(name, topic, want) == 0)
            found = true;
    }
    int64_t user_data;
    const uint8_t *skip;
    if (!sr_int(&r, 4, &user_data) || (user_data > 0 && !sr_take(&r, (size_t)user_data, &skip)))
        return SUB_UNKNOWN;
    return found ? SUB_YES : SUB_NO;
}

/* The group's answer for topic: SUB_NO for a group without members or not
 * of the consumer protocol type (Kafka: not subscribed), else the union of
 * its members' topics, SUB_UNKNOWN when one cannot be read. */
static int group_subscription(const ggroup *g, const char *topic)
{
    if (g->member_count == 0 || strcmp(g->protocol_type, CONSUMER_PROTOCOL_TYPE) != 0)
        return SUB_NO;
    if (!g->protocol_name[0])
        return SUB_UNKNOWN;
    int answer = SUB_NO;
    for (int i = 0; i < g->member_count; i++) {
        const gmember *m = g->members[i];
        int p = gm_protocol_index(m, g->protocol_name);
        int one = p < 0 ? SUB_UNKNOWN
                        : group_subscription_lists(m->metadata[p], m->metadata_len[p], topic);
        if (one == SUB_UNKNOWN)
            return SUB_UNKNOWN;
        if (one == SUB_YES)
            answer = SUB_YES;
    }
    return answer;
}

bool group_subscribes_to(const group_coord *c, const char *group_id, const char *topic)
{
    const ggroup *g = group_id && gc_str_ok(group_id) ? gc_find(c, group_id) : NULL;
    if (!g || !topic)
        return false;
    if (g->type == GROUP_TYPE_CONSUMER) /* KIP-848: its members' topic names */
        return group_consumer_subscribes_to(c, group_id, topic);
    /* Unknown subscriptions: Kafka counts a consumer group as subscribed. */
    return group_subscription(g, topic) != SUB_NO;
}

bool group_offsets_may_expire(const group_coord *c, const char *group_id,
                              int64_t *empty_since_ms)
{
    const ggroup *g = group_id && gc_str_ok(group_id) ? gc_find(c, group_id) : NULL;
    *empty_since_ms = INT64_MIN;
    if (!g)
        return true; /* a simple consumer's offsets: from their commit */
    /* A KIP-848 group's offsets expire from their commit, in any state, for
     * topics no member subscribes to (Kafka's
     * ConsumerGroup.offsetExpirationCondition and isSubscribedToTopic). */
    if (g->type == GROUP_TYPE_CONSUMER)
        return true;
    if (g->state == GROUP_EMPTY && g->member_count == 0 && g->pending_count == 0) {
        if (g->protocol_type[0])
            *empty_since_ms = g->empty_since_ms;
        return true;
    }
    /* KIP-496: a Stable consumer group that knows its members' topics. */
    return g->state == GROUP_STABLE && strcmp(g->protocol_type, CONSUMER_PROTOCOL_TYPE) == 0 &&
           group_subscription(g, "") != SUB_UNKNOWN;
}
