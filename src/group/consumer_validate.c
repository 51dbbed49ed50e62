/* Kafka's checks of a ConsumerGroupHeartbeat before it touches a group
 * (GroupMetadataManager.throwIfConsumerGroupHeartbeatRequestIsInvalid),
 * plus our bounds on its strings and arrays. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "consumer_internal.h"

/* Kafka's throwIfEmptyString: present but empty or only whitespace. */
static bool blank(const char *s)
{
    if (!s)
        return false;
    for (; *s; s++)
        if (!isspace((unsigned char)*s))
            return false;
    return true;
}

static bool names_ok(const group_consumer_heartbeat_request *r)
{
    if (r->subscribed_topic_count < -1 ||
        r->subscribed_topic_count > KQ_GROUP_CONSUMER_SUBSCRIBED_TOPICS_MAX ||
        (r->subscribed_topic_count > 0 && !r->subscribed_topic_names))
        return false;
    size_t bytes = 0;
    for (int i = 0; i < r->subscribed_topic_count; i++) {
        if (!r->subscribed_topic_names[i] ||
            strlen(r->subscribed_topic_names[i]) >= KQ_TOPIC_NAME_BYTES_MAX)
            return false;
        bytes += strlen(r->subscribed_topic_names[i]) + 2;
    }
    return bytes <= KQ_GROUP_CONSUMER_SUBSCRIPTION_BYTES_MAX;
}

static bool owned_ok(const group_consumer_heartbeat_request *r)
{
    if (r->owned_count < -1 || r->owned_count > KQ_GROUP_CONSUMER_OWNED_PARTITIONS_MAX ||
        (r->owned_count > 0 && !r->owned))
        return false;
    int64_t total = 0;
    for (int i = 0; i < r->owned_count; i++) {
        if (r->owned[i].partition_count < 0 ||
            (r->owned[i].partition_count > 0 && !r->owned[i].partitions))
            return false;
        total += r->owned[i].partition_count;
    }
    return total <= KQ_GROUP_CONSUMER_OWNED_PARTITIONS_MAX;
}

/* Our bounds: strings that fit, arrays within the limits. */
static bool bounded(const group_consumer_heartbeat_request *r)
{
    return gc_str_ok(r->group_id) && gc_str_ok(r->member_id) && gc_str_ok(r->instance_id) &&
           gc_str_ok(r->rack_id) && gc_str_ok(r->client_id) && gc_str_ok(r->client_host) &&
           gc_str_ok(r->server_assignor) && names_ok(r) && owned_ok(r) &&
           r->rebalance_timeout_ms >= -1;
}

static bool assignor_known(const group_coord *c, const char *name)
{
    for (int i = 0; i < c->config.consumer_assignor_count; i++)
        if (strcmp(group_assignor_name(c->config.consumer_assignors[i]), name) == 0)
            return true;
    return false;
}

static void unsupported_assignor(group_coord *c, const char *name,
                                 group_consumer_heartbeat_response *out)
{
    char list[64] = "";
    for (int i = 0; i < c->config.consumer_assignor_count; i++)
        snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s", i ? ", " : "",
                 group_assignor_name(c->config.consumer_assignors[i]));
    ch_error(c, out, KAFKA_UNSUPPORTED_ASSIGNOR,
             "ServerAssignor %s is not supported. Supported assignors: %s.", name, list);
}

static const char *join_problem(const group_consumer_heartbeat_request *r)
{
    if (r->rebalance_timeout_ms == -1)
        return "RebalanceTimeoutMs must be provided in first request.";
    if (r->owned_count != 0)
        return "TopicPartitions must be empty when (re-)joining.";
    if (r->subscribed_topic_count <= 0)
        return "SubscribedTopicNames must be set in first request.";
    return NULL;
}

/* v1: the client makes the member id, so it is never empty; v0 joins
 * with "" and the coordinator makes one. */
static const char *epoch_problem(const group_consumer_heartbeat_request *r)
{
    bool no_member = blank(r->member_id) || !r->member_id || !*r->member_id;
    int32_t e = r->member_epoch;
    if (e > 0 || e == GROUP_CONSUMER_LEAVE_EPOCH)
        return no_member ? "MemberId can't be empty." : NULL;
    if (e == GROUP_CONSUMER_JOIN_EPOCH)
        return r->version >= 1 && no_member ? "MemberId can't be empty." : join_problem(r);
    if (e == GROUP_CONSUMER_STATIC_LEAVE_EPOCH) {
        if (no_member)
            return "MemberId can't be empty.";
        return r->instance_id ? NULL : "InstanceId can't be null.";
    }
    return "MemberEpoch is invalid.";
}

enum kafka_error cv_validate(group_coord *c, const group_consumer_heartbeat_request *r,
                             group_consumer_heartbeat_response *out)
{
    if (!bounded(r) || !r->group_id)
        ch_error(c, out, KAFKA_INVALID_REQUEST, "The request exceeds the coordinator's bounds.");
    else if (blank(r->group_id) || !*r->group_id)
        ch_error(c, out, KAFKA_INVALID_REQUEST, "GroupId can't be empty.");
    else if (blank(r->instance_id))
        ch_error(c, out, KAFKA_INVALID_REQUEST, "InstanceId can't be empty.");
    else if (blank(r->rack_id))
        ch_error(c, out, KAFKA_INVALID_REQUEST, "RackId can't be empty.");
    else if (r->subscribed_topic_regex)
        ch_error(c, out, KAFKA_INVALID_REQUEST, "SubscribedTopicRegex is not supported yet.");
    else if (epoch_problem(r))
        ch_error(c, out, KAFKA_INVALID_REQUEST, "%s", epoch_problem(r));
    else if (r->server_assignor && !assignor_known(c, r->server_assignor))
        unsupported_assignor(c, r->server_assignor, out);
    return out->error;
}
