/* The APIs we speak: flexible-version thresholds, the advertised ranges and
 * the ranges we actually decode. */
#include <stddef.h>

#include "kq/wire.h"

struct api_info {
    int16_t key;
    int16_t flexible_from; /* first flexible version; API_NEVER_FLEXIBLE: none */
    const char *name;
};

#define API_NEVER_FLEXIBLE (-1)

/* Known to the codecs (header encoding, log names). Only the `advertised`
 * table below decides what ApiVersions offers and what is accepted (the SASL
 * APIs on every listener, as Kafka; a non-SASL listener refuses them). */
static const struct api_info api_infos[] = {
    {WIRE_API_PRODUCE, 9, "Produce"},
    {WIRE_API_FETCH, 12, "Fetch"},
    {WIRE_API_LIST_OFFSETS, 6, "ListOffsets"},
    {WIRE_API_OFFSET_COMMIT, 8, "OffsetCommit"},
    {WIRE_API_OFFSET_FETCH, 6, "OffsetFetch"},
    {WIRE_API_FIND_COORDINATOR, 3, "FindCoordinator"},
    {WIRE_API_JOIN_GROUP, 6, "JoinGroup"},
    {WIRE_API_HEARTBEAT, 4, "Heartbeat"},
    {WIRE_API_LEAVE_GROUP, 4, "LeaveGroup"},
    {WIRE_API_SYNC_GROUP, 4, "SyncGroup"},
    {WIRE_API_DESCRIBE_GROUPS, 5, "DescribeGroups"},
    {WIRE_API_LIST_GROUPS, 3, "ListGroups"},
    {WIRE_API_METADATA, 9, "Metadata"},
    {WIRE_API_API_VERSIONS, 3, "ApiVersions"},
    {WIRE_API_INIT_PRODUCER_ID, 2, "InitProducerId"},
    {WIRE_API_VOTE, 0, "Vote"},
    {WIRE_API_BEGIN_QUORUM_EPOCH, 1, "BeginQuorumEpoch"},
    {WIRE_API_END_QUORUM_EPOCH, 1, "EndQuorumEpoch"},
    {WIRE_API_DESCRIBE_QUORUM, 0, "DescribeQuorum"},
    {WIRE_API_DESCRIBE_CLUSTER, 0, "DescribeCluster"},
    {WIRE_API_FETCH_SNAPSHOT, 0, "FetchSnapshot"},
    {WIRE_API_SASL_HANDSHAKE, API_NEVER_FLEXIBLE, "SaslHandshake"},
    {WIRE_API_SASL_AUTHENTICATE, 2, "SaslAuthenticate"},
};

/* librdkafka needs Produce to overlap 0..0 to compress and Fetch to overlap
 * 4..4 to use message format v2, hence the low minimums (and it turns lz4
 * off unless FindCoordinator overlaps 0..0). The classic group APIs are
 * advertised as far as their codecs go; KIP-848's ConsumerGroupHeartbeat is
 * not, so that clients use the classic protocol. */
static const wire_api_range advertised[] = {
    {WIRE_API_PRODUCE, 0, 12},
    {WIRE_API_FETCH, 4, 17},
    {WIRE_API_LIST_OFFSETS, 0, 10},
    {WIRE_API_FIND_COORDINATOR, 0, 6},
    {WIRE_API_METADATA, 0, 12},
    {WIRE_API_API_VERSIONS, 0, 4},
    {WIRE_API_INIT_PRODUCER_ID, 0, 5},
    {WIRE_API_VOTE, 0, 2},
    {WIRE_API_BEGIN_QUORUM_EPOCH, 0, 1},
    {WIRE_API_END_QUORUM_EPOCH, 0, 1},
    {WIRE_API_DESCRIBE_QUORUM, 0, 2},
    {WIRE_API_DESCRIBE_CLUSTER, 0, 1},
    {WIRE_API_SASL_HANDSHAKE, 0, 1},
    {WIRE_API_SASL_AUTHENTICATE, 0, 2},
    /* Last, so that the fuzz seeds' API selectors of the others stay put. */
    {WIRE_API_FETCH_SNAPSHOT, 0, 1},
    {WIRE_API_OFFSET_COMMIT, 2, 10},
    {WIRE_API_OFFSET_FETCH, 1, 10},
    {WIRE_API_JOIN_GROUP, 0, 9},
    {WIRE_API_HEARTBEAT, 0, 4},
    {WIRE_API_LEAVE_GROUP, 0, 5},
    {WIRE_API_SYNC_GROUP, 0, 5},
    {WIRE_API_DESCRIBE_GROUPS, 0, 6},
    {WIRE_API_LIST_GROUPS, 0, 5},
};

#define WIRE_PRODUCE_MIN_ACCEPTED 3

static const struct api_info *find_info(int16_t key)
{
    for (size_t i = 0; i < sizeof api_infos / sizeof api_infos[0]; i++)
        if (api_infos[i].key == key)
            return &api_infos[i];
    return NULL;
}

bool wire_api_flexible(int16_t api_key, int16_t version)
{
    const struct api_info *info = find_info(api_key);
    return info && info->flexible_from != API_NEVER_FLEXIBLE && version >= info->flexible_from;
}

const wire_api_range *wire_advertised_apis(int *count)
{
    *count = (int)(sizeof advertised / sizeof advertised[0]);
    return advertised;
}

bool wire_api_accepted(int16_t api_key, int16_t version)
{
    for (size_t i = 0; i < sizeof advertised / sizeof advertised[0]; i++) {
        if (advertised[i].api_key != api_key)
            continue;
        int16_t min = advertised[i].min_version;
        if (api_key == WIRE_API_PRODUCE)
            min = WIRE_PRODUCE_MIN_ACCEPTED;
        return version >= min && version <= advertised[i].max_version;
    }
    return false;
}

const char *wire_api_name(int16_t api_key)
{
    const struct api_info *info = find_info(api_key);
    return info ? info->name : "Unknown";
}
